/* SPDX-License-Identifier: Apache-2.0 */
/*
 * recall.h -- the read path's leaf functions, which the stages of
 * recall/pipeline.h call: the router and the domain check (route.c), query
 * expansion, asks and conditions (expand.c), the ranking of items and
 * events (rank.c) and the block's rendering (render.c).  The order of a
 * recall is written once, in recall/pipeline.c.
 */
#ifndef AM_RECALL_H
#define AM_RECALL_H

#include "index/lexical.h"
#include "store/store.h"
#include "text/analyze.h"

/* ---- route */
#define AM__ROUTE_NONE 0
#define AM__ROUTE_SEMANTIC 1
#define AM__ROUTE_STATE 2
#define AM__REFS_URL AM_REF_URL   /* the turn asks for a link ("链接", "the link") */
#define AM__REFS_FILE AM_REF_FILE /* ... for a file ("那个文件", "the doc you sent") */
typedef struct am__route_decision {
    int need_memory;
    int route;          /* AM__ROUTE_* */
    int continuation;   /* the text continues earlier work */
    const char *reason; /* "chit_chat", "closing", "continuation", "default" */
    int refs;           /* AM__REFS_* bits: kinds of reference to rank first */
} am__route_decision;
void am__route(const char *norm, size_t n, am__route_decision *out);
const char *am__route_name(int route);
/* *ack = 1 when text, read as a turn by the word lists above, needs no
 * memory: small talk or a closing that says nothing else ("好的", "嗯嗯",
 * "got it", "ok thanks, that's all") -- a bare acknowledgement, which the
 * block leaves out of its relevant events.  norm is scratch (reset).
 * Returns AM_OK or AM_NOMEM. */
int am__route_bare_ack(am__text *t, const char *text, am__buf *norm, int *ack);

/* ---- expand */
/* Append to out the synonyms / near-words of the groups the normalised
 * query touches (space-separated), and to narrow, for a short question,
 * the narrower words of the broad ones it uses ("hobbies" -> "swimming
 * hiking ..."); the caller adds their tokens as extra query terms, the
 * narrower ones with a lower weight.  Returns AM_OK or AM_NOMEM. */
int am__expand_query(const char *norm, size_t n, am__buf *out, am__buf *narrow);

/* How the person's attribute that a question token names is told, for
 * the second hop of a two-hop search (api/read.c): "姓名" -> "叫",
 * "名字"; "name" -> "call" (index tokens, NULL-terminated); NULL when the
 * token names no attribute. */
const char *const *am__told_forms(const char *token);

/* The asks of a normalised query that corrects itself ("…天气真好。不好
 * 意思，我真正想问的是：那个活动的地点是什么？", "…  anyway, what I
 * really want to know is where she works?"): for each repair cue, the
 * span from the cue to its question mark (or the end of the line), at
 * most max of them, as byte offsets [from[i], to[i]).  A one-line query
 * with no cue whose last sentence is a question after a longer chatter of
 * statements ("…天气真好。最近太忙了。等等，那个活动的地点是什么？") has
 * asked that question (one ask).  Returns how many (0: the query does not
 * correct itself; all of it is the ask). */
size_t am__query_asks(const char *norm, size_t n, size_t *from, size_t *to, size_t max);

/* The condition of a question that names a thing by one of its facts in a
 * relative clause ("那个联系电话是13228788707的人，其职业是什么？",
 * "南京协和医院的那位员工…", "the person whose phone number is 555 0134,
 * where …"): 1 and the clause as byte offsets [*from, *to) of s, with
 * *value where its value begins (after its last copula "是" / "is"; *from
 * when it has none); 0 when s has none.  s may be normalised or not. */
int am__query_condition(const char *s, size_t n, size_t *from, size_t *to, size_t *value);

/* ---- rank */
typedef struct am__scored_item {
    am__item_row *row;
    double heat, similarity, score;
    const char *conflicts_with; /* pending_confirm: the active value's text */
} am__scored_item;
/* Token sets of memory item versions, cached by version id: versions are
 * immutable, so an entry never goes stale.  Bounded; cleared when full. */
typedef struct am__tokcache am__tokcache;
am__tokcache *am__tokcache_new(const am__allocator *a);
void am__tokcache_free(am__tokcache *c);
void am__tokcache_clear(am__tokcache *c); /* after a forget */
/* The token set (at most AM__TEXT_SET sorted hashes) of a text, through
 * a second table of the cache keyed by the text's hash (c may be NULL). */
#define AM__TEXT_SET 128
int am__tokcache_text_set(am__text *t, am__tokcache *c, const char *s, size_t len,
                          uint64_t *out, size_t *n);
/* The token set of an event's content (at most AM__TEXT_SET): the one
 * stored with it (events.tokens, schema v12), else am__tokcache_text_set. */
