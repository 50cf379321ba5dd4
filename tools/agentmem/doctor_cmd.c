/* SPDX-License-Identifier: Apache-2.0 */
/*
 * doctor_cmd.c -- `agentmem doctor [--json]`: one screen on what this
 * agentmem would use and what is missing.  It only reads: the store is
 * never created, opened for writing or migrated (its schema version is
 * peeked through a read-only connection); the cache and the embedder are
 * tried on an in-memory store.  Keys are never printed, and a URL's
 * password is masked.  Messages are in English, as the rest of the CLI's.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agentmem.h"
#include "agentmem_ops.h"
#include "cli.h"

#ifndef AM_DATADIR
#define AM_DATADIR "/usr/local/share/agentmem"
#endif

#define HOW_TO_ADD_MODEL                                                                     \
    "keyword recall only; for semantic recall install the encoder's weights: the agentmem " \
    "package does, or from a clone `bash scripts/fetch-model.sh` then copy models/use-lite " \
    "to ~/.local/share/agentmem/models/use-lite, or set AGENTMEM_MODEL_DIR to a folder "     \
    "holding them"

/* url with the password of "scheme://user:password@host" replaced by ***,
 * into buf */
static const char *mask_url(const char *url, char *buf, size_t cap)
{
    const char *s = strstr(url, "://"), *at = s ? strchr(s + 3, '@') : NULL;
    const char *colon = s && at ? memchr(s + 3, ':', (size_t)(at - s - 3)) : NULL;
    if (!colon) snprintf(buf, cap, "%s", url);
    else snprintf(buf, cap, "%.*s:***%s", (int)(colon - url), url, at);
    return buf;
}

/* The nearest existing folder above path (path itself excluded) into buf;
 * 0, or -1 when a file stands where a folder should be. */
static int existing_parent(const char *path, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", path);
    for (;;) {
        char *slash = strrchr(buf, '/');
        if (!slash) {
            snprintf(buf, cap, ".");
        } else if (slash == buf) {
            buf[1] = '\0';
        } else {
            *slash = '\0';
        }
        struct stat st;
        if (stat(buf, &st) == 0) return S_ISDIR(st.st_mode) ? 0 : -1;
        if (!slash || slash == buf) return -1;
    }
}

typedef struct store_facts {
    const char *kind; /* "sqlite", "postgres", "memory" */
    int exists, schema, current, writable, will_create, usable;
    long long size;
    char problem[600];
} store_facts;

static void probe_store(const char *db, store_facts *f)
{
    memset(f, 0, sizeof *f);
    f->schema = -1;
    f->size = -1;
    f->kind = "sqlite";
    if (strncmp(db, "postgres://", 11) == 0 || strncmp(db, "postgresql://", 13) == 0) {
        f->kind = "postgres";
        f->usable = 1; /* not probed: doctor reads files only */
        return;
    }
    const char *path = strncmp(db, "sqlite:", 7) == 0 ? db + 7 : db;
    if (strcmp(path, ":memory:") == 0) {
        f->kind = "memory";
        f->usable = f->writable = 1;
        return;
    }
    struct stat st;
    if (stat(path, &st) == 0) {
        f->exists = 1;
        f->size = (long long)st.st_size;
        int rc = am_store_schema_peek(path, &f->schema, &f->current);
        char dir[4096];
        int dir_ok = existing_parent(path, dir, sizeof dir) == 0 && access(dir, W_OK) == 0;
        f->writable = access(path, W_OK) == 0 && dir_ok;
        if (rc) {
            f->schema = -1;
            snprintf(f->problem, sizeof f->problem, "%.500s: %s", path,
                     rc == AM_CORRUPT ? "not an agentmem store" : am_errstr(rc));
        } else if (f->schema > f->current) {
            snprintf(f->problem, sizeof f->problem,
                     "%.400s: schema version %d is newer than this agentmem's (%d): upgrade agentmem",
                     path, f->schema, f->current);
        } else {
            f->usable = 1;
        }
        if (f->usable && !f->writable)
            snprintf(f->problem, sizeof f->problem, "%.500s: not writable (reads only)", path);
        return;
    }
    am_store_schema_peek(path, &f->schema, &f->current);
    f->schema = -1;
    char dir[4096];
    if (existing_parent(path, dir, sizeof dir) != 0)
        snprintf(f->problem, sizeof f->problem, "%.500s cannot be created: a file stands in its path",
                 path);
    else if (access(dir, W_OK | X_OK) != 0)
        snprintf(f->problem, sizeof f->problem, "%.280s cannot be created: %.280s is not writable", path,
                 dir);
    else f->usable = f->will_create = f->writable = 1;
}

/* files and bytes of dir's entries whose name ends in suffix ("" any) */
static long count_files(const char *dir, const char *suffix, long long *bytes)
{
    DIR *d = opendir(dir);
    long n = 0;
    if (bytes) *bytes = 0;
    if (!d) return -1;
    struct dirent *e;
    size_t sl = strlen(suffix);
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l < sl || strcmp(e->d_name + l - sl, suffix) != 0) continue;
        char p[PATH_MAX + 256];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        n++;
        if (bytes) *bytes += (long long)st.st_size;
    }
    closedir(d);
    return n;
}

