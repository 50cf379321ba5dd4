/* SPDX-License-Identifier: Apache-2.0 */
/*
 * question.c -- the question detector (see question.h).  Both readings
 * scan only the end of the text and, for AM__TEXT_Q_ASKS, two cue tables
 * (text/cue.h); no allocation.
 */
#include "text/question.h"

#include <string.h>

#include "text/lexicon/lexicon.h"

size_t am__text_trim_close(const char *s, size_t n, int *mark)
{
    int q = 0;
    for (;;) {
        if (n > 0 && s[n - 1] && strchr(" .!?~;,", s[n - 1])) {
            q |= s[n - 1] == '?';
            n--;
        } else if (n >= 3 && (memcmp(s + n - 3, "。", 3) == 0 || memcmp(s + n - 3, "～", 3) == 0 ||
                              memcmp(s + n - 3, "，", 3) == 0)) {
            n -= 3;
        } else {
            break;
        }
    }
    if (mark) *mark = q;
    return n;
}

size_t am__text_final_particle(const char *s, size_t n)
{
    for (size_t i = 0; am__lex_question_particles[i]; i++) {
        size_t m = strlen(am__lex_question_particles[i]);
        if (n >= m && memcmp(s + n - m, am__lex_question_particles[i], m) == 0) return m;
    }
    return 0;
}

/* AM__TEXT_Q_ASKS: information asked for, not a request. */
static int asks(const char *s, size_t n)
{
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '.' || s[n - 1] == '!')) n--;
    if (n >= 3 && memcmp(s + n - 3, "\xE3\x80\x82", 3) == 0) n -= 3; /* 。 */
    if (am__cue_scan(s, n, am__lex_question_requests, NULL, AM__CUE_FIRST, NULL)) return 0;
    for (size_t i = 0; am__lex_question_ends[i]; i++) {
        size_t m = strlen(am__lex_question_ends[i]);
        if (n >= m && memcmp(s + n - m, am__lex_question_ends[i], m) == 0) return 1;
    }
    return am__cue_scan(s, n, am__lex_question_cues, NULL, AM__CUE_FIRST, NULL);
}

int am__text_is_question(const char *s, size_t n, int how)
{
    if (how == AM__TEXT_Q_FORM) {
        int mark;
        n = am__text_trim_close(s, n, &mark);
        return mark || am__text_final_particle(s, n) > 0;
    }
    return asks(s, n);
}
