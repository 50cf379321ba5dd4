/*
 * test_forget.c -- forgetting reaches everything (F24, docs/FORGETTING.md):
 * task state rebuilt without the forgotten events, no forgotten byte left
 * in the store's files while another process holds the store open, an
 * audit trail that guessing the user id cannot find, the grace period and
 * restore, the tombstone export, and a user purge in short steps that a
 * killed process leaves to the next open.  Chinese and English texts.
 * Real files, real processes (fork), the public API plus raw SQLite reads
 * of what the files hold.
 */
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "api_util.h"
#include "api/db_int.h"

static char path[256];

static void store_remove(void)
{
    char p[300];
    unlink(path);
    snprintf(p, sizeof p, "%s-wal", path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", path);
    unlink(p);
}

static am_db *open_file(am_time grace_ms)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = path;
    cfg.clock = test_clock;
    cfg.forget_grace_ms = grace_ms;
    am_db *db = NULL;
    char *err = NULL;
    int rc = am_open(&cfg, &db, &err);
    if (rc) fprintf(stderr, "open: %s\n", err ? err : "?");
    CHECK_EQ_INT(rc, AM_OK);
    am_free(err);
    return db;
}

/* 1 when the file holds needle[0..n) */
static int file_holds_n(const char *file, const char *needle, size_t n)
{
    FILE *f = fopen(file, "rb");
    if (!f) return 0;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    int found = 0;
    size_t r;
    while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) break;
            buf = nb;
            cap *= 2;
        }
    }
    for (size_t i = 0; buf && n && i + n <= len && !found; i++)
        if (buf[i] == needle[0] && memcmp(buf + i, needle, n) == 0) found = 1;
    free(buf);
    fclose(f);
    return found;
}

/* ".db" or "-wal" holds needle[0..n) */
static int store_holds_n(const char *needle, size_t n, const char *what)
{
    char wal[300];
    snprintf(wal, sizeof wal, "%s-wal", path);
    int in_db = file_holds_n(path, needle, n), in_wal = file_holds_n(wal, needle, n);
    if (in_db || in_wal)
        fprintf(stderr, "  \"%s\" is in %s%s\n", what, in_db ? ".db " : "", in_wal ? "-wal" : "");
    return in_db || in_wal;
}

static int store_holds(const char *needle)
{
    return store_holds_n(needle, strlen(needle), needle);
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

static long long sql_count(const char *sql, const char *arg)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long long n = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (arg) sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
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

/* A child process that holds the store open (a handle that has read it)
 * until told to finish: up[1] says it is ready, down[0] says go. */
static pid_t holder_start(int *down_w)
{
    int up[2], down[2];
    if (pipe(up) || pipe(down)) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(up[0]);
        close(down[1]);
        am_config cfg;
        am_config_init(&cfg);
        cfg.path = path;
        am_db *db = NULL;
        if (am_open(&cfg, &db, NULL)) _exit(3);
        am_query q;
        memset(&q, 0, sizeof q);
        q.user_id = "w1";
        q.text = "翡翠山猫 Vermilion Otter phone";
        am_recall_result *r = NULL;
        if (am_recall(db, &q, &r)) _exit(4);
        am_recall_free(r);
        char c = 'r';
        if (write(up[1], &c, 1) != 1) _exit(5);
        if (read(down[0], &c, 1) != 1) _exit(6);
        am_close(db);
        _exit(0);
    }
    close(up[1]);
    close(down[0]);
    char c;
    if (pid < 0 || read(up[0], &c, 1) != 1) pid = -1;
    close(up[0]);
    *down_w = down[1];
    return pid;
}

static void holder_end(pid_t pid, int down_w)
{
    char c = 'g';
    CHECK(write(down_w, &c, 1) == 1);
    close(down_w);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
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
    pid_t pid = holder_start(&down_w);
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
        set_now("2026-03-02T10:00:00Z");
        CHECK_EQ_INT(am_forget(db, "lin.zhao", AM_FORGET_USER, NULL, NULL), AM_OK);
        am_close(db);
        static const char *const ids[] = {"lin.zhao", "+8613800001111", "wx-lin-77", "报税"};
        for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
            CHECK_EQ_INT(sql_count("SELECT count(*) FROM audit_log WHERE instr(user_id || ' ' ||"
                                   " coalesce(object_id, '') || ' ' || coalesce(detail, ''), ?1) > 0",
                                   ids[i]),
                         0);
            CHECK(!store_holds(ids[i]));
        }
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
    CHECK_EQ_INT(s->vt->begin(s), AM_OK);
    CHECK_EQ_INT(s->vt->forget_user(s, "big", now_ms, now_ms, &e, &it, &tk), AM_OK);
    CHECK_EQ_INT(s->vt->commit(s), AM_OK);
    CHECK_EQ_INT(e, N);
    int more = 0;
    CHECK_EQ_INT(s->vt->forget_work(s, now_ms, 1, &more), AM_OK);
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

int main(void)
{
    RUN(test_forget_rebuilds_task);
    RUN(test_forget_task_without_events);
    RUN(test_forget_leaves_no_byte);
    RUN(test_forget_audit_pseudonym);
    RUN(test_forget_grace_restore);
    RUN(test_forget_purge_on_writes);
    RUN(test_forget_in_steps);
    TEST_MAIN_END();
}
