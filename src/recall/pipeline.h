/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pipeline.h -- the read path as one pipeline over one recall state.
 *
 * api/read.c checks the arguments, resolves the user and fills an
 * am__recall_env (what the read path needs of the handle: the store, the
 * analyzer, the caches, the embedder, the knobs) and an am__recall_state
 * (the question); am__recall_run (recall/pipeline.c) then calls the
 * stages in this order, each in its own file:
 *
 *   route   route.c    normalise the turn; need memory? which layer first?
 *                      does the caller's domain fit the text?
 *                      A turn the learned reading takes for small talk is
 *                      checked against the stored items after filter
 *                      (am__recall_route_check): a word match keeps memory.
 *   filter  filter.c   the user's current / as-of item versions, the
 *                      bounds of every search, the visible scopes
 *   terms   terms.c    the question's search terms: its asks, synonyms,
 *                      narrower words, its token set
 *   search  search.c   BM25F over the user's index, each clause and
 *                      condition of a compound question (clauses.c), the
 *                      period it names, speaker and date support,
 *                      relevance + recency
 *   hops    hops.c     values named through the PII vault (pii.c) and
 *                      two-hop bridges
 *   fuse    fuse.c     the vector scan's neighbours (fusion), the
 *                      referenced task's current round and
 *                      its shared workspace
 *   rank    rank.c     memory items: heat x similarity, provenance,
 *                      pending versions beside what they contradict
 *   kinds   kinds.c    a turn that asks for a link or a file: the turns and
 *                      items that carry one first
 *   dedup   dedup.c    the block's events: above the floor, neither a shown
 *                      memory's source nor a restatement of it
 *   budget  budget.c   token budgets of the two sections
 *   render  render.c   the labelled block in the question's language, the
 *                      task state first on the state_first route, and its
 *                      two parts: for the system prompt, before the
 *                      history
 *
 * Every stage reads what the earlier ones left in the state and adds its
 * own part; all memory comes from the state's arena (released whole by
 * the result).  A stage returns AM_OK or an error code; a message that is
 * more than "out of memory" or the store's own goes to state->err.
 */
#ifndef AM_RECALL_PIPELINE_H
#define AM_RECALL_PIPELINE_H

#include "embed/embed.h"
#include "recall/recall.h"
#include "store/metadata.h"
#include "text/redact.h"
#include "text/understand.h"

#define AM__MAX_QSET 256               /* tokens of the question ranked against items */
#define AM__DEDUP_SET AM__TEXT_SET     /* tokens compared when deduplicating the block */
#define AM__MAX_CLAUSES 3              /* clauses of a compound question */
#define AM__CLAUSE_MAX_TOKENS 160      /* a longer text is no compound question */
#define AM__MAX_PARTS (2 * AM__MAX_CLAUSES) /* clauses and their conditions */

/* What the read path needs of the handle (filled by api/read.c). */
typedef struct am__recall_env {
    am__store *store;
    am__text *text;
    am__tokcache *tokcache;       /* item and text token sets */
    am__embedder *embedder;       /* NULL: lexical recall only */
    int embed_zh;                 /* the embedder represents Chinese text */
    const am_rank_config *rank;
    const am__allocator *alloc;   /* scratch buffers */
    int default_tz_minutes;       /* zone of the periods a turn names */
    am__redact_policy redact;     /* what the write path put in the vault */
} am__recall_env;

/* The clauses of a compound question ("上司是做什么的？另外，论坛在哪？",
 * "Where does she work? And how old is she?"), or the asks of one that
 * corrects itself. */
typedef struct am__clauses {
    const char *p[AM__MAX_CLAUSES + 1];
    size_t n[AM__MAX_CLAUSES + 1];
    size_t count;
    int quoted; /* quotation marks left open by the last one */
} am__clauses;

/* Which part (clause or condition) each candidate answers best (by row
 * id). */
