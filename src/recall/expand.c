/* SPDX-License-Identifier: Apache-2.0 */
/*
 * expand.c -- query rewriting by synonyms and near-words: "那个单子"
 * should find "订单", "行程安排" should find "出差", "cc" should find
 * "抄送".  Groups are data; a query that contains any member of a group
 * gets every other member's tokens as extra (lower-weight) terms.
 * Matching is on the normalised query, so groups are written normalised
 * (lower case, half-width).
 */
#include <string.h>

#include "recall/recall.h"
#include "text/lexicon/lexicon.h"

#define AM__HYPONYM_MAX_TOKENS 48 /* am__text_tokens_estimate of the query */

const char *const *am__told_forms(const char *token)
{
    for (size_t g = 0; g < sizeof am__lex_expand_told_forms / sizeof *am__lex_expand_told_forms;
         g++)
        if (strcmp(token, am__lex_expand_told_forms[g][0]) == 0)
            return am__lex_expand_told_forms[g] + 1;
    return NULL;
}

static int has_phrase(const char *s, size_t n, const char *p)
{
    size_t m = strlen(p);
    int ascii = (unsigned char)p[0] < 0x80;
    for (size_t i = 0; i + m <= n; i++) {
        const char *at = memchr(s + i, p[0], n - m + 1 - i); /* the next candidate */
        if (!at) return 0;
        i = (size_t)(at - s);
        if (memcmp(s + i, p, m) != 0) continue;
        if (!ascii) return 1;
        /* ASCII members match whole words only */
        int left = i == 0 || !((s[i - 1] | 0x20) >= 'a' && (s[i - 1] | 0x20) <= 'z');
        int right = i + m == n || !((s[i + m] | 0x20) >= 'a' && (s[i + m] | 0x20) <= 'z');
        if (left && right) return 1;
    }
    return 0;
}

int am__expand_query(const char *norm, size_t n, am__buf *out, am__buf *narrow)
{
    for (size_t g = 0; g < sizeof am__lex_expand_groups / sizeof *am__lex_expand_groups; g++) {
        int hit = 0;
        for (size_t k = 0; am__lex_expand_groups[g][k] && !hit; k++)
            hit = has_phrase(norm, n, am__lex_expand_groups[g][k]);
        if (!hit) continue;
        for (size_t k = 0; am__lex_expand_groups[g][k]; k++) {
            if (has_phrase(norm, n, am__lex_expand_groups[g][k])) continue;
            am__buf_addc(out, ' ');
            am__buf_adds(out, am__lex_expand_groups[g][k]);
        }
    }
    /* Narrower words only for a short question: a long text (a dialogue,
     * a pasted paragraph) names its things itself, and the broad words
     * that litter it ("activities", "family") would only add noise. */
    int short_q = am__text_tokens_estimate(norm, n) <= AM__HYPONYM_MAX_TOKENS;
    for (size_t g = 0;
         short_q && g < sizeof am__lex_expand_hyponyms / sizeof *am__lex_expand_hyponyms; g++) {
        const char *h = am__lex_expand_hyponyms[g][0];
        int hit = 0;
        while (*h && !hit) {
            const char *bar = strchr(h, '|');
            size_t m = bar ? (size_t)(bar - h) : strlen(h);
            char word[64];
            if (m < sizeof word) {
                memcpy(word, h, m);
                word[m] = 0;
                hit = has_phrase(norm, n, word);
            }
            h += m + (bar ? 1 : 0);
        }
        if (!hit) continue;
        am__buf_addc(narrow, ' ');
        am__buf_adds(narrow, am__lex_expand_hyponyms[g][1]);
    }
    return out->oom || narrow->oom ? AM_NOMEM : AM_OK;
}

/* A chatty query that asks at its end without a cue ("…今天天气真好。哎，
 * 最近太忙了。等等，那个地点是江苏苏州的活动，规模是什么？"): one line
 * whose last sentence is a question, after sentences that hold at least
 * AM__CHAT_SENTENCES statements and together are longer than it, has
 * asked that question (the chatter comes first, the ask last).  Sentences
 * end at 。 ! ? ; or ". ", never inside quotation marks ("主要内容是"…。"
 * 的活动"); a compound question ("…？另外，…？") has questions before its
 * last, not statements.  A dialogue (several lines) or a short question
 * is asked whole: 0. */
#define AM__CHAT_SENTENCES 2
#define AM__CHAT_MIN_BYTES 8 /* shorter is no statement: "C. S. Lewis", "嗯。" */

