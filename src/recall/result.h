/* SPDX-License-Identifier: Apache-2.0 */
/*
 * result.h -- a recall's public result (am_recall_result) from the
 * pipeline's state, its JSON, and its log record.
 *
 * api/read.c runs the pipeline inside a read snapshot, then:
 *   am__recall_result_route  the route's part (language, route and why,
 *                            the block and its two parts), always;
 *   am__recall_result_items  when memory was needed and the user exists:
 *                            the items shown, the ranked events, the
 *                            referenced task (read in the same snapshot);
 *   am__recall_json          after the snapshot: the result as JSON;
 *   am__recall_log           the "recall" log record (docs/SERVER.md
 *                            "Logs"): route, each stage's time and count,
 *                            the best scores, ids; the query and the
 *                            block only when the log asks for content.
 * Everything the result points to lives in the state's arena (or the
 * rows it borrowed from there).
 */
#ifndef AM_RECALL_RESULT_H
#define AM_RECALL_RESULT_H

#include "base/log.h"
#include "recall/access.h"
#include "recall/pipeline.h"

/* am__access_history (ctx: the am__access) as a task's history hook
 * (domain/shapes.h am__task_build). */
void am__access_history_keep(const void *ctx, am__task_change_row *rows, size_t *n);

void am__recall_result_route(const am__recall_state *st, am_recall_result *res);
/* s: the unfiltered store (the task's history is filtered through acc);
 * AM_OK, AM_NOMEM or the store's error. */
int am__recall_result_items(const am__recall_state *st, am__store *s, const am__access *acc,
                            am_recall_result *res);
/* NULL when out of memory. */
const char *am__recall_json(am__arena *ar, const am_recall_result *r, am_time now);
/* st: the pipeline's state, NULL when served from the shared cache;
 * cache_on: a shared cache is configured; t0: am__mono_us() at the start. */
void am__recall_log(const am__log *log, am_time now, const am_query *q,
                    const am_recall_result *res, const am__recall_state *st, const char *uid,
                    int cache_on, int64_t t0);

#endif
