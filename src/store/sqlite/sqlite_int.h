/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sqlite_int.h -- internals shared by the SQLite backend's files.
 *
 * The backend is split by concern: sqlite_store.c (the connection: open,
 * close, transactions, maintenance, the vtable), schema.c (the tables and
 * their migrations), users.c, events.c, vectors.c, search.c, tasks.c,
 * items.c, forget.c, audit.c.  Beside them: fts_tokenizer.c, fts_rank.c,
 * and the caches behind their own header, sq_caches.h (post_cache.c,
 * row_cache.c, vec_cache.c, item_memo.c, feed.c; caches.c decides when
 * what they hold stops being true).
 *
 * Every file works on one connection, sq_store (below), through the
 * statement helpers defined here (static inline: each file compiles them
 * as the single file did).  The vtable's functions are am__sqlite_<op>,
 * declared at the end by the file that defines them.
 */
#ifndef AM_STORE_SQLITE_INT_H
#define AM_STORE_SQLITE_INT_H

#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "store/store.h"
#include "store/vault.h"
#include "text/analyze.h"

/* A number macro (store.h's bounds) as SQL text. */
#define SQ_STR(x) #x
#define SQ_XSTR(x) SQ_STR(x)

/* Prefix (U+E000) marking a pre-tokenized FTS query term: see
 * fts_tokenizer.c. */
#define AM__FTS_VERBATIM "\xee\x80\x80"

/* U+E001: a doc or ctx value "U+E001 TAG U+E001 text" is indexed with
 * per-user terms TAG 0x1F token (fts_tokenizer.c). */
#define AM__FTS_TAG "\xee\x80\x81"
#define AM__FTS_TAG_SEP '\x1f'
#define AM__FTS_TAG_MAX 24

/* The FTS5 API of a connection (version >= 2), or NULL. */
fts5_api *am__sqlite_fts5(sqlite3 *db);

int am__sqlite_register_tokenizer(sqlite3 *db);

/* am_collect(events_fts, hits): every matching row's column lengths and
 * per-phrase counts gathered into the am__hits of an am__fts_hits (one
 * term a phrase), which postings hands over (search.c, fts_rank.c). */
#define AM__FTS_SCORED AM__SEARCH_COLS /* scored columns, from col0: doc, ctx */
/* Column lengths of recently scored rows (fts_rank.c); NULL: none. */
typedef struct am__fts_lens am__fts_lens;
am__fts_lens *am__fts_lens_new(const am__allocator *a);
void am__fts_lens_free(am__fts_lens *c);
void am__fts_lens_drop(am__fts_lens *c, int64_t rid); /* its index row changes */
void am__fts_lens_clear(am__fts_lens *c);             /* rows deleted, rollback, ... */
typedef struct am__fts_hits {
    am__hits h;         /* the rows (h.a set; h.n_terms set by the first row) */
    am__fts_lens *lens; /* lengths known, and learned; NULL: none */
    uint32_t lens_epoch; /* the searched user's (am__sqlite_lens_epoch) */
    int col0;           /* first scored column */
    int64_t n_row, total[AM__FTS_SCORED]; /* what h.avg was computed from */
} am__fts_hits;
int am__sqlite_register_collect(sqlite3 *db);

/* The scored columns' tokens per row from FTS5's averages record (row 1
 * of events_fts_data): 1, or 0 when p[0..n) is not a whole record. */
int am__fts_averages_parse(const unsigned char *p, size_t n, double avg[AM__FTS_SCORED]);

/* Column lengths of a row if known (1), for searches that do not scan it;
 * epoch: the row's user's lens epoch now (am__sqlite_lens_epoch), an
 * entry learned in another is not known. */
int am__fts_lens_get(const am__fts_lens *c, int64_t rid, uint32_t epoch,
                     uint32_t len[AM__FTS_SCORED]);
void am__fts_lens_set(am__fts_lens *c, int64_t rid, uint32_t epoch,
                      const uint32_t len[AM__FTS_SCORED]);

