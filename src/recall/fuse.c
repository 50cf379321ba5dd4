/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuse.c -- the fuse stage: candidates from other sources join the
 * lexical ones.  With an embedder and a turn it can represent, the vector
 * scan's own top (fusion: linear or reciprocal rank); then the task
 * the turn refers to (explicit, voted for by the candidates, or the
 * session's), the events of its current round and its shared
 * workspace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/task.h"
#include "recall/pipeline.h"
#include "text/question.h"

/* Which task the turn is about: explicit > (continuation or not) the task
 * the lexical hits vote for > the session's current task. */
static int referenced_task(const am__recall_env *env, const char *uid, const am_query *q,
                           const am__event_row *cands, size_t n_cands, am_time at, int carry,
                           am__arena *ar, am__task_row **out)
{
    am__store *s = env->store;
    const char *task_id = q->task_id;
    int rc;
    *out = NULL;
    if (!task_id && n_cands) {
        /* votes of the top candidates, weighted by score */
        double total = 0, best = 0;
        size_t top = n_cands < 10 ? n_cands : 10;
        for (size_t i = 0; i < top; i++) total += cands[i].score > 0 ? cands[i].score : 0;
        for (size_t i = 0; i < top; i++) {
            if (!cands[i].task_id) continue;
            double v = 0;
            for (size_t j = 0; j < top; j++)
                if (cands[j].task_id && cands[j].score > 0 &&
                    strcmp(cands[j].task_id, cands[i].task_id) == 0)
                    v += cands[j].score;
            if (v > best) { best = v; task_id = cands[i].task_id; }
        }
        if (total <= 0 || best < 0.5 * total) task_id = NULL;
    }
    if (!task_id && q->session_id) {
        am__event_row *rows;
        size_t n;
        if ((rc = am__store_events_recent(s, uid, q->session_id, NULL, AM_TIME_NONE, 10, ar, &rows,
                                          &n)))
            return rc;
        for (size_t i = 0; i < n && !task_id; i++) {
            const char *left; /* a turn that left the task for none ends the search */
            if ((rc = am__task_switch_left(&rows[i], ar, &left))) return rc;
            if (left) break;
            task_id = rows[i].task_id;
        }
    }
    if (!task_id) return AM_OK;
    am__task_row *t = am__arena_alloc(ar, sizeof *t);
    if (!t) return AM_NOMEM;
    rc = am__store_task_get(s, uid, task_id, ar, t);
    if (rc == AM_NOTFOUND) return AM_OK;
    if (rc) return rc;
    /* the task as it stands now: a periodic round whose period ended is
     * over unless the turn continues it (domain/round.c) */
    if ((rc = am__round_view(ar, t, at, carry))) return rc;
    *out = t;
    return AM_OK;
}

int am__recall_cmp_score(const void *a, const void *b)
{
    const am__event_row *x = a, *y = b;
    return x->score < y->score ? 1 : x->score > y->score ? -1 : 0;
}

/* Task relevance: the events of the referenced task's current
 * round (since it was last done or cancelled, and since the round began:
 * domain/round.c) join the candidates. */
/* A question about a stale one-off itself ("when did I ask for bullet
 * points?") still finds it: the turn asks, and the event shares a third of
 * its tokens with it. */
static int asked_about(const am__recall_state *st, const am__event_row *e, int *yes)
{
    *yes = 0;
    if (!st->qnorm || !am__text_is_question(st->qnorm, st->qnorm_len, AM__TEXT_Q_ASKS)) return AM_OK;
    uint64_t es[AM__DEDUP_SET];
    size_t ne;
    int rc = am__tokcache_event_set(st->env->text, st->env->tokcache, e, es, &ne);
    if (rc) return rc;
    *yes = ne && am__set_overlap(es, ne, st->qset, st->nq) * 3 >= ne;
    return AM_OK;
}

static int add_task_events(const am__recall_state *st, const am__recall_env *env, const char *uid,
                           const am__task_row *task, am_time at, am__arena *ar,
                           am__event_row **events, size_t *n_events)
{
    am__store *s = env->store;
    am__task_change_row *h;
    size_t nh;
    int rc = am__store_task_history(s, uid, task->task_id, ar, &h, &nh);
    if (rc) return rc;
    am_time round_start = AM_TIME_NONE;
    for (size_t i = 0; i < nh; i++)
        if (strcmp(h[i].field, "status") == 0 && h[i].new_value &&
            (strcmp(h[i].new_value, "done") == 0 || strcmp(h[i].new_value, "cancelled") == 0) &&
            h[i].at <= at)
            round_start = h[i].at;
    /* a later round began after it (a new period, a reopened task):
     * events before that are the earlier rounds' */
    am_time began = task->round > 1 ? task->round_from : AM_TIME_NONE;
    if (began != AM_TIME_NONE && (round_start == AM_TIME_NONE || began > round_start))
        round_start = began - 1;
    am__event_row *rows;
    size_t n;
    if ((rc = am__store_events_recent(s, uid, NULL, task->task_id, at, 40, ar, &rows, &n)))
        return rc;
    am__event_row *all = am__arena_alloc(ar, (*n_events + n + 1) * sizeof *all);
    if (!all) return AM_NOMEM;
    /* A one-off instruction of an earlier round ("这次用要点式") is stale:
     * it is not shown again, not even as a relevant event. */
    size_t m = 0;
    for (size_t i = 0; i < *n_events; i++) {
        int stale = 0;
        for (size_t k = 0; k < nh && !stale && round_start != AM_TIME_NONE; k++)
            stale = strcmp(h[k].field, "note") == 0 && h[k].at <= round_start && h[k].event_id &&
                    strcmp(h[k].event_id, (*events)[i].id) == 0;
        if (stale) {
            int asked;
            if ((rc = asked_about(st, &(*events)[i], &asked))) return rc;
            stale = !asked;
        }
        /* (a turn found twice, by its words and by a bridge, counts once) */
        for (size_t k = 0; k < m && !stale; k++) stale = strcmp(all[k].id, (*events)[i].id) == 0;
        if (!stale) all[m++] = (*events)[i];
    }
    for (size_t i = 0; i < n; i++) {
        if (round_start != AM_TIME_NONE && rows[i].occurred_at <= round_start) continue;
        double bonus = 0.5 - 0.005 * (double)i; /* newest first */
        size_t k;
        for (k = 0; k < m; k++)
            if (strcmp(all[k].id, rows[i].id) == 0) break;
        if (k < m) all[k].score = all[k].score < 0 ? bonus : all[k].score + bonus;
        else {
            all[m] = rows[i];
            all[m++].score = bonus;
        }
    }
    if (m > 1) qsort(all, m, sizeof *all, am__recall_cmp_score);
    *events = all;
    *n_events = m;
    return AM_OK;
}

/* Fusion: the vector neighbours of the query join the lexical
 * candidates; score = (1 - w) x lexical + w x cosine / best cosine. */
static int fuse_vectors(const am__recall_env *env, const char *uid, const char *text, am_time as_of, int limit,
                        am__arena *ar, am__event_row **events, size_t *n_events, char *err,
                        size_t err_cap)
{
    const am_rank_config *r = env->rank;
    am__embedder *e = env->embedder;
    float *qv = am__arena_alloc(ar, (size_t)e->dim * sizeof *qv);
    if (!qv) return AM_NOMEM;
    char eerr[256];
    const char *texts[1] = {text};
    int rc = e->embed(e, texts, 1, qv, eerr, sizeof eerr);
    if (rc) {
        snprintf(err, err_cap, "recall: embedder: %.200s", eerr);
        return rc;
    }
    am__event_row *vrows;
    size_t nv;
    rc = env->store->vt->vectors.vec_scan(env->store, uid, e->id, qv, e->dim,
                                          as_of != AM_TIME_NONE ? as_of + 1 : AM_TIME_NONE, limit,
                                          r->vector_exact_max, ar, &vrows, &nv);
    if (rc) return rc;
    double best = 0;
    for (size_t i = 0; i < nv; i++)
        if (vrows[i].score > best) best = vrows[i].score;
    if (best <= 0) return AM_OK;
    am__event_row *all = am__arena_alloc(ar, (*n_events + nv + 1) * sizeof *all);
    if (!all) return AM_NOMEM;
    size_t m = *n_events;
    if (m) memcpy(all, *events, m * sizeof *all);
    double w = r->w_vector;
    /* Linear: scores scaled to the best of each list.  Reciprocal rank
     * (rrf_k > 0): ranks only, (1 - w) / (k + rank) and w / (k + rank),
     * scaled so that first in both lists scores 1; events below the
     * relevance floor (negative) stay there unless the vectors find them. */
    double k = r->rrf_k, top = k > 0 ? 1.0 / (k + 1) : 1.0;
    if (k > 0 && nv > 1) qsort(vrows, nv, sizeof *vrows, am__recall_cmp_score); /* ranks */
    for (size_t i = 0, rank = 0; i < m; i++)
        if (all[i].score > 0) all[i].score = k > 0 ? (1 - w) / (k + ++rank) / top : all[i].score * (1 - w);
    for (size_t i = 0, rank = 0; i < nv; i++) {
        double v = vrows[i].score / best;
        if (v <= 0) continue;
        if (k > 0) v = 1.0 / (k + ++rank) / top;
        size_t k;
        for (k = 0; k < *n_events && all[k].rid != vrows[i].rid; k++) {}
        if (k < *n_events) all[k].score = all[k].score < 0 ? w * v : all[k].score + w * v;
        else {
            all[m] = vrows[i];
            all[m++].score = w * v;
        }
    }
    if (m > 1) qsort(all, m, sizeof *all, am__recall_cmp_score);
    *events = all;
    *n_events = m;
    return AM_OK;
}


int am__recall_fuse(am__recall_state *st)
{
    const am__recall_env *env = st->env;
    const am_rank_config *r = env->rank;
    int rc;
    if (env->embedder && st->vector_ok && r->w_vector > 0 &&
        (rc = fuse_vectors(env, st->uid, st->q->text, st->as_of,
                           r->vector_candidates > 0 ? r->vector_candidates : st->limit, st->ar,
                           &st->events, &st->n_events, st->err, sizeof st->err)))
        return rc;
    if ((rc = referenced_task(env, st->uid, st->q, st->events, st->n_events, st->at,
                              st->rd.continuation, st->ar, &st->task)))
        return rc;
    if (st->task &&
        (rc = add_task_events(st, env, st->uid, st->task, st->at, st->ar, &st->events,
                              &st->n_events)))
        return rc;
    /* what each agent of the task is doing (a recall of the present) */
    if (st->task && st->as_of == AM_TIME_NONE &&
        (rc = env->store->vt->workspace.workspace_list(env->store, st->uid, st->task->task_id,
                                                       st->ar, &st->workspace, &st->n_workspace)))
        return rc;
    return AM_OK;
}
