/* SPDX-License-Identifier: Apache-2.0 */
/*
 * understand.c -- the learned reading of a turn (am_understand): the
 * model's weights, made from data/understand by tools/understand/train.c
 * when the library is built (deterministic: the same corpus gives the same
 * bytes), are part of the library's read-only data (.incbin of the file
 * CMake names in AM_UNDERSTAND_MODEL); a text's features (understand_feat.c)
 * add up their weight rows, and each head is a softmax over its labels.
 * No allocation, no state: a few microseconds a text.
 */
#include <math.h>
#include <string.h>

#include "agentmem.h"
#include "understand.h"

#ifndef AM_UNDERSTAND_MODEL
#error "AM_UNDERSTAND_MODEL: the path of the model the trainer made (CMakeLists.txt)"
#endif
#define AM_STR2(x) #x
#define AM_STR(x) AM_STR2(x)
__asm__(".section .rodata\n"
        ".balign 16\n"
        ".hidden am__und_blob\n"
        ".global am__und_blob\n"
        "am__und_blob:\n"
        ".incbin \"" AM_STR(AM_UNDERSTAND_MODEL) "\"\n"
        ".hidden am__und_blob_end\n"
        ".global am__und_blob_end\n"
        "am__und_blob_end:\n"
        ".previous\n");
extern const unsigned char am__und_blob[], am__und_blob_end[];

#define HEAD_BYTES (4 + 4 + 4 + 8 * AM_UND_OUTPUTS)

/* The blob's parts, or 0 when it is not the model this code reads */
static int model(const float **scale, const float **bias, const signed char **w)
{
    size_t size = (size_t)(am__und_blob_end - am__und_blob);
    uint32_t buckets, outputs;
    if (size < HEAD_BYTES || memcmp(am__und_blob, "AMU1", 4) != 0) return 0;
    memcpy(&buckets, am__und_blob + 4, 4);
    memcpy(&outputs, am__und_blob + 8, 4);
    if (buckets != AM_UND_BUCKETS || outputs != AM_UND_OUTPUTS ||
        size != HEAD_BYTES + (size_t)buckets * outputs)
        return 0;
    *scale = (const float *)(const void *)(am__und_blob + 12);
    *bias = *scale + AM_UND_OUTPUTS;
    *w = (const signed char *)(am__und_blob + HEAD_BYTES);
    return 1;
}

void am__und_scores(const uint32_t *feats, size_t n, float *scores)
{
    const float *scale, *bias;
    const signed char *w;
    if (!model(&scale, &bias, &w) || n == 0) {
        for (int c = 0; c < AM_UND_OUTPUTS; c++) scores[c] = 0;
        return;
    }
    int32_t acc[AM_UND_OUTPUTS] = {0};
    for (size_t i = 0; i < n; i++) {
        const signed char *row = w + (size_t)feats[i] * AM_UND_OUTPUTS;
        for (int c = 0; c < AM_UND_OUTPUTS; c++) acc[c] += row[c];
    }
    float x = 1.0f / sqrtf((float)n);
    for (int c = 0; c < AM_UND_OUTPUTS; c++) scores[c] = bias[c] + scale[c] * (float)acc[c] * x;
}

/* The likeliest label of head h and its probability */
static const char *best(const float *scores, int h, float *p)
{
    const am__und_head *hd = &am__und_heads[h];
    const float *s = scores + hd->offset;
    int k = 0;
    for (int i = 1; i < hd->n; i++)
        if (s[i] > s[k]) k = i;
    double sum = 0;
    for (int i = 0; i < hd->n; i++) sum += exp((double)(s[i] - s[k]));
    *p = (float)(1.0 / sum);
    return hd->labels[k];
}

void am__und_probs(const char *text, size_t len, float probs[AM_UND_OUTPUTS])
{
    uint32_t feats[AM_UND_MAXF];
    size_t n = am__und_features(text, len, feats, AM_UND_MAXF);
    am__und_scores(feats, n, probs);
    for (int h = 0; h < AM_UND_HEADS; h++) {
        float *s = probs + am__und_heads[h].offset;
        int m = am__und_heads[h].n;
        float top = s[0];
        for (int i = 1; i < m; i++)
            if (s[i] > top) top = s[i];
        double sum = 0;
        for (int i = 0; i < m; i++) sum += exp((double)(s[i] - top));
        for (int i = 0; i < m; i++) s[i] = (float)(exp((double)(s[i] - top)) / sum);
    }
}

int am_understand(const char *text, am_understanding *out)
{
    if (!text || !out) return AM_MISUSE;
    uint32_t feats[AM_UND_MAXF];
    float scores[AM_UND_OUTPUTS];
    size_t n = am__und_features(text, strlen(text), feats, AM_UND_MAXF);
    am__und_scores(feats, n, scores);
    memset(out, 0, sizeof *out);
    out->act = best(scores, AM_UND_ACT, &out->act_p);
    out->task_act = best(scores, AM_UND_TASK, &out->task_act_p);
    out->whose = best(scores, AM_UND_WHOSE, &out->whose_p);
    out->topic = best(scores, AM_UND_TOPIC, &out->topic_p);
    out->kind = best(scores, AM_UND_KIND, &out->kind_p);
    return AM_OK;
}
