/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hops.c -- the hops stage: what the question reaches only through
 * something else.  First the events that held a PII value the question
 * names (pii.c: found through the vault, never through the index), then
 * two-hop bridges: a top candidate that names the thing the question
 * describes leads to the turns about that thing.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "recall/pipeline.h"
#include "text/lexicon/lexicon.h"

/* Two-hop search (bridging).  A question that names a thing by one of
 * its facts and asks another ("那个规模是六百人的活动，持续时间是什么？",
 * "the woman who plays the cello, where does she live?") is answered by
 * two turns, and only the first (the bridge: "医疗创新研讨会的规模是六百人")
 * shares the question's words.  The top candidates are taken as bridges;
 * for each, its own words that the question lacks (the thing's name) at
 * weight 1 and the question's words that it lacks (what is asked) at
 * AM__BRIDGE_REST are searched again -- one search for all the bridges,
 * each term once (docs/bench/README.md: as good as a search per bridge, and
 * cheaper).  A hit of that search scores the bridge's score x w_bridge x its coverage
 * of the bridge's words (their idf-weighted share it contains), x
 * AM__BRIDGE_NO_ASK when it contains none of the words the question asks
 * (its remaining words, not a single Han character); it joins the
 * candidates (or rises to that score).  A bridge takes AM__BRIDGE_HITS
 * hits: those that lead with its name (below) first, then those holding an
 * asked word, then the rest, each in the search's order ("我将要参加电影
 * 动作健身汇。" is shorter than "电影动作健身汇的主要内容是…" and ranks
 * above it, but asks nothing).  A bridge is
 * a short statement: one whose own words are more than
 * AM__BRIDGE_MAX_UNITS (bigrams, words, numbers) is an answer in itself,
 * and a hit that covers under AM__BRIDGE_MIN_COVER of
 * its words is about something else.
 *
 * A hit that leads with the bridge's name -- its first word the question
 * lacks is one of the bridge's own, not the bridge's first, with at least
 * AM__BRIDGE_LEAD_IDF of the rarest one's idf -- and is a description
 * (AM__BRIDGE_LEAD_BYTES or longer) is about the thing the bridge names
 * ("我刚才路过的那个公园叫荔枝公园。" -> "荔枝公园真是太不错了，就在闹市区
 * 里…" for "我路过的公园怎么样？"): it is taken first and scored as if it
 * covered the bridge and held an asked word, unless another hit holds a
 * word the question asks (then that is what is asked: "持续时间"). */
#define AM__BRIDGE_REST 0.5      /* weight of the question's remaining words */
#define AM__BRIDGE_HITS 2        /* hits taken per bridge */
#define AM__BRIDGE_SEARCH 20     /* rows of the second search */
#define AM__BRIDGE_MAX_UNITS 12  /* a longer bridge is an answer, not a pointer */
#define AM__BRIDGE_MIN_COVER 0.5 /* share of the bridge's words a hit must hold */
#define AM__BRIDGE_NO_ASK 0.6    /* a hit with none of the question's other words */
#define AM__BRIDGE_LEAD_IDF 0.8  /* a leading name's idf, of the bridge's rarest (0.5: chat turns lead with any word) */
#define AM__BRIDGE_LEAD_BYTES 90 /* a description (30 Han characters) */
#define AM__TOLD_MAX 16          /* told forms of the asked attributes searched */
/* In a long history (over 2,000 rows, where a search reads its terms'
 * frequencies first) the second search leaves out terms in more than 1 %
 * of the rows: a hit must hold half of the bridge's idf-weighted words,
 * which its rare ones (the name) carry, while "主管", "下周" in 4 % of
 * 10,000 rows cost a walk of 400 rows each (docs/bench/README.md, synth);
 * shorter histories are searched whole. */
#define AM__BRIDGE_MAX_SHARE 0.01

/* A Han unigram or bigram of (or with) a function character: "的", "会的",
 * "是四" -- it names nothing. */
static int function_token(const char *tok)
{
    size_t n = strlen(tok);
    if (n != 3 && n != 6) return 0;
    return am__text_function_char(tok) || (n == 6 && am__text_function_char(tok + 3));
}

/* A word of the question that says what is asked: not a function token
 * and not a single Han character (the "要" of "主要内容" is also the "要"
 * of "我将要参加…", which asks nothing). */
