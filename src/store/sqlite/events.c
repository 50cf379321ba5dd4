/* SPDX-License-Identifier: Apache-2.0 */
/*
 * events.c -- the perception layer's rows: events, their index rows, the
 * entities and PII vault values extracted from them, and the reads of
 * them (by id, recent, by PII type, dated, entity counts).
 *
 * A written event also joins the posting lists the connection holds for
 * its user (post_cache.c): its text is tokenized as the index tokenizes it
 * and each term's count added (lists_apply), so the lists stay complete
 * without a scan.
 */
#include <stdlib.h>

#include "store/sqlite/sqlite_int.h"

static int read_events(sq_store *s, sqlite3_stmt *st, am__arena *ar,
                       am__event_row **rows, size_t *n, int with_tokens)
{
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__event_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        read_event(ar, st, r);
        if (with_tokens) read_event_tokens(ar, st, r);
        if (ar->oom) { done(s, st); return AM_NOMEM; }
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "events");
    done(s, st);
    return out;
}

/* ------------------------------------------------------------ posting lists
 *
 * A written column value's tokens, as the index holds them (the same
 * tokenizer), added to the held lists of row rid (post_cache.c); *count:
 * how many tokens the column gains.  The value is tagged as the store
 * writes it (U+E001 TAG U+E001 text); cont: it continues the column (a
 * context append), so its bare tag is not one of the column's tokens. */
typedef struct tok_run {
    const char *tok;
    size_t len;
} tok_run;
typedef struct tok_bag {
    am__arena *ar;
    tok_run *t;
    size_t n, cap;
} tok_bag;

static int bag_add(void *ctx, const char *tok, size_t len)
{
    tok_bag *b = ctx;
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        tok_run *t = am__arena_alloc(b->ar, cap * sizeof *t);
        if (!t) return AM_NOMEM;
        if (b->n) memcpy(t, b->t, b->n * sizeof *t);
        b->t = t;
        b->cap = cap;
    }
    char *c = am__arena_strndup(b->ar, tok, len);
    if (!c) return AM_NOMEM;
    b->t[b->n].tok = c;
    b->t[b->n++].len = len;
    return 0;
}

static int cmp_run(const void *x, const void *y)
{
    const tok_run *a = x, *b = y;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    return memcmp(a->tok, b->tok, a->len);
}

static int lists_apply(sq_store *s, const char *tag, const char *text, int64_t rid, int col,
                       int cont, uint32_t *count)
{
    am__arena ar;
    am__buf v;
    am__arena_init(&ar, s->a);
    am__buf_init(&v, s->a);
    tok_bag b = {&ar, NULL, 0, 0};
    int rc = AM_OK;
    am__buf_adds(&v, AM__FTS_TAG);
    am__buf_adds(&v, tag);
    am__buf_adds(&v, AM__FTS_TAG);
    am__buf_adds(&v, text);
    if (v.oom) rc = AM_NOMEM;
    if (!rc && !s->ptext) rc = am__text_open(s->a, &s->ptext);
    if (!rc) rc = am__fts_tokens(s->ptext, v.p, v.len, bag_add, &b);
    if (!rc) {
        size_t from = cont && b.n ? 1 : 0; /* the bare tag comes first */
        *count = (uint32_t)(b.n - from);
        qsort(b.t + from, b.n - from, sizeof *b.t, cmp_run);
        for (size_t i = from; i < b.n && rc == AM_OK;) {
            size_t j = i + 1;
            while (j < b.n && cmp_run(&b.t[i], &b.t[j]) == 0) j++;
            rc = am__post_add(s->post, b.t[i].tok, b.t[i].len, rid, col, (unsigned)(j - i));
            i = j;
        }
    }
    am__buf_free(&v);
    am__arena_free(&ar);
    return rc;
}

/* The user's first row: its lists can be made whole by its writes when
 * the index holds no row of its tag yet (another user's, whose id hashes
 * to the same tag, would be in none of them).  The caches are checked
 * against other connections' commits first (this write transaction sees
 * them all), so that the lists made from here on count as read now. */
