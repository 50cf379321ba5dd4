/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench.c -- `agentmem bench DATASET [options]`: retrieval benchmarks of
 * the engine against the evidence labels of public conversational-memory
 * datasets, with in-process BM25 baselines from the same run.  See
 * docs/bench/README.md for what every figure means.
 *
 * This file parses the command line, loads the dataset (bench_data.c), runs
 * it (bench_run.c) and prints the report as a table or as JSON.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_cli.h"
#include "plural.h"

static const char usage_text[] =
    "usage: agentmem bench DATASET [options]\n"
    "  DATASET: locomo | realtalk | memdaily | madial | synth\n"
    "  --data PATH          dataset file or directory (default\n"
    "                       $AM_BENCH_DIR/<dir>; docs/bench/datasets.md)\n"
    "  --k LIST             cut-offs (default 5,10,25)\n"
    "  --json               JSON report on stdout\n"
    "  --limit N            only the first N questions\n"
    "  --every N            only every N-th conversation / trajectory\n"
    "                       (a sample across all categories)\n"
    "  --baseline NAME      bm25-paper | bm25-bigram | all: report the\n"
    "                       baseline(s) only, without the engine\n"
    "  --no-baselines       engine only\n"
    "  --distractors N      memdaily: other trajectories per haystack (50)\n"
    "  --seed N             memdaily / synth seed (1)\n"
    "  --lang en|zh|both    madial language (both)\n"
    "  --gold all|first     madial: every relevant-id (all) or the first\n"
    "  --max-memories N     am_query.max_memories (0 = engine config)\n"
    "  --budget N           am_query.budget_tokens (0 = engine config)\n"
    "  --rank NAME=V,...    override knobs for the run (agentmem knobs lists them)\n"
    "  --dump FILE          per-question rankings as JSON lines (synth:\n"
    "                       each query's text and returned event ids\n"
    "                       and scores, to compare builds)\n"
    "  --keep-stores DIR    write each unit's engine store to DIR/<user>.db\n"
    "                       (instead of memory), to open with the other\n"
    "                       commands: agentmem --db DIR/<user>.db recall\n"
    "                       --user <user> --text ...\n"
    "  --no-term-cache      scan the index for every term (am_config.\n"
    "                       no_term_cache: same results, the old speed)\n"
    "  --progress           progress on stderr, a line at a time (instead of\n"
    "                       the bar a terminal shows without it)\n"
    "  --quiet, -q          no progress bar on the terminal\n"
    "  (environment AGENTMEM_BENCH_CLOCK=cpu: latencies in each thread's CPU\n"
    "   time instead of wall time, for a machine other work shares)\n"
    "  synth: --users N (100) --events M per user (10000) --queries Q (300)\n"
    "         --batch B events per transaction (1: one am_add_event each)\n"
    "         --reuse      with --db: query a store an earlier run filled\n"
    "         --optimize   am_optimize (index merge) before the queries\n"
    "         --maintain   after the queries, the maintenance pass over every\n"
    "                      user (am_maintain): time, peak memory, what it\n"
    "                      changed, store size before and after\n"
    "         --vectors D  every event gets a D-wide vector from a random\n"
    "                      word2vec table (vector-scan cost at scale;\n"
    "                      with --db it is kept in PATH-w2v/)\n"
    "         --db PATH (default: a fresh store in a temp directory); --store\n"
    "                      URL the same (sqlite:PATH or postgres://...)\n"
    "         --cache URL  the shared cache (redis://HOST:PORT[/DB]) for every store\n"
    "         --servers N[,N...]  over N `agentmem serve` processes per run\n"
    "                      (loopback, free ports) instead of in-process: a token\n"
    "                      per user, --clients C threads (8) on keep-alive\n"
    "                      connections, user u on server u % N, --server-threads\n"
    "                      T per server (4); a row per run: ingest events/s,\n"
    "                      write and recall p50/p95, errors, acknowledged writes\n"
    "                      and how many of them the store lacks (docs/SCALING.md)\n";

