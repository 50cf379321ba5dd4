/* SPDX-License-Identifier: Apache-2.0 */
/*
 * server.c -- `agentmem serve`: libmicrohttpd (MHD) around the router.
 *
 * Workers: MHD's thread pool (opts.threads threads, each polling its own
 * connections and running their requests).  A request takes a store
 * handle from the pool (pool.c: am__srv_db_get) for as long as it runs: am_db is
 * one thread's at a time, and opening one costs a store open and the text
 * analyzer's setup, so handles are opened on first need and reused (each
 * keeps its caches warm); they share the store file (SQLite WAL; writers
 * take turns through the busy handler, docs/internals/CONTENTION.md).
 *
 * Bodies: a Content-Length over opts.max_body is refused (413) before the
 * body is read; a chunked body is counted as it comes and refused once it
 * passes the limit (the rest is read and dropped).  Idle connections are
 * closed after opts.timeout_s; a connection whose request head is not
 * complete opts.header_timeout_s after its accept is shut down by the
 * sweeper thread (a trickle of bytes keeps MHD's idle timeout away);
 * opts.max_conns_per_ip connections at once per address.
 *
 * Export: a thread of its own runs am_export_stream into a spool (memory,
 * then an unlinked temporary file) that MHD reads, so the store handle and
 * its read snapshot are given back as soon as the document is whole, and
 * no worker waits on the client.  The status is known
 * before the first byte: the request waits (EXPORT_START_WAIT_S at most)
 * for the export's first piece or its end (an unknown user: 404 and
 * nothing streamed).  Exports and streams hold slots (limits.c).
 *
 * Shutdown: SIGTERM and SIGINT are blocked in every thread and taken by
 * sigwait in the main one; then MHD stops accepting (quiesce), the
 * requests accepted get SHUTDOWN_GRACE_MS to end, what still runs is cut
 * (no connection left suspended), MHD stops, the handles close: the
 * process is gone within 5 s whatever its clients do.  A write is
 * committed before its reply is made, so every acknowledged write is in
 * the store.
 *
 * Wiring: the server is the top of tools/server (srv_int.h lists the
 * order): it gives the router its route table (route_table.c) and the
 * metrics the routes' names; nothing it calls calls back into it.
 */
#define _DEFAULT_SOURCE /* SO_REUSEPORT, SOCK_NONBLOCK */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "srv_int.h"
#include "router.h"
#include "writer.h"
#include "plural.h"

void am_server_opts_init(am_server_opts *o)
{
    memset(o, 0, sizeof *o);
    o->listen = "127.0.0.1:8420";
    o->threads = 4;
    o->max_body = 1 << 20;
    o->timeout_s = 30;
    o->header_timeout_s = 10;
    o->max_conns_per_ip = 128;
}

/* ------------------------------------------------------------ handle pool (pool.c) */

/* Wait until every handle is back and every stream has ended, or until
 * deadline (CLOCK_REALTIME; NULL: no limit), then close the handles that
 * are back (but the caller's): 0, or 1 when some were still in use (a
 * thread still runs with them: the server's state must outlive it) */
static int pool_close(am_srv *s, const struct timespec *deadline)
{
    int late = 0;
    pthread_mutex_lock(&s->pool_mu);
    while (s->n_free < s->n_open || s->n_streams > 0)
        if (!deadline) pthread_cond_wait(&s->pool_cv, &s->pool_mu);
        else if (pthread_cond_timedwait(&s->pool_cv, &s->pool_mu, deadline) == ETIMEDOUT) {
            late = 1;
            break;
        }
    if (late)
        fprintf(stderr, "agentmem serve: %d store handles and %d streams still in use at the"
                        " shutdown's end; exiting without them\n", s->n_open - s->n_free,
                s->n_streams);
    for (int i = 0; i < s->n_free; i++)
        if (s->pool[i] != s->borrowed) am_close(s->pool[i]);
    s->n_open -= s->n_free;
    s->n_free = 0;
    pthread_mutex_unlock(&s->pool_mu);
    return late;
}

/* ------------------------------------------------------------ requests */

/* A connection waiting for a request head (watched by the sweeper) */
typedef struct conn_watch {
    struct conn_watch *prev, *next;
    MHD_socket fd;
    double since;  /* when it began to wait for a request head */
    double limit;  /* the seconds it may wait for it */
    int waiting;   /* no complete head since `since` */
} conn_watch;

typedef struct server {
    am_srv srv;
    struct MHD_Daemon *d;
    pthread_mutex_t mu;
    pthread_cond_t idle;
    long in_flight;
    int closing; /* SIGTERM: a request not begun yet is refused, not queued */
    /* the header deadline: every connection, and a thread that ends the
     * ones whose request head is late */
    pthread_mutex_t watch_mu;
    pthread_cond_t watch_cv;
    conn_watch *watched;
    int sweeper_stop;
    pthread_t sweeper;
} server;

