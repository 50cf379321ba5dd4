/* SPDX-License-Identifier: Apache-2.0 */
/*
 * messages.h -- a chat transcript as events, for every tool that takes
 * one (the server's POST /v1/events {"messages": [...]}, the CLI's
 * `add --messages FILE`): [{"role": "user|assistant|tool|system",
 * "content": "...", "name"?: "..."}].  One set of rules and messages:
 * each message is an event whose source is its role's (assistant:
 * agent), whose text is its content and, for an assistant or a tool, whose
 * agent is its name; a user's or a system's name is checked and not kept.
 * Errors name the message and the field: "messages[3].role: expected
 * user, assistant, tool or system, got \"bot\"".
 */
#ifndef AM_MESSAGES_H
#define AM_MESSAGES_H
#include <jansson.h>
#include <stddef.h>

#include "agentmem.h"

#define AM_MESSAGE_NAME_MAX 128 /* bytes of a name */
#define AM_MESSAGE_TIME_LEN 48  /* am_message_time's buffer */

/* The source of a role ("assistant" -> "agent"), or NULL for an unknown
 * one. */
const char *am_message_source(const char *role);

/* messages[i] (obj) into ev's source, text and agent_id (strings borrowed
 * from obj; the other fields untouched).  0, or 1 with the field named in
 * field (fcap bytes, "messages[3].content") and the message in why (wcap
 * bytes, starting with the field). */
int am_message_read(const json_t *obj, size_t i, am_event *ev, char *field, size_t fcap, char *why,
                     size_t wcap);

/* The time of message i of a transcript said at `at` (zone tz minutes): i
 * milliseconds after it, so the messages keep their order on every
 * reader.  buf: AM_MESSAGE_TIME_LEN bytes, ISO 8601 with the zone. */
void am_message_time(am_time at, int tz, size_t i, char *buf);

/* An engine message about a transcript's events ("add: events[3]: text:
 * ...") as the transcript's: field "messages[3].content" (fcap bytes) and
 * why "messages[3].content: ..." (wcap bytes).  0, or 1 when msg names no
 * event (the caller reports it as it is). */
int am_message_engine_error(const char *msg, char *field, size_t fcap, char *why, size_t wcap);

#endif
