/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cold.h -- the stored form of an archived event's text (both backends;
 * docs/internals/STORAGE.md "Archived events").
 *
 * An archived event keeps a short summary in its content column and its
 * whole text in its `cold` column, the last one of the row: one codec
 * byte ('z': zlib, 'r': as is, for builds without zlib), the text's
 * length in 4 bytes (big-endian), then the bytes.  A row whose cold value
 * is empty (0 bytes) is an event whose text was restored: hot again, and
 * never archived again.  NULL: never archived.
 */
#ifndef AM_STORE_COLD_H
#define AM_STORE_COLD_H

#include "base/base.h"

#define AM__COLD_HEAD 5 /* codec byte + length */

/* A text shorter than this many bytes stays whole in its row and is never
 * a candidate (store events_scan, AM__SCAN_COLD): its summary and packed copy would
 * take about as much room as it does (a chat turn of a sentence or two),
 * and leaving it untouched costs the pass no write. */
#define AM__COLD_MIN_BYTES 256
#define AM__COLD_MIN_BYTES_SQL "256"

/* text[0..n) packed into a blob allocated in ar: *blob, *len.  AM_OK,
 * AM_NOMEM, AM_TOOBIG (over 4 GB). */
int am__cold_pack(am__arena *ar, const char *text, size_t n, unsigned char **blob, size_t *len);
/* A packed blob's text, NUL-terminated, in ar.  AM_OK, AM_NOMEM,
 * AM_CORRUPT (not a blob of ours, or damaged). */
int am__cold_unpack(am__arena *ar, const unsigned char *blob, size_t len, char **text);

#endif
