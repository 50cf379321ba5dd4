/* SPDX-License-Identifier: Apache-2.0 */
/*
 * redact.c -- secrets dropped, PII replaced by numbered placeholders.
 *
 * Detection is four passes, each one linear scan that skips the spans an
 * earlier pass claimed (secrets, then e-mails, then letter-led codes --
 * IBANs, passport numbers -- then numbers); then every
 * other literal occurrence of a found value is claimed too; then, because a
 * claimed span changes what its neighbours see, detection runs again on
 * what is left until a round changes nothing; then the output is assembled.
 * See redact.h for the rules and their reasons.
 *
 * Spans are byte ranges [s, e) of the input.  A matcher claims bytes only
 * inside the free region [lo, hi) it is given, and reads its left and
 * right neighbours through those bounds: a claimed byte reads as the '['
 * or ']' of the placeholder it will become.  That is what makes redacting
 * the output a no-op (the fuzz target checks it).  Secret values are never
 * copied into any allocation; only PII originals are duplicated, into the
 * result.
 */
#include "text/redact.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/lexicon/lexicon.h"

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */

static int lower(int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }
static int upper(int c) { return (c >= 'a' && c <= 'z') ? c - 32 : c; }
static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_dig(int c) { return c >= '0' && c <= '9'; }
static int is_alnum(int c) { return is_alpha(c) || is_dig(c); }

/* Byte at k as an unsigned int, or -1 outside [0, n). */
static int byte_at(const char *t, size_t n, size_t k)
{
    return k < n ? (unsigned char)t[k] : -1;
}

static int starts(const char *t, size_t n, size_t k, const char *lit)
{
    size_t m = strlen(lit);
    return k <= n && n - k >= m && memcmp(t + k, lit, m) == 0;
}

/* A digit at t[k]: ASCII (1 byte) or full-width U+FF10..FF19 (3 bytes).
 * Returns its byte length (0 if none) and its value in *d. */
static int digit_at(const char *t, size_t n, size_t k, int *d)
{
    int c = byte_at(t, n, k);
    if (c < 0) return 0;
    if (is_dig(c)) { if (d) *d = c - '0'; return 1; }
    if (c == 0xEF && k + 2 < n && (unsigned char)t[k + 1] == 0xBC) {
        int c2 = (unsigned char)t[k + 2];
        if (c2 >= 0x90 && c2 <= 0x99) { if (d) *d = c2 - 0x90; return 3; }
    }
    return 0;
}

/* The digit (if any) that ends right before k. */
static int digit_before(const char *t, size_t n, size_t k)
{
    if (k == 0) return 0;
    if (is_dig((unsigned char)t[k - 1])) return 1;
    return k >= 3 && digit_at(t, n, k - 3, NULL) == 3;
}

/* Full-width Latin letters U+FF21..FF3A, U+FF41..FF5A at k. */
static int fw_letter_at(const char *t, size_t n, size_t k)
{
    if (k + 2 >= n || (unsigned char)t[k] != 0xEF) return 0;
    int b1 = (unsigned char)t[k + 1], b2 = (unsigned char)t[k + 2];
    return (b1 == 0xBC && b2 >= 0xA1 && b2 <= 0xBA) ||
           (b1 == 0xBD && b2 >= 0x81 && b2 <= 0x9A);
}

/* Full-width 'Ｘ' or 'ｘ' at k (the check character of an ID number). */
static int fw_x_at(const char *t, size_t n, size_t k)
{
    return byte_at(t, n, k) == 0xEF &&
           ((byte_at(t, n, k + 1) == 0xBC && byte_at(t, n, k + 2) == 0xB8) ||
            (byte_at(t, n, k + 1) == 0xBD && byte_at(t, n, k + 2) == 0x98));
}

/* Space-like at k (ASCII space/tab, NBSP, ideographic space): byte length. */
static int space_at(const char *t, size_t n, size_t k)
{
    int c = byte_at(t, n, k);
    if (c == ' ' || c == '\t') return 1;
    if (c == 0xC2 && byte_at(t, n, k + 1) == 0xA0) return 2;
    if (c == 0xE3 && byte_at(t, n, k + 1) == 0x80 && byte_at(t, n, k + 2) == 0x80) return 3;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Validators                                                           */

int am__luhn_ok(const char *digits, size_t n)
{
    if (!digits || n < 2) return 0;
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)digits[n - 1 - i];
        if (!is_dig(c)) return 0;
        unsigned d = (unsigned)(c - '0');
        if (i & 1) { d *= 2; if (d > 9) d -= 9; }
        sum += d;
    }
    return sum % 10 == 0;
}

static int cn_province_ok(int code)
{
    static const unsigned char codes[] = {11, 12, 13, 14, 15, 21, 22, 23, 31, 32, 33, 34,
                                          35, 36, 37, 41, 42, 43, 44, 45, 46, 50, 51, 52,
                                          53, 54, 61, 62, 63, 64, 65, 71, 81, 82, 83};
    for (size_t i = 0; i < sizeof codes; i++)
        if (codes[i] == code) return 1;
    return 0;
}

static int date_ok(int y, int m, int d)
{
    static const unsigned char dim[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < 1900 || y > 2099 || m < 1 || m > 12 || d < 1) return 0;
    int max = dim[m - 1];
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) max = 29;
    return d <= max;
}

static int num_of(const char *s, int len)
{
    int v = 0;
    for (int i = 0; i < len; i++) v = v * 10 + (s[i] - '0');
    return v;
}

int am__cn_id_ok(const char *s, size_t n)
{
    static const unsigned char w[17] = {7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2};
    static const char check[] = "10X98765432";
    if (!s || n != 18) return 0;
    unsigned sum = 0;
    for (int i = 0; i < 17; i++) {
        if (!is_dig((unsigned char)s[i])) return 0;
        sum += (unsigned)(s[i] - '0') * w[i];
    }
    char last = s[17] == 'x' ? 'X' : s[17];
    if (last != check[sum % 11]) return 0;
    if (!cn_province_ok(num_of(s, 2))) return 0;
    return date_ok(num_of(s + 6, 4), num_of(s + 10, 2), num_of(s + 12, 2));
}

/* ------------------------------------------------------------------ */
/* Spans                                                                */

typedef struct span {
    size_t s, e;
    int type;
} span;

typedef struct spans {
    span *v;
    size_t n, cap;
} spans;

typedef struct rx {
    const am__allocator *a;
    const char *t;
    size_t n;
    int oom;
    spans taken; /* sorted, disjoint: what earlier passes claimed */
    spans cur;   /* this pass, sorted, disjoint from taken */
    unsigned long changes; /* bumped whenever taken changes */
} rx;

static void spans_free(rx *r, spans *sp)
{
    am__free(r->a, sp->v);
    sp->v = NULL;
    sp->n = sp->cap = 0;
}

static void spans_push(rx *r, spans *sp, size_t s, size_t e, int type)
{
    if (r->oom) return;
    if (sp->n == sp->cap) {
        size_t cap = sp->cap ? sp->cap * 2 : 16;
        span *nv = am__realloc(r->a, sp->v, cap * sizeof *nv);
        if (!nv) { r->oom = 1; return; }
        sp->v = nv;
        sp->cap = cap;
    }
    sp->v[sp->n++] = (span){s, e, type};
}

/* Merge r->cur into r->taken (both sorted, disjoint). */
static void merge_cur(rx *r)
{
    if (r->oom || r->cur.n == 0) return;
    spans m = {0};
    size_t need = r->taken.n + r->cur.n;
    m.v = am__malloc(r->a, need * sizeof *m.v);
    if (!m.v) { r->oom = 1; return; }
    m.cap = need;
    size_t i = 0, j = 0;
    while (i < r->taken.n || j < r->cur.n) {
        if (j == r->cur.n || (i < r->taken.n && r->taken.v[i].s < r->cur.v[j].s))
            m.v[m.n++] = r->taken.v[i++];
        else
            m.v[m.n++] = r->cur.v[j++];
    }
    spans_free(r, &r->taken);
    r->taken = m;
    r->cur.n = 0;
    r->changes++;
}

/* Index of the first taken span ending after k. */
static size_t taken_after(const rx *r, size_t k)
{
    size_t lo = 0, hi = r->taken.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->taken.v[mid].e <= k) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static int type_on(const am__redact_policy *p, int type);

/* Does [s, e) overlap a taken span of a kind the policy replaces? */
static int overlaps_enabled(const rx *r, const am__redact_policy *p, size_t s, size_t e)
{
    for (size_t i = taken_after(r, s); i < r->taken.n && r->taken.v[i].s < e; i++)
        if (type_on(p, r->taken.v[i].type)) return 1;
    return 0;
}

/* Cursor over the free regions of a pass.  `pos` is advanced past any
 * taken span; hi is the start of the next taken span (or n), lo the end of
 * the last claimed byte before pos. */
typedef struct walk {
    size_t pos, lo, hi, tk;
} walk;

static void walk_fix(const rx *r, walk *w)
{
    for (;;) {
        while (w->tk < r->taken.n && r->taken.v[w->tk].e <= w->pos) {
            if (r->taken.v[w->tk].e > w->lo) w->lo = r->taken.v[w->tk].e;
            w->tk++;
        }
        if (w->tk < r->taken.n && r->taken.v[w->tk].s <= w->pos) {
            w->pos = w->lo = r->taken.v[w->tk].e;
            w->tk++;
            continue;
        }
        break;
    }
    w->hi = w->tk < r->taken.n ? r->taken.v[w->tk].s : r->n;
}

static void claim(rx *r, walk *w, size_t s, size_t e, int type)
{
    spans_push(r, &r->cur, s, e, type);
    w->pos = w->lo = e;
}

/* ------------------------------------------------------------------ */
/* Pass 1: secrets                                                      */

static size_t skip_spaces(const char *t, size_t n, size_t k)
{
    int l;
    while ((l = space_at(t, n, k)) > 0) k += (size_t)l;
    return k;
}

