/* SPDX-License-Identifier: Apache-2.0 */
/*
 * router.c -- one request in, one reply out (no socket: server.c reads
 * and writes them, the fuzz target calls am__srv_handle directly).
 *
 * Order: route (404 unknown path, 405 known path with another method),
 * body size (413), token (401: missing, unknown, revoked), body JSON (400:
 * not JSON, not an object, a duplicate key), then the handler, which
 * names the user (am__srv_user: the token's; another one only for an
 * admin token -- else 403, audited, and nothing read) and checks every
 * field (tools/common/fields.h).
 *
 * The table: a pattern's "{name}" matches one non-empty segment, handed to
 * the handler in params.  PUBLIC routes need no token.  Routes of other
 * parts (/mcp, /v1/stream, /v1/embeddings, the workspace, the inspector)
 * are one line each here.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "fields.h"
#include "srv_int.h"
#include "router.h"

#define ROUTE_PUBLIC 1

/* The store is asked (a round trip to PostgreSQL, which makes a lost
 * connection again): unreachable is 503 with "status": "unavailable" and
 * why, so a load balancer stops sending requests here.  Besides
 * {"status","store","version","store_reachable","store_error"} (a
 * contract): the bus between instances, "cache" {"url_set", "state"
 * up|down|off, "error" when down}, "degraded" (Redis configured and down:
 * served from the store alone, still 200), "bus" {"instance", "notes_in",
 * "notes_out", "webhooks": leader|standby|paused|local|off}, and
 * "cache"."recall_cache" the library's own connection (am_cache_state:
 * none|up|down; down also sets "degraded") -- never the URL (its
 * password). */
static void healthz_reply(srv_ctx *c, const char *store, int reachable, const char *store_error);
static int authenticate(srv_ctx *c);

/* What /healthz says of a part that is down: "unreachable" to anyone
 * (the route is public, and libpq's or Redis's own words name hosts and
 * ports), the part's own words to an admin token's holder; those words
 * also go to the log, at most once per HEALTH_LOG_S per part. */
#define HEALTH_LOG_S 10
static const char HEALTH_DOWN[] = "unreachable";

static void health_log(const char *part, const char *why)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static time_t last[2];
    static long quiet[2];
    int k = strcmp(part, "store") == 0 ? 0 : 1;
    time_t now = time(NULL);
    pthread_mutex_lock(&mu);
    int say = now - last[k] >= HEALTH_LOG_S;
    long was_quiet = quiet[k];
    if (say) {
        last[k] = now;
        quiet[k] = 0;
    } else quiet[k]++;
    pthread_mutex_unlock(&mu);
    if (!say) return;
    if (was_quiet)
        fprintf(stderr, "agentmem serve: healthz: %s down: %s (%ld more checks said so)\n", part,
                why, was_quiet);
    else fprintf(stderr, "agentmem serve: healthz: %s down: %s\n", part, why);
}

/* 1 when the request carries a live admin token (no reply is made when it
 * does not: /healthz answers anyone) */
static int health_admin(srv_ctx *c)
{
    if (!c->db || !c->rq || !c->rq->authorization) return 0;
    srv_reply scratch;
    memset(&scratch, 0, sizeof scratch);
    srv_reply *keep = c->out;
    c->out = &scratch;
    int admin = authenticate(c) == 0 && c->tok.admin;
    c->out = keep;
    free(scratch.body);
    memset(&c->tok, 0, sizeof c->tok);
    return admin;
}

static void h_healthz(srv_ctx *c)
{
    am_store_health h = {1, 0, 0};
    int rc = c->db ? am_store_check(c->db, 1, &h) : AM_OK;
    healthz_reply(c, c->db ? am_store_backend(c->db) : "sqlite", h.reachable,
                  rc && !h.reachable ? am_errmsg(c->db) : NULL);
}

