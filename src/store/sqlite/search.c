/* SPDX-License-Identifier: Apache-2.0 */
/*
 * search.c -- the store's part of a lexical search (index/lexical.c ranks):
 * a user's postings of some terms, their document frequencies, the rows.
 *
 * Terms are per user (fts_tokenizer.c): "<user token> 0x1F term".  One
 * scan of the index gathers every matching row's column lengths and term
 * counts (am_collect, fts_rank.c), with a time window a join with the
 * events.  A term whose list the connection holds (post_cache.c) is not
 * scanned: its rows and counts come from memory, merged with the scan's
 * (merge_lists); the scanned terms' lists are kept for the next search.
 * A search bounded in time scans with a join on the events (it sees part
 * of the lists), unless every term is held and the frequencies come from
 * the vocabulary: then the lists are cut to the user's rows of the window
 * (hits_in_window, one range read of the events index).
 * Frequencies come from a held list's length or the index's vocabulary
 * (one b-tree lookup and a doclist walk per term), kept by the connection
 * until its next write (post_cache.c, am__post_df_get).  The rows are read
 * from the row cache (row_cache.c) when it holds them, the others by one
 * statement, json_each handing over their row ids (a statement per row
 * spent more in its reset and set-up than in the row), each placed by its
 * row id, not by the order the statement returns them in.
 */
#include <stdlib.h>

#include "store/sqlite/sqlite_int.h"

_Atomic unsigned long am__term_list_reads;
_Atomic unsigned long am__term_scans;
_Atomic unsigned long am__row_reads;


/* The rows of rids[0..k) not found yet (found[j] 0), whose ids are in
 * s->scratch as a JSON array, into batch[j] (found[j] = 1) and, keep set,
 * the row cache; those not read stay 0. */
static int read_asked(sq_store *s, const char *uid, const int64_t *rids, size_t k,
                      am__arena *ar, am__event_row *batch, unsigned char *found, int keep)
{
    sqlite3_stmt *get = stmt(s, "SELECT " EVENT_COLS " FROM json_each(?1) j"
                                " CROSS JOIN events e ON e.rid = j.value WHERE e.user_id = ?2");
    if (!get) return AM_BACKEND;
    sqlite3_bind_text(get, 1, s->scratch.p, (int)s->scratch.len, SQLITE_STATIC);
    bind_text(get, 2, uid);
    int rc, out = AM_OK;
    size_t at = 0; /* where the next row is expected */
    while (out == AM_OK && (rc = sqlite3_step(get)) == SQLITE_ROW) {
        int64_t rid = sqlite3_column_int64(get, 0);
        while (at < k && found[at]) at++;
        size_t j = at;
        if (j >= k || rids[j] != rid)
            for (j = 0; j < k && rids[j] != rid; j++) {}
        if (j == k || found[j]) continue; /* not one asked for */
        read_event(ar, get, &batch[j]);
        read_event_tokens(ar, get, &batch[j]);
        am__row_reads++;
        if (ar->oom) out = AM_NOMEM;
        else if (keep) am__rowcache_put(s->rows, &batch[j]);
        found[j] = 1;
    }
    if (out == AM_OK && rc != SQLITE_DONE) out = fail(s, rc, "events");
    done(s, get);
    return out;
}

/* The table's tokens per row in each scored column, from FTS5's
 * averages record (row 1 of events_fts_data: varint rows, then a varint
 * total per column) -- what am_collect asks FTS5 for, for a search that
 * scans nothing.  0: the record is not there or not readable. */
static int fts_averages(sq_store *s, double avg[AM__FTS_SCORED])
{
    /* In a write transaction the record is behind: FTS5 keeps the totals
     * of the rows written since in memory and saves them at commit (or a
     * savepoint), so a search there asks FTS5 (scans) instead. */
    if (sqlite3_txn_state(s->db, "main") == SQLITE_TXN_WRITE) return 0;
    sqlite3_stmt *st = stmt(s, "SELECT block FROM events_fts_data WHERE id = 1");
    if (!st) return 0;
    int ok = sqlite3_step(st) == SQLITE_ROW &&
             am__fts_averages_parse(sqlite3_column_blob(st, 0),
                                    (size_t)sqlite3_column_bytes(st, 0), avg);
    done(s, st);
    return ok;
}

