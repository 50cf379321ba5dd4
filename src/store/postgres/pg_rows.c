/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pg_rows.c -- the PostgreSQL store's users and identity links, tasks,
 * memory item versions (their sources and heat), the audit log, the
 * memory events' outbox, task workspaces and API tokens.  Each is the
 * SQLite store's statement in PostgreSQL's terms (store/sqlite: users.c,
 * tasks.c, items.c, audit.c, outbox.c, workspace.c, tokens.c), rows in
 * the same order; what differs is said where it does.
 */
#include <stdio.h>
#include <stdlib.h>

#include "store/postgres/pg_int.h"

/* The first column of the first row into out (cap bytes): AM_OK, or
 * AM_NOTFOUND when there is no row. */
static int first_text(pg_store *s, const char *what, const char *sql, const pg_args *a,
                      char *out, size_t cap)
{
    PGresult *r = am__pg_run(s, what, sql, a);
    if (!r) return s->rc;
    int rc = PQntuples(r) > 0 ? AM_OK : AM_NOTFOUND;
    if (!rc) snprintf(out, cap, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
    return rc;
}

/* ------------------------------------------------------------ users */

static int user_ensure(am__store *b, const char *uid, am_time now)
{
    if (am__pg_lock_user(PG(b), uid)) return PG(b)->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_int(&a, now);
    return am__pg_exec(PG(b), "user",
                       "INSERT INTO users(user_id, created_at) VALUES($1, $2) ON CONFLICT DO NOTHING",
                       &a, NULL);
}

int am__pg_user_exists(am__store *b, const char *uid)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    /* a user being forgotten is no longer there (pg_forget.c) */
    PGresult *r = am__pg_run(s, "user",
                             "SELECT 1 FROM users WHERE user_id = $1 AND NOT EXISTS"
                             " (SELECT 1 FROM forget_jobs WHERE user_id = $1 AND level = 'user')",
                             &a);
    if (!r) return -s->rc;
    int n = PQntuples(r) > 0;
    PQclear(r);
    return n;
}

static int link_add(am__store *b, const char *ch, const char *ext, const char *uid, am_time now)
{
    if (am__pg_lock_link(PG(b), ch, ext) || am__pg_lock_user(PG(b), uid)) return PG(b)->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, ch);
    am__pg_arg_text(&a, ext);
    am__pg_arg_text(&a, uid);
    am__pg_arg_int(&a, now);
    return am__pg_exec(PG(b), "link",
                       "INSERT INTO identity_links(channel, external_id, user_id, created_at)"
                       " VALUES($1, $2, $3, $4) ON CONFLICT(channel, external_id) DO NOTHING",
                       &a, NULL);
}

static int link_user(am__store *b, const char *ch, const char *ext, char *out)
{
    if (am__pg_lock_link(PG(b), ch, ext)) return PG(b)->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, ch);
    am__pg_arg_text(&a, ext);
    return first_text(PG(b), "link",
                      "SELECT user_id FROM identity_links WHERE channel = $1 AND external_id = $2",
                      &a, out, AM_ID_MAX + 1);
}

static int link_del(am__store *b, const char *ch, const char *ext)
{
    if (am__pg_lock_link(PG(b), ch, ext)) return PG(b)->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, ch);
    am__pg_arg_text(&a, ext);
    long n = 0;
    int rc = am__pg_exec(PG(b), "unlink",
                         "DELETE FROM identity_links WHERE channel = $1 AND external_id = $2", &a,
                         &n);
    return rc ? rc : n ? AM_OK : AM_NOTFOUND;
}

int am__pg_links_list(am__store *b, const char *uid, am__arena *ar, am__link_row **rows,
                      size_t *n)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    *rows = NULL;
    *n = 0;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    PGresult *r = am__pg_run(s, "links",
                             "SELECT channel, external_id, created_at FROM identity_links"
                             " WHERE user_id = $1 ORDER BY channel, external_id", &a);
    if (!r) return s->rc;
    int k = PQntuples(r);
    if (!(*rows = am__pg_rows(ar, r, sizeof **rows))) return AM_NOMEM;
    for (int i = 0; i < k; i++) {
        (*rows)[i].channel = am__pg_str(ar, r, i, 0);
        (*rows)[i].external_id = am__pg_str(ar, r, i, 1);
        (*rows)[i].created_at = am__pg_time(r, i, 2);
    }
    return am__pg_rows_done(ar, r, n);
}

static int user_create_for(am__store *b, const char *uid, const char *ch, const char *ext,
                           am_time now)
{
    if (am__pg_lock_user(PG(b), uid) || am__pg_lock_link(PG(b), ch, ext)) return PG(b)->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_int(&a, now);
    am__pg_arg_text(&a, ch);
    am__pg_arg_text(&a, ext);
    return am__pg_exec(PG(b), "user",
                       "INSERT INTO users(user_id, created_at, channel, external_id)"
                       " VALUES($1, $2, $3, $4)", &a, NULL);
}

static int user_of_channel(am__store *b, const char *ch, const char *ext, char *out)
{
    if (am__pg_lock_link(PG(b), ch, ext)) return PG(b)->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, ch);
    am__pg_arg_text(&a, ext);
    return first_text(PG(b), "user of channel",
                      "SELECT user_id FROM users WHERE channel = $1 AND external_id = $2"
                      " ORDER BY created_at LIMIT 1", &a, out, AM_ID_MAX + 1);
}

