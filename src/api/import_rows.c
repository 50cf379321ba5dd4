/* SPDX-License-Identifier: Apache-2.0 */
/*
 * import_rows.c -- an import's checked rows into the store, in one
 * transaction (api/import_int.h; docs/IMPORT.md).  The rows a write would
 * make (an event's token set and index document, mem0's order) are
 * domain/import_rows.c's.
 *
 * An export's rows are put back as they were, through the store's own
 * operations (event_put with the export's ids, zones and times, its
 * entities, item_insert with every version's ids, times and provenance,
 * item_heat, task_put and task_change_add, workspace_put as given, link_put,
 * audit), so the store exports the same document again.  What the export
 * does not carry is made as a write makes it: an event's language, token
 * set and index document, the times of its date entities (extracted again
 * from its content at its time); its content goes through redaction as a
 * write's does (an export's placeholders stay, plain PII goes to the
 * vault, secrets are dropped).
 */
#include <stdio.h>
#include <string.h>

#include "domain/records.h"
#include "api/import_int.h"
#include "write/perceive/perceive.h"
#include "write/semantic/merge.h"
#include "text/analyze.h"
#include "text/redact.h"

#define AM__SOURCE_IMPORT "import"

typedef struct writer {
    am_db *db;
    am__store *s;
    am__arena *ar;
    const char *uid;
    int merge;
    am_time now;
    am_import_info *info;
    am_progress_fn progress; /* may be NULL */
    void *progress_ctx;
    size_t done, total;      /* entries gone through (added or skipped), of all */
} writer;

/* One entry gone through: progress every AM_IMPORT_PROGRESS_EVERY */
static void tick(writer *w)
{
    w->done++;
    if (w->progress && w->done % AM_IMPORT_PROGRESS_EVERY == 0)
        w->progress(w->progress_ctx, w->done, w->total);
}

/* The end of a kind of entries (events, tasks, memories) */
static void kind_done(writer *w)
{
    if (w->progress && w->done % AM_IMPORT_PROGRESS_EVERY != 0)
        w->progress(w->progress_ctx, w->done, w->total);
}

static int put_event(writer *w, const am__imp_event *in, size_t i)
{
    am_db *db = w->db;
    am__event_row ev = in->row;
    if (w->merge) {
        am__event_row have;
        int rc = w->s->vt->events.event_get(w->s, w->uid, AM__EVENT_BY_ID, ev.id, w->ar, &have);
        if (rc == AM_OK) {
            w->info->events_skipped++;
            return AM_OK;
        }
        if (rc != AM_NOTFOUND) return am__db_store_error(db, rc, "import");
    }
    am__redact_policy policy;
    am__db_redact_policy(db, &policy);
    am__redact_result red;
    memset(&red, 0, sizeof red);
    int rc = am__redact(&db->alloc, ev.content, strlen(ev.content), &policy, &red);
    if (rc) return am__db_error(db, rc, "import: events[%zu]: redaction failed", i);
    am__buf doc;
    am__buf_init(&doc, &db->alloc);
    am__entity_row *ents;
    int analysed = 1;
    rc = am__import_event_row(db->text, w->ar, in, red.text, w->uid, w->now, &ev, &ents, &doc,
                              &analysed);
    if (rc) {
        rc = analysed ? am__db_error(db, AM_NOMEM, "import: out of memory")
                      : am__db_error(db, rc, "import: events[%zu]: content cannot be analysed", i);
        goto out;
    }
    if ((rc = w->s->vt->events.event_put(w->s, &ev))) {
        rc = am__db_error(db, AM_INVALID,
                          "import: events[%zu].id: event %s cannot be stored (another user of "
                          "this store has that id?): %s", i, ev.id, w->s->vt->errmsg(w->s));
        goto out;
    }
    for (size_t k = 0; k < in->n_entities && !rc; k++)
        rc = am__store_entity_put(w->s, w->uid, ev.rid, &ents[k]);
    for (size_t k = 0; k < red.n && !rc; k++) {
        if (!red.items[k].original) continue;
        am__pii_row p = {red.items[k].placeholder, am__pii_type_name(red.items[k].type),
                         red.items[k].original};
        rc = am__store_pii_put(w->s, w->uid, ev.rid, &p);
    }
    if (rc) rc = am__db_store_error(db, rc, "import");
    else w->info->events++;
out:
    am__buf_free(&doc);
    am__redact_result_free(&db->alloc, &red);
    return rc;
}

