/* SPDX-License-Identifier: Apache-2.0 */
/*
 * store_file.h -- helpers of the tests that look at a store's files: the
 * test's store path, removing the store with its log, and one count read
 * by a raw SQLite connection of its own (what the files hold, not what
 * the API says), and whether the file or its log holds some bytes.
 * Include after test.h.
 */
#ifndef AM_TEST_STORE_FILE_H
#define AM_TEST_STORE_FILE_H
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* 1 when the file holds needle[0..n) */
static inline int file_holds_n(const char *file, const char *needle, size_t n)
{
    FILE *f = fopen(file, "rb");
    if (!f) return 0;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    int found = 0;
    size_t r;
    while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) break;
            buf = nb;
            cap *= 2;
        }
    }
    for (size_t i = 0; buf && n && i + n <= len && !found; i++)
        if (buf[i] == needle[0] && memcmp(buf + i, needle, n) == 0) found = 1;
    free(buf);
    fclose(f);
    return found;
}

/* ".db" or "-wal" holds needle[0..n) */
static inline int store_holds_n(const char *needle, size_t n, const char *what)
{
    char wal[300];
    snprintf(wal, sizeof wal, "%s-wal", path);
    int in_db = file_holds_n(path, needle, n), in_wal = file_holds_n(wal, needle, n);
    if (in_db || in_wal)
        fprintf(stderr, "  \"%s\" is in %s%s\n", what, in_db ? ".db " : "", in_wal ? "-wal" : "");
    return in_db || in_wal;
}

static inline int store_holds(const char *needle)
{
    return store_holds_n(needle, strlen(needle), needle);
}
#endif
