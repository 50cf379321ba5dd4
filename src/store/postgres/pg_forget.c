/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pg_forget.c -- forgetting in the PostgreSQL store: an event, a
 * session, a task or a user leaves every table.
 *
 * Events, sessions and tasks go in the caller's transaction, as in the
 * SQLite store (store/sqlite/forget.c, whose steps these follow): the
 * event rows are collected into a temporary table and everything keyed
 * by them is deleted through it -- postings, the index totals, entities,
 * vectors, vault values, task history, item sources, the item versions
 * left without a source and their heat, the events; the contexts indexed
 * beside the remaining turns of the sessions touched are rebuilt; the
 * tasks touched lose the history their state is derived from (the caller
 * replays them: am__forget_touched); a tombstone stays.  The memory
 * events of what is gone leave the outbox and a memory.forgotten notice
 * is written.
 *
 * A user forget (domain/forget.c) records a job (forget_jobs ADD) and
 * hides the user at once;
 * am__forget_work (domain/forget.c) purges a due job in short
 * transactions, each a forget_step here, as the SQLite store
 * does: PURGE_CHUNK events with everything keyed by them, or PURGE_SWEEP
 * rows of one other table, per transaction, a pause apart (a writer of
 * the same user waiting for its lock gets it); the last one deletes the user row
 * and links, re-keys the audit trail to the pseudonym "forgotten:" +
 * HMAC-SHA256(forget_key, user id) and leaves the tombstone under it.  A
 * process stopped in the middle leaves the job for the next am__forget_work.  PostgreSQL's vacuum
 * reclaims the deleted tuples; no index merge or log checkpoint is owed.
 *
 * With a grace period (purge_at later than now) an event, a session or a
 * task leaves the same tables in the same transaction, but every row a
 * delete takes is first copied into its held_<table> under a job
 * (forget_jobs, state 'held'): pg_held.c holds, restores and drops them;
 * its forget_step purges the job's held rows at purge_at in one transaction
 * (a forget's rows, not a user's) and dates its tombstone.  A user
 * forget's purge takes the user's held rows and jobs with it.
 */
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>

#include "store/postgres/pg_int.h"

static const char *const level_names[] = {"", "event", "session", "task", "user"};

#define PSEUDONYM_MAX 48

static int pseudonym(pg_store *s, const char *uid, char out[PSEUDONYM_MAX])
{
    unsigned char key[32];
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(s->forget_key + 2 * i, "%2x", &v) != 1)
            return am__pg_fail(s, AM_CORRUPT, "postgres: the store's forget_key is malformed");
        key[i] = (unsigned char)v;
    }
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int mn = 0;
    int ok = HMAC(EVP_sha256(), key, (int)sizeof key, (const unsigned char *)uid, strlen(uid), mac,
                  &mn) != NULL && mn >= 16;
    am__vault_key_wipe(key, sizeof key);
    if (!ok) return am__pg_fail(s, AM_BACKEND, "postgres: HMAC-SHA256 failed");
    memcpy(out, "forgotten:", 10);
    for (int i = 0; i < 16; i++) snprintf(out + 10 + 2 * i, 3, "%02x", mac[i]);
    return AM_OK;
}

/* Statements with $1 = uid and, when they name it, $2 = id / level. */
static int run_list(pg_store *s, const char *const *sql, size_t n, int nargs, const char *uid,
                    const char *x2, const char *x3)
{
    for (size_t i = 0; i < n; i++) {
        pg_args a = {0};
        am__pg_arg_text(&a, uid);
        if (nargs >= 2) am__pg_arg_text(&a, x2);
        if (nargs >= 3) am__pg_arg_text(&a, x3);
        int rc = am__pg_exec(s, "forget", sql[i], &a, NULL);
        if (rc) return rc;
    }
    return AM_OK;
}

static long run_count(pg_store *s, const char *sql, const char *uid, const char *id, int *rc)
{
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    if (id) am__pg_arg_text(&a, id);
    long n = 0;
    *rc = am__pg_exec(s, "forget", sql, &a, &n);
    return n;
}

int am__pg_forget_temp(pg_store *s)
{
    return am__pg_simple(s, "forget",
                         "CREATE TEMP TABLE IF NOT EXISTS am_forget(rid bigint PRIMARY KEY,"
                         " id text COLLATE \"C\", session_id text COLLATE \"C\");"
                         "CREATE TEMP TABLE IF NOT EXISTS am_forget_tasks(task_id text COLLATE \"C\""
                         " PRIMARY KEY);"
                         "CREATE TEMP TABLE IF NOT EXISTS am_forget_had(kind integer,"
                         " id text COLLATE \"C\", PRIMARY KEY(kind, id));"
                         "DELETE FROM am_forget; DELETE FROM am_forget_had;"
                         "DELETE FROM am_forget_tasks;");
}

/* The contexts of the remaining turns of the sessions forgotten events
 * were in, rebuilt from the turns there are (the SQLite store's
 * ctx_rebuild: two turns before and one after, in the gap). */