static double mono_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* MHD_OPTION_NOTIFY_CONNECTION: a connection's watch, from its accept to
 * its close (the socket is closed after this is told, so the sweeper
 * never touches a descriptor that another connection has taken) */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    server *sv = cls;
    conn_watch *w = *socket_context;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (!ci || !(w = calloc(1, sizeof *w))) return; /* unwatched: its idle timeout only */
        w->fd = ci->connect_fd;
        w->since = mono_now();
        w->limit = (double)sv->srv.opts.header_timeout_s;
        w->waiting = 1;
        pthread_mutex_lock(&sv->watch_mu);
        w->next = sv->watched;
        if (w->next) w->next->prev = w;
        sv->watched = w;
        pthread_mutex_unlock(&sv->watch_mu);
        *socket_context = w;
        return;
    }
    if (!w) return;
    pthread_mutex_lock(&sv->watch_mu);
    if (w->prev) w->prev->next = w->next;
    else sv->watched = w->next;
    if (w->next) w->next->prev = w->prev;
    pthread_mutex_unlock(&sv->watch_mu);
    free(w);
    *socket_context = NULL;
}

/* A request head complete (waiting 0), or a reply done on a kept-alive
 * connection (waiting 1: the next head within the idle timeout) */
static void watch_mark(server *sv, struct MHD_Connection *conn, int waiting)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    conn_watch *w = ci ? ci->socket_context : NULL;
    if (!w) return;
    pthread_mutex_lock(&sv->watch_mu);
    w->waiting = waiting;
    w->since = mono_now();
    w->limit = (double)sv->srv.opts.timeout_s;
    pthread_mutex_unlock(&sv->watch_mu);
}

/* The sweeper: four times a second, a connection past its head's deadline
 * is shut down (its worker then reads the end and closes it; a connection
 * that trickles a byte now and then never reaches MHD's idle timeout);
 * the refusal log's count flushed */
static void *sweeper_main(void *arg)
{
    server *sv = arg;
    pthread_mutex_lock(&sv->watch_mu);
    while (!sv->sweeper_stop) {
        struct timespec next;
        clock_gettime(CLOCK_REALTIME, &next);
        next.tv_nsec += 250000000L;
        next.tv_sec += next.tv_nsec / 1000000000L;
        next.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&sv->watch_cv, &sv->watch_mu, &next);
        double now = mono_now();
        int cut = 0;
        for (conn_watch *w = sv->watched; w; w = w->next)
            if (w->waiting && now - w->since > w->limit) {
                shutdown(w->fd, SHUT_RDWR);
                w->waiting = 0;
                cut++;
            }
        pthread_mutex_unlock(&sv->watch_mu);
        if (cut)
            am__srv_log(&sv->srv, "closed %d %s that sent no complete request head in"
                        " time (--header-timeout %ld s)", cut,
                        am_plural(cut, "connection", "connections"), sv->srv.opts.header_timeout_s);
        am__srv_log_flush(&sv->srv);
        pthread_mutex_lock(&sv->watch_mu);
    }
    pthread_mutex_unlock(&sv->watch_mu);
    return NULL;
}

/* MHD_OPTION_EXTERNAL_LOGGER: MHD's lines (a refused connection each)
 * through the rate-limited log */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    server *sv = cls;
    am__srv_vlog(&sv->srv, fmt, ap);
}

/* A query value %-decoded (the path and the query reach on_request raw:
 * the router decodes the path's segments itself, so an escaped "/" stays
 * in its segment); kept until the request ends */
typedef struct query_val {
    struct query_val *next;
    char text[];
} query_val;

typedef struct conn_req {
    struct MHD_Connection *conn;
    query_val *decoded;
    struct timespec t0;
    char *body;
    size_t len, cap;
    int too_large;
    int route, status;
    struct srv_pending *pending; /* a write queued: the connection is suspended */
    int answered;                /* a reply given to MHD_queue_response */
} conn_req;

static double since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static const char *header_get(void *ctx, const char *name)
{
    conn_req *r = ctx;
    return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

/* MHD's unescape callback: nothing (the router and query_get decode) */
static size_t keep_raw(void *cls, struct MHD_Connection *conn, char *s)
{
    (void)cls;
    (void)conn;
    return strlen(s);
}

/* ?key= %-decoded ("+" is already a blank: MHD turns it before the
 * unescape callback); a malformed escape stays as it is */
static const char *query_get(void *ctx, const char *key)
{
    conn_req *r = ctx;
    const char *raw = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, key);
    if (!raw) return NULL;
    size_t len = strlen(raw);
    query_val *v = malloc(sizeof *v + len + 1);
    if (!v) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        int hi = raw[i] == '%' && i + 2 < len ? am__srv_hex(raw[i + 1]) : -1;
        int lo = hi >= 0 ? am__srv_hex(raw[i + 2]) : -1;
        if (lo >= 0 && (hi | lo)) { /* %00 stays: no value is cut short */
            v->text[n++] = (char)(hi * 16 + lo);
            i += 2;
        } else v->text[n++] = raw[i];
    }
    v->text[n] = '\0';
    v->next = r->decoded;
    r->decoded = v;
    return v->text;
}

/* the i-th ?key's name (the router refuses a name a route does not take) */
typedef struct key_walk {
    int want, at;
    const char *name;
} key_walk;

static enum MHD_Result key_at(void *cls, enum MHD_ValueKind kind, const char *key,
                              const char *value)
{
    key_walk *w = cls;
    (void)kind;
    (void)value;
    if (w->at++ == w->want) {
        w->name = key;
        return MHD_NO;
    }
    return MHD_YES;
}

static const char *query_key_get(void *ctx, int i)
{
    conn_req *r = ctx;
    key_walk w = {i, 0, NULL};
    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, key_at, &w);
    return w.name;
}

