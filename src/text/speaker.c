/* SPDX-License-Identifier: Apache-2.0 */
/*
 * speaker.c -- speaker labels and greeted names of transcript lines (see
 * speaker.h).  Byte-wise, allocation-free.
 */
#include <string.h>

#include "base/base.h"
#include "text/lexicon/lexicon.h"
#include "text/speaker.h"

static int ascii_alpha(unsigned char c)
{
    return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

/* strncasecmp for ASCII letters (locale-free). */
static int strncasecmp_ascii(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (ascii_alpha(x)) x |= 0x20;
        if (ascii_alpha(y)) y |= 0x20;
        if (x != y || !x) return x - y;
    }
    return 0;
}

size_t am__speaker_label(const char *s, char *out, size_t cap)
{
    size_t i = 0, spaces = 0, wide = 0;
    while (s[i] && i < 40 && i + 1 < cap) {
        unsigned char c = (unsigned char)s[i];
        if (c == ':' || (c == 0xEF && (unsigned char)s[i + 1] == 0xBC &&
                         (unsigned char)s[i + 2] == 0x9A)) {
            while (i > 0 && out[i - 1] == ' ') i--;
            out[i] = '\0';
            return i;
        }
        if (c == ' ') {
            if (i == 0 || ++spaces > 2) return 0;
        } else if (c < 0x80 && !ascii_alpha(c) && c != '.' && c != '\'' && c != '-') {
            return 0;
        } else if (c >= 0xC0 && ++wide > 4) {
            return 0;
        }
        out[i] = c < 0x80 && ascii_alpha(c) ? (char)(c | 0x20) : (char)c;
        i++;
    }
    return 0;
}

/* The text after the label and its colon, blanks skipped. */
static const char *after_label(const char *s)
{
    char label[48];
    size_t m = am__speaker_label(s, label, sizeof label);
    if (!m) return NULL;
    const char *p = s;
    while (*p && *p != ':' && strncmp(p, "\xEF\xBC\x9A", 3) != 0) p++;
    p += *p == ':' ? 1 : 3;
    while (*p == ' ') p++;
    return p;
}

static int word_in(const char *w, size_t n, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strlen(list[i]) == n && strncasecmp_ascii(w, list[i], n) == 0) return 1;
    return 0;
}

static size_t en_greeted(const char *p, char *out, size_t cap)
{
    size_t g = 0;
    for (size_t i = 0; am__lex_speaker_en_greet[i]; i++) {
        size_t m = strlen(am__lex_speaker_en_greet[i]);
        if (strncasecmp_ascii(p, am__lex_speaker_en_greet[i], m) == 0 &&
            !ascii_alpha((unsigned char)p[m])) {
            g = m;
            break;
        }
    }
    if (!g) return 0;
    p += g;
    while (*p == ' ' || *p == ',') p++;
    if (!(*p >= 'A' && *p <= 'Z')) return 0;
    size_t n = 1;
    while (ascii_alpha((unsigned char)p[n])) n++;
    /* a name ends the word: "Kate!", "Kate,", "Kate how are you" */
    if (n < 2 || n > 20 || (p[n] && p[n] != ' ' && p[n] != '!' && p[n] != ',' &&
                            p[n] != '.' && p[n] != '?' && p[n] != '~' && p[n] != ':'))
        return 0;
    if (word_in(p, n, am__lex_speaker_en_not_name) || n + 1 > cap) return 0;
    memcpy(out, p, n);
    out[n] = '\0';
    return n;
}

static size_t starts_with_any(const char *p, const char *const *list)
{
    for (size_t i = 0; list[i]; i++) {
        size_t m = strlen(list[i]);
        if (strncmp(p, list[i], m) == 0) return m;
    }
    return 0;
}

/* want_chars Han characters at p, not starting like no name; *len their
 * bytes. */
static int han_name_at(const char *p, size_t want_chars, size_t *len)
{
    size_t b = 0;
    for (size_t k = 0; k < want_chars; k++) {
        uint32_t cp;
        int l = am__utf8_decode(p + b, strlen(p + b), &cp);
        if (l <= 0 || !am__is_han(cp)) return 0;
        b += (size_t)l;
    }
    *len = b;
    return !starts_with_any(p, am__lex_speaker_zh_not_first);
}

static int zh_stop(const char *p)
{
    return *p == '\0' || starts_with_any(p, am__lex_speaker_stops) != 0;
}

static size_t zh_greeted(const char *p, char *out, size_t cap)
{
    size_t g = starts_with_any(p, am__lex_speaker_zh_greet), len;
    if (g) {
        /* 你好张总！ / 谢谢，小王。 */
        const char *q = p + g;
        if (strncmp(q, "，", 3) == 0) q += 3;
        else if (*q == ',' || *q == ' ') q++;
        for (size_t k = 3; k >= 2; k--)
            if (han_name_at(q, k, &len) && zh_stop(q + len)) {
                if (len + 1 > cap) return 0;
                memcpy(out, q, len);
                out[len] = '\0';
                return len;
            }
        return 0;
    }
    /* 张总你好 / 小王，早上好 */
    for (size_t k = 3; k >= 2; k--) {
        if (!han_name_at(p, k, &len)) continue;
        const char *q = p + len;
        if (strncmp(q, "，", 3) == 0) q += 3;
        else if (*q == ',' || *q == ' ') q++;
        size_t h = starts_with_any(q, am__lex_speaker_zh_greet);
        if (!h || strncmp(q, "谢谢", 6) == 0 || strncmp(q, "多谢", 6) == 0) continue;
        if (len + 1 > cap) return 0;
        memcpy(out, p, len);
        out[len] = '\0';
        return len;
    }
    return 0;
}

size_t am__greeted_name(const char *s, char *out, size_t cap)
{
    const char *p = after_label(s);
    if (!p || cap == 0) return 0;
    size_t n = en_greeted(p, out, cap);
    return n ? n : zh_greeted(p, out, cap);
}