/* Held lists of the kept terms (pl[k], phrase k) and the scan's hits of
 * the others (their phrase j is qmap[j]) as one set of hits, in out: a
 * row of a list whose lengths are not known makes it fail (1), and the
 * search scans everything instead. */
static int merge_lists(sq_store *s, am__arena *ar, const am__hits *h, const size_t *qmap,
                       const am__post_list *const *pl, size_t kept, int64_t user_rows,
                       uint32_t lens_epoch, am__hits *out)
{
    size_t cand = h->n, n_tf = h->n_tf;
    for (size_t k = 0; k < kept; k++)
        if (pl[k]) {
            cand += pl[k]->n;
            n_tf += pl[k]->n;
        }
    /* the rows are the user's (a list's term is the user's): the table is
     * sized by their number, not by the postings (most terms share rows);
     * rows of a tag collision could overfill it: then scan instead */
    size_t rows_max = cand, cap = 16;
    if (user_rows > 0 && (uint64_t)user_rows + h->n < rows_max)
        rows_max = (size_t)user_rows + h->n;
    while (cap < 2 * rows_max + 2) cap *= 2;
    int64_t *key = am__arena_alloc(ar, cap * sizeof *key); /* rid + 1, 0 empty */
    uint32_t *at = am__arena_take(ar, cap * sizeof *at);     /* (set with its key) */
    uint32_t *cnt = am__arena_take(ar, (cand + 1) * sizeof *cnt);
    out->hit = am__malloc(s->a, (cand + 1) * sizeof *out->hit);
    out->tf = am__malloc(s->a, (n_tf + 1) * sizeof *out->tf);
    if (!key || !at || !cnt || !out->hit || !out->tf) return AM_NOMEM;
    out->cap = cand + 1;
    out->cap_tf = n_tf + 1;
    size_t rows = 0;
    /* pass 1: the rows and their number of counts */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < h->n; i++) {
            const am__hit *e = &h->hit[i];
            size_t j = am__rid_home((uint64_t)e->rid + 1, cap);
            while (key[j] && key[j] != e->rid + 1) j = (j + 1) & (cap - 1);
            if (pass == 0) {
                key[j] = e->rid + 1;
                at[j] = (uint32_t)rows;
                out->hit[rows] = *e;
                cnt[rows++] = e->n_tf;
                continue;
            }
            am__hit *o = &out->hit[at[j]];
            for (uint32_t t = 0; t < e->n_tf; t++) {
                am__hit_tf x = h->tf[e->first + t];
                x.term = (uint16_t)qmap[x.term];
                out->tf[o->first + o->n_tf++] = x;
            }
        }
        for (size_t k = 0; k < kept; k++) {
            if (!pl[k]) continue;
            for (size_t r = 0; r < pl[k]->n; r++) {
                int64_t rid = pl[k]->rid[r];
                size_t j = am__rid_home((uint64_t)rid + 1, cap);
                while (key[j] && key[j] != rid + 1) j = (j + 1) & (cap - 1);
                if (pass == 1) {
                    am__hit *o = &out->hit[at[j]];
                    am__hit_tf *x = &out->tf[o->first + o->n_tf++];
                    x->term = (uint16_t)k;
                    memcpy(x->tf, pl[k]->tf[r], sizeof x->tf);
                    continue;
                }
                if (!key[j]) {
                    uint32_t len[AM__FTS_SCORED];
                    if (rows >= rows_max || !am__fts_lens_get(s->lens, rid, lens_epoch, len)) return -1;
                    key[j] = rid + 1;
                    at[j] = (uint32_t)rows;
                    am__hit *o = &out->hit[rows];
                    memset(o, 0, sizeof *o);
                    o->rid = rid;
                    for (int c = 0; c < AM__FTS_SCORED; c++) o->len[c] = (float)len[c];
                    cnt[rows++] = 0;
                }
                cnt[at[j]]++;
            }
        }
        if (pass == 0) { /* where each row's counts go */
            uint32_t first = 0;
            for (size_t i = 0; i < rows; i++) {
                out->hit[i].first = first;
                out->hit[i].n_tf = 0;
                first += cnt[i];
            }
            out->n_tf = first;
        }
    }
    /* each row's counts in phrase order, as a scan of all the terms gives
     * them: the same sums, to the bit */
    for (size_t i = 0; i < rows; i++) {
        am__hit_tf *x = out->tf + out->hit[i].first;
        for (uint32_t a = 1; a < out->hit[i].n_tf; a++) {
            am__hit_tf v = x[a];
            uint32_t b = a;
            for (; b > 0 && x[b - 1].term > v.term; b--) x[b] = x[b - 1];
            x[b] = v;
        }
    }
    out->n = rows;
    out->n_terms = (int)kept;
    am__term_list_reads++;
    return AM_OK;
}