int am__tokcache_event_set(am__text *t, am__tokcache *c, const am__event_row *e, uint64_t *out,
                           size_t *n);

/* The topic an item was stored with (its value's "topic": the learned
 * reading's when it was distilled), into out[cap]: 1, or 0 when it has
 * none. */
int am__item_topic(const am__item_row *it, char *out, size_t cap);

/* Score items for a query (token set q), best first, into out (n items).
 * cache may be NULL. */
int am__rank_items(am__text *t, am__tokcache *cache, const am_rank_config *r, am_time now,
                   const uint64_t *q, size_t nq, am__item_row *rows, size_t n,
                   am__scored_item *out);
/* Rerank lexical candidates in place by relevance, recency and session
 * support (its scratch from ar; none: no session support); candidates
 * under the relevance floor get a negative score. */
void am__rank_events(const am_rank_config *r, am_time now, am__arena *ar, am__event_row *rows,
                     size_t n);

/* Speaker support: a turn written as a transcript line, "Name: text" (or
 * "名字：text"), whose speaker the question names gets its lexical score
 * times (1 + r->w_speaker): what someone says in the first person is
 * about them ("I just signed up for a pottery class" answers "what does
 * Melanie do?"), while a turn that only addresses them is not.  norm is
 * the normalised query.  aliased[0..n_aliased): speaker labels (lower
 * case) the question names by another name ("Kate" for the speaker
 * "Emi": api/read.c, from the aliases the write path learnt).  Call
 * before am__rank_events. */
void am__speaker_boost(const am_rank_config *r, const char *norm, size_t n,
                       const char *const *aliased, size_t n_aliased, am__event_row *rows,
                       size_t n_rows);
/* 1 if the normalised query holds name (lower case; a Latin name as a
 * whole word). */
int am__query_names(const char *norm, size_t n, const char *name);

/* Time support: when the normalised query asks when something happened
 * ("when did", "what year", "什么时候", "哪天"; am__asks_when), a
 * candidate that names a date, a date range or a date-time (resolved
 * against its own time at write: "yesterday", "last May", "上周五";
 * dated[i], from the entities the store kept) gets its lexical score times
 * (1 + r->w_when): the answer to "when" is a turn that says when.  Call
 * before am__rank_events. */
void am__when_boost(const am_rank_config *r, am__event_row *rows, size_t n_rows,
                    const unsigned char *dated);
/* 1 when the normalised text asks when (see am__when_boost). */
int am__asks_when(const char *norm, size_t n);

/* Sort events best first by score. */
void am__sort_events(am__event_row *rows, size_t n);

/* How many of the ranked events (best first) cleared the relevance floor
 * (lexical score >= min_event_score x the best; am__rank_events marks the
 * others with a negative score). */
size_t am__events_cut(const am_rank_config *r, const am__event_row *rows, size_t n);

/* ---- render */
typedef struct am__render_in {
    int lang;                        /* AM_LANG_ZH or AM_LANG_EN */
    const am__scored_item *items;
    size_t n_items;
    const am__event_row *events;
    size_t n_events;
    const am__task_row *task;        /* or NULL */
    int budget_long, budget_short;   /* tokens */
    const am__workspace_row *workspace; /* the task's workspace, by agent */
    size_t n_workspace;
    const char *agent;               /* the asker (its entry first), or NULL */
    int state_first;                 /* the task state before the memories */
    const am__item_row *rules;       /* the rules of the user's packs shown */
    size_t n_rules;
} am__render_in;
/* Render the block into out; *items_used / *events_used say how many fit
 * the budgets (they are the ones the result returns). */
int am__render_block(const am__render_in *in, am__buf *out, size_t *items_used,
                     size_t *events_used);
/* The same, and its two parts appended to system (the profile,
 * preferences, constraints and rules shown) and context (the other items,
 * the task state, the events); either may be NULL. */
int am__render_parts(const am__render_in *in, am__buf *out, am__buf *system, am__buf *context,
                     size_t *items_used, size_t *events_used);

/* ---- profile (profile.c) */
/* The kind's label in the block's language ("用户偏好", "Preference"; an
 * unknown kind as it is). */
const char *am__kind_label(const char *kind, int lang);
typedef struct am__profile_in {
    am__text *text;              /* the analyzer: token sets of near texts */
    am__tokcache *tokcache;      /* or NULL */
    const am__allocator *alloc;  /* scratch buffers */
    const am__item_row *items;   /* the user's current versions the asker sees */
    size_t n;
    int budget;                  /* tokens */
} am__profile_in;
/* The card of the rows into *out: every string and array in ar (the JSON
 * and text included).  Returns AM_OK or AM_NOMEM. */
int am__profile_build(const am__profile_in *in, am__arena *ar, am_profile_card *out);
#endif
