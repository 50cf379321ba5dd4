/* SPDX-License-Identifier: Apache-2.0 */
/*
 * writer.c -- the server's group commit of single-event writes (POST
 * /v1/events with one event): the queue, its leaders and, for the
 * server's own path, the writer threads that write a group with a handle
 * of the pool and resume each suspended connection with its reply.  The
 * handlers (routes.c) only queue; writer.h is the whole interface.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shapes.h"
#include "srv_int.h"
#include "writer.h"

/* Group commit.  Concurrent single-event writes would each take the
 * store's write lock in turn, the ones waiting sleeping in the busy
 * handler; instead each queues its event, and a writer whose event is
 * still queued when fewer than the store's leaders are writing becomes
 * one: it takes what is queued (up to GROUP_MAX), writes it with its own
 * handle in one transaction (am_add_events) and hands each writer its
 * result -- one commit for the group, no lock waits among the server's
 * own writers.  SQLite has one writer, so one leader; PostgreSQL runs
 * writers of different users side by side (a user's lock orders two
 * groups that share a user), so GROUP_LEADERS_PG groups may be in
 * flight, which keeps the database busy while a group waits for its
 * round trips.  When the group is refused (one bad event: all or
 * nothing), each event is written alone, so each writer gets its own
 * answer, as if it had written alone.  A reply is made only after the
 * commit of its event. */
#define GROUP_MAX 32
#define GROUP_LEADERS_PG 3
typedef struct srv_pending {
    const am_event *ev;
    am_add_info info;
    int rc, done, taken;
    char err[600];
    struct srv_pending *next;
    /* async (am__srv_pending_*): the event copied (the request's body and
     * buffers are gone by the time it is written), its connection's ctx,
     * the reply made by the writer */
    am_event copy;
    void *ctx;
    srv_reply reply;
    double queued_at; /* CLOCK_MONOTONIC seconds */
    char strings[];
} srv_pending;

static double mono_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The write waited past its bound (SRV_WRITE_WAIT_MS queued, or the
 * drain's end at shutdown): answered 503 without being written (under
 * write_mu) */
static int write_expired(const am_srv *s, const srv_pending *p, double now)
{
    if (now - p->queued_at > SRV_WRITE_WAIT_MS / 1000.0) return 1;
    return s->writers_stop && s->writers_drain_until > 0 && now > s->writers_drain_until;
}

/* Writes of user queued (under write_mu) */
static int queued_of(const am_srv *s, const char *user)
{
    int n = 0;
    for (const srv_pending *p = s->queue; p; p = p->next) n += strcmp(p->ev->user_id, user) == 0;
    return n;
}

int am__srv_write_queued(am_srv *s, const char *user)
{
    pthread_mutex_lock(&s->write_mu);
    int queued = queued_of(s, user);
    pthread_mutex_unlock(&s->write_mu);
    return queued;
}

void am__srv_init_locks(am_srv *s)
{
    pthread_mutex_init(&s->write_mu, NULL);
    pthread_cond_init(&s->write_cv, NULL);
    pthread_mutex_init(&s->log_mu, NULL);
}

void am__srv_free_locks(am_srv *s)
{
    pthread_mutex_destroy(&s->write_mu);
    pthread_cond_destroy(&s->write_cv);
    pthread_mutex_destroy(&s->log_mu);
}

static void group_write(am_db *db, srv_pending **group, size_t n)
{
    am_event evs[GROUP_MAX];
    am_add_info infos[GROUP_MAX];
    for (size_t i = 0; i < n; i++) evs[i] = *group[i]->ev;
    int rc = n > 1 ? am_add_events(db, evs, n, infos) : AM_ERROR;
    for (size_t i = 0; i < n; i++) {
        srv_pending *p = group[i];
        if (rc == AM_OK) p->info = infos[i];
        else if (rc == AM_IO) { /* the store unreachable (retried already): each the same 503 */
            p->rc = rc;
            snprintf(p->err, sizeof p->err, "%s", am_errmsg(db));
        }
        else if ((p->rc = am_add_event(db, p->ev, &p->info)))
            snprintf(p->err, sizeof p->err, "%s", am_errmsg(db));
    }
}

