/* SPDX-License-Identifier: Apache-2.0 */
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
 *     entry's largest one is appended (events get increasing row ids);
 *     any other write (a replaced vector: re-embedding) drops the entry;
 *   - transactions: entries appended to inside a transaction that rolls
 *     back are dropped (their rows never existed);
 *   - forgetting drops the user's entries;
 *   - other connections: PRAGMA data_version moves when another
 *     connection commits; then every entry is dropped.
 * At most max_bytes (am__vc_new; AM__VC_BYTES for a store) of vectors;
 * the least recently used entry goes first.  Time-bounded scans (as_of)
 * do not use the cache.
 *
 * Loading a user costs, besides reading the rows, a page fault per 4 KB
 * of fresh memory (about as much as the SQL reads).  So a load
 * sizes its matrix once, from the user's number of vectors (counted by
 * index: the blocks' counts plus the tail), instead of growing it; and the
 * buffers of the last evicted entry are kept (counted) as a spare that
 * the next load takes, memory already touched.
 *
 * A load reads the user's packed blocks and the tail (am__sqlite_vec_each,
 * schema v5): about a row per 128 vectors.  Rows need not come in row id
 * order (a tail can hold vectors older than a block's); max_rid is what
 * an append is compared with.
 *
 * Every entry also holds each vector's sign bits (schema v6: stored per
 * block in vector_bits, an eighth of the int8 bytes at 1 bit a
 * component).  A user with more vectors than the caller's full_max is
 * loaded as bits only, with where each vector lies (block and index, or
 * 0: look it up by row id): a first load reads 1/8 of the bytes, and the
 * scan ranks by an estimate from the signs, then rescores its best
 * candidates with their int8 vectors read from the blocks (vectors.c
 * vec_scan_bits).
 */
#include "store/sqlite/sqlite_int.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Entries (users) at most.  The byte budget is the bound that matters: a
 * user cached as bits (10,000 vectors: under 1 MB) is small, and 64 slots
 * evicted users of a workload with 100 of them while the budget had room
 * for 300. */
#define VC_SLOTS 256

typedef struct vc_entry {
    char *uid, *embedder;
    int dim;
    int full;         /* the int8 vectors are held (else bits and loc) */
    size_t n, cap;
    int64_t *rid;
    float *scale;
    signed char *vec;    /* full: n x dim */
    unsigned char *bits; /* n x AM__VBITS(dim) */
    int64_t *loc;        /* not full: block << 8 | index, 0: by row id */
    int64_t max_rid;  /* largest of rid[0..n) */
    uint64_t used;    /* LRU clock */
    int dirty;        /* appended to in the open transaction */
} vc_entry;

#define VC_BIG 4 /* users remembered as too big to cache */

/* Buffers of an evicted entry, for the next load (rows of rid and
 * scale, bytes of vec). */
typedef struct vc_spare {
    int64_t *rid;
    float *scale;
    signed char *vec;
    unsigned char *bits;
    size_t rows, vbytes, bbytes;
} vc_spare;

struct am__vcache {
    const am__allocator *a;
    size_t max_bytes;
    vc_entry e[VC_SLOTS];
    char big[VC_BIG][AM_ID_MAX + 1];
    unsigned next_big;
    uint64_t clock;
    int64_t data_version;
    int by_store; /* am__vc_checked_by_store: no check of its own */
    size_t bytes; /* entries and spare */
    vc_spare spare;
};

static void make_room(am__vcache *c, size_t need);

am__vcache *am__vc_new(const am__allocator *a, size_t max_bytes)
{
    am__vcache *c = am__calloc(a, sizeof *c);
    if (c) {
        c->a = a;
        c->max_bytes = max_bytes;
        c->data_version = -1;
    }
    return c;
}

static size_t row_bytes(int dim, int full)
{
    return (size_t)AM__VBITS(dim) + sizeof(int64_t) + sizeof(float) +
           (full ? (size_t)dim : sizeof(int64_t));
}

/* The most rows one entry may hold: half the cache. */
static size_t max_rows(const am__vcache *c, int dim, int full)
{
    return c->max_bytes / 2 / row_bytes(dim, full);
}