typedef struct am__clause_homes {
    int64_t *rid;
    unsigned char *home;
    size_t n, clauses;
    /* each part's question terms for the two-hop search (a condition's:
     * its clause's; weights NULL: all 1) */
    const char **terms[AM__MAX_PARTS];
    const double *weights[AM__MAX_PARTS];
    size_t nt[AM__MAX_PARTS];
} am__clause_homes;

/* What each stage did, for the recall's log record (api/read.c): its
 * time and the candidates in the state after it -- events and items. */
enum {
    AM__ST_ROUTE, AM__ST_FILTER, AM__ST_TERMS, AM__ST_SEARCH, AM__ST_HOPS, AM__ST_FUSE,
    AM__ST_RANK, AM__ST_KINDS, AM__ST_DEDUP, AM__ST_BUDGET, AM__ST_RENDER, AM__ST_COUNT
};
extern const char *const am__recall_stage_names[AM__ST_COUNT];
typedef struct am__recall_trace {
    unsigned ran;                  /* bit per stage that ran */
    int64_t us[AM__ST_COUNT];      /* its time, microseconds (summed over runs) */
    size_t events[AM__ST_COUNT];   /* candidate events after it (dedup and
                                      later: the block's) */
    size_t items[AM__ST_COUNT];    /* items after it (filter: visible versions,
                                      rank: scored, render: shown) */
} am__recall_trace;

typedef struct am__recall_state {
    /* ---- in (api/read.c) */
    const am__recall_env *env;
    const am_query *q;
    const char *uid;              /* the master user, resolved */
    am__arena *ar;                /* everything below lives here */
    am_time now;
    am_time as_of;                /* AM_TIME_NONE: the present */
    size_t qn;                    /* strlen(q->text) */
    const am__filter *filt;       /* the caller's filter (q->filter compiled),
                                     or NULL: the filter stage keeps only
                                     the items and events it passes */

    /* ---- route */
    const char *qnorm;            /* the turn normalised */
    size_t qnorm_len;
    int lang;                     /* AM_LANG_ZH or AM_LANG_EN: the labels */
    int vector_ok;                /* the embedder can represent the turn */
    am__route_decision rd;
    int domain_conflict;
    float reading[AM_UND_OUTPUTS]; /* the learned reading of the turn: each
                                      head's probabilities (text/understand.h) */
    int small_talk;               /* read as small talk: no memory unless a
                                     stored item matches its words */

    /* ---- filter */
    int exists;                   /* the user has a history */
    am_time at;                   /* as_of, or now */
    am_time to;                   /* bound of every search: as_of + 1, or none */
    am__item_row *all_items;      /* every current (or as-of) version */
    size_t n_all_items;
    am__item_row *pack_rules;     /* the rules of the user's packs shown (scope
                                     pack:NAME, left out of all_items: never
                                     ranked), by pack, in the pack's order */
    size_t n_pack_rules;
    int period;                   /* the items are (also) those of a
                                     period the turn names, as they were then */
    int named_known;              /* the period the turn names at `now` was
                                     looked up (as_of none): */
    int named;                    /* it names one, */
    am_time named_from, named_to; /* [named_from, named_to) */

    /* ---- terms */
    const char **terms;
    const double *weights;        /* per term; NULL = all 1 */
    size_t nt;
    uint64_t qset[AM__MAX_QSET];  /* the question's token set */
    size_t nq;
    am__clauses asks;             /* a query that corrects itself: its asks */
    const char *qtext;            /* what is searched: the asks, or the turn */
    size_t qtext_n;

    /* ---- search */
    size_t max_ev;                /* events in the result */
    int limit;                    /* candidates of a search */
    am__event_row *events;        /* the candidates, best first */
    size_t n_events;
    am__search_stats stats;       /* the terms' frequencies */
    am__clause_homes homes;
    int timed;                    /* the turn names a period: */
    am_time t_from, t_to;         /* [t_from, t_to) */

    /* ---- fuse */
    am__task_row *task;           /* the referenced task, or NULL */
    am__workspace_row *workspace; /* its shared workspace, by agent */
    size_t n_workspace;

    /* ---- rank */
    am__scored_item *scored;      /* the visible items, best first */
    size_t n_items;

    /* ---- dedup */
    am__event_row *block_events;
    size_t n_block;

    /* ---- budget */
    int budget_long, budget_short;

    /* ---- render */
    const char *block;
    const char *block_system;     /* its part for the system prompt */
    const char *block_context;    /* its part before the history */
    int block_tokens;
    size_t used_items;            /* items shown (the result's memories) */

    char err[256];                /* a stage's own message, or "" */
    am__recall_trace trace;       /* pipeline.c */
} am__recall_state;

