/*
 * vec_cache.c -- the vectors of recently recalled users, in memory.
 *
 * An exact vector scan reads every vector of the user.  Through SQL that
 * is an index step, a table lookup and a blob copy per event (about 1 us
 * each, more than the dot product itself); a user's vectors are also
 * scattered over the file among everyone else's.  The cache keeps, per
 * (user, embedder, width), the vectors as one contiguous int8 matrix with
 * their row ids and scales, so a scan is a tight integer loop.
 *
 * Kept true:
 *   - appends: a new vector of a cached user whose row id is above the
 *     entry's last one is appended (events get increasing row ids);
 *     any other write (a replaced vector: re-embedding) drops the entry;
 *   - transactions: entries appended to inside a transaction that rolls
 *     back are dropped (their rows never existed);
 *   - forgetting drops the user's entries;
 *   - other connections: PRAGMA data_version moves when another
 *     connection commits; then every entry is dropped.
 * At most AM__VC_BYTES of vectors; the least recently used entry goes
 * first.  Time-bounded scans (as_of) do not use the cache.
 */
#include "store/sqlite/sqlite_int.h"

#include <stdio.h>
#include <string.h>

#define VC_SLOTS 16
#define AM__VC_BYTES ((size_t)256 << 20)

typedef struct vc_entry {
    char *uid, *embedder;
    int dim;
    size_t n, cap;
    int64_t *rid;
    float *scale;
    signed char *vec; /* n x dim */
    uint64_t used;    /* LRU clock */
    int dirty;        /* appended to in the open transaction */
} vc_entry;

#define VC_BIG 4 /* users remembered as too big to cache */

struct am__vcache {
    const am__allocator *a;
    vc_entry e[VC_SLOTS];
    char big[VC_BIG][AM_ID_MAX + 1];
    unsigned next_big;
    uint64_t clock;
    int64_t data_version;
    size_t bytes;
};

static void make_room(am__vcache *c, size_t need);

am__vcache *am__vc_new(const am__allocator *a)
{
    am__vcache *c = am__calloc(a, sizeof *c);
    if (c) {
        c->a = a;
        c->data_version = -1;
    }
    return c;
}

static void drop(am__vcache *c, vc_entry *e)
{
    if (!e->uid) return;
    c->bytes -= e->cap * ((size_t)e->dim + sizeof *e->rid + sizeof *e->scale);
    am__free(c->a, e->uid);
    am__free(c->a, e->embedder);
    am__free(c->a, e->rid);
    am__free(c->a, e->scale);
    am__free(c->a, e->vec);
    memset(e, 0, sizeof *e);
}

void am__vc_free(am__vcache *c)
{
    if (!c) return;
    for (int i = 0; i < VC_SLOTS; i++) drop(c, &c->e[i]);
    am__free(c->a, c);
}

void am__vc_clear(am__vcache *c, const char *uid)
{
    if (!c) return;
    for (int i = 0; i < VC_BIG; i++)
        if (!uid || strcmp(c->big[i], uid) == 0) c->big[i][0] = 0;
    for (int i = 0; i < VC_SLOTS; i++)
        if (c->e[i].uid && (!uid || strcmp(c->e[i].uid, uid) == 0)) drop(c, &c->e[i]);
}

void am__vc_txn_end(am__vcache *c, int committed)
{
    if (!c) return;
    for (int i = 0; i < VC_SLOTS; i++) {
        if (!c->e[i].dirty) continue;
        if (committed) c->e[i].dirty = 0;
        else drop(c, &c->e[i]);
    }
}

static vc_entry *find(am__vcache *c, const char *uid, const char *embedder, int dim)
{
    for (int i = 0; i < VC_SLOTS; i++) {
        vc_entry *e = &c->e[i];
        if (e->uid && e->dim == dim && strcmp(e->uid, uid) == 0 &&
            strcmp(e->embedder, embedder) == 0)
            return e;
    }
    return NULL;
}

/* Room for n more rows (doubling); 0 or AM_NOMEM. */
static int grow(am__vcache *c, vc_entry *e, size_t more)
{
    if (e->n + more <= e->cap) return AM_OK;
    size_t cap = e->cap ? e->cap : 256;
    while (cap < e->n + more) cap *= 2;
    size_t row = (size_t)e->dim + sizeof *e->rid + sizeof *e->scale;
    int64_t *rid = am__realloc(c->a, e->rid, cap * sizeof *rid);
    if (rid) e->rid = rid;
    float *scale = am__realloc(c->a, e->scale, cap * sizeof *scale);
    if (scale) e->scale = scale;
    signed char *vec = am__realloc(c->a, e->vec, cap * (size_t)e->dim);
    if (vec) e->vec = vec;
    if (!rid || !scale || !vec) return AM_NOMEM;
    c->bytes += (cap - e->cap) * row;
    e->cap = cap;
    return AM_OK;
}

