/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_embed_w2v.c -- the word2vec embedder (src/embed/w2v.c).
 *
 * Uses tests/data/w2v_small.txt (37 words x 8 dims, written by hand: one
 * axis each for "weekly / Thursday", "afternoon", "report", "work",
 * "write", "person", "weather", "function word"; frequent words first).
 * Binary, header-less, CRLF and broken copies are written to /tmp.
 * Runs with the repository root as the working directory.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "agentmem_ops.h"
#include "test.h"

#include "embed/embed.h"

#define SMALL "tests/data/w2v_small.txt"
#define DIM 8

static am__embedder *emb; /* the text table, opened in main */
static char tmp_dir[64];

static double dot(const float *a, const float *b)
{
    double s = 0;
    for (int i = 0; i < DIM; i++) s += (double)a[i] * b[i];
    return s;
}

static int embed_with(am__embedder *e, const char *text, float *out)
{
    char err[256] = "";
    int rc = e->embed(e, &text, 1, out, err, sizeof err);
    if (rc) fprintf(stderr, "embed(\"%s\"): %d %s\n", text, rc, err);
    return rc;
}

static double cosine(const char *a, const char *b)
{
    float va[DIM], vb[DIM];
    if (embed_with(emb, a, va) || embed_with(emb, b, vb)) return -2;
    return dot(va, vb);
}

static int is_zero(const float *v)
{
    for (int i = 0; i < DIM; i++)
        if (v[i] != 0) return 0;
    return 1;
}

/* A path in this test's private /tmp directory. */
static const char *tmp_path(const char *name)
{
    static char buf[8][160];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", tmp_dir, name);
    return p;
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(2);
    }
    if (n) fwrite(data, 1, n, f);
    fclose(f);
}

static void write_str(const char *path, const char *s)
{
    write_file(path, s, strlen(s));
}

/* Reads tests/data/w2v_small.txt: words and values. */
typedef struct table {
    int n;
    char words[64][64];
    float vals[64][DIM];
} table;

static void read_table(table *t)
{
    FILE *f = fopen(SMALL, "r");
    char line[512];
    int n, d;
    memset(t, 0, sizeof *t);
    if (!f || !fgets(line, sizeof line, f) || sscanf(line, "%d %d", &n, &d) != 2 ||
        d != DIM || n > 64) {
        fprintf(stderr, "cannot read %s\n", SMALL);
        exit(2);
    }
    for (t->n = 0; t->n < n && fgets(line, sizeof line, f); t->n++) {
        char *p = line, *end;
        size_t wl = strcspn(p, " ");
        memcpy(t->words[t->n], p, wl);
        p += wl;
        for (int k = 0; k < DIM; k++) {
            t->vals[t->n][k] = strtof(p, &end);
            p = end;
        }
    }
    fclose(f);
}

/* A binary word2vec copy of the table (newline after each record or not). */
static void write_binary(const char *path, int newlines)
{
    table t;
    read_table(&t);
    FILE *f = fopen(path, "wb");
    fprintf(f, "%d %d\n", t.n, DIM);
    for (int i = 0; i < t.n; i++) {
        fprintf(f, "%s ", t.words[i]);
        for (int k = 0; k < DIM; k++) {
            uint32_t u;
            unsigned char b[4];
            memcpy(&u, &t.vals[i][k], 4);
            for (int j = 0; j < 4; j++) b[j] = (unsigned char)(u >> (8 * j));
            fwrite(b, 1, 4, f);
        }
        if (newlines) fputc('\n', f);
    }
    fclose(f);
}

/* Texts whose embeddings must agree across the formats of one table. */
static const char *const probes[] = {
    "用户每周四下午写周报", "他每个星期四下午写工作总结", "今天天气很好",
    "the user writes the weekly report every thursday afternoon",
    "Weather", "每个人", "",
};
#define N_PROBES (sizeof probes / sizeof *probes)

