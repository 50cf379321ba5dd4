/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clauses.c -- compound questions in the search stage.  A question of
 * 2..AM__MAX_CLAUSES sentences on one short line ("上司是做什么的？另外，
 * 论坛在哪？"; a quotation is never cut into clauses), or one that
 * corrects itself (its asks, recall/terms.c), is searched for each clause
 * too, and each clause's condition -- a thing named by one of its facts
 * in a relative clause ("那个年龄是33岁的人，其职业…", "the person whose
 * age is 87", recall/expand.c am__query_condition) -- like one more
 * clause; after ranking, the candidates take turns by the clause they
 * answer best, so every clause has its answer near the top.
 */
#include <math.h>
#include <string.h>

#include "recall/pipeline.h"

/* Quotation marks a text leaves open: '"' toggles; “ 「 『 open and ” 」 』
 * close. */
static int quotes_open(const char *s, size_t n, int open)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"') open = open > 0 ? open - 1 : open + 1;
        else if (i + 2 < n && c == 0xE2 && (unsigned char)s[i + 1] == 0x80) {
            if ((unsigned char)s[i + 2] == 0x9C) open++;
            else if ((unsigned char)s[i + 2] == 0x9D && open > 0) open--;
        } else if (i + 2 < n && c == 0xE3 && (unsigned char)s[i + 1] == 0x80) {
            unsigned char d = (unsigned char)s[i + 2];
            if (d == 0x8C || d == 0x8E) open++;
            else if ((d == 0x8D || d == 0x8F) && open > 0) open--;
        }
    }
    return open;
}

static int clause_cb(void *ctx, const char *s, size_t n)
{
    am__clauses *c = ctx;
    /* a sentence that ends inside a quotation ("主要内容是"…。"的活动") goes
     * on with the next one */
    if (c->quoted && c->count && c->count <= AM__MAX_CLAUSES + 1) {
        size_t k = c->count - 1;
        if (k <= AM__MAX_CLAUSES) c->n[k] = (size_t)(s + n - c->p[k]);
        c->quoted = quotes_open(s, n, c->quoted);
        return 0;
    }
    c->quoted = quotes_open(s, n, 0);
    if (c->count <= AM__MAX_CLAUSES) {
        c->p[c->count] = s;
        c->n[c->count] = n;
    }
    c->count++;
    return 0;
}

/* A clause's condition (recall/expand.c am__query_condition: "那个联系
 * 电话是13228788707的人", "the person whose phone number is 555 0134") is
 * a part of the question searched on its own, like a clause: the turn that
 * states the fact ranks near the top (one of a kind, where the question's
 * other words match many turns) and bridges to the answer.  Its value's
 * words count 1, its attribute's (said of everything that has one)
 * AM__COND_ATTR. */
#define AM__COND_ATTR 0.3

/* The search terms of a condition: its value's at 1 (the first *nv),
 * its attribute's at AM__COND_ATTR (x their own weights). */
static int condition_terms(const am__recall_env *env, am__arena *ar, const char *p, size_t n, size_t value,
                           const char ***terms, const double **weights, size_t *nt, size_t *nv)
{
    int rc = am__recall_text_terms(env, ar, p + value, n - value, NULL, 0, terms, weights, nt, NULL, NULL);
    *nv = rc ? 0 : *nt;
    if (rc || value == 0) return rc;
    const char **at;
    const double *aw;
    size_t na;
    if ((rc = am__recall_text_terms(env, ar, p, value, NULL, 0, &at, &aw, &na, NULL, NULL))) return rc;
    const char **all = am__arena_take(ar, (*nt + na + 1) * sizeof *all);
    double *wt = am__arena_take(ar, (*nt + na + 1) * sizeof *wt);
    if (!all || !wt) return AM_NOMEM;
    size_t m = *nt;
    memcpy(all, *terms, m * sizeof *all);
    for (size_t i = 0; i < m; i++) wt[i] = *weights ? (*weights)[i] : 1.0;
    for (size_t i = 0; i < na; i++) {
        size_t k;
        for (k = 0; k < m && strcmp(all[k], at[i]) != 0; k++) {}
        if (k < m) continue;
        wt[m] = AM__COND_ATTR * (aw ? aw[i] : 1.0);
        all[m++] = at[i];
    }
    *terms = all;
    *weights = wt;
    *nt = m;
    return AM_OK;
}

