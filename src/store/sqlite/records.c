/* SPDX-License-Identifier: Apache-2.0 */
/*
 * records.c -- generic records (schema v30 `records`): a string value
 * under (user id, namespace, key), with an expiry or none.  What the
 * namespaces hold and how their values are written is domain/records.h's
 * business; this file stores and finds rows.  A prefix is matched on a
 * range of the key index, bounded above by the prefix followed by
 * U+10FFFF (no key holds it: ids reject private-use characters), then
 * checked exactly.  Rows go with their user (forget.c's purge, users.c's
 * merge).
 */
#include "store/sqlite/sqlite_int.h"

#define KEY_MATCH                                                                          \
    " AND (?4 = 0 AND key = ?3 OR ?4 = 1 AND key >= ?3 AND key < ?3 || char(1114111)"     \
    " AND substr(key, 1, length(?3)) = ?3)"

int am__sqlite_rec_put(am__store *b, const char *uid, const char *ns, const char *key,
                       const char *value, am_time expires_at)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT OR REPLACE INTO records(user_id, ns, key, value, expires_at)"
                               " VALUES(?1, ?2, ?3, ?4, ?5)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, ns);
    bind_text(st, 3, key);
    bind_text(st, 4, value);
    bind_time(st, 5, expires_at);
    return run(s, st, "records");
}

int am__sqlite_rec_list(am__store *b, const char *uid, const char *ns, const char *key,
                        int prefix, am_time now, am__arena *ar, am__rec_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT user_id, key, value, expires_at FROM records"
                               " WHERE (?1 IS NULL OR user_id = ?1) AND ns = ?2" KEY_MATCH
                               " AND (?5 IS NULL OR expires_at IS NULL OR expires_at > ?5)"
                               " ORDER BY key, user_id");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, ns);
    bind_text(st, 3, key);
    sqlite3_bind_int(st, 4, prefix != 0);
    bind_time(st, 5, now);
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__rec_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        r->user_id = col_text(ar, st, 0);
        r->key = col_text(ar, st, 1);
        r->value = col_text(ar, st, 2);
        r->expires_at = col_time(st, 3);
    }
    int out = rc == SQLITE_DONE ? (ar->oom ? AM_NOMEM : AM_OK) : fail(s, rc, "records");
    done(s, st);
    return out;
}

int am__sqlite_rec_del(am__store *b, const char *uid, const char *ns, const char *key, int prefix,
                       am_time expired_at, long *n)
{
    sq_store *s = SQ(b);
    if (n) *n = 0;
    sqlite3_stmt *st = stmt(s, "DELETE FROM records WHERE user_id = ?1 AND ns = ?2" KEY_MATCH
                               " AND (?5 IS NULL OR expires_at <= ?5)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, ns);
    bind_text(st, 3, key);
    sqlite3_bind_int(st, 4, prefix != 0);
    bind_time(st, 5, expired_at);
    int rc = run(s, st, "records");
    if (!rc && n) *n = (long)sqlite3_changes(s->db);
    return rc;
}
