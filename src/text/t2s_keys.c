/* SPDX-License-Identifier: Apache-2.0 */
/*
 * t2s_keys.c -- which characters OpenCC's t2s conversion can change.
 *
 * Normalisation hands Chinese text to OpenCC (Traditional -> Simplified,
 * so 周報 matches 周报).  On Simplified text, nearly all of it, the pass
 * returns its input unchanged, yet costs more than the rest of the
 * normal form: it segments the text against the phrase dictionary and
 * looks every segment up (a recall's bridge stage normalises a few
 * thousand texts).  A conversion changes a text only where a dictionary
 * key matches, and every key -- single characters and phrases alike --
 * holds at least one character that the character dictionary itself
 * maps to another: so a text with none of those characters is its own
 * conversion and is not handed over.
 *
 * The characters, one bit each over U+3400..U+9FFF (Extension A and the
 * unified ideographs, where all 3,751 of the installed data lie), are in
 * t2s_keys.inc, written by `build/cmake/test_t2s_keys --print` from the
 * data installed; test_t2s_keys fails when the table and the data
 * disagree (another OpenCC release), and names the characters.  An
 * ideograph beyond the range (the supplementary planes) always goes to
 * OpenCC; compatibility ideographs never reach it (NFKC maps them into
 * the range first).
 */
#include "text/analyze.h"

static const uint32_t keys[(AM__T2S_LAST - AM__T2S_FIRST + 1) / 32] = {
#include "text/t2s_keys.inc"
};

int am__t2s_may_change(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++) {
        unsigned b = p[i];
        if (b < 0xE3) continue; /* ASCII, continuation bytes, U+0080..U+2FFF */
        if (b >= 0xF0) {        /* U+10000 and up: ideographs of planes 2-3 */
            if (b <= 0xF4 && i + 1 < n && (b > 0xF0 || p[i + 1] >= 0xA0)) return 1;
            continue;
        }
        if (i + 2 >= n || (p[i + 1] & 0xC0) != 0x80 || (p[i + 2] & 0xC0) != 0x80) continue;
        uint32_t cp = ((uint32_t)(b & 0x0F) << 12) | ((uint32_t)(p[i + 1] & 0x3F) << 6) |
                      (p[i + 2] & 0x3F);
        i += 2;
        if (cp < AM__T2S_FIRST || cp > AM__T2S_LAST) continue;
        uint32_t k = cp - AM__T2S_FIRST;
        if (keys[k / 32] >> (k % 32) & 1) return 1;
    }
    return 0;
}
