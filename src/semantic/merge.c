/*
 * merge.c -- bitemporal versions of memory items.  See merge.h.
 */
#include "semantic/merge.h"

#include <stdio.h>
#include <string.h>

#define MAX_SET 256

void am__semantic_kind_defaults(const am_rank_config *r, const char *kind,
                                double *base, double *half_life_days)
{
    if (strcmp(kind, "preference") == 0) {
        *base = r->base_preference; *half_life_days = r->half_life_preference_days;
    } else if (strcmp(kind, "constraint") == 0) {
        *base = r->base_constraint; *half_life_days = r->half_life_preference_days;
    } else if (strcmp(kind, "profile") == 0 || strcmp(kind, "fact") == 0) {
        *base = r->base_profile; *half_life_days = r->half_life_preference_days * 3;
    } else if (strcmp(kind, "task_conclusion") == 0 || strcmp(kind, "pattern") == 0) {
        *base = r->base_conclusion; *half_life_days = r->half_life_conclusion_days;
    } else {
        *base = r->base_temp; *half_life_days = r->half_life_temp_days;
    }
}

static int current_items(am__wctx *w, am__item_row **rows, size_t *n)
{
    return w->store->vt->items_list(w->store, w->uid, AM__ITEMS_CURRENT, w->now,
                                    w->ar, rows, n);
}

int am__semantic_insert_version(am__wctx *w, const am__item_row *from, am__item_row *nv,
                                const char *const *extra, size_t n_extra)
{
    char id[27];
    am__ulid_new(w->ulid, w->now, id);
    nv->id = am__arena_strdup(w->ar, id);
    nv->recorded_at = w->now;
    nv->superseded_at = AM_TIME_NONE;
    nv->reinforced_at = AM_TIME_NONE; /* recorded now */
    /* from's (bounded) list and count, plus the extra sources; the store
     * keeps the first and latest of the list (store.h) */
    size_t ns = from ? from->n_sources : 0;
    long count = from && from->source_count > (long)ns ? from->source_count : (long)ns;
    const char **src = am__arena_alloc(w->ar, (ns + n_extra + 1) * sizeof *src);
    if (!src || !nv->id) return AM_NOMEM;
    for (size_t i = 0; i < ns; i++) src[i] = from->sources[i];
    for (size_t e = 0; e < n_extra; e++) {
        int dup = 0;
        for (size_t i = 0; i < ns && !dup; i++) dup = strcmp(src[i], extra[e]) == 0;
        if (!dup) {
            src[ns++] = extra[e];
            count++;
        }
    }
    nv->sources = src;
    nv->n_sources = ns;
    nv->source_count = count;
    /* its token set, for recalls to rank it by (not from's: the text may
     * have changed) */
    uint64_t set[AM__ITEM_SET];
    size_t nt;
    unsigned char *blob = am__arena_alloc(w->ar, AM__TOKBLOB_MAX);
    if (!blob) return AM_NOMEM;
    int rc = am__text_item_set(w->text, nv->text, nv->key, set, &nt);
    if (rc) return rc;
    nv->tokens = blob;
    nv->tokens_len = am__token_blob_put(set, nt, blob);
    return w->store->vt->item_insert(w->store, w->uid, nv);
}

int am__semantic_close_version(am__wctx *w, const am__item_row *it)
{
    return w->store->vt->item_close(w->store, w->uid, it->id, w->now);
}

/* A copy of `from` with the given changes; sources are from's sources plus
 * extra_source (may be NULL). */
static int insert_version(am__wctx *w, const am__item_row *from, am__item_row *nv,
                          const char *extra_source)
{
    return am__semantic_insert_version(w, from, nv, extra_source ? &extra_source : NULL,
                                       extra_source ? 1 : 0);
}

