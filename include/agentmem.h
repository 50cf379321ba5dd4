/* SPDX-License-Identifier: Apache-2.0 */
/*
 * agentmem.h -- the public interface of agentmem, a long-term memory engine
 * for LLM agents.  If it is not in this header (or in agentmem_ops.h, what
 * a server or an operator needs besides: tokens, security events, working
 * memory, workspaces, embeddings, store checks), it is not API.
 *
 * Model (see docs/internals/ARCHITECTURE.md): an agent adds *events* (what the user,
 * the agent or a tool said or did) to the perception layer; the engine
 * attributes them to *tasks*, keeps each task's state, and distils explicit
 * long-term statements into versioned semantic *memory items*.  A *recall*
 * turns one user turn into the memory block the agent should be given.
 *
 * Caveats (read these first):
 *  - Threads: an am_db handle must be used by one thread at a time.  Open
 *    one handle per thread; several handles (and processes) may share one
 *    store file (SQLite WAL serialises writers, AM_BUSY after
 *    busy_timeout_ms; reads never wait for a writer, docs/internals/CONTENTION.md).
 *  - Time: every time given to the engine is ISO 8601 with a zone
 *    ("2026-03-02T09:00:00+08:00" or "...Z"); it is stored as UTC
 *    milliseconds (am_time).  "Now" comes from the injected clock.
 *  - Isolation: every call names one user; nothing a call returns belongs to
 *    any other user.  Channel identities are resolved to the master user
 *    first (am_link).
 *  - Ownership: results are either *borrowed* (valid until the next call on
 *    the same handle) or *owned* (release with the named _free function or
 *    am_free).  Each function says which.
 *  - The library never prints, aborts or exits; it reports through return
 *    codes, am_errmsg() and the log callback.
 *  - Every function returning an int returns AM_OK (0) on success or one of
 *    the AM_* codes below; the codes are never renumbered.
 *  - Process-wide state: the library changes no setting of the process
 *    (SQLite's global configuration, OpenBLAS's thread count) unless
 *    am_config.process_tuning asks for it (AM_PROCESS_*).  Handles of one
 *    process on the same SQLite file share a registry of recent writes (to
 *    keep each other's caches true); it holds nothing of another file.
 *  - Layouts: am_config, am_event and am_query carry their size first
 *    (am_config.struct_size, am_event.size, am_query.size).  A library
 *    given a size other than its own (0 is accepted for am_event and
 *    am_query: the layout of this header) returns AM_MISUSE naming the
 *    field and reads nothing beyond it, so a program built against another
 *    agentmem.h fails cleanly instead of misreading its fields.  Other
 *    structs are appended to only: initialise them with {0} or memset.
 */
#ifndef AGENTMEM_H
#define AGENTMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* AM_API marks what the shared library exports: the library is built with
 * hidden visibility, so a function declared without it is internal whatever
 * its name.  Define AM_API before including this header to override it. */
#ifndef AM_API
#if defined(__GNUC__) || defined(__clang__)
#define AM_API __attribute__((visibility("default")))
#else
#define AM_API
#endif
#endif

#define AM_VERSION_STRING "0.1.0"
#define AM_VERSION_NUMBER 1000

/* Result codes.  Appended, never renumbered. */
#define AM_OK 0        /* success */
#define AM_ERROR 1     /* generic failure (see am_errmsg) */
#define AM_NOMEM 2     /* an allocation failed; nothing was written */
#define AM_MISUSE 3    /* the API was called wrongly (NULL handle, ...) */
#define AM_INVALID 4   /* bad input; am_errmsg names the field and reason */
#define AM_NOTFOUND 5  /* the named user / task / event / memory is unknown */
#define AM_DENIED 6    /* not allowed (isolation, policy) */
#define AM_BUSY 7      /* the store is locked by another writer */
#define AM_TOOBIG 8    /* an input exceeds a size limit */
#define AM_IO 9        /* the store file cannot be read or written */
#define AM_BACKEND 10  /* the storage backend failed */
#define AM_CORRUPT 11  /* the store file is not an agentmem store or damaged */
#define AM_NEWER 12    /* the store was written by a newer schema version */

/* Time: milliseconds since 1970-01-01T00:00:00Z. */
typedef int64_t am_time;
#define AM_TIME_NONE INT64_MIN

typedef struct am_db am_db;

/* Log levels for am_config.log. */
#define AM_LOG_ERROR 0
#define AM_LOG_WARN 1
#define AM_LOG_INFO 2
#define AM_LOG_DEBUG 3

/* Ranking and budget knobs.  The list -- name, type, default, range and
 * meaning of each -- is agentmem_knobs.h (printed as docs/KNOBS.md by
 * `agentmem knobs --markdown`); am_config_init fills the defaults.  Set a
 * field directly or by name with am_config_set, which checks the range. */
typedef struct am_rank_config {
#define AM_KNOB(type, name, def, min, max, doc) type name;
#include "agentmem_knobs.h"
#undef AM_KNOB
} am_rank_config;

struct am_log_record; /* below */

typedef struct am_config {
    /* sizeof(am_config) as the caller was compiled; set by am_config_init.
     * am_open and am_config_set refuse (AM_MISUSE) a config whose size is
     * not the library's: the caller was built against another agentmem.h.
     * Always first, so that it is found in any layout. */
    size_t struct_size;
    /* Store location: a file path, ":memory:", or a URL "sqlite:PATH" or
     * "postgres://USER@HOST:PORT/DB" (also "postgresql://"; libpq's URI:
     * the PostgreSQL store shared by several servers, docs/SCALING.md).
     * Required. */
    const char *path;
    /* Clock returning "now" (UTC ms).  NULL = the system clock.  Tests and
     * the scenario runner inject one to replay time. */
    am_time (*clock)(void *ctx);
    void *clock_ctx;
    /* Log callback; NULL = silent.  msg is borrowed for the call only. */
    void (*log)(void *ctx, int level, const char *msg);
    void *log_ctx;
    /* Allocator: realloc-like (n == 0 frees).  NULL = libc. */
    void *(*realloc)(void *ctx, void *ptr, size_t n);
    void *alloc_ctx;
    /* Zone (minutes east of UTC) used for times that come from the clock
     * rather than from the caller.  Default 0. */
    int default_tz_minutes;
    /* Largest accepted event text in bytes.  Default 32768. */
    size_t max_text_bytes;
    /* Milliseconds a write waits for the store's write lock while another
     * handle or process holds it (short jittered retries; then AM_BUSY
     * saying so, nothing written).  A recall never waits for it (its heat
     * update is deferred).  Default 5000. */
    int busy_timeout_ms;
    /* Open an existing store only, never create one.  Default 0. */
    int must_exist;
    /* Embedder for vector recall: NULL or "none" (lexical only),
     * "auto" (the built-in encoder when its weights are found by
     * am_model_dirs_find's search, else none, without an error; vectors
     * carry use-lite's id, so "auto" and "use-lite" share them),
     * "use-lite" (the built-in English encoder; weights from
     * $AGENTMEM_MODEL_DIR, $AM_MODEL_DIR, ./models/use-lite, then the
     * folders "auto" searches), "use-lite:DIR", "w2v:PATH" (a word2vec table,
     * e.g. Chinese vectors the user installs) or "openai:MODEL@BASE_URL"
     * (any OpenAI-compatible /v1/embeddings endpoint; key in
     * embedder_key).  Vectors carry the embedder's id and are only compared
     * with vectors of the same id; texts the embedder cannot represent
     * (Chinese for use-lite) get no vector.  Changing the embedder leaves
     * old events without a usable vector (vectors are never compared
     * across ids) until am_reembed gives them one. */
    const char *embedder;
    const char *embedder_key; /* API key for openai:..., or NULL */
    /* Sensitive data: which kinds are replaced by placeholders before
     * anything is stored or indexed (originals kept apart, never recalled
     * or exported); secrets (passwords, keys, tokens) are dropped with no
     * mapping.  am_config_init sets AM_REDACT_ALL; clear a bit to keep that
     * kind verbatim. */
    unsigned redact;
    am_rank_config rank;
    /* Searches keep each scanned term's rows in memory (per handle, kept
     * true through this handle's writes; up to ~48 MB) and read them from
     * there the next time instead of scanning the index; writes keep each
     * user's latest memory items (up to 64 users, 16 MB).  1 turns both
     * off (the same results, slower; for comparisons).  Default 0. */
    int no_term_cache;
    /* PII-vault encryption at rest: 64 hex digits (a 32-byte key) or
     * NULL.  With a key, every original kept in the vault (phones, e-mails,
     * ID, card, SSN, IBAN and passport numbers) is sealed with AES-256-GCM,
     * a random nonce per value, bound to its user and type; the key is
     * needed to match a recall that names such a value; am_optimize with
     * a key seals originals stored before it.  Without one the originals
     * are stored in plaintext in the store file (docs/SECURITY.md says
     * what holds either way).  The CLI takes it from
     * $AGENTMEM_VAULT_KEY or --vault-key-file.  Copied at am_open; the
     * string is not kept.  Default NULL. */
    const char *vault_key;
    /* Grace period of a forget, milliseconds, at every level:
     * am_forget hides the data at once, it is purged when the period
     * ends, and am_restore (a user) or am_restore_forget (an event, a
     * session, a task) brings it back before.  Default 0: purged at once. */
    am_time forget_grace_ms;
    /* Retention of memory events (docs/EVENTS.md): the outbox keeps
     * the newest events_max_rows events (by seq) and none older than
     * events_max_age_ms (by the clock); older ones are trimmed by each
     * write that adds an event (a few rows at a time) and by am_optimize
     * (all).  A reader resuming from a seq older than what is kept sees
     * am_memory_events.oldest_seq above it.  0 = no bound of that kind.
     * Defaults 100000 rows, 7 days. */
    int64_t events_max_rows;
    am_time events_max_age_ms;
    /* Role whitelists (docs/AGENTS.md): rules separated by ';' or line
     * breaks, each "kind:K=role,role" (memory items of kind K) or
     * "domain:D=role,role" (items scoped to domain D and events of domain
     * D), e.g. "domain:finance=finance,auditor".  A call made for an agent
     * (am_query.agent_id or .role; the *_as calls, am_access_open) sees
     * what a rule covers only with one of its roles -- without a role or
     * with another it sees none of it; a call with neither agent nor role
     * (the user's own) sees everything.  A kind rule also hides the events
     * whose every memory item is of the kind (the sentence an item came
     * from; an event that gave an item of another kind too stays, and so
     * does one that gave none, which the rule cannot tell apart from small
     * talk), from recalls, task histories and event streams.  am_open refuses a bad spec
     * (AM_INVALID naming the rule).  Copied at am_open.  Default NULL: no
     * rule. */
    const char *role_allow;
    /* The shared cache (docs/SCALING.md "Redis"): NULL (none) or
     * "redis://[[USER]:PASSWORD@]HOST[:PORT][/DB][?ttl_ms=N&timeout_ms=N]"
     * (port 6379, database 0, recall entries kept ttl_ms = 60000, connect
     * and command timeout_ms = 300).  With it: identical recalls are
     * served from Redis (invalidated by every change of the user, through
     * any handle or server on the same store and Redis), and working
     * memory (am_working_*) lives there.  Redis down never fails a write
     * or a recall: the engine serves from the store and says so in
     * am_cache_state.  am_open refuses another scheme or a bad URL
     * (AM_INVALID naming the field; a password is never shown); an
     * unreachable Redis is not an error.  Copied at am_open.  (Appended
     * field: NULL when memset.) */
    const char *cache;
    /* Structured log records (docs/SERVER.md "Logs"): the engine's
     * decisions -- each statement's extraction, each write, each recall --
     * as an event name and typed fields (am_log_record), through
     * log_record with log_ctx.  Without log_record, the same records reach
     * log as one line each ("extract outcome=created kind=preference ...").
     * Fields hold ids, fixed names and numbers; the user's text (the
     * sentence, the query) is a field only when log_content is 1.
     * (Appended fields: NULL / 0 when memset.) */
    void (*log_record)(void *ctx, const struct am_log_record *rec);
    int log_content;
    /* The optional LLM pass (docs/LLM.md): NULL or "none" (off, the
     * default) or "openai:MODEL@BASE_URL" -- any OpenAI-compatible
     * POST BASE_URL/chat/completions (BASE_URL like
     * "http://127.0.0.1:8080/v1"), with llm_key as a bearer token (NULL:
     * none).  Only am_llm_pass calls it; a write never waits for it.
     * am_open refuses a malformed value (AM_INVALID, "open: llm: ...").
     * Copied at am_open.  (Appended fields: NULL when memset.) */
    const char *llm;
    const char *llm_key;
    /* Process-wide settings the engine may change for speed, bits
     * AM_PROCESS_* (Caveats).  They affect the whole program, not only
     * this handle, so none is made unless asked for.  The CLI and the
     * server ask for AM_PROCESS_ALL.  (Appended field: 0 when memset.)
     * Default 0: the engine changes nothing outside its handles. */
    unsigned process_tuning;
} am_config;

