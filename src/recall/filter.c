/*
 * filter.c -- the structural filter (F15): what a recall may see at all,
 * before any text is compared.  Only the user's own rows (every store call
 * takes the master user), only what was said before as_of (the bound of
 * every search), only the item versions current now or valid at as_of,
 * and only the scopes the question can see: global, the caller's domain
 * (every domain's when the domain disagrees with the text, F7) and the
 * task the turn refers to.
 */
#include <string.h>

#include "recall/pipeline.h"

int am__recall_filter(am__recall_state *st)
{
    am__store *s = st->env->store;
    int exists = s->vt->user_exists(s, st->uid);
    if (exists < 0) return -exists;
    st->exists = exists;
    if (!exists) return AM_OK;
    st->at = st->as_of != AM_TIME_NONE ? st->as_of : st->now;
    st->to = st->as_of != AM_TIME_NONE ? st->as_of + 1 : AM_TIME_NONE;
    return s->vt->items_list(s, st->uid,
                             (st->as_of != AM_TIME_NONE ? AM__ITEMS_ASOF : AM__ITEMS_CURRENT) |
                                 AM__ITEMS_NO_SOURCES,
                             st->at, st->ar, &st->all_items, &st->n_all_items);
}

int am__recall_visible(const am__recall_state *st, const char *scope)
{
    const am_query *q = st->q;
    const am__task_row *task = st->task;
    if (!scope || strcmp(scope, "global") == 0) return 1;
    if (strncmp(scope, "domain:", 7) == 0)
        return st->domain_conflict || (q->domain && strcmp(scope + 7, q->domain) == 0);
    if (strncmp(scope, "task:", 5) == 0) return task && strcmp(scope + 5, task->task_id) == 0;
    return 0;
}
