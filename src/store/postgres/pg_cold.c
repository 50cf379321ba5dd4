/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pg_cold.c -- archived events in the PostgreSQL store (store.h: cold_*;
 * the stored form: store/cold.h), as the SQLite store keeps them: the
 * whole text in the events row's `cold` column (bytea stored out of line,
 * pg_schema.c v6), the content a summary.  Every path that moves or
 * deletes an event row -- forget at every level, the held copies of a
 * grace period and their restore, the purge -- takes the column along;
 * the postings keep the text's terms (never its text), so the event is
 * still found by its words.
 */
#include <stdio.h>
#include <stdlib.h>

#include "store/cold.h"
#include "store/postgres/pg_int.h"

int am__pg_cold_candidates(am__store *b, const char *uid, am_time before, am_time from_at,
                           int64_t from_rid, int limit, am__arena *ar, am__event_row **rows,
                           size_t *n)
{
    pg_store *s = PG(b);
    *rows = NULL;
    *n = 0;
    if (uid && am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_int(&a, before);
    am__pg_arg_int(&a, limit);
    PGresult *r;
    if (uid) {
        am__pg_arg_text(&a, uid);
        am__pg_arg_int(&a, from_at == AM_TIME_NONE ? INT64_MIN : from_at);
        r = am__pg_run(s, "archive",
                       "SELECT rid, id, user_id, content, occurred_at FROM events"
                       " WHERE user_id = $3 AND occurred_at < $1 AND occurred_at >= $4"
                       " AND cold IS NULL AND octet_length(content) >= " AM__COLD_MIN_BYTES_SQL
                       " ORDER BY occurred_at, rid LIMIT $2",
                       &a);
    } else {
        am__pg_arg_int(&a, from_rid);
        r = am__pg_run(s, "archive",
                       "SELECT rid, id, user_id, content, occurred_at FROM events"
                       " WHERE rid >= $3 AND occurred_at < $1 AND cold IS NULL"
                       " AND octet_length(content) >= " AM__COLD_MIN_BYTES_SQL " ORDER BY rid LIMIT $2",
                       &a);
    }
    if (!r) return s->rc;
    am__event_row *out = am__pg_rows(ar, r, sizeof *out);
    if (!out) return AM_NOMEM;
    for (int i = 0; i < PQntuples(r); i++) {
        out[i].rid = am__pg_i64(r, i, 0);
        out[i].id = am__pg_str(ar, r, i, 1);
        out[i].user_id = am__pg_str(ar, r, i, 2);
        out[i].content = am__pg_str(ar, r, i, 3);
        out[i].occurred_at = am__pg_time(r, i, 4);
    }
    *rows = out;
    return am__pg_rows_done(ar, r, n);
}

static int cold_archive(am__store *b, const char *uid, int64_t rid, const char *summary)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_int(&a, rid);
    if (!summary) { /* its text is its summary: kept hot, never a candidate again */
        long changed = 0;
        int rc = am__pg_exec(s, "archive",
                             "UPDATE events SET cold = ''::bytea WHERE user_id = $1 AND rid = $2"
                             " AND cold IS NULL",
                             &a, &changed);
        return rc ? rc : changed ? AM_OK : AM_NOTFOUND;
    }
    PGresult *r = am__pg_run(s, "archive",
                             "SELECT content FROM events WHERE user_id = $1 AND rid = $2"
                             " AND cold IS NULL FOR UPDATE",
                             &a);
    if (!r) return s->rc;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return AM_NOTFOUND;
    }
    am__arena ar;
    am__arena_init(&ar, s->a);
    unsigned char *blob = NULL;
    size_t len = 0;
    int rc = am__cold_pack(&ar, PQgetvalue(r, 0, 0), (size_t)PQgetlength(r, 0, 0), &blob, &len);
    PQclear(r);
    if (!rc) {
        am__pg_arg_text(&a, summary);
        am__pg_arg_bytes(&a, blob, len);
        rc = am__pg_exec(s, "archive",
                         "UPDATE events SET content = $3, cold = $4 WHERE user_id = $1 AND rid = $2",
                         &a, NULL);
    }
    am__arena_free(&ar);
    return rc;
}

