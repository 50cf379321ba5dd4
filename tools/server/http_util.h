/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http_util.h -- a request and its reply as the server's parts see them
 * (no socket: server.c fills a srv_request from libmicrohttpd and sends
 * the srv_reply back; the fuzz target builds them by hand), and the
 * helpers every handler answers with: a JSON body, a text body, an error
 * {"error": {code, message, field}} with the status of its code
 * (http_util.c).  Below the router, the routes and the server alike.
 */
#ifndef AM_SRV_HTTP_UTIL_H
#define AM_SRV_HTTP_UTIL_H
#include <jansson.h>
#include <stddef.h>

#include "agentmem_ops.h"

#define SRV_TENANT_RETRY_S 5 /* Retry-After of a 429 */

/* ------------------------------------------------------------ one request */
typedef struct srv_request {
    const char *method, *path;       /* path: raw (not %-decoded), without the query */
    const char *(*query)(void *ctx, const char *key); /* a query parameter or NULL */
    void *query_ctx;
    const char *authorization;       /* the header, or NULL */
    const char *body;                /* NULL: none */
    size_t body_len;
    int body_too_large;
    /* a request header or NULL (ctx: query_ctx); NULL: none looked up */
    const char *(*header)(void *ctx, const char *name);
    /* the i-th query parameter's name (raw), NULL past the last (ctx:
     * query_ctx); NULL: the names are not known (not checked) */
    const char *(*query_key)(void *ctx, int i);
} srv_request;

#define SRV_STREAM_NONE 0
#define SRV_STREAM_EXPORT 1          /* server.c streams am_export_stream */
#define SRV_STREAM_EVENTS 2          /* sse.c: server-sent memory events */
typedef struct srv_reply {
    int status;
    char *body;                      /* malloc'ed */
    size_t body_len;
    const char *content_type;
    const char *csp;                 /* Content-Security-Policy (the inspector's page), or NULL */
    int retry_after;                 /* seconds; 0: no header */
    char next_cursor[256];           /* a page of a list whose body is an array:
                                        X-Next-Cursor ("": no header) */
    int route;                       /* index for metrics */
    int stream;                      /* SRV_STREAM_* (body NULL) */
    char stream_user[AM_ID_MAX + 1]; /* EVENTS: "" for every user's */
    long long stream_after;          /* EVENTS: the seq to start after; -1: the newest */
    am_token_info stream_tok;        /* EVENTS: the token (no secret): checked again
                                        before each delivery, its agent and role
                                        filter what is delivered */
    char stream_token[32];           /* EXPORT, EVENTS: the id of the token (its caps) */
    /* a write handed to the writer threads (am_srv.async_writes): no body
     * yet; the server suspends the connection and queues it */
    struct srv_pending *pending;
} srv_reply;

/* One hex digit's value, or -1 (router.c: %-decoding paths and queries) */
int am__srv_hex(char ch);

/* Replies.  am__srv_error: {"error":{code,message,field}} with
 * the status of code; am__srv_json: status and v (stolen). */
void am__srv_error(srv_reply *out, const char *code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* am__srv_error with "store" (the backend's name) in the error object */
void am__srv_error_store(srv_reply *out, const char *code, const char *field, const char *store,
                         const char *msg);
void am__srv_json(srv_reply *out, int status, json_t *v);
void am__srv_text(srv_reply *out, int status, const char *ctype, const char *text, size_t len);

#endif
