/* SPDX-License-Identifier: Apache-2.0 */
/*
 * consolidate.c -- near-duplicates become one item (maintain.h).
 *
 * Two current items of one user and scope are one attribute stated twice
 * when they have the same key, or the same kind and near text: 0.9 of
 * their words shared (token Jaccard) at about the same length, merge.c's
 * rule for a repetition.  They arise where the write path could not see
 * the other (two statements in one turn under keys of their own, an import
 * beside a statement, an archived item stated again).  The item kept is
 * the active one with the most sources, then the earliest; it is
 * reinforced -- a new version holding the others' sources, a little more
 * confidence -- and the others are closed (invalidated, reason
 * consolidated).  An archived duplicate is closed into an active one; two
 * archived ones stay as they are.  No model is asked.
 */
#include "lifecycle/maintain.h"

#include <string.h>

#include "write/semantic/merge.h"
#include "text/analyze.h"

#define NEAR 0.9
#define SET_MAX 256

typedef struct cand {
    am__item_row *row;
    uint64_t *set;
    size_t n;
    int gone;
} cand;

static int same_scope(const char *a, const char *b)
{
    return strcmp(a ? a : "global", b ? b : "global") == 0;
}

static int near(const cand *a, const cand *b)
{
    const am__item_row *x = a->row, *y = b->row;
    if (!same_scope(x->scope, y->scope)) return 0;
    if (x->key && y->key && strcmp(x->key, y->key) == 0) return 1;
    if (strcmp(x->kind, y->kind) != 0) return 0;
    size_t la = strlen(x->text), lb = strlen(y->text);
    if (la > 2 * lb + 8 || lb > 2 * la + 8 || a->n + b->n == 0) return 0;
    size_t k = am__set_overlap(a->set, a->n, b->set, b->n);
    return (double)k / (double)(a->n + b->n - k) >= NEAR;
}

/* 1 when a is the one to keep rather than b */
static int keeps(const am__item_row *a, const am__item_row *b)
{
    int aa = strcmp(a->status, "active") == 0, ba = strcmp(b->status, "active") == 0;
    if (aa != ba) return aa;
    long ca = a->source_count > (long)a->n_sources ? a->source_count : (long)a->n_sources;
    long cb = b->source_count > (long)b->n_sources ? b->source_count : (long)b->n_sources;
    if (ca != cb) return ca > cb;
    if (a->valid_from != b->valid_from) return a->valid_from < b->valid_from;
    return a->rid < b->rid;
}

/* Merge dup into keep: keep reinforced with dup's sources, dup closed. */
static int merge_pair(am__wctx *w, am__item_row *keep, am__item_row *dup)
{
    int rc;
    if ((rc = am__semantic_sources(w, keep)) || (rc = am__semantic_sources(w, dup))) return rc;
    am__item_row nv = *keep;
    nv.confidence = keep->confidence + 0.05 > 1 ? 1 : keep->confidence + 0.05;
    if (dup->confidence > nv.confidence) nv.confidence = dup->confidence;
    if ((rc = am__semantic_close_version(w, keep)) ||
        (rc = am__semantic_insert_version(w, keep, &nv, dup->sources, dup->n_sources)))
        return rc;
    if ((rc = am__semantic_record(w, "memory.consolidated", keep->lineage_id, keep->scope,
                                  keep->key, NULL)))
        return rc;
    am__item_row old = *dup;
    old.valid_to = w->now;
    old.status = "invalidated";
    if ((rc = am__semantic_close_version(w, dup)) ||
        (rc = am__semantic_insert_kept(w, dup, &old)))
        return rc;
    return am__semantic_record(w, "memory.merged", dup->lineage_id, dup->scope, dup->key, NULL);
}

int am__life_consolidate(am__wctx *w, int budget, am__life_tally *t, int *done)
{
    am__item_row *rows, *arch;
    size_t n, na;
    int rc = am__life_items(w, &rows, &n, &arch, &na);
    if (rc) return rc;
    *done = 0;
    cand *c = am__arena_alloc(w->ar, (n + na + 1) * sizeof *c);
    if (!c) return AM_NOMEM;
    size_t m = 0;
    for (size_t k = 0; k < n + na; k++) {
        am__item_row *it = k < n ? &rows[k] : &arch[k - n];
        /* active and archived values; a question waits for its answer */
        if ((strcmp(it->status, "active") != 0 && strcmp(it->status, "archived") != 0) ||
            it->valid_from > w->now)
            continue;
        c[m].row = it;
        c[m].gone = 0;
        c[m].set = am__arena_alloc(w->ar, SET_MAX * sizeof *c[m].set);
        if (!c[m].set) return AM_NOMEM;
        if ((rc = am__text_token_set(w->text, it->text, strlen(it->text), c[m].set, SET_MAX,
                                     &c[m].n)))
            return rc;
        m++;
    }
    int moved = 0;
    for (size_t i = 0; i < m; i++) {
        for (size_t j = i + 1; j < m; j++) {
            if (c[i].gone || c[j].gone || strcmp(c[i].row->lineage_id, c[j].row->lineage_id) == 0 ||
                !near(&c[i], &c[j]))
                continue;
            int ki = keeps(c[i].row, c[j].row);
            cand *keep = ki ? &c[i] : &c[j], *dup = ki ? &c[j] : &c[i];
            if (strcmp(keep->row->status, "active") != 0) continue; /* both archived */
            if (moved >= budget) return AM_OK;
            if ((rc = merge_pair(w, keep->row, dup->row))) return rc;
            /* the kept one is a new version now: compared again next step */
            keep->gone = dup->gone = 1;
            t->consolidated++;
            moved++;
        }
    }
    *done = moved == 0;
    return AM_OK;
}