/* Bits of am_config.process_tuning.
 * AM_PROCESS_SQLITE_MEMSTATUS: SQLite's memory statistics off
 *   (sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0)), once, at an am_open of a
 *   SQLite store, if SQLite was not started yet in the process (SQLite
 *   refuses otherwise, and nothing changes): with them on, every
 *   allocation of every connection takes one global mutex, which a
 *   server's threads contend for.  sqlite3_memory_used() then reads 0.
 * AM_PROCESS_BLAS_THREADS: OpenBLAS runs on the calling thread
 *   (openblas_set_num_threads(1)), at an am_open with the built-in
 *   encoder, unless OPENBLAS_NUM_THREADS or OMP_NUM_THREADS is set: a
 *   sentence is a handful of 512-wide rows, and BLAS worker threads only
 *   spin against the caller. */
#define AM_PROCESS_SQLITE_MEMSTATUS 0x01
#define AM_PROCESS_BLAS_THREADS 0x02
#define AM_PROCESS_ALL 0x03

/* One field of a log record.  type AM_LOG_STR: s (an id or a fixed name;
 * may be NULL), AM_LOG_INT: i, AM_LOG_REAL: d, AM_LOG_TEXT: s is the
 * user's text (only with am_config.log_content). */
#define AM_LOG_STR 0
#define AM_LOG_INT 1
#define AM_LOG_REAL 2
#define AM_LOG_TEXT 3
typedef struct am_log_field {
    const char *key;
    int type;
    const char *s;
    int64_t i;
    double d;
} am_log_field;

/* A log record: level (AM_LOG_*), event ("extract", "write", "recall",
 * "feedback", "forget"), at (the clock), fields in a fixed order per
 * event.  Everything is borrowed for the call only. */
typedef struct am_log_record {
    int level;
    const char *event;
    am_time at;
    const am_log_field *fields;
    size_t n_fields;
} am_log_record;

/* The record as one text line, "event key=value ..." (a value with a
 * blank, quote, '=' or control character quoted, \" \\ \n \t escaped;
 * a NULL string "-"), cut at cap - 1 bytes: what am_config.log receives
 * when no log_record hook is set.  Returns out. */
AM_API char *am_log_format(const am_log_record *rec, char *out, size_t cap);

/* Bits of am_config.redact. */
#define AM_REDACT_PHONE 0x01
#define AM_REDACT_EMAIL 0x02
#define AM_REDACT_ID_CARD 0x04
#define AM_REDACT_BANK_CARD 0x08
#define AM_REDACT_SECRETS 0x10
#define AM_REDACT_ALL 0x1f

/* Fill *cfg with defaults (path stays NULL) and cfg->struct_size with
 * sizeof(am_config) as this caller sees it.  Every am_config passed to the
 * library must come from it.  A macro, so that the size is the caller's:
 * am_config_init_sized(cfg, size) with another size than the library's
 * only sets cfg->struct_size (when size can hold it), and am_open then
 * returns AM_MISUSE naming both sizes.  A NULL cfg is a no-op. */
#define am_config_init(cfg) am_config_init_sized((cfg), sizeof(am_config))
AM_API void am_config_init_sized(am_config *cfg, size_t struct_size);

/* Tuning knobs by name (the names of agentmem_knobs.h, e.g.
 * am_config_set(&cfg, "w_vector", 0.3)).  Set: AM_OK; AM_MISUSE (NULL cfg
 * or name, cfg not from am_config_init); AM_INVALID (no knob of that
 * name, a value outside the knob's range or NaN, a fraction for an int
 * knob): cfg is unchanged, and am_knob_check says why, naming the knob.
 * Get: *value receives the field (an int knob converted); AM_OK,
 * AM_MISUSE (NULL argument, cfg not from am_config_init), AM_INVALID (no
 * knob of that name). */
AM_API int am_config_set(am_config *cfg, const char *name, double value);
AM_API int am_config_get(const am_config *cfg, const char *name, double *value);

/* Knob types (am_knob.type). */
#define AM_KNOB_DOUBLE 0
#define AM_KNOB_INT 1

/* One knob of agentmem_knobs.h.  Static: valid for the life of the
 * program.  Fields may be appended. */
typedef struct am_knob {
    const char *name;
    int type;             /* AM_KNOB_DOUBLE or AM_KNOB_INT */
    double def, min, max; /* default; inclusive bounds */
    const char *doc;      /* one paragraph, UTF-8 */
} am_knob;

/* The knobs in list order: am_knob_info(i) for i < am_knob_count(), NULL
 * past the end; am_knob_find(name) is NULL for an unknown name.  These and
 * am_knob_check keep no state: any thread may call them at any time. */
AM_API size_t am_knob_count(void);
AM_API const am_knob *am_knob_info(size_t i);
AM_API const am_knob *am_knob_find(const char *name);

/* Whether am_config_set would take value for the knob name: AM_OK, or
 * AM_INVALID with a message naming the knob and the reason ("knob
 * candidates: 2.5 is not an integer") in msg (NUL-terminated, truncated
 * to cap bytes; msg may be NULL when cap is 0). */
AM_API int am_knob_check(const char *name, double value, char *msg, size_t cap);

/* Open (creating if needed) the store named by cfg->path.
 * *out receives the handle; close it with am_close.
 * Returns AM_OK, AM_MISUSE (NULL cfg/out/path; a cfg not from
 * am_config_init, or of another struct_size), AM_NOMEM, AM_IO (cannot
 * open the file), AM_CORRUPT (not an agentmem store), AM_NEWER (schema
 * newer than this library), AM_NOTFOUND (must_exist and no store).
 * On failure *out is NULL; when errmsg is not NULL a malloc'ed message is
 * stored there (free with am_free) -- there is no handle to ask. */
AM_API int am_open(const am_config *cfg, am_db **out, char **errmsg);

/* Close the handle.  NULL is a no-op. */
AM_API void am_close(am_db *db);

/* Static English name of a result code ("invalid input").  Never NULL. */
AM_API const char *am_errstr(int rc);

/* The kind of store db is open on: "sqlite" (a file, ":memory:") or
 * "postgres" (a postgres:// URL; docs/SCALING.md).  Static, never NULL;
 * "none" for a NULL db. */
AM_API const char *am_store_backend(const am_db *db);

/* The shared cache's state (am_config.cache): "none" (no cache
 * configured, or a NULL db), "up" (the last command succeeded) or "down"
 * (recalls run without it; reconnected on a later call).  *error (may be
 * NULL) receives the last error ("" when none; never a password).  Both
 * static or borrowed until the next call on db. */
AM_API const char *am_cache_state(const am_db *db, const char **error);

/* Message of the last failed call on db: what, which object, why.
 * Borrowed: valid until the next call on db.  Never NULL. */
AM_API const char *am_errmsg(const am_db *db);

/* Release memory owned by the caller that a function documents as
 * "free with am_free".  NULL is a no-op. */
AM_API void am_free(void *p);

/* A stored text as the memory block prints it: one inert line (line breaks
 * -> " / ", brackets other than redaction placeholders -> parentheses, tabs
 * -> spaces, control and bidi characters dropped), so a text shown to an
 * agent or a terminal cannot open a section or send escape sequences.  Owned: free
 * with am_free.  NULL when text is NULL or memory runs out. */
AM_API char *am_text_plain(const char *text);

/* Parse ISO 8601 with a zone into UTC ms.  *tz_minutes (may be NULL)
 * receives the zone offset.  Returns AM_OK or AM_INVALID. */
AM_API int am_time_parse(const char *iso, am_time *out, int *tz_minutes);

/* Format t in the zone tz_minutes as "YYYY-MM-DDTHH:MM:SS+HH:MM" into buf
 * (at least 32 bytes).  Returns buf. */
AM_API char *am_time_format(am_time t, int tz_minutes, char *buf);

/* ---------------------------------------------------------------- identity */

/* Declare that (channel, external_id) is the master user user_id.
 * A channel identity is that pair, compared field by field: ("tg:x", "7")
 * and ("tg", "x:7") are two identities.  An event from a pair nobody
 * linked goes to a user of the pair's own, with an id the engine makes:
 * "~" and 26 characters (am_add_info.user_id says which); no caller can
 * create a user of that form (AM_INVALID), so it never lands on a user
 * someone named.  Creates user_id if needed.
 * Linking a pair that went to its own user moves that user into user_id:
 * at once when it holds nothing; when it has a history (events, memories,
 * tasks) only with am_link_merge(..., 1) -- its events, memories, tasks
 * (one task of the same id in both: joined), vectors and links become
 * user_id's, audited as "link.merge"; am_link refuses it with AM_DENIED
 * saying it has a history.  Re-linking a pair linked to another master
 * user is refused with AM_DENIED (unlink first).  Returns AM_OK,
 * AM_INVALID (bad id), AM_DENIED, AM_BUSY, AM_IO, AM_BACKEND; on error
 * nothing changes. */
AM_API int am_link(am_db *db, const char *channel, const char *external_id,
                   const char *user_id);
AM_API int am_link_merge(am_db *db, const char *channel, const char *external_id,
                         const char *user_id, int merge);

/* Remove a link (audited).  The pair's events stay with the user they
 * went to; later ones go to the pair's own user.  Returns AM_OK,
 * AM_NOTFOUND (not linked), AM_INVALID, AM_BUSY, AM_BACKEND. */
AM_API int am_unlink(am_db *db, const char *channel, const char *external_id);