int am__srv_write_grouped(am_srv *s, am_db *db, const am_event *ev, am_add_info *info, char *err,
                          size_t cap)
{
    srv_pending me;
    memset(&me, 0, sizeof me);
    me.ev = ev;
    pthread_mutex_lock(&s->write_mu);
    srv_pending **tail = &s->queue;
    while (*tail) tail = &(*tail)->next;
    *tail = &me;
    me.queued_at = mono_now();
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += SRV_WRITE_WAIT_MS / 1000;
    int max = strcmp(am_store_backend(db), "postgres") == 0 ? GROUP_LEADERS_PG : 1;
    while (!me.done) {
        if (me.taken || s->leaders >= max) { /* in another's group, or no room to lead */
            if (pthread_cond_timedwait(&s->write_cv, &s->write_mu, &deadline) == ETIMEDOUT &&
                !me.taken) { /* still queued: out of the queue, unwritten */
                for (srv_pending **at = &s->queue; *at; at = &(*at)->next)
                    if (*at == &me) {
                        *at = me.next;
                        break;
                    }
                me.rc = AM_BUSY;
                snprintf(me.err, sizeof me.err, "add: the write waited over %d ms for its turn;"
                         " it was not written, retry later", SRV_WRITE_WAIT_MS);
                break;
            }
            continue;
        }
        s->leaders++;
        srv_pending *group[GROUP_MAX];
        size_t n = 0;
        while (s->queue && n < GROUP_MAX) {
            group[n] = s->queue;
            group[n++]->taken = 1;
            s->queue = s->queue->next;
        }
        pthread_mutex_unlock(&s->write_mu);
        group_write(db, group, n);
        pthread_mutex_lock(&s->write_mu);
        for (size_t i = 0; i < n; i++) group[i]->done = 1;
        s->leaders--;
        pthread_cond_broadcast(&s->write_cv);
    }
    pthread_mutex_unlock(&s->write_mu);
    *info = me.info;
    snprintf(err, cap, "%s", me.err);
    return me.rc;
}

/* ---- async writes: the server's path (writer.h) */

/* am_event holds its size and strings: a field added there must be copied here */
typedef char am__event_only_strings[sizeof(am_event) == sizeof(size_t) + 14 * sizeof(const char *)
                                        ? 1 : -1];

srv_pending *am__srv_pending_new(const am_event *ev)
{
    const char *const from[14] = {ev->user_id, ev->channel, ev->external_id, ev->agent_id,
                                  ev->session_id, ev->task_id, ev->source, ev->type,
                                  ev->domain, ev->intent, ev->text, ev->occurred_at,
                                  ev->event_id, ev->metadata_json};
    size_t len = 0;
    for (int i = 0; i < 14; i++) len += from[i] ? strlen(from[i]) + 1 : 0;
    srv_pending *p = calloc(1, sizeof *p + len);
    if (!p) return NULL;
    const char **to[14] = {&p->copy.user_id, &p->copy.channel, &p->copy.external_id,
                           &p->copy.agent_id, &p->copy.session_id, &p->copy.task_id,
                           &p->copy.source, &p->copy.type, &p->copy.domain,
                           &p->copy.intent, &p->copy.text, &p->copy.occurred_at,
                           &p->copy.event_id, &p->copy.metadata_json};
    char *at = p->strings;
    for (int i = 0; i < 14; i++) {
        if (!from[i]) continue;
        size_t n = strlen(from[i]) + 1;
        memcpy(at, from[i], n);
        *to[i] = at;
        at += n;
    }
    p->copy.size = sizeof p->copy;
    p->ev = &p->copy;
    return p;
}

void am__srv_pending_free(srv_pending *p)
{
    if (!p) return;
    free(p->reply.body);
    free(p);
}

void am__srv_pending_take(srv_pending *p, srv_reply *out)
{
    *out = p->reply;
    p->reply.body = NULL;
    am__srv_pending_free(p);
}

