/* SPDX-License-Identifier: Apache-2.0 */
/*
 * budget.c -- the token budgets: the long-term section (memory
 * items) and the short-term one (task state and events) of the block.  A
 * caller's budget_tokens splits 70 / 30; otherwise the knobs'
 * budget_long_tokens / budget_short_tokens.  The result's event list is
 * the ranking, up to max_events, with the scores of candidates below the
 * relevance floor back in [0, floor).
 */
#include "recall/pipeline.h"

int am__recall_budget(am__recall_state *st)
{
    const am_rank_config *r = st->env->rank;
    for (size_t i = 0; i < st->n_events; i++)
        if (st->events[i].score < 0) st->events[i].score += 1; /* below the floor: lex in [0, floor) */
    if (st->n_events > st->max_ev) st->n_events = st->max_ev;
    st->budget_long = r->budget_long_tokens;
    st->budget_short = r->budget_short_tokens;
    if (st->q->budget_tokens > 0) {
        st->budget_long = st->q->budget_tokens * 7 / 10;
        st->budget_short = st->q->budget_tokens - st->budget_long;
    }
    return AM_OK;
}
