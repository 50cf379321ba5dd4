/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rules.c -- the distillation rule tables and their decision procedure.
 * See rules.h.  The tables are data in text/lexicon/distill_cues.c, cue
 * patterns (text/cue.h: whole ASCII words, "A…B" pairs within a clause,
 * '^' clause starts, context lists); the procedure that combines them is
 * fixed and short (am__distill_sentence); a question (text/question.h)
 * states no rule.
 *
 * To extend: add a labelled sentence to tests/corpus/distill.tsv first,
 * then the most general cue that fixes it, and run test_corpus: it prints
 * precision and recall per class and every line that changed.
 */
#include "write/distill/rules.h"

#include <stdio.h>
#include <string.h>

#include "write/distill/restate.h"
#include "domain/task.h"
#include "text/lexicon/lexicon.h"
#include "text/question.h"


static int has(const char *s, size_t n, const am__cue *cues)
{
    return am__cue_scan(s, n, cues, NULL, AM__CUE_FIRST, NULL);
}

static const char *pick(const am__lex_cues *t, size_t n, const char *s, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (has(s, len, t[i].cues)) return t[i].name;
    return NULL;
}

static const char *attribute(const char *s, size_t n)
{
    return pick(am__lex_distill_attributes,
                sizeof am__lex_distill_attributes / sizeof *am__lex_distill_attributes, s, n);
}

/* The subject of a Chinese long-term statement "以后<subject>都/一律/全部…"
 * (2-8 characters, Han only), used as the key's topic when the topic table
 * knows none. */
static int zh_subject(const char *norm, size_t n, char *out, size_t outlen)
{
    for (size_t k = 0; am__lex_distill_subject_starts[k]; k++) {
        size_t sl = strlen(am__lex_distill_subject_starts[k]);
        for (size_t i = 0; i + sl <= n; i++) {
            if (memcmp(norm + i, am__lex_distill_subject_starts[k], sl) != 0) continue;
            size_t a = i + sl, p = a;
            int chars = 0;
            while (p < n && chars <= 8) {
                for (size_t e = 0; am__lex_distill_subject_ends[e]; e++) {
                    size_t el = strlen(am__lex_distill_subject_ends[e]);
                    if (p + el <= n && memcmp(norm + p, am__lex_distill_subject_ends[e], el) == 0) {
                        if (chars < 2 || p - a >= outlen) return 0;
                        memcpy(out, norm + a, p - a);
                        out[p - a] = 0;
                        return 1;
                    }
                }
                uint32_t cp;
                int l = am__utf8_decode(norm + p, n - p, &cp);
                if (!am__is_han(cp)) return 0;
                p += (size_t)l;
                chars++;
            }
            return 0;
        }
    }
    return 0;
}

/* The key of the attribute the sentence itself states (distill/restate.h:
 * "我的车是…" -> attr.车, "my blood type is…" -> attr.blood_type): a profile
 * noun's profile key ("我换工作了" -> profile.job), else the attribute table
 * on the noun ("my report format is…" -> report.format), else attr.<noun>.
 * 0 when the sentence names no attribute of its own. */
static int sentence_key(const char *norm, size_t n, const char *topic, char out[96])
{
    am__restate rs;
    am__distill_restate(norm, n, &rs);
    /* an attribute stated as such: "my X is Y", "我的X(现在)是Y", or changed
     * ("我换工作了", "my car changed to …"); "my kids and I …" states none */
    if (!rs.noun[0] || rs.past || rs.other || rs.event ||
        !((rs.possessive && (rs.copula || rs.now_copula)) || rs.change == AM__RESTATE_CHANGE))
        return 0;
    const char *p = am__distill_noun_profile_key(rs.noun);
    /* the table's attribute only as the noun's head: "report_format" is a
     * format, "phone_plan" no channel */
    const char *attr = NULL;
    size_t nl = strlen(rs.noun);
    for (size_t i = 0; !p && !attr && i < sizeof am__lex_distill_attributes /
                                          sizeof *am__lex_distill_attributes; i++) {
        am__cue_hit h;
        if (am__cue_scan(rs.noun, nl, am__lex_distill_attributes[i].cues, NULL, AM__CUE_LAST, &h) &&
            h.end == nl)
            attr = am__lex_distill_attributes[i].name;
    }
    if (p) snprintf(out, 96, "profile.%s", p);
    else if (attr) snprintf(out, 96, "%s.%s", topic ? topic : "general", attr);
    else snprintf(out, 96, "attr.%s", rs.noun);
    return 1;
}

static long long_term_at(const char *s, size_t n);

