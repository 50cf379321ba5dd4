/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_pii_index.c -- the vault found by a keyed hash of each value
 * (store/sqlite/pii_index.c), zh + en, with and without a vault key: a
 * question naming a phone number or an e-mail address finds the turn that
 * said it through the index (a row whose hash is damaged is not found, so
 * nothing else found it); two values colliding on the hash are told apart
 * by their canonical forms; another user's identical number is never
 * returned; a store upgraded from before the column has its rows hashed
 * (sealed rows the upgrade could not open: still found with the key, and
 * hashed by am_optimize); a user merge moves the values and they are found
 * under the user they went to.  Real files, the public API plus raw SQLite.
 */
#include <sqlite3.h>
#include <unistd.h>

#include "schema_undo.h"
#include "test.h"
#include "api_util.h"
#include "api/db_int.h"
#include "store/sqlite/sqlite_int.h"

static const char *KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

static char path[256];

static void rm_files(void)
{
    char x[300];
    unlink(path);
    snprintf(x, sizeof x, "%s-wal", path);
    unlink(x);
    snprintf(x, sizeof x, "%s-shm", path);
    unlink(x);
}

static am_db *open_file(const char *key)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = path;
    cfg.clock = test_clock;
    cfg.vault_key = key;
    return open_checked(&cfg);
}