/* 1 if e gives exactly the same vectors as emb on every probe. */
static int same_as_text_table(am__embedder *e)
{
    float a[N_PROBES * DIM], b[N_PROBES * DIM];
    char err[256];
    if (emb->embed(emb, probes, N_PROBES, a, err, sizeof err) ||
        e->embed(e, probes, N_PROBES, b, err, sizeof err))
        return 0;
    return memcmp(a, b, sizeof a) == 0;
}

/* Opens path expecting rc; the message must contain want (if non-NULL). */
static void expect_open_fails(const char *path, int want_rc, const char *want)
{
    am__embedder *e = NULL;
    char err[256] = "";
    int rc = am__embed_w2v_open(path, &e, err, sizeof err);
    CHECK_EQ_INT(rc, want_rc);
    CHECK(e == NULL);
    CHECK(err[0] != '\0');
    if (want) CHECK_CONTAINS(err, want);
    am__embedder_close(e);
}

/* ---- tests --------------------------------------------------------------- */

static void test_open_text(void)
{
    CHECK_EQ_STR(emb->id, "w2v:w2v_small.txt:8");
    CHECK_EQ_INT(emb->dim, DIM);
}

static void test_chinese_ordering(void)
{
    const char *a = "用户每周四下午写周报";
    double close = cosine(a, "他每个星期四下午写工作总结");
    double far = cosine(a, "今天天气很好");
    printf("  zh: weekly report ~ work summary %.3f, ~ weather %.3f\n", close,
           far);
    CHECK(close > far + 0.3);
    CHECK(close > 0.8);
    CHECK(far < 0.4);
    /* words: 周报 is near 工作总结, far from 天气 */
    CHECK(cosine("周报", "工作总结") > 0.95);
    CHECK(cosine("周报", "天气") < 0.1);
    CHECK(cosine("周报", "工作总结") > cosine("周报", "下午"));
}

static void test_english_ordering(void)
{
    const char *a = "The user writes the weekly report every Thursday afternoon.";
    double close = cosine(a, "He writes a work summary each thursday afternoon");
    double far = cosine(a, "the weather is nice today");
    printf("  en: weekly report ~ work summary %.3f, ~ weather %.3f\n", close,
           far);
    CHECK(close > far + 0.3);
    CHECK(close > 0.8);
    /* Chinese and English share the table's axes here */
    CHECK(cosine("周报", "report") > 0.95);
}

static void test_case_and_width_folding(void)
{
    float a[DIM], b[DIM], c[DIM];
    CHECK_EQ_INT(embed_with(emb, "thursday", a), AM_OK);
    CHECK_EQ_INT(embed_with(emb, "THURSDAY", b), AM_OK);
    CHECK_EQ_INT(embed_with(emb, "ｔｈｕｒｓｄａｙ", c), AM_OK); /* fullwidth */
    CHECK(!is_zero(a));
    CHECK(memcmp(a, b, sizeof a) == 0);
    CHECK(memcmp(a, c, sizeof a) == 0);
    /* "WEEKLY" and "He" are upper-case in the file */
    CHECK_EQ_INT(embed_with(emb, "weekly", a), AM_OK);
    CHECK(!is_zero(a));
    CHECK_EQ_INT(embed_with(emb, "he", a), AM_OK);
    CHECK(!is_zero(a));
}

static void test_unit_norm_and_batch(void)
{
    float one[DIM], all[N_PROBES * DIM];
    char err[256];
    CHECK_EQ_INT(emb->embed(emb, probes, N_PROBES, all, err, sizeof err), AM_OK);
    for (size_t i = 0; i < N_PROBES; i++) {
        CHECK_EQ_INT(embed_with(emb, probes[i], one), AM_OK);
        CHECK(memcmp(one, all + i * DIM, sizeof one) == 0);
        if (probes[i][0]) CHECK_NEAR(dot(one, one), 1.0, 1e-5);
    }
    CHECK_EQ_INT(emb->embed(emb, NULL, 0, NULL, err, sizeof err), AM_OK);
}