static void make_key(const char *norm, size_t n, const char *kind,
                     char out[96])
{
    const char *topic =
        pick(am__lex_distill_topics, sizeof am__lex_distill_topics / sizeof *am__lex_distill_topics,
             norm, n);
    const char *attr = attribute(norm, n);
    if (strcmp(kind, "profile") == 0) {
        const char *p = pick(
            am__lex_distill_profile_keys,
            sizeof am__lex_distill_profile_keys / sizeof *am__lex_distill_profile_keys, norm, n);
        if (p) {
            snprintf(out, 96, "profile.%s", p);
            return;
        }
    }
    /* a fact or a restatement is keyed by the attribute it names first; a
     * rule ("以后发给我的文件都用PDF") by the tables first */
    int rule = long_term_at(norm, n) >= 0;
    if (!rule && sentence_key(norm, n, topic, out)) return;
    if (attr) {
        char subject[64];
        if (!topic && zh_subject(norm, n, subject, sizeof subject)) {
            /* "以后采购合同都用表格" and "以后报销单都用表格" are two rules */
            snprintf(out, 96, "%s.%s", subject, attr);
            return;
        }
        snprintf(out, 96, "%s.%s", topic ? topic : "general", attr);
        return;
    }
    if (rule && sentence_key(norm, n, topic, out)) return;
    /* No known attribute: a key of its own. */
    snprintf(out, 96, "%s.%s.%08x", topic ? topic : "general", kind,
             (unsigned)(am__hash64(norm, n) & 0xffffffffu));
}

/* ---------------------------------------------------------- matcher */

/* 1 if no clause punctuation lies in s[a..b). */
static int same_clause(const char *s, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++)
        if (am__cue_clause_start(s, i + 1) && s[i] != ' ') return 0;
    return 1;
}

/* Position of the sentence's long-term marker, or -1 when it has none. */
static long long_term_at(const char *s, size_t n)
{
    am__cue_hit h;
    if (am__cue_scan(s, n, am__lex_distill_long_term, NULL, AM__CUE_FIRST, &h)) return (long)h.at;
    if (am__cue_scan(s, n, am__lex_distill_frequency, NULL, AM__CUE_FIRST, &h) &&
        has(s, n, am__lex_distill_addressed))
        return (long)h.at;
    return -1;
}

/* A hypothetical stops the sentence unless the rule stands outside it:
 * "以后如果是英文邮件，都用英文回复" and "如果是英文邮件，以后都用英文回复"
 * are rules, "如果以后都用Word会不会更好" is not. */
static int hypothetical_guard(const char *s, size_t n, long lt)
{
    if (has(s, n, am__lex_distill_subjunctive)) return 1;
    am__cue_hit h;
    if (!am__cue_scan(s, n, am__lex_distill_hypothetical, NULL, AM__CUE_FIRST, &h)) return 0;
    if (lt < 0) return 1;
    return (size_t)lt > h.at && same_clause(s, h.at, (size_t)lt);
}

static const char *guard_of(const char *s, size_t n, long lt)
{
    if (hypothetical_guard(s, n, lt)) return "hypothetical";
    am__cue_hit h;
    if (has(s, n, am__lex_distill_reported) ||
        (am__cue_scan(s, n, am__lex_distill_other_subject, NULL, AM__CUE_FIRST, &h) && h.at == 0))
        return "reported_speech";
    if (am__text_is_question(s, n, AM__TEXT_Q_ASKS)) return "question";
    return NULL;
}

static const char *kind_of(const char *s, size_t n)
{
    if (has(s, n, am__lex_distill_constraint_cues)) return "constraint";
    if (has(s, n, am__lex_distill_profile_cues) && !has(s, n, am__lex_distill_transient))
        return "profile";
    return "preference";
}

/* ---------------------------------------------------------- lasting forms */

/* Lasting statements without a cue word: the form of the sentence
 * says it holds beyond today -- a norm, a habit, a fact about the user, a
 * default (the tables and what each form is: text/lexicon/lasting_cues.c).
 * Narration, what holds now, a question or a hypothetical keep it out. */

static int word_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '\'' || c == '-' || c == '_';
}

/* The clause around position i: [*from, *to), spaces trimmed. */
static void clause_span(const char *s, size_t n, size_t i, size_t *from, size_t *to)
{
    size_t a = i, b = i;
    while (a > 0 && !am__cue_clause_start(s, a)) a--;
    while (b < n && !(s[b] != ' ' && am__cue_clause_start(s, b + 1))) b++;
    if (b < n && (unsigned char)s[b] >= 0x80) b = b >= 2 ? b - 2 : 0; /* 。、: 3 bytes */
    while (a < b && s[a] == ' ') a++;
    while (b > a && s[b - 1] == ' ') b--;
    *from = a;
    *to = b;
}