int am__pg_forget_ctx_rebuild(pg_store *s, const char *uid)
{
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    PGresult *r = am__pg_run(
        s, "forget: contexts",
        "SELECT rid, coalesce(p2 || ' ', '') || coalesce(p1 || ' ', '') || coalesce(n1, '')"
        " FROM (SELECT rid,"
        "  CASE WHEN occurred_at - LAG(occurred_at, 2) OVER w <= " AM__CONTEXT_GAP_SQL
        "   THEN LAG(content, 2) OVER w END AS p2,"
        "  CASE WHEN occurred_at - LAG(occurred_at, 1) OVER w <= " AM__CONTEXT_GAP_SQL
        "   THEN LAG(content, 1) OVER w END AS p1,"
        "  CASE WHEN LEAD(occurred_at, 1) OVER w - occurred_at <= " AM__CONTEXT_GAP_SQL
        "   THEN LEAD(content, 1) OVER w END AS n1"
        "  FROM events WHERE user_id = $1 AND session_id IN (SELECT session_id FROM am_forget)"
        "  WINDOW w AS (PARTITION BY session_id ORDER BY occurred_at, rid)) x ORDER BY rid",
        &a);
    if (!r) return s->rc;
    int rc = AM_OK;
    for (int i = 0; i < PQntuples(r) && !rc; i++)
        rc = am__pg_index_ctx_set(s, uid, am__pg_i64(r, i, 0), PQgetvalue(r, i, 1));
    PQclear(r);
    return rc;
}

/* A delete (sql, $1 = uid) of table's rows where where -- held first by a
 * forget with a grace period (pg_held.c); held NULL: not held (an
 * update, or rows held whole before). */
typedef struct forget_step {
    const char *sql, *held, *where;
    int count; /* 1: events, 2: items */
} forget_step;
#define FORGET_DELETE(table, where, count) {"DELETE FROM " table " WHERE " where, table, where, count}

/* Event rows selected for deletion are first collected into am_forget;
 * everything else is deleted through it, so all indexes agree.  job > 0:
 * with a grace period, every row deleted is held under the job first. */
static int forget_collected(pg_store *s, const char *uid, int64_t job, long *events, long *items)
{
    static const forget_step steps[] = {
        FORGET_DELETE("postings", "user_id = $1 AND rid IN (SELECT rid FROM am_forget)", 0),
        FORGET_DELETE("entities", "user_id = $1 AND event_rid IN (SELECT rid FROM am_forget)", 0),
        FORGET_DELETE("event_vectors", "user_id = $1 AND event_rid IN (SELECT rid FROM am_forget)", 0),
        FORGET_DELETE("pii_vault", "user_id = $1 AND event_rid IN (SELECT rid FROM am_forget)", 0),
        /* (the touched tasks' history is held whole before) */
        {"DELETE FROM task_history WHERE user_id = $1 AND event_id IN (SELECT id FROM am_forget)",
         NULL, NULL, 0},
        /* a version counts its sources: the listed ones forgotten no longer count */
        {"UPDATE memory_items m SET source_count = greatest(0, m.source_count -"
         " (SELECT count(*) FROM item_sources x WHERE x.user_id = $1 AND x.item_rid = m.rid"
         "  AND x.event_id IN (SELECT id FROM am_forget)))"
         " WHERE m.user_id = $1 AND m.rid IN (SELECT item_rid FROM item_sources"
         "  WHERE user_id = $1 AND event_id IN (SELECT id FROM am_forget))", NULL, NULL, 0},
        FORGET_DELETE("item_sources", "user_id = $1 AND event_id IN (SELECT id FROM am_forget)", 0),
        /* cascade: item versions left with no source go */
        FORGET_DELETE("memory_items", "user_id = $1 AND NOT EXISTS (SELECT 1 FROM item_sources x"
                                      " WHERE x.user_id = $1 AND x.item_rid = memory_items.rid)", 2),
        FORGET_DELETE("item_heat", "user_id = $1 AND lineage_id NOT IN"
                                   " (SELECT lineage_id FROM memory_items WHERE user_id = $1)", 0),
        FORGET_DELETE("events", "user_id = $1 AND rid IN (SELECT rid FROM am_forget)", 1),
        {"UPDATE users SET n_events = (SELECT count(*) FROM events e WHERE e.user_id = $1)"
         " WHERE user_id = $1", NULL, NULL, 0},
    };
    pg_args t = {0};
    am__pg_arg_text(&t, uid);
    char slot[16];
    snprintf(slot, sizeof slot, "%d", am__pg_slot(uid));
    am__pg_arg_text(&t, slot);
    int rc = am__pg_exec(s, "forget: index totals",
                         "UPDATE index_totals t SET n_rows = t.n_rows - x.n, len0 = t.len0 - x.l0,"
                         " len1 = t.len1 - x.l1 FROM (SELECT count(*) AS n,"
                         " coalesce(sum(len0), 0) AS l0, coalesce(sum(len1), 0) AS l1 FROM events"
                         " WHERE user_id = $1 AND rid IN (SELECT rid FROM am_forget)) x"
                         " WHERE t.slot = $2::integer", &t, NULL);
    for (size_t i = 0; i < sizeof steps / sizeof *steps && !rc; i++) {
        if (job > 0 && steps[i].held &&
            (rc = am__pg_held_copy(s, steps[i].held, steps[i].where, uid, job, NULL)))
            break;
        long n = run_count(s, steps[i].sql, uid, NULL, &rc);
        if (steps[i].count == 1) *events += n;
        if (steps[i].count == 2) *items += n;
    }
    if (!rc) rc = am__pg_forget_ctx_rebuild(s, uid);
    return rc;
}

