/* SPDX-License-Identifier: Apache-2.0 */
/*
 * write.h -- the write path as one pipeline over one write state, like
 * the read path's (recall/pipeline.h).
 *
 * api/write.c checks the event, redacts it, computes its vector before
 * the lock, opens the transaction, resolves the user and fills the event's
 * row (id, times, source, type, language, metadata); am__write_run
 * (write/pipeline.c) then calls the stages in this order, all inside the
 * caller's transaction:
 *
 *   text       normal form and token set of the (redacted) content
 *   perceive   the event's task (attribution, a topic jump), the scope
 *              its statements apply to, the task's state (perceive/)
 *   entities   times, numbers, files, links: the index document
 *   store      the context window, the row, its entities, aliases, the
 *              vector, the PII vault's rows
 *   distill    each sentence of a user event (distill/): lasting,
 *              one-off, invalidation, a reference to an earlier turn,
 *              the clauses of a sentence stating several things
 *   semantic   item versions (semantic/merge.c), observations and
 *              promotion (semantic/observe.c)
 *   task, audit the task row saved, the event's audit row
 *
 * Any failure returns its code and the caller rolls the transaction back:
 * an event is written whole or not at all.  After the commit the caller
 * hands the run to am__write_log: each statement's decision and the
 * write, as log records.  All memory comes from the caller's arena and
 * the state's two buffers (am__write_free).
 */
#ifndef AM_WRITE_H
#define AM_WRITE_H

#include "base/log.h"
#include "write/distill/reading.h"
#include "write/distill/rules.h"
#include "embed/embed.h"
#include "write/perceive/perceive.h"
#include "text/redact.h"

/* What the write path needs of the handle (filled by api/write.c). */
typedef struct am__write_env {
    am__store *store;
    am__text *text;
    am__ulid_state *ulid;
    const am_rank_config *rank;
    const am__allocator *alloc;  /* scratch buffers */
    const am__log *log;          /* the structured records (base/log.h) */
    am__embedder *embedder;      /* the vector's embedder, or NULL */
    am_time (*now)(void *ctx);   /* the engine's clock */
    /* a plain log line (may be NULL) */
    void (*say)(void *ctx, int level, const char *msg);
    void *ctx;
} am__write_env;

/* A statement's decision, kept for the log (am__write_log). */
typedef struct am__said {
    const char *text, *rule, *guard, *source, *kind;
    char key_id[AM__REF_LEN + 1], item[27];
    double score;
    int action, outcome;
} am__said;

/* One event's run through the stages. */
typedef struct am__write {
    const am__write_env *env;
    am__arena *ar;
    am__perceive p;         /* the event, its task, the write context */
    am_add_info *info;
    am__distill prev;       /* the previous sentence's outcome */
    int strongest;          /* strongest AM__D_* action of the event */
    am__distill_turn turn;  /* the model's reading of the whole turn */
    const char *scope;
    int rc;
    const char *task_id;    /* the event's task after the run, or NULL */
    am__buf norm, doc;      /* the content's normal form, the index document */
    /* the statements' decisions, logged once the event is written */
    const char *said;       /* the sentence or clause being decided */
    am__said said_log[32];
    size_t n_said;
} am__write;

/* Before anything can fail: w zeroed, its buffers empty. */
void am__write_init(am__write *w, const am__write_env *env, am__arena *ar);
/* The stages for ev (filled by the caller but for tokens, task_id and
 * index_doc, which the run sets; content is red->text), in (the caller's
 * event: its task and domain hints), vec (its vector, or NULL), info
 * (the counts, task_changed, one_off).  AM_OK or the failing stage's code
 * (AM_NOMEM, or a store error whose message the store holds). */
int am__write_run(am__write *w, const am_event *in, am__event_row *ev,
                  const am__redact_result *red, const float *vec, am_add_info *info);
/* After the commit: the statements' and the write's log records (t0:
 * am__mono_us() when the add began). */
void am__write_log(am__write *w, const am_add_info *info, int64_t t0);
void am__write_free(am__write *w);

/* One sentence of a user event through the distillation rules
 * (normalised, classified, continued from *prev; *prev = *d after): the
 * write path's, and a task replay's after a forget. */
int am__write_distill(am__text *text, const am__allocator *a, const char *s, size_t n,
                      am__distill_turn *turn, am__distill *prev, am__distill *d);

/* What the caller gave for an event (every field but the identity, which
 * picks the user the id belongs to), as one 64-bit fingerprint: adding an
 * event with a known id compares it to tell a re-run from a clash.  The
 * time (at) counts only when given.  AM_OK or AM_NOMEM. */
int am__write_fingerprint(const am__allocator *a, const am_event *in, am_time at, int64_t *out);
/* The row of the event in as given: its id, user, (redacted) content,
 * time and zone, when ingested, fingerprint (0: no caller id), canonical
 * metadata and language (AM_LANG_*); source "user" and a type from the
 * source when not given.  Strings borrowed. */
void am__write_event_row(am__event_row *ev, const am_event *in, const char *id, const char *uid,
                         const char *content, am_time at, int tz, am_time ingested_at,
                         int64_t fp, const char *meta, int lang);

/* A memory the application states (am_memory_add; an import's with its
 * source) as a statement (semantic/merge.h): the kind and key given, else
 * the engine's reading of the text (the distiller's, as for a user's
 * turn), else a fact keyed by the text's words; confidence 1; its end the
 * one given, else (source "api" only) one its words name from now in
 * default_tz_minutes.  extra (may be NULL): more members of its value,
 * raw JSON without braces.  Strings in ar.  AM_OK, AM_INVALID (a bad
 * expires_at), AM_NOMEM. */
struct am__statement;
int am__write_statement(const am__write_env *env, int default_tz_minutes,
                        const am_memory_input *in, am__arena *ar, const char *source,
                        const char *extra, struct am__statement *st);

#endif
