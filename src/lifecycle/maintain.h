/* SPDX-License-Identifier: Apache-2.0 */
/*
 * maintain.h -- memory that lives (docs/LIFECYCLE.md): what time does to
 * a memory item, decided by the maintenance pass (am_maintain), never by a
 * recall.
 *
 *  - decay.c: an item's confidence falls with the time since it was last
 *    reinforced, confirmed or recalled (a half-life per kind, a floor;
 *    an open conflicting statement lowers it more).  Below forget_below an
 *    active (or archived) item becomes candidate_forget: still recalled,
 *    marked, asked about on its next on-topic recall.  After
 *    forget_grace_days without a repetition or a confirm (which make it
 *    active again: semantic/merge.c) it is invalidated.
 *  - archive.c: an active item whose heat (recall/rank.c's formula) has
 *    stayed under archive_heat_ratio x its base for archive_after_days is
 *    archived: out of recall and of the current listing, its versions kept
 *    (an as-of read of a time it was active sees it); a recall whose words
 *    hold it (am__life_revive) brings it back.
 *  - consolidate.c: near-duplicate current items of one attribute (same
 *    scope and key, or same kind and near text by merge.c's rule) become
 *    one, reinforced by the others' sources; the others are closed.
 *
 * Every change is a new version (merge.c's insert and close) recorded in
 * the audit log and as a memory event with its reason.  Each function
 * here works in the caller's write transaction on one user and makes at
 * most `budget` changes; *done = 1 when nothing of its kind is left for
 * the user at w->now (0: call again, in a new transaction).  A change
 * leaves a state the next call starts from, so a pass stopped anywhere
 * (a crash, a time budget) and run again ends where one run would.
 */
#ifndef AM_LIFECYCLE_MAINTAIN_H
#define AM_LIFECYCLE_MAINTAIN_H

#include "agentmem.h"
#include "write/perceive/perceive.h"
#include "store/store.h"

#define AM__DAY_MS 86400000.0

/* What the steps did (am_maintain_report's counters). */
typedef struct am__life_tally {
    long decayed, candidate, invalidated, archived, revived, consolidated;
} am__life_tally;

/* The confidence of item version it at now (decay.c): its stored
 * confidence halved every half-life of its kind since anchor, never
 * below the floor; counter: an open conflicting statement waits. */
double am__life_confidence(const am_rank_config *r, const am__item_row *it, am_time anchor,
                           int counter, am_time now);

/* The time heat last rose (a statement, a reinforcement, a recall) and
 * when the item's heat falls under archive_heat_ratio x its base
 * (archive.c; AM_TIME_NONE: never). */
am_time am__life_cold_since(const am_rank_config *r, const am__item_row *it);

/* The user's current items (rows) and archived ones (arch), without their
 * sources, as at w->now (move.c). */
int am__life_items(am__wctx *w, am__item_row **rows, size_t *n, am__item_row **arch,
                   size_t *na);

/* The steps (see above). */
int am__life_decay(am__wctx *w, int budget, am__life_tally *t, int *done);
int am__life_archive(am__wctx *w, int budget, am__life_tally *t, int *done);
int am__life_consolidate(am__wctx *w, int budget, am__life_tally *t, int *done);

/* The recall's part of archival: *any = 1 when the user has archived
 * items the words of query hold (read alone, no write); then
 * am__life_revive, in a write transaction, makes them active again
 * (reason "referenced"), *revived how many.  A match: at least two of the
 * item's words (its token set) and half of them, or every one of an item
 * of one or two words. */
int am__life_referenced(am__wctx *w, const char *query, int *any);
int am__life_revive(am__wctx *w, const char *query, long *revived);

/* One version of a status change (move.c): it closed; when it began
 * before now, its value up to now with the status it had (`then` NULL:
 * its own); and from now on, status `status`, keeping its reinforced_at.
 * Its sources are read first.  op/detail: the audit op and event. */
int am__life_move(am__wctx *w, am__item_row *it, const char *status, const char *then,
                  const char *op);

#endif
