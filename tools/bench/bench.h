/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench.h -- internals of `agentmem bench` (retrieval benchmarks).
 *
 * Data flow: a loader (bench_data.c) turns one dataset into a bench_dataset:
 * a pool of documents (conversation turns, messages, memory entries), units
 * (one fresh store each: a conversation, a MemDaily haystack, a MADial user
 * archive) that list pool documents in ingest order, and questions that name
 * their gold documents by pool index.  The runner (bench_run.c) replays every
 * unit through the engine (am_open ":memory:" + am_add_event + am_recall) and
 * through the in-process BM25 baselines (bench_bm25.c), scores the rankings
 * (bench_score.c) and bench.c prints the report.  bench_synth.c is the scale
 * test.  Everything here uses only the public header and jansson: the
 * harness is a library of its own (tools/bench, CMake target
 * agentmem_bench) that the CLI reaches through bench_cli.h.
 *
 * Memory: a dataset owns all its strings through one arena; the arena and
 * every array are released by bench_dataset_free.  Errors are reported as a
 * message in a bench_err (what, which file, which field) and a -1 return.
 */
#ifndef AM_BENCH_H
#define AM_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "agentmem.h"

#define BENCH_MAX_K 16
#define BENCH_MAX_SERVERS 8 /* synth --servers: entries of the list, and servers per run */

/* ---------------------------------------------------------------- util */

typedef struct bench_err {
    char msg[1024];
} bench_err;

