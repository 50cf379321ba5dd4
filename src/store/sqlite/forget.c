/* SPDX-License-Identifier: Apache-2.0 */
/*
 * forget.c -- forgetting: an event, a session, a task or a user
 * leaves every table and index, and then the files (docs/FORGETTING.md).
 *
 * Events, sessions and tasks go in the caller's transaction: their rows
 * are collected into temp.am_forget and everything is deleted through
 * it, so all indexes agree; item versions left without a source go with
 * them, the tasks they belonged to lose the history rows their state is
 * derived from (the caller replays the tasks' remaining events: api/
 * forget.c), and a tombstone (the ids' keyed hashes, time) stays.
 *
 * A user can hold far more rows than one transaction should delete while
 * other users wait for the write lock, so a user forget only records a
 * job (forget_jobs) and hides the user at once: user_exists says no, and
 * the API refuses every other call for it.  am__forget_work
 * (domain/forget.c) then does the job's due work in short transactions,
 * each a forget_step here (the scrub: AM__CTL_SCRUB):
 *   held   the grace period (purge_at in the future): restore deletes the
 *          job and the user is back as it was;
 *   purge  FORGET_CHUNK events, or FORGET_SWEEP rows of one other table,
 *          per transaction, a pause apart (a writer waiting for
 *          the lock gets it); when none is left, one transaction deletes
 *          the user's row and links, re-keys its audit trail to a
 *          pseudonym and leaves a tombstone under it;
 *   scrub  (every level) the deleted rows' bytes leave the files: FTS5
 *          keeps a deleted row's terms in its segment b-trees until they
 *          are merged, so the index is merged FORGET_MERGE pages a
 *          transaction until it is one segment; secure_delete (opened
 *          with it) has zeroed the freed cells and pages; then the log is
 *          checkpointed and truncated -- which needs a moment with no
 *          reader on an old snapshot: when another connection is reading,
 *          the job stays and the next am__forget_work tries again.
 * A process killed in the middle leaves the job: the next open finishes
 * it (api/forget.c runs am__forget_work on open, on am_optimize and after
 * writes), and every step is a delete of what is left, so doing one twice
 * is harmless.
 *
 * The pseudonym is "forgotten:" + HMAC-SHA256(forget_key, user id)
 * (first 16 bytes, hex), forget_key 32 random bytes made with the store
 * (schema v10): the API finds a forgotten user's tombstone from its id,
 * but guessing ids against a stored hash finds nothing without the key.
 * The audit rows keep their times and operations; object ids only where
 * the engine made them (events, memories), details only of forget and
 * restore (counts): a linked phone number or a task name is gone.
 */
#include <inttypes.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/sqlite/sqlite_int.h"

#define FORGET_CHUNK "32"  /* events a purge transaction deletes */
#define FORGET_SWEEP "1000" /* rows of another table a transaction deletes */
#define FORGET_BLOCKS "16"  /* vector blocks (VEC_BLOCK vectors each) */
#define FORGET_MERGE_N -128 /* index pages a merge transaction writes */
#define FORGET_STR(x) #x
#define FORGET_XSTR(x) FORGET_STR(x)
#define FORGET_MERGE FORGET_XSTR(FORGET_MERGE_N)
#define FORGET_CKPT_MS 100  /* a checkpoint's wait for other connections */
#define FORGET_CKPT_TRIES 5
#define PSEUDONYM_MAX 48

static const char *const level_names[] = {"", "event", "session", "task", "user"};

/* ------------------------------------------------------------ pseudonym */

/* the store's forget_key, read once */
static int forget_key(sq_store *s, const unsigned char **key, size_t *kn)
{
    if (s->forget_key_n < 16) {
        int rc = am__sqlite_meta_key(s, "forget_key", s->forget_key, sizeof s->forget_key,
                                     &s->forget_key_n);
        if (rc) return rc;
        if (s->forget_key_n < 16) {
            s->forget_key_n = 0;
            snprintf(s->err, sizeof s->err,
                     "sqlite: the store's forget_key is missing or malformed");
            return AM_CORRUPT;
        }
    }
    *key = s->forget_key;
    *kn = s->forget_key_n;
    return AM_OK;
}

/* out = "forgotten:" + hex(HMAC-SHA256(forget_key, uid))[0..32) */
static int pseudonym(sq_store *s, const char *uid, char out[PSEUDONYM_MAX])
{
    const unsigned char *key;
    size_t kn = 0;
    int out_rc = forget_key(s, &key, &kn);
    if (out_rc) return out_rc;
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int mn = 0;
    if (!HMAC(EVP_sha256(), key, (int)kn, (const unsigned char *)uid, strlen(uid), mac, &mn) ||
        mn < 16) {
        snprintf(s->err, sizeof s->err, "sqlite: HMAC-SHA256 failed");
        return AM_BACKEND;
    }
    memcpy(out, "forgotten:", 10);
    for (int i = 0; i < 16; i++) snprintf(out + 10 + 2 * i, 3, "%02x", mac[i]);
    return AM_OK;
}

/* the store's tag: hex(HMAC-SHA256(forget_key, "am-store-tag")) */
static int store_tag(am__store *b, unsigned char out[32])
{
    sq_store *s = SQ(b);
    const unsigned char *key;
    unsigned char mac[EVP_MAX_MD_SIZE];
    size_t kn = 0;
    unsigned int mn = 0;
    int rc = forget_key(s, &key, &kn);
    if (rc) return rc;
    static const char what[] = "am-store-tag";
    if (!HMAC(EVP_sha256(), key, (int)kn, (const unsigned char *)what, sizeof what - 1, mac,
              &mn) || mn < 32) {
        snprintf(s->err, sizeof s->err, "sqlite: HMAC-SHA256 failed");
        return AM_BACKEND;
    }
    memcpy(out, mac, 32);
    return AM_OK;
}

int am__sqlite_key_hash(am__store *b, const char *const *parts, size_t n, unsigned char out[32])
{
    if (!parts) return store_tag(b, out);
    sq_store *s = SQ(b);
    const unsigned char *key;
    size_t kn = 0;
    int rc = forget_key(s, &key, &kn);
    if (rc) return rc;
    if ((rc = am__store_hmac_parts(key, kn, parts, n, out)))
        snprintf(s->err, sizeof s->err, "sqlite: HMAC-SHA256 failed (an id too long?)");
    return rc;
}

/* am_key_id(uid, scope, key) and am_object_ref(level, uid, id): the
 * opaque ids (store/ids.c) in SQL, NULL for a NULL key or id */
static void sql_ref(sqlite3_context *cx, int is_key, sqlite3_value **argv)
{
    sq_store *s = sqlite3_user_data(cx);
    const char *a[3];
    for (int i = 0; i < 3; i++) a[i] = (const char *)sqlite3_value_text(argv[i]);
    if (!a[0] || !a[1] || !a[2]) {
        sqlite3_result_null(cx);
        return;
    }
    char out[AM__REF_LEN + 1];
    int rc = is_key ? am__store_key_id(&s->base, a[0], a[1], a[2], out)
                    : am__store_object_ref(&s->base, a[1], a[0], a[2], out);
    if (rc) sqlite3_result_error(cx, rc == AM_MISUSE ? "am_object_ref: unknown level" : s->err, -1);
    else sqlite3_result_text(cx, out, -1, SQLITE_TRANSIENT);
}

