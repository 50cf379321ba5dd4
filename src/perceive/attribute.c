/*
 * attribute.c -- which task an event belongs to (F5).
 *
 * An explicit task id wins.  Otherwise a text that continues earlier work
 * ("接着", "last time": the continuation cues of
 * text/lexicon/task_cues.c) is attributed by the tasks'
 * own events: its words are searched in the user's event index and the
 * hits vote for their tasks, weighted by score, so it works across
 * phrasing ("那个单子" finds the task whose events mention 单子).  Without
 * a cue or a match, the event stays on the session's current task (the
 * task of its latest event that has one).  A task other than the
 * session's current one is a topic jump, recorded by switch.c.
 */
#include "perceive/perceive.h"

#include <string.h>

#include "perceive/task.h"
#include "recall/lexical.h"

/* *task_id = the open task the text most likely continues, or NULL. */
static int vote_task(am__store *s, am__text *t, const char *uid, const char *text,
                     am__arena *ar, const char **task_id)
{
    *task_id = NULL;
    const char **terms;
    size_t nt;
    int rc = am__query_terms(t, text, ar, &terms, &nt);
    if (rc || nt == 0) return rc;
    am__event_row *rows;
    size_t n;
    rc = am__search_events(s, uid, terms, NULL, nt, 0.0, AM_TIME_NONE, AM_TIME_NONE, 30, ar,
                              &rows, &n, NULL);
    if (rc) return rc;
    const char *best = NULL;
    double best_votes = 0;
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].task_id) continue;
        double votes = 0;
        for (size_t j = 0; j < n; j++)
            if (rows[j].task_id && strcmp(rows[j].task_id, rows[i].task_id) == 0)
                votes += rows[j].score;
        if (votes > best_votes) {
            am__task_row tr;
            if (s->vt->task_get(s, uid, rows[i].task_id, ar, &tr) != AM_OK) continue;
            best_votes = votes;
            best = rows[i].task_id;
        }
    }
    *task_id = best;
    return AM_OK;
}

int am__perceive_attribute(am__perceive *x, const am_event *in, const char *norm,
                           size_t norm_len, const char **task_id, const char **switched_from)
{
    am__store *s = x->w.store;
    const char *current = NULL;
    int rc;
    *switched_from = NULL;
    if (in->session_id) {
        am__event_row *rows;
        size_t n;
        rc = s->vt->events_recent(s, x->w.uid, in->session_id, NULL, AM_TIME_NONE, 20,
                                  x->w.ar, &rows, &n);
        if (rc) return rc;
        for (size_t i = 0; i < n && !current; i++) current = rows[i].task_id;
    }
    *task_id = in->task_id;
    if (!*task_id && am__task_continuation(norm, norm_len) &&
        (rc = vote_task(s, x->w.text, x->w.uid, in->text, x->w.ar, task_id)))
        return rc;
    if (!*task_id) *task_id = current;
    if (*task_id && current && strcmp(*task_id, current) != 0) *switched_from = current;
    return AM_OK;
}