static size_t spare_bytes(const vc_spare *sp)
{
    return sp->rows * (sizeof *sp->rid + sizeof *sp->scale) + sp->vbytes + sp->bbytes;
}

static void free_spare(am__vcache *c)
{
    c->bytes -= spare_bytes(&c->spare);
    am__free(c->a, c->spare.rid);
    am__free(c->a, c->spare.scale);
    am__free(c->a, c->spare.vec);
    am__free(c->a, c->spare.bits);
    memset(&c->spare, 0, sizeof c->spare);
}

/* Forget an entry.  keep: the buffers of a full one may become the
 * spare (the larger of the two is kept; bits-only entries are small). */
static void release(am__vcache *c, vc_entry *e, int keep)
{
    /* also a slot whose setup failed halfway (an id but no buffers) */
    if (keep && e->uid && e->full && e->cap && e->cap * (size_t)e->dim >= c->spare.vbytes) {
        free_spare(c);
        c->spare.rid = e->rid;
        c->spare.scale = e->scale;
        c->spare.vec = e->vec;
        c->spare.bits = e->bits;
        c->spare.rows = e->cap;
        c->spare.vbytes = e->cap * (size_t)e->dim; /* counted as before */
        c->spare.bbytes = e->cap * (size_t)AM__VBITS(e->dim);
    } else {
        c->bytes -= e->cap * row_bytes(e->dim, e->full);
        am__free(c->a, e->rid);
        am__free(c->a, e->scale);
        am__free(c->a, e->vec);
        am__free(c->a, e->bits);
        am__free(c->a, e->loc);
    }
    am__free(c->a, e->uid);
    am__free(c->a, e->embedder);
    memset(e, 0, sizeof *e);
}

static void drop(am__vcache *c, vc_entry *e)
{
    release(c, e, 0);
}

void am__vc_free(am__vcache *c)
{
    if (!c) return;
    for (int i = 0; i < VC_SLOTS; i++) drop(c, &c->e[i]);
    free_spare(c);
    am__free(c->a, c);
}

void am__vc_clear(am__vcache *c, const char *uid)
{
    if (!c) return;
    for (int i = 0; i < VC_BIG; i++)
        if (!uid || strcmp(c->big[i], uid) == 0) c->big[i][0] = 0;
    for (int i = 0; i < VC_SLOTS; i++)
        if (c->e[i].uid && (!uid || strcmp(c->e[i].uid, uid) == 0)) drop(c, &c->e[i]);
    free_spare(c); /* it may hold that user's vectors */
}

