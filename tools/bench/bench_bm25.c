/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_bm25.c -- the in-process BM25 baselines of `agentmem bench`.
 *
 * Scoring is Okapi BM25 in exactly the variant of the published reference
 * baselines (see docs/bench/README.md, "bm25-paper"), so that bm25-paper
 * reproduces their figures:
 *   idf(t)   = ln(N - df + 0.5) - ln(df + 0.5); a negative idf is replaced
 *              by epsilon * (mean idf over the vocabulary)
 *   score    = sum over query tokens (repeats count) of
 *              idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
 * Ties are broken by document position (earlier first).
 *
 * Two tokenizers:
 *  - whitespace ("bm25-paper"): Python's str.split(): white space only, no
 *    lowercasing, punctuation stays attached ("Mel!" != "Mel").
 *  - bigram ("bm25-bigram"): ASCII-lowercased; a run of CJK characters
 *    yields every character and every adjacent pair; other text yields
 *    words (runs of letters and digits); punctuation separates.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct bench_bm25 {
    bench_bm25_params p;
    size_t n_docs;
    double *norm;        /* k1 * (1 - b + b * dl / avgdl) per document */
    bench_map vocab;     /* token -> term id */
    size_t n_terms;
    double *idf;
    size_t *post_off;    /* n_terms + 1 */
    size_t *post_doc;
    double *post_tf;
};

/* ---------------------------------------------------------------- tokens */

static int is_punct(uint32_t cp)
{
    return (cp >= 0xA0 && cp <= 0xBF) || cp == 0xD7 || cp == 0xF7 ||
           (cp >= 0x2000 && cp <= 0x2BFF) || (cp >= 0x2E00 && cp <= 0x2E7F) ||
           (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xE000 && cp <= 0xF8FF) ||
           (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF0F) ||
           (cp >= 0xFF1A && cp <= 0xFF20) || (cp >= 0xFF3B && cp <= 0xFF40) ||
           (cp >= 0xFF5B && cp <= 0xFF65) || cp == 0xFFFD ||
           (cp >= 0x1F000 && cp <= 0x1FAFF);
}

static int is_word(uint32_t cp)
{
    if (cp < 0x80)
        return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') ||
               (cp >= 'A' && cp <= 'Z');
    return !bench_is_space(cp) && !is_punct(cp) && !bench_is_cjk(cp);
}

typedef void (*tok_fn)(void *ctx, const char *tok, size_t len);

static void emit_cjk_run(const char *buf, const size_t *starts, size_t n,
                         size_t end, tok_fn fn, void *ctx)
{
    size_t i;
    for (i = 0; i < n; i++) {
        size_t stop = i + 1 < n ? starts[i + 1] : end;
        fn(ctx, buf + starts[i], stop - starts[i]);
        if (i + 1 < n) {
            size_t stop2 = i + 2 < n ? starts[i + 2] : end;
            fn(ctx, buf + starts[i], stop2 - starts[i]);
        }
    }
}

