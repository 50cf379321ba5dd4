/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_forget.c -- forgetting reaches everything (docs/FORGETTING.md):
 * task state rebuilt without the forgotten events, no forgotten byte left
 * in the store's files while another process holds the store open, an
 * audit trail that guessing the user id cannot find, the grace period and
 * restore, the tombstone export, a user purge in short steps that a
 * killed process leaves to the next open, and a task's workspace going
 * with its task and its user; am_forget_ex's and am_optimize_ex's
 * progress.  Chinese and English texts.
 * Real files, real processes (fork), the public API plus raw SQLite reads
 * of what the files hold.
 */
#include <signal.h>
#include <stdlib.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agentmem_ops.h"
#include "domain/forget.h"
#include "test.h"
#include "api_util.h"
#include "store_file.h"
#include "store_holder.h"
#include "api/db_int.h"


static am_db *open_file(am_time grace_ms)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = path;
    cfg.clock = test_clock;
    cfg.forget_grace_ms = grace_ms;
    return open_checked(&cfg);
}

/* The vault's value hashes (pii_vault.canon_hash) of the rows sql selects,
 * as the bytes SQLite writes them: an integer big-endian in as few bytes
 * as it needs, so the low 6 of the 8 (a random 64-bit value is stored in
 * 6 or 8).  Returns how many (at most max). */
static size_t vault_hashes(const char *sql, const char *arg, char out[][6], size_t max)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    size_t n = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (arg) sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
        while (n < max && sqlite3_step(st) == SQLITE_ROW) {
            uint64_t h = (uint64_t)sqlite3_column_int64(st, 0);
            for (int i = 0; i < 6; i++) out[n][i] = (char)(h >> (8 * (5 - i)));
            n++;
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

/* ------------------------------------------------------------ task state */

typedef struct task_texts {
    const char *lang, *at[4], *context, *one_off, *url, *question, *question_mark;
} task_texts;

static const task_texts task_cases[] = {
    {"zh",
     {"2026-03-10T09:00:00+08:00", "2026-03-10T09:05:00+08:00", "2026-03-11T10:00:00+08:00",
      "2026-03-12T10:00:00+08:00"},
     "预算表的数字来自三月的报表",
     "这次先用 https://docs.example.cn/tpl-7731 里的模板",
     "docs.example.cn/tpl-7731",
     "要不要把预算表同时抄送给财务部的韩蓓蓓？",
     "韩蓓蓓"},
    {"en",
     {"2026-03-10T09:00:00Z", "2026-03-10T09:05:00Z", "2026-03-11T10:00:00Z",
      "2026-03-12T10:00:00Z"},
     "The budget numbers come from the March ledger",
     "Just this once, use the template at https://docs.example.com/tpl-7731",
     "docs.example.com/tpl-7731",
     "Should I also copy Bartholomew Quince in finance on the budget sheet?",
     "Quince"},
};

static void check_task(am_db *db, const char *user, const char *not_in, const char *in)
{
    am_task *t = NULL;
    CHECK_EQ_INT(am_task_get(db, user, "budget", &t), AM_OK);
    if (!t) return;
    char all[8192];
    snprintf(all, sizeof all, "%s %s %s", t->notes_json, t->artifacts_json, t->pending_json);
    for (size_t i = 0; i < t->n_history; i++) {
        size_t k = strlen(all);
        snprintf(all + k, sizeof all - k, " %s %s", t->history[i].old_value ? t->history[i].old_value : "",
                 t->history[i].new_value ? t->history[i].new_value : "");
    }
    if (not_in && strstr(all, not_in)) fprintf(stderr, "  task still holds \"%s\": %s\n", not_in, all);
    if (not_in) CHECK(strstr(all, not_in) == NULL);
    if (in) CHECK_CONTAINS(all, in);
    am_task_free(t);
}

static void check_elsewhere(am_db *db, const char *user, const char *session, const char *at,
                            const char *needle)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = user;
    q.session_id = session;
    q.task_id = "budget";
    q.text = "budget template 预算 模板";
    set_now(at);
    am_recall_result *r = NULL;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
    if (r) {
        CHECK(strstr(r->json, needle) == NULL);
        CHECK(r->task != NULL);
    }
    am_recall_free(r);
    char *json = NULL;
    CHECK_EQ_INT(am_export(db, user, &json), AM_OK);
    CHECK(json && strstr(json, needle) == NULL);
    am_free(json);
}

/* Forgetting an event, then a session, rebuilds the task's notes,
 * artifacts and pending decisions from the events that remain. */
static void test_forget_rebuilds_task(void)
{
    for (size_t k = 0; k < sizeof task_cases / sizeof *task_cases; k++) {
        const task_texts *c = &task_cases[k];
        am_db *db = open_mem();
        add_as(db, "u1", "user", "s1", "budget", c->at[0], c->context);
        am_add_info one = add_as(db, "u1", "user", "s1", "budget", c->at[1], c->one_off);
        CHECK_EQ_INT(one.one_off, 1);
        am_add_info q = add_as(db, "u1", "agent", "s2", "budget", c->at[2], c->question);
        /* before: the note, its link and the question are the task's */
        check_task(db, "u1", NULL, c->url);
        check_task(db, "u1", NULL, c->question_mark);
        CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_EVENT, one.event_id, NULL), AM_OK);
        check_task(db, "u1", c->url, c->question_mark);
        check_task(db, "u1", "tpl-7731", NULL);
        check_elsewhere(db, "u1", "s3", c->at[3], "tpl-7731");
        /* the session of the question: the pending decision goes */
        CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_SESSION, "s2", NULL), AM_OK);
        check_task(db, "u1", c->question_mark, NULL);
        check_elsewhere(db, "u1", "s3", c->at[3], c->question_mark);
        (void)q;
        /* what remains is still there */
        am_task *t = NULL;
        CHECK_EQ_INT(am_task_get(db, "u1", "budget", &t), AM_OK);
        if (t) CHECK_EQ_STR(t->status, "active");
        am_task_free(t);
        char *json = NULL;
        CHECK_EQ_INT(am_export(db, "u1", &json), AM_OK);
        CHECK_CONTAINS(json, k == 0 ? "三月的报表" : "March ledger");
        am_free(json);
        am_close(db);
    }
}

/* The rounds of a periodic task are rebuilt as they were written: a forget
 * of an event that started no round leaves the rounds, their one-offs and
 * their ends the same, in Chinese and in English. */