static int asked_word(const char *tok)
{
    if (function_token(tok)) return 0;
    return !(strlen(tok) == 3 && (unsigned char)tok[0] >= 0xE0);
}

/* terms[0..n) indexed (each string at its first place): a term's place
 * among them is a probe, not a comparison with each. */
static int index_terms(am__arena *ar, const char *const *terms, size_t n, am__strpos *pos)
{
    memset(pos, 0, sizeof *pos);
    for (size_t i = 0; i < n; i++)
        if (am__strpos_find(pos, terms, terms[i]) == SIZE_MAX && am__strpos_add(pos, ar, terms, i))
            return AM_NOMEM;
    return AM_OK;
}

/* The second search's terms for a bridge: its own words the question
 * lacks (*n_own of them, first) and the question's words it lacks.
 * *nt = 0 when it has no words of its own or is too long to be a bridge.
 * qpos: qt indexed (index_terms). */
static int bridge_terms(const am__recall_env *env, am__arena *ar, const char *content, const char *const *qt,
                        const am__strpos *qpos, const double *qw, size_t nq, const char ***terms,
                        double **weights, size_t *nt, size_t *n_own, size_t *first_unit,
                        size_t *n_told_out)
{
    const char **bt;
    const unsigned char *kind;
    size_t nb;
    *nt = *n_own = *n_told_out = 0;
    *first_unit = SIZE_MAX;
    int rc = am__query_terms_kinds(env->text, content, ar, &bt, &kind, &nb);
    if (rc) return rc;
    const char **all = am__arena_take(ar, (nb + nq + AM__TOLD_MAX + 1) * sizeof *all);
    double *wt = am__arena_take(ar, (nb + nq + AM__TOLD_MAX + 1) * sizeof *wt);
    if (!all || !wt) return AM_NOMEM;
    size_t n = 0, units = 0;
    for (size_t i = 0; i < nb; i++) {
        if (am__strpos_find(qpos, qt, bt[i]) != SIZE_MAX || function_token(bt[i])) continue;
        wt[n] = 1.0;
        int unit = kind[i] == AM_TOK_BIGRAM || kind[i] == AM_TOK_WORD || kind[i] == AM_TOK_NUM;
        if (unit && *first_unit == SIZE_MAX) *first_unit = n;
        all[n++] = bt[i];
        units += unit;
    }
    if (n == 0 || units > AM__BRIDGE_MAX_UNITS) return AM_OK;
    *n_own = n;
    am__strpos bpos;
    if ((rc = index_terms(ar, bt, nb, &bpos))) return rc;
    /* the asked attribute as it is told (recall/expand.c am__told_forms;
     * last, each at AM__BRIDGE_REST:
     * one the question also holds, as an expansion at a lower weight,
     * moves there) */
    size_t n_told = 0;
    const char *told[AM__TOLD_MAX];
    for (size_t k = 0; k < nq; k++) {
        const char *const *forms = qw && qw[k] < 1.0 ? NULL : am__told_forms(qt[k]);
        for (size_t f = 0; forms && forms[f] && n_told < AM__TOLD_MAX; f++) {
            size_t j;
            for (j = 0; j < n_told && strcmp(told[j], forms[f]) != 0; j++) {}
            if (j == n_told) told[n_told++] = forms[f];
        }
    }
    for (size_t k = 0; k < nq; k++) {
        if (am__strpos_find(&bpos, bt, qt[k]) != SIZE_MAX) continue;
        size_t i;
        for (i = 0; i < n_told && strcmp(qt[k], told[i]) != 0; i++) {}
        if (i < n_told) continue;
        wt[n] = AM__BRIDGE_REST * (qw ? qw[k] : 1.0);
        all[n++] = qt[k];
    }
    for (size_t j = 0; j < n_told; j++) {
        size_t k;
        for (k = 0; k < n && strcmp(all[k], told[j]) != 0; k++) {}
        if (k < n) continue; /* one of the bridge's own words */
        wt[n] = AM__BRIDGE_REST;
        all[n++] = told[j];
        (*n_told_out)++;
    }
    *terms = all;
    *weights = wt;
    *nt = n;
    return AM_OK;
}

static int set_has(const uint64_t *set, size_t n, uint64_t h)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (set[mid] < h) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && set[lo] == h;
}

/* A hit's head: the terms of its first 48 bytes, analysed once per
 * search of the bridges (every bridge looks at the same hits). */
