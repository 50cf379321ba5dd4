/*
 * sqlite_int.h -- internals shared by the SQLite backend's files.
 */
#ifndef AM_STORE_SQLITE_INT_H
#define AM_STORE_SQLITE_INT_H

#include <sqlite3.h>

#include "store/store.h"

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

/* am_bm25(): BM25F ranking of events_fts (fts_rank.c). */
int am__sqlite_register_rank(sqlite3 *db);

/* Vectors of recently recalled users in memory (vec_cache.c). */
typedef struct am__vcache am__vcache;
typedef struct am__vc_view {
    size_t n;
    const int64_t *rid;
    const float *scale;
    const signed char *vec; /* n x dim, row-major */
} am__vc_view;
am__vcache *am__vc_new(const am__allocator *a); /* NULL: no cache */
void am__vc_free(am__vcache *c);
/* The user's vectors of that embedder and width: AM_OK and *out (valid
 * until the next call on c), AM_NOTFOUND (not cacheable: use SQL),
 * AM_NOMEM, AM_BACKEND. */
int am__vc_get(am__vcache *c, sqlite3 *db, const char *uid, const char *embedder, int dim,
               am__vc_view *out);
void am__vc_put(am__vcache *c, const char *uid, const char *embedder, int dim, int64_t rid,
                float scale, const signed char *v, int in_txn);
void am__vc_clear(am__vcache *c, const char *uid); /* NULL: every user */
void am__vc_txn_end(am__vcache *c, int committed);
/* Integer dot product of two int8 vectors. */
int32_t am__dot_i8(const signed char *a, const signed char *b, int n);

#endif
