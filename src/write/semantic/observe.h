/* SPDX-License-Identifier: Apache-2.0 */
/*
 * observe.h -- semantic-layer learning from the event stream beyond explicit
 * statements:
 *  - promotion (semantic/promote.c): the same weak preference ("用PDF吧",
 *    "please use bullet points") said in two events within 14 days becomes
 *    a long-term preference (or constraint), confidence 0.6, citing both
 *    events; a mention of what is already known reinforces it; at most 2
 *    writes per item per session (write-storm guard); one-offs never count;
 *  - periodic patterns (semantic/patterns.c): the same task (or a similar
 *    untasked request) on the same local weekday within +-2 hours in 3
 *    distinct weeks (of the last 5, one of them last week or the week
 *    before) becomes a `pattern` item, confidence 0.5, +0.05 for each later
 *    week up to 0.6; a daily routine makes none.
 * Called once per user event, inside the event's transaction, after the
 * explicit rules ran; every write goes through the store of w, scoped by
 * w->uid, with an audit record (memory.promoted / .reinforced / .updated /
 * .pending / .created).
 */
#ifndef AM_SEMANTIC_OBSERVE_H
#define AM_SEMANTIC_OBSERVE_H

#include "write/distill/rules.h"
#include "write/semantic/merge.h"

typedef struct am__observe_out {
    int created, updated; /* items created / new versions */
} am__observe_out;

/* ev: the stored event (rid set).  norm: its NFKC + case-folded content.
 * explicit_action: the strongest AM__D_* the explicit rules produced for
 * the event (AM__D_NONE when none); promotion runs only for AM__D_NONE.
 * *out counts the items created and the new versions written.  Returns
 * AM_OK, AM_NOMEM or a store error (the caller rolls the event back). */
int am__semantic_observe(am__wctx *w, const am__event_row *ev, const char *norm,
                         size_t n, int explicit_action, am__observe_out *out);

#endif
