/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http.h -- one JSON POST endpoint over libcurl, with retries: the part the
 * OpenAI-compatible clients share (embed/openai.c's embeddings,
 * lifecycle/llm.c's chat completions).
 *
 * Design: open() builds one curl easy handle with every constant option
 * (URL, headers, timeouts, protocols), so post() only swaps the body.
 * post() retries HTTP 429, 5xx and transport failures (refused, reset,
 * timeout) with exponential backoff, honouring a Retry-After header up to
 * max_backoff_ms; any other status fails at once with a message naming the
 * status and the server's own message (cleaned, cut).  A response over
 * max_response bytes is refused (AM_TOOBIG), never held whole.  An optional
 * cancel callback cuts a transfer and a backoff short (a server shutting
 * down).  The API key never appears in a message and is wiped on close.
 *
 * Threads: one handle per thread at a time.  libcurl's global init happens
 * lazily in curl_easy_init (thread-safe on libcurl >= 7.84).
 */
#ifndef AM_BASE_HTTP_H
#define AM_BASE_HTTP_H

#include <stddef.h>

#include "base/base.h"

typedef struct am__http_opts {
    long connect_timeout_ms; /* 0 = 5000 */
    long timeout_ms;         /* whole request; 0 = 30000 */
    int max_tries;           /* 0 = 3 (1 = no retries); at most 10 */
    long backoff_ms;         /* delay before the 2nd try, doubled after; 0 = 500 */
    long max_backoff_ms;     /* cap on one delay (and on Retry-After); 0 = 8000 */
    size_t max_response;     /* bytes of a response body; 0 = 64 MiB */
    /* cancelled(ctx) != 0 stops a transfer or a wait (AM_IO "cancelled");
     * NULL: never */
    int (*cancelled)(void *ctx);
    void *cancel_ctx;
    /* the handle's copies (URL, key header, response) from it; NULL:
     * libc.  Borrowed: it outlives the handle. */
    const am__allocator *alloc;
} am__http_opts;

typedef struct am__http {
    const char *name;     /* for messages (the client's id); borrowed */
    char *url;
    char *auth;           /* "Authorization: Bearer <key>" or NULL */
    am__http_opts opts;   /* defaults resolved */
    void *curl;           /* CURL * */
    struct curl_slist *headers;
    char curl_err[256];
    am__buf resp;         /* the last 2xx body */
    int resp_too_big;
    int tries;            /* attempts made by the last post */
    long status;          /* the last HTTP status (0: none) */
} am__http;

/* Opens h for POSTs of JSON to url (http or https; checked), with
 * api_key (may be NULL or "") as a bearer token.  name is kept borrowed
 * for messages.  Returns AM_OK, AM_MISUSE (a URL that is not http(s), a key
 * with a line break, an option out of range) or AM_NOMEM; on error h is
 * closed. */
int am__http_open(am__http *h, const char *name, const char *url, const char *api_key,
                  const am__http_opts *opts, char *err, size_t errlen);

/* POSTs body[0..len) with retries.  AM_OK: h->resp holds the 2xx body.
 * Errors: AM_IO (transport failure after all tries, or cancelled),
 * AM_DENIED (401, 403), AM_TOOBIG (413, or a response over max_response),
 * AM_BACKEND (another status), AM_NOMEM; the message says how many tries
 * were made.  h->tries counts the attempts either way. */
int am__http_post(am__http *h, const char *body, size_t len, char *err, size_t errlen);

/* Closes h (the key wiped); a closed or zeroed h is a no-op. */
void am__http_close(am__http *h);

/* The server's error message of a body (error.message, error, message,
 * detail; else the body itself), control characters as spaces, cut at 300
 * bytes on a character boundary; never empty. */
void am__http_server_message(const char *body, size_t len, char *dst, size_t dstlen);

/* Appends text as a JSON string, invalid UTF-8 bytes as U+FFFD. */
void am__http_json_text(am__buf *b, const char *text);

/* Sleeps ms milliseconds (in slices, stopping early when cancelled). */
void am__http_sleep(long ms, const am__http_opts *o);

#endif