int am__pg_user_history(am__store *b, const char *uid, long *events, long *items, long *tasks)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    PGresult *r = am__pg_run(s, "user history",
                             "SELECT (SELECT count(*) FROM events WHERE user_id = $1),"
                             " (SELECT count(DISTINCT lineage_id) FROM memory_items WHERE user_id = $1),"
                             " (SELECT count(*) FROM tasks WHERE user_id = $1)", &a);
    if (!r) return s->rc;
    *events = (long)am__pg_i64(r, 0, 0);
    *items = (long)am__pg_i64(r, 0, 1);
    *tasks = (long)am__pg_i64(r, 0, 2);
    PQclear(r);
    return AM_OK;
}

int am__pg_user_put(am__store *b, const char *uid, const char *ch, const char *ext, am_time now)
{
    return ch ? user_create_for(b, uid, ch, ext, now) : user_ensure(b, uid, now);
}

int am__pg_user_stat(am__store *b, const char *uid, long counts[3])
{
    if (!counts) return am__pg_user_exists(b, uid);
    return am__pg_user_history(b, uid, &counts[0], &counts[1], &counts[2]);
}

int am__pg_link_put(am__store *b, const char *ch, const char *ext, const char *uid, am_time now)
{
    return uid ? link_add(b, ch, ext, uid, now) : link_del(b, ch, ext);
}

int am__pg_link_get(am__store *b, const char *ch, const char *ext, int by, char *out)
{
    switch (by) {
    case AM__LINK_USER: return link_user(b, ch, ext, out);
    case AM__LINK_MADE: return user_of_channel(b, ch, ext, out);
    default: return AM_MISUSE;
    }
}

/* ------------------------------------------------------------ tasks */

#define TASK_COLS "task_id, name, stage, status, artifacts, pending, notes, created_at, updated_at," \
                  " round, round_at, round_tz, period, rounds, round_from"

static void read_task(am__arena *ar, const PGresult *r, int i, am__task_row *t)
{
    t->task_id = am__pg_str(ar, r, i, 0);
    t->name = am__pg_str(ar, r, i, 1);
    t->stage = am__pg_str(ar, r, i, 2);
    t->status = am__pg_str(ar, r, i, 3);
    t->artifacts = am__pg_str(ar, r, i, 4);
    t->pending = am__pg_str(ar, r, i, 5);
    t->notes = am__pg_str(ar, r, i, 6);
    t->created_at = am__pg_time(r, i, 7);
    t->updated_at = am__pg_time(r, i, 8);
    t->round = (int)am__pg_i64(r, i, 9);
    t->round_at = PQgetisnull(r, i, 10) ? t->created_at : am__pg_time(r, i, 10);
    t->round_tz = (int)am__pg_i64(r, i, 11);
    t->period = am__pg_str(ar, r, i, 12);
    t->rounds = am__pg_str(ar, r, i, 13);
    t->round_from = PQgetisnull(r, i, 14) ? t->round_at : am__pg_time(r, i, 14);
}

static int task_get(am__store *b, const char *uid, const char *task_id, am__arena *ar,
                    am__task_row *out)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, task_id);
    PGresult *r = am__pg_run(s, "task",
                             "SELECT " TASK_COLS " FROM tasks WHERE user_id = $1 AND task_id = $2",
                             &a);
    if (!r) return s->rc;
    int rc = PQntuples(r) ? AM_OK : AM_NOTFOUND;
    if (!rc) read_task(ar, r, 0, out);
    PQclear(r);
    return rc ? rc : ar->oom ? AM_NOMEM : AM_OK;
}

int am__pg_task_put(am__store *b, const char *uid, const am__task_row *t)
{
    if (am__pg_lock_user(PG(b), uid)) return PG(b)->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, t->task_id);
    am__pg_arg_text(&a, t->name);
    am__pg_arg_text(&a, t->stage);
    am__pg_arg_text(&a, t->status);
    am__pg_arg_text(&a, t->artifacts ? t->artifacts : "[]");
    am__pg_arg_text(&a, t->pending ? t->pending : "[]");
    am__pg_arg_text(&a, t->notes ? t->notes : "[]");
    am__pg_arg_int(&a, t->created_at);
    am__pg_arg_int(&a, t->updated_at);
    am__pg_arg_int(&a, t->round > 0 ? t->round : 1);
    am__pg_arg_int(&a, t->round_at != AM_TIME_NONE ? t->round_at : t->created_at);
    am__pg_arg_int(&a, t->round_tz);
    am__pg_arg_text(&a, t->period);
    am__pg_arg_text(&a, t->rounds ? t->rounds : "[]");
    am__pg_arg_int(&a, t->round_from != AM_TIME_NONE ? t->round_from : t->created_at);
    return am__pg_exec(PG(b), "task",
                       "INSERT INTO tasks(user_id, " TASK_COLS ") VALUES($1, $2, $3, $4, $5, $6,"
                       " $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
                       " ON CONFLICT(user_id, task_id) DO UPDATE SET name = excluded.name,"
                       " stage = excluded.stage, status = excluded.status,"
                       " artifacts = excluded.artifacts, pending = excluded.pending,"
                       " notes = excluded.notes, updated_at = excluded.updated_at,"
                       " round = excluded.round, round_at = excluded.round_at,"
                       " round_tz = excluded.round_tz, period = excluded.period,"
                       " rounds = excluded.rounds, round_from = excluded.round_from",
                       &a, NULL);
}

static int task_change_add(am__store *b, const char *uid, const am__task_change_row *c)
{
    if (am__pg_lock_user(PG(b), uid)) return PG(b)->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, c->task_id);
    am__pg_arg_int(&a, c->at);
    am__pg_arg_text(&a, c->field);
    am__pg_arg_text(&a, c->old_value);
    am__pg_arg_text(&a, c->new_value);
    am__pg_arg_text(&a, c->event_id);
    return am__pg_exec(PG(b), "task history",
                       "INSERT INTO task_history(user_id, task_id, at, field, old_value, new_value,"
                       " event_id) VALUES($1, $2, $3, $4, $5, $6, $7)", &a, NULL);
}

