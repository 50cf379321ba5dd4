/* SPDX-License-Identifier: Apache-2.0 */
/*
 * metadata.h -- the caller's metadata on events and memory items, and the
 * filters of lists and recalls (agentmem.h am_filter).
 *
 * Metadata is a flat JSON object: at most AM_METADATA_KEYS keys, each 1..
 * AM_METADATA_KEY_MAX bytes of [A-Za-z0-9_.-], each value a string (at
 * most AM_METADATA_VALUE_MAX bytes of UTF-8), a number or a boolean; the
 * whole at most AM_METADATA_BYTES.  It is checked where it enters
 * (am__meta_check: the first fault, naming the key) and stored in its
 * canonical form (keys sorted, compact), NULL for none or {}.
 *
 * A filter (am__filter, compiled once from an am_filter) keeps a row when
 * every condition given holds: its kind and its scope among those listed
 * (items only: an event has neither), every metadata key listed holding
 * one of its values, and its time in [from, to) (an item's valid_from, an
 * event's occurred_at).  Values compare by their text: a string as it is,
 * a number as JSON writes it, a boolean as true or false -- so the query
 * parameter metadata.n=3 finds the number 3.
 */
#ifndef AM_STORE_METADATA_H
#define AM_STORE_METADATA_H

#include "store/store.h"

/* json (NUL-terminated) checked: AM_OK and *canon (in ar; NULL for {})
 * or AM_INVALID / AM_TOOBIG with why ("metadata.project: value is 600
 * bytes, over the limit of 512"; cap bytes); AM_NOMEM. */
int am__meta_check(const char *json, am__arena *ar, const char **canon, char *why, size_t cap);

typedef struct am__meta_cond {
    const char *key;
    const char **values; /* the text forms it may hold */
    size_t n_values;
} am__meta_cond;

typedef struct am__filter {
    const char *const *kinds;
    size_t n_kinds;
    const char *const *scopes;
    size_t n_scopes;
    am__meta_cond *meta;
    size_t n_meta;
    am_time from, to; /* AM_TIME_NONE: unbounded */
    const char *query; /* NULL: none */
    size_t query_len;
    int any;          /* some condition is given */
} am__filter;

/* 1 when hay (NUL-terminated, NULL: none) holds needle[0..n) -- letters
 * A-Z without case, any other byte as it is (a plain search in Chinese
 * and English); n 0: 1. */
int am__plain_holds(const char *hay, const char *needle, size_t n);

/* f (may be NULL: no condition) compiled into *out (strings in ar).
 * AM_OK, AM_INVALID with why naming the field ("filters.metadata.project:
 * expected a string, a number, a boolean or an array of them", "filters.
 * from: not ISO 8601 with a zone"), AM_NOMEM. */
int am__filter_compile(const am_filter *f, am__arena *ar, am__filter *out, char *why, size_t cap);

/* 1 when the row passes f (NULL or no condition: 1). */
int am__filter_item(const am__filter *f, const am__item_row *r);
int am__filter_event(const am__filter *f, const am__event_row *e);

/* Pages of a listing of item versions (am_memories_list): rows in the
 * order items_list gives them -- by rid (current, as of), or by lineage id
 * and rid (by_lineage: every version) -- after the position a cursor
 * names (none: from the first), at most limit (0: all).  The cursor is
 * opaque to callers (base64url of the last row's lineage id and rid): a
 * row added later sorts after it or is not in this listing, so pages
 * never repeat or skip a row that was there. */
typedef struct am__page {
    int by_lineage;
    size_t limit;
    int64_t after_rid;         /* the cursor's row (0: none) */
    const char *after_lineage; /* NULL: from the first */
} am__page;
/* The cursor naming row r (in ar).  AM_OK, AM_NOMEM. */
int am__cursor_make(const am__item_row *r, am__arena *ar, const char **out);
/* p's position from a cursor.  AM_OK, AM_INVALID (not a cursor), AM_NOMEM. */
int am__cursor_read(const char *cursor, am__arena *ar, am__page *p);
/* rows[0..n) that pass f and come after p's position, moved to the front
 * (at most p->limit); returns how many.  *more = 1 when another passing
 * row follows them. */
size_t am__items_page(am__item_row *rows, size_t n, const am__filter *f, const am__page *p,
                      int *more);

#endif
