/*
 * task.h -- the perception layer's task rules (F5, F6, F20):
 * which status or stage change a plain-text event announces ("这家先不发了"
 * -> paused, "cancel the vendor review" -> cancelled), and whether a text
 * continues earlier work ("接着", "last time").  Cue tables are data in
 * task.c.  Attribution itself (which task) is decided with the store in
 * attribute.c: explicit id > a continuation cue matched against the tasks'
 * own events > the session's current task (perceive.h).
 *
 * The file also holds the cue-pattern matcher that these tables and the
 * distillation rules (distill/rules.c) are written in.  It is text
 * analysis, not task logic, and belongs beside am__cue_any in
 * text/analyze.c; it lives here until that module takes it.
 */
#ifndef AM_PERCEIVE_TASK_H
#define AM_PERCEIVE_TASK_H

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

/* 1 if the normalised text asks for information ("报告用什么格式来着？",
 * "did I say PDF?") rather than requests something ("能不能以后都用中文？",
 * "could you always cc me?"). */
int am__cue_question(const char *s, size_t n);

/* ------------------------------------------------------------ task state */

typedef struct am__task_signal {
    const char *status;   /* new status, or NULL */
    const char *stage;    /* new stage, or NULL */
    const char *rule;     /* which cue table fired, or the guard that stopped it */
} am__task_signal;

/* Detect a state change in normalised text. */
void am__task_detect(const char *norm, size_t n, am__task_signal *out);

/* 1 if the normalised text continues earlier work. */
int am__task_continuation(const char *norm, size_t n);

/* 1 for a status that counts as open (active, paused, postponed). */
int am__task_open_status(const char *status);

#endif