static int tasks_touched(pg_store *s, const char *uid, int level, const char *id, int after,
                         long *tasks)
{
    static const char *const before_sql[] = {
        "INSERT INTO am_forget_tasks SELECT task_id FROM events WHERE user_id = $1"
        " AND task_id IS NOT NULL AND rid IN (SELECT rid FROM am_forget)"
        " UNION SELECT task_id FROM task_history WHERE user_id = $1"
        " AND event_id IN (SELECT id FROM am_forget) ON CONFLICT DO NOTHING",
    };
    if (!after) return run_list(s, before_sql, 1, 1, uid, NULL, NULL);
    int rc = AM_OK;
    if (level == AM_FORGET_TASK) {
        static const char *const drop[] = {"DELETE FROM am_forget_tasks WHERE task_id = $2"
                                           " AND $1::text IS NOT NULL"};
        rc = run_list(s, drop, 1, 2, uid, id, NULL);
    }
    if (!rc)
        *tasks += run_count(s, "DELETE FROM tasks t WHERE t.user_id = $1"
                               " AND t.task_id IN (SELECT task_id FROM am_forget_tasks)"
                               " AND NOT EXISTS (SELECT 1 FROM events e WHERE e.user_id = $1"
                               " AND e.task_id = t.task_id)", uid, NULL, &rc);
    static const char *const after_sql[] = {
        "DELETE FROM task_history WHERE user_id = $1"
        " AND task_id IN (SELECT task_id FROM am_forget_tasks)"
        " AND task_id NOT IN (SELECT task_id FROM tasks WHERE user_id = $1)",
        "DELETE FROM task_workspace WHERE user_id = $1"
        " AND task_id IN (SELECT task_id FROM am_forget_tasks)"
        " AND task_id NOT IN (SELECT task_id FROM tasks WHERE user_id = $1)",
        "DELETE FROM am_forget_tasks WHERE task_id NOT IN"
        " (SELECT task_id FROM tasks WHERE user_id = $1)",
        "DELETE FROM task_history WHERE user_id = $1"
        " AND task_id IN (SELECT task_id FROM am_forget_tasks)"
        " AND field IN ('pending', 'note', 'status', 'stage')",
    };
    if (!rc) rc = run_list(s, after_sql, sizeof after_sql / sizeof *after_sql, 1, uid, NULL, NULL);
    return rc;
}

/* The gone tasks noted in am_forget_had, named by their opaque ids
 * (store/ids.c), as the outbox names them. */
static int task_refs(pg_store *s, const char *uid)
{
    PGresult *r = am__pg_run(s, "forget memory events",
                             "SELECT id FROM am_forget_had WHERE kind = 1", NULL);
    if (!r) return s->rc;
    int rc = AM_OK;
    for (int i = 0; i < PQntuples(r) && !rc; i++) {
        const char *id = PQgetvalue(r, i, 0);
        char ref[AM__REF_LEN + 1];
        if ((rc = am__store_object_ref(&s->base, uid, "task", id, ref))) break;
        pg_args u = {0};
        am__pg_arg_text(&u, id);
        am__pg_arg_text(&u, ref);
        rc = am__pg_exec(s, "forget memory events",
                         "UPDATE am_forget_had SET id = $2 WHERE kind = 1 AND id = $1", &u, NULL);
    }
    PQclear(r);
    return rc;
}

/* The outbox of a forget (forget.c's forget_outbox): before, what the user
 * has is noted; after, the memory events of what is gone leave, the
 * forgotten events' ids leave what stays, and a notice is written for
 * each forgotten event, memory item and task ($2 level, $3 now). */
static int forget_outbox(pg_store *s, const char *uid, int level, am_time now, int after)
{
    static const char *const before_sql[] = {
        "INSERT INTO am_forget_had SELECT DISTINCT 0, lineage_id FROM memory_items WHERE user_id = $1",
        "INSERT INTO am_forget_had SELECT 1, task_id FROM tasks WHERE user_id = $1",
    };
    if (!after) return run_list(s, before_sql, 2, 1, uid, NULL, NULL);
    static const char *const after_sql[] = {
        "DELETE FROM am_forget_had WHERE kind = 0 AND id IN"
        " (SELECT lineage_id FROM memory_items WHERE user_id = $1)",
        "DELETE FROM am_forget_had WHERE kind = 1 AND id IN"
        " (SELECT task_id FROM tasks WHERE user_id = $1)",
    };
    static const char *const after_refs_sql[] = {
        "DELETE FROM memory_events WHERE user_id = $1 AND memory_id IN"
        " (SELECT id FROM am_forget_had WHERE kind = 0)",
        "DELETE FROM memory_events WHERE user_id = $1 AND task_id IN"
        " (SELECT id FROM am_forget_had WHERE kind = 1)",
        "UPDATE memory_events SET event_id = NULL WHERE user_id = $1 AND event_id IN"
        " (SELECT id FROM am_forget)",
    };
    int rc = run_list(s, after_sql, sizeof after_sql / sizeof *after_sql, 1, uid, NULL, NULL);
    if (!rc) rc = task_refs(s, uid);
    if (!rc)
        rc = run_list(s, after_refs_sql, sizeof after_refs_sql / sizeof *after_refs_sql, 1, uid,
                      NULL, NULL);
    static const char *const notices[] = {
        "INSERT INTO memory_events(at, user_id, type, event_id, detail)"
        " SELECT $3::bigint, $1, 'memory.forgotten', id, $2 FROM (SELECT id FROM am_forget"
        " ORDER BY rid) x RETURNING seq",
        "INSERT INTO memory_events(at, user_id, type, memory_id, detail)"
        " SELECT $3::bigint, $1, 'memory.forgotten', id, $2 FROM (SELECT id FROM am_forget_had"
        " WHERE kind = 0 ORDER BY id) x RETURNING seq",
        "INSERT INTO memory_events(at, user_id, type, task_id, detail)"
        " SELECT $3::bigint, $1, 'memory.forgotten', id, $2 FROM (SELECT id FROM am_forget_had"
        " WHERE kind = 1 ORDER BY id) x RETURNING seq",
    };
    for (size_t i = 0; i < sizeof notices / sizeof *notices && !rc; i++) {
        pg_args a = {0};
        am__pg_arg_text(&a, uid);
        am__pg_arg_text(&a, level_names[level]);
        am__pg_arg_int(&a, now);
        PGresult *r = am__pg_run(s, "forget memory events", notices[i], &a);
        if (!r) return s->rc;
        am__pg_outbox_note(s, r);
        PQclear(r);
    }
    return rc;
}