static enum MHD_Result send_reply(struct MHD_Connection *conn, conn_req *r, srv_reply *rp)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        rp->body_len, rp->body ? rp->body : (char *)"", rp->body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        free(rp->body);
        return MHD_NO;
    }
    rp->body = NULL;
    MHD_add_response_header(resp, "Content-Type", rp->content_type ? rp->content_type : "application/json");
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    if (rp->next_cursor[0]) MHD_add_response_header(resp, "X-Next-Cursor", rp->next_cursor);
    if (rp->retry_after) {
        char ra[16];
        snprintf(ra, sizeof ra, "%d", rp->retry_after);
        MHD_add_response_header(resp, "Retry-After", ra);
    }
    if (rp->status == 401) MHD_add_response_header(resp, "WWW-Authenticate", "Bearer");
    if (rp->csp) { /* the inspector's page: no framing, no referrer (docs/INSPECTOR.md) */
        MHD_add_response_header(resp, "Content-Security-Policy", rp->csp);
        MHD_add_response_header(resp, "X-Frame-Options", "DENY");
        MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
    }
    r->status = rp->status;
    r->answered = 1;
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)rp->status, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* A streamed response (resp taken) queued with status 200 */
static enum MHD_Result queue_stream(struct MHD_Connection *conn, conn_req *r,
                                    struct MHD_Response *resp, const char *ctype)
{
    MHD_add_response_header(resp, "Content-Type", ctype);
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    r->status = 200;
    r->answered = 1;
    enum MHD_Result ret = MHD_queue_response(conn, 200, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* ---- the streamed export
 *
 * A thread of its own runs am_export_stream with the request's handle into
 * a spool -- memory up to EXPORT_MEM_MAX, then an unlinked temporary file
 * (0600, in $TMPDIR or /tmp) -- as fast as the store gives it, and gives
 * the handle back as soon as the document is whole: a client that reads
 * slowly or not at all never holds a store handle, nor the read snapshot
 * of one (a snapshot held open keeps SQLite's write-ahead log from being
 * reset, and every other tenant's reads and writes slow down while it
 * grows).  MHD sends from the spool through a content reader, the
 * connection suspended while the reader has caught up with the thread.
 * The export's slot is held until the response ends: a tenant's stalled
 * exports count against its cap until MHD's idle timeout (--timeout)
 * closes them.  The response ends, and the spool is closed, when it is
 * sent, when the client goes, when MHD times it out, at shutdown, and when
 * the user is forgotten meanwhile (am__srv_exports_cut_user).  An export
 * that stops before its end ends the response with an error (no final
 * chunk): a client never mistakes a part for the whole. */
#define EXPORT_MEM_MAX (1024 * 1024)
#define EXPORT_START_WAIT_S 5 /* the first piece (the status), before a 503 */
typedef struct export_job {
    am_srv *srv;
    am_db *db;
    struct MHD_Connection *conn;
    char user[AM_ID_MAX + 1];
    int slot;
    pthread_mutex_t mu;
    pthread_cond_t cv;           /* started or finished (the worker) */
    char *buf;                   /* the spool's memory: buf[off..len) unsent */
    size_t off, len, cap;
    int fd;                      /* the spool's file once memory is full, or -1 */
    uint64_t file_len, file_off; /* written to the file; sent from it */
    int started, finished, broken, rc;
    int suspended, gone, cut, refs;
    char err[512];
} export_job;

static void export_unref(export_job *j)
{
    pthread_mutex_lock(&j->mu);
    int last = --j->refs == 0;
    pthread_mutex_unlock(&j->mu);
    if (!last) return;
    am__srv_slot_put(j->srv, j->slot); /* before the job is let go (am__srv_slots_cut) */
    if (j->fd >= 0) close(j->fd);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    free(j->buf);
    free(j);
}

/* Under j->mu: the reader called again (it suspended on an empty spool) */
static void export_wake(export_job *j)
{
    if (j->suspended && !j->gone) {
        j->suspended = 0;
        MHD_resume_connection(j->conn);
    }
}

/* An unlinked temporary file for the spool, or -1 */
static int spool_file(void)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/agentmem-export-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd >= 0) unlink(path);
    return fd;
}

/* Only the export's thread writes the spool; the reader sends what is
 * published under j->mu (len, file_len). */