/* /healthz's document; also when no handle could be opened (c->db NULL) */
static void healthz_reply(srv_ctx *c, const char *store, int reachable, const char *store_error)
{
    int admin = health_admin(c);
    if (store_error) health_log("store", store_error);
    json_t *v = json_pack("{s:s, s:s, s:s, s:b, s:s?}", "status", reachable ? "ok" : "unavailable",
                          "store", store, "version", AM_VERSION_STRING, "store_reachable", reachable,
                          "store_error", store_error && !admin ? HEALTH_DOWN : store_error);
    srv_bus *bus = c->srv ? c->srv->bus : NULL;
    srv_dispatch *d = c->srv ? c->srv->dispatch : NULL;
    json_t *cache = NULL, *busj = NULL;
    int up = 0;
    if (bus) {
        char err[256];
        long in, out;
        up = am__srv_bus_health(bus, err, sizeof err, &in, &out);
        if (!up) health_log("cache", err);
        cache = up ? json_pack("{s:b, s:s}", "url_set", 1, "state", "up")
                   : json_pack("{s:b, s:s, s:s}", "url_set", 1, "state", "down", "error",
                               admin ? err : HEALTH_DOWN);
        busj = json_pack("{s:s, s:I, s:I, s:s}", "instance", am__srv_bus_instance(bus), "notes_in",
                         (json_int_t)in, "notes_out", (json_int_t)out, "webhooks",
                         d ? am__srv_dispatch_role(d) : "off");
    } else cache = json_pack("{s:b, s:s}", "url_set", 0, "state", "off");
    /* the library's recall cache and working memory on this handle's own
     * Redis connection (am_cache_state): none, up or down */
    const char *lib_err = "";
    const char *lib = c->db ? am_cache_state(c->db, &lib_err) : "none";
    int lib_down = strcmp(lib, "down") == 0;
    if (cache && json_object_set_new(cache, "recall_cache", json_string(lib))) {
        json_decref(cache);
        cache = NULL;
    }
    if (!v || !cache) {
        json_decref(v);
        json_decref(cache);
        json_decref(busj);
        am__srv_error(c->out, "internal", NULL, "out of memory");
        return;
    }
    if (json_object_set_new(v, "cache", cache) ||
        json_object_set_new(v, "degraded", json_boolean((bus && !up) || lib_down)) ||
        (bus && (!busj || json_object_set_new(v, "bus", busj)))) {
        json_decref(v);
        am__srv_error(c->out, "internal", NULL, "out of memory");
        return;
    }
    am__srv_json(c->out, reachable ? 200 : 503, v);
    if (!reachable) c->out->retry_after = 1;
}

static void h_metrics(srv_ctx *c)
{
    /* file sizes of a store that has files */
    int files = !c->db || strcmp(am_store_backend(c->db), "sqlite") == 0;
    char *text = am__srv_metrics_text(&c->srv->metrics, files ? c->srv->opts.db_path : NULL);
    if (!text) {
        am__srv_error(c->out, "internal", NULL, "out of memory");
        return;
    }
    am__srv_text(c->out, 200, "text/plain; version=0.0.4; charset=utf-8", text, strlen(text));
    free(text);
}

static void h_openapi(srv_ctx *c)
{
    am__srv_text(c->out, 200, "application/json", am__srv_openapi, am__srv_openapi_len);
}

