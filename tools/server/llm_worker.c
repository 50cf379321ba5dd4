/* SPDX-License-Identifier: Apache-2.0 */
/*
 * llm_worker.c -- the server's optional LLM pass (docs/LLM.md "In the
 * server"): a bounded queue of (user, event id) that every store handle's
 * writes feed through am_llm_watch, and one thread that sends each user's
 * batch to the model (am_llm_pass) on a store handle of its own.
 *
 * Design: a write never waits for the model: the watcher only copies two
 * ids into a ring under a mutex (full: the oldest entry is dropped and
 * counted).  A user's batch goes when it holds batch events or its oldest
 * has waited wait_ms.  A forget of a user (any level: the watcher hears it
 * before the forget runs) drops the user's queued ids -- an event's forget
 * only that event's -- and cancels the user's call in flight, so nothing
 * forgotten waits here or is sent afterwards; the pass itself writes
 * nothing citing an event forgotten while the model thought.  Shutdown
 * cancels the call in flight (the HTTP cancel hook) and drops the queue.
 * No text is ever held here: ids only, and the counters are numbers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srv_int.h"

#define PICK_USERS 64 /* users looked at per wake */

typedef struct entry {
    char uid[AM_ID_MAX + 1];
    char eid[AM_ID_MAX + 1];
    double t; /* when queued (monotonic seconds) */
} entry;

struct srv_llm {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    int started, stop;
    am_db *db; /* the worker's own handle */
    long batch, queue_max, timeout_ms;
    double wait_s;
    entry *ring;
    size_t head, len;
    char inflight[AM_ID_MAX + 1]; /* the user whose call runs, or "" */
    int inflight_cancel;
    unsigned long long calls, retries, failures, kept, one_off, dropped, budget, q_dropped,
        q_forgotten, passes;
};

static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static entry *at(srv_llm *q, size_t i) { return &q->ring[(q->head + i) % (size_t)q->queue_max]; }

/* Keeps the entries keep() says, in order; the number removed. */
static size_t compact(srv_llm *q, int (*drop)(const entry *, const void *), const void *arg)
{
    size_t w = 0, n = q->len;
    for (size_t i = 0; i < n; i++) {
        entry *e = at(q, i);
        if (drop(e, arg)) continue;
        if (w != i) *at(q, w) = *e;
        w++;
    }
    q->len = w;
    return n - w;
}

typedef struct forget_arg {
    const char *uid, *eid;
} forget_arg;

static int drop_forgotten(const entry *e, const void *arg)
{
    const forget_arg *f = arg;
    return strcmp(e->uid, f->uid) == 0 && (!f->eid || strcmp(e->eid, f->eid) == 0);
}

/* am_llm_watch's callback: on the writing thread, ids only, never waits
 * for anything but the queue's mutex. */
static void watch(void *ctx, int what, const char *uid, const char *eid)
{
    srv_llm *q = ctx;
    if (!uid || strlen(uid) > AM_ID_MAX || (eid && strlen(eid) > AM_ID_MAX)) return;
    pthread_mutex_lock(&q->mu);
    if (what == AM_LLM_FORGOT) {
        forget_arg f = {uid, eid};
        q->q_forgotten += compact(q, drop_forgotten, &f);
        if (strcmp(q->inflight, uid) == 0) q->inflight_cancel = 1;
    } else if (what == AM_LLM_ADDED && eid && !q->stop) {
        if (q->len == (size_t)q->queue_max) { /* full: the oldest goes */
            q->head = (q->head + 1) % (size_t)q->queue_max;
            q->len--;
            q->q_dropped++;
        }
        entry *e = at(q, q->len++);
        snprintf(e->uid, sizeof e->uid, "%s", uid);
        snprintf(e->eid, sizeof e->eid, "%s", eid);
        e->t = mono();
        pthread_cond_signal(&q->cv);
    }
    pthread_mutex_unlock(&q->mu);
}

static int cancelled(void *ctx)
{
    srv_llm *q = ctx;
    pthread_mutex_lock(&q->mu);
    int c = q->stop || q->inflight_cancel;
    pthread_mutex_unlock(&q->mu);
    return c;
}

/* A user whose batch is due (index of its oldest entry), or -1 with
 * *next the time the oldest entry falls due.  Called locked. */
