/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pipeline.c -- the read path's driver: the stages of recall/pipeline.h,
 * called in order over one state.  The order is the data flow and is
 * written here once; a stage never calls another.
 */
#include "recall/pipeline.h"

#include "base/log.h"

typedef int (*recall_stage)(am__recall_state *st);

const char *const am__recall_stage_names[AM__ST_COUNT] = {
    "route", "filter", "terms",  "search", "hops",   "fuse",
    "rank",  "kinds",  "dedup",  "budget", "render",
};

/* One stage, timed and its candidates counted into the trace (a helper
 * of a stage -- route_check, route_events -- counts as its stage). */
static int run(am__recall_state *st, int which, recall_stage fn)
{
    int64_t t0 = am__mono_us();
    int rc = fn(st);
    am__recall_trace *t = &st->trace;
    t->ran |= 1u << which;
    t->us[which] += am__mono_us() - t0;
    t->events[which] = which >= AM__ST_DEDUP ? st->n_block : st->n_events;
    t->items[which] = which == AM__ST_FILTER   ? st->n_all_items
                      : which == AM__ST_RENDER ? st->used_items
                                               : st->n_items;
    return rc;
}

int am__recall_run(am__recall_state *st)
{
    int rc;
    st->block = "";
    st->err[0] = '\0';
    if ((rc = run(st, AM__ST_ROUTE, am__recall_route))) return rc;
    if (!st->rd.need_memory && !st->small_talk) return AM_OK; /* chit-chat, closings */
    if ((rc = run(st, AM__ST_FILTER, am__recall_filter))) return rc;
    if (!st->exists) return AM_OK; /* nothing to recall */
    if (st->small_talk && (rc = run(st, AM__ST_ROUTE, am__recall_route_check))) return rc;
    size_t from = 0;
    if (!st->rd.need_memory) {
        /* small talk, unless the user's events hold its words */
        if ((rc = run(st, AM__ST_TERMS, am__recall_terms)) ||
            (rc = run(st, AM__ST_SEARCH, am__recall_search)) ||
            (rc = run(st, AM__ST_ROUTE, am__recall_route_events)))
            return rc;
        if (!st->rd.need_memory) {
            st->n_events = 0;
            return AM_OK;
        }
        from = 2;
    }
    static const recall_stage stages[] = {
        am__recall_terms, am__recall_search, am__recall_hops,   am__recall_fuse,
        am__recall_rank,  am__recall_kinds,  am__recall_dedup,  am__recall_budget,
        am__recall_render,
    };
    for (size_t i = from; i < sizeof stages / sizeof stages[0]; i++) {
        if ((rc = run(st, AM__ST_TERMS + (int)i, stages[i]))) return rc;
        /* the caller's filter on the events found (searches, hops, the
         * task's turns and the vector neighbours the fuse adds) */
        if (stages[i] == am__recall_fuse && (rc = run(st, AM__ST_FILTER, am__recall_filter_events)))
            return rc;
    }
    return AM_OK;
}
