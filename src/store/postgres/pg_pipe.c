/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pg_pipe.c -- how the PostgreSQL store's statements travel: prepared
 * once per connection, and a write transaction's statements pipelined.
 *
 * Prepared statements.  Every statement of am__pg_run is prepared on its
 * first use on a connection (PQprepare, a name "amN") and executed by name
 * from then on (PQexecPrepared): the server parses and plans it once, not
 * at every call.  The cache is keyed by the statement's text (its hash,
 * then the text), so a statement built at run time is as safe as a
 * literal; beyond PG_PREP_MAX statements the rest run unnamed, as before.
 * A connection made again (a reset, a server restart) has none of them:
 * the cache belongs to the backend it was filled on (PQbackendPID, and
 * the connection's generation: a restarted server may hand out the pid
 * again) and is emptied when either changes, so nothing here depends on
 * who reset the connection or how.  A prepare that failed (a missing
 * table before the migration) is not remembered.  A connection lost
 * while statements are queued fails the transaction as AM_IO with
 * s->lost set (am__pg_result_error), so the call is run again.
 *
 * The pipeline.  Inside a write transaction (s->txn == PG_TXN_WRITE) the
 * connection is in libpq's pipeline mode: a statement whose result nobody
 * reads (am__pg_exec without a row count: the event's index rows, the
 * counters, entities, audit, outbox ...) is only queued (am__pg_defer),
 * and goes to the server with the next statement whose result is needed
 * (a read, a RETURNING) or with the COMMIT, in one round trip; their
 * results are read then, in order.  A transaction stays all or nothing:
 * PostgreSQL skips everything after a failed statement up to the end of
 * the pipeline, so the first failure (its operation and message, kept in
 * s->err) is what the next statement of the transaction and the commit
 * report, and the transaction is rolled back whole.  Only the moment an
 * error is reported moves (to the next synchronous statement); what is
 * committed does not.
 */
#include <stdio.h>
#include <stdlib.h>

#include "store/postgres/pg_int.h"

#define PG_PREP_MAX 512

struct pg_prep {
    uint64_t hash;
    char *sql;
    int state; /* PREP_* */
};
#define PREP_NONE 0 /* to be prepared */
#define PREP_SENT 1 /* prepare queued in the pipeline, result unread */
#define PREP_OK 2

/* The statements prepared on this backend. */
static void prep_check_backend(pg_store *s)
{
    int pid = PQbackendPID(s->conn);
    if (pid == s->prep_pid && s->generation == s->prep_gen) return;
    for (size_t i = 0; i < s->n_prep; i++) s->prep[i].state = PREP_NONE;
    s->prep_pid = pid;
    s->prep_gen = s->generation;
}

void am__pg_prep_free(pg_store *s)
{
    for (size_t i = 0; i < s->n_prep; i++) am__free(s->a, s->prep[i].sql);
    am__free(s->a, s->prep);
    s->prep = NULL;
    s->n_prep = 0;
}

/* The cache entry of sql (made when there is room), or -1: run unnamed. */
static long prep_find(pg_store *s, const char *sql)
{
    uint64_t h = am__hash64(sql, strlen(sql));
    for (size_t i = 0; i < s->n_prep; i++)
        if (s->prep[i].hash == h && strcmp(s->prep[i].sql, sql) == 0) return (long)i;
    if (s->n_prep >= PG_PREP_MAX) return -1;
    if (s->n_prep % 32 == 0) {
        struct pg_prep *p = am__realloc(s->a, s->prep, (s->n_prep + 32) * sizeof *p);
        if (!p) return -1;
        s->prep = p;
    }
    char *copy = am__strdup(s->a, sql);
    if (!copy) return -1;
    s->prep[s->n_prep] = (struct pg_prep){h, copy, PREP_NONE};
    return (long)s->n_prep++;
}

static void prep_name(char *out, size_t cap, long i) { snprintf(out, cap, "am%ld", i); }

/* ------------------------------------------------------------ the pipeline */

/* What a queued statement was, to name it when it failed. */
static void pending_push(pg_store *s, const char *what, long prep, int note)
{
    if (s->n_pend < PG_PIPE_MAX) {
        s->pend[s->n_pend].what = what;
        s->pend[s->n_pend].prep = prep;
        s->pend[s->n_pend].note = note;
    }
    s->n_pend++;
}

/* A failed result of the pipeline: the first one sets the transaction's
 * error (later ones are PostgreSQL skipping the rest). */
static void pipe_failed(pg_store *s, const char *what, const PGresult *r)
{
    if (s->pipe_rc) return;
    s->pipe_rc = am__pg_result_error(s, what, r);
    if (s->pipe_rc == AM_BUSY && strcmp(what, PG_LOCK_WHAT) == 0)
    {
        if (s->lock_wait)
            snprintf(s->err, sizeof s->err,
                     "postgres: another writer held the user's write lock for longer than %d ms"
                     " (busy_timeout_ms)", s->busy_ms);
        else
            snprintf(s->err, sizeof s->err,
                     "postgres: another writer held the user's write lock (not waited for)");
    }
}

/* Read the results of the queued statements, in order. */
static void pending_read(pg_store *s)
{
    for (size_t i = 0; i < s->n_pend; i++) {
        const char *what = i < PG_PIPE_MAX ? s->pend[i].what : "pipeline";
        long prep = i < PG_PIPE_MAX ? s->pend[i].prep : -1;
        PGresult *r = PQgetResult(s->conn);
        ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
        int ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
        if (prep >= 0) s->prep[prep].state = ok ? PREP_OK : PREP_NONE;
        if (!ok) pipe_failed(s, what, r);
        else if (i < PG_PIPE_MAX && s->pend[i].note && !s->pipe_rc) am__pg_outbox_note(s, r);
        PQclear(r);
        if (!r) break; /* the connection is gone */
        PQclear(PQgetResult(s->conn)); /* the NULL that ends a statement's results */
    }
    s->n_pend = 0;
}

