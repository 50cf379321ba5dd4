/* SPDX-License-Identifier: Apache-2.0 */
/*
 * restate.c -- the attribute a sentence states and whether it states a
 * change of it (see restate.h).  Two small scanners over the normalised
 * text: one for English words (ASCII runs, whole-word comparisons against
 * the word lists of text/lexicon/versions.c) and one for Chinese (code
 * points: Han characters and ASCII letters or digits make up a noun or a
 * value, the lists' function words end it).  The cue tables of the same
 * file mark changes, requests, intentions and negations.
 */
#include "write/distill/restate.h"

#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "text/cue.h"
#include "text/lexicon/lexicon.h"

static int has(const char *s, size_t n, const am__cue *cues)
{
    return am__cue_scan(s, n, cues, NULL, AM__CUE_FIRST, NULL);
}

/* ------------------------------------------------------------ English words */

static int en_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '\'' || c == '-';
}

/* 1 when s[i..) starts with the word or words w, as whole words. */
static int en_word_at(const char *s, size_t n, size_t i, const char *w)
{
    size_t m = strlen(w);
    if (i + m > n || memcmp(s + i, w, m) != 0) return 0;
    if (i > 0 && en_byte((unsigned char)s[i - 1])) return 0;
    return i + m == n || !en_byte((unsigned char)s[i + m]);
}

/* The length of the list's word at s[i..), or 0. */
static size_t en_list_at(const char *s, size_t n, size_t i, const char *const *list)
{
    size_t best = 0;
    for (size_t k = 0; list[k]; k++)
        if (strlen(list[k]) > best && en_word_at(s, n, i, list[k])) best = strlen(list[k]);
    return best;
}

/* The next word at or after i (only spaces between): *at, and its end. */
static size_t en_next_word(const char *s, size_t n, size_t i, size_t *at)
{
    while (i < n && s[i] == ' ') i++;
    *at = i;
    while (i < n && en_byte((unsigned char)s[i])) i++;
    return i;
}

/* Append a word to a key-safe noun ("blood_type"), dropping "'s" and a
 * plural s ("jobs" -> "job"). */
static int noun_add(char *out, size_t cap, const char *w, size_t m, int last)
{
    if (m > 2 && w[m - 2] == '\'' && w[m - 1] == 's') m -= 2;
    if (last && m > 3 && w[m - 1] == 's' && w[m - 2] != 's' && w[m - 2] != 'u' &&
        w[m - 2] != 'i')
        m--;
    size_t l = strlen(out);
    if (l + m + 2 > cap || m == 0) return 0;
    if (l) out[l++] = '_';
    memcpy(out + l, w, m);
    out[l + m] = 0;
    return 1;
}

/* The words from i up to a boundary word (at most 4) as a noun; *end the
 * position after them.  Returns the number of words. */
static int en_noun(const char *s, size_t n, size_t i, char *out, size_t cap, size_t *end)
{
    size_t ws[4], we[4];
    int k = 0;
    for (;;) {
        size_t at, e = en_next_word(s, n, i, &at);
        if (e == at || k == 4 || en_list_at(s, n, at, am__lex_attr_ends_en)) {
            *end = at;
            break;
        }
        ws[k] = at;
        we[k++] = e;
        i = e;
        /* "my uncle's …" ends at the 's */
        if (e - at > 2 && s[e - 2] == '\'' && s[e - 1] == 's') {
            *end = e;
            break;
        }
    }
    out[0] = 0;
    for (int j = 0; j < k; j++)
        if (!noun_add(out, cap, s + ws[j], we[j] - ws[j], j == k - 1)) {
            out[0] = 0;
            return 0;
        }
    return k;
}

/* After a copula at p: a value of 1 to 4 words to the clause's end that
 * does not start with a function or state word ("my manager is Sarah
 * Chen", not "my goal is to …" or "my store is open"). */
static int en_value(const char *s, size_t n, size_t p)
{
    size_t at, e = en_next_word(s, n, p, &at);
    if (e == at || en_list_at(s, n, at, am__lex_attr_not_value_en)) return 0;
    int k = 0;
    while (e > at) {
        k++;
        p = e;
        e = en_next_word(s, n, p, &at);
    }
    /* the next byte ends the clause */
    while (p < n && s[p] == ' ') p++;
    return k <= 4 && (p == n || s[p] == ',' || s[p] == '.' || s[p] == ';' || s[p] == '!');
}

