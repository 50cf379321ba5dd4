/*
 * db.c -- handle lifecycle, errors, identity.  The configuration's defaults
 * and knobs are config.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/db_int.h"
#include "recall/recall.h"

const char *am_errstr(int rc)
{
    static const char *const names[] = {
        "ok", "error", "out of memory", "misuse", "invalid input",
        "not found", "denied", "busy", "too big", "I/O error",
        "backend error", "corrupt store", "store is newer than this library",
    };
    if (rc < 0 || rc >= (int)(sizeof names / sizeof *names)) return "unknown error";
    return names[rc];
}

const char *am_errmsg(const am_db *db)
{
    if (!db) return "no handle";
    return db->err[0] ? db->err : "not an error";
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
                        cfg->must_exist, 0, cfg->no_term_cache};
    int rc = am__store_open(cfg->path, &o, &db->store, err, sizeof err);
    if (rc) goto out_fail;
    rc = am__text_open(&db->alloc, &db->text);
    if (rc) {
        snprintf(err, sizeof err, "open: cannot initialise text analysis");
        goto out_fail;
    }
    db->tokcache = am__tokcache_new(&db->alloc); /* NULL: no cache, still correct */
    if (cfg->embedder && strcmp(cfg->embedder, "none") != 0) {
        const char *spec = cfg->embedder;
        char eerr[400];
        if (strcmp(spec, "use-lite") == 0 || strncmp(spec, "use-lite:", 9) == 0) {
            const char *dir = spec[8] == ':' ? spec + 9 : am__embed_use_default_dir();
            rc = am__embed_use_open(dir, &db->embedder, eerr, sizeof eerr);
        } else if (strncmp(spec, "w2v:", 4) == 0) {
            rc = am__embed_w2v_open(spec + 4, &db->embedder, eerr, sizeof eerr);
            db->embed_zh = 1;
        } else if (strncmp(spec, "openai:", 7) == 0 && strchr(spec + 7, '@')) {
            /* openai:MODEL@BASE_URL, key from $AGENTMEM_EMBEDDER_KEY via
             * the caller (embedder_key) */
            const char *at = strchr(spec + 7, '@');
            char model[128];
            snprintf(model, sizeof model, "%.*s", (int)(at - spec - 7), spec + 7);
            rc = am__embed_openai_open(at + 1, model, cfg->embedder_key, 0, &db->embedder, eerr,
                                       sizeof eerr);
            db->embed_zh = 1;
        } else {
            snprintf(eerr, sizeof eerr,
                     "\"%.64s\" is not one of none, use-lite[:DIR], w2v:PATH, openai:MODEL@URL", spec);
            rc = AM_INVALID;
        }
        if (rc) {
            snprintf(err, sizeof err, "open: embedder: %s", eerr);
            goto out_fail;
        }
    }
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
    if (db->store) db->store->vt->close(db->store);
    am__text_close(db->text);
    am__embedder_close(db->embedder);
    am__tokcache_free(db->tokcache);
    am__allocator a = db->alloc;
    am__free(&a, db);
}

/* ------------------------------------------------------------ identity */

static int check_id(am_db *db, const char *what, const char *field,
                    const char *v)
{
    const char *why = am__id_check(v);
    if (why) return am__db_error(db, AM_INVALID, "%s: %s %s", what, field, why);
    return AM_OK;
}

int am__db_resolve_user(am_db *db, const char *what, const char *user_id,
                        const char *channel, const char *external_id,
                        int create, char *out)
{
    int rc;
    am__store *s = db->store;
    if (user_id) {
        if ((rc = check_id(db, what, "user", user_id))) return rc;
        snprintf(out, AM_ID_MAX + 1, "%s", user_id);
        if (create) {
            rc = s->vt->user_ensure(s, out, am__db_now(db));
            if (rc) return am__db_store_error(db, rc, what);
        }
        return AM_OK;
    }
    if (!channel && !external_id)
        return am__db_error(db, AM_INVALID, "%s: user is missing (give user or channel + external_id)", what);
    if ((rc = check_id(db, what, "channel", channel))) return rc;
    if ((rc = check_id(db, what, "external_id", external_id))) return rc;
    rc = s->vt->link_get(s, channel, external_id, out);
    if (rc == AM_OK) return AM_OK;
    if (rc != AM_NOTFOUND) return am__db_store_error(db, rc, what);
    if (!create)
        return am__db_error(db, AM_NOTFOUND, "%s: no user is linked to %s:%s", what, channel, external_id);
    int n = snprintf(out, AM_ID_MAX + 1, "%s:%s", channel, external_id);
    if (n > AM_ID_MAX)
        return am__db_error(db, AM_INVALID, "%s: channel + external_id longer than 128 bytes", what);
    am_time now = am__db_now(db);
    if ((rc = s->vt->user_ensure(s, out, now)) ||
        (rc = s->vt->link_put(s, channel, external_id, out, now)))
        return am__db_store_error(db, rc, what);
    return AM_OK;
}

int am_link(am_db *db, const char *channel, const char *external_id,
            const char *user_id)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    int rc;
    if ((rc = check_id(db, "link", "channel", channel)) ||
        (rc = check_id(db, "link", "external_id", external_id)) ||
        (rc = check_id(db, "link", "user", user_id)))
        return rc;
    am__store *s = db->store;
    char cur[AM_ID_MAX + 1];
    am_time now = am__db_now(db);
    if ((rc = s->vt->begin(s))) return am__db_store_error(db, rc, "link");
    rc = s->vt->link_get(s, channel, external_id, cur);
    if (rc == AM_OK) {
        s->vt->rollback(s);
        if (strcmp(cur, user_id) == 0) return AM_OK;
        return am__db_error(db, AM_DENIED, "link: %s:%s already belongs to another user (unlink it first)",
                            channel, external_id);
    }
    if (rc != AM_NOTFOUND) goto out_store;
    if ((rc = s->vt->user_ensure(s, user_id, now)) ||
        (rc = s->vt->link_put(s, channel, external_id, user_id, now)) ||
        (rc = s->vt->audit(s, user_id, now, "link", "identity", channel, external_id)) ||
        (rc = s->vt->commit(s)))
        goto out_store;
    return AM_OK;
out_store:
    am__db_store_error(db, rc, "link");
    s->vt->rollback(s);
    return rc;
}

int am_unlink(am_db *db, const char *channel, const char *external_id)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    int rc;
    if ((rc = check_id(db, "unlink", "channel", channel)) ||
        (rc = check_id(db, "unlink", "external_id", external_id)))
        return rc;
    rc = db->store->vt->link_del(db->store, channel, external_id);
    if (rc == AM_NOTFOUND)
        return am__db_error(db, rc, "unlink: %s:%s is not linked", channel, external_id);
    if (rc) return am__db_store_error(db, rc, "unlink");
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
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    int rc = db->store->vt->optimize(db->store);
    if (rc) return am__db_store_error(db, rc, "optimize");
    /* item versions written before their token sets were stored */
    size_t filled = 0;
    if (db->store->vt->item_tokens_fill &&
        (rc = db->store->vt->item_tokens_fill(db->store, item_tokens, db->text, &filled)))
        return am__db_store_error(db, rc, "optimize: item tokens");
    am__db_log(db, AM_LOG_INFO, "optimize: done (%zu item token sets stored)", filled);
    return AM_OK;
}
