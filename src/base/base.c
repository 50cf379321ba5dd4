/* SPDX-License-Identifier: Apache-2.0 */
/*
 * base.c -- allocation, buffers, arena, UTF-8, ISO 8601 time, ULID, hashing.
 * See base.h.
 */
#include "base/base.h"

#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>

/* ------------------------------------------------------------ allocation */

void *am__realloc(const am__allocator *a, void *p, size_t n)
{
    if (a && a->realloc) return a->realloc(a->ctx, p, n);
    if (n == 0) {
        free(p);
        return NULL;
    }
    return realloc(p, n);
}

void *am__libc_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    if (n == 0) {
        free(p);
        return NULL;
    }
    return realloc(p, n);
}

void *am__malloc(const am__allocator *a, size_t n)
{
    return am__realloc(a, NULL, n ? n : 1);
}

void *am__calloc(const am__allocator *a, size_t n)
{
    void *p = am__malloc(a, n);
    if (p) memset(p, 0, n ? n : 1);
    return p;
}

void am__free(const am__allocator *a, void *p)
{
    if (p) am__realloc(a, p, 0);
}

char *am__strndup(const am__allocator *a, const char *s, size_t n)
{
    char *d = am__malloc(a, n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

typedef union owned_hdr {
    am__allocator a;
    max_align_t align; /* the bytes after the header stay aligned */
} owned_hdr;

char *am__owned_strndup(const am__allocator *a, const char *s, size_t n)
{
    owned_hdr *h = am__malloc(a, sizeof *h + n + 1);
    if (!h) return NULL;
    h->a = a ? *a : (am__allocator){NULL, NULL};
    char *d = (char *)(h + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

void *am__owned_alloc(const am__allocator *a, size_t n)
{
    if (n > SIZE_MAX - sizeof(owned_hdr)) return NULL;
    owned_hdr *h = am__malloc(a, sizeof *h + n);
    if (!h) return NULL;
    h->a = a ? *a : (am__allocator){NULL, NULL};
    return h + 1;
}

void am__owned_free(void *p)
{
    if (!p) return;
    owned_hdr *h = (owned_hdr *)p - 1;
    am__allocator a = h->a;
    am__free(&a, h);
}

char *am__strdup(const am__allocator *a, const char *s)
{
    return s ? am__strndup(a, s, strlen(s)) : NULL;
}

/* ------------------------------------------------------------ buffers */

void am__buf_init(am__buf *b, const am__allocator *a)
{
    memset(b, 0, sizeof *b);
    b->a = a;
}

void am__buf_free(am__buf *b)
{
    am__free(b->a, b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

void am__buf_reset(am__buf *b)
{
    b->len = 0;
    b->oom = 0; /* a buffer kept across calls (the store's query text) recovers */
    if (b->p) b->p[0] = 0;
}

int am__buf_reserve(am__buf *b, size_t extra)
{
    if (b->oom) return 0;
    if (b->len + extra + 1 <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) {
        if (cap > SIZE_MAX / 2) {
            b->oom = 1;
            return 0;
        }
        cap *= 2;
    }
    char *p = am__realloc(b->a, b->p, cap);
    if (!p) {
        b->oom = 1;
        return 0;
    }
    b->p = p;
    b->cap = cap;
    return 1;
}

void am__buf_add(am__buf *b, const void *p, size_t n)
{
    if (!am__buf_reserve(b, n)) return;
    if (n) memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = 0;
}

void am__buf_adds(am__buf *b, const char *s)
{
    if (s) am__buf_add(b, s, strlen(s));
}

void am__buf_addc(am__buf *b, char c)
{
    if (!b->oom && b->len + 2 <= b->cap) { /* room for it and the NUL */
        b->p[b->len++] = c;
        b->p[b->len] = 0;
        return;
    }
    am__buf_add(b, &c, 1);
}

void am__buf_add_int(am__buf *b, long long v)
{
    char num[24], *p = num + sizeof num;
    unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
    do *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0) *--p = '-';
    am__buf_add(b, p, (size_t)(num + sizeof num - p));
}

/* "%.*f" exactly as printf rounds (the exact binary value, ties to even):
 * v x 10^decimals = p + r exactly (r from fma: the product's rounding
 * error), so the fraction of p decides, and r only at an exact half.
 * More than 6 decimals, |v| >= 1e9, NaN and infinities go to printf. */
void am__buf_add_fixed(am__buf *b, double v, int decimals)
{
    static const double scale[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6};
    if (decimals < 0 || decimals > 6 || !(fabs(v) < 1e9)) {
        am__buf_printf(b, "%.*f", decimals, v);
        return;
    }
    double x = fabs(v), p = x * scale[decimals], r = fma(x, scale[decimals], -p);
    double f = floor(p), frac = p - f; /* exact: p < 2^50 */
    unsigned long long n = (unsigned long long)f;
    /* (frac 0 with r < 0: just below the integer p, which it rounds to) */
    if (frac > 0.5 || (frac == 0.5 && (r > 0 || (r == 0 && (n & 1))))) n++;
    char num[32], *e = num + sizeof num, *q = e;
    for (int i = 0; i < decimals; i++) {
        *--q = (char)('0' + n % 10);
        n /= 10;
    }
    if (decimals) *--q = '.';
    do *--q = (char)('0' + n % 10);
    while (n /= 10);
    if (signbit(v)) *--q = '-';
    am__buf_add(b, q, (size_t)(e - q));
}

void am__buf_printf(am__buf *b, const char *fmt, ...)
{
    va_list ap;
    char small[256];
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        am__buf_add(b, small, (size_t)n);
        return;
    }
    if (!am__buf_reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* 1 if one of the 8 bytes of w is a control character, '"' or '\\' (the
 * "has a zero byte" trick: a borrow between bytes can add a false hit
 * only beside a true one, so the answer for the word is exact). */
static int json_special8(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t quote = w ^ (ones * '"'), bslash = w ^ (ones * '\\');
    uint64_t ctrl = (w - ones * 0x20) & ~w;
    return (((quote - ones) & ~quote) | ((bslash - ones) & ~bslash) | ctrl) & high ? 1 : 0;
}

void am__buf_json_str(am__buf *b, const char *s)
{
    am__buf_addc(b, '"');
    if (s) {
        const char *run = s, *p = s;
        size_t n = strlen(s);
        for (; n >= 8; p += 8, n -= 8) { /* the clean stretch, 8 bytes at a time */
            uint64_t w;
            memcpy(&w, p, 8);
            if (json_special8(w)) break;
        }
        for (; *p; p++) {
            unsigned char c = (unsigned char)*p;
            if (c >= 0x20 && c != '"' && c != '\\') continue;
            am__buf_add(b, run, (size_t)(p - run));
            switch (c) {
            case '"': am__buf_adds(b, "\\\""); break;
            case '\\': am__buf_adds(b, "\\\\"); break;
            case '\n': am__buf_adds(b, "\\n"); break;
            case '\r': am__buf_adds(b, "\\r"); break;
            case '\t': am__buf_adds(b, "\\t"); break;
            default: am__buf_printf(b, "\\u%04x", c); break;
            }
            run = p + 1;
        }
        am__buf_add(b, run, (size_t)(p - run));
    }
    am__buf_addc(b, '"');
}

char *am__buf_take(am__buf *b)
{
    if (b->oom) {
        am__buf_free(b);
        return NULL;
    }
    if (!b->p && !am__buf_reserve(b, 0)) return NULL;
    if (b->len == 0) b->p[0] = 0;
    char *p = b->p;
    b->p = NULL;
    b->len = b->cap = 0;
    return p;
}

/* ------------------------------------------------------------ arena */

struct am__arena_block {
    am__arena_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

void am__arena_init(am__arena *ar, const am__allocator *a)
{
    ar->head = NULL;
    ar->a = a;
    ar->oom = 0;
}

/* *size bytes, not zeroed; *size is rounded up to a multiple of 16 */
static void *arena_take(am__arena *ar, size_t *size)
{
    size_t n = (*size + 15) & ~(size_t)15;
    if (n == 0) n = 16;
    *size = n;
    am__arena_block *b = ar->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 8192 ? n : 8192;
        b = am__malloc(ar->a, sizeof *b + cap);
        if (!b) {
            ar->oom = 1;
            return NULL;
        }
        b->cap = cap;
        b->used = 0;
        b->next = ar->head;
        ar->head = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

void *am__arena_alloc(am__arena *ar, size_t n)
{
    void *p = arena_take(ar, &n);
    if (p) memset(p, 0, n);
    return p;
}

void *am__arena_take(am__arena *ar, size_t n)
{
    return arena_take(ar, &n);
}

char *am__arena_strndup(am__arena *ar, const char *s, size_t n)
{
    size_t size = n + 1;
    char *d = arena_take(ar, &size); /* not zeroed: only the copy and its NUL are read */
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *am__arena_strdup(am__arena *ar, const char *s)
{
    return s ? am__arena_strndup(ar, s, strlen(s)) : NULL;
}

void am__arena_free(am__arena *ar)
{
    am__arena_block *b = ar->head;
    while (b) {
        am__arena_block *n = b->next;
        am__free(ar->a, b);
        b = n;
    }
    ar->head = NULL;
}

/* ------------------------------------------------------------ UTF-8 */

int am__utf8_decode_any(const char *s, size_t n, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    if (n == 0) {
        *cp = 0xFFFD;
        return 1;
    }
    unsigned c = u[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    int len;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2; v = c & 0x1F; min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3; v = c & 0x0F; min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4; v = c & 0x07; min = 0x10000;
    } else {
        *cp = 0xFFFD;
        return 1;
    }
    if ((size_t)len > n) {
        *cp = 0xFFFD;
        return 1;
    }
    for (int i = 1; i < len; i++) {
        if ((u[i] & 0xC0) != 0x80) {
            *cp = 0xFFFD;
            return 1;
        }
        v = (v << 6) | (u[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
        *cp = 0xFFFD;
        return 1;
    }
    *cp = v;
    return len;
}

int am__utf8_valid(const char *s, size_t n, size_t *bad_at)
{
    size_t i = 0;
    while (i < n) {
        if ((unsigned char)s[i] < 0x80) {
            i++;
            continue;
        }
        uint32_t cp;
        int l = am__utf8_decode(s + i, n - i, &cp);
        if (cp == 0xFFFD && l == 1) {
            if (bad_at) *bad_at = i;
            return 0;
        }
        i += (size_t)l;
    }
    return 1;
}

int am__utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

int am__is_han(uint32_t cp)
{
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x20000 && cp <= 0x2FA1F);
}

size_t am__utf8_len(const char *s, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80) count++;
    return count;
}

/* ------------------------------------------------------------ time */

/* Howard Hinnant's civil-date algorithms (public domain description). */
int64_t am__days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

void am__civil_from_days(int64_t z, int *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = (int64_t)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int)(yy + (*m <= 2));
}

static int read_digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*p)[i];
        if (c < '0' || c > '9') return 0;
        v = v * 10 + (c - '0');
    }
    *p += n;
    *out = v;
    return 1;
}

int am__time_parse(const char *s, am_time *out, int *tz_minutes,
                   const char **why)
{
    const char *dummy;
    if (!why) why = &dummy;
    if (!s || !*s) {
        *why = "empty time";
        return AM_INVALID;
    }
    const char *p = s;
    int y, mo, d, h = 0, mi = 0, sec = 0, ms = 0;
    if (!read_digits(&p, 4, &y) || *p++ != '-' || !read_digits(&p, 2, &mo) ||
        *p++ != '-' || !read_digits(&p, 2, &d)) {
        *why = "expected YYYY-MM-DD";
        return AM_INVALID;
    }
    if (*p == 0) {
        *why = "has no time of day and no time zone";
        return AM_INVALID;
    }
    if (*p != 'T' && *p != 't' && *p != ' ') {
        *why = "expected 'T' after the date";
        return AM_INVALID;
    }
    p++;
    if (!read_digits(&p, 2, &h) || *p++ != ':' || !read_digits(&p, 2, &mi)) {
        *why = "expected HH:MM after the date";
        return AM_INVALID;
    }
    if (*p == ':') {
        p++;
        if (!read_digits(&p, 2, &sec)) {
            *why = "bad seconds";
            return AM_INVALID;
        }
        if (*p == '.' || *p == ',') {
            p++;
            int digits = 0;
            while (*p >= '0' && *p <= '9') {
                if (digits < 3) ms = ms * 10 + (*p - '0');
                digits++;
                p++;
            }
            if (digits == 0) {
                *why = "bad fraction of a second";
                return AM_INVALID;
            }
            for (; digits < 3; digits++) ms *= 10;
        }
    }
    int tz;
    if (*p == 'Z' || *p == 'z') {
        tz = 0;
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p == '-' ? -1 : 1, th, tm = 0;
        p++;
        if (!read_digits(&p, 2, &th)) {
            *why = "bad time zone offset";
            return AM_INVALID;
        }
        if (*p == ':') p++;
        if (*p) {
            if (!read_digits(&p, 2, &tm)) {
                *why = "bad time zone offset";
                return AM_INVALID;
            }
        }
        if (th > 14 || tm > 59) {
            *why = "time zone offset out of range";
            return AM_INVALID;
        }
        tz = sign * (th * 60 + tm);
    } else if (*p == 0) {
        *why = "has no time zone (add Z or +HH:MM)";
        return AM_INVALID;
    } else {
        *why = "unexpected characters after the time";
        return AM_INVALID;
    }
    if (*p != 0) {
        *why = "unexpected characters after the time zone";
        return AM_INVALID;
    }
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
        (mo == 2 && d == 29 && !leap)) {
        *why = "no such date";
        return AM_INVALID;
    }
    if (h > 23 || mi > 59 || sec > 59) {
        /* second 60 (a leap second) was once clamped to 59: a changed
         * time is worse than a refused one */
        *why = sec == 60 && h <= 23 && mi <= 59
                   ? "has second 60 (leap seconds are not accepted; use :59 or the next minute)"
                   : "no such time of day";
        return AM_INVALID;
    }
    int64_t days = am__days_from_civil(y, (unsigned)mo, (unsigned)d);
    int64_t secs = days * 86400 + h * 3600 + mi * 60 + sec - (int64_t)tz * 60;
    *out = secs * 1000 + ms;
    if (tz_minutes) *tz_minutes = tz;
    return AM_OK;
}

/* v in exactly `width` decimal digits (v < 10^width); returns the end. */
static char *put_digits(char *p, unsigned v, int width)
{
    for (int i = width - 1; i >= 0; i--) {
        p[i] = (char)('0' + v % 10);
        v /= 10;
    }
    return p + width;
}

char *am__time_format(am_time t, int tz_minutes, char *buf)
{
    if (t == AM_TIME_NONE) {
        strcpy(buf, "");
        return buf;
    }
    int64_t local = t + (int64_t)tz_minutes * 60000;
    int64_t secs = local >= 0 ? local / 1000 : -((-local + 999) / 1000);
    int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
    int64_t rem = secs - days * 86400;
    int y;
    unsigned m, d;
    am__civil_from_days(days, &y, &m, &d);
    unsigned tzabs = (unsigned)(tz_minutes < 0 ? -tz_minutes : tz_minutes) % 1440;
    if (y < 0) y = 0;
    if (y > 9999) y = 9999;
    /* "%04d-%02u-%02uT%02u:%02u:%02u" and the zone, without printf: every
     * event of a recall's result and block is formatted */
    char *p = buf;
    p = put_digits(p, (unsigned)y % 10000, 4);
    *p++ = '-';
    p = put_digits(p, m % 13, 2);
    *p++ = '-';
    p = put_digits(p, d % 32, 2);
    *p++ = 'T';
    p = put_digits(p, (unsigned)(rem / 3600) % 24, 2);
    *p++ = ':';
    p = put_digits(p, (unsigned)(rem / 60 % 60), 2);
    *p++ = ':';
    p = put_digits(p, (unsigned)(rem % 60), 2);
    if (tz_minutes == 0) {
        *p++ = 'Z';
    } else {
        *p++ = tz_minutes < 0 ? '-' : '+';
        p = put_digits(p, (tzabs / 60) % 24, 2);
        *p++ = ':';
        p = put_digits(p, tzabs % 60, 2);
    }
    *p = 0;
    return buf;
}

/* ------------------------------------------------------------ ULID */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void am__ulid_init(am__ulid_state *st, uint64_t seed)
{
    memset(st, 0, sizeof *st);
    st->seed = seed;
    st->last_ms = AM_TIME_NONE;
}

void am__ulid_new(am__ulid_state *st, am_time ms, char out[27])
{
    static const char enc[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    if (ms < 0) ms = 0;
    if (ms <= st->last_ms && st->last_ms != AM_TIME_NONE) {
        ms = st->last_ms; /* stay monotonic: increment the random part */
        for (int i = 9; i >= 0; i--)
            if (++st->rand[i] != 0) break;
    } else {
        uint64_t a = splitmix(&st->seed), b = splitmix(&st->seed);
        memcpy(st->rand, &a, 8);
        memcpy(st->rand + 8, &b, 2);
        st->rand[0] &= 0x7F; /* room to increment */
        st->last_ms = ms;
    }
    uint64_t t = (uint64_t)ms;
    for (int i = 9; i >= 0; i--) {
        out[i] = enc[t & 31];
        t >>= 5;
    }
    /* 80 random bits -> 16 chars */
    uint8_t *r = st->rand;
    int bit = 0;
    for (int i = 0; i < 16; i++) {
        int v = 0;
        for (int k = 0; k < 5; k++, bit++)
            v = (v << 1) | ((r[bit / 8] >> (7 - bit % 8)) & 1);
        out[10 + i] = enc[v];
    }
    out[26] = 0;
}

static size_t strpos_home(uint64_t h, size_t cap)
{
    return (size_t)((h * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

size_t am__strpos_find(const am__strpos *p, const char *const *arr, const char *s)
{
    if (!p->cap) return SIZE_MAX;
    uint64_t h = am__hash64(s, strlen(s));
    for (size_t i = strpos_home(h, p->cap);; i = (i + 1) & (p->cap - 1)) {
        const struct am__strpos_slot *e = &p->slot[i];
        if (!e->i1) return SIZE_MAX;
        if (e->h == h && strcmp(arr[e->i1 - 1], s) == 0) return e->i1 - 1;
    }
}

static void strpos_put(struct am__strpos_slot *slot, size_t cap, uint64_t h, size_t i1)
{
    size_t i = strpos_home(h, cap);
    while (slot[i].i1) i = (i + 1) & (cap - 1);
    slot[i].h = h;
    slot[i].i1 = i1;
}

int am__strpos_add(am__strpos *p, am__arena *ar, const char *const *arr, size_t i)
{
    if ((p->n + 1) * 2 > p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 64;
        struct am__strpos_slot *slot = am__arena_alloc(ar, cap * sizeof *slot);
        if (!slot) return AM_NOMEM;
        for (size_t k = 0; k < p->cap; k++)
            if (p->slot[k].i1) strpos_put(slot, cap, p->slot[k].h, p->slot[k].i1);
        p->slot = slot;
        p->cap = cap;
    }
    strpos_put(p->slot, p->cap, am__hash64(arr[i], strlen(arr[i])), i + 1);
    p->n++;
    return AM_OK;
}

uint64_t am__hash64(const void *p, size_t n)
{
    const unsigned char *u = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= u[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* What may not appear in an identifier, by Unicode property (utf8proc's
 * tables, not a list of code points): controls (Cc: C0, DEL, C1 such as
 * U+0085), format characters (Cf: bidi overrides and isolates, zero-width
 * spaces and joiners, U+FEFF), line and paragraph separators, surrogates
 * and private use, spaces other than U+0020, and the default-ignorable
 * code points that render as nothing (U+3164 HANGUL FILLER, variation
 * selectors).  Each makes two ids that look the same differ, or one id
 * render as another. */
static const char *id_char_problem(int32_t cp)
{
    const utf8proc_property_t *p = utf8proc_get_property(cp);
    switch (p->category) {
    case UTF8PROC_CATEGORY_CC: return "contains a control character";
    case UTF8PROC_CATEGORY_CF: return "contains an invisible format character (bidi control, zero-width)";
    case UTF8PROC_CATEGORY_ZL:
    case UTF8PROC_CATEGORY_ZP: return "contains a line or paragraph separator";
    case UTF8PROC_CATEGORY_CS:
    case UTF8PROC_CATEGORY_CO: return "contains a surrogate or private-use character";
    case UTF8PROC_CATEGORY_ZS:
        if (cp != ' ') return "contains a space other than U+0020";
        break;
    default: break;
    }
    if (p->ignorable) return "contains an invisible (default-ignorable) character";
    return NULL;
}

const char *am__id_problem(const char *id, int32_t *cp_out)
{
    if (cp_out) *cp_out = -1;
    if (!id) return "is missing";
    size_t n = strlen(id);
    if (n == 0) return "is empty";
    if (n > AM_ID_MAX) return "is longer than 128 bytes";
    if (!am__utf8_valid(id, n, NULL)) return "is not valid UTF-8";
    for (size_t i = 0; i < n;) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t len = utf8proc_iterate((const utf8proc_uint8_t *)id + i,
                                                (utf8proc_ssize_t)(n - i), &cp);
        if (len <= 0) return "is not valid UTF-8";
        const char *why = id_char_problem(cp);
        if (why) {
            if (cp_out) *cp_out = cp;
            return why;
        }
        i += (size_t)len;
    }
    if (id[0] == ' ' || id[n - 1] == ' ') return "has leading or trailing spaces";
    return NULL;
}

const char *am__id_check(const char *id)
{
    return am__id_problem(id, NULL);
}

int am__hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int am__errf(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}
