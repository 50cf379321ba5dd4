/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_isolation.c -- isolation is absolute: thousands of
 * random operations for several users over a shared vocabulary (so every
 * query matches other users' data lexically), and no read -- recall,
 * memories, task, export -- ever returns another user's data.  Every text
 * carries its owner's marker; a foreign marker in any output fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentmem.h"
#include "test.h"

#define USERS 6
#define OPS 2500

static am_time now_ms;
static am_time clock_fn(void *ctx)
{
    (void)ctx;
    return now_ms;
}

static uint64_t rng = 88172645463325252ull;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static const char *const vocab[] = {
    "周报", "预算", "会议", "出差", "上海", "报告", "PDF", "Excel", "report", "budget",
    "meeting", "travel", "vendor", "draft", "三段", "结论", "invoice", "采购", "合同", "flight",
};
static const char *const templates[] = {
    "以后%s都用%s，标记%s", "From now on always send the %s as %s, tag %s",
    "这次%s先用%s，标记%s", "The %s about %s is done, tag %s", "记住：%s和%s很重要，标记%s",
    "Put the %s on hold, %s later, tag %s", "%s的%s草稿写了一半，标记%s",
};

static const char *marker(int u)
{
    static const char *const m[USERS] = {"zqa0", "zqb1", "zqc2", "zqd3", "zqe4", "zqf5"};
    return m[u];
}

static int foreign(const char *text, int u)
{
    for (int k = 0; k < USERS; k++)
        if (k != u && text && strstr(text, marker(k))) return 1;
    return 0;
}

static void check_clean(const char *what, const char *text, int u)
{
    if (foreign(text, u)) {
        fprintf(stderr, "LEAK in %s for user %d: %.200s\n", what, u, text);
        CHECK(0);
    }
}

static void test_random_ops_never_leak(void)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = ":memory:";
    cfg.clock = clock_fn;
    am_db *db;
    CHECK_EQ_INT(am_open(&cfg, &db, NULL), AM_OK);
    char users[USERS][24];
    for (int u = 0; u < USERS; u++) {
        snprintf(users[u], sizeof users[u], "user-%d", u);
        char ext[32];
        snprintf(ext, sizeof ext, "wx-%d", u);
        CHECK_EQ_INT(am_link(db, "wechat", ext, users[u]), AM_OK);
    }
    am_time_parse("2026-01-01T00:00:00Z", &now_ms, NULL);
    char event_ids[USERS][64][32];
    int n_ids[USERS] = {0};
    long reads = 0;
    for (int op = 0; op < OPS; op++) {
        int u = (int)rnd(USERS);
        now_ms += 60000 * (1 + rnd(600));
        char text[256], session[24], task[24];
        snprintf(session, sizeof session, "s%u", rnd(8));
        snprintf(task, sizeof task, "t%u", rnd(4));
        unsigned kind = rnd(100);
        if (kind < 45) {
            snprintf(text, sizeof text, templates[rnd(7)], vocab[rnd(20)], vocab[rnd(20)], marker(u));
            am_event ev;
            memset(&ev, 0, sizeof ev);
            char ext[32];
            snprintf(ext, sizeof ext, "wx-%d", u);
            if (rnd(2)) ev.user_id = users[u];
            else { ev.channel = "wechat"; ev.external_id = ext; }
            ev.session_id = session;
            ev.task_id = rnd(2) ? task : NULL;
            ev.text = text;
            am_add_info info;
            CHECK_EQ_INT(am_add_event(db, &ev, &info), AM_OK);
            CHECK_EQ_STR(info.user_id, users[u]);
            if (n_ids[u] < 64) snprintf(event_ids[u][n_ids[u]++], 32, "%s", info.event_id);
        } else if (kind < 75) {
            snprintf(text, sizeof text, "%s %s %s %s", vocab[rnd(20)], vocab[rnd(20)],
                     marker((u + 1) % USERS), rnd(2) ? "接着上次的" : "what did I say");
            am_query q;
            memset(&q, 0, sizeof q);
            q.user_id = users[u];
            q.text = text;
            q.session_id = session;
            q.max_events = 25;
            if (rnd(4) == 0) q.task_id = task;
            am_recall_result *r;
            CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
            /* the query names another user's marker on purpose: strip it
             * from the JSON check by checking returned records only */
            for (size_t i = 0; i < r->n_events; i++) check_clean("recall event", r->events[i].content, u);
            for (size_t i = 0; i < r->n_memories; i++) check_clean("recall memory", r->memories[i].text, u);
            if (r->task) {
                check_clean("recall task notes", r->task->notes_json, u);
                check_clean("recall task artifacts", r->task->artifacts_json, u);
            }
            check_clean("recall block", r->block, u);
            am_recall_free(r);
            reads++;
        } else if (kind < 85) {
            am_memory_list *l;
            CHECK_EQ_INT(am_memories(db, users[u], rnd(2) ? AM_LIST_ALL : AM_LIST_ACTIVE, NULL, &l), AM_OK);
            check_clean("memories", l->json, u);
            am_memory_list_free(l);
            am_task *t;
            if (am_task_get(db, users[u], task, &t) == AM_OK) {
                check_clean("task", t->notes_json, u);
                am_task_free(t);
            }
            reads += 2;
        } else if (kind < 92) {
            char *json;
            int rc = am_export(db, users[u], &json);
            CHECK(rc == AM_OK || rc == AM_NOTFOUND);
            if (rc == AM_OK) {
                check_clean("export", json, u);
                am_free(json);
            }
            reads++;
        } else if (kind < 97 && n_ids[u] > 0) {
            /* forget one of this user's events; another user's id must
             * not be forgettable through this user */
            int other = (u + 1) % USERS;
            if (n_ids[other] > 0)
                CHECK_EQ_INT(am_forget(db, users[u], AM_FORGET_EVENT, event_ids[other][0], NULL),
                             AM_NOTFOUND);
            int k = (int)rnd((unsigned)n_ids[u]);
            int rc = am_forget(db, users[u], AM_FORGET_EVENT, event_ids[u][k], NULL);
            CHECK(rc == AM_OK || rc == AM_NOTFOUND);
        } else {
            /* a user's feedback cannot touch another user's memory */
            int other = (u + 2) % USERS;
            am_memory_list *l;
            if (am_memories(db, users[other], AM_LIST_ACTIVE, NULL, &l) == AM_OK) {
                if (l->n > 0)
                    CHECK_EQ_INT(am_feedback(db, users[u], l->items[0].id, AM_FEEDBACK_REJECT, NULL),
                                 AM_NOTFOUND);
                am_memory_list_free(l);
            }
        }
    }
    CHECK(reads > 500);
    am_close(db);
}

int main(void)
{
    RUN(test_random_ops_never_leak);
    TEST_MAIN_END();
}
