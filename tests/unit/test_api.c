/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_api.c -- the public API end to end, through include/agentmem.h only:
 * write path, recall, task state, bitemporal versions, feedback, forget,
 * export, identity, and bad input that must change nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agentmem.h"
#include "test.h"
#include "api_util.h"
#include "api/db_int.h"


static am_recall_result *recall(am_db *db, const char *user, const char *session,
                                const char *at, const char *text)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = user;
    q.session_id = session;
    q.text = text;
    set_now(at);
    am_recall_result *r = NULL;
    int rc = am_recall(db, &q, &r);
    if (rc) fprintf(stderr, "recall failed: %s\n", am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
    return r;
}

static char *export_of(am_db *db, const char *user)
{
    char *json = NULL;
    int rc = am_export(db, user, &json);
    CHECK_EQ_INT(rc, AM_OK);
    return json;
}

static void test_weekly_report_zh(void)
{
    am_db *db = open_mem();
    am_add_info i1 = add(db, "u1", "s1", "weekly-report", "2026-03-05T16:00:00+08:00",
                         "以后周报都按已完成、进行中、下周计划三段写，结论放最前面");
    CHECK_EQ_INT(i1.memories_created, 1);
    am_add_info i2 = add(db, "u1", "s2", "weekly-report", "2026-03-12T16:05:00+08:00",
                         "这次用要点式就行");
    CHECK_EQ_INT(i2.memories_created, 0);
    CHECK_EQ_INT(i2.one_off, 1);
    am_recall_result *r = recall(db, "u1", "s3", "2026-03-19T16:00:00+08:00", "帮我写这周的周报");
    CHECK(r->need_memory);
    CHECK_EQ_STR(r->lang, "zh");
    CHECK_EQ_INT(r->n_memories, 1);
    if (r->n_memories) CHECK_CONTAINS(r->memories[0].text, "三段");
    /* a week later: last week's one-off is neither a note nor an event */
    CHECK(strstr(r->block, "要点式") == NULL);
    CHECK_CONTAINS(r->block, "[记忆]");
    CHECK_CONTAINS(r->json, "\"need_memory\":true");
    am_recall_free(r);
    /* the one-off is in the task state of its week, not in the memories */
    am_task *t;
    set_now("2026-03-13T10:00:00+08:00");
    CHECK_EQ_INT(am_task_get(db, "u1", "weekly-report", &t), AM_OK);
    CHECK_CONTAINS(t->notes_json, "要点式");
    CHECK_EQ_STR(t->status, "active");
    CHECK_EQ_INT(t->round, 2);
    CHECK_EQ_STR(t->period, "week");
    am_task_free(t);
    /* the next week is a new round; the old one stays as history */
    set_now("2026-03-19T16:00:00+08:00");
    CHECK_EQ_INT(am_task_get(db, "u1", "weekly-report", &t), AM_OK);
    CHECK(strstr(t->notes_json, "要点式") == NULL);
    CHECK_CONTAINS(t->rounds_json, "要点式");
    CHECK_EQ_INT(t->round, 3);
    CHECK_EQ_STR(t->stage, "collecting");
    am_task_free(t);
    am_memory_list *l;
    CHECK_EQ_INT(am_memories(db, "u1", AM_LIST_ACTIVE, NULL, &l), AM_OK);
    CHECK_EQ_INT(l->n, 1);
    for (size_t i = 0; i < l->n; i++) CHECK(strstr(l->items[i].text, "要点式") == NULL);
    am_memory_list_free(l);
    am_close(db);
}

static void test_weekly_report_en(void)
{
    am_db *db = open_mem();
    add(db, "u1", "s1", "weekly-report", "2026-03-05T16:00:00Z",
        "From now on, always write the weekly report in three sections: done, in progress, next week");
    am_add_info i2 = add(db, "u1", "s2", "weekly-report", "2026-03-12T16:05:00Z",
                         "Just this once, use bullet points");
    CHECK_EQ_INT(i2.one_off, 1);
    CHECK_EQ_INT(i2.memories_created, 0);
    am_recall_result *r = recall(db, "u1", "s3", "2026-03-19T16:00:00Z",
                                 "Help me write this week's weekly report");
    CHECK_EQ_STR(r->lang, "en");
    CHECK_EQ_INT(r->n_memories, 1);
    CHECK_CONTAINS(r->block, "[Memory]");
    CHECK_CONTAINS(r->block, "three sections");
    am_recall_free(r);
    am_close(db);
}

