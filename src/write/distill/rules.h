/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rules.h -- distillation without an LLM: classify one
 * sentence of a user's event as a long-term statement (preference,
 * constraint, profile), a one-off instruction (task state only), an
 * invalidation of an earlier statement, or nothing.
 *
 * The rules are data: tables of cue patterns per outcome
 * (text/lexicon/distill_cues.c, in the pattern language of text/cue.h:
 * whole English words, "A…B" pairs within a clause, clause anchors,
 * context lists), plus guard tables for hard negatives (hypotheticals,
 * reported speech, someone else as the subject; questions are
 * text/question.h's).  A fixed procedure combines them: one-off (scoped to
 * this piece of work, no long-term marker, no status change), then
 * invalidation (a withdrawal with a target), then persist (a long-term
 * marker, a comparative or habit, "remember", or a lasting profile fact).
 * Matching is on NFKC + case-folded text.  The logical key of a statement
 * comes from a topic table and an attribute table ("周报" + "三段" ->
 * report.structure); a statement with no known attribute gets a key of its
 * own so unrelated statements never supersede each other.
 *
 * Measured on tests/corpus/distill.tsv by tests/unit/test_corpus.c, which
 * prints precision and recall per class and language and holds the floors.
 * Deterministic and allocation-free; about 20 microseconds a sentence.
 */
#ifndef AM_DISTILL_RULES_H
#define AM_DISTILL_RULES_H

#include "text/analyze.h"

#define AM__D_NONE 0
#define AM__D_PERSIST 1    /* a long-term semantic item */
#define AM__D_ONE_OFF 2    /* applies to the current task only */
#define AM__D_INVALIDATE 3 /* closes a matching item */

typedef struct am__distill {
    int action;
    const char *kind;    /* preference | constraint | profile (PERSIST) */
    char key[96];        /* logical key (PERSIST) */
    double confidence;   /* initial confidence (PERSIST) */
    const char *rule;    /* name of the rule that fired, for logs */
    const char *guard;   /* name of the guard that stopped a rule, or NULL */
    int ref;             /* AM__REF_*: the sentence only refers to what was
                            just said (set by the write path) */
    int restated;        /* PERSIST: a change of the value (distill/restate.h):
                            it supersedes the old one at any confidence */
    char old_value[64];  /* PERSIST: the old value it names negatively, "" */
    /* the learned reading (distill/reading.h; NULL/0 before it ran) */
    const char *source;  /* who decided the action: "rules" or "model" */
    const char *whose;   /* a related person's statement ("spouse", "child"
                            ...), NULL for the user's own */
    const char *topic;   /* the model's topic of the sentence */
    float keep_p;        /* the model's probability that it lasts */
    float end_p;         /* ... that it ends something lasting (an invalidation) */
    float oneoff_p;      /* ... that it asks something for this request only */
} am__distill;

/* Classify one sentence.  `norm` is its NFKC + case-folded form. */
void am__distill_sentence(const char *norm, size_t n, am__distill *out);

/* A sentence following a long-term statement in the same event ("From now
 * on ... three sections. Put conclusions first.") continues it when it
 * names a known attribute and no rule or guard fired on it.  Updates *out. */
void am__distill_follow(const char *norm, size_t n, const am__distill *prev,
                        am__distill *out);

/* A sentence whose content is only a reference to what was just said:
 * a cue of text/lexicon/distill_cues.c (am__lex_distill_ref_*) and
 * nothing else but punctuation and fillers ("好的，以后都这样吧", "ok,
 * no need to do that anymore").  AM__REF_PROMOTE: the preceding one-off
 * becomes lasting; AM__REF_RETRACT: the rule stated last is withdrawn;
 * AM__REF_REMEMBER: the preceding turn is kept.  What they point at is
 * found by the write path (api/write.c, semantic/merge.c). */
#define AM__REF_NONE 0
#define AM__REF_PROMOTE 1
#define AM__REF_RETRACT 2
#define AM__REF_REMEMBER 3
int am__distill_reference(const char *norm, size_t n);

/* The kind of reference cue the sentence holds anywhere, with words of its
 * own around it ("这样看着清楚，以后都这么弄"): AM__REF_* or AM__REF_NONE. */
int am__distill_reference_cue(const char *norm, size_t n);

/* 1 when the sentence speaks of a state of the past ("I used to live in
 * Boston", "以前在北京上班"), of today or this week ("今天的会议改到三点"),
 * or of a condition with no long-term marker ("if there are many numbers,
 * use slides"): nothing in it is a lasting statement by itself. */
int am__distill_past_state(const char *norm, size_t n);

/* The text (normalised) stated as a lasting item, whatever its wording:
 * kind, logical key and initial confidence as a long-term statement of
 * it would get; action PERSIST, rule as given. */
void am__distill_lasting(const char *norm, size_t n, const char *rule, am__distill *out);

/* an evaluation of the thing at hand in the user's own voice --
 * "这个格式太难改了，我不喜欢" (-1), "this template works well" (+1) -- or 0
 * (no evaluation, a question, a hypothetical, someone else's words, or no
 * target at hand).  Only these move a memory's confidence
 * (semantic/evaluate.c). */
int am__distill_evaluation(const char *norm, size_t n);

#endif
