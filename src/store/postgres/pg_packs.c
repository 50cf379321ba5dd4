/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pg_packs.c -- the rule packs applied to a user (lifecycle/packs.c;
 * schema v7 `user_packs`), as the SQLite store's packs.c: one row per
 * user and pack name with the pack's JSON as applied.  The rules are
 * memory items.  Rows go with their user (pg_forget.c's purge,
 * pg_store.c's merge).
 */
#include "store/postgres/pg_int.h"

int am__pg_pack_put(am__store *b, const char *uid, const am__pack_row *p)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, p->name);
    am__pg_arg_text(&a, p->version);
    am__pg_arg_text(&a, p->json);
    am__pg_arg_int(&a, p->n_rules);
    am__pg_arg_int(&a, p->applied_at);
    return am__pg_exec(s, "pack",
                       "INSERT INTO user_packs(user_id, name, version, json, n_rules, applied_at)"
                       " VALUES($1, $2, $3, $4, $5, $6) ON CONFLICT(user_id, name) DO UPDATE SET"
                       " version = $3, json = $4, n_rules = $5, applied_at = $6", &a, NULL);
}

int am__pg_pack_list(am__store *b, const char *uid, am__arena *ar, am__pack_row **rows,
                     size_t *n)
{
    pg_store *s = PG(b);
    if (uid && am__pg_lock_user(s, uid)) return s->rc;
    *rows = NULL;
    *n = 0;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    PGresult *r = am__pg_run(s, "packs",
                             "SELECT user_id, name, version, json, n_rules, applied_at"
                             " FROM user_packs WHERE $1::text IS NULL OR user_id = $1"
                             " ORDER BY name, user_id", &a);
    if (!r) return s->rc;
    int k = PQntuples(r);
    if (!(*rows = am__pg_rows(ar, r, sizeof **rows))) return AM_NOMEM;
    for (int i = 0; i < k; i++) {
        am__pack_row *p = &(*rows)[i];
        p->user_id = am__pg_str(ar, r, i, 0);
        p->name = am__pg_str(ar, r, i, 1);
        p->version = am__pg_str(ar, r, i, 2);
        p->json = am__pg_str(ar, r, i, 3);
        p->n_rules = (long)am__pg_i64(r, i, 4);
        p->applied_at = am__pg_time(r, i, 5);
    }
    return am__pg_rows_done(ar, r, n);
}

int am__pg_pack_del(am__store *b, const char *uid, const char *name)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, name);
    PGresult *r = am__pg_run(s, "pack",
                             "DELETE FROM user_packs WHERE user_id = $1 AND name = $2"
                             " RETURNING name", &a);
    if (!r) return s->rc;
    int k = PQntuples(r);
    PQclear(r);
    return k ? AM_OK : AM_NOTFOUND;
}

/* (the latest event of the user whose metadata has the field as a string) */
#define LATEST_META(field)                                                                    \
    "(SELECT e.metadata::jsonb ->> '" field "' FROM events e WHERE e.user_id = u.user_id"      \
    " AND jsonb_typeof(e.metadata::jsonb -> '" field "') = 'string'"                           \
    " ORDER BY e.occurred_at DESC, e.rid DESC LIMIT 1)"

int am__pg_pack_users(am__store *b, const char *role, const char *region, const char *channel,
                      am__arena *ar, const char ***uids, size_t *n)
{
    pg_store *s = PG(b);
    *uids = NULL;
    *n = 0;
    pg_args a = {0};
    am__pg_arg_text(&a, role);
    am__pg_arg_text(&a, region);
    am__pg_arg_text(&a, channel);
    PGresult *r = am__pg_run(s, "packs",
                             "SELECT u.user_id FROM users u WHERE"
                             " ($1::text IS NULL OR " LATEST_META("role") " = $1) AND"
                             " ($2::text IS NULL OR " LATEST_META("region") " = $2) AND"
                             " ($3::text IS NULL OR EXISTS (SELECT 1 FROM identity_links l"
                             "  WHERE l.user_id = u.user_id AND l.channel = $3))"
                             " ORDER BY u.user_id", &a);
    if (!r) return s->rc;
    int k = PQntuples(r);
    if (!(*uids = am__pg_rows(ar, r, sizeof **uids))) return AM_NOMEM;
    for (int i = 0; i < k; i++) (*uids)[i] = am__pg_str(ar, r, i, 0);
    return am__pg_rows_done(ar, r, n);
}