/* Format a message into e (may be NULL) and return -1. */
int bench_fail(bench_err *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A chunked bump allocator for strings that live as long as the dataset. */
typedef struct bench_arena_chunk bench_arena_chunk;
typedef struct bench_arena {
    bench_arena_chunk *head;
} bench_arena;

void *bench_arena_alloc(bench_arena *a, size_t n);
char *bench_arena_strndup(bench_arena *a, const char *s, size_t n);
char *bench_arena_strdup(bench_arena *a, const char *s);
char *bench_arena_printf(bench_arena *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void bench_arena_free(bench_arena *a);

/* Make room for `need` elements of `elem` bytes in *ptr (capacity *cap).
 * Returns 0, or -1 when out of memory (*ptr is left intact). */
int bench_grow(void **ptr, size_t *cap, size_t need, size_t elem);

/* Whole file into a NUL-terminated malloc'ed buffer. */
char *bench_read_file(const char *path, size_t *len, bench_err *e);

/* Sorted names (malloc'ed array of malloc'ed strings) of the regular files
 * in dir whose name starts with prefix and ends with suffix. */
int bench_list_dir(const char *dir, const char *prefix, const char *suffix,
                   char ***names, size_t *n, bench_err *e);
void bench_free_names(char **names, size_t n);
int bench_is_dir(const char *path);
/* Remove a store file and its -wal / -shm (absent is fine). */
int bench_remove_store(const char *path, bench_err *e);
/* The last path component (borrowed pointer into path). */
const char *bench_basename(const char *path);

/* UTF-8: decode the code point at s[*i] (advancing *i); invalid bytes
 * decode as U+FFFD one byte at a time. */
uint32_t bench_utf8_next(const char *s, size_t len, size_t *i);
/* Han ideographs (all blocks), kana, hangul syllables. */
int bench_is_cjk(uint32_t cp);
/* Unicode white space as Python's str.split() sees it. */
int bench_is_space(uint32_t cp);

/* Token estimate used for every token figure of the report: one token per
 * CJK character, plus one per 4 other non-space characters (rounded up).
 * Counts accumulate so a whole history is estimated in one go. */
typedef struct bench_tokcount {
    long cjk;
    long other;
} bench_tokcount;
void bench_tokcount_add(bench_tokcount *c, const char *s);
long bench_tokcount_value(const bench_tokcount *c);
long bench_tokens_estimate(const char *s);

/* Time.  Days since 1970-01-01 of a proleptic Gregorian date. */
int64_t bench_days_from_civil(int y, int m, int d);
/* Milliseconds since the epoch of a civil time in the zone tz_minutes. */
int64_t bench_civil_ms(int y, int mo, int d, int h, int mi, int s,
                       int tz_minutes);
/* "YYYY-MM-DDTHH:MM:SS+HH:MM" (or "Z") of ms in zone tz_minutes; buf >= 32. */
char *bench_iso(int64_t ms, int tz_minutes, char *buf);
/* Monotonic clock in milliseconds. */
double bench_mono_ms(void);
/* CPU time of the calling thread (user + system: page faults count), in
 * ms: a latency measure that other jobs on a shared machine disturb less
 * than the wall clock. */
double bench_cpu_ms(void);

/* Deterministic PRNG (splitmix64). */
typedef struct bench_rng {
    uint64_t s;
} bench_rng;
void bench_rng_seed(bench_rng *r, uint64_t seed, uint64_t stream);
uint64_t bench_rng_next(bench_rng *r);
/* Uniform in [0, n); n > 0. */
size_t bench_rng_below(bench_rng *r, size_t n);

/* String -> size_t hash map (keys are copied).  Open addressing. */
typedef struct bench_map {
    char **keys;
    size_t *lens;
    size_t *vals;
    size_t cap;  /* power of two or 0 */
    size_t n;
} bench_map;
/* Insert key -> val; if the key exists, leave it and report its value in
 * *existing (may be NULL).  Returns 1 inserted, 0 existed, -1 no memory. */
int bench_map_put(bench_map *m, const char *key, size_t len, size_t val,
                  size_t *existing);
/* 1 found (*val set), 0 absent. */
int bench_map_get(const bench_map *m, const char *key, size_t len,
                  size_t *val);
void bench_map_clear(bench_map *m);  /* empty, keep nothing */

/* Growable array of doubles with percentile. */
typedef struct bench_samples {
    double *v;
    size_t n, cap;
} bench_samples;
int bench_samples_add(bench_samples *s, double x);
/* Nearest-rank percentile (p in 0..100) of the samples; sorts them.
 * 0 when empty. */
double bench_samples_pct(bench_samples *s, double p);
void bench_samples_free(bench_samples *s);

/* ---------------------------------------------------------------- data */

typedef struct bench_doc {
    const char *key;      /* what gold evidence names: dia_id, mid, id */
    const char *text;     /* event text ("Speaker: text [image: ...]") */
    const char *session;  /* am_event.session_id */
    const char *at;       /* occurred_at, ISO 8601 with zone */
    int64_t at_ms;        /* the same time, UTC ms */
    long tokens;          /* bench_tokens_estimate(text) */
    bench_tokcount tc;
} bench_doc;

typedef struct bench_question {
    const char *id;        /* "conv-26#12": dataset-level question id */
    const char *text;      /* the recall query */
    const char *category;  /* category label ("1", "01_simple", "en") */
    size_t unit;
    size_t *gold;          /* pool indices, distinct */
    size_t n_gold;
} bench_question;

typedef struct bench_unit {
    const char *user_id;   /* the user the unit's events belong to */
    size_t *docs;          /* pool indices in ingest order */
    size_t n_docs;
    size_t q_begin, q_end; /* its questions: qs[q_begin..q_end) */
    int64_t now_ms;        /* clock at recall: after the last event */
} bench_unit;

typedef struct bench_dataset {
    const char *name;      /* "locomo", ... */
    const char *path;      /* what was read */
    bench_arena arena;
    bench_doc *docs;
    size_t n_docs, cap_docs;
    bench_unit *units;
    size_t n_units, cap_units;
    bench_question *qs;
    size_t n_qs, cap_qs;
    /* What the loader counted (reported in the JSON under "evidence"). */
    long refs;                 /* evidence references after splitting */
    long refs_resolved;        /* of which name a document */
    long skipped_adversarial;  /* LoCoMo category 5 */
    long skipped_no_evidence;  /* no resolvable reference */
    long distractors;          /* MemDaily: trajectories mixed in */
} bench_dataset;

/* Loader options. */
typedef struct bench_load_opts {
    int distractors;        /* memdaily */
    uint64_t seed;          /* memdaily */
    const char *lang;       /* madial: "en", "zh", "both" */
    int gold_first;         /* madial: only relevant-id[0] is gold */
} bench_load_opts;

/* Load dataset `name` from path (a file or a directory).  Returns 0 or -1
 * with e naming the file and field. */
int bench_load(bench_dataset *ds, const char *name, const char *path,
               const bench_load_opts *o, bench_err *e);
void bench_dataset_free(bench_dataset *ds);

/* Append helpers used by the loaders; return the new index or -1. */
long bench_add_doc(bench_dataset *ds, const char *key, const char *text,
                   const char *session, int64_t at_ms, int tz_minutes);

/* Split one raw evidence string into references: on ';', ',' and white
 * space, stripping '.'; a same-day range "D12:3-D12:5" (or "D12:3-5")
 * expands to D12:3, D12:4, D12:5.  Calls fn for each reference. */
typedef void (*bench_ref_fn)(void *ctx, const char *ref, size_t len);
void bench_split_refs(const char *raw, bench_ref_fn fn, void *ctx);

/* ---------------------------------------------------------------- bm25 */

#define BENCH_TOK_WHITESPACE 0  /* bm25-paper: split on white space, as is */
#define BENCH_TOK_BIGRAM 1      /* bm25-bigram: CJK chars + bigrams, words */

typedef struct bench_bm25 bench_bm25;

typedef struct bench_bm25_params {
    double k1, b, epsilon;
    int tokenizer;
} bench_bm25_params;

/* Index n texts.  *out owned: free with bench_bm25_free. */
int bench_bm25_build(const bench_bm25_params *p, const char *const *texts,
                     size_t n, bench_bm25 **out);
/* Rank all documents for query; ranked[0..min(k, n)) receives document
 * positions, best first (ties: earlier position first).  Returns the number
 * written or -1 (no memory). */
long bench_bm25_rank(bench_bm25 *ix, const char *query, size_t *ranked,
                     size_t k);
void bench_bm25_free(bench_bm25 *ix);
/* Tokenize text; fn receives each token (pointer into a scratch buffer). */
int bench_tokenize(int tokenizer, const char *text,
                   void (*fn)(void *ctx, const char *tok, size_t len),
                   void *ctx);

/* ---------------------------------------------------------------- scoring */

typedef struct bench_acc {
    double n;
    double recall[BENCH_MAX_K];
    double recall_all[BENCH_MAX_K];
    double hit[BENCH_MAX_K];
    double ndcg[BENCH_MAX_K];
} bench_acc;

/* Add one question: ranked pool indices (best first) against gold. */
void bench_acc_add(bench_acc *a, const int *ks, size_t nk,
                   const size_t *ranked, size_t n_ranked, const size_t *gold,
                   size_t n_gold);
/* Single-question figures (for dumps): recall@k for each k. */
double bench_recall_at(int k, const size_t *ranked, size_t n_ranked,
                       const size_t *gold, size_t n_gold);
/* {"<k>": sum[i] / n, ...} rounded to 4 decimals (0 when n is 0): the
 * per-k object of every JSON report.  New reference (jansson). */
struct json_t;
struct json_t *bench_json_per_k(const int *ks, size_t nk, const double *sum,
                                double n);

/* ---------------------------------------------------------------- runner */

#define BENCH_SYS_ENGINE 0
#define BENCH_SYS_BM25_PAPER 1
#define BENCH_SYS_BM25_BIGRAM 2
#define BENCH_N_SYS 3

extern const char *const bench_sys_names[BENCH_N_SYS];

typedef struct bench_cat {
    const char *label;
    bench_acc acc;
} bench_cat;

/* Figures of one system over the run. */
typedef struct bench_sys_result {
    int ran;
    bench_acc total;
    bench_cat *cats;        /* n_cats entries, same order for every system */
    double block_tokens_sum;
    double memories_sum, events_sum;
    long route_none;
    bench_samples ingest_ms;  /* per event */
    bench_samples recall_ms;  /* per question */
    double ingest_total_ms;
    long ingest_events;
} bench_sys_result;

typedef struct bench_run_opts {
    int ks[BENCH_MAX_K];
    size_t nk;
    int maxk;
    long limit;              /* questions; 0 = all */
    long every;              /* only every N-th unit; 0/1 = all */
    int systems[BENCH_N_SYS];/* which systems to run */
    int primary;             /* system of the top-level figures */
    int max_memories;        /* am_query.max_memories (0 = config) */
    int budget_tokens;       /* am_query.budget_tokens (0 = config) */
    const am_rank_config *rank;  /* NULL = defaults */
    const char *dump_path;   /* per-question JSON lines, or NULL */
    const char *keep_stores; /* directory for each unit's store, or NULL
                                (":memory:") */
    int progress;            /* print progress to stderr */
    int no_term_cache;       /* am_config.no_term_cache */
    int quiet;               /* no progress bar on a terminal (tools/common/progress.h) */
} bench_run_opts;

typedef struct bench_report {
    bench_sys_result sys[BENCH_N_SYS];
    const char **cat_labels;
    size_t n_cats;
    long questions;
    long units;
    long events;             /* documents ingested (per store, summed) */
    double full_tokens_sum;  /* per question: the whole unit history */
} bench_report;

int bench_run(const bench_dataset *ds, const bench_run_opts *o,
              bench_report *r, bench_err *e);
void bench_report_free(bench_report *r);

/* Apply "name=value,name=value" to the knobs of cfg (am_config_set).  -1
 * on a malformed pair, an unknown name or a value the knob refuses (the
 * message names the knob and, for an unknown name, lists the known ones). */
int bench_rank_apply(am_config *cfg, const char *spec, bench_err *e);

/* ---------------------------------------------------------------- synth */

typedef struct bench_synth_opts {
    long users;
    long events;      /* per user */
    long queries;
    long batch;       /* events per am_add_events call (1 = am_add_event) */
    const char *embedder; /* am_config.embedder, or NULL */
    long vectors;     /* >0: random word2vec table of that width (cost test) */
    int reuse;        /* query the existing store at db, no ingest */
    int optimize;     /* am_optimize before the queries */
    int maintain;     /* am_maintain after the queries */
    int no_term_cache; /* am_config.no_term_cache */
    uint64_t seed;
    const char *db;   /* NULL = temp dir */
    const char *dump; /* per-query rankings as JSON lines, or NULL */
    int ks[BENCH_MAX_K];
    size_t nk;
    int maxk;
    const am_rank_config *rank;
    int json;
    int progress;
    /* --servers (bench_scale.c): the instance counts to run, one run each */
    long servers[BENCH_MAX_SERVERS];
    size_t n_servers;
    long clients;        /* client threads */
    long server_threads; /* serve --threads */
    int quiet;           /* no progress bar on a terminal */
} bench_synth_opts;

int bench_synth(const bench_synth_opts *o, bench_err *e);
/* The same events and needles through n `agentmem serve` processes per
 * run (o->db: the store URL, NULL a temp SQLite file per run); one table
 * row (or JSON object) per run. */
int bench_synth_servers(const bench_synth_opts *o, bench_err *e);

/* synth's generators (bench_synth.c), shared by the in-process run and by
 * --servers (bench_scale.c), so both write the same events: event t (in
 * ingest order) belongs to user t % users; o->queries needles, each a
 * Chinese or English "project code name" event planted at a random t and
 * asked about by its query. */
typedef struct bench_needle {
    uint64_t t;          /* global event index (ingest order) */
    char text[256];
    char query[256];
    char event_id[32];   /* filled by the run that writes it */
} bench_needle;
/* nd[0..o->queries): the needles of o->seed, sorted by t. */
void bench_synth_needles(const bench_synth_opts *o, bench_needle *nd, uint64_t total);
/* The text of event t: the needle's (n not NULL) or a filler (Chinese or
 * English, chosen by seed and t). */
void bench_synth_text(uint64_t seed, uint64_t t, const bench_needle *n, char *buf, size_t cap);

#endif
