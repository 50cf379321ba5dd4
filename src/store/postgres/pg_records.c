/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pg_records.c -- generic records (schema v8 `records`), as the SQLite
 * store's records.c: a string value under (user id, namespace, key), with
 * an expiry or none, partitioned by user; a prefix is a range of the key
 * index checked exactly.  Rows go with their user (pg_forget.c's purge,
 * pg_store.c's merge).
 */
#include "store/postgres/pg_int.h"

#define KEY_MATCH                                                                          \
    " AND ($4 = 0 AND key = $3 OR $4 = 1 AND key >= $3 AND key < $3 || chr(1114111)"       \
    " AND left(key, length($3)) = $3)"

static void key_args(pg_args *a, const char *uid, const char *ns, const char *key, int prefix)
{
    am__pg_arg_text(a, uid);
    am__pg_arg_text(a, ns);
    am__pg_arg_text(a, key);
    am__pg_arg_int(a, prefix != 0);
}

int am__pg_rec_put(am__store *b, const char *uid, const char *ns, const char *key,
                   const char *value, am_time expires_at)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, ns);
    am__pg_arg_text(&a, key);
    am__pg_arg_text(&a, value);
    am__pg_arg_time(&a, expires_at);
    return am__pg_exec(s, "records",
                       "INSERT INTO records(user_id, ns, key, value, expires_at)"
                       " VALUES($1, $2, $3, $4, $5) ON CONFLICT(user_id, ns, key) DO UPDATE SET"
                       " value = $4, expires_at = $5", &a, NULL);
}

int am__pg_rec_list(am__store *b, const char *uid, const char *ns, const char *key, int prefix,
                    am_time now, am__arena *ar, am__rec_row **rows, size_t *n)
{
    pg_store *s = PG(b);
    if (uid && am__pg_lock_user(s, uid)) return s->rc;
    *rows = NULL;
    *n = 0;
    pg_args a = {0};
    key_args(&a, uid, ns, key, prefix);
    am__pg_arg_time(&a, now);
    PGresult *r = am__pg_run(s, "records",
                             "SELECT user_id, key, value, expires_at FROM records"
                             " WHERE ($1::text IS NULL OR user_id = $1) AND ns = $2" KEY_MATCH
                             " AND ($5::bigint IS NULL OR expires_at IS NULL OR expires_at > $5)"
                             " ORDER BY key, user_id", &a);
    if (!r) return s->rc;
    int k = PQntuples(r);
    if (!(*rows = am__pg_rows(ar, r, sizeof **rows))) return AM_NOMEM;
    for (int i = 0; i < k; i++) {
        am__rec_row *p = &(*rows)[i];
        p->user_id = am__pg_str(ar, r, i, 0);
        p->key = am__pg_str(ar, r, i, 1);
        p->value = am__pg_str(ar, r, i, 2);
        p->expires_at = am__pg_time(r, i, 3);
    }
    return am__pg_rows_done(ar, r, n);
}

int am__pg_rec_del(am__store *b, const char *uid, const char *ns, const char *key, int prefix,
                   am_time expired_at, long *n)
{
    pg_store *s = PG(b);
    long changed = 0;
    if (n) *n = 0;
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    key_args(&a, uid, ns, key, prefix);
    am__pg_arg_time(&a, expired_at);
    int rc = am__pg_exec(s, "records",
                         "DELETE FROM records WHERE user_id = $1 AND ns = $2" KEY_MATCH
                         " AND ($5::bigint IS NULL OR expires_at <= $5)", &a, &changed);
    if (!rc && n) *n = changed;
    return rc;
}
