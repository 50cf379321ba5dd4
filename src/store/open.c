/* SPDX-License-Identifier: Apache-2.0 */
/*
 * open.c -- a store chosen by its URL: "postgres://..." and
 * "postgresql://..." open the PostgreSQL store (store/postgres), anything
 * else the embedded SQLite one ("sqlite:PATH", ":memory:", a path).  A URL
 * of another scheme names no backend of this build and is refused.
 */
#include <stdio.h>
#include <string.h>

#include "store/store.h"

int am__store_open(const char *url, const am__store_opts *o, am__store **out,
                   char *errbuf, size_t errlen)
{
    *out = NULL;
    if (strncmp(url, "postgres://", 11) == 0 || strncmp(url, "postgresql://", 13) == 0)
        return am__store_postgres_open(url, o, out, errbuf, errlen);
    if (strncmp(url, "sqlite:", 7) == 0) url += 7;
    if (strstr(url, "://") && strncmp(url, "file:", 5) != 0) {
        const char *sep = strstr(url, "://");
        snprintf(errbuf, errlen,
                 "store %.*s://...: unsupported backend (this build has sqlite:PATH and"
                 " postgres://...)", (int)(sep - url) < 32 ? (int)(sep - url) : 32, url);
        return AM_INVALID;
    }
    return am__store_sqlite_open(url, o, out, errbuf, errlen);
}

int am_store_schema_peek(const char *path, int *version, int *current)
{
    if (current) *current = AM__SCHEMA_VERSION;
    if (!path || !version) return AM_MISUSE;
    *version = 0;
    if (strncmp(path, "sqlite:", 7) == 0) path += 7;
    if (!*path || strcmp(path, ":memory:") == 0 || strstr(path, "://") ||
        strncmp(path, "file:", 5) == 0)
        return AM_INVALID;
    return am__store_sqlite_peek(path, version);
}
