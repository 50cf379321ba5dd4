/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes.c -- the handlers of the /v1 routes (docs/SERVER.md; shapes in
 * docs/openapi.json).  Each checks its body against its field list
 * (tools/common/fields.h: unknown keys and wrong types refused by name),
 * names the user through am__srv_user (the token's; another only for an
 * admin token) and answers with the CLI's --json shape
 * (tools/common/shapes.h) or the library's JSON as it is.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fields.h"
#include "messages.h"
#include "shapes.h"
#include "srv_int.h"
#include "writer.h"

#define MAX_EVENTS 1000
#define NOT_GIVEN LLONG_MIN

/* Read c->body (or obj) into out per fields; 0, or 1 with the 400 made.
 * prefix names where obj is ("events[3]."), or "". */
static int read_fields(srv_ctx *c, const json_t *obj, const am_field *fields, size_t n, void *out,
                       const char *prefix)
{
    char why[600], field[200];
    const char *bad;
    if (!am_fields_read(obj, fields, n, out, why, sizeof why, &bad)) return 0;
    snprintf(field, sizeof field, "%s%s", prefix, bad ? bad : "");
    /* "events[3]." names the field; "events[3]: " starts the message */
    am__srv_error(c->out, "invalid_request", field[0] ? field : NULL, "%.*s%s%s",
                  prefix[0] ? (int)strlen(prefix) - 1 : 0, prefix, prefix[0] ? ": " : "", why);
    return 1;
}

static int require(srv_ctx *c, const char *v, const char *field)
{
    if (v && *v) return 0;
    am__srv_error(c->out, "invalid_request", field, "%s is required", field);
    return 1;
}

/* ?name= as a string (NULL: absent) */
static const char *query(srv_ctx *c, const char *name)
{
    return c->rq->query ? c->rq->query(c->rq->query_ctx, name) : NULL;
}

/* The token's agent and role (NULL when it has none): what a read sees,
 * and what a write may touch, is what that agent with that role may
 * (am_access_open: one decision for every route, MCP and the stream) */
static const char *token_agent(const srv_ctx *c) { return c->tok.agent_id[0] ? c->tok.agent_id : NULL; }
static const char *token_role(const srv_ctx *c) { return c->tok.role[0] ? c->tok.role : NULL; }
static int token_scoped(const srv_ctx *c) { return token_agent(c) || token_role(c); }

/* A scoped token (an agent or a role) acts as its own agent only: naming
 * another in field (prefix + "agent") is 403.  0, or 1 with the reply made. */
static int own_agent(srv_ctx *c, const char *agent, const char *prefix, const char *verb)
{
    if (!agent || !token_scoped(c) || (token_agent(c) && strcmp(agent, token_agent(c)) == 0))
        return 0;
    char field[64];
    snprintf(field, sizeof field, "%sagent", prefix);
    if (token_agent(c))
        am__srv_error(c->out, "forbidden", field,
                      "%s: this token acts as agent %s; it may not %s as another", field,
                      token_agent(c), verb);
    else
        am__srv_error(c->out, "forbidden", field,
                      "%s: this token has a role and no agent; it may not %s as an agent", field,
                      verb);
    return 1;
}

/* The user of a request: ?user= or the body's "user" (the same when both). */
static int request_user(srv_ctx *c, const char *body_user)
{
    const char *q = query(c, "user");
    if (q && body_user && strcmp(q, body_user) != 0) {
        am__srv_error(c->out, "invalid_request", "user", "user: ?user= and the body's user differ");
        return 1;
    }
    return am__srv_user(c, body_user ? body_user : q);
}

/* ------------------------------------------------------------ events */

/* One event object: checked, its user checked against the token, the
 * token's agent as the default agent. */
static int read_event(srv_ctx *c, const json_t *obj, am_event *ev, const char *prefix)
{
    memset(ev, 0, sizeof *ev);
    if (read_fields(c, obj, am_event_fields, am_n_event_fields, ev, prefix)) return 1;
    char field[64];
    if (ev->channel || ev->external_id) {
        snprintf(field, sizeof field, "%s%s", prefix, ev->channel ? "channel" : "external_id");
        am__srv_error(c->out, "invalid_request", field,
                      "%s: not accepted: an event's user is the token's (link a channel"
                      " identity with POST /v1/links)", field);
        return 1;
    }
    if (!ev->text) {
        snprintf(field, sizeof field, "%stext", prefix);
        am__srv_error(c->out, "invalid_request", field, "%s is required", field);
        return 1;
    }
    if (request_user(c, ev->user_id)) return 1;
    /* an agent's history is its own: a token writes as its agent, never
     * into another's (an event naming no agent gets the token's) */
    if (own_agent(c, ev->agent_id, prefix, "write")) return 1;
    ev->user_id = ev->user_id ? ev->user_id : c->tok.user_id;
    if (!ev->agent_id && c->tok.agent_id[0]) ev->agent_id = c->tok.agent_id;
    return 0;
}

