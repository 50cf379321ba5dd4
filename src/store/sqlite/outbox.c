/* SPDX-License-Identifier: Apache-2.0 */
/*
 * outbox.c -- the memory events' outbox (docs/EVENTS.md): the table
 * memory_events (schema v14), written in the transaction of the change
 * that causes each row, read back in seq order by any process.
 *
 * seq is an AUTOINCREMENT rowid: SQLite's single writer makes the seqs of
 * one transaction contiguous and every later commit's higher, and a seq
 * is never given twice (not after a trim, not after a rollback), so a
 * reader resumes from the last seq it saw and misses nothing that is kept.
 *
 * This connection remembers the seqs its open transaction wrote (ob_lo..
 * ob_hi); a commit adds them to the range not yet reported, a rollback
 * drops them.  The API delivers that range to the handle's subscribers
 * after the commit (api/events.c): in-process delivery never announces a
 * row that was rolled back.
 */
#include "store/sqlite/sqlite_int.h"

#define OUTBOX_TRIM_STEP 4 /* rows past retention a put deletes at most */

void am__sqlite_outbox_txn_begin(sq_store *s)
{
    s->ob_lo = s->ob_hi = 0;
}

void am__sqlite_outbox_txn_end(sq_store *s, int committed)
{
    if (committed && s->ob_lo) {
        if (!s->ob_done_lo) s->ob_done_lo = s->ob_lo;
        s->ob_done_hi = s->ob_hi;
    }
    s->ob_lo = s->ob_hi = 0;
}

void am__sqlite_outbox_committed(am__store *b, int64_t *lo, int64_t *hi)
{
    sq_store *s = SQ(b);
    *lo = s->ob_done_lo;
    *hi = s->ob_done_hi;
    s->ob_done_lo = s->ob_done_hi = 0;
}

int am__sqlite_outbox_put(am__store *b, am__outbox_row *r)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT INTO memory_events(at, user_id, type, memory_id, task_id,"
                               " event_id, key, detail, other_user, occurred_at)"
                               " VALUES(?,?,?,?,?,?,?,?,?,?)");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, r->at);
    bind_text(st, 2, r->user_id);
    bind_text(st, 3, r->type);
    bind_text(st, 4, r->memory_id);
    bind_text(st, 5, r->task_id);
    bind_text(st, 6, r->event_id);
    bind_text(st, 7, r->key);
    bind_text(st, 8, r->detail);
    bind_text(st, 9, r->other_user);
    bind_time(st, 10, r->occurred_at);
    int rc = run(s, st, "memory event");
    if (rc) return rc;
    r->seq = (int64_t)sqlite3_last_insert_rowid(s->db);
    if (!s->ob_lo) s->ob_lo = r->seq;
    s->ob_hi = r->seq;
    /* retention: a few of the oldest rows past it go with each new one,
     * faster than rows come (am_optimize trims the rest) */
    if (!s->ob_max_rows && !s->ob_max_age_ms) return AM_OK;
    return am__sqlite_outbox_trim(b, s->ob_max_age_ms ? r->at - s->ob_max_age_ms : AM_TIME_NONE,
                                  s->ob_max_rows, OUTBOX_TRIM_STEP);
}

static int read_rows(sq_store *s, sqlite3_stmt *st, am__arena *ar, am__outbox_row **rows,
                     size_t *n)
{
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__outbox_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        r->seq = sqlite3_column_int64(st, 0);
        r->at = sqlite3_column_int64(st, 1);
        r->user_id = col_text(ar, st, 2);
        r->type = col_text(ar, st, 3);
        r->memory_id = col_text(ar, st, 4);
        r->task_id = col_text(ar, st, 5);
        r->event_id = col_text(ar, st, 6);
        r->key = col_text(ar, st, 7);
        r->detail = col_text(ar, st, 8);
        r->other_user = col_text(ar, st, 9);
        r->occurred_at = col_time(st, 10);
        if (!r->user_id || !r->type) { done(s, st); return AM_NOMEM; }
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "memory events");
    done(s, st);
    return out ? out : ar->oom ? AM_NOMEM : AM_OK; /* a text not copied */
}

#define OUTBOX_COLS "seq, at, user_id, type, memory_id, task_id, event_id, key, detail," \
                    " other_user, occurred_at"

int am__sqlite_outbox_since(am__store *b, const char *uid, int64_t after, size_t limit,
                            am__arena *ar, am__outbox_row **rows, size_t *n, int64_t *oldest)
{
    sq_store *s = SQ(b);
    *rows = NULL;
    *n = 0;
    if (oldest) {
        sqlite3_stmt *st = stmt(s, "SELECT coalesce(min(seq), 0) FROM memory_events");
        if (!st) return AM_BACKEND;
        int rc = sqlite3_step(st);
        *oldest = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
        done(s, st);
        if (rc != SQLITE_ROW) return fail(s, rc, "memory events");
    }
    sqlite3_stmt *st =
        uid ? stmt(s, "SELECT " OUTBOX_COLS " FROM memory_events WHERE user_id=?1 AND seq > ?2"
                      " ORDER BY seq LIMIT ?3")
            : stmt(s, "SELECT " OUTBOX_COLS " FROM memory_events WHERE seq > ?2"
                      " ORDER BY seq LIMIT ?3");
    if (!st) return AM_BACKEND;
    if (uid) bind_text(st, 1, uid);
    sqlite3_bind_int64(st, 2, after);
    sqlite3_bind_int64(st, 3, limit > (size_t)INT64_MAX ? INT64_MAX : (int64_t)limit);
    return read_rows(s, st, ar, rows, n);
}

int am__sqlite_outbox_trim(am__store *b, am_time before, int64_t max_rows, int limit)
{
    sq_store *s = SQ(b);
    int64_t lim = limit > 0 ? limit : -1;
    int rc = AM_OK;
    if (max_rows > 0) {
        /* by seq: a range of the rowid, the oldest first */
        sqlite3_stmt *st = stmt(s, "DELETE FROM memory_events WHERE seq IN (SELECT seq FROM"
                                   " memory_events WHERE seq <= (SELECT max(seq) FROM"
                                   " memory_events) - ?1 ORDER BY seq LIMIT ?2)");
        if (!st) return AM_BACKEND;
        sqlite3_bind_int64(st, 1, max_rows);
        sqlite3_bind_int64(st, 2, lim);
        if ((rc = run(s, st, "trim memory events"))) return rc;
    }
    if (before != AM_TIME_NONE) {
        /* by age, walking from the oldest (at grows with seq but for clock
         * steps: a row newer than its successors waits for them) */
        sqlite3_stmt *st = stmt(s, "DELETE FROM memory_events WHERE seq IN (SELECT seq FROM"
                                   " memory_events ORDER BY seq LIMIT ?2) AND at < ?1");
        if (!st) return AM_BACKEND;
        sqlite3_bind_int64(st, 1, before);
        sqlite3_bind_int64(st, 2, lim);
        rc = run(s, st, "trim memory events");
    }
    return rc;
}

void am__sqlite_outbox_note(sq_store *s, int64_t rows)
{
    if (rows <= 0) return;
    int64_t last = (int64_t)sqlite3_last_insert_rowid(s->db);
    if (!s->ob_lo) s->ob_lo = last - rows + 1;
    s->ob_hi = last;
}