static void test_router_chit_chat(void)
{
    am_db *db = open_mem();
    add(db, "u1", "s1", NULL, "2026-03-05T16:00:00+08:00", "以后回复我都用中文");
    const char *small_talk[] = {"你好", "谢谢！", "好的，谢谢", "thanks!", "Hi there", "ok 👍"};
    for (size_t i = 0; i < sizeof small_talk / sizeof *small_talk; i++) {
        am_recall_result *r = recall(db, "u1", "s1", "2026-03-05T16:01:00+08:00", small_talk[i]);
        if (r->need_memory) fprintf(stderr, "router said memory for: %s\n", small_talk[i]);
        CHECK(!r->need_memory);
        CHECK_EQ_STR(r->block, "");
        am_recall_free(r);
    }
    const char *real[] = {"你好，帮我查一下上次的报价", "thanks, and what did I say about the report?"};
    for (size_t i = 0; i < 2; i++) {
        am_recall_result *r = recall(db, "u1", "s1", "2026-03-05T16:01:00+08:00", real[i]);
        CHECK(r->need_memory);
        am_recall_free(r);
    }
    am_close(db);
}

static void test_lexical_chinese_two_char(void)
{
    am_db *db = open_mem();
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:00+08:00", "把上次IT资产申请的预算改成50万");
    add(db, "u1", "s1", NULL, "2026-03-01T10:05:00+08:00", "明天下午和张伟开会讨论招聘");
    add(db, "u1", "s1", NULL, "2026-03-01T10:06:00+08:00", "I went hiking with my sister last weekend");
    am_recall_result *r = recall(db, "u1", "s2", "2026-03-02T10:00:00+08:00", "预算是多少");
    CHECK(r->n_events >= 1);
    if (r->n_events) CHECK_CONTAINS(r->events[0].content, "预算");
    am_recall_free(r);
    r = recall(db, "u1", "s2", "2026-03-02T10:00:00+08:00", "张伟");
    CHECK(r->n_events >= 1);
    if (r->n_events) CHECK_CONTAINS(r->events[0].content, "张伟");
    am_recall_free(r);
    r = recall(db, "u1", "s2", "2026-03-02T10:00:00+08:00", "Who did I go hiking with?");
    CHECK(r->n_events >= 1);
    if (r->n_events) CHECK_CONTAINS(r->events[0].content, "hiking");
    am_recall_free(r);
    am_close(db);
}

static void test_supersede_and_as_of(void)
{
    am_db *db = open_mem();
    add(db, "u1", "s1", NULL, "2026-01-10T10:00:00+08:00", "以后报告都用PDF格式发给我");
    add(db, "u1", "s2", NULL, "2026-03-10T10:00:00+08:00", "以后报告都改用Excel格式");
    am_memory_list *l;
    CHECK_EQ_INT(am_memories(db, "u1", AM_LIST_ACTIVE, NULL, &l), AM_OK);
    CHECK_EQ_INT(l->n, 1);
    if (l->n) CHECK_CONTAINS(l->items[0].text, "Excel");
    am_memory_list_free(l);
    CHECK_EQ_INT(am_memories(db, "u1", AM_LIST_ACTIVE, "2026-02-01T00:00:00+08:00", &l), AM_OK);
    CHECK_EQ_INT(l->n, 1);
    if (l->n) CHECK_CONTAINS(l->items[0].text, "PDF");
    am_memory_list_free(l);
    /* every version kept: original, closed copy, new value */
    CHECK_EQ_INT(am_memories(db, "u1", AM_LIST_ALL, NULL, &l), AM_OK);
    CHECK_EQ_INT(l->n, 3);
    am_memory_list_free(l);
    /* invalidation closes, never deletes */
    am_add_info inv = add(db, "u1", "s3", NULL, "2026-04-01T10:00:00+08:00", "以后报告不用再用Excel格式了");
    CHECK_EQ_INT(inv.memories_invalidated, 1);
    CHECK_EQ_INT(am_memories(db, "u1", AM_LIST_ACTIVE, NULL, &l), AM_OK);
    CHECK_EQ_INT(l->n, 0);
    am_memory_list_free(l);
    CHECK_EQ_INT(am_memories(db, "u1", AM_LIST_ACTIVE, "2026-03-20T00:00:00+08:00", &l), AM_OK);
    CHECK_EQ_INT(l->n, 1);
    am_memory_list_free(l);
    am_close(db);
}

