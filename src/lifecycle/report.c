/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report.c -- the blind-spot report (docs/REPORTS.md): which keys, kinds,
 * topics and deciding sources users correct or reject most.
 *
 * Counted from the audit log, which every path writes: "memory.created"
 * (a new item, distilled or added), "memory.confirmed", "memory.corrected"
 * and "memory.rejected" (feedback, and an application's update, which is
 * a correction).  Each act is placed on the version it judged -- the one
 * it closed (a feedback closes the version it judges at its own time),
 * else the one that held then -- and counted under that version's key,
 * kind, topic (am__item_topic_label) and origin (am__item_origin: the
 * version's origin -- rules, model, api, import, feedback, pattern, llm,
 * pack:NAME@VERSION --, for a version written before origins were kept
 * the "source" its value recorded, else "unknown").
 *
 * Acts are gathered as tuples (period, key, kind, topic, origin, act),
 * sorted and summed, so the work is the acts' number times its log, a
 * user at a time (the user's audit rows a page at a time; the item
 * versions only when an act of the range names one).  Nothing of an
 * item's text and no user id leaves here: the key is the only word of the
 * user's, and the report says so (docs/REPORTS.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lifecycle/lifecycle.h"

#define AUDIT_PAGE 512
#define USERS_PAGE 256

enum { ACT_CREATED, ACT_CONFIRMED, ACT_CORRECTED, ACT_REJECTED, N_ACTS };
static const char *const act_ops[N_ACTS] = {"memory.created", "memory.confirmed",
                                            "memory.corrected", "memory.rejected"};
static const char *const act_names[N_ACTS] = {"created", "confirmed", "corrected", "rejected"};

typedef struct tuple {
    const char *period, *key, *kind, *topic, *origin;
    int act;
} tuple;

typedef struct tuples {
    tuple *v;
    size_t n, cap;
    am__arena *ar; /* their strings */
    const am__allocator *alloc;
} tuples;

/* The period of t (UTC): "YYYY-MM-DD", "YYYY-Www" (ISO 8601 week) or
 * "YYYY-MM", into out[16]. */
static void period_of(am_time t, int period, char out[16])
{
    time_t secs = (time_t)(t >= 0 ? t / 1000 : (t - 999) / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    if (period == AM_REPORT_DAY) {
        strftime(out, 16, "%Y-%m-%d", &tm);
    } else if (period == AM_REPORT_WEEK) {
        strftime(out, 16, "%G-W%V", &tm);
    } else {
        strftime(out, 16, "%Y-%m", &tm);
    }
}

static int cmp_str(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : ""); }

static int cmp_tuple(const void *x, const void *y)
{
    const tuple *a = x, *b = y;
    int c;
    if ((c = cmp_str(a->period, b->period)) || (c = cmp_str(a->key, b->key)) ||
        (c = cmp_str(a->kind, b->kind)) || (c = cmp_str(a->topic, b->topic)) ||
        (c = cmp_str(a->origin, b->origin)))
        return c;
    return 0;
}

static int push(tuples *ts, const char *period, const am__item_row *v, int act)
{
    if (ts->n == ts->cap) {
        size_t cap = ts->cap ? ts->cap * 2 : 64;
        tuple *p = am__realloc(ts->alloc, ts->v, cap * sizeof *p);
        if (!p) return AM_NOMEM;
        ts->v = p;
        ts->cap = cap;
    }
    char origin[128];
    tuple *t = &ts->v[ts->n];
    t->period = am__arena_strdup(ts->ar, period);
    t->key = am__arena_strdup(ts->ar, v->key ? v->key : "");
    t->kind = am__arena_strdup(ts->ar, v->kind);
    t->topic = am__item_topic_label(v);
    am__item_origin(v, origin, sizeof origin);
    t->origin = am__arena_strdup(ts->ar, origin);
    t->act = act;
    if (!t->period || !t->key || !t->kind || !t->origin) return AM_NOMEM;
    ts->n++;
    return AM_OK;
}

/* The version an act of time at on id (a version or a lineage id) judged:
 * the version itself; else of the lineage the one the act closed, else
 * the latest recorded by then, else its first. */