static void test_forget_rebuilds_rounds(void)
{
    static const char *const texts[2][5] = {
        {"这周周报的素材：接口联调完成", "这次周报用要点式就行", "周报已经发出去了",
         "新一周：压测结果出来了", "数据库迁移评审通过"},
        {"Notes for this week's report: the API is integrated", "Just this once, use bullet points",
         "I've sent the weekly report", "New week: load test results are in",
         "The database migration review passed"},
    };
    static const char *const ats[5] = {"2026-03-03T10:00:00+08:00", "2026-03-05T10:00:00+08:00",
                                       "2026-03-06T17:00:00+08:00", "2026-03-10T10:00:00+08:00",
                                       "2026-03-17T10:00:00+08:00"};
    for (int lang = 0; lang < 2; lang++) {
        am_db *db = open_mem();
        am_add_info info[5];
        for (int i = 0; i < 5; i++) info[i] = add(db, "u1", "s1", "weekly-report", ats[i], texts[lang][i]);
        set_now("2026-03-18T09:00:00+08:00");
        am_task *t = NULL;
        CHECK_EQ_INT(am_task_get(db, "u1", "weekly-report", &t), AM_OK);
        if (!t) { am_close(db); continue; }
        int round = t->round;
        char *rounds = strdup(t->rounds_json);
        CHECK_EQ_INT(round, 3);
        CHECK_CONTAINS(rounds, texts[lang][1]);
        CHECK_CONTAINS(rounds, "\"end\":\"done\"");
        CHECK_CONTAINS(rounds, "\"end\":\"period\"");
        am_task_free(t);
        /* the week-2 event that started no round */
        (void)info;
        am_add_info extra = add(db, "u1", "s1", "weekly-report", "2026-03-11T10:00:00+08:00",
                                lang ? "Also: the intern started" : "另外：实习生入职了");
        CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_EVENT, extra.event_id, NULL), AM_OK);
        CHECK_EQ_INT(am_task_get(db, "u1", "weekly-report", &t), AM_OK);
        if (t) {
            CHECK_EQ_INT(t->round, round);
            if (strcmp(t->rounds_json, rounds) != 0) {
                fprintf(stderr, "rounds before: %s\nafter: %s\n", rounds, t->rounds_json);
                CHECK(0);
            }
            CHECK_EQ_STR(t->stage, "collecting");
        }
        am_task_free(t);
        free(rounds);
        am_close(db);
    }
}

/* A task whose every event is forgotten goes with them. */
static void test_forget_task_without_events(void)
{
    am_db *db = open_mem();
    am_add_info a = add(db, "u1", "s1", "solo", "2026-03-10T09:00:00Z",
                        "Just this once, send the Zanzibar itinerary as a PDF");
    am_forget_info fi;
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_EVENT, a.event_id, &fi), AM_OK);
    CHECK_EQ_INT(fi.tasks, 1);
    am_task *t = NULL;
    CHECK_EQ_INT(am_task_get(db, "u1", "solo", &t), AM_NOTFOUND);
    am_close(db);
}

/* ------------------------------------------------------------ the files */

static const char *const user_texts[] = {
    "我的新手机号是13912345678，邮箱 zhao.lin@example.cn，暗号是翡翠山猫",
    "My backup phone is +1 415 555 0199, mail me at quill.harbor@example.org about the Vermilion Otter",
    "以后开会前提醒我带上翡翠山猫的文件夹",
};
static const char *const user_marks[] = {
    "13912345678", "zhao.lin@example.cn", "翡翠山猫", "415 555 0199", "quill.harbor@example.org",
    "Vermilion Otter", "vermilion",
};

/* the holder's read (store_holder.h): a recall of w1 */
static int holder_recall(am_db *db)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = "w1";
    q.text = "翡翠山猫 Vermilion Otter phone";
    am_recall_result *r = NULL;
    int rc = am_recall(db, &q, &r);
    am_recall_free(r);
    return rc;
}

/* While another process holds the store open, a user forget and an event
 * forget leave no forgotten byte -- texts, the vault's phone numbers and
 * e-mail addresses, index terms -- in the .db or -wal file. */
static void test_forget_leaves_no_byte(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_forget_files_%d.db", (int)getpid());
    store_remove();
    am_db *db = open_file(0);
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < sizeof user_texts / sizeof *user_texts; i++) {
            char at[40];
            snprintf(at, sizeof at, "2026-03-%02dT10:%02zu:00Z", 10 + round, i);
            add_as(db, "w1", "user", "s1", NULL, at, user_texts[i]);
        }
    add_as(db, "w2", "user", "s1", NULL, "2026-03-10T11:00:00Z",
           "The spare key sits under the Persimmon planter");
    am_add_info gone = add_as(db, "w2", "user", "s1", NULL, "2026-03-10T11:05:00Z",
                              "我的车牌号是沪A·钴鹭9527，别告诉别人 cobaltheron@example.net");
    am_close(db);
    for (size_t i = 0; i < sizeof user_marks / sizeof *user_marks; i++) CHECK(store_holds(user_marks[i]) || i == 6);
    CHECK(store_holds("钴鹭"));
    /* the vault's value hashes of what is forgotten (pii_index.c) */
    char hashes[16][6];
    size_t nh = vault_hashes("SELECT canon_hash FROM pii_vault WHERE user_id = 'w1'", NULL, hashes, 12);
    CHECK_EQ_INT(nh, 12); /* 3 rounds x (2 phones + 2 e-mails), one row each */
    nh = vault_hashes("SELECT canon_hash FROM pii_vault WHERE user_id = 'w1' OR event_rid ="
                      " (SELECT rid FROM events WHERE id = ?1)", gone.event_id, hashes, 16);
    for (size_t i = 0; i < nh; i++) CHECK(store_holds_n(hashes[i], 6, "a value hash"));
    int down_w = -1;
    pid_t pid = holder_start(holder_recall, &down_w);
    CHECK(pid > 0);
    if (pid <= 0) return;
    db = open_file(0);
    set_now("2026-03-20T10:00:00Z");
    CHECK_EQ_INT(am_forget(db, "w1", AM_FORGET_USER, NULL, NULL), AM_OK);
    CHECK_EQ_INT(am_forget(db, "w2", AM_FORGET_EVENT, gone.event_id, NULL), AM_OK);
    /* the other process still has the store open */
    for (size_t i = 0; i < sizeof user_marks / sizeof *user_marks; i++) CHECK(!store_holds(user_marks[i]));
    CHECK(!store_holds("钴鹭"));
    CHECK(!store_holds("cobaltheron@example.net"));
    CHECK(store_holds("Persimmon planter")); /* what was not forgotten stays */
    for (size_t i = 0; i < nh; i++) CHECK(!store_holds_n(hashes[i], 6, "a forgotten value's hash"));
    holder_end(pid, down_w);
    am_close(db);
    for (size_t i = 0; i < sizeof user_marks / sizeof *user_marks; i++) CHECK(!store_holds(user_marks[i]));
    for (size_t i = 0; i < nh; i++) CHECK(!store_holds_n(hashes[i], 6, "a forgotten value's hash"));
    store_remove();
}

/* ------------------------------------------------------------ the audit log */

