/* SPDX-License-Identifier: Apache-2.0 */
/*
 * llm.c -- the LLM pass's client: the chat completions request, the reply's
 * checks, the per-user budget (llm.h).
 */
#include "lifecycle/llm.h"

#include "base/base.h"

#include <curl/curl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUDGET_USERS 4096
#define DAY_MS 86400000LL

typedef am__llm_budget budget;

struct am__llm {
    const am__allocator *a; /* every block below; NULL: libc */
    char *id, *model, *url;
    char *key;
    budget *b;
    size_t nb;
};

static const char *const kinds[] = {"preference", "constraint", "profile", "fact",
                                    "task_conclusion", "one_off", NULL};

/* The contract any server answers (docs/LLM.md). */
static const char system_prompt[] =
    "You read a user's messages to an assistant and extract what is worth remembering "
    "about the user for later conversations. Answer with one JSON object and nothing "
    "else: {\"memories\": [{\"kind\": K, \"text\": T, \"key\": A, \"confidence\": C, "
    "\"source_event_ids\": [IDS]}]}. K is one of preference, constraint, profile, fact, "
    "task_conclusion, one_off (a request for this time only, not lasting). T is one short "
    "statement about the user in the language of the messages. A (optional) names the "
    "attribute, like \"preference.format\" or \"profile.city\". C (optional) is your "
    "confidence from 0 to 1. IDS are the ids of the events the memory comes from; cite "
    "only ids given. Nothing lasting: {\"memories\": []}.";

int am__llm_kind_ok(const char *kind)
{
    for (size_t i = 0; kind && kinds[i]; i++)
        if (strcmp(kind, kinds[i]) == 0) return 1;
    return 0;
}

#define fail am__errf /* base/base.h */

/* ------------------------------------------------------------ open */

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