typedef struct bench_args {
    const char *dataset;
    const char *data;
    int json;
    long limit, every;
    const char *baseline;
    int no_baselines;
    long distractors;
    uint64_t seed;
    const char *lang;
    int gold_first;
    int max_memories, budget;
    const char *rank_spec;
    const char *dump;
    const char *keep_stores;
    int progress;
    int quiet;               /* --quiet: no bar (nor with --progress) */
    int ks[BENCH_MAX_K];
    size_t nk;
    long users, events, queries, batch, vectors;
    int reuse, optimize, no_term_cache, maintain;
    const char *db;
    long servers[BENCH_MAX_SERVERS];
    size_t n_servers;
    long clients, server_threads;
} bench_args;

static int usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "agentmem bench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(agentmem bench --help lists the options)\n");
    return 2;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;
    if (!s || !*s)
        return -1;
    v = strtol(s, &end, 10);
    if (*end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_ks(const char *s, bench_args *a)
{
    const char *p = s;
    a->nk = 0;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        size_t i;
        if (end == p || v < 1 || v > 1000 || a->nk == BENCH_MAX_K ||
            (*end && *end != ','))
            return -1;
        for (i = 0; i < a->nk; i++)
            if (a->ks[i] == (int)v)
                return -1;
        a->ks[a->nk++] = (int)v;
        p = *end ? end + 1 : end;
    }
    if (!a->nk)
        return -1;
    /* ascending, so ks[0] is the smallest cut-off */
    {
        size_t i, j;
        for (i = 1; i < a->nk; i++)
            for (j = i; j > 0 && a->ks[j - 1] > a->ks[j]; j--) {
                int t = a->ks[j];
                a->ks[j] = a->ks[j - 1];
                a->ks[j - 1] = t;
            }
    }
    return 0;
}

/* --servers 1,2,4: distinct counts 1..BENCH_MAX_SERVERS, in the order given. */
static int parse_servers(const char *s, bench_args *a)
{
    const char *p = s;
    a->n_servers = 0;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        size_t i;
        if (end == p || v < 1 || v > BENCH_MAX_SERVERS || a->n_servers == BENCH_MAX_SERVERS ||
            (*end && *end != ','))
            return -1;
        for (i = 0; i < a->n_servers; i++)
            if (a->servers[i] == v)
                return -1;
        a->servers[a->n_servers++] = v;
        p = *end ? end + 1 : end;
    }
    return a->n_servers ? 0 : -1;
}

/* The arguments' defaults. */
static void default_args(bench_args *a)
{
    memset(a, 0, sizeof *a);
    a->distractors = 50;
    a->seed = 1;
    a->lang = "both";
    a->users = 100;
    a->events = 10000;
    a->queries = 300;
    a->clients = 8;
    a->server_threads = 4;
    a->ks[0] = 5;
    a->ks[1] = 10;
    a->ks[2] = 25;
    a->nk = 3;
}

