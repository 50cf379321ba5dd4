/* SPDX-License-Identifier: Apache-2.0 */
/*
 * observe_int.h -- internals shared by observe.c (the hook), promote.c
 * (repetition promotion) and patterns.c (periodic patterns).  Not used
 * outside src/write/semantic/.
 *
 * Both learners write memory item versions the bitemporal way merge.c does
 * (close the current version, insert its successor; never edit a row), but
 * with provenance of more than one event -- a promotion cites both
 * mentions, a pattern every matching week -- which merge.c's statement
 * interface does not carry.  The version helpers below do that and nothing
 * else.
 */
#ifndef AM_SEMANTIC_OBSERVE_INT_H
#define AM_SEMANTIC_OBSERVE_INT_H

#include "write/semantic/observe.h"

#define AM__OBS_MAX_SET 256 /* token-set size for similarity */

/* New versions and closing: am__semantic_insert_version and
 * am__semantic_close_version (merge.h). */

/* Audit record of a memory change: op such as "memory.promoted". */
int am__observe_audit(am__wctx *w, const char *op, const char *lineage,
                      const char *scope, const char *key);

/* Token-set Jaccard similarity of two texts, in [0, 1]. *out is 0 for two
 * texts without tokens. */
int am__observe_jaccard(am__wctx *w, const char *a, const char *b, double *out);

/* promotion of repeated weak preference signals.  norm[0..n) is the
 * event's normalised content. */
int am__semantic_promote(am__wctx *w, const am__event_row *ev, const char *norm,
                         size_t n, am__observe_out *out);

/* an evaluation of the thing at hand moves the confidence of the
 * preference or constraint it is about (evaluate.c).  norm[0..n) as above. */
int am__semantic_evaluate(am__wctx *w, const am__event_row *ev, const char *norm,
                          size_t n, am__observe_out *out);

/* weekly patterns of the event's task (or of similar untasked
 * requests).  norm[0..n) as above. */
int am__semantic_patterns(am__wctx *w, const am__event_row *ev, const char *norm,
                          size_t n, am__observe_out *out);

#endif