/* s[a..b) starts with one of list (ASCII entries as whole words). */
static int starts_with_word(const char *s, size_t a, size_t b, const char *const *list)
{
    for (size_t i = 0; list[i]; i++) {
        size_t m = strlen(list[i]);
        if (a + m > b || memcmp(s + a, list[i], m) != 0) continue;
        if ((unsigned char)list[i][0] < 0x80 && a + m < b && word_char((unsigned char)s[a + m]))
            continue;
        return 1;
    }
    return 0;
}

/* The units of s[a..b): ASCII words and other characters (Han), spaces
 * and punctuation aside; *ascii_first when the first unit is a word. */
static size_t units(const char *s, size_t a, size_t b, int *ascii_first)
{
    size_t k = 0;
    *ascii_first = 0;
    while (a < b) {
        unsigned char c = (unsigned char)s[a];
        if (word_char(c)) {
            if (k == 0) *ascii_first = 1;
            while (a < b && word_char((unsigned char)s[a])) a++;
            k++;
            continue;
        }
        uint32_t cp;
        int l = am__utf8_decode(s + a, b - a, &cp);
        if (l <= 0) l = 1;
        if (cp >= 0x80 && am__is_han(cp)) k++;
        a += (size_t)l;
    }
    return k;
}

/* The next ASCII word at or after a, as [*w, *we). */
static int next_word(const char *s, size_t a, size_t b, size_t *w, size_t *we)
{
    while (a < b && s[a] == ' ') a++;
    if (a >= b || !word_char((unsigned char)s[a])) return 0;
    *w = a;
    while (a < b && word_char((unsigned char)s[a])) a++;
    *we = a;
    return 1;
}

static int ends_with(const char *s, size_t w, size_t we, const char *suffix, size_t min_len)
{
    size_t m = strlen(suffix);
    return we - w >= min_len && we - w >= m && memcmp(s + we - m, suffix, m) == 0;
}

/* A participle or a past tense: "heading", "delayed" (not "need"). */
static int participle(const char *s, size_t w, size_t we)
{
    return ends_with(s, w, we, "ing", 5) ||
           (ends_with(s, w, we, "ed", 4) && !ends_with(s, w, we, "eed", 3));
}

/* "I worked ...", "we moved ...": the user narrates. */
static int first_person_past(const char *s, size_t n)
{
    for (size_t i = 0; i + 2 < n; i++) {
        size_t m = s[i] == 'i' && s[i + 1] == ' ' ? 1
                   : s[i] == 'w' && s[i + 1] == 'e' && s[i + 2] == ' ' ? 2
                                                                         : 0;
        if (!m || (i > 0 && word_char((unsigned char)s[i - 1]))) continue;
        size_t w, we;
        if (next_word(s, i + m, n, &w, &we) && ends_with(s, w, we, "ed", 4) &&
            !ends_with(s, w, we, "eed", 3))
            return 1;
    }
    return 0;
}

/* No particle of a question, a suggestion or a change of state. */
static int plain_tail(const char *s, size_t a, size_t b)
{
    static const char *const particles[] = {"了", "吗", "呢", "吧", "啊", "嘛", NULL};
    for (size_t i = 0; particles[i]; i++) {
        size_t m = strlen(particles[i]);
        for (size_t k = a; k + m <= b; k++)
            if (memcmp(s + k, particles[i], m) == 0) return 0;
    }
    return 1;
}

/* A generic subject: no pronoun, person or thing at hand opens it. */
static int generic_subject(const char *s, size_t a, size_t e)
{
    if (e <= a || starts_with_word(s, a, e, am__lex_lasting_not_generic)) return 0;
    /* "这份报价单必须…" is one thing; "天气预报说周末要…" reports */
    static const char *const deictic[] = {"这", "那", "说", "觉得", "认为", NULL};
    for (size_t k = a; k < e; k++)
        if (starts_with_word(s, k, e, deictic)) return 0;
    int ascii;
    size_t u = units(s, a, e, &ascii);
    return u >= (ascii ? 1u : 2u) && u <= 20;
}

/* The modal at s[at..end) obliges: it is no relative clause or condition
 * ("要改的地方", "需要的话"), no judgement of what is there ("Numbers must
 * be off", "Slides need more color": "be" without a participle or a limit,
 * "more"). */
