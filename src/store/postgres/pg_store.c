/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pg_store.c -- the PostgreSQL store: one database shared
 * by many stateless servers, selected by a URL (postgres://... or
 * postgresql://..., libpq's connection URI).  This file is the
 * connection: open (pg_schema.c migrates the database), close,
 * transactions, the statement helpers of pg_int.h and the vtable over the
 * backend's files.
 *
 * Transactions keep the SQLite store's guarantees.  A write transaction
 * (begin) is READ COMMITTED; its first statement naming a user takes that
 * user's transaction-scoped advisory lock (am__pg_lock_user, with the
 * store's lock shared; an operation over every user takes the store's
 * lock exclusively), waiting at most busy_timeout_ms (lock_timeout;
 * AM_BUSY after it): a user's writers are serialized as SQLite's single
 * writer serializes them, so the engine's read-then-write steps (a memory
 * item's next version) cannot interleave across processes, while two
 * users' writers run side by side.  try_begin waits 1 ms.  A read
 * snapshot (begin_read, search_begin outside a transaction) is REPEATABLE
 * READ READ ONLY: every statement in it sees one state.  One event is one
 * transaction, as the API groups it.
 *
 * Isolation: every statement that reads or writes user data names
 * user_id from the uid argument, which is also the partition key of the
 * tables (docs/SCALING.md), so no statement reaches another user's rows.
 *
 * A lost connection (a server restart, a terminated backend).  Outside
 * a transaction it is made again before the next statement, and a
 * statement that found it lost is sent once more on the new one.  Inside
 * a transaction the statement fails (AM_IO, lost = PG_LOST_CLEAN: the
 * server rolled the transaction back with the session), and the API runs
 * the whole call again (pg_retry: the connection made again with a
 * bounded backoff, within busy_timeout_ms), or answers AM_IO, which the
 * server maps to 503.  A COMMIT whose answer is lost is the one
 * ambiguous case: the transaction's id, taken at begin
 * (pg_current_xact_id), is asked of the server on a new connection
 * (pg_xact_status): committed is success, aborted is a clean failure
 * that may be run again; when the server does not answer in time the
 * outcome is unknown (PG_LOST_UNKNOWN) and the call is run again only
 * when it is idempotent (events with the caller's ids: the second run
 * finds the first's event) -- never a duplicate, never a false success
 * (docs/SCALING.md).  Every connection made counts a generation, the
 * hook for what lives per server session (prepared statements).
 */
#include <errno.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "store/postgres/pg_int.h"
#include "text/analyze.h"

/* The advisory locks (class, object): the store's (writers take it
 * shared, an operation over every user exclusively), the outbox order's,
 * and one per user in a class of its own (docs/SCALING.md). */
#define PG_LOCK_CLASS "1634560365" /* "amem" */
#define PG_LOCK_WRITE "1"
#define PG_LOCK_OUTBOX "2"
#define PG_LOCK_USERS "1634560366"

/* ------------------------------------------------------------ helpers */

int am__pg_fail(pg_store *s, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
    s->rc = rc;
    return rc;
}

int am__pg_unsupported(pg_store *s, const char *op)
{
    return am__pg_fail(s, AM_BACKEND,
                       "postgres: %s is not supported by the PostgreSQL store yet"
                       " (docs/SCALING.md lists what it does not do)", op);
}

static void arg_num(pg_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void arg_num(pg_args *a, const char *fmt, ...)
{
    if (a->n >= PG_ARGS_MAX) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->num[a->n], sizeof a->num[a->n], fmt, ap);
    va_end(ap);
    a->v[a->n] = a->num[a->n];
    a->len[a->n] = 0;
    a->fmt[a->n++] = 0;
}

void am__pg_arg_text(pg_args *a, const char *v)
{
    if (a->n >= PG_ARGS_MAX) return;
    a->v[a->n] = v;
    a->len[a->n] = 0;
    a->fmt[a->n++] = 0;
}

void am__pg_arg_int(pg_args *a, int64_t v) { arg_num(a, "%lld", (long long)v); }

void am__pg_arg_time(pg_args *a, am_time t)
{
    if (t == AM_TIME_NONE) am__pg_arg_text(a, NULL);
    else am__pg_arg_int(a, t);
}

void am__pg_arg_real(pg_args *a, double v) { arg_num(a, "%.17g", v); }

void am__pg_arg_bytes(pg_args *a, const void *p, size_t n)
{
    if (a->n >= PG_ARGS_MAX) return;
    a->v[a->n] = p ? (const char *)p : NULL;
    a->len[a->n] = (int)n;
    a->fmt[a->n++] = 1;
}

/* The AM_* code of a failed result: lock and serialization failures wait
 * for nobody (AM_BUSY), a lost connection is I/O. */
static int result_code(const PGresult *r)
{
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    if (!state) return AM_BACKEND;
    if (strcmp(state, "55P03") == 0 || strcmp(state, "40001") == 0 ||
        strcmp(state, "40P01") == 0 || strcmp(state, "57014") == 0)
        return AM_BUSY;
    if (strncmp(state, "08", 2) == 0 || strncmp(state, "57P0", 4) == 0) return AM_IO; /* gone */
    if (strcmp(state, "53100") == 0 || strcmp(state, "53200") == 0) return AM_NOMEM;
    return AM_BACKEND;
}

static void message_of(pg_store *s, const char *what, const PGresult *r)
{
    const char *m = r ? PQresultErrorMessage(r) : NULL;
    if (!m || !*m) m = PQerrorMessage(s->conn);
    size_t n = strlen(m);
    while (n && (m[n - 1] == '\n' || m[n - 1] == ' ')) n--;
    snprintf(s->err, sizeof s->err, "postgres: %s: %.*s", what, (int)n, m);
}

/* s->err from a failed statement's result r (NULL: the connection's
 * message) of the operation what, and its AM_* code in s->rc.  The
 * connection's loss first (a NULL result of a connection that is gone is
 * no lack of memory), as is a backend terminated (57P0x) before libpq saw
 * its connection close: AM_IO with s->lost = PG_LOST_CLEAN (the server
 * rolled back what the session had not committed), so the call can be
 * run again (pg_retry) -- also when the failure was read from a pipeline
 * (pg_pipe.c). */
int am__pg_result_error(pg_store *s, const char *what, const PGresult *r)
{
    message_of(s, what, r);
    int rc = PQstatus(s->conn) != CONNECTION_OK ? AM_IO : r ? result_code(r) : AM_NOMEM;
    if (rc == AM_IO) s->lost = PG_LOST_CLEAN;
    return s->rc = rc;
}

/* What every connection of the store is set to: floats printed so that
 * they read back exactly, UTF-8, bytea as hex (am__pg_bytes), no notices. */
#define PG_SESSION_SETTINGS                                                              \
    "SET extra_float_digits = 3; SET client_encoding = 'UTF8'; SET bytea_output = 'hex';" \
    " SET client_min_messages = warning"

/* Outside a transaction a lost connection is made again first. */
static void reconnect(pg_store *s)
{
    if (PQstatus(s->conn) == CONNECTION_OK || s->txn != PG_TXN_NONE || s->search_depth) return;
    PQreset(s->conn);
    if (PQstatus(s->conn) == CONNECTION_OK) {
        s->generation++;
        s->reconnects++;
        PGresult *r = PQexec(s->conn, PG_SESSION_SETTINGS);
        PQclear(r);
    }
}

/* A statement that failed because the connection was gone (a server
 * restart, a terminated backend) outside any transaction is sent once
 * more on a new connection: nothing of it can have been done. */
static int retry_lost(pg_store *s, PGresult **r)
{
    if (PQstatus(s->conn) == CONNECTION_OK || s->txn != PG_TXN_NONE || s->search_depth ||
        PQtransactionStatus(s->conn) == PQTRANS_INTRANS)
        return 0;
    PQclear(*r);
    *r = NULL;
    reconnect(s);
    return PQstatus(s->conn) == CONNECTION_OK;
}

PGresult *am__pg_run(pg_store *s, const char *what, const char *sql, const pg_args *a)
{
    reconnect(s);
    PGresult *r = am__pg_call(s, what, sql, a);
    if (!r && s->pipe_on) return s->rc = s->pipe_rc, NULL; /* s->err says why */
    if ((!r || PQresultStatus(r) == PGRES_FATAL_ERROR) && retry_lost(s, &r))
        r = am__pg_call(s, what, sql, a); /* (a send refused on a lost connection: NULL) */
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) return r;
    am__pg_result_error(s, what, r);
    PQclear(r);
    return NULL;
}

