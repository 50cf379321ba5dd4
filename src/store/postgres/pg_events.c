/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pg_events.c -- the PostgreSQL store's perception layer: events, their
 * lexical index, entities, PII vault values, vectors, and the reads of
 * them.
 *
 * The index (pg_schema.c: postings, events.len0/len1, index_totals) holds
 * what the SQLite store's FTS5 table holds, counted the same way: the
 * terms are text/analyze's tokens of the event's text (column 0) and
 * context (column 1), a column's length is its tokens plus one (FTS5
 * counts the per-user tag token the SQLite store writes first), and the
 * averages are over every user's rows.  index/lexical.c ranks what
 * postings hands over, so both stores rank alike.  A context append adds
 * its tokens to column 1; a forget rebuilds its neighbours' contexts
 * (am__pg_index_ctx_set).
 *
 * Vectors are int8 with a scale (bytea), quantized as the SQLite store
 * does; a scan reads the user's rows of one embedder (filtered in SQL by
 * user, embedder, dimension and time) and scores them here, exactly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "store/postgres/pg_int.h"
#include "text/analyze.h"

/* ------------------------------------------------------------ rows */

int am__pg_read_event(am__arena *ar, const PGresult *r, int i, am__event_row *e)
{
    memset(e, 0, sizeof *e);
    e->rid = am__pg_i64(r, i, 0);
    e->id = am__pg_str(ar, r, i, 1);
    e->user_id = am__pg_str(ar, r, i, 2);
    e->agent_id = am__pg_str(ar, r, i, 3);
    e->session_id = am__pg_str(ar, r, i, 4);
    e->task_id = am__pg_str(ar, r, i, 5);
    e->channel = am__pg_str(ar, r, i, 6);
    e->source = am__pg_str(ar, r, i, 7);
    e->type = am__pg_str(ar, r, i, 8);
    e->content = am__pg_str(ar, r, i, 9);
    e->domain = am__pg_str(ar, r, i, 10);
    e->intent = am__pg_str(ar, r, i, 11);
    e->lang = am__pg_str(ar, r, i, 12);
    e->occurred_at = am__pg_time(r, i, 13);
    e->ingested_at = am__pg_time(r, i, 14);
    e->tz_minutes = (int)am__pg_i64(r, i, 15);
    int rc = PQnfields(r) > 16 ? am__pg_bytes(ar, r, i, 16, &e->tokens, &e->tokens_len) : AM_OK;
    if (e->tokens_len == 0) e->tokens = NULL;
    e->metadata = PQnfields(r) > 17 ? am__pg_str(ar, r, i, 17) : NULL;
    return rc ? rc : ar->oom ? AM_NOMEM : AM_OK;
}

/* Rows of events (PG_EVENT_COLS) into a new array of ar. */
static int read_events(pg_store *s, PGresult *r, am__arena *ar, am__event_row **rows, size_t *n)
{
    (void)s;
    *rows = NULL;
    *n = 0;
    int k = PQntuples(r), rc = AM_OK;
    *rows = am__arena_alloc(ar, ((size_t)k + 1) * sizeof **rows);
    if (!*rows) { PQclear(r); return AM_NOMEM; }
    for (int i = 0; i < k && !rc; i++) rc = am__pg_read_event(ar, r, i, &(*rows)[i]);
    *n = rc ? 0 : (size_t)k;
    PQclear(r);
    return rc;
}

/* ------------------------------------------------------------ index terms */

/* The tokens of a column value with their counts (sorted by term). */
typedef struct term_tf {
    const char *term;
    int tf[AM__SEARCH_COLS];
} term_tf;
typedef struct term_bag {
    am__arena *ar;
    term_tf *t;
    size_t n, cap;
    int col;
    long count[AM__SEARCH_COLS]; /* tokens per column */
} term_bag;

/* SQLite's tokenizer keeps at most 256 bytes of a token (fts_tokenizer.c);
 * here cut at a character boundary (PostgreSQL text is valid UTF-8). */
#define TERM_MAX 256

static int bag_add(void *ctx, int kind, const char *tok, size_t len, size_t start, size_t end)
{
    (void)kind;
    (void)start;
    (void)end;
    term_bag *b = ctx;
    if (len > TERM_MAX) {
        len = TERM_MAX;
        while (len && ((unsigned char)tok[len] & 0xC0) == 0x80) len--;
    }
    term_tf *t = am__pg_push(b->ar, (void **)&b->t, &b->n, &b->cap, sizeof *t);
    if (!t || !(t->term = am__arena_strndup(b->ar, tok, len))) return AM_NOMEM;
    t->tf[0] = t->tf[1] = 0;
    t->tf[b->col] = 1;
    b->count[b->col]++;
    return 0;
}

static int cmp_term(const void *x, const void *y)
{
    return strcmp(((const term_tf *)x)->term, ((const term_tf *)y)->term);
}

/* Sort and merge equal terms (their counts summed). */
static void bag_merge(term_bag *b)
{
    if (b->n == 0) return;
    qsort(b->t, b->n, sizeof *b->t, cmp_term);
    size_t w = 0;
    for (size_t i = 1; i < b->n; i++) {
        if (strcmp(b->t[w].term, b->t[i].term) == 0) {
            for (int c = 0; c < AM__SEARCH_COLS; c++) b->t[w].tf[c] += b->t[i].tf[c];
        } else {
            b->t[++w] = b->t[i];
        }
    }
    b->n = w + 1;
}

static int bag_text(pg_store *s, term_bag *b, int col, const char *text)
{
    b->col = col;
    return am__text_tokenize(s->ptext, text, strlen(text), bag_add, b);
}

/* The bag's terms upserted as postings of row rid: new rows take the
 * counts, existing ones add them. */
