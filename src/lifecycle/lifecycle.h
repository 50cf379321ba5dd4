/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lifecycle.h -- what the memory's life says about the engine: the
 * blind-spot report (report.c).  A lifecycle module reads and writes
 * through store/ and text/; api/ checks the arguments and boxes results.
 */
#ifndef AM_LIFECYCLE_H
#define AM_LIFECYCLE_H

#include "base/base.h"
#include "store/store.h"

/* ---- report (report.c) */
typedef struct am__report_in {
    const char *uid;             /* one user, or NULL: every user */
    am_time since, until;        /* [since, until); AM_TIME_NONE: open */
    int period;                  /* AM_REPORT_DAY | _WEEK | _MONTH */
    am_time now;                 /* the clock (the versions listed) */
    const am__allocator *alloc;
} am__report_in;
/* The corrections report (am_report_corrections's JSON) appended to json.
 * Returns AM_OK, AM_NOMEM or the store's error. */
int am__report_corrections(am__store *s, const am__report_in *in, am__buf *json);
#endif