/* A scanned term's complete list (the scan was not bounded in time, so
 * every row holding it matched) into the cache: the hits' counts
 * bucketed by phrase, rows in the scan's order (rowid order). */
static void lists_put(sq_store *s, am__arena *ar, const char *tag, const char *const *terms,
                      const am__hits *h, const size_t *qterm, size_t nq)
{
    size_t *off = am__arena_alloc(ar, (nq + 1) * sizeof *off);
    int64_t *rid = am__arena_take(ar, (h->n_tf + 1) * sizeof *rid);
    uint16_t(*tf)[AM__FTS_SCORED] = am__arena_take(ar, (h->n_tf + 1) * sizeof *tf);
    if (!off || !rid || !tf) return;
    for (size_t t = 0; t < h->n_tf; t++)
        if (h->tf[t].term < nq) off[h->tf[t].term + 1]++;
    for (size_t j = 1; j <= nq; j++) off[j] += off[j - 1];
    for (size_t i = 0; i < h->n; i++) {
        const am__hit *e = &h->hit[i];
        for (uint32_t t = 0; t < e->n_tf; t++) {
            const am__hit_tf *x = &h->tf[e->first + t];
            if (x->term >= nq) continue;
            size_t at = off[x->term]++;
            rid[at] = e->rid;
            memcpy(tf[at], x->tf, sizeof tf[0]);
        }
    }
    /* off[j] is now where phrase j's rows end */
    am__buf key;
    am__buf_init(&key, s->a);
    for (size_t j = 0, from = 0; j < nq; from = off[j++]) {
        int sorted = 1;
        for (size_t i = from + 1; i < off[j] && sorted; i++) sorted = rid[i - 1] < rid[i];
        if (!sorted) continue; /* FTS5 walks in rowid order: not expected */
        am__buf_reset(&key);
        am__buf_adds(&key, tag);
        am__buf_addc(&key, AM__FTS_TAG_SEP);
        am__buf_adds(&key, terms[qterm[j]]);
        if (key.oom ||
            am__post_put(s->post, key.p, key.len, rid + from,
                         (const uint16_t(*)[AM__FTS_SCORED])(tf + from), off[j] - from))
            break;
    }
    am__buf_free(&key);
}

#define SEARCH_SCAN_ALL (-1) /* postings_run: held lists cannot be used, scan all */

/* A search bounded in time whose every term is held: the lists' hits
 * (all of the user's history) are cut to the rows the timed scan would
 * have matched -- the user's, said in [from, to) -- read by one range
 * read of the events index on (user_id, occurred_at). */
static int hits_in_window(sq_store *s, am__arena *ar, const char *uid, am_time from, am_time to,
                          am__hits *h)
{
    if (h->n == 0) return AM_OK;
    size_t cap = 16;
    while (cap < 2 * h->n + 2) cap *= 2;
    int64_t *key = am__arena_take(ar, cap * sizeof *key); /* rid + 1, 0 empty */
    uint32_t *at = am__arena_take(ar, cap * sizeof *at);
    unsigned char *in = am__arena_take(ar, h->n + 1);
    if (!key || !at || !in) return AM_NOMEM;
    memset(key, 0, cap * sizeof *key);
    memset(in, 0, h->n);
    for (size_t i = 0; i < h->n; i++) {
        size_t j = am__rid_home((uint64_t)h->hit[i].rid + 1, cap);
        while (key[j]) j = (j + 1) & (cap - 1);
        key[j] = h->hit[i].rid + 1;
        at[j] = (uint32_t)i;
    }
    sqlite3_stmt *st = stmt(s, "SELECT rid FROM events WHERE user_id = ?1"
                               " AND occurred_at >= coalesce(?2, -9223372036854775807 - 1)"
                               " AND occurred_at <= coalesce(?3 - 1, 9223372036854775807)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_time(st, 2, from);
    bind_time(st, 3, to);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t rid = sqlite3_column_int64(st, 0);
        size_t j = am__rid_home((uint64_t)rid + 1, cap);
        while (key[j] && key[j] != rid + 1) j = (j + 1) & (cap - 1);
        if (key[j]) in[at[j]] = 1;
    }
    done(s, st);
    if (rc != SQLITE_DONE) return fail(s, rc, "search window");
    size_t w = 0;
    for (size_t i = 0; i < h->n; i++)
        if (in[i]) h->hit[w++] = h->hit[i];
    h->n = w;
    return AM_OK;
}