static size_t last_question(const char *norm, size_t n, size_t *from, size_t *to)
{
    size_t e = n;
    while (e > 0 && (norm[e - 1] == ' ' || norm[e - 1] == '\t')) e--;
    if (e == 0 || norm[e - 1] != '?' || memchr(norm, '\n', n)) return 0;
    size_t start = 0, ends = 0, cur = 0; /* cur: where the sentence under way began */
    int quoted = 0;
    for (size_t i = 0; i + 1 < e; i++) {
        unsigned char c = (unsigned char)norm[i];
        if (c == '"') quoted = !quoted;
        else if (c == 0xE2 && (unsigned char)norm[i + 1] == 0x80 && i + 2 < e &&
                 ((unsigned char)norm[i + 2] == 0x9C || (unsigned char)norm[i + 2] == 0x9D))
            quoted = (unsigned char)norm[i + 2] == 0x9C; /* “ opens, ” closes */
        if (quoted) continue;
        size_t len = 0;
        if (c == '!' || c == '?' || c == ';') len = 1;
        else if (c == '.' && norm[i + 1] == ' ') len = 1;
        else if (c == 0xE3 && (unsigned char)norm[i + 1] == 0x80 && i + 2 < e &&
                 (unsigned char)norm[i + 2] == 0x82)
            len = 3; /* 。 */
        if (!len) continue;
        /* a statement, not a run of marks nor an initial ("C. S. Lewis") */
        if (i >= cur + AM__CHAT_MIN_BYTES && c != '?') ends++;
        cur = start = i + len;
        i += len - 1;
    }
    while (start < e && norm[start] == ' ') start++;
    if (ends < AM__CHAT_SENTENCES || start >= e || start < e - start) return 0;
    *from = start;
    *to = e;
    return 1;
}

size_t am__query_asks(const char *norm, size_t n, size_t *from, size_t *to, size_t max)
{
    size_t k = 0, i = 0;
    while (i < n && k < max) {
        size_t at = n, len = 0;
        for (size_t c = 0; am__lex_expand_repair_cues[c]; c++) {
            size_t m = strlen(am__lex_expand_repair_cues[c]);
            for (size_t j = i; j + m <= n && j < at; j++)
                if (norm[j] == am__lex_expand_repair_cues[c][0] &&
                    memcmp(norm + j, am__lex_expand_repair_cues[c], m) == 0) {
                    at = j;
                    len = m;
                    break;
                }
        }
        if (at == n) break;
        /* the ask runs to its question mark (a quoted "…。" inside it does
         * not end it), else to the end of the line */
        size_t e = at + len;
        while (e < n && norm[e] != '?' && norm[e] != '\n') e++;
        if (e < n && norm[e] == '?') e++;
        from[k] = at;
        to[k++] = e;
        i = e;
    }
    if (k == 0 && max > 0) k = last_question(norm, n, from, to);
    return k;
}

/* Relative clauses that name a thing by one of its facts.  Chinese: the
 * clause before a head that names a person ("…的人", "…的那位"), from the
 * clause's start (after a comma or colon, and after "那个" / "那位" /
 * "那"); of several heads with no comma between them, the last.  English:
 * after "whose" / "who" / "that" following a noun that names a person, to
 * the next comma or question mark.  A person is named by a relation or a
 * role ("我舅妈", "my aunt") the question does not know, so the fact is
 * its only way in; a thing such as an event is named by its own name,
 * which the question's other words already find ("那个地点是上海的活动"
 * is no condition; docs/bench/README.md).
 * The words are in text/lexicon/synonyms.c. */
#define AM__COND_MIN_BYTES 2
#define AM__COND_MAX_TOKENS 24

static int starts_with(const char *s, size_t n, const char *p, int fold)
{
    size_t m = strlen(p);
    if (m > n) return 0;
    for (size_t i = 0; i < m; i++) {
        unsigned char a = (unsigned char)s[i], b = (unsigned char)p[i];
        if (fold && a < 0x80) a = (unsigned char)(a | ((a >= 'A' && a <= 'Z') ? 0x20 : 0));
        if (a != b) return 0;
    }
    return 1;
}

/* A comma, colon, semicolon, enumeration comma or question mark (ASCII or
 * full-width) at s: its length; 0 if none. */
static size_t clause_mark(const char *s, size_t n)
{
    for (size_t k = 0; am__lex_expand_marks[k]; k++)
        if (starts_with(s, n, am__lex_expand_marks[k], 0)) return strlen(am__lex_expand_marks[k]);
    return 0;
}

