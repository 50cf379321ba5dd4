/* SPDX-License-Identifier: Apache-2.0 */
/*
 * post_cache.c -- posting lists of searched terms, per connection.
 *
 * A search is one FTS5 scan of the OR of its terms (fts_rank.c), and on a
 * conversation of a few hundred turns that scan is most of a recall:
 * FTS5 opens every term in every segment and merges the doclists, and
 * the common words of a question match nearly every row.  The scan hands
 * each matching row's counts to C anyway, so what it learned about a
 * term -- every row holding it, with its count in each scored column --
 * is kept here, and the next search of that term (the user's next
 * question, the recall's own second and bridge searches) reads it from
 * memory; only terms not held go to FTS5.
 *
 * A list stays true the way the row lengths do (fts_rank.c), and more:
 * an insert or a context append of this connection adds its row's
 * counts to the lists of its user's terms it holds (the store tokenizes
 * the written text with the index's own tokenizer, fts_tokenizer.c);
 * deletes, rollbacks and other connections' commits clear everything.
 *
 * A user whose first row this connection writes (a new user, a bench's
 * freshly filled haystack) is "whole" from then on: each of its writes
 * makes the lists of all the terms it holds, not only of those held, so
 * its first question finds every term held -- one with no list is in none
 * of its rows -- and scans nothing.  A clear ends it (the rows written
 * before are then in no list).
 *
 * Keys are the index's per-user terms (TAG 0x1F token), so a list is one
 * user's -- a token collision between users puts another user's row in a
 * list exactly as it does in the index, and the reads after a search
 * check the row's user either way.  Open addressing, linear probing, no
 * deletion but clearing; at AM__POST_MAX postings in all, it starts over.
 *
 * Beside the lists, the document frequencies the store read from the
 * index's vocabulary (term_docs: a long history's terms, looked up before
 * the scan to drop the frequent ones; FTS5 counts a term's documents by
 * walking its whole doclist, which for a word in most of 100,000 turns
 * costs more than the rest of the recall).  A frequency is true until the
 * term's user gets a row or a longer context: any write of this
 * connection drops them all (am__post_df_clear), and so does every clear
 * of the lists.  Same table scheme, keys compared whole, at most
 * POST_DF_MAX of them.
 */
#include "store/sqlite/sqlite_int.h"

#include <string.h>

#define POST_MIN 256
#define POST_TAGS 64 /* tags with lists, tracked one by one up to this */
/* What a list costs besides its postings (its slot, its key and its two
 * arrays: some 200 bytes), counted in postings (12 bytes) against
 * AM__POST_MAX, so that many short or empty lists (terms a history does
 * not hold) stay within the bound too. */
#define POST_LIST_COST 16

typedef struct post_slot {
    uint64_t hash; /* 0: empty */
    char *key;
    size_t key_len;
    am__post_list list;
} post_slot;

typedef struct tag_count {
    uint64_t hash;
    size_t terms;
} tag_count;

typedef struct df_slot {
    uint64_t hash; /* 0: empty */
    char *key;
    size_t key_len;
    int64_t df;
} df_slot;

#define POST_DF_MIN 256
#define POST_DF_MAX ((size_t)1 << 16)

struct am__post {
    const am__allocator *a;
    df_slot *df;
    size_t df_cap, df_n; /* df_cap: a power of two, or 0 */
    post_slot *slot;
    size_t cap, n;     /* cap: a power of two, or 0 */
    size_t postings;   /* rows over all lists */
    tag_count tag[POST_TAGS];
    size_t n_tag;
    uint64_t whole[POST_TAGS]; /* whole tags (tag_hash), up to POST_TAGS */
    size_t n_whole;
    int many_tags;     /* more tags than tracked: every tag may have lists */
};

static uint64_t key_hash(const char *key, size_t len)
{
    uint64_t h = am__hash64(key, len);
    return h ? h : 1;
}

/* The tag part of a key: up to its separator. */
static uint64_t tag_hash(const char *key, size_t len)
{
    const char *sep = memchr(key, AM__FTS_TAG_SEP, len);
    return key_hash(key, sep ? (size_t)(sep - key) : len);
}