/* The index's tokens of a column value, as FTS5 indexes them (the same
 * tokenizer, fts_tokenizer.c): fn(ctx, tok, len) for each, the bare tag
 * of a tagged value first.  Returns AM_OK, AM_NOMEM or fn's non-zero. */
int am__fts_tokens(am__text *t, const char *text, size_t n,
                   int (*fn)(void *ctx, const char *tok, size_t len), void *ctx);

/* The caches a connection holds between statements, and when they are
 * dropped: sq_caches.h (docs/internals/sqlite-caches.md). */
#include "store/sqlite/sq_caches.h"
/* Integer dot product of two int8 vectors. */
int32_t am__dot_i8(const signed char *a, const signed char *b, int n);

/* ---------------------------------------------------------------- the connection */

#define STMT_CACHE 192

typedef struct sq_store {
    am__store base;
    sqlite3 *db;
    const am__allocator *a;
    char err[512];
    struct {
        const char *sql;
        sqlite3_stmt *st;
    } cache[STMT_CACHE];
    int n_cache;
    am__buf scratch;
    am__vcache *vc; /* vectors of recent users (vec_cache.c), or NULL */
    size_t vc_full_max; /* users with more vectors: cached as sign bits */
    am__fts_lens *lens;   /* index column lengths of scored rows, or NULL */
    am__rowcache *rows;   /* events rows searches returned, or NULL */
    am__post *post;       /* posting lists of searched terms, or NULL */
    am__text *ptext;      /* tokenizes written text for those lists */
    int64_t data_version; /* PRAGMA data_version those three were read at */
    /* per-user validity across connections (caches.c): the epoch seen
     * (-1: not known, or no store_changes), the users' seqs seen, and the
     * users the open write transaction wrote */
    int64_t epoch;
    struct am__seen *seen;
    struct am__item_memo *imemo; /* users' latest items (item_memo.c), or NULL */
    int no_memo;                 /* hold none (am__store_opts.no_lists) */
#define AM__TX_USERS 32 /* a server's group commit writes up to 32 users */
    char tx_uid[AM__TX_USERS][AM_ID_MAX + 1];
    int64_t tx_seq[AM__TX_USERS];
    int tx_n, tx_over;
    int search_depth;     /* searches begun, not ended yet */
    int search_own;       /* the outermost began a read transaction */
    int search_checked;   /* and the caches were checked in it */
    /* waiting for the write lock and resting after holding it (locking.c) */
    int busy_limit_ms;    /* give up after waiting this long */
    int busy_nowait;      /* this try gives up at once */
    int64_t busy_since;   /* the current wait began (monotonic us) */
    uint64_t jitter;      /* state of the back-off's jitter */
    int64_t taken_at, released_at, held_us; /* the write lock's last stretch */
    int64_t stretch_us;   /* holding before a rest (0: the shortest) */
    int rested;           /* rested before this BEGIN: was it used? */
    unsigned version_after; /* the file's data version after our last write */
    int has_vault_key;    /* PII originals sealed with vault_key (vault.c) */
    unsigned char vault_key[32];
    /* memory events (outbox.c): the seqs the open transaction wrote, and
     * those committed and not yet reported by log_page (neither row) */
    int64_t ob_lo, ob_hi, ob_done_lo, ob_done_hi;
    int64_t ob_max_rows;  /* retention (0: no bound) */
    am_time ob_max_age_ms;
    /* the vault's value hashes (pii_index.c): sealed rows' key, derived
     * from vault_key at open; plain rows' key, meta('pii_key') read once */
    int has_index_key, has_pii_key;
    unsigned char index_key[32], pii_key[32];
    /* meta('forget_key'), read once (forget.c: pseudonyms, opaque ids) */
    size_t forget_key_n;
    unsigned char forget_key[64];
    /* index rows the open write transaction wrote, inserted into events_fts
     * just before it commits (events.c: am__sqlite_fts_flush) */
    struct sq_fts_row *fts_rows;
    size_t fts_n, fts_cap;
    /* the other connections of this file in the process, told what each
     * commit changed (feed.c), and the open transaction's capture */
    struct am__feed *feed;
    struct sq_feed_tx *ftx;
    /* the file not memory-mapped now: other connections of this process
     * have it open (sqlite_store.c map_fit) */
    int unmapped;
} sq_store;