static const char *audit_pseudonym(void)
{
    static char out[64];
    out[0] = 0;
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT user_id FROM audit_log WHERE op='forget.purged' LIMIT 1",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        snprintf(out, sizeof out, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

/* After a user forget the audit log holds no identifier of the user: not
 * its id, not its linked phone number or external ids, not an unkeyed
 * hash of its id; its timeline is kept under a keyed pseudonym that
 * differs between stores. */
static void test_forget_audit_pseudonym(void)
{
    char first[64] = "";
    for (int store = 0; store < 2; store++) {
        snprintf(path, sizeof path, "/tmp/am_test_forget_audit_%d_%d.db", (int)getpid(), store);
        store_remove();
        am_db *db = open_file(0);
        set_now("2026-03-01T10:00:00Z");
        CHECK_EQ_INT(am_link(db, "phone", "+8613800001111", "lin.zhao"), AM_OK);
        CHECK_EQ_INT(am_link(db, "wechat", "wx-lin-77", "lin.zhao"), AM_OK);
        add_as(db, "lin.zhao", "user", "s1", "报税", "2026-03-01T10:01:00+08:00", "以后报税材料都发到我的邮箱");
        add_as(db, "lin.zhao", "user", "s1", NULL, "2026-03-01T10:02:00Z", "From now on call me Lin");
        CHECK(sql_count("SELECT count(*) FROM audit_log WHERE user_id=?1", "lin.zhao") > 0);
        /* memory events name the user, its task and keys; a denial of
         * another user names it too */
        CHECK_EQ_INT(am_security_denied(db, "w9", "lin.zhao", "GET /v1/memories"), AM_OK);
        CHECK(sql_count("SELECT count(*) FROM memory_events WHERE user_id=?1", "lin.zhao") >= 3);
        set_now("2026-03-02T10:00:00Z");
        CHECK_EQ_INT(am_forget(db, "lin.zhao", AM_FORGET_USER, NULL, NULL), AM_OK);
        am_close(db);
        static const char *const ids[] = {"lin.zhao", "+8613800001111", "wx-lin-77", "报税"};
        for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
            CHECK_EQ_INT(sql_count("SELECT count(*) FROM audit_log WHERE instr(user_id || ' ' ||"
                                   " coalesce(object_id, '') || ' ' || coalesce(detail, ''), ?1) > 0",
                                   ids[i]),
                         0);
            CHECK_EQ_INT(sql_count("SELECT count(*) FROM memory_events WHERE instr(user_id || ' ' ||"
                                   " coalesce(task_id, '') || ' ' || coalesce(key, '') || ' ' ||"
                                   " coalesce(other_user, '') || ' ' || coalesce(detail, ''), ?1) > 0",
                                   ids[i]),
                         0);
            CHECK(!store_holds(ids[i]));
        }
        /* of its events only the forget's notice stays, under the pseudonym */
        CHECK_EQ_INT(sql_count("SELECT count(*) FROM memory_events WHERE user_id LIKE 'forgotten:%'"
                               " AND type = 'memory.forgotten'", NULL),
                     1);
        /* the hash a guess would compute (the old FNV form) finds nothing */
        char guess[64];
        snprintf(guess, sizeof guess, "forgotten:%016" PRIx64, am__hash64("lin.zhao", 8));
        CHECK_EQ_INT(sql_count("SELECT count(*) FROM audit_log WHERE user_id=?1", guess), 0);
        /* the timeline is there, under one pseudonym */
        const char *pn = audit_pseudonym();
        CHECK(strncmp(pn, "forgotten:", 10) == 0);
        CHECK(sql_count("SELECT count(*) FROM audit_log WHERE user_id=?1", pn) >= 4);
        if (store == 0) snprintf(first, sizeof first, "%s", pn);
        else CHECK(strcmp(first, pn) != 0); /* keyed by the store */
        /* the API still answers "was it forgotten" from the id */
        db = open_file(0);
        char *json = NULL;
        CHECK_EQ_INT(am_export(db, "lin.zhao", &json), AM_OK);
        CHECK_CONTAINS(json, "\"state\":\"purged\"");
        CHECK_CONTAINS(json, "\"forgotten_at\":\"2026-03-02T10:00:00");
        CHECK(json && !strstr(json, "报税") && !strstr(json, "Lin\""));
        am_free(json);
        am_close(db);
        store_remove();
    }
}

/* ------------------------------------------------------------ grace, restore */

static int recalls(am_db *db, const char *user, const char *text, const char *needle)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = user;
    q.text = text;
    am_recall_result *r = NULL;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
    int found = r && strstr(r->json, needle) != NULL;
    am_recall_free(r);
    return found;
}

/* Hidden from every read at once, refused writes, back with restore;
 * after the grace period restore is refused and the data is gone. */
static void test_forget_grace_restore(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_forget_grace_%d.db", (int)getpid());
    store_remove();
    am_db *db = open_file(3600 * 1000);
    am_add_info a = add_as(db, "g1", "user", "s1", "trip", "2026-03-01T10:00:00+08:00",
                           "以后订酒店都要无烟房，我对烟味过敏");
    add_as(db, "g1", "user", "s1", "trip", "2026-03-01T10:01:00Z",
           "From now on book aisle seats, I get claustrophobic by the window");
    add_as(db, "g2", "user", "s1", NULL, "2026-03-01T10:02:00Z", "From now on I prefer oat milk");
    CHECK_EQ_INT(am_link(db, "tg", "g1-handle", "g1"), AM_OK);
    CHECK(recalls(db, "g1", "订酒店有什么要求", "无烟房"));
    set_now("2026-03-02T10:00:00Z");
    CHECK_EQ_INT(am_forget(db, "g1", AM_FORGET_USER, NULL, NULL), AM_OK);
    /* hidden: every read, by id or by channel */
    CHECK(!recalls(db, "g1", "订酒店有什么要求", "无烟房"));
    CHECK(!recalls(db, "g1", "which seat do I like", "aisle"));
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories(db, "g1", AM_LIST_ALL, NULL, &l), AM_OK);
    if (l) CHECK_EQ_INT(l->n, 0);
    am_memory_list_free(l);
    am_task *t = NULL;
    CHECK_EQ_INT(am_task_get(db, "g1", "trip", &t), AM_NOTFOUND);
    char id[32];
    CHECK_EQ_INT(am_event_find(db, "g1", "无烟房", id), AM_NOTFOUND);
    char uid[AM_ID_MAX + 1];
    CHECK_EQ_INT(am_resolve(db, "tg", "g1-handle", uid), AM_NOTFOUND);
    char *json = NULL;
    CHECK_EQ_INT(am_export(db, "g1", &json), AM_OK);
    CHECK_CONTAINS(json, "\"state\":\"held\"");
    CHECK_CONTAINS(json, "\"purge_at\":\"2026-03-02T11:00:00");
    CHECK(json && !strstr(json, "无烟房") && !strstr(json, "aisle") && !strstr(json, a.event_id));
    am_free(json);
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = "g1";
    ev.text = "hello again";
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_DENIED);
    CHECK_CONTAINS(am_errmsg(db), "forgotten");
    CHECK_EQ_INT(am_link(db, "tg", "g1-other", "g1"), AM_DENIED);
    CHECK_EQ_INT(am_forget(db, "g1", AM_FORGET_EVENT, a.event_id, NULL), AM_NOTFOUND);
    CHECK(recalls(db, "g2", "what milk do I like", "oat")); /* others untouched */
    /* restore: everything back, audited */
    set_now("2026-03-02T10:30:00Z");
    CHECK_EQ_INT(am_restore(db, "g1"), AM_OK);
    CHECK(recalls(db, "g1", "订酒店有什么要求", "无烟房"));
    CHECK_EQ_INT(am_resolve(db, "tg", "g1-handle", uid), AM_OK);
    CHECK_EQ_INT(am_task_get(db, "g1", "trip", &t), AM_OK);
    am_task_free(t);
    json = NULL;
    CHECK_EQ_INT(am_export(db, "g1", &json), AM_OK);
    CHECK_CONTAINS(json, "\"op\":\"restore\"");
    CHECK_CONTAINS(json, "\"op\":\"forget\"");
    CHECK_CONTAINS(json, "aisle");
    am_free(json);
    CHECK_EQ_INT(am_restore(db, "g1"), AM_NOTFOUND); /* not forgotten */
    /* forgotten again; the grace period ends: restore refused, data gone */
    CHECK_EQ_INT(am_forget(db, "g1", AM_FORGET_USER, NULL, NULL), AM_OK);
    am_close(db);
    CHECK(sql_count("SELECT count(*) FROM events WHERE user_id=?1", "g1") == 2);
    set_now("2026-03-02T11:30:00Z");
    db = open_file(3600 * 1000); /* due: purged on open */
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM events WHERE user_id=?1", "g1"), 0);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM memory_items WHERE user_id=?1", "g1"), 0);
    CHECK_EQ_INT(am_restore(db, "g1"), AM_DENIED); /* purged */
    json = NULL;
    CHECK_EQ_INT(am_export(db, "g1", &json), AM_OK);
    CHECK_CONTAINS(json, "\"state\":\"purged\"");
    am_free(json);
    /* the id is free again: a new user */
    add_as(db, "g1", "user", "s9", NULL, "2026-03-03T10:00:00Z", "From now on I prefer window seats");
    CHECK(!recalls(db, "g1", "which seat do I like", "aisle"));
    CHECK(recalls(db, "g1", "which seat do I like", "window"));
    am_close(db);
    for (size_t i = 0; i < 3; i++) CHECK(!store_holds(i == 0 ? "无烟房" : i == 1 ? "claustrophobic" : "g1-handle"));
    store_remove();
}

