/* SPDX-License-Identifier: Apache-2.0 */
/*
 * redis.c -- the cache over Redis (hiredis, synchronous): the URL, one
 * connection with a connect and a command timeout, reconnect on the next
 * command after a failure (at most every AM__CACHE_RETRY_MS, measured on
 * the monotonic clock: an injected engine clock may stand still), and
 * replies copied out of hiredis into the caller's arena, so nothing of
 * hiredis leaves this file.
 *
 * The password (and an ACL user) is kept for AUTH after every reconnect,
 * wiped at close and never written into a message: a message names the
 * host, port and database only.  hiredis allocates with libc (its own
 * buffers), everything we keep goes through the handle's allocator.
 */
#include <errno.h>
#include <hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/cache.h"

struct am__cache {
    am__allocator a;
    am__cache_url u;
    char where[300];
    redisContext *rc;
    int up;            /* the last command or connect succeeded */
    int was_up;        /* for logging a transition once */
    int64_t next_try;  /* monotonic ms: no reconnect before */
    char err[256];
    void (*log)(void *ctx, int level, const char *msg);
    void *log_ctx;
};

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void say(am__cache *c, int level, const char *fmt, const char *why)
{
    if (!c->log) return;
    char msg[600];
    snprintf(msg, sizeof msg, fmt, c->where, why);
    c->log(c->log_ctx, level, msg);
}

/* ------------------------------------------------------------ the URL */

static int decimal(const char *p, size_t n, long long max, long long *v)
{
    if (n == 0 || n > 12) return 0;
    long long x = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return 0;
        x = x * 10 + (p[i] - '0');
    }
    if (x > max) return 0;
    *v = x;
    return 1;
}

static int parse_query(am__cache_url *c, const char *q, char *err, size_t cap)
{
    while (*q) {
        const char *amp = strchr(q, '&');
        size_t n = amp ? (size_t)(amp - q) : strlen(q);
        const char *eq = memchr(q, '=', n);
        long long v = 0;
        size_t kn = eq ? (size_t)(eq - q) : n;
        int ok = eq && decimal(eq + 1, n - kn - 1, 86400000LL * 30, &v);
        if (ok && kn == 6 && memcmp(q, "ttl_ms", 6) == 0 && v > 0) c->ttl_ms = v;
        else if (ok && kn == 10 && memcmp(q, "timeout_ms", 10) == 0 && v > 0 && v <= 60000)
            c->timeout_ms = v;
        else {
            snprintf(err, cap, "cache: URL parameter \"%.*s\" is not ttl_ms=N or timeout_ms=N",
                     (int)(kn > 32 ? 32 : kn), q);
            return AM_INVALID;
        }
        q += n + (amp ? 1 : 0);
    }
    return AM_OK;
}


/* A URL's user or password as meant: %XX escapes decoded in place (RFC
 * 3986: a password may hold ':', '@' or any UTF-8 written so).  1 for a
 * malformed escape or %00 (a NUL cannot reach AUTH).  The bytes freed by
 * the decoding are zeroed, so a wipe up to the NUL wipes all of it. */
static int pct_decode(char *v)
{
    char *w = v;
    const char *r = v;
    for (; *r; r++) {
        if (*r != '%') { *w++ = *r; continue; }
        int hi = am__hexval(r[1]), lo = hi < 0 ? -1 : am__hexval(r[2]);
        if (hi < 0 || lo < 0 || (hi | lo) == 0) return 1;
        *w++ = (char)(hi << 4 | lo);
        r += 2;
    }
    while (w < r) *w++ = '\0';
    return 0;
}

