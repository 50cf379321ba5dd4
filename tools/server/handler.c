/* SPDX-License-Identifier: Apache-2.0 */
/*
 * handler.c -- what the handlers and the router share, below both: the
 * bearer token checked (401), the user a request acts for (the token's;
 * another one only for an admin token -- else 403, audited, and nothing
 * read), an engine error as its HTTP error naming the field, the 503 when
 * no store handle could be had, and the rate-limited log of a part that
 * is down.  The handlers reach the router's work only through srv_ctx.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "srv_int.h"

/* ------------------------------------------------------------ the log of a part down */

/* The words of a part that is down (libpq's, Redis's: hosts and ports)
 * go to the log, at most once per HEALTH_LOG_S per part. */
#define HEALTH_LOG_S 10

void am__srv_health_log(const char *part, const char *why)
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
        am__srv_health_log("store", msg);
        snprintf(m, sizeof m, "the store (%s) is unavailable: try again later",
                 am_store_backend(c->db));
        am__srv_error_store(c->out, "unavailable", NULL, am_store_backend(c->db), m);
        break;
    }
    default: am__srv_error(c->out, "internal", NULL, "%s (%s)", msg, am_errstr(rc)); break;
    }
}

/* ------------------------------------------------------------ no store handle */

int am__srv_store_unreachable(am_srv *s, const char **store, char *why, size_t n)
{
    const char *url = s->cfg && s->cfg->path ? s->cfg->path : "";
    *store = strncmp(url, "postgres://", 11) == 0 || strncmp(url, "postgresql://", 13) == 0
                 ? "postgres"
                 : "sqlite";
    pthread_mutex_lock(&s->pool_mu);
    int rc = s->open_rc;
    snprintf(why, n, "%s", s->open_err);
    pthread_mutex_unlock(&s->pool_mu);
    return rc == AM_IO;
}

void am__srv_store_refused(am_srv *s, srv_reply *out)
{
    const char *store;
    char why[sizeof s->open_err];
    if (!am__srv_store_unreachable(s, &store, why, sizeof why)) {
        /* the handles all taken and no more may be opened, out of memory, ... */
        if (why[0]) am__srv_health_log("store", why);
        am__srv_error(out, "busy", NULL, "no store handle could be opened now: try again later");
        return;
    }
    char m[128];
    am__srv_health_log("store", why);
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

int am__srv_authenticate(srv_ctx *c)
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
