/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_plain.c -- am_text_plain (text/plain.c), the one way stored text
 * reaches the memory block, on arbitrary bytes.  The line it returns must
 * be inert whatever came in: valid UTF-8; no control character, no line or
 * paragraph separator, no bidi override; a '[' only where one of our
 * placeholders ("[PHONE_1]", "[SECRET]") starts and a ']' only where one
 * ends; and flattening it again changes nothing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentmem.h"
#include "base/base.h"

static void fail(const char *why, const char *s)
{
    fprintf(stderr, "fuzz_plain: %s: \"%.200s\"\n", why, s);
    abort();
}

/* Placeholder shape: '[' upper-case letters/underscore/digits ']'. */
static size_t placeholder_len(const char *s)
{
    size_t k = 1;
    while (s[k] && ((s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= '0' && s[k] <= '9') || s[k] == '_'))
        k++;
    return s[k] == ']' && k > 1 ? k + 1 : 0;
}

static void check_line(const char *s)
{
    size_t n = strlen(s), bad;
    if (!am__utf8_valid(s, n, &bad)) fail("invalid UTF-8", s);
    for (size_t k = 0; k < n;) {
        uint32_t cp;
        int len = am__utf8_decode(s + k, n - k, &cp);
        if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
            (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
            fail("control or separator", s);
        if (cp == 0xFF3B || cp == 0xFF3D || cp == 0x3010 || cp == 0x3011 || cp == 0x3016 ||
            cp == 0x3017 || cp == 0x3014 || cp == 0x3015)
            fail("bracket", s);
        if (cp == ']') fail("a ']' outside a placeholder", s);
        if (cp == '[') {
            size_t p = placeholder_len(s + k);
            if (!p) fail("a '[' outside a placeholder", s);
            k += p;
            continue;
        }
        k += (size_t)len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = malloc(size + 1);
    if (!in) return 0;
    memcpy(in, data, size);
    in[size] = 0; /* the API takes a C string: the text up to a NUL */
    char *once = am_text_plain(in);
    if (once) {
        check_line(once);
        char *twice = am_text_plain(once);
        if (twice && strcmp(once, twice) != 0) fail("not idempotent", once);
        am_free(twice);
    }
    am_free(once);
    free(in);
    return 0;
}
