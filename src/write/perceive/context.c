/* SPDX-License-Identifier: Apache-2.0 */
/*
 * context.c -- the session context window of an event.
 *
 * A turn of a conversation is often meaningless alone ("yes, the blue
 * one"): the turns around it in its session -- the one it answers, the one
 * before -- are indexed beside it with a lower weight (the index's ctx
 * column), and it becomes part of theirs.  AM__CONTEXT_TURNS before,
 * AM__CONTEXT_AFTER after, only turns of the same exchange (at most
 * AM__CONTEXT_GAP_MS apart; store.h).  The same read of the session's
 * earlier lines serves the speaker aliases (alias.c): for a transcript
 * line it goes AM__ALIAS_TURNS deep, and only the first turns within the
 * window make the context.
 */
#include "write/perceive/perceive.h"

#include "text/speaker.h"

void am__perceive_context_init(am__context_window *cw, const am__allocator *alloc)
{
    cw->prev = NULL;
    cw->n_before = cw->np = 0;
    am__buf_init(&cw->text, alloc);
}

void am__perceive_context_free(am__context_window *cw)
{
    am__buf_free(&cw->text);
}

int am__perceive_context(am__perceive *x, am__context_window *cw)
{
    am__store *s = x->w.store;
    const char *text = x->ev->content;
    am_time at = x->ev->occurred_at;
    if (!x->ev->session_id) return AM_OK;
    /* one read for the context and, for a transcript line, the lines it
     * may answer (alias.c) */
    char label[48];
    int depth = AM__CONTEXT_TURNS;
    if (AM__ALIAS_TURNS > depth && am__speaker_label(text, label, sizeof label))
        depth = AM__ALIAS_TURNS;
    int rc = am__store_events_recent(s, x->w.uid, x->ev->session_id, NULL, at, depth, x->w.ar,
                                     &cw->prev, &cw->n_before);
    if (rc) return rc;
    /* only turns of the same exchange (store.h: AM__CONTEXT_GAP_MS) */
    while (cw->np < cw->n_before && cw->np < AM__CONTEXT_TURNS &&
           at - cw->prev[cw->np].occurred_at <= AM__CONTEXT_GAP_MS)
        cw->np++;
    for (size_t i = cw->np; i-- > 0;) {
        am__buf_adds(&cw->text, cw->prev[i].content);
        am__buf_addc(&cw->text, ' ');
    }
    if (cw->text.oom) return AM_NOMEM;
    x->ev->index_ctx = cw->text.p;
    return AM_OK;
}

int am__perceive_context_share(am__perceive *x, const am__context_window *cw)
{
    am__store *s = x->w.store;
    int rc;
    for (size_t i = 0; i < cw->np && i < AM__CONTEXT_AFTER; i++)
        if ((rc = am__store_event_ctx_append(s, x->w.uid, cw->prev[i].rid, x->ev->content)))
            return rc;
    return AM_OK;
}
