/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario_dump.h -- `agentmem scenario run --dump FILE`: one JSON line per
 * recall step, holding everything in the engine's recall result that is the
 * same from run to run.  scripts/same-rankings.sh compares these lines
 * between two builds; a person can diff them by hand.
 *
 * What is left out, and why: the ids (event, memory version, lineage,
 * provenance and task-history event ids) are ULIDs whose random part is
 * seeded from the wall clock, so they differ on every run; `json` repeats
 * the rest with those ids.  Everything else comes from the scenario file and
 * the injected clock: texts, kinds, scores, times, route, need_memory, the
 * rendered block and the task record.
 */
#ifndef AM_SCENARIO_DUMP_H
#define AM_SCENARIO_DUMP_H

#include <stdio.h>

#include "agentmem.h"

/* Significant digits of every score in the dump: a sum taken in another
 * order (last bits) prints the same, a changed weight does not. */
#define SC_DUMP_SCORE_DIGITS 10

/* Write the line of the recall step at file:line to out.  When the engine
 * refused the step, res is NULL and error names its code ("AM_INVALID");
 * otherwise error is NULL.  file and query are the step's, as given.
 * Returns 1 when the line was written, 0 on out of memory or a write
 * error. */
int sc_dump_recall(FILE *out, const char *file, long line, const char *query,
                   const am_recall_result *res, const char *error);

#endif