/* The installed example packs' folder into buf, or "" */
static void packs_dir(char *buf, size_t cap)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    const char *cands[2] = {AM_DATADIR "/packs/examples", NULL};
    char near[PATH_MAX + 64];
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        snprintf(near, sizeof near, "%s/../share/agentmem/packs/examples", exe);
        cands[1] = near;
    }
    buf[0] = '\0';
    for (int i = 0; i < 2; i++) {
        struct stat st;
        if (cands[i] && stat(cands[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(buf, cap, "%s", cands[i]);
            return;
        }
    }
}

/* The embedder and the cache tried on an in-memory store: resolved id
 * into id, the cache's state and error; the open's error into err. */
static void try_engine(const char *embedder, const char *cache, char *id, size_t idcap,
                       char *cache_state, char *cache_err, char *err, size_t cap)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.process_tuning = AM_PROCESS_ALL; /* a program of its own: the process is ours */
    cfg.path = ":memory:";
    cfg.embedder = embedder;
    cfg.embedder_key = getenv("AGENTMEM_EMBEDDER_KEY");
    cfg.cache = cache;
    am_db *db = NULL;
    char *msg = NULL;
    int rc = am_open(&cfg, &db, &msg);
    snprintf(id, idcap, "none");
    snprintf(cache_state, 16, cache ? "down" : "none");
    cache_err[0] = err[0] = '\0';
    if (rc) {
        snprintf(err, cap, "%s", msg ? msg : am_errstr(rc));
    } else {
        const char *e;
        snprintf(id, idcap, "%s", am_embedder_id(db));
        snprintf(cache_state, 16, "%s", am_cache_state(db, &e));
        snprintf(cache_err, 400, "%s", e);
    }
    am_free(msg);
    am_close(db);
}