static int task_history(am__store *b, const char *uid, const char *task_id, am__arena *ar,
                        am__task_change_row **rows, size_t *n)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    *rows = NULL;
    *n = 0;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, task_id);
    PGresult *r = am__pg_run(s, "task history",
                             "SELECT at, task_id, field, old_value, new_value, event_id"
                             " FROM task_history WHERE user_id = $1"
                             " AND ($2::text IS NULL OR task_id = $2) ORDER BY seq", &a);
    if (!r) return s->rc;
    int k = PQntuples(r);
    if (!(*rows = am__pg_rows(ar, r, sizeof **rows))) return AM_NOMEM;
    for (int i = 0; i < k; i++) {
        am__task_change_row *c = &(*rows)[i];
        c->at = am__pg_time(r, i, 0);
        c->task_id = am__pg_str(ar, r, i, 1);
        c->field = am__pg_str(ar, r, i, 2);
        c->old_value = am__pg_str(ar, r, i, 3);
        c->new_value = am__pg_str(ar, r, i, 4);
        c->event_id = am__pg_str(ar, r, i, 5);
    }
    return am__pg_rows_done(ar, r, n);
}

int am__pg_task_log(am__store *b, const char *uid, const am__task_change_row *add,
                    const char *task_id, am__arena *ar, am__task_change_row **rows, size_t *n)
{
    return add ? task_change_add(b, uid, add) : task_history(b, uid, task_id, ar, rows, n);
}

int am__pg_tasks_list(am__store *b, const char *uid, const char *task_id, int open_only, int limit,
                      am__arena *ar, am__task_row **rows, size_t *n)
{
    pg_store *s = PG(b);
    if (task_id) { /* the one task: the rows of its own statement */
        *rows = NULL;
        *n = 0;
        am__task_row *t = am__arena_alloc(ar, sizeof *t);
        int rc = t ? task_get(b, uid, task_id, ar, t) : AM_NOMEM;
        if (!rc) {
            *rows = t;
            *n = 1;
        }
        return rc;
    }
    if (am__pg_lock_user(s, uid)) return s->rc;
    *rows = NULL;
    *n = 0;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    if (limit > 0) am__pg_arg_int(&a, limit);
    else am__pg_arg_text(&a, NULL); /* LIMIT NULL: all */
    PGresult *r = am__pg_run(s, open_only ? "open tasks" : "tasks",
                             open_only ? "SELECT " TASK_COLS " FROM tasks WHERE user_id = $1"
                                         " AND status IN ('active','paused','postponed')"
                                         " ORDER BY updated_at DESC, task_id LIMIT $2"
                                       : "SELECT " TASK_COLS " FROM tasks WHERE user_id = $1"
                                         " ORDER BY updated_at DESC, task_id LIMIT $2",
                             &a);
    if (!r) return s->rc;
    int k = PQntuples(r);
    if (!(*rows = am__pg_rows(ar, r, sizeof **rows))) return AM_NOMEM;
    for (int i = 0; i < k; i++) read_task(ar, r, i, &(*rows)[i]);
    return am__pg_rows_done(ar, r, n);
}

/* ------------------------------------------------------------ memory items */

int am__pg_item_insert(am__store *b, const char *uid, am__item_row *it)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    long count = it->source_count > (long)it->n_sources ? it->source_count : (long)it->n_sources;
    am__pg_arg_text(&a, it->id);
    am__pg_arg_text(&a, it->lineage_id);
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, it->scope);
    am__pg_arg_text(&a, it->kind);
    am__pg_arg_text(&a, it->key);
    am__pg_arg_text(&a, it->text);
    am__pg_arg_text(&a, it->value_json ? it->value_json : "null");
    am__pg_arg_real(&a, it->confidence);
    am__pg_arg_real(&a, it->base_score);
    am__pg_arg_real(&a, it->half_life_days);
    am__pg_arg_time(&a, it->valid_from);
    am__pg_arg_time(&a, it->valid_to);
    am__pg_arg_time(&a, it->recorded_at);
    am__pg_arg_time(&a, it->superseded_at);
    am__pg_arg_text(&a, it->status);
    am__pg_arg_bytes(&a, it->tokens, it->tokens_len);
    am__pg_arg_int(&a, count);
    am__pg_arg_time(&a, it->reinforced_at == it->recorded_at ? AM_TIME_NONE : it->reinforced_at);
    am__pg_arg_text(&a, it->metadata);
    am__pg_arg_text(&a, it->origin);
    PGresult *r = am__pg_run(s, "memory item",
                             "INSERT INTO memory_items(id, lineage_id, user_id, scope, kind, key, text,"
                             " value_json, confidence, base_score, half_life_days, valid_from,"
                             " valid_to, recorded_at, superseded_at, status, tokens, source_count,"
                             " reinforced_at, metadata, origin) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9,"
                             " $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21) RETURNING rid", &a);
    if (!r) return s->rc;
    it->rid = am__pg_i64(r, 0, 0);
    PQclear(r);
    /* the first and the latest sources, oldest first (seq order) */
    size_t first = AM__ITEM_SOURCES_FIRST, last = AM__ITEM_SOURCES_LAST;
    int rc = AM_OK;
    for (size_t i = 0; i < it->n_sources && !rc; i++) {
        if (i >= first && i + last < it->n_sources) continue;
        pg_args x = {0};
        am__pg_arg_text(&x, uid);
        am__pg_arg_int(&x, it->rid);
        am__pg_arg_text(&x, it->sources[i]);
        rc = am__pg_exec(s, "item source",
                         "INSERT INTO item_sources(user_id, item_rid, event_id) VALUES($1, $2, $3)"
                         " ON CONFLICT DO NOTHING", &x, NULL);
    }
    if (rc) return rc;
    pg_args h = {0};
    am__pg_arg_text(&h, uid);
    am__pg_arg_text(&h, it->lineage_id);
    return am__pg_exec(s, "item heat",
                       "INSERT INTO item_heat(user_id, lineage_id, hits, last_access)"
                       " VALUES($1, $2, 0, NULL) ON CONFLICT DO NOTHING", &h, NULL);
}

