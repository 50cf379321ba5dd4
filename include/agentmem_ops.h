/* SPDX-License-Identifier: Apache-2.0 */
/*
 * agentmem_ops.h -- the public interface for what a server or an operator
 * needs besides the memory calls of agentmem.h: API tokens and the
 * security events of refused requests, a session's working memory, a
 * task's shared workspace, embeddings for tools that share the handle's
 * vectors, and store checks.  An agent embedding the engine needs
 * agentmem.h only.
 *
 * The same rules hold as in agentmem.h (its Caveats: threads, time,
 * isolation, ownership, return codes); this header includes it.  Both
 * headers together are the API: the shared library exports exactly the
 * functions they declare (AM_API).
 */
#ifndef AGENTMEM_OPS_H
#define AGENTMEM_OPS_H

#include "agentmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- store checks */

/* A store's health (docs/SCALING.md, "A lost connection").  reachable: 1
 * when the store answers -- with ping, a round trip to a store behind a
 * connection (postgres), which makes a lost connection again; without,
 * the connection's last known state; a file store always answers.
 * reconnects: connections this handle made again after one was lost;
 * retries: calls it ran again on a new connection (am_add_event,
 * am_add_events and am_recall do, within busy_timeout_ms, when nothing of
 * the first run was committed).  Returns AM_OK, AM_MISUSE, or AM_IO (not
 * reachable; am_errmsg says why). */
typedef struct am_store_health {
    int reachable;
    long reconnects;
    long retries;
} am_store_health;
AM_API int am_store_check(am_db *db, int ping, am_store_health *out);

/* The schema version of the store file at path ("sqlite:PATH" or a path),
 * read without creating, migrating or writing it: *version receives it (0:
 * an empty file), *current (may be NULL) the version this library writes.
 * Returns AM_OK, AM_MISUSE (NULL path or version), AM_INVALID (a URL of a
 * store that is not a file, or ":memory:"), AM_NOTFOUND (no such file),
 * AM_CORRUPT (not an agentmem store), AM_IO (cannot be read). */
AM_API int am_store_schema_peek(const char *path, int *version, int *current);

/* ---------------------------------------------------------------- tokens */

/* API tokens bound to a tenant (the server's auth, docs/SERVER.md).
 * A token is "amk_" and 43 base64url characters (32 random bytes): it is
 * returned once, by am_token_create, and only its SHA-256 is stored.
 * Whoever holds it acts as its user (and agent and role); an admin token
 * may act for any user it names.  Forgetting a user deletes its tokens
 * (with the purge, at the end of the grace period). */
#define AM_TOKEN_PREFIX "amk_"
#define AM_TOKEN_LEN 47  /* strlen of a token */
typedef struct am_token_spec {
    const char *user_id;   /* the master user the token acts as: required */
    const char *agent_id;  /* its agent (default agent of its events and
                              recalls), or NULL */
    const char *role;      /* its role (the recalls' role), or NULL */
    int admin;             /* 1: may name any user (an operator's token) */
} am_token_spec;

typedef struct am_token_info {
    char id[32];                  /* the token's id (a ULID: not secret) */
    char user_id[AM_ID_MAX + 1];
    char agent_id[AM_ID_MAX + 1]; /* "" when none */
    char role[AM_ID_MAX + 1];     /* "" when none */
    int admin;
    am_time created_at;
    am_time revoked_at;           /* AM_TIME_NONE while it is valid */
} am_token_info;

/* A new token for spec.  *token_out (the token, shown once: it is not
 * stored) and *id_out (its id, for am_token_revoke; may be NULL) are owned:
 * free with am_free.  Audited ("token.create", the id, never the token).
 * Returns AM_OK, AM_MISUSE (NULL arguments), AM_INVALID (a bad user,
 * agent or role id; am_errmsg names it), AM_NOMEM, AM_BUSY, AM_BACKEND,
 * AM_ERROR (no random bytes from the system). */
AM_API int am_token_create(am_db *db, const am_token_spec *spec, char **token_out, char **id_out);

/* Whom token acts for: *out filled when it is a live token of this store.
 * The stored hash is compared in constant time.  Returns AM_OK, AM_DENIED
 * (unknown or revoked: out->revoked_at says which when it was revoked,
 * otherwise out is zeroed), AM_MISUSE, AM_NOMEM, AM_BACKEND.  Reads only. */
