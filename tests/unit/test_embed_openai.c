/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_embed_openai.c -- the OpenAI-compatible HTTP embedder
 * (src/embed/openai.c) against a small HTTP/1.1 server of this test's own,
 * run in a thread on 127.0.0.1 (port 0: the kernel picks a free one).
 *
 * The server answers POST .../embeddings with deterministic vectors: value
 * k of the vector of text t is a hash of (t, k), not normalised, so the
 * test can recompute what the client must return.  It sends the data items
 * in reverse order (the client must sort by "index").  A script of
 * per-request actions makes it fail: a status with a body, a malformed
 * body, another dimension, a delay beyond the client's timeout.  It
 * records each request's path, Authorization header, batch size and body.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "test.h"

#include "agentmem.h"
#include "embed/embed.h"

#define DIM 8
#define MAX_SCRIPT 16
#define MAX_LOG 256

/* ---- the server ---------------------------------------------------------- */

typedef struct action {
    int status;        /* 0 = normal 200 answer */
    const char *body;  /* with status, or a raw 200 body when status is 0 */
    int dim;           /* normal answer with this dimension (0 = srv.dim) */
    int delay_ms;      /* wait before answering (aborted if the client leaves) */
    const char *extra; /* extra header lines ("Retry-After: 0\r\n") */
} action;

typedef struct request_log {
    char path[128];
    char auth[128];    /* Authorization value, "" if none */
    char ctype[64];
    int n_inputs;      /* -1 if the body was not the expected JSON */
    char *body;        /* owned */
} request_log;

static struct {
    int fd, port;
    pthread_t thread;
    pthread_mutex_t mu;
    int stop;
    int dim;
    action script[MAX_SCRIPT];
    int script_len, script_pos;
    request_log log[MAX_LOG];
    int n_log;
} srv;

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* The raw (unnormalised) value k of the server's vector for text. */
static double raw_value(const char *text, size_t len, int k)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)text[i];
        h *= 1099511628211ull;
    }
    h = mix64(h ^ (uint64_t)(k + 1) * 0x9E3779B97F4A7C15ull);
    return ((double)(h % 2001) - 1000.0) / 250.0; /* -4 .. 4 */
}

/* What the client must return for text: the normalised raw vector. */
static void expected_vector(const char *text, int dim, float *out)
{
    double ss = 0;
    for (int k = 0; k < dim; k++) ss += raw_value(text, strlen(text), k) *
                                        raw_value(text, strlen(text), k);
    for (int k = 0; k < dim; k++)
        out[k] = (float)(raw_value(text, strlen(text), k) / sqrt(ss));
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Waits up to ms for fd to be readable; 1 ready, 0 timeout, -1 error. */
static int wait_readable(int fd, int ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    int r = poll(&p, 1, ms);
    return r < 0 ? (errno == EINTR ? 0 : -1) : r;
}

static int stopping(void)
{
    pthread_mutex_lock(&srv.mu);
    int s = srv.stop;
    pthread_mutex_unlock(&srv.mu);
    return s;
}

/* Case-insensitive strstr (strcasestr is not POSIX). */
static const char *find_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0) return hay;
    return NULL;
}

/* Reads one request (headers + Content-Length body) into buf.  Returns the
 * total length, 0 when the client closed, -1 on error. */
static long read_request(int fd, char *buf, size_t cap, size_t *body_at,
                         size_t *body_len)
{
    size_t len = 0;
    for (;;) {
        buf[len] = '\0';
        char *end = strstr(buf, "\r\n\r\n");
        if (end) {
            size_t head = (size_t)(end - buf) + 4, cl = 0;
            const char *h = find_ci(buf, "\r\ncontent-length:");
            if (h && h < end) cl = strtoul(h + 17, NULL, 10);
            if (head + cl >= cap) return -1;
            if (len >= head + cl) {
                *body_at = head;
                *body_len = cl;
                return (long)(head + cl);
            }
        }
        if (len + 1 >= cap) return -1;
        int ready;
        while ((ready = wait_readable(fd, 50)) == 0)
            if (stopping()) return -1;
        if (ready < 0) return -1;
        ssize_t r = recv(fd, buf + len, cap - 1 - len, 0);
        if (r <= 0) return r == 0 && len == 0 ? 0 : -1;
        len += (size_t)r;
    }
}

/* Copies the value of header name (e.g. "authorization") into dst. */
static void header_value(const char *req, const char *name, char *dst,
                         size_t dstlen)
{
    char key[64];
    snprintf(key, sizeof key, "\r\n%s:", name);
    const char *h = find_ci(req, key), *end = strstr(req, "\r\n\r\n");
    dst[0] = '\0';
    if (!h || h > end) return;
    h += strlen(key);
    while (*h == ' ') h++;
    size_t n = strcspn(h, "\r\n");
    if (n >= dstlen) n = dstlen - 1;
    memcpy(dst, h, n);
    dst[n] = '\0';
}

