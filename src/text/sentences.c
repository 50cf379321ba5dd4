/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sentences.c -- the sentence splitter (am__text_sentences, analyze.h):
 * where a reader would end a sentence, in Chinese, English and both mixed.
 * Every layer that reads sentences goes through it: the distillation of a
 * written turn (api/write.c), a task replay after a forget (api/forget.c),
 * promotion's weak signals (semantic/promote.c) and a compound question's
 * clauses (recall/clauses.c).
 *
 * One pass over the text, left to right, deciding at each mark:
 *  - a line break always ends a sentence (a transcript's lines are turns);
 *  - 。！？； (and their runs, "？！", "。。。") end one; the ASCII ! ? ; do
 *    too, except glued between letters or digits of a word, a URL or code
 *    ("a.php?id=3", "x=1;y=2");
 *  - a quotation or a bracket (“” 「」 『』 （） () [] 【】 《》 «» "") that
 *    closes on its line within QUOTE_MAX bytes is one unit: nothing inside
 *    ends the sentence.  After it the sentence ends only when the quoted
 *    part itself ended with a stop and a new sentence follows: a
 *    capitalised word, or a Han character after a bracket or after a
 *    quotation a colon introduced (他说：“我明天去。”我说好; but
 *    “好的。”他说 and 是“……。”的活动 go on, as does "I'm done." he said);
 *    a mark that never closes is a plain character;
 *  - a full stop "." ends a sentence when a space, the end, a closing mark
 *    or a Han character follows it -- a decimal ("1.5公里", "v2.3"), a file
 *    name or a dotted abbreviation glued to its next letter does not --
 *    unless the word before it is an abbreviation: one that stands before
 *    what it qualifies (a title, "e.g.", an initial "J.", "U.S.") ends one
 *    only before a word that opens sentences ("It", "The", "Then"), one
 *    that can end a sentence ("Inc.", "etc.", "5 km.") before any
 *    capitalised word.  Abbreviations are recognised by shape (single
 *    capitals, dotted letters, capitalised vowel-less tokens "Dr" "Mrs"
 *    "St", vowel-less units after a number) and by the lists of
 *    text/lexicon/abbrev.c;
 *  - an ellipsis ("...", "…", "……") ends a sentence only at the end of the
 *    text or before a space and a capital letter ("I waited... Then").
 * The marks that follow a sentence's stop directly (more stops, closing
 * quotes and brackets) stay with it.
 *
 * Linear: a quotation's closing mark is searched once per mark type, the
 * scan carried on from where the last one stopped (close_memo), so no
 * input makes the search quadratic.  No allocation; the text need not be
 * valid UTF-8 (an invalid byte is a plain character).
 */
#include <string.h>

#include "text/analyze.h"
#include "text/lexicon/lexicon.h"

#define QUOTE_MAX 400 /* bytes a quotation or bracket may span and stay one unit */
#define NONE ((size_t)-1)

/* quote: 1 for quotation marks, 0 for brackets (quote_end) */
static const struct {
    uint32_t open, close;
    int quote;
} pairs[] = {
    {0x201C, 0x201D, 1}, {0x300C, 0x300D, 1}, {0x300E, 0x300F, 1}, {0x00AB, 0x00BB, 1},
    {'"', '"', 1},       {0xFF08, 0xFF09, 0}, {'(', ')', 0},       {'[', ']', 0},
    {0x3010, 0x3011, 0}, {0x300A, 0x300B, 0},
};
#define NPAIRS (sizeof pairs / sizeof *pairs)

/* What a scan for one closing mark found: no close in [from, end); close
 * at `end` when `found`, else the scan stopped at the line's end
 * (`line_end`) or at its byte limit. */
typedef struct close_memo {
    int valid, found, line_end;
    size_t from, end;
} close_memo;

static int is_space(uint32_t cp) { return cp == ' ' || cp == '\t' || cp == '\r' || cp == 0x3000; }

static int is_upper(uint32_t cp) { return cp >= 'A' && cp <= 'Z'; }

static int is_lower(uint32_t cp) { return cp >= 'a' && cp <= 'z'; }

