/* SPDX-License-Identifier: Apache-2.0 */
/*
 * working.c -- a session's working memory when no cache is configured
 * (api/working.c): `working_memory(user_id, session_id, key,
 * value, expires_at)`, one row per key.  The clock is the engine's (the
 * caller passes now): a row whose expires_at has passed is never read
 * again, and a write to the session deletes the session's expired rows
 * first, so they do not pile up.  Forgetting a user deletes the user's
 * rows (api/forget.c at once, and the purge's sweep in forget.c).
 */
#include "store/sqlite/sqlite_int.h"

static int step_once(sq_store *s, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    int out = rc == SQLITE_DONE || rc == SQLITE_ROW ? AM_OK : fail(s, rc, what);
    done(s, st);
    return out;
}

int am__sqlite_working_put(am__store *b, const char *uid, const char *session, const char *key,
                           const char *value, am_time expires_at, am_time now, int max_keys)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "DELETE FROM working_memory WHERE user_id=?1 AND session_id=?2"
                               " AND expires_at <= ?3");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, session);
    sqlite3_bind_int64(st, 3, now);
    int rc = step_once(s, st, "working memory");
    if (rc) return rc;
    st = stmt(s, "SELECT count(*), max(key = ?3) FROM working_memory"
                 " WHERE user_id=?1 AND session_id=?2");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, session);
    bind_text(st, 3, key);
    if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
        rc = fail(s, rc, "working memory");
        done(s, st);
        return rc;
    }
    int64_t n = sqlite3_column_int64(st, 0), has = sqlite3_column_int64(st, 1);
    done(s, st);
    if (!has && n >= max_keys) return AM_TOOBIG;
    st = stmt(s, "INSERT INTO working_memory(user_id, session_id, key, value, expires_at)"
                 " VALUES(?1, ?2, ?3, ?4, ?5) ON CONFLICT(user_id, session_id, key)"
                 " DO UPDATE SET value=excluded.value, expires_at=excluded.expires_at");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, session);
    bind_text(st, 3, key);
    bind_text(st, 4, value);
    sqlite3_bind_int64(st, 5, expires_at);
    return step_once(s, st, "working memory");
}

int am__sqlite_working_list(am__store *b, const char *uid, const char *session, const char *key,
                            am_time now, am__arena *ar, am__working_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT key, value, expires_at FROM working_memory"
                               " WHERE user_id=?1 AND session_id=?2 AND expires_at > ?3"
                               " AND (?4 IS NULL OR key = ?4) ORDER BY key");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, session);
    sqlite3_bind_int64(st, 3, now);
    bind_text(st, 4, key);
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__working_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        r->key = col_text(ar, st, 0);
        r->value = col_text(ar, st, 1);
        r->expires_at = sqlite3_column_int64(st, 2);
    }
    int out = rc == SQLITE_DONE ? (ar->oom ? AM_NOMEM : AM_OK) : fail(s, rc, "working memory");
    done(s, st);
    return out;
}

int am__sqlite_working_del(am__store *b, const char *uid, const char *session, const char *key)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "DELETE FROM working_memory WHERE user_id=?1"
                               " AND (?2 IS NULL OR session_id=?2) AND (?3 IS NULL OR key=?3)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, session);
    bind_text(st, 3, key);
    return step_once(s, st, "working memory");
}