/* Compound questions: each clause is searched on its own too, and a
 * candidate keeps its best score relative to the best of each search
 * (scaled back to the whole question's), so one clause's many strong
 * matches ("金融科技精英论坛" x 6) cannot push the other clause's answer
 * out of the list; *homes records the clause each candidate answers best
 * (for am__recall_interleave_clauses). */
int am__recall_search_clauses(const am__recall_env *env, const char *uid, const char *text, size_t n,
                          const am__clauses *asks, am_time to, int limit, am__arena *ar,
                          am__event_row **events, size_t *n_events, am__clause_homes *homes)
{
    const am_rank_config *r = env->rank;
    am__store *s = env->store;
    am__clauses c;
    memset(&c, 0, sizeof c);
    if (asks && asks->count >= 2) {
        c = *asks;
    } else {
        if (am__text_tokens_estimate(text, n) > AM__CLAUSE_MAX_TOKENS || memchr(text, '\n', n))
            return AM_OK; /* several lines: a transcript, not one compound question */
        am__text_sentences(text, n, clause_cb, &c);
    }
    if (c.count < 1 || c.count > AM__MAX_CLAUSES || *n_events == 0) return AM_OK;
    /* the clauses, then their conditions */
    const char *pp[AM__MAX_PARTS];
    size_t pn[AM__MAX_PARTS], pv[AM__MAX_PARTS], parent[AM__MAX_PARTS], parts = c.count;
    for (size_t k = 0; k < c.count; k++) {
        pp[k] = c.p[k];
        pn[k] = c.n[k];
        pv[k] = 0;
        parent[k] = k;
    }
    for (size_t k = 0; k < c.count && r->conditions > 0; k++) {
        size_t f, t, v;
        if (!am__query_condition(c.p[k], c.n[k], &f, &t, &v)) continue;
        pp[parts] = c.p[k] + f;
        pn[parts] = t - f;
        pv[parts] = v - f;
        parent[parts++] = k;
    }
    if (parts < 2) return AM_OK;
    size_t cap = *n_events + parts * (size_t)limit + 1;
    /* (not zeroed: rows [0, homes->n) are written as they come) */
    homes->rid = am__arena_take(ar, cap * sizeof *homes->rid);
    homes->home = am__arena_take(ar, cap);
    double *homeval = am__arena_take(ar, cap * sizeof *homeval);
    if (!homes->rid || !homes->home || !homeval) return AM_NOMEM;
    for (size_t i = 0; i < *n_events; i++) {
        homes->rid[i] = (*events)[i].rid;
        homes->home[i] = 0;
        homeval[i] = 0;
    }
    homes->n = *n_events;
    homes->clauses = c.count; /* and each condition searched, below */
    double best = 0;
    for (size_t i = 0; i < *n_events; i++)
        if ((*events)[i].score > best) best = (*events)[i].score;
    if (best <= 0) return AM_OK;
    /* a question of one clause is that clause: the whole question's
     * search is its own */
    if (c.count == 1)
        for (size_t i = 0; i < *n_events; i++) homeval[i] = (*events)[i].score;
    for (size_t q = 0; q < parts; q++) {
        const char **terms;
        const double *weights;
        size_t nt, nv = 0, k = q < c.count ? q : homes->clauses; /* k: its place in homes */
        int rc = q < c.count ? am__recall_text_terms(env, ar, pp[q], pn[q], NULL, 0, &terms, &weights, &nt, NULL, NULL)
                             : condition_terms(env, ar, pp[q], pn[q], pv[q], &terms, &weights, &nt, &nv);
        if (rc) return rc;
        homes->terms[k] = q < c.count ? terms : homes->terms[parent[q]];
        homes->weights[k] = q < c.count ? weights : homes->weights[parent[q]];
        homes->nt[k] = q < c.count ? nt : homes->nt[parent[q]];
        am__event_row *part;
        size_t np;
        if (nt == 0 || (c.count == 1 && q == 0)) continue;
        am__search_stats st = {0, 0, am__arena_take(ar, (nt + 1) * sizeof *st.df), 0};
        if (!st.df) return AM_NOMEM;
        rc = am__search_events(s, uid, terms, weights, nt, r->w_context, AM_TIME_NONE, to,
                                  limit, ar, &part, &np, q < c.count ? NULL : &st);
        if (rc) return rc;
        if (q >= c.count) {
            /* a condition whose value no turn holds (a redacted phone
             * number, a name never mentioned) finds nothing of its own */
            double held = 0;
            for (size_t t = 0; t < nv && st.valid; t++) held += st.df[t];
            if (st.valid && held == 0) continue;
            homes->clauses++;
        }
        double pbest = 0;
        for (size_t i = 0; i < np; i++)
            if (part[i].score > pbest) pbest = part[i].score;
        if (pbest <= 0) continue;
        am__event_row *all = am__arena_take(ar, (*n_events + np + 1) * sizeof *all);
        if (!all) return AM_NOMEM;
        memcpy(all, *events, *n_events * sizeof *all);
        size_t m = *n_events;
        for (size_t i = 0; i < np && m < cap; i++) {
            double v = best * part[i].score / pbest;
            size_t j;
            for (j = 0; j < *n_events && all[j].rid != part[i].rid; j++) {}
            if (j < *n_events) {
                if (v > all[j].score) all[j].score = v;
            } else {
                j = m;
                all[m] = part[i];
                all[m++].score = v;
                homes->rid[j] = part[i].rid;
                homes->home[j] = (unsigned char)k;
                homeval[j] = v;
                homes->n = m;
            }
            if (v > homeval[j]) {
                homeval[j] = v;
                homes->home[j] = (unsigned char)k;
            }
        }
        *events = all;
        *n_events = m;
    }
    return AM_OK;
}

