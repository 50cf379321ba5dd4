/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexical.c -- lexical search: term selection, BM25F
 * and the reading of the best rows, over what the store hands over
 * (store.h: user_rows, term_docs, postings, rows_get), so that any backend
 * that can hand over a user's postings ranks identically.
 *
 * FTS5's built-in bm25() normalises a hit by the length of the whole row.
 * An event row has a `doc` column (its text and entities) and a `ctx`
 * column (the text of its neighbouring turns), so with bm25() a turn that
 * happens to have three chatty neighbours looks four times as long as one
 * said alone, and loses to it whatever it says.  Here each column is
 * normalised by its own length against that column's average (BM25F):
 *
 *   tf(p)  = sum over columns c of  w_c * tf(p, c) / (1 - b + b * len_c / avg_c)
 *   score  = sum over terms p of  w_p * idf(p) * tf(p) * (k1 + 1) / (k1 + tf(p))
 *   idf(p) = ln(1 + (N - n_p + 0.5) / (n_p + 0.5))
 *
 * with k1 = 1.2, b = 0.75; w_p weighs a term (expansions count less than
 * the words of the question), n_p is its document frequency and N the
 * number of rows, both the user's; avg_c is the index's.
 *
 * The terms' document frequencies come with the postings (every row
 * holding a term is handed over) -- except when the history is long,
 * where they are asked for first (term_docs) to drop frequent terms: a
 * term in more than a tenth of a long history adds almost nothing to BM25
 * (its idf is near zero) but costs the longest posting list -- and when
 * the search is bounded in time, which sees only part of the history
 * (unless the caller hands over what a whole-history search of the same
 * terms gathered: stats).  N is the user's event counter (user_rows).
 * Only the best rows are read (rows_get).
 */
#include "index/lexical.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RANK_K1 1.2
#define RANK_B 0.75
/* A history longer than this reads its terms' frequencies first and drops
 * the terms in more than a tenth of it (when rarer ones remain). */
#define LONG_HISTORY 2000

/* hit[i].score = BM25F with those frequencies, N, per-term weights (NULL:
 * 1) and per-column weights */
static void hits_score(am__hits *h, const double *df, double n_docs, const double *weight,
                       const double w_col[AM__SEARCH_COLS])
{
    double idf_buf[64];
    double *idf = h->n_terms <= 64 ? idf_buf : am__malloc(h->a, (size_t)h->n_terms * sizeof *idf);
    if (!idf) { /* no memory for the weights: every row scores 0 */
        for (size_t i = 0; i < h->n; i++) h->hit[i].score = 0;
        return;
    }
    for (int p = 0; p < h->n_terms; p++) {
        double n_p = df[p] > n_docs ? n_docs : df[p];
        idf[p] = log(1.0 + (n_docs - n_p + 0.5) / (n_p + 0.5)) * (weight ? weight[p] : 1.0);
    }
    for (size_t i = 0; i < h->n; i++) {
        am__hit *e = &h->hit[i];
        double norm[AM__SEARCH_COLS];
        for (int c = 0; c < AM__SEARCH_COLS; c++)
            norm[c] = 1.0 - RANK_B + RANK_B * (double)e->len[c] / h->avg[c];
        double score = 0;
        for (uint32_t k = 0; k < e->n_tf; k++) {
            const am__hit_tf *t = &h->tf[e->first + k];
            double tf = 0;
            for (int c = 0; c < AM__SEARCH_COLS; c++)
                if (t->tf[c] && w_col[c] > 0) tf += w_col[c] * t->tf[c] / norm[c];
            if (tf > 0) score += idf[t->term] * tf * (RANK_K1 + 1) / (RANK_K1 + tf);
        }
        e->score = score;
    }
    if (idf != idf_buf) am__free(h->a, idf);
}

/* Best first: a before b (higher score; ties: the older row). */
static int hit_before(const am__hit *a, const am__hit *b)
{
    return a->score > b->score || (a->score == b->score && a->rid < b->rid);
}

