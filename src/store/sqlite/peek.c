/* SPDX-License-Identifier: Apache-2.0 */
/*
 * peek.c -- a store file's schema version without opening the store for
 * use (am_store_schema_peek): a read-only connection, no migration, no
 * journal mode set, nothing created.  `agentmem doctor` reports with it.
 */
#include <sqlite3.h>
#include <sys/stat.h>

#include "store/store.h"

int am__store_sqlite_peek(const char *path, int *version)
{
    struct stat st;
    if (stat(path, &st) != 0) return AM_NOTFOUND;
    if (!S_ISREG(st.st_mode)) return AM_IO;
    *version = 0;
    if (st.st_size == 0) return AM_OK;
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_close(db);
        return AM_IO;
    }
    sqlite3_busy_timeout(db, 1000);
    sqlite3_stmt *st_meta = NULL;
    rc = sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key='schema_version'", -1, &st_meta,
                            NULL);
    int am_rc = AM_CORRUPT; /* no meta table, or a file that is not SQLite */
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st_meta);
        if (rc == SQLITE_ROW) {
            *version = sqlite3_column_int(st_meta, 0);
            am_rc = *version > 0 ? AM_OK : AM_CORRUPT;
        } else if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
            am_rc = AM_IO;
        }
    } else if (rc == SQLITE_BUSY || rc == SQLITE_CANTOPEN || rc == SQLITE_IOERR) {
        am_rc = AM_IO;
    } else if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &st_meta,
                                  NULL) == SQLITE_OK &&
               sqlite3_step(st_meta) == SQLITE_ROW && sqlite3_column_int(st_meta, 0) == 0) {
        am_rc = AM_OK; /* an SQLite file without tables: version 0, as an empty file */
    }
    sqlite3_finalize(st_meta);
    sqlite3_close(db);
    return am_rc;
}