static int export_write(void *ctx, const char *data, size_t len)
{
    export_job *j = ctx;
    pthread_mutex_lock(&j->mu);
    if (!j->started) {
        j->started = 1;
        pthread_cond_broadcast(&j->cv);
    }
    int stop = j->gone || j->cut, to_file = j->fd >= 0;
    if (!stop && !to_file && j->len - j->off + len > EXPORT_MEM_MAX) {
        if ((j->fd = spool_file()) < 0) {
            stop = 1;
            snprintf(j->err, sizeof j->err, "export: no temporary file for the spool: %s",
                     strerror(errno));
        } else to_file = 1;
    }
    if (!stop && !to_file) {
        if (j->off && j->off == j->len) j->off = j->len = 0;
        if (j->len + len > j->cap) {
            size_t cap = j->cap ? j->cap : 16384;
            while (cap < j->len + len) cap *= 2;
            char *p = realloc(j->buf, cap);
            if (p) {
                j->buf = p;
                j->cap = cap;
            } else stop = 1;
        }
        if (!stop) {
            memcpy(j->buf + j->len, data, len);
            j->len += len;
            export_wake(j);
        }
    }
    uint64_t at = j->file_len;
    pthread_mutex_unlock(&j->mu);
    if (stop || !to_file) return stop;
    /* the file: written outside the lock (the reader reads below file_len) */
    size_t done = 0;
    while (done < len) {
        ssize_t n = pwrite(j->fd, data + done, len - done, (off_t)(at + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            am__srv_log(j->srv, "export: the spool file could not be written: %s",
                        n < 0 ? strerror(errno) : "no room");
            return 1;
        }
        done += (size_t)n;
    }
    pthread_mutex_lock(&j->mu);
    j->file_len += len;
    export_wake(j);
    pthread_mutex_unlock(&j->mu);
    return 0;
}

static void *export_run(void *arg)
{
    export_job *j = arg;
    int rc = am_export_stream(j->db, j->user, export_write, j);
    if (!rc && export_write(j, "\n", 1)) rc = AM_ERROR;
    pthread_mutex_lock(&j->mu);
    j->rc = rc;
    if (!j->err[0]) snprintf(j->err, sizeof j->err, "%s", rc ? am_errmsg(j->db) : "");
    pthread_mutex_unlock(&j->mu);
    am__srv_db_put(j->srv, j->db); /* the handle back now: the rest is the spool's */
    pthread_mutex_lock(&j->mu);
    j->db = NULL;
    j->finished = 1;
    j->broken = rc != 0;
    export_wake(j);
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
    export_unref(j);
    return NULL;
}

static ssize_t export_read(void *cls, uint64_t pos, char *out, size_t max)
{
    (void)pos;
    export_job *j = cls;
    pthread_mutex_lock(&j->mu);
    ssize_t n = (ssize_t)(j->len - j->off < max ? j->len - j->off : max);
    if (j->cut) n = MHD_CONTENT_READER_END_WITH_ERROR;
    else if (n) {
        memcpy(out, j->buf + j->off, (size_t)n);
        j->off += (size_t)n;
    } else if (j->file_off < j->file_len) {
        uint64_t at = j->file_off, left = j->file_len - j->file_off;
        int fd = j->fd;
        pthread_mutex_unlock(&j->mu);
        ssize_t got;
        do got = pread(fd, out, left < max ? (size_t)left : max, (off_t)at);
        while (got < 0 && errno == EINTR);
        pthread_mutex_lock(&j->mu);
        if (got > 0) {
            j->file_off += (uint64_t)got;
            n = got;
        } else n = MHD_CONTENT_READER_END_WITH_ERROR;
    } else if (j->finished)
        n = j->broken ? MHD_CONTENT_READER_END_WITH_ERROR : MHD_CONTENT_READER_END_OF_STREAM;
    else {
        j->suspended = 1;
        MHD_suspend_connection(j->conn);
    }
    pthread_mutex_unlock(&j->mu);
    return n;
}

static void export_free(void *cls)
{
    export_job *j = cls;
    pthread_mutex_lock(&j->mu);
    j->gone = 1; /* the connection is gone: never resumed again */
    j->suspended = 0;
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
    export_unref(j);
}

/* am__srv_slots_cut's (under pool_mu): the response ends now */
static void export_cut(void *job)
{
    export_job *j = job;
    pthread_mutex_lock(&j->mu);
    j->cut = 1;
    export_wake(j);
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
}

/* Start the export of rp->stream_user with db (handed over); queue its
 * response, or an error. */
static enum MHD_Result export_start(server *sv, struct MHD_Connection *conn, conn_req *r,
                                    srv_reply *rp, am_db *db)
{
    am_srv *s = &sv->srv;
    char why[256];
    int slot;
    int refused = am__srv_slot_take(s, SRV_SLOT_EXPORT, rp->stream_user, rp->stream_token, &slot,
                                    why, sizeof why);
    if (refused) {
        am__srv_db_put(s, db);
        am__srv_refused(rp, refused, why);
        return send_reply(conn, r, rp);
    }
    export_job *j = calloc(1, sizeof *j);
    if (!j) {
        am__srv_db_put(s, db);
        am__srv_slot_put(s, slot);
        am__srv_error(rp, "internal", NULL, "export: cannot start it");
        return send_reply(conn, r, rp);
    }
    j->srv = s;
    j->db = db;
    j->conn = conn;
    j->slot = slot;
    j->fd = -1;
    j->refs = 2; /* the thread's, and this worker's (then the response's) */
    snprintf(j->user, sizeof j->user, "%s", rp->stream_user);
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    am__srv_slot_cut_fn(s, slot, export_cut, j);
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &at, export_run, j) != 0) {
        pthread_attr_destroy(&at);
        am__srv_db_put(s, db);
        j->refs = 1; /* its slot goes with it */
        export_unref(j);
        am__srv_error(rp, "internal", NULL, "export: cannot start it");
        return send_reply(conn, r, rp);
    }
    pthread_attr_destroy(&at);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += EXPORT_START_WAIT_S;
    pthread_mutex_lock(&j->mu);
    while (!j->started && !j->finished && !j->cut &&
           pthread_cond_timedwait(&j->cv, &j->mu, &deadline) != ETIMEDOUT) {
    }
    int started = j->started, failed = !j->started && j->finished && j->rc, rc = j->rc;
    char err[512];
    snprintf(err, sizeof err, "%s", j->err);
    if (!started) j->gone = 1; /* no response: the thread stops at its first piece */
    pthread_mutex_unlock(&j->mu);
    if (!started) {
        export_unref(j);
        if (failed && rc == AM_NOTFOUND) am__srv_error(rp, "not_found", NULL, "%s", err);
        else if (failed && rc == AM_INVALID) am__srv_error(rp, "invalid_request", "user", "%s", err);
        else if (failed) am__srv_error(rp, "internal", NULL, "%s", err);
        else am__srv_error(rp, "busy", NULL, "export: it did not start within %d s; retry later",
                           EXPORT_START_WAIT_S);
        return send_reply(conn, r, rp);
    }
    struct MHD_Response *resp =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, export_read, j, export_free);
    if (!resp) {
        export_free(j);
        return MHD_NO;
    }
    return queue_stream(conn, r, resp, "application/json");
}

