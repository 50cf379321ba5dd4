/* SPDX-License-Identifier: Apache-2.0 */
/*
 * openai.c -- embedder for any OpenAI-compatible POST /v1/embeddings
 * endpoint (OpenAI, Ollama, vLLM, TEI, DashScope ...), over libcurl.
 *
 * Design: open() resolves the endpoint URL, builds the id
 * "openai:<model>@<host>[:port]" and one curl easy handle with every
 * constant option set (timeouts, headers, protocols), so embed() only swaps
 * the request body.  embed() cuts the texts into batches of at most
 * max_batch, sends {"model":..., "input":[...]} and parses
 * {"data":[{"embedding":[...],"index":i}, ...]} straight into the caller's
 * buffer in index order, L2-normalising each vector.  The POST, its
 * retries (429, 5xx, transport failures, with exponential backoff) and the
 * messages naming the HTTP status are base/http.c's.
 *
 * No global state: curl_easy_init() initialises libcurl lazily (see the
 * thread note in embed.h).  Nothing is printed; the key never appears in an
 * error message.
 */
#include <curl/curl.h>
#include <errno.h>
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "base/http.h"
#include "embed/embed.h"

#define DEFAULT_CONNECT_MS 5000L
#define DEFAULT_TIMEOUT_MS 30000L
#define DEFAULT_TRIES 3
#define DEFAULT_BACKOFF_MS 500L
#define DEFAULT_MAX_BACKOFF_MS 8000L
#define DEFAULT_BATCH 64
#define MAX_BATCH 2048
#define MAX_TRIES 10
#define MAX_SERVER_MSG 300 /* bytes of a server message kept in errors */
#define PROBE_TEXT "dimension probe"

#define fail am__embed_fail /* embed.h: message into err, return rc */

typedef struct openai_embedder {
    am__embedder base;          /* first: the vtable the engine sees */
    char *id;                   /* base.id points here */
    char *url;                  /* the full endpoint */
    char *model;
    am__openai_opts opts;       /* with defaults resolved */
    am__http http;              /* the endpoint (base/http.h) */
    am__buf body;               /* request scratch */
    am__allocator alloc;        /* the handle's: id, url, model, body, o */
} openai_embedder;

static int openai_embed(am__embedder *e, const char *const *texts, size_t n,
                        float *out, char *err, size_t errlen);

/* ---- response parsing ---------------------------------------------------- */

/* Scales v to unit length; a zero vector stays zero.  (Components are
 * finite floats, so the sum of squares in double cannot overflow.) */
static void l2_normalise(float *v, size_t dim)
{
    double ss = 0;
    for (size_t k = 0; k < dim; k++) ss += (double)v[k] * v[k];
    if (ss > 0) {
        double inv = 1.0 / sqrt(ss);
        for (size_t k = 0; k < dim; k++) v[k] = (float)(v[k] * inv);
    }
}

/* Checks one data item and copies its embedding into out (when non-NULL).
 * *dim is learnt from the first item when 0. */
static int parse_item(json_t *item, size_t pos, int expect_n,
                      unsigned char *seen, int *dim, float *out, char *err,
                      size_t errlen)
{
    json_t *emb = json_object_get(item, "embedding");
    json_t *jidx = json_object_get(item, "index");
    json_int_t idx = (json_int_t)pos;
    size_t len;

    if (!json_is_object(item) || !json_is_array(emb))
        return fail(err, errlen, AM_BACKEND,
                    "data[%zu] has no \"embedding\" array", pos);
    if (jidx) {
        if (!json_is_integer(jidx))
            return fail(err, errlen, AM_BACKEND,
                        "data[%zu].index is not an integer", pos);
        idx = json_integer_value(jidx);
    }
    if (idx < 0 || idx >= expect_n)
        return fail(err, errlen, AM_BACKEND,
                    "data[%zu].index %lld is out of range for %d inputs", pos,
                    (long long)idx, expect_n);
    if (seen[idx])
        return fail(err, errlen, AM_BACKEND, "index %lld appears twice",
                    (long long)idx);
    seen[idx] = 1;
    len = json_array_size(emb);
    if (len == 0 || len > AM__OPENAI_MAX_DIM)
        return fail(err, errlen, AM_BACKEND,
                    "data[%zu].embedding has %zu values", pos, len);
    if (*dim == 0) *dim = (int)len;
    if (len != (size_t)*dim)
        return fail(err, errlen, AM_BACKEND,
                    "dimension mismatch: data[%zu].embedding has %zu values, "
                    "expected %d",
                    pos, len, *dim);
    float *v = out ? out + (size_t)idx * len : NULL;
    for (size_t k = 0; k < len; k++) {
        json_t *x = json_array_get(emb, k);
        double d = json_number_value(x);
        if (!json_is_number(x) || !(fabs(d) <= FLT_MAX))
            return fail(err, errlen, AM_BACKEND,
                        "data[%zu].embedding[%zu] is not a finite float", pos, k);
        if (v) v[k] = (float)d;
    }
    if (v) l2_normalise(v, len);
    return AM_OK;
}

