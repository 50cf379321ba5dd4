/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sq_caches.h -- what an SQLite connection holds in memory between
 * statements, and when it is dropped (docs/internals/sqlite-caches.md).
 *
 * Five caches make a recall on a warm connection cheap: the posting lists
 * of searched terms and their document frequencies (post_cache.c), the
 * events rows searches returned (row_cache.c), the vectors of recently
 * scanned users (vec_cache.c), each index row's column lengths
 * (fts_rank.c, am__fts_lens in sqlite_int.h) and the write path's latest
 * items of a user (item_memo.c).  Each is a plain structure with no SQL
 * of its own but what it must read to fill itself; caches.c alone decides
 * when they stop being true: this connection's writes keep them true row
 * by row, a rollback or a forget drops what they touched, and another
 * connection's commit is found per user through the store_changes table
 * (caches.c's comment has the protocol and its invariants).  feed.c hands
 * a commit's rows to the other connections of the same file in this
 * process so they catch up instead of dropping.
 *
 * Included by sqlite_int.h (it needs AM__FTS_SCORED and the connection,
 * sq_store); nothing outside store/sqlite sees these.
 */
#ifndef AM_STORE_SQLITE_CACHES_H
#define AM_STORE_SQLITE_CACHES_H

#include <sqlite3.h>
#include <stdint.h>

#include "store/store.h"

typedef struct sq_store sq_store;

/* ---------------------------------------------------------------- the caches */

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
/* Only one tag's lists, frequencies and whole mark (caches.c). */
void am__post_clear_tag(am__post *p, const char *tag, size_t len);
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
/* Whole tags: those whose every row this connection wrote since the lists
 * were last cleared (the user's first row was written here, on an index
 * holding none of the tag's).  Their writes make lists of every term they
 * hold, so a term of theirs with no list is in none of their rows. */
void am__post_whole_add(am__post *p, const char *tag, size_t len);
int am__post_whole(const am__post *p, const char *key, size_t len); /* key: a term or a tag */

/* Document frequencies read from the index's vocabulary (key as for
 * lists); any write of the connection must drop them (clear). */
int am__post_df_get(const am__post *p, const char *key, size_t len, int64_t *df);
void am__post_df_put(am__post *p, const char *key, size_t len, int64_t df);
void am__post_df_clear(am__post *p);

/* Searches that read held lists (tests check that they were used). */
extern _Atomic unsigned long am__term_list_reads;
/* Searches that scanned the index for some term (tests: a whole tag's). */
extern _Atomic unsigned long am__term_scans;
/* Events rows read by statement for a search (tests: a whole tag's are
 * in the row cache from their writes). */
extern _Atomic unsigned long am__row_reads;

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
/* The store checks other connections' commits for the cache (caches.c:
 * per user); without this call each get reads PRAGMA data_version and
 * drops every entry when it moved. */
void am__vc_checked_by_store(am__vcache *c);
void am__vc_txn_end(am__vcache *c, int committed);
/* Every stored vector of (uid, embedder, dim), packed blocks (schema v5,
 * vectors.c) and the tail's rows, in no set order: fn(ctx, item)
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

/* ---------------------------------------------------------------- when they are true */

/* caches.c: why every cache is dropped, which says what the vector cache
 * keeps (caches.c). */
typedef enum am__sqlite_drop {
    AM__DROP_ROLLBACK,     /* the transaction's vectors go */
    AM__DROP_FORGET,       /* the user's vectors go */
    AM__DROP_OTHER_COMMIT, /* the vector cache checks for itself */
} am__sqlite_drop;
void am__sqlite_caches_drop(sq_store *s, am__sqlite_drop why, const char *uid);
/* True in this snapshot as a whole, and for uid's data if not NULL. */
int am__sqlite_caches_current(sq_store *s, const char *uid);
/* A write of uid's rows in the open write transaction (before it is
 * applied to the caches); around COMMIT, the seqs it leaves. */
int am__sqlite_caches_writing(sq_store *s, const char *uid);
int am__sqlite_caches_precommit(sq_store *s);
void am__sqlite_caches_committed(sq_store *s);
int am__sqlite_user_changed(sq_store *s, const char *uid);
/* uid's lens epoch: the row lengths learned for its rows in another are
 * not known (fts_rank.c); after uid's check (caches_current) */
uint32_t am__sqlite_lens_epoch(const sq_store *s, const char *uid);
void am__sqlite_caches_open(sq_store *s);

/* The write path's latest items of a user, held between statements
 * (item_memo.c).  get: *hit 1 and the rows copied into ar when held and
 * true in this snapshot, else *hit 0 and *seq the user's item seq to put
 * the rows read at (-1: none can be held).  before/inserted/closed/
 * reinforced: around this connection's own change of uid's rows (before
 * it: the entry to keep true, or NULL). */
struct am__memo_entry;
int am__sqlite_memo_get(sq_store *s, const char *uid, am_time at, am__arena *ar,
                        am__item_row **rows, size_t *n, int *hit, int64_t *seq);
/* 1 when r is valid at `at` (valid_from <= at < valid_to) */
int am__sqlite_memo_valid(const am__item_row *r, am_time at);
void am__sqlite_memo_put(sq_store *s, const char *uid, int64_t seq, const am__item_row *rows,
                         size_t n);
struct am__memo_entry *am__sqlite_memo_before(sq_store *s, const char *uid);
void am__sqlite_memo_inserted(sq_store *s, struct am__memo_entry *m, const char *uid,
                              const am__item_row *it);
void am__sqlite_memo_closed(sq_store *s, struct am__memo_entry *m, const char *uid,
                            const char *vid);
void am__sqlite_memo_reinforced(sq_store *s, struct am__memo_entry *m, const char *uid,
                                int64_t rid, am_time at);
void am__sqlite_memo_clear(sq_store *s);
void am__sqlite_memo_free(sq_store *s);
void am__sqlite_caches_free(sq_store *s);
/* The user's seq in store_changes (0: never written; -1: no table). */
int am__sqlite_user_seq(sq_store *s, const char *uid, int64_t *seq);
/* The first column of sql (?1 = uid) as a seq: 0 when no row, -1 when
 * the statement cannot be prepared (a table of a later schema missing);
 * user_seq: store_changes' (caches.c), item_memo.c: item_changes'. */
int am__sqlite_seq_read(sq_store *s, const char *sql, const char *uid, int64_t *seq,
                        const char *what);

/* ---------------------------------------------------------------- other connections of this process */

/* feed.c: a commit's rows and context appends, per user, told to the
 * connections of the same file in this process (the file's feed, joined
 * at open); a connection that finds a user's seq moved applies them
 * (catch_up: 1) instead of dropping the user's lists (0). */
typedef struct am__feed am__feed;
void am__sqlite_feed_open(sq_store *s, const char *path);
void am__sqlite_feed_close(sq_store *s);
void am__sqlite_feed_txn_begin(sq_store *s); /* BEGIN: capture if others listen */
void am__sqlite_feed_txn_end(sq_store *s);   /* rollback: nothing told */
void am__sqlite_feed_user(sq_store *s, const char *uid); /* first write of uid: its seq before */
void am__sqlite_feed_row(sq_store *s, const char *uid, const char *tok, int64_t rid,
                         const char *doc, const char *ctx);
void am__sqlite_feed_append(sq_store *s, const char *uid, const char *tok, int64_t rid,
                            const char *text);
int am__sqlite_feed_watching(const sq_store *s, const char *uid);
void am__sqlite_feed_vectors(sq_store *s, const char *uid, int64_t moves);
int am__sqlite_feed_capturing(const sq_store *s);
int am__sqlite_feed_shared(const sq_store *s); /* other connections of this process on the file */
void am__sqlite_feed_epoch(sq_store *s, int64_t epoch); /* before COMMIT */
void am__sqlite_feed_publish(sq_store *s);              /* after COMMIT (tx_uid, tx_seq) */
int am__sqlite_feed_catch_up(sq_store *s, const char *uid, int64_t from, int64_t to);
void am__sqlite_feed_forget(sq_store *s, const char *uid);
size_t am__sqlite_feed_held(const sq_store *s, const char *uid); /* uid's records (tests) */
/* events.c: a row, or text appended to a row's context, joins the held
 * lists of its user's terms and its row length (own writes, catch-up). */
void am__sqlite_lists_row(sq_store *s, const char *uid, const char *tok, int64_t rid,
                          const char *doc, const char *ctx);
void am__sqlite_lists_append(sq_store *s, const char *uid, const char *tok, int64_t rid,
                             const char *text);

#endif