/* Returns 0, or the exit code of a usage error. */
static int parse_args(int argc, char **argv, bench_args *a)
{
    int i;
    default_args(a);
    for (i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
#define NEED_VALUE()                                                         \
    do {                                                                     \
        if (!v)                                                              \
            return usage("%s needs a value", o);                             \
        i++;                                                                 \
    } while (0)
#define NEED_LONG(lo, hi)                                                    \
    do {                                                                     \
        NEED_VALUE();                                                        \
        if (parse_long(v, lo, hi, &n) != 0)                                  \
            return usage("%s: bad number", o);                               \
    } while (0)
        if (strcmp(o, "--json") == 0) {
            a->json = 1;
        } else if (strcmp(o, "--no-baselines") == 0) {
            a->no_baselines = 1;
        } else if (strcmp(o, "--progress") == 0) {
            a->progress = 1;
        } else if (strcmp(o, "--quiet") == 0 || strcmp(o, "-q") == 0) {
            a->quiet = 1;
        } else if (strcmp(o, "--data") == 0) {
            NEED_VALUE();
            a->data = v;
        } else if (strcmp(o, "--k") == 0) {
            NEED_VALUE();
            if (parse_ks(v, a) != 0)
                return usage("--k: expected distinct numbers 1..1000 like "
                             "5,10,25, got \"%s\"", v);
        } else if (strcmp(o, "--limit") == 0) {
            NEED_LONG(1, 1000000000L);
            a->limit = n;
        } else if (strcmp(o, "--every") == 0) {
            NEED_LONG(1, 1000000L);
            a->every = n;
        } else if (strcmp(o, "--baseline") == 0) {
            NEED_VALUE();
            if (strcmp(v, "bm25-paper") != 0 && strcmp(v, "bm25-bigram") != 0 &&
                strcmp(v, "all") != 0)
                return usage("--baseline: unknown baseline \"%s\"", v);
            a->baseline = v;
        } else if (strcmp(o, "--distractors") == 0) {
            NEED_LONG(0, 1000000L);
            a->distractors = n;
        } else if (strcmp(o, "--seed") == 0) {
            NEED_LONG(0, 2147483647L);
            a->seed = (uint64_t)n;
        } else if (strcmp(o, "--lang") == 0) {
            NEED_VALUE();
            if (strcmp(v, "en") != 0 && strcmp(v, "zh") != 0 &&
                strcmp(v, "both") != 0)
                return usage("--lang: expected en, zh or both, got \"%s\"", v);
            a->lang = v;
        } else if (strcmp(o, "--gold") == 0) {
            NEED_VALUE();
            if (strcmp(v, "all") != 0 && strcmp(v, "first") != 0)
                return usage("--gold: expected all or first, got \"%s\"", v);
            a->gold_first = strcmp(v, "first") == 0;
        } else if (strcmp(o, "--max-memories") == 0) {
            NEED_LONG(0, 1000);
            a->max_memories = (int)n;
        } else if (strcmp(o, "--budget") == 0) {
            NEED_LONG(0, 1000000L);
            a->budget = (int)n;
        } else if (strcmp(o, "--rank") == 0) {
            NEED_VALUE();
            a->rank_spec = v;
        } else if (strcmp(o, "--dump") == 0) {
            NEED_VALUE();
            a->dump = v;
        } else if (strcmp(o, "--keep-stores") == 0) {
            NEED_VALUE();
            a->keep_stores = v;
        } else if (strcmp(o, "--users") == 0) {
            NEED_LONG(1, 10000000L);
            a->users = n;
        } else if (strcmp(o, "--events") == 0) {
            NEED_LONG(1, 100000000L);
            a->events = n;
        } else if (strcmp(o, "--reuse") == 0) {
            a->reuse = 1;
        } else if (strcmp(o, "--optimize") == 0) {
            a->optimize = 1;
        } else if (strcmp(o, "--maintain") == 0) {
            a->maintain = 1;
        } else if (strcmp(o, "--no-term-cache") == 0) {
            a->no_term_cache = 1;
        } else if (strcmp(o, "--vectors") == 0) {
            NEED_LONG(1, 4096L);
            a->vectors = n;
        } else if (strcmp(o, "--batch") == 0) {
            NEED_LONG(1, 100000L);
            a->batch = n;
        } else if (strcmp(o, "--queries") == 0) {
            NEED_LONG(0, 10000000L);
            a->queries = n;
        } else if (strcmp(o, "--db") == 0 || strcmp(o, "--store") == 0) {
            NEED_VALUE();
            a->db = v;
        } else if (strcmp(o, "--cache") == 0) {
            NEED_VALUE();
            setenv("AGENTMEM_CACHE", v, 1); /* every store the bench opens */
        } else if (strcmp(o, "--servers") == 0) {
            NEED_VALUE();
            if (parse_servers(v, a) != 0)
                return usage("--servers: expected a list of 1 to 8 distinct counts of "
                             "1 to 8 like 1,2,4, got \"%s\"", v);
        } else if (strcmp(o, "--clients") == 0) {
            NEED_LONG(1, 256L);
            a->clients = n;
        } else if (strcmp(o, "--server-threads") == 0) {
            NEED_LONG(1, 64L);
            a->server_threads = n;
        } else if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
            fputs(usage_text, stdout);
            return -1;
        } else if (o[0] == '-') {
            return usage("unknown option %s", o);
        } else if (!a->dataset) {
            a->dataset = o;
        } else {
            return usage("unexpected argument %s", o);
        }
#undef NEED_LONG
#undef NEED_VALUE
    }
    if (!a->dataset) {
        fputs(usage_text, stderr);
        return 2;
    }
    return 0;
}

/* ---------------------------------------------------------------- report */

static double r3(double x)
{
    return round(x * 1000.0) / 1000.0;
}