void am__vc_checked_by_store(am__vcache *c)
{
    if (c) c->by_store = 1;
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

/* Exactly cap rows (cap >= e->n); AM_OK or AM_NOMEM (e keeps its
 * rows and its capacity). */
static int resize(am__vcache *c, vc_entry *e, size_t cap)
{
    if (cap == e->cap) return AM_OK;
    size_t rb = row_bytes(e->dim, e->full);
    int64_t *rid = am__realloc(c->a, e->rid, cap * sizeof *rid);
    if (rid) e->rid = rid;
    float *scale = am__realloc(c->a, e->scale, cap * sizeof *scale);
    if (scale) e->scale = scale;
    unsigned char *bits = am__realloc(c->a, e->bits, cap * (size_t)AM__VBITS(e->dim));
    if (bits) e->bits = bits;
    int ok = rid && scale && bits;
    if (e->full) {
        signed char *vec = am__realloc(c->a, e->vec, cap * (size_t)e->dim);
        if (vec) e->vec = vec;
        ok = ok && vec;
    } else {
        int64_t *loc = am__realloc(c->a, e->loc, cap * sizeof *loc);
        if (loc) e->loc = loc;
        ok = ok && loc;
    }
    if (!ok) {
        /* a failed shrink may have left arrays at either size: the
         * smaller capacity is the one all of them hold */
        if (cap < e->cap) {
            c->bytes -= (e->cap - cap) * rb;
            e->cap = cap;
        }
        return AM_NOMEM;
    }
    c->bytes = c->bytes - e->cap * rb + cap * rb;
    e->cap = cap;
    return AM_OK;
}

/* Room for one more row (doubling, up to max_rows); 0, or AM_NOMEM
 * (also: the entry is full). */
static int grow(am__vcache *c, vc_entry *e)
{
    if (e->n < e->cap) return AM_OK;
    size_t most = max_rows(c, e->dim, e->full);
    if (e->cap >= most) return AM_NOMEM;
    size_t cap = e->cap ? e->cap * 2 : 256;
    return resize(c, e, cap < most ? cap : most);
}

void am__vc_put(am__vcache *c, const char *uid, const char *embedder, int dim, int64_t rid,
                float scale, const signed char *v, int in_txn)
{
    if (!c) return;
    vc_entry *e = find(c, uid, embedder, dim);
    if (!e) return; /* not cached: nothing to keep true */
    if ((e->n && rid <= e->max_rid) || grow(c, e) != AM_OK) {
        drop(c, e); /* a replaced vector, or grown past what is cached */
        return;
    }
    if (c->bytes > c->max_bytes) {
        e->used = ++c->clock; /* others go first */
        make_room(c, 0);
    }
    e->rid[e->n] = rid;
    e->scale[e->n] = scale;
    am__vec_bits(v, dim, e->bits + e->n * (size_t)AM__VBITS(dim));
    if (e->full) memcpy(e->vec + e->n * (size_t)dim, v, (size_t)dim);
    else e->loc[e->n] = 0; /* in the tail now, perhaps packed later: by row id */
    e->n++;
    e->max_rid = rid;
    if (in_txn) e->dirty = 1;
}

/* Another connection committed since we last looked: drop everything. */
static int check_version(am__vcache *c, sqlite3 *db)
{
    if (c->by_store) return AM_OK;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "PRAGMA data_version", -1, &st, NULL) != SQLITE_OK) return AM_BACKEND;
    int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -2;
    sqlite3_finalize(st);
    if (v != c->data_version) { /* the too-big memo stays */
        /* not kept as a spare: another connection may have forgotten them */
        for (int i = 0; i < VC_SLOTS; i++) drop(c, &c->e[i]);
        free_spare(c);
        c->data_version = v;
    }
    return AM_OK;
}

static vc_entry *lru_entry(am__vcache *c)
{
    vc_entry *lru = NULL;
    for (int i = 0; i < VC_SLOTS; i++)
        if (c->e[i].uid && (!lru || c->e[i].used < lru->used)) lru = &c->e[i];
    return lru;
}

/* Evict least recently used entries until `need` more bytes fit beside
 * the entries (the spare is reused by a load, or freed). */
static void make_room(am__vcache *c, size_t need)
{
    while (c->bytes - spare_bytes(&c->spare) + need > c->max_bytes) {
        vc_entry *lru = lru_entry(c);
        if (!lru) break;
        release(c, lru, 1);
    }
    if (!need && c->bytes > c->max_bytes) free_spare(c);
}

/* A load's first capacity: the user's number of vectors of that embedder
 * and width (packed blocks' counts plus the tail, both by index), with
 * room for a few appends, within [1, max_rows].  (Not the event count: a
 * user with a million events and few vectors of this embedder -- during a
 * re-embedding -- would evict half the cache for nothing.) */
static size_t first_cap(am__vcache *c, sqlite3 *db, const char *uid, const char *embedder,
                        int dim, size_t full_max, int *full, int *too_big)
{
    *too_big = 0;
    *full = 1;
    sqlite3_stmt *st = NULL;
    int64_t n = -1;
    if (sqlite3_prepare_v2(db,
                           "SELECT (SELECT coalesce(sum(n), 0) FROM vector_blocks"
                           "        WHERE user_id=?1 AND embedder=?2 AND dim=?3)"
                           " + (SELECT count(*) FROM event_vectors INDEXED BY event_vectors_tail"
                           "    WHERE user_id=?1 AND embedder=?2 AND dim=?3 AND block IS NULL)",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, uid, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, embedder, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, dim);
        if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st); /* no count (an error): grow as rows come */
    if (n >= 0 && (uint64_t)n > full_max) *full = 0;
    size_t most = max_rows(c, dim, *full);
    if (most == 0) most = 1;
    if (n < 0) return 256 < most ? 256 : most;
    uint64_t want = (uint64_t)n + (uint64_t)n / 16 + 16;
    *too_big = (uint64_t)n > most;
    return want < most ? (size_t)want : most;
}