void am__srv_pending_queue(am_srv *s, srv_pending *p, void *ctx)
{
    p->ctx = ctx;
    p->queued_at = mono_now();
    pthread_mutex_lock(&s->write_mu);
    int stopped = s->writers_stop;
    if (!stopped) {
        srv_pending **tail = &s->queue;
        while (*tail) tail = &(*tail)->next;
        *tail = p;
        pthread_cond_signal(&s->write_cv);
    }
    pthread_mutex_unlock(&s->write_mu);
    if (stopped) { /* the writers are gone (shutdown): answered now, unwritten */
        am__srv_error(&p->reply, "unavailable", NULL, "the server is stopping");
        s->resume(ctx);
    }
}

/* A writer: takes what is queued (up to GROUP_MAX), writes it as one
 * group with a handle of the pool, makes each reply and resumes each
 * connection; until stopped with nothing queued. */
static void *writer_main(void *arg)
{
    am_srv *s = arg;
    pthread_setname_np(pthread_self(), "am-writer"); /* for top and perf */
    /* one handle for every group, kept until the writer stops: what its
     * connection holds of a user (the latest items, the term lists) stays
     * true through its own writes, while a handle shared with the workers
     * would meet the user's rows changed by another connection every time
     * (store/sqlite/item_memo.c) */
    am_db *db = NULL;
    pthread_mutex_lock(&s->write_mu);
    for (;;) {
        while (!s->queue && !s->writers_stop) pthread_cond_wait(&s->write_cv, &s->write_mu);
        if (!s->queue) break;
        srv_pending *group[GROUP_MAX], *late[GROUP_MAX];
        size_t n = 0, n_late = 0;
        double now = mono_now();
        while (s->queue && n < GROUP_MAX && n_late < GROUP_MAX) {
            srv_pending *p = s->queue;
            s->queue = p->next;
            if (write_expired(s, p, now)) late[n_late++] = p;
            else group[n++] = p;
        }
        pthread_mutex_unlock(&s->write_mu);
        for (size_t i = 0; i < n_late; i++) {
            srv_pending *p = late[i];
            am__srv_error(&p->reply, "busy", NULL, "add: the write waited over %d ms for its"
                          " turn; it was not written, retry later", SRV_WRITE_WAIT_MS);
            s->resume(p->ctx); /* p is not ours now */
        }
        if (!n) {
            pthread_mutex_lock(&s->write_mu);
            continue;
        }
        if (!db) db = am__srv_db_get(s);
        if (db) { /* its store calls run again on a new connection count in /metrics too */
            am_store_health h0, h1;
            am_store_check(db, 0, &h0);
            group_write(db, group, n);
            am_store_check(db, 0, &h1);
            am__srv_metrics_store(&s->metrics, h1.reconnects - h0.reconnects,
                                  h1.retries - h0.retries);
        }
        for (size_t i = 0; i < n; i++) {
            srv_pending *p = group[i];
            srv_ctx c;
            memset(&c, 0, sizeof c);
            c.srv = s;
            c.db = db;
            c.out = &p->reply;
            if (!db) am__srv_store_refused(s, &p->reply);
            else if (p->rc) am__srv_engine_error_msg(&c, p->rc, p->err);
            else am__srv_json(&p->reply, 200, am_shape_add(&p->info));
        }
        for (size_t i = 0; i < n; i++) s->resume(group[i]->ctx); /* group[i] is not ours now */
        pthread_mutex_lock(&s->write_mu);
    }
    pthread_mutex_unlock(&s->write_mu);
    am__srv_db_put(s, db);
    return NULL;
}

int am__srv_writers_start(am_srv *s, const char *backend)
{
    int want = strcmp(backend, "postgres") == 0 ? GROUP_LEADERS_PG : 1;
    for (s->n_writers = 0; s->n_writers < want; s->n_writers++)
        if (pthread_create(&s->writers[s->n_writers], NULL, writer_main, s) != 0) {
            fprintf(stderr, "agentmem serve: cannot start a writer thread\n");
            am__srv_writers_stop(s);
            return 1;
        }
    s->async_writes = 1;
    return 0;
}

void am__srv_writers_stop(am_srv *s)
{
    pthread_mutex_lock(&s->write_mu);
    s->writers_stop = 1;
    pthread_cond_broadcast(&s->write_cv);
    pthread_mutex_unlock(&s->write_mu);
    for (int i = 0; i < s->n_writers; i++) pthread_join(s->writers[i], NULL);
    s->n_writers = 0;
}
