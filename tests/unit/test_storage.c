/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_storage.c -- storage grows linearly.
 *
 * A statement said N times, zh and en: once its confidence stops growing
 * no version is added, and a version lists a bounded number of sources
 * (the first and the latest, store.h) while counting all of them -- the
 * store used to copy every earlier source into each new version, N
 * versions and N(N+1)/2 item_sources rows.  Forgetting a listed source
 * lowers the count; forgetting every source removes the item.  Export
 * streams: am_export_stream writes the same bytes as am_export while the
 * library's live memory stays far below the document's size (a counting
 * allocator), a refusing sink stops it with AM_IO, and an unknown user
 * writes nothing.  Real SQLite files, read back with sqlite3 directly.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "api_util.h"
#include "store/store.h"

static char path[256];

/* ---------------------------------------------------- counting allocator */

/* Live bytes of the library's own allocations, and their peak: each block
 * carries its size in a header. */
static size_t live, peak;
#define HDR 16

static void *count_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    size_t old = 0;
    char *base = p ? (char *)p - HDR : NULL;
    if (base) memcpy(&old, base, sizeof old);
    if (n == 0) {
        live -= old;
        free(base);
        return NULL;
    }
    char *q = realloc(base, n + HDR);
    if (!q) return NULL;
    memcpy(q, &n, sizeof n);
    live = live - old + n;
    if (live > peak) peak = live;
    return q + HDR;
}

static am_db *open_file(int counting)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = path;
    cfg.clock = test_clock;
    if (counting) cfg.realloc = count_realloc;
    return open_checked(&cfg);
}

static void fresh_path(const char *tag)
{
    snprintf(path, sizeof path, "/tmp/am_test_storage_%s_%d.db", tag, (int)getpid());
    char side[300];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}