/* The normal answer: a vector per input, items in reverse order. */
static char *normal_answer(json_t *input, int dim)
{
    json_t *root = json_object(), *data = json_array();
    for (size_t i = json_array_size(input); i-- > 0;) {
        const char *t = json_string_value(json_array_get(input, i));
        size_t tl = json_string_length(json_array_get(input, i));
        json_t *v = json_array(), *item = json_object();
        for (int k = 0; k < dim; k++)
            json_array_append_new(v, json_real(raw_value(t ? t : "", tl, k)));
        json_object_set_new(item, "object", json_string("embedding"));
        json_object_set_new(item, "embedding", v);
        json_object_set_new(item, "index", json_integer((json_int_t)i));
        json_array_append_new(data, item);
    }
    json_object_set_new(root, "object", json_string("list"));
    json_object_set_new(root, "data", data);
    json_object_set_new(root, "model", json_string("test-model"));
    char *s = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    return s;
}

/* Sleeps ms, or less when the client hangs up; 1 if it hung up. */
static int delay_or_hangup(int fd, int ms)
{
    for (int waited = 0; waited < ms; waited += 10) {
        char c;
        if (wait_readable(fd, 10) > 0 &&
            recv(fd, &c, 1, MSG_PEEK) <= 0)
            return 1;
        if (stopping()) return 1;
    }
    return 0;
}

/* Answers one request; returns -1 to drop the connection. */
static int answer(int fd, char *req, size_t body_at, size_t body_len)
{
    request_log lg;
    action act = {0, NULL, 0, 0, NULL};
    json_t *root, *input;
    char *body = NULL, head[512];
    const char *reply;
    int status = 200, rc = 0;

    memset(&lg, 0, sizeof lg);
    sscanf(req, "%*s %127s", lg.path);
    header_value(req, "authorization", lg.auth, sizeof lg.auth);
    header_value(req, "content-type", lg.ctype, sizeof lg.ctype);
    lg.body = strndup(req + body_at, body_len);
    root = json_loadb(req + body_at, body_len, 0, NULL);
    input = json_object_get(root, "input");
    lg.n_inputs = json_is_array(input) ? (int)json_array_size(input) : -1;

    pthread_mutex_lock(&srv.mu);
    if (srv.n_log < MAX_LOG)
        srv.log[srv.n_log++] = lg;
    else
        free(lg.body);
    if (srv.script_pos < srv.script_len) act = srv.script[srv.script_pos++];
    int dim = act.dim ? act.dim : srv.dim;
    pthread_mutex_unlock(&srv.mu);

    if (act.delay_ms && delay_or_hangup(fd, act.delay_ms)) {
        json_decref(root);
        return -1;
    }
    if (act.status) {
        status = act.status;
        reply = act.body ? act.body : "";
    } else if (act.body) {
        reply = act.body;
    } else if (lg.n_inputs < 0) {
        status = 400;
        reply = "{\"error\":{\"message\":\"test server: bad request body\"}}";
    } else {
        body = normal_answer(input, dim);
        reply = body;
    }
    snprintf(head, sizeof head,
             "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
             "Content-Length: %zu\r\n%s\r\n",
             status, strlen(reply), act.extra ? act.extra : "");
    if (send_all(fd, head, strlen(head)) || send_all(fd, reply, strlen(reply)))
        rc = -1;
    free(body);
    json_decref(root);
    return rc;
}

static void serve_connection(int fd)
{
    static char buf[1 << 20];
    for (;;) {
        size_t body_at = 0, body_len = 0;
        long n = read_request(fd, buf, sizeof buf, &body_at, &body_len);
        if (n <= 0) return;
        if (answer(fd, buf, body_at, body_len)) return;
        /* (one request per read: curl waits for each answer) */
    }
}

static void *server_main(void *arg)
{
    (void)arg;
    while (!stopping()) {
        if (wait_readable(srv.fd, 50) <= 0) continue;
        int c = accept(srv.fd, NULL, NULL);
        if (c < 0) continue;
        serve_connection(c);
        close(c);
    }
    return NULL;
}

static int server_start(void)
{
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    int one = 1;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    srv.fd = socket(AF_INET, SOCK_STREAM, 0);
    if (srv.fd < 0) return -1;
    setsockopt(srv.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(srv.fd, (struct sockaddr *)&a, sizeof a) ||
        listen(srv.fd, 16) ||
        getsockname(srv.fd, (struct sockaddr *)&a, &al))
        return -1;
    srv.port = ntohs(a.sin_port);
    srv.dim = DIM;
    pthread_mutex_init(&srv.mu, NULL);
    return pthread_create(&srv.thread, NULL, server_main, NULL) ? -1 : 0;
}

