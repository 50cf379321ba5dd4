/* SPDX-License-Identifier: Apache-2.0 */
/*
 * held.c -- the rows of a forget in its grace period
 * (docs/FORGETTING.md "Grace period and restore").
 *
 * A forget of an event, a session or a task with a grace period does the
 * deletes of an immediate forget (forget.c), but each delete first copies
 * the rows it takes into held_<table>: the table's columns plus held_job,
 * the forget job's seq (schema v14).  So nothing of it is left in the
 * tables a read uses -- recall's index, posting lists and row caches,
 * vectors, vault, entities, items, tasks, export -- and no read needs a
 * filter: what a read sees during the grace period is exactly what it
 * sees after an immediate forget.  Restore copies the rows back (forget.c
 * says with which row ids), the purge at the end deletes them.
 *
 * The copies name their columns, read from the tables themselves
 * (pragma table_info), so a column a later migration adds to a table is
 * added to its held table the first time rows are held (held_columns),
 * and a held row always goes back whole.  The SQL is built per call, so
 * it is prepared and finalized here (stmt() caches by the SQL's address).
 */
#include <string.h>

#include "store/sqlite/sqlite_int.h"

#define HELD_COLS 64 /* columns of a table (events has 20) */

typedef struct held_cols {
    char name[HELD_COLS][64];
    int n;
} held_cols;

static int table_columns(sq_store *s, const char *table, held_cols *c)
{
    sqlite3_stmt *st = NULL;
    c->n = 0;
    int rc = sqlite3_prepare_v2(s->db, "SELECT name FROM pragma_table_info(?1)", -1, &st, NULL);
    if (rc != SQLITE_OK) return fail(s, rc, "held columns");
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (!name || strlen(name) >= sizeof c->name[0] || c->n == HELD_COLS) {
            sqlite3_finalize(st);
            snprintf(s->err, sizeof s->err, "sqlite: held: table %s has a column it cannot hold",
                     table);
            return AM_BACKEND;
        }
        if (strcmp(name, "held_job") != 0) snprintf(c->name[c->n++], sizeof c->name[0], "%s", name);
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "held columns");
    sqlite3_finalize(st);
    return out;
}

static int has_column(const held_cols *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->name[i], name) == 0) return 1;
    return 0;
}

/* The columns of table, each one its held table has too (added to it
 * when missing: held rows of a table go back whole). */
static int held_columns(sq_store *s, const char *table, held_cols *c)
{
    held_cols h;
    char held[80];
    snprintf(held, sizeof held, "held_%s", table);
    int rc = table_columns(s, table, c);
    if (!rc) rc = table_columns(s, held, &h);
    if (!rc && h.n == 0) {
        snprintf(s->err, sizeof s->err, "sqlite: held: no table %s", held);
        return AM_BACKEND;
    }
    for (int i = 0; i < c->n && !rc; i++) {
        if (has_column(&h, c->name[i])) continue;
        am__buf sql;
        am__buf_init(&sql, s->a);
        am__buf_adds(&sql, "ALTER TABLE ");
        am__buf_adds(&sql, held);
        am__buf_adds(&sql, " ADD COLUMN \"");
        am__buf_adds(&sql, c->name[i]);
        am__buf_adds(&sql, "\"");
        rc = sql.oom ? AM_NOMEM : exec(s, sql.p, "held columns");
        am__buf_free(&sql);
    }
    return rc;
}

/* Run built SQL with ?1 uid, ?2 id, ?3 job; *changes: rows it changed. */
static int run_built(sq_store *s, am__buf *sql, const char *uid, const char *id, int64_t job,
                     long *changes)
{
    if (sql->oom) return AM_NOMEM;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql->p, -1, &st, NULL);
    if (rc != SQLITE_OK) return fail(s, rc, "held");
    int np = sqlite3_bind_parameter_count(st);
    if (np >= 1) bind_text(st, 1, uid);
    if (np >= 2) bind_text(st, 2, id);
    if (np >= 3) sqlite3_bind_int64(st, 3, job);
    rc = sqlite3_step(st);
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "held");
    if (!out && changes) *changes = (long)sqlite3_changes(s->db);
    sqlite3_finalize(st);
    return out;
}

