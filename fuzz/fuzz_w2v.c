/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_w2v.c -- the word2vec table loader (am__embed_w2v_open_idf,
 * src/embed/w2v.c) on arbitrary bytes: text and binary formats, with or
 * without a header, and an optional IDF table.
 *
 * The input is split at the first 0x1E byte (ASCII record separator): the
 * bytes before it are the vector file, the bytes after it (if any) the IDF
 * file.  Both are written to temporary files, as a user's tables are read.
 * Checks: a refusal is one of the documented codes with a non-empty,
 * NUL-terminated message (also with no room for one); an accepted table
 * has a dimension in 1..AM__W2V_MAX_DIM and an id naming the file, and
 * embeds a few texts (Chinese, English, empty, words of the table itself)
 * to vectors that are finite with norm 1 or exactly zero, the same on a
 * second call.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "embed/embed.h"

static int write_file(char *path, const uint8_t *data, size_t n)
{
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, data + off, n - off);
        if (w <= 0) {
            close(fd);
            unlink(path);
            return -1;
        }
        off += (size_t)w;
    }
    close(fd);
    return 0;
}

/* The first word of the vector file's second line (a word of the table
 * when the file has a header), at most 63 bytes. */
static void table_word(const uint8_t *d, size_t n, char *out)
{
    size_t i = 0, k = 0;
    while (i < n && d[i] != '\n') i++;
    if (i < n) i++;
    while (i < n && k < 63 && d[i] != ' ' && d[i] != '\n' && d[i] != '\0') out[k++] = (char)d[i++];
    out[k] = '\0';
}

static void check_vectors(am__embedder *e, const char *const *texts, size_t n)
{
    float *a = malloc(n * (size_t)e->dim * sizeof *a);
    float *b = malloc(n * (size_t)e->dim * sizeof *b);
    char err[128];
    if (!a || !b) goto out;
    int rc = e->embed(e, texts, n, a, err, sizeof err);
    if (rc == AM_NOMEM) goto out;
    if (rc != AM_OK) abort();
    if (e->embed(e, texts, n, b, err, sizeof err) != AM_OK) abort();
    for (size_t i = 0; i < n; i++) {
        double ss = 0;
        for (int k = 0; k < e->dim; k++) {
            float v = a[i * (size_t)e->dim + (size_t)k];
            if (!isfinite(v)) abort();
            ss += (double)v * v;
        }
        if (ss != 0 && fabs(ss - 1) > 1e-3) abort();
    }
    if (memcmp(a, b, n * (size_t)e->dim * sizeof *a) != 0) abort();
out:
    free(a);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20)) return 0;
    const uint8_t *sep = memchr(data, 0x1E, size);
    size_t nv = sep ? (size_t)(sep - data) : size;
    char vpath[] = "/tmp/am_fuzz_w2v_XXXXXX", ipath[] = "/tmp/am_fuzz_w2v_idf_XXXXXX";
    int have_idf = sep != NULL;
    if (write_file(vpath, data, nv) != 0) return 0;
    if (have_idf && write_file(ipath, sep + 1, size - nv - 1) != 0) {
        unlink(vpath);
        return 0;
    }
    am__embedder *e = NULL;
    char err[256], tiny[1];
    int rc = am__embed_w2v_open_idf(vpath, have_idf ? ipath : NULL, &e, err, sizeof err);
    if (rc != AM_OK) {
        if (e) abort();
        if (rc != AM_CORRUPT && rc != AM_IO && rc != AM_NOMEM) abort();
        if (memchr(err, '\0', sizeof err) == NULL || err[0] == '\0') abort();
        am__embedder *e2 = NULL;
        tiny[0] = 'x';
        if (am__embed_w2v_open_idf(vpath, have_idf ? ipath : NULL, &e2, tiny, 1) != rc ||
            tiny[0] != '\0' || e2)
            abort();
        if (am__embed_w2v_open_idf(vpath, have_idf ? ipath : NULL, &e2, NULL, 0) != rc || e2)
            abort();
    } else {
        if (!e || e->dim < 1 || e->dim > AM__W2V_MAX_DIM || !e->id ||
            strncmp(e->id, "w2v:", 4) != 0)
            abort();
        char word[64];
        table_word(data, nv, word);
        const char *texts[] = {"我同事个子158cm，下周去上海出差", "The quick brown fox, 2pm", "",
                               word, "工作总结工作总结"};
        check_vectors(e, texts, sizeof texts / sizeof *texts);
        am__embedder_close(e);
    }
    unlink(vpath);
    if (have_idf) unlink(ipath);
    return 0;
}