static const am__item_row *judged(const am__item_row *items, size_t n, const char *id, am_time at)
{
    const am__item_row *closed = NULL, *held = NULL, *first = NULL;
    for (size_t i = 0; i < n; i++) {
        const am__item_row *r = &items[i];
        if (strcmp(r->id, id) == 0) return r;
        if (strcmp(r->lineage_id, id) != 0) continue;
        if (!first || r->recorded_at < first->recorded_at) first = r;
        if (r->superseded_at == at) closed = r;
        if (r->recorded_at <= at && (!held || r->recorded_at >= held->recorded_at)) held = r;
    }
    return closed ? closed : held ? held : first;
}

/* The acts of user uid in [since, until) into ts. */
static int user_acts(am__store *s, const char *uid, const am__report_in *in, tuples *ts)
{
    am__arena ar;
    am__arena_init(&ar, ts->alloc);
    am__item_row *items = NULL;
    size_t n_items = 0;
    int have_items = 0, rc = am__store_begin_read(s);
    int64_t after = 0;
    for (int more = 1; !rc && more;) {
        am__audit_row *rows;
        size_t n;
        if ((rc = am__store_audit_page(s, uid, after, AUDIT_PAGE, &ar, &rows, &n))) break;
        more = n == AUDIT_PAGE;
        for (size_t i = 0; !rc && i < n; i++) {
            const am__audit_row *a = &rows[i];
            after = a->seq;
            int act = 0;
            while (act < N_ACTS && strcmp(a->op, act_ops[act]) != 0) act++;
            if (act == N_ACTS || !a->object_id || (in->since != AM_TIME_NONE && a->at < in->since) ||
                (in->until != AM_TIME_NONE && a->at >= in->until))
                continue;
            if (!have_items) {
                rc = s->vt->items.items_list(
                    s, uid, AM__ITEMS_ALL | AM__ITEMS_NO_SOURCES | AM__ITEMS_NO_HEAT, in->now, &ar,
                    &items, &n_items);
                if (rc == AM_NOTFOUND) rc = AM_OK;
                have_items = 1;
                if (rc) break;
            }
            const am__item_row *v = judged(items, n_items, a->object_id, a->at);
            if (!v) continue; /* deleted since: nothing to name */
            char period[16];
            period_of(a->at, in->period, period);
            rc = push(ts, period, v, act);
        }
    }
    int end = am__store_end_read(s);
    if (!rc) rc = end;
    am__arena_free(&ar);
    return rc == AM_NOTFOUND ? AM_OK : rc;
}

static void counts_json(am__buf *b, const long c[N_ACTS])
{
    for (int k = 0; k < N_ACTS; k++) am__buf_printf(b, "%s\"%s\":%ld", k ? "," : "", act_names[k], c[k]);
    am__buf_adds(b, ",\"correction_rate\":");
    if (c[ACT_CREATED]) am__buf_add_fixed(b, (double)(c[ACT_CORRECTED] + c[ACT_REJECTED]) / (double)c[ACT_CREATED], 3);
    else am__buf_adds(b, "null");
}

typedef struct row {
    const tuple *t; /* the first of its tuples */
    long c[N_ACTS];
} row;

static int cmp_row(const void *x, const void *y)
{
    const row *a = x, *b = y;
    long wa = a->c[ACT_CORRECTED] + a->c[ACT_REJECTED], wb = b->c[ACT_CORRECTED] + b->c[ACT_REJECTED];
    if (wa != wb) return wa > wb ? -1 : 1;
    /* the rate, compared without division: wa / ca against wb / cb */
    long ca = a->c[ACT_CREATED], cb = b->c[ACT_CREATED];
    if (wa && ca != cb) {
        if (!ca || !cb) return !ca ? -1 : 1; /* none created here: the rate is the highest */
        return ca < cb ? -1 : 1;
    }
    return cmp_tuple(a->t, b->t);
}

