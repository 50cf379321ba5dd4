/* SPDX-License-Identifier: Apache-2.0 */
/*
 * server.h -- the HTTP/JSON server behind `agentmem serve` (docs/SERVER.md,
 * docs/openapi.json).  A static library on the public header, jansson and
 * libmicrohttpd; the CLI links it.
 */
#ifndef AM_SERVER_H
#define AM_SERVER_H
#include <stdio.h>

#include "agentmem.h"

typedef struct am_server_opts {
    const char *listen;   /* "HOST:PORT" (IPv4, or [IPv6]:PORT); port 0: any
                             free one.  Default "127.0.0.1:8420". */
    long threads;         /* worker threads (one store handle each); default 4 */
    long max_body;        /* bytes of a request body, 413 above; default 1 MiB */
    long timeout_s;       /* an idle connection is closed after it; default 30 */
    long header_timeout_s; /* a connection that has not sent a complete request
                              head this long after its accept is closed; default 10 */
    long max_conns_per_ip; /* connections at once from one address (more are
                              refused at accept); default 128 */
    const char *db_path;  /* the store file, for /metrics' store size (or NULL) */
    const char *webhooks; /* URLs (commas between) every memory event is POSTed
                             to, signed (docs/EVENTS.md); NULL: none */
    const char *webhook_secret; /* the signing secret (required with webhooks) */
    const char *const *mcp_origins; /* Origins POST /mcp accepts besides none;
                                       n_mcp_origins 0: loopback ones only */
    size_t n_mcp_origins;
    const char *cache_url; /* redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]: the event
                              bus between instances on one store (docs/EVENTS.md);
                              NULL: one instance */
    struct am_server_obs *obs; /* the log records' counters /metrics shows
                                  (am_server_obs_new; attached to cfg), or NULL */
    /* The optional LLM pass's worker (docs/LLM.md), started when cfg->llm
     * is set: a user's batch goes at llm_batch events (default 20) or when
     * its oldest has waited llm_wait_s seconds (default 60); at most
     * llm_queue event ids wait (default 10000; the oldest dropped beyond);
     * llm_timeout_ms: one request's (0: 30000). */
    long llm_batch, llm_wait_s, llm_queue, llm_timeout_ms;
    long maintain_every_ms; /* the maintenance pass every this often, a step at a
                               time in a thread of its own (docs/LIFECYCLE.md);
                               0: never */
    int reuse_port;         /* 1: share the port with other servers bound with it
                               (SO_REUSEPORT); 0: a port in use is refused */
} am_server_opts;

void am_server_opts_init(am_server_opts *o);

/* The engine's log records seen from a process (obs.c; docs/SERVER.md
 * "Logs"): each written to out (NULL: none) as one line -- a JSON object
 * {"ts","level","event","fields"} (AM_SERVER_LOG_JSON) or "TS LEVEL event
 * key=value ..." (AM_SERVER_LOG_TEXT) -- when its level is at most level
 * (AM_LOG_*), and counted for /metrics whatever its level.  attach sets
 * cfg's log, log_record and log_ctx (log_content is the caller's); the
 * handles opened with cfg may then run on any thread.  free(NULL) is a
 * no-op; free it after the last handle is closed. */
#define AM_SERVER_LOG_TEXT 0
#define AM_SERVER_LOG_JSON 1
typedef struct am_server_obs am_server_obs;
am_server_obs *am_server_obs_new(FILE *out, int format, int level);
void am_server_obs_attach(am_server_obs *o, am_config *cfg);
void am_server_obs_free(am_server_obs *o);

/* Serve until SIGTERM or SIGINT, then stop accepting, finish every
 * accepted request and return 0 (the exit code); 1 when it cannot start
 * (message on stderr): among others, a port in use without reuse_port,
 * found before any thread starts or handle opens.  db is a handle opened with cfg (it becomes one of
 * the workers'; the caller still closes it); more handles are opened with
 * cfg, which must stay valid meanwhile.  Prints "listening on http://
 * HOST:PORT" on stdout once it accepts requests. */
int am_server_run(am_db *db, const am_config *cfg, const am_server_opts *o);

#endif