typedef struct hit_head {
    const char **ht;
    const unsigned char *kind;
    size_t nh;
    int done;
} hit_head;

static int hit_head_terms(const am__recall_env *env, am__arena *ar, const char *content,
                          hit_head *hh)
{
    if (hh->done) return AM_OK;
    size_t n = strlen(content), cut = n < 48 ? n : 48;
    while (cut < n && ((unsigned char)content[cut] & 0xC0) == 0x80) cut--;
    char *head = am__arena_take(ar, cut + 1);
    if (!head) return AM_NOMEM;
    memcpy(head, content, cut);
    head[cut] = 0;
    int rc = am__query_terms_kinds(env->text, head, ar, &hh->ht, &hh->kind, &hh->nh);
    hh->done = rc == AM_OK;
    return rc;
}

/* The hit's leading word: the first unit (bigram, word, number) of its
 * first 48 bytes (its head, hh) that the question lacks; *t = its place
 * among the bridge's own words (terms[0..n_own)), n_own when it is none
 * of them. */
static int hit_lead(const am__recall_env *env, am__arena *ar, const char *content, hit_head *hh,
                    const char *const *qt, const am__strpos *qpos, const char *const *terms,
                    const am__strpos *own_pos, size_t n_own, size_t *t)
{
    *t = n_own;
    int rc = hit_head_terms(env, ar, content, hh);
    if (rc) return rc;
    const char **ht = hh->ht;
    const unsigned char *kind = hh->kind;
    size_t nh = hh->nh;
    for (size_t i = 0; i < nh; i++) {
        if (kind[i] != AM_TOK_BIGRAM && kind[i] != AM_TOK_WORD && kind[i] != AM_TOK_NUM &&
            kind[i] != AM_TOK_CJKWORD)
            continue;
        if (function_token(ht[i])) continue;
        if (am__strpos_find(qpos, qt, ht[i]) != SIZE_MAX) continue;
        size_t k = am__strpos_find(own_pos, terms, ht[i]);
        *t = k == SIZE_MAX ? n_own : k;
        return AM_OK;
    }
    return AM_OK;
}

/* A hit's share of a bridge's own words (terms[0..n_own), hashes th,
 * idf-weighted; total: their sum) into *cov, unless known (>= 0); its
 * token set made first when not yet (*ns == SIZE_MAX). */
static int hit_cover(const am__recall_env *env, const am__event_row *hit, uint64_t *set,
                     size_t *ns, const uint64_t *th, const double *idf, size_t n_own,
                     double total, double *cov)
{
    if (*ns == SIZE_MAX) {
        int rc = am__tokcache_event_set(env->text, env->tokcache, hit, set, ns);
        if (rc) return rc;
    }
    if (*cov >= 0) return AM_OK;
    double got = 0;
    for (size_t t = 0; t < n_own; t++)
        if (set_has(set, *ns, th[t])) got += idf[t];
    *cov = got / total;
    return AM_OK;
}

/* Does a hit (its token set) hold a word the question asks: one of the
 * question's remaining words (terms[n_own..nt), not an expansion) that
 * says what is asked, or a told form of the asked attribute (the last
 * n_told)? */
static int hit_asks(const char *const *terms, const double *weights, size_t n_own, size_t nt,
                    size_t n_told, const uint64_t *set, size_t ns, const uint64_t *th)
{
    for (size_t t = n_own; t < nt; t++)
        if (weights[t] >= AM__BRIDGE_REST && (t >= nt - n_told || asked_word(terms[t])) &&
            set_has(set, ns, th[t]))
            return 1;
    return 0;
}

/* A bridge: its terms (its own words, then the question's), and where
 * each is in the one search made for all bridges. */
typedef struct bridge {
    const char **terms;
    double *weights;
    const char *const *qt;
    const am__strpos *qpos;
    am__strpos own_pos; /* terms[0..n_own) indexed */
    size_t nq;
    size_t nt, n_own, first_unit, n_told, *at; /* at[t]: the term's place in the search */
} bridge;

/* The one search's terms: each term once, at its highest weight. */
typedef struct bridge_search {
    const char **terms;
    double *w;
    size_t n, cap;
    am__strpos pos; /* where each of terms is */
} bridge_search;