static int postings_add(pg_store *s, const char *uid, int64_t rid, const term_bag *b)
{
    if (b->n == 0) return AM_OK;
    am__buf terms, tf0, tf1;
    am__buf_init(&terms, s->a);
    am__buf_init(&tf0, s->a);
    am__buf_init(&tf1, s->a);
    am__buf_addc(&terms, '{');
    am__buf_addc(&tf0, '{');
    am__buf_addc(&tf1, '{');
    for (size_t i = 0; i < b->n; i++) {
        if (i) {
            am__buf_addc(&terms, ',');
            am__buf_addc(&tf0, ',');
            am__buf_addc(&tf1, ',');
        }
        am__buf_addc(&terms, '"');
        for (const char *p = b->t[i].term; *p; p++) {
            if (*p == '"' || *p == '\\') am__buf_addc(&terms, '\\');
            am__buf_addc(&terms, *p);
        }
        am__buf_addc(&terms, '"');
        am__buf_add_int(&tf0, b->t[i].tf[0]);
        am__buf_add_int(&tf1, b->t[i].tf[1]);
    }
    am__buf_addc(&terms, '}');
    am__buf_addc(&tf0, '}');
    am__buf_addc(&tf1, '}');
    am__buf_addc(&terms, 0);
    am__buf_addc(&tf0, 0);
    am__buf_addc(&tf1, 0);
    int rc = terms.oom || tf0.oom || tf1.oom ? AM_NOMEM : AM_OK;
    if (!rc) {
        pg_args a = {0};
        am__pg_arg_text(&a, uid);
        am__pg_arg_int(&a, rid);
        am__pg_arg_text(&a, terms.p);
        am__pg_arg_text(&a, tf0.p);
        am__pg_arg_text(&a, tf1.p);
        rc = am__pg_exec(s, "event index",
                         "INSERT INTO postings AS p(user_id, term, rid, tf0, tf1)"
                         " SELECT $1, u.t, $2, u.a, u.b FROM unnest($3::text[], $4::int[], $5::int[])"
                         " AS u(t, a, b) ON CONFLICT(user_id, term, rid) DO UPDATE SET"
                         " tf0 = p.tf0 + excluded.tf0, tf1 = p.tf1 + excluded.tf1", &a, NULL);
    }
    am__buf_free(&terms);
    am__buf_free(&tf0);
    am__buf_free(&tf1);
    return rc;
}

int am__pg_slot(const char *uid) { return (int)(am__hash64(uid, strlen(uid)) % PG_PARTS); }

/* index_totals of the user's slot += (rows, len0, len1): in a write
 * transaction kept for its commit (pg_store.c writes every slot's change
 * there, in slot order), else at once. */
static int totals_add(pg_store *s, const char *uid, int64_t rows, int64_t len0, int64_t len1)
{
    if (s->txn == PG_TXN_WRITE) {
        int slot = am__pg_slot(uid);
        s->tot[slot][0] += rows;
        s->tot[slot][1] += len0;
        s->tot[slot][2] += len1;
        s->tot_dirty |= 1u << slot;
        return AM_OK;
    }
    pg_args a = {0};
    am__pg_arg_int(&a, am__pg_slot(uid));
    am__pg_arg_int(&a, rows);
    am__pg_arg_int(&a, len0);
    am__pg_arg_int(&a, len1);
    return am__pg_exec(s, "index totals",
                       "UPDATE index_totals SET n_rows = n_rows + $2, len0 = len0 + $3,"
                       " len1 = len1 + $4 WHERE slot = $1", &a, NULL);
}

int am__pg_event_put(am__store *b, am__event_row *e)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, e->user_id)) return s->rc;
    am__arena ar;
    am__arena_init(&ar, s->a);
    term_bag bag = {&ar, NULL, 0, 0, 0, {0, 0}};
    int rc = bag_text(s, &bag, 0, e->index_doc ? e->index_doc : e->content);
    if (!rc) rc = bag_text(s, &bag, 1, e->index_ctx ? e->index_ctx : "");
    if (rc) goto out;
    bag_merge(&bag);
    long len0 = 1 + bag.count[0], len1 = 1 + bag.count[1]; /* the tag token, as FTS5 counts */
    pg_args a = {0};
    am__pg_arg_text(&a, e->id);
    am__pg_arg_text(&a, e->user_id);
    am__pg_arg_text(&a, e->agent_id);
    am__pg_arg_text(&a, e->session_id);
    am__pg_arg_text(&a, e->task_id);
    am__pg_arg_text(&a, e->channel);
    am__pg_arg_text(&a, e->source);
    am__pg_arg_text(&a, e->type);
    am__pg_arg_text(&a, e->content);
    am__pg_arg_text(&a, e->domain);
    am__pg_arg_text(&a, e->intent);
    am__pg_arg_text(&a, e->lang);
    am__pg_arg_int(&a, e->occurred_at);
    am__pg_arg_int(&a, e->tz_minutes);
    am__pg_arg_int(&a, e->ingested_at);
    am__pg_arg_text(&a, e->client_id);
    if (e->client_id) am__pg_arg_int(&a, e->client_hash);
    else am__pg_arg_text(&a, NULL);
    am__pg_arg_bytes(&a, e->tokens, e->tokens_len);
    am__pg_arg_int(&a, len0);
    am__pg_arg_int(&a, len1);
    am__pg_arg_text(&a, e->metadata);
    PGresult *r = am__pg_run(s, "event",
                             "INSERT INTO events(id, user_id, agent_id, session_id, task_id, channel,"
                             " source, type, content, domain, intent, lang, occurred_at, tz_minutes,"
                             " ingested_at, client_id, client_hash, tokens, len0, len1, metadata)"
                             " VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,"
                             " $15, $16, $17, $18, $19, $20, $21) RETURNING rid", &a);
    if (!r) { rc = s->rc; goto out; }
    e->rid = am__pg_i64(r, 0, 0);
    PQclear(r);
    pg_args u = {0};
    am__pg_arg_text(&u, e->user_id);
    if ((rc = am__pg_exec(s, "event count",
                          "UPDATE users SET n_events = n_events + 1 WHERE user_id = $1", &u, NULL)) ||
        (rc = postings_add(s, e->user_id, e->rid, &bag)))
        goto out;
    rc = totals_add(s, e->user_id, 1, len0, len1);
