/* SPDX-License-Identifier: Apache-2.0 */
/*
 * item_memo.c -- the write path's list of a user's latest memory items,
 * held by the connection from one statement to the next.
 *
 * Every statement the distiller finds is matched against all of its
 * user's latest items (semantic/merge.c: same key, near duplicate, the
 * value it restates), so each write listed them all: an indexed read of
 * every current row, O(items) per write, and the largest single cost of
 * a server's writer once users hold a few hundred items (docs/bench/README.md).
 * The memo keeps that list -- the rows items_list gives for
 * AM__ITEMS_CURRENT | AM__ITEMS_NO_SOURCES | AM__ITEMS_NO_HEAT, of any
 * valid time -- per user, for up to MEMO_USERS users and MEMO_BYTES bytes;
 * each read hands out those valid at its time, and a recall's adds their
 * heat, read apart (items.c).
 *
 * When it is true: schema v23 keeps a seq per user (item_changes) that
 * triggers move with every insert, update or delete of one of the user's
 * memory_items rows, whoever makes it; the seq is drawn from one counter
 * (the row of the empty user id), so a user forgotten and written again
 * never comes back to a seq it had -- but for 0, no row (a user of a
 * store from before v23 not written since, or one whose row a forget or
 * a merge deleted), at which nothing is held.  An entry is used only in a
 * snapshot where the user's seq is the one it was read at.  This connection's own
 * changes keep it true row by row (inserted: appended, closed: removed,
 * reinforced in place: its count and time), each checked the same way:
 * the seq before the change must be the entry's, the seq after it becomes
 * the entry's; any other change of the user's rows in the transaction
 * (one this file does not follow) leaves a seq the entry does not have,
 * and the next use reads the rows again.  A rollback (the seqs go back:
 * a later write could meet a seq an entry has) and a forget drop every
 * entry (am__sqlite_caches_drop); another connection's commit drops
 * nothing (each entry is checked by its own seq).
 *
 * Rows are handed out as copies in the caller's arena: one allocation for
 * the array, one for all the strings, the pointers moved.
 */
#include <stdlib.h>
#include <string.h>

#include "store/sqlite/sqlite_int.h"

#define MEMO_USERS 64
#define MEMO_BYTES ((size_t)16 << 20) /* strings and rows of every entry */

typedef struct am__memo_entry {
    char uid[AM_ID_MAX + 1]; /* "": a free slot */
    int64_t seq;             /* item_changes.seq the rows are true at */
    uint64_t used;           /* the last use (the oldest goes first) */
    am__item_row *rows;      /* rid order, as items_list */
    char **blocks;           /* each row's strings and token blob */
    size_t *block_len;
    size_t n, cap, bytes;    /* bytes: the strings of all its rows */
} memo_entry;

struct am__item_memo {
    memo_entry e[MEMO_USERS];
    uint64_t tick;
    size_t bytes; /* of every entry, rows and strings */
};

static void entry_clear(sq_store *s, memo_entry *m)
{
    for (size_t i = 0; i < m->n; i++) am__free(s->a, m->blocks[i]);
    am__free(s->a, m->rows);
    am__free(s->a, m->blocks);
    am__free(s->a, m->block_len);
    if (s->imemo) s->imemo->bytes -= m->bytes + m->cap * sizeof *m->rows;
    memset(m, 0, sizeof *m);
}

void am__sqlite_memo_clear(sq_store *s)
{
    if (!s->imemo) return;
    for (int i = 0; i < MEMO_USERS; i++)
        if (s->imemo->e[i].uid[0]) entry_clear(s, &s->imemo->e[i]);
    s->imemo->bytes = 0;
}

void am__sqlite_memo_free(sq_store *s)
{
    am__sqlite_memo_clear(s);
    am__free(s->a, s->imemo);
    s->imemo = NULL;
}

static memo_entry *entry_find(sq_store *s, const char *uid)
{
    if (!s->imemo || !uid || !uid[0]) return NULL;
    for (int i = 0; i < MEMO_USERS; i++)
        if (strcmp(s->imemo->e[i].uid, uid) == 0) return &s->imemo->e[i];
    return NULL;
}

/* The user's item seq in this snapshot (0: none recorded); -1 when the
 * store has no item_changes (then nothing is held). */
static int item_seq(sq_store *s, const char *uid, int64_t *seq)
{
    return am__sqlite_seq_read(s, "SELECT seq FROM item_changes WHERE user_id = ?", uid, seq,
                               "item changes");
}

/* ------------------------------------------------------------ a row's block */

#define ROW_STRINGS 10
static const char **row_string(am__item_row *r, int k)
{
    switch (k) {
    case 0: return &r->id;
    case 1: return &r->lineage_id;
    case 2: return &r->scope;
    case 3: return &r->kind;
    case 4: return &r->key;
    case 5: return &r->text;
    case 6: return &r->value_json;
    case 7: return &r->metadata;
    case 8: return &r->origin;
    default: return &r->status;
    }
}