static void test_task_state_changes(void)
{
    am_db *db = open_mem();
    add(db, "u1", "s1", "vendor-review", "2026-03-01T10:00:00Z", "Start the vendor review for the three suppliers");
    add(db, "u1", "s1", "vendor-review", "2026-03-02T10:00:00Z", "Put the vendor review on hold for now");
    am_task *t;
    CHECK_EQ_INT(am_task_get(db, "u1", "vendor-review", &t), AM_OK);
    CHECK_EQ_STR(t->status, "paused");
    CHECK(t->n_history >= 2);
    am_task_free(t);
    add(db, "u1", "s2", "vendor-review", "2026-03-05T10:00:00Z", "Cancel the vendor review");
    CHECK_EQ_INT(am_task_get(db, "u1", "vendor-review", &t), AM_OK);
    CHECK_EQ_STR(t->status, "cancelled");
    am_task_free(t);
    add(db, "u1", "s3", "采购", "2026-03-05T10:00:00+08:00", "这家先不发了");
    CHECK_EQ_INT(am_task_get(db, "u1", "采购", &t), AM_OK);
    CHECK_EQ_STR(t->status, "paused");
    am_task_free(t);
    CHECK_EQ_INT(am_task_get(db, "u1", "nope", &t), AM_NOTFOUND);
    CHECK(t == NULL);
    am_close(db);
}

static void test_resume_from_other_session(void)
{
    am_db *db = open_mem();
    add(db, "u1", "s1", "weekly-report", "2026-03-12T17:30:00+08:00", "周报草稿写了一半，已完成部分写好了");
    am_recall_result *r = recall(db, "u1", "s9", "2026-03-15T09:30:00+08:00", "接着把周报弄完");
    CHECK_EQ_STR(r->route, "state_first");
    CHECK(r->task != NULL);
    if (r->task) CHECK_EQ_STR(r->task->task_id, "weekly-report");
    CHECK_CONTAINS(r->block, "weekly-report");
    CHECK_CONTAINS(r->block, "草稿");
    am_recall_free(r);
    am_close(db);
}

static void test_identity_links(void)
{
    am_db *db = open_mem();
    CHECK_EQ_INT(am_link(db, "wechat", "wx-123", "alice"), AM_OK);
    CHECK_EQ_INT(am_link(db, "web", "cookie-9", "alice"), AM_OK);
    CHECK_EQ_INT(am_link(db, "wechat", "wx-123", "bob"), AM_DENIED);
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.channel = "wechat";
    ev.external_id = "wx-123";
    ev.text = "记住：我的航班偏好靠窗座位";
    set_now("2026-03-01T10:00:00+08:00");
    am_add_info info;
    CHECK_EQ_INT(am_add_event(db, &ev, &info), AM_OK);
    CHECK_EQ_STR(info.user_id, "alice");
    am_query q;
    memset(&q, 0, sizeof q);
    q.channel = "web";
    q.external_id = "cookie-9";
    q.text = "帮我订机票，座位怎么选";
    am_recall_result *r;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
    CHECK(r->n_memories == 1);
    am_recall_free(r);
    q.channel = "web";
    q.external_id = "unknown";
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_NOTFOUND);
    char uid[AM_ID_MAX + 1];
    CHECK_EQ_INT(am_resolve(db, "web", "cookie-9", uid), AM_OK);
    CHECK_EQ_STR(uid, "alice");
    am_close(db);
}

/* The analyzer keeps normal forms of recent texts and stems of recent
 * words (text/analyze.c): after a forget none of the forgotten text
 * stays there, in Chinese (Traditional, its Simplified form) or English. */