/* Held jobs holding events of what is forgotten again (an event, a
 * session, a task) purge no later than purge_at; *pulled: how many. */
static int held_pull(pg_store *s, const char *uid, int level, const char *id, am_time purge_at,
                     long *pulled)
{
    static const char *const col[] = {NULL, "id", "session_id", "task_id"};
    char sql[400];
    snprintf(sql, sizeof sql,
             "UPDATE forget_jobs SET purge_at = least(purge_at, $3::bigint) WHERE user_id = $1"
             " AND state = 'held' AND level <> 'user' AND seq IN (SELECT held_job FROM held_events"
             " WHERE user_id = $1 AND %s = $2)", col[level]);
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, id);
    am__pg_arg_int(&a, purge_at);
    *pulled = 0;
    return am__pg_exec(s, "forget", sql, &a, pulled);
}

int am__pg_forget_grace(am__store *b, const char *uid, int level, const char *id, am_time now,
                        am_time purge_at, am__forget_gone *out)
{
    pg_store *s = PG(b);
    memset(out, 0, sizeof *out);
    if (am__pg_lock_user(s, uid)) return s->rc;
    long *events = &out->events, *items = &out->versions, *tasks = &out->tasks;
    if (level < AM_FORGET_EVENT || level > AM_FORGET_TASK) return AM_MISUSE;
    int rc = held_pull(s, uid, level, id, purge_at, &out->pulled);
    int64_t job = 0; /* > 0: the rows are held until purge_at */
    if (!rc && purge_at > now) {
        pg_args j = {0};
        am__pg_arg_text(&j, uid);
        am__pg_arg_text(&j, level_names[level]);
        am__pg_arg_text(&j, id);
        am__pg_arg_int(&j, now);
        am__pg_arg_int(&j, purge_at);
        PGresult *r = am__pg_run(s, "forget job",
                                 "INSERT INTO forget_jobs(user_id, level, object_id, forgotten_at,"
                                 " purge_at, state) VALUES($1, $2, $3, $4, $5, 'held') RETURNING seq",
                                 &j);
        if (!r) return s->rc;
        job = out->job = am__pg_i64(r, 0, 0);
        PQclear(r);
    }
    static const char *const pick[] = {
        NULL,
        "INSERT INTO am_forget SELECT rid, id, session_id FROM events WHERE user_id = $1 AND id = $2",
        "INSERT INTO am_forget SELECT rid, id, session_id FROM events WHERE user_id = $1"
        " AND session_id = $2",
        "INSERT INTO am_forget SELECT rid, id, session_id FROM events WHERE user_id = $1"
        " AND task_id = $2",
    };
    if (!rc) rc = am__pg_forget_temp(s);
    if (!rc) rc = forget_outbox(s, uid, level, now, 0);
    long picked = out->picked = rc ? 0 : run_count(s, pick[level], uid, id, &rc);
    if (!rc) rc = tasks_touched(s, uid, level, id, 0, tasks);
    if (!rc && job > 0) { /* the touched tasks as they are, whole */
        static const char *const own[] = {"INSERT INTO am_forget_tasks SELECT $2"
                                          " WHERE $1::text IS NOT NULL ON CONFLICT DO NOTHING"};
        static const char tasks_where[] = "user_id = $1 AND task_id IN"
                                          " (SELECT task_id FROM am_forget_tasks)";
        static const char *const whole[] = {"tasks", "task_history", "task_workspace"};
        if (level == AM_FORGET_TASK) rc = run_list(s, own, 1, 2, uid, id, NULL);
        for (size_t i = 0; i < 3 && !rc; i++)
            rc = am__pg_held_copy(s, whole[i], tasks_where, uid, job, NULL);
    }
    if (!rc) rc = forget_collected(s, uid, job, events, items);
    if (!rc && level == AM_FORGET_TASK) {
        *tasks += run_count(s, "DELETE FROM tasks WHERE user_id = $1 AND task_id = $2", uid, id, &rc);
        static const char *const task_rows[] = {
            "DELETE FROM task_history WHERE user_id = $1 AND task_id = $2",
            "DELETE FROM task_workspace WHERE user_id = $1 AND task_id = $2",
        };
        if (!rc) rc = run_list(s, task_rows, 2, 2, uid, id, NULL);
        /* items scoped to the task go with it */
        char scope[AM_ID_MAX + 8];
        snprintf(scope, sizeof scope, "task:%s", id);
        if (!rc && job > 0)
            rc = am__pg_held_copy(s, "memory_items", "user_id = $1 AND scope = $3", uid, job, scope);
        if (!rc)
            *items += run_count(s, "DELETE FROM memory_items WHERE user_id = $1 AND scope = $2", uid,
                                scope, &rc);
    }
    if (!rc) rc = tasks_touched(s, uid, level, id, 1, tasks);
    if (rc) return rc;
    /* nothing went: nothing to say (the caller's rule: not found, or
     * only held rows forgotten again) */
    return picked == 0 && *tasks == 0 && *items == 0 ? AM_OK : forget_outbox(s, uid, level, now, 1);
}

