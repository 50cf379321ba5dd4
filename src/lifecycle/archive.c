/* SPDX-License-Identifier: Apache-2.0 */
/*
 * archive.c -- archival of items nobody uses (maintain.h).
 *
 * Heat is recall/rank.c's: base x 0.5^(age / half-life) x the bonus of its
 * hits, age counted from the last time it rose -- the statement, its
 * latest repetition, its latest recall.  It only falls after that, so the
 * time it went under archive_heat_ratio x base is known without watching
 * it: an item that has stayed under for archive_after_days is archived.
 * Back: a recall whose words hold an archived item (am__life_revive).
 */
#include "lifecycle/maintain.h"

#include <math.h>
#include <string.h>

#include "text/analyze.h"

am_time am__life_cold_since(const am_rank_config *r, const am__item_row *it)
{
    if (r->archive_heat_ratio <= 0 || it->base_score <= 0) return AM_TIME_NONE;
    am_time since = it->valid_from;
    if (it->reinforced_at != AM_TIME_NONE && it->reinforced_at > since) since = it->reinforced_at;
    if (it->last_access != AM_TIME_NONE && it->last_access > since) since = it->last_access;
    double hl = it->half_life_days > 0 ? it->half_life_days : 30;
    double bonus = 1 + 0.05 * (double)(it->hits > 20 ? 20 : it->hits);
    /* base x 0.5^(d / hl) x bonus < ratio x base  <=>  d > hl x log2(bonus / ratio) */
    double d = hl * log2(bonus / r->archive_heat_ratio);
    if (d < 0) d = 0;
    return since + (am_time)(d * AM__DAY_MS);
}

int am__life_archive(am__wctx *w, int budget, am__life_tally *t, int *done)
{
    const am_rank_config *r = w->rank;
    am__item_row *rows;
    size_t n;
    int rc = w->store->vt->items.items_list(
        w->store, w->uid, AM__ITEMS_CURRENT | AM__ITEMS_NO_SOURCES, w->now, w->ar, &rows, &n);
    if (rc) return rc;
    int moved = 0;
    *done = 0;
    for (size_t i = 0; i < n; i++) {
        if (moved >= budget) return AM_OK;
        am__item_row *it = &rows[i];
        if (strcmp(it->status, "active") != 0) continue;
        am_time cold = am__life_cold_since(r, it);
        if (cold == AM_TIME_NONE ||
            (double)(w->now - cold) < r->archive_after_days * AM__DAY_MS)
            continue;
        if ((rc = am__life_move(w, it, "archived", NULL, "memory.archived"))) return rc;
        t->archived++;
        moved++;
    }
    *done = 1;
    return AM_OK;
}

#define SET_MAX 256

/* 1 when the words of the query (its token set q) hold the item */
static int holds(am__wctx *w, const am__item_row *it, const uint64_t *q, size_t nq, int *rc)
{
    uint64_t s[SET_MAX];
    size_t ns;
    if ((*rc = am__text_token_set(w->text, it->text, strlen(it->text), s, SET_MAX, &ns))) return 0;
    size_t k = am__set_overlap(q, nq, s, ns);
    if (ns == 0) return 0;
    if (ns <= 2) return k == ns;
    return k >= 2 && 2 * k >= ns;
}

static int referenced(am__wctx *w, const char *query, int revive, long *count)
{
    am__item_row *rows;
    size_t n;
    *count = 0;
    int rc = w->store->vt->items.items_list(
        w->store, w->uid, AM__ITEMS_ARCHIVED | AM__ITEMS_NO_SOURCES | AM__ITEMS_NO_HEAT, w->now,
        w->ar, &rows, &n);
    if (rc || n == 0) return rc;
    uint64_t q[SET_MAX];
    size_t nq;
    if ((rc = am__text_token_set(w->text, query, strlen(query), q, SET_MAX, &nq))) return rc;
    for (size_t i = 0; i < n; i++) {
        if (!holds(w, &rows[i], q, nq, &rc)) {
            if (rc) return rc;
            continue;
        }
        (*count)++;
        if (!revive) return AM_OK;
        /* in use again: warm from now on */
        rows[i].reinforced_at = w->now;
        if ((rc = am__life_move(w, &rows[i], "active", "archived", "memory.revived"))) return rc;
    }
    return AM_OK;
}

int am__life_referenced(am__wctx *w, const char *query, int *any)
{
    long count;
    int rc = referenced(w, query, 0, &count);
    *any = count > 0;
    return rc;
}

int am__life_revive(am__wctx *w, const char *query, long *revived)
{
    return referenced(w, query, 1, revived);
}
