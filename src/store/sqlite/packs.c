/* SPDX-License-Identifier: Apache-2.0 */
/*
 * packs.c -- the rule packs applied to a user (lifecycle/packs.c; schema
 * v28 `user_packs`): one row per user and pack name with the pack's JSON
 * as applied.  The rules themselves are memory items (items.c).  Rows go
 * with their user (forget.c's purge, users.c's merge).
 */
#include "store/sqlite/sqlite_int.h"

int am__sqlite_pack_put(am__store *b, const char *uid, const am__pack_row *p)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT OR REPLACE INTO user_packs(user_id, name, version, json,"
                               " n_rules, applied_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, p->name);
    bind_text(st, 3, p->version);
    bind_text(st, 4, p->json);
    sqlite3_bind_int64(st, 5, p->n_rules);
    sqlite3_bind_int64(st, 6, p->applied_at);
    return run(s, st, "pack");
}

int am__sqlite_pack_list(am__store *b, const char *uid, am__arena *ar, am__pack_row **rows,
                         size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT user_id, name, version, json, n_rules, applied_at"
                               " FROM user_packs WHERE ?1 IS NULL OR user_id = ?1"
                               " ORDER BY name, user_id");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__pack_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        r->user_id = col_text(ar, st, 0);
        r->name = col_text(ar, st, 1);
        r->version = col_text(ar, st, 2);
        r->json = col_text(ar, st, 3);
        r->n_rules = (long)sqlite3_column_int64(st, 4);
        r->applied_at = col_time(st, 5);
    }
    int out = rc == SQLITE_DONE ? (ar->oom ? AM_NOMEM : AM_OK) : fail(s, rc, "packs");
    done(s, st);
    return out;
}

int am__sqlite_pack_del(am__store *b, const char *uid, const char *name)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "DELETE FROM user_packs WHERE user_id = ?1 AND name = ?2");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, name);
    int rc = run(s, st, "pack");
    return rc ? rc : sqlite3_changes(s->db) ? AM_OK : AM_NOTFOUND;
}

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