static const struct route {
    const char *method, *pattern, *name;
    srv_handler fn;
    int flags;
} routes[] = {
#define ROUTE(method, pattern, fn, flags) {method, pattern, method " " pattern, fn, flags}
    ROUTE("GET", "/healthz", h_healthz, ROUTE_PUBLIC),
    ROUTE("GET", "/metrics", h_metrics, 0),
    ROUTE("GET", "/openapi.json", h_openapi, ROUTE_PUBLIC),
    ROUTE("GET", "/", am__srv_h_asset, ROUTE_PUBLIC),
    ROUTE("GET", "/inspector/{file}", am__srv_h_asset, ROUTE_PUBLIC),
    ROUTE("POST", "/v1/events", am__srv_h_events, 0),
    ROUTE("GET", "/v1/events", am__srv_h_events_list, 0),
    ROUTE("POST", "/v1/recall", am__srv_h_recall, 0),
    ROUTE("GET", "/v1/tasks/{task_id}", am__srv_h_task, 0),
    ROUTE("GET", "/v1/memories", am__srv_h_memories, 0),
    ROUTE("GET", "/v1/memories/{id}/versions", am__srv_h_versions, 0),
    ROUTE("POST", "/v1/memories", am__srv_h_memory_add, 0),
    ROUTE("GET", "/v1/memories/{id}", am__srv_h_memory_get, 0),
    ROUTE("PATCH", "/v1/memories/{id}", am__srv_h_memory_update, 0),
    ROUTE("DELETE", "/v1/memories/{id}", am__srv_h_memory_delete, 0),
    ROUTE("POST", "/v1/memories/{id}/feedback", am__srv_h_feedback, 0),
    ROUTE("POST", "/v1/forget", am__srv_h_forget, 0),
    ROUTE("POST", "/v1/restore", am__srv_h_restore, 0),
    ROUTE("POST", "/v1/links", am__srv_h_links, 0),
    ROUTE("GET", "/v1/export", am__srv_h_export, 0),
    ROUTE("POST", "/v1/import", am__srv_h_import, 0),
    ROUTE("GET", "/v1/profile", am__srv_h_profile, 0),
    ROUTE("GET", "/v1/reports/corrections", am__srv_h_report, 0),
    ROUTE("POST", "/v1/packs", am__srv_h_packs_apply, 0),
    ROUTE("GET", "/v1/packs", am__srv_h_packs_list, 0),
    ROUTE("DELETE", "/v1/packs/{name}", am__srv_h_packs_remove, 0),
    ROUTE("GET", "/v1/tasks/{task_id}/workspace", am__srv_h_workspace_get, 0),
    ROUTE("PUT", "/v1/tasks/{task_id}/workspace", am__srv_h_workspace_put, 0),
    ROUTE("GET", "/v1/sessions/{session}/working", am__srv_h_working_list, 0),
    ROUTE("DELETE", "/v1/sessions/{session}/working", am__srv_h_working_clear, 0),
    ROUTE("GET", "/v1/sessions/{session}/working/{key}", am__srv_h_working_get, 0),
    ROUTE("PUT", "/v1/sessions/{session}/working/{key}", am__srv_h_working_put, 0),
    ROUTE("DELETE", "/v1/sessions/{session}/working/{key}", am__srv_h_working_clear, 0),
    ROUTE("POST", "/v1/embeddings", am__srv_h_embeddings, 0),
    ROUTE("POST", "/mcp", am__srv_h_mcp, 0),
    ROUTE("GET", "/v1/stream", am__srv_h_stream, 0),
#undef ROUTE
};
#define N_ROUTES (int)(sizeof routes / sizeof *routes)

/* The query parameters each route takes (names separated by blanks; a
 * name ending in '.' takes every name it starts: metadata.project).  A
 * request naming another is refused with 400 naming it -- a misspelt
 * ?limt= is not silently ignored.  A route not listed here is not
 * checked (the public assets: a browser may add its own). */