int am__pg_forget_task_audit(pg_store *s, const char *uid, const char *id, const char *ref)
{
    pg_args t = {0};
    am__pg_arg_text(&t, uid);
    am__pg_arg_text(&t, id);
    am__pg_arg_text(&t, ref);
    return am__pg_exec(s, "forget task audit",
                       "UPDATE audit_log SET object_id = $3, detail = CASE WHEN op = 'task.switch'"
                       " THEN NULL ELSE detail END WHERE user_id = $1 AND object_type = 'task'"
                       " AND object_id = $2", &t, NULL);
}

/* One memory item (every version of a lineage) deleted, as the SQLite
 * store's am__sqlite_forget_delete: its rows, their provenance and heat,
 * the copies held forgets keep, its memory events. */
int am__pg_forget_delete(am__store *b, const char *uid, const am__forget_del *d,
                         am__forget_gone *out)
{
    pg_store *s = PG(b);
    memset(out, 0, sizeof *out);
    if (!d->lineage) return AM_MISUSE;
    if (am__pg_lock_user(s, uid)) return s->rc;
    static const char *const sql[] = {
        "DELETE FROM item_sources WHERE user_id = $1 AND item_rid IN"
        " (SELECT rid FROM memory_items WHERE user_id = $1 AND lineage_id = $2)",
        "DELETE FROM memory_items WHERE user_id = $1 AND lineage_id = $2",
        "DELETE FROM item_heat WHERE user_id = $1 AND lineage_id = $2",
        "DELETE FROM held_item_sources WHERE user_id = $1 AND item_rid IN"
        " (SELECT rid FROM held_memory_items WHERE user_id = $1 AND lineage_id = $2)",
        "DELETE FROM held_memory_items WHERE user_id = $1 AND lineage_id = $2",
        "DELETE FROM held_item_heat WHERE user_id = $1 AND lineage_id = $2",
        "DELETE FROM memory_events WHERE user_id = $1 AND memory_id = $2",
    };
    for (size_t i = 0; i < sizeof sql / sizeof *sql; i++) {
        int rc;
        long n = run_count(s, sql[i], uid, d->lineage, &rc);
        if (rc) return rc;
        if (i == 1 && (out->versions = n) == 0) return AM_OK;
    }
    return AM_OK;
}

/* The tasks the last forget or restore touched that remain. */
static int touched_list(pg_store *s, am__arena *ar, const char ***ids, size_t *n)
{
    /* no forget on this connection yet: the table is not there */
    PGresult *r = am__pg_run(s, "forget", "SELECT to_regclass('pg_temp.am_forget_tasks') IS NULL",
                             NULL);
    if (!r) return s->rc;
    int none = PQgetvalue(r, 0, 0)[0] == 't';
    PQclear(r);
    if (none) return AM_OK;
    r = am__pg_run(s, "forget", "SELECT task_id FROM am_forget_tasks ORDER BY task_id", NULL);
    if (!r) return s->rc;
    int k = PQntuples(r);
    if (!(*ids = am__pg_rows(ar, r, sizeof **ids))) return AM_NOMEM;
    for (int i = 0; i < k; i++) (*ids)[i] = am__pg_str(ar, r, i, 0);
    return am__pg_rows_done(ar, r, n);
}

int am__pg_forget_mark(am__store *b, const char *uid, const am__forget_sel *sel, am__arena *ar,
                       am__forget_marked *out)
{
    pg_store *s = PG(b);
    memset(out, 0, sizeof *out);
    if (sel->level == 0) return touched_list(s, ar, &out->tasks_touched, &out->n_touched);
    if (sel->level != AM_FORGET_USER) return AM_MISUSE;
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    /* events and versions, not lineages (user_stat counts lineages) */
    PGresult *r = am__pg_run(s, "forget user",
                             "SELECT (SELECT count(*) FROM events WHERE user_id = $1),"
                             " (SELECT count(*) FROM memory_items WHERE user_id = $1),"
                             " (SELECT count(*) FROM tasks WHERE user_id = $1)",
                             &a);
    if (!r) return s->rc;
    out->events = (long)am__pg_i64(r, 0, 0);
    out->versions = (long)am__pg_i64(r, 0, 1);
    out->tasks = (long)am__pg_i64(r, 0, 2);
    PQclear(r);
    return AM_OK;
}

