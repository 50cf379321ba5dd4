/* SPDX-License-Identifier: Apache-2.0 */
/*
 * items.c -- the semantic layer's memory items: versions are inserted and
 * closed, their content never edited; their sources (provenance), their
 * heat (hits, last access) and their stored token sets (schema v7).
 *
 * Provenance is bounded (schema v11, store.h): a version stores its first
 * AM__ITEM_SOURCES_FIRST and latest AM__ITEM_SOURCES_LAST sources as rows
 * and counts all of them (source_count).  A new version copies its
 * predecessor's list (so at most that many rows a version, not every
 * source ever); a repetition that changes nothing is one row more on the
 * current version (item_reinforce), and the oldest of the latest ones
 * leaves once the list is full.  So N repetitions of one statement cost
 * O(1) versions and rows, and the file grows with the events, linearly.
 */
#include <stdlib.h>
#include <string.h>

#include "store/sqlite/sqlite_int.h"

static int item_insert(sq_store *s, const char *uid, am__item_row *it);

int am__sqlite_item_insert(am__store *b, const char *uid, am__item_row *it)
{
    sq_store *s = SQ(b);
    struct am__memo_entry *m = am__sqlite_memo_before(s, uid);
    int rc = item_insert(s, uid, it);
    if (rc) am__sqlite_memo_clear(s);
    else am__sqlite_memo_inserted(s, m, uid, it);
    return rc;
}

static int item_insert(sq_store *s, const char *uid, am__item_row *it)
{
    sqlite3_stmt *st = stmt(s, "INSERT INTO memory_items(id, lineage_id, user_id, scope, kind, key, text, value_json, confidence,"
                               " base_score, half_life_days, valid_from, valid_to, recorded_at, superseded_at, status, tokens,"
                               " source_count, reinforced_at, metadata, origin)"
                               " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, it->id);
    bind_text(st, 2, it->lineage_id);
    bind_text(st, 3, uid);
    bind_text(st, 4, it->scope);
    bind_text(st, 5, it->kind);
    bind_text(st, 6, it->key);
    bind_text(st, 7, it->text);
    bind_text(st, 8, it->value_json ? it->value_json : "null");
    sqlite3_bind_double(st, 9, it->confidence);
    sqlite3_bind_double(st, 10, it->base_score);
    sqlite3_bind_double(st, 11, it->half_life_days);
    bind_time(st, 12, it->valid_from);
    bind_time(st, 13, it->valid_to);
    bind_time(st, 14, it->recorded_at);
    bind_time(st, 15, it->superseded_at);
    bind_text(st, 16, it->status);
    if (it->tokens) sqlite3_bind_blob(st, 17, it->tokens, (int)it->tokens_len, SQLITE_STATIC);
    long count = it->source_count > (long)it->n_sources ? it->source_count : (long)it->n_sources;
    sqlite3_bind_int64(st, 18, count);
    bind_time(st, 19, it->reinforced_at == it->recorded_at ? AM_TIME_NONE : it->reinforced_at);
    bind_text(st, 20, it->metadata);
    bind_text(st, 21, it->origin);
    int rc = run(s, st, "memory item");
    if (rc) return rc;
    it->rid = sqlite3_last_insert_rowid(s->db);
    /* the first and the latest sources, oldest first (rowid order) */
    size_t first = AM__ITEM_SOURCES_FIRST, last = AM__ITEM_SOURCES_LAST;
    for (size_t i = 0; i < it->n_sources; i++) {
        if (i >= first && i + last < it->n_sources) continue;
        st = stmt(s, "INSERT OR IGNORE INTO item_sources(item_rid, user_id, event_id) VALUES(?,?,?)");
        if (!st) return AM_BACKEND;
        sqlite3_bind_int64(st, 1, it->rid);
        bind_text(st, 2, uid);
        bind_text(st, 3, it->sources[i]);
        if ((rc = run(s, st, "item source"))) return rc;
    }
    st = stmt(s, "INSERT OR IGNORE INTO item_heat(user_id, lineage_id, hits, last_access) VALUES(?,?,0,NULL)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, it->lineage_id);
    return run(s, st, "item heat");
}

static int item_reinforce(am__store *b, const char *uid, int64_t item_rid, const char *event_id,
                          am_time at)
{
    sq_store *s = SQ(b);
    struct am__memo_entry *m = am__sqlite_memo_before(s, uid);
    sqlite3_stmt *st = stmt(s, "UPDATE memory_items SET source_count = source_count + 1, reinforced_at = ?3"
                               " WHERE rid = ?1 AND user_id = ?2 AND NOT EXISTS"
                               " (SELECT 1 FROM item_sources WHERE item_rid = ?1 AND event_id = ?4)");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, item_rid);
    bind_text(st, 2, uid);
    bind_time(st, 3, at);
    bind_text(st, 4, event_id);
    int rc = run(s, st, "reinforce item");
    if (rc) am__sqlite_memo_clear(s);
    if (rc || sqlite3_changes(s->db) == 0) return rc; /* a source already */
    am__sqlite_memo_reinforced(s, m, uid, item_rid, at);
    st = stmt(s, "INSERT INTO item_sources(item_rid, user_id, event_id) VALUES(?,?,?)");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, item_rid);
    bind_text(st, 2, uid);
    bind_text(st, 3, event_id);
    if ((rc = run(s, st, "item source"))) return rc;
    /* full: the oldest of the latest ones leaves (the first ones stay) */
    st = stmt(s, "DELETE FROM item_sources WHERE rowid ="
                 " (SELECT rowid FROM item_sources WHERE item_rid = ?1 ORDER BY rowid"
                 "  LIMIT 1 OFFSET " SQ_XSTR(AM__ITEM_SOURCES_FIRST) ")"
                 " AND (SELECT count(*) FROM item_sources WHERE item_rid = ?1) > "
                 SQ_XSTR(AM__ITEM_SOURCES_FIRST) " + " SQ_XSTR(AM__ITEM_SOURCES_LAST));
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, item_rid);
    return run(s, st, "item source");
}