static void server_stop(void)
{
    pthread_mutex_lock(&srv.mu);
    srv.stop = 1;
    pthread_mutex_unlock(&srv.mu);
    pthread_join(srv.thread, NULL);
    close(srv.fd);
    for (int i = 0; i < srv.n_log; i++) free(srv.log[i].body);
    pthread_mutex_destroy(&srv.mu);
}

/* Clears the log and installs a script of actions for the next requests. */
static void server_script(const action *acts, int n)
{
    pthread_mutex_lock(&srv.mu);
    for (int i = 0; i < srv.n_log; i++) free(srv.log[i].body);
    srv.n_log = 0;
    srv.script_len = n;
    srv.script_pos = 0;
    for (int i = 0; i < n; i++) srv.script[i] = acts[i];
    pthread_mutex_unlock(&srv.mu);
}

static int server_requests(void)
{
    pthread_mutex_lock(&srv.mu);
    int n = srv.n_log;
    pthread_mutex_unlock(&srv.mu);
    return n;
}

/* ---- helpers ------------------------------------------------------------- */

static char base_url[64];

/* Fast retries so the failure tests take milliseconds. */
static const am__openai_opts fast = {1000, 2000, 3, 5, 20, 0};

static am__embedder *open_ok(const char *url, const char *key, int dim,
                             const am__openai_opts *opts)
{
    am__embedder *e = NULL;
    char err[512] = "";
    int rc = am__embed_openai_open_opts(url, "test-model", key, dim, opts, &e,
                                        err, sizeof err);
    if (rc) fprintf(stderr, "open %s: %d %s\n", url, rc, err);
    CHECK_EQ_INT(rc, AM_OK);
    return e;
}

/* 1 if out[i] is the expected vector of texts[i] for all i. */
static int vectors_match(const char *const *texts, size_t n, const float *out,
                         int dim)
{
    float want[64];
    for (size_t i = 0; i < n; i++) {
        expected_vector(texts[i], dim, want);
        for (int k = 0; k < dim; k++)
            if (fabs(want[k] - out[i * (size_t)dim + k]) > 1e-5) {
                fprintf(stderr, "text %zu (\"%s\") dim %d: %g vs %g\n", i,
                        texts[i], k, out[i * (size_t)dim + k], want[k]);
                return 0;
            }
    }
    return 1;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- tests --------------------------------------------------------------- */

static void test_basic_embed(void)
{
    static const char *const texts[] = {"hello world", "用户每周四下午写周报",
                                        "emoji ☀️ and \"quotes\"\n\\"};
    float out[3 * DIM];
    char err[512] = "", id[96];
    am__embedder *e = open_ok(base_url, "sk-test-123", DIM, &fast);
    if (!e) return;
    snprintf(id, sizeof id, "openai:test-model@127.0.0.1:%d", srv.port);
    CHECK_EQ_STR(e->id, id);
    CHECK_EQ_INT(e->dim, DIM);
    server_script(NULL, 0);
    CHECK_EQ_INT(server_requests(), 0); /* dim given: no probe */
    CHECK_EQ_INT(e->embed(e, texts, 3, out, err, sizeof err), AM_OK);
    CHECK(vectors_match(texts, 3, out, DIM));
    for (int i = 0; i < 3; i++) {
        double ss = 0;
        for (int k = 0; k < DIM; k++) ss += (double)out[i * DIM + k] * out[i * DIM + k];
        CHECK_NEAR(ss, 1.0, 1e-5);
    }
    CHECK_EQ_INT(server_requests(), 1);
    if (server_requests() == 1) {
        request_log *lg = &srv.log[0];
        json_t *root = json_loads(lg->body, 0, NULL);
        CHECK_EQ_STR(lg->path, "/v1/embeddings");
        CHECK_EQ_STR(lg->auth, "Bearer sk-test-123");
        CHECK_EQ_STR(lg->ctype, "application/json");
        CHECK_EQ_INT(lg->n_inputs, 3);
        CHECK_EQ_STR(json_string_value(json_object_get(root, "model")),
                     "test-model");
        /* the Chinese text and the escapes arrive byte for byte */
        json_t *in = json_object_get(root, "input");
        for (int i = 0; i < 3; i++)
            CHECK_EQ_STR(json_string_value(json_array_get(in, (size_t)i)),
                         texts[i]);
        json_decref(root);
    }
    am__embedder_close(e);
}

static void test_no_key_no_header(void)
{
    const char *t = "abc";
    float out[DIM];
    char err[256];
    am__embedder *e = open_ok(base_url, NULL, DIM, &fast);
    if (!e) return;
    server_script(NULL, 0);
    CHECK_EQ_INT(e->embed(e, &t, 1, out, err, sizeof err), AM_OK);
    CHECK_EQ_INT(server_requests(), 1);
    CHECK_EQ_STR(srv.log[0].auth, "");
    am__embedder_close(e);
    e = open_ok(base_url, "", DIM, &fast); /* empty key: no header either */
    if (!e) return;
    server_script(NULL, 0);
    CHECK_EQ_INT(e->embed(e, &t, 1, out, err, sizeof err), AM_OK);
    CHECK_EQ_STR(srv.log[0].auth, "");
    am__embedder_close(e);
}

static void test_url_forms(void)
{
    static const char *const suffix[] = {"", "/", "/v1", "/v1/",
                                         "/v1/embeddings"};
    const char *t = "x";
    float out[DIM];
    char err[256], url[128];
    for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
        snprintf(url, sizeof url, "%s%s", base_url, suffix[i]);
        am__embedder *e = open_ok(url, NULL, DIM, &fast);
        if (!e) continue;
        server_script(NULL, 0);
        CHECK_EQ_INT(e->embed(e, &t, 1, out, err, sizeof err), AM_OK);
        CHECK_EQ_STR(srv.log[0].path, "/v1/embeddings");
        am__embedder_close(e);
    }
    /* a prefix path with a version segment keeps the prefix */
    snprintf(url, sizeof url, "%s/compatible-mode/v1", base_url);
    am__embedder *e = open_ok(url, NULL, DIM, &fast);
    if (e) {
        server_script(NULL, 0);
        CHECK_EQ_INT(e->embed(e, &t, 1, out, err, sizeof err), AM_OK);
        CHECK_EQ_STR(srv.log[0].path, "/compatible-mode/v1/embeddings");
        am__embedder_close(e);
    }
}

