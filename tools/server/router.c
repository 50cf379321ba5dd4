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
 * The table is the one the router is given (am_srv.routes: the server and
 * the fuzz target give it route_table.c's): a pattern's "{name}" matches
 * one non-empty segment, handed to the handler in params; SRV_ROUTE_PUBLIC
 * routes need no token.  The token check, the user and the engine errors
 * are handler.c's, the server's own routes routes_server.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "srv_int.h"
#include "router.h"

/* 1 when names (srv_route.params) takes key */
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
static int params_check(const srv_route *r, const srv_request *rq, srv_reply *out)
{
    const char *names = r->params;
    if (!rq->query_key || !names) return 0;
    const char *key;
    for (int i = 0; (key = rq->query_key(rq->query_ctx, i)); i++) {
        if (param_taken(names, key)) continue;
        char shown[65];
        size_t n = 0;
        for (size_t k = 0; key[k] && n + 1 < sizeof shown; k++)
            shown[n++] = key[k] >= 0x20 && key[k] < 0x7f ? key[k] : '?';
        shown[n] = '\0';
        am__srv_error(out, "invalid_request", shown,
                      "unknown query parameter \"%s\" (%s takes %s)", shown, r->name,
                      *names ? names : "none");
        return 1;
    }
    return 0;
}
#define MAX_PARAMS 4
#define PARAM_MAX 512
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
static int find(const srv_route_table *t, const char *method, const char *path,
                char params[][PARAM_MAX], int *n, int *path_known, int *bad)
{
    *path_known = 0;
    for (int i = 0; i < t->n; i++) {
        if (!match(t->v[i].pattern, path, params, n, bad)) continue;
        if (strcmp(t->v[i].method, method) == 0) return i;
        *path_known = 1;
    }
    return -1;
}

int am__srv_route_find(const am_srv *s, const char *method, const char *path)
{
    char params[MAX_PARAMS][PARAM_MAX];
    int n, known, bad;
    int i = find(s->routes, method, path, params, &n, &known, &bad);
    return i < 0 ? s->routes->n : i;
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
    const srv_route_table *t = s->routes;
    int r = find(t, rq->method, rq->path, params, &n_params, &path_known, &bad);
    out->route = r < 0 ? t->n : r;
    if (r < 0) {
        if (path_known)
            am__srv_error(out, "method_not_allowed", NULL, "%s is not allowed on this path",
                          rq->method);
        else am__srv_error(out, "not_found", NULL, "no such route");
        return;
    }
    if (bad) {
        /* the {name} of the pattern names the field */
        const char *open = strchr(t->v[r].pattern, '{');
        char field[64];
        snprintf(field, sizeof field, "%.*s", (int)(strcspn(open + 1, "}")), open + 1);
        am__srv_error(out, "invalid_request", field,
                      "%s: a path segment with a malformed %%-escape, a NUL (%%00), or over %d"
                      " bytes", field, PARAM_MAX - 1);
        return;
    }
    if (params_check(&t->v[r], rq, out)) return;
    for (int i = 0; i < n_params; i++) pv[i] = params[i];
    srv_ctx c;
    memset(&c, 0, sizeof c);
    c.srv = s;
    c.db = db;
    c.rq = rq;
    c.out = out;
    c.params = pv;
    c.route_name = t->v[r].name;
    if (rq->body_too_large) {
        am__srv_error(out, "payload_too_large", NULL, "the body is over %ld bytes",
                      s->opts.max_body);
        return;
    }
    if (!(t->v[r].flags & SRV_ROUTE_PUBLIC) && am__srv_authenticate(&c)) return;
    if (strcmp(rq->method, "POST") == 0 || strcmp(rq->method, "PUT") == 0 ||
        strcmp(rq->method, "PATCH") == 0) {
        if (parse_body(&c)) {
            json_decref(c.body);
            return;
        }
    }
    t->v[r].fn(&c);
    if (out->stream) /* its caps are the token's as well as the user's (limits.c) */
        snprintf(out->stream_token, sizeof out->stream_token, "%s", c.tok.id);
    json_decref(c.body);
    if (!out->body && !out->stream && !out->pending) am__srv_error(out, "internal", NULL, "no reply was made");
}