static void set_metrics(json_t *o, const bench_acc *a, const int *ks,
                        size_t nk)
{
    json_object_set_new(o, "recall",
                        bench_json_per_k(ks, nk, a->recall, a->n));
    json_object_set_new(o, "recall_all",
                        bench_json_per_k(ks, nk, a->recall_all, a->n));
    json_object_set_new(o, "hit", bench_json_per_k(ks, nk, a->hit, a->n));
    json_object_set_new(o, "ndcg", bench_json_per_k(ks, nk, a->ndcg, a->n));
}

static json_t *latency_json(bench_sys_result *s)
{
    json_t *l = json_object();
    json_object_set_new(l, "ingest_event_p50",
                        json_real(r3(bench_samples_pct(&s->ingest_ms, 50))));
    json_object_set_new(l, "ingest_event_p95",
                        json_real(r3(bench_samples_pct(&s->ingest_ms, 95))));
    json_object_set_new(l, "recall_p50",
                        json_real(r3(bench_samples_pct(&s->recall_ms, 50))));
    json_object_set_new(l, "recall_p95",
                        json_real(r3(bench_samples_pct(&s->recall_ms, 95))));
    return l;
}

/* The figures of one system: metrics, per category, tokens, latency. */
static void system_json(json_t *o, bench_report *r, int s, const int *ks,
                        size_t nk)
{
    bench_sys_result *res = &r->sys[s];
    json_t *cats = json_object();
    size_t i;
    double q = res->total.n;
    json_object_set_new(o, "questions", json_integer((json_int_t)q));
    set_metrics(o, &res->total, ks, nk);
    for (i = 0; i < r->n_cats; i++) {
        json_t *c;
        if (res->cats[i].acc.n == 0)
            continue; /* --limit stopped before this category */
        c = json_object();
        json_object_set_new(c, "questions",
                            json_integer((json_int_t)res->cats[i].acc.n));
        set_metrics(c, &res->cats[i].acc, ks, nk);
        json_object_set_new(cats, res->cats[i].label, c);
    }
    json_object_set_new(o, "by_category", cats);
    json_object_set_new(o, "block_tokens_mean",
                        json_real(q > 0 ? r3(res->block_tokens_sum / q) : 0));
    json_object_set_new(o, "latency_ms", latency_json(res));
}

static json_t *report_json(const bench_args *a, const bench_dataset *ds,
                           bench_report *r, const bench_run_opts *o)
{
    json_t *root = json_object(), *ev = json_object(), *kv = json_array();
    json_t *base = json_object(), *cfg = json_object();
    size_t i;
    int s, p = o->primary;
    double q = (double)r->questions;
    double full = q > 0 ? r->full_tokens_sum / q : 0;
    json_object_set_new(root, "dataset", json_string(ds->name));
    json_object_set_new(root, "data", json_string(ds->path));
    json_object_set_new(root, "mode", json_string(bench_sys_names[p]));
    for (i = 0; i < o->nk; i++)
        json_array_append_new(kv, json_integer(o->ks[i]));
    json_object_set_new(root, "k", kv);
    system_json(root, r, p, o->ks, o->nk);
    json_object_set_new(root, "full_context_tokens_mean", json_real(r3(full)));
    json_object_set_new(
        root, "block_vs_full",
        json_real(full > 0 ? round(r->sys[p].block_tokens_sum / q / full *
                                   10000.0) / 10000.0
                           : 0));
    json_object_set_new(root, "units", json_integer(r->units));
    json_object_set_new(root, "events", json_integer(r->events));
    json_object_set_new(ev, "refs", json_integer(ds->refs));
    json_object_set_new(ev, "resolved", json_integer(ds->refs_resolved));
    json_object_set_new(ev, "skipped_no_evidence",
                        json_integer(ds->skipped_no_evidence));
    if (strcmp(ds->name, "locomo") == 0)
        json_object_set_new(ev, "skipped_category_5",
                            json_integer(ds->skipped_adversarial));
    json_object_set_new(root, "evidence", ev);
    if (strcmp(ds->name, "memdaily") == 0) {
        json_object_set_new(root, "distractors", json_integer(ds->distractors));
        json_object_set_new(root, "seed", json_integer((json_int_t)a->seed));
    }
    if (strcmp(ds->name, "madial") == 0) {
        json_object_set_new(root, "lang", json_string(a->lang));
        json_object_set_new(root, "gold",
                            json_string(a->gold_first ? "first" : "all"));
    }
    if (a->limit)
        json_object_set_new(root, "limit", json_integer(a->limit));
    if (a->every > 1)
        json_object_set_new(root, "every", json_integer(a->every));
    if (p == BENCH_SYS_ENGINE) {
        bench_sys_result *e = &r->sys[BENCH_SYS_ENGINE];
        json_t *eng = json_object();
        json_object_set_new(eng, "events_returned_mean",
                            json_real(q > 0 ? r3(e->events_sum / q) : 0));
        json_object_set_new(eng, "memories_mean",
                            json_real(q > 0 ? r3(e->memories_sum / q) : 0));
        json_object_set_new(eng, "route_none", json_integer(e->route_none));
        json_object_set_new(
            eng, "ingest_events_per_s",
            json_real(e->ingest_total_ms > 0
                          ? r3((double)e->ingest_events * 1000.0 /
                               e->ingest_total_ms)
                          : 0));
        json_object_set_new(root, "engine", eng);
    }
    json_object_set_new(cfg, "max_events", json_integer(o->maxk));
    json_object_set_new(cfg, "max_memories", json_integer(o->max_memories));
    json_object_set_new(cfg, "budget_tokens", json_integer(o->budget_tokens));
    json_object_set_new(cfg, "rank", a->rank_spec ? json_string(a->rank_spec)
                                                  : json_null());
    json_object_set_new(root, "config", cfg);
    for (s = BENCH_SYS_BM25_PAPER; s < BENCH_N_SYS; s++) {
        json_t *b;
        if (!r->sys[s].ran)
            continue;
        b = json_object();
        system_json(b, r, s, o->ks, o->nk);
        json_object_set_new(base, bench_sys_names[s], b);
    }
    json_object_set_new(root, "baselines", base);
    return root;
}