/* ---- GET /v1/stream (sse.c) */
static enum MHD_Result events_start(server *sv, struct MHD_Connection *conn, conn_req *r,
                                    srv_reply *rp)
{
    int refused;
    char why[256];
    struct MHD_Response *resp = am__srv_sse_start(&sv->srv, conn, rp, &refused, why, sizeof why);
    if (!resp) {
        if (refused) am__srv_refused(rp, refused, why);
        else am__srv_error(rp, "internal", NULL, "stream: cannot start it");
        return send_reply(conn, r, rp);
    }
    MHD_add_response_header(resp, "X-Accel-Buffering", "no");
    return queue_stream(conn, r, resp, "text/event-stream; charset=utf-8");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_size, void **con_cls)
{
    server *sv = cls;
    conn_req *r = *con_cls;
    if (!r) {
        if (!(r = calloc(1, sizeof *r))) return MHD_NO;
        clock_gettime(CLOCK_MONOTONIC, &r->t0);
        r->route = am__srv_route_find(&sv->srv, method, url);
        *con_cls = r;
        watch_mark(sv, conn, 0); /* its head is complete */
        pthread_mutex_lock(&sv->mu);
        sv->in_flight++;
        int closing = sv->closing;
        pthread_mutex_unlock(&sv->mu);
        if (closing) { /* (a kept-alive connection's next request after SIGTERM:
                        * never suspended, which MHD_stop_daemon would abort on) */
            srv_reply rp;
            memset(&rp, 0, sizeof rp);
            am__srv_error(&rp, "unavailable", NULL, "the server is stopping");
            return send_reply(conn, r, &rp);
        }
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
        if (cl && strtoull(cl, NULL, 10) > (unsigned long long)sv->srv.opts.max_body) {
            srv_reply rp;
            memset(&rp, 0, sizeof rp);
            am__srv_error(&rp, "payload_too_large", NULL, "the body is over %ld bytes",
                          sv->srv.opts.max_body);
            return send_reply(conn, r, &rp);
        }
        return MHD_YES;
    }
    /* Called again after a reply: MHD took none, which it does (MHD_YES)
     * once MHD_stop_daemon has begun -- a refusal made in the first call
     * after SIGTERM.  The request must not go on to run (a write would be
     * queued for writers that are gone, its connection suspended, and
     * MHD_stop_daemon aborts on a suspended connection): close it. */
    if (r->answered) return MHD_NO;
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (r->too_large || r->len + n > (size_t)sv->srv.opts.max_body) {
            r->too_large = 1;
            return MHD_YES;
        }
        if (r->len + n + 1 > r->cap) {
            size_t cap = r->cap ? r->cap : 4096;
            while (cap < r->len + n + 1) cap *= 2;
            char *p = realloc(r->body, cap);
            if (!p) return MHD_NO;
            r->body = p;
            r->cap = cap;
        }
        memcpy(r->body + r->len, upload_data, n);
        r->len += n;
        return MHD_YES;
    }
    if (r->pending) { /* resumed: the writer made the reply */
        srv_reply rp;
        am__srv_pending_take(r->pending, &rp);
        r->pending = NULL;
        return send_reply(conn, r, &rp);
    }
    r->conn = conn;
    srv_request rq = {method, url, query_get, r,
                      MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization"),
                      r->body, r->len, r->too_large, header_get, query_key_get};
    srv_reply rp;
    am_db *db = am__srv_db_get(&sv->srv);
    if (!db) {
        memset(&rp, 0, sizeof rp);
        am__srv_no_handle(&sv->srv, &rp, url);
        return send_reply(conn, r, &rp);
    }
    am_store_health h0, h1;
    am_store_check(db, 0, &h0);
    am__srv_handle(&sv->srv, db, &rq, &rp);
    am_store_check(db, 0, &h1);
    am__srv_metrics_store(&sv->srv.metrics, h1.reconnects - h0.reconnects, h1.retries - h0.retries);
    r->route = rp.route;
    if (rp.stream == SRV_STREAM_EXPORT) return export_start(sv, conn, r, &rp, db);
    am__srv_db_put(&sv->srv, db);
    if (rp.pending) { /* suspended first: the writer may resume it at once */
        r->pending = rp.pending;
        MHD_suspend_connection(conn);
        am__srv_pending_queue(&sv->srv, rp.pending, r);
        return MHD_YES;
    }
    if (rp.stream == SRV_STREAM_EVENTS) return events_start(sv, conn, r, &rp);
    return send_reply(conn, r, &rp);
}

