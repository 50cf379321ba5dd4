/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sqlite_store.c -- the embedded store: one SQLite file in WAL
 * mode, FTS5 with our am_cjk tokenizer for lexical recall.  This file is
 * the connection: open (schema.c migrates the file), close, transactions,
 * maintenance, and the vtable over the backend's files (sqlite_int.h).
 *
 * Isolation: every statement of the backend that reads or writes user data
 * has "user_id = ?" bound from the uid argument; FTS rows carry a per-user
 * token in their `uid` column and every MATCH requires it, then rows are
 * joined back to `events` and filtered by user_id again.
 *
 * Schema versions: meta('schema_version') records the version.  Opening a
 * file with a newer version fails with AM_NEWER; an older one is migrated
 * in one transaction (schema.c).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "store/sqlite/sqlite_int.h"

static void sq_close(am__store *base)
{
    sq_store *s = SQ(base);
    if (!s) return;
    for (int i = 0; i < s->n_cache; i++) sqlite3_finalize(s->cache[i].st);
    if (s->db) sqlite3_close(s->db);
    am__sqlite_feed_close(s);
    am__sqlite_fts_discard(s);
    am__free(s->a, s->fts_rows);
    am__buf_free(&s->scratch);
    am__vc_free(s->vc);
    am__fts_lens_free(s->lens);
    am__rowcache_free(s->rows);
    am__post_free(s->post);
    am__sqlite_caches_free(s);
    am__text_close(s->ptext);
    am__vault_key_wipe(s->vault_key, sizeof s->vault_key);
    am__vault_key_wipe(s->index_key, sizeof s->index_key);
    am__vault_key_wipe(s->pii_key, sizeof s->pii_key);
    am__free(s->a, s);
}

static const char *sq_errmsg(am__store *base) { return SQ(base)->err; }

#define SQ_MMAP_SIZE "2147418112" /* the map at open: see the pragmas there */

/* The memory map only while this connection is the only one of the
 * process on its file.  SQLite drops a connection's whole map at the start
 * of its next transaction after any other connection committed (with the
 * page cache: the log changed) and maps the file again as pages are
 * fetched.  In a server -- workers and a writer, each its own connection
 * in one process -- every commit thus made each of the others unmap (a
 * TLB shootdown on every core the process runs on) and fault its pages in
 * again: 30 s of the server load test, 3 alternated runs, p99 33.0 / 31.3 /
 * 51.1 ms mapped against 23.9 / 25.5 / 13.7 ms not
 * (docs/bench/README.md).  Without the map, pages come through pread into
 * the page cache; a process with one connection (the CLI, an embedded
 * agent, the bench) keeps the map.  Checked before each transaction: the
 * setting changes only between transactions, when no page is out. */
static void map_fit(sq_store *s)
{
    int off = am__sqlite_feed_shared(s);
    if (off == s->unmapped) return;
    if (sqlite3_exec(s->db, off ? "PRAGMA mmap_size=0" : "PRAGMA mmap_size=" SQ_MMAP_SIZE, NULL,
                     NULL, NULL) == SQLITE_OK)
        s->unmapped = off;
}