static int item_reinforce(am__store *b, const char *uid, int64_t item_rid, const char *event_id,
                          am_time at)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_int(&a, item_rid);
    am__pg_arg_text(&a, uid);
    am__pg_arg_time(&a, at);
    am__pg_arg_text(&a, event_id);
    long n = 0;
    int rc = am__pg_exec(s, "reinforce item",
                         "UPDATE memory_items SET source_count = source_count + 1, reinforced_at = $3"
                         " WHERE rid = $1 AND user_id = $2 AND NOT EXISTS (SELECT 1 FROM item_sources"
                         " WHERE user_id = $2 AND item_rid = $1 AND event_id = $4)", &a, &n);
    if (rc || n == 0) return rc; /* a source already */
    pg_args x = {0};
    am__pg_arg_text(&x, uid);
    am__pg_arg_int(&x, item_rid);
    am__pg_arg_text(&x, event_id);
    if ((rc = am__pg_exec(s, "item source",
                          "INSERT INTO item_sources(user_id, item_rid, event_id) VALUES($1, $2, $3)",
                          &x, NULL)))
        return rc;
    /* full: the oldest of the latest ones leaves (the first ones stay) */
    pg_args d = {0};
    am__pg_arg_text(&d, uid);
    am__pg_arg_int(&d, item_rid);
    return am__pg_exec(s, "item source",
                       "DELETE FROM item_sources WHERE user_id = $1 AND item_rid = $2 AND seq ="
                       " (SELECT seq FROM item_sources WHERE user_id = $1 AND item_rid = $2"
                       "  ORDER BY seq LIMIT 1 OFFSET " AM__PG_XSTR(AM__ITEM_SOURCES_FIRST) ")"
                       " AND (SELECT count(*) FROM item_sources WHERE user_id = $1 AND item_rid = $2)"
                       " > " AM__PG_XSTR(AM__ITEM_SOURCES_FIRST) " + "
                       AM__PG_XSTR(AM__ITEM_SOURCES_LAST), &d, NULL);
}

static int item_close(am__store *b, const char *uid, const char *vid, am_time at)
{
    if (am__pg_lock_user(PG(b), uid)) return PG(b)->rc;
    pg_args a = {0};
    am__pg_arg_int(&a, at);
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, vid);
    long n = 0;
    int rc = am__pg_exec(PG(b), "close item",
                         "UPDATE memory_items SET superseded_at = $1 WHERE user_id = $2 AND id = $3"
                         " AND superseded_at IS NULL", &a, &n);
    return rc ? rc : n ? AM_OK : AM_NOTFOUND;
}

int am__pg_item_update(am__store *b, const char *uid, const char *vid, int64_t item_rid,
                       const char *event_id, am_time at)
{
    if (!event_id) return item_close(b, uid, vid, at);
    return item_reinforce(b, uid, item_rid, event_id, at);
}

int am__pg_item_sources(am__store *b, const char *uid, int64_t item_rid, am__arena *ar,
                        const char ***ids, size_t *n)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    *ids = NULL;
    *n = 0;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_int(&a, item_rid);
    PGresult *r = am__pg_run(s, "item sources",
                             "SELECT event_id FROM item_sources WHERE user_id = $1 AND item_rid = $2"
                             " ORDER BY seq", &a);
    if (!r) return s->rc;
    int k = PQntuples(r);
    if (k) {
        *ids = am__arena_alloc(ar, (size_t)k * sizeof **ids);
        if (!*ids) { PQclear(r); return AM_NOMEM; }
        for (int i = 0; i < k; i++) (*ids)[i] = am__pg_str(ar, r, i, 0);
        *n = (size_t)k;
    }
    PQclear(r);
    return ar->oom ? AM_NOMEM : AM_OK;
}