static int tokenize_bigram(const char *text, tok_fn fn, void *ctx)
{
    size_t len = strlen(text), i = 0, n_run = 0, cap_run = 0;
    size_t *run = NULL, word = (size_t)-1, run_end = 0;
    char *buf = malloc(len + 1);
    if (!buf)
        return -1;
    for (i = 0; i <= len; i++) {
        char c = text[i];
        buf[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    i = 0;
    while (i < len) {
        size_t at = i;
        uint32_t cp = bench_utf8_next(buf, len, &i);
        if (bench_is_cjk(cp)) {
            if (word != (size_t)-1) {
                fn(ctx, buf + word, at - word);
                word = (size_t)-1;
            }
            if (bench_grow((void **)&run, &cap_run, n_run + 1,
                           sizeof *run) != 0) {
                free(run);
                free(buf);
                return -1;
            }
            run[n_run++] = at;
            run_end = i;
            continue;
        }
        if (n_run) {
            emit_cjk_run(buf, run, n_run, run_end, fn, ctx);
            n_run = 0;
        }
        if (is_word(cp)) {
            if (word == (size_t)-1)
                word = at;
        } else if (word != (size_t)-1) {
            fn(ctx, buf + word, at - word);
            word = (size_t)-1;
        }
    }
    if (n_run)
        emit_cjk_run(buf, run, n_run, run_end, fn, ctx);
    if (word != (size_t)-1)
        fn(ctx, buf + word, len - word);
    free(run);
    free(buf);
    return 0;
}

static int tokenize_whitespace(const char *text, tok_fn fn, void *ctx)
{
    size_t len = strlen(text), i = 0, word = (size_t)-1;
    while (i < len) {
        size_t at = i;
        uint32_t cp = bench_utf8_next(text, len, &i);
        if (bench_is_space(cp)) {
            if (word != (size_t)-1) {
                fn(ctx, text + word, at - word);
                word = (size_t)-1;
            }
        } else if (word == (size_t)-1) {
            word = at;
        }
    }
    if (word != (size_t)-1)
        fn(ctx, text + word, len - word);
    return 0;
}

int bench_tokenize(int tokenizer, const char *text, tok_fn fn, void *ctx)
{
    return tokenizer == BENCH_TOK_BIGRAM ? tokenize_bigram(text, fn, ctx)
                                         : tokenize_whitespace(text, fn, ctx);
}

/* ---------------------------------------------------------------- index */

typedef struct build_ctx {
    bench_bm25 *ix;
    size_t *ids;  /* term ids of the current document */
    size_t n_ids, cap_ids;
    int oom;
} build_ctx;

static void build_tok(void *ctx, const char *tok, size_t len)
{
    build_ctx *b = ctx;
    size_t id = b->ix->n_terms, existing;
    int rc;
    if (b->oom)
        return;
    rc = bench_map_put(&b->ix->vocab, tok, len, id, &existing);
    if (rc < 0 ||
        bench_grow((void **)&b->ids, &b->cap_ids, b->n_ids + 1,
                   sizeof *b->ids) != 0) {
        b->oom = 1;
        return;
    }
    if (rc == 0)
        id = existing;
    else
        b->ix->n_terms++;
    b->ids[b->n_ids++] = id;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* One (document, term, tf) triple per distinct term of a document. */
typedef struct triple {
    size_t doc, term, tf;
} triple;

static int finish_index(bench_bm25 *ix, const triple *tr, size_t n_tr,
                        const size_t *dl, size_t total_len)
{
    size_t t, i;
    size_t *df, *fill;
    double avgdl, idf_sum = 0, eps;
    const bench_bm25_params *p = &ix->p;
    ix->norm = malloc((ix->n_docs ? ix->n_docs : 1) * sizeof *ix->norm);
    ix->idf = calloc(ix->n_terms ? ix->n_terms : 1, sizeof *ix->idf);
    ix->post_off = calloc(ix->n_terms + 1, sizeof *ix->post_off);
    ix->post_doc = malloc((n_tr ? n_tr : 1) * sizeof *ix->post_doc);
    ix->post_tf = malloc((n_tr ? n_tr : 1) * sizeof *ix->post_tf);
    fill = calloc(ix->n_terms + 1, sizeof *fill);
    if (!ix->norm || !ix->idf || !ix->post_off || !ix->post_doc ||
        !ix->post_tf || !fill) {
        free(fill);
        return -1;
    }
    avgdl = ix->n_docs ? (double)total_len / (double)ix->n_docs : 0;
    for (i = 0; i < ix->n_docs; i++)
        ix->norm[i] = p->k1 * (1 - p->b + (avgdl > 0 ? p->b * (double)dl[i] /
                                                           avgdl
                                                     : 0));
    df = ix->post_off + 1; /* counts first, prefix sums below */
    for (i = 0; i < n_tr; i++)
        df[tr[i].term]++;
    for (t = 0; t < ix->n_terms; t++) {
        double n = (double)df[t], N = (double)ix->n_docs;
        ix->idf[t] = log(N - n + 0.5) - log(n + 0.5);
        idf_sum += ix->idf[t];
    }
    eps = ix->n_terms ? p->epsilon * idf_sum / (double)ix->n_terms : 0;
    for (t = 0; t < ix->n_terms; t++)
        if (ix->idf[t] < 0)
            ix->idf[t] = eps;
    for (t = 0; t < ix->n_terms; t++)
        ix->post_off[t + 1] += ix->post_off[t];
    for (i = 0; i < n_tr; i++) {
        size_t at = ix->post_off[tr[i].term] + fill[tr[i].term]++;
        ix->post_doc[at] = tr[i].doc;
        ix->post_tf[at] = (double)tr[i].tf;
    }
    free(fill);
    return 0;
}

int bench_bm25_build(const bench_bm25_params *p, const char *const *texts,
                     size_t n, bench_bm25 **out)
{
    bench_bm25 *ix = calloc(1, sizeof *ix);
    build_ctx b = {NULL, NULL, 0, 0, 0};
    triple *tr = NULL;
    size_t n_tr = 0, cap_tr = 0, total = 0, d;
    size_t *dl = malloc((n ? n : 1) * sizeof *dl);
    int rc = -1;
    *out = NULL;
    if (!ix || !dl)
        goto out;
    ix->p = *p;
    ix->n_docs = n;
    b.ix = ix;
    for (d = 0; d < n; d++) {
        size_t i;
        b.n_ids = 0;
        if (bench_tokenize(p->tokenizer, texts[d], build_tok, &b) != 0 ||
            b.oom)
            goto out;
        dl[d] = b.n_ids;
        total += b.n_ids;
        if (b.n_ids)
            qsort(b.ids, b.n_ids, sizeof *b.ids, cmp_size);
        for (i = 0; i < b.n_ids;) {
            size_t j = i;
            while (j < b.n_ids && b.ids[j] == b.ids[i])
                j++;
            if (bench_grow((void **)&tr, &cap_tr, n_tr + 1, sizeof *tr) != 0)
                goto out;
            tr[n_tr].doc = d;
            tr[n_tr].term = b.ids[i];
            tr[n_tr].tf = j - i;
            n_tr++;
            i = j;
        }
    }
    if (finish_index(ix, tr, n_tr, dl, total) != 0)
        goto out;
    *out = ix;
    ix = NULL;
    rc = 0;
out:
    free(b.ids);
    free(tr);
    free(dl);
    bench_bm25_free(ix);
    return rc;
}

typedef struct rank_ctx {
    bench_bm25 *ix;
    double *scores;
} rank_ctx;

static void rank_tok(void *ctx, const char *tok, size_t len)
{
    rank_ctx *r = ctx;
    bench_bm25 *ix = r->ix;
    size_t t, i;
    double k1p1 = ix->p.k1 + 1;
    if (!bench_map_get(&ix->vocab, tok, len, &t))
        return;
    for (i = ix->post_off[t]; i < ix->post_off[t + 1]; i++) {
        double tf = ix->post_tf[i];
        size_t d = ix->post_doc[i];
        r->scores[d] += ix->idf[t] * (tf * k1p1 / (tf + ix->norm[d]));
    }
}

typedef struct scored {
    double score;
    size_t pos;
} scored;

static int cmp_scored(const void *a, const void *b)
{
    const scored *x = a, *y = b;
    if (x->score != y->score)
        return x->score < y->score ? 1 : -1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

long bench_bm25_rank(bench_bm25 *ix, const char *query, size_t *ranked,
                     size_t k)
{
    rank_ctx r;
    scored *s;
    size_t i, n = ix->n_docs;
    r.ix = ix;
    r.scores = calloc(n ? n : 1, sizeof *r.scores);
    s = malloc((n ? n : 1) * sizeof *s);
    if (!r.scores || !s ||
        bench_tokenize(ix->p.tokenizer, query, rank_tok, &r) != 0) {
        free(r.scores);
        free(s);
        return -1;
    }
    for (i = 0; i < n; i++) {
        s[i].score = r.scores[i];
        s[i].pos = i;
    }
    if (n)
        qsort(s, n, sizeof *s, cmp_scored);
    if (k > n)
        k = n;
    for (i = 0; i < k; i++)
        ranked[i] = s[i].pos;
    free(r.scores);
    free(s);
    return (long)k;
}

void bench_bm25_free(bench_bm25 *ix)
{
    if (!ix)
        return;
    bench_map_clear(&ix->vocab);
    free(ix->norm);
    free(ix->idf);
    free(ix->post_off);
    free(ix->post_doc);
    free(ix->post_tf);
    free(ix);
}
