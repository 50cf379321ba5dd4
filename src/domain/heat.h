/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heat.h -- a recall's access feedback (the items it showed get one more
 * hit and a new last access) without ever making the recall wait or fail
 * for the write lock.
 *
 * The recall reads in its own snapshot and needs no lock; its touches are
 * a write.  They are tried without waiting (am__store_try_begin): when another
 * connection holds the write lock they are kept in the handle (at most
 * AM__HEAT_KEEP; more are dropped) and written inside the handle's next
 * write transaction -- an add, the next recall's touches, or one last try
 * without waiting when the handle closes.  Kept touches are removed only
 * once a transaction that wrote them committed, so a rolled-back add
 * writes them again next time.  A touch carries its own time and never
 * moves an item's last access back (the store's item_heat), so a late
 * touch ranks as an early one would have.  Heat is advisory: a touch
 * dropped (the list full, the handle closed while the lock was taken)
 * makes an item's score a little lower, never a recall wrong.  Forgetting
 * a user drops their kept touches.
 *
 * Who calls it: api/touch.c only, whose am__touch_* the public writes and
 * am_recall call (api/db_int.h).  Includes base/ and store/, never api/ or
 * cache/: what it needs of the handle comes in am__heat_env (the shared
 * cache is told through its callbacks).
 */
#ifndef AM_DOMAIN_HEAT_H
#define AM_DOMAIN_HEAT_H

#include "store/store.h"

#define AM__HEAT_KEEP 256 /* touches kept at most while the lock is taken */

/* The touches kept for a later write transaction (NULL: none yet). */
typedef struct am__touches am__touches;

/* What heat needs of the handle. */
typedef struct am__heat_env {
    am__store *store;
    const am__allocator *alloc;
    /* a user whose items' heat is about to be written (the shared cache
     * notes it), and the end of a transaction of heat's own (the cache
     * flushes what was noted); both may be NULL */
    void (*note)(void *ctx, const char *uid);
    void (*ended)(void *ctx);
    /* a plain log line (may be NULL) */
    void (*say)(void *ctx, int level, const char *msg);
    void *ctx;
} am__heat_env;

/* One write transaction of its own, not waited for (am__store_try_begin): the kept
 * touches and uid's lineages[0..n) at `at`.  AM_OK (the kept ones then
 * removed), AM_BUSY when the write lock is taken, or the store's error;
 * nothing is kept here (am__heat_keep). */
int am__heat_write(const am__heat_env *env, am__touches *kept, const char *uid,
                   const char *const *lineages, size_t n, am_time at);

/* uid's lineages[0..n) at `at` kept for the next write transaction in
 * *kept (allocated on first use); beyond AM__HEAT_KEEP, or out of memory,
 * dropped (logged, debug). */
void am__heat_keep(const am__heat_env *env, am__touches **kept, const char *uid,
                   const char *const *lineages, size_t n, am_time at);

/* Inside the caller's write transaction: the kept touches written (AM_OK
 * or the store's error); am__heat_committed removes them once that
 * transaction committed. */
int am__heat_flush(const am__heat_env *env, am__touches *kept);
void am__heat_committed(am__touches *kept);

/* The write locks a write transaction starting now takes first: the
 * users of the events it will add (uids, n) and of the heat it flushes,
 * in the store's order (store.h begin AM__TX_LOCK; none where one lock
 * serializes every writer). */
int am__heat_lock_writers(am__store *s, const am__touches *kept, const char *const *uids,
                          size_t n);

/* A forgotten user's kept touches removed. */
void am__heat_drop(am__touches *kept, const char *uid);

/* The handle closes: one last try without waiting (a failure logged,
 * debug), then the kept touches freed and *kept NULL. */
void am__heat_close(const am__heat_env *env, am__touches **kept);

#endif
