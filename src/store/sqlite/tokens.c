/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tokens.c -- API tokens (schema v14): rows that bind a token's hash to a
 * user, an optional agent and role, and an admin flag.  The token itself
 * is never stored; api/tokens.c makes it, hashes it and compares.  Rows
 * are kept after a revoke (revoked_at set: `token list` shows when) and
 * deleted with their user's purge (forget.c).
 */
#include "store/sqlite/sqlite_int.h"

int am__sqlite_token_put(am__store *b, const am__token_row *t)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT INTO api_tokens(id, lookup, hash, user_id, agent_id, role,"
                               " admin, created_at, revoked_at) VALUES(?,?,?,?,?,?,?,?,?)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, t->id);
    bind_text(st, 2, t->lookup);
    sqlite3_bind_blob(st, 3, t->hash, AM__TOKEN_HASH, SQLITE_STATIC);
    bind_text(st, 4, t->user_id);
    bind_text(st, 5, t->agent_id);
    bind_text(st, 6, t->role);
    sqlite3_bind_int(st, 7, t->admin != 0);
    sqlite3_bind_int64(st, 8, t->created_at);
    bind_time(st, 9, t->revoked_at);
    return run(s, st, "token put");
}

static int read_tokens(sq_store *s, sqlite3_stmt *st, am__arena *ar, am__token_row **rows,
                       size_t *n)
{
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__token_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) {
            done(s, st);
            return AM_NOMEM;
        }
        r->id = col_text(ar, st, 0);
        r->lookup = col_text(ar, st, 1);
        const void *h = sqlite3_column_blob(st, 2);
        if (h && sqlite3_column_bytes(st, 2) == AM__TOKEN_HASH) memcpy(r->hash, h, AM__TOKEN_HASH);
        else memset(r->hash, 0, AM__TOKEN_HASH); /* matches no token's hash */
        r->user_id = col_text(ar, st, 3);
        r->agent_id = col_text(ar, st, 4);
        r->role = col_text(ar, st, 5);
        r->admin = sqlite3_column_int(st, 6);
        r->created_at = col_time(st, 7);
        r->revoked_at = col_time(st, 8);
        if (!r->id || !r->user_id) {
            done(s, st);
            return AM_NOMEM;
        }
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "tokens");
    done(s, st);
    return out ? out : ar->oom ? AM_NOMEM : AM_OK; /* a text not copied */
}

#define TOKEN_COLS "id, lookup, hash, user_id, agent_id, role, admin, created_at, revoked_at"

int am__sqlite_token_find(am__store *b, const char *lookup, am__arena *ar, am__token_row **rows,
                          size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT " TOKEN_COLS " FROM api_tokens WHERE lookup=?");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, lookup);
    return read_tokens(s, st, ar, rows, n);
}

int am__sqlite_tokens_list(am__store *b, const char *uid, am__arena *ar, am__token_row **rows,
                           size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT " TOKEN_COLS " FROM api_tokens"
                               " WHERE ?1 IS NULL OR user_id=?1 ORDER BY created_at, id");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    return read_tokens(s, st, ar, rows, n);
}

int am__sqlite_token_revoke(am__store *b, const char *id, am_time at, char *uid)
{
    sq_store *s = SQ(b);
    uid[0] = '\0';
    sqlite3_stmt *st = stmt(s, "SELECT user_id FROM api_tokens WHERE id=?");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, id);
    int rc = first_text(s, st, uid, AM_ID_MAX + 1, "token revoke");
    if (rc) return rc;
    st = stmt(s, "UPDATE api_tokens SET revoked_at=? WHERE id=? AND revoked_at IS NULL");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, at);
    bind_text(st, 2, id);
    if ((rc = run(s, st, "token revoke"))) return rc;
    return sqlite3_changes(s->db) ? AM_OK : AM_NOTFOUND;
}