/* Resolve (channel, external_id) to the master user id.  out must hold
 * AM_ID_MAX+1 bytes.  Returns AM_OK, AM_NOTFOUND, AM_INVALID. */
#define AM_ID_MAX 128
AM_API int am_resolve(am_db *db, const char *channel, const char *external_id,
                      char *out);

/* ---------------------------------------------------------------- write */

/* One event entering the perception layer.  Unset pointers are NULL.
 * Identity: user_id (a master id), or channel + external_id (resolved via
 * am_link; an unlinked pair goes to the pair's own master user, made on
 * its first event with an engine id "~" + 26 characters: see am_link).  Ids (user, agent, session, task, channel, external,
 * domain, intent) are 1..128 bytes of valid UTF-8 without control (Cc),
 * format (Cf: bidi controls, zero-width characters), separator, private-use
 * or default-ignorable characters, with no space but U+0020 and none at
 * either end; am_errmsg names the character ("add: user contains an
 * invisible format character (bidi control, zero-width) (U+202E)").
 * user_id together with channel or external_id is refused (AM_INVALID).
 * occurred_at must lie between 1970-01-01 and the clock plus
 * rank.future_skew_minutes (default one day); a second 60 is refused. */
typedef struct am_event {
    /* The layout the caller was compiled with: sizeof(am_event), or 0 (a
     * caller that does not set it: this header's layout).  Any other value
     * is AM_MISUSE ("add: am_event.size is 8, expected 0 or 120 ...") and
     * nothing of the event is read or written.  Always first. */
    size_t size;
    const char *user_id;
    const char *channel;
    const char *external_id;
    const char *agent_id;
    const char *session_id;
    const char *task_id;     /* explicit task attribution */
    const char *source;      /* user|agent|tool|system; NULL = user */
    const char *type;        /* query|response|tool_call|tool_result|
                                status_change|task_switch|form_submit|action|
                                preference_declare|feedback; NULL = query for
                                user/system, response for agent, tool_result
                                for tool */
    const char *domain;      /* business domain, e.g. "procurement" */
    const char *intent;      /* verb phrase, e.g. "查询工单" */
    const char *text;        /* content, valid UTF-8, required */
    const char *occurred_at; /* ISO 8601 with zone; NULL = clock now */
    /* The caller's own id of the event (an id, as above), or NULL: adding
     * an event with an id the user already has writes nothing and returns
     * that event (am_add_info.existing = 1) when it was given the same
     * fields, and AM_INVALID ("add: id \"X\" already names another event
     * of user U") when not; a re-run of an import with ids is idempotent.
     * Scoped per master user.  Fields are appended here: initialise an
     * am_event with memset, {0} or designated initializers and new fields
     * stay NULL; set size to sizeof(am_event) and a library of another
     * layout refuses the event instead of misreading it. */
    const char *event_id;
    /* The caller's metadata (am_filter selects by it), or NULL: a flat JSON
     * object (see "Metadata" below).  A memory distilled from the event
     * carries it.  (Appended field.) */
    const char *metadata_json;
} am_event;

/* What the write path did with one event.  Filled by am_add_event. */
typedef struct am_add_info {
    char event_id[32];          /* ULID of the new event */
    char user_id[AM_ID_MAX + 1];/* master user */
    char task_id[AM_ID_MAX + 1];/* task the event was attributed to, or "" */
    int memories_created;       /* new semantic items */
    int memories_updated;       /* new versions of existing items */
    int memories_invalidated;   /* items closed by the event */
    int task_changed;           /* the task state changed */
    int one_off;                /* an instruction kept in task state only */
    int existing;               /* am_event.event_id named an event already
                                   stored: nothing was written, event_id is
                                   that event's (appended field) */
} am_add_info;

/* Add one event and run the write path (validate, resolve identity,
 * redact, append, attribute to a task, index, distil).  All of it happens
 * in one transaction: on any error nothing is written.
 * info may be NULL.  Returns AM_OK, AM_MISUSE (NULL db or ev, ev->size
 * neither 0 nor sizeof(am_event)), AM_INVALID (am_errmsg names
 * the field: "add: text: invalid UTF-8 at byte 12"), AM_TOOBIG (text over
 * max_text_bytes), AM_NOMEM, AM_BUSY, AM_IO, AM_BACKEND. */
AM_API int am_add_event(am_db *db, const am_event *ev, am_add_info *info);

/* Add n events in order, all in one transaction (an import of a history:
 * one commit instead of n).  All or nothing: on the first event that
 * fails, nothing of the batch is written, infos (n entries, or NULL) are
 * zeroed, and am_errmsg starts "add: events[i]: " with the reason.  Same
 * return codes as am_add_event; the sizes are checked in order before
 * anything else, so no event past the first of a wrong size is read. */
AM_API int am_add_events(am_db *db, const am_event *evs, size_t n, am_add_info *infos);

/* ---------------------------------------------------------------- metadata */

/* Metadata: a flat JSON object the caller attaches to an event or a
 * memory ({"project": "apollo", "priority": 2, "billable": true}) and
 * lists and recalls filter by (am_filter).  At most AM_METADATA_KEYS keys,
 * each 1..AM_METADATA_KEY_MAX bytes of [A-Za-z0-9_.-]; each value a
 * string of at most AM_METADATA_VALUE_MAX bytes, a number or a boolean
 * (no object, array or null); the whole object at most AM_METADATA_BYTES.
 * Anything else is refused with AM_INVALID (AM_TOOBIG for a limit)
 * naming the key ("add: metadata.project: value too long (600 bytes, at
 * most 512)") and nothing is written.  It is stored with its keys sorted;
 * {} is the same as none.  Every JSON output of an event or a memory has
 * "metadata" ({} when none). */
#define AM_METADATA_KEYS 32
#define AM_METADATA_KEY_MAX 64
#define AM_METADATA_VALUE_MAX 512
#define AM_METADATA_BYTES 4096

/* Which memories and events a list or a recall keeps: every condition
 * given holds (unset: no condition).  kinds / scopes: the item's kind /
 * scope is one of them (items only: events have neither); metadata_json:
 * {"key": value or [values]} -- each key holds its value or one of the
 * values (compared as text: a string as it is, a number as JSON writes
 * it, true / false); from / to: ISO 8601 with a zone, the item's
 * valid_from or the event's occurred_at in [from, to); query: a plain
 * search, the item's text or key (the event's content) holds it (letters
 * A-Z compared without case, any other text as a substring; at most
 * AM_FILTER_QUERY_MAX bytes of UTF-8).  Initialise with {0} or memset:
 * fields are appended.  A bad filter is AM_INVALID naming it ("recall:
 * filters.metadata.project: expected a string, ..."). */
#define AM_FILTER_QUERY_MAX 1024
typedef struct am_filter {
    const char *const *kinds;
    size_t n_kinds;
    const char *const *scopes;
    size_t n_scopes;
    const char *metadata_json;
    const char *from, *to;
    const char *query; /* or NULL / "" (appended field) */
} am_filter;

/* ---------------------------------------------------------------- records */

/* A semantic memory item version.  All strings owned by the containing
 * result. */
typedef struct am_memory {
    const char *id;          /* version id (ULID) */
    const char *lineage_id;  /* id shared by all versions of one item */
    const char *scope;       /* global | domain:X | task:T | role:R */
    const char *kind;        /* preference|constraint|profile|fact|pattern|
                                task_conclusion|rule|temp */
    const char *key;         /* logical key, e.g. "report.format" */
    const char *text;        /* one short sentence */
    const char *value_json;  /* structured value */
    const char *status;      /* active|pending_confirm|candidate_forget|
                                invalidated|forgotten|archived */
    double confidence;
    double base_score;
    double half_life_days;
    long hits;
    am_time last_access;     /* AM_TIME_NONE if never recalled */
    am_time valid_from, valid_to;        /* business validity; to NONE = open */
    am_time recorded_at, superseded_at;  /* system time; NONE = current */
    const char **source_event_ids;       /* provenance: the first and the
                                            latest sources (at most 32),
                                            oldest first */
    size_t n_sources;
    double score;            /* recall score (0 outside recall) */
    long source_count;       /* source events counted, listed or not (a
                                statement said N times: N) */
    am_time reinforced_at;   /* last repetition (recorded_at, or later: a
                                repetition that changes nothing updates the
                                current version's provenance in place) */
    const char *key_id;      /* am_memories: the opaque id of (user, scope,
                                key) that memory events carry in their type
                                (memory.updated.<key_id>) and "key" field:
                                "k" + 16 hex digits, the same for every
                                version of the key, nothing of the key's
                                words in it (docs/EVENTS.md); NULL elsewhere */
    const char *metadata_json; /* the version's metadata (canonical JSON), or
                                  NULL (appended field) */
    const char *origin;      /* what decided the statement (appended field):
                                "rules" (the cue tables), "model" (the learned
                                reading), "api" (am_memory_add), "import",
                                "feedback" (a correction's text), "pattern",
                                "llm" (the optional LLM pass),
                                "pack:<name>@<version>" (a rule pack); NULL
                                for versions stored before origins were kept */
    am_time expires_at;      /* when the item stops being current (its
                                valid_to, set by am_memory_input.expires_at,
                                an end its text names -- "this month", "到
                                周五" -- or its kind's TTL knob), or
                                AM_TIME_NONE: it does not expire (appended
                                field; docs/EXPIRY.md) */
} am_memory;

typedef struct am_event_rec {
    const char *id, *agent_id, *session_id, *task_id, *channel, *source,
        *type, *domain, *intent, *content;
    am_time occurred_at;
    int tz_minutes;          /* the zone the event was given in */
    double score;            /* recall score (0 outside recall) */
    const char *metadata_json; /* the event's metadata, or NULL (appended) */
} am_event_rec;

typedef struct am_task_change {
    am_time at;
    const char *field;       /* "status", "stage", "note", "artifact", ... */
    const char *old_value, *new_value;
    const char *event_id;
} am_task_change;

typedef struct am_task {
    const char *task_id, *name, *stage, *status;
    const char *artifacts_json;  /* JSON array */
    const char *pending_json;    /* JSON array: decisions awaiting the user */
    const char *notes_json;      /* JSON array: one-off instructions etc. */
    am_time created_at, updated_at;
    am_task_change *history;
    size_t n_history;
    /* rounds of the task (a one-off applies to its round only): the
     * current round's number (1 first), start and the task's period
     * ("day", "week", "month", "quarter", "year"; NULL: not periodic), and
     * the ended rounds as a JSON array, oldest first, each {"round",
     * "started_at", "ended_at", "end" (period, done, cancelled), "stage",
     * "status", "notes", "artifacts", "pending"} */
    int round;
    am_time round_started_at;
    const char *period;
    const char *rounds_json;
    const char *task_ref;    /* the opaque id memory events carry for this
                                task in their "task_id" field: "t" + 16 hex
                                digits, nothing of task_id in it
                                (docs/EVENTS.md) */
} am_task;

/* ---------------------------------------------------------------- read */