static void test_unknown_words(void)
{
    float v[DIM], w[DIM];
    static const char *const none[] = {"", "   ", "，。！？", "xyzzy plugh",
                                       "火星文", "\xff\xfe\x80", "12345"};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        memset(v, 0x7f, sizeof v);
        CHECK_EQ_INT(embed_with(emb, none[i], v), AM_OK);
        CHECK(is_zero(v));
    }
    /* unknown words are skipped, the known ones still count */
    CHECK_EQ_INT(embed_with(emb, "xyzzy weather plugh", v), AM_OK);
    CHECK_EQ_INT(embed_with(emb, "weather", w), AM_OK);
    CHECK(memcmp(v, w, sizeof v) == 0);
}

static void test_han_fallback(void)
{
    /* ICU keeps 工作室 / 下午茶 / 写作 as words the table lacks: greedy
     * matching inside them finds 工作 / 下午 / 写. */
    float a[DIM], b[DIM];
    static const char *const pairs[][2] = {
        {"工作室", "工作"}, {"下午茶", "下午"}, {"写作", "写"}};
    for (size_t i = 0; i < 3; i++) {
        CHECK_EQ_INT(embed_with(emb, pairs[i][0], a), AM_OK);
        CHECK_EQ_INT(embed_with(emb, pairs[i][1], b), AM_OK);
        CHECK(!is_zero(a));
        CHECK(memcmp(a, b, sizeof a) == 0);
    }
}

static void test_self_idf_weights(void)
{
    /* 的 (rank 0) weighs far less than 天气 (rank 32): the mix leans to 天气 */
    float mix[DIM], de[DIM], tq[DIM];
    CHECK_EQ_INT(embed_with(emb, "的天气", mix), AM_OK);
    CHECK_EQ_INT(embed_with(emb, "的", de), AM_OK);
    CHECK_EQ_INT(embed_with(emb, "天气", tq), AM_OK);
    CHECK(dot(mix, tq) > 0.98);
    CHECK(dot(mix, tq) > dot(mix, de));
}

static void test_binary_format(void)
{
    am__embedder *e = NULL;
    char err[256] = "";
    const char *nl = tmp_path("small.bin");
    const char *packed = tmp_path("packed.bin");
    write_binary(nl, 1);
    write_binary(packed, 0);
    CHECK_EQ_INT(am__embed_w2v_open(nl, &e, err, sizeof err), AM_OK);
    if (e) {
        CHECK_EQ_STR(e->id, "w2v:small.bin:8");
        CHECK(same_as_text_table(e));
    }
    am__embedder_close(e);
    e = NULL;
    CHECK_EQ_INT(am__embed_w2v_open(packed, &e, err, sizeof err), AM_OK);
    if (e) CHECK(same_as_text_table(e));
    am__embedder_close(e);
}

/* Copies the table with a transformation of each line (after the header). */
static void copy_table(const char *path, int keep_header, const char *eol)
{
    FILE *in = fopen(SMALL, "r"), *out = fopen(path, "wb");
    char line[512];
    int first = 1;
    while (in && out && fgets(line, sizeof line, in)) {
        line[strcspn(line, "\n")] = '\0';
        if (first && !keep_header) {
            first = 0;
            continue;
        }
        first = 0;
        fprintf(out, "%s%s", line, eol);
    }
    if (in) fclose(in);
    if (out) fclose(out);
}

static void test_text_variants(void)
{
    am__embedder *e = NULL;
    char err[256] = "";
    const char *noheader = tmp_path("noheader.txt");
    const char *crlf = tmp_path("crlf.txt");
    copy_table(noheader, 0, "\n");
    copy_table(crlf, 1, "\r\n");
    CHECK_EQ_INT(am__embed_w2v_open(noheader, &e, err, sizeof err), AM_OK);
    if (e) {
        CHECK_EQ_INT(e->dim, DIM);
        CHECK(same_as_text_table(e));
    }
    am__embedder_close(e);
    e = NULL;
    CHECK_EQ_INT(am__embed_w2v_open(crlf, &e, err, sizeof err), AM_OK);
    if (e) CHECK(same_as_text_table(e));
    am__embedder_close(e);
    e = NULL;
    /* a BOM, blank lines and trailing spaces */
    const char *bom = tmp_path("bom.txt");
    write_str(bom, "\xEF\xBB\xBF" "2 2\n\nweather 0 1 \n\nreport 1 0\n\n");
    CHECK_EQ_INT(am__embed_w2v_open(bom, &e, err, sizeof err), AM_OK);
    if (e) {
        float v[2];
        const char *t = "Weather";
        CHECK_EQ_INT(e->embed(e, &t, 1, v, err, sizeof err), AM_OK);
        CHECK_NEAR(v[1], 1.0, 1e-6);
    }
    am__embedder_close(e);
}

