/* SPDX-License-Identifier: Apache-2.0 */
/*
 * forget.h -- the policy of forgetting, written once above the store:
 * what a user's forget state is, when a forget may be restored, which
 * forgets are in their grace period.  The store keeps the rows (its
 * forget_jobs operation: jobs and tombstones, store.h) and the SQL that
 * holds, restores and purges them; the rules over them live here, for
 * both backends.
 *
 * A forget leaves a job: "held" while its grace period runs (restorable),
 * "purge" when due, "scrub" while the files owe a merge and a checkpoint
 * (SQLite); a purged forget leaves a tombstone -- a user's under the
 * pseudonym of its id, an event's, session's or task's under the keyed
 * ref of its id (am__store_object_ref).  Restore answers AM_NOTFOUND for
 * what was never forgotten and AM_DENIED once the grace period is over
 * (purging, purged, or due now).
 *
 * A due job's work runs in bounded steps, each its own transaction
 * (am__forget_work); the rows a step deletes are the store's business.
 *
 * Who calls it: api/forget.c, api/export.c, api/access_api.c,
 * domain/export.c, the store conformance tests.  Includes store/ only;
 * the task replay after a restore stays in api/ (perceive is above).
 */
#ifndef AM_DOMAIN_FORGET_H
#define AM_DOMAIN_FORGET_H

#include "store/store.h"

/* A forget held for its grace period (am__forget_held). */
typedef struct am__held_row {
    const char *level, *object_id;
    am_time forgotten_at, purge_at;
} am__held_row;

/* The state of a user's forget (am__forget_state). */
#define AM__FORGOTTEN_NONE 0
#define AM__FORGOTTEN_HELD 1    /* in its grace period: hidden, restorable */
#define AM__FORGOTTEN_PURGING 2 /* its rows are being deleted: hidden */
#define AM__FORGOTTEN_PURGED 3  /* gone; a tombstone under a pseudonym */

/* A user's forget: *state AM__FORGOTTEN_*; *at the forget, *until the
 * purge (due or done); 0s for NONE (a live user of a purged id again is
 * NONE). */
int am__forget_state(am__store *s, const char *uid, int *state, am_time *at, am_time *until);

/* A held user back (caller's transaction): AM_OK, AM_NOTFOUND (not
 * forgotten), AM_DENIED (its grace period is over: purged or purging). */
int am__forget_restore(am__store *s, const char *uid, am_time now);

/* The latest held forget of (level, id) back (caller's transaction):
 * AM_OK (*events: how many came back; the store's forget_touched lists
 * the tasks to replay), AM_NOTFOUND (never forgotten), AM_DENIED (its
 * grace period is over), AM_MISUSE (no such level).  Level user:
 * am__forget_restore. */
int am__forget_restore_forget(am__store *s, const char *uid, int level, const char *id, am_time now,
                              long *events);

/* The user's forgets in their grace period (not the user's own), oldest
 * first: level name, id, forget and purge times. */
int am__forget_held(am__store *s, const char *uid, am__arena *ar, am__held_row **rows, size_t *n);

/* Outside any transaction (AM_MISUSE inside): the due work of forget
 * jobs (purge_at <= now), each step a store forget_step in a short write
 * transaction of its own (a scrub: AM__CTL_SCRUB), a pause apart, at most
 * max_steps of them (0: until none is due or the log cannot be
 * truncated now); *more = 1 when due work remains.  s->on_step (when
 * set) after each step committed. */
int am__forget_work(am__store *s, am_time now, int max_steps, int *more);

#endif