static void sql_key_id(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    (void)argc;
    sql_ref(cx, 1, argv);
}

static void sql_object_ref(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    (void)argc;
    sql_ref(cx, 0, argv);
}

int am__sqlite_register_ids(sq_store *s)
{
    int rc = sqlite3_create_function(s->db, "am_key_id", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC, s,
                                     sql_key_id, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function(s->db, "am_object_ref", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                     s, sql_object_ref, NULL, NULL);
    return rc == SQLITE_OK ? AM_OK : fail(s, rc, "register am_key_id");
}

/* ------------------------------------------------------------ events, sessions, tasks */

/* A forgotten turn also lived in its neighbours' indexed context: the
 * context of every event of the sessions in temp.am_forget, rebuilt from
 * the turns there are (?1 = uid; after a forget and after a restore). */
static const char ctx_rebuild[] =
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
    "                 AND session_id IN (SELECT session_id FROM temp.am_forget))";

/* A delete of table's rows where where (?1 = uid) -- held first by a
 * forget with a grace period (held.c); held NULL: not held row by row
 * (the index rows, the vectors and the tasks are held before, whole). */
typedef struct forget_step {
    const char *sql, *held, *where;
} forget_step;
#define FORGET_DELETE(table, where) {"DELETE FROM " table " WHERE " where, table, where}

/* Event rows selected for deletion are first collected into a temp table;
 * everything else is deleted through it, so all indexes agree.  job > 0:
 * with a grace period, every row deleted is held under the job first. */
static int forget_collected(sq_store *s, const char *uid, int64_t job, long *events, long *items)
{
    static const forget_step steps[] = {
        {"DELETE FROM events_fts WHERE rowid IN (SELECT rid FROM temp.am_forget)", NULL, NULL},
        FORGET_DELETE("entities", "+user_id=?1 AND event_rid IN (SELECT rid FROM temp.am_forget)"),
        {"DELETE FROM event_vectors WHERE user_id=?1 AND event_rid IN (SELECT rid FROM temp.am_forget)", NULL, NULL},
        FORGET_DELETE("pii_vault", "+user_id=?1 AND event_rid IN (SELECT rid FROM temp.am_forget)"),
        {"DELETE FROM task_history WHERE user_id=?1 AND event_id IN (SELECT id FROM temp.am_forget)", NULL, NULL},
        /* a version counts its sources (schema v11): the listed ones
         * forgotten no longer count */
        {"UPDATE memory_items SET source_count = max(0, source_count -"
         " (SELECT count(*) FROM item_sources s WHERE s.item_rid = memory_items.rid"
         "  AND s.event_id IN (SELECT id FROM temp.am_forget)))"
         " WHERE rid IN (SELECT item_rid FROM item_sources WHERE user_id=?1"
         "               AND event_id IN (SELECT id FROM temp.am_forget))", NULL, NULL},
        FORGET_DELETE("item_sources", "user_id=?1 AND event_id IN (SELECT id FROM temp.am_forget)"),
        /* cascade: item versions left with no source go */
        FORGET_DELETE("memory_items", "user_id=?1 AND NOT EXISTS (SELECT 1 FROM item_sources s WHERE s.item_rid = memory_items.rid)"),
        FORGET_DELETE("item_heat", "user_id=?1 AND lineage_id NOT IN (SELECT lineage_id FROM memory_items WHERE user_id=?1)"),
        FORGET_DELETE("events", "+user_id=?1 AND rid IN (SELECT rid FROM temp.am_forget)"),
        {"UPDATE users SET n_events = (SELECT count(*) FROM events e WHERE e.user_id = ?1)"
         " WHERE user_id = ?1", NULL, NULL},
        {ctx_rebuild, NULL, NULL},
    };
    int rc = AM_OK;
    if (job > 0) { /* the index rows as they are; the vectors out of their blocks */
        sqlite3_stmt *st = stmt(s, "INSERT INTO held_events_fts(held_job, user_id, rid, uid, doc, ctx)"
                                   " SELECT ?2, ?1, rowid, uid, doc, ctx FROM events_fts"
                                   " WHERE rowid IN (SELECT rid FROM temp.am_forget)");
        if (!st) return AM_BACKEND;
        bind_text(st, 1, uid);
        sqlite3_bind_int64(st, 2, job);
        if ((rc = run(s, st, "hold index"))) return rc;
        rc = am__sqlite_held_copy(s, "event_vectors",
                                  "user_id=?1 AND event_rid IN (SELECT rid FROM temp.am_forget)",
                                  uid, NULL, job);
        if (!rc) rc = am__sqlite_vec_hold_packed(s, job);
        if (rc) return rc;
    }
    rc = am__sqlite_vec_forget_packed(s, uid); /* before their rows go */
    if (rc) return rc;
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        if (job > 0 && steps[i].held &&
            (rc = am__sqlite_held_copy(s, steps[i].held, steps[i].where, uid, NULL, job)))
            return rc;
        sqlite3_stmt *st = stmt(s, steps[i].sql);
        if (!st) return AM_BACKEND;
        if (sqlite3_bind_parameter_count(st) >= 1) bind_text(st, 1, uid);
        if ((rc = run(s, st, "forget"))) return rc;
        long ch = (long)sqlite3_changes(s->db);
        if (strncmp(steps[i].sql, "DELETE FROM memory_items", 24) == 0) *items += ch;
        if (strncmp(steps[i].sql, "DELETE FROM events WHERE", 24) == 0) *events += ch;
    }
    return AM_OK;
}

/* Run sql with ?1 = uid (and ?2 = id when it has two parameters). */
static int run_uid(sq_store *s, const char *sql, const char *uid, const char *id,
                   const char *what)
{
    sqlite3_stmt *st = stmt(s, sql);
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    if (sqlite3_bind_parameter_count(st) >= 2) bind_text(st, 2, id);
    return run(s, st, what);
}

/* The tasks of the collected events (before they go: after = 0); after
 * they went, the ones left without events go, and the others lose the
 * history rows their state is derived from (the caller replays them from
 * the events that remain). */