AM_API int am_token_verify(am_db *db, const char *token, am_token_info *out);

/* A token verified before (tok, as am_token_verify filled it) checked
 * again without its secret, for a channel that stays open (an event
 * stream): AM_OK when token tok->id is still live, its user is not
 * forgotten and, with user_id (NULL: its own user), it may act for
 * user_id (its own, or any user for an admin token) and user_id is not
 * forgotten either (forgotten: in its grace period, being purged, or
 * purged and not made again since).  AM_DENIED (am_errmsg says why: revoked, gone
 * with its purged user, a user forgotten, another user) ends the channel.
 * Also AM_MISUSE, AM_INVALID, AM_NOMEM, AM_BACKEND.  Reads only. */
AM_API int am_token_recheck(am_db *db, const am_token_info *tok, const char *user_id);

/* The tokens of user_id (NULL: every user's), oldest first, revoked ones
 * included.  *out (n entries) is owned: free with am_free (NULL when n is
 * 0).  Returns AM_OK, AM_MISUSE, AM_INVALID, AM_NOMEM, AM_BACKEND. */
AM_API int am_token_list(am_db *db, const char *user_id, am_token_info **out, size_t *n);

/* Revoke token id: am_token_verify refuses it from then on.  Audited
 * ("token.revoke").  Returns AM_OK, AM_NOTFOUND (no live token has that
 * id), AM_INVALID, AM_MISUSE, AM_BUSY, AM_BACKEND. */
AM_API int am_token_revoke(am_db *db, const char *id);

/* ---------------------------------------------------------------- security events */

/* A request refused for isolation: the holder of a credential of
 * token_user asked for asked_user's data.  Writes an audit row (under
 * token_user) and publishes security.denied.  what names the request
 * ("GET /v1/memories"): 1..128 bytes, no control characters; never
 * content.  Returns AM_OK, AM_MISUSE, AM_INVALID, AM_BUSY, AM_BACKEND. */
AM_API int am_security_denied(am_db *db, const char *token_user, const char *asked_user,
                              const char *what);

/* ---------------------------------------------------------------- working memory */

/* Short-term working memory of one session: small named
 * values an agent keeps while a conversation lasts, each with a time to
 * live.  With a cache (am_config.cache) they live in Redis (expired by
 * Redis); without one in the store (SQLite: a table, expiry checked at
 * every read by the clock, expired rows purged; the PostgreSQL store has
 * none yet: AM_BACKEND).  Working memory is not part of recall; it is
 * forgotten with its session or its user.  key: an id (am_event ids'
 * rules); value: valid UTF-8 of at most AM_WORKING_VALUE_MAX bytes
 * without control characters other than tab and line breaks; ttl_ms:
 * 1 .. AM_WORKING_TTL_MAX_MS; a session holds at most
 * AM_WORKING_KEYS_MAX keys. */
#define AM_WORKING_VALUE_MAX 8192
#define AM_WORKING_KEYS_MAX 256
#define AM_WORKING_TTL_MAX_MS ((am_time)30 * 86400000)
typedef struct am_working_entry {
    const char *key, *value;
    am_time expires_at;          /* the clock's now + ttl at the set */
} am_working_entry;
typedef struct am_working_entries {
    am_working_entry *entries;   /* by key */
    size_t n;
    const char *json;            /* {"session":..,"entries":[{"key","value",
                                    "expires_at"}..]} */
} am_working_entries;
/* Set (replace) key of the session.  Returns AM_OK, AM_MISUSE,
 * AM_INVALID (am_errmsg names the field), AM_TOOBIG (a value over the
 * limit, a new key past AM_WORKING_KEYS_MAX), AM_DENIED (the user is
 * being forgotten), AM_BUSY, AM_BACKEND (the cache is down, or the store
 * has no working memory), AM_NOMEM; on error nothing changes. */
AM_API int am_working_set(am_db *db, const char *user_id, const char *session_id, const char *key,
                          const char *value, am_time ttl_ms);
/* *value (owned: am_free) the live value; AM_NOTFOUND when there is none
 * (never set, expired, cleared).  Other returns as am_working_set. */
AM_API int am_working_get(am_db *db, const char *user_id, const char *session_id, const char *key,
                          char **value);