/* A whole tag's term without a list: in none of its rows. */
static const am__post_list no_rows = {NULL, NULL, 0, 0};

/* The FTS5 query of the terms without a list (pl[i] NULL) into q: each
 * the user's tag and the term, verbatim, as one phrase; qterm[k] the term
 * of the k-th phrase.  Returns the number of phrases (q->oom: out of
 * memory). */
static size_t scan_query(am__buf *q, const char *tag, const char *const *terms, size_t n_terms,
                         const am__post_list *const *pl, size_t *qterm)
{
    am__buf_reset(q);
    am__buf_adds(q, "{doc ctx}:(");
    size_t scanned = 0;
    for (size_t i = 0; i < n_terms; i++) {
        if (pl[i]) continue;
        if (scanned) am__buf_adds(q, " OR ");
        qterm[scanned++] = i;
        am__buf_adds(q, "\"" AM__FTS_VERBATIM);
        am__buf_adds(q, tag);
        am__buf_addc(q, AM__FTS_TAG_SEP);
        for (const char *p = terms[i]; *p; p++) {
            if (*p == '"') am__buf_addc(q, '"'); /* FTS5 escapes "" */
            am__buf_addc(q, *p);
        }
        am__buf_addc(q, '"');
    }
    am__buf_addc(q, ')');
    return scanned;
}