static int is_alpha(uint32_t cp) { return is_upper(cp) || is_lower(cp); }

static int is_digit(uint32_t cp) { return cp >= '0' && cp <= '9'; }

/* A stop that ends a sentence wherever it stands. */
static int is_cjk_stop(uint32_t cp)
{
    return cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F || cp == 0xFF1B || cp == 0xFF0E;
}

static int is_stop(uint32_t cp)
{
    return is_cjk_stop(cp) || cp == '!' || cp == '?' || cp == ';' || cp == '.' || cp == 0x2026;
}

static int is_closer(uint32_t cp)
{
    if (cp == '\'' || cp == 0x2019) return 1;
    for (size_t t = 0; t < NPAIRS; t++)
        if (pairs[t].close == cp) return 1;
    return 0;
}

static uint32_t cp_at(const char *s, size_t n, size_t i, int *len)
{
    uint32_t cp = 0;
    int l = i < n ? am__utf8_decode(s + i, n - i, &cp) : 0;
    if (len) *len = l;
    return cp;
}

/* The code point ending right before position i (0 at the start). */
static uint32_t cp_before(const char *s, size_t i)
{
    size_t k = i;
    while (k > 0 && i - k < 4) {
        k--;
        if (((unsigned char)s[k] & 0xC0) != 0x80) break;
    }
    return k < i ? cp_at(s, i, k, NULL) : 0;
}

/* Position of the first non-blank at or after i (a line break is not
 * blank). */
static size_t skip_blanks(const char *s, size_t n, size_t i)
{
    int l;
    while (i < n && is_space(cp_at(s, n, i, &l))) i += (size_t)l;
    return i;
}

/* The first `close` at or after q, before the line's end and `limit`, or
 * NONE; m carries what earlier scans for the same mark found. */
static size_t find_close(const char *s, size_t n, uint32_t close, size_t q, size_t limit,
                         close_memo *m)
{
    size_t p = q;
    if (m->valid && q >= m->from && q <= m->end) {
        if (m->found) return m->end < limit ? m->end : NONE;
        if (m->line_end || m->end >= limit) return NONE;
        p = m->end;
    } else {
        m->valid = 1;
        m->from = q;
    }
    m->found = m->line_end = 0;
    while (p < n && p < limit) {
        int l;
        uint32_t cp = cp_at(s, n, p, &l);
        if (cp == '\n') break;
        if (cp == close) {
            m->found = 1;
            m->end = p;
            return p;
        }
        p += (size_t)l;
    }
    m->end = p;
    m->line_end = p >= n || s[p] == '\n';
    return NONE;
}

/* The end of a sentence whose stop ends at p: the stops and closing marks
 * glued to it stay with it. */
static size_t absorb(const char *s, size_t n, size_t p)
{
    int l;
    uint32_t cp;
    while (p < n && ((cp = cp_at(s, n, p, &l)) == '"' || is_stop(cp) || is_closer(cp)))
        p += (size_t)l;
    return p;
}

/* ------------------------------------------------------------ abbreviations */

enum { ABBR_NONE, ABBR_PREFIX, ABBR_FINAL };

static int in_list(const char *w, size_t n, const char *const *list)
{
    for (size_t i = 0; list[i]; i++) {
        const char *e = list[i];
        if (strlen(e) != n) continue;
        if (is_upper((unsigned char)e[0]) && !is_upper((unsigned char)w[0])) continue;
        size_t k = 0;
        while (k < n && (w[k] | 0x20) == (e[k] | 0x20)) k++;
        if (k == n) return 1;
    }
    return 0;
}

/* Dotted letters ("U.S", "e.g", "Ph.D": the word before the final stop,
 * its inner stops kept): segments of one or two letters, at least two. */
