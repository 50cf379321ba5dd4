/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_understand.c -- am_understand (text/understand.c) and its features
 * (text/understand_feat.c) on arbitrary bytes: never a crash or a read out
 * of bounds; every feature inside the hashed space and never more than
 * the cap; every answer a label of its head with a probability in (0, 1];
 * the same bytes read the same way twice.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agentmem.h"
#include "text/understand.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint32_t feats[AM_UND_MAXF];
    size_t n = am__und_features((const char *)data, size, feats, AM_UND_MAXF);
    if (n == 0 || n > AM_UND_MAXF) abort(); /* the bias feature is always there */
    for (size_t i = 0; i < n; i++)
        if (feats[i] >= AM_UND_BUCKETS) abort();
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    am_understanding a, b;
    if (am_understand(text, &a) != AM_OK || am_understand(text, &b) != AM_OK) abort();
    const char *got[] = {a.act, a.kind, a.whose, a.task_act, a.topic};
    const float p[] = {a.act_p, a.kind_p, a.whose_p, a.task_act_p, a.topic_p};
    static const int heads[] = {AM_UND_ACT, AM_UND_KIND, AM_UND_WHOSE, AM_UND_TASK, AM_UND_TOPIC};
    for (int h = 0; h < 5; h++) {
        if (!got[h] || am__und_label(heads[h], got[h]) < 0) abort();
        if (!(p[h] > 0 && p[h] <= 1.0f)) abort();
    }
    if (strcmp(a.act, b.act) != 0 || a.act_p != b.act_p || strcmp(a.topic, b.topic) != 0) abort();
    free(text);
    return 0;
}
