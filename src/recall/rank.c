/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rank.c -- scoring.  Items: heat = base_score x 0.5^(age/half_life),
 * age counted from the last access (or creation), normalised by the
 * largest base score; score = w_heat*heat' + w_similarity*similarity.
 * Events: BM25 normalised by the best candidate, with a light recency term.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "recall/pipeline.h"
#include "text/entities.h"
#include "text/lexicon/lexicon.h"
#include "text/speaker.h"

#define MAX_SET 256
#define DAY_MS 86400000.0

static int cmp_item(const void *a, const void *b)
{
    const am__scored_item *x = a, *y = b;
    return x->score < y->score ? 1 : x->score > y->score ? -1 : 0;
}

/* Two tables of token sets (sorted hashes): item versions by id (the
 * version's text + key; versions are immutable) and texts by their hash
 * (the block's candidate turns).  Open addressing, at most 8 probes; a
 * table is cleared when half full. */
#define CACHE_SLOTS 32768 /* ~13 MB (pages touched as used): items of ~120 busy users */
#define CACHE_SET AM__ITEM_SET /* tokens kept per item */
#define TEXT_SLOTS 4096   /* ~4 MB: the block's candidate turns of busy users */

typedef struct tok_entry {
    uint64_t key; /* hash of the version id, 0 = empty */
    uint64_t n;
    uint64_t set[CACHE_SET];
} tok_entry;

typedef struct text_entry {
    uint64_t key; /* hash of the text, 0 = empty */
    uint64_t n;
    uint64_t set[AM__TEXT_SET];
} text_entry;

/* a table as the probes see it: entries of `size` bytes, each starting
 * with key, n, set */
typedef struct set_table {
    unsigned char *slot;
    size_t n_slots, size, *used;
} set_table;

struct am__tokcache {
    const am__allocator *a;
    size_t used, text_used;
    tok_entry slot[CACHE_SLOTS];
    text_entry text[TEXT_SLOTS];
};

am__tokcache *am__tokcache_new(const am__allocator *a)
{
    am__tokcache *c = am__calloc(a, sizeof *c);
    if (c) c->a = a;
    return c;
}

void am__tokcache_free(am__tokcache *c)
{
    if (c) am__free(c->a, c);
}

void am__tokcache_clear(am__tokcache *c)
{
    if (!c) return;
    memset(c->slot, 0, sizeof c->slot);
    memset(c->text, 0, sizeof c->text);
    c->used = c->text_used = 0;
}

static uint64_t *set_entry(const set_table *tb, size_t i)
{
    return (uint64_t *)(void *)(tb->slot + (i % tb->n_slots) * tb->size);
}

static int set_get(const set_table *tb, uint64_t key, uint64_t *out, size_t *n)
{
    for (size_t probe = 0; probe < 8; probe++) {
        const uint64_t *e = set_entry(tb, (size_t)(key % tb->n_slots) + probe);
        if (e[0] == key) {
            memcpy(out, e + 2, (size_t)e[1] * sizeof *out);
            *n = (size_t)e[1];
            return 1;
        }
        if (e[0] == 0) break;
    }
    return 0;
}

static void set_put(const set_table *tb, uint64_t key, const uint64_t *set, size_t n)
{
    if (*tb->used >= tb->n_slots / 2) { /* keep probing short: start over */
        memset(tb->slot, 0, tb->n_slots * tb->size);
        *tb->used = 0;
    }
    for (size_t probe = 0; probe < 8; probe++) {
        uint64_t *e = set_entry(tb, (size_t)(key % tb->n_slots) + probe);
        if (e[0] == 0) {
            e[0] = key;
            e[1] = n;
            memcpy(e + 2, set, n * sizeof *set);
            (*tb->used)++;
            return;
        }
    }
}

int am__tokcache_text_set(am__text *t, am__tokcache *c, const char *s, size_t len,
                          uint64_t *out, size_t *n)
{
    /* keyed by the text itself: a set is a function of its text */
    uint64_t key = am__hash64(s, len) | 1;
    set_table tb = {c ? (unsigned char *)c->text : NULL, TEXT_SLOTS, sizeof(text_entry),
                    c ? &c->text_used : NULL};
    if (c && set_get(&tb, key, out, n)) return AM_OK;
    int rc = am__text_token_set(t, s, len, out, AM__TEXT_SET, n);
    if (!rc && c) set_put(&tb, key, out, *n);
    return rc;
}

_Static_assert(AM__TEXT_SET == AM__EVENT_SET,
               "an event's stored set is the set a recall computes of its content");

