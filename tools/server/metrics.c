/* SPDX-License-Identifier: Apache-2.0 */
/*
 * metrics.c -- what GET /metrics says, in Prometheus text format 0.0.4:
 *   agentmem_http_requests_total{route,status}      counter
 *   agentmem_http_errors_total{route,status}        counter (status >= 400)
 *   agentmem_http_request_duration_seconds{route}   histogram (from the
 *       request's first byte to the last byte of its reply)
 *   agentmem_store_bytes{file="db"|"wal"}           gauge
 *   and the engine's counters of its log records (obs.c): memories by
 *   kind and outcome, one-offs, recalls by route and reason, feedback by
 *   action, recall stage times
 * One mutex over the counters: a request adds to them once, at its end.
 * route is the route's pattern ("POST /v1/events", "GET /v1/tasks/{task_id}"),
 * never the path asked for, so the label set stays bounded; the names are
 * the route table's, given at init (metrics calls no part above it).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "srv_int.h"

static const double bounds[SRV_N_BUCKETS - 1] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                 0.1,   0.25,   0.5,   1.0,  2.5};

void am__srv_metrics_init(srv_metrics *m, const srv_route_table *t)
{
    memset(m, 0, sizeof *m);
    pthread_mutex_init(&m->mu, NULL);
    m->n_routes = t->n + 1; /* and "other" */
    for (int i = 0; i < t->n; i++) m->route_names[i] = t->v[i].name;
    m->route_names[t->n] = "other";
}

void am__srv_metrics_free(srv_metrics *m) { pthread_mutex_destroy(&m->mu); }

void am__srv_metrics_add(srv_metrics *m, int route, int status, double seconds)
{
    if (route < 0 || route >= m->n_routes) route = m->n_routes - 1;
    if (status < 100 || status > 599) status = 500;
    int b = 0;
    while (b < SRV_N_BUCKETS - 1 && seconds > bounds[b]) b++;
    pthread_mutex_lock(&m->mu);
    m->requests[route][status - 100]++;
    m->buckets[route][b]++;
    m->seconds[route] += seconds;
    m->count[route]++;
    pthread_mutex_unlock(&m->mu);
}

typedef struct out {
    char *p;
    size_t len, cap;
    int oom;
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(out *o, const char *fmt, ...)
{
    if (o->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            o->oom = 1;
            return;
        }
        if ((size_t)n < o->cap - o->len) {
            o->len += (size_t)n;
            return;
        }
        size_t cap = o->cap * 2 + (size_t)n;
        char *p = realloc(o->p, cap);
        if (!p) {
            o->oom = 1;
            return;
        }
        o->p = p;
        o->cap = cap;
    }
}

static long long file_size(const char *path, const char *suffix)
{
    char name[4096];
    struct stat st;
    snprintf(name, sizeof name, "%s%s", path, suffix);
    return stat(name, &st) == 0 ? (long long)st.st_size : 0;
}

void am__srv_metrics_store(srv_metrics *m, long reconnects, long retries)
{
    if (reconnects <= 0 && retries <= 0) return;
    pthread_mutex_lock(&m->mu);
    m->store_reconnects += (unsigned long long)(reconnects > 0 ? reconnects : 0);
    m->store_retries += (unsigned long long)(retries > 0 ? retries : 0);
    pthread_mutex_unlock(&m->mu);
}

char *am__srv_metrics_text(srv_metrics *m, const char *db_path)
{
    out o = {malloc(16384), 0, 16384, 0};
    if (!o.p) return NULL;
    srv_metrics *snap = malloc(sizeof *snap);
    if (!snap) {
        free(o.p);
        return NULL;
    }
    pthread_mutex_lock(&m->mu);
    memcpy(snap, m, sizeof *snap);
    pthread_mutex_unlock(&m->mu);
    static const char *const kinds[] = {"requests", "errors"};
    for (int k = 0; k < 2; k++) {
        put(&o, "# HELP agentmem_http_%s_total HTTP %s by route and status.\n", kinds[k],
            k ? "requests answered with an error (status >= 400)" : "requests");
        put(&o, "# TYPE agentmem_http_%s_total counter\n", kinds[k]);
        for (int r = 0; r < snap->n_routes; r++)
            for (int s = k ? 300 : 0; s < 500; s++)
                if (snap->requests[r][s])
                    put(&o, "agentmem_http_%s_total{route=\"%s\",status=\"%d\"} %llu\n", kinds[k],
                        snap->route_names[r], s + 100, snap->requests[r][s]);
    }
    put(&o, "# HELP agentmem_store_reconnects_total Store connections made again after one was"
            " lost (PostgreSQL).\n# TYPE agentmem_store_reconnects_total counter\n"
            "agentmem_store_reconnects_total %llu\n", snap->store_reconnects);
    put(&o, "# HELP agentmem_store_retries_total Requests' store calls run again on a new"
            " connection.\n# TYPE agentmem_store_retries_total counter\n"
            "agentmem_store_retries_total %llu\n", snap->store_retries);
    put(&o, "# HELP agentmem_http_request_duration_seconds Time from a request's first byte"
            " to its reply's last.\n# TYPE agentmem_http_request_duration_seconds histogram\n");
    for (int r = 0; r < snap->n_routes; r++) {
        if (!snap->count[r]) continue;
        unsigned long long cum = 0;
        for (int b = 0; b < SRV_N_BUCKETS; b++) {
            cum += snap->buckets[r][b];
            if (b < SRV_N_BUCKETS - 1)
                put(&o, "agentmem_http_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} %llu\n",
                    snap->route_names[r], bounds[b], cum);
            else
                put(&o, "agentmem_http_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %llu\n",
                    snap->route_names[r], cum);
        }
        put(&o, "agentmem_http_request_duration_seconds_sum{route=\"%s\"} %.6f\n",
            snap->route_names[r], snap->seconds[r]);
        put(&o, "agentmem_http_request_duration_seconds_count{route=\"%s\"} %llu\n",
            snap->route_names[r], snap->count[r]);
    }
    put(&o, "# HELP agentmem_store_bytes Size of the store's files.\n"
            "# TYPE agentmem_store_bytes gauge\n");
    if (db_path && strcmp(db_path, ":memory:") != 0) {
        put(&o, "agentmem_store_bytes{file=\"db\"} %lld\n", file_size(db_path, ""));
        put(&o, "agentmem_store_bytes{file=\"wal\"} %lld\n", file_size(db_path, "-wal"));
    }
    if (snap->obs) {
        char *engine = am__srv_obs_metrics(snap->obs);
        if (engine) put(&o, "%s", engine);
        else o.oom = 1;
        free(engine);
    }
    if (snap->llm) {
        char *llm = am__srv_llm_metrics(snap->llm);
        if (llm) put(&o, "%s", llm);
        else o.oom = 1;
        free(llm);
    }
    free(snap);
    if (o.oom) {
        free(o.p);
        return NULL;
    }
    return o.p;
}