void am__vc_put(am__vcache *c, const char *uid, const char *embedder, int dim, int64_t rid,
                float scale, const signed char *v, int in_txn)
{
    if (!c) return;
    vc_entry *e = find(c, uid, embedder, dim);
    if (!e) return; /* not cached: nothing to keep true */
    size_t row = (size_t)dim + sizeof *e->rid + sizeof *e->scale;
    if ((e->n && rid <= e->rid[e->n - 1]) ||
        (e->n == e->cap && 2 * e->cap * row > AM__VC_BYTES / 2) || grow(c, e, 1) != AM_OK) {
        drop(c, e); /* a replaced vector, or grown past what is cached */
        return;
    }
    if (c->bytes > AM__VC_BYTES) {
        e->used = ++c->clock; /* others go first */
        make_room(c, 0);
    }
    e->rid[e->n] = rid;
    e->scale[e->n] = scale;
    memcpy(e->vec + e->n * (size_t)dim, v, (size_t)dim);
    e->n++;
    if (in_txn) e->dirty = 1;
}

/* Another connection committed since we last looked: drop everything. */
static int check_version(am__vcache *c, sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "PRAGMA data_version", -1, &st, NULL) != SQLITE_OK) return AM_BACKEND;
    int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -2;
    sqlite3_finalize(st);
    if (v != c->data_version) { /* the too-big memo stays */
        for (int i = 0; i < VC_SLOTS; i++) drop(c, &c->e[i]);
        c->data_version = v;
    }
    return AM_OK;
}

/* Evict least recently used entries until `need` more bytes fit. */
static void make_room(am__vcache *c, size_t need)
{
    while (c->bytes + need > AM__VC_BYTES) {
        vc_entry *lru = NULL;
        for (int i = 0; i < VC_SLOTS; i++)
            if (c->e[i].uid && (!lru || c->e[i].used < lru->used)) lru = &c->e[i];
        if (!lru) return;
        drop(c, lru);
    }
}

int am__vc_get(am__vcache *c, sqlite3 *db, const char *uid, const char *embedder, int dim,
               am__vc_view *out)
{
    memset(out, 0, sizeof *out);
    if (!c) return AM_NOTFOUND;
    int rc = check_version(c, db);
    if (rc) return rc;
    vc_entry *e = find(c, uid, embedder, dim);
    if (!e) {
        /* a user known to be too big for the cache: SQL, without loading */
        for (int i = 0; i < VC_BIG; i++)
            if (c->big[i][0] && strcmp(c->big[i], uid) == 0) return AM_NOTFOUND;
        sqlite3_stmt *st = NULL;
        for (int i = 0; i < VC_SLOTS && !e; i++)
            if (!c->e[i].uid) e = &c->e[i];
        if (!e) { /* every slot taken: the least recently used goes */
            e = &c->e[0];
            for (int i = 1; i < VC_SLOTS; i++)
                if (c->e[i].used < e->used) e = &c->e[i];
            drop(c, e);
        }
        e->uid = am__strdup(c->a, uid);
        e->embedder = am__strdup(c->a, embedder);
        e->dim = dim;
        if (!e->uid || !e->embedder || grow(c, e, 1) != AM_OK) {
            drop(c, e);
            return AM_NOTFOUND; /* no memory for a cache: scan with SQL */
        }
        if (sqlite3_prepare_v2(db,
                               "SELECT event_rid, scale, vec FROM event_vectors"
                               " WHERE user_id=?1 AND embedder=?2 AND dim=?3 ORDER BY event_rid",
                               -1, &st, NULL) != SQLITE_OK) {
            drop(c, e);
            return AM_BACKEND;
        }
        sqlite3_bind_text(st, 1, uid, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, embedder, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, dim);
        size_t row = (size_t)dim + sizeof *e->rid + sizeof *e->scale;
        int too_big = 0;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            const void *v = sqlite3_column_blob(st, 2);
            if (!v || sqlite3_column_bytes(st, 2) != dim) continue;
            if (e->n == e->cap && 2 * e->cap * row > AM__VC_BYTES / 2) {
                too_big = 1; /* counted as it loads: no count query first */
                break;
            }
            if (grow(c, e, 1) != AM_OK) { rc = SQLITE_NOMEM; break; }
            e->rid[e->n] = sqlite3_column_int64(st, 0);
            e->scale[e->n] = (float)sqlite3_column_double(st, 1);
            memcpy(e->vec + e->n * (size_t)dim, v, (size_t)dim);
            e->n++;
        }
        sqlite3_finalize(st);
        if (too_big) {
            drop(c, e);
            snprintf(c->big[c->next_big++ % VC_BIG], sizeof c->big[0], "%s", uid);
            return AM_NOTFOUND;
        }
        if (rc != SQLITE_DONE) {
            drop(c, e);
            return rc == SQLITE_NOMEM ? AM_NOTFOUND : AM_BACKEND;
        }
        e->used = ++c->clock;
        make_room(c, 0); /* others, least recently used first */
    }
    e->used = ++c->clock;
    out->n = e->n;
    out->rid = e->rid;
    out->scale = e->scale;
    out->vec = e->vec;
    return AM_OK;
}

/* Built with -O3 (CMakeLists.txt): the loop becomes SIMD multiply-adds;
 * on x86-64 with GCC also an AVX2 clone, chosen at load time when the CPU
 * has it (twice the width of the SSE2 baseline).  Not with Clang: its
 * target_clones left the symbol undefined in the static library. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(AM_NO_CLONES)
__attribute__((target_clones("avx2", "default")))
#endif
int32_t am__dot_i8(const signed char *a, const signed char *b, int n)
{
    int32_t acc = 0;
    for (int i = 0; i < n; i++) acc += (int32_t)a[i] * (int32_t)b[i];
    return acc;
}