#define SQ(s) ((sq_store *)(s))

/* The write lock (locking.c): the busy handler with its limit, installed
 * at open; write_rest before taking the lock (a connection that held it
 * long lets waiters have it first), write_taken / write_released around
 * holding it. */
int64_t am__sqlite_clock_us(void);
void am__sqlite_busy_init(sq_store *s, int limit_ms);
int am__sqlite_exec_waiting(sq_store *s, const char *sql, const char *what);
void am__sqlite_write_rest(sq_store *s);
void am__sqlite_write_taken(sq_store *s);
void am__sqlite_write_released(sq_store *s);
/* ---------------------------------------------------------------- vault.c */

/* (sealing and opening: store/vault.h) */
/* Inside the caller's transaction: with seal (and a key), seal every
 * plaintext original (an upgrade to a key); and give the rows without a
 * value hash theirs where this connection can (pii_index.c).  *sealed,
 * *hashed = how many. */
int am__sqlite_vault_upkeep(sq_store *s, int seal, long *sealed, long *hashed);

/* ---------------------------------------------------------------- pii_index.c */

/* s->index_key from s->vault_key (at open; none without a vault key). */
void am__sqlite_pii_index_key(sq_store *s);
/* *out = the keyed hash of a canonical value of (uid, type): the key of a
 * sealed row (AM_DENIED without a vault key) or of a plain one. */
int am__sqlite_pii_hash(sq_store *s, const char *uid, const char *type, const char *canon,
                        int sealed, int64_t *out);
/* The same for a value as written (canonicalised first). */
int am__sqlite_pii_value_hash(sq_store *s, const char *uid, const char *type, const char *value,
                              int sealed, int64_t *out);


/* ---------------------------------------------------------------- events.c: deferred index rows */

/* A write transaction's events_fts rows wait in memory until its commit
 * (or until a statement of events_fts runs: stmt() and exec() flush them
 * first), and context appended to a waiting row joins it there.  FTS5
 * flushes its pending terms to a new segment of the index at every
 * statement savepoint -- each statement in the transaction with a
 * statement journal (an insert into events with its trigger is one) --
 * so rows inserted as they come cost one segment (and its merges later)
 * per event; inserted at the end, one per transaction.  Nothing reads
 * events_fts inside a write transaction but through those two helpers
 * and the searches (which flush at their start).  The rows are dropped
 * with the transaction (the rollback hook, set at open). */
int am__sqlite_fts_flush(sq_store *s);
void am__sqlite_fts_discard(sq_store *s);
void am__sqlite_fts_rollback_hook(void *ctx); /* ctx: the sq_store */

static inline int fts_touches(const sq_store *s, const char *sql)
{
    return s->fts_n && strstr(sql, "events_fts") != NULL;
}

/* ---------------------------------------------------------------- statement helpers */

static inline int map_rc(sq_store *s, int rc)
{
    switch (rc & 0xff) {
    case SQLITE_OK: case SQLITE_DONE: case SQLITE_ROW: return AM_OK;
    case SQLITE_NOMEM: return AM_NOMEM;
    case SQLITE_BUSY: case SQLITE_LOCKED: return AM_BUSY;
    case SQLITE_IOERR: case SQLITE_CANTOPEN: case SQLITE_FULL:
    case SQLITE_READONLY: case SQLITE_PERM: return AM_IO;
    case SQLITE_CORRUPT: case SQLITE_NOTADB: return AM_CORRUPT;
    case SQLITE_TOOBIG: return AM_TOOBIG;
    case SQLITE_CONSTRAINT: return AM_INVALID;
    default: (void)s; return AM_BACKEND;
    }
}

static inline int fail(sq_store *s, int rc, const char *what)
{
    snprintf(s->err, sizeof s->err, "sqlite: %s: %s", what,
             sqlite3_errmsg(s->db));
    return map_rc(s, rc);
}