static int parse_url(am__cache_url *c, const am__allocator *a, const char *url, char *err, size_t cap)
{
    static const char scheme[] = "redis://";
    if (strncmp(url, scheme, sizeof scheme - 1) != 0) {
        /* name the scheme only: the rest may hold a password */
        const char *colon = strstr(url, "://");
        size_t n = colon ? (size_t)(colon - url) : 0;
        for (size_t i = 0; i < n; i++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-", url[i]))
                n = 0;
        if (n && n <= 16)
            snprintf(err, cap, "cache: scheme \"%.*s\" is not supported: the cache is redis://HOST:PORT[/DB]",
                     (int)n, url);
        else snprintf(err, cap, "cache: not a URL: the cache is redis://[:PASSWORD@]HOST:PORT[/DB]");
        return AM_INVALID;
    }
    const char *p = url + sizeof scheme - 1;
    const char *end = p + strcspn(p, "/?");
    const char *at = NULL;
    for (const char *q = p; q < end; q++)
        if (*q == '@') at = q; /* the last @: a password may hold one */
    if (at) {
        const char *colon = memchr(p, ':', (size_t)(at - p));
        if (!colon) {
            snprintf(err, cap, "cache: the part before @ must be :PASSWORD or USER:PASSWORD");
            return AM_INVALID;
        }
        if (colon > p && !(c->user = am__strndup(a, p, (size_t)(colon - p)))) return AM_NOMEM;
        if (!(c->pass = am__strndup(a, colon + 1, (size_t)(at - colon - 1)))) return AM_NOMEM;
        if ((c->user && pct_decode(c->user)) || pct_decode(c->pass)) {
            snprintf(err, cap, "cache: the user or password holds a bad %%-escape (%%XX, not %%00)");
            return AM_INVALID;
        }
        p = at + 1;
    }
    const char *hend = end, *port = NULL;
    if (*p == '[') { /* [IPv6] */
        const char *rb = memchr(p, ']', (size_t)(end - p));
        if (!rb) {
            snprintf(err, cap, "cache: host: unclosed [");
            return AM_INVALID;
        }
        if (rb + 1 < end && rb[1] != ':') {
            snprintf(err, cap, "cache: host: junk after ]");
            return AM_INVALID;
        }
        port = rb + 1 < end ? rb + 2 : NULL;
        hend = rb;
        p++;
    } else {
        const char *colon = memchr(p, ':', (size_t)(end - p));
        if (colon) { hend = colon; port = colon + 1; }
    }
    size_t hn = (size_t)(hend - p);
    if (hn == 0 || hn >= sizeof c->host) {
        snprintf(err, cap, "cache: host is %s", hn ? "too long" : "missing");
        return AM_INVALID;
    }
    for (size_t i = 0; i < hn; i++)
        if ((unsigned char)p[i] <= ' ' || (unsigned char)p[i] >= 0x7f || strchr("/?#@[]", p[i])) {
            snprintf(err, cap, "cache: host: character %zu is not allowed in a host name", i + 1);
            return AM_INVALID;
        }
    memcpy(c->host, p, hn);
    c->host[hn] = 0;
    long long v = 6379;
    if (port && !decimal(port, (size_t)(end - port), 65535, &v)) {
        snprintf(err, cap, "cache: port must be a number 1-65535");
        return AM_INVALID;
    }
    if (v == 0) {
        snprintf(err, cap, "cache: port must be a number 1-65535");
        return AM_INVALID;
    }
    c->port = (int)v;
    p = end;
    if (*p == '/') {
        size_t n = strcspn(p + 1, "?");
        v = 0;
        if (n && !decimal(p + 1, n, AM__CACHE_DB_MAX, &v)) {
            snprintf(err, cap, "cache: database must be a number (redis://HOST:PORT/DB)");
            return AM_INVALID;
        }
        c->db = (int)v;
        p += 1 + n;
    }
    if (*p == '?') return parse_query(c, p + 1, err, cap);
    return AM_OK;
}

int am__cache_url_parse(const char *url, const am__allocator *a, am__cache_url *u, char *err, size_t cap)
{
    memset(u, 0, sizeof *u);
    u->ttl_ms = AM__CACHE_RECALL_TTL_MS;
    u->timeout_ms = AM__CACHE_TIMEOUT_MS;
    if (cap) err[0] = '\0';
    int rc = url ? parse_url(u, a, url, err, cap) : AM_INVALID;
    if (rc == AM_NOMEM) snprintf(err, cap, "cache: out of memory");
    else if (!url) snprintf(err, cap, "cache: no URL");
    return rc;
}

static void wipe(char *p)
{
    if (!p) return;
    volatile char *v = p;
    while (*v) *v++ = 0;
}

void am__cache_url_clear(am__cache_url *u, const am__allocator *a)
{
    wipe(u->pass);
    am__free(a, u->pass);
    am__free(a, u->user);
    u->pass = u->user = NULL;
}

/* ------------------------------------------------------------ the connection */

static void drop(am__cache *c, const char *why)
{
    if (c->rc) redisFree(c->rc);
    c->rc = NULL;
    snprintf(c->err, sizeof c->err, "%s", why);
    c->up = 0;
    c->next_try = mono_ms() + AM__CACHE_RETRY_MS;
    if (c->was_up) say(c, AM_LOG_WARN, "cache: redis %s is down (%s): serving from the store", why);
    c->was_up = 0;
}

/* One command on the live connection: the reply (hiredis's), or NULL with
 * the connection dropped. */
static redisReply *raw(am__cache *c, int argc, const char **argv, const size_t *lens)
{
    redisReply *r = redisCommandArgv(c->rc, argc, argv, lens);
    if (!r) {
        char why[200];
        snprintf(why, sizeof why, "%s", c->rc->err ? c->rc->errstr : "no reply");
        if (c->rc->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK))
            snprintf(why, sizeof why, "no reply within %lld ms", (long long)c->u.timeout_ms);
        drop(c, why);
    }
    return r;
}