int am__pg_items_list(am__store *b, const char *uid, int which, am_time at, am__arena *ar,
                      am__item_row **rows, size_t *n)
{
    if (which == AM__ITEMS_SOURCES)
        return am__item_sources_row(b, uid, (int64_t)at, ar, rows, n, am__pg_item_sources);
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    *rows = NULL;
    *n = 0;
#define PG_ITEM_COLS                                                                             \
    "SELECT m.rid, m.id, m.lineage_id, m.scope, m.kind, m.key, m.text, m.value_json,"           \
    " m.confidence, m.base_score, m.half_life_days, m.valid_from, m.valid_to, m.recorded_at,"   \
    " m.superseded_at, m.status, h.hits, h.last_access, m.tokens,"
#define PG_ITEM_SRC                                                                              \
    " (SELECT string_agg(x.event_id, ',' ORDER BY x.seq) FROM item_sources x"                   \
    "  WHERE x.user_id = m.user_id AND x.item_rid = m.rid)"
#define PG_ITEM_FROM                                                                             \
    ", m.source_count, coalesce(m.reinforced_at, m.recorded_at), m.metadata, m.origin"          \
    " FROM memory_items m"                                                                       \
    " LEFT JOIN item_heat h ON h.user_id = m.user_id AND h.lineage_id = m.lineage_id"
#define PG_ITEM_CURRENT                                                                          \
    " WHERE m.user_id = $1 AND m.superseded_at IS NULL"                                         \
    " AND m.status IN ('active', 'pending_confirm', 'candidate_forget') AND m.valid_from <= $2" \
    " AND (m.valid_to IS NULL OR m.valid_to > $2) ORDER BY m.rid"
#define PG_ITEM_ALL " WHERE m.user_id = $1 AND $2::bigint IS NOT NULL ORDER BY m.lineage_id, m.rid"
#define PG_ITEM_ASOF                                                                             \
    " WHERE m.user_id = $1 AND m.superseded_at IS NULL"                                         \
    " AND m.status IN ('active', 'invalidated', 'pending_confirm', 'candidate_forget')"        \
    " AND m.valid_from <= $2 AND (m.valid_to IS NULL OR m.valid_to > $2) ORDER BY m.rid"
#define PG_ITEM_ARCHIVED                                                                         \
    " WHERE m.user_id = $1 AND m.superseded_at IS NULL AND m.valid_to IS NULL"              \
    " AND m.status = 'archived' AND $2::bigint IS NOT NULL ORDER BY m.rid"
    static const char *const sql[4][2] = {
        {PG_ITEM_COLS PG_ITEM_SRC PG_ITEM_FROM PG_ITEM_CURRENT,
         PG_ITEM_COLS " NULL" PG_ITEM_FROM PG_ITEM_CURRENT},
        {PG_ITEM_COLS PG_ITEM_SRC PG_ITEM_FROM PG_ITEM_ALL,
         PG_ITEM_COLS " NULL" PG_ITEM_FROM PG_ITEM_ALL},
        {PG_ITEM_COLS PG_ITEM_SRC PG_ITEM_FROM PG_ITEM_ASOF,
         PG_ITEM_COLS " NULL" PG_ITEM_FROM PG_ITEM_ASOF},
        {PG_ITEM_COLS PG_ITEM_SRC PG_ITEM_FROM PG_ITEM_ARCHIVED,
         PG_ITEM_COLS " NULL" PG_ITEM_FROM PG_ITEM_ARCHIVED},
    };
    int no_src = (which & AM__ITEMS_NO_SOURCES) != 0;
    int no_heat = (which & AM__ITEMS_NO_HEAT) != 0;
    which &= ~(AM__ITEMS_NO_SOURCES | AM__ITEMS_NO_HEAT);
    if (which < 0 || which > 3) return AM_MISUSE;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_int(&a, at);
    PGresult *r = am__pg_run(s, "items", sql[which][no_src], &a);
    if (!r) return s->rc;
    int k = PQntuples(r), rc = AM_OK;
    *rows = am__arena_alloc(ar, ((size_t)k + 1) * sizeof **rows);
    if (!*rows) { PQclear(r); return AM_NOMEM; }
    for (int i = 0; i < k && !rc; i++) {
        am__item_row *it = &(*rows)[i];
        it->rid = am__pg_i64(r, i, 0);
        it->id = am__pg_str(ar, r, i, 1);
        it->lineage_id = am__pg_str(ar, r, i, 2);
        it->scope = am__pg_str(ar, r, i, 3);
        it->kind = am__pg_str(ar, r, i, 4);
        it->key = am__pg_str(ar, r, i, 5);
        it->text = am__pg_str(ar, r, i, 6);
        it->value_json = am__pg_str(ar, r, i, 7);
        it->confidence = am__pg_real(r, i, 8);
        it->base_score = am__pg_real(r, i, 9);
        it->half_life_days = am__pg_real(r, i, 10);
        it->valid_from = am__pg_time(r, i, 11);
        it->valid_to = am__pg_time(r, i, 12);
        it->recorded_at = am__pg_time(r, i, 13);
        it->superseded_at = am__pg_time(r, i, 14);
        it->status = am__pg_str(ar, r, i, 15);
        it->hits = no_heat ? 0 : (long)am__pg_i64(r, i, 16);
        it->last_access = no_heat ? AM_TIME_NONE : am__pg_time(r, i, 17);
        rc = am__pg_bytes(ar, r, i, 18, &it->tokens, &it->tokens_len);
        if (it->tokens_len == 0) it->tokens = NULL;
        it->source_count = (long)am__pg_i64(r, i, 20);
        it->reinforced_at = am__pg_time(r, i, 21);
        it->metadata = am__pg_str(ar, r, i, 22);
        it->origin = am__pg_str(ar, r, i, 23);
        /* provenance: event ids (ULIDs, no commas) joined by ',' */
        char *src = am__pg_str(ar, r, i, 19);
        if (src && *src) {
            size_t m = 1;
            for (const char *p = src; *p; p++) m += *p == ',';
            it->sources = am__arena_alloc(ar, m * sizeof *it->sources);
            if (!it->sources) { rc = AM_NOMEM; break; }
            for (char *cur = src;;) {
                char *comma = strchr(cur, ',');
                if (comma) *comma = 0;
                it->sources[it->n_sources++] = cur;
                if (!comma) break;
                cur = comma + 1;
            }
        }
    }
    *n = (size_t)k;
    PQclear(r);
    if (rc) return rc;
    return ar->oom ? AM_NOMEM : AM_OK;
}