static void print_metric_row(const char *name, const bench_acc *a,
                             size_t nk)
{
    size_t i;
    const double *m[4];
    int j;
    m[0] = a->recall;
    m[1] = a->recall_all;
    m[2] = a->hit;
    m[3] = a->ndcg;
    printf("%-14s %5.0f", name, a->n);
    for (j = 0; j < 4; j++) {
        printf(" |");
        for (i = 0; i < nk; i++)
            printf(" %6.3f", a->n > 0 ? m[j][i] / a->n : 0.0);
    }
    printf("\n");
}

static void print_header(const char *first, const int *ks, size_t nk)
{
    static const char *const names[4] = {"recall", "all", "hit", "ndcg"};
    size_t i;
    int j;
    printf("%-14s %5s", first, "n");
    for (j = 0; j < 4; j++) {
        printf(" |");
        for (i = 0; i < nk; i++) {
            char h[24];
            snprintf(h, sizeof h, "%s@%d", i == 0 ? names[j] : "", ks[i]);
            printf(" %6s", h);
        }
    }
    printf("\n");
}

static void report_table(const bench_args *a, const bench_dataset *ds,
                         bench_report *r, const bench_run_opts *o)
{
    double q = (double)r->questions;
    double full = q > 0 ? r->full_tokens_sum / q : 0;
    size_t i;
    int s;
    printf("%s (%s): %ld %s, %ld %s, %ld %s ingested\n", ds->name, ds->path,
           r->questions, am_plural(r->questions, "question", "questions"), r->units,
           am_plural(r->units, "unit", "units"), r->events,
           am_plural(r->events, "event", "events"));
    printf("evidence: %ld of %ld %s resolved; skipped %ld %s without "
           "resolvable evidence", ds->refs_resolved, ds->refs,
           am_plural(ds->refs, "ref", "refs"), ds->skipped_no_evidence,
           am_plural(ds->skipped_no_evidence, "question", "questions"));
    if (strcmp(ds->name, "locomo") == 0)
        printf(", %ld category 5", ds->skipped_adversarial);
    if (strcmp(ds->name, "memdaily") == 0)
        printf("; %ld distractor trajectories, seed %llu", ds->distractors,
               (unsigned long long)a->seed);
    printf("\n\n");
    print_header("system", o->ks, o->nk);
    for (s = 0; s < BENCH_N_SYS; s++)
        if (r->sys[s].ran)
            print_metric_row(bench_sys_names[s], &r->sys[s].total, o->nk);
    printf("\nby category (%s)\n", bench_sys_names[o->primary]);
    print_header("category", o->ks, o->nk);
    for (i = 0; i < r->n_cats; i++)
        if (r->sys[o->primary].cats[i].acc.n > 0)
            print_metric_row(r->sys[o->primary].cats[i].label,
                             &r->sys[o->primary].cats[i].acc, o->nk);
    printf("\n%-14s %12s %12s %12s %12s %12s\n", "system", "block tok",
           "ingest p50", "ingest p95", "recall p50", "recall p95");
    for (s = 0; s < BENCH_N_SYS; s++) {
        bench_sys_result *res = &r->sys[s];
        if (!res->ran)
            continue;
        printf("%-14s %12.1f %12.3f %12.3f %12.3f %12.3f\n",
               bench_sys_names[s], q > 0 ? res->block_tokens_sum / q : 0.0,
               bench_samples_pct(&res->ingest_ms, 50),
               bench_samples_pct(&res->ingest_ms, 95),
               bench_samples_pct(&res->recall_ms, 50),
               bench_samples_pct(&res->recall_ms, 95));
    }
    printf("full context: %.1f tokens per question (history of its unit); "
           "latencies in ms\n", full);
    if (r->sys[BENCH_SYS_ENGINE].ran && q > 0)
        printf("engine: %.2f events and %.2f memories per recall, %ld routed "
               "to none\n", r->sys[BENCH_SYS_ENGINE].events_sum / q,
               r->sys[BENCH_SYS_ENGINE].memories_sum / q,
               r->sys[BENCH_SYS_ENGINE].route_none);
}

