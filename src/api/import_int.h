/* SPDX-License-Identifier: Apache-2.0 */
/*
 * import_int.h -- an import's rows, read and checked whole (api/import.c)
 * before any is written (api/import_rows.c: one transaction).  Strings
 * live in the caller's arena.
 */
#ifndef AM_IMPORT_INT_H
#define AM_IMPORT_INT_H

#include "api/db_int.h"
#include "store/store.h"

struct am__statement;

typedef struct am__imp_event {
    am__event_row row;         /* id, agent, ..., content, occurred_at, tz */
    am__entity_row *entities;  /* type, surface, norm (times found again) */
    size_t n_entities;
} am__imp_event;

typedef struct am__imp_task {
    am__task_row row;
    am__task_change_row *history;
    size_t n_history;
} am__imp_task;

typedef struct am__imp_item {
    am__item_row row;          /* every field, hits and last_access the heat */
} am__imp_item;

typedef struct am__imp_workspace {
    const char *task_id;
    am__workspace_row *rows;
    size_t n;
} am__imp_workspace;

typedef struct am__imp_doc {
    const char *user;
    am__link_row *links;
    size_t n_links;
    am__imp_event *events;
    size_t n_events;
    am__imp_task *tasks;
    size_t n_tasks;
    am__imp_workspace *workspaces;
    size_t n_workspaces;
    am__imp_item *items;
    size_t n_items;
    am__audit_row *audit;
    size_t n_audit;
    am__pack_row *packs;       /* the rule packs applied (their items are memories) */
    size_t n_packs;
} am__imp_doc;

/* One of mem0's memories. */
typedef struct am__imp_mem0 {
    const char *id, *text, *metadata_json, *updated_at; /* NULL when absent */
    am_time created_at;                                  /* AM_TIME_NONE: now */
} am__imp_mem0;

/* The document into doc->user, in one transaction (merge: what the user
 * lacks only); on error nothing is written and am_errmsg says why.
 * opt->progress (opt may be NULL) as am_import_ex says. */
int am__import_write(am_db *db, am__arena *ar, const am__imp_doc *doc,
                     const am_import_options *opt, am_import_info *info);
/* mem0's memories into user, in one transaction, each merged as
 * am_memory_add merges with provenance "import", recorded at its
 * created_at; opt->progress as am_import_mem0_ex says. */
int am__import_mem0_write(am_db *db, am__arena *ar, const char *user, const am__imp_mem0 *rows,
                          size_t n, const am_import_options *opt, am_import_info *info);

/* am_memory_add's statement of in (api/memory.c) with provenance source
 * and extra (may be NULL): more members of its value, raw JSON without
 * braces. */
int am__memory_statement(am_db *db, const am_memory_input *in, am__arena *ar, const char *source,
                         const char *extra, struct am__statement *st);

#endif