static void events_list(srv_ctx *c, json_t *list)
{
    if (json_object_size(c->body) != 1) {
        const char *key;
        json_t *v;
        json_object_foreach(c->body, key, v) if (strcmp(key, "events") != 0) break;
        am__srv_error(c->out, "invalid_request", key,
                      "unknown field \"%.64s\" (a list of events is {\"events\": [...]} alone)",
                      key);
        return;
    }
    size_t n = json_array_size(list);
    if (!json_is_array(list) || n == 0 || n > MAX_EVENTS) {
        am__srv_error(c->out, "invalid_request", "events",
                      "events: expected an array of 1 to %d events, got %s", MAX_EVENTS,
                      json_is_array(list) ? (n ? "more" : "none") : am_json_type_name(list));
        return;
    }
    am_event *evs = calloc(n, sizeof *evs);
    am_add_info *infos = calloc(n, sizeof *infos);
    json_t *results = json_array();
    if (!evs || !infos || !results) {
        am__srv_error(c->out, "internal", NULL, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "events[%zu].", i);
        if (read_event(c, json_array_get(list, i), &evs[i], prefix)) goto out;
    }
    int rc = am_add_events(c->db, evs, n, infos);
    if (rc) {
        am__srv_engine_error(c, rc);
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if (json_array_append_new(results, am_shape_add(&infos[i]))) {
            am__srv_error(c->out, "internal", NULL, "out of memory");
            goto out;
        }
    am__srv_json(c->out, 200, json_pack("{s:O}", "results", results));
out:
    json_decref(results);
    free(evs);
    free(infos);
}

/* ------------------------------------------------------------ messages */

/* A chat transcript ({"messages": [{"role", "content", "name"?}], "user"?,
 * "session"?, "task"?, "at"?}; tools/common/messages.h): each message one
 * event, in order, in one transaction (am_add_events: all or nothing).
 * An assistant's or a tool's name is its agent (a scoped token's own
 * only), else the token's agent.  With "at", message i occurs i
 * milliseconds after it; without, each at the clock's now. */
typedef struct messages_in {
    const char *user, *session, *task, *at, *metadata;
} messages_in;

static const am_field messages_fields[] = {
    {"user", AM_FIELD_STRING, offsetof(messages_in, user), NULL},
    {"session", AM_FIELD_STRING, offsetof(messages_in, session), NULL},
    {"task", AM_FIELD_STRING, offsetof(messages_in, task), NULL},
    {"at", AM_FIELD_STRING, offsetof(messages_in, at), " (ISO 8601 with a zone)"},
    {"metadata", AM_FIELD_OBJECT, offsetof(messages_in, metadata), NULL},
};

/* messages[i] into ev; 0, or 1 with the 400 (or 403) made. */
static int read_message(srv_ctx *c, const json_t *obj, size_t i, am_event *ev)
{
    char field[64], why[700], prefix[48];
    if (am_message_read(obj, i, ev, field, sizeof field, why, sizeof why)) {
        am__srv_error(c->out, "invalid_request", field, "%s", why);
        return 1;
    }
    snprintf(prefix, sizeof prefix, "messages[%zu].", i);
    if (ev->agent_id && own_agent(c, ev->agent_id, prefix, "write")) return 1;
    if (!ev->agent_id && c->tok.agent_id[0]) ev->agent_id = c->tok.agent_id;
    return 0;
}

static void messages_engine_error(srv_ctx *c, int rc)
{
    char field[64], why[1200];
    if ((rc != AM_INVALID && rc != AM_TOOBIG) ||
        am_message_engine_error(am_errmsg(c->db), field, sizeof field, why, sizeof why))
        am__srv_engine_error(c, rc);
    else
        am__srv_error(c->out, "invalid_request", field, "%s", why);
}

static void events_messages(srv_ctx *c, json_t *list)
{
    messages_in in = {0};
    if (json_object_get(c->body, "text") || json_object_get(c->body, "events")) {
        const char *both = json_object_get(c->body, "text") ? "text" : "events";
        am__srv_error(c->out, "invalid_request", both,
                      "%s: not accepted with messages (a transcript is {\"messages\": [...]},"
                      " an event {\"text\": ...})",
                      both);
        return;
    }
    /* the other fields, checked as any body's (the list apart); a
     * shallow copy: the strings read stay c->body's, the metadata's text
     * is rest's (kept until the events are written) */
    json_t *rest = json_copy(c->body);
    if (!rest || json_object_del(rest, "messages")) {
        json_decref(rest);
        am__srv_error(c->out, "internal", NULL, "out of memory");
        return;
    }
    int bad = read_fields(c, rest, messages_fields,
                          sizeof messages_fields / sizeof *messages_fields, &in, "");
    if (!bad) bad = request_user(c, in.user);
    if (bad) {
        json_decref(rest);
        return;
    }
    size_t n = json_array_size(list);
    if (!json_is_array(list) || n == 0 || n > MAX_EVENTS) {
        am__srv_error(c->out, "invalid_request", "messages",
                      "messages: expected an array of 1 to %d messages, got %s", MAX_EVENTS,
                      json_is_array(list) ? (n ? "more" : "none") : am_json_type_name(list));
        json_decref(rest);
        return;
    }
    am_time at = 0;
    int tz = 0;
    if (in.at && am_time_parse(in.at, &at, &tz)) {
        am__srv_error(c->out, "invalid_request", "at", "at: expected ISO 8601 with a zone");
        json_decref(rest);
        return;
    }
    am_event *evs = calloc(n, sizeof *evs);
    am_add_info *infos = calloc(n, sizeof *infos);
    char(*times)[AM_MESSAGE_TIME_LEN] = in.at ? calloc(n, sizeof *times) : NULL;
    json_t *results = json_array();
    if (!evs || !infos || !results || (in.at && !times)) {
        am__srv_error(c->out, "internal", NULL, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (read_message(c, json_array_get(list, i), i, &evs[i])) goto out;
        evs[i].user_id = c->user;
        evs[i].session_id = in.session;
        evs[i].task_id = in.task;
        evs[i].metadata_json = in.metadata;
        if (times) {
            am_message_time(at, tz, i, times[i]);
            evs[i].occurred_at = times[i];
        }
    }
    int rc = am_add_events(c->db, evs, n, infos);
    if (rc) {
        messages_engine_error(c, rc);
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if (json_array_append_new(results, am_shape_add(&infos[i]))) {
            am__srv_error(c->out, "internal", NULL, "out of memory");
            goto out;
        }
    am__srv_json(c->out, 200, json_pack("{s:O}", "results", results));
out:
    json_decref(results);
    json_decref(rest);
    free(evs);
    free(infos);
    free(times);
}


void am__srv_h_events(srv_ctx *c)
{
    json_t *msgs = json_object_get(c->body, "messages");
    if (msgs) {
        events_messages(c, msgs);
        return;
    }
    json_t *list = json_object_get(c->body, "events");
    if (list) {
        events_list(c, list);
        return;
    }
    am_event ev;
    am_add_info info;
    char err[600];
    if (read_event(c, c->body, &ev, "")) return;
    if (c->srv->async_writes) {
        /* a fair share of the queue: one user's flood waits on itself */
        int queued = am__srv_write_queued(c->srv, ev.user_id);
        if (queued >= SRV_WRITES_PER_USER) {
            am__srv_error(c->out, "too_many_requests", NULL,
                          "add: %d writes of this user are queued already (the most one user"
                          " may); retry later", queued);
            am__srv_log(c->srv, "refused: a write of a user with %d queued", queued);
            return;
        }
        if (!(c->out->pending = am__srv_pending_new(&ev)))
            am__srv_error(c->out, "internal", NULL, "out of memory");
        return;
    }
    int rc = am__srv_write_grouped(c->srv, c->db, &ev, &info, err, sizeof err);
    if (rc) am__srv_engine_error_msg(c, rc, err);
    else am__srv_json(c->out, 200, am_shape_add(&info));
}

/* ------------------------------------------------------------ recall */

typedef struct recall_in {
    const char *query, *session, *task, *agent, *domain, *as_of, *user;
    long long budget, k;
    const char *filters; /* the object's text */
} recall_in;

static const am_field recall_fields[] = {
    {"query", AM_FIELD_STRING, offsetof(recall_in, query), NULL},
    {"session", AM_FIELD_STRING, offsetof(recall_in, session), NULL},
    {"task", AM_FIELD_STRING, offsetof(recall_in, task), NULL},
    {"agent", AM_FIELD_STRING, offsetof(recall_in, agent), NULL},
    {"domain", AM_FIELD_STRING, offsetof(recall_in, domain), NULL},
    {"as_of", AM_FIELD_STRING, offsetof(recall_in, as_of), " (ISO 8601 with a zone)"},
    {"budget", AM_FIELD_INT, offsetof(recall_in, budget), " (tokens)"},
    {"k", AM_FIELD_INT, offsetof(recall_in, k), " (events)"},
    {"user", AM_FIELD_STRING, offsetof(recall_in, user), NULL},
    {"filters", AM_FIELD_OBJECT, offsetof(recall_in, filters),
     " ({\"kind\", \"scope\", \"metadata\", \"from\", \"to\"})"},
};

#define FILTER_LIST_MAX 32
typedef struct recall_filter {
    am_filter f;
    const char *kinds[FILTER_LIST_MAX], *scopes[FILTER_LIST_MAX];
    json_t *doc;  /* the parsed filters: kinds, scopes, from, to borrow from it */
    char *metadata; /* malloc'ed */
} recall_filter;

/* "kind" / "scope": a string or an array of strings into list */
static int filter_strings(srv_ctx *c, const char *name, json_t *v, const char **list, size_t *n)
{
    size_t k = json_is_array(v) ? json_array_size(v) : 1;
    for (size_t i = 0; i < k; i++) {
        json_t *e = json_is_array(v) ? json_array_get(v, i) : v;
        if (!json_is_string(e) || *n == FILTER_LIST_MAX) {
            am__srv_error(c->out, "invalid_request", "filters", "filters.%s: expected a string or"
                          " an array of at most %d strings", name, FILTER_LIST_MAX);
            return 1;
        }
        list[(*n)++] = json_string_value(e);
    }
    return 0;
}

/* The body's "filters" (its text) into rf: 0, or 1 with the 400 made.
 * The engine checks the values (metadata, times) and names them. */
static int recall_filters(srv_ctx *c, const char *text, recall_filter *rf)
{
    memset(rf, 0, sizeof *rf);
    rf->f.kinds = rf->kinds;
    rf->f.scopes = rf->scopes;
    if (!(rf->doc = json_loads(text, 0, NULL))) {
        am__srv_error(c->out, "internal", NULL, "out of memory");
        return 1;
    }
    const char *k;
    json_t *v;
    json_object_foreach(rf->doc, k, v) {
        int bad = 0;
        if (strcmp(k, "kind") == 0) bad = filter_strings(c, k, v, rf->kinds, &rf->f.n_kinds);
        else if (strcmp(k, "scope") == 0) bad = filter_strings(c, k, v, rf->scopes, &rf->f.n_scopes);
        else if (strcmp(k, "metadata") == 0 && json_is_object(v))
            bad = !(rf->metadata = json_dumps(v, JSON_COMPACT)) &&
                  (am__srv_error(c->out, "internal", NULL, "out of memory"), 1);
        else if ((strcmp(k, "from") == 0 || strcmp(k, "to") == 0) && json_is_string(v))
            *(k[0] == 'f' ? &rf->f.from : &rf->f.to) = json_string_value(v);
        else {
            am__srv_error(c->out, "invalid_request", "filters",
                          "filters.%.64s: unknown or of the wrong type (kind, scope: a string or"
                          " an array of strings; metadata: an object; from, to: ISO 8601)", k);
            bad = 1;
        }
        if (bad) return 1;
    }
    rf->f.metadata_json = rf->metadata;
    return 0;
}

static void recall_filters_free(recall_filter *rf)
{
    json_decref(rf->doc);
    free(rf->metadata);
}

static int positive(srv_ctx *c, long long v, const char *field, long long max)
{
    if (v == NOT_GIVEN || (v >= 1 && v <= max)) return 0;
    am__srv_error(c->out, "invalid_request", field, "%s: expected 1 to %lld, got %lld", field, max,
                  v);
    return 1;
}

void am__srv_h_recall(srv_ctx *c)
{
    recall_in in = {0};
    in.budget = in.k = NOT_GIVEN;
    if (read_fields(c, c->body, recall_fields, sizeof recall_fields / sizeof *recall_fields, &in,
                    "") ||
        require(c, in.query, "query") || positive(c, in.budget, "budget", 100000) ||
        positive(c, in.k, "k", 100000) || request_user(c, in.user))
        return;
    /* an agent's conclusions are its own: a token of one agent (or
     * of a role) may not recall as another */
    if (own_agent(c, in.agent, "", "recall")) return;
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = c->user;
    q.agent_id = in.agent ? in.agent : token_agent(c);
    q.session_id = in.session;
    q.task_id = in.task;
    q.domain = in.domain;
    q.text = in.query;
    q.as_of = in.as_of;
    q.budget_tokens = in.budget == NOT_GIVEN ? 0 : (int)in.budget;
    q.max_events = in.k == NOT_GIVEN ? 0 : (int)in.k;
    /* the token's role is the recall's (role whitelists); an agent a
     * body names sees what that agent may (its own conclusions, not
     * another's), the token's role still applying */
    q.role = token_role(c);
    recall_filter rf;
    memset(&rf, 0, sizeof rf);
    if (in.filters && recall_filters(c, in.filters, &rf)) {
        recall_filters_free(&rf);
        return;
    }
    if (in.filters) q.filter = &rf.f;
    am_recall_result *r;
    int rc = am_recall(c->db, &q, &r);
    recall_filters_free(&rf);
    if (rc) {
        am__srv_engine_error(c, rc);
        return;
    }
    am__srv_text(c->out, 200, "application/json", r->json, strlen(r->json));
    am_recall_free(r);
}

/* ------------------------------------------------------------ reads */


void am__srv_h_task(srv_ctx *c)
{
    if (request_user(c, NULL)) return;
    am_task *t;
    int rc = am_task_get_as(c->db, c->user, c->params[0], token_agent(c), token_role(c), &t);
    if (rc) {
        am__srv_engine_error(c, rc);
        return;
    }
    am__srv_json(c->out, 200, am_shape_task(t));
    am_task_free(t);
}

/* ?all= : 1/true or 0/false */
static int flag(srv_ctx *c, const char *name, int *out)
{
    const char *v = query(c, name);
    *out = 0;
    if (!v) return 0;
    if (strcmp(v, "1") == 0 || strcmp(v, "true") == 0) *out = 1;
    else if (strcmp(v, "0") != 0 && strcmp(v, "false") != 0) {
        am__srv_error(c->out, "invalid_request", name, "%s: expected 1, 0, true or false", name);
        return 1;
    }
    return 0;
}

/* ?limit= (1..AM_LIST_LIMIT_MAX; absent: 0, all) */
static int page_limit(srv_ctx *c, size_t *limit)
{
    const char *v = query(c, "limit");
    *limit = 0;
    if (!v) return 0;
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || *end || n < 1 || n > AM_LIST_LIMIT_MAX) {
        am__srv_error(c->out, "invalid_request", "limit", "limit: expected 1 to %d, got \"%.32s\"",
                      AM_LIST_LIMIT_MAX, v);
        return 1;
    }
    *limit = (size_t)n;
    return 0;
}

/* the query parameters metadata.KEY=V as one JSON object {"KEY": "V"} */
static int metadata_params(srv_ctx *c, char **out)
{
    *out = NULL;
    if (!c->rq->query_key) return 0;
    json_t *o = json_object();
    const char *key;
    for (int i = 0; o && (key = c->rq->query_key(c->rq->query_ctx, i)); i++) {
        if (strncmp(key, "metadata.", 9) != 0) continue;
        const char *v = query(c, key);
        if (!v || json_object_set_new(o, key + 9, json_string(v))) {
            am__srv_error(c->out, "invalid_request", key, "%.80s: the value is not UTF-8", key);
            json_decref(o);
            return 1;
        }
    }
    if (o && json_object_size(o)) *out = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return 0;
}

void am__srv_h_memories(srv_ctx *c)
{
    int all;
    am_list_opts o;
    memset(&o, 0, sizeof o);
    if (flag(c, "all", &all) || page_limit(c, &o.limit) || request_user(c, NULL)) return;
    char *meta = NULL;
    if (metadata_params(c, &meta)) return;
    /* ?kind= ?scope= ?metadata.KEY= ?from= ?to= (am_filter) */
    const char *kind = query(c, "kind"), *scope = query(c, "scope");
    am_filter f;
    memset(&f, 0, sizeof f);
    f.kinds = &kind;
    f.n_kinds = kind ? 1 : 0;
    f.scopes = &scope;
    f.n_scopes = scope ? 1 : 0;
    f.metadata_json = meta;
    f.from = query(c, "from");
    f.to = query(c, "to");
    f.query = query(c, "q");
    o.which = all ? AM_LIST_ALL : AM_LIST_ACTIVE;
    o.as_of = query(c, "as_of");
    o.filter = &f;
    o.cursor = query(c, "cursor");
    o.agent_id = token_agent(c);
    o.role = token_role(c);
    am_memory_list *l;
    int rc = am_memories_list(c->db, c->user, &o, &l);
    free(meta);
    if (rc == AM_INVALID && strstr(am_errmsg(c->db), "filters.query:")) { /* ?q= */
        am__srv_error(c->out, "invalid_request", "q", "q:%s",
                      strstr(am_errmsg(c->db), "filters.query:") + 14);
        return;
    }
    if (rc) {
        am__srv_engine_error(c, rc);
        return;
    }
    /* the body stays the array it always was; the next page's cursor in
     * the X-Next-Cursor header */
    am__srv_text(c->out, 200, "application/json", l->json, strlen(l->json));
    if (l->next_cursor)
        snprintf(c->out->next_cursor, sizeof c->out->next_cursor, "%s", l->next_cursor);
    am_memory_list_free(l);
}

static int by_recorded(const void *a, const void *b)
{
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    const char *rx = json_string_value(json_object_get(x, "recorded_at")),
               *ry = json_string_value(json_object_get(y, "recorded_at"));
    int d = strcmp(rx ? rx : "", ry ? ry : "");
    if (d) return d;
    const char *ix = json_string_value(json_object_get(x, "id")),
               *iy = json_string_value(json_object_get(y, "id"));
    return strcmp(ix ? ix : "", iy ? iy : ""); /* ULIDs: in the order made */
}

/* Every version of the item that {id} names (a version or lineage id):
 * the versions of its key in its scope, oldest first; ?limit= a page of
 * them, from after the version ?cursor= names ("next_cursor" beside
 * "versions": the page's last version id, null on the last page). */
void am__srv_h_versions(srv_ctx *c)
{
    size_t limit;
    if (page_limit(c, &limit) || request_user(c, NULL)) return;
    const char *cursor = query(c, "cursor");
    am_memory_list *l;
    int rc = am_memories_as(c->db, c->user, AM_LIST_ALL, NULL, token_agent(c), token_role(c), &l);
    if (rc) {
        am__srv_engine_error(c, rc);
        return;
    }
    const char *id = c->params[0];
    const am_memory *found = NULL;
    for (size_t i = 0; i < l->n && !found; i++)
        if (strcmp(l->items[i].id, id) == 0 || strcmp(l->items[i].lineage_id, id) == 0)
            found = &l->items[i];
    json_t *all = found ? am_shape_parsed(l->json) : NULL, *versions = json_array();
    json_t **pick = found ? calloc(l->n ? l->n : 1, sizeof *pick) : NULL;
    size_t n = 0;
    if (!found) {
        am__srv_error(c->out, "not_found", "id", "id: no memory %s", id);
        goto out;
    }
    if (!all || !versions || !pick) {
        am__srv_error(c->out, "internal", NULL, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < json_array_size(all); i++) {
        json_t *m = json_array_get(all, i);
        const char *key = json_string_value(json_object_get(m, "key")),
                   *scope = json_string_value(json_object_get(m, "scope"));
        if (key && scope && strcmp(key, found->key) == 0 && strcmp(scope, found->scope) == 0)
            pick[n++] = m;
    }
    qsort(pick, n, sizeof *pick, by_recorded);
    /* the page: after the version the cursor names (versions are only
     * added, after the others: a page never repeats or skips one) */
    size_t from = 0;
    if (cursor) {
        while (from < n && strcmp(json_string_value(json_object_get(pick[from], "id")), cursor) != 0)
            from++;
        if (from == n) {
            am__srv_error(c->out, "invalid_request", "cursor", "cursor: not a version of this memory");
            goto out;
        }
        from++;
    }
    size_t to = limit && n - from > limit ? from + limit : n;
    for (size_t i = from; i < to; i++)
        if (json_array_append(versions, pick[i])) {
            am__srv_error(c->out, "internal", NULL, "out of memory");
            goto out;
        }
    json_t *next = to < n ? json_object_get(pick[to - 1], "id") : json_null();
    am__srv_json(c->out, 200, json_pack("{s:s, s:s, s:O, s:O}", "memory_id", id, "key", found->key,
                                        "versions", versions, "next_cursor", next));
out:
    free(pick);
    json_decref(versions);
    json_decref(all);
    am_memory_list_free(l);
}

/* ------------------------------------------------------------ writes */

typedef struct feedback_in {
    const char *action, *text, *user;
} feedback_in;
static const am_field feedback_fields[] = {
    {"action", AM_FIELD_STRING, offsetof(feedback_in, action), " (confirm, reject or correct)"},
    {"text", AM_FIELD_STRING, offsetof(feedback_in, text), NULL},
    {"user", AM_FIELD_STRING, offsetof(feedback_in, user), NULL},
};

void am__srv_h_feedback(srv_ctx *c)
{
    feedback_in in = {0};
    if (read_fields(c, c->body, feedback_fields, sizeof feedback_fields / sizeof *feedback_fields,
                    &in, "") ||
        require(c, in.action, "action"))
        return;
    int action = strcmp(in.action, "confirm") == 0   ? AM_FEEDBACK_CONFIRM
                 : strcmp(in.action, "reject") == 0  ? AM_FEEDBACK_REJECT
                 : strcmp(in.action, "correct") == 0 ? AM_FEEDBACK_CORRECT
                                                     : 0;
    if (!action) {
        am__srv_error(c->out, "invalid_request", "action",
                      "action: expected confirm, reject or correct");
        return;
    }
    if (action == AM_FEEDBACK_CORRECT && require(c, in.text, "text")) return;
    if (request_user(c, in.user)) return;
    /* an item the token may not read is not there for it (404, as unknown) */
    am_memory_item *m = NULL;
    int rc = am_memory_feedback(c->db, c->user, c->params[0], action, in.text, token_agent(c),
                                token_role(c), &m);
    if (rc) {
        am__srv_engine_error(c, rc);
        return;
    }
    /* "ok" as before, and the item's new current version (null: rejected) */
    json_t *all = json_loads(m->json, 0, NULL), *cur = all ? json_object_get(all, "memory") : NULL;
    if (cur) am__srv_json(c->out, 200, json_pack("{s:b, s:O}", "ok", 1, "memory", cur));
    else am__srv_error(c->out, "internal", NULL, "out of memory");
    json_decref(all);
    am_memory_item_free(m);
}

typedef struct forget_in {
    const char *level, *id, *user;
    long long grace;
} forget_in;
static const am_field forget_fields[] = {
    {"level", AM_FIELD_STRING, offsetof(forget_in, level), " (event, session, task or user)"},
    {"id", AM_FIELD_STRING, offsetof(forget_in, id), NULL},
    {"grace", AM_FIELD_INT, offsetof(forget_in, grace), " (seconds)"},
    {"user", AM_FIELD_STRING, offsetof(forget_in, user), NULL},
};

/* "event" | "session" | "task" | "user" as AM_FORGET_*, with an id for
 * every level but user: the level, or 0 with the 400 made */
static int forget_level(srv_ctx *c, const char *name, const char *id)
{
    static const char *const levels[] = {"", "event", "session", "task", "user"};
    int level = 0;
    for (int i = 1; i <= AM_FORGET_USER; i++)
        if (strcmp(name, levels[i]) == 0) level = i;
    if (!level) {
        am__srv_error(c->out, "invalid_request", "level",
                      "level: expected event, session, task or user");
        return 0;
    }
    if (level != AM_FORGET_USER && require(c, id, "id")) return 0;
    return level;
}

void am__srv_h_forget(srv_ctx *c)
{
    forget_in in = {0};
    in.grace = NOT_GIVEN;
    if (read_fields(c, c->body, forget_fields, sizeof forget_fields / sizeof *forget_fields, &in,
                    "") ||
        require(c, in.level, "level"))
        return;
    int level = forget_level(c, in.level, in.id);
    if (!level) return;
    /* every level has a grace period (am_restore_forget brings an event,
     * a session or a task back during it; am_restore a user) */
    if (in.grace != NOT_GIVEN && (in.grace < 0 || in.grace > 3153600000LL)) {
        am__srv_error(c->out, "invalid_request", "grace",
                      "grace: expected whole seconds, 0 to 3153600000");
        return;
    }
    if (request_user(c, in.user)) return;
    am_forget_info info;
    int rc;
    if (in.grace > 0) {
        /* the grace period is the handle's (am_config.forget_grace_ms): a
         * handle of its own for this one call */
        am_config cfg = *c->srv->cfg;
        cfg.forget_grace_ms = (am_time)in.grace * 1000;
        cfg.must_exist = 1;
        am_db *db = NULL;
        char *err = NULL;
        if ((rc = am_open(&cfg, &db, &err))) {
            am__srv_error(c->out, "internal", NULL, "forget: cannot open the store: %s",
                          err ? err : am_errstr(rc));
            am_free(err);
            return;
        }
        rc = am_forget_as(db, c->user, level, in.id, token_agent(c), token_role(c), &info);
        am_db *keep = c->db;
        c->db = db;
        if (rc) am__srv_engine_error(c, rc);
        c->db = keep;
        am_close(db);
        if (rc) return;
    } else if ((rc = am_forget_as(c->db, c->user, level, in.id, token_agent(c), token_role(c),
                                  &info))) {
        am__srv_engine_error(c, rc);
        return;
    }
    /* an export of the user running now holds what was just forgotten in
     * its spool: it ends (the client sees an error, never a whole document) */
    am__srv_exports_cut_user(c->srv, c->user);
    am__srv_json(c->out, 200, am_shape_forget(&info));
}

typedef struct restore_in {
    const char *level, *id, *user;
} restore_in;
static const am_field restore_fields[] = {
    {"level", AM_FIELD_STRING, offsetof(restore_in, level), " (event, session, task or user)"},
    {"id", AM_FIELD_STRING, offsetof(restore_in, id), NULL},
    {"user", AM_FIELD_STRING, offsetof(restore_in, user), NULL},
};

/* {} or {"level":"user"}: the user back (am_restore); {"level", "id"}:
 * that event, session or task back (am_restore_forget) -- each during its
 * grace period */
void am__srv_h_restore(srv_ctx *c)
{
    restore_in in = {0};
    if (read_fields(c, c->body, restore_fields, sizeof restore_fields / sizeof *restore_fields,
                    &in, ""))
        return;
    int level = AM_FORGET_USER;
    if (in.level && !(level = forget_level(c, in.level, in.id))) return;
    if (!in.level && in.id) {
        am__srv_error(c->out, "invalid_request", "level", "level is required with an id");
        return;
    }
    if (level == AM_FORGET_USER && in.id) {
        am__srv_error(c->out, "invalid_request", "id",
                      "id: a user restore takes no id (the user is the token's, or \"user\")");
        return;
    }
    if (request_user(c, in.user)) return;
    int rc = level == AM_FORGET_USER ? am_restore(c->db, c->user)
                                     : am_restore_forget(c->db, c->user, level, in.id);
    if (rc) am__srv_engine_error(c, rc);
    else am__srv_json(c->out, 200, json_pack("{s:b}", "restored", 1));
}

typedef struct links_in {
    const char *channel, *external_id, *user;
    int merge;
} links_in;
static const am_field links_fields[] = {
    {"channel", AM_FIELD_STRING, offsetof(links_in, channel), NULL},
    {"external_id", AM_FIELD_STRING, offsetof(links_in, external_id), NULL},
    {"merge", AM_FIELD_BOOL, offsetof(links_in, merge), NULL},
    {"user", AM_FIELD_STRING, offsetof(links_in, user), NULL},
};

void am__srv_h_links(srv_ctx *c)
{
    links_in in = {0};
    if (read_fields(c, c->body, links_fields, sizeof links_fields / sizeof *links_fields, &in, "") ||
        require(c, in.channel, "channel") || require(c, in.external_id, "external_id") ||
        request_user(c, in.user))
        return;
    /* a link says that whoever writes as (channel, external_id) is this
     * user: only the channel's integration can vouch for that, never a
     * tenant (first come, first served would let one claim another's
     * identity and read what it writes) -- an admin operation */
    if (!c->tok.admin) {
        am__srv_error(c->out, "forbidden", NULL,
                      "links: linking a channel identity to a user is an admin operation (the"
                      " channel's integration vouches for the identity with an admin token"
                      " naming \"user\")");
        return;
    }
    /* merging moves the history a channel identity has of its own into the
     * user: an operator's decision, never a tenant's (it could take in
     * someone else's history) */
    if (in.merge && !c->tok.admin) {
        am__srv_error(c->out, "forbidden", "merge", "merge: only an admin token may merge a"
                                                    " channel identity's history into a user");
        return;
    }
    int rc = am_link_merge(c->db, in.channel, in.external_id, c->user, in.merge);
    if (rc == AM_DENIED)
        /* the engine's message may name the user the identity belongs to */
        am__srv_error(c->out, "denied", NULL,
                      "link: this channel identity belongs to another user or has a history"
                      " of its own%s", c->tok.admin ? "" : " (an admin token may merge it)");
    else if (rc) am__srv_engine_error(c, rc);
    else am__srv_json(c->out, 200, json_pack("{s:b}", "ok", 1));
}

void am__srv_h_export(srv_ctx *c)
{
    if (request_user(c, NULL)) return;
    if (token_scoped(c)) {
        /* the whole history, every agent's private work and every kind
         * included: the user's, not an agent's */
        am__srv_error(c->out, "forbidden", NULL,
                      "export: the whole history is the user's; a token of an agent or a role"
                      " may not export it");
        return;
    }
    c->out->stream = SRV_STREAM_EXPORT;
    c->out->status = 200;
    c->out->content_type = "application/json";
    snprintf(c->out->stream_user, sizeof c->out->stream_user, "%s", c->user);
}
