/*
 * sqlite_store.c -- the embedded store (DESIGN F30): one SQLite file in WAL
 * mode, FTS5 with our am_cjk tokenizer for lexical recall.
 *
 * Isolation: every statement below that reads or writes user data has
 * "user_id = ?" bound from the uid argument; FTS rows carry a per-user
 * token in their `uid` column and every MATCH requires it, then rows are
 * joined back to `events` and filtered by user_id again.
 *
 * Schema versions: meta('schema_version') records the version.  Opening a
 * file with a newer version fails with AM_NEWER; an older one is migrated
 * in one transaction (migrations[] below).
 */
#include <inttypes.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/sqlite/sqlite_int.h"

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
} sq_store;

#define SQ(s) ((sq_store *)(s))

/* ------------------------------------------------------------ schema */

static const char *const migrations[] = {
    /* version 1 */
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE users(user_id TEXT PRIMARY KEY, created_at INTEGER NOT NULL);"
    "CREATE TABLE identity_links(channel TEXT NOT NULL, external_id TEXT NOT NULL,"
    "  user_id TEXT NOT NULL, created_at INTEGER NOT NULL,"
    "  PRIMARY KEY(channel, external_id));"
    "CREATE INDEX identity_links_user ON identity_links(user_id);"
    "CREATE TABLE events(rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,"
    "  user_id TEXT NOT NULL, agent_id TEXT, session_id TEXT, task_id TEXT,"
    "  channel TEXT, source TEXT NOT NULL, type TEXT NOT NULL,"
    "  content TEXT NOT NULL, domain TEXT, intent TEXT, lang TEXT,"
    "  occurred_at INTEGER NOT NULL, tz_minutes INTEGER NOT NULL,"
    "  ingested_at INTEGER NOT NULL, status TEXT NOT NULL DEFAULT 'live');"
    "CREATE INDEX events_user_time ON events(user_id, occurred_at);"
    "CREATE INDEX events_user_session ON events(user_id, session_id, occurred_at);"
    "CREATE INDEX events_user_task ON events(user_id, task_id, occurred_at);"
    /* doc: the event's text + entities; ctx: the turns around it in its
     * session (weighted lower).  One row per event makes the row a
     * passage, which measured better on LoCoMo than a separate context
     * table with its own document frequencies. */
    "CREATE VIRTUAL TABLE events_fts USING fts5(uid, doc, ctx, tokenize='am_cjk');"
    "CREATE TABLE event_vectors(event_rid INTEGER PRIMARY KEY, user_id TEXT NOT NULL,"
    "  embedder TEXT NOT NULL, dim INTEGER NOT NULL, scale REAL NOT NULL, vec BLOB NOT NULL);"
    "CREATE INDEX event_vectors_user ON event_vectors(user_id, embedder);"
    "CREATE TABLE entities(event_rid INTEGER NOT NULL, user_id TEXT NOT NULL,"
    "  type TEXT NOT NULL, surface TEXT NOT NULL, norm TEXT NOT NULL,"
    "  t_from INTEGER, t_to INTEGER);"
    "CREATE INDEX entities_event ON entities(event_rid);"
    "CREATE INDEX entities_user ON entities(user_id, type, norm);"
    "CREATE TABLE pii_vault(user_id TEXT NOT NULL, event_rid INTEGER NOT NULL,"
    "  placeholder TEXT NOT NULL, type TEXT NOT NULL, original TEXT NOT NULL);"
    "CREATE INDEX pii_vault_event ON pii_vault(event_rid);"
    "CREATE TABLE tasks(user_id TEXT NOT NULL, task_id TEXT NOT NULL,"
    "  name TEXT NOT NULL, stage TEXT, status TEXT NOT NULL,"
    "  artifacts TEXT NOT NULL DEFAULT '[]', pending TEXT NOT NULL DEFAULT '[]',"
    "  notes TEXT NOT NULL DEFAULT '[]', created_at INTEGER NOT NULL,"
    "  updated_at INTEGER NOT NULL, PRIMARY KEY(user_id, task_id));"
    "CREATE TABLE task_history(seq INTEGER PRIMARY KEY, user_id TEXT NOT NULL,"
    "  task_id TEXT NOT NULL, at INTEGER NOT NULL, field TEXT NOT NULL,"
    "  old_value TEXT, new_value TEXT, event_id TEXT);"
    "CREATE INDEX task_history_task ON task_history(user_id, task_id);"
    "CREATE TABLE memory_items(rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,"
    "  lineage_id TEXT NOT NULL, user_id TEXT NOT NULL, scope TEXT NOT NULL,"
    "  kind TEXT NOT NULL, key TEXT NOT NULL, text TEXT NOT NULL,"
    "  value_json TEXT NOT NULL, confidence REAL NOT NULL,"
    "  base_score REAL NOT NULL, half_life_days REAL NOT NULL,"
    "  valid_from INTEGER NOT NULL, valid_to INTEGER,"
    "  recorded_at INTEGER NOT NULL, superseded_at INTEGER,"
    "  status TEXT NOT NULL);"
    "CREATE INDEX memory_items_user ON memory_items(user_id, superseded_at);"
    "CREATE INDEX memory_items_lineage ON memory_items(user_id, lineage_id);"
    "CREATE TABLE item_sources(item_rid INTEGER NOT NULL, user_id TEXT NOT NULL,"
    "  event_id TEXT NOT NULL, PRIMARY KEY(item_rid, event_id));"
    "CREATE INDEX item_sources_event ON item_sources(user_id, event_id);"
    "CREATE TABLE item_heat(user_id TEXT NOT NULL, lineage_id TEXT NOT NULL,"
    "  hits INTEGER NOT NULL, last_access INTEGER,"
    "  PRIMARY KEY(user_id, lineage_id));"
    "CREATE TABLE tombstones(seq INTEGER PRIMARY KEY, user_id TEXT NOT NULL,"
    "  level TEXT NOT NULL, object_id TEXT NOT NULL, at INTEGER NOT NULL);"
    "CREATE TABLE audit_log(seq INTEGER PRIMARY KEY, at INTEGER NOT NULL,"
    "  user_id TEXT NOT NULL, op TEXT NOT NULL, object_type TEXT NOT NULL,"
    "  object_id TEXT, detail TEXT);"
    "CREATE INDEX audit_log_user ON audit_log(user_id);"
    /* The audit log is append-only: the engine never updates or deletes
     * rows, except to pseudonymise a forgotten user (see forget). */
    "CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log"
    "  BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;",
    /* version 2: per-user index terms (fts_tokenizer.c): every doc and ctx
     * value starts with U+E001 <user token> U+E001; re-indexes them. */
    "UPDATE events_fts SET doc = '" AM__FTS_TAG "' || uid || '" AM__FTS_TAG "' || doc,"
    "  ctx = '" AM__FTS_TAG "' || uid || '" AM__FTS_TAG "' || ctx;",
    /* version 3: vectors clustered by user (a scan reads one user's rows,
     * contiguous, instead of one scattered table row per event); still
     * one vector per event (unique event_rid: a new one replaces it). */
    "CREATE TABLE event_vectors_v3(user_id TEXT NOT NULL, embedder TEXT NOT NULL,"
    "  event_rid INTEGER NOT NULL, dim INTEGER NOT NULL, scale REAL NOT NULL, vec BLOB NOT NULL,"
    "  PRIMARY KEY(user_id, embedder, event_rid)) WITHOUT ROWID;"
    "INSERT INTO event_vectors_v3(user_id, embedder, event_rid, dim, scale, vec)"
    "  SELECT user_id, embedder, event_rid, dim, scale, vec FROM event_vectors;"
    "DROP TABLE event_vectors;"
    "ALTER TABLE event_vectors_v3 RENAME TO event_vectors;"
    "CREATE UNIQUE INDEX event_vectors_event ON event_vectors(event_rid);",
    /* version 4: each user's number of events, kept by the write and
     * forget paths, so a search knows N without walking a doclist of the
     * user's whole history */
    ("ALTER TABLE users ADD COLUMN n_events INTEGER NOT NULL DEFAULT 0;"
     "UPDATE users SET n_events = (SELECT count(*) FROM events e WHERE e.user_id = users.user_id);"),
    /* version 5: vectors packed VEC_BLOCK to a row (vector_blocks), so a
     * user's first scan reads a row per block, not per event.  An
     * event_vectors row stays per event (one vector per event, the
     * re-embedding joins); a packed one has an empty vec and the block
     * that holds it; the tail (block NULL, vec set) is what is not packed
     * yet.  Existing vectors are packed after this (vec_pack_all). */
    "ALTER TABLE event_vectors ADD COLUMN block INTEGER;"
    "CREATE TABLE vector_blocks(block INTEGER PRIMARY KEY, user_id TEXT NOT NULL,"
    "  embedder TEXT NOT NULL, dim INTEGER NOT NULL, n INTEGER NOT NULL,"
    "  rids BLOB NOT NULL, scales BLOB NOT NULL, vecs BLOB NOT NULL);"
    "CREATE INDEX vector_blocks_user ON vector_blocks(user_id, embedder, dim);"
    "CREATE INDEX event_vectors_tail ON event_vectors(user_id, embedder, dim) WHERE block IS NULL;",
    /* version 6: each block's sign bits (1 bit a component, n x
     * ceil(dim / 8) bytes), so the first scan of a user with many vectors
     * reads an eighth of their bytes (vec_scan_bits); gone with their
     * block.  Filled for existing blocks after this (vec_bits_fill). */
    "CREATE TABLE vector_bits(block INTEGER PRIMARY KEY, bits BLOB NOT NULL);"
    "CREATE TRIGGER vector_blocks_bits AFTER DELETE ON vector_blocks"
    "  BEGIN DELETE FROM vector_bits WHERE block = old.block; END;",
    /* version 7: each item version's token set, computed when it is
     * written (a recall ranks a user's items without tokenizing them);
     * NULL for versions written before: computed at read */
    "ALTER TABLE memory_items ADD COLUMN tokens BLOB;",
    /* version 8: a user's vault by type (a recall naming a phone number
     * or an e-mail address finds the events that held it) */
    "CREATE INDEX IF NOT EXISTS pii_vault_user ON pii_vault(user_id, type);",
    /* version 9: the index records the analyzer that wrote it
     * (fts_analyzer_sync, right after the migrations, rebuilds an index of
     * an unknown one); a build before it, which would write its own
     * tokens into the index without saying so, refuses the store */
    "INSERT OR IGNORE INTO meta(key, value) VALUES('fts_analyzer', '0');",
};
#define N_MIGRATIONS (int)(sizeof migrations / sizeof *migrations)

/* ------------------------------------------------------------ helpers */

static int map_rc(sq_store *s, int rc)
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

static int fail(sq_store *s, int rc, const char *what)
{
    snprintf(s->err, sizeof s->err, "sqlite: %s: %s", what,
             sqlite3_errmsg(s->db));
    return map_rc(s, rc);
}

/* Prepared statements are cached by the address of their SQL literal. */
static sqlite3_stmt *stmt(sq_store *s, const char *sql)
{
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
static void done(sq_store *s, sqlite3_stmt *st)
{
    for (int i = 0; i < s->n_cache; i++)
        if (s->cache[i].st == st) {
            sqlite3_reset(st);
            return;
        }
    sqlite3_finalize(st);
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
    if (v) sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
    else sqlite3_bind_null(st, i);
}

static void bind_time(sqlite3_stmt *st, int i, am_time t)
{
    if (t == AM_TIME_NONE) sqlite3_bind_null(st, i);
    else sqlite3_bind_int64(st, i, t);
}

static const char *col_text(am__arena *ar, sqlite3_stmt *st, int i)
{
    const unsigned char *v = sqlite3_column_text(st, i);
    if (!v) return NULL;
    return am__arena_strndup(ar, (const char *)v,
                             (size_t)sqlite3_column_bytes(st, i));
}

static am_time col_time(sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) == SQLITE_NULL) return AM_TIME_NONE;
    return sqlite3_column_int64(st, i);
}

/* Run a statement to completion. */
static int run(sq_store *s, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    int out = (rc == SQLITE_DONE || rc == SQLITE_ROW) ? AM_OK
                                                      : fail(s, rc, what);
    done(s, st);
    return out;
}

static int exec(sq_store *s, const char *sql, const char *what)
{
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
static void *push(am__arena *ar, void **arr, size_t *n, size_t *cap,
                  size_t elem)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        void *na = am__arena_alloc(ar, nc * elem);
        if (!na) return NULL;
        if (*n) memcpy(na, *arr, *n * elem);
        *arr = na;
        *cap = nc;
    }
    return (char *)*arr + (*n)++ * elem;
}

/* The per-user FTS token: a decimal hash, so the tokenizer keeps it whole. */
static void uid_token(const char *uid, char out[32], int verbatim)
{
    uint64_t h = am__hash64(uid, strlen(uid)) >> 1;
    snprintf(out, 32, "%s%" PRIu64, verbatim ? AM__FTS_VERBATIM : "", h);
}

/* ------------------------------------------------------------ lifecycle */

static void sq_close(am__store *base)
{
    sq_store *s = SQ(base);
    if (!s) return;
    for (int i = 0; i < s->n_cache; i++) sqlite3_finalize(s->cache[i].st);
    if (s->db) sqlite3_close(s->db);
    am__buf_free(&s->scratch);
    am__vc_free(s->vc);
    am__fts_lens_free(s->lens);
    am__rowcache_free(s->rows);
    am__post_free(s->post);
    am__text_close(s->ptext);
    am__free(s->a, s);
}

static const char *sq_errmsg(am__store *base) { return SQ(base)->err; }

static int sq_begin(am__store *b)
{
    return exec(SQ(b), "BEGIN IMMEDIATE", "begin");
}
static int sq_commit(am__store *b)
{
    int rc = exec(SQ(b), "COMMIT", "commit");
    if (rc == AM_OK) am__vc_txn_end(SQ(b)->vc, 1);
    return rc;
}
static int sq_rollback(am__store *b)
{
    sq_store *s = SQ(b);
    am__vc_txn_end(s->vc, 0);
    am__fts_lens_clear(s->lens);
    am__rowcache_clear(s->rows); /* an insert undone: its rowid can come back */
    am__post_clear(s->post);
    if (sqlite3_get_autocommit(s->db)) return AM_OK;
    return exec(s, "ROLLBACK", "rollback");
}

/* A deferred transaction: WAL gives it one snapshot from its first read
 * on, and holds no write lock. */
static int sq_begin_read(am__store *b)
{
    return exec(SQ(b), "BEGIN", "begin read");
}
static int sq_end_read(am__store *b)
{
    sq_store *s = SQ(b);
    if (sqlite3_get_autocommit(s->db)) return AM_OK;
    return exec(s, "COMMIT", "end read");
}

/* A read that must see one snapshot throughout: in the caller's
 * transaction if there is one, else in a read transaction of its own. */
static int snapshot_begin(sq_store *s, int *own_txn, const char *what)
{
    *own_txn = sqlite3_get_autocommit(s->db);
    return *own_txn ? exec(s, "BEGIN", what) : AM_OK;
}

