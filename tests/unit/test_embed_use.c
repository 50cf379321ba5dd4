/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_embed_use.c -- the built-in USE-lite English encoder (src/embed/).
 *
 * Needs the weights in models/use-lite (or $AM_MODEL_DIR): run
 * scripts/fetch-model.sh once.  Without them the test is skipped ("SKIP:",
 * exit 77); weights that are there but cannot be opened fail it.
 * Reference numbers come from the TF.js implementation of the same model
 * (shared/TOOLCHAIN.md); token ids from its tokenizer.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test.h"

#include "embed/embed.h"

static am__embedder *enc; /* opened once in main */

static double dot(const float *a, const float *b, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += (double)a[i] * b[i];
    return s;
}

static int embed1(const char *text, float *out)
{
    char err[256] = "";
    int rc = enc->embed(enc, &text, 1, out, err, sizeof err);
    if (rc) fprintf(stderr, "embed(\"%.40s\"): %d %s\n", text, rc, err);
    return rc;
}

/* Tokenizes text and compares with the expected ids (n of them). */
static int tokens_are(const char *text, size_t len, const int32_t *want,
                      size_t n)
{
    int32_t ids[AM__USE_MAX_TOKENS];
    size_t got = 0;
    char err[256] = "";
    int rc = am__use_tokenize(enc, text, len, ids, AM__USE_MAX_TOKENS, &got,
                              err, sizeof err);
    if (rc != AM_OK || got != n ||
        (n && memcmp(ids, want, n * sizeof *ids) != 0)) {
        fprintf(stderr, "tokenize(\"%.40s\"): rc %d, %zu ids:", text, rc, got);
        for (size_t i = 0; i < got; i++) fprintf(stderr, " %d", (int)ids[i]);
        fprintf(stderr, "\n");
        return 0;
    }
    return 1;
}

static void test_hello_world(void)
{
    static const double want[5] = {-0.051497, -0.054925, -0.007691, -0.049952,
                                   0.048873};
    float v[AM__USE_DIM];
    CHECK_EQ_STR(enc->id, "use-lite-en@0.2.0");
    CHECK_EQ_INT(enc->dim, 512);
    CHECK_EQ_INT(embed1("hello world", v), AM_OK);
    for (int i = 0; i < 5; i++) CHECK_NEAR(v[i], want[i], 1e-4);
}

static void test_cosines(void)
{
    const char *t[3] = {"deliver it as soon as possible",
                        "wrap up that order quickly",
                        "the weather is nice today"};
    float v[3 * AM__USE_DIM];
    char err[256] = "";
    CHECK_EQ_INT(enc->embed(enc, t, 3, v, err, sizeof err), AM_OK);
    CHECK_NEAR(dot(v, v + AM__USE_DIM, AM__USE_DIM), 0.54, 0.03);
    CHECK_NEAR(dot(v, v + 2 * AM__USE_DIM, AM__USE_DIM), 0.20, 0.03);
}

static void test_unit_norm(void)
{
    const char *t[] = {"hello world", "", " ", "你好世界", "\xff\xfe\xfd",
                       ("A much longer sentence, with punctuation; numbers 42 "
                        "and :) emoticons.")};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        float v[AM__USE_DIM];
        CHECK_EQ_INT(embed1(t[i], v), AM_OK);
        CHECK_NEAR(dot(v, v, AM__USE_DIM), 1.0, 1e-5);
    }
}

