/* SPDX-License-Identifier: Apache-2.0 */
/*
 * shapes.h -- the JSON shapes of results, one definition for every tool.
 * The CLI's `--json` lines, the server's response bodies and the MCP tools'
 * structured content are the same objects (a contract: the issue text and
 * SCENARIOS.md name their fields), so each is built here once, as a jansson
 * value, from the public result types.  Library JSON (a recall result, a
 * memory list, a task's artifacts) is parsed and embedded as a value, never
 * pasted as text.  Each function returns a new reference, or NULL when out
 * of memory (or when library JSON did not parse).
 */
#ifndef AM_SHAPES_H
#define AM_SHAPES_H
#include <jansson.h>

#include "agentmem.h"

/* `add --json`: event_id, user, task, memories_created/updated/invalidated,
 * task_changed, one_off, existing */
json_t *am_shape_add(const am_add_info *info);
/* `task --json`: task_id, stage, status, artifacts, pending, notes, history */
json_t *am_shape_task(const am_task *t);
/* `forget --json`: events, memories, tasks */
json_t *am_shape_forget(const am_forget_info *info);
/* `watch` lines, the server's SSE data and webhook bodies: one memory
 * event (seq, type, user, memory_id, key, task_id, event_id, change |
 * level | fields | what, asked_user, at, occurred_at; docs/EVENTS.md) --
 * the library's JSON of it, parsed */
json_t *am_shape_memory_event(const am_memory_event *ev);
/* JSON text the library returned (NULL: null; NULL when it is not JSON) */
json_t *am_shape_parsed(const char *text);
/* a string, or null */
json_t *am_shape_str(const char *s);

#endif