am__post *am__post_new(const am__allocator *a)
{
    am__post *p = am__calloc(a, sizeof *p);
    if (p) p->a = a;
    return p;
}

void am__post_df_clear(am__post *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->df_cap; i++)
        if (p->df[i].hash) am__free(p->a, p->df[i].key);
    am__free(p->a, p->df);
    p->df = NULL;
    p->df_cap = p->df_n = 0;
}

static df_slot *df_find(const am__post *p, const char *key, size_t len, uint64_t h)
{
    if (!p || !p->df_cap) return NULL;
    for (size_t i = am__rid_home(h, p->df_cap);; i = (i + 1) & (p->df_cap - 1)) {
        df_slot *s = &p->df[i];
        if (!s->hash) return NULL;
        if (s->hash == h && s->key_len == len && memcmp(s->key, key, len) == 0) return s;
    }
}

int am__post_df_get(const am__post *p, const char *key, size_t len, int64_t *df)
{
    const df_slot *s = df_find(p, key, len, key_hash(key, len));
    if (s) *df = s->df;
    return s != NULL;
}

void am__post_df_put(am__post *p, const char *key, size_t len, int64_t df)
{
    if (!p) return;
    uint64_t h = key_hash(key, len);
    if (df_find(p, key, len, h)) return;
    if (p->df_n + 1 > POST_DF_MAX) am__post_df_clear(p);
    if ((p->df_n + 1) * 4 > p->df_cap * 3) { /* grow */
        size_t cap = p->df_cap ? p->df_cap * 2 : POST_DF_MIN;
        df_slot *slot = am__calloc(p->a, cap * sizeof *slot);
        if (!slot) return; /* no memory: not held */
        for (size_t i = 0; i < p->df_cap; i++)
            if (p->df[i].hash) {
                size_t j = am__rid_home(p->df[i].hash, cap);
                while (slot[j].hash) j = (j + 1) & (cap - 1);
                slot[j] = p->df[i];
            }
        am__free(p->a, p->df);
        p->df = slot;
        p->df_cap = cap;
    }
    char *k = am__malloc(p->a, len + 1);
    if (!k) return;
    memcpy(k, key, len);
    k[len] = 0;
    size_t i = am__rid_home(h, p->df_cap);
    while (p->df[i].hash) i = (i + 1) & (p->df_cap - 1);
    p->df[i].hash = h;
    p->df[i].key = k;
    p->df[i].key_len = len;
    p->df[i].df = df;
    p->df_n++;
}

void am__post_clear(am__post *p)
{
    if (!p) return;
    am__post_df_clear(p);
    for (size_t i = 0; i < p->cap; i++)
        if (p->slot[i].hash) {
            am__free(p->a, p->slot[i].key);
            am__free(p->a, p->slot[i].list.rid);
            am__free(p->a, p->slot[i].list.tf);
        }
    am__free(p->a, p->slot);
    p->slot = NULL;
    p->cap = p->n = p->postings = 0;
    p->n_tag = 0;
    p->many_tags = 0;
    p->n_whole = 0;
}

/* Drop the lists, frequencies and whole mark of one tag (its user's
 * rows changed through another connection): the others stay.  The
 * tables have no single deletion, so what stays is put back into tables
 * of the same sizes. */
