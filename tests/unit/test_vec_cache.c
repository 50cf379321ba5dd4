/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_vec_cache.c -- the in-memory vector matrices of the SQLite store
 * (store/sqlite/vec_cache.c), against a small store of its own: loads
 * sized from users.n_events, least recently used eviction within the byte
 * budget, reuse of an evicted entry's memory, coherence with the table,
 * and every allocation failing in turn.  Recall-level coherence (appends,
 * rollbacks, other connections, forgetting) is test_reembed.c's.
 */
#include "store/sqlite/sqlite_int.h"
#include "test.h"

#include <stddef.h>
#include <unistd.h>

#define EMB "w2v:t.txt:8"
#define DIM 8
#define ROW (DIM + 8 + 4 + 1) /* bytes of one cached row (int8, rid, scale, sign bits) */

/* ------------------------------------------------- counting allocator */

/* Every block carries its size, so the test knows the live bytes; fresh
 * counts allocations (not reallocations) of at least 64 bytes: the
 * matrices, not the user ids; fail_at fails the fail_at-th call. */
typedef struct hdr {
    size_t n;
    max_align_t pad;
} hdr;
static size_t live;
static long fresh, calls, fail_at, allocs;

static void *t_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    hdr *h = p ? (hdr *)p - 1 : NULL;
    if (n == 0) {
        if (h) live -= h->n;
        free(h);
        return NULL;
    }
    if (fail_at > 0 && ++calls == fail_at) return NULL;
    allocs++;
    hdr *g = realloc(h, sizeof *g + n);
    if (!g) return NULL;
    if (h) live -= g->n;
    else if (n >= 64) fresh++;
    g->n = n;
    live += n;
    return g + 1;
}

static const am__allocator alloc = {t_realloc, NULL};

/* ------------------------------------------------------------- store */

static char path[128];

static sqlite3 *open_db(void)
{
    sqlite3 *db = NULL;
    CHECK_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_exec(db,
                 "CREATE TABLE IF NOT EXISTS users(user_id TEXT PRIMARY KEY,"
                 "  n_events INTEGER NOT NULL DEFAULT 0);"
                 "CREATE TABLE IF NOT EXISTS event_vectors(user_id TEXT NOT NULL,"
                 "  embedder TEXT NOT NULL, event_rid INTEGER NOT NULL, dim INTEGER NOT NULL,"
                 "  scale REAL NOT NULL, vec BLOB NOT NULL, block INTEGER,"
                 "  PRIMARY KEY(user_id, embedder, event_rid)) WITHOUT ROWID;"
                 "CREATE TABLE IF NOT EXISTS vector_blocks(block INTEGER PRIMARY KEY,"
                 "  user_id TEXT NOT NULL, embedder TEXT NOT NULL, dim INTEGER NOT NULL,"
                 "  n INTEGER NOT NULL, rids BLOB NOT NULL, scales BLOB NOT NULL,"
                 "  vecs BLOB NOT NULL);"
                 "CREATE INDEX IF NOT EXISTS event_vectors_tail ON event_vectors(user_id,"
                 "  embedder, dim) WHERE block IS NULL;",
                 NULL, NULL, NULL);
    return db;
}

static void vec_of(int64_t rid, signed char *v)
{
    for (int i = 0; i < DIM; i++) v[i] = (signed char)((rid * 7 + i) % 251 - 125);
}

/* n vectors with row ids first, first+1, ...; the user's event count is
 * set to events (the cache's size estimate). */
