/*
 * observe.h -- semantic-layer learning from the event stream beyond explicit
 * statements (DESIGN F9, F10):
 *  - promotion: the same weak preference said twice in short-term (across
 *    sessions) becomes a long-term item with lower confidence; at most 2
 *    promotions per item per session (write-storm guard);
 *  - periodic patterns: the same kind of request at a similar weekday/time
 *    over several weeks becomes a `pattern` item (confidence 0.5-0.6).
 * Called once per user event, inside the event's transaction, after the
 * explicit rules ran.
 */
#ifndef AM_SEMANTIC_OBSERVE_H
#define AM_SEMANTIC_OBSERVE_H

#include "distill/rules.h"
#include "semantic/merge.h"

typedef struct am__observe_out {
    int created, updated; /* items created / new versions */
} am__observe_out;

/* ev: the stored event (rid set).  norm: its NFKC + case-folded content.
 * explicit_action: the strongest AM__D_* the explicit rules produced for
 * the event (AM__D_NONE when none). */
int am__semantic_observe(am__wctx *w, const am__event_row *ev, const char *norm,
                         size_t n, int explicit_action, am__observe_out *out);

#endif
