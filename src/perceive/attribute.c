/*
 * attribute.c -- task attribution by voting of matching events.
 */
#include "perceive/attribute.h"

#include <string.h>

#include "perceive/task.h"

int am__task_guess(am__store *s, am__text *t, const char *uid,
                   const char *text, am__arena *ar, const char **task_id)
{
    *task_id = NULL;
    const char **terms;
    size_t nt;
    int rc = am__query_terms(t, text, ar, &terms, &nt);
    if (rc || nt == 0) return rc;
    am__event_row *rows;
    size_t n;
    rc = s->vt->events_search(s, uid, terms, NULL, nt, 0.0, AM_TIME_NONE, AM_TIME_NONE, 30, ar,
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