static int snapshot_end(sq_store *s, int own_txn, int rc, const char *what)
{
    if (!own_txn) return rc;
    if (rc == AM_OK) rc = exec(s, "COMMIT", what);
    if (rc != AM_OK && !sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* ------------------------------------------------------------ users */

static int sq_user_ensure(am__store *b, const char *uid, am_time now)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT OR IGNORE INTO users(user_id, created_at) VALUES(?,?)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    sqlite3_bind_int64(st, 2, now);
    return run(s, st, "user");
}

static int sq_user_exists(am__store *b, const char *uid)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT 1 FROM users WHERE user_id=?");
    if (!st) return -AM_BACKEND;
    bind_text(st, 1, uid);
    int rc = sqlite3_step(st);
    int out = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -fail(s, rc, "user");
    done(s, st);
    return out;
}

static int sq_link_put(am__store *b, const char *ch, const char *ext,
                       const char *uid, am_time now)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT INTO identity_links(channel, external_id, user_id, created_at) VALUES(?,?,?,?)"
                               " ON CONFLICT(channel, external_id) DO NOTHING");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, ch);
    bind_text(st, 2, ext);
    bind_text(st, 3, uid);
    sqlite3_bind_int64(st, 4, now);
    return run(s, st, "link");
}

static int sq_link_get(am__store *b, const char *ch, const char *ext, char *out)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT user_id FROM identity_links WHERE channel=? AND external_id=?");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, ch);
    bind_text(st, 2, ext);
    int rc = sqlite3_step(st), out_rc;
    if (rc == SQLITE_ROW) {
        snprintf(out, AM_ID_MAX + 1, "%s", (const char *)sqlite3_column_text(st, 0));
        out_rc = AM_OK;
    } else {
        out_rc = rc == SQLITE_DONE ? AM_NOTFOUND : fail(s, rc, "link");
    }
    done(s, st);
    return out_rc;
}

static int sq_link_del(am__store *b, const char *ch, const char *ext)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "DELETE FROM identity_links WHERE channel=? AND external_id=?");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, ch);
    bind_text(st, 2, ext);
    int rc = run(s, st, "unlink");
    if (rc == AM_OK && sqlite3_changes(s->db) == 0) return AM_NOTFOUND;
    return rc;
}

static int sq_links_list(am__store *b, const char *uid, am__arena *ar,
                         am__link_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT channel, external_id, created_at FROM identity_links WHERE user_id=? ORDER BY channel, external_id");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__link_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        r->channel = col_text(ar, st, 0);
        r->external_id = col_text(ar, st, 1);
        r->created_at = col_time(st, 2);
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "links");
    done(s, st);
    return out;
}

/* ------------------------------------------------------------ events */

#define EVENT_COLS "e.rid, e.id, e.user_id, e.agent_id, e.session_id, e.task_id, e.channel, e.source, e.type, e.content, e.domain, e.intent, e.lang, e.occurred_at, e.ingested_at, e.tz_minutes"

static void read_event(am__arena *ar, sqlite3_stmt *st, am__event_row *e)
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
}

static int read_events(sq_store *s, sqlite3_stmt *st, am__arena *ar,
                       am__event_row **rows, size_t *n, int with_score)
{
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__event_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        read_event(ar, st, r);
        if (with_score) r->score = -sqlite3_column_double(st, 16);
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

static int sq_event_put(am__store *b, am__event_row *e)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT INTO events(id, user_id, agent_id, session_id, task_id, channel, source, type, content, domain, intent, lang, occurred_at, tz_minutes, ingested_at)"
                               " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
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
    int rc = run(s, st, "event");
    if (rc) return rc;
    st = stmt(s, "UPDATE users SET n_events = n_events + 1 WHERE user_id = ?");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, e->user_id);
    if ((rc = run(s, st, "event count"))) return rc;
    e->rid = sqlite3_last_insert_rowid(s->db);
    am__fts_lens_drop(s->lens, e->rid); /* a rowid can come back */
    am__rowcache_inserted(s->rows, e->rid);
    char tok[32];
    uid_token(e->user_id, tok, 0);
    st = stmt(s, "INSERT INTO events_fts(rowid, uid, doc, ctx) VALUES(?1, ?2,"
                 " '" AM__FTS_TAG "' || ?2 || '" AM__FTS_TAG "' || ?3,"
                 " '" AM__FTS_TAG "' || ?2 || '" AM__FTS_TAG "' || ?4)");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, e->rid);
    bind_text(st, 2, tok);
    bind_text(st, 3, e->index_doc ? e->index_doc : e->content);
    bind_text(st, 4, e->index_ctx ? e->index_ctx : "");
    if ((rc = run(s, st, "event index"))) return rc;
    if (am__post_has_tag(s->post, tok, strlen(tok))) {
        uint32_t len[AM__FTS_SCORED];
        if (lists_apply(s, tok, e->index_doc ? e->index_doc : e->content, e->rid, 0, 0, &len[0]) ||
            lists_apply(s, tok, e->index_ctx ? e->index_ctx : "", e->rid, 1, 0, &len[1]))
            am__post_clear(s->post); /* lists short of this row: none */
        else
            am__fts_lens_set(s->lens, e->rid, len);
    }
    return AM_OK;
}

static int sq_event_ctx_append(am__store *b, const char *uid, int64_t rid,
                               const char *text)
{
    sq_store *s = SQ(b);
    char tok[32];
    uid_token(uid, tok, 0);
    uint32_t len[AM__FTS_SCORED], more;
    int had = am__fts_lens_get(s->lens, rid, len);
    am__fts_lens_drop(s->lens, rid);
    sqlite3_stmt *st = stmt(s, "UPDATE events_fts SET ctx = ctx || ' ' || ?1 WHERE rowid = ?2 AND uid = ?3");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, text);
    sqlite3_bind_int64(st, 2, rid);
    bind_text(st, 3, tok);
    int rc = run(s, st, "event context");
    if (rc || sqlite3_changes(s->db) == 0 || !am__post_has_tag(s->post, tok, strlen(tok)))
        return rc;
    /* the appended text's tokens join the row's context: its lists and
     * its length (tokens do not join across the space) */
    am__buf t;
    am__buf_init(&t, s->a);
    am__buf_adds(&t, " ");
    am__buf_adds(&t, text);
    if (t.oom || lists_apply(s, tok, t.p, rid, 1, 1, &more)) {
        am__post_clear(s->post);
    } else if (had) {
        len[1] += more;
        am__fts_lens_set(s->lens, rid, len);
    }
    am__buf_free(&t);
    return AM_OK;
}

/* ------------------------------------------------------------ vectors */

/* Packed vectors (schema v5).  A block holds up to VEC_BLOCK vectors of
 * one (user, embedder, dim): rids (n x int64) and scales (n x float32),
 * little-endian, and vecs (n x dim int8, row-major).  Each vector also
 * keeps its event_vectors row (vec empty, block set).  New vectors are
 * rows of the tail (block NULL); vec_put packs the tail of its
 * (user, embedder, dim) when it holds VEC_BLOCK, in the same transaction,
 * so a write stays a row and a block is written once per VEC_BLOCK
 * writes.  A replaced packed vector (re-embedding) unpacks its block back
 * into the tail; a forgotten one is cut out of its block, which is
 * rewritten in place (secure_delete zeroes the old pages). */
#define VEC_BLOCK 128
#define VEC_BLOCK_SQL "128"

static void put_le64(unsigned char *p, int64_t v)
{
    uint64_t u = (uint64_t)v;
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(u >> (8 * i));
}

static int64_t get_le64(const unsigned char *p)
{
    uint64_t u = 0;
    for (int i = 0; i < 8; i++) u |= (uint64_t)p[i] << (8 * i);
    return (int64_t)u;
}

static void put_lef32(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(u >> (8 * i));
}

static float get_lef32(const unsigned char *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                 (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* The columns n, rids, scales, vecs at i.. of a vector_blocks row: 1 when
 * their sizes agree with each other and with dim (*n set), else 0. */
static int block_cols(sqlite3_stmt *st, int i, int dim, int *n, const unsigned char **rids,
                      const unsigned char **scales, const signed char **vecs)
{
    int64_t k = sqlite3_column_int64(st, i);
    *rids = sqlite3_column_blob(st, i + 1);
    *scales = sqlite3_column_blob(st, i + 2);
    *vecs = sqlite3_column_blob(st, i + 3);
    if (k <= 0 || k > VEC_BLOCK || dim <= 0 || !*rids || !*scales || !*vecs ||
        sqlite3_column_bytes(st, i + 1) != 8 * k || sqlite3_column_bytes(st, i + 2) != 4 * k ||
        (int64_t)sqlite3_column_bytes(st, i + 3) != k * dim)
        return 0;
    *n = (int)k;
    return 1;
}

int am__sqlite_vec_each(sqlite3 *db, const char *uid, const char *embedder, int dim,
                        int bits_only, am__vec_fn fn, void *ctx, char *err, size_t errlen)
{
    static const char *const sql[3] = {
        "SELECT block, n, rids, scales, vecs FROM vector_blocks"
        " WHERE user_id=?1 AND embedder=?2 AND dim=?3",
        "SELECT event_rid, scale, vec FROM event_vectors INDEXED BY event_vectors_tail"
        " WHERE user_id=?1 AND embedder=?2 AND dim=?3 AND block IS NULL",
        /* bits only: the int8 vectors are not read (a block without its
         * bits row, which v6 fills, gives them to compute the bits) */
        "SELECT b.block, b.n, b.rids, b.scales, x.bits,"
        "       CASE WHEN x.bits IS NULL THEN b.vecs END"
        " FROM vector_blocks b LEFT JOIN vector_bits x ON x.block = b.block"
        " WHERE b.user_id=?1 AND b.embedder=?2 AND b.dim=?3",
    };
    int out = AM_OK;
    size_t nb = (size_t)AM__VBITS(dim > 0 ? dim : 0);
    unsigned char bits[AM__VBITS(4096)];
    if (dim <= 0 || dim > 4096) return AM_MISUSE;
    for (int part = 0; part < 2 && out == AM_OK; part++) {
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(db, sql[part == 0 && bits_only ? 2 : part], -1, &st, NULL);
        if (rc != SQLITE_OK) {
            if (err) snprintf(err, errlen, "sqlite: vectors: %s", sqlite3_errmsg(db));
            return (rc & 0xff) == SQLITE_NOMEM ? AM_NOMEM : AM_BACKEND;
        }
        sqlite3_bind_text(st, 1, uid, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, embedder, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, dim);
        while (out == AM_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
            if (part == 1) {
                const signed char *v = sqlite3_column_blob(st, 2);
                if (!v || sqlite3_column_bytes(st, 2) != dim) continue;
                am__vec_item it = {sqlite3_column_int64(st, 0),
                                   (float)sqlite3_column_double(st, 1), v, NULL, 0};
                out = fn(ctx, &it);
                continue;
            }
            int n;
            const unsigned char *rids, *scales, *bitv = NULL;
            const signed char *vecs;
            int64_t block = sqlite3_column_int64(st, 0);
            int ok;
            if (bits_only) {
                /* block_cols' checks, with the bits (or, when its bits row
                 * is missing, the vectors to compute them from) */
                int64_t k = sqlite3_column_int64(st, 1);
                rids = sqlite3_column_blob(st, 2);
                scales = sqlite3_column_blob(st, 3);
                bitv = sqlite3_column_blob(st, 4);
                vecs = bitv ? NULL : sqlite3_column_blob(st, 5);
                ok = k > 0 && k <= VEC_BLOCK && rids && scales && (bitv || vecs) &&
                     sqlite3_column_bytes(st, 2) == 8 * k && sqlite3_column_bytes(st, 3) == 4 * k &&
                     (bitv ? (int64_t)sqlite3_column_bytes(st, 4) == k * (int64_t)nb
                           : (int64_t)sqlite3_column_bytes(st, 5) == k * dim);
                n = (int)k;
                if (ok && !bitv) {
                    for (int j = 0; j < n && out == AM_OK; j++) {
                        am__vec_bits(vecs + (size_t)j * (size_t)dim, dim, bits);
                        am__vec_item it = {get_le64(rids + 8 * j), get_lef32(scales + 4 * j),
                                           NULL, bits, block << 8 | j};
                        out = fn(ctx, &it);
                    }
                    continue;
                }
            } else {
                ok = block_cols(st, 1, dim, &n, &rids, &scales, &vecs);
            }
            if (!ok) {
                if (err)
                    snprintf(err, errlen, "sqlite: vectors: packed block %" PRId64
                             " is malformed (sizes do not match its count and width)",
                             (int64_t)sqlite3_column_int64(st, 0));
                out = AM_CORRUPT;
                break;
            }
            for (int k = 0; k < n && out == AM_OK; k++) {
                am__vec_item it = {get_le64(rids + 8 * k), get_lef32(scales + 4 * k),
                                   vecs ? vecs + (size_t)k * (size_t)dim : NULL,
                                   bitv ? bitv + (size_t)k * nb : NULL, block << 8 | k};
                out = fn(ctx, &it);
            }
        }
        if (out == AM_OK && rc != SQLITE_DONE) {
            if (err) snprintf(err, errlen, "sqlite: vectors: %s", sqlite3_errmsg(db));
            out = (rc & 0xff) == SQLITE_NOMEM ? AM_NOMEM
                  : (rc & 0xff) == SQLITE_CORRUPT ? AM_CORRUPT : AM_BACKEND;
        }
        sqlite3_finalize(st);
    }
    return out;
}

/* A block's sign bits (schema v6), written with the block. */
static int bits_put(sq_store *s, int64_t block, const unsigned char *bits, size_t len,
                    const char *what)
{
    sqlite3_stmt *st = stmt(s, "INSERT OR REPLACE INTO vector_bits(block, bits) VALUES(?,?)");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, block);
    sqlite3_bind_blob(st, 2, bits, (int)len, SQLITE_STATIC);
    return run(s, st, what);
}

/* The bits of every block that has none (blocks packed before v6). */
static int vec_bits_fill(sq_store *s)
{
    sqlite3_stmt *st = stmt(s, "SELECT b.block FROM vector_blocks b"
                               " WHERE NOT EXISTS (SELECT 1 FROM vector_bits x WHERE x.block = b.block)");
    if (!st) return AM_BACKEND;
    am__arena ar;
    am__arena_init(&ar, s->a);
    int64_t *blocks = NULL;
    size_t nbk = 0, cap = 0;
    int rc = AM_OK, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t *x = push(&ar, (void **)&blocks, &nbk, &cap, sizeof *x);
        if (!x) { rc = AM_NOMEM; break; }
        *x = sqlite3_column_int64(st, 0);
    }
    if (!rc && step != SQLITE_DONE) rc = fail(s, step, "vector bits");
    done(s, st);
    unsigned char bits[VEC_BLOCK * AM__VBITS(4096)];
    for (size_t i = 0; i < nbk && !rc; i++) {
        st = stmt(s, "SELECT dim, n, rids, scales, vecs FROM vector_blocks WHERE block=?");
        if (!st) { rc = AM_BACKEND; break; }
        sqlite3_bind_int64(st, 1, blocks[i]);
        if ((step = sqlite3_step(st)) != SQLITE_ROW) {
            rc = step == SQLITE_DONE ? AM_OK : fail(s, step, "vector bits");
            done(s, st);
            continue;
        }
        int dim = sqlite3_column_int(st, 0), n;
        const unsigned char *rids, *scales;
        const signed char *vecs;
        if (dim <= 0 || dim > 4096 || !block_cols(st, 1, dim, &n, &rids, &scales, &vecs)) {
            snprintf(s->err, sizeof s->err, "sqlite: vector bits: block %" PRId64 " is malformed",
                     blocks[i]);
            rc = AM_CORRUPT;
            done(s, st);
            break;
        }
        size_t nb = (size_t)AM__VBITS(dim);
        for (int k = 0; k < n; k++) am__vec_bits(vecs + (size_t)k * (size_t)dim, dim, bits + (size_t)k * nb);
        done(s, st);
        rc = bits_put(s, blocks[i], bits, (size_t)n * nb, "vector bits");
    }
    am__arena_free(&ar);
    return rc;
}

