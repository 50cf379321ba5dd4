/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_working.c -- a session's working memory over HTTP (am_working_*;
 * docs/SERVER.md, docs/openapi.json):
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

static const char *query_param(srv_ctx *c, const char *name)
{
    return c->rq->query ? c->rq->query(c->rq->query_ctx, name) : NULL;
}

/* A page's cursor: the last key, hex (opaque to the caller); 0 or -1 */
static int cursor_read(const char *cur, char *key, size_t cap)
{
    size_t n = strlen(cur);
    if (n == 0 || n % 2 || n / 2 >= cap) return -1;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(cur + 2 * i, "%2x", &v) != 1 || !v) return -1;
        key[i] = (char)v;
    }
    key[n / 2] = 0;
    return 0;
}

/* {session, entries:[...]} -- with ?limit, a page (by key) and
 * "next_cursor" beside the entries (null on the last page) */
void am__srv_h_working_list(srv_ctx *c)
{
    if (am__srv_user(c, user_param(c))) return;
    const char *limit = query_param(c, "limit"), *cursor = query_param(c, "cursor");
    long n = 0;
    char after[512] = "";
    if (limit) {
        char *end;
        n = strtol(limit, &end, 10);
        if (end == limit || *end || n < 1 || n > AM_LIST_LIMIT_MAX) {
            am__srv_error(c->out, "invalid_request", "limit", "limit: expected 1 to %d, got \"%.32s\"",
                          AM_LIST_LIMIT_MAX, limit);
            return;
        }
    }
    if (cursor && cursor_read(cursor, after, sizeof after)) {
        am__srv_error(c->out, "invalid_request", "cursor", "cursor: not one this route gave");
        return;
    }
    am_working_entries *l;
    int rc = am_working_list(c->db, c->user, c->params[0], &l);
    if (rc) {
        am__srv_engine_error(c, rc);
        return;
    }
    if (!limit && !cursor) {
        am__srv_text(c->out, 200, "application/json", l->json, strlen(l->json));
        am_working_list_free(l);
        return;
    }
    json_t *doc = json_loads(l->json, 0, NULL);
    am_working_list_free(l);
    json_t *all = doc ? json_object_get(doc, "entries") : NULL;
    json_t *page = json_array();
    if (!all || !page) {
        json_decref(doc);
        json_decref(page);
        am__srv_error(c->out, "internal", NULL, "out of memory");
        return;
    }
    size_t i;
    json_t *e;
    const char *last = NULL;
    int more = 0;
    json_array_foreach(all, i, e) {
        const char *k = json_string_value(json_object_get(e, "key"));
        if (!k || (after[0] && strcmp(k, after) <= 0)) continue;
        if (n && json_array_size(page) == (size_t)n) {
            more = 1;
            break;
        }
        json_array_append(page, e);
        last = k;
    }
    json_t *next = json_null();
    if (more && last) {
        size_t kl = strlen(last);
        char *hex = malloc(2 * kl + 1);
        for (size_t j = 0; hex && j < kl; j++) snprintf(hex + 2 * j, 3, "%02x", (unsigned char)last[j]);
        if (hex) hex[2 * kl] = 0;
        next = hex ? json_string(hex) : json_null();
        free(hex);
    }
    json_object_set_new(doc, "entries", page);
    json_object_set_new(doc, "next_cursor", next);
    am__srv_json(c->out, 200, doc);
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