static int item_close(am__store *b, const char *uid, const char *vid, am_time at)
{
    sq_store *s = SQ(b);
    struct am__memo_entry *m = am__sqlite_memo_before(s, uid);
    sqlite3_stmt *st = stmt(s, "UPDATE memory_items SET superseded_at=? WHERE user_id=? AND id=? AND superseded_at IS NULL");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, at);
    bind_text(st, 2, uid);
    bind_text(st, 3, vid);
    int rc = run(s, st, "close item");
    if (rc) am__sqlite_memo_clear(s);
    if (rc == AM_OK && sqlite3_changes(s->db) == 0) return AM_NOTFOUND;
    if (rc == AM_OK) am__sqlite_memo_closed(s, m, uid, vid);
    return rc;
}

int am__sqlite_item_update(am__store *b, const char *uid, const char *vid, int64_t item_rid,
                           const char *event_id, am_time at)
{
    return event_id ? item_reinforce(b, uid, item_rid, event_id, at) : item_close(b, uid, vid, at);
}

typedef struct source_row {
    int64_t rowid;
    const char *event_id;
} source_row;

static int cmp_source(const void *x, const void *y)
{
    const source_row *a = x, *b = y;
    return a->rowid < b->rowid ? -1 : a->rowid > b->rowid;
}

/* Oldest first: by rowid, sorted here (the index gives them by event id;
 * an ORDER BY cost a sorter per call, several per recall). */
int am__sqlite_item_sources(am__store *b, const char *uid, int64_t item_rid, am__arena *ar,
                            const char ***ids, size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT rowid, event_id FROM item_sources WHERE user_id=? AND item_rid=?");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    sqlite3_bind_int64(st, 2, item_rid);
    size_t cap = 0, k = 0;
    source_row *rows = NULL;
    *ids = NULL;
    *n = 0;
    int rc, sorted = 1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        source_row *r = push(ar, (void **)&rows, &k, &cap, sizeof *r);
        if (!r || !(r->event_id = col_text(ar, st, 1))) { done(s, st); return AM_NOMEM; }
        r->rowid = sqlite3_column_int64(st, 0);
        if (k > 1 && r[-1].rowid > r->rowid) sorted = 0;
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "item sources");
    done(s, st);
    if (out || k == 0) return out;
    if (!sorted) qsort(rows, k, sizeof *rows, cmp_source);
    *ids = am__arena_alloc(ar, k * sizeof **ids);
    if (!*ids) return AM_NOMEM;
    for (size_t i = 0; i < k; i++) (*ids)[i] = rows[i].event_id;
    *n = k;
    return AM_OK;
}

static int cmp_lineage(const void *x, const void *y)
{
    const am__item_row *const *a = x, *const *b = y;
    return strcmp((*a)->lineage_id, (*b)->lineage_id);
}