int am__tokcache_event_set(am__text *t, am__tokcache *c, const am__event_row *e, uint64_t *out,
                           size_t *n)
{
    if (e->tokens && am__token_blob_get(e->tokens, e->tokens_len, out, AM__TEXT_SET, n))
        return AM_OK;
    const char *s = e->content ? e->content : "";
    return am__tokcache_text_set(t, c, s, strlen(s), out, n);
}

/* The token set of an item version (text + key): the one stored with it
 * (schema v7), else from the cache, or computed and cached. */
static int item_set(am__text *t, am__tokcache *c, const am__item_row *it, uint64_t *out,
                    size_t *n)
{
    if (it->tokens && am__token_blob_get(it->tokens, it->tokens_len, out, CACHE_SET, n))
        return AM_OK;
    uint64_t key = am__hash64(it->id, strlen(it->id)) | 1;
    set_table tb = {c ? (unsigned char *)c->slot : NULL, CACHE_SLOTS, sizeof(tok_entry),
                    c ? &c->used : NULL};
    if (c && set_get(&tb, key, out, n)) return AM_OK;
    int rc = am__text_item_set(t, it->text, it->key, out, n);
    if (!rc && c) set_put(&tb, key, out, *n);
    return rc;
}

int am__rank_items(am__text *t, am__tokcache *cache, const am_rank_config *r, am_time now,
                   const uint64_t *q, size_t nq, am__item_row *rows, size_t n,
                   am__scored_item *out)
{
    double max_base = r->base_preference;
    if (r->base_constraint > max_base) max_base = r->base_constraint;
    if (max_base <= 0) max_base = 1;
    for (size_t i = 0; i < n; i++) {
        am__item_row *it = &rows[i];
        am_time since = it->last_access != AM_TIME_NONE && it->last_access > it->reinforced_at
                            ? it->last_access : it->valid_from;
        double age_days = now > since ? (double)(now - since) / DAY_MS : 0;
        double hl = it->half_life_days > 0 ? it->half_life_days : 30;
        double heat = it->base_score * pow(0.5, age_days / hl);
        heat *= 1 + 0.05 * (double)(it->hits > 20 ? 20 : it->hits); /* hit bonus */
        uint64_t s[CACHE_SET];
        size_t ns = 0;
        int rc = item_set(t, cache, it, s, &ns);
        if (rc) return rc;
        size_t k = am__set_overlap(q, nq, s, ns);
        double sim = nq && ns ? (double)k / sqrt((double)nq * (double)ns) : 0;
        double h = heat / max_base;
        if (h > 1) h = 1;
        out[i].row = it;
        out[i].heat = heat;
        out[i].similarity = sim;
        out[i].score = r->w_heat * h + r->w_similarity * sim;
        if (strcmp(it->status, "pending_confirm") == 0 ||
            strcmp(it->status, "candidate_forget") == 0)
            out[i].score *= 0.9;
        out[i].score *= 0.5 + 0.5 * it->confidence;
    }
    if (n > 1) qsort(out, n, sizeof *out, cmp_item);
    return AM_OK;
}

static int cmp_event(const void *a, const void *b)
{
    const am__event_row *x = a, *y = b;
    return x->score < y->score ? 1 : x->score > y->score ? -1 : 0;
}

void am__rank_events(const am_rank_config *r, am_time now, am__arena *ar, am__event_row *rows,
                     size_t n)
{
    double best = 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].score > best) best = rows[i].score;
    if (best <= 0) best = 1;
    double hl = r->half_life_event_days > 0 ? r->half_life_event_days : 14;
    for (size_t i = 0; i < n; i++) {
        double age = now > rows[i].occurred_at ? (double)(now - rows[i].occurred_at) / DAY_MS : 0;
        double recency = pow(0.5, age / hl);
        double lex = rows[i].score / best;
        /* below the relevance floor: dropped by am__events_cut */
        /* (negative but still ordered by relevance: the event list keeps
         * them after the others) */
        rows[i].score = lex < r->min_event_score ? lex - 1
                                                 : (1 - r->w_recency) * lex + r->w_recency * recency;
    }
    /* Session support: evidence clusters in sessions; a turn whose session
     * has other strong hits gains a little (sum of the others' scores,
     * capped). */
    if (r->w_session > 0) {
        double *bonus = am__arena_alloc(ar, (n ? n : 1) * sizeof *bonus);
        if (bonus) {
            for (size_t i = 0; i < n; i++) {
                if (!rows[i].session_id || rows[i].score < 0) continue;
                double sum = 0;
                for (size_t j = 0; j < n; j++)
                    if (j != i && rows[j].score > 0 && rows[j].session_id && strcmp(rows[j].session_id, rows[i].session_id) == 0)
                        sum += rows[j].score;
                bonus[i] = r->w_session * (sum > 1 ? 1 : sum);
            }
            for (size_t i = 0; i < n; i++) rows[i].score += bonus[i];
        }
    }
    if (n > 1) qsort(rows, n, sizeof *rows, cmp_event);
}

