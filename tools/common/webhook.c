/* SPDX-License-Identifier: Apache-2.0 */
/*
 * webhook.c -- signed webhook deliveries with retries (see webhook.h).
 *
 * One queue and one thread per URL: a slow or failing receiver delays
 * only its own deliveries.  am_webhook_post copies the body into every
 * queue under the hook's mutex and signals; a thread pops one event,
 * delivers it (signing each attempt afresh: the timestamp is the
 * attempt's), waits between attempts on the hook's condition variable so
 * that am_webhook_free can cut a wait short, and goes on with the next.
 * Order per URL is the posting order (one delivery at a time).
 */
#include "webhook.h"

#include <curl/curl.h>
#include <errno.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct item {
    struct item *next;
    char id[33];          /* delivery id: hex of 16 random bytes */
    char body[];
} item;

typedef struct target {
    struct am_webhook *hook;
    char *url;
    pthread_t thread;
    int started;
    item *head, *tail;
    size_t n;
} target;

struct am_webhook {
    pthread_mutex_t mu;
    pthread_cond_t cv;    /* work queued, stop, abort, a thread ended */
    target *t;
    size_t nt;
    char *secret;
    am_webhook_opts o;
    int stopping;         /* am_webhook_free: deliver what is queued, then end */
    int aborting;         /* its drain time is over: end now */
    int running;          /* threads not ended */
    am_webhook_stats st;
    uint64_t rng;         /* jitter (xorshift), under mu */
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

/* ------------------------------------------------------------ signing */

/* hex HMAC-SHA256(secret, ts "." body) into out (65 bytes); 0 or -1 */
static int sign(const char *secret, const char *ts, const char *body, char out[65])
{
    size_t tl = strlen(ts), bl = strlen(body);
    unsigned char *msg = malloc(tl + 1 + bl);
    if (!msg) return -1;
    memcpy(msg, ts, tl);
    msg[tl] = '.';
    memcpy(msg + tl + 1, body, bl);
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int mn = 0;
    int ok = HMAC(EVP_sha256(), secret, (int)strlen(secret), msg, tl + 1 + bl, mac, &mn) != NULL &&
             mn == 32;
    free(msg);
    if (!ok) return -1;
    for (unsigned i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", mac[i]);
    return 0;
}

/* ------------------------------------------------------------ one attempt */

static size_t discard(char *p, size_t size, size_t n, void *ctx)
{
    (void)p;
    (void)ctx;
    return size * n;
}

/* The HTTP status of one POST, or -1 (no answer: timeout, refused, ...). */
static long post_once(CURL *c, am_webhook *h, const char *url, const item *it)
{
    char ts[24], sig[65], hdr_ts[64], hdr_sig[96], hdr_id[80];
    snprintf(ts, sizeof ts, "%lld", (long long)time(NULL));
    if (sign(h->secret, ts, it->body, sig)) return -1;
    snprintf(hdr_ts, sizeof hdr_ts, "X-Agentmem-Timestamp: %s", ts);
    snprintf(hdr_sig, sizeof hdr_sig, "X-Agentmem-Signature: sha256=%s", sig);
    snprintf(hdr_id, sizeof hdr_id, "X-Agentmem-Delivery: %s", it->id);
    struct curl_slist *hs = NULL, *p;
    const char *lines[5] = {"Content-Type: application/json", hdr_ts, hdr_sig, hdr_id,
                            "Expect:"};
    for (size_t i = 0; i < 5; i++) {
        if (!(p = curl_slist_append(hs, lines[i]))) {
            curl_slist_free_all(hs);
            return -1;
        }
        hs = p;
    }
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, (const char *)it->body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(it->body));
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hs);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)h->o.timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)h->o.timeout_ms);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_USERAGENT, "agentmem-webhook/1");
    long status = -1;
    if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(hs);
    return status;
}

static int retryable(long status)
{
    return status < 0 || status >= 500 || status == 408 || status == 429;
}

/* ------------------------------------------------------------ the thread */

/* The wait before attempt n+1 (mu held): full jitter over the doubled
 * delay, at least half of it. */