/* A due purge past its grace period with no open to run it is done by
 * the next writes, a step each, or by am_optimize. */
static void test_forget_purge_on_writes(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_forget_writes_%d.db", (int)getpid());
    store_remove();
    am_db *db = open_file(60 * 1000);
    add_as(db, "p1", "user", "s1", NULL, "2026-03-01T10:00:00Z", "我的护照号码放在蓝色文件袋里");
    set_now("2026-03-01T11:00:00Z");
    CHECK_EQ_INT(am_forget(db, "p1", AM_FORGET_USER, NULL, NULL), AM_OK);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM events WHERE user_id=?1", "p1"), 1);
    for (int i = 0; i < 6; i++) {
        char at[40];
        snprintf(at, sizeof at, "2026-03-01T11:%02d:00Z", 2 + i);
        add_as(db, "p2", "user", "s1", NULL, at, "The weather is fine today");
    }
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM events WHERE user_id=?1", "p1"), 0);
    CHECK_EQ_INT(am_optimize(db), AM_OK);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM forget_jobs", NULL), 0);
    am_close(db);
    CHECK(!store_holds("蓝色文件袋"));
    store_remove();
}

/* ------------------------------------------------------------ grace at every level */

typedef struct grace_texts {
    const char *lang, *aisle, *url_note, *smoke, *other, *query;
    const char *marks[3]; /* in aisle (two) and in url_note */
} grace_texts;

static const grace_texts grace_cases[] = {
    {"zh", "以后我只坐靠过道的座位，暗号是翡翠鹭鸶，邮箱 jadeheron5521@example.cn",
     "这次先用 https://docs.example.cn/hotel-5521 里的清单",
     "以后订酒店都要无烟房，我对烟味过敏", "预算表周五前交给财务部",
     "座位 暗号 酒店 清单 无烟房",
     {"翡翠鹭鸶", "jadeheron5521@example.cn", "docs.example.cn/hotel-5521"}},
    {"en", "From now on I only take aisle seats, the passphrase is Vermilion Heron, mail heron5521@example.net",
     "Just this once, use the checklist at https://docs.example.com/hotel-5521",
     "From now on book non-smoking rooms, I am allergic to smoke",
     "The budget sheet goes to finance before Friday",
     "seats passphrase hotel checklist smoking rooms",
     {"Vermilion Heron", "heron5521@example.net", "docs.example.com/hotel-5521"}},
};

/* The ids a recall returns (memories, events, the task), in their order. */
static void recall_ids(am_db *db, const char *user, const char *text, char *out, size_t cap)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = user;
    q.text = text;
    q.session_id = "s9";
    am_recall_result *r = NULL;
    out[0] = 0;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
    for (const char *p = r ? r->json : ""; (p = strstr(p, "\"id\":\"")) != NULL;) {
        p += 6;
        const char *e = strchr(p, '"');
        size_t k = strlen(out);
        if (!e || k + (size_t)(e - p) + 2 >= cap) break;
        snprintf(out + k, cap - k, "%.*s ", (int)(e - p), p);
    }
    am_recall_free(r);
}

/* What `task` shows of task T (notes, artifacts, pending, history), or
 * "-" when it is not found. */
static void task_text(am_db *db, const char *user, const char *task, char *out, size_t cap)
{
    am_task *t = NULL;
    snprintf(out, cap, "-");
    if (am_task_get(db, user, task, &t) != AM_OK || !t) return;
    snprintf(out, cap, "%s|%s|%s|%s|%s", t->status ? t->status : "", t->stage ? t->stage : "",
             t->notes_json, t->artifacts_json, t->pending_json);
    for (size_t i = 0; i < t->n_history; i++) {
        size_t k = strlen(out);
        snprintf(out + k, cap - k, "|%s:%s>%s", t->history[i].field,
                 t->history[i].old_value ? t->history[i].old_value : "",
                 t->history[i].new_value ? t->history[i].new_value : "");
    }
    am_task_free(t);
}

static void memories_text(am_db *db, const char *user, char *out, size_t cap)
{
    am_memory_list *l = NULL;
    out[0] = 0;
    CHECK_EQ_INT(am_memories(db, user, AM_LIST_ALL, NULL, &l), AM_OK);
    for (size_t i = 0; l && i < l->n; i++) {
        size_t k = strlen(out);
        snprintf(out + k, cap - k, "%s %s|", l->items[i].id, l->items[i].text);
    }
    am_memory_list_free(l);
}

static char *export_of(am_db *db, const char *user)
{
    char *json = NULL;
    CHECK_EQ_INT(am_export(db, user, &json), AM_OK);
    return json ? json : calloc(1, 1);
}

/* The space-separated words of s in ascending order, in place. */
static int cmp_word(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}
static void sort_words(char *s)
{
    char *w[256], copy[2048];
    size_t n = 0;
    snprintf(copy, sizeof copy, "%s", s);
    for (char *t = strtok(copy, " "); t && n < 256; t = strtok(NULL, " ")) w[n++] = t;
    qsort(w, n, sizeof *w, cmp_word);
    char out[2048] = "";
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(out);
        snprintf(out + k, sizeof out - k, "%s ", w[i]);
    }
    snprintf(s, 2048, "%s", out);
}