/* Prepared statements are cached by the address of their SQL literal. */
static inline sqlite3_stmt *stmt(sq_store *s, const char *sql)
{
    if (fts_touches(s, sql) && am__sqlite_fts_flush(s)) return NULL;
    for (int i = 0; i < s->n_cache; i++)
        if (s->cache[i].sql == sql) {
            sqlite3_reset(s->cache[i].st);
            sqlite3_clear_bindings(s->cache[i].st);
            return s->cache[i].st;
        }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(s->err, sizeof s->err, "sqlite: prepare: %s",
                 sqlite3_errmsg(s->db));
        return NULL;
    }
    if (s->n_cache < STMT_CACHE) {
        s->cache[s->n_cache].sql = sql;
        s->cache[s->n_cache].st = st;
        s->n_cache++;
    }
    return st;
}

/* Statements beyond the cache are finalized by done(). */
static inline void done(sq_store *s, sqlite3_stmt *st)
{
    for (int i = 0; i < s->n_cache; i++)
        if (s->cache[i].st == st) {
            sqlite3_reset(st);
            return;
        }
    sqlite3_finalize(st);
}

static inline void bind_text(sqlite3_stmt *st, int i, const char *v)
{
    if (v) sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
    else sqlite3_bind_null(st, i);
}

static inline void bind_time(sqlite3_stmt *st, int i, am_time t)
{
    if (t == AM_TIME_NONE) sqlite3_bind_null(st, i);
    else sqlite3_bind_int64(st, i, t);
}

static inline const char *col_text(am__arena *ar, sqlite3_stmt *st, int i)
{
    const unsigned char *v = sqlite3_column_text(st, i);
    if (!v) return NULL;
    return am__arena_strndup(ar, (const char *)v,
                             (size_t)sqlite3_column_bytes(st, i));
}

static inline am_time col_time(sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) == SQLITE_NULL) return AM_TIME_NONE;
    return sqlite3_column_int64(st, i);
}

/* Run a statement to completion. */
static inline int run(sq_store *s, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    int out = (rc == SQLITE_DONE || rc == SQLITE_ROW) ? AM_OK
                                                      : fail(s, rc, what);
    done(s, st);
    return out;
}

/* Step a statement once: column 0 of its row into out (cap bytes),
 * AM_OK; AM_NOTFOUND when it has no row; the statement is done after. */
static inline int first_text(sq_store *s, sqlite3_stmt *st, char *out, size_t cap,
                             const char *what)
{
    int rc = sqlite3_step(st), r;
    if (rc == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(st, 0);
        snprintf(out, cap, "%s", v ? (const char *)v : "");
        r = AM_OK;
    } else {
        r = rc == SQLITE_DONE ? AM_NOTFOUND : fail(s, rc, what);
    }
    done(s, st);
    return r;
}

static inline int exec(sq_store *s, const char *sql, const char *what)
{
    if (fts_touches(s, sql) && am__sqlite_fts_flush(s)) return AM_BACKEND;
    char *msg = NULL;
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        snprintf(s->err, sizeof s->err, "sqlite: %s: %s", what,
                 msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        return map_rc(s, rc);
    }
    return AM_OK;
}

/* Grow an arena array by one element. */
static inline void *push(am__arena *ar, void **arr, size_t *n, size_t *cap,
                  size_t elem)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        void *na = am__arena_take(ar, nc * elem);
        if (!na) return NULL;
        if (*n) memcpy(na, *arr, *n * elem);
        *arr = na;
        *cap = nc;
    }
    void *e = (char *)*arr + (*n)++ * elem;
    memset(e, 0, elem); /* (only the element handed out is zeroed) */
    return e;
}

/* The per-user FTS token: a decimal hash, so the tokenizer keeps it whole. */
static inline void uid_token(const char *uid, char out[32], int verbatim)
{
    uint64_t h = am__hash64(uid, strlen(uid)) >> 1;
    snprintf(out, 32, "%s%" PRIu64, verbatim ? AM__FTS_VERBATIM : "", h);
}