int am__llm_open(const char *spec, const char *key, am__llm **out, char *err, size_t errlen)
{
    *out = NULL;
    const char *at = spec && strncmp(spec, "openai:", 7) == 0 ? strchr(spec + 7, '@') : NULL;
    if (!at || at == spec + 7 || !at[1])
        return fail(err, errlen, AM_INVALID,
                    "\"%.100s\" is not openai:MODEL@BASE_URL (e.g. "
                    "openai:qwen2.5@http://127.0.0.1:8080/v1)",
                    spec ? spec : "");
    size_t bad;
    if (!am__utf8_valid(spec, strlen(spec), &bad))
        return fail(err, errlen, AM_INVALID, "the model name is not valid UTF-8");
    if (key && (strchr(key, '\r') || strchr(key, '\n')))
        return fail(err, errlen, AM_INVALID, "the key contains a line break");
    const am__allocator *a = NULL; /* the client's blocks: libc's */
    am__llm *l = am__calloc(a, sizeof *l);
    if (!l) return fail(err, errlen, AM_NOMEM, "out of memory");
    l->a = a;
    const char *base = at + 1;
    size_t n = strlen(base);
    while (n > 0 && base[n - 1] == '/') n--;
    am__buf u, id;
    am__buf_init(&u, l->a);
    am__buf_add(&u, base, n);
    if (!ends_with(base, n, "/chat/completions")) am__buf_adds(&u, "/chat/completions");
    l->url = am__buf_take(&u);
    l->model = am__strndup(l->a, spec + 7, (size_t)(at - spec - 7));
    l->key = key && *key ? am__strdup(l->a, key) : NULL;
    if (!l->url || !l->model || (key && *key && !l->key)) goto nomem;
    /* the id names the host, never a path or credentials */
    CURLU *cu = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL;
    int ok = cu && curl_url_set(cu, CURLUPART_URL, l->url, 0) == CURLUE_OK &&
             curl_url_get(cu, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
             curl_url_get(cu, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
             (strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0);
    if (ok && curl_url_get(cu, CURLUPART_PORT, &port, CURLU_NO_DEFAULT_PORT) != CURLUE_OK)
        port = NULL;
    am__buf_init(&id, l->a);
    if (ok)
        am__buf_printf(&id, "openai:%s@%s%s%s", l->model, host, port ? ":" : "",
                       port ? port : "");
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(cu);
    if (!ok) {
        am__buf_free(&id);
        am__llm_close(l);
        return fail(err, errlen, AM_INVALID, "BASE_URL \"%.200s\" is not an http(s) URL", base);
    }
    if (!(l->id = am__buf_take(&id))) goto nomem;
    *out = l;
    return AM_OK;
nomem:
    am__llm_close(l);
    return fail(err, errlen, AM_NOMEM, "out of memory");
}

void am__llm_close(am__llm *l)
{
    if (!l) return;
    if (l->key) {
        volatile char *p = l->key;
        while (*p) *p++ = 0;
    }
    const am__allocator *a = l->a;
    am__free(a, l->key);
    am__free(a, l->id);
    am__free(a, l->model);
    am__free(a, l->url);
    am__free(a, l->b);
    am__free(a, l);
}

const char *am__llm_id(const am__llm *l) { return l ? l->id : NULL; }

/* ------------------------------------------------------------ budget */

am__llm_budget *am__llm_budget_get(am__llm *l, const char *uid, int64_t now_ms)
{
    int64_t day = now_ms >= 0 ? now_ms / DAY_MS : (now_ms - DAY_MS + 1) / DAY_MS;
    budget *oldest = NULL;
    for (size_t i = 0; i < l->nb; i++) {
        if (strcmp(l->b[i].uid, uid) == 0) {
            if (l->b[i].day != day) {
                l->b[i].day = day;
                l->b[i].seq = 0;
                l->b[i].calls = l->b[i].tokens = 0;
            }
            return &l->b[i];
        }
        if (!oldest || l->b[i].day < oldest->day) oldest = &l->b[i];
    }
    budget *e;
    if (l->nb < BUDGET_USERS) {
        if (!l->b && !(l->b = am__calloc(l->a, BUDGET_USERS * sizeof *l->b))) return NULL;
        e = &l->b[l->nb++];
    } else {
        e = oldest;
    }
    memset(e, 0, sizeof *e);
    snprintf(e->uid, sizeof e->uid, "%s", uid);
    e->day = day;
    return e;
}

/* The number after "name": in a flat JSON object of counts; 0 if none. */
static long detail_count(const char *detail, const char *name)
{
    const char *p = detail ? strstr(detail, name) : NULL;
    if (!p) return 0;
    p += strlen(name);
    long v = strtol(p, NULL, 10);
    return v > 0 ? v : 0;
}

void am__llm_budget_add(am__llm_budget *b, int64_t seq, int64_t at_ms, const char *op,
                        const char *detail)
{
    if (seq > b->seq) b->seq = seq;
    if (!op || strcmp(op, "llm.pass") != 0) return;
    if (at_ms < b->day * DAY_MS || at_ms >= (b->day + 1) * DAY_MS) return;
    b->calls += detail_count(detail, "\"calls\":");
    b->tokens += detail_count(detail, "\"tokens\":");
}

int am__llm_budget_ok(const am__llm_budget *b, long max_calls, long max_tokens)
{
    return (!max_calls || b->calls < max_calls) && (!max_tokens || b->tokens < max_tokens);
}

void am__llm_budget_forget(am__llm *l, const char *uid)
{
    for (size_t i = 0; l && i < l->nb; i++)
        if (strcmp(l->b[i].uid, uid) == 0) {
            l->b[i] = l->b[--l->nb];
            return;
        }
}

/* ------------------------------------------------------------ reply */

/* A proposal's string member within max bytes, copied; NULL when absent,
 * not a string, empty or too long. */
static const char *member(json_t *o, const char *name, size_t max, am__arena *ar, int *nomem)
{
    json_t *v = json_object_get(o, name);
    const char *s = json_string_value(v);
    size_t n = s ? json_string_length(v) : 0;
    if (!s || n == 0 || n > max || strlen(s) != n) return NULL;
    const char *c = am__arena_strndup(ar, s, n);
    if (!c) *nomem = 1;
    return c;
}

static int parse_memories(json_t *mem, am__arena *ar, am__llm_reply *out)
{
    size_t n = json_array_size(mem);
    if (n > AM__LLM_MAX_PROPOSALS) {
        out->dropped += (long)(n - AM__LLM_MAX_PROPOSALS);
        n = AM__LLM_MAX_PROPOSALS;
    }
    out->p = n ? am__arena_alloc(ar, n * sizeof *out->p) : NULL;
    if (n && !out->p) return AM_NOMEM;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(mem, i);
        am__llm_proposal *p = &out->p[out->n];
        int nomem = 0;
        memset(p, 0, sizeof *p);
        p->kind = member(o, "kind", 32, ar, &nomem);
        p->text = member(o, "text", AM__LLM_MAX_TEXT, ar, &nomem);
        p->key = member(o, "key", AM__LLM_MAX_KEY, ar, &nomem);
        if (nomem) return AM_NOMEM;
        json_t *c = json_object_get(o, "confidence");
        p->confidence = json_is_number(c) ? json_number_value(c) : -1;
        if (p->confidence > 1 || (p->confidence < 0 && p->confidence != -1)) p->confidence = -1;
        json_t *ids = json_object_get(o, "source_event_ids");
        for (size_t k = 0; k < json_array_size(ids) && p->n_ids < AM__LLM_MAX_IDS; k++) {
            const char *id = json_string_value(json_array_get(ids, k));
            if (id && strlen(id) <= AM_ID_MAX && (p->ids[p->n_ids] = am__arena_strdup(ar, id)))
                p->n_ids++;
        }
        size_t bad;
        if (!json_is_object(o) || !am__llm_kind_ok(p->kind) || !p->text ||
            !am__utf8_valid(p->text, strlen(p->text), &bad)) {
            out->dropped++;
            continue;
        }
        out->n++;
    }
    return AM_OK;
}

int am__llm_parse(const char *body, size_t len, am__arena *ar, am__llm_reply *out, char *err,
                  size_t errlen)
{
    out->p = NULL;
    out->n = 0;
    out->dropped = 0;
    out->refused = 0;
    json_t *root = json_loadb(body ? body : "", len, 0, NULL);
    json_t *msg = json_object_get(json_array_get(json_object_get(root, "choices"), 0), "message");
    json_t *usage = json_object_get(json_object_get(root, "usage"), "total_tokens");
    int rc = AM_OK;
    if (json_is_integer(usage) && json_integer_value(usage) >= 0)
        out->tokens = (long)json_integer_value(usage);
    if (!json_is_object(msg)) {
        rc = fail(err, errlen, AM_BACKEND, "the reply has no choices[0].message");
        goto out;
    }
    const char *refusal = json_string_value(json_object_get(msg, "refusal"));
    json_t *cv = json_object_get(msg, "content");
    const char *content = json_string_value(cv);
    if (refusal && *refusal) {
        out->refused = 1;
        rc = fail(err, errlen, AM_BACKEND, "the model refused (a refusal field)");
        goto out;
    }
    if (!content) {
        rc = fail(err, errlen, AM_BACKEND, "the reply's message has no content");
        goto out;
    }
    /* a model may wrap its JSON in a code fence: the outermost braces */
    size_t cl = json_string_length(cv);
    const char *a = memchr(content, '{', cl), *z = NULL;
    for (size_t i = cl; a && i > 0; i--)
        if (content[i - 1] == '}') {
            z = content + i;
            break;
        }
    json_t *doc = a && z && z > a ? json_loadb(a, (size_t)(z - a), 0, NULL) : NULL;
    json_t *mem = json_object_get(doc, "memories");
    if (!doc) {
        out->refused = 1;
        rc = fail(err, errlen, AM_BACKEND, "the content is not a JSON object (%zu bytes)", cl);
    } else if (!json_is_array(mem)) {
        rc = fail(err, errlen, AM_BACKEND, "the content has no \"memories\" array");
    } else if ((rc = parse_memories(mem, ar, out))) {
        fail(err, errlen, rc, "out of memory");
    }
    json_decref(doc);
out:
    json_decref(root);
    return rc;
}

/* ------------------------------------------------------------ ask */

int am__llm_ask(am__llm *l, const am__llm_event *evs, size_t n, const am__http_opts *o,
                am__arena *ar, am__llm_reply *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    json_t *list = json_array(), *req = NULL;
    for (size_t i = 0; list && i < n; i++)
        json_array_append_new(list, json_pack("{s:s, s:s, s:s}", "id", evs[i].id, "time",
                                              evs[i].time, "text", evs[i].text));
    json_t *doc = list ? json_pack("{s:o}", "events", list) : NULL;
    char *user = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    if (user)
        req = json_pack("{s:s, s:[{s:s, s:s}, {s:s, s:s}], s:{s:s}, s:f, s:b}", "model", l->model,
                        "messages", "role", "system", "content", system_prompt, "role", "user",
                        "content", user, "response_format", "type", "json_object",
                        "temperature", 0.0, "stream", 0);
    char *body = req ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    size_t blen = body ? strlen(body) : 0;
    free(user);
    if (!body) return fail(err, errlen, AM_NOMEM, "%s: out of memory", l->id);

    am__http h;
    am__http_opts ho;
    memset(&ho, 0, sizeof ho);
    if (o) ho = *o;
    ho.max_response = AM__LLM_MAX_RESPONSE;
    ho.alloc = l->a;
    int rc = am__http_open(&h, l->id, l->url, l->key, &ho, err, errlen);
    if (!rc && ho.cancelled && ho.cancelled(ho.cancel_ctx))
        rc = fail(err, errlen, AM_IO, "%s: cancelled before sending", l->id);
    else if (!rc) {
        rc = am__http_post(&h, body, blen, err, errlen);
        out->tries = h.tries;
        if (!rc) {
            char why[256];
            rc = am__llm_parse(h.resp.p, h.resp.len, ar, out, why, sizeof why);
            if (rc) fail(err, errlen, rc, "%s: %s", l->id, why);
            out->tries = h.tries;
        }
        /* no usage reported: about four bytes a token, both ways */
        if (!out->tokens) out->tokens = (long)((blen + h.resp.len) / 4) + 1;
    }
    am__http_close(&h);
    free(body);
    return rc;
}
