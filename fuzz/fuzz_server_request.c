/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_server_request.c -- the HTTP server's router and JSON bodies
 * (tools/server/router.c, route_table.c, routes*.c) without a socket:
 * any request gives a reply with a known status and a JSON body (an
 * error object with a code for every status >= 400), never a crash or a
 * leak; and a request made with user A's token never gets a 200 whose
 * body holds B's text (the 403 fuse), whatever it names.
 * Input layout: "METHOD PATH[?QUERY]\n" TOKEN "\n" BODY, TOKEN "A" (user
 * A's), "D" (an admin's) or taken as it is.  Query: k=v&k=v, undecoded.
 */
#define _GNU_SOURCE /* memmem */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_int.h"
#include "router.h"
#include "writer.h"

static am_time fixed_clock(void *ctx)
{
    (void)ctx;
    return 1772000000000LL;
}

typedef struct fuzz_query {
    char *q;
} fuzz_query;

/* k=v&k=v: the value of key (in place: the string is split once) */
static const char *query_of(void *ctx, const char *key)
{
    const char *p = ((fuzz_query *)ctx)->q;
    size_t kl = strlen(key);
    while (p && *p) {
        const char *amp = strchr(p, '&');
        size_t len = amp ? (size_t)(amp - p) : strlen(p);
        if (len > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
            static char v[1024]; /* one value at a time is asked for */
            snprintf(v, sizeof v, "%.*s", (int)(len - kl - 1), p + kl + 1);
            return v;
        }
        p = amp ? amp + 1 : NULL;
    }
    return NULL;
}

static am_srv srv;
static am_config cfg;
static am_db *db;
static char *tok_a, *tok_admin;

static int setup(void)
{
    am_config_init(&cfg);
    cfg.path = ":memory:";
    cfg.clock = fixed_clock;
    if (am_open(&cfg, &db, NULL) != AM_OK) return 1;
    am_token_spec a = {"alice", "bot", NULL, 0}, d = {"ops", NULL, NULL, 1};
    if (am_token_create(db, &a, &tok_a, NULL) || am_token_create(db, &d, &tok_admin, NULL)) return 1;
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = "用户乙";
    ev.text = "乙的秘密 secret-of-b-4711";
    if (am_add_event(db, &ev, NULL)) return 1;
    srv.cfg = &cfg;
    am_server_opts_init(&srv.opts);
    srv.routes = &am__srv_routes;
    am__srv_metrics_init(&srv.metrics, srv.routes);
    am__srv_init_locks(&srv);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!db && setup()) abort();
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *line = buf, *nl = memchr(buf, '\n', size);
    char *tokline = nl ? nl + 1 : buf + size;
    if (nl) *nl = '\0';
    char *nl2 = nl ? memchr(tokline, '\n', size - (size_t)(tokline - buf)) : NULL;
    char *body = nl2 ? nl2 + 1 : buf + size;
    if (nl2) *nl2 = '\0';
    char *sp = strchr(line, ' ');
    const char *method = line, *path = sp ? sp + 1 : "/";
    if (sp) *sp = '\0';
    char *qm = strchr((char *)path, '?');
    fuzz_query fq = {qm ? qm + 1 : NULL};
    if (qm) *qm = '\0';
    /* The fuse's marker is B's alone.  A may store any text of its own, and
     * libFuzzer learns the marker from the check below, so an input that
     * carries it would make A's own memory look like B's; an admin's write
     * may move B's history (a link with merge) by design.  Neither says
     * anything about the fuse: not run. */
    if (memmem(data, size, "secret-of-b-4711", 16) ||
        (strcmp(tokline, "D") == 0 && strcmp(method, "GET") != 0)) {
        free(buf);
        return 0;
    }
    char auth[128];
    snprintf(auth, sizeof auth, "Bearer %s",
             strcmp(tokline, "A") == 0 ? tok_a : strcmp(tokline, "D") == 0 ? tok_admin : tokline);
    size_t body_len = size - (size_t)(body - buf);
    srv_request rq = {method, path, query_of, &fq, auth, body_len ? body : NULL, body_len, 0, NULL, NULL};
    srv_reply rp;
    am__srv_handle(&srv, db, &rq, &rp);
    if (rp.status < 200 || rp.status > 599) abort();
    if (!rp.stream) {
        if (!rp.body) abort();
        if (rp.content_type && strcmp(rp.content_type, "application/json") == 0) {
            json_error_t je;
            json_t *v = json_loadb(rp.body, rp.body_len, JSON_DECODE_ANY, &je);
            if (!v) abort();
            if (rp.status >= 400 &&
                !json_is_string(json_object_get(json_object_get(v, "error"), "code")))
                abort();
            json_decref(v);
        }
        /* the fuse: A's token (or a token-less request) never reads B */
        if (rp.status == 200 && strcmp(tokline, "D") != 0 && strstr(rp.body, "secret-of-b-4711"))
            abort();
    }
    free(rp.body);
    free(buf);
    return 0;
}
