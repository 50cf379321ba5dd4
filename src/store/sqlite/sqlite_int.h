/*
 * sqlite_int.h -- internals shared by the SQLite backend's files.
 */
#ifndef AM_STORE_SQLITE_INT_H
#define AM_STORE_SQLITE_INT_H

#include <sqlite3.h>

#include "store/store.h"
#include "text/analyze.h"

/* Prefix (U+E000) marking a pre-tokenized FTS query term: see
 * fts_tokenizer.c. */
#define AM__FTS_VERBATIM "\xee\x80\x80"

/* U+E001: a doc or ctx value "U+E001 TAG U+E001 text" is indexed with
 * per-user terms TAG 0x1F token (fts_tokenizer.c). */
#define AM__FTS_TAG "\xee\x80\x81"
#define AM__FTS_TAG_SEP '\x1f'
#define AM__FTS_TAG_MAX 24

/* The FTS5 API of a connection (version >= 2), or NULL. */
fts5_api *am__sqlite_fts5(sqlite3 *db);

int am__sqlite_register_tokenizer(sqlite3 *db);

/* am_collect(events_fts, hits): every matching row's column lengths and
 * per-phrase counts gathered into an am__fts_hits, scored in C by
 * am__fts_hits_score (BM25F, fts_rank.c). */
#define AM__FTS_SCORED 2 /* scored columns, from col0: doc, ctx */
typedef struct am__fts_tf {
    uint16_t phrase;
    uint16_t tf[AM__FTS_SCORED];
} am__fts_tf;
typedef struct am__fts_hit {
    int64_t rid;
    double score;
    float len[AM__FTS_SCORED];
    uint32_t first, n_tf; /* its entries in tf[] */
} am__fts_hit;
/* Column lengths of recently scored rows (fts_rank.c); NULL: none. */
typedef struct am__fts_lens am__fts_lens;
am__fts_lens *am__fts_lens_new(const am__allocator *a);
void am__fts_lens_free(am__fts_lens *c);
void am__fts_lens_drop(am__fts_lens *c, int64_t rid); /* its index row changes */
void am__fts_lens_clear(am__fts_lens *c);             /* rows deleted, rollback, ... */
typedef struct am__fts_hits {
    const am__allocator *a;
    am__fts_lens *lens; /* lengths known, and learned; NULL: none */
    int col0;        /* first scored column */
    int n_phrase;    /* set by the first row */
    double avg[AM__FTS_SCORED]; /* the table's tokens per row, per column */
    int64_t n_row, total[AM__FTS_SCORED]; /* what avg was computed from */
    am__fts_hit *hit;
    size_t n, cap;
    am__fts_tf *tf;
    size_t n_tf, cap_tf;
} am__fts_hits;
int am__sqlite_register_collect(sqlite3 *db);
void am__fts_hits_free(am__fts_hits *h);
/* df[p]: the hits holding phrase p (n_phrase entries) */
void am__fts_hits_df(const am__fts_hits *h, double *df);
/* hit[i].score = BM25F with those frequencies, N, per-phrase weights (NULL:
 * 1) and per-column weights */
void am__fts_hits_score(am__fts_hits *h, const double *df, double n_docs, const double *weight,
                        const double w_col[AM__FTS_SCORED]);

/* The scored columns' tokens per row from FTS5's averages record (row 1
 * of events_fts_data): 1, or 0 when p[0..n) is not a whole record. */
int am__fts_averages_parse(const unsigned char *p, size_t n, double avg[AM__FTS_SCORED]);

/* Column lengths of a row if known (1), for searches that do not scan it. */
int am__fts_lens_get(const am__fts_lens *c, int64_t rid, uint32_t len[AM__FTS_SCORED]);
void am__fts_lens_set(am__fts_lens *c, int64_t rid, const uint32_t len[AM__FTS_SCORED]);

/* The index's tokens of a column value, as FTS5 indexes them (the same
 * tokenizer, fts_tokenizer.c): fn(ctx, tok, len) for each, the bare tag
 * of a tagged value first.  Returns AM_OK, AM_NOMEM or fn's non-zero. */
int am__fts_tokens(am__text *t, const char *text, size_t n,
                   int (*fn)(void *ctx, const char *tok, size_t len), void *ctx);

/* Posting lists of searched terms (post_cache.c): key TAG 0x1F token ->
 * every row holding it, rowid order, with its count in each scored
 * column.  NULL: none. */
typedef struct am__post_list {
    int64_t *rid;
    uint16_t (*tf)[AM__FTS_SCORED];
    size_t n, cap;
} am__post_list;
typedef struct am__post am__post;
#define AM__POST_MAX ((size_t)4 << 20) /* postings held in all (48 MB) */
am__post *am__post_new(const am__allocator *a);
void am__post_free(am__post *p);
void am__post_clear(am__post *p);
size_t am__post_count(const am__post *p);
const am__post_list *am__post_get(const am__post *p, const char *key, size_t len);
/* Whether lists of that tag's terms may be held (a write of its user must
 * then be applied to them). */
int am__post_has_tag(const am__post *p, const char *tag, size_t len);
/* A term's complete list (every row holding it), rowid order. */
int am__post_put(am__post *p, const char *key, size_t len, const int64_t *rid,
                 const uint16_t (*tf)[AM__FTS_SCORED], size_t n);
/* Row rid holds cnt more of the term in scored column col (0 doc, 1 ctx). */
int am__post_add(am__post *p, const char *key, size_t len, int64_t rid, int col, unsigned cnt);

/* Searches that read held lists (tests check that they were used). */
extern _Atomic unsigned long am__term_list_reads;

/* Home slot of rowid + 1 in an open-addressing table of cap (a power of
 * two) slots: the row-length and row caches. */
