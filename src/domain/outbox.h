/* SPDX-License-Identifier: Apache-2.0 */
/*
 * outbox.h -- memory events (docs/EVENTS.md): a handle's subscribers,
 * the delivery of what its commits published, a page of the outbox,
 * retention and the record of a denial.
 *
 * The events themselves are written where their causes are decided
 * (semantic/merge.c for items, perceive/state.c for tasks, store/sqlite/
 * forget.c for forgetting, am__outbox_denied for denials), to the store's
 * outbox in the cause's transaction (store/sqlite/outbox.c).  Nothing is
 * kept in memory between a write and its commit: after each public write
 * am__outbox_deliver asks the store which seqs this connection committed
 * (log_page with neither row; a rolled back transaction's are never among them),
 * reads those rows back and hands them to the subscribers -- so what a
 * subscriber sees is exactly what any other process reads with
 * am_events_since, in the same order, with the same JSON.
 *
 * The JSON of an event: {"seq","type","user","memory_id","key",
 * "task_id","event_id",<detail>,"at","occurred_at"}, absent fields
 * omitted; detail is "change" (updated, invalidated, created by
 * promotion), "level" (forgotten), "fields" (task.updated, an array),
 * "what" with "asked_user" (security.denied).
 *
 * Who calls it: api/events.c only (am_subscribe, am_events_since,
 * am_security_denied, and am__events_deliver after every public write),
 * which checks the arguments, holds the transactions and boxes results.
 * Includes base/ and store/, never api/: what it needs of the handle
 * comes in am__outbox_env and am__outbox_subs.
 */
#ifndef AM_DOMAIN_OUTBOX_H
#define AM_DOMAIN_OUTBOX_H

#include "agentmem.h"
#include "store/store.h"

#define AM__OUTBOX_PAGE 1000 /* rows read at a time (and am_events_since's default) */

/* A handle's subscribers; all zero: none.  delivering is set while they
 * are called (they may not subscribe or unsubscribe then). */
typedef struct am__outbox_sub {
    int id;
    am_memory_event_fn fn;
    void *ctx;
} am__outbox_sub;
typedef struct am__outbox_subs {
    am__outbox_sub *v;
    size_t n, cap;
    int next, delivering;
} am__outbox_subs;

/* What the delivery and the retention need of the handle. */
typedef struct am__outbox_env {
    am__store *store;
    const am__allocator *alloc;
    am_time (*now)(void *ctx);  /* the engine's clock */
    void *ctx;
} am__outbox_env;

/* A subscriber added (*id its id): AM_OK or AM_NOMEM; removed: AM_OK or
 * AM_NOTFOUND; all released (the list left empty). */
int am__outbox_subscribe(am__outbox_subs *subs, const am__allocator *a, am_memory_event_fn fn,
                         void *ctx, int *id);
int am__outbox_unsubscribe(am__outbox_subs *subs, int id);
void am__outbox_subs_free(am__outbox_subs *subs, const am__allocator *a);

/* The rows this connection's commits published since the last call,
 * handed to the subscribers in seq order (nothing when none or no
 * subscriber): AM_OK, or the store's error when it could not read them
 * back (then the rest stays undelivered in process, and in the outbox
 * for its readers; the caller logs it). */
int am__outbox_deliver(const am__outbox_env *env, am__outbox_subs *subs);

/* The page of uid's events (NULL: every user's) after after_seq, at most
 * max, into out (items, n, last_seq, oldest_seq, json: one JSON line an
 * event), all from ar; scratch buffers from a.  AM_OK, AM_NOMEM or the
 * store's error. */
int am__outbox_page(am__store *s, const char *uid, int64_t after_seq, size_t max, am__arena *ar,
                    const am__allocator *a, am_memory_events *out);

/* In the caller's write transaction: the outbox trimmed to its retention
 * (rows older than max_age_ms before the clock's now, 0: no age limit;
 * beyond the newest max_rows, 0: no count limit). */
int am__outbox_trim(const am__outbox_env *env, am_time max_age_ms, int64_t max_rows);

/* In the caller's write transaction: a refused request audited and
 * published as security.denied.  asked_user is hostile input (a request's
 * field): recorded as given only when it is an id, else as "(not an id)". */
int am__outbox_denied(am__store *s, am_time now, const char *token_user, const char *asked_user,
                      const char *what);

#endif
