/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_embed_alloc.c -- an embedder's memory comes from the handle's
 * injected allocator (am_config.realloc), like the rest of the engine's.
 *
 * A word2vec table of 4000 words x 50 dimensions (800 KB of vectors) is
 * written to a folder of /tmp; a handle opened on it with a counting allocator must
 * hold at least the table's bytes through that allocator (a table taken
 * from libc would not show), embed and recall in English and Chinese with
 * it, and give every byte back at am_close.  The same for the built-in
 * encoder (its 28 MB of weights) when models/use-lite is fetched.  The
 * OpenAI-compatible embedder's blocks come from the allocator it is opened
 * with.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agentmem.h"
#include "test.h"

#include "embed/embed.h"

#define WORDS 4000
#define DIM 50

/* Counts live bytes (a size header before each block) and calls. */
typedef struct counter {
    size_t live, peak;
    long calls;
} counter;

static void *count_realloc(void *ctx, void *p, size_t n)
{
    counter *c = ctx;
    c->calls++;
    if (p) {
        p = (char *)p - 16;
        c->live -= *(size_t *)p;
    }
    if (n == 0) {
        free(p);
        return NULL;
    }
    char *q = realloc(p, n + 16);
    if (!q) {
        if (p) c->live += *(size_t *)p;
        return NULL;
    }
    *(size_t *)q = n;
    c->live += n;
    if (c->live > c->peak) c->peak = c->live;
    return q + 16;
}

static char table[128];

/* "w0 .. w3999" and a few real words in both languages, DIM values each. */
static void write_table(void)
{
    static const char *real[] = {"weekly", "report", "table", "周报", "表格", "报告"};
    FILE *f = fopen(table, "w");
    CHECK(f != NULL);
    if (!f) return;
    for (int i = 0; i < WORDS; i++) {
        if (i < 6) fprintf(f, "%s", real[i]);
        else fprintf(f, "w%d", i);
        for (int d = 0; d < DIM; d++)
            fprintf(f, " %.3f", (double)((i * 7 + d * 13) % 17) / 17.0 - 0.4 + (d == i % DIM));
        fputc('\n', f);
    }
    fclose(f);
}

static size_t open_live(counter *c, const char *embedder, am_db **db)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = ":memory:";
    cfg.embedder = embedder;
    cfg.realloc = count_realloc;
    cfg.alloc_ctx = c;
    char *err = NULL;
    int rc = am_open(&cfg, db, &err);
    CHECK_EQ_INT(rc, AM_OK);
    if (rc) fprintf(stderr, "am_open: %s\n", err ? err : "?");
    free(err);
    return c->live;
}

static void test_w2v_through_allocator(void)
{
    counter plain = {0}, with = {0};
    am_db *db = NULL;
    char spec[160];
    size_t base = open_live(&plain, NULL, &db);
    am_close(db);
    CHECK_EQ_INT((long long)plain.live, 0);

    snprintf(spec, sizeof spec, "w2v:%s", table);
    size_t live = open_live(&with, spec, &db);
    if (!db) return;
    /* the vectors alone are WORDS * DIM floats */
    CHECK(live >= base + (size_t)WORDS * DIM * sizeof(float));
    CHECK_EQ_STR(am_embedder_id(db), "w2v:am_test_embed_alloc.txt:50");

    static const char *texts[] = {"I want the weekly report as a table", "以后周报都用表格"};
    for (int i = 0; i < 2; i++) {
        am_event ev = {.user_id = "alice", .text = texts[i]};
        CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_OK);
    }
    for (int i = 0; i < 2; i++) {
        am_query q = {.user_id = "alice", .text = i ? "周报用什么格式" : "weekly report format"};
        am_recall_result *r = NULL;
        CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
        CHECK(r && r->block && strstr(r->block, i ? "表格" : "table") != NULL);
        am_recall_free(r);
    }
    long calls = with.calls;
    am_close(db);
    CHECK(with.calls > calls);
    CHECK_EQ_INT((long long)with.live, 0);
}

