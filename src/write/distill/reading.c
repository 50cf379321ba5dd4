/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reading.c -- the rules' outcome and the learned reading combined
 * (reading.h).  One pass of the model over the sentence gives every
 * head's probabilities; a fixed procedure uses them:
 *   1. a reference the rules found stands (it points at the last turn);
 *   2. a rule that fired stands, unless the model reads the sentence as a
 *      reference to the last turn (and a reference cue is in it), as an
 *      invalidation, or -- for the rules' forms without a cue word -- as
 *      something that does not last; the model gives the kind when sure,
 *      and says whose it is;
 *   3. where the rules are silent (no action, no guard): the model keeps
 *      a lasting statement or a correction (probability of the two >=
 *      KEEP), invalidates, promotes or withdraws the last turn, each at
 *      its own threshold.  One-offs stay the rules' (a task note).
 * The thresholds were chosen on the dev split (agentmem eval understand
 * --split dev prints the combination's figures).
 */
#include "write/distill/reading.h"

#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "text/analyze.h"
#include "text/understand.h"

/* thresholds, chosen on the dev split */
#define KEEP 0.50f      /* lasting + correction, where the rules are silent */
#define KEEP_TURN 0.50f /* the same, of the whole turn the sentence is in */
#define VETO 0.90f      /* a must-not-keep reading that stops a rule */
#define VETO_KEEP 0.20f /* a cue-less rule stopped when sentence and turn last less */
#define ACT_MIN 0.60f   /* an invalidation, a reference */
#define WHOSE_MIN 0.60f /* a related person's statement */
#define KIND_MIN 0.70f  /* the model's kind over the rules' */
#define SHORT_KEEP 0.80f /* the same as KEEP, for a text of a few words ("周报素材") */
#define CLAUSE_KEEP 0.50f /* a clause that lasts on its own */
#define CLAUSE_NOT 0.20f  /* a clause that clearly does not */
#define CLAUSE_END 0.80f  /* a clause that ends something lasting (it closes an item) */

static int act_of(const char *name) { return am__und_label(AM_UND_ACT, name); }

static int best_of(const float *p, int h, float *prob)
{
    const am__und_head *hd = &am__und_heads[h];
    int k = 0;
    for (int i = 1; i < hd->n; i++)
        if (p[hd->offset + i] > p[hd->offset + k]) k = i;
    *prob = p[hd->offset + k];
    return k;
}

static float keep_prob(const float *p)
{
    const float *a = p + am__und_heads[AM_UND_ACT].offset;
    return a[act_of("lasting")] + a[act_of("correction")];
}

void am__distill_turn_read(const char *text, size_t len, am__distill_turn *t)
{
    t->text = text;
    t->len = len;
    t->read = 0;
}

/* the turn's reading, made on first use */
static const am__distill_turn *turn_load(am__distill_turn *t)
{
    if (t && !t->read) {
        am__und_probs(t->text, t->len, t->probs);
        t->keep = keep_prob(t->probs);
        t->read = 1;
    }
    return t;
}

/* the probability that the turn lasts, -1 when unknown */
static float turn_keep(am__distill_turn *t)
{
    return t ? turn_load(t)->keep : -1.0f;
}

/* the item kinds of the store for the model's five */
static const char *item_kind(const char *k)
{
    if (strcmp(k, "habit") == 0) return "preference";
    if (strcmp(k, "norm") == 0) return "constraint";
    return k;
}

static void decide(const float *p, int ref_cue, int past, am__distill_turn *turn, int short_,
                   am__distill *d);
static int is_space(unsigned char c);

/* A few words only: at most five Chinese characters and three other words */
static int short_text(const char *s, size_t n)
{
    size_t words = 0, han = 0;
    int in = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        int l = am__utf8_decode(s + i, n - i, &cp);
        if (l <= 0) l = 1;
        int wc = (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
        if (wc && !in) words++;
        in = wc;
        han += am__is_han(cp) != 0;
        i += (size_t)l;
    }
    return han <= 5 && words <= 3;
}

/* A key the tables made of no attribute ends in ".<8 hex>" */
static int hashed_key(const char *key)
{
    size_t n = strlen(key);
    if (n < 9 || key[n - 9] != '.') return 0;
    for (size_t i = n - 8; i < n; i++)
        if (!((key[i] >= '0' && key[i] <= '9') || (key[i] >= 'a' && key[i] <= 'f'))) return 0;
    return 1;
}

/* The key and kind of a statement the reading keeps: the tables' key
 * when they know the attribute, else a readable one; a related person's
 * statement under that person, a fact of theirs (not the user's profile) */
static void finish(const char *norm, size_t nn, am__distill *d)
{
    if (d->action != AM__D_PERSIST) return;
    if (d->source && strcmp(d->source, "model") == 0) {
        am__distill t;
        am__distill_lasting(norm, nn, d->rule, &t);
        memcpy(d->key, t.key, sizeof d->key);
    }
    /* "my manager is Tom" is the user's own attribute (attr.manager,
     * profile.*), whoever it names */
    if (d->whose && (strncmp(d->key, "attr.", 5) == 0 || strncmp(d->key, "profile.", 8) == 0))
        d->whose = NULL;
    if (d->whose) {
        char k[96];
        if (hashed_key(d->key)) am__distill_readable_key(norm, nn, d->topic, d->whose, k);
        else {
            size_t wl = strlen(d->whose), kl = strnlen(d->key, sizeof d->key - 1);
            if (wl + 1 + kl >= sizeof k) kl = sizeof k - wl - 2;
            memcpy(k, d->whose, wl);
            k[wl] = '.';
            memcpy(k + wl + 1, d->key, kl);
            k[wl + 1 + kl] = 0;
        }
        memcpy(d->key, k, sizeof d->key);
        if (strcmp(d->kind, "profile") == 0) d->kind = "fact";
    } else if (hashed_key(d->key)) {
        am__distill_readable_key(norm, nn, d->topic, NULL, d->key);
    }
}

/* A text wholly in brackets ("[image: a photo of a lake]", "【附件：报价
 * 单.pdf】"): a note a client put in the turn, not something the user
 * said, so nothing the model alone keeps. */
static int annotation(const char *s, size_t n)
{
    while (n && is_space((unsigned char)*s)) s++, n--;
    while (n && is_space((unsigned char)s[n - 1])) n--;
    static const char *const open[] = {"[", "\xe3\x80\x90" /* 【 */, NULL};
    static const char *const close[] = {"]", "\xe3\x80\x91" /* 】 */, NULL};
    for (int k = 0; open[k]; k++) {
        size_t lo = strlen(open[k]), lc = strlen(close[k]);
        if (n < lo + lc || memcmp(s, open[k], lo) != 0 || memcmp(s + n - lc, close[k], lc) != 0)
            continue;
        /* one pair: "[a] and [b]" is not one note */
        for (size_t i = lo; i + lc <= n - lc; i++)
            if (memcmp(s + i, close[k], lc) == 0) return 0;
        return 1;
    }
    return 0;
}

void am__distill_read(const char *raw, size_t rn, const char *norm, size_t nn,
                      am__distill_turn *turn, am__distill *d)
{
    float p[AM_UND_OUTPUTS];
    if (turn && turn->text == raw && turn->len == rn) memcpy(p, turn_load(turn)->probs, sizeof p);
    else am__und_probs(raw, rn, p);
    decide(p, am__distill_reference_cue(norm, nn),
           am__distill_past_state(norm, nn) || annotation(raw, rn),
           turn, short_text(raw, rn), d);
    finish(norm, nn, d);
}

static void decide(const float *p, int ref_cue, int past, am__distill_turn *turn, int short_,
                   am__distill *d)
{
    float bp;
    const float *a = p + am__und_heads[AM_UND_ACT].offset;
    d->keep_p = keep_prob(p);
    d->end_p = p[am__und_heads[AM_UND_ACT].offset + act_of("invalidation")];
    d->oneoff_p = p[am__und_heads[AM_UND_ACT].offset + act_of("oneoff")];
    int t = best_of(p, AM_UND_TOPIC, &bp);
    d->topic = am__und_heads[AM_UND_TOPIC].labels[t];
    int w = best_of(p, AM_UND_WHOSE, &bp);
    d->whose = w > 0 && bp >= WHOSE_MIN ? am__und_heads[AM_UND_WHOSE].labels[w] : NULL;
    float kp;
    const char *kind = am__und_heads[AM_UND_KIND].labels[best_of(p, AM_UND_KIND, &kp)];
    float ap;
    int act = best_of(p, AM_UND_ACT, &ap);
    const char *act_name = am__und_heads[AM_UND_ACT].labels[act];
    if (d->ref) {
        d->source = "rules";
        return;
    }
    if (d->action == AM__D_PERSIST && ap >= (d->old_value[0] ? 0.8f : ACT_MIN)) {
        /* a rule read a reference with its own words ("这样看着清楚 以后都
         * 这么弄"), or a withdrawal, as a statement: they point elsewhere */
        if (ref_cue && (strcmp(act_name, "ref_promote") == 0 || strcmp(act_name, "ref_withdraw") == 0)) {
            d->action = AM__D_NONE;
            d->ref = strcmp(act_name, "ref_promote") == 0 ? AM__REF_PROMOTE : AM__REF_RETRACT;
            d->source = "model";
            return;
        }
        if (strcmp(act_name, "invalidation") == 0) {
            d->action = AM__D_INVALIDATE;
            d->rule = "model_invalidation";
            d->source = "model";
            return;
        }
    }
    if (d->action != AM__D_NONE) {
        d->source = "rules";
        /* the forms without a cue word are the rules' guesses: the model
         * may overrule them; an explicit cue ("以后", "from now on",
         * "remember") stands */
        int guess = d->rule && (strncmp(d->rule, "lasting_", 8) == 0 ||
                                strcmp(d->rule, "profile_fact") == 0);
        if (d->action == AM__D_PERSIST && guess && d->keep_p < VETO_KEEP &&
            turn_keep(turn) < VETO_KEEP) {
            d->action = AM__D_NONE;
            d->guard = "model";
            d->source = "model";
            return;
        }
        static const char *const veto[] = {"question", "smalltalk", "hypothetical", "reported",
                                           "complaint", NULL};
        for (int i = 0; d->action == AM__D_PERSIST && veto[i]; i++)
            if (strcmp(act_name, veto[i]) == 0 && ap >= VETO) {
                d->action = AM__D_NONE;
                d->guard = "model";
                d->source = "model";
                return;
            }
        /* the kind: the model's for the rules' guesses; an explicit cue's
         * stands, but a fact that limits what the user can do (an
         * allergy, a religious diet) is a constraint */
        if (d->action == AM__D_PERSIST && kp >= KIND_MIN &&
            (guess || (strcmp(item_kind(kind), "constraint") == 0 && strcmp(d->kind, "profile") == 0)))
            d->kind = item_kind(kind);
        return;
    }
    if (d->guard || past) return;
    float keep = short_ ? SHORT_KEEP : KEEP;
    float tk;
    if (d->keep_p >= keep && ((tk = turn_keep(turn)) < 0 || tk >= KEEP_TURN)) {
        d->action = AM__D_PERSIST;
        d->source = "model";
        int corr = a[act_of("correction")] > a[act_of("lasting")];
        d->rule = corr ? "model_correction" : "model_lasting";
        d->kind = item_kind(kind);
        d->confidence = 0.8;
        d->restated = corr;
        return;
    }
    if (ap < ACT_MIN) return;
    if (strcmp(act_name, "invalidation") == 0) {
        d->action = AM__D_INVALIDATE;
        d->rule = "model_invalidation";
        d->source = "model";
    } else if (strcmp(act_name, "ref_promote") == 0) {
        d->ref = AM__REF_PROMOTE;
        d->source = "model";
    } else if (strcmp(act_name, "ref_withdraw") == 0) {
        d->ref = AM__REF_RETRACT;
        d->source = "model";
    }
}

/* ------------------------------------------------------------ clauses */

static int is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* a clause boundary at s[i]: its length (0: none).  Clause punctuation,
 * and a coordinating word between two clauses. */
static size_t boundary(const char *s, size_t n, size_t i)
{
    static const char *const marks[] = {",", ";", "\xef\xbc\x8c" /* ， */, "\xef\xbc\x9b" /* ； */,
                                        "\xe3\x80\x82" /* 。 */, NULL};
    static const char *const words[] = {" and ", " but ", " also ", " plus ", " while ",
                                        "\xe8\x80\x8c\xe4\xb8\x94" /* 而且 */,
                                        "\xe5\xb9\xb6\xe4\xb8\x94" /* 并且 */,
                                        "\xe4\xbd\x86\xe6\x98\xaf" /* 但是 */,
                                        "\xe4\xb8\x8d\xe8\xbf\x87" /* 不过 */,
                                        "\xe5\x8f\xa6\xe5\xa4\x96" /* 另外 */, NULL};
    for (int k = 0; marks[k]; k++) {
        size_t l = strlen(marks[k]);
        if (i + l <= n && memcmp(s + i, marks[k], l) == 0) return l;
    }
    /* blanks between two Chinese characters: how many write a comma */
    if (s[i] == ' ' && i > 0 && (unsigned char)s[i - 1] >= 0x80) {
        size_t j = i;
        while (j < n && s[j] == ' ') j++;
        if (j < n && (unsigned char)s[j] >= 0x80) return j - i;
    }
    for (int k = 0; words[k]; k++) {
        size_t l = strlen(words[k]);
        if (i + l > n) continue;
        size_t j = 0;
        for (; j < l; j++) {
            char c = s[i + j];
            if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
            if (c != words[k][j]) break;
        }
        if (j == l) return l;
    }
    return 0;
}

/* Is s[a..b) big enough to be a clause of its own: two English words, or
 * three other characters */
static int substantial(const char *s, size_t a, size_t b)
{
    size_t words = 0, other = 0;
    int in = 0;
    for (size_t i = a; i < b;) {
        uint32_t cp;
        int l = am__utf8_decode(s + i, b - i, &cp);
        if (l <= 0) l = 1;
        if (cp < 128) {
            int wc = (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
                     cp == '\'';
            if (wc && !in) words++;
            in = wc;
        } else {
            in = 0;
            if (am__is_han(cp)) other++;
        }
        i += (size_t)l;
    }
    return words >= 2 || other >= 3 || (words >= 1 && other >= 2);
}

#define MAX_PIECES 16

/* the first word of s[0..n), lower-cased, into w (cap bytes) */
static void first_word(const char *s, size_t n, char *w, size_t cap)
{
    size_t i = 0, o = 0;
    while (i < n && is_space((unsigned char)s[i])) i++;
    while (i < n && o + 1 < cap && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                                    s[i] == '\''))
        w[o++] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i++] - 'A' + 'a' : s[i++]);
    w[o] = 0;
}