/* Case-insensitive match of an ASCII cue at k; returns its end or 0. */
static size_t match_en(const char *t, size_t n, size_t k, const char *pat)
{
    for (const char *p = pat; *p; p++) {
        if (*p == ' ') {
            if (k < n && (t[k] == ' ' || t[k] == '-' || t[k] == '_')) k++;
            continue;
        }
        if (k >= n || lower((unsigned char)t[k]) != (unsigned char)*p) return 0;
        k++;
    }
    return k;
}

/* One connector at k (after spaces); returns its strength, *end after it.
 * after_filler: the cue was followed by filler words. */
static int match_conn(const char *t, size_t n, size_t k, int after_filler, size_t *end)
{
    for (size_t i = 0; i < sizeof am__lex_pii_connectors / sizeof *am__lex_pii_connectors; i++) {
        const am__lex_conn *c = &am__lex_pii_connectors[i];
        size_t m = strlen(c->s);
        if (c->word == 2 && after_filler) continue;
        if (c->word) {
            if (match_en(t, n, k, c->s) != k + m) continue;
            if (is_alnum(byte_at(t, n, k + m))) continue;
        } else if (!starts(t, n, k, c->s)) {
            continue;
        }
        *end = k + m;
        return c->strength;
    }
    return AM__LEX_CONN_NONE;
}

/* Connectors after a cue: up to two ("is:"), strongest wins. */
static int parse_conns(const char *t, size_t n, size_t k, int after_filler, size_t *end)
{
    int best = AM__LEX_CONN_NONE;
    size_t e = k;
    for (int round = 0; round < 2; round++) {
        size_t at = skip_spaces(t, n, e), ce;
        int s = match_conn(t, n, at, after_filler, &ce);
        if (s == AM__LEX_CONN_NONE) break;
        if (s > best) best = s;
        e = ce;
    }
    *end = e;
    return best;
}

static const char *const quote_open[] = {"\"", "'", "`", "“", "‘", "「", "『"};
static const char *const quote_close[] = {"\"", "'", "`", "”", "’", "」", "』"};

static int value_char(int c)
{
    return c > 0x20 && c < 0x7F && c != '"' && c != '\'' && c != '`' && c != ',' &&
           c != ';';
}

/* Is t[s..e) a placeholder we wrote ("[SECRET]", "[PHONE_2]")? */
static int is_placeholder(const char *t, size_t s, size_t e)
{
    if (e - s < 3 || t[s] != '[' || t[e - 1] != ']') return 0;
    for (size_t k = s + 1; k + 1 < e; k++) {
        int c = (unsigned char)t[k];
        if (!((c >= 'A' && c <= 'Z') || is_dig(c) || c == '_')) return 0;
    }
    return 1;
}

/* End of a placeholder starting at k, or 0. */
static size_t placeholder_end(const char *t, size_t k, size_t hi)
{
    const char *close = memchr(t + k, ']', hi - k < 24 ? hi - k : 24);
    size_t e = close ? (size_t)(close - t) + 1 : 0;
    return e && is_placeholder(t, k, e) ? e : 0;
}

/* How a cue was said: in Chinese; after an owner ("my password is"). */
enum { CUE_ZH = 1, CUE_OWNED = 2 };

/* Is the value plausible for its cue?  how: CUE_* flags. */
static int value_ok(const char *t, size_t s, size_t e, int kind, int strength, int how)
{
    int zh = how & CUE_ZH;
    size_t len = e - s;
    int digits = 0, letters = 0, symbols = 0, inner_upper = 0, masks = 0;
    if (len == 0 || len > 4096 || is_placeholder(t, s, e)) return 0;
    for (size_t k = s; k < e; k++) {
        int c = (unsigned char)t[k];
        if (is_dig(c)) digits++;
        else if (is_alpha(c)) { letters++; if (k > s && c >= 'A' && c <= 'Z') inner_upper = 1; }
        else if (c < 0x80) symbols++;
        if (c == '*' || c == 'x' || c == 'X' || c == '.' || c == '-' || c == '_') masks++;
    }
    if ((size_t)masks == len) return 0; /* "****", "xxxx": already masked */
    switch (kind) {
    case AM__LEX_SECRET_CODE:
        return (size_t)digits == len && len >= 3 && len <= 8;
    case AM__LEX_SECRET_BEARER:
        return len >= 16 && (digits || inner_upper || symbols);
    case AM__LEX_SECRET_TOKEN:
        if (len < 8) return 0;
        if (!digits && len < 20) return 0;
        break;
    default:
        break;
    }
    if ((size_t)letters == len) {
        for (size_t i = 0; i < sizeof am__lex_pii_stop_values / sizeof *am__lex_pii_stop_values;
             i++) {
            const char *w = am__lex_pii_stop_values[i];
            if (strlen(w) == len && match_en(t, e, s, w) == e) return 0;
        }
    }
    if (zh || strength == AM__LEX_CONN_STRONG) return len >= 3;
    /* English cue with "is"/"to"/nothing: prose unless it looks like one.
     * A final '!' is punctuation here ("your secret ingredient!"). */
    if (t[e - 1] == '!') symbols--;
    if (strength == AM__LEX_CONN_NONE) return len >= 4 && (digits || (symbols && len >= 6));
    /* "my secret is swordfish": an owner declares a value, a plain word
     * counts (the stop values above still hold) */
    return len >= 4 && (digits || symbols || inner_upper || (how & CUE_OWNED));
}

/* A plain word (letters only, lower case after the first) followed by two
 * more lower-case words: "secret: from now on ..." is the start of a
 * sentence, not a value. */
static int prose_follows(const char *t, size_t s, size_t e, size_t hi)
{
    for (size_t k = s; k < e; k++)
        if (!is_alpha((unsigned char)t[k]) || (k > s && t[k] >= 'A' && t[k] <= 'Z')) return 0;
    size_t k = e;
    for (int words = 0; words < 2; words++) {
        if (k >= hi || t[k] != ' ') return 0;
        size_t ws = ++k;
        while (k < hi && t[k] >= 'a' && t[k] <= 'z') k++;
        if (k == ws || (k < hi && is_alnum((unsigned char)t[k]))) return 0;
    }
    return 1;
}

static int han_at(const char *t, size_t n, size_t k);

/* A Chinese value: a run of 1-16 Han characters not led by a word that
 * makes it a clause ("是多少", "不对", "用生日"); its end, or 0. */
static size_t han_value(const char *t, size_t s, size_t hi)
{
    for (size_t i = 0; i < sizeof am__lex_pii_stop_values_zh / sizeof *am__lex_pii_stop_values_zh;
         i++)
        if (starts(t, hi, s, am__lex_pii_stop_values_zh[i])) return 0;
    size_t e = s;
    int l, chars = 0;
    while (chars <= 16 && (l = han_at(t, hi, e)) > 0) {
        e += (size_t)l;
        chars++;
    }
    return chars >= 1 && chars <= 16 ? e : 0;
}

/* Drop sentence punctuation and unbalanced closing brackets at the end. */
static size_t trim_value(const char *t, size_t s, size_t e)
{
    static const char open[] = "([{<", close[] = ")]}>";
    while (e > s) {
        char c = t[e - 1];
        const char *cp = strchr(close, c);
        if (c == '.' || c == ':' || c == '?') { e--; continue; }
        if (c && cp && !memchr(t + s, open[cp - close], e - s)) { e--; continue; }
        break;
    }
    return e;
}

/* The value after a cue ending at k; returns 1 with [*vs, *ve) claimed.
 * May skip up to three filler words ("password for the wifi is x"). */
static int cue_value(const char *t, size_t n, size_t k, size_t hi, int kind, int how,
                     int need_strong, size_t *vs, size_t *ve)
{
    int zh = how & CUE_ZH;
    size_t at;
    int strength = parse_conns(t, n, k, 0, &at);
    if (strength == AM__LEX_CONN_NONE && !zh) {
        size_t w = k;
        for (int words = 0; words < 3; words++) {
            w = skip_spaces(t, n, w);
            size_t ws = w;
            while (w < n && is_alpha((unsigned char)t[w]) && w - ws < 12) w++;
            if (w == ws || is_alnum(byte_at(t, n, w))) break;
            size_t a2;
            int s2 = parse_conns(t, n, w, 1, &a2);
            if (s2 != AM__LEX_CONN_NONE) {
                strength = s2;
                at = a2;
                break;
            }
        }
    }
    if (need_strong && strength != AM__LEX_CONN_STRONG) return 0;
    at = skip_spaces(t, n, at);
    if (at >= hi) return 0;
    /* Quoted value: may hold spaces. */
    for (size_t q = 0; q < sizeof quote_open / sizeof *quote_open; q++) {
        if (!starts(t, n, at, quote_open[q])) continue;
        size_t s = at + strlen(quote_open[q]);
        size_t lim = s + 256 < hi ? s + 256 : hi;
        for (size_t e = s; e < lim; e++) {
            if (t[e] == '\n' || (t[e] == '[' && placeholder_end(t, e, hi))) break;
            if (starts(t, lim, e, quote_close[q])) {
                if (e > s && value_ok(t, s, e, kind, AM__LEX_CONN_STRONG, how)) {
                    *vs = s;
                    *ve = e;
                    return 1;
                }
                return 0;
            }
        }
        break; /* no closing quote: read it unquoted, without the quote */
    }
    size_t s = at;
    while (s < hi && (t[s] == '"' || t[s] == '\'' || t[s] == '`')) s++;
    /* "口令：芝麻开门": a Chinese cue, a real connector, a Chinese value */
    if (zh && strength == AM__LEX_CONN_STRONG && kind == AM__LEX_SECRET_PWD &&
        han_at(t, hi, s)) {
        size_t e = han_value(t, s, hi);
        if (!e) return 0;
        *vs = s;
        *ve = e;
        return 1;
    }
    /* A value stops at a placeholder ("[SECRET]" already) as it stops at a
     * claimed span: the same text must read the same once redacted. */
    size_t e = s;
    while (e < hi && value_char((unsigned char)t[e]) && !(t[e] == '[' && placeholder_end(t, e, hi)))
        e++;
    e = trim_value(t, s, e);
    if (e == s || !value_ok(t, s, e, kind, strength, how)) return 0;
    if (!zh && !(how & CUE_OWNED) && prose_follows(t, s, e, hi)) return 0;
    *vs = s;
    *ve = e;
    return 1;
}