/* Pack the tail of (uid, embedder, dim), VEC_BLOCK vectors a block in
 * row id order, while it holds that many. */
static int vec_pack(sq_store *s, const char *uid, const char *embedder, int dim)
{
    size_t nb = (size_t)AM__VBITS(dim);
    size_t bytes = (size_t)VEC_BLOCK * (8 + 4 + (size_t)dim + nb);
    unsigned char *buf = NULL;
    int rc = AM_OK;
    for (;;) {
        sqlite3_stmt *st = stmt(s, "SELECT event_rid, scale, vec FROM event_vectors INDEXED BY event_vectors_tail"
                                   " WHERE user_id=?1 AND embedder=?2 AND dim=?3 AND block IS NULL"
                                   " ORDER BY event_rid LIMIT " VEC_BLOCK_SQL);
        if (!st) { rc = AM_BACKEND; break; }
        if (!buf && !(buf = am__malloc(s->a, bytes))) { rc = AM_NOMEM; break; }
        unsigned char *rids = buf, *scales = buf + 8 * VEC_BLOCK, *vecs = scales + 4 * VEC_BLOCK;
        unsigned char *bits = vecs + (size_t)VEC_BLOCK * (size_t)dim;
        bind_text(st, 1, uid);
        bind_text(st, 2, embedder);
        sqlite3_bind_int(st, 3, dim);
        int n = 0, step;
        int64_t lo = 0, hi = 0;
        while ((step = sqlite3_step(st)) == SQLITE_ROW) {
            const void *v = sqlite3_column_blob(st, 2);
            if (!v || sqlite3_column_bytes(st, 2) != dim) {
                snprintf(s->err, sizeof s->err,
                         "sqlite: pack vectors: event %" PRId64 " has a vector of %d bytes, not %d",
                         (int64_t)sqlite3_column_int64(st, 0), sqlite3_column_bytes(st, 2), dim);
                rc = AM_CORRUPT;
                break;
            }
            hi = sqlite3_column_int64(st, 0);
            if (n == 0) lo = hi;
            put_le64(rids + 8 * n, hi);
            put_lef32(scales + 4 * n, (float)sqlite3_column_double(st, 1));
            memcpy(vecs + (size_t)n * (size_t)dim, v, (size_t)dim);
            n++;
        }
        if (!rc && step != SQLITE_DONE) rc = fail(s, step, "pack vectors");
        done(s, st);
        if (rc || n < VEC_BLOCK) break;
        st = stmt(s, "INSERT INTO vector_blocks(user_id, embedder, dim, n, rids, scales, vecs)"
                     " VALUES(?,?,?,?,?,?,?)");
        if (!st) { rc = AM_BACKEND; break; }
        bind_text(st, 1, uid);
        bind_text(st, 2, embedder);
        sqlite3_bind_int(st, 3, dim);
        sqlite3_bind_int(st, 4, n);
        sqlite3_bind_blob(st, 5, rids, 8 * n, SQLITE_STATIC);
        sqlite3_bind_blob(st, 6, scales, 4 * n, SQLITE_STATIC);
        sqlite3_bind_blob(st, 7, vecs, n * dim, SQLITE_STATIC);
        if ((rc = run(s, st, "pack vectors"))) break;
        int64_t block = sqlite3_last_insert_rowid(s->db);
        for (int k = 0; k < n; k++)
            am__vec_bits((const signed char *)vecs + (size_t)k * (size_t)dim, dim, bits + (size_t)k * nb);
        if ((rc = bits_put(s, block, bits, (size_t)n * nb, "pack vectors"))) break;
        /* the n smallest row ids of the tail: exactly its rows in [lo, hi] */
        st = stmt(s, "UPDATE event_vectors SET block=?4, vec=x''"
                     " WHERE user_id=?1 AND embedder=?2 AND event_rid BETWEEN ?5 AND ?6"
                     " AND dim=?3 AND block IS NULL");
        if (!st) { rc = AM_BACKEND; break; }
        bind_text(st, 1, uid);
        bind_text(st, 2, embedder);
        sqlite3_bind_int(st, 3, dim);
        sqlite3_bind_int64(st, 4, block);
        sqlite3_bind_int64(st, 5, lo);
        sqlite3_bind_int64(st, 6, hi);
        if ((rc = run(s, st, "pack vectors"))) break;
        if (sqlite3_changes(s->db) != n) {
            snprintf(s->err, sizeof s->err, "sqlite: pack vectors: %d of %d rows marked",
                     sqlite3_changes(s->db), n);
            rc = AM_CORRUPT;
            break;
        }
    }
    am__free(s->a, buf);
    return rc;
}

/* Pack every tail that holds a block (the v5 migration, am_optimize). */
static int vec_pack_all(sq_store *s)
{
    am__arena ar;
    am__arena_init(&ar, s->a);
    typedef struct group { const char *uid, *embedder; int dim; } group;
    group *g = NULL;
    size_t n = 0, cap = 0;
    sqlite3_stmt *st = stmt(s, "SELECT user_id, embedder, dim FROM event_vectors WHERE block IS NULL"
                               " GROUP BY user_id, embedder, dim HAVING count(*) >= " VEC_BLOCK_SQL);
    int rc = st ? AM_OK : AM_BACKEND, step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        group *x = push(&ar, (void **)&g, &n, &cap, sizeof *g);
        if (!x) { rc = AM_NOMEM; break; }
        x->uid = col_text(&ar, st, 0);
        x->embedder = col_text(&ar, st, 1);
        x->dim = sqlite3_column_int(st, 2);
        if (ar.oom) rc = AM_NOMEM;
    }
    if (!rc && step != SQLITE_DONE) rc = fail(s, step, "pack vectors");
    if (st) done(s, st);
    for (size_t i = 0; i < n && !rc; i++) rc = vec_pack(s, g[i].uid, g[i].embedder, g[i].dim);
    am__arena_free(&ar);
    return rc;
}

/* Move a block's vectors back into the tail and delete it. */
static int vec_unpack(sq_store *s, int64_t block)
{
    sqlite3_stmt *st = stmt(s, "SELECT user_id, embedder, dim, n, rids, scales, vecs"
                               " FROM vector_blocks WHERE block=?");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, block);
    int step = sqlite3_step(st), rc = AM_OK;
    if (step == SQLITE_ROW) {
        const char *uid = (const char *)sqlite3_column_text(st, 0);
        const char *embedder = (const char *)sqlite3_column_text(st, 1);
        int dim = sqlite3_column_int(st, 2), n;
        const unsigned char *rids, *scales;
        const signed char *vecs;
        if (!uid || !embedder || !block_cols(st, 3, dim, &n, &rids, &scales, &vecs)) {
            snprintf(s->err, sizeof s->err, "sqlite: unpack vectors: block %" PRId64 " is malformed",
                     block);
            rc = AM_CORRUPT;
        }
        for (int k = 0; !rc && k < n; k++) {
            sqlite3_stmt *up = stmt(s, "UPDATE event_vectors SET vec=?4, block=NULL"
                                       " WHERE user_id=?1 AND embedder=?2 AND event_rid=?3 AND block=?5");
            if (!up) { rc = AM_BACKEND; break; }
            bind_text(up, 1, uid);
            bind_text(up, 2, embedder);
            sqlite3_bind_int64(up, 3, get_le64(rids + 8 * k));
            sqlite3_bind_blob(up, 4, vecs + (size_t)k * (size_t)dim, dim, SQLITE_STATIC);
            sqlite3_bind_int64(up, 5, block);
            rc = run(s, up, "unpack vectors");
        }
    } else if (step != SQLITE_DONE) {
        rc = fail(s, step, "unpack vectors");
    }
    done(s, st);
    if (rc) return rc;
    st = stmt(s, "DELETE FROM vector_blocks WHERE block=?");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, block);
    return run(s, st, "unpack vectors");
}

/* Cut the vectors of the events in temp.am_forget out of the user's
 * blocks: each block holding one is rewritten without them (deleted when
 * none is left).  Their event_vectors rows go with the events. */
static int vec_forget_packed(sq_store *s, const char *uid)
{
    am__arena ar;
    am__arena_init(&ar, s->a);
    int64_t *blocks = NULL;
    size_t nb = 0, cap = 0;
    sqlite3_stmt *st = stmt(s, "SELECT DISTINCT v.block FROM temp.am_forget f"
                               " JOIN event_vectors v ON v.event_rid = f.rid"
                               " WHERE v.user_id=?1 AND v.block IS NOT NULL");
    int rc = st ? AM_OK : AM_BACKEND, step = SQLITE_DONE;
    if (st) bind_text(st, 1, uid);
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t *b = push(&ar, (void **)&blocks, &nb, &cap, sizeof *b);
        if (!b) rc = AM_NOMEM;
        else *b = sqlite3_column_int64(st, 0);
    }
    if (!rc && step != SQLITE_DONE) rc = fail(s, step, "forget vectors");
    if (st) done(s, st);
    unsigned char *buf = NULL;
    for (size_t i = 0; i < nb && !rc; i++) {
        st = stmt(s, "SELECT dim, n, rids, scales, vecs FROM vector_blocks WHERE block=?1 AND user_id=?2");
        if (!st) { rc = AM_BACKEND; break; }
        sqlite3_bind_int64(st, 1, blocks[i]);
        bind_text(st, 2, uid);
        if ((step = sqlite3_step(st)) != SQLITE_ROW) {
            rc = step == SQLITE_DONE ? AM_OK : fail(s, step, "forget vectors");
            done(s, st);
            continue;
        }
        int dim = sqlite3_column_int(st, 0), n, m = 0;
        const unsigned char *rids, *scales;
        const signed char *vecs;
        if (!block_cols(st, 1, dim, &n, &rids, &scales, &vecs)) {
            snprintf(s->err, sizeof s->err, "sqlite: forget vectors: block %" PRId64 " is malformed",
                     blocks[i]);
            rc = AM_CORRUPT;
            done(s, st);
            break;
        }
        am__free(s->a, buf);
        buf = am__malloc(s->a, (size_t)n * (12 + (size_t)dim + (size_t)AM__VBITS(dim)));
        if (!buf) { rc = AM_NOMEM; done(s, st); break; }
        unsigned char *nr = buf, *ns = buf + 8 * (size_t)n;
        signed char *nv = (signed char *)(ns + 4 * (size_t)n);
        for (int k = 0; k < n && !rc; k++) {
            sqlite3_stmt *q = stmt(s, "SELECT 1 FROM temp.am_forget WHERE rid=?");
            if (!q) { rc = AM_BACKEND; break; }
            sqlite3_bind_int64(q, 1, get_le64(rids + 8 * k));
            int gone = sqlite3_step(q);
            done(s, q);
            if (gone == SQLITE_ROW) continue;
            if (gone != SQLITE_DONE) { rc = fail(s, gone, "forget vectors"); break; }
            memcpy(nr + 8 * m, rids + 8 * k, 8);
            memcpy(ns + 4 * m, scales + 4 * k, 4);
            memcpy(nv + (size_t)m * (size_t)dim, vecs + (size_t)k * (size_t)dim, (size_t)dim);
            m++;
        }
        done(s, st);
        if (rc) break;
        st = m ? stmt(s, "UPDATE vector_blocks SET n=?2, rids=?3, scales=?4, vecs=?5 WHERE block=?1")
               : stmt(s, "DELETE FROM vector_blocks WHERE block=?1");
        if (!st) { rc = AM_BACKEND; break; }
        sqlite3_bind_int64(st, 1, blocks[i]);
        if (m) {
            sqlite3_bind_int(st, 2, m);
            sqlite3_bind_blob(st, 3, nr, 8 * m, SQLITE_STATIC);
            sqlite3_bind_blob(st, 4, ns, 4 * m, SQLITE_STATIC);
            sqlite3_bind_blob(st, 5, nv, m * dim, SQLITE_STATIC);
        }
        if ((rc = run(s, st, "forget vectors")) || !m) continue;
        unsigned char *nbits = (unsigned char *)nv + (size_t)m * (size_t)dim;
        size_t bb = (size_t)AM__VBITS(dim);
        for (int k = 0; k < m; k++)
            am__vec_bits(nv + (size_t)k * (size_t)dim, dim, nbits + (size_t)k * bb);
        rc = bits_put(s, blocks[i], nbits, (size_t)m * bb, "forget vectors");
    }
    am__free(s->a, buf);
    am__arena_free(&ar);
    return rc;
}

static int sq_vec_put(am__store *b, const char *uid, int64_t rid, const char *embedder,
                      const float *v, int dim)
{
    sq_store *s = SQ(b);
    signed char q[4096];
    if (dim <= 0 || dim > (int)sizeof q) return AM_MISUSE;
    float mx = 0;
    for (int i = 0; i < dim; i++) mx = fabsf(v[i]) > mx ? fabsf(v[i]) : mx;
    float scale = mx > 0 ? mx / 127.0f : 1.0f;
    for (int i = 0; i < dim; i++) q[i] = (signed char)lrintf(v[i] / scale);
    /* the event's vector so far, if packed: its block goes back to the
     * tail first, so the replaced vector leaves no copy in a block */
    sqlite3_stmt *st = stmt(s, "SELECT block FROM event_vectors WHERE event_rid=? AND block IS NOT NULL");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, rid);
    int step = sqlite3_step(st);
    int64_t block = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    int rc = step == SQLITE_ROW || step == SQLITE_DONE ? AM_OK : fail(s, step, "vector");
    done(s, st);
    int unpacked = !rc && step == SQLITE_ROW;
    if (unpacked) rc = vec_unpack(s, block);
    if (rc) return rc;
    st = stmt(s, "INSERT OR REPLACE INTO event_vectors(event_rid, user_id, embedder, dim, scale, vec) VALUES(?,?,?,?,?,?)");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, rid);
    bind_text(st, 2, uid);
    bind_text(st, 3, embedder);
    sqlite3_bind_int(st, 4, dim);
    sqlite3_bind_double(st, 5, scale);
    sqlite3_bind_blob(st, 6, q, dim, SQLITE_STATIC);
    if ((rc = run(s, st, "vector"))) return rc;
    st = stmt(s, "SELECT count(*) FROM event_vectors INDEXED BY event_vectors_tail"
                 " WHERE user_id=?1 AND embedder=?2 AND dim=?3 AND block IS NULL");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, embedder);
    sqlite3_bind_int(st, 3, dim);
    step = sqlite3_step(st);
    int64_t tail = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    if (step != SQLITE_ROW) rc = fail(s, step, "vector");
    done(s, st);
    /* a block just moved back to the tail is not packed again at once
     * (each replacement in it would rewrite it): at twice the size */
    if (!rc && tail >= (unpacked ? 2 * VEC_BLOCK : VEC_BLOCK)) rc = vec_pack(s, uid, embedder, dim);
    if (rc == AM_OK)
        am__vc_put(s->vc, uid, embedder, dim, rid, (float)scale, q, !sqlite3_get_autocommit(s->db));
    return rc;
}