/* Give e (empty) the spare's buffers, resized to cap rows. */
static int take_spare(am__vcache *c, vc_entry *e, size_t cap)
{
    size_t nb = (size_t)AM__VBITS(e->dim);
    if (e->full && c->spare.rid && c->spare.vbytes >= (size_t)e->dim && c->spare.bbytes >= nb) {
        size_t rows = c->spare.vbytes / (size_t)e->dim;
        if (rows > c->spare.rows) rows = c->spare.rows;
        if (rows > c->spare.bbytes / nb) rows = c->spare.bbytes / nb;
        c->bytes -= spare_bytes(&c->spare);
        e->rid = c->spare.rid;
        e->scale = c->spare.scale;
        e->vec = c->spare.vec;
        e->bits = c->spare.bits;
        e->cap = rows;
        c->bytes += rows * row_bytes(e->dim, 1);
        memset(&c->spare, 0, sizeof c->spare);
    } else if (c->spare.rid) {
        free_spare(c);
    }
    return resize(c, e, cap);
}

/* One vector read by a load (am__sqlite_vec_each). */
typedef struct vc_load {
    am__vcache *c;
    vc_entry *e;
} vc_load;

static int load_one(void *ctx, const am__vec_item *it)
{
    vc_load *l = ctx;
    vc_entry *e = l->e;
    if (e->n == e->cap && e->cap >= max_rows(l->c, e->dim, e->full))
        return AM_TOOBIG; /* counted as it loads: no count query first */
    if (grow(l->c, e) != AM_OK) return AM_NOMEM;
    int64_t rid = it->rid;
    size_t nb = (size_t)AM__VBITS(e->dim);
    e->rid[e->n] = rid;
    e->scale[e->n] = it->scale;
    if (it->bits) memcpy(e->bits + e->n * nb, it->bits, nb);
    else am__vec_bits(it->vec, e->dim, e->bits + e->n * nb);
    if (e->full) memcpy(e->vec + e->n * (size_t)e->dim, it->vec, (size_t)e->dim);
    else e->loc[e->n] = it->loc;
    if (e->n == 0 || rid > e->max_rid) e->max_rid = rid;
    e->n++;
    return AM_OK;
}

int am__vc_get(am__vcache *c, sqlite3 *db, const char *uid, const char *embedder, int dim,
               am__vc_view *out)
{
    return am__vc_get_some(c, db, uid, embedder, dim, SIZE_MAX, out);
}