/* An event, a session or a task forgotten with a grace period: hidden at
 * once from recall, memories, task, event_find, feedback and export (an
 * item with another source stays); restore brings it back exactly (the
 * same recall results, memories, task); after the period restore is
 * refused and, with another process holding the store open, no byte of
 * it is left in the files. */
static void test_forget_grace_levels(void)
{
    static const char *const lv_names[] = {"", "event", "session", "task"};
    for (size_t c = 0; c < sizeof grace_cases / sizeof *grace_cases; c++)
        for (int level = AM_FORGET_EVENT; level <= AM_FORGET_TASK; level++) {
            const grace_texts *g = &grace_cases[c];
            fprintf(stderr, "  %s %s\n", g->lang, lv_names[level]);
            snprintf(path, sizeof path, "/tmp/am_test_forget_gl_%d.db", (int)getpid());
            store_remove();
            am_db *db = open_file(3600 * 1000);
            add_as(db, "h1", "user", "s2", "other", "2026-04-01T09:00:00Z", g->smoke);
            add_as(db, "h1", "user", "s2", "other", "2026-04-01T09:01:00Z", g->other);
            am_add_info aisle = add_as(db, "h1", "user", "s1", "trip", "2026-04-02T09:00:00Z", g->aisle);
            add_as(db, "h1", "user", "s1", "trip", "2026-04-02T09:01:00Z", g->url_note);
            add_as(db, "h1", "user", "s1", "trip", "2026-04-02T09:02:00Z", g->smoke);
            set_now("2026-04-03T10:00:00Z");
            char before[2048], mem_before[4096], task_before[4096], after[2048], mem_after[4096],
                task_after[4096];
            recall_ids(db, "h1", g->query, before, sizeof before);
            memories_text(db, "h1", mem_before, sizeof mem_before);
            task_text(db, "h1", "trip", task_before, sizeof task_before);
            CHECK_CONTAINS(task_before, g->marks[2]); /* the note and its link */
            char *json = export_of(db, "h1");
            for (int m = 0; m < 3; m += 2) CHECK_CONTAINS(json, g->marks[m]); /* (1: in the vault) */
            am_free(json);
            /* the item only the aisle event holds */
            char aisle_item[32] = "";
            am_memory_list *l = NULL;
            CHECK_EQ_INT(am_memories(db, "h1", AM_LIST_ALL, NULL, &l), AM_OK);
            for (size_t i = 0; l && i < l->n; i++)
                if (strstr(l->items[i].text, g->marks[0])) snprintf(aisle_item, sizeof aisle_item, "%s", l->items[i].id);
            am_memory_list_free(l);
            CHECK(aisle_item[0] != 0);
            const char *id = level == AM_FORGET_EVENT ? aisle.event_id : level == AM_FORGET_SESSION ? "s1" : "trip";
            int hidden = level == AM_FORGET_EVENT ? 2 : 3; /* marks hidden */
            am_forget_info info;
            CHECK_EQ_INT(am_forget(db, "h1", level, id, &info), AM_OK);
            CHECK_EQ_INT(info.events, level == AM_FORGET_EVENT ? 1 : 3);
            CHECK(sql_count("SELECT count(*) FROM held_events WHERE user_id=?1", "h1") > 0);
            /* hidden at once */
            char got[4096];
            recall_ids(db, "h1", g->query, got, sizeof got);
            CHECK(strstr(got, aisle.event_id) == NULL && strstr(got, aisle_item) == NULL);
            for (int m = 0; m < hidden; m++) CHECK(!recalls(db, "h1", g->query, g->marks[m]));
            memories_text(db, "h1", got, sizeof got);
            for (int m = 0; m < hidden; m++) CHECK(strstr(got, g->marks[m]) == NULL);
            CHECK(strstr(got, aisle_item) == NULL);
            CHECK_CONTAINS(got, g->smoke); /* another source holds it */
            task_text(db, "h1", "trip", got, sizeof got);
            for (int m = 0; m < hidden; m++) CHECK(strstr(got, g->marks[m]) == NULL);
            if (level != AM_FORGET_EVENT) CHECK_EQ_STR(got, "-");
            else CHECK_CONTAINS(got, g->marks[2]);
            char eid[32];
            CHECK_EQ_INT(am_event_find(db, "h1", g->marks[0], eid), AM_NOTFOUND);
            CHECK_EQ_INT(am_feedback(db, "h1", aisle_item, AM_FEEDBACK_CONFIRM, NULL), AM_NOTFOUND);
            json = export_of(db, "h1");
            for (int m = 0; m < hidden; m++) CHECK(strstr(json, g->marks[m]) == NULL);
            CHECK(strstr(json, aisle_item) == NULL);
            CHECK_CONTAINS(json, "\"held\":[{\"level\":\"");
            CHECK_CONTAINS(json, "\"purge_at\":\"2026-04-03T11:00:00");
            CHECK_CONTAINS(json, id); /* the tombstone: ids, no content */
            am_free(json);
            /* restore: as it was */
            set_now("2026-04-03T10:30:00Z");
            CHECK_EQ_INT(am_restore_forget(db, "h1", level, "no-such-id"), AM_NOTFOUND);
            CHECK_EQ_INT(am_restore_forget(db, "h1", level, id), AM_OK);
            set_now("2026-04-03T10:00:00Z");
            recall_ids(db, "h1", g->query, after, sizeof after);
            memories_text(db, "h1", mem_after, sizeof mem_after);
            task_text(db, "h1", "trip", task_after, sizeof task_after);
            /* the same results; their order may move by the heat the
             * recalls in between gave the items that stayed visible */
            sort_words(after);
            sort_words(before);
            CHECK_EQ_STR(after, before);
            CHECK_EQ_STR(mem_after, mem_before);
            CHECK_EQ_STR(task_after, task_before);
            CHECK_EQ_INT(am_event_find(db, "h1", g->marks[0], eid), AM_OK);
            json = export_of(db, "h1");
            for (int m = 0; m < 3; m += 2) CHECK_CONTAINS(json, g->marks[m]);
            CHECK_CONTAINS(json, "\"op\":\"restore\"");
            am_free(json);
            CHECK_EQ_INT(sql_count("SELECT count(*) FROM held_events", NULL), 0);
            CHECK_EQ_INT(am_restore_forget(db, "h1", level, id), AM_NOTFOUND); /* not held */
            /* forgotten again; the period ends while another process
             * holds the store open: purged, nothing left in the files */
            set_now("2026-04-03T11:00:00Z");
            CHECK_EQ_INT(am_forget(db, "h1", level, id, NULL), AM_OK);
            am_close(db);
            int down_w = -1;
            pid_t pid = holder_start(holder_recall, &down_w);
            CHECK(pid > 0);
            if (pid <= 0) return;
            set_now("2026-04-03T12:30:00Z");
            db = open_file(3600 * 1000); /* due: purged on open */
            CHECK_EQ_INT(am_restore_forget(db, "h1", level, id), AM_DENIED);
            CHECK_EQ_INT(sql_count("SELECT count(*) FROM held_events", NULL), 0);
            CHECK_EQ_INT(sql_count("SELECT count(*) FROM forget_jobs", NULL), 0);
            for (int m = 0; m < hidden; m++) CHECK(!store_holds(g->marks[m]));
            CHECK(store_holds(g->other)); /* what was not forgotten stays */
            holder_end(pid, down_w);
            recall_ids(db, "h1", g->query, got, sizeof got);
            CHECK(strstr(got, aisle.event_id) == NULL);
            am_close(db);
            store_remove();
        }
}

