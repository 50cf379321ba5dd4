/*
 * users.c -- users and the identity links that name them on a channel.
 */
#include "store/sqlite/sqlite_int.h"

int am__sqlite_user_ensure(am__store *b, const char *uid, am_time now)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT OR IGNORE INTO users(user_id, created_at) VALUES(?,?)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    sqlite3_bind_int64(st, 2, now);
    return run(s, st, "user");
}

int am__sqlite_user_exists(am__store *b, const char *uid)
{
    sq_store *s = SQ(b);
    /* a user being forgotten is no longer there (forget.c) */
    sqlite3_stmt *st = stmt(s, "SELECT 1 FROM users WHERE user_id=?1 AND NOT EXISTS"
                               " (SELECT 1 FROM forget_jobs WHERE user_id=?1 AND level='user')");
    if (!st) return -AM_BACKEND;
    bind_text(st, 1, uid);
    int rc = sqlite3_step(st);
    int out = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -fail(s, rc, "user");
    done(s, st);
    return out;
}

int am__sqlite_link_put(am__store *b, const char *ch, const char *ext,
                        const char *uid, am_time now)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT INTO identity_links(channel, external_id, user_id, created_at) VALUES(?,?,?,?)"
                               " ON CONFLICT(channel, external_id) DO NOTHING");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, ch);
    bind_text(st, 2, ext);
    bind_text(st, 3, uid);
    sqlite3_bind_int64(st, 4, now);
    return run(s, st, "link");
}

int am__sqlite_link_get(am__store *b, const char *ch, const char *ext, char *out)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT user_id FROM identity_links WHERE channel=? AND external_id=?");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, ch);
    bind_text(st, 2, ext);
    int rc = sqlite3_step(st), out_rc;
    if (rc == SQLITE_ROW) {
        snprintf(out, AM_ID_MAX + 1, "%s", (const char *)sqlite3_column_text(st, 0));
        out_rc = AM_OK;
    } else {
        out_rc = rc == SQLITE_DONE ? AM_NOTFOUND : fail(s, rc, "link");
    }
    done(s, st);
    return out_rc;
}

int am__sqlite_link_del(am__store *b, const char *ch, const char *ext)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "DELETE FROM identity_links WHERE channel=? AND external_id=?");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, ch);
    bind_text(st, 2, ext);
    int rc = run(s, st, "unlink");
    if (rc == AM_OK && sqlite3_changes(s->db) == 0) return AM_NOTFOUND;
    return rc;
}

int am__sqlite_links_list(am__store *b, const char *uid, am__arena *ar,
                          am__link_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT channel, external_id, created_at FROM identity_links WHERE user_id=? ORDER BY channel, external_id");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__link_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        r->channel = col_text(ar, st, 0);
        r->external_id = col_text(ar, st, 1);
        r->created_at = col_time(st, 2);
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "links");
    done(s, st);
    return out;
}
