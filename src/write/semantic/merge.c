/* SPDX-License-Identifier: Apache-2.0 */
/*
 * merge.c -- bitemporal versions of memory items.  See merge.h.
 */
#include "write/semantic/merge.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "text/understand.h"

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
    return w->store->vt->items.items_list(w->store, w->uid, AM__ITEMS_CURRENT, w->now, w->ar, rows,
                                          n);
}

/* System time: when the engine records a version (the clock), as opposed
 * to the valid time w->now (the event's occurred_at). */
static am_time sys_now(const am__wctx *w)
{
    return w->clock ? w->clock : w->now;
}

/* The latest value of every lineage (current in system time, open-ended
 * validity), whatever the statement's own time: a statement that arrives
 * late meets the versions valid from after it.  Without their sources:
 * only the version a new one is made from needs them (read_sources) --
 * reading every item's list was a sub-query per item on every statement. */
#define LATEST INT64_MAX
#define LATEST_FLAGS (AM__ITEMS_CURRENT | AM__ITEMS_NO_SOURCES | AM__ITEMS_NO_HEAT)

/* 1 when an ended row r (valid_to set) of the rows valid at w->now is an
 * item that expires rather than a value a later one closed: its end is
 * still ahead of when it was written and no open version of its lineage
 * follows it. */
static int expiring(const am__item_row *r, const am__item_row *open, size_t n_open)
{
    if (am__item_expiry(r) == AM_TIME_NONE) return 0;
    for (size_t i = 0; i < n_open; i++)
        if (strcmp(open[i].lineage_id, r->lineage_id) == 0) return 0;
    return 1;
}

static int latest_items(am__wctx *w, am__item_row **rows, size_t *n)
{
    int rc = w->store->vt->items.items_list(w->store, w->uid, LATEST_FLAGS, LATEST, w->ar, rows, n);
    if (rc || w->now == LATEST) return rc;
    /* and the items that expire, still valid at the statement's time */
    am__item_row *at;
    size_t n_at, k = 0;
    if ((rc = w->store->vt->items.items_list(w->store, w->uid, LATEST_FLAGS, w->now, w->ar, &at,
                                             &n_at)))
        return rc;
    for (size_t i = 0; i < n_at; i++)
        if (expiring(&at[i], *rows, *n)) at[k++] = at[i];
    if (!k) return AM_OK;
    am__item_row *all = am__arena_alloc(w->ar, (*n + k) * sizeof *all);
    if (!all) return AM_NOMEM;
    if (*n) memcpy(all, *rows, *n * sizeof *all);
    memcpy(all + *n, at, k * sizeof *all);
    *rows = all;
    *n += k;
    return AM_OK;
}

am_time am__semantic_end_of(const am__wctx *w, const am__statement *st)
{
    if (st->expires_at != 0 && st->expires_at != AM_TIME_NONE) return st->expires_at;
    double days = 0;
    if (strcmp(st->kind, "temp") == 0) days = w->rank->ttl_temp_days;
    else if (strcmp(st->kind, "task_conclusion") == 0) days = w->rank->ttl_conclusion_days;
    if (days <= 0) return AM_TIME_NONE;
    return w->now + (am_time)(days * 86400000.0);
}

/* The later of two ends (AM_TIME_NONE: never, later than any). */
static am_time later_end(am_time a, am_time b)
{
    if (a == AM_TIME_NONE || b == AM_TIME_NONE) return AM_TIME_NONE;
    return a > b ? a : b;
}

static int read_sources(am__wctx *w, am__item_row *it);

int am__semantic_latest(am__wctx *w, am__item_row **rows, size_t *n)
{
    return latest_items(w, rows, n);
}

int am__semantic_sources(am__wctx *w, am__item_row *it)
{
    return read_sources(w, it);
}

/* it's sources (a row of latest_items), as items_list lists them */
static int read_sources(am__wctx *w, am__item_row *it)
{
    const char **ids;
    size_t n;
    int rc = am__store_item_sources(w->store, w->uid, it->rid, w->ar, &ids, &n);
    if (rc) return rc;
    it->sources = ids;
    it->n_sources = n;
    return AM_OK;
}