/* Run every stage in order.  A recall that needs no memory (small talk) or
 * whose user has no history stops after route / filter with an empty
 * block. */
int am__recall_run(am__recall_state *st);

/* The stages (each returns AM_OK or an error code). */
int am__recall_route(am__recall_state *st);
int am__recall_route_check(am__recall_state *st);
/* route.c, after search: an event that holds most of the words of a turn
 * read as small talk brings memory back (need_memory = 1). */
int am__recall_route_events(am__recall_state *st);
int am__recall_filter(am__recall_state *st);
/* filter.c, after the fuse stage: the events the caller's filter
 * passes (none given: all) */
int am__recall_filter_events(am__recall_state *st);
int am__recall_terms(am__recall_state *st);
int am__recall_search(am__recall_state *st);
int am__recall_hops(am__recall_state *st);
int am__recall_fuse(am__recall_state *st);
int am__recall_rank(am__recall_state *st);
int am__recall_kinds(am__recall_state *st);
int am__recall_dedup(am__recall_state *st);
int am__recall_budget(am__recall_state *st);
int am__recall_render(am__recall_state *st);

/* ---- shared between stages */
/* filter.c: an item of this scope is visible to the question (after the
 * fuse stage has found the referenced task). */
int am__recall_visible(const am__recall_state *st, const char *scope);

/* terms.c: the search terms of a text: its own (weight 1), its synonyms
 * and near-words, then the narrower words of its broad ones.
 * qnorm: the text normalised, when the caller has it (NULL: normalised
 * here).  qset: the text's token set (at most AM__MAX_QSET, *nq) from the
 * same analysis, when asked for (NULL: not). */
int am__recall_text_terms(const am__recall_env *env, am__arena *ar, const char *text, size_t n,
                          const char *qnorm, size_t qnorm_len, const char ***terms,
                          const double **weights, size_t *nt, uint64_t *qset, size_t *nq);
/* terms.c: add the query terms of text not already among *terms, with
 * weight w (the existing terms keep theirs; NULL weights = all 1). */
int am__recall_add_terms(const am__recall_env *env, am__arena *ar, const char *text, double w,
                         const char ***terms, const double **weights, size_t *nt);

/* clauses.c: a compound question's clauses and conditions searched on
 * their own (search stage), and the candidates interleaved by the clause
 * they answer (after ranking). */
int am__recall_search_clauses(const am__recall_env *env, const char *uid, const char *text,
                              size_t n, const am__clauses *asks, am_time to, int limit,
                              am__arena *ar, am__event_row **events, size_t *n_events,
                              am__clause_homes *homes);
int am__recall_interleave_clauses(const am__clause_homes *h, am__arena *ar, am__event_row *rows,
                                  size_t n);

/* pii.c: events that held a PII value the question names come first. */
int am__recall_pii_matches(const am__recall_env *env, const char *uid, const char *text,
                           size_t len, am_time to, am__arena *ar, am__event_row **events,
                           size_t *n_events);

/* fuse.c: best first by score (qsort comparator of am__event_row). */
int am__recall_cmp_score(const void *a, const void *b);

#endif