static int cmp_hit(const void *x, const void *y)
{
    const am__hit *a = x, *b = y;
    return hit_before(a, b) ? -1 : hit_before(b, a) ? 1 : 0;
}

/* Move the best k hits to the front, best first (a heap of the k best
 * kept at the front, worst on top, then sorted). */
static void hits_top(am__hit *h, size_t n, size_t k)
{
    if (n == 0) return;
    if (k >= n || n <= 64) {
        qsort(h, n, sizeof *h, cmp_hit);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        size_t m;
        if (i < k) { /* sift up */
            m = i;
            while (m > 0 && hit_before(&h[(m - 1) / 2], &h[m])) {
                am__hit t = h[m];
                h[m] = h[(m - 1) / 2];
                h[(m - 1) / 2] = t;
                m = (m - 1) / 2;
            }
            continue;
        }
        if (!hit_before(&h[i], &h[0])) continue;
        am__hit t = h[0];
        h[0] = h[i];
        h[i] = t;
        for (m = 0;;) { /* sift down: the worst of the k on top */
            size_t l = 2 * m + 1, r = l + 1, w = m;
            if (l < k && hit_before(&h[w], &h[l])) w = l;
            if (r < k && hit_before(&h[w], &h[r])) w = r;
            if (w == m) break;
            t = h[m];
            h[m] = h[w];
            h[w] = t;
            m = w;
        }
    }
    qsort(h, k, sizeof *h, cmp_hit);
}

/* Read the best hits' rows, best first, until `want` are read: a row
 * that is not the user's (a token collision) or gone is skipped and the
 * next hit read.  A batch is what is still wanted, so the common case,
 * nothing skipped, is one batch (rows_get: the store's row cache, then one
 * statement).  h->hit[0..top) are ranked. */
static int read_hits(am__store *s, const char *uid, am__hits *h, size_t top, size_t want,
                     am__arena *ar, am__event_row **rows, size_t *n)
{
    /* (not zeroed: rows_get writes found[] and the rows it finds) */
    am__event_row *got = am__arena_take(ar, (want + 1) * sizeof *got);
    am__event_row *batch = am__arena_take(ar, (want + 1) * sizeof *batch);
    unsigned char *found = am__arena_take(ar, want + 1);
    int64_t *rids = am__arena_take(ar, (want + 1) * sizeof *rids);
    if (!got || !batch || !found || !rids) return AM_NOMEM;
    size_t next = 0, n_got = 0;
    int out = AM_OK;
    while (out == AM_OK && n_got < want && next < h->n) {
        size_t k = want - n_got;
        if (k > h->n - next) k = h->n - next;
        if (next + k > top) { /* rows skipped: rank the rest too */
            qsort(h->hit + top, h->n - top, sizeof *h->hit, cmp_hit);
            top = h->n;
        }
        for (size_t j = 0; j < k; j++) rids[j] = h->hit[next + j].rid;
        out = s->vt->events.rows_get(s, uid, rids, k, ar, batch, found);
        for (size_t j = 0; j < k && out == AM_OK; j++)
            if (found[j] == 1) {
                got[n_got] = batch[j];
                got[n_got++].score = h->hit[next + j].score;
            }
        next += k;
    }
    *rows = n_got ? got : NULL;
    *n = n_got;
    return out;
}

