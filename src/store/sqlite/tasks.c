/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tasks.c -- the tasks of a user and the history of their changes.
 */
#include "store/sqlite/sqlite_int.h"

#define TASK_COLS "task_id, name, stage, status, artifacts, pending, notes, created_at, updated_at," \
                  " round, round_at, round_tz, period, rounds, round_from"

static void read_task(am__arena *ar, sqlite3_stmt *st, am__task_row *t)
{
    t->task_id = col_text(ar, st, 0);
    t->name = col_text(ar, st, 1);
    t->stage = col_text(ar, st, 2);
    t->status = col_text(ar, st, 3);
    t->artifacts = col_text(ar, st, 4);
    t->pending = col_text(ar, st, 5);
    t->notes = col_text(ar, st, 6);
    t->created_at = col_time(st, 7);
    t->updated_at = col_time(st, 8);
    t->round = sqlite3_column_int(st, 9);
    t->round_at = sqlite3_column_type(st, 10) == SQLITE_NULL ? t->created_at : col_time(st, 10);
    t->round_tz = sqlite3_column_int(st, 11);
    t->period = col_text(ar, st, 12);
    t->rounds = col_text(ar, st, 13);
    t->round_from = sqlite3_column_type(st, 14) == SQLITE_NULL ? t->round_at : col_time(st, 14);
}

static int task_get(sq_store *s, const char *uid, const char *task_id, am__arena *ar,
                    am__task_row *out)
{
    sqlite3_stmt *st = stmt(s, "SELECT " TASK_COLS " FROM tasks WHERE user_id=? AND task_id=?");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, task_id);
    int rc = sqlite3_step(st), r;
    if (rc == SQLITE_ROW) {
        read_task(ar, st, out);
        r = ar->oom ? AM_NOMEM : AM_OK;
    } else {
        r = rc == SQLITE_DONE ? AM_NOTFOUND : fail(s, rc, "task");
    }
    done(s, st);
    return r;
}

int am__sqlite_task_put(am__store *b, const char *uid, const am__task_row *t)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT INTO tasks(user_id, " TASK_COLS ") VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
                               " ON CONFLICT(user_id, task_id) DO UPDATE SET name=excluded.name, stage=excluded.stage,"
                               " status=excluded.status, artifacts=excluded.artifacts, pending=excluded.pending,"
                               " notes=excluded.notes, updated_at=excluded.updated_at, round=excluded.round,"
                               " round_at=excluded.round_at, round_tz=excluded.round_tz, period=excluded.period,"
                               " rounds=excluded.rounds, round_from=excluded.round_from");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, t->task_id);
    bind_text(st, 3, t->name);
    bind_text(st, 4, t->stage);
    bind_text(st, 5, t->status);
    bind_text(st, 6, t->artifacts ? t->artifacts : "[]");
    bind_text(st, 7, t->pending ? t->pending : "[]");
    bind_text(st, 8, t->notes ? t->notes : "[]");
    sqlite3_bind_int64(st, 9, t->created_at);
    sqlite3_bind_int64(st, 10, t->updated_at);
    sqlite3_bind_int(st, 11, t->round > 0 ? t->round : 1);
    sqlite3_bind_int64(st, 12, t->round_at != AM_TIME_NONE ? t->round_at : t->created_at);
    sqlite3_bind_int(st, 13, t->round_tz);
    bind_text(st, 14, t->period);
    bind_text(st, 15, t->rounds ? t->rounds : "[]");
    sqlite3_bind_int64(st, 16, t->round_from != AM_TIME_NONE ? t->round_from : t->created_at);
    return run(s, st, "task");
}

static int task_change_add(sq_store *s, const char *uid, const am__task_change_row *c)
{
    sqlite3_stmt *st = stmt(s, "INSERT INTO task_history(user_id, task_id, at, field, old_value, new_value, event_id) VALUES(?,?,?,?,?,?,?)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, c->task_id);
    sqlite3_bind_int64(st, 3, c->at);
    bind_text(st, 4, c->field);
    bind_text(st, 5, c->old_value);
    bind_text(st, 6, c->new_value);
    bind_text(st, 7, c->event_id);
    return run(s, st, "task history");
}

static int task_history(sq_store *s, const char *uid, const char *task_id, am__arena *ar,
                        am__task_change_row **rows, size_t *n)
{
    sqlite3_stmt *st = stmt(s, "SELECT at, task_id, field, old_value, new_value, event_id FROM task_history WHERE user_id=?1 AND (?2 IS NULL OR task_id=?2) ORDER BY seq");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, task_id);
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__task_change_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        r->at = col_time(st, 0);
        r->task_id = col_text(ar, st, 1);
        r->field = col_text(ar, st, 2);
        r->old_value = col_text(ar, st, 3);
        r->new_value = col_text(ar, st, 4);
        r->event_id = col_text(ar, st, 5);
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "task history");
    done(s, st);
    return out ? out : ar->oom ? AM_NOMEM : AM_OK; /* a text not copied */
}

int am__sqlite_task_log(am__store *b, const char *uid, const am__task_change_row *add,
                        const char *task_id, am__arena *ar, am__task_change_row **rows, size_t *n)
{
    if (add) return task_change_add(SQ(b), uid, add);
    return task_history(SQ(b), uid, task_id, ar, rows, n);
}

int am__sqlite_tasks_list(am__store *b, const char *uid, const char *task_id, int open_only,
                          int limit, am__arena *ar, am__task_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    if (task_id) { /* the one task */
        *rows = NULL;
        *n = 0;
        am__task_row *one = am__arena_alloc(ar, sizeof *one);
        int rc = one ? task_get(s, uid, task_id, ar, one) : AM_NOMEM;
        if (rc == AM_OK) {
            *rows = one;
            *n = 1;
        }
        return rc;
    }
    sqlite3_stmt *st = stmt(s, open_only ? "SELECT " TASK_COLS " FROM tasks WHERE user_id=?"
                                           " AND status IN ('active','paused','postponed')"
                                           " ORDER BY updated_at DESC, task_id LIMIT ?"
                                         : "SELECT " TASK_COLS " FROM tasks WHERE user_id=?"
                                           " ORDER BY updated_at DESC, task_id LIMIT ?");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    sqlite3_bind_int(st, 2, limit > 0 ? limit : -1); /* -1: no limit */
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__task_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        read_task(ar, st, r);
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "tasks");
    done(s, st);
    return out;
}
