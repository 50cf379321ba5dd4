/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_packs.c -- cold-start rule packs (docs/PACKS.md, docs/SERVER.md):
 * POST /v1/packs {"pack": {...}, "user"?} applies a pack to a user or, no
 * user, to every user it applies to; GET /v1/packs[?user=U] lists packs;
 * DELETE /v1/packs/{name}[?user=U] removes one.  Admin operations only (a
 * tenant's token is 403): a pack speaks for the operator, to many users.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_int.h"

static int admin_only(srv_ctx *c, const char *what)
{
    if (c->tok.admin) return 0;
    am__srv_error(c->out, "forbidden", NULL, "%s: rule packs are an admin operation (an admin token)",
                  what);
    return 1;
}

static const char *query_user(srv_ctx *c)
{
    return c->rq->query ? c->rq->query(c->rq->query_ctx, "user") : NULL;
}

/* The engine's JSON answer (owned) as the reply, or its error. */
static void answer(srv_ctx *c, int rc, char *json)
{
    if (rc == AM_INVALID || rc == AM_TOOBIG) {
        const char *msg = am_errmsg(c->db);
        am__srv_error(c->out, "invalid_request", strncmp(msg, "pack: ", 6) == 0 ? "pack" : NULL,
                      "%s", msg);
    } else if (rc) {
        am__srv_engine_error(c, rc);
    } else {
        json_t *v = json_loads(json, 0, NULL);
        if (v) am__srv_json(c->out, 200, v);
        else am__srv_error(c->out, "internal", NULL, "out of memory");
    }
    am_free(json);
}

void am__srv_h_packs_apply(srv_ctx *c)
{
    if (admin_only(c, "pack apply")) return;
    const char *key;
    json_t *v, *pack = NULL, *user = NULL;
    json_object_foreach(c->body, key, v) {
        if (strcmp(key, "pack") == 0) pack = v;
        else if (strcmp(key, "user") == 0) user = v;
        else {
            am__srv_error(c->out, "invalid_request", key,
                          "unknown field \"%s\" (the fields are pack, user)", key);
            return;
        }
    }
    if (!json_is_object(pack)) {
        am__srv_error(c->out, "invalid_request", "pack", "pack: expected the pack (an object)");
        return;
    }
    if (user && !json_is_string(user)) {
        am__srv_error(c->out, "invalid_request", "user",
                      "user: expected a user id (none: every user the pack applies to)");
        return;
    }
    char *text = json_dumps(pack, JSON_COMPACT);
    if (!text) {
        am__srv_error(c->out, "internal", NULL, "out of memory");
        return;
    }
    char *out = NULL;
    int rc = am_pack_apply(c->db, text, strlen(text), user ? json_string_value(user) : NULL, &out);
    free(text);
    answer(c, rc, out);
}

void am__srv_h_packs_list(srv_ctx *c)
{
    if (admin_only(c, "pack list")) return;
    char *out = NULL;
    int rc = am_pack_list(c->db, query_user(c), &out);
    answer(c, rc, out);
}

void am__srv_h_packs_remove(srv_ctx *c)
{
    if (admin_only(c, "pack remove")) return;
    char *out = NULL;
    int rc = am_pack_remove(c->db, c->params[0], query_user(c), &out);
    answer(c, rc, out);
}
