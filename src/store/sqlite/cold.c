/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cold.c -- archived events in the SQLite store (store.h: cold_*; the
 * stored form: store/cold.h).  The whole text lives in the events row's
 * last column, so every path that moves or deletes an event row --
 * forget at every level, the held copies of a grace period and their
 * restore, the purge, a user's merge -- takes it along with no step of
 * its own, and the scrub a forget owes (secure_delete, the log
 * checkpointed) leaves no byte of it in the files.  The index rows keep
 * the text's words: the event is still found by them.
 */
#include <stdlib.h>

#include "store/cold.h"
#include "store/sqlite/sqlite_int.h"

int am__sqlite_cold_candidates(am__store *b, const char *uid, am_time before, am_time from_at,
                               int64_t from_rid, int limit, am__arena *ar, am__event_row **rows,
                               size_t *n)
{
    sq_store *s = SQ(b);
    *rows = NULL;
    *n = 0;
    sqlite3_stmt *st =
        uid ? stmt(s, "SELECT rid, id, user_id, content, occurred_at FROM events"
                      " WHERE user_id=?1 AND occurred_at < ?2 AND occurred_at >= ?3 AND cold IS NULL"
                      " AND length(CAST(content AS BLOB)) >= " AM__COLD_MIN_BYTES_SQL
                      " ORDER BY occurred_at, rid LIMIT ?5")
            : stmt(s, "SELECT rid, id, user_id, content, occurred_at FROM events"
                      " WHERE rid >= ?4 AND occurred_at < ?2 AND cold IS NULL"
                      " AND length(CAST(content AS BLOB)) >= " AM__COLD_MIN_BYTES_SQL
                      " ORDER BY rid LIMIT ?5");
    if (!st) return AM_BACKEND;
    if (uid) bind_text(st, 1, uid);
    sqlite3_bind_int64(st, 2, before);
    sqlite3_bind_int64(st, 3, from_at == AM_TIME_NONE ? INT64_MIN : from_at);
    sqlite3_bind_int64(st, 4, from_rid);
    sqlite3_bind_int(st, 5, limit);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__event_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        r->rid = sqlite3_column_int64(st, 0);
        r->id = col_text(ar, st, 1);
        r->user_id = col_text(ar, st, 2);
        r->content = col_text(ar, st, 3);
        r->occurred_at = col_time(st, 4);
        if (ar->oom) { done(s, st); return AM_NOMEM; }
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "archive");
    done(s, st);
    return out;
}

static int cold_archive(am__store *b, const char *uid, int64_t rid, const char *summary)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st;
    int wrc = am__sqlite_caches_writing(s, uid);
    if (wrc) return wrc;
    if (!summary) { /* its text is its summary: kept hot, never a candidate again */
        if (!(st = stmt(s, "UPDATE events SET cold=x'' WHERE user_id=?1 AND rid=?2 AND cold IS NULL")))
            return AM_BACKEND;
        bind_text(st, 1, uid);
        sqlite3_bind_int64(st, 2, rid);
        int rc = run(s, st, "archive");
        return rc ? rc : sqlite3_changes(s->db) ? AM_OK : AM_NOTFOUND;
    }
    if (!(st = stmt(s, "SELECT content FROM events WHERE user_id=?1 AND rid=?2 AND cold IS NULL")))
        return AM_BACKEND;
    bind_text(st, 1, uid);
    sqlite3_bind_int64(st, 2, rid);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        int out = rc == SQLITE_DONE ? AM_NOTFOUND : fail(s, rc, "archive");
        done(s, st);
        return out;
    }
    am__arena ar;
    am__arena_init(&ar, s->a);
    unsigned char *blob = NULL;
    size_t len = 0;
    const char *text = (const char *)sqlite3_column_text(st, 0);
    int out = am__cold_pack(&ar, text ? text : "", (size_t)sqlite3_column_bytes(st, 0), &blob, &len);
    done(s, st);
    if (!out && !(st = stmt(s, "UPDATE events SET content=?3, cold=?4 WHERE user_id=?1 AND rid=?2")))
        out = AM_BACKEND;
    if (!out) {
        bind_text(st, 1, uid);
        sqlite3_bind_int64(st, 2, rid);
        bind_text(st, 3, summary);
        sqlite3_bind_blob(st, 4, blob, (int)len, SQLITE_STATIC);
        out = run(s, st, "archive");
    }
    am__arena_free(&ar);
    if (!out) am__rowcache_clear(s->rows); /* its row held there has its text */
    if (!out) out = am__sqlite_user_changed(s, uid); /* for other connections' caches */
    return out;
}

