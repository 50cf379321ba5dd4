/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kinds.c -- the kind filter: a turn that asks for a link or a file
 * ("把那个链接再发我一下", "那个文件在哪", "the doc you sent") is about a
 * reference, and the words around it rarely say which one ("the link"
 * shares no word with "https://..."). So when the router found such a
 * cue (route.c, AM__REFS_*), the turns that carry a reference -- a URL or
 * a file name, as the entity extractor finds them (text/entities.h) --
 * come first among the events: the candidates that hold one and the
 * user's latest turns that do (AM__KINDS_RECENT of them, so that a link
 * said last week is found without a shared word). The kind the turn
 * names comes before the other (a link before a file for "链接"); within
 * a kind, the lexical relevance, then the newest. Every other candidate
 * stays where it was, after them. The memory items that carry a
 * reference likewise move ahead of the others shown.
 *
 * Runs after the rank stage (the items are ranked, the events fused)
 * and before dedup (which cuts the block's events at the floor: a
 * reference turn is put above it).
 */
#include <stdlib.h>
#include <string.h>

#include "recall/pipeline.h"
#include "text/entities.h"

#define AM__KINDS_RECENT 200  /* the user's latest turns scanned for references */
#define AM__KINDS_ENTITIES 64 /* entities looked at per text */

/* AM__REFS_* bits of the references text carries. */
static int refs_of(const char *text)
{
    if (!text) return 0;
    am__entity ent[AM__KINDS_ENTITIES];
    size_t n = 0;
    if (am__entities_extract(text, strlen(text), AM_TIME_NONE, 0, ent, AM__KINDS_ENTITIES, &n))
        return 0;
    int refs = 0;
    for (size_t i = 0; i < n; i++) {
        if (ent[i].type == AM_ENT_URL) refs |= AM__REFS_URL;
        if (ent[i].type == AM_ENT_FILE) refs |= AM__REFS_FILE;
    }
    return refs;
}

/* The score of a turn that carries a reference: above every other
 * candidate's (a fused or task-bonused score stays below 2), the kind
 * the turn names first, then relevance, then recency. */
static double ref_score(int refs, int asked, double score, am_time at, am_time newest)
{
    double rel = score > 0 ? score / (1 + score) : 0;
    double age_days = newest > at ? (double)(newest - at) / 86400000.0 : 0;
    return 2 + ((refs & asked) ? 2 : 0) + 0.9 * rel + 0.09 / (1 + age_days);
}

static int ranks_first(const am__recall_state *st, am__event_row *all, size_t m)
{
    int asked = st->rd.refs;
    int *refs = am__arena_alloc(st->ar, (m + 1) * sizeof *refs);
    if (!refs) return AM_NOMEM;
    am_time newest = AM_TIME_NONE;
    for (size_t i = 0; i < m; i++) {
        refs[i] = refs_of(all[i].content);
        if (refs[i] && (newest == AM_TIME_NONE || all[i].occurred_at > newest))
            newest = all[i].occurred_at;
    }
    for (size_t i = 0; i < m; i++)
        if (refs[i]) all[i].score = ref_score(refs[i], asked, all[i].score, all[i].occurred_at, newest);
    return AM_OK;
}

/* Items that carry a reference first, the others after, each in rank
 * order (stable). */
static int items_first(am__recall_state *st)
{
    size_t n = st->n_items;
    if (n < 2) return AM_OK;
    am__scored_item *out = am__arena_alloc(st->ar, n * sizeof *out);
    if (!out) return AM_NOMEM;
    size_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            if ((refs_of(st->scored[i].row->text) != 0) == (pass == 0)) out[k++] = st->scored[i];
    st->scored = out;
    return AM_OK;
}

int am__recall_kinds(am__recall_state *st)
{
    if (!st->rd.refs) return AM_OK;
    am__store *s = st->env->store;
    am__event_row *recent;
    size_t nr;
    int rc = am__store_events_recent(s, st->uid, NULL, NULL, st->at, AM__KINDS_RECENT, st->ar,
                                     &recent, &nr);
    if (rc) return rc;
    am__event_row *all = am__arena_alloc(st->ar, (st->n_events + nr + 1) * sizeof *all);
    if (!all) return AM_NOMEM;
    size_t m = st->n_events;
    if (m) memcpy(all, st->events, m * sizeof *all);
    for (size_t i = 0; i < nr; i++) {
        size_t k;
        for (k = 0; k < st->n_events && all[k].rid != recent[i].rid; k++) {}
        if (k < st->n_events || !refs_of(recent[i].content)) continue;
        all[m] = recent[i];
        all[m++].score = 0;
    }
    if ((rc = ranks_first(st, all, m))) return rc;
    if (m > 1) qsort(all, m, sizeof *all, am__recall_cmp_score);
    st->events = all;
    st->n_events = m;
    return items_first(st);
}
