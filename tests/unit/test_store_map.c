/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_store_map.c -- the store file's memory map is on only while a
 * connection is the process's only one on its file (store/sqlite/
 * sqlite_store.c map_fit): two handles of one file in this process, each
 * writing what the other then recalls (Chinese and English), the map off
 * on both from their next transaction; the second closed, the first maps
 * again.  The map size is read from SQLite itself (PRAGMA mmap_size).
 */
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "api_util.h"
#include "api/db_int.h"
#include "store/sqlite/sqlite_int.h"

static char map_path[64];

static am_db *open_file(void)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = map_path;
    cfg.clock = test_clock;
    return open_checked(&cfg);
}

static long long map_size(am_db *db) { return am__sqlite_map_size(db->store); }

/* 1-based rank of the first recalled event holding needle; 0: absent */
static size_t found(am_db *db, const char *user, const char *question, const char *needle)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = user;
    q.text = question;
    q.max_events = 10;
    q.no_touch = 1;
    am_recall_result *r = NULL;
    int rc = am_recall(db, &q, &r);
    if (rc) fprintf(stderr, "recall: %s\n", am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
    size_t at = 0;
    for (size_t i = 0; r && i < r->n_events && !at; i++)
        if (strstr(r->events[i].content, needle)) at = i + 1;
    am_recall_free(r);
    return at;
}

static void remove_files(void)
{
    char side[96];
    remove(map_path);
    snprintf(side, sizeof side, "%.60s-wal", map_path);
    remove(side);
    snprintf(side, sizeof side, "%.60s-shm", map_path);
    remove(side);
}

static void test_map_only_alone(void)
{
    snprintf(map_path, sizeof map_path, "/tmp/am_test_map_%d.db", (int)getpid());
    remove_files();
    am_db *a = open_file();
    add(a, "u1", "s1", NULL, "2026-03-01T10:00:00+08:00", "我对花生过敏，点餐时请避开花生。");
    CHECK(found(a, "u1", "我对什么过敏？", "花生") > 0);
    CHECK(map_size(a) > 0); /* alone: mapped */

    am_db *b = open_file();
    /* b's first transaction: another connection has the file */
    CHECK(found(b, "u1", "我对什么过敏？", "花生") > 0);
    CHECK_EQ_INT((int)map_size(b), 0);
    add(b, "u2", "s9", NULL, "2026-03-02T09:00:00+08:00", "I prefer aisle seats on long flights.");
    /* a sees b's write, through its page cache, not the map */
    CHECK(found(a, "u2", "which seats do I prefer on flights?", "aisle") > 0);
    CHECK_EQ_INT((int)map_size(a), 0);
    add(a, "u2", "s9", NULL, "2026-03-02T09:05:00+08:00", "Also, never book red-eye flights for me.");
    CHECK(found(b, "u2", "what kind of flights should never be booked?", "red-eye") > 0);
    add(b, "u1", "s1", NULL, "2026-03-02T10:00:00+08:00", "周报每周五下午五点前发给王经理。");
    CHECK(found(a, "u1", "周报什么时候发给谁？", "王经理") > 0);
    CHECK_EQ_INT((int)map_size(a), 0);
    CHECK_EQ_INT((int)map_size(b), 0);

    am_close(b);
    /* alone again: mapped from a's next transaction, and still right */
    CHECK(found(a, "u1", "周报什么时候发给谁？", "王经理") > 0);
    CHECK(map_size(a) > 0);
    CHECK(found(a, "u2", "what kind of flights should never be booked?", "red-eye") > 0);
    am_close(a);
    remove_files();
}

int main(void)
{
    (void)open_mem; /* api_util.h's, not needed here */
    RUN(test_map_only_alone);
    TEST_MAIN_END();
}