static int whole_start(sq_store *s, const char *tag)
{
    if (!s->post) return AM_OK;
    int rc = am__sqlite_caches_current(s, NULL);
    if (rc) return rc;
    sqlite3_stmt *v = stmt(s, "SELECT doc FROM temp.am_events_vocab WHERE term = ?");
    if (!v) return AM_BACKEND;
    bind_text(v, 1, tag);
    rc = sqlite3_step(v);
    int64_t d = rc == SQLITE_ROW ? sqlite3_column_int64(v, 0) : 0;
    done(s, v);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return fail(s, rc, "term frequencies");
    if (d == 0) am__post_whole_add(s->post, tag, strlen(tag));
    return AM_OK;
}

/* A whole user's row (its first question follows its writes: a new user,
 * a bench's haystack) is copied to the row cache as it is written, as a
 * read of EVENT_COLS would return it -- the bound values, a zero-length
 * token blob read back as none (row_cache.c drops the put-only fields) --
 * so that the search after it reads no row it wrote.  The row cache's
 * rules keep the copy true (row_cache.c: an events row changes only by a
 * delete, a rollback or a re-owning, which clear it). */
static void rowcache_written(sq_store *s, const am__event_row *e)
{
    am__event_row row = *e; /* (the put-only fields are not copied) */
    if (!row.tokens_len) row.tokens = NULL;
    am__rowcache_put(s->rows, &row);
}

/* ---- deferred index rows (sqlite_int.h: am__sqlite_fts_flush) */

typedef struct sq_fts_row {
    int64_t rid;
    char tok[32];
    char *doc, *ctx; /* s->a's */
    size_t ctx_len;
} sq_fts_row;

static char *dup_n(const am__allocator *a, const char *p, size_t n)
{
    char *d = am__malloc(a, n + 1);
    if (d) {
        memcpy(d, p, n);
        d[n] = '\0';
    }
    return d;
}

#define FTS_INSERT                                                                \
    "INSERT INTO events_fts(rowid, uid, doc, ctx) VALUES(?1, ?2,"                 \
    " '" AM__FTS_TAG "' || ?2 || '" AM__FTS_TAG "' || ?3,"                         \
    " '" AM__FTS_TAG "' || ?2 || '" AM__FTS_TAG "' || ?4)"

/* One index row now (st: FTS_INSERT's, reset here) */
static int fts_insert(sq_store *s, sqlite3_stmt *st, int64_t rid, const char *tok,
                      const char *doc, const char *ctx, size_t ctx_len)
{
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, rid);
    bind_text(st, 2, tok);
    bind_text(st, 3, doc);
    sqlite3_bind_text(st, 4, ctx, (int)ctx_len, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    return rc == SQLITE_DONE ? AM_OK : fail(s, rc, "event index");
}

static int fts_defer(sq_store *s, int64_t rid, const char *tok, const char *doc, const char *ctx)
{
    if (sqlite3_get_autocommit(s->db)) { /* no transaction to wait for: now */
        sqlite3_stmt *st = stmt(s, FTS_INSERT);
        if (!st) return AM_BACKEND;
        int rc = fts_insert(s, st, rid, tok, doc, ctx, strlen(ctx));
        done(s, st);
        return rc;
    }
    if (s->fts_n == s->fts_cap) {
        size_t cap = s->fts_cap ? 2 * s->fts_cap : 16;
        sq_fts_row *p = am__realloc(s->a, s->fts_rows, cap * sizeof *p);
        if (!p) return AM_NOMEM;
        s->fts_rows = p;
        s->fts_cap = cap;
    }
    sq_fts_row *r = &s->fts_rows[s->fts_n];
    r->rid = rid;
    snprintf(r->tok, sizeof r->tok, "%s", tok);
    r->ctx_len = strlen(ctx);
    r->doc = dup_n(s->a, doc, strlen(doc));
    r->ctx = dup_n(s->a, ctx, r->ctx_len);
    if (!r->doc || !r->ctx) {
        am__free(s->a, r->doc);
        am__free(s->a, r->ctx);
        return AM_NOMEM;
    }
    s->fts_n++;
    return AM_OK;
}

/* The waiting row rid (NULL: none; recent rows are looked at first) */
static sq_fts_row *fts_waiting(sq_store *s, int64_t rid)
{
    for (size_t i = s->fts_n; i-- > 0;)
        if (s->fts_rows[i].rid == rid) return &s->fts_rows[i];
    return NULL;
}

static void rows_free(sq_store *s, sq_fts_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        am__free(s->a, rows[i].doc);
        am__free(s->a, rows[i].ctx);
    }
}