int am__pg_item_heat(am__store *b, const char *uid, const char *lineage, int add, long hits,
                     am_time at)
{
    if (am__pg_lock_user(PG(b), uid)) return PG(b)->rc;
    pg_args a = {0};
    am__pg_arg_int(&a, hits);
    am__pg_arg_time(&a, at);
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, lineage);
    return am__pg_exec(PG(b), "item heat",
                       add ? "UPDATE item_heat SET hits = hits + $1,"
                             " last_access = greatest(coalesce(last_access, $2), $2)"
                             " WHERE user_id = $3 AND lineage_id = $4"
                           : "UPDATE item_heat SET hits = $1, last_access = $2"
                             " WHERE user_id = $3 AND lineage_id = $4",
                       &a, NULL);
}

/* ------------------------------------------------------------ audit */

int am__pg_audit(am__store *b, const char *uid, am_time at, const char *op,
                 const char *object_type, const char *object_id, const char *detail)
{
    if (am__pg_lock_user(PG(b), uid)) return PG(b)->rc;
    pg_args a = {0};
    am__pg_arg_int(&a, at);
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, op);
    am__pg_arg_text(&a, object_type);
    am__pg_arg_text(&a, object_id);
    am__pg_arg_text(&a, detail);
    return am__pg_exec(PG(b), "audit",
                       "INSERT INTO audit_log(at, user_id, op, object_type, object_id, detail)"
                       " VALUES($1, $2, $3, $4, $5, $6)", &a, NULL);
}

int am__pg_audit_page(am__store *b, const char *uid, int64_t after_seq, int limit, am__arena *ar,
                      am__audit_row **rows, size_t *n)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    *rows = NULL;
    *n = 0;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_int(&a, after_seq);
    am__pg_arg_int(&a, limit);
    PGresult *r = am__pg_run(s, "audit",
                             "SELECT seq, at, op, object_type, object_id, detail FROM audit_log"
                             " WHERE user_id = $1 AND seq > $2 ORDER BY seq LIMIT $3", &a);
    if (!r) return s->rc;
    int k = PQntuples(r);
    if (!(*rows = am__pg_rows(ar, r, sizeof **rows))) return AM_NOMEM;
    for (int i = 0; i < k; i++) {
        am__audit_row *x = &(*rows)[i];
        x->seq = am__pg_i64(r, i, 0);
        x->at = am__pg_time(r, i, 1);
        x->op = am__pg_str(ar, r, i, 2);
        x->object_type = am__pg_str(ar, r, i, 3);
        x->object_id = am__pg_str(ar, r, i, 4);
        x->detail = am__pg_str(ar, r, i, 5);
    }
    return am__pg_rows_done(ar, r, n);
}

int am__pg_log_put(am__store *b, const char *uid, const am__audit_row *a, am__outbox_row *o)
{
    if (o && !a) return am__pg_outbox_put(b, o);
    if (!a || o) return AM_MISUSE;
    return am__pg_audit(b, uid, a->at, a->op, a->object_type, a->object_id, a->detail);
}

int am__pg_log_page(am__store *b, const char *uid, int64_t after, size_t limit, am__arena *ar,
                    am__audit_row **audit, am__outbox_row **outbox, size_t *n, int64_t *seqs)
{
    if (outbox && !audit) return am__pg_outbox_since(b, uid, after, limit, ar, outbox, n, seqs);
    if (!audit && !outbox) {
        if (!seqs) return AM_MISUSE;
        am__pg_outbox_committed(b, &seqs[0], &seqs[1]);
        return AM_OK;
    }
    if (outbox) return AM_MISUSE;
    return am__pg_audit_page(b, uid, after, (int)limit, ar, audit, n);
}

/* ------------------------------------------------------------ outbox
 *
 * seq comes from one sequence: increasing and never reused.  A write
 * transaction's rows are queued and inserted by its commit under the
 * outbox order's lock (pg_store.c), in the COMMIT's round trip, so a later
 * commit's seqs are higher than an earlier one's and a reader resuming
 * from a seq misses nothing, while the lock is held for that round trip
 * only (docs/SCALING.md). */

#define OUTBOX_TRIM_STEP 4   /* rows past retention a put deletes at most */
#define OUTBOX_TRIM_EVERY 32 /* puts of a connection per trim */

void am__pg_outbox_note(pg_store *s, const PGresult *r)
{
    for (int i = 0; i < PQntuples(r); i++) {
        int64_t seq = am__pg_i64(r, i, 0);
        if (!s->ob_lo || seq < s->ob_lo) s->ob_lo = seq;
        if (seq > s->ob_hi) s->ob_hi = seq;
    }
}

/* One memory event's row, its seq noted when the result is read. */
static int outbox_insert(pg_store *s, const am__outbox_row *o)
{
    pg_args a = {0};
    am__pg_arg_int(&a, o->at);
    am__pg_arg_text(&a, o->user_id);
    am__pg_arg_text(&a, o->type);
    am__pg_arg_text(&a, o->memory_id);
    am__pg_arg_text(&a, o->task_id);
    am__pg_arg_text(&a, o->event_id);
    am__pg_arg_text(&a, o->key);
    am__pg_arg_text(&a, o->detail);
    am__pg_arg_text(&a, o->other_user);
    am__pg_arg_time(&a, o->occurred_at);
    return am__pg_defer_outbox(s, "memory event",
                               "INSERT INTO memory_events(at, user_id, type, memory_id, task_id,"
                               " event_id, key, detail, other_user, occurred_at)"
                               " VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING seq",
                               &a);
}

static char *ob_dup(pg_store *s, const char *v, int *oom)
{
    if (!v) return NULL;
    char *c = am__arena_strdup(&s->ob_ar, v);
    if (!c) *oom = 1;
    return c;
}

/* In a write transaction the row is queued and written by the commit
 * (am__pg_outbox_flush), which numbers it: o->seq stays 0. */
