/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cold.h -- archival of old events (docs/internals/STORAGE.md "Archived events").
 *
 * An event said more than archive_events_days ago keeps in its row a
 * short summary (am__cold_summary), its entities, vectors, index rows and
 * the provenance of the items drawn from it; its whole text moves to the
 * row's cold column (store/cold.h: compressed where the build has zlib).
 * Reads of an old period (a recall as of then or naming it, the event
 * list, export) read the whole text back (store cold_put AM__COLD_FILL);
 * restore puts it back in the row for good.  A forget of the event, its session, task
 * or user takes the cold text with the row, as it takes the rest.
 *
 * The maintenance pass calls am__cold_step repeatedly: each call is one
 * short write transaction moving at most `budget` events, so a writer
 * never waits long for it; a crash loses at most the step in flight (the
 * rows it had not committed are candidates again).
 */
#ifndef AM_LIFECYCLE_COLD_H
#define AM_LIFECYCLE_COLD_H

#include "store/cold.h"
#include "store/store.h"

/* The summary an archived event keeps: its first sentence (up to and
 * including the first . ! ? 。 ！ ？ ； or line break that ends it), at most
 * AM__COLD_SUMMARY_CHARS characters -- cut there and ended with "…" when
 * longer.  Its length in bytes is written to out (cap bytes, NUL
 * included; cap >= AM__COLD_SUMMARY_BYTES); *whole = 1 when the summary is
 * the whole text (nothing to move). */
#define AM__COLD_SUMMARY_CHARS 80
#define AM__COLD_SUMMARY_BYTES (AM__COLD_SUMMARY_CHARS * 4 + 4)
size_t am__cold_summary(const char *text, char *out, size_t cap, int *whole);

/* The state of an archival run over one user (uid) or every user (uid
 * NULL): where the next step starts.  Zero it (am__cold_init) to start;
 * it is only a shortcut -- a run started again from zero finds the same
 * events. */
typedef struct am__cold_run {
    am__store *store;
    const am__allocator *alloc; /* scratch of a step (NULL: libc) */
    int days;           /* archive_events_days (0: never) */
    am_time from_at;    /* one user: the next candidate's occurred_at at least */
    int64_t from_rid;   /* every user: the next candidate's rid at least */
    long moved, kept;   /* events archived / too short to move, so far */
} am__cold_run;

void am__cold_init(am__cold_run *run, am__store *store, const am__allocator *alloc, int days);

/* One step: at most budget (> 0) of uid's (NULL: every user's) events said
 * before now - days moved to the cold column in one write transaction of
 * its own (the caller holds none).  *moved: how many this step archived
 * (events whose text is its summary or shorter than AM__COLD_MIN_BYTES
 * stay as they are: marked, not counted);
 * *done = 1 when no candidate is left.  days 0: nothing, *done = 1.
 * AM_OK, AM_BUSY (the write lock: try later), the store's errors (the
 * step is rolled back whole). */
int am__cold_step(am__cold_run *run, const char *uid, am_time now, int budget, long *moved,
                  int *done);

#endif