void am__sqlite_fts_discard(sq_store *s)
{
    rows_free(s, s->fts_rows, s->fts_n);
    s->fts_n = 0;
    if (s->fts_cap > 1024) { /* a big import's array is not kept */
        am__free(s->a, s->fts_rows);
        s->fts_rows = NULL;
        s->fts_cap = 0;
    }
}

void am__sqlite_fts_rollback_hook(void *ctx)
{
    am__sqlite_fts_discard(ctx);
}

int am__sqlite_fts_flush(sq_store *s)
{
    size_t n = s->fts_n;
    if (!n) return AM_OK;
    s->fts_n = 0; /* (the insert below is a statement of events_fts too) */
    int rc = AM_OK;
    if (sqlite3_get_autocommit(s->db)) { /* the transaction is gone: so are they */
        rows_free(s, s->fts_rows, n);
        return AM_OK;
    }
    sqlite3_stmt *st = stmt(s, FTS_INSERT);
    if (!st) rc = AM_BACKEND;
    for (size_t i = 0; !rc && i < n; i++) {
        sq_fts_row *r = &s->fts_rows[i];
        rc = fts_insert(s, st, r->rid, r->tok, r->doc, r->ctx, r->ctx_len);
    }
    if (st) done(s, st);
    rows_free(s, s->fts_rows, n);
    return rc;
}

int am__sqlite_event_put(am__store *b, am__event_row *e)
{
    sq_store *s = SQ(b);
    int rc = am__sqlite_caches_writing(s, e->user_id);
    if (rc) return rc;
    sqlite3_stmt *st = stmt(s, "INSERT INTO events(id, user_id, agent_id, session_id, task_id, channel, source, type, content, domain, intent, lang, occurred_at, tz_minutes, ingested_at, client_id, client_hash, tokens, metadata)"
                               " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, e->id);
    bind_text(st, 2, e->user_id);
    bind_text(st, 3, e->agent_id);
    bind_text(st, 4, e->session_id);
    bind_text(st, 5, e->task_id);
    bind_text(st, 6, e->channel);
    bind_text(st, 7, e->source);
    bind_text(st, 8, e->type);
    bind_text(st, 9, e->content);
    bind_text(st, 10, e->domain);
    bind_text(st, 11, e->intent);
    bind_text(st, 12, e->lang);
    sqlite3_bind_int64(st, 13, e->occurred_at);
    sqlite3_bind_int(st, 14, e->tz_minutes);
    sqlite3_bind_int64(st, 15, e->ingested_at);
    bind_text(st, 16, e->client_id);
    if (e->client_id) sqlite3_bind_int64(st, 17, e->client_hash);
    if (e->tokens) sqlite3_bind_blob(st, 18, e->tokens, (int)e->tokens_len, SQLITE_STATIC);
    bind_text(st, 19, e->metadata);
    rc = run(s, st, "event");
    if (rc) return rc;
    am__post_df_clear(s->post); /* its user's frequencies grow */
    e->rid = sqlite3_last_insert_rowid(s->db);
    st = stmt(s, "UPDATE users SET n_events = n_events + 1 WHERE user_id = ? RETURNING n_events");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, e->user_id);
    int src = sqlite3_step(st);
    int64_t n_events = src == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    done(s, st);
    if (src != SQLITE_ROW && src != SQLITE_DONE) return fail(s, src, "event count");
    am__fts_lens_drop(s->lens, e->rid); /* a rowid can come back */
    am__rowcache_inserted(s->rows, e->rid);
    char tok[32];
    uid_token(e->user_id, tok, 0);
    if (n_events == 1 && (rc = whole_start(s, tok))) return rc;
    const char *doc = e->index_doc ? e->index_doc : e->content, *ctx = e->index_ctx ? e->index_ctx : "";
    if ((rc = fts_defer(s, e->rid, tok, doc, ctx))) return rc;
    am__sqlite_lists_row(s, e->user_id, tok, e->rid, doc, ctx);
    am__sqlite_feed_row(s, e->user_id, tok, e->rid, doc, ctx); /* for the other connections */
    if (am__post_whole(s->post, tok, strlen(tok))) rowcache_written(s, e);
    return AM_OK;
}

