/* SPDX-License-Identifier: Apache-2.0 */
/*
 * import.h -- an import document (am_import: an agentmem export; or
 * am_import_mem0: mem0's memories; docs/IMPORT.md) read and checked whole
 * before anything is written.
 *
 * Every field of every row is read and checked here, so a bad document
 * writes nothing and its error names the row and the field
 * ("import: events[12].occurred_at: no time zone"); api/import.c then
 * writes the rows in one transaction (api/import_rows.c).  All strings
 * live in the reader's arena.  A rule pack is checked by the caller's
 * hook, the check am_pack_apply makes (lifecycle/packs.c sits above this
 * folder).
 */
#ifndef AM_DOMAIN_IMPORT_H
#define AM_DOMAIN_IMPORT_H

#include "agentmem.h"
#include "base/base.h"
#include "store/store.h"
#include "text/analyze.h"

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

typedef struct am__imp_reader {
    am__arena *ar;                /* the rows' strings */
    const am__allocator *alloc;   /* scratch buffers */
    size_t max_text_bytes;        /* am_config.max_text_bytes */
    const char *what;             /* the messages' prefix: "import" */
    /* a rule pack (compact JSON, NUL-terminated) checked into out, its
     * strings in ar: AM_OK, AM_NOMEM, else the fault in why */
    int (*pack_check)(const char *text, size_t len, am__arena *ar, am__pack_row *out, char *why,
                      size_t cap);
    int failed;                   /* out: err holds the message */
    char err[1024];
} am__imp_reader;

/* The document (JSON text of len bytes) into doc.  AM_OK; else AM_INVALID,
 * AM_TOOBIG or AM_NOMEM with the message in r->err. */
int am__import_read_doc(am__imp_reader *r, const char *json, size_t len, am__imp_doc *doc);
/* mem0's memories (a list, or {"results": [...]} / {"memories": [...]})
 * into *rows (n); a row naming another user than user is refused. */
int am__import_read_mem0(am__imp_reader *r, const char *json, size_t len, const char *user,
                         am__imp_mem0 **rows, size_t *n);

/* The rows an import adds as a write makes them (import_rows.c).
 * am__import_event_row: the stored row of an event whose content (in->row's,
 * redacted) is content: its language, token set, index document (in doc:
 * ev->index_doc points into it; the caller frees it), its entities with
 * the times of its dates found again (*ents, in ar).  AM_OK, AM_NOMEM, or
 * the analyzer's error with *analysed = 0. */
int am__import_event_row(am__text *text, am__arena *ar, const am__imp_event *in,
                         const char *content, const char *uid, am_time now, am__event_row *ev,
                         am__entity_row **ents, am__buf *doc, int *analysed);
/* order[0..n): mem0's memories in the order they were made (stable;
 * undated ones last, at now), so a later value supersedes an earlier one. */
void am__import_mem0_order(const am__imp_mem0 *rows, size_t n, am_time now, size_t *order);
/* mem0's id, metadata and updated_at as members of the item's value, in
 * ar (NULL: out of memory). */
const char *am__import_mem0_extra(const am__allocator *a, am__arena *ar, const am__imp_mem0 *m);

#endif
