/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cache.h -- the shared cache beside the store (Redis): one
 * connection per am_db handle, commands with short timeouts, and a state
 * ("up" / "down" + the last error) the API exposes (am_cache_state).
 *
 * Why a layer of its own, beside store/ and not in it: the store is the
 * system of record and the recall pipeline ranks over it; the cache holds
 * nothing the store does not (recall results it can recompute, working
 * memory that is short-lived by contract) and is consulted by api/ before
 * the pipeline runs and after a write commits.  It knows no key layout
 * (api/cache.c, api/working.c decide the keys) and nothing above base/.
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

#endif