static const struct {
    const char *route, *names;
} route_params[] = {
    {"GET /metrics", ""},
    {"GET /openapi.json", ""},
    {"POST /v1/events", "user"},
    {"GET /v1/events", "user limit cursor q session from to ids"},
    {"POST /v1/recall", "user"},
    {"GET /v1/tasks/{task_id}", "user"},
    {"GET /v1/memories", "user all as_of kind scope from to limit cursor q metadata."},
    {"GET /v1/memories/{id}/versions", "user limit cursor"},
    {"POST /v1/memories", "user"},
    {"GET /v1/memories/{id}", "user"},
    {"PATCH /v1/memories/{id}", "user"},
    {"DELETE /v1/memories/{id}", "user"},
    {"POST /v1/memories/{id}/feedback", "user"},
    {"POST /v1/forget", "user"},
    {"POST /v1/restore", "user"},
    {"POST /v1/links", "user"},
    {"GET /v1/export", "user"},
    {"GET /v1/profile", "user budget"},
    {"GET /v1/reports/corrections", "user since until period"},
    {"POST /v1/packs", ""},
    {"GET /v1/packs", "user"},
    {"DELETE /v1/packs/{name}", "user"},
    {"GET /v1/tasks/{task_id}/workspace", "user"},
    {"PUT /v1/tasks/{task_id}/workspace", "user"},
    {"GET /v1/sessions/{session}/working", "user limit cursor"},
    {"DELETE /v1/sessions/{session}/working", "user"},
    {"GET /v1/sessions/{session}/working/{key}", "user"},
    {"PUT /v1/sessions/{session}/working/{key}", "user"},
    {"DELETE /v1/sessions/{session}/working/{key}", "user"},
    {"POST /v1/embeddings", "user"},
    {"POST /mcp", "user"},
    {"GET /v1/stream", "user after"},
};

/* 1 when names (route_params) takes key */
static int param_taken(const char *names, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = names; *p;) {
        size_t n = strcspn(p, " ");
        if ((n == kl && strncmp(p, key, n) == 0) ||
            (n > 1 && p[n - 1] == '.' && kl > n && strncmp(p, key, n) == 0))
            return 1;
        p += n;
        while (*p == ' ') p++;
    }
    return 0;
}

/* 0, or 1 with the 400 made: a query parameter route r does not take */
static int params_check(int r, const srv_request *rq, srv_reply *out)
{
    if (!rq->query_key) return 0;
    const char *names = NULL;
    for (size_t i = 0; i < sizeof route_params / sizeof *route_params && !names; i++)
        if (strcmp(route_params[i].route, routes[r].name) == 0) names = route_params[i].names;
    if (!names) return 0;
    const char *key;
    for (int i = 0; (key = rq->query_key(rq->query_ctx, i)); i++) {
        if (param_taken(names, key)) continue;
        char shown[65];
        size_t n = 0;
        for (size_t k = 0; key[k] && n + 1 < sizeof shown; k++)
            shown[n++] = key[k] >= 0x20 && key[k] < 0x7f ? key[k] : '?';
        shown[n] = '\0';
        am__srv_error(out, "invalid_request", shown,
                      "unknown query parameter \"%s\" (%s takes %s)", shown, routes[r].name,
                      *names ? names : "none");
        return 1;
    }
    return 0;
}
#define MAX_PARAMS 4
#define PARAM_MAX 512
_Static_assert(N_ROUTES < SRV_MAX_ROUTES, "the metrics hold every route and \"other\"");

int am__srv_route_count(void) { return N_ROUTES; }

const char *am__srv_route_name(int i)
{
    return i < 0 || i >= N_ROUTES ? "other" : routes[i].name;
}

/* The raw segment seg[0..len) percent-decoded into out (PARAM_MAX):
 * 0, or 1 for a malformed escape, a NUL (%00) or a segment too long. */
static int decode_segment(const char *seg, size_t len, char *out)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = seg[i];
        if (ch == '%') {
            int hi = i + 2 < len ? am__srv_hex(seg[i + 1]) : -1;
            int lo = hi >= 0 ? am__srv_hex(seg[i + 2]) : -1;
            if (lo < 0 || (hi | lo) == 0) return 1;
            ch = (char)(hi * 16 + lo);
            i += 2;
        }
        if (n + 1 >= PARAM_MAX) return 1;
        out[n++] = ch;
    }
    out[n] = '\0';
    return 0;
}

/* The raw (undecoded) path against pattern, segment by segment -- an
 * escaped "/" (%2F) inside a {} segment stays in it: 1 and the {}
 * segments percent-decoded into params (*bad set, and 1, when one does
 * not decode: a malformed escape, %00, too long), or 0 */
