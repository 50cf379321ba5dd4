/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pg_held.c -- the rows of a forget in its grace period on PostgreSQL
 * (docs/FORGETTING.md "Grace period and restore"), as the SQLite
 * store's held.c and restore do it.
 *
 * A forget of an event, a session or a task with a grace period does the
 * deletes of an immediate forget (pg_forget.c), but each delete first
 * copies the rows it takes into held_<table> (schema v2: the table's
 * columns plus held_job, the forget job's seq, partitioned by user as the
 * table is).  So nothing of it is left in the tables a read uses -- the
 * postings, vectors, vault, entities, items, tasks -- and no read needs a
 * filter: what a read sees during the grace period is what it sees after
 * an immediate forget.  restore_forget copies the rows back, the purge at
 * purge_at (pg_forget.c's forget_step) deletes them.
 *
 * Row ids here come from sequences and are never handed out twice, so a
 * held row goes back with its own ids (the SQLite store must renumber
 * events whose row id was reused).  The copies name their columns, read
 * from the catalog (pg_attribute): a column a later migration adds to a
 * table is added to its held table the first time rows are held, so a
 * held row always goes back whole.  The statements are built per call
 * (a forget with a grace period and a restore are rare).
 */
#include <stdio.h>
#include <stdlib.h>

#include "store/postgres/pg_int.h"

#define HELD_COLS 64 /* columns of a table (events has 21) */

typedef struct held_cols {
    char name[HELD_COLS][64];
    int n;
} held_cols;

/* The columns of table in order, each one its held table has too (added
 * to it when missing, with its type and collation). */
static int held_columns(pg_store *s, const char *table, held_cols *c)
{
    char held[80];
    snprintf(held, sizeof held, "held_%s", table);
    pg_args a = {0};
    am__pg_arg_text(&a, table);
    am__pg_arg_text(&a, held);
    PGresult *r = am__pg_run(
        s, "held columns",
        "SELECT a.attname, format_type(a.atttypid, a.atttypmod)"
        "  || CASE WHEN l.collname IS NOT NULL THEN ' COLLATE ' || quote_ident(l.collname)"
        "  ELSE '' END, h.attname IS NOT NULL, to_regclass($2) IS NOT NULL"
        " FROM pg_attribute a LEFT JOIN pg_collation l ON l.oid = a.attcollation"
        "  AND a.attcollation <> 0 AND l.collname <> 'default'"
        " LEFT JOIN pg_attribute h ON h.attrelid = to_regclass($2) AND h.attname = a.attname"
        "  AND NOT h.attisdropped"
        " WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped"
        " ORDER BY a.attnum", &a);
    if (!r) return s->rc;
    c->n = 0;
    int rc = AM_OK, k = PQntuples(r);
    if (k == 0 || PQgetvalue(r, 0, 3)[0] != 't')
        rc = am__pg_fail(s, AM_BACKEND, "postgres: held: no table %s or %s", table, held);
    for (int i = 0; i < k && !rc; i++) {
        const char *name = PQgetvalue(r, i, 0);
        if (strlen(name) >= sizeof c->name[0] || c->n == HELD_COLS) {
            rc = am__pg_fail(s, AM_BACKEND, "postgres: held: table %s has a column it cannot hold",
                             table);
            break;
        }
        snprintf(c->name[c->n++], sizeof c->name[0], "%s", name);
        if (PQgetvalue(r, i, 2)[0] == 't') continue;
        am__buf sql;
        am__buf_init(&sql, s->a);
        am__buf_printf(&sql, "ALTER TABLE %s ADD COLUMN IF NOT EXISTS \"%s\" %s", held, name,
                       PQgetvalue(r, i, 1));
        rc = sql.oom ? AM_NOMEM : am__pg_simple(s, "held columns", sql.p);
        am__buf_free(&sql);
    }
    PQclear(r);
    return rc;
}

static void add_list(am__buf *b, const held_cols *c, const char *prefix)
{
    for (int i = 0; i < c->n; i++)
        am__buf_printf(b, "%s%s\"%s\"", i ? "," : "", prefix, c->name[i]);
}

/* Run built SQL with $1 uid, $2 job and, when it names it, $3 x. */
static int run_built(pg_store *s, am__buf *sql, const char *uid, int64_t job, const char *x,
                     long *changes)
{
    if (sql->oom) return AM_NOMEM;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_int(&a, job);
    if (strstr(sql->p, "$3")) am__pg_arg_text(&a, x);
    return am__pg_exec(s, "held", sql->p, &a, changes);
}

int am__pg_held_copy(pg_store *s, const char *table, const char *where, const char *uid,
                     int64_t job, const char *x)
{
    held_cols c;
    int rc = held_columns(s, table, &c);
    if (rc) return rc;
    am__buf sql;
    am__buf_init(&sql, s->a);
    am__buf_printf(&sql, "INSERT INTO held_%s(held_job,", table);
    add_list(&sql, &c, "");
    am__buf_adds(&sql, ") SELECT $2::bigint,");
    add_list(&sql, &c, "");
    am__buf_printf(&sql, " FROM %s WHERE %s", table, where);
    rc = run_built(s, &sql, uid, job, x, NULL);
    am__buf_free(&sql);
    return rc;
}

int am__pg_held_back(pg_store *s, const char *table, const char *uid, int64_t job,
                     const pg_held_expr *ov, size_t n_ov, int or_ignore, long *changes)
{
    held_cols c;
    int rc = held_columns(s, table, &c);
    if (rc) return rc;
    am__buf sql;
    am__buf_init(&sql, s->a);
    am__buf_printf(&sql, "INSERT INTO %s(", table);
    add_list(&sql, &c, "");
    am__buf_adds(&sql, ") SELECT ");
    for (int i = 0; i < c.n; i++) {
        const char *expr = NULL;
        for (size_t k = 0; k < n_ov; k++)
            if (strcmp(ov[k].column, c.name[i]) == 0) expr = ov[k].expr;
        if (expr) am__buf_printf(&sql, "%s(%s)", i ? "," : "", expr);
        else am__buf_printf(&sql, "%sh.\"%s\"", i ? "," : "", c.name[i]);
    }
    am__buf_printf(&sql, " FROM held_%s h WHERE h.user_id = $1 AND h.held_job = $2::bigint%s",
                   table, or_ignore ? " ON CONFLICT DO NOTHING" : "");
    rc = run_built(s, &sql, uid, job, NULL, changes);
    am__buf_free(&sql);
    return rc;
}

/* Every table with held rows (schema v2). */
static const char *const held_tables[] = {
    "held_events",       "held_postings",     "held_entities", "held_event_vectors",
    "held_pii_vault",    "held_item_sources", "held_memory_items", "held_item_heat",
    "held_tasks",        "held_task_history", "held_task_workspace",
};

int am__pg_held_drop(pg_store *s, const char *uid, int64_t job, long limit, long *dropped)
{
    *dropped = 0;
    for (size_t i = 0; i < sizeof held_tables / sizeof *held_tables; i++) {
        if (limit > 0 && *dropped >= limit) break;
        const char *t = held_tables[i];
        const char *which = job > 0 ? "held_job = $2::bigint" : "$2::bigint = 0";
        am__buf sql;
        am__buf_init(&sql, s->a);
        if (limit > 0) /* (the user's rows are in one partition: ctid is theirs) */
            am__buf_printf(&sql, "DELETE FROM %s WHERE user_id = $1 AND ctid = ANY(ARRAY(SELECT ctid"
                                 " FROM %s WHERE user_id = $1 AND %s LIMIT %ld))",
                           t, t, which, limit - *dropped);
        else
            am__buf_printf(&sql, "DELETE FROM %s WHERE user_id = $1 AND %s", t, which);
        long ch = 0;
        int rc = run_built(s, &sql, uid, job, NULL, &ch);
        am__buf_free(&sql);
        if (rc) return rc;
        *dropped += ch;
    }
    return AM_OK;
}

/* ------------------------------------------------------------ restore */

/* Statements with $1 = uid, $2 = job, $3 = the forget's time. */
static int run_job(pg_store *s, const char *sql, const char *uid, int64_t job, am_time at,
                   long *changes)
{
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_int(&a, job);
    if (strstr(sql, "$3")) am__pg_arg_int(&a, at);
    return am__pg_exec(s, "restore", sql, &a, changes);
}

int am__pg_restore_forget(am__store *b, const char *uid, int64_t job, am_time at, long *events)
{
    *events = 0;
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    int rc = am__pg_forget_temp(s);
    if (rc) return rc;
    static const pg_held_expr event_ov[] = {
        /* an event added again with the caller's id while this one was
         * held keeps the id; this one comes back without it */
        {"client_id", "CASE WHEN h.client_id IS NOT NULL AND EXISTS (SELECT 1 FROM events e"
                      " WHERE e.user_id = h.user_id AND e.client_id = h.client_id) THEN NULL"
                      " ELSE h.client_id END"},
    };
    if ((rc = am__pg_held_back(s, "events", uid, job, event_ov, 1, 0, events))) return rc;
    static const char *const table_order[] = {"postings", "entities", "event_vectors", "pii_vault"};
    for (size_t i = 0; i < sizeof table_order / sizeof *table_order && !rc; i++)
        rc = am__pg_held_back(s, table_order[i], uid, job, NULL, 0, 0, NULL);
    char slot[16];
    snprintf(slot, sizeof slot, "%d", am__pg_slot(uid));
    pg_args t = {0};
    am__pg_arg_text(&t, uid);
    am__pg_arg_int(&t, job);
    am__pg_arg_text(&t, slot);
    /* the index totals count the events back (their contexts follow) */
    if (!rc)
        rc = am__pg_exec(s, "restore: index totals",
                         "UPDATE index_totals t SET n_rows = t.n_rows + x.n, len0 = t.len0 + x.l0,"
                         " len1 = t.len1 + x.l1 FROM (SELECT count(*) AS n,"
                         " coalesce(sum(len0), 0) AS l0, coalesce(sum(len1), 0) AS l1"
                         " FROM held_events WHERE user_id = $1 AND held_job = $2::bigint) x"
                         " WHERE t.slot = $3::integer", &t, NULL);
    if (!rc) rc = am__pg_held_back(s, "memory_items", uid, job, NULL, 0, 0, NULL);
    if (!rc) rc = am__pg_held_back(s, "item_sources", uid, job, NULL, 0, 1, NULL);
    /* every version counts its held sources back: the ones that stayed,
     * and the held ones (held after the forget lowered their counts) */
    if (!rc)
        rc = run_job(s, "UPDATE memory_items m SET source_count = m.source_count +"
                        " (SELECT count(*) FROM held_item_sources h WHERE h.user_id = $1"
                        "  AND h.held_job = $2::bigint AND h.item_rid = m.rid)"
                        " WHERE m.user_id = $1 AND m.rid IN (SELECT item_rid FROM held_item_sources"
                        "  WHERE user_id = $1 AND held_job = $2::bigint)", uid, job, at, NULL);
    if (!rc) rc = am__pg_held_back(s, "item_heat", uid, job, NULL, 0, 1, NULL);
    /* the tasks as they were; replayed (the caller: am__forget_touched) when
     * events of them were written since */
    static const char *const tasks_sql[] = {
        "INSERT INTO am_forget_tasks SELECT h.task_id FROM held_tasks h WHERE h.user_id = $1"
        " AND h.held_job = $2::bigint AND EXISTS (SELECT 1 FROM events e WHERE e.user_id = $1"
        " AND e.task_id = h.task_id AND e.ingested_at >= $3::bigint AND e.id NOT IN"
        " (SELECT id FROM held_events WHERE user_id = $1 AND held_job = $2::bigint))"
        " ON CONFLICT DO NOTHING",
        "DELETE FROM tasks WHERE user_id = $1 AND task_id IN (SELECT task_id FROM held_tasks"
        " WHERE user_id = $1 AND held_job = $2::bigint UNION SELECT task_id FROM held_task_history"
        " WHERE user_id = $1 AND held_job = $2::bigint)",
        "DELETE FROM task_history WHERE user_id = $1 AND task_id IN (SELECT task_id FROM held_tasks"
        " WHERE user_id = $1 AND held_job = $2::bigint UNION SELECT task_id FROM held_task_history"
        " WHERE user_id = $1 AND held_job = $2::bigint)",
    };
    for (size_t i = 0; i < sizeof tasks_sql / sizeof *tasks_sql && !rc; i++)
        rc = run_job(s, tasks_sql[i], uid, job, at, NULL);
    if (!rc) rc = am__pg_held_back(s, "tasks", uid, job, NULL, 0, 0, NULL);
    if (!rc) rc = am__pg_held_back(s, "task_history", uid, job, NULL, 0, 0, NULL);
    /* its workspace; an agent's entry written during the grace period is
     * newer and stays */
    if (!rc) rc = am__pg_held_back(s, "task_workspace", uid, job, NULL, 0, 1, NULL);
    /* the sessions' context, with the turns back */
    static const char *const end_sql[] = {
        "INSERT INTO am_forget SELECT e.rid, e.id, e.session_id FROM events e WHERE e.user_id = $1"
        " AND e.id IN (SELECT id FROM held_events WHERE user_id = $1 AND held_job = $2::bigint)",
        "UPDATE users SET n_events = (SELECT count(*) FROM events e WHERE e.user_id = $1)"
        " WHERE user_id = $1 AND $2::bigint > 0",
    };
    for (size_t i = 0; i < sizeof end_sql / sizeof *end_sql && !rc; i++)
        rc = run_job(s, end_sql[i], uid, job, at, NULL);
    if (!rc) rc = am__pg_forget_ctx_rebuild(s, uid);
    long dropped = 0;
    if (!rc) rc = am__pg_held_drop(s, uid, job, 0, &dropped);
    return rc;
}