typedef struct vec_hit {
    int64_t rid;
    double score;
} vec_hit;

/* Keep the best `limit` hits seen so far (unordered); *worst is the index
 * of the lowest kept score once the list is full (a rejected candidate
 * costs one comparison; a replacement, one rescan). */
static void topk_offer(vec_hit *top, size_t *nt, size_t limit, size_t *worst, int64_t rid,
                       double score)
{
    if (*nt < limit) {
        top[*nt].rid = rid;
        top[(*nt)++].score = score;
        if (*nt < limit) return;
    } else if (score > top[*worst].score) {
        top[*worst].rid = rid;
        top[*worst].score = score;
    } else {
        return;
    }
    size_t w = 0;
    for (size_t j = 1; j < *nt; j++)
        if (top[j].score < top[w].score) w = j;
    *worst = w;
}

static int cmp_rid(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* A scan without the cache: each vector read (am__sqlite_vec_each) is
 * scored; with a time bound only those of the events in `allowed`. */
typedef struct scan_ctx {
    const signed char *q8;
    double qscale;
    int dim;
    vec_hit *top;
    size_t nt, limit, worst;
    const int64_t *allowed; /* sorted; NULL: every vector */
    size_t n_allowed;
} scan_ctx;

static int scan_one(void *ctx, const am__vec_item *it)
{
    scan_ctx *c = ctx;
    if (c->allowed && !bsearch(&it->rid, c->allowed, c->n_allowed, sizeof it->rid, cmp_rid))
        return AM_OK;
    double dot = (double)am__dot_i8(c->q8, it->vec, c->dim) * c->qscale * it->scale;
    topk_offer(c->top, &c->nt, c->limit, &c->worst, it->rid, dot);
    return AM_OK;
}

_Atomic unsigned long am__vec_bits_fallbacks;
_Atomic unsigned long am__term_list_reads;

/* A bits scan rescores exactly this many candidates per hit wanted (at
 * least BITS_RERANK_MIN). */
#define BITS_RERANK 4
#define BITS_RERANK_MIN 256

/* One block open for reading: its rids, and a handle on its vecs
 * (incremental blob I/O: a read copies the bytes asked for, not the whole
 * 64 KB row).  The rids are read through a handle too (a statement a
 * block: 0.44 against 0.33 ms a scan of 78 blocks). */
typedef struct block_reader {
    sqlite3_blob *vecs, *rid_blob;
    int64_t block;
    int n;
    unsigned char rids[8 * VEC_BLOCK];
} block_reader;

static void block_reader_close(block_reader *br)
{
    if (br->vecs) sqlite3_blob_close(br->vecs);
    if (br->rid_blob) sqlite3_blob_close(br->rid_blob);
    br->vecs = br->rid_blob = NULL;
    br->block = 0;
}

/* Point a handle on column col of vector_blocks at a block: SQLITE_OK or
 * an error (*h closed: a failed reopen leaves it unusable). */
static int blob_at(sq_store *s, sqlite3_blob **h, const char *col, int64_t block)
{
    int rc = *h ? sqlite3_blob_reopen(*h, block)
                : sqlite3_blob_open(s->db, "main", "vector_blocks", col, block, 0, h);
    if (rc != SQLITE_OK && *h) {
        sqlite3_blob_close(*h);
        *h = NULL;
    }
    return rc;
}

/* Point br at a block: 1, or 0 when it is not there or malformed. */
static int block_reader_at(sq_store *s, block_reader *br, int64_t block, int dim)
{
    if (br->block == block && br->vecs) return 1;
    br->block = block;
    int len = 0;
    if (blob_at(s, &br->vecs, "vecs", block) != SQLITE_OK ||
        blob_at(s, &br->rid_blob, "rids", block) != SQLITE_OK ||
        (len = sqlite3_blob_bytes(br->rid_blob)) > (int)sizeof br->rids || len % 8 != 0 ||
        sqlite3_blob_read(br->rid_blob, br->rids, len, 0) != SQLITE_OK) {
        block_reader_close(br);
        return 0;
    }
    br->n = len / 8;
    if (br->n == 0 || sqlite3_blob_bytes(br->vecs) != br->n * dim) {
        block_reader_close(br);
        return 0;
    }
    return 1;
}

/* The int8 vector of rid at index k of a block: 1, or 0 when the block
 * does not hold rid there (a cache out of step). k < 0: find it. */
static int block_vec(sq_store *s, block_reader *br, int64_t block, int k, int64_t rid, int dim,
                     signed char *out)
{
    if (!block_reader_at(s, br, block, dim)) return 0;
    if (k < 0) /* a tail vector since packed: look for it */
        for (int j = 0; j < br->n && k < 0; j++)
            if (get_le64(br->rids + 8 * j) == rid) k = j;
    if (k < 0 || k >= br->n || get_le64(br->rids + 8 * k) != rid) return 0;
    return sqlite3_blob_read(br->vecs, out, dim, k * dim) == SQLITE_OK;
}

/* The int8 vector of a tail vector (loc 0 in the cache: in the tail when
 * cached, perhaps packed since): 1, or 0 when it is not there. */
static int tail_vec(sq_store *s, block_reader *br, const char *uid, const char *embedder,
                    int64_t rid, int dim, signed char *out)
{
    sqlite3_stmt *st = stmt(s, "SELECT vec, block FROM event_vectors"
                               " WHERE event_rid=?1 AND user_id=?2 AND embedder=?3 AND dim=?4");
    if (!st) return 0;
    sqlite3_bind_int64(st, 1, rid);
    bind_text(st, 2, uid);
    bind_text(st, 3, embedder);
    sqlite3_bind_int(st, 4, dim);
    int ok = 0;
    int64_t block = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const void *v = sqlite3_column_blob(st, 0);
        if (v && sqlite3_column_bytes(st, 0) == dim) {
            memcpy(out, v, (size_t)dim);
            ok = 1;
        } else if (sqlite3_column_type(st, 1) == SQLITE_INTEGER) {
            block = sqlite3_column_int64(st, 1);
        }
    }
    done(s, st);
    return ok || (block && block_vec(s, br, block, -1, rid, dim, out));
}

/* A bounded min-heap of estimates: the `want` best (ties: the earlier
 * vector), the worst at the root. */
typedef struct est_hit {
    int32_t e;
    size_t i;
} est_hit;

static int est_worse(const est_hit *a, const est_hit *b)
{
    return a->e < b->e || (a->e == b->e && a->i > b->i);
}

static void est_offer(est_hit *h, size_t *n, size_t want, int32_t e, size_t i)
{
    est_hit x = {e, i};
    size_t k;
    if (*n < want) { /* sift up */
        for (k = (*n)++; k > 0 && est_worse(&x, &h[(k - 1) / 2]); k = (k - 1) / 2) h[k] = h[(k - 1) / 2];
        h[k] = x;
        return;
    }
    if (!est_worse(&h[0], &x)) return;
    for (k = 0;;) { /* sift the new root down */
        size_t c = 2 * k + 1;
        if (c >= *n) break;
        if (c + 1 < *n && est_worse(&h[c + 1], &h[c])) c++;
        if (!est_worse(&h[c], &x)) break;
        h[k] = h[c];
        k = c;
    }
    h[k] = x;
}

typedef struct bits_cand {
    int64_t loc;
    size_t i;
} bits_cand;

static int cmp_cand(const void *a, const void *b)
{
    const bits_cand *x = a, *y = b;
    return x->loc < y->loc ? -1 : x->loc > y->loc ? 1 : (x->i > y->i) - (x->i < y->i);
}

/* A scan of a user's sign bits: the candidates with the best estimates
 * (want of them, ties by position), rescored with their int8 vectors --
 * from the cache when it holds them, else read from their blocks in block
 * order.  AM_NOTFOUND: a vector is not where the cache
 * says (the caller scans with SQL). */
static int vec_scan_bits(sq_store *s, const char *uid, const char *embedder,
                         const am__vc_view *v, const signed char *q8, double qscale, int dim,
                         size_t limit, am__arena *ar, vec_hit *top, size_t *nt)
{
    size_t nb = (size_t)AM__VBITS(dim), want = limit * BITS_RERANK;
    if (want < BITS_RERANK_MIN) want = BITS_RERANK_MIN;
    if (want > v->n) want = v->n;
    /* The estimate of q . x from x's signs: sum of q_j where x_j > 0
     * minus q_j elsewhere (asymmetric: the query keeps its values; on
     * USE-lite vectors its best 200 hold 98 % of the exact best 100, the
     * Hamming distance's 93 %).  By table: lut[j][byte] is that sum over
     * the 8 components of byte j. */
    int16_t *lut = am__arena_alloc(ar, nb * 256 * sizeof *lut);
    est_hit *heap = am__arena_alloc(ar, (want + 1) * sizeof *heap);
    bits_cand *cand = am__arena_alloc(ar, (want + 1) * sizeof *cand);
    signed char *vec = am__arena_alloc(ar, (size_t)dim);
    if (!lut || !heap || !cand || !vec) return AM_NOMEM;
    am__vec_est_lut(q8, dim, lut);
    size_t nh = 0;
    for (size_t i = 0; i < v->n; i++) est_offer(heap, &nh, want, am__vec_est(lut, v->bits + i * nb, nb), i);
    size_t nc = 0;
    for (size_t h = 0; h < nh; h++) {
        cand[nc].loc = v->loc ? v->loc[heap[h].i] : 0;
        cand[nc++].i = heap[h].i;
    }
    if (!v->vec) qsort(cand, nc, sizeof *cand, cmp_cand);
    block_reader br;
    br.vecs = br.rid_blob = NULL;
    br.block = 0;
    size_t worst = 0;
    int rc = AM_OK;
    *nt = 0;
    for (size_t c = 0; c < nc; c++) {
        size_t i = cand[c].i;
        const signed char *x = vec;
        if (v->vec) x = v->vec + i * (size_t)dim;
        else if (cand[c].loc ? !block_vec(s, &br, cand[c].loc >> 8, (int)(cand[c].loc & 0xff),
                                         v->rid[i], dim, vec)
                             : !tail_vec(s, &br, uid, embedder, v->rid[i], dim, vec)) {
            rc = AM_NOTFOUND;
            break;
        }
        double dot = (double)am__dot_i8(q8, x, dim) * qscale * v->scale[i];
        topk_offer(top, nt, limit, &worst, v->rid[i], dot);
    }
    block_reader_close(&br);
    return rc;
}

static int read_asked(sq_store *s, const char *uid, const am__fts_hit *hit, size_t k,
                      am__arena *ar, am__event_row *batch, unsigned char *found, int keep);

/* The row lengths, rows and lists held are true unless another connection
 * has committed since they were read (PRAGMA data_version): else dropped.
 * Every read that uses one of them asks first, in its snapshot. */
static int caches_current(sq_store *s)
{
    sqlite3_stmt *dv = stmt(s, "PRAGMA data_version");
    if (!dv) return AM_BACKEND;
    int64_t version = sqlite3_step(dv) == SQLITE_ROW ? sqlite3_column_int64(dv, 0) : -2;
    done(s, dv);
    if (version != s->data_version) {
        am__fts_lens_clear(s->lens);
        am__rowcache_clear(s->rows);
        am__post_clear(s->post);
        s->data_version = version;
    }
    return AM_OK;
}

/* The scan: the vectors of one user and embedder, scored in C (the store
 * filters, the engine scores: DESIGN F30 / TOOLCHAIN).  A bounded top-k
 * keeps the best `limit`.  Exact (every int8 vector) for a user with at
 * most exact_max vectors (0: the store's full_max, AM__VC_FULL_MAX;
 * < 0: always), else a bits scan (vec_scan_bits) over the cache. */
static int vec_scan_run(am__store *b, const char *uid, const char *embedder, const float *qv,
                        int dim, am_time to, int limit, int exact_max, am__arena *ar,
                        am__event_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    *rows = NULL;
    *n = 0;
    if (limit <= 0) return AM_OK;
    if (dim <= 0) return AM_MISUSE;
    vec_hit *top = am__arena_alloc(ar, (size_t)limit * sizeof *top);
    if (!top) return AM_NOMEM;
    size_t nt = 0, worst = 0;
    /* The query quantised like the stored vectors: an integer dot product
     * per row (the compiler vectorises it), rescaled once. */
    signed char *q8 = am__arena_alloc(ar, (size_t)dim);
    if (!q8) return AM_NOMEM;
    float qmax = 0;
    for (int i = 0; i < dim; i++) qmax = fabsf(qv[i]) > qmax ? fabsf(qv[i]) : qmax;
    double qscale = qmax > 0 ? qmax / 127.0 : 1.0;
    for (int i = 0; i < dim; i++) q8[i] = (signed char)lrintf(qv[i] / (float)qscale);
    int rc;
    sqlite3_stmt *st;
    am__vc_view view;
    if (exact_max == 0) exact_max = (int)(s->vc_full_max < INT_MAX ? s->vc_full_max : INT_MAX);
    size_t full_max = exact_max < 0 ? SIZE_MAX
                      : (size_t)exact_max > s->vc_full_max ? (size_t)exact_max : s->vc_full_max;
    if (to == AM_TIME_NONE &&
        (rc = am__vc_get_some(s->vc, s->db, uid, embedder, dim, full_max, &view)) != AM_NOTFOUND) {
        if (rc) return rc;
        if (exact_max >= 0 && view.n > (size_t)exact_max) {
            rc = vec_scan_bits(s, uid, embedder, &view, q8, qscale, dim, (size_t)limit, ar, top, &nt);
            if (rc != AM_NOTFOUND) {
                if (rc) return rc;
                goto rows;
            }
            am__vc_clear(s->vc, uid); /* out of step: the SQL scan answers */
            am__vec_bits_fallbacks++;
            nt = 0;
        } else if (view.vec) {
            for (size_t k = 0; k < view.n; k++) {
                double dot = (double)am__dot_i8(q8, view.vec + k * (size_t)dim, dim) * qscale *
                             view.scale[k];
                topk_offer(top, &nt, (size_t)limit, &worst, view.rid[k], dot);
            }
            goto rows;
        }
    }
    scan_ctx sc = {q8, qscale, dim, top, 0, (size_t)limit, 0, NULL, 0};
    if (to != AM_TIME_NONE) {
        /* the events before the bound (their row ids, sorted) */
        int64_t *ids = NULL;
        size_t cap = 0;
        st = stmt(s, "SELECT rid FROM events WHERE user_id=?1 AND occurred_at < ?2");
        if (!st) return AM_BACKEND;
        bind_text(st, 1, uid);
        bind_time(st, 2, to);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t *x = push(ar, (void **)&ids, &sc.n_allowed, &cap, sizeof *x);
            if (!x) { done(s, st); return AM_NOMEM; }
            *x = sqlite3_column_int64(st, 0);
        }
        int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "vector scan");
        done(s, st);
        if (out) return out;
        if (sc.n_allowed == 0) goto rows;
        qsort(ids, sc.n_allowed, sizeof *ids, cmp_rid);
        sc.allowed = ids;
    }
    if ((rc = am__sqlite_vec_each(s->db, uid, embedder, dim, 0, scan_one, &sc, s->err, sizeof s->err)))
        return rc;
    nt = sc.nt;
