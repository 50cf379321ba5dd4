/* SPDX-License-Identifier: Apache-2.0 */
/*
 * perceive.h -- the perception stage of the write path:
 * what an event says about the work around it, kept apart from what it
 * says about the user (distill/, semantic/).
 *
 * api/write.c calls the stage's steps in this order, inside the event's
 * transaction, on one am__perceive that carries the event and its task:
 *   am__perceive_attribute  which task (explicit, a continuation cue that
 *                           matches a task's events, the session's task)
 *   am__perceive_task       that task's row: created, pending decisions,
 *                           status and stage, progress notes
 *   am__perceive_context    the session's earlier lines: the context
 *                           window indexed beside the event
 *   am__perceive_switch     a topic jump: a task_switch event
 *   (the event row is appended here)
 *   am__perceive_artifact   a file or link of the event: a task artifact
 *   am__perceive_alias      a greeting answered by another speaker: alias
 *   am__perceive_context_share  this line joins the context of the lines
 *                           before it
 *   am__perceive_one_off    (distillation) a one-off: a task note
 *   am__perceive_save       the task row, once, when it changed
 * Files by concern: attribute.c (attribution and voting), state.c (the task
 * row and task_history), switch.c (topic switches), context.c (the context
 * window), alias.c (speaker aliases); task.c decides state changes on the cue
 * tables of text/lexicon/task_cues.c.
 *
 * Every step reads and writes through the store vtable of w, scoped by
 * w.uid, allocates from w.ar (strings put into the task row live there)
 * and returns AM_OK, AM_NOMEM or a store error; the caller rolls the event
 * back on any error.
 */
#ifndef AM_PERCEIVE_PERCEIVE_H
#define AM_PERCEIVE_PERCEIVE_H

#include "domain/task.h"
#include "store/store.h"
#include "text/analyze.h"

/* The write context every write stage shares (perceive/, semantic/): the
 * store, the analyzer, the id generator, the ranking knobs, the event's
 * arena, the master user id and the time of the write. */
typedef struct am__wctx {
    am__store *store;
    am__text *text;
    am__ulid_state *ulid;
    const am_rank_config *rank;
    am__arena *ar;
    const char *uid;
    am_time now;
    /* for memory events: the event being written (NULL outside the
     * write path: feedback, a task replay) and the clock's time (0: now) */
    const char *event_id;
    am_time clock;
    /* the metadata the versions this write makes carry (store/metadata.h:
     * the event's, or what the application gave), or NULL: a new version
     * keeps its predecessor's */
    const char *metadata;
} am__wctx;

/* The perception state of one event. */
typedef struct am__perceive {
    am__wctx w;
    am__event_row *ev;   /* the event being written (content redacted) */
    am__task_row *task;  /* attributed task (arena), or NULL */
    int task_dirty;      /* the task row changed: am__perceive_save writes it */
    int task_changed;    /* its status or stage changed (am_add_info) */
    unsigned task_fields; /* history fields changed (state.c): task.updated */
    /* the task act of the event sig_of (am__perceive_signal) */
    const am__event_row *sig_of;
    am__task_signal sig;
} am__perceive;

/* What x->ev (norm: its normalised content) does to a task (task.h
 * am__task_read: the cue tables, and the learned reading of a user's
 * turn where they are silent), read once per event. */
const am__task_signal *am__perceive_signal(am__perceive *x, const char *norm, size_t norm_len);

/* *task_id = the event's task: in->task_id, else the open task whose
 * events match a continuation cue's words ("接着把周报弄完"), else, for a
 * user's turn that acts on a task, the open task (any session) it names
 * by its words when the session's own shares none, else the session's
 * current task (or NULL) -- unless the turn jumps to another
 * topic ("另外帮我订一下会议室": a marker, a request, none of the task's
 * topic words): then NULL.  *switched_from = the session's current task
 * when the event's task is another one or none (a topic jump), or
 * am__perceive_no_task when the session had none since a jump, else NULL.
 * norm: the event's normalised content. */
