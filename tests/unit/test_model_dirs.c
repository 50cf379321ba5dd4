/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_model_dirs.c -- where the embedder "auto" looks for the built-in
 * encoder's weights (am_model_dirs_find), what it resolves to
 * (am_embedder_id), and the read-only schema peek (am_store_schema_peek).
 * Through the public header; the weights are a stand-in model.json, so
 * the test needs no fetched model, except where it opens a store with
 * "auto" (then the real one, skipped when models/use-lite is absent).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agentmem.h"
#include "agentmem_ops.h"
#include "test.h"

static char tmp[] = "/tmp/am_model_dirs_XXXXXX";

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) fclose(f);
}

static void clear_env(void)
{
    unsetenv("AGENTMEM_MODEL_DIR");
    unsetenv("AM_MODEL_DIR");
    unsetenv("XDG_DATA_HOME");
}

static void test_order_and_found(void)
{
    char a[128], x[128], p[640];
    clear_env();
    snprintf(a, sizeof a, "%s/a", tmp);
    snprintf(x, sizeof x, "%s/xdg", tmp);
    setenv("HOME", tmp, 1);
    am_model_dirs d;
    CHECK_EQ_INT(am_model_dirs_find(NULL), AM_MISUSE);
    CHECK_EQ_INT(am_model_dirs_find(&d), AM_OK);
    /* no variable: the data home under HOME first, never the working dir */
    snprintf(p, sizeof p, "%s/.local/share/agentmem/models/use-lite", tmp);
    CHECK(d.n >= 2);
    CHECK_EQ_STR(d.dir[0], p);
    CHECK_EQ_STR(d.from[0], "data home");
    CHECK_EQ_STR(d.from[1], "data dir");
    CHECK_EQ_INT(d.found, -1);
    for (size_t i = 0; i < d.n; i++) CHECK(strstr(d.dir[i], "models/use-lite") != d.dir[i]);

    setenv("AGENTMEM_MODEL_DIR", a, 1);
    setenv("XDG_DATA_HOME", x, 1);
    CHECK_EQ_INT(am_model_dirs_find(&d), AM_OK);
    snprintf(p, sizeof p, "%s/use-lite", a);
    CHECK_EQ_STR(d.dir[0], p);
    CHECK_EQ_STR(d.dir[1], a);
    CHECK_EQ_STR(d.from[0], "$AGENTMEM_MODEL_DIR");
    snprintf(p, sizeof p, "%s/agentmem/models/use-lite", x);
    CHECK_EQ_STR(d.dir[2], p);
    CHECK_EQ_INT(d.found, -1);
    /* the data home's folder holds the model: found there */
    snprintf(p, sizeof p, "mkdir -p %s/agentmem/models/use-lite %s/use-lite", x, a);
    CHECK_EQ_INT(system(p), 0);
    snprintf(p, sizeof p, "%s/agentmem/models/use-lite/model.json", x);
    touch(p);
    CHECK_EQ_INT(am_model_dirs_find(&d), AM_OK);
    CHECK_EQ_INT(d.found, 2);
    /* AGENTMEM_MODEL_DIR's comes first */
    snprintf(p, sizeof p, "%s/use-lite/model.json", a);
    touch(p);
    CHECK_EQ_INT(am_model_dirs_find(&d), AM_OK);
    CHECK_EQ_INT(d.found, 0);
    clear_env();
}

static void test_auto_resolves(void)
{
    char x[256];
    am_config cfg;
    am_db *db = NULL;
    char *err = NULL;
    clear_env();
    snprintf(x, sizeof x, "%s/nothing", tmp);
    setenv("XDG_DATA_HOME", x, 1);
    am_config_init(&cfg);
    cfg.path = ":memory:";
    cfg.embedder = "auto";
    CHECK_EQ_INT(am_open(&cfg, &db, &err), AM_OK); /* nothing found: no error */
    CHECK_EQ_STR(am_embedder_id(db), "none");
    am_close(db);
    CHECK_EQ_STR(am_embedder_id(NULL), "none");
    db = NULL;
    if (access("models/use-lite/model.json", R_OK) == 0) {
        char cwd[1024], m[1100];
        CHECK(getcwd(cwd, sizeof cwd) != NULL);
        snprintf(m, sizeof m, "%s/models/use-lite", cwd);
        setenv("AGENTMEM_MODEL_DIR", m, 1);
        CHECK_EQ_INT(am_open(&cfg, &db, &err), AM_OK);
        CHECK_EQ_STR(am_embedder_id(db), "use-lite-en@0.2.0");
        am_close(db);
        db = NULL;
        cfg.embedder = "use-lite"; /* the same id: vectors stay comparable */
        CHECK_EQ_INT(am_open(&cfg, &db, &err), AM_OK);
        CHECK_EQ_STR(am_embedder_id(db), "use-lite-en@0.2.0");
        am_close(db);
        db = NULL;
    }
    cfg.embedder = "bogus";
    CHECK_EQ_INT(am_open(&cfg, &db, &err), AM_INVALID);
    CHECK(err && strstr(err, "auto"));
    am_free(err);
    clear_env();
}

static void test_schema_peek(void)
{
    char path[256];
    int v = -5, cur = 0;
    snprintf(path, sizeof path, "%s/s.db", tmp);
    CHECK_EQ_INT(am_store_schema_peek(NULL, &v, NULL), AM_MISUSE);
    CHECK_EQ_INT(am_store_schema_peek(path, &v, &cur), AM_NOTFOUND);
    CHECK(cur > 0);
    CHECK_EQ_INT(access(path, F_OK), -1); /* not created */
    CHECK_EQ_INT(am_store_schema_peek(":memory:", &v, NULL), AM_INVALID);
    CHECK_EQ_INT(am_store_schema_peek("postgres://u@h/db", &v, NULL), AM_INVALID);
    am_config cfg;
    am_db *db = NULL;
    am_config_init(&cfg);
    cfg.path = path;
    CHECK_EQ_INT(am_open(&cfg, &db, NULL), AM_OK);
    am_close(db);
    CHECK_EQ_INT(am_store_schema_peek(path, &v, &cur), AM_OK);
    CHECK_EQ_INT(v, cur);
    char url[300];
    snprintf(url, sizeof url, "sqlite:%s", path);
    CHECK_EQ_INT(am_store_schema_peek(url, &v, NULL), AM_OK);
    /* not an agentmem store */
    snprintf(path, sizeof path, "%s/notes.txt", tmp);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("这不是数据库 / not a database\n", f);
        fclose(f);
    }
    CHECK_EQ_INT(am_store_schema_peek(path, &v, NULL), AM_CORRUPT);
}

int main(void)
{
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_order_and_found);
    RUN(test_auto_resolves);
    RUN(test_schema_peek);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    if (system(cmd) != 0) fprintf(stderr, "test_model_dirs: cannot remove %s\n", tmp);
    TEST_MAIN_END();
}
