/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_score.c -- retrieval metrics of `agentmem bench`.
 *
 * For a ranking (best first) and the set G of gold documents, at cut-off k:
 *  recall@k     = |G ∩ top-k| / |G|        (the fraction of the evidence
 *                                           found, averaged over questions)
 *  recall_all@k = 1 if G ⊆ top-k else 0
 *  hit@k        = 1 if G ∩ top-k ≠ ∅ else 0
 *  ndcg@k       = DCG / IDCG with binary relevance,
 *                 DCG = Σ_{i<k, rank i gold} 1/log2(i+2),
 *                 IDCG = Σ_{i<min(|G|,k)} 1/log2(i+2)
 * A document that appears twice in a ranking counts once (first place).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "bench.h"

static int in_set(size_t x, const size_t *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

/* Number of gold documents in the first k ranks, and their DCG. */
static size_t found_at(int k, const size_t *ranked, size_t n_ranked,
                       const size_t *gold, size_t n_gold, double *dcg)
{
    size_t i, found = 0;
    double g = 0;
    for (i = 0; i < n_ranked && i < (size_t)k; i++) {
        if (!in_set(ranked[i], gold, n_gold) || in_set(ranked[i], ranked, i))
            continue;
        found++;
        g += 1.0 / log2((double)i + 2.0);
    }
    if (dcg)
        *dcg = g;
    return found;
}

double bench_recall_at(int k, const size_t *ranked, size_t n_ranked,
                       const size_t *gold, size_t n_gold)
{
    if (!n_gold)
        return 0;
    return (double)found_at(k, ranked, n_ranked, gold, n_gold, NULL) /
           (double)n_gold;
}

void bench_acc_add(bench_acc *a, const int *ks, size_t nk,
                   const size_t *ranked, size_t n_ranked, const size_t *gold,
                   size_t n_gold)
{
    size_t j;
    if (!n_gold)
        return;
    a->n += 1;
    for (j = 0; j < nk; j++) {
        double dcg, idcg = 0;
        size_t found = found_at(ks[j], ranked, n_ranked, gold, n_gold, &dcg);
        size_t i, ideal = n_gold < (size_t)ks[j] ? n_gold : (size_t)ks[j];
        for (i = 0; i < ideal; i++)
            idcg += 1.0 / log2((double)i + 2.0);
        a->recall[j] += (double)found / (double)n_gold;
        a->recall_all[j] += found == n_gold ? 1.0 : 0.0;
        a->hit[j] += found > 0 ? 1.0 : 0.0;
        a->ndcg[j] += idcg > 0 ? dcg / idcg : 0.0;
    }
}

json_t *bench_json_per_k(const int *ks, size_t nk, const double *sum,
                         double n)
{
    json_t *o = json_object();
    size_t i;
    for (i = 0; i < nk; i++) {
        char key[16];
        double v = n > 0 ? sum[i] / n : 0.0;
        snprintf(key, sizeof key, "%d", ks[i]);
        json_object_set_new(o, key, json_real(round(v * 10000.0) / 10000.0));
    }
    return o;
}