void am__sqlite_lists_row(sq_store *s, const char *uid, const char *tok, int64_t rid,
                          const char *doc, const char *ctx)
{
    if (!am__post_has_tag(s->post, tok, strlen(tok))) return;
    uint32_t len[AM__FTS_SCORED];
    if (lists_apply(s, tok, doc, rid, 0, 0, &len[0]) || lists_apply(s, tok, ctx, rid, 1, 0, &len[1]))
        am__post_clear(s->post); /* lists short of this row: none */
    else
        am__fts_lens_set(s->lens, rid, am__sqlite_lens_epoch(s, uid), len);
}

/* The appended text's tokens join the row's context: its lists and, when
 * it was known (had: len), its length (tokens do not join across the
 * space). */
static void lists_append(sq_store *s, const char *tok, int64_t rid, uint32_t epoch, int had,
                         uint32_t len[AM__FTS_SCORED], const char *text)
{
    if (!am__post_has_tag(s->post, tok, strlen(tok))) return;
    uint32_t more;
    am__buf t;
    am__buf_init(&t, s->a);
    am__buf_adds(&t, " ");
    am__buf_adds(&t, text);
    if (t.oom || lists_apply(s, tok, t.p, rid, 1, 1, &more)) {
        am__post_clear(s->post);
    } else if (had) {
        len[1] += more;
        am__fts_lens_set(s->lens, rid, epoch, len);
    }
    am__buf_free(&t);
}

void am__sqlite_lists_append(sq_store *s, const char *uid, const char *tok, int64_t rid,
                             const char *text)
{
    uint32_t len[AM__FTS_SCORED], epoch = am__sqlite_lens_epoch(s, uid);
    int had = am__fts_lens_get(s->lens, rid, epoch, len);
    am__fts_lens_drop(s->lens, rid);
    lists_append(s, tok, rid, epoch, had, len, text);
}

int am__sqlite_event_ctx_append(am__store *b, const char *uid, int64_t rid,
                                const char *text)
{
    sq_store *s = SQ(b);
    char tok[32];
    uid_token(uid, tok, 0);
    uint32_t len[AM__FTS_SCORED];
    int rc = am__sqlite_caches_writing(s, uid);
    if (rc) return rc;
    uint32_t epoch = am__sqlite_lens_epoch(s, uid);
    int had = am__fts_lens_get(s->lens, rid, epoch, len);
    am__fts_lens_drop(s->lens, rid);
    am__post_df_clear(s->post); /* the row may hold more terms */
    sq_fts_row *w = fts_waiting(s, rid);
    if (w && strcmp(w->tok, tok) == 0) { /* joins the waiting row */
        size_t n = strlen(text);
        char *p = am__realloc(s->a, w->ctx, w->ctx_len + 1 + n + 1);
        if (!p) return AM_NOMEM;
        p[w->ctx_len] = ' ';
        memcpy(p + w->ctx_len + 1, text, n + 1);
        w->ctx = p;
        w->ctx_len += 1 + n;
    } else if (w) {
        return AM_OK; /* another user's row: as the UPDATE's uid = ?3 */
    } else {
        sqlite3_stmt *st = stmt(s, "UPDATE events_fts SET ctx = ctx || ' ' || ?1 WHERE rowid = ?2 AND uid = ?3");
        if (!st) return AM_BACKEND;
        bind_text(st, 1, text);
        sqlite3_bind_int64(st, 2, rid);
        bind_text(st, 3, tok);
        rc = run(s, st, "event context");
        if (rc || sqlite3_changes(s->db) == 0) return rc;
    }
    if ((rc = am__sqlite_user_changed(s, uid))) return rc; /* for other connections */
    am__sqlite_feed_append(s, uid, tok, rid, text);       /* (in this process: told) */
    lists_append(s, tok, rid, epoch, had, len, text);
    return AM_OK;
}

int am__sqlite_entity_put(am__store *b, const char *uid, int64_t rid,
                          const am__entity_row *en)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT INTO entities(event_rid, user_id, type, surface, norm, t_from, t_to) VALUES(?,?,?,?,?,?,?)");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, rid);
    bind_text(st, 2, uid);
    bind_text(st, 3, en->type);
    bind_text(st, 4, en->surface);
    bind_text(st, 5, en->norm);
    bind_time(st, 6, en->from);
    bind_time(st, 7, en->to);
    return run(s, st, "entity");
}