rows:;
    if ((rc = caches_current(s))) return rc; /* the row cache's */
    /* The hits' rows, in their order, a hit that is not the user's (or
     * gone) left out: from the row cache when it holds them (the search
     * that ran before has read those the two lists share), the others by
     * one statement (read_asked; as a search reads its rows), not kept in
     * the cache (most are read once). */
    am__event_row *r = am__arena_alloc(ar, (nt + 1) * sizeof *r);
    am__fts_hit *hit = am__arena_alloc(ar, (nt + 1) * sizeof *hit);
    unsigned char *found = am__arena_alloc(ar, nt + 1);
    if (!r || !hit || !found) return AM_NOMEM;
    am__buf *ids = &s->scratch;
    am__buf_reset(ids);
    am__buf_addc(ids, '[');
    size_t asked = 0;
    for (size_t k = 0; k < nt; k++) {
        int held = 0;
        hit[k].rid = top[k].rid;
        if ((rc = am__rowcache_get(s->rows, top[k].rid, ar, &r[k], &held))) return rc;
        found[k] = !held ? 0 : strcmp(r[k].user_id, uid) == 0 ? 1 : 2;
        if (held) continue;
        if (asked++) am__buf_addc(ids, ',');
        am__buf_add_int(ids, top[k].rid);
    }
    am__buf_addc(ids, ']');
    if (ids->oom) return AM_NOMEM;
    if (asked && (rc = read_asked(s, uid, hit, nt, ar, r, found, 0))) return rc;
    size_t m = 0;
    for (size_t k = 0; k < nt; k++)
        if (found[k] == 1) {
            r[m] = r[k];
            r[m++].score = top[k].score;
        }
    *rows = r;
    *n = m;
    return ar->oom ? AM_NOMEM : AM_OK;
}

/* The cache's version check, its load and the reads of one scan share a
 * snapshot (a read transaction of its own outside a write transaction),
 * as a search's do. */
static int sq_vec_scan(am__store *b, const char *uid, const char *embedder, const float *qv,
                       int dim, am_time to, int limit, int exact_max, am__arena *ar,
                       am__event_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    int own_txn, rc = snapshot_begin(s, &own_txn, "vector scan");
    if (rc) return rc;
    rc = vec_scan_run(b, uid, embedder, qv, dim, to, limit, exact_max, ar, rows, n);
    return snapshot_end(s, own_txn, rc, "vector scan");
}

/* Re-embedding (store.h vec_missing_*).  An event lacks a vector when its
 * event_vectors row (unique event_rid: one per event) is absent or
 * of another embedder or dimension.  ?1 user (NULL: all), ?2 embedder,
 * ?3 dim, ?4 all languages. */
#define VEC_MISSING_WHERE                                                     \
    " (v.event_rid IS NULL OR v.embedder <> ?2 OR v.dim <> ?3)"               \
    " AND (?4 OR e.lang = 'en') AND e.type <> 'task_switch'"

static void bind_want(sqlite3_stmt *st, const char *uid, const am__vec_want *w)
{
    bind_text(st, 1, uid);
    bind_text(st, 2, w->embedder_id);
    sqlite3_bind_int(st, 3, w->dim);
    sqlite3_bind_int(st, 4, w->all_langs != 0);
}

static int sq_vec_missing_count(am__store *b, const char *uid, const am__vec_want *want,
                                size_t *n, int64_t *max_rid)
{
    sq_store *s = SQ(b);
    *n = 0;
    *max_rid = 0;
    /* one user: through the events_user_* index; all: one pass */
    sqlite3_stmt *st = uid ? stmt(s, "SELECT count(*), coalesce(max(e.rid), 0) FROM events e"
                                     " LEFT JOIN event_vectors v ON v.event_rid = e.rid"
                                     " WHERE e.user_id = ?1 AND" VEC_MISSING_WHERE)
                           : stmt(s, "SELECT count(*), coalesce(max(e.rid), 0) FROM events e"
                                     " LEFT JOIN event_vectors v ON v.event_rid = e.rid"
                                     " WHERE ?1 IS NULL AND" VEC_MISSING_WHERE);
    if (!st) return AM_BACKEND;
    bind_want(st, uid, want);
    int rc = sqlite3_step(st), out = AM_OK;
    if (rc == SQLITE_ROW) {
        *n = (size_t)sqlite3_column_int64(st, 0);
        *max_rid = sqlite3_column_int64(st, 1);
    } else {
        out = fail(s, rc, "vectors missing");
    }
    done(s, st);
    return out;
}

static int sq_vec_missing_list(am__store *b, const char *uid, const am__vec_want *want,
                               int64_t after_rid, int64_t upto_rid, int limit, am__arena *ar,
                               am__event_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    *rows = NULL;
    *n = 0;
    /* A walk in rid order from after_rid (the rowid range, not the user
     * index: the user test stays a filter), so that the batches of one run
     * read each row once between them. */
    sqlite3_stmt *st = stmt(s, "SELECT e.rid, e.id, e.user_id, e.lang, e.content FROM events e"
                               " LEFT JOIN event_vectors v ON v.event_rid = e.rid"
                               " WHERE e.rid > ?5 AND e.rid <= ?6 AND (?1 IS NULL OR e.user_id = ?1)"
                               " AND" VEC_MISSING_WHERE " ORDER BY e.rid LIMIT ?7");
    if (!st) return AM_BACKEND;
    bind_want(st, uid, want);
    sqlite3_bind_int64(st, 5, after_rid);
    sqlite3_bind_int64(st, 6, upto_rid);
    sqlite3_bind_int(st, 7, limit);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__event_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        r->rid = sqlite3_column_int64(st, 0);
        r->id = col_text(ar, st, 1);
        r->user_id = col_text(ar, st, 2);
        r->lang = col_text(ar, st, 3);
        r->content = col_text(ar, st, 4);
        if (ar->oom) { done(s, st); return AM_NOMEM; }
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "vectors missing");
    done(s, st);
    return out;
}

static int sq_entity_put(am__store *b, const char *uid, int64_t rid,
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

static int sq_pii_put(am__store *b, const char *uid, int64_t rid,
                      const am__pii_row *p)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT INTO pii_vault(user_id, event_rid, placeholder, type, original) VALUES(?,?,?,?,?)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    sqlite3_bind_int64(st, 2, rid);
    bind_text(st, 3, p->placeholder);
    bind_text(st, 4, p->type);
    bind_text(st, 5, p->original);
    return run(s, st, "pii");
}

static int sq_event_get(am__store *b, const char *uid, const char *id,
                        am__arena *ar, am__event_row *out)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT " EVENT_COLS " FROM events e WHERE e.user_id=? AND e.id=?");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, id);
    int rc = sqlite3_step(st), r;
    if (rc == SQLITE_ROW) {
        read_event(ar, st, out);
        r = ar->oom ? AM_NOMEM : AM_OK;
    } else {
        r = rc == SQLITE_DONE ? AM_NOTFOUND : fail(s, rc, "event");
    }
    done(s, st);
    return r;
}

/* Best first: a before b (higher score; ties: the older row). */
static int hit_before(const am__fts_hit *a, const am__fts_hit *b)
{
    return a->score > b->score || (a->score == b->score && a->rid < b->rid);
}

static int cmp_hit(const void *x, const void *y)
{
    const am__fts_hit *a = x, *b = y;
    return hit_before(a, b) ? -1 : hit_before(b, a) ? 1 : 0;
}

/* Move the best k hits to the front, best first (a heap of the k best
 * kept at the front, worst on top, then sorted). */
static void hits_top(am__fts_hit *h, size_t n, size_t k)
{
    if (n == 0) return;
    if (k >= n || n <= 64) {
        qsort(h, n, sizeof *h, cmp_hit);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        size_t m;
        if (i < k) { /* sift up */
            m = i;
            while (m > 0 && hit_before(&h[(m - 1) / 2], &h[m])) {
                am__fts_hit t = h[m];
                h[m] = h[(m - 1) / 2];
                h[(m - 1) / 2] = t;
                m = (m - 1) / 2;
            }
            continue;
        }
        if (!hit_before(&h[i], &h[0])) continue;
        am__fts_hit t = h[0];
        h[0] = h[i];
        h[i] = t;
        for (m = 0;;) { /* sift down: the worst of the k on top */
            size_t l = 2 * m + 1, r = l + 1, w = m;
            if (l < k && hit_before(&h[w], &h[l])) w = l;
            if (r < k && hit_before(&h[w], &h[r])) w = r;
            if (w == m) break;
            t = h[m];
            h[m] = h[w];
            h[w] = t;
            m = w;
        }
    }
    qsort(h, k, sizeof *h, cmp_hit);
}

/* The rows of hit[0..k) not found yet (found[j] 0), whose ids are in
 * s->scratch as a JSON array, into batch[j] (found[j] = 1) and, keep set,
 * the row cache; those not read stay 0. */
static int read_asked(sq_store *s, const char *uid, const am__fts_hit *hit, size_t k,
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
        if (j >= k || hit[j].rid != rid)
            for (j = 0; j < k && hit[j].rid != rid; j++) {}
        if (j == k || found[j]) continue; /* not one asked for */
        read_event(ar, get, &batch[j]);
        if (ar->oom) out = AM_NOMEM;
        else if (keep) am__rowcache_put(s->rows, &batch[j]);
        found[j] = 1;
    }
    if (out == AM_OK && rc != SQLITE_DONE) out = fail(s, rc, "events");
    done(s, get);
    return out;
}

/* Read the best hits' rows, best first, until `want` are read: a row
 * that is not the user's (a token collision) or gone is skipped and the
 * next hit read.  A batch is what is still wanted, so the common case,
 * nothing skipped, is one batch.  Its rows come from the row cache
 * (row_cache.c) when it holds them, the others from one statement,
 * json_each handing over their row ids (a statement per row spent more in
 * its reset and set-up than in the row), each placed by its row id, not by
 * the order the statement returns them in.  h->hit[0..top) are ranked. */
static int read_hits(sq_store *s, const char *uid, am__fts_hits *h, size_t top, size_t want,
                     am__arena *ar, am__event_row **rows, size_t *n)
{
    am__event_row *got = am__arena_alloc(ar, (want + 1) * sizeof *got);
    am__event_row *batch = am__arena_alloc(ar, (want + 1) * sizeof *batch);
    unsigned char *found = am__arena_alloc(ar, want + 1); /* 1 read, 2 not the user's */
    if (!got || !batch || !found) return AM_NOMEM;
    am__buf *ids = &s->scratch;
    size_t next = 0, n_got = 0;
    int out = AM_OK;
    while (out == AM_OK && n_got < want && next < h->n) {
        size_t k = want - n_got, asked = 0;
        if (k > h->n - next) k = h->n - next;
        if (next + k > top) { /* rows skipped: rank the rest too */
            qsort(h->hit + top, h->n - top, sizeof *h->hit, cmp_hit);
            top = h->n;
        }
        am__buf_reset(ids);
        am__buf_addc(ids, '[');
        for (size_t j = 0; j < k && out == AM_OK; j++) {
            int held = 0;
            out = am__rowcache_get(s->rows, h->hit[next + j].rid, ar, &batch[j], &held);
            found[j] = !held ? 0 : strcmp(batch[j].user_id, uid) == 0 ? 1 : 2;
            if (held) continue;
            if (asked++) am__buf_addc(ids, ',');
            am__buf_add_int(ids, h->hit[next + j].rid);
        }
        am__buf_addc(ids, ']');
        if (out == AM_OK && ids->oom) out = AM_NOMEM;
        if (out == AM_OK && asked) out = read_asked(s, uid, h->hit + next, k, ar, batch, found, 1);
        for (size_t j = 0; j < k && out == AM_OK; j++)
            if (found[j] == 1) {
                got[n_got] = batch[j];
                got[n_got++].score = h->hit[next + j].score;
            }
        next += k;
    }
    *rows = n_got ? got : NULL;
    *n = n_got;
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
static int merge_lists(sq_store *s, am__arena *ar, const am__fts_hits *h, const size_t *qmap,
                       const am__post_list *const *pl, size_t kept, int64_t user_rows,
                       am__fts_hits *out)
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
    uint32_t *at = am__arena_alloc(ar, cap * sizeof *at);
    uint32_t *cnt = am__arena_alloc(ar, (cand + 1) * sizeof *cnt);
    out->hit = am__malloc(s->a, (cand + 1) * sizeof *out->hit);
    out->tf = am__malloc(s->a, (n_tf + 1) * sizeof *out->tf);
    if (!key || !at || !cnt || !out->hit || !out->tf) return AM_NOMEM;
    out->cap = cand + 1;
    out->cap_tf = n_tf + 1;
    size_t rows = 0;
    /* pass 1: the rows and their number of counts */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < h->n; i++) {
            const am__fts_hit *e = &h->hit[i];
            size_t j = am__rid_home((uint64_t)e->rid + 1, cap);
            while (key[j] && key[j] != e->rid + 1) j = (j + 1) & (cap - 1);
            if (pass == 0) {
                key[j] = e->rid + 1;
                at[j] = (uint32_t)rows;
                out->hit[rows] = *e;
                cnt[rows++] = e->n_tf;
                continue;
            }
            am__fts_hit *o = &out->hit[at[j]];
            for (uint32_t t = 0; t < e->n_tf; t++) {
                am__fts_tf x = h->tf[e->first + t];
                x.phrase = (uint16_t)qmap[x.phrase];
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
                    am__fts_hit *o = &out->hit[at[j]];
                    am__fts_tf *x = &out->tf[o->first + o->n_tf++];
                    x->phrase = (uint16_t)k;
                    memcpy(x->tf, pl[k]->tf[r], sizeof x->tf);
                    continue;
                }
                if (!key[j]) {
                    uint32_t len[AM__FTS_SCORED];
                    if (rows >= rows_max || !am__fts_lens_get(s->lens, rid, len)) return -1;
                    key[j] = rid + 1;
                    at[j] = (uint32_t)rows;
                    am__fts_hit *o = &out->hit[rows];
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
        am__fts_tf *x = out->tf + out->hit[i].first;
        for (uint32_t a = 1; a < out->hit[i].n_tf; a++) {
            am__fts_tf v = x[a];
            uint32_t b = a;
            for (; b > 0 && x[b - 1].phrase > v.phrase; b--) x[b] = x[b - 1];
            x[b] = v;
        }
    }
    out->n = rows;
    out->n_phrase = (int)kept;
    am__term_list_reads++;
    return AM_OK;
}

/* A scanned term's complete list (the scan was not bounded in time, so
 * every row holding it matched) into the cache: the hits' counts
 * bucketed by phrase, rows in the scan's order (rowid order). */