int am__pg_exec(pg_store *s, const char *what, const char *sql, const pg_args *a, long *changed)
{
    if (!changed && s->pipe_on) return am__pg_defer(s, what, sql, a);
    PGresult *r = am__pg_run(s, what, sql, a);
    if (!r) return s->rc;
    if (changed) *changed = atol(PQcmdTuples(r));
    PQclear(r);
    return AM_OK;
}

int am__pg_simple(pg_store *s, const char *what, const char *sql)
{
    int prc = am__pg_pipe_leave(s); /* a simple query ends the pipeline */
    if (prc) return s->rc = prc;
    reconnect(s);
    PGresult *r = PQexec(s->conn, sql);
    if (r && PQresultStatus(r) == PGRES_FATAL_ERROR && retry_lost(s, &r)) r = PQexec(s->conn, sql);
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) {
        PQclear(r);
        return AM_OK;
    }
    am__pg_result_error(s, what, r);
    PQclear(r);
    return s->rc;
}

char *am__pg_str(am__arena *ar, const PGresult *r, int i, int c)
{
    if (PQgetisnull(r, i, c)) return NULL;
    return am__arena_strndup(ar, PQgetvalue(r, i, c), (size_t)PQgetlength(r, i, c));
}

int64_t am__pg_i64(const PGresult *r, int i, int c)
{
    return PQgetisnull(r, i, c) ? 0 : strtoll(PQgetvalue(r, i, c), NULL, 10);
}

am_time am__pg_time(const PGresult *r, int i, int c)
{
    return PQgetisnull(r, i, c) ? AM_TIME_NONE : strtoll(PQgetvalue(r, i, c), NULL, 10);
}

double am__pg_real(const PGresult *r, int i, int c)
{
    return PQgetisnull(r, i, c) ? 0 : strtod(PQgetvalue(r, i, c), NULL);
}

int am__pg_bytes(am__arena *ar, const PGresult *r, int i, int c, const unsigned char **p,
                 size_t *n)
{
    *p = NULL;
    *n = 0;
    if (PQgetisnull(r, i, c)) return AM_OK;
    const char *v = PQgetvalue(r, i, c);
    size_t len = (size_t)PQgetlength(r, i, c);
    if (len < 2 || v[0] != '\\' || v[1] != 'x') return AM_CORRUPT; /* bytea_output hex */
    size_t k = (len - 2) / 2;
    unsigned char *out = am__arena_alloc(ar, k + 1);
    if (!out) return AM_NOMEM;
    for (size_t j = 0; j < k; j++) {
        int hi = am__hexval(v[2 + 2 * j]), lo = am__hexval(v[3 + 2 * j]);
        if (hi < 0 || lo < 0) return AM_CORRUPT;
        out[j] = (unsigned char)(hi << 4 | lo);
    }
    *p = out;
    *n = k;
    return AM_OK;
}

void *am__pg_rows(am__arena *ar, PGresult *r, size_t elem)
{
    void *p = am__arena_alloc(ar, ((size_t)PQntuples(r) + 1) * elem);
    if (!p) PQclear(r);
    return p;
}