static int tasks_touched(sq_store *s, const char *uid, int level, const char *id, int after,
                         long *tasks)
{
    static const char *const before_sql[] = {
        "CREATE TEMP TABLE IF NOT EXISTS am_forget_tasks(task_id TEXT PRIMARY KEY)",
        "DELETE FROM temp.am_forget_tasks",
        "INSERT OR IGNORE INTO temp.am_forget_tasks"
        " SELECT task_id FROM events WHERE user_id=?1 AND task_id IS NOT NULL"
        " AND rid IN (SELECT rid FROM temp.am_forget)"
        " UNION SELECT task_id FROM task_history WHERE user_id=?1"
        " AND event_id IN (SELECT id FROM temp.am_forget)",
    };
    static const char *const after_sql[] = {
        /* a forgotten task goes whole (am__sqlite_forget_grace) */
        "DELETE FROM temp.am_forget_tasks WHERE task_id=?2",
        "DELETE FROM tasks WHERE user_id=?1"
        " AND task_id IN (SELECT task_id FROM temp.am_forget_tasks)"
        " AND NOT EXISTS (SELECT 1 FROM events e WHERE e.user_id=?1 AND e.task_id=tasks.task_id)",
        "DELETE FROM task_history WHERE user_id=?1"
        " AND task_id IN (SELECT task_id FROM temp.am_forget_tasks)"
        " AND task_id NOT IN (SELECT task_id FROM tasks WHERE user_id=?1)",
        "DELETE FROM task_workspace WHERE user_id=?1"
        " AND task_id IN (SELECT task_id FROM temp.am_forget_tasks)"
        " AND task_id NOT IN (SELECT task_id FROM tasks WHERE user_id=?1)",
        "DELETE FROM temp.am_forget_tasks WHERE task_id NOT IN"
        " (SELECT task_id FROM tasks WHERE user_id=?1)",
        "DELETE FROM task_history WHERE user_id=?1"
        " AND task_id IN (SELECT task_id FROM temp.am_forget_tasks)"
        " AND field IN ('pending', 'note', 'status', 'stage')",
    };
    const char *const *sql = after ? after_sql : before_sql;
    size_t n = after ? sizeof after_sql / sizeof *after_sql : sizeof before_sql / sizeof *before_sql;
    for (size_t i = 0; i < n; i++) {
        if (after && i == 0 && level != AM_FORGET_TASK) continue;
        int rc = run_uid(s, sql[i], uid, id, "forget");
        if (rc) return rc;
        if (after && i == 1) *tasks += (long)sqlite3_changes(s->db);
    }
    return AM_OK;
}

/* A job: the index merge and log checkpoint owed (scrub), or a user's
 * purge at purge_at. */
static int job_add(sq_store *s, const char *uid, const char *level, const char *id,
                   am_time now, am_time purge_at, const char *state)
{
    sqlite3_stmt *st = stmt(s, "INSERT INTO forget_jobs(user_id, level, object_id, forgotten_at,"
                               " purge_at, state) VALUES(?,?,?,?,?,?)");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, level);
    bind_text(st, 3, id);
    sqlite3_bind_int64(st, 4, now);
    sqlite3_bind_int64(st, 5, purge_at);
    bind_text(st, 6, state);
    return run(s, st, "forget job");
}

/* The memory events of a forget (outbox.c).  Before (after = 0):
 * the user's memory items (lineages) and tasks are noted.  After: the
 * outbox rows of those gone leave it, the forgotten events' ids leave the
 * rows of what remains, and a memory.forgotten notice -- ids and the level
 * only -- is written for each forgotten event, memory item and task.  The
 * outbox names a task by its opaque id (store/ids.c), never the caller's. */
static int forget_outbox(sq_store *s, const char *uid, int level, am_time now, int after)
{
    static const char *const before_sql[] = {
        "CREATE TEMP TABLE IF NOT EXISTS am_forget_had(kind INTEGER, id TEXT,"
        " PRIMARY KEY(kind, id)) WITHOUT ROWID",
        "DELETE FROM temp.am_forget_had",
        "INSERT OR IGNORE INTO temp.am_forget_had SELECT 0, lineage_id FROM memory_items"
        " WHERE user_id=?1",
        "INSERT OR IGNORE INTO temp.am_forget_had SELECT 1, task_id FROM tasks WHERE user_id=?1",
    };
    static const char *const after_sql[] = {
        "DELETE FROM temp.am_forget_had WHERE kind=0 AND id IN"
        " (SELECT lineage_id FROM memory_items WHERE user_id=?1)",
        "DELETE FROM temp.am_forget_had WHERE kind=1 AND id IN"
        " (SELECT task_id FROM tasks WHERE user_id=?1)",
        "DELETE FROM memory_events WHERE user_id=?1 AND memory_id IN"
        " (SELECT id FROM temp.am_forget_had WHERE kind=0)",
        "DELETE FROM memory_events WHERE user_id=?1 AND task_id IN"
        " (SELECT am_object_ref('task', ?1, id) FROM temp.am_forget_had WHERE kind=1)",
        "UPDATE memory_events SET event_id=NULL WHERE user_id=?1 AND event_id IN"
        " (SELECT id FROM temp.am_forget)",
        /* the notices (?2 the level, ?3 now) */
        "INSERT INTO memory_events(at, user_id, type, event_id, detail)"
        " SELECT ?3, ?1, 'memory.forgotten', id, ?2 FROM temp.am_forget ORDER BY rid",
        "INSERT INTO memory_events(at, user_id, type, memory_id, detail)"
        " SELECT ?3, ?1, 'memory.forgotten', id, ?2 FROM temp.am_forget_had WHERE kind=0",
        "INSERT INTO memory_events(at, user_id, type, task_id, detail)"
        " SELECT ?3, ?1, 'memory.forgotten', am_object_ref('task', ?1, id), ?2"
        " FROM temp.am_forget_had WHERE kind=1",
    };
    const char *const *sql = after ? after_sql : before_sql;
    size_t n = after ? sizeof after_sql / sizeof *after_sql : sizeof before_sql / sizeof *before_sql;
    for (size_t i = 0; i < n; i++) {
        sqlite3_stmt *st = stmt(s, sql[i]);
        if (!st) return AM_BACKEND;
        bind_text(st, 1, uid);
        if (sqlite3_bind_parameter_count(st) >= 3) {
            bind_text(st, 2, level_names[level]);
            sqlite3_bind_int64(st, 3, now);
        }
        int rc = run(s, st, "forget memory events");
        if (rc) return rc;
        if (strncmp(sql[i], "INSERT INTO memory_events", 25) == 0)
            am__sqlite_outbox_note(s, (int64_t)sqlite3_changes(s->db));
    }
    return AM_OK;
}

/* Held jobs holding events of what is forgotten again (an event, a
 * session, a task) purge no later than purge_at; *pulled: how many. */
static int held_pull(sq_store *s, const char *uid, int level, const char *id, am_time purge_at,
                     long *pulled)
{
    static const char *const sql[] = {
        NULL,
        "UPDATE forget_jobs SET purge_at = min(purge_at, ?3) WHERE state='held' AND level != 'user'"
        " AND user_id=?1 AND seq IN (SELECT held_job FROM held_events WHERE user_id=?1 AND id=?2)",
        "UPDATE forget_jobs SET purge_at = min(purge_at, ?3) WHERE state='held' AND level != 'user'"
        " AND user_id=?1 AND seq IN (SELECT held_job FROM held_events WHERE user_id=?1 AND session_id=?2)",
        "UPDATE forget_jobs SET purge_at = min(purge_at, ?3) WHERE state='held' AND level != 'user'"
        " AND user_id=?1 AND seq IN (SELECT held_job FROM held_events WHERE user_id=?1 AND task_id=?2)",
    };
    sqlite3_stmt *st = stmt(s, sql[level]);
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, id);
    sqlite3_bind_int64(st, 3, purge_at);
    int rc = run(s, st, "forget");
    *pulled = rc ? 0 : (long)sqlite3_changes(s->db);
    return rc;
}

