/* SPDX-License-Identifier: Apache-2.0 */
/*
 * messages_cmd.c -- `agentmem add --messages FILE.json` ('-': stdin): a
 * chat transcript, a JSON array of messages [{"role", "content", "name"?}]
 * or an object {"messages": [...], "user"?, "session"?, "task"?, "at"?, "metadata"?}
 * (the body of POST /v1/events), added as events in one transaction:
 * all or nothing (tools/common/messages.h: roles, names, the times).
 * --user, --session, --task, --at and --agent give what the file does not
 * (a value in both that differs is refused).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fields.h"
#include "messages.h"

typedef struct transcript {
    const char *user, *session, *task, *at, *metadata;
} transcript;

static const am_field transcript_fields[] = {
    {"user", AM_FIELD_STRING, offsetof(transcript, user), NULL},
    {"session", AM_FIELD_STRING, offsetof(transcript, session), NULL},
    {"task", AM_FIELD_STRING, offsetof(transcript, task), NULL},
    {"at", AM_FIELD_STRING, offsetof(transcript, at), " (ISO 8601 with a zone)"},
    {"metadata", AM_FIELD_OBJECT, offsetof(transcript, metadata), NULL},
};

static json_t *load(const char *path)
{
    json_error_t je;
    json_t *j = strcmp(path, "-") == 0 ? json_loadf(stdin, JSON_REJECT_DUPLICATES, &je)
                                       : json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!j) fprintf(stderr, "agentmem add: %s: line %d: %s\n", path, je.line, je.text);
    return j;
}

/* flag or the file's value (0), or 1 when both are given and differ */
static int pick(const char *flag, const char *file, const char *name, const char **out)
{
    if (flag && file && strcmp(flag, file) != 0) {
        fprintf(stderr, "agentmem add: --%s and the file's \"%s\" differ\n", name, name);
        return 1;
    }
    *out = flag ? flag : file;
    return 0;
}

int am_cli_add_messages(am_db *db, const char *path, const am_event *base, int json)
{
    json_t *root = load(path);
    if (!root) return 1;
    int rc = 1;
    transcript t = {0};
    json_t *list = root, *rest = NULL;
    am_event *evs = NULL;
    am_add_info *infos = NULL;
    char(*times)[AM_MESSAGE_TIME_LEN] = NULL;
    char why[700], field[64];
    const char *bad;
    if (json_is_object(root)) {
        list = json_object_get(root, "messages");
        if (!list) {
            fprintf(stderr, "agentmem add: %s: messages: missing\n", path);
            goto out;
        }
        rest = json_copy(root);
        if (!rest || json_object_del(rest, "messages")) goto oom;
        if (am_fields_read(rest, transcript_fields,
                           sizeof transcript_fields / sizeof *transcript_fields, &t, why,
                           sizeof why, &bad)) {
            fprintf(stderr, "agentmem add: %s: %s\n", path, why);
            goto out;
        }
    }
    size_t n = json_array_size(list);
    if (!json_is_array(list) || n == 0) {
        fprintf(stderr, "agentmem add: %s: messages: expected a non-empty array, got %s\n", path,
                json_is_array(list) ? "none" : am_json_type_name(list));
        goto out;
    }
    am_event head = *base;
    if (pick(base->user_id, t.user, "user", &head.user_id) ||
        pick(base->session_id, t.session, "session", &head.session_id) ||
        pick(base->task_id, t.task, "task", &head.task_id) ||
        pick(base->occurred_at, t.at, "at", &head.occurred_at) ||
        pick(base->metadata_json, t.metadata, "metadata", &head.metadata_json))
        goto out;
    am_time at = 0;
    int tz = 0;
    if (head.occurred_at && am_time_parse(head.occurred_at, &at, &tz)) {
        fprintf(stderr, "agentmem add: at: expected ISO 8601 with a zone, got \"%s\"\n",
                head.occurred_at);
        goto out;
    }
    evs = calloc(n, sizeof *evs);
    infos = calloc(n, sizeof *infos);
    times = calloc(n, sizeof *times);
    if (!evs || !infos || !times) goto oom;
    for (size_t i = 0; i < n; i++) {
        evs[i] = head;
        evs[i].source = NULL;
        evs[i].agent_id = NULL;
        if (am_message_read(json_array_get(list, i), i, &evs[i], field, sizeof field, why,
                            sizeof why)) {
            fprintf(stderr, "agentmem add: %s: %s\n", path, why);
            goto out;
        }
        if (!evs[i].agent_id) evs[i].agent_id = base->agent_id;
        if (head.occurred_at) {
            am_message_time(at, tz, i, times[i]);
            evs[i].occurred_at = times[i];
        }
    }
    int erc = am_add_events(db, evs, n, infos);
    if (erc) {
        char ewhy[1200];
        if (am_message_engine_error(am_errmsg(db), field, sizeof field, ewhy, sizeof ewhy))
            fprintf(stderr, "agentmem add: %s (%s)\n", am_errmsg(db), am_errstr(erc));
        else
            fprintf(stderr, "agentmem add: %s: %s (%s)\n", path, ewhy, am_errstr(erc));
        goto out;
    }
    if (json) {
        json_t *results = json_array();
        for (size_t i = 0; results && i < n; i++)
            if (json_array_append_new(results, am_shape_add(&infos[i]))) {
                json_decref(results);
                results = NULL;
            }
        rc = am_cli_json_print(results ? json_pack("{s:o}", "results", results) : NULL);
        goto out;
    }
    rc = 0;
    for (size_t i = 0; i < n && !rc; i++) rc = am_cli_print_add(&infos[i], 0);
    goto out;
oom:
    fprintf(stderr, "agentmem add: out of memory\n");
out:
    json_decref(rest);
    json_decref(root);
    free(evs);
    free(infos);
    free(times);
    return rc;
}
