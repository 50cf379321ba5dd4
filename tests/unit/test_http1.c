/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_http1.c -- the load generators' HTTP/1.1 client (tools/common/http1.c)
 * against a scripted loopback server: a reply read by its Content-Length
 * (a body in Chinese and English, larger than the first read), keep-alive
 * (two requests, one connection), a connection the server closes while it
 * is idle (its keep-alive timeout: status 0 without retry_idle, answered
 * on a new connection with it), "Connection: close", a reply without
 * Content-Length, a malformed status line, a refused connection and bad
 * URLs.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../../tools/common/http1.h"
#include "test.h"

/* What the server does with each request of a connection. */
enum { KEEP, CLOSE_AFTER, HEADER_CLOSE, NO_LENGTH, BAD_STATUS };

typedef struct fake {
    int fd, port;
    int mode;          /* for every request */
    int per_conn;      /* requests answered per connection before closing it */
    int conns, requests;
    char last_body[256];
    pthread_t th;
} fake;

static const char reply_body[] =
    "{\"events\":[{\"id\":\"01A\",\"content\":\"我下周三要去上海出差 and I fly on Tuesday\"}],"
    "\"pad\":\"";

/* Read one request (headers + Content-Length body); 0 when the peer closed. */
static int read_request(int c, fake *f)
{
    char buf[8192];
    size_t have = 0;
    char *end = NULL;
    while (!end) {
        ssize_t n = recv(c, buf + have, sizeof buf - 1 - have, 0);
        if (n <= 0)
            return 0;
        have += (size_t)n;
        buf[have] = '\0';
        end = strstr(buf, "\r\n\r\n");
    }
    const char *cl = strstr(buf, "Content-Length: ");
    size_t want = cl ? (size_t)strtoul(cl + 16, NULL, 10) : 0;
    while (have - (size_t)(end + 4 - buf) < want) {
        ssize_t n = recv(c, buf + have, sizeof buf - 1 - have, 0);
        if (n <= 0)
            return 0;
        have += (size_t)n;
        buf[have] = '\0';
    }
    snprintf(f->last_body, sizeof f->last_body, "%.*s", (int)want, end + 4);
    return 1;
}

static void answer(int c, int mode)
{
    /* a body larger than the client's first read (8 KB) */
    static char body[20000];
    size_t n = strlen(reply_body);
    memcpy(body, reply_body, n);
    memset(body + n, 'x', sizeof body - n - 3);
    memcpy(body + sizeof body - 3, "\"}", 3);
    char head[256];
    int hl;
    if (mode == BAD_STATUS)
        hl = snprintf(head, sizeof head, "HTTP/1.1 abc\r\n\r\n");
    else if (mode == NO_LENGTH)
        hl = snprintf(head, sizeof head, "HTTP/1.1 204 No Content\r\n\r\n");
    else
        hl = snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\n%scontent-length: %zu\r\n\r\n",
                      mode == HEADER_CLOSE ? "Connection: close\r\n" : "", strlen(body));
    send(c, head, (size_t)hl, MSG_NOSIGNAL);
    if (mode != BAD_STATUS && mode != NO_LENGTH)
        send(c, body, strlen(body), MSG_NOSIGNAL);
}

static void *serve(void *arg)
{
    fake *f = arg;
    for (;;) {
        int c = accept(f->fd, NULL, NULL), k = 0;
        if (c < 0)
            return NULL;
        if (f->mode < 0) { /* stop */
            close(c);
            return NULL;
        }
        f->conns++;
        while (k < f->per_conn && read_request(c, f)) {
            f->requests++;
            answer(c, f->mode);
            k++;
        }
        close(c); /* per_conn answered: the idle close */
    }
}

static void fake_start(fake *f, int mode, int per_conn)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    memset(f, 0, sizeof *f);
    f->mode = mode;
    f->per_conn = per_conn;
    f->fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(f->fd, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(getsockname(f->fd, (struct sockaddr *)&a, &len) == 0);
    f->port = ntohs(a.sin_port);
    CHECK(listen(f->fd, 8) == 0);
    CHECK(pthread_create(&f->th, NULL, serve, f) == 0);
}

static void fake_stop(fake *f)
{
    am_http1 w;
    char url[64];
    f->mode = -1;
    snprintf(url, sizeof url, "http://127.0.0.1:%d", f->port);
    /* wake accept() with a connection of our own */
    if (am_http1_init(&w, url) == 0) {
        am_http1_post(&w, "/", NULL, "{}", 2);
        am_http1_close(&w);
    }
    pthread_join(f->th, NULL);
    close(f->fd);
}

static void pause_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static void client_for(am_http1 *c, const fake *f)
{
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", f->port);
    CHECK(am_http1_init(c, url) == 0);
}