static void lists_put(sq_store *s, am__arena *ar, const char *tag, const char *const *terms,
                      const am__fts_hits *h, const size_t *qterm, size_t nq)
{
    size_t *off = am__arena_alloc(ar, (nq + 1) * sizeof *off);
    int64_t *rid = am__arena_alloc(ar, (h->n_tf + 1) * sizeof *rid);
    uint16_t(*tf)[AM__FTS_SCORED] = am__arena_alloc(ar, (h->n_tf + 1) * sizeof *tf);
    if (!off || !rid || !tf) return;
    for (size_t t = 0; t < h->n_tf; t++)
        if (h->tf[t].phrase < nq) off[h->tf[t].phrase + 1]++;
    for (size_t j = 1; j <= nq; j++) off[j] += off[j - 1];
    for (size_t i = 0; i < h->n; i++) {
        const am__fts_hit *e = &h->hit[i];
        for (uint32_t t = 0; t < e->n_tf; t++) {
            const am__fts_tf *x = &h->tf[e->first + t];
            if (x->phrase >= nq) continue;
            size_t at = off[x->phrase]++;
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

#define SEARCH_SCAN_ALL (-1) /* events_search_run: held lists cannot be used, scan all */

static int events_search_run(am__store *b, const char *uid,
                             const char *const *terms, const double *weights,
                             size_t n_terms, double w_ctx,
                             am_time from, am_time to, int limit, am__arena *ar,
                             am__event_row **rows, size_t *n, am__search_stats *stats,
                             int use_lists)
{
    sq_store *s = SQ(b);
    *rows = NULL;
    *n = 0;
    if (n_terms == 0 || limit <= 0) return AM_OK;
    /* Terms are per user (fts_tokenizer.c): "<user token> 0x1F term".
     * One scan of the index gathers every matching row's column lengths
     * and term counts (am_collect, fts_rank.c); BM25F is computed here and
     * only the best rows are read.  The terms' document frequencies come
     * with that scan (every row holding a term matches the OR query) --
     * except when the history is long, where they are read first from the
     * index's vocabulary (one b-tree lookup and a doclist walk per term) to
     * drop frequent terms: a term in more than a tenth of a long history
     * adds almost nothing to BM25 (its idf is near zero) but costs the
     * longest posting list -- and when the scan is bounded in time, which
     * sees only part of the history (unless the caller hands over what a
     * whole-history search of the same terms gathered: stats).  N is the
     * user's event counter.
     *
     * A term whose list the connection holds (post_cache.c) is not
     * scanned: its rows and counts, and its frequency, come from memory;
     * the scan's terms' lists are kept for the next search.  Not for a
     * search bounded in time (its scan sees part of the lists). */
    char tag[32];
    uid_token(uid, tag, 0);
    am__buf *q = &s->scratch;
    int rc;
    unsigned char *keep = am__arena_alloc(ar, n_terms + 1);
    double *df = am__arena_alloc(ar, (n_terms + 1) * sizeof *df);
    double *wt = am__arena_alloc(ar, (n_terms + 1) * sizeof *wt);
    const am__post_list **pl = am__arena_alloc(ar, (n_terms + 1) * sizeof *pl);
    size_t *qmap = am__arena_alloc(ar, (n_terms + 1) * sizeof *qmap);  /* scanned -> kept */
    size_t *qterm = am__arena_alloc(ar, (n_terms + 1) * sizeof *qterm); /* scanned -> term */
    const am__post_list **kpl = am__arena_alloc(ar, (n_terms + 1) * sizeof *kpl);
    if (!keep || !df || !wt || !pl || !qmap || !qterm || !kpl) return AM_NOMEM;
    /* known column lengths and lists hold unless another connection
     * wrote (the caller runs this search in one snapshot:
     * sq_events_search) */
    if ((rc = caches_current(s))) return rc;
    int64_t rows_total = 0;
    sqlite3_stmt *cnt = stmt(s, "SELECT n_events FROM users WHERE user_id = ?");
    if (!cnt) return AM_BACKEND;
    bind_text(cnt, 1, uid);
    int crc = sqlite3_step(cnt);
    if (crc == SQLITE_ROW) rows_total = sqlite3_column_int64(cnt, 0);
    done(s, cnt);
    if (crc != SQLITE_ROW && crc != SQLITE_DONE) return fail(s, crc, "event count");
    int timed = from != AM_TIME_NONE || to != AM_TIME_NONE;
    int known = stats && stats->valid; /* from a search of the same terms */
    int vocab = !known && (timed || rows_total <= 0 || rows_total > 2000);
    use_lists = use_lists && !timed && s->post && rows_total > 0;
    for (size_t i = 0; i < n_terms; i++) {
        pl[i] = NULL;
        if (!use_lists) continue;
        am__buf_reset(q);
        am__buf_adds(q, tag);
        am__buf_addc(q, AM__FTS_TAG_SEP);
        am__buf_adds(q, terms[i]);
        if (q->oom) return AM_NOMEM;
        pl[i] = am__post_get(s->post, q->p, q->len);
    }
    if (known) {
        memcpy(df, stats->df, n_terms * sizeof *df);
        rows_total = (int64_t)stats->n_docs;
    }
    if (vocab) {
        /* the bare user token's frequency only when the counter says nothing */
        size_t lookups = rows_total > 0 ? n_terms : n_terms + 1;
        for (size_t i = 0; i < lookups; i++) {
            if (i < n_terms && pl[i]) { /* held: its length is its frequency */
                df[i] = (double)pl[i]->n;
                continue;
            }
            sqlite3_stmt *v = stmt(s, "SELECT doc FROM temp.am_events_vocab WHERE term = ?");
            if (!v) return AM_BACKEND;
            am__buf_reset(q);
            am__buf_adds(q, tag);
            if (i < n_terms) {
                am__buf_addc(q, AM__FTS_TAG_SEP);
                am__buf_adds(q, terms[i]);
            }
            if (q->oom) { done(s, v); return AM_NOMEM; }
            sqlite3_bind_text(v, 1, q->p, (int)q->len, SQLITE_STATIC);
            int src = sqlite3_step(v);
            int64_t d = src == SQLITE_ROW ? sqlite3_column_int64(v, 0) : 0;
            done(s, v);
            if (src != SQLITE_ROW && src != SQLITE_DONE) return fail(s, src, "term frequencies");
            if (i == n_terms) rows_total = d;
            else df[i] = (double)d;
        }
        if (stats && !stats->valid) {
            memcpy(stats->df, df, n_terms * sizeof *df);
            stats->n_docs = (double)rows_total;
            stats->valid = 1;
        }
    }
    if (vocab || known) {
        if (rows_total == 0) return AM_OK; /* nothing indexed for this user */
        int64_t max_df = rows_total > 2000 ? rows_total / 10 : INT64_MAX;
        if (rows_total > 2000 && stats && stats->max_share > 0 &&
            (double)rows_total * stats->max_share < (double)max_df)
            max_df = (int64_t)((double)rows_total * stats->max_share);
        size_t rare = 0;
        for (size_t i = 0; i < n_terms; i++) {
            keep[i] = df[i] > 0 && df[i] <= (double)max_df; /* absent terms cannot match */
            rare += keep[i];
        }
        if (rare == 0) /* only frequent terms: keep them all */
            for (size_t i = 0; i < n_terms; i++) keep[i] = df[i] > 0;
    } else {
        memset(keep, 1, n_terms);
    }
    am__buf_reset(q);
    am__buf_adds(q, "{doc ctx}:(");
    size_t kept = 0, scanned = 0;
    for (size_t i = 0; i < n_terms; i++) {
        if (!keep[i]) continue;
        wt[kept] = weights ? weights[i] : 1.0;
        df[kept] = df[i]; /* the phrase order of the query */
        kpl[kept] = pl[i];
        if (pl[i]) {
            kept++;
            continue;
        }
        if (scanned) am__buf_adds(q, " OR ");
        qmap[scanned] = kept++;
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
    if (q->oom) return AM_NOMEM;
    if (kept == 0) return AM_OK; /* no query term occurs in this history */
    am__fts_hits h;
    memset(&h, 0, sizeof h);
    h.a = s->a;
    h.lens = s->lens;
    h.col0 = 1; /* uid, doc, ctx */
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
        sqlite3_bind_text(st, 1, q->p, (int)q->len, SQLITE_STATIC);
        sqlite3_bind_pointer(st, 2, &h, "am__fts_hits", NULL);
        if (timed) {
            bind_text(st, 3, uid);
            bind_time(st, 4, from);
            bind_time(st, 5, to);
        }
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {}
        done(s, st);
        if (rc != SQLITE_DONE) {
            am__fts_hits_free(&h);
            return fail(s, rc, "search");
        }
        if (h.n_phrase != (int)scanned) /* cannot happen: one phrase per term */
            h.n = h.n_tf = 0; /* (lists_put buckets the counts: none) */
        if (h.n == 0) h.n_phrase = (int)scanned;
    }
    if (h.n == 0 && scanned < kept && !fts_averages(s, h.avg)) { /* no row told them */
        am__fts_hits_free(&h);
        return SEARCH_SCAN_ALL;
    }
    if (!vocab && !known) {
        double *sdf = am__arena_alloc(ar, (scanned + 1) * sizeof *sdf);
        if (!sdf) { am__fts_hits_free(&h); return AM_NOMEM; }
        if (scanned) am__fts_hits_df(&h, sdf);
        for (size_t j = 0; j < scanned; j++) df[qmap[j]] = sdf[j];
        for (size_t k = 0; k < kept; k++)
            if (kpl[k]) df[k] = (double)kpl[k]->n;
        if (stats && !stats->valid && kept == n_terms) { /* every term kept */
            memcpy(stats->df, df, n_terms * sizeof *df);
            stats->n_docs = (double)rows_total;
            stats->valid = 1;
        }
    }
    if (scanned < kept) { /* held lists too: one set of hits */
        am__fts_hits all;
        memset(&all, 0, sizeof all);
        all.a = s->a;
        memcpy(all.avg, h.avg, sizeof all.avg);
        rc = merge_lists(s, ar, &h, qmap, kpl, kept, rows_total, &all);
        if (rc) {
            am__fts_hits_free(&all);
            am__fts_hits_free(&h);
            return rc == -1 ? SEARCH_SCAN_ALL : rc;
        }
        /* then the scanned terms' lists join the cache (which may move
         * or drop the lists just read) */
        if (use_lists && scanned) lists_put(s, ar, tag, terms, &h, qterm, scanned);
        am__fts_hits_free(&h);
        h = all;
    } else if (use_lists && scanned) {
        lists_put(s, ar, tag, terms, &h, qterm, scanned);
    }
    const double w_col[AM__FTS_SCORED] = {1.0, w_ctx};
    am__fts_hits_score(&h, df, (double)rows_total, wt, w_col);
    size_t top = (size_t)limit < h.n ? (size_t)limit : h.n;
    hits_top(h.hit, h.n, top);
    int out = read_hits(s, uid, &h, top, (size_t)limit, ar, rows, n);
    am__fts_hits_free(&h);
    return out;
}

/* The version check, the frequencies, the scan and the reads of one
 * search share a snapshot: outside a write transaction, in a read
 * transaction of its own (else another connection's commit between the
 * check and the scan could meet lengths cached before it). */
static int sq_events_search(am__store *b, const char *uid,
                            const char *const *terms, const double *weights,
                            size_t n_terms, double w_ctx,
                            am_time from, am_time to, int limit, am__arena *ar,
                            am__event_row **rows, size_t *n, am__search_stats *stats)
{
    sq_store *s = SQ(b);
    int own_txn, rc = snapshot_begin(s, &own_txn, "search");
    if (rc) return rc;
    rc = events_search_run(b, uid, terms, weights, n_terms, w_ctx, from, to, limit, ar, rows, n,
                           stats, 1);
    if (rc == SEARCH_SCAN_ALL)
        rc = events_search_run(b, uid, terms, weights, n_terms, w_ctx, from, to, limit, ar, rows,
                               n, stats, 0);
    return snapshot_end(s, own_txn, rc, "search");
}

static int sq_events_recent(am__store *b, const char *uid, const char *session,
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
    return read_events(s, st, ar, rows, n, 0);
}

static int sq_events_list(am__store *b, const char *uid, am__arena *ar,
                          am__event_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT " EVENT_COLS " FROM events e WHERE e.user_id=? ORDER BY e.occurred_at, e.rid");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    return read_events(s, st, ar, rows, n, 0);
}

static int sq_pii_events(am__store *b, const char *uid, const char *type, am_time to,
                         int limit, am__arena *ar, am__event_row **rows,
                         const char ***originals, size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT " EVENT_COLS ", v.original FROM pii_vault v"
                               " JOIN events e ON e.rid = v.event_rid"
                               " WHERE v.user_id=?1 AND v.type=?2 AND e.user_id=?1"
                               " AND e.occurred_at < coalesce(?3, 9223372036854775807)"
                               " ORDER BY e.occurred_at DESC, e.rid DESC LIMIT ?4");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, type);
    bind_time(st, 3, to);
    sqlite3_bind_int(st, 4, limit);
    size_t cap = 0, ocap = 0, on = 0;
    *rows = NULL;
    *originals = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__event_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        const char **o = push(ar, (void **)originals, &on, &ocap, sizeof *o);
        if (!r || !o) { done(s, st); return AM_NOMEM; }
        read_event(ar, st, r);
        *o = col_text(ar, st, 16);
        if (ar->oom || !*o) { done(s, st); return AM_NOMEM; }
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "pii");
    done(s, st);
    return out;
}

/* One statement for all the rids (json_each hands them over; a
 * statement per rid spent more in its reset and set-up than in its
 * lookup): the array index of each one that is dated. */
static int sq_events_dated(am__store *b, const char *uid, const int64_t *rids, size_t n,
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

static int sq_entities_list(am__store *b, const char *uid, int64_t rid,
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
    return out;
}

static int sq_event_find(am__store *b, const char *uid, const char *needle,
                         char out[32])
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT id FROM events WHERE user_id=? AND instr(content, ?) > 0 ORDER BY occurred_at DESC, rid DESC LIMIT 1");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, needle);
    int rc = sqlite3_step(st), r;
    if (rc == SQLITE_ROW) {
        snprintf(out, 32, "%s", (const char *)sqlite3_column_text(st, 0));
        r = AM_OK;
    } else {
        r = rc == SQLITE_DONE ? AM_NOTFOUND : fail(s, rc, "event find");
    }
    done(s, st);
    return r;
}

/* ------------------------------------------------------------ tasks */

#define TASK_COLS "task_id, name, stage, status, artifacts, pending, notes, created_at, updated_at"

static void read_task(am__arena *ar, sqlite3_stmt *st, am__task_row *t)
{
    t->task_id = col_text(ar, st, 0);
    t->name = col_text(ar, st, 1);
    t->stage = col_text(ar, st, 2);
    t->status = col_text(ar, st, 3);
    t->artifacts = col_text(ar, st, 4);
    t->pending = col_text(ar, st, 5);
    t->notes = col_text(ar, st, 6);
    t->created_at = col_time(st, 7);
    t->updated_at = col_time(st, 8);
}

static int sq_task_get(am__store *b, const char *uid, const char *task_id,
                       am__arena *ar, am__task_row *out)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT " TASK_COLS " FROM tasks WHERE user_id=? AND task_id=?");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, task_id);
    int rc = sqlite3_step(st), r;
    if (rc == SQLITE_ROW) {
        read_task(ar, st, out);
        r = ar->oom ? AM_NOMEM : AM_OK;
    } else {
        r = rc == SQLITE_DONE ? AM_NOTFOUND : fail(s, rc, "task");
    }
    done(s, st);
    return r;
}

static int sq_task_put(am__store *b, const char *uid, const am__task_row *t)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT INTO tasks(user_id, " TASK_COLS ") VALUES(?,?,?,?,?,?,?,?,?,?)"
                               " ON CONFLICT(user_id, task_id) DO UPDATE SET name=excluded.name, stage=excluded.stage,"
                               " status=excluded.status, artifacts=excluded.artifacts, pending=excluded.pending,"
                               " notes=excluded.notes, updated_at=excluded.updated_at");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, t->task_id);
    bind_text(st, 3, t->name);
    bind_text(st, 4, t->stage);
    bind_text(st, 5, t->status);
    bind_text(st, 6, t->artifacts ? t->artifacts : "[]");
    bind_text(st, 7, t->pending ? t->pending : "[]");
    bind_text(st, 8, t->notes ? t->notes : "[]");
    sqlite3_bind_int64(st, 9, t->created_at);
    sqlite3_bind_int64(st, 10, t->updated_at);
    return run(s, st, "task");
}

