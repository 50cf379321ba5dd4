/* SPDX-License-Identifier: Apache-2.0 */
/*
 * decay.c -- confidence over time (maintain.h).
 *
 * An item's confidence is the one it was stated (or last confirmed) with,
 * halved every half-life of its kind (confidence_half_life_*_days) since
 * it was last reinforced, confirmed or recalled; never below
 * confidence_floor; lowered by counter_evidence while a conflicting
 * statement of it waits for the user's answer (merge.c: a pending_confirm
 * version beside the active one).  Nothing is stored for the decay
 * itself: it is computed where it decides.  What it decides is a status:
 * below forget_below an active or archived item becomes candidate_forget;
 * a candidate_forget item left forget_grace_days without a repetition or
 * a confirm is invalidated; one whose confidence is back at forget_below
 * (the knobs changed) is active again.
 */
#include "lifecycle/maintain.h"

#include <math.h>
#include <string.h>

static double half_life(const am_rank_config *r, const char *kind)
{
    if (strcmp(kind, "profile") == 0 || strcmp(kind, "fact") == 0)
        return r->confidence_half_life_profile_days;
    if (strcmp(kind, "preference") == 0 || strcmp(kind, "constraint") == 0 ||
        strcmp(kind, "rule") == 0 || strcmp(kind, "habit") == 0)
        return r->confidence_half_life_preference_days;
    if (strcmp(kind, "task_conclusion") == 0 || strcmp(kind, "pattern") == 0)
        return r->confidence_half_life_conclusion_days;
    return r->confidence_half_life_temp_days;
}

double am__life_confidence(const am_rank_config *r, const am__item_row *it, am_time anchor,
                           int counter, am_time now)
{
    double hl = half_life(r, it->kind);
    if (hl < 1) hl = 1;
    double age = now > anchor ? (double)(now - anchor) / AM__DAY_MS : 0;
    double c = it->confidence * pow(0.5, age / hl);
    if (counter) c -= r->counter_evidence;
    return c < r->confidence_floor ? r->confidence_floor : c;
}

/* 1 when a conflicting statement of it's lineage waits (pending_confirm) */
static int conflicted(const am__item_row *rows, size_t n, const am__item_row *it)
{
    for (size_t i = 0; i < n; i++)
        if (&rows[i] != it && strcmp(rows[i].status, "pending_confirm") == 0 &&
            strcmp(rows[i].lineage_id, it->lineage_id) == 0)
            return 1;
    return 0;
}

/* The last time the item was in use: reinforced, confirmed, recalled */
static am_time anchor_of(const am__item_row *it)
{
    am_time a = it->reinforced_at != AM_TIME_NONE ? it->reinforced_at : it->recorded_at;
    if (it->last_access != AM_TIME_NONE && it->last_access > a) a = it->last_access;
    return a;
}

int am__life_decay(am__wctx *w, int budget, am__life_tally *t, int *done)
{
    const am_rank_config *r = w->rank;
    am__item_row *rows, *arch;
    size_t n, na;
    int rc = am__life_items(w, &rows, &n, &arch, &na);
    if (rc) return rc;
    int moved = 0;
    long decayed = 0; /* counted once, by the call that goes through */
    double grace_ms = r->forget_grace_days * AM__DAY_MS;
    *done = 0;
    for (size_t k = 0; k < n + na; k++) {
        if (moved >= budget) return AM_OK;
        am__item_row *it = k < n ? &rows[k] : &arch[k - n];
        if (it->valid_from > w->now) continue;
        int active = strcmp(it->status, "active") == 0, archived = k >= n;
        if (active || archived) {
            double c = am__life_confidence(r, it, anchor_of(it), conflicted(rows, n, it), w->now);
            if (active && c < it->confidence - 0.05) decayed++;
            if (r->forget_below <= 0 || c >= r->forget_below) continue;
            /* an archived item is asked about too before it goes */
            if ((rc = am__life_move(w, it, "candidate_forget", archived ? "archived" : NULL,
                                    "memory.candidate_forget")))
                return rc;
            t->candidate++;
            moved++;
        } else if (strcmp(it->status, "candidate_forget") == 0) {
            /* only a repetition or a confirm counts here (a new version):
             * a recall that asked about it is no answer */
            double c = am__life_confidence(r, it, it->reinforced_at, conflicted(rows, n, it),
                                           w->now);
            if (r->forget_below > 0 && c >= r->forget_below) {
                if ((rc = am__life_move(w, it, "active", NULL, "memory.revived"))) return rc;
                t->revived++;
                moved++;
            } else if ((double)(w->now - it->valid_from) >= grace_ms) {
                if ((rc = am__life_move(w, it, "invalidated", NULL, "memory.expired"))) return rc;
                t->invalidated++;
                moved++;
            }
        }
    }
    t->decayed += decayed;
    *done = 1;
    return AM_OK;
}