static void test_forget_clears_analyzer(void)
{
    static const char *const texts[] = {
        "我的牙醫叫歐卡福，診所在榆樹街",
        "Zoë's dentist is Dr. Okafor on Delambre Street, café upstairs",
    };
    static const char *const pieces[][3] = {
        {"牙醫", "牙医", "歐卡福"},
        {"Delambre", "delambr", "okafor"},
    };
    for (size_t k = 0; k < 2; k++) {
        am_db *db = open_mem();
        am_add_info a = add(db, "u1", "s1", NULL, "2026-03-01T10:00:00Z", texts[k]);
        add(db, "u1", "s1", NULL, "2026-03-01T10:01:00Z", "The quarterly budget draft is in budget.xlsx");
        am_recall_result *r = recall(db, "u1", "s2", "2026-03-02T10:00:00Z", texts[k]);
        am_recall_free(r);
        CHECK(am__text_holds(db->text, pieces[k][0], strlen(pieces[k][0])) ||
              am__text_holds(db->text, pieces[k][1], strlen(pieces[k][1])));
        CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_EVENT, a.event_id, NULL), AM_OK);
        for (size_t j = 0; j < 3; j++)
            CHECK(!am__text_holds(db->text, pieces[k][j], strlen(pieces[k][j])));
        am_close(db);
    }
}

static void test_forget_levels(void)
{
    am_db *db = open_mem();
    am_add_info a = add(db, "u1", "s1", "t1", "2026-03-01T10:00:00Z", "Remember that my dentist is Dr. Okafor on Elm Street");
    add(db, "u1", "s1", "t1", "2026-03-01T10:01:00Z", "The quarterly budget draft is in budget.xlsx");
    add(db, "u1", "s2", "t2", "2026-03-02T10:00:00Z", "Book the Lisbon flights for the offsite");
    add(db, "u2", "s1", NULL, "2026-03-02T10:00:00Z", "Remember that I am allergic to peanuts");
    char *before = export_of(db, "u1");
    CHECK_CONTAINS(before, "Okafor");
    am_free(before);
    am_forget_info fi;
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_EVENT, a.event_id, &fi), AM_OK);
    CHECK_EQ_INT(fi.events, 1);
    CHECK_EQ_INT(fi.memories, 1); /* its only source is gone: cascade */
    char *after = export_of(db, "u1");
    CHECK(strstr(after, "Okafor") == NULL);
    CHECK_CONTAINS(after, "budget.xlsx");
    am_free(after);
    am_recall_result *r = recall(db, "u1", "s3", "2026-03-03T10:00:00Z", "Who is my dentist Okafor?");
    CHECK(strstr(r->json, "Okafor") == NULL || strstr(r->json, "Who is my") != NULL);
    CHECK_EQ_INT(r->n_events, 0);
    am_recall_free(r);
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_SESSION, "s2", &fi), AM_OK);
    CHECK_EQ_INT(fi.events, 1);
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_TASK, "t1", &fi), AM_OK);
    CHECK_EQ_INT(fi.tasks, 1);
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_TASK, "t1", &fi), AM_NOTFOUND);
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_USER, NULL, &fi), AM_OK);
    char *json = NULL; /* the tombstone, no content */
    CHECK_EQ_INT(am_export(db, "u1", &json), AM_OK);
    CHECK_CONTAINS(json, "\"state\":\"purged\"");
    CHECK(json && !strstr(json, "Lisbon") && !strstr(json, "budget"));
    am_free(json);
    CHECK_EQ_INT(am_forget(db, "nobody", AM_FORGET_USER, NULL, &fi), AM_NOTFOUND);
    /* the other user is untouched */
    char *other = export_of(db, "u2");
    CHECK_CONTAINS(other, "peanuts");
    am_free(other);
    am_close(db);
}

