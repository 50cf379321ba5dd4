/* SPDX-License-Identifier: Apache-2.0 */
/*
 * embed.c -- am_embed: the configured embedder's vectors for any text, so
 * that other tools share them (the server's /v1/embeddings).  The texts
 * are checked as the write path checks an event's text (UTF-8, size), and
 * embedded in one call of the embedder; nothing touches the store.
 */
#include <string.h>

#include "api/db_int.h"

int am_embed(am_db *db, const char *const *texts, size_t n, float **out, int *dim,
             const char **model)
{
    if (out) *out = NULL;
    if (!db || !texts || !out || !dim || n == 0) return AM_MISUSE;
    am__embedder *e = db->embedder;
    if (!e)
        return am__db_error(db, AM_MISUSE,
                            "embed: no embedder is configured (set am_config.embedder)");
    if (n > AM_EMBED_MAX)
        return am__db_error(db, AM_TOOBIG, "embed: input: %zu texts, at most %d", n, AM_EMBED_MAX);
    for (size_t i = 0; i < n; i++) {
        if (!texts[i]) return am__db_error(db, AM_INVALID, "embed: input[%zu]: missing", i);
        size_t len = strlen(texts[i]), bad;
        if (len > db->cfg.max_text_bytes)
            return am__db_error(db, AM_TOOBIG, "embed: input[%zu]: %zu bytes, at most %zu", i, len,
                                db->cfg.max_text_bytes);
        if (!am__utf8_valid(texts[i], len, &bad))
            return am__db_error(db, AM_INVALID, "embed: input[%zu]: invalid UTF-8 at byte %zu", i,
                                bad);
    }
    size_t d = (size_t)e->dim;
    float *v = am__owned_alloc(&db->alloc, n * d * sizeof *v);
    if (!v) return am__db_error(db, AM_NOMEM, "embed: out of memory");
    char err[256] = "";
    int rc = e->embed(e, texts, n, v, err, sizeof err);
    if (rc) {
        am__owned_free(v);
        return am__db_error(db, rc, "embed: embedder: %s", err[0] ? err : am_errstr(rc));
    }
    *out = v;
    *dim = e->dim;
    if (model) *model = e->id;
    return AM_OK;
}
