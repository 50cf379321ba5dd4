/* SPDX-License-Identifier: Apache-2.0 */
/*
 * w2v.c -- sentence vectors from static word vectors (word2vec text or
 * binary files): an IDF-weighted mean over the ICU words of the text.
 *
 * Design: open() streams the file once.  Each word is NFKC-normalised and
 * case-folded exactly like the texts will be (am__text_normalize), so
 * "Report" in the file and "REPORT" in a text meet; the first of several
 * words folding together wins (word2vec files list frequent words first).
 * Vectors are scaled to unit length as they load and kept in one array;
 * words live in one blob with an open-addressing hash table over them.
 * embed() normalises the text, walks it with an ICU word break iterator
 * (UBRK_WORD, "zh": dictionary segmentation for Han, plain words for
 * Latin) over a UTF-8 UText -- its boundaries are byte offsets -- and sums
 * idf * vector over the words it finds.  Han words missing from the table
 * fall back to greedy longest matching inside the word, because ICU's
 * dictionary and the segmenter that trained the vectors (jieba, ...)
 * disagree on compounds.  Formulas and limits: embed.h.
 *
 * Numbers are parsed in the "C" locale (uselocale, thread-local), whatever
 * the host set.  Nothing is printed; no global state.
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unicode/ubrk.h>
#include <unicode/utext.h>

#include "base/base.h"
#include "embed/embed.h"
#include "text/analyze.h"

#define MAX_WORD_BYTES 1024   /* longer words make a file corrupt */
#define MAX_FMM_CHARS 8       /* longest table word tried inside a Han word */
#define SELF_IDF_K 10.0       /* idf(r) = ln(1 + (r + 1) / K) */
#define MAX_WORDS ((size_t)1 << 31)

#define fail am__embed_fail /* embed.h: message into err, return rc */

typedef struct w2v_model {
    am__embedder base;   /* first: the vtable the engine sees */
    char *id;            /* base.id points here */
    size_t n_words, cap_words, dim;
    float *vecs;         /* [n_words * dim], unit length (or zero) */
    float *idf;          /* [n_words] */
    am__buf blob;        /* words, each followed by a NUL */
    size_t *off;         /* [n_words] word i = blob.p + off[i] */
    uint32_t *len;       /* [n_words] bytes */
    uint32_t *slots;     /* hash table: word index + 1, 0 = empty */
    size_t mask;
    am__text *text;      /* the normaliser */
    UBreakIterator *brk;
    am__buf norm;        /* scratch: normalised word or text */
    double *acc;         /* scratch: [dim] */
    am__allocator alloc; /* the handle's (am_config.realloc); every block above
                            but the normaliser's (text) */
} w2v_model;

static int w2v_embed(am__embedder *e, const char *const *texts, size_t n,
                     float *out, char *err, size_t errlen);

/* ---- the word table ------------------------------------------------------ */

static long lookup(const w2v_model *m, const char *w, size_t n)
{
    if (!m->slots) return -1;
    for (size_t s = am__hash64(w, n) & m->mask;; s = (s + 1) & m->mask) {
        uint32_t v = m->slots[s];
        if (!v) return -1;
        if (m->len[v - 1] == n && memcmp(m->blob.p + m->off[v - 1], w, n) == 0)
            return (long)(v - 1);
    }
}

static void slot_insert(uint32_t *slots, size_t mask, const w2v_model *m,
                        size_t i)
{
    size_t s = am__hash64(m->blob.p + m->off[i], m->len[i]) & mask;
    while (slots[s]) s = (s + 1) & mask;
    slots[s] = (uint32_t)(i + 1);
}

