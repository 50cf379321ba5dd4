/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fts_rank.c -- what a search of events_fts hands over to the ranker
 * (index/lexical.c computes BM25F over it).
 *
 * A search is one scan: the SQL function am_collect(events_fts, hits),
 * called for every row the OR query matches, appends the row's column
 * lengths and its per-phrase counts to a C structure bound as a pointer;
 * the rows are then scored in C, not through one SQL result and one
 * sorter entry per row.  Row lengths come from a cache (below) when
 * known: reading them is a b-tree lookup per row, half of a search.
 */
#include "store/sqlite/sqlite_int.h"

#include <string.h>

/* ---------------------------------------------------------------- am_collect
 *
 * am_collect(events_fts, hits): the rows are scored in C after the scan
 * instead of one SQL function result and one sorter entry per row.
 * Called once per matching row, it appends the row's column
 * lengths and, per phrase that occurs in it, the phrase's count in each
 * scored column to `hits` (an am__fts_hits bound with
 * sqlite3_bind_pointer, type "am__fts_hits"), and returns 0.  The
 * phrases' document frequencies then come free with the scan (every row
 * that holds a phrase matched the OR query), which saves the vocabulary
 * lookups a search made first. */

static int hits_grow(am__hits *h, void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return SQLITE_OK;
    size_t cap2 = *cap ? *cap * 2 : 256;
    while (cap2 < need) cap2 *= 2;
    void *q = am__realloc(h->a, *p, cap2 * size);
    if (!q) return SQLITE_NOMEM;
    *p = q;
    *cap = cap2;
    return SQLITE_OK;
}

/* Column lengths of recently scored rows, by rowid: FTS5 reads a row's
 * lengths from its docsize table, one b-tree lookup per matching row --
 * half the cost of a search.  Open addressing, linear probing, keys
 * rowid + 1 (0: empty), deletion by backward shift.  Kept true by the
 * store: a row's entry is dropped when the row is inserted or its context
 * grows, everything when rows are deleted or a transaction rolls back.
 * Each entry carries its user's lens epoch (caches.c: moved when another
 * connection wrote the user's rows, whose contexts may have grown): an
 * entry of an older epoch is not known, so another connection's write
 * for one user leaves every other user's lengths. */
#define LENS_MIN 4096
#define LENS_MAX (1u << 21) /* 2M slots, 48 MB: then start over */

typedef struct lens_slot {
    uint64_t key;
    uint32_t epoch; /* the row's user's lens epoch when it was learned */
    uint32_t len[AM__FTS_SCORED];
} lens_slot;

struct am__fts_lens {
    const am__allocator *a;
    lens_slot *slot;
    size_t cap, n; /* cap: a power of two, or 0 */
};

am__fts_lens *am__fts_lens_new(const am__allocator *a)
{
    am__fts_lens *c = am__calloc(a, sizeof *c);
    if (c) c->a = a;
    return c;
}

void am__fts_lens_clear(am__fts_lens *c)
{
    if (!c) return;
    am__free(c->a, c->slot);
    c->slot = NULL;
    c->cap = c->n = 0;
}

void am__fts_lens_free(am__fts_lens *c)
{
    if (!c) return;
    am__fts_lens_clear(c);
    am__free(c->a, c);
}

static const lens_slot *lens_find(const am__fts_lens *c, int64_t rid)
{
    if (!c || !c->cap) return NULL;
    uint64_t key = (uint64_t)rid + 1;
    for (size_t i = am__rid_home(key, c->cap);; i = (i + 1) & (c->cap - 1)) {
        if (c->slot[i].key == key) return &c->slot[i];
        if (c->slot[i].key == 0) return NULL;
    }
}