static void test_tokenizer_cases(void)
{
    size_t len = 0;
    const char *p;
    /* "hello world" -> ▁hell o ▁world */
    CHECK(tokens_are("hello world", 11, (const int32_t[]){2002, 102, 311}, 3));
    p = am__use_piece(enc, 2002, &len);
    CHECK(p && len == 7 && memcmp(p, "\xE2\x96\x81hell", 7) == 0);
    /* empty: no tokens, not even the separator */
    CHECK(tokens_are("", 0, NULL, 0));
    /* every space is a separator, one more in front */
    CHECK(tokens_are(" ", 1, (const int32_t[]){30, 30}, 2));
    /* NFKC: fullwidth letters and the ideographic space fold */
    {
        const char *wide = "\xEF\xBC\xA8\xEF\xBC\xA5\xEF\xBC\xAC\xEF\xBC\xAC"
                           "\xEF\xBC\xAF\xE3\x80\x80world";
        CHECK(tokens_are(wide, strlen(wide),
                         (const int32_t[]){341, 6740, 287, 311}, 4));
    }
    CHECK(tokens_are("HELLO world", 11, (const int32_t[]){341, 6740, 287, 311}, 4));
    /* unknown characters become id 0, consecutive ones merge */
    CHECK(tokens_are("你好世界", strlen("你好世界"), (const int32_t[]){30, 0}, 2));
    CHECK(tokens_are("a你好b", strlen("a你好b"), (const int32_t[]){11, 0, 151}, 3));
    /* null scores count as 0, and a best score of 0 is always replaced:
     * ":)" is not the piece "▁:)" (as in the TF.js tokenizer) */
    CHECK(tokens_are(":)", 2, (const int32_t[]){30, 57, 52}, 3));
    CHECK(tokens_are("don't stop", 10, (const int32_t[]){101, 13, 17, 630}, 4));
    /* invalid UTF-8 counts as U+FFFD (unknown); NUL is a character */
    CHECK(tokens_are("\xff", 1, (const int32_t[]){30, 0}, 2));
    CHECK(tokens_are("\xEF\xBF\xBD", 3, (const int32_t[]){30, 0}, 2));
    CHECK(tokens_are("a\0b", 3, (const int32_t[]){11, 0, 151}, 3));
    /* max_ids clips; reserved ids are never produced by matching */
    {
        int32_t ids[2];
        size_t n = 9;
        CHECK_EQ_INT(am__use_tokenize(enc, "hello world", 11, ids, 2, &n, NULL, 0),
                     AM_OK);
        CHECK(n == 2 && ids[0] == 2002 && ids[1] == 102);
        CHECK_EQ_INT(am__use_tokenize(enc, "hello world", 11, ids, 0, &n, NULL, 0),
                     AM_OK);
        CHECK_EQ_INT(n, 0);
    }
    CHECK(am__use_piece(enc, -1, &len) == NULL);
    CHECK(am__use_piece(enc, 1 << 20, &len) == NULL);
}

/* A long text is tokenized in prefixes cut at spaces: the first tokens must
 * equal those of tokenizing the whole text. */
static void test_tokenizer_long_prefix(void)
{
    static const char *words[] = {"alpha ", "beta's ", "  ", "你好 ", "gamma-ray ",
                                  "x", "y ", ":) ", "naïve ", "ﬁle "};
    size_t cap = 400000, len = 0;
    char *text = malloc(cap + 16);
    int32_t *all = malloc(cap * sizeof *all), few[AM__USE_MAX_TOKENS];
    size_t n_all = 0, n_few = 0;
    unsigned seed = 12345;
    CHECK(text && all);
    if (!text || !all) goto out;
    while (len < cap) {
        seed = seed * 1103515245u + 12345u;
        const char *w = words[(seed >> 16) % (sizeof words / sizeof *words)];
        memcpy(text + len, w, strlen(w));
        len += strlen(w);
    }
    CHECK_EQ_INT(am__use_tokenize(enc, text, len, all, cap, &n_all, NULL, 0), AM_OK);
    CHECK_EQ_INT(am__use_tokenize(enc, text, len, few, AM__USE_MAX_TOKENS, &n_few,
                                  NULL, 0), AM_OK);
    CHECK(n_all > AM__USE_MAX_TOKENS);
    CHECK_EQ_INT(n_few, AM__USE_MAX_TOKENS);
    CHECK(memcmp(all, few, n_few * sizeof *few) == 0);
out:
    free(text);
    free(all);
}

static void test_empty_and_long(void)
{
    const size_t big = 2u << 20;
    char *text = malloc(big + 1);
    float a[AM__USE_DIM], b[AM__USE_DIM];
    CHECK(text != NULL);
    if (!text) return;
    /* empty text: a fixed unit vector */
    CHECK_EQ_INT(embed1("", a), AM_OK);
    CHECK_NEAR(dot(a, a, AM__USE_DIM), 1.0, 1e-5);
    /* 2 MiB of words: only the first 128 tokens count */
    for (size_t i = 0; i + 5 <= big; i += 5) memcpy(text + i, "word ", 5);
    text[big - big % 5] = '\0';
    CHECK_EQ_INT(embed1(text, a), AM_OK);
    text[5 * 300] = '\0';
    CHECK_EQ_INT(embed1(text, b), AM_OK);
    CHECK_NEAR(dot(a, b, AM__USE_DIM), 1.0, 1e-5);
    /* 2 MiB without a space, and 2 MiB of unknown characters */
    memset(text, 'x', big);
    text[big] = '\0';
    CHECK_EQ_INT(embed1(text, a), AM_OK);
    CHECK_NEAR(dot(a, a, AM__USE_DIM), 1.0, 1e-5);
    for (size_t i = 0; i + 3 <= big; i += 3) memcpy(text + i, "你", 3);
    text[big - big % 3] = '\0';
    CHECK_EQ_INT(embed1(text, a), AM_OK);
    CHECK_NEAR(dot(a, a, AM__USE_DIM), 1.0, 1e-5);
    free(text);
}

