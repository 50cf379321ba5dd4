/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_run.c -- replays a bench_dataset through the engine and the BM25
 * baselines and accumulates the figures of the report.
 *
 * Engine: one fresh ":memory:" store per unit, the injected clock set to
 * each event's time while it is added and to the unit's "now" (after its
 * last event) for every recall; am_query.max_events = the largest k.
 * Baselines: the same documents of the unit indexed in process, no engine.
 * Every system sees the same units, in the same order, with the same
 * questions, so one run yields comparable figures.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "progress.h"

const char *const bench_sys_names[BENCH_N_SYS] = {"engine", "bm25-paper",
                                                  "bm25-bigram"};

/* ---------------------------------------------------------------- rank hook */

/* The library's knob names, comma-separated, into buf (truncated). */
static void knob_names(char *buf, size_t cap)
{
    size_t i, len = 0;
    buf[0] = '\0';
    for (i = 0; i < am_knob_count() && len + 1 < cap; i++) {
        int w = snprintf(buf + len, cap - len, "%s%s", i ? ", " : "",
                         am_knob_info(i)->name);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

int bench_rank_apply(am_config *cfg, const char *spec, bench_err *e)
{
    const char *p = spec;
    while (*p) {
        const char *end = strchr(p, ','), *eq;
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char name[64], *stop, why[256], known[768];
        double v;
        eq = memchr(p, '=', n);
        if (!eq || (size_t)(eq - p) >= sizeof name)
            return bench_fail(e, "--rank: \"%.*s\": expected name=value",
                              (int)n, p);
        memcpy(name, p, (size_t)(eq - p));
        name[eq - p] = '\0';
        v = strtod(eq + 1, &stop);
        if (stop == eq + 1 || stop != p + n)
            return bench_fail(e, "--rank: %s: \"%.*s\" is not a number", name,
                              (int)(p + n - eq - 1), eq + 1);
        if (am_config_set(cfg, name, v) != AM_OK) {
            am_knob_check(name, v, why, sizeof why);
            if (am_knob_find(name))
                return bench_fail(e, "--rank: %s", why);
            knob_names(known, sizeof known);
            return bench_fail(e, "--rank: %s (known: %s)", why, known);
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* ---------------------------------------------------------------- helpers */

typedef struct run_ctx {
    const bench_dataset *ds;
    const bench_run_opts *o;
    bench_report *r;
    bench_err *e;
    size_t *ranked;   /* [BENCH_N_SYS][questions of unit][maxk] */
    size_t *n_ranked; /* [BENCH_N_SYS][questions of unit] */
    size_t unit_qs;   /* questions of the current unit */
    FILE *dump;
} run_ctx;

static size_t cat_index(const bench_report *r, const char *label)
{
    size_t i;
    for (i = 0; i < r->n_cats; i++)
        if (strcmp(r->cat_labels[i], label) == 0)
            return i;
    return 0;
}

static int cmp_label(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int collect_categories(const bench_dataset *ds, bench_report *r)
{
    size_t i, cap = 0, s;
    for (i = 0; i < ds->n_qs; i++) {
        size_t k;
        for (k = 0; k < r->n_cats; k++)
            if (strcmp(r->cat_labels[k], ds->qs[i].category) == 0)
                break;
        if (k < r->n_cats)
            continue;
        if (bench_grow((void **)&r->cat_labels, &cap, r->n_cats + 1,
                       sizeof *r->cat_labels) != 0)
            return -1;
        r->cat_labels[r->n_cats++] = ds->qs[i].category;
    }
    if (r->n_cats)
        qsort(r->cat_labels, r->n_cats, sizeof *r->cat_labels, cmp_label);
    for (s = 0; s < BENCH_N_SYS; s++) {
        r->sys[s].cats = calloc(r->n_cats ? r->n_cats : 1,
                                sizeof *r->sys[s].cats);
        if (!r->sys[s].cats)
            return -1;
        for (i = 0; i < r->n_cats; i++)
            r->sys[s].cats[i].label = r->cat_labels[i];
    }
    return 0;
}

/* Score question qi (index within the unit) of system s. */
static void score(run_ctx *c, int s, const bench_question *q, size_t qi,
                  const size_t *ranked, size_t n_ranked)
{
    bench_sys_result *res = &c->r->sys[s];
    const bench_run_opts *o = c->o;
    size_t *dst = c->ranked + ((size_t)s * c->unit_qs + qi) * (size_t)o->maxk;
    bench_acc_add(&res->total, o->ks, o->nk, ranked, n_ranked, q->gold,
                  q->n_gold);
    bench_acc_add(&res->cats[cat_index(c->r, q->category)].acc, o->ks, o->nk,
                  ranked, n_ranked, q->gold, q->n_gold);
    if (n_ranked > (size_t)o->maxk)
        n_ranked = (size_t)o->maxk;
    memcpy(dst, ranked, n_ranked * sizeof *ranked);
    c->n_ranked[(size_t)s * c->unit_qs + qi] = n_ranked;
}

/* ---------------------------------------------------------------- engine */

typedef struct bench_clock {
    am_time now;
} bench_clock;

static am_time clock_now(void *ctx)
{
    return ((bench_clock *)ctx)->now;
}

typedef struct timed {
    int64_t at_ms;
    size_t pos;
} timed;

static int cmp_timed(const void *a, const void *b)
{
    const timed *x = a, *y = b;
    if (x->at_ms != y->at_ms)
        return x->at_ms < y->at_ms ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The unit's documents in time order (ties keep the unit order), so the
 * injected clock only moves forward while events are added. */
static timed *chronological(const bench_dataset *ds, const bench_unit *u)
{
    timed *v = malloc((u->n_docs + 1) * sizeof *v);
    size_t i;
    if (!v)
        return NULL;
    for (i = 0; i < u->n_docs; i++) {
        v[i].at_ms = ds->docs[u->docs[i]].at_ms;
        v[i].pos = i;
    }
    if (u->n_docs)
        qsort(v, u->n_docs, sizeof *v, cmp_timed);
    return v;
}

static int engine_ingest(run_ctx *c, am_db *db, bench_clock *clk,
                         const bench_unit *u, bench_map *ids)
{
    bench_sys_result *res = &c->r->sys[BENCH_SYS_ENGINE];
    timed *order = chronological(c->ds, u);
    size_t i;
    int rc = 0;
    if (!order)
        return bench_fail(c->e, "out of memory");
    for (i = 0; i < u->n_docs && rc == 0; i++) {
        size_t pool = u->docs[order[i].pos];
        const bench_doc *d = &c->ds->docs[pool];
        am_event ev;
        am_add_info info;
        double t0, t1;
        int arc;
        memset(&ev, 0, sizeof ev);
        memset(&info, 0, sizeof info);
        ev.user_id = u->user_id;
        ev.session_id = d->session;
        ev.text = d->text;
        ev.occurred_at = d->at;
        clk->now = d->at_ms;
        t0 = bench_mono_ms();
        arc = am_add_event(db, &ev, &info);
        t1 = bench_mono_ms();
        if (arc != AM_OK) {
            rc = bench_fail(c->e, "engine: am_add_event (user %s, %s at %s): "
                            "%s: %s", u->user_id, d->key, d->at,
                            am_errstr(arc), am_errmsg(db));
            break;
        }
        if (bench_samples_add(&res->ingest_ms, t1 - t0) != 0 ||
            bench_map_put(ids, info.event_id, strlen(info.event_id), pool,
                          NULL) < 0) {
            rc = bench_fail(c->e, "out of memory");
            break;
        }
        res->ingest_total_ms += t1 - t0;
        res->ingest_events++;
    }
    free(order);
    return rc;
}

static int engine_recall(run_ctx *c, am_db *db, bench_clock *clk,
                         const bench_unit *u, const bench_map *ids,
                         size_t q_end)
{
    bench_sys_result *res = &c->r->sys[BENCH_SYS_ENGINE];
    const bench_run_opts *o = c->o;
    size_t *ranked = malloc((size_t)o->maxk * sizeof *ranked), qi;
    if (!ranked)
        return bench_fail(c->e, "out of memory");
    clk->now = u->now_ms;
    for (qi = u->q_begin; qi < q_end; qi++) {
        const bench_question *q = &c->ds->qs[qi];
        am_query query;
        am_recall_result *rr = NULL;
        size_t i, n = 0;
        double t0, t1;
        int rc;
        memset(&query, 0, sizeof query);
        query.user_id = u->user_id;
        query.text = q->text;
        query.max_events = o->maxk;
        query.max_memories = o->max_memories;
        query.budget_tokens = o->budget_tokens;
        query.no_touch = 1; /* every question sees the same store */
        t0 = bench_mono_ms();
        rc = am_recall(db, &query, &rr);
        t1 = bench_mono_ms();
        if (rc != AM_OK || !rr) {
            free(ranked);
            am_recall_free(rr);
            return bench_fail(c->e, "engine: am_recall (question %s): %s: %s",
                              q->id, am_errstr(rc), am_errmsg(db));
        }
        for (i = 0; i < rr->n_events && n < (size_t)o->maxk; i++) {
            size_t idx;
            if (rr->events[i].id &&
                bench_map_get(ids, rr->events[i].id, strlen(rr->events[i].id),
                              &idx))
                ranked[n++] = idx;
        }
        if (bench_samples_add(&res->recall_ms, t1 - t0) != 0) {
            free(ranked);
            am_recall_free(rr);
            return bench_fail(c->e, "out of memory");
        }
        res->block_tokens_sum += rr->block_tokens;
        res->memories_sum += (double)rr->n_memories;
        res->events_sum += (double)rr->n_events;
        if (!rr->need_memory || (rr->route && strcmp(rr->route, "none") == 0))
            res->route_none++;
        score(c, BENCH_SYS_ENGINE, q, qi - u->q_begin, ranked, n);
        am_recall_free(rr);
    }
    free(ranked);
    return 0;
}

static int engine_unit(run_ctx *c, const bench_unit *u, size_t q_end)
{
    am_config cfg;
    am_db *db = NULL;
    char *err = NULL;
    bench_clock clk = {0};
    bench_map ids = {0};
    int rc;
    am_config_init(&cfg);
    cfg.process_tuning = AM_PROCESS_ALL; /* a program of its own: the process is ours */
    if (c->o->rank)
        cfg.rank = *c->o->rank;
    cfg.no_term_cache = c->o->no_term_cache;
    cfg.path = ":memory:";
    cfg.cache = getenv("AGENTMEM_CACHE"); /* bench --cache */
    char kept[4096];
    if (c->o->keep_stores) {
        /* a fresh store each run: the unit's events, nothing older */
        /* the unit's user id as a file name: only [A-Za-z0-9._-], no
         * leading dot (a dataset's id never leaves the directory) */
        char name[256];
        size_t k;
        for (k = 0; u->user_id[k] && k + 1 < sizeof name; k++) {
            char ch = u->user_id[k];
            int safe = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                       (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || (ch == '.' && k > 0);
            name[k] = safe ? ch : '_';
        }
        name[k] = '\0';
        int n = snprintf(kept, sizeof kept, "%s/%s.db", c->o->keep_stores, name);
        if (n < 0 || (size_t)n >= sizeof kept)
            return bench_fail(c->e, "--keep-stores: path too long");
        if (bench_remove_store(kept, c->e) != 0) return -1;
        cfg.path = kept;
    }
    cfg.embedder = getenv("AGENTMEM_EMBEDDER"); /* e.g. use-lite, w2v:PATH */
    cfg.embedder_key = getenv("AGENTMEM_EMBEDDER_KEY");
    cfg.clock = clock_now;
    cfg.clock_ctx = &clk;
    clk.now = u->n_docs ? c->ds->docs[u->docs[0]].at_ms : u->now_ms;
    rc = am_open(&cfg, &db, &err);
    if (rc != AM_OK) {
        bench_fail(c->e, "engine: am_open(\":memory:\"): %s: %s",
                   am_errstr(rc), err ? err : "");
        am_free(err);
        return -1;
    }
    rc = engine_ingest(c, db, &clk, u, &ids);
    if (rc == 0)
        rc = engine_recall(c, db, &clk, u, &ids, q_end);
    bench_map_clear(&ids);
    am_close(db);
    return rc;
}

/* ---------------------------------------------------------------- bm25 */

static int bm25_unit(run_ctx *c, int s, const bench_unit *u, size_t q_end)
{
    bench_sys_result *res = &c->r->sys[s];
    const bench_run_opts *o = c->o;
    bench_bm25_params p = {1.5, 0.75, 0.25, BENCH_TOK_WHITESPACE};
    bench_bm25 *ix = NULL;
    const char **texts = malloc((u->n_docs + 1) * sizeof *texts);
    size_t *pos = malloc((size_t)o->maxk * sizeof *pos);
    size_t *ranked = malloc((size_t)o->maxk * sizeof *ranked), i, qi;
    double t0, t1;
    int rc = -1;
    if (s == BENCH_SYS_BM25_BIGRAM)
        p.tokenizer = BENCH_TOK_BIGRAM;
    if (!texts || !pos || !ranked)
        goto nomem;
    for (i = 0; i < u->n_docs; i++)
        texts[i] = c->ds->docs[u->docs[i]].text;
    t0 = bench_mono_ms();
    if (bench_bm25_build(&p, texts, u->n_docs, &ix) != 0)
        goto nomem;
    t1 = bench_mono_ms();
    res->ingest_total_ms += t1 - t0;
    res->ingest_events += (long)u->n_docs;
    if (u->n_docs &&
        bench_samples_add(&res->ingest_ms, (t1 - t0) / (double)u->n_docs) != 0)
        goto nomem;
    for (qi = u->q_begin; qi < q_end; qi++) {
        const bench_question *q = &c->ds->qs[qi];
        bench_tokcount tc = {0, 0};
        long n;
        t0 = bench_mono_ms();
        n = bench_bm25_rank(ix, q->text, pos, (size_t)o->maxk);
        t1 = bench_mono_ms();
        if (n < 0 || bench_samples_add(&res->recall_ms, t1 - t0) != 0)
            goto nomem;
        for (i = 0; i < (size_t)n; i++) {
            ranked[i] = u->docs[pos[i]];
            if (i < (size_t)o->ks[0]) {
                tc.cjk += c->ds->docs[ranked[i]].tc.cjk;
                tc.other += c->ds->docs[ranked[i]].tc.other;
            }
        }
        res->block_tokens_sum += (double)bench_tokcount_value(&tc);
        res->events_sum += (double)n;
        score(c, s, q, qi - u->q_begin, ranked, (size_t)n);
    }
    rc = 0;
    goto out;
nomem:
    bench_fail(c->e, "%s: out of memory", bench_sys_names[s]);
out:
    bench_bm25_free(ix);
    free(texts);
    free(pos);
    free(ranked);
    return rc;
}

/* ---------------------------------------------------------------- dump */

static void dump_unit(run_ctx *c, const bench_unit *u, size_t q_end)
{
    size_t qi;
    const bench_run_opts *o = c->o;
    for (qi = u->q_begin; qi < q_end; qi++) {
        const bench_question *q = &c->ds->qs[qi];
        json_t *line = json_object(), *gold = json_array();
        char *text;
        size_t i;
        int s;
        json_object_set_new(line, "id", json_string(q->id));
        json_object_set_new(line, "category", json_string(q->category));
        json_object_set_new(line, "question", json_string(q->text));
        for (i = 0; i < q->n_gold; i++)
            json_array_append_new(gold,
                                  json_string(c->ds->docs[q->gold[i]].key));
        json_object_set_new(line, "gold", gold);
        {
            json_t *gt = json_array();
            for (i = 0; i < q->n_gold; i++)
                json_array_append_new(gt,
                                      json_string(c->ds->docs[q->gold[i]].text));
            json_object_set_new(line, "gold_text", gt);
        }
        for (s = 0; s < BENCH_N_SYS; s++) {
            size_t at = (size_t)s * c->unit_qs + (qi - u->q_begin);
            const size_t *rk = c->ranked + at * (size_t)o->maxk;
            json_t *sys, *keys, *hits, *docs;
            if (!o->systems[s])
                continue;
            sys = json_object();
            keys = json_array();
            hits = json_array();
            docs = json_array();
            for (i = 0; i < c->n_ranked[at]; i++) {
                const bench_doc *d = &c->ds->docs[rk[i]];
                size_t g;
                json_array_append_new(keys, json_string(d->key));
                json_array_append_new(docs,
                    json_pack("{s:s,s:s,s:s}", "session",
                              d->session ? d->session : "", "at",
                              d->at ? d->at : "", "text", d->text));
                for (g = 0; g < q->n_gold; g++)
                    if (q->gold[g] == rk[i])
                        json_array_append_new(hits,
                                              json_integer((json_int_t)i + 1));
            }
            json_object_set_new(sys, "ranked", keys);
            json_object_set_new(sys, "gold_ranks", hits);
            json_object_set_new(sys, "docs", docs);
            json_object_set_new(line, bench_sys_names[s], sys);
        }
        text = json_dumps(line, JSON_COMPACT);
        if (text) {
            fprintf(c->dump, "%s\n", text);
            free(text);
        }
        json_decref(line);
    }
}

/* ---------------------------------------------------------------- run */

static int run_unit(run_ctx *c, const bench_unit *u, size_t q_end)
{
    const bench_run_opts *o = c->o;
    bench_tokcount tc = {0, 0};
    size_t i, nq = q_end - u->q_begin;
    int s;
    c->unit_qs = nq;
    free(c->ranked);
    free(c->n_ranked);
    c->ranked = calloc(BENCH_N_SYS * nq * (size_t)o->maxk + 1,
                       sizeof *c->ranked);
    c->n_ranked = calloc(BENCH_N_SYS * nq + 1, sizeof *c->n_ranked);
    if (!c->ranked || !c->n_ranked)
        return bench_fail(c->e, "out of memory");
    for (i = 0; i < u->n_docs; i++) {
        tc.cjk += c->ds->docs[u->docs[i]].tc.cjk;
        tc.other += c->ds->docs[u->docs[i]].tc.other;
    }
    c->r->full_tokens_sum += (double)nq * (double)bench_tokcount_value(&tc);
    c->r->questions += (long)nq;
    c->r->units++;
    c->r->events += (long)u->n_docs;
    if (o->systems[BENCH_SYS_ENGINE] && engine_unit(c, u, q_end) != 0)
        return -1;
    for (s = BENCH_SYS_BM25_PAPER; s < BENCH_N_SYS; s++)
        if (o->systems[s] && bm25_unit(c, s, u, q_end) != 0)
            return -1;
    if (c->dump)
        dump_unit(c, u, q_end);
    return 0;
}

/* The questions bench_run will ask: its units' (every, limit) */
static size_t questions_to_run(const bench_dataset *ds, const bench_run_opts *o)
{
    size_t n = 0, ui;
    long left = o->limit > 0 ? o->limit : -1;
    for (ui = 0; ui < ds->n_units && left != 0; ui++) {
        const bench_unit *u = &ds->units[ui];
        size_t q = u->q_end - u->q_begin;
        if (q == 0 || (o->every > 1 && ui % (size_t)o->every != 0))
            continue;
        if (left > 0 && (long)q > left)
            q = (size_t)left;
        n += q;
        if (left > 0)
            left -= (long)q;
    }
    return n;
}

int bench_run(const bench_dataset *ds, const bench_run_opts *o,
              bench_report *r, bench_err *e)
{
    run_ctx c;
    size_t ui;
    am_progress bar;
    long left = o->limit > 0 ? o->limit : -1;
    int s, rc = 0;
    memset(r, 0, sizeof *r);
    memset(&c, 0, sizeof c);
    c.ds = ds;
    c.o = o;
    c.r = r;
    c.e = e;
    for (s = 0; s < BENCH_N_SYS; s++)
        r->sys[s].ran = o->systems[s];
    if (collect_categories(ds, r) != 0)
        return bench_fail(e, "out of memory");
    if (o->dump_path && !(c.dump = fopen(o->dump_path, "w")))
        return bench_fail(e, "%s: cannot write", o->dump_path);
    /* a unit's store filled, then its questions asked: the bar moves a unit at a time */
    am_progress_start(&bar, "bench", "questions", questions_to_run(ds, o), o->quiet);
    for (ui = 0; ui < ds->n_units && left != 0; ui++) {
        const bench_unit *u = &ds->units[ui];
        size_t q_end = u->q_end;
        if (u->q_begin == u->q_end)
            continue;
        if (o->every > 1 && ui % (size_t)o->every != 0)
            continue;
        if (left > 0 && (long)(q_end - u->q_begin) > left)
            q_end = u->q_begin + (size_t)left;
        if (o->progress)
            fprintf(stderr, "\r[%s] unit %zu/%zu, %ld questions done", ds->name,
                    ui + 1, ds->n_units, r->questions);
        if ((rc = run_unit(&c, u, q_end)) != 0)
            break;
        am_progress_set(&bar, (size_t)r->questions, 0);
        if (left > 0)
            left -= (long)(q_end - u->q_begin);
    }
    am_progress_end(&bar);
    if (o->progress)
        fprintf(stderr, "\n");
    if (c.dump)
        fclose(c.dump);
    free(c.ranked);
    free(c.n_ranked);
    return rc;
}

void bench_report_free(bench_report *r)
{
    int s;
    for (s = 0; s < BENCH_N_SYS; s++) {
        free(r->sys[s].cats);
        bench_samples_free(&r->sys[s].ingest_ms);
        bench_samples_free(&r->sys[s].recall_ms);
    }
    free(r->cat_labels);
    memset(r, 0, sizeof *r);
}
