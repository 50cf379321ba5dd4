/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pg_packs.c -- the users a rule pack applies to (lifecycle/packs.c),
 * as the SQLite store's packs.c.  The packs applied are records
 * (domain/records.h); their rules are memory items.
 */
#include "store/postgres/pg_int.h"

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
