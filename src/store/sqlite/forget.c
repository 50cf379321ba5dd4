/*
 * forget.c -- forgetting (F24): an event, a session, a task or a user is
 * removed from every table and index, item versions left without a source
 * go with it, and a tombstone stays (a user's audit trail is
 * pseudonymised instead).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "store/sqlite/sqlite_int.h"

/* Event rows selected for deletion are first collected into a temp table;
 * everything else is deleted through it, so all indexes agree. */
static int forget_collected(sq_store *s, const char *uid, long *events,
                            long *items)
{
    static const char *const steps[] = {
        "DELETE FROM events_fts WHERE rowid IN (SELECT rid FROM temp.am_forget)",
        "DELETE FROM entities WHERE user_id=?1 AND event_rid IN (SELECT rid FROM temp.am_forget)",
        "DELETE FROM event_vectors WHERE user_id=?1 AND event_rid IN (SELECT rid FROM temp.am_forget)",
        "DELETE FROM pii_vault WHERE user_id=?1 AND event_rid IN (SELECT rid FROM temp.am_forget)",
        "DELETE FROM task_history WHERE user_id=?1 AND event_id IN (SELECT id FROM temp.am_forget)",
        /* a version counts its sources (schema v10): the listed ones
         * forgotten no longer count */
        "UPDATE memory_items SET source_count = max(0, source_count -"
        " (SELECT count(*) FROM item_sources s WHERE s.item_rid = memory_items.rid"
        "  AND s.event_id IN (SELECT id FROM temp.am_forget)))"
        " WHERE rid IN (SELECT item_rid FROM item_sources WHERE user_id=?1"
        "               AND event_id IN (SELECT id FROM temp.am_forget))",
        "DELETE FROM item_sources WHERE user_id=?1 AND event_id IN (SELECT id FROM temp.am_forget)",
        /* cascade: item versions left with no source go */
        "DELETE FROM memory_items WHERE user_id=?1 AND NOT EXISTS (SELECT 1 FROM item_sources s WHERE s.item_rid = memory_items.rid)",
        "DELETE FROM item_heat WHERE user_id=?1 AND lineage_id NOT IN (SELECT lineage_id FROM memory_items WHERE user_id=?1)",
        "DELETE FROM events WHERE user_id=?1 AND rid IN (SELECT rid FROM temp.am_forget)",
        "UPDATE users SET n_events = (SELECT count(*) FROM events e WHERE e.user_id = ?1)"
        " WHERE user_id = ?1",
        /* A forgotten turn also lived in its neighbours' indexed context:
         * rebuild the context of every remaining event of the sessions
         * touched, from the turns that remain. */
        "UPDATE events_fts SET ctx = '" AM__FTS_TAG "' || uid || '" AM__FTS_TAG "' ||"
        " (SELECT coalesce(x.p2 || ' ', '') || coalesce(x.p1 || ' ', '')"
        "  || coalesce(x.n1, '')"
        "  FROM (SELECT rid,"
        "        CASE WHEN occurred_at - LAG(occurred_at, 2) OVER w <= " AM__CONTEXT_GAP_SQL " THEN LAG(content, 2) OVER w END AS p2,"
        "        CASE WHEN occurred_at - LAG(occurred_at, 1) OVER w <= " AM__CONTEXT_GAP_SQL " THEN LAG(content, 1) OVER w END AS p1,"
        "        CASE WHEN LEAD(occurred_at, 1) OVER w - occurred_at <= " AM__CONTEXT_GAP_SQL " THEN LEAD(content, 1) OVER w END AS n1"
        "        FROM events"
        "        WHERE user_id=?1 AND session_id IN (SELECT session_id FROM temp.am_forget)"
        "        WINDOW w AS (PARTITION BY session_id ORDER BY occurred_at, rid)) x"
        "  WHERE x.rid = events_fts.rowid)"
        " WHERE rowid IN (SELECT rid FROM events WHERE user_id=?1"
        "                 AND session_id IN (SELECT session_id FROM temp.am_forget))",
    };
    int rc = am__sqlite_vec_forget_packed(s, uid); /* before their rows go */
    if (rc) return rc;
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        sqlite3_stmt *st = stmt(s, steps[i]);
        if (!st) return AM_BACKEND;
        if (sqlite3_bind_parameter_count(st) >= 1) bind_text(st, 1, uid);
        if ((rc = run(s, st, "forget"))) return rc;
        long ch = (long)sqlite3_changes(s->db);
        if (strncmp(steps[i], "DELETE FROM memory_items", 24) == 0) *items += ch;
        if (strncmp(steps[i], "DELETE FROM events WHERE", 24) == 0) *events += ch;
    }
    return AM_OK;
}

