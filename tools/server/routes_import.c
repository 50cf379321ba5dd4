/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_import.c -- POST /v1/import (docs/IMPORT.md, docs/SERVER.md): an
 * export, or mem0's memories, loaded into the store -- an admin operation
 * (a tenant's token is 403: an import writes a user's whole history, ids
 * and audit trail included, which only an operator may vouch for).
 * Body: {"document": <the export, or mem0's list / {"results": [...]}>,
 * "user"?: U (the export's own by default; required with mem0),
 * "merge"?: bool, "from"?: "mem0"}.  One transaction: on a refusal
 * nothing is written and the error names the entry and field.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "plural.h"
#include "srv_int.h"

typedef struct import_in {
    const char *user, *from;
    int merge;
} import_in;
static const am_field import_fields[] = {
    {"user", AM_FIELD_STRING, offsetof(import_in, user), NULL},
    {"from", AM_FIELD_STRING, offsetof(import_in, from), " (mem0)"},
    {"merge", AM_FIELD_BOOL, offsetof(import_in, merge), NULL},
};

void am__srv_h_import(srv_ctx *c)
{
    if (!c->tok.admin) {
        am__srv_error(c->out, "forbidden", NULL,
                      "import: loading a user's history is an admin operation (an admin token)");
        return;
    }
    json_t *doc = json_object_get(c->body, "document");
    if (!doc || !(json_is_object(doc) || json_is_array(doc))) {
        am__srv_error(c->out, "invalid_request", "document",
                      "document: expected the export (an object) or mem0's memories (an array"
                      " or an object)");
        return;
    }
    /* the other fields, checked as any body's (a shallow copy: the
     * strings read stay c->body's) */
    json_t *rest = json_copy(c->body);
    if (!rest || json_object_del(rest, "document")) {
        json_decref(rest);
        am__srv_error(c->out, "internal", NULL, "out of memory");
        return;
    }
    import_in in = {0};
    char why[600];
    const char *bad;
    int refused = am_fields_read(rest, import_fields, sizeof import_fields / sizeof *import_fields,
                                 &in, why, sizeof why, &bad);
    if (refused) am__srv_error(c->out, "invalid_request", bad, "%s", why); /* bad is rest's */
    json_decref(rest);
    if (refused) return;
    int mem0 = in.from != NULL;
    if (mem0 && strcmp(in.from, "mem0") != 0) {
        am__srv_error(c->out, "invalid_request", "from", "from: expected mem0");
        return;
    }
    if (mem0 && !in.user) {
        am__srv_error(c->out, "invalid_request", "user", "user: required with from mem0");
        return;
    }
    char *text = json_dumps(doc, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!text) {
        am__srv_error(c->out, "internal", NULL, "out of memory");
        return;
    }
    am_import_info info;
    int rc = mem0 ? am_import_mem0(c->db, text, strlen(text), in.user, &info)
                  : am_import(c->db, text, strlen(text), in.user, in.merge ? AM_IMPORT_MERGE : 0,
                              &info);
    free(text);
    if (rc == AM_INVALID || rc == AM_TOOBIG) {
        /* "import: events[3].occurred_at: ..." names events[3].occurred_at */
        const char *msg = am_errmsg(c->db), *p = strncmp(msg, "import: ", 8) == 0 ? msg + 8 : msg;
        size_t n = strcspn(p, ": ");
        char field[128];
        snprintf(field, sizeof field, "%.*s", (int)(n < sizeof field ? n : sizeof field - 1), p);
        am__srv_error(c->out, "invalid_request", p[n] == ':' ? field : "document", "%s", msg);
        return;
    }
    if (rc) {
        am__srv_engine_error(c, rc);
        return;
    }
    am__srv_log(c->srv, "import: user %s: %ld %s, %ld %s, %ld %s", info.user_id, info.events,
                am_plural(info.events, "event", "events"), info.memories,
                am_plural(info.memories, "memory", "memories"), info.tasks,
                am_plural(info.tasks, "task", "tasks"));
    am__srv_json(c->out, 200,
                 json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "user", info.user_id, "events",
                           (json_int_t)info.events, "memories", (json_int_t)info.memories,
                           "tasks", (json_int_t)info.tasks, "events_skipped",
                           (json_int_t)info.events_skipped, "memories_skipped",
                           (json_int_t)info.memories_skipped, "tasks_skipped",
                           (json_int_t)info.tasks_skipped));
}