/* The zone of a task's round calendar: that of the event that made it
 * (its first history row's), else UTC. */
static int task_zone(const am__imp_doc *doc, const am__imp_task *t)
{
    const char *ev = t->n_history ? t->history[0].event_id : NULL;
    for (size_t i = 0; ev && i < doc->n_events; i++)
        if (strcmp(doc->events[i].row.id, ev) == 0) return doc->events[i].row.tz_minutes;
    return 0;
}

static int put_task(writer *w, const am__imp_doc *doc, const am__imp_task *t, int *skipped)
{
    am__store *s = w->s;
    *skipped = 0;
    if (w->merge) {
        am__task_row have;
        int rc = am__store_task_get(s, w->uid, t->row.task_id, w->ar, &have);
        if (rc == AM_OK) {
            *skipped = 1;
            w->info->tasks_skipped++;
            return AM_OK;
        }
        if (rc != AM_NOTFOUND) return rc;
    }
    am__task_row row = t->row;
    row.round_tz = task_zone(doc, t);
    int rc = s->vt->tasks.task_put(s, w->uid, &row);
    for (size_t k = 0; k < t->n_history && !rc; k++)
        rc = am__store_task_change_add(s, w->uid, &t->history[k]);
    if (!rc) w->info->tasks++;
    return rc;
}

/* 1 when lineage is in have[0..n) */
static int lineage_in(const am__item_row *have, size_t n, const char *lineage)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(have[i].lineage_id, lineage) == 0) return 1;
    return 0;
}

static int put_items(writer *w, const am__imp_doc *doc)
{
    am__store *s = w->s;
    am__item_row *have = NULL;
    size_t nhave = 0;
    int rc;
    if (w->merge && (rc = s->vt->items.items_list(
                         s, w->uid, AM__ITEMS_ALL | AM__ITEMS_NO_SOURCES | AM__ITEMS_NO_HEAT, 0,
                         w->ar, &have, &nhave)))
        return rc;
    for (size_t i = 0; i < doc->n_items; i++) {
        am__item_row it = doc->items[i].row;
        if (lineage_in(have, nhave, it.lineage_id)) {
            w->info->memories_skipped++;
            tick(w);
            continue;
        }
        uint64_t set[AM__ITEM_SET];
        size_t nt;
        unsigned char *blob = am__arena_alloc(w->ar, AM__TOKBLOB_MAX);
        if (!blob) return AM_NOMEM;
        if ((rc = am__text_item_set(w->db->text, it.text, it.key, set, &nt))) return rc;
        it.tokens = blob;
        it.tokens_len = am__token_blob_put(set, nt, blob);
        if ((rc = s->vt->items.item_insert(s, w->uid, &it))) return rc;
        /* the heat is the lineage's: set at its first version */
        int first = 1;
        for (size_t k = 0; k < i && first; k++)
            first = strcmp(doc->items[k].row.lineage_id, it.lineage_id) != 0;
        if (first && (it.hits || it.last_access != AM_TIME_NONE) &&
            (rc = s->vt->items.item_heat(s, w->uid, it.lineage_id, 0, it.hits, it.last_access)))
            return rc;
        w->info->memories++;
        tick(w);
    }
    if (doc->n_items) kind_done(w);
    return AM_OK;
}

static int put_links(writer *w, const am__imp_doc *doc)
{
    for (size_t i = 0; i < doc->n_links; i++) {
        char owner[AM_ID_MAX + 1];
        const am__link_row *l = &doc->links[i];
        int rc = w->s->vt->users.link_get(w->s, l->channel, l->external_id, AM__LINK_USER, owner);
        if (rc == AM_OK && strcmp(owner, w->uid) == 0) continue;
        if (rc == AM_OK)
            return am__db_error(w->db, AM_INVALID,
                                "import: identities[%zu]: (%s, %s) is linked to another user of "
                                "this store", i, l->channel, l->external_id);
        if (rc != AM_NOTFOUND) return am__db_store_error(w->db, rc, "import");
        if ((rc = w->s->vt->users.link_put(w->s, l->channel, l->external_id, w->uid, w->now)))
            return am__db_store_error(w->db, rc, "import");
    }
    return AM_OK;
}

