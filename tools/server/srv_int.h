/* SPDX-License-Identifier: Apache-2.0 */
/*
 * srv_int.h -- the server's parts (tools/server), listed from the bottom
 * up: each file calls only files above it in this list (the check
 * "call-cycle" of scripts/check-structure.sh), never one below.
 *   http_util.c  a request and its reply, the reply helpers (http_util.h);
 *   limits.c   the caps on exports and streams (in all, per user, per
 *              token) and the rate-limited log of refusals;
 *   obs.c, llm_worker.c  the engine's log counters; the optional LLM
 *              pass's queue and thread (AGENTMEM_LLM);
 *   metrics.c  counters and latency histograms, Prometheus text; given
 *              the route names at init (am__srv_metrics_init);
 *   bus.c, dispatch.c  the event bus between instances over Redis
 *              (--cache); the webhooks' deliveries;
 *   maintain.c the maintenance pass's thread (--maintain-every);
 *   pool.c     the store handles (one per worker, reused);
 *   handler.c  what handlers and the router share: the token check, the
 *              user a request acts for, an engine error as its reply;
 *   writer.c   the group commit of single-event writes (writer.h);
 *   routes*.c, assets.c, sse.c  the handlers (JSON bodies checked with
 *              tools/common/fields.h, results in tools/common/shapes.h);
 *              routes_server.c the server's own (/healthz, /metrics);
 *   route_table.c  the route table: every route's method, pattern,
 *              handler and query parameters (am__srv_routes);
 *   router.c   a request in, a reply out through the table it is given
 *              (am_srv.routes), no socket -- what the fuzz target drives
 *              (fuzz/fuzz_server_request.c);
 *   server.c   libmicrohttpd: the daemon and its worker pool, reading
 *              bodies, the streamed export, shutdown on SIGTERM/SIGINT;
 *              it wires the parts (the table into the router and the
 *              metrics).
 * router.h is the router's entry (server.c and the fuzz target include
 * it; the handlers do not).
 * Adding a route: a handler in routes.c (or another file) and one line
 * in route_table.c (and its path in docs/openapi.json: a test checks).
 */
#ifndef AM_SRV_INT_H
#define AM_SRV_INT_H
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>

#include "agentmem.h"
#include "http_util.h"
#include "agentmem_ops.h"
#include "server.h"

/* ------------------------------------------------------------ metrics */
#define SRV_MAX_ROUTES 40
#define SRV_N_BUCKETS 12
typedef struct srv_metrics {
    pthread_mutex_t mu;
    int n_routes;
    const char *route_names[SRV_MAX_ROUTES];   /* "POST /v1/events"; last: "other" */
    unsigned long long requests[SRV_MAX_ROUTES][600 - 100]; /* by status 100..599 */
    unsigned long long buckets[SRV_MAX_ROUTES][SRV_N_BUCKETS];
    double seconds[SRV_MAX_ROUTES];
    unsigned long long count[SRV_MAX_ROUTES];
    unsigned long long store_reconnects, store_retries; /* am_store_check's, all handles */
    am_server_obs *obs; /* the engine's counters (obs.c), or NULL */
    struct srv_llm *llm; /* the LLM worker's counters (llm_worker.c), or NULL */
} srv_metrics;
struct srv_route_table;
/* The counters of t's routes and "other" (t's names are kept: t outlives m) */
void am__srv_metrics_init(srv_metrics *m, const struct srv_route_table *t);
void am__srv_metrics_free(srv_metrics *m);
void am__srv_metrics_add(srv_metrics *m, int route, int status, double seconds);
/* A request's reconnects and retries of its store handle (deltas) */
void am__srv_metrics_store(srv_metrics *m, long reconnects, long retries);
/* Prometheus text (malloc'ed, NULL when out of memory); db_path: store size */
char *am__srv_metrics_text(srv_metrics *m, const char *db_path);
/* The engine's counters in Prometheus text (malloc'ed, NULL when out of
 * memory; obs.c) */
char *am__srv_obs_metrics(am_server_obs *o);