static int parse_root(const am__allocator *a, json_t *root, const char *body, size_t len,
                      int expect_n, int *dim, float *out, char *err, size_t errlen)
{
    json_t *data = json_object_get(root, "data");
    unsigned char *seen;
    int rc = AM_OK;

    if (!json_is_object(root))
        return fail(err, errlen, AM_BACKEND, "response is not a JSON object");
    if (!data && json_object_get(root, "error")) {
        char msg[MAX_SERVER_MSG + 1];
        am__http_server_message(body, len, msg, sizeof msg);
        return fail(err, errlen, AM_BACKEND, "server error: %s", msg);
    }
    if (!json_is_array(data))
        return fail(err, errlen, AM_BACKEND, "response has no \"data\" array");
    if (json_array_size(data) != (size_t)expect_n)
        return fail(err, errlen, AM_BACKEND,
                    "response has %zu embeddings for %d inputs",
                    json_array_size(data), expect_n);
    seen = am__calloc(a, (size_t)expect_n + 1);
    if (!seen) return fail(err, errlen, AM_NOMEM, "out of memory");
    for (size_t i = 0; rc == AM_OK && i < (size_t)expect_n; i++)
        rc = parse_item(json_array_get(data, i), i, expect_n, seen, dim, out,
                        err, errlen);
    am__free(a, seen);
    return rc;
}

/* am__openai_parse_response with its scratch from allocator a. */
static int parse_response(const am__allocator *a, const char *body, size_t len, int expect_n,
                          int *dim, float *out, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *root;
    int rc, d;

    if (err && errlen) err[0] = '\0';
    if ((!body && len) || !dim || expect_n < 0 || *dim < 0 ||
        *dim > AM__OPENAI_MAX_DIM || (out && *dim == 0))
        return fail(err, errlen, AM_MISUSE, "parse_response: bad arguments");
    root = json_loadb(body ? body : "", len, 0, &jerr);
    if (!root)
        return fail(err, errlen, AM_BACKEND,
                    "malformed JSON response (line %d: %s)", jerr.line,
                    jerr.text);
    d = *dim;
    rc = parse_root(a, root, body, len, expect_n, &d, out, err, errlen);
    json_decref(root);
    if (rc == AM_OK) *dim = d;
    return rc;
}

int am__openai_parse_response(const char *body, size_t len, int expect_n,
                              int *dim, float *out, char *err, size_t errlen)
{
    return parse_response(NULL, body, len, expect_n, dim, out, err, errlen);
}

/* Embeds texts[0..k) with one request (with retries).  out: k * base.dim
 * floats, or NULL to only learn base.dim (the probe). */
static int embed_batch(openai_embedder *o, const char *const *texts, size_t k,
                       float *out, char *err, size_t errlen)
{
    char why[512];
    int dim = o->base.dim, rc;

    am__buf_reset(&o->body);
    o->body.oom = 0;
    am__buf_adds(&o->body, "{\"model\":");
    am__buf_json_str(&o->body, o->model);
    am__buf_adds(&o->body, ",\"input\":[");
    for (size_t i = 0; i < k; i++) {
        if (i) am__buf_addc(&o->body, ',');
        am__http_json_text(&o->body, texts[i]);
    }
    am__buf_adds(&o->body, "]}");
    if (o->body.oom)
        return fail(err, errlen, AM_NOMEM, "%s: out of memory", o->base.id);

    rc = am__http_post(&o->http, o->body.p, o->body.len, err, errlen);
    if (rc) return rc;
    rc = parse_response(&o->alloc, o->http.resp.p, o->http.resp.len, (int)k, &dim, out,
                        why, sizeof why);
    if (rc)
        return fail(err, errlen, rc, "%s: POST %s: %s", o->base.id, o->url,
                    why);
    if (o->base.dim == 0) o->base.dim = dim;
    return AM_OK;
}