int am__vc_get_some(am__vcache *c, sqlite3 *db, const char *uid, const char *embedder, int dim,
                    size_t full_max, am__vc_view *out)
{
    memset(out, 0, sizeof *out);
    if (!c || dim <= 0) return AM_NOTFOUND;
    int rc = check_version(c, db);
    if (rc) return rc;
    vc_entry *e = find(c, uid, embedder, dim);
    if (e && !e->full && e->n <= full_max) { /* its int8 vectors are wanted now */
        drop(c, e);
        e = NULL;
    }
    if (!e) {
        /* a user known to be too big for the cache: SQL, without loading */
        for (int i = 0; i < VC_BIG; i++)
            if (c->big[i][0] && strcmp(c->big[i], uid) == 0) return AM_NOTFOUND;
        if (max_rows(c, dim, 1) == 0) return AM_NOTFOUND;
        int too_big, full;
        size_t cap = first_cap(c, db, uid, embedder, dim, full_max, &full, &too_big);
        if (too_big) return AM_NOTFOUND; /* SQL serves (not remembered: it may shrink) */
        make_room(c, cap * row_bytes(dim, full)); /* least recently used first */
        for (int i = 0; i < VC_SLOTS && !e; i++)
            if (!c->e[i].uid) e = &c->e[i];
        if (!e) { /* every slot taken: the least recently used goes */
            e = lru_entry(c);
            release(c, e, 1);
        }
        e->uid = am__strdup(c->a, uid);
        e->embedder = am__strdup(c->a, embedder);
        e->dim = dim;
        e->full = full;
        e->used = ++c->clock;
        if (!e->uid || !e->embedder || take_spare(c, e, cap) != AM_OK) {
            drop(c, e);
            return AM_NOTFOUND; /* no memory for a cache: scan with SQL */
        }
        vc_load l = {c, e};
        rc = am__sqlite_vec_each(db, uid, embedder, dim, !full, load_one, &l, NULL, 0);
        if (rc == AM_TOOBIG) {
            drop(c, e);
            snprintf(c->big[c->next_big++ % VC_BIG], sizeof c->big[0], "%s", uid);
            return AM_NOTFOUND;
        }
        if (rc) {
            /* no memory, or an error that the SQL scan will meet and
             * report */
            drop(c, e);
            return AM_NOTFOUND;
        }
        /* fewer vectors than events (another embedder's, none): give
         * back what appends will not need soon */
        size_t keep = e->n + e->n / 16 + 16;
        if (keep < e->cap - e->cap / 8) resize(c, e, keep);
        make_room(c, 0); /* grown past the estimate: others go */
    }
    e->used = ++c->clock;
    out->n = e->n;
    out->rid = e->rid;
    out->scale = e->scale;
    out->vec = e->full ? e->vec : NULL;
    out->bits = e->bits;
    out->loc = e->full ? NULL : e->loc;
    return AM_OK;
}

/* Built with -O3 (CMakeLists.txt): the loop becomes SIMD multiply-adds;
 * on x86-64 with GCC also an AVX2 clone, chosen at load time when the CPU
 * has it (twice the width of the SSE2 baseline).  Not with Clang: its
 * target_clones left the symbol undefined in the static library.  The
 * clones are static behind am__dot_i8: GCC gives the resolver of a global
 * clone default visibility whatever -fvisibility says, which would export
 * it from the shared library. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(AM_NO_CLONES)
__attribute__((target_clones("avx2", "default")))
#endif
static int32_t dot_i8(const signed char *a, const signed char *b, int n)
{
    int32_t acc = 0;
    for (int i = 0; i < n; i++) acc += (int32_t)a[i] * (int32_t)b[i];
    return acc;
}

int32_t am__dot_i8(const signed char *a, const signed char *b, int n)
{
    return dot_i8(a, b, n);
}

/* Sign bits: bit i of the vector set when its component i is above 0. */
void am__vec_bits(const signed char *v, int dim, unsigned char *out)
{
    int i = 0;
#ifdef __SSE2__
    /* 16 components a step: compare with 0, gather the byte signs */
    const __m128i zero = _mm_setzero_si128();
    for (; i + 16 <= dim; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(v + i));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(x, zero));
        out[i >> 3] = (unsigned char)m;
        out[(i >> 3) + 1] = (unsigned char)(m >> 8);
    }
#endif
    for (; i < dim; i += 8) {
        unsigned m = 0;
        for (int j = 0; j < 8 && i + j < dim; j++) m |= (unsigned)(v[i + j] > 0) << j;
        out[i >> 3] = (unsigned char)m;
    }
}

void am__vec_est_lut(const signed char *q8, int dim, int16_t *lut)
{
    size_t nb = (size_t)AM__VBITS(dim);
    for (size_t j = 0; j < nb; j++) {
        int16_t *t = lut + j * 256;
        int base = 0;
        for (int b = 0; b < 8 && 8 * (int)j + b < dim; b++) base -= q8[8 * j + (size_t)b];
        t[0] = (int16_t)base;
        for (int byte = 1; byte < 256; byte++) {
            int low = __builtin_ctz((unsigned)byte), c = 8 * (int)j + low;
            t[byte] = (int16_t)(t[byte & (byte - 1)] + (c < dim ? 2 * q8[c] : 0));
        }
    }
}