/* Adds term (weight w) to the search unless there, its place in *at. */
static int bridge_search_add(am__arena *ar, bridge_search *S, const char *term, double w,
                             size_t *at)
{
    size_t k = am__strpos_find(&S->pos, S->terms, term);
    if (k == SIZE_MAX) {
        k = S->n;
        if (S->n == S->cap) {
            size_t cap = S->cap ? 2 * S->cap : 64;
            const char **nt2 = am__arena_take(ar, cap * sizeof *nt2);
            double *nw2 = am__arena_take(ar, cap * sizeof *nw2);
            if (!nt2 || !nw2) return AM_NOMEM;
            if (S->n) {
                memcpy(nt2, S->terms, S->n * sizeof *nt2);
                memcpy(nw2, S->w, S->n * sizeof *nw2);
            }
            S->terms = nt2;
            S->w = nw2;
            S->cap = cap;
        }
        S->terms[S->n] = term;
        S->w[S->n++] = w;
        if (am__strpos_add(&S->pos, ar, S->terms, k)) return AM_NOMEM;
    } else if (w > S->w[k]) {
        S->w[k] = w;
    }
    *at = k;
    return AM_OK;
}

/* Bridge x of the row from: its terms, with the question's terms of its
 * clause (qt / qw / nq, or a compound question's from h) indexed in
 * qpos[part] when first used; its terms added to the search.  x->nt == 0:
 * no bridge. */
static int bridge_make(const am__recall_env *env, am__arena *ar, const am__event_row *from,
                       const char *const *qt, const double *qw, size_t nq,
                       const am__clause_homes *h, am__strpos *qpos, unsigned char *qpos_made,
                       bridge_search *S, bridge *x)
{
    memset(x, 0, sizeof *x);
    if (from->score <= 0 || !from->content) return AM_OK;
    const char *const *ct = qt;
    const double *cw = qw;
    size_t nc = nq, part = 0;
    for (size_t j = 0; j < h->n && h->clauses > 1; j++)
        if (h->rid[j] == from->rid) {
            ct = h->terms[h->home[j]];
            cw = h->weights[h->home[j]];
            nc = h->nt[h->home[j]];
            part = 1 + (size_t)h->home[j];
            break;
        }
    int rc;
    if (!qpos_made[part] && (rc = index_terms(ar, ct, nc, &qpos[part]))) return rc;
    qpos_made[part] = 1;
    rc = bridge_terms(env, ar, from->content, ct, &qpos[part], cw, nc, &x->terms, &x->weights,
                      &x->nt, &x->n_own, &x->first_unit, &x->n_told);
    if (rc) return rc;
    if (x->nt == 0) return AM_OK;
    if ((rc = index_terms(ar, x->terms, x->n_own, &x->own_pos))) return rc;
    x->qt = ct;
    x->qpos = &qpos[part];
    x->nq = nc;
    if (!(x->at = am__arena_take(ar, (x->nt + 1) * sizeof *x->at))) return AM_NOMEM;
    for (size_t t = 0; t < x->nt; t++)
        if ((rc = bridge_search_add(ar, S, x->terms[t], x->weights[t], &x->at[t]))) return rc;
    return AM_OK;
}

/* The search's hits, what is known of each (made when first looked at),
 * and the rows found so far (all[0..m)). */
typedef struct bridge_hits {
    const am__event_row *hop;
    size_t nh;
    const am__search_stats *st;
    /* the hits' token sets, when first looked at (through the cache of
     * texts' sets: the block's dedup asks for the same turns); not
     * zeroed: a set is made before it is read, hn[i] tells */
    uint64_t (*hset)[AM__TEXT_SET];
    size_t *hn;
    hit_head *heads;
    am__event_row *all;
    size_t m;
} bridge_hits;

/* Bridge x's terms hashed (th), its own words' idf and their sum. */
static int bridge_idf(am__arena *ar, const bridge *x, const am__search_stats *st, uint64_t **th_out,
                      double **idf_out, double *total)
{
    size_t nt = x->nt, n_own = x->n_own;
    uint64_t *th = am__arena_take(ar, (nt + 1) * sizeof *th);
    double *idf = am__arena_take(ar, (n_own + 1) * sizeof *idf);
    if (!th || !idf) return AM_NOMEM;
    *total = 0;
    for (size_t t = 0; t < nt; t++) {
        th[t] = am__hash64(x->terms[t], strlen(x->terms[t]));
        if (t >= n_own) continue;
        double df = st->valid ? st->df[x->at[t]] : 1, n_docs = st->valid ? st->n_docs : 2;
        idf[t] = log(1.0 + (n_docs - df + 0.5) / (df + 0.5));
        *total += idf[t];
    }
    *th_out = th;
    *idf_out = idf;
    return AM_OK;
}

