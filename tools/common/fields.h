/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fields.h -- checking a JSON object against a fixed set of fields, for
 * every tool that reads JSON from outside (the CLI's `add --batch` lines,
 * the server's request bodies, MCP's tool arguments).  One set of rules,
 * one set of messages: a key that is not a field is refused by name
 * (listing the fields), a value of another type is refused naming the
 * field and both types ("task: expected a string, got an integer"), a
 * string holding a NUL character is refused, null means absent.
 *
 * A field is read into the caller's struct at its offset: a string as a
 * `const char *` borrowed from the JSON value (valid while it lives), an
 * integer as a `long long` (set only when present), a boolean as an
 * `int`.  Presence of an integer or boolean is told by am_field_seen.
 */
#ifndef AM_FIELDS_H
#define AM_FIELDS_H
#include <jansson.h>
#include <stddef.h>

#include "agentmem.h"

#define AM_FIELD_STRING 0
#define AM_FIELD_INT 1
#define AM_FIELD_BOOL 2
/* A JSON object (metadata), read as its compact text: the value in obj is
 * replaced by a string holding that text, which the field borrows (so it
 * lives as long as obj; an object is read once). */
#define AM_FIELD_OBJECT 3
typedef struct am_field {
    const char *name;
    int type;         /* AM_FIELD_* */
    size_t off;       /* where in the caller's struct */
    const char *hint; /* said after the expected type, or NULL */
} am_field;

/* Read obj (a JSON object) into out.  Returns 0, or 1 with the reason in
 * why (cap bytes) and *bad set to the offending key (borrowed from obj;
 * NULL when obj is not an object). */
int am_fields_read(const json_t *obj, const am_field *fields, size_t n, void *out, char *why,
                   size_t cap, const char **bad);

/* "an integer", "a string", ...: what a JSON value is, for messages */
const char *am_json_type_name(const json_t *v);

/* The fields of an event (am_event), as `add --batch` lines and the
 * server's POST /v1/events name them: user, channel, external_id, agent,
 * session, task, source, type, domain, intent, at, text, id, metadata. */
extern const am_field am_event_fields[];
extern const size_t am_n_event_fields;

#endif