int am__pg_outbox_put(am__store *b, am__outbox_row *o)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, o->user_id)) return s->rc;
    o->seq = 0;
    if (s->txn != PG_TXN_WRITE) return outbox_insert(s, o);
    if (s->obq_n == s->obq_cap) {
        size_t cap = s->obq_cap ? 2 * s->obq_cap : 16;
        am__outbox_row *q = am__arena_alloc(&s->ob_ar, cap * sizeof *q);
        if (!q) return am__pg_fail(s, AM_NOMEM, "postgres: memory event: out of memory");
        if (s->obq_n) memcpy(q, s->obq, s->obq_n * sizeof *q);
        s->obq = q;
        s->obq_cap = cap;
    }
    int oom = 0;
    am__outbox_row c = *o;
    c.user_id = ob_dup(s, o->user_id, &oom);
    c.type = ob_dup(s, o->type, &oom);
    c.memory_id = ob_dup(s, o->memory_id, &oom);
    c.task_id = ob_dup(s, o->task_id, &oom);
    c.event_id = ob_dup(s, o->event_id, &oom);
    c.key = ob_dup(s, o->key, &oom);
    c.detail = ob_dup(s, o->detail, &oom);
    c.other_user = ob_dup(s, o->other_user, &oom);
    if (oom) return am__pg_fail(s, AM_NOMEM, "postgres: memory event: out of memory");
    s->obq[s->obq_n++] = c;
    return AM_OK;
}

int am__pg_outbox_flush(pg_store *s)
{
    if (!s->obq_n) return AM_OK;
    int rc = am__pg_lock_outbox(s);
    int trim = 0;
    for (size_t i = 0; i < s->obq_n && !rc; i++) {
        rc = outbox_insert(s, &s->obq[i]);
        /* retention: every OUTBOX_TRIM_EVERY-th put of the connection trims as
         * many rows as that many puts of the SQLite store would (a trim reads
         * every partition's newest and oldest seq: a few ms, not per event) */
        if ((s->ob_max_rows || s->ob_max_age_ms) && s->ob_puts++ % OUTBOX_TRIM_EVERY == 0)
            trim = 1;
    }
    am_time at = s->obq[s->obq_n - 1].at;
    if (!rc && trim)
        rc = am__pg_outbox_trim(&s->base, s->ob_max_age_ms ? at - s->ob_max_age_ms : AM_TIME_NONE,
                                s->ob_max_rows, OUTBOX_TRIM_STEP * OUTBOX_TRIM_EVERY);
    return rc;
}

void am__pg_outbox_committed(am__store *b, int64_t *lo, int64_t *hi)
{
    pg_store *s = PG(b);
    *lo = s->ob_done_lo;
    *hi = s->ob_done_hi;
    s->ob_done_lo = s->ob_done_hi = 0;
}

#define OUTBOX_COLS "seq, at, user_id, type, memory_id, task_id, event_id, key, detail," \
                    " other_user, occurred_at"

int am__pg_outbox_since(am__store *b, const char *uid, int64_t after, size_t limit,
                        am__arena *ar, am__outbox_row **rows, size_t *n, int64_t *oldest)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    *rows = NULL;
    *n = 0;
    if (oldest) {
        PGresult *r = am__pg_run(s, "memory events",
                                 "SELECT coalesce(min(seq), 0) FROM memory_events", NULL);
        if (!r) return s->rc;
        *oldest = am__pg_i64(r, 0, 0);
        PQclear(r);
    }
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_int(&a, after);
    am__pg_arg_int(&a, limit > (size_t)INT64_MAX ? INT64_MAX : (int64_t)limit);
    PGresult *r = am__pg_run(s, "memory events",
                             uid ? "SELECT " OUTBOX_COLS " FROM memory_events WHERE user_id = $1"
                                   " AND seq > $2 ORDER BY seq LIMIT $3"
                                 : "SELECT " OUTBOX_COLS " FROM memory_events WHERE $1::text IS NULL"
                                   " AND seq > $2 ORDER BY seq LIMIT $3", &a);
    if (!r) return s->rc;
    int k = PQntuples(r);
    if (!(*rows = am__pg_rows(ar, r, sizeof **rows))) return AM_NOMEM;
    for (int i = 0; i < k; i++) {
        am__outbox_row *o = &(*rows)[i];
        o->seq = am__pg_i64(r, i, 0);
        o->at = am__pg_time(r, i, 1);
        o->user_id = am__pg_str(ar, r, i, 2);
        o->type = am__pg_str(ar, r, i, 3);
        o->memory_id = am__pg_str(ar, r, i, 4);
        o->task_id = am__pg_str(ar, r, i, 5);
        o->event_id = am__pg_str(ar, r, i, 6);
        o->key = am__pg_str(ar, r, i, 7);
        o->detail = am__pg_str(ar, r, i, 8);
        o->other_user = am__pg_str(ar, r, i, 9);
        o->occurred_at = am__pg_time(r, i, 10);
    }
    return am__pg_rows_done(ar, r, n);
}

int am__pg_outbox_trim(am__store *b, am_time before, int64_t max_rows, int limit)
{
    pg_store *s = PG(b);
    int rc = AM_OK;
    if (max_rows > 0) {
        pg_args a = {0};
        am__pg_arg_int(&a, max_rows);
        if (limit > 0) am__pg_arg_int(&a, limit);
        else am__pg_arg_text(&a, NULL); /* LIMIT NULL: all */
        rc = am__pg_exec(s, "trim memory events",
                         "DELETE FROM memory_events WHERE seq IN (SELECT seq FROM memory_events"
                         " WHERE seq <= (SELECT max(seq) FROM memory_events) - $1"
                         " ORDER BY seq LIMIT $2::bigint)", &a, NULL);
    }
    if (!rc && before != AM_TIME_NONE) {
        pg_args a = {0};
        am__pg_arg_int(&a, before);
        if (limit > 0) am__pg_arg_int(&a, limit);
        else am__pg_arg_text(&a, NULL);
        rc = am__pg_exec(s, "trim memory events",
                         "DELETE FROM memory_events WHERE seq IN (SELECT seq FROM memory_events"
                         " ORDER BY seq LIMIT $2::bigint) AND at < $1", &a, NULL);
    }
    return rc;
}