/* One of the two words before k (each after one space, not before lo) is
 * an owner: "my password", "our wifi password" (lexicon/pii.c). */
static int owned_at(const char *t, size_t k, size_t lo)
{
    for (int words = 0; words < 2; words++) {
        if (k < lo + 2 || t[k - 1] != ' ') return 0;
        size_t e = k - 1, b = e;
        while (b > lo && is_alpha((unsigned char)t[b - 1])) b--;
        if (b == e || (b > lo && is_alnum((unsigned char)t[b - 1]))) return 0;
        for (size_t i = 0; i < sizeof am__lex_pii_owners / sizeof *am__lex_pii_owners; i++)
            if (strlen(am__lex_pii_owners[i]) == e - b &&
                match_en(t, e, b, am__lex_pii_owners[i]) == e)
                return 1;
        k = b;
    }
    return 0;
}

/* English cue at a word start k.  Returns 1 and the value span. */
static int en_cue(const char *t, size_t n, size_t k, size_t lo, size_t hi, size_t *vs, size_t *ve)
{
    int c0 = lower((unsigned char)t[k]), c1 = lower(byte_at(t, n, k + 1));
    for (size_t i = 0; i < sizeof am__lex_pii_secret_en / sizeof *am__lex_pii_secret_en; i++) {
        const am__lex_secret_cue *c = &am__lex_pii_secret_en[i];
        if ((unsigned char)c->pat[0] != c0 || (unsigned char)c->pat[1] != c1) continue;
        size_t e = match_en(t, n, k, c->pat);
        if (!e) continue;
        int need_strong = 0;
        int nx = byte_at(t, n, e);
        if (nx == '_') { /* DB_PASSWORD_PROD=...: an identifier tail */
            while (e < n && (is_alnum((unsigned char)t[e]) || t[e] == '_')) e++;
            need_strong = 1;
        } else if (is_alnum(nx)) {
            continue; /* "passwords", "tokenize", "pinned" */
        }
        return cue_value(t, n, e, hi, c->kind, owned_at(t, k, lo) ? CUE_OWNED : 0, need_strong,
                         vs, ve);
    }
    return 0;
}

/* Runs at every Han character, so it compares the first character's
 * last two bytes before anything else. */
static int zh_cue(const char *t, size_t n, size_t k, size_t hi, size_t *vs, size_t *ve)
{
    if (n - k < 6) return 0;
    unsigned char b0 = (unsigned char)t[k], b1 = (unsigned char)t[k + 1],
                  b2 = (unsigned char)t[k + 2];
    for (size_t i = 0; i < sizeof am__lex_pii_secret_zh / sizeof *am__lex_pii_secret_zh; i++) {
        const unsigned char *p = (const unsigned char *)am__lex_pii_secret_zh[i].pat;
        if (p[2] != b2 || p[1] != b1 || p[0] != b0) continue;
        size_t m = strlen(am__lex_pii_secret_zh[i].pat);
        if (n - k < m || memcmp(t + k + 3, p + 3, m - 3) != 0) continue;
        return cue_value(t, n, k + m, hi, am__lex_pii_secret_zh[i].kind, CUE_ZH, 0, vs, ve);
    }
    return 0;
}

/* Well-known token shapes, prefix included, at a word start. */
enum { CS_UPNUM, CS_ALNUM, CS_ALNUM_, CS_ALNUM_DASH };

typedef struct tokfmt {
    const char *prefix;
    unsigned char cs;
    unsigned short min, max; /* length after the prefix */
    unsigned char need_digit;
} tokfmt;

static const tokfmt tokfmts[] = {
    {"AKIA", CS_UPNUM, 16, 16, 0},       {"ASIA", CS_UPNUM, 16, 16, 0},
    {"ghp_", CS_ALNUM, 30, 255, 0},      {"gho_", CS_ALNUM, 30, 255, 0},
    {"ghu_", CS_ALNUM, 30, 255, 0},      {"ghs_", CS_ALNUM, 30, 255, 0},
    {"ghr_", CS_ALNUM, 30, 255, 0},      {"github_pat_", CS_ALNUM_, 20, 255, 0},
    {"glpat-", CS_ALNUM_DASH, 20, 255, 0}, {"sk_live_", CS_ALNUM, 16, 255, 0},
    {"sk_test_", CS_ALNUM, 16, 255, 0},  {"rk_live_", CS_ALNUM, 16, 255, 0},
    {"rk_test_", CS_ALNUM, 16, 255, 0},  {"sk-", CS_ALNUM_DASH, 16, 255, 1},
    {"xoxb-", CS_ALNUM_DASH, 10, 255, 0}, {"xoxp-", CS_ALNUM_DASH, 10, 255, 0},
    {"xoxa-", CS_ALNUM_DASH, 10, 255, 0}, {"xoxr-", CS_ALNUM_DASH, 10, 255, 0},
    {"xoxs-", CS_ALNUM_DASH, 10, 255, 0}, {"AIza", CS_ALNUM_DASH, 30, 255, 0},
    {"LTAI", CS_ALNUM, 12, 30, 0},       {"hf_", CS_ALNUM, 30, 255, 0},
    {"npm_", CS_ALNUM, 30, 255, 0},
};

static int in_cs(int c, int cs)
{
    switch (cs) {
    case CS_UPNUM: return (c >= 'A' && c <= 'Z') || is_dig(c);
    case CS_ALNUM: return is_alnum(c);
    case CS_ALNUM_: return is_alnum(c) || c == '_';
    default: return is_alnum(c) || c == '_' || c == '-';
    }
}

static size_t b64url_run(const char *t, size_t k, size_t hi)
{
    size_t e = k;
    while (e < hi && in_cs((unsigned char)t[e], CS_ALNUM_DASH)) e++;
    return e - k;
}

static size_t token_shape(const char *t, size_t n, size_t k, size_t hi)
{
    /* The first two letters of every shape: most words leave here. */
    static const char two[] = "AKASghgiglskrkxoAILThfnpey";
    int hit = 0;
    for (size_t i = 0; i + 1 < sizeof two && !hit; i += 2)
        hit = k + 1 < hi && t[k] == two[i] && t[k + 1] == two[i + 1];
    if (!hit) return 0;
    /* JWT: eyJ<header>.eyJ<payload>.<signature> */
    if (starts(t, hi, k, "eyJ")) {
        size_t a = b64url_run(t, k, hi);
        if (a >= 10 && k + a < hi && t[k + a] == '.' && starts(t, hi, k + a + 1, "eyJ")) {
            size_t p = k + a + 1, b = b64url_run(t, p, hi);
            if (b >= 10 && p + b < hi && t[p + b] == '.') {
                size_t q = p + b + 1, c = b64url_run(t, q, hi);
                return q + c - k >= 30 ? q + c : 0;
            }
        }
        return 0;
    }
    for (size_t i = 0; i < sizeof tokfmts / sizeof *tokfmts; i++) {
        const tokfmt *f = &tokfmts[i];
        if (!starts(t, hi, k, f->prefix)) continue;
        size_t s = k + strlen(f->prefix), e = s;
        int digit = 0;
        while (e < hi && in_cs((unsigned char)t[e], f->cs)) digit |= is_dig((unsigned char)t[e++]);
        if (e < n && is_alnum((unsigned char)t[e])) return 0; /* glued to more */
        if (e - s < f->min || e - s > f->max || (f->need_digit && !digit)) return 0;
        return e;
    }
    return 0;
}

/* A PEM label ("RSA PRIVATE KEY") at k followed by "-----": its end. */
static size_t pem_label(const char *t, size_t k, size_t hi)
{
    size_t e = k;
    while (e < hi && e - k < 64 &&
           ((t[e] >= 'A' && t[e] <= 'Z') || is_dig((unsigned char)t[e]) || t[e] == ' '))
        e++;
    return starts(t, hi, e, "-----") ? e : 0;
}

/* "-----BEGIN ... PRIVATE KEY-----" .. "-----END ... PRIVATE KEY-----";
 * an unterminated block runs to the end of the free region. */
static size_t pem_block(const char *t, size_t k, size_t hi)
{
    if (!starts(t, hi, k, "-----BEGIN ")) return 0;
    size_t p = k + 11, h = pem_label(t, p, hi);
    if (!h) return 0;
    int priv = 0;
    for (size_t q = p; q + 11 <= h; q++)
        if (memcmp(t + q, "PRIVATE KEY", 11) == 0) priv = 1;
    if (!priv) return 0;
    for (size_t q = h + 5; q + 8 <= hi; q++) {
        if (memcmp(t + q, "-----END", 8) != 0) continue;
        size_t z = pem_label(t, q + 8, hi);
        return z ? z + 5 : q + 8;
    }
    return hi;
}

/* "scheme://user:pass@host" at the ':' of "://": the password span. */
static int conn_string(const char *t, size_t k, size_t lo, size_t hi, size_t *vs, size_t *ve)
{
    if (!starts(t, hi, k, "://") || k == lo || !is_alnum((unsigned char)t[k - 1])) return 0;
    size_t u = k + 3, lim = u + 512 < hi ? u + 512 : hi, colon = 0, at = 0;
    for (size_t q = u; q < lim; q++) {
        int c = (unsigned char)t[q];
        if (c <= 0x20 || c >= 0x7F || c == '/' || c == '?' || c == '#') break;
        if (c == '[' && placeholder_end(t, q, hi)) break;
        if (c == ':' && !colon) colon = q;
        if (c == '@') at = q; /* the last '@' of the authority */
    }
    if (!colon || !at || at < colon + 2 || is_placeholder(t, colon + 1, at)) return 0;
    *vs = colon + 1;
    *ve = at;
    return 1;
}

static int is_word_start(const char *t, size_t k, size_t lo)
{
    return k <= lo || !is_alnum((unsigned char)t[k - 1]);
}

