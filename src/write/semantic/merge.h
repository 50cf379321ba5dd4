/* SPDX-License-Identifier: Apache-2.0 */
/*
 * merge.h -- the semantic layer's write rules:
 * how a distilled statement becomes a memory item version.
 *
 * Items are bitemporal and never edited in place.  A change closes the
 * current version (superseded_at = now) and inserts its successors:
 *  - supersede (same key, new value, at least as confident): the old value
 *    again with valid_to = now, and the new value valid from now;
 *  - invalidate: the old value with valid_to = now and status invalidated;
 *  - reinforce (near-duplicate statement): the same value with a little
 *    more confidence and one more source event;
 *  - conflict (same key, less confident): the new value as pending_confirm,
 *    the old one untouched.
 * So "as of T" is answered by the current versions whose validity covers T.
 *
 * Expiry: a statement with an end (am__statement.expires_at, else its
 * kind's TTL) is written with valid_to = that end, so it stops being
 * current then and keeps its history.  Such a version is the last of its
 * lineage in valid time and still matched by later statements until it
 * ends (latest_items); a repetition keeps the later of the two ends (none
 * is later than any).
 *
 * Two clocks: valid time is the statement's own time (w->now, the
 * event's occurred_at: valid_from, valid_to); system time is when the
 * engine wrote the version (w->clock: recorded_at, superseded_at).  A
 * statement older than the value known already (an import, a late `at`)
 * becomes a closed historical version between the values around it
 * (AM__M_HISTORICAL), never the current one.  A restatement (a change cue,
 * distill/restate.c) supersedes whatever the old value's confidence, and one
 * that names the old value negatively finds it by that value when the keys
 * differ (docs/VERSIONS.md).
 */
#ifndef AM_SEMANTIC_MERGE_H
#define AM_SEMANTIC_MERGE_H

#include "write/perceive/perceive.h" /* am__wctx, the write context */
#include "store/store.h"
#include "text/analyze.h"

/* Outcome of a merge, for am_add_info and the audit log. */
#define AM__M_CREATED 1
#define AM__M_SUPERSEDED 2
#define AM__M_REINFORCED 3
#define AM__M_PENDING 4
#define AM__M_INVALIDATED 5
#define AM__M_NOTHING 6
#define AM__M_HISTORICAL 7 /* a late statement: a closed version of the past */

typedef struct am__statement {
    const char *kind, *key, *scope, *text, *value_json;
    double confidence;
    const char *event_id;   /* the source event */
    int restated;           /* a change of the value ("I now prefer…",
                               "我换工作了"): supersedes at any confidence */
    const char *old_value;  /* the old value it names negatively ("不用微信":
                               "微信"), or NULL */
    const char *topic;      /* the learned reading's topic of the text, or NULL */
    const char *whose;      /* a related person's statement ("spouse"), or NULL */
    int own_key;            /* the key is the caller's (an application's): only an
                               item of that key is the same memory -- a near text
                               under another key is another memory */
    const char *origin;     /* what decided it (am__item_row.origin), or NULL */
    am_time expires_at;     /* the statement's own end (an API expires_at, a bound
                               the text names: text/expiry.h), or 0: none -- the
                               kind's TTL then (ttl_temp_days, ttl_conclusion_days) */
} am__statement;

/* Insert nv as a new version (fresh version id, recorded now, current).
 * Its sources are from's sources (from may be NULL) plus extra[0..n_extra),
 * without duplicates. */
int am__semantic_insert_version(am__wctx *w, const am__item_row *from, am__item_row *nv,
                                const char *const *extra, size_t n_extra);

/* As am__semantic_insert_version without extra sources, but nv keeps its
 * reinforced_at (AM_TIME_NONE: now): a change of status alone
 * (lifecycle/) does not make an item look reinforced. */
int am__semantic_insert_kept(am__wctx *w, const am__item_row *from, am__item_row *nv);

/* Close a current version (superseded_at = now). */
int am__semantic_close_version(am__wctx *w, const am__item_row *it);

/* The end a statement's version gets: its own expires_at, else its kind's
 * TTL from w->now (ttl_temp_days, ttl_conclusion_days; 0 days: none), else
 * AM_TIME_NONE. */
am_time am__semantic_end_of(const am__wctx *w, const am__statement *st);

/* Merge a long-term statement.  *outcome gets an AM__M_* value and
 * lineage (27 bytes, may be NULL) the item's lineage id. */
int am__semantic_put(am__wctx *w, const am__statement *st, int *outcome,
                     char *lineage);

/* Invalidate the current item that best matches text (by key cues and
 * token overlap); AM__M_NOTHING when none matches well enough.  key (may
 * be NULL) receives the item's key ("" for none). */
#define AM__KEY_MAX 128
int am__semantic_invalidate(am__wctx *w, const char *text, const char *scope,
                            int *outcome, char *lineage, char key[AM__KEY_MAX]);

/* "以后不用这样了" (distill/rules.h AM__REF_RETRACT): invalidate the rule
 * stated most recently -- the active item with a source among recent[0..n)
 * (the conversation's latest event ids, newest first; the newest wins),
 * else the item that became valid last.  AM__M_NOTHING when there is none. */
int am__semantic_invalidate_recent(am__wctx *w, const char *const *recent, size_t n_recent,
                                   const char *scope, int *outcome, char *lineage);

/* The lineage id (27 bytes) of the item id names: a lineage id or the id
 * of any of its versions, current or closed.  AM_NOTFOUND when none. */
int am__semantic_lineage(am__wctx *w, const char *id, char *lineage);

/* The provenance of a statement the application makes directly
 * (am_memory_add): no event, this in place of its id. */
#define AM__SOURCE_API "api"

/* A statement the application makes (st->event_id AM__SOURCE_API):
 * merged by am__semantic_put's rules and recorded as the write path
 * records a distilled one (the audit, the memory event). */
int am__semantic_state(am__wctx *w, const am__statement *st, int *outcome, char *lineage);

/* Feedback on a lineage id or any version's id (AM_FEEDBACK_*): the
 * item's current version judged. */
int am__semantic_feedback(am__wctx *w, const char *id, int action,
                          const char *text);

/* A memory outcome for the audit log and the memory events: op is
 * the audit operation ("memory.created", "memory.promoted",
 * "memory.updated", "memory.pending", "memory.invalidated",
 * "memory.reinforced", ...); the events are memory.created (created,
 * promoted), memory.updated.<key> (updated, pending) and
 * memory.invalidated, with the item's lineage, key and the causing event
 * (w->event_id); a reinforcement changes nothing a subscriber sees and
 * has none.  detail (may be NULL) is the event's change word.  The event
 * names the key by its opaque id over (user, scope, key) (store/ids.c);
 * scope or key NULL: those of lineage's latest version. */
int am__semantic_record(am__wctx *w, const char *op, const char *lineage, const char *scope,
                        const char *key, const char *detail);

/* The memory event alone (no audit row): am__semantic_record's. */
int am__semantic_event(am__wctx *w, const char *op, const char *lineage, const char *scope,
                       const char *key, const char *detail);

/* The user's latest version of every lineage (current in system time,
 * open-ended validity), without sources or heat: the list the store keeps
 * between statements.  am__semantic_sources: one row's sources, before a
 * version is made from it. */
int am__semantic_latest(am__wctx *w, am__item_row **rows, size_t *n);
int am__semantic_sources(am__wctx *w, am__item_row *it);

/* Base score and half-life of a kind, from the rank configuration. */
void am__semantic_kind_defaults(const am_rank_config *r, const char *kind,
                                double *base, double *half_life_days);

#endif