static int match(const char *pattern, const char *path, char params[][PARAM_MAX], int *n, int *bad)
{
    *n = 0;
    *bad = 0;
    while (*pattern) {
        if (pattern[0] == '{' && strchr(pattern, '}')) {
            size_t len = strcspn(path, "/");
            if (len == 0 || *n == MAX_PARAMS) return 0;
            if (decode_segment(path, len, params[*n])) *bad = 1;
            (*n)++;
            path += len;
            pattern = strchr(pattern, '}') + 1;
            continue;
        }
        if (*pattern++ != *path++) return 0;
    }
    return *path == '\0';
}

/* The route of (method, path): its index, or -1 with *path_known when
 * another method has it. */
static int find(const char *method, const char *path, char params[][PARAM_MAX], int *n,
                int *path_known, int *bad)
{
    *path_known = 0;
    for (int i = 0; i < N_ROUTES; i++) {
        if (!match(routes[i].pattern, path, params, n, bad)) continue;
        if (strcmp(routes[i].method, method) == 0) return i;
        *path_known = 1;
    }
    return -1;
}

int am__srv_route_find(const char *method, const char *path)
{
    char params[MAX_PARAMS][PARAM_MAX];
    int n, known, bad;
    int i = find(method, path, params, &n, &known, &bad);
    return i < 0 ? N_ROUTES : i;
}

/* ------------------------------------------------------------ engine errors */

/* The field an engine message names: "add: text: invalid UTF-8" -> text,
 * "add: events[2]: at: ..." -> at (the library's names mapped to the
 * API's). */
static const char *engine_field(const char *msg)
{
    static const struct {
        const char *lib, *api;
    } names[] = {
        {"occurred_at", "at"}, {"text", "text"},     {"user", "user"},     {"agent", "agent"},
        {"session", "session"}, {"task", "task"},    {"source", "source"}, {"type", "type"},
        {"domain", "domain"},  {"intent", "intent"}, {"id", "id"},         {"as_of", "as_of"},
        {"query", "query"},    {"channel", "channel"}, {"external_id", "external_id"},
        {"memory", "id"},
        {"kind", "kind"},      {"key", "key"},       {"scope", "scope"},
        {"expires_at", "expires_at"},
    };
    const char *p = msg;
    for (int hop = 0; hop < 3 && p; hop++) {
        const char *colon = strstr(p, ": ");
        if (!colon) break;
        p = colon + 2;
        size_t len = strcspn(p, ": \"");
        /* metadata.KEY, filters.X: the object named */
        if (strncmp(p, "metadata", 8) == 0 && (p[8] == '.' || p[8] == ':')) return "metadata";
        if (strncmp(p, "filters.", 8) == 0) return "filters";
        for (size_t i = 0; i < sizeof names / sizeof *names; i++)
            if (strlen(names[i].lib) == len && strncmp(p, names[i].lib, len) == 0)
                return names[i].api;
    }
    return NULL;
}

void am__srv_engine_error(srv_ctx *c, int rc) { am__srv_engine_error_msg(c, rc, am_errmsg(c->db)); }

void am__srv_engine_error_msg(srv_ctx *c, int rc, const char *msg)
{
    switch (rc) {
    case AM_INVALID: am__srv_error(c->out, "invalid_request", engine_field(msg), "%s", msg); break;
    case AM_TOOBIG: am__srv_error(c->out, "invalid_request", engine_field(msg), "%s", msg); break;
    case AM_NOTFOUND: am__srv_error(c->out, "not_found", NULL, "%s", msg); break;
    case AM_DENIED: am__srv_error(c->out, "denied", NULL, "%s", msg); break;
    case AM_BUSY: am__srv_error(c->out, "busy", NULL, "%s", msg); break;
    case AM_IO: { /* the store unreachable (a PostgreSQL restart): try again later; the
                   * driver's words (hosts, ports) go to the log, not to a tenant */
        char m[256];
        health_log("store", msg);
        snprintf(m, sizeof m, "the store (%s) is unavailable: try again later",
                 am_store_backend(c->db));
        am__srv_error_store(c->out, "unavailable", NULL, am_store_backend(c->db), m);
        break;
    }
    default: am__srv_error(c->out, "internal", NULL, "%s (%s)", msg, am_errstr(rc)); break;
    }
}