static int ascii_alpha(char c)
{
    return ((unsigned char)c | 0x20) >= 'a' && ((unsigned char)c | 0x20) <= 'z';
}

/* 1 if the normalised query contains the label (ASCII labels: as whole
 * words). */
static int query_names(const char *q, size_t n, const char *label, size_t m)
{
    int ascii = (unsigned char)label[0] < 0x80;
    for (size_t i = 0; i + m <= n; i++) {
        if ((m && q[i] != label[0]) || memcmp(q + i, label, m) != 0) continue;
        if (!ascii) return 1;
        if ((i == 0 || !ascii_alpha(q[i - 1])) && (i + m == n || !ascii_alpha(q[i + m])))
            return 1;
    }
    return 0;
}

void am__speaker_boost(const am_rank_config *r, const char *norm, size_t n,
                       const char *const *aliased, size_t n_aliased, am__event_row *rows,
                       size_t n_rows)
{
    if (r->w_speaker <= 0 || !norm || !n) return;
    for (size_t i = 0; i < n_rows; i++) {
        char label[48];
        size_t m, k;
        if (rows[i].score <= 0 || !rows[i].content) continue;
        if (!(m = am__speaker_label(rows[i].content, label, sizeof label))) continue;
        for (k = 0; k < n_aliased && strcmp(aliased[k], label) != 0; k++) {}
        if (k < n_aliased || query_names(norm, n, label, m)) rows[i].score *= 1 + r->w_speaker;
    }
}

int am__query_names(const char *norm, size_t n, const char *name)
{
    return query_names(norm, n, name, strlen(name));
}

int am__asks_when(const char *norm, size_t n)
{
    for (size_t i = 0; am__lex_when_en[i]; i++)
        if (query_names(norm, n, am__lex_when_en[i], strlen(am__lex_when_en[i]))) return 1;
    return am__cue_any(norm, n, am__lex_when_zh);
}

void am__when_boost(const am_rank_config *r, am__event_row *rows, size_t n_rows,
                    const unsigned char *dated)
{
    if (r->w_when <= 0) return;
    for (size_t i = 0; i < n_rows; i++)
        if (dated[i] && rows[i].score > 0) rows[i].score *= 1 + r->w_when;
}

void am__sort_events(am__event_row *rows, size_t n)
{
    if (n > 1) qsort(rows, n, sizeof *rows, cmp_event);
}

size_t am__events_cut(const am_rank_config *r, const am__event_row *rows, size_t n)
{
    (void)r;
    size_t k = 0;
    while (k < n && rows[k].score >= 0) k++;
    return k;
}

/* ------------------------------------------------------------ topics */

/* Topics that answer each other's questions ("what should I make for
 * dinner?" is food; the shellfish allergy is diet_restrictions): groups of
 * the learned reading's topic labels (data/understand/LABELS.md). */
static const char *const topic_groups[][6] = {
    {"food", "drink", "diet_restrictions", "health", NULL},
    {"health", "fitness", "sports", "diet_restrictions", NULL},
    {"travel", "transport", "location", "schedule", NULL},
    {"work_projects", "career", "reporting_documents", "communication", "schedule", NULL},
    {"reporting_documents", "writing_style", "language", "communication", NULL},
    {"family", "relationships", "pets", "home", NULL},
    {"finance", "shopping", NULL},
    {"tools_tech", "work_projects", NULL},
    {"entertainment", "sports", NULL},
};

static int in_group(const char *const *g, const char *t)
{
    for (int i = 0; g[i]; i++)
        if (strcmp(g[i], t) == 0) return 1;
    return 0;
}

static int related_topics(const char *a, const char *b)
{
    if (strcmp(a, b) == 0) return 1;
    for (size_t i = 0; i < sizeof topic_groups / sizeof *topic_groups; i++)
        if (in_group(topic_groups[i], a) && in_group(topic_groups[i], b)) return 1;
    return 0;
}

int am__item_topic(const am__item_row *it, char *out, size_t cap)
{
    return am__item_value_str(it, "topic", out, cap);
}

#define TOPIC_P 0.5f    /* the query's topic probability from which it counts */
#define TOPIC_SIM 0.45  /* the similarity an item of a related topic has at least */
#define TOPIC_WORDS 0.2 /* a word match from which the topic stays below it */

/* An item on the question's topic is relevant although no word is shared:
 * its similarity is at least TOPIC_SIM -- or half the best word match's,
 * when an item matches the question's words (TOPIC_WORDS or more). */