/* Makes room for one more word (arrays and a hash table at most half full). */
static int grow(w2v_model *m)
{
    if (m->n_words == m->cap_words) {
        size_t cap = m->cap_words ? m->cap_words * 2 : 1024;
        if (cap > MAX_WORDS) cap = MAX_WORDS;
        if (m->n_words >= cap) return AM_NOMEM;
        float *v = am__realloc(&m->alloc, m->vecs, cap * m->dim * sizeof *v);
        if (!v) return AM_NOMEM;
        m->vecs = v;
        size_t *o = am__realloc(&m->alloc, m->off, cap * sizeof *o);
        if (!o) return AM_NOMEM;
        m->off = o;
        uint32_t *l = am__realloc(&m->alloc, m->len, cap * sizeof *l);
        if (!l) return AM_NOMEM;
        m->len = l;
        m->cap_words = cap;
    }
    if (2 * (m->n_words + 1) > (m->slots ? m->mask + 1 : 0)) {
        size_t size = m->slots ? 2 * (m->mask + 1) : 2048;
        uint32_t *s = am__calloc(&m->alloc, size * sizeof *s);
        if (!s) return AM_NOMEM;
        for (size_t i = 0; i < m->n_words; i++) slot_insert(s, size - 1, m, i);
        am__free(&m->alloc, m->slots);
        m->slots = s;
        m->mask = size - 1;
    }
    return AM_OK;
}

/* Normalises w[0..n) into m->norm; sets *out and *out_len to the result. */
static int normalise_word(w2v_model *m, const char *w, size_t n,
                          const char **out, size_t *out_len)
{
    int plain = 1;
    for (size_t i = 0; i < n && plain; i++) {
        unsigned char c = (unsigned char)w[i];
        plain = c >= 0x21 && c < 0x7F && !(c >= 'A' && c <= 'Z');
    }
    if (plain) { /* NFKC + case fold leave lower-case ASCII alone */
        *out = w;
        *out_len = n;
        return AM_OK;
    }
    am__buf_reset(&m->norm);
    int rc = am__text_normalize(m->text, w, n, &m->norm);
    if (rc == AM_NOMEM) return rc;
    if (rc) { /* utf8proc refused it: keep the word as it is */
        *out = w;
        *out_len = n;
        return AM_OK;
    }
    *out = m->norm.p ? m->norm.p : "";
    *out_len = m->norm.len;
    return AM_OK;
}

/* Adds word w with vector v (dim floats, scaled to unit length here).  A
 * word that folds onto an earlier one is dropped. */
static int add_word(w2v_model *m, const char *w, size_t n, const float *v)
{
    const char *key;
    size_t klen;
    int rc = normalise_word(m, w, n, &key, &klen);
    if (rc) return rc;
    if (klen == 0 || klen > MAX_WORD_BYTES * 4 || lookup(m, key, klen) >= 0)
        return AM_OK;
    if ((rc = grow(m))) return rc;
    size_t i = m->n_words;
    m->off[i] = m->blob.len;
    m->len[i] = (uint32_t)klen;
    am__buf_add(&m->blob, key, klen);
    am__buf_addc(&m->blob, '\0');
    if (m->blob.oom) return AM_NOMEM;
    double ss = 0;
    for (size_t k = 0; k < m->dim; k++) ss += (double)v[k] * v[k];
    double inv = ss > 0 ? 1.0 / sqrt(ss) : 0;
    for (size_t k = 0; k < m->dim; k++)
        m->vecs[i * m->dim + k] = (float)(v[k] * inv);
    m->n_words++;
    slot_insert(m->slots, m->mask, m, i);
    return AM_OK;
}

/* ---- file parsing -------------------------------------------------------- */

typedef struct reader {
    FILE *f;
    const char *path;    /* for messages */
    const char *name;    /* basename, for messages */
    off_t size;
    char *line;          /* getline buffer (libc's: free) */
    size_t line_cap;
    size_t line_no;
    float *vals;         /* [dim] scratch */
    unsigned char *raw;  /* [4 * dim] scratch */
    const am__allocator *alloc; /* of vals and raw */
    char *err;
    size_t errlen;
} reader;

static int is_blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') return 0;
    return 1;
}