/* A big batch (several forward chunks, empty texts among them) gives the
 * same vectors as one text at a time. */
static void test_batch_matches_single(void)
{
    enum { N = 300 };
    static char buf[N][96];
    const char *t[N];
    float *all = malloc((size_t)N * AM__USE_DIM * sizeof *all), one[AM__USE_DIM];
    char err[256] = "";
    CHECK(all != NULL);
    if (!all) return;
    for (int i = 0; i < N; i++) {
        if (i % 37 == 5)
            buf[i][0] = '\0';
        else
            snprintf(buf[i], sizeof buf[i], "memory %d: the user prefers %s at %d",
                     i, i % 2 ? "tea" : "coffee in the morning", i * 7);
        t[i] = buf[i];
    }
    CHECK_EQ_INT(enc->embed(enc, t, N, all, err, sizeof err), AM_OK);
    for (int i = 0; i < N; i += 23) {
        CHECK_EQ_INT(embed1(t[i], one), AM_OK);
        CHECK_NEAR(dot(one, all + (size_t)i * AM__USE_DIM, AM__USE_DIM), 1.0, 1e-5);
    }
    CHECK_EQ_INT(enc->embed(enc, t, 0, NULL, err, sizeof err), AM_OK);
    free(all);
}

static void test_misuse(void)
{
    const char *t[2] = {"ok", NULL};
    float v[2 * AM__USE_DIM];
    char err[256] = "";
    am__embedder fake = {"fake", 4, NULL, NULL};
    int32_t ids[4];
    size_t n;
    CHECK_EQ_INT(enc->embed(enc, t, 2, v, err, sizeof err), AM_MISUSE);
    CHECK_CONTAINS(err, "texts[1]");
    CHECK_EQ_INT(enc->embed(enc, t, 1, NULL, err, sizeof err), AM_MISUSE);
    CHECK_EQ_INT(am__use_tokenize(&fake, "a", 1, ids, 4, &n, err, sizeof err),
                 AM_MISUSE);
    CHECK_EQ_INT(am__use_tokenize(enc, "a", 1, ids, 4, NULL, NULL, 0), AM_MISUSE);
    CHECK(am__use_piece(&fake, 7, NULL) == NULL);
    am__embedder_close(NULL);
}

/* ---- broken model directories ---------------------------------------- */