/* s->resume: the writer made the reply of r's queued write */
static void resume_conn(void *ctx)
{
    conn_req *r = ctx;
    MHD_resume_connection(r->conn);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode why)
{
    server *sv = cls;
    conn_req *r = *con_cls;
    if (!r) return;
    am__srv_metrics_add(&sv->srv.metrics, r->route,
                        why == MHD_REQUEST_TERMINATED_COMPLETED_OK && r->status ? r->status : 499,
                        since(&r->t0));
    for (query_val *v = r->decoded, *next; v; v = next) {
        next = v->next;
        free(v);
    }
    am__srv_pending_free(r->pending); /* a reply never sent */
    free(r->body);
    free(r);
    *con_cls = NULL;
    watch_mark(sv, conn, 1); /* kept alive: its next head */
    pthread_mutex_lock(&sv->mu);
    if (--sv->in_flight == 0) pthread_cond_broadcast(&sv->idle);
    pthread_mutex_unlock(&sv->mu);
}

/* ------------------------------------------------------------ lifecycle */

#define SHUTDOWN_GRACE_MS 2000 /* for the requests accepted, before the cut */
#define SHUTDOWN_MAX_S 4       /* from SIGTERM to the handles closed, at most */

/* Wait until no request is in flight or ms after t0 (CLOCK_REALTIME):
 * the requests still in flight */
static long in_flight_wait(server *sv, const struct timespec *t0, long ms)
{
    struct timespec deadline = *t0;
    deadline.tv_nsec += (ms % 1000) * 1000000L;
    deadline.tv_sec += ms / 1000 + deadline.tv_nsec / 1000000000L;
    deadline.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&sv->mu);
    while (sv->in_flight > 0 &&
           pthread_cond_timedwait(&sv->idle, &sv->mu, &deadline) != ETIMEDOUT) {
    }
    long left = sv->in_flight;
    pthread_mutex_unlock(&sv->mu);
    return left;
}

/* "HOST:PORT" or "[V6]:PORT" into ss; 0, or 1 with a message */
static int parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len, int *v6)
{
    char host[256];
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s) return 1;
    size_t hl = (size_t)(colon - s);
    if (s[0] == '[' && hl >= 2 && s[hl - 1] == ']') {
        s++;
        hl -= 2;
    }
    if (hl >= sizeof host) return 1;
    memcpy(host, s, hl);
    host[hl] = '\0';
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (!colon[1] || *end || port < 0 || port > 65535) return 1;
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, strcmp(host, "localhost") == 0 ? "127.0.0.1" : host, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        *len = sizeof *a4;
        *v6 = 0;
        return 0;
    }
    if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        *len = sizeof *a6;
        *v6 = 1;
        return 0;
    }
    return 1;
}

/* The listening socket, bound before anything else starts: a port in use
 * is refused (two servers on one port would take turns at the requests,
 * each with its own store) unless reuse_port shares it on purpose
 * (SO_REUSEPORT on every one of them: the kernel spreads the
 * connections).  SO_REUSEADDR only lets a restart bind while the last
 * run's connections linger in TIME_WAIT.  Returns the socket, its port
 * in *port, or -1 with a message. */