/* Compound questions, after ranking: the candidates take turns by the
 * clause they answer best (the best of clause 1, of clause 2, then the
 * second best of each, ...), so every clause has its answer at the top
 * even when another clause has many near-equal matches.  The ones above
 * the relevance floor and those below it are interleaved apart; scores
 * are lowered where needed to stay in order. */
int am__recall_interleave_clauses(const am__clause_homes *h, am__arena *ar, am__event_row *rows,
                              size_t n)
{
    if (h->clauses < 2 || n < 2) return AM_OK;
    am__event_row *out = am__arena_take(ar, n * sizeof *out);
    unsigned char *cls = am__arena_take(ar, n);
    unsigned char *used = am__arena_take(ar, n);
    if (!out || !cls || !used) return AM_NOMEM;
    for (size_t i = 0; i < n; i++) {
        cls[i] = 0;
        used[i] = 0;
        for (size_t j = 0; j < h->n; j++)
            if (h->rid[j] == rows[i].rid) { cls[i] = h->home[j]; break; }
    }
    size_t w = 0, floor = 0;
    while (floor < n && rows[floor].score >= 0) floor++;
    size_t ranges[2][2] = {{0, floor}, {floor, n}};
    for (int g = 0; g < 2; g++) {
        size_t a = ranges[g][0], b = ranges[g][1], left = b - a, next[AM__MAX_PARTS];
        for (size_t k = 0; k < h->clauses; k++) next[k] = a;
        while (left) {
            for (size_t k = 0; k < h->clauses && left; k++) {
                while (next[k] < b && (used[next[k]] || cls[next[k]] != k)) next[k]++;
                if (next[k] == b) continue;
                used[next[k]] = 1;
                out[w] = rows[next[k]];
                /* just below the one before (not a tie: a later sort,
                 * such as the vector fusion's, must keep this order) */
                if (w && out[w].score >= out[w - 1].score && (out[w].score >= 0) == (out[w - 1].score >= 0))
                    out[w].score = out[w - 1].score - fabs(out[w - 1].score) * 1e-9;
                w++;
                left--;
            }
        }
    }
    memcpy(rows, out, n * sizeof *rows);
    return AM_OK;
}