/* ADD and SET of forget_jobs (store.h); the uid's lock is taken. */
static int job_set(pg_store *s, const am__fjob_op *op, size_t *n)
{
    long changed = 0;
    pg_args a = {0};
    am__pg_arg_text(&a, op->uid);
    am__pg_arg_text(&a, op->level);
    am__pg_arg_int(&a, op->purge_at);
    am__pg_arg_int(&a, op->at);
    int rc;
    if (op->kind == AM__FJOB_ADD) {
        if (strcmp(op->state, "scrub") == 0) return AM_OK; /* no scrub owed here */
        am__pg_arg_text(&a, op->object_id);
        am__pg_arg_text(&a, op->state);
        rc = am__pg_exec(s, "forget job",
                         "INSERT INTO forget_jobs(user_id, level, object_id, forgotten_at,"
                         " purge_at, state) VALUES($1, $2, $5, $4, $3, $6)",
                         &a, &changed);
    } else /* forgotten again while held: the purge comes no later */
        rc = am__pg_exec(s, "forget jobs",
                         "UPDATE forget_jobs SET purge_at = least(purge_at, $3),"
                         " state = CASE WHEN least(purge_at, $3) <= $4 AND state = 'held'"
                         " THEN 'purge' ELSE state END WHERE user_id = $1 AND level = $2",
                         &a, &changed);
    *n = rc ? 0 : (size_t)changed;
    return rc;
}

#define PURGE_CHUNK "32"    /* events a purge transaction deletes */
#define PURGE_SWEEP 1000    /* rows of another table a transaction deletes */

/* One transaction of the purge of a user whose job (seq) is due: a chunk
 * of its events with everything keyed by them, else a sweep of another
 * table, else of its held rows, else the end (the user's row, links and
 * audit trail re-keyed, the tombstone under the pseudonym, the job gone).
 * Every step deletes what is left, so one done twice is harmless. */
static int purge_step(pg_store *s, const char *uid, int64_t seq, am_time forgotten_at,
                      am_time now)
{
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args j = {0};
    am__pg_arg_text(&j, uid);
    am__pg_arg_int(&j, seq);
    /* purging: no longer restorable (am__forget_state PURGING) */
    int rc = am__pg_exec(s, "forget user",
                         "UPDATE forget_jobs SET state = 'purge' WHERE user_id = $1 AND seq = $2"
                         " AND state = 'held'", &j, NULL);
    long picked = 0;
    if (!rc) rc = am__pg_forget_temp(s);
    if (!rc)
        picked = run_count(s, "INSERT INTO am_forget SELECT rid, id, session_id FROM events"
                              " WHERE user_id = $1 ORDER BY rid LIMIT " PURGE_CHUNK, uid, NULL, &rc);
    if (rc) return rc;
    if (picked > 0) {
        pg_args t = {0};
        am__pg_arg_text(&t, uid);
        char slot[16];
        snprintf(slot, sizeof slot, "%d", am__pg_slot(uid));
        am__pg_arg_text(&t, slot);
        static const char *const chunk[] = {
            "DELETE FROM postings WHERE user_id = $1 AND rid IN (SELECT rid FROM am_forget)",
            "DELETE FROM entities WHERE user_id = $1 AND event_rid IN (SELECT rid FROM am_forget)",
            "DELETE FROM pii_vault WHERE user_id = $1 AND event_rid IN (SELECT rid FROM am_forget)",
            "DELETE FROM event_vectors WHERE user_id = $1 AND event_rid IN (SELECT rid FROM am_forget)",
            "DELETE FROM events WHERE user_id = $1 AND rid IN (SELECT rid FROM am_forget)",
        };
        rc = am__pg_exec(s, "forget user: index totals",
                         "UPDATE index_totals t SET n_rows = t.n_rows - x.n, len0 = t.len0 - x.l0,"
                         " len1 = t.len1 - x.l1 FROM (SELECT count(*) AS n,"
                         " coalesce(sum(len0), 0) AS l0, coalesce(sum(len1), 0) AS l1 FROM events"
                         " WHERE user_id = $1 AND rid IN (SELECT rid FROM am_forget)) x"
                         " WHERE t.slot = $2::integer", &t, NULL);
        return rc ? rc : run_list(s, chunk, sizeof chunk / sizeof *chunk, 1, uid, NULL, NULL);
    }
    static const char *const sweep[] = {
        "item_sources", "memory_items", "item_heat", "task_history", "tasks", "task_workspace",
        "event_vectors", "entities", "pii_vault", "postings", "memory_events",
    };
    for (size_t i = 0; i < sizeof sweep / sizeof *sweep; i++) {
        char sql[400];
        /* (a user's rows are in one partition: a ctid there is theirs) its
         * memory events but for the notice of the forget (re-keyed below) */
        snprintf(sql, sizeof sql,
                 "DELETE FROM %s WHERE user_id = $1 AND ctid = ANY(ARRAY(SELECT ctid FROM %s"
                 " WHERE user_id = $1%s LIMIT %d))", sweep[i], sweep[i],
                 strcmp(sweep[i], "memory_events") == 0
                     ? " AND NOT (type = 'memory.forgotten' AND detail = 'user')" : "",
                 PURGE_SWEEP);
        if (run_count(s, sql, uid, NULL, &rc) > 0 || rc) return rc;
    }
    long held = 0; /* the rows of its forgets in their grace period */
    if ((rc = am__pg_held_drop(s, uid, 0, PURGE_SWEEP, &held)) || held > 0) return rc;
    char pn[PSEUDONYM_MAX];
    if ((rc = pseudonym(s, uid, pn))) return rc;
    static const char *const rows[] = {
        "DELETE FROM identity_links WHERE user_id = $1",
        "DELETE FROM records WHERE user_id = $1", /* tokens, packs */
        "DELETE FROM tombstones WHERE user_id = $1",
        "DELETE FROM forget_jobs WHERE user_id = $1",
        "DELETE FROM users WHERE user_id = $1",
    };
    if ((rc = run_list(s, rows, sizeof rows / sizeof *rows, 1, uid, NULL, NULL))) return rc;
    static const char *const rekey[] = {
        "UPDATE audit_log SET user_id = $2,"
        " object_id = CASE WHEN object_type IN ('event', 'memory') THEN object_id END,"
        " detail = CASE WHEN op IN ('forget', 'restore') THEN detail END WHERE user_id = $1",
        "UPDATE memory_events SET user_id = $2 WHERE user_id = $1",
        "UPDATE memory_events SET other_user = $2 WHERE other_user = $1",
        "UPDATE audit_log SET object_id = $2 WHERE op = 'security.denied' AND object_id = $1",
    };
    if ((rc = run_list(s, rekey, sizeof rekey / sizeof *rekey, 2, uid, pn, NULL))) return rc;
    pg_args a = {0};
    am__pg_arg_text(&a, pn);
    am__pg_arg_int(&a, forgotten_at);
    am__pg_arg_int(&a, now);
    if ((rc = am__pg_exec(s, "forget user",
                          "INSERT INTO tombstones(user_id, level, object_id, at, purged_at)"
                          " VALUES($1, 'user', $1, $2, $3)", &a, NULL)))
        return rc;
    pg_args x = {0};
    am__pg_arg_text(&x, pn);
    am__pg_arg_int(&x, now);
    return am__pg_exec(s, "forget user",
                       "INSERT INTO audit_log(at, user_id, op, object_type)"
                       " VALUES($2, $1, 'forget.purged', 'user')", &x, NULL);
}

