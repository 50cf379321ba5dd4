/* SPDX-License-Identifier: Apache-2.0 */
/*
 * limits.c -- fair shares of the server's long-lived work, and a log that
 * a flood cannot flood.
 *
 * Slots: every running export and event stream holds one, naming the user
 * it reads and the token that asked for it.  A new one is refused when
 * the server is stopping or full (SRV_*_MAX in all: 503 "busy"), or when
 * its user or its token already holds SRV_*_PER_TENANT of that kind (429
 * "too_many_requests"): one tenant at its caps leaves the other slots to
 * the others.  Under pool_mu, with n_streams (pool_close waits for it).
 * A slot may carry a cut function: at shutdown every slot still held is
 * cut (its connection resumed so that its reader ends it), so that no
 * connection is left suspended when MHD stops.
 *
 * The log: at most SRV_LOG_PER_S lines a second; the rest are counted and
 * the count is printed with the next line, or by am__srv_log_flush.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "srv_int.h"
#include "plural.h"

static const char *const kind_name[] = {"", "export", "event stream"};

int am__srv_slot_take(am_srv *s, int kind, const char *user, const char *token, int *slot,
                      char *why, size_t n)
{
    int max = kind == SRV_SLOT_EXPORT ? SRV_EXPORTS_MAX : SRV_STREAMS_MAX;
    int per = kind == SRV_SLOT_EXPORT ? SRV_EXPORTS_PER_TENANT : SRV_STREAMS_PER_TENANT;
    int all = 0, of_user = 0, of_token = 0, free_at = -1;
    *slot = -1;
    pthread_mutex_lock(&s->pool_mu);
    for (int i = 0; i < SRV_SLOTS; i++) {
        const srv_slot *sl = &s->slots[i];
        if (!sl->kind) {
            if (free_at < 0) free_at = i;
            continue;
        }
        if (sl->kind != kind) continue;
        all++;
        of_user += strcmp(sl->user, user) == 0;
        of_token += token[0] && strcmp(sl->token, token) == 0;
    }
    int refused = SRV_REFUSED_NONE;
    if (s->stopping) {
        refused = SRV_REFUSED_BUSY;
        snprintf(why, n, "%s: the server is stopping", kind_name[kind]);
    } else if (of_user >= per) {
        refused = SRV_REFUSED_TENANT;
        snprintf(why, n, "%s: this user already has %d running (the most one user may);"
                         " end one, or retry later", kind_name[kind], of_user);
    } else if (of_token >= per) {
        refused = SRV_REFUSED_TENANT;
        snprintf(why, n, "%s: this token already has %d running (the most one token may);"
                         " end one, or retry later", kind_name[kind], of_token);
    } else if (all >= max || free_at < 0) {
        refused = SRV_REFUSED_BUSY;
        snprintf(why, n, "%s: the server runs %d already (the most at once); retry later",
                 kind_name[kind], all);
    } else {
        srv_slot *sl = &s->slots[free_at];
        memset(sl, 0, sizeof *sl);
        sl->kind = kind;
        snprintf(sl->user, sizeof sl->user, "%s", user);
        snprintf(sl->token, sizeof sl->token, "%s", token);
        if (kind == SRV_SLOT_STREAM) s->n_streams++;
        *slot = free_at;
    }
    pthread_mutex_unlock(&s->pool_mu);
    if (refused) am__srv_log(s, "refused: %s", why);
    return refused;
}

void am__srv_slot_cut_fn(am_srv *s, int slot, void (*cut)(void *job), void *job)
{
    if (slot < 0) return;
    pthread_mutex_lock(&s->pool_mu);
    s->slots[slot].cut = cut;
    s->slots[slot].job = job;
    pthread_mutex_unlock(&s->pool_mu);
}

void am__srv_slot_put(am_srv *s, int slot)
{
    if (slot < 0) return;
    pthread_mutex_lock(&s->pool_mu);
    if (s->slots[slot].kind == SRV_SLOT_STREAM) s->n_streams--;
    memset(&s->slots[slot], 0, sizeof s->slots[slot]);
    pthread_cond_broadcast(&s->pool_cv);
    pthread_mutex_unlock(&s->pool_mu);
}

void am__srv_slots_cut(am_srv *s)
{
    pthread_mutex_lock(&s->pool_mu);
    /* a slot's job lives while its slot is held: its thread lets the slot
     * go (under pool_mu) before it lets the job go */
    for (int i = 0; i < SRV_SLOTS; i++)
        if (s->slots[i].kind && s->slots[i].cut) s->slots[i].cut(s->slots[i].job);
    pthread_mutex_unlock(&s->pool_mu);
}

void am__srv_exports_cut_user(am_srv *s, const char *user)
{
    pthread_mutex_lock(&s->pool_mu);
    for (int i = 0; i < SRV_SLOTS; i++)
        if (s->slots[i].kind == SRV_SLOT_EXPORT && s->slots[i].cut &&
            strcmp(s->slots[i].user, user) == 0)
            s->slots[i].cut(s->slots[i].job);
    pthread_mutex_unlock(&s->pool_mu);
}

void am__srv_refused(srv_reply *out, int refused, const char *why)
{
    am__srv_error(out, refused == SRV_REFUSED_TENANT ? "too_many_requests" : "busy", NULL, "%s",
                  why);
}

/* ------------------------------------------------------------ the log */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Under log_mu: a new second opened, with the count of the last one's
 * suppressed lines printed */
static void log_window(am_srv *s, double now)
{
    if (now - s->log_window < 1.0) return;
    if (s->log_suppressed)
        fprintf(stderr, "agentmem serve: (%ld similar %s suppressed in the last %.0f s)\n",
                s->log_suppressed, am_plural(s->log_suppressed, "line", "lines"), now - s->log_window < 60 ? now - s->log_window : 60);
    s->log_window = now;
    s->log_lines = 0;
    s->log_suppressed = 0;
}

void am__srv_vlog(am_srv *s, const char *fmt, va_list ap)
{
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    line[strcspn(line, "\n")] = '\0';
    pthread_mutex_lock(&s->log_mu);
    log_window(s, now_s());
    if (s->log_lines < SRV_LOG_PER_S) {
        s->log_lines++;
        fprintf(stderr, "agentmem serve: %s\n", line);
    } else s->log_suppressed++;
    pthread_mutex_unlock(&s->log_mu);
}

void am__srv_log(am_srv *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    am__srv_vlog(s, fmt, ap);
    va_end(ap);
}

void am__srv_log_flush(am_srv *s)
{
    pthread_mutex_lock(&s->log_mu);
    log_window(s, now_s());
    pthread_mutex_unlock(&s->log_mu);
}