static int insert_impl(am__wctx *w, const am__item_row *from, am__item_row *nv,
                       const char *const *extra, size_t n_extra, int keep_reinforced);

int am__semantic_insert_version(am__wctx *w, const am__item_row *from, am__item_row *nv,
                                const char *const *extra, size_t n_extra)
{
    return insert_impl(w, from, nv, extra, n_extra, 0);
}

int am__semantic_insert_kept(am__wctx *w, const am__item_row *from, am__item_row *nv)
{
    return insert_impl(w, from, nv, NULL, 0, 1);
}

static int insert_impl(am__wctx *w, const am__item_row *from, am__item_row *nv,
                       const char *const *extra, size_t n_extra, int keep_reinforced)
{
    char id[27];
    am__ulid_new(w->ulid, w->now, id);
    nv->id = am__arena_strdup(w->ar, id);
    nv->recorded_at = sys_now(w);
    nv->superseded_at = AM_TIME_NONE;
    /* heat and dedup age it by the statement's time; a change of status
     * alone (lifecycle/) keeps the time it was last reinforced */
    if (!keep_reinforced || nv->reinforced_at == AM_TIME_NONE) nv->reinforced_at = w->now;
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
    return w->store->vt->items.item_insert(w->store, w->uid, nv);
}

/* The metadata of a version this write states: the write's own
 * (w->metadata; "" clears it), else the predecessor's (may be NULL). */
static const char *metadata_of(const am__wctx *w, const am__item_row *pred)
{
    if (w->metadata) return *w->metadata ? w->metadata : NULL;
    return pred ? pred->metadata : NULL;
}