void am__post_clear_tag(am__post *p, const char *tag, size_t len)
{
    if (!p) return;
    uint64_t th = key_hash(tag, len);
    if (p->cap) {
        post_slot *old = p->slot, *slot = am__calloc(p->a, p->cap * sizeof *slot);
        if (!slot) {
            am__post_clear(p);
            return;
        }
        for (size_t i = 0; i < p->cap; i++) {
            post_slot *e = &old[i];
            if (!e->hash) continue;
            if (tag_hash(e->key, e->key_len) == th) {
                p->n--;
                p->postings -= e->list.n + POST_LIST_COST;
                am__free(p->a, e->key);
                am__free(p->a, e->list.rid);
                am__free(p->a, e->list.tf);
                continue;
            }
            size_t j = am__rid_home(e->hash, p->cap);
            while (slot[j].hash) j = (j + 1) & (p->cap - 1);
            slot[j] = *e;
        }
        am__free(p->a, old);
        p->slot = slot;
    }
    if (p->df_cap) {
        df_slot *old = p->df, *slot = am__calloc(p->a, p->df_cap * sizeof *slot);
        if (!slot) {
            am__post_df_clear(p);
        } else {
            for (size_t i = 0; i < p->df_cap; i++) {
                df_slot *e = &old[i];
                if (!e->hash) continue;
                if (tag_hash(e->key, e->key_len) == th) {
                    p->df_n--;
                    am__free(p->a, e->key);
                    continue;
                }
                size_t j = am__rid_home(e->hash, p->df_cap);
                while (slot[j].hash) j = (j + 1) & (p->df_cap - 1);
                slot[j] = *e;
            }
            am__free(p->a, old);
            p->df = slot;
        }
    }
    size_t w = 0;
    for (size_t i = 0; i < p->n_tag; i++)
        if (p->tag[i].hash != th) p->tag[w++] = p->tag[i];
    p->n_tag = w;
    w = 0;
    for (size_t i = 0; i < p->n_whole; i++)
        if (p->whole[i] != th) p->whole[w++] = p->whole[i];
    p->n_whole = w;
}

void am__post_free(am__post *p)
{
    if (!p) return;
    am__post_clear(p);
    am__free(p->a, p);
}

static post_slot *find_slot(const am__post *p, const char *key, size_t len, uint64_t h)
{
    if (!p || !p->cap) return NULL;
    for (size_t i = am__rid_home(h, p->cap);; i = (i + 1) & (p->cap - 1)) {
        post_slot *s = &p->slot[i];
        if (!s->hash) return NULL;
        if (s->hash == h && s->key_len == len && memcmp(s->key, key, len) == 0) return s;
    }
}

const am__post_list *am__post_get(const am__post *p, const char *key, size_t len)
{
    post_slot *s = find_slot(p, key, len, key_hash(key, len));
    return s ? &s->list : NULL;
}

void am__post_whole_add(am__post *p, const char *tag, size_t len)
{
    if (!p || p->n_whole == POST_TAGS || am__post_whole(p, tag, len)) return;
    p->whole[p->n_whole++] = tag_hash(tag, len);
}

int am__post_whole(const am__post *p, const char *key, size_t len)
{
    if (!p || !p->n_whole) return 0;
    uint64_t h = tag_hash(key, len);
    for (size_t i = 0; i < p->n_whole; i++)
        if (p->whole[i] == h) return 1;
    return 0;
}

int am__post_has_tag(const am__post *p, const char *tag, size_t len)
{
    if (am__post_whole(p, tag, len)) return 1;
    if (!p || !p->n) return 0;
    if (p->many_tags) return 1;
    uint64_t h = key_hash(tag, len);
    for (size_t i = 0; i < p->n_tag; i++)
        if (p->tag[i].hash == h) return 1;
    return 0;
}

static int grow(am__post *p)
{
    if ((p->n + 1) * 4 <= p->cap * 3) return 0;
    size_t cap = p->cap ? p->cap * 2 : POST_MIN;
    post_slot *slot = am__calloc(p->a, cap * sizeof *slot);
    if (!slot) return -1;
    for (size_t i = 0; i < p->cap; i++)
        if (p->slot[i].hash) {
            size_t j = am__rid_home(p->slot[i].hash, cap);
            while (slot[j].hash) j = (j + 1) & (cap - 1);
            slot[j] = p->slot[i];
        }
    am__free(p->a, p->slot);
    p->slot = slot;
    p->cap = cap;
    return 0;
}

static void tag_added(am__post *p, const char *key, size_t len)
{
    uint64_t h = tag_hash(key, len);
    for (size_t i = 0; i < p->n_tag; i++)
        if (p->tag[i].hash == h) {
            p->tag[i].terms++;
            return;
        }
    if (p->n_tag == POST_TAGS) {
        p->many_tags = 1;
        return;
    }
    p->tag[p->n_tag].hash = h;
    p->tag[p->n_tag++].terms = 1;
}