static int ascii_letter(char c)
{
    return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

/* The word w (any case) at s[i], not inside a longer word. */
static int word_at(const char *s, size_t n, size_t i, const char *w)
{
    size_t m = strlen(w);
    if (i + m > n || !starts_with(s + i, n - i, w, 1)) return 0;
    return !(i > 0 && ascii_letter(s[i - 1])) && !(i + m < n && ascii_letter(s[i + m]));
}

/* A quotation mark at s: +1 opens, -1 closes, 0 none ('"' toggles). */
static int quote_at(const char *s, size_t n, int open)
{
    if (s[0] == '"') return open ? -1 : 1;
    if (starts_with(s, n, "\u201c", 0) || starts_with(s, n, "\u300c", 0)) return 1;
    if (starts_with(s, n, "\u201d", 0) || starts_with(s, n, "\u300d", 0)) return -1;
    return 0;
}

static int condition_zh(const char *s, size_t n, size_t *from, size_t *to)
{
    size_t head = n, start = 0;
    int quoted = 0;
    for (size_t i = 0; i < n; i++) {
        int qm = quote_at(s + i, n - i, quoted);
        if (qm) quoted = qm > 0;
        if (quoted) continue; /* a quotation is one value: "…，…。" */
        size_t mark = clause_mark(s + i, n - i);
        if (mark) {
            if (head < n) break; /* the clause of the heads found ends here */
            start = i + mark;
            i += mark - 1;
            continue;
        }
        for (size_t k = 0; am__lex_expand_cond_heads_zh[k]; k++)
            if (starts_with(s + i, n - i, am__lex_expand_cond_heads_zh[k], 0)) {
                head = i;
                break;
            }
    }
    if (head == n) return 0;
    while (start < head && s[start] == ' ') start++;
    for (size_t k = 0; am__lex_expand_cond_lead_zh[k]; k++)
        if (starts_with(s + start, head - start, am__lex_expand_cond_lead_zh[k], 0)) {
            start += strlen(am__lex_expand_cond_lead_zh[k]);
            break;
        }
    if (head < start + AM__COND_MIN_BYTES) return 0;
    *from = start;
    *to = head;
    return 1;
}

static int condition_en(const char *s, size_t n, size_t *from, size_t *to)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; am__lex_expand_cond_rel_en[k]; k++) {
            if (!word_at(s, n, i, am__lex_expand_cond_rel_en[k])) continue;
            /* the word before: a noun naming a person or an event */
            size_t e = i;
            while (e > 0 && s[e - 1] == ' ') e--;
            size_t b = e;
            while (b > 0 && ascii_letter(s[b - 1])) b--;
            int noun = 0;
            for (size_t j = 0; am__lex_expand_cond_nouns_en[j] && !noun; j++)
                noun = e - b == strlen(am__lex_expand_cond_nouns_en[j]) &&
                       word_at(s, e, b, am__lex_expand_cond_nouns_en[j]);
            if (!noun) continue;
            size_t st = i + strlen(am__lex_expand_cond_rel_en[k]), en = st;
            while (en < n && !clause_mark(s + en, n - en)) en++;
            while (st < en && s[st] == ' ') st++;
            while (en > st && s[en - 1] == ' ') en--;
            if (en < st + AM__COND_MIN_BYTES) return 0;
            *from = st;
            *to = en;
            return 1;
        }
    }
    return 0;
}

/* Where the condition's value begins: after its last copula ("联系电话是
 * 139…" -> "139…", "whose phone number is 555 0134" -> "555 0134"), else
 * at its start. */
static size_t condition_value(const char *s, size_t from, size_t to)
{
    size_t v = from;
    int quoted = 0;
    for (size_t i = from; i < to; i++) {
        int qm = quote_at(s + i, to - i, quoted);
        if (qm) quoted = qm > 0;
        if (quoted) continue;
        if (starts_with(s + i, to - i, "是", 0)) v = i + strlen("是");
        for (size_t k = 0; am__lex_expand_copulas_en[k]; k++)
            if (word_at(s, to, i, am__lex_expand_copulas_en[k]))
                v = i + strlen(am__lex_expand_copulas_en[k]);
    }
    while (v < to && s[v] == ' ') v++;
    return v < to ? v : from;
}

int am__query_condition(const char *s, size_t n, size_t *from, size_t *to, size_t *value)
{
    if (!condition_zh(s, n, from, to) && !condition_en(s, n, from, to)) return 0;
    /* a long one (a description) is matched by the whole question's words */
    if (am__text_tokens_estimate(s + *from, *to - *from) > AM__COND_MAX_TOKENS) return 0;
    *value = condition_value(s, *from, *to);
    return 1;
}