static int abbrev_dotted(const char *w, size_t n, int after_number)
{
    size_t seg = 0, segs = 1;
    int upper = 0, lower = 0;
    for (size_t i = 0; i < n; i++) {
        if (w[i] == '.') {
            if (seg == 0) return ABBR_NONE;
            seg = 0;
            segs++;
            continue;
        }
        if (++seg > 2) return ABBR_NONE;
        if (is_upper((unsigned char)w[i])) upper = 1;
        else lower = 1;
    }
    if (seg == 0 || segs < 2) return ABBR_NONE;
    if (upper && lower) return ABBR_FINAL;                  /* Ph.D. */
    if (lower) return after_number ? ABBR_FINAL : ABBR_PREFIX; /* 5 p.m. / e.g. */
    return ABBR_PREFIX;                                     /* U.S. */
}

/* What kind of abbreviation the word w[0..n) before a stop is (ASCII
 * letters and inner stops); after_number: a number stands right before
 * it ("5 km", "3pm"). */
static int abbrev_kind(const char *w, size_t n, int after_number)
{
    if (n == 0) return ABBR_NONE;
    if (memchr(w, '.', n)) return abbrev_dotted(w, n, after_number);
    if (n == 1) return is_upper((unsigned char)w[0]) ? ABBR_PREFIX : ABBR_NONE; /* initial */
    if (in_list(w, n, am__lex_abbrev_final)) return ABBR_FINAL;
    if (in_list(w, n, am__lex_abbrev_prefix)) return ABBR_PREFIX;
    if (n > 5) return ABBR_NONE;
    /* vowel-less and not an interjection's drawn-out letters ("Hmm", "Shh") */
    int caps = is_upper((unsigned char)w[0]);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)(w[i] | 0x20);
        if (strchr("aeiouy", c) || (i > 0 && (w[i] | 0x20) == (w[i - 1] | 0x20))) return ABBR_NONE;
        if (i > 0 && is_upper((unsigned char)w[i])) return ABBR_NONE; /* an acronym: a word */
    }
    if (caps) return ABBR_PREFIX; /* Dr, Mrs, St, Sgt */
    return after_number ? ABBR_FINAL : ABBR_NONE; /* 5 km, 3 kg */
}

/* 1 when the word at q opens a sentence: capitalised, one of the
 * openers, and not an initial itself ("A." in "Dr. A. Lee"). */
static int opens_sentence(const char *s, size_t n, size_t q)
{
    if (q >= n || !is_upper((unsigned char)s[q])) return 0;
    size_t e = q;
    while (e < n && (is_alpha((unsigned char)s[e]) || s[e] == '\'')) e++;
    if (e < n && s[e] == '.') return 0;
    return in_list(s + q, e - q, am__lex_sentence_openers);
}

/* ------------------------------------------------------------ the marks */

/* A full stop at i: NONE, or where the sentence ends. */
static size_t full_stop(const char *s, size_t n, size_t start, size_t i)
{
    size_t p = i + 1;
    if (p >= n) return p;
    int l;
    uint32_t next = cp_at(s, n, p, &l);
    if (next == '\n') return p;
    if (!is_space(next)) {
        if (is_closer(next) || is_stop(next)) return absorb(s, n, p);
        uint32_t prev = cp_before(s, i);
        return am__is_han(prev) && !is_digit(next) ? p : NONE; /* 好的.明天见 */
    }
    size_t w = i;
    while (w > start && (is_alpha((unsigned char)s[w - 1]) || s[w - 1] == '.')) w--;
    uint32_t lead = w > start ? cp_before(s, w) : 0;
    if (lead >= 0xC0 && lead < 0x2000) return p; /* the end of a word in another script: "café." */
    size_t b = w;
    if (b > start && s[b - 1] == ' ') b--;
    int after_number = b > start && is_digit((unsigned char)s[b - 1]);
    int kind = abbrev_kind(s + w, i - w, after_number);
    if (kind == ABBR_NONE) return p;
    size_t q = skip_blanks(s, n, p);
    if (q >= n || s[q] == '\n') return p;
    if (kind == ABBR_PREFIX) return opens_sentence(s, n, q) ? p : NONE;
    return is_upper((unsigned char)s[q]) ? p : NONE;
}

/* An ellipsis starting at i (dots or U+2026): *next = after it; the end
 * of the sentence, or NONE. */