out:
    am__arena_free(&ar);
    return rc == AM_NOMEM ? am__pg_fail(s, rc, "postgres: event: out of memory") : rc;
}

int am__pg_event_ctx_append(am__store *b, const char *uid, int64_t rid, const char *text)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    am__arena ar;
    am__arena_init(&ar, s->a);
    term_bag bag = {&ar, NULL, 0, 0, 0, {0, 0}};
    int rc = bag_text(s, &bag, 1, text);
    long n = 0;
    if (!rc) {
        bag_merge(&bag);
        pg_args a = {0};
        am__pg_arg_text(&a, uid);
        am__pg_arg_int(&a, rid);
        am__pg_arg_int(&a, bag.count[1]);
        rc = am__pg_exec(s, "event context",
                         "UPDATE events SET len1 = len1 + $3 WHERE user_id = $1 AND rid = $2", &a, &n);
    }
    if (!rc && n) rc = postings_add(s, uid, rid, &bag);
    if (!rc && n) rc = totals_add(s, uid, 0, 0, bag.count[1]);
    am__arena_free(&ar);
    return rc;
}

int am__pg_index_ctx_set(pg_store *s, const char *uid, int64_t rid, const char *text)
{
    am__arena ar;
    am__arena_init(&ar, s->a);
    term_bag bag = {&ar, NULL, 0, 0, 0, {0, 0}};
    int rc = bag_text(s, &bag, 1, text);
    if (rc) goto out;
    bag_merge(&bag);
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_int(&a, rid);
    am__pg_arg_int(&a, 1 + bag.count[1]);
    PGresult *r = am__pg_run(s, "event context",
                             "UPDATE events e SET len1 = $3 FROM (SELECT len1 FROM events"
                             " WHERE user_id = $1 AND rid = $2) o WHERE e.user_id = $1 AND e.rid = $2"
                             " RETURNING o.len1", &a);
    if (!r) { rc = s->rc; goto out; }
    int64_t old = PQntuples(r) ? am__pg_i64(r, 0, 0) : -1;
    PQclear(r);
    if (old < 0) goto out;
    pg_args d = {0};
    am__pg_arg_text(&d, uid);
    am__pg_arg_int(&d, rid);
    if ((rc = am__pg_exec(s, "event context",
                          "UPDATE postings SET tf1 = 0 WHERE user_id = $1 AND rid = $2 AND tf1 <> 0",
                          &d, NULL)) ||
        (rc = am__pg_exec(s, "event context",
                          "DELETE FROM postings WHERE user_id = $1 AND rid = $2 AND tf0 = 0 AND tf1 = 0",
                          &d, NULL)) ||
        (rc = postings_add(s, uid, rid, &bag)))
        goto out;
    rc = totals_add(s, uid, 0, 0, 1 + bag.count[1] - old);
out:
    am__arena_free(&ar);
    return rc;
}

/* ------------------------------------------------------------ search */

int am__pg_user_rows(am__store *b, const char *uid, int64_t *n)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    *n = 0;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    PGresult *r = am__pg_run(s, "event count", "SELECT n_events FROM users WHERE user_id = $1", &a);
    if (!r) return s->rc;
    if (PQntuples(r)) *n = am__pg_i64(r, 0, 0);
    PQclear(r);
    return AM_OK;
}

/* The terms sorted with their indexes (a query may name a term twice). */
typedef struct term_ix {
    const char *term;
    uint16_t ix;
} term_ix;

static int cmp_ix(const void *x, const void *y)
{
    const term_ix *a = x, *b = y;
    int c = strcmp(a->term, b->term);
    return c ? c : (a->ix > b->ix) - (a->ix < b->ix);
}

/* The first of terms[0..n) equal to t, or n. */
static size_t ix_find(const term_ix *v, size_t n, const char *t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (strcmp(v[mid].term, t) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && strcmp(v[lo].term, t) == 0 ? lo : n;
}

static int terms_arg(pg_store *s, const char *const *terms, size_t n, am__buf *lit)
{
    am__buf_init(lit, s->a);
    am__pg_text_array(lit, terms, n);
    am__buf_addc(lit, 0);
    return lit->oom ? AM_NOMEM : AM_OK;
}

int am__pg_term_docs(am__store *b, const char *uid, const char *const *terms, size_t n_terms,
                     double *df, int64_t *n_rows)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    for (size_t i = 0; i < n_terms; i++) df[i] = 0;
    int rc = n_rows ? am__pg_user_rows(b, uid, n_rows) : AM_OK;
    if (rc || n_terms == 0) return rc;
    am__buf lit;
    if ((rc = terms_arg(s, terms, n_terms, &lit))) { am__buf_free(&lit); return rc; }
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, lit.p);
    PGresult *r = am__pg_run(s, "term frequencies",
                             "SELECT term, count(*) FROM postings WHERE user_id = $1"
                             " AND term = ANY($2::text[]) GROUP BY term", &a);
    am__buf_free(&lit);
    if (!r) return s->rc;
    for (int i = 0; i < PQntuples(r); i++)
        for (size_t j = 0; j < n_terms; j++)
            if (strcmp(terms[j], PQgetvalue(r, i, 0)) == 0) df[j] = (double)am__pg_i64(r, i, 1);
    PQclear(r);
    return AM_OK;
}