/* The search in the caller's snapshot. */
static int search_run(am__store *s, const char *uid, const char *const *terms,
                      const double *weights, size_t n_terms, double w_ctx, am_time from,
                      am_time to, int limit, am__arena *ar, am__event_row **rows, size_t *n,
                      am__search_stats *stats)
{
    int rc;
    unsigned char *keep = am__arena_take(ar, n_terms + 1);
    double *df = am__arena_alloc(ar, (n_terms + 1) * sizeof *df);
    double *wt = am__arena_take(ar, (n_terms + 1) * sizeof *wt);
    const char **kterm = am__arena_take(ar, (n_terms + 1) * sizeof *kterm);
    if (!keep || !df || !wt || !kterm) return AM_NOMEM;
    int64_t counted = 0, rows_total;
    if ((rc = s->vt->postings.user_rows(s, uid, &counted))) return rc;
    rows_total = counted;
    int timed = from != AM_TIME_NONE || to != AM_TIME_NONE;
    int known = stats && stats->valid; /* from a search of the same terms */
    int vocab = !known && (timed || rows_total <= 0 || rows_total > LONG_HISTORY);
    if (known) {
        memcpy(df, stats->df, n_terms * sizeof *df);
        rows_total = (int64_t)stats->n_docs;
    }
    if (vocab) {
        /* the index's count of the user's rows only when the counter says nothing */
        rc = s->vt->postings.term_docs(s, uid, terms, n_terms, df,
                                       rows_total > 0 ? NULL : &rows_total);
        if (rc) return rc;
        if (stats && !stats->valid) {
            memcpy(stats->df, df, n_terms * sizeof *df);
            stats->n_docs = (double)rows_total;
            stats->valid = 1;
        }
    }
    if (vocab || known) {
        if (rows_total == 0) return AM_OK; /* nothing indexed for this user */
        int64_t max_df = rows_total > LONG_HISTORY ? rows_total / 10 : INT64_MAX;
        if (rows_total > LONG_HISTORY && stats && stats->max_share > 0 &&
            (double)rows_total * stats->max_share < (double)max_df)
            max_df = (int64_t)((double)rows_total * stats->max_share);
        size_t rare = 0;
        for (size_t i = 0; i < n_terms; i++) {
            keep[i] = df[i] > 0 && df[i] <= (double)max_df; /* absent terms cannot match */
            rare += keep[i];
        }
        if (rare == 0) /* only frequent terms: keep them all */
            for (size_t i = 0; i < n_terms; i++) keep[i] = df[i] > 0;
    } else {
        memset(keep, 1, n_terms);
    }
    size_t kept = 0;
    for (size_t i = 0; i < n_terms; i++) {
        if (!keep[i]) continue;
        wt[kept] = weights ? weights[i] : 1.0;
        df[kept] = df[i]; /* the order of the terms kept */
        kterm[kept++] = terms[i];
    }
    if (kept == 0) return AM_OK; /* no query term occurs in this history */
    am__hits h;
    memset(&h, 0, sizeof h);
    /* without frequencies read first, the rows handed over tell them */
    if ((rc = s->vt->postings.postings(s, uid, kterm, kept, from, to, counted, ar, &h,
                                       !vocab && !known ? df : NULL))) {
        am__hits_free(&h);
        return rc;
    }
    if (!vocab && !known) { /* every row holding a term was handed over */
        if (stats && !stats->valid && kept == n_terms) { /* every term kept */
            memcpy(stats->df, df, n_terms * sizeof *df);
            stats->n_docs = (double)rows_total;
            stats->valid = 1;
        }
    }
    const double w_col[AM__SEARCH_COLS] = {1.0, w_ctx};
    hits_score(&h, df, (double)rows_total, wt, w_col);
    size_t top = (size_t)limit < h.n ? (size_t)limit : h.n;
    hits_top(h.hit, h.n, top);
    int out = read_hits(s, uid, &h, top, (size_t)limit, ar, rows, n);
    am__hits_free(&h);
    return out;
}

int am__search_events(am__store *s, const char *uid, const char *const *terms,
                      const double *weights, size_t n_terms, double w_ctx, am_time from,
                      am_time to, int limit, am__arena *ar, am__event_row **rows, size_t *n,
                      am__search_stats *stats)
{
    *rows = NULL;
    *n = 0;
    if (n_terms == 0 || limit <= 0) return AM_OK;
    int rc = am__store_search_begin(s);
    if (rc) return rc;
    rc = search_run(s, uid, terms, weights, n_terms, w_ctx, from, to, limit, ar, rows, n, stats);
    return am__store_search_end(s, rc);
}