/* Hits that lead with the bridge's name (a rare word of its own, not its
 * first) and describe it at length, into lead[0..nh); their number in
 * *leads. */
static int bridge_leads(const am__recall_env *env, am__arena *ar, const bridge *x,
                        const am__event_row *from, bridge_hits *H, const double *idf,
                        unsigned char *lead, int *leads)
{
    double top = 0;
    for (size_t t = 0; t < x->n_own; t++)
        if (idf[t] > top) top = idf[t];
    *leads = 0;
    for (size_t i = 0; i < H->nh; i++) {
        lead[i] = 0;
        const am__event_row *hi = &H->hop[i];
        if (hi->rid == from->rid || !hi->content || strlen(hi->content) < AM__BRIDGE_LEAD_BYTES)
            continue;
        size_t t;
        int rc = hit_lead(env, ar, hi->content, &H->heads[i], x->qt, x->qpos,
                          (const char *const *)x->terms, &x->own_pos, x->n_own, &t);
        if (rc) return rc;
        lead[i] = t < x->n_own && t != x->first_unit && idf[t] >= AM__BRIDGE_LEAD_IDF * top;
        *leads += lead[i];
    }
    return AM_OK;
}

/* The hits bridge x (of the row from) brings, scored into H->all. */
static int bridge_take(const am__recall_env *env, am__arena *ar, const bridge *x,
                       const am__event_row *from, bridge_hits *H)
{
    const am_rank_config *r = env->rank;
    const char **terms = (const char **)x->terms;
    const double *weights = x->weights;
    size_t nt = x->nt, n_own = x->n_own, nh = H->nh;
    const am__event_row *hop = H->hop;
    uint64_t *th;
    double *idf, total;
    int rc = bridge_idf(ar, x, H->st, &th, &idf, &total);
    if (rc) return rc;
    if (total <= 0) return AM_OK;
    /* hits that lead with the bridge's name; none when another hit holds
     * a word the question asks */
    int taken = 0, leads;
    unsigned char *lead = am__arena_take(ar, nh + 1);
    if (!lead) return AM_NOMEM;
    if ((rc = bridge_leads(env, ar, x, from, H, idf, lead, &leads))) return rc;
    /* each hit's coverage of the bridge's words and whether it holds
     * a word the question asks: computed once, when first needed */
    double *cov = am__arena_take(ar, (nh + 1) * sizeof *cov);
    signed char *ask = am__arena_take(ar, nh + 1);
    if (!cov || !ask) return AM_NOMEM;
    for (size_t i = 0; i < nh; i++) {
        cov[i] = -1;
        ask[i] = -1;
    }
    int found = 0;
    for (size_t i = 0; i < nh && leads && !found; i++) {
        if (hop[i].rid == from->rid || !hop[i].content) continue;
        if ((rc = hit_cover(env, &hop[i], H->hset[i], &H->hn[i], th, idf, n_own, total, &cov[i])))
            return rc;
        if (cov[i] < AM__BRIDGE_MIN_COVER) continue;
        if (ask[i] < 0)
            ask[i] = (signed char)hit_asks(terms, weights, n_own, nt, x->n_told, H->hset[i],
                                           H->hn[i], th);
        found = ask[i];
    }
    if (found) memset(lead, 0, nh);
    /* the leading hits first, then those holding an asked word, then
     * the rest, each pass in the search's order */
    unsigned char *done = am__arena_take(ar, nh + 1);
    if (!done) return AM_NOMEM;
    memset(done, 0, nh);
    for (int pass = 0; pass < 3; pass++)
    for (size_t i = 0; i < nh && taken < AM__BRIDGE_HITS; i++) {
        if (hop[i].rid == from->rid || !hop[i].content || done[i]) continue;
        if (pass == 0 && !lead[i]) continue;
        if ((rc = hit_cover(env, &hop[i], H->hset[i], &H->hn[i], th, idf, n_own, total, &cov[i])))
            return rc;
        double cover = lead[i] ? 1.0 : cov[i];
        if (cover < AM__BRIDGE_MIN_COVER) continue;
        int asks = lead[i]; /* one of the question's own remaining words */
        if (!asks) {
            if (ask[i] < 0)
                ask[i] = (signed char)hit_asks(terms, weights, n_own, nt, x->n_told, H->hset[i],
                                               H->hn[i], th);
            asks = ask[i];
        }
        if (pass == 1 && !asks) continue;
        done[i] = 1;
        double v = from->score * r->w_bridge * cover * (asks ? 1.0 : AM__BRIDGE_NO_ASK);
        size_t k;
        for (k = 0; k < H->m && H->all[k].rid != hop[i].rid; k++) {}
        if (k < H->m) {
            if (v <= H->all[k].score) continue; /* ranks higher already */
            H->all[k].score = v;
        } else {
            H->all[H->m] = hop[i];
            H->all[H->m++].score = v;
        }
        taken++;
    }
    return AM_OK;
}