static int hits_room(am__hits *h, size_t hits, size_t tfs)
{
    if (hits > h->cap) {
        size_t cap = h->cap ? h->cap : 64;
        while (cap < hits) cap *= 2;
        am__hit *p = am__realloc(h->a, h->hit, cap * sizeof *p);
        if (!p) return AM_NOMEM;
        h->hit = p;
        h->cap = cap;
    }
    if (tfs > h->cap_tf) {
        size_t cap = h->cap_tf ? h->cap_tf : 64;
        while (cap < tfs) cap *= 2;
        am__hit_tf *p = am__realloc(h->a, h->tf, cap * sizeof *p);
        if (!p) return AM_NOMEM;
        h->tf = p;
        h->cap_tf = cap;
    }
    return AM_OK;
}

static int cmp_tf(const void *x, const void *y)
{
    const am__hit_tf *a = x, *b = y;
    return (a->term > b->term) - (a->term < b->term);
}

int am__pg_postings(am__store *b, const char *uid, const char *const *terms, size_t n_terms,
                    am_time from, am_time to, int64_t n_rows, am__arena *ar, am__hits *out,
                    double *df)
{
    (void)n_rows;
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    memset(out, 0, sizeof *out);
    out->a = s->a;
    out->n_terms = (int)n_terms;
    if (df)
        for (size_t i = 0; i < n_terms; i++) df[i] = 0;
    if (n_terms == 0) return AM_OK;
    if (n_terms > UINT16_MAX) return am__pg_fail(s, AM_TOOBIG, "postgres: search: too many terms");
    term_ix *ix = am__arena_alloc(ar, n_terms * sizeof *ix);
    if (!ix) return AM_NOMEM;
    for (size_t i = 0; i < n_terms; i++) {
        ix[i].term = terms[i];
        ix[i].ix = (uint16_t)i;
    }
    qsort(ix, n_terms, sizeof *ix, cmp_ix);
    /* the averages: every user's rows, as FTS5's are the table's */
    PGresult *r = am__pg_run(s, "search", "SELECT sum(n_rows), sum(len0), sum(len1) FROM index_totals",
                             NULL);
    if (!r) return s->rc;
    /* and what this write transaction has yet to add at its commit */
    double pend[3] = {0, 0, 0};
    if (s->txn == PG_TXN_WRITE)
        for (int k = 0; k < PG_PARTS; k++)
            for (int c = 0; c < 3; c++) pend[c] += (double)s->tot[k][c];
    double rows = am__pg_real(r, 0, 0) + pend[0];
    for (int c = 0; c < AM__SEARCH_COLS; c++) {
        double total = am__pg_real(r, 0, 1 + c) + pend[1 + c];
        out->avg[c] = rows > 0 && total > 0 ? total / rows : 1.0;
    }
    PQclear(r);
    am__buf lit;
    int rc = terms_arg(s, terms, n_terms, &lit);
    if (rc) { am__buf_free(&lit); return rc; }
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, lit.p);
    am__pg_arg_time(&a, from);
    am__pg_arg_time(&a, to);
    r = am__pg_run(s, "search",
                   "SELECT p.rid, p.term, p.tf0, p.tf1, e.len0, e.len1 FROM postings p"
                   " JOIN events e ON e.user_id = p.user_id AND e.rid = p.rid"
                   " WHERE p.user_id = $1 AND p.term = ANY($2::text[])"
                   " AND ($3::bigint IS NULL OR e.occurred_at >= $3)"
                   " AND ($4::bigint IS NULL OR e.occurred_at < $4) ORDER BY p.rid", &a);
    am__buf_free(&lit);
    if (!r) return s->rc;
    int k = PQntuples(r);
    for (int i = 0; i < k && !rc;) {
        int64_t rid = am__pg_i64(r, i, 0);
        if ((rc = hits_room(out, out->n + 1, out->n_tf + n_terms * 2 + 2))) break;
        am__hit *h = &out->hit[out->n++];
        h->rid = rid;
        h->score = 0;
        h->len[0] = (float)am__pg_i64(r, i, 4);
        h->len[1] = (float)am__pg_i64(r, i, 5);
        h->first = (uint32_t)out->n_tf;
        for (; i < k && am__pg_i64(r, i, 0) == rid; i++) {
            const char *t = PQgetvalue(r, i, 1);
            size_t at = ix_find(ix, n_terms, t);
            for (; at < n_terms && strcmp(ix[at].term, t) == 0; at++) {
                if ((rc = hits_room(out, out->n, out->n_tf + 1))) break;
                am__hit_tf *x = &out->tf[out->n_tf++];
                x->term = ix[at].ix;
                x->tf[0] = (uint16_t)(am__pg_i64(r, i, 2) > UINT16_MAX ? UINT16_MAX : am__pg_i64(r, i, 2));
                x->tf[1] = (uint16_t)(am__pg_i64(r, i, 3) > UINT16_MAX ? UINT16_MAX : am__pg_i64(r, i, 3));
                if (df) df[ix[at].ix] += 1;
            }
            if (rc) break;
        }
        h = &out->hit[out->n - 1];
        h->n_tf = (uint32_t)(out->n_tf - h->first);
        qsort(out->tf + h->first, h->n_tf, sizeof *out->tf, cmp_tf);
    }
    PQclear(r);
    if (rc) am__hits_free(out);
    return rc;
}

typedef struct rid_ix {
    int64_t rid;
    size_t i;
} rid_ix;

static int cmp_rid_ix(const void *x, const void *y)
{
    const rid_ix *a = x, *b = y;
    return (a->rid > b->rid) - (a->rid < b->rid);
}