int am__pg_rows_done(am__arena *ar, PGresult *r, size_t *n)
{
    *n = (size_t)PQntuples(r);
    PQclear(r);
    return ar->oom ? AM_NOMEM : AM_OK;
}

void *am__pg_push(am__arena *ar, void **arr, size_t *n, size_t *cap, size_t elem)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        void *na = am__arena_alloc(ar, nc * elem);
        if (!na) return NULL;
        if (*n) memcpy(na, *arr, *n * elem);
        *arr = na;
        *cap = nc;
    }
    return (char *)*arr + (*n)++ * elem;
}

void am__pg_text_array(am__buf *b, const char *const *v, size_t n)
{
    am__buf_addc(b, '{');
    for (size_t i = 0; i < n; i++) {
        if (i) am__buf_addc(b, ',');
        am__buf_addc(b, '"');
        for (const char *p = v[i]; *p; p++) {
            if (*p == '"' || *p == '\\') am__buf_addc(b, '\\');
            am__buf_addc(b, *p);
        }
        am__buf_addc(b, '"');
    }
    am__buf_addc(b, '}');
}

void am__pg_int_array(am__buf *b, const int64_t *v, size_t n)
{
    am__buf_addc(b, '{');
    for (size_t i = 0; i < n; i++) {
        if (i) am__buf_addc(b, ',');
        am__buf_add_int(b, v[i]);
    }
    am__buf_addc(b, '}');
}

/* ------------------------------------------------------------ the connection */

static void pg_close(am__store *b)
{
    pg_store *s = PG(b);
    if (!s) return;
    if (s->conn) PQfinish(s->conn);
    am__pg_prep_free(s);
    am__arena_free(&s->ob_ar);
    am__text_close(s->ptext);
    am__vault_key_wipe(s->forget_key, sizeof s->forget_key);
    am__pg_vault_wipe(s);
    am__free(s->a, s);
}

static const char *pg_errmsg(am__store *b) { return PG(b)->err; }

/* A write transaction: READ COMMITTED, its lock waits bounded by
 * busy_timeout_ms (try: 1 ms, as good as not waiting).  The locks
 * themselves are taken by the first statement naming their user
 * (am__pg_lock_user), in the pipeline. */
/* What the transaction left to its commit, dropped (begin, rollback,
 * after the commit). */
static void deferred_clear(pg_store *s)
{
    memset(s->tot, 0, sizeof s->tot);
    s->tot_dirty = 0;
    s->obq = NULL;
    s->obq_n = s->obq_cap = 0;
    am__arena_free(&s->ob_ar);
    am__arena_init(&s->ob_ar, s->a);
}

/* What the transaction left to its commit, queued before the COMMIT in
 * the one order every writer takes these rows and locks in, after its
 * users' locks: the index totals' slots ascending, then the outbox
 * order's lock with the memory events.  So two writers never hold one of
 * them each while waiting for the other's (no deadlock between servers'
 * groups), and each is held for the commit's round trip only. */
static int commit_deferred(pg_store *s)
{
    int rc = AM_OK;
    for (int k = 0; k < PG_PARTS && !rc; k++) {
        if (!(s->tot_dirty & 1u << k)) continue;
        pg_args a = {0};
        am__pg_arg_int(&a, k);
        am__pg_arg_int(&a, s->tot[k][0]);
        am__pg_arg_int(&a, s->tot[k][1]);
        am__pg_arg_int(&a, s->tot[k][2]);
        rc = am__pg_defer(s, "index totals",
                          "UPDATE index_totals SET n_rows = n_rows + $2, len0 = len0 + $3,"
                          " len1 = len1 + $4 WHERE slot = $1", &a);
    }
    if (!rc) rc = am__pg_outbox_flush(s);
    return rc;
}

