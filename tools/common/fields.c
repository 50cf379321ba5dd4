/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fields.c -- a JSON object checked against a field list (see fields.h).
 */
#include "fields.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const am_field am_event_fields[] = {
    {"user", AM_FIELD_STRING, offsetof(am_event, user_id), NULL},
    {"channel", AM_FIELD_STRING, offsetof(am_event, channel), NULL},
    {"external_id", AM_FIELD_STRING, offsetof(am_event, external_id), NULL},
    {"agent", AM_FIELD_STRING, offsetof(am_event, agent_id), NULL},
    {"session", AM_FIELD_STRING, offsetof(am_event, session_id), NULL},
    {"task", AM_FIELD_STRING, offsetof(am_event, task_id), NULL},
    {"source", AM_FIELD_STRING, offsetof(am_event, source), NULL},
    {"type", AM_FIELD_STRING, offsetof(am_event, type), NULL},
    {"domain", AM_FIELD_STRING, offsetof(am_event, domain), NULL},
    {"intent", AM_FIELD_STRING, offsetof(am_event, intent), NULL},
    {"at", AM_FIELD_STRING, offsetof(am_event, occurred_at), " (ISO 8601 with a zone)"},
    {"text", AM_FIELD_STRING, offsetof(am_event, text), NULL},
    {"id", AM_FIELD_STRING, offsetof(am_event, event_id), NULL},
    {"metadata", AM_FIELD_OBJECT, offsetof(am_event, metadata_json),
     " (a flat object of strings, numbers and booleans)"},
};
const size_t am_n_event_fields = sizeof am_event_fields / sizeof *am_event_fields;

const char *am_json_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    default: return "a string";
    }
}

static const char *const expected[] = {"a string", "an integer", "a boolean", "an object"};

/* the objects of AM_FIELD_OBJECT fields replaced by their text (after the
 * walk over obj: no change while it is iterated) */
static int objects_as_text(json_t *obj, const am_field *fields, size_t n, void *out, char *why,
                           size_t cap, const char **bad)
{
    for (size_t k = 0; k < n; k++) {
        json_t *v = fields[k].type == AM_FIELD_OBJECT ? json_object_get(obj, fields[k].name) : NULL;
        if (!json_is_object(v)) continue;
        char *text = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
        json_t *s = text ? json_string(text) : NULL;
        free(text);
        if (!s || json_object_set_new(obj, fields[k].name, s)) {
            *bad = fields[k].name;
            snprintf(why, cap, "%s: out of memory", fields[k].name);
            return 1;
        }
        *(const char **)(void *)((char *)out + fields[k].off) =
            json_string_value(json_object_get(obj, fields[k].name));
    }
    return 0;
}

int am_fields_read(const json_t *obj, const am_field *fields, size_t n, void *out, char *why,
                   size_t cap, const char **bad)
{
    *bad = NULL;
    if (!json_is_object(obj)) {
        snprintf(why, cap, "expected a JSON object, got %s", obj ? am_json_type_name(obj) : "nothing");
        return 1;
    }
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        size_t k;
        for (k = 0; k < n; k++)
            if (strcmp(key, fields[k].name) == 0) break;
        *bad = key;
        if (k == n) {
            int w = snprintf(why, cap, "unknown field \"%.64s\" (the fields are", key);
            for (k = 0; k < n && w > 0 && (size_t)w < cap; k++)
                w += snprintf(why + w, cap - (size_t)w, "%s %s", k ? "," : "", fields[k].name);
            if (w > 0 && (size_t)w < cap) snprintf(why + w, cap - (size_t)w, ")");
            return 1;
        }
        if (json_is_null(v)) continue;
        const am_field *f = &fields[k];
        char *at = (char *)out + f->off;
        int ok = f->type == AM_FIELD_STRING ? json_is_string(v)
                 : f->type == AM_FIELD_INT  ? json_is_integer(v)
                 : f->type == AM_FIELD_OBJECT ? json_is_object(v)
                                            : json_is_boolean(v);
        if (!ok) {
            snprintf(why, cap, "%s: expected %s%s, got %s", key, expected[f->type],
                     f->hint ? f->hint : "", am_json_type_name(v));
            return 1;
        }
        if (f->type == AM_FIELD_STRING) {
            if (strlen(json_string_value(v)) != json_string_length(v)) {
                snprintf(why, cap, "%s: contains a NUL character", key);
                return 1;
            }
            *(const char **)(void *)at = json_string_value(v);
        } else if (f->type == AM_FIELD_OBJECT) {
            /* below, once the walk is over */
        } else if (f->type == AM_FIELD_INT) {
            *(long long *)(void *)at = (long long)json_integer_value(v);
        } else {
            *(int *)(void *)at = json_is_true(v);
        }
    }
    *bad = NULL;
    return objects_as_text((json_t *)obj, fields, n, out, why, cap, bad);
}