static long long sql_int(const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long long n = -1;
    if (sqlite3_open(path, &db) == SQLITE_OK && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    else fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

static void sql_run(const char *sql)
{
    sqlite3 *db = NULL;
    char *err = NULL;
    CHECK_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
    int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
    if (rc) fprintf(stderr, "%s: %s\n", sql, err ? err : "?");
    CHECK_EQ_INT(rc, SQLITE_OK);
    sqlite3_free(err);
    sqlite3_close(db);
}

/* The rank (1-based) of the first recalled event holding needle; 0: none.
 * *other = 1 when an event holding not_in came back. */
static size_t rank_of(am_db *db, const char *user, const char *text, const char *needle,
                      const char *not_in, int *other)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = user;
    q.text = text;
    q.no_touch = 1;
    q.max_events = 10;
    am_recall_result *r = NULL;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
    size_t found = 0;
    if (other) *other = 0;
    for (size_t i = 0; r && i < r->n_events; i++) {
        if (!found && strstr(r->events[i].content, needle)) found = i + 1;
        if (other && not_in && strstr(r->events[i].content, not_in)) *other = 1;
    }
    am_recall_free(r);
    return found;
}

/* How many vault rows the store's look-up of one canonical value returns. */
static long long probe(am_db *db, const char *user, const char *type, const char *canon)
{
    am__arena ar;
    am__arena_init(&ar, NULL);
    int64_t *rids;
    const char **vals;
    size_t n = 0;
    int rc = am__store_pii_events(db->store, user, type, canon, AM_TIME_NONE, 4096, &ar, &rids,
                                       &vals, &n);
    am__arena_free(&ar);
    return rc ? -1 : (long long)n;
}

/* u1's numbers among many others of the same types (so a look-up that
 * found them by reading the type would read them all); u2 says u1's
 * phone number too, later. */
static void fill(am_db *db)
{
    char text[160], at[40];
    for (int i = 0; i < 40; i++) {
        snprintf(at, sizeof at, "2026-02-%02dT08:%02d:00Z", 1 + i % 28, i);
        snprintf(text, sizeof text, i % 2 ? "快递员%d号的电话是1370000%04d，周末不送货"
                                          : "courier %d writes from desk%d@parcels.example.net",
                 i, 1000 + i);
        add(db, "u1", "s0", NULL, at, text);
    }
    add(db, "u1", "s1", NULL, "2026-03-01T09:00:00Z", "王经理的手机是139 1234 5678，他负责翡翠湖项目");
    add(db, "u1", "s1", NULL, "2026-03-01T09:05:00Z",
        "Maria runs the Quillmoor audit; her e-mail is Maria.Gomez@Example.org");
    add(db, "u2", "s1", NULL, "2026-03-02T09:00:00Z", "我表哥的号码 13912345678，住在柿子巷");
    set_now("2026-03-05T09:00:00Z");
}

static void check_found(am_db *db)
{
    int other = 0;
    CHECK_EQ_INT(rank_of(db, "u1", "电话是13912345678的那个人负责什么项目？", "翡翠湖", "柿子巷", &other), 1);
    CHECK(!other);
    CHECK_EQ_INT(rank_of(db, "u1", "who has the phone number +86 139-1234-5678?", "翡翠湖", "柿子巷", &other), 1);
    CHECK(!other);
    CHECK_EQ_INT(rank_of(db, "u1", "What does maria.gomez@example.org run?", "Quillmoor", NULL, NULL), 1);
    CHECK_EQ_INT(rank_of(db, "u1", "邮箱是 MARIA.GOMEZ@EXAMPLE.ORG 的人在做什么审计？", "Quillmoor", NULL, NULL), 1);
    /* u2 finds its own turn, never u1's */
    CHECK_EQ_INT(rank_of(db, "u2", "13912345678 是谁的号码？", "柿子巷", "翡翠湖", &other), 1);
    CHECK(!other);
}

static void test_found_through_index(void)
{
    am_db *mem = open_mem(); /* an in-memory store too */
    fill(mem);
    check_found(mem);
    am_close(mem);
    const char *keys[] = {NULL, KEY};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "/tmp/am_test_pii_index_%d_%d.db", (int)getpid(), k);
        rm_files();
        am_db *db = open_file(keys[k]);
        if (!db) return;
        fill(db);
        CHECK_EQ_INT(sql_int("SELECT count(*) FROM pii_vault WHERE canon_hash IS NULL"), 0);
        CHECK(sql_int("SELECT count(*) FROM pii_vault") >= 43);
        /* sealed with the key, plain without; one value's hash is the same
         * for its two spellings' rows of one user only */
        CHECK_EQ_INT(sql_int("SELECT count(*) FROM pii_vault WHERE original LIKE 'enc:v1:%'") > 0, k);
        CHECK_EQ_INT(sql_int("SELECT count(DISTINCT canon_hash) FROM pii_vault WHERE type = 'phone'"
                             " AND event_rid IN (SELECT rid FROM events WHERE content LIKE '%柿子巷%'"
                             " OR content LIKE '%翡翠湖%')"),
                     2);
        check_found(db);
        /* the probe reads the one row of 21 phone rows */
        CHECK_EQ_INT(probe(db, "u1", "phone", "13912345678"), 1);
        CHECK_EQ_INT(probe(db, "u1", "email", "maria.gomez@example.org"), 1);
        am_close(db);
        /* the row is found by its hash: damaged, it is not found */
        sql_run("UPDATE pii_vault SET canon_hash = canon_hash + 1 WHERE event_rid ="
                " (SELECT rid FROM events WHERE content LIKE '%翡翠湖%')");
        db = open_file(keys[k]);
        CHECK_EQ_INT(probe(db, "u1", "phone", "13912345678"), 0);
        CHECK_EQ_INT(probe(db, "u2", "phone", "13912345678"), 1);
        CHECK_EQ_INT(rank_of(db, "u1", "What does maria.gomez@example.org run?", "Quillmoor", NULL, NULL), 1);
        am_close(db);
        rm_files();
    }
}

/* Another value given the same hash (a 64-bit collision, forced) comes
 * back from the store's probe but is no match: the canonical compare
 * rejects it, with and without a key. */
