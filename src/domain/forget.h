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
 * Who calls it: api/forget.c, api/memory_delete.c, api/export.c,
 * api/access_api.c, domain/export.c, lifecycle/packs.c, the store
 * conformance tests.  Includes store/ only;
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
 * AM_OK (*events: how many came back; am__forget_touched lists the
 * tasks to replay), AM_NOTFOUND (never forgotten), AM_DENIED (its
 * grace period is over), AM_MISUSE (no such level).  Level user:
 * am__forget_restore. */
int am__forget_restore_forget(am__store *s, const char *uid, int level, const char *id, am_time now,
                              long *events);

/* The user's forgets in their grace period (not the user's own), oldest
 * first: level name, id, forget and purge times. */
int am__forget_held(am__store *s, const char *uid, am__arena *ar, am__held_row **rows, size_t *n);

/* A forget (caller's transaction) of an event, a session or a task of
 * uid (level AM_FORGET_*, id its id) or of the user (AM_FORGET_USER, id
 * unused: am__forget_user), its rows held until purge_at when that is
 * later than now (restorable until then), else gone now.  Counts: events,
 * item versions and tasks that went (a user's: what it holds).  AM_OK,
 * AM_NOTFOUND (nothing of it was there, nothing held of it), AM_MISUSE
 * (no such level).  am__forget_touched then lists the tasks to replay. */
int am__forget_grace(am__store *s, const char *uid, int level, const char *id, am_time now,
                     am_time purge_at, long *events, long *items, long *tasks);
/* am__forget_grace with purge_at = now. */
int am__forget(am__store *s, const char *uid, int level, const char *id, am_time now, long *events,
               long *items, long *tasks);

/* A user forget (caller's transaction): the user is hidden at once
 * (user_exists 0, am__forget_state HELD or PURGING) and a job purges it
 * at purge_at; counts: what it holds (events, item versions, tasks).
 * Forgetting a held user again moves its purge earlier, never later. */
int am__forget_user(am__store *s, const char *uid, am_time now, am_time purge_at, long *events,
                    long *items, long *tasks);

/* The tasks the last forget or restore of this connection touched that
 * remain (their state to rebuild: the caller replays their events), by
 * id, in ar. */
int am__forget_touched(am__store *s, am__arena *ar, const char ***task_ids, size_t *n);

/* One memory item deleted (caller's transaction): every version of
 * lineage_id of uid with the completeness of a forget (store.h's
 * forget_delete) and the scrub a forget owes (the files keep no byte of
 * its text).  *versions: how many versions went; AM_NOTFOUND when none
 * (the caller rolls back). */
int am__forget_item_delete(am__store *s, const char *uid, const char *lineage_id, am_time now,
                           long *versions);

/* Outside any transaction (AM_MISUSE inside): the due work of forget
 * jobs (purge_at <= now), each step a store forget_step in a short write
 * transaction of its own (a scrub: AM__CTL_SCRUB), a pause apart, at most
 * max_steps of them (0: until none is due or the log cannot be
 * truncated now); *more = 1 when due work remains.  s->on_step (when
 * set) after each step committed. */
int am__forget_work(am__store *s, am_time now, int max_steps, int *more);

#endif