static void add_list(am__buf *b, const held_cols *c, const char *prefix)
{
    for (int i = 0; i < c->n; i++) {
        if (i) am__buf_addc(b, ',');
        am__buf_adds(b, prefix);
        am__buf_addc(b, '"');
        am__buf_adds(b, c->name[i]);
        am__buf_addc(b, '"');
    }
}

int am__sqlite_held_copy(sq_store *s, const char *table, const char *where, const char *uid,
                         const char *id, int64_t job)
{
    held_cols c;
    int rc = held_columns(s, table, &c);
    if (rc) return rc;
    am__buf sql;
    am__buf_init(&sql, s->a);
    am__buf_adds(&sql, "INSERT INTO held_");
    am__buf_adds(&sql, table);
    am__buf_adds(&sql, "(held_job,");
    add_list(&sql, &c, "");
    am__buf_adds(&sql, ") SELECT ?3,");
    add_list(&sql, &c, "");
    am__buf_adds(&sql, " FROM ");
    am__buf_adds(&sql, table);
    am__buf_adds(&sql, " WHERE ");
    am__buf_adds(&sql, where);
    rc = run_built(s, &sql, uid, id, job, NULL);
    am__buf_free(&sql);
    return rc;
}

int am__sqlite_held_back(sq_store *s, const char *table, int64_t job, const am__held_expr *ov,
                         size_t n_ov, int or_ignore, long *changes)
{
    held_cols c;
    int rc = held_columns(s, table, &c);
    if (rc) return rc;
    am__buf sql;
    am__buf_init(&sql, s->a);
    am__buf_adds(&sql, or_ignore ? "INSERT OR IGNORE INTO " : "INSERT INTO ");
    am__buf_adds(&sql, table);
    am__buf_addc(&sql, '(');
    add_list(&sql, &c, "");
    am__buf_adds(&sql, ") SELECT ");
    for (int i = 0; i < c.n; i++) {
        const char *expr = NULL;
        for (size_t k = 0; k < n_ov; k++)
            if (strcmp(ov[k].column, c.name[i]) == 0) expr = ov[k].expr;
        if (i) am__buf_addc(&sql, ',');
        if (expr) {
            am__buf_addc(&sql, '(');
            am__buf_adds(&sql, expr);
            am__buf_addc(&sql, ')');
        } else {
            am__buf_adds(&sql, "h.\"");
            am__buf_adds(&sql, c.name[i]);
            am__buf_addc(&sql, '"');
        }
    }
    am__buf_adds(&sql, " FROM held_");
    am__buf_adds(&sql, table);
    am__buf_adds(&sql, " h WHERE h.held_job=?3 ORDER BY h.rowid");
    rc = run_built(s, &sql, NULL, NULL, job, changes);
    am__buf_free(&sql);
    return rc;
}

/* Every table with held rows (the index rows included). */
static const char *const held_tables[] = {
    "held_events",     "held_events_fts",   "held_entities", "held_event_vectors",
    "held_pii_vault",  "held_item_sources", "held_memory_items", "held_item_heat",
    "held_tasks",      "held_task_history", "held_task_workspace",
};

int am__sqlite_held_drop(sq_store *s, int64_t job, const char *uid, long limit, long *dropped)
{
    *dropped = 0;
    for (size_t i = 0; i < sizeof held_tables / sizeof *held_tables; i++) {
        if (limit > 0 && *dropped >= limit) break;
        am__buf sql;
        am__buf_init(&sql, s->a);
        am__buf_adds(&sql, "DELETE FROM ");
        am__buf_adds(&sql, held_tables[i]);
        am__buf_adds(&sql, " WHERE rowid IN (SELECT rowid FROM ");
        am__buf_adds(&sql, held_tables[i]);
        am__buf_adds(&sql, uid ? " WHERE user_id=?1" : " WHERE held_job=?3");
        if (limit > 0) {
            am__buf_adds(&sql, " LIMIT ");
            am__buf_add_int(&sql, limit - *dropped);
        }
        am__buf_addc(&sql, ')');
        long ch = 0;
        int rc = run_built(s, &sql, uid, NULL, job, &ch);
        am__buf_free(&sql);
        if (rc) return rc;
        *dropped += ch;
    }
    return AM_OK;
}