static void pass_secrets(rx *r)
{
    const char *t = r->t;
    size_t n = r->n;
    walk w = {0, 0, n, 0};
    while (w.pos < n) {
        walk_fix(r, &w);
        if (w.pos >= n) break;
        size_t k = w.pos, e, vs, ve;
        int c = (unsigned char)t[k];
        if (c == '[' && (e = placeholder_end(t, k, w.hi)) != 0) {
            w.pos = e; /* "[SECRET]" is not the cue "secret" */
            continue;
        }
        if (c == '-' && (e = pem_block(t, k, w.hi)) != 0) {
            claim(r, &w, k, e, AM_SECRET);
            continue;
        }
        if (c == ':' && conn_string(t, k, w.lo, w.hi, &vs, &ve)) {
            claim(r, &w, vs, ve, AM_SECRET);
            continue;
        }
        if (is_alpha(c) && is_word_start(t, k, w.lo)) {
            if ((e = token_shape(t, w.hi, k, w.hi)) != 0) {
                claim(r, &w, k, e, AM_SECRET);
                continue;
            }
            if (en_cue(t, w.hi, k, w.lo, w.hi, &vs, &ve)) {
                claim(r, &w, vs, ve, AM_SECRET);
                continue;
            }
            while (w.pos < w.hi && is_alnum((unsigned char)t[w.pos])) w.pos++;
            continue;
        }
        if (c >= 0xE4 && c <= 0xE9 && zh_cue(t, w.hi, k, w.hi, &vs, &ve)) {
            claim(r, &w, vs, ve, AM_SECRET);
            continue;
        }
        w.pos++;
    }
}

/* ------------------------------------------------------------------ */
/* Pass 2: e-mail addresses                                             */

static int local_char(int c)
{
    return is_alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
}

static int label_char(int c) { return is_alnum(c) || c == '-'; }

/* Length of a Han character at k (0 if none). */
static int han_at(const char *t, size_t n, size_t k)
{
    uint32_t cp;
    if (k >= n || (unsigned char)t[k] < 0xE0) return 0;
    int l = am__utf8_decode(t + k, n - k, &cp);
    return l > 1 && am__is_han(cp) ? l : 0;
}

/* Domain at k: returns its end or 0.  Labels are ASCII letters, digits and
 * '-', plus Han characters inside a label that is not the last one
 * ("@jin算盘finance.com"); the TLD is two or more ASCII letters and ends at
 * the first other character, so "a@b.com我明天到" ends after "com". */
static size_t email_domain(const char *t, size_t n, size_t k, size_t hi)
{
    size_t lim = k + 253 < hi ? k + 253 : hi, e = k, end = 0;
    int labels = 0;
    for (;;) {
        size_t ls = e;
        int l;
        for (;;) {
            if (e < lim && label_char((unsigned char)t[e])) e++;
            else if ((l = han_at(t, lim, e)) > 0) e += (size_t)l;
            else break;
        }
        if (e == ls || e - ls > 63 || t[ls] == '-' || t[e - 1] == '-') break;
        labels++;
        if (e + 1 < lim && t[e] == '.' && label_char((unsigned char)t[e + 1])) { e++; continue; }
        if (e + 1 < lim && t[e] == '.' && han_at(t, lim, e + 1)) { e++; continue; }
        /* the last label: its leading ASCII letters are the TLD */
        size_t q = ls;
        while (q < e && is_alpha((unsigned char)t[q])) q++;
        if (labels >= 2 && q - ls >= 2 && (q == e || han_at(t, lim, q))) end = q;
        break;
    }
    if (!end) return 0;
    int nx = byte_at(t, n, end);
    if (is_alnum(nx) || nx == '-' || nx == '_' || nx == '@') return 0;
    if (nx == '.' && label_char(byte_at(t, n, end + 1))) return 0; /* TLD check failed later */
    if (nx == ':' && is_alnum(byte_at(t, n, end + 1))) { /* git@host:path */
        /* unless what follows the ':' is itself an address ("a@b.com:c@d.com"):
         * found later in this pass, it would make this one an address on the
         * next round, after a later detector may have claimed part of it */
        size_t q = end + 1;
        while (q < n && q - end < 66 && local_char((unsigned char)t[q])) q++;
        if (byte_at(t, n, q) != '@') return 0;
    }
    return end;
}

static void pass_emails(rx *r)
{
    const char *t = r->t;
    size_t n = r->n;
    walk w = {0, 0, n, 0};
    while (w.pos < n) {
        walk_fix(r, &w);
        if (w.pos >= n) break;
        const char *at = memchr(t + w.pos, '@', w.hi - w.pos);
        if (!at) { w.pos = w.hi; continue; }
        size_t p = (size_t)(at - t), ls = p;
        while (ls > w.lo && p - ls < 64 && local_char((unsigned char)t[ls - 1])) ls--;
        while (ls < p && t[ls] == '.') ls++;
        size_t de = 0;
        if (ls < p && t[p - 1] != '.' && (ls == w.lo || !local_char((unsigned char)t[ls - 1])) &&
            !(ls >= w.lo + 2 && t[ls - 1] == '/' && t[ls - 2] == '/')) /* scheme://user@host */
            de = email_domain(t, w.hi, p + 1, w.hi);
        if (de) {
            claim(r, &w, ls, de, AM_PII_EMAIL);
        } else {
            w.pos = p + 1;
        }
    }
}

/* ------------------------------------------------------------------ */
/* Pass 3: numbers                                                      */

enum { SEP_NONE, SEP_SP, SEP_DASH, SEP_DOT, SEP_PAREN };
#define MAXG 8
#define MAXD 40

typedef struct ntok {
    size_t start;
    int plus, paren; /* led by '+', by '(' */
    int ng;
    size_t gs[MAXG], ge[MAXG];
    int gd[MAXG];            /* digits in group g */
    int sep[MAXG];           /* separator after group g */
    char dig[MAXD + 1];      /* all digits, ASCII */
    int nd, toolong;
    size_t xend;             /* after a trailing X/x of group 0, or 0 */
} ntok;

/* One separator character at k: its kind and byte length. */
static int sep_char(const char *t, size_t n, size_t k, int *len)
{
    int c = byte_at(t, n, k), l;
    if ((l = space_at(t, n, k)) > 0) { *len = l; return SEP_SP; }
    if (c == '-') { *len = 1; return SEP_DASH; }
    if (c == '.') { *len = 1; return SEP_DOT; }
    if (c == '(' || c == ')') { *len = 1; return SEP_PAREN; }
    if (c == 0xEF && byte_at(t, n, k + 1) == 0xBC) {
        int c2 = byte_at(t, n, k + 2);
        if (c2 == 0x8D) { *len = 3; return SEP_DASH; }
        if (c2 == 0x88 || c2 == 0x89) { *len = 3; return SEP_PAREN; }
    }
    if (c == 0xE2 && byte_at(t, n, k + 1) == 0x80 && byte_at(t, n, k + 2) == 0x93) {
        *len = 3;
        return SEP_DASH;
    }
    return SEP_NONE;
}

/* A separator (1-2 characters, a second only with a parenthesis) followed by
 * a digit.  Returns its kind (SEP_NONE if none) and *end. */
static int read_sep(const char *t, size_t n, size_t k, size_t hi, size_t *end)
{
    int l1, l2, k1 = sep_char(t, hi, k, &l1);
    if (k1 == SEP_NONE) return SEP_NONE;
    size_t p = k + (size_t)l1;
    if (digit_at(t, hi, p, NULL)) { *end = p; return k1; }
    int k2 = sep_char(t, hi, p, &l2);
    if (k2 == SEP_NONE || (k1 != SEP_PAREN && k2 != SEP_PAREN)) return SEP_NONE;
    p += (size_t)l2;
    if (!digit_at(t, hi, p, NULL)) return SEP_NONE;
    *end = p;
    (void)n;
    return SEP_PAREN;
}

static int plus_at(const char *t, size_t n, size_t k)
{
    if (byte_at(t, n, k) == '+') return 1;
    if (byte_at(t, n, k) == 0xEF && byte_at(t, n, k + 1) == 0xBC && byte_at(t, n, k + 2) == 0x8B)
        return 3;
    return 0;
}

static int lparen_at(const char *t, size_t n, size_t k)
{
    if (byte_at(t, n, k) == '(') return 1;
    if (byte_at(t, n, k) == 0xEF && byte_at(t, n, k + 1) == 0xBC && byte_at(t, n, k + 2) == 0x88)
        return 3;
    return 0;
}

/* Parse digit groups starting at k (a digit, '+', or '(') up to hi. */
static void parse_ntok(const char *t, size_t n, size_t k, size_t hi, ntok *nt)
{
    memset(nt, 0, sizeof *nt);
    nt->start = k;
    int l;
    if ((l = lparen_at(t, hi, k)) > 0) { nt->paren = 1; k += (size_t)l; }
    if ((l = plus_at(t, hi, k)) > 0) { nt->plus = 1; k += (size_t)l; }
    for (;;) {
        size_t gs = k;
        int d, cnt = 0;
        while ((l = digit_at(t, hi, k, &d)) > 0) {
            if (nt->nd < MAXD) nt->dig[nt->nd++] = (char)('0' + d);
            else nt->toolong = 1;
            cnt++;
            k += (size_t)l;
        }
        int g = nt->ng++;
        nt->gs[g] = gs;
        nt->ge[g] = k;
        nt->gd[g] = cnt;
        if (cnt > 19) nt->toolong = 1;
        if (g == 0) {
            int c = byte_at(t, hi, k);
            if (c == 'X' || c == 'x') nt->xend = k + 1;
            else if (fw_x_at(t, hi, k)) nt->xend = k + 3;
        }
        /* No pattern needs more than 19 digits: a list of numbers separated
         * by spaces is read a few at a time, not all at once. */
        size_t next;
        int s = nt->toolong || nt->ng == MAXG || nt->nd > 24 ? SEP_NONE
                                                              : read_sep(t, n, k, hi, &next);
        if (s == SEP_NONE) break;
        nt->sep[g] = s;
        k = next;
    }
    nt->dig[nt->nd] = 0;
}

/* Digits of groups [0, k) and their count. */
static int ndig(const ntok *nt, int k)
{
    int s = 0;
    for (int g = 0; g < k; g++) s += nt->gd[g];
    return s;
}