/* The heat (hits, last access) of rows[0..n), read apart from them: the
 * rows of item_heat that hold any, matched by lineage. */
static int heat_attach(sq_store *s, const char *uid, am__arena *ar, am__item_row *rows, size_t n)
{
    if (!n) return AM_OK;
    am__item_row **by = am__arena_alloc(ar, n * sizeof *by);
    if (!by) return AM_NOMEM;
    for (size_t i = 0; i < n; i++) {
        rows[i].hits = 0;
        rows[i].last_access = AM_TIME_NONE;
        by[i] = &rows[i];
    }
    qsort(by, n, sizeof *by, cmp_lineage);
    sqlite3_stmt *st = stmt(s, "SELECT lineage_id, hits, last_access FROM item_heat"
                               " WHERE user_id=?1 AND (hits > 0 OR last_access IS NOT NULL)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *lin = (const char *)sqlite3_column_text(st, 0);
        if (!lin) continue;
        /* the first row of the lineage, then its others beside it */
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strcmp(by[mid]->lineage_id, lin) < 0) lo = mid + 1;
            else hi = mid;
        }
        for (size_t i = lo; i < n && strcmp(by[i]->lineage_id, lin) == 0; i++) {
            by[i]->hits = sqlite3_column_int(st, 1);
            by[i]->last_access = col_time(st, 2);
        }
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "item heat");
    done(s, st);
    return out;
}

/* The item of the current row of st (the columns of the queries of
 * am__sqlite_items_list) into r, its texts in ar.  AM_NOMEM when
 * a copy fails. */
static int item_read(sqlite3_stmt *st, am__arena *ar, am__item_row *r)
{
    r->rid = sqlite3_column_int64(st, 0);
    r->id = col_text(ar, st, 1);
    r->lineage_id = col_text(ar, st, 2);
    r->scope = col_text(ar, st, 3);
    r->kind = col_text(ar, st, 4);
    r->key = col_text(ar, st, 5);
    r->text = col_text(ar, st, 6);
    r->value_json = col_text(ar, st, 7);
    r->confidence = sqlite3_column_double(st, 8);
    r->base_score = sqlite3_column_double(st, 9);
    r->half_life_days = sqlite3_column_double(st, 10);
    r->valid_from = col_time(st, 11);
    r->valid_to = col_time(st, 12);
    r->recorded_at = col_time(st, 13);
    r->superseded_at = col_time(st, 14);
    r->status = col_text(ar, st, 15);
    r->hits = sqlite3_column_int(st, 16);
    r->last_access = col_time(st, 17);
    int tl = sqlite3_column_bytes(st, 18);
    const void *tb = sqlite3_column_blob(st, 18);
    if (tb && tl > 0) {
        unsigned char *copy = am__arena_take(ar, (size_t)tl);
        if (!copy) return AM_NOMEM;
        memcpy(copy, tb, (size_t)tl);
        r->tokens = copy;
        r->tokens_len = (size_t)tl;
    }
    r->source_count = sqlite3_column_int64(st, 20);
    r->reinforced_at = col_time(st, 21);
    r->metadata = col_text(ar, st, 22);
    r->origin = col_text(ar, st, 23);
    /* provenance: event ids (ULIDs, no commas) joined by ',' */
    const char *src = col_text(ar, st, 19);
    if (src && *src) {
        size_t k = 1;
        for (const char *p = src; *p; p++) k += *p == ',';
        r->sources = am__arena_alloc(ar, k * sizeof *r->sources);
        if (!r->sources) return AM_NOMEM;
        char *cur = (char *)src;
        for (;;) {
            char *comma = strchr(cur, ',');
            if (comma) *comma = 0;
            r->sources[r->n_sources++] = cur;
            if (!comma) break;
            cur = comma + 1;
        }
    }
    return AM_OK;
}