void am__srv_no_handle(am_srv *s, srv_reply *out, const char *path)
{
    const char *url = s->cfg && s->cfg->path ? s->cfg->path : "";
    const char *store = strncmp(url, "postgres://", 11) == 0 || strncmp(url, "postgresql://", 13) == 0
                            ? "postgres"
                            : "sqlite";
    char why[sizeof s->open_err];
    pthread_mutex_lock(&s->pool_mu);
    int rc = s->open_rc;
    memcpy(why, s->open_err, sizeof why);
    pthread_mutex_unlock(&s->pool_mu);
    why[sizeof why - 1] = 0;
    if (rc != AM_IO) { /* the handles all taken and no more may be opened, out of memory, ... */
        if (why[0]) health_log("store", why);
        am__srv_error(out, "busy", NULL, "no store handle could be opened now: try again later");
        return;
    }
    if (path && strcmp(path, "/healthz") == 0) {
        srv_ctx c;
        memset(&c, 0, sizeof c);
        c.srv = s;
        c.out = out;
        healthz_reply(&c, store, 0, why);
        return;
    }
    char m[128];
    health_log("store", why);
    snprintf(m, sizeof m, "the store (%s) is unavailable: try again later", store);
    am__srv_error_store(out, "unavailable", NULL, store, m);
}

/* ------------------------------------------------------------ auth */

int am__srv_user(srv_ctx *c, const char *asked)
{
    if (asked && strcmp(asked, c->tok.user_id) != 0 && !c->tok.admin) {
        /* the fuse: audited (and, at merge, a security.denied event), no data */
        int rc = am_security_denied(c->db, c->tok.user_id, asked, c->route_name);
        if (rc && rc != AM_INVALID)
            fprintf(stderr, "agentmem serve: audit of a denied request failed: %s\n",
                    am_errmsg(c->db));
        am__srv_error(c->out, "forbidden", "user",
                      "this token acts for its own user only; it may not name another");
        return 1;
    }
    if (c->tok.admin && !asked) {
        am__srv_error(c->out, "invalid_request", "user",
                      "user: an admin token must name the user (\"user\" in the body or ?user=)");
        return 1;
    }
    snprintf(c->user, sizeof c->user, "%s", asked ? asked : c->tok.user_id);
    return 0;
}

/* "Bearer TOKEN" -> TOKEN (case-insensitive scheme, blanks around) */
static const char *bearer(const char *h)
{
    if (!h) return NULL;
    while (*h == ' ' || *h == '\t') h++;
    if (strncasecmp(h, "Bearer", 6) != 0 || (h[6] != ' ' && h[6] != '\t')) return NULL;
    h += 6;
    while (*h == ' ' || *h == '\t') h++;
    return *h ? h : NULL;
}

static int authenticate(srv_ctx *c)
{
    const char *t = bearer(c->rq->authorization);
    char token[AM_TOKEN_LEN + 1];
    size_t n = t ? strcspn(t, " \t") : 0;
    if (!t || n > AM_TOKEN_LEN || t[n + strspn(t + n, " \t")] != '\0') {
        am__srv_error(c->out, "unauthorized", NULL,
                      t ? "the bearer token is not an agentmem token"
                        : "an Authorization: Bearer <token> header is required");
        return 1;
    }
    memcpy(token, t, n);
    token[n] = '\0';
    int rc = am_token_verify(c->db, token, &c->tok);
    memset(token, 0, sizeof token);
    if (rc == AM_DENIED) {
        am__srv_error(c->out, "unauthorized", NULL,
                      c->tok.revoked_at != AM_TIME_NONE && c->tok.id[0]
                          ? "the token was revoked"
                          : "unknown token");
        return 1;
    }
    if (rc) {
        am__srv_engine_error(c, rc);
        return 1;
    }
    return 0;
}

