/* SPDX-License-Identifier: Apache-2.0 */
/*
 * train.c -- makes the model of the learned reading of a turn
 * (src/text/understand.h) from the corpus data/understand: multinomial
 * logistic regression per head (act, task act, whose, topic, and kind on
 * the turns that keep something) over the hashed features of
 * understand_feat.c (the kind head's target: the turn's memories' kinds
 * in equal shares), by stochastic gradient descent on the train split in
 * a fixed shuffled order (a fixed seed, one thread, float arithmetic in a
 * fixed order: the same corpus gives the same bytes), then each output's
 * weights quantized to int8 with a scale.  Prints the dev split's act
 * accuracy, float and quantized, on stderr.
 *   understand-train CORPUS_DIR OUT_FILE
 * Run by the build (CMakeLists.txt); the hyperparameters below were chosen
 * on the dev split.
 */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "understand.h"

#ifndef EPOCHS
#define EPOCHS 30
#endif
#ifndef TASK_WEIGHT
#define TASK_WEIGHT 3.0f /* a turn that changes a task counts this much more */
#endif
#ifndef LR0
#define LR0 1.6f
#endif
#define SEED 0x9E3779B97F4A7C15ull

typedef struct example {
    uint32_t *feats;
    size_t n;
    int label[AM_UND_HEADS]; /* -1: none (kind of a turn that keeps nothing) */
    float kinds[5];          /* the kind head's target: its memories' kinds, shared */
    int split;               /* 0 train, 1 dev, 2 test */
} example;

static example *ex;
static size_t n_ex, cap_ex;

/* A file of the corpus named in splits.tsv: a writer "wNN" is
 * writers/wNN.jsonl, a source "sources/NAME" is sources/NAME.jsonl */
typedef struct corpus_file {
    char *name;
    int split; /* 0 train, 1 dev, 2 test */
} corpus_file;

/* Writers first, then sources, each in name order: the order the examples
 * are read in (and so the training order) does not depend on the order of
 * the lines of splits.tsv */
static int by_file(const void *a, const void *b)
{
    const corpus_file *x = a, *y = b;
    int xs = strchr(x->name, '/') != NULL, ys = strchr(y->name, '/') != NULL;
    return xs != ys ? xs - ys : strcmp(x->name, y->name);
}

/* The files splits.tsv lists into files (sorted by_file): their number, or -1 */
static int corpus_files(const char *dir, corpus_file *files, int max)
{
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s/splits.tsv", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    int n = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = 0;
        int s = strncmp(tab + 1, "train", 5) == 0 ? 0 : strncmp(tab + 1, "dev", 3) == 0 ? 1
              : strncmp(tab + 1, "test", 4) == 0 ? 2 : -1;
        if (s < 0 || n == max) {
            fprintf(stderr, "understand-train: %s: %s: %s\n", path, line, s < 0 ? "no split" : "too many files");
            bad = 1;
            break;
        }
        files[n].name = strdup(line);
        if (!files[n].name) abort();
        files[n++].split = s;
    }
    fclose(f);
    if (bad) {
        while (n > 0) free(files[--n].name);
        return -1;
    }
    qsort(files, (size_t)n, sizeof *files, by_file);
    return n;
}