static int deontic_use(const char *s, size_t n, size_t end)
{
    for (size_t k = end; k + 3 <= n && k <= end + 6; k++)
        if (memcmp(s + k, "的", 3) == 0) return 0;
    static const char *const judged[] = {"more", "less", "some", "another", "a bit", "work",
                                         "fixing", "have", NULL};
    static const char *const limits[] = {"under", "below", "within", "less", "fewer", "no",
                                         "at", "in", "kept", "done", "made", "sent", "filed",
                                         "written", "given", "taken", "shown", NULL};
    size_t w, we;
    if (!next_word(s, end, n, &w, &we)) return 1;
    if (starts_with_word(s, w, n, judged)) return 0;
    if (we - w == 2 && memcmp(s + w, "be", 2) == 0) {
        size_t v, ve;
        if (!next_word(s, we, n, &v, &ve)) return 0;
        return participle(s, v, ve) || starts_with_word(s, v, n, limits);
    }
    return 1;
}

/* A norm: a deontic modal after a generic subject -- the words before it
 * in its clause, or the sentence's first clause when the modal's own clause
 * has none ("单笔五十万元以上的付款申请，…，还须副总裁签字"); 统一 sets a
 * convention (*convention), the others a must. */
static int norm_form(const char *s, size_t n, int *convention)
{
    size_t from = 0;
    am__cue_hit h;
    while (from < n &&
           am__cue_scan(s + from, n - from, am__lex_lasting_modal, NULL, AM__CUE_FIRST, &h)) {
        size_t at = from + h.at, a, b;
        from = from + h.end > at ? from + h.end : at + 1;
        clause_span(s, n, at, &a, &b);
        size_t e = at;
        while (e > a && s[e - 1] == ' ') e--;
        int ascii;
        /* no subject of its own (Chinese, at most an adverb: 还须, 均须) */
        if (a > 0 && units(s, a, e, &ascii) < 2 && (e == a || !ascii)) {
            size_t fa, fb;
            clause_span(s, n, 0, &fa, &fb);
            a = fa;
            e = fb;
        }
        if (!generic_subject(s, a, e) || !deontic_use(s, n, from)) continue;
        *convention = n - at >= 6 && memcmp(s + at, "统一", 6) == 0;
        return 1;
    }
    return has(s, n, am__lex_lasting_limit);
}

/* "Don't put client names in calendar invites", "别给我安排任何会议": a
 * prohibition on a kind of thing (a bare plural, "any"), not on one. */
static int prohibition_form(const char *s, size_t n)
{
    static const am__cue quantified[] = {AM__CUE("^别|不要…任何|所有|一切"),
                                         AM__CUE("^don't|do not|never…any|anything|anyone"),
                                         AM__CUE(NULL)};
    /* "Don't send anything until I confirm" holds until then */
    static const am__cue until[] = {AM__CUE("until|till|yet|直到|之前"), AM__CUE(NULL)};
    if (has(s, n, until)) return 0;
    if (has(s, n, quantified)) return 1;
    /* the user's own ban or the team's: "we can't share customer PII …" */
    static const char *const opens[] = {"don't", "do not", "never", "we can't", "we cannot",
                                        "we never", "we must not", "we mustn't", "we don't",
                                        "we do not", NULL};
    static const char *const not_kind[] = {
        "the", "this", "that", "these", "those", "it", "them", "him", "her", "me", "my", "your",
        "his", "our", "their", "yet", "a", "an", "up", "out", "back", "about", "with", "to", "for",
        "in", "on", "at", "so", "too", "be", "worry", "forget", "mind", "bother", "panic", "rush",
        "wait", "go", "come", "leave", "stop", "hesitate", "get", "know", "think", "feel", "say",
        "tell", "let", "make", "over", "bad", "have", "need", "want", "like", "see", "find",
        "afford", "wait", "believe", "remember", "understand", NULL};
    size_t a = 0, open = 0;
    while (a < n && s[a] == ' ') a++;
    for (size_t i = 0; opens[i] && !open; i++)
        if (starts_with_word(s, a, n, (const char *const[]){opens[i], NULL})) open = strlen(opens[i]);
    if (!open) return 0;
    size_t w, we;
    a += open;
    if (!next_word(s, a, n, &w, &we) || starts_with_word(s, w, n, not_kind)) return 0;
    if (!next_word(s, we, n, &w, &we) || starts_with_word(s, w, n, not_kind)) return 0;
    return 1;
}