int am__post_put(am__post *p, const char *key, size_t len, const int64_t *rid,
                 const uint16_t (*tf)[AM__FTS_SCORED], size_t n)
{
    if (!p) return AM_OK;
    uint64_t h = key_hash(key, len);
    if (find_slot(p, key, len, h)) return AM_OK; /* held already (and kept true) */
    if (p->postings + n + POST_LIST_COST > AM__POST_MAX) am__post_clear(p);
    if (n + POST_LIST_COST > AM__POST_MAX) return AM_OK;
    if (grow(p)) return AM_NOMEM;
    char *k = am__malloc(p->a, len + 1);
    int64_t *r = am__malloc(p->a, (n ? n : 1) * sizeof *r);
    uint16_t(*t)[AM__FTS_SCORED] = am__malloc(p->a, (n ? n : 1) * sizeof *t);
    if (!k || !r || !t) {
        am__free(p->a, k);
        am__free(p->a, r);
        am__free(p->a, t);
        return AM_NOMEM;
    }
    memcpy(k, key, len);
    k[len] = 0;
    if (n) {
        memcpy(r, rid, n * sizeof *r);
        memcpy(t, tf, n * sizeof *t);
    }
    size_t i = am__rid_home(h, p->cap);
    while (p->slot[i].hash) i = (i + 1) & (p->cap - 1);
    post_slot *s = &p->slot[i];
    s->hash = h;
    s->key = k;
    s->key_len = len;
    s->list.rid = r;
    s->list.tf = t;
    s->list.n = n;
    s->list.cap = n ? n : 1;
    p->n++;
    p->postings += n + POST_LIST_COST;
    tag_added(p, key, len);
    return AM_OK;
}

/* Row rid holds cnt more of the key's token in scored column col: its
 * posting is found (binary search: lists are in rowid order) or made. */
int am__post_add(am__post *p, const char *key, size_t len, int64_t rid, int col, unsigned cnt)
{
    if (!p || cnt == 0 || col < 0 || col >= AM__FTS_SCORED) return AM_OK;
    post_slot *s = find_slot(p, key, len, key_hash(key, len));
    if (!s && memchr(key, AM__FTS_TAG_SEP, len) && am__post_whole(p, key, len)) {
        /* a whole tag's new term (not its bare tag: no search reads that) */
        int rc = am__post_put(p, key, len, NULL, NULL, 0);
        if (rc || !am__post_whole(p, key, len)) return rc; /* (put may have cleared) */
        s = find_slot(p, key, len, key_hash(key, len));
    }
    if (!s) return AM_OK; /* not held: a search of it will scan */
    am__post_list *l = &s->list;
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->rid[mid] < rid) lo = mid + 1;
        else hi = mid;
    }
    if (lo < l->n && l->rid[lo] == rid) {
        unsigned v = l->tf[lo][col] + cnt;
        l->tf[lo][col] = (uint16_t)(v > 65535 ? 65535 : v);
        return AM_OK;
    }
    if (p->postings + 1 > AM__POST_MAX) {
        am__post_clear(p);
        return AM_OK;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap * 2;
        int64_t *r = am__realloc(p->a, l->rid, cap * sizeof *r);
        if (r) l->rid = r;
        uint16_t(*t)[AM__FTS_SCORED] = r ? am__realloc(p->a, l->tf, cap * sizeof *t) : NULL;
        if (t) l->tf = t;
        if (!r || !t) { /* the list would be short of this row: hold nothing */
            am__post_clear(p);
            return AM_OK;
        }
        l->cap = cap;
    }
    memmove(l->rid + lo + 1, l->rid + lo, (l->n - lo) * sizeof *l->rid);
    memmove(l->tf + lo + 1, l->tf + lo, (l->n - lo) * sizeof *l->tf);
    l->rid[lo] = rid;
    memset(l->tf[lo], 0, sizeof l->tf[lo]);
    l->tf[lo][col] = (uint16_t)(cnt > 65535 ? 65535 : cnt);
    l->n++;
    p->postings++;
    return AM_OK;
}

size_t am__post_count(const am__post *p) { return p ? p->n : 0; }