static int read_file(const char *dir, const corpus_file *cf)
{
    char path[4096];
    const char *name = cf->name;
    int split = cf->split;
    snprintf(path, sizeof path, "%s/%s%s.jsonl", dir, strchr(name, '/') ? "" : "writers/", name);
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 1;
    }
    char *line = NULL;
    size_t cap = 0;
    int bad = 0;
    while (getline(&line, &cap, f) > 0 && !bad) {
        json_error_t je;
        json_t *d = json_loads(line, 0, &je);
        if (!d) {
            fprintf(stderr, "understand-train: %s: %s\n", name, je.text);
            bad = 1;
            break;
        }
        if (n_ex == cap_ex) {
            cap_ex = cap_ex ? cap_ex * 2 : 4096;
            ex = realloc(ex, cap_ex * sizeof *ex);
            if (!ex) abort();
        }
        example *e = &ex[n_ex];
        const char *text = json_string_value(json_object_get(d, "text"));
        uint32_t feats[AM_UND_MAXF];
        e->n = am__und_features(text ? text : "", text ? strlen(text) : 0, feats, AM_UND_MAXF);
        e->feats = malloc(e->n * sizeof *feats);
        if (!e->feats) abort();
        memcpy(e->feats, feats, e->n * sizeof *feats);
        e->split = split;
        static const char *const field[AM_UND_HEADS] = {"act", "task_act", "whose", "topic", NULL};
        for (int h = 0; h < AM_UND_HEADS; h++) {
            const char *v = NULL;
            if (field[h]) v = json_string_value(json_object_get(d, field[h]));
            else {
                json_t *m = json_array_get(json_object_get(d, "memories"), 0);
                v = m ? json_string_value(json_object_get(m, "kind")) : NULL;
            }
            e->label[h] = v ? am__und_label(h, v) : -1;
            if (v && e->label[h] < 0) {
                fprintf(stderr, "understand-train: %s: %s \"%s\" is not a label\n", name,
                        am__und_heads[h].name, v);
                bad = 1;
            }
        }
        json_t *mems = json_object_get(d, "memories");
        memset(e->kinds, 0, sizeof e->kinds);
        for (size_t m = 0; m < json_array_size(mems); m++) {
            int k = am__und_label(AM_UND_KIND, json_string_value(json_object_get(json_array_get(mems, m), "kind")));
            if (k >= 0 && k < 5) e->kinds[k] += 1.0f / (float)json_array_size(mems);
        }
        json_decref(d);
        n_ex++;
    }
    free(line);
    fclose(f);
    return bad;
}

static uint64_t rng = SEED;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* scores of e with float weights */
static void scores_f(const float *w, const float *bias, const example *e, float *s)
{
    float x = e->n ? 1.0f / sqrtf((float)e->n) : 0;
    for (int c = 0; c < AM_UND_OUTPUTS; c++) s[c] = 0;
    for (size_t i = 0; i < e->n; i++) {
        const float *row = w + (size_t)e->feats[i] * AM_UND_OUTPUTS;
        for (int c = 0; c < AM_UND_OUTPUTS; c++) s[c] += row[c];
    }
    for (int c = 0; c < AM_UND_OUTPUTS; c++) s[c] = bias[c] + s[c] * x;
}

