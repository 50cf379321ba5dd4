/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_memory.c -- one memory by id over HTTP (am_memory_*; docs/SERVER.md,
 * docs/openapi.json):
 *   GET    /v1/memories/{id}   {"memory": <current or null>, "versions": [...]}
 *   POST   /v1/memories        {text, kind?, key?, scope?, metadata?} -> 201 {"memory": ...}
 *   PATCH  /v1/memories/{id}   {text?, metadata?} -> {"memory": <the new current version>}
 *   DELETE /v1/memories/{id}   {"deleted": <versions>}
 * {id} is the memory's lineage id or any of its versions' ids.  The user
 * is the token's (?user= or the body's "user" for an admin token); an id
 * of another user, or of an item the token's agent or role may not read,
 * is 404 as an unknown one.  The engine checks the fields and names them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "srv_int.h"

static const char *user_param(srv_ctx *c)
{
    return c->rq->query ? c->rq->query(c->rq->query_ctx, "user") : NULL;
}

static const char *token_agent(const srv_ctx *c) { return c->tok.agent_id[0] ? c->tok.agent_id : NULL; }
static const char *token_role(const srv_ctx *c) { return c->tok.role[0] ? c->tok.role : NULL; }

/* The body read into out (fields), the user named: 0, or 1 with the 400
 * or 403 made. */
static int body_user(srv_ctx *c, const am_field *fields, size_t n, void *out, const char **user)
{
    char why[600];
    const char *bad;
    if (am_fields_read(c->body, fields, n, out, why, sizeof why, &bad)) {
        am__srv_error(c->out, "invalid_request", bad, "%s", why);
        return 1;
    }
    const char *q = user_param(c);
    if (q && *user && strcmp(q, *user) != 0) {
        am__srv_error(c->out, "invalid_request", "user", "user: ?user= and the body's user differ");
        return 1;
    }
    return am__srv_user(c, *user ? *user : q);
}

static int require_text(srv_ctx *c, const char *text)
{
    if (text) return 0;
    am__srv_error(c->out, "invalid_request", "text", "text is required");
    return 1;
}

/* {"memory": <the item's current version or null>} (201 or 200) */
static void reply_current(srv_ctx *c, int status, const am_memory_item *m)
{
    json_t *all = json_loads(m->json, 0, NULL);
    json_t *cur = all ? json_object_get(all, "memory") : NULL;
    if (!cur) {
        json_decref(all);
        am__srv_error(c->out, "internal", NULL, "out of memory");
        return;
    }
    am__srv_json(c->out, status, json_pack("{s:O}", "memory", cur));
    json_decref(all);
}

void am__srv_h_memory_get(srv_ctx *c)
{
    if (am__srv_user(c, user_param(c))) return;
    am_memory_item *m;
    int rc = am_memory_get_as(c->db, c->user, c->params[0], token_agent(c), token_role(c), &m);
    if (rc) {
        am__srv_engine_error(c, rc);
        return;
    }
    am__srv_text(c->out, 200, "application/json", m->json, strlen(m->json));
    am_memory_item_free(m);
}

typedef struct memory_in {
    const char *text, *kind, *key, *scope, *user, *metadata, *expires_at;
} memory_in;
static const am_field memory_fields[] = {
    {"text", AM_FIELD_STRING, offsetof(memory_in, text), NULL},
    {"kind", AM_FIELD_STRING, offsetof(memory_in, kind), NULL},
    {"key", AM_FIELD_STRING, offsetof(memory_in, key), NULL},
    {"scope", AM_FIELD_STRING, offsetof(memory_in, scope), NULL},
    {"user", AM_FIELD_STRING, offsetof(memory_in, user), NULL},
    {"metadata", AM_FIELD_OBJECT, offsetof(memory_in, metadata), NULL},
    {"expires_at", AM_FIELD_STRING, offsetof(memory_in, expires_at), NULL},
};

void am__srv_h_memory_add(srv_ctx *c)
{
    memory_in in = {0};
    if (body_user(c, memory_fields, sizeof memory_fields / sizeof *memory_fields, &in, &in.user) ||
        require_text(c, in.text))
        return;
    am_memory_input mi = {0};
    mi.user_id = c->user;
    mi.text = in.text;
    mi.kind = in.kind;
    mi.key = in.key;
    mi.scope = in.scope;
    mi.agent_id = token_agent(c);
    mi.role = token_role(c);
    mi.metadata_json = in.metadata;
    mi.expires_at = in.expires_at;
    am_memory_item *m;
    int rc = am_memory_add(c->db, &mi, &m);
    if (rc) {
        am__srv_engine_error(c, rc);
        return;
    }
    reply_current(c, 201, m);
    am_memory_item_free(m);
}

typedef struct patch_in {
    const char *text, *user, *metadata;
} patch_in;
static const am_field patch_fields[] = {
    {"text", AM_FIELD_STRING, offsetof(patch_in, text), NULL},
    {"user", AM_FIELD_STRING, offsetof(patch_in, user), NULL},
    {"metadata", AM_FIELD_OBJECT, offsetof(patch_in, metadata), NULL},
};

void am__srv_h_memory_update(srv_ctx *c)
{
    patch_in in = {0};
    if (body_user(c, patch_fields, sizeof patch_fields / sizeof *patch_fields, &in, &in.user) ||
        (!in.metadata && require_text(c, in.text)))
        return;
    am_memory_item *m;
    int rc = am_memory_set(c->db, c->user, c->params[0], in.text, in.metadata, token_agent(c),
                           token_role(c), &m);
    if (rc) {
        am__srv_engine_error(c, rc);
        return;
    }
    reply_current(c, 200, m);
    am_memory_item_free(m);
}

void am__srv_h_memory_delete(srv_ctx *c)
{
    if (am__srv_user(c, user_param(c))) return;
    long n = 0;
    int rc = am_memory_delete_as(c->db, c->user, c->params[0], token_agent(c), token_role(c), &n);
    if (rc) am__srv_engine_error(c, rc);
    else am__srv_json(c->out, 200, json_pack("{s:I}", "deleted", (json_int_t)n));
}