static void test_collision_compared(void)
{
    const char *keys[] = {NULL, KEY};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "/tmp/am_test_pii_coll_%d_%d.db", (int)getpid(), k);
        rm_files();
        am_db *db = open_file(keys[k]);
        if (!db) return;
        fill(db);
        /* newer than the match: without the compare it would come first */
        add(db, "u1", "s2", NULL, "2026-03-04T09:00:00Z", "Grandpa's landline is 13655557777 (Oakridge)");
        set_now("2026-03-05T09:00:00Z");
        am_close(db);
        sql_run("UPDATE pii_vault SET canon_hash = (SELECT v.canon_hash FROM pii_vault v JOIN events e"
                "  ON e.rid = v.event_rid WHERE e.content LIKE '%翡翠湖%')"
                " WHERE event_rid = (SELECT rid FROM events WHERE content LIKE '%Oakridge%')");
        db = open_file(keys[k]);
        if (!db) return;
        /* the probe returns both rows */
        am__arena ar;
        am__arena_init(&ar, NULL);
        int64_t *rids;
        const char **vals;
        size_t n = 0;
        CHECK_EQ_INT(am__store_pii_events(db->store, "u1", "phone", "13912345678", AM_TIME_NONE, 4096,
                                               &ar, &rids, &vals, &n),
                     AM_OK);
        CHECK_EQ_INT(n, 2);
        CHECK(n == 2 && strcmp(vals[0], "13655557777") == 0 && strcmp(vals[1], "139 1234 5678") == 0);
        am__arena_free(&ar);
        int other = 0;
        CHECK_EQ_INT(rank_of(db, "u1", "电话是13912345678的那个人负责什么项目？", "翡翠湖", NULL, NULL), 1);
        CHECK_EQ_INT(rank_of(db, "u1", "who has the phone number 13912345678?", "翡翠湖", "Oakridge", &other), 1);
        am_close(db);
        rm_files();
    }
}

/* A store from before the column (v18): hashed on the upgrade; sealed
 * rows the upgrade cannot open (no key) keep no hash, are still found with
 * the key, and am_optimize with the key hashes them. */
static void downgrade(void)
{
    sql_run(AM_UNDO_TO_V19 "DROP INDEX pii_vault_hash; ALTER TABLE pii_vault DROP COLUMN canon_hash;"
            "CREATE INDEX pii_vault_user ON pii_vault(user_id, type);"
            "DELETE FROM meta WHERE key = 'pii_key';"
            "UPDATE meta SET value = '18' WHERE key = 'schema_version'");
}

static void test_upgrade(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_pii_up_%d.db", (int)getpid());
    rm_files();
    am_db *db = open_file(NULL);
    if (!db) return;
    fill(db);
    am_close(db);
    downgrade();
    db = open_file(NULL);
    CHECK_EQ_INT(sql_int("SELECT value FROM meta WHERE key = 'schema_version'"), AM__SCHEMA_VERSION);
    CHECK_EQ_INT(sql_int("SELECT count(*) FROM pii_vault WHERE canon_hash IS NULL"), 0);
    check_found(db);
    am_close(db);
    rm_files();

    db = open_file(KEY);
    if (!db) return;
    fill(db);
    am_close(db);
    downgrade();
    db = open_file(NULL); /* the upgrade without the key */
    long long rows = sql_int("SELECT count(*) FROM pii_vault");
    CHECK_EQ_INT(sql_int("SELECT count(*) FROM pii_vault WHERE canon_hash IS NULL"), rows);
    am_close(db);
    db = open_file(KEY);
    check_found(db);
    CHECK_EQ_INT(am_optimize(db), AM_OK);
    CHECK_EQ_INT(sql_int("SELECT count(*) FROM pii_vault WHERE canon_hash IS NULL"), 0);
    check_found(db);
    am_close(db);
    rm_files();
}

/* A user merged into another: its values are found under the new user
 * (the hash holds the user id: computed again). */
