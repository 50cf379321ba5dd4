/*
 * route.c -- the router (F14): chit-chat (most turns) needs no memory;
 * continuation cues put task state first.
 */
#include <string.h>

#include "perceive/task.h"
#include "recall/pipeline.h"
#include "text/lexicon/lexicon.h"

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

static int is_chit_chat(const char *s, size_t n)
{
    size_t i = (size_t)skip_space_punct(s, n, 0);
    if (i >= n) return 1; /* only punctuation / emoji */
    int words = 0;
    while (i < n) {
        size_t best = 0;
        for (size_t k = 0; am__lex_route_chit_chat[k]; k++) {
            size_t m = strlen(am__lex_route_chit_chat[k]);
            if (m > best && i + m <= n && memcmp(s + i, am__lex_route_chit_chat[k], m) == 0) {
                /* an ASCII word must end at a word boundary */
                if (m < n - i && ((s[i + m] | 0x20) >= 'a' && (s[i + m] | 0x20) <= 'z') &&
                    (am__lex_route_chit_chat[k][m - 1] | 0x20) >= 'a' &&
                    (am__lex_route_chit_chat[k][m - 1] | 0x20) <= 'z')
                    continue;
                best = m;
            }
        }
        if (!best) return 0;
        words++;
        i = (size_t)skip_space_punct(s, n, i + best);
    }
    return words > 0 && words <= 6;
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
    out->need_memory = 1;
    out->continuation = am__task_continuation(norm, n);
    out->route = out->continuation ? AM__ROUTE_STATE : AM__ROUTE_SEMANTIC;
    out->reason = out->continuation ? "continuation" : "default";
}

const char *am__route_name(int route)
{
    switch (route) {
    case AM__ROUTE_SEMANTIC: return "semantic_first";
    case AM__ROUTE_STATE: return "state_first";
    default: return "none";
    }
}

const char *am__domain_infer(const char *norm, size_t n)
{
    const char *found = NULL;
    for (size_t i = 0; i < sizeof am__lex_route_domains / sizeof *am__lex_route_domains; i++)
        if (am__cue_any(norm, n, am__lex_route_domains[i].cues)) {
            if (found) return NULL; /* two domains: no clear signal */
            found = am__lex_route_domains[i].domain;
        }
    return found;
}

int am__domain_conflict(const char *given, const char *norm, size_t n)
{
    if (!given) return 0;
    const char *inferred = am__domain_infer(norm, n);
    if (!inferred) return 0;
    /* only domains we know can disagree */
    for (size_t i = 0; i < sizeof am__lex_route_domains / sizeof *am__lex_route_domains; i++)
        if (strcmp(given, am__lex_route_domains[i].domain) == 0)
            return strcmp(given, inferred) != 0;
    return 0;
}

/* ------------------------------------------------------------ the stage */

/* route: the turn normalised, its language (the block's labels: Chinese
 * for Chinese and mixed turns), whether it needs memory, and the caller's
 * domain against the text (F7: on disagreement, global recall -- every
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
    st->domain_conflict = am__domain_conflict(st->q->domain, norm.p ? norm.p : "", norm.len);
    st->qnorm_len = norm.len;
    st->qnorm = am__arena_strndup(st->ar, norm.p ? norm.p : "", norm.len);
    am__buf_free(&norm);
    return st->qnorm ? AM_OK : AM_NOMEM;
}