/* Similarity of two short texts: |A∩B| / |A∪B| over token sets. */
static double jaccard(am__wctx *w, const char *a, const char *b)
{
    uint64_t sa[MAX_SET], sb[MAX_SET];
    size_t na, nb;
    if (am__text_token_set(w->text, a, strlen(a), sa, MAX_SET, &na) ||
        am__text_token_set(w->text, b, strlen(b), sb, MAX_SET, &nb))
        return 0;
    if (na + nb == 0) return 1;
    size_t k = am__set_overlap(sa, na, sb, nb);
    return (double)k / (double)(na + nb - k);
}

static int same_scope(const char *a, const char *b)
{
    return strcmp(a ? a : "global", b ? b : "global") == 0;
}

int am__semantic_put(am__wctx *w, const am__statement *st, int *outcome,
                     char *lineage)
{
    am__item_row *rows;
    size_t n;
    int rc = current_items(w, &rows, &n);
    if (rc) return rc;
    am__item_row *same_key = NULL, *near = NULL;
    double best = 0;
    am__item_row *pending = NULL; /* the lineage's open question, if any */
    for (size_t i = 0; i < n; i++) {
        if (!same_scope(rows[i].scope, st->scope)) continue;
        int active = strcmp(rows[i].status, "active") == 0;
        if (!active && strcmp(rows[i].status, "pending_confirm") != 0) continue;
        if (strcmp(rows[i].key, st->key) == 0) {
            if (active) same_key = &rows[i];
            else pending = &rows[i];
        }
        double j = jaccard(w, rows[i].text, st->text);
        if (j > best) { best = j; near = &rows[i]; }
    }
    /* F22: an item in doubt (pending_confirm with no active version: the
     * user's evaluations lowered it, evaluate.c) that is stated again is
     * settled by the statement: it is the key's current value again. */
    if (!same_key && pending) {
        int conflict = 0;
        for (size_t i = 0; i < n && !conflict; i++)
            conflict = strcmp(rows[i].status, "active") == 0 &&
                       strcmp(rows[i].lineage_id, pending->lineage_id) == 0;
        if (!conflict) {
            same_key = pending;
            pending = NULL;
        }
    }
    if (near && best >= 0.9 && strcmp(near->status, "pending_confirm") == 0 && near == same_key)
        near = NULL; /* restated, not reinforced: the supersede below settles it */
    /* F9: a near-duplicate reinforces the existing item: a new version
     * while its confidence grows, then one more source of the current one
     * (nothing else changes: no version, linear storage). */
    if (near && best >= 0.9) {
        am__item_row nv = *near;
        nv.confidence = near->confidence + 0.05 > 1 ? 1 : near->confidence + 0.05;
        if (nv.confidence > near->confidence) {
            if ((rc = am__semantic_close_version(w, near)) ||
                (rc = insert_version(w, near, &nv, st->event_id)))
                return rc;
        } else if ((rc = w->store->vt->item_reinforce(w->store, w->uid, near->rid,
                                                      st->event_id, w->now))) {
            return rc;
        }
        *outcome = AM__M_REINFORCED;
        if (lineage) snprintf(lineage, 27, "%s", near->lineage_id);
        return AM_OK;
    }
    am__item_row nv;
    memset(&nv, 0, sizeof nv);
    nv.scope = st->scope ? st->scope : "global";
    nv.kind = st->kind;
    nv.key = st->key;
    nv.text = st->text;
    nv.value_json = st->value_json;
    nv.confidence = st->confidence;
    am__semantic_kind_defaults(w->rank, st->kind, &nv.base_score, &nv.half_life_days);
    nv.valid_from = w->now;
    nv.valid_to = AM_TIME_NONE;
    nv.status = "active";
    char lid[27];
    if (same_key) {
        nv.lineage_id = same_key->lineage_id;
        if (st->confidence + 1e-9 >= same_key->confidence) {
            /* F11 supersede: close, re-state the old value up to now. */
            am__item_row old = *same_key;
            old.valid_to = w->now;
            if ((rc = am__semantic_close_version(w, same_key)) ||
                (rc = insert_version(w, same_key, &old, NULL)))
                return rc;
            *outcome = AM__M_SUPERSEDED;
        } else {
            /* one open question per item: a newer one replaces it */
            if (pending && (rc = am__semantic_close_version(w, pending))) return rc;
            nv.status = "pending_confirm";
            *outcome = AM__M_PENDING;
        }
    } else {
        am__ulid_new(w->ulid, w->now, lid);
        nv.lineage_id = am__arena_strdup(w->ar, lid);
        *outcome = AM__M_CREATED;
    }
    if ((rc = insert_version(w, NULL, &nv, st->event_id))) return rc;
    if (lineage) snprintf(lineage, 27, "%s", nv.lineage_id);
    return AM_OK;
}

