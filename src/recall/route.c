/* SPDX-License-Identifier: Apache-2.0 */
/*
 * route.c -- the router: small talk and closings (most turns)
 * need no memory; continuation cues put task state first; a turn that
 * asks for a link or a file names the kind of reference to rank first.
 *
 * Two readings of "needs no memory".  Small talk: the whole turn is a
 * concatenation of small-talk words ("你好", "thanks!", "ok 👍").  A
 * closing: a short turn, no question and no continuation, whose every
 * word is small talk, a closing formula ("就这样", "that's all", "for
 * now") or a function word (particles, pronouns, deictics, "now",
 * "today") -- or "nothing else" in Chinese, read as a pattern (没(有) +
 * 别的 / 其他 + 问题 / 事 + 了) -- with at least one that is not a
 * function word ("好的，就这样吧", "ok thanks, that's all", "bye for
 * now").  The turn is read as any sequence of such words, not only the
 * longest match at each point.  Any other word is content: a
 * closing that carries a request ("好的，把报告发我", "thanks, and send
 * Bob the invoice") still recalls.  The words are in text/lexicon/chat.c.
 *
 * Beyond the word lists, the learned reading of the turn (text/understand.h:
 * the model of am_understand) says what else needs no memory: a joke, a
 * sum, weather chat, small talk in any wording.  Wrongly skipping memory
 * costs more than an unneeded item, so a turn read as small talk (act
 * "smalltalk" at AM__SMALL_TALK_P or more) still recalls when it points at
 * the user's own things or at memory ("my", "我的", "remember"), when it
 * asks about the user ("I", "我" in a question), or when a
 * stored item shares its words (AM__SMALL_TALK_HIT similarity or more:
 * am__recall_route_check, after filter has read the items).
 */
#include <string.h>

#include "domain/task.h"
#include "recall/pipeline.h"
#include "text/domain.h"
#include "text/lexicon/lexicon.h"
#include "text/question.h"
#include "text/redact.h"

#define AM__CLOSING_WORDS 10 /* a longer turn says something */
/* chosen on the corpus's dev split (data/understand: w09, w10) and the
 * dev questions: see docs/RECALL.md */
#define AM__SMALL_TALK_P 0.5f  /* the reading's probability of small talk */
#define AM__SMALL_TALK_HIT 0.3   /* an item's similarity that keeps memory */
#define AM__SMALL_TALK_HIT_Q 0.1 /* the same for a question */