int am__pg_rows_get(am__store *b, const char *uid, const int64_t *rids, size_t n, am__arena *ar,
                    am__event_row *rows, unsigned char *found)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    if (n == 0) return AM_OK;
    memset(found, 0, n);
    rid_ix *order = am__arena_alloc(ar, n * sizeof *order);
    if (!order) return AM_NOMEM;
    for (size_t i = 0; i < n; i++) {
        order[i].rid = rids[i];
        order[i].i = i;
    }
    qsort(order, n, sizeof *order, cmp_rid_ix);
    am__buf lit;
    am__buf_init(&lit, s->a);
    am__pg_int_array(&lit, rids, n);
    am__buf_addc(&lit, 0);
    if (lit.oom) { am__buf_free(&lit); return AM_NOMEM; }
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, lit.p);
    PGresult *r = am__pg_run(s, "events",
                             "SELECT " PG_EVENT_COLS " FROM events e WHERE e.user_id = $1"
                             " AND e.rid = ANY($2::bigint[])", &a);
    am__buf_free(&lit);
    if (!r) return s->rc;
    int rc = AM_OK;
    for (int i = 0; i < PQntuples(r) && !rc; i++) {
        rid_ix key = {am__pg_i64(r, i, 0), 0};
        rid_ix *at = bsearch(&key, order, n, sizeof *order, cmp_rid_ix);
        if (!at) continue;
        while (at > order && at[-1].rid == key.rid) at--;
        am__event_row e;
        rc = am__pg_read_event(ar, r, i, &e);
        for (; !rc && at < order + n && at->rid == key.rid; at++) {
            rows[at->i] = e;
            found[at->i] = 1;
        }
    }
    PQclear(r);
    return rc;
}

/* ------------------------------------------------------------ event reads */

int am__pg_entity_put(am__store *b, const char *uid, int64_t rid, const am__entity_row *en)
{
    if (am__pg_lock_user(PG(b), uid)) return PG(b)->rc;
    pg_args a = {0};
    am__pg_arg_int(&a, rid);
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, en->type);
    am__pg_arg_text(&a, en->surface);
    am__pg_arg_text(&a, en->norm);
    am__pg_arg_time(&a, en->from);
    am__pg_arg_time(&a, en->to);
    return am__pg_exec(PG(b), "entity",
                       "INSERT INTO entities(event_rid, user_id, type, surface, norm, t_from, t_to)"
                       " VALUES($1, $2, $3, $4, $5, $6, $7)", &a, NULL);
}

/* (the vault: pg_vault.c) */

int am__pg_event_part_put(am__store *b, const char *uid, int64_t rid, const am__entity_row *en,
                          const am__pii_row *p, const char *ctx)
{
    if (en) return am__pg_entity_put(b, uid, rid, en);
    if (p) return am__pg_pii_put(b, uid, rid, p);
    return ctx ? am__pg_event_ctx_append(b, uid, rid, ctx) : AM_MISUSE;
}

static int event_by_id(am__store *b, const char *uid, const char *id, am__arena *ar,
                       am__event_row *out)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, id);
    PGresult *r = am__pg_run(s, "event",
                             "SELECT " PG_EVENT_COLS " FROM events e WHERE e.user_id = $1 AND e.id = $2",
                             &a);
    if (!r) return s->rc;
    int rc = PQntuples(r) ? am__pg_read_event(ar, r, 0, out) : AM_NOTFOUND;
    PQclear(r);
    return rc;
}

int am__pg_events_recent(am__store *b, const char *uid, const char *session, const char *task,
                         am_time before, int limit, am__arena *ar, am__event_row **rows,
                         size_t *n)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, session);
    am__pg_arg_text(&a, task);
    am__pg_arg_time(&a, before);
    am__pg_arg_int(&a, limit);
    PGresult *r = am__pg_run(s, "events",
                             "SELECT " PG_EVENT_COLS " FROM events e WHERE e.user_id = $1"
                             " AND ($2::text IS NULL OR e.session_id = $2)"
                             " AND ($3::text IS NULL OR e.task_id = $3)"
                             " AND ($4::bigint IS NULL OR e.occurred_at <= $4)"
                             " ORDER BY e.occurred_at DESC, e.rid DESC LIMIT $5", &a);
    if (!r) return s->rc;
    return read_events(s, r, ar, rows, n);
}

int am__pg_events_page(am__store *b, const char *uid, am_time after_at, int64_t after_rid,
                       int limit, am__arena *ar, am__event_row **rows, size_t *n)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_time(&a, after_at);
    am__pg_arg_int(&a, after_rid);
    am__pg_arg_int(&a, limit);
    PGresult *r = am__pg_run(s, "events",
                             "SELECT " PG_EVENT_COLS " FROM events e WHERE e.user_id = $1"
                             " AND ($2::bigint IS NULL OR e.occurred_at > $2"
                             "      OR (e.occurred_at = $2 AND e.rid > $3))"
                             " ORDER BY e.occurred_at, e.rid LIMIT $4", &a);
    if (!r) return s->rc;
    int rc = read_events(s, r, ar, rows, n);
    for (size_t i = 0; !rc && i < *n; i++) { /* export reads no token sets */
        (*rows)[i].tokens = NULL;
        (*rows)[i].tokens_len = 0;
    }
    return rc;
}

int am__pg_events_before(am__store *b, const char *uid, const char *session, am_time before_at,
                         int64_t before_rid, am_time from, int limit, am__arena *ar,
                         am__event_row **rows, size_t *n)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, session);
    am__pg_arg_time(&a, before_at);
    am__pg_arg_int(&a, before_rid);
    am__pg_arg_time(&a, from);
    am__pg_arg_int(&a, limit);
    PGresult *r = am__pg_run(s, "events",
                             "SELECT " PG_EVENT_COLS " FROM events e WHERE e.user_id = $1"
                             " AND ($2::text IS NULL OR e.session_id = $2)"
                             " AND ($3::bigint IS NULL OR e.occurred_at < $3"
                             "      OR (e.occurred_at = $3 AND e.rid < $4))"
                             " AND ($5::bigint IS NULL OR e.occurred_at >= $5)"
                             " ORDER BY e.occurred_at DESC, e.rid DESC LIMIT $6", &a);
    if (!r) return s->rc;
    int rc = read_events(s, r, ar, rows, n);
    for (size_t i = 0; !rc && i < *n; i++) { /* a listing reads no token sets */
        (*rows)[i].tokens = NULL;
        (*rows)[i].tokens_len = 0;
    }
    return rc;
}