/* The summed rows of ts (sorted) as JSON into b. */
static int write_json(tuples *ts, const am__report_in *in, am__buf *b)
{
    static const char *const periods[] = {"", "day", "week", "month"};
    row *rows = am__calloc(ts->alloc, (ts->n + 1) * sizeof *rows);
    if (!rows) return AM_NOMEM;
    char t1[32], t2[32];
    am__buf_printf(b, "{\"scope\":\"%s\",\"period\":\"%s\",\"since\":", in->uid ? "user" : "all",
                   periods[in->period]);
    if (in->since != AM_TIME_NONE) am__buf_printf(b, "\"%s\"", am__time_format(in->since, 0, t1));
    else am__buf_adds(b, "null");
    am__buf_adds(b, ",\"until\":");
    if (in->until != AM_TIME_NONE) am__buf_printf(b, "\"%s\"", am__time_format(in->until, 0, t2));
    else am__buf_adds(b, "null");
    am__buf_adds(b, ",\"periods\":[");
    long total[N_ACTS] = {0};
    for (size_t i = 0, np = 0; i < ts->n;) {
        /* one period: its rows */
        size_t j = i, nr = 0;
        long ptotal[N_ACTS] = {0};
        while (j < ts->n && strcmp(ts->v[j].period, ts->v[i].period) == 0) {
            if (!nr || cmp_tuple(rows[nr - 1].t, &ts->v[j]) != 0) rows[nr++].t = &ts->v[j];
            rows[nr - 1].c[ts->v[j].act]++;
            ptotal[ts->v[j].act]++;
            total[ts->v[j].act]++;
            j++;
        }
        qsort(rows, nr, sizeof *rows, cmp_row);
        am__buf_adds(b, np++ ? ",{\"period\":" : "{\"period\":");
        am__buf_json_str(b, ts->v[i].period);
        am__buf_adds(b, ",\"totals\":{");
        counts_json(b, ptotal);
        am__buf_adds(b, "},\"rows\":[");
        for (size_t r = 0; r < nr; r++) {
            const tuple *t = rows[r].t;
            am__buf_adds(b, r ? ",{\"key\":" : "{\"key\":");
            am__buf_json_str(b, t->key);
            am__buf_adds(b, ",\"kind\":");
            am__buf_json_str(b, t->kind);
            am__buf_adds(b, ",\"topic\":");
            am__buf_json_str(b, t->topic);
            am__buf_adds(b, ",\"origin\":");
            am__buf_json_str(b, t->origin);
            am__buf_addc(b, ',');
            counts_json(b, rows[r].c);
            am__buf_addc(b, '}');
        }
        am__buf_adds(b, "]}");
        memset(rows, 0, nr * sizeof *rows);
        i = j;
    }
    am__buf_adds(b, "],\"totals\":{");
    counts_json(b, total);
    am__buf_adds(b, "}}");
    am__free(ts->alloc, rows);
    return b->oom ? AM_NOMEM : AM_OK;
}

int am__report_corrections(am__store *s, const am__report_in *in, am__buf *json)
{
    am__arena strs, page;
    am__arena_init(&strs, in->alloc);
    am__arena_init(&page, in->alloc);
    tuples ts = {NULL, 0, 0, &strs, in->alloc};
    int rc = AM_OK;
    if (in->uid) {
        rc = user_acts(s, in->uid, in, &ts);
    } else {
        const char *after = ""; /* users being forgotten left out */
        for (int more = 1; !rc && more;) {
            const char **uids;
            size_t n;
            char last[AM_ID_MAX + 1];
            if ((rc = am__store_users_after(s, after, USERS_PAGE, &page, &uids, &n))) break;
            more = n == USERS_PAGE;
            for (size_t i = 0; !rc && i < n; i++) rc = user_acts(s, uids[i], in, &ts);
            if (n) {
                snprintf(last, sizeof last, "%s", uids[n - 1]);
                am__arena_free(&page);
                am__arena_init(&page, in->alloc);
                after = am__arena_strdup(&page, last);
                if (!after) rc = AM_NOMEM;
            }
        }
    }
    if (!rc && ts.n > 1) qsort(ts.v, ts.n, sizeof *ts.v, cmp_tuple);
    if (!rc) rc = write_json(&ts, in, json);
    am__free(in->alloc, ts.v);
    am__arena_free(&strs);
    am__arena_free(&page);
    return rc;
}