/* ------------------------------------------------------------ the LLM worker (llm_worker.c) */
typedef struct srv_llm srv_llm;
/* The worker of cfg->llm (its thread and store handle started), or NULL:
 * no LLM configured, or it cannot start (said on stderr) */
srv_llm *am__srv_llm_start(const am_config *cfg, const am_server_opts *o);
void am__srv_llm_attach(srv_llm *q, am_db *db); /* db's writes feed the queue */
/* Cancels the call in flight, drops the queue, joins the thread; the
 * watchers still run (they queue nothing more).  NULL: no-op */
void am__srv_llm_stop(srv_llm *q);
void am__srv_llm_free(srv_llm *q); /* after the last handle is closed; NULL: no-op */
char *am__srv_llm_metrics(srv_llm *q); /* Prometheus text, malloc'ed; NULL: no memory */

/* ------------------------------------------------------------ the bus (bus.c) */
typedef struct srv_bus srv_bus;
typedef struct srv_dispatch srv_dispatch;
struct redisContext;
typedef struct srv_bus_url {
    char host[256];
    int port, db;
    char user[128], pass[256];
} srv_bus_url;
/* redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] into u; 0, or 1 with *why
 * (static, never quoting the URL) */
int am__srv_bus_parse_url(const char *url, srv_bus_url *u, const char **why);
/* A note "am1 <32 hex> <seq>" (msg[0..len), not NUL-terminated): 0 with
 * instance and seq, or 1 */
int am__srv_bus_parse_note(const char *msg, size_t len, char instance[33], int64_t *seq);
/* The bus of url (its thread started; Redis down is not a failure: it
 * reconnects); NULL with a message on stderr (bad URL, out of memory) */
srv_bus *am__srv_bus_start(const char *url);
void am__srv_bus_stop(srv_bus *b); /* NULL: no-op */
/* am_subscribe's callback on every store handle (ctx: the bus) */
void am__srv_bus_committed(void *ctx, const am_memory_event *ev);
/* The generation before a read of the store, then a wait until it moves
 * (a note, a local commit, a reconnect) or the safety poll's time passes
 * (1 s up, 200 ms down; b NULL: a 200 ms sleep) */
uint64_t am__srv_bus_gen(srv_bus *b);
void am__srv_bus_wait(srv_bus *b, uint64_t seen);
void am__srv_bus_wake(srv_bus *b); /* every waiter, now (shutdown); NULL: no-op */
/* 1 up / 0 down with why in err; the notes received and published */
int am__srv_bus_health(srv_bus *b, char *err, size_t n, long *notes_in, long *notes_out);
const char *am__srv_bus_instance(const srv_bus *b);
/* A connection of the caller's own (AUTH and SELECT done): NULL, why in err */
struct redisContext *am__srv_bus_connect(srv_bus *b, char *err, size_t n);
/* The webhook lease of group (dispatch.c): renew it, or take it when free
 * (without a recorded cursor only when may_acquire).  0 with *state (1
 * renewed, 2 taken, 0 another's) and the recorded cursor, or 1 (Redis
 * unreachable: err; *c reconnected on the next call) */
int am__srv_bus_lease(srv_bus *b, struct redisContext **c, const char *group, int may_acquire,
                      int ttl_ms, int *state, int64_t *cursor, int *has_cursor, char *err, size_t n);
/* Record seq as delivered (seq -1: give the lease up) while holding the
 * lease: *held 0 when another instance holds it now; 0, or 1 (err) */
int am__srv_bus_lease_record(srv_bus *b, struct redisContext **c, const char *group, int64_t seq,
                             int *held, char *err, size_t n);

/* ------------------------------------------------------------ the server */
/* Long-lived work (limits.c): exports and event streams, in all and per
 * tenant (each user, each token) */
