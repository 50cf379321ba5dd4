/* SPDX-License-Identifier: Apache-2.0 */
/*
 * db.c -- handle lifecycle, errors, identity.  The configuration's defaults
 * and knobs are config.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/db_int.h"
#include "lifecycle/llm.h"
#include "recall/recall.h"

const char *am_errmsg(const am_db *db)
{
    if (!db) return "no handle";
    return db->err[0] ? db->err : "not an error";
}

const char *am_store_backend(const am_db *db)
{
    return db && db->store ? db->store->vt->name : "none";
}

void am_free(void *p) { am__owned_free(p); }

int am_time_parse(const char *iso, am_time *out, int *tz_minutes)
{
    if (!iso || !out) return AM_MISUSE;
    return am__time_parse(iso, out, tz_minutes, NULL);
}

char *am_time_format(am_time t, int tz_minutes, char *buf)
{
    return am__time_format(t, tz_minutes, buf);
}

int am__db_error(am_db *db, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(db->err, sizeof db->err, fmt, ap);
    va_end(ap);
    am__db_log(db, AM_LOG_DEBUG, "%s (%s)", db->err, am_errstr(rc));
    return rc;
}

int am__db_store_error(am_db *db, int rc, const char *what)
{
    if (rc == AM_NOMEM) return am__db_error(db, rc, "%s: out of memory", what);
    return am__db_error(db, rc, "%s: %s", what, db->store->vt->errmsg(db->store));
}

void am__db_clear_error(am_db *db) { db->err[0] = 0; }

int am__db_retry(am_db *db, int rc, const char *what, int idempotent, int64_t *t0_ms)
{
    am__store *s = db->store;
    if (rc != AM_IO || !s->vt->retry) return 0;
    int again = s->vt->retry(s, idempotent, t0_ms);
    if (again < 0) am__db_store_error(db, rc, what);
    return again > 0;
}

int am_store_check(am_db *db, int ping, am_store_health *out)
{
    if (!db || !out) return AM_MISUSE;
    am__db_clear_error(db);
    memset(out, 0, sizeof *out);
    am__store *s = db->store;
    out->reachable = 1;
    if (ping) am__dbcache_ping(db->cache); /* the shared cache's state made fresh too */
    if (!s->vt->health) return AM_OK;
    int rc = s->vt->health(s, ping, &out->reconnects, &out->retries);
    if (rc == AM_MISUSE) return am__db_error(db, rc, "store check: inside a transaction");
    if (!rc) return AM_OK;
    out->reachable = 0;
    return am__db_store_error(db, rc, "store check");
}

void am__db_log(am_db *db, int level, const char *fmt, ...)
{
    if (!db->cfg.log) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    db->cfg.log(db->cfg.log_ctx, level, msg);
}

void am__db_redact_policy(const am_db *db, am__redact_policy *p)
{
    am__redact_policy_default(p);
    p->redact_phone = !!(db->cfg.redact & AM_REDACT_PHONE);
    p->redact_email = !!(db->cfg.redact & AM_REDACT_EMAIL);
    p->redact_id_card = !!(db->cfg.redact & AM_REDACT_ID_CARD);
    p->redact_bank_card = !!(db->cfg.redact & AM_REDACT_BANK_CARD);
    p->drop_secrets = !!(db->cfg.redact & AM_REDACT_SECRETS);
}

am_time am__db_now(am_db *db)
{
    if (db->cfg.clock) return db->cfg.clock(db->cfg.clock_ctx);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (am_time)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void am__db_new_id(am_db *db, am_time at, char out[27])
{
    am__ulid_new(&db->ulid, at, out);
}

static void *libc_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    if (n == 0) {
        free(p);
        return NULL;
    }
    return realloc(p, n);
}

/* db->embedder from cfg->embedder (see am_config.embedder); "auto" without
 * the weights leaves it NULL (lexical recall).  Returns AM_OK or the
 * embedder's error with the message in err. */
