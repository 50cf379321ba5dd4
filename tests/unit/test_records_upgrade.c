/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_records_upgrade.c -- schema v30 (store/sqlite/records.c,
 * domain/records.h): a v29 store's API tokens, rule packs, working memory
 * and maintenance cursor, written in their old tables, are found after the upgrade
 * through the record functions with every field as it was, and the old
 * tables are gone.
 */
#include "domain/records.h"
#include "store/sqlite/sqlite_int.h"
#include "schema_undo.h"
#include "test.h"

#include <unistd.h>

static char path[128];
static am__allocator alloc;

#include "plain_alloc.h"

static am__store *open_store(void)
{
    am__store_opts o = {&alloc, 5000, 0, 0, 0, NULL, 0, 0};
    am__store *s = NULL;
    char err[256];
    int rc = am__store_open(path, &o, &s, err, sizeof err);
    if (rc) fprintf(stderr, "open: %s\n", err);
    CHECK_EQ_INT(rc, AM_OK);
    return s;
}

static long sql_long(const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long v = -1;
    CHECK_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
    CHECK_EQ_INT(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW) v = (long)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

#define HASH_A "a1a2a3a4a5a6a7a8" "0102030405060708090a0b0c0d0e0f101112131415161718"
#define HASH_B "b1b2b3b4b5b6b7b8" "ffeeddccbbaa99887766554433221100ffeeddccbbaa9988"

static void test_v29_rows_found(void)
{
    unlink(path);
    am__store *s = open_store();
    s->vt->close(s);
    sqlite3 *db = NULL;
    CHECK_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
    CHECK_EQ_INT(sqlite3_exec(db, AM_UNDO_V30
        "INSERT INTO api_tokens VALUES('tokA', 'a1a2a3a4a5a6a7a8', X'" HASH_A "', '李雷',"
        " 'planner', 'reader', 0, 1000, NULL);"
        "INSERT INTO api_tokens VALUES('tokB', 'b1b2b3b4b5b6b7b8', X'" HASH_B "', 'ana',"
        " NULL, NULL, 1, 900, 1500);"
        "INSERT INTO user_packs VALUES('ana', 'dental', '1.0', '{\"name\":\"dental\"}', 3, 700);"
        "INSERT INTO user_packs VALUES('李雷', 'dental', '1.1', '{\"name\":\"牙科\"}', 2, 800);"
        "INSERT INTO working_memory VALUES('李雷', 's1', '目标', '订三张去上海的票', 5000);"
        "INSERT INTO working_memory VALUES('李雷', 's1', 'done', 'expired', 1000);"
        "INSERT INTO working_memory VALUES('李雷', 's10', 'goal', 'book tickets', 5000);"
        "INSERT INTO meta(key, value) VALUES('maintain_cursor', '1700000000000 李雷');"
        "UPDATE meta SET value = '29' WHERE key = 'schema_version';",
        NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);

    s = open_store();
    CHECK_EQ_INT(sql_long("SELECT value FROM meta WHERE key = 'schema_version'"), AM__SCHEMA_VERSION);
    CHECK_EQ_INT(sql_long("SELECT count(*) FROM sqlite_master WHERE name IN ('api_tokens', 'user_packs',"
                          " 'working_memory')"), 0);
    CHECK_EQ_INT(sql_long("SELECT count(*) FROM meta WHERE key = 'maintain_cursor'"), 0);
    am__arena ar;
    am__arena_init(&ar, &alloc);

    am__token_row *t;
    size_t n = 0;
    CHECK_EQ_INT(am__token_rows_find(s, "a1a2a3a4a5a6a7a8", &ar, &t, &n), AM_OK);
    CHECK_EQ_INT((long)n, 1);
    if (n == 1) {
        CHECK_EQ_STR(t[0].id, "tokA");
        CHECK_EQ_STR(t[0].user_id, "李雷");
        CHECK_EQ_STR(t[0].agent_id, "planner");
        CHECK_EQ_STR(t[0].role, "reader");
        CHECK_EQ_INT(t[0].admin, 0);
        CHECK_EQ_INT((long)t[0].created_at, 1000);
        CHECK(t[0].revoked_at == AM_TIME_NONE);
        CHECK_EQ_INT(t[0].hash[0], 0xa1);
        CHECK_EQ_INT(t[0].hash[31], 0x18);
    }
    CHECK_EQ_INT(am__tokens_list(s, NULL, &ar, &t, &n), AM_OK);
    CHECK_EQ_INT((long)n, 2);
    if (n == 2) { /* oldest first */
        CHECK_EQ_STR(t[0].id, "tokB");
        CHECK(t[0].agent_id == NULL && t[0].role == NULL);
        CHECK_EQ_INT(t[0].admin, 1);
        CHECK_EQ_INT((long)t[0].revoked_at, 1500);
        CHECK_EQ_INT(t[0].hash[31], 0x88);
    }
    char uid[AM_ID_MAX + 1];
    CHECK_EQ_INT(am__token_row_revoke(s, "tokB", 2000, uid, &ar), AM_NOTFOUND);
    CHECK_EQ_STR(uid, "ana");
    CHECK_EQ_INT(am__token_row_revoke(s, "tokA", 2000, uid, &ar), AM_OK);
    CHECK_EQ_STR(uid, "李雷");

    am__pack_row *p;
    CHECK_EQ_INT(am__pack_list(s, NULL, &ar, &p, &n), AM_OK);
    CHECK_EQ_INT((long)n, 2);
    if (n == 2) { /* by name, then user */
        CHECK_EQ_STR(p[0].user_id, "ana");
        CHECK_EQ_STR(p[0].version, "1.0");
        CHECK_EQ_STR(p[1].user_id, "李雷");
        CHECK_EQ_STR(p[1].name, "dental");
        CHECK_EQ_STR(p[1].json, "{\"name\":\"牙科\"}");
        CHECK_EQ_INT(p[1].n_rules, 2);
        CHECK_EQ_INT((long)p[1].applied_at, 800);
    }
    am__working_row *w;
    CHECK_EQ_INT(am__working_list(s, "李雷", "s1", NULL, 2000, &ar, &w, &n), AM_OK);
    CHECK_EQ_INT((long)n, 1); /* the expired one is not read, s10 is another session */
    if (n == 1) {
        CHECK_EQ_STR(w[0].key, "目标");
        CHECK_EQ_STR(w[0].value, "订三张去上海的票");
        CHECK_EQ_INT((long)w[0].expires_at, 5000);
    }
    CHECK_EQ_INT(am__working_list(s, "李雷", "s10", "goal", 2000, &ar, &w, &n), AM_OK);
    CHECK_EQ_INT((long)n, 1);
    CHECK_EQ_INT(am__working_put(s, "李雷", "s1", "new", "v", 6000, 2000, 1, &ar), AM_TOOBIG);
    CHECK_EQ_INT(am__working_put(s, "李雷", "s1", "目标", "v", 6000, 2000, 1, &ar), AM_OK);
    CHECK_EQ_INT(sql_long("SELECT count(*) FROM records WHERE ns = 'working' AND value = 'expired'"), 0);
    const char *cur = NULL;
    CHECK_EQ_INT(am__meta_get(s, "maintain_cursor", &ar, &cur), AM_OK);
    if (cur) CHECK_EQ_STR(cur, "1700000000000 李雷");
    am__arena_free(&ar);
    s->vt->close(s);
}

int main(void)
{
    alloc.realloc = plain_realloc;
    snprintf(path, sizeof path, "/tmp/am_test_records_upgrade_%ld.db", (long)getpid());
    RUN(test_v29_rows_found);
    unlink(path);
    TEST_MAIN_END();
}