/* One step of the login: argv sent, its reply checked.  AM_OK; AM_IO with
 * the connection dropped (no reply, or Redis refused: "AUTH refused:
 * WRONGPASS ..." -- Redis's words, which never hold the password; left out
 * if they did). */
static int login_step(am__cache *c, int argc, const char **argv)
{
    redisReply *r = raw(c, argc, argv, NULL);
    if (!r) return AM_IO;
    if (r->type != REDIS_REPLY_ERROR) {
        freeReplyObject(r);
        return AM_OK;
    }
    char why[300];
    int shows = c->u.pass && c->u.pass[0] && r->str && strstr(r->str, c->u.pass);
    snprintf(why, sizeof why, "%s refused: %.200s", argv[0], shows || !r->str ? "(no reason given)" : r->str);
    freeReplyObject(r);
    drop(c, why);
    return AM_IO;
}

/* Connect and log in: AUTH [USER] PASSWORD when the URL has a password,
 * SELECT DB unless it is 0, and a PING when neither was sent, so a Redis
 * that wants a password the URL lacks is down (NOAUTH) here rather than
 * "up" with every command refused. */
static int connect_now(am__cache *c)
{
    struct timeval tv = {(time_t)(c->u.timeout_ms / 1000), (suseconds_t)(c->u.timeout_ms % 1000) * 1000};
    c->rc = redisConnectWithTimeout(c->u.host, c->u.port, tv);
    if (!c->rc || c->rc->err) {
        char why[200];
        snprintf(why, sizeof why, "cannot connect: %s", c->rc ? c->rc->errstr : "out of memory");
        drop(c, why);
        return AM_IO;
    }
    if (redisSetTimeout(c->rc, tv) != REDIS_OK) {
        drop(c, "cannot set the command timeout");
        return AM_IO;
    }
    int rc = AM_OK;
    if (c->u.pass) {
        const char *av[3] = {"AUTH", c->u.user ? c->u.user : c->u.pass, c->u.pass};
        rc = login_step(c, c->u.user ? 3 : 2, av);
    }
    if (!rc && c->u.db) {
        char db[16];
        snprintf(db, sizeof db, "%d", c->u.db);
        const char *av[2] = {"SELECT", db};
        rc = login_step(c, 2, av);
    }
    if (!rc && !c->u.pass && !c->u.db) {
        const char *av[1] = {"PING"};
        rc = login_step(c, 1, av);
    }
    if (rc) return rc;
    c->up = 1;
    c->err[0] = 0;
    if (!c->was_up) say(c, AM_LOG_INFO, "cache: redis %s is up%s", "");
    c->was_up = 1;
    return AM_OK;
}

/* A live connection, or AM_IO at once while the retry interval runs. */
static int live(am__cache *c)
{
    if (c->rc) return AM_OK;
    if (mono_ms() < c->next_try) return AM_IO;
    return connect_now(c);
}

int am__cache_open(const char *url, const am__allocator *a,
                   void (*log)(void *ctx, int level, const char *msg), void *log_ctx,
                   am__cache **out, char *err, size_t cap)
{
    *out = NULL;
    am__cache *c = am__calloc(a, sizeof *c);
    if (!c) return AM_NOMEM;
    c->a = a ? *a : (am__allocator){0};
    int rc = am__cache_url_parse(url, &c->a, &c->u, err, cap);
    if (rc) {
        am__cache_close(c);
        return rc;
    }
    int v6 = strchr(c->u.host, ':') != NULL;
    snprintf(c->where, sizeof c->where, "%s%s%s:%d/%d", v6 ? "[" : "", c->u.host, v6 ? "]" : "",
             c->u.port, c->u.db);
    c->log = log;
    c->log_ctx = log_ctx;
    c->was_up = 1; /* a first failure is said once */
    connect_now(c);
    *out = c;
    return AM_OK;
}