static void test_duplicate_fold_keeps_first(void)
{
    am__embedder *e = NULL;
    char err[256] = "";
    float a[2];
    const char *text = "apple";
    const char *p = tmp_path("dup.txt");
    write_str(p, "3 2\nApple 1 0\napple 0 1\npear 0.5 0.5\n");
    CHECK_EQ_INT(am__embed_w2v_open(p, &e, err, sizeof err), AM_OK);
    if (!e) return;
    CHECK_EQ_INT(e->dim, 2);
    CHECK_EQ_INT(e->embed(e, &text, 1, a, err, sizeof err), AM_OK);
    CHECK_NEAR(a[0], 1.0, 1e-6);
    CHECK_NEAR(a[1], 0.0, 1e-6);
    am__embedder_close(e);
}

static void test_idf_table(void)
{
    am__embedder *e = NULL;
    char err[256] = "";
    float mix[DIM], tq[DIM], self_mix[DIM];
    const char *idf = tmp_path("idf.txt");
    write_str(idf, "天气 12.5\n下午 0.01\n没有的词 3.0\n\n写 2.0\n");
    CHECK_EQ_INT(am__embed_w2v_open_idf(SMALL, idf, &e, err, sizeof err), AM_OK);
    if (!e) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK_EQ_STR(e->id, "w2v:w2v_small.txt:8:idf=idf.txt");
    /* 下午 (0.01) nearly vanishes next to 天气 (12.5) */
    CHECK_EQ_INT(embed_with(e, "下午天气", mix), AM_OK);
    CHECK_EQ_INT(embed_with(e, "天气", tq), AM_OK);
    CHECK_EQ_INT(embed_with(emb, "下午天气", self_mix), AM_OK);
    CHECK(dot(mix, tq) > 0.999);
    CHECK(dot(mix, tq) > dot(self_mix, tq) + 0.05);
    am__embedder_close(e);
    e = NULL;

    write_str(idf, "天气 12.5\n下午 lots\n");
    CHECK_EQ_INT(am__embed_w2v_open_idf(SMALL, idf, &e, err, sizeof err),
                 AM_CORRUPT);
    CHECK_CONTAINS(err, "line 2");
    CHECK(e == NULL);
    write_str(idf, "");
    CHECK_EQ_INT(am__embed_w2v_open_idf(SMALL, idf, &e, err, sizeof err),
                 AM_CORRUPT);
    CHECK_EQ_INT(am__embed_w2v_open_idf(SMALL, tmp_path("nope.idf"), &e, err,
                                        sizeof err),
                 AM_IO);
}