static int invalidate_row(am__wctx *w, am__item_row *it)
{
    am__item_row old = *it;
    old.valid_to = w->now;
    old.status = "invalidated";
    int rc = am__semantic_close_version(w, it);
    if (rc) return rc;
    return insert_version(w, it, &old, NULL);
}

int am__semantic_invalidate(am__wctx *w, const char *text, const char *scope,
                            int *outcome, char *lineage, char key[AM__KEY_MAX])
{
    am__item_row *rows;
    size_t n;
    int rc = current_items(w, &rows, &n);
    if (rc) return rc;
    uint64_t q[MAX_SET];
    size_t nq;
    if ((rc = am__text_token_set(w->text, text, strlen(text), q, MAX_SET, &nq)))
        return rc;
    am__item_row *best = NULL;
    double best_score = 0;
    for (size_t i = 0; i < n; i++) {
        if (!same_scope(rows[i].scope, scope) && strcmp(rows[i].scope, "global") != 0)
            continue;
        uint64_t s[MAX_SET];
        size_t ns;
        if ((rc = am__text_token_set(w->text, rows[i].text, strlen(rows[i].text), s,
                                     MAX_SET, &ns)))
            return rc;
        size_t k = am__set_overlap(q, nq, s, ns);
        double score = ns ? (double)k / (double)ns : 0;
        /* need two shared tokens, or most of a short item */
        if ((k >= 2 || score >= 0.5) && score + 0.01 * (double)k > best_score) {
            best_score = score + 0.01 * (double)k;
            best = &rows[i];
        }
    }
    if (!best) {
        *outcome = AM__M_NOTHING;
        return AM_OK;
    }
    if ((rc = invalidate_row(w, best))) return rc;
    *outcome = AM__M_INVALIDATED;
    if (lineage) snprintf(lineage, 27, "%s", best->lineage_id);
    if (key) snprintf(key, AM__KEY_MAX, "%s", best->key ? best->key : "");
    return AM_OK;
}

int am__semantic_invalidate_recent(am__wctx *w, const char *const *recent, size_t n_recent,
                                   const char *scope, int *outcome, char *lineage)
{
    am__item_row *rows;
    size_t n;
    int rc = current_items(w, &rows, &n);
    if (rc) return rc;
    am__item_row *best = NULL;
    size_t best_rank = n_recent; /* the index of its newest source among recent */
    for (size_t i = 0; i < n; i++) {
        am__item_row *it = &rows[i];
        if (strcmp(it->status, "active") != 0 ||
            (!same_scope(it->scope, scope) && strcmp(it->scope, "global") != 0))
            continue;
        size_t rank = n_recent;
        for (size_t k = 0; k < n_recent && rank == n_recent; k++)
            for (size_t j = 0; j < it->n_sources; j++)
                if (strcmp(it->sources[j], recent[k]) == 0) {
                    rank = k;
                    break;
                }
        /* stated in the recent turns first (the newest wins), else the
         * item stated last */
        if (!best || rank < best_rank ||
            (rank == best_rank && it->valid_from > best->valid_from))
            best = it, best_rank = rank;
    }
    if (!best) {
        *outcome = AM__M_NOTHING;
        return AM_OK;
    }
    if ((rc = invalidate_row(w, best))) return rc;
    *outcome = AM__M_INVALIDATED;
    if (lineage) snprintf(lineage, 27, "%s", best->lineage_id);
    return AM_OK;
}