static long long sql_int(const char *sql)
{
    sqlite3 *db = NULL;
    long long v = -1;
    CHECK_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    CHECK_EQ_INT(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    if (st && sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* ------------------------------------------------------ repetitions */

/* Event k of a run, one a minute from 2026-03-02 09:00 (+08:00), a
 * session of its own each ten. */
static am_add_info add_nth(am_db *db, const char *user, int k, const char *text)
{
    char at[40], session[16];
    snprintf(at, sizeof at, "2026-03-%02dT%02d:%02d:00+08:00", 2 + k / 600, 9 + k / 60 % 10,
             k % 60);
    snprintf(session, sizeof session, "s%d", k / 10);
    return add(db, user, session, NULL, at, text);
}

/* The user's current item: its count, listed sources and the ids of
 * the first and the last one listed. */
static void current_item(am_db *db, const char *user, long *count, size_t *listed, char *first,
                         char *last)
{
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories(db, user, AM_LIST_ACTIVE, NULL, &l), AM_OK);
    *count = -1;
    *listed = 0;
    first[0] = last[0] = 0;
    CHECK(l && l->n == 1);
    if (l && l->n == 1) {
        *count = l->items[0].source_count;
        *listed = l->items[0].n_sources;
        if (*listed) {
            snprintf(first, 32, "%s", l->items[0].source_event_ids[0]);
            snprintf(last, 32, "%s", l->items[0].source_event_ids[*listed - 1]);
        }
        CHECK(strstr(l->json, "\"source_count\":") != NULL);
    }
    am_memory_list_free(l);
}

static void repeat_linear(const char *lang, const char *statement, const char *question,
                          const char *want)
{
    fresh_path(lang);
    am_db *db = open_file(0);
    const int n1 = 40, n2 = 160;
    const size_t bound = AM__ITEM_SOURCES_FIRST + AM__ITEM_SOURCES_LAST;
    char first_id[32] = "", last_id[32] = "";
    long long versions1 = 0, rows1 = 0;
    for (int k = 0; k < n2; k++) {
        am_add_info info = add_nth(db, "u", k, statement);
        if (k == 0) snprintf(first_id, sizeof first_id, "%s", info.event_id);
        snprintf(last_id, sizeof last_id, "%s", info.event_id);
        if (k + 1 == n1) {
            versions1 = sql_int("SELECT count(*) FROM memory_items");
            rows1 = sql_int("SELECT count(*) FROM item_sources");
        }
    }
    long long versions2 = sql_int("SELECT count(*) FROM memory_items");
    long long rows2 = sql_int("SELECT count(*) FROM item_sources");
    fprintf(stderr, "%s: %d repeats: %lld versions, %lld source rows; %d: %lld, %lld\n", lang,
            n1, versions1, rows1, n2, versions2, rows2);
    /* confidence grows for a few repetitions, then nothing changes */
    CHECK(versions1 >= 1 && versions1 <= 8);
    CHECK_EQ_INT(versions2, versions1);
    /* no version lists more than the bound; three times the repetitions
     * add no row at all (the latest replace the oldest of the latest) */
    CHECK(rows1 <= versions1 * (long long)bound);
    CHECK_EQ_INT(rows2, rows1);
    CHECK_EQ_INT(sql_int("SELECT max(c) FROM (SELECT count(*) AS c FROM item_sources GROUP BY item_rid)"),
                 (long long)bound);
    long count;
    size_t listed;
    char first[32], last[32];
    current_item(db, "u", &count, &listed, first, last);
    CHECK_EQ_INT(count, n2);
    CHECK_EQ_INT(listed, bound);
    CHECK_EQ_STR(first, first_id);
    CHECK_EQ_STR(last, last_id);
    /* still recalled */
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = "u";
    q.text = question;
    am_recall_result *res = NULL;
    CHECK_EQ_INT(am_recall(db, &q, &res), AM_OK);
    CHECK(res && res->n_memories >= 1);
    if (res && res->n_memories >= 1) CHECK_CONTAINS(res->memories[0].text, want);
    am_recall_free(res);
    /* forgetting a listed source counts it out; the item stays */
    am_forget_info fi;
    CHECK_EQ_INT(am_forget(db, "u", AM_FORGET_EVENT, last_id, &fi), AM_OK);
    current_item(db, "u", &count, &listed, first, last);
    CHECK_EQ_INT(count, n2 - 1);
    CHECK_EQ_INT(listed, bound - 1);
    /* forgetting every source (session by session) removes the item */
    for (int s = 0; s < n2 / 10; s++) {
        char session[16];
        snprintf(session, sizeof session, "s%d", s);
        CHECK_EQ_INT(am_forget(db, "u", AM_FORGET_SESSION, session, &fi), AM_OK);
    }
    CHECK_EQ_INT(sql_int("SELECT count(*) FROM memory_items"), 0);
    CHECK_EQ_INT(sql_int("SELECT count(*) FROM item_sources"), 0);
    am_close(db);
    unlink(path);
}

/* ------------------------------------------------------ index rows of a batch */

/* events_fts as text: every row's rowid, doc and ctx, in rowid order, as
 * its content table holds them (a hash of them, and their number; a raw
 * connection has no am_cjk tokenizer to open events_fts with) */
static void fts_rows(unsigned long long *hash, long long *n)
{
    sqlite3 *db = NULL;
    *hash = 1469598103934665603ull;
    *n = 0;
    CHECK_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    CHECK_EQ_INT(sqlite3_prepare_v2(db, "SELECT id, c1, c2 FROM events_fts_content ORDER BY id",
                                    -1, &st, NULL), SQLITE_OK);
    while (st && sqlite3_step(st) == SQLITE_ROW) {
        char rid[32];
        snprintf(rid, sizeof rid, "%lld|", (long long)sqlite3_column_int64(st, 0));
        const char *parts[3] = {rid, (const char *)sqlite3_column_text(st, 1),
                                (const char *)sqlite3_column_text(st, 2)};
        for (int k = 0; k < 3; k++)
            for (const char *c = parts[k] ? parts[k] : ""; ; c++) {
                *hash = (*hash ^ (unsigned char)*c) * 1099511628211ull;
                if (!*c) break;
            }
        (*n)++;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static const char *const batch_texts[] = {
    "我下周三要去上海出差", "记得提醒我订酒店", "好的，已记下出差安排",
    "From now on, send the weekly report as a PDF", "yes, the blue one", "noted: PDF reports",
};
#define N_BATCH (sizeof batch_texts / sizeof *batch_texts)

static void batch_event(am_event *e, size_t k, char *at, const char *id)
{
    memset(e, 0, sizeof *e);
    sprintf(at, "2026-03-02T09:%02d:00+08:00", (int)k);
    e->user_id = "u";
    e->session_id = k < 3 ? "s-zh" : "s-en";
    e->source = k % 3 == 2 ? "agent" : "user";
    e->text = batch_texts[k];
    e->occurred_at = at;
    e->event_id = id;
}

/* A write transaction's index rows wait in memory and go in at its commit
 * (store/sqlite/events.c): a batch -- whose turns join each other's
 * context while they wait -- indexes exactly what the same events added
 * one by one index (each appending to a committed row), in Chinese and
 * English; a batch refused part-way leaves no row of it behind, and
 * nothing of it reaches a later commit. */
static void test_batch_index_rows(void)
{
    char at[N_BATCH][40], ids[N_BATCH][16];
    am_event evs[N_BATCH];
    am_add_info infos[N_BATCH];
    for (size_t k = 0; k < N_BATCH; k++) {
        snprintf(ids[k], sizeof ids[k], "e%zu", k);
        batch_event(&evs[k], k, at[k], ids[k]);
    }
    unsigned long long h_one, h_batch;
    long long n_one, n_batch;
    fresh_path("one");
    am_db *db = open_file(0);
    for (size_t k = 0; k < N_BATCH; k++) CHECK_EQ_INT(am_add_event(db, &evs[k], &infos[k]), AM_OK);
    am_close(db);
    fts_rows(&h_one, &n_one);
    unlink(path);
    fresh_path("batch");
    db = open_file(0);
    CHECK_EQ_INT(am_add_events(db, evs, N_BATCH, infos), AM_OK);
    am_close(db);
    fts_rows(&h_batch, &n_batch);
    CHECK_EQ_INT(n_one, (long long)N_BATCH);
    CHECK_EQ_INT(n_batch, n_one);
    CHECK(h_batch == h_one);
    /* the context did join: the turn before a turn holds it (appended
     * while both waited), and so does the turn after (its own window) */
    CHECK_EQ_INT(sql_int("SELECT count(*) FROM events_fts_content WHERE c2 LIKE '%yes, the blue one%'"), 2);
    CHECK_EQ_INT(sql_int("SELECT count(*) FROM events_fts_content WHERE c2 LIKE '%订酒店%'"), 2);
    CHECK_EQ_INT(sql_int("SELECT count(*) FROM events_fts_content WHERE id = 1 AND c2 LIKE '%订酒店%'"), 1);
    /* and the index holds them: recalls find a Chinese and an English turn */
    db = open_file(0);
    const char *const asks[2][2] = {{"我什么时候去上海出差？", "上海出差"},
                                    {"how should the weekly report be sent?", "PDF"}};
    for (int k = 0; k < 2; k++) {
        am_query q0;
        memset(&q0, 0, sizeof q0);
        q0.user_id = "u";
        q0.text = asks[k][0];
        am_recall_result *r0 = NULL;
        CHECK_EQ_INT(am_recall(db, &q0, &r0), AM_OK);
        CHECK(r0 && strstr(r0->block, asks[k][1]));
        am_recall_free(r0);
    }
    am_close(db);

    /* refused part-way: e6 is written, then e6 again with another text
     * refuses the batch inside its transaction */
    db = open_file(0);
    am_event bad[2];
    char at2[2][40];
    batch_event(&bad[0], 0, at2[0], "e6");
    bad[0].text = "独一无二的词语 zebraquartz 出现在被拒绝的批次里";
    batch_event(&bad[1], 1, at2[1], "e6");
    bad[1].text = "another text under a used id";
    am_add_info bi[2];
    CHECK_EQ_INT(am_add_events(db, bad, 2, bi), AM_INVALID);
    /* a later commit carries nothing of it */
    am_event ok;
    char at3[40];
    batch_event(&ok, 5, at3, "e7");
    ok.text = "a later event about the hotel";
    CHECK_EQ_INT(am_add_event(db, &ok, &infos[0]), AM_OK);
    am_close(db);
    CHECK_EQ_INT(sql_int("SELECT count(*) FROM events_fts_content"), (long long)N_BATCH + 1);
    CHECK_EQ_INT(sql_int("SELECT count(*) FROM events"), (long long)N_BATCH + 1);
    CHECK_EQ_INT(sql_int("SELECT count(*) FROM events_fts_content WHERE c1 LIKE '%zebraquartz%'"
                         " OR c2 LIKE '%zebraquartz%'"), 0);
    db = open_file(0);
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = "u";
    q.text = "zebraquartz 独一无二的词语";
    am_recall_result *res = NULL;
    CHECK_EQ_INT(am_recall(db, &q, &res), AM_OK);
    CHECK(res && !strstr(res->block, "zebraquartz"));
    am_recall_free(res);
    q.text = "where is the hotel event?";
    CHECK_EQ_INT(am_recall(db, &q, &res), AM_OK);
    CHECK(res && strstr(res->block, "a later event about the hotel"));
    am_recall_free(res);
    am_close(db);
    unlink(path);
}

static void test_repeat_linear_en(void)
{
    repeat_linear("en", "From now on, always send the weekly report as a PDF.",
                  "how should the weekly report be sent?", "PDF");
}

static void test_repeat_linear_zh(void)
{
    repeat_linear("zh", "以后周报都用表格格式，别用长段落。", "周报用什么格式？", "表格");
}

/* ------------------------------------------------------------ export */

typedef struct sink {
    char *p;
    size_t len, cap;
    int calls, refuse_after; /* refuse_after > 0: fail that call */
} sink;

static int to_sink(void *ctx, const char *data, size_t len)
{
    sink *s = ctx;
    if (s->refuse_after > 0 && ++s->calls >= s->refuse_after) return 1;
    if (s->len + len + 1 > s->cap) {
        size_t cap = (s->len + len + 1) * 2;
        char *p = realloc(s->p, cap);
        if (!p) return 1;
        s->p = p;
        s->cap = cap;
    }
    memcpy(s->p + s->len, data, len);
    s->len += len;
    s->p[s->len] = 0;
    return 0;
}

/* Live-memory peak of a streamed export of user (its bytes in *s). */
static size_t stream_peak(am_db *db, const char *user, sink *s)
{
    memset(s, 0, sizeof *s);
    peak = live;
    size_t base = live;
    CHECK_EQ_INT(am_export_stream(db, user, to_sink, s), AM_OK);
    return peak - base;
}

static void add_history(am_db *db, int from, int to)
{
    static const char *const zh[] = {"我下周要去成都出差，帮我订酒店。", "提醒我周五和李老师讨论预算方案。",
                                     "以后报表都用表格格式，别用长段落。", "王经理在上海的会上提到了采购合同。"};
    static const char *const en[] = {"Book me a flight to Lisbon for Monday.",
                                     "Send the budget plan to Alice by Friday.",
                                     "From now on, always send the report as a PDF.",
                                     "Remind me to review the hiring plan with Bob in Oslo."};
    char text[160];
    for (int k = from; k < to; k++) {
        snprintf(text, sizeof text, "%s (%d)", k % 2 ? zh[k / 2 % 4] : en[k / 2 % 4], k);
        add_nth(db, "big", k, k % 8 == 2 || k % 8 == 5 ? (k % 2 ? zh[2] : en[2]) : text);
    }
}

static void test_export_stream(void)
{
    fresh_path("export");
    am_db *db = open_file(1);
    const int n = 3000;
    add_history(db, 0, n / 3);
    add_nth(db, "other", 0, "My sister lives in Lisbon.");
    sink s;
    size_t peak_small = stream_peak(db, "big", &s);
    size_t doc_small = s.len;
    free(s.p);
    add_history(db, n / 3, n);
    /* the whole document at once: its size, and the memory it takes */
    char *whole = NULL;
    peak = live;
    size_t base = live;
    CHECK_EQ_INT(am_export(db, "big", &whole), AM_OK);
    size_t peak_whole = peak - base;
    size_t doc = whole ? strlen(whole) : 0;
    CHECK(doc > 2 * doc_small);
    CHECK(peak_whole >= doc); /* the counting works */
    /* streamed: the same bytes; memory that does not grow with them */
    size_t peak_big = stream_peak(db, "big", &s);
    fprintf(stderr, "export: %zu then %zu bytes; live peak streamed %zu then %zu, whole %zu\n",
            doc_small, doc, peak_small, peak_big, peak_whole);
    CHECK(s.len == doc && whole && s.p && memcmp(s.p, whole, doc) == 0);
    CHECK(peak_big < peak_small + peak_small / 4);
    CHECK(peak_big < doc / 3);
    CHECK(s.p && strstr(s.p, "以后报表都用表格格式") && strstr(s.p, "Lisbon for Monday"));
    CHECK(s.p && !strstr(s.p, "My sister lives"));
    am_free(whole);
    free(s.p);
    /* a sink that refuses stops the export: AM_IO, the handle usable */
    memset(&s, 0, sizeof s);
    s.refuse_after = 2;
    CHECK_EQ_INT(am_export_stream(db, "big", to_sink, &s), AM_IO);
    CHECK_CONTAINS(am_errmsg(db), "export");
    free(s.p);
    /* an unknown user or a bad id: an error and nothing written */
    memset(&s, 0, sizeof s);
    CHECK_EQ_INT(am_export_stream(db, "nobody", to_sink, &s), AM_NOTFOUND);
    CHECK_EQ_INT(am_export_stream(db, "", to_sink, &s), AM_INVALID);
    CHECK_EQ_INT(am_export_stream(db, "big", NULL, &s), AM_MISUSE);
    CHECK_EQ_INT(s.len, 0);
    free(s.p);
    /* still usable */
    am_add_info info = add_nth(db, "big", n, "我妈妈的生日是十月一号");
    CHECK(info.event_id[0] != 0);
    am_close(db);
    CHECK_EQ_INT(live, 0); /* nothing leaked */
    unlink(path);
}

int main(void)
{
    (void)open_mem; /* api_util.h's in-memory store: these tests need files */
    RUN(test_repeat_linear_en);
    RUN(test_repeat_linear_zh);
    RUN(test_export_stream);
    RUN(test_batch_index_rows);
    TEST_MAIN_END();
}
