/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_llm_reply.c -- the LLM pass's reply parser (am__llm_parse,
 * src/lifecycle/llm.c) on arbitrary bytes.
 *
 * The input is parsed twice: as the whole HTTP body, and (when it is valid
 * UTF-8) as the message content of a well-formed chat completions body.
 * Checks: the result is AM_OK or AM_BACKEND (or AM_NOMEM); on AM_OK at most
 * AM__LLM_MAX_PROPOSALS proposals, each of a known kind, a text of 1 to
 * AM__LLM_MAX_TEXT bytes of valid UTF-8, a key within AM__LLM_MAX_KEY, a
 * confidence of -1 or within [0, 1], at most AM__LLM_MAX_IDS ids; on an
 * error a message, NUL-terminated; no room for a message gives the same
 * answer.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lifecycle/llm.h"

static void check(const char *body, size_t len)
{
    am__arena ar;
    am__arena_init(&ar, NULL);
    am__llm_reply r;
    char err[128];
    memset(&r, 0, sizeof r);
    err[0] = 'x';
    int rc = am__llm_parse(body, len, &ar, &r, err, sizeof err);
    if (rc == AM_OK) {
        if (r.n > AM__LLM_MAX_PROPOSALS || r.dropped < 0) abort();
        for (size_t i = 0; i < r.n; i++) {
            const am__llm_proposal *p = &r.p[i];
            size_t bad, tl = p->text ? strlen(p->text) : 0;
            if (!am__llm_kind_ok(p->kind) || !tl || tl > AM__LLM_MAX_TEXT ||
                !am__utf8_valid(p->text, tl, &bad))
                abort();
            if (p->key && (!*p->key || strlen(p->key) > AM__LLM_MAX_KEY)) abort();
            if (p->confidence != -1 && !(p->confidence >= 0 && p->confidence <= 1)) abort();
            if (p->n_ids > AM__LLM_MAX_IDS) abort();
            for (size_t k = 0; k < p->n_ids; k++)
                if (!p->ids[k] || strlen(p->ids[k]) > AM_ID_MAX) abort();
        }
    } else {
        if (rc != AM_BACKEND && rc != AM_NOMEM) abort();
        if (!memchr(err, '\0', sizeof err) || !err[0]) abort();
        am__llm_reply r2;
        memset(&r2, 0, sizeof r2);
        if (am__llm_parse(body, len, &ar, &r2, NULL, 0) != rc) abort();
    }
    am__arena_free(&ar);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    check(s, size);
    size_t bad;
    if (!am__utf8_valid(s, size, &bad)) return 0;
    json_t *b = json_pack("{s:[{s:{s:s, s:o}}]}", "choices", "message", "role", "assistant",
                          "content", json_stringn(s, size));
    char *body = b ? json_dumps(b, JSON_COMPACT) : NULL;
    json_decref(b);
    if (body) check(body, strlen(body));
    free(body);
    return 0;
}
