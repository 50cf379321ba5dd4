/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http.c -- one JSON POST endpoint over libcurl, with retries (http.h).
 */
#include "base/http.h"

#include "base/base.h"

#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_CONNECT_MS 5000L
#define DEFAULT_TIMEOUT_MS 30000L
#define DEFAULT_TRIES 3
#define DEFAULT_BACKOFF_MS 500L
#define DEFAULT_MAX_BACKOFF_MS 8000L
#define DEFAULT_MAX_RESPONSE ((size_t)64 << 20)
#define MAX_TRIES 10
#define MAX_SERVER_MSG 300 /* bytes of a server message kept in errors */
#define SLEEP_SLICE_MS 50L

#define fail am__errf /* base/base.h */

/* Copies s[0..n) into dst: control characters become spaces, cut at
 * MAX_SERVER_MSG bytes and at a UTF-8 character boundary. */
static void clean_message(const char *s, size_t n, char *dst, size_t dstlen)
{
    size_t o = 0, i = 0, limit = dstlen ? dstlen - 1 : 0;
    if (limit > MAX_SERVER_MSG) limit = MAX_SERVER_MSG;
    while (i < n) {
        uint32_t cp;
        int l = am__utf8_decode(s + i, n - i, &cp);
        char enc[4];
        int el = am__utf8_encode(cp < 0x20 || cp == 0x7F ? ' ' : cp, enc);
        if (o + (size_t)el > limit) break;
        memcpy(dst + o, enc, (size_t)el);
        o += (size_t)el;
        i += (size_t)l;
    }
    if (dstlen) dst[o] = '\0';
}

void am__http_server_message(const char *body, size_t len, char *dst, size_t dstlen)
{
    json_t *root = json_loadb(body ? body : "", len, 0, NULL);
    const char *m = NULL;
    json_t *e = json_object_get(root, "error");
    if (json_is_object(e)) m = json_string_value(json_object_get(e, "message"));
    if (!m) m = json_string_value(e);
    if (!m) m = json_string_value(json_object_get(root, "message"));
    if (!m) m = json_string_value(json_object_get(root, "detail"));
    if (m && *m) clean_message(m, strlen(m), dst, dstlen);
    else if (len) clean_message(body, len, dst, dstlen);
    else clean_message("(empty body)", 12, dst, dstlen);
    json_decref(root);
}

void am__http_json_text(am__buf *b, const char *text)
{
    size_t n = strlen(text), bad;
    if (am__utf8_valid(text, n, &bad)) {
        am__buf_json_str(b, text);
        return;
    }
    am__buf fixed;
    am__buf_init(&fixed, NULL);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        char enc[4];
        i += (size_t)am__utf8_decode(text + i, n - i, &cp);
        am__buf_add(&fixed, enc, (size_t)am__utf8_encode(cp, enc));
    }
    if (fixed.oom) b->oom = 1;
    else am__buf_json_str(b, fixed.p ? fixed.p : "");
    am__buf_free(&fixed);
}

static int cancelled(const am__http_opts *o)
{
    return o->cancelled && o->cancelled(o->cancel_ctx);
}

