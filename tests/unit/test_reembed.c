/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_reembed.c -- am_vectors_missing and am_reembed: a store written
 * without an embedder is reopened with one, and the old events get vectors
 * of it -- per user or all, in batches with progress, resumable after an
 * interruption, one vector per event, of the redacted stored text.
 *
 * Fully offline: the embedder is a word2vec table written to a private /tmp
 * directory (one axis per topic, the same vector for an English word and its
 * synonyms and Chinese equivalents), opened as "w2v:PATH".  The USE-lite
 * step (Chinese events are not counted for it) runs only when its weights
 * are in models/use-lite.  Runs with the repository root as the working
 * directory.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

#include "agentmem.h"
#include "embed/embed.h"

#define DIM 10
#define N_FILLER 37 /* alice: 3 events + 37 notes = 40 > one batch */

static char tmp_dir[64];
static char table_a[128], table_b[128], table_c[128], db_path[128];

/* one topic axis each; axis 9 holds the function words */
static const struct {
    const char *words;
    int axis;
} topics[] = {
    {"the i a in is we for my any last on to", 9},
    {"hiking trekking 爬山 徒步", 0},
    {"mountains peaks 山峰", 1},
    {"coffee latte 咖啡", 2},
    {"report summary 周报", 3},
    {"weekly friday 周五", 4},
    {"garden tomatoes note", 5},
    {"weekend 周末", 6},
    {"wifi password guests", 7},
    {"hunter2", 8},
};

static void write_table(const char *path, float tilt)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    int n = 0;
    for (size_t t = 0; t < sizeof topics / sizeof *topics; t++)
        for (const char *p = topics[t].words; *p; p += strspn(p, " ")) {
            p += strcspn(p, " ");
            n++;
        }
    fprintf(f, "%d %d\n", n, DIM);
    for (size_t t = 0; t < sizeof topics / sizeof *topics; t++) {
        const char *p = topics[t].words;
        while (*p) {
            size_t len = strcspn(p, " ");
            fprintf(f, "%.*s", (int)len, p);
            for (int k = 0; k < DIM; k++)
                fprintf(f, " %g", k == topics[t].axis ? 1.0 : k == 9 ? tilt : 0.0);
            fputc('\n', f);
            p += len;
            p += strspn(p, " ");
        }
    }
    fclose(f);
}

static am_time now_ms;
static am_time test_clock(void *ctx)
{
    (void)ctx;
    return now_ms;
}

/* An allocator that can be told to fail: every allocation (an interrupted
 * run), or only the fail_at-th one counted from alloc_count = 0. */
static int fail_allocs;
static long alloc_count, fail_at;
static void *flaky_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    if (n == 0) {
        free(p);
        return NULL;
    }
    if (fail_allocs || (fail_at > 0 && ++alloc_count == fail_at)) return NULL;
    return realloc(p, n);
}

static am_db *open_with(const char *embedder)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = db_path;
    cfg.clock = test_clock;
    cfg.realloc = flaky_realloc;
    cfg.embedder = embedder;
    am_db *db = NULL;
    char *err = NULL;
    int rc = am_open(&cfg, &db, &err);
    if (rc) fprintf(stderr, "open %s: %s\n", embedder ? embedder : "(none)", err);
    CHECK_EQ_INT(rc, AM_OK);
    am_free(err);
    return db;
}

static char *spec(const char *table)
{
    static char buf[2][160];
    static int next;
    char *p = buf[next++ % 2];
    snprintf(p, sizeof buf[0], "w2v:%s", table);
    return p;
}