int am__semantic_close_version(am__wctx *w, const am__item_row *it)
{
    return am__store_item_close(w->store, w->uid, it->id, sys_now(w));
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
/* jaccard(a, b) where b's token set is known (sb, nb); 0 (not computed)
 * when a's stored item set (its text's tokens and its key's) shows it
 * cannot reach min: |A ∩ B| / |A ∪ B| <= |set ∩ B| / |B|. */
static double jaccard_near(am__wctx *w, const am__item_row *a, const uint64_t *sb, size_t nb,
                           double min)
{
    uint64_t sa[MAX_SET];
    size_t na;
    if (nb && a->tokens &&
        am__token_blob_get(a->tokens, a->tokens_len, sa, AM__ITEM_SET, &na) &&
        na < AM__ITEM_SET && (double)am__set_overlap(sa, na, sb, nb) < min * (double)nb)
        return 0;
    if (am__text_token_set(w->text, a->text, strlen(a->text), sa, MAX_SET, &na)) return 0;
    if (na + nb == 0) return 1;
    size_t k = am__set_overlap(sa, na, sb, nb);
    return (double)k / (double)(na + nb - k);
}

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

/* The next word of s from *i: a run of ASCII letters and digits
 * (compared without case) or one other character (a Han character is a
 * word); spaces and ASCII punctuation separate.  0 at the end. */
static size_t next_word(const char *s, size_t *i, size_t *len)
{
    const unsigned char *u = (const unsigned char *)s;
    while (u[*i] && u[*i] < 0x80 && !isalnum(u[*i])) (*i)++;
    if (!u[*i]) return 0;
    size_t at = *i;
    if (u[at] < 0x80) {
        while (u[*i] && u[*i] < 0x80 && isalnum(u[*i])) (*i)++;
    } else {
        (*i)++;
        while ((u[*i] & 0xC0) == 0x80) (*i)++;
    }
    *len = *i - at;
    return 1;
}

/* 1 when every word of a (next_word: stopwords too) is a word of b: a
 * text made of b's words holds no word b's event does not hold. */
static int words_within(const char *a, const char *b)
{
    size_t i = 0, la;
    while (next_word(a, &i, &la)) {
        const char *wa = a + i - la;
        size_t j = 0, lb;
        int found = 0;
        while (!found && next_word(b, &j, &lb))
            found = la == lb && strncasecmp(wa, b + j - lb, la) == 0;
        if (!found) return 0;
    }
    return 1;
}

static int same_scope(const char *a, const char *b)
{
    return strcmp(a ? a : "global", b ? b : "global") == 0;
}

/* 1 when every token of the value (the old value a restatement names
 * negatively: "不用微信", "instead of Slack") is in the item's text. */
static int names_value(am__wctx *w, const am__item_row *it, const char *value, int *rc)
{
    uint64_t sv[MAX_SET], si[MAX_SET];
    size_t nv, ni;
    if ((*rc = am__text_token_set(w->text, value, strlen(value), sv, MAX_SET, &nv)) ||
        (*rc = am__text_token_set(w->text, it->text, strlen(it->text), si, MAX_SET, &ni)))
        return 0;
    return nv > 0 && am__set_overlap(sv, nv, si, ni) == nv;
}

/* a statement valid from T = w->now that arrives after a version
 * of its item valid from later than T (an import, an older `at`) is a
 * closed historical version, never the current one.  It replaces the
 * value that covered T from T on, up to where that value ended; before
 * every known version it lasts until the first one.  The versions are the
 * lineage's current ones in system time (never edited: the covering one
 * is closed and re-stated up to T). */
static int put_historical(am__wctx *w, const am__statement *st, const am__item_row *latest,
                          am__item_row *nv, int *outcome)
{
    am__item_row *rows;
    size_t n;
    int rc =
        w->store->vt->items.items_list(w->store, w->uid, AM__ITEMS_ALL, w->now, w->ar, &rows, &n);
    if (rc) return rc;
    am__item_row *cover = NULL;
    am_time next = latest->valid_from; /* the first version valid after T */
    for (size_t i = 0; i < n; i++) {
        am__item_row *v = &rows[i];
        if (v->superseded_at != AM_TIME_NONE || strcmp(v->lineage_id, latest->lineage_id) != 0 ||
            strcmp(v->status, "pending_confirm") == 0)
            continue;
        if (v->valid_from > w->now) {
            if (v->valid_from < next) next = v->valid_from;
        } else if (v->valid_to == AM_TIME_NONE || v->valid_to > w->now) {
            cover = v;
        }
    }
    nv->lineage_id = latest->lineage_id;
    nv->valid_from = w->now;
    if (nv->valid_to == AM_TIME_NONE || nv->valid_to > next) nv->valid_to = next;
    if (cover) {
        /* the same words again: one more source of the version of then */
        if (jaccard(w, cover->text, st->text) >= 0.9) {
            *outcome = AM__M_REINFORCED;
            return am__store_item_reinforce(w->store, w->uid, cover->rid, st->event_id, w->now);
        }
        if (cover->valid_to != AM_TIME_NONE && cover->valid_to < next) nv->valid_to = cover->valid_to;
        /* a value that ended by withdrawal keeps that end */
        if (strcmp(cover->status, "invalidated") == 0) nv->status = "invalidated";
        am__item_row before = *cover;
        before.valid_to = w->now;
        before.status = "active";
        if ((rc = am__semantic_close_version(w, cover))) return rc;
        if (cover->valid_from < w->now && (rc = insert_version(w, cover, &before, NULL)))
            return rc;
    }
    *outcome = AM__M_HISTORICAL;
    return insert_version(w, NULL, nv, st->event_id);
}

/* The person an item is about: the first part of its key when it names
 * one of the reading's related persons ("spouse.food.…"), else "" (the
 * user) */
static size_t whose_len(const char *key)
{
    const char *dot = strchr(key, '.');
    if (!dot) return 0;
    const am__und_head *h = &am__und_heads[AM_UND_WHOSE];
    for (int i = 1; i < h->n; i++)
        if (strlen(h->labels[i]) == (size_t)(dot - key) &&
            memcmp(h->labels[i], key, (size_t)(dot - key)) == 0)
            return (size_t)(dot - key);
    return 0;
}

/* The learned reading's likeliest topic of text, an index of the topic head */
static int topic_of(const char *text)
{
    float p[AM_UND_OUTPUTS];
    am__und_probs(text, strlen(text), p);
    const float *t = p + am__und_heads[AM_UND_TOPIC].offset;
    int k = 0;
    for (int j = 1; j < am__und_heads[AM_UND_TOPIC].n; j++)
        if (t[j] > t[k]) k = j;
    return k;
}

/* The learned reading's topic probabilities of text, into t (the topic
 * head's labels) */
static void topics_of(const char *text, float *t)
{
    float p[AM_UND_OUTPUTS];
    am__und_probs(text, strlen(text), p);
    memcpy(t, p + am__und_heads[AM_UND_TOPIC].offset,
           (size_t)am__und_heads[AM_UND_TOPIC].n * sizeof *t);
}

/* Topics a changed value moves between ("我住西湖区" is location, "搬家了，
 * 现在在滨江" is home; a job is career or work_projects) */
static int topics_near(const char *a, const char *b)
{
    static const char *const pairs[][2] = {
        {"home", "location"}, {"career", "work_projects"}, {"food", "drink"},
        {"fitness", "health"}, {"fitness", "sports"},
    };
    if (strcmp(a, b) == 0) return 1;
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
        if ((strcmp(a, pairs[i][0]) == 0 && strcmp(b, pairs[i][1]) == 0) ||
            (strcmp(b, pairs[i][0]) == 0 && strcmp(a, pairs[i][1]) == 0))
            return 1;
    return 0;
}

/* Kinds one value can be stated as ("我上班开车" a profile, "现在每天挤地
 * 铁" a habit); a constraint is only ever a constraint's */
static int kinds_near(const char *a, const char *b)
{
    if (strcmp(a, b) == 0) return 1;
    static const char *const life[] = {"profile", "habit", "preference", NULL};
    int ia = 0, ib = 0;
    for (int i = 0; life[i]; i++) {
        ia |= strcmp(a, life[i]) == 0;
        ib |= strcmp(b, life[i]) == 0;
    }
    return ia && ib;
}

#define TOPIC_SHARE 0.1 /* the two readings' topic probabilities' overlap that relates them */

/* A correction in other words ("我住望京" -> "我搬到西二旗了", "my budget is
 * $1,200" -> "budget's now $1,800", "I drive to work" -> "sold the car, I
 * take the train now"): the value it replaces is an active item of the
 * same person and a near kind whose topic is the statement's (or a near
 * one, or the two readings' topic probabilities overlap by TOPIC_SHARE);
 * of several, the one sharing most words, then the nearer topic, then the
 * latest.  NULL when none. */
static am__item_row *corrected(am__wctx *w, am__item_row *rows, size_t n,
                               const am__statement *st)
{
    am__item_row *best = NULL;
    double best_j = -1, best_t = -1;
    size_t wl = st->whose ? strlen(st->whose) : 0;
    if (am__und_label(AM_UND_TOPIC, st->topic) < 0) return NULL;
    const am__und_head *h = &am__und_heads[AM_UND_TOPIC];
    float ts[AM_UND_OUTPUTS], tr[AM_UND_OUTPUTS];
    topics_of(st->text, ts);
    for (size_t i = 0; i < n; i++) {
        am__item_row *r = &rows[i];
        /* an item of the same moment (another clause of the turn) is
         * said beside it, not replaced by it */
        if (!same_scope(r->scope, st->scope) || strcmp(r->status, "active") != 0 ||
            r->valid_from >= w->now || !kinds_near(r->kind, st->kind) || whose_len(r->key) != wl ||
            (wl && strncmp(r->key, st->whose, wl) != 0))
            continue;
        topics_of(r->text, tr);
        int k = 0;
        double share = 0;
        for (int j = 0; j < h->n; j++) {
            share += (double)ts[j] * tr[j];
            if (tr[j] > tr[k]) k = j;
        }
        if (!topics_near(h->labels[k], st->topic) && share < TOPIC_SHARE) continue;
        double j = jaccard(w, r->text, st->text);
        if (j > best_j + 1e-9 ||
            (j > best_j - 1e-9 && (share > best_t + 1e-9 ||
                                   (share > best_t - 1e-9 && r->valid_from > best->valid_from)))) {
            best = r;
            best_j = j;
            best_t = share;
        }
    }
    return best;
}

/* A near duplicate of the statement reinforces the item near: a new
 * version while its confidence grows, then one more source of the current
 * one (nothing else changes: no version, linear storage).  end: the
 * statement's end of validity. */
static int reinforce(am__wctx *w, const am__statement *st, am__item_row *near, am_time end,
                     int *outcome, char *lineage)
{
    int rc;
    am__item_row nv = *near;
    nv.confidence = near->confidence + 0.05 > 1 ? 1 : near->confidence + 0.05;
    /* a repetition keeps the later end: an item that expires, said
     * again without an end or with a later one, lasts as long */
    nv.valid_to = near->valid_to == AM_TIME_NONE ? AM_TIME_NONE : later_end(near->valid_to, end);
    int extended = nv.valid_to != near->valid_to;
    /* A version's words must stay held by one of its sources: a
     * forget of the first wording's event would otherwise leave its
     * words in an item the other event keeps.  Worded otherwise (a
     * word of the item is not in the statement), the statement's own
     * wording is the new version; it keeps the earlier sources only
     * when its words are all the item's. */
    int reworded = !words_within(near->text, st->text);
    if (reworded) {
        nv.text = st->text;
        /* the attribute stays, unless its words are the item's own */
        const char *kw = strrchr(near->key, '.');
        if (!words_within(kw ? kw + 1 : near->key, st->text)) nv.key = st->key;
        nv.value_json = st->value_json;
    }
    int revive = strcmp(near->status, "candidate_forget") == 0;
    if (revive) nv.status = "active";
    if (reworded || revive || extended ||
        (nv.confidence > near->confidence && near->valid_from <= w->now)) {
        int keep = !reworded || words_within(st->text, near->text);
        if ((keep && (rc = read_sources(w, near))) ||
            (rc = am__semantic_close_version(w, near)) ||
            (rc = insert_version(w, keep ? near : NULL, &nv, st->event_id)))
            return rc;
    } else if ((rc = am__store_item_reinforce(w->store, w->uid, near->rid, st->event_id, w->now))) {
        return rc;
    }
    *outcome = AM__M_REINFORCED;
    if (lineage) snprintf(lineage, 27, "%s", near->lineage_id);
    if (revive)
        return am__semantic_record(w, "memory.revived", near->lineage_id, near->scope,
                                   near->key, "reinforced");
    return AM_OK;
}

int am__semantic_put(am__wctx *w, const am__statement *st, int *outcome,
                     char *lineage)
{
    am__item_row *rows;
    size_t n;
    int rc = latest_items(w, &rows, &n);
    if (rc) return rc;
    uint64_t sb[MAX_SET]; /* the statement's token set, for near duplicates */
    size_t nb;
    if ((rc = am__text_token_set(w->text, st->text, strlen(st->text), sb, MAX_SET, &nb))) return rc;
    am__item_row *same_key = NULL, *near = NULL, *named = NULL;
    double best = 0;
    am__item_row *pending = NULL; /* the lineage's open question, if any */
    for (size_t i = 0; i < n; i++) {
        if (!same_scope(rows[i].scope, st->scope)) continue;
        /* an item in doubt for its age (candidate_forget, lifecycle/)
         * stated again is the user's current value: reinforced, active */
        int active = strcmp(rows[i].status, "active") == 0 ||
                     strcmp(rows[i].status, "candidate_forget") == 0;
        if (!active && strcmp(rows[i].status, "pending_confirm") != 0) continue;
        if (strcmp(rows[i].key, st->key) == 0) {
            if (active) same_key = &rows[i];
            else pending = &rows[i];
        }
        /* a near duplicate (0.9 of the words shared) has about as many
         * words: texts of very different lengths need no tokenizing */
        size_t la = strlen(rows[i].text), lb = strlen(st->text);
        double j = (!st->own_key || strcmp(rows[i].key, st->key) == 0) && la <= 2 * lb + 8 &&
                           lb <= 2 * la + 8
                       ? jaccard_near(w, &rows[i], sb, nb, 0.9)
                       : 0;
        if (j > best) { best = j; near = &rows[i]; }
        /* the restated value's predecessor, named by its value: the latest
         * active item that holds it */
        if (active && st->old_value && st->old_value[0] &&
            (!named || rows[i].valid_from > named->valid_from)) {
            if (names_value(w, &rows[i], st->old_value, &rc)) named = &rows[i];
            if (rc) return rc;
        }
    }
    /* an item in doubt (pending_confirm with no active version: the
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
    /* a near-duplicate reinforces the existing item: a new version
     * while its confidence grows, then one more source of the current one
     * (nothing else changes: no version, linear storage). */
    am_time end = am__semantic_end_of(w, st);
    if (near && best >= 0.9) return reinforce(w, st, near, end, outcome, lineage);
    /* a restatement that names the old value negatively ("我现在改用
     * 钉钉了，不用微信") supersedes the item holding it, whatever its key */
    if (!same_key && named) same_key = named;
    if (!same_key && st->restated && st->topic) same_key = corrected(w, rows, n, st);
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
    nv.valid_to = end;
    nv.status = "active";
    nv.metadata = metadata_of(w, same_key);
    nv.origin = st->origin;
    char lid[27];
    if (same_key && same_key->valid_from > w->now) {
        /* later than what is known already */
        if ((rc = put_historical(w, st, same_key, &nv, outcome))) return rc;
        if (lineage) snprintf(lineage, 27, "%s", same_key->lineage_id);
        return AM_OK;
    }
    if (same_key) {
        nv.lineage_id = same_key->lineage_id;
        if (st->restated || st->confidence + 1e-9 >= same_key->confidence) {
            /* Supersede: close, re-state the old value up to now.  A
             * restatement ("I now prefer…", "我换工作了") says the value
             * changed: it supersedes whatever the old one's confidence. */
            if ((rc = read_sources(w, same_key))) return rc;
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
        /* no shared words ("I've stopped following football" for "I'm a
         * big Arsenal fan"): the user's own item of the same topic, the
         * latest */
        int topic = topic_of(text);
        for (size_t i = 0; i < n; i++) {
            if ((!same_scope(rows[i].scope, scope) && strcmp(rows[i].scope, "global") != 0) ||
                whose_len(rows[i].key) || strcmp(rows[i].status, "active") != 0 ||
                topic_of(rows[i].text) != topic)
                continue;
            if (!best || rows[i].valid_from > best->valid_from) best = &rows[i];
        }
    }
    if (!best) {
        /* none of that topic ("酒我已经戒了" for "每天晚上都要喝两罐啤酒才睡
         * 得着", read as sleep): the item of a near topic, or whose
         * reading's topics overlap the statement's most (TOPIC_SHARE at
         * least) */
        const am__und_head *h = &am__und_heads[AM_UND_TOPIC];
        float ts[AM_UND_OUTPUTS], tr[AM_UND_OUTPUTS];
        double best_t = 0;
        topics_of(text, ts);
        int k0 = 0;
        for (int j = 1; j < h->n; j++)
            if (ts[j] > ts[k0]) k0 = j;
        for (size_t i = 0; i < n; i++) {
            if ((!same_scope(rows[i].scope, scope) && strcmp(rows[i].scope, "global") != 0) ||
                whose_len(rows[i].key) || strcmp(rows[i].status, "active") != 0)
                continue;
            topics_of(rows[i].text, tr);
            int k = 0;
            double share = 0;
            for (int j = 0; j < h->n; j++) {
                share += (double)ts[j] * tr[j];
                if (tr[j] > tr[k]) k = j;
            }
            if (topics_near(h->labels[k], h->labels[k0]) && share < TOPIC_SHARE)
                share = TOPIC_SHARE;
            if (share >= TOPIC_SHARE && share > best_t + 1e-9) {
                best = &rows[i];
                best_t = share;
            }
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

/* The scope and key of lineage's latest version (what a caller that
 * holds no row of the item names it by): among the open ones, else (an
 * item just withdrawn: its last version is closed) among all. */
static int item_names(am__wctx *w, const char *lineage, const char **scope, const char **key)
{
    for (int pass = 0; pass < 2; pass++) {
        am__item_row *rows;
        size_t n;
        int rc = pass == 0 ? latest_items(w, &rows, &n)
                           : w->store->vt->items.items_list(w->store, w->uid,
                                                            AM__ITEMS_ALL | AM__ITEMS_NO_SOURCES |
                                                                AM__ITEMS_NO_HEAT,
                                                            LATEST, w->ar, &rows, &n);
        if (rc) return rc;
        const am__item_row *last = NULL;
        for (size_t i = 0; i < n; i++)
            if (strcmp(rows[i].lineage_id, lineage) == 0 &&
                (!last || rows[i].recorded_at > last->recorded_at))
                last = &rows[i];
        if (last) {
            *scope = last->scope;
            *key = last->key;
            return AM_OK;
        }
    }
    return AM_OK; /* none: the event names no key */
}

int am__semantic_event(am__wctx *w, const char *op, const char *lineage, const char *scope,
                       const char *key, const char *detail)
{
    static const struct { const char *op, *type, *detail; } map[] = {
        {"memory.created", "memory.created", NULL},
        {"memory.promoted", "memory.created", "promoted"},
        {"memory.updated", "memory.updated.", "superseded"},
        {"memory.pending", "memory.updated.", "pending_confirm"},
        {"memory.invalidated", "memory.invalidated", NULL},
        {"memory.historical", "memory.updated.", "historical"},
        /* the lifecycle (lifecycle/, docs/LIFECYCLE.md) */
        {"memory.candidate_forget", "memory.updated.", "candidate_forget"},
        {"memory.archived", "memory.updated.", "archived"},
        {"memory.revived", "memory.updated.", "revived"},
        {"memory.expired", "memory.invalidated", "unconfirmed"},
        {"memory.consolidated", "memory.updated.", "consolidated"},
        {"memory.merged", "memory.invalidated", "consolidated"},
    };
    size_t i = 0;
    while (i < sizeof map / sizeof *map && strcmp(map[i].op, op) != 0) i++;
    if (i == sizeof map / sizeof *map) return AM_OK; /* no event of its own */
    int rc;
    if ((!scope || !key) && lineage && (rc = item_names(w, lineage, &scope, &key))) return rc;
    /* the key is the user's words: the event names it by its opaque id
     * (store/ids.c), in the type as in the key field */
    char kid[AM__REF_LEN + 1] = "";
    if (key && *key && (rc = am__store_key_id(w->store, w->uid, scope, key, kid))) return rc;
    const char *type = map[i].type;
    if (type[strlen(type) - 1] == '.') { /* memory.updated.<key id> */
        char *t = am__arena_alloc(w->ar, strlen(type) + sizeof kid);
        if (!t) return AM_NOMEM;
        strcpy(t, type);
        if (kid[0]) strcat(t, kid);
        else t[strlen(type) - 1] = 0; /* no key: "memory.updated" */
        type = t;
    }
    am__outbox_row r = {0, w->clock ? w->clock : w->now,
                        w->event_id ? w->now : AM_TIME_NONE,
                        w->uid, type, lineage, NULL, w->event_id, kid[0] ? kid : NULL,
                        detail ? detail : map[i].detail, NULL};
    return am__store_outbox_put(w->store, &r);
}

int am__semantic_record(am__wctx *w, const char *op, const char *lineage, const char *scope,
                        const char *key, const char *detail)
{
    /* the audit names the key by its opaque id: a key may hold the
     * user's words, and the audit outlives a forget */
    char kid[AM__REF_LEN + 1] = "";
    int rc = key && *key ? am__store_key_id(w->store, w->uid, scope, key, kid) : AM_OK;
    if (!rc)
        rc = am__store_audit(w->store, w->uid, w->now, op, "memory", lineage, kid[0] ? kid : NULL);
    return rc ? rc : am__semantic_event(w, op, lineage, scope, key, detail);
}

/* ------------------------------------------------------------ by id */

int am__semantic_lineage(am__wctx *w, const char *id, char *lineage)
{
    am__item_row *rows;
    size_t n;
    int rc = w->store->vt->items.items_list(
        w->store, w->uid, AM__ITEMS_ALL | AM__ITEMS_NO_SOURCES | AM__ITEMS_NO_HEAT, LATEST, w->ar,
        &rows, &n);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].id, id) == 0 || strcmp(rows[i].lineage_id, id) == 0) {
            snprintf(lineage, 27, "%s", rows[i].lineage_id);
            return AM_OK;
        }
    return AM_NOTFOUND;
}

int am__semantic_state(am__wctx *w, const am__statement *st, int *outcome, char *lineage)
{
    static const char *const ops[] = {"", "memory.created", "memory.updated",
                                      "memory.reinforced", "memory.pending",
                                      "memory.invalidated", "", "memory.historical"};
    int rc = am__semantic_put(w, st, outcome, lineage);
    if (rc) return rc;
    if (*outcome < AM__M_CREATED || *outcome > AM__M_HISTORICAL || !ops[*outcome][0])
        return AM_OK;
    /* as the write path records a distilled statement: the audit names
     * the key by its opaque id, the event the key the item holds now */
    char kid[AM__REF_LEN + 1] = "";
    if ((rc = am__store_key_id(w->store, w->uid, st->scope ? st->scope : "global", st->key, kid)) ||
        (rc = am__store_audit(w->store, w->uid, w->now, ops[*outcome], "memory", lineage, kid)))
        return rc;
    return am__semantic_event(w, ops[*outcome], lineage, NULL, NULL, NULL);
}

/* ------------------------------------------------------------ feedback */

int am__semantic_feedback(am__wctx *w, const char *id, int action,
                          const char *text)
{
    am__item_row *rows;
    size_t n;
    int rc = current_items(w, &rows, &n);
    if (rc) return rc;
    /* the version named, else the current one of the item an id of any
     * of its versions names (an id read before an earlier feedback) --
     * its active version before an open question */
    am__item_row *it = NULL;
    for (size_t i = 0; i < n && !it; i++)
        if (strcmp(rows[i].id, id) == 0) it = &rows[i];
    char lineage[27] = "";
    if (!it && (rc = am__semantic_lineage(w, id, lineage))) return rc;
    for (size_t i = 0; i < n && !it; i++)
        if (strcmp(rows[i].lineage_id, lineage) == 0 && strcmp(rows[i].status, "active") == 0)
            it = &rows[i];
    for (size_t i = 0; i < n && !it; i++)
        if (strcmp(rows[i].lineage_id, lineage) == 0) it = &rows[i];
    if (!it) return AM_NOTFOUND;
    am__item_row nv = *it;
    switch (action) {
    case AM_FEEDBACK_CONFIRM:
        nv.confidence = it->confidence + 0.1 > 1 ? 1 : it->confidence + 0.1;
        nv.status = "active";
        if ((rc = am__semantic_close_version(w, it)) || (rc = insert_version(w, it, &nv, NULL)))
            return rc;
        /* an item in doubt for its age is back (lifecycle/) */
        if (strcmp(it->status, "candidate_forget") == 0 &&
            (rc = am__store_audit(w->store, w->uid, w->now, "memory.revived", "memory",
                                  it->lineage_id, "confirmed")))
            return rc;
        return am__semantic_event(w, "memory.updated", it->lineage_id, it->scope, it->key,
                                  "confirmed");
    case AM_FEEDBACK_REJECT:
        if ((rc = invalidate_row(w, it))) return rc;
        return am__semantic_event(w, "memory.invalidated", it->lineage_id, it->scope, it->key,
                                  "rejected");
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
        nv.valid_to = it->valid_to; /* a current version's end is its expiry: it stays */
        nv.metadata = metadata_of(w, it);
        nv.origin = "feedback";
        if ((rc = insert_version(w, it, &nv, NULL))) return rc;
        return am__semantic_event(w, "memory.updated", it->lineage_id, it->scope, it->key,
                                  "corrected");
    }
    default:
        return AM_MISUSE;
    }
}
