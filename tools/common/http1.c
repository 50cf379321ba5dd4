/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http1.c -- the load generators' HTTP/1.1 client (see http1.h).
 *
 * A reply is read in two steps: bytes until the blank line that ends the
 * headers, then exactly Content-Length more (a reply without one has no
 * body we read, and its connection is not reused).  "Connection: close"
 * in a reply closes ours after reading it.  Header names compare without
 * case.
 */
#include "http1.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define REPLY_MAX ((size_t)16 << 20)

int am_http1_init(am_http1 *c, const char *url)
{
    unsigned port = 0;
    char tail[8] = "";
    struct in_addr a;
    memset(c, 0, sizeof *c);
    c->fd = -1;
    if (!url || sscanf(url, "http://%63[0-9.]:%u%7s", c->host, &port, tail) < 2 || port == 0 ||
        port > 65535 || (tail[0] && strcmp(tail, "/") != 0) || inet_pton(AF_INET, c->host, &a) != 1)
        return -1;
    c->port = port;
    return 0;
}

static void disconnect(am_http1 *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

static int connect_to(am_http1 *c)
{
    struct sockaddr_in addr;
    int one = 1;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((unsigned short)c->port);
    if (inet_pton(AF_INET, c->host, &addr.sin_addr) != 1)
        return -1;
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (c->fd < 0)
        return -1;
    if (setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0 ||
        connect(c->fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        disconnect(c);
        return -1;
    }
    return 0;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Room for `more` bytes after c->have (and a NUL). */
static int reserve(am_http1 *c, size_t more)
{
    size_t need = c->have + more + 1, cap = c->cap ? c->cap : 8192;
    char *p;
    if (need > REPLY_MAX)
        return -1;
    if (need <= c->cap)
        return 0;
    while (cap < need)
        cap *= 2;
    p = realloc(c->buf, cap);
    if (!p)
        return -1;
    c->buf = p;
    c->cap = cap;
    return 0;
}

static int read_more(am_http1 *c, size_t want)
{
    ssize_t k;
    if (reserve(c, want) != 0)
        return -1;
    k = recv(c->fd, c->buf + c->have, want, 0);
    if (k <= 0)
        return -1;
    c->have += (size_t)k;
    c->buf[c->have] = '\0';
    return 0;
}

/* The value of header name in the header block [h, end), or NULL. */
static const char *header(const char *h, const char *end, const char *name)
{
    size_t n = strlen(name);
    const char *p = strstr(h, "\r\n");
    while (p && p < end) {
        p += 2;
        if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
            p += n + 1;
            while (*p == ' ' || *p == '\t')
                p++;
            return p;
        }
        p = strstr(p, "\r\n");
    }
    return NULL;
}

static int read_reply(am_http1 *c)
{
    char *end = NULL;
    const char *cl, *conn;
    size_t head, want;
    int status = 0, keep = 1;
    c->have = 0;
    while (!end) {
        if (read_more(c, 8192) != 0)
            return 0;
        end = strstr(c->buf, "\r\n\r\n");
    }
    if (sscanf(c->buf, "HTTP/1.%*d %d", &status) != 1 || status < 100 || status > 599)
        return 0;
    head = (size_t)(end + 4 - c->buf);
    cl = header(c->buf, end, "Content-Length");
    conn = header(c->buf, end, "Connection");
    if (conn && strncasecmp(conn, "close", 5) == 0)
        keep = 0;
    if (cl) {
        char *e;
        unsigned long long v = strtoull(cl, &e, 10);
        if (e == cl || v > REPLY_MAX)
            return 0;
        want = (size_t)v;
    } else {
        want = 0;
        keep = 0;
    }
    while (c->have - head < want)
        if (read_more(c, want - (c->have - head)) != 0)
            return 0;
    c->body = c->buf + head;
    c->body_len = want;
    c->buf[head + want] = '\0';
    if (!keep)
        disconnect(c);
    return status;
}

static int post_once(am_http1 *c, const char *path, const char *token, const char *body,
                     size_t len)
{
    char head[512];
    int hl, status;
    c->body = "";
    c->body_len = 0;
    c->have = 0;
    if (c->fd < 0 && connect_to(c) != 0)
        return 0;
    hl = snprintf(head, sizeof head,
                  "POST %s HTTP/1.1\r\nHost: %s:%u\r\n%s%s%s"
                  "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                  path, c->host, c->port, token ? "Authorization: Bearer " : "",
                  token ? token : "", token ? "\r\n" : "", len);
    if (hl < 0 || (size_t)hl >= sizeof head || send_all(c->fd, head, (size_t)hl) != 0 ||
        send_all(c->fd, body, len) != 0) {
        disconnect(c);
        return 0;
    }
    status = read_reply(c);
    if (!status) {
        disconnect(c);
        c->body = "";
        c->body_len = 0;
    }
    return status;
}

int am_http1_post(am_http1 *c, const char *path, const char *token, const char *body,
                  size_t len)
{
    int reused = c->fd >= 0, status = post_once(c, path, token, body, len);
    /* a kept-alive connection the server closed while idle: nothing of a
     * reply came back; once more on a new connection when the caller's
     * requests may be repeated */
    if (!status && reused && c->have == 0 && c->retry_idle)
        status = post_once(c, path, token, body, len);
    return status;
}

void am_http1_close(am_http1 *c)
{
    disconnect(c);
    free(c->buf);
    c->buf = NULL;
    c->have = c->cap = 0;
    c->body = "";
    c->body_len = 0;
}
