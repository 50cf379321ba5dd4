/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pool.c -- the server's store handles: opened on demand with the
 * server's config (each subscribed to the bus and feeding the LLM queue),
 * kept on a free list and reused, at most max_open at once (the server
 * sizes it for every worker, writer and export).  am_db is not shared
 * between threads: a handle is one thread's from am__srv_db_get to
 * am__srv_db_put.  Below the writer and the router; the server closes the
 * pool at shutdown.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "srv_int.h"

am_db *am__srv_db_open(am_srv *s)
{
    am_db *db = NULL;
    char *err = NULL;
    am_config cfg = *s->cfg;
    cfg.must_exist = 1;
    int rc = am_open(&cfg, &db, &err);
    if (rc) {
        fprintf(stderr, "agentmem serve: cannot open a store handle: %s (%s)\n",
                err ? err : "", am_errstr(rc));
        pthread_mutex_lock(&s->pool_mu);
        s->open_rc = rc;
        snprintf(s->open_err, sizeof s->open_err, "%s", err ? err : am_errstr(rc));
        am_free(err);
        s->n_open--;
        pthread_cond_signal(&s->pool_cv);
        pthread_mutex_unlock(&s->pool_mu);
        return NULL;
    }
    am__srv_llm_attach(s->metrics.llm, db); /* its writes feed the LLM queue */
    /* the bus hears of every commit of this server's (bus.c) */
    if (s->bus && am_subscribe(db, am__srv_bus_committed, s->bus, NULL))
        fprintf(stderr, "agentmem serve: cache: a handle not subscribed (%s): its writes wake"
                        " the other instances only at their next poll\n", am_errmsg(db));
    return db;
}

/* A worker gets back the handle it used last when it is free: MHD keeps
 * a connection on one worker, so a client's requests meet the caches
 * their own earlier requests filled (the store keeps a handle's caches of
 * a user across other handles' commits for other users: caches.c), and
 * its writes keep them true instead of dropping them elsewhere. */
am_db *am__srv_db_get(am_srv *s)
{
    /* the pool has room for every worker, writer and export at once
     * (max_open), so a wait here means handles that could not be opened
     * or came back late: bounded, a 503 "busy" after it, never a worker
     * stuck (which would stall every connection it polls) */
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += (long)(SRV_POOL_WAIT_MS % 1000) * 1000000L;
    deadline.tv_sec += SRV_POOL_WAIT_MS / 1000 + deadline.tv_nsec / 1000000000L;
    deadline.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&s->pool_mu);
    while (s->n_free == 0 && s->n_open >= s->max_open &&
           pthread_cond_timedwait(&s->pool_cv, &s->pool_mu, &deadline) != ETIMEDOUT) {
    }
    if (s->n_free == 0 && s->n_open >= s->max_open) {
        int open = s->n_open;
        pthread_mutex_unlock(&s->pool_mu);
        am__srv_log(s, "refused: no store handle came back within %d ms (%d open)",
                    SRV_POOL_WAIT_MS, open);
        return NULL;
    }
    if (s->n_free) {
        pthread_t self = pthread_self();
        int k = s->n_free - 1;
        for (int i = 0; i < s->n_free; i++)
            if (pthread_equal(s->pool_owner[i], self)) {
                k = i;
                break;
            }
        am_db *db = s->pool[k];
        s->n_free--;
        s->pool[k] = s->pool[s->n_free];
        s->pool_owner[k] = s->pool_owner[s->n_free];
        pthread_mutex_unlock(&s->pool_mu);
        return db;
    }
    s->n_open++; /* counted before the open: others do not overshoot */
    pthread_mutex_unlock(&s->pool_mu);
    return am__srv_db_open(s);
}

void am__srv_db_put(am_srv *s, am_db *db)
{
    if (!db) return;
    pthread_mutex_lock(&s->pool_mu);
    s->pool_owner[s->n_free] = pthread_self();
    s->pool[s->n_free++] = db;
    pthread_cond_broadcast(&s->pool_cv);
    pthread_mutex_unlock(&s->pool_mu);
}