typedef struct am_query {
    size_t size;               /* sizeof(am_query) as the caller was
                                  compiled, or 0 (this header's layout);
                                  any other value is AM_MISUSE
                                  ("recall: am_query.size is ...") and
                                  nothing else is read.  Always first. */
    const char *user_id;       /* or channel + external_id (not both:
                                  AM_INVALID) */
    const char *channel, *external_id;
    const char *agent_id, *session_id;
    const char *task_id;       /* the caller knows the task */
    const char *domain;
    const char *text;          /* the user's turn, required */
    const char *as_of;         /* ISO 8601: answer as the world stood then */
    int budget_tokens;         /* 0 = config budgets */
    int max_memories;          /* 0 = config (rank.max_memories) */
    int max_events;            /* 0 = config (rank.max_events) */
    int no_touch;              /* 1: read-only recall, hits/last_access of
                                  the returned items are not updated */
    /* The asking agent's role, or NULL.  With agent_id or role set
     * the recall is the agent's (docs/AGENTS.md): it sees the user's own
     * statements, the engine's events and its own (source agent or tool
     * with this agent_id) but no other agent's, and what the role
     * whitelists (am_config.role_allow) let its role see; with neither,
     * everything, as before.  (Appended field: NULL when memset.) */
    const char *role;
    /* Only the memories and events this filter keeps (am_filter), or NULL:
     * all.  (Appended field.) */
    const am_filter *filter;
} am_query;

typedef struct am_recall_result {
    int need_memory;           /* router decision */
    const char *route;         /* "none" | "semantic_first" | "state_first" */
    const char *lang;          /* "zh" | "en" -- labels of the block */
    am_memory *memories;       /* active items, best first */
    size_t n_memories;
    am_event_rec *events;      /* relevant events, best first */
    size_t n_events;
    am_task *task;             /* the referenced task, or NULL */
    const char *block;         /* rendered memory block ("" if none) */
    int block_tokens;          /* estimated tokens of block */
    const char *json;          /* the whole result as JSON */
    int domain_conflict;       /* the query's domain disagreed with its
                                  text; recall fell back to global */
    /* (Appended fields.)  The block in its two parts, made of the
     * block's own lines: block_system for the system prompt (the profile
     * facts, preferences, constraints and rules shown), block_context to
     * put right before the conversation's history (the other items --
     * facts, task conclusions, patterns, temporary ones --, the task
     * state, the relevant events); each "" when it has nothing, each
     * with the memory header when it holds items.  On the state_first
     * route the block itself shows the task state first. */
    const char *block_system;
    const char *block_context;
    int block_system_tokens;
    int block_context_tokens;
    const char *route_reason;  /* why the route: "chit_chat" | "closing" |
                                  "continuation" | "default" */
    unsigned refs;             /* AM_REF_* bits: the kinds of reference the
                                  turn asks for ("链接", "the doc you sent"),
                                  whose events and items come first */
} am_recall_result;

/* Bits of am_recall_result.refs. */
#define AM_REF_URL 0x01
#define AM_REF_FILE 0x02

/* Run the read path for one turn.  *out is owned: free with
 * am_recall_free.  Returns AM_OK, AM_MISUSE (a NULL argument, q->size
 * neither 0 nor sizeof(am_query)), AM_INVALID (bad field),
 * AM_NOTFOUND (unknown channel identity), AM_NOMEM, AM_BACKEND.  An
 * unknown master user is not an error: the result is empty.  Recall
 * updates hits/last_access of the returned items -- at once when no
 * other writer holds the store's lock, else with the handle's next write
 * (or at am_close); it never waits for the lock nor fails on it. */
AM_API int am_recall(am_db *db, const am_query *q, am_recall_result **out);
AM_API void am_recall_free(am_recall_result *r);

/* Task state.  *out owned: free with am_task_free.
 * Returns AM_OK, AM_NOTFOUND, AM_INVALID, AM_NOMEM, AM_BACKEND. */
AM_API int am_task_get(am_db *db, const char *user_id, const char *task_id,
                       am_task **out);
AM_API void am_task_free(am_task *t);

/* Listing of a user's semantic memory items. */
#define AM_LIST_ACTIVE 0        /* current, active versions */
#define AM_LIST_ALL 1           /* every version, closed ones included */
typedef struct am_memory_list {
    am_memory *items;
    size_t n;
    const char *json;
    /* am_memories_list with a limit: where the next page starts (pass it
     * as am_list_opts.cursor), NULL on the last page (appended field) */
    const char *next_cursor;
} am_memory_list;
/* *out owned: free with am_memory_list_free.  as_of may be NULL (now).
 * Returns AM_OK, AM_INVALID, AM_NOMEM, AM_BACKEND. */
AM_API int am_memories(am_db *db, const char *user_id, int which, const char *as_of,
                       am_memory_list **out);
AM_API void am_memory_list_free(am_memory_list *l);

/* A user's calls made for one of the user's agents: am_task_get
 * and am_memories as agent_id (may be NULL) with role (may be NULL) sees
 * them -- the same rules as am_query.agent_id / .role: task notes and
 * pending decisions that came from another agent's events, and history
 * rows of those events, are left out; items a role whitelist keeps from
 * the role are left out.  Both NULL: exactly am_task_get / am_memories.
 * Same returns, plus AM_INVALID for a bad agent or role id. */
AM_API int am_task_get_as(am_db *db, const char *user_id, const char *task_id, const char *agent_id,
                          const char *role, am_task **out);
AM_API int am_memories_as(am_db *db, const char *user_id, int which, const char *as_of,
                          const char *agent_id, const char *role, am_memory_list **out);

/* A listing with a filter and pages.  Rows come in the order am_memories
 * gives them (current versions in the order recorded; every version by
 * item, then recorded); a page holds at most limit of them (0: all, at
 * most AM_LIST_LIMIT_MAX) and out->next_cursor says where the next one
 * starts -- an opaque string naming the page's last row, so a row added
 * meanwhile never repeats or hides one of another page.  Initialise with
 * {0} or memset: fields are appended. */
#define AM_LIST_LIMIT_MAX 1000
typedef struct am_list_opts {
    int which;                /* AM_LIST_ACTIVE or AM_LIST_ALL */
    const char *as_of;        /* or NULL (now) */
    const am_filter *filter;  /* or NULL */
    size_t limit;             /* 0: all */
    const char *cursor;       /* next_cursor of the page before, or NULL */
    const char *agent_id, *role; /* as am_memories_as, or NULL */
} am_list_opts;
/* *out owned: am_memory_list_free.  Returns AM_OK, AM_MISUSE, AM_INVALID
 * (a bad filter, a limit over AM_LIST_LIMIT_MAX, a cursor that is not
 * one: am_errmsg names it), AM_NOMEM, AM_BACKEND. */
AM_API int am_memories_list(am_db *db, const char *user_id, const am_list_opts *o,
                            am_memory_list **out);

/* A page of a user's events (what was said), newest first (occurred_at,
 * then the order stored), for a reader that pages a history back from
 * now without reading all of it (an inspector, a "load more" list).
 * query: a plain search, the events whose content holds it (letters
 * A-Z compared without case; any text, Chinese included, as a
 * substring); session_id: that session's only; [from, to): RFC 3339
 * bounds on occurred_at.  A page holds at most limit events (0:
 * AM_EVENTS_LIMIT_DEFAULT; at most AM_LIST_LIMIT_MAX); next_cursor names
 * its last event's place (opaque), NULL on the last page -- an event
 * added meanwhile never repeats or hides one of the next page.  agent_id
 * and role as am_memories_as: the events the asker may not read are left
 * out (am_access_check).  Initialise with {0} or memset: fields are
 * appended. */
#define AM_EVENTS_LIMIT_DEFAULT 50
typedef struct am_event_list_opts {
    size_t limit;                /* 0: AM_EVENTS_LIMIT_DEFAULT */
    const char *cursor;          /* next_cursor of the page before, or NULL */
    const char *query;           /* or NULL / "": every event */
    const char *session_id;      /* or NULL */
    const char *from, *to;       /* or NULL */
    const char *agent_id, *role; /* or NULL */
    /* only these events (a memory's sources), at most AM_LIST_LIMIT_MAX:
     * one page of those that are there, newest first; unknown ids are
     * left out (appended fields) */
    const char *const *ids;
    size_t n_ids;
} am_event_list_opts;
typedef struct am_event_page {
    const char *json;        /* a JSON array of the events, each as in
                                am_export without "entities" */
    size_t n;                /* events in json */
    const char *next_cursor; /* or NULL on the last page */
} am_event_page;
/* *out owned: am_event_page_free (NULL: no-op).  An unknown user, or one
 * being forgotten, has none (AM_OK, an empty page).  Returns AM_OK,
 * AM_MISUSE (NULL db, o or out), AM_INVALID (a bad user, agent, role,
 * session, query (not UTF-8, over max_text_bytes), from or to, a limit
 * over AM_LIST_LIMIT_MAX, a cursor that is not one: am_errmsg names the
 * field), AM_NOMEM, AM_BACKEND. */
AM_API int am_events_list(am_db *db, const char *user_id, const am_event_list_opts *o,
                          am_event_page **out);
AM_API void am_event_page_free(am_event_page *p);

/* The access decision, for a tool that serves a user's agents
 * (a server, an MCP transport): what agent_id with role may read and act
 * on.  Every read and every write made for an agent goes through it --
 * the *_as calls above and below use it -- so one rule holds on every
 * surface:
 *  - an event of source agent or tool is its agent's own (another agent
 *    reads none of it);
 *  - role_allow's domain rules hide items scoped to the domain and events
 *    of the domain; its kind rules hide items of the kind, and the events
 *    whose every memory item (by the item versions' provenance) is of a
 *    hidden kind -- the sentence an item came from says what it says;
 *  - a memory item is read with its version or its lineage id; a task
 *    that holds no event the asker may read is not there for it.
 * What is hidden answers as what does not exist (AM_NOTFOUND, the same
 * message): a refusal never confirms that something is there.
 * agent_id and role NULL: the user's own calls, everything readable.
 * The handle reads the user's events once when made (a snapshot: make a
 * new one to see later writes); *out owned: am_access_free (NULL: no-op).
 * Returns AM_OK, AM_MISUSE, AM_INVALID (bad ids), AM_NOTFOUND (the user
 * is being forgotten), AM_NOMEM, AM_BACKEND. */
typedef struct am_access am_access;
struct am_memory_event; /* the events section below */
#define AM_ACCESS_MEMORY 1 /* a memory item: a version id or a lineage id */
#define AM_ACCESS_EVENT 2  /* an event id */
#define AM_ACCESS_TASK 3   /* a task id */
AM_API int am_access_open(am_db *db, const char *user_id, const char *agent_id, const char *role,
                          am_access **out);
/* May the asker read the object of kind what (AM_ACCESS_*) named id?
 * AM_OK, or AM_NOTFOUND (unknown, or hidden from the asker: one message,
 * "<what> <id> not found"), AM_INVALID, AM_NOMEM, AM_BACKEND.  Uses the
 * handle's am_db (one thread at a time, as every call on it). */
AM_API int am_access_check(am_access *a, int what, const char *id);
/* 1 when the asker may see memory event ev (am_events_since) of the
 * handle's user, else 0: an event of another user, of a hidden event or
 * of a memory item the asker may not read (or one no longer there, when
 * the asker is an agent or a role: a scoped reader is told nothing it
 * cannot check).  Reads the store the first time an item is asked about
 * (*rc, may be NULL, receives a store error; 0 is then returned). */