static int sq_task_change_add(am__store *b, const char *uid,
                              const am__task_change_row *c)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT INTO task_history(user_id, task_id, at, field, old_value, new_value, event_id) VALUES(?,?,?,?,?,?,?)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, c->task_id);
    sqlite3_bind_int64(st, 3, c->at);
    bind_text(st, 4, c->field);
    bind_text(st, 5, c->old_value);
    bind_text(st, 6, c->new_value);
    bind_text(st, 7, c->event_id);
    return run(s, st, "task history");
}

static int sq_task_history(am__store *b, const char *uid, const char *task_id,
                           am__arena *ar, am__task_change_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT at, task_id, field, old_value, new_value, event_id FROM task_history WHERE user_id=?1 AND (?2 IS NULL OR task_id=?2) ORDER BY seq");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, task_id);
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__task_change_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        r->at = col_time(st, 0);
        r->task_id = col_text(ar, st, 1);
        r->field = col_text(ar, st, 2);
        r->old_value = col_text(ar, st, 3);
        r->new_value = col_text(ar, st, 4);
        r->event_id = col_text(ar, st, 5);
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "task history");
    done(s, st);
    return out;
}

static int sq_tasks_list(am__store *b, const char *uid, am__arena *ar,
                         am__task_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT " TASK_COLS " FROM tasks WHERE user_id=? ORDER BY updated_at DESC, task_id");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__task_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        read_task(ar, st, r);
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "tasks");
    done(s, st);
    return out;
}

/* ------------------------------------------------------------ items */

static int sq_item_insert(am__store *b, const char *uid, am__item_row *it)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT INTO memory_items(id, lineage_id, user_id, scope, kind, key, text, value_json, confidence,"
                               " base_score, half_life_days, valid_from, valid_to, recorded_at, superseded_at, status, tokens)"
                               " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
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
    int rc = run(s, st, "memory item");
    if (rc) return rc;
    it->rid = sqlite3_last_insert_rowid(s->db);
    for (size_t i = 0; i < it->n_sources; i++) {
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

static int sq_item_close(am__store *b, const char *uid, const char *vid,
                         am_time at)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "UPDATE memory_items SET superseded_at=? WHERE user_id=? AND id=? AND superseded_at IS NULL");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, at);
    bind_text(st, 2, uid);
    bind_text(st, 3, vid);
    int rc = run(s, st, "close item");
    if (rc == AM_OK && sqlite3_changes(s->db) == 0) return AM_NOTFOUND;
    return rc;
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
static int sq_item_sources(am__store *b, const char *uid, int64_t item_rid, am__arena *ar,
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

static int sq_items_list(am__store *b, const char *uid, int which, am_time at,
                         am__arena *ar, am__item_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
#define ITEM_COLS                                                                            \
    "SELECT m.rid, m.id, m.lineage_id, m.scope, m.kind, m.key, m.text, m.value_json, m.confidence," \
    " m.base_score, m.half_life_days, m.valid_from, m.valid_to, m.recorded_at, m.superseded_at,"    \
    " m.status, h.hits, h.last_access, m.tokens,"
#define ITEM_SRC " (SELECT group_concat(x.event_id, ',') FROM item_sources x WHERE x.item_rid = m.rid) AS src"
#define ITEM_NOSRC " NULL AS src"
#define ITEM_FROM " FROM memory_items m LEFT JOIN item_heat h ON h.user_id=m.user_id AND h.lineage_id=m.lineage_id"
#define ITEM_CURRENT                                                                            \
    " WHERE m.user_id=?1 AND m.superseded_at IS NULL AND m.status IN ('active','pending_confirm')" \
    " AND m.valid_from <= ?2 AND (m.valid_to IS NULL OR m.valid_to > ?2) ORDER BY m.rid"
#define ITEM_ALL " WHERE m.user_id=?1 AND ?2 = ?2 ORDER BY m.lineage_id, m.rid"
#define ITEM_ASOF                                                                               \
    " WHERE m.user_id=?1 AND m.superseded_at IS NULL"                                           \
    " AND m.status IN ('active','invalidated','pending_confirm')"                               \
    " AND m.valid_from <= ?2 AND (m.valid_to IS NULL OR m.valid_to > ?2) ORDER BY m.rid"
    /* [mode][without sources] */
    static const char *const sql[3][2] = {
        {ITEM_COLS ITEM_SRC ITEM_FROM ITEM_CURRENT, ITEM_COLS ITEM_NOSRC ITEM_FROM ITEM_CURRENT},
        {ITEM_COLS ITEM_SRC ITEM_FROM ITEM_ALL, ITEM_COLS ITEM_NOSRC ITEM_FROM ITEM_ALL},
        {ITEM_COLS ITEM_SRC ITEM_FROM ITEM_ASOF, ITEM_COLS ITEM_NOSRC ITEM_FROM ITEM_ASOF},
    };
    int no_src = (which & AM__ITEMS_NO_SOURCES) != 0;
    which &= ~AM__ITEMS_NO_SOURCES;
    if (which < 0 || which > 2) return AM_MISUSE;
    const char *sql_use = sql[which][no_src];
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
            unsigned char *copy = am__arena_alloc(ar, (size_t)tl);
            if (!copy) { done(s, st); return AM_NOMEM; }
            memcpy(copy, tb, (size_t)tl);
            r->tokens = copy;
            r->tokens_len = (size_t)tl;
        }
        /* provenance: event ids (ULIDs, no commas) joined by ',' */
        const char *src = col_text(ar, st, 19);
        if (src && *src) {
            size_t k = 1;
            for (const char *p = src; *p; p++) k += *p == ',';
            r->sources = am__arena_alloc(ar, k * sizeof *r->sources);
            if (!r->sources) { done(s, st); return AM_NOMEM; }
            char *cur = (char *)src;
            for (;;) {
                char *comma = strchr(cur, ',');
                if (comma) *comma = 0;
                r->sources[r->n_sources++] = cur;
                if (!comma) break;
                cur = comma + 1;
            }
        }
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "items");
    done(s, st);
    if (out) return out;
    return ar->oom ? AM_NOMEM : AM_OK;
}

static int sq_item_touch(am__store *b, const char *uid, const char *lineage,
                         am_time at)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "UPDATE item_heat SET hits=hits+1, last_access=? WHERE user_id=? AND lineage_id=?");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, at);
    bind_text(st, 2, uid);
    bind_text(st, 3, lineage);
    return run(s, st, "item heat");
}

/* ------------------------------------------------------------ forget */

/* Event rows selected for deletion are first collected into a temp table;
 * everything else is deleted through it, so all indexes agree. */
static int forget_collected(sq_store *s, const char *uid, long *events,
                            long *items)
{
    static const char *const steps[] = {
        "DELETE FROM events_fts WHERE rowid IN (SELECT rid FROM temp.am_forget)",
        "DELETE FROM entities WHERE user_id=?1 AND event_rid IN (SELECT rid FROM temp.am_forget)",
        "DELETE FROM event_vectors WHERE user_id=?1 AND event_rid IN (SELECT rid FROM temp.am_forget)",
        "DELETE FROM pii_vault WHERE user_id=?1 AND event_rid IN (SELECT rid FROM temp.am_forget)",
        "DELETE FROM task_history WHERE user_id=?1 AND event_id IN (SELECT id FROM temp.am_forget)",
        "DELETE FROM item_sources WHERE user_id=?1 AND event_id IN (SELECT id FROM temp.am_forget)",
        /* cascade: item versions left with no source go */
        "DELETE FROM memory_items WHERE user_id=?1 AND NOT EXISTS (SELECT 1 FROM item_sources s WHERE s.item_rid = memory_items.rid)",
        "DELETE FROM item_heat WHERE user_id=?1 AND lineage_id NOT IN (SELECT lineage_id FROM memory_items WHERE user_id=?1)",
        "DELETE FROM events WHERE user_id=?1 AND rid IN (SELECT rid FROM temp.am_forget)",
        "UPDATE users SET n_events = (SELECT count(*) FROM events e WHERE e.user_id = ?1)"
        " WHERE user_id = ?1",
        /* A forgotten turn also lived in its neighbours' indexed context:
         * rebuild the context of every remaining event of the sessions
         * touched, from the turns that remain. */
        "UPDATE events_fts SET ctx = '" AM__FTS_TAG "' || uid || '" AM__FTS_TAG "' ||"
        " (SELECT coalesce(x.p2 || ' ', '') || coalesce(x.p1 || ' ', '')"
        "  || coalesce(x.n1, '')"
        "  FROM (SELECT rid,"
        "        CASE WHEN occurred_at - LAG(occurred_at, 2) OVER w <= " AM__CONTEXT_GAP_SQL " THEN LAG(content, 2) OVER w END AS p2,"
        "        CASE WHEN occurred_at - LAG(occurred_at, 1) OVER w <= " AM__CONTEXT_GAP_SQL " THEN LAG(content, 1) OVER w END AS p1,"
        "        CASE WHEN LEAD(occurred_at, 1) OVER w - occurred_at <= " AM__CONTEXT_GAP_SQL " THEN LEAD(content, 1) OVER w END AS n1"
        "        FROM events"
        "        WHERE user_id=?1 AND session_id IN (SELECT session_id FROM temp.am_forget)"
        "        WINDOW w AS (PARTITION BY session_id ORDER BY occurred_at, rid)) x"
        "  WHERE x.rid = events_fts.rowid)"
        " WHERE rowid IN (SELECT rid FROM events WHERE user_id=?1"
        "                 AND session_id IN (SELECT session_id FROM temp.am_forget))",
    };
    int rc = vec_forget_packed(s, uid); /* before their rows go */
    if (rc) return rc;
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        sqlite3_stmt *st = stmt(s, steps[i]);
        if (!st) return AM_BACKEND;
        if (sqlite3_bind_parameter_count(st) >= 1) bind_text(st, 1, uid);
        if ((rc = run(s, st, "forget"))) return rc;
        long ch = (long)sqlite3_changes(s->db);
        if (strncmp(steps[i], "DELETE FROM memory_items", 24) == 0) *items += ch;
        if (strncmp(steps[i], "DELETE FROM events WHERE", 24) == 0) *events += ch;
    }
    return AM_OK;
}

static int sq_forget(am__store *b, const char *uid, int level, const char *id,
                     am_time now, long *events, long *items, long *tasks)
{
    sq_store *s = SQ(b);
    int rc;
    *events = *items = *tasks = 0;
    am__vc_clear(s->vc, uid);
    am__fts_lens_clear(s->lens);
    am__rowcache_clear(s->rows);
    am__post_clear(s->post);
    if ((rc = exec(s, "CREATE TEMP TABLE IF NOT EXISTS am_forget(rid INTEGER PRIMARY KEY, id TEXT, session_id TEXT);"
                      "DELETE FROM temp.am_forget;", "forget")))
        return rc;
    static const char *const pick[] = {
        NULL,
        "INSERT INTO temp.am_forget SELECT rid, id, session_id FROM events WHERE user_id=?1 AND id=?2",
        "INSERT INTO temp.am_forget SELECT rid, id, session_id FROM events WHERE user_id=?1 AND session_id=?2",
        "INSERT INTO temp.am_forget SELECT rid, id, session_id FROM events WHERE user_id=?1 AND task_id=?2",
        "INSERT INTO temp.am_forget SELECT rid, id, session_id FROM events WHERE user_id=?1 AND ?2 IS NULL",
    };
    if (level < 1 || level > 4) return AM_MISUSE;
    sqlite3_stmt *st = stmt(s, pick[level]);
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, level == AM_FORGET_USER ? NULL : id);
    if ((rc = run(s, st, "forget"))) return rc;
    long picked = (long)sqlite3_changes(s->db);
    if ((rc = forget_collected(s, uid, events, items))) return rc;
    if (level == AM_FORGET_TASK) {
        st = stmt(s, "DELETE FROM tasks WHERE user_id=? AND task_id=?");
        if (!st) return AM_BACKEND;
        bind_text(st, 1, uid);
        bind_text(st, 2, id);
        if ((rc = run(s, st, "forget task"))) return rc;
        *tasks = (long)sqlite3_changes(s->db);
        st = stmt(s, "DELETE FROM task_history WHERE user_id=? AND task_id=?");
        if (!st) return AM_BACKEND;
        bind_text(st, 1, uid);
        bind_text(st, 2, id);
        if ((rc = run(s, st, "forget task"))) return rc;
        /* items scoped to the task go with it */
        st = stmt(s, "DELETE FROM memory_items WHERE user_id=? AND scope=?");
        if (!st) return AM_BACKEND;
        bind_text(st, 1, uid);
        char scope[AM_ID_MAX + 8];
        snprintf(scope, sizeof scope, "task:%s", id);
        bind_text(st, 2, scope);
        if ((rc = run(s, st, "forget task items"))) return rc;
        *items += (long)sqlite3_changes(s->db);
    }
    if (level == AM_FORGET_USER) {
        static const char *const wipe[] = {
            "DELETE FROM item_sources WHERE user_id=?1",
            "DELETE FROM memory_items WHERE user_id=?1",
            "DELETE FROM item_heat WHERE user_id=?1",
            "DELETE FROM task_history WHERE user_id=?1",
            "DELETE FROM tasks WHERE user_id=?1",
            "DELETE FROM entities WHERE user_id=?1",
            "DELETE FROM event_vectors WHERE user_id=?1",
            "DELETE FROM vector_blocks WHERE user_id=?1",
            "DELETE FROM pii_vault WHERE user_id=?1",
            "DELETE FROM identity_links WHERE user_id=?1",
            "DELETE FROM tombstones WHERE user_id=?1",
            "DELETE FROM users WHERE user_id=?1",
            /* pseudonymise the audit trail: ids of objects stay, the
             * user's id is replaced by a one-way hash */
            "UPDATE audit_log SET user_id='forgotten:' || ?2 WHERE user_id=?1",
        };
        char hash[32];
        snprintf(hash, sizeof hash, "%016" PRIx64, am__hash64(uid, strlen(uid)));
        for (size_t i = 0; i < sizeof wipe / sizeof *wipe; i++) {
            st = stmt(s, wipe[i]);
            if (!st) return AM_BACKEND;
            bind_text(st, 1, uid);
            if (sqlite3_bind_parameter_count(st) >= 2) bind_text(st, 2, hash);
            if ((rc = run(s, st, "forget user"))) return rc;
            if (i == 1) *items += (long)sqlite3_changes(s->db);
            if (i == 4) *tasks = (long)sqlite3_changes(s->db);
        }
    } else {
        static const char *const lv[] = {"", "event", "session", "task", "user"};
        st = stmt(s, "INSERT INTO tombstones(user_id, level, object_id, at) VALUES(?,?,?,?)");
        if (!st) return AM_BACKEND;
        bind_text(st, 1, uid);
        bind_text(st, 2, lv[level]);
        bind_text(st, 3, id);
        sqlite3_bind_int64(st, 4, now);
        if ((rc = run(s, st, "tombstone"))) return rc;
    }
    /* Merge the FTS index so deleted postings are dropped from its pages,
     * and secure_delete zeroes the freed pages. */
    if (picked > 0 &&
        (rc = exec(s, "INSERT INTO events_fts(events_fts) VALUES('optimize')",
                   "forget index")))
        return rc;
    if (picked == 0 && *tasks == 0 && *items == 0 && level != AM_FORGET_USER)
        return AM_NOTFOUND;
    return AM_OK;
}

