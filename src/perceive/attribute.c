/*
 * attribute.c -- task attribution by voting of matching events.
 */
#include "perceive/attribute.h"

#include <string.h>

#include "perceive/task.h"

#define MAX_TERMS 64

typedef struct terms_ctx {
    am__arena *ar;
    const char **terms;
    size_t n;
    uint64_t seen[MAX_TERMS];
} terms_ctx;

static int term_cb(void *ctx, int kind, const char *tok, size_t len,
                   size_t start, size_t end)
{
    (void)kind; (void)start; (void)end;
    terms_ctx *c = ctx;
    if (c->n >= MAX_TERMS || am__text_stopword(tok, len)) return 0;
    uint64_t h = am__hash64(tok, len);
    for (size_t i = 0; i < c->n; i++)
        if (c->seen[i] == h) return 0;
    const char *d = am__arena_strndup(c->ar, tok, len);
    if (!d) return AM_NOMEM;
    c->seen[c->n] = h;
    c->terms[c->n++] = d;
    return 0;
}

int am__query_terms(am__text *t, const char *text, am__arena *ar,
                    const char ***terms, size_t *n)
{
    terms_ctx c;
    memset(&c, 0, sizeof c);
    c.ar = ar;
    c.terms = am__arena_alloc(ar, MAX_TERMS * sizeof *c.terms);
    if (!c.terms) return AM_NOMEM;
    int rc = am__text_tokenize(t, text, strlen(text), term_cb, &c);
    *terms = c.terms;
    *n = c.n;
    return rc;
}

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
    rc = s->vt->events_search(s, uid, terms, nt, 0.0, AM_TIME_NONE, AM_TIME_NONE, 30, ar,
                              &rows, &n);
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
