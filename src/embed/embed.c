/* SPDX-License-Identifier: Apache-2.0 */
/*
 * embed.c -- what every embedder shares: the NULL-safe close, the error
 * helper, and the embedder a configuration names (see embed.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "embed/embed.h"

void am__embedder_close(am__embedder *e)
{
    if (e && e->close) e->close(e);
}

int am__embed_open_spec(const am__allocator *a, const char *spec, const char *key, int blas_one,
                        am__embedder **out, int *zh, char *err, size_t cap)
{
    if (!spec || strcmp(spec, "none") == 0) return AM_OK;
    char eerr[400], dir_buf[1024];
    int rc;
    /* only the built-in encoder uses BLAS (blas_one: one thread) */
    if (strcmp(spec, "auto") == 0) {
        am_model_dirs d;
        am_model_dirs_find(&d);
        if (d.found < 0) return AM_OK;
        if (blas_one) am__embed_blas_one_thread();
        rc = am__embed_use_open_alloc(a, d.dir[d.found], out, eerr, sizeof eerr);
    } else if (strcmp(spec, "use-lite") == 0 || strncmp(spec, "use-lite:", 9) == 0) {
        const char *dir = spec[8] == ':' ? spec + 9 : am__embed_use_default_dir(dir_buf, sizeof dir_buf);
        if (blas_one) am__embed_blas_one_thread();
        rc = am__embed_use_open_alloc(a, dir, out, eerr, sizeof eerr);
    } else if (strncmp(spec, "w2v:", 4) == 0) {
        rc = am__embed_w2v_open_alloc(a, spec + 4, NULL, out, eerr, sizeof eerr);
        *zh = 1;
    } else if (strncmp(spec, "openai:", 7) == 0 && strchr(spec + 7, '@')) {
        /* openai:MODEL@BASE_URL, key from $AGENTMEM_EMBEDDER_KEY via the
         * caller (embedder_key) */
        const char *at = strchr(spec + 7, '@');
        char model[128];
        snprintf(model, sizeof model, "%.*s", (int)(at - spec - 7), spec + 7);
        rc = am__embed_openai_open_alloc(a, at + 1, model, key, 0, NULL,
                                         out, eerr, sizeof eerr);
        *zh = 1;
    } else {
        snprintf(eerr, sizeof eerr,
                 "\"%.64s\" is not one of none, auto, use-lite[:DIR], w2v:PATH, openai:MODEL@URL",
                 spec);
        rc = AM_INVALID;
    }
    if (rc) snprintf(err, cap, "open: embedder: %s", eerr);
    return rc;
}