long long am__sqlite_map_size(am__store *b)
{
    sqlite3_stmt *st = NULL;
    long long n = -1;
    if (sqlite3_prepare_v2(SQ(b)->db, "PRAGMA mmap_size", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* BEGIN IMMEDIATE: the write lock at once, never a read upgraded to a
 * write later (which WAL refuses with SQLITE_BUSY_SNAPSHOT when another
 * writer committed in between, without waiting).  Waiting: locking.c. */
static int take_write_lock(sq_store *s)
{
    int rc = exec(s, "BEGIN IMMEDIATE", "begin");
    if (rc == AM_OK) am__sqlite_write_taken(s);
    else if (rc == AM_BUSY)
        snprintf(s->err, sizeof s->err,
                 "sqlite: begin: another writer held the store's write lock%s%d ms"
                 " (busy_timeout_ms)",
                 s->busy_nowait ? " (not waited for; limit " : " for longer than ",
                 s->busy_limit_ms);
    return rc;
}
static int sq_begin(am__store *b)
{
    sq_store *s = SQ(b);
    map_fit(s);
    am__sqlite_write_rest(s);
    am__sqlite_outbox_txn_begin(s);
    am__sqlite_fts_discard(s); /* (none: each transaction's go with it) */
    am__sqlite_feed_txn_begin(s);
    return take_write_lock(s);
}
static int sq_try_begin(am__store *b)
{
    sq_store *s = SQ(b);
    map_fit(s);
    s->busy_nowait = 1;
    am__sqlite_outbox_txn_begin(s);
    am__sqlite_fts_discard(s);
    am__sqlite_feed_txn_begin(s);
    int rc = take_write_lock(s);
    s->busy_nowait = 0;
    return rc;
}
static int sq_commit(am__store *b)
{
    int rc = am__sqlite_fts_flush(SQ(b));
    if (!rc) rc = am__sqlite_caches_precommit(SQ(b));
    if (!rc) rc = exec(SQ(b), "COMMIT", "commit");
    if (rc == AM_OK) {
        am__sqlite_caches_committed(SQ(b));
        am__vc_txn_end(SQ(b)->vc, 1);
        am__sqlite_write_released(SQ(b));
        am__sqlite_outbox_txn_end(SQ(b), 1);
    }
    return rc;
}
static int sq_rollback(am__store *b)
{
    sq_store *s = SQ(b);
    am__sqlite_caches_drop(s, AM__DROP_ROLLBACK, NULL);
    am__sqlite_feed_txn_end(s);
    am__sqlite_write_released(s);
    am__sqlite_outbox_txn_end(s, 0);
    if (sqlite3_get_autocommit(s->db)) return AM_OK;
    return exec(s, "ROLLBACK", "rollback");
}

/* A deferred transaction: WAL gives it one snapshot from its first read
 * on, and holds no write lock. */
static int sq_begin_read(am__store *b)
{
    map_fit(SQ(b));
    return exec(SQ(b), "BEGIN", "begin read");
}
static int sq_end_read(am__store *b)
{
    sq_store *s = SQ(b);
    if (sqlite3_get_autocommit(s->db)) return AM_OK;
    return exec(s, "COMMIT", "end read");
}

/* The reads of one search in one snapshot (store.h begin, AM__TX_SEARCH): the
 * caches are checked once, at its start, as a search of one operation
 * checked them (am__sqlite_caches_current). */
static int sq_search_begin(am__store *b)
{
    sq_store *s = SQ(b);
    if (s->search_depth++) return AM_OK;
    s->search_own = 0;
    int rc = am__sqlite_fts_flush(s); /* a search in a write transaction sees its rows */
    if (!rc) rc = snapshot_begin(s, &s->search_own, "search");
    if (!rc) rc = am__sqlite_caches_current(s, NULL);
    if (rc) {
        s->search_depth = 0;
        return snapshot_end(s, s->search_own, rc, "search");
    }
    s->search_checked = 1;
    return AM_OK;
}

static int sq_search_end(am__store *b, int rc)
{
    sq_store *s = SQ(b);
    if (s->search_depth == 0) return rc ? rc : AM_MISUSE;
    if (--s->search_depth) return rc;
    s->search_checked = 0;
    return snapshot_end(s, s->search_own, rc, "search");
}

/* store.h begin and end: the transaction of that mode */
static int sq_begin_mode(am__store *b, int mode, const char *const *uids, size_t n)
{
    (void)uids;
    (void)n;
    switch (mode) {
    case AM__TX_WRITE: return sq_begin(b);
    case AM__TX_TRY: return sq_try_begin(b);
    case AM__TX_READ: return sq_begin_read(b);
    case AM__TX_SEARCH: return sq_search_begin(b);
    case AM__TX_LOCK: return AM_OK; /* one lock serializes every writer */
    default: return AM_MISUSE;
    }
}
static int sq_end(am__store *b, int how, int rc)
{
    switch (how) {
    case AM__TX_COMMIT: return sq_commit(b);
    case AM__TX_ROLLBACK: return sq_rollback(b);
    case AM__TX_END_READ: return sq_end_read(b);
    case AM__TX_END_SEARCH: return sq_search_end(b, rc);
    default: return AM_MISUSE;
    }
}

static int sq_optimize(am__store *b)
{
    sq_store *s = SQ(b);
    /* The index merge in a write transaction of its own, begun through the
     * busy handler (an autocommit write that finds the lock taken may give
     * up without waiting). */
    int rc = exec(s, "BEGIN IMMEDIATE", "optimize");
    if (!rc) {
        rc = exec(s, "INSERT INTO events_fts(events_fts) VALUES('optimize')", "optimize: index merge");
        if (rc) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        else rc = exec(s, "COMMIT", "optimize: index merge");
    }
    /* tails left long by re-embedding (unpacked blocks of the old embedder) */
    if (!rc && !(rc = exec(s, "BEGIN IMMEDIATE", "optimize"))) {
        long sealed = 0, hashed = 0;
        rc = am__sqlite_vec_pack_all(s);
        if (!rc) rc = am__sqlite_vec_bits_fill(s);
        /* vault originals written before a key was configured; value
         * hashes an upgrade or a user merge could not compute */
        if (!rc) rc = am__sqlite_vault_upkeep(s, 1, &sealed, &hashed);
        if (rc) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        else rc = exec(s, "COMMIT", "optimize");
    }
    /* the planner's statistics: worth a try, not worth a failure (another
     * writer holding the lock only makes them wait for the next optimize) */
    if (!rc && exec(s, "PRAGMA optimize", "optimize: statistics") == AM_BUSY) rc = AM_OK;
    /* A TRUNCATE checkpoint holds the write lock while it waits for
     * readers still in the log: not waited for, so writers of other
     * connections never wait behind it; when the lock or a reader is busy
     * it copies what it can (PASSIVE) and the log is reset later. */
    s->busy_nowait = 1;
    if (!rc) rc = exec(s, "PRAGMA wal_checkpoint(TRUNCATE)", "optimize");
    s->busy_nowait = 0;
    return rc;
}

/* store.h control: a file has no connection to retry or check. */
static int sq_control(am__store *b, int op, void *arg)
{
    am__ctl_tokens_fill *fill = arg;
    am__ctl_key_hash *kh = arg;
    switch (op) {
    case AM__CTL_OPTIMIZE: return sq_optimize(b);
    case AM__CTL_TOKENS_FILL: return am__sqlite_item_tokens_fill(b, fill->fn, fill->ctx, &fill->n);
    case AM__CTL_KEY_HASH: return am__sqlite_key_hash(b, kh->parts, kh->n, kh->out);
    case AM__CTL_SCRUB: return am__sqlite_forget_scrub(b, arg);
    default: return AM_NOTFOUND;
    }
}

static const am__store_vt sqlite_vt = {
    .name = "sqlite",
    .close = sq_close,
    .errmsg = sq_errmsg,
    .tx.begin = sq_begin_mode,
    .tx.end = sq_end,
    .users.user_put = am__sqlite_user_put,
    .users.user_stat = am__sqlite_user_stat,
    .users.link_put = am__sqlite_link_put,
    .users.link_get = am__sqlite_link_get,
    .users.links_list = am__sqlite_links_list,
    .users.users_list = am__sqlite_users_list,
    .users.user_merge = am__sqlite_user_merge,
    .events.event_put = am__sqlite_event_put,
    .vectors.vec_put = am__sqlite_vec_put,
    .vectors.vec_scan = am__sqlite_vec_scan,
    .vectors.vec_missing = am__sqlite_vec_missing,
    .events.event_part_put = am__sqlite_event_part_put,
    .events.event_get = am__sqlite_event_get,
    .postings.user_rows = am__sqlite_user_rows,
    .postings.term_docs = am__sqlite_term_docs,
    .postings.postings = am__sqlite_postings,
    .events.rows_get = am__sqlite_rows_get,
    .events.events_scan = am__sqlite_events_scan,
    .events.entities = am__sqlite_entities,
    .tasks.task_put = am__sqlite_task_put,
    .tasks.task_log = am__sqlite_task_log,
    .tasks.tasks_list = am__sqlite_tasks_list,
    .items.item_insert = am__sqlite_item_insert,
    .items.item_update = am__sqlite_item_update,
    .items.items_list = am__sqlite_items_list,
    .items.item_heat = am__sqlite_item_heat,
    .forget.forget_mark = am__sqlite_forget_mark,
    .forget.forget_delete = am__sqlite_forget_delete,
    .forget.forget_step = am__sqlite_forget_step,
    .forget.forget_grace = am__sqlite_forget_grace,
    .forget.restore_forget = am__sqlite_restore_forget,
    .forget.forget_jobs = am__sqlite_forget_jobs,
    .log.log_put = am__sqlite_log_put,
    .log.log_page = am__sqlite_log_page,
    .log.outbox_trim = am__sqlite_outbox_trim,
    .workspace.workspace_list = am__sqlite_workspace_list,
    .workspace.workspace_put = am__sqlite_workspace_put,
    .cold.cold_put = am__sqlite_cold_put,
    .control = sq_control,
    .records.rec_put = am__sqlite_rec_put,
    .records.rec_list = am__sqlite_rec_list,
    .records.rec_del = am__sqlite_rec_del,
};

/* The statements every recall runs, prepared at open (and FTS5's own
 * first read of the index's structure done), so that a handle's first
 * recall does not parse and plan them: run for the user "", which no id
 * names (ids are validated), in a read snapshot, their results dropped.
 * Costs the open about what it saves the first recall (docs/bench/README.md);
 * a failure here only leaves them to be prepared when used. */
static void warm_reads(sq_store *s)
{
    am__store *b = &s->base;
    if (am__store_begin_read(b) != AM_OK) return;
    am__arena ar;
    am__arena_init(&ar, s->a);
    am__item_row *items;
    const char **strs;
    long *counts;
    int64_t *rids, rid = 0;
    unsigned char dated;
    size_t n;
    b->vt->items.items_list(b, "", AM__ITEMS_CURRENT | AM__ITEMS_NO_SOURCES, 0, &ar, &items, &n);
    b->vt->items.items_list(b, "", AM__ITEMS_ALL | AM__ITEMS_NO_SOURCES, 0, &ar, &items, &n);
    am__store_item_sources(b, "", 0, &ar, &strs, &n);
    am__store_entity_counts(b, "", "alias", 1, &ar, &strs, &counts, &n);
    am__store_events_dated(b, "", &rid, 1, &dated);
    am__store_pii_events(b, "", "phone", "0", AM_TIME_NONE, 1, &ar, &rids, &strs, &n);
    am__store_end_read(b);
    am__arena_free(&ar);
    s->err[0] = '\0';
}

/* SQLite's memory statistics off, once, if this process had not started
 * SQLite yet (sqlite3_config refuses then, and changes nothing): with
 * them on, every allocation of every connection takes one global mutex,
 * which a server's threads contend for (futex waits around sqlite3Malloc:
 * 5-9 % of its workers' time under load).  Only when asked for
 * (am_config.process_tuning): it is the whole process's setting. */
static pthread_once_t memstat_once = PTHREAD_ONCE_INIT;
static void memstat_off(void)
{
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

void am__store_sqlite_memstatus_off(void)
{
    pthread_once(&memstat_once, memstat_off);
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
    s->ob_max_rows = o->events_max_rows;
    s->ob_max_age_ms = o->events_max_age_ms;
    if (o->vault_key) {
        memcpy(s->vault_key, o->vault_key, sizeof s->vault_key);
        s->has_vault_key = 1;
        am__sqlite_pii_index_key(s);
    }
    s->vc = am__vc_new(o->alloc, AM__VC_BYTES); /* NULL (out of memory): scans use SQL */
    am__vc_checked_by_store(s->vc);             /* per user (caches.c) */
    am__sqlite_caches_open(s);
    s->vc_full_max = o->vc_full_max ? o->vc_full_max : AM__VC_FULL_MAX;
    s->lens = am__fts_lens_new(o->alloc); /* NULL: lengths read per row */
    s->rows = am__rowcache_new(o->alloc); /* NULL: rows read every time */
    s->post = o->no_lists ? NULL : am__post_new(o->alloc); /* NULL: every term scanned */
    s->no_memo = o->no_lists;
    s->data_version = -1;
    s->epoch = -1;
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
    am__sqlite_busy_init(s, o->busy_timeout_ms);
    sqlite3_rollback_hook(s->db, am__sqlite_fts_rollback_hook, s);
    if ((rc = am__sqlite_register_tokenizer(s->db)) != SQLITE_OK ||
        (rc = am__sqlite_register_collect(s->db)) != SQLITE_OK) {
        snprintf(errbuf, errlen, "cannot register the am_cjk tokenizer or am_collect (FTS5 missing?)");
        am_rc = AM_BACKEND;
        goto out_fail;
    }
    if ((am_rc = am__sqlite_register_ids(s))) {
        snprintf(errbuf, errlen, "store %s: %s", path, s->err);
        goto out_fail;
    }
    int version = 0;
    if ((am_rc = am__sqlite_schema_version(s, &version))) {
        snprintf(errbuf, errlen, "store %s: %s", path, s->err);
        if (am_rc == AM_BACKEND) am_rc = AM_CORRUPT;
        goto out_fail;
    }
    if (version < 0) {
        snprintf(errbuf, errlen, "store %s: not an agentmem store (no schema_version)", path);
        am_rc = AM_CORRUPT;
        goto out_fail;
    }
    if (version > AM__SCHEMA_VERSION) {
        snprintf(errbuf, errlen,
                 "store %s: schema version %d is newer than this agentmem (%d); upgrade agentmem",
                 path, version, AM__SCHEMA_VERSION);
        am_rc = AM_NEWER;
        goto out_fail;
    }
    /* 32 MB page cache and memory-mapped reads: the FTS index of a large
     * store does not fit SQLite's 2 MB default and recall would read it
     * from the file on every query.  The map covers up to 2 GB (SQLite's
     * usual build limit; address space, not memory): past the map a
     * user's first vector scan reads each page with a system call and a
     * copy into the page cache (docs/bench/README.md, vectors).  Not while other
     * connections of this process have the file open (map_fit). */
    if ((am_rc = am__sqlite_exec_waiting(s,
                                         "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                                         " PRAGMA foreign_keys=ON; PRAGMA secure_delete=ON;"
                                         " PRAGMA cache_size=-32768; PRAGMA mmap_size=" SQ_MMAP_SIZE ";",
                                         "pragma"))) {
        snprintf(errbuf, errlen, "store %s: %s", path, s->err);
        goto out_fail;
    }
    if (version < AM__SCHEMA_VERSION && (am_rc = am__sqlite_migrate(s, version))) {
        snprintf(errbuf, errlen, "store %s: %s", path, s->err);
        goto out_fail;
    }
    if ((am_rc = am__sqlite_fts_analyzer_sync(s))) {
        snprintf(errbuf, errlen, "store %s: %s", path, s->err);
        goto out_fail;
    }
    /* document frequencies of index terms (per connection, read-only) */
    if ((am_rc = exec(s, "CREATE VIRTUAL TABLE IF NOT EXISTS temp.am_events_vocab"
                         " USING fts5vocab(main, events_fts, row)", "vocab"))) {
        snprintf(errbuf, errlen, "store %s: %s", path, s->err);
        goto out_fail;
    }
    warm_reads(s);
    am__sqlite_feed_open(s, path);
    *out = &s->base;
    return AM_OK;
out_fail:
    sq_close(&s->base);
    return am_rc;
}
