/* SPDX-License-Identifier: Apache-2.0 */
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
 *
 * With the bus (--cache, bus.c) several instances share the store and
 * every one of them would post every event: instead each event is posted
 * once across the cluster, by the instance that holds the webhook lease
 * of its URL list on its store (its "group": a hash of the URLs, in any
 * order, and of the store; an instance with another list or on another
 * store is another group and delivers on its own).
 * Not the writer: the outbox holds events no instance's requests wrote
 * (the CLI, a forget's purge), and a writer that dies after its commit
 * would take its events' deliveries along.  The lease is a Redis key
 * (SET NX PX, 3 s, renewed every tick by its holder through a Lua script
 * that checks the holder) next to a cursor key, the last seq the group
 * delivered, which the holder records after each batch it queued.  A
 * standby instance reads nothing from the store; when the lease expires
 * (its holder stopped or hung) one takes it and resumes from the
 * recorded cursor, so nothing is lost; a holder that cannot renew stops
 * posting 1 s before the lease can expire (paused), so two instances
 * never post at once.  Duplicates remain possible only for a batch queued
 * by a holder that then lost Redis before recording it and whose lease
 * another instance took: the seq and the delivery id let a receiver drop
 * them (docs/EVENTS.md).  A Redis that comes back empty (no lease, no
 * cursor) is re-taken by the last holder at once (its cursor is exact);
 * another instance takes it only after 6 s of nobody doing so, from the
 * last cursor it read.  Redis down: the deliveries wait (the outbox keeps
 * the events) and resume from the cursor when it is back.  SIGTERM gives
 * the lease up after the last pass, so a successor takes over at once.
 */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <limits.h>
#include <hiredis.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srv_int.h"
#include "webhook.h"

#define POLL_MS 200
#define LEASE_TTL_MS 3000
#define LEASE_MARGIN_MS 1000 /* a holder stops posting this long before its lease can expire */
#define RENEW_MIN_MS 250     /* the lease is asked for at most this often */

enum { ROLE_LOCAL, ROLE_STANDBY, ROLE_LEADER, ROLE_PAUSED };

struct srv_dispatch {
    am_db *db;
    am_webhook *hook;
    int64_t cursor;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
    int role;                   /* ROLE_* (under mu) */
    /* with the bus */
    srv_bus *bus;
    struct redisContext *rc;    /* the lease's connection (this thread's) */
    char group[33];
    int leader, was_leader;
    long long lease_ok_ms, tried_ms, missing_since_ms;
};

static long long mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void set_role(srv_dispatch *d, int role)
{
    static const char *const names[] = {"local", "standby", "leader", "paused"};
    pthread_mutex_lock(&d->mu);
    int was = d->role;
    d->role = role;
    pthread_mutex_unlock(&d->mu);
    if (was != role && (role == ROLE_LEADER || role == ROLE_PAUSED || was == ROLE_LEADER))
        fprintf(stderr, "agentmem serve: webhooks: %s (was %s)\n", names[role], names[was]);
}

const char *am__srv_dispatch_role(srv_dispatch *d)
{
    static const char *const names[] = {"local", "standby", "leader", "paused"};
    pthread_mutex_lock(&d->mu);
    int role = d->role;
    pthread_mutex_unlock(&d->mu);
    return names[role];
}

/* The group of a URL list on a store: the XOR of the URLs' SHA-256 (their
 * order does not matter) and the store's (a file by its real path, a
 * PostgreSQL URL as given: hashed, its password never kept), 16 bytes in
 * hex.  Instances on another store are another group even on the same
 * Redis: a cursor of one store's seqs is never applied to another's. */
static void group_of(const char *urls, const char *store, char out[33])
{
    unsigned char acc[SHA256_DIGEST_LENGTH] = {0}, h[SHA256_DIGEST_LENGTH];
    char real[PATH_MAX];
    const char *file = strncmp(store, "sqlite:", 7) == 0 ? store + 7 : store;
    if (strstr(store, "://") == NULL && realpath(file, real)) store = real;
    SHA256((const unsigned char *)store, strlen(store), acc);
    for (const char *p = urls; *p;) {
        p += strspn(p, ", \t\r\n");
        size_t n = strcspn(p, ", \t\r\n");
        if (!n) break;
        SHA256((const unsigned char *)p, n, h);
        for (int i = 0; i < SHA256_DIGEST_LENGTH; i++) acc[i] ^= h[i];
        p += n;
    }
    for (int i = 0; i < 16; i++) snprintf(out + 2 * i, 3, "%02x", acc[i]);
}

/* Renew or take the lease (at most every RENEW_MIN_MS while held) */
static void lease_tick(srv_dispatch *d)
{
    long long now = mono_ms();
    if (d->tried_ms && now - d->tried_ms < RENEW_MIN_MS) return; /* a burst of wakes: one EVAL */
    d->tried_ms = now;
    int may = d->was_leader || (d->missing_since_ms && now - d->missing_since_ms >= 2 * LEASE_TTL_MS);
    int state = 0, has = 0;
    int64_t cur = 0;
    char err[256];
    if (am__srv_bus_lease(d->bus, &d->rc, d->group, may, LEASE_TTL_MS, &state, &cur, &has, err,
                          sizeof err)) {
        if (d->leader && now - d->lease_ok_ms >= LEASE_TTL_MS - LEASE_MARGIN_MS) d->leader = 0;
        set_role(d, d->leader ? ROLE_LEADER : d->was_leader ? ROLE_PAUSED : ROLE_STANDBY);
        return;
    }
    if (state == 0) {
        if (has) d->cursor = cur; /* the group's progress: where to resume if this one takes over */
        d->missing_since_ms = has ? 0 : d->missing_since_ms ? d->missing_since_ms : now;
        d->leader = d->was_leader = 0;
        set_role(d, ROLE_STANDBY);
        return;
    }
    d->missing_since_ms = 0;
    if (state == 2) { /* taken: from the group's cursor when it has one, else this one's */
        int64_t newest = 0;
        if (has && !am__srv_events_newest(d->db, NULL, &newest) && cur > newest) {
            /* a cursor past the store's newest seq is of an earlier store at
             * this place (a file made anew): this store's events are all new */
            fprintf(stderr, "agentmem serve: webhooks: the recorded seq %lld is past the store's"
                            " newest (%lld): resuming from %lld\n", (long long)cur, (long long)newest,
                    (long long)newest);
            cur = newest;
        }
        if (has) d->cursor = cur;
        int held = 0;
        if (am__srv_bus_lease_record(d->bus, &d->rc, d->group, d->cursor, &held, err, sizeof err) ||
            !held) {
            d->leader = 0;
            set_role(d, ROLE_PAUSED);
            return;
        }
    }
    d->leader = d->was_leader = 1;
    d->lease_ok_ms = now;
    set_role(d, ROLE_LEADER);
}

/* The lease is held with time to spare: this instance may post */
static int may_post(srv_dispatch *d)
{
    return !d->bus || (d->leader && mono_ms() - d->lease_ok_ms < LEASE_TTL_MS - LEASE_MARGIN_MS);
}

/* The cursor recorded for the group; 0, or 1 (not recorded: stop posting) */
static int record(srv_dispatch *d)
{
    if (!d->bus) return 0;
    int held = 0;
    char err[256];
    if (am__srv_bus_lease_record(d->bus, &d->rc, d->group, d->cursor, &held, err, sizeof err))
        return 1; /* Redis went: the next tick pauses, or records it */
    if (!held) {
        d->leader = d->was_leader = 0;
        set_role(d, ROLE_STANDBY);
    }
    return !held;
}

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
        if (n == 0 || record(d) || !may_post(d)) return 0;
    }
}

