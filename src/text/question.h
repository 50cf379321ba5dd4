/* SPDX-License-Identifier: Apache-2.0 */
/*
 * question.h -- the one question detector: is a normalised (NFKC +
 * case-folded) text a question?  The perception layer (a question changes
 * no task state; an agent's question is a pending decision), the
 * distillation guards (a question states no rule) and the weak preference
 * signals (a plain question is no request) all ask here.  The words are in
 * text/lexicon/question.c.
 *
 * Two readings, kept apart because their callers were tuned on them (the
 * distillation corpus and the rankings depend on each):
 *   AM__TEXT_Q_ASKS  asks for information: after trailing spaces, points,
 *                    '!' and one 。, a request frame ("能不能以后都用中文？",
 *                    "could you always cc me?") is no question; a final
 *                    mark or particle ("?", 吗, 呢, 么, 来着, 没有, 好不好,
 *                    行不行, 对不对), an opener at a clause start ("what",
 *                    "did i") or a question word anywhere (是不是, 什么 but
 *                    not 不管什么 ...) is one.
 *   AM__TEXT_Q_FORM  the sentence form only: a '?' among the closing
 *                    punctuation (" .!?~;," and 。～，, any order), or a
 *                    final 吗, 呢 or 么 before it.  No openers and no request
 *                    frames: "could you use PDF?" is a question here (the
 *                    caller tells polite requests apart), "what format"
 *                    without a mark is not.
 */
#ifndef AM_TEXT_QUESTION_H
#define AM_TEXT_QUESTION_H

#include <stddef.h>

#define AM__TEXT_Q_ASKS 0
#define AM__TEXT_Q_FORM 1

/* 1 if s[0..n) is a question in the reading `how` (AM__TEXT_Q_*), else 0. */
int am__text_is_question(const char *s, size_t n, int how);

/* Length of s[0..n) without its closing punctuation (" .!?~;," and 。～，);
 * *mark (when not NULL) = 1 if a '?' was among it. */
size_t am__text_trim_close(const char *s, size_t n, int *mark);

/* Bytes of a sentence-final question particle (吗, 呢, 么) at the end of
 * s[0..n), or 0. */
size_t am__text_final_particle(const char *s, size_t n);

#endif