/* "my [modifiers] X <verb>": the first possessive frame that names a noun. */
static void en_possessive(const char *s, size_t n, am__restate *r)
{
    for (size_t i = 0; i < n; i++) {
        if (!en_word_at(s, n, i, "my") && !en_word_at(s, n, i, "our")) continue;
        size_t p = i + (s[i] == 'm' ? 2 : 3), at, e;
        for (;;) {
            e = en_next_word(s, n, p, &at);
            if (e == at) break;
            if (en_list_at(s, n, at, am__lex_attr_past_en)) r->past = 1;
            else if (!en_list_at(s, n, at, am__lex_attr_modifiers_en)) break;
            p = e;
        }
        size_t end;
        char noun[AM__ATTR_MAX];
        if (!en_noun(s, n, p, noun, sizeof noun, &end)) continue;
        /* "my uncle's licence plate": someone else's attribute */
        if (end >= 2 && s[end - 2] == '\'' && s[end - 1] == 's') continue;
        /* a verb must follow: "my manager is", "my car got" */
        size_t vat, ve = en_next_word(s, n, end, &vat);
        if (ve == vat) continue;
        memcpy(r->noun, noun, sizeof noun);
        r->possessive = 1;
        r->ours = s[i] == 'o';
        /* "my manager is Sarah", not "our flight was cancelled" or "my
         * company is going public": a present copula before a value */
        size_t nat, ne = en_next_word(s, n, ve, &nat);
        int ing = ne - nat > 4 && memcmp(s + ne - 3, "ing", 3) == 0;
        r->copula = s[i] == 'm' && !ing && en_value(s, n, ve) &&
                    (en_word_at(s, n, vat, "is") || en_word_at(s, n, vat, "are"));
        return;
    }
}

/* "changed jobs", "got a new car": the object of a verb of change. */
static void en_change_object(const char *s, size_t n, am__restate *r)
{
    for (size_t i = 0; i < n; i++) {
        size_t m = en_list_at(s, n, i, am__lex_attr_change_en);
        if (!m) continue;
        size_t p = i + m, at, e;
        for (;;) {
            e = en_next_word(s, n, p, &at);
            if (e == at) break;
            if (!en_word_at(s, n, at, "a") && !en_word_at(s, n, at, "an") &&
                !en_word_at(s, n, at, "the") && !en_word_at(s, n, at, "my") &&
                !en_list_at(s, n, at, am__lex_attr_modifiers_en))
                break;
            p = e;
        }
        size_t end;
        char noun[AM__ATTR_MAX];
        /* "switched to Teams": a value, no attribute */
        int words = en_noun(s, n, p, noun, sizeof noun, &end);
        if (words > 0 && words <= 2) {
            memcpy(r->noun, noun, sizeof noun);
            return;
        }
    }
}

/* The old value after a negation: up to 3 words, from the first word not
 * skipped to an ending word. */
static int en_old_value(const char *s, size_t n, size_t p, char *out, size_t cap)
{
    size_t at, e;
    for (;;) {
        e = en_next_word(s, n, p, &at);
        if (e == at || !en_list_at(s, n, at, am__lex_restate_old_skip_en)) break;
        p = e;
    }
    size_t from = at, to = at;
    for (int k = 0; k < 3; k++) {
        e = en_next_word(s, n, p, &at);
        if (e == at || en_list_at(s, n, at, am__lex_restate_old_ends_en) ||
            en_list_at(s, n, at, am__lex_restate_old_skip_en))
            break;
        to = e;
        p = e;
    }
    if (to - from < 2 || to - from + 1 > cap) return 0;
    memcpy(out, s + from, to - from);
    out[to - from] = 0;
    return 1;
}

/* ------------------------------------------------------------ Chinese */

/* Code point at s[i] (its length in *l); 0 at the end. */
static uint32_t cp_at(const char *s, size_t n, size_t i, int *l)
{
    uint32_t cp = 0;
    *l = i < n ? am__utf8_decode(s + i, n - i, &cp) : 0;
    if (*l <= 0) {
        *l = 1;
        return 0;
    }
    return cp;
}