/* The purge of an event, a session or a task forgotten with a grace
 * period, at its end: its held rows go, its tombstone is dated. */
static int purge_held(pg_store *s, const char *uid, int64_t job, const char *level,
                      const char *id, am_time forgotten_at, am_time now)
{
    if (am__pg_lock_user(s, uid)) return s->rc;
    long dropped = 0;
    int rc = am__pg_held_drop(s, uid, job, 0, &dropped);
    char ref[AM__REF_LEN + 1];
    if (!rc) rc = am__store_object_ref(&s->base, uid, level, id, ref);
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, level);
    am__pg_arg_text(&a, rc ? "" : ref);
    am__pg_arg_int(&a, forgotten_at);
    am__pg_arg_int(&a, now);
    if (!rc)
        rc = am__pg_exec(s, "forget purge",
                         "UPDATE tombstones SET purged_at = $5 WHERE user_id = $1 AND level = $2"
                         " AND object_id = $3 AND at = $4 AND purged_at IS NULL", &a, NULL);
    pg_args j = {0};
    am__pg_arg_text(&j, uid);
    am__pg_arg_int(&j, job);
    if (!rc)
        rc = am__pg_exec(s, "forget purge", "DELETE FROM forget_jobs WHERE user_id = $1 AND seq = $2",
                         &j, NULL);
    return rc;
}

int am__pg_forget_step(am__store *b, const am__fjob_due *job, am_time now)
{
    pg_store *s = PG(b);
    return strcmp(job->level, "user") == 0
               ? purge_step(s, job->uid, job->seq, job->forgotten_at, now)
               : purge_held(s, job->uid, job->seq, job->level, job->object_id, job->forgotten_at,
                            now);
}

/* The next due job of any user (forget_jobs NEXT). */
static int job_next(pg_store *s, am_time now, am__fjob_due *j, size_t *found)
{
    *found = 0;
    if (s->txn != PG_TXN_NONE) return AM_MISUSE;
    pg_args a = {0};
    am__pg_arg_int(&a, now);
    PGresult *r =
        am__pg_run(s, "forget job",
                   "SELECT user_id, seq, level, forgotten_at, object_id, state FROM forget_jobs"
                   " WHERE purge_at <= $1 ORDER BY state = 'scrub', seq LIMIT 1",
                   &a);
    if (!r) return s->rc;
    if (PQntuples(r)) {
        *found = 1;
        snprintf(j->uid, sizeof j->uid, "%s", PQgetvalue(r, 0, 0));
        j->seq = am__pg_i64(r, 0, 1);
        snprintf(j->level, sizeof j->level, "%s", PQgetvalue(r, 0, 2));
        j->forgotten_at = am__pg_time(r, 0, 3);
        snprintf(j->object_id, sizeof j->object_id, "%s", PQgetvalue(r, 0, 4));
        snprintf(j->state, sizeof j->state, "%s", PQgetvalue(r, 0, 5));
    }
    PQclear(r);
    return AM_OK;
}

/* One row of forget_jobs (seq, level, object_id, state, forgotten_at,
 * purge_at: 6 columns) or of tombstones (at, purged_at: 2), into ar or
 * (ar NULL) the caller's one row. */