static size_t ellipsis(const char *s, size_t n, size_t i, size_t *next)
{
    size_t e = i;
    int l;
    uint32_t cp;
    while (e < n && ((cp = cp_at(s, n, e, &l)) == '.' || cp == 0x2026)) e += (size_t)l;
    *next = e;
    size_t q = skip_blanks(s, n, e);
    if (q >= n || s[q] == '\n') return e;
    return q > e && is_upper((unsigned char)s[q]) ? e : NONE;
}

/* A quotation or bracket from `open` to its closing mark at c (after:
 * past it): the end of the sentence, or NONE.  It ends one when the part
 * inside ended with a stop and a new sentence follows: a capitalised word
 * ("... soon." We did), or a Han character after a bracket (a sentence
 * of its own: （不要加日期。）谢谢) or after a quotation a colon
 * introduced (他说：“我明天去。”我说好); a quotation that is a part of its
 * sentence (是“探讨技术。分享经验。”的活动, “好的。”他说) goes on. */
static size_t quote_end(const char *s, size_t n, size_t open, size_t c, size_t after,
                        int quote)
{
    uint32_t last = cp_before(s, c);
    if (!(is_cjk_stop(last) || last == '!' || last == '?' || last == '.')) return NONE;
    size_t q = skip_blanks(s, n, after);
    if (q >= n) return after;
    uint32_t next = cp_at(s, n, q, NULL);
    if (is_upper(next)) return after;
    if (!am__is_han(next)) return NONE;
    if (!quote) return after;
    size_t k = open;
    while (k > 0 && is_space((unsigned char)s[k - 1])) k--;
    uint32_t intro = cp_before(s, k);
    return intro == ':' || intro == 0xFF1A ? after : NONE;
}

static int pair_of(uint32_t cp)
{
    for (size_t t = 0; t < NPAIRS; t++)
        if (pairs[t].open == cp) return (int)t;
    return -1;
}

static int emit(const char *s, size_t a, size_t b, am__sentence_fn fn, void *ctx)
{
    while (a < b && is_space((unsigned char)s[a])) a++;
    while (b > a && (is_space((unsigned char)s[b - 1]) || s[b - 1] == '\n')) b--;
    return b > a ? fn(ctx, s + a, b - a) : 0;
}

int am__text_sentences(const char *s, size_t n, am__sentence_fn fn, void *ctx)
{
    close_memo memo[NPAIRS];
    memset(memo, 0, sizeof memo);
    size_t start = 0, i = 0;
    while (i < n) {
        int l;
        uint32_t cp = cp_at(s, n, i, &l);
        size_t next = i + (size_t)l, end = NONE;
        int t = pair_of(cp);
        if (cp == '\n') {
            end = next;
        } else if (t >= 0) {
            size_t limit = next + QUOTE_MAX < n ? next + QUOTE_MAX : n;
            size_t c = find_close(s, n, pairs[t].close, next, limit, &memo[t]);
            if (c != NONE) {
                int cl;
                cp_at(s, n, c, &cl);
                next = c + (size_t)cl;
                end = quote_end(s, n, i, c, next, pairs[t].quote);
            }
        } else if (is_cjk_stop(cp)) {
            end = absorb(s, n, next);
        } else if (cp == '!' || cp == '?' || cp == ';') {
            uint32_t prev = cp_before(s, i), after = cp_at(s, n, next, NULL);
            int glued = (is_alpha(prev) || is_digit(prev) || prev == '/' || prev == '=') &&
                        (is_alpha(after) || is_digit(after) || after == '=' || after == '&');
            if (!glued) end = absorb(s, n, next);
        } else if (cp == 0x2026 || (cp == '.' && next < n && s[next] == '.')) {
            end = ellipsis(s, n, i, &next);
        } else if (cp == '.') {
            end = full_stop(s, n, start, i);
        }
        if (end == NONE) {
            i = next;
            continue;
        }
        int rc = emit(s, start, end, fn, ctx);
        if (rc) return rc;
        start = i = end;
    }
    return emit(s, start, n, fn, ctx);
}