/* an English clause in the first person: "I ...", "I'm ..." */
static int subject_i(const char *s, size_t n)
{
    char w[16];
    first_word(s, n, w, sizeof w);
    return strcmp(w, "i") == 0 || strncmp(w, "i'", 2) == 0;
}

/* An English piece that starts as a noun phrase or a phrase of place or
 * time -- a determiner, a number, a preposition: "…milk and two sugars",
 * "…and the kids" -- is the first clause's object, never a clause. */
static int noun_phrase(const char *s, size_t n)
{
    static const char *const closed[] = {
        "a", "an", "the", "this", "that", "these", "those", "some", "any", "no", "every",
        "each", "all", "both", "few", "many", "much", "more", "most", "other", "another",
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "of", "in", "on", "at", "for", "with", "from", "to", "by", "about", "as", "into",
        "over", "under", "after", "before", "between", "without", "his", "her", "their",
        "its", "then", "so", "too", "sometimes", "occasionally", NULL};
    char w[16];
    first_word(s, n, w, sizeof w);
    while (n && is_space((unsigned char)*s)) s++, n--;
    if (n && *s >= '0' && *s <= '9') return 1;
    for (int i = 0; closed[i]; i++)
        if (strcmp(w, closed[i]) == 0) return 1;
    return 0;
}