static void fjob_read(am__arena *ar, const PGresult *r, int i, int ncol, am__fjob_row *row)
{
    int t = 0;
    if (ncol == 6) {
        row->seq = am__pg_i64(r, i, 0);
        row->held = strcmp(PQgetvalue(r, i, 3), "held") == 0;
        if (ar) {
            row->level = am__pg_str(ar, r, i, 1);
            row->object_id = am__pg_str(ar, r, i, 2);
            row->state = am__pg_str(ar, r, i, 3);
        }
        t = 4;
    }
    row->forgotten_at = am__pg_i64(r, i, t);
    row->purge_at = am__pg_i64(r, i, t + 1);
}

/* $1 uid, $2 level, $3 object_id; LIST, DEL: $4 not_level, $5 state;
 * DEL: $6 seq; TOMB_DEL: $4 at. */
#define FJOB_WHERE                                                                    \
    " WHERE user_id = $1 AND ($2::text IS NULL OR level = $2)"                        \
    " AND ($4::text IS NULL OR level <> $4) AND ($3::text IS NULL OR object_id = $3)" \
    " AND ($5::text IS NULL OR state = $5)"
#define FJOB_LIST \
    "SELECT seq, level, object_id, state, forgotten_at, purge_at FROM forget_jobs" FJOB_WHERE

/* TOMB_PUT (store.h); the uid's lock is taken. */
static int tomb_put(pg_store *s, const am__fjob_op *op, size_t *n)
{
    pg_args a = {0};
    am__pg_arg_text(&a, op->uid);
    am__pg_arg_text(&a, op->level);
    am__pg_arg_text(&a, op->object_id);
    am__pg_arg_int(&a, op->at);
    long added = 0;
    int rc = am__pg_exec(
        s, "tombstone",
        "INSERT INTO tombstones(user_id, level, object_id, at) VALUES($1, $2, $3, $4)", &a, &added);
    *n = rc ? 0 : (size_t)added;
    if (!rc && strcmp(op->level, "task") == 0 && op->id)
        rc = am__pg_forget_task_audit(s, op->uid, op->id, op->object_id);
    return rc;
}

int am__pg_forget_jobs(am__store *b, const am__fjob_op *op, am__arena *ar, am__fjob_row **rows,
                       size_t *n)
{
    pg_store *s = PG(b);
    *n = 0;
    if (ar) *rows = NULL;
    int k = op->kind, rc = am__fjob_check(op);
    if (!rc && k == AM__FJOB_NEXT) return job_next(s, op->at, op->due, n);
    if (rc || am__pg_lock_user(s, op->uid)) return rc ? rc : s->rc;
    if (k == AM__FJOB_ADD || k == AM__FJOB_SET) return job_set(s, op, n);
    if (k == AM__FJOB_TOMB_PUT) return tomb_put(s, op, n);
    char pn[PSEUDONYM_MAX];
    if (k == AM__FJOB_TOMB_GET && op->pseudonym && (rc = pseudonym(s, op->uid, pn))) return rc;
    pg_args a = {0};
    am__pg_arg_text(&a, k == AM__FJOB_TOMB_GET && op->pseudonym ? pn : op->uid);
    am__pg_arg_text(&a, op->level);
    am__pg_arg_text(&a, op->object_id);
    if (k == AM__FJOB_LIST || k == AM__FJOB_DEL) {
        am__pg_arg_text(&a, op->not_level);
        am__pg_arg_text(&a, op->state);
    }
    if (k == AM__FJOB_DEL) am__pg_arg_int(&a, op->seq);
    if (k == AM__FJOB_TOMB_DEL) am__pg_arg_int(&a, op->at);
    if (k == AM__FJOB_DEL || k == AM__FJOB_TOMB_DEL) {
        long changed = 0;
        rc = am__pg_exec(s, "forget jobs",
                         k == AM__FJOB_DEL
                             ? "DELETE FROM forget_jobs" FJOB_WHERE
                               " AND ($6::bigint = 0 OR seq = $6::bigint)"
                             : "DELETE FROM tombstones WHERE user_id = $1 AND level = $2"
                               " AND object_id = $3 AND at = $4::bigint",
                         &a, &changed);
        *n = rc ? 0 : (size_t)changed;
        return rc;
    }
    int ncol = k == AM__FJOB_TOMB_GET ? 2 : 6;
    const char *sql = k == AM__FJOB_TOMB_GET
                          ? "SELECT at, purged_at FROM tombstones WHERE user_id = $1 AND level = $2"
                            " AND ($3::text IS NULL OR object_id = $3) ORDER BY seq DESC LIMIT 1"
                      : op->latest ? FJOB_LIST " ORDER BY seq DESC LIMIT 1"
                                   : FJOB_LIST " ORDER BY seq";
    PGresult *r = am__pg_run(s, "forget jobs", sql, &a);
    if (!r) return s->rc;
    int m = PQntuples(r);
    if (!ar) {
        if (m) fjob_read(NULL, r, 0, ncol, *rows);
        *n = m > 0;
        PQclear(r);
        return AM_OK;
    }
    if (!(*rows = am__pg_rows(ar, r, sizeof **rows))) return AM_NOMEM;
    for (int i = 0; i < m; i++) fjob_read(ar, r, i, ncol, &(*rows)[i]);
    return am__pg_rows_done(ar, r, n);
}
