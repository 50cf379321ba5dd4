/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_events.c -- a user's events, a page at a time, newest first
 * (am_events_list; docs/SERVER.md, docs/openapi.json):
 *   GET /v1/events?limit&cursor&q&session&from&to&ids
 *     -> {"user": "...", "events": [...], "next_cursor": "..." | null}
 * (the cursor also in the X-Next-Cursor header, as GET /v1/memories).
 * q: a plain search of the events' content; ids: only the events named
 * (comma-separated, at most IDS_MAX: a memory's sources).  The user is the token's
 * (?user= for an admin token); a token of an agent or a role sees what
 * that agent may read, as every read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_int.h"

#define IDS_MAX 100

static const char *param(srv_ctx *c, const char *name)
{
    return c->rq->query ? c->rq->query(c->rq->query_ctx, name) : NULL;
}

void am__srv_h_events_list(srv_ctx *c)
{
    am_event_list_opts o;
    memset(&o, 0, sizeof o);
    const char *limit = param(c, "limit");
    if (limit) {
        char *end;
        long n = strtol(limit, &end, 10);
        if (end == limit || *end || n < 1 || n > AM_LIST_LIMIT_MAX) {
            am__srv_error(c->out, "invalid_request", "limit", "limit: expected 1 to %d, got \"%.32s\"",
                          AM_LIST_LIMIT_MAX, limit);
            return;
        }
        o.limit = (size_t)n;
    }
    if (am__srv_user(c, param(c, "user"))) return;
    o.cursor = param(c, "cursor");
    o.query = param(c, "q");
    o.session_id = param(c, "session");
    o.from = param(c, "from");
    o.to = param(c, "to");
    /* ?ids=a,b,c: split in a copy */
    const char *ids = param(c, "ids");
    char *idbuf = ids ? strdup(ids) : NULL;
    const char *idv[IDS_MAX];
    if (ids && !idbuf) {
        am__srv_error(c->out, "internal", NULL, "out of memory");
        return;
    }
    char *save = NULL;
    for (char *t = idbuf ? strtok_r(idbuf, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        if (o.n_ids == IDS_MAX) {
            free(idbuf);
            am__srv_error(c->out, "invalid_request", "ids", "ids: at most %d", IDS_MAX);
            return;
        }
        idv[o.n_ids++] = t;
    }
    if (ids && !o.n_ids) {
        free(idbuf);
        am__srv_error(c->out, "invalid_request", "ids", "ids: expected event ids, comma-separated");
        return;
    }
    o.ids = idv;
    o.agent_id = c->tok.agent_id[0] ? c->tok.agent_id : NULL;
    o.role = c->tok.role[0] ? c->tok.role : NULL;
    am_event_page *p;
    int rc = am_events_list(c->db, c->user, &o, &p);
    free(idbuf);
    if (rc == AM_INVALID) {
        /* "events: cursor: ...", "events: from \"x\" ...": the parameter
         * named (the library's "query" is this route's "q") */
        static const char *const names[][2] = {
            {"query", "q"}, {"cursor", "cursor"}, {"from", "from"}, {"to", "to"},
            {"session", "session"}, {"limit", "limit"}, {"user", "user"}, {"ids", "ids"},
        };
        const char *msg = am_errmsg(c->db), *w = strncmp(msg, "events: ", 8) == 0 ? msg + 8 : "";
        size_t len = strcspn(w, ": ");
        for (size_t i = 0; i < sizeof names / sizeof *names; i++)
            if (strlen(names[i][0]) == len && strncmp(w, names[i][0], len) == 0) {
                am__srv_error(c->out, "invalid_request", names[i][1], "%s%s", names[i][1], w + len);
                return;
            }
    }
    if (rc) {
        am__srv_engine_error(c, rc);
        return;
    }
    json_t *events = json_loads(p->json, 0, NULL);
    json_t *next = p->next_cursor ? json_string(p->next_cursor) : json_null();
    if (p->next_cursor)
        snprintf(c->out->next_cursor, sizeof c->out->next_cursor, "%s", p->next_cursor);
    am_event_page_free(p);
    if (!events || !next) {
        json_decref(events);
        json_decref(next);
        am__srv_error(c->out, "internal", NULL, "out of memory");
        return;
    }
    am__srv_json(c->out, 200, json_pack("{s:s, s:o, s:o}", "user", c->user, "events", events, "next_cursor", next));
}
