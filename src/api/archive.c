/* SPDX-License-Identifier: Apache-2.0 */
/*
 * archive.c -- am_archive_events, am_archive_restore: the arguments
 * checked here; the work is lifecycle/cold.c's (the steps) and the
 * store's (cold_*).
 */
#include <string.h>

#include "api/db_int.h"
#include "lifecycle/cold.h"

/* user_id NULL (every user, when any is allowed), or a known user. */
static int known_user(am_db *db, const char *what, const char *user_id)
{
    if (!user_id) return AM_OK;
    int rc = am__db_check_id(db, what, "user_id", user_id);
    if (rc) return rc;
    int exists = am__store_user_exists(db->store, user_id);
    if (exists < 0) return am__db_store_error(db, -exists, what);
    if (!exists) return am__db_error(db, AM_NOTFOUND, "%s: unknown user %s", what, user_id);
    return AM_OK;
}

int am_archive_events(am_db *db, const char *user_id, int older_than_days, long *moved)
{
    if (!db) return AM_MISUSE;
    if (moved) *moved = 0;
    am__db_clear_error(db);
    if (older_than_days == 0 || older_than_days > 36500)
        return am__db_error(db, AM_INVALID,
                            "archive: older_than_days %d is not between 1 and 36500",
                            older_than_days);
    int rc = known_user(db, "archive", user_id);
    if (rc) return rc;
    int days = older_than_days < 0 ? db->cfg.rank.archive_events_days : older_than_days;
    am__cold_run run;
    am__cold_init(&run, db->store, &db->alloc, days);
    am_time now = am__db_now(db);
    for (int done = 0; !done;) {
        long step = 0;
        if ((rc = am__cold_step(&run, user_id, now, AM_ARCHIVE_STEP, &step, &done)))
            break;
        if (moved) *moved = run.moved;
    }
    if (rc) return am__db_store_error(db, rc, "archive");
    if (run.moved)
        am__db_log(db, AM_LOG_INFO, "archive: %ld events archived, %ld short ones left as they are",
                   run.moved, run.kept);
    return AM_OK;
}

int am_archive_restore(am_db *db, const char *user_id, const char *event_id, am_time from,
                       am_time to, long *restored)
{
    if (!db || !user_id) return AM_MISUSE;
    if (restored) *restored = 0;
    am__db_clear_error(db);
    int rc = known_user(db, "archive restore", user_id);
    if (rc) return rc;
    if (event_id && (rc = am__db_check_id(db, "archive restore", "event_id", event_id)))
        return rc;
    if (!event_id && from != AM_TIME_NONE && to != AM_TIME_NONE && from > to)
        return am__db_error(db, AM_INVALID, "archive restore: from is after to");
    am__store *s = db->store;
    if ((rc = am__store_begin(s))) return am__db_store_error(db, rc, "archive restore");
    long n = 0;
    if (event_id) {
        am__arena ar;
        am__arena_init(&ar, &db->alloc);
        am__event_row ev;
        rc = s->vt->events.event_get(s, user_id, AM__EVENT_BY_ID, event_id, &ar, &ev);
        am__arena_free(&ar);
        if (rc == AM_NOTFOUND) {
            am__store_rollback(s);
            return am__db_error(db, AM_NOTFOUND, "archive restore: user %s has no event %s",
                                user_id, event_id);
        }
    }
    if (!rc) rc = am__store_cold_restore(s, user_id, event_id, from, to, &n);
    if (!rc) rc = am__store_commit(s);
    if (rc) {
        am__store_rollback(s);
        return am__db_store_error(db, rc, "archive restore");
    }
    if (restored) *restored = n;
    return AM_OK;
}