static int argmax(const float *s, int h)
{
    const am__und_head *hd = &am__und_heads[h];
    int k = 0;
    for (int i = 1; i < hd->n; i++)
        if (s[hd->offset + i] > s[hd->offset + k]) k = i;
    return k;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: understand-train CORPUS_DIR OUT_FILE\n");
        return 2;
    }
    corpus_file files[1024];
    int n_files = corpus_files(argv[1], files, 1024);
    if (n_files < 0) return 1;
    int bad = 0;
    for (int i = 0; i < n_files; i++) {
        if (!bad) bad = read_file(argv[1], &files[i]);
        free(files[i].name);
    }
    if (bad) return 1;

    size_t *order = malloc(n_ex * sizeof *order), n_train = 0;
    float *w = calloc((size_t)AM_UND_BUCKETS * AM_UND_OUTPUTS, sizeof *w);
    float bias[AM_UND_OUTPUTS] = {0};
    if (!order || !w) abort();
    for (size_t i = 0; i < n_ex; i++)
        if (ex[i].split == 0) order[n_train++] = i;
    size_t steps = (size_t)EPOCHS * n_train, step = 0;
    for (int ep = 0; ep < EPOCHS; ep++) {
        for (size_t i = n_train; i > 1; i--) { /* Fisher-Yates, seeded */
            size_t j = (size_t)(next_rand() % i);
            size_t t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
        for (size_t k = 0; k < n_train; k++, step++) {
            const example *e = &ex[order[k]];
            float lr = LR0 * (1.0f - (float)step / (float)steps);
            float s[AM_UND_OUTPUTS], g[AM_UND_OUTPUTS] = {0};
            scores_f(w, bias, e, s);
            for (int h = 0; h < AM_UND_HEADS; h++) {
                const am__und_head *hd = &am__und_heads[h];
                if (e->label[h] < 0) continue;
                float m = s[hd->offset];
                for (int i = 1; i < hd->n; i++)
                    if (s[hd->offset + i] > m) m = s[hd->offset + i];
                double sum = 0;
                for (int i = 0; i < hd->n; i++) sum += exp((double)(s[hd->offset + i] - m));
                for (int i = 0; i < hd->n; i++) {
                    float p = (float)(exp((double)(s[hd->offset + i] - m)) / sum);
                    float y = h == AM_UND_KIND ? e->kinds[i] : i == e->label[h] ? 1.0f : 0.0f;
                    g[hd->offset + i] = (p - y) * (h == AM_UND_TASK && e->label[h] != 0 ? TASK_WEIGHT : 1.0f);
                }
            }
            float x = e->n ? 1.0f / sqrtf((float)e->n) : 0;
            for (size_t i = 0; i < e->n; i++) {
                float *row = w + (size_t)e->feats[i] * AM_UND_OUTPUTS;
                for (int c = 0; c < AM_UND_OUTPUTS; c++) row[c] -= lr * g[c] * x;
            }
            for (int c = 0; c < AM_UND_OUTPUTS; c++) bias[c] -= lr * 0.1f * g[c];
        }
    }
    /* int8 with a scale per output */
    float scale[AM_UND_OUTPUTS];
    for (int c = 0; c < AM_UND_OUTPUTS; c++) {
        float mx = 0;
        for (size_t f = 0; f < AM_UND_BUCKETS; f++) {
            float a = fabsf(w[f * AM_UND_OUTPUTS + (size_t)c]);
            if (a > mx) mx = a;
        }
        scale[c] = mx > 0 ? mx / 127.0f : 1.0f;
    }
    signed char *q = malloc((size_t)AM_UND_BUCKETS * AM_UND_OUTPUTS);
    float *wq = malloc((size_t)AM_UND_BUCKETS * AM_UND_OUTPUTS * sizeof *wq);
    if (!q || !wq) abort();
    for (size_t f = 0; f < AM_UND_BUCKETS; f++)
        for (int c = 0; c < AM_UND_OUTPUTS; c++) {
            size_t k = f * AM_UND_OUTPUTS + (size_t)c;
            long v = lrintf(w[k] / scale[c]);
            q[k] = (signed char)(v > 127 ? 127 : v < -127 ? -127 : v);
            wq[k] = (float)q[k] * scale[c];
        }
    /* the dev split's act accuracy, float and quantized, and what the
     * quantized model keeps (lasting or correction) against the labels */
    size_t dev = 0, ok_f = 0, ok_q = 0, tp = 0, fp = 0, fn = 0;
    int lasting = am__und_label(AM_UND_ACT, "lasting"), correction = am__und_label(AM_UND_ACT, "correction");
    for (size_t i = 0; i < n_ex; i++) {
        if (ex[i].split != 1) continue;
        float s[AM_UND_OUTPUTS];
        dev++;
        scores_f(w, bias, &ex[i], s);
        ok_f += argmax(s, AM_UND_ACT) == ex[i].label[AM_UND_ACT];
        scores_f(wq, bias, &ex[i], s);
        int got = argmax(s, AM_UND_ACT), want = ex[i].label[AM_UND_ACT];
        ok_q += got == want;
        int pk = got == lasting || got == correction, gk = want == lasting || want == correction;
        tp += pk && gk;
        fp += pk && !gk;
        fn += !pk && gk;
    }
    fprintf(stderr,
            "understand-train: %zu turns (%zu train); dev act accuracy %.3f float, %.3f int8;"
            " dev kept recall %.3f precision %.3f\n",
            n_ex, n_train, dev ? (double)ok_f / (double)dev : 0, dev ? (double)ok_q / (double)dev : 0,
            tp + fn ? (double)tp / (double)(tp + fn) : 0, tp + fp ? (double)tp / (double)(tp + fp) : 0);
    FILE *out = fopen(argv[2], "wb");
    uint32_t buckets = AM_UND_BUCKETS, outputs = AM_UND_OUTPUTS;
    if (!out || fwrite("AMU1", 1, 4, out) != 4 || fwrite(&buckets, 4, 1, out) != 1 ||
        fwrite(&outputs, 4, 1, out) != 1 || fwrite(scale, sizeof scale, 1, out) != 1 ||
        fwrite(bias, sizeof bias, 1, out) != 1 ||
        fwrite(q, 1, (size_t)AM_UND_BUCKETS * AM_UND_OUTPUTS, out) !=
            (size_t)AM_UND_BUCKETS * AM_UND_OUTPUTS ||
        fclose(out) != 0) {
        perror(argv[2]);
        return 1;
    }
    for (size_t i = 0; i < n_ex; i++) free(ex[i].feats);
    free(ex);
    free(order);
    free(w);
    free(wq);
    free(q);
    return 0;
}