static long backoff_ms(am_webhook *h, int n)
{
    long d = h->o.base_delay_ms;
    for (int i = 1; i < n && d < h->o.max_delay_ms; i++) d *= 2;
    if (d > h->o.max_delay_ms) d = h->o.max_delay_ms;
    h->rng ^= h->rng << 13;
    h->rng ^= h->rng >> 7;
    h->rng ^= h->rng << 17;
    return d / 2 + (long)(h->rng % (uint64_t)(d / 2 + 1));
}

/* Wait ms unless aborted (mu held); 1 when aborted. */
static int wait_ms(am_webhook *h, long ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    while (!h->aborting)
        if (pthread_cond_timedwait(&h->cv, &h->mu, &until) == ETIMEDOUT) break;
    return h->aborting;
}

/* One event to one URL, every attempt (mu held on entry and exit). */
static void deliver(target *t, CURL *c, const item *it)
{
    am_webhook *h = t->hook;
    for (int n = 1;; n++) {
        pthread_mutex_unlock(&h->mu);
        long status = c ? post_once(c, h, t->url, it) : -1;
        pthread_mutex_lock(&h->mu);
        if (status >= 200 && status < 300) {
            h->st.delivered++;
            return;
        }
        if (!retryable(status) || n >= h->o.max_attempts) {
            h->st.failed++;
            return;
        }
        if (wait_ms(h, backoff_ms(h, n))) {
            h->st.dropped++;
            return;
        }
        h->st.retries++;
    }
}

static void *run(void *arg)
{
    target *t = arg;
    am_webhook *h = t->hook;
    CURL *c = curl_easy_init();
    pthread_mutex_lock(&h->mu);
    for (;;) {
        while (!t->head && !h->stopping && !h->aborting) pthread_cond_wait(&h->cv, &h->mu);
        if (!t->head || h->aborting) break;
        item *it = t->head;
        t->head = it->next;
        if (!t->head) t->tail = NULL;
        t->n--;
        deliver(t, c, it);
        free(it);
    }
    for (item *it = t->head, *next; it; it = next) { /* left at an abort */
        next = it->next;
        free(it);
        h->st.dropped++;
    }
    t->head = t->tail = NULL;
    t->n = 0;
    h->running--;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    curl_easy_cleanup(c);
    return NULL;
}

/* ------------------------------------------------------------ the hook */

am_webhook *am_webhook_new(const char *urls, const char *secret)
{
    return am_webhook_new_opts(urls, secret, NULL, NULL);
}

static void hook_free_parts(am_webhook *h)
{
    for (size_t i = 0; i < h->nt; i++) free(h->t[i].url);
    free(h->t);
    if (h->secret) {
        memset(h->secret, 0, strlen(h->secret));
        free(h->secret);
    }
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
    free(h);
}

/* the URLs of a list into h->t; a reason, or NULL */
static const char *parse_urls(am_webhook *h, const char *urls)
{
    for (const char *p = urls; *p;) {
        size_t skip = strspn(p, ", \t\r\n"), n;
        p += skip;
        if (!*p) break;
        n = strcspn(p, ", \t\r\n");
        if (!(n > 7 && strncmp(p, "http://", 7) == 0) && !(n > 8 && strncmp(p, "https://", 8) == 0))
            return "webhook: every URL must start with http:// or https://";
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)p[i] < 0x21 || (unsigned char)p[i] == 0x7f)
                return "webhook: a URL holds a control character";
        target *nt = realloc(h->t, (h->nt + 1) * sizeof *nt);
        if (!nt) return "webhook: out of memory";
        h->t = nt;
        memset(&h->t[h->nt], 0, sizeof *h->t);
        if (!(h->t[h->nt].url = strndup(p, n))) return "webhook: out of memory";
        h->t[h->nt].hook = h;
        h->nt++;
        p += n;
    }
    return h->nt ? NULL : "webhook: no URL given";
}

