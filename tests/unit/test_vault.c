/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_vault.c -- PII-vault originals encrypted at rest, zh +
 * en: with am_config.vault_key every original in pii_vault is sealed
 * (AES-256-GCM, a fresh nonce per value), no original's bytes are in the
 * store files (.db, -wal), a recall naming a value still finds its turn;
 * without the key, or with another, the store still opens, recalls and
 * writes (sealed rows are skipped, never compared as ciphertext); a sealed value moved to another user does not open; a
 * malformed key is refused at open; rows written before a key are sealed
 * by am_optimize with it.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "api_util.h"
#include "store/sqlite/sqlite_int.h"

static const char *KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
static const char *KEY2 = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100";

static char path[256];

static am_db *open_file(const char *key, int *rc_out)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = path;
    cfg.clock = test_clock;
    cfg.vault_key = key;
    am_db *db = NULL;
    char *err = NULL;
    int rc = am_open(&cfg, &db, &err);
    if (rc_out) *rc_out = rc;
    else if (rc) fprintf(stderr, "open: %s\n", err ? err : "?");
    am_free(err);
    return db;
}

static void rm_files(void)
{
    char x[300];
    unlink(path);
    snprintf(x, sizeof x, "%s-wal", path);
    unlink(x);
    snprintf(x, sizeof x, "%s-shm", path);
    unlink(x);
}

/* 1 when needle's bytes are anywhere in the file. */
static int file_has(const char *file, const char *needle)
{
    FILE *f = fopen(file, "rb");
    if (!f) return 0;
    size_t m = strlen(needle), cap = 1 << 16, n;
    char *b = malloc(cap + m);
    size_t keep = 0;
    int found = 0;
    while (!found && (n = fread(b + keep, 1, cap, f)) > 0) {
        size_t len = keep + n;
        for (size_t i = 0; i + m <= len && !found; i++) found = memcmp(b + i, needle, m) == 0;
        keep = len < m - 1 ? len : m - 1;
        memmove(b, b + len - keep, keep);
    }
    free(b);
    fclose(f);
    return found;
}

static int files_have(const char *needle)
{
    char wal[300];
    snprintf(wal, sizeof wal, "%s-wal", path);
    return file_has(path, needle) || file_has(wal, needle);
}

/* The first recalled event holding needle: its rank (1-based), 0 if none. */
static size_t recall_rank(am_db *db, const char *user, const char *text, const char *needle)
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
    for (size_t i = 0; r && i < r->n_events && !found; i++)
        if (strstr(r->events[i].content, needle)) found = i + 1;
    am_recall_free(r);
    return found;
}

static const char *const originals[] = {"13912345678", "li.lei@example.com", "219-09-9999",
                                        "DE89370400440532013000", "E12345678"};

static void fill(am_db *db)
{
    add(db, "u1", "s1", NULL, "2026-03-01T09:00:00+08:00", "王经理的手机是13912345678，下午联系他");
    add(db, "u1", "s1", NULL, "2026-03-01T09:05:00+08:00", "mail Li at li.lei@example.com about the lease");
    add(db, "u1", "s1", NULL, "2026-03-01T09:10:00+08:00", "my SSN is 219-09-9999 for the tax form");
    add(db, "u1", "s1", NULL, "2026-03-01T09:15:00+08:00", "房租打到 DE89370400440532013000 这个账户");
    add(db, "u1", "s1", NULL, "2026-03-01T09:20:00+08:00", "护照号码：E12345678，下个月到期");
    /* the same phone again: another nonce, another ciphertext */
    add(db, "u2", "s1", NULL, "2026-03-01T09:25:00+08:00", "call 13912345678 tomorrow");
    set_now("2026-03-02T09:00:00+08:00");
}

static void test_sealed_at_rest(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_vault_%d.db", (int)getpid());
    unlink(path);
    am_db *db = open_file(KEY, NULL);
    CHECK(db != NULL);
    if (!db) return;
    fill(db);
    /* every vault row sealed, two seals of one value differ */
    sqlite3 *raw;
    CHECK_EQ_INT(sqlite3_open(path, &raw), SQLITE_OK);
    sqlite3_stmt *st;
    CHECK_EQ_INT(sqlite3_prepare_v2(raw, "SELECT original FROM pii_vault", -1, &st, NULL), SQLITE_OK);
    int rows = 0, sealed = 0;
    char first[512] = "";
    int distinct = 1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(st, 0);
        rows++;
        sealed += v && strncmp(v, "enc:v1:", 7) == 0;
        if (rows == 1 && v) snprintf(first, sizeof first, "%s", v);
        else if (v && strcmp(v, first) == 0) distinct = 0;
    }
    sqlite3_finalize(st);
    sqlite3_close(raw);
    CHECK(rows >= 6);
    CHECK_EQ_INT(sealed, rows);
    CHECK(distinct);
    for (size_t i = 0; i < sizeof originals / sizeof *originals; i++)
        if (files_have(originals[i])) {
            fprintf(stderr, "original %s is in the store files\n", originals[i]);
            CHECK(0);
        }
    /* with the key a recall naming a value finds its turn */
    CHECK_EQ_INT(recall_rank(db, "u1", "13912345678这个号码是谁的？", "[PHONE_1]"), 1);
    CHECK_EQ_INT(recall_rank(db, "u1", "who has li.lei@example.com?", "[EMAIL_1]"), 1);
    am_close(db);

    /* without the key, or with another: never matched through the vault,
     * never an error */
    const char *keys[] = {NULL, KEY2};
    for (int k = 0; k < 2; k++) {
        db = open_file(keys[k], NULL);
        CHECK(db != NULL);
        if (!db) continue;
        recall_rank(db, "u1", "13912345678这个号码是谁的？", "[PHONE_1]"); /* AM_OK */
        add(db, "u1", "s2", NULL, "2026-03-02T10:00:00+08:00", "新号码 13800001111 也记一下");
        am_close(db);
    }
    rm_files();
}

