/* SPDX-License-Identifier: Apache-2.0 */
/*
 * filter.c -- the structural filter: what a recall may see at all,
 * before any text is compared.  Only the user's own rows (every store call
 * takes the master user), only what was said before as_of (the bound of
 * every search), only the item versions current now or valid at as_of,
 * (or, for a period the turn names, as they were then: period_items),
 * and only the scopes the question can see: global, the caller's domain
 * (every domain's when the domain disagrees with the text) and the
 * task the turn refers to.  The caller's filter (am_query.filter,
 * store/metadata.h) keeps only the items it passes here, and only the
 * events it passes after the searches (am__recall_filter_events).  The
 * rules of the user's packs leave the items for a section of their own
 * (pack_rules).
 */
#include <stdlib.h>
#include <string.h>

#include "recall/pipeline.h"
#include "text/entities.h"
#include "text/lexicon/lexicon.h"

/* a period the turn names ("三个月前", "去年夏天", "back in January")
 * applies to the items as well as the events: each item as it was then --
 * per lineage the version valid last within the period (current in system
 * time; a value withdrawn since was active then).  A turn that also asks
 * for the present ("现在", "now", "currently") keeps the current versions
 * and adds the period's where they differ; a period that holds the present,
 * or shorter than a week (a day, a weekday), changes nothing. */
#define PERIOD_MIN_MS (7 * 86400000LL)

static int period_items(am__recall_state *st)
{
    am_time from, to;
    /* a past period of a week or more: "周五可以开会吗" names a weekday, not
     * the state of last Friday; yesterday's items are today's */
    if (st->as_of != AM_TIME_NONE) return AM_OK;
    /* (the search stage asks the same: st->named) */
    st->named = am__query_time_range(st->q->text, st->qn, st->now, st->env->default_tz_minutes,
                                     &st->named_from, &st->named_to);
    st->named_known = 1;
    from = st->named_from;
    to = st->named_to;
    if (!st->named || to > st->now || to - from < PERIOD_MIN_MS) return AM_OK;
    am__store *s = st->env->store;
    am__item_row *rows;
    size_t n;
    int rc = s->vt->items.items_list(s, st->uid, AM__ITEMS_ALL | AM__ITEMS_NO_SOURCES, st->now,
                                     st->ar, &rows, &n);
    if (rc) return rc;
    int now_asked = st->qnorm && am__cue_scan(st->qnorm, st->qnorm_len, am__lex_time_now, NULL,
                                              AM__CUE_FIRST, NULL);
    size_t cur = now_asked ? st->n_all_items : 0;
    am__item_row *out = am__arena_alloc(st->ar, (cur + n + 1) * sizeof *out);
    if (!out) return AM_NOMEM;
    if (cur) memcpy(out, st->all_items, cur * sizeof *out);
    size_t m = cur;
    for (size_t i = 0; i < n; i++) {
        const am__item_row *r = &rows[i];
        if (r->superseded_at != AM_TIME_NONE || strcmp(r->status, "pending_confirm") == 0 ||
            r->valid_from >= to || (r->valid_to != AM_TIME_NONE && r->valid_to <= from))
            continue;
        size_t k = cur;
        while (k < m && strcmp(out[k].lineage_id, r->lineage_id) != 0) k++;
        if (k < m) {
            if (r->valid_from > out[k].valid_from) out[k] = *r;
            continue;
        }
        out[m++] = *r;
    }
    /* the present's versions stay once */
    size_t kept = cur;
    for (size_t i = cur; i < m; i++) {
        size_t k = 0;
        while (k < cur && strcmp(out[k].id, out[i].id) != 0) k++;
        if (k == cur) out[kept++] = out[i];
    }
    st->all_items = out;
    st->n_all_items = kept;
    st->period = 1;
    return AM_OK;
}

/* The rules of the user's packs (lifecycle/packs.h) leave the items: they
 * are shown under their own title, never ranked against what the user
 * said.  A rule is hidden while the user has an active or pending item
 * of its attribute (the user's word wins; when that item goes, the rule
 * is back). */
