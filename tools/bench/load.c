/* SPDX-License-Identifier: Apache-2.0 */
/*
 * load.c -- `agentmem bench serve`: a bounded loopback load of the HTTP
 * server (scripts/load.sh runs it end to end).
 *
 * One thread per user, each with its own token and one keep-alive
 * connection, in a closed loop for --seconds: a write (POST /v1/events,
 * a client id each, Chinese and English texts) or a recall (POST
 * /v1/recall), --writes of them writes.  HTTP/1.1 over a plain socket
 * (tools/common/http1.c), so the client costs little of the machine it
 * measures.  Every write answered
 * 200 is written to --acked ("USER CLIENT_ID" lines): load.sh checks each
 * one is in the store afterwards.  Prints requests/s and p50/p99 per route
 * and the errors; exits 1 when any request failed.
 *
 * For a fault test (tests/sh/pg_faults.sh): --log FILE writes a line per
 * attempt ("ROUTE STATUS MS ID CODE RETRY_AFTER": the reply's error code
 * or "-", its Retry-After or "-"); --retries N sends a request answered
 * 503 or not answered again, as a client should, after Retry-After
 * (0.2 s when none; at most 1 s), with the same id, N times at most;
 * --anon K sends every Kth write without an id (its id is then the text's
 * last word, after "#", so the store can still be searched for it) and
 * never again, since a write without an idempotency key cannot be.
 *
 * --rate R makes it an open loop: each user sends a request every
 * users/R seconds (staggered across users), timed from when it was due,
 * so the latency at that load counts the wait behind a slow request
 * instead of sending less (coordinated omission).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agentmem_ops.h"
#include "http1.h"
#include "agentmem.h"
#include "bench_cli.h"

#define MAX_USERS 256
#define N_ROUTES 2 /* 0 events, 1 recall */

typedef struct lat {
    double *ms;
    size_t n, cap;
} lat;

typedef struct worker {
    int id;
    const char *user, *token;
    const char *url;
    double seconds, writes;
    FILE *acked, *log;
    pthread_mutex_t *acked_mu;
    int retries, anon;
    long retried;
    double interval, phase; /* --rate: one request every interval s, from phase */
    lat l[N_ROUTES];
    long errors[N_ROUTES], statuses[N_ROUTES][6]; /* by status / 100 */
    am_http1 conn;
    char code[40];  /* the last reply's error code, or "-" */
    int retry_after; /* its Retry-After seconds, or -1 */
} worker;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int lat_push(lat *l, double ms)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 4096;
        double *p = realloc(l->ms, cap * sizeof *p);
        if (!p) return 1;
        l->ms = p;
        l->cap = cap;
    }
    l->ms[l->n++] = ms;
    return 0;
}

/* The last reply's error code (its JSON's "code", or "-") and
 * Retry-After (-1: none) into w, for --log and --retries. */
static void reply_meta(worker *w, int status)
{
    snprintf(w->code, sizeof w->code, status ? "-" : "no_reply");
    w->retry_after = -1;
    if (!status || !w->conn.buf || !w->conn.body) return;
    const char *ra = strstr(w->conn.buf, "\r\nRetry-After:"); /* as MHD writes it */
    if (ra && ra < w->conn.body) w->retry_after = atoi(ra + 15);
    const char *code = status >= 300 ? strstr(w->conn.body, "\"code\":\"") : NULL;
    if (code) sscanf(code + 8, "%39[^\"]", w->code);
}

static const char *const texts[] = {
    "以后周报都按已完成、进行中、下周计划三段写（第%ld条）",
    "From now on, always send reports as PDF (note %ld)",
    "我下周三要去上海出差，记得提醒我订酒店（%ld）",
    "I prefer short answers with the key number first, item %ld",
};
static const char *const queries[] = {
    "帮我写这周的周报", "how should I send the report?", "我什么时候出差？",
    "what do I prefer in answers?",
};