/* ------------------------------------------------------------ workspace */

int am__pg_workspace_list(am__store *b, const char *uid, const char *task_id, am__arena *ar,
                          am__workspace_row **rows, size_t *n)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    *rows = NULL;
    *n = 0;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, task_id);
    PGresult *r = am__pg_run(s, "workspace",
                             "SELECT agent_id, doing, done, next, version, updated_at"
                             " FROM task_workspace WHERE user_id = $1 AND task_id = $2"
                             " ORDER BY agent_id", &a);
    if (!r) return s->rc;
    int k = PQntuples(r);
    if (!(*rows = am__pg_rows(ar, r, sizeof **rows))) return AM_NOMEM;
    for (int i = 0; i < k; i++) {
        am__workspace_row *w = &(*rows)[i];
        w->agent_id = am__pg_str(ar, r, i, 0);
        w->doing = am__pg_str(ar, r, i, 1);
        w->done = am__pg_str(ar, r, i, 2);
        w->next = am__pg_str(ar, r, i, 3);
        w->version = (long)am__pg_i64(r, i, 4);
        w->updated_at = am__pg_time(r, i, 5);
    }
    return am__pg_rows_done(ar, r, n);
}

/* (store.h workspace_put AM__WS_AS_GIVEN) */
static int workspace_set(am__store *b, const char *uid, const char *task_id,
                         const am__workspace_row *w)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, task_id);
    am__pg_arg_text(&a, w->agent_id);
    am__pg_arg_text(&a, w->doing ? w->doing : "");
    am__pg_arg_text(&a, w->done ? w->done : "");
    am__pg_arg_text(&a, w->next ? w->next : "");
    am__pg_arg_int(&a, w->version);
    am__pg_arg_int(&a, w->updated_at);
    return am__pg_exec(s, "workspace",
                       "INSERT INTO task_workspace(user_id, task_id, agent_id, doing, done, next,"
                       " version, updated_at) VALUES($1, $2, $3, $4, $5, $6, $7, $8)"
                       " ON CONFLICT(user_id, task_id, agent_id) DO UPDATE SET doing = $4,"
                       " done = $5, next = $6, version = $7, updated_at = $8",
                       &a, NULL);
}

int am__pg_workspace_put(am__store *b, const char *uid, const char *task_id,
                         const am__workspace_row *w, int how, am_time at, long *version)
{
    if (how == AM__WS_AS_GIVEN) return workspace_set(b, uid, task_id, w);
    if (how != AM__WS_COUNT) return AM_MISUSE;
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, task_id);
    am__pg_arg_text(&a, w->agent_id);
    am__pg_arg_text(&a, w->doing);
    am__pg_arg_text(&a, w->done);
    am__pg_arg_text(&a, w->next);
    am__pg_arg_int(&a, at);
    PGresult *r = am__pg_run(s, "workspace",
                             "INSERT INTO task_workspace AS t(user_id, task_id, agent_id, doing, done,"
                             " next, version, updated_at) VALUES($1, $2, $3, coalesce($4, ''),"
                             " coalesce($5, ''), coalesce($6, ''), 1, $7)"
                             " ON CONFLICT(user_id, task_id, agent_id) DO UPDATE SET"
                             " doing = coalesce($4, t.doing), done = coalesce($5, t.done),"
                             " next = coalesce($6, t.next), version = t.version + 1, updated_at = $7"
                             " RETURNING version", &a);
    if (!r) return s->rc;
    *version = (long)am__pg_i64(r, 0, 0);
    PQclear(r);
    return AM_OK;
}

/* ------------------------------------------------------------ maintenance */

int am__pg_users_list(am__store *b, const am__user_query *q, am__arena *ar, const char ***uids,
                      size_t *n)
{
    if (q->kind == AM__USERS_AFTER) return am__pg_users_after(b, q->after, q->limit, ar, uids, n);
    if (q->kind != AM__USERS_MATCHING) return AM_MISUSE;
    return am__pg_pack_users(b, q->role, q->region, q->channel, ar, uids, n);
}

int am__pg_users_after(am__store *b, const char *after, int limit, am__arena *ar,
                       const char ***uids, size_t *n)
{
    pg_store *s = PG(b);
    *uids = NULL;
    *n = 0;
    pg_args a = {0};
    am__pg_arg_text(&a, after ? after : "");
    am__pg_arg_int(&a, limit);
    PGresult *r = am__pg_run(s, "users",
                             "SELECT user_id FROM users u WHERE user_id COLLATE \"C\" > $1 AND NOT EXISTS"
                             " (SELECT 1 FROM forget_jobs f WHERE f.user_id = u.user_id"
                             " AND f.level = 'user') ORDER BY user_id COLLATE \"C\" LIMIT $2",
                             &a);
    if (!r) return s->rc;
    int k = PQntuples(r);
    if (!(*uids = am__pg_rows(ar, r, sizeof **uids))) return AM_NOMEM;
    for (int i = 0; i < k; i++)
        if (!((*uids)[i] = am__pg_str(ar, r, i, 0))) {
            PQclear(r);
            return AM_NOMEM;
        }
    return am__pg_rows_done(ar, r, n);
}