void am__http_sleep(long ms, const am__http_opts *o)
{
    while (ms > 0 && !(o && cancelled(o))) {
        long slice = ms < SLEEP_SLICE_MS ? ms : SLEEP_SLICE_MS;
        struct timespec ts = {slice / 1000, (slice % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
        ms -= slice;
    }
}

static size_t on_write(char *p, size_t size, size_t nmemb, void *ctx)
{
    am__http *h = ctx;
    size_t n = size * nmemb;
    if (n > h->opts.max_response - h->resp.len) {
        h->resp_too_big = 1;
        return 0; /* CURLE_WRITE_ERROR */
    }
    am__buf_add(&h->resp, p, n);
    return h->resp.oom ? 0 : n;
}

static int on_progress(void *ctx, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)dt, (void)dn, (void)ut, (void)un;
    return cancelled(&((am__http *)ctx)->opts); /* nonzero aborts */
}

/* Transport failures worth another try. */
static int transient_curl(CURLcode cc)
{
    switch (cc) {
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_PARTIAL_FILE:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return 1;
    default:
        return 0;
    }
}

static int status_rc(long status)
{
    if (status == 401 || status == 403) return AM_DENIED;
    if (status == 413) return AM_TOOBIG;
    return AM_BACKEND;
}

/* One POST.  *retry: another try may succeed; *retry_after_ms: the
 * server's Retry-After (0 if none). */
static int post_once(am__http *h, const char *body, size_t len, int *retry,
                     long *retry_after_ms, char *err, size_t errlen)
{
    CURL *c = h->curl;
    CURLcode cc;
    *retry = 0;
    *retry_after_ms = 0;
    h->status = 0;
    am__buf_reset(&h->resp);
    h->resp.oom = 0;
    h->resp_too_big = 0;
    h->curl_err[0] = '\0';
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    cc = curl_easy_perform(c);
    if (cc != CURLE_OK) {
        if (h->resp_too_big)
            return fail(err, errlen, AM_TOOBIG, "%s: response larger than %zu bytes", h->name,
                        h->opts.max_response);
        if (h->resp.oom || cc == CURLE_OUT_OF_MEMORY)
            return fail(err, errlen, AM_NOMEM, "%s: out of memory", h->name);
        if (cc == CURLE_ABORTED_BY_CALLBACK)
            return fail(err, errlen, AM_IO, "%s: POST %s: cancelled", h->name, h->url);
        *retry = transient_curl(cc);
        return fail(err, errlen, AM_IO, "%s: POST %s: %s%s%s", h->name, h->url,
                    curl_easy_strerror(cc), h->curl_err[0] ? ": " : "", h->curl_err);
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &h->status);
    if (h->status >= 200 && h->status < 300) return AM_OK;
    *retry = h->status == 429 || h->status >= 500;
#if LIBCURL_VERSION_NUM >= 0x074200
    {
        curl_off_t ra = 0;
        if (curl_easy_getinfo(c, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0)
            *retry_after_ms = ra > 86400 ? 86400000L : (long)ra * 1000L;
    }
#endif
    char msg[MAX_SERVER_MSG + 1];
    am__http_server_message(h->resp.p, h->resp.len, msg, sizeof msg);
    return fail(err, errlen, status_rc(h->status), "%s: HTTP %ld: %s", h->name, h->status, msg);
}

int am__http_post(am__http *h, const char *body, size_t len, char *err, size_t errlen)
{
    long delay = h->opts.backoff_ms;
    h->tries = 0;
    for (int attempt = 1;; attempt++) {
        int retry;
        long retry_after;
        h->tries = attempt;
        int rc = post_once(h, body, len, &retry, &retry_after, err, errlen);
        if (rc == AM_OK) return AM_OK;
        if (!retry || attempt >= h->opts.max_tries || cancelled(&h->opts)) {
            if (retry && err && errlen) {
                size_t l = strlen(err);
                snprintf(err + l, errlen - l, " (gave up after %d tries)", attempt);
            }
            return rc;
        }
        long wait = retry_after > delay ? retry_after : delay;
        am__http_sleep(wait < h->opts.max_backoff_ms ? wait : h->opts.max_backoff_ms, &h->opts);
        delay = delay > h->opts.max_backoff_ms / 2 ? h->opts.max_backoff_ms : delay * 2;
    }
}

static void wipe(char *s)
{
    if (!s) return;
    volatile char *p = s;
    while (*p) *p++ = 0;
}

void am__http_close(am__http *h)
{
    if (!h) return;
    if (h->curl) curl_easy_cleanup(h->curl);
    for (struct curl_slist *l = h->headers; l; l = l->next) wipe(l->data);
    curl_slist_free_all(h->headers);
    wipe(h->auth);
    am__free(h->opts.alloc, h->auth);
    am__free(h->opts.alloc, h->url);
    am__buf_free(&h->resp);
    memset(h, 0, sizeof *h);
}

static int resolve_opts(const am__http_opts *in, am__http_opts *o)
{
    am__http_opts z;
    memset(&z, 0, sizeof z);
    if (!in) in = &z;
    if (in->connect_timeout_ms < 0 || in->timeout_ms < 0 || in->max_tries < 0 ||
        in->max_tries > MAX_TRIES || in->backoff_ms < 0 || in->max_backoff_ms < 0)
        return AM_MISUSE;
    *o = *in;
    if (!o->connect_timeout_ms) o->connect_timeout_ms = DEFAULT_CONNECT_MS;
    if (!o->timeout_ms) o->timeout_ms = DEFAULT_TIMEOUT_MS;
    if (!o->max_tries) o->max_tries = DEFAULT_TRIES;
    if (!o->backoff_ms) o->backoff_ms = DEFAULT_BACKOFF_MS;
    if (!o->max_backoff_ms) o->max_backoff_ms = DEFAULT_MAX_BACKOFF_MS;
    if (!o->max_response) o->max_response = DEFAULT_MAX_RESPONSE;
    return AM_OK;
}

/* 1 when url parses as an http(s) URL. */
static int http_url(const char *url)
{
    CURLU *u = curl_url();
    char *scheme = NULL;
    int ok = u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
             curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
             (strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0);
    curl_free(scheme);
    curl_url_cleanup(u);
    return ok;
}

int am__http_open(am__http *h, const char *name, const char *url, const char *api_key,
                  const am__http_opts *opts, char *err, size_t errlen)
{
    static const char *const fixed[] = {"Content-Type: application/json",
                                        "Accept: application/json", "Expect:"};
    memset(h, 0, sizeof *h);
    h->name = name ? name : "http";
    if (resolve_opts(opts, &h->opts)) {
        am__buf_init(&h->resp, NULL);
        return fail(err, errlen, AM_MISUSE, "%s: option out of range", h->name);
    }
    const am__allocator *al = h->opts.alloc;
    am__buf_init(&h->resp, al);
    if (!url || !http_url(url))
        return fail(err, errlen, AM_MISUSE, "%s: \"%.200s\" is not an http(s) URL", h->name,
                    url ? url : "");
    if (api_key && (strchr(api_key, '\r') || strchr(api_key, '\n')))
        return fail(err, errlen, AM_MISUSE, "%s: the API key contains a line break", h->name);
    if (!(h->url = am__strdup(al, url))) goto nomem;
    if (api_key && *api_key) {
        am__buf a;
        am__buf_init(&a, al);
        am__buf_printf(&a, "Authorization: Bearer %s", api_key);
        if (!(h->auth = am__buf_take(&a))) goto nomem;
    }
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
        struct curl_slist *t = curl_slist_append(h->headers, fixed[i]);
        if (!t) goto nomem;
        h->headers = t;
    }
    if (h->auth) {
        struct curl_slist *t = curl_slist_append(h->headers, h->auth);
        if (!t) goto nomem;
        h->headers = t;
    }
    CURL *c = h->curl = curl_easy_init();
    if (!c || curl_easy_setopt(c, CURLOPT_URL, h->url) != CURLE_OK) goto nomem;
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h->headers);
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, h);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, h->curl_err);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, h->opts.connect_timeout_ms);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, h->opts.timeout_ms);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "agentmem/" AM_VERSION_STRING);
    curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
    if (h->opts.cancelled) {
        curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(c, CURLOPT_XFERINFODATA, h);
        curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    }
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
    return AM_OK;
nomem:
    am__http_close(h);
    return fail(err, errlen, AM_NOMEM, "%s: out of memory", name ? name : "http");
}