#define SRV_EXPORTS_MAX 8
#define SRV_EXPORTS_PER_TENANT 2
#define SRV_STREAMS_MAX 32
#define SRV_STREAMS_PER_TENANT 4
#define SRV_SLOTS (SRV_EXPORTS_MAX + SRV_STREAMS_MAX)
#define SRV_SLOT_EXPORT 1
#define SRV_SLOT_STREAM 2
#define SRV_REFUSED_NONE 0
#define SRV_REFUSED_BUSY 1   /* the server is full or stopping: 503 "busy" */
#define SRV_REFUSED_TENANT 2 /* the user or token is at its cap: 429 */
#define SRV_LOG_PER_S 5      /* refusal lines a second; the rest counted */
/* The longest a request waits for a store handle, and a queued write for
 * its group, before its 503 "busy" */
#define SRV_POOL_WAIT_MS 1000
#define SRV_WRITE_WAIT_MS 5000
#define SRV_WRITES_PER_USER 64 /* single-event writes queued per user (503 beyond) */
typedef struct srv_slot {
    int kind;                   /* SRV_SLOT_*; 0: free */
    char user[AM_ID_MAX + 1];   /* the user it reads ("": every user's) */
    char token[32];             /* the id of the token that asked */
    void (*cut)(void *job);     /* at shutdown (am__srv_slots_cut), or NULL */
    void *job;
} srv_slot;

typedef struct am_srv {
    const am_config *cfg;   /* handles are opened with it */
    am_server_opts opts;
    srv_metrics metrics;
    /* store handles: a free list; opened on demand, reused */
    pthread_mutex_t pool_mu;
    pthread_cond_t pool_cv;
    am_db *pool[80];
    pthread_t pool_owner[80]; /* the thread that last put pool[i] back */
    int n_free, n_open, max_open;
    am_db *borrowed;        /* the caller's handle (never closed here) */
    int open_rc;            /* why the last handle could not be opened (under pool_mu) */
    char open_err[512];
    int stopping;           /* shutdown began: streams end (under pool_mu) */
    int n_streams;          /* GET /v1/stream threads running (under pool_mu) */
    srv_slot slots[SRV_SLOTS]; /* running exports and streams (under pool_mu) */
    pthread_mutex_t log_mu; /* the refusal log's rate (limits.c) */
    double log_window;
    int log_lines;
    long log_suppressed;
    /* group commit of single events (writer.c): writers queue, one of them
     * (a leader) writes what is queued in one transaction; one leader at a
     * time on SQLite (one writer), several on PostgreSQL */
    pthread_mutex_t write_mu;
    pthread_cond_t write_cv;
    struct srv_pending *queue;
    int leaders;
    /* async writes (the server, not the fuzz target): a single-event write
     * is queued and its connection suspended, so the worker goes on with
     * other connections; writer threads make the groups and resume each
     * connection (resume(ctx) with the ctx given to am__srv_pending_queue)
     * once its reply is made */
    int async_writes;
    void (*resume)(void *ctx);
    pthread_t writers[4];
    int n_writers, writers_stop;
    double writers_drain_until; /* stopping: queued writes after it are refused */
    srv_bus *bus;           /* --cache: the event bus; NULL: one instance */
    srv_dispatch *dispatch; /* --webhook: the deliveries; NULL: none */
    const struct srv_route_table *routes; /* what the router dispatches through */
} am_srv;

/* ------------------------------------------------------------ the handle pool (pool.c) */
/* NULL: cannot open one, or none came back within SRV_POOL_WAIT_MS */
am_db *am__srv_db_get(am_srv *s);
void am__srv_db_put(am_srv *s, am_db *db);
/* A new handle, counted in s->n_open by the caller beforehand; NULL
 * (said why on stderr, open_rc/open_err set, n_open given back) */
am_db *am__srv_db_open(am_srv *s);

/* ------------------------------------------------------------ one request */

/* What a handler is given: the verified token, the user it acts for
 * (the token's, or the one an admin token named), the parsed body. */
typedef struct srv_ctx {
    am_srv *srv;
    am_db *db;
    const srv_request *rq;
    srv_reply *out;
    am_token_info tok;
    const char *route_name;
    char user[AM_ID_MAX + 1];        /* "" on routes not scoped by user */
    json_t *body;                    /* the JSON object, or NULL (GET) */
    const char *const *params;       /* the path's {…} segments */
} srv_ctx;

