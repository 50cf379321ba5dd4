/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit.c -- the audit log: append-only (a trigger refuses deletes), read
 * back per user a page at a time; and the log operations (store.h
 * log_put, log_page) over it and the outbox (outbox.c).
 */
#include "store/sqlite/sqlite_int.h"

int am__sqlite_audit(am__store *b, const char *uid, am_time at, const char *op,
                     const char *otype, const char *oid, const char *detail)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT INTO audit_log(at, user_id, op, object_type, object_id, detail) VALUES(?,?,?,?,?,?)");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, at);
    bind_text(st, 2, uid);
    bind_text(st, 3, op);
    bind_text(st, 4, otype);
    bind_text(st, 5, oid);
    bind_text(st, 6, detail);
    return run(s, st, "audit");
}

static int read_audit(sq_store *s, sqlite3_stmt *st, am__arena *ar, am__audit_row **rows,
                      size_t *n)
{
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__audit_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        r->seq = sqlite3_column_int64(st, 0);
        r->at = col_time(st, 1);
        r->op = col_text(ar, st, 2);
        r->object_type = col_text(ar, st, 3);
        r->object_id = col_text(ar, st, 4);
        r->detail = col_text(ar, st, 5);
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "audit");
    done(s, st);
    return out ? out : ar->oom ? AM_NOMEM : AM_OK; /* a text not copied */
}

int am__sqlite_audit_page(am__store *b, const char *uid, int64_t after_seq, int limit,
                          am__arena *ar, am__audit_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT seq, at, op, object_type, object_id, detail FROM audit_log"
                               " WHERE user_id=? AND seq > ? ORDER BY seq LIMIT ?");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    sqlite3_bind_int64(st, 2, after_seq);
    sqlite3_bind_int(st, 3, limit);
    return read_audit(s, st, ar, rows, n);
}

int am__sqlite_log_put(am__store *b, const char *uid, const am__audit_row *a, am__outbox_row *o)
{
    if (a && !o)
        return am__sqlite_audit(b, uid, a->at, a->op, a->object_type, a->object_id, a->detail);
    return o && !a ? am__sqlite_outbox_put(b, o) : AM_MISUSE;
}

int am__sqlite_log_page(am__store *b, const char *uid, int64_t after, size_t limit, am__arena *ar,
                        am__audit_row **audit, am__outbox_row **outbox, size_t *n, int64_t *seqs)
{
    if (audit && !outbox) return am__sqlite_audit_page(b, uid, after, (int)limit, ar, audit, n);
    if (!audit && !outbox) {
        if (!seqs) return AM_MISUSE;
        am__sqlite_outbox_committed(b, &seqs[0], &seqs[1]);
        return AM_OK;
    }
    if (audit) return AM_MISUSE;
    return am__sqlite_outbox_since(b, uid, after, limit, ar, outbox, n, seqs);
}