int am__sqlite_forget_grace(am__store *b, const char *uid, int level, const char *id, am_time now,
                            am_time purge_at, am__forget_gone *out)
{
    sq_store *s = SQ(b);
    int rc;
    memset(out, 0, sizeof *out);
    long *events = &out->events, *items = &out->versions, *tasks = &out->tasks;
    if (level < AM_FORGET_EVENT || level > AM_FORGET_TASK) return AM_MISUSE;
    am__sqlite_caches_drop(s, AM__DROP_FORGET, uid);
    if ((rc = held_pull(s, uid, level, id, purge_at, &out->pulled))) return rc;
    int64_t job = 0; /* > 0: the rows are held until purge_at */
    if (purge_at > now) {
        if ((rc = job_add(s, uid, level_names[level], id, now, purge_at, "held"))) return rc;
        job = out->job = sqlite3_last_insert_rowid(s->db);
    }
    if ((rc = exec(s, "CREATE TEMP TABLE IF NOT EXISTS am_forget(rid INTEGER PRIMARY KEY, id TEXT, session_id TEXT);"
                      "DELETE FROM temp.am_forget;", "forget")))
        return rc;
    static const char *const pick[] = {
        NULL,
        "INSERT INTO temp.am_forget SELECT rid, id, session_id FROM events WHERE user_id=?1 AND id=?2",
        "INSERT INTO temp.am_forget SELECT rid, id, session_id FROM events WHERE user_id=?1 AND session_id=?2",
        "INSERT INTO temp.am_forget SELECT rid, id, session_id FROM events WHERE user_id=?1 AND task_id=?2",
    };
    if ((rc = forget_outbox(s, uid, level, now, 0))) return rc;
    if ((rc = run_uid(s, pick[level], uid, id, "forget"))) return rc;
    long picked = out->picked = (long)sqlite3_changes(s->db);
    if ((rc = tasks_touched(s, uid, level, id, 0, tasks))) return rc;
    if (job > 0) { /* the touched tasks as they are, whole */
        if (level == AM_FORGET_TASK &&
            (rc = run_uid(s, "INSERT OR IGNORE INTO temp.am_forget_tasks VALUES(?2)", uid, id, "forget")))
            return rc;
        static const char tasks_where[] = "user_id=?1 AND task_id IN (SELECT task_id FROM temp.am_forget_tasks)";
        if ((rc = am__sqlite_held_copy(s, "tasks", tasks_where, uid, NULL, job)) ||
            (rc = am__sqlite_held_copy(s, "task_history", tasks_where, uid, NULL, job)) ||
            (rc = am__sqlite_held_copy(s, "task_workspace", tasks_where, uid, NULL, job)))
            return rc;
    }
    if ((rc = forget_collected(s, uid, job, events, items))) return rc;
    if (level == AM_FORGET_TASK) {
        if ((rc = run_uid(s, "DELETE FROM tasks WHERE user_id=?1 AND task_id=?2", uid, id,
                          "forget task")))
            return rc;
        *tasks += (long)sqlite3_changes(s->db);
        if ((rc = run_uid(s, "DELETE FROM task_history WHERE user_id=?1 AND task_id=?2", uid, id,
                          "forget task")))
            return rc;
        if ((rc = run_uid(s, "DELETE FROM task_workspace WHERE user_id=?1 AND task_id=?2", uid, id,
                          "forget task")))
            return rc;
        /* items scoped to the task go with it */
        char scope[AM_ID_MAX + 8];
        snprintf(scope, sizeof scope, "task:%s", id);
        if (job > 0 && (rc = am__sqlite_held_copy(s, "memory_items", "user_id=?1 AND scope=?2", uid,
                                                  scope, job)))
            return rc;
        if ((rc = run_uid(s, "DELETE FROM memory_items WHERE user_id=?1 AND scope=?2", uid, scope,
                          "forget task items")))
            return rc;
        *items += (long)sqlite3_changes(s->db);
    }
    if ((rc = tasks_touched(s, uid, level, id, 1, tasks))) return rc;
    /* nothing went: nothing to say (the caller's rule: not found, or
     * only held rows forgotten again) */
    return picked == 0 && *tasks == 0 && *items == 0 ? AM_OK : forget_outbox(s, uid, level, now, 1);
}

/* One memory item (every version of a lineage) deleted: its rows, their
 * provenance and heat, the copies held forgets keep of them (restoring
 * one of those later must not bring the item back), its memory events. */
int am__sqlite_forget_delete(am__store *b, const char *uid, const am__forget_del *d,
                             am__forget_gone *out)
{
    sq_store *s = SQ(b);
    static const char *const sql[] = {
        "DELETE FROM item_sources WHERE user_id=?1 AND item_rid IN"
        " (SELECT rid FROM memory_items WHERE user_id=?1 AND lineage_id=?2)",
        "DELETE FROM memory_items WHERE user_id=?1 AND lineage_id=?2",
        "DELETE FROM item_heat WHERE user_id=?1 AND lineage_id=?2",
        "DELETE FROM held_item_sources WHERE user_id=?1 AND item_rid IN"
        " (SELECT rid FROM held_memory_items WHERE user_id=?1 AND lineage_id=?2)",
        "DELETE FROM held_memory_items WHERE user_id=?1 AND lineage_id=?2",
        "DELETE FROM held_item_heat WHERE user_id=?1 AND lineage_id=?2",
        "DELETE FROM memory_events WHERE user_id=?1 AND memory_id=?2",
    };
    memset(out, 0, sizeof *out);
    if (!d->lineage) return AM_MISUSE;
    am__sqlite_memo_clear(s); /* the latest items it holds have the text */
    for (size_t i = 0; i < sizeof sql / sizeof *sql; i++) {
        int rc = run_uid(s, sql[i], uid, d->lineage, "memory delete");
        if (rc) return rc;
        if (i == 1 && (out->versions = (long)sqlite3_changes(s->db)) == 0) return AM_OK;
    }
    return AM_OK;
}

/* The tasks the last forget or restore touched that remain. */
static int touched_list(sq_store *s, am__arena *ar, const char ***ids, size_t *n)
{
    sqlite3_stmt *st = stmt(s, "SELECT task_id FROM temp.am_forget_tasks ORDER BY task_id");
    if (!st) return AM_BACKEND;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char **p = push(ar, (void **)ids, n, &cap, sizeof *p);
        if (!p || !(*p = col_text(ar, st, 0))) { done(s, st); return AM_NOMEM; }
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "forget");
    done(s, st);
    return out;
}

/* One count (?1 = uid), or -1 on error. */
static long count_uid(sq_store *s, const char *sql, const char *uid)
{
    sqlite3_stmt *st = stmt(s, sql);
    if (!st) return -1;
    bind_text(st, 1, uid);
    int rc = sqlite3_step(st);
    long n = rc == SQLITE_ROW ? (long)sqlite3_column_int64(st, 0) : -1;
    if (rc != SQLITE_ROW) fail(s, rc, "forget");
    done(s, st);
    return n;
}

int am__sqlite_forget_mark(am__store *b, const char *uid, const am__forget_sel *sel, am__arena *ar,
                           am__forget_marked *out)
{
    sq_store *s = SQ(b);
    memset(out, 0, sizeof *out);
    if (sel->level == 0) return touched_list(s, ar, &out->tasks_touched, &out->n_touched);
    if (sel->level != AM_FORGET_USER) return AM_MISUSE;
    out->events = count_uid(s, "SELECT count(*) FROM events WHERE user_id=?1", uid);
    out->versions = count_uid(s, "SELECT count(*) FROM memory_items WHERE user_id=?1", uid);
    out->tasks = count_uid(s, "SELECT count(*) FROM tasks WHERE user_id=?1", uid);
    return out->events < 0 || out->versions < 0 || out->tasks < 0 ? AM_BACKEND : AM_OK;
}

