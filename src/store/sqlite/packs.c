/* SPDX-License-Identifier: Apache-2.0 */
/*
 * packs.c -- the users a rule pack applies to (lifecycle/packs.c): by
 * the role and region of their latest events' metadata and their
 * channels.  The packs applied are records (domain/records.h); their
 * rules are memory items (items.c).
 */
#include "store/sqlite/sqlite_int.h"

/* (the latest event of the user whose metadata has the field) */
#define LATEST_META(field)                                                                     \
    "(SELECT json_extract(e.metadata, '$." field "') FROM events e WHERE e.user_id = u.user_id"  \
    " AND json_type(e.metadata, '$." field "') = 'text' ORDER BY e.occurred_at DESC, e.rid DESC" \
    " LIMIT 1)"

int am__sqlite_pack_users(am__store *b, const char *role, const char *region, const char *channel,
                          am__arena *ar, const char ***uids, size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st =
        stmt(s, "SELECT u.user_id FROM users u WHERE"
                " (?1 IS NULL OR " LATEST_META("role") " = ?1) AND"
                " (?2 IS NULL OR " LATEST_META("region") " = ?2) AND"
                " (?3 IS NULL OR EXISTS (SELECT 1 FROM identity_links l"
                "  WHERE l.user_id = u.user_id AND l.channel = ?3))"
                " ORDER BY u.user_id");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, role);
    bind_text(st, 2, region);
    bind_text(st, 3, channel);
    size_t cap = 0;
    *uids = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char **u = push(ar, (void **)uids, n, &cap, sizeof *u);
        if (!u) { done(s, st); return AM_NOMEM; }
        *u = col_text(ar, st, 0);
    }
    int out = rc == SQLITE_DONE ? (ar->oom ? AM_NOMEM : AM_OK) : fail(s, rc, "packs");
    done(s, st);
    return out;
}