static int open_embedder(am_db *db, const am_config *cfg, char *err, size_t cap)
{
    const char *spec = cfg->embedder;
    if (!spec || strcmp(spec, "none") == 0) return AM_OK;
    char eerr[400], dir_buf[1024];
    int rc;
    /* only the built-in encoder uses BLAS */
    int blas_one = (cfg->process_tuning & AM_PROCESS_BLAS_THREADS) != 0;
    if (strcmp(spec, "auto") == 0) {
        am_model_dirs d;
        am_model_dirs_find(&d);
        if (d.found < 0) return AM_OK;
        if (blas_one) am__embed_blas_one_thread();
        rc = am__embed_use_open_alloc(&db->alloc, d.dir[d.found], &db->embedder, eerr, sizeof eerr);
    } else if (strcmp(spec, "use-lite") == 0 || strncmp(spec, "use-lite:", 9) == 0) {
        const char *dir = spec[8] == ':' ? spec + 9 : am__embed_use_default_dir(dir_buf, sizeof dir_buf);
        if (blas_one) am__embed_blas_one_thread();
        rc = am__embed_use_open_alloc(&db->alloc, dir, &db->embedder, eerr, sizeof eerr);
    } else if (strncmp(spec, "w2v:", 4) == 0) {
        rc = am__embed_w2v_open_alloc(&db->alloc, spec + 4, NULL, &db->embedder, eerr, sizeof eerr);
        db->embed_zh = 1;
    } else if (strncmp(spec, "openai:", 7) == 0 && strchr(spec + 7, '@')) {
        /* openai:MODEL@BASE_URL, key from $AGENTMEM_EMBEDDER_KEY via the
         * caller (embedder_key) */
        const char *at = strchr(spec + 7, '@');
        char model[128];
        snprintf(model, sizeof model, "%.*s", (int)(at - spec - 7), spec + 7);
        rc = am__embed_openai_open_alloc(&db->alloc, at + 1, model, cfg->embedder_key, 0, NULL,
                                         &db->embedder, eerr, sizeof eerr);
        db->embed_zh = 1;
    } else {
        snprintf(eerr, sizeof eerr,
                 "\"%.64s\" is not one of none, auto, use-lite[:DIR], w2v:PATH, openai:MODEL@URL",
                 spec);
        rc = AM_INVALID;
    }
    if (rc) snprintf(err, cap, "open: embedder: %s", eerr);
    return rc;
}

const char *am_embedder_id(const am_db *db)
{
    return db && db->embedder ? db->embedder->id : "none";
}