static int skip_space_punct(const char *s, size_t n, size_t i)
{
    while (i < n) {
        uint32_t cp;
        int l = am__utf8_decode(s + i, n - i, &cp);
        int punct = cp < 0x80 ? !((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') &&
                                    !(cp >= '0' && cp <= '9')
                              : (cp >= 0x3000 && cp <= 0x303F) ||
                                    (cp >= 0xFF00 && cp <= 0xFF0F) ||
                                    (cp >= 0xFF1A && cp <= 0xFF20) ||
                                    (cp >= 0x2000 && cp <= 0x206F) ||
                                    cp >= 0x1F000 || (cp >= 0x2600 && cp <= 0x27BF);
        if (!punct) break;
        i += (size_t)l;
    }
    return (int)i;
}

static int is_letter(char c)
{
    return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

/* Length of the longest entry of list at s[i..n), or 0; an entry that
 * ends in an ASCII letter must end a word there. */
static size_t lex_match(const char *s, size_t n, size_t i, const char *const *list)
{
    size_t best = 0;
    for (size_t k = 0; list[k]; k++) {
        size_t m = strlen(list[k]);
        if (m <= best || i + m > n || memcmp(s + i, list[k], m) != 0) continue;
        if (i + m < n && is_letter(s[i + m]) && is_letter(list[k][m - 1])) continue;
        best = m;
    }
    return best;
}

/* 1 when an entry of list occurs in s[0..n) (an ASCII entry as whole
 * words: not inside a longer word on either side). */
static int lex_find(const char *s, size_t n, const char *const *list)
{
    for (size_t i = 0; i < n; i++) {
        if (((unsigned char)s[i] & 0xC0) == 0x80) continue; /* inside a character */
        if (i && is_letter(s[i - 1]) && is_letter(s[i])) continue;
        if (lex_match(s, n, i, list)) return 1;
    }
    return 0;
}

static int is_chit_chat(const char *s, size_t n)
{
    size_t i = (size_t)skip_space_punct(s, n, 0);
    if (i >= n) return 1; /* only punctuation / emoji */
    int words = 0;
    while (i < n) {
        size_t best = lex_match(s, n, i, am__lex_route_chit_chat);
        if (!best) return 0;
        words++;
        i = (size_t)skip_space_punct(s, n, i + best);
    }
    return words > 0 && words <= 6;
}

/* Bytes of a contraction's tail at s[i..n) ("'s", "’re", "'m", "'ll",
 * "'d", "'ve", "n't" right after a word), or 0. */
static size_t contraction(const char *s, size_t n, size_t i)
{
    static const char *const tails[] = {"s", "re", "m", "ll", "d", "ve", NULL};
    size_t q = i < n && s[i] == '\'' ? 1 : i + 2 < n && memcmp(s + i, "\xE2\x80\x99", 3) == 0 ? 3 : 0;
    if (!q && i + 3 <= n && memcmp(s + i, "n't", 3) == 0) return 3;
    if (!q) return 0;
    for (size_t k = 0; tails[k]; k++) {
        size_t t = strlen(tails[k]);
        if (i + q + t <= n && memcmp(s + i + q, tails[k], t) == 0 &&
            (i + q + t == n || !is_letter(s[i + q + t])))
            return q + t;
    }
    return 0;
}

/* Bytes of "nothing else" said in Chinese at s[i..n): 没 or 没有, then
 * at least one of 别的 / 其他(的) / 其它, 问题 / 事(情 / 儿) and a final
 * 了 ("没有其他问题了", "没别的事", "没有了"); 0 when none.  (没有 alone
 * heads "没有收到", a complaint, or ends a question: "...了没有".) */
static size_t nothing_else(const char *s, size_t n, size_t i)
{
    static const char *const parts[3][5] = {
        {"其他的", "别的", "其他", "其它", NULL}, {"事情", "事儿", "问题", "事", NULL}, {"了", NULL}};
    size_t j = i;
    if (j + 3 > n || memcmp(s + j, "没", 3) != 0) return 0;
    j += 3;
    if (j + 3 <= n && memcmp(s + j, "有", 3) == 0) j += 3;
    size_t head = j;
    for (int p = 0; p < 3; p++)
        for (size_t k = 0; parts[p][k]; k++) {
            size_t m = strlen(parts[p][k]);
            if (j + m <= n && memcmp(s + j, parts[p][k], m) == 0) {
                j += m;
                break;
            }
        }
    return j > head ? j - i : 0;
}

/* The closing test reads the turn as a sequence of words from the lists
 * (any of the entries that match at a position, not only the longest: "that's
 * all" then "i needed" must not hide "all i needed"), shortest first: the
 * fewest words that reach each byte, with and without a small-talk word
 * or formula among them. */
#define AM__CLOSING_BYTES 320 /* a longer turn says something */
typedef struct closing_walk {
    const char *s;
    size_t n;
    unsigned char words[AM__CLOSING_BYTES + 1][2]; /* [byte][marked]: fewest words, 255 none */
} closing_walk;

/* A word of len bytes at i reaches the next word (its contraction and the
 * punctuation after it skipped). */
static void walk_to(closing_walk *w, size_t i, size_t len, int marked, int words)
{
    size_t j = i + len;
    j += contraction(w->s, w->n, j); /* "that's", "i’m": one word */
    j = (size_t)skip_space_punct(w->s, w->n, j);
    if (words < w->words[j][marked]) w->words[j][marked] = (unsigned char)words;
}

static void walk_list(closing_walk *w, size_t i, const char *const *list, int marked, int words)
{
    for (size_t k = 0; list[k]; k++) {
        size_t m = strlen(list[k]);
        if (i + m > w->n || memcmp(w->s + i, list[k], m) != 0) continue;
        if (i + m < w->n && is_letter(w->s[i + m]) && is_letter(list[k][m - 1])) continue;
        walk_to(w, i, m, marked, words);
    }
}

/* A closing or an acknowledgement that says nothing else (see the top of
 * the file). */
static int is_closing(const char *s, size_t n)
{
    if (n > AM__CLOSING_BYTES || am__text_is_question(s, n, AM__TEXT_Q_ASKS)) return 0;
    closing_walk w;
    w.s = s;
    w.n = n;
    memset(w.words, 255, sizeof w.words);
    w.words[skip_space_punct(s, n, 0)][0] = 0;
    for (size_t i = 0; i < n; i++)
        for (int m = 0; m < 2; m++) {
            int words = w.words[i][m] + 1;
            if (words > AM__CLOSING_WORDS) continue;
            walk_list(&w, i, am__lex_route_chit_chat, 1, words);
            walk_list(&w, i, am__lex_route_closings, 1, words);
            size_t none = nothing_else(s, n, i);
            if (none) walk_to(&w, i, none, 1, words);
            walk_list(&w, i, am__lex_route_function_zh, m, words);
            walk_list(&w, i, am__lex_route_function_en, m, words);
            walk_list(&w, i, am__lex_function_chars, m, words);
            size_t len = 0; /* a stopword of the search ("for", "it") */
            while (i + len < n && is_letter(s[i + len])) len++;
            if (len && (!i || !is_letter(s[i - 1])) && am__text_stopword(s + i, len))
                walk_to(&w, i, len, m, words);
        }
    return w.words[n][1] <= AM__CLOSING_WORDS;
}

void am__route(const char *norm, size_t n, am__route_decision *out)
{
    memset(out, 0, sizeof *out);
    if (is_chit_chat(norm, n)) {
        out->need_memory = 0;
        out->route = AM__ROUTE_NONE;
        out->reason = "chit_chat";
        return;
    }
    out->continuation = am__task_continuation(norm, n);
    if (!out->continuation && is_closing(norm, n)) {
        out->need_memory = 0;
        out->route = AM__ROUTE_NONE;
        out->reason = "closing";
        return;
    }
    out->need_memory = 1;
    out->route = out->continuation ? AM__ROUTE_STATE : AM__ROUTE_SEMANTIC;
    out->reason = out->continuation ? "continuation" : "default";
    /* the kind of reference the turn asks for */
    if (lex_find(norm, n, am__lex_route_link_words)) out->refs |= AM__REFS_URL;
    if (lex_find(norm, n, am__lex_route_file_words)) out->refs |= AM__REFS_FILE;
}

#define ACK_MAX_BYTES 64 /* "ok thanks, got it!", "好的好的，收到了，谢谢" */

int am__route_bare_ack(am__text *t, const char *text, am__buf *norm, int *ack)
{
    *ack = 0;
    /* an acknowledgement is a few words: a longer turn says something */
    if (!text || strlen(text) > ACK_MAX_BYTES) return AM_OK;
    am__buf_reset(norm);
    int rc = am__text_normalize(t, text, strlen(text), norm);
    if (rc) return rc;
    am__route_decision d;
    am__route(norm->p ? norm->p : "", norm->len, &d);
    *ack = !d.need_memory;
    return AM_OK;
}

const char *am__route_name(int route)
{
    switch (route) {
    case AM__ROUTE_SEMANTIC: return "semantic_first";
    case AM__ROUTE_STATE: return "state_first";
    default: return "none";
    }
}

/* ------------------------------------------------------------ the stage */

/* A bare term ("trekking", "周末", "张伟"): one word, or at most two
 * Chinese characters -- a lookup, never small talk */
static int bare_term(const char *s, size_t n)
{
    size_t words = 0, han = 0;
    int in = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        int l = am__utf8_decode(s + i, n - i, &cp);
        if (l <= 0) l = 1;
        int wc = (cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9');
        if (wc && !in) words++;
        in = wc;
        if (am__is_han(cp)) han++;
        i += (size_t)l;
    }
    return words + han <= 1 || (words == 0 && han <= 2);
}

/* A turn that needs memory by the word lists but that the reading takes
 * for small talk, without a word that points at the user's own things
 * and not a question about the user ("谢谢，我住在哪来着"). */
static int small_talk(const float *reading, const char *norm, size_t n)
{
    int k = am__und_label(AM_UND_ACT, "smalltalk");
    if (k < 0 || reading[am__und_heads[AM_UND_ACT].offset + k] < AM__SMALL_TALK_P) return 0;
    if (bare_term(norm, n)) return 0;
    if (lex_find(norm, n, am__lex_route_user_refs)) return 0;
    return !(am__text_is_question(norm, n, AM__TEXT_Q_ASKS) &&
             lex_find(norm, n, am__lex_route_first_person));
}

/* A turn that names a phone number, an e-mail address, an ID or a card
 * number looks something up: never small talk */
static int names_pii(am__recall_state *st, const char *text)
{
    am__redact_result red;
    if (am__redact(st->env->alloc, text, st->qn, &st->env->redact, &red)) return 1;
    int found = red.n > 0;
    am__redact_result_free(st->env->alloc, &red);
    return found;
}

/* route: the turn normalised, its language (the block's labels: Chinese
 * for Chinese and mixed turns), whether it needs memory, and the caller's
 * domain against the text (on disagreement, global recall -- every
 * domain's items are candidates; api/read.c logs it). */
int am__recall_route(am__recall_state *st)
{
    const am__recall_env *env = st->env;
    const char *text = st->q->text;
    int lang = am__text_lang(text, st->qn);
    st->vector_ok = lang == AM_LANG_EN || lang == AM_LANG_NONE || env->embed_zh;
    st->lang = lang == AM_LANG_ZH || lang == AM_LANG_MIXED ? AM_LANG_ZH : AM_LANG_EN;
    am__buf norm;
    am__buf_init(&norm, env->alloc);
    int rc = am__text_normalize(env->text, text, st->qn, &norm);
    if (rc) {
        am__buf_free(&norm);
        return rc;
    }
    am__route(norm.p ? norm.p : "", norm.len, &st->rd);
    am__und_probs(text, st->qn, st->reading);
    if (st->rd.need_memory && !st->rd.continuation && !st->rd.refs &&
        small_talk(st->reading, norm.p ? norm.p : "", norm.len) && !names_pii(st, text)) {
        st->small_talk = 1;
        st->rd.need_memory = 0;
        st->rd.route = AM__ROUTE_NONE;
        st->rd.reason = "small_talk";
    }
    st->domain_conflict = am__domain_conflict(st->q->domain, norm.p ? norm.p : "", norm.len);
    st->qnorm_len = norm.len;
    st->qnorm = am__arena_strndup(st->ar, norm.p ? norm.p : "", norm.len);
    am__buf_free(&norm);
    return st->qnorm ? AM_OK : AM_NOMEM;
}

/* After filter, for a turn read as small talk: a current item that shares
 * its words (similarity AM__SMALL_TALK_HIT or more: "tell me a joke" when
 * the user said which jokes they like; less for a question:
 * "谢谢，周报还差哪部分") brings memory back. */
int am__recall_route_check(am__recall_state *st)
{
    const am__recall_env *env = st->env;
    if (!st->n_all_items) return AM_OK;
    int rc = am__text_token_set(env->text, st->q->text, st->qn, st->qset, AM__MAX_QSET, &st->nq);
    if (rc || !st->nq) return rc;
    am__scored_item *scored = am__arena_alloc(st->ar, st->n_all_items * sizeof *scored);
    if (!scored) return AM_NOMEM;
    if ((rc = am__rank_items(env->text, env->tokcache, env->rank, st->at, st->qset, st->nq,
                             st->all_items, st->n_all_items, scored)))
        return rc;
    /* a question that shares a word with an item asks about it */
    double hit = am__text_is_question(st->qnorm, st->qnorm_len, AM__TEXT_Q_ASKS)
                     ? AM__SMALL_TALK_HIT_Q
                     : AM__SMALL_TALK_HIT;
    for (size_t i = 0; i < st->n_all_items; i++) {
        if (scored[i].similarity >= hit) {
            st->small_talk = 0;
            st->rd.need_memory = 1;
            st->rd.route = AM__ROUTE_SEMANTIC;
            st->rd.reason = "default";
            break;
        }
    }
    return AM_OK;
}

/* After search, for a turn still read as small talk: an event among the
 * first candidates that holds two thirds of the turn's words ("张伟": a name the
 * user wrote about) brings memory back. */
int am__recall_route_events(am__recall_state *st)
{
    const am__recall_env *env = st->env;
    int rc;
    if (!st->nq &&
        (rc = am__text_token_set(env->text, st->q->text, st->qn, st->qset, AM__MAX_QSET, &st->nq)))
        return rc;
    if (!st->nq) return AM_OK;
    for (size_t i = 0; i < st->n_events && i < 5; i++) {
        uint64_t set[AM__MAX_QSET];
        size_t ns;
        const char *c = st->events[i].content ? st->events[i].content : "";
        if ((rc = am__text_token_set(env->text, c, strlen(c), set, AM__MAX_QSET, &ns))) return rc;
        size_t k = am__set_overlap(st->qset, st->nq, set, ns);
        if (k && 3 * k >= 2 * st->nq) {
            st->small_talk = 0;
            st->rd.need_memory = 1;
            st->rd.route = AM__ROUTE_SEMANTIC;
            st->rd.reason = "default";
            return AM_OK;
        }
    }
    return AM_OK;
}
