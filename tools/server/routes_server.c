/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_server.c -- the server's own routes: GET /healthz (public),
 * GET /metrics, GET /openapi.json (public), and the /healthz answer when
 * no store handle could be had (am__srv_no_handle).
 *
 * /healthz: the store is asked (a round trip to PostgreSQL, which makes a
 * lost connection again): unreachable is 503 with "status": "unavailable"
 * and why, so a load balancer stops sending requests here.  Besides
 * {"status","store","version","store_reachable","store_error"} (a
 * contract): the bus between instances, "cache" {"url_set", "state"
 * up|down|off, "error" when down}, "degraded" (Redis configured and down:
 * served from the store alone, still 200), "bus" {"instance", "notes_in",
 * "notes_out", "webhooks": leader|standby|paused|local|off}, and
 * "cache"."recall_cache" the library's own connection (am_cache_state:
 * none|up|down; down also sets "degraded") -- never the URL (its
 * password).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_int.h"

/* What /healthz says of a part that is down: "unreachable" to anyone
 * (the route is public, and libpq's or Redis's own words name hosts and
 * ports), the part's own words to an admin token's holder; those words
 * also go to the log (am__srv_health_log). */
static const char HEALTH_DOWN[] = "unreachable";

/* 1 when the request carries a live admin token (no reply is made when it
 * does not: /healthz answers anyone) */
static int health_admin(srv_ctx *c)
{
    if (!c->db || !c->rq || !c->rq->authorization) return 0;
    srv_reply scratch;
    memset(&scratch, 0, sizeof scratch);
    srv_reply *keep = c->out;
    c->out = &scratch;
    int admin = am__srv_authenticate(c) == 0 && c->tok.admin;
    c->out = keep;
    free(scratch.body);
    memset(&c->tok, 0, sizeof c->tok);
    return admin;
}

/* /healthz's document; also when no handle could be opened (c->db NULL) */
static void healthz_reply(srv_ctx *c, const char *store, int reachable, const char *store_error)
{
    int admin = health_admin(c);
    if (store_error) am__srv_health_log("store", store_error);
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
        if (!up) am__srv_health_log("cache", err);
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

void am__srv_h_healthz(srv_ctx *c)
{
    am_store_health h = {1, 0, 0};
    int rc = c->db ? am_store_check(c->db, 1, &h) : AM_OK;
    healthz_reply(c, c->db ? am_store_backend(c->db) : "sqlite", h.reachable,
                  rc && !h.reachable ? am_errmsg(c->db) : NULL);
}

void am__srv_no_handle(am_srv *s, srv_reply *out, const char *path)
{
    const char *store;
    char why[sizeof s->open_err];
    if (path && strcmp(path, "/healthz") == 0 &&
        am__srv_store_unreachable(s, &store, why, sizeof why)) {
        srv_ctx c;
        memset(&c, 0, sizeof c);
        c.srv = s;
        c.out = out;
        healthz_reply(&c, store, 0, why);
        return;
    }
    am__srv_store_refused(s, out);
}

void am__srv_h_metrics(srv_ctx *c)
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

void am__srv_h_openapi(srv_ctx *c)
{
    am__srv_text(c->out, 200, "application/json", am__srv_openapi, am__srv_openapi_len);
}