/* Rows written before a key was configured: plaintext until am_optimize
 * runs with the key, sealed after it, still found by a recall. */
static void test_optimize_seals_old_rows(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_vault_old_%d.db", (int)getpid());
    rm_files();
    am_db *db = open_file(NULL, NULL);
    CHECK(db != NULL);
    if (!db) return;
    fill(db);
    am_close(db);
    CHECK(files_have("13912345678"));
    db = open_file(KEY, NULL);
    CHECK(db != NULL);
    if (!db) return;
    CHECK_EQ_INT(am_optimize(db), AM_OK);
    sqlite3 *raw;
    CHECK_EQ_INT(sqlite3_open(path, &raw), SQLITE_OK);
    sqlite3_stmt *st;
    CHECK_EQ_INT(sqlite3_prepare_v2(raw, "SELECT count(*), sum(original LIKE 'enc:v1:%')"
                                         " FROM pii_vault", -1, &st, NULL), SQLITE_OK);
    CHECK_EQ_INT(sqlite3_step(st), SQLITE_ROW);
    CHECK(sqlite3_column_int(st, 0) >= 6);
    CHECK_EQ_INT(sqlite3_column_int(st, 1), sqlite3_column_int(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(raw);
    for (size_t i = 0; i < sizeof originals / sizeof *originals; i++) CHECK(!files_have(originals[i]));
    CHECK_EQ_INT(recall_rank(db, "u1", "13912345678这个号码是谁的？", "[PHONE_1]"), 1);
    am_close(db);
    rm_files();
}

/* The seal is bound to its user and type, and to the key. */
static void test_seal_bound(void)
{
    unsigned char key[AM__VAULT_KEY_BYTES], key2[AM__VAULT_KEY_BYTES];
    CHECK_EQ_INT(am__vault_key_parse(KEY, key), AM_OK);
    CHECK_EQ_INT(am__vault_key_parse(KEY2, key2), AM_OK);
    am__buf b;
    am__buf_init(&b, NULL);
    CHECK_EQ_INT(am__vault_seal(key, "u1", "phone", "13912345678", &b), AM_OK);
    CHECK(am__vault_is_sealed(b.p));
    CHECK(strstr(b.p, "13912345678") == NULL);
    am__arena ar;
    am__arena_init(&ar, NULL);
    const char *plain = NULL;
    CHECK_EQ_INT(am__vault_open(key, "u1", "phone", b.p, &ar, &plain), AM_OK);
    CHECK_EQ_STR(plain, "13912345678");
    CHECK_EQ_INT(am__vault_open(key, "u2", "phone", b.p, &ar, &plain), AM_DENIED);
    CHECK_EQ_INT(am__vault_open(key, "u1", "email", b.p, &ar, &plain), AM_DENIED);
    CHECK_EQ_INT(am__vault_open(key2, "u1", "phone", b.p, &ar, &plain), AM_DENIED);
    CHECK(plain == NULL);
    /* one flipped hex digit of the ciphertext */
    b.p[b.len - 1] = b.p[b.len - 1] == '0' ? '1' : '0';
    CHECK_EQ_INT(am__vault_open(key, "u1", "phone", b.p, &ar, &plain), AM_DENIED);
    CHECK_EQ_INT(am__vault_open(key, "u1", "phone", "enc:v1:zz", &ar, &plain), AM_CORRUPT);
    CHECK_EQ_INT(am__vault_open(key, "u1", "phone", "13912345678", &ar, &plain), AM_INVALID);
    /* Chinese text seals and opens byte for byte */
    CHECK_EQ_INT(am__vault_seal(key, "用户一", "email", "王@例子.中国", &b), AM_OK);
    CHECK_EQ_INT(am__vault_open(key, "用户一", "email", b.p, &ar, &plain), AM_OK);
    CHECK_EQ_STR(plain, "王@例子.中国");
    am__arena_free(&ar);
    am__buf_free(&b);
}

static void test_bad_key_refused(void)
{
    /* (the in-memory store of api_util.h opens without a key) */
    am_db *mem = open_mem();
    am_close(mem);
    snprintf(path, sizeof path, "/tmp/am_test_vault_bad_%d.db", (int)getpid());
    const char *bad[] = {"", "0011", "zz112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
                         "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff00"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = 0;
        am_db *db = open_file(bad[i], &rc);
        CHECK(db == NULL);
        CHECK_EQ_INT(rc, AM_MISUSE);
        am_close(db);
    }
    CHECK(access(path, F_OK) != 0); /* nothing created */
}

int main(void)
{
    RUN(test_sealed_at_rest);
    RUN(test_optimize_seals_old_rows);
    RUN(test_seal_bound);
    RUN(test_bad_key_refused);
    TEST_MAIN_END();
}