/* An English piece of at most three words led by a possessive or an
 * article ("my weekly planning", "the kids"): a noun phrase, no clause. */
static int short_phrase(const char *s, size_t n)
{
    static const char *const lead[] = {"my", "our", "your", "his", "her", "their", "the",
                                       "a", "an", NULL};
    char w[16];
    first_word(s, n, w, sizeof w);
    int led = 0;
    for (int i = 0; lead[i] && !led; i++) led = strcmp(w, lead[i]) == 0;
    if (!led) return 0;
    size_t words = 0;
    int in = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)s[i];
        int wc = c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '\'';
        if (wc && !in) words++;
        in = wc;
    }
    return words <= 3;
}

/* an English clause that names its own subject (or is not English) */
static int has_subject(const char *s, size_t n)
{
    static const char *const subj[] = {"i", "i'm", "i've", "i'd", "i'll", "my", "we", "our", "you",
                                       "your", "he", "she", "they", "it", "it's", "the", "this",
                                       "that", "there", "his", "her", "their", "a", "an", NULL};
    char w[16];
    first_word(s, n, w, sizeof w);
    if (!w[0]) return 1;
    for (int i = 0; subj[i]; i++)
        if (strcmp(w, subj[i]) == 0) return 1;
    return 0;
}

/* a piece that starts with a Chinese character (after blanks) */
static int han_start(const char *s, size_t n)
{
    while (n && is_space((unsigned char)*s)) s++, n--;
    uint32_t cp;
    return n && am__utf8_decode(s, n, &cp) > 0 && am__is_han(cp);
}

