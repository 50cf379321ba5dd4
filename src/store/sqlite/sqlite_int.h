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

/* The FTS5 API of a connection (version >= 2), or NULL. */
fts5_api *am__sqlite_fts5(sqlite3 *db);

int am__sqlite_register_tokenizer(sqlite3 *db);

/* am_bm25(): BM25F ranking of events_fts (fts_rank.c). */
int am__sqlite_register_rank(sqlite3 *db);

#endif
