/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progress.h -- a progress bar for long commands, on stderr and only on a
 * terminal: "reembed [#########.........] 1,200/2,400 events  50%  310/s
 * ETA 4s".  With an unknown total (0) it is a counter: "add 1,200 events
 * 310/s".  Redrawn at most ten times a second (a call in between only
 * records the count), ended by one final line with the count and the time
 * taken.  Off when stderr is not a terminal or when asked to be quiet, so
 * logs, pipes and --json output never see it; stdout is never written.
 *
 * am_progress_start -> am_progress_set (any number of times) ->
 * am_progress_end.  am_progress_fn_adapter matches am_progress_fn
 * (include/agentmem.h): pass it with the am_progress as ctx.
 */
#ifndef AM_PROGRESS_H
#define AM_PROGRESS_H
#include <stddef.h>
#include <stdio.h>

typedef struct am_progress {
    FILE *out;        /* stderr when on, else NULL */
    const char *what; /* "reembed", "import" (borrowed: a literal) */
    const char *unit; /* "events", "users" (plural; borrowed) */
    size_t done, total;
    double t0, last; /* monotonic seconds: the start, the last redraw */
    int drawn;       /* a line is on the terminal (not yet ended) */
} am_progress;

/* quiet: no bar whatever stderr is.  total 0: unknown (a counter). */
void am_progress_start(am_progress *p, const char *what, const char *unit, size_t total, int quiet);
/* done of total (total 0 keeps the last total known) */
void am_progress_set(am_progress *p, size_t done, size_t total);
/* Erase the bar's line (when drawn) so that a message can be printed on
 * stderr; the next am_progress_set draws it again. */
void am_progress_clear(am_progress *p);
/* The final line (when on): the count reached and the time taken. */
void am_progress_end(am_progress *p);
/* am_progress_fn for the library's long calls: ctx is an am_progress */
void am_progress_fn_adapter(void *ctx, size_t done, size_t total);

#endif
