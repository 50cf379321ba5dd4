/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_cache_url.c -- the library's Redis URL parser (src/cache/redis.c,
 * am__cache_url_parse: am_config.cache, $AGENTMEM_CACHE, the CLI's and the
 * server's --cache).  Input: the bytes up to a NUL, as a URL.
 *
 * Taken: the URL begins "redis://"; the host is 1-255 bytes of none of
 * "/?#@[]", controls, space or non-ASCII; the port is 1-65535, the database
 * 0-AM__CACHE_DB_MAX, ttl_ms above 0, timeout_ms 1-60000; a user comes only
 * with a password and is not empty; and the URL written back in canonical
 * form (every byte of the user and password %-escaped, an IPv6 host
 * bracketed, port, database and both parameters spelled out) parses to
 * the same fields.  Refused: a reason beginning "cache: ", which never
 * quotes the password (checked when it is 8 bytes or more and appears
 * nowhere else in the URL).  The password is wiped and freed either way
 * (ASan: no leak, no double free).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cache.h"

static size_t put_escaped(char *out, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~", *p))
            out[k++] = (char)*p;
        else {
            out[k++] = '%';
            out[k++] = hex[*p >> 4];
            out[k++] = hex[*p & 15];
        }
    }
    return k;
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The canonical form of u parses back to u */
static void round_trip(const am__cache_url *u, size_t in_size)
{
    char *url = malloc(3 * in_size + 512), *w = url;
    if (!url) return;
    w += sprintf(w, "redis://");
    if (u->pass) {
        if (u->user) w += put_escaped(w, u->user);
        *w++ = ':';
        w += put_escaped(w, u->pass);
        *w++ = '@';
    }
    int v6 = strchr(u->host, ':') != NULL;
    sprintf(w, "%s%s%s:%d/%d?ttl_ms=%lld&timeout_ms=%lld", v6 ? "[" : "", u->host, v6 ? "]" : "", u->port,
            u->db, (long long)u->ttl_ms, (long long)u->timeout_ms);
    am__cache_url b;
    char err[256];
    if (am__cache_url_parse(url, NULL, &b, err, sizeof err) != AM_OK || strcmp(b.host, u->host) != 0 ||
        b.port != u->port || b.db != u->db || !same_str(b.user, u->user) || !same_str(b.pass, u->pass) ||
        b.ttl_ms != u->ttl_ms || b.timeout_ms != u->timeout_ms)
        abort();
    am__cache_url_clear(&b, NULL);
    free(url);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *url = malloc(size + 1);
    if (!url) return 0;
    memcpy(url, data, size);
    url[size] = '\0';
    am__cache_url u;
    char err[256];
    int rc = am__cache_url_parse(url, NULL, &u, err, sizeof err);
    if (rc == AM_OK) {
        if (strncmp(url, "redis://", 8) != 0 || !u.host[0] || u.port < 1 || u.port > 65535 || u.db < 0 ||
            u.db > AM__CACHE_DB_MAX || u.ttl_ms < 1 || u.timeout_ms < 1 || u.timeout_ms > 60000 ||
            (u.user && (!u.pass || !u.user[0])) || err[0])
            abort();
        for (const unsigned char *h = (const unsigned char *)u.host; *h; h++)
            if (*h <= ' ' || *h >= 0x7f || strchr("/?#@[]", *h)) abort();
        round_trip(&u, strlen(url));
    } else if (rc == AM_INVALID) {
        if (strncmp(err, "cache: ", 7) != 0) abort();
        /* the password as written: between the first ':' and the last '@' of the authority */
        char *auth = strstr(url, "://");
        if (auth) {
            auth += 3;
            char *end = auth + strcspn(auth, "/?"), *at = NULL;
            for (char *q = auth; q < end; q++)
                if (*q == '@') at = q;
            char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
            size_t n = colon ? (size_t)(at - colon - 1) : 0;
            char *pw = n >= 8 ? malloc(n + 1) : NULL;
            if (pw) {
                memcpy(pw, colon + 1, n);
                pw[n] = '\0';
                char *first = strstr(url, pw);
                int once = first == colon + 1 && !strstr(first + 1, pw);
                if (once && strstr(err, pw)) {
                    /* the message names it: a leak, unless the message
                     * says those words whatever the password ("timeout_ms"
                     * is also the name of an option) */
                    char *other = strdup(url);
                    if (other) {
                        memset(other + (colon + 1 - url), 'X', n);
                        am__cache_url o;
                        char err2[256] = "";
                        am__cache_url_parse(other, NULL, &o, err2, sizeof err2);
                        am__cache_url_clear(&o, NULL);
                        if (!strstr(err2, pw)) abort();
                        free(other);
                    }
                }
                free(pw);
            }
        }
    } else if (rc != AM_NOMEM) abort();
    am__cache_url_clear(&u, NULL);
    free(url);
    return 0;
}