int am_open(const am_config *cfg, am_db **out, char **errmsg)
{
    if (errmsg) *errmsg = NULL;
    if (!out) return AM_MISUSE;
    *out = NULL;
    char err[600];
    if (cfg && am__config_check_size(cfg, err, sizeof err)) {
        char msg[sizeof err + 8];
        snprintf(msg, sizeof msg, "open: %s", err);
        if (errmsg) *errmsg = am__owned_strndup(NULL, msg, strlen(msg));
        return AM_MISUSE;
    }
    if (!cfg || !cfg->path || !*cfg->path) {
        static const char msg[] = "open: config.path is missing";
        if (errmsg) *errmsg = am__owned_strndup(NULL, msg, sizeof msg - 1);
        return AM_MISUSE;
    }
    am__allocator alloc = {cfg->realloc ? cfg->realloc : libc_realloc,
                           cfg->alloc_ctx};
    am_db *db = am__calloc(&alloc, sizeof *db);
    if (!db) return AM_NOMEM;
    db->cfg = *cfg;
    db->cfg.path = NULL; /* not kept: borrowed from the caller */
    db->alloc = alloc;
    db->log = (am__log){cfg->log, cfg->log_record, cfg->log_ctx, !!cfg->log_content};
    if (db->cfg.max_text_bytes == 0) db->cfg.max_text_bytes = 32768;
    if (db->cfg.rank.candidates <= 0) {
        am_config d;
        am_config_init(&d);
        db->cfg.rank = d.rank;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    am__ulid_init(&db->ulid, (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
                                 (uint64_t)(uintptr_t)db);
    am__store_opts o = {&db->alloc, cfg->busy_timeout_ms > 0 ? cfg->busy_timeout_ms : 5000,
                        cfg->must_exist, 0, cfg->no_term_cache, NULL,
                        cfg->events_max_rows > 0 ? cfg->events_max_rows : 0,
                        cfg->events_max_age_ms > 0 ? cfg->events_max_age_ms : 0};
    if ((cfg->process_tuning & AM_PROCESS_SQLITE_MEMSTATUS) && strncmp(cfg->path, "postgres", 8) != 0)
        am__store_sqlite_memstatus_off(); /* a SQLite store: before SQLite starts */
    unsigned char vault_key[AM__VAULT_KEY_BYTES];
    int rc = AM_OK;
    db->cfg.vault_key = NULL; /* not kept: copied into the store */
    if (cfg->vault_key) {
        if (am__vault_key_parse(cfg->vault_key, vault_key)) {
            rc = AM_MISUSE;
            snprintf(err, sizeof err, "open: vault_key must be 64 hex digits (a 32-byte key)");
            goto out_fail;
        }
        o.vault_key = vault_key;
    }
    rc = am__store_open(cfg->path, &o, &db->store, err, sizeof err);
    am__vault_key_wipe(vault_key, sizeof vault_key);
    if (rc) goto out_fail;
    rc = am__text_open(&db->alloc, &db->text);
    if (rc) {
        snprintf(err, sizeof err, "open: cannot initialise text analysis");
        goto out_fail;
    }
    db->cfg.cache = NULL; /* not kept: parsed */
    /* before the cache: its key digests the resolved embedder's id */
    if ((rc = open_embedder(db, cfg, err, sizeof err))) goto out_fail;
    if ((rc = am__dbcache_open(db, cfg, err, sizeof err))) goto out_fail;
    am__text_keep_words(db->text); /* recent Han runs' words (forget.c drops them) */
    db->tokcache = am__tokcache_new(&db->alloc); /* NULL: no cache, still correct */
    am__arena_init(&db->roles_ar, &db->alloc);
    db->cfg.role_allow = NULL; /* not kept: parsed */
    if ((rc = am__role_rules_parse(cfg->role_allow, &db->roles_ar, &db->roles, err, sizeof err))) {
        if (rc == AM_NOMEM) snprintf(err, sizeof err, "open: out of memory");
        goto out_fail;
    }
    if (cfg->llm && strcmp(cfg->llm, "none") != 0) {
        char lerr[400];
        if ((rc = am__llm_open(cfg->llm, cfg->llm_key, &db->llm, lerr, sizeof lerr))) {
            snprintf(err, sizeof err, "open: llm: %s", lerr);
            goto out_fail;
        }
    }
    db->cfg.llm = db->cfg.llm_key = NULL; /* not kept: parsed */
    am__db_forget_work(db, 0); /* forgets due (a grace period over, a killed purge) */
    *out = db;
    return AM_OK;
out_fail:
    if (errmsg) *errmsg = am__owned_strndup(&alloc, err, strlen(err));
    am_close(db);
    return rc;
}

void am_close(am_db *db)
{
    if (!db) return;
    am__touch_close(db);
    am__events_free(db);
    if (db->store) db->store->vt->close(db->store);
    am__text_close(db->text);
    am__embedder_close(db->embedder);
    am__llm_close(db->llm);
    am__tokcache_free(db->tokcache);
    am__arena_free(&db->roles_ar);
    am__dbcache_free(db->cache);
    am__allocator a = db->alloc;
    am__free(&a, db);
}

/* ------------------------------------------------------------ identity */

int am__db_check_id(am_db *db, const char *what, const char *field, const char *v)
{
    int32_t cp;
    const char *why = am__id_problem(v, &cp);
    if (!why) return AM_OK;
    if (cp >= 0)
        return am__db_error(db, AM_INVALID, "%s: %s %s (U+%04X)", what, field, why,
                            (unsigned)cp);
    return am__db_error(db, AM_INVALID, "%s: %s %s", what, field, why);
}

/* The id the engine gives the user of a channel identity nobody linked:
 * "~" and a ULID.  No caller can make a user of that form (user_allowed),
 * so it never names someone's chosen user, and the pair stays a pair:
 * ("tg:x", "7") and ("tg", "x:7") get two users. */
#define ENGINE_ID_LEN 27
static int is_engine_id(const char *id)
{
    if (strlen(id) != ENGINE_ID_LEN || id[0] != '~') return 0;
    for (size_t i = 1; i < ENGINE_ID_LEN; i++)
        if (!strchr("0123456789ABCDEFGHJKMNPQRSTVWXYZ", id[i])) return 0;
    return 1;
}

/* A user id the caller gives: valid, and not an engine id unless that
 * user exists (a caller may name it, never create one). */
static int user_allowed(am_db *db, const char *what, const char *user_id)
{
    int rc = am__db_check_id(db, what, "user", user_id);
    if (rc || !is_engine_id(user_id)) return rc;
    int exists = db->store->vt->user_exists(db->store, user_id);
    if (exists < 0) return am__db_store_error(db, -exists, what);
    if (!exists)
        return am__db_error(db, AM_INVALID,
                            "%s: user \"%s\" has the form of an id the engine gives channel"
                            " identities (\"~\" and 26 characters) and names no user; choose"
                            " another id", what, user_id);
    return AM_OK;
}

#define PAIR_FMT "channel \"%s\" external_id \"%s\""

int am__db_resolve_user(am_db *db, const char *what, const char *user_id,
                        const char *channel, const char *external_id,
                        int create, char *out)
{
    int rc;
    am__store *s = db->store;
    if (user_id && (channel || external_id))
        return am__db_error(db, AM_INVALID, "%s: give user or channel + external_id, not both",
                            what);
    if (user_id) {
        if ((rc = create ? user_allowed(db, what, user_id)
                         : am__db_check_id(db, what, "user", user_id)))
            return rc;
        snprintf(out, AM_ID_MAX + 1, "%s", user_id);
        /* a read of a user being forgotten finds nothing (user_exists) */
        if (create && (rc = am__db_user_gate(db, what, out, AM_DENIED))) return rc;
        if (create) {
            rc = s->vt->user_ensure(s, out, am__db_now(db));
            if (rc) return am__db_store_error(db, rc, what);
        }
        return AM_OK;
    }
    if (!channel && !external_id)
        return am__db_error(db, AM_INVALID, "%s: user is missing (give user or channel + external_id)", what);
    if ((rc = am__db_check_id(db, what, "channel", channel))) return rc;
    if ((rc = am__db_check_id(db, what, "external_id", external_id))) return rc;
    rc = s->vt->link_get(s, channel, external_id, out);
    if (rc == AM_OK) return am__db_user_gate(db, what, out, create ? AM_DENIED : AM_NOTFOUND);
    if (rc != AM_NOTFOUND) return am__db_store_error(db, rc, what);
    /* the pair's own user (made before, then unlinked), or a new one */
    rc = s->vt->user_of_channel(s, channel, external_id, out);
    if (rc && rc != AM_NOTFOUND) return am__db_store_error(db, rc, what);
    if (!create)
        return rc ? am__db_error(db, AM_NOTFOUND, "%s: no user is linked to " PAIR_FMT, what,
                                 channel, external_id)
                  : AM_OK;
    am_time now = am__db_now(db);
    if (rc == AM_NOTFOUND) {
        out[0] = '~';
        am__db_new_id(db, now, out + 1);
        rc = s->vt->user_create_for(s, out, channel, external_id, now);
    }
    if (rc || (rc = s->vt->link_put(s, channel, external_id, out, now)))
        return am__db_store_error(db, rc, what);
    return AM_OK;
}

/* A late link: the pair's own user (made by the engine) goes into user_id
 * -- at once when it holds nothing, with merge when it has a history. */
static int link_take_own(am_db *db, const char *channel, const char *external_id,
                         const char *user_id, const char *own, int merge, am_time now)
{
    am__store *s = db->store;
    long events = 0, items = 0, tasks = 0;
    int rc = s->vt->user_history(s, own, &events, &items, &tasks);
    if (rc) return am__db_store_error(db, rc, "link");
    if ((events || items || tasks) && !merge)
        return am__db_error(db, AM_DENIED,
                            "link: " PAIR_FMT " already has its own history as user %s (%ld"
                            " %s, %ld %s, %ld %s): link with merge (agentmem link"
                            " --merge) to move it into %s, or leave it apart",
                            channel, external_id, own, events, events == 1 ? "event" : "events",
                            items, items == 1 ? "memory" : "memories", tasks,
                            tasks == 1 ? "task" : "tasks", user_id);
    char detail[256];
    snprintf(detail, sizeof detail, "into %.128s: %ld events, %ld memories, %ld tasks", user_id,
             events, items, tasks);
    if ((rc = s->vt->user_ensure(s, user_id, now)) || (rc = s->vt->user_merge(s, own, user_id)) ||
        (rc = s->vt->audit(s, user_id, now, "link.merge", "user", own, detail)))
        return am__db_store_error(db, rc, "link");
    return AM_OK;
}

int am_link_merge(am_db *db, const char *channel, const char *external_id,
                  const char *user_id, int merge)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    int rc;
    if ((rc = am__db_check_id(db, "link", "channel", channel)) ||
        (rc = am__db_check_id(db, "link", "external_id", external_id)) ||
        (rc = user_allowed(db, "link", user_id)))
        return rc;
    am__store *s = db->store;
    char cur[AM_ID_MAX + 1], own[AM_ID_MAX + 1];
    am_time now = am__db_now(db);
    if ((rc = am__db_user_gate(db, "link", user_id, AM_DENIED))) return rc;
    if ((rc = s->vt->begin(s))) return am__db_store_error(db, rc, "link");
    int linked = s->vt->link_get(s, channel, external_id, cur);
    int owned = linked == AM_OK || linked == AM_NOTFOUND
                    ? s->vt->user_of_channel(s, channel, external_id, own)
                    : linked;
    if ((linked && linked != AM_NOTFOUND) || (owned && owned != AM_NOTFOUND)) {
        rc = am__db_store_error(db, linked ? linked : owned, "link");
        goto out_rollback;
    }
    if (linked == AM_OK && strcmp(cur, user_id) == 0) {
        s->vt->rollback(s);
        return AM_OK;
    }
    if (linked == AM_OK && (owned || strcmp(cur, own) != 0)) {
        rc = am__db_error(db, AM_DENIED,
                          "link: " PAIR_FMT " already belongs to user %s (unlink it first)",
                          channel, external_id, cur);
        goto out_rollback;
    }
    /* not linked, or linked to the pair's own user: that one joins user_id */
    if (owned == AM_OK && strcmp(own, user_id) != 0) {
        am__dbcache_note(db->cache, user_id); /* the pair's history may join it */
        am__dbcache_note(db->cache, own);
        if ((rc = link_take_own(db, channel, external_id, user_id, own, merge, now)))
            goto out_rollback;
    } else if ((rc = s->vt->user_ensure(s, user_id, now))) {
        goto out_store;
    }
    if ((rc = s->vt->link_get(s, channel, external_id, cur)) == AM_NOTFOUND)
        rc = s->vt->link_put(s, channel, external_id, user_id, now);
    if (rc || (rc = s->vt->audit(s, user_id, now, "link", "identity", channel, external_id)) ||
        (rc = s->vt->commit(s)))
        goto out_store;
    am__dbcache_flush(db->cache);
    return AM_OK;
out_store:
    am__db_store_error(db, rc, "link");
out_rollback:
    s->vt->rollback(s);
    return rc;
}

int am_link(am_db *db, const char *channel, const char *external_id,
            const char *user_id)
{
    return am_link_merge(db, channel, external_id, user_id, 0);
}

int am_unlink(am_db *db, const char *channel, const char *external_id)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    int rc;
    if ((rc = am__db_check_id(db, "unlink", "channel", channel)) ||
        (rc = am__db_check_id(db, "unlink", "external_id", external_id)))
        return rc;
    am__store *s = db->store;
    char cur[AM_ID_MAX + 1];
    if ((rc = s->vt->begin(s))) return am__db_store_error(db, rc, "unlink");
    rc = s->vt->link_get(s, channel, external_id, cur);
    if (rc == AM_NOTFOUND) {
        s->vt->rollback(s);
        return am__db_error(db, rc, "unlink: " PAIR_FMT " is not linked", channel, external_id);
    }
    if (rc || (rc = s->vt->link_del(s, channel, external_id)) ||
        (rc = s->vt->audit(s, cur, am__db_now(db), "unlink", "identity", channel, external_id)) ||
        (rc = s->vt->commit(s))) {
        am__db_store_error(db, rc, "unlink");
        s->vt->rollback(s);
        return rc;
    }
    return AM_OK;
}