int am__pg_entities_list(am__store *b, const char *uid, int64_t rid, am__arena *ar,
                         am__entity_row **rows, size_t *n)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    *rows = NULL;
    *n = 0;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_int(&a, rid);
    PGresult *r = am__pg_run(s, "entities",
                             "SELECT type, surface, norm, t_from, t_to FROM entities"
                             " WHERE user_id = $1 AND event_rid = $2 ORDER BY seq", &a);
    if (!r) return s->rc;
    int k = PQntuples(r);
    if (!(*rows = am__pg_rows(ar, r, sizeof **rows))) return AM_NOMEM;
    for (int i = 0; i < k; i++) {
        am__entity_row *x = &(*rows)[i];
        x->type = am__pg_str(ar, r, i, 0);
        x->surface = am__pg_str(ar, r, i, 1);
        x->norm = am__pg_str(ar, r, i, 2);
        x->from = am__pg_time(r, i, 3);
        x->to = am__pg_time(r, i, 4);
    }
    return am__pg_rows_done(ar, r, n);
}

/* The newest event whose content holds needle (its id), or the one the
 * caller named client_id (its id, task, "" for none, and fingerprint). */
static int event_by_key(pg_store *s, const char *uid, int by, const char *key, am__arena *ar,
                        am__event_row *out)
{
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, key);
    PGresult *r = by == AM__EVENT_BY_TEXT
                      ? am__pg_run(s, "event find",
                                   "SELECT id FROM events WHERE user_id = $1 AND"
                                   " strpos(content, $2) > 0 ORDER BY occurred_at DESC, rid DESC"
                                   " LIMIT 1",
                                   &a)
                      : am__pg_run(s, "event by id",
                                   "SELECT id, coalesce(task_id, ''), client_hash FROM events"
                                   " WHERE user_id = $1 AND client_id = $2",
                                   &a);
    if (!r) return s->rc;
    int rc = PQntuples(r) ? AM_OK : AM_NOTFOUND;
    if (!rc) {
        out->id = am__pg_str(ar, r, 0, 0);
        if (by == AM__EVENT_BY_CLIENT) {
            out->task_id = am__pg_str(ar, r, 0, 1);
            out->client_hash = am__pg_i64(r, 0, 2);
        }
        if (ar->oom) rc = AM_NOMEM;
    }
    PQclear(r);
    return rc;
}

int am__pg_event_get(am__store *b, const char *uid, int by, const char *key, am__arena *ar,
                     am__event_row *out)
{
    if (by == AM__EVENT_BY_ID) return event_by_id(b, uid, key, ar, out);
    if (by != AM__EVENT_BY_TEXT && by != AM__EVENT_BY_CLIENT) return AM_MISUSE;
    *out = (am__event_row){0};
    return event_by_key(PG(b), uid, by, key, ar, out);
}

int am__pg_entity_counts(am__store *b, const char *uid, const char *type, int limit,
                         am__arena *ar, const char ***norms, long **counts, size_t *n)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    *n = 0;
    *norms = NULL;
    *counts = NULL;
    if (limit <= 0) return AM_OK;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, type);
    am__pg_arg_int(&a, limit);
    PGresult *r = am__pg_run(s, "entity counts",
                             "SELECT norm, count(*) AS c FROM entities WHERE user_id = $1 AND type = $2"
                             " GROUP BY norm ORDER BY c DESC, norm LIMIT $3", &a);
    if (!r) return s->rc;
    int k = PQntuples(r);
    const char **nv = am__arena_alloc(ar, ((size_t)k + 1) * sizeof *nv);
    long *cv = am__arena_alloc(ar, ((size_t)k + 1) * sizeof *cv);
    if (!nv || !cv) { PQclear(r); return AM_NOMEM; }
    for (int i = 0; i < k; i++) {
        nv[i] = am__pg_str(ar, r, i, 0);
        cv[i] = (long)am__pg_i64(r, i, 1);
    }
    PQclear(r);
    *norms = nv;
    *counts = cv;
    *n = (size_t)k;
    return ar->oom ? AM_NOMEM : AM_OK;
}

int am__pg_events_dated(am__store *b, const char *uid, const int64_t *rids, size_t n,
                        unsigned char *dated)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    if (n == 0) return AM_OK;
    memset(dated, 0, n);
    am__buf lit;
    am__buf_init(&lit, s->a);
    am__pg_int_array(&lit, rids, n);
    am__buf_addc(&lit, 0);
    if (lit.oom) { am__buf_free(&lit); return AM_NOMEM; }
    pg_args a = {0};
    am__pg_arg_text(&a, lit.p);
    am__pg_arg_text(&a, uid);
    PGresult *r = am__pg_run(s, "entities",
                             "SELECT j.i - 1 FROM unnest($1::bigint[]) WITH ORDINALITY AS j(rid, i)"
                             " WHERE EXISTS (SELECT 1 FROM entities x WHERE x.user_id = $2"
                             " AND x.event_rid = j.rid AND x.type IN ('date', 'datetime', 'range'))",
                             &a);
    am__buf_free(&lit);
    if (!r) return s->rc;
    for (int i = 0; i < PQntuples(r); i++) {
        int64_t at = am__pg_i64(r, i, 0);
        if (at >= 0 && (uint64_t)at < n) dated[at] = 1;
    }
    PQclear(r);
    return AM_OK;
}

