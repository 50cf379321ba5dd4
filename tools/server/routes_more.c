/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_more.c -- the handlers that mount other parts on the server
 * (docs/SERVER.md): the task workspace (am_workspace_*), the
 * OpenAI-compatible embeddings (am_embed) and MCP over Streamable HTTP
 * (tools/mcp: a handle made per request for the token's user and agent,
 * stateless as am_mcp_handle_http is).  Same rules as routes.c: every
 * field checked by name (tools/common/fields.h), the user the token's
 * (am__srv_user), errors in the API's shape.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "mcp.h"
#include "srv_int.h"

static const char *query_param(srv_ctx *c, const char *name)
{
    return c->rq->query ? c->rq->query(c->rq->query_ctx, name) : NULL;
}

/* ------------------------------------------------------------ workspace */

typedef struct workspace_in {
    const char *doing, *done, *next, *user;
} workspace_in;
static const am_field workspace_fields[] = {
    {"doing", AM_FIELD_STRING, offsetof(workspace_in, doing), NULL},
    {"done", AM_FIELD_STRING, offsetof(workspace_in, done), NULL},
    {"next", AM_FIELD_STRING, offsetof(workspace_in, next), NULL},
    {"user", AM_FIELD_STRING, offsetof(workspace_in, user), NULL},
};

/* The task {task_id} as the token may see it (am_access_check): 0, or 1
 * with the reply made -- a task made of what the token may not read is
 * 404, as an unknown one. */
static int task_readable(srv_ctx *c)
{
    const char *agent = c->tok.agent_id[0] ? c->tok.agent_id : NULL;
    const char *role = c->tok.role[0] ? c->tok.role : NULL;
    if (!agent && !role) return 0;
    am_access *a;
    int rc = am_access_open(c->db, c->user, agent, role, &a);
    if (!rc) rc = am_access_check(a, AM_ACCESS_TASK, c->params[0]);
    am_access_free(a);
    if (rc == AM_NOTFOUND)
        am__srv_error(c->out, "not_found", NULL, "workspace: user %s has no task %s", c->user,
                      c->params[0]);
    else if (rc) am__srv_engine_error(c, rc);
    return rc != AM_OK;
}

/* GET: the workspace of {task_id} as am_workspace's JSON */
void am__srv_h_workspace_get(srv_ctx *c)
{
    if (am__srv_user(c, query_param(c, "user")) || task_readable(c)) return;
    am_workspace *w;
    int rc = am_workspace_get(c->db, c->user, c->params[0], &w);
    if (rc) {
        am__srv_engine_error(c, rc);
        return;
    }
    am__srv_text(c->out, 200, "application/json", w->json, strlen(w->json));
    am_workspace_free(w);
}

/* {doing, done, next} as the token's agent (each replaces the stored one,
 * absent or null keeps it); the reply: {task, agent, version} (the CLI's
 * `workspace put --json`) */
void am__srv_h_workspace_put(srv_ctx *c)
{
    workspace_in in = {0};
    char why[600];
    const char *bad;
    if (am_fields_read(c->body, workspace_fields,
                       sizeof workspace_fields / sizeof *workspace_fields, &in, why, sizeof why,
                       &bad)) {
        am__srv_error(c->out, "invalid_request", bad, "%s", why);
        return;
    }
    const char *q = query_param(c, "user");
    if (q && in.user && strcmp(q, in.user) != 0) {
        am__srv_error(c->out, "invalid_request", "user", "user: ?user= and the body's user differ");
        return;
    }
    if (am__srv_user(c, in.user ? in.user : q) || task_readable(c)) return;
    if (!c->tok.agent_id[0]) {
        am__srv_error(c->out, "invalid_request", "agent",
                      "agent: a workspace entry is an agent's: this token has no agent"
                      " (agentmem token create --agent A)");
        return;
    }
    long version = 0;
    int rc = am_workspace_put(c->db, c->user, c->params[0], c->tok.agent_id, in.doing, in.done,
                              in.next, &version);
    if (rc) am__srv_engine_error(c, rc);
    else am__srv_json(c->out, 200, json_pack("{s:s, s:s, s:I}", "task", c->params[0], "agent",
                                             c->tok.agent_id, "version", (json_int_t)version));
}

