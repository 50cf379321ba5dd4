/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http1.h -- a minimal HTTP/1.1 client over one keep-alive TCP connection,
 * for the load generators (`agentmem bench serve`, `bench synth
 * --servers`): they measure a server on the same machine, so the client
 * must cost little -- a plain socket, TCP_NODELAY, a request written with
 * Content-Length, the reply read by its Content-Length into a buffer that
 * grows as needed (a recall's JSON is a few KB; at most 16 MB).
 *
 * One connection per am_http1; not thread-safe (a thread owns it).  A
 * request on a kept-alive connection the server closed while it was idle
 * (its keep-alive timeout) fails with status 0 -- or, with retry_idle set
 * (the caller's requests may be repeated: a recall, a write with a client
 * id), is sent once more on a new connection when not a byte of a reply
 * came back.  After a failure the next request reconnects.
 */
#ifndef AM_HTTP1_H
#define AM_HTTP1_H
#include <stddef.h>

typedef struct am_http1 {
    char host[64];     /* an IPv4 literal */
    unsigned port;
    int fd;            /* -1: not connected */
    char *buf;         /* the last reply: headers, then body */
    size_t have, cap;
    const char *body;  /* into buf: the last reply's body (NUL-terminated) */
    size_t body_len;
    int retry_idle;    /* 1: repeat a request once after an idle close (above) */
} am_http1;

/* Parse "http://A.B.C.D:PORT" (a trailing '/' is fine) into c, not
 * connected yet.  0, or -1 (not such a URL). */
int am_http1_init(am_http1 *c, const char *url);

/* POST body (len bytes, JSON) to path with "Authorization: Bearer token"
 * (token NULL: none).  Returns the reply's status (c->body holds its
 * body), or 0 when connecting, sending or reading failed (the connection
 * is then closed; the next call reconnects). */
int am_http1_post(am_http1 *c, const char *path, const char *token, const char *body,
                  size_t len);

void am_http1_close(am_http1 *c); /* the connection and the buffer */

#endif
