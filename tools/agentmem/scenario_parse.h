/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario_parse.h -- the engine-independent half of the scenario runner
 * (`agentmem scenario run`, see SCENARIOS.md): parsing one JSON Lines step
 * and checking its shape, NFKC + case-fold text matching, and evaluating the
 * expectations of a step against an *observation* -- plain strings and
 * numbers the runner (scenario.c) took from the engine's answer.
 *
 * It uses jansson, utf8proc and libc only -- never the engine -- so the fuzz
 * target fuzz/fuzz_scenario_line.c can include scenario_parse.c directly.
 *
 * Problems are never fatal to the process: a line that cannot be used yields
 * `issues` (one FAIL line each) and the runner goes on with the next line.
 */
#ifndef AM_SCENARIO_PARSE_H
#define AM_SCENARIO_PARSE_H

#include <stddef.h>

#include <jansson.h>

/* ------------------------------------------------------------ buffers */

/* Growable NUL-terminated text.  On allocation failure `oom` is set and
 * further appends are ignored; sc_buf_str then still returns a string. */
typedef struct sc_buf {
    char *p;
    size_t len, cap;
    int oom;
} sc_buf;

void sc_buf_add(sc_buf *b, const char *s, size_t n);
void sc_buf_adds(sc_buf *b, const char *s);
void sc_buf_printf(sc_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append s (NULL prints as null) made safe for a one-line report:
 * control characters and invalid UTF-8 bytes are escaped, and at most
 * max_bytes of s are used (cut at a character boundary, "…" added).
 * sc_buf_quote also adds double quotes and escapes `"` and `\`. */
void sc_buf_clean(sc_buf *b, const char *s, size_t max_bytes);
void sc_buf_quote(sc_buf *b, const char *s, size_t max_bytes);
/* The text so far; never NULL (a static "" when empty or out of memory). */
const char *sc_buf_str(const sc_buf *b);
void sc_buf_reset(sc_buf *b);
void sc_buf_free(sc_buf *b);

/* ------------------------------------------------------------ text */

/* NFKC-normalised, case-folded copy of s (malloc'ed, free with free()).
 * Invalid UTF-8 falls back to an ASCII-lowercased copy.  NULL on OOM. */
char *sc_norm(const char *s);
/* 1 when needle occurs in hay after both are normalised (0 on OOM). */
int sc_text_contains(const char *hay, const char *needle);
/* Every string leaf (and object key) of a JSON value as text, one per
 * line, so that substring checks see unescaped Unicode. */
void sc_json_flatten(const json_t *v, sc_buf *out);
/* Same for JSON text; text that is not JSON is copied unchanged. */
void sc_json_text_flatten(const char *json_text, sc_buf *out);
/* 1 when an ISO 8601 time string ends with a zone (Z or +hh:mm / +hhmm /
 * +hh after a 'T' time).  A syntactic pre-check; the engine parses. */
int sc_has_zone(const char *iso);

/* ------------------------------------------------------------ steps */

typedef enum sc_kind {
    SC_LINK,
    SC_ADD,
    SC_RECALL,
    SC_TASK,
    SC_MEMORIES,
    SC_FORGET,
    SC_FEEDBACK,
    SC_EXPORT,
    SC_CONFIG,    /* docs/internals/SCENARIOS_EXT.md: the store's role whitelists */
    SC_WORKSPACE, /* docs/internals/SCENARIOS_EXT.md: a task's shared workspace */
    SC_PROFILE,   /* docs/internals/SCENARIOS_EXT.md: the user's profile card */
    SC_PACK,      /* docs/internals/SCENARIOS_EXT.md: a rule pack applied, listed or removed */
    SC_ARCHIVE,   /* docs/internals/SCENARIOS_EXT.md: old events to the cold column, or back */
    SC_MAINTAIN,  /* docs/internals/SCENARIOS_EXT.md: the maintenance pass at the step's clock */
    SC_MEMORY_ADD, /* docs/internals/SCENARIOS_EXT.md: a memory the application states */
    SC_NKINDS
} sc_kind;

/* Name of a step kind ("recall"); "?" when out of range. */
const char *sc_kind_name(sc_kind k);

/* One problem with a line: `check` is an expectation key (the line prints
 * as "recall.foo"), or NULL for the step / the line itself. */
typedef struct sc_issue {
    char *check;
    char *detail;
} sc_issue;

/* One parsed step.  Strings are borrowed from `root` (NULL when absent). */
typedef struct sc_step {
    json_t *root;     /* owned; NULL when the line was not a JSON object */
    int valid_kind;   /* 1 when `kind` names a known step */
    sc_kind kind;
    const char *name; /* the step name as written, or NULL */
    const char *at;
    const char *user, *channel, *external_id, *session, *agent, *task,
        *source, *type, *domain, *label, *text, *query, *as_of, *scope, *id,
        *target, *action;
    /* docs/internals/SCENARIOS_EXT.md: the asker's role (recall, task, memories),
     * the whitelists (config), a workspace entry (workspace) */
    const char *role, *role_allow, *doing, *done, *next;
    /* docs/internals/SCENARIOS_EXT.md: an event's own time when it is not the
     * step's (add: a late statement, an import) */
    const char *occurred_at;
    /* docs/internals/SCENARIOS_EXT.md: a rule pack -- its file (relative to the
     * scenario file) or the pack itself, and the name to remove */
    const char *file, *pack_name;
    json_t *pack;     /* borrowed from root; NULL when absent */
    /* docs/internals/SCENARIOS_EXT.md: memory_add's kind (JSON "kind"), key and
     * expires_at */
    const char *mem_kind, *key, *expires_at;
    int all;          /* memories: include closed versions */
    int budget;       /* recall, profile: token budget, 0 = engine default */
    int older_than_days; /* archive: 0 = the knob archive_events_days */
    /* -1: nothing said about errors; 0: must succeed (expect.error false);
     * 1: must be refused (expect_error or expect.error true). */
    int want_error;
    json_t *expect;   /* borrowed from root; NULL when absent */
    int fatal;        /* the step cannot be run (issues say why) */
    sc_issue *issues;
    size_t n_issues;
} sc_step;

/* Result of sc_parse_line. */
#define SC_LINE_SKIP 0 /* blank or a // comment */
#define SC_LINE_STEP 1 /* a step; may still carry issues (see fatal) */
#define SC_LINE_BAD 2  /* not a JSON object; issues[0] says why */

/* Parse one line (len bytes, need not be NUL-terminated, may hold NULs).
 * *st is always initialised; release it with sc_step_free. */
int sc_parse_line(const char *line, size_t len, sc_step *st);
void sc_step_free(sc_step *st);
/* Record a problem (copies check and detail). */
void sc_step_issue(sc_step *st, const char *check, const char *detail);

/* 1 when an issue was recorded for expectation `key` (already reported:
 * the runner does not evaluate it). */
int sc_step_key_bad(const sc_step *st, const char *key);

/* 1 when `key` is a known expectation key that applies to kind k. */
int sc_key_applies(const char *key, sc_kind k);

/* ------------------------------------------------------------ checks */

/* The counts of a maintain step's report, in the order of sc_maint_keys. */
#define SC_MAINT_COUNTS 5
extern const char *const sc_maint_keys[SC_MAINT_COUNTS];

/* What the engine answered, as plain data.  Unset members: NULL / 0
 * counts / -1. */
typedef struct sc_obs {
    const char *const *memories; /* texts of the memories a check sees */
    size_t n_memories;
    const char *const *events;   /* contents of the returned events */
    size_t n_events;
    const char *block;           /* rendered memory block */
    int need_memory;             /* router decision, -1 unknown */
    const char *task_text;       /* task record as text; NULL = no task */
    const char *status, *stage;  /* task status and stage */
    long count_active;           /* active memories, -1 unknown */
    const char *export_raw;      /* export JSON as given */
    const char *export_flat;     /* its string leaves, unescaped */
    const char *workspace_text;  /* the workspace's string leaves; NULL = none */
    const char *route;           /* the router's route; NULL = unknown */
    const char *block_system;    /* the block's part for the system prompt */
    const char *block_context;   /* its part before the history */
    const char *history_text;    /* the task's history, a line a change
                                    ("field: old -> new"); NULL = no task */
    const char *profile_text;    /* the profile card's text; NULL = none */
    const char *pack_text;       /* a pack step's answer: its string leaves and
                                    JSON; NULL = none */
    long archived;               /* archive: events archived (restored), -1 unknown */
    /* memories (statuses): each listed item's latest current record, its
     * text and status; maintain: the report's counts (-1 unknown) */
    const char *const *item_texts, *const *item_statuses;
    size_t n_item_status;
    long maint[SC_MAINT_COUNTS];
} sc_obs;

void sc_obs_init(sc_obs *o);

/* Evaluate expectation `key` with value `want` of a step of kind k (not
 * `error`, which the runner decides from the return code).  Returns 1
 * when it holds, 0 when not; *detail receives "expected ... / got ...".
 * Never crashes on any key or value: an invalid one simply fails. */
int sc_check(sc_kind k, const char *key, const json_t *want,
             const sc_obs *obs, sc_buf *detail);

#endif
