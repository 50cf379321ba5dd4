/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_sentences.c -- the sentence splitter (text/sentences.c) on
 * arbitrary bytes.  Each sentence must lie inside the input, after the one
 * before it, be non-empty and trimmed; together they must hold every byte
 * of the input that is not a blank or a line break, in order (nothing is
 * dropped or repeated); a second split gives the same sentences; a
 * callback's non-zero return stops the split and is returned.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "text/analyze.h"

typedef struct seen {
    const char *base;
    size_t n, pos, count;
    uint64_t hash;
    size_t covered; /* bytes that are not blanks inside the sentences */
    size_t stop_at; /* stop (return 5) at this sentence, 0: never */
} seen;

static int blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static int on_sentence(void *ctx, const char *s, size_t n)
{
    seen *x = ctx;
    if (n == 0 || s < x->base || (size_t)(s - x->base) < x->pos ||
        (size_t)(s - x->base) + n > x->n)
        abort();
    if (blank(s[0]) || blank(s[n - 1])) abort();
    /* nothing between the last sentence and this one but blanks */
    for (size_t k = x->pos; k < (size_t)(s - x->base); k++)
        if (!blank(x->base[k])) abort();
    for (size_t k = 0; k < n; k++) {
        x->hash = x->hash * 1099511628211u + (unsigned char)s[k];
        if (!blank(s[k])) x->covered++;
    }
    x->pos = (size_t)(s - x->base) + n;
    x->count++;
    return x->stop_at && x->count == x->stop_at ? 5 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    seen a = {s, size, 0, 0, 14695981039346656037u, 0, 0};
    if (am__text_sentences(s, size, on_sentence, &a) != 0) abort();
    for (size_t k = a.pos; k < size; k++)
        if (!blank(s[k])) abort();
    size_t solid = 0;
    for (size_t k = 0; k < size; k++) solid += !blank(s[k]);
    if (a.covered != solid) abort();
    seen b = {s, size, 0, 0, 14695981039346656037u, 0, 0};
    if (am__text_sentences(s, size, on_sentence, &b) != 0 || b.hash != a.hash ||
        b.count != a.count)
        abort();
    if (a.count >= 2) {
        seen c = {s, size, 0, 0, 14695981039346656037u, 0, 2};
        if (am__text_sentences(s, size, on_sentence, &c) != 5 || c.count != 2) abort();
    }
    return 0;
}
