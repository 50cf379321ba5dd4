/* SPDX-License-Identifier: Apache-2.0 */
/*
 * terms.c -- the question's search terms.  A term is an index
 * token of the question (the same analyzer as the write path, minus
 * stopwords; at most 256, so a chatty question keeps the ask at its end)
 * at weight 1, then the tokens of its synonyms and near-words
 * (recall/expand.c) at AM__EXPANSION_WEIGHT and the narrower words of its
 * broad ones at AM__HYPONYM_WEIGHT, each token once.
 *
 * A query that corrects itself ("…天气真好。不好意思，我真正想问的是：
 * …？") is searched for its asks (each a clause of the search stage); its
 * other words count w_preamble.  The question's token set (to rank the
 * memory items) comes from the same analysis when it is searched whole.
 */
#include <string.h>

#include "recall/pipeline.h"

int am__recall_add_terms(const am__recall_env *env, am__arena *ar, const char *text, double w,
                         const char ***terms, const double **weights, size_t *nt)
{
    const char **more;
    size_t nm, n = *nt;
    int rc = am__query_terms(env->text, text, ar, &more, &nm);
    if (rc) return rc;
    const char **all = am__arena_take(ar, (n + nm + 1) * sizeof *all);
    double *wt = am__arena_take(ar, (n + nm + 1) * sizeof *wt);
    if (!all || !wt) return AM_NOMEM;
    memcpy(all, *terms, n * sizeof *all);
    for (size_t i = 0; i < n; i++) wt[i] = *weights ? (*weights)[i] : 1.0;
    am__strpos pos = {0};
    for (size_t i = 0; i < n && nm; i++)
        if ((rc = am__strpos_add(&pos, ar, all, i))) return rc;
    for (size_t i = 0; i < nm; i++) {
        if (am__strpos_find(&pos, all, more[i]) != SIZE_MAX) continue;
        wt[n] = w;
        all[n] = more[i];
        if ((rc = am__strpos_add(&pos, ar, all, n++))) return rc;
    }
    *terms = all;
    *weights = wt;
    *nt = n;
    return AM_OK;
}

int am__recall_text_terms(const am__recall_env *env, am__arena *ar, const char *text, size_t n,
                          const char *qnorm, size_t qnorm_len, const char ***terms,
                          const double **weights, size_t *nt, uint64_t *qset, size_t *nq)
{
    am__buf norm, expansion, narrow;
    am__buf_init(&norm, env->alloc);
    am__buf_init(&expansion, env->alloc);
    am__buf_init(&narrow, env->alloc);
    const char *own = am__arena_strndup(ar, text, n);
    int rc = !own ? AM_NOMEM : qnorm ? AM_OK : am__text_normalize(env->text, text, n, &norm);
    if (!qnorm) {
        qnorm = norm.p ? norm.p : "";
        qnorm_len = norm.len;
    }
    if (!rc) rc = am__expand_query(qnorm, qnorm_len, &expansion, &narrow);
    const char *expanded = rc || !expansion.len ? NULL : am__arena_strndup(ar, expansion.p, expansion.len);
    const char *narrower = rc || !narrow.len ? NULL : am__arena_strndup(ar, narrow.p, narrow.len);
    if (!rc && ((expansion.len && !expanded) || (narrow.len && !narrower))) rc = AM_NOMEM;
    am__buf_free(&norm);
    am__buf_free(&expansion);
    am__buf_free(&narrow);
    *weights = NULL;
    if (!rc) rc = am__query_terms_set(env->text, own, ar, terms, nt, qset, AM__MAX_QSET, nq);
    if (!rc && expanded)
        rc = am__recall_add_terms(env, ar, expanded, AM__EXPANSION_WEIGHT, terms, weights, nt);
    if (!rc && narrower)
        rc = am__recall_add_terms(env, ar, narrower, AM__HYPONYM_WEIGHT, terms, weights, nt);
    return rc;
}

int am__recall_terms(am__recall_state *st)
{
    const am__recall_env *env = st->env;
    const am_rank_config *r = env->rank;
    am__arena *ar = st->ar;
    size_t ask_from[AM__MAX_CLAUSES], ask_to[AM__MAX_CLAUSES], n_asks = 0;
    if (r->w_preamble < 1)
        n_asks = am__query_asks(st->qnorm, st->qnorm_len, ask_from, ask_to, AM__MAX_CLAUSES);
    st->qtext = st->q->text;
    st->qtext_n = st->qn;
    memset(&st->asks, 0, sizeof st->asks);
    st->nq = 0;
    if (!n_asks)
        return am__recall_text_terms(env, ar, st->q->text, st->qn, st->qnorm, st->qnorm_len,
                                     &st->terms, &st->weights, &st->nt, st->qset, &st->nq);
    am__buf focus;
    am__buf_init(&focus, env->alloc);
    for (size_t k = 0; k < n_asks; k++) {
        if (k) am__buf_addc(&focus, ' ');
        am__buf_add(&focus, st->qnorm + ask_from[k], ask_to[k] - ask_from[k]);
        st->asks.p[k] = st->qnorm + ask_from[k];
        st->asks.n[k] = ask_to[k] - ask_from[k];
    }
    st->asks.count = n_asks;
    st->qtext = focus.oom ? NULL : am__arena_strndup(ar, focus.p, focus.len);
    st->qtext_n = focus.len;
    am__buf_free(&focus);
    if (!st->qtext) return AM_NOMEM;
    int rc = am__recall_text_terms(env, ar, st->qtext, st->qtext_n, NULL, 0, &st->terms,
                                   &st->weights, &st->nt, NULL, NULL);
    if (!rc && r->w_preamble > 0)
        rc = am__recall_add_terms(env, ar, st->q->text, r->w_preamble, &st->terms, &st->weights,
                                  &st->nt);
    if (!rc) rc = am__text_token_set(env->text, st->q->text, st->qn, st->qset, AM__MAX_QSET, &st->nq);
    return rc;
}