/* A write during the grace period does not bring hidden content back: the
 * same statement again (a reinforcement of the item only the hidden
 * event held) makes a new item and a new event, the hidden ones stay
 * out of memories, recall, feedback and export.  The new event takes the
 * hidden one's row id (the last one); restore gives the hidden event a
 * new one and both are there. */
static void test_forget_grace_no_resurrect(void)
{
    static const char *const texts[][2] = {
        {"以后我只坐靠过道的座位，别给我订靠窗的", "座位"},
        {"From now on I only take aisle seats, never the window", "aisle seats"},
    };
    for (size_t c = 0; c < 2; c++) {
        snprintf(path, sizeof path, "/tmp/am_test_forget_nr_%d.db", (int)getpid());
        store_remove();
        am_db *db = open_file(3600 * 1000);
        add_as(db, "r1", "user", "s0", NULL, "2026-04-01T09:00:00Z", "The budget sheet goes to finance before Friday");
        am_add_info x = add_as(db, "r1", "user", "s1", NULL, "2026-04-02T09:00:00Z", texts[c][0]);
        char item[32] = "";
        am_memory_list *l = NULL;
        CHECK_EQ_INT(am_memories(db, "r1", AM_LIST_ALL, NULL, &l), AM_OK);
        for (size_t i = 0; l && i < l->n; i++)
            if (strcmp(l->items[i].text, texts[c][0]) == 0) snprintf(item, sizeof item, "%s", l->items[i].id);
        am_memory_list_free(l);
        CHECK(item[0] != 0);
        set_now("2026-04-03T09:00:00Z");
        CHECK_EQ_INT(am_forget(db, "r1", AM_FORGET_EVENT, x.event_id, NULL), AM_OK);
        am_add_info y = add_as(db, "r1", "user", "s2", NULL, "2026-04-03T09:05:00Z", texts[c][0]);
        CHECK(strcmp(y.event_id, x.event_id) != 0);
        CHECK_EQ_INT(sql_count("SELECT count(*) FROM held_events WHERE rid IN (SELECT rid FROM events)", NULL), 1);
        char got[4096];
        memories_text(db, "r1", got, sizeof got);
        CHECK(strstr(got, item) == NULL);
        CHECK_CONTAINS(got, texts[c][0]); /* the new one */
        recall_ids(db, "r1", texts[c][1], got, sizeof got);
        CHECK(strstr(got, item) == NULL && strstr(got, x.event_id) == NULL);
        CHECK_CONTAINS(got, y.event_id);
        CHECK_EQ_INT(am_feedback(db, "r1", item, AM_FEEDBACK_REJECT, NULL), AM_NOTFOUND);
        char *json = export_of(db, "r1");
        char *audit = strstr(json, "\"audit\":[");
        if (audit) *audit = 0; /* (the audit trail keeps ids: forget, add) */
        const char *rows = strstr(json, "\"events\":[");
        CHECK(rows && strstr(rows, item) == NULL && strstr(rows, x.event_id) == NULL);
        CHECK_CONTAINS(json, "\"held\":[{\"level\":\"event\""); /* its tombstone */
        am_free(json);
        /* restore: the hidden event back under a new row id, beside the new one */
        CHECK_EQ_INT(am_restore_forget(db, "r1", AM_FORGET_EVENT, x.event_id), AM_OK);
        CHECK_EQ_INT(sql_count("SELECT count(*) FROM events WHERE user_id=?1", "r1"), 3);
        CHECK_EQ_INT(sql_count("SELECT count(*) FROM events_fts_content", NULL), 3);
        CHECK_EQ_INT(sql_count("SELECT count(*) FROM held_events", NULL), 0);
        recall_ids(db, "r1", texts[c][1], got, sizeof got);
        CHECK_CONTAINS(got, x.event_id);
        CHECK_CONTAINS(got, y.event_id);
        memories_text(db, "r1", got, sizeof got);
        CHECK_CONTAINS(got, item);
        am_close(db);
        store_remove();
    }
}

/* Held data forgotten again at once (an event of a held session) is
 * purged now: the held session's restore is refused.  A user forget
 * takes the user's held rows and jobs with it. */
static void test_forget_grace_again(void)
{
    static const char *const texts[] = {"我的储物柜密码写在琥珀色笔记本的最后一页",
                                        "My locker code is on the last page of the amber notebook"};
    snprintf(path, sizeof path, "/tmp/am_test_forget_again_%d.db", (int)getpid());
    store_remove();
    am_db *db = open_file(3600 * 1000);
    am_add_info a = add_as(db, "q1", "user", "s1", NULL, "2026-04-01T09:00:00Z", texts[0]);
    add_as(db, "q1", "user", "s2", "t2", "2026-04-01T09:01:00Z", texts[1]);
    add_as(db, "q2", "user", "s1", NULL, "2026-04-01T09:02:00Z", "The weather is fine today");
    set_now("2026-04-02T09:00:00Z");
    CHECK_EQ_INT(am_forget(db, "q1", AM_FORGET_SESSION, "s1", NULL), AM_OK);
    CHECK_EQ_INT(am_forget(db, "q1", AM_FORGET_TASK, "t2", NULL), AM_OK);
    am_close(db);
    CHECK(store_holds("琥珀色笔记本")); /* held: still in the file */
    db = open_file(0);
    CHECK_EQ_INT(am_forget(db, "q1", AM_FORGET_EVENT, a.event_id, NULL), AM_OK); /* now */
    CHECK_EQ_INT(am_restore_forget(db, "q1", AM_FORGET_SESSION, "s1"), AM_DENIED);
    CHECK_EQ_INT(am_forget(db, "q1", AM_FORGET_EVENT, a.event_id, NULL), AM_NOTFOUND);
    am_close(db);
    CHECK(!store_holds("琥珀色笔记本"));
    CHECK(store_holds("amber notebook")); /* the task is still held */
    db = open_file(0);
    CHECK_EQ_INT(am_forget(db, "q1", AM_FORGET_USER, NULL, NULL), AM_OK);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM held_events", NULL), 0);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM held_events_fts", NULL), 0);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM forget_jobs", NULL), 0);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM forget_jobs WHERE user_id=?1", "q1"), 0);
    CHECK(recalls(db, "q2", "weather", "fine"));
    am_close(db);
    CHECK(!store_holds("amber notebook"));
    store_remove();
}

/* ------------------------------------------------------------ chunks, a killed purge */

/* A user with many events is purged in steps of a bounded size; a
 * process that stops between them leaves the user hidden, and the next
 * open finishes the purge.  Then a real kill -9 in the middle. */