static int write_file(const char *dir, const char *name, const void *p, size_t n)
{
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(p, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
}

static int link_from(const char *dir, const char *src_dir, const char *name)
{
    char from[1024], to[512];
    if (src_dir[0] == '/') {
        snprintf(from, sizeof from, "%s/%s", src_dir, name);
    } else {
        char cwd[512];
        if (!getcwd(cwd, sizeof cwd)) return -1;
        snprintf(from, sizeof from, "%s/%s/%s", cwd, src_dir, name);
    }
    snprintf(to, sizeof to, "%s/%s", dir, name);
    return symlink(from, to);
}

/* Links model.json and the first n shards of src_dir into dir. */
static int link_model(const char *dir, const char *src_dir, int n)
{
    char shard[32];
    if (link_from(dir, src_dir, "model.json") != 0) return -1;
    for (int i = 1; i <= n; i++) {
        snprintf(shard, sizeof shard, "group1-shard%dof7", i);
        if (link_from(dir, src_dir, shard) != 0) return -1;
    }
    return 0;
}

static void rm_dir(const char *dir)
{
    static const char *names[] = {"model.json", "vocab.json", "group1-shard1of7",
                                  "group1-shard2of7", "group1-shard3of7",
                                  "group1-shard4of7", "group1-shard5of7",
                                  "group1-shard6of7", "group1-shard7of7"};
    char path[512];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* Opening dir must fail with rc and a message holding needle. */
static void open_fails(const char *dir, int rc, const char *needle)
{
    static am__embedder sentinel;
    am__embedder *e = &sentinel;
    char err[512] = "";
    CHECK_EQ_INT(am__embed_use_open(dir, &e, err, sizeof err), rc);
    CHECK(e == NULL);
    CHECK_CONTAINS(err, needle);
}

static void test_bad_model_dirs(void)
{
    char src_buf[1024];
    const char *src = am__embed_use_default_dir(src_buf, sizeof src_buf);
    char dir[] = "/tmp/am_use_test_XXXXXX";
    am__embedder *e = NULL;

    open_fails("/nonexistent/agentmem/model", AM_IO, "fetch-model.sh");
    CHECK_EQ_INT(am__embed_use_open(NULL, &e, NULL, 0), AM_MISUSE);
    CHECK_EQ_INT(am__embed_use_open(src, NULL, NULL, 0), AM_MISUSE);
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp failed");
        return;
    }
    /* model.json that is not JSON */
    CHECK(write_file(dir, "model.json", "{not json", 9) == 0);
    open_fails(dir, AM_CORRUPT, "model.json");
    /* valid JSON without a manifest */
    CHECK(write_file(dir, "model.json", "{\"modelTopology\":{}}", 20) == 0);
    open_fails(dir, AM_CORRUPT, "weightsManifest");
    rm_dir(dir);
    CHECK(mkdir(dir, 0700) == 0);
    /* the real manifest, a truncated last shard */
    CHECK(link_model(dir, src, 6) == 0);
    CHECK(write_file(dir, "group1-shard7of7", "\0\0\0\0", 4) == 0);
    open_fails(dir, AM_CORRUPT, "fetch-model.sh");
    rm_dir(dir);
    CHECK(mkdir(dir, 0700) == 0);
    /* weights fine, vocab missing, then vocab corrupt */
    CHECK(link_model(dir, src, 7) == 0);
    open_fails(dir, AM_IO, "vocab.json");
    CHECK(write_file(dir, "vocab.json", "[[\"a\", 0], 7]", 13) == 0);
    open_fails(dir, AM_CORRUPT, "vocab.json");
    rm_dir(dir);
}

/* ---- speed ----------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Prints the median time of one text per call over 200 sentences, and the
 * time per text of one 200-text call.  Informational, never fails. */
static void test_speed(void)
{
    enum { N = 200 };
    static const char *subj[] = {"The user", "My manager", "Our team", "She",
                                 "The customer from Berlin"};
    static const char *verb[] = {"wants", "asked for", "prefers", "will review",
                                 "forgot about"};
    static const char *obj[] = {"the quarterly budget report",
                                "a short summary every Friday afternoon",
                                "green tea instead of coffee",
                                "the deployment of version two",
                                "meetings before ten in the morning"};
    static char buf[N][160];
    const char *t[N];
    double ms[N];
    float v[AM__USE_DIM], *all = malloc((size_t)N * AM__USE_DIM * sizeof *all);
    char err[256];
    for (int i = 0; i < N; i++) {
        snprintf(buf[i], sizeof buf[i], "%s %s %s (note %d).", subj[i % 5],
                 verb[(i / 5) % 5], obj[(i / 25) % 5], i);
        t[i] = buf[i];
    }
    for (int i = 0; i < N; i++) {
        double t0 = now_ms();
        CHECK_EQ_INT(embed1(t[i], v), AM_OK);
        ms[i] = now_ms() - t0;
    }
    qsort(ms, N, sizeof *ms, cmp_double);
    printf("use-lite: median %.2f ms per sentence (one per call, %d sentences)\n",
           ms[N / 2], N);
    if (all) {
        double t0 = now_ms();
        CHECK_EQ_INT(enc->embed(enc, t, N, all, err, sizeof err), AM_OK);
        printf("use-lite: %.2f ms per sentence in one %d-text call\n",
               (now_ms() - t0) / N, N);
        free(all);
    }
}

int main(void)
{
    char err[512] = "";
    char dir_buf[1024];
    const char *dir = am__embed_use_default_dir(dir_buf, sizeof dir_buf);
    int rc = am__embed_use_open(dir, &enc, err, sizeof err);
    char json[1100];
    snprintf(json, sizeof json, "%s/model.json", dir);
    if (rc != AM_OK && access(json, F_OK) != 0) {
        /* not fetched is a skip; fetched and unreadable is a failure */
        TEST_SKIP("test_embed_use: the USE-lite weights are not in %s "
                  "(run scripts/fetch-model.sh, or set AM_MODEL_DIR)",
                  dir);
        TEST_MAIN_END();
    }
    if (rc != AM_OK) {
        fprintf(stderr,
                "test_embed_use: cannot open the USE-lite model in %s (rc %d): %s\n"
                "test_embed_use: run scripts/fetch-model.sh from the repo root "
                "(or set AM_MODEL_DIR)\n",
                dir, rc, err);
        t_failed++;
        TEST_MAIN_END();
    }
    RUN(test_hello_world);
    RUN(test_cosines);
    RUN(test_unit_norm);
    RUN(test_tokenizer_cases);
    RUN(test_tokenizer_long_prefix);
    RUN(test_empty_and_long);
    RUN(test_batch_matches_single);
    RUN(test_misuse);
    RUN(test_bad_model_dirs);
    RUN(test_speed);
    am__embedder_close(enc);
    TEST_MAIN_END();
}