/* a clause that starts with the speaker: "I …", "my …", "we …", "我…" */
static int first_person(const char *s, size_t n)
{
    static const char *const en[] = {"i", "i'm", "i've", "i'd", "i'll", "my", "we", "our", "we're",
                                     "we've", NULL};
    char w[16];
    first_word(s, n, w, sizeof w);
    for (int i = 0; en[i]; i++)
        if (strcmp(w, en[i]) == 0) return 1;
    while (n && is_space((unsigned char)*s)) s++, n--;
    return n >= 3 && memcmp(s, "\xe6\x88\x91" /* 我 */, 3) == 0;
}

size_t am__distill_clauses(const char *raw, size_t rn, int whole, size_t *from, size_t *to,
                           unsigned char *ends, size_t max)
{
    size_t pf[MAX_PIECES], pt[MAX_PIECES], np = 0, start = 0;
    int coord[MAX_PIECES]; /* the piece follows a coordinating word ("and") */
    coord[0] = 0;
    for (size_t i = 0; i < rn && np < MAX_PIECES - 1;) {
        size_t l = boundary(raw, rn, i);
        if (!l) {
            i++;
            continue;
        }
        pf[np] = start;
        pt[np] = i;
        np++;
        coord[np] = raw[i] == ' ';
        start = i + l;
        i += l;
    }
    pf[np] = start;
    pt[np] = rn;
    np++;
    /* trim, and join a piece too small to stand to the one before it (or
     * the first to the next) */
    size_t m = 0;
    for (size_t k = 0; k < np; k++) {
        while (pf[k] < pt[k] && is_space((unsigned char)raw[pf[k]])) pf[k]++;
        while (pt[k] > pf[k] && is_space((unsigned char)raw[pt[k] - 1])) pt[k]--;
        if (pf[k] == pt[k]) continue;
        if (m && !substantial(raw, pf[k], pt[k])) {
            pt[m - 1] = pt[k];
            continue;
        }
        if (m && !substantial(raw, pf[m - 1], pt[m - 1])) {
            pt[m - 1] = pt[k];
            continue;
        }
        pf[m] = pf[k];
        pt[m] = pt[k];
        coord[m] = coord[k];
        m++;
    }
    if (m < 2) return 0;
    /* a sentence a cue word makes one statement splits only into clauses
     * that each name the speaker and each last */
    int speaker = first_person(raw + pf[0], pt[0] - pf[0]);
    for (size_t k = 0; whole && k < m; k++)
        if (!first_person(raw + pf[k], pt[k] - pf[k]) &&
            !(k > 0 && speaker && han_start(raw + pf[k], pt[k] - pf[k])))
            return 0;
    size_t keep = 0, not = 0;
    int kept[MAX_PIECES];
    for (size_t k = 0; k < m; k++) {
        float p[AM_UND_OUTPUTS];
        char buf[512];
        size_t len = pt[k] - pf[k];
        if (k > 0 && short_phrase(raw + pf[k], len)) {
            kept[k] = 0; /* "…my notes and my weekly planning" */
            continue;
        }
        if (k > 0 && !has_subject(raw + pf[k], len)) {
            /* "I love pizza and hate broccoli": the second clause's
             * subject is the first's.  A piece without a subject after a
             * comma ("…, which helps me relax", "…, especially in
             * spring") is part of the sentence, not a memory of its own */
            if (!coord[k] || !subject_i(raw + pf[0], pt[0] - pf[0]) || len + 2 >= sizeof buf ||
                noun_phrase(raw + pf[k], len)) {
                kept[k] = 0;
                continue;
            }
            memcpy(buf, "I ", 2);
            memcpy(buf + 2, raw + pf[k], len);
            am__und_probs(buf, len + 2, p);
        } else if (k > 0 && speaker && han_start(raw + pf[k], len) &&
                   !first_person(raw + pf[k], len) && len + 3 < sizeof buf) {
            /* "我住南京河西，平时上班骑电动车过去": Chinese leaves the
             * subject out of the clauses after the first */
            memcpy(buf, "\xe6\x88\x91" /* 我 */, 3);
            memcpy(buf + 3, raw + pf[k], len);
            am__und_probs(buf, len + 3, p);
        } else {
            am__und_probs(raw + pf[k], len, p);
        }
        float kp = keep_prob(p), ap;
        int act = best_of(p, AM_UND_ACT, &ap);
        /* "I stopped running in the mornings, my knee's been bad": the
         * clause that ends a habit is an invalidation of its own */
        int stop = act == act_of("invalidation") && ap >= CLAUSE_END;
        kept[k] = stop ? 2 : kp >= CLAUSE_KEEP;
        keep += kept[k] != 0;
        not += !stop && kp < CLAUSE_NOT;
    }
    /* two or more lasting clauses: each its own; one among clauses that
     * clearly do not last: that one alone */
    if (whole ? keep < m : keep < 2 && !(keep == 1 && keep + not == m)) return 0;
    size_t out = 0;
    for (size_t k = 0; k < m && out < max; k++)
        if (kept[k]) {
            from[out] = pf[k];
            to[out] = pt[k];
            if (ends) ends[out] = kept[k] == 2;
            out++;
        }
    return out;
}

