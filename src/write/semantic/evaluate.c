/* SPDX-License-Identifier: Apache-2.0 */
/*
 * evaluate.c -- only evaluative sentences move confidence.
 *
 * An evaluation is the user judging the thing at hand ("这个格式太难改了，
 * 我不喜欢", "this template works well"; distill/rules.c,
 * am__distill_evaluation).  It names no new value, so it states nothing
 * new; it is evidence about the standing preference or constraint that
 * produced the thing.  That item is the current preference/constraint whose
 * attribute the evaluation names (格式 -> .format, "Word" -> .format: the
 * attribute table of text/lexicon/distill_cues.c), or, when it names none,
 * the one whose text it overlaps most (token Jaccard >= MATCH_JACCARD); of
 * equals, the one stated last.  A question, a hypothetical, someone else's
 * words, a narration or a plain mention ("what format do I use?") move
 * nothing.
 *
 * A negative evaluation lowers the item's confidence by DOWN_STEP, a new
 * version citing the event (bitemporal, as merge.c writes them); at
 * PENDING_BELOW or lower the version becomes pending_confirm -- the item is
 * no longer taken for granted, and the next recall on its topic asks the
 * user (recall/rank.c, recall/render.c).  From a stated item (0.8-0.85) it
 * takes two: the first complaint may be about this one document, the second
 * is counter-evidence; an inferred item (0.6) is in doubt at the first.  A
 * positive evaluation raises it by UP_STEP (at most UP_CAP) and settles a
 * pending one again.  One change per item per event.  A conflict question
 * (a pending_confirm version beside an active one, merge.c) is not touched:
 * it waits for the user's answer.
 */
#include "write/semantic/observe_int.h"

#include <string.h>

#include "text/lexicon/lexicon.h"

#define DOWN_STEP 0.15
#define UP_STEP 0.05
#define UP_CAP 0.95
#define PENDING_BELOW 0.6
#define MATCH_JACCARD 0.2

/* The attribute names the evaluation mentions, as a bit set over the
 * attribute table. */
static unsigned attributes_of(const char *norm, size_t n)
{
    size_t na = sizeof am__lex_distill_attributes / sizeof *am__lex_distill_attributes;
    unsigned set = 0;
    for (size_t i = 0; i < na && i < 32; i++)
        if (am__cue_scan(norm, n, am__lex_distill_attributes[i].cues, NULL, AM__CUE_FIRST, NULL))
            set |= 1u << i;
    return set;
}

/* 1 when the key's attribute ("report.format") is one of set. */
static int key_has(const char *key, unsigned set)
{
    const char *dot = key ? strrchr(key, '.') : NULL;
    if (!dot) return 0;
    size_t na = sizeof am__lex_distill_attributes / sizeof *am__lex_distill_attributes;
    for (size_t i = 0; i < na && i < 32; i++)
        if ((set & (1u << i)) && strcmp(dot + 1, am__lex_distill_attributes[i].name) == 0)
            return 1;
    return 0;
}

/* A pending_confirm version beside an active one of its lineage: a
 * conflict question, not a doubted item. */
static int is_conflict(const am__item_row *rows, size_t n, const am__item_row *it)
{
    if (strcmp(it->status, "pending_confirm") != 0) return 0;
    for (size_t i = 0; i < n; i++)
        if (&rows[i] != it && strcmp(rows[i].status, "active") == 0 &&
            strcmp(rows[i].lineage_id, it->lineage_id) == 0)
            return 1;
    return 0;
}

/* The item the evaluation is about, or NULL. */
static int target(am__wctx *w, const am__event_row *ev, const char *norm, size_t n,
                  am__item_row *rows, size_t nrows, am__item_row **out)
{
    *out = NULL;
    unsigned attrs = attributes_of(norm, n);
    double best = 0;
    /* the event's token set once; an item's stored set (its text's tokens
     * and its key's) bounds the overlap: |A ∩ E| / |A ∪ E| <= |set ∩ E| / |E| */
    uint64_t se[AM__OBS_MAX_SET], si[AM__OBS_MAX_SET];
    size_t ne, ni;
    int rc = am__text_token_set(w->text, ev->content, strlen(ev->content), se, AM__OBS_MAX_SET,
                                &ne);
    if (rc) return rc;
    for (size_t i = 0; i < nrows; i++) {
        am__item_row *it = &rows[i];
        if (strcmp(it->kind, "preference") != 0 && strcmp(it->kind, "constraint") != 0) continue;
        if (strcmp(it->status, "active") != 0 && strcmp(it->status, "pending_confirm") != 0)
            continue;
        if (is_conflict(rows, nrows, it)) continue;
        int named = key_has(it->key, attrs);
        if (!named && ne && it->tokens &&
            am__token_blob_get(it->tokens, it->tokens_len, si, AM__ITEM_SET, &ni) &&
            ni < AM__ITEM_SET && (double)am__set_overlap(si, ni, se, ne) < MATCH_JACCARD * (double)ne)
            continue;
        if ((rc = am__text_token_set(w->text, it->text, strlen(it->text), si, AM__OBS_MAX_SET, &ni)))
            return rc;
        size_t k = am__set_overlap(si, ni, se, ne);
        double j = ni + ne ? (double)k / (double)(ni + ne - k) : 0;
        double score = named ? 1 + j : j >= MATCH_JACCARD ? j : 0;
        if (score <= 0) continue;
        if (score > best + 1e-9 ||
            (score > best - 1e-9 && *out && it->valid_from > (*out)->valid_from)) {
            best = score;
            *out = it;
        }
    }
    return AM_OK;
}

int am__semantic_evaluate(am__wctx *w, const am__event_row *ev, const char *norm, size_t n,
                          am__observe_out *out)
{
    int polarity = am__distill_evaluation(norm, n);
    if (!polarity) return AM_OK;
    am__item_row *rows, *it;
    size_t nrows, m = 0;
    /* the items as they stand (valid from the evaluation's time on); the
     * sources of the one it is about only */
    int rc = am__semantic_latest(w, &rows, &nrows);
    if (rc) return rc;
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].valid_from <= w->now) rows[m++] = rows[i];
    if ((rc = target(w, ev, norm, n, rows, m, &it)) || !it ||
        (rc = am__semantic_sources(w, it)))
        return rc;
    am__item_row nv = *it;
    const char *op;
    if (polarity < 0) {
        nv.confidence = it->confidence - DOWN_STEP < 0 ? 0 : it->confidence - DOWN_STEP;
        nv.status = nv.confidence <= PENDING_BELOW + 1e-9 ? "pending_confirm" : "active";
        op = strcmp(nv.status, "pending_confirm") == 0 && strcmp(it->status, "active") == 0
                 ? "memory.pending"
                 : "memory.weakened";
    } else {
        double cap = it->confidence > UP_CAP ? it->confidence : UP_CAP;
        nv.confidence = it->confidence + UP_STEP > cap ? cap : it->confidence + UP_STEP;
        nv.status = nv.confidence > PENDING_BELOW + 1e-9 ? "active" : it->status;
        op = "memory.reinforced";
        if (nv.confidence <= it->confidence && strcmp(nv.status, it->status) == 0) return AM_OK;
    }
    if ((rc = am__semantic_close_version(w, it)) ||
        (rc = am__semantic_insert_version(w, it, &nv, &ev->id, 1)))
        return rc;
    out->updated++;
    return am__semantic_record(w, op, it->lineage_id, it->scope, it->key, NULL);
}