static int write_doc(writer *w, const am__imp_doc *doc)
{
    am__store *s = w->s;
    am_db *db = w->db;
    long held[3] = {0, 0, 0};
    int rc = s->vt->users.user_stat(s, w->uid, held);
    if (rc) return am__db_store_error(db, rc, "import");
    long events = held[0], items = held[1], tasks = held[2];
    if ((events || items || tasks) && !w->merge)
        return am__db_error(db, AM_DENIED,
                            "import: user %s holds %ld %s, %ld %s and %ld %s already; "
                            "import into a user without data, or merge", w->uid, events,
                            events == 1 ? "event" : "events", items,
                            items == 1 ? "memory" : "memories", tasks, tasks == 1 ? "task" : "tasks");
    if ((rc = am__store_user_ensure(s, w->uid, w->now)))
        return am__db_store_error(db, rc, "import");
    if ((rc = put_links(w, doc))) return rc;
    for (size_t i = 0; i < doc->n_events; i++) {
        if ((rc = put_event(w, &doc->events[i], i))) return rc;
        tick(w);
    }
    if (doc->n_events) kind_done(w);
    for (size_t i = 0; i < doc->n_tasks; i++) {
        int skipped;
        if ((rc = put_task(w, doc, &doc->tasks[i], &skipped)))
            return am__db_store_error(db, rc, "import");
        tick(w);
        for (size_t k = 0; k < doc->n_workspaces && !skipped; k++) {
            const am__imp_workspace *ws = &doc->workspaces[k];
            if (strcmp(ws->task_id, doc->tasks[i].row.task_id) != 0) continue;
            for (size_t e = 0; e < ws->n && !rc; e++)
                rc = am__store_workspace_set(s, w->uid, ws->task_id, &ws->rows[e]);
            if (rc) return am__db_store_error(db, rc, "import");
        }
    }
    if (doc->n_tasks) kind_done(w);
    if ((rc = put_items(w, doc)))
        return rc == AM_NOMEM ? am__db_error(db, rc, "import: out of memory")
                              : am__db_store_error(db, rc, "import");
    /* the rule packs applied (a merge keeps a pack the user has) */
    am__pack_row *have = NULL;
    size_t n_have = 0;
    if (doc->n_packs && (rc = am__pack_list(s, w->uid, w->ar, &have, &n_have)))
        return am__db_store_error(db, rc, "import");
    for (size_t i = 0; i < doc->n_packs; i++) {
        size_t k = 0;
        while (k < n_have && strcmp(have[k].name, doc->packs[i].name) != 0) k++;
        if (k < n_have) continue;
        if ((rc = am__pack_put(s, w->uid, &doc->packs[i])))
            return am__db_store_error(db, rc, "import");
    }
    /* the trail as it was (not merged into another's), then the import */
    for (size_t i = 0; i < doc->n_audit && !w->merge; i++) {
        const am__audit_row *a = &doc->audit[i];
        if ((rc =
                 am__store_audit(s, w->uid, a->at, a->op, a->object_type, a->object_id, a->detail)))
            return am__db_store_error(db, rc, "import");
    }
    char detail[160];
    snprintf(detail, sizeof detail, "%ld events, %ld memories, %ld tasks%s", w->info->events,
             w->info->memories, w->info->tasks, w->merge ? " (merge)" : "");
    if ((rc = am__store_audit(s, w->uid, w->now, "user.import", "user", NULL, detail)))
        return am__db_store_error(db, rc, "import");
    return AM_OK;
}

/* begin, the user's lock and gate, body, commit (rollback on error) */
typedef int (*body_fn)(writer *w, const void *ctx);
static int in_transaction(writer *w, body_fn body, const void *ctx)
{
    am__store *s = w->s;
    am_db *db = w->db;
    int rc = am__db_user_gate(db, "import", w->uid, AM_DENIED);
    if (rc) return rc;
    if ((rc = am__store_begin(s))) return am__db_store_error(db, rc, "import");
    if ((rc = am__touch_lock_writers(db, &w->uid, 1)) || (rc = am__touch_flush(db))) {
        am__store_rollback(s);
        return am__db_store_error(db, rc, "import");
    }
    am__dbcache_note(db->cache, w->uid);
    rc = body(w, ctx);
    if (!rc && (rc = am__store_commit(s))) rc = am__db_store_error(db, rc, "import");
    if (rc) {
        am__store_rollback(s);
        am_import_info *info = w->info;
        char user[AM_ID_MAX + 1];
        snprintf(user, sizeof user, "%s", info->user_id);
        memset(info, 0, sizeof *info);
        snprintf(info->user_id, sizeof info->user_id, "%s", user);
        return rc;
    }
    am__touch_committed(db);
    am__dbcache_flush(db->cache);
    if (w->progress) w->progress(w->progress_ctx, w->total, w->total);
    return AM_OK;
}

