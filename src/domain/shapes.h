/* SPDX-License-Identifier: Apache-2.0 */
/*
 * shapes.h -- the public shapes of stored rows: a memory, an event and a
 * task as the API hands them out (include/agentmem.h), and as JSON.
 *
 * One shape of a memory in every result: a recall, a listing, one memory
 * by id, an export all build it here from the store's row
 * (am__memory_from_row) and print it here (am__memory_json), so a field
 * added to am_memory shows up everywhere at once.  The same for events
 * and tasks.  The builders borrow the row's strings (the result lives in
 * the same arena as the rows); the JSON writers append to a buffer and
 * never fail by themselves (the buffer's oom flag says so).
 *
 * Below recall/ and api/: it knows the store's rows and the public
 * header, nothing of the handle.  A task's history is filtered by the
 * caller's hook (an agent's view, recall/access.h) since access rules sit
 * above this folder.
 */
#ifndef AM_DOMAIN_SHAPES_H
#define AM_DOMAIN_SHAPES_H

#include "agentmem.h"
#include "base/base.h"
#include "store/store.h"

/* A memory version from its row (strings borrowed from the row; key_id
 * NULL, score 0). */
void am__memory_from_row(am_memory *m, const am__item_row *r);
/* An item listed as it stood at a past time is reported with the status
 * it had then: "invalidated" (withdrawn later) becomes "active". */
void am__memory_status_then(am_memory *m);
/* An event record from its row (strings borrowed). */
void am__event_from_row(am_event_rec *e, const am__event_row *r);

/* JSON pieces: ,"name": then a value; comma 0 for the first member. */
void am__json_name(am__buf *b, const char *name, int comma);
void am__json_time(am__buf *b, const char *name, am_time t, int comma); /* ISO 8601 or null */
void am__json_kv(am__buf *b, const char *name, const char *v, int comma); /* string or null */
void am__json_raw(am__buf *b, const char *name, const char *v, int comma); /* JSON or null */
void am__json_fixed(am__buf *b, const char *name, double v, int decimals); /* always a comma */

/* The one JSON shape of a memory (its version_state against now), of an
 * event record, of an event row (score 0: an export's, a listing's), of
 * a task with its history. */
void am__memory_json(am__buf *b, const am_memory *m, am_time now);
void am__event_rec_json(am__buf *b, const am_event_rec *e);
void am__event_row_json(am__buf *b, const am__event_row *r);
void am__task_json(am__buf *b, const am_task *t);

/* A public task in the arena from its row, its reference and its history
 * (read from s); keep (may be NULL) drops the history rows the caller
 * may not see.  AM_OK, AM_NOMEM or the store's error. */
typedef void (*am__history_keep_fn)(const void *ctx, am__task_change_row *rows, size_t *n);
int am__task_build(am__store *s, const char *uid, am__arena *ar, const am__task_row *r,
                   am__history_keep_fn keep, const void *keep_ctx, am_task **out);

/* One memory item (agentmem.h "one memory"): the versions of the item id
 * names (its lineage id or any version's id), in the order recorded, as
 * public memories with their key_id, in ar (rows read as of at).
 * AM_NOTFOUND when id names none; AM_NOMEM; the store's error. */
int am__item_versions(am__store *s, const char *uid, const char *id, am_time at, am__arena *ar,
                      am_memory **out, size_t *n);
/* The version that holds at now: active and open, else an open question
 * (NULL: none). */
const am_memory *am__item_current(const am_memory *v, size_t n, am_time now);
/* {"memory":the current version or null,"versions":[...]} */
void am__item_json(am__buf *b, const am_memory *current, const am_memory *v, size_t n,
                   am_time now);

/* A task's workspace as JSON, {"task":..,"entries":[{"agent","doing","done",
 * "next","version","updated_at"}..]} (am_workspace_get, an export). */
void am__workspace_json(am__buf *b, const char *task_id, const am__workspace_row *rows, size_t n);

#endif