int am__sqlite_forget(am__store *b, const char *uid, int level, const char *id,
                      am_time now, long *events, long *items, long *tasks)
{
    sq_store *s = SQ(b);
    int rc;
    *events = *items = *tasks = 0;
    am__sqlite_caches_drop(s, AM__DROP_FORGET, uid);
    if ((rc = exec(s, "CREATE TEMP TABLE IF NOT EXISTS am_forget(rid INTEGER PRIMARY KEY, id TEXT, session_id TEXT);"
                      "DELETE FROM temp.am_forget;", "forget")))
        return rc;
    static const char *const pick[] = {
        NULL,
        "INSERT INTO temp.am_forget SELECT rid, id, session_id FROM events WHERE user_id=?1 AND id=?2",
        "INSERT INTO temp.am_forget SELECT rid, id, session_id FROM events WHERE user_id=?1 AND session_id=?2",
        "INSERT INTO temp.am_forget SELECT rid, id, session_id FROM events WHERE user_id=?1 AND task_id=?2",
        "INSERT INTO temp.am_forget SELECT rid, id, session_id FROM events WHERE user_id=?1 AND ?2 IS NULL",
    };
    if (level < 1 || level > 4) return AM_MISUSE;
    sqlite3_stmt *st = stmt(s, pick[level]);
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, level == AM_FORGET_USER ? NULL : id);
    if ((rc = run(s, st, "forget"))) return rc;
    long picked = (long)sqlite3_changes(s->db);
    if ((rc = forget_collected(s, uid, events, items))) return rc;
    if (level == AM_FORGET_TASK) {
        st = stmt(s, "DELETE FROM tasks WHERE user_id=? AND task_id=?");
        if (!st) return AM_BACKEND;
        bind_text(st, 1, uid);
        bind_text(st, 2, id);
        if ((rc = run(s, st, "forget task"))) return rc;
        *tasks = (long)sqlite3_changes(s->db);
        st = stmt(s, "DELETE FROM task_history WHERE user_id=? AND task_id=?");
        if (!st) return AM_BACKEND;
        bind_text(st, 1, uid);
        bind_text(st, 2, id);
        if ((rc = run(s, st, "forget task"))) return rc;
        /* items scoped to the task go with it */
        st = stmt(s, "DELETE FROM memory_items WHERE user_id=? AND scope=?");
        if (!st) return AM_BACKEND;
        bind_text(st, 1, uid);
        char scope[AM_ID_MAX + 8];
        snprintf(scope, sizeof scope, "task:%s", id);
        bind_text(st, 2, scope);
        if ((rc = run(s, st, "forget task items"))) return rc;
        *items += (long)sqlite3_changes(s->db);
    }
    if (level == AM_FORGET_USER) {
        static const char *const wipe[] = {
            "DELETE FROM item_sources WHERE user_id=?1",
            "DELETE FROM memory_items WHERE user_id=?1",
            "DELETE FROM item_heat WHERE user_id=?1",
            "DELETE FROM task_history WHERE user_id=?1",
            "DELETE FROM tasks WHERE user_id=?1",
            "DELETE FROM entities WHERE user_id=?1",
            "DELETE FROM event_vectors WHERE user_id=?1",
            "DELETE FROM vector_blocks WHERE user_id=?1",
            "DELETE FROM pii_vault WHERE user_id=?1",
            "DELETE FROM identity_links WHERE user_id=?1",
            "DELETE FROM tombstones WHERE user_id=?1",
            "DELETE FROM users WHERE user_id=?1",
            /* pseudonymise the audit trail: ids of objects stay, the
             * user's id is replaced by a one-way hash */
            "UPDATE audit_log SET user_id='forgotten:' || ?2 WHERE user_id=?1",
        };
        char hash[32];
        snprintf(hash, sizeof hash, "%016" PRIx64, am__hash64(uid, strlen(uid)));
        for (size_t i = 0; i < sizeof wipe / sizeof *wipe; i++) {
            st = stmt(s, wipe[i]);
            if (!st) return AM_BACKEND;
            bind_text(st, 1, uid);
            if (sqlite3_bind_parameter_count(st) >= 2) bind_text(st, 2, hash);
            if ((rc = run(s, st, "forget user"))) return rc;
            if (i == 1) *items += (long)sqlite3_changes(s->db);
            if (i == 4) *tasks = (long)sqlite3_changes(s->db);
        }
    } else {
        static const char *const lv[] = {"", "event", "session", "task", "user"};
        st = stmt(s, "INSERT INTO tombstones(user_id, level, object_id, at) VALUES(?,?,?,?)");
        if (!st) return AM_BACKEND;
        bind_text(st, 1, uid);
        bind_text(st, 2, lv[level]);
        bind_text(st, 3, id);
        sqlite3_bind_int64(st, 4, now);
        if ((rc = run(s, st, "tombstone"))) return rc;
    }
    /* Merge the FTS index so deleted postings are dropped from its pages,
     * and secure_delete zeroes the freed pages. */
    if (picked > 0 &&
        (rc = exec(s, "INSERT INTO events_fts(events_fts) VALUES('optimize')",
                   "forget index")))
        return rc;
    if (picked == 0 && *tasks == 0 && *items == 0 && level != AM_FORGET_USER)
        return AM_NOTFOUND;
    return AM_OK;
}
