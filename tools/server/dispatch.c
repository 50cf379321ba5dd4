/*
 * dispatch.c -- memory events to webhooks (`agentmem serve --webhook URL
 * --webhook-secret-file PATH`, docs/EVENTS.md).  One thread with a store
 * handle of its own tails the outbox every user's writes publish to
 * (am_events_since with no user: every process's committed events, in
 * seq order) from the newest seq at start, and hands each event's JSON to
 * tools/common/webhook.h, which signs, queues and retries per URL without
 * holding this thread.  At shutdown (after the last request is answered)
 * the thread reads the outbox once more, so events of the last writes
 * still go out, and am_webhook_free drains the queues.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srv_int.h"
#include "webhook.h"

#define POLL_MS 200

struct srv_dispatch {
    am_db *db;
    am_webhook *hook;
    int64_t cursor;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
};

int am__srv_events_newest(am_db *db, const char *user, int64_t *seq)
{
    *seq = 0;
    for (;;) {
        am_memory_events *e;
        int rc = am_events_since(db, user, *seq, 0, &e);
        if (rc) return rc;
        size_t n = e->n;
        *seq = e->last_seq;
        am_memory_events_free(e);
        if (n == 0) return 0;
    }
}

/* Post what the outbox has after the cursor; 0, or an engine error */
static int drain_outbox(srv_dispatch *d)
{
    for (;;) {
        am_memory_events *e;
        int rc = am_events_since(d->db, NULL, d->cursor, 0, &e);
        if (rc) return rc;
        for (size_t i = 0; i < e->n; i++)
            if (am_webhook_post(d->hook, e->items[i].json))
                fprintf(stderr, "agentmem serve: webhook: event %lld not queued (out of memory)\n",
                        (long long)e->items[i].seq);
        size_t n = e->n;
        d->cursor = e->last_seq;
        am_memory_events_free(e);
        if (n == 0) return 0;
    }
}

static void *dispatch_run(void *arg)
{
    srv_dispatch *d = arg;
    pthread_mutex_lock(&d->mu);
    for (;;) {
        int stop = d->stop;
        pthread_mutex_unlock(&d->mu);
        int rc = drain_outbox(d);
        if (rc && rc != AM_BUSY)
            fprintf(stderr, "agentmem serve: webhook: reading the events: %s\n", am_errmsg(d->db));
        pthread_mutex_lock(&d->mu);
        if (stop) break; /* the pass after the stop was asked: the last events */
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += POLL_MS * 1000000L;
        if (t.tv_nsec >= 1000000000L) {
            t.tv_sec++;
            t.tv_nsec -= 1000000000L;
        }
        if (!d->stop) pthread_cond_timedwait(&d->cv, &d->mu, &t);
    }
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

srv_dispatch *am__srv_dispatch_start(const am_config *cfg, const char *urls, const char *secret)
{
    srv_dispatch *d = calloc(1, sizeof *d);
    if (!d) {
        fprintf(stderr, "agentmem serve: out of memory\n");
        return NULL;
    }
    const char *why = NULL;
    d->hook = am_webhook_new_opts(urls, secret, NULL, &why);
    if (!d->hook) {
        fprintf(stderr, "agentmem serve: --webhook: %s\n", why ? why : "cannot start");
        free(d);
        return NULL;
    }
    am_config c = *cfg;
    c.must_exist = 1;
    char *err = NULL;
    int rc = am_open(&c, &d->db, &err);
    if (!rc) rc = am__srv_events_newest(d->db, NULL, &d->cursor);
    if (rc) {
        fprintf(stderr, "agentmem serve: webhook: cannot read the events: %s\n",
                err ? err : d->db ? am_errmsg(d->db) : am_errstr(rc));
        am_free(err);
        am_close(d->db);
        am_webhook_free(d->hook);
        free(d);
        return NULL;
    }
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->cv, NULL);
    if (pthread_create(&d->thread, NULL, dispatch_run, d) != 0) {
        fprintf(stderr, "agentmem serve: webhook: cannot start its thread\n");
        pthread_mutex_destroy(&d->mu);
        pthread_cond_destroy(&d->cv);
        am_close(d->db);
        am_webhook_free(d->hook);
        free(d);
        return NULL;
    }
    return d;
}

void am__srv_dispatch_stop(srv_dispatch *d)
{
    if (!d) return;
    pthread_mutex_lock(&d->mu);
    d->stop = 1;
    pthread_cond_signal(&d->cv);
    pthread_mutex_unlock(&d->mu);
    pthread_join(d->thread, NULL);
    am_webhook_stats st;
    am_webhook_get_stats(d->hook, &st);
    am_webhook_free(d->hook); /* delivers what is queued (drain_ms at most) */
    fprintf(stderr, "agentmem serve: webhooks: %ld delivered, %ld failed, %ld retries\n",
            st.delivered, st.failed, st.retries);
    pthread_mutex_destroy(&d->mu);
    pthread_cond_destroy(&d->cv);
    am_close(d->db);
    free(d);
}