static int lock_write(pg_store *s, int wait)
{
    char sql[192];
    /* the transaction's id (commit_outcome) in the same round trip */
    snprintf(sql, sizeof sql,
             "BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = %d;"
             " SELECT pg_current_xact_id()", wait ? s->busy_ms : 1);
    s->lost = PG_LOST_NONE;
    s->xid[0] = '\0';
    reconnect(s);
    PGresult *r = PQexec(s->conn, sql);
    if (r && PQresultStatus(r) == PGRES_FATAL_ERROR && retry_lost(s, &r)) r = PQexec(s->conn, sql);
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    int rc = AM_OK;
    if (st != PGRES_TUPLES_OK) rc = am__pg_result_error(s, "begin", r);
    else if (PQntuples(r) == 1) snprintf(s->xid, sizeof s->xid, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
    if (rc) {
        if (PQstatus(s->conn) == CONNECTION_OK) PQclear(PQexec(s->conn, "ROLLBACK"));
        s->rc = rc;
        return rc;
    }
    s->txn = PG_TXN_WRITE;
    s->ob_lo = s->ob_hi = 0;
    deferred_clear(s);
    s->n_locked = 0;
    s->lock_all = s->lock_outbox = 0;
    s->lock_wait = wait;
    return am__pg_pipe_enter(s);
}

/* One advisory lock of the transaction, queued; what names it in the
 * message of a lock that could not be had. */
static int lock_take(pg_store *s, const char *what, const char *sql, const int64_t *key)
{
    pg_args a = {0};
    if (key) am__pg_arg_int(&a, *key);
    return am__pg_defer(s, what, sql, key ? &a : NULL);
}

/* A user's (or a channel identity's) key: every write of it takes the
 * store's lock shared and the key's exclusively. */
static int lock_key(pg_store *s, int64_t key)
{
    if (s->txn != PG_TXN_WRITE || s->lock_all) return AM_OK;
    for (size_t i = 0; i < s->n_locked && i < PG_LOCKED_MAX; i++)
        if (s->locked[i] == key) return AM_OK;
    int rc = AM_OK;
    if (s->n_locked == 0)
        rc = lock_take(s, PG_LOCK_WHAT,
                       "SELECT pg_advisory_xact_lock_shared(" PG_LOCK_CLASS ", " PG_LOCK_WRITE ")",
                       NULL);
    if (!rc)
        rc = lock_take(s, PG_LOCK_WHAT,
                       "SELECT pg_advisory_xact_lock(" PG_LOCK_USERS ", $1::integer)", &key);
    if (s->n_locked < PG_LOCKED_MAX) s->locked[s->n_locked] = key;
    s->n_locked++;
    return rc;
}

static int64_t key_of(const char *a, const char *b)
{
    uint64_t h = am__hash64(a, strlen(a));
    if (b) h = (h ^ am__hash64(b, strlen(b))) * 0x100000001b3ull;
    return (int64_t)(int32_t)(uint32_t)(h ^ h >> 32);
}

int am__pg_lock_user(pg_store *s, const char *uid)
{
    return uid && *uid ? lock_key(s, key_of(uid, NULL)) : AM_OK;
}

static int cmp_key(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int am__pg_lock_users(am__store *b, const char *const *uids, size_t n)
{
    pg_store *s = PG(b);
    if (s->txn != PG_TXN_WRITE || s->lock_all || n == 0) return AM_OK;
    int64_t keys[PG_LOCKED_MAX];
    size_t k = 0;
    for (size_t i = 0; i < n && k < PG_LOCKED_MAX; i++)
        if (uids[i] && *uids[i]) keys[k++] = key_of(uids[i], NULL);
    qsort(keys, k, sizeof *keys, cmp_key);
    int rc = AM_OK;
    for (size_t i = 0; i < k && !rc; i++)
        if (i == 0 || keys[i] != keys[i - 1]) rc = lock_key(s, keys[i]);
    return rc;
}

int am__pg_lock_link(pg_store *s, const char *ch, const char *ext)
{
    return ch && ext ? lock_key(s, key_of(ch, ext)) : AM_OK;
}

int am__pg_lock_all(pg_store *s)
{
    if (s->txn != PG_TXN_WRITE || s->lock_all) return AM_OK;
    s->lock_all = 1;
    return lock_take(s, PG_LOCK_WHAT,
                     "SELECT pg_advisory_xact_lock(" PG_LOCK_CLASS ", " PG_LOCK_WRITE ")", NULL);
}

int am__pg_lock_outbox(pg_store *s)
{
    if (s->txn != PG_TXN_WRITE || s->lock_outbox) return AM_OK;
    s->lock_outbox = 1;
    return lock_take(s, PG_LOCK_WHAT,
                     "SELECT pg_advisory_xact_lock(" PG_LOCK_CLASS ", " PG_LOCK_OUTBOX ")", NULL);
}

static int pg_begin(am__store *b) { return lock_write(PG(b), 1); }
static int pg_try_begin(am__store *b) { return lock_write(PG(b), 0); }

static int64_t mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

/* The next wait of a backoff: doubled from 10 ms up to 250, with a
 * jitter of a quarter (handles of several servers do not reconnect in
 * step), and never past the deadline. */
static int backoff_ms(int *wait, int64_t deadline)
{
    *wait = *wait < 10 ? 10 : *wait * 2 > 250 ? 250 : *wait * 2;
    int ms = *wait - (int)((unsigned)mono_ms() * 2654435761u % (unsigned)(*wait / 4 + 1));
    int64_t left = deadline - mono_ms();
    return left < ms ? (int)(left > 0 ? left : 0) : ms;
}

/* The connection made again, waiting with a backoff until deadline: 1
 * when it is there, 0 (s->err saying why) when not. */
static int reconnect_until(pg_store *s, int64_t deadline)
{
    for (int wait = 0;;) {
        reconnect(s);
        if (PQstatus(s->conn) == CONNECTION_OK) return 1;
        int ms = backoff_ms(&wait, deadline);
        if (ms <= 0) break;
        sleep_ms(ms);
    }
    message_of(s, "reconnect", NULL);
    return 0;
}

/* The answer to the COMMIT of transaction s->xid was lost with the
 * connection: was it done?  Asked on a new connection for at most
 * busy_timeout_ms (an old backend may still be finishing it: "in
 * progress" is waited out).  AM_OK: committed; AM_IO with s->lost
 * CLEAN (aborted: nothing was written) or UNKNOWN. */
static int commit_outcome(pg_store *s)
{
    char lost[sizeof s->err];
    snprintf(lost, sizeof lost, "%s", s->err);
    s->txn = PG_TXN_NONE;
    int64_t deadline = mono_ms() + s->busy_ms;
    const char *why = "the store did not answer";
    for (int wait = 0; reconnect_until(s, deadline);) {
        pg_args a = {0};
        am__pg_arg_text(&a, s->xid);
        PGresult *r = PQexecParams(s->conn, "SELECT pg_xact_status($1::xid8)", 1, NULL, a.v,
                                   a.len, a.fmt, 0);
        const char *v = r && PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1
                            ? pg_val(r, 0, 0) : NULL;
        int state = !v ? 'x' : strcmp(v, "committed") == 0 ? 'c' : strcmp(v, "aborted") == 0 ? 'a'
                    : strcmp(v, "in progress") == 0 ? 'p' : 'x';
        PQclear(r);
        if (state == 'c') {
            s->lost = PG_LOST_NONE;
            return AM_OK;
        }
        if (state == 'a') {
            s->lost = PG_LOST_CLEAN;
            snprintf(s->err, sizeof s->err,
                     "postgres: commit: the connection was lost during COMMIT and the"
                     " transaction was not committed (nothing written): %.400s", lost);
            return s->rc = AM_IO;
        }
        if (state == 'x' && PQstatus(s->conn) == CONNECTION_OK) {
            why = "the server no longer knows the transaction";
            break;
        }
        int ms = backoff_ms(&wait, deadline); /* in progress, or lost again */
        if (ms <= 0) break;
        sleep_ms(ms);
    }
    s->lost = PG_LOST_UNKNOWN;
    snprintf(s->err, sizeof s->err,
             "postgres: commit: the connection was lost during COMMIT and whether transaction"
             " %s was committed is unknown (%s within busy_timeout_ms, %d ms): %.300s", s->xid,
             why, s->busy_ms, lost);
    return s->rc = AM_IO;
}

static int pg_commit(am__store *b)
{
    pg_store *s = PG(b);
    int rc = s->txn == PG_TXN_WRITE ? commit_deferred(s) : AM_OK;
    deferred_clear(s);
    if (rc) { /* no COMMIT sent: the caller rolls back, as after a failed one */
        s->ob_lo = s->ob_hi = 0;
        s->txn = PG_TXN_NONE;
        return rc;
    }
    if (s->pipe_on) {
        /* the queued statements and the COMMIT in one round trip */
        rc = am__pg_defer(s, "commit", "COMMIT", NULL);
        int end = am__pg_pipe_leave(s);
        if (!rc) rc = end;
        if (PQtransactionStatus(s->conn) == PQTRANS_INERROR) PQclear(PQexec(s->conn, "ROLLBACK"));
    } else {
        rc = am__pg_simple(s, "commit", "COMMIT");
    }
    /* the connection lost (am__pg_result_error): was the COMMIT done? */
    if (rc == AM_IO && s->lost && s->txn == PG_TXN_WRITE) {
        if (s->xid[0]) rc = commit_outcome(s);
        else s->lost = PG_LOST_UNKNOWN; /* no id to ask by: never run again blindly */
    }
    /* a COMMIT of a failed transaction rolls it back */
    int committed = rc == AM_OK && PQtransactionStatus(s->conn) == PQTRANS_IDLE;
    if (committed && s->ob_lo) {
        if (!s->ob_done_lo) s->ob_done_lo = s->ob_lo;
        s->ob_done_hi = s->ob_hi;
    }
    s->ob_lo = s->ob_hi = 0;
    s->txn = PG_TXN_NONE;
    return rc;
}

static int pg_rollback(am__store *b)
{
    pg_store *s = PG(b);
    s->ob_lo = s->ob_hi = 0;
    deferred_clear(s);
    s->txn = PG_TXN_NONE;
    /* the pipeline's failure is the one rolled back: what the caller
     * failed with stays in s->err */
    char failed[sizeof s->err];
    snprintf(failed, sizeof failed, "%s", s->err);
    if (am__pg_pipe_leave(s)) snprintf(s->err, sizeof s->err, "%s", failed);
    /* a lost session's transaction is rolled back by the server already
     * (and s->err, s->lost keep what the failure was) */
    if (PQtransactionStatus(s->conn) == PQTRANS_IDLE || PQstatus(s->conn) != CONNECTION_OK)
        return AM_OK;
    return am__pg_simple(s, "rollback", "ROLLBACK");
}

static int pg_begin_read(am__store *b)
{
    pg_store *s = PG(b);
    s->lost = PG_LOST_NONE;
    int rc = am__pg_simple(s, "begin read", "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    if (!rc) s->txn = PG_TXN_READ;
    return rc;
}

static int pg_end_read(am__store *b)
{
    pg_store *s = PG(b);
    s->txn = PG_TXN_NONE;
    if (PQtransactionStatus(s->conn) == PQTRANS_IDLE) return AM_OK;
    return am__pg_simple(s, "end read", "COMMIT");
}

static int pg_search_begin(am__store *b)
{
    pg_store *s = PG(b);
    if (s->search_depth++) return AM_OK;
    /* the outermost: its snapshot begun at depth 0, where a lost
     * connection is made again (reconnect, retry_lost) */
    s->search_depth = 0;
    if (s->txn == PG_TXN_NONE) s->lost = PG_LOST_NONE;
    reconnect(s);
    if (PQstatus(s->conn) != CONNECTION_OK) {
        return am__pg_result_error(s, "search", NULL);
    }
    s->search_own = PQtransactionStatus(s->conn) == PQTRANS_IDLE;
    int rc = s->search_own
                 ? am__pg_simple(s, "search", "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                 : AM_OK;
    if (!rc) s->search_depth = 1;
    return rc;
}

static int pg_search_end(am__store *b, int rc)
{
    pg_store *s = PG(b);
    if (s->search_depth == 0) return rc ? rc : AM_MISUSE;
    if (--s->search_depth || !s->search_own) return rc;
    if (rc && PQstatus(s->conn) != CONNECTION_OK) return rc; /* rolled back with the session */
    int end = am__pg_simple(s, "search", rc ? "ROLLBACK" : "COMMIT");
    return rc ? rc : end;
}

/* store.h begin and end: the transaction of that mode */
static int pg_begin_mode(am__store *b, int mode, const char *const *uids, size_t n)
{
    switch (mode) {
    case AM__TX_WRITE: return pg_begin(b);
    case AM__TX_TRY: return pg_try_begin(b);
    case AM__TX_READ: return pg_begin_read(b);
    case AM__TX_SEARCH: return pg_search_begin(b);
    case AM__TX_LOCK: return am__pg_lock_users(b, uids, n);
    default: return AM_MISUSE;
    }
}
static int pg_end(am__store *b, int how, int rc)
{
    switch (how) {
    case AM__TX_COMMIT: return pg_commit(b);
    case AM__TX_ROLLBACK: return pg_rollback(b);
    case AM__TX_END_READ: return pg_end_read(b);
    case AM__TX_END_SEARCH: return pg_search_end(b, rc);
    default: return AM_MISUSE;
    }
}

/* A call failed: run it again?  Only when its connection was lost and
 * nothing of it was committed (or it is idempotent, when the outcome of
 * its COMMIT is unknown), outside any transaction, within busy_ms of its
 * first failure, and once the connection is back. */
static int pg_retry(am__store *b, int idempotent, int64_t *t0)
{
    pg_store *s = PG(b);
    if (s->lost == PG_LOST_NONE || (s->lost == PG_LOST_UNKNOWN && !idempotent) ||
        s->txn != PG_TXN_NONE || s->search_depth)
        return 0;
    int64_t now = mono_ms();
    if (!*t0) *t0 = now;
    if (now - *t0 >= s->busy_ms) return 0;
    char failed[sizeof s->err];
    snprintf(failed, sizeof failed, "%s", s->err);
    if (!reconnect_until(s, *t0 + s->busy_ms)) {
        char why[sizeof s->err];
        snprintf(why, sizeof why, "%s", s->err);
        snprintf(s->err, sizeof s->err,
                 "%.300s (the store stayed unreachable for %d ms, busy_timeout_ms: %.200s)",
                 failed, s->busy_ms, why);
        return -1;
    }
    s->lost = PG_LOST_NONE;
    s->retries++;
    return 1;
}

static int pg_health(am__store *b, int ping, long *reconnects, long *retries)
{
    pg_store *s = PG(b);
    *reconnects = s->reconnects;
    *retries = s->retries;
    if (!ping) return PQstatus(s->conn) == CONNECTION_OK ? AM_OK : AM_IO;
    if (s->txn != PG_TXN_NONE || s->search_depth) return AM_MISUSE;
    int rc = am__pg_simple(s, "ping", "SELECT 1");
    *reconnects = s->reconnects;
    return rc;
}

/* Planner statistics; PostgreSQL's own vacuum keeps the files. */
/* The vault's upkeep (pg_vault.c) in a transaction of its own, then the
 * planner's statistics. */
static int pg_optimize(am__store *b)
{
    long sealed = 0, hashed = 0;
    int rc = am__store_begin(b);
    if (rc) return rc;
    if ((rc = am__pg_vault_upkeep(PG(b), &sealed, &hashed))) {
        am__store_rollback(b);
        return rc;
    }
    if ((rc = am__store_commit(b))) return rc;
    return am__pg_simple(PG(b), "optimize", "ANALYZE");
}

static int pg_item_tokens_fill(am__store *b,
                               int (*fn)(void *ctx, const char *text, const char *key,
                                         unsigned char *blob, size_t *len),
                               void *ctx, size_t *n)
{
    pg_store *s = PG(b);
    *n = 0;
    int rc = lock_write(s, 1);
    if (rc || (rc = am__pg_lock_all(s))) return rc;
    PGresult *r = am__pg_run(s, "item tokens",
                             "SELECT user_id, rid, text, key FROM memory_items WHERE tokens IS NULL"
                             " ORDER BY rid", NULL);
    if (!r) rc = s->rc;
    for (int i = 0; !rc && i < PQntuples(r); i++) {
        unsigned char blob[1024];
        size_t len = sizeof blob;
        if ((rc = fn(ctx, PQgetvalue(r, i, 2), PQgetvalue(r, i, 3), blob, &len))) break;
        pg_args a = {0};
        am__pg_arg_bytes(&a, blob, len);
        am__pg_arg_text(&a, PQgetvalue(r, i, 0));
        am__pg_arg_text(&a, PQgetvalue(r, i, 1));
        rc = am__pg_exec(s, "item tokens",
                         "UPDATE memory_items SET tokens = $1 WHERE user_id = $2 AND rid = $3::bigint",
                         &a, NULL);
        if (!rc) (*n)++;
    }
    PQclear(r);
    if (rc) {
        pg_rollback(b);
        return rc;
    }
    return pg_commit(b);
}

/* Everything of user $1 becomes user $2's (the SQLite store's
 * user_merge, store/sqlite/users.c): a task both have becomes the
 * master's row with the other's artifacts, pending decisions and notes
 * appended and the later status and stage, their histories joined; a
 * workspace entry both have keeps the newer.  Rows move to $2's
 * partition; the index totals to its slot.  The
 * audit log keeps what happened under the id it happened to. */
static int pg_user_merge(am__store *b, const char *from, const char *to)
{
/* the scopes of the rule packs the user merged into has */
#define PACK_SCOPES "SELECT 'pack:' || key FROM records WHERE user_id = $2 AND ns = '" AM__REC_PACK "'"
#define PG_JSON_JOIN(col)                                                                   \
    " " col " = (SELECT coalesce(json_agg(x.v ORDER BY x.k, x.o), '[]'::json)::text FROM"  \
    " (SELECT 0 AS k, a.o, a.v FROM json_array_elements(t." col "::json) WITH ORDINALITY AS a(v, o)" \
    "  UNION ALL SELECT 1, c.o, c.v FROM json_array_elements(f." col "::json)"             \
    "  WITH ORDINALITY AS c(v, o)) x)"
    static const char *const sql[] = {
        ("UPDATE tasks AS t SET" PG_JSON_JOIN("artifacts") "," PG_JSON_JOIN("pending") ","
         PG_JSON_JOIN("notes") ","
         " stage = CASE WHEN f.updated_at > t.updated_at THEN f.stage ELSE t.stage END,"
         " status = CASE WHEN f.updated_at > t.updated_at THEN f.status ELSE t.status END,"
         " created_at = least(t.created_at, f.created_at),"
         " updated_at = greatest(t.updated_at, f.updated_at)"
         " FROM tasks AS f WHERE f.user_id = $1 AND t.user_id = $2 AND f.task_id = t.task_id"),
        ("DELETE FROM tasks WHERE user_id = $1 AND task_id IN"
         " (SELECT task_id FROM tasks WHERE user_id = $2)"),
        "UPDATE tasks SET user_id = $2 WHERE user_id = $1",
        "UPDATE task_history SET user_id = $2 WHERE user_id = $1",
        ("DELETE FROM task_workspace AS f WHERE f.user_id = $1 AND EXISTS (SELECT 1 FROM"
         " task_workspace t WHERE t.user_id = $2 AND t.task_id = f.task_id"
         " AND t.agent_id = f.agent_id AND t.updated_at >= f.updated_at)"),
        ("DELETE FROM task_workspace WHERE user_id = $2 AND (task_id, agent_id) IN"
         " (SELECT task_id, agent_id FROM task_workspace WHERE user_id = $1)"),
        "UPDATE task_workspace SET user_id = $2 WHERE user_id = $1",
        /* a rule pack both have stays the one the user merged into has */
        ("DELETE FROM item_heat WHERE user_id = $1 AND lineage_id IN (SELECT lineage_id FROM"
         " memory_items WHERE user_id = $1 AND scope IN (" PACK_SCOPES "))"),
        ("DELETE FROM item_sources WHERE user_id = $1 AND item_rid IN (SELECT rid FROM memory_items"
         " WHERE user_id = $1 AND scope IN (" PACK_SCOPES "))"),
        "DELETE FROM memory_items WHERE user_id = $1 AND scope IN (" PACK_SCOPES ")",
        ("DELETE FROM records WHERE user_id = $1 AND ns = '" AM__REC_PACK "' AND key IN"
         " (SELECT key FROM records WHERE user_id = $2 AND ns = '" AM__REC_PACK "')"),
        "UPDATE records SET user_id = $2 WHERE user_id = $1 AND ns = '" AM__REC_PACK "'",
        "UPDATE events SET user_id = $2 WHERE user_id = $1",
        "UPDATE postings SET user_id = $2 WHERE user_id = $1",
        "UPDATE event_vectors SET user_id = $2 WHERE user_id = $1",
        "UPDATE entities SET user_id = $2 WHERE user_id = $1",
        /* (its value hashes named the old id: none until optimize) */
        "UPDATE pii_vault SET user_id = $2, canon_hash = NULL WHERE user_id = $1",
        "UPDATE memory_items SET user_id = $2 WHERE user_id = $1",
        "UPDATE item_sources SET user_id = $2 WHERE user_id = $1",
        "UPDATE item_heat SET user_id = $2 WHERE user_id = $1",
        "UPDATE tombstones SET user_id = $2 WHERE user_id = $1",
        "UPDATE memory_events SET user_id = $2 WHERE user_id = $1",
        "UPDATE identity_links SET user_id = $2 WHERE user_id = $1",
        ("UPDATE users SET n_events = (SELECT count(*) FROM events e WHERE e.user_id = $2)"
         " WHERE user_id = $2 AND $1::text IS NOT NULL"),
        "DELETE FROM users WHERE user_id = $1",
    };
#undef PG_JSON_JOIN
    pg_store *s = PG(b);
    if (am__pg_lock_all(s)) return s->rc;
    char slot_from[16], slot_to[16];
    snprintf(slot_from, sizeof slot_from, "%d", am__pg_slot(from));
    snprintf(slot_to, sizeof slot_to, "%d", am__pg_slot(to));
    /* the index totals of from's rows move to to's slot */
    pg_args t = {0};
    am__pg_arg_text(&t, from);
    am__pg_arg_text(&t, slot_from);
    am__pg_arg_text(&t, slot_to);
    int rc = am__pg_exec(s, "merge users",
                         "UPDATE index_totals t SET"
                         " n_rows = t.n_rows + x.n * CASE WHEN t.slot = $2::integer THEN -1 ELSE 1 END,"
                         " len0 = t.len0 + x.l0 * CASE WHEN t.slot = $2::integer THEN -1 ELSE 1 END,"
                         " len1 = t.len1 + x.l1 * CASE WHEN t.slot = $2::integer THEN -1 ELSE 1 END"
                         " FROM (SELECT count(*) AS n, coalesce(sum(len0), 0) AS l0,"
                         " coalesce(sum(len1), 0) AS l1 FROM events WHERE user_id = $1) x"
                         " WHERE t.slot IN ($2::integer, $3::integer) AND $2::integer <> $3::integer",
                         &t, NULL);
    for (size_t i = 0; i < sizeof sql / sizeof *sql && !rc; i++) {
        pg_args a = {0};
        am__pg_arg_text(&a, from);
        if (strstr(sql[i], "$2")) am__pg_arg_text(&a, to); /* (an unused one has no type) */
        rc = am__pg_exec(s, "merge users", sql[i], &a, NULL);
    }
    return rc;
}

/* the store's tag (store.h): hex(HMAC-SHA256(meta forget_key, "am-store-tag")) */
static int pg_store_tag(am__store *b, unsigned char out[32])
{
    pg_store *s = (pg_store *)b;
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int mn = 0;
    static const char what[] = "am-store-tag";
    if (!s->forget_key[0] || !HMAC(EVP_sha256(), s->forget_key, (int)strlen(s->forget_key),
                                   (const unsigned char *)what, sizeof what - 1, mac, &mn) || mn < 32)
        return am__pg_fail(s, AM_CORRUPT, "postgres: the store's forget_key is missing");
    memcpy(out, mac, 32);
    return AM_OK;
}

/* the store's keyed hashes (store.h control, AM__CTL_KEY_HASH): the forget key's bytes */
static int pg_key_hash(am__store *b, const char *const *parts, size_t n, unsigned char out[32])
{
    if (!parts) return pg_store_tag(b, out);
    pg_store *s = (pg_store *)b;
    unsigned char key[32];
    for (int i = 0; i < 32; i++) {
        int hi = am__hexval(s->forget_key[2 * i]), lo = hi < 0 ? -1 : am__hexval(s->forget_key[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return am__pg_fail(s, AM_CORRUPT, "postgres: the store's forget_key is malformed");
        key[i] = (unsigned char)(hi << 4 | lo);
    }
    int rc = am__store_hmac_parts(key, sizeof key, parts, n, out);
    am__vault_key_wipe(key, sizeof key);
    return rc ? am__pg_fail(s, rc, "postgres: HMAC-SHA256 failed (an id too long?)") : AM_OK;
}

/* store.h control. */
static int pg_control(am__store *b, int op, void *arg)
{
    am__ctl_retry *r = arg;
    am__ctl_health *h = arg;
    am__ctl_tokens_fill *fill = arg;
    am__ctl_key_hash *kh = arg;
    switch (op) {
    case AM__CTL_RETRY: r->again = pg_retry(b, r->idempotent, r->t0_ms); return AM_OK;
    case AM__CTL_HEALTH: return pg_health(b, h->ping, &h->reconnects, &h->retries);
    case AM__CTL_OPTIMIZE: return pg_optimize(b);
    case AM__CTL_TOKENS_FILL: return pg_item_tokens_fill(b, fill->fn, fill->ctx, &fill->n);
    case AM__CTL_KEY_HASH: return pg_key_hash(b, kh->parts, kh->n, kh->out);
    default: return AM_NOTFOUND;
    }
}

static const am__store_vt postgres_vt = {
    .name = "postgres",
    .close = pg_close,
    .errmsg = pg_errmsg,
    .tx.begin = pg_begin_mode,
    .tx.end = pg_end,
    .users.user_put = am__pg_user_put,
    .users.user_stat = am__pg_user_stat,
    .users.link_put = am__pg_link_put,
    .users.link_get = am__pg_link_get,
    .users.links_list = am__pg_links_list,
    .users.users_list = am__pg_users_list,
    .users.user_merge = pg_user_merge,
    .events.event_put = am__pg_event_put,
    .vectors.vec_put = am__pg_vec_put,
    .vectors.vec_scan = am__pg_vec_scan,
    .vectors.vec_missing = am__pg_vec_missing,
    .events.event_part_put = am__pg_event_part_put,
    .events.event_get = am__pg_event_get,
    .postings.user_rows = am__pg_user_rows,
    .postings.term_docs = am__pg_term_docs,
    .postings.postings = am__pg_postings,
    .events.rows_get = am__pg_rows_get,
    .events.events_scan = am__pg_events_scan,
    .events.entities = am__pg_entities,
    .tasks.task_put = am__pg_task_put,
    .tasks.task_log = am__pg_task_log,
    .tasks.tasks_list = am__pg_tasks_list,
    .items.item_insert = am__pg_item_insert,
    .items.item_update = am__pg_item_update,
    .items.items_list = am__pg_items_list,
    .items.item_heat = am__pg_item_heat,
    .forget.forget_mark = am__pg_forget_mark,
    .forget.forget_delete = am__pg_forget_delete,
    .forget.forget_step = am__pg_forget_step,
    .forget.forget_grace = am__pg_forget_grace,
    .forget.restore_forget = am__pg_restore_forget,
    .forget.forget_jobs = am__pg_forget_jobs,
    .log.log_put = am__pg_log_put,
    .log.log_page = am__pg_log_page,
    .log.outbox_trim = am__pg_outbox_trim,
    .workspace.workspace_list = am__pg_workspace_list,
    .workspace.workspace_put = am__pg_workspace_put,
    .cold.cold_put = am__pg_cold_put,
    .control = pg_control,
    .records.rec_put = am__pg_rec_put,
    .records.rec_list = am__pg_rec_list,
    .records.rec_del = am__pg_rec_del,
};

/* The server's notices (a ROLLBACK with nothing to roll back after a
 * reconnect) are not errors: not printed. */
static void notice_drop(void *ctx, const char *msg)
{
    (void)ctx;
    (void)msg;
}

/* The URL without its password, for messages. */
static void url_shown(const char *url, char *out, size_t cap)
{
    const char *scheme = strstr(url, "://");
    const char *at = scheme ? strchr(scheme + 3, '@') : NULL;
    const char *colon = scheme && at ? memchr(scheme + 3, ':', (size_t)(at - scheme - 3)) : NULL;
    if (colon) snprintf(out, cap, "%.*s:***%s", (int)(colon - url), url, at);
    else snprintf(out, cap, "%s", url);
}

int am__store_postgres_open(const char *url, const am__store_opts *o, am__store **out,
                            char *errbuf, size_t errlen)
{
    *out = NULL;
    char shown[256];
    url_shown(url, shown, sizeof shown);
    pg_store *s = am__calloc(o->alloc, sizeof *s);
    if (!s) {
        snprintf(errbuf, errlen, "out of memory");
        return AM_NOMEM;
    }
    s->base.vt = &postgres_vt;
    s->a = o->alloc;
    am__arena_init(&s->ob_ar, s->a);
    s->busy_ms = o->busy_timeout_ms > 0 ? o->busy_timeout_ms : 5000;
    s->ob_max_rows = o->events_max_rows;
    s->ob_max_age_ms = o->events_max_age_ms;
    int rc = AM_OK;
    s->conn = PQconnectdb(url);
    if (!s->conn || PQstatus(s->conn) != CONNECTION_OK) {
        const char *m = s->conn ? PQerrorMessage(s->conn) : "out of memory";
        size_t n = strlen(m);
        while (n && (m[n - 1] == '\n' || m[n - 1] == ' ')) n--;
        snprintf(errbuf, errlen, "store %s: cannot connect: %.*s", shown, (int)n, m);
        rc = AM_IO;
        goto out_fail;
    }
    PQsetNoticeProcessor(s->conn, notice_drop, NULL);
    s->generation = 1;
    if ((rc = am__pg_simple(s, "settings",
                            PG_SESSION_SETTINGS)) ||
        (rc = am__text_open(s->a, &s->ptext)) || (rc = am__pg_migrate(s, o->must_exist)) ||
        (rc = am__pg_vault_keys(s, o->vault_key))) {
        snprintf(errbuf, errlen, "store %s: %s", shown, rc == AM_NOMEM ? "out of memory" : s->err);
        goto out_fail;
    }
    *out = &s->base;
    return AM_OK;
out_fail:
    pg_close(&s->base);
    return rc;
}