static void test_learn_dim(void)
{
    const char *t = "周报";
    float out[16];
    char err[256];
    action a[] = {{0, NULL, 12, 0, NULL}, {0, NULL, 12, 0, NULL}};
    server_script(a, 2);
    am__embedder *e = open_ok(base_url, NULL, 0, &fast);
    if (!e) return;
    CHECK_EQ_INT(e->dim, 12);
    CHECK_EQ_INT(server_requests(), 1); /* the probe */
    CHECK_EQ_INT(srv.log[0].n_inputs, 1);
    CHECK_EQ_INT(e->embed(e, &t, 1, out, err, sizeof err), AM_OK);
    CHECK(vectors_match(&t, 1, out, 12));
    /* the next response has another dimension: an error, never truncation */
    action b[] = {{0, NULL, 10, 0, NULL}};
    server_script(b, 1);
    CHECK_EQ_INT(e->embed(e, &t, 1, out, err, sizeof err), AM_BACKEND);
    CHECK_CONTAINS(err, "dimension");
    CHECK_CONTAINS(err, "expected 12");
    am__embedder_close(e);
}

static void test_batching(void)
{
    enum { N = 100 };
    static char store[N][32];
    const char *texts[N];
    static float out[N * DIM];
    char err[256] = "";
    for (int i = 0; i < N; i++) {
        snprintf(store[i], sizeof store[i], i % 2 ? "text %d" : "文本%d", i);
        texts[i] = store[i];
    }
    am__embedder *e = open_ok(base_url, NULL, DIM, &fast);
    if (!e) return;
    server_script(NULL, 0);
    CHECK_EQ_INT(e->embed(e, texts, N, out, err, sizeof err), AM_OK);
    CHECK_EQ_INT(server_requests(), 2);
    CHECK_EQ_INT(srv.log[0].n_inputs, 64);
    CHECK_EQ_INT(srv.log[1].n_inputs, 36);
    CHECK(vectors_match(texts, N, out, DIM));
    am__embedder_close(e);

    /* a smaller batch size (TEI's default is 32) */
    am__openai_opts o = fast;
    o.max_batch = 32;
    e = open_ok(base_url, NULL, DIM, &o);
    if (!e) return;
    server_script(NULL, 0);
    CHECK_EQ_INT(e->embed(e, texts, N, out, err, sizeof err), AM_OK);
    CHECK_EQ_INT(server_requests(), 4);
    CHECK_EQ_INT(srv.log[3].n_inputs, 4);
    CHECK(vectors_match(texts, N, out, DIM));
    /* n = 0: no request */
    server_script(NULL, 0);
    CHECK_EQ_INT(e->embed(e, texts, 0, out, err, sizeof err), AM_OK);
    CHECK_EQ_INT(server_requests(), 0);
    am__embedder_close(e);
}

static void test_retry_429_once(void)
{
    const char *t = "retry me";
    float out[DIM];
    char err[256] = "";
    action a[] = {{429, "{\"error\":{\"message\":\"slow down\"}}", 0, 0,
                   "Retry-After: 0\r\n"}};
    am__embedder *e = open_ok(base_url, "k", DIM, &fast);
    if (!e) return;
    server_script(a, 1);
    CHECK_EQ_INT(e->embed(e, &t, 1, out, err, sizeof err), AM_OK);
    CHECK_EQ_INT(server_requests(), 2);
    CHECK(vectors_match(&t, 1, out, DIM));
    /* 503 then 502 then success: still within 3 tries */
    action b[] = {{503, "busy", 0, 0, NULL}, {502, "", 0, 0, NULL}};
    server_script(b, 2);
    CHECK_EQ_INT(e->embed(e, &t, 1, out, err, sizeof err), AM_OK);
    CHECK_EQ_INT(server_requests(), 3);
    am__embedder_close(e);
}