static int openai_embed(am__embedder *e, const char *const *texts, size_t n,
                        float *out, char *err, size_t errlen)
{
    openai_embedder *o = (openai_embedder *)e;
    if (err && errlen) err[0] = '\0';
    if (!e || e->embed != openai_embed || (n && (!texts || !out)))
        return fail(err, errlen, AM_MISUSE, "openai: embed: bad arguments");
    for (size_t i = 0; i < n; i++)
        if (!texts[i])
            return fail(err, errlen, AM_MISUSE,
                        "%s: embed: texts[%zu] is NULL", e->id, i);
    for (size_t i = 0; i < n;) {
        size_t k = n - i < (size_t)o->opts.max_batch ? n - i
                                                     : (size_t)o->opts.max_batch;
        int rc = embed_batch(o, texts + i, k, out + i * (size_t)e->dim, err,
                             errlen);
        if (rc) return rc;
        i += k;
    }
    return AM_OK;
}

/* ---- open / close -------------------------------------------------------- */

static void openai_close(am__embedder *e)
{
    openai_embedder *o = (openai_embedder *)e;
    if (!o) return;
    am__http_close(&o->http);
    am__free(&o->alloc, o->id);
    am__free(&o->alloc, o->url);
    am__free(&o->alloc, o->model);
    am__buf_free(&o->body);
    am__allocator alloc = o->alloc;
    am__free(&alloc, o);
}

/* 1 if the URL path (after scheme://authority) ends in a version segment
 * like "/v1" or "/v3". */
