/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reading.h -- the rules and the learned reading of a turn, combined
 * (distill/rules.h decides first; text/understand.h's model reads every
 * sentence).  The rules stay where they are exact: an explicit cue, a
 * reference cue, a guard (hypothetical, reported speech, a question).
 * The model decides where they are silent, and may stop a rule that fired
 * on a sentence it reads, with high probability, as something that must
 * not be kept (a question, small talk, a hypothetical...).  It also says
 * whose the statement is (a spouse's, a child's: kept as theirs), which
 * kind of item a lasting statement is (an allergy is a constraint), which
 * topic, and whether the sentence corrects an earlier value.
 *
 * The thresholds were chosen on the corpus's dev split (data/understand,
 * splits.tsv), never on its test split; `agentmem eval understand` shows
 * the combination's figures and each part's share.
 */
#ifndef AM_DISTILL_READING_H
#define AM_DISTILL_READING_H

#include <stddef.h>

#include "write/distill/rules.h"
#include "text/understand.h"

/* The model's reading of a whole turn, read once for its sentences. */
typedef struct am__distill_turn {
    const char *text; /* the turn (a sentence that is the whole turn reuses probs) */
    size_t len;
    int read;         /* keep and probs are set: the model reads the turn
                         only when a sentence's decision needs it */
    float keep;       /* the probability that it lasts (lasting + correction) */
    float probs[AM_UND_OUTPUTS];
} am__distill_turn;

/* The turn text[0..len) into *t (t->text = text), to be read by the
 * model when first needed. */
void am__distill_turn_read(const char *text, size_t len, am__distill_turn *t);

/* The model's reading of one sentence (raw text raw[0..rn), its NFKC +
 * case-folded form norm[0..nn)) combined with the rules' outcome *d
 * (am__distill_sentence, _follow and _reference on norm); turn: the
 * model's reading of the whole turn the sentence is part of (NULL:
 * unknown, the sentence alone).  Updates *d:
 * action, kind, key, rule, source, whose, topic, keep_p, end_p, oneoff_p, ref, restated. */
void am__distill_read(const char *raw, size_t rn, const char *norm, size_t nn,
                      am__distill_turn *turn, am__distill *d);

/* A lasting statement's clauses: when a sentence states two or more
 * lasting things ("I live in Munich and I never take calls before 10am"),
 * or one lasting thing among words that clearly are not ("嗯对了，我对虾
 * 过敏，你记一下"), the spans of raw[0..rn) to keep, each its own item.
 * Fills from[]/to[] (at most max) and returns their number; 0 when the
 * whole sentence is the statement.  whole: a cue word made the sentence
 * one statement ("from now on, …"): only clauses that each name the
 * speaker and each last are split.  ends (may be NULL): 1 for a clause
 * that ends something lasting ("I stopped running in the mornings"), an
 * invalidation rather than an item. */
size_t am__distill_clauses(const char *raw, size_t rn, int whole, size_t *from, size_t *to,
                           unsigned char *ends, size_t max);

/* A readable key for a lasting statement no attribute table knows:
 * "<topic>.<words>" from the statement's own content words
 * ("I work remotely from Lisbon" -> location.work_remotely_lisbon), with
 * "<whose>." before it for a related person's fact.  out: 96 bytes. */
void am__distill_readable_key(const char *norm, size_t n, const char *topic, const char *whose,
                              char out[96]);

#endif