/* ------------------------------------------------------------ events */

int am__semantic_event(am__wctx *w, const char *op, const char *lineage, const char *key,
                       const char *detail)
{
    static const struct { const char *op, *type, *detail; } map[] = {
        {"memory.created", "memory.created", NULL},
        {"memory.promoted", "memory.created", "promoted"},
        {"memory.updated", "memory.updated.", "superseded"},
        {"memory.pending", "memory.updated.", "pending_confirm"},
        {"memory.invalidated", "memory.invalidated", NULL},
    };
    size_t i = 0;
    while (i < sizeof map / sizeof *map && strcmp(map[i].op, op) != 0) i++;
    if (i == sizeof map / sizeof *map) return AM_OK; /* no event of its own */
    const char *type = map[i].type;
    if (type[strlen(type) - 1] == '.') { /* memory.updated.<key> */
        size_t tl = strlen(type), kl = key ? strlen(key) : 0;
        char *t = am__arena_alloc(w->ar, tl + kl + 1);
        if (!t) return AM_NOMEM;
        memcpy(t, type, tl);
        memcpy(t + tl, key ? key : "", kl + 1);
        if (!kl) t[tl - 1] = 0; /* no key: "memory.updated" */
        type = t;
    }
    am__outbox_row r = {0, w->clock ? w->clock : w->now,
                        w->event_id ? w->now : AM_TIME_NONE,
                        w->uid, type, lineage, NULL, w->event_id, key,
                        detail ? detail : map[i].detail, NULL};
    return w->store->vt->outbox_put(w->store, &r);
}

int am__semantic_record(am__wctx *w, const char *op, const char *lineage, const char *key,
                        const char *detail)
{
    int rc = w->store->vt->audit(w->store, w->uid, w->now, op, "memory", lineage, key);
    return rc ? rc : am__semantic_event(w, op, lineage, key, detail);
}

/* ------------------------------------------------------------ feedback */

int am__semantic_feedback(am__wctx *w, const char *id, int action,
                          const char *text)
{
    am__item_row *rows;
    size_t n;
    int rc = current_items(w, &rows, &n);
    if (rc) return rc;
    am__item_row *it = NULL;
    for (size_t i = 0; i < n && !it; i++)
        if (strcmp(rows[i].id, id) == 0 || strcmp(rows[i].lineage_id, id) == 0)
            it = &rows[i];
    if (!it) return AM_NOTFOUND;
    am__item_row nv = *it;
    switch (action) {
    case AM_FEEDBACK_CONFIRM:
        nv.confidence = it->confidence + 0.1 > 1 ? 1 : it->confidence + 0.1;
        nv.status = "active";
        if ((rc = am__semantic_close_version(w, it)) || (rc = insert_version(w, it, &nv, NULL)))
            return rc;
        return am__semantic_event(w, "memory.updated", it->lineage_id, it->key, "confirmed");
    case AM_FEEDBACK_REJECT:
        if ((rc = invalidate_row(w, it))) return rc;
        return am__semantic_event(w, "memory.invalidated", it->lineage_id, it->key, "rejected");
    case AM_FEEDBACK_CORRECT: {
        am__item_row old = *it;
        old.valid_to = w->now;
        if ((rc = am__semantic_close_version(w, it)) || (rc = insert_version(w, it, &old, NULL)))
            return rc;
        nv.text = text;
        nv.value_json = "null";
        nv.confidence = 0.95;
        nv.status = "active";
        nv.valid_from = w->now;
        nv.valid_to = AM_TIME_NONE;
        if ((rc = insert_version(w, it, &nv, NULL))) return rc;
        return am__semantic_event(w, "memory.updated", it->lineage_id, it->key, "corrected");
    }
    default:
        return AM_MISUSE;
    }
}
