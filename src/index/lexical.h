/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexical.h -- lexical search: BM25F over the postings a store hands
 * over (store.h: user_rows, term_docs, postings, rows_get), so that every
 * backend ranks the same rows the same way, to the bit.
 *
 * Who calls it: both paths -- the recall's search stage (recall/search.c),
 * its clauses and conditions (recall/clauses.c), the two-hop bridges
 * (recall/hops.c), and the write path's task vote (perceive/attribute.c)
 * -- which is why it sits in index/, below both, so that neither path
 * includes the other.  It includes only the store's interface.
 */
#ifndef AM_INDEX_LEXICAL_H
#define AM_INDEX_LEXICAL_H

#include "store/store.h"

/* The user's statistics of a search's terms, handed from one search to
 * the next over the same terms (a dated question searches its period
 * after the whole history): df[i] of terms[i], and N.  A search given
 * valid stats uses them instead of reading the frequencies; given invalid
 * ones (valid 0, df of n_terms entries) it fills them when it can.  NULL:
 * neither. */
typedef struct am__search_stats {
    int valid;
    double n_docs;
    double *df;
    /* > 0: in a long history (where frequencies are read first), also
     * leave out terms in more than this share of the rows (0: a tenth) */
    double max_share;
} am__search_stats;

/* Lexical search (BM25F) for the user's events containing any of the
 * final index tokens terms[0..n_terms) (as produced by text/analyze), in
 * the text (weight 1) or its context (weight w_ctx); term i counts
 * weights[i] (NULL: all 1; expansions count less).  Best first (score set,
 * higher is better; ties: the older row), at most limit rows, allocated
 * in ar; time bounds optional (AM_TIME_NONE).  One snapshot of the store
 * (am__store_search_begin .. am__store_search_end). */
int am__search_events(am__store *s, const char *uid, const char *const *terms,
                      const double *weights, size_t n_terms, double w_ctx, am_time from,
                      am_time to, int limit, am__arena *ar, am__event_row **rows, size_t *n,
                      am__search_stats *stats);

#endif
