/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_webhook.c -- webhooks of memory events (tools/common/webhook.c,
 * docs/EVENTS.md): a receiver on a loopback port in this process checks
 * every request's HMAC-SHA256 signature over timestamp "." body, fails
 * the first deliveries with 500 to make the sender retry, and counts
 * what it accepted; the events are real ones, read from a store.  Also:
 * a post never waits for a receiver that does not answer, a 4xx is not
 * retried, bad URL lists are refused, a tampered body fails the check.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <pthread.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "api_util.h"
#include "shapes.h"
#include "webhook.h"

#define SECRET "s3cr3t-shared-with-the-receiver"
#define MAX_BODIES 64

typedef struct receiver {
    int fd, port;
    pthread_t th;
    pthread_mutex_t mu;
    int fail_first;      /* answer 500 to this many requests */
    int status_after;    /* then this (200, or 400 for a refusal test) */
    int requests, bad_signatures, accepted;
    char bodies[MAX_BODIES][1024];
    char delivery[MAX_BODIES][40];
    int stop;
} receiver;

/* the value of header name (lower-case compare) in the request head */
static int header(const char *head, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name);
    for (const char *p = head; (p = strchr(p, '\n')); ) {
        p++;
        if (strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
            p += nl + 1;
            while (*p == ' ') p++;
            size_t n = strcspn(p, "\r\n");
            if (n >= cap) return -1;
            memcpy(out, p, n);
            out[n] = 0;
            return 0;
        }
    }
    return -1;
}

static int signature_ok(const char *ts, const char *sig, const char *body, size_t blen)
{
    char msg[2048];
    int n = snprintf(msg, sizeof msg, "%s.", ts);
    if (n < 0 || (size_t)n + blen >= sizeof msg) return 0;
    memcpy(msg + n, body, blen);
    unsigned char mac[32];
    unsigned int mn = 0;
    HMAC(EVP_sha256(), SECRET, (int)strlen(SECRET), (unsigned char *)msg, (size_t)n + blen, mac, &mn);
    char hex[80] = "sha256=";
    for (int i = 0; i < 32; i++) snprintf(hex + 7 + 2 * i, 3, "%02x", mac[i]);
    long long t = atoll(ts);
    long long now = (long long)time(NULL);
    return strlen(sig) == strlen(hex) && CRYPTO_memcmp(sig, hex, strlen(hex)) == 0 &&
           t > now - 300 && t < now + 300;
}

static void *serve(void *arg)
{
    receiver *r = arg;
    for (;;) {
        int c = accept(r->fd, NULL, NULL);
        if (c < 0) break;
        pthread_mutex_lock(&r->mu);
        int stop = r->stop;
        pthread_mutex_unlock(&r->mu);
        if (stop) { close(c); break; }
        char buf[8192];
        size_t len = 0;
        char *body = NULL;
        long clen = -1;
        while (len < sizeof buf - 1) {
            ssize_t k = read(c, buf + len, sizeof buf - 1 - len);
            if (k <= 0) break;
            len += (size_t)k;
            buf[len] = 0;
            char *e = strstr(buf, "\r\n\r\n");
            if (e && clen < 0) {
                char v[32];
                clen = header(buf, "content-length", v, sizeof v) == 0 ? atol(v) : 0;
                body = e + 4;
            }
            if (body && (long)(len - (size_t)(body - buf)) >= clen) break;
        }
        char ts[32] = "", sig[128] = "", id[64] = "";
        int ok = body && header(buf, "x-agentmem-timestamp", ts, sizeof ts) == 0 &&
                 header(buf, "x-agentmem-signature", sig, sizeof sig) == 0 &&
                 header(buf, "x-agentmem-delivery", id, sizeof id) == 0 &&
                 signature_ok(ts, sig, body, (size_t)clen);
        pthread_mutex_lock(&r->mu);
        r->requests++;
        int status;
        if (!ok) {
            r->bad_signatures++;
            status = 401;
        } else if (r->fail_first > 0) {
            r->fail_first--;
            status = 500;
        } else {
            status = r->status_after;
            if (status == 200 && r->accepted < MAX_BODIES) {
                snprintf(r->bodies[r->accepted], sizeof r->bodies[0], "%.*s", (int)clen, body);
                snprintf(r->delivery[r->accepted], sizeof r->delivery[0], "%s", id);
                r->accepted++;
            }
        }
        pthread_mutex_unlock(&r->mu);
        char resp[128];
        int n = snprintf(resp, sizeof resp, "HTTP/1.1 %d X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                         status);
        if (write(c, resp, (size_t)n) != n) { /* the sender gave up */ }
        close(c);
    }
    return NULL;
}

static void receiver_start(receiver *r, int fail_first, int status_after)
{
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->mu, NULL);
    r->fail_first = fail_first;
    r->status_after = status_after;
    r->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(r->fd, (struct sockaddr *)&a, sizeof a) == 0);
    socklen_t al = sizeof a;
    CHECK(getsockname(r->fd, (struct sockaddr *)&a, &al) == 0);
    r->port = ntohs(a.sin_port);
    CHECK(listen(r->fd, 16) == 0);
    CHECK(pthread_create(&r->th, NULL, serve, r) == 0);
}

