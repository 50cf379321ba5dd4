/* SPDX-License-Identifier: Apache-2.0 */
/*
 * db_int.h -- the am_db handle and the helpers every api/ file shares.
 * api/ is the entry layer: it validates arguments, resolves identity and
 * drives the write path (perceive -> distill -> semantic -> store) and the
 * read path (recall/) inside store transactions.
 */
#ifndef AM_API_DB_INT_H
#define AM_API_DB_INT_H

#include "base/base.h"
#include "base/log.h"
#include "cache/cache.h"
#include "domain/outbox.h"
#include "embed/embed.h"
#include "recall/access.h"
#include "store/store.h"
#include "text/analyze.h"
#include "text/redact.h"

struct am_db {
    am_config cfg;
    am__allocator alloc;
    am__store *store;
    am__text *text;
    am__embedder *embedder;   /* NULL: lexical recall only */
    int embed_zh;             /* the embedder represents Chinese text */
    struct am__tokcache *tokcache; /* item token sets (recall/rank.c) */
    am__ulid_state ulid;
    struct am__touches *touches; /* recalls' heat not written yet (touch.c), or NULL */
    am__outbox_subs subs;     /* memory event subscribers (domain/outbox.h) */
    am__arena roles_ar;       /* the role whitelists (am_config.role_allow), parsed */
    am__role_rules roles;
    am__dbcache *cache;       /* the shared cache (am_config.cache), or NULL (cache/) */
    am__log log;              /* the config's log hooks (base/log.h) */
    struct am__llm *llm;      /* am_config.llm's client, or NULL (llm.c) */
    am_llm_watch_fn llm_watch; /* am_llm_watch's, or NULL */
    void *llm_watch_ctx;
    struct am__life_tally *maint_tally; /* am_maintain's counts while it runs, or NULL */
    char err[1024];
};