/* Every refused request leaves the store exactly as it was. */
/* am_add_events: one transaction, all or nothing, zh + en. */
static void test_add_events_batch(void)
{
    am_db *db = open_mem();
    add(db, "u1", "s0", NULL, "2026-03-01T09:00:00+08:00", "以后周报都用表格格式");
    set_now("2026-03-02T10:00:00+08:00");
    char *before = export_of(db, "u1");
    am_event ev[4];
    am_add_info info[4];
    memset(ev, 0, sizeof ev);
    static const char *const texts[4] = {
        "我爸爸的生日是五月三号", "My sister lives in Lisbon", "bad \xff utf8", "我喜欢靠窗的座位"};
    for (int i = 0; i < 4; i++) {
        ev[i].user_id = "u1";
        ev[i].session_id = "s1";
        ev[i].text = texts[i];
        ev[i].occurred_at = "2026-03-02T10:00:00+08:00";
    }
    memset(info, 0x7f, sizeof info);
    CHECK_EQ_INT(am_add_events(db, ev, 4, info), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "events[2]");
    CHECK_CONTAINS(am_errmsg(db), "text: invalid UTF-8");
    CHECK_EQ_INT(info[0].event_id[0], 0); /* zeroed: nothing was written */
    char *after = export_of(db, "u1");
    CHECK_EQ_STR(after, before);          /* not even the first two */
    am_free(after);
    /* a batch that introduces a new user leaves no trace of it either */
    ev[0].user_id = "newcomer";
    CHECK_EQ_INT(am_add_events(db, ev, 4, NULL), AM_INVALID);
    char *none = NULL;
    CHECK_EQ_INT(am_export(db, "newcomer", &none), AM_NOTFOUND);
    am_free(none);
    ev[0].user_id = "u1";
    ev[2].text = "ok, noted";
    CHECK_EQ_INT(am_add_events(db, ev, 4, info), AM_OK);
    for (int i = 0; i < 4; i++) CHECK(info[i].event_id[0] != 0);
    CHECK(strcmp(info[0].event_id, info[1].event_id) != 0);
    am_recall_result *r = recall(db, "u1", "s2", "2026-03-03T10:00:00+08:00", "爸爸的生日是哪天");
    CHECK(r->n_events + r->n_memories >= 1);
    CHECK_CONTAINS(r->block, "五月三号");
    am_recall_free(r);
    r = recall(db, "u1", "s2", "2026-03-03T10:00:00+08:00", "Where does my sister live?");
    CHECK_CONTAINS(r->block, "Lisbon");
    am_recall_free(r);
    CHECK_EQ_INT(am_add_events(db, NULL, 0, NULL), AM_OK);
    CHECK_EQ_INT(am_add_events(db, NULL, 2, NULL), AM_MISUSE);
    am_free(before);
    am_close(db);
}

static void test_bad_input_changes_nothing(void)
{
    am_db *db = open_mem();
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:00Z", "From now on always answer in English");
    char *before = export_of(db, "u1");
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = "u1";
    ev.text = "bad \xff\xfe utf8";
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "text: invalid UTF-8 at byte 4");
    ev.text = "ok text";
    ev.occurred_at = "2026-03-01T10:00:00";
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "occurred_at");
    CHECK_CONTAINS(am_errmsg(db), "zone");
    ev.occurred_at = "2026-02-30T10:00:00Z";
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_INVALID);
    ev.occurred_at = NULL;
    char *big = malloc(40000);
    memset(big, 'a', 39999);
    big[39999] = 0;
    ev.text = big;
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_TOOBIG);
    free(big);
    ev.text = "fine";
    ev.source = "robot";
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "source");
    ev.source = NULL;
    ev.session_id = "bad\nid";
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "session");
    ev.session_id = NULL;
    ev.user_id = NULL;
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "user");
    ev.text = "   ";
    ev.user_id = "u1";
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_INVALID);
    CHECK_EQ_INT(am_forget(db, "ghost", AM_FORGET_USER, NULL, NULL), AM_NOTFOUND);
    CHECK_CONTAINS(am_errmsg(db), "unknown user ghost");
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_EVENT, "01NOSUCHEVENT", NULL), AM_NOTFOUND);
    CHECK_EQ_INT(am_forget(db, "u1", 99, "x", NULL), AM_INVALID);
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = "u1";
    q.text = "x";
    q.as_of = "yesterday";
    am_recall_result *r = NULL;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_INVALID);
    CHECK(r == NULL);
    /* the export (exported_at aside) is unchanged */
    char *after = export_of(db, "u1");
    const char *b_ev = strstr(before, "\"identities\"");
    const char *a_ev = strstr(after, "\"identities\"");
    CHECK(b_ev && a_ev && strcmp(b_ev, a_ev) == 0);
    am_free(before);
    am_free(after);
    /* misuse never crashes */
    CHECK_EQ_INT(am_add_event(NULL, &ev, NULL), AM_MISUSE);
    CHECK_EQ_INT(am_recall(db, NULL, &r), AM_MISUSE);
    am_close(NULL);
    am_recall_free(NULL);
    am_task_free(NULL);
    am_memory_list_free(NULL);
    am_close(db);
}