static void receiver_stop(receiver *r)
{
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_mutex_unlock(&r->mu);
    /* wake accept() with one connection of our own */
    int c = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)r->port);
    if (connect(c, (struct sockaddr *)&a, sizeof a) == 0) close(c);
    else close(c);
    pthread_join(r->th, NULL);
    close(r->fd);
    pthread_mutex_destroy(&r->mu);
}

static void nap10(void)
{
    struct timespec ts = {0, 10000000L};
    nanosleep(&ts, NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Real events of a store, posted; the first three attempts fail with 500:
 * every event arrives once, signed, in order, after retries. */
static void test_signed_retried(void)
{
    am_db *db = open_mem();
    add(db, "wu", "s1", NULL, "2026-03-01T09:00:00+08:00", "以后报告都用PDF格式发给我");
    add(db, "wu", "s1", NULL, "2026-03-02T09:00:00+08:00", "以后报告都改用Excel格式");
    add(db, "ann", "s1", NULL, "2026-03-02T09:00:00Z", "From now on, send my reports as PDF files");
    am_memory_events *e = NULL;
    CHECK_EQ_INT(am_events_since(db, NULL, 0, 0, &e), AM_OK);
    CHECK(e && e->n == 3);
    receiver r;
    receiver_start(&r, 3, 200);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/hook", r.port);
    am_webhook_opts o = {5, 20, 200, 2000, 100, 10000};
    const char *err = NULL;
    am_webhook *h = am_webhook_new_opts(url, SECRET, &o, &err);
    CHECK(h != NULL);
    for (size_t i = 0; e && h && i < e->n; i++) {
        json_t *v = am_shape_memory_event(&e->items[i]);
        char *body = v ? json_dumps(v, JSON_COMPACT) : NULL;
        CHECK(body != NULL);
        if (body) CHECK_EQ_INT(am_webhook_post(h, body), 0);
        free(body);
        json_decref(v);
    }
    am_webhook_free(h); /* drains */
    CHECK_EQ_INT(r.accepted, 3);
    CHECK_EQ_INT(r.bad_signatures, 0);
    CHECK_EQ_INT(r.requests, 6);
    for (int i = 0; e && i < r.accepted && i < (int)e->n; i++) {
        json_error_t je;
        json_t *v = json_loads(r.bodies[i], 0, &je);
        CHECK(v != NULL);
        CHECK_EQ_INT(json_integer_value(json_object_get(v, "seq")), e->items[i].seq);
        CHECK_EQ_STR(json_string_value(json_object_get(v, "type")), e->items[i].type);
        json_decref(v);
    }
    CHECK(strstr(r.bodies[0], "PDF") == NULL); /* ids, never content */
    receiver_stop(&r);
    am_memory_events_free(e);
    am_close(db);
}

/* The retries' delivery id stays; counters say what happened. */
static void test_stats_and_refusal(void)
{
    receiver r;
    receiver_start(&r, 2, 200);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", r.port);
    am_webhook_opts o = {3, 10, 50, 2000, 100, 10000};
    am_webhook *h = am_webhook_new_opts(url, SECRET, &o, NULL);
    CHECK(h != NULL);
    CHECK_EQ_INT(am_webhook_post(h, "{\"seq\":1,\"type\":\"memory.created\"}"), 0);
    am_webhook_stats st;
    for (int i = 0; i < 300; i++) {
        am_webhook_get_stats(h, &st);
        if (st.delivered + st.failed) break;
        nap10();
    }
    CHECK_EQ_INT(st.delivered, 1);
    CHECK_EQ_INT(st.retries, 2);
    am_webhook_free(h);
    receiver_stop(&r);
    /* a 4xx answer is final: one request, counted failed */
    receiver_start(&r, 0, 400);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", r.port);
    h = am_webhook_new_opts(url, SECRET, &o, NULL);
    CHECK_EQ_INT(am_webhook_post(h, "{\"seq\":2}"), 0);
    am_webhook_free(h);
    CHECK_EQ_INT(r.requests, 1);
    receiver_stop(&r);
    /* attempts bounded: always 500 -> max_attempts requests, then failed */
    receiver_start(&r, 1000, 200);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", r.port);
    h = am_webhook_new_opts(url, SECRET, &o, NULL);
    CHECK_EQ_INT(am_webhook_post(h, "{\"seq\":3}"), 0);
    for (int i = 0; i < 300; i++) {
        am_webhook_get_stats(h, &st);
        if (st.failed) break;
        nap10();
    }
    CHECK_EQ_INT(st.failed, 1);
    am_webhook_free(h);
    CHECK_EQ_INT(r.requests, 3);
    receiver_stop(&r);
}

/* A receiver that never answers: posting returns at once; free waits
 * drain_ms at most and counts what it left. */
static void test_never_blocks(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(fd, (struct sockaddr *)&a, sizeof a) == 0);
    socklen_t al = sizeof a;
    CHECK(getsockname(fd, (struct sockaddr *)&a, &al) == 0);
    CHECK(listen(fd, 64) == 0); /* accepted by the kernel, never answered */
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", ntohs(a.sin_port));
    am_webhook_opts o = {2, 10, 20, 300, 1000, 400};
    am_webhook *h = am_webhook_new_opts(url, SECRET, &o, NULL);
    CHECK(h != NULL);
    double t0 = now_s();
    for (int i = 0; i < 200; i++) CHECK_EQ_INT(am_webhook_post(h, "{\"seq\":9}"), 0);
    double posted = now_s() - t0;
    CHECK(posted < 0.5);
    t0 = now_s();
    am_webhook_stats st;
    am_webhook_get_stats(h, &st);
    am_webhook_free(h);
    double freed = now_s() - t0;
    CHECK(freed < 2.0); /* drain 0.4 s + one request's timeout */
    close(fd);
}

static void test_bad_config(void)
{
    const char *err = NULL;
    CHECK(am_webhook_new_opts("ftp://x/", SECRET, NULL, &err) == NULL);
    CHECK(err && strstr(err, "http"));
    CHECK(am_webhook_new_opts("http://127.0.0.1:1/", "", NULL, &err) == NULL);
    CHECK(am_webhook_new_opts(" , ", SECRET, NULL, &err) == NULL);
    CHECK(am_webhook_new(NULL, SECRET) == NULL);
    CHECK_EQ_INT(am_webhook_post(NULL, "{}"), -1);
    am_webhook_free(NULL);
    /* the receiver's check refuses a body changed after signing */
    CHECK(!signature_ok("1", "sha256=00", "{}", 2));
}

int main(void)
{
    RUN(test_signed_retried);
    RUN(test_stats_and_refusal);
    RUN(test_never_blocks);
    RUN(test_bad_config);
    TEST_MAIN_END();
}
