/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cache.h -- the shared cache beside the store (Redis): the recall cache
 * and working memory.  Three files, one concern each:
 *   redis.c    the connection: one per am_db handle, commands with short
 *              timeouts, and a state ("up" / "down" + the last error) the
 *              API exposes (am_cache_state);
 *   dbcache.c  what the engine keeps there: the key layout, the per-user
 *              generations that writes move, recall results, forgetting in
 *              the cache and the work owed while Redis was down;
 *   working.c  a session's working memory entries in Redis.
 *
 * Who calls it: api/ only -- am_open opens it (api/cache.c, with the
 * store's identity and a digest of the configuration), every public write
 * notes the users it changes and flushes after the commit, am_recall asks
 * for an entry before the pipeline runs and stores one after, a forget
 * purges, am_working_* use the working-memory calls (api/working.c keeps
 * the argument checks and the store's fallback).  The recall pipeline,
 * the write stages and the store never see it.
 *
 * Why a layer of its own, beside store/ and not in it: the store is the
 * system of record and the recall pipeline ranks over it; the cache holds
 * nothing the store does not (recall results it can recompute, working
 * memory that is short-lived by contract).  It includes base/ and the
 * store's row types (store/store.h), never api/: what it needs of the
 * handle (allocator, log hook, store identity) is passed in.
 *
 * Down: a command on a dead connection fails at once with AM_IO (the
 * caller serves from the store); the connection is tried again on the
 * next command at most every AM__CACHE_RETRY_MS, each try bounded by the
 * connect timeout.  The first failure after being up is logged once
 * (warn), the recovery once (info).
 */
#ifndef AM_CACHE_H
#define AM_CACHE_H

#include "base/base.h"
#include "store/store.h"

#define AM__CACHE_RETRY_MS 1000       /* between reconnect attempts */
#define AM__CACHE_TIMEOUT_MS 300      /* connect and command timeout (default) */
#define AM__CACHE_RECALL_TTL_MS 60000 /* recall entries (default) */

typedef struct am__cache am__cache;

/* A reply, copied into the caller's arena. */
#define AM__CR_NIL 0
#define AM__CR_INT 1
#define AM__CR_STR 2 /* a string or a status */
#define AM__CR_ARR 3
typedef struct am__cache_reply {
    int kind;
    long long i;
    const char *s; /* NUL-terminated; len bytes (binary safe) */
    size_t len;
    struct am__cache_reply *el;
    size_t n;
} am__cache_reply;

/* A cache URL, parsed (am__cache_url_parse): what the connection uses.
 * user and pass are %-decoded, NUL-free, allocated with the parser's
 * allocator (NULL when the URL has none: no AUTH, or AUTH with the
 * password only); host is bare (an IPv6 address without its brackets). */
typedef struct am__cache_url {
    char host[256];
    int port;         /* 1..65535, 6379 when not given */
    int db;           /* 0..AM__CACHE_DB_MAX, 0 when not given or "/" */
    char *user, *pass;
    int64_t ttl_ms;     /* > 0, AM__CACHE_RECALL_TTL_MS when not given */
    int64_t timeout_ms; /* 1..60000, AM__CACHE_TIMEOUT_MS when not given */
} am__cache_url;

#define AM__CACHE_DB_MAX 100000

/* Parse url ("redis://[[USER]:PASSWORD@]HOST[:PORT][/DB][?ttl_ms=N&timeout_ms=N]")
 * into *u (the caller's; released with am__cache_url_clear whatever the
 * result).  AM_OK; AM_INVALID with the reason in err, which names the
 * part that is wrong and never quotes the user, password or host;
 * AM_NOMEM.  No I/O: the fuzz target and the connection share it. */
int am__cache_url_parse(const char *url, const am__allocator *a, am__cache_url *u, char *err, size_t cap);
/* Wipes the password and frees what the parse allocated; u may be zeroed. */
void am__cache_url_clear(am__cache_url *u, const am__allocator *a);

/* Parse url ("redis://[[USER]:PASSWORD@]HOST[:PORT][/DB][?ttl_ms=N&timeout_ms=N]")
 * and connect once (a failure leaves the cache down, not an error).
 * AM_INVALID with the reason in err (the password never shown), AM_NOMEM.
 * log may be NULL. */
int am__cache_open(const char *url, const am__allocator *a,
                   void (*log)(void *ctx, int level, const char *msg), void *log_ctx,
                   am__cache **out, char *err, size_t cap);
void am__cache_close(am__cache *c);

/* "up" or "down"; *err (may be NULL) the last error ("" when none). */
const char *am__cache_state(const am__cache *c, const char **err);
/* TTL of recall entries, ms. */
int64_t am__cache_recall_ttl(const am__cache *c);
/* "HOST:PORT/DB" for messages (never the password). */
const char *am__cache_where(const am__cache *c);

/* One command (argv[i] of lens[i] bytes; lens NULL: strlen).  AM_OK and
 * *out (may be NULL when the reply is not wanted); AM_IO when the cache
 * is down or the connection failed now (state down); AM_BACKEND for an
 * error reply (the message in the state's error); AM_NOMEM. */
int am__cache_cmd(am__cache *c, am__arena *ar, am__cache_reply **out, int argc,
                  const char *const *argv, const size_t *lens);

/* Delete every key matching pattern (SCAN MATCH + DEL); *n (may be NULL)
 * the keys deleted.  AM_OK, AM_IO, AM_BACKEND. */
int am__cache_purge(am__cache *c, const char *pattern, long *n);

/* ------------------------------------------------------------ the engine's keys (dbcache.c) */

/* A handle's use of the cache: the connection, the store's identity,
 * the configuration's digest, the users noted by the open write and the
 * work owed since Redis was down.  NULL everywhere below means "no cache
 * configured": every call is then a no-op (or AM_MISUSE where it
 * returns a code). */
typedef struct am__dbcache am__dbcache;

/* SHA-256 over fields, each with its presence and length (a string) or
 * its 8 bytes (an integer), so fields never run into each other: the
 * configuration's digest (api/cache.c) and every key name are made so. */
struct evp_md_ctx_st;
typedef struct am__cache_digest {
    struct evp_md_ctx_st *md;
    int ok;
} am__cache_digest;
void am__cache_digest_init(am__cache_digest *d);
void am__cache_digest_add(am__cache_digest *d, const void *p, size_t n);
void am__cache_digest_str(am__cache_digest *d, const char *s);
void am__cache_digest_int(am__cache_digest *d, int64_t v);
/* AM_OK and out, or AM_ERROR; frees the digest's state either way. */
int am__cache_digest_end(am__cache_digest *d, unsigned char out[32]);

/* Connect to url (am__cache_open; a failure to connect leaves it down,
 * not an error): *out, or AM_INVALID / AM_NOMEM with the reason in err
 * ("open: ...").  a is copied; log (may be NULL) gets the cache's log
 * records.  identify then sets what every key depends on: store_id (a
 * file's real path, a URL without its password, ...) and cfg_digest
 * (everything else a recall's result depends on).  free accepts NULL. */
int am__dbcache_connect(const char *url, const am__allocator *a,
                        void (*log)(void *ctx, int level, const char *msg), void *log_ctx,
                        am__dbcache **out, char *err, size_t cap);
void am__dbcache_identify(am__dbcache *k, const char *store_id, const unsigned char cfg_digest[32]);
void am__dbcache_free(am__dbcache *k);
/* "up" or "down" (am__cache_state); the handle's allocator (a copy of
 * the one given to connect). */
const char *am__dbcache_state(const am__dbcache *k, const char **err);
am__allocator *am__dbcache_alloc(am__dbcache *k);

/* "am:{U}:" of a user's keys (out holds 48 bytes); AM_MISUSE when k is
 * NULL, AM_ERROR when hashing failed. */
int am__dbcache_user_prefix(const am__dbcache *k, const char *uid, char out[48]);
/* note: uid's data changes in the open write; flush (after the commit,
 * or after a failure: harmless) moves the noted users' generations.
 * ping: what is owed settled, else a PING (a health check).  forget: the
 * user's recall entries (whole_user: every key of the user) deleted, or
 * kept owed while the cache is down. */
void am__dbcache_note(am__dbcache *k, const char *uid);
void am__dbcache_flush(am__dbcache *k);
void am__dbcache_ping(am__dbcache *k);
void am__dbcache_forget(am__dbcache *k, const char *uid, int whole_user);
/* recall_key: the entry's key of this recall (AM_IO when the cache is
 * down); recall_get: AM_OK and *res filled from the entry (strings in
 * ar), AM_NOTFOUND, or AM_IO; recall_put: stored with the TTL, failures
 * ignored -- now is the recall's time: a result holding an item that
 * expires before its time bucket ends is not cached (it would be served
 * after). */
int am__dbcache_recall_key(am__dbcache *k, const char *uid, const am_query *q, am_time now,
                           am__arena *ar, char **key);
int am__dbcache_recall_get(am__dbcache *k, const char *key, am__arena *ar, am_recall_result *res);
void am__dbcache_recall_put(am__dbcache *k, const char *key, const am_recall_result *res, am_time now);
/* The connection when it is usable now (owed work done), else NULL. */
am__cache *am__dbcache_conn(am__dbcache *k);

/* ------------------------------------------------------------ working memory (working.c) */

/* A session's entries in Redis (the layout in working.c).  Each returns
 * AM_OK, or a code with the message in err ("working: ..."): AM_BACKEND
 * when the cache is down or answered an error, AM_TOOBIG when the
 * session holds AM_WORKING_KEYS_MAX keys already (set), AM_CORRUPT for an
 * entry that is not ours (list), AM_NOMEM.
 * set: key's value until expires_at (the engine's clock), ttl_ms in
 * Redis.  list: the session's live entries (key NULL) or key's, by key,
 * in ar.  clear: key's entry, or the whole session's (key NULL).
 * forget: clear of a forgotten session's entries; AM_OK when the cache
 * is down (a user's keys all go with am__dbcache_forget). */
int am__dbcache_working_set(am__dbcache *k, const char *uid, const char *session, const char *key,
                            const char *value, am_time expires_at, am_time ttl_ms, char *err,
                            size_t cap);
int am__dbcache_working_list(am__dbcache *k, const char *uid, const char *session, const char *key,
                             am__arena *ar, am__working_row **rows, size_t *n, char *err,
                             size_t cap);
int am__dbcache_working_clear(am__dbcache *k, const char *uid, const char *session,
                              const char *key, char *err, size_t cap);
int am__dbcache_working_forget(am__dbcache *k, const char *uid, const char *session, char *err,
                               size_t cap);

#endif