/* The bytes of r's block: its strings and token blob. */
static size_t row_bytes(am__item_row *r)
{
    size_t need = r->tokens ? r->tokens_len : 0;
    for (int k = 0; k < ROW_STRINGS; k++) {
        const char *p = *row_string(r, k);
        if (p) need += strlen(p) + 1;
    }
    return need;
}

/* r's strings and token blob copied into one block of the memo's own;
 * r's pointers moved into it.  0, or AM_NOMEM (r unchanged). */
static int row_pack(sq_store *s, am__item_row *r, char **block, size_t *len)
{
    size_t need = row_bytes(r);
    char *b = am__malloc(s->a, need ? need : 1);
    if (!b) return AM_NOMEM;
    size_t at = 0;
    if (r->tokens) { /* first: the blob needs no alignment, but keep strings after it */
        memcpy(b, r->tokens, r->tokens_len);
        r->tokens = (const unsigned char *)b;
        at = r->tokens_len;
    }
    for (int k = 0; k < ROW_STRINGS; k++) {
        const char **pp = row_string(r, k);
        if (!*pp) continue;
        size_t l = strlen(*pp) + 1;
        memcpy(b + at, *pp, l);
        *pp = b + at;
        at += l;
    }
    *block = b;
    *len = need;
    return AM_OK;
}

/* r's pointers moved from block `from` to `to` */
static void row_move(am__item_row *r, const char *from, char *to)
{
    for (int k = 0; k < ROW_STRINGS; k++) {
        const char **pp = row_string(r, k);
        if (*pp) *pp = to + (*pp - from);
    }
    if (r->tokens) r->tokens = (const unsigned char *)to + ((const char *)r->tokens - from);
}

static int entry_append(sq_store *s, memo_entry *m, const am__item_row *src)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        am__item_row *rows = am__realloc(s->a, m->rows, cap * sizeof *rows);
        if (!rows) return AM_NOMEM;
        m->rows = rows;
        char **blocks = am__realloc(s->a, m->blocks, cap * sizeof *blocks);
        if (!blocks) return AM_NOMEM;
        m->blocks = blocks;
        size_t *lens = am__realloc(s->a, m->block_len, cap * sizeof *lens);
        if (!lens) return AM_NOMEM;
        m->block_len = lens;
        s->imemo->bytes += (cap - m->cap) * sizeof *rows;
        m->cap = cap;
    }
    am__item_row r = *src;
    r.sources = NULL;
    r.n_sources = 0;
    int rc = row_pack(s, &r, &m->blocks[m->n], &m->block_len[m->n]);
    if (rc) return rc;
    m->rows[m->n] = r;
    m->bytes += m->block_len[m->n];
    s->imemo->bytes += m->block_len[m->n];
    m->n++;
    return AM_OK;
}

static void entry_remove(sq_store *s, memo_entry *m, size_t i)
{
    am__free(s->a, m->blocks[i]);
    m->bytes -= m->block_len[i];
    s->imemo->bytes -= m->block_len[i];
    memmove(&m->rows[i], &m->rows[i + 1], (m->n - i - 1) * sizeof *m->rows);
    memmove(&m->blocks[i], &m->blocks[i + 1], (m->n - i - 1) * sizeof *m->blocks);
    memmove(&m->block_len[i], &m->block_len[i + 1], (m->n - i - 1) * sizeof *m->block_len);
    m->n--;
}

/* ------------------------------------------------------------ reads */

int am__sqlite_memo_valid(const am__item_row *r, am_time at)
{
    return r->valid_from <= at && (r->valid_to == AM_TIME_NONE || r->valid_to > at);
}

int am__sqlite_memo_get(sq_store *s, const char *uid, am_time at, am__arena *ar,
                        am__item_row **rows, size_t *n, int *hit, int64_t *seq)
{
    *hit = 0;
    *seq = -1;
    if (s->no_memo) return AM_OK;
    if (!s->imemo && !(s->imemo = am__calloc(s->a, sizeof *s->imemo))) return AM_OK;
    int rc = item_seq(s, uid, seq);
    if (rc || *seq <= 0) return rc; /* 0: no row -- before v23, or forgotten: comes back */
    memo_entry *m = entry_find(s, uid);
    if (!m || m->seq != *seq) return AM_OK;
    m->used = ++s->imemo->tick;
    am__item_row *out = m->n ? am__arena_take(ar, m->n * sizeof *out) : NULL;
    char *strings = m->bytes ? am__arena_take(ar, m->bytes) : NULL;
    if ((m->n && !out) || (m->bytes && !strings)) return AM_NOMEM;
    size_t used = 0, k = 0;
    for (size_t i = 0; i < m->n; i++) {
        if (!am__sqlite_memo_valid(&m->rows[i], at)) continue;
        out[k] = m->rows[i];
        memcpy(strings + used, m->blocks[i], m->block_len[i]);
        row_move(&out[k], m->blocks[i], strings + used);
        used += m->block_len[i];
        k++;
    }
    *rows = out;
    *n = k;
    *hit = 1;
    return AM_OK;
}

