/* SPDX-License-Identifier: Apache-2.0 */
/*
 * users.c -- users and the identity links that name them on a channel.
 *
 * A channel identity is the pair (channel, external_id), two columns,
 * never one joined string.  A user the engine makes for a pair nobody
 * linked records that pair in users(channel, external_id); its id is an
 * engine id (api/db.c), which no caller can choose.  A late link of such
 * a pair to a master user moves that user's history into the master
 * (am__sqlite_user_merge) when asked.
 */
#include "store/sqlite/sqlite_int.h"

static int user_ensure(sq_store *s, const char *uid, am_time now)
{
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

static int link_add(sq_store *s, const char *ch, const char *ext, const char *uid, am_time now)
{
    sqlite3_stmt *st = stmt(s, "INSERT INTO identity_links(channel, external_id, user_id, created_at) VALUES(?,?,?,?)"
                               " ON CONFLICT(channel, external_id) DO NOTHING");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, ch);
    bind_text(st, 2, ext);
    bind_text(st, 3, uid);
    sqlite3_bind_int64(st, 4, now);
    return run(s, st, "link");
}

static int link_user(sq_store *s, const char *ch, const char *ext, char *out)
{
    sqlite3_stmt *st = stmt(s, "SELECT user_id FROM identity_links WHERE channel=? AND external_id=?");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, ch);
    bind_text(st, 2, ext);
    return first_text(s, st, out, AM_ID_MAX + 1, "link");
}

static int link_del(sq_store *s, const char *ch, const char *ext)
{
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
    return out ? out : ar->oom ? AM_NOMEM : AM_OK; /* a text not copied */
}

static int user_create_for(sq_store *s, const char *uid, const char *ch, const char *ext,
                           am_time now)
{
    sqlite3_stmt *st = stmt(s, "INSERT INTO users(user_id, created_at, channel, external_id)"
                               " VALUES(?,?,?,?)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    sqlite3_bind_int64(st, 2, now);
    bind_text(st, 3, ch);
    bind_text(st, 4, ext);
    return run(s, st, "user");
}

static int user_of_channel(sq_store *s, const char *ch, const char *ext, char *out)
{
    sqlite3_stmt *st = stmt(s, "SELECT user_id FROM users WHERE channel = ? AND external_id = ?"
                               " ORDER BY created_at LIMIT 1");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, ch);
    bind_text(st, 2, ext);
    return first_text(s, st, out, AM_ID_MAX + 1, "user of channel");
}

