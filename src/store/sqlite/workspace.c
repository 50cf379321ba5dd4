/* SPDX-License-Identifier: Apache-2.0 */
/*
 * workspace.c -- multi-agent rows: a task's shared workspace (one
 * row per agent: doing, done, next, a version counted per entry) and the
 * events an access rule may hide from an agent (recall/access.c).  The
 * texts are data: stored as given (the API bounded and checked them) and
 * printed flattened by whoever shows them.  Workspace rows live and die
 * with their task (forget.c, users.c merge).
 */
#include "store/sqlite/sqlite_int.h"

int am__sqlite_events_access(am__store *b, const char *uid, am__arena *ar, am__event_row **rows,
                             size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT rid, id, agent_id, source, domain FROM events"
                               " WHERE user_id=?1 AND (source IN ('agent', 'tool') OR domain IS NOT NULL)"
                               " ORDER BY rid");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__event_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        memset(r, 0, sizeof *r);
        r->rid = sqlite3_column_int64(st, 0);
        r->id = col_text(ar, st, 1);
        r->agent_id = col_text(ar, st, 2);
        r->source = col_text(ar, st, 3);
        r->domain = col_text(ar, st, 4);
    }
    int out = rc == SQLITE_DONE ? (ar->oom ? AM_NOMEM : AM_OK) : fail(s, rc, "events");
    done(s, st);
    return out;
}

int am__sqlite_workspace_list(am__store *b, const char *uid, const char *task_id, am__arena *ar,
                              am__workspace_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT agent_id, doing, done, next, version, updated_at"
                               " FROM task_workspace WHERE user_id=?1 AND task_id=?2 ORDER BY agent_id");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, task_id);
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__workspace_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        r->agent_id = col_text(ar, st, 0);
        r->doing = col_text(ar, st, 1);
        r->done = col_text(ar, st, 2);
        r->next = col_text(ar, st, 3);
        r->version = (long)sqlite3_column_int64(st, 4);
        r->updated_at = col_time(st, 5);
    }
    int out = rc == SQLITE_DONE ? (ar->oom ? AM_NOMEM : AM_OK) : fail(s, rc, "workspace");
    done(s, st);
    return out;
}

/* (store.h workspace_put AM__WS_AS_GIVEN) */
static int workspace_set(am__store *b, const char *uid, const char *task_id,
                         const am__workspace_row *w)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT OR REPLACE INTO task_workspace(user_id, task_id, agent_id, doing, done,"
                               " next, version, updated_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, task_id);
    bind_text(st, 3, w->agent_id);
    bind_text(st, 4, w->doing ? w->doing : "");
    bind_text(st, 5, w->done ? w->done : "");
    bind_text(st, 6, w->next ? w->next : "");
    sqlite3_bind_int64(st, 7, w->version);
    sqlite3_bind_int64(st, 8, w->updated_at);
    return run(s, st, "workspace");
}

int am__sqlite_workspace_put(am__store *b, const char *uid, const char *task_id,
                             const am__workspace_row *w, int how, am_time at, long *version)
{
    if (how == AM__WS_AS_GIVEN) return workspace_set(b, uid, task_id, w);
    if (how != AM__WS_COUNT) return AM_MISUSE;
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT INTO task_workspace(user_id, task_id, agent_id, doing, done, next,"
                               " version, updated_at) VALUES(?1, ?2, ?3, coalesce(?4, ''), coalesce(?5, ''),"
                               " coalesce(?6, ''), 1, ?7)"
                               " ON CONFLICT(user_id, task_id, agent_id) DO UPDATE SET"
                               " doing=coalesce(?4, doing), done=coalesce(?5, done), next=coalesce(?6, next),"
                               " version=version + 1, updated_at=?7"
                               " RETURNING version");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, task_id);
    bind_text(st, 3, w->agent_id);
    bind_text(st, 4, w->doing);
    bind_text(st, 5, w->done);
    bind_text(st, 6, w->next);
    sqlite3_bind_int64(st, 7, at);
    int rc = sqlite3_step(st), out;
    if (rc == SQLITE_ROW) {
        *version = (long)sqlite3_column_int64(st, 0);
        rc = sqlite3_step(st);
    }
    out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "workspace");
    done(s, st);
    return out;
}