am_webhook *am_webhook_new_opts(const char *urls, const char *secret,
                                const am_webhook_opts *opts, const char **err)
{
    const char *why = NULL;
    if (err) *err = NULL;
    if (!urls || !secret || !*secret) {
        if (err) *err = "webhook: URLs and a non-empty secret are required";
        return NULL;
    }
    am_webhook *h = calloc(1, sizeof *h);
    if (!h) {
        if (err) *err = "webhook: out of memory";
        return NULL;
    }
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    h->o = (am_webhook_opts){6, 500, 30000, 5000, 10000, 10000};
    if (opts) {
        if (opts->max_attempts > 0) h->o.max_attempts = opts->max_attempts;
        if (opts->base_delay_ms > 0) h->o.base_delay_ms = opts->base_delay_ms;
        if (opts->max_delay_ms > 0) h->o.max_delay_ms = opts->max_delay_ms;
        if (opts->timeout_ms > 0) h->o.timeout_ms = opts->timeout_ms;
        if (opts->queue_max > 0) h->o.queue_max = opts->queue_max;
        if (opts->drain_ms > 0) h->o.drain_ms = opts->drain_ms;
    }
    if (RAND_bytes((unsigned char *)&h->rng, sizeof h->rng) != 1 || !h->rng)
        h->rng = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull | 1;
    if (!(h->secret = strdup(secret))) why = "webhook: out of memory";
    if (!why) why = parse_urls(h, urls);
    pthread_once(&curl_once, curl_init);
    for (size_t i = 0; !why && i < h->nt; i++) {
        if (pthread_create(&h->t[i].thread, NULL, run, &h->t[i]) != 0) {
            why = "webhook: cannot start a thread";
            break;
        }
        h->t[i].started = 1;
        pthread_mutex_lock(&h->mu);
        h->running++;
        pthread_mutex_unlock(&h->mu);
    }
    if (why) {
        if (err) *err = why;
        am_webhook_free(h);
        return NULL;
    }
    return h;
}

int am_webhook_post(am_webhook *h, const char *json)
{
    if (!h || !json) return -1;
    size_t n = strlen(json);
    unsigned char rnd[16];
    if (RAND_bytes(rnd, sizeof rnd) != 1) return -1;
    item **made = calloc(h->nt ? h->nt : 1, sizeof *made);
    if (!made) return -1;
    for (size_t i = 0; i < h->nt; i++) {
        if (!(made[i] = malloc(sizeof *made[i] + n + 1))) {
            for (size_t k = 0; k < i; k++) free(made[k]);
            free(made);
            return -1;
        }
        made[i]->next = NULL;
        for (int b = 0; b < 16; b++) snprintf(made[i]->id + 2 * b, 3, "%02x", rnd[b]);
        memcpy(made[i]->body, json, n + 1);
    }
    pthread_mutex_lock(&h->mu);
    for (size_t i = 0; i < h->nt; i++) {
        target *t = &h->t[i];
        if (t->n >= h->o.queue_max && t->head) { /* full: the oldest goes */
            item *old = t->head;
            t->head = old->next;
            if (!t->head) t->tail = NULL;
            t->n--;
            free(old);
            h->st.dropped++;
        }
        if (t->tail) t->tail->next = made[i];
        else t->head = made[i];
        t->tail = made[i];
        t->n++;
    }
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    free(made);
    return 0;
}

void am_webhook_get_stats(am_webhook *h, am_webhook_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!h) return;
    pthread_mutex_lock(&h->mu);
    *out = h->st;
    pthread_mutex_unlock(&h->mu);
}

void am_webhook_free(am_webhook *h)
{
    if (!h) return;
    pthread_mutex_lock(&h->mu);
    h->stopping = 1;
    pthread_cond_broadcast(&h->cv);
    /* until every thread ended (each broadcasts) or the drain time is over */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += h->o.drain_ms / 1000;
    until.tv_nsec += (long)(h->o.drain_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    while (h->running && !h->aborting)
        if (pthread_cond_timedwait(&h->cv, &h->mu, &until) == ETIMEDOUT) h->aborting = 1;
    h->aborting = 1;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    for (size_t i = 0; i < h->nt; i++)
        if (h->t[i].started) pthread_join(h->t[i].thread, NULL);
    hook_free_parts(h);
}
