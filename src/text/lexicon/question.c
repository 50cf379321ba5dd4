/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexicon/question.c -- the words of a question: sentence-final marks and particles, the
 * openers that ask for information, and the request frames that look like
 * questions ("能不能…？", "could you …?").  Read by text/question.c.
 */
#include "text/lexicon/lexicon.h"

#define CUE(p) AM__CUE(p)
#define CUE_END AM__CUE(NULL)
#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Sentence-final question marks and particles (after trailing spaces and
 * points are dropped). */
const char *const am__lex_question_ends[] = {"?", "吗", "呢", "么", "来着", "没有", "好不好",
                                             "行不行", "对不对", NULL};

/* Openers and words that ask for information. */
static const char *const not_universal[] = {"不管", "无论", "不论", "没", "不", "随便", NULL};

const am__cue am__lex_question_cues[] = {
    CUE("^do i"), CUE("^did i"), CUE("^do you"), CUE("^did you"), CUE("^have you"),
    CUE("^has the"), CUE("^have i"), CUE("^what"), CUE("^which"), CUE("^how"), CUE("^why"),
    CUE("^where"), CUE("^who"), CUE("^should we"), CUE("^should i"), CUE("^is it"),
    CUE("^is there"), CUE("^are we"), CUE("^was it"), CUE("^shall we"), CUE("是不是"),
    CUE("有没有"), CUE("要不要"), CUE("是否"), CUE("来着"), CUE("你觉得"),
    CUE("你看…怎么样|如何"), {"什么", NULL, not_universal, NULL},
    {"怎么", NULL, not_universal, NULL}, {"哪", NULL, not_universal, L("怕")}, CUE("多少"),
    CUE("几点"),
    CUE_END,
};

/* Requests phrased as questions: "能不能以后都用中文？", "could you ...?". */
const am__cue am__lex_question_requests[] = {
    CUE("能不能"), CUE("可不可以"), CUE("能否"), CUE("麻烦"), CUE("可以吗$"), CUE("好吗$"),
    CUE("行吗$"), CUE("^can you"), CUE("^could you"), CUE("^would you"), CUE("^will you"),
    CUE("^please"),
    CUE_END,
};

/* The final particles of a question's form (AM__TEXT_Q_FORM): "用PDF吗". */
const char *const am__lex_question_particles[] = {"吗", "呢", "么", NULL};