static int ends_in_version(const char *url, size_t n)
{
    size_t i = n;
    while (i > 0 && url[i - 1] >= '0' && url[i - 1] <= '9') i--;
    return i < n && i >= 2 && url[i - 1] == 'v' && url[i - 2] == '/';
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* The endpoint URL for base_url (see embed.h), from allocator a, or NULL. */
static char *endpoint_url(const am__allocator *a, const char *base_url)
{
    size_t n = strlen(base_url);
    am__buf b;
    while (n > 0 && base_url[n - 1] == '/') n--;
    am__buf_init(&b, a);
    am__buf_add(&b, base_url, n);
    if (!ends_with(base_url, n, "/embeddings"))
        am__buf_adds(&b, ends_in_version(base_url, n) ? "/embeddings"
                                                      : "/v1/embeddings");
    return am__buf_take(&b);
}

/* Checks the endpoint with libcurl's URL parser and builds the id. */
static int make_id(openai_embedder *o, char *err, size_t errlen)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL;
    int rc = AM_OK;
    am__buf id;

    if (!u) return fail(err, errlen, AM_NOMEM, "openai: out of memory");
    if (curl_url_set(u, CURLUPART_URL, o->url, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
        (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0)) {
        rc = fail(err, errlen, AM_MISUSE,
                  "openai: open: \"%s\" is not an http(s) URL", o->url);
        goto out;
    }
    /* the port only when it is not the scheme's default (:443 = none) */
    if (curl_url_get(u, CURLUPART_PORT, &port, CURLU_NO_DEFAULT_PORT) !=
        CURLUE_OK)
        port = NULL;
    for (char *h = host; *h; h++) /* host names are case-insensitive */
        if (*h >= 'A' && *h <= 'Z') *h = (char)(*h - 'A' + 'a');
    am__buf_init(&id, &o->alloc);
    am__buf_printf(&id, "openai:%s@%s%s%s", o->model, host, port ? ":" : "",
                   port ? port : "");
    o->id = am__buf_take(&id);
    if (!o->id) rc = fail(err, errlen, AM_NOMEM, "openai: out of memory");
out:
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    return rc;
}

static int resolve_opts(const am__openai_opts *in, am__openai_opts *o,
                        char *err, size_t errlen)
{
    am__openai_opts z;
    memset(&z, 0, sizeof z);
    if (!in) in = &z;
    if (in->connect_timeout_ms < 0 || in->timeout_ms < 0 || in->max_tries < 0 ||
        in->max_tries > MAX_TRIES || in->backoff_ms < 0 ||
        in->max_backoff_ms < 0 || in->max_batch < 0 || in->max_batch > MAX_BATCH)
        return fail(err, errlen, AM_MISUSE, "openai: open: option out of range");
    o->connect_timeout_ms = in->connect_timeout_ms ? in->connect_timeout_ms
                                                   : DEFAULT_CONNECT_MS;
    o->timeout_ms = in->timeout_ms ? in->timeout_ms : DEFAULT_TIMEOUT_MS;
    o->max_tries = in->max_tries ? in->max_tries : DEFAULT_TRIES;
    o->backoff_ms = in->backoff_ms ? in->backoff_ms : DEFAULT_BACKOFF_MS;
    o->max_backoff_ms = in->max_backoff_ms ? in->max_backoff_ms
                                           : DEFAULT_MAX_BACKOFF_MS;
    o->max_batch = in->max_batch ? in->max_batch : DEFAULT_BATCH;
    return AM_OK;
}

int am__embed_openai_open_alloc(const am__allocator *a, const char *base_url,
                                const char *model, const char *api_key, int dim,
                                const am__openai_opts *opts, am__embedder **out,
                                char *err, size_t errlen)
{
    openai_embedder *o;
    size_t bad;
    int rc;

    if (out) *out = NULL;
    if (err && errlen) err[0] = '\0';
    if (!base_url || !model || !*model || !out || dim < 0 ||
        dim > AM__OPENAI_MAX_DIM)
        return fail(err, errlen, AM_MISUSE, "openai: open: bad arguments");
    if (!am__utf8_valid(model, strlen(model), &bad))
        return fail(err, errlen, AM_MISUSE,
                    "openai: open: model is not valid UTF-8");
    if (api_key && (strchr(api_key, '\r') || strchr(api_key, '\n')))
        return fail(err, errlen, AM_MISUSE,
                    "openai: open: api_key contains a line break");
    o = am__calloc(a, sizeof *o);
    if (!o) return fail(err, errlen, AM_NOMEM, "openai: out of memory");
    if (a) o->alloc = *a;
    o->base.dim = dim;
    o->base.embed = openai_embed;
    o->base.close = openai_close;
    am__buf_init(&o->body, &o->alloc);
    rc = resolve_opts(opts, &o->opts, err, errlen);
    if (rc) goto out_close;
    o->url = endpoint_url(&o->alloc, base_url);
    o->model = am__strdup(&o->alloc, model);
    if (!o->url || !o->model) goto nomem;
    rc = make_id(o, err, errlen);
    if (rc) goto out_close;
    o->base.id = o->id;
    {
        am__http_opts ho;
        memset(&ho, 0, sizeof ho);
        ho.connect_timeout_ms = o->opts.connect_timeout_ms;
        ho.timeout_ms = o->opts.timeout_ms;
        ho.max_tries = o->opts.max_tries;
        ho.backoff_ms = o->opts.backoff_ms;
        ho.max_backoff_ms = o->opts.max_backoff_ms;
        ho.max_response = AM__OPENAI_MAX_RESPONSE;
        ho.alloc = &o->alloc;
        rc = am__http_open(&o->http, o->id, o->url, api_key, &ho, err, errlen);
        if (rc) goto out_close;
    }
    if (dim == 0) { /* learn the dimension now: callers size buffers by it */
        const char *probe = PROBE_TEXT;
        rc = embed_batch(o, &probe, 1, NULL, err, errlen);
        if (rc) goto out_close;
    }
    *out = &o->base;
    return AM_OK;
nomem:
    rc = fail(err, errlen, AM_NOMEM, "openai: out of memory");
out_close:
    openai_close(&o->base);
    return rc;
}

int am__embed_openai_open_opts(const char *base_url, const char *model,
                               const char *api_key, int dim,
                               const am__openai_opts *opts, am__embedder **out,
                               char *err, size_t errlen)
{
    return am__embed_openai_open_alloc(NULL, base_url, model, api_key, dim, opts, out, err,
                                       errlen);
}

int am__embed_openai_open(const char *base_url, const char *model,
                          const char *api_key, int dim, am__embedder **out,
                          char *err, size_t errlen)
{
    return am__embed_openai_open_opts(base_url, model, api_key, dim, NULL, out,
                                      err, errlen);
}
