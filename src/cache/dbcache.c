/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dbcache.c -- what the engine keeps in the shared cache (am_config.cache,
 * Redis; docs/SCALING.md "Redis"): the key layout, the per-user
 * generation that memory changes move, the recall cache, and forgetting
 * in the cache.  The connection itself is redis.c; working memory's
 * entries are working.c; api/cache.c opens it with the store's identity
 * and the configuration's digest.
 *
 * Keys (no raw text in a key name: ids and queries are hashed):
 *   am:{U}:gen          the user's generation (a number; PEXPIRE 2 x the
 *                       recall TTL, renewed by every read of it)
 *   am:{U}:r:Q          a recall result (binary, below), TTL ttl_ms
 *   am:{U}:w:S:K        a working-memory entry (working.c), its TTL
 *   am:{U}:wi:S         the session's index of entries (a hash)
 *   am:epoch            moved by a handle that could not move a generation
 * U = hex(SHA-256("am-user" NUL store-id NUL user))[0..32), so a user's
 * keys share one prefix (and one cluster slot), and two stores sharing a
 * Redis never share keys.  The store id is the file's real path, or the
 * store URL without its password, or a fresh ULID for ":memory:".
 * Q = SHA-256 over the config's digest (computed by api/cache.c) (the knobs, the embedder, the
 * redaction policy, the zone, the role rules, whether a vault key is
 * set), the epoch, the generation, the resolved user, every field of the
 * query and the recall time cut to the time bucket (time_ms, default 1 s).
 *
 * Invalidation: every public write that commits a change of a user's data
 * (an add, a forget or restore, feedback, a workspace put, a link, a
 * merge, a re-embed, a recall's heat touch) notes the user, and after the
 * commit the generation is moved (INCR, by a script that also renews its
 * TTL and starts a missing one at the clock's microseconds, so a
 * generation never comes back).  A cached entry is keyed by the
 * generation it was read under, so any handle's or server's write to the
 * same store and Redis makes it unreachable.  A handle that cannot move a
 * generation (Redis down) owes an epoch move, made on its first command
 * once Redis is back: every entry becomes unreachable.
 *
 * What is cached: only recalls whose heat touch changes nothing (no_touch,
 * an as_of recall, or one that shows no item), since a touch moves the
 * hits a fresh recall would show next; a touch that is written moves the
 * generation too.  The served result is rebuilt from the entry: the
 * same fields, bit for bit (doubles as their 8 bytes), and its JSON is
 * written by the same code as a fresh one's.
 *
 * Forgetting: a forget at any level deletes the user's recall entries
 * (SCAN am:{U}:r:* + DEL) and moves the generation; a user's forget
 * deletes every am:{U}:* key.  When Redis is down at that moment, the
 * purge is kept in the handle (up to FORGET_PENDING users; more: every
 * recall entry of the Redis) and done first when Redis answers again.
 *
 * Down: every command here fails fast (cache/redis.c) and the caller goes
 * on without the cache -- a recall runs the pipeline, a write commits.
 */
#define _XOPEN_SOURCE 700 /* clock_gettime */
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/cache.h"

#define PREFIX_MAX 48
#define FORGET_PENDING 32
#define TIME_BUCKET_MS 1000

struct am__dbcache {
    am__cache *c;
    am__allocator alloc;          /* the handle's (a copy) */
    void (*log)(void *ctx, int level, const char *msg);
    void *log_ctx;
    unsigned char cfg_digest[32]; /* the store id and everything else a result depends on */
    char store_id[600];
    int owe_epoch;                /* a generation could not be moved */
    size_t n_pending;             /* forgotten users whose keys are still there */
    int pending_all;
    char pending[FORGET_PENDING][PREFIX_MAX];
    size_t n_noted;               /* users changed by the open write */
    int noted_all;
    char noted[16][AM_ID_MAX + 1];
};

/* ------------------------------------------------------------ hashing */

void am__cache_digest_init(am__cache_digest *d)
{
    d->md = EVP_MD_CTX_new();
    d->ok = d->md && EVP_DigestInit_ex(d->md, EVP_sha256(), NULL) == 1;
}
void am__cache_digest_add(am__cache_digest *d, const void *p, size_t n)
{
    if (d->ok && n) d->ok = EVP_DigestUpdate(d->md, p, n) == 1;
}
/* a string with its presence and length: fields never run into each other */
void am__cache_digest_str(am__cache_digest *d, const char *s)
{
    unsigned char tag = s ? 1 : 0;
    am__cache_digest_add(d, &tag, 1);
    if (!s) return;
    uint64_t n = strlen(s);
    am__cache_digest_add(d, &n, sizeof n);
    am__cache_digest_add(d, s, (size_t)n);
}
void am__cache_digest_int(am__cache_digest *d, int64_t v) { am__cache_digest_add(d, &v, sizeof v); }
int am__cache_digest_end(am__cache_digest *d, unsigned char out[32])
{
    unsigned len = 0;
    if (d->ok) d->ok = EVP_DigestFinal_ex(d->md, out, &len) == 1 && len == 32;
    EVP_MD_CTX_free(d->md);
    return d->ok ? AM_OK : AM_ERROR;
}

static void hex(const unsigned char *p, size_t n, char *out)
{
    static const char h[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = h[p[i] >> 4];
        out[2 * i + 1] = h[p[i] & 15];
    }
    out[2 * n] = 0;
}

int am__dbcache_user_prefix(const am__dbcache *k, const char *uid, char out[PREFIX_MAX])
{
    if (!k) return AM_MISUSE;
    am__cache_digest d;
    unsigned char h[32];
    am__cache_digest_init(&d);
    am__cache_digest_str(&d, "am-user");
    am__cache_digest_str(&d, k->store_id);
    am__cache_digest_str(&d, uid);
    if (am__cache_digest_end(&d, h)) return AM_ERROR;
    char hx[33];
    hex(h, 16, hx);
    snprintf(out, PREFIX_MAX, "am:{%s}:", hx);
    return AM_OK;
}

/* ------------------------------------------------------------ open, close */

int am__dbcache_connect(const char *url, const am__allocator *a,
                        void (*log)(void *ctx, int level, const char *msg), void *log_ctx,
                        am__dbcache **out, char *err, size_t cap)
{
    *out = NULL;
    am__dbcache *k = am__calloc(a, sizeof *k);
    if (!k) {
        snprintf(err, cap, "open: out of memory");
        return AM_NOMEM;
    }
    char why[300];
    int rc = am__cache_open(url, a, log, log_ctx, &k->c, why, sizeof why);
    if (rc) {
        am__free(a, k);
        snprintf(err, cap, "open: %s", why);
        return rc;
    }
    k->alloc = *a;
    k->log = log;
    k->log_ctx = log_ctx;
    *out = k;
    return AM_OK;
}

void am__dbcache_identify(am__dbcache *k, const char *store_id, const unsigned char cfg_digest[32])
{
    snprintf(k->store_id, sizeof k->store_id, "%s", store_id);
    memcpy(k->cfg_digest, cfg_digest, sizeof k->cfg_digest);
}

void am__dbcache_free(am__dbcache *k)
{
    if (!k) return;
    am__cache_close(k->c);
    am__allocator a = k->alloc;
    am__free(&a, k);
}

const char *am__dbcache_state(const am__dbcache *k, const char **err)
{
    return am__cache_state(k->c, err);
}

am__allocator *am__dbcache_alloc(am__dbcache *k) { return &k->alloc; }

static void say(const am__dbcache *k, int level, const char *msg)
{
    if (k->log) k->log(k->log_ctx, level, msg);
}

/* ------------------------------------------------------------ owed work */

/* What a handle owes the cache since it was down: the epoch move and the
 * purges of forgotten users.  AM_OK when nothing is owed any more. */
static int settle(am__dbcache *k)
{
    int rc = AM_OK;
    if (k->owe_epoch) {
        const char *av[2] = {"INCR", "am:epoch"};
        if ((rc = am__cache_cmd(k->c, NULL, NULL, 2, av, NULL))) return rc;
        k->owe_epoch = 0;
    }
    if (k->pending_all) {
        if ((rc = am__cache_purge(k->c, "am:{*}:r:*", NULL))) return rc;
        k->pending_all = 0;
    }
    while (k->n_pending) {
        char pat[PREFIX_MAX + 2];
        snprintf(pat, sizeof pat, "%s*", k->pending[k->n_pending - 1]);
        if ((rc = am__cache_purge(k->c, pat, NULL))) return rc;
        k->n_pending--;
    }
    return AM_OK;
}

static int ready(am__dbcache *k)
{
    if (!k) return 0;
    if (!k->owe_epoch && !k->n_pending && !k->pending_all) return 1;
    return settle(k) == AM_OK;
}

/* A health check's round trip (am_store_check with ping): what is owed
 * settled, else a PING -- so the state am_cache_state shows is fresh even
 * on a handle no recall or write has used since Redis came back. */
void am__dbcache_ping(am__dbcache *k)
{
    if (!k || !ready(k) || k->owe_epoch || k->n_pending || k->pending_all) return;
    const char *av[1] = {"PING"};
    (void)am__cache_cmd(k->c, NULL, NULL, 1, av, NULL);
}

/* ------------------------------------------------------------ generations */

/* KEYS: the user's generation, the epoch; ARGV: a seed (a start value
 * never used before), the generation's TTL, "1" to move it.  Returns
 * {generation, epoch}. */
static const char GEN_SCRIPT[] =
    "local g\n"
    "if ARGV[3] == '1' then\n"
    "  g = redis.call('INCR', KEYS[1])\n"
    "  if g == 1 then g = ARGV[1]; redis.call('SET', KEYS[1], g) end\n"
    "else\n"
    "  g = redis.call('GET', KEYS[1])\n"
    "  if not g then g = ARGV[1]; redis.call('SET', KEYS[1], g) end\n"
    "end\n"
    "redis.call('PEXPIRE', KEYS[1], ARGV[2])\n"
    "local e = redis.call('GET', KEYS[2])\n"
    "if not e then redis.call('SET', KEYS[2], ARGV[1], 'NX'); e = redis.call('GET', KEYS[2]) end\n"
    "return {tostring(g), tostring(e)}\n";

static int generation(am__dbcache *k, const char *prefix, int move, am__arena *ar, char *gen, size_t cap)
{
    char key[PREFIX_MAX + 8], seed[32], ttl[32];
    snprintf(key, sizeof key, "%sgen", prefix);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(seed, sizeof seed, "%lld", (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
    snprintf(ttl, sizeof ttl, "%lld", (long long)am__cache_recall_ttl(k->c) * 2 + 1000);
    const char *av[8] = {"EVAL", GEN_SCRIPT, "2", key, "am:epoch", seed, ttl, move ? "1" : "0"};
    am__cache_reply *r;
    int rc = am__cache_cmd(k->c, ar, &r, 8, av, NULL);
    if (rc) return rc;
    if (r->kind != AM__CR_ARR || r->n != 2 || r->el[0].kind != AM__CR_STR ||
        r->el[1].kind != AM__CR_STR)
        return AM_BACKEND;
    snprintf(gen, cap, "%s/%s", r->el[0].s, r->el[1].s);
    return AM_OK;
}

void am__dbcache_note(am__dbcache *k, const char *uid)
{
    if (!k || !uid) return;
    for (size_t i = 0; i < k->n_noted; i++)
        if (strcmp(k->noted[i], uid) == 0) return;
    if (k->n_noted == sizeof k->noted / sizeof *k->noted || strlen(uid) > AM_ID_MAX) {
        k->noted_all = 1;
        return;
    }
    memcpy(k->noted[k->n_noted++], uid, strlen(uid) + 1);
}

void am__dbcache_flush(am__dbcache *k)
{
    if (!k || (!k->n_noted && !k->noted_all)) return;
    am__arena ar;
    am__arena_init(&ar, &k->alloc);
    int ok = ready(k);
    if (ok && k->noted_all) {
        const char *av[2] = {"INCR", "am:epoch"};
        ok = am__cache_cmd(k->c, NULL, NULL, 2, av, NULL) == AM_OK;
    }
    for (size_t i = 0; ok && i < k->n_noted; i++) {
        char prefix[PREFIX_MAX], gen[80];
        ok = am__dbcache_user_prefix(k, k->noted[i], prefix) == AM_OK &&
             generation(k, prefix, 1, &ar, gen, sizeof gen) == AM_OK;
    }
    if (!ok) k->owe_epoch = 1; /* entries of the old generations must not come back */
    k->n_noted = 0;
    k->noted_all = 0;
    am__arena_free(&ar);
}

/* ------------------------------------------------------------ forgetting */

void am__dbcache_forget(am__dbcache *k, const char *uid, int whole_user)
{
    if (!k) return;
    char prefix[PREFIX_MAX], pat[PREFIX_MAX + 4], gen[80];
    if (am__dbcache_user_prefix(k, uid, prefix)) return;
    snprintf(pat, sizeof pat, "%s%s", prefix, whole_user ? "*" : "r:*");
    am__arena ar;
    am__arena_init(&ar, &k->alloc);
    int ok = ready(k) && am__cache_purge(k->c, pat, NULL) == AM_OK;
    if (ok && !whole_user) ok = generation(k, prefix, 1, &ar, gen, sizeof gen) == AM_OK;
    am__arena_free(&ar);
    if (ok) return;
    k->owe_epoch = 1;
    if (!whole_user) { /* its recall entries: expired, or gone with the epoch's purge */
        k->pending_all = 1;
        return;
    }
    for (size_t i = 0; i < k->n_pending; i++)
        if (strcmp(k->pending[i], prefix) == 0) return;
    if (k->n_pending < FORGET_PENDING) memcpy(k->pending[k->n_pending++], prefix, PREFIX_MAX);
    else k->pending_all = 1;
    say(k, AM_LOG_WARN, "forget: cache down: the user's cache keys are deleted when it is back");
}

/* ------------------------------------------------------------ serialising a result */

static void w_int(am__buf *b, int64_t v)
{
    unsigned char x[8];
    for (int i = 0; i < 8; i++) x[i] = (unsigned char)((uint64_t)v >> (8 * i));
    am__buf_add(b, x, 8);
}
static void w_dbl(am__buf *b, double v)
{
    int64_t x;
    memcpy(&x, &v, sizeof x);
    w_int(b, x);
}
static void w_str(am__buf *b, const char *s)
{
    if (!s) {
        w_int(b, -1);
        return;
    }
    size_t n = strlen(s);
    w_int(b, (int64_t)n);
    am__buf_add(b, s, n);
}

static void w_memory(am__buf *b, const am_memory *m)
{
    const char *s[] = {m->id, m->lineage_id, m->scope, m->kind, m->key, m->text, m->value_json, m->status};
    for (size_t i = 0; i < sizeof s / sizeof *s; i++) w_str(b, s[i]);
    w_dbl(b, m->confidence);
    w_dbl(b, m->base_score);
    w_dbl(b, m->half_life_days);
    w_int(b, m->hits);
    const am_time t[] = {m->last_access, m->valid_from, m->valid_to, m->recorded_at, m->superseded_at};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) w_int(b, t[i]);
    w_int(b, (int64_t)m->n_sources);
    for (size_t i = 0; i < m->n_sources; i++) w_str(b, m->source_event_ids[i]);
    w_dbl(b, m->score);
    w_int(b, m->source_count);
    w_int(b, m->reinforced_at);
    w_str(b, m->metadata_json);
    w_str(b, m->origin);
    w_int(b, m->expires_at);
}

static void w_event(am__buf *b, const am_event_rec *e)
{
    const char *s[] = {e->id, e->agent_id, e->session_id, e->task_id, e->channel,
                       e->source, e->type, e->domain, e->intent, e->content};
    for (size_t i = 0; i < sizeof s / sizeof *s; i++) w_str(b, s[i]);
    w_int(b, e->occurred_at);
    w_int(b, e->tz_minutes);
    w_dbl(b, e->score);
    w_str(b, e->metadata_json);
}

static void w_task(am__buf *b, const am_task *t)
{
    const char *s[] = {t->task_id, t->name, t->stage, t->status, t->artifacts_json,
                       t->pending_json, t->notes_json, t->period, t->rounds_json, t->task_ref};
    for (size_t i = 0; i < sizeof s / sizeof *s; i++) w_str(b, s[i]);
    w_int(b, t->created_at);
    w_int(b, t->updated_at);
    w_int(b, t->round);
    w_int(b, t->round_started_at);
    w_int(b, (int64_t)t->n_history);
    for (size_t i = 0; i < t->n_history; i++) {
        const am_task_change *c = &t->history[i];
        w_int(b, c->at);
        w_str(b, c->field);
        w_str(b, c->old_value);
        w_str(b, c->new_value);
        w_str(b, c->event_id);
    }
}

#define MAGIC "AMR2" /* AMR2: a task's task_ref */

static void w_result(am__buf *b, const am_recall_result *r)
{
    am__buf_add(b, MAGIC, 4);
    w_int(b, r->need_memory);
    w_str(b, r->route);
    w_str(b, r->lang);
    w_int(b, r->domain_conflict);
    w_str(b, r->block);
    w_int(b, r->block_tokens);
    w_str(b, r->block_system);
    w_str(b, r->block_context);
    w_int(b, r->block_system_tokens);
    w_int(b, r->block_context_tokens);
    w_str(b, r->route_reason);
    w_int(b, r->refs);
    w_int(b, (int64_t)r->n_memories);
    for (size_t i = 0; i < r->n_memories; i++) w_memory(b, &r->memories[i]);
    w_int(b, (int64_t)r->n_events);
    for (size_t i = 0; i < r->n_events; i++) w_event(b, &r->events[i]);
    w_int(b, r->task != NULL);
    if (r->task) w_task(b, r->task);
}

/* Reading: every length checked against what is left; any problem (a
 * truncated or foreign value) makes the entry a miss. */
typedef struct rd {
    const unsigned char *p, *end;
    am__arena *ar;
    int bad;
} rd;

static int64_t r_int(rd *r)
{
    if (r->bad || r->end - r->p < 8) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8;
    return (int64_t)v;
}
static double r_dbl(rd *r)
{
    int64_t x = r_int(r);
    double v;
    memcpy(&v, &x, sizeof v);
    return v;
}
static const char *r_str(rd *r)
{
    int64_t n = r_int(r);
    if (r->bad || n == -1) return NULL;
    if (n < 0 || n > r->end - r->p) {
        r->bad = 1;
        return NULL;
    }
    const char *s = am__arena_strndup(r->ar, (const char *)r->p, (size_t)n);
    if (!s) r->bad = 1;
    r->p += n;
    return s;
}
static int r_int32(rd *r)
{
    int64_t v = r_int(r);
    if (v < INT_MIN || v > INT_MAX) r->bad = 1;
    return (int)v;
}
/* a count of elements of at least `min` bytes each */
static size_t r_count(rd *r, size_t min)
{
    int64_t n = r_int(r);
    if (r->bad || n < 0 || (uint64_t)n > (uint64_t)(r->end - r->p) / min) {
        r->bad = 1;
        return 0;
    }
    return (size_t)n;
}
static void *r_array(rd *r, size_t n, size_t elem)
{
    void *p = am__arena_alloc(r->ar, (n + 1) * elem);
    if (!p) r->bad = 1;
    return p;
}

static void r_memory(rd *r, am_memory *m)
{
    const char **s[] = {&m->id, &m->lineage_id, &m->scope, &m->kind, &m->key, &m->text, &m->value_json, &m->status};
    for (size_t i = 0; i < sizeof s / sizeof *s; i++) *s[i] = r_str(r);
    m->confidence = r_dbl(r);
    m->base_score = r_dbl(r);
    m->half_life_days = r_dbl(r);
    m->hits = (long)r_int(r);
    am_time *t[] = {&m->last_access, &m->valid_from, &m->valid_to, &m->recorded_at, &m->superseded_at};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) *t[i] = r_int(r);
    m->n_sources = r_count(r, 8);
    m->source_event_ids = r_array(r, m->n_sources, sizeof(char *));
    for (size_t i = 0; !r->bad && i < m->n_sources; i++) m->source_event_ids[i] = r_str(r);
    m->score = r_dbl(r);
    m->source_count = (long)r_int(r);
    m->reinforced_at = r_int(r);
    m->metadata_json = r_str(r);
    m->origin = r_str(r);
    m->expires_at = r_int(r);
}

static void r_event(rd *r, am_event_rec *e)
{
    const char **s[] = {&e->id, &e->agent_id, &e->session_id, &e->task_id, &e->channel,
                        &e->source, &e->type, &e->domain, &e->intent, &e->content};
    for (size_t i = 0; i < sizeof s / sizeof *s; i++) *s[i] = r_str(r);
    e->occurred_at = r_int(r);
    e->tz_minutes = r_int32(r);
    e->score = r_dbl(r);
    e->metadata_json = r_str(r);
}

static void r_task(rd *r, am_task *t)
{
    const char **s[] = {&t->task_id, &t->name, &t->stage, &t->status, &t->artifacts_json,
                        &t->pending_json, &t->notes_json, &t->period, &t->rounds_json,
                        &t->task_ref};
    for (size_t i = 0; i < sizeof s / sizeof *s; i++) *s[i] = r_str(r);
    t->created_at = r_int(r);
    t->updated_at = r_int(r);
    t->round = r_int32(r);
    t->round_started_at = r_int(r);
    t->n_history = r_count(r, 8 * 5);
    t->history = r_array(r, t->n_history, sizeof *t->history);
    for (size_t i = 0; !r->bad && i < t->n_history; i++) {
        am_task_change *c = &t->history[i];
        c->at = r_int(r);
        c->field = r_str(r);
        c->old_value = r_str(r);
        c->new_value = r_str(r);
        c->event_id = r_str(r);
    }
}

static int r_result(rd *r, am_recall_result *res)
{
    if (r->end - r->p < 4 || memcmp(r->p, MAGIC, 4) != 0) return AM_CORRUPT;
    r->p += 4;
    res->need_memory = r_int32(r);
    res->route = r_str(r);
    res->lang = r_str(r);
    res->domain_conflict = r_int32(r);
    res->block = r_str(r);
    res->block_tokens = r_int32(r);
    res->block_system = r_str(r);
    res->block_context = r_str(r);
    res->block_system_tokens = r_int32(r);
    res->block_context_tokens = r_int32(r);
    res->route_reason = r_str(r);
    res->refs = (unsigned)r_int(r);
    res->n_memories = r_count(r, 8 * 20);
    res->memories = r_array(r, res->n_memories, sizeof *res->memories);
    for (size_t i = 0; !r->bad && i < res->n_memories; i++) r_memory(r, &res->memories[i]);
    res->n_events = r_count(r, 8 * 13);
    res->events = r_array(r, res->n_events, sizeof *res->events);
    for (size_t i = 0; !r->bad && i < res->n_events; i++) r_event(r, &res->events[i]);
    if (r_int(r)) {
        res->task = am__arena_alloc(r->ar, sizeof *res->task);
        if (!res->task) r->bad = 1;
        else r_task(r, res->task);
    }
    if (r->bad || r->p != r->end || !res->route || !res->lang) return AM_CORRUPT;
    return AM_OK;
}

/* ------------------------------------------------------------ the recall cache */

/* The entry's key for this recall, or AM_IO (cache down) / AM_ERROR. */
int am__dbcache_recall_key(am__dbcache *k, const char *uid, const am_query *q, am_time now,
                           am__arena *ar, char **key)
{
    *key = NULL;
    if (!k) return AM_MISUSE;
    if (!ready(k)) return AM_IO;
    char prefix[PREFIX_MAX], gen[80];
    int rc = am__dbcache_user_prefix(k, uid, prefix);
    if (!rc) rc = generation(k, prefix, 0, ar, gen, sizeof gen);
    if (rc) return rc;
    am__cache_digest d;
    unsigned char h[32];
    am__cache_digest_init(&d);
    am__cache_digest_str(&d, "am-recall-4"); /* 3: entries carry metadata and origin; 4: expires_at */
    am__cache_digest_add(&d, k->cfg_digest, sizeof k->cfg_digest);
    am__cache_digest_str(&d, gen);
    am__cache_digest_str(&d, uid);
    /* the identity fields are in uid; every other field as given */
    const char *s[] = {q->agent_id, q->session_id, q->task_id, q->domain, q->text, q->as_of, q->role};
    for (size_t i = 0; i < sizeof s / sizeof *s; i++) am__cache_digest_str(&d, s[i]);
    am__cache_digest_int(&d, q->budget_tokens);
    am__cache_digest_int(&d, q->max_memories);
    am__cache_digest_int(&d, q->max_events);
    am__cache_digest_int(&d, !!q->no_touch);
    am__cache_digest_int(&d, now >= 0 ? now / TIME_BUCKET_MS : -((-now - 1) / TIME_BUCKET_MS) - 1);
    if (am__cache_digest_end(&d, h)) return AM_ERROR;
    char hx[41];
    hex(h, 20, hx);
    *key = am__arena_alloc(ar, PREFIX_MAX + 48);
    if (!*key) return AM_NOMEM;
    snprintf(*key, PREFIX_MAX + 48, "%.47sr:%s", prefix, hx);
    return AM_OK;
}

int am__dbcache_recall_get(am__dbcache *k, const char *key, am__arena *ar, am_recall_result *res)
{
    const char *av[2] = {"GET", key};
    am__cache_reply *r;
    int rc = am__cache_cmd(k->c, ar, &r, 2, av, NULL);
    if (rc) return rc;
    if (r->kind != AM__CR_STR) return AM_NOTFOUND;
    rd in = {(const unsigned char *)r->s, (const unsigned char *)r->s + r->len, ar, 0};
    am_recall_result got;
    memset(&got, 0, sizeof got);
    if (r_result(&in, &got)) {
        say(k, AM_LOG_WARN, "recall: cache entry is not one of ours: ignored");
        return AM_NOTFOUND;
    }
    *res = got;
    return AM_OK;
}

void am__dbcache_recall_put(am__dbcache *k, const char *key, const am_recall_result *res, am_time now)
{
    /* the entry is served for the rest of its time bucket: not when an
     * item it shows expires before that ends */
    am_time bucket_end = (now >= 0 ? now / TIME_BUCKET_MS + 1 : -((-now - 1) / TIME_BUCKET_MS)) *
                         TIME_BUCKET_MS;
    for (size_t i = 0; i < res->n_memories; i++)
        if (res->memories[i].valid_to != AM_TIME_NONE && res->memories[i].valid_to <= bucket_end)
            return;
    am__buf b;
    am__buf_init(&b, &k->alloc);
    w_result(&b, res);
    if (!b.oom) {
        char ttl[32];
        snprintf(ttl, sizeof ttl, "%lld", (long long)am__cache_recall_ttl(k->c));
        const char *av[5] = {"SET", key, b.p, "PX", ttl};
        size_t lens[5] = {3, strlen(key), b.len, 2, strlen(ttl)};
        am__cache_cmd(k->c, NULL, NULL, 5, av, lens); /* down: not cached, that is all */
    }
    am__buf_free(&b);
}

/* ------------------------------------------------------------ for working memory */

am__cache *am__dbcache_conn(am__dbcache *k)
{
    if (!k || !ready(k)) return NULL;
    return k->c;
}
