/*
 * routes_working.c -- a session's working memory over HTTP (am_working_*,
 * issue 17; docs/SERVER.md, docs/openapi.json):
 *   GET    /v1/sessions/{session}/working        the live entries
 *   DELETE /v1/sessions/{session}/working        every key of the session
 *   GET    /v1/sessions/{session}/working/{key}  {session, key, value}
 *   PUT    /v1/sessions/{session}/working/{key}  {value, ttl_ms} -> {session, key, set}
 *   DELETE /v1/sessions/{session}/working/{key}  {session, key, cleared}
 * The user is the token's (?user= or the body's "user" for an admin
 * token), as on the other routes; the engine checks the ids, the value
 * and the TTL and names the field.
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

typedef struct working_in {
    const char *value, *user;
    long long ttl_ms;
} working_in;
static const am_field working_fields[] = {
    {"value", AM_FIELD_STRING, offsetof(working_in, value), NULL},
    {"ttl_ms", AM_FIELD_INT, offsetof(working_in, ttl_ms), NULL},
    {"user", AM_FIELD_STRING, offsetof(working_in, user), NULL},
};

void am__srv_h_working_list(srv_ctx *c)
{
    if (am__srv_user(c, user_param(c))) return;
    am_working_entries *l;
    int rc = am_working_list(c->db, c->user, c->params[0], &l);
    if (rc) {
        am__srv_engine_error(c, rc);
        return;
    }
    am__srv_text(c->out, 200, "application/json", l->json, strlen(l->json));
    am_working_list_free(l);
}

void am__srv_h_working_get(srv_ctx *c)
{
    if (am__srv_user(c, user_param(c))) return;
    char *v = NULL;
    int rc = am_working_get(c->db, c->user, c->params[0], c->params[1], &v);
    if (rc) am__srv_engine_error(c, rc);
    else am__srv_json(c->out, 200, json_pack("{s:s, s:s, s:s}", "session", c->params[0], "key",
                                             c->params[1], "value", v));
    am_free(v);
}

void am__srv_h_working_put(srv_ctx *c)
{
    working_in in = {0};
    char why[600];
    const char *bad;
    if (am_fields_read(c->body, working_fields, sizeof working_fields / sizeof *working_fields, &in,
                       why, sizeof why, &bad)) {
        am__srv_error(c->out, "invalid_request", bad, "%s", why);
        return;
    }
    if (!in.value || !json_object_get(c->body, "ttl_ms")) {
        const char *f = !in.value ? "value" : "ttl_ms";
        am__srv_error(c->out, "invalid_request", f, "%s: required", f);
        return;
    }
    const char *q = user_param(c);
    if (q && in.user && strcmp(q, in.user) != 0) {
        am__srv_error(c->out, "invalid_request", "user", "user: ?user= and the body's user differ");
        return;
    }
    if (am__srv_user(c, in.user ? in.user : q)) return;
    int rc = am_working_set(c->db, c->user, c->params[0], c->params[1], in.value, (am_time)in.ttl_ms);
    if (rc) am__srv_engine_error(c, rc);
    else am__srv_json(c->out, 200, json_pack("{s:s, s:s, s:b}", "session", c->params[0], "key",
                                             c->params[1], "set", 1));
}

/* DELETE of one key ({key} given) or of the whole session */
void am__srv_h_working_clear(srv_ctx *c)
{
    if (am__srv_user(c, user_param(c))) return;
    const char *key = c->params[1];
    int rc = am_working_clear(c->db, c->user, c->params[0], key);
    if (rc) am__srv_engine_error(c, rc);
    else am__srv_json(c->out, 200, json_pack("{s:s, s:s?, s:b}", "session", c->params[0], "key", key,
                                             "cleared", 1));
}