static int ci_starts(const char *t, size_t n, size_t k, const char *s)
{
    for (; *s; s++, k++)
        if (k >= n || lower((unsigned char)t[k]) != (unsigned char)*s) return 0;
    return 1;
}

/* The nearest cue before k in the same sentence (at most 48 bytes back, not
 * before lo, the end of the last claimed span, and not across a ']': the
 * context must look the same once spans are placeholders, or redacting
 * twice would not be a no-op).  Returns its class; *dist = bytes between
 * the cue's end and k. */
static const char *const cue_stops[] = {"。", "！", "？", "；", "\n", ";", "!", "?", "]"};

/* first[c]: 1 if a cue starts with byte c, 2 if a stop does. */
static void cue_first_bytes(unsigned char first[256])
{
    memset(first, 0, 256);
    for (size_t i = 0; i < sizeof am__lex_pii_number_cues / sizeof *am__lex_pii_number_cues; i++)
        first[(unsigned char)am__lex_pii_number_cues[i].s[0]] = 1;
    for (size_t i = 0; i < sizeof cue_stops / sizeof *cue_stops; i++)
        first[(unsigned char)cue_stops[i][0]] |= 2;
}

/* want == AM__LEX_NUM_NONE: the nearest cue's class.  Otherwise the
 * nearest cue of class `want` in the same window, past cues of other
 * classes ("passport no. E1234567"), or NONE. */
static int cue_scan(const char *t, size_t n, size_t k, size_t lo_bound,
                    const unsigned char first[256], int want, size_t *dist)
{
    const char *const *stops = cue_stops;
    size_t lo = k > 48 ? k - 48 : 0;
    if (lo < lo_bound) lo = lo_bound;
    for (size_t p = k; p-- > lo;) {
        int c = lower((unsigned char)t[p]);
        if (!first[c]) continue;
        if (first[c] & 2)
            for (size_t i = 0; i < sizeof cue_stops / sizeof *cue_stops; i++)
                if (starts(t, k, p, stops[i])) return AM__LEX_NUM_NONE;
        for (size_t i = 0; i < sizeof am__lex_pii_number_cues / sizeof *am__lex_pii_number_cues;
             i++) {
            const am__lex_num_cue *q = &am__lex_pii_number_cues[i];
            if ((unsigned char)q->s[0] != c || !ci_starts(t, k, p, q->s)) continue;
            size_t e = p + strlen(q->s);
            if (q->word && p > lo && is_alpha((unsigned char)t[p - 1])) continue;
            if (q->word == 2 && is_alpha(byte_at(t, n, e))) continue;
            if (want != AM__LEX_NUM_NONE && q->cls != want) break;
            *dist = k - e;
            return q->cls;
        }
    }
    return AM__LEX_NUM_NONE;
}

static int cue_before(const char *t, size_t n, size_t k, size_t lo_bound,
                      const unsigned char first[256], size_t *dist)
{
    return cue_scan(t, n, k, lo_bound, first, AM__LEX_NUM_NONE, dist);
}

/* A cue of class `want` ends at most `near` bytes before k. */
static int cue_near(const char *t, size_t n, size_t k, size_t lo, const unsigned char first[256],
                    int want, size_t near)
{
    size_t dist = 0;
    return cue_scan(t, n, k, lo, first, want, &dist) == want && dist <= near;
}

/* Units that make the number an amount or a count. */
static int unit_after(const char *t, size_t n, size_t k)
{
    k = skip_spaces(t, n, k);
    for (size_t i = 0; i < sizeof am__lex_pii_units_zh / sizeof *am__lex_pii_units_zh; i++)
        if (starts(t, n, k, am__lex_pii_units_zh[i])) return 1;
    for (size_t i = 0; i < sizeof am__lex_pii_units_en / sizeof *am__lex_pii_units_en; i++)
        if (ci_starts(t, n, k, am__lex_pii_units_en[i]) &&
            !is_alpha(byte_at(t, n, k + strlen(am__lex_pii_units_en[i]))))
            return 1;
    return 0;
}

/* May a number end at e?  Not glued to a letter, '@', '_', a further
 * decimal/range/time/path digit, or followed by a unit.  A claimed span at
 * hi will be a placeholder, which starts with '[': fine. */
static int right_ok(const char *t, size_t n, size_t e, size_t hi)
{
    if (e >= hi) return 1;
    n = hi;
    int c = byte_at(t, n, e);
    if (c < 0) return 1;
    if (is_alnum(c) || c == '_' || c == '@' || fw_letter_at(t, n, e)) return 0;
    if (digit_at(t, n, e, NULL)) return 0;
    if ((c == '.' || c == ',' || c == '-' || c == ':' || c == '/') && digit_at(t, n, e + 1, NULL))
        return 0;
    return !unit_after(t, n, e);
}

/* May a number start at k?  Bytes before lo belong to a claimed span, which
 * will be a placeholder ending in ']': fine. */
static int left_ok(const char *t, size_t n, size_t k, size_t lo)
{
    if (k <= lo) return 1;
    t += lo;
    k -= lo;
    n -= lo;
    int c = (unsigned char)t[k - 1];
    if (is_alnum(c) || c == '_' || c == '/' || c == '@' || c == '\\' || c == '+' || c == '&' ||
        c == '%')
        return 0;
    if (digit_before(t, n, k) || (k >= 3 && fw_letter_at(t, n, k - 3))) return 0;
    if ((c == '.' || c == ',' || c == '-' || c == ':') && k >= 2 &&
        (is_alnum((unsigned char)t[k - 2]) || digit_before(t, n, k - 1)))
        return 0;
    return 1;
}

static int iin_ok(const char *d, int len);

typedef struct nctx {
    const char *t;
    size_t n, lo, hi; /* the free region */
    const unsigned char *first; /* cue_first_bytes() */
    ntok *nt;
    int cue;       /* lazily computed */
    size_t dist;
} nctx;

static int ctx_cue_raw(nctx *c)
{
    if (c->cue < 0) c->cue = cue_before(c->t, c->n, c->nt->start, c->lo, c->first, &c->dist);
    return c->cue;
}

/* The cue as phones and cards see it. */
static int ctx_cue(nctx *c)
{
    int q = ctx_cue_raw(c);
    return q == AM__LEX_NUM_IDW ? AM__LEX_NUM_NEG : q;
}

/* The first-generation (pre-1999) Chinese resident ID: 15 digits, a
 * province code, a birth date 19YYMMDD at digits 7-12, no check digit.
 * Without one, the shape alone is weak: a card cue, or a Luhn-valid
 * American Express number (34/37) without an ID cue, is a card. */
static size_t match_id15(nctx *c)
{
    const ntok *nt = c->nt;
    const char *d = nt->dig;
    if (nt->ng > 1 && nt->sep[0] != SEP_SP) return 0;
    if (!cn_province_ok(num_of(d, 2)) ||
        !date_ok(1900 + num_of(d + 6, 2), num_of(d + 8, 2), num_of(d + 10, 2)))
        return 0;
    size_t e = nt->ge[0];
    if (!right_ok(c->t, c->n, e, c->hi)) return 0;
    int q = ctx_cue_raw(c);
    if (q == AM__LEX_NUM_NEG || q == AM__LEX_NUM_BANK) return 0;
    if (q != AM__LEX_NUM_ID && iin_ok(d, 15) && am__luhn_ok(d, 15)) return 0;
    return e;
}

/* Chinese resident ID: 17 digits + X, or 18 digits, as one group. */
static size_t match_id(nctx *c)
{
    const ntok *nt = c->nt;
    char buf[18];
    size_t e;
    if (nt->plus || nt->paren) return 0;
    if (nt->gd[0] == 18) {
        memcpy(buf, nt->dig, 18);
        e = nt->ge[0];
        if (nt->ng > 1 && nt->sep[0] != SEP_SP) return 0;
    } else if (nt->gd[0] == 17 && nt->xend) {
        memcpy(buf, nt->dig, 17);
        buf[17] = 'X';
        e = nt->xend;
    } else if (nt->gd[0] == 15) {
        return match_id15(c);
    } else {
        return 0;
    }
    if (!am__cn_id_ok(buf, 18) || !right_ok(c->t, c->n, e, c->hi)) return 0;
    return ctx_cue_raw(c) == AM__LEX_NUM_NEG ? 0 : e;
}

/* US social security number: AAA-GG-SSSS (dashes, or spaces or nothing
 * after an SSN cue); area not 000, 666 or 9xx, group not 00, serial not
 * 0000. */
static size_t match_ssn(nctx *c)
{
    const ntok *nt = c->nt;
    if (nt->plus || nt->paren || nt->toolong) return 0;
    int grouped = nt->ng >= 3 && nt->gd[0] == 3 && nt->gd[1] == 2 && nt->gd[2] == 4 &&
                  nt->sep[0] == nt->sep[1];
    int k = grouped ? 3 : 1;
    if (!grouped && nt->gd[0] != 9) return 0;
    int cued = cue_near(c->t, c->n, nt->start, c->lo, c->first, AM__LEX_NUM_SSN, 24);
    if (!cued && !(grouped && nt->sep[0] == SEP_DASH)) return 0;
    if (grouped && nt->sep[0] != SEP_DASH && nt->sep[0] != SEP_SP) return 0;
    const char *d = nt->dig;
    int area = num_of(d, 3);
    if (area == 0 || area == 666 || area >= 900 || num_of(d + 3, 2) == 0 || num_of(d + 5, 4) == 0)
        return 0;
    if (k < nt->ng && nt->sep[k - 1] != SEP_SP) return 0;
    size_t e = nt->ge[k - 1];
    if (!right_ok(c->t, c->n, e, c->hi)) return 0;
    return ctx_cue(c) == AM__LEX_NUM_NEG && !cued ? 0 : e;
}

/* A passport number of digits only (US, UK: 9) right after a passport
 * cue; the letter-led ones ("E12345678") are pass_codes'. */