int am__pg_events_access(am__store *b, const char *uid, am__arena *ar, am__event_row **rows,
                         size_t *n)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    *rows = NULL;
    *n = 0;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    PGresult *r = am__pg_run(s, "events",
                             "SELECT rid, id, agent_id, source, domain FROM events WHERE user_id = $1"
                             " AND (source IN ('agent', 'tool') OR domain IS NOT NULL) ORDER BY rid",
                             &a);
    if (!r) return s->rc;
    int k = PQntuples(r);
    if (!(*rows = am__pg_rows(ar, r, sizeof **rows))) return AM_NOMEM;
    for (int i = 0; i < k; i++) {
        am__event_row *e = &(*rows)[i];
        e->rid = am__pg_i64(r, i, 0);
        e->id = am__pg_str(ar, r, i, 1);
        e->agent_id = am__pg_str(ar, r, i, 2);
        e->source = am__pg_str(ar, r, i, 3);
        e->domain = am__pg_str(ar, r, i, 4);
    }
    return am__pg_rows_done(ar, r, n);
}

int am__pg_events_scan(am__store *b, const char *uid, const am__event_scan *q, am__arena *ar,
                       am__event_row **rows, size_t *n)
{
    switch (q->kind) {
    case AM__SCAN_RECENT:
        return am__pg_events_recent(b, uid, q->session, q->task, q->at, q->limit, ar, rows, n);
    case AM__SCAN_PAGE: return am__pg_events_page(b, uid, q->at, q->rid, q->limit, ar, rows, n);
    case AM__SCAN_BEFORE:
        return am__pg_events_before(b, uid, q->session, q->at, q->rid, q->from, q->limit, ar, rows,
                                    n);
    case AM__SCAN_ACCESS: return am__pg_events_access(b, uid, ar, rows, n);
    case AM__SCAN_COLD:
        return am__pg_cold_candidates(b, uid, q->at, q->from, q->rid, q->limit, ar, rows, n);
    default: return AM_MISUSE;
    }
}

/* ------------------------------------------------------------ vectors */

#define VEC_DIM_MAX 4096

int am__pg_vec_put(am__store *b, const char *uid, int64_t rid, const char *embedder,
                   const float *v, int dim)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    signed char q[VEC_DIM_MAX];
    if (dim <= 0 || dim > VEC_DIM_MAX) return AM_MISUSE;
    float mx = 0;
    for (int i = 0; i < dim; i++) mx = fabsf(v[i]) > mx ? fabsf(v[i]) : mx;
    float scale = mx > 0 ? mx / 127.0f : 1.0f;
    for (int i = 0; i < dim; i++) q[i] = (signed char)lrintf(v[i] / scale);
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_int(&a, rid);
    am__pg_arg_text(&a, embedder);
    am__pg_arg_int(&a, dim);
    am__pg_arg_real(&a, scale);
    am__pg_arg_bytes(&a, q, (size_t)dim);
    return am__pg_exec(s, "vector",
                       "INSERT INTO event_vectors(user_id, event_rid, embedder, dim, scale, vec)"
                       " VALUES($1, $2, $3, $4, $5, $6) ON CONFLICT(user_id, event_rid) DO UPDATE"
                       " SET embedder = excluded.embedder, dim = excluded.dim,"
                       " scale = excluded.scale, vec = excluded.vec", &a, NULL);
}

typedef struct vec_top {
    int64_t rid;
    double score;
} vec_top;

/* The best `limit` so far: a new one replaces the lowest kept when it is
 * better (ties keep the one seen first, as the SQLite store's scan). */
static void top_keep(vec_top *top, size_t *n, size_t limit, int64_t rid, double score)
{
    if (*n < limit) {
        top[(*n)++] = (vec_top){rid, score};
        return;
    }
    size_t low = 0;
    for (size_t j = 1; j < *n; j++)
        if (top[j].score < top[low].score) low = j;
    if (score > top[low].score) top[low] = (vec_top){rid, score};
}

int am__pg_vec_scan(am__store *b, const char *uid, const char *embedder, const float *qv, int dim,
                    am_time to, int limit, int exact_max, am__arena *ar, am__event_row **rows,
                    size_t *n)
{
    (void)exact_max; /* always exact here */
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    *rows = NULL;
    *n = 0;
    if (limit <= 0) return AM_OK;
    if (dim <= 0 || dim > VEC_DIM_MAX) return AM_MISUSE;
    signed char q8[VEC_DIM_MAX];
    float qmax = 0;
    for (int i = 0; i < dim; i++) qmax = fabsf(qv[i]) > qmax ? fabsf(qv[i]) : qmax;
    double qscale = qmax > 0 ? qmax / 127.0 : 1.0;
    for (int i = 0; i < dim; i++) q8[i] = (signed char)lrintf(qv[i] / (float)qscale);
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, embedder);
    am__pg_arg_int(&a, dim);
    am__pg_arg_time(&a, to);
    PGresult *r = am__pg_run(s, "vector scan",
                             "SELECT v.event_rid, v.scale, v.vec FROM event_vectors v"
                             " WHERE v.user_id = $1 AND v.embedder = $2 AND v.dim = $3"
                             " AND ($4::bigint IS NULL OR EXISTS (SELECT 1 FROM events e"
                             "  WHERE e.user_id = $1 AND e.rid = v.event_rid AND e.occurred_at < $4))"
                             " ORDER BY v.event_rid", &a);
    if (!r) return s->rc;
    vec_top *top = am__arena_alloc(ar, (size_t)limit * sizeof *top);
    if (!top) { PQclear(r); return AM_NOMEM; }
    size_t nt = 0;
    int rc = AM_OK;
    am__arena tmp;
    am__arena_init(&tmp, s->a);
    for (int i = 0; i < PQntuples(r) && !rc; i++) {
        const unsigned char *vec;
        size_t len;
        if ((rc = am__pg_bytes(&tmp, r, i, 2, &vec, &len))) break;
        if (len != (size_t)dim) continue;
        int32_t dot = 0;
        for (int j = 0; j < dim; j++) dot += (int32_t)q8[j] * (int32_t)(signed char)vec[j];
        double score = (double)dot * qscale * (float)am__pg_real(r, i, 1);
        top_keep(top, &nt, (size_t)limit, am__pg_i64(r, i, 0), score);
        if (i % 256 == 255) { /* the decoded vectors do not pile up */
            am__arena_free(&tmp);
            am__arena_init(&tmp, s->a);
        }
    }
    am__arena_free(&tmp);
    PQclear(r);
    if (rc || nt == 0) return rc;
    /* the hits' rows, in their order, a hit that is not the user's left out */
    am__event_row *ev = am__arena_alloc(ar, nt * sizeof *ev);
    int64_t *rid = am__arena_alloc(ar, nt * sizeof *rid);
    unsigned char *found = am__arena_alloc(ar, nt);
    if (!ev || !rid || !found) return AM_NOMEM;
    for (size_t k = 0; k < nt; k++) rid[k] = top[k].rid;
    if ((rc = am__pg_rows_get(b, uid, rid, nt, ar, ev, found))) return rc;
    size_t m = 0;
    for (size_t k = 0; k < nt; k++)
        if (found[k]) {
            ev[m] = ev[k];
            ev[m++].score = top[k].score;
        }
    *rows = ev;
    *n = m;
    return AM_OK;
}

