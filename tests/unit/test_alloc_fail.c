/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_alloc_fail.c -- every allocation can fail (STYLE: libcurl's
 * "torture" tests).  An injected allocator fails the Nth allocation, for
 * every N until a run completes: each public call must return an error
 * code (never crash), leave the handle usable, and leak nothing (the ASan
 * run checks leaks).  Only the library's own allocations go through the
 * injected allocator; SQLite, ICU and utf8proc keep theirs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentmem.h"
#include "test.h"

static long alloc_count, fail_at, free_count;

static void *torture_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    if (n == 0) {
        if (p) free_count++;
        free(p);
        return NULL;
    }
    if (fail_at > 0 && ++alloc_count == fail_at) return NULL;
    return realloc(p, n);
}

static am_time fixed(void *ctx)
{
    (void)ctx;
    return 1772000000000LL;
}

/* One scripted session; returns 1 when it ran to the end without an
 * allocation failure being hit. */
static int script(void)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = ":memory:";
    cfg.clock = fixed;
    cfg.realloc = torture_realloc;
    am_db *db = NULL;
    char *err = NULL;
    int rc = am_open(&cfg, &db, &err);
    am_free(err);
    if (rc) {
        CHECK(db == NULL);
        CHECK(rc == AM_NOMEM || rc == AM_BACKEND || rc == AM_IO);
        return 0;
    }
    int ok = 1;
    static const char *const texts[] = {
        "以后周报都按已完成、进行中、下周计划三段写，结论放最前面",
        "这次用要点式就行", "From now on, always send the report as a PDF.",
        "我的手机是13812345678，周五下午三点和张总开会", "Put the vendor review on hold",
    };
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = "u1";
    q.session_id = "s2";
    q.text = "接着把周报弄完";
    am_recall_result *r = NULL;
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        if (i == 2) { /* the searched terms' lists are held, and kept by the writes after */
            rc = am_recall(db, &q, &r);
            if (rc) { CHECK(r == NULL); ok = 0; }
            am_recall_free(r);
            r = NULL;
        }
        am_event ev;
        memset(&ev, 0, sizeof ev);
        ev.user_id = "u1";
        ev.session_id = "s1";
        ev.task_id = "weekly-report";
        ev.text = texts[i];
        am_add_info info;
        rc = am_add_event(db, &ev, &info);
        if (rc) { CHECK(rc == AM_NOMEM || rc == AM_BACKEND); ok = 0; }
    }
    rc = am_recall(db, &q, &r);
    if (rc) { CHECK(r == NULL); ok = 0; }
    am_recall_free(r);
    am_memory_list *l = NULL;
    rc = am_memories(db, "u1", AM_LIST_ALL, NULL, &l);
    if (rc) ok = 0;
    am_memory_list_free(l);
    am_task *t = NULL;
    rc = am_task_get(db, "u1", "weekly-report", &t);
    if (rc) ok = 0;
    am_task_free(t);
    char *json = NULL;
    rc = am_export(db, "u1", &json);
    if (rc) ok = 0;
    am_free(json);
    rc = am_forget(db, "u1", AM_FORGET_SESSION, "s1", NULL);
    if (rc) ok = 0;
    am_close(db);
    return ok;
}

static void test_every_allocation_can_fail(void)
{
    long n;
    for (n = 1; n < 100000; n++) {
        alloc_count = 0;
        fail_at = n;
        if (script() && alloc_count < n) break; /* no failure was injected */
    }
    printf("allocation failures injected: %ld\n", n - 1);
    CHECK(n > 10);        /* the script allocates: failures were injected */
    CHECK(n < 100000);    /* and eventually a run completed */
}

/* Owned results (export's JSON, am_open's message) come from the injected
 * allocator and am_free hands them back to it; the recall's JSON is built
 * with it too, so the torture run above reaches every one of them. */
static void test_owned_results_use_the_allocator(void)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = "/nonexistent-dir/x/y.db";
    cfg.clock = fixed;
    cfg.realloc = torture_realloc;
    cfg.must_exist = 1;
    fail_at = 0;
    am_db *db = NULL;
    char *err = NULL;
    CHECK(am_open(&cfg, &db, &err) != AM_OK);
    CHECK(err != NULL);
    long before = free_count;
    am_free(err);
    CHECK_EQ_INT((int)(free_count - before), 1);

    cfg.path = ":memory:";
    cfg.must_exist = 0;
    CHECK_EQ_INT(am_open(&cfg, &db, NULL), AM_OK);
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = "u1";
    ev.session_id = "s1";
    ev.text = "以后周报都用要点式 -- from now on, reports as bullet points";
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_OK);
    char *json = NULL;
    CHECK_EQ_INT(am_export(db, "u1", &json), AM_OK);
    CHECK_CONTAINS(json, "要点式");
    before = free_count;
    am_free(json);
    CHECK_EQ_INT((int)(free_count - before), 1);
    /* the recall's JSON: every allocation of the call goes through the
     * allocator, so failing each in turn ends in AM_NOMEM, never in a
     * result without JSON; and a failure leaves nothing sticky behind
     * (the store's query buffer once stayed out of memory for good, so
     * every later recall failed: the loop never ended) */
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = "u1";
    q.text = "周报用什么格式? report format?";
    q.no_touch = 1;
    long n;
    for (n = 1; n < 10000; n++) {
        am_recall_result *r = NULL;
        alloc_count = 0;
        fail_at = n;
        int rc = am_recall(db, &q, &r);
        fail_at = 0;
        if (rc == AM_OK) {
            CHECK(r && r->json && strstr(r->json, "\"block\""));
            am_recall_free(r);
            if (alloc_count < n) break;
        } else {
            CHECK_EQ_INT(rc, AM_NOMEM);
            CHECK(r == NULL);
        }
    }
    printf("recall: allocation failures injected: %ld\n", n - 1);
    CHECK(n < 10000);
    am_close(db);
}

int main(void)
{
    RUN(test_every_allocation_can_fail);
    RUN(test_owned_results_use_the_allocator);
    TEST_MAIN_END();
}
