/* SPDX-License-Identifier: Apache-2.0 */
/*
 * row_cache.c -- copies of the events rows searches returned lately, and
 * of those this connection wrote for a whole user (events.c: its first
 * question reads none of them by statement), by rowid.
 *
 * After its scan a search reads its best rows (fifty for a recall): a
 * statement step and sixteen columns each, as much as the rest of a
 * recall after the scan.  The same rows come back question after question
 * about one history, and an events row never changes after its insert, so
 * a copy stays true for as long as the row is there.  The store clears the
 * cache when rows are deleted (forget), when a transaction rolls back (an
 * insert undone: its rowid can come back with another event) and when
 * another connection has committed (PRAGMA data_version, checked by every
 * search, as for the row lengths); an insert of a rowid the cache holds
 * (which those make impossible) clears it too.
 *
 * Open addressing, linear probing, keys rowid + 1 (0: empty); no single
 * deletion.  At most ROWS_MAX_BYTES of copies and ROWS_MAX slots in use:
 * then it starts over.
 */
#include "store/sqlite/sqlite_int.h"

#include <stddef.h>
#include <string.h>

#define ROWS_MIN 1024
#define ROWS_MAX (1u << 16)                 /* rows held */
#define ROWS_MAX_BYTES ((size_t)32 << 20)   /* bytes of their text */

/* One row: its fields, whose strings (and token blob, after them) point
 * into text[]. */
typedef struct row_copy {
    am__event_row row;
    size_t size; /* bytes of text[] */
    char text[];
} row_copy;

typedef struct row_slot {
    uint64_t key;
    row_copy *copy;
} row_slot;

struct am__rowcache {
    const am__allocator *a;
    row_slot *slot;
    size_t cap, n, bytes; /* cap: a power of two, or 0 */
};

/* The string fields of a row that a read fills (index_doc and index_ctx
 * are written, never read). */
static const size_t text_fields[] = {
    offsetof(am__event_row, id),         offsetof(am__event_row, user_id),
    offsetof(am__event_row, agent_id),   offsetof(am__event_row, session_id),
    offsetof(am__event_row, task_id),    offsetof(am__event_row, channel),
    offsetof(am__event_row, source),     offsetof(am__event_row, type),
    offsetof(am__event_row, content),    offsetof(am__event_row, domain),
    offsetof(am__event_row, intent),     offsetof(am__event_row, lang),
    offsetof(am__event_row, metadata),
};
#define N_TEXT (sizeof text_fields / sizeof *text_fields)

static const char **field(am__event_row *r, size_t i)
{
    return (const char **)(void *)((char *)r + text_fields[i]);
}

am__rowcache *am__rowcache_new(const am__allocator *a)
{
    am__rowcache *c = am__calloc(a, sizeof *c);
    if (c) c->a = a;
    return c;
}

void am__rowcache_clear(am__rowcache *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->cap; i++) am__free(c->a, c->slot[i].copy);
    am__free(c->a, c->slot);
    c->slot = NULL;
    c->cap = c->n = c->bytes = 0;
}

void am__rowcache_free(am__rowcache *c)
{
    if (!c) return;
    am__rowcache_clear(c);
    am__free(c->a, c);
}

static row_slot *find(const am__rowcache *c, int64_t rid)
{
    if (!c || !c->cap) return NULL;
    uint64_t key = (uint64_t)rid + 1;
    for (size_t i = am__rid_home(key, c->cap);; i = (i + 1) & (c->cap - 1)) {
        if (c->slot[i].key == key) return &c->slot[i];
        if (c->slot[i].key == 0) return NULL;
    }
}

int am__rowcache_get(const am__rowcache *c, int64_t rid, am__arena *ar, am__event_row *out,
                     int *found)
{
    *found = 0;
    const row_slot *s = find(c, rid);
    if (!s) return AM_OK;
    const row_copy *k = s->copy;
    char *text = am__arena_take(ar, k->size);
    if (!text) return AM_NOMEM;
    memcpy(text, k->text, k->size);
    *out = k->row;
    for (size_t i = 0; i < N_TEXT; i++) {
        const char **f = field(out, i);
        if (*f) *f = text + (*f - k->text);
    }
    if (out->tokens)
        out->tokens = (const unsigned char *)text + (k->row.tokens - (const unsigned char *)k->text);
    *found = 1;
    return AM_OK;
}

/* Room for one more row (a larger table, or an empty one when full). */
static int make_room(am__rowcache *c, size_t bytes)
{
    if (c->n + 1 > ROWS_MAX || c->bytes + bytes > ROWS_MAX_BYTES) am__rowcache_clear(c);
    if ((c->n + 1) * 4 <= c->cap * 3) return 1;
    size_t cap = c->cap ? c->cap * 2 : ROWS_MIN;
    row_slot *slot = am__calloc(c->a, cap * sizeof *slot);
    if (!slot) return 0;
    for (size_t i = 0; i < c->cap; i++)
        if (c->slot[i].key) {
            size_t j = am__rid_home(c->slot[i].key, cap);
            while (slot[j].key) j = (j + 1) & (cap - 1);
            slot[j] = c->slot[i];
        }
    am__free(c->a, c->slot);
    c->slot = slot;
    c->cap = cap;
    return 1;
}

void am__rowcache_put(am__rowcache *c, const am__event_row *r)
{
    if (!c || find(c, r->rid)) return;
    size_t size = 0, len[N_TEXT];
    am__event_row row = *r;
    for (size_t i = 0; i < N_TEXT; i++) {
        const char *f = *field(&row, i);
        len[i] = f ? strlen(f) + 1 : 0;
        size += len[i];
    }
    if (row.tokens) size += row.tokens_len;
    if (size > ROWS_MAX_BYTES / 4 || !make_room(c, size)) return; /* not cached */
    row_copy *k = am__malloc(c->a, sizeof *k + size);
    if (!k) return;
    row.index_doc = row.index_ctx = row.client_id = NULL; /* (put only: never read) */
    row.client_hash = 0;
    row.score = 0;
    char *p = k->text;
    for (size_t i = 0; i < N_TEXT; i++) {
        const char **f = field(&row, i);
        if (!*f) continue;
        memcpy(p, *f, len[i]);
        *f = p;
        p += len[i];
    }
    if (row.tokens) {
        memcpy(p, row.tokens, row.tokens_len);
        row.tokens = (const unsigned char *)p;
    }
    k->row = row;
    k->size = size;
    uint64_t key = (uint64_t)r->rid + 1;
    size_t i = am__rid_home(key, c->cap);
    while (c->slot[i].key) i = (i + 1) & (c->cap - 1);
    c->slot[i].key = key;
    c->slot[i].copy = k;
    c->n++;
    c->bytes += size;
}

void am__rowcache_inserted(am__rowcache *c, int64_t rid)
{
    if (find(c, rid)) am__rowcache_clear(c);
}