static void lens_put(am__fts_lens *c, int64_t rid, uint32_t epoch,
                     const uint32_t len[AM__FTS_SCORED])
{
    if (!c) return;
    if ((c->n + 1) * 4 > c->cap * 3) { /* grow, or start over when at the cap */
        size_t cap = c->cap ? c->cap * 2 : LENS_MIN;
        lens_slot *old = c->slot;
        size_t old_cap = c->cap;
        if (cap > LENS_MAX) {
            am__fts_lens_clear(c);
            cap = LENS_MIN;
            old = NULL;
            old_cap = 0;
        }
        lens_slot *slot = am__calloc(c->a, cap * sizeof *slot);
        if (!slot) return; /* no memory: not cached */
        c->slot = slot;
        c->cap = cap;
        c->n = 0;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].key) {
                size_t j = am__rid_home(old[i].key, cap);
                while (slot[j].key) j = (j + 1) & (cap - 1);
                slot[j] = old[i];
                c->n++;
            }
        am__free(c->a, old);
    }
    uint64_t key = (uint64_t)rid + 1;
    size_t i = am__rid_home(key, c->cap);
    while (c->slot[i].key && c->slot[i].key != key) i = (i + 1) & (c->cap - 1);
    if (!c->slot[i].key) c->n++;
    c->slot[i].key = key;
    c->slot[i].epoch = epoch;
    memcpy(c->slot[i].len, len, sizeof c->slot[i].len);
}

int am__fts_lens_get(const am__fts_lens *c, int64_t rid, uint32_t epoch,
                     uint32_t len[AM__FTS_SCORED])
{
    const lens_slot *e = lens_find(c, rid);
    if (e && e->epoch != epoch) e = NULL; /* learned before another connection wrote */
    if (e) memcpy(len, e->len, sizeof e->len);
    return e != NULL;
}

void am__fts_lens_set(am__fts_lens *c, int64_t rid, uint32_t epoch,
                      const uint32_t len[AM__FTS_SCORED])
{
    lens_put(c, rid, epoch, len);
}

void am__fts_lens_drop(am__fts_lens *c, int64_t rid)
{
    if (!c || !c->cap) return;
    uint64_t key = (uint64_t)rid + 1;
    size_t mask = c->cap - 1, i = am__rid_home(key, c->cap);
    while (c->slot[i].key != key) {
        if (!c->slot[i].key) return;
        i = (i + 1) & mask;
    }
    /* backward shift: pull later members of the cluster into the hole when
     * their home is not between the hole and them */
    for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
        if (!c->slot[j].key) break;
        size_t home = am__rid_home(c->slot[j].key, c->cap);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            c->slot[i] = c->slot[j];
            i = j;
        }
    }
    c->slot[i].key = 0;
    c->n--;
}