static void test_forget_in_steps(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_forget_steps_%d.db", (int)getpid());
    store_remove();
    am_db *db = open_file(0);
    enum { N = 700 };
    static am_event evs[N];
    static char texts[N][96];
    for (int i = 0; i < N; i++) {
        memset(&evs[i], 0, sizeof evs[i]);
        evs[i].user_id = "big";
        evs[i].session_id = i % 2 ? "s1" : "s2";
        snprintf(texts[i], sizeof texts[i], i % 2 ? "第%d次提醒：周五前交季度报表" : "Reminder %d: the quarterly report is due Friday", i);
        evs[i].text = texts[i];
    }
    set_now("2026-03-01T10:00:00Z");
    CHECK_EQ_INT(am_add_events(db, evs, N, NULL), AM_OK);
    add_as(db, "small", "user", "s1", NULL, "2026-03-01T10:00:00Z", "From now on I prefer green tea");
    /* the forget recorded, one step done, then the process stops */
    am__store *s = db->store;
    long e, it, tk;
    CHECK_EQ_INT(am__store_begin(s), AM_OK);
    CHECK_EQ_INT(am__forget_user(s, "big", now_ms, now_ms, &e, &it, &tk), AM_OK);
    CHECK_EQ_INT(am__store_commit(s), AM_OK);
    CHECK_EQ_INT(e, N);
    int more = 0;
    CHECK_EQ_INT(am__forget_work(s, now_ms, 1, &more), AM_OK);
    CHECK_EQ_INT(more, 1);
    long long left = sql_count("SELECT count(*) FROM events WHERE user_id=?1", "big");
    CHECK(left >= N - 256 && left < N); /* one bounded step */
    CHECK(!recalls(db, "big", "quarterly report 季度报表", "Friday"));
    char *json = NULL;
    CHECK_EQ_INT(am_export(db, "big", &json), AM_OK);
    CHECK_CONTAINS(json, "\"state\":\"purging\"");
    am_free(json);
    am_close(db);
    db = open_file(0); /* finishes it */
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM events WHERE user_id=?1", "big"), 0);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM forget_jobs", NULL), 0);
    CHECK(recalls(db, "small", "what tea do I like", "green tea"));
    /* kill -9 during a purge: the next open finishes it */
    for (int i = 0; i < N; i++) evs[i].user_id = "big2";
    CHECK_EQ_INT(am_add_events(db, evs, N, NULL), AM_OK);
    am_close(db);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        am_db *c = open_file(0);
        am_forget(c, "big2", AM_FORGET_USER, NULL, NULL);
        _exit(0);
    }
    /* killed as soon as the forget is recorded (or after it ended) */
    int status, ended = 0;
    for (int i = 0; i < 20000 && !ended; i++) {
        if (sql_count("SELECT count(*) FROM forget_jobs", NULL) > 0) break;
        ended = waitpid(pid, &status, WNOHANG) == pid;
        nanosleep(&(struct timespec){0, 500 * 1000}, NULL);
    }
    if (!ended) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    fprintf(stderr, "  killed with %lld of %d events left\n",
            sql_count("SELECT count(*) FROM events WHERE user_id=?1", "big2"), N);
    db = open_file(0);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM events WHERE user_id=?1", "big2"), 0);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM users WHERE user_id=?1", "big2"), 0);
    CHECK(recalls(db, "small", "what tea do I like", "green tea"));
    am_close(db);
    CHECK(!store_holds("季度报表"));
    store_remove();
}

/* A task's workspace leaves the files with its task (task forget, a
 * session forget that leaves the task without events) and with its user. */
static void test_forget_workspace(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_forget_ws_%d.db", (int)getpid());
    store_remove();
    am_db *db = open_file(0);
    add(db, "w1", "s1", "trip", "2026-03-10T10:00:00Z", "Plan the Vermilion trip");
    add(db, "w1", "s2", "deck", "2026-03-10T10:05:00Z", "整理季度汇报的幻灯片");
    add(db, "w2", "s1", "trip", "2026-03-10T10:10:00Z", "计划去成都旅行");
    add(db, "w3", "s1", "trip", "2026-03-10T10:15:00Z", "Plan the trip");
    static const struct {
        const char *user, *task, *text;
    } ws[] = {{"w1", "trip", "Vermilionfox shortlist"}, {"w1", "deck", "琥珀鹦鹉图表"},
              {"w2", "trip", "翡翠狐狸酒店"}, {"w3", "trip", "Obsidianwren seats"}};
    for (size_t i = 0; i < sizeof ws / sizeof *ws; i++)
        CHECK_EQ_INT(am_workspace_put(db, ws[i].user, ws[i].task, "planner", ws[i].text, NULL, NULL,
                                      NULL), AM_OK);
    am_close(db);
    for (size_t i = 0; i < sizeof ws / sizeof *ws; i++) CHECK(store_holds(ws[i].text));
    db = open_file(0);
    set_now("2026-03-20T10:00:00Z");
    CHECK_EQ_INT(am_forget(db, "w1", AM_FORGET_TASK, "trip", NULL), AM_OK);
    CHECK_EQ_INT(am_forget(db, "w1", AM_FORGET_SESSION, "s2", NULL), AM_OK);
    CHECK_EQ_INT(am_forget(db, "w2", AM_FORGET_USER, NULL, NULL), AM_OK);
    CHECK(!store_holds(ws[0].text));
    CHECK(!store_holds(ws[1].text));
    CHECK(!store_holds(ws[2].text));
    CHECK(store_holds(ws[3].text)); /* another user's stays */
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM task_workspace WHERE user_id=?", "w1"), 0);
    am_workspace *w = NULL;
    CHECK_EQ_INT(am_workspace_get(db, "w1", "trip", &w), AM_NOTFOUND);
    CHECK_EQ_INT(am_workspace_get(db, "w3", "trip", &w), AM_OK);
    CHECK(w && w->n == 1);
    am_workspace_free(w);
    am_close(db);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM task_workspace WHERE user_id=?", "w2"), 0);
    store_remove();
}

/* A task forgotten with a grace period holds its workspace with it: gone
 * from reads at once, back as it was on restore (an entry an agent wrote
 * during the period, newer, stays), purged at the end of the period. */