int am__sqlite_pii_put(am__store *b, const char *uid, int64_t rid,
                       const am__pii_row *p)
{
    sq_store *s = SQ(b);
    /* the value's hash under the key of the row's form (pii_index.c) */
    int64_t hash;
    int rc = am__sqlite_pii_value_hash(s, uid, p->type, p->original, s->has_vault_key, &hash);
    if (rc) return rc;
    sqlite3_stmt *st = stmt(s, "INSERT INTO pii_vault(user_id, event_rid, placeholder, type,"
                               " original, canon_hash) VALUES(?,?,?,?,?,?)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    sqlite3_bind_int64(st, 2, rid);
    bind_text(st, 3, p->placeholder);
    bind_text(st, 4, p->type);
    sqlite3_bind_int64(st, 6, hash);
    if (!s->has_vault_key) {
        bind_text(st, 5, p->original);
        return run(s, st, "pii");
    }
    am__buf sealed;
    am__buf_init(&sealed, s->a);
    rc = am__vault_seal(s->vault_key, uid, p->type, p->original, &sealed);
    if (rc) {
        am__buf_free(&sealed);
        done(s, st);
        snprintf(s->err, sizeof s->err, "pii: cannot seal the original (%s)", am_errstr(rc));
        return rc;
    }
    sqlite3_bind_text(st, 5, sealed.p, (int)sealed.len, SQLITE_TRANSIENT);
    am__buf_free(&sealed);
    return run(s, st, "pii");
}

static int event_by_id(am__store *b, const char *uid, const char *id, am__arena *ar,
                       am__event_row *out)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT " EVENT_COLS " FROM events e WHERE e.user_id=? AND e.id=?");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, id);
    int rc = sqlite3_step(st), r;
    if (rc == SQLITE_ROW) {
        read_event(ar, st, out);
        read_event_tokens(ar, st, out);
        r = ar->oom ? AM_NOMEM : AM_OK;
    } else {
        r = rc == SQLITE_DONE ? AM_NOTFOUND : fail(s, rc, "event");
    }
    done(s, st);
    return r;
}

int am__sqlite_events_recent(am__store *b, const char *uid, const char *session,
                             const char *task, am_time before, int limit,
                             am__arena *ar, am__event_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    /* One statement per filter, each matching an index on
     * (user_id[, session_id|task_id], occurred_at): a recent-events read
     * is a short index walk whatever the history's length. */
    static const char *const sql[4] = {
        "SELECT " EVENT_COLS " FROM events e WHERE e.user_id=?1"
        " AND e.occurred_at <= coalesce(?4, 9223372036854775807)"
        " ORDER BY e.occurred_at DESC, e.rid DESC LIMIT ?5",
        "SELECT " EVENT_COLS " FROM events e WHERE e.user_id=?1 AND e.session_id=?2"
        " AND e.occurred_at <= coalesce(?4, 9223372036854775807)"
        " ORDER BY e.occurred_at DESC, e.rid DESC LIMIT ?5",
        "SELECT " EVENT_COLS " FROM events e WHERE e.user_id=?1 AND e.task_id=?3"
        " AND e.occurred_at <= coalesce(?4, 9223372036854775807)"
        " ORDER BY e.occurred_at DESC, e.rid DESC LIMIT ?5",
        "SELECT " EVENT_COLS " FROM events e WHERE e.user_id=?1 AND e.session_id=?2"
        " AND e.task_id=?3 AND e.occurred_at <= coalesce(?4, 9223372036854775807)"
        " ORDER BY e.occurred_at DESC, e.rid DESC LIMIT ?5",
    };
    sqlite3_stmt *st = stmt(s, sql[(session ? 1 : 0) + (task ? 2 : 0)]);
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    if (session) bind_text(st, 2, session);
    if (task) bind_text(st, 3, task);
    bind_time(st, 4, before);
    sqlite3_bind_int(st, 5, limit);
    return read_events(s, st, ar, rows, n, 1);
}

int am__sqlite_events_page(am__store *b, const char *uid, am_time after_at, int64_t after_rid,
                           int limit, am__arena *ar, am__event_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT " EVENT_COLS " FROM events e WHERE e.user_id=?1"
                               " AND (?2 IS NULL OR e.occurred_at > ?2 OR (e.occurred_at = ?2 AND e.rid > ?3))"
                               " ORDER BY e.occurred_at, e.rid LIMIT ?4");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_time(st, 2, after_at);
    sqlite3_bind_int64(st, 3, after_rid);
    sqlite3_bind_int(st, 4, limit);
    return read_events(s, st, ar, rows, n, 0);
}

