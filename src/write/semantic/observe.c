/* SPDX-License-Identifier: Apache-2.0 */
/*
 * observe.c -- the observe hook (see observe.h): runs the two learners on
 * one user event, and the helpers they share (observe_int.h).
 */
#include "write/semantic/observe_int.h"

#include <string.h>

#include "write/semantic/merge.h"

int am__observe_audit(am__wctx *w, const char *op, const char *lineage,
                      const char *scope, const char *key)
{
    return am__semantic_record(w, op, lineage, scope, key, NULL);
}

int am__observe_jaccard(am__wctx *w, const char *a, const char *b, double *out)
{
    uint64_t sa[AM__OBS_MAX_SET], sb[AM__OBS_MAX_SET];
    size_t na, nb;
    int rc;
    *out = 0;
    if ((rc = am__text_token_set(w->text, a, strlen(a), sa, AM__OBS_MAX_SET, &na)) ||
        (rc = am__text_token_set(w->text, b, strlen(b), sb, AM__OBS_MAX_SET, &nb)))
        return rc;
    if (na + nb == 0) return AM_OK;
    size_t k = am__set_overlap(sa, na, sb, nb);
    *out = (double)k / (double)(na + nb - k);
    return AM_OK;
}

int am__semantic_observe(am__wctx *w, const am__event_row *ev, const char *norm,
                         size_t n, int explicit_action, am__observe_out *out)
{
    memset(out, 0, sizeof *out);
    int rc;
    /* explicit statements went through merge.c already; one-offs and
     * invalidations never promote. */
    if (explicit_action == AM__D_NONE && (rc = am__semantic_promote(w, ev, norm, n, out)))
        return rc;
    /* an evaluation (which states nothing) moves confidence */
    if (explicit_action == AM__D_NONE && (rc = am__semantic_evaluate(w, ev, norm, n, out)))
        return rc;
    /* every user event is evidence of when the user works on what. */
    return am__semantic_patterns(w, ev, norm, n, out);
}