/* ------------------------------------------------------------ embeddings */

/* input: a string or an array of 1..AM_EMBED_MAX strings -> texts (n);
 * 0, or 1 with the 400 made */
static int embed_inputs(srv_ctx *c, const json_t *input, const char **texts, size_t *n)
{
    if (json_is_string(input)) {
        texts[0] = json_string_value(input);
        *n = 1;
    } else if (json_is_array(input) && json_array_size(input) >= 1 &&
               json_array_size(input) <= AM_EMBED_MAX) {
        *n = json_array_size(input);
        for (size_t i = 0; i < *n; i++) {
            const json_t *v = json_array_get(input, i);
            if (!json_is_string(v)) {
                am__srv_error(c->out, "invalid_request", "input",
                              "input[%zu]: expected a string, got %s", i, am_json_type_name(v));
                return 1;
            }
            texts[i] = json_string_value(v);
        }
    } else {
        am__srv_error(c->out, "invalid_request", "input",
                      "input: expected a string or an array of 1 to %d strings, got %s",
                      AM_EMBED_MAX,
                      !input ? "nothing" : json_is_array(input) ? "an array of another size"
                                                                : am_json_type_name(input));
        return 1;
    }
    for (size_t i = 0; i < *n; i++) {
        const json_t *v = json_is_string(input) ? input : json_array_get(input, i);
        if (strlen(json_string_value(v)) != json_string_length(v)) {
            am__srv_error(c->out, "invalid_request", "input", "input[%zu]: holds a NUL character",
                          i);
            return 1;
        }
    }
    return 0;
}

void am__srv_h_embeddings(srv_ctx *c)
{
    const char *key;
    json_t *v;
    json_object_foreach(c->body, key, v) {
        int known = strcmp(key, "input") == 0 || strcmp(key, "model") == 0 ||
                    strcmp(key, "encoding_format") == 0;
        if (!known) {
            am__srv_error(c->out, "invalid_request", key,
                          "unknown field \"%.64s\" (the fields are input, model, encoding_format)",
                          key);
            return;
        }
        if (strcmp(key, "input") != 0 && !json_is_string(v) && !json_is_null(v)) {
            am__srv_error(c->out, "invalid_request", key, "%s: expected a string, got %s", key,
                          am_json_type_name(v));
            return;
        }
    }
    const char *fmt = json_string_value(json_object_get(c->body, "encoding_format"));
    if (fmt && strcmp(fmt, "float") != 0) {
        am__srv_error(c->out, "invalid_request", "encoding_format",
                      "encoding_format: only \"float\" is served");
        return;
    }
    const char *texts[AM_EMBED_MAX];
    size_t n;
    if (embed_inputs(c, json_object_get(c->body, "input"), texts, &n)) return;
    float *vec = NULL;
    int dim = 0;
    const char *model = NULL;
    int rc = am_embed(c->db, texts, n, &vec, &dim, &model);
    if (rc == AM_MISUSE) {
        /* the one misuse left after the checks above: no embedder */
        am__srv_error(c->out, "invalid_request", NULL,
                      "no embedder is configured for this server (start it with"
                      " AGENTMEM_EMBEDDER set, docs/EMBEDDINGS.md): %s", am_errmsg(c->db));
        return;
    }
    if (rc) {
        am__srv_engine_error(c, rc);
        return;
    }
    json_t *data = json_array(), *out = NULL;
    for (size_t i = 0; data && i < n; i++) {
        json_t *e = json_array();
        for (int d = 0; e && d < dim; d++)
            if (json_array_append_new(e, json_real(vec[i * (size_t)dim + (size_t)d]))) {
                json_decref(e);
                e = NULL;
            }
        if (!e || json_array_append_new(data, json_pack("{s:s, s:I, s:o}", "object", "embedding",
                                                        "index", (json_int_t)i, "embedding", e))) {
            json_decref(data);
            data = NULL;
        }
    }
    am_free(vec);
    if (data)
        out = json_pack("{s:s, s:o, s:s, s:{s:i, s:i}}", "object", "list", "data", data, "model",
                        model ? model : "", "usage", "prompt_tokens", 0, "total_tokens", 0);
    if (!out) am__srv_error(c->out, "internal", NULL, "out of memory");
    else am__srv_json(c->out, 200, out);
}