int am__sqlite_events_before(am__store *b, const char *uid, const char *session, am_time before_at,
                             int64_t before_rid, am_time from, int limit, am__arena *ar,
                             am__event_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    /* a walk back along the index on (user_id[, session_id], occurred_at) */
    static const char *const sql[2] = {
        "SELECT " EVENT_COLS " FROM events e WHERE e.user_id=?1"
        " AND (?3 IS NULL OR e.occurred_at < ?3 OR (e.occurred_at = ?3 AND e.rid < ?4))"
        " AND (?5 IS NULL OR e.occurred_at >= ?5)"
        " ORDER BY e.occurred_at DESC, e.rid DESC LIMIT ?6",
        "SELECT " EVENT_COLS " FROM events e WHERE e.user_id=?1 AND e.session_id=?2"
        " AND (?3 IS NULL OR e.occurred_at < ?3 OR (e.occurred_at = ?3 AND e.rid < ?4))"
        " AND (?5 IS NULL OR e.occurred_at >= ?5)"
        " ORDER BY e.occurred_at DESC, e.rid DESC LIMIT ?6",
    };
    sqlite3_stmt *st = stmt(s, sql[session ? 1 : 0]);
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    if (session) bind_text(st, 2, session);
    bind_time(st, 3, before_at);
    sqlite3_bind_int64(st, 4, before_rid);
    bind_time(st, 5, from);
    sqlite3_bind_int(st, 6, limit);
    return read_events(s, st, ar, rows, n, 0);
}

int am__sqlite_events_scan(am__store *b, const char *uid, const am__event_scan *q, am__arena *ar,
                           am__event_row **rows, size_t *n)
{
    switch (q->kind) {
    case AM__SCAN_RECENT:
        return am__sqlite_events_recent(b, uid, q->session, q->task, q->at, q->limit, ar, rows, n);
    case AM__SCAN_PAGE: return am__sqlite_events_page(b, uid, q->at, q->rid, q->limit, ar, rows, n);
    case AM__SCAN_BEFORE:
        return am__sqlite_events_before(b, uid, q->session, q->at, q->rid, q->from, q->limit, ar,
                                        rows, n);
    case AM__SCAN_ACCESS: return am__sqlite_events_access(b, uid, ar, rows, n);
    case AM__SCAN_COLD:
        return am__sqlite_cold_candidates(b, uid, q->at, q->from, q->rid, q->limit, ar, rows, n);
    default: return AM_MISUSE;
    }
}

int am__sqlite_pii_events(am__store *b, const char *uid, const char *type, const char *canon,
                          am_time to, int limit, am__arena *ar, int64_t **rids,
                          const char ***originals, size_t *n)
{
    sq_store *s = SQ(b);
    /* the rows whose hash is the value's (under the plain key, and under
     * the sealed one when this connection has it) or not yet computed
     * (pii_index.c), each an index probe (an OR of the two would probe
     * the user's whole type); the vault drives the join (CROSS JOIN: the
     * planner would walk all the user's events and probe the vault for
     * each, which was most of the cost) */
    int64_t plain, sealed = 0;
    int rc = am__sqlite_pii_hash(s, uid, type, canon, 0, &plain);
    if (!rc && s->has_index_key) rc = am__sqlite_pii_hash(s, uid, type, canon, 1, &sealed);
    if (rc) return rc;
    /* rids and values only: a value is compared before its row is read */
    sqlite3_stmt *st = stmt(s, "SELECT e.rid, v.original FROM pii_vault v"
                               " CROSS JOIN events e ON e.rid = v.event_rid"
                               " WHERE v.rowid IN (SELECT rowid FROM pii_vault WHERE user_id=?1"
                               "   AND type=?2 AND canon_hash IN (?5, ?6) UNION ALL"
                               "   SELECT rowid FROM pii_vault WHERE user_id=?1 AND type=?2"
                               "   AND canon_hash IS NULL)"
                               " AND e.user_id=?1"
                               " AND e.occurred_at < coalesce(?3, 9223372036854775807)"
                               " ORDER BY e.occurred_at DESC, e.rid DESC LIMIT ?4");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, type);
    bind_time(st, 3, to);
    sqlite3_bind_int(st, 4, limit);
    sqlite3_bind_int64(st, 5, plain);
    if (s->has_index_key) sqlite3_bind_int64(st, 6, sealed);
    else sqlite3_bind_null(st, 6);
    size_t cap = 0, ocap = 0, on = 0;
    *rids = NULL;
    *originals = NULL;
    *n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t *r = push(ar, (void **)rids, n, &cap, sizeof *r);
        const char **o = push(ar, (void **)originals, &on, &ocap, sizeof *o);
        if (!r || !o) { done(s, st); return AM_NOMEM; }
        *r = sqlite3_column_int64(st, 0);
        *o = col_text(ar, st, 1);
        if (ar->oom || !*o) { done(s, st); return AM_NOMEM; }
        if (!am__vault_is_sealed(*o)) continue;
        /* sealed: opened with the key, or skipped (no key, the wrong key,
         * damaged) -- never compared as ciphertext */
        int vrc = s->has_vault_key ? am__vault_open(s->vault_key, uid, type, *o, ar, o) : AM_DENIED;
        if (vrc == AM_NOMEM) { done(s, st); return AM_NOMEM; }
        if (vrc != AM_OK) { (*n)--; on--; }
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "pii");
    done(s, st);
    return out;
}