int am__sqlite_items_list(am__store *b, const char *uid, int which, am_time at,
                          am__arena *ar, am__item_row **rows, size_t *n)
{
    if (which == AM__ITEMS_SOURCES)
        return am__item_sources_row(b, uid, (int64_t)at, ar, rows, n, am__sqlite_item_sources);
    sq_store *s = SQ(b);
#define ITEM_COLS                                                                            \
    "SELECT m.rid, m.id, m.lineage_id, m.scope, m.kind, m.key, m.text, m.value_json, m.confidence," \
    " m.base_score, m.half_life_days, m.valid_from, m.valid_to, m.recorded_at, m.superseded_at,"    \
    " m.status, h.hits, h.last_access, m.tokens,"
#define ITEM_SRC                                                                               \
    " (SELECT group_concat(event_id, ',') FROM"                                                 \
    "  (SELECT x.event_id FROM item_sources x WHERE x.item_rid = m.rid ORDER BY x.rowid)) AS src"
#define ITEM_NOSRC " NULL AS src"
#define ITEM_NOHEAT                                                                             \
    "SELECT m.rid, m.id, m.lineage_id, m.scope, m.kind, m.key, m.text, m.value_json, m.confidence," \
    " m.base_score, m.half_life_days, m.valid_from, m.valid_to, m.recorded_at, m.superseded_at,"    \
    " m.status, 0, NULL, m.tokens, NULL AS src, m.source_count,"                                     \
    " coalesce(m.reinforced_at, m.recorded_at), m.metadata, m.origin FROM memory_items m"
#define ITEM_FROM ", m.source_count, coalesce(m.reinforced_at, m.recorded_at), m.metadata, m.origin" \
    " FROM memory_items m LEFT JOIN item_heat h ON h.user_id=m.user_id AND h.lineage_id=m.lineage_id"
#define ITEM_LIVE " AND m.status IN ('active','pending_confirm','candidate_forget')"
#define ITEM_CURRENT                                                                            \
    " WHERE m.user_id=?1 AND m.superseded_at IS NULL" ITEM_LIVE                               \
    " AND m.valid_from <= ?2 AND (m.valid_to IS NULL OR m.valid_to > ?2) ORDER BY m.rid"
#define ITEM_CURRENT_ANY                                                                        \
    " WHERE m.user_id=?1 AND m.superseded_at IS NULL" ITEM_LIVE " AND ?2 = ?2 ORDER BY m.rid"
#define ITEM_ALL " WHERE m.user_id=?1 AND ?2 = ?2 ORDER BY m.lineage_id, m.rid"
#define ITEM_ASOF                                                                               \
    " WHERE m.user_id=?1 AND m.superseded_at IS NULL"                                           \
    " AND m.status IN ('active','invalidated','pending_confirm','candidate_forget')"            \
    " AND m.valid_from <= ?2 AND (m.valid_to IS NULL OR m.valid_to > ?2) ORDER BY m.rid"
#define ITEM_ARCHIVED                                                                           \
    " WHERE m.user_id=?1 AND m.superseded_at IS NULL AND m.valid_to IS NULL"        \
    " AND m.status = 'archived' AND ?2 = ?2 ORDER BY m.rid"
    /* [mode][without sources] */
    static const char *const sql[4][2] = {
        {ITEM_COLS ITEM_SRC ITEM_FROM ITEM_CURRENT, ITEM_COLS ITEM_NOSRC ITEM_FROM ITEM_CURRENT},
        {ITEM_COLS ITEM_SRC ITEM_FROM ITEM_ALL, ITEM_COLS ITEM_NOSRC ITEM_FROM ITEM_ALL},
        {ITEM_COLS ITEM_SRC ITEM_FROM ITEM_ASOF, ITEM_COLS ITEM_NOSRC ITEM_FROM ITEM_ASOF},
        {ITEM_COLS ITEM_SRC ITEM_FROM ITEM_ARCHIVED,
         ITEM_COLS ITEM_NOSRC ITEM_FROM ITEM_ARCHIVED},
    };
    int no_src = (which & AM__ITEMS_NO_SOURCES) != 0;
    int no_heat = (which & AM__ITEMS_NO_HEAT) != 0;
    which &= ~(AM__ITEMS_NO_SOURCES | AM__ITEMS_NO_HEAT);
    if (which < 0 || which > 3) return AM_MISUSE;
    const char *sql_use = sql[which][no_src];
    /* the current items without their sources: held between statements
     * and recalls (item_memo.c), those valid at `at` handed out, their heat
     * read apart */
    if (which == AM__ITEMS_ARCHIVED) { /* most users have none: one probe */
        sqlite3_stmt *probe = stmt(s, "SELECT 1 FROM memory_items INDEXED BY memory_items_archived"
                                      " WHERE user_id=?1 AND"
                                      " status='archived' AND superseded_at IS NULL LIMIT 1");
        if (!probe) return AM_BACKEND;
        bind_text(probe, 1, uid);
        int prc = sqlite3_step(probe);
        done(s, probe);
        if (prc == SQLITE_DONE) {
            *rows = NULL;
            *n = 0;
            return AM_OK;
        }
        if (prc != SQLITE_ROW) return fail(s, prc, "items");
    }
    int memo = which == AM__ITEMS_CURRENT && no_src;
    int64_t memo_seq = -1;
    if (memo) {
        int hit;
        int rc = am__sqlite_memo_get(s, uid, at, ar, rows, n, &hit, &memo_seq);
        if (rc) return rc;
        if (hit) return no_heat ? AM_OK : heat_attach(s, uid, ar, *rows, *n);
        if (memo_seq > 0) sql_use = ITEM_NOHEAT ITEM_CURRENT_ANY;
        else if (no_heat) sql_use = ITEM_NOHEAT ITEM_CURRENT;
        memo = memo_seq > 0;
    }
    sqlite3_stmt *st = stmt(s, sql_use);
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    sqlite3_bind_int64(st, 2, at);
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__item_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        if (item_read(st, ar, r)) { done(s, st); return AM_NOMEM; }
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "items");
    done(s, st);
    if (out) return out;
    if (ar->oom) return AM_NOMEM;
    if (no_heat)
        for (size_t i = 0; i < *n; i++) {
            (*rows)[i].hits = 0;
            (*rows)[i].last_access = AM_TIME_NONE;
        }
    if (memo) {
        am__sqlite_memo_put(s, uid, memo_seq, *rows, *n);
        size_t k = 0; /* those valid at `at` */
        for (size_t i = 0; i < *n; i++)
            if (am__sqlite_memo_valid(&(*rows)[i], at)) (*rows)[k++] = (*rows)[i];
        *n = k;
        if (!no_heat) return heat_attach(s, uid, ar, *rows, *n);
    }
    return AM_OK;
}

