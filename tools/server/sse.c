/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sse.c -- GET /v1/stream: the memory events of a user (an admin token:
 * every user's, or ?user=) as server-sent events (docs/EVENTS.md):
 *     id: <seq>\nevent: <type>\ndata: <the event's JSON>\n\n
 * with a comment line ": keep-alive" every 15 s of silence.
 *
 * A stream is a thread with a store handle of its own (opened by the
 * thread: the open's cost never holds a worker; not from the pool, which
 * streams would drain) that polls am_events_since every 200 ms from the
 * cursor (Last-Event-ID, ?after=, or the newest seq when the stream
 * starts) and appends frames to a buffer.  With the bus (--cache, bus.c)
 * it reads at once when a commit of this instance or a note of another
 * one says there is something to read, and polls only every 1 s (the
 * store is still the record: a lost note delays, never loses an event).  MHD reads the buffer through a
 * content-reader callback; when it is empty the connection is suspended
 * (no busy loop, the worker serves its other connections) and the thread
 * resumes it when it appends.  The stream ends when the client goes (the
 * response is freed), or at shutdown (am_srv.stopping: the thread stops,
 * the reader sees the end and the request completes, so SIGTERM still
 * exits promptly).  At most SRV_STREAMS_MAX streams at once (503
 * beyond), SRV_STREAMS_PER_TENANT per user and per token (429 beyond:
 * limits.c).  A client that reads less than its stream brings has its
 * stream ended once SSE_BUF_MAX bytes wait for it; at shutdown a stream
 * still running is cut (its reader ends it with an error).
 */
#define _GNU_SOURCE /* POLLRDHUP */
#include <microhttpd.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "srv_int.h"

#define KEEPALIVE_S 15
#define SSE_BUF_MAX (1024 * 1024)

typedef struct sse_job {
    am_srv *srv;
    struct MHD_Connection *conn;
    char user[AM_ID_MAX + 1];    /* "": every user's */
    am_token_info tok;           /* the token, by id (no secret): checked again
                                    before each delivery; its agent and role
                                    filter what is delivered */
    int64_t cursor;
    int has_cursor;
    int slot;                    /* limits.c */
    pthread_mutex_t mu;
    char *buf;
    size_t len, cap;
    int suspended, finished, gone, cut, refs;
} sse_job;

static void job_unref(sse_job *j)
{
    pthread_mutex_lock(&j->mu);
    int last = --j->refs == 0;
    pthread_mutex_unlock(&j->mu);
    if (!last) return;
    pthread_mutex_destroy(&j->mu);
    free(j->buf);
    free(j);
}

/* Append text (under j->mu); 0, or 1 out of memory */
static int append(sse_job *j, const char *text, size_t n)
{
    if (j->len + n > SSE_BUF_MAX) return 1; /* a client this far behind: ended */
    if (j->len + n > j->cap) {
        size_t cap = j->cap ? j->cap : 4096;
        while (cap < j->len + n) cap *= 2;
        char *p = realloc(j->buf, cap);
        if (!p) return 1;
        j->buf = p;
        j->cap = cap;
    }
    memcpy(j->buf + j->len, text, n);
    j->len += n;
    return 0;
}

/* The frames of e (those keep marks; keep NULL: all) into j's buffer,
 * and the reader woken */
static int push(sse_job *j, const am_memory_events *e, const unsigned char *keep, int keepalive)
{
    pthread_mutex_lock(&j->mu);
    int bad = 0;
    for (size_t i = 0; i < e->n && !bad; i++) {
        if (keep && !keep[i]) continue;
        char head[256];
        int n = snprintf(head, sizeof head, "id: %lld\nevent: %s\ndata: ",
                         (long long)e->items[i].seq, e->items[i].type);
        bad = n < 0 || (size_t)n >= sizeof head || append(j, head, (size_t)n) ||
              append(j, e->items[i].json, strlen(e->items[i].json)) || append(j, "\n\n", 2);
    }
    if (keepalive && !bad) bad = append(j, ": keep-alive\n\n", 14);
    if (j->suspended && j->len) {
        j->suspended = 0;
        MHD_resume_connection(j->conn);
    }
    pthread_mutex_unlock(&j->mu);
    return bad;
}

/* Under j->mu: the client closed its end while its connection is
 * suspended (MHD polls no suspended connection, so it would learn of it
 * only at the next keep-alive, holding the tenant's slot until then):
 * resumed, so that MHD reads the end and lets the response go */
static int client_gone(sse_job *j)
{
    if (!j->suspended || j->gone) return 0;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(j->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci) return 0;
    struct pollfd p = {ci->connect_fd, POLLIN | POLLRDHUP, 0};
    char c;
    if (poll(&p, 1, 0) != 1 || !(p.revents & (POLLRDHUP | POLLHUP | POLLERR) ||
                                 recv(p.fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0))
        return 0;
    j->suspended = 0;
    MHD_resume_connection(j->conn);
    return 1;
}

static int stopping(sse_job *j)
{
    pthread_mutex_lock(&j->srv->pool_mu);
    int stop = j->srv->stopping;
    pthread_mutex_unlock(&j->srv->pool_mu);
    pthread_mutex_lock(&j->mu);
    stop |= j->gone || client_gone(j);
    pthread_mutex_unlock(&j->mu);
    return stop;
}

/* What the stream's token may see of e: keep[i] = 1 for the events it
 * may read -- all of them for a token of neither agent nor role, else
 * what am_access_notice lets through (one access per user of the batch;
 * a user it cannot be made for, being forgotten, shows nothing).  AM_OK,
 * or the store error that ends the stream. */
#define ACCESS_USERS 8
static int filter(sse_job *j, am_db *db, const am_memory_events *e, unsigned char *keep)
{
    const char *agent = j->tok.agent_id[0] ? j->tok.agent_id : NULL;
    const char *role = j->tok.role[0] ? j->tok.role : NULL;
    am_access *acc[ACCESS_USERS] = {0};
    const char *of[ACCESS_USERS] = {0};
    size_t n_acc = 0, next = 0;
    int rc = AM_OK;
    for (size_t i = 0; i < e->n && !rc; i++) {
        const am_memory_event *ev = &e->items[i];
        keep[i] = !agent && !role;
        if (keep[i] || !ev->user_id) continue;
        am_access *a = NULL;
        for (size_t k = 0; k < n_acc && !a; k++)
            if (strcmp(of[k], ev->user_id) == 0) a = acc[k];
        if (!a) {
            int orc = am_access_open(db, ev->user_id, agent, role, &a);
            if (orc == AM_NOTFOUND) continue; /* being forgotten: nothing of it */
            if (orc) {
                rc = orc;
                break;
            }
            size_t k = n_acc < ACCESS_USERS ? n_acc++ : next++ % ACCESS_USERS;
            am_access_free(acc[k]);
            acc[k] = a;
            of[k] = ev->user_id; /* e's string: lives as long as the batch */
        }
        keep[i] = (unsigned char)am_access_notice(a, ev, &rc);
    }
    for (size_t k = 0; k < n_acc; k++) am_access_free(acc[k]);
    return rc;
}

/* The stream's credential, checked again (am_token_recheck: the token
 * still live, its user and the stream's not forgotten): AM_OK, or why the
 * stream ends. */
static int credential(sse_job *j, am_db *db)
{
    int rc = am_token_recheck(db, &j->tok, j->user[0] ? j->user : NULL);
    if (rc)
        fprintf(stderr, "agentmem serve: stream of token %s ended: %s\n", j->tok.id,
                am_errmsg(db));
    return rc;
}

static void *sse_run(void *arg)
{
    sse_job *j = arg;
    am_config cfg = *j->srv->cfg;
    cfg.must_exist = 1;
    am_db *db = NULL;
    char *err = NULL;
    const char *user = j->user[0] ? j->user : NULL;
    int rc = am_open(&cfg, &db, &err);
    if (!rc && !j->has_cursor) rc = am__srv_events_newest(db, user, &j->cursor);
    if (rc) fprintf(stderr, "agentmem serve: stream: %s\n", err ? err : am_errmsg(db));
    am_free(err);
    time_t quiet_since = time(NULL);
    int first = 1;
    while (!rc && !stopping(j)) {
        am_memory_events *e;
        uint64_t gen = am__srv_bus_gen(j->srv->bus); /* before the read: a wake after it is seen */
        if ((rc = am_events_since(db, user, j->cursor, 0, &e))) {
            if (rc == AM_BUSY) rc = 0; /* the next poll tries again */
            else fprintf(stderr, "agentmem serve: stream: %s\n", am_errmsg(db));
            continue;
        }
        time_t now = time(NULL);
        /* the first frame at once: the client sees the stream is open */
        int keepalive = first || (e->n == 0 && now - quiet_since >= KEEPALIVE_S);
        first = 0;
        if (e->n || keepalive) quiet_since = now;
        /* before each delivery, after the read: an event written after a
         * revocation (or a forget) is read after it, and so never sent */
        unsigned char *keep = e->n ? malloc(e->n) : NULL;
        if ((e->n && !keep) || (rc = credential(j, db)) || (rc = filter(j, db, e, keep))) {
            if (!rc) fprintf(stderr, "agentmem serve: stream: out of memory\n");
            else if (rc != AM_DENIED)
                fprintf(stderr, "agentmem serve: stream: %s\n", am_errmsg(db));
            free(keep);
            am_memory_events_free(e);
            break;
        }
        j->cursor = e->last_seq;
        size_t n = e->n;
        int bad = push(j, e, keep, keepalive);
        free(keep);
        am_memory_events_free(e);
        if (bad) break;
        if (n == 0) am__srv_bus_wait(j->srv->bus, gen); /* NULL bus: 200 ms */
    }
    am_close(db);
    pthread_mutex_lock(&j->mu);
    j->finished = 1;
    if (j->suspended) {
        j->suspended = 0;
        MHD_resume_connection(j->conn);
    }
    pthread_mutex_unlock(&j->mu);
    am__srv_slot_put(j->srv, j->slot); /* before the job is let go (am__srv_slots_cut) */
    job_unref(j);
    return NULL;
}

static ssize_t sse_read(void *cls, uint64_t pos, char *out, size_t max)
{
    (void)pos;
    sse_job *j = cls;
    pthread_mutex_lock(&j->mu);
    size_t n = j->len < max ? j->len : max;
    if (j->cut) { /* shutdown: ended now */
        pthread_mutex_unlock(&j->mu);
        return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    if (n) {
        memcpy(out, j->buf, n);
        memmove(j->buf, j->buf + n, j->len - n);
        j->len -= n;
    } else if (j->finished) {
        pthread_mutex_unlock(&j->mu);
        return MHD_CONTENT_READER_END_OF_STREAM;
    } else {
        j->suspended = 1;
        MHD_suspend_connection(j->conn);
    }
    pthread_mutex_unlock(&j->mu);
    return (ssize_t)n;
}

static void sse_free(void *cls)
{
    sse_job *j = cls;
    pthread_mutex_lock(&j->mu);
    j->gone = 1;
    j->suspended = 0; /* the connection is gone: never resumed again */
    pthread_mutex_unlock(&j->mu);
    job_unref(j);
}

/* am__srv_slots_cut's (under pool_mu): the response ends now */
static void sse_cut(void *job)
{
    sse_job *j = job;
    pthread_mutex_lock(&j->mu);
    j->cut = 1;
    if (j->suspended && !j->gone) {
        j->suspended = 0;
        MHD_resume_connection(j->conn);
    }
    pthread_mutex_unlock(&j->mu);
}

struct MHD_Response *am__srv_sse_start(am_srv *s, struct MHD_Connection *conn, const srv_reply *rp,
                                       int *refused, char *why, size_t n)
{
    int slot;
    *refused = am__srv_slot_take(s, SRV_SLOT_STREAM, rp->stream_user, rp->stream_token, &slot, why,
                                 n);
    if (*refused) return NULL;
    sse_job *j = calloc(1, sizeof *j);
    struct MHD_Response *resp = NULL;
    pthread_t t;
    pthread_attr_t at;
    if (!j) goto fail;
    j->srv = s;
    j->conn = conn;
    snprintf(j->user, sizeof j->user, "%s", rp->stream_user);
    j->tok = rp->stream_tok;
    j->cursor = rp->stream_after;
    j->has_cursor = rp->stream_after >= 0;
    j->refs = 2; /* the thread's and the response's */
    j->slot = slot;
    pthread_mutex_init(&j->mu, NULL);
    resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, sse_read, j, sse_free);
    if (!resp) {
        pthread_mutex_destroy(&j->mu);
        free(j);
        goto fail;
    }
    am__srv_slot_cut_fn(s, slot, sse_cut, j);
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &at, sse_run, j) != 0) {
        pthread_attr_destroy(&at);
        j->finished = 1; /* the reader ends the stream at once */
        am__srv_slot_put(s, slot);
        job_unref(j);
        return resp;
    }
    pthread_attr_destroy(&at);
    return resp;
fail:
    am__srv_slot_put(s, slot);
    return NULL;
}