int am__perceive_attribute(am__perceive *x, const am_event *in, const char *norm,
                           size_t norm_len, const char **task_id,
                           const char **switched_from);

/* A status the model reads (task.c am__task_read, rule "model") applies
 * to x->task only when the turn names it (state.c). */
/* *names = 1 when the normalised turn shares a topic word (not a date,
 * time or number) with task t: its id, its name, and its latest events
 * before x->ev (first: its first events, the turn that began it); else 0. */
int am__perceive_names_task(am__perceive *x, const am__task_row *t, const char *norm,
                            size_t norm_len, int first, int *names);

/* load (or create) the task and apply the event: a question of
 * the agent becomes a pending decision, the user's next turn answers it;
 * status and stage cues change the task (a new event reopens a closed
 * task), each change a task_history row.  Sets x->task. */
int am__perceive_task(am__perceive *x, const char *task_id, const char *norm,
                      size_t norm_len);

/* A new task's first state: stage collecting, status active, no notes,
 * artifacts or pending decisions. */
void am__perceive_task_init(am__task_row *t, const char *task_id, am_time created_at);

/* The event's part of am__perceive_task on x->task as it stands (a
 * replay of a task's remaining events after a forget, api/forget.c, runs
 * it on a task reset to its first state). */
int am__perceive_task_apply(am__perceive *x, const char *norm, size_t norm_len);

/* Artifacts: a file or URL entity (type name, norm) of the event joins
 * the task's artifacts.  AM_OK without a task. */
int am__perceive_artifact(am__perceive *x, const char *type, const char *norm);

/* a one-off instruction (a sentence of the event) is a note of the
 * task's current round and a task_history row.  AM_OK without a task. */
int am__perceive_one_off(am__perceive *x, const char *sentence);

/* Write the task row (updated_at = the event's time) if it changed. */
int am__perceive_save(am__perceive *x);

/* a topic jump inside a session: a task_switch event (source system)
 * and a history row on both tasks, before the event itself is stored.
 * to NULL: a jump to no task; from am__perceive_no_task: from none (the
 * event text names either "(none)"). */
int am__perceive_switch(am__perceive *x, const char *from, const char *to);
extern const char am__perceive_no_task[];

/* ------------------------------------------------------------ context */

#define AM__ALIAS_TURNS 4 /* lines before a transcript line looked at (alias.c) */

/* The session's lines before an event: prev[0..n_before) newest first (the
 * context's depth, or AM__ALIAS_TURNS for a transcript line); the first np
 * of them are turns of the same exchange (store.h: AM__CONTEXT_TURNS,
 * AM__CONTEXT_GAP_MS), their contents, oldest first, the event's index_ctx.
 * prev lives in the event's arena, the text in a buffer of its own. */
typedef struct am__context_window {
    am__event_row *prev;
    size_t n_before, np;
    am__buf text;
} am__context_window;

void am__perceive_context_init(am__context_window *cw, const am__allocator *alloc);
void am__perceive_context_free(am__context_window *cw);

/* Read the window of x->ev (in its session; none without one) and set
 * x->ev->index_ctx. */
int am__perceive_context(am__perceive *x, am__context_window *cw);

/* After the event row is stored: its content joins the context of the
 * AM__CONTEXT_AFTER turns before it. */
int am__perceive_context_share(am__perceive *x, const am__context_window *cw);

/* when text (a transcript line, "Emi: …") answers a greeting of
 * another speaker by a name ("elise: Hello Kate!") among prev[0..np) (the
 * session's lines before it, newest first), the greeting's event gets an
 * "alias" entity, norm "kate=emi".  at: the line's time. */
int am__perceive_alias(am__perceive *x, const char *text, const am__event_row *prev,
                       size_t np, am_time at);

#endif