static int postings_run(sq_store *s, const char *uid, const char *const *terms, size_t n_terms,
                        am_time from, am_time to, int64_t rows_total, am__arena *ar,
                        am__hits *out, double *df, int use_lists)
{
    char tag[32];
    uid_token(uid, tag, 0);
    am__buf *q = &s->scratch;
    int rc;
    const am__post_list **pl = am__arena_alloc(ar, (n_terms + 1) * sizeof *pl);
    size_t *qterm = am__arena_alloc(ar, (n_terms + 1) * sizeof *qterm); /* scanned -> term */
    if (!pl || !qterm) return AM_NOMEM;
    /* known column lengths and lists hold unless another connection
     * wrote (this runs in one snapshot: am__sqlite_postings) */
    if ((rc = am__sqlite_caches_current(s, uid))) return rc;
    int timed = from != AM_TIME_NONE || to != AM_TIME_NONE;
    /* bounded in time: the held lists serve only when every term is held
     * and the frequencies are not asked for (they are the whole
     * history's, from the vocabulary: lexical.c) */
    int window = use_lists && timed && !df && s->post && rows_total > 0;
    use_lists = use_lists && !timed && s->post && rows_total > 0;
    for (size_t i = 0; i < n_terms; i++) {
        pl[i] = NULL;
        if (!use_lists && !window) continue;
        am__buf_reset(q);
        am__buf_adds(q, tag);
        am__buf_addc(q, AM__FTS_TAG_SEP);
        am__buf_adds(q, terms[i]);
        if (q->oom) return AM_NOMEM;
        pl[i] = am__post_get(s->post, q->p, q->len);
        if (!pl[i] && am__post_whole(s->post, q->p, q->len)) pl[i] = &no_rows;
        if (window && !pl[i]) window = 0;
    }
    for (size_t i = 0; i < n_terms && timed && !window; i++) pl[i] = NULL;
    size_t scanned = scan_query(q, tag, terms, n_terms, pl, qterm);
    if (q->oom) return AM_NOMEM;
    am__fts_hits c;
    memset(&c, 0, sizeof c);
    am__hits *h = &c.h;
    h->a = s->a;
    c.lens = s->lens;
    c.lens_epoch = am__sqlite_lens_epoch(s, uid); /* (checked above) */
    c.col0 = 1; /* uid, doc, ctx */
    if (scanned) {
        /* A time window filters in the scan (a join with the events); the
         * plain search needs no join at all (the terms are the user's; the
         * rows read at the end are checked against the user anyway), and
         * calls am_collect as its filter: it returns 0, so the statement
         * steps through every match without a result row each.  (Not in
         * the join: SQLite would test it before the time window.) */
        sqlite3_stmt *st;
        if (!timed)
            st = stmt(s, "SELECT 1 FROM events_fts WHERE events_fts MATCH ?1 AND am_collect(events_fts, ?2)");
        else
            st = stmt(s, "SELECT am_collect(events_fts, ?2)"
                         " FROM events_fts CROSS JOIN events e ON e.rid = events_fts.rowid"
                         " WHERE events_fts MATCH ?1 AND e.user_id = ?3"
                         " AND (?4 IS NULL OR e.occurred_at >= ?4) AND (?5 IS NULL OR e.occurred_at < ?5)");
        if (!st) return AM_BACKEND;
        am__term_scans++;
        sqlite3_bind_text(st, 1, q->p, (int)q->len, SQLITE_STATIC);
        sqlite3_bind_pointer(st, 2, &c, "am__fts_hits", NULL);
        if (timed) {
            bind_text(st, 3, uid);
            bind_time(st, 4, from);
            bind_time(st, 5, to);
        }
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {}
        done(s, st);
        if (rc != SQLITE_DONE) {
            am__hits_free(h);
            return fail(s, rc, "search");
        }
        if (h->n_terms != (int)scanned) /* cannot happen: one phrase per term */
            h->n = h->n_tf = 0; /* (lists_put buckets the counts: none) */
        if (h->n == 0) h->n_terms = (int)scanned;
    }
    if (h->n == 0 && scanned < n_terms && !fts_averages(s, h->avg)) { /* no row told them */
        am__hits_free(h);
        return SEARCH_SCAN_ALL;
    }
    if (df) { /* the scan's rows per term, a held list's length */
        for (size_t i = 0; i < n_terms; i++) df[i] = pl[i] ? (double)pl[i]->n : 0;
        for (size_t t = 0; t < h->n_tf; t++)
            if (h->tf[t].term < scanned) df[qterm[h->tf[t].term]] += 1;
    }
    if (scanned < n_terms) { /* held lists too: one set of hits */
        am__hits all;
        memset(&all, 0, sizeof all);
        all.a = s->a;
        memcpy(all.avg, h->avg, sizeof all.avg);
        rc = merge_lists(s, ar, h, qterm, pl, n_terms, rows_total, c.lens_epoch, &all);
        if (rc) {
            am__hits_free(&all);
            am__hits_free(h);
            return rc == -1 ? SEARCH_SCAN_ALL : rc;
        }
        /* then the scanned terms' lists join the cache (which may move
         * or drop the lists just read) */
        if (use_lists && scanned) lists_put(s, ar, tag, terms, h, qterm, scanned);
        am__hits_free(h);
        if (window && (rc = hits_in_window(s, ar, uid, from, to, &all))) {
            am__hits_free(&all);
            return rc;
        }
        *out = all;
    } else {
        if (use_lists && scanned) lists_put(s, ar, tag, terms, h, qterm, scanned);
        *out = *h;
    }
    return AM_OK;
}

/* The version check, the scan and the merge share a snapshot: outside a
 * write transaction, in a read transaction of its own (else another
 * connection's commit between the check and the scan could meet lengths
 * cached before it). */
int am__sqlite_postings(am__store *b, const char *uid, const char *const *terms, size_t n_terms,
                        am_time from, am_time to, int64_t n_rows, am__arena *ar, am__hits *out,
                        double *df)
{
    sq_store *s = SQ(b);
    memset(out, 0, sizeof *out);
    out->a = s->a;
    if (n_terms == 0) return AM_OK;
    int own_txn, rc = snapshot_begin(s, &own_txn, "search");
    if (rc) return rc;
    rc = postings_run(s, uid, terms, n_terms, from, to, n_rows, ar, out, df, 1);
    if (rc == SEARCH_SCAN_ALL)
        rc = postings_run(s, uid, terms, n_terms, from, to, n_rows, ar, out, df, 0);
    return snapshot_end(s, own_txn, rc, "search");
}

int am__sqlite_user_rows(am__store *b, const char *uid, int64_t *n)
{
    sq_store *s = SQ(b);
    *n = 0;
    sqlite3_stmt *cnt = stmt(s, "SELECT n_events FROM users WHERE user_id = ?");
    if (!cnt) return AM_BACKEND;
    bind_text(cnt, 1, uid);
    int crc = sqlite3_step(cnt);
    if (crc == SQLITE_ROW) *n = sqlite3_column_int64(cnt, 0);
    done(s, cnt);
    if (crc != SQLITE_ROW && crc != SQLITE_DONE) return fail(s, crc, "event count");
    return AM_OK;
}