typedef am__fjob_due job;

/* The next due job into *j: *found 1, or 0 for none. */
static int job_next(sq_store *s, am_time now, job *j, size_t *found)
{
    *found = 0;
    if (!sqlite3_get_autocommit(s->db)) return AM_MISUSE;
    sqlite3_stmt *st = stmt(s, "SELECT seq, user_id, state, forgotten_at, level, object_id FROM forget_jobs"
                               " WHERE purge_at <= ?1 ORDER BY state = 'scrub', seq LIMIT 1");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, now);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *found = 1;
        j->seq = sqlite3_column_int64(st, 0);
        snprintf(j->uid, sizeof j->uid, "%s", (const char *)sqlite3_column_text(st, 1));
        snprintf(j->state, sizeof j->state, "%s", (const char *)sqlite3_column_text(st, 2));
        j->forgotten_at = sqlite3_column_int64(st, 3);
        const char *lv = (const char *)sqlite3_column_text(st, 4);
        const char *obj = (const char *)sqlite3_column_text(st, 5);
        snprintf(j->level, sizeof j->level, "%s", lv ? lv : "");
        snprintf(j->object_id, sizeof j->object_id, "%s", obj ? obj : "");
    }
    int out = rc == SQLITE_ROW || rc == SQLITE_DONE ? AM_OK : fail(s, rc, "forget job");
    done(s, st);
    return out;
}

/* One transaction of a user's purge: a chunk of events with everything
 * keyed by them, else a sweep of another table, else the end (the user's
 * row, links and audit trail).  *finished = 1 after the end. */
static int purge_step(sq_store *s, const job *j, am_time now, int *finished)
{
    /* (+user_id: by the event's index, not a walk of the user's rows) */
    static const char *const chunk[] = {
        ("INSERT INTO temp.am_forget SELECT rid, id, session_id FROM events WHERE user_id=?1"
         " ORDER BY rid LIMIT " FORGET_CHUNK),
        "DELETE FROM events_fts WHERE rowid IN (SELECT rid FROM temp.am_forget)",
        "DELETE FROM entities WHERE +user_id=?1 AND event_rid IN (SELECT rid FROM temp.am_forget)",
        "DELETE FROM pii_vault WHERE +user_id=?1 AND event_rid IN (SELECT rid FROM temp.am_forget)",
        "DELETE FROM event_vectors WHERE user_id=?1 AND event_rid IN (SELECT rid FROM temp.am_forget)",
        "DELETE FROM events WHERE +user_id=?1 AND rid IN (SELECT rid FROM temp.am_forget)",
    };
    static const char *const sweep[] = {
        "DELETE FROM item_sources WHERE rowid IN (SELECT rowid FROM item_sources WHERE user_id=?1 LIMIT " FORGET_SWEEP ")",
        "DELETE FROM memory_items WHERE rid IN (SELECT rid FROM memory_items WHERE user_id=?1 LIMIT " FORGET_SWEEP ")",
        "DELETE FROM item_heat WHERE rowid IN (SELECT rowid FROM item_heat WHERE user_id=?1 LIMIT " FORGET_SWEEP ")",
        "DELETE FROM task_history WHERE seq IN (SELECT seq FROM task_history WHERE user_id=?1 LIMIT " FORGET_SWEEP ")",
        "DELETE FROM tasks WHERE rowid IN (SELECT rowid FROM tasks WHERE user_id=?1 LIMIT " FORGET_SWEEP ")",
        "DELETE FROM task_workspace WHERE rowid IN (SELECT rowid FROM task_workspace WHERE user_id=?1 LIMIT " FORGET_SWEEP ")",
        "DELETE FROM vector_blocks WHERE block IN (SELECT block FROM vector_blocks WHERE user_id=?1 LIMIT " FORGET_BLOCKS ")",
        ("DELETE FROM event_vectors WHERE user_id=?1 AND event_rid IN"
         " (SELECT event_rid FROM event_vectors WHERE user_id=?1 LIMIT " FORGET_SWEEP ")"),
        "DELETE FROM entities WHERE rowid IN (SELECT rowid FROM entities WHERE user_id=?1 LIMIT " FORGET_SWEEP ")",
        "DELETE FROM pii_vault WHERE rowid IN (SELECT rowid FROM pii_vault WHERE user_id=?1 LIMIT " FORGET_SWEEP ")",
        /* its memory events, but for the notice of the forget (re-keyed
         * at the end) */
        ("DELETE FROM memory_events WHERE seq IN (SELECT seq FROM memory_events WHERE user_id=?1"
         " AND NOT (type = 'memory.forgotten' AND detail = 'user') LIMIT " FORGET_SWEEP ")"),
    };
    static const char *const end[] = {
        "DELETE FROM identity_links WHERE user_id=?1",
        "DELETE FROM records WHERE user_id=?1", /* tokens, packs, working memory */
        "DELETE FROM tombstones WHERE user_id=?1",
        "DELETE FROM forget_jobs WHERE user_id=?1 AND level != 'user'", /* its held forgets */
        "DELETE FROM users WHERE user_id=?1",
        "DELETE FROM store_changes WHERE user_id=?1", /* (after the sweeps: their triggers write it) */
        "DELETE FROM item_changes WHERE user_id=?1",
        "UPDATE audit_log SET user_id=?2,"
        " object_id = CASE WHEN object_type IN ('event', 'memory') THEN object_id END,"
        " detail = CASE WHEN op IN ('forget', 'restore') THEN detail END"
        " WHERE user_id=?1",
        /* the notice of the forget under the pseudonym; a denial that
         * named the user keeps no trace of its id */
        "UPDATE memory_events SET user_id=?2 WHERE user_id=?1",
        "UPDATE memory_events SET other_user=?2 WHERE other_user=?1",
        "UPDATE audit_log SET object_id=?2 WHERE op='security.denied' AND object_id=?1",
        "INSERT INTO tombstones(user_id, level, object_id, at, purged_at) VALUES(?2, 'user', ?2, ?3, ?4)",
        "INSERT INTO audit_log(at, user_id, op, object_type) VALUES(?4, ?2, 'forget.purged', 'user')",
        "UPDATE forget_jobs SET user_id=?2, state='scrub', object_id=NULL WHERE seq=?5",
    };
    *finished = 0;
    int rc = exec(s, "CREATE TEMP TABLE IF NOT EXISTS am_forget(rid INTEGER PRIMARY KEY, id TEXT, session_id TEXT);"
                     "DELETE FROM temp.am_forget;", "forget");
    for (size_t i = 0; i < sizeof chunk / sizeof *chunk && !rc; i++) {
        rc = run_uid(s, chunk[i], j->uid, NULL, "forget user");
        if (!rc && i == 0 && sqlite3_changes(s->db) == 0) break; /* no event left */
        if (!rc && i + 1 == sizeof chunk / sizeof *chunk) return AM_OK;
    }
    for (size_t i = 0; i < sizeof sweep / sizeof *sweep && !rc; i++) {
        rc = run_uid(s, sweep[i], j->uid, NULL, "forget user");
        if (!rc && sqlite3_changes(s->db) > 0) return AM_OK;
    }
    long held = 0; /* rows of its forgets in their grace period */
    if (!rc) rc = am__sqlite_held_drop(s, 0, j->uid, atol(FORGET_SWEEP), &held);
    if (!rc && held > 0) return AM_OK;
    char pn[PSEUDONYM_MAX];
    if (!rc) rc = pseudonym(s, j->uid, pn);
    for (size_t i = 0; i < sizeof end / sizeof *end && !rc; i++) {
        sqlite3_stmt *st = stmt(s, end[i]);
        if (!st) return AM_BACKEND;
        bind_text(st, 1, j->uid);
        bind_text(st, 2, pn);
        sqlite3_bind_int64(st, 3, j->forgotten_at);
        sqlite3_bind_int64(st, 4, now);
        sqlite3_bind_int64(st, 5, j->seq);
        rc = run(s, st, "forget user");
    }
    if (!rc) *finished = 1;
    return rc;
}