static int parse_body(srv_ctx *c)
{
    const srv_request *rq = c->rq;
    if (!rq->body || rq->body_len == 0) {
        c->body = json_object(); /* no body: {} (POST /v1/restore) */
        if (!c->body) am__srv_error(c->out, "internal", NULL, "out of memory");
        return c->body == NULL;
    }
    if (memchr(rq->body, 0, rq->body_len)) {
        am__srv_error(c->out, "invalid_request", NULL, "the body contains a NUL byte");
        return 1;
    }
    json_error_t je;
    /* JSON_ALLOW_NUL: a string with a \u0000 escape parses, and the field checks
     * (tools/common/fields.c) refuse it naming its field */
    c->body = json_loadb(rq->body, rq->body_len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
    if (!c->body) {
        am__srv_error(c->out, "invalid_request", NULL, "the body is not JSON: %s (line %d, column %d)",
                      je.text, je.line, je.column);
        return 1;
    }
    if (!json_is_object(c->body)) {
        am__srv_error(c->out, "invalid_request", NULL, "the body must be a JSON object, not %s",
                      am_json_type_name(c->body));
        return 1;
    }
    return 0;
}

void am__srv_handle(am_srv *s, am_db *db, const srv_request *rq, srv_reply *out)
{
    memset(out, 0, sizeof *out);
    char params[MAX_PARAMS][PARAM_MAX];
    const char *pv[MAX_PARAMS + 1] = {0};
    int n_params, path_known, bad;
    int r = find(rq->method, rq->path, params, &n_params, &path_known, &bad);
    out->route = r < 0 ? N_ROUTES : r;
    if (r < 0) {
        if (path_known)
            am__srv_error(out, "method_not_allowed", NULL, "%s is not allowed on this path",
                          rq->method);
        else am__srv_error(out, "not_found", NULL, "no such route");
        return;
    }
    if (bad) {
        /* the {name} of the pattern names the field */
        const char *open = strchr(routes[r].pattern, '{');
        char field[64];
        snprintf(field, sizeof field, "%.*s", (int)(strcspn(open + 1, "}")), open + 1);
        am__srv_error(out, "invalid_request", field,
                      "%s: a path segment with a malformed %%-escape, a NUL (%%00), or over %d"
                      " bytes", field, PARAM_MAX - 1);
        return;
    }
    if (params_check(r, rq, out)) return;
    for (int i = 0; i < n_params; i++) pv[i] = params[i];
    srv_ctx c;
    memset(&c, 0, sizeof c);
    c.srv = s;
    c.db = db;
    c.rq = rq;
    c.out = out;
    c.params = pv;
    c.route_name = am__srv_route_name(r);
    if (rq->body_too_large) {
        am__srv_error(out, "payload_too_large", NULL, "the body is over %ld bytes",
                      s->opts.max_body);
        return;
    }
    if (!(routes[r].flags & ROUTE_PUBLIC) && authenticate(&c)) return;
    if (strcmp(rq->method, "POST") == 0 || strcmp(rq->method, "PUT") == 0 ||
        strcmp(rq->method, "PATCH") == 0) {
        if (parse_body(&c)) {
            json_decref(c.body);
            return;
        }
    }
    routes[r].fn(&c);
    if (out->stream) /* its caps are the token's as well as the user's (limits.c) */
        snprintf(out->stream_token, sizeof out->stream_token, "%s", c.tok.id);
    json_decref(c.body);
    if (!out->body && !out->stream && !out->pending) am__srv_error(out, "internal", NULL, "no reply was made");
}
