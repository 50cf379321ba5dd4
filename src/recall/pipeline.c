/*
 * pipeline.c -- the read path's driver: the stages of recall/pipeline.h,
 * called in order over one state.  The order is the data flow and is
 * written here once; a stage never calls another.
 */
#include "recall/pipeline.h"

typedef int (*recall_stage)(am__recall_state *st);

int am__recall_run(am__recall_state *st)
{
    int rc;
    st->block = "";
    st->err[0] = '\0';
    if ((rc = am__recall_route(st))) return rc;
    if (!st->rd.need_memory && !st->small_talk) return AM_OK; /* chit-chat, closings */
    if ((rc = am__recall_filter(st))) return rc;
    if (!st->exists) return AM_OK; /* nothing to recall */
    if (st->small_talk && (rc = am__recall_route_check(st))) return rc;
    size_t from = 0;
    if (!st->rd.need_memory) {
        /* small talk, unless the user's events hold its words */
        if ((rc = am__recall_terms(st)) || (rc = am__recall_search(st)) ||
            (rc = am__recall_route_events(st)))
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
    for (size_t i = from; i < sizeof stages / sizeof stages[0]; i++)
        if ((rc = stages[i](st))) return rc;
    return AM_OK;
}
