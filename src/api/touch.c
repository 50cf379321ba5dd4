/* SPDX-License-Identifier: Apache-2.0 */
/*
 * touch.c -- a recall's access feedback for the handle: its kept touches
 * (db->touches) and the shared cache told of the users whose heat moves.
 * What is written when, and what is kept, is domain/heat.h.
 */
#include "api/db_int.h"
#include "domain/heat.h"

static void env_note(void *ctx, const char *uid) { am__dbcache_note(((am_db *)ctx)->cache, uid); }
static void env_ended(void *ctx) { am__dbcache_flush(((am_db *)ctx)->cache); }
static void env_say(void *ctx, int level, const char *msg) { am__db_log(ctx, level, "%s", msg); }

static am__heat_env heat_env(am_db *db)
{
    am__heat_env env = {db->store, &db->alloc, env_note, env_ended, env_say, db};
    return env;
}

int am__touch_flush(am_db *db)
{
    am__heat_env env = heat_env(db);
    return am__heat_flush(&env, db->touches);
}

int am__touch_lock_writers(am_db *db, const char *const *uids, size_t n)
{
    return am__heat_lock_writers(db->store, db->touches, uids, n);
}

void am__touch_committed(am_db *db) { am__heat_committed(db->touches); }

void am__touch_items(am_db *db, const char *uid, const char *const *lineages, size_t n,
                     am_time at)
{
    if (n == 0) return;
    am__heat_env env = heat_env(db);
    int rc = am__heat_write(&env, db->touches, uid, lineages, n, at);
    if (rc == AM_OK) return;
    if (rc != AM_BUSY)
        am__db_log(db, AM_LOG_WARN, "recall: heat touches not written now (%s): %s",
                   am_errstr(rc), db->store->vt->errmsg(db->store));
    am__heat_keep(&env, &db->touches, uid, lineages, n, at);
}

void am__touch_close(am_db *db)
{
    am__heat_env env = heat_env(db);
    am__heat_close(&env, &db->touches);
}

void am__touch_drop(am_db *db, const char *uid) { am__heat_drop(db->touches, uid); }
