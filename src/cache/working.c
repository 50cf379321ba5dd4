/* SPDX-License-Identifier: Apache-2.0 */
/*
 * working.c -- a session's working memory in Redis (am_working_* when a
 * cache is configured; api/working.c checks the arguments once for both
 * places and keeps the store's fallback).
 *
 * Keys (key names hashed, under dbcache.c's prefix am:{U}:):
 *   am:{U}:w:S:K   the entry, SET with PX ttl: 8 bytes expires_at (the
 *                  engine's clock + ttl, little-endian), the key, NUL, the
 *                  value -- the only place the key's and value's text is
 *   am:{U}:wi:S    the session's index: a hash field K per entry, its TTL
 *                  the longest entry's
 * S, K = hex(SHA-256(session or key))[0..24).  A set runs as one script
 * (the key limit, the entry, the index and its TTL at once); a list reads
 * the index and the entries in two commands and drops index fields whose
 * entry has expired.  Redis expires entries on its own clock; the store
 * compares expires_at with the engine's.
 */
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cache.h"

/* The message of a failure in err; returns rc. */
static int fail(char *err, size_t cap, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t cap, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return rc;
}

static void short_hash(const char *s, char out[25])
{
    unsigned char h[32];
    unsigned len = 0;
    static const char hx[] = "0123456789abcdef";
    if (EVP_Digest(s, strlen(s), h, &len, EVP_sha256(), NULL) != 1) memset(h, 0, sizeof h);
    for (int i = 0; i < 12; i++) {
        out[2 * i] = hx[h[i] >> 4];
        out[2 * i + 1] = hx[h[i] & 15];
    }
    out[24] = 0;
}

typedef struct wkeys {
    char prefix[80];  /* am:{U}:w:S: (entries: + K) */
    char index[96];   /* am:{U}:wi:S */
    char entry[128];  /* am:{U}:w:S:K */
    char field[25];   /* K */
} wkeys;

static int keys_of(const am__dbcache *kc, const char *uid, const char *session, const char *key,
                   wkeys *k)
{
    char up[48], sh[25];
    if (am__dbcache_user_prefix(kc, uid, up)) return AM_ERROR;
    short_hash(session, sh);
    snprintf(k->prefix, sizeof k->prefix, "%.47sw:%s:", up, sh);
    snprintf(k->index, sizeof k->index, "%.47swi:%s", up, sh);
    k->field[0] = k->entry[0] = 0;
    if (key) {
        short_hash(key, k->field);
        snprintf(k->entry, sizeof k->entry, "%.79s%s", k->prefix, k->field);
    }
    return AM_OK;
}

/* The cache's connection, or AM_BACKEND saying it is down. */
static int conn(am__dbcache *kc, const char *what, am__cache **c, char *err, size_t cap)
{
    if ((*c = am__dbcache_conn(kc))) return AM_OK;
    const char *why = "";
    am__dbcache_state(kc, &why);
    return fail(err, cap, AM_BACKEND, "%s: the cache is down (%s)", what, why);
}

static int cache_fail(const am__dbcache *kc, const char *what, int rc, char *err, size_t cap)
{
    if (rc == AM_NOMEM) return fail(err, cap, rc, "%s: out of memory", what);
    const char *why = "";
    am__dbcache_state(kc, &why);
    if (rc == AM_IO) return fail(err, cap, AM_BACKEND, "%s: the cache is down (%s)", what, why);
    return fail(err, cap, AM_BACKEND, "%s: cache: %s", what, why);
}

/* An entry's value: expires_at, key NUL value.  AM_OK or AM_CORRUPT. */
static int entry_parse(const am__cache_reply *r, am__working_row *w)
{
    if (r->kind != AM__CR_STR || r->len < 10) return AM_CORRUPT;
    const unsigned char *p = (const unsigned char *)r->s;
    uint64_t t = 0;
    for (int i = 0; i < 8; i++) t |= (uint64_t)p[i] << (8 * i);
    const char *key = r->s + 8;
    size_t kn = strnlen(key, r->len - 8);
    if (kn == r->len - 8) return AM_CORRUPT;
    w->expires_at = (am_time)t;
    w->key = key;
    w->value = key + kn + 1;
    return strlen(w->value) == r->len - 8 - kn - 1 ? AM_OK : AM_CORRUPT;
}

