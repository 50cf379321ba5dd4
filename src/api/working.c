/* SPDX-License-Identifier: Apache-2.0 */
/*
 * working.c -- a session's working memory (am_working_*): small named
 * values with a time to live, in Redis when a cache is configured
 * (cache/working.c), else in the store (store/sqlite/working.c; a store
 * without it answers AM_BACKEND).  Checked here once for both: ids, the
 * value's size and characters, the TTL's range, the user not being
 * forgotten.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/records.h"
#include "api/db_int.h"
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

/* ------------------------------------------------------------ the store */

/* Only the SQLite store keeps working memory without a cache (in its
 * records, domain/records.h); a server's store asks for the cache. */
static int has_store(const am_db *db)
{
    return strcmp(am_store_backend(db), "sqlite") == 0;
}

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
        char err[sizeof db->err];
        rc = am__dbcache_working_set(db->cache, user_id, session_id, key, value, expires, ttl_ms,
                                     err, sizeof err);
        return rc ? am__db_error(db, rc, "%s", err) : AM_OK;
    }
    am__store *s = db->store;
    if (!has_store(db)) return no_store(db);
    if ((rc = am__store_begin(s))) return am__db_store_error(db, rc, "working");
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    rc = am__working_put(s, user_id, session_id, key, value, expires, now, AM_WORKING_KEYS_MAX,
                         &ar);
    am__arena_free(&ar);
    if (!rc) rc = am__store_commit(s);
    if (rc) am__store_rollback(s);
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
        char err[sizeof db->err];
        rc = am__dbcache_working_list(db->cache, user_id, session_id, key, ar, rows, n, err,
                                      sizeof err);
        return rc ? am__db_error(db, rc, "%s", err) : AM_OK;
    }
    am__store *s = db->store;
    if (!has_store(db)) return no_store(db);
    rc = am__working_list(s, user_id, session_id, key, am__db_now(db), ar, rows, n);
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
        char err[sizeof db->err];
        rc = am__dbcache_working_clear(db->cache, user_id, session_id, key, err, sizeof err);
        return rc ? am__db_error(db, rc, "%s", err) : AM_OK;
    }
    am__store *s = db->store;
    if (!has_store(db)) return no_store(db);
    rc = am__working_del(s, user_id, session_id, key);
    return rc ? am__db_store_error(db, rc, "working") : AM_OK;
}

int am__working_forget(am_db *db, const char *user_id, const char *session_id)
{
    int rc = AM_OK;
    am__store *s = db->store;
    /* rows kept in the store before a cache was configured go too */
    if (has_store(db) && (rc = am__working_del(s, user_id, session_id, NULL)))
        rc = am__db_store_error(db, rc, "working");
    if (db->cache && session_id) { /* a user's keys all go with am__dbcache_forget */
        char err[sizeof db->err];
        int crc = am__dbcache_working_forget(db->cache, user_id, session_id, err, sizeof err);
        if (crc) am__db_error(db, crc, "%s", err);
        if (!rc) rc = crc;
    }
    return rc;
}