int am__pg_pipe_enter(pg_store *s)
{
    s->pipe_rc = 0;
    s->n_pend = 0;
    s->pipe_on = PQenterPipelineMode(s->conn) == 1;
    return AM_OK;
}

int am__pg_pipe_leave(pg_store *s)
{
    if (!s->pipe_on) return AM_OK;
    s->pipe_on = 0;
    int sent = PQpipelineSync(s->conn) == 1;
    if (sent) {
        pending_read(s);
        /* up to the end of the pipeline */
        for (int guard = 0; guard < 1024; guard++) {
            PGresult *r = PQgetResult(s->conn);
            if (!r) {
                if (PQstatus(s->conn) != CONNECTION_OK) break;
                continue;
            }
            ExecStatusType st = PQresultStatus(r);
            PQclear(r);
            if (st == PGRES_PIPELINE_SYNC) break;
        }
    } else {
        s->n_pend = 0;
    }
    if (PQstatus(s->conn) == CONNECTION_OK) PQexitPipelineMode(s->conn);
    if (!sent) pipe_failed(s, "pipeline", NULL);
    int rc = s->pipe_rc;
    s->pipe_rc = 0;
    return rc;
}

/* Send sql with its parameters: prepared by name when it can be, the
 * prepare queued (pipeline) or run first; 0 when libpq refused or the
 * prepare failed (*failed: its result, the statement's error). */
static int send_stmt(pg_store *s, const char *sql, const pg_args *a, int *queued_prep,
                     PGresult **failed)
{
    int n = a ? a->n : 0;
    const char *const *v = a ? a->v : NULL;
    const int *len = a ? a->len : NULL, *fmt = a ? a->fmt : NULL;
    *queued_prep = -1;
    prep_check_backend(s);
    long i = prep_find(s, sql);
    char name[24];
    if (i >= 0) {
        prep_name(name, sizeof name, i);
        if (s->prep[i].state == PREP_NONE) {
            if (s->pipe_on) {
                if (!PQsendPrepare(s->conn, name, sql, 0, NULL)) return 0;
                s->prep[i].state = PREP_SENT;
                *queued_prep = (int)i;
            } else {
                PGresult *p = PQprepare(s->conn, name, sql, 0, NULL);
                if (!p || PQresultStatus(p) != PGRES_COMMAND_OK) {
                    *failed = p;
                    return 0;
                }
                PQclear(p);
                s->prep[i].state = PREP_OK;
            }
        }
    }
    if (i >= 0) return PQsendQueryPrepared(s->conn, name, n, v, len, fmt, 0);
    return PQsendQueryParams(s->conn, sql, n, NULL, v, len, fmt, 0);
}

PGresult *am__pg_call(pg_store *s, const char *what, const char *sql, const pg_args *a)
{
    int prep;
    PGresult *failed = NULL;
    if (!s->pipe_on) {
        if (!send_stmt(s, sql, a, &prep, &failed)) return failed;
        /* the last result is the statement's (as PQexecParams keeps it) */
        PGresult *last = NULL, *r;
        while ((r = PQgetResult(s->conn))) {
            PQclear(last);
            last = r;
        }
        return last;
    }
    if (s->pipe_rc) return NULL;
    int sent = send_stmt(s, sql, a, &prep, &failed);
    if (prep >= 0) pending_push(s, what, prep, 0); /* its result comes first */
    if (!sent || PQsendFlushRequest(s->conn) != 1 || PQflush(s->conn) != 0) {
        pipe_failed(s, what, NULL);
        return NULL;
    }
    pending_read(s);
    PGresult *r = PQgetResult(s->conn);
    if (r) PQclear(PQgetResult(s->conn)); /* the NULL after it */
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (!s->pipe_rc && st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) pipe_failed(s, what, r);
    if (s->pipe_rc) {
        PQclear(r);
        return NULL;
    }
    return r;
}

static int defer(pg_store *s, const char *what, const char *sql, const pg_args *a, int note)
{
    if (!s->pipe_on) {
        if (!note) return am__pg_exec(s, what, sql, a, NULL);
        PGresult *r = am__pg_run(s, what, sql, a);
        if (!r) return s->rc;
        am__pg_outbox_note(s, r);
        PQclear(r);
        return AM_OK;
    }
    if (s->pipe_rc) return s->rc = s->pipe_rc;
    int prep;
    PGresult *failed = NULL;
    if (!send_stmt(s, sql, a, &prep, &failed)) {
        pipe_failed(s, what, NULL);
        return s->rc = s->pipe_rc;
    }
    if (prep >= 0) pending_push(s, what, prep, 0);
    pending_push(s, what, -1, note);
    /* a long transaction's results are read before they pile up */
    if (s->n_pend >= PG_PIPE_MAX - 2) {
        if (PQsendFlushRequest(s->conn) != 1 || PQflush(s->conn) != 0) {
            pipe_failed(s, what, NULL);
            return s->rc = s->pipe_rc;
        }
        pending_read(s);
        if (s->pipe_rc) return s->rc = s->pipe_rc;
    }
    return AM_OK;
}

int am__pg_defer(pg_store *s, const char *what, const char *sql, const pg_args *a)
{
    return defer(s, what, sql, a, 0);
}

int am__pg_defer_outbox(pg_store *s, const char *what, const char *sql, const pg_args *a)
{
    return defer(s, what, sql, a, 1);
}