void am__sqlite_memo_put(sq_store *s, const char *uid, int64_t seq, const am__item_row *rows,
                         size_t n)
{
    if (!s->imemo || seq <= 0 || !uid[0] || strlen(uid) > AM_ID_MAX) return;
    memo_entry *m = entry_find(s, uid);
    if (m) entry_clear(s, m);
    else { /* a free slot, or the one used longest ago */
        m = &s->imemo->e[0];
        for (int i = 0; i < MEMO_USERS && m->uid[0]; i++)
            if (!s->imemo->e[i].uid[0] || s->imemo->e[i].used < m->used) m = &s->imemo->e[i];
        if (m->uid[0]) entry_clear(s, m);
    }
    /* over the budget: the others go first, oldest first; a list larger
     * than half the budget is not held */
    size_t cap = 64;
    while (cap < n) cap *= 2;
    size_t need = cap * sizeof *rows;
    for (size_t i = 0; i < n; i++) {
        am__item_row r = rows[i];
        need += row_bytes(&r);
    }
    if (need > MEMO_BYTES / 2) return;
    while (s->imemo->bytes + need > MEMO_BYTES) {
        memo_entry *old = NULL;
        for (int i = 0; i < MEMO_USERS; i++)
            if (s->imemo->e[i].uid[0] && (!old || s->imemo->e[i].used < old->used))
                old = &s->imemo->e[i];
        if (!old) break;
        entry_clear(s, old);
    }
    memcpy(m->uid, uid, strlen(uid) + 1);
    m->seq = seq;
    m->used = ++s->imemo->tick;
    for (size_t i = 0; i < n; i++)
        if (entry_append(s, m, &rows[i])) {
            entry_clear(s, m);
            return;
        }
}

/* ------------------------------------------------------------ our own writes */

/* Before a change of uid's rows: the entry to keep true, or NULL (none,
 * or not true now: dropped). */
memo_entry *am__sqlite_memo_before(sq_store *s, const char *uid)
{
    memo_entry *m = entry_find(s, uid);
    if (!m) return NULL;
    int64_t seq;
    /* outside a transaction another connection may commit between the
     * seq read here and the change: not followed, read again next time */
    if (sqlite3_get_autocommit(s->db) || item_seq(s, uid, &seq) || seq != m->seq) {
        entry_clear(s, m);
        return NULL;
    }
    return m;
}

/* After it: the entry's seq is the user's now (the change was ours and
 * the only one), or the entry goes. */
static void after(sq_store *s, memo_entry *m, const char *uid, int ok)
{
    int64_t seq;
    if (!ok || item_seq(s, uid, &seq) || seq <= 0) {
        entry_clear(s, m);
        return;
    }
    m->seq = seq;
}

void am__sqlite_memo_inserted(sq_store *s, memo_entry *m, const char *uid,
                              const am__item_row *it)
{
    if (!m) return;
    /* as items_list reads it back: the filter of the latest current ones,
     * value_json "null" for none, reinforced_at coalesced with recorded_at,
     * an empty token blob read as none, no heat, no sources */
    int listed = it->superseded_at == AM_TIME_NONE && it->valid_from != AM_TIME_NONE && it->status &&
                 (strcmp(it->status, "active") == 0 || strcmp(it->status, "pending_confirm") == 0 ||
                  strcmp(it->status, "candidate_forget") == 0);
    int ok = 1;
    if (listed) {
        am__item_row r = *it;
        if (!r.value_json) r.value_json = "null";
        r.hits = 0;
        r.last_access = AM_TIME_NONE;
        long count = it->source_count > (long)it->n_sources ? it->source_count : (long)it->n_sources;
        r.source_count = count;
        am_time stored = it->reinforced_at == it->recorded_at ? AM_TIME_NONE : it->reinforced_at;
        r.reinforced_at = stored != AM_TIME_NONE ? stored : it->recorded_at;
        if (!r.tokens || r.tokens_len == 0) {
            r.tokens = NULL;
            r.tokens_len = 0;
        }
        ok = m->n == 0 || m->rows[m->n - 1].rid < r.rid; /* rid order */
        if (ok) ok = entry_append(s, m, &r) == AM_OK;
        if (ok && s->imemo->bytes > MEMO_BYTES) ok = 0; /* grown past the budget: not held */
    }
    after(s, m, uid, ok);
}

void am__sqlite_memo_closed(sq_store *s, memo_entry *m, const char *uid, const char *vid)
{
    if (!m) return;
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->rows[i].id, vid) == 0) {
            entry_remove(s, m, i);
            break;
        }
    after(s, m, uid, 1);
}

void am__sqlite_memo_reinforced(sq_store *s, memo_entry *m, const char *uid,
                                int64_t rid, am_time at)
{
    if (!m) return;
    for (size_t i = 0; i < m->n; i++)
        if (m->rows[i].rid == rid) {
            m->rows[i].source_count++;
            m->rows[i].reinforced_at = at != AM_TIME_NONE ? at : m->rows[i].recorded_at;
            break;
        }
    after(s, m, uid, 1);
}