/* ------------------------------------------------------------ MCP */

/* POST /mcp: the body is one JSON-RPC message for am_mcp_handle_http, on a
 * handle of the token's user and agent (an admin token names the user with
 * ?user=).  The Origin header is checked first (DNS rebinding): a browser
 * page of another origin gets 403 -- loopback origins pass, or with
 * `serve --mcp-origin ORIGIN` exactly the origins listed. */
void am__srv_h_mcp(srv_ctx *c)
{
    const srv_request *rq = c->rq;
    const char *origin = rq->header ? rq->header(rq->query_ctx, "Origin") : NULL;
    if (!am_mcp_origin_allowed(origin, c->srv->opts.mcp_origins, c->srv->opts.n_mcp_origins)) {
        char *e = am_mcp_http_error(-32600, "Forbidden: Origin not allowed");
        if (e) am__srv_text(c->out, 403, "application/json", e, strlen(e));
        else am__srv_error(c->out, "forbidden", NULL, "Origin not allowed");
        am_mcp_reply_free(e);
        return;
    }
    if (am__srv_user(c, query_param(c, "user"))) return;
    /* the token's agent and role: every tool reads and writes as they may */
    am_mcp *m = am_mcp_new_as(c->db, c->user, c->tok.agent_id[0] ? c->tok.agent_id : NULL,
                              c->tok.role[0] ? c->tok.role : NULL);
    if (!m) {
        am__srv_error(c->out, "internal", NULL, "out of memory");
        return;
    }
    am_mcp_http_headers h = {0};
    if (rq->header) {
        h.protocol_version = rq->header(rq->query_ctx, "MCP-Protocol-Version");
        h.method = rq->header(rq->query_ctx, "Mcp-Method");
        h.name = rq->header(rq->query_ctx, "Mcp-Name");
    }
    char *reply = NULL;
    int status = 500;
    int rc = am_mcp_handle_http(m, rq->body ? rq->body : "", rq->body_len, &h, &reply, &status);
    am_mcp_free(m);
    if (rc) am__srv_error(c->out, "internal", NULL, "mcp: %s", am_errstr(rc));
    else am__srv_text(c->out, status, "application/json", reply ? reply : "",
                      reply ? strlen(reply) : 0);
    am_mcp_reply_free(reply);
}

/* ------------------------------------------------------------ stream */

/* A seq: decimal digits, 0 to 2^62; 0 and *out, or 1 */
static int parse_seq(const char *v, long long *out)
{
    if (!v || !*v || strspn(v, "0123456789") != strlen(v) || strlen(v) > 18) return 1;
    *out = strtoll(v, NULL, 10);
    return 0;
}

/* GET /v1/stream: the token user's memory events (an admin token: every
 * user's, or ?user='s), after Last-Event-ID or ?after= (else from now);
 * sse.c streams them */
void am__srv_h_stream(srv_ctx *c)
{
    const char *asked = query_param(c, "user");
    if (c->tok.admin && !asked) c->user[0] = '\0'; /* every user's */
    else if (am__srv_user(c, asked)) return;
    const char *last = c->rq->header ? c->rq->header(c->rq->query_ctx, "Last-Event-ID") : NULL;
    const char *after = query_param(c, "after");
    long long seq = -1;
    if (last && parse_seq(last, &seq)) {
        am__srv_error(c->out, "invalid_request", "Last-Event-ID",
                      "Last-Event-ID: expected the seq of an event (digits)");
        return;
    }
    if (!last && after && parse_seq(after, &seq)) {
        am__srv_error(c->out, "invalid_request", "after", "after: expected a seq (digits)");
        return;
    }
    c->out->stream = SRV_STREAM_EVENTS;
    c->out->status = 200;
    c->out->content_type = "text/event-stream";
    c->out->stream_after = seq;
    snprintf(c->out->stream_user, sizeof c->out->stream_user, "%s", c->user);
    c->out->stream_tok = c->tok; /* its id, user, agent, role: never the secret */
}