static void test_500_gives_up(void)
{
    const char *t = "x";
    float out[DIM];
    char err[512] = "";
    action a[4];
    for (int i = 0; i < 4; i++)
        a[i] = (action){500, "{\"error\":{\"message\":\"boom: model crashed\","
                             "\"type\":\"server_error\"}}", 0, 0, NULL};
    am__embedder *e = open_ok(base_url, "sk-secret-key", DIM, &fast);
    if (!e) return;
    server_script(a, 4);
    CHECK_EQ_INT(e->embed(e, &t, 1, out, err, sizeof err), AM_BACKEND);
    CHECK_EQ_INT(server_requests(), 3);
    CHECK_CONTAINS(err, "HTTP 500");
    CHECK_CONTAINS(err, "boom: model crashed");
    CHECK_CONTAINS(err, "3 tries");
    CHECK_CONTAINS(err, "openai:test-model@127.0.0.1");
    CHECK(strstr(err, "sk-secret-key") == NULL);
    am__embedder_close(e);
}

static void test_client_errors_not_retried(void)
{
    static const struct {
        int status;
        const char *body, *want;
        int rc;
    } cases[] = {
        {400, "{\"error\":{\"message\":\"model not found: foo\"}}",
         "model not found: foo", AM_BACKEND},
        {401, "{\"error\":\"invalid api key\"}", "invalid api key", AM_DENIED},
        {403, "forbidden\r\nby policy", "forbidden  by policy", AM_DENIED},
        {413, "{\"message\":\"batch too large\"}", "batch too large", AM_TOOBIG},
        {422, "{\"detail\":\"input must not be empty\"}", "must not be empty",
         AM_BACKEND},
        {404, "", "(empty body)", AM_BACKEND},
    };
    const char *t = "x";
    float out[DIM];
    am__embedder *e = open_ok(base_url, NULL, DIM, &fast);
    if (!e) return;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char err[512] = "", status[32];
        action a[] = {{cases[i].status, cases[i].body, 0, 0, NULL}};
        server_script(a, 1);
        CHECK_EQ_INT(e->embed(e, &t, 1, out, err, sizeof err), cases[i].rc);
        CHECK_EQ_INT(server_requests(), 1);
        snprintf(status, sizeof status, "HTTP %d", cases[i].status);
        CHECK_CONTAINS(err, status);
        CHECK_CONTAINS(err, cases[i].want);
    }
    am__embedder_close(e);
}

static void test_malformed_responses(void)
{
    static const struct {
        const char *body, *want;
    } cases[] = {
        {"{\"data\":[{\"embedding\":[1,2,3", "malformed JSON"},
        {"not json at all", "malformed JSON"},
        {"[1,2]", "not a JSON object"},
        {"{\"object\":\"list\"}", "no \"data\""},
        {"{\"data\":[]}", "0 embeddings for 1 inputs"},
        {"{\"data\":[{\"index\":0}]}", "no \"embedding\""},
        {"{\"data\":[{\"embedding\":[1,\"x\",3,4,5,6,7,8],\"index\":0}]}",
         "not a finite float"},
        {"{\"data\":[{\"embedding\":[1e300,1,1,1,1,1,1,1],\"index\":0}]}",
         "not a finite float"},
        {"{\"data\":[{\"embedding\":[1,2,3,4,5,6,7,8],\"index\":3}]}",
         "out of range"},
        {"{\"data\":[{\"embedding\":[1,2,3,4,5,6,7,8],\"index\":\"0\"}]}",
         "not an integer"},
        {"{\"data\":[{\"embedding\":[1,2,3,4,5,6,7],\"index\":0}]}",
         "expected 8"},
        {"{\"data\":[{\"embedding\":[],\"index\":0}]}", "0 values"},
        {"{\"error\":{\"message\":\"quota exceeded\"}}", "quota exceeded"},
    };
    const char *t = "x";
    float out[DIM];
    am__embedder *e = open_ok(base_url, NULL, DIM, &fast);
    if (!e) return;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char err[512] = "";
        action a[] = {{0, cases[i].body, 0, 0, NULL}};
        server_script(a, 1);
        CHECK_EQ_INT(e->embed(e, &t, 1, out, err, sizeof err), AM_BACKEND);
        CHECK_EQ_INT(server_requests(), 1); /* not retried */
        CHECK_CONTAINS(err, cases[i].want);
    }
    am__embedder_close(e);
}

