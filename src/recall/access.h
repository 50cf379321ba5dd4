/* SPDX-License-Identifier: Apache-2.0 */
/*
 * access.h -- who sees what (docs/AGENTS.md).  A call made for an
 * agent (an agent id, a role, or both) is *scoped*; a call with neither is
 * the user's own (their tools, the CLI) and sees everything, as before.
 *
 *  - Privacy: an event of source agent or tool is its agent's own work --
 *    visible to a scoped call only when it names that agent (an agent
 *    event without an agent id belongs to no agent: only the user sees
 *    it).  What the user said (source user) and the engine's system events
 *    are shared by all the user's agents.  Memory items are distilled
 *    from the user's statements only (api/write.c), so they are shared.
 *    Task notes, pending decisions and artifacts from an agent's event carry
 *    that agent ("agent" in the entry, perceive/state.c) and follow the
 *    same rule, and so do task history rows of hidden events.
 *  - Role whitelists (am_config.role_allow): "kind:K=r1,r2" -- items of
 *    kind K only to roles r1, r2; "domain:D=r1,r2" -- items scoped to
 *    domain D and events of domain D only to those roles.  A scoped call
 *    without a role, or with another role, sees none of them; the user's
 *    own calls see all.
 *
 * A recall enforces this below its stages: api/read.c hands the pipeline
 * a store that filters what the real one returns (am__access_store), so
 * every path -- lexical, clauses, hops, PII, vectors, the task's round,
 * the session's events, the item list -- sees only what the asker may.
 * The hidden events' words never rank a visible one either: their text
 * sits in their neighbours' indexed context, so a scoped recall of a user
 * who has hidden events scores turns by their own text only.
 */
#ifndef AM_RECALL_ACCESS_H
#define AM_RECALL_ACCESS_H

#include "store/store.h"

/* One whitelist rule: a kind or a domain, and the roles it is shown to. */
typedef struct am__role_rule {
    int on_domain;          /* 1: domain:NAME, 0: kind:NAME */
    const char *name;
    const char **roles;
    size_t n_roles;
} am__role_rule;

typedef struct am__role_rules {
    am__role_rule *rule;
    size_t n;
} am__role_rules;

/* Parse a whitelist spec ("domain:finance=finance,auditor;kind:profile=hr",
 * rules separated by ';' or line breaks, spaces around parts ignored) into
 * out, allocated in ar.  NULL or "" is no rule.  AM_INVALID with a
 * message in err naming the rule and the reason; AM_NOMEM. */
int am__role_rules_parse(const char *spec, am__arena *ar, am__role_rules *out, char *err,
                         size_t cap);

typedef struct am__access {
    int scoped;                 /* an agent or a role was given */
    const char *agent, *role;   /* either may be NULL */
    const am__role_rules *rules;
    int64_t *hidden;            /* the user's events hidden from the asker, by rid */
    size_t n_hidden;
    const char **hidden_ids;    /* their ids, sorted (strcmp) */
} am__access;

/* A scoped access for (agent, role) under rules; not scoped when both are
 * NULL. */
void am__access_init(am__access *a, const char *agent, const char *role,
                     const am__role_rules *rules);
/* The hidden events of user uid (nothing to do when not scoped): those
 * the privacy and domain rules hide, and those whose every memory item
 * (by the items' provenance) is of a kind a kind rule hides. */
int am__access_load(am__access *a, am__store *s, const char *uid, am__arena *ar);

int am__access_event_visible(const am__access *a, const char *source, const char *agent,
                             const char *domain);
int am__access_item_visible(const am__access *a, const char *kind, const char *scope);
int am__access_hides_rid(const am__access *a, int64_t rid);
int am__access_hides_id(const am__access *a, const char *event_id);

/* AM_OK when task task_id of uid holds an event the asker may read (or
 * nothing is hidden from it), AM_NOTFOUND when every event of it is
 * hidden: the task is not there for the asker; or a store error. */
int am__access_task_events(const am__access *a, am__store *s, const char *uid,
                           const char *task_id, am__arena *ar);
/* A task row as the asker may see it: its notes, pending decisions and
 * artifacts without the entries of another agent (in ar); AM_OK or
 * AM_NOMEM. */
int am__access_task(const am__access *a, am__arena *ar, am__task_row *t);
/* A task's history without the rows of hidden events (in place). */
void am__access_history(const am__access *a, am__task_change_row *rows, size_t *n);

/* A store that hands over only what the access lets through (see the top
 * of this file), over inner.  For the read path only: the calls a recall
 * makes are forwarded, and the others are not there (NULL). */
typedef struct am__access_store {
    am__store base;
    am__store *inner;
    const am__access *acc;
} am__access_store;
void am__access_store_init(am__access_store *p, am__store *inner, const am__access *acc);

#endif