static void *run(void *arg)
{
    worker *w = arg;
    unsigned long long x = 0x9E3779B97F4A7C15ull * (unsigned long long)(w->id + 1);
    double begin = now_s(), stop = begin + w->seconds;
    long n = 0;
    if (am_http1_init(&w->conn, w->url) != 0) {
        w->errors[0]++;
        return NULL;
    }
    while (now_s() < stop) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int write = (double)(x % 1000) / 1000.0 < w->writes;
        int anon = write && w->anon > 0 && n % w->anon == 0;
        char body[512], id[64];
        snprintf(id, sizeof id, "load-%d-%ld", w->id, n);
        if (anon) {
            char text[256];
            snprintf(text, sizeof text, texts[n % 4], n);
            snprintf(body, sizeof body, "{\"text\":\"%s #%s\",\"session\":\"s%d\"}", text, id,
                     w->id);
        } else if (write) {
            char text[256];
            snprintf(text, sizeof text, texts[n % 4], n);
            snprintf(body, sizeof body, "{\"text\":\"%s\",\"id\":\"%s\",\"session\":\"s%d\"}",
                     text, id, w->id);
        } else {
            snprintf(body, sizeof body, "{\"query\":\"%s\"}", queries[n % 4]);
        }
        int r = write ? 0 : 1, st = 0;
        double due = 0;
        if (w->interval > 0) { /* open loop: wait for its time; late, it goes at once */
            due = begin + w->phase + (double)n * w->interval;
            if (due >= stop) break;
            double wait = due - now_s();
            if (wait > 0) {
                struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
                nanosleep(&ts, NULL);
            }
        }
        for (int attempt = 0;; attempt++) {
            /* from when it was due (open loop): a late request's wait counts */
            double t0 = attempt == 0 && due > 0 ? due : now_s();
            st = am_http1_post(&w->conn, write ? "/v1/events" : "/v1/recall", w->token, body,
                               strlen(body));
            double ms = (now_s() - t0) * 1000;
            if (lat_push(&w->l[r], ms)) break;
            reply_meta(w, st);
            if (w->log) {
                char ra[16];
                snprintf(ra, sizeof ra, "%d", w->retry_after);
                pthread_mutex_lock(w->acked_mu);
                fprintf(w->log, "%s %d %.1f %s%s %s %s\n", write ? "events" : "recall", st, ms,
                        anon ? "#" : "", write ? id : "-", st == 200 ? "-" : w->code,
                        w->retry_after < 0 ? "-" : ra);
                pthread_mutex_unlock(w->acked_mu);
            }
            if ((st != 503 && st != 0) || anon || attempt >= w->retries || now_s() >= stop) break;
            w->retried++;
            double wait = w->retry_after > 0 ? (w->retry_after > 1 ? 1 : w->retry_after) : 0.2;
            struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
            nanosleep(&ts, NULL);
        }
        if (st >= 100 && st < 600) w->statuses[r][st / 100]++;
        if (st != 200) {
            w->errors[r]++;
        } else if (write) {
            pthread_mutex_lock(w->acked_mu);
            fprintf(w->acked, "%s %s%s\n", w->user, anon ? "#" : "", id);
            pthread_mutex_unlock(w->acked_mu);
        }
        n++;
    }
    am_http1_close(&w->conn);
    return NULL;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(const lat *l, double p)
{
    if (!l->n) return 0;
    size_t i = (size_t)(p * (double)(l->n - 1) + 0.5);
    return l->ms[i];
}

static int usage(void)
{
    fputs("usage: agentmem bench serve --url http://127.0.0.1:PORT --tokens FILE\n"
          "         [--seconds 30] [--writes 0.5] [--acked FILE]\n"
          "         [--log FILE] [--retries N] [--anon K] [--rate R]\n"
          "  FILE: one \"USER TOKEN\" line per user (a thread and a connection each).\n"
          "  Mixed POST /v1/events and POST /v1/recall in a closed loop; prints\n"
          "  requests/s and p50/p99 per route; --acked: every write answered 200.\n"
          "  --log: a line per attempt (route, status, ms, id, error code, Retry-After);\n"
          "  --retries: a 503 or no reply sent again (same id) after Retry-After, N times;\n"
          "  --anon: every Kth write without an id (\"#ID\" ends its text; never resent).\n"
          "  --rate: open loop, R requests/s in all (each user R/users, evenly spaced),\n"
          "  each timed from when it was due, so a request that waits behind a slow one\n"
          "  counts its wait (no coordinated omission); default: a closed loop.\n",
          stderr);
    return 2;
}