/* One statement for all the rids (json_each hands them over; a
 * statement per rid spent more in its reset and set-up than in its
 * lookup): the array index of each one that is dated. */
int am__sqlite_events_dated(am__store *b, const char *uid, const int64_t *rids, size_t n,
                            unsigned char *dated)
{
    sq_store *s = SQ(b);
    if (n == 0) return AM_OK;
    memset(dated, 0, n);
    am__buf *list = &s->scratch;
    am__buf_reset(list);
    am__buf_addc(list, '[');
    for (size_t i = 0; i < n; i++) {
        if (i) am__buf_addc(list, ',');
        am__buf_add_int(list, rids[i]);
    }
    am__buf_addc(list, ']');
    if (list->oom) return AM_NOMEM;
    sqlite3_stmt *st = stmt(s, "SELECT j.key FROM json_each(?1) j WHERE EXISTS (SELECT 1 FROM entities x"
                               " WHERE x.event_rid = j.value AND x.user_id = ?2"
                               " AND x.type IN ('date', 'datetime', 'range'))");
    if (!st) return AM_BACKEND;
    sqlite3_bind_text(st, 1, list->p, (int)list->len, SQLITE_STATIC);
    bind_text(st, 2, uid);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t i = sqlite3_column_int64(st, 0);
        if (i >= 0 && (uint64_t)i < n) dated[i] = 1;
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "entities");
    done(s, st);
    return out;
}

int am__sqlite_entities_list(am__store *b, const char *uid, int64_t rid,
                             am__arena *ar, am__entity_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT type, surface, norm, t_from, t_to FROM entities WHERE user_id=? AND event_rid=? ORDER BY rowid");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    sqlite3_bind_int64(st, 2, rid);
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__entity_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        r->type = col_text(ar, st, 0);
        r->surface = col_text(ar, st, 1);
        r->norm = col_text(ar, st, 2);
        r->from = col_time(st, 3);
        r->to = col_time(st, 4);
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "entities");
    done(s, st);
    return out ? out : ar->oom ? AM_NOMEM : AM_OK; /* a text not copied */
}

/* The newest event whose content holds needle: its id. */
static int event_by_text(sq_store *s, const char *uid, const char *needle, am__arena *ar,
                         am__event_row *out)
{
    sqlite3_stmt *st = stmt(s, "SELECT id FROM events WHERE user_id=? AND instr(content, ?) > 0 ORDER BY occurred_at DESC, rid DESC LIMIT 1");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, needle);
    int rc = sqlite3_step(st), r;
    if (rc == SQLITE_ROW) {
        out->id = am__arena_strdup(ar, (const char *)sqlite3_column_text(st, 0));
        r = ar->oom ? AM_NOMEM : AM_OK;
    } else {
        r = rc == SQLITE_DONE ? AM_NOTFOUND : fail(s, rc, "event find");
    }
    done(s, st);
    return r;
}

/* The event the caller named client_id: its id, task ("": none) and
 * fingerprint. */