static void test_corrupt_and_newer_files(void)
{
    char path[] = "/tmp/am_test_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    const char junk[] = "this is definitely not a database file, it is junk junk junk junk";
    for (int i = 0; i < 100; i++) CHECK(write(fd, junk, sizeof junk) == (ssize_t)sizeof junk);
    close(fd);
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = path;
    am_db *db = NULL;
    char *err = NULL;
    CHECK_EQ_INT(am_open(&cfg, &db, &err), AM_CORRUPT);
    CHECK(db == NULL);
    CHECK(err != NULL);
    am_free(err);
    unlink(path);
    /* a store written by a newer schema */
    CHECK_EQ_INT(am_open(&cfg, &db, &err), AM_OK);
    am_close(db);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "sqlite3 %s \"UPDATE meta SET value='99' WHERE key='schema_version'\" 2>/dev/null", path);
    if (system(cmd) == 0) {
        CHECK_EQ_INT(am_open(&cfg, &db, &err), AM_NEWER);
        CHECK(err && strstr(err, "newer"));
        am_free(err);
    }
    unlink(path);
    /* must_exist on a missing file */
    cfg.must_exist = 1;
    CHECK(am_open(&cfg, &db, &err) != AM_OK);
    am_free(err);
    CHECK_EQ_INT(am_open(NULL, &db, &err), AM_MISUSE);
    am_free(err);
}

static void test_pii_never_stored(void)
{
    am_db *db = open_mem();
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:00+08:00",
        "我的手机是13812345678，邮箱zhang.san@example.com，密码是Hunter2!xyz");
    char *json = export_of(db, "u1");
    CHECK(strstr(json, "13812345678") == NULL);
    CHECK(strstr(json, "zhang.san@example.com") == NULL);
    CHECK(strstr(json, "Hunter2") == NULL);
    CHECK_CONTAINS(json, "[PHONE_1]");
    am_free(json);
    am_recall_result *r = recall(db, "u1", "s1", "2026-03-01T11:00:00+08:00", "我的手机号是多少");
    CHECK(strstr(r->json, "13812345678") == NULL);
    am_recall_free(r);
    am_close(db);
}

static void test_redact_policy(void)
{
    am_config cfg;
    am_config_init(&cfg);
    CHECK_EQ_INT(cfg.redact, AM_REDACT_ALL);
    cfg.path = ":memory:";
    cfg.clock = test_clock;
    cfg.redact = AM_REDACT_ALL & ~AM_REDACT_EMAIL; /* e-mails kept */
    am_db *db;
    CHECK_EQ_INT(am_open(&cfg, &db, NULL), AM_OK);
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:00Z",
        "Write to ops@example.com or call 13812345678, password: Hunter2!xyz");
    char *json = export_of(db, "u1");
    CHECK_CONTAINS(json, "ops@example.com");
    CHECK(strstr(json, "13812345678") == NULL);
    CHECK(strstr(json, "Hunter2") == NULL);
    am_free(json);
    am_close(db);
}

int main(void)
{
    RUN(test_weekly_report_zh);
    RUN(test_weekly_report_en);
    RUN(test_router_chit_chat);
    RUN(test_lexical_chinese_two_char);
    RUN(test_supersede_and_as_of);
    RUN(test_task_state_changes);
    RUN(test_resume_from_other_session);
    RUN(test_identity_links);
    RUN(test_forget_levels);
    RUN(test_forget_clears_analyzer);
    RUN(test_add_events_batch);
    RUN(test_bad_input_changes_nothing);
    RUN(test_corrupt_and_newer_files);
    RUN(test_pii_never_stored);
    RUN(test_redact_policy);
    TEST_MAIN_END();
}