/* The built-in encoder (when its weights are fetched in models/use-lite):
 * the weights (every shard) and the tokenizer's and forward pass's blocks
 * through the handle's allocator. */
static void test_use_lite_through_allocator(void)
{
    FILE *f = fopen("models/use-lite/model.json", "r");
    if (!f) {
        printf("use-lite: no weights in models/use-lite (scripts/fetch-model.sh): case not run\n");
        return;
    }
    fclose(f);
    size_t shards = 0;
    for (int i = 1; i <= 7; i++) {
        char path[64];
        snprintf(path, sizeof path, "models/use-lite/group1-shard%dof7", i);
        struct stat st;
        CHECK(stat(path, &st) == 0);
        shards += (size_t)st.st_size;
    }
    counter c = {0};
    am_db *db = NULL;
    size_t live = open_live(&c, "use-lite:models/use-lite", &db);
    if (!db) return;
    CHECK(live >= shards);
    am_event ev = {.user_id = "alice", .text = "Please send the weekly report as a table"};
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_OK);
    long calls = c.calls;
    am_query q = {.user_id = "alice", .text = "how should the weekly report look"};
    am_recall_result *r = NULL;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
    CHECK(r && r->block && strstr(r->block, "table") != NULL);
    am_recall_free(r);
    CHECK(c.calls > calls);
    am_close(db);
    CHECK_EQ_INT((long long)c.live, 0);
}

/* The OpenAI-compatible embedder: its handle, URL, model, id and request
 * buffer from the allocator it was opened with (a given dimension: no
 * request is made). */
static void test_openai_through_allocator(void)
{
    counter c = {0};
    am__allocator a = {count_realloc, &c};
    am__embedder *e = NULL;
    char err[256];
    CHECK_EQ_INT(am__embed_openai_open_alloc(&a, "http://127.0.0.1:9/v1", "bge-m3", "k", 8, NULL,
                                             &e, err, sizeof err),
                 AM_OK);
    if (!e) return;
    CHECK_EQ_STR(e->id, "openai:bge-m3@127.0.0.1:9");
    CHECK(c.live >= sizeof "http://127.0.0.1:9/v1/embeddings" + sizeof "bge-m3");
    CHECK(c.calls >= 4);
    am__embedder_close(e);
    CHECK_EQ_INT((long long)c.live, 0);
}

/* Its HTTP client's copies too: the URL and the key's header come from
 * the same allocator (opened with a key, the handle holds the header's
 * bytes more than without one), and go back at close. */
static void test_openai_http_through_allocator(void)
{
    counter with = {0}, without = {0};
    am__allocator aw = {count_realloc, &with}, ao = {count_realloc, &without};
    am__embedder *e = NULL, *f = NULL;
    char err[256];
    static const char key[] = "sk-0123456789abcdef0123456789abcdef";
    CHECK_EQ_INT(am__embed_openai_open_alloc(&aw, "http://127.0.0.1:9/v1", "bge-m3", key, 8,
                                             NULL, &e, err, sizeof err),
                 AM_OK);
    CHECK_EQ_INT(am__embed_openai_open_alloc(&ao, "http://127.0.0.1:9/v1", "bge-m3", NULL, 8,
                                             NULL, &f, err, sizeof err),
                 AM_OK);
    if (!e || !f) return;
    CHECK(with.live >= without.live + sizeof "Authorization: Bearer " + sizeof key - 2);
    am__embedder_close(e);
    am__embedder_close(f);
    CHECK_EQ_INT((long long)with.live, 0);
    CHECK_EQ_INT((long long)without.live, 0);
}

int main(void)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/am_test_embed_alloc_%d", (int)getpid());
    if (mkdir(dir, 0700) != 0) {
        perror(dir);
        return 1;
    }
    snprintf(table, sizeof table, "%s/am_test_embed_alloc.txt", dir);
    write_table();
    RUN(test_w2v_through_allocator);
    RUN(test_openai_through_allocator);
    RUN(test_openai_http_through_allocator);
    RUN(test_use_lite_through_allocator);
    unlink(table);
    rmdir(dir);
    TEST_MAIN_END();
}