static void add(am_db *db, const char *user, const char *at, const char *text, char *id_out)
{
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = user;
    ev.occurred_at = at;
    ev.text = text;
    CHECK_EQ_INT(am_time_parse(at, &now_ms, NULL), AM_OK);
    am_add_info info;
    int rc = am_add_event(db, &ev, &info);
    if (rc) fprintf(stderr, "add \"%s\": %s\n", text, am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
    if (id_out) snprintf(id_out, 32, "%s", info.event_id);
}

static size_t missing(am_db *db, const char *user)
{
    size_t n = 12345;
    int rc = am_vectors_missing(db, user, &n);
    if (rc) fprintf(stderr, "vectors_missing: %s\n", am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
    return n;
}

typedef struct progress_log {
    int calls;
    size_t done[16], total[16];
    int fail_after; /* > 0: make allocations fail after that call */
} progress_log;

static void on_progress(void *ctx, size_t done, size_t total)
{
    progress_log *p = ctx;
    if (p->calls < 16) {
        p->done[p->calls] = done;
        p->total[p->calls] = total;
    }
    p->calls++;
    if (p->fail_after && p->calls == p->fail_after) fail_allocs = 1;
}

/* Checks that the log shows 0, then increasing counts up to total. */
static void check_progress(const progress_log *p, size_t total, int calls)
{
    CHECK_EQ_INT(p->calls, calls);
    for (int i = 0; i < p->calls && i < 16; i++) {
        CHECK_EQ_INT(p->total[i], total);
        if (i == 0) CHECK_EQ_INT(p->done[i], 0);
        else CHECK(p->done[i] > p->done[i - 1]);
    }
    if (p->calls > 0 && p->calls <= 16) CHECK_EQ_INT(p->done[p->calls - 1], total);
}

static int recalls(am_db *db, const char *user, const char *text, const char *needle)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = user;
    q.text = text;
    q.no_touch = 1;
    am_recall_result *r = NULL;
    int rc = am_recall(db, &q, &r);
    if (rc) fprintf(stderr, "recall: %s\n", am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
    int found = 0;
    for (size_t i = 0; r && i < r->n_events; i++)
        if (strstr(r->events[i].content, needle)) found = 1;
    am_recall_free(r);
    return found;
}

/* The stored vector of an event, dequantised; 0 when it has none. */
static int stored_vector(const char *event_id, char *embedder, size_t elen, float *v)
{
    sqlite3 *s;
    sqlite3_stmt *st;
    int got = 0;
    if (sqlite3_open_v2(db_path, &s, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return 0;
    if (sqlite3_prepare_v2(s, "SELECT v.embedder, v.scale, v.vec FROM event_vectors v"
                              " JOIN events e ON e.rid = v.event_rid WHERE e.id = ?",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, event_id, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 2) == DIM) {
            snprintf(embedder, elen, "%s", (const char *)sqlite3_column_text(st, 0));
            const signed char *q = sqlite3_column_blob(st, 2);
            for (int k = 0; k < DIM; k++) v[k] = (float)(q[k] * sqlite3_column_double(st, 1));
            got = 1;
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(s);
    return got;
}

static void exec_sql(const char *sql)
{
    sqlite3 *s;
    char *msg = NULL;
    CHECK_EQ_INT(sqlite3_open(db_path, &s), SQLITE_OK);
    int rc = sqlite3_exec(s, sql, NULL, NULL, &msg);
    if (rc) fprintf(stderr, "%s: %s\n", sql, msg);
    CHECK_EQ_INT(rc, SQLITE_OK);
    sqlite3_free(msg);
    sqlite3_close(s);
}

static int vectors_in_table(void)
{
    sqlite3 *s;
    sqlite3_stmt *st;
    int n = -1;
    if (sqlite3_open_v2(db_path, &s, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return -1;
    if (sqlite3_prepare_v2(s, "SELECT count(*) FROM event_vectors", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(s);
    return n;
}

static char secret_id[32];

/* Written without an embedder: alice 40 events (39 English, 1 Chinese),
 * bob 2 (1 + 1). */
static void test_write_without_embedder(void)
{
    unlink(db_path);
    am_db *db = open_with(NULL);
    if (!db) return;
    add(db, "alice", "2026-03-01T10:00:00+08:00", "I went hiking in the mountains last weekend",
        NULL);
    add(db, "alice", "2026-03-01T10:05:00+08:00", "周末我们去爬山了", NULL);
    add(db, "alice", "2026-03-01T10:10:00+08:00", "The wifi password for guests is hunter2",
        secret_id);
    for (int i = 0; i < N_FILLER; i++) {
        char text[64], at[40];
        snprintf(text, sizeof text, "Garden note %d: watered the tomatoes", i + 1);
        snprintf(at, sizeof at, "2026-03-02T%02d:%02d:00+08:00", 8 + i / 60, i % 60);
        add(db, "alice", at, text, NULL);
    }
    add(db, "bob", "2026-03-01T11:00:00+08:00", "I prefer coffee without sugar", NULL);
    add(db, "bob", "2026-03-01T11:05:00+08:00", "周报每周五交", NULL);
    CHECK_EQ_INT(missing(db, "alice"), 0); /* no embedder: nothing is missing */
    CHECK_EQ_INT(missing(db, NULL), 0);
    size_t n = 99;
    CHECK_EQ_INT(am_reembed(db, "alice", NULL, NULL, &n), AM_MISUSE);
    CHECK_CONTAINS(am_errmsg(db), "no embedder");
    CHECK_EQ_INT(n, 0);
    CHECK_EQ_INT(vectors_in_table(), 0);
    am_close(db);
}

static void test_errors(void)
{
    am_db *db = open_with(spec(table_a));
    if (!db) return;
    size_t n = 7;
    CHECK_EQ_INT(am_reembed(db, "nobody", NULL, NULL, &n), AM_NOTFOUND);
    CHECK_CONTAINS(am_errmsg(db), "unknown user nobody");
    CHECK_EQ_INT(n, 0);
    CHECK_EQ_INT(am_vectors_missing(db, "nobody", &n), AM_NOTFOUND);
    CHECK_EQ_INT(am_reembed(db, " bad id", NULL, NULL, NULL), AM_INVALID);
    CHECK_EQ_INT(am_vectors_missing(db, "alice", NULL), AM_MISUSE);
    CHECK_EQ_INT(am_vectors_missing(NULL, "alice", &n), AM_MISUSE);
    CHECK_EQ_INT(am_reembed(NULL, NULL, NULL, NULL, NULL), AM_MISUSE);
    CHECK_EQ_INT(vectors_in_table(), 0);
    am_close(db);
}

static void test_reembed_one_user_then_all(void)
{
    am_db *db = open_with(spec(table_a));
    if (!db) return;
    CHECK_EQ_INT(missing(db, "alice"), 40);
    CHECK_EQ_INT(missing(db, "bob"), 2);
    CHECK_EQ_INT(missing(db, NULL), 42);
    /* before: the old event is invisible to vector recall, and no word of
     * the question is in it */
    CHECK(!recalls(db, "alice", "Any trekking among peaks planned?", "hiking"));

    progress_log p = {0};
    size_t n = 0;
    int rc = am_reembed(db, "alice", on_progress, &p, &n);
    if (rc) fprintf(stderr, "reembed: %s\n", am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
    CHECK_EQ_INT(n, 40);
    check_progress(&p, 40, 3); /* 0, 32, 40 */
    CHECK_EQ_INT(p.done[1], AM_REEMBED_BATCH);
    CHECK_EQ_INT(missing(db, "alice"), 0);
    CHECK_EQ_INT(missing(db, "bob"), 2);
    CHECK(recalls(db, "alice", "Any trekking among peaks planned?", "hiking"));
    CHECK(!recalls(db, "bob", "Any trekking among peaks planned?", "hiking"));

    memset(&p, 0, sizeof p);
    CHECK_EQ_INT(am_reembed(db, NULL, on_progress, &p, &n), AM_OK);
    CHECK_EQ_INT(n, 2);
    check_progress(&p, 2, 2);
    CHECK_EQ_INT(missing(db, NULL), 0);
    CHECK(recalls(db, "bob", "Do I like a latte?", "coffee"));
    /* nothing left: a second run embeds nothing and reports no progress */
    memset(&p, 0, sizeof p);
    n = 99;
    CHECK_EQ_INT(am_reembed(db, NULL, on_progress, &p, &n), AM_OK);
    CHECK_EQ_INT(n, 0);
    CHECK_EQ_INT(p.calls, 0);
    CHECK_EQ_INT(vectors_in_table(), 42);
    am_close(db);
}

/* The vector is of the stored (redacted) text: the same the write path
 * stores for the same text, and not the original's. */
static void test_redacted_text(void)
{
    am_db *db = open_with(spec(table_a));
    if (!db) return;
    char fresh_id[32];
    add(db, "alice", "2026-03-03T10:10:00+08:00", "The wifi password for guests is hunter2",
        fresh_id);
    float old_v[DIM], new_v[DIM], orig[DIM], red[DIM];
    char e1[128] = "", e2[128] = "", err[256];
    CHECK(stored_vector(secret_id, e1, sizeof e1, old_v));
    CHECK(stored_vector(fresh_id, e2, sizeof e2, new_v));
    CHECK_EQ_STR(e1, e2);
    CHECK_EQ_STR(e1, "w2v:a.txt:10");
    for (int k = 0; k < DIM; k++) CHECK_NEAR(old_v[k], new_v[k], 1e-6);
    am__embedder *e = NULL;
    CHECK_EQ_INT(am__embed_w2v_open(table_a, &e, err, sizeof err), AM_OK);
    if (e) {
        const char *texts[2] = {"The wifi password for guests is hunter2",
                                "The wifi password for guests is [SECRET]"};
        float both[2 * DIM];
        CHECK_EQ_INT(e->embed(e, texts, 2, both, err, sizeof err), AM_OK);
        memcpy(orig, both, sizeof orig);
        memcpy(red, both + DIM, sizeof red);
        for (int k = 0; k < DIM; k++) CHECK_NEAR(old_v[k], red[k], 0.01);
        CHECK(orig[8] > 0.1);      /* the secret's axis */
        CHECK_NEAR(old_v[8], 0, 1e-6);
        am__embedder_close(e);
    }
    am_close(db);
}

/* Another embedder: every event is missing again; an interrupted run keeps
 * its finished batch and a rerun does the rest; the old vectors are
 * replaced (one per event), so the first embedder misses them all. */
static void test_switch_and_resume(void)
{
    am_db *db = open_with(spec(table_b));
    if (!db) return;
    CHECK_EQ_INT(missing(db, NULL), 43);
    progress_log p = {0};
    p.fail_after = 2; /* after the first batch */
    size_t n = 0;
    int rc = am_reembed(db, NULL, on_progress, &p, &n);
    fail_allocs = 0;
    CHECK_EQ_INT(rc, AM_NOMEM);
    CHECK_EQ_INT(n, AM_REEMBED_BATCH);
    CHECK_EQ_INT(p.calls, 2);
    CHECK_EQ_INT(missing(db, NULL), 43 - AM_REEMBED_BATCH);
    memset(&p, 0, sizeof p);
    CHECK_EQ_INT(am_reembed(db, NULL, on_progress, &p, &n), AM_OK);
    CHECK_EQ_INT(n, 43 - AM_REEMBED_BATCH);
    check_progress(&p, 43 - AM_REEMBED_BATCH, 2);
    CHECK_EQ_INT(missing(db, NULL), 0);
    CHECK(recalls(db, "alice", "Any trekking among peaks planned?", "hiking"));
    am_close(db);
    CHECK_EQ_INT(vectors_in_table(), 43);
    db = open_with(spec(table_a));
    if (!db) return;
    CHECK_EQ_INT(missing(db, NULL), 43);
    CHECK_EQ_INT(missing(db, "bob"), 2);
    am_close(db);
}

/* Torture (STYLE): the Nth allocation of a run fails, for every N until a
 * run completes.  Each failed run returns AM_NOMEM, and what it reports
 * done is done: whole batches only, and missing drops by exactly that. */
static void test_every_allocation_can_fail(void)
{
    am_db *db = open_with(spec(table_c));
    if (!db) return;
    int completed = 0;
    for (long k = 1; k <= 1000 && !completed; k++) {
        exec_sql("DELETE FROM event_vectors");
        CHECK_EQ_INT(missing(db, NULL), 43);
        size_t n = 99;
        alloc_count = 0;
        fail_at = k;
        int rc = am_reembed(db, NULL, NULL, NULL, &n);
        completed = alloc_count < k;
        fail_at = 0;
        if (completed) {
            CHECK_EQ_INT(rc, AM_OK);
        } else {
            CHECK_EQ_INT(rc, AM_NOMEM);
            CHECK_CONTAINS(am_errmsg(db), "out of memory");
        }
        CHECK(n == 0 || n == AM_REEMBED_BATCH || n == 43);
        CHECK_EQ_INT(missing(db, NULL), 43 - n);
    }
    CHECK(completed);
    CHECK_EQ_INT(missing(db, NULL), 0);
    am_close(db);
}

/* USE-lite does not represent Chinese: those events are not missing for
 * it (the write path gives them no vector either). */
static void test_english_only_embedder(void)
{
    FILE *f = fopen("models/use-lite/model.json", "r");
    if (!f) {
        printf("skip test_english_only_embedder: no models/use-lite\n");
        return;
    }
    fclose(f);
    am_db *db = open_with("use-lite:models/use-lite");
    if (!db) return;
    CHECK_EQ_INT(missing(db, "alice"), 40); /* 41 events, 1 Chinese */
    CHECK_EQ_INT(missing(db, "bob"), 1);
    size_t n = 0;
    CHECK_EQ_INT(am_reembed(db, "bob", NULL, NULL, &n), AM_OK);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(missing(db, "bob"), 0);
    CHECK_EQ_INT(missing(db, "alice"), 40);
    am_close(db);
}

/* The store keeps recently scanned users' vectors in memory
 * (store/sqlite/vec_cache.c); recall must see exactly what the file holds:
 * events added after the cache was built, not those of a rolled-back
 * batch, those written by another connection, and not forgotten ones.
 * Queries share no word with the events: only vectors can find them. */
static void test_vector_cache_stays_true(void)
{
    char saved[128];
    snprintf(saved, sizeof saved, "%s", db_path);
    snprintf(db_path, sizeof db_path, "%s/cache.db", tmp_dir);
    am_db *db = open_with(spec(table_a));
    add(db, "carol", "2026-03-01T10:00:00+08:00", "hiking", NULL);
    CHECK(recalls(db, "carol", "trekking", "hiking"));   /* builds the cache */
    add(db, "carol", "2026-03-01T11:00:00+08:00", "咖啡", NULL);
    CHECK(recalls(db, "carol", "latte", "咖啡"));        /* appended */
    /* a batch that fails at its second event writes nothing */
    am_event ev[2];
    memset(ev, 0, sizeof ev);
    ev[0].user_id = ev[1].user_id = "carol";
    ev[0].text = "周报";
    ev[1].text = "bad \xff";
    CHECK_EQ_INT(am_add_events(db, ev, 2, NULL), AM_INVALID);
    CHECK(!recalls(db, "carol", "summary", "周报"));
    /* the next event takes the rolled-back row id: only its own vector */
    add(db, "carol", "2026-03-01T11:30:00+08:00", "weekend", NULL);
    CHECK(recalls(db, "carol", "周末", "weekend"));
    CHECK(!recalls(db, "carol", "summary", "weekend"));
    /* another connection writes; this one sees it */
    am_db *other = open_with(spec(table_a));
    add(other, "carol", "2026-03-01T12:00:00+08:00", "garden", NULL);
    am_close(other);
    CHECK(recalls(db, "carol", "tomatoes", "garden"));
    /* forgotten: gone from vector recall too */
    char id[32];
    add(db, "carol", "2026-03-01T13:00:00+08:00", "mountains", id);
    CHECK(recalls(db, "carol", "peaks", "mountains"));
    CHECK_EQ_INT(am_forget(db, "carol", AM_FORGET_EVENT, id, NULL), AM_OK);
    CHECK(!recalls(db, "carol", "peaks", "mountains"));
    CHECK(recalls(db, "carol", "trekking", "hiking"));
    /* a batch's vectors are computed before its transaction: each event
     * gets its own */
    ev[0].text = "latte";
    ev[1].text = "summary";
    CHECK_EQ_INT(am_add_events(db, ev, 2, NULL), AM_OK);
    CHECK(recalls(db, "carol", "coffee", "latte"));
    CHECK(recalls(db, "carol", "report", "summary"));
    CHECK(!recalls(db, "carol", "report", "latte"));
    am_close(db);
    snprintf(db_path, sizeof db_path, "%s", saved);
}

static void rm_tmp(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", tmp_dir);
}

/* Reciprocal-rank fusion (rank.rrf_k > 0): a turn only the vectors find
 * ("trekking" -> "hiking") joins the lexical hits, and the scores are
 * ranks, at most 1 (first in both lists), best first -- zh and en. */
static void rrf_fuses(const char *vector_only, const char *lexical, const char *question,
                      const char *needle_v, const char *needle_l)
{
    char saved[128];
    snprintf(saved, sizeof saved, "%s", db_path);
    snprintf(db_path, sizeof db_path, "%s/rrf.db", tmp_dir);
    remove(db_path);
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = db_path;
    cfg.clock = test_clock;
    cfg.embedder = spec(table_a);
    cfg.rank.rrf_k = 60;
    am_db *db = NULL;
    char *err = NULL;
    CHECK_EQ_INT(am_open(&cfg, &db, &err), AM_OK);
    am_free(err);
    add(db, "dora", "2026-03-01T10:00:00+08:00", vector_only, NULL);
    add(db, "dora", "2026-03-02T10:00:00+08:00", lexical, NULL);
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = "dora";
    q.text = question;
    q.no_touch = 1;
    am_recall_result *r = NULL;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
    int found_v = 0, found_l = 0;
    for (size_t i = 0; r && i < r->n_events; i++) {
        found_v |= strstr(r->events[i].content, needle_v) != NULL;
        found_l |= strstr(r->events[i].content, needle_l) != NULL;
        CHECK(r->events[i].score > 0 && r->events[i].score <= 1.0 + 1e-9);
        if (i) CHECK(r->events[i].score <= r->events[i - 1].score);
    }
    CHECK(found_v && found_l);
    /* the turn first in both lists scores 1; the one only the vectors
     * found, second there: w / (k + 2), over 1 / (k + 1) */
    CHECK(r && r->n_events >= 2 && strstr(r->events[0].content, needle_l));
    CHECK(r && r->n_events >= 2 && fabs(r->events[0].score - 1.0) < 1e-9);
    CHECK(r && r->n_events >= 2 &&
          fabs(r->events[1].score - cfg.rank.w_vector * 61.0 / 62.0) < 1e-9);
    am_recall_free(r);
    am_close(db);
    snprintf(db_path, sizeof db_path, "%s", saved);
}

static void test_rrf_fusion(void)
{
    rrf_fuses("I went hiking in the mountains last weekend", "New trekking poles arrived today",
              "Any trekking planned?", "hiking", "poles");
    rrf_fuses("上周末我们去爬山了", "新买的徒步鞋今天到了", "最近有徒步计划吗？", "爬山", "徒步鞋");
}

int main(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/am_test_reembed_XXXXXX");
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 2;
    }
    snprintf(table_a, sizeof table_a, "%s/a.txt", tmp_dir);
    snprintf(table_b, sizeof table_b, "%s/b.txt", tmp_dir);
    snprintf(table_c, sizeof table_c, "%s/c.txt", tmp_dir);
    snprintf(db_path, sizeof db_path, "%s/t.db", tmp_dir);
    write_table(table_a, 0.0f);
    write_table(table_b, 0.05f);
    write_table(table_c, 0.1f);
    RUN(test_write_without_embedder);
    RUN(test_errors);
    RUN(test_reembed_one_user_then_all);
    RUN(test_redacted_text);
    RUN(test_switch_and_resume);
    RUN(test_every_allocation_can_fail);
    RUN(test_english_only_embedder);
    RUN(test_vector_cache_stays_true);
    RUN(test_rrf_fusion);
    rm_tmp();
    TEST_MAIN_END();
}