/* Reads the next line into r->line; 0 at end of file, -1 on a read error. */
static int next_line(reader *r)
{
    ssize_t got = getline(&r->line, &r->line_cap, r->f);
    if (got < 0) return ferror(r->f) ? -1 : 0;
    r->line_no++;
    return 1;
}

/* "N D": two decimal integers and nothing else. */
static int parse_header(const char *s, unsigned long long *n,
                        unsigned long long *d)
{
    char *end;
    int fields = 0;
    unsigned long long v[2] = {0, 0};
    while (fields < 3) {
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '\r' || *s == '\n' || *s == '\0') break;
        if (*s < '0' || *s > '9' || fields == 2) return 0;
        errno = 0;
        v[fields++] = strtoull(s, &end, 10);
        if (errno) return 0;
        s = end;
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n' && *s != '\0')
            return 0;
    }
    if (fields != 2) return 0;
    *n = v[0];
    *d = v[1];
    return 1;
}

/* Splits off the word at the start of line s: returns its length and sets
 * *rest just after it. */
static size_t word_at(const char *s, const char **rest)
{
    size_t n = strcspn(s, " \t\r\n");
    *rest = s + n;
    return n;
}

/* Parses exactly dim finite floats from s into vals.  Returns the number
 * parsed; *extra = 1 when more text follows. */
static size_t parse_values(const char *s, size_t dim, float *vals, int *bad,
                           int *extra)
{
    size_t k = 0;
    *bad = *extra = 0;
    for (;;) {
        char *end;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '\0' || *s == '\n' || *s == '\r') return k;
        if (k == dim) {
            *extra = 1;
            return k;
        }
        float v = strtof(s, &end);
        if (end == s || !isfinite(v) ||
            (*end != ' ' && *end != '\t' && *end != '\r' && *end != '\n' &&
             *end != '\0')) {
            *bad = 1;
            return k;
        }
        vals[k++] = v;
        s = end;
    }
}

/* Counts the values after the word of a header-less first line. */
static size_t count_fields(const char *s)
{
    size_t n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '\0' || *s == '\n' || *s == '\r') return n;
        n++;
        s += strcspn(s, " \t\r\n");
    }
}

static int alloc_scratch(w2v_model *m, reader *r)
{
    r->alloc = &m->alloc;
    r->vals = am__malloc(&m->alloc, m->dim * sizeof *r->vals);
    r->raw = am__malloc(&m->alloc, m->dim * 4);
    m->acc = am__malloc(&m->alloc, m->dim * sizeof *m->acc);
    if (!r->vals || !r->raw || !m->acc)
        return fail(r->err, r->errlen, AM_NOMEM, "w2v: out of memory");
    return AM_OK;
}

/* Parses the current line as "word v1 .. vD" and adds it. */
static int text_record(w2v_model *m, reader *r)
{
    const char *rest;
    int bad, extra;
    size_t wl = word_at(r->line, &rest);
    if (wl > MAX_WORD_BYTES)
        return fail(r->err, r->errlen, AM_CORRUPT,
                    "w2v: %s: line %zu: word longer than %d bytes", r->path,
                    r->line_no, MAX_WORD_BYTES);
    size_t k = parse_values(rest, m->dim, r->vals, &bad, &extra);
    if (bad)
        return fail(r->err, r->errlen, AM_CORRUPT,
                    "w2v: %s: line %zu: value %zu is not a finite number",
                    r->path, r->line_no, k + 1);
    if (k != m->dim || extra)
        return fail(r->err, r->errlen, AM_CORRUPT,
                    "w2v: %s: line %zu: %s%zu values, expected %zu", r->path,
                    r->line_no, extra ? "more than " : "", k, m->dim);
    int rc = add_word(m, r->line, wl, r->vals);
    if (rc) return fail(r->err, r->errlen, rc, "w2v: out of memory");
    return AM_OK;
}