/* "我是O型血", "I'm a night owl", "I'm on the finance team". */
static int copula_form(const char *s, size_t n)
{
    static const am__cue copula[] = {AM__CUE("^我是|本人是|i'm|i am"), AM__CUE(NULL)};
    am__cue_hit h;
    if (!am__cue_scan(s, n, copula, NULL, AM__CUE_FIRST, &h)) return 0;
    size_t a, b;
    clause_span(s, n, h.at, &a, &b);
    size_t t = h.end;
    while (t < b && s[t] == ' ') t++;
    /* the predicate ends where a conjunction starts another clause */
    static const char *const joins[] = {" and", " but", " so", " which", " because", "因为",
                                        "所以", "但是", NULL};
    for (size_t k = t; k < b; k++)
        if (starts_with_word(s, k, b, joins)) {
            b = k;
            break;
        }
    /* "I'm not a morning person" is a trait as well */
    static const char *const not_a[] = {"not a", "not an", NULL};
    if (starts_with_word(s, t, b, not_a)) t += 4;
    if (t >= b || starts_with_word(s, t, b, am__lex_lasting_copula_not) || !plain_tail(s, t, b))
        return 0;
    int ascii;
    size_t u = units(s, t, b, &ascii);
    if (!ascii) return u >= 1 && u <= 10;
    size_t w, we;
    if (u > 6 || !next_word(s, t, b, &w, &we)) return 0;
    if ((we - w == 1 && s[w] == 'a') || (we - w == 2 && memcmp(s + w, "an", 2) == 0)) {
        /* "a morning person", "a wedding planner": a noun phrase */
        return next_word(s, we, b, &w, &we) &&
               !starts_with_word(s, w, b, am__lex_lasting_copula_not);
    }
    if ((we - w == 2 && (memcmp(s + w, "on", 2) == 0 || memcmp(s + w, "in", 2) == 0)) ||
        (we - w == 4 && memcmp(s + w, "part", 4) == 0))
        return am__cue_scan(s + t, b - t, am__lex_lasting_org, NULL, AM__CUE_FIRST, NULL);
    /* "I'm left-handed", "I'm retired": an adjective; "I'm heading out" is not */
    return !ends_with(s, w, we, "ing", 5);
}

/* "我的血型是AB型", "my manager is Priya", "our office is on the 14th floor". */
static int possessive_form(const char *s, size_t n)
{
    static const am__cue owner[] = {AM__CUE("^我的|我们的|本人的|我家的|my|our"),
                                    AM__CUE(NULL)};
    am__cue_hit h;
    if (!am__cue_scan(s, n, owner, NULL, AM__CUE_FIRST, &h)) return 0;
    size_t a, b;
    clause_span(s, n, h.at, &a, &b);
    size_t t = h.end;
    while (t < b && s[t] == ' ') t++;
    if (t >= b || starts_with_word(s, t, b, am__lex_lasting_possessive_not)) return 0;
    static const char *const zh_cop[] = {"是", "在", "叫", NULL};
    static const char *const en_cop[] = {"is", "are", NULL};
    for (size_t k = t + 1; k < b; k++) {
        int en = (k == 0 || s[k - 1] == ' ') && starts_with_word(s, k, b, en_cop);
        if (!en && !starts_with_word(s, k, b, zh_cop)) continue;
        if (en && word_char((unsigned char)s[k - 1])) continue;
        size_t c = k + (en ? (s[k] == 'i' ? 2 : 3) : 3);
        int ascii;
        if (units(s, t, k, &ascii) > (ascii ? 4u : 8u)) return 0;
        while (c < b && s[c] == ' ') c++;
        if (c >= b || !plain_tail(s, c, b)) return 0;
        size_t w, we;
        if (!next_word(s, c, b, &w, &we)) return 1; /* Han, a number */
        return !starts_with_word(s, w, b, am__lex_lasting_state_not) && !participle(s, w, we);
    }
    return 0;
}

/* "我办公室在深圳南山", "我老家是东北的": a noun of the user's (2-4
 * characters, no 的) right after a bare 我, then 是 or 在. */
static int bare_owner_form(const char *s, size_t n)
{
    static const am__cue owner[] = {AM__CUE("^我"), AM__CUE(NULL)};
    am__cue_hit h;
    if (!am__cue_scan(s, n, owner, NULL, AM__CUE_FIRST, &h)) return 0;
    size_t a, b;
    clause_span(s, n, h.at, &a, &b);
    size_t t = h.end;
    if (starts_with_word(s, t, b, am__lex_lasting_bare_owner_not) ||
        starts_with_word(s, t, b, am__lex_lasting_possessive_not))
        return 0;
    size_t k = t;
    for (int chars = 0; k < b && chars <= 4; chars++) {
        uint32_t cp;
        int l = am__utf8_decode(s + k, b - k, &cp);
        if (l <= 0 || !am__is_han(cp)) return 0;
        /* 在 with a place ("…B座12楼"), not an activity ("我同事在帮忙看") */
        if (chars >= 2 && memcmp(s + k, "是", 3) == 0)
            return k + 3 < b && plain_tail(s, k + 3, b);
        if (chars >= 2 && memcmp(s + k, "在", 3) == 0)
            return k + 6 <= b && plain_tail(s, k + 3, b) &&
                   starts_with_word(s, b - 3, b, am__lex_lasting_place_ends);
        if (memcmp(s + k, "的", 3) == 0) return 0;
        k += (size_t)l;
    }
    return 0;
}