/* The session's live entries.  *out owned: am_working_list_free. */
AM_API int am_working_list(am_db *db, const char *user_id, const char *session_id,
                           am_working_entries **out);
AM_API void am_working_list_free(am_working_entries *l);
/* Remove key (NULL: every key of the session).  AM_OK also when there was
 * none.  Other returns as am_working_set. */
AM_API int am_working_clear(am_db *db, const char *user_id, const char *session_id, const char *key);

/* ---------------------------------------------------------------- workspace */

/* A task's shared workspace: per agent of the user, what it is
 * doing, has done and does next.  Every agent of the user reads and
 * writes it (no privacy rule or role whitelist applies: it is how the
 * agents coordinate); the entries are data (hostile text, stored as
 * given, printed flattened: am_text_plain), shown in the recall block of
 * the task ("Workspace" / "协作区", budgeted with the task state), and
 * forgotten with the task or the user. */
#define AM_WORKSPACE_TEXT_MAX 2000 /* bytes of each of doing, done, next */
#define AM_WORKSPACE_AGENTS_MAX 64 /* agents with an entry in one task */
typedef struct am_workspace_entry {
    const char *agent_id;
    const char *doing, *done, *next; /* "" when not given */
    long version;                    /* 1 at the first put, + 1 at each */
    am_time updated_at;              /* the clock at the last put */
} am_workspace_entry;

typedef struct am_workspace {
    const char *task_id;
    am_workspace_entry *entries;     /* by agent id */
    size_t n;
    const char *json;                /* {"task":..,"entries":[{"agent",
                                        "doing","done","next","version",
                                        "updated_at"}...]} */
} am_workspace;

/* The workspace of task_id.  *out owned: free with am_workspace_free.
 * A task without entries has n = 0.  Returns AM_OK, AM_MISUSE,
 * AM_INVALID (bad id), AM_NOTFOUND (unknown user or task), AM_NOMEM,
 * AM_BACKEND. */
AM_API int am_workspace_get(am_db *db, const char *user_id, const char *task_id, am_workspace **out);
AM_API void am_workspace_free(am_workspace *w);

/* Write agent_id's entry of task_id: each of doing, done, next replaces
 * the stored one, NULL keeps it ("" clears it).  Each is valid UTF-8 of
 * at most AM_WORKSPACE_TEXT_MAX bytes without control characters other
 * than tab and line breaks.  The entry's version grows by one;
 * *version (may be NULL) receives it.  Audited ("workspace.put", no
 * content).  Returns AM_OK, AM_MISUSE, AM_INVALID (am_errmsg names the
 * field: "workspace: doing: invalid UTF-8 at byte 3"), AM_TOOBIG (a text
 * over the limit, or a new agent past AM_WORKSPACE_AGENTS_MAX),
 * AM_NOTFOUND (unknown user or task: a workspace belongs to a task),
 * AM_DENIED (the user is being forgotten), AM_BUSY, AM_NOMEM, AM_BACKEND;
 * on error nothing changes. */
AM_API int am_workspace_put(am_db *db, const char *user_id, const char *task_id, const char *agent_id,
                            const char *doing, const char *done, const char *next, long *version);

/* ---------------------------------------------------------------- embeddings */

/* Embed texts[0..n) with the handle's configured embedder, for tools that
 * share its vectors (the server's OpenAI-compatible POST /v1/embeddings).
 * Each text is NUL-terminated UTF-8 of at most am_config.max_text_bytes;
 * n at most AM_EMBED_MAX.  *out receives n * *dim floats, text i's
 * L2-normalised vector at i * *dim (release with am_free); *model (may be
 * NULL) the embedder's id, valid while db is open.  Nothing is stored.
 * Returns AM_OK, AM_MISUSE (NULL db, texts, out or dim, n = 0, or no
 * embedder configured: am_errmsg says so), AM_INVALID (text i is NULL or
 * not UTF-8: am_errmsg names "input[i]"), AM_TOOBIG (text i too long, or n
 * over AM_EMBED_MAX), AM_NOMEM, the embedder's errors (AM_IO, AM_DENIED,
 * AM_BACKEND: a remote one). */
#define AM_EMBED_MAX 256
AM_API int am_embed(am_db *db, const char *const *texts, size_t n, float **out, int *dim,
                    const char **model);

#ifdef __cplusplus
}
#endif
#endif /* AGENTMEM_OPS_H */