/* ------------------------------------------------------------ keys */

/* English function words: they name no attribute */
static int function_word(const char *w, size_t n)
{
    static const char *const fw[] = {
        "i", "im", "i'm", "me", "my", "mine", "myself", "we", "our", "us", "you", "your", "a", "an",
        "the", "to", "of", "and", "or", "in", "on", "at", "for", "with", "from", "by", "as", "is",
        "am", "are", "was", "were", "be", "been", "being", "do", "does", "did", "dont", "don't",
        "have", "has", "had", "ve", "i've", "i'd", "i'll", "it", "its", "it's", "this", "that",
        "these", "those", "so", "very", "really", "just", "also", "too", "please", "now", "always",
        "usually", "never", "not", "no", "any", "all", "some", "much", "more", "most", "than",
        "then", "there", "here", "when", "if", "but", "about", "into", "up", "out", "over", "get",
        "got", "s", "m", "d", "ll", "re", "t", "can", "will", "would", "should", "could", "let",
        "lets", "let's", "one", "ok", "okay", "yeah", "yes", "oh", "well", "actually", "btw", NULL};
    for (int i = 0; fw[i]; i++)
        if (strlen(fw[i]) == n && memcmp(fw[i], w, n) == 0) return 1;
    return 0;
}

/* Chinese function characters: pronouns, particles, copulas, adverbs of
 * degree and time */