AM_API int am_access_notice(am_access *a, const struct am_memory_event *ev, int *rc);
AM_API void am_access_free(am_access *a);

/* am_feedback for agent_id with role: AM_NOTFOUND, exactly as for an
 * unknown item, when memory_id names an item the asker may not read
 * (am_access_check); otherwise am_feedback.  Both NULL: am_feedback. */
AM_API int am_feedback_as(am_db *db, const char *user_id, const char *memory_id, int action,
                          const char *text, const char *agent_id, const char *role);

/* ---------------------------------------------------------------- understanding */

/* What a user turn means for long-term memory, as the learned reading of
 * the engine sees it (a linear model over hashed character and word
 * features, trained on the labelled corpus data/understand; the labels
 * are defined in data/understand/LABELS.md): the likeliest label of each
 * head and its probability.  The strings are the library's (static).
 *   act       lasting, fact, oneoff, question, smalltalk, hypothetical,
 *             reported, complaint, ref_promote, ref_withdraw, invalidation,
 *             correction
 *   kind      what a lasting statement would be: preference, constraint,
 *             profile, habit, norm (meaningful when act keeps something)
 *   whose     self, or the related person it is about (spouse, child,
 *             parent, sibling, partner, friend, colleague, boss, team,
 *             company, pet, other)
 *   task_act  none, start, advance, done, cancel, pause, postpone, resume
 *   topic     one of the corpus's 27 topics (food, health, travel, ...) */
typedef struct am_understanding {
    const char *act;
    float act_p;
    const char *kind;
    float kind_p;
    const char *whose;
    float whose_p;
    const char *task_act;
    float task_act_p;
    const char *topic;
    float topic_p;
} am_understanding;

/* The reading of text (NUL-terminated UTF-8; bad bytes read as U+FFFD).
 * No handle, no allocation, no state: a few microseconds.  Returns AM_OK,
 * or AM_MISUSE (NULL arguments). */
AM_API int am_understand(const char *text, am_understanding *out);

/* ---------------------------------------------------------------- feedback */
#define AM_FEEDBACK_CONFIRM 1
#define AM_FEEDBACK_REJECT 2
#define AM_FEEDBACK_CORRECT 3
/* The user judges memory item memory_id (a lineage id or the id of any
 * of its versions, the current one or an earlier one):
 * confirm raises confidence, reject invalidates, correct writes a new
 * version with text.  Every outcome is a new version (bitemporal).
 * Returns AM_OK, AM_NOTFOUND, AM_INVALID (correct without text), AM_NOMEM,
 * AM_BUSY, AM_BACKEND. */
AM_API int am_feedback(am_db *db, const char *user_id, const char *memory_id,
                       int action, const char *text);

/* ---------------------------------------------------------------- one memory */

/* One memory item by id (docs/VERSIONS.md): its lineage's current
 * version and every version of it.  An item is named by its stable id
 * (am_memory.lineage_id, the same for all its versions) or by the id of
 * any of its versions, current or closed: an id read before a feedback or
 * an update still names the item after it.  Every call here, am_feedback
 * and am_feedback_as take either. */
typedef struct am_memory_item {
    const am_memory *current; /* the version that holds now (active; else an
                                 open question, pending_confirm), or NULL
                                 when none does (rejected, withdrawn) */
    am_memory *versions;      /* every version, in the order recorded */
    size_t n_versions;
    const char *json;         /* {"memory": <current or null>, "versions":
                                 [...]}, each as am_memories lists it */
} am_memory_item;
/* Free a result of the calls below (NULL: no-op). */
AM_API void am_memory_item_free(am_memory_item *m);

/* The item memory_id names.  *out owned: am_memory_item_free.  Returns
 * AM_OK, AM_MISUSE, AM_INVALID (bad id), AM_NOTFOUND (no item of the user
 * has that id: "memory: user U has no memory X"; also an item of another
 * user), AM_NOMEM, AM_BACKEND. */
AM_API int am_memory_get(am_db *db, const char *user_id, const char *memory_id, am_memory_item **out);
/* am_memory_get for agent_id with role (am_access_open): an item the
 * asker may not read is AM_NOTFOUND with the same message.  Both NULL:
 * am_memory_get.  Also AM_INVALID for a bad agent or role id. */
AM_API int am_memory_get_as(am_db *db, const char *user_id, const char *memory_id, const char *agent_id,
                            const char *role, am_memory_item **out);

/* A memory the application states directly (no conversation behind it).
 * Initialise with {0} or memset: fields are appended here. */
typedef struct am_memory_input {
    const char *user_id;  /* required */
    const char *text;     /* required: valid UTF-8, not blank, at most
                             max_text_bytes; stored as given (no redaction) */
    const char *kind;     /* preference|constraint|profile|fact|pattern|
                             task_conclusion|rule|temp, or NULL: what the
                             engine reads the text as (a preference, a
                             constraint, a profile fact), else fact */
    const char *key;      /* the attribute (an id of at most 95 bytes,
                             "diet.coffee"), or NULL: the engine's reading
                             of the text, else a key of its words.  Given,
                             only that key's memory is the same memory: a
                             near text under another key is another one */
    const char *scope;    /* global | domain:X | task:T | role:R; NULL global */
    const char *agent_id; /* for an agent (am_access rules), or NULL */
    const char *role;
    const char *metadata_json; /* its metadata ("Metadata" above), or NULL */
    /* When the memory stops being current (it leaves recall and the
     * current listing, its history stays): ISO 8601 with a zone, after the
     * clock's now, or NULL: an end its text names, else its kind's TTL
     * knob, else never.  A bad or past value is AM_INVALID ("memory add:
     * expires_at: ...").  (Appended field.) */
    const char *expires_at;
} am_memory_input;
/* Add a memory as a distilled statement is added (semantic/merge.c): a
 * new value of the same key in the scope supersedes the current one (a
 * new version of that item), a text about identical to an item's
 * reinforces it, else a new item.  Its provenance is "api" (its
 * source_event_ids hold "api", no event).  Audited and announced
 * (memory.created / memory.updated.<key id>) as a distilled one.  *out
 * (owned, may be NULL) the item it became part of.  For an agent or a
 * role, an item of a kind or scope the asker may not read is refused
 * (AM_DENIED) before or after the merge, and nothing is written.
 * Returns AM_OK, AM_MISUSE, AM_INVALID (am_errmsg names the field:
 * "memory add: kind: expected preference, ..."), AM_TOOBIG (text),
 * AM_DENIED (the user is being forgotten; the asker may not), AM_BUSY,
 * AM_NOMEM, AM_BACKEND; on error nothing is written. */
AM_API int am_memory_add(am_db *db, const am_memory_input *in, am_memory_item **out);

/* A correction: text becomes the item's new current version (the old
 * one is closed, kept as a past version), as am_feedback's correct.
 * *out (owned, may be NULL) the item after it.  Returns AM_OK, AM_MISUSE,
 * AM_INVALID, AM_TOOBIG, AM_NOTFOUND (no such item, or none of its
 * versions holds now: a rejected item is added again, not updated),
 * AM_BUSY, AM_NOMEM, AM_BACKEND. */
AM_API int am_memory_update(am_db *db, const char *user_id, const char *memory_id, const char *text,
                            am_memory_item **out);
AM_API int am_memory_update_as(am_db *db, const char *user_id, const char *memory_id, const char *text,
                               const char *agent_id, const char *role, am_memory_item **out);
/* am_memory_update_as that may also set the metadata: text NULL keeps the
 * current text, metadata_json NULL keeps the metadata ("{}" clears it);
 * not both NULL (AM_INVALID).  Any change is a new version, as a
 * correction; a new version otherwise keeps its predecessor's metadata. */
AM_API int am_memory_set(am_db *db, const char *user_id, const char *memory_id, const char *text,
                         const char *metadata_json, const char *agent_id, const char *role,
                         am_memory_item **out);

/* Delete an item: every version of it leaves every table, index and
 * cache with the completeness of a forget (docs/FORGETTING.md: its rows,
 * provenance, heat, the copies a forget in its grace period holds, its
 * memory events; the SQLite store's freed pages are zeroed and its log
 * checkpointed), at once and for good (no grace period, no restore).
 * The events it was distilled from stay (am_forget removes those).  An
 * audit row "memory.deleted" names the item by its lineage id and a
 * memory.forgotten event (detail "memory") announces it.  *versions (may
 * be NULL): how many versions went.  Returns AM_OK, AM_MISUSE,
 * AM_INVALID, AM_NOTFOUND, AM_BUSY, AM_NOMEM, AM_BACKEND. */
AM_API int am_memory_delete(am_db *db, const char *user_id, const char *memory_id, long *versions);
AM_API int am_memory_delete_as(am_db *db, const char *user_id, const char *memory_id,
                               const char *agent_id, const char *role, long *versions);

/* am_feedback_as, and *out (owned, may be NULL) the item after it: its
 * new current version (confirm, correct), or current NULL (reject). */
AM_API int am_memory_feedback(am_db *db, const char *user_id, const char *memory_id, int action,
                              const char *text, const char *agent_id, const char *role,
                              am_memory_item **out);

/* Progress of a long operation: done of total units (events for
 * am_reembed, users for am_maintain, entries for am_import_ex, steps for
 * am_optimize_ex and am_forget_ex).  Called on the caller's thread,
 * between transactions (or between rows of one: am_import_ex); done never
 * goes down; total 0 means not known yet.  The callback must not call the
 * library on the same handle. */
typedef void (*am_progress_fn)(void *ctx, size_t done, size_t total);

/* ---------------------------------------------------------------- forget */
#define AM_FORGET_EVENT 1
#define AM_FORGET_SESSION 2
#define AM_FORGET_TASK 3
#define AM_FORGET_USER 4
typedef struct am_forget_info {
    long events;       /* events removed */
    long memories;     /* memory item versions removed */
    long tasks;        /* tasks removed */
} am_forget_info;
/* Forget at one level: the data leaves every table and index (full
 * text included); memory items whose every source event is forgotten go
 * too; a tombstone and an audit record (ids only, no content) remain,
 * naming the forgotten event, session or task by its keyed hash, never
 * by the id given (docs/FORGETTING.md).
 * For AM_FORGET_USER, id is ignored (may be NULL).  info may be NULL.
 * Returns AM_OK, AM_NOTFOUND (unknown user, or nothing with that id),
 * AM_INVALID, AM_BUSY, AM_BACKEND.  On error nothing is removed. */
AM_API int am_forget(am_db *db, const char *user_id, int level, const char *id,
                     am_forget_info *info);
/* am_forget for agent_id with role (am_access_open): an event the asker
 * may not read, or a session or a task holding one, is AM_NOTFOUND, with
 * am_forget's message for an unknown id -- an agent never forgets what it
 * cannot read.  The user level forgets the whole user, as am_forget (the
 * user's decision, whichever of its agents relays it).  Both NULL:
 * am_forget. */
AM_API int am_forget_as(am_db *db, const char *user_id, int level, const char *id, const char *agent_id,
                        const char *role, am_forget_info *info);
