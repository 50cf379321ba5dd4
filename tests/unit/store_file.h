/*
 * store_file.h -- helpers of the tests that look at a store's files: the
 * test's store path, removing the store with its log, and one count read
 * by a raw SQLite connection of its own (what the files hold, not what
 * the API says).  Include after test.h.
 */
#ifndef AM_TEST_STORE_FILE_H
#define AM_TEST_STORE_FILE_H
#include <sqlite3.h>
#include <stdio.h>
#include <unistd.h>

static char path[256];

static void store_remove(void)
{
    char p[300];
    unlink(path);
    snprintf(p, sizeof p, "%s-wal", path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", path);
    unlink(p);
}

/* the first column of the first row of sql (?1 = arg when not NULL), or -1 */
static long long sql_count(const char *sql, const char *arg)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long long n = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (arg) sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}
#endif