static int cmp_rule(const void *a, const void *b)
{
    const am__item_row *x = a, *y = b;
    int c = strcmp(x->scope, y->scope);
    return c ? c : strcmp(x->lineage_id, y->lineage_id); /* (the pack's order) */
}

/* 1 when an item of key b states the attribute of a rule of key a: the
 * same key, or the same attribute after the topic ("general.currency"
 * and "pricing.currency": the last part, when it is a table attribute's
 * word -- lower-case ASCII letters and '_', not a text's words). */
static int same_attribute(const char *a, const char *b)
{
    if (strcmp(a, b) == 0) return 1;
    const char *x = strrchr(a, '.'), *y = strrchr(b, '.');
    x = x ? x + 1 : a;
    y = y ? y + 1 : b;
    if (!*x || strcmp(x, y) != 0) return 0;
    for (; *x; x++)
        if (!((*x >= 'a' && *x <= 'z') || *x == '_')) return 0;
    return 1;
}

static int pack_rules(am__recall_state *st)
{
    size_t n = st->n_all_items, kept = 0, k = 0;
    am__item_row *all = st->all_items;
    for (size_t i = 0; i < n; i++) k += strncmp(all[i].scope, "pack:", 5) == 0;
    if (!k) return AM_OK;
    am__item_row *rules = am__arena_alloc(st->ar, k * sizeof *rules);
    if (!rules) return AM_NOMEM;
    k = 0;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(all[i].scope, "pack:", 5) != 0) continue;
        size_t u = 0;
        while (u < n && (strncmp(all[u].scope, "pack:", 5) == 0 ||
                         !same_attribute(all[i].key, all[u].key) ||
                         (strcmp(all[u].status, "active") != 0 &&
                          strcmp(all[u].status, "pending_confirm") != 0)))
            u++;
        if (u == n && strcmp(all[i].status, "active") == 0) rules[k++] = all[i];
    }
    for (size_t i = 0; i < n; i++)
        if (strncmp(all[i].scope, "pack:", 5) != 0) all[kept++] = all[i];
    st->n_all_items = kept;
    qsort(rules, k, sizeof *rules, cmp_rule);
    st->pack_rules = rules;
    st->n_pack_rules = k;
    return AM_OK;
}

int am__recall_filter(am__recall_state *st)
{
    am__store *s = st->env->store;
    int exists = am__store_user_exists(s, st->uid);
    if (exists < 0) return -exists;
    st->exists = exists;
    if (!exists) return AM_OK;
    st->at = st->as_of != AM_TIME_NONE ? st->as_of : st->now;
    st->to = st->as_of != AM_TIME_NONE ? st->as_of + 1 : AM_TIME_NONE;
    int rc = s->vt->items.items_list(
        s, st->uid,
        (st->as_of != AM_TIME_NONE ? AM__ITEMS_ASOF : AM__ITEMS_CURRENT) | AM__ITEMS_NO_SOURCES,
        st->at, st->ar, &st->all_items, &st->n_all_items);
    /* the rules hold now, whatever period the turn names */
    if (!rc) rc = pack_rules(st);
    if (!rc) rc = period_items(st);
    if (rc) return rc;
    size_t kept = 0;
    for (size_t i = 0; i < st->n_all_items; i++)
        if (strncmp(st->all_items[i].scope, "pack:", 5) != 0 &&
            (!st->filt || !st->filt->any || am__filter_item(st->filt, &st->all_items[i])))
            st->all_items[kept++] = st->all_items[i];
    st->n_all_items = kept;
    if (!st->filt || !st->filt->any) return AM_OK;
    kept = 0;
    for (size_t i = 0; i < st->n_pack_rules; i++)
        if (am__filter_item(st->filt, &st->pack_rules[i])) st->pack_rules[kept++] = st->pack_rules[i];
    st->n_pack_rules = kept;
    return AM_OK;
}

int am__recall_filter_events(am__recall_state *st)
{
    if (!st->filt || !st->filt->any) return AM_OK;
    size_t kept = 0;
    for (size_t i = 0; i < st->n_events; i++)
        if (am__filter_event(st->filt, &st->events[i])) st->events[kept++] = st->events[i];
    st->n_events = kept;
    return AM_OK;
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