/* Re-embedding: an event lacks a vector when it has none or one of
 * another embedder or dimension ($1 user or NULL: all, $2 embedder, $3
 * dim, $4 all languages). */
#define VEC_MISSING_FROM                                                                     \
    " FROM events e LEFT JOIN event_vectors v ON v.user_id = e.user_id AND v.event_rid = e.rid" \
    " WHERE ($1::text IS NULL OR e.user_id = $1)"                                            \
    " AND (v.event_rid IS NULL OR v.embedder <> $2 OR v.dim <> $3)"                          \
    " AND ($4::boolean OR e.lang = 'en') AND e.type <> 'task_switch'"

static void want_args(pg_args *a, const char *uid, const am__vec_want *w)
{
    am__pg_arg_text(a, uid);
    am__pg_arg_text(a, w->embedder_id);
    am__pg_arg_int(a, w->dim);
    am__pg_arg_text(a, w->all_langs ? "true" : "false");
}

static int missing_count(am__store *b, const char *uid, const am__vec_want *want, size_t *n,
                         int64_t *max_rid)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    *n = 0;
    *max_rid = 0;
    pg_args a = {0};
    want_args(&a, uid, want);
    PGresult *r = am__pg_run(s, "vectors missing",
                             "SELECT count(*), coalesce(max(e.rid), 0)" VEC_MISSING_FROM, &a);
    if (!r) return s->rc;
    *n = (size_t)am__pg_i64(r, 0, 0);
    *max_rid = am__pg_i64(r, 0, 1);
    PQclear(r);
    return AM_OK;
}

static int missing_list(am__store *b, const char *uid, const am__vec_want *want, int64_t after_rid,
                        int64_t upto_rid, int limit, am__arena *ar, am__event_row **rows, size_t *n)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    *rows = NULL;
    *n = 0;
    pg_args a = {0};
    want_args(&a, uid, want);
    am__pg_arg_int(&a, after_rid);
    am__pg_arg_int(&a, upto_rid);
    am__pg_arg_int(&a, limit);
    PGresult *r = am__pg_run(s, "vectors missing",
                             "SELECT e.rid, e.id, e.user_id, e.lang, e.content" VEC_MISSING_FROM
                             " AND e.rid > $5 AND e.rid <= $6 ORDER BY e.rid LIMIT $7", &a);
    if (!r) return s->rc;
    int k = PQntuples(r);
    if (!(*rows = am__pg_rows(ar, r, sizeof **rows))) return AM_NOMEM;
    for (int i = 0; i < k; i++) {
        am__event_row *e = &(*rows)[i];
        e->rid = am__pg_i64(r, i, 0);
        e->id = am__pg_str(ar, r, i, 1);
        e->user_id = am__pg_str(ar, r, i, 2);
        e->lang = am__pg_str(ar, r, i, 3);
        e->content = am__pg_str(ar, r, i, 4);
    }
    return am__pg_rows_done(ar, r, n);
}

int am__pg_vec_missing(am__store *b, const char *uid, const am__vec_want *want, int64_t after_rid,
                       int64_t upto_rid, int limit, am__arena *ar, am__event_row **rows, size_t *n,
                       int64_t *max_rid)
{
    if (!rows) return missing_count(b, uid, want, n, max_rid);
    return missing_list(b, uid, want, after_rid, upto_rid, limit, ar, rows, n);
}

/* store.h entities: the read its mode names. */
int am__pg_entities(am__store *b, const char *uid, const am__entity_read *q, am__arena *ar,
                    am__entity_out *out)
{
    switch (q->what) {
    case AM__ENT_OF_EVENT:
        return am__pg_entities_list(b, uid, q->event_rid, ar, &out->rows, &out->n);
    case AM__ENT_COUNTS:
        return am__pg_entity_counts(b, uid, q->type, q->limit, ar, &out->norms, &out->counts,
                                    &out->n);
    case AM__ENT_DATED: return am__pg_events_dated(b, uid, q->rids, q->n_rids, q->dated);
    case AM__ENT_PII:
        return am__pg_pii_events(b, uid, q->type, q->canon, q->to, q->limit, ar, &out->rids,
                                 &out->originals, &out->n);
    default: return AM_MISUSE;
    }
}