/* The lasting form of s, or NULL: its rule name, its kind, and where a
 * default's condition starts (for the hypothetical guard) or -1. */
static const char *lasting_form(const char *s, size_t n, const char **kind, long *at)
{
    *at = -1;
    if (has(s, n, am__lex_distill_transient) || has(s, n, am__lex_lasting_now) ||
        has(s, n, am__lex_lasting_past) || has(s, n, am__lex_lasting_past_tense) ||
        first_person_past(s, n))
        return NULL;
    am__cue_hit h;
    if (am__cue_scan(s, n, am__lex_lasting_default, NULL, AM__CUE_FIRST, &h)) {
        const char *k = kind_of(s, n);
        *kind = strcmp(k, "profile") == 0 ? "preference" : k;
        *at = (long)h.at;
        return "lasting_default";
    }
    int convention = 0;
    if (norm_form(s, n, &convention)) {
        *kind = convention ? kind_of(s, n) : "constraint";
        if (strcmp(*kind, "profile") == 0) *kind = "preference";
        return "lasting_norm";
    }
    if (prohibition_form(s, n)) {
        *kind = "constraint";
        return "lasting_norm";
    }
    if (has(s, n, am__lex_lasting_preference)) {
        *kind = "preference";
        return "lasting_choice";
    }
    /* "我们部门每周五都有分享会" is the team's, not the user's */
    if (am__cue_scan(s, n, am__lex_lasting_habit, NULL, AM__CUE_FIRST, &h) &&
        !(h.end - h.at >= 6 && memcmp(s + h.at, "我们", 6) == 0)) {
        *kind = has(s, n, am__lex_distill_constraint_cues) ||
                        has(s, n, am__lex_lasting_habit_negation)
                    ? "constraint"
                    : "preference";
        return "lasting_habit";
    }
    if (has(s, n, am__lex_lasting_trait) || copula_form(s, n) || possessive_form(s, n) ||
        bare_owner_form(s, n)) {
        *kind = has(s, n, am__lex_distill_constraint_cues) ? "constraint" : "profile";
        return "lasting_fact";
    }
    return NULL;
}

/* A rule fired: record it, or the guard that stops it. */
static int fire(const char *s, size_t n, long lt, int action, const char *rule,
                am__distill *out)
{
    out->guard = guard_of(s, n, lt);
    if (out->guard) return 0;
    out->action = action;
    out->rule = rule;
    return 1;
}

/* A restatement of an attribute without a long-term marker (distill/
 * restate.h): an explicit change in the user's own voice that names the
 * attribute, a table attribute or the old value ("我现在改用钉钉了，不用微
 * 信", "I now prefer Word over PDF", "我换工作了"), or "now" with a
 * possessive frame or the old value ("my manager is now Tom"); and a
 * possessive fact ("my blood type is O", "我的车是特斯拉").  Fills *rs for
 * the persist rules below; returns 1 when it decided the sentence. */