static void test_malformed_text(void)
{
    static const struct {
        const char *name, *content, *want;
    } cases[] = {
        {"empty.txt", "", "no words"},
        {"blank.txt", "\n\n  \n", "no words"},
        {"header_only.txt", "2 3\n", "header says 2 words, file has 0"},
        {"few_values.txt", "2 3\na 1 2 3\nb 1 2\n", "line 3"},
        {"many_values.txt", "2 3\na 1 2 3\nb 1 2 3 4\n", "more than"},
        {"not_number.txt", "1 3\na 1 x 3\n", "not a finite number"},
        {"nan.txt", "1 3\na 1 nan 3\n", "not a finite number"},
        {"inf.txt", "1 2\na 1e39 3\n", "not a finite number"},
        {"glued.txt", "1 2\na 1.5x 3\n", "not a finite number"},
        {"count_low.txt", "3 2\na 1 2\nb 1 2\n", "header says 3"},
        {"count_high.txt", "1 2\na 1 2\nb 1 2\n", "header says 1"},
        {"dim_zero.txt", "1 0\na\n", "bad header"},
        {"dim_huge.txt", "1 99999999\na 1\n", "bad header"},
        {"n_huge.txt", "99999999999 2\na 1 2\n", "bad header"},
        {"word_only.txt", "hello\nworld\n", "line 1"},
        {"ragged.txt", "a 1 2\nb 1\n", "line 2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *p = tmp_path(cases[i].name);
        write_str(p, cases[i].content);
        expect_open_fails(p, AM_CORRUPT, cases[i].want);
    }
}

static void test_malformed_binary(void)
{
    const char *full = tmp_path("full.bin"), *p = tmp_path("broken.bin");
    FILE *f;
    long size;
    char *buf;
    write_binary(full, 1);
    f = fopen(full, "rb");
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)size + 2048);
    CHECK(fread(buf, 1, (size_t)size, f) == (size_t)size);
    fclose(f);

    /* truncated anywhere inside the records */
    for (long cut = size - 2; cut > 5; cut -= 37) {
        write_file(p, buf, (size_t)cut);
        am__embedder *e = NULL;
        char err[256] = "";
        int rc = am__embed_w2v_open(p, &e, err, sizeof err);
        CHECK(rc == AM_CORRUPT);
        CHECK(e == NULL);
        am__embedder_close(e);
    }
    /* trailing garbage after the announced records */
    memcpy(buf + size, "extra", 5);
    write_file(p, buf, (size_t)size + 5);
    expect_open_fails(p, AM_CORRUPT, "data after");
    /* a non-finite float (0x7f800000 = +inf) in the first record */
    {
        char *first = (char *)memchr(buf, '\n', (size_t)size) + 1;
        char *vals = (char *)memchr(first, ' ', 64) + 1;
        static const unsigned char inf_le[4] = {0x00, 0x00, 0x80, 0x7f};
        memcpy(vals, inf_le, 4);
        write_file(p, buf, (size_t)size);
        expect_open_fails(p, AM_CORRUPT, "not finite");
    }
    /* a "word" with no space for over 1 KiB */
    {
        size_t n = (size_t)snprintf(buf, 64, "1 2\n");
        memset(buf + n, 'w', 1500);
        write_file(p, buf, n + 1500);
        expect_open_fails(p, AM_CORRUPT, NULL);
    }
    free(buf);
}

static void test_garbage_files(void)
{
    /* Deterministic pseudo-random bytes, with and without a valid header:
     * errors, never crashes (the ASan build checks). */
    unsigned char buf[3000];
    uint64_t x = 0x9E3779B97F4A7C15ull;
    const char *p = tmp_path("garbage.bin");
    for (int round = 0; round < 40; round++) {
        size_t n = (size_t)(round * 73 % 3000);
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf[i] = (unsigned char)x;
        }
        if (round % 2 && n > 8) memcpy(buf, "3 4\n", 4); /* a valid header */
        write_file(p, buf, n);
        am__embedder *e = NULL;
        char err[256] = "";
        int rc = am__embed_w2v_open(p, &e, err, sizeof err);
        if (rc == AM_OK) { /* possible in principle; then it must work */
            float *v = malloc((size_t)e->dim * sizeof *v);
            const char *t = "x y";
            CHECK_EQ_INT(e->embed(e, &t, 1, v, err, sizeof err), AM_OK);
            free(v);
        } else {
            CHECK(rc == AM_CORRUPT);
            CHECK(e == NULL);
        }
        am__embedder_close(e);
    }
}

static void test_errors_and_misuse(void)
{
    am__embedder *e = (am__embedder *)1;
    char err[256] = "";
    float v[DIM];
    const char *texts[2] = {"周报", NULL};
    CHECK_EQ_INT(am__embed_w2v_open(NULL, &e, err, sizeof err), AM_MISUSE);
    CHECK(e == NULL);
    CHECK_EQ_INT(am__embed_w2v_open(SMALL, NULL, err, sizeof err), AM_MISUSE);
    expect_open_fails(tmp_path("missing.txt"), AM_IO, "missing.txt");
    expect_open_fails(tmp_dir, AM_IO, "not a regular file");
    CHECK_EQ_INT(emb->embed(emb, texts, 2, v, err, sizeof err), AM_MISUSE);
    CHECK_CONTAINS(err, "texts[1]");
    CHECK_EQ_INT(emb->embed(emb, texts, 1, NULL, err, sizeof err), AM_MISUSE);
    CHECK_EQ_INT(am__embed_w2v_open(SMALL, &e, NULL, 0), AM_OK); /* no err buf */
    am__embedder_close(e);
    am__embedder_close(NULL);
}