/* am_forget with progress (may be NULL: am_forget): the forget's own
 * transaction is step 1, then each short transaction of the work it
 * leaves due now (a user's purge when forget_grace_ms is 0: a chunk of
 * events or of another table's rows each; the index merge and the log
 * checkpoint that take the bytes out of the files) is one more step.  How
 * many steps there will be is not known ahead: progress is called with
 * (ctx, steps done, 0) after each, and once at the end with (ctx, n, n).
 * Not called when the forget fails.  Returns as am_forget. */
AM_API int am_forget_ex(am_db *db, const char *user_id, int level, const char *id,
                        am_progress_fn progress, void *ctx, am_forget_info *info);

/* A user forget in detail (docs/FORGETTING.md).  The user is hidden at
 * once: every call treats it as unknown (reads find nothing, export shows
 * only the tombstone, writes for it are refused with AM_DENIED).  The
 * purge comes at the end of am_config.forget_grace_ms (0: at once, before
 * am_forget returns), in short transactions so other users' writes are
 * not held up, and is finished by the next open if the process dies; then
 * no byte of the user's data stays in the store's files (the index is
 * merged, freed pages zeroed, the log checkpointed and truncated as soon
 * as no other connection is reading), and the audit trail is kept under a
 * keyed pseudonym, without identities or names.
 * am_restore brings a user back whole during its grace period.  Returns
 * AM_OK, AM_INVALID, AM_NOTFOUND (not forgotten), AM_DENIED (the grace
 * period is over: purged), AM_BUSY, AM_BACKEND.  Audited like am_forget. */
AM_API int am_restore(am_db *db, const char *user_id);
/* The latest forget of an event, a session or a task (level and id as
 * given to am_forget) back during its grace period, as it was: its events
 * in every index, their entities, vectors and vault values, the memory
 * versions and provenance that went with them, the tasks as they were
 * (rebuilt from their events when some were written since).
 * AM_FORGET_USER is am_restore (id ignored).  Returns AM_OK, AM_INVALID,
 * AM_NOTFOUND (not forgotten), AM_DENIED (the grace period is over:
 * purged; or the user is forgotten), AM_BUSY, AM_BACKEND.  Audited. */
AM_API int am_restore_forget(am_db *db, const char *user_id, int level, const char *id);

/* Maintenance for a store after many writes (a bulk import, a nightly
 * job): merges the full-text index into one segment, so each query term
 * is one b-tree probe instead of one per segment; packs vectors left
 * unpacked and stores what a store upgraded from an older version lacks
 * (vector sign bits, memory items' token sets); refreshes the planner's
 * statistics; checkpoints the write-ahead log.  Takes time proportional to
 * the store (a minute or more for a million events) and blocks writers
 * meanwhile; results of recall do not change, only its speed.  Returns
 * AM_OK, AM_BUSY, AM_IO, AM_BACKEND. */
AM_API int am_optimize(am_db *db);
/* am_optimize with progress (may be NULL: am_optimize): its steps are the
 * due forget work, the store's pass (index merge, vectors, statistics,
 * log checkpoint: the long one), the item token sets and the memory
 * events' trim, AM_OPTIMIZE_STEPS in all: progress is called with (ctx, 0,
 * AM_OPTIMIZE_STEPS) first and (ctx, k, AM_OPTIMIZE_STEPS) after step k.
 * Returns as am_optimize. */
#define AM_OPTIMIZE_STEPS 4
AM_API int am_optimize_ex(am_db *db, am_progress_fn progress, void *ctx);

/* ---------------------------------------------------------------- lifecycle */
/* The maintenance pass (docs/LIFECYCLE.md): what time does to memory.
 * Items not reinforced, confirmed or recalled lose confidence (a half-life
 * per kind, knobs confidence_*); below forget_below they become
 * candidate_forget (still recalled, asked about), after forget_grace_days
 * without a repetition or a confirm invalidated; items whose heat stayed
 * under archive_heat_ratio x base for archive_after_days are archived;
 * near-duplicates of one attribute are consolidated.  Every change is a
 * new version, audited, with a memory event naming its reason.
 *
 * Incremental: the work is cut in steps, each one short write
 * transaction of at most step_rows changes for one user, so a writer
 * waits at most one step.  A cursor in the store (the last user done)
 * makes a pass stopped anywhere -- a crash, max_steps, max_ms -- go on
 * where it stopped when called again; a pass that went through every user
 * starts the next one from the first.  The clock is the handle's
 * (am_config.clock).  Not for two passes at once on one store (they
 * would do the same work twice, never harm). */
typedef struct am_maintain_options {
    const char *user_id; /* one user (no cursor), or NULL: every user */
    int step_rows;       /* changes per transaction; 0: 100 */
    long max_steps;      /* stop after this many steps (0: no bound) */
    long max_ms;         /* stop after this many milliseconds (0: no bound) */
    /* progress (may be NULL), on the caller's thread between transactions:
     * every user's pass calls it with (ctx, users done, users in this pass,
     * counted at its start) after each user; a pass of user_id with (ctx,
     * steps done, steps of the pass).  Appended last: a zeroed struct has
     * none. */
    am_progress_fn progress;
    void *progress_ctx;
} am_maintain_options;

typedef struct am_maintain_report {
    long users;          /* users gone through to the end */
    long decayed;        /* active items whose confidence has decayed (looked at, not
                            changed) */
    long candidate;      /* -> candidate_forget */
    long invalidated;    /* candidate_forget -> invalidated (grace period over) */
    long archived;       /* -> archived */
    long revived;        /* candidate_forget -> active (the knobs changed) */
    long consolidated;   /* near-duplicates closed into another item */
    long steps;          /* transactions */
    long elapsed_ms;
    int finished;        /* 1: the pass went through every user asked (0: stopped by a
                            budget; call again to go on) */
    long events_archived; /* events whose text moved to the cold column
                             (archive_events_days; docs/internals/STORAGE.md) */
} am_maintain_report;

/* opt may be NULL (every user, no bound).  *out is filled (may be NULL).
 * Returns AM_OK (also when stopped by a budget: out->finished 0),
 * AM_INVALID (a bad user id or a negative bound), AM_NOTFOUND (user_id
 * unknown), AM_BUSY, AM_BACKEND, AM_NOMEM.  Work done before an error
 * stays done. */
AM_API int am_maintain(am_db *db, const am_maintain_options *opt, am_maintain_report *out);

/* ---------------------------------------------------------------- export */
/* Everything stored about user_id as one JSON document.  *json_out
 * is owned: free with am_free.  PII mappings are never exported.  A
 * forgotten user's export is its tombstone: "forgotten": {"state": held |
 * purging | purged, "forgotten_at", "purge_at"}, and no content.
 * Returns AM_OK, AM_NOTFOUND (unknown user), AM_NOMEM, AM_BACKEND. */
AM_API int am_export(am_db *db, const char *user_id, char **json_out);

/* The same document as am_export, written while it is made, in bounded
 * memory (a page of rows, not the user's history: for a user of any
 * size): write(ctx, data, len) receives consecutive pieces and returns 0
 * to go on, non-zero to stop the export (AM_IO).  One read snapshot: a
 * concurrent write is in it whole or not at all.  Nothing is written for
 * an unknown user or a bad id; after another error part of the document
 * may have been written (the caller discards it).  Returns AM_OK,
 * AM_NOTFOUND, AM_INVALID, AM_NOMEM, AM_IO, AM_BACKEND. */
typedef int (*am_write_fn)(void *ctx, const char *data, size_t len);
AM_API int am_export_stream(am_db *db, const char *user_id, am_write_fn write, void *ctx);

/* ---------------------------------------------------------------- import */
/* Load an export (the JSON of am_export / agentmem export, json: len
 * bytes, not necessarily NUL-terminated) into the store, in one
 * transaction: on any error nothing is written (docs/IMPORT.md).  The user
 * is user_id, or the export's "user" when NULL.  Its events keep their ids,
 * sessions, tasks, agents, sources, types, times (in their zones) and
 * entities; its memory items every version with its ids, lineage, status,
 * validity, system times, provenance and heat; its tasks their state and
 * history; its workspaces, identities and audit trail as they were.  A
 * store that exports them again gives the same document but for
 * "exported_at", the tasks' "task_ref" (each store's own opaque id) and
 * a last audit row "user.import".  Event content goes through redaction
 * as a write does: an export's placeholders ("[EMAIL_1]") stay as they
 * are (their originals are never exported), plain PII or a secret in a
 * hand-made document is redacted.  Vectors are not made: run
 * am_reembed (agentmem reembed) after an import when an embedder is set.
 * A user that holds events, memories or tasks already is refused
 * (AM_DENIED) unless flags has AM_IMPORT_MERGE: then the events whose id
 * the user lacks, the items whose lineage id it lacks and the tasks it
 * lacks are added, the rest is skipped (the audit trail is not merged).
 * info (may be NULL) says what was added and skipped.  Returns AM_OK,
 * AM_MISUSE, AM_INVALID (am_errmsg names the field: "import:
 * events[12].occurred_at: no time zone"; also an id used by another user
 * of the store, a forgotten user's tombstone), AM_TOOBIG (a text over
 * max_text_bytes), AM_DENIED, AM_BUSY, AM_NOMEM, AM_BACKEND. */
#define AM_IMPORT_MERGE 1
typedef struct am_import_info {
    char user_id[AM_ID_MAX + 1]; /* the user written */
    long events, memories, tasks; /* added (memories: item versions) */
    long events_skipped, memories_skipped, tasks_skipped; /* present already (merge) */
} am_import_info;
AM_API int am_import(am_db *db, const char *json, size_t len, const char *user_id, int flags,
                     am_import_info *info);

/* Load mem0's memories (its get_all answer or export: a JSON array, or an
 * object with "results" or "memories" holding one, of {"id", "memory",
 * "metadata"?, "created_at"?, "updated_at"?, "user_id"?, ...}) into user_id
 * as memory items of provenance "import", each merged as am_memory_add
 * merges (a new value of the same attribute supersedes, the same text
 * reinforces) and recorded at its created_at (default: now); the item's
 * value keeps mem0's id, metadata and updated_at ("mem0": {...}).  Text is
 * stored as given (no redaction, as am_memory_add).  An entry whose
 * user_id names another user is refused.  One transaction; on error
 * nothing is written and am_errmsg names the entry and field
 * ("import: memories[12].memory: missing").  info->memories: the entries
 * added.  Returns as am_import. */
AM_API int am_import_mem0(am_db *db, const char *json, size_t len, const char *user_id,
                          am_import_info *info);

/* am_import and am_import_mem0 with options (opt may be NULL: no flags,
 * no progress).  progress (may be NULL) counts the document's entries --
 * for am_import_ex its events, then its tasks, then its memory item
 * versions, one total; for am_import_mem0_ex mem0's memories -- skipped
 * ones (a merge) included: (ctx, 0, total) once the document is read and
 * checked, then every AM_IMPORT_PROGRESS_EVERY entries and at the end of
 * each kind, from inside the import's one transaction, and (ctx, total,
 * total) after the commit.  Not called when the document is refused; on
 * a later error the last call is below total.  Returns as am_import. */