static size_t match_passport_digits(nctx *c)
{
    const ntok *nt = c->nt;
    if (nt->plus || nt->paren || nt->gd[0] < 6 || nt->gd[0] > 10) return 0;
    if (!cue_near(c->t, c->n, nt->start, c->lo, c->first, AM__LEX_NUM_PASSPORT, 32)) return 0;
    size_t e = nt->ge[0];
    if (nt->ng > 1 && nt->sep[0] != SEP_SP) return 0;
    return right_ok(c->t, c->n, e, c->hi) ? e : 0;
}

/* End of groups [0, k) if the number may end there. */
static size_t end_after(nctx *c, int k)
{
    const ntok *nt = c->nt;
    if (k < nt->ng && nt->sep[k - 1] != SEP_SP) return 0;
    size_t e = nt->ge[k - 1];
    if (k == nt->ng && !right_ok(c->t, c->n, e, c->hi)) return 0;
    if (k < nt->ng && unit_after(c->t, c->hi, e)) return 0;
    return e;
}

/* Mainland mobile: [+86|0086|86] 1[3-9]xxxxxxxxx, contiguous or grouped. */
static size_t match_mobile(nctx *c)
{
    const ntok *nt = c->nt;
    if (nt->toolong) return 0;
    for (int k = 1; k <= nt->ng; k++) {
        int d = ndig(nt, k), off = 0;
        if (d > 15) break;
        if (nt->plus || nt->paren) {
            if (!(d == 13 && memcmp(nt->dig, "86", 2) == 0)) continue;
            off = 2;
        } else if (d == 15 && memcmp(nt->dig, "0086", 4) == 0) {
            off = 4;
        } else if (d == 13 && memcmp(nt->dig, "86", 2) == 0) {
            off = 2;
        } else if (d != 11) {
            continue;
        }
        const char *m = nt->dig + off;
        if (m[0] != '1' || m[1] < '3' || m[1] > '9') continue;
        int bad = 0;
        for (int g = 0; g < k; g++) {
            if (g + 1 < k && nt->sep[g] == SEP_DOT) bad = 1;
            if (nt->paren && g + 1 < k && nt->sep[g] == SEP_PAREN && g != 0) bad = 1;
            int is_cc = off && nt->gd[g] == off && g == 0;
            if (!is_cc && nt->gd[g] < 3) bad = 1;
        }
        if (bad) continue;
        size_t e = end_after(c, k);
        if (!e) continue;
        return ctx_cue(c) == AM__LEX_NUM_NEG ? 0 : e;
    }
    return 0;
}

/* Card-issuer prefixes: Visa, Mastercard, Amex, JCB, Diners, UnionPay,
 * Discover, Maestro, old Chinese 9xxx debit cards. */
static int iin_ok(const char *d, int len)
{
    switch (d[0]) {
    case '2': return len == 16 && num_of(d, 4) >= 2221 && num_of(d, 4) <= 2720;
    case '3':
        if (d[1] == '4' || d[1] == '7') return len == 15;
        if (d[1] == '5') return len >= 16;
        return (d[1] == '0' || d[1] == '6' || d[1] == '8' || d[1] == '9') && len >= 14;
    case '4': return len == 13 || len == 16 || len == 19;
    case '5': case '6': case '9': return len >= 16;
    default: return 0;
    }
}

static int looks_like_date(const char *d)
{
    return date_ok(num_of(d, 4), num_of(d + 4, 2), num_of(d + 6, 2));
}

static size_t match_bank(nctx *c)
{
    const ntok *nt = c->nt;
    if (nt->plus || nt->paren || nt->toolong) return 0;
    for (int k = nt->ng; k >= 1; k--) {
        int d = ndig(nt, k), bad = 0;
        if (d < 13 || d > 19) continue;
        for (int g = 0; g < k; g++) {
            if (k > 1 && (nt->gd[g] < 3 || nt->gd[g] > 8 || (g == 0 && nt->gd[g] < 4))) bad = 1;
            if (g + 1 < k && (nt->sep[g] != nt->sep[0] ||
                              (nt->sep[g] != SEP_SP && nt->sep[g] != SEP_DASH)))
                bad = 1;
        }
        if (bad || !am__luhn_ok(nt->dig, (size_t)d)) continue;
        size_t e = end_after(c, k);
        if (!e) continue;
        int q = ctx_cue(c);
        if (q == AM__LEX_NUM_NEG) return 0;
        if (q != AM__LEX_NUM_BANK && (!iin_ok(nt->dig, d) || (k == 1 && looks_like_date(nt->dig))))
            return 0;
        if (q != AM__LEX_NUM_BANK && d == 18 && k == 1 && cn_province_ok(num_of(nt->dig, 2)) &&
            date_ok(num_of(nt->dig + 6, 4), num_of(nt->dig + 10, 2), num_of(nt->dig + 12, 2)))
            return 0; /* a mistyped ID number, not a card */
        return e;
    }
    return 0;
}

static int date_shaped(const ntok *nt, int k)
{
    if (k != 3 || nt->sep[0] != nt->sep[1] || nt->sep[0] == SEP_SP) return 0;
    return (nt->gd[0] == 4 && nt->gd[1] <= 2 && nt->gd[2] <= 2) ||
           (nt->gd[0] <= 2 && nt->gd[1] <= 2 && nt->gd[2] == 4);
}

/* Other phones: +CC international; (415) 555-2671 / 415-555-2671;
 * 010-88886666, (010)88886666, 020 7946 0958; or any 7-15 digits right
 * after a phone cue. */
static size_t match_phone(nctx *c)
{
    const ntok *nt = c->nt;
    if (nt->toolong) return 0;
    for (int k = nt->ng; k >= 1; k--) {
        int d = ndig(nt, k);
        if (d < 7 || d > 15) continue;
        int all_sp = 1, dots = 0;
        for (int g = 0; g + 1 < k; g++) {
            if (nt->sep[g] != SEP_SP) all_sp = 0;
            if (nt->sep[g] == SEP_DOT) dots++;
        }
        int ok = 0;
        if (nt->plus) {
            ok = d >= 8 && (k == 1 || nt->gd[0] <= 3);
        } else if (nt->paren) {
            ok = nt->sep[0] == SEP_PAREN && k >= 2 &&
                 ((nt->gd[0] == 3 && d == 10 && nt->dig[0] >= '2') ||
                  (nt->dig[0] == '0' && nt->gd[0] >= 3 && nt->gd[0] <= 4 && d >= 10 && d <= 12));
        } else if (k >= 3 && nt->gd[k - 1] == 4 && nt->gd[k - 2] == 3 && nt->gd[k - 3] == 3 &&
                   (k == 3 || (k == 4 && nt->gd[0] == 1 && nt->dig[0] == '1')) &&
                   nt->dig[d - 10] >= '2' && nt->sep[k - 2] == nt->sep[k - 3]) {
            ok = !all_sp || ctx_cue(c) == AM__LEX_NUM_PHONE; /* NANP, 400/800 */
        } else if (nt->dig[0] == '0' && nt->dig[1] != '0' && k >= 2 && k <= 3 &&
                   nt->gd[0] >= 3 && nt->gd[0] <= 4 && d >= 10 && d <= 12 && !dots) {
            ok = 1; /* landline with an area code */
            for (int g = 1; g < k; g++)
                if (nt->gd[g] < 3) ok = 0;
        }
        if (!ok && !dots && !date_shaped(nt, k) && ctx_cue(c) == AM__LEX_NUM_PHONE && c->dist <= 16)
            ok = 1;
        if (!ok || (dots && !(k == 3 || k == 4))) continue;
        size_t e = end_after(c, k);
        if (!e) continue;
        if (ctx_cue(c) == AM__LEX_NUM_NEG) return 0;
        return e;
    }
    return 0;
}

static void pass_numbers(rx *r)
{
    const char *t = r->t;
    size_t n = r->n;
    walk w = {0, 0, n, 0};
    ntok nt;
    size_t strict_until = 0;
    unsigned char first[256];
    cue_first_bytes(first);
    while (w.pos < n) {
        walk_fix(r, &w);
        if (w.pos >= n) break;
        size_t k = w.pos;
        int dl = digit_at(t, w.hi, k, NULL), pl = 0, lp = 0;
        if (!dl) {
            pl = plus_at(t, w.hi, k);
            lp = lparen_at(t, w.hi, k);
            size_t a = k + (size_t)(pl + lp);
            if (lp && plus_at(t, w.hi, a)) a += (size_t)plus_at(t, w.hi, a);
            if (!(pl || lp) || !digit_at(t, w.hi, a, NULL)) { w.pos++; continue; }
        }
        if (!left_ok(t, n, k, w.lo)) {
            /* skip the rest of this digit run */
            w.pos += dl ? (size_t)dl : 1;
            int l;
            while ((l = digit_at(t, w.hi, w.pos, NULL)) > 0) w.pos += (size_t)l;
            continue;
        }
        parse_ntok(t, n, k, w.hi, &nt);
        nctx c = {t, n, w.lo, w.hi, first, &nt, -1, 0};
        int strict = k < strict_until;
        size_t e;
        if ((e = match_id(&c)) != 0) claim(r, &w, k, e, AM_PII_ID_CARD);
        else if ((e = match_ssn(&c)) != 0) claim(r, &w, k, e, AM_PII_SSN);
        else if ((e = match_mobile(&c)) != 0) claim(r, &w, k, e, AM_PII_PHONE);
        else if ((e = match_passport_digits(&c)) != 0) claim(r, &w, k, e, AM_PII_PASSPORT);
        else if (!strict && (e = match_bank(&c)) != 0) claim(r, &w, k, e, AM_PII_BANK_CARD);
        else if (!strict && (e = match_phone(&c)) != 0) claim(r, &w, k, e, AM_PII_PHONE);
        else {
            /* The run failed as a whole ("6222 0212 3456 7890 123" failing
             * Luhn): its tail groups are tried again, but only as an ID
             * number or a mobile ("2024 13812345678"), never as the looser
             * card and landline shapes. */
            if (!strict) strict_until = nt.ge[nt.ng - 1];
            w.pos = nt.ge[0] > k ? nt.ge[0] : k + 1;
        }
    }
}

/* ------------------------------------------------------------------ */
/* Pass 3b: codes led by letters (IBANs, passport numbers)              */