static void *dispatch_run(void *arg)
{
    srv_dispatch *d = arg;
    pthread_mutex_lock(&d->mu);
    for (;;) {
        int stop = d->stop;
        pthread_mutex_unlock(&d->mu);
        uint64_t gen = am__srv_bus_gen(d->bus); /* before the read: a wake after it is seen */
        if (d->bus) lease_tick(d);
        int rc = may_post(d) ? drain_outbox(d) : 0;
        if (rc && rc != AM_BUSY)
            fprintf(stderr, "agentmem serve: webhook: reading the events: %s\n", am_errmsg(d->db));
        if (d->bus && !stop) {
            am__srv_bus_wait(d->bus, gen);
            pthread_mutex_lock(&d->mu);
            continue;
        }
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

srv_dispatch *am__srv_dispatch_start(const am_config *cfg, const char *urls, const char *secret,
                                     srv_bus *bus)
{
    srv_dispatch *d = calloc(1, sizeof *d);
    if (!d) {
        fprintf(stderr, "agentmem serve: out of memory\n");
        return NULL;
    }
    const char *why = NULL;
    am_webhook_opts wo;
    memset(&wo, 0, sizeof wo); /* the defaults, but the drain: SIGTERM ends the server in 5 s */
    wo.drain_ms = 1500;
    d->hook = am_webhook_new_opts(urls, secret, &wo, &why);
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
    d->bus = bus;
    d->role = bus ? ROLE_STANDBY : ROLE_LOCAL;
    group_of(urls, cfg->path ? cfg->path : "", d->group);
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
    am__srv_bus_wake(d->bus);
    pthread_join(d->thread, NULL);
    if (d->leader) { /* given up: another instance takes over at once */
        int held;
        char err[256];
        if (am__srv_bus_lease_record(d->bus, &d->rc, d->group, -1, &held, err, sizeof err))
            fprintf(stderr, "agentmem serve: webhooks: the lease not given up (%s); it expires in 3 s\n", err);
    }
    if (d->rc) redisFree(d->rc);
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
