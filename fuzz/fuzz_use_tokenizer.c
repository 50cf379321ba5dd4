/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_use_tokenizer.c -- the USE-lite SentencePiece tokenizer (and, for
 * short inputs, the whole encoder) on arbitrary bytes.
 *
 * Needs the model (scripts/fetch-model.sh): it is looked up in $AM_MODEL_DIR,
 * then models/use-lite under the working directory, then next to this source
 * file's repository (ctest runs fuzz targets from the build directory).
 * Without a model every input is a no-op.
 *
 * Checks: ids are in the vocabulary, never reserved ids 1-5, never two
 * unknowns (id 0) in a row, at least one for non-empty input; a shorter max_ids gives a prefix of a longer
 * one; embedding gives a finite unit vector.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "embed/embed.h"

static am__embedder *enc;
static int tried;

static void close_encoder(void)
{
    am__embedder_close(enc);
    enc = NULL;
}

static int model_in(const char *dir)
{
    char err[256];
    return am__embed_use_open(dir, &enc, err, sizeof err) == AM_OK;
}

static void open_encoder(void)
{
    char path[4096];
    const char *env = getenv("AM_MODEL_DIR");
    tried = 1;
    if (env && *env) {
        model_in(env);
    } else if (!model_in("models/use-lite")) {
        /* <repo>/fuzz/fuzz_use_tokenizer.c -> <repo>/models/use-lite */
        const char *slash = strrchr(__FILE__, '/');
        size_t n = slash ? (size_t)(slash - __FILE__) : 0;
        if (n && n + 32 < sizeof path) {
            snprintf(path, sizeof path, "%.*s/../models/use-lite", (int)n, __FILE__);
            model_in(path);
        }
    }
    if (enc) atexit(close_encoder);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int32_t ids[AM__USE_MAX_TOKENS], few[7];
    size_t n = 0, n_few = 0;
    char err[256];

    if (!tried) open_encoder();
    if (!enc) return 0;

    if (am__use_tokenize(enc, (const char *)data, size, ids, AM__USE_MAX_TOKENS,
                         &n, err, sizeof err) != AM_OK)
        return 0; /* only AM_NOMEM can happen */
    if (n > AM__USE_MAX_TOKENS) abort();
    for (size_t i = 0; i < n; i++) {
        if (!am__use_piece(enc, ids[i], NULL)) abort();
        if (ids[i] >= 1 && ids[i] <= 5) abort();
        if (i && ids[i] == 0 && ids[i - 1] == 0) abort();
    }
    /* non-empty text never normalises to nothing: at least one token */
    if (size && n == 0) abort();
    if (am__use_tokenize(enc, (const char *)data, size, few, 7, &n_few, err,
                         sizeof err) == AM_OK) {
        if (n_few != (n < 7 ? n : 7)) abort();
        if (n_few && memcmp(few, ids, n_few * sizeof *few) != 0) abort();
    }

    if (size <= 512) { /* whole encoder on the NUL-terminated text */
        char text[513];
        float v[AM__USE_DIM];
        const char *t = text;
        double norm = 0;
        memcpy(text, data, size);
        text[size] = '\0';
        if (enc->embed(enc, &t, 1, v, err, sizeof err) == AM_OK) {
            for (int i = 0; i < AM__USE_DIM; i++) norm += (double)v[i] * v[i];
            if (!(fabs(norm - 1.0) < 1e-3)) abort();
        }
    }
    return 0;
}
