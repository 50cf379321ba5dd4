/* SPDX-License-Identifier: Apache-2.0 */
/*
 * understand_feat.c -- the features the learned reading of a turn uses
 * (understand.h), the same for training and inference: the text folded
 * (ASCII and full-width letters to lower case, digits to 0, blanks to one
 * space), then character 1- to 3-grams over it with a boundary mark at
 * both ends (Chinese words and their pieces, English stems and endings),
 * English-like words and word pairs, and the text's first and last two
 * characters (a question mark, a leading "我", "if").  Each hashed into
 * AM_UND_BUCKETS.  No tables, no allocation: microseconds a text.
 */
#include <string.h>

#include "understand.h"

static const char *const act_labels[] = {
    "lasting",     "fact",         "oneoff",       "question",   "smalltalk",  "hypothetical",
    "reported",    "complaint",    "ref_promote",  "ref_withdraw", "invalidation", "correction"};
static const char *const task_labels[] = {"none",  "start", "advance",  "done",
                                          "cancel", "pause", "postpone", "resume"};
static const char *const whose_labels[] = {"self",   "spouse",    "child", "parent", "sibling",
                                           "partner", "friend",   "colleague", "boss", "team",
                                           "company", "pet",      "other"};
static const char *const topic_labels[] = {
    "food",      "drink",       "health",  "fitness",      "diet_restrictions", "travel",
    "transport", "schedule",    "communication", "reporting_documents", "writing_style",
    "language",  "finance",     "shopping", "family",      "relationships", "work_projects",
    "career",    "education",   "tools_tech", "home",      "pets",        "entertainment",
    "sports",    "location",    "privacy", "other"};
static const char *const kind_labels[] = {"preference", "constraint", "profile", "habit", "norm"};

const am__und_head am__und_heads[AM_UND_HEADS] = {
    {"act", act_labels, 12, 0},      {"task_act", task_labels, 8, 12},
    {"whose", whose_labels, 13, 20}, {"topic", topic_labels, 27, 33},
    {"kind", kind_labels, 5, 60},
};
_Static_assert(60 + 5 == AM_UND_OUTPUTS, "the heads fill the outputs");

int am__und_label(int h, const char *label)
{
    for (int i = 0; i < am__und_heads[h].n; i++)
        if (strcmp(am__und_heads[h].labels[i], label) == 0) return i;
    return -1;
}

/* One code point of s[*i..len) (a bad byte: U+FFFD, one byte) */
static uint32_t next_cp(const unsigned char *s, size_t len, size_t *i)
{
    uint32_t c = s[*i];
    int n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
    if (n < 0 || (n > 0 && *i + (size_t)n >= len)) {
        (*i)++;
        return 0xFFFD;
    }
    if (n == 0) {
        (*i)++;
        return c;
    }
    uint32_t cp = n == 1 ? c & 0x1F : n == 2 ? c & 0x0F : c & 0x07;
    for (int k = 1; k <= n; k++) {
        unsigned char b = s[*i + (size_t)k];
        if ((b & 0xC0) != 0x80) {
            (*i)++;
            return 0xFFFD;
        }
        cp = cp << 6 | (b & 0x3F);
    }
    *i += (size_t)n + 1;
    return cp;
}

static uint32_t fold(uint32_t c)
{
    if (c >= 0xFF01 && c <= 0xFF5E) c -= 0xFEE0; /* full-width ASCII */
    if (c >= 'A' && c <= 'Z') c += 32;
    if (c >= '0' && c <= '9') c = '0';
    if (c == 0x3000 || c == '\t' || c == '\n' || c == '\r' || c == 0x0B || c == 0x0C ||
        c == 0x85 || c == 0xA0 || c == 0x2028 || c == 0x2029)
        c = ' ';
    if (c == 0x2019 || c == 0x2018) c = '\''; /* curly apostrophes */
    return c;
}

static int wordish(uint32_t c) { return (c >= 'a' && c <= 'z') || c == '0' || c == '\''; }

/* FNV-1a over a tag and code points */
static uint32_t hash(uint32_t tag, const uint32_t *cp, size_t n)
{
    uint32_t h = 2166136261u ^ tag;
    h *= 16777619u;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 4; k++) {
            h ^= (cp[i] >> (8 * k)) & 0xFF;
            h *= 16777619u;
        }
    return h & (AM_UND_BUCKETS - 1);
}

#define MAX_CP 2048
#define BOUND 2u /* the boundary mark */

size_t am__und_features(const char *text, size_t len, uint32_t *feats, size_t max)
{
    uint32_t cp[MAX_CP + 2];
    size_t n = 0, i = 0, nf = 0;
    const unsigned char *s = (const unsigned char *)text;
    cp[n++] = BOUND;
    while (i < len && n < MAX_CP) {
        uint32_t c = fold(next_cp(s, len, &i));
        if (c < 0x20 && c != ' ') continue;
        if (c == ' ' && (cp[n - 1] == ' ' || cp[n - 1] == BOUND)) continue;
        cp[n++] = c;
    }
    if (cp[n - 1] == ' ') n--;
    cp[n++] = BOUND;
#define ADD(h)                                                                                    \
    do {                                                                                          \
        if (nf < max) feats[nf++] = (h);                                                          \
    } while (0)
    ADD(hash('B', NULL, 0)); /* a bias every text has */
    for (size_t g = 1; g <= 3; g++)
        for (size_t k = 0; k + g <= n; k++) {
            if (g == 1 && (cp[k] == ' ' || cp[k] == BOUND)) continue;
            ADD(hash('c' + (uint32_t)g, cp + k, g));
        }
    /* the first and last two characters inside the marks */
    if (n >= 4) {
        ADD(hash('f', cp + 1, 2));
        ADD(hash('l', cp + n - 3, 2));
    }
    /* words: runs of letters, digits and apostrophes; and pairs of them */
    uint32_t prev_h = 0;
    int has_prev = 0;
    for (size_t k = 1; k < n;) {
        if (!wordish(cp[k])) {
            if (cp[k] != ' ') has_prev = 0; /* punctuation breaks a pair */
            k++;
            continue;
        }
        size_t e = k;
        while (e < n && wordish(cp[e])) e++;
        uint32_t h = hash('w', cp + k, e - k);
        ADD(h);
        if (has_prev) {
            uint32_t pair[2] = {prev_h, h};
            ADD(hash('p', pair, 2));
        }
        prev_h = h;
        has_prev = 1;
        k = e;
    }
#undef ADD
    return nf;
}
