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
#include "distill/rules.h"

#include <stdio.h>
#include <string.h>

#include "distill/restate.h"
#include "perceive/task.h"
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
                  !has(norm, n, am__lex_distill_transient);
    if (!(stated || profile)) return;
    const char *kind = kind_of(norm, n);
    const char *rule = profile ? "profile_fact"
                       : strcmp(kind, "constraint") == 0 ? "persist_constraint"
                       : lt >= 0 ? "persist_preference"
                       : "persist_stated";
    if (!fire(norm, n, lt, AM__D_PERSIST, rule, out)) return;
    out->kind = kind;
    out->confidence = strcmp(kind, "profile") == 0 ? 0.8 : 0.85;
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

void am__distill_lasting(const char *norm, size_t n, const char *rule, am__distill *out)
{
    memset(out, 0, sizeof *out);
    out->action = AM__D_PERSIST;
    out->kind = kind_of(norm, n);
    out->rule = rule;
    out->confidence = strcmp(out->kind, "profile") == 0 ? 0.8 : 0.85;
    make_key(norm, n, out->kind, out->key);
}