/* KEYS: entry, index; ARGV: value, ttl, field, max keys, entry prefix. */
static const char SET_SCRIPT[] =
    "if redis.call('HEXISTS', KEYS[2], ARGV[3]) == 0 and"
    "   redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[4]) then\n"
    "  for _, f in ipairs(redis.call('HKEYS', KEYS[2])) do\n"
    "    if redis.call('EXISTS', ARGV[5] .. f) == 0 then redis.call('HDEL', KEYS[2], f) end\n"
    "  end\n"
    "  if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[4]) then return 0 end\n"
    "end\n"
    "redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])\n"
    "redis.call('HSET', KEYS[2], ARGV[3], '1')\n"
    "if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end\n"
    "return 1\n";

/* KEYS: index; ARGV: entry prefix. */
static const char CLEAR_SCRIPT[] =
    "for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do redis.call('DEL', ARGV[1] .. f) end\n"
    "redis.call('DEL', KEYS[1])\n"
    "return 1\n";

/* The connection and the keys of (user, session, key). */
static int in_cache(am__dbcache *kc, const char *uid, const char *session, const char *key,
                    am__cache **c, wkeys *k, char *err, size_t cap)
{
    int rc = conn(kc, "working", c, err, cap);
    if (!rc && keys_of(kc, uid, session, key, k)) rc = cache_fail(kc, "working", AM_ERROR, err, cap);
    return rc;
}

int am__dbcache_working_set(am__dbcache *kc, const char *uid, const char *session, const char *key,
                            const char *value, am_time expires_at, am_time ttl_ms, char *err,
                            size_t cap)
{
    am__cache *c;
    wkeys k;
    int rc = in_cache(kc, uid, session, key, &c, &k, err, cap);
    if (rc) return rc;
    am__allocator *alloc = am__dbcache_alloc(kc);
    am__buf v;
    am__buf_init(&v, alloc);
    unsigned char t[8];
    for (int i = 0; i < 8; i++) t[i] = (unsigned char)((uint64_t)expires_at >> (8 * i));
    am__buf_add(&v, t, 8);
    am__buf_add(&v, key, strlen(key) + 1);
    am__buf_adds(&v, value);
    if (v.oom) {
        am__buf_free(&v);
        return fail(err, cap, AM_NOMEM, "working: out of memory");
    }
    char ttl[32], max[16];
    snprintf(ttl, sizeof ttl, "%lld", (long long)ttl_ms);
    snprintf(max, sizeof max, "%d", AM_WORKING_KEYS_MAX);
    const char *av[] = {"EVAL", SET_SCRIPT, "2", k.entry, k.index, v.p, ttl, k.field, max, k.prefix};
    size_t lens[10];
    for (int i = 0; i < 10; i++) lens[i] = strlen(av[i]);
    lens[5] = v.len;
    am__arena ar;
    am__arena_init(&ar, alloc);
    am__cache_reply *r;
    rc = am__cache_cmd(c, &ar, &r, 10, av, lens);
    if (rc) rc = cache_fail(kc, "working", rc, err, cap);
    else if (r->kind == AM__CR_INT && r->i == 0)
        rc = fail(err, cap, AM_TOOBIG, "working: the session holds %d keys already",
                  AM_WORKING_KEYS_MAX);
    am__arena_free(&ar);
    am__buf_free(&v);
    return rc;
}

/* key's entry, at most one row. */
static int list_one(const am__dbcache *kc, am__cache *c, const wkeys *k, const char *key,
                    am__arena *ar, am__working_row **rows, size_t *n, char *err, size_t cap)
{
    am__cache_reply *r;
    const char *av[2] = {"GET", k->entry};
    int rc = am__cache_cmd(c, ar, &r, 2, av, NULL);
    if (rc) return cache_fail(kc, "working", rc, err, cap);
    if (r->kind == AM__CR_NIL) return AM_OK;
    am__working_row *w = am__arena_alloc(ar, sizeof *w);
    if (!w) return fail(err, cap, AM_NOMEM, "working: out of memory");
    if (entry_parse(r, w) || strcmp(w->key, key) != 0)
        return fail(err, cap, AM_CORRUPT, "working: the cache's entry is not one of ours");
    *rows = w;
    *n = 1;
    return AM_OK;
}

