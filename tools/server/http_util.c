/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http_util.c -- replies (http_util.h): JSON and text bodies, the error
 * object and its status by code, and a hex digit's value for
 * %-decoding.  Out of memory while making a reply gives a fixed 500.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_util.h"

int am__srv_hex(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0'
           : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
           : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                    : -1;
}

/* ------------------------------------------------------------ replies */

static const struct {
    const char *code;
    int status;
} codes[] = {
    {"invalid_request", 400}, {"unauthorized", 401}, {"forbidden", 403},
    {"not_found", 404},       {"method_not_allowed", 405}, {"denied", 409},
    {"payload_too_large", 413}, {"busy", 503},        {"internal", 500},
    {"unavailable", 503}, {"too_many_requests", 429},
};

void am__srv_json(srv_reply *out, int status, json_t *v)
{
    char *text = v ? json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY) : NULL;
    json_decref(v);
    free(out->body);
    out->body = NULL;
    if (!text) {
        /* out of memory, or a value that is not UTF-8: a fixed reply */
        static const char oom[] =
            "{\"error\":{\"code\":\"internal\",\"message\":\"cannot write the reply\",\"field\":null}}";
        out->status = 500;
        out->body = malloc(sizeof oom);
        if (out->body) memcpy(out->body, oom, sizeof oom);
        out->body_len = out->body ? sizeof oom - 1 : 0;
    } else {
        out->status = status;
        out->body = text;
        out->body_len = strlen(text);
    }
    out->content_type = "application/json";
}

void am__srv_text(srv_reply *out, int status, const char *ctype, const char *text, size_t len)
{
    free(out->body);
    out->body = malloc(len + 1);
    if (!out->body) {
        am__srv_json(out, 500, NULL);
        return;
    }
    memcpy(out->body, text, len);
    out->body[len] = '\0';
    out->body_len = len;
    out->status = status;
    out->content_type = ctype;
}

/* {"error": {code, message, field[, store]}} with code's status */
void am__srv_error_store(srv_reply *out, const char *code, const char *field, const char *store,
                         const char *msg)
{
    int status = 500;
    for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
        if (strcmp(codes[i].code, code) == 0) status = codes[i].status;
    /* a message may quote hostile input cut mid-character: jansson refuses
     * invalid UTF-8, so the quote is dropped rather than the reply */
    json_t *m = json_string(msg);
    if (!m) m = json_string("(the message quoted text that is not UTF-8)");
    json_t *f = field ? json_string(field) : json_null();
    if (!f) f = json_string("(not UTF-8)");
    am__srv_json(out, status, json_pack("{s:{s:s, s:o, s:o, s:s*}}", "error", "code", code,
                                        "message", m, "field", f, "store", store));
    if (status == 503) out->retry_after = 1;
    if (status == 429) out->retry_after = SRV_TENANT_RETRY_S;
}

void am__srv_error(srv_reply *out, const char *code, const char *field, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    am__srv_error_store(out, code, field, NULL, msg);
}