/* One transaction of the purge of an event, session or task forgotten
 * with a grace period: FORGET_SWEEP of its held rows, else the end (its
 * tombstone dated, the scrub owed). */
static int held_purge_step(sq_store *s, const job *j, am_time now)
{
    long dropped = 0;
    int rc = am__sqlite_held_drop(s, j->seq, NULL, atol(FORGET_SWEEP), &dropped);
    if (rc || dropped > 0) return rc;
    char ref[AM__REF_LEN + 1];
    if ((rc = am__store_object_ref(&s->base, j->uid, j->level, j->object_id, ref))) return rc;
    sqlite3_stmt *st = stmt(s, "UPDATE tombstones SET purged_at=?5 WHERE user_id=?1 AND level=?2"
                               " AND object_id=?3 AND at=?4 AND purged_at IS NULL");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, j->uid);
    bind_text(st, 2, j->level);
    bind_text(st, 3, ref);
    sqlite3_bind_int64(st, 4, j->forgotten_at);
    sqlite3_bind_int64(st, 5, now);
    if ((rc = run(s, st, "forget purge"))) return rc;
    /* the held rows are gone: the caller's id goes with them */
    if (!(st = stmt(s, "UPDATE forget_jobs SET state='scrub', object_id=NULL WHERE seq=?1")))
        return AM_BACKEND;
    sqlite3_bind_int64(st, 1, j->seq);
    return run(s, st, "forget purge");
}

/* One merge of the index (FORGET_MERGE pages, all segments as one level):
 * *merged = 0 when it was a no-op (one segment: no deleted row's terms
 * are left in it). */
static int merge_step(sq_store *s, int *merged)
{
    sqlite3_int64 before = sqlite3_total_changes64(s->db);
    int rc = exec(s, "INSERT INTO events_fts(events_fts, rank) VALUES('merge', " FORGET_MERGE ")",
                  "forget index");
    *merged = sqlite3_total_changes64(s->db) - before >= 2;
    return rc;
}

/* The log into the file and truncated: 1 done, 0 not now.  Each of the
 * tries waits FORGET_CKPT_MS at most for the other connections (a writer
 * waiting for the lock holds a read mark on the log).  One checkpoint per
 * forget, at its end, never one after each step: SQLite before 3.51.3
 * can corrupt a WAL store when a checkpoint starts right after another
 * completed while a third connection commits (the "WAL-reset bug"), and a
 * checkpoint after every step of a long purge made that likely -- a
 * 100,000-event purge beside another writer ended with a malformed file. */
static int checkpoint(sq_store *s, int tries)
{
    int rc = SQLITE_BUSY;
    int limit = s->busy_limit_ms; /* the busy handler's (locking.c), shorter here */
    s->busy_limit_ms = FORGET_CKPT_MS;
    for (int i = 0; i < tries && rc != SQLITE_OK; i++)
        rc = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    s->busy_limit_ms = limit;
    return rc == SQLITE_OK;
}

/* Merge steps one call may take: enough to rewrite the file twice, so
 * that writers adding segments as fast as they are merged cannot keep a
 * call going (the job stays for the next one). */
static long merge_budget(sq_store *s)
{
    sqlite3_stmt *st = stmt(s, "PRAGMA page_count");
    long pages = st && sqlite3_step(st) == SQLITE_ROW ? (long)sqlite3_column_int64(st, 0) : 0;
    if (st) done(s, st);
    return 2 * pages / -(FORGET_MERGE_N) + 16;
}

int am__sqlite_forget_scrub(am__store *b, am__ctl_scrub *sc)
{
    sq_store *s = SQ(b);
    sc->stepped = sc->later = 0;
    if (!sqlite3_get_autocommit(s->db)) return AM_MISUSE;
    if (sc->budget < 0) sc->budget = merge_budget(s);
    if (sc->merges++ > sc->budget) {
        sc->later = 1;
        return AM_OK;
    }
    /* the merge in a transaction of its own, as optimize's */
    int merged = 0, rc = exec(s, "BEGIN IMMEDIATE", "forget");
    if (rc) return rc;
    rc = merge_step(s, &merged);
    if (!rc) rc = exec(s, "COMMIT", "forget");
    if (rc) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    sc->stepped = 1;
    if (merged) return AM_OK;
    /* a call bounded in steps tries once: it must not hold the write up
     * while other connections keep reading */
    if (!checkpoint(s, sc->tries > 0 ? sc->tries : FORGET_CKPT_TRIES)) { /* next time */
        sc->later = 1;
        return AM_OK;
    }
    /* every scrub up to this one is done */
    sqlite3_stmt *st = stmt(s, "DELETE FROM forget_jobs WHERE state='scrub' AND seq <= ?1");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, sc->seq);
    return run(s, st, "forget job");
}

int am__sqlite_forget_step(am__store *b, const am__fjob_due *j, am_time now)
{
    sq_store *s = SQ(b);
    int rc, finished = 0;
    if (strcmp(j->state, "held") == 0) {
        /* due: no longer restorable, purged from the next step on */
        sqlite3_stmt *st =
            stmt(s, "UPDATE forget_jobs SET state='purge' WHERE seq=?1 AND state='held'");
        if (!st) return AM_BACKEND;
        sqlite3_bind_int64(st, 1, j->seq);
        rc = run(s, st, "forget job");
    } else if (strcmp(j->level, "user") == 0) {
        rc = purge_step(s, j, now, &finished);
    } else {
        rc = held_purge_step(s, j, now);
    }
    am__sqlite_caches_drop(s, AM__DROP_FORGET, j->uid);
    return rc;
}

/* Run sql with ?1 = job, ?2 = uid, ?3 = at (those it has). */
static int run_job(sq_store *s, const char *sql, int64_t job, const char *uid, am_time at,
                   const char *what)
{
    sqlite3_stmt *st = stmt(s, sql);
    if (!st) return AM_BACKEND;
    int np = sqlite3_bind_parameter_count(st);
    sqlite3_bind_int64(st, 1, job);
    if (np >= 2) bind_text(st, 2, uid);
    if (np >= 3) sqlite3_bind_int64(st, 3, at);
    return run(s, st, what);
}