int am__sqlite_item_heat(am__store *b, const char *uid, const char *lineage, int add, long hits,
                         am_time at)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, add ? "UPDATE item_heat SET hits=hits+?1,"
                                     " last_access=max(coalesce(last_access, ?2), ?2)"
                                     " WHERE user_id=?3 AND lineage_id=?4"
                                   : "UPDATE item_heat SET hits=?1, last_access=?2"
                                     " WHERE user_id=?3 AND lineage_id=?4");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, hits);
    bind_time(st, 2, at);
    bind_text(st, 3, uid);
    bind_text(st, 4, lineage);
    return run(s, st, "item heat");
}

/* Each item version the statement select (its rid, text and key; one
 * row after ?1, by rid) gets the token set fn computes; in the caller's
 * transaction. */
int am__sqlite_item_tokens_set(sq_store *s, const char *select, item_tokens_fn fn, void *ctx,
                               size_t *n)
{
    int rc = AM_OK;
    unsigned char blob[1024];
    for (int64_t after = 0; !rc;) {
        sqlite3_stmt *st = stmt(s, select);
        if (!st) { rc = AM_BACKEND; break; }
        sqlite3_bind_int64(st, 1, after);
        int step = sqlite3_step(st);
        size_t len = sizeof blob;
        if (step == SQLITE_ROW) {
            after = sqlite3_column_int64(st, 0);
            rc = fn(ctx, (const char *)sqlite3_column_text(st, 1),
                    (const char *)sqlite3_column_text(st, 2), blob, &len);
        } else if (step != SQLITE_DONE) {
            rc = fail(s, step, "item tokens");
        }
        done(s, st);
        if (rc || step != SQLITE_ROW) break;
        st = stmt(s, "UPDATE memory_items SET tokens=? WHERE rid=?");
        if (!st) { rc = AM_BACKEND; break; }
        sqlite3_bind_blob(st, 1, blob, (int)len, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, after);
        if (!(rc = run(s, st, "item tokens"))) (*n)++;
    }
    return rc;
}

int am__sqlite_item_tokens_fill(am__store *b, item_tokens_fn fn, void *ctx, size_t *n)
{
    sq_store *s = SQ(b);
    *n = 0;
    int rc = exec(s, "BEGIN IMMEDIATE", "item tokens");
    if (rc) return rc;
    rc = am__sqlite_item_tokens_set(s, "SELECT rid, text, key FROM memory_items"
                            " WHERE tokens IS NULL AND rid > ? ORDER BY rid LIMIT 1",
                         fn, ctx, n);
    if (rc) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        am__sqlite_memo_clear(s); /* (the seqs went back) */
        return rc;
    }
    return exec(s, "COMMIT", "item tokens");
}