/* qt / qw / nq: the question's terms (a compound question's bridge uses
 * its own clause's, from h). */
static int search_bridges(const am__recall_env *env, const char *uid, const char *const *qt, const double *qw,
                          size_t nq, const am__clause_homes *h, am_time to, am__arena *ar,
                          am__event_row **events, size_t *n_events)
{
    const am_rank_config *r = env->rank;
    am__store *s = env->store;
    if (r->bridges <= 0 || r->w_bridge <= 0 || *n_events == 0) return AM_OK;
    size_t nb = (size_t)r->bridges * (h->clauses > 1 ? h->clauses : 1);
    if (nb > *n_events) nb = *n_events;
    am__event_row *base = *events;
    size_t m = *n_events;
    am__event_row *all = am__arena_take(ar, (m + nb * AM__BRIDGE_HITS + 1) * sizeof *all);
    /* each bridge's terms; then one search for all of them (each term
     * once: a bridge's own words at 1, the question's at AM__BRIDGE_REST),
     * as deep as the searches of each would be together */
    bridge *br = am__arena_take(ar, (nb + 1) * sizeof *br);
    bridge_search S;
    memset(&S, 0, sizeof S);
    size_t used = 0;
    /* each part's question terms indexed when a bridge first uses them
     * (part 0: the question's own) */
    am__strpos qpos[AM__MAX_PARTS + 1];
    unsigned char qpos_made[AM__MAX_PARTS + 1] = {0};
    if (!all || !br) return AM_NOMEM;
    memcpy(all, base, m * sizeof *all);
    int rc;
    for (size_t b = 0; b < nb; b++) {
        if ((rc = bridge_make(env, ar, &base[b], qt, qw, nq, h, qpos, qpos_made, &S, &br[b])))
            return rc;
        if (br[b].nt) used++;
    }
    if (!used) return AM_OK;
    am__event_row *hop;
    size_t nh;
    am__search_stats st = {0, 0, am__arena_take(ar, (S.n + 1) * sizeof *st.df),
                           AM__BRIDGE_MAX_SHARE};
    if (!st.df) return AM_NOMEM;
    rc = am__search_events(s, uid, S.terms, S.w, S.n, 0.0, AM_TIME_NONE, to,
                           AM__BRIDGE_SEARCH * (int)used, ar, &hop, &nh, &st);
    if (rc) return rc;
    bridge_hits H = {hop, nh, &st, am__arena_take(ar, (nh + 1) * sizeof *H.hset),
                     am__arena_take(ar, (nh + 1) * sizeof *H.hn),
                     am__arena_take(ar, (nh + 1) * sizeof *H.heads), all, m};
    if (!H.hset || !H.hn || !H.heads) return AM_NOMEM;
    memset(H.heads, 0, (nh + 1) * sizeof *H.heads);
    for (size_t i = 0; i < nh; i++) H.hn[i] = SIZE_MAX;
    for (size_t b = 0; b < nb; b++)
        if (br[b].nt && (rc = bridge_take(env, ar, &br[b], &base[b], &H))) return rc;
    am__sort_events(all, H.m);
    *events = all;
    *n_events = H.m;
    return AM_OK;
}

int am__recall_hops(am__recall_state *st)
{
    const am__recall_env *env = st->env;
    int rc;
    if (env->rank->pii_matches > 0 &&
        (rc = am__recall_pii_matches(env, st->uid, st->q->text, st->qn, st->to, st->ar,
                                     &st->events, &st->n_events)))
        return rc;
    return search_bridges(env, st->uid, st->terms, st->weights, st->nt, &st->homes, st->to,
                          st->ar, &st->events, &st->n_events);
}