static int listen_socket(const char *listen_arg, const struct sockaddr_storage *ss, socklen_t sl,
                         int v6, int reuse_port, unsigned *port)
{
    int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        fprintf(stderr, "agentmem serve: cannot listen on %s: %s\n", listen_arg, strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (v6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (reuse_port && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) {
        fprintf(stderr, "agentmem serve: --reuse-port: %s\n", strerror(errno));
        close(fd);
        return -1;
    }
    if (bind(fd, (const struct sockaddr *)ss, sl) != 0) {
        if (errno == EADDRINUSE)
            fprintf(stderr, "agentmem serve: %s is already in use (another agentmem serve?);"
                            " use another port with --listen, or --reuse-port on every server"
                            " meant to share it\n", listen_arg);
        else fprintf(stderr, "agentmem serve: cannot listen on %s: %s\n", listen_arg, strerror(errno));
        close(fd);
        return -1;
    }
    struct sockaddr_storage got;
    socklen_t gl = sizeof got;
    if (listen(fd, SOMAXCONN) != 0 || getsockname(fd, (struct sockaddr *)&got, &gl) != 0) {
        fprintf(stderr, "agentmem serve: cannot listen on %s: %s\n", listen_arg, strerror(errno));
        close(fd);
        return -1;
    }
    *port = ntohs(v6 ? ((struct sockaddr_in6 *)&got)->sin6_port : ((struct sockaddr_in *)&got)->sin_port);
    return fd;
}

static void server_sync_init(server *sv)
{
    am_srv *s = &sv->srv;
    pthread_mutex_init(&s->pool_mu, NULL);
    pthread_cond_init(&s->pool_cv, NULL);
    pthread_mutex_init(&sv->mu, NULL);
    pthread_cond_init(&sv->idle, NULL);
    pthread_mutex_init(&sv->watch_mu, NULL);
    pthread_cond_init(&sv->watch_cv, NULL);
}

static void server_sync_destroy(server *sv)
{
    am_srv *s = &sv->srv;
    pthread_mutex_destroy(&s->pool_mu);
    pthread_cond_destroy(&s->pool_cv);
    pthread_mutex_destroy(&sv->mu);
    pthread_cond_destroy(&sv->idle);
    pthread_mutex_destroy(&sv->watch_mu);
    pthread_cond_destroy(&sv->watch_cv);
}

/* The HTTP daemon on the listening socket lfd (MHD owns it from here). */
static struct MHD_Daemon *start_daemon(server *sv, int lfd, int v6, const am_server_opts *o)
{
    /* poll(), not epoll (MHD_USE_AUTO): with a worker pool on epoll,
     * MHD_quiesce_daemon (libmicrohttpd 0.9.75 and its newest sources)
     * deletes the listening socket from each worker's epoll set while the
     * worker may delete it itself on seeing the quiesce, and aborts on the
     * ENOENT ("Failed to remove listen FD from epoll set") -- found by
     * SIGTERM under load, about 1 run in 70.  A worker's few connections
     * cost poll() no more than epoll. */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC |
                     MHD_ALLOW_SUSPEND_RESUME |
                     MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0);
    return MHD_start_daemon(flags, 0, NULL, NULL, on_request, sv,
                             MHD_OPTION_EXTERNAL_LOGGER, mhd_log, sv, /* first: MHD says so */
                             MHD_OPTION_LISTEN_SOCKET, (MHD_socket)lfd,
                             MHD_OPTION_THREAD_POOL_SIZE, (unsigned)o->threads,
                             MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)o->timeout_s,
                             MHD_OPTION_CONNECTION_LIMIT, (unsigned)1024,
                             MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)o->max_conns_per_ip,
                             MHD_OPTION_NOTIFY_CONNECTION, on_connection, sv,
                             MHD_OPTION_NOTIFY_COMPLETED, on_completed, sv,
                             MHD_OPTION_UNESCAPE_CALLBACK, keep_raw, NULL,
                             MHD_OPTION_END);
}

/* The stop on signal sig: the requests accepted finished (bounded), the
 * threads stopped; t0: when it began. */
static void shut_down(server *sv, int sig, srv_maint *maint, srv_dispatch *dispatch,
                      struct timespec *t0)
{
    am_srv *s = &sv->srv;
    fprintf(stderr, "agentmem serve: %s: finishing the requests accepted\n",
            sig == SIGTERM ? "SIGTERM" : "SIGINT");
    am__srv_llm_stop(s->metrics.llm); /* its call in flight cancelled, its queue dropped */
    /* Bounded at every step (SHUTDOWN_*: the process is gone within 5 s
     * whatever its clients do): the requests accepted get SHUTDOWN_GRACE_S
     * to end; then streams and exports still running are cut, queued
     * writes not yet written are answered 503 unwritten, and MHD closes
     * every connection left (stalled readers, heads still trickling). */
    clock_gettime(CLOCK_REALTIME, t0);
    pthread_mutex_lock(&sv->mu);
    sv->closing = 1; /* a request not begun yet is refused, not queued */
    pthread_mutex_unlock(&sv->mu);
    am__srv_maint_stop(maint); /* within one step */
    MHD_socket ls = MHD_quiesce_daemon(sv->d);
    if (ls != MHD_INVALID_SOCKET) close(ls);
    pthread_mutex_lock(&s->pool_mu);
    s->stopping = 1; /* event streams end (within a poll) */
    pthread_mutex_unlock(&s->pool_mu);
    am__srv_bus_wake(s->bus); /* now */
    long left = in_flight_wait(sv, t0, SHUTDOWN_GRACE_MS);
    if (left) {
        am__srv_slots_cut(s); /* no connection stays suspended for MHD_stop_daemon */
        left = in_flight_wait(sv, t0, SHUTDOWN_GRACE_MS + 1000);
    }
    pthread_mutex_lock(&s->write_mu);
    s->writers_drain_until = mono_now() + 0.5; /* what is queued then is answered unwritten */
    pthread_mutex_unlock(&s->write_mu);
    am__srv_writers_stop(s); /* every queued write answered, its connection resumed */
    if (left)
        fprintf(stderr, "agentmem serve: %ld %s cut short (their clients stalled)\n", left,
                am_plural(left, "request", "requests"));
    MHD_stop_daemon(sv->d);
    pthread_mutex_lock(&sv->watch_mu);
    sv->sweeper_stop = 1;
    pthread_cond_signal(&sv->watch_cv);
    pthread_mutex_unlock(&sv->watch_mu);
    pthread_join(sv->sweeper, NULL);
    am__srv_dispatch_stop(dispatch); /* after the last write: its events go too */
}

