/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_embed_json.c -- the OpenAI embeddings response parser
 * (am__openai_parse_response, src/embed/openai.c) on arbitrary bytes.
 *
 * The input is a response body.  It is parsed for several input counts:
 * 0-3 and the number of "embedding" keys in it.  Checks: learning the
 * dimension (out NULL) and then filling vectors agree; every vector is
 * finite with norm 1 (or exactly zero); a wrong expected dimension is
 * refused; error messages are NUL-terminated within any errlen, even 0/1.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "embed/embed.h"

static size_t count_embedding_keys(const char *s, size_t n)
{
    static const char key[] = "\"embedding\"";
    size_t k = 0;
    for (size_t i = 0; i + sizeof key - 1 <= n && k < 4096; i++)
        if (memcmp(s + i, key, sizeof key - 1) == 0) k++;
    return k;
}

static void check(const char *body, size_t len, int n)
{
    char err[128], tiny[1];
    int dim = 0;
    int rc = am__openai_parse_response(body, len, n, &dim, NULL, err, sizeof err);
    if (rc != AM_OK) {
        if (rc != AM_BACKEND && rc != AM_NOMEM) abort();
        if (memchr(err, '\0', sizeof err) == NULL || err[0] == '\0') abort();
        /* the same failure with no room for a message */
        int d0 = 0;
        if (am__openai_parse_response(body, len, n, &d0, NULL, NULL, 0) != rc)
            abort();
        d0 = 0;
        tiny[0] = 'x';
        if (am__openai_parse_response(body, len, n, &d0, NULL, tiny, 1) != rc ||
            tiny[0] != '\0')
            abort();
        return;
    }
    if (n == 0) {
        if (dim != 0) abort();
        return;
    }
    if (dim < 1 || dim > AM__OPENAI_MAX_DIM) abort();
    float *out = malloc((size_t)n * (size_t)dim * sizeof *out);
    if (!out) return;
    int d2 = dim;
    if (am__openai_parse_response(body, len, n, &d2, out, err, sizeof err) !=
            AM_OK ||
        d2 != dim)
        abort();
    for (int i = 0; i < n; i++) {
        double ss = 0;
        for (int k = 0; k < dim; k++) {
            float v = out[(size_t)i * (size_t)dim + (size_t)k];
            if (!isfinite(v)) abort();
            ss += (double)v * v;
        }
        if (ss != 0 && fabs(ss - 1.0) > 1e-3) abort();
    }
    /* any other expected dimension is refused */
    int wrong = dim < AM__OPENAI_MAX_DIM ? dim + 1 : dim - 1;
    if (am__openai_parse_response(body, len, n, &wrong, NULL, err, sizeof err) !=
        AM_BACKEND)
        abort();
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *body = (const char *)data;
    size_t keys = count_embedding_keys(body, size);
    for (int n = 0; n <= 3; n++) check(body, size, n);
    if (keys > 3) check(body, size, (int)keys);
    return 0;
}