static void am_collect(const Fts5ExtensionApi *api, Fts5Context *fts,
                       sqlite3_context *ctx, int n_val, sqlite3_value **val)
{
    am__fts_hits *coll = n_val > 0 ? sqlite3_value_pointer(val[0], "am__fts_hits") : NULL;
    if (!coll) {
        sqlite3_result_error(ctx, "am_collect: no hit collector bound", -1);
        return;
    }
    am__hits *h = &coll->h;
    int n_col = api->xColumnCount(fts);
    int n_phrase = api->xPhraseCount(fts);
    int rc = SQLITE_OK;
    if (h->n == 0 && h->n_terms == 0) { /* first row: the table's averages */
        sqlite3_int64 n_row = 0;
        rc = api->xRowCount(fts, &n_row);
        for (int c = 0; c < AM__FTS_SCORED && rc == SQLITE_OK; c++) {
            sqlite3_int64 total = 0;
            if (coll->col0 + c < n_col) rc = api->xColumnTotalSize(fts, coll->col0 + c, &total);
            h->avg[c] = n_row > 0 && total > 0 ? (double)total / (double)n_row : 1.0;
            coll->total[c] = total;
        }
        coll->n_row = n_row;
        h->n_terms = n_phrase;
    }
    if (rc == SQLITE_OK)
        rc = hits_grow(h, (void **)&h->hit, &h->cap, h->n + 1, sizeof *h->hit);
    if (rc == SQLITE_OK)
        rc = hits_grow(h, (void **)&h->tf, &h->cap_tf, h->n_tf + (size_t)n_phrase, sizeof *h->tf);
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(ctx, rc);
        return;
    }
    am__hit *e = &h->hit[h->n];
    e->rid = api->xRowid(fts);
    e->first = h->n_tf;
    const lens_slot *known = lens_find(coll->lens, e->rid);
    if (known && known->epoch != coll->lens_epoch) known = NULL; /* learned before a write */
    if (known) {
        for (int c = 0; c < AM__FTS_SCORED; c++) e->len[c] = (float)known->len[c];
    } else {
        uint32_t len[AM__FTS_SCORED];
        for (int c = 0; c < AM__FTS_SCORED && rc == SQLITE_OK; c++) {
            int l = 0;
            if (coll->col0 + c < n_col) rc = api->xColumnSize(fts, coll->col0 + c, &l);
            len[c] = l > 0 ? (uint32_t)l : 0;
            e->len[c] = (float)len[c];
        }
        if (rc == SQLITE_OK) lens_put(coll->lens, e->rid, coll->lens_epoch, len);
    }
    for (int p = 0; p < n_phrase && rc == SQLITE_OK; p++) {
        Fts5PhraseIter it;
        int c = -1, off = -1;
        unsigned tf[AM__FTS_SCORED] = {0};
        rc = api->xPhraseFirst(fts, p, &it, &c, &off);
        while (rc == SQLITE_OK && c >= 0) { /* c and off are the iterator's state */
            int k = c - coll->col0;
            if (k >= 0 && k < AM__FTS_SCORED && tf[k] < 65535) tf[k]++;
            api->xPhraseNext(fts, &it, &c, &off);
        }
        if (tf[0] || tf[1]) {
            am__hit_tf *t = &h->tf[h->n_tf++];
            t->term = (uint16_t)p;
            t->tf[0] = (uint16_t)tf[0];
            t->tf[1] = (uint16_t)tf[1];
        }
    }
    if (rc != SQLITE_OK) {
        h->n_tf = e->first;
        sqlite3_result_error_code(ctx, rc);
        return;
    }
    e->n_tf = h->n_tf - e->first;
    h->n++;
    sqlite3_result_int(ctx, 0);
}

/* FTS5's averages record (row 1 of the %_data table): a varint row count,
 * then a varint token total per column (SQLite varints: 7 bits a byte,
 * big-endian, the 9th byte whole); ours has three columns, uid, doc, ctx. */
static uint64_t avg_varint(const unsigned char *p, size_t n, size_t *at, int *ok)
{
    uint64_t v = 0;
    for (int i = 0; i < 9; i++) {
        if (*at >= n) {
            *ok = 0;
            return 0;
        }
        unsigned char c = p[(*at)++];
        if (i == 8) return (v << 8) | c;
        v = (v << 7) | (c & 0x7f);
        if (!(c & 0x80)) return v;
    }
    return v;
}

int am__fts_averages_parse(const unsigned char *p, size_t n, double avg[AM__FTS_SCORED])
{
    size_t at = 0;
    int ok = p != NULL;
    uint64_t rows = ok ? avg_varint(p, n, &at, &ok) : 0;
    for (int c = 0; c <= AM__FTS_SCORED && ok; c++) {
        uint64_t total = avg_varint(p, n, &at, &ok);
        if (ok && c > 0) avg[c - 1] = rows > 0 && total > 0 ? (double)total / (double)rows : 1.0;
    }
    return ok;
}

int am__sqlite_register_collect(sqlite3 *db)
{
    fts5_api *api = am__sqlite_fts5(db);
    if (!api) return SQLITE_ERROR;
    return api->xCreateFunction(api, "am_collect", NULL, am_collect, NULL);
}
