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

#endif