static int zh_part(uint32_t cp)
{
    return am__is_han(cp) || (cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9');
}

/* The length of the list's word at s[i..), or 0 (longest). */
static size_t zh_list_at(const char *s, size_t n, size_t i, const char *const *list)
{
    size_t best = 0;
    for (size_t k = 0; list[k]; k++) {
        size_t m = strlen(list[k]);
        if (m > best && i + m <= n && memcmp(s + i, list[k], m) == 0) best = m;
    }
    return best;
}

/* A run of Han characters and ASCII letters/digits from i, at most max
 * code points, ending at a word of `ends`; *end its end.  Returns the
 * number of code points. */
static int zh_run(const char *s, size_t n, size_t i, const char *const *ends, int max,
                  size_t *end)
{
    int k = 0;
    while (i < n && k <= max) {
        if (k > 0 && zh_list_at(s, n, i, ends)) break;
        int l;
        uint32_t cp = cp_at(s, n, i, &l);
        if (!zh_part(cp)) break;
        i += (size_t)l;
        k++;
    }
    *end = i;
    return k > max ? 0 : k;
}

static int copy_span(char *out, size_t cap, const char *s, size_t a, size_t b)
{
    if (b <= a || b - a + 1 > cap) return 0;
    memcpy(out, s + a, b - a);
    out[b - a] = 0;
    return 1;
}

static int copula_at(const char *s, size_t n, size_t p);

/* "我[们|现在|目前|新]的[新|现任]X<verb>", "我以前的X" (past). */
static void zh_possessive(const char *s, size_t n, am__restate *r)
{
    static const char me[] = "我", of[] = "的";
    for (size_t i = 0; i + 3 <= n; i++) {
        if (memcmp(s + i, me, 3) != 0) continue;
        size_t p = i + 3, m;
        int past = 0;
        if ((m = zh_list_at(s, n, p, am__lex_attr_past_zh)) && m > 3 &&
            memcmp(s + p + m - 3, of, 3) == 0) {
            past = 1;
            p += m;
        } else {
            if ((m = zh_list_at(s, n, p, am__lex_attr_owner_mid_zh))) p += m;
            if (p + 3 > n || memcmp(s + p, of, 3) != 0) continue;
            p += 3;
        }
        while ((m = zh_list_at(s, n, p, am__lex_attr_modifiers_zh))) p += m;
        if ((m = zh_list_at(s, n, p, am__lex_attr_past_zh))) {
            past = 1;
            p += m;
        }
        size_t end;
        if (!zh_run(s, n, p, am__lex_attr_ends_zh, 6, &end)) continue;
        if (!zh_list_at(s, n, end, am__lex_attr_ends_zh)) continue; /* a verb must follow */
        if (!copy_span(r->noun, sizeof r->noun, s, p, end)) continue;
        r->possessive = 1;
        r->ours = i + 6 <= n && memcmp(s + i + 3, "们", 3) == 0;
        r->past |= past;
        r->copula = !r->ours && zh_list_at(s, n, end, am__lex_attr_copula_zh) != 0;
        r->now_copula = !r->ours && copula_at(s, n, end);
        return;
    }
}

/* "我换工作了", "换了辆车": the object of 换 (not "换成X": a value). */
static void zh_change_object(const char *s, size_t n, am__restate *r)
{
    size_t i = 0;
    while (i + 3 <= n && memcmp(s + i, "我", 3) != 0) i++;
    for (; i + 3 <= n; i++) {
        size_t m = zh_list_at(s, n, i, am__lex_attr_change_zh);
        if (!m) continue;
        size_t p = i + m, k;
        while ((k = zh_list_at(s, n, p, am__lex_attr_change_skip_zh))) p += k;
        if (p == i + m && zh_list_at(s, n, p, am__lex_attr_value_next_zh)) continue;
        size_t end;
        if (zh_run(s, n, p, am__lex_attr_ends_zh, 4, &end) &&
            copy_span(r->noun, sizeof r->noun, s, p, end))
            return;
    }
}

static int zh_old_value(const char *s, size_t n, size_t p, char *out, size_t cap)
{
    size_t end;
    int k = zh_run(s, n, p, am__lex_restate_old_ends_zh, 8, &end);
    int han = k > 0 && ((unsigned char)s[p] & 0x80);
    /* a value: two Han characters or two ASCII letters at least */
    if (k < 2 && !(k == 1 && !han && end - p >= 2)) return 0;
    if (zh_list_at(s, n, p, am__lex_restate_old_ends_zh)) return 0;
    return copy_span(out, cap, s, p, end);
}

/* ------------------------------------------------------------ the analysis */

/* The first negation of the table that names a value. */
static void old_value(const char *s, size_t n, am__restate *r)
{
    size_t off = 0;
    am__cue_hit h;
    while (off < n && am__cue_scan(s + off, n - off, am__lex_restate_old, NULL, AM__CUE_FIRST, &h)) {
        size_t p = off + h.end;
        int ascii = !((unsigned char)s[off + h.at] & 0x80);
        while (p < n && s[p] == ' ') p++;
        int ok = ascii && p < n && !((unsigned char)s[p] & 0x80)
                     ? en_old_value(s, n, p, r->old_value, sizeof r->old_value)
                     : zh_old_value(s, n, p, r->old_value, sizeof r->old_value);
        if (ok) return;
        r->old_value[0] = 0;
        off += h.end > h.at ? h.end : h.at + 1;
    }
}

static int in_list(const char *w, const char *const *list)
{
    for (size_t k = 0; list[k]; k++)
        if (strcmp(w, list[k]) == 0) return 1;
    return 0;
}

/* Another person as the subject: "我老板…" (我 + a person word, no 的) or a
 * possessive frame naming a person with a verb other than a copula ("my
 * sister moved to Boston"; "my manager is now Tom" says who the manager
 * is). */
/* 1 when a copula follows at p: "is", "are", "是", "现在是". */
static int copula_at(const char *s, size_t n, size_t p)
{
    size_t vat, m;
    en_next_word(s, n, p, &vat);
    if (en_word_at(s, n, vat, "is") || en_word_at(s, n, vat, "are")) return 1;
    if ((m = zh_list_at(s, n, p, am__lex_restate_now_zh))) p += m;
    return zh_list_at(s, n, p, am__lex_attr_copula_zh) != 0;
}

static void other_person(const char *s, size_t n, am__restate *r)
{
    if (r->possessive && !r->copula && in_list(r->noun, am__lex_attr_persons)) {
        size_t nl = strlen(r->noun), i = 0;
        while (i + nl <= n && memcmp(s + i, r->noun, nl) != 0) i++;
        if (i + nl > n || !copula_at(s, n, i + nl)) r->other = 1;
    }
    for (size_t i = 0; i + 3 <= n && !r->other; i++)
        if (memcmp(s + i, "我", 3) == 0 && zh_list_at(s, n, i + 3, am__lex_attr_persons)) r->other = 1;
}

/* A verb of change that implies its attribute ("搬到" a home, "joined" a
 * job): the profile key's name as the noun. */
static void implied(const char *s, size_t n, am__restate *r)
{
    for (size_t k = 0; am__lex_attr_implied[k].name; k++)
        for (size_t i = 0; i < n; i++) {
            int ascii = !((unsigned char)s[i] & 0x80);
            if (ascii ? en_list_at(s, n, i, am__lex_attr_implied[k].words)
                      : zh_list_at(s, n, i, am__lex_attr_implied[k].words)) {
                snprintf(r->noun, sizeof r->noun, "%s", am__lex_attr_implied[k].name);
                return;
            }
        }
}

void am__distill_restate(const char *norm, size_t n, am__restate *out)
{
    memset(out, 0, sizeof *out);
    if (!norm || n == 0) return;
    am__cue_hit ch, fp;
    int change = am__cue_scan(norm, n, am__lex_restate_change, NULL, AM__CUE_FIRST, &ch);
    if (change) out->change = AM__RESTATE_CHANGE;
    else if (am__cue_scan(norm, n, am__lex_restate_now, NULL, AM__CUE_FIRST, &ch))
        out->change = AM__RESTATE_NOW;
    out->first_person = am__cue_scan(norm, n, am__lex_restate_first_person, NULL, AM__CUE_FIRST,
                                     &fp) &&
                        (!out->change || fp.at <= ch.at);
    out->request = has(norm, n, am__lex_restate_request);
    out->intent = has(norm, n, am__lex_restate_intent);
    zh_possessive(norm, n, out);
    if (!out->noun[0]) en_possessive(norm, n, out);
    if (!out->noun[0] && out->change == AM__RESTATE_CHANGE) {
        zh_change_object(norm, n, out);
        if (!out->noun[0]) en_change_object(norm, n, out);
    }
    if (!out->noun[0] && out->change == AM__RESTATE_CHANGE) implied(norm, n, out);
    other_person(norm, n, out);
    out->event = out->noun[0] && in_list(out->noun, am__lex_attr_events);
    if (out->noun[0] && (am__distill_noun_discourse(out->noun) || out->event)) {
        out->noun[0] = 0;
        out->possessive = out->copula = 0;
    }
    if (out->change) old_value(norm, n, out);
}

const char *am__distill_noun_profile_key(const char *noun)
{
    char w[AM__ATTR_MAX];
    size_t l = strlen(noun);
    if (l >= sizeof w) return NULL;
    /* "full_name" is "full name" in the word lists */
    for (size_t i = 0; i <= l; i++) w[i] = noun[i] == '_' ? ' ' : noun[i];
    for (size_t k = 0; am__lex_attr_profile_nouns[k].name; k++)
        for (size_t j = 0; am__lex_attr_profile_nouns[k].words[j]; j++)
            if (strcmp(w, am__lex_attr_profile_nouns[k].words[j]) == 0)
                return am__lex_attr_profile_nouns[k].name;
    return NULL;
}

int am__distill_noun_discourse(const char *noun)
{
    for (size_t k = 0; am__lex_attr_discourse[k]; k++)
        if (strcmp(noun, am__lex_attr_discourse[k]) == 0) return 1;
    return 0;
}
