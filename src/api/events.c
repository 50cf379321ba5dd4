/* SPDX-License-Identifier: Apache-2.0 */
/*
 * events.c -- memory events (docs/EVENTS.md): the argument checks, the
 * transactions and the results of am_subscribe, am_events_since and
 * am_security_denied, and the delivery after every public write.  The
 * outbox itself (JSON, delivery, retention, denials) is domain/outbox.h.
 */
#include <string.h>

#include "api/db_int.h"

#define EVENTS_MAX 100000

static am_time env_now(void *ctx) { return am__db_now(ctx); }

static am__outbox_env outbox_env(am_db *db)
{
    am__outbox_env env = {db->store, &db->alloc, env_now, db};
    return env;
}

/* ------------------------------------------------------------ subscribers */

int am_subscribe(am_db *db, am_memory_event_fn fn, void *ctx, int *sub_id)
{
    if (!db || !fn) return AM_MISUSE;
    if (db->subs.delivering)
        return am__db_error(db, AM_MISUSE, "subscribe: called from a subscriber");
    am__db_clear_error(db);
    if (am__outbox_subscribe(&db->subs, &db->alloc, fn, ctx, sub_id))
        return am__db_error(db, AM_NOMEM, "subscribe: out of memory");
    return AM_OK;
}

int am_unsubscribe(am_db *db, int sub_id)
{
    if (!db) return AM_MISUSE;
    if (db->subs.delivering)
        return am__db_error(db, AM_MISUSE, "unsubscribe: called from a subscriber");
    am__db_clear_error(db);
    if (am__outbox_unsubscribe(&db->subs, sub_id))
        return am__db_error(db, AM_NOTFOUND, "unsubscribe: no subscription %d", sub_id);
    return AM_OK;
}

void am__events_free(am_db *db) { am__outbox_subs_free(&db->subs, &db->alloc); }

void am__events_deliver(am_db *db)
{
    am__dbcache_flush(db->cache); /* the shared cache's generations (cache/) */
    am__outbox_env env = outbox_env(db);
    int rc = am__outbox_deliver(&env, &db->subs);
    if (rc)
        am__db_log(db, AM_LOG_WARN, "events: not delivered in process (%s): %s", am_errstr(rc),
                   db->store->vt->errmsg(db->store));
}

/* ------------------------------------------------------------ reader */

typedef struct events_box {
    am_memory_events pub;
    am__arena ar;
    am__allocator alloc;
} events_box;

void am_memory_events_free(am_memory_events *e)
{
    if (!e) return;
    events_box *b = (events_box *)e;
    am__allocator a = b->alloc;
    am__arena_free(&b->ar);
    am__free(&a, b);
}

int am_events_since(am_db *db, const char *user_id, int64_t after_seq, size_t max,
                    am_memory_events **out)
{
    if (!db || !out) return AM_MISUSE;
    *out = NULL;
    am__db_clear_error(db);
    int rc;
    if (user_id && (rc = am__db_check_id(db, "events", "user", user_id))) return rc;
    if (after_seq < 0)
        return am__db_error(db, AM_INVALID, "events: after_seq %lld is negative",
                            (long long)after_seq);
    if (max == 0) max = AM__OUTBOX_PAGE;
    if (max > EVENTS_MAX) max = EVENTS_MAX;
    events_box *box = am__calloc(&db->alloc, sizeof *box);
    if (!box) return am__db_error(db, AM_NOMEM, "events: out of memory");
    box->alloc = db->alloc;
    am__arena_init(&box->ar, &box->alloc);
    rc = am__outbox_page(db->store, user_id, after_seq, max, &box->ar, &db->alloc, &box->pub);
    if (rc) {
        am_memory_events_free(&box->pub);
        if (rc == AM_NOMEM) return am__db_error(db, rc, "events: out of memory");
        return am__db_store_error(db, rc, "events");
    }
    *out = &box->pub;
    return AM_OK;
}

/* ------------------------------------------------------------ retention, denials */

int am__events_trim(am_db *db)
{
    am__store *s = db->store;
    am__outbox_env env = outbox_env(db);
    int rc = am__store_begin(s);
    if (!rc) rc = am__outbox_trim(&env, db->cfg.events_max_age_ms, db->cfg.events_max_rows);
    if (!rc) rc = am__store_commit(s);
    if (rc) am__store_rollback(s);
    return rc;
}

int am_security_denied(am_db *db, const char *token_user, const char *asked_user,
                       const char *what)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    int rc;
    if (!token_user || !asked_user || !what)
        return am__db_error(db, AM_INVALID, "security_denied: %s is missing",
                            !token_user ? "token_user" : !asked_user ? "asked_user" : "what");
    if ((rc = am__db_check_id(db, "security_denied", "token_user", token_user)) ||
        (rc = am__db_check_id(db, "security_denied", "what", what)))
        return rc;
    am__store *s = db->store;
    am_time now = am__db_now(db);
    rc = am__store_begin(s);
    if (!rc) rc = am__outbox_denied(s, now, token_user, asked_user, what);
    if (!rc) rc = am__store_commit(s);
    if (rc) {
        am__store_rollback(s);
        return am__db_store_error(db, rc, "security_denied");
    }
    am__events_deliver(db);
    return AM_OK;
}