static int function_han(uint32_t cp)
{
    static const uint32_t fh[] = {0x6211, 0x4f60, 0x4ed6, 0x5979, 0x4eec, 0x7684, 0x4e86, 0x662f,
                                  0x5f88, 0x90fd, 0x4e5f, 0x5c31, 0x5427, 0x5462, 0x554a, 0x54c8,
                                  0x55ef, 0x5440, 0x561b, 0x7740, 0x8fc7, 0x5728, 0x6709, 0x8fd9,
                                  0x90a3, 0x4e2a, 0x4e00, 0x6bd4, 0x8f83, 0x633a, 0x592a, 0x800c,
                                  0x4e14, 0x4f46, 0x8fd8, 0x5df2, 0x7ecf, 0x73b0, 0x4ece, 0x6765,
                                  0x6ca1, 0x4e0d, 0x5176, 0x5b9e, 0x5bf9, 0x5566, 0x54e6, 0};
    for (int i = 0; fh[i]; i++)
        if (fh[i] == cp) return 1;
    return 0;
}

void am__distill_readable_key(const char *norm, size_t n, const char *topic, const char *whose,
                              char out[96])
{
    size_t o = (size_t)snprintf(out, 96, "%s%s%s.", whose ? whose : "", whose ? "." : "",
                                topic ? topic : "general");
    size_t words = 0, han = 0, start = o;
    for (size_t i = 0; i < n && o < 90 && words < 3 && han < 8;) {
        uint32_t cp;
        int l = am__utf8_decode(norm + i, n - i, &cp);
        if (l <= 0) l = 1;
        if ((cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9')) {
            size_t e = i;
            while (e < n && ((norm[e] >= 'a' && norm[e] <= 'z') || (norm[e] >= '0' && norm[e] <= '9') ||
                             norm[e] == '\''))
                e++;
            if (!function_word(norm + i, e - i) && e - i <= 24 && o + (e - i) + 1 < 90) {
                if (o > start) out[o++] = '_';
                for (size_t k = i; k < e; k++)
                    if (norm[k] != '\'') out[o++] = norm[k];
                words++;
            }
            i = e;
            continue;
        }
        if (am__is_han(cp) && !function_han(cp)) {
            if (o + (size_t)l < 90) {
                memcpy(out + o, norm + i, (size_t)l);
                o += (size_t)l;
                han++;
            }
        } else if (am__is_han(cp) && o > start && han) {
            /* a function character ends a Chinese word: one '_' */
            if (out[o - 1] != '_') out[o++] = '_';
        }
        i += (size_t)l;
    }
    while (o > start && out[o - 1] == '_') o--;
    if (o == start) o += (size_t)snprintf(out + o, 96 - o, "statement");
    out[o] = 0;
}
