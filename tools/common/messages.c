/* SPDX-License-Identifier: Apache-2.0 */
/*
 * messages.c -- a chat transcript as events (messages.h).
 */
#include "messages.h"

#include <stdio.h>
#include <string.h>

#include "fields.h"

typedef struct message_in {
    const char *role, *content, *name;
} message_in;

static const am_field message_fields[] = {
    {"role", AM_FIELD_STRING, offsetof(message_in, role), " (user, assistant, tool or system)"},
    {"content", AM_FIELD_STRING, offsetof(message_in, content), NULL},
    {"name", AM_FIELD_STRING, offsetof(message_in, name), NULL},
};

const char *am_message_source(const char *role)
{
    static const char *const map[][2] = {
        {"user", "user"}, {"assistant", "agent"}, {"tool", "tool"}, {"system", "system"}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcmp(role, map[i][0]) == 0) return map[i][1];
    return NULL;
}

int am_message_read(const json_t *obj, size_t i, am_event *ev, char *field, size_t fcap, char *why,
                    size_t wcap)
{
    message_in m = {0};
    char reason[512];
    const char *bad;
    if (am_fields_read(obj, message_fields, sizeof message_fields / sizeof *message_fields, &m,
                       reason, sizeof reason, &bad)) {
        if (bad) snprintf(field, fcap, "messages[%zu].%s", i, bad);
        else snprintf(field, fcap, "messages[%zu]", i);
        snprintf(why, wcap, "messages[%zu]: %s", i, reason);
        return 1;
    }
    const char *source = m.role ? am_message_source(m.role) : NULL;
    if (!m.role || !m.content) {
        snprintf(field, fcap, "messages[%zu].%s", i, m.role ? "content" : "role");
        snprintf(why, wcap, "%s: missing", field);
        return 1;
    }
    if (!source) {
        snprintf(field, fcap, "messages[%zu].role", i);
        snprintf(why, wcap, "%s: expected user, assistant, tool or system, got \"%.64s\"", field,
                 m.role);
        return 1;
    }
    if (m.name && (!*m.name || strlen(m.name) > AM_MESSAGE_NAME_MAX)) {
        snprintf(field, fcap, "messages[%zu].name", i);
        snprintf(why, wcap, "%s: expected 1 to %d bytes", field, AM_MESSAGE_NAME_MAX);
        return 1;
    }
    ev->source = source;
    ev->text = m.content;
    if (m.name && (strcmp(source, "agent") == 0 || strcmp(source, "tool") == 0))
        ev->agent_id = m.name;
    return 0;
}

void am_message_time(am_time at, int tz, size_t i, char *buf)
{
    am_time t = at + (am_time)i;
    char base[32];
    am_time_format(t - t % 1000, tz, base);
    /* "YYYY-MM-DDTHH:MM:SS" then the zone: the milliseconds between */
    snprintf(buf, AM_MESSAGE_TIME_LEN, "%.19s.%03d%s", base, (int)(t % 1000), base + 19);
}

int am_message_engine_error(const char *msg, char *field, size_t fcap, char *why, size_t wcap)
{
    size_t i;
    int used = 0;
    if (sscanf(msg, "add: events[%zu]: %n", &i, &used) != 1 || !used) return 1;
    const char *rest = msg + used;
    /* the library's names of an event's fields, as a message's */
    static const char *const names[][2] = {{"text", "content"}, {"agent", "name"},
                                           {"source", "role"}};
    const char *name = NULL;
    for (size_t k = 0; k < sizeof names / sizeof *names && !name; k++) {
        size_t n = strlen(names[k][0]);
        if (strncmp(rest, names[k][0], n) == 0 && rest[n] && strchr(": ", rest[n]))
            name = names[k][1];
    }
    if (strncmp(rest, "occurred_at", 11) == 0) snprintf(field, fcap, "at"); /* the call's */
    else if (strncmp(rest, "metadata", 8) == 0 && strchr(".: ", rest[8]))
        snprintf(field, fcap, "metadata"); /* the call's, shared by every message */
    else if (name) snprintf(field, fcap, "messages[%zu].%s", i, name);
    else snprintf(field, fcap, "messages[%zu]", i);
    snprintf(why, wcap, "%s: %s", field, rest);
    return 0;
}