/* A held row's event row id back: its own, or a new one when a later
 * event took it (row ids are reused) -- temp.am_restore_rid. */
#define RESTORE_RID(col) "coalesce((SELECT new FROM temp.am_restore_rid WHERE old = h." col "), h." col ")"
#define RESTORE_ITEM(col) "coalesce((SELECT new FROM temp.am_restore_item WHERE old = h." col "), h." col ")"

int am__sqlite_restore_forget(am__store *b, const char *uid, int64_t job, am_time at, long *events)
{
    sq_store *s = SQ(b);
    *events = 0;
    int rc;
    static const am__held_expr event_ov[] = {
        {"rid", RESTORE_RID("rid")},
        /* an event added again with the caller's id while this one was
         * held keeps the id; this one comes back without it */
        {"client_id", "CASE WHEN h.client_id IS NOT NULL AND EXISTS (SELECT 1 FROM events e"
                      " WHERE e.user_id = h.user_id AND e.client_id = h.client_id) THEN NULL"
                      " ELSE h.client_id END"},
    };
    static const am__held_expr by_event[] = {{"event_rid", RESTORE_RID("event_rid")}};
    static const am__held_expr item_ov[] = {{"rid", RESTORE_ITEM("rid")}};
    static const am__held_expr source_ov[] = {{"item_rid", RESTORE_ITEM("item_rid")}};
    static const am__held_expr history_ov[] = {
        {"seq", "CASE WHEN EXISTS (SELECT 1 FROM task_history t WHERE t.seq = h.seq) THEN NULL ELSE h.seq END"},
    };
    rc = exec(s, "CREATE TEMP TABLE IF NOT EXISTS am_restore_rid(old INTEGER PRIMARY KEY, new INTEGER NOT NULL);"
                 "DELETE FROM temp.am_restore_rid;"
                 "CREATE TEMP TABLE IF NOT EXISTS am_restore_item(old INTEGER PRIMARY KEY, new INTEGER NOT NULL);"
                 "DELETE FROM temp.am_restore_item;"
                 "CREATE TEMP TABLE IF NOT EXISTS am_forget(rid INTEGER PRIMARY KEY, id TEXT, session_id TEXT);"
                 "DELETE FROM temp.am_forget;"
                 "CREATE TEMP TABLE IF NOT EXISTS am_forget_tasks(task_id TEXT PRIMARY KEY);"
                 "DELETE FROM temp.am_forget_tasks;",
              "restore");
    /* row ids taken since: new ones, above every row id there is or is held */
    static const char *const maps[] = {
        "INSERT INTO temp.am_restore_rid SELECT h.rid, (SELECT max(coalesce(m, 0)) FROM"
        " (SELECT max(rid) AS m FROM events UNION ALL SELECT max(rid) FROM held_events))"
        " + row_number() OVER (ORDER BY h.rid)"
        " FROM held_events h WHERE h.held_job=?1 AND EXISTS (SELECT 1 FROM events e WHERE e.rid = h.rid)",
        "INSERT INTO temp.am_restore_item SELECT h.rid, (SELECT max(coalesce(m, 0)) FROM"
        " (SELECT max(rid) AS m FROM memory_items UNION ALL SELECT max(rid) FROM held_memory_items))"
        " + row_number() OVER (ORDER BY h.rid)"
        " FROM held_memory_items h WHERE h.held_job=?1 AND EXISTS (SELECT 1 FROM memory_items m WHERE m.rid = h.rid)",
    };
    for (size_t i = 0; i < sizeof maps / sizeof *maps && !rc; i++)
        rc = run_job(s, maps[i], job, uid, at, "restore");
    if (!rc) rc = am__sqlite_held_back(s, "events", job, event_ov, 2, 0, events);
    if (!rc) rc = run_job(s, "INSERT INTO events_fts(rowid, uid, doc, ctx) SELECT " RESTORE_RID("rid")
                             ", h.uid, h.doc, h.ctx FROM held_events_fts h WHERE h.held_job=?1 ORDER BY h.rowid",
                          job, uid, at, "restore index");
    if (!rc) rc = am__sqlite_held_back(s, "entities", job, by_event, 1, 0, NULL);
    if (!rc) rc = am__sqlite_held_back(s, "event_vectors", job, by_event, 1, 0, NULL);
    if (!rc) rc = am__sqlite_held_back(s, "pii_vault", job, by_event, 1, 0, NULL);
    if (!rc) rc = am__sqlite_held_back(s, "memory_items", job, item_ov, 1, 0, NULL);
    if (!rc) rc = am__sqlite_held_back(s, "item_sources", job, source_ov, 1, 1, NULL);
    /* every version counts its held sources back: the ones that stayed,
     * and the held ones (held after the forget lowered their counts) */
    if (!rc) rc = run_job(s, "UPDATE memory_items SET source_count = source_count +"
                             " (SELECT count(*) FROM held_item_sources h WHERE h.held_job=?1"
                             "  AND " RESTORE_ITEM("item_rid") " = memory_items.rid)"
                             " WHERE rid IN (SELECT " RESTORE_ITEM("item_rid") " FROM held_item_sources h"
                             "  WHERE h.held_job=?1)",
                          job, uid, at, "restore");
    if (!rc) rc = am__sqlite_held_back(s, "item_heat", job, NULL, 0, 1, NULL);
    /* the tasks as they were; replayed (the caller) when events of them
     * were written since */
    static const char *const tasks_sql[] = {
        "INSERT OR IGNORE INTO temp.am_forget_tasks SELECT h.task_id FROM held_tasks h"
        " WHERE h.held_job=?1 AND EXISTS (SELECT 1 FROM events e WHERE e.user_id=?2"
        " AND e.task_id=h.task_id AND e.ingested_at >= ?3"
        " AND e.id NOT IN (SELECT id FROM held_events WHERE held_job=?1))",
        "DELETE FROM tasks WHERE user_id=?2 AND task_id IN (SELECT task_id FROM held_tasks WHERE held_job=?1"
        " UNION SELECT task_id FROM held_task_history WHERE held_job=?1)",
        "DELETE FROM task_history WHERE user_id=?2 AND task_id IN (SELECT task_id FROM held_tasks WHERE held_job=?1"
        " UNION SELECT task_id FROM held_task_history WHERE held_job=?1)",
    };
    for (size_t i = 0; i < sizeof tasks_sql / sizeof *tasks_sql && !rc; i++)
        rc = run_job(s, tasks_sql[i], job, uid, at, "restore tasks");
    if (!rc) rc = am__sqlite_held_back(s, "tasks", job, NULL, 0, 0, NULL);
    if (!rc) rc = am__sqlite_held_back(s, "task_history", job, history_ov, 1, 0, NULL);
    /* its workspace; an agent's entry written during the grace period is
     * newer and stays */
    if (!rc) rc = am__sqlite_held_back(s, "task_workspace", job, NULL, 0, 1, NULL);
    /* the sessions' context, with the turns back */
    static const char *const end_sql[] = {
        "INSERT INTO temp.am_forget SELECT e.rid, e.id, e.session_id FROM events e"
        " WHERE e.user_id=?2 AND e.id IN (SELECT id FROM held_events WHERE held_job=?1)",
        "UPDATE users SET n_events = (SELECT count(*) FROM events e WHERE e.user_id = ?2)"
        " WHERE user_id = ?2",
    };
    for (size_t i = 0; i < sizeof end_sql / sizeof *end_sql && !rc; i++)
        rc = run_job(s, end_sql[i], job, uid, at, "restore");
    if (!rc) rc = run_uid(s, ctx_rebuild, uid, NULL, "restore context");
    long dropped = 0;
    if (!rc) rc = am__sqlite_held_drop(s, job, NULL, 0, &dropped);
    am__sqlite_caches_drop(s, AM__DROP_FORGET, uid);
    return rc;
}