static void topic_floor(const am__recall_state *st, const am_rank_config *r,
                        am__scored_item *scored, size_t n)
{
    const am__und_head *h = &am__und_heads[AM_UND_TOPIC];
    const float *p = st->reading + h->offset;
    int k = 0;
    for (int i = 1; i < h->n; i++)
        if (p[i] > p[k]) k = i;
    if (p[k] < TOPIC_P || strcmp(h->labels[k], "other") == 0) return;
    /* below strong word matches: at most half the best one */
    double best = 0;
    for (size_t i = 0; i < n; i++)
        if (scored[i].similarity > best) best = scored[i].similarity;
    double floor = best >= TOPIC_WORDS && best / 2 < TOPIC_SIM ? best / 2 : TOPIC_SIM;
    int moved = 0;
    for (size_t i = 0; i < n; i++) {
        char t[32];
        /* (a value in doubt is asked about only on a word of its own) */
        if (scored[i].similarity >= floor || strcmp(scored[i].row->status, "active") != 0 ||
            !am__item_topic(scored[i].row, t, sizeof t) || !related_topics(h->labels[k], t))
            continue;
        double add = r->w_similarity * (floor - scored[i].similarity);
        scored[i].score += add * (0.5 + 0.5 * scored[i].row->confidence);
        scored[i].similarity = floor;
        moved = 1;
    }
    if (moved && n > 1) qsort(scored, n, sizeof *scored, cmp_item);
}

/* ------------------------------------------------------------ the stage */

/* rank: the item versions the filter let through whose scope the
 * question sees (now that the task is known), ranked by heat x
 * similarity to the question's token set (at least TOPIC_SIM for an item
 * of the question's topic, the learned reading's), the turn's own task's
 * items first; provenance only for the ones
 * that can be shown (a reinforced item can have hundreds of sources;
 * every item is ranked).  A pending_confirm version is shown with the
 * value it conflicts with, and only when the turn is on its topic. */
int am__recall_rank(am__recall_state *st)
{
    const am__recall_env *env = st->env;
    const am_rank_config *r = env->rank;
    am__store *s = env->store;
    am__arena *ar = st->ar;
    const am__item_row *all_items = st->all_items;
    size_t n_all_items = st->n_all_items;
    int rc;
    am__item_row *items = am__arena_alloc(ar, (n_all_items + 1) * sizeof *items);
    if (!items) return AM_NOMEM;
    size_t n_items = 0;
    for (size_t i = 0; i < n_all_items; i++)
        if (am__recall_visible(st, all_items[i].scope)) items[n_items++] = all_items[i];
    am__scored_item *scored = am__arena_alloc(ar, (n_items + 1) * sizeof *scored);
    if (!scored) return AM_NOMEM;
    if ((rc = am__rank_items(env->text, env->tokcache, r, st->at, st->qset, st->nq, items,
                             n_items, scored)))
        return rc;
    topic_floor(st, r, scored, n_items);
    /* an item of the turn's own task (scope task:T, visible only there:
     * its habit, its conclusions) comes before the user's general ones */
    size_t front = 0;
    for (size_t i = 0; i < n_items; i++)
        if (strncmp(scored[i].row->scope, "task:", 5) == 0) {
            am__scored_item t = scored[i];
            memmove(scored + front + 1, scored + front, (i - front) * sizeof *scored);
            scored[front++] = t;
        }
    size_t max_mem = (size_t)(st->q->max_memories > 0 ? st->q->max_memories : r->max_memories);
    if (n_items > max_mem) n_items = max_mem;
    for (size_t i = 0; i < n_items; i++) {
        am__item_row *row = (am__item_row *)scored[i].row;
        if ((rc = am__store_item_sources(s, st->uid, row->rid, ar, &row->sources, &row->n_sources)))
            return rc;
    }
    size_t w = 0;
    for (size_t i = 0; i < n_items; i++) {
        am__scored_item *it = &scored[i];
        /* an item in doubt for its age (lifecycle/) is asked about, like a
         * doubted one, only on its topic */
        if (strcmp(it->row->status, "candidate_forget") == 0 && it->similarity <= 0) continue;
        if (strcmp(it->row->status, "pending_confirm") == 0) {
            if (it->similarity <= 0) continue;
            for (size_t k = 0; k < n_all_items; k++)
                if (strcmp(all_items[k].status, "active") == 0 &&
                    strcmp(all_items[k].lineage_id, it->row->lineage_id) == 0)
                    it->conflicts_with = all_items[k].text;
        }
        scored[w++] = *it;
    }
    st->scored = scored;
    st->n_items = w;
    return AM_OK;
}