/* Text format; the current line is the first record when have_line. */
static int load_text(w2v_model *m, reader *r, int have_line,
                     unsigned long long expect)
{
    unsigned long long records = 0;
    int rc, got;
    if (have_line) {
        if ((rc = text_record(m, r))) return rc;
        records++;
    }
    while ((got = next_line(r)) > 0) {
        if (is_blank(r->line)) continue;
        if ((rc = text_record(m, r))) return rc;
        records++;
    }
    if (got < 0)
        return fail(r->err, r->errlen, AM_IO, "w2v: %s: read error: %s",
                    r->path, strerror(errno));
    if (expect && records != expect)
        return fail(r->err, r->errlen, AM_CORRUPT,
                    "w2v: %s: header says %llu words, file has %llu", r->path,
                    expect, records);
    return AM_OK;
}

static float float_le(const unsigned char *b)
{
    uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                 (uint32_t)b[3] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Reads the word of a binary record into w (NUL-terminated); returns its
 * length, or -1 at end of file, -2 when longer than MAX_WORD_BYTES. */
static long binary_word(FILE *f, char *w)
{
    int c;
    long n = 0;
    do c = getc(f);
    while (c == '\n' || c == '\r' || c == ' ' || c == '\t');
    for (; c != EOF && c != ' '; c = getc(f)) {
        if (n == MAX_WORD_BYTES) return -2;
        w[n++] = (char)c;
    }
    w[n] = '\0';
    return c == EOF ? -1 : n;
}

static int load_binary(w2v_model *m, reader *r, unsigned long long expect)
{
    char word[MAX_WORD_BYTES + 1];
    int c;
    for (unsigned long long i = 0; i < expect; i++) {
        long wl = binary_word(r->f, word);
        if (wl == -2)
            return fail(r->err, r->errlen, AM_CORRUPT,
                        "w2v: %s: record %llu: word longer than %d bytes",
                        r->path, i + 1, MAX_WORD_BYTES);
        if (wl < 0 || fread(r->raw, 4, m->dim, r->f) != m->dim)
            return fail(r->err, r->errlen, ferror(r->f) ? AM_IO : AM_CORRUPT,
                        "w2v: %s: truncated at record %llu of %llu", r->path,
                        i + 1, expect);
        for (size_t k = 0; k < m->dim; k++) {
            r->vals[k] = float_le(r->raw + 4 * k);
            if (!isfinite(r->vals[k]))
                return fail(r->err, r->errlen, AM_CORRUPT,
                            "w2v: %s: record %llu: value %zu is not finite",
                            r->path, i + 1, k + 1);
        }
        int rc = add_word(m, word, (size_t)wl, r->vals);
        if (rc) return fail(r->err, r->errlen, rc, "w2v: out of memory");
    }
    while ((c = getc(r->f)) != EOF)
        if (c != '\n' && c != '\r' && c != ' ' && c != '\t')
            return fail(r->err, r->errlen, AM_CORRUPT,
                        "w2v: %s: data after the %llu records the header "
                        "announces", r->path, expect);
    return AM_OK;
}

/* After the header: 1 when the first record looks binary -- a control or
 * non-ASCII byte after its word and before the end of its first line, or
 * no digit there.  Only chooses which format is tried first (and whose
 * error is reported).  Leaves the file where it was. */
static int looks_binary(reader *r, size_t dim)
{
    char word[MAX_WORD_BYTES + 1];
    long pos = ftell(r->f);
    size_t limit = dim * 4, digits = 0;
    int binary = 0, c;
    if (pos < 0) return 0;
    if (binary_word(r->f, word) >= 0) {
        for (size_t i = 0; i < limit && (c = getc(r->f)) != EOF && c != '\n';
             i++) {
            if ((c < 0x20 && c != '\t' && c != '\r') || c >= 0x7F) {
                binary = 1;
                break;
            }
            digits += c >= '0' && c <= '9';
        }
        binary = binary || digits == 0;
    }
    clearerr(r->f);
    fseek(r->f, pos, SEEK_SET);
    return binary;
}

/* Forgets every word loaded so far (before parsing the other format). */
static void reset_table(w2v_model *m)
{
    m->n_words = 0;
    am__buf_reset(&m->blob);
    if (m->slots) memset(m->slots, 0, (m->mask + 1) * sizeof *m->slots);
}

/* Parses the records after an "N D" header: in the format the first record
 * suggests, and when that fails, in the other one (the first error is the
 * one reported when both fail). */
static int load_records(w2v_model *m, reader *r, unsigned long long n)
{
    char first_err[512] = "";
    long pos = ftell(r->f);
    size_t line_no = r->line_no;
    int binary = looks_binary(r, m->dim);
    int rc = binary ? load_binary(m, r, n) : load_text(m, r, 0, n);
    if (rc != AM_CORRUPT || pos < 0) return rc;
    if (r->err && r->errlen) snprintf(first_err, sizeof first_err, "%s", r->err);
    reset_table(m);
    clearerr(r->f);
    if (fseek(r->f, pos, SEEK_SET) != 0) return rc;
    r->line_no = line_no;
    if ((binary ? load_text(m, r, 0, n) : load_binary(m, r, n)) == AM_OK)
        return AM_OK;
    reset_table(m);
    if (r->err && r->errlen) snprintf(r->err, r->errlen, "%s", first_err);
    return rc;
}

static int load_vectors(w2v_model *m, reader *r)
{
    unsigned long long n = 0, d = 0;
    int got = next_line(r), rc;
    if (got < 0)
        return fail(r->err, r->errlen, AM_IO, "w2v: %s: read error: %s",
                    r->path, strerror(errno));
    if (got > 0 && strncmp(r->line, "\xEF\xBB\xBF", 3) == 0) /* UTF-8 BOM */
        memmove(r->line, r->line + 3, strlen(r->line + 3) + 1);
    while (got > 0 && is_blank(r->line)) got = next_line(r);
    if (got <= 0)
        return fail(r->err, r->errlen, AM_CORRUPT, "w2v: %s: no words",
                    r->path);
    if (parse_header(r->line, &n, &d)) {
        if (n == 0 || d == 0 || d > AM__W2V_MAX_DIM ||
            n > (unsigned long long)r->size)
            return fail(r->err, r->errlen, AM_CORRUPT,
                        "w2v: %s: bad header \"%llu %llu\"", r->path, n, d);
        m->dim = (size_t)d;
        if ((rc = alloc_scratch(m, r))) return rc;
        return load_records(m, r, n);
    }
    {
        const char *rest;
        word_at(r->line, &rest);
        d = count_fields(rest);
    }
    if (d == 0 || d > AM__W2V_MAX_DIM)
        return fail(r->err, r->errlen, AM_CORRUPT,
                    "w2v: %s: line 1: not a header and not \"word v1 .. vD\"",
                    r->path);
    m->dim = (size_t)d;
    if ((rc = alloc_scratch(m, r))) return rc;
    return load_text(m, r, 1, 0);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int open_reader(reader *r, const char *path, char *err, size_t errlen)
{
    struct stat st;
    memset(r, 0, sizeof *r);
    r->path = path;
    r->name = base_name(path);
    r->err = err;
    r->errlen = errlen;
    r->f = fopen(path, "rb");
    if (!r->f)
        return fail(err, errlen, AM_IO, "w2v: cannot open %s: %s", path,
                    strerror(errno));
    if (fstat(fileno(r->f), &st) != 0 || !S_ISREG(st.st_mode))
        return fail(err, errlen, AM_IO, "w2v: %s is not a regular file", path);
    r->size = st.st_size;
    return AM_OK;
}

static void close_reader(reader *r)
{
    if (r->f) fclose(r->f);
    free(r->line);
    am__free(r->alloc, r->vals);
    am__free(r->alloc, r->raw);
}

/* ---- IDF ----------------------------------------------------------------- */

static void self_idf(w2v_model *m)
{
    for (size_t i = 0; i < m->n_words; i++)
        m->idf[i] = (float)log(1.0 + (double)(i + 1) / SELF_IDF_K);
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Reads "word idf" lines: words of the table take their value, the others
 * the median of the file's values. */
static int load_idf(w2v_model *m, const char *path, char *err, size_t errlen)
{
    reader r;
    float *vals = NULL, *set = NULL;
    size_t n = 0, cap = 0;
    int rc = open_reader(&r, path, err, errlen), got;

    if (rc) goto out;
    set = am__malloc(&m->alloc, m->n_words * sizeof *set);
    if (!set) {
        rc = fail(err, errlen, AM_NOMEM, "w2v: out of memory");
        goto out;
    }
    for (size_t i = 0; i < m->n_words; i++) set[i] = NAN;
    while ((got = next_line(&r)) > 0) {
        const char *rest, *key;
        char *end;
        size_t wl, klen;
        double v;
        if (is_blank(r.line)) continue;
        wl = word_at(r.line, &rest);
        while (*rest == ' ' || *rest == '\t') rest++;
        v = strtod(rest, &end);
        if (wl == 0 || end == rest || !isfinite(v) || !is_blank(end)) {
            rc = fail(err, errlen, AM_CORRUPT,
                      "w2v: %s: line %zu: expected \"word idf\"", path,
                      r.line_no);
            goto out;
        }
        if (v < 0) v = 0;
        if (n == cap) {
            cap = cap ? 2 * cap : 1024;
            float *nv = am__realloc(&m->alloc, vals, cap * sizeof *nv);
            if (!nv) {
                rc = fail(err, errlen, AM_NOMEM, "w2v: out of memory");
                goto out;
            }
            vals = nv;
        }
        vals[n++] = (float)v;
        if ((rc = normalise_word(m, r.line, wl, &key, &klen))) {
            rc = fail(err, errlen, rc, "w2v: out of memory");
            goto out;
        }
        long i = lookup(m, key, klen);
        if (i >= 0 && isnan(set[i])) set[i] = (float)v;
    }
    if (got < 0 || n == 0) {
        rc = fail(err, errlen, got < 0 ? AM_IO : AM_CORRUPT,
                  "w2v: %s: %s", path, got < 0 ? "read error" : "no entries");
        goto out;
    }
    qsort(vals, n, sizeof *vals, cmp_float);
    for (size_t i = 0; i < m->n_words; i++)
        m->idf[i] = isnan(set[i]) ? vals[n / 2] : set[i];
out:
    close_reader(&r);
    am__free(&m->alloc, vals);
    am__free(&m->alloc, set);
    return rc;
}

/* ---- embedding ----------------------------------------------------------- */

static void add_vector(w2v_model *m, long i)
{
    const float *v = m->vecs + (size_t)i * m->dim;
    double w = m->idf[i];
    for (size_t k = 0; k < m->dim; k++) m->acc[k] += w * v[k];
}

/* Greedy longest match of table words inside the Han word w[0..n);
 * characters that start no table word are skipped. */
static void han_fallback(w2v_model *m, const char *w, size_t n)
{
    size_t p = 0;
    while (p < n) {
        size_t ends[MAX_FMM_CHARS + 1], q = p;
        int k = 0;
        long hit = -1;
        while (q < n && k < MAX_FMM_CHARS) {
            uint32_t cp;
            q += (size_t)am__utf8_decode(w + q, n - q, &cp);
            ends[++k] = q;
        }
        for (; k >= 1 && hit < 0; k--) {
            hit = lookup(m, w + p, ends[k] - p);
            if (hit >= 0) {
                add_vector(m, hit);
                p = ends[k];
            }
        }
        if (hit < 0) p = ends[1];
    }
}

static int has_han(const char *w, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        i += (size_t)am__utf8_decode(w + i, n - i, &cp);
        if (am__is_han(cp)) return 1;
    }
    return 0;
}

/* Length of the first at most max bytes of s[0..n), cut at a character. */
static size_t clip_utf8(const char *s, size_t n, size_t max)
{
    if (n <= max) return n;
    size_t k = max;
    while (k > 0 && max - k < 3 && ((unsigned char)s[k] & 0xC0) == 0x80) k--;
    return k;
}

/* Embeds one text into out (dim floats). */
static int embed_one(w2v_model *m, const char *text, float *out)
{
    UErrorCode uerr = U_ZERO_ERROR;
    UText ut = UTEXT_INITIALIZER;
    size_t n = clip_utf8(text, strlen(text), AM__W2V_MAX_TEXT);
    int rc;

    memset(m->acc, 0, m->dim * sizeof *m->acc);
    am__buf_reset(&m->norm);
    if ((rc = am__text_normalize(m->text, text, n, &m->norm))) return rc;
    n = clip_utf8(m->norm.p ? m->norm.p : "", m->norm.len, AM__W2V_MAX_TEXT);
    if (n) {
        const char *s = m->norm.p;
        utext_openUTF8(&ut, s, (int64_t)n, &uerr);
        ubrk_setUText(m->brk, &ut, &uerr);
        if (U_FAILURE(uerr)) {
            utext_close(&ut);
            return uerr == U_MEMORY_ALLOCATION_ERROR ? AM_NOMEM : AM_ERROR;
        }
        int32_t from = ubrk_first(m->brk);
        for (int32_t to = ubrk_next(m->brk); to != UBRK_DONE;
             from = to, to = ubrk_next(m->brk)) {
            if (ubrk_getRuleStatus(m->brk) < UBRK_WORD_NONE_LIMIT) continue;
            size_t a = (size_t)from, len = (size_t)(to - from);
            long i = lookup(m, s + a, len);
            if (i >= 0)
                add_vector(m, i);
            else if (has_han(s + a, len))
                han_fallback(m, s + a, len);
        }
        utext_close(&ut);
    }
    double ss = 0;
    for (size_t k = 0; k < m->dim; k++) ss += m->acc[k] * m->acc[k];
    double inv = ss > 0 ? 1.0 / sqrt(ss) : 0; /* no known word: zero vector */
    for (size_t k = 0; k < m->dim; k++) out[k] = (float)(m->acc[k] * inv);
    return AM_OK;
}

static int w2v_embed(am__embedder *e, const char *const *texts, size_t n,
                     float *out, char *err, size_t errlen)
{
    w2v_model *m = (w2v_model *)e;
    if (err && errlen) err[0] = '\0';
    if (!e || e->embed != w2v_embed || (n && (!texts || !out)))
        return fail(err, errlen, AM_MISUSE, "w2v: embed: bad arguments");
    for (size_t i = 0; i < n; i++)
        if (!texts[i])
            return fail(err, errlen, AM_MISUSE, "%s: embed: texts[%zu] is NULL",
                        e->id, i);
    for (size_t i = 0; i < n; i++) {
        int rc = embed_one(m, texts[i], out + i * m->dim);
        if (rc)
            return fail(err, errlen, rc, "%s: embed: texts[%zu]: %s", e->id, i,
                        rc == AM_NOMEM ? "out of memory"
                                       : "text analysis failed");
    }
    return AM_OK;
}

/* ---- open / close -------------------------------------------------------- */

/* Number parsing in the "C" locale for the calling thread only. */
typedef struct c_numeric {
    locale_t c, old;
} c_numeric;

static void c_numeric_enter(c_numeric *s)
{
    s->c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    s->old = s->c ? uselocale(s->c) : (locale_t)0;
}

static void c_numeric_leave(c_numeric *s)
{
    if (!s->c) return;
    uselocale(s->old);
    freelocale(s->c);
}

static void w2v_close(am__embedder *e)
{
    w2v_model *m = (w2v_model *)e;
    if (!m) return;
    if (m->brk) ubrk_close(m->brk);
    am__text_close(m->text);
    am__buf_free(&m->blob);
    am__buf_free(&m->norm);
    am__free(&m->alloc, m->id);
    am__free(&m->alloc, m->vecs);
    am__free(&m->alloc, m->idf);
    am__free(&m->alloc, m->off);
    am__free(&m->alloc, m->len);
    am__free(&m->alloc, m->slots);
    am__free(&m->alloc, m->acc);
    am__allocator alloc = m->alloc;
    am__free(&alloc, m);
}

/* Loads the vector file (numbers in the C locale) into m. */
static int load_file(w2v_model *m, const char *path, char *err, size_t errlen)
{
    reader r;
    int rc = open_reader(&r, path, err, errlen);
    if (rc == AM_OK) {
        c_numeric cn;
        c_numeric_enter(&cn);
        rc = load_vectors(m, &r);
        c_numeric_leave(&cn);
    }
    close_reader(&r);
    if (rc == AM_OK && m->n_words == 0)
        rc = fail(err, errlen, AM_CORRUPT, "w2v: %s: no words", path);
    return rc;
}

int am__embed_w2v_open_alloc(const am__allocator *a, const char *path, const char *idf_path,
                             am__embedder **out, char *err, size_t errlen)
{
    UErrorCode uerr = U_ZERO_ERROR;
    w2v_model *m;
    am__buf id;
    int rc;

    if (out) *out = NULL;
    if (err && errlen) err[0] = '\0';
    if (!path || !out)
        return fail(err, errlen, AM_MISUSE, "w2v: open: NULL argument");
    m = am__calloc(a, sizeof *m);
    if (!m) return fail(err, errlen, AM_NOMEM, "w2v: out of memory");
    if (a) m->alloc = *a;
    m->base.embed = w2v_embed;
    m->base.close = w2v_close;
    am__buf_init(&m->blob, &m->alloc);
    am__buf_init(&m->norm, &m->alloc);
    /* The normaliser keeps a memo it fills when memory allows (an
     * allocation it cannot make is not an error): it stays on libc, so
     * that every failure of the handle's allocator is one the caller sees. */
    if ((rc = am__text_open(NULL, &m->text))) {
        rc = fail(err, errlen, rc, "w2v: out of memory");
        goto out_close;
    }
    m->brk = ubrk_open(UBRK_WORD, "zh", NULL, 0, &uerr);
    if (U_FAILURE(uerr)) {
        m->brk = NULL;
        rc = fail(err, errlen, AM_ERROR, "w2v: ICU word break iterator: %s",
                  u_errorName(uerr));
        goto out_close;
    }
    if ((rc = load_file(m, path, err, errlen))) goto out_close;
    m->idf = am__malloc(&m->alloc, m->n_words * sizeof *m->idf);
    if (!m->idf) {
        rc = fail(err, errlen, AM_NOMEM, "w2v: out of memory");
        goto out_close;
    }
    if (idf_path) {
        c_numeric cn;
        c_numeric_enter(&cn);
        rc = load_idf(m, idf_path, err, errlen);
        c_numeric_leave(&cn);
        if (rc) goto out_close;
    } else {
        self_idf(m);
    }
    am__buf_init(&id, &m->alloc);
    am__buf_printf(&id, "w2v:%s:%zu", base_name(path), m->dim);
    if (idf_path) am__buf_printf(&id, ":idf=%s", base_name(idf_path));
    m->id = am__buf_take(&id);
    if (!m->id) {
        rc = fail(err, errlen, AM_NOMEM, "w2v: out of memory");
        goto out_close;
    }
    m->base.id = m->id;
    m->base.dim = (int)m->dim;
    *out = &m->base;
    return AM_OK;
out_close:
    w2v_close(&m->base);
    return rc;
}

int am__embed_w2v_open_idf(const char *path, const char *idf_path,
                           am__embedder **out, char *err, size_t errlen)
{
    return am__embed_w2v_open_alloc(NULL, path, idf_path, out, err, errlen);
}

int am__embed_w2v_open(const char *path, am__embedder **out, char *err,
                       size_t errlen)
{
    return am__embed_w2v_open_idf(path, NULL, out, err, errlen);
}