#define AM_IMPORT_PROGRESS_EVERY 64
typedef struct am_import_options {
    int flags;               /* AM_IMPORT_MERGE (am_import_ex; am_import_mem0_ex
                                always merges and ignores it) */
    am_progress_fn progress; /* may be NULL */
    void *progress_ctx;
} am_import_options;
AM_API int am_import_ex(am_db *db, const char *json, size_t len, const char *user_id,
                        const am_import_options *opt, am_import_info *info);
AM_API int am_import_mem0_ex(am_db *db, const char *json, size_t len, const char *user_id,
                             const am_import_options *opt, am_import_info *info);

/* ---------------------------------------------------------------- rule packs */
/* Cold-start rule packs (docs/PACKS.md): rules an operator gives users
 * before they have said anything -- `{"name", "version", "applies_to":
 * {"role"?, "region"?, "channel"?}, "rules": [{"kind", "key"?, "text",
 * "lang"}]}`.  A pack applied to a user becomes memory items of kind
 * "rule", scope "pack:<name>", source "pack:<name>@<version>"; recall
 * shows them under their own title ("[Rules]", "[规则]"), never as
 * something the user said, and not while the user has an item of the
 * same key (the user's word wins; the rule is back when that item goes).
 *
 * am_pack_apply: pack (len bytes of JSON) is checked whole first: on any
 * bad field nothing is written and am_errmsg names every bad field (at
 * most 8): "pack: rules[3].kind: expected rule, preference or constraint;
 * name: is missing".  Then it is applied to user_id (created if new), or,
 * user_id NULL, to every user that applies_to matches (role and region:
 * those fields of the metadata of the user's latest event that has them;
 * channel: one of the user's identity links; none given: every user), one
 * transaction per user.  Applying the version a user has changes
 * nothing; another version replaces the old one's items; the same version
 * with other rules is refused (AM_INVALID) before anything is written.
 * *json_out (may be NULL; owned: am_free): {"pack", "version", "users":
 * [{"user", "outcome": "applied"|"replaced"|"unchanged", "items"}]}.
 * Returns AM_OK, AM_MISUSE (NULL db or pack), AM_INVALID, AM_TOOBIG (over
 * 256 KiB, 200 rules, a text over 1,000 bytes), AM_DENIED (the user is
 * being forgotten), AM_BUSY, AM_NOMEM, AM_BACKEND.
 *
 * am_pack_list: the packs of user_id ({"user", "packs": [{"name",
 * "version", "applies_to", "rules", "applied_at"}]}) or, user_id NULL, of
 * every user ({"packs": [{"name", "version", "applies_to", "rules",
 * "users"}]}: one entry per name and version).  *json_out owned: am_free.
 * Returns AM_OK, AM_MISUSE, AM_INVALID, AM_NOTFOUND (a user being
 * forgotten), AM_NOMEM, AM_BACKEND.
 *
 * am_pack_remove: pack `name` taken from user_id (NULL: from every user
 * that has it): its items go whole, as am_memory_delete takes an item
 * (every version, audited, a memory.forgotten event each).  The user's
 * own items stay.  *json_out (may be NULL; owned): {"pack", "users":
 * [{"user", "items"}]}.  Returns AM_OK, AM_MISUSE, AM_INVALID,
 * AM_NOTFOUND (no such pack), AM_BUSY, AM_NOMEM, AM_BACKEND. */
AM_API int am_pack_apply(am_db *db, const char *pack, size_t len, const char *user_id, char **json_out);
AM_API int am_pack_list(am_db *db, const char *user_id, char **json_out);
AM_API int am_pack_remove(am_db *db, const char *name, const char *user_id, char **json_out);

/* Find the id of an event by a substring of its content (for tools and
 * the scenario runner).  out must hold 32 bytes.  Returns AM_OK or
 * AM_NOTFOUND. */
AM_API int am_event_find(am_db *db, const char *user_id, const char *needle,
                         char *out);

/* ---------------------------------------------------------------- vectors */

/* How many events of user_id (a master id; NULL = every user) lack a
 * vector of the configured embedder: none stored, or one of another
 * embedder (after am_config.embedder changed).  Events the embedder
 * does not represent (Chinese ones for use-lite) are not counted.  *n is 0 when the handle
 * has no embedder.  Returns AM_OK, AM_MISUSE (NULL db or n), AM_INVALID
 * (bad user id), AM_NOTFOUND (unknown user), AM_BUSY, AM_BACKEND. */
AM_API int am_vectors_missing(am_db *db, const char *user_id, size_t *n);

/* Give every event of user_id (NULL = every user) that am_vectors_missing
 * counts a vector of the configured embedder, replacing a vector of
 * another embedder (one vector per event), so that vector recall sees the
 * events written before the embedder changed.  The text embedded is the
 * stored one -- after redaction, exactly what am_add_event embeds.
 * Works in batches of AM_REEMBED_BATCH events, one embedder call and one
 * transaction each: an interrupted run keeps its finished batches, and
 * running again continues with the rest.  Events added while it runs are
 * left to a later run (they get a vector when added with this embedder).
 * A batch the embedder refuses is retried one text at a time: texts it
 * refuses alone (too long for a remote model, say) are left without a
 * vector -- logged at AM_LOG_WARN, still counted by am_vectors_missing --
 * and the run goes on; only when it refuses every text is that an error.
 * progress (may be NULL) is called with (ctx, 0, total) before the first
 * batch and after each committed batch with the events done so far;
 * total is counted once at the start (not called when there is nothing
 * to do).  *n_embedded (may be NULL) receives the vectors written, also
 * on failure (those batches stay).
 * Returns AM_OK, AM_MISUSE (NULL db, or no embedder configured:
 * am_errmsg says so), AM_INVALID (bad user id), AM_NOTFOUND (unknown
 * user), the embedder's errors as am_add_event reports them ("reembed:
 * embedder: ...": AM_IO, AM_DENIED, AM_TOOBIG, AM_BACKEND), AM_NOMEM,
 * AM_BUSY, AM_IO, AM_BACKEND. */
#define AM_REEMBED_BATCH 32
AM_API int am_reembed(am_db *db, const char *user_id, am_progress_fn progress,
                      void *ctx, size_t *n_embedded);

/* ---------------------------------------------------------------- archival */

/* Archive old events (docs/internals/STORAGE.md "Archived events"): every event of
 * user_id (a master id; NULL = every user) said more than older_than_days
 * days before the clock (< 0: the knob archive_events_days, default 90,
 * where 0 archives nothing) keeps a short summary (its first
 * sentence, at most 80 characters) in its row, its entities, vectors,
 * index terms and the provenance of the items drawn from it, while its
 * whole text moves to the store's cold column (compressed with zlib when
 * the build has it).  The event is still found by the words of its
 * text; a recall as of that period or naming it, am_events_list and
 * export read the whole text back; a forget takes it with the event.
 * An event whose text is its summary, or shorter than 256 bytes (a chat
 * turn of a sentence or two: its summary and packed copy would take
 * about as much room), is left as it is.  Works in
 * steps of AM_ARCHIVE_STEP events, one short write transaction each: an
 * interrupted run keeps its finished steps.  *moved (may be NULL)
 * receives the events archived, also on failure.  Returns AM_OK,
 * AM_MISUSE (NULL db), AM_INVALID (bad user id, older_than_days 0 or
 * over 36500), AM_NOTFOUND (unknown user), AM_NOMEM, AM_BUSY, AM_IO,
 * AM_CORRUPT, AM_BACKEND. */
#define AM_ARCHIVE_STEP 256
AM_API int am_archive_events(am_db *db, const char *user_id, int older_than_days, long *moved);

/* Put the whole text of user_id's archived events back in their rows for
 * good (they are never archived again): the event event_id, or when it is
 * NULL those said in [from, to) (AM_TIME_NONE: unbounded on that side).
 * One transaction.  *restored (may be NULL) receives how many (0: none
 * of them was archived).  Returns AM_OK, AM_MISUSE (NULL db or user_id),
 * AM_INVALID (bad user id or event id, from after to), AM_NOTFOUND
 * (unknown user, or no event event_id of that user), AM_NOMEM, AM_BUSY,
 * AM_IO, AM_CORRUPT (a cold text that cannot be read), AM_BACKEND. */
AM_API int am_archive_restore(am_db *db, const char *user_id, const char *event_id, am_time from,
                              am_time to, long *restored);

/* ---------------------------------------------------------------- events */
/* Memory events (docs/EVENTS.md).  Every change to what is remembered
 * about a user publishes one event, written to the store's outbox in the
 * same transaction as the change: a write that fails or is rolled back
 * publishes nothing, a write that returned AM_OK has its events in the
 * store whichever process reads it.  Types:
 *   memory.created          a new memory item (memory_id, key, event_id)
 *   memory.updated.<key id> a new version of the item of that key
 *                           (superseded, pending_confirm, confirmed,
 *                           corrected: detail)
 *   memory.invalidated      an item withdrawn by a statement or rejected
 *                           by feedback (detail "rejected")
 *   memory.forgotten        an event, item or task forgotten (event_id,
 *                           memory_id or task_id; detail the level:
 *                           event|session|task|user)
 *   task.updated            a task's state changed (task_id, event_id;
 *                           detail the fields: created,status,stage,...)
 *   security.denied         am_security_denied (other_user, detail what)
 * Events carry ids and times, never content: no memory text, no event
 * text, and nothing made of the user's words or a caller's id: key is the
 * item's key id ("k" + 16 hex digits of the store's keyed hash over user,
 * scope and key: am_memory.key_id) and task_id the task's opaque id ("t" +
 * 16 hex: am_task.task_ref); user_id and other_user are the user ids the
 * application gave (docs/EVENTS.md).  seq orders them across processes
 * (increasing, never reused). */
typedef struct am_memory_event {
    int64_t seq;
    const char *type;
    const char *user_id;
    const char *memory_id;   /* the item's lineage id, or NULL */
    const char *task_id;     /* the task's opaque id (am_task.task_ref), or NULL */
    const char *event_id;    /* the causing / forgotten event, or NULL */
    const char *key;         /* the item's key id (am_memory.key_id), or NULL */
    const char *detail;      /* see the types above, or NULL */
    const char *other_user;  /* security.denied: the user asked for */
    am_time at;              /* when it was published (the clock) */
    am_time occurred_at;     /* the causing event's time, or AM_TIME_NONE */
    const char *json;        /* the event as one JSON object, one line */
} am_memory_event;

/* A subscriber: called on the handle's thread after each commit on this
 * handle that published events, once per event in seq order.  ev and its
 * strings are borrowed for the call.  It must not call into the same
 * handle (another handle is fine). */
typedef void (*am_memory_event_fn)(void *ctx, const am_memory_event *ev);

/* In-process delivery of the events this handle's writes publish.
 * *sub_id (may be NULL) receives an id for am_unsubscribe.  Events of
 * other handles and processes are read with am_events_since.  Returns
 * AM_OK, AM_MISUSE (NULL db or fn), AM_NOMEM. */
AM_API int am_subscribe(am_db *db, am_memory_event_fn fn, void *ctx, int *sub_id);
/* Returns AM_OK or AM_NOTFOUND (no such subscription). */
AM_API int am_unsubscribe(am_db *db, int sub_id);