static inline size_t am__rid_home(uint64_t key, size_t cap)
{
    key *= 0x9E3779B97F4A7C15ull;
    return (size_t)(key >> 32) & (cap - 1);
}

/* Events rows that searches returned, by rowid (row_cache.c): a copy
 * holds until the store clears it (rows deleted, a rollback, another
 * connection's commit) or inserts a rowid it holds.  NULL: none. */
typedef struct am__rowcache am__rowcache;
am__rowcache *am__rowcache_new(const am__allocator *a);
void am__rowcache_free(am__rowcache *c);
void am__rowcache_clear(am__rowcache *c);
void am__rowcache_inserted(am__rowcache *c, int64_t rid);
/* Row rid's fields, strings copied into ar; *found 0 if not held. */
int am__rowcache_get(const am__rowcache *c, int64_t rid, am__arena *ar, am__event_row *out,
                     int *found);
void am__rowcache_put(am__rowcache *c, const am__event_row *row);

/* Vectors of recently recalled users in memory (vec_cache.c). */
typedef struct am__vcache am__vcache;
/* Bytes of a vector's sign bits (schema v6, vector_bits). */
#define AM__VBITS(dim) (((dim) + 7) / 8)
typedef struct am__vc_view {
    size_t n;
    const int64_t *rid;
    const float *scale;
    const signed char *vec;    /* n x dim, row-major; NULL: bits only */
    const unsigned char *bits; /* n x AM__VBITS(dim) */
    const int64_t *loc;        /* bits only: block << 8 | index in it, or
                                  0 (a tail vector: find it by row id) */
} am__vc_view;
/* At most max_bytes of vectors (one user: at most half); NULL: no cache. */
#define AM__VC_BYTES ((size_t)256 << 20)
/* Users with more vectors than this are cached as sign bits (and scanned
 * by them first) unless a scan asks for exact ones (vec_scan exact_max). */
#define AM__VC_FULL_MAX 4096
am__vcache *am__vc_new(const am__allocator *a, size_t max_bytes);
void am__vc_free(am__vcache *c);
/* The user's vectors of that embedder and width: AM_OK and *out (valid
 * until the next call on c), AM_NOTFOUND (not cacheable: use SQL),
 * AM_NOMEM, AM_BACKEND. */
int am__vc_get(am__vcache *c, sqlite3 *db, const char *uid, const char *embedder, int dim,
               am__vc_view *out);
/* The same, but a user with more than full_max vectors is loaded (and
 * served) as sign bits only (out->vec NULL). */
int am__vc_get_some(am__vcache *c, sqlite3 *db, const char *uid, const char *embedder, int dim,
                    size_t full_max, am__vc_view *out);
void am__vc_put(am__vcache *c, const char *uid, const char *embedder, int dim, int64_t rid,
                float scale, const signed char *v, int in_txn);
void am__vc_clear(am__vcache *c, const char *uid); /* NULL: every user */
void am__vc_txn_end(am__vcache *c, int committed);
/* Every stored vector of (uid, embedder, dim), packed blocks (schema v5,
 * sqlite_store.c) and the tail's rows, in no set order: fn(ctx, item)
 * for each until it returns non-zero, which is returned.  Else AM_OK, or
 * an error (AM_CORRUPT: a malformed block; AM_NOMEM, AM_BACKEND),
 * described in err (may be NULL).  bits_only: a packed vector comes as
 * its sign bits and where it lies (vec NULL), without reading the int8
 * vectors (tail vectors come whole, bits NULL). */
typedef struct am__vec_item {
    int64_t rid;
    float scale;
    const signed char *vec;    /* dim int8, or NULL (bits_only) */
    const unsigned char *bits; /* AM__VBITS(dim) bytes, or NULL */
    int64_t loc;               /* block << 8 | index; 0: in the tail */
} am__vec_item;
typedef int (*am__vec_fn)(void *ctx, const am__vec_item *it);
int am__sqlite_vec_each(sqlite3 *db, const char *uid, const char *embedder, int dim,
                        int bits_only, am__vec_fn fn, void *ctx, char *err, size_t errlen);
/* Bits scans that found a vector not where the cache said and were
 * answered by the exact SQL scan instead (a cache out of step: tests
 * expect none). */
extern _Atomic unsigned long am__vec_bits_fallbacks;
/* Sign bits of an int8 vector (bit i: v[i] > 0; vec_cache.c). */
void am__vec_bits(const signed char *v, int dim, unsigned char *out);
/* The estimate of q . x from x's sign bits: the sum of q_j where x_j > 0
 * minus q_j elsewhere, by table: lut[256 j + byte] is that sum over the 8
 * components of byte j (AM__VBITS(dim) x 256 entries; vec_cache.c). */
void am__vec_est_lut(const signed char *q8, int dim, int16_t *lut);
/* The estimate of one vector from its nb bytes of signs.  Four sums, four
 * bytes a step: independent lookups (2.5 times faster than one sum on
 * 512-wide vectors). */
static inline int32_t am__vec_est(const int16_t *lut, const unsigned char *x, size_t nb)
{
    int32_t e0 = 0, e1 = 0, e2 = 0, e3 = 0;
    size_t j = 0;
    for (; j + 4 <= nb; j += 4, lut += 4 * 256) {
        e0 += lut[x[j]];
        e1 += lut[256 + x[j + 1]];
        e2 += lut[512 + x[j + 2]];
        e3 += lut[768 + x[j + 3]];
    }
    for (; j < nb; j++, lut += 256) e0 += lut[x[j]];
    return e0 + e1 + e2 + e3;
}
/* Integer dot product of two int8 vectors. */
int32_t am__dot_i8(const signed char *a, const signed char *b, int n);

#endif
