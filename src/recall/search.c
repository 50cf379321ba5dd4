/* SPDX-License-Identifier: Apache-2.0 */
/*
 * search.c -- the search stage: the lexical candidates, scored and
 * ranked.  The question's terms against the user's own index terms
 * (BM25F over text and context, one scan of the OR query), each clause
 * and condition of a compound question (clauses.c), the best matches
 * inside a period the turn names ("上周", "last month", resolved in
 * the caller's zone against the recall time; both searches are BM25 over
 * the same statistics, so the union ranks as one list), then support by
 * speaker (a name the question uses, or an alias the write path learnt:
 * entity linking) and by date for a question that asks when, and the
 * relevance floor with recency (recall/rank.c).  A turn of the period
 * asked about is relevant even when its words match weakly; a compound
 * question's candidates take turns by clause.
 */
#include <string.h>

#include "recall/pipeline.h"
#include "text/entities.h"

/* Entity linking: the speakers a question names by another name.
 * The write path stores an "alias" entity each time a transcript line
 * greets the other speaker by a name ("elise: Hello Kate!" after "Emi:
 * …": norm "kate=emi"); a name the question holds that was used for one
 * speaker at least AM__ALIAS_MIN times, and for that speaker in at least
 * two thirds of its uses, names that speaker ("What are Kate's hobbies?"
 * -> Emi's own turns, am__speaker_boost).  Only the user's own aliases. */
#define AM__ALIAS_MIN 2
#define AM__ALIAS_MAX 256 /* distinct name=speaker pairs read */
static int question_aliases(const am__recall_env *env, const char *uid, const char *qnorm, size_t qlen,
                            am__arena *ar, const char ***out, size_t *n_out)
{
    const char **norms;
    long *counts;
    size_t n;
    *n_out = 0;
    int rc =
        am__store_entity_counts(env->store, uid, "alias", AM__ALIAS_MAX, ar, &norms, &counts, &n);
    if (rc || !n) return rc;
    const char **got = am__arena_alloc(ar, n * sizeof *got);
    if (!got) return AM_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(norms[i], '=');
        if (!eq || eq == norms[i] || !eq[1] || counts[i] < AM__ALIAS_MIN) continue;
        size_t nl = (size_t)(eq - norms[i]);
        /* the most used speaker of this name comes first (most first) */
        int first = 1;
        long total = 0;
        for (size_t j = 0; j < n; j++) {
            if (strncmp(norms[j], norms[i], nl + 1) != 0) continue;
            total += counts[j];
            if (j < i) first = 0;
        }
        if (!first || 3 * counts[i] < 2 * total) continue;
        char name[64];
        if (nl >= sizeof name) continue;
        memcpy(name, norms[i], nl);
        name[nl] = '\0';
        if (am__query_names(qnorm, qlen, name)) got[(*n_out)++] = eq + 1;
    }
    *out = got;
    return AM_OK;
}

int am__recall_search(am__recall_state *st)
{
    const am__recall_env *env = st->env;
    const am_rank_config *r = env->rank;
    am__store *s = env->store;
    am__arena *ar = st->ar;
    const am_query *q = st->q;
    int rc;
    st->max_ev = (size_t)(q->max_events > 0 ? q->max_events : r->max_events);
    st->limit = r->candidates > (int)st->max_ev * 2 ? r->candidates : (int)st->max_ev * 2;
    /* the frequencies of the terms, for the period's search below */
    st->stats = (am__search_stats){0, 0, am__arena_take(ar, (st->nt + 1) * sizeof *st->stats.df), 0};
    if (!st->stats.df) return AM_NOMEM;
    rc = am__search_events(s, st->uid, st->terms, st->weights, st->nt, r->w_context,
                              AM_TIME_NONE, st->to, st->limit, ar, &st->events, &st->n_events,
                              &st->stats);
    if (rc) return rc;
    memset(&st->homes, 0, sizeof st->homes);
    if ((rc = am__recall_search_clauses(env, st->uid, st->qtext, st->qtext_n, &st->asks, st->to,
                                        st->limit, ar, &st->events, &st->n_events, &st->homes)))
        return rc;
    if (r->w_time > 0 && st->named_known && st->at == st->now) { /* (filter: the same) */
        st->timed = st->named;
        st->t_from = st->named_from;
        st->t_to = st->named_to;
    } else {
        st->timed = r->w_time > 0 && am__query_time_range(q->text, st->qn, st->at,
                                                          env->default_tz_minutes, &st->t_from,
                                                          &st->t_to);
    }
    if (st->timed) {
        am_time to = st->as_of != AM_TIME_NONE && st->as_of + 1 < st->t_to ? st->as_of + 1 : st->t_to;
        am__event_row *in;
        size_t n_in;
        rc = am__search_events(s, st->uid, st->terms, st->weights, st->nt, r->w_context,
                                  st->t_from, to, st->limit, ar, &in, &n_in, &st->stats);
        if (rc) return rc;
        if (n_in) {
            am__event_row *all = am__arena_take(ar, (st->n_events + n_in + 1) * sizeof *all);
            if (!all) return AM_NOMEM;
            memcpy(all, st->events, st->n_events * sizeof *all);
            size_t m = st->n_events;
            for (size_t i = 0; i < n_in; i++) {
                size_t k;
                for (k = 0; k < st->n_events && all[k].rid != in[i].rid; k++) {}
                if (k == st->n_events) all[m++] = in[i];
            }
            st->events = all;
            st->n_events = m;
        }
    }
    am__event_row *events = st->events;
    size_t n_events = st->n_events;
    const char **aliased = NULL;
    size_t n_aliased = 0;
    if (r->w_speaker > 0 && n_events &&
        (rc = question_aliases(env, st->uid, st->qnorm, st->qnorm_len, ar, &aliased, &n_aliased)))
        return rc;
    am__speaker_boost(r, st->qnorm, st->qnorm_len, aliased, n_aliased, events, n_events);
    if (r->w_when > 0 && n_events && am__asks_when(st->qnorm, st->qnorm_len)) {
        /* the candidates that say when: dates the write path extracted */
        int64_t *rids = am__arena_take(ar, n_events * sizeof *rids);
        unsigned char *dated = am__arena_alloc(ar, n_events);
        if (!rids || !dated) return AM_NOMEM;
        for (size_t i = 0; i < n_events; i++) rids[i] = events[i].rid;
        if ((rc = am__store_events_dated(s, st->uid, rids, n_events, dated))) return rc;
        am__when_boost(r, events, n_events, dated);
    }
    am__rank_events(r, st->at, ar, events, n_events);
    if (st->timed && n_events) {
        /* in the period asked about: relevant even when the words match
         * weakly (below the floor: back above it, by its lexical score) */
        for (size_t i = 0; i < n_events; i++)
            if (events[i].occurred_at >= st->t_from && events[i].occurred_at < st->t_to)
                events[i].score = (events[i].score < 0 ? events[i].score + 1 : events[i].score) +
                                  r->w_time;
        am__sort_events(events, n_events);
    }
    return am__recall_interleave_clauses(&st->homes, ar, events, n_events);
}