/* The events after seq after_seq, oldest first, at most max (0: 1000),
 * of user_id (a master id; NULL: every user's, for admin tools), from the
 * store: what every process published and committed.  A reader polls with
 * the last seq it saw (an SSE server's Last-Event-ID).  *out owned: free
 * with am_memory_events_free.  Returns AM_OK, AM_MISUSE, AM_INVALID (bad
 * user id, negative after_seq), AM_NOMEM, AM_BACKEND. */
typedef struct am_memory_events {
    am_memory_event *items;
    size_t n;
    int64_t last_seq;        /* seq of the last item, or after_seq if none */
    int64_t oldest_seq;      /* the oldest seq the outbox keeps (0: empty);
                                above after_seq + 1: events were trimmed */
    const char *json;        /* the items as JSON lines ("" for none) */
} am_memory_events;
AM_API int am_events_since(am_db *db, const char *user_id, int64_t after_seq, size_t max,
                           am_memory_events **out);
AM_API void am_memory_events_free(am_memory_events *e);

/* ---------------------------------------------------------------- profile card */

/* The profile card (docs/PROFILE.md): a user's current lasting items --
 * preferences, constraints, profile facts, facts, rules and patterns that
 * are active now (no temporary items, no task conclusions, nothing
 * pending a confirmation or about to be forgotten, nothing scoped to one
 * task) -- grouped by topic (the learned reading's topics, in their fixed
 * order, "other" last), near texts shown once, within a token budget, in
 * the language most of the items are in, as text for a system prompt.
 * The same store state gives the same bytes: topics in their order,
 * within one by kind (profile, constraint, preference, rule, fact,
 * pattern), then confidence, then hits (how often recalled), then id; the
 * budget keeps the items of the first kinds and the highest confidence
 * first.  A read: nothing is written, hits are not counted.
 * Initialise with {0} or memset: fields are appended. */
#define AM_PROFILE_BUDGET_DEFAULT 400
#define AM_PROFILE_BUDGET_MAX 100000
typedef struct am_profile_query {
    const char *user_id;   /* required */
    int budget_tokens;     /* 0: AM_PROFILE_BUDGET_DEFAULT; at most
                              AM_PROFILE_BUDGET_MAX */
    const char *agent_id, *role; /* for an agent (am_access rules), or NULL */
} am_profile_query;

typedef struct am_profile_item {
    const char *id;          /* the version shown */
    const char *lineage_id;  /* the item's stable id */
    const char *kind, *key, *text;
    double confidence;
} am_profile_item;

typedef struct am_profile_section {
    const char *topic;       /* the topic label ("food", ..., "other") */
    const char *title;       /* its heading in the card's language */
    am_profile_item *items;  /* in the card's order */
    size_t n_items;
} am_profile_section;

typedef struct am_profile_card {
    const char *lang;        /* "zh" | "en": headings and labels */
    const char *text;        /* the card ("" when the user has no lasting
                                item); a line per heading and per item */
    int tokens;              /* its estimated tokens (<= the budget) */
    int budget_tokens;       /* the budget it was made for */
    am_profile_section *sections;
    size_t n_sections;
    size_t n_items;          /* items shown */
    size_t n_duplicates;     /* near texts shown once */
    size_t n_left_out;       /* lasting items the budget left out */
    const char *json;        /* the whole card as JSON (docs/PROFILE.md) */
} am_profile_card;

/* The card of q->user_id.  *out owned: free with am_profile_free (NULL:
 * no-op).  An unknown user (or one being forgotten) has an empty card.
 * Returns AM_OK, AM_MISUSE (NULL db, q or out), AM_INVALID (a bad id, a
 * budget below 0 or over AM_PROFILE_BUDGET_MAX: am_errmsg names the
 * field), AM_NOMEM, AM_BACKEND. */
AM_API int am_profile(am_db *db, const am_profile_query *q, am_profile_card **out);
AM_API void am_profile_free(am_profile_card *p);

/* ---------------------------------------------------------------- reports */

/* The blind-spot report (docs/REPORTS.md): which keys, kinds, topics and
 * deciding sources (the item's origin: "rules", "model", "api", "llm",
 * "pack", ...; "unknown" for versions written before it was recorded)
 * users correct or reject most.  Counted from the audit log: items
 * created, confirmed, corrected and rejected in [since, until), per
 * period (the UTC day, the ISO week from Monday, or the month the act
 * fell in), with the correction rate (corrected + rejected) / created.
 * For one user, rows by key (the user's own words, and the item's kind,
 * topic and origin); for every user (user_id NULL: an operator's view),
 * rows by key, kind, topic and origin with counts only -- never an
 * item's text, never a user id.  Initialise with {0}: fields are
 * appended. */
#define AM_REPORT_DAY 1
#define AM_REPORT_WEEK 2
#define AM_REPORT_MONTH 3
typedef struct am_report_query {
    const char *user_id;       /* one user, or NULL: every user */
    const char *since, *until; /* ISO 8601 with a zone, or NULL: open */
    int period;                /* AM_REPORT_*; 0: AM_REPORT_MONTH */
} am_report_query;

/* The report as JSON into *json_out (owned: free with am_free):
 * {"period": "day"|"week"|"month", "since": ISO|null, "until": ISO|null,
 *  "scope": "user"|"all", "periods": [{"period": "2026-03"|"2026-W10"|
 *  "2026-03-02", "totals": {counts}, "rows": [{"key", "kind", "topic",
 *  "origin", counts}]}], "totals": {counts}}, counts = "created",
 * "confirmed", "corrected", "rejected", "correction_rate"; rows by
 * corrected + rejected, then the rate, then key.  Returns AM_OK,
 * AM_MISUSE, AM_INVALID (a bad id, time or period, since after until),
 * AM_NOMEM, AM_BACKEND. */
AM_API int am_report_corrections(am_db *db, const am_report_query *q, char **json_out);
/* ---- the optional LLM pass (docs/LLM.md) -------------------------------
 * A batch of a user's events is sent to the model named by am_config.llm;
 * its proposals go through the same one-off, merge and version rules as
 * the distiller's statements, with origin "llm" and the initial confidence
 * rank.llm_confidence, citing only events of that user that still exist
 * (checked in the write transaction); a proposal citing an event forgotten
 * meanwhile is dropped whole.  A budget per user and UTC day
 * (rank.llm_calls_per_day, rank.llm_tokens_per_day) is counted from the
 * store's "llm.pass" audit rows, so every process on the store shares it. */

/* What a handle's writes tell an LLM queue (am_llm_watch): what is
 * AM_LLM_ADDED (a user's event committed: event_id; called after the
 * commit) or AM_LLM_FORGOT (a forget of the user about to run: event_id
 * the forgotten event, or NULL for a session, a task or the whole user --
 * drop every queued id of the user; called before the forget's
 * transaction, so nothing it forgets is sent after it).  Called on the
 * writing thread; ids borrowed for the call.  The callback must not call
 * back into db. */
#define AM_LLM_ADDED 1
#define AM_LLM_FORGOT 2
typedef void (*am_llm_watch_fn)(void *ctx, int what, const char *user_id,
                                const char *event_id);
/* Sets (fn NULL: clears) db's watcher.  AM_OK, AM_MISUSE (NULL db). */
AM_API int am_llm_watch(am_db *db, am_llm_watch_fn fn, void *ctx);

typedef struct am_llm_pass_opts {
    const char *user_id;          /* required */
    const char *since;            /* ISO 8601 with a zone, or NULL: any time */
    /* the events to read (a queue's ids; unknown or forgotten ones are
     * skipped), or NULL: the user's latest max_events events */
    const char *const *event_ids;
    size_t n_event_ids;
    int max_events;               /* 0 = 50, at most 200 */
    long timeout_ms;              /* one request; 0 = 30000 */
    int max_tries;                /* 0 = 3 */
    long max_backoff_ms;          /* 0 = 8000 (bounds Retry-After too) */
    /* returns nonzero to stop before sending or while waiting (a server
     * shutting down, a forget of the user); NULL: never */
    int (*cancelled)(void *ctx);
    void *cancel_ctx;
} am_llm_pass_opts;

typedef struct am_llm_report {
    long events;      /* events sent */
    long calls;       /* HTTP requests made (retries included) */
    long retries;     /* calls - 1 when more than one was needed */
    long tokens;      /* reported by the server, or estimated */
    long proposed;    /* proposals in the reply */
    long created;     /* became a new item */
    long merged;      /* reinforced, superseded, pending or historical */
    long one_off;     /* stayed one-off (no item) */
    long dropped;     /* wrong shape or kind, citing no event of the batch */
    int budget_exhausted; /* nothing was sent: the user's budget is spent */
    int refused;      /* the model refused or answered no JSON */
} am_llm_report;

/* One LLM pass over a user's events (synchronous: it waits for the model).
 * Returns AM_OK (also when there was nothing to send or the budget is
 * spent: see *out), AM_MISUSE (NULL db/opts/out, no LLM configured),
 * AM_INVALID (bad user or since), AM_NOTFOUND (unknown user), the
 * model's errors -- AM_IO (unreachable, timed out, cancelled), AM_DENIED
 * (401/403), AM_TOOBIG, AM_BACKEND (an HTTP error, a malformed or refused
 * reply) -- with nothing written, AM_BUSY, AM_NOMEM.  *out is filled in
 * every case.  No text of the user goes to the log. */
AM_API int am_llm_pass(am_db *db, const am_llm_pass_opts *opts, am_llm_report *out);

/* ---------------------------------------------------------- configuration */
/* The id of the embedder db embeds with, i.e. what am_config.embedder
 * resolved to: "use-lite-en@0.2.0" (also for "auto" when the built-in
 * encoder's weights were found), "w2v:...", "openai:...", or "none"
 * (lexical recall only; also for a NULL db).  Static or borrowed: valid
 * while db is open. */
AM_API const char *am_embedder_id(const am_db *db);

/* The folders the embedder "auto" searches, in this order, for the built-in
 * encoder's weights (a folder holding model.json, vocab.json and the
 * shards): $AGENTMEM_MODEL_DIR/use-lite, $AGENTMEM_MODEL_DIR,
 * $AM_MODEL_DIR/use-lite, $AM_MODEL_DIR (an unset variable gives no
 * folder), ${XDG_DATA_HOME:-$HOME/.local/share}/agentmem/models/use-lite,
 * the data folder compiled in (e.g. /usr/share/agentmem)/models/use-lite,
 * and <folder of the running program>/../share/agentmem/models/use-lite.
 * Never the current directory.  "use-lite" (explicit) looks in the two
 * variables' folders first, then ./models/use-lite, then these. */
#define AM_MODEL_DIRS_MAX 8
typedef struct am_model_dirs {
    size_t n;                            /* folders in dir[] */
    char dir[AM_MODEL_DIRS_MAX][1024];   /* the folders, in search order */
    const char *from[AM_MODEL_DIRS_MAX]; /* where each came from: "$AGENTMEM_MODEL_DIR",
                                          * "$AM_MODEL_DIR", "data home", "data dir",
                                          * "program dir" (static) */
    int found;                           /* index of the first holding model.json, or -1 */
} am_model_dirs;
/* Fills *out (every field).  Reads the environment and the file system
 * only.  Returns AM_OK, or AM_MISUSE (NULL out). */
AM_API int am_model_dirs_find(am_model_dirs *out);

#ifdef __cplusplus
}
#endif
#endif /* AGENTMEM_H */