int am_cli_doctor(int argc, char **argv, const char *db, const char *db_from, const char *cache)
{
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) json = 1;
        else {
            fprintf(stderr, "agentmem doctor: unknown option %s (see agentmem doctor --help)\n",
                    argv[i]);
            return 2;
        }
    }
    json_t *missing = json_array();
    /* the store */
    store_facts sf;
    if (db) probe_store(db, &sf);
    else {
        memset(&sf, 0, sizeof sf);
        sf.kind = "sqlite";
        snprintf(sf.problem, sizeof sf.problem,
                 "no store: give --db PATH, or set AGENTMEM_DB or HOME");
    }
    if (!sf.usable) json_array_append_new(missing, json_string(sf.problem));
    char store_shown[4200];
    if (db) mask_url(db, store_shown, sizeof store_shown);
    /* the embedder: configured, resolved, searched */
    const char *emb_env = getenv("AGENTMEM_EMBEDDER");
    int emb_default = !emb_env || !*emb_env;
    const char *embedder = emb_default ? "auto" : emb_env;
    am_model_dirs dirs;
    am_model_dirs_find(&dirs);
    int remote = strncmp(embedder, "openai:", 7) == 0;
    char id[256], cache_state[16], cache_err[400], open_err[700];
    try_engine(remote ? NULL : embedder, cache, id, sizeof id, cache_state, cache_err, open_err,
               sizeof open_err);
    if (remote) snprintf(id, sizeof id, "%s (remote, not contacted)", "openai");
    if (open_err[0]) json_array_append_new(missing, json_string(open_err));
    int lexical = strcmp(id, "none") == 0;
    const char *model_dir = strcmp(embedder, "auto") == 0 && dirs.found >= 0 ? dirs.dir[dirs.found]
                                                                            : NULL;
    long long model_bytes = 0;
    long shards = model_dir ? count_files(model_dir, "", &model_bytes) : -1;
    char packs[PATH_MAX + 64];
    packs_dir(packs, sizeof packs);
    long n_packs = packs[0] ? count_files(packs, ".json", NULL) : 0;
    const char *llm = getenv("AGENTMEM_LLM");
    int llm_on = llm && *llm && strcmp(llm, "none") != 0;
    int llm_key = (getenv("AGENTMEM_LLM_KEY") && *getenv("AGENTMEM_LLM_KEY")) ||
                  (getenv("AGENTMEM_LLM_KEY_FILE") && *getenv("AGENTMEM_LLM_KEY_FILE"));
    char llm_shown[600] = "";
    if (llm_on) mask_url(llm, llm_shown, sizeof llm_shown);
    char cache_shown[600] = "";
    if (cache) mask_url(cache, cache_shown, sizeof cache_shown);
    int usable = json_array_size(missing) == 0;
    const char *hint = lexical && !open_err[0] && !remote ? HOW_TO_ADD_MODEL : NULL;

    if (json) {
        json_t *searched = json_array();
        for (size_t i = 0; i < dirs.n; i++)
            json_array_append_new(searched, json_pack("{s:s,s:s,s:b}", "dir", dirs.dir[i], "from",
                                                      dirs.from[i], "has_model",
                                                      (int)i == dirs.found));
        json_t *out = json_pack(
            "{s:s,s:{s:o,s:s,s:s,s:b,s:b,s:o,s:i,s:o,s:b,s:o},s:{s:o,s:s,s:o},"
            "s:{s:s,s:s,s:s,s:o,s:o,s:o},s:o,s:{s:o,s:i},s:{s:b,s:o,s:b},s:b,s:o}",
            "version", AM_VERSION_STRING,
            "store", "path", db ? json_string(store_shown) : json_null(), "from", db_from,
            "backend", sf.kind, "exists", sf.exists, "will_create", sf.will_create,
            "schema_version", sf.schema >= 0 ? json_integer(sf.schema) : json_null(),
            "schema_current", sf.current,
            "size_bytes", sf.size >= 0 ? json_integer(sf.size) : json_null(),
            "writable", sf.writable, "problem", sf.problem[0] ? json_string(sf.problem) : json_null(),
            "cache", "url", cache ? json_string(cache_shown) : json_null(), "state", cache_state,
            "error", cache_err[0] ? json_string(cache_err) : json_null(),
            "embedder", "configured", embedder, "from",
            emb_default ? "default" : "$AGENTMEM_EMBEDDER", "resolved", id,
            "model_dir", model_dir ? json_string(model_dir) : json_null(), "searched", searched,
            "hint", hint ? json_string(hint) : json_null(),
            "model_files", model_dir ? json_pack("{s:s,s:I,s:I}", "dir", model_dir, "files",
                                                 (json_int_t)shards, "bytes",
                                                 (json_int_t)model_bytes)
                                     : json_null(),
            "packs", "dir", packs[0] ? json_string(packs) : json_null(), "files", (int)n_packs,
            "llm", "configured", llm_on, "spec", llm_on ? json_string(llm_shown) : json_null(),
            "key_set", llm_key,
            "usable", usable, "missing", missing);
        int rc = am_cli_json_print(out);
        return rc ? rc : usable ? 0 : 1;
    }
    printf("agentmem %s\n", AM_VERSION_STRING);
    printf("store     %s (%s)\n", db ? store_shown : "(none)",
           strcmp(db_from, "--db") == 0 ? "from --db / --store"
           : strcmp(db_from, "$AGENTMEM_DB") == 0 ? "from $AGENTMEM_DB" : "the default path");
    if (strcmp(sf.kind, "postgres") == 0) printf("          PostgreSQL: not probed (doctor reads files only)\n");
    else if (strcmp(sf.kind, "memory") == 0) printf("          in memory: nothing is kept\n");
    else if (sf.exists && sf.schema >= 0)
        printf("          exists, schema version %d (this agentmem: %d), %lld bytes, %s\n", sf.schema,
               sf.current, sf.size, sf.writable ? "writable" : "NOT writable");
    else if (sf.will_create) printf("          does not exist yet: will be created on first use\n");
    if (sf.problem[0]) printf("          problem: %s\n", sf.problem);
    if (cache)
        printf("cache     %s: %s%s%s\n", cache_shown,
               strcmp(cache_state, "up") == 0 ? "reachable" : "NOT reachable",
               cache_err[0] ? ": " : "", cache_err);
    else printf("cache     none (--cache URL or $AGENTMEM_CACHE: redis://...)\n");
    printf("embedder  %s (%s) -> %s%s\n", embedder,
           emb_default ? "the default" : "$AGENTMEM_EMBEDDER or --embedder", id,
           lexical ? " (keyword recall)" : "");
    if (open_err[0]) printf("          problem: %s\n", open_err);
    if (strcmp(embedder, "auto") == 0) {
        printf("          encoder weights searched in:\n");
        for (size_t i = 0; i < dirs.n; i++)
            printf("            %-5s %s (%s)\n", (int)i == dirs.found ? "found" : "-", dirs.dir[i],
                   dirs.from[i]);
    }
    if (hint)
        printf("          keyword recall only.  For semantic recall install the encoder's weights:\n"
               "            the agentmem package does; or from a clone: bash scripts/fetch-model.sh,\n"
               "            then copy models/use-lite to ~/.local/share/agentmem/models/use-lite;\n"
               "            or set AGENTMEM_MODEL_DIR to a folder holding them\n");
    if (model_dir)
        printf("model     %s: %ld files, %lld bytes\n", model_dir, shards, model_bytes);
    else printf("model     none in use\n");
    if (packs[0]) printf("packs     %s: %ld example packs\n", packs, n_packs);
    else printf("packs     example packs not installed (packs/ in the source tree)\n");
    if (llm_on) printf("llm       %s, key %s\n", llm_shown, llm_key ? "set" : "not set");
    else printf("llm       not configured (optional: AGENTMEM_LLM, docs/LLM.md)\n");
    printf("status    %s\n", usable ? "usable" : "NOT usable: see the problems above");
    json_decref(missing);
    return usable ? 0 : 1;
}