int am_resolve(am_db *db, const char *channel, const char *external_id,
               char *out)
{
    if (!db || !out) return AM_MISUSE;
    am__db_clear_error(db);
    return am__db_resolve_user(db, "resolve", NULL, channel, external_id, 0, out);
}

/* An item version's token blob (store item_tokens_fill). */
static int item_tokens(void *ctx, const char *text, const char *key, unsigned char *blob,
                       size_t *len)
{
    uint64_t set[AM__ITEM_SET];
    size_t n;
    if (*len < AM__TOKBLOB_MAX) return AM_TOOBIG;
    int rc = am__text_item_set(ctx, text, key, set, &n);
    if (!rc) *len = am__token_blob_put(set, n, blob);
    return rc;
}

int am_optimize(am_db *db)
{
    return am_optimize_ex(db, NULL, NULL);
}

int am_optimize_ex(am_db *db, am_progress_fn progress, void *ctx)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    size_t step = 0;
#define STEP_DONE() (progress ? progress(ctx, ++step, AM_OPTIMIZE_STEPS) : (void)0)
    if (progress) progress(ctx, 0, AM_OPTIMIZE_STEPS);
    am__db_forget_work(db, 0); /* forgets due (a grace period over, a killed purge) */
    STEP_DONE();
    int rc = db->store->vt->optimize(db->store);
    if (rc) return am__db_store_error(db, rc, "optimize");
    STEP_DONE();
    /* item versions written before their token sets were stored */
    size_t filled = 0;
    if (db->store->vt->item_tokens_fill &&
        (rc = db->store->vt->item_tokens_fill(db->store, item_tokens, db->text, &filled)))
        return am__db_store_error(db, rc, "optimize: item tokens");
    STEP_DONE();
    if ((rc = am__events_trim(db))) return am__db_store_error(db, rc, "optimize: memory events");
    STEP_DONE();
#undef STEP_DONE
    am__db_log(db, AM_LOG_INFO, "optimize: done (%zu item token sets stored)", filled);
    return AM_OK;
}