static int user_history(sq_store *s, const char *uid, long *events, long *items, long *tasks)
{
    sqlite3_stmt *st = stmt(s, "SELECT (SELECT count(*) FROM events WHERE user_id = ?1),"
                               " (SELECT count(DISTINCT lineage_id) FROM memory_items WHERE user_id = ?1),"
                               " (SELECT count(*) FROM tasks WHERE user_id = ?1)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    int rc = sqlite3_step(st), r = AM_OK;
    if (rc == SQLITE_ROW) {
        *events = (long)sqlite3_column_int64(st, 0);
        *items = (long)sqlite3_column_int64(st, 1);
        *tasks = (long)sqlite3_column_int64(st, 2);
    } else {
        r = fail(s, rc, "user history");
    }
    done(s, st);
    return r;
}

int am__sqlite_user_put(am__store *b, const char *uid, const char *ch, const char *ext, am_time now)
{
    return ch ? user_create_for(SQ(b), uid, ch, ext, now) : user_ensure(SQ(b), uid, now);
}

int am__sqlite_user_stat(am__store *b, const char *uid, long counts[3])
{
    if (!counts) return am__sqlite_user_exists(b, uid);
    return user_history(SQ(b), uid, &counts[0], &counts[1], &counts[2]);
}

int am__sqlite_link_put(am__store *b, const char *ch, const char *ext, const char *uid, am_time now)
{
    return uid ? link_add(SQ(b), ch, ext, uid, now) : link_del(SQ(b), ch, ext);
}

int am__sqlite_link_get(am__store *b, const char *ch, const char *ext, int by, char *out)
{
    switch (by) {
    case AM__LINK_USER: return link_user(SQ(b), ch, ext, out);
    case AM__LINK_MADE: return user_of_channel(SQ(b), ch, ext, out);
    default: return AM_MISUSE;
    }
}

/* Everything of user ?1 becomes user ?2's.  A task both have becomes one:
 * the master's row, with the other's artifacts, pending decisions and
 * notes appended and the later status and stage; their histories join.
 * The index rows carry the user's token in their text (fts_tokenizer.c):
 * rewritten with the new token ?3 (old ?4).  The audit log keeps what
 * happened under the id it happened to (it is append-only). */
/* the scopes of the rule packs the user merged into has */
#define PACK_SCOPES "SELECT 'pack:' || key FROM records WHERE user_id = ?2 AND ns = '" AM__REC_PACK "'"

int am__sqlite_user_merge(am__store *b, const char *from, const char *to)
{
    sq_store *s = SQ(b);
    char old_tok[32], new_tok[32];
    uid_token(from, old_tok, 0);
    uid_token(to, new_tok, 0);
    static const char *const sql[] = {
        ("UPDATE tasks AS t SET"
         "  artifacts = (SELECT json_group_array(json(v)) FROM (SELECT value AS v FROM json_each(t.artifacts)"
         "    UNION ALL SELECT value FROM json_each(f.artifacts))),"
         "  pending = (SELECT json_group_array(json(v)) FROM (SELECT value AS v FROM json_each(t.pending)"
         "    UNION ALL SELECT value FROM json_each(f.pending))),"
         "  notes = (SELECT json_group_array(json(v)) FROM (SELECT value AS v FROM json_each(t.notes)"
         "    UNION ALL SELECT value FROM json_each(f.notes))),"
         "  stage = CASE WHEN f.updated_at > t.updated_at THEN f.stage ELSE t.stage END,"
         "  status = CASE WHEN f.updated_at > t.updated_at THEN f.status ELSE t.status END,"
         "  created_at = min(t.created_at, f.created_at), updated_at = max(t.updated_at, f.updated_at)"
         "  FROM tasks AS f WHERE f.user_id = ?1 AND t.user_id = ?2 AND f.task_id = t.task_id"),
        "DELETE FROM tasks WHERE user_id = ?1 AND task_id IN (SELECT task_id FROM tasks WHERE user_id = ?2)",
        "UPDATE tasks SET user_id = ?2 WHERE user_id = ?1",
        "UPDATE task_history SET user_id = ?2 WHERE user_id = ?1",
        /* a joined task keeps the newer entry of an agent in both */
        ("DELETE FROM task_workspace AS f WHERE f.user_id = ?1 AND EXISTS (SELECT 1 FROM task_workspace t"
         "  WHERE t.user_id = ?2 AND t.task_id = f.task_id AND t.agent_id = f.agent_id"
         "  AND t.updated_at >= f.updated_at)"),
        "DELETE FROM task_workspace WHERE user_id = ?2 AND (task_id, agent_id) IN"
        "  (SELECT task_id, agent_id FROM task_workspace WHERE user_id = ?1)",
        "UPDATE task_workspace SET user_id = ?2 WHERE user_id = ?1",
        /* a rule pack both have stays the one the user merged into has */
        ("DELETE FROM item_heat WHERE user_id = ?1 AND lineage_id IN (SELECT lineage_id FROM"
         "  memory_items WHERE user_id = ?1 AND scope IN (" PACK_SCOPES "))"),
        ("DELETE FROM item_sources WHERE user_id = ?1 AND item_rid IN (SELECT rid FROM memory_items"
         "  WHERE user_id = ?1 AND scope IN (" PACK_SCOPES "))"),
        "DELETE FROM memory_items WHERE user_id = ?1 AND scope IN (" PACK_SCOPES ")",
        ("DELETE FROM records WHERE user_id = ?1 AND ns = '" AM__REC_PACK "' AND key IN"
         "  (SELECT key FROM records WHERE user_id = ?2 AND ns = '" AM__REC_PACK "')"),
        "UPDATE records SET user_id = ?2 WHERE user_id = ?1 AND ns = '" AM__REC_PACK "'",
        ("UPDATE events_fts SET uid = ?3,"
         "  doc = '" AM__FTS_TAG "' || ?3 || '" AM__FTS_TAG "' || substr(doc, length(?4) + 3),"
         "  ctx = '" AM__FTS_TAG "' || ?3 || '" AM__FTS_TAG "' || substr(ctx, length(?4) + 3)"
         "  WHERE rowid IN (SELECT rid FROM events WHERE user_id = ?1)"),
        "UPDATE events SET user_id = ?2 WHERE user_id = ?1",
        "UPDATE event_vectors SET user_id = ?2 WHERE user_id = ?1",
        "UPDATE vector_blocks SET user_id = ?2 WHERE user_id = ?1",
        "UPDATE entities SET user_id = ?2 WHERE user_id = ?1",
        /* the value hashes hold the user id: computed again (pii_index.c) */
        "UPDATE pii_vault SET user_id = ?2, canon_hash = NULL WHERE user_id = ?1",
        "UPDATE memory_items SET user_id = ?2 WHERE user_id = ?1",
        "UPDATE item_sources SET user_id = ?2 WHERE user_id = ?1",
        "UPDATE item_heat SET user_id = ?2 WHERE user_id = ?1",
        "UPDATE tombstones SET user_id = ?2 WHERE user_id = ?1",
        "UPDATE memory_events SET user_id = ?2 WHERE user_id = ?1", /* its history */
        "UPDATE identity_links SET user_id = ?2 WHERE user_id = ?1",
        ("UPDATE users SET n_events = (SELECT count(*) FROM events e WHERE e.user_id = ?2)"
         "  WHERE user_id = ?2"),
        "DELETE FROM users WHERE user_id = ?1",
        "DELETE FROM store_changes WHERE user_id = ?1",
        "DELETE FROM item_changes WHERE user_id = ?1",
    };
    am__sqlite_caches_drop(s, AM__DROP_FORGET, from);
    am__sqlite_caches_drop(s, AM__DROP_FORGET, to);
    for (size_t i = 0; i < sizeof sql / sizeof *sql; i++) {
        sqlite3_stmt *st = stmt(s, sql[i]);
        if (!st) return AM_BACKEND;
        bind_text(st, 1, from);
        bind_text(st, 2, to);
        if (sqlite3_bind_parameter_count(st) >= 3) bind_text(st, 3, new_tok);
        if (sqlite3_bind_parameter_count(st) >= 4) bind_text(st, 4, old_tok);
        int rc = run(s, st, "merge users");
        if (rc) return rc;
    }
    return AM_OK;
}

/* ------------------------------------------------------------ maintenance */

int am__sqlite_users_list(am__store *b, const am__user_query *q, am__arena *ar, const char ***uids,
                          size_t *n)
{
    switch (q->kind) {
    case AM__USERS_AFTER: return am__sqlite_users_after(b, q->after, q->limit, ar, uids, n);
    case AM__USERS_MATCHING:
        return am__sqlite_pack_users(b, q->role, q->region, q->channel, ar, uids, n);
    default: return AM_MISUSE;
    }
}

int am__sqlite_users_after(am__store *b, const char *after, int limit, am__arena *ar,
                           const char ***uids, size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT user_id FROM users u WHERE user_id > ?1 AND NOT EXISTS"
                               " (SELECT 1 FROM forget_jobs f WHERE f.user_id = u.user_id"
                               " AND f.level = 'user') ORDER BY user_id LIMIT ?2");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, after ? after : "");
    sqlite3_bind_int(st, 2, limit);
    size_t cap = 0;
    *uids = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char **u = push(ar, (void **)uids, n, &cap, sizeof *u);
        if (!u || !(*u = col_text(ar, st, 0))) {
            done(s, st);
            return AM_NOMEM;
        }
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "users");
    done(s, st);
    return out;
}