static void test_wrong_dimension_second_batch(void)
{
    enum { N = 70 };
    const char *texts[N];
    static float out[N * DIM];
    char err[256] = "";
    for (int i = 0; i < N; i++) texts[i] = "same";
    action a[] = {{0, NULL, 0, 0, NULL}, {0, NULL, 6, 0, NULL}};
    am__embedder *e = open_ok(base_url, NULL, DIM, &fast);
    if (!e) return;
    server_script(a, 2);
    CHECK_EQ_INT(e->embed(e, texts, N, out, err, sizeof err), AM_BACKEND);
    CHECK_EQ_INT(server_requests(), 2);
    CHECK_CONTAINS(err, "dimension mismatch");
    CHECK_CONTAINS(err, "6 values, expected 8");
    am__embedder_close(e);
}

static void test_timeout(void)
{
    const char *t = "slow";
    float out[DIM];
    char err[512] = "";
    am__openai_opts o = fast;
    o.timeout_ms = 200;
    action a[] = {{0, NULL, 0, 1500, NULL}, {0, NULL, 0, 1500, NULL},
                  {0, NULL, 0, 1500, NULL}};
    am__embedder *e = open_ok(base_url, NULL, DIM, &o);
    if (!e) return;
    server_script(a, 3);
    double t0 = now_ms();
    CHECK_EQ_INT(e->embed(e, &t, 1, out, err, sizeof err), AM_IO);
    double took = now_ms() - t0;
    CHECK(took >= 3 * 200 - 50);
    CHECK(took < 3000);
    CHECK_CONTAINS(err, "imeout");
    CHECK_CONTAINS(err, "3 tries");
    /* the server is free again: a slow answer within the timeout is fine */
    action b[] = {{0, NULL, 0, 50, NULL}};
    server_script(b, 1);
    CHECK_EQ_INT(e->embed(e, &t, 1, out, err, sizeof err), AM_OK);
    CHECK(vectors_match(&t, 1, out, DIM));
    am__embedder_close(e);
}

static void test_connection_refused(void)
{
    /* a port nobody listens on: bind one, close it */
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), port;
    char url[64], err[512] = "";
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, (struct sockaddr *)&a, sizeof a);
    getsockname(fd, (struct sockaddr *)&a, &al);
    port = ntohs(a.sin_port);
    close(fd);
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    am__embedder *e = open_ok(url, NULL, DIM, &fast);
    if (!e) return;
    const char *t = "x";
    float out[DIM];
    CHECK_EQ_INT(e->embed(e, &t, 1, out, err, sizeof err), AM_IO);
    CHECK_CONTAINS(err, "3 tries");
    am__embedder_close(e);
    /* with dim 0 the probe fails at open */
    e = (am__embedder *)1;
    CHECK_EQ_INT(am__embed_openai_open_opts(url, "m", NULL, 0, &fast, &e, err,
                                            sizeof err),
                 AM_IO);
    CHECK(e == NULL);
}

static void test_invalid_utf8_sent_as_replacement(void)
{
    const char *t = "abc\xff\xfe" "d";
    const char *fixed = "abc\xEF\xBF\xBD\xEF\xBF\xBD" "d";
    float out[DIM];
    char err[256] = "";
    am__embedder *e = open_ok(base_url, NULL, DIM, &fast);
    if (!e) return;
    server_script(NULL, 0);
    CHECK_EQ_INT(e->embed(e, &t, 1, out, err, sizeof err), AM_OK);
    CHECK_EQ_INT(server_requests(), 1);
    CHECK_EQ_INT(srv.log[0].n_inputs, 1); /* valid JSON arrived */
    CHECK(vectors_match(&fixed, 1, out, DIM));
    am__embedder_close(e);
}