/* One row of forget_jobs (seq, level, object_id, state, forgotten_at,
 * purge_at) or of tombstones (at, purged_at: ncol 2). */
static int job_row(am__arena *ar, sqlite3_stmt *st, int ncol, am__fjob_row **rows, size_t *n,
                   size_t *cap)
{
    am__fjob_row *r = ar ? push(ar, (void **)rows, n, cap, sizeof *r) : *rows;
    if (!r) return AM_NOMEM;
    if (!ar) ++*n;
    int t = ncol == 2 ? 0 : 4;
    if (ncol > 2) {
        r->seq = sqlite3_column_int64(st, 0);
        const char *state = (const char *)sqlite3_column_text(st, 3);
        r->held = state && strcmp(state, "held") == 0;
        if (ar) {
            r->level = col_text(ar, st, 1);
            r->object_id = col_text(ar, st, 2);
            r->state = col_text(ar, st, 3);
        }
    }
    r->forgotten_at = sqlite3_column_int64(st, t);
    r->purge_at = sqlite3_column_int64(st, t + 1);
    return ar && ar->oom ? AM_NOMEM : AM_OK;
}

/* ?1 uid, ?2 level, ?3 not_level, ?4 object_id, ?5 state, ?6 seq, ?7 at,
 * ?8 purge_at. */
#define FJOB_LIST                                                                  \
    "SELECT seq, level, object_id, state, forgotten_at, purge_at FROM forget_jobs" \
    " WHERE user_id=?1 AND (?2 IS NULL OR level=?2) AND (?3 IS NULL OR level!=?3)" \
    " AND (?4 IS NULL OR object_id=?4) AND (?5 IS NULL OR state=?5)"
static const char *const fjob_sql[] = {
    [AM__FJOB_LIST] = FJOB_LIST " ORDER BY seq",
    [AM__FJOB_DEL] = "DELETE FROM forget_jobs WHERE user_id=?1 AND (?2 IS NULL OR level=?2)"
                     " AND (?3 IS NULL OR level!=?3) AND (?4 IS NULL OR object_id=?4)"
                     " AND (?5 IS NULL OR state=?5) AND (?6 = 0 OR seq=?6)",
    [AM__FJOB_TOMB_GET] = "SELECT at, purged_at FROM tombstones WHERE user_id=?1 AND level=?2"
                          " AND (?4 IS NULL OR object_id=?4) ORDER BY seq DESC LIMIT 1",
    [AM__FJOB_TOMB_DEL] = "DELETE FROM tombstones WHERE user_id=?1 AND level=?2 AND object_id=?4"
                          " AND at=?7",
    [AM__FJOB_TOMB_PUT] = "INSERT INTO tombstones(user_id, level, object_id, at)"
                          " VALUES(?1, ?2, ?4, ?7)",
    [AM__FJOB_ADD] = "INSERT INTO forget_jobs(user_id, level, object_id, forgotten_at, purge_at,"
                     " state) VALUES(?1, ?2, ?4, ?7, ?8, ?5)",
    /* forgotten again while held: the purge comes no later */
    [AM__FJOB_SET] = "UPDATE forget_jobs SET purge_at = min(purge_at, ?8),"
                     " state = CASE WHEN min(purge_at, ?8) <= ?7 AND state = 'held'"
                     " THEN 'purge' ELSE state END WHERE user_id=?1 AND level=?2",
};

int am__sqlite_forget_jobs(am__store *b, const am__fjob_op *op, am__arena *ar, am__fjob_row **rows,
                           size_t *n)
{
    sq_store *s = SQ(b);
    *n = 0;
    if (ar) *rows = NULL;
    int k = op->kind, rc = am__fjob_check(op);
    if (rc) return rc;
    if (k == AM__FJOB_NEXT) return job_next(s, op->at, op->due, n);
    const char *sql = fjob_sql[k];
    if (k == AM__FJOB_LIST && op->latest) sql = FJOB_LIST " ORDER BY seq DESC LIMIT 1";
    /* a purged user's tombstone is under the pseudonym */
    char pn[PSEUDONYM_MAX];
    if (k == AM__FJOB_TOMB_GET && op->pseudonym && (rc = pseudonym(s, op->uid, pn))) return rc;
    sqlite3_stmt *st = stmt(s, sql);
    if (!st) return AM_BACKEND;
    int np = sqlite3_bind_parameter_count(st);
    bind_text(st, 1, k == AM__FJOB_TOMB_GET && op->pseudonym ? pn : op->uid);
    bind_text(st, 2, op->level);
    if (np >= 3) bind_text(st, 3, op->not_level);
    bind_text(st, 4, op->object_id);
    if (np >= 5) bind_text(st, 5, op->state);
    if (np >= 6) sqlite3_bind_int64(st, 6, op->seq);
    if (np >= 7) sqlite3_bind_int64(st, 7, op->at);
    if (np >= 8) sqlite3_bind_int64(st, 8, op->purge_at);
    if (k != AM__FJOB_LIST && k != AM__FJOB_TOMB_GET) {
        if ((rc = run(s, st, "forget jobs"))) return rc;
        *n = (size_t)sqlite3_changes(s->db);
        /* the task's audit rows (a switch to it, its workspace) name it
         * by the ref from now on; a switch's task name goes */
        if (k == AM__FJOB_TOMB_PUT && strcmp(op->level, "task") == 0 && op->id) {
            if (!(st = stmt(s, "UPDATE audit_log SET object_id=?3, detail=CASE WHEN"
                               " op='task.switch' THEN NULL ELSE detail END WHERE user_id=?1"
                               " AND object_type='task' AND object_id=?2")))
                return AM_BACKEND;
            bind_text(st, 1, op->uid);
            bind_text(st, 2, op->id);
            bind_text(st, 3, op->object_id);
            if ((rc = run(s, st, "forget task audit"))) return rc;
        }
        /* a user hidden or back: what the caches held of them is not */
        if (k != AM__FJOB_TOMB_DEL && op->level && strcmp(op->level, "user") == 0)
            am__sqlite_caches_drop(s, AM__DROP_FORGET, op->uid);
        return AM_OK;
    }
    size_t cap = 0;
    int step = SQLITE_DONE;
    while (!rc && (ar || *n == 0) && (step = sqlite3_step(st)) == SQLITE_ROW)
        rc = job_row(ar, st, k == AM__FJOB_TOMB_GET ? 2 : 6, rows, n, &cap);
    if (!rc && step != SQLITE_ROW && step != SQLITE_DONE) rc = fail(s, step, "forget jobs");
    done(s, st);
    return rc;
}
