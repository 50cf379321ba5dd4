/* SPDX-License-Identifier: Apache-2.0 */
/*
 * working.c -- a session's working memory (am_working_*): small
 * named values with a time to live, in Redis when a cache is configured,
 * else in the store (store/sqlite/working.c; a store without it answers
 * AM_BACKEND).  Checked here once for both: ids, the value's size and
 * characters, the TTL's range, the user not being forgotten.
 *
 * In Redis (key names hashed, api/cache.c's prefix am:{U}:):
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/db_int.h"
#include "cache/cache.h"
#include "text/plain.h"

typedef struct working_box {
    am_working_entries pub; /* first: the public pointer is the box's */
    am__arena ar;
    am__allocator alloc;
} working_box;

void am_working_list_free(am_working_entries *l)
{
    if (!l) return;
    working_box *b = (working_box *)l;
    am__allocator a = b->alloc;
    am__arena_free(&b->ar);
    am__free(&a, b);
}

/* ------------------------------------------------------------ checks */

static int check_ids(am_db *db, const char *what, const char *user_id, const char *session_id,
                     const char *key, int rc_hidden)
{
    int rc;
    if ((rc = am__db_check_id(db, what, "user", user_id))) return rc;
    if ((rc = am__db_check_id(db, what, "session", session_id))) return rc;
    if (key && (rc = am__db_check_id(db, what, "key", key))) return rc;
    return am__db_user_gate(db, what, user_id, rc_hidden);
}

static int check_value(am_db *db, const char *value, am_time ttl_ms)
{
    if (!value) return am__db_error(db, AM_INVALID, "working: value is missing");
    size_t n = strlen(value), bad;
    uint32_t cp;
    if (n > AM_WORKING_VALUE_MAX)
        return am__db_error(db, AM_TOOBIG, "working: value is %zu bytes, over the limit of %d", n,
                            AM_WORKING_VALUE_MAX);
    if (!am__utf8_valid(value, n, &bad))
        return am__db_error(db, AM_INVALID, "working: value: invalid UTF-8 at byte %zu", bad);
    if (am__plain_refused(value, n, &bad, &cp))
        return am__db_error(db, AM_INVALID,
                            "working: value: control character U+%04X at byte %zu (only tab and "
                            "line breaks are allowed)", (unsigned)cp, bad);
    if (ttl_ms < 1 || ttl_ms > AM_WORKING_TTL_MAX_MS)
        return am__db_error(db, AM_INVALID, "working: ttl_ms %lld is not 1..%lld", (long long)ttl_ms,
                            (long long)AM_WORKING_TTL_MAX_MS);
    return AM_OK;
}

/* ------------------------------------------------------------ Redis keys */

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

