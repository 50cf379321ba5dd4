/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_contention.c -- one store file, several connections.
 * A recall never waits for, nor fails on, another writer's lock:
 * it answers from its snapshot, its heat update is kept and written with
 * the handle's next write (or at close).  A writer waits for the lock up to
 * its limit (busy_timeout_ms) and then gives up with a message that says
 * so, having written nothing.  A writer that writes without a pause (a
 * bulk import) lets another one in well within that limit.
 *
 * The other writer is a raw SQLite connection holding BEGIN IMMEDIATE, or
 * a thread adding events on its own handle.  Real files in /tmp.
 */
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "test.h"

#include "agentmem.h"

static char db_path[96];

static long ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)(t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static am_db *open_file(int busy_ms)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = db_path;
    cfg.busy_timeout_ms = busy_ms;
    am_db *db = NULL;
    char *err = NULL;
    int rc = am_open(&cfg, &db, &err);
    CHECK_EQ_INT(rc, AM_OK);
    if (rc) fprintf(stderr, "open: %s\n", err ? err : "?");
    am_free(err);
    return db;
}

/* no store file left at db_path (before a test, and after it) */
static void unlink_store(void)
{
    snprintf(db_path, sizeof db_path, "/tmp/am_contention_%d.db", (int)getpid());
    char p[128];
    unlink(db_path);
    snprintf(p, sizeof p, "%s-wal", db_path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", db_path);
    unlink(p);
}

static int add(am_db *db, const char *user, const char *text)
{
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = user;
    ev.text = text;
    return am_add_event(db, &ev, NULL);
}

/* the sum of the hits of a user's active items */
static long hits_of(am_db *db, const char *user)
{
    am_memory_list *l = NULL;
    int rc = am_memories(db, user, AM_LIST_ACTIVE, NULL, &l);
    CHECK_EQ_INT(rc, AM_OK);
    long h = 0;
    for (size_t i = 0; l && i < l->n; i++) h += l->items[i].hits;
    am_memory_list_free(l);
    return h;
}

/* A raw connection holding the write lock (BEGIN IMMEDIATE) until released. */
static sqlite3 *hold_lock(void)
{
    sqlite3 *raw = NULL;
    CHECK_EQ_INT(sqlite3_open(db_path, &raw), SQLITE_OK);
    CHECK_EQ_INT(sqlite3_exec(raw, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    return raw;
}

static void release_lock(sqlite3 *raw)
{
    CHECK_EQ_INT(sqlite3_exec(raw, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(raw);
}

/* Recall q for user: AM_OK, within 1 s, with at least one memory that
 * contains want; returns how many memories were shown. */
static size_t recall_now(am_db *db, const char *user, const char *q, const char *want)
{
    am_query query;
    memset(&query, 0, sizeof query);
    query.user_id = user;
    query.text = q;
    am_recall_result *r = NULL;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = am_recall(db, &query, &r);
    long ms = ms_since(&t0);
    CHECK_EQ_INT(rc, AM_OK);
    if (rc) fprintf(stderr, "recall \"%s\": %s\n", q, am_errmsg(db));
    CHECK(ms < 1000);
    size_t n = r ? r->n_memories : 0;
    CHECK(n > 0);
    if (r) CHECK_CONTAINS(r->block, want);
    am_recall_free(r);
    return n;
}

static void test_recall_while_locked(void)
{
    unlink_store();
    am_db *db = open_file(2000);
    CHECK_EQ_INT(add(db, "u1", "以后周报都按三段写"), AM_OK);
    CHECK_EQ_INT(add(db, "u1", "From now on always send the weekly report as a PDF"), AM_OK);
    long before = hits_of(db, "u1");

    sqlite3 *raw = hold_lock();
    size_t shown = recall_now(db, "u1", "周报怎么写？", "三段");
    shown += recall_now(db, "u1", "how should I send the weekly report?", "PDF");
    CHECK_EQ_INT(hits_of(db, "u1"), before); /* deferred, not written */
    release_lock(raw);

    /* the next write of the handle writes them */
    CHECK_EQ_INT(add(db, "u2", "明天下午三点开会 the meeting is at three tomorrow"), AM_OK);
    long after = before + (long)shown;
    CHECK_EQ_INT(hits_of(db, "u1"), after);
    /* a recall with the lock free writes its own at once */
    shown = recall_now(db, "u1", "周报怎么写？", "三段");
    CHECK_EQ_INT(hits_of(db, "u1"), after + (long)shown);
    am_close(db);
    unlink_store();
}

/* Kept touches are written by am_close when the lock is free then. */
static void test_touch_written_at_close(void)
{
    unlink_store();
    am_db *db = open_file(2000);
    CHECK_EQ_INT(add(db, "u1", "我不吃香菜"), AM_OK);
    long before = hits_of(db, "u1");
    sqlite3 *raw = hold_lock();
    size_t shown = recall_now(db, "u1", "我有什么忌口", "香菜");
    release_lock(raw);
    am_close(db);
    db = open_file(2000);
    CHECK_EQ_INT(hits_of(db, "u1"), before + (long)shown);
    am_close(db);
    unlink_store();
}

/* A writer gives up after its limit, says why, writes nothing. */
static void test_writer_limit(void)
{
    unlink_store();
    am_db *db = open_file(300);
    CHECK_EQ_INT(add(db, "u1", "seed"), AM_OK);
    sqlite3 *raw = hold_lock();
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = add(db, "u1", "以后都用英文回复 always answer in English");
    long ms = ms_since(&t0);
    CHECK_EQ_INT(rc, AM_BUSY);
    CHECK(ms >= 250 && ms < 3000);
    CHECK_CONTAINS(am_errmsg(db), "write lock");
    CHECK_CONTAINS(am_errmsg(db), "300 ms");
    release_lock(raw);
    char *json = NULL;
    CHECK_EQ_INT(am_export(db, "u1", &json), AM_OK);
    CHECK(json && !strstr(json, "English"));
    am_free(json);
    am_close(db);
    unlink_store();
}

/* A bulk writer on another handle adds events back to back; the other
 * writer's adds all get the lock within their limit. */
typedef struct bulk {
    atomic_int stop;
    atomic_long added;
    long failed;
} bulk;

static void *bulk_writer(void *arg)
{
    bulk *b = arg;
    am_db *db = open_file(10000);
    char text[160];
    for (long i = 0; db && !atomic_load(&b->stop); i++) {
        snprintf(text, sizeof text, i % 2 ? "bulk note %ld: the offsite moved to building %ld"
                                          : "批量记录%ld：团建改到%ld号楼", i, i % 9);
        if (add(db, i % 2 ? "bulk-en" : "bulk-zh", text)) b->failed++;
        else atomic_fetch_add(&b->added, 1);
    }
    am_close(db);
    return NULL;
}

static void test_bulk_writer_lets_others_in(void)
{
    unlink_store();
    am_db *db = open_file(3000);
    CHECK_EQ_INT(add(db, "u1", "seed"), AM_OK);
    bulk b = {0};
    pthread_t th;
    CHECK_EQ_INT(pthread_create(&th, NULL, bulk_writer, &b), 0);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* until the bulk writer is writing (slow to start under sanitizers) */
    struct timespec pause = {0, 20 * 1000000L};
    while (atomic_load(&b.added) < 20 && ms_since(&t0) < 30000) nanosleep(&pause, NULL);
    CHECK(atomic_load(&b.added) >= 20);
    long longest = 0, failed = 0;
    for (int i = 0; i < 6; i++) {
        char text[96];
        snprintf(text, sizeof text, i % 2 ? "turn %d: meeting at three" : "第%d轮：三点开会", i);
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (add(db, "u1", text)) {
            failed++;
            fprintf(stderr, "add %d: %s\n", i, am_errmsg(db));
        }
        long ms = ms_since(&t1);
        if (ms > longest) longest = ms;
    }
    atomic_store(&b.stop, 1);
    pthread_join(th, NULL);
    printf("bulk writer: %ld added, %ld failed; 6 adds beside it: %ld failed, longest %ld ms\n",
           (long)atomic_load(&b.added), b.failed, failed, longest);
    CHECK_EQ_INT(failed, 0);
    CHECK_EQ_INT(b.failed, 0);
    am_close(db);
    unlink_store();
}

/* Two processes opening a new store at once: while one switches the file
 * to WAL (it holds the file's lock), the other's switch is answered "busy"
 * at once, without SQLite calling its busy handler.  The open waits
 * (within busy_timeout_ms) instead of failing.  Here the other connection
 * is a raw one holding the new file's write lock, released 300 ms on. */
typedef struct opener {
    am_db *db;
    int rc;
    char err[256];
} opener;

static void *open_thread(void *arg)
{
    opener *o = arg;
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = db_path;
    cfg.busy_timeout_ms = 5000;
    char *err = NULL;
    o->rc = am_open(&cfg, &o->db, &err);
    snprintf(o->err, sizeof o->err, "%s", err ? err : "");
    am_free(err);
    return NULL;
}

static void test_open_new_store_while_locked(void)
{
    unlink_store();
    sqlite3 *raw = NULL;
    CHECK_EQ_INT(sqlite3_open(db_path, &raw), SQLITE_OK);
    /* the new file's write lock, as one that is switching it to WAL holds */
    CHECK_EQ_INT(sqlite3_exec(raw, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    opener o = {0};
    pthread_t th;
    CHECK_EQ_INT(pthread_create(&th, NULL, open_thread, &o), 0);
    struct timespec pause = {0, 300 * 1000000L};
    nanosleep(&pause, NULL);
    CHECK_EQ_INT(sqlite3_exec(raw, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    pthread_join(th, NULL);
    if (o.rc) fprintf(stderr, "open: %s\n", o.err);
    CHECK_EQ_INT(o.rc, AM_OK);
    sqlite3_close(raw);
    if (o.db) {
        CHECK_EQ_INT(add(o.db, "u1", "我下周三去杭州出差 / the offsite moved to Friday"), AM_OK);
        am_close(o.db);
    }
    unlink_store();
}

int main(void)
{
    RUN(test_recall_while_locked);
    RUN(test_touch_written_at_close);
    RUN(test_writer_limit);
    RUN(test_bulk_writer_lets_others_in);
    RUN(test_open_new_store_while_locked);
    TEST_MAIN_END();
}