int am__sqlite_cold_fill(am__store *b, const char *uid, am__event_row *rows, size_t n,
                         am__arena *ar, size_t *filled)
{
    sq_store *s = SQ(b);
    if (filled) *filled = 0;
    if (n == 0) return AM_OK;
    /* most users have no archived event: one probe of the partial index */
    sqlite3_stmt *probe =
        stmt(s, "SELECT 1 FROM events WHERE user_id=?1 AND length(cold) > 0 LIMIT 1");
    if (!probe) return AM_BACKEND;
    bind_text(probe, 1, uid);
    int prc = sqlite3_step(probe);
    done(s, probe);
    if (prc == SQLITE_DONE) return AM_OK;
    if (prc != SQLITE_ROW) return fail(s, prc, "archived text");
    am__buf ids;
    am__buf_init(&ids, s->a);
    am__buf_addc(&ids, '[');
    for (size_t i = 0; i < n; i++) {
        if (i) am__buf_addc(&ids, ',');
        am__buf_add_int(&ids, rows[i].rid);
    }
    am__buf_addc(&ids, ']');
    if (ids.oom) {
        am__buf_free(&ids);
        return AM_NOMEM;
    }
    sqlite3_stmt *st = stmt(s, "SELECT rid, cold FROM events WHERE user_id=?1 AND rid IN"
                               " (SELECT value FROM json_each(?2)) AND length(cold) > 0");
    if (!st) {
        am__buf_free(&ids);
        return AM_BACKEND;
    }
    bind_text(st, 1, uid);
    bind_text(st, 2, ids.p);
    int rc, out = AM_OK;
    while (out == AM_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t rid = sqlite3_column_int64(st, 0);
        char *text = NULL;
        out = am__cold_unpack(ar, sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1),
                              &text);
        if (out == AM_CORRUPT)
            snprintf(s->err, sizeof s->err, "sqlite: archived event %lld: its text cannot be read",
                     (long long)rid);
        for (size_t i = 0; i < n && !out; i++)
            if (rows[i].rid == rid) {
                rows[i].content = text;
                if (filled) (*filled)++;
            }
    }
    if (out == AM_OK && rc != SQLITE_DONE) out = fail(s, rc, "archived text");
    done(s, st);
    am__buf_free(&ids);
    return out;
}

static int cold_restore(am__store *b, const char *uid, const char *event_id, am_time from,
                        am_time to, long *restored)
{
    sq_store *s = SQ(b);
    *restored = 0;
    int wrc = am__sqlite_caches_writing(s, uid);
    if (wrc) return wrc;
    sqlite3_stmt *st =
        event_id ? stmt(s, "SELECT rid, cold FROM events WHERE user_id=?1 AND id=?2"
                           " AND length(cold) > 0")
                 : stmt(s, "SELECT rid, cold FROM events WHERE user_id=?1 AND occurred_at >= ?3"
                           " AND occurred_at < ?4 AND length(cold) > 0");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    if (event_id) bind_text(st, 2, event_id);
    else {
        sqlite3_bind_int64(st, 3, from == AM_TIME_NONE ? INT64_MIN : from);
        sqlite3_bind_int64(st, 4, to == AM_TIME_NONE ? INT64_MAX : to);
    }
    am__arena ar;
    am__arena_init(&ar, s->a);
    int64_t *rids = NULL;
    char **texts = NULL;
    size_t n = 0, cap = 0, cap2 = 0, n2 = 0;
    int rc, out = AM_OK;
    while (out == AM_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t *r = push(&ar, (void **)&rids, &n, &cap, sizeof *r);
        char **t = push(&ar, (void **)&texts, &n2, &cap2, sizeof *t);
        if (!r || !t) { out = AM_NOMEM; break; }
        *r = sqlite3_column_int64(st, 0);
        out = am__cold_unpack(&ar, sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1),
                              t);
        if (out == AM_CORRUPT)
            snprintf(s->err, sizeof s->err, "sqlite: archived event %lld: its text cannot be read",
                     (long long)*r);
    }
    if (out == AM_OK && rc != SQLITE_DONE) out = fail(s, rc, "restore archived");
    done(s, st);
    for (size_t i = 0; i < n && out == AM_OK; i++) {
        if (!(st = stmt(s, "UPDATE events SET content=?3, cold=x'' WHERE user_id=?1 AND rid=?2"))) {
            out = AM_BACKEND;
            break;
        }
        bind_text(st, 1, uid);
        sqlite3_bind_int64(st, 2, rids[i]);
        bind_text(st, 3, texts[i]);
        out = run(s, st, "restore archived");
    }
    am__arena_free(&ar);
    if (out == AM_OK) *restored = (long)n;
    if (n) am__rowcache_clear(s->rows);
    if (out == AM_OK && n) out = am__sqlite_user_changed(s, uid); /* other connections' caches */
    return out;
}

int am__sqlite_cold_put(am__store *b, const char *uid, const am__cold_op *op, long *restored)
{
    switch (op->kind) {
    case AM__COLD_ARCHIVE: return cold_archive(b, uid, op->rid, op->summary);
    case AM__COLD_RESTORE: return cold_restore(b, uid, op->event_id, op->from, op->to, restored);
    case AM__COLD_FILL: {
        size_t k = 0;
        int rc = am__sqlite_cold_fill(b, uid, op->rows, op->n, op->ar, &k);
        if (restored) *restored = (long)k;
        return rc;
    }
    default: return AM_MISUSE;
    }
}