static void test_keep_alive(void)
{
    fake f;
    am_http1 c;
    const char *q = "{\"query\":\"我什么时候去上海？ when do I fly?\"}";
    fake_start(&f, KEEP, 100);
    client_for(&c, &f);
    CHECK_EQ_INT(am_http1_post(&c, "/v1/recall", "amk_x", q, strlen(q)), 200);
    CHECK_CONTAINS(c.body, "我下周三要去上海出差 and I fly on Tuesday");
    CHECK_EQ_INT(c.body_len, 20000 - 3 + 2);
    CHECK_EQ_INT(strlen(c.body), c.body_len);
    CHECK_EQ_STR(f.last_body, q);
    CHECK_EQ_INT(am_http1_post(&c, "/v1/recall", "amk_x", "{}", 2), 200);
    CHECK_EQ_INT(f.conns, 1); /* one connection for both */
    CHECK_EQ_INT(f.requests, 2);
    am_http1_close(&c);
    fake_stop(&f);
}

static void test_idle_close(void)
{
    fake f;
    am_http1 c;
    /* the server answers one request per connection, then closes it */
    fake_start(&f, KEEP, 1);
    client_for(&c, &f);
    CHECK_EQ_INT(am_http1_post(&c, "/v1/events", NULL, "{\"text\":\"a\"}", 12), 200);
    pause_ms(50); /* the close has arrived */
    CHECK_EQ_INT(am_http1_post(&c, "/v1/events", NULL, "{\"text\":\"b\"}", 12), 0);
    CHECK_EQ_INT(f.requests, 1);
    /* the next one reconnects */
    CHECK_EQ_INT(am_http1_post(&c, "/v1/events", NULL, "{\"text\":\"c\"}", 12), 200);
    CHECK_EQ_INT(f.requests, 2);
    /* with retry_idle the stale connection costs nothing */
    c.retry_idle = 1;
    pause_ms(50);
    const char *zh = "{\"text\":\"记住 d\"}";
    CHECK_EQ_INT(am_http1_post(&c, "/v1/events", NULL, zh, strlen(zh)), 200);
    CHECK_EQ_INT(f.requests, 3);
    CHECK_EQ_STR(f.last_body, "{\"text\":\"记住 d\"}");
    CHECK_CONTAINS(c.body, "上海");
    am_http1_close(&c);
    fake_stop(&f);
}

static void test_odd_replies(void)
{
    fake f;
    am_http1 c;
    fake_start(&f, HEADER_CLOSE, 100);
    client_for(&c, &f);
    CHECK_EQ_INT(am_http1_post(&c, "/", NULL, "{}", 2), 200);
    CHECK_EQ_INT(c.fd, -1); /* Connection: close honoured */
    CHECK_CONTAINS(c.body, "Tuesday");
    CHECK_EQ_INT(am_http1_post(&c, "/", NULL, "{}", 2), 200);
    CHECK_EQ_INT(f.conns, 2);
    am_http1_close(&c);
    fake_stop(&f);

    fake_start(&f, NO_LENGTH, 100);
    client_for(&c, &f);
    CHECK_EQ_INT(am_http1_post(&c, "/", NULL, "{}", 2), 204);
    CHECK_EQ_INT(c.body_len, 0);
    CHECK_EQ_INT(c.fd, -1); /* no length: not reused */
    am_http1_close(&c);
    fake_stop(&f);

    fake_start(&f, BAD_STATUS, 100);
    client_for(&c, &f);
    c.retry_idle = 1;
    CHECK_EQ_INT(am_http1_post(&c, "/", NULL, "{}", 2), 0);
    CHECK_EQ_INT(f.requests, 1); /* a reply came: not repeated */
    am_http1_close(&c);
    fake_stop(&f);
}

static void test_bad_urls_and_refused(void)
{
    am_http1 c;
    fake f;
    CHECK(am_http1_init(&c, "http://localhost:80") != 0);
    CHECK(am_http1_init(&c, "https://127.0.0.1:80") != 0);
    CHECK(am_http1_init(&c, "http://127.0.0.1") != 0);
    CHECK(am_http1_init(&c, "http://127.0.0.1:0") != 0);
    CHECK(am_http1_init(&c, "http://127.0.0.1:70000") != 0);
    CHECK(am_http1_init(&c, "http://127.0.0.1:80/v1") != 0);
    CHECK(am_http1_init(&c, "http://999.0.0.1:80") != 0);
    CHECK(am_http1_init(&c, NULL) != 0);
    /* a port nobody listens on (one we just closed) */
    fake_start(&f, KEEP, 1);
    fake_stop(&f);
    client_for(&c, &f);
    c.retry_idle = 1;
    CHECK_EQ_INT(am_http1_post(&c, "/", NULL, "{}", 2), 0);
    CHECK_EQ_INT(c.fd, -1);
    am_http1_close(&c);
}

int main(void)
{
    RUN(test_keep_alive);
    RUN(test_idle_close);
    RUN(test_odd_replies);
    RUN(test_bad_urls_and_refused);
    TEST_MAIN_END();
}