static void test_forget_grace_workspace(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_forget_gws_%d.db", (int)getpid());
    store_remove();
    set_now("2026-03-10T10:00:00Z");
    am_db *db = open_file(3600 * 1000);
    add(db, "g1", "s1", "trip", "2026-03-10T10:00:00Z", "Plan the Vermilion trip to 成都");
    CHECK_EQ_INT(am_workspace_put(db, "g1", "trip", "planner", "Cobaltheron shortlist", "订了机票",
                                  NULL, NULL), AM_OK);
    CHECK_EQ_INT(am_workspace_put(db, "g1", "trip", "booker", "比较翡翠鹦鹉酒店", NULL, "pay", NULL),
                 AM_OK);
    am_workspace *w = NULL;
    CHECK_EQ_INT(am_workspace_get(db, "g1", "trip", &w), AM_OK);
    char before[2048];
    snprintf(before, sizeof before, "%s", w ? w->json : "");
    am_workspace_free(w);
    CHECK_EQ_INT(am_forget(db, "g1", AM_FORGET_TASK, "trip", NULL), AM_OK);
    w = NULL;
    CHECK_EQ_INT(am_workspace_get(db, "g1", "trip", &w), AM_NOTFOUND);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM task_workspace WHERE user_id=?", "g1"), 0);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM held_task_workspace WHERE user_id=?", "g1"), 2);
    CHECK_EQ_INT(am_restore_forget(db, "g1", AM_FORGET_TASK, "trip"), AM_OK);
    w = NULL;
    CHECK_EQ_INT(am_workspace_get(db, "g1", "trip", &w), AM_OK);
    CHECK(w && w->n == 2);
    if (w) CHECK_EQ_STR(w->json, before);
    am_workspace_free(w);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM held_task_workspace", NULL), 0);
    /* forgotten again; an agent writes during the period; restored: its
     * newer entry stays beside the held one */
    CHECK_EQ_INT(am_forget(db, "g1", AM_FORGET_TASK, "trip", NULL), AM_OK);
    add(db, "g1", "s2", "trip", "2026-03-10T10:20:00Z", "Trip again");
    CHECK_EQ_INT(am_workspace_put(db, "g1", "trip", "booker", "重新比较酒店", NULL, NULL, NULL), AM_OK);
    CHECK_EQ_INT(am_restore_forget(db, "g1", AM_FORGET_TASK, "trip"), AM_OK);
    w = NULL;
    CHECK_EQ_INT(am_workspace_get(db, "g1", "trip", &w), AM_OK);
    CHECK(w && w->n == 2);
    if (w) {
        CHECK_CONTAINS(w->json, "重新比较酒店");
        CHECK_CONTAINS(w->json, "Cobaltheron shortlist");
    }
    am_workspace_free(w);
    /* forgotten once more; the period ends: nothing of it in the files */
    CHECK_EQ_INT(am_forget(db, "g1", AM_FORGET_TASK, "trip", NULL), AM_OK);
    am_close(db);
    set_now("2026-03-10T12:30:00Z");
    db = open_file(3600 * 1000);
    CHECK_EQ_INT(am_restore_forget(db, "g1", AM_FORGET_TASK, "trip"), AM_DENIED);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM held_task_workspace", NULL), 0);
    am_close(db);
    CHECK(!store_holds("Cobaltheron shortlist"));
    CHECK(!store_holds("翡翠鹦鹉酒店"));
    store_remove();
}

/* What a progress callback saw. */
typedef struct seen {
    size_t calls, last_done, last_total, unknown;
    int backwards;
} seen;
static void on_progress(void *ctx, size_t done, size_t total)
{
    seen *s = ctx;
    if (s->calls && done < s->last_done) s->backwards = 1;
    if (total == 0) s->unknown++;
    s->last_done = done;
    s->last_total = total;
    s->calls++;
}

/* am_forget_ex: a user's purge in steps, counted (total unknown until the
 * end: (n, n) last); an event forget: its transaction and the scrub;
 * NULL progress is am_forget; a failed forget calls nothing.
 * am_optimize_ex: (0, 4) .. (4, 4). */
static void test_forget_progress(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_forget_progress_%d.db", (int)getpid());
    store_remove();
    am_db *db = open_file(0);
    enum { N = 300 };
    static am_event evs[N];
    static char texts[N][96];
    for (int i = 0; i < N; i++) {
        memset(&evs[i], 0, sizeof evs[i]);
        evs[i].user_id = i < N - 2 ? "big" : "small";
        evs[i].session_id = i % 2 ? "s1" : "s2";
        snprintf(texts[i], sizeof texts[i], i % 2 ? "第%d次提醒：周五前交季度报表" : "Reminder %d: the quarterly report is due Friday", i);
        evs[i].text = texts[i];
    }
    set_now("2026-03-01T10:00:00Z");
    am_add_info infos[N];
    CHECK_EQ_INT(am_add_events(db, evs, N, infos), AM_OK);
    seen u = {0};
    am_forget_info info;
    CHECK_EQ_INT(am_forget_ex(db, "big", AM_FORGET_USER, NULL, on_progress, &u, &info), AM_OK);
    CHECK_EQ_INT(info.events, N - 2);
    /* the forget, (N-2)/32 purge chunks and more: several steps */
    CHECK(u.calls >= 1 + (N - 2) / 32);
    CHECK_EQ_INT(u.backwards, 0);
    CHECK_EQ_INT((int)u.unknown, (int)u.calls - 1); /* all but the last */
    CHECK_EQ_INT((int)u.last_done, (int)u.calls - 1);
    CHECK_EQ_INT((int)u.last_total, (int)u.last_done);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM events WHERE user_id=?1", "big"), 0);
    /* an event: its transaction, then the index's scrub */
    seen e = {0};
    CHECK_EQ_INT(am_forget_ex(db, "small", AM_FORGET_EVENT, infos[N - 1].event_id, on_progress, &e,
                              &info), AM_OK);
    CHECK_EQ_INT((int)info.events, 1);
    CHECK(e.calls >= 2);
    CHECK_EQ_INT(e.backwards, 0);
    CHECK(e.last_done >= 1);
    CHECK_EQ_INT((int)e.last_total, (int)e.last_done);
    /* unknown id: an error, no call */
    seen none = {0};
    CHECK_EQ_INT(am_forget_ex(db, "small", AM_FORGET_SESSION, "s-none", on_progress, &none, &info),
                 AM_NOTFOUND);
    CHECK_EQ_INT((int)none.calls, 0);
    /* NULL progress */
    CHECK_EQ_INT(am_forget_ex(db, "small", AM_FORGET_USER, NULL, NULL, NULL, &info), AM_OK);
    CHECK_EQ_INT((int)info.events, 1);
    /* optimize: its four steps */
    seen o = {0};
    CHECK_EQ_INT(am_optimize_ex(db, on_progress, &o), AM_OK);
    CHECK_EQ_INT((int)o.calls, AM_OPTIMIZE_STEPS + 1);
    CHECK_EQ_INT((int)o.last_done, AM_OPTIMIZE_STEPS);
    CHECK_EQ_INT((int)o.last_total, AM_OPTIMIZE_STEPS);
    CHECK_EQ_INT(o.backwards, 0);
    CHECK_EQ_INT((int)o.unknown, 0);
    CHECK_EQ_INT(am_optimize_ex(db, NULL, NULL), AM_OK);
    am_close(db);
    CHECK(!store_holds("季度报表"));
    store_remove();
}

int main(void)
{
    RUN(test_forget_grace_workspace);
    RUN(test_forget_rebuilds_task);
    RUN(test_forget_rebuilds_rounds);
    RUN(test_forget_task_without_events);
    RUN(test_forget_leaves_no_byte);
    RUN(test_forget_audit_pseudonym);
    RUN(test_forget_grace_restore);
    RUN(test_forget_purge_on_writes);
    RUN(test_forget_grace_levels);
    RUN(test_forget_grace_no_resurrect);
    RUN(test_forget_grace_again);
    RUN(test_forget_in_steps);
    RUN(test_forget_workspace);
    RUN(test_forget_progress);
    TEST_MAIN_END();
}