static void test_parser_direct(void)
{
    const char *ok = "{\"data\":[{\"embedding\":[0,3,4],\"index\":1},"
                     "{\"embedding\":[2,0,0],\"index\":0}]}";
    const char *noidx = "{\"data\":[{\"embedding\":[1,1]},{\"embedding\":[0,-5]}]}";
    const char *dup = "{\"data\":[{\"embedding\":[1],\"index\":0},"
                      "{\"embedding\":[1],\"index\":0}]}";
    float out[6];
    int dim = 0;
    char err[256] = "";
    CHECK_EQ_INT(am__openai_parse_response(ok, strlen(ok), 2, &dim, NULL, err,
                                           sizeof err),
                 AM_OK);
    CHECK_EQ_INT(dim, 3);
    CHECK_EQ_INT(am__openai_parse_response(ok, strlen(ok), 2, &dim, out, err,
                                           sizeof err),
                 AM_OK);
    CHECK_NEAR(out[0], 1, 1e-6); /* index 0 = [2,0,0] normalised */
    CHECK_NEAR(out[1], 0, 1e-6);
    CHECK_NEAR(out[4], 0.6, 1e-6); /* index 1 = [0,3,4] / 5 */
    CHECK_NEAR(out[5], 0.8, 1e-6);
    dim = 2;
    CHECK_EQ_INT(am__openai_parse_response(noidx, strlen(noidx), 2, &dim, out,
                                           err, sizeof err),
                 AM_OK);
    CHECK_NEAR(out[0], sqrt(0.5), 1e-6);
    CHECK_NEAR(out[3], -1, 1e-6);
    dim = 0;
    CHECK_EQ_INT(am__openai_parse_response(dup, strlen(dup), 2, &dim, NULL,
                                           err, sizeof err),
                 AM_BACKEND);
    CHECK_CONTAINS(err, "twice");
    /* a zero vector stays zero */
    const char *zero = "{\"data\":[{\"embedding\":[0,0],\"index\":0}]}";
    dim = 2;
    CHECK_EQ_INT(am__openai_parse_response(zero, strlen(zero), 1, &dim, out,
                                           err, sizeof err),
                 AM_OK);
    CHECK(out[0] == 0 && out[1] == 0);
    /* misuse */
    dim = 0;
    CHECK_EQ_INT(am__openai_parse_response(ok, strlen(ok), 2, &dim, out, err,
                                           sizeof err),
                 AM_MISUSE);
    CHECK_EQ_INT(am__openai_parse_response(ok, strlen(ok), 2, NULL, NULL, err,
                                           sizeof err),
                 AM_MISUSE);
    CHECK_EQ_INT(am__openai_parse_response(NULL, 3, 2, &dim, NULL, err,
                                           sizeof err),
                 AM_MISUSE);
    CHECK_EQ_INT(am__openai_parse_response(ok, strlen(ok), -1, &dim, NULL, err,
                                           sizeof err),
                 AM_MISUSE);
}

static void test_open_misuse(void)
{
    am__embedder *e = (am__embedder *)1;
    char err[256] = "";
    am__openai_opts bad = fast;
    CHECK_EQ_INT(am__embed_openai_open(NULL, "m", NULL, 8, &e, err, sizeof err),
                 AM_MISUSE);
    CHECK(e == NULL);
    CHECK_EQ_INT(am__embed_openai_open(base_url, NULL, NULL, 8, &e, err,
                                       sizeof err),
                 AM_MISUSE);
    CHECK_EQ_INT(am__embed_openai_open(base_url, "", NULL, 8, &e, err,
                                       sizeof err),
                 AM_MISUSE);
    CHECK_EQ_INT(am__embed_openai_open(base_url, "m", NULL, -1, &e, err,
                                       sizeof err),
                 AM_MISUSE);
    CHECK_EQ_INT(am__embed_openai_open(base_url, "m", NULL, 8, NULL, err,
                                       sizeof err),
                 AM_MISUSE);
    CHECK_EQ_INT(am__embed_openai_open("ftp://example.com", "m", NULL, 8, &e,
                                       err, sizeof err),
                 AM_MISUSE);
    CHECK_CONTAINS(err, "http");
    CHECK_EQ_INT(am__embed_openai_open("file:///etc/passwd", "m", NULL, 8, &e,
                                       err, sizeof err),
                 AM_MISUSE);
    CHECK_EQ_INT(am__embed_openai_open("not a url", "m", NULL, 8, &e, err,
                                       sizeof err),
                 AM_MISUSE);
    CHECK_EQ_INT(am__embed_openai_open(base_url, "m\xff", NULL, 8, &e, err,
                                       sizeof err),
                 AM_MISUSE);
    CHECK_EQ_INT(am__embed_openai_open(base_url, "m", "key\r\nX-Evil: 1", 8, &e,
                                       err, sizeof err),
                 AM_MISUSE);
    bad.max_batch = 5000;
    CHECK_EQ_INT(am__embed_openai_open_opts(base_url, "m", NULL, 8, &bad, &e,
                                            err, sizeof err),
                 AM_MISUSE);
    CHECK(e == NULL);

    /* the id: a host without a port, an https URL */
    CHECK_EQ_INT(am__embed_openai_open("https://api.example.com/v1",
                                       "text-embedding-3-small", "k", 1536, &e,
                                       err, sizeof err),
                 AM_OK);
    if (e) CHECK_EQ_STR(e->id, "openai:text-embedding-3-small@api.example.com");
    am__embedder_close(e);
    am__embedder_close(NULL);

    /* embed misuse */
    e = open_ok(base_url, NULL, DIM, &fast);
    if (!e) return;
    const char *texts[2] = {"a", NULL};
    float out[2 * DIM];
    CHECK_EQ_INT(e->embed(e, texts, 2, out, err, sizeof err), AM_MISUSE);
    CHECK_CONTAINS(err, "texts[1]");
    CHECK_EQ_INT(e->embed(e, texts, 1, NULL, err, sizeof err), AM_MISUSE);
    am__embedder_close(e);
}

