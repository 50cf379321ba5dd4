/* SPDX-License-Identifier: Apache-2.0 */
/*
 * db.c -- handle lifecycle (am_open, am_close), errors, am_optimize.  The
 * configuration's defaults and knobs are config.c; identity is identity.c;
 * the embedder a configuration names is embed/embed.c's.
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
    if (rc != AM_IO) return 0;
    int again = am__store_retry(s, idempotent, t0_ms);
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
    int rc = am__store_health(s, ping, &out->reconnects, &out->retries);
    if (rc == AM_NOTFOUND) return AM_OK; /* no connection to check */
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
    am__allocator alloc = {cfg->realloc ? cfg->realloc : am__libc_realloc,
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
    if ((rc = am__embed_open_spec(&db->alloc, cfg->embedder, cfg->embedder_key,
                                  (cfg->process_tuning & AM_PROCESS_BLAS_THREADS) != 0,
                                  &db->embedder, &db->embed_zh, err, sizeof err)))
        goto out_fail;
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

int am__db_check_size(am_db *db, const char *what, const char *field, size_t given, size_t mine)
{
    if (given == 0 || given == mine) return AM_OK;
    return am__db_error(db, AM_MISUSE,
                        "%s: %s is %zu, expected 0 or %zu (the size of this library's layout):"
                        " the caller was built against another agentmem.h",
                        what, field, given, mine);
}

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

/* An item version's token blob (store optimize). */
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
    int rc = am__store_optimize(db->store);
    if (rc) return am__db_store_error(db, rc, "optimize");
    STEP_DONE();
    /* item versions written before their token sets were stored */
    size_t filled = 0;
    rc = am__store_item_tokens_fill(db->store, item_tokens, db->text, &filled);
    if (rc && rc != AM_NOTFOUND) return am__db_store_error(db, rc, "optimize: item tokens");
    STEP_DONE();
    if ((rc = am__events_trim(db))) return am__db_store_error(db, rc, "optimize: memory events");
    STEP_DONE();
#undef STEP_DONE
    am__db_log(db, AM_LOG_INFO, "optimize: done (%zu item token sets stored)", filled);
    return AM_OK;
}