static int sq_entity_counts(am__store *b, const char *uid, const char *type, int limit,
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
    return out;
}

typedef int (*item_tokens_fn)(void *ctx, const char *text, const char *key, unsigned char *blob,
                              size_t *len);

/* Each item version the statement select (its rid, text and key; one
 * row after ?1, by rid) gets the token set fn computes; in the caller's
 * transaction. */
static int item_tokens_set(sq_store *s, const char *select, item_tokens_fn fn, void *ctx,
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

static int sq_item_tokens_fill(am__store *b, item_tokens_fn fn, void *ctx, size_t *n)
{
    sq_store *s = SQ(b);
    *n = 0;
    int rc = exec(s, "BEGIN IMMEDIATE", "item tokens");
    if (rc) return rc;
    rc = item_tokens_set(s, "SELECT rid, text, key FROM memory_items"
                            " WHERE tokens IS NULL AND rid > ? ORDER BY rid LIMIT 1",
                         fn, ctx, n);
    if (rc) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    return exec(s, "COMMIT", "item tokens");
}

static int sq_optimize(am__store *b)
{
    sq_store *s = SQ(b);
    int rc = exec(s, "INSERT INTO events_fts(events_fts) VALUES('optimize')", "optimize");
    /* tails left long by re-embedding (unpacked blocks of the old embedder) */
    if (!rc && !(rc = exec(s, "BEGIN IMMEDIATE", "optimize"))) {
        rc = vec_pack_all(s);
        if (!rc) rc = vec_bits_fill(s);
        if (rc) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        else rc = exec(s, "COMMIT", "optimize");
    }
    if (!rc) rc = exec(s, "PRAGMA optimize", "optimize");
    if (!rc) rc = exec(s, "PRAGMA wal_checkpoint(TRUNCATE)", "optimize");
    return rc;
}

/* ------------------------------------------------------------ audit */

static int sq_audit(am__store *b, const char *uid, am_time at, const char *op,
                    const char *otype, const char *oid, const char *detail)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "INSERT INTO audit_log(at, user_id, op, object_type, object_id, detail) VALUES(?,?,?,?,?,?)");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, at);
    bind_text(st, 2, uid);
    bind_text(st, 3, op);
    bind_text(st, 4, otype);
    bind_text(st, 5, oid);
    bind_text(st, 6, detail);
    return run(s, st, "audit");
}

static int sq_audit_list(am__store *b, const char *uid, am__arena *ar,
                         am__audit_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    sqlite3_stmt *st = stmt(s, "SELECT seq, at, op, object_type, object_id, detail FROM audit_log WHERE user_id=? ORDER BY seq");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__audit_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        r->seq = sqlite3_column_int64(st, 0);
        r->at = col_time(st, 1);
        r->op = col_text(ar, st, 2);
        r->object_type = col_text(ar, st, 3);
        r->object_id = col_text(ar, st, 4);
        r->detail = col_text(ar, st, 5);
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "audit");
    done(s, st);
    return out;
}

/* ------------------------------------------------------------ open */

static const am__store_vt sqlite_vt = {
    .name = "sqlite",
    .close = sq_close,
    .errmsg = sq_errmsg,
    .begin = sq_begin,
    .commit = sq_commit,
    .rollback = sq_rollback,
    .begin_read = sq_begin_read,
    .end_read = sq_end_read,
    .user_ensure = sq_user_ensure,
    .user_exists = sq_user_exists,
    .link_put = sq_link_put,
    .link_get = sq_link_get,
    .link_del = sq_link_del,
    .links_list = sq_links_list,
    .event_put = sq_event_put,
    .event_ctx_append = sq_event_ctx_append,
    .vec_put = sq_vec_put,
    .vec_scan = sq_vec_scan,
    .vec_missing_count = sq_vec_missing_count,
    .vec_missing_list = sq_vec_missing_list,
    .entity_put = sq_entity_put,
    .pii_put = sq_pii_put,
    .event_get = sq_event_get,
    .events_search = sq_events_search,
    .events_recent = sq_events_recent,
    .events_list = sq_events_list,
    .entities_list = sq_entities_list,
    .events_dated = sq_events_dated,
    .pii_events = sq_pii_events,
    .event_find = sq_event_find,
    .task_get = sq_task_get,
    .task_put = sq_task_put,
    .task_change_add = sq_task_change_add,
    .task_history = sq_task_history,
    .tasks_list = sq_tasks_list,
    .item_insert = sq_item_insert,
    .item_close = sq_item_close,
    .items_list = sq_items_list,
    .item_tokens_fill = sq_item_tokens_fill,
    .entity_counts = sq_entity_counts,
    .item_touch = sq_item_touch,
    .forget = sq_forget,
    .item_sources = sq_item_sources,
    .optimize = sq_optimize,
    .audit = sq_audit,
    .audit_list = sq_audit_list,
};

/* Read the schema version: 0 for an empty database, -1 for a database
 * that has tables but is not ours. */
static int schema_version(sq_store *s, int *version)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
    if (rc != SQLITE_OK) return fail(s, rc, "read schema");
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        int r = fail(s, rc, "read schema");
        sqlite3_finalize(st);
        return r;
    }
    int tables = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (tables == 0) {
        *version = 0;
        return AM_OK;
    }
    rc = sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key='schema_version'", -1, &st, NULL);
    if (rc != SQLITE_OK) {
        *version = -1;
        return AM_OK;
    }
    *version = -1;
    if (sqlite3_step(st) == SQLITE_ROW) *version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return AM_OK;
}

static int migrate(sq_store *s, int from)
{
    int rc = exec(s, "BEGIN IMMEDIATE", "migrate");
    if (rc) return rc;
    /* another process may have migrated between our read and the lock */
    int now_at = from;
    if ((rc = schema_version(s, &now_at))) goto out_rollback;
    if (now_at >= N_MIGRATIONS) return exec(s, "COMMIT", "migrate");
    if (now_at > from) from = now_at;
    for (int v = from; v < N_MIGRATIONS; v++)
        if ((rc = exec(s, migrations[v], "migrate"))) goto out_rollback;
    /* v5 (packed vectors): pack what earlier versions stored; v6: the
     * sign bits of blocks packed before (new ones are written with theirs) */
    if (from > 0 && from < 5 && (rc = vec_pack_all(s))) goto out_rollback;
    if (from > 0 && from < 6 && (rc = vec_bits_fill(s))) goto out_rollback;
    char sql[160];
    snprintf(sql, sizeof sql,
             "INSERT OR REPLACE INTO meta(key, value) VALUES('schema_version', '%d');"
             "INSERT OR IGNORE INTO meta(key, value) VALUES('created_by', 'agentmem " AM_VERSION_STRING "');",
             N_MIGRATIONS);
    if ((rc = exec(s, sql, "migrate"))) goto out_rollback;
    return exec(s, "COMMIT", "migrate");
out_rollback:
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* The index holds the tokens of the analyzer that wrote it; FTS5 deletes
 * a row by tokenizing its stored text again, so an index written by
 * another analyzer (AM__TEXT_VERSION, ICU's major version) would keep
 * stale terms of forgotten rows and miss new ones.  meta('fts_analyzer')
 * records the analyzer; on a difference (or none recorded: stores before
 * it) the index is rebuilt from the stored texts and the item versions'
 * token sets are computed again, once, in one transaction. */
static int fts_analyzer_recorded(sq_store *s, const char *want, int *same)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key = 'fts_analyzer'", -1,
                                &st, NULL);
    if (rc != SQLITE_OK) return fail(s, rc, "read fts_analyzer");
    rc = sqlite3_step(st);
    *same = rc == SQLITE_ROW && sqlite3_column_text(st, 0) &&
            strcmp((const char *)sqlite3_column_text(st, 0), want) == 0;
    int out = rc == SQLITE_ROW || rc == SQLITE_DONE ? AM_OK : fail(s, rc, "read fts_analyzer");
    sqlite3_finalize(st);
    return out;
}

/* A token set computed by the store's own analyzer (s->ptext). */
static int ptext_item_tokens(void *ctx, const char *text, const char *key, unsigned char *blob,
                             size_t *len)
{
    sq_store *s = ctx;
    uint64_t set[AM__ITEM_SET];
    size_t n;
    if (*len < AM__TOKBLOB_MAX) return AM_TOOBIG;
    int rc = am__text_item_set(s->ptext, text, key, set, &n);
    if (!rc) *len = am__token_blob_put(set, n, blob);
    return rc;
}

/* The item versions' stored token sets (v7), computed again by this
 * analyzer: a set tagged with another one is ignored at recall and
 * recomputed on every recall instead. */
static int item_tokens_renew(sq_store *s)
{
    size_t n = 0;
    int rc = s->ptext ? AM_OK : am__text_open(s->a, &s->ptext);
    if (!rc)
        rc = item_tokens_set(s, "SELECT rid, text, key FROM memory_items"
                                " WHERE tokens IS NOT NULL AND rid > ? ORDER BY rid LIMIT 1",
                             ptext_item_tokens, s, &n);
    return rc;
}

static int fts_analyzer_sync(sq_store *s)
{
    char want[16], sql[160];
    int same = 0, rc;
    snprintf(want, sizeof want, "%u", (unsigned)am__text_version());
    if ((rc = fts_analyzer_recorded(s, want, &same)) || same) return rc;
    if ((rc = exec(s, "BEGIN IMMEDIATE", "fts_analyzer"))) return rc;
    /* another process may have rebuilt it between our read and the lock */
    if ((rc = fts_analyzer_recorded(s, want, &same))) goto out_rollback;
    if (same) return exec(s, "COMMIT", "fts_analyzer");
    snprintf(sql, sizeof sql,
             "INSERT INTO events_fts(events_fts) VALUES('rebuild');"
             "INSERT OR REPLACE INTO meta(key, value) VALUES('fts_analyzer', '%s');",
             want);
    if ((rc = exec(s, sql, "rebuild the index for this analyzer"))) goto out_rollback;
    if ((rc = item_tokens_renew(s))) goto out_rollback;
    if ((rc = exec(s, "COMMIT", "fts_analyzer"))) goto out_rollback;
    return AM_OK;
out_rollback:
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int am__store_sqlite_open(const char *path, const am__store_opts *o,
                          am__store **out, char *errbuf, size_t errlen)
{
    *out = NULL;
    sq_store *s = am__calloc(o->alloc, sizeof *s);
    if (!s) {
        snprintf(errbuf, errlen, "out of memory");
        return AM_NOMEM;
    }
    s->base.vt = &sqlite_vt;
    s->a = o->alloc;
    s->vc = am__vc_new(o->alloc, AM__VC_BYTES); /* NULL (out of memory): scans use SQL */
    s->vc_full_max = o->vc_full_max ? o->vc_full_max : AM__VC_FULL_MAX;
    s->lens = am__fts_lens_new(o->alloc); /* NULL: lengths read per row */
    s->rows = am__rowcache_new(o->alloc); /* NULL: rows read every time */
    s->post = o->no_lists ? NULL : am__post_new(o->alloc); /* NULL: every term scanned */
    s->data_version = -1;
    am__buf_init(&s->scratch, o->alloc);
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
    if (!o->must_exist) flags |= SQLITE_OPEN_CREATE;
    int rc = sqlite3_open_v2(path, &s->db, flags, NULL);
    int am_rc;
    if (rc != SQLITE_OK) {
        snprintf(errbuf, errlen, "cannot open store %s: %s", path,
                 s->db ? sqlite3_errmsg(s->db) : "out of memory");
        am_rc = o->must_exist && rc == SQLITE_CANTOPEN ? AM_NOTFOUND : AM_IO;
        goto out_fail;
    }
    sqlite3_extended_result_codes(s->db, 0);
    sqlite3_busy_timeout(s->db, o->busy_timeout_ms);
    if ((rc = am__sqlite_register_tokenizer(s->db)) != SQLITE_OK ||
        (rc = am__sqlite_register_collect(s->db)) != SQLITE_OK) {
        snprintf(errbuf, errlen, "cannot register the am_cjk tokenizer or am_collect (FTS5 missing?)");
        am_rc = AM_BACKEND;
        goto out_fail;
    }
    int version = 0;
    if ((am_rc = schema_version(s, &version))) {
        snprintf(errbuf, errlen, "store %s: %s", path, s->err);
        if (am_rc == AM_BACKEND) am_rc = AM_CORRUPT;
        goto out_fail;
    }
    if (version < 0) {
        snprintf(errbuf, errlen, "store %s: not an agentmem store (no schema_version)", path);
        am_rc = AM_CORRUPT;
        goto out_fail;
    }
    if (version > N_MIGRATIONS) {
        snprintf(errbuf, errlen,
                 "store %s: schema version %d is newer than this agentmem (%d); upgrade agentmem",
                 path, version, N_MIGRATIONS);
        am_rc = AM_NEWER;
        goto out_fail;
    }
    /* 32 MB page cache and memory-mapped reads: the FTS index of a large
     * store does not fit SQLite's 2 MB default and recall would read it
     * from the file on every query.  The map covers up to 2 GB (SQLite's
     * usual build limit; address space, not memory): past the map a
     * user's first vector scan reads each page with a system call and a
     * copy into the page cache (measured: a cold load of 10,000 512-wide
     * vectors 7.7 -> 6.3 ms CPU on a 500 MB store). */
    if ((am_rc = exec(s, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                         " PRAGMA foreign_keys=ON; PRAGMA secure_delete=ON;"
                         " PRAGMA cache_size=-32768; PRAGMA mmap_size=2147418112;",
                      "pragma"))) {
        snprintf(errbuf, errlen, "store %s: %s", path, s->err);
        goto out_fail;
    }
    if (version < N_MIGRATIONS && (am_rc = migrate(s, version))) {
        snprintf(errbuf, errlen, "store %s: %s", path, s->err);
        goto out_fail;
    }
    if ((am_rc = fts_analyzer_sync(s))) {
        snprintf(errbuf, errlen, "store %s: %s", path, s->err);
        goto out_fail;
    }
    /* document frequencies of index terms (per connection, read-only) */
    if ((am_rc = exec(s, "CREATE VIRTUAL TABLE IF NOT EXISTS temp.am_events_vocab"
                         " USING fts5vocab(main, events_fts, row)", "vocab"))) {
        snprintf(errbuf, errlen, "store %s: %s", path, s->err);
        goto out_fail;
    }
    *out = &s->base;
    return AM_OK;
out_fail:
    sq_close(&s->base);
    return am_rc;
}

int am__store_open(const char *url, const am__store_opts *o, am__store **out,
                   char *errbuf, size_t errlen)
{
    if (strncmp(url, "sqlite:", 7) == 0) url += 7;
    if (strstr(url, "://") && strncmp(url, "file:", 5) != 0) {
        snprintf(errbuf, errlen, "store %s: unsupported backend (this build has sqlite)", url);
        return AM_INVALID;
    }
    return am__store_sqlite_open(url, o, out, errbuf, errlen);
}