static int restated(const char *norm, size_t n, long lt, am__restate *rs, am__distill *out)
{
    am__distill_restate(norm, n, rs);
    /* "…，之前的偏好删掉吧": a withdrawal of the earlier rule (invalidation) */
    if (lt >= 0 || !rs->first_person || rs->request || rs->intent || rs->past || rs->other ||
        rs->event ||
        has(norm, n, am__lex_distill_transient) ||
        (has(norm, n, am__lex_distill_retract_reference) &&
         has(norm, n, am__lex_distill_retract_verbs)))
        return 0;
    int named = rs->noun[0] || attribute(norm, n) ||
                pick(am__lex_distill_profile_keys,
                     sizeof am__lex_distill_profile_keys / sizeof *am__lex_distill_profile_keys,
                     norm, n);
    int change = (rs->change == AM__RESTATE_CHANGE && (named || rs->old_value[0])) ||
                 (rs->change == AM__RESTATE_NOW &&
                  ((rs->possessive && (rs->copula || rs->now_copula)) || rs->old_value[0]));
    /* a stated preference ("I'd rather …, my afternoons are for …") is the
     * persist rules' */
    int fact = !change && rs->possessive && rs->copula &&
               !has(norm, n, am__lex_distill_preference_verbs) &&
               !has(norm, n, am__lex_distill_remember);
    if (!change && !fact) return 0;
    if (!fire(norm, n, lt, AM__D_PERSIST, change ? "restated" : "possessive_fact", out)) return 1;
    make_key(norm, n, fact ? "profile" : kind_of(norm, n), out->key);
    /* the user's own attribute ("我的车", "my manager", profile.job) is a
     * profile fact, unless it is a must or must-not */
    const char *kind = kind_of(norm, n);
    out->kind = strcmp(kind, "constraint") != 0 &&
                        (fact || strncmp(out->key, "profile.", 8) == 0 ||
                         (strncmp(out->key, "attr.", 5) == 0 && !rs->ours))
                    ? "profile"
                    : kind;
    out->confidence = strcmp(out->kind, "profile") == 0 ? 0.8 : 0.85;
    if (change) {
        out->restated = 1;
        if (rs->old_value[0]) out->confidence += 0.05; /* names the old value: a strong cue */
        snprintf(out->old_value, sizeof out->old_value, "%s", rs->old_value);
    }
    return 1;
}

/* Decision procedure, in order:
 *  1. one-off: scoped to this piece of work and no long-term marker ("这次
 *     用要点式就行"; "以后都像这次一样" is long-term).  A one-off that changes
 *     the task's status ("这次团建不搞了") is task state, not an instruction;
 *  2. invalidation: a withdrawal with a target;
 *  3. persist: a long-term marker, a preference verb, "remember", or a
 *     lasting profile fact;
 * and a guard (hypothetical, someone else's words, a question) stops each. */
void am__distill_sentence(const char *norm, size_t n, am__distill *out)
{
    memset(out, 0, sizeof *out);
    out->action = AM__D_NONE;
    if (n == 0) return;
    long lt = long_term_at(norm, n);
    int one_off =
        lt < 0 &&
        (has(norm, n, am__lex_distill_one_off_strong) ||
         (has(norm, n, am__lex_distill_one_off_weak) && has(norm, n, am__lex_distill_directive)));
    if (one_off) {
        am__task_signal sig;
        am__task_detect(norm, n, &sig);
        if (!sig.status) fire(norm, n, lt, AM__D_ONE_OFF, "one_off", out);
        return;
    }
    am__restate rs;
    if (restated(norm, n, lt, &rs, out)) return;
    int reference = has(norm, n, am__lex_distill_retract_reference);
    if (has(norm, n, am__lex_distill_retract_self) ||
        (reference && has(norm, n, am__lex_distill_retract_verbs)) ||
        (has(norm, n, am__lex_distill_retract) &&
         (reference || lt >= 0 || attribute(norm, n) ||
          has(norm, n, am__lex_distill_retract_routine)))) {
        fire(norm, n, lt, AM__D_INVALIDATE, "invalidate", out);
        return;
    }
    int stated = lt >= 0 || has(norm, n, am__lex_distill_preference_verbs) ||
                 has(norm, n, am__lex_distill_remember);
    int profile = !stated && has(norm, n, am__lex_distill_profile_cues) &&
                  !has(norm, n, am__lex_distill_transient) &&
                  !has(norm, n, am__lex_lasting_past);
    const char *form_kind = NULL;
    const char *form = stated || profile ? NULL : lasting_form(norm, n, &form_kind, &lt);
    if (!(stated || profile || form)) return;
    const char *kind = form ? form_kind : kind_of(norm, n);
    const char *rule = form ? form
                       : profile ? "profile_fact"
                       : strcmp(kind, "constraint") == 0 ? "persist_constraint"
                       : lt >= 0 ? "persist_preference"
                       : "persist_stated";
    if (!fire(norm, n, lt, AM__D_PERSIST, rule, out)) return;
    out->kind = kind;
    out->confidence = form || strcmp(kind, "profile") == 0 ? 0.8 : 0.85;
    make_key(norm, n, kind, out->key);
    /* "以后报告都改用Excel格式": a rule that changes a value */
    out->restated = rs.change == AM__RESTATE_CHANGE && rs.first_person && !rs.intent;
    snprintf(out->old_value, sizeof out->old_value, "%s", rs.old_value);
}

