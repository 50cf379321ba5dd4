/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cue.h -- the cue-pattern matcher: phrases of normalised text with
 * optional context, the language that the word tables of the perception
 * and distillation layers (text/lexicon/) are written in.  It is text
 * analysis, used by the task rules (domain/task.c), distill/ and the
 * question detector (text/question.h), and depends on nothing above text/.
 */
#ifndef AM_TEXT_CUE_H
#define AM_TEXT_CUE_H

#include <stddef.h>

/* ------------------------------------------------------------ cue patterns
 *
 * A cue is a phrase of normalised (NFKC + case-folded) text with optional
 * context.  The phrase syntax:
 *   - ASCII words match whole words: "never" does not match "nevertheless";
 *     a '*' stands for the rest of a word: "cancel*" matches "cancelled",
 *     "stop *ing" matches "stop sending" but not "stop the review";
 *   - '|' separates alternatives: "老板|客户…说" (a literal '|' cannot be
 *     matched);
 *   - "A…B" (U+2026 between elements): A, then B later in the same clause
 *     (clauses end at , ; : . ! ? 。 、 and newlines; a comma or point
 *     between digits does not end one);
 *   - a leading '^' anchors an element at the start of a clause, a trailing
 *     '$' at its end.
 * Context lists (NULL-terminated, or NULL for none):
 *   - before: one of these must end right before the phrase ("^" stands for
 *     the start of a clause);
 *   - not_before: none of these may end right before it;
 *   - not_after: none of these may start right after its last element.
 * Matching is byte-wise and allocation-free: a table of a few hundred cues
 * scans a sentence in microseconds. */
typedef struct am__cue {
    const char *phrase;
    const char *const *before;
    const char *const *not_before;
    const char *const *not_after;
} am__cue;

/* A cue with no context, for tables: AM__CUE("取消"); a table ends with
 * AM__CUE(NULL). */
#define AM__CUE(p) {(p), NULL, NULL, NULL}

typedef struct am__cue_hit {
    size_t at, end; /* byte span from the first element to the last */
    int index;      /* which cue of the table */
} am__cue_hit;

#define AM__CUE_FIRST 0 /* the leftmost match */
#define AM__CUE_LAST 1  /* the rightmost match */

/* Scan s[0..n) for the cues of a table ending with AM__CUE(NULL).
 * `common` (or NULL) holds context lists applied to every cue of the table
 * besides its own; its phrase is ignored.  A negation window ("不要取消",
 * "don't cancel") is a common not_before list.  Returns 1 and fills *hit
 * (when not NULL) with the leftmost or rightmost match, 0 when none does. */
int am__cue_scan(const char *s, size_t n, const am__cue *cues, const am__cue *common,
                 int which, am__cue_hit *hit);

/* 1 if position i of s[0..n) starts a clause (only spaces since the text's
 * start or the last clause punctuation). */
int am__cue_clause_start(const char *s, size_t i);

#endif
