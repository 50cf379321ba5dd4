/* SPDX-License-Identifier: Apache-2.0 */
/*
 * profile.c -- the profile card (docs/PROFILE.md): a user's current
 * lasting items as a block for a system prompt.  A read of the recall
 * side: it is given the user's current item versions (api/profile.c lists
 * them, visible to the asker) and writes nothing.
 *
 * The card is made in three steps, each a pure function of the rows, so
 * that one store state always gives the same bytes:
 *   1. keep the lasting ones (kinds below, status active, not scoped to
 *      one task nor a rule pack's), each with its topic (am__item_topic_label: the one the
 *      write path stored, else the learned reading of its text) and its
 *      language;
 *   2. in priority order (kind, confidence, hits, id) drop near texts (80 %
 *      of the tokens shared both ways: one is kept, the first) and take
 *      what fits the budget (an item's line, and its heading and the
 *      card's header when it is the first to need them; the budget
 *      module's token estimate, a line at a time as the block counts);
 *   3. render the taken ones by topic (the reading's label order, "other"
 *      last), within a topic in priority order, in the language most of
 *      the user's lasting items are in.
 */
#include <stdlib.h>
#include <string.h>

#include "recall/recall.h"
#include "text/lexicon/lexicon.h"
#include "text/plain.h"

/* The lasting kinds, in the card's order within a topic. */
static const char *const lasting_kinds[] = {"profile", "constraint", "preference",
                                            "rule",    "fact",       "pattern"};
#define N_KINDS (sizeof lasting_kinds / sizeof *lasting_kinds)
#define N_TOPICS (sizeof am__lex_topic_labels / sizeof *am__lex_topic_labels)
#define NEAR_SHARE 0.8 /* tokens shared both ways from which two texts are one */

typedef struct card_item {
    const am__item_row *row;
    int kind;  /* index in lasting_kinds */
    int topic; /* index in am__lex_topic_labels */
    int zh;    /* its text is Chinese */
    int taken; /* 1 shown, 0 left out, -1 a near text of a shown one */
} card_item;

static int kind_rank(const char *kind)
{
    for (size_t i = 0; i < N_KINDS; i++)
        if (strcmp(kind, lasting_kinds[i]) == 0) return (int)i;
    return -1;
}

static int topic_index(const char *topic)
{
    for (size_t i = 0; i < N_TOPICS; i++)
        if (strcmp(topic, am__lex_topic_labels[i][0]) == 0) return (int)i;
    return (int)N_TOPICS - 1; /* other */
}

/* Priority: kind, confidence (higher first), hits (more first), id. */
static int cmp_priority(const card_item *a, const card_item *b)
{
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    if (a->row->confidence != b->row->confidence)
        return a->row->confidence > b->row->confidence ? -1 : 1;
    if (a->row->hits != b->row->hits) return a->row->hits > b->row->hits ? -1 : 1;
    return strcmp(a->row->id, b->row->id);
}

static int cmp_priority_q(const void *x, const void *y) { return cmp_priority(x, y); }

static int cmp_card_q(const void *x, const void *y)
{
    const card_item *a = x, *b = y;
    if (a->topic != b->topic) return a->topic < b->topic ? -1 : 1;
    return cmp_priority(a, b);
}

/* 1 when the sorted token sets a and b share NEAR_SHARE of either */
static int near_sets(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    if (!na || !nb) return 0;
    size_t i = 0, j = 0, shared = 0;
    while (i < na && j < nb) {
        if (a[i] == b[j]) {
            shared++;
            i++;
            j++;
        } else if (a[i] < b[j]) i++;
        else j++;
    }
    size_t most = na > nb ? na : nb;
    return (double)shared >= NEAR_SHARE * (double)most;
}

static int line_cost(const am__buf *line) { return am__text_tokens_estimate(line->p, line->len) + 1; }

static void item_line(const card_item *c, int lang, am__buf *line)
{
    am__buf_reset(line);
    am__buf_adds(line, "- ");
    am__buf_adds(line, am__kind_label(c->row->kind, lang));
    am__buf_adds(line, lang == AM_LANG_ZH ? "：" : ": ");
    am__plain_appends(line, c->row->text);
}