/* A writer for user: opt's progress (opt may be NULL) over total entries */
static writer writer_make(am_db *db, am__arena *ar, const char *user, int merge,
                          const am_import_options *opt, size_t total, am_import_info *info)
{
    writer w = {db, db->store, ar, user, merge, am__db_now(db), info, NULL, NULL, 0, total};
    if (opt) {
        w.progress = opt->progress;
        w.progress_ctx = opt->progress_ctx;
    }
    if (w.progress) w.progress(w.progress_ctx, 0, total);
    snprintf(info->user_id, sizeof info->user_id, "%s", user);
    return w;
}

static int doc_body(writer *w, const void *ctx) { return write_doc(w, ctx); }

int am__import_write(am_db *db, am__arena *ar, const am__imp_doc *doc,
                     const am_import_options *opt, am_import_info *info)
{
    int merge = opt && (opt->flags & AM_IMPORT_MERGE);
    writer w = writer_make(db, ar, doc->user, merge, opt,
                           doc->n_events + doc->n_tasks + doc->n_items, info);
    return in_transaction(&w, doc_body, doc);
}

typedef struct mem0_batch {
    const am__imp_mem0 *rows;
    size_t n;
} mem0_batch;

static int mem0_body(writer *w, const void *ctx)
{
    const mem0_batch *batch = ctx;
    am_db *db = w->db;
    int rc = am__store_user_ensure(w->s, w->uid, w->now);
    if (rc) return am__db_store_error(db, rc, "import");
    /* in the order they were made (stable; undated ones last, at now), so
     * a later value of an attribute supersedes an earlier one */
    size_t *order = batch->n ? am__arena_alloc(w->ar, batch->n * sizeof *order) : NULL;
    if (batch->n && !order) return am__db_error(db, AM_NOMEM, "import: out of memory");
    am__import_mem0_order(batch->rows, batch->n, w->now, order);
    for (size_t j = 0; j < batch->n; j++) {
        size_t i = order[j];
        const am__imp_mem0 *m = &batch->rows[i];
        am_memory_input in = {0};
        in.user_id = w->uid;
        in.text = m->text;
        am__statement st;
        const char *extra = am__import_mem0_extra(&db->alloc, w->ar, m);
        if (!extra) return am__db_error(db, AM_NOMEM, "import: out of memory");
        if ((rc = am__memory_statement(db, &in, w->ar, AM__SOURCE_IMPORT, extra, &st)))
            return am__db_error(db, rc, "import: memories[%zu]: %s", i,
                                rc == AM_NOMEM ? "out of memory" : "cannot be read");
        am_time at = m->created_at != AM_TIME_NONE ? m->created_at : w->now;
        /* recorded (and valid) from when mem0 made it */
        am__wctx wc = {w->s, db->text, &db->ulid, &db->cfg.rank, w->ar, w->uid, at, NULL, 0, NULL};
        int outcome = 0;
        char lineage[27];
        if ((rc = am__semantic_state(&wc, &st, &outcome, lineage)))
            return am__db_store_error(db, rc, "import");
        w->info->memories++;
        tick(w);
    }
    if (batch->n) kind_done(w);
    char detail[96];
    snprintf(detail, sizeof detail, "mem0: %zu memories", batch->n);
    if ((rc = am__store_audit(w->s, w->uid, w->now, "user.import", "user", NULL, detail)))
        return am__db_store_error(db, rc, "import");
    return AM_OK;
}

int am__import_mem0_write(am_db *db, am__arena *ar, const char *user, const am__imp_mem0 *rows,
                          size_t n, const am_import_options *opt, am_import_info *info)
{
    writer w = writer_make(db, ar, user, 1, opt, n, info);
    mem0_batch b = {rows, n};
    return in_transaction(&w, mem0_body, &b);
}