static int term_docs_run(sq_store *s, const char *uid, const char *const *terms, size_t n_terms,
                         double *df, int64_t *n_rows)
{
    char tag[32];
    uid_token(uid, tag, 0);
    am__buf *q = &s->scratch;
    int rc;
    if (s->post && (rc = am__sqlite_caches_current(s, uid))) return rc;
    /* the bare user token's frequency: the user's rows */
    size_t lookups = n_rows ? n_terms + 1 : n_terms;
    for (size_t i = 0; i < lookups; i++) {
        am__buf_reset(q);
        am__buf_adds(q, tag);
        if (i < n_terms) {
            am__buf_addc(q, AM__FTS_TAG_SEP);
            am__buf_adds(q, terms[i]);
        }
        if (q->oom) return AM_NOMEM;
        const am__post_list *pl = i < n_terms ? am__post_get(s->post, q->p, q->len) : NULL;
        if (!pl && i < n_terms && am__post_whole(s->post, q->p, q->len)) pl = &no_rows;
        if (pl) { /* held: its length is its frequency */
            df[i] = (double)pl->n;
            continue;
        }
        int64_t d = 0;
        if (!am__post_df_get(s->post, q->p, q->len, &d)) { /* read before: held */
            sqlite3_stmt *v = stmt(s, "SELECT doc FROM temp.am_events_vocab WHERE term = ?");
            if (!v) return AM_BACKEND;
            sqlite3_bind_text(v, 1, q->p, (int)q->len, SQLITE_STATIC);
            int src = sqlite3_step(v);
            d = src == SQLITE_ROW ? sqlite3_column_int64(v, 0) : 0;
            done(s, v);
            if (src != SQLITE_ROW && src != SQLITE_DONE) return fail(s, src, "term frequencies");
            am__post_df_put(s->post, q->p, q->len, d);
        }
        if (i == n_terms) *n_rows = d;
        else df[i] = (double)d;
    }
    return AM_OK;
}

int am__sqlite_term_docs(am__store *b, const char *uid, const char *const *terms, size_t n_terms,
                         double *df, int64_t *n_rows)
{
    sq_store *s = SQ(b);
    int own_txn, rc = snapshot_begin(s, &own_txn, "term frequencies");
    if (rc) return rc;
    rc = term_docs_run(s, uid, terms, n_terms, df, n_rows);
    return snapshot_end(s, own_txn, rc, "term frequencies");
}

int am__sqlite_rows_read(sq_store *s, const char *uid, const int64_t *rids, size_t k,
                         am__arena *ar, am__event_row *batch, unsigned char *found, int keep)
{
    int out;
    if ((out = am__sqlite_caches_current(s, uid))) return out;
    am__buf *ids = &s->scratch;
    size_t asked = 0;
    am__buf_reset(ids);
    am__buf_addc(ids, '[');
    for (size_t j = 0; j < k && out == AM_OK; j++) {
        int held = 0;
        out = am__rowcache_get(s->rows, rids[j], ar, &batch[j], &held);
        found[j] = !held ? 0 : strcmp(batch[j].user_id, uid) == 0 ? 1 : 2;
        if (held) continue;
        if (asked++) am__buf_addc(ids, ',');
        am__buf_add_int(ids, rids[j]);
    }
    am__buf_addc(ids, ']');
    if (out == AM_OK && ids->oom) out = AM_NOMEM;
    if (out == AM_OK && asked) out = read_asked(s, uid, rids, k, ar, batch, found, keep);
    for (size_t j = 0; j < k; j++)
        if (found[j] != 1) found[j] = 0;
    return out;
}

int am__sqlite_rows_get(am__store *b, const char *uid, const int64_t *rids, size_t n,
                        am__arena *ar, am__event_row *rows, unsigned char *found)
{
    sq_store *s = SQ(b);
    if (n == 0) return AM_OK;
    int own_txn, rc = snapshot_begin(s, &own_txn, "events");
    if (rc) return rc;
    rc = am__sqlite_rows_read(s, uid, rids, n, ar, rows, found, 1);
    return snapshot_end(s, own_txn, rc, "events");
}