typedef void (*srv_handler)(srv_ctx *c);

/* ------------------------------------------------------------ the route table (route_table.c) */
/* A pattern's "{name}" matches one non-empty segment, handed to the
 * handler in params.  SRV_ROUTE_PUBLIC routes need no token.  params: the
 * query parameters the route takes (names separated by blanks; a name
 * ending in '.' takes every name it starts: metadata.project); a request
 * naming another is refused with 400 naming it; NULL: not checked (the
 * public assets: a browser may add its own). */
#define SRV_ROUTE_PUBLIC 1
typedef struct srv_route {
    const char *method, *pattern, *name; /* name: "POST /v1/events" */
    srv_handler fn;
    int flags;
    const char *params;
} srv_route;
typedef struct srv_route_table {
    const srv_route *v;
    int n;
} srv_route_table;
extern const srv_route_table am__srv_routes;

/* ------------------------------------------------------------ handler.c */
/* What /healthz and the errors say of a part ("store", "cache") that is
 * down goes to stderr too, at most once per 10 s per part. */
void am__srv_health_log(const char *part, const char *why);
/* The request's bearer token verified into c->tok: 0, or 1 with the
 * reply made (401, or the engine's error) */
int am__srv_authenticate(srv_ctx *c);
/* Why the last store handle could not be opened (why: cap n bytes) and
 * the store's name (s->cfg's URL): 1 when the store is unreachable (a
 * PostgreSQL down), else 0 */
int am__srv_store_unreachable(am_srv *s, const char **store, char *why, size_t n);
/* The reply when am__srv_db_get gave NULL: the store unreachable is 503
 * "unavailable" naming the store; anything else is 503 "busy". */
void am__srv_store_refused(am_srv *s, srv_reply *out);
/* An engine error (rc, am_errmsg(db)) as its HTTP error; _msg: with the
 * message given. */
void am__srv_engine_error(srv_ctx *c, int rc);
void am__srv_engine_error_msg(srv_ctx *c, int rc, const char *msg);
/* The user a request names (asked, or NULL) checked against the token:
 * 0 and c->user set, or 1 with the reply made (403 audited, or 400 when an
 * admin token names none). */
int am__srv_user(srv_ctx *c, const char *asked);

/* The server's own routes (routes_server.c): GET /healthz, /metrics,
 * /openapi.json */
void am__srv_h_healthz(srv_ctx *c);
void am__srv_h_metrics(srv_ctx *c);
void am__srv_h_openapi(srv_ctx *c);
/* The reply when am__srv_db_get gave NULL for a request to path
 * (routes_server.c): /healthz with the store unreachable answers in its
 * own shape; else am__srv_store_refused. */
void am__srv_no_handle(am_srv *s, srv_reply *out, const char *path);

/* Handlers (routes.c) */
void am__srv_h_events(srv_ctx *c);
void am__srv_h_events_list(srv_ctx *c); /* routes_events.c: GET /v1/events */
void am__srv_h_recall(srv_ctx *c);
void am__srv_h_task(srv_ctx *c);
void am__srv_h_memories(srv_ctx *c);
void am__srv_h_versions(srv_ctx *c);
void am__srv_h_feedback(srv_ctx *c);
/* one memory by id (routes_memory.c) */
void am__srv_h_memory_get(srv_ctx *c);
void am__srv_h_memory_add(srv_ctx *c);
void am__srv_h_memory_update(srv_ctx *c);
void am__srv_h_memory_delete(srv_ctx *c);
void am__srv_h_forget(srv_ctx *c);
void am__srv_h_restore(srv_ctx *c);
void am__srv_h_links(srv_ctx *c);
void am__srv_h_export(srv_ctx *c);
void am__srv_h_import(srv_ctx *c); /* routes_import.c: admin only */
void am__srv_h_profile(srv_ctx *c); /* routes_profile.c: GET /v1/profile */
void am__srv_h_report(srv_ctx *c);  /* routes_profile.c: admin only */
/* (routes_packs.c) rule packs: admin only */
void am__srv_h_packs_apply(srv_ctx *c);
void am__srv_h_packs_list(srv_ctx *c);
void am__srv_h_packs_remove(srv_ctx *c);
/* (routes_more.c) */
void am__srv_h_workspace_get(srv_ctx *c);
void am__srv_h_workspace_put(srv_ctx *c);
void am__srv_h_embeddings(srv_ctx *c);
void am__srv_h_mcp(srv_ctx *c);
void am__srv_h_stream(srv_ctx *c);
/* (routes_working.c) a session's working memory */
void am__srv_h_working_list(srv_ctx *c);
void am__srv_h_working_get(srv_ctx *c);
void am__srv_h_working_put(srv_ctx *c);
void am__srv_h_working_clear(srv_ctx *c);

