/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cue.c -- the cue-pattern matcher (see cue.h).  Phrases are parsed on each
 * scan (a few elements, no allocation); a pair set of the text's byte pairs
 * rules out most cues before any comparison.
 */
#include "text/cue.h"

#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------ matcher */

#define MAX_ELEMS 4

static int word_byte(unsigned char c)
{
    return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9') || c == '\'';
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* Length of the clause punctuation at s[i], or 0. */
static size_t clause_punct(const char *s, size_t n, size_t i)
{
    unsigned char c = (unsigned char)s[i];
    if (c == ',' || c == '.' || c == ':') {
        /* 5,000 and 3.5 are numbers, 6:30 a time, not clause ends */
        if (i > 0 && i + 1 < n && is_digit((unsigned char)s[i - 1]) &&
            is_digit((unsigned char)s[i + 1]))
            return 0;
        return 1;
    }
    if (c == ';' || c == '!' || c == '?' || c == '\n') return 1;
    /* 。 (E3 80 82) and 、 (E3 80 81) survive NFKC */
    if (c == 0xE3 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
        ((unsigned char)s[i + 2] == 0x82 || (unsigned char)s[i + 2] == 0x81))
        return 3;
    return 0;
}

int am__cue_clause_start(const char *s, size_t i)
{
    while (i > 0 && s[i - 1] == ' ') i--;
    if (i == 0) return 1;
    unsigned char c = (unsigned char)s[i - 1];
    if (c == ',' || c == ';' || c == ':' || c == '!' || c == '?' || c == '\n' || c == '.')
        return !(c == ',' || c == '.') || i < 2 || !is_digit((unsigned char)s[i - 2]);
    return i >= 3 && (unsigned char)s[i - 3] == 0xE3 && (unsigned char)s[i - 2] == 0x80 &&
           (c == 0x82 || c == 0x81);
}

static size_t clause_end(const char *s, size_t n, size_t i)
{
    for (; i < n; i++)
        if (clause_punct(s, n, i)) return i;
    return n;
}

static int at_clause_end(const char *s, size_t n, size_t i)
{
    while (i < n && s[i] == ' ') i++;
    return i == n || clause_punct(s, n, i) != 0;
}

/* One element of a phrase: alternatives separated by '|', each a literal
 * with at most one '*' (the rest of a word, ending in what follows it). */
typedef struct elem {
    const char *p;
    size_t len;
    int anchored, end_anchored;
} elem;

/* Split a phrase at "…" (E2 80 A6) into elements.  Returns their count. */
static int parse_phrase(const char *phrase, elem *e)
{
    int k = 0;
    const char *p = phrase, *q = phrase;
    for (;;) {
        q = strchr(q, 0xE2);
        if (q && !((unsigned char)q[1] == 0x80 && (unsigned char)q[2] == 0xA6)) {
            q++;
            continue;
        }
        size_t len = q ? (size_t)(q - p) : strlen(p);
        elem *x = &e[k++];
        x->anchored = len && p[0] == '^';
        if (x->anchored) {
            p++;
            len--;
        }
        x->end_anchored = len && p[len - 1] == '$';
        if (x->end_anchored) len--;
        x->p = p;
        x->len = len;
        if (!q || k == MAX_ELEMS) break;
        q += 3;
        p = q;
    }
    return k;
}

/* Does the alternative a[0..m) match at s[k]?  Sets *end. */
static int alt_at(const char *s, size_t n, size_t limit, size_t k, const char *a, size_t m,
                  size_t *end)
{
    const char *star = memchr(a, '*', m);
    size_t head = star ? (size_t)(star - a) : m;
    if (head == 0 || k + head > limit || s[k] != a[0] || memcmp(s + k, a, head) != 0) return 0;
    if (word_byte((unsigned char)a[0]) && k > 0 && word_byte((unsigned char)s[k - 1])) return 0;
    size_t e = k + head;
    if (star) {
        /* the rest of the word, which must end in the tail */
        const char *tail = star + 1;
        size_t tl = m - head - 1;
        while (e < limit && word_byte((unsigned char)s[e])) e++;
        if (e - (k + head) < tl || memcmp(s + e - tl, tail, tl) != 0) return 0;
    } else if (word_byte((unsigned char)a[head - 1]) && e < n && word_byte((unsigned char)s[e])) {
        return 0;
    }
    *end = e;
    return 1;
}

/* The byte pairs of a text, hashed into 1024 bits: an alternative whose
 * first two bytes are not in the text is skipped without a search (most
 * cues of a table are absent from any one sentence). */
typedef struct pairset {
    uint64_t bits[16];
} pairset;

static unsigned pair_hash(unsigned char a, unsigned char b)
{
    return ((unsigned)a * 31u + b) & 1023u;
}

static void pairset_build(pairset *ps, const char *s, size_t n)
{
    memset(ps, 0, sizeof *ps);
    for (size_t i = 0; i + 1 < n; i++) {
        unsigned h = pair_hash((unsigned char)s[i], (unsigned char)s[i + 1]);
        ps->bits[h >> 6] |= (uint64_t)1 << (h & 63);
    }
}

static int pairset_may_have(const pairset *ps, const char *a, size_t m)
{
    if (m < 2 || a[1] == '*' || a[1] == '$') return 1;
    unsigned h = pair_hash((unsigned char)a[0], (unsigned char)a[1]);
    return (ps->bits[h >> 6] >> (h & 63)) & 1;
}

/* First occurrence of one element in s[from..limit): the earliest of its
 * alternatives, each found by jumping to its first byte. */
static int find_elem(const char *s, size_t n, const pairset *ps, const elem *e, size_t from,
                     size_t limit, size_t *at, size_t *at_end)
{
    int found = 0;
    const char *a = e->p, *stop = e->p + e->len;
    while (a < stop) {
        const char *bar = memchr(a, '|', (size_t)(stop - a));
        size_t m = bar ? (size_t)(bar - a) : (size_t)(stop - a);
        size_t bound = found ? *at : limit; /* only an earlier match helps */
        for (size_t k = from; m && k < bound && pairset_may_have(ps, a, m);) {
            const char *hit = memchr(s + k, a[0], bound - k);
            if (!hit) break;
            k = (size_t)(hit - s);
            size_t end;
            if (alt_at(s, n, limit, k, a, m, &end) &&
                (!e->anchored || am__cue_clause_start(s, k)) &&
                (!e->end_anchored || at_clause_end(s, n, end))) {
                *at = k;
                *at_end = end;
                found = 1;
                break;
            }
            k++;
        }
        a += m + (bar != NULL);
    }
    return found;
}

/* 1 if `str` ends right before position k ("^" = k starts a clause). */
static int ends_before(const char *s, size_t k, const char *str)
{
    if (str[0] == '^' && str[1] == '\0') return am__cue_clause_start(s, k);
    size_t m = strlen(str);
    if (m > k || memcmp(s + k - m, str, m) != 0) return 0;
    return !word_byte((unsigned char)str[0]) || k == m || !word_byte((unsigned char)s[k - m - 1]);
}

static int any_before(const char *s, size_t k, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (ends_before(s, k, list[i])) return 1;
    return 0;
}

static int any_after(const char *s, size_t n, size_t e, const char *const *list)
{
    for (size_t i = 0; list[i]; i++) {
        size_t m = strlen(list[i]);
        if (e + m <= n && memcmp(s + e, list[i], m) == 0) return 1;
    }
    return 0;
}

/* The context lists of a cue (or of a whole table) hold at [k, end). */
static int context_ok(const char *s, size_t n, const am__cue *c, size_t k, size_t end)
{
    return c && ((c->before && !any_before(s, k, c->before)) ||
                 (c->not_before && any_before(s, k, c->not_before)) ||
                 (c->not_after && any_after(s, n, end, c->not_after)))
               ? 0
               : 1;
}

/* First match of a cue starting at or after `from`. */
static int cue_match(const char *s, size_t n, const pairset *ps, const am__cue *c,
                     const elem *e, int ne, const am__cue *common, size_t from, size_t *at,
                     size_t *end)
{
    size_t k, pos;
    while (from < n && find_elem(s, n, ps, &e[0], from, n, &k, &pos)) {
        from = k + 1;
        size_t limit = clause_end(s, n, pos);
        int ok = 1;
        for (int i = 1; i < ne && ok; i++) {
            size_t j;
            ok = find_elem(s, n, ps, &e[i], pos, limit, &j, &pos);
        }
        if (!ok || !context_ok(s, n, c, k, pos) || !context_ok(s, n, common, k, pos)) continue;
        *at = k;
        *end = pos;
        return 1;
    }
    return 0;
}

int am__cue_scan(const char *s, size_t n, const am__cue *cues, const am__cue *common,
                 int which, am__cue_hit *hit)
{
    int found = 0;
    am__cue_hit best = {0, 0, -1};
    pairset ps;
    pairset_build(&ps, s, n);
    for (int i = 0; cues[i].phrase; i++) {
        /* Quick reject: a single first alternative absent from the text. */
        const char *head = cues[i].phrase + (cues[i].phrase[0] == '^');
        size_t span = strcspn(head, "|\xE2");
        int single = head[span] == '\0' ||
                     ((unsigned char)head[span] == 0xE2 && (unsigned char)head[span + 1] == 0x80 &&
                      (unsigned char)head[span + 2] == 0xA6);
        if (single && !pairset_may_have(&ps, head, span)) continue;
        elem e[MAX_ELEMS];
        int ne = parse_phrase(cues[i].phrase, e);
        size_t at, end, from = 0;
        while (cue_match(s, n, &ps, &cues[i], e, ne, common, from, &at, &end)) {
            if (!found || (which == AM__CUE_FIRST ? at < best.at : at > best.at)) {
                best.at = at;
                best.end = end;
                best.index = i;
                found = 1;
            }
            if (which == AM__CUE_FIRST) break;
            from = at + 1;
        }
    }
    if (found && hit) *hit = best;
    return found;
}