/* the text of row i's packed column c into ar */
static int unpack_col(pg_store *s, am__arena *ar, PGresult *r, int i, int c, char **text)
{
    const unsigned char *p = NULL;
    size_t len = 0;
    int rc = am__pg_bytes(ar, r, i, c, &p, &len);
    if (!rc) rc = am__cold_unpack(ar, p, len, text);
    if (rc == AM_CORRUPT)
        return am__pg_fail(s, AM_CORRUPT, "postgres: archived event %s: its text cannot be read",
                           PQgetvalue(r, i, 0));
    return rc;
}

int am__pg_cold_fill(am__store *b, const char *uid, am__event_row *rows, size_t n, am__arena *ar,
                     size_t *filled)
{
    pg_store *s = PG(b);
    if (filled) *filled = 0;
    if (n == 0) return AM_OK;
    if (am__pg_lock_user(s, uid)) return s->rc;
    int64_t *rids = am__arena_alloc(ar, n * sizeof *rids);
    if (!rids) return AM_NOMEM;
    for (size_t i = 0; i < n; i++) rids[i] = rows[i].rid;
    am__buf lit;
    am__buf_init(&lit, s->a);
    am__pg_int_array(&lit, rids, n);
    am__buf_addc(&lit, 0);
    if (lit.oom) { am__buf_free(&lit); return AM_NOMEM; }
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, lit.p);
    PGresult *r = am__pg_run(s, "archived text",
                             "SELECT rid, cold FROM events WHERE user_id = $1"
                             " AND rid = ANY($2::bigint[]) AND length(cold) > 0",
                             &a);
    am__buf_free(&lit);
    if (!r) return s->rc;
    int rc = AM_OK;
    for (int i = 0; i < PQntuples(r) && !rc; i++) {
        int64_t rid = am__pg_i64(r, i, 0);
        char *text = NULL;
        rc = unpack_col(s, ar, r, i, 1, &text);
        for (size_t k = 0; k < n && !rc; k++)
            if (rows[k].rid == rid) {
                rows[k].content = text;
                if (filled) (*filled)++;
            }
    }
    PQclear(r);
    return rc;
}

static int cold_restore(am__store *b, const char *uid, const char *event_id, am_time from,
                        am_time to, long *restored)
{
    pg_store *s = PG(b);
    *restored = 0;
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    PGresult *r;
    if (event_id) {
        am__pg_arg_text(&a, event_id);
        r = am__pg_run(s, "restore archived",
                       "SELECT rid, cold FROM events WHERE user_id = $1 AND id = $2"
                       " AND length(cold) > 0 FOR UPDATE",
                       &a);
    } else {
        am__pg_arg_int(&a, from == AM_TIME_NONE ? INT64_MIN : from);
        am__pg_arg_int(&a, to == AM_TIME_NONE ? INT64_MAX : to);
        r = am__pg_run(s, "restore archived",
                       "SELECT rid, cold FROM events WHERE user_id = $1 AND occurred_at >= $2"
                       " AND occurred_at < $3 AND length(cold) > 0 FOR UPDATE",
                       &a);
    }
    if (!r) return s->rc;
    am__arena ar;
    am__arena_init(&ar, s->a);
    int rc = AM_OK;
    for (int i = 0; i < PQntuples(r) && !rc; i++) {
        char *text = NULL;
        rc = unpack_col(s, &ar, r, i, 1, &text);
        pg_args u = {0};
        am__pg_arg_text(&u, uid);
        am__pg_arg_int(&u, am__pg_i64(r, i, 0));
        am__pg_arg_text(&u, text);
        if (!rc)
            rc = am__pg_exec(s, "restore archived",
                             "UPDATE events SET content = $3, cold = ''::bytea"
                             " WHERE user_id = $1 AND rid = $2",
                             &u, NULL);
        if (!rc) (*restored)++;
    }
    PQclear(r);
    am__arena_free(&ar);
    return rc;
}

int am__pg_cold_put(am__store *b, const char *uid, const am__cold_op *op, long *restored)
{
    if (op->kind == AM__COLD_ARCHIVE) return cold_archive(b, uid, op->rid, op->summary);
    if (op->kind == AM__COLD_FILL) {
        size_t k = 0;
        int rc = am__pg_cold_fill(b, uid, op->rows, op->n, op->ar, &k);
        if (restored) *restored = (long)k;
        return rc;
    }
    if (op->kind != AM__COLD_RESTORE) return AM_MISUSE;
    return cold_restore(b, uid, op->event_id, op->from, op->to, restored);
}
