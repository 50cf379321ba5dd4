/*
 * http1.h -- a minimal HTTP/1.1 client over one keep-alive TCP connection,
 * for the load generators (`agentmem bench serve`, `bench synth
 * --servers`): they measure a server on the same machine, so the client
 * must cost little -- a plain socket, TCP_NODELAY, a request written with
 * Content-Length, the reply read by its Content-Length into a buffer that
 * grows as needed (a recall's JSON is a few KB; at most 16 MB).
 *
 * One connection per am_http1; not thread-safe (a thread owns it).  A
 * request on a connection the server closed (keep-alive timeout) fails
 * once with status 0; the caller decides whether to repeat it (a write may
 * or may not have landed), the next request reconnects.
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
