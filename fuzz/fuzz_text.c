/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_text.c -- text analysis and the rule matchers on arbitrary bytes:
 * normalisation, tokenizer (ICU + bigrams + stemmer), sentence splitter,
 * language detection, distillation rules, task cues and the router;
 * the query readers (synonym expansion, self-corrections' asks, a
 * relative clause's condition: spans must lie inside the text, in order);
 * stored token blobs (memory_items.tokens) read back; a transcript line's
 * speaker label and greeted name (text/speaker.c: within their buffers,
 * the name a part of the line, nothing written with no room).  Tokens must lie
 * inside the normalised text and be non-empty; a blob read back is a
 * sorted set that writes back to the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "write/distill/rules.h"
#include "domain/task.h"
#include "recall/recall.h"
#include "text/analyze.h"
#include "text/speaker.h"

static int tok_cb(void *ctx, int kind, const char *tok, size_t len, size_t start, size_t end)
{
    size_t n = *(size_t *)ctx;
    if (len == 0 || strlen(tok) != len || start > end || end > n || kind < 1 || kind > 5) abort();
    return 0;
}

static int sent_cb(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    am__distill d;
    am__distill_sentence(s, n, &d);
    if (d.action == AM__D_PERSIST && (!d.kind || !d.key[0])) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static am__text *t;
    if (!t && am__text_open(NULL, &t) != AM_OK) return 0;
    const char *s = (const char *)data;
    size_t n = size;
    if (am__text_tokenize(t, s, n, tok_cb, &n) != AM_OK) return 0;
    am__text_sentences(s, n, sent_cb, NULL);
    am__text_lang(s, n);
    am__text_tokens_estimate(s, n);
    am__task_signal sig;
    am__task_detect(s, n, &sig);
    am__route_decision rd;
    am__route(s, n, &rd);
    size_t from[4], to[4], asks = am__query_asks(s, n, from, to, 4);
    if (asks > 4) abort();
    for (size_t i = 0; i < asks; i++)
        if (from[i] > to[i] || to[i] > n) abort();
    size_t cf, ct, cv;
    if (am__query_condition(s, n, &cf, &ct, &cv) && !(cf <= cv && cv < ct && ct <= n)) abort();
    am__allocator al = {NULL, NULL};
    am__buf ex, nar;
    am__buf_init(&ex, &al);
    am__buf_init(&nar, &al);
    am__expand_query(s, n, &ex, &nar);
    am__buf_free(&ex);
    am__buf_free(&nar);
    uint64_t set[64];
    size_t ns;
    am__text_token_set(t, s, n, set, 64, &ns);
    char *z = malloc(size + 1);
    if (z) {
        memcpy(z, data, size);
        z[size] = '\0';
        char lab[48], nm[64], tiny[1] = {'x'};
        size_t m = am__speaker_label(z, lab, sizeof lab);
        if (m >= sizeof lab || (m && strlen(lab) != m)) abort();
        size_t g = am__greeted_name(z, nm, sizeof nm);
        if (g >= sizeof nm || (g && (strlen(nm) != g || !strstr(z, nm)))) abort();
        if (am__greeted_name(z, tiny, 1) != 0 || am__speaker_label(z, tiny, 1) != 0 ||
            tiny[0] != 'x')
            abort();
        free(z);
    }
    uint64_t back[AM__ITEM_SET];
    size_t nb;
    if (am__token_blob_get(data, size, back, AM__ITEM_SET, &nb)) {
        unsigned char again[AM__TOKBLOB_MAX];
        for (size_t i = 1; i < nb; i++)
            if (back[i] <= back[i - 1]) abort();
        if (am__token_blob_put(back, nb, again) != size || memcmp(again, data, size) != 0) abort();
    }
    return 0;
}
