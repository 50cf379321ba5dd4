/* SPDX-License-Identifier: Apache-2.0 */
/*
 * maintain.c -- `serve --maintain-every DURATION`: the maintenance pass
 * (am_maintain, docs/LIFECYCLE.md) in a background thread on a handle of
 * its own.  Every period it runs one pass a step at a time -- one short
 * write transaction each, then a pause -- so a request's write waits at
 * most one step, never a pass.  A pass cut short by shutdown goes on from
 * the store's cursor at the next start.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srv_int.h"
#include "plural.h"

#define STEP_ROWS 50    /* changes per transaction */
#define STEP_PAUSE_MS 5 /* between two steps: the writers' turn */

struct srv_maint {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
    long every_ms;
    am_db *db;
};

/* Wait ms (or until stop): 1 when stopping. */
static int pause_ms(srv_maint *m, long ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&m->mu);
    while (!m->stop && pthread_cond_timedwait(&m->cv, &m->mu, &until) != ETIMEDOUT) {
    }
    int stop = m->stop;
    pthread_mutex_unlock(&m->mu);
    return stop;
}

static void *maint_run(void *arg)
{
    srv_maint *m = arg;
    am_maintain_options o = {NULL, STEP_ROWS, 1, 0, NULL, NULL};
    do {
        am_maintain_report r;
        long changed = 0, steps = 0;
        do {
            int rc = am_maintain(m->db, &o, &r);
            if (rc) {
                fprintf(stderr, "agentmem serve: maintain: %s (%s); again in the next period\n",
                        am_errmsg(m->db), am_errstr(rc));
                break;
            }
            steps += r.steps;
            changed += r.candidate + r.invalidated + r.archived + r.revived + r.consolidated;
        } while (!r.finished && !pause_ms(m, STEP_PAUSE_MS));
        if (changed)
            fprintf(stderr, "agentmem serve: maintain: %ld %s changed in %ld %s\n", changed,
                    am_plural(changed, "item", "items"), steps, am_plural(steps, "step", "steps"));
    } while (!pause_ms(m, m->every_ms));
    return NULL;
}

srv_maint *am__srv_maint_start(const am_config *cfg, long every_ms)
{
    srv_maint *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->every_ms = every_ms;
    char *err = NULL;
    am_config c = *cfg;
    c.must_exist = 1;
    int rc = am_open(&c, &m->db, &err);
    if (rc) {
        fprintf(stderr, "agentmem serve: maintain: cannot open a store handle: %s (%s)\n",
                err ? err : "", am_errstr(rc));
        am_free(err);
        free(m);
        return NULL;
    }
    pthread_mutex_init(&m->mu, NULL);
    pthread_cond_init(&m->cv, NULL);
    if (pthread_create(&m->thread, NULL, maint_run, m) != 0) {
        fprintf(stderr, "agentmem serve: maintain: cannot start a thread\n");
        am_close(m->db);
        pthread_mutex_destroy(&m->mu);
        pthread_cond_destroy(&m->cv);
        free(m);
        return NULL;
    }
    return m;
}

void am__srv_maint_stop(srv_maint *m)
{
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    m->stop = 1;
    pthread_cond_signal(&m->cv);
    pthread_mutex_unlock(&m->mu);
    pthread_join(m->thread, NULL); /* within one step */
    am_close(m->db);
    pthread_mutex_destroy(&m->mu);
    pthread_cond_destroy(&m->cv);
    free(m);
}