/* ---------------------------------------------------------------- main */

static const char *dataset_dir(const char *name)
{
    if (strcmp(name, "locomo") == 0)
        return "locomo";
    if (strcmp(name, "realtalk") == 0)
        return "realtalk";
    if (strcmp(name, "memdaily") == 0)
        return "memdaily";
    if (strcmp(name, "madial") == 0)
        return "madial_bench";
    return NULL;
}

static int run_dataset(const bench_args *a, const am_rank_config *rank)
{
    bench_dataset ds;
    bench_report rep;
    bench_run_opts o;
    bench_load_opts lo;
    bench_err e;
    char path[4096];
    const char *dir = dataset_dir(a->dataset);
    int rc = 1;
    size_t i;
    memset(&o, 0, sizeof o);
    memset(&lo, 0, sizeof lo);
    e.msg[0] = '\0';
    if (a->data) {
        snprintf(path, sizeof path, "%s", a->data);
    } else {
        const char *root = getenv("AM_BENCH_DIR");
        snprintf(path, sizeof path, "%s/%s",
                 root && *root ? root : "../shared/bench", dir);
    }
    if (a->keep_stores && !bench_is_dir(a->keep_stores)) {
        fprintf(stderr, "agentmem bench: --keep-stores %s: not a directory\n", a->keep_stores);
        return 2;
    }
    lo.distractors = (int)a->distractors;
    lo.seed = a->seed;
    lo.lang = a->lang;
    lo.gold_first = a->gold_first;
    if (bench_load(&ds, a->dataset, path, &lo, &e) != 0) {
        fprintf(stderr, "agentmem bench: %s\n", e.msg);
        bench_dataset_free(&ds);
        return 1;
    }
    for (i = 0; i < a->nk; i++)
        o.ks[i] = a->ks[i];
    o.nk = a->nk;
    o.maxk = a->ks[a->nk - 1];
    o.limit = a->limit;
    o.every = a->every;
    o.max_memories = a->max_memories;
    o.budget_tokens = a->budget;
    o.rank = rank;
    o.no_term_cache = a->no_term_cache;
    o.dump_path = a->dump;
    o.keep_stores = a->keep_stores;
    o.progress = a->progress;
    o.quiet = a->quiet || a->progress;
    o.systems[BENCH_SYS_ENGINE] = !a->baseline;
    o.systems[BENCH_SYS_BM25_PAPER] = !a->no_baselines;
    o.systems[BENCH_SYS_BM25_BIGRAM] = !a->no_baselines;
    o.primary = BENCH_SYS_ENGINE;
    if (a->baseline)
        o.primary = strcmp(a->baseline, "bm25-bigram") == 0
                        ? BENCH_SYS_BM25_BIGRAM
                        : BENCH_SYS_BM25_PAPER;
    if (bench_run(&ds, &o, &rep, &e) != 0) {
        fprintf(stderr, "agentmem bench: %s\n", e.msg);
        goto out;
    }
    if (rep.questions == 0) {
        fprintf(stderr, "agentmem bench: %s: no scorable question\n", path);
        goto out;
    }
    if (a->json) {
        json_t *root = report_json(a, &ds, &rep, &o);
        char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                          JSON_REAL_PRECISION(10));
        json_decref(root);
        if (!text) {
            fprintf(stderr, "agentmem bench: out of memory\n");
            goto out;
        }
        printf("%s\n", text);
        free(text);
    } else {
        report_table(a, &ds, &rep, &o);
    }
    rc = 0;
