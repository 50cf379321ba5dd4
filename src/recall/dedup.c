/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dedup.c -- the block's events: the candidates above the relevance
 * floor, up to max_events, that are neither the source of a memory shown
 * above them nor a restatement of one: an older wording of a superseded
 * version, said no later than the memory's version was last reinforced
 * (recorded, or repeated in place: store.h), with 80 %
 * of the tokens shared both ways (a later "no, not window seats" is a
 * correction, not a restatement).  A restatement is about as long as the
 * memory, so other turns are not tokenised at all.  The result's event
 * list is the ranking itself (budget.c); only the block is deduplicated.
 */
#include <stdlib.h>
#include <string.h>

#include "recall/pipeline.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* 1 when id is a listed source of one of the items: its hash among the
 * sorted hashes of every source, then confirmed by the strings (an item
 * lists up to AM__ITEM_SOURCES_FIRST + _LAST; the candidates are tens).
 * A repetition no longer listed was said before the version's last
 * reinforcement: the restatement test below catches it. */
static int is_source(const am__scored_item *scored, size_t n_items, const uint64_t *hashes,
                     size_t n_hashes, const char *id)
{
    uint64_t h = am__hash64(id, strlen(id));
    size_t lo = 0, hi = n_hashes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (hashes[mid] < h) lo = mid + 1;
        else hi = mid;
    }
    if (lo == n_hashes || hashes[lo] != h) return 0;
    for (size_t k = 0; k < n_items; k++)
        for (size_t j = 0; j < scored[k].row->n_sources; j++)
            if (strcmp(scored[k].row->sources[j], id) == 0) return 1;
    return 0;
}

int am__recall_dedup(am__recall_state *st)
{
    const am__recall_env *env = st->env;
    am__arena *ar = st->ar;
    const am__scored_item *scored = st->scored;
    const am__event_row *events = st->events;
    size_t n_items = st->n_items, max_ev = st->max_ev;
    int rc;
    /* a recall that meets events of an old period reads their whole text
     * (the block and the result): an archived one's row keeps only a
     * summary (lifecycle/cold.h); no event younger than a day is archived */
    for (size_t i = 0; i < st->n_events; i++)
        if (st->events[i].occurred_at < st->now - AM__COLD_MIN_AGE_MS) {
            if ((rc = am__store_cold_fill(env->store, st->uid, st->events, st->n_events, st->ar,
                                          NULL)))
                return rc;
            break;
        }
    size_t n_floor = am__events_cut(env->rank, events, st->n_events);
    am__event_row *block_events = am__arena_take(ar, (n_floor + 1) * sizeof *block_events);
    uint64_t (*iset)[AM__DEDUP_SET] = am__arena_take(ar, (n_items + 1) * sizeof *iset);
    size_t *ni = am__arena_take(ar, (n_items + 1) * sizeof *ni);
    if (!block_events || !iset || !ni) return AM_NOMEM;
    size_t n_src = 0;
    for (size_t k = 0; k < n_items; k++) n_src += scored[k].row->n_sources;
    uint64_t *src = am__arena_take(ar, (n_src + 1) * sizeof *src);
    if (!src) return AM_NOMEM;
    n_src = 0;
    for (size_t k = 0; k < n_items; k++)
        for (size_t j = 0; j < scored[k].row->n_sources; j++)
            src[n_src++] = am__hash64(scored[k].row->sources[j], strlen(scored[k].row->sources[j]));
    if (n_src > 1) qsort(src, n_src, sizeof *src, cmp_u64);
    size_t longest = 0, shortest = (size_t)-1;
    am_time newest = AM_TIME_NONE;
    for (size_t k = 0; k < n_items; k++) {
        const char *t = scored[k].row->text ? scored[k].row->text : "";
        size_t len = strlen(t);
        if (len > longest) longest = len;
        if (len < shortest) shortest = len;
        if (newest == AM_TIME_NONE || scored[k].row->reinforced_at > newest)
            newest = scored[k].row->reinforced_at;
        if ((rc = am__tokcache_text_set(env->text, env->tokcache, t, len, iset[k], &ni[k])))
            return rc;
    }
    size_t n_block = 0;
    for (size_t i = 0; i < n_floor && n_block < max_ev; i++) {
        int dup = n_src && is_source(scored, n_items, src, n_src, events[i].id);
        size_t clen = events[i].content ? strlen(events[i].content) : 0;
        if (!dup && n_items && clen && clen <= 2 * longest + 16 && 2 * clen + 16 >= shortest &&
            events[i].occurred_at <= newest) {
            uint64_t es[AM__DEDUP_SET];
            size_t ne;
            if ((rc = am__tokcache_event_set(env->text, env->tokcache, &events[i], es, &ne)))
                return rc;
            for (size_t k = 0; k < n_items && !dup && ne; k++) {
                if (events[i].occurred_at > scored[k].row->reinforced_at) continue;
                size_t both = am__set_overlap(es, ne, iset[k], ni[k]);
                dup = both * 5 >= ne * 4 && both * 5 >= ni[k] * 4;
            }
        }
        if (!dup) block_events[n_block++] = events[i];
    }
    st->block_events = block_events;
    st->n_block = n_block;
    return AM_OK;
}
