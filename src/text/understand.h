/* SPDX-License-Identifier: Apache-2.0 */
/*
 * understand.h -- the learned reading of a turn: hashed features of a text
 * (understand_feat.c: shared by the library and the trainer,
 * tools/understand/train.c) and a linear model over them (understand.c,
 * its weights built from data/understand by the trainer at build time).
 * The labels are those of data/understand/LABELS.md; am_understand in
 * agentmem.h is the public face.
 */
#ifndef AM_TEXT_UNDERSTAND_H
#define AM_TEXT_UNDERSTAND_H
#include <stddef.h>
#include <stdint.h>

#define AM_UND_BUCKETS (1u << 16) /* hashed feature space */
#define AM_UND_MAXF 1024          /* features of one text, at most */

/* The heads: each a softmax over its labels, at its offset in the outputs */
enum { AM_UND_ACT, AM_UND_TASK, AM_UND_WHOSE, AM_UND_TOPIC, AM_UND_KIND, AM_UND_HEADS };
typedef struct am__und_head {
    const char *name;
    const char *const *labels;
    int n, offset;
} am__und_head;
extern const am__und_head am__und_heads[AM_UND_HEADS];
#define AM_UND_OUTPUTS 65 /* the heads' labels in all */

/* The features of text[0..len) (UTF-8; bad bytes read as U+FFFD) into
 * feats (at most max; duplicates kept): their number. */
size_t am__und_features(const char *text, size_t len, uint32_t *feats, size_t max);
/* The index of label in head h, or -1 */
int am__und_label(int h, const char *label);

/* The model: the weights' blob as the trainer writes it
 *   "AMU1", uint32 buckets, uint32 outputs, float scale[outputs],
 *   float bias[outputs], int8 w[buckets][outputs]  (little-endian)
 * scores[AM_UND_OUTPUTS] of feats (the library's own model: understand.c) */
void am__und_scores(const uint32_t *feats, size_t n, float *scores);

/* Every head's probabilities (softmax over its labels, at its offset) of
 * text[0..len): the model's reading of a slice, no NUL needed. */
void am__und_probs(const char *text, size_t len, float probs[AM_UND_OUTPUTS]);
#endif