int am_server_run(am_db *db, const am_config *cfg, const am_server_opts *o)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    int v6;
    if (parse_listen(o->listen, &ss, &sl, &v6)) {
        fprintf(stderr, "agentmem serve: --listen %s: expected HOST:PORT (an IPv4 address,"
                        " localhost, or [IPv6]) with a port 0 to 65535\n", o->listen);
        return 2;
    }
    /* first: a port in use stops the start before a thread or a handle */
    unsigned port = 0;
    int lfd = listen_socket(o->listen, &ss, sl, v6, o->reuse_port, &port);
    if (lfd < 0) return 1;
    server *sv = calloc(1, sizeof *sv);
    if (!sv) {
        fprintf(stderr, "agentmem serve: out of memory\n");
        close(lfd);
        return 1;
    }
    am_srv *s = &sv->srv;
    s->cfg = cfg;
    s->opts = *o;
    s->borrowed = db;
    /* room for every worker, writer and export at once: a worker never
     * waits for a handle another holds */
    s->max_open = (int)o->threads + 4 + SRV_EXPORTS_MAX;
    if (s->max_open > (int)(sizeof s->pool / sizeof *s->pool))
        s->max_open = (int)(sizeof s->pool / sizeof *s->pool);
    s->pool[s->n_free++] = db;
    s->n_open = 1;
    int borrowed_sub = -1;
    if (o->cache_url) {
        if (!(s->bus = am__srv_bus_start(o->cache_url))) {
            free(sv);
            close(lfd);
            return 2;
        }
        if (am_subscribe(db, am__srv_bus_committed, s->bus, &borrowed_sub)) borrowed_sub = -1;
    }
    server_sync_init(sv);
    s->routes = &am__srv_routes; /* the router dispatches through it */
    am__srv_metrics_init(&s->metrics, s->routes);
    s->metrics.obs = o->obs;
    am__srv_init_locks(s);

    /* signals: taken by sigwait below, blocked in every thread MHD starts */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);

    /* the LLM worker (signals blocked in its thread too) before any handle */
    int rc = 0;
    if (cfg->llm && *cfg->llm && strcmp(cfg->llm, "none") != 0) {
        if (!(s->metrics.llm = am__srv_llm_start(cfg, o))) {
            rc = 1;
            goto out;
        }
        am__srv_llm_attach(s->metrics.llm, db);
    }

    /* a handle per worker now: an open costs a store open and the text
     * analyzer's setup (ICU, OpenCC; about 0.1-0.5 s here), which the first
     * requests would otherwise wait for */
    while (s->n_open < (int)o->threads) {
        s->n_open++;
        am_db *h = am__srv_db_open(s);
        if (!h) break;
        am__srv_db_put(s, h);
    }
    /* webhooks before the first request (/healthz reads s->dispatch) */
    srv_dispatch *dispatch = NULL;
    if (o->webhooks &&
        !(dispatch = am__srv_dispatch_start(cfg, o->webhooks, o->webhook_secret ? o->webhook_secret : "",
                                            s->bus))) {
        rc = 1;
        goto out;
    }
    s->dispatch = dispatch;
    s->resume = resume_conn;
    if (am__srv_writers_start(s, am_store_backend(db))) {
        am__srv_dispatch_stop(dispatch);
        rc = 1;
        goto out;
    }
    sv->d = start_daemon(sv, lfd, v6, o);
    lfd = -1; /* MHD's now (a failed start: the process ends) */
    if (!sv->d) {
        fprintf(stderr, "agentmem serve: cannot listen on %s: %s\n", o->listen, strerror(errno));
        am__srv_dispatch_stop(dispatch);
        am__srv_writers_stop(s);
        rc = 1;
        goto out;
    }
    srv_maint *maint = NULL;
    if (o->maintain_every_ms > 0 && !(maint = am__srv_maint_start(cfg, o->maintain_every_ms))) {
        MHD_stop_daemon(sv->d);
        am__srv_dispatch_stop(dispatch);
        am__srv_writers_stop(s);
        rc = 1;
        goto out;
    }
    if (pthread_create(&sv->sweeper, NULL, sweeper_main, sv) != 0) {
        fprintf(stderr, "agentmem serve: cannot start a thread\n");
        am__srv_maint_stop(maint);
        MHD_stop_daemon(sv->d);
        am__srv_dispatch_stop(dispatch);
        am__srv_writers_stop(s);
        rc = 1;
        goto out;
    }
    char host[128];
    snprintf(host, sizeof host, "%.*s", (int)(strrchr(o->listen, ':') - o->listen), o->listen);
    printf("agentmem serve: listening on http://%s:%u (%ld threads)\n", host, port, o->threads);
    fflush(stdout);

    int sig = 0;
    while (sigwait(&stop, &sig) != 0) {
    }
    struct timespec t0;
    shut_down(sv, sig, maint, dispatch, &t0);
    struct timespec end = t0;
    end.tv_sec += SHUTDOWN_MAX_S;
    if (pool_close(s, &end)) {
        /* a thread still runs on the server's state (a store call that
         * does not return): the process ends without freeing it */
        fprintf(stderr, "agentmem serve: stopped\n");
        return rc;
    }
    fprintf(stderr, "agentmem serve: stopped\n");
out:
    if (lfd >= 0) close(lfd);
    am__srv_llm_stop(s->metrics.llm);
    pool_close(s, NULL);
    if (borrowed_sub >= 0) am_unsubscribe(db, borrowed_sub);
    am_llm_watch(db, NULL, NULL); /* the caller's handle outlives the queue */
    am__srv_llm_free(s->metrics.llm);
    am__srv_bus_stop(s->bus); /* after the handles that call it */
    am__srv_metrics_free(&s->metrics);
    am__srv_free_locks(s);
    server_sync_destroy(sv);
    free(sv);
    return rc;
}