static void title_line(int topic, int lang, am__buf *line)
{
    am__buf_reset(line);
    am__buf_adds(line, am__lex_topic_labels[topic][lang == AM_LANG_ZH ? 1 : 2]);
    am__buf_adds(line, lang == AM_LANG_ZH ? "：" : ":");
}

static const char *header(int lang) { return lang == AM_LANG_ZH ? "[用户画像]" : "[User profile]"; }

/* Step 1: the lasting items of rows into *out (ar), *n of them; *lang the
 * language most are in (English on a tie). */
static int lasting(const am__profile_in *in, am__arena *ar, card_item **out, size_t *n, int *lang)
{
    card_item *c = am__arena_alloc(ar, (in->n + 1) * sizeof *c);
    if (!c) return AM_NOMEM;
    size_t k = 0, zh = 0;
    for (size_t i = 0; i < in->n; i++) {
        const am__item_row *r = &in->items[i];
        int kind = kind_rank(r->kind);
        /* a rule pack's rules are the operator's, not the user's (the
         * block shows them as rules) */
        if (kind < 0 || strcmp(r->status, "active") != 0 || strncmp(r->scope, "task:", 5) == 0 ||
            strncmp(r->scope, "pack:", 5) == 0 || !r->text || !*r->text)
            continue;
        c[k].row = r;
        c[k].kind = kind;
        c[k].topic = topic_index(am__item_topic_label(r));
        c[k].zh = am__text_lang(r->text, strlen(r->text)) >= AM_LANG_ZH;
        zh += (size_t)c[k].zh;
        k++;
    }
    *out = c;
    *n = k;
    *lang = 2 * zh > k ? AM_LANG_ZH : AM_LANG_EN;
    return AM_OK;
}

/* Step 2: mark what is shown, what is a near text, what the budget left
 * out (c in priority order). */
static int choose(const am__profile_in *in, card_item *c, size_t n, int lang, am__buf *line,
                  int *tokens)
{
    uint64_t(*sets)[AM__TEXT_SET] = am__calloc(in->alloc, (n ? n : 1) * sizeof *sets);
    size_t *ns = am__calloc(in->alloc, (n ? n : 1) * sizeof *ns);
    unsigned char opened[N_TOPICS] = {0};
    int rc = sets && ns ? AM_OK : AM_NOMEM, left = in->budget, any = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const char *t = c[i].row->text;
        if ((rc = am__tokcache_text_set(in->text, in->tokcache, t, strlen(t), sets[i], &ns[i])))
            break;
        c[i].taken = 0;
        for (size_t j = 0; j < i && !c[i].taken; j++)
            if (c[j].taken == 1 && near_sets(sets[i], ns[i], sets[j], ns[j])) c[i].taken = -1;
        if (c[i].taken) continue;
        item_line(&c[i], lang, line);
        int cost = line_cost(line);
        if (!opened[c[i].topic]) {
            title_line(c[i].topic, lang, line);
            cost += line_cost(line);
        }
        if (!any) cost += am__text_tokens_estimate(header(lang), strlen(header(lang))) + 1;
        if (line->oom) rc = AM_NOMEM;
        if (rc || cost > left) continue;
        left -= cost;
        opened[c[i].topic] = 1;
        any = 1;
        c[i].taken = 1;
    }
    am__free(in->alloc, sets);
    am__free(in->alloc, ns);
    *tokens = in->budget - left;
    return rc;
}