/* The session's live entries (key NULL) or key's, by key. */
static int redis_list(const am__dbcache *kc, am__cache *c, const wkeys *k, const char *key,
                      am__arena *ar, am__working_row **rows, size_t *n, char *err, size_t cap)
{
    *rows = NULL;
    *n = 0;
    if (key) return list_one(kc, c, k, key, ar, rows, n, err, cap);
    int rc;
    am__cache_reply *r;
    const char *hk[2] = {"HKEYS", k->index};
    if ((rc = am__cache_cmd(c, ar, &r, 2, hk, NULL))) return cache_fail(kc, "working", rc, err, cap);
    if (r->kind != AM__CR_ARR || r->n == 0) return AM_OK;
    size_t m = r->n;
    const char **av = am__arena_alloc(ar, (m + 1) * sizeof *av);
    am__working_row *out = am__arena_alloc(ar, m * sizeof *out);
    if (!av || !out) return fail(err, cap, AM_NOMEM, "working: out of memory");
    av[0] = "MGET";
    for (size_t i = 0; i < m; i++) {
        char *e = am__arena_alloc(ar, 160);
        if (!e) return fail(err, cap, AM_NOMEM, "working: out of memory");
        snprintf(e, 160, "%s%s", k->prefix, r->el[i].s ? r->el[i].s : "");
        av[i + 1] = e;
    }
    am__cache_reply *g;
    if ((rc = am__cache_cmd(c, ar, &g, (int)m + 1, av, NULL)))
        return cache_fail(kc, "working", rc, err, cap);
    if (g->kind != AM__CR_ARR || g->n != m)
        return fail(err, cap, AM_CORRUPT, "working: unexpected reply of the cache");
    size_t got = 0;
    for (size_t i = 0; i < m; i++) {
        if (g->el[i].kind == AM__CR_NIL) { /* expired: its index field goes */
            const char *hd[3] = {"HDEL", k->index, r->el[i].s ? r->el[i].s : ""};
            am__cache_cmd(c, ar, NULL, 3, hd, NULL);
            continue;
        }
        if (!entry_parse(&g->el[i], &out[got])) got++;
    }
    /* by key, as the store lists them */
    for (size_t i = 1; i < got; i++)
        for (size_t j = i; j > 0 && strcmp(out[j - 1].key, out[j].key) > 0; j--) {
            am__working_row t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    *rows = out;
    *n = got;
    return AM_OK;
}

int am__dbcache_working_list(am__dbcache *kc, const char *uid, const char *session, const char *key,
                             am__arena *ar, am__working_row **rows, size_t *n, char *err,
                             size_t cap)
{
    am__cache *c;
    wkeys k;
    int rc = in_cache(kc, uid, session, key, &c, &k, err, cap);
    return rc ? rc : redis_list(kc, c, &k, key, ar, rows, n, err, cap);
}

static int redis_clear(const am__dbcache *kc, am__cache *c, const wkeys *k, char *err, size_t cap)
{
    int rc;
    if (k->field[0]) {
        const char *d[2] = {"DEL", k->entry};
        const char *h[3] = {"HDEL", k->index, k->field};
        if ((rc = am__cache_cmd(c, NULL, NULL, 2, d, NULL)) ||
            (rc = am__cache_cmd(c, NULL, NULL, 3, h, NULL)))
            return cache_fail(kc, "working", rc, err, cap);
        return AM_OK;
    }
    const char *av[5] = {"EVAL", CLEAR_SCRIPT, "1", k->index, k->prefix};
    if ((rc = am__cache_cmd(c, NULL, NULL, 5, av, NULL))) return cache_fail(kc, "working", rc, err, cap);
    return AM_OK;
}

int am__dbcache_working_clear(am__dbcache *kc, const char *uid, const char *session,
                              const char *key, char *err, size_t cap)
{
    am__cache *c;
    wkeys k;
    int rc = in_cache(kc, uid, session, key, &c, &k, err, cap);
    return rc ? rc : redis_clear(kc, c, &k, err, cap);
}

int am__dbcache_working_forget(am__dbcache *kc, const char *uid, const char *session, char *err,
                               size_t cap)
{
    am__cache *c = am__dbcache_conn(kc);
    wkeys k;
    if (!c || keys_of(kc, uid, session, NULL, &k)) return AM_OK;
    return redis_clear(kc, c, &k, err, cap);
}