int am_cli_bench_serve(int argc, char **argv)
{
    const char *url = NULL, *tokens = NULL, *acked_path = "/dev/null", *log_path = NULL;
    double seconds = 30, writes = 0.5;
    int retries = 0, anon = 0;
    double rate = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) return usage();
        if (strcmp(argv[i], "--url") == 0) url = argv[++i];
        else if (strcmp(argv[i], "--tokens") == 0) tokens = argv[++i];
        else if (strcmp(argv[i], "--acked") == 0) acked_path = argv[++i];
        else if (strcmp(argv[i], "--seconds") == 0) seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--writes") == 0) writes = atof(argv[++i]);
        else if (strcmp(argv[i], "--log") == 0) log_path = argv[++i];
        else if (strcmp(argv[i], "--retries") == 0) retries = atoi(argv[++i]);
        else if (strcmp(argv[i], "--anon") == 0) anon = atoi(argv[++i]);
        else if (strcmp(argv[i], "--rate") == 0) rate = atof(argv[++i]);
        else return usage();
    }
    am_http1 probe;
    if (!url || !tokens || seconds <= 0 || seconds > 3600 || writes < 0 || writes > 1 ||
        retries < 0 || retries > 100 || anon < 0 || rate < 0 || rate > 1e6)
        return usage();
    if (am_http1_init(&probe, url) != 0) {
        fprintf(stderr, "agentmem bench serve: --url %s: expected http://A.B.C.D:PORT (IPv4)\n", url);
        return 2;
    }
    FILE *tf = fopen(tokens, "r"), *acked = fopen(acked_path, "w");
    FILE *log = log_path ? fopen(log_path, "w") : NULL;
    if (!tf || !acked || (log_path && !log)) {
        fprintf(stderr, "agentmem bench serve: cannot open %s\n",
                !tf ? tokens : !acked ? acked_path : log_path);
        if (tf) fclose(tf);
        if (acked) fclose(acked);
        if (log) fclose(log);
        return 1;
    }
    static worker ws[MAX_USERS];
    char users[MAX_USERS][AM_ID_MAX + 1], toks[MAX_USERS][AM_TOKEN_LEN + 1];
    int n = 0;
    while (n < MAX_USERS && fscanf(tf, "%128s %47s", users[n], toks[n]) == 2) n++;
    fclose(tf);
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_t th[MAX_USERS];
    double t0 = now_s();
    for (int i = 0; i < n; i++) {
        memset(&ws[i], 0, sizeof ws[i]);
        ws[i] = (worker){.id = i, .user = users[i], .token = toks[i], .url = url,
                         .seconds = seconds, .writes = writes, .acked = acked,
                         .log = log, .retries = retries, .anon = anon, .acked_mu = &mu};
        if (rate > 0) {
            ws[i].interval = (double)n / rate;
            ws[i].phase = ws[i].interval * (double)i / (double)n;
        }
        if (pthread_create(&th[i], NULL, run, &ws[i]) != 0) n = i;
    }
    for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
    double took = now_s() - t0;
    fclose(acked);
    if (log) fclose(log);
    long retried = 0;
    for (int i = 0; i < n; i++) retried += ws[i].retried;
    static const char *const names[N_ROUTES] = {"POST /v1/events", "POST /v1/recall"};
    long total = 0, errors = 0;
    if (rate > 0)
        printf("agentmem bench serve: %d users, %.1f s, writes %.0f%%, open loop at %.0f requests/s"
               " (latency from when each was due)\n", n, took, writes * 100, rate);
    else printf("agentmem bench serve: %d users, %.1f s, writes %.0f%%\n", n, took, writes * 100);
    lat all = {0};
    for (int r = 0; r < N_ROUTES; r++) {
        lat l = {0};
        long err = 0, by[6] = {0};
        for (int i = 0; i < n; i++) {
            for (size_t k = 0; k < ws[i].l[r].n; k++)
                if (lat_push(&l, ws[i].l[r].ms[k]) || lat_push(&all, ws[i].l[r].ms[k])) break;
            err += ws[i].errors[r];
            for (int s = 0; s < 6; s++) by[s] += ws[i].statuses[r][s];
        }
        qsort(l.ms, l.n, sizeof *l.ms, by_value);
        printf("  %-16s %7zu requests %8.1f/s  p50 %6.2f ms  p99 %6.2f ms  max %7.2f ms"
               "  errors %ld (2xx %ld 4xx %ld 5xx %ld)\n",
               names[r], l.n, (double)l.n / took, pct(&l, 0.50), pct(&l, 0.99),
               l.n ? l.ms[l.n - 1] : 0, err, by[2], by[4], by[5]);
        total += (long)l.n;
        errors += err;
        free(l.ms);
    }
    qsort(all.ms, all.n, sizeof *all.ms, by_value);
    printf("  %-16s %7ld requests %8.1f/s  p50 %6.2f ms  p99 %6.2f ms  errors %ld\n", "all", total,
           (double)total / took, pct(&all, 0.50), pct(&all, 0.99), errors);
    if (retries) printf("  resent after a 503 or no reply: %ld\n", retried);
    free(all.ms);
    for (int i = 0; i < n; i++)
        for (int r = 0; r < N_ROUTES; r++) free(ws[i].l[r].ms);
    return errors ? 1 : 0;
}