/* Step 3: the card's text, sections and JSON into out (c in card order). */
static int render(const card_item *c, size_t n, int lang, am__arena *ar, am__buf *text,
                  am__buf *line, am__buf *json, am_profile_card *out)
{
    size_t shown = 0, sections = 0;
    int last = -1;
    for (size_t i = 0; i < n; i++)
        if (c[i].taken == 1) {
            shown++;
            if (c[i].topic != last) sections++;
            last = c[i].topic;
        }
    out->sections = am__arena_alloc(ar, (sections + 1) * sizeof *out->sections);
    am_profile_item *items = am__arena_alloc(ar, (shown + 1) * sizeof *items);
    if (!out->sections || !items) return AM_NOMEM;
    int is_zh = lang == AM_LANG_ZH;
    am__buf_printf(json, "{\"lang\":\"%s\",\"budget_tokens\":%d,\"sections\":[",
                   is_zh ? "zh" : "en", out->budget_tokens);
    am_profile_section *sec = NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (c[i].taken != 1) continue;
        if (!sec || strcmp(sec->topic, am__lex_topic_labels[c[i].topic][0]) != 0) {
            if (!text->len) {
                am__buf_adds(text, header(lang));
                am__buf_addc(text, '\n');
            }
            title_line(c[i].topic, lang, line);
            am__buf_add(text, line->p, line->len);
            am__buf_addc(text, '\n');
            if (sec) am__buf_adds(json, "]},");
            sec = &out->sections[out->n_sections++];
            sec->topic = am__lex_topic_labels[c[i].topic][0];
            sec->title = am__lex_topic_labels[c[i].topic][is_zh ? 1 : 2];
            sec->items = &items[k];
            am__buf_adds(json, "{\"topic\":");
            am__buf_json_str(json, sec->topic);
            am__buf_adds(json, ",\"title\":");
            am__buf_json_str(json, sec->title);
            am__buf_adds(json, ",\"items\":[");
        } else am__buf_addc(json, ',');
        item_line(&c[i], lang, line);
        am__buf_add(text, line->p, line->len);
        am__buf_addc(text, '\n');
        const am__item_row *r = c[i].row;
        am_profile_item *it = &items[k++];
        it->id = r->id;
        it->lineage_id = r->lineage_id;
        it->kind = r->kind;
        it->key = r->key;
        it->text = r->text;
        it->confidence = r->confidence;
        sec->n_items++;
        am__buf_adds(json, "{\"id\":");
        am__buf_json_str(json, r->id);
        am__buf_adds(json, ",\"lineage_id\":");
        am__buf_json_str(json, r->lineage_id);
        am__buf_adds(json, ",\"kind\":");
        am__buf_json_str(json, r->kind);
        am__buf_adds(json, ",\"key\":");
        am__buf_json_str(json, r->key);
        am__buf_adds(json, ",\"text\":");
        am__buf_json_str(json, r->text);
        am__buf_adds(json, ",\"confidence\":");
        am__buf_add_fixed(json, r->confidence, 3);
        am__buf_addc(json, '}');
    }
    if (sec) am__buf_adds(json, "]}");
    out->n_items = k;
    return AM_OK;
}

int am__profile_build(const am__profile_in *in, am__arena *ar, am_profile_card *out)
{
    memset(out, 0, sizeof *out);
    out->budget_tokens = in->budget;
    card_item *c;
    size_t n;
    int lang;
    int rc = lasting(in, ar, &c, &n, &lang);
    if (rc) return rc;
    if (n > 1) qsort(c, n, sizeof *c, cmp_priority_q);
    am__buf text, line, json;
    am__buf_init(&text, in->alloc);
    am__buf_init(&line, in->alloc);
    am__buf_init(&json, in->alloc);
    rc = choose(in, c, n, lang, &line, &out->tokens);
    for (size_t i = 0; i < n; i++) {
        if (c[i].taken < 0) out->n_duplicates++;
        else if (!c[i].taken) out->n_left_out++;
    }
    if (n > 1) qsort(c, n, sizeof *c, cmp_card_q);
    if (!rc) rc = render(c, n, lang, ar, &text, &line, &json, out);
    if (!rc) {
        am__buf_printf(&json, "],\"tokens\":%d,\"items\":%zu,\"duplicates\":%zu,\"left_out\":%zu,"
                              "\"text\":",
                       out->tokens, out->n_items, out->n_duplicates, out->n_left_out);
        am__buf_add(&text, "", 0);
        out->text = am__arena_strndup(ar, text.p ? text.p : "", text.len);
        am__buf_json_str(&json, out->text ? out->text : "");
        am__buf_addc(&json, '}');
        out->lang = lang == AM_LANG_ZH ? "zh" : "en";
        out->json = json.oom ? NULL : am__arena_strndup(ar, json.p, json.len);
        if (text.oom || line.oom || !out->text || !out->json) rc = AM_NOMEM;
    }
    am__buf_free(&text);
    am__buf_free(&line);
    am__buf_free(&json);
    return rc;
}