void am__distill_follow(const char *norm, size_t n, const am__distill *prev,
                        am__distill *out)
{
    if (prev->action != AM__D_PERSIST || out->action != AM__D_NONE || out->guard)
        return;
    if (strcmp(prev->kind, "profile") == 0) return;
    /* "以后周报用PDF。明天下午开会。": the second sentence is news, not the rule. */
    if (!attribute(norm, n) || has(norm, n, am__lex_distill_transient) ||
        am__text_is_question(norm, n, AM__TEXT_Q_ASKS))
        return;
    out->action = AM__D_PERSIST;
    out->kind = has(norm, n, am__lex_distill_constraint_cues) ? "constraint" : prev->kind;
    out->rule = "persist_follow";
    out->confidence = prev->confidence - 0.05;
    make_key(norm, n, out->kind, out->key);
}

/* ---------------------------------------------------------- references */

/* Bytes of the filler word at s[0..n), or 0: ASCII fillers as whole words. */
static size_t filler_at(const char *s, size_t n)
{
    size_t best = 0;
    for (size_t i = 0; am__lex_distill_ref_fillers[i]; i++) {
        const char *f = am__lex_distill_ref_fillers[i];
        size_t m = strlen(f);
        if (m > n || m <= best || memcmp(s, f, m) != 0) continue;
        int ascii = (unsigned char)f[0] < 0x80;
        if (ascii && m < n && ((s[m] | 0x20) >= 'a' && (s[m] | 0x20) <= 'z')) continue;
        best = m;
    }
    return best;
}

/* 1 when s[0..n) holds nothing but spaces, punctuation and fillers. */
static int only_fillers(const char *s, size_t n)
{
    size_t p = 0;
    while (p < n) {
        uint32_t cp;
        int l = am__utf8_decode(s + p, n - p, &cp);
        int punct = cp < 0x80 ? !((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') &&
                                    !(cp >= '0' && cp <= '9') && cp != '\''
                              : (cp >= 0x2000 && cp <= 0x206F) || (cp >= 0x3000 && cp <= 0x303F) ||
                                    (cp >= 0xFF01 && cp <= 0xFF0F) ||
                                    (cp >= 0xFF1A && cp <= 0xFF20) || cp == 0xFF5E;
        if (punct) {
            p += (size_t)l;
            continue;
        }
        size_t f = filler_at(s + p, n - p);
        if (!f) return 0;
        p += f;
    }
    return 1;
}

int am__distill_reference(const char *norm, size_t n)
{
    static const struct { const am__cue *cues; int ref; } kinds[] = {
        {am__lex_distill_ref_retract, AM__REF_RETRACT},
        {am__lex_distill_ref_promote, AM__REF_PROMOTE},
        {am__lex_distill_ref_remember, AM__REF_REMEMBER},
    };
    if (n == 0 || n > 160) return AM__REF_NONE;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        am__cue_hit h;
        if (!am__cue_scan(norm, n, kinds[k].cues, NULL, AM__CUE_FIRST, &h)) continue;
        if (only_fillers(norm, h.at) && only_fillers(norm + h.end, n - h.end)) return kinds[k].ref;
    }
    return AM__REF_NONE;
}

int am__distill_past_state(const char *norm, size_t n)
{
    return has(norm, n, am__lex_distill_past_state) || has(norm, n, am__lex_distill_transient) ||
           hypothetical_guard(norm, n, -1);
}

int am__distill_reference_cue(const char *norm, size_t n)
{
    static const struct { const am__cue *cues; int ref; } kinds[] = {
        {am__lex_distill_ref_retract, AM__REF_RETRACT},
        {am__lex_distill_ref_promote, AM__REF_PROMOTE},
        {am__lex_distill_ref_remember, AM__REF_REMEMBER},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        if (has(norm, n, kinds[k].cues)) return kinds[k].ref;
    return AM__REF_NONE;
}

void am__distill_lasting(const char *norm, size_t n, const char *rule, am__distill *out)
{
    memset(out, 0, sizeof *out);
    out->action = AM__D_PERSIST;
    out->kind = kind_of(norm, n);
    out->rule = rule;
    out->confidence = strcmp(out->kind, "profile") == 0 ? 0.8 : 0.85;
    make_key(norm, n, out->kind, out->key);
}

int am__distill_evaluation(const char *norm, size_t n)
{
    if (n == 0 || !has(norm, n, am__lex_eval_target) || has(norm, n, am__lex_distill_hypothetical) ||
        has(norm, n, am__lex_distill_subjunctive) || has(norm, n, am__lex_distill_reported) ||
        am__text_is_question(norm, n, AM__TEXT_Q_ASKS))
        return 0;
    if (has(norm, n, am__lex_eval_negative)) return -1;
    return has(norm, n, am__lex_eval_positive) ? 1 : 0;
}