/* IBAN lengths by country (the SWIFT registry): two letters, then the
 * length in characters of the whole IBAN. */
static const char iban_lengths[] =
    "AD24AE23AL28AT20AZ28BA20BE16BG22BH22BR29BY28CH21CR22CY28CZ24DE22DK18DO28EE20EG29ES24"
    "FI18FO18FR27GB22GE22GI23GL18GR27GT28HR21HU28IE22IL23IQ23IS26IT27JO30KW30KZ20LB28LC32"
    "LI21LT20LU20LV21MC27MD24ME22MK19MR27MT31MU30NL18NO15PK24PL28PS29PT25QA29RO24RS22SA24"
    "SC31SE24SI19SK24SM27ST25SV28TL23TN24TR26UA29VA22VG24XK20";

static int iban_length(int c0, int c1)
{
    for (const char *p = iban_lengths; *p; p += 4)
        if (p[0] == upper(c0) && p[1] == upper(c1)) return (p[2] - '0') * 10 + (p[3] - '0');
    return 0;
}

/* ISO 13616 check: the first four characters moved to the end, letters
 * as 10..35, the number mod 97 is 1. */
static int iban_mod97_ok(const char *s, int len)
{
    unsigned r = 0;
    for (int i = 0; i < len; i++) {
        int c = upper((unsigned char)s[(i + 4) % len]);
        if (is_dig(c)) r = (r * 10 + (unsigned)(c - '0')) % 97;
        else r = (r * 100 + (unsigned)(c - 'A' + 10)) % 97;
    }
    return r == 1;
}

/* An IBAN at k: the country's length of letters and digits, contiguous or
 * in the printed groups of four (one space or dash between), the check
 * digits right; not glued to more letters or digits. */
static size_t match_iban(const char *t, size_t k, size_t hi)
{
    if (k + 4 > hi || !is_alpha((unsigned char)t[k]) || !is_alpha((unsigned char)t[k + 1]) ||
        !is_dig((unsigned char)t[k + 2]) || !is_dig((unsigned char)t[k + 3]))
        return 0;
    int want = iban_length((unsigned char)t[k], (unsigned char)t[k + 1]);
    if (!want) return 0;
    char v[34];
    int m = 0;
    size_t e = k;
    while (m < want && e < hi) {
        int c = (unsigned char)t[e];
        if (is_alnum(c)) {
            v[m++] = (char)c;
            e++;
        } else if ((c == ' ' || c == '-') && m % 4 == 0 && m && e + 1 < hi &&
                   is_alnum((unsigned char)t[e + 1])) {
            e++;
        } else {
            break;
        }
    }
    if (m != want || (e < hi && is_alnum((unsigned char)t[e]))) return 0;
    return iban_mod97_ok(v, m) ? e : 0;
}

/* A passport number led by letters ("E12345678", "EA1234567",
 * "G12345678"): one or two letters, then 6-9 digits, with a passport cue
 * ("passport", "护照") at most 32 bytes before it in the same sentence. */
static size_t match_passport_code(const char *t, size_t n, size_t k, size_t lo, size_t hi,
                                  const unsigned char first[256])
{
    size_t e = k;
    while (e < hi && e - k < 2 && is_alpha((unsigned char)t[e])) e++;
    size_t ds = e;
    while (e < hi && is_dig((unsigned char)t[e])) e++;
    if (ds == k || e - ds < 6 || e - ds > 9 || (e < hi && is_alnum((unsigned char)t[e])))
        return 0;
    return cue_near(t, n, k, lo, first, AM__LEX_NUM_PASSPORT, 32) ? e : 0;
}

static void pass_codes(rx *r)
{
    const char *t = r->t;
    size_t n = r->n;
    walk w = {0, 0, n, 0};
    unsigned char first[256];
    cue_first_bytes(first);
    while (w.pos < n) {
        walk_fix(r, &w);
        if (w.pos >= n) break;
        size_t k = w.pos, e;
        if (!is_alpha((unsigned char)t[k])) { w.pos++; continue; }
        if (is_word_start(t, k, w.lo) && !(k > w.lo && t[k - 1] == '_')) {
            if ((e = match_iban(t, k, w.hi)) != 0) { claim(r, &w, k, e, AM_PII_IBAN); continue; }
            if ((e = match_passport_code(t, n, k, w.lo, w.hi, first)) != 0) {
                claim(r, &w, k, e, AM_PII_PASSPORT);
                continue;
            }
        }
        while (w.pos < w.hi && is_alnum((unsigned char)t[w.pos])) w.pos++;
    }
}

/* ------------------------------------------------------------------ */
/* Pass 4: every other literal occurrence of what was found             */

static int type_on(const am__redact_policy *p, int type)
{
    switch (type) {
    case AM_PII_PHONE: return p->redact_phone;
    case AM_PII_EMAIL: return p->redact_email;
    case AM_PII_ID_CARD: return p->redact_id_card;
    case AM_PII_BANK_CARD: return p->redact_bank_card;
    case AM_SECRET: return p->drop_secrets;
    case AM_PII_SSN: case AM_PII_PASSPORT: return p->redact_id_card;
    case AM_PII_IBAN: return p->redact_bank_card;
    default: return 0;
    }
}

static int span_cmp(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->s != y->s) return x->s < y->s ? -1 : 1;
    return x->e < y->e ? 1 : (x->e > y->e ? -1 : 0);
}

static int len_cmp(const void *a, const void *b)
{
    const span *x = a, *y = b;
    size_t lx = x->e - x->s, ly = y->e - y->s;
    return lx < ly ? -1 : (lx > ly ? 1 : 0);
}

#define RK_BASE 1099511628211ULL

static uint64_t rk_hash(const char *s, size_t len)
{
    uint64_t h = 0;
    for (size_t i = 0; i < len; i++) h = h * RK_BASE + (unsigned char)s[i];
    return h;
}

/* For each distinct length among the found originals, roll a hash over the
 * text and add every unclaimed occurrence as a copy of its source span. */
static void pass_literals(rx *r, const am__redact_policy *p)
{
    const char *t = r->t;
    size_t n = r->n, m = 0;
    span *src = am__malloc(r->a, (r->taken.n ? r->taken.n : 1) * sizeof *src);
    if (!src) { r->oom = 1; return; }
    for (size_t i = 0; i < r->taken.n; i++) {
        span s = r->taken.v[i];
        if (!type_on(p, s.type)) continue;
        if (s.type == AM_SECRET && s.e - s.s < 4) continue;
        src[m++] = s;
    }
    qsort(src, m, sizeof *src, len_cmp);
    uint64_t *tab = NULL;
    size_t tcap = 0;
    for (size_t g = 0; g < m && !r->oom;) {
        size_t L = src[g].e - src[g].s, h = g;
        while (h < m && src[h].e - src[h].s == L) h++;
        if (L > n) break;
        /* open-addressing table of indexes into src[g..h) */
        size_t cnt = h - g, cap = 16;
        while (cap < cnt * 2) cap *= 2;
        if (cap > tcap) {
            am__free(r->a, tab);
            tab = am__malloc(r->a, cap * sizeof *tab);
            if (!tab) { r->oom = 1; break; }
            tcap = cap;
        }
        for (size_t i = 0; i < cap; i++) tab[i] = UINT64_MAX;
        for (size_t i = g; i < h; i++) {
            /* one entry per distinct value: a chain of equal values would
             * make every window walk all of them */
            uint64_t hv = rk_hash(t + src[i].s, L);
            size_t slot = (size_t)(hv & (cap - 1));
            int dup = 0;
            for (; tab[slot] != UINT64_MAX && !dup; slot = (slot + 1) & (cap - 1))
                dup = src[tab[slot]].type == src[i].type &&
                      memcmp(t + src[tab[slot]].s, t + src[i].s, L) == 0;
            if (!dup) tab[slot] = i;
        }
        uint64_t pw = 1;
        for (size_t i = 1; i < L; i++) pw *= RK_BASE;
        uint64_t hv = rk_hash(t, L);
        for (size_t j = 0;; j++) {
            size_t slot = (size_t)(hv & (cap - 1));
            for (; tab[slot] != UINT64_MAX; slot = (slot + 1) & (cap - 1)) {
                const span *s = &src[tab[slot]];
                if (s->s == j || memcmp(t + s->s, t + j, L) != 0) continue;
                if (s->type == AM_SECRET &&
                    ((j > 0 && is_alnum((unsigned char)t[j - 1])) || is_alnum(byte_at(t, n, j + L))))
                    continue;
                if (overlaps_enabled(r, p, j, j + L)) break;
                spans_push(r, &r->cur, j, j + L, s->type);
                break;
            }
            if (j + L >= n) break;
            hv = (hv - (unsigned char)t[j] * pw) * RK_BASE + (unsigned char)t[j + L];
        }
        g = h;
    }
    am__free(r->a, tab);
    am__free(r->a, src);
    if (r->oom || r->cur.n == 0) return;
    /* copies may overlap each other: keep the first of each overlap */
    qsort(r->cur.v, r->cur.n, sizeof *r->cur.v, span_cmp);
    size_t kept = 0;
    for (size_t i = 0; i < r->cur.n; i++)
        if (kept == 0 || r->cur.v[i].s >= r->cur.v[kept - 1].e) r->cur.v[kept++] = r->cur.v[i];
    r->cur.n = kept;
    /* A span of a kind turned off is copied out verbatim; a copy overlapping
     * one wins, or the value would survive inside it. */
    size_t j = 0, out = 0;
    for (size_t i = 0; i < r->taken.n; i++) {
        const span *s = &r->taken.v[i];
        while (j < r->cur.n && r->cur.v[j].e <= s->s) j++;
        if (!type_on(p, s->type) && j < r->cur.n && r->cur.v[j].s < s->e) {
            r->changes++;
            continue;
        }
        r->taken.v[out++] = *s;
    }
    r->taken.n = out;
    merge_cur(r);
}

/* ------------------------------------------------------------------ */
/* Assembly                                                             */

static const char *const type_tag[AM__PII_TYPE_END] = {
    "", "PHONE", "EMAIL", "ID_CARD", "BANK_CARD", "SECRET", "SSN", "IBAN", "PASSPORT"};

