/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plain.c -- stored text on its way in (refused controls) and out (one
 * flat, inert line), so no event can forge the memory block.
 *
 * The block the agent receives is line-structured: a section opens with a
 * bracketed title on a line of its own ("[Memory]", "[记忆]", "[Task
 * state] ..."), and an entry is a line starting with "- ".  A stored text
 * could imitate both: with a line break ("hello\n[Memory]\n- Constraint:
 * ...") it starts lines of its own, and even on one line a bracketed title
 * reads as a section to a model.  So every stored text that is printed
 * into the block goes through am__plain_append, which
 *  - flattens every line break (LF, CR, CRLF, VT, FF, U+0085 NEL, U+2028,
 *    U+2029) and the blanks around it into one " / ": a text never starts
 *    a line, so never an entry or a title;
 *  - turns any bracket pair -- ASCII [ ], full-width ［ ］, 【 】, 〖 〗,
 *    〔 〕 -- into parentheses, unless it is one of our own redaction
 *    placeholders ("[PHONE_1]", "[SECRET]"): a text never shows a
 *    bracketed title, in either language, whatever its words;
 *  - drops the remaining C0/C1 control characters (ESC, BEL, ...) and the
 *    bidirectional overrides and isolates (U+202A..202E, U+2066..2069),
 *    which would otherwise reach a terminal or a model raw; a tab becomes
 *    a space and an invalid UTF-8 byte U+FFFD, so the line is valid UTF-8
 *    with no control character at all.
 * The write path refuses those control characters outright
 * (am__plain_refused: api/write.c names the field and the code point);
 * the output pass is the second line of defence for stores written before.
 *
 * Thread rule: pure functions, no state.
 */
#include "text/plain.h"

#include <string.h>

#include "agentmem.h"
#include "text/redact.h"

int am__plain_is_break(uint32_t cp)
{
    return cp == '\n' || cp == '\r' || cp == 0x0B || cp == 0x0C || cp == 0x85 ||
           cp == 0x2028 || cp == 0x2029;
}

int am__plain_is_control(uint32_t cp)
{
    if (cp == '\t' || am__plain_is_break(cp)) return 0;
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
}

/* Bidirectional embeddings, overrides and isolates: they reorder what a
 * reader sees. */
static int is_bidi_control(uint32_t cp)
{
    return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

int am__plain_refused(const char *s, size_t n, size_t *at, uint32_t *cp)
{
    for (size_t k = 0; k < n;) {
        uint32_t c;
        int len = am__utf8_decode(s + k, n - k, &c);
        /* VT and FF are line breaks on output but not text anyone types:
         * refused on input like the other controls */
        if (am__plain_is_control(c) || c == 0x0B || c == 0x0C) {
            *at = k;
            *cp = c;
            return 1;
        }
        k += (size_t)len;
    }
    return 0;
}

static int open_bracket(uint32_t cp)
{
    return cp == '[' || cp == 0xFF3B || cp == 0x3010 || cp == 0x3016 || cp == 0x3014;
}

static int close_bracket(uint32_t cp)
{
    return cp == ']' || cp == 0xFF3D || cp == 0x3011 || cp == 0x3017 || cp == 0x3015;
}

/* s[k..) starts "[TYPE_N]" or "[SECRET]" for a redaction type: returns its
 * byte length, else 0. */
static size_t placeholder_at(const char *s, size_t n, size_t k)
{
    if (s[k] != '[') return 0;
    size_t e = k + 1;
    while (e < n && e - k < 24 && s[e] != ']') e++;
    if (e >= n || s[e] != ']') return 0;
    const char *in = s + k + 1;
    size_t m = e - k - 1, name_len = m;
    while (name_len > 0 && in[name_len - 1] >= '0' && in[name_len - 1] <= '9') name_len--;
    int numbered = name_len < m && name_len > 1 && in[name_len - 1] == '_';
    if (numbered) name_len--;
    for (int t = AM_PII_PHONE; t < AM__PII_TYPE_END; t++) {
        const char *name = am__pii_type_name(t);
        if (strlen(name) != name_len) continue;
        size_t i = 0;
        while (i < name_len && in[i] == name[i] - ('a' <= name[i] && name[i] <= 'z' ? 32 : 0)) i++;
        if (i == name_len && numbered == (t != AM_SECRET)) return e - k + 1;
    }
    return 0;
}

void am__plain_append(am__buf *out, const char *s, size_t n)
{
    size_t k = 0, start = out->len;
    int pending_break = 0;
    while (k < n) {
        size_t ph = placeholder_at(s, n, k);
        uint32_t c;
        int len = ph ? (int)ph : am__utf8_decode(s + k, n - k, &c);
        if (!ph && (am__plain_is_break(c) || ((c == ' ' || c == '\t') && pending_break))) {
            /* a break and the blanks after it; the blanks before it go */
            if (am__plain_is_break(c) && !pending_break) {
                while (out->len > start &&
                       (out->p[out->len - 1] == ' ' || out->p[out->len - 1] == '\t'))
                    out->len--;
                if (out->p) out->p[out->len] = '\0';
                pending_break = 1;
            }
            k += (size_t)len;
            continue;
        }
        if (pending_break) {
            if (out->len > start) am__buf_adds(out, " / ");
            pending_break = 0;
        }
        if (ph) {
            am__buf_add(out, s + k, ph);
        } else if (am__plain_is_control(c) || is_bidi_control(c)) {
            /* dropped */
        } else if (open_bracket(c) || close_bracket(c)) {
            am__buf_adds(out, c < 0x80 ? (open_bracket(c) ? "(" : ")")
                                       : (open_bracket(c) ? "（" : "）"));
        } else if (c == '\t') {
            am__buf_addc(out, ' ');
        } else if (c == 0xFFFD && len == 1) {
            am__buf_adds(out, "\xEF\xBF\xBD"); /* an invalid byte: U+FFFD */
        } else {
            am__buf_add(out, s + k, (size_t)len);
        }
        k += (size_t)len;
    }
}

void am__plain_appends(am__buf *out, const char *s)
{
    if (s) am__plain_append(out, s, strlen(s));
}

/* The public form (agentmem.h) for tools that print stored text. */
char *am_text_plain(const char *text)
{
    if (!text) return NULL;
    am__buf b;
    am__buf_init(&b, NULL);
    am__plain_appends(&b, text);
    char *r = b.oom ? NULL : am__owned_strndup(NULL, b.p ? b.p : "", b.len);
    am__buf_free(&b);
    return r;
}