static void test_merge(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_pii_merge_%d.db", (int)getpid());
    rm_files();
    am_db *db = open_file(NULL);
    if (!db) return;
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.channel = "wechat";
    ev.external_id = "wx-77";
    ev.session_id = "s1";
    ev.occurred_at = "2026-03-01T09:00:00Z";
    ev.text = "新来的司机师傅电话 13811112222，开白色面包车";
    set_now(ev.occurred_at);
    am_add_info info;
    CHECK_EQ_INT(am_add_event(db, &ev, &info), AM_OK);
    ev.occurred_at = "2026-03-01T09:05:00Z";
    ev.text = "The plumber's e-mail is fix.it@drains.example.com, he comes on Fridays";
    set_now(ev.occurred_at);
    CHECK_EQ_INT(am_add_event(db, &ev, &info), AM_OK);
    add(db, "boss", "s0", NULL, "2026-03-02T09:00:00Z", "今天下雨，记得带伞");
    CHECK_EQ_INT(am_link_merge(db, "wechat", "wx-77", "boss", 1), AM_OK);
    set_now("2026-03-05T09:00:00Z");
    CHECK_EQ_INT(probe(db, "boss", "phone", "13811112222"), 1);
    CHECK_EQ_INT(probe(db, "boss", "email", "fix.it@drains.example.com"), 1);
    CHECK_EQ_INT(rank_of(db, "boss", "电话13811112222的师傅开什么车？", "面包车", NULL, NULL), 1);
    CHECK_EQ_INT(rank_of(db, "boss", "when does fix.it@drains.example.com come?", "Fridays", NULL, NULL), 1);
    CHECK_EQ_INT(am_optimize(db), AM_OK);
    CHECK_EQ_INT(sql_int("SELECT count(*) FROM pii_vault WHERE canon_hash IS NULL"), 0);
    CHECK_EQ_INT(rank_of(db, "boss", "电话13811112222的师傅开什么车？", "面包车", NULL, NULL), 1);
    am_close(db);
    rm_files();
}

/* The SQLite VM steps the connection's vault look-up statement has run
 * (reset): a cost that does not depend on the machine. */
static long long vault_steps(am_db *db)
{
    sqlite3 *c = SQ(db->store)->db;
    long long steps = 0;
    for (sqlite3_stmt *st = sqlite3_next_stmt(c, NULL); st; st = sqlite3_next_stmt(c, st))
        if (strstr(sqlite3_sql(st), "FROM pii_vault v"))
            steps += sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 1);
    return steps;
}

/* One user with many values of a type: the look-up costs what the match
 * costs, not the user's events times its values (the join once walked
 * every event of the user and probed all the user's values of the type
 * for each: 3,000 phone numbers made a recall naming one take 17 s). */
static void test_probe_cost(void)
{
    const char *keys[] = {NULL, KEY};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "/tmp/am_test_pii_cost_%d_%d.db", (int)getpid(), k);
        rm_files();
        am_db *db = open_file(keys[k]);
        if (!db) return;
        char text[160], at[40];
        for (int i = 0; i < 600; i++) {
            snprintf(at, sizeof at, "2026-01-%02dT%02d:%02d:00Z", 1 + i / 60, i / 60, i % 60);
            snprintf(text, sizeof text, i % 2 ? "客户%d的手机号是1385%07d，下周回访" : "customer %d: call 1386%07d about the renewal",
                     i, i * 7);
            add(db, "u1", "s1", NULL, at, text);
        }
        set_now("2026-02-01T00:00:00Z");
        vault_steps(db);
        CHECK_EQ_INT(rank_of(db, "u1", "手机号是13850002093的客户下周做什么？", "客户299的", NULL, NULL), 1);
        long long zh = vault_steps(db);
        CHECK_EQ_INT(rank_of(db, "u1", "what about the customer at 1386-000-2100?", "customer 300:", NULL, NULL), 1);
        long long en = vault_steps(db);
        if (zh > 500 || en > 500) fprintf(stderr, "  vault look-up: %lld and %lld VM steps\n", zh, en);
        CHECK(zh > 0 && zh <= 500);
        CHECK(en > 0 && en <= 500);
        am_close(db);
        rm_files();
    }
}

int main(void)
{
    RUN(test_found_through_index);
    RUN(test_collision_compared);
    RUN(test_upgrade);
    RUN(test_merge);
    RUN(test_probe_cost);
    TEST_MAIN_END();
}
