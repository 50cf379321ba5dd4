/*
 * task.h -- the perception layer's task rules (F5, F6, F20):
 * which status or stage change a plain-text event announces ("这家先不发了"
 * -> paused, "cancel the vendor review" -> cancelled), and whether a text
 * continues earlier work ("接着", "last time").  The cue tables are data
 * in text/lexicon/task_cues.c, written in the cue patterns of text/cue.h
 * (included here for the distillation rules and the router).  Attribution
 * itself (which task) is decided with the store in attribute.c: explicit
 * id > a continuation cue matched against the tasks' own events > the
 * session's current task (perceive.h).
 */
#ifndef AM_PERCEIVE_TASK_H
#define AM_PERCEIVE_TASK_H

#include "text/cue.h"

/* ------------------------------------------------------------ task state */

typedef struct am__task_signal {
    const char *status;   /* new status, or NULL */
    const char *stage;    /* new stage, or NULL */
    const char *rule;     /* which cue table fired, or the guard that stopped it */
} am__task_signal;

/* Detect a state change in normalised text. */
void am__task_detect(const char *norm, size_t n, am__task_signal *out);

/* 1 if the normalised text continues earlier work. */
int am__task_continuation(const char *norm, size_t n);

/* 1 for a status that counts as open (active, paused, postponed). */
int am__task_open_status(const char *status);

#endif