/* Record an error message (printf-style) and return rc. */
int am__db_error(am_db *db, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A call that failed with rc is run again (1) when the store lost its
 * connection and nothing of the call was committed (or idempotent: a
 * second run writes nothing twice), within busy_timeout_ms since *t0_ms
 * (0 before the first retry), once the connection is back; else 0, with
 * the message of what saying so when the store waited in vain. */
int am__db_retry(am_db *db, int rc, const char *what, int idempotent, int64_t *t0_ms);
/* Record the store's message for a failed store call, prefixed by what. */
int am__db_store_error(am_db *db, int rc, const char *what);
void am__db_clear_error(am_db *db);
void am__db_log(am_db *db, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
am_time am__db_now(am_db *db);
/* The store's redaction policy (am_config.redact): what the write path
 * replaces, and what a recall looks up in the vault. */
void am__db_redact_policy(const am_db *db, am__redact_policy *p);
void am__db_new_id(am_db *db, am_time at, char out[27]);

/* AM_OK when cfg->struct_size is this library's sizeof(am_config) (the
 * config came from am_config_init of the same agentmem.h); else AM_MISUSE
 * with the message in msg (config.c). */
int am__config_check_size(const am_config *cfg, char *msg, size_t cap);

/* AM_OK when a public struct's size field (given) is 0 or this library's
 * sizeof (mine); else AM_MISUSE, "what: field is given, expected 0 or
 * mine ...".  Only the size is read: the caller's layout is unknown. */
int am__db_check_size(am_db *db, const char *what, const char *field, size_t given, size_t mine);

/* AM_OK when v is a valid id (am__id_check), else AM_INVALID with the
 * message "what: field reason (U+XXXX)" naming the offending character. */
int am__db_check_id(am_db *db, const char *what, const char *field, const char *v);

/* Resolve the caller's identity fields into a master user id (out holds
 * AM_ID_MAX+1).  With create, an unknown channel pair becomes a new user
 * linked to itself and an unknown user id is created.  `what` names the
 * call for messages.  Returns AM_OK, AM_INVALID, AM_NOTFOUND, or store
 * errors. */
int am__db_resolve_user(am_db *db, const char *what, const char *user_id,
                        const char *channel, const char *external_id,
                        int create, char *out);

/* What the write path needs of the handle (write/write.h), from db:
 * its store, analyzer, clock, log (write.c). */
struct am__write_env;
void am__db_write_env(am_db *db, struct am__write_env *env);

/* One sentence of a user event through the distillation rules
 * (normalised, classified, continued from *prev; *prev = *d after):
 * the write path's, and a task replay's after a forget (write.c). */
struct am__distill;
struct am__distill_turn;
int am__db_distill(am_db *db, const char *s, size_t n, struct am__distill_turn *turn,
                   struct am__distill *prev, struct am__distill *d);

/* am_feedback whose new version carries metadata (a canonical one, ""
 * to clear it; NULL: the predecessor's) -- am_memory_set's (memories.c).
 * The shapes of a memory, an event, a task: domain/shapes.h. */
int am__db_feedback(am_db *db, const char *user_id, const char *memory_id, int action,
                    const char *text, const char *metadata);

/* Forgetting (forget.c).  am__db_forget_work: the due work of forget
 * jobs, at most max_steps short transactions (0: all); after a forget, a
 * write, on open and on am_optimize.  Errors are logged, not returned:
 * the work stays for the next time.  am__db_user_gate: AM_OK when
 * user_id is not being forgotten, else rc_hidden (AM_DENIED for a write,
 * AM_NOTFOUND for a read) with a message naming the call (what), or a
 * store error. */
void am__db_forget_work(am_db *db, int max_steps);
/* am__db_forget_work calling on_step(ctx) (may be NULL) after each step */
void am__db_forget_work_steps(am_db *db, int max_steps, void (*on_step)(void *ctx), void *ctx);
/* In a user forget's transaction: the maintenance pass's cursor (maintain.c)
 * deleted when it names that user (the next pass starts over). */
int am__maintain_forget(am_db *db, const char *user_id);
int am__db_user_gate(am_db *db, const char *what, const char *user_id, int rc_hidden);

/* A recall's access feedback (touch.c over domain/heat.h): written now
 * if the write lock is free, else kept for the handle's next write transaction; never fails
 * (heat is advisory).  flush writes the kept ones inside the caller's
 * write transaction (AM_OK or the store's error); committed removes them
 * after that transaction committed; drop removes a forgotten user's; close
 * tries once more, without waiting, and frees them. */
typedef struct am__touches am__touches;
void am__touch_items(am_db *db, const char *uid, const char *const *lineages, size_t n,
                     am_time at);
int am__touch_flush(am_db *db);
/* The write locks a write transaction starting now takes first: the
 * users of the events it will add (uids, n) and of the heat it flushes,
 * in the store's order (store.h begin AM__TX_LOCK; none where one lock
 * serializes every writer). */
int am__touch_lock_writers(am_db *db, const char *const *uids, size_t n);
void am__touch_committed(am_db *db);
void am__touch_drop(am_db *db, const char *uid);
void am__touch_close(am_db *db);

/* Memory events (events.c over domain/outbox.h): deliver hands what this handle's commits
 * published to its subscribers (call after every public write; nothing
 * when none committed); trim applies the retention to the whole outbox
 * (am_optimize); free releases the subscribers (am_close). */
void am__events_deliver(am_db *db);
int am__events_trim(am_db *db);
void am__events_free(am_db *db);

/* The shared cache (cache/cache.h; docs/SCALING.md "Redis"), opened by
 * api/cache.c: from cfg->cache (none: AM_OK, db->cache NULL), AM_INVALID
 * naming the field.  prefix: "am:{U}:" of a user's keys.  Every other
 * call goes to cache/cache.h with db->cache. */
int am__dbcache_open(am_db *db, const am_config *cfg, char *err, size_t cap);
int am__dbcache_prefix(const am_db *db, const char *uid, char out[48]);
/* The LLM pass's watcher (api/llm.c): a user event committed (after the
 * commit; skipped for a re-run: info->existing), a forget of the user
 * about to run (level AM_FORGET_*, id the event's for an event). */
void am__llm_added(am_db *db, const am_event *in, const am_add_info *info);
void am__llm_forgot(am_db *db, const char *uid, int level, const char *id);

/* A forgotten session's (session_id) or user's (NULL) working memory
 * deleted from the store, and a session's from the cache (working.c). */
int am__working_forget(am_db *db, const char *user_id, const char *session_id);

#endif
