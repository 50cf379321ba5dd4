/* SPDX-License-Identifier: Apache-2.0 */
/*
 * task.h -- a task's rules, shared by the write path and the recall:
 * which status or stage change a plain-text event announces ("这家先不发了"
 * -> paused, "cancel the vendor review" -> cancelled), and whether a text
 * continues earlier work ("接着", "last time").  The cue tables are data
 * in text/lexicon/task_cues.c, written in the cue patterns of text/cue.h
 * (included here for the distillation rules and the router).  Attribution
 * itself (which task) is decided with the store in perceive/attribute.c:
 * explicit id > a continuation cue matched against the tasks' own events >
 * an open task the turn names by its words (when it acts on a task) > the
 * session's current task (perceive/perceive.h).
 *
 * Who calls it: the write path (perceive/, distill/rules.c), the recall
 * (recall/route.c: a continuation; recall/fuse.c: rounds and the
 * session's task) and api/read.c (a task as it stands).  task.c holds the
 * cue rules and the reading of a topic jump's row, round.c the rounds.
 * Includes text/ and the store's rows only.
 */
#ifndef AM_DOMAIN_TASK_H
#define AM_DOMAIN_TASK_H

#include "store/store.h"
#include "text/cue.h"

/* ------------------------------------------------------------ task state */

typedef struct am__task_signal {
    const char *status;   /* new status, or NULL */
    const char *stage;    /* new stage, or NULL */
    const char *rule;     /* which cue table fired, "model", or the guard that stopped it */
    const char *act;      /* the task act (data/understand/LABELS.md: start, advance,
                           * done, cancel, pause, postpone, resume), or NULL for none */
} am__task_signal;

/* Detect a state change in normalised text (the cue tables alone). */
void am__task_detect(const char *norm, size_t n, am__task_signal *out);

/* The learned reading's task act (text/understand.h): the likeliest act
 * other than none and its probability (which may lie below none's), and
 * the turn's topic with its probability. */
typedef struct am__task_reading {
    const char *act;
    float p;
    const char *topic;
    float topic_p;
} am__task_reading;
void am__task_model(const char *text, am__task_reading *out);

/* The probability from which the model's act counts where the cue tables
 * are silent (chosen on the corpus's dev split: docs/TASKS.md has the
 * figures). */
#define AM__TASK_MODEL_P 0.2f
/* ... and for done, read as done more often than it is (dev: precision
 * 0.75 from 0.2, 0.84 from 0.5); a wrong done ends the round and drops
 * its notes, a missed one leaves the task open */
#define AM__TASK_MODEL_P_DONE 0.5f

/* The task act of a turn: the cue tables where they speak (a cue, a
 * denied cue, or a guard: a hypothetical, a standing rule changes
 * nothing); where they are silent, the model's act on text (the raw turn;
 * NULL: the tables alone) when its probability reaches AM__TASK_MODEL_P
 * (AM__TASK_MODEL_P_DONE for done): done, cancel, pause,
 * postpone and resume set the status (rule "model"),
 * start and advance only the act.  A question (rule "question") takes
 * only the model's resume ("where were we with the grant report?"). */
void am__task_read(const char *norm, size_t n, const char *text, am__task_signal *out);

/* 1 if the normalised text continues earlier work. */
int am__task_continuation(const char *norm, size_t n);

/* A turn that opens with a marker of a new topic ("另外", "顺便",
 * "by the way", "also"; after at most one interjection) and goes on with
 * a request that is no question ("帮我订一下会议室", "order a cake"):
 * the offset of the words after the marker, else 0.  Whether those words
 * leave the session's task is attribute.c's question (they share none of
 * its words). */
size_t am__task_topic_shift(const char *norm, size_t n);

/* A topic jump's event text: AM__TASK_SWITCH_HEAD "A -> B", B "(none)"
 * for a jump to no task (perceive/switch.c writes it). */
#define AM__TASK_SWITCH_HEAD "task_switch: "
#define AM__TASK_SWITCH_TO_NONE " -> (none)"

/* A session's turn that left its task for no task is a task_switch event
 * "A -> (none)" of no task (perceive/switch.c): then AM_OK and *left = A (from
 * ar); for any other row AM_OK and *left = NULL; AM_NOMEM.  The write
 * path's attribution and a recall's referenced task read the session's
 * current task up to such a row. */
int am__task_switch_left(const am__event_row *r, am__arena *ar, const char **left);

/* 1 for a status that counts as open (active, paused, postponed). */
int am__task_open_status(const char *status);

/* ------------------------------------------------------------ rounds (round.c) */

/* The period ("day", "week", "month", "quarter", "year") a normalised
 * text names as a recurrence ("周报", "monthly"), or NULL. */
const char *am__round_period(const char *norm, size_t n);

/* The calendar period holding `at` in that zone offset: [*start, *end).
 * 0 when period is NULL or unknown. */
int am__round_bounds(const char *period, am_time at, int tz_minutes, am_time *start,
                     am_time *end);

/* 1 when t is periodic and the period of its current round ended by at. */
int am__round_ended(const am__task_row *t, am_time at);

/* 1 when t's round is open and at lies in the period right after the
 * round's: a continuation then carries the round on. */
int am__round_carries(const am__task_row *t, am_time at);

/* Append the current round (stage, status, notes, artifacts, pending
 * decisions, start, end) to t->rounds; end names why it ended ("period",
 * "done", "cancelled").  Strings from ar. */
int am__round_archive(am__arena *ar, am__task_row *t, am_time ended_at, const char *end);

/* The next round: number + 1, started at `at` (zone tz_minutes), stage
 * collecting, active, no notes, artifacts or pending decisions. */
void am__round_start(am__task_row *t, am_time at, int tz_minutes);

/* A periodic task as it stands at `now` for a read: when its round's
 * period ended (and, with carry, a continuation does not carry it on), the
 * ended round is archived and a new round shown, in t only (nothing is
 * written).  A cancelled task stays as it is. */
int am__round_view(am__arena *ar, am__task_row *t, am_time now, int carry);

#endif