static long pick(srv_llm *q, double now, double *next)
{
    const char *seen[PICK_USERS];
    size_t n_seen = 0;
    *next = q->len ? at(q, 0)->t + q->wait_s : now + 3600;
    for (size_t i = 0; i < q->len && n_seen < PICK_USERS; i++) {
        entry *e = at(q, i);
        int dup = 0;
        for (size_t k = 0; k < n_seen && !dup; k++) dup = strcmp(seen[k], e->uid) == 0;
        if (dup) continue;
        seen[n_seen++] = e->uid;
        if (now >= e->t + q->wait_s) return (long)i; /* its oldest waited long enough */
        long count = 0;
        for (size_t j = i; j < q->len && count < q->batch; j++)
            count += strcmp(at(q, j)->uid, e->uid) == 0;
        if (count >= q->batch) return (long)i;
    }
    return -1;
}

typedef struct take_arg {
    const char *uid;
    long left;
} take_arg;

static int take(const entry *e, const void *arg)
{
    take_arg *t = (take_arg *)arg;
    if (t->left <= 0 || strcmp(e->uid, t->uid) != 0) return 0;
    t->left--;
    return 1;
}

static void *run(void *arg)
{
    srv_llm *q = arg;
    char uid[AM_ID_MAX + 1];
    char(*ids)[AM_ID_MAX + 1] = malloc((size_t)q->batch * sizeof *ids);
    const char **ptrs = malloc((size_t)q->batch * sizeof *ptrs);
    pthread_mutex_lock(&q->mu);
    while (!q->stop && ids && ptrs) {
        double now = mono(), next;
        long i = pick(q, now, &next);
        if (i < 0) {
            double w = next - now;
            if (w < 0.01) w = 0.01;
            struct timespec dl;
            clock_gettime(CLOCK_MONOTONIC, &dl);
            dl.tv_sec += (time_t)w;
            dl.tv_nsec += (long)((w - (double)(long)w) * 1e9);
            if (dl.tv_nsec >= 1000000000L) {
                dl.tv_sec++;
                dl.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&q->cv, &q->mu, &dl);
            continue;
        }
        /* the user's oldest batch entries leave the queue */
        snprintf(uid, sizeof uid, "%s", at(q, (size_t)i)->uid);
        size_t n = 0;
        for (size_t j = (size_t)i; j < q->len && n < (size_t)q->batch; j++)
            if (strcmp(at(q, j)->uid, uid) == 0) {
                memcpy(ids[n], at(q, j)->eid, sizeof ids[n]);
                ptrs[n] = ids[n];
                n++;
            }
        take_arg t = {uid, (long)n};
        compact(q, take, &t);
        memcpy(q->inflight, uid, sizeof uid);
        q->inflight_cancel = 0;
        pthread_mutex_unlock(&q->mu);

        am_llm_pass_opts o;
        memset(&o, 0, sizeof o);
        o.user_id = uid;
        o.event_ids = ptrs;
        o.n_event_ids = n;
        o.max_events = (int)q->batch;
        o.timeout_ms = q->timeout_ms;
        o.cancelled = cancelled;
        o.cancel_ctx = q;
        am_llm_report r;
        int rc = am_llm_pass(q->db, &o, &r);

        pthread_mutex_lock(&q->mu);
        q->inflight[0] = '\0';
        q->passes++;
        q->calls += (unsigned long long)r.calls;
        q->retries += (unsigned long long)r.retries;
        q->failures += rc != AM_OK;
        q->kept += (unsigned long long)(r.created + r.merged);
        q->one_off += (unsigned long long)r.one_off;
        q->dropped += (unsigned long long)r.dropped;
        q->budget += r.budget_exhausted != 0;
    }
    pthread_mutex_unlock(&q->mu);
    free(ids);
    free(ptrs);
    return NULL;
}