static int event_by_client(sq_store *s, const char *uid, const char *client_id, am__arena *ar,
                           am__event_row *out)
{
    sqlite3_stmt *st = stmt(s, "SELECT id, coalesce(task_id, ''), client_hash FROM events"
                               " WHERE user_id = ? AND client_id = ?");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, client_id);
    int rc = sqlite3_step(st), r;
    if (rc == SQLITE_ROW) {
        out->id = am__arena_strdup(ar, (const char *)sqlite3_column_text(st, 0));
        out->task_id = am__arena_strdup(ar, (const char *)sqlite3_column_text(st, 1));
        out->client_hash = sqlite3_column_int64(st, 2);
        r = ar->oom ? AM_NOMEM : AM_OK;
    } else {
        r = rc == SQLITE_DONE ? AM_NOTFOUND : fail(s, rc, "event by id");
    }
    done(s, st);
    return r;
}

int am__sqlite_event_part_put(am__store *b, const char *uid, int64_t rid, const am__entity_row *en,
                              const am__pii_row *p, const char *ctx)
{
    if (en) return am__sqlite_entity_put(b, uid, rid, en);
    if (p) return am__sqlite_pii_put(b, uid, rid, p);
    return ctx ? am__sqlite_event_ctx_append(b, uid, rid, ctx) : AM_MISUSE;
}

int am__sqlite_event_get(am__store *b, const char *uid, int by, const char *key, am__arena *ar,
                         am__event_row *out)
{
    if (by != AM__EVENT_BY_ID) *out = (am__event_row){0};
    switch (by) {
    case AM__EVENT_BY_ID: return event_by_id(b, uid, key, ar, out);
    case AM__EVENT_BY_TEXT: return event_by_text(SQ(b), uid, key, ar, out);
    case AM__EVENT_BY_CLIENT: return event_by_client(SQ(b), uid, key, ar, out);
    default: return AM_MISUSE;
    }
}

int am__sqlite_entity_counts(am__store *b, const char *uid, const char *type, int limit,
                             am__arena *ar, const char ***norms, long **counts, size_t *n)
{
    sq_store *s = SQ(b);
    *n = 0;
    *norms = NULL;
    *counts = NULL;
    if (limit <= 0) return AM_OK;
    sqlite3_stmt *st = stmt(s, "SELECT norm, count(*) AS c FROM entities WHERE user_id=?1 AND type=?2"
                               " GROUP BY norm ORDER BY c DESC, norm LIMIT ?3");
    if (!st) return AM_BACKEND;
    const char **nv = am__arena_alloc(ar, (size_t)limit * sizeof *nv);
    long *cv = am__arena_alloc(ar, (size_t)limit * sizeof *cv);
    if (!nv || !cv) {
        done(s, st);
        return AM_NOMEM;
    }
    sqlite3_bind_text(st, 1, uid, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, type, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, limit);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < (size_t)limit) {
        if (!(nv[*n] = col_text(ar, st, 0))) {
            done(s, st);
            return AM_NOMEM;
        }
        cv[(*n)++] = (long)sqlite3_column_int64(st, 1);
    }
    int out = rc == SQLITE_DONE || rc == SQLITE_ROW ? AM_OK : fail(s, rc, "entity counts");
    done(s, st);
    *norms = nv;
    *counts = cv;
    return out ? out : ar->oom ? AM_NOMEM : AM_OK; /* a text not copied */
}

/* store.h entities: the read its mode names. */
int am__sqlite_entities(am__store *b, const char *uid, const am__entity_read *q, am__arena *ar,
                        am__entity_out *out)
{
    switch (q->what) {
    case AM__ENT_OF_EVENT:
        return am__sqlite_entities_list(b, uid, q->event_rid, ar, &out->rows, &out->n);
    case AM__ENT_COUNTS:
        return am__sqlite_entity_counts(b, uid, q->type, q->limit, ar, &out->norms, &out->counts,
                                        &out->n);
    case AM__ENT_DATED: return am__sqlite_events_dated(b, uid, q->rids, q->n_rids, q->dated);
    case AM__ENT_PII:
        return am__sqlite_pii_events(b, uid, q->type, q->canon, q->to, q->limit, ar, &out->rids,
                                     &out->originals, &out->n);
    default: return AM_MISUSE;
    }
}