/* The memory inspector's page and its assets (assets.c): public, no data */
void am__srv_h_asset(srv_ctx *c);

/* Webhooks (dispatch.c): a thread posting every committed memory event
 * after the newest one at start; NULL with a message on stderr. */
srv_dispatch *am__srv_dispatch_start(const am_config *cfg, const char *urls, const char *secret,
                                     srv_bus *bus);
/* "leader", "standby", "paused" (the lease could not be renewed: Redis
 * down) or "local" (no bus: this instance posts every event) */
const char *am__srv_dispatch_role(srv_dispatch *d);
/* The last events read and posted, the queues drained, freed (NULL: no-op) */
void am__srv_dispatch_stop(srv_dispatch *d);

/* `--maintain-every` (maintain.c): the maintenance pass every every_ms, a
 * step at a time, on a handle of its own; NULL when it cannot start (said
 * on stderr).  stop: within one step; NULL is a no-op. */
typedef struct srv_maint srv_maint;
srv_maint *am__srv_maint_start(const am_config *cfg, long every_ms);
void am__srv_maint_stop(srv_maint *m);
/* The newest seq of user's events (NULL: every user's) into *seq */
int am__srv_events_newest(am_db *db, const char *user, int64_t *seq);

/* GET /v1/stream's response (sse.c): NULL with *refused (SRV_REFUSED_*,
 * why in why) when too many streams run in all or for the tenant or the
 * server is stopping, NULL else out of memory */
struct MHD_Connection;
struct MHD_Response;
struct MHD_Response *am__srv_sse_start(am_srv *s, struct MHD_Connection *conn, const srv_reply *rp,
                                       int *refused, char *why, size_t n);

/* ------------------------------------------------------------ limits.c */
/* A slot of kind for user and token: SRV_REFUSED_NONE with *slot, or why
 * not (SRV_REFUSED_BUSY / _TENANT, the reason in why, logged) */
int am__srv_slot_take(am_srv *s, int kind, const char *user, const char *token, int *slot,
                      char *why, size_t n);
/* What am__srv_slots_cut calls for the slot's job (under pool_mu) */
void am__srv_slot_cut_fn(am_srv *s, int slot, void (*cut)(void *job), void *job);
void am__srv_slot_put(am_srv *s, int slot); /* -1: no-op */
void am__srv_slots_cut(am_srv *s);          /* shutdown: every job's cut */
/* A forget of user: its exports running (their spools hold what was
 * forgotten) end now, with an error */
void am__srv_exports_cut_user(am_srv *s, const char *user);
/* The refusal reply of am__srv_slot_take's answer (429 or 503, Retry-After) */
void am__srv_refused(srv_reply *out, int refused, const char *why);
/* A line on stderr ("agentmem serve: " and fmt), at most SRV_LOG_PER_S a
 * second; flush: the count of the ones left out, once a second passed */
void am__srv_log(am_srv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void am__srv_vlog(am_srv *s, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void am__srv_log_flush(am_srv *s);

/* docs/openapi.json, built in (openapi_gen.c, made by CMake) */
extern const char am__srv_openapi[];
extern const unsigned long am__srv_openapi_len;

#endif