srv_llm *am__srv_llm_start(const am_config *cfg, const am_server_opts *o)
{
    if (!cfg->llm || !*cfg->llm || strcmp(cfg->llm, "none") == 0) return NULL;
    srv_llm *q = calloc(1, sizeof *q);
    if (!q) {
        fprintf(stderr, "agentmem serve: llm: out of memory\n");
        return NULL;
    }
    q->batch = o->llm_batch > 0 ? o->llm_batch : 20;
    q->wait_s = (double)(o->llm_wait_s > 0 ? o->llm_wait_s : 60);
    q->queue_max = o->llm_queue > 0 ? o->llm_queue : 10000;
    q->timeout_ms = o->llm_timeout_ms;
    am_config c = *cfg;
    c.must_exist = 1;
    char *err = NULL;
    int rc = am_open(&c, &q->db, &err);
    if (rc || !(q->ring = calloc((size_t)q->queue_max, sizeof *q->ring))) {
        fprintf(stderr, "agentmem serve: llm: cannot start the worker: %s\n",
                rc ? (err ? err : am_errstr(rc)) : "out of memory");
        am_free(err);
        am_close(q->db);
        free(q);
        return NULL;
    }
    pthread_mutex_init(&q->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&q->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&q->thread, NULL, run, q) != 0) {
        fprintf(stderr, "agentmem serve: llm: cannot start a thread\n");
        am__srv_llm_stop(q);
        am__srv_llm_free(q);
        return NULL;
    }
    q->started = 1;
    return q;
}

void am__srv_llm_attach(srv_llm *q, am_db *db)
{
    if (q && db) am_llm_watch(db, watch, q);
}

void am__srv_llm_stop(srv_llm *q)
{
    if (!q) return;
    pthread_mutex_lock(&q->mu);
    q->stop = 1; /* the call in flight is cancelled at its next check */
    q->len = 0;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->mu);
    if (q->started) pthread_join(q->thread, NULL);
    q->started = 0;
}

void am__srv_llm_free(srv_llm *q)
{
    if (!q) return;
    am_close(q->db);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
    free(q->ring);
    free(q);
}

char *am__srv_llm_metrics(srv_llm *q)
{
    pthread_mutex_lock(&q->mu);
    unsigned long long v[] = {q->passes, q->calls, q->retries, q->failures, q->budget,
                              q->kept, q->one_off, q->dropped, (unsigned long long)q->len,
                              q->q_dropped, q->q_forgotten};
    pthread_mutex_unlock(&q->mu);
    char *out = malloc(2048);
    if (!out) return NULL;
    snprintf(out, 2048,
             "# HELP agentmem_llm_passes_total LLM passes run by the server's worker.\n"
             "# TYPE agentmem_llm_passes_total counter\nagentmem_llm_passes_total %llu\n"
             "# HELP agentmem_llm_calls_total Requests sent to the model (retries included).\n"
             "# TYPE agentmem_llm_calls_total counter\nagentmem_llm_calls_total %llu\n"
             "# HELP agentmem_llm_retries_total Requests that were retries.\n"
             "# TYPE agentmem_llm_retries_total counter\nagentmem_llm_retries_total %llu\n"
             "# HELP agentmem_llm_failures_total Passes that failed (nothing written).\n"
             "# TYPE agentmem_llm_failures_total counter\nagentmem_llm_failures_total %llu\n"
             "# HELP agentmem_llm_budget_exhausted_total Passes not sent: the user's daily "
             "budget was spent.\n"
             "# TYPE agentmem_llm_budget_exhausted_total counter\n"
             "agentmem_llm_budget_exhausted_total %llu\n"
             "# HELP agentmem_llm_proposals_total The model's proposals by outcome.\n"
             "# TYPE agentmem_llm_proposals_total counter\n"
             "agentmem_llm_proposals_total{outcome=\"kept\"} %llu\n"
             "agentmem_llm_proposals_total{outcome=\"one_off\"} %llu\n"
             "agentmem_llm_proposals_total{outcome=\"dropped\"} %llu\n"
             "# HELP agentmem_llm_queue_length Event ids waiting for the LLM pass.\n"
             "# TYPE agentmem_llm_queue_length gauge\nagentmem_llm_queue_length %llu\n"
             "# HELP agentmem_llm_queue_dropped_total Event ids dropped, oldest first, from "
             "a full queue.\n"
             "# TYPE agentmem_llm_queue_dropped_total counter\n"
             "agentmem_llm_queue_dropped_total %llu\n"
             "# HELP agentmem_llm_queue_forgotten_total Event ids removed from the queue by "
             "a forget.\n"
             "# TYPE agentmem_llm_queue_forgotten_total counter\n"
             "agentmem_llm_queue_forgotten_total %llu\n",
             v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]);
    return out;
}