/* The public am_embed (api/embed.c) through a real handle: the same
 * vectors the embedder gives, texts checked like an event's, a handle
 * without an embedder refused. */
static void test_public_embed(void)
{
    am_config cfg;
    am_config_init(&cfg);
    char path[600];
    snprintf(path, sizeof path, "%s/embed.db", tmp_dir);
    cfg.path = path;
    cfg.embedder = "w2v:" SMALL;
    am_db *db = NULL;
    char *msg = NULL;
    CHECK_EQ_INT(am_open(&cfg, &db, &msg), AM_OK);
    am_free(msg);
    if (!db) return;
    const char *texts[2] = {"周报 格式", "weekly report"};
    float *v = NULL, direct[2 * DIM];
    int dim = 0;
    const char *model = NULL;
    char err[256];
    CHECK_EQ_INT(am_embed(db, texts, 2, &v, &dim, &model), AM_OK);
    CHECK_EQ_INT(dim, DIM);
    CHECK(model && strcmp(model, emb->id) == 0);
    CHECK_EQ_INT(emb->embed(emb, texts, 2, direct, err, sizeof err), AM_OK);
    for (int i = 0; v && i < 2 * DIM; i++) CHECK(fabsf(v[i] - direct[i]) < 1e-6f);
    am_free(v);
    const char *bad[2] = {"ok", "\xff\xfe"};
    CHECK_EQ_INT(am_embed(db, bad, 2, &v, &dim, NULL), AM_INVALID);
    CHECK(v == NULL);
    CHECK_CONTAINS(am_errmsg(db), "input[1]");
    const char *none[1] = {NULL};
    CHECK_EQ_INT(am_embed(db, none, 1, &v, &dim, NULL), AM_INVALID);
    CHECK_EQ_INT(am_embed(db, texts, 0, &v, &dim, NULL), AM_MISUSE);
    CHECK_EQ_INT(am_embed(db, texts, AM_EMBED_MAX + 1, &v, &dim, NULL), AM_TOOBIG);
    am_close(db);
    cfg.embedder = "none";
    snprintf(path, sizeof path, "%s/embed_none.db", tmp_dir);
    CHECK_EQ_INT(am_open(&cfg, &db, &msg), AM_OK);
    am_free(msg);
    if (!db) return;
    CHECK_EQ_INT(am_embed(db, texts, 1, &v, &dim, NULL), AM_MISUSE);
    CHECK_CONTAINS(am_errmsg(db), "no embedder");
    am_close(db);
}

static void rm_tmp(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", tmp_dir);
}

int main(void)
{
    char err[256] = "";
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/am_test_w2v_XXXXXX");
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 2;
    }
    if (am__embed_w2v_open(SMALL, &emb, err, sizeof err) != AM_OK) {
        fprintf(stderr, "cannot open %s: %s (run from the repo root)\n", SMALL,
                err);
        rm_tmp();
        return 1;
    }
    RUN(test_open_text);
    RUN(test_chinese_ordering);
    RUN(test_english_ordering);
    RUN(test_case_and_width_folding);
    RUN(test_unit_norm_and_batch);
    RUN(test_unknown_words);
    RUN(test_han_fallback);
    RUN(test_self_idf_weights);
    RUN(test_binary_format);
    RUN(test_text_variants);
    RUN(test_duplicate_fold_keeps_first);
    RUN(test_idf_table);
    RUN(test_malformed_text);
    RUN(test_malformed_binary);
    RUN(test_garbage_files);
    RUN(test_errors_and_misuse);
    RUN(test_public_embed);
    am__embedder_close(emb);
    rm_tmp();
    TEST_MAIN_END();
}