static int keys_of(am_db *db, const char *uid, const char *session, const char *key, wkeys *k)
{
    char up[48], sh[25];
    if (am__dbcache_prefix(db, uid, up)) return AM_ERROR;
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
static int conn(am_db *db, const char *what, am__cache **c)
{
    if ((*c = am__dbcache_conn(db))) return AM_OK;
    const char *err;
    am_cache_state(db, &err);
    return am__db_error(db, AM_BACKEND, "%s: the cache is down (%s)", what, err);
}

static int cache_fail(am_db *db, const char *what, int rc)
{
    if (rc == AM_NOMEM) return am__db_error(db, rc, "%s: out of memory", what);
    const char *err;
    am_cache_state(db, &err);
    if (rc == AM_IO) return am__db_error(db, AM_BACKEND, "%s: the cache is down (%s)", what, err);
    return am__db_error(db, AM_BACKEND, "%s: cache: %s", what, err);
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

static int redis_set(am_db *db, am__cache *c, const wkeys *k, const char *key, const char *value,
                     am_time expires_at, am_time ttl_ms)
{
    am__buf v;
    am__buf_init(&v, &db->alloc);
    unsigned char t[8];
    for (int i = 0; i < 8; i++) t[i] = (unsigned char)((uint64_t)expires_at >> (8 * i));
    am__buf_add(&v, t, 8);
    am__buf_add(&v, key, strlen(key) + 1);
    am__buf_adds(&v, value);
    if (v.oom) {
        am__buf_free(&v);
        return am__db_error(db, AM_NOMEM, "working: out of memory");
    }
    char ttl[32], max[16];
    snprintf(ttl, sizeof ttl, "%lld", (long long)ttl_ms);
    snprintf(max, sizeof max, "%d", AM_WORKING_KEYS_MAX);
    const char *av[] = {"EVAL", SET_SCRIPT, "2", k->entry, k->index, v.p, ttl, k->field, max, k->prefix};
    size_t lens[10];
    for (int i = 0; i < 10; i++) lens[i] = strlen(av[i]);
    lens[5] = v.len;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__cache_reply *r;
    int rc = am__cache_cmd(c, &ar, &r, 10, av, lens);
    if (rc) rc = cache_fail(db, "working", rc);
    else if (r->kind == AM__CR_INT && r->i == 0)
        rc = am__db_error(db, AM_TOOBIG, "working: the session holds %d keys already",
                          AM_WORKING_KEYS_MAX);
    am__arena_free(&ar);
    am__buf_free(&v);
    return rc;
}

/* The session's live entries (key NULL) or key's, by key. */
static int redis_list(am_db *db, am__cache *c, const wkeys *k, const char *key, am__arena *ar,
                      am__working_row **rows, size_t *n)
{
    *rows = NULL;
    *n = 0;
    am__cache_reply *r;
    int rc;
    if (key) {
        const char *av[2] = {"GET", k->entry};
        if ((rc = am__cache_cmd(c, ar, &r, 2, av, NULL))) return cache_fail(db, "working", rc);
        if (r->kind == AM__CR_NIL) return AM_OK;
        am__working_row *w = am__arena_alloc(ar, sizeof *w);
        if (!w) return am__db_error(db, AM_NOMEM, "working: out of memory");
        if (entry_parse(r, w) || strcmp(w->key, key) != 0)
            return am__db_error(db, AM_CORRUPT, "working: the cache's entry is not one of ours");
        *rows = w;
        *n = 1;
        return AM_OK;
    }
    const char *hk[2] = {"HKEYS", k->index};
    if ((rc = am__cache_cmd(c, ar, &r, 2, hk, NULL))) return cache_fail(db, "working", rc);
    if (r->kind != AM__CR_ARR || r->n == 0) return AM_OK;
    size_t m = r->n;
    const char **av = am__arena_alloc(ar, (m + 1) * sizeof *av);
    am__working_row *out = am__arena_alloc(ar, m * sizeof *out);
    if (!av || !out) return am__db_error(db, AM_NOMEM, "working: out of memory");
    av[0] = "MGET";
    for (size_t i = 0; i < m; i++) {
        char *e = am__arena_alloc(ar, 160);
        if (!e) return am__db_error(db, AM_NOMEM, "working: out of memory");
        snprintf(e, 160, "%s%s", k->prefix, r->el[i].s ? r->el[i].s : "");
        av[i + 1] = e;
    }
    am__cache_reply *g;
    if ((rc = am__cache_cmd(c, ar, &g, (int)m + 1, av, NULL))) return cache_fail(db, "working", rc);
    if (g->kind != AM__CR_ARR || g->n != m)
        return am__db_error(db, AM_CORRUPT, "working: unexpected reply of the cache");
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

static int redis_clear(am_db *db, am__cache *c, const wkeys *k)
{
    int rc;
    if (k->field[0]) {
        const char *d[2] = {"DEL", k->entry};
        const char *h[3] = {"HDEL", k->index, k->field};
        if ((rc = am__cache_cmd(c, NULL, NULL, 2, d, NULL)) ||
            (rc = am__cache_cmd(c, NULL, NULL, 3, h, NULL)))
            return cache_fail(db, "working", rc);
        return AM_OK;
    }
    const char *av[5] = {"EVAL", CLEAR_SCRIPT, "1", k->index, k->prefix};
    if ((rc = am__cache_cmd(c, NULL, NULL, 5, av, NULL))) return cache_fail(db, "working", rc);
    return AM_OK;
}

/* The connection and the keys of (user, session, key). */
static int in_cache(am_db *db, const char *uid, const char *session, const char *key, am__cache **c,
                    wkeys *k)
{
    int rc = conn(db, "working", c);
    if (!rc && keys_of(db, uid, session, key, k)) rc = cache_fail(db, "working", AM_ERROR);
    return rc;
}

/* ------------------------------------------------------------ the store */

static int no_store(am_db *db)
{
    return am__db_error(db, AM_BACKEND,
                        "working: the %s store has no working memory yet (configure a cache: "
                        "am_config.cache = redis://...)", am_store_backend(db));
}

/* ------------------------------------------------------------ the API */

int am_working_set(am_db *db, const char *user_id, const char *session_id, const char *key,
                   const char *value, am_time ttl_ms)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    int rc = check_ids(db, "working", user_id, session_id, key ? key : "", AM_DENIED);
    if (!rc && !key) rc = am__db_error(db, AM_INVALID, "working: key is missing");
    if (rc || (rc = check_value(db, value, ttl_ms))) return rc;
    am_time now = am__db_now(db), expires = now + ttl_ms;
    if (db->cache) {
        am__cache *c;
        wkeys k;
        if ((rc = in_cache(db, user_id, session_id, key, &c, &k))) return rc;
        return redis_set(db, c, &k, key, value, expires, ttl_ms);
    }
    am__store *s = db->store;
    if (!s->vt->working_put) return no_store(db);
    if ((rc = s->vt->begin(s))) return am__db_store_error(db, rc, "working");
    rc = s->vt->working_put(s, user_id, session_id, key, value, expires, now, AM_WORKING_KEYS_MAX);
    if (!rc) rc = s->vt->commit(s);
    if (rc) s->vt->rollback(s);
    if (rc == AM_TOOBIG)
        return am__db_error(db, rc, "working: the session holds %d keys already", AM_WORKING_KEYS_MAX);
    if (rc) return am__db_store_error(db, rc, "working");
    return AM_OK;
}

/* The rows of the session (key NULL) or of key, from wherever they are. */
static int rows_of(am_db *db, const char *user_id, const char *session_id, const char *key,
                   am__arena *ar, am__working_row **rows, size_t *n)
{
    int rc = check_ids(db, "working", user_id, session_id, key, AM_NOTFOUND);
    if (rc) return rc;
    if (db->cache) {
        am__cache *c;
        wkeys k;
        if ((rc = in_cache(db, user_id, session_id, key, &c, &k))) return rc;
        return redis_list(db, c, &k, key, ar, rows, n);
    }
    am__store *s = db->store;
    if (!s->vt->working_list) return no_store(db);
    rc = s->vt->working_list(s, user_id, session_id, key, am__db_now(db), ar, rows, n);
    return rc ? am__db_store_error(db, rc, "working") : AM_OK;
}

int am_working_get(am_db *db, const char *user_id, const char *session_id, const char *key,
                   char **value)
{
    if (!db || !value) return AM_MISUSE;
    *value = NULL;
    am__db_clear_error(db);
    if (!key) return am__db_error(db, AM_INVALID, "working: key is missing");
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__working_row *rows;
    size_t n = 0;
    int rc = rows_of(db, user_id, session_id, key, &ar, &rows, &n);
    if (!rc && n == 0)
        rc = am__db_error(db, AM_NOTFOUND, "working: session %s has no key %s (never set, expired "
                          "or cleared)", session_id, key);
    if (!rc && !(*value = am__owned_strndup(&db->alloc, rows[0].value, strlen(rows[0].value))))
        rc = am__db_error(db, AM_NOMEM, "working: out of memory");
    am__arena_free(&ar);
    return rc;
}

int am_working_list(am_db *db, const char *user_id, const char *session_id, am_working_entries **out)
{
    if (!db || !out) return AM_MISUSE;
    *out = NULL;
    am__db_clear_error(db);
    working_box *box = am__calloc(&db->alloc, sizeof *box);
    if (!box) return am__db_error(db, AM_NOMEM, "working: out of memory");
    box->alloc = db->alloc;
    am__arena_init(&box->ar, &box->alloc);
    am__working_row *rows;
    size_t n = 0;
    int rc = rows_of(db, user_id, session_id, NULL, &box->ar, &rows, &n);
    am__buf b;
    am__buf_init(&b, &db->alloc);
    if (!rc) {
        box->pub.entries = am__arena_alloc(&box->ar, (n + 1) * sizeof *box->pub.entries);
        am__buf_adds(&b, "{\"session\":");
        am__buf_json_str(&b, session_id);
        am__buf_adds(&b, ",\"entries\":[");
        for (size_t i = 0; box->pub.entries && i < n; i++) {
            am_working_entry *e = &box->pub.entries[i];
            e->key = rows[i].key;
            e->value = rows[i].value;
            e->expires_at = rows[i].expires_at;
            char ts[32];
            am__buf_adds(&b, i ? ",{\"key\":" : "{\"key\":");
            am__buf_json_str(&b, e->key);
            am__buf_adds(&b, ",\"value\":");
            am__buf_json_str(&b, e->value);
            am__buf_printf(&b, ",\"expires_at\":\"%s\"}", am__time_format(e->expires_at, 0, ts));
        }
        am__buf_adds(&b, "]}");
        box->pub.n = n;
        box->pub.json = b.oom ? NULL : am__arena_strndup(&box->ar, b.p, b.len);
        if (!box->pub.entries || !box->pub.json) rc = am__db_error(db, AM_NOMEM, "working: out of memory");
    }
    am__buf_free(&b);
    if (rc) {
        am_working_list_free(&box->pub);
        return rc;
    }
    *out = &box->pub;
    return AM_OK;
}

int am_working_clear(am_db *db, const char *user_id, const char *session_id, const char *key)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    int rc = check_ids(db, "working", user_id, session_id, key, AM_NOTFOUND);
    if (rc) return rc;
    if (db->cache) {
        am__cache *c;
        wkeys k;
        if ((rc = in_cache(db, user_id, session_id, key, &c, &k))) return rc;
        return redis_clear(db, c, &k);
    }
    am__store *s = db->store;
    if (!s->vt->working_del) return no_store(db);
    rc = s->vt->working_del(s, user_id, session_id, key);
    return rc ? am__db_store_error(db, rc, "working") : AM_OK;
}

int am__working_forget(am_db *db, const char *user_id, const char *session_id)
{
    int rc = AM_OK;
    am__store *s = db->store;
    /* rows kept in the store before a cache was configured go too */
    if (s->vt->working_del && (rc = s->vt->working_del(s, user_id, session_id, NULL)))
        rc = am__db_store_error(db, rc, "working");
    if (db->cache && session_id) { /* a user's keys all go with am__dbcache_forget */
        am__cache *c = am__dbcache_conn(db);
        wkeys k;
        if (c && !keys_of(db, user_id, session_id, NULL, &k)) {
            int crc = redis_clear(db, c, &k);
            if (!rc) rc = crc;
        }
    }
    return rc;
}