static void test_ids_differ(void)
{
    am__embedder *a = NULL, *b = NULL, *c = NULL;
    char err[256];
    am__embed_openai_open("http://10.0.0.1:8080/v1", "bge-m3", NULL, 8, &a, err,
                          sizeof err);
    am__embed_openai_open("http://10.0.0.2:8080/v1", "bge-m3", NULL, 8, &b, err,
                          sizeof err);
    am__embed_openai_open("http://10.0.0.1:8080/v1", "bge-large", NULL, 8, &c,
                          err, sizeof err);
    am__embedder *d = NULL, *f = NULL;
    am__embed_openai_open("https://API.Example.com:443/v1", "m", NULL, 8, &d,
                          err, sizeof err);
    am__embed_openai_open("https://api.example.com:8443/", "m", NULL, 8, &f,
                          err, sizeof err);
    CHECK(d && f);
    if (d) CHECK_EQ_STR(d->id, "openai:m@api.example.com");
    if (f) CHECK_EQ_STR(f->id, "openai:m@api.example.com:8443");
    am__embedder_close(d);
    am__embedder_close(f);
    CHECK(a && b && c);
    if (a && b && c) {
        CHECK_EQ_STR(a->id, "openai:bge-m3@10.0.0.1:8080");
        CHECK(strcmp(a->id, b->id) != 0);
        CHECK(strcmp(a->id, c->id) != 0);
    }
    am__embedder_close(a);
    am__embedder_close(b);
    am__embedder_close(c);
}

/* am_reembed over this endpoint: the batch is refused (one text too long
 * for the model, say), so the texts go one by one; the refused one is left
 * without a vector, the others get theirs, and the run completes. */
static void test_reembed_skips_refused_text(void)
{
    char dir[] = "/tmp/am_oai_reembed_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        CHECK(0);
        return;
    }
    char path[128], spec[160];
    snprintf(path, sizeof path, "%s/t.db", dir);
    snprintf(spec, sizeof spec, "openai:test-model@%s", base_url);
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = path;
    am_db *db = NULL;
    CHECK_EQ_INT(am_open(&cfg, &db, NULL), AM_OK);
    static const char *const texts[] = {"alpha one", "beta two is far too long", "gamma three"};
    for (int i = 0; i < 3; i++) {
        am_event ev;
        memset(&ev, 0, sizeof ev);
        ev.user_id = "u";
        ev.text = texts[i];
        CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_OK);
    }
    am_close(db);
    cfg.embedder = spec;
    CHECK_EQ_INT(am_open(&cfg, &db, NULL), AM_OK);
    action a[] = {{400, "{\"error\":{\"message\":\"input too long\"}}", 0, 0, NULL},
                  {0, NULL, 0, 0, NULL},
                  {400, "{\"error\":{\"message\":\"input too long\"}}", 0, 0, NULL},
                  {0, NULL, 0, 0, NULL}};
    server_script(a, 4);
    size_t n = 0, missing = 9;
    CHECK_EQ_INT(am_reembed(db, "u", NULL, NULL, &n), AM_OK);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(am_vectors_missing(db, "u", &missing), AM_OK);
    CHECK_EQ_INT(missing, 1);
    /* every text refused: the embedder is down, an error */
    action b[] = {{400, "{\"error\":{\"message\":\"no\"}}", 0, 0, NULL},
                  {400, "{\"error\":{\"message\":\"no\"}}", 0, 0, NULL}};
    server_script(b, 2);
    CHECK(am_reembed(db, "u", NULL, NULL, &n) != AM_OK);
    CHECK_CONTAINS(am_errmsg(db), "reembed: embedder");
    am_close(db);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

int main(void)
{
    /* the test server is local: never go through a proxy from the env */
    setenv("no_proxy", "*", 1);
    setenv("NO_PROXY", "*", 1);
    if (server_start() != 0) {
        perror("test server");
        return 1;
    }
    snprintf(base_url, sizeof base_url, "http://127.0.0.1:%d", srv.port);
    RUN(test_basic_embed);
    RUN(test_no_key_no_header);
    RUN(test_url_forms);
    RUN(test_learn_dim);
    RUN(test_batching);
    RUN(test_retry_429_once);
    RUN(test_500_gives_up);
    RUN(test_client_errors_not_retried);
    RUN(test_malformed_responses);
    RUN(test_wrong_dimension_second_batch);
    RUN(test_timeout);
    RUN(test_connection_refused);
    RUN(test_invalid_utf8_sent_as_replacement);
    RUN(test_parser_direct);
    RUN(test_open_misuse);
    RUN(test_ids_differ);
    RUN(test_reembed_skips_refused_text);
    server_stop();
    TEST_MAIN_END();
}