/* A read that must see one snapshot throughout: in the caller's
 * transaction if there is one, else in a read transaction of its own. */
static inline int snapshot_begin(sq_store *s, int *own_txn, const char *what)
{
    *own_txn = sqlite3_get_autocommit(s->db);
    return *own_txn ? exec(s, "BEGIN", what) : AM_OK;
}

static inline int snapshot_end(sq_store *s, int own_txn, int rc, const char *what)
{
    if (!own_txn) return rc;
    if (rc == AM_OK) rc = exec(s, "COMMIT", what);
    if (rc != AM_OK && !sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

#define EVENT_COLS "e.rid, e.id, e.user_id, e.agent_id, e.session_id, e.task_id, e.channel, e.source, e.type, e.content, e.domain, e.intent, e.lang, e.occurred_at, e.ingested_at, e.tz_minutes, e.tokens, e.metadata"
#define EVENT_NCOLS 18 /* a statement's columns after EVENT_COLS start here */

static inline void read_event(am__arena *ar, sqlite3_stmt *st, am__event_row *e)
{
    e->rid = sqlite3_column_int64(st, 0);
    e->id = col_text(ar, st, 1);
    e->user_id = col_text(ar, st, 2);
    e->agent_id = col_text(ar, st, 3);
    e->session_id = col_text(ar, st, 4);
    e->task_id = col_text(ar, st, 5);
    e->channel = col_text(ar, st, 6);
    e->source = col_text(ar, st, 7);
    e->type = col_text(ar, st, 8);
    e->content = col_text(ar, st, 9);
    e->domain = col_text(ar, st, 10);
    e->intent = col_text(ar, st, 11);
    e->lang = col_text(ar, st, 12);
    e->occurred_at = col_time(st, 13);
    e->ingested_at = col_time(st, 14);
    e->tz_minutes = sqlite3_column_int(st, 15);
    e->index_doc = e->index_ctx = NULL; /* (every field: e need not be zeroed) */
    e->tokens = NULL;
    e->tokens_len = 0;
    e->score = 0;
    e->client_id = NULL;
    e->client_hash = 0;
    e->metadata = col_text(ar, st, 17);
}

/* The row's token blob (column 16 of EVENT_COLS) into e, copied to ar
 * (no memory: ar->oom, which every caller checks). */
static inline void read_event_tokens(am__arena *ar, sqlite3_stmt *st, am__event_row *e)
{
    const void *tb = sqlite3_column_blob(st, 16);
    int tl = sqlite3_column_bytes(st, 16);
    unsigned char *copy = tb && tl > 0 ? am__arena_take(ar, (size_t)tl) : NULL;
    if (copy) {
        memcpy(copy, tb, (size_t)tl);
        e->tokens = copy;
        e->tokens_len = (size_t)tl;
    }
}

typedef int (*item_tokens_fn)(void *ctx, const char *text, const char *key, unsigned char *blob,
                              size_t *len);

/* ---------------------------------------------------------------- the backend's files
 *
 * The vtable's operations (store.h) are am__sqlite_<op>; the others are
 * shared between two files. */

/* schema.c: the schema version of the open file (0: empty, -1: not a
 * store), the migration to AM__SCHEMA_VERSION, the index's analyzer. */
int am__sqlite_schema_version(sq_store *s, int *version);
int am__sqlite_migrate(sq_store *s, int from);
/* The hex value of meta(name) decoded into key[0..cap): *n bytes (0 when
 * it is missing or not hex). */
int am__sqlite_meta_key(sq_store *s, const char *name, unsigned char *key, size_t cap, size_t *n);
int am__sqlite_fts_analyzer_sync(sq_store *s);

/* users.c */
int am__sqlite_user_put(am__store *b, const char *uid, const char *ch, const char *ext,
                        am_time now);
int am__sqlite_user_exists(am__store *b, const char *uid);
int am__sqlite_users_list(am__store *b, const am__user_query *q, am__arena *ar, const char ***uids,
                          size_t *n);
int am__sqlite_users_after(am__store *b, const char *after, int limit, am__arena *ar,
                           const char ***uids, size_t *n);
int am__sqlite_user_stat(am__store *b, const char *uid, long counts[3]);
int am__sqlite_link_put(am__store *b, const char *ch, const char *ext, const char *uid,
                        am_time now);
int am__sqlite_link_get(am__store *b, const char *ch, const char *ext, int by, char *out);
int am__sqlite_user_merge(am__store *b, const char *from, const char *to);
int am__sqlite_links_list(am__store *b, const char *uid, am__arena *ar,
                          am__link_row **rows, size_t *n);

/* events.c */
int am__sqlite_event_put(am__store *b, am__event_row *e);
int am__sqlite_event_ctx_append(am__store *b, const char *uid, int64_t rid,
                                const char *text);
int am__sqlite_event_part_put(am__store *b, const char *uid, int64_t rid, const am__entity_row *en,
                              const am__pii_row *p, const char *ctx);
int am__sqlite_entity_put(am__store *b, const char *uid, int64_t rid,
                          const am__entity_row *en);
int am__sqlite_pii_put(am__store *b, const char *uid, int64_t rid,
                       const am__pii_row *p);
int am__sqlite_event_get(am__store *b, const char *uid, int by, const char *key, am__arena *ar,
                         am__event_row *out);
int am__sqlite_events_scan(am__store *b, const char *uid, const am__event_scan *q, am__arena *ar,
                           am__event_row **rows, size_t *n);
int am__sqlite_events_recent(am__store *b, const char *uid, const char *session,
                             const char *task, am_time before, int limit,
                             am__arena *ar, am__event_row **rows, size_t *n);
int am__sqlite_pii_events(am__store *b, const char *uid, const char *type, const char *canon,
                          am_time to, int limit, am__arena *ar, int64_t **rids,
                          const char ***originals, size_t *n);
int am__sqlite_events_dated(am__store *b, const char *uid, const int64_t *rids, size_t n,
                            unsigned char *dated);
int am__sqlite_entities(am__store *b, const char *uid, const am__entity_read *q, am__arena *ar,
                        am__entity_out *out);
int am__sqlite_entities_list(am__store *b, const char *uid, int64_t rid,
                             am__arena *ar, am__entity_row **rows, size_t *n);
int am__sqlite_entity_counts(am__store *b, const char *uid, const char *type, int limit,
                             am__arena *ar, const char ***norms, long **counts, size_t *n);

/* vectors.c (and am__sqlite_vec_each, above): packing every tail that
 * holds a block and the sign bits of blocks without them (migrations,
 * optimize), cutting forgotten vectors out of their blocks (forget). */
int am__sqlite_vec_bits_fill(sq_store *s);
int am__sqlite_vec_pack_all(sq_store *s);
int am__sqlite_vec_forget_packed(sq_store *s, const char *uid);
/* The held copies (held_event_vectors, job) of packed vectors get their
 * values from their blocks (a forget with a grace period, before
 * am__sqlite_vec_forget_packed cuts them out). */
int am__sqlite_vec_hold_packed(sq_store *s, int64_t job);
int am__sqlite_vec_put(am__store *b, const char *uid, int64_t rid, const char *embedder,
                       const float *v, int dim);
int am__sqlite_vec_scan(am__store *b, const char *uid, const char *embedder, const float *qv,
                        int dim, am_time to, int limit, int exact_max, am__arena *ar,
                        am__event_row **rows, size_t *n);
int am__sqlite_vec_missing(am__store *b, const char *uid, const am__vec_want *want,
                           int64_t after_rid, int64_t upto_rid, int limit, am__arena *ar,
                           am__event_row **rows, size_t *n, int64_t *max_rid);
/* search.c: am__sqlite_rows_read reads the rows of rids[0..k) (rows_get,
 * and the vector scan's hits): from the row cache when it holds them (a
 * row held of another user is not one of this user's), the others by one
 * statement, kept in the cache when keep is set;
 * found[j] = 1 for each read, else 0.  In the caller's snapshot. */
int am__sqlite_rows_read(sq_store *s, const char *uid, const int64_t *rids, size_t k,
                         am__arena *ar, am__event_row *batch, unsigned char *found, int keep);
int am__sqlite_user_rows(am__store *b, const char *uid, int64_t *n);
int am__sqlite_term_docs(am__store *b, const char *uid, const char *const *terms, size_t n_terms,
                         double *df, int64_t *n_rows);
int am__sqlite_postings(am__store *b, const char *uid, const char *const *terms, size_t n_terms,
                        am_time from, am_time to, int64_t n_rows, am__arena *ar, am__hits *out,
                        double *df);
int am__sqlite_rows_get(am__store *b, const char *uid, const int64_t *rids, size_t n,
                        am__arena *ar, am__event_row *rows, unsigned char *found);

/* cold.c: archived events (store.h cold_*) */
int am__sqlite_cold_candidates(am__store *b, const char *uid, am_time before, am_time from_at,
                               int64_t from_rid, int limit, am__arena *ar, am__event_row **rows,
                               size_t *n);
int am__sqlite_cold_put(am__store *b, const char *uid, const am__cold_op *op, long *restored);
int am__sqlite_cold_fill(am__store *b, const char *uid, am__event_row *rows, size_t n,
                         am__arena *ar, size_t *filled);

/* sqlite_store.c: the size of the connection's memory map as SQLite has
 * it now (PRAGMA mmap_size), or -1 (for tests) */
long long am__sqlite_map_size(am__store *b);

/* tasks.c */
int am__sqlite_task_put(am__store *b, const char *uid, const am__task_row *t);
int am__sqlite_task_log(am__store *b, const char *uid, const am__task_change_row *add,
                        const char *task_id, am__arena *ar, am__task_change_row **rows, size_t *n);
int am__sqlite_tasks_list(am__store *b, const char *uid, const char *task_id, int open_only,
                          int limit, am__arena *ar, am__task_row **rows, size_t *n);
/* items.c: am__sqlite_item_tokens_set also renews the token sets when the
 * analyzer changes (schema.c). */
int am__sqlite_item_insert(am__store *b, const char *uid, am__item_row *it);
int am__sqlite_events_page(am__store *b, const char *uid, am_time after_at, int64_t after_rid,
                           int limit, am__arena *ar, am__event_row **rows, size_t *n);
int am__sqlite_events_before(am__store *b, const char *uid, const char *session, am_time before_at,
                             int64_t before_rid, am_time from, int limit, am__arena *ar,
                             am__event_row **rows, size_t *n);
int am__sqlite_audit_page(am__store *b, const char *uid, int64_t after_seq, int limit,
                          am__arena *ar, am__audit_row **rows, size_t *n);
/* workspace.c */
int am__sqlite_events_access(am__store *b, const char *uid, am__arena *ar, am__event_row **rows,
                             size_t *n);
int am__sqlite_workspace_list(am__store *b, const char *uid, const char *task_id, am__arena *ar,
                              am__workspace_row **rows, size_t *n);
int am__sqlite_workspace_put(am__store *b, const char *uid, const char *task_id,
                             const am__workspace_row *w, int how, am_time at, long *version);
/* packs.c: the users a rule pack applies to */
int am__sqlite_pack_users(am__store *b, const char *role, const char *region, const char *channel,
                          am__arena *ar, const char ***uids, size_t *n);
/* forget.c: the store's keyed hashes and tag (store.h control, AM__CTL_KEY_HASH), and the SQL
 * functions am_key_id(uid, scope, key) and am_object_ref(level, uid, id)
 * over it (the migrations' conversion of stored keys and ids) */
int am__sqlite_key_hash(am__store *b, const char *const *parts, size_t n, unsigned char out[32]);
int am__sqlite_register_ids(sq_store *s);
int am__sqlite_item_update(am__store *b, const char *uid, const char *vid, int64_t item_rid,
                           const char *event_id, am_time at);
int am__sqlite_item_sources(am__store *b, const char *uid, int64_t item_rid, am__arena *ar,
                            const char ***ids, size_t *n);
int am__sqlite_items_list(am__store *b, const char *uid, int which, am_time at,
                          am__arena *ar, am__item_row **rows, size_t *n);
int am__sqlite_item_heat(am__store *b, const char *uid, const char *lineage, int add, long hits,
                         am_time at);
int am__sqlite_item_tokens_set(sq_store *s, const char *select, item_tokens_fn fn, void *ctx,
                               size_t *n);
int am__sqlite_item_tokens_fill(am__store *b, item_tokens_fn fn, void *ctx, size_t *n);

/* forget.c */
int am__sqlite_forget_mark(am__store *b, const char *uid, const am__forget_sel *sel, am__arena *ar,
                           am__forget_marked *out);
int am__sqlite_forget_delete(am__store *b, const char *uid, const am__forget_del *d,
                             am__forget_gone *out);
int am__sqlite_forget_step(am__store *b, const am__fjob_due *job, am_time now);
int am__sqlite_forget_scrub(am__store *b, am__ctl_scrub *sc);
int am__sqlite_forget_grace(am__store *b, const char *uid, int level, const char *id, am_time now,
                            am_time purge_at, am__forget_gone *out);
int am__sqlite_restore_forget(am__store *b, const char *uid, int64_t job, am_time at, long *events);
int am__sqlite_forget_jobs(am__store *b, const am__fjob_op *op, am__arena *ar, am__fjob_row **rows,
                           size_t *n);

/* held.c: rows of a forget in its grace period.  held_copy: the rows of
 * table WHERE where (?1 uid, ?2 id) into held_<table> under job; held_back:
 * job's held rows back into table, column c from expression expr (over
 * the held row h) where ov names it; held_drop: up to limit (0: all) held
 * rows of job (uid NULL) or of a user. */
typedef struct am__held_expr {
    const char *column, *expr;
} am__held_expr;
int am__sqlite_held_copy(sq_store *s, const char *table, const char *where, const char *uid,
                         const char *id, int64_t job);
int am__sqlite_held_back(sq_store *s, const char *table, int64_t job, const am__held_expr *ov,
                         size_t n_ov, int or_ignore, long *changes);
int am__sqlite_held_drop(sq_store *s, int64_t job, const char *uid, long limit, long *dropped);

/* outbox.c; the transaction's bounds: txn_begin at begin, txn_end at
 * commit (committed 1) or rollback (0) */
int am__sqlite_outbox_put(am__store *b, am__outbox_row *r);
int am__sqlite_outbox_since(am__store *b, const char *uid, int64_t after, size_t limit,
                            am__arena *ar, am__outbox_row **rows, size_t *n, int64_t *oldest);
void am__sqlite_outbox_committed(am__store *b, int64_t *lo, int64_t *hi);
int am__sqlite_outbox_trim(am__store *b, am_time before, int64_t max_rows, int limit);
void am__sqlite_outbox_txn_begin(sq_store *s);
void am__sqlite_outbox_txn_end(sq_store *s, int committed);
/* rows events the last INSERT ... SELECT into memory_events wrote */
void am__sqlite_outbox_note(sq_store *s, int64_t rows);

/* records.c */
int am__sqlite_rec_put(am__store *b, const char *uid, const char *ns, const char *key,
                       const char *value, am_time expires_at);
int am__sqlite_rec_list(am__store *b, const char *uid, const char *ns, const char *key,
                        int prefix, am_time now, am__arena *ar, am__rec_row **rows, size_t *n);
int am__sqlite_rec_del(am__store *b, const char *uid, const char *ns, const char *key, int prefix,
                       am_time expired_at, long *n);

/* audit.c */
int am__sqlite_log_put(am__store *b, const char *uid, const am__audit_row *a, am__outbox_row *o);
int am__sqlite_log_page(am__store *b, const char *uid, int64_t after, size_t limit, am__arena *ar,
                        am__audit_row **audit, am__outbox_row **outbox, size_t *n, int64_t *seqs);
int am__sqlite_audit(am__store *b, const char *uid, am_time at, const char *op,
                     const char *otype, const char *oid, const char *detail);

#endif
