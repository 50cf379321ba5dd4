/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cache.c -- the handle's shared cache opened (am_config.cache; the
 * cache itself is src/cache/, cache.h): what identifies the store, and
 * the digest of everything in the configuration a recall's result
 * depends on, both part of every key the cache makes.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/db_int.h"

/* The store's identity: a file's real path, a URL without its password. */
static void store_identity(am_db *db, const char *path, char *out, size_t cap)
{
    const char *p = strncmp(path, "sqlite:", 7) == 0 ? path + 7 : path;
    if (strcmp(p, ":memory:") == 0) { /* a store of its own: nobody shares it */
        char id[27];
        am__db_new_id(db, am__db_now(db), id);
        snprintf(out, cap, "memory:%s", id);
        return;
    }
    const char *sch = strstr(path, "://");
    if (!sch) {
        char *real = realpath(p, NULL);
        snprintf(out, cap, "sqlite:%s", real ? real : p);
        free(real);
        return;
    }
    /* scheme://[user[:password]@]rest -> scheme://[user@]rest */
    const char *auth = sch + 3, *end = auth + strcspn(auth, "/?");
    const char *at = NULL;
    for (const char *q = auth; q < end; q++)
        if (*q == '@') at = q;
    const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
    if (colon) snprintf(out, cap, "%.*s%s", (int)(colon - path), path, at);
    else snprintf(out, cap, "%s", path);
}

static void cache_log(void *ctx, int level, const char *msg)
{
    am_db *db = ctx;
    am__db_log(db, level, "%s", msg);
}

int am__dbcache_open(am_db *db, const am_config *cfg, char *err, size_t cap)
{
    if (!cfg->cache || !*cfg->cache) return AM_OK;
    int rc = am__dbcache_connect(cfg->cache, &db->alloc, cache_log, db, &db->cache, err, cap);
    if (rc) return rc;
    char store_id[600];
    unsigned char tag[32];
    if (am__store_key_hash(db->store, NULL, 0, tag) == AM_OK) {
        int k = snprintf(store_id, sizeof store_id, "tag:");
        for (int i = 0; i < 32; i++) k += snprintf(store_id + k, 3, "%02x", tag[i]);
    } else {
        store_identity(db, cfg->path, store_id, sizeof store_id);
    }
    am__cache_digest d;
    unsigned char h[32];
    am__cache_digest_init(&d);
    am__cache_digest_str(&d, "am-config-1");
    am__cache_digest_str(&d, store_id);
    for (size_t i = 0; i < am_knob_count(); i++) {
        double v = 0;
        const am_knob *kn = am_knob_info(i);
        am_config_get(&db->cfg, kn->name, &v);
        am__cache_digest_str(&d, kn->name);
        am__cache_digest_add(&d, &v, sizeof v);
    }
    am__cache_digest_str(&d, am_embedder_id(db)); /* what "auto" resolved to, not the spec */
    am__cache_digest_int(&d, cfg->redact);
    am__cache_digest_int(&d, cfg->default_tz_minutes);
    am__cache_digest_str(&d, cfg->role_allow);
    am__cache_digest_int(&d, cfg->vault_key != NULL);
    am__cache_digest_int(&d, (int64_t)db->cfg.max_text_bytes);
    if (am__cache_digest_end(&d, h)) {
        snprintf(err, cap, "open: cache: cannot hash the configuration");
        return AM_ERROR;
    }
    am__dbcache_identify(db->cache, store_id, h);
    return AM_OK;
}

int am__dbcache_prefix(const am_db *db, const char *uid, char out[48])
{
    return am__dbcache_user_prefix(db->cache, uid, out);
}

const char *am_cache_state(const am_db *db, const char **error)
{
    if (error) *error = "";
    if (!db || !db->cache) return "none";
    return am__dbcache_state(db->cache, error);
}
