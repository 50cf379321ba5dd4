/* SPDX-License-Identifier: Apache-2.0 */
/*
 * llm.h -- the optional LLM pass's client (docs/LLM.md): one
 * OpenAI-compatible POST {BASE_URL}/chat/completions endpoint that reads a
 * batch of a user's events and proposes memories as JSON.
 *
 * Design: the client only speaks the protocol and keeps the per-user
 * budget; what becomes of a proposal (the one-off, merge and version
 * rules, the citations checked against the store) is api/llm.c's.  The
 * request carries a fixed system prompt and the events as a JSON document
 * ({"events":[{"id","time","text"}]}); the reply's message content must be
 * {"memories":[{"kind","text","key"?,"confidence"?,"source_event_ids"?}]}.
 * Anything else -- not JSON, a refusal, no "memories" array -- is a
 * malformed reply (AM_BACKEND, nothing proposed); a single proposal with a
 * wrong kind, no text or an over-long text is dropped alone and counted.
 * No text of the user is ever put into an error message.
 */
#ifndef AM_LIFECYCLE_LLM_H
#define AM_LIFECYCLE_LLM_H

#include "base/base.h"
#include "base/http.h"

typedef struct am__llm am__llm;

#define AM__LLM_MAX_PROPOSALS 64   /* proposals read from one reply */
#define AM__LLM_MAX_TEXT 1000      /* bytes of a proposal's text */
#define AM__LLM_MAX_KEY 95         /* bytes of a proposal's key */
#define AM__LLM_MAX_IDS 16         /* cited ids read per proposal */
#define AM__LLM_MAX_RESPONSE ((size_t)1 << 20)

/* spec "openai:MODEL@BASE_URL" (BASE_URL like http://127.0.0.1:8080/v1;
 * "/chat/completions" is appended unless it ends so), key may be NULL.
 * AM_INVALID with a message naming what is wrong, AM_NOMEM. */
int am__llm_open(const char *spec, const char *key, am__llm **out, char *err, size_t errlen);
void am__llm_close(am__llm *l);
const char *am__llm_id(const am__llm *l); /* "openai:MODEL@host[:port]" */

typedef struct am__llm_event {
    const char *id, *time, *text;
} am__llm_event;

typedef struct am__llm_proposal {
    const char *kind, *text, *key; /* key NULL: none given */
    double confidence;             /* -1: none given */
    const char *ids[AM__LLM_MAX_IDS];
    size_t n_ids;
} am__llm_proposal;

typedef struct am__llm_reply {
    am__llm_proposal *p;
    size_t n;
    long dropped;  /* proposals refused by their shape (kind, text, size) */
    long tokens;   /* the reply's usage.total_tokens, else estimated */
    int tries;     /* HTTP attempts */
    int refused;   /* the model refused (a refusal field or a non-JSON answer) */
} am__llm_reply;

/* The kinds a proposal may have ("one_off": a request for this time only). */
int am__llm_kind_ok(const char *kind);

/* Sends evs[0..n) and parses the reply into out (strings in ar).  o: the
 * HTTP options' cancel callback and timeouts (may be NULL).  AM_OK;
 * AM_BACKEND (malformed or refusing reply: out->refused says which),
 * the HTTP errors (http.h), AM_NOMEM.  out->tries and out->tokens are set
 * whatever the outcome. */
int am__llm_ask(am__llm *l, const am__llm_event *evs, size_t n, const am__http_opts *o,
                am__arena *ar, am__llm_reply *out, char *err, size_t errlen);

/* The reply parser alone (tests, fuzzing): body is the whole HTTP body. */
int am__llm_parse(const char *body, size_t len, am__arena *ar, am__llm_reply *out, char *err,
                  size_t errlen);

/* The per-user budget per UTC day.  Durable: what a pass spends is in its
 * "llm.pass" audit row (detail {"calls":N,"tokens":M}), so separate
 * processes on one store share it; the client keeps per user the day, the
 * audit seq read up to and the day's sums (at most 4096 users, the oldest
 * day's dropped first), and the caller reads the rows after seq
 * (am__llm_budget_add) before it decides (am__llm_budget_ok). */
typedef struct am__llm_budget {
    char uid[AM_ID_MAX + 1];
    int64_t day;  /* now_ms / 86400000 */
    int64_t seq;  /* the audit rows read: seq <= this */
    long calls, tokens;
} am__llm_budget;

/* uid's entry for now_ms's day (a new day: sums and seq reset), NULL when
 * out of memory. */
am__llm_budget *am__llm_budget_get(am__llm *l, const char *uid, int64_t now_ms);
/* Counts one audit row into b when it is an "llm.pass" of b's day. */
void am__llm_budget_add(am__llm_budget *b, int64_t seq, int64_t at_ms, const char *op,
                        const char *detail);
/* 1 when b allows another call (0 = no limit). */
int am__llm_budget_ok(const am__llm_budget *b, long max_calls, long max_tokens);
/* Drops uid's budget entry (a forgotten user leaves no trace here). */
void am__llm_budget_forget(am__llm *l, const char *uid);

#endif