out:
    bench_report_free(&rep);
    bench_dataset_free(&ds);
    return rc;
}

int am_cli_bench(int argc, char **argv, int quiet)
{
    bench_args a;
    am_config cfg;
    bench_err e;
    const am_rank_config *rank = NULL;
    int rc = parse_args(argc, argv, &a);
    if (rc < 0)
        return 0; /* --help */
    if (rc)
        return rc;
    a.quiet |= quiet;
    if (a.rank_spec) {
        am_config_init(&cfg);
        cfg.process_tuning = AM_PROCESS_ALL; /* a program of its own: the process is ours */
        if (bench_rank_apply(&cfg, a.rank_spec, &e) != 0) {
            fprintf(stderr, "agentmem bench: %s\n", e.msg);
            return 2;
        }
        rank = &cfg.rank;
    }
    if (strcmp(a.dataset, "synth") == 0) {
        bench_synth_opts so;
        size_t i;
        if (a.keep_stores) {
            fprintf(stderr, "agentmem bench: --keep-stores is for the datasets; synth keeps its store with --db\n");
            return 2;
        }
        memset(&so, 0, sizeof so);
        so.users = a.users;
        so.events = a.events;
        so.queries = a.queries;
        so.batch = a.batch;
        so.vectors = a.vectors;
        so.reuse = a.reuse;
        so.optimize = a.optimize;
        so.maintain = a.maintain;
        so.no_term_cache = a.no_term_cache;
        if (a.reuse && !a.db) {
            fprintf(stderr, "agentmem bench: --reuse needs --db PATH\n");
            return 2;
        }
        so.embedder = getenv("AGENTMEM_EMBEDDER");
        so.seed = a.seed;
        so.db = a.db;
        so.dump = a.dump;
        for (i = 0; i < a.nk; i++)
            so.ks[i] = a.ks[i];
        so.nk = a.nk;
        so.maxk = a.ks[a.nk - 1];
        so.rank = rank;
        so.json = a.json;
        so.progress = a.progress;
        so.quiet = a.quiet || a.progress;
        for (i = 0; i < a.n_servers; i++)
            so.servers[i] = a.servers[i];
        so.n_servers = a.n_servers;
        so.clients = a.clients;
        so.server_threads = a.server_threads;
        if (a.n_servers) {
            /* the servers run the engine with its configuration */
            const char *bad = a.reuse ? "--reuse" : a.optimize ? "--optimize"
                            : a.maintain ? "--maintain"
                            : a.vectors ? "--vectors" : a.batch > 1 ? "--batch"
                            : a.dump ? "--dump" : a.rank_spec ? "--rank"
                            : a.no_term_cache ? "--no-term-cache" : NULL;
            if (bad) {
                fprintf(stderr, "agentmem bench: %s is not for synth --servers\n", bad);
                return 2;
            }
            if (bench_synth_servers(&so, &e) != 0) {
                fprintf(stderr, "agentmem bench: %s\n", e.msg);
                return 1;
            }
            return 0;
        }
        if (bench_synth(&so, &e) != 0) {
            fprintf(stderr, "agentmem bench: %s\n", e.msg);
            return 1;
        }
        return 0;
    }
    if (!dataset_dir(a.dataset))
        return usage("unknown dataset \"%s\"", a.dataset);
    return run_dataset(&a, rank);
}