const char *am__pii_type_name(int type)
{
    static const char *const names[AM__PII_TYPE_END] = {
        "unknown", "phone", "email", "id_card", "bank_card", "secret", "ssn", "iban", "passport"};
    return type >= AM_PII_PHONE && type < AM__PII_TYPE_END ? names[type] : names[0];
}

int am__pii_type_of(const char *name)
{
    for (int t = AM_PII_PHONE; name && t < AM__PII_TYPE_END; t++)
        if (strcmp(name, am__pii_type_name(t)) == 0) return t;
    return 0;
}

void am__redact_policy_default(am__redact_policy *p)
{
    if (!p) return;
    p->redact_phone = p->redact_email = p->redact_id_card = p->redact_bank_card = 1;
    p->drop_secrets = 1;
}

/* Highest N of "[TAG_N]" already in the text, per type. */
static void existing_numbers(const char *t, size_t n, unsigned long max[AM__PII_TYPE_END])
{
    for (const char *q = memchr(t, '[', n); q; q = memchr(q + 1, '[', n - (size_t)(q + 1 - t))) {
        size_t k = (size_t)(q - t) + 1;
        for (int ty = AM_PII_PHONE; ty < AM__PII_TYPE_END; ty++) {
            if (ty == AM_SECRET) continue;
            size_t tl = strlen(type_tag[ty]);
            if (!starts(t, n, k, type_tag[ty]) || byte_at(t, n, k + tl) != '_') continue;
            size_t d = k + tl + 1;
            unsigned long v = 0;
            int nd = 0;
            for (; nd < 9 && d < n && is_dig((unsigned char)t[d]); d++, nd++)
                v = v * 10 + (unsigned long)(t[d] - '0');
            if (nd && byte_at(t, n, d) == ']' && v > max[ty]) max[ty] = v;
        }
        if ((size_t)(q + 1 - t) >= n) break;
    }
}

/* Canonical form of a PII value into buf (size >= 512); returns its length. */
static size_t canon(const char *t, size_t s, size_t e, int type, char *buf)
{
    size_t m = 0;
    if (type == AM_PII_EMAIL) {
        for (size_t k = s; k < e && m < 511; k++) buf[m++] = (char)lower((unsigned char)t[k]);
        buf[m] = 0;
        return m;
    }
    if (type == AM_PII_IBAN || type == AM_PII_PASSPORT) { /* letters and digits, upper case */
        for (size_t k = s; k < e && m < 511; k++)
            if (is_alnum((unsigned char)t[k])) buf[m++] = (char)upper((unsigned char)t[k]);
        buf[m] = 0;
        return m;
    }
    for (size_t k = s; k < e && m < 511;) {
        int d, l = digit_at(t, e, k, &d);
        if (l) {
            buf[m++] = (char)('0' + d);
            k += (size_t)l;
            continue;
        }
        if (fw_x_at(t, e, k)) {
            buf[m++] = 'X';
            k += 3;
            continue;
        }
        if (t[k] == 'x' || t[k] == 'X') buf[m++] = 'X';
        k++;
    }
    buf[m] = 0;
    if (type == AM_PII_PHONE) {
        size_t off = 0;
        if (m == 13 && memcmp(buf, "861", 3) == 0) off = 2;
        if (m == 15 && memcmp(buf, "00861", 5) == 0) off = 4;
        if (off) { memmove(buf, buf + off, m - off + 1); m -= off; }
    }
    return m;
}

size_t am__pii_canonical(const char *value, size_t len, int type, char *buf)
{
    return canon(value, 0, len, type, buf);
}

typedef struct keyed {
    int type;
    uint64_t h;
    char *key;
    size_t item;
} keyed;

/* Open-addressing index over keys (slot holds key index + 1, 0 = empty). */
static size_t key_find(const keyed *keys, const size_t *slots, size_t mask, int type, uint64_t h,
                       const char *key, size_t *slot)
{
    size_t i = (size_t)(h ^ (uint64_t)type) & mask;
    for (; slots[i]; i = (i + 1) & mask) {
        const keyed *k = &keys[slots[i] - 1];
        if (k->type == type && k->h == h && strcmp(k->key, key) == 0) break;
    }
    *slot = i;
    return slots[i];
}

static void result_zero(am__redact_result *out)
{
    out->text = NULL;
    out->len = 0;
    out->items = NULL;
    out->n = 0;
    out->secrets = 0;
}

void am__redact_result_free(const am__allocator *a, am__redact_result *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->n; i++) am__free(a, r->items[i].original);
    am__free(a, r->items);
    am__free(a, r->text);
    result_zero(r);
}

static int assemble(rx *r, const am__redact_policy *p, am__redact_result *out)
{
    const char *t = r->t;
    size_t n = r->n, nspans = r->taken.n;
    unsigned long next[AM__PII_TYPE_END] = {0};
    existing_numbers(t, n, next);
    am__buf b;
    am__buf_init(&b, r->a);
    if (n) am__buf_reserve(&b, n + 16);
    keyed *keys = NULL;
    size_t nkeys = 0, *slots = NULL, mask = 0;
    int rc = AM_NOMEM;
    if (nspans) {
        size_t cap = 16;
        while (cap < nspans * 2) cap *= 2;
        mask = cap - 1;
        out->items = am__calloc(r->a, nspans * sizeof *out->items);
        keys = am__calloc(r->a, nspans * sizeof *keys);
        slots = am__calloc(r->a, cap * sizeof *slots);
        if (!out->items || !keys || !slots) goto out_free;
    }
    char cbuf[512];
    size_t at = 0;
    for (size_t i = 0; i < nspans; i++) {
        const span *s = &r->taken.v[i];
        am__buf_add(&b, t + at, s->s - at);
        at = s->e;
        if (!type_on(p, s->type)) {
            am__buf_add(&b, t + s->s, s->e - s->s);
            continue;
        }
        if (s->type == AM_SECRET) {
            am__redaction *it = &out->items[out->n++];
            it->type = AM_SECRET;
            snprintf(it->placeholder, sizeof it->placeholder, "[SECRET]");
            it->original = NULL;
            out->secrets++;
            am__buf_adds(&b, it->placeholder);
            continue;
        }
        /* Copies found by the literal pass are byte-identical to their
         * source, so they share its canonical form and placeholder. */
        size_t cl = canon(t, s->s, s->e, s->type, cbuf), item = SIZE_MAX, slot;
        uint64_t h = am__hash64(cbuf, cl);
        size_t found = key_find(keys, slots, mask, s->type, h, cbuf, &slot);
        if (found) item = keys[found - 1].item;
        if (item == SIZE_MAX) {
            am__redaction *it = &out->items[out->n];
            it->type = s->type;
            snprintf(it->placeholder, sizeof it->placeholder, "[%s_%lu]", type_tag[s->type],
                     ++next[s->type]);
            it->original = am__strndup(r->a, t + s->s, s->e - s->s);
            keys[nkeys].key = am__strndup(r->a, cbuf, cl);
            if (!it->original || !keys[nkeys].key) {
                out->n++;
                nkeys++;
                goto out_free;
            }
            keys[nkeys].type = s->type;
            keys[nkeys].h = h;
            keys[nkeys].item = item = out->n++;
            slots[slot] = ++nkeys;
        }
        am__buf_adds(&b, out->items[item].placeholder);
    }
    am__buf_add(&b, t + at, n - at);
    if (b.oom) goto out_free;
    out->len = b.len;
    out->text = am__buf_take(&b);
    if (!out->text) goto out_free;
    rc = AM_OK;
out_free:
    for (size_t q = 0; q < nkeys; q++) am__free(r->a, keys[q].key);
    am__free(r->a, keys);
    am__free(r->a, slots);
    if (rc != AM_OK) {
        am__buf_free(&b);
        am__redact_result_free(r->a, out);
    }
    return rc;
}

/* Secrets and e-mails of a kind turned off are not looked for at all (a
 * kept secret is then plain text, and PII inside it is still replaced);
 * the number kinds are always detected, so that one is not taken for
 * another, and a kind turned off is left in the text. */
static void detect(rx *r, const am__redact_policy *p, int maybe)
{
    if (p->drop_secrets) {
        pass_secrets(r);
        merge_cur(r);
    }
    if (!maybe) return;
    if (p->redact_email) {
        pass_emails(r);
        merge_cur(r);
    }
    pass_codes(r);
    merge_cur(r);
    pass_numbers(r);
    merge_cur(r);
}

int am__redact(const am__allocator *a, const char *text, size_t len,
               const am__redact_policy *p, am__redact_result *out)
{
    if (!out) return AM_MISUSE;
    result_zero(out);
    if (!text && len) return AM_MISUSE;
    if (!text) text = "";
    am__redact_policy def;
    if (!p) { am__redact_policy_default(&def); p = &def; }
    rx r = {a, text, len, 0, {0}, {0}, 0};
    /* Fast path: without a digit or an '@' (ASCII or full-width digit) the
     * e-mail and number passes cannot find anything. */
    int maybe = 0;
    for (size_t i = 0; i < len && !maybe; i++) {
        int c = (unsigned char)text[i];
        maybe = is_dig(c) || c == '@' || (c == 0xEF && digit_at(text, len, i, NULL));
    }
    detect(&r, p, maybe);
    /* A claimed span changes what its neighbours see: every detector reads
     * a claimed byte as its future placeholder's '[' or ']' (a cue window
     * stops there, "x@y.com:" followed by one is no longer "git@host:path"),
     * and copies of found values are claimed too.  So detect again on what
     * is left until a round changes nothing: then redacting the output finds
     * nothing.  Text without findings costs one round; the bound only guards
     * against pathological input. */
    for (int round = 0; round < 16 && r.taken.n && !r.oom; round++) {
        unsigned long before = r.changes;
        pass_literals(&r, p);
        detect(&r, p, maybe);
        if (r.changes == before) break;
    }
    int rc = r.oom ? AM_NOMEM : assemble(&r, p, out);
    spans_free(&r, &r.taken);
    spans_free(&r, &r.cur);
    return rc;
}