void am__cache_close(am__cache *c)
{
    if (!c) return;
    if (c->rc) redisFree(c->rc);
    am__cache_url_clear(&c->u, &c->a);
    am__allocator a = c->a;
    am__free(&a, c);
}

const char *am__cache_state(const am__cache *c, const char **err)
{
    if (err) *err = c->err;
    return c->up ? "up" : "down";
}

int64_t am__cache_recall_ttl(const am__cache *c) { return c->u.ttl_ms; }
const char *am__cache_where(const am__cache *c) { return c->where; }

/* ------------------------------------------------------------ commands */

static int copy_reply(am__arena *ar, const redisReply *r, am__cache_reply *o)
{
    memset(o, 0, sizeof *o);
    switch (r->type) {
    case REDIS_REPLY_INTEGER:
        o->kind = AM__CR_INT;
        o->i = r->integer;
        return AM_OK;
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
        o->kind = AM__CR_STR;
        o->len = r->len;
        return (o->s = am__arena_strndup(ar, r->str, r->len)) ? AM_OK : AM_NOMEM;
    case REDIS_REPLY_ARRAY:
        o->kind = AM__CR_ARR;
        o->n = r->elements;
        if (!r->elements) return AM_OK;
        if (!(o->el = am__arena_alloc(ar, r->elements * sizeof *o->el))) return AM_NOMEM;
        for (size_t i = 0; i < r->elements; i++) {
            int rc = copy_reply(ar, r->element[i], &o->el[i]);
            if (rc) return rc;
        }
        return AM_OK;
    default:
        o->kind = AM__CR_NIL;
        return AM_OK;
    }
}

int am__cache_cmd(am__cache *c, am__arena *ar, am__cache_reply **out, int argc,
                  const char *const *argv, const size_t *lens)
{
    if (out) *out = NULL;
    int rc = live(c);
    if (rc) return rc;
    redisReply *r = raw(c, argc, (const char **)argv, lens);
    if (!r) return AM_IO;
    if (r->type == REDIS_REPLY_ERROR) {
        snprintf(c->err, sizeof c->err, "%s: %.200s", argv[0], r->str);
        freeReplyObject(r);
        return AM_BACKEND;
    }
    rc = AM_OK;
    if (out) {
        am__cache_reply *o = am__arena_alloc(ar, sizeof *o);
        rc = o ? copy_reply(ar, r, o) : AM_NOMEM;
        if (!rc) *out = o;
    }
    freeReplyObject(r);
    return rc;
}

int am__cache_purge(am__cache *c, const char *pattern, long *n)
{
    if (n) *n = 0;
    char cursor[32] = "0";
    am__arena ar;
    am__arena_init(&ar, &c->a);
    int rc;
    do {
        const char *av[6] = {"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"};
        am__cache_reply *r;
        if ((rc = am__cache_cmd(c, &ar, &r, 6, av, NULL))) break;
        if (r->kind != AM__CR_ARR || r->n != 2 || r->el[0].kind != AM__CR_STR ||
            r->el[1].kind != AM__CR_ARR || r->el[0].len >= sizeof cursor) {
            snprintf(c->err, sizeof c->err, "SCAN: unexpected reply");
            rc = AM_BACKEND;
            break;
        }
        memcpy(cursor, r->el[0].s, r->el[0].len + 1);
        const am__cache_reply *keys = &r->el[1];
        if (keys->n) {
            const char **kv = am__arena_alloc(&ar, (keys->n + 1) * sizeof *kv);
            size_t *kl = am__arena_alloc(&ar, (keys->n + 1) * sizeof *kl);
            if (!kv || !kl) { rc = AM_NOMEM; break; }
            kv[0] = "DEL";
            kl[0] = 3;
            for (size_t i = 0; i < keys->n; i++) {
                kv[i + 1] = keys->el[i].s ? keys->el[i].s : "";
                kl[i + 1] = keys->el[i].len;
            }
            am__cache_reply *d;
            if ((rc = am__cache_cmd(c, &ar, &d, (int)keys->n + 1, kv, kl))) break;
            if (n && d->kind == AM__CR_INT) *n += (long)d->i;
        }
        am__arena_free(&ar);
        am__arena_init(&ar, &c->a);
    } while (strcmp(cursor, "0") != 0);
    am__arena_free(&ar);
    return rc;
}