static void fill(sqlite3 *db, const char *uid, int64_t first, int n, int events)
{
    sqlite3_stmt *st = NULL;
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    CHECK_EQ_INT(sqlite3_prepare_v2(db,
                                    "INSERT OR REPLACE INTO event_vectors(user_id, embedder, event_rid,"
                                    " dim, scale, vec) VALUES(?1, '" EMB
                                    "', ?2, " "8" ", ?3, ?4)",
                                    -1, &st, NULL),
                 SQLITE_OK);
    for (int k = 0; k < n; k++) {
        signed char v[DIM];
        vec_of(first + k, v);
        sqlite3_bind_text(st, 1, uid, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, first + k);
        sqlite3_bind_double(st, 3, (double)(first + k) / 8);
        sqlite3_bind_blob(st, 4, v, DIM, SQLITE_STATIC);
        CHECK_EQ_INT(sqlite3_step(st), SQLITE_DONE);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    char sql[160];
    snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO users VALUES('%s', %d)", uid, events);
    CHECK_EQ_INT(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
}

/* The view holds exactly rows first .. first+n-1 with their vectors. */
static int view_is(const am__vc_view *w, int64_t first, size_t n)
{
    if (w->n != n) return 0;
    for (size_t k = 0; k < n; k++) {
        signed char v[DIM];
        vec_of(first + (int64_t)k, v);
        if (w->rid[k] != first + (int64_t)k || w->scale[k] != (float)(first + (int64_t)k) / 8 ||
            memcmp(w->vec + k * DIM, v, DIM) != 0)
            return 0;
    }
    return 1;
}

static void reset_store(void)
{
    unlink(path);
}

/* ------------------------------------------------------------- tests */

static void test_bad_input(void)
{
    reset_store();
    sqlite3 *db = open_db();
    fill(db, "u", 1, 3, 3);
    am__vc_view w;
    CHECK_EQ_INT(am__vc_get(NULL, db, "u", EMB, DIM, &w), AM_NOTFOUND);
    am__vcache *c = am__vc_new(&alloc, 1 << 20);
    CHECK(c != NULL);
    CHECK_EQ_INT(am__vc_get(c, db, "u", EMB, 0, &w), AM_NOTFOUND);
    CHECK_EQ_INT(am__vc_get(c, db, "u", EMB, -8, &w), AM_NOTFOUND);
    CHECK_EQ_INT(w.n, 0);
    /* a budget too small for one row: nothing cached, SQL serves */
    am__vcache *tiny = am__vc_new(&alloc, ROW);
    CHECK_EQ_INT(am__vc_get(tiny, db, "u", EMB, DIM, &w), AM_NOTFOUND);
    am__vc_free(tiny);
    /* an unknown user: an empty matrix */
    CHECK_EQ_INT(am__vc_get(c, db, "nobody", EMB, DIM, &w), AM_OK);
    CHECK_EQ_INT(w.n, 0);
    CHECK_EQ_INT(am__vc_get(c, db, "u", EMB, DIM, &w), AM_OK);
    CHECK(view_is(&w, 1, 3));
    am__vc_free(c);
    sqlite3_close(db);
}

/* One allocation per array, of the size the vector count gives (with room
 * for a few appends); events without a vector take no room. */
static void test_load_sized_from_vector_count(void)
{
    reset_store();
    sqlite3 *db = open_db();
    fill(db, "u", 1, 1000, 1000);
    fill(db, "v", 5001, 10, 1000); /* 990 events without a vector */
    am__vcache *c = am__vc_new(&alloc, 1 << 20);
    size_t base = live;
    am__vc_view w;
    fresh = 0;
    CHECK_EQ_INT(am__vc_get(c, db, "u", EMB, DIM, &w), AM_OK);
    CHECK(view_is(&w, 1, 1000));
    CHECK_EQ_INT(fresh, 4);                 /* rid, scale, vec, bits: no regrowth */
    CHECK(live - base < (1000 + 1000 / 16 + 16) * ROW + 200); /* + user id, embedder */
    size_t with_u = live;
    CHECK_EQ_INT(am__vc_get(c, db, "v", EMB, DIM, &w), AM_OK);
    CHECK(view_is(&w, 5001, 10));
    CHECK(live - with_u < 100 * ROW);       /* not 1000 rows */
    am__vc_free(c);
    CHECK_EQ_INT(live, 0);
    sqlite3_close(db);
}

/* Within the budget the least recently used user goes, and the next load
 * takes its memory instead of fresh memory. */
static void test_evicts_lru_and_reuses_memory(void)
{
    reset_store();
    sqlite3 *db = open_db();
    fill(db, "a", 1, 500, 500);
    fill(db, "b", 1001, 500, 500);
    fill(db, "c", 2001, 500, 500);
    size_t budget = 1100 * ROW; /* two users of 500 rows, not three */
    am__vcache *c = am__vc_new(&alloc, budget);
    size_t base = live;
    am__vc_view w;
    CHECK_EQ_INT(am__vc_get(c, db, "a", EMB, DIM, &w), AM_OK);
    CHECK_EQ_INT(am__vc_get(c, db, "b", EMB, DIM, &w), AM_OK);
    CHECK_EQ_INT(am__vc_get(c, db, "a", EMB, DIM, &w), AM_OK); /* b is now the oldest */
    fresh = 0;
    CHECK_EQ_INT(am__vc_get(c, db, "c", EMB, DIM, &w), AM_OK);
    CHECK(view_is(&w, 2001, 500));
    CHECK_EQ_INT(fresh, 0); /* b's memory */
    CHECK(live - base <= budget + 200);
    /* a stayed: served without loading; b comes back in a's memory */
    CHECK_EQ_INT(am__vc_get(c, db, "a", EMB, DIM, &w), AM_OK);
    CHECK_EQ_INT(fresh, 0);
    CHECK(view_is(&w, 1, 500));
    CHECK_EQ_INT(am__vc_get(c, db, "b", EMB, DIM, &w), AM_OK);
    CHECK(view_is(&w, 1001, 500));
    CHECK_EQ_INT(fresh, 0); /* c's memory (c was older than a) */
    CHECK(live - base <= budget + 200);
    CHECK_EQ_INT(am__vc_get(c, db, "a", EMB, DIM, &w), AM_OK);
    CHECK(view_is(&w, 1, 500));
    /* forgetting a user frees its matrix */
    size_t before = live;
    am__vc_clear(c, "a");
    CHECK(before - live >= 500 * ROW);
    CHECK_EQ_INT(am__vc_get(c, db, "b", EMB, DIM, &w), AM_OK);
    CHECK(view_is(&w, 1001, 500));
    am__vc_free(c);
    CHECK_EQ_INT(live, 0);
    sqlite3_close(db);
}

/* The matrix stays what the table holds: appends, a replaced vector,
 * a rolled-back transaction, another connection's commit. */
static void test_stays_true(void)
{
    reset_store();
    sqlite3 *db = open_db();
    fill(db, "u", 1, 100, 100);
    am__vcache *c = am__vc_new(&alloc, 1 << 20);
    am__vc_view w;
    CHECK_EQ_INT(am__vc_get(c, db, "u", EMB, DIM, &w), AM_OK);
    CHECK(view_is(&w, 1, 100));
    /* appends past the estimate (100 events) grow the matrix */
    for (int64_t rid = 101; rid <= 300; rid++) {
        signed char v[DIM];
        vec_of(rid, v);
        fill(db, "u", rid, 1, (int)rid);
        am__vc_put(c, "u", EMB, DIM, rid, (float)rid / 8, v, 0);
    }
    CHECK_EQ_INT(am__vc_get(c, db, "u", EMB, DIM, &w), AM_OK);
    CHECK(view_is(&w, 1, 300));
    /* appended inside a transaction that rolls back: gone */
    signed char v[DIM];
    vec_of(301, v);
    am__vc_put(c, "u", EMB, DIM, 301, 301.0f / 8, v, 1);
    am__vc_txn_end(c, 0);
    CHECK_EQ_INT(am__vc_get(c, db, "u", EMB, DIM, &w), AM_OK);
    CHECK(view_is(&w, 1, 300));
    /* a replaced vector (not above the last row id): reloaded */
    vec_of(50, v);
    v[0] = 99;
    am__vc_put(c, "u", EMB, DIM, 50, 1.0f, v, 0);
    CHECK_EQ_INT(am__vc_get(c, db, "u", EMB, DIM, &w), AM_OK);
    CHECK(view_is(&w, 1, 300)); /* the table was not changed: its rows */
    /* another connection commits: every entry reloads */
    sqlite3 *other = open_db();
    fill(other, "u", 301, 5, 305);
    sqlite3_close(other);
    fresh = 0;
    CHECK_EQ_INT(am__vc_get(c, db, "u", EMB, DIM, &w), AM_OK);
    CHECK(view_is(&w, 1, 305));
    /* in new memory: the old buffers are freed, not kept as a spare (the
     * other connection may have forgotten what they held) */
    CHECK(fresh > 0);
    am__vc_free(c);
    CHECK_EQ_INT(live, 0);
    sqlite3_close(db);
}

/* More rows than half the budget: not cached (SQL serves), also when the
 * event count says fewer. */
static void test_too_big(void)
{
    reset_store();
    sqlite3 *db = open_db();
    fill(db, "big", 1, 120, 50);
    fill(db, "fits", 1001, 40, 500);
    am__vcache *c = am__vc_new(&alloc, 200 * ROW); /* at most 100 rows a user */
    am__vc_view w;
    CHECK_EQ_INT(am__vc_get(c, db, "big", EMB, DIM, &w), AM_NOTFOUND);
    CHECK_EQ_INT(am__vc_get(c, db, "big", EMB, DIM, &w), AM_NOTFOUND);
    CHECK_EQ_INT(am__vc_get(c, db, "fits", EMB, DIM, &w), AM_OK);
    CHECK(view_is(&w, 1001, 40));
    am__vc_free(c);
    CHECK_EQ_INT(live, 0);
    sqlite3_close(db);
}

/* Many small users stay cached while the budget has room: a cached one is
 * served without an allocation (256 entries, not 64). */
static void test_many_users(void)
{
    reset_store();
    sqlite3 *db = open_db();
    char uid[16];
    for (int u = 0; u < 200; u++) {
        snprintf(uid, sizeof uid, "m%d", u);
        fill(db, uid, 1 + 10 * u, 5, 5);
    }
    am__vcache *c = am__vc_new(&alloc, 1 << 24);
    am__vc_view w;
    for (int u = 0; u < 200; u++) {
        snprintf(uid, sizeof uid, "m%d", u);
        CHECK_EQ_INT(am__vc_get(c, db, uid, EMB, DIM, &w), AM_OK);
    }
    allocs = 0;
    for (int u = 0; u < 200; u++) {
        snprintf(uid, sizeof uid, "m%d", u);
        CHECK_EQ_INT(am__vc_get(c, db, uid, EMB, DIM, &w), AM_OK);
        CHECK(view_is(&w, 1 + 10 * u, 5));
    }
    CHECK_EQ_INT(allocs, 0);
    am__vc_free(c);
    CHECK_EQ_INT(live, 0);
    sqlite3_close(db);
}

/* The k-th allocation fails, for every k: a load either succeeds whole or
 * leaves SQL to serve (AM_NOTFOUND); nothing leaks (ASan), and the cache
 * works afterwards. */
static void test_every_allocation_can_fail(void)
{
    reset_store();
    sqlite3 *db = open_db();
    fill(db, "a", 1, 300, 300);
    fill(db, "b", 1001, 300, 200); /* grows while loading */
    fill(db, "c", 2001, 300, 300); /* evicts a */
    int completed = 0;
    for (long k = 1; k <= 300 && !completed; k++) {
        am__vcache *c = am__vc_new(&alloc, 700 * ROW);
        if (!c) continue;
        am__vc_view w;
        calls = 0;
        fail_at = k;
        static const char *const uid[] = {"a", "b", "c"};
        for (int u = 0; u < 3; u++) {
            int rc = am__vc_get(c, db, uid[u], EMB, DIM, &w);
            CHECK(rc == AM_OK || rc == AM_NOTFOUND);
            if (rc == AM_OK) CHECK(view_is(&w, 1 + 1000 * u, 300));
        }
        completed = calls < k;
        fail_at = 0;
        for (int u = 0; u < 3; u++) {
            CHECK_EQ_INT(am__vc_get(c, db, uid[u], EMB, DIM, &w), AM_OK);
            CHECK(view_is(&w, 1 + 1000 * u, 300));
        }
        am__vc_free(c);
        CHECK_EQ_INT(live, 0);
    }
    CHECK(completed);
    sqlite3_close(db);
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_vec_cache_%ld.db", (long)getpid());
    RUN(test_bad_input);
    RUN(test_load_sized_from_vector_count);
    RUN(test_evicts_lru_and_reuses_memory);
    RUN(test_stays_true);
    RUN(test_too_big);
    RUN(test_every_allocation_can_fail);
    RUN(test_many_users);
    reset_store();
    TEST_MAIN_END();
}
