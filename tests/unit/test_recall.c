/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_recall.c -- lexical ranking properties of the read path, zh + en:
 * a turn's neighbours (the context column) must not make it look long
 * (BM25F, store/sqlite/fts_rank.c), and a long, chatty question keeps the
 * terms of its real ask at the end, and a question about a date finds
 * that day's turn even when sixty others share more of its words; the
 * speaker of a transcript line, the narrower words of a broad one, the
 * turns that say when, and each clause of a compound question count; a
 * question that names a thing by one fact and asks another finds the
 * second turn (two hops), and the ask of a query that corrects itself
 * outweighs its chatter; the search's caches (row lengths, rows) never
 * show what a fresh connection would not.
 */
#include <math.h>
#include <stdlib.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "api_util.h"
#include "domain/forget.h"
#include "recall/recall.h"
#include "api/db_int.h"
#include "store/sqlite/sqlite_int.h"

/* 1-based rank of the first recalled event containing needle; 0 = absent. */
static size_t rank_of(am_db *db, const char *user, const char *at,
                      const char *text, const char *needle)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = user;
    q.text = text;
    q.max_events = 10;
    q.no_touch = 1;
    set_now(at);
    am_recall_result *r = NULL;
    int rc = am_recall(db, &q, &r);
    if (rc) fprintf(stderr, "recall failed: %s\n", am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
    size_t found = 0;
    for (size_t i = 0; r && i < r->n_events && !found; i++)
        if (strstr(r->events[i].content, needle)) found = i + 1;
    am_recall_free(r);
    return found;
}

/* A turn said in the middle of a chatty exchange (three long neighbours
 * within a minute) against a shorter turn said alone: the one that
 * answers the question must win, however long its neighbours are. */
static void context_does_not_penalise(const char *const chat[3], const char *answer,
                                      const char *other, const char *question,
                                      const char *needle)
{
    am_db *db = open_mem();
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:00+08:00", chat[0]);
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:20+08:00", chat[1]);
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:40+08:00", answer);
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:50+08:00", chat[2]);
    add(db, "u1", "s2", NULL, "2026-03-02T18:00:00+08:00", other);
    /* a history of short turns said alone, as most are */
    static const char *const filler[] = {
        "周末去爬山了", "went hiking at the weekend", "明天开会", "a meeting tomorrow",
        "午饭吃了面条", "had noodles for lunch", "快递到了", "the parcel arrived",
        "下午要交报告", "the report is due this afternoon", "车送去保养", "the car is in for a service",
        "晚上看电影", "watching a film tonight", "买了新鞋", "bought new shoes",
        "咖啡机坏了", "the coffee machine broke", "猫生病了", "the cat is ill",
    };
    for (size_t i = 0; i < sizeof filler / sizeof *filler; i++) {
        char at[40], session[16];
        snprintf(at, sizeof at, "2026-03-03T%02zu:00:00+08:00", i);
        snprintf(session, sizeof session, "f%zu", i);
        add(db, "u1", session, NULL, at, filler[i]);
    }
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-05T09:00:00+08:00", question, needle), 1);
    am_close(db);
}

static void test_context_length_zh(void)
{
    static const char *const chat[3] = {
        "今天天气真不错，阳光明媚，我们下午去公园散步吧，顺便去超市买点水果和蔬菜回来做晚饭",
        "好啊，我还想去书店看看最近有没有新出的小说，上次那本悬疑小说写得特别精彩，一口气就看完了",
        "对了，晚上记得给花浇水，阳台上的那几盆绿萝和多肉最近长得特别快，可能需要换个大一点的花盆",
    };
    context_does_not_penalise(chat, "我爸爸的生日是五月三号", "舅妈的生日是八月九号",
                              "我爸爸的生日是哪天？", "爸爸");
}

static void test_context_length_en(void)
{
    static const char *const chat[3] = {
        "The weather is lovely today, sunny and warm, so let us walk in the park this afternoon "
        "and pick up some fruit and vegetables at the market for dinner",
        "Sure, I also want to stop by the bookshop to see the new novels, that mystery novel "
        "last time was so gripping that I finished it in a single evening",
        "Oh, and remember to water the plants tonight, the pothos and succulents on the balcony "
        "are growing fast and probably need bigger pots soon",
    };
    context_does_not_penalise(chat, "My father's birthday is on May 3rd",
                              "My aunt's birthday is on August 9th",
                              "When is my father's birthday?", "father");
}

/* The real question comes after more than 64 distinct terms of chatter. */
static void long_question(const char *answer, const char *noise_event, const char *question,
                          const char *needle)
{
    am_db *db = open_mem();
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:00+08:00", answer);
    add(db, "u1", "s2", NULL, "2026-03-02T10:00:00+08:00", noise_event);
    add(db, "u1", "s3", NULL, "2026-03-03T10:00:00+08:00", "明天开会 / a meeting tomorrow");
    /* the chatter shares words with the noise event; the ask must still
     * be found, near the top */
    size_t r = rank_of(db, "u1", "2026-03-05T09:00:00+08:00", question, needle);
    CHECK(r >= 1 && r <= 2);
    am_close(db);
}

static void test_long_question_zh(void)
{
    long_question("我舅舅的车牌号是粤B12345", "周末去超市买菜做饭，还陪孩子上了钢琴课",
                  "最近真的好忙啊，周末还要去超市买菜做饭打扫卫生，还得陪孩子上兴趣班练钢琴画画"
                  "游泳，天气也越来越冷了，出门都得穿厚外套戴围巾手套，单位里年底考核材料也堆成"
                  "山。不好意思，我真正想问的是：我舅舅的车牌号是多少？",
                  "车牌");
}

static void test_long_question_en(void)
{
    long_question("My uncle's licence plate is ABC-1234",
                  "Went grocery shopping at the weekend and took the kids to piano lessons",
                  "Honestly this week has been exhausting: grocery shopping, cooking, cleaning, "
                  "laundry, piano lessons, swimming practice, painting classes, homework help, "
                  "parent evenings, dentist appointments, car repairs, insurance paperwork, tax "
                  "forms, birthday presents, holiday planning, flight bookings, hotel reviews, "
                  "restaurant reservations, gym sessions, yoga mornings, running shoes, winter "
                  "jackets, scarves, gloves, umbrellas, broken heaters, leaking taps, noisy "
                  "neighbours, delayed trains, cancelled buses, traffic jams, parking tickets, "
                  "phone bills, electricity meters, garden hedges, fallen leaves, snow shovels. "
                  "Sorry, what I really wanted to ask: what is my uncle's licence plate?",
                  "licence plate");
}

/* "on 9 November 2022": the turn of that day shares one word with the
 * question; sixty turns of other days share three. */
static void dated_question(const char *other, const char *target, const char *question,
                          const char *needle)
{
    am_db *db = open_mem();
    for (int i = 0; i < 60; i++) {
        char at[40], session[16], text[200];
        snprintf(at, sizeof at, "2022-%02d-%02dT19:00:00+08:00", 1 + i % 10, 1 + i / 10);
        snprintf(session, sizeof session, "d%d", i);
        snprintf(text, sizeof text, "%s (%d)", other, i);
        add(db, "u1", session, NULL, at, text);
    }
    add(db, "u1", "t", NULL, "2022-11-09T19:00:00+08:00", target);
    size_t r = rank_of(db, "u1", "2022-12-01T09:00:00+08:00", question, needle);
    CHECK(r >= 1 && r <= 3);
    am_close(db);
}

static void test_dated_question_en(void)
{
    dated_question("Nate: make sure you try the new dish at the noodle bar",
                   "Nate: I tried out some cooking, look at this homemade coconut ice cream",
                   "What dish did Nate make on 9 November, 2022?", "coconut");
}

static void test_dated_question_zh(void)
{
    dated_question("小王：记得尝尝面馆新出的那道菜，我做了笔记",
                   "小王：今天在家试着做了椰子冰淇淋",
                   "小王2022年11月9日做了什么菜？", "椰子");
}

/* am_optimize merges the index: the same answers before and after. */
static void test_optimize_keeps_results(void)
{
    am_db *db = open_mem();
    static const char *const texts[] = {
        "我爸爸的生日是五月三号", "My sister lives in Lisbon", "周末去爬山了",
        "went hiking at the weekend", "下午要交季度报告", "the report is due this afternoon",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        char at[40], session[16];
        snprintf(at, sizeof at, "2026-03-0%zuT10:00:00+08:00", 1 + i);
        snprintf(session, sizeof session, "s%zu", i);
        add(db, "u1", session, NULL, at, texts[i]);
    }
    static const char *const qs[4][2] = {
        {"爸爸的生日", "爸爸"}, {"where does my sister live", "Lisbon"}, {"报告", "报告"}, {"hiking", "hiking"}};
    size_t before[4];
    for (int i = 0; i < 4; i++) {
        before[i] = rank_of(db, "u1", "2026-03-09T09:00:00+08:00", qs[i][0], qs[i][1]);
        CHECK(before[i] >= 1);
    }
    CHECK_EQ_INT(am_optimize(db), AM_OK);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-09T09:00:00+08:00", qs[i][0], qs[i][1]),
                     (int)before[i]);
    CHECK_EQ_INT(am_optimize(NULL), AM_MISUSE);
    am_close(db);
}

/* A recalled memory names its source events (fetched for the shown items
 * only), and neither its sources nor an older wording it replaced are
 * repeated among the block's events. */
/* Recall for u1 at a time, read-only. */
static am_recall_result *ask_at(am_db *db, const char *question, const char *now)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = "u1";
    q.text = question;
    q.no_touch = 1;
    set_now(now);
    am_recall_result *r = NULL;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
    return r;
}

/* Recall for u1 at 2026-03-04 10:00 (+08:00), read-only. */
static am_recall_result *ask_any(am_db *db, const char *question)
{
    return ask_at(db, question, "2026-03-04T10:00:00+08:00");
}

static am_recall_result *ask(am_db *db, const char *question)
{
    am_recall_result *r = ask_any(db, question);
    CHECK(r && r->n_memories >= 1);
    return r;
}

static void said_once(const am_recall_result *r, const char *needle)
{
    const char *hit = strstr(r->block, needle);
    CHECK(hit && !strstr(hit + strlen(needle), needle));
}

static void memory_sources(const char *first, const char *restated, const char *question,
                           const char *needle)
{
    /* the same words twice: one item, reinforced, with both sources */
    am_db *db = open_mem();
    am_add_info a = add(db, "u1", "s1", NULL, "2026-03-01T10:00:00+08:00", first);
    am_add_info b = add(db, "u1", "s2", NULL, "2026-03-02T10:00:00+08:00", first);
    CHECK_EQ_INT(a.memories_created, 1);
    CHECK_EQ_INT(b.memories_updated, 1);
    am_recall_result *r = ask(db, question);
    int found_a = 0, found_b = 0;
    for (size_t i = 0; r->n_memories && i < r->memories[0].n_sources; i++) {
        found_a |= strcmp(r->memories[0].source_event_ids[i], a.event_id) == 0;
        found_b |= strcmp(r->memories[0].source_event_ids[i], b.event_id) == 0;
    }
    CHECK(found_a && found_b);
    said_once(r, needle);
    am_recall_free(r);
    am_close(db);
    /* restated: the new wording supersedes; the old turn is not repeated */
    db = open_mem();
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:00+08:00", first);
    am_add_info c = add(db, "u1", "s3", NULL, "2026-03-03T10:00:00+08:00", restated);
    CHECK_EQ_INT(c.memories_updated, 1);
    r = ask(db, question);
    CHECK_EQ_STR(r->memories[0].text, restated);
    said_once(r, needle);
    am_recall_free(r);
    am_close(db);
}

static void test_memory_sources_zh(void)
{
    memory_sources("以后周报都用表格格式", "记住，以后周报都用表格格式", "帮我写这周的周报", "表格");
}

static void test_memory_sources_en(void)
{
    memory_sources("From now on, always send reports as PDF",
                   "Remember: from now on, always send reports as PDF", "send me the report",
                   "PDF");
}

/* A later turn that contradicts a shown memory is not a restatement: it
 * stays in the block (dedup only hides older wordings). */
static void correction_stays(const char *pref, const char *correction, const char *question,
                             const char *needle)
{
    am_db *db = open_mem();
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:00+08:00", pref);
    add(db, "u1", "s2", NULL, "2026-03-02T10:00:00+08:00", correction);
    am_recall_result *r = ask_any(db, question);
    CHECK_CONTAINS(r->block, needle);
    am_recall_free(r);
    am_close(db);
}

static void test_correction_stays_en(void)
{
    correction_stays("I prefer window seats on flights", "No, not window seats on flights",
                     "which seats do I like on flights?", "No, not window");
}

static void test_correction_stays_zh(void)
{
    correction_stays("以后订机票都选靠窗的座位", "不对，以后订机票不要靠窗的座位", "帮我订机票选座位", "不对");
}

/* The search keeps the index column lengths of rows it has scored
 * (store/sqlite/fts_rank.c): a turn's context grows when its neighbours
 * arrive, shrinks when one is forgotten, a rolled-back batch changes
 * nothing, and another connection can write -- after each, one
 * connection's ranking must be exactly what a fresh connection computes. */
static char len_path[64];

static am_db *open_file(void)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = len_path;
    cfg.clock = test_clock;
    am_db *db = NULL;
    char *err = NULL;
    CHECK_EQ_INT(am_open(&cfg, &db, &err), AM_OK);
    am_free(err);
    return db;
}

static void same_as_fresh(am_db *db, const char *question)
{
    am_db *fresh = open_file();
    am_recall_result *r[2] = {NULL, NULL};
    am_db *dbs[2] = {db, fresh};
    for (int k = 0; k < 2; k++) {
        am_query q;
        memset(&q, 0, sizeof q);
        q.user_id = "u1";
        q.text = question;
        q.max_events = 20;
        q.no_touch = 1;
        set_now("2026-03-09T09:00:00+08:00");
        CHECK_EQ_INT(am_recall(dbs[k], &q, &r[k]), AM_OK);
    }
    CHECK(r[0] && r[1] && r[0]->n_events >= 2);
    CHECK_EQ_INT((int)r[0]->n_events, (int)r[1]->n_events);
    for (size_t i = 0; r[0] && r[1] && i < r[0]->n_events && i < r[1]->n_events; i++) {
        const am_event_rec *a = &r[0]->events[i], *b = &r[1]->events[i];
        CHECK_EQ_STR(a->id, b->id);
        CHECK(fabs(a->score - b->score) < 1e-12);
        /* the rows themselves (the search keeps copies: row_cache.c) */
        CHECK_EQ_STR(a->content, b->content);
        CHECK_EQ_STR(a->session_id, b->session_id);
        CHECK(a->occurred_at == b->occurred_at);
    }
    CHECK_EQ_STR(r[0]->json, r[1]->json);
    am_recall_free(r[0]);
    am_recall_free(r[1]);
    am_close(fresh);
}

/* A fresh store path (no file yet), and the removal of a store with its
 * side files; new_path / remove_store: len_path's. */
static void temp_path(char path[64], const char *stem)
{
    snprintf(path, 64, "/tmp/am_test_%.20s_XXXXXX", stem);
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    remove(path);
}

static void remove_files(const char *path)
{
    char side[96];
    remove(path);
    snprintf(side, sizeof side, "%.60s-wal", path);
    remove(side);
    snprintf(side, sizeof side, "%.60s-shm", path);
    remove(side);
}

static void new_path(void) { temp_path(len_path, "recall"); }
static void remove_store(void) { remove_files(len_path); }

/* A batch of u1 that fails at its third event (invalid UTF-8) after its
 * first two were processed: it must write nothing. */
static void failed_batch(am_db *db, const char *session0, const char *at0, const char *text0,
                         const char *session1, const char *at1, const char *text1)
{
    am_event ev[3];
    memset(ev, 0, sizeof ev);
    ev[0].user_id = ev[1].user_id = ev[2].user_id = "u1";
    ev[0].session_id = session0;
    ev[0].occurred_at = at0;
    ev[0].text = text0;
    ev[1].session_id = session1;
    ev[1].occurred_at = at1;
    ev[1].text = text1;
    ev[2].text = "bad \xff";
    CHECK_EQ_INT(am_add_events(db, ev, 3, NULL), AM_INVALID);
}

static void lengths_stay_true(const char *const turns[7], const char *question)
{
    new_path();
    am_db *db = open_file();
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:00+08:00", turns[0]);
    add(db, "u1", "s2", NULL, "2026-03-02T10:00:00+08:00", turns[1]);
    same_as_fresh(db, question); /* lengths learned */
    /* a neighbour 20 s later: the first turn's context grows */
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:20+08:00", turns[2]);
    same_as_fresh(db, question);
    /* another connection adds a neighbour of the second turn (whose context
     * then holds words of the question) */
    am_db *other = open_file();
    add(other, "u1", "s2", NULL, "2026-03-02T10:00:30+08:00", turns[4]);
    am_close(other);
    same_as_fresh(db, question);
    /* a batch that fails at its third event writes nothing: its first
     * grew a turn's context, its second searched (a continuation cue
     * looks for the task it continues) and saw that length */
    failed_batch(db, "s2", "2026-03-02T10:00:10+08:00", turns[3], "s3",
                 "2026-03-02T10:00:15+08:00", turns[6]);
    same_as_fresh(db, question);
    /* forgetting a turn rebuilds its neighbours' context */
    am_add_info gone = add(db, "u1", "s1", NULL, "2026-03-01T10:00:40+08:00", turns[5]);
    same_as_fresh(db, question);
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_EVENT, gone.event_id, NULL), AM_OK);
    same_as_fresh(db, question);
    am_close(db);
    remove_store();
}

/* Posting lists held per connection (store/sqlite/post_cache.c): a
 * connection keeps the rows and counts of the terms it searched and adds
 * its own writes to them -- a new turn, contexts that grow, another
 * user's turn with the same words -- and drops them when it cannot know
 * (a rolled-back batch, another connection's write, a forget).  After
 * each step its rankings and scores must be, to the bit, those of a
 * connection that scans the index for every term (no_term_cache), and
 * the lists must have been read. */
extern _Atomic unsigned long am__term_list_reads;

static am_db *open_file_scan(void)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = len_path;
    cfg.clock = test_clock;
    cfg.no_term_cache = 1;
    am_db *db = NULL;
    char *err = NULL;
    CHECK_EQ_INT(am_open(&cfg, &db, &err), AM_OK);
    am_free(err);
    return db;
}

static void same_as_scan_user(am_db *db, const char *const q[3], int lists_read, const char *uid);
static void same_as_scan(am_db *db, const char *const q[3], int lists_read)
{
    same_as_scan_user(db, q, lists_read, "u1");
}

static void same_as_scan_user(am_db *db, const char *const q[3], int lists_read, const char *uid)
{
    am_db *scan = open_file_scan();
    unsigned long before = am__term_list_reads;
    for (int i = 0; i < 3; i++) {
        am_recall_result *r[2] = {NULL, NULL};
        am_db *dbs[2] = {db, scan};
        for (int k = 0; k < 2; k++) {
            am_query qq;
            memset(&qq, 0, sizeof qq);
            qq.user_id = uid;
            qq.text = q[i];
            qq.max_events = 20;
            qq.no_touch = 1;
            set_now("2026-03-09T09:00:00+08:00");
            CHECK_EQ_INT(am_recall(dbs[k], &qq, &r[k]), AM_OK);
        }
        CHECK(r[0] && r[1] && r[1]->n_events >= 2);
        CHECK_EQ_INT((int)r[0]->n_events, (int)r[1]->n_events);
        for (size_t j = 0; r[0] && r[1] && j < r[0]->n_events && j < r[1]->n_events; j++) {
            CHECK_EQ_STR(r[0]->events[j].id, r[1]->events[j].id);
            CHECK(r[0]->events[j].score == r[1]->events[j].score);
        }
        CHECK_EQ_STR(r[0]->json, r[1]->json);
        am_recall_free(r[0]);
        am_recall_free(r[1]);
    }
    if (lists_read) CHECK(am__term_list_reads > before);
    am_close(scan);
}

static void term_lists_stay_true(const char *const t[10], const char *const q[3])
{
    new_path();
    am_db *db = open_file();
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:00+08:00", t[0]);
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:20+08:00", t[1]);
    add(db, "u1", "s2", NULL, "2026-03-02T10:00:00+08:00", t[2]);
    add(db, "u2", "s1", NULL, "2026-03-02T11:00:00+08:00", t[3]);
    same_as_scan(db, q, 0); /* lists learned */
    same_as_scan(db, q, 1); /* and read */
    /* new turns of the same exchanges: rows join lists, contexts grow */
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:40+08:00", t[4]);
    add(db, "u1", "s2", NULL, "2026-03-02T10:00:30+08:00", t[5]);
    add(db, "u2", "s1", NULL, "2026-03-02T11:00:20+08:00", t[6]); /* another user's */
    same_as_scan(db, q, 1);
    add(db, "u1", "s3", NULL, "2026-03-03T10:00:00+08:00", t[7]);
    same_as_scan(db, q, 1);
    /* a batch that fails after it wrote two turns (rolled back) */
    failed_batch(db, "s3", "2026-03-03T10:00:10+08:00", t[8], "s4", "2026-03-04T10:00:00+08:00",
                 t[9]);
    same_as_scan(db, q, 0);
    add(db, "u1", "s3", NULL, "2026-03-03T10:00:20+08:00", t[8]);
    same_as_scan(db, q, 1);
    /* another connection writes */
    am_db *other = open_file();
    add(other, "u1", "s4", NULL, "2026-03-04T10:00:00+08:00", t[9]);
    am_close(other);
    same_as_scan(db, q, 0);
    same_as_scan(db, q, 1);
    /* a forget */
    am_add_info gone = add(db, "u1", "s1", NULL, "2026-03-01T10:01:00+08:00", t[6]);
    same_as_scan(db, q, 1);
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_EVENT, gone.event_id, NULL), AM_OK);
    same_as_scan(db, q, 0);
    am_close(db);
    remove_store();
}

/* Lists written whole (post_cache.c): a user whose first row this
 * connection wrote has every term of every row held, so its first recall
 * scans nothing -- and ranks exactly as a scanning connection does; a
 * term none of its rows holds finds nothing.  A user with rows written
 * before (another connection, an earlier process) is not whole: its
 * recalls scan, and rank the same. */
static void term_lists_whole(const char *const t[10], const char *const q[3], const char *absent)
{
    new_path();
    am_db *db = open_file();
    for (int i = 0; i < 6; i++) {
        char at[40], session[8];
        snprintf(at, sizeof at, "2026-03-0%dT10:00:%02d+08:00", 1 + i / 2, 20 * (i % 2));
        snprintf(session, sizeof session, "s%d", 1 + i / 2);
        add(db, "u1", session, NULL, at, t[i]);
    }
    unsigned long scans = am__term_scans;
    for (int i = 0; i < 3; i++)
        CHECK(rank_of(db, "u1", "2026-03-09T09:00:00+08:00", q[i], "") > 0);
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-09T09:00:00+08:00", absent, ""), 0);
    CHECK_EQ_INT((int)(am__term_scans - scans), 0);
    same_as_scan(db, q, 1);
    am_close(db);
    /* a later process: u1's rows were written before it */
    db = open_file();
    add(db, "u1", "s4", NULL, "2026-03-04T10:00:00+08:00", t[6]);
    scans = am__term_scans;
    CHECK(rank_of(db, "u1", "2026-03-09T09:00:00+08:00", q[0], "") > 0);
    CHECK(am__term_scans > scans);
    same_as_scan(db, q, 1);
    am_close(db);
    remove_store();
}

/* Lists kept across other connections' commits (store/sqlite/caches.c):
 * another connection writing, appending contexts to or forgetting
 * another user's rows leaves u1's lists held (u1's next recall scans
 * nothing); the same for u1 drops them (it scans, and ranks as a
 * scanning connection); deleting anyone's rows drops everything. */
static void term_lists_other_users(const char *const t[10], const char *const q[3])
{
    new_path();
    am_db *db = open_file();
    static const char *const at[4] = {"2026-03-01T10:00:00+08:00", "2026-03-01T10:00:20+08:00",
                                      "2026-03-01T10:00:40+08:00", "2026-03-02T11:00:00+08:00"};
    for (int i = 0; i < 4; i++) add(db, i == 3 ? "u2" : "u1", "s1", NULL, at[i], t[i]);
    am_close(db);
    db = open_file(); /* not whole: its first recalls scan */
    same_as_scan(db, q, 0);
    same_as_scan(db, q, 1);
    am_db *other = open_file();
    /* u2's new turns in its exchange (its earlier turn's context grows) */
    add(other, "u2", "s1", NULL, "2026-03-02T11:00:20+08:00", t[4]);
    add(other, "u2", "s1", NULL, "2026-03-02T11:00:40+08:00", t[5]);
    unsigned long scans = am__term_scans;
    for (int i = 0; i < 3; i++) CHECK(rank_of(db, "u1", "2026-03-09T09:00:00+08:00", q[i], "") > 0);
    CHECK_EQ_INT((int)(am__term_scans - scans), 0);
    same_as_scan(db, q, 1);
    /* u2 recalled here after its writes elsewhere: u1's lists and row
     * lengths stay -- u1 still scans nothing (the row lengths used to go
     * for every user, and with them every held list) */
    (void)rank_of(db, "u2", "2026-03-09T09:00:00+08:00", q[0], "");
    scans = am__term_scans;
    for (int i = 0; i < 3; i++) CHECK(rank_of(db, "u1", "2026-03-09T09:00:00+08:00", q[i], "") > 0);
    CHECK_EQ_INT((int)(am__term_scans - scans), 0);
    same_as_scan(db, q, 1);
    /* and u2 written elsewhere once more, then recalled: the same */
    add(other, "u2", "s1", NULL, "2026-03-02T11:01:00+08:00", t[7]);
    (void)rank_of(db, "u2", "2026-03-09T09:00:00+08:00", q[1], "");
    scans = am__term_scans;
    CHECK(rank_of(db, "u1", "2026-03-09T09:00:00+08:00", q[2], "") > 0);
    CHECK_EQ_INT((int)(am__term_scans - scans), 0);
    /* u1 written through the other connection of this process: told
     * (feed.c) -- its row joins the lists held here, nothing is scanned,
     * and the ranking is a scan's.  (The row says again what u1 said: a
     * new word in it would be searched by the recall's bridges, a scan.) */
    add(other, "u1", "s1", NULL, "2026-03-01T10:00:50+08:00", t[0]);
    scans = am__term_scans;
    CHECK(rank_of(db, "u1", "2026-03-09T09:00:00+08:00", q[0], "") > 0);
    CHECK_EQ_INT((int)(am__term_scans - scans), 0);
    same_as_scan(db, q, 1);
    /* u2's lists held here; u2 written there again -- a new turn of its
     * exchange, whose earlier turn's context grows: told, the same */
    same_as_scan_user(db, q, 0, "u2");
    add(other, "u2", "s1", NULL, "2026-03-02T11:01:20+08:00", t[3]);
    scans = am__term_scans;
    for (int i = 0; i < 3; i++) (void)rank_of(db, "u2", "2026-03-09T09:00:00+08:00", q[i], "");
    CHECK_EQ_INT((int)(am__term_scans - scans), 0);
    same_as_scan_user(db, q, 1, "u2");
    /* u1 written by another process: not told -- dropped, scanned, true */
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        am_db *c = open_file();
        am_add_info in = add(c, "u1", "s1", NULL, "2026-03-01T10:00:30+08:00", t[8]);
        am_close(c);
        _exit(in.event_id[0] ? 0 : 1);
    }
    int status = -1;
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
          WEXITSTATUS(status) == 0);
    scans = am__term_scans;
    CHECK(rank_of(db, "u1", "2026-03-09T09:00:00+08:00", q[0], "") > 0);
    CHECK(am__term_scans > scans);
    same_as_scan(db, q, 1);
    /* held again; then u2 written once more, and u1 not: still held */
    add(other, "u2", "s2", NULL, "2026-03-03T11:00:00+08:00", t[7]);
    scans = am__term_scans;
    CHECK(rank_of(db, "u1", "2026-03-09T09:00:00+08:00", q[0], "") > 0);
    CHECK_EQ_INT((int)(am__term_scans - scans), 0);
    /* another user's row deleted (a forget elsewhere): everything goes */
    am_add_info gone = add(other, "u2", "s3", NULL, "2026-03-04T11:00:00+08:00", t[8]);
    CHECK_EQ_INT(am_forget(other, "u2", AM_FORGET_EVENT, gone.event_id, NULL), AM_OK);
    scans = am__term_scans;
    CHECK(rank_of(db, "u1", "2026-03-09T09:00:00+08:00", q[0], "") > 0);
    CHECK(am__term_scans > scans);
    same_as_scan(db, q, 1);
    /* u1's own turn forgotten elsewhere: never shown again */
    am_add_info mine = add(other, "u1", "s4", NULL, "2026-03-05T10:00:00+08:00", t[9]);
    CHECK(rank_of(db, "u1", "2026-03-09T09:00:00+08:00", t[9], t[9]) > 0);
    CHECK(am__sqlite_feed_held(SQ(other->store), "u1") > 0); /* its text, told */
    CHECK_EQ_INT(am_forget(other, "u1", AM_FORGET_EVENT, mine.event_id, NULL), AM_OK);
    CHECK_EQ_INT((int)am__sqlite_feed_held(SQ(db->store), "u1"), 0); /* gone with it */
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-09T09:00:00+08:00", t[9], t[9]), 0);
    same_as_scan(db, q, 1);
    am_close(other);
    am_close(db);
    remove_store();
}

static const char *const lists_t_en[10] = {
    "I booked the train to Hangzhou for the conference next week.",
    "The conference hotel is near the West Lake, I booked two nights.",
    "My sister loves hiking near the lake on weekends.",
    "The train to Hangzhou was late and the conference hotel was full.",
    "Remind me to pack the conference badge and the train tickets.",
    "She wants to go hiking again, maybe by train this time.",
    "My conference talk about trains is at the lake hotel.",
    "The hotel called: the conference room moved to the second floor.",
    "Train tickets for the conference are in my email.",
    "We hiked around the lake after the conference ended.",
};
static const char *const lists_q_en[3] = {
    "which hotel did I book for the conference?",
    "when is my train to Hangzhou?",
    "where does my sister go hiking near the lake?",
};
static const char *const lists_t_zh[10] = {
    "我订了下周去杭州开会的高铁票。",
    "会议酒店在西湖边上，我订了两晚。",
    "我妹妹周末喜欢在湖边徒步。",
    "去杭州的高铁晚点了，会议酒店也满了。",
    "提醒我带上会议胸牌和高铁票。",
    "她还想去徒步，这次可能坐高铁去。",
    "我的会议报告在湖边的酒店讲高铁。",
    "酒店来电话说会议室换到了二楼。",
    "会议的高铁票在我的邮箱里。",
    "会议结束后我们绕着西湖徒步了一圈。",
};
static const char *const lists_q_zh[3] = {
    "我开会订的是哪家酒店？",
    "我去杭州的高铁是什么时候？",
    "我妹妹在湖边哪里徒步？",
};
/* (the whole tests write the first seven) */
static void test_term_lists_whole_en(void)
{
    term_lists_whole(lists_t_en, lists_q_en, "zebra saxophone");
}

static void test_term_lists_whole_zh(void)
{
    term_lists_whole(lists_t_zh, lists_q_zh, "斑马萨克斯");
}

static void test_term_lists_other_users_en(void)
{
    term_lists_other_users(lists_t_en, lists_q_en);
}

static void test_term_lists_other_users_zh(void)
{
    term_lists_other_users(lists_t_zh, lists_q_zh);
}

static void test_term_lists_stay_true_en(void)
{
    term_lists_stay_true(lists_t_en, lists_q_en);
}

static void test_term_lists_stay_true_zh(void)
{
    term_lists_stay_true(lists_t_zh, lists_q_zh);
}

/* The same at the store, where a write transaction searches (a batch's
 * continuation cue looks for its task, am__perceive_attribute): two stores
 * on two files take the same writes, one holding lists, one scanning every term,
 * and every search must give both the same rows and scores to the bit --
 * in the transaction too, where the index's averages record on disk is
 * behind the rows written so far (FTS5 saves it at commit). */
#include "plain_alloc.h"

static const am__allocator lt_alloc = {plain_realloc, NULL};

static am__store *lt_open(const char *path, int no_lists)
{
    am__store_opts o = {&lt_alloc, 5000, 0, 0, no_lists, NULL, 0, 0};
    am__store *s = NULL;
    char err[256];
    int rc = am__store_open(path, &o, &s, err, sizeof err);
    if (rc) fprintf(stderr, "open: %s\n", err);
    CHECK_EQ_INT(rc, AM_OK);
    return s;
}

/* Two stores on fresh files: st[0] holds lists, st[1] scans every term. */
static void lt_open_pair(char path[2][64], am__store *st[2])
{
    for (int i = 0; i < 2; i++) {
        temp_path(path[i], "lists");
        st[i] = lt_open(path[i], i);
    }
}

static void lt_close_pair(char path[2][64], am__store *st[2])
{
    for (int i = 0; i < 2; i++) {
        st[i]->vt->close(st[i]);
        remove_files(path[i]);
    }
}

static void lt_put(am__store *const st[2], int k, const char *text)
{
    static char ids[2600][16];
    snprintf(ids[k], sizeof ids[k], "ev%04d", k);
    for (int i = 0; i < 2; i++) {
        am__event_row e;
        memset(&e, 0, sizeof e);
        e.id = ids[k];
        e.user_id = "u1";
        e.source = "user";
        e.type = "message";
        e.content = text;
        e.lang = "en";
        e.occurred_at = 60000 * (am_time)(k + 1);
        e.ingested_at = e.occurred_at;
        CHECK_EQ_INT(st[i]->vt->events.event_put(st[i], &e), AM_OK);
    }
}

static void lt_same(am__store *const st[2], const char *const *terms, size_t nt)
{
    am__arena ar[2];
    am__event_row *rows[2];
    size_t n[2];
    for (int i = 0; i < 2; i++) {
        am__arena_init(&ar[i], &lt_alloc);
        CHECK_EQ_INT(am__search_events(st[i], "u1", terms, NULL, nt, 0.5, AM_TIME_NONE,
                                              AM_TIME_NONE, 20, &ar[i], &rows[i], &n[i], NULL),
                     AM_OK);
    }
    CHECK(n[1] > 0);
    CHECK_EQ_INT((int)n[0], (int)n[1]);
    for (size_t j = 0; j < n[0] && j < n[1]; j++) {
        CHECK_EQ_INT((int)rows[0][j].rid, (int)rows[1][j].rid);
        if (rows[0][j].score != rows[1][j].score)
            fprintf(stderr, "  row %zu: %.17g (lists) vs %.17g (scan)\n", j, rows[0][j].score,
                    rows[1][j].score);
        CHECK(rows[0][j].score == rows[1][j].score);
    }
    am__arena_free(&ar[0]);
    am__arena_free(&ar[1]);
}

static void test_term_lists_stay_true_in_txn(void)
{
    char path[2][64];
    am__store *st[2];
    lt_open_pair(path, st);
    static const char *const text[] = {
        "hotel near the lake",
        "the train was late",
        "lake hotel rooms are small hotel rooms",
        "train tickets and hotel booking",
        "hotel breakfast by the lake",
        "a hotel",
    };
    const char *both[2] = {"hotel", "lake"};
    for (int i = 0; i < 2; i++) {
        CHECK_EQ_INT(am__store_begin(st[i]), AM_OK);
        CHECK_EQ_INT(am__store_user_ensure(st[i], "u1", 1000), AM_OK);
    }
    for (int k = 0; k < 4; k++) lt_put(st, k, text[k]);
    for (int i = 0; i < 2; i++) CHECK_EQ_INT(am__store_commit(st[i]), AM_OK);
    lt_same(st, both, 2); /* lists learned */
    lt_same(st, both, 2); /* and read (the averages record is current) */
    const char *dup[4] = {"train", "hotel", "train", "hotel"}; /* one held, one scanned */
    lt_same(st, dup, 4);
    lt_same(st, dup, 4);
    /* a batch: rows written, then searched before the commit */
    for (int i = 0; i < 2; i++) CHECK_EQ_INT(am__store_begin(st[i]), AM_OK);
    lt_put(st, 4, text[4]);
    lt_put(st, 5, text[5]);
    lt_same(st, both, 2);
    for (int i = 0; i < 2; i++) CHECK_EQ_INT(am__store_commit(st[i]), AM_OK);
    lt_same(st, both, 2);
    lt_close_pair(path, st);
}

/* A long history (more than 2000 rows): frequencies come from the index's
 * vocabulary, and terms in more than a tenth of the rows are dropped --
 * from a held list's length as from the vocabulary. */
static void test_term_lists_stay_true_long(void)
{
    char path[2][64];
    am__store *st[2];
    lt_open_pair(path, st);
    static const char *const words[] = {"hotel", "lake", "train", "ticket", "garden", "piano"};
    char text[256];
    for (int i = 0; i < 2; i++) {
        CHECK_EQ_INT(am__store_begin(st[i]), AM_OK);
        CHECK_EQ_INT(am__store_user_ensure(st[i], "u1", 1000), AM_OK);
    }
    for (int k = 0; k < 2200; k++) {
        /* hotel in every row, lake in a third, the others rarer */
        snprintf(text, sizeof text, "hotel %s %s %s", k % 3 ? "" : "lake",
                 k % 40 ? "" : words[2 + k / 40 % 4], k % 97 ? "" : "piano piano");
        lt_put(st, k, text);
    }
    for (int i = 0; i < 2; i++) CHECK_EQ_INT(am__store_commit(st[i]), AM_OK);
    const char *q1[4] = {"hotel", "train", "piano", "lake"};
    const char *q2[3] = {"garden", "piano", "ticket"};
    unsigned long reads = am__term_list_reads;
    lt_same(st, q1, 4);
    lt_same(st, q1, 4);
    lt_same(st, q2, 3);
    /* a search that leaves out terms in more than 1 % of the rows (the
     * two-hop search's, max_share): "piano" (23 rows of 2200) is not
     * searched, so every row found holds "train" (one in 160); without,
     * piano's rows come too */
    for (int share = 0; share < 2; share++) {
        const char *q3[2] = {"piano", "train"};
        double df[3];
        am__search_stats stats = {0, 0, df, share ? 0.01 : 0};
        am__arena ar;
        am__arena_init(&ar, &lt_alloc);
        am__event_row *rows = NULL;
        size_t n = 0, with_train = 0;
        CHECK_EQ_INT(am__search_events(st[1], "u1", q3, NULL, 2, 0.5, AM_TIME_NONE,
                                              AM_TIME_NONE, 100, &ar, &rows, &n, &stats),
                     AM_OK);
        for (size_t i = 0; i < n; i++) with_train += strstr(rows[i].content, "train") != NULL;
        CHECK(with_train >= 10);
        if (share) CHECK_EQ_INT((int)with_train, (int)n);
        else CHECK(n > with_train);
        am__arena_free(&ar);
    }
    for (int k = 2200; k < 2300; k++) {
        for (int i = 0; i < 2; i++) CHECK_EQ_INT(am__store_begin(st[i]), AM_OK);
        snprintf(text, sizeof text, "piano garden %s", k % 2 ? "train" : "lake hotel");
        lt_put(st, k, text);
        for (int i = 0; i < 2; i++) CHECK_EQ_INT(am__store_commit(st[i]), AM_OK);
        if (k % 25 == 0) {
            lt_same(st, q1, 4);
            lt_same(st, q2, 3);
        }
    }
    lt_same(st, q1, 4);
    lt_same(st, q2, 3);
    CHECK(am__term_list_reads > reads + 4);
    lt_close_pair(path, st);
}

/* The store's part of a search (store.h: user_rows, term_docs, postings,
 * rows_get), which recall/search.c ranks: frequencies and postings of one
 * user only, rows of another left out, reads grouped in one snapshot. */
static void test_store_search_parts(void)
{
    char path[64];
    temp_path(path, "parts");
    am__store *s = lt_open(path, 0);
    CHECK_EQ_INT(am__store_begin(s), AM_OK);
    static const char *const text[3] = {"hotel near the lake", "the hotel train", "hotel"};
    static const char *const user[3] = {"u1", "u1", "u2"};
    static const char *const id[3] = {"p0", "p1", "p2"};
    int64_t rid[3];
    for (int k = 0; k < 3; k++) {
        CHECK_EQ_INT(am__store_user_ensure(s, user[k], 1000), AM_OK);
        am__event_row e;
        memset(&e, 0, sizeof e);
        e.id = id[k];
        e.user_id = user[k];
        e.source = "user";
        e.type = "message";
        e.content = text[k];
        e.lang = "en";
        e.occurred_at = e.ingested_at = 60000 * (am_time)(k + 1);
        CHECK_EQ_INT(s->vt->events.event_put(s, &e), AM_OK);
        rid[k] = e.rid;
    }
    CHECK_EQ_INT(am__store_commit(s), AM_OK);
    CHECK_EQ_INT(am__store_search_end(s, AM_OK), AM_MISUSE); /* none begun */
    CHECK_EQ_INT(am__store_search_begin(s), AM_OK);
    CHECK_EQ_INT(am__store_search_begin(s), AM_OK); /* nested: one snapshot */
    int64_t n = 0, indexed = 0;
    CHECK_EQ_INT(s->vt->postings.user_rows(s, "u1", &n), AM_OK);
    CHECK_EQ_INT((int)n, 2);
    const char *terms[3] = {"hotel", "lake", "piano"};
    double df[3] = {-1, -1, -1};
    CHECK_EQ_INT(s->vt->postings.term_docs(s, "u1", terms, 3, df, &indexed), AM_OK);
    CHECK(df[0] == 2 && df[1] == 1 && df[2] == 0);
    CHECK_EQ_INT((int)indexed, 2);
    am__arena ar;
    am__arena_init(&ar, &lt_alloc);
    for (int pass = 0; pass < 2; pass++) { /* scanned, then from the held lists */
        am__hits h;
        double pdf[2] = {-1, -1};
        CHECK_EQ_INT(s->vt->postings.postings(s, "u1", terms, 2, AM_TIME_NONE, AM_TIME_NONE, n, &ar,
                                              &h, pdf),
                     AM_OK);
        CHECK(pdf[0] == 2 && pdf[1] == 1);
        CHECK_EQ_INT((int)h.n, 2);
        CHECK_EQ_INT(h.n_terms, 2);
        size_t per_term[2] = {0, 0};
        for (size_t t = 0; t < h.n_tf; t++) per_term[h.tf[t].term]++;
        CHECK_EQ_INT((int)per_term[0], 2);
        CHECK_EQ_INT((int)per_term[1], 1);
        for (size_t i = 0; i < h.n; i++) CHECK(h.hit[i].rid == rid[0] || h.hit[i].rid == rid[1]);
        am__hits_free(&h);
    }
    am__event_row rows[3];
    unsigned char found[3];
    int64_t ask[3] = {rid[1], rid[2], rid[0]};
    CHECK_EQ_INT(s->vt->events.rows_get(s, "u1", ask, 3, &ar, rows, found), AM_OK);
    CHECK(found[0] == 1 && found[1] == 0 && found[2] == 1);
    CHECK_EQ_STR(rows[0].id, "p1");
    CHECK_EQ_STR(rows[2].id, "p0");
    CHECK_EQ_INT(am__store_search_end(s, AM_OK), AM_OK);
    CHECK_EQ_INT(am__store_search_end(s, AM_OK), AM_OK);
    /* the ranker over those parts: u1's rows only, best first */
    am__event_row *got;
    size_t n_got;
    CHECK_EQ_INT(am__search_events(s, "u1", terms, NULL, 2, 0.5, AM_TIME_NONE, AM_TIME_NONE, 10,
                                   &ar, &got, &n_got, NULL),
                 AM_OK);
    CHECK_EQ_INT((int)n_got, 2);
    if (n_got == 2) {
        CHECK_EQ_STR(got[0].id, "p0");
        CHECK(got[0].score > got[1].score);
    }
    am__arena_free(&ar);
    s->vt->close(s);
    remove_files(path);
}

/* Rows written whole (store/sqlite/events.c rowcache_written): the rows
 * a connection writes for a user whose first row it wrote are in its row
 * cache from their writes -- its first search reads none of them by
 * statement -- and are field for field what a cold connection reads from
 * the file: NULL and empty fields, a token blob and a zero-length one,
 * Chinese and English text.  A user whose rows were written before (not
 * whole) has its rows read. */
extern _Atomic unsigned long am__row_reads;

static void rows_same(const am__event_row *a, const am__event_row *b)
{
    CHECK(a->rid == b->rid);
    const char *const fa[] = {a->id,      a->user_id, a->agent_id, a->session_id, a->task_id,
                              a->channel, a->source,  a->type,     a->content,    a->domain,
                              a->intent,  a->lang};
    const char *const fb[] = {b->id,      b->user_id, b->agent_id, b->session_id, b->task_id,
                              b->channel, b->source,  b->type,     b->content,    b->domain,
                              b->intent,  b->lang};
    for (size_t i = 0; i < sizeof fa / sizeof *fa; i++) {
        CHECK((fa[i] == NULL) == (fb[i] == NULL));
        if (fa[i] && fb[i]) CHECK_EQ_STR(fa[i], fb[i]);
    }
    CHECK(a->occurred_at == b->occurred_at && a->ingested_at == b->ingested_at);
    CHECK_EQ_INT(a->tz_minutes, b->tz_minutes);
    CHECK_EQ_INT((int)a->tokens_len, (int)b->tokens_len);
    CHECK((a->tokens == NULL) == (b->tokens == NULL));
    if (a->tokens && b->tokens && a->tokens_len == b->tokens_len)
        CHECK(memcmp(a->tokens, b->tokens, a->tokens_len) == 0);
    CHECK(a->client_id == NULL && b->client_id == NULL);
}

static void test_rows_written_whole(void)
{
    char path[64];
    temp_path(path, "wrows");
    am__store *s = lt_open(path, 0);
    static const char *const text[4] = {"荔枝公园真是太不错了，就在闹市区里", "the hotel near the lake",
                                        "酒店 hotel 在湖边", ""};
    static const unsigned char blob[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    int64_t rid[5];
    CHECK_EQ_INT(am__store_begin(s), AM_OK);
    CHECK_EQ_INT(am__store_user_ensure(s, "old", 1000), AM_OK);
    am__event_row e;
    memset(&e, 0, sizeof e);
    e.id = "o0", e.user_id = "old", e.source = "user", e.type = "message";
    e.content = "the hotel near the lake", e.occurred_at = e.ingested_at = 1000;
    CHECK_EQ_INT(s->vt->events.event_put(s, &e), AM_OK);
    rid[4] = e.rid;
    CHECK_EQ_INT(am__store_commit(s), AM_OK);
    s->vt->close(s);
    s = lt_open(path, 0); /* "old" is not whole here */
    CHECK_EQ_INT(am__store_begin(s), AM_OK);
    CHECK_EQ_INT(am__store_user_ensure(s, "u1", 1000), AM_OK);
    static const char *const id[4] = {"w0", "w1", "w2", "w3"};
    for (int k = 0; k < 4; k++) {
        memset(&e, 0, sizeof e);
        e.id = id[k];
        e.user_id = "u1";
        e.agent_id = k == 1 ? "agent-7" : NULL;
        e.session_id = k % 2 ? "s1" : "";
        e.task_id = k == 2 ? "任务-1" : NULL;
        e.channel = k == 3 ? "wechat" : NULL;
        e.source = "user";
        e.type = "message";
        e.content = text[k];
        e.domain = k == 0 ? "生活" : NULL;
        e.intent = k == 1 ? "ask" : NULL;
        e.lang = k == 1 ? "en" : "zh";
        e.occurred_at = 60000 * (am_time)(k + 1);
        e.ingested_at = e.occurred_at + 7;
        e.tz_minutes = 480;
        e.tokens = k == 0 || k == 2 ? blob : k == 1 ? blob : NULL;
        e.tokens_len = k == 0 ? sizeof blob : 0; /* k 1, 2: a zero-length blob */
        e.client_id = k == 2 ? "client-2" : NULL;
        e.client_hash = k == 2 ? 42 : 0;
        CHECK_EQ_INT(s->vt->events.event_put(s, &e), AM_OK);
        rid[k] = e.rid;
    }
    CHECK_EQ_INT(am__store_commit(s), AM_OK);
    am__store *cold = lt_open(path, 0);
    am__arena ar;
    am__arena_init(&ar, &lt_alloc);
    am__event_row rows[2][4];
    unsigned char found[2][4];
    memset(rows, 0, sizeof rows);
    int64_t ask[4] = {rid[2], rid[0], rid[3], rid[1]};
    unsigned long reads = am__row_reads;
    CHECK_EQ_INT(s->vt->events.rows_get(s, "u1", ask, 4, &ar, rows[0], found[0]), AM_OK);
    CHECK_EQ_INT((int)(am__row_reads - reads), 0); /* all from the writes */
    CHECK_EQ_INT(cold->vt->events.rows_get(cold, "u1", ask, 4, &ar, rows[1], found[1]), AM_OK);
    CHECK_EQ_INT((int)(am__row_reads - reads), 4);
    for (int k = 0; k < 4; k++) {
        CHECK(found[0][k] == 1 && found[1][k] == 1);
        rows_same(&rows[0][k], &rows[1][k]);
    }
    CHECK_EQ_STR(rows[0][1].content, "荔枝公园真是太不错了，就在闹市区里");
    CHECK_EQ_INT((int)rows[0][1].tokens_len, (int)sizeof blob);
    CHECK(rows[0][3].tokens == NULL && rows[0][0].tokens == NULL);
    /* the other user's row: read (its rows were written before) */
    reads = am__row_reads;
    CHECK_EQ_INT(s->vt->events.rows_get(s, "old", &rid[4], 1, &ar, rows[0], found[0]), AM_OK);
    CHECK(found[0][0] == 1 && am__row_reads - reads == 1);
    CHECK_EQ_STR(rows[0][0].content, "the hotel near the lake");
    /* a rolled-back write leaves nothing behind */
    CHECK_EQ_INT(am__store_begin(s), AM_OK);
    memset(&e, 0, sizeof e);
    e.id = "w4", e.user_id = "u1", e.source = "user", e.type = "message";
    e.content = "撤回的话 never said", e.occurred_at = e.ingested_at = 600000;
    CHECK_EQ_INT(s->vt->events.event_put(s, &e), AM_OK);
    int64_t undone = e.rid;
    CHECK_EQ_INT(am__store_rollback(s), AM_OK);
    CHECK_EQ_INT(s->vt->events.rows_get(s, "u1", &undone, 1, &ar, rows[0], found[0]), AM_OK);
    CHECK(found[0][0] == 0);
    am__arena_free(&ar);
    cold->vt->close(cold);
    s->vt->close(s);
    remove_files(path);
}

/* The row cache (store/sqlite/row_cache.c) answers vector scans too:
 * another connection forgets the newest turn and writes a new one, which
 * takes its rowid; a vector scan must return the new turn, never the
 * forgotten one the cache held (the version check was the text search's
 * alone, and a query of stopwords only searches no text). */
static void test_vector_rows_after_other_forget(void)
{
    char path[64];
    temp_path(path, "vrows");
    am__store *a = lt_open(path, 0);
    CHECK_EQ_INT(am__store_begin(a), AM_OK);
    CHECK_EQ_INT(am__store_user_ensure(a, "u1", 1000), AM_OK);
    const float v0[4] = {1, 0, 0, 0}, v1[4] = {0, 1, 0, 0};
    am__event_row e;
    memset(&e, 0, sizeof e);
    e.user_id = "u1";
    e.source = "user";
    e.type = "message";
    e.lang = "en";
    e.id = "old0";
    e.content = "the hotel near the lake";
    e.occurred_at = e.ingested_at = 60000;
    CHECK_EQ_INT(a->vt->events.event_put(a, &e), AM_OK);
    CHECK_EQ_INT(a->vt->vectors.vec_put(a, "u1", e.rid, "A", v0, 4), AM_OK);
    e.id = "old1";
    e.content = "my secret hotel booking";
    e.occurred_at = e.ingested_at = 120000;
    CHECK_EQ_INT(a->vt->events.event_put(a, &e), AM_OK);
    CHECK_EQ_INT(a->vt->vectors.vec_put(a, "u1", e.rid, "A", v1, 4), AM_OK);
    int64_t gone = e.rid;
    CHECK_EQ_INT(am__store_commit(a), AM_OK);
    /* a's search reads (and caches) both rows */
    am__arena ar;
    am__arena_init(&ar, &lt_alloc);
    am__event_row *rows;
    size_t n;
    const char *term[1] = {"hotel"};
    CHECK_EQ_INT(am__search_events(a, "u1", term, NULL, 1, 0.5, AM_TIME_NONE, AM_TIME_NONE, 10,
                                      &ar, &rows, &n, NULL),
                 AM_OK);
    CHECK_EQ_INT((int)n, 2);
    CHECK_EQ_INT(
        (int)a->vt->vectors.vec_scan(a, "u1", "A", v1, 4, AM_TIME_NONE, 2, -1, &ar, &rows, &n),
        AM_OK);
    /* another connection forgets the newest turn and writes a new one */
    am__store *b = lt_open(path, 0);
    long ev = 0, it = 0, tk = 0;
    CHECK_EQ_INT(am__store_begin(b), AM_OK);
    CHECK_EQ_INT(am__forget(b, "u1", AM_FORGET_EVENT, "old1", 180000, &ev, &it, &tk), AM_OK);
    CHECK_EQ_INT((int)ev, 1);
    e.id = "new1";
    e.content = "the train was late";
    e.occurred_at = e.ingested_at = 240000;
    CHECK_EQ_INT(b->vt->events.event_put(b, &e), AM_OK);
    CHECK_EQ_INT((int)e.rid, (int)gone); /* the rowid came back */
    CHECK_EQ_INT(b->vt->vectors.vec_put(b, "u1", e.rid, "A", v1, 4), AM_OK);
    CHECK_EQ_INT(am__store_commit(b), AM_OK);
    b->vt->close(b);
    CHECK_EQ_INT(
        (int)a->vt->vectors.vec_scan(a, "u1", "A", v1, 4, AM_TIME_NONE, 2, -1, &ar, &rows, &n),
        AM_OK);
    CHECK(n >= 1);
    for (size_t j = 0; j < n; j++) {
        CHECK(strcmp(rows[j].id, "old1") != 0);
        if (rows[j].rid == gone) CHECK_EQ_STR(rows[j].id, "new1");
    }
    am__arena_free(&ar);
    a->vt->close(a);
    remove_files(path);
}

/* The lists held stay within their bound (AM__POST_MAX, "up to ~48 MB")
 * however short they are: a term a history does not hold is held as an
 * empty list, and a server's searches of many users' terms put millions
 * of them. */
static void test_term_lists_bounded(void)
{
    am__post *p = am__post_new(&lt_alloc);
    CHECK(p != NULL);
    size_t most = 0;
    char key[64];
    for (size_t i = 0; i < AM__POST_MAX / 2; i++) {
        int len = snprintf(key, sizeof key, "u%zu\x1fterm", i);
        CHECK_EQ_INT(am__post_put(p, key, (size_t)len, NULL, NULL, 0), AM_OK);
        if (am__post_count(p) > most) most = am__post_count(p);
    }
    /* a list costs some 200 bytes besides its postings (12 each) */
    CHECK(most <= AM__POST_MAX / 8);
    am__post_free(p);
}

/* Item versions keep the token set they are ranked by (schema v7): a
 * recall uses the stored set (swapping two items' sets swaps their
 * order), and without one, or with one of another analyzer, computes the
 * same set from the text. */
static void sql_exec(const char *sql)
{
    sqlite3 *raw = NULL;
    CHECK_EQ_INT(sqlite3_open(len_path, &raw), SQLITE_OK);
    char *err = NULL;
    CHECK_EQ_INT(sqlite3_exec(raw, sql, NULL, NULL, &err), SQLITE_OK);
    if (err) fprintf(stderr, "%s: %s\n", sql, err);
    sqlite3_free(err);
    sqlite3_close(raw);
}

static void memories_of(const char *question, const char *out[2])
{
    am_db *db = open_file();
    am_recall_result *r = ask_at(db, question, "2026-03-09T09:00:00+08:00");
    static char keep[2][256];
    for (int i = 0; i < 2; i++) {
        snprintf(keep[i], sizeof keep[i], "%s", r && r->n_memories > (size_t)i ? r->memories[i].text : "");
        out[i] = keep[i];
    }
    am_recall_free(r);
    am_close(db);
}

static void item_tokens_stored(const char *a, const char *b, const char *question)
{
    new_path();
    am_db *db = open_file();
    CHECK_EQ_INT(add(db, "u1", "s1", NULL, "2026-03-01T10:00:00+08:00", a).memories_created, 1);
    CHECK_EQ_INT(add(db, "u1", "s2", NULL, "2026-03-01T10:00:00+08:00", b).memories_created, 1);
    am_close(db);
    const char *m[2];
    memories_of(question, m);
    CHECK_EQ_STR(m[0], a); /* the question's words are a's */
    CHECK_EQ_STR(m[1], b);
    /* the two items' stored sets swapped: b is ranked by a's words */
    sql_exec("CREATE TEMP TABLE t AS SELECT rid, tokens FROM memory_items;"
             "UPDATE memory_items SET tokens = (SELECT t.tokens FROM t WHERE t.rid <> memory_items.rid)");
    memories_of(question, m);
    CHECK_EQ_STR(m[0], b);
    /* no stored sets (versions written before v7), or another analyzer's:
     * computed from the text, the same order as at first */
    sql_exec("UPDATE memory_items SET tokens = NULL");
    memories_of(question, m);
    CHECK_EQ_STR(m[0], a);
    sql_exec("UPDATE memory_items SET tokens = x'00000000' || substr(tokens, 5)");
    memories_of(question, m);
    CHECK_EQ_STR(m[0], a);
    /* am_optimize stores the sets of versions that have none */
    sql_exec("UPDATE memory_items SET tokens = NULL WHERE rid = (SELECT min(rid) FROM memory_items)");
    am_db *db2 = open_file();
    CHECK_EQ_INT(am_optimize(db2), AM_OK);
    am_close(db2);
    sqlite3 *raw = NULL;
    sqlite3_stmt *st = NULL;
    CHECK_EQ_INT(sqlite3_open(len_path, &raw), SQLITE_OK);
    CHECK_EQ_INT(sqlite3_prepare_v2(raw, "SELECT count(*) FROM memory_items WHERE tokens IS NULL", -1,
                                    &st, NULL),
                 SQLITE_OK);
    CHECK_EQ_INT(sqlite3_step(st), SQLITE_ROW);
    CHECK_EQ_INT(sqlite3_column_int(st, 0), 0);
    sqlite3_finalize(st);
    sqlite3_close(raw);
    memories_of(question, m);
    CHECK_EQ_STR(m[0], a);
    remove_store();
}

static void test_item_tokens_stored_zh(void)
{
    item_tokens_stored("以后周报都用表格格式", "以后订机票都选靠窗的座位", "这周的周报用什么格式");
}

static void test_item_tokens_stored_en(void)
{
    item_tokens_stored("From now on, always send reports as PDF", "I prefer window seats on flights",
                       "how should I send the reports");
}

static void test_lengths_stay_true_en(void)
{
    static const char *const turns[7] = {
        "We booked the cabin by the lake for the summer holiday",
        "The lake cabin has two bedrooms and a small boat",
        "The summer holiday at the lake starts in July, the cabin is ours for two weeks",
        "Remember to pack the fishing rods for the lake",
        "The boat at the cabin needs new oars before the holiday",
        "My brother might join us at the lake cabin for the last weekend of the holiday",
        "Let's continue planning the lake cabin holiday",
    };
    lengths_stay_true(turns, "when is the holiday at the lake cabin");
}

static void test_lengths_stay_true_zh(void)
{
    static const char *const turns[7] = {
        "我们订了湖边的小木屋过暑假",
        "湖边小木屋有两个卧室和一条小船",
        "暑假七月开始，湖边的小木屋我们住两个星期，记得提前收拾行李",
        "记得带上钓鱼竿去湖边",
        "小木屋的小船需要在假期前换新的船桨",
        "我哥哥可能最后一个周末来湖边小木屋和我们一起过暑假",
        "我们继续安排湖边小木屋的暑假吧",
    };
    lengths_stay_true(turns, "湖边小木屋的暑假是什么时候");
}

/* The search keeps copies of the events rows it returned (row_cache.c).
 * A row never changes, but its rowid can come back with another event:
 * after the newest event is forgotten, after a failed batch undid its
 * insert, or after another connection did either -- each time, one
 * connection's rows must be what a fresh connection reads. */
static void rows_stay_true(const char *const turns[7], const char *question)
{
    new_path();
    am_db *db = open_file();
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:00+08:00", turns[0]);
    am_add_info newest = add(db, "u1", "s2", NULL, "2026-03-02T10:00:00+08:00", turns[1]);
    same_as_fresh(db, question); /* rows copied */
    /* the newest event forgotten: the next one takes its rowid */
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_EVENT, newest.event_id, NULL), AM_OK);
    newest = add(db, "u1", "s3", NULL, "2026-03-03T10:00:00+08:00", turns[2]);
    same_as_fresh(db, question);
    /* the same, on another connection */
    am_db *other = open_file();
    CHECK_EQ_INT(am_forget(other, "u1", AM_FORGET_EVENT, newest.event_id, NULL), AM_OK);
    add(other, "u1", "s4", NULL, "2026-03-04T10:00:00+08:00", turns[3]);
    am_close(other);
    same_as_fresh(db, question);
    /* a batch that fails at its third event: its first was written and
     * found by its second's search (a continuation cue looks for the task
     * it continues), then undone; the next event takes that rowid */
    failed_batch(db, "s5", "2026-03-05T10:00:00+08:00", turns[4], "s5",
                 "2026-03-05T10:00:30+08:00", turns[6]);
    add(db, "u1", "s6", NULL, "2026-03-06T10:00:00+08:00", turns[5]);
    same_as_fresh(db, question);
    am_close(db);
    remove_store();
}

static void test_rows_stay_true_en(void)
{
    static const char *const turns[7] = {
        "We booked the cabin by the lake for the summer holiday",
        "The lake cabin has two bedrooms and a small boat",
        "The boat at the lake cabin needs new oars before the holiday",
        "My brother might join us at the lake cabin for the holiday",
        "The lake cabin holiday starts in July, for two weeks",
        "Remember the fishing rods for the holiday at the lake cabin",
        "Let's continue planning the lake cabin holiday",
    };
    rows_stay_true(turns, "when is the holiday at the lake cabin");
}

static void test_rows_stay_true_zh(void)
{
    static const char *const turns[7] = {
        "我们订了湖边的小木屋过暑假",
        "湖边小木屋有两个卧室和一条小船",
        "湖边小木屋的小船需要在暑假前换新的船桨",
        "我哥哥可能来湖边小木屋和我们一起过暑假",
        "湖边小木屋的暑假七月开始，住两个星期",
        "暑假去湖边小木屋记得带上钓鱼竿",
        "我们继续安排湖边小木屋的暑假吧",
    };
    rows_stay_true(turns, "湖边小木屋的暑假是什么时候");
}

/* Chat filler said alone in other sessions, so the collection has a
 * realistic vocabulary and document frequencies. */
static void add_filler(am_db *db, const char *const *filler, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char at[40], session[16];
        snprintf(at, sizeof at, "2026-02-%02zuT09:00:00+08:00", 1 + i);
        snprintf(session, sizeof session, "f%zu", i);
        add(db, "u1", session, NULL, at, filler[i]);
    }
}

static const char *const filler_en[] = {
    "Joanna: the weather was lovely today", "Nate: my laptop finally works again",
    "Joanna: I watched a documentary last night", "Nate: the bus was late this morning",
    "Joanna: I bought new curtains for the flat", "Nate: work has been busy lately",
};
static const char *const filler_zh[] = {
    "小李：今天天气真不错", "小王：电脑终于修完了", "小李：昨晚看了个纪录片",
    "小王：早上公交车晚点了", "小李：给家里买了新窗帘", "小王：最近工作挺忙的",
};

/* "What does Nate do?" is answered by what Nate says ("Nate: I ..."), not
 * by a longer turn of someone else that only addresses him. */
/* Six filler turns, then two of u1 (1 and 2 March); the turn holding
 * needle must rank first for the question (5 March). */
static void first_of_two(const char *const *filler, const char *one, const char *two,
                         const char *question, const char *needle)
{
    am_db *db = open_mem();
    add_filler(db, filler, 6);
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:00+08:00", one);
    add(db, "u1", "s2", NULL, "2026-03-02T10:00:00+08:00", two);
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-05T09:00:00+08:00", question, needle), 1);
    am_close(db);
}

static void speaker_named(const char *const *filler, const char *own, const char *addressed,
                          const char *question, const char *needle)
{
    first_of_two(filler, own, addressed, question, needle);
}

static void test_speaker_named_en(void)
{
    speaker_named(filler_en, "Nate: went fishing at the weekend",
                  "Joanna: Nate, fishing at the weekend? I hate fishing, fishing is dull",
                  "Did Nate go fishing?", "went fishing");
}

static void test_speaker_named_zh(void)
{
    speaker_named(filler_zh, "小王：周末我去钓鱼了", "小李：小王，去钓鱼？钓鱼太无聊了，我不喜欢去钓鱼",
                  "小王去钓鱼了吗？", "周末我去");
}

/* "hobbies" / "爱好" share no word with "went fishing" / "钓鱼": the
 * narrower words of the broad one find it. */
static void broad_word(const char *const *filler, const char *target, const char *other,
                       const char *question, const char *needle)
{
    first_of_two(filler, target, other, question, needle);
}

static void test_broad_word_en(void)
{
    broad_word(filler_en, "Nate: I spent the whole weekend fishing by the lake",
               "Nate: hi Joanna", "What are Nate's hobbies?", "fishing");
}

static void test_broad_word_zh(void)
{
    broad_word(filler_zh, "小王：整个周末都在湖边钓鱼", "小王：晚上在家吗", "小王有什么爱好？", "钓鱼");
}

/* Ailments and countries, named by their instances ("a killer headache",
 * "住院", "Turkey", "意大利"). */
static void test_broad_word_more_en(void)
{
    broad_word(filler_en, "Nicolas: I have a killer headache today", "Nicolas: hi there",
               "What ailments did Nicolas have?", "headache");
    broad_word(filler_en, "Nebraas: I think I would love to live in Turkey", "Nebraas: good night",
               "What countries did Nebraas mention?", "Turkey");
    broad_word(filler_en, "Emi: today I attended my first Pilates class", "Emi: see you",
               "What are Emi's hobbies?", "Pilates");
}

static void test_broad_word_more_zh(void)
{
    broad_word(filler_zh, "小王：我上周感冒发烧了", "小王：晚上在家吗", "小王生病了吗？", "感冒");
    broad_word(filler_zh, "小王：明年想去意大利看看", "小王：明天见", "小王想去哪些国家？", "意大利");
}

/* "When did ...?": of two turns about the same thing, the one that says
 * when ("yesterday", "昨天") comes first. */
static void asks_when(const char *const *filler, const char *dated, const char *undated,
                      const char *question, const char *needle)
{
    am_db *db = open_mem();
    add_filler(db, filler, 6);
    add(db, "u1", "s1", NULL, "2026-03-01T10:00:00+08:00", dated);
    add(db, "u1", "s2", NULL, "2026-03-02T10:00:00+08:00", undated);
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-05T09:00:00+08:00", question, needle), 1);
    am_close(db);
}

static void test_asks_when_en(void)
{
    asks_when(filler_en, "Nate: went to Rome yesterday", "Nate: went to Rome, lovely trip",
              "When did Nate go to Rome?", "yesterday");
}

static void test_asks_when_zh(void)
{
    asks_when(filler_zh, "小王：我和姐姐昨天去了一趟杭州", "小王：杭州很美",
              "小王什么时候去的杭州？", "昨天");
}

/* A compound question: one clause matches six turns strongly (the same
 * fact said of six places), the other one turn; both answers must be near
 * the top. */
static void compound(const char *const *many, const char *const *filler, const char *answer,
                     const char *question, const char *needle)
{
    am_db *db = open_mem();
    for (int i = 0; i < 30; i++) { /* a longer history: the summit's words are rare */
        char at[40], session[16], text[160];
        snprintf(at, sizeof at, "2026-01-%02dT10:00:00+08:00", 1 + i);
        snprintf(session, sizeof session, "h%d", i);
        snprintf(text, sizeof text, "%s %d", filler[i % 6], i);
        add(db, "u1", session, NULL, at, text);
    }
    for (int i = 0; i < 6; i++) {
        char at[40], session[16];
        snprintf(at, sizeof at, "2026-03-%02dT10:00:00+08:00", 1 + i);
        snprintf(session, sizeof session, "m%d", i);
        add(db, "u1", session, NULL, at, many[i]);
    }
    add(db, "u1", "a", NULL, "2026-02-20T10:00:00+08:00", answer);
    size_t r = rank_of(db, "u1", "2026-03-10T09:00:00+08:00", question, needle);
    CHECK(r >= 1 && r <= 2);
    am_close(db);
}

static void test_compound_question_zh(void)
{
    static const char *const many[] = {
        "金融科技论坛的地点是北京。", "金融科技论坛的地点是上海。", "金融科技论坛的地点是深圳。",
        "金融科技论坛的地点是杭州。", "金融科技论坛的地点是南京。", "金融科技论坛的地点是青岛。",
    };
    compound(many, filler_zh, "我上司是做会计工作的。", "上司是做什么工作的呢？另外，金融科技论坛的地点是什么？",
             "上司");
}

static void test_compound_question_en(void)
{
    static const char *const many[] = {
        "The fintech summit is held in Beijing.", "The fintech summit is held in Shanghai.",
        "The fintech summit is held in Shenzhen.", "The fintech summit is held in Hangzhou.",
        "The fintech summit is held in Nanjing.", "The fintech summit is held in Qingdao.",
    };
    compound(many, filler_en, "My boss works as an accountant.",
             "What does my boss work as? Also, where is the fintech summit held?", "boss");
}

/* A store with the default configuration but for the two-hop search's
 * weight and the weight of a self-correcting query's preamble (to show
 * what each one does). */
static am_db *open_with(double w_bridge, double w_preamble)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.rank.w_bridge = w_bridge;
    cfg.rank.w_preamble = w_preamble;
    return open_mem_rank(&cfg.rank);
}

/* A history for the two-hop and condition tests: n filler turns (the
 * first 28 a day apart, then the next hour's), eight turns that share
 * the asked attribute (many), the bridge and its answer. */
static void add_hop_history(am_db *db, int n, const char *const *filler, const char *const *many,
                            const char *bridge, const char *answer)
{
    for (int i = 0; i < n; i++) {
        char at[40], session[16], text[160];
        snprintf(at, sizeof at, "2026-01-%02dT%02d:00:00+08:00", 1 + i % 28, 10 + i / 28);
        snprintf(session, sizeof session, "h%d", i);
        snprintf(text, sizeof text, "%s %d", filler[i % 6], n > 24 ? 1000 + i : i);
        add(db, "u1", session, NULL, at, text);
    }
    for (int i = 0; i < 8; i++) {
        char at[40], session[16];
        snprintf(at, sizeof at, "2026-03-%02dT10:00:00+08:00", 1 + i);
        snprintf(session, sizeof session, "m%d", i);
        add(db, "u1", session, NULL, at, many[i]);
    }
    add(db, "u1", "b", NULL, "2026-02-10T10:00:00+08:00", bridge);
    add(db, "u1", "a", NULL, "2026-02-20T10:00:00+08:00", answer);
}

/* Two hops: the question names a thing by one fact (bridge) and asks
 * another (answer), which shares only the asked attribute with it -- as
 * do the others (many), which also share the question's other words.
 * The answer must follow its bridge at the top; without the two-hop
 * search it is lost among the others. */
static int two_hop_rank(double w_bridge, const char *const *filler, const char *const *many,
                        const char *bridge, const char *answer, const char *question,
                        const char *needle)
{
    am_db *db = open_with(w_bridge, 0.2);
    add_hop_history(db, 24, filler, many, bridge, answer);
    size_t r = rank_of(db, "u1", "2026-03-10T09:00:00+08:00", question, needle);
    am_close(db);
    return (int)r;
}

static void two_hop(const char *const *filler, const char *const *many, const char *bridge,
                    const char *answer, const char *question, const char *needle)
{
    int with = two_hop_rank(0.9, filler, many, bridge, answer, question, needle);
    int without = two_hop_rank(0, filler, many, bridge, answer, question, needle);
    CHECK(with >= 1 && with <= 2);
    CHECK(without == 0 || without > 8);
}

static const char *const many_zh[] = {
    "读书节的持续时间是三天，是个大型活动。", "美食节的持续时间是五天，是个大型活动。",
    "音乐节的持续时间是两天，是个大型活动。", "摄影展的持续时间是一周，是个大型活动。",
    "马拉松的持续时间是一天，是个大型活动。", "动漫展的持续时间是四天，是个大型活动。",
    "啤酒节的持续时间是六天，是个大型活动。", "灯会的持续时间是九天，是个大型活动。",
};

static const char *const many_en[] = {
    "The book fair is a long event that lasts three days.",
    "The food festival is a long event that lasts five days.",
    "The music festival is a long event that lasts two days.",
    "The photo exhibition is a long event that lasts a week.",
    "The marathon weekend is a long event that lasts two days.",
    "The comic convention is a long event that lasts four days.",
    "The beer festival is a long event that lasts six days.",
    "The lantern show is a long event that lasts nine days.",
};

static void test_two_hop_zh(void)
{
    two_hop(filler_zh, many_zh, "医疗创新研讨会的规模是六百人。", "医疗创新研讨会的持续时间是四天。",
            "那个规模是六百人的大型活动，持续时间是多久？", "研讨会的持续时间");
}

static void test_two_hop_en(void)
{
    two_hop(filler_en, many_en, "The cardiology symposium has six hundred attendees.",
            "The cardiology symposium lasts four days.",
            "How long does the event with six hundred attendees last?", "symposium lasts");
}

/* Events keep their content's token set (events.tokens, schema v12),
 * written with them: every stored set is exactly the set a recall would
 * compute of the row's content (a system task_switch turn, written as a
 * copy of the user's turn, must not carry that turn's set); without one,
 * or with one of another analyzer, a recall computes the same set from
 * the content: the same ranking as with them. */
static void event_tokens_stored(const char *const *filler, const char *const *many,
                                const char *bridge, const char *answer, const char *question,
                                const char *needle, const char *jump)
{
    new_path();
    am_db *db = open_file();
    add_hop_history(db, 24, filler, many, bridge, answer);
    add(db, "u1", "j", "t1", "2026-03-09T10:00:00+08:00", filler[0]);
    add(db, "u1", "j", "t2", "2026-03-09T10:01:00+08:00", jump); /* a topic jump */
    size_t first = rank_of(db, "u1", "2026-03-10T09:00:00+08:00", question, needle);
    am_close(db);
    CHECK(first >= 1 && first <= 2);
    am__text *t = NULL;
    CHECK_EQ_INT(am__text_open(&lt_alloc, &t), AM_OK);
    sqlite3 *raw = NULL;
    sqlite3_stmt *st = NULL;
    CHECK_EQ_INT(sqlite3_open(len_path, &raw), SQLITE_OK);
    CHECK_EQ_INT(sqlite3_prepare_v2(raw, "SELECT content, tokens, type FROM events", -1, &st, NULL),
                 SQLITE_OK);
    int rows = 0, stored = 0, switches = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *content = (const char *)sqlite3_column_text(st, 0);
        const unsigned char *blob = sqlite3_column_blob(st, 1);
        size_t blen = (size_t)sqlite3_column_bytes(st, 1);
        switches += strcmp((const char *)sqlite3_column_text(st, 2), "task_switch") == 0;
        rows++;
        if (!blob) continue;
        stored++;
        uint64_t want[AM__EVENT_SET], got[AM__EVENT_SET];
        size_t nw = 0, ng = 0;
        CHECK_EQ_INT(am__text_token_set(t, content, strlen(content), want, AM__EVENT_SET, &nw),
                     AM_OK);
        CHECK(am__token_blob_get(blob, blen, got, AM__EVENT_SET, &ng));
        CHECK_EQ_INT((int)ng, (int)nw);
        CHECK(memcmp(got, want, nw * sizeof *got) == 0);
    }
    sqlite3_finalize(st);
    sqlite3_close(raw);
    am__text_close(t);
    CHECK_EQ_INT(switches, 1);
    CHECK(stored >= rows - switches); /* every turn written keeps its set */
    /* no stored sets (rows before v12), or another analyzer's: computed */
    sql_exec("UPDATE events SET tokens = x'00000000' || substr(tokens, 5)");
    db = open_file();
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-10T09:00:00+08:00", question, needle), (int)first);
    am_close(db);
    sql_exec("UPDATE events SET tokens = NULL");
    db = open_file();
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-10T09:00:00+08:00", question, needle), (int)first);
    am_close(db);
    remove_store();
}

static void test_event_tokens_stored_zh(void)
{
    event_tokens_stored(filler_zh, many_zh, "醫療創新研討會的規模是六百人。",
                        "医疗创新研讨会的持续时间是四天。",
                        "那个规模是六百人的大型活动，持续时间是多久？", "研讨会的持续时间",
                        "換個話題，週報寫好了嗎？");
}

static void test_event_tokens_stored_en(void)
{
    event_tokens_stored(filler_en, many_en, "The cardiology symposium has six hundred attendees.",
                        "The cardiology symposium lasts four days.",
                        "How long does the event with six hundred attendees last?",
                        "symposium lasts", "Different topic: is the weekly report done?");
}

/* A quoted description with a full stop inside it is one clause: the
 * question asks what follows the quotation ("持续时间") of the thing it
 * describes. */
static void test_two_hop_quoted_zh(void)
{
    two_hop(filler_zh, many_zh, "医疗创新研讨会的主要内容是探讨心脏介入技术。分享临床经验。",
            "医疗创新研讨会的持续时间是四天。",
            "那个主要内容是\u201c探讨心脏介入技术。分享临床经验。\u201d的大型活动，持续时间是多久？",
            "研讨会的持续时间");
}

static void test_two_hop_quoted_en(void)
{
    two_hop(filler_en, many_en, "The cardiology symposium is about \"Heart stents. Clinical cases.\"",
            "The cardiology symposium lasts four days.",
            "The event about \"Heart stents. Clinical cases.\" - how long does it last?",
            "symposium lasts");
}

/* The asked thing is described, not stated: "我路过的公园怎么样？" after
 * "我刚才路过的那个公园叫荔枝公园。" is answered by a long description
 * that leads with the park's name and holds no word of what is asked,
 * like the descriptions of other parks (many).  The two-hop search
 * places it right after its bridge. */
static void described(const char *const *filler, const char *const *many, const char *bridge,
                      const char *answer, const char *question, const char *needle)
{
    int r = two_hop_rank(0.9, filler, many, bridge, answer, question, needle);
    CHECK(r >= 1 && r <= 2);
}

static void test_two_hop_described_zh(void)
{
    static const char *const many[] = {
        "莲花山公园真心不错，树多阴凉，山顶的观景台能看到整个城市，周末爬一爬特别舒服。",
        "儿童公园真的太棒了，设施一应俱全，孩子们在草地上跑来跑去，玩得特别开心。",
        "东湖公园环境很好，湖水清澈，树荫也多，工作累了去那儿走走，心情一下就好了。",
        "中心公园是散心的好地方，空气新鲜，晚上还有很多人在广场上跳舞，热闹得很。",
        "笔架山公园的步道修得很好，空气清新，早上去跑步的人特别多，风景也漂亮。",
        "洪湖公园真是太美了，湖边的荷花开得正好，傍晚坐在长椅上吹吹风特别惬意。",
        "海滨公园的沙滩又干净又宽，海风吹过来特别舒服，傍晚还能看到很美的日落。",
        "人民公园里有很多老人下棋打牌，环境安静，绿化也好，周末带家人去逛逛不错。",
    };
    described(filler_zh, many, "我刚才路过的那个公园叫荔枝公园。",
              "荔枝公园真是太不错了，就在闹市区里，到处都是绿树，空气也特别新鲜，每天下班过来走走很放松。",
              "我路过的公园怎么样？", "荔枝公园真是");
}

static void test_two_hop_described_en(void)
{
    static const char *const many[] = {
        "Lotus Hill Park is lovely, with shady trees and a lookout over the whole city at the top.",
        "Children's Park is great, full of rides and lawns where the kids run around all afternoon.",
        "East Lake Park is calm and green, with clear water and benches along the shore to rest on.",
        "Central Park is a nice place to unwind, with fresh air and people dancing on the square.",
        "Bijia Mountain Park has well kept trails and fresh air, and many runners in the morning.",
        "Honghu Park is beautiful, the lotus flowers are in bloom and the evening breeze is pleasant.",
        "Seaside Park has a wide clean beach, a cool sea breeze and lovely sunsets in the evening.",
        "People's Park is quiet and green, with old men playing chess under the trees all day.",
    };
    described(filler_en, many, "The park I walked past this morning is called Lychee Park.",
              "Lychee Park is really lovely, a quiet green place right in the busy city center with "
              "fresh air and shady trees.",
              "What was the park I walked past like?", "Lychee Park is");
}

/* The bridge's name is in several turns ("我将要参加电影动作健身汇。",
 * "…的地点是山东济南。"), shorter than the answer and so ahead of it in the
 * second search; the hop takes the turn that holds what is asked
 * ("主要内容", "main topic") first.  A single Han character of the question
 * ("要" of "主要") asks nothing: "我将要参加…" holds it too. */
static int named_rank(const char *const *filler, const char *const *many, const char *bridge,
                      const char *answer, const char *const *named, const char *question,
                      const char *needle)
{
    am_db *db = open_with(0.9, 0.2);
    add_hop_history(db, 24, filler, many, bridge, answer);
    add(db, "u1", "n0", NULL, "2026-02-12T10:00:00+08:00", named[0]);
    add(db, "u1", "n1", NULL, "2026-02-14T10:00:00+08:00", named[1]);
    add(db, "u1", "n2", NULL, "2026-02-16T10:00:00+08:00", named[2]);
    size_t r = rank_of(db, "u1", "2026-03-10T09:00:00+08:00", question, needle);
    am_close(db);
    return (int)r;
}

static void test_two_hop_asked_zh(void)
{
    static const char *const many[] = {
        "读书节的主要内容是交换旧书，请作家签名售书，和读者面对面交流。",
        "美食节的主要内容是品尝各地小吃，观看厨师表演，参加烹饪比赛。",
        "音乐节的主要内容是乐队现场演出，乐迷互动，夜间露天音乐会。",
        "摄影展的主要内容是展出风光作品，摄影师讲解拍摄技巧，现场评选。",
        "马拉松的主要内容是全程和半程比赛，沿途补给，终点颁奖仪式。",
        "动漫展的主要内容是角色扮演，漫画签售，新番发布会和手办展示。",
        "啤酒节的主要内容是品尝精酿啤酒，乐队演出，厂商展示新品。",
        "灯会的主要内容是观赏花灯，猜灯谜，传统民俗表演和小吃摊位。",
    };
    static const char *const named[] = {"我将要参加电影动作健身汇。",
                                        "电影动作健身汇的地点是山东济南。",
                                        "电影动作健身汇的时间是下周六下午两点。"};
    int r = named_rank(filler_zh, many, "电影动作健身汇的规模是七百人。",
                       "电影动作健身汇的主要内容是观看经典电影片段，通过模拟电影动作进行健身训练，"
                       "提高身体协调性，体验电影与运动的完美结合。",
                       named, "那个规模是七百人的活动，主要内容是什么？", "健身汇的主要内容");
    CHECK(r >= 1 && r <= 2);
}

static void test_two_hop_asked_en(void)
{
    static const char *const many[] = {
        "The main topic of the book fair is swapping old books and meeting authors.",
        "The main topic of the food festival is street food from every province.",
        "The main topic of the music festival is live bands playing late into the night.",
        "The main topic of the photo exhibition is landscape prints and talks by photographers.",
        "The main topic of the marathon weekend is the full and half race along the river.",
        "The main topic of the comic convention is cosplay, signings and new series.",
        "The main topic of the beer festival is craft beer tastings and brewery stands.",
        "The main topic of the lantern show is paper lanterns, riddles and folk dances.",
    };
    static const char *const named[] = {"I will attend the cardiology symposium.",
                                        "The cardiology symposium is in Boston.",
                                        "The cardiology symposium starts next Saturday at two."};
    int r = named_rank(filler_en, many, "The cardiology symposium has six hundred attendees.",
                       "The main topic of the cardiology symposium is heart stents, valve repair and "
                       "clinical cases from the past year.",
                       named, "What is the main topic of the event with six hundred attendees?",
                       "topic of the cardiology");
    CHECK(r >= 1 && r <= 2);
}

/* The asked attribute as it is told: "那个生日是11月14日的人，姓名是什么？"
 * is answered by "我叔叔叫王志强。" among the uncle's other turns (many),
 * which share no more of the question's words; the second search looks
 * for "叫" ("called") with the bridge's name and takes it first (checked
 * as a description is: right after its bridge). */
static void test_two_hop_told_zh(void)
{
    static const char *const many[] = {
        "我叔叔在杭州上班。",     "我叔叔周末去钓鱼。",   "我叔叔最近换了工作。",
        "我叔叔开一辆蓝色的车。", "我叔叔住在西湖边上。", "我叔叔是个工程师。",
        "我叔叔每天早上跑步。",   "我叔叔换了新手机。",
    };
    described(filler_zh, many, "我叔叔的生日是11月14日。", "我叔叔叫王志强。",
              "那个生日是11月14日的人，姓名是什么？", "叫王志强");
}

static void test_two_hop_told_en(void)
{
    static const char *const many[] = {
        "My uncle works at the harbour.",  "My uncle goes fishing on weekends.",
        "My uncle changed jobs recently.", "My uncle drives a blue van.",
        "My uncle lives by the lake.",     "My uncle is an engineer.",
        "My uncle runs every morning.",    "My uncle bought a new phone.",
    };
    described(filler_en, many, "My uncle's birthday is on November 14.",
              "My uncle is called Theo.",
              "What is the name of the person whose birthday is on November 14?", "called Theo");
}

/* A condition in a relative clause ("那个年龄是42岁的人", "the person whose
 * age is 42"): the turn that states it (the bridge) shares only the value
 * with the question, the others (many) the attribute's name and more of
 * the question's words.  Searched on its own, the condition's value ranks
 * the bridge at the top (where the two-hop search takes it); without
 * that search (rank.conditions = 0) it is lost among the others. */
static int condition_rank(int conditions, const char *const *filler, const char *const *many,
                          const char *bridge, const char *answer, const char *question)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.rank.conditions = conditions;
    am_db *db = open_mem_rank(&cfg.rank);
    add_hop_history(db, 120, filler, many, bridge, answer); /* long: the attribute's words are rare */
    size_t r = rank_of(db, "u1", "2026-03-10T09:00:00+08:00", question, bridge);
    am_close(db);
    return (int)r;
}

static void condition(const char *const *filler, const char *const *many, const char *bridge,
                      const char *answer, const char *question)
{
    int with = condition_rank(1, filler, many, bridge, answer, question);
    int without = condition_rank(0, filler, many, bridge, answer, question);
    CHECK(with >= 1 && with <= 2);
    CHECK(without == 0 || without > 8);
}

static void test_condition_zh(void)
{
    static const char *const many[] = {
        "王伟是我的同事，其年龄是三十五岁。", "李娜是我的下属，其年龄是二十八岁。",
        "张强是我的上司，其年龄是五十岁。",   "赵敏是我的表妹，其年龄是十九岁。",
        "刘洋是我的舅舅，其年龄是六十岁。",   "陈静是我的婶婶，其年龄是四十岁。",
        "孙浩是我的表哥，其年龄是三十岁。",   "周婷是我的同学，其年龄是二十五岁。",
    };
    condition(filler_zh, many, "我表姐42岁。", "我表姐身高164厘米。",
              "那个年龄是42岁的人，其身高是多少？");
}

static void test_condition_en(void)
{
    static const char *const many[] = {
        "Tom, a cheerful person: his age is 35, his height 180 cm.",
        "Lisa, a quiet person: her age is 28, her height 162 cm.",
        "Mark, a busy person: his age is 50, his height 175 cm.",
        "Emma, a kind person: her age is 19, her height 158 cm.",
        "Paul, a funny person: his age is 60, his height 170 cm.",
        "Rose, a calm person: her age is 40, her height 160 cm.",
        "Sam, a loud person: his age is 30, his height 182 cm.",
        "Kate, a shy person: her age is 25, her height 165 cm.",
    };
    condition(filler_en, many, "Grandpa Joe turned 87 last spring, we threw him a big party at the lake house.",
              "Grandpa Joe is 150 cm in height.", "What is the height of the person whose age is 87?");
}

/* The condition of a question (recall/expand.c am__query_condition): the
 * relative clause before "的人" / after "whose", its value after the
 * copula; a quotation is one value; none in a plain question. */
static void condition_is(const char *q, const char *want, const char *value)
{
    size_t from, to, v;
    int got = am__query_condition(q, strlen(q), &from, &to, &v);
    if (!want) {
        CHECK_EQ_INT(got, 0);
        return;
    }
    CHECK_EQ_INT(got, 1);
    if (got) {
        char span[256], val[256];
        snprintf(span, sizeof span, "%.*s", (int)(to - from), q + from);
        snprintf(val, sizeof val, "%.*s", (int)(to - v), q + v);
        CHECK_EQ_STR(span, want);
        CHECK_EQ_STR(val, value);
    }
}

static void test_query_condition(void)
{
    condition_is("那个联系电话是13228788707的人，其职业是什么？", "联系电话是13228788707", "13228788707");
    condition_is("那42岁的人身高是多少来着？", "42岁", "42岁");
    condition_is("南京协和医院的那位员工生日是什么时候呢？", "南京协和医院", "南京协和医院");
    condition_is("上司是做什么工作的呢？另外，那个兴趣爱好是阅读的人，生日是什么？", "兴趣爱好是阅读", "阅读");
    condition_is("那个主要内容是“探讨，分享。”的人，住在哪里？", "主要内容是“探讨，分享。”", "“探讨，分享。”");
    condition_is("我喜欢的家电是什么呢？", NULL, NULL);
    condition_is("Where does the person whose phone number is 555 0134 live?", "phone number is 555 0134 live",
                 "555 0134 live");
    condition_is("The woman who plays the cello, where does she live?", "plays the cello", "plays the cello");
    condition_is("Who did Caroline meet at the support group?", NULL, NULL);
}

/* Attributes as asked and as told: "教育背景" finds "学历",
 * "phone number" / "联系电话" finds "电话号码", "单位" finds "公司". */
static void expands_to(const char *norm, const char *word)
{
    am__buf out, narrow;
    am__buf_init(&out, NULL);
    am__buf_init(&narrow, NULL);
    CHECK_EQ_INT(am__expand_query(norm, strlen(norm), &out, &narrow), AM_OK);
    am__buf_addc(&out, 0);
    CHECK(out.p && strstr(out.p, word) != NULL);
    am__buf_free(&out);
    am__buf_free(&narrow);
}

static void test_expand_attributes_zh(void)
{
    expands_to("我妈妈的教育背景是什么?", "学历");
    expands_to("那个人的联系电话是多少?", "电话号码");
    expands_to("我上司的单位叫什么?", "公司");
}

static void test_expand_attributes_en(void)
{
    expands_to("what is my uncle's phone number?", "电话号码");
    expands_to("what is her education?", "学历");
}

/* Irregular verbs: "when did Nate win …" is answered by "I just won …",
 * which the stemmer does not join to "win" (and "road trip" by
 * "roadtrip"); the other turns share the
 * question's other words (Nate, tournament) and must not come first. */
static void test_verb_forms_en(void)
{
    expands_to("when did nate win his third tourney?", "won");
    expands_to("when did nate win his third tourney?", "tournament");
    expands_to("where did they meet?", "met");
    expands_to("what happened on their road trip?", "roadtrip");
    expands_to("what classes has audrey taken for her dogs?", "course");
    expands_to("what classes has audrey taken for her dogs?", "puppy");
    expands_to("what did andrew do with his gf?", "girlfriend");
    expands_to("what are the names of her dogs?", "called");
    am_db *db = open_mem();
    static const char *const others[] = {
        "Nate: the tournament next month will be a big one, lots of teams",
        "Nate: I am training every night for the tournament with my team",
        "Nate: the tournament stream had thousands of viewers",
        "Nate: my tournament schedule is packed this season",
    };
    for (int i = 0; i < 4; i++) {
        char at[40], session[16];
        snprintf(at, sizeof at, "2026-03-%02dT10:00:00+08:00", 1 + i);
        snprintf(session, sizeof session, "o%d", i);
        add(db, "u1", session, NULL, at, others[i]);
    }
    add(db, "u1", "w", NULL, "2026-02-20T10:00:00+08:00",
        "Nate: guess what, I just won another regional tournament last week!");
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-10T09:00:00+08:00",
                              "When did Nate win a tournament?", "just won"), 1);
    am_close(db);
}

/* A Chinese question names its verb once (no inflection: "赢了", "赢过"
 * share "赢"); an English verb inside it still gets its forms. */
static void test_verb_forms_zh(void)
{
    am__buf out, narrow;
    am__buf_init(&out, NULL);
    am__buf_init(&narrow, NULL);
    const char *q = "小王什么时候赢了比赛?";
    CHECK_EQ_INT(am__expand_query(q, strlen(q), &out, &narrow), AM_OK);
    CHECK(out.len == 0); /* nothing from the English forms */
    am__buf_free(&out);
    am__buf_free(&narrow);
    expands_to("我们上次meet是什么时候?", "met");
    am_db *db = open_mem();
    add(db, "u1", "o1", NULL, "2026-03-01T10:00:00+08:00", "小王：下个月的比赛有很多队伍参加");
    add(db, "u1", "o2", NULL, "2026-03-02T10:00:00+08:00", "小王：我每天晚上都在为比赛训练");
    add(db, "u1", "w", NULL, "2026-02-20T10:00:00+08:00", "小王：告诉你，我上周赢了地区比赛！");
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-10T09:00:00+08:00", "小王什么时候赢了比赛？",
                              "赢了地区"), 1);
    am_close(db);
}

/* Entity linking by greetings (perceive/alias.c, api/read.c
 * question_aliases): the other speaker greets "Emi" as "Kate" and Emi
 * answers, twice; a question about Kate then puts Emi's own turns first,
 * as one naming Emi would.  Another user's greetings change nothing;
 * forgetting the greetings forgets what they taught. */
static void alias_chat(am_db *db, const char *user, const char *s1, const char *s2,
                       const char *greet1, const char *answer1, const char *greet2,
                       const char *answer2)
{
    add(db, user, s1, NULL, "2026-03-01T21:00:00+08:00", greet1);
    add(db, user, s1, NULL, "2026-03-01T21:03:00+08:00", answer1); /* minutes later */
    add(db, user, s2, NULL, "2026-03-02T21:00:00+08:00", greet2);
    add(db, user, s2, NULL, "2026-03-02T21:02:30+08:00", answer2);
}

static void test_speaker_alias_en(void)
{
    am_db *db = open_mem();
    const char *q = "What sport does Kate love?";
    alias_chat(db, "u1", "s1", "s2", "elise: Hello Kate! How was your weekend?",
               "Emi: Pretty quiet, just reading at home.", "elise: Hey Kate, you there?",
               "Emi: Yes! Sorry, was cooking dinner.");
    add(db, "u1", "s3", NULL, "2026-03-03T20:00:00+08:00", "Emi: I love skiing, it's my sport.");
    add(db, "u1", "s3", NULL, "2026-03-03T20:01:00+08:00",
        "elise: I love surfing more than any other sport I love.");
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-10T09:00:00+08:00", q, "skiing"), 1);
    /* another user whose Kate is someone else: u1 is unchanged */
    alias_chat(db, "u2", "s1", "s2", "bob: Hi Kate!", "elise: hi", "bob: Thanks, Kate.",
               "elise: sure");
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-10T09:00:00+08:00", q, "skiing"), 1);
    /* the greetings forgotten: Kate names no one, the surfer's turn (more
     * of the question's words, later) comes first again */
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_SESSION, "s1", NULL), AM_OK);
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_SESSION, "s2", NULL), AM_OK);
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-10T09:00:00+08:00", q, "surfing"), 1);
    am_close(db);
}

static void test_speaker_alias_zh(void)
{
    am_db *db = open_mem();
    const char *q = "王总最近喜欢什么运动？";
    alias_chat(db, "u1", "s1", "s2", "小李：王总早上好！", "建国：早，今天开会吗？",
               "小李：王总，晚上好", "建国：晚上好，刚吃完饭。");
    add(db, "u1", "s3", NULL, "2026-03-03T20:00:00+08:00", "建国：我最近喜欢钓鱼。");
    add(db, "u1", "s3", NULL, "2026-03-03T20:01:00+08:00", "小李：我最近特别喜欢爬山这项运动。");
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-10T09:00:00+08:00", q, "钓鱼"), 1);
    alias_chat(db, "u2", "s1", "s2", "小王：王总你好", "老李：你好", "小王：谢谢王总",
               "老李：不客气");
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-10T09:00:00+08:00", q, "钓鱼"), 1);
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_SESSION, "s1", NULL), AM_OK);
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_SESSION, "s2", NULL), AM_OK);
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-10T09:00:00+08:00", q, "爬山"), 1);
    am_close(db);
}

/* A number written with its unit or model name in one word ("158cm",
 * "Mate60", "iPhone14") and the same written apart or in the other script
 * ("158厘米", "Mate 60", "iPhone 14"): the word's letter and digit runs are
 * terms too (text/analyze.c), and units have their other script as
 * near-words (recall/expand.c).  The turns with only the unit, or only
 * the brand, come after. */
static void test_number_units_zh(void)
{
    expands_to("谁177公分？", "cm");
    expands_to("跑了5公里", "km");
    am_db *db = open_mem();
    add(db, "u1", "a", NULL, "2026-03-01T10:00:00+08:00", "我叔叔身高165厘米。");
    add(db, "u1", "b", NULL, "2026-03-01T11:00:00+08:00", "我舅舅身高170厘米。");
    add(db, "u1", "c", NULL, "2026-03-02T10:00:00+08:00", "我同事个子158cm。");
    add(db, "u1", "d", NULL, "2026-03-02T11:00:00+08:00", "我上司身高有177cm呢。");
    add(db, "u1", "e", NULL, "2026-03-03T10:00:00+08:00", "我用的手机是华为Mate 60。");
    add(db, "u1", "f", NULL, "2026-03-03T11:00:00+08:00", "我表哥用的是华为P40。");
    add(db, "u1", "g", NULL, "2026-03-04T11:00:00+08:00", "我表弟体重177斤。");
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-10T09:00:00+08:00", "158厘米的那个人是谁？",
                              "个子158cm"), 1);
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-10T09:00:00+08:00", "谁用华为Mate60？",
                              "Mate 60"), 1);
    am_close(db);
}

static void test_number_units_en(void)
{
    expands_to("a 10km race", "公里");
    am_db *db = open_mem();
    add(db, "u1", "a", NULL, "2026-03-01T10:00:00+08:00", "My old phone was an iPhone 11, cracked screen.");
    add(db, "u1", "b", NULL, "2026-03-01T11:00:00+08:00", "I finally bought the iPhone14 last week!");
    add(db, "u1", "c", NULL, "2026-03-02T10:00:00+08:00", "The race was 10km along the river.");
    add(db, "u1", "d", NULL, "2026-03-02T11:00:00+08:00", "I ran 5 km this morning before work.");
    add(db, "u1", "e", NULL, "2026-03-02T12:00:00+08:00", "We walked 5 miles around the lake.");
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-10T09:00:00+08:00", "When did I get the iPhone 14?",
                              "iPhone14"), 1);
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-10T09:00:00+08:00", "How long was my 5km run?",
                              "5 km this"), 1);
    CHECK_EQ_INT((int)rank_of(db, "u1", "2026-03-10T09:00:00+08:00", "the 10 km race",
                              "10km"), 1);
    am_close(db);
}

/* A question that names a phone number or an e-mail address finds the
 * turn that held it, although the store holds that turn redacted
 * ("[PHONE_1]") and indexed without the value: through the user's vault,
 * compared in canonical form (spaces, case), first -- never another
 * user's turn with the same value, never a forgotten one, never one said
 * after as_of, and never the value itself.  Off (rank.pii_matches = 0),
 * the turns that share the question's words come first. */
static size_t pii_rank(am_db *db, const char *question, const char *needle, const char *as_of,
                       int *leaked)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = "u1";
    q.text = question;
    q.max_events = 10;
    q.no_touch = 1;
    q.as_of = as_of;
    set_now("2026-03-10T09:00:00+08:00");
    am_recall_result *r = NULL;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
    size_t found = 0;
    for (size_t i = 0; r && i < r->n_events; i++) {
        if (!found && strstr(r->events[i].content, needle)) found = i + 1;
        if (strstr(r->events[i].content, "15529098194") || strstr(r->events[i].content, "Fischer") ||
            strstr(r->events[i].content, "老板") || strstr(r->events[i].content, "landlord"))
            *leaked = 1;
    }
    if (r && strstr(r->block, "15529098194")) *leaked = 1;
    am_recall_free(r);
    return found;
}

static am_db *pii_history(int on, const char *const *others, size_t n_others, const char *target,
                          const char *other_user, char *target_id)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.rank.pii_matches = on;
    am_db *db = open_mem_rank(&cfg.rank);
    for (size_t i = 0; i < n_others; i++) {
        char at[40], session[16];
        snprintf(at, sizeof at, "2026-03-%02dT10:00:00+08:00", 1 + (int)i);
        snprintf(session, sizeof session, "o%zu", i);
        add(db, "u1", session, NULL, at, others[i]);
    }
    am_add_info a = add(db, "u1", "t", NULL, "2026-02-20T10:00:00+08:00", target);
    snprintf(target_id, 32, "%s", a.event_id);
    add(db, "u2", "x", NULL, "2026-02-21T10:00:00+08:00", other_user);
    return db;
}

static void pii_case(const char *const *others, size_t n_others, const char *target,
                     const char *other_user, const char *question, const char *needle)
{
    char id[32];
    int leaked = 0;
    am_db *db = pii_history(1, others, n_others, target, other_user, id);
    CHECK_EQ_INT((int)pii_rank(db, question, needle, NULL, &leaked), 1);
    CHECK_EQ_INT((int)pii_rank(db, question, needle, "2026-02-19T00:00:00+08:00", &leaked), 0);
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_EVENT, id, NULL), AM_OK);
    CHECK_EQ_INT((int)pii_rank(db, question, needle, NULL, &leaked), 0);
    CHECK_EQ_INT(leaked, 0);
    am_close(db);
    db = pii_history(0, others, n_others, target, other_user, id);
    CHECK(pii_rank(db, question, needle, NULL, &leaked) != 1);
    am_close(db);
}

static void test_pii_match_zh(void)
{
    static const char *const others[] = {
        "我上司的联系电话是13812345678。", "我同事的联系电话是13900001111。",
        "我表姐的联系电话是13722223333。", "我婶婶的联系电话是13644445555。",
    };
    pii_case(others, 4, "我舅舅的号码是15529098194。", "我老板的电话是15529098194。",
             "那个联系电话是155 2909 8194的人，其兴趣爱好是什么？", "舅舅的号码");
}

static void test_pii_match_en(void)
{
    static const char *const others[] = {
        "My boss's e-mail address is tom.baker@example.com, for work only.",
        "My coworker's e-mail address is ana.silva@example.com, she answers fast.",
        "My sister's e-mail address is mia.berg@example.net, her new one.",
        "My dentist's e-mail address is office@smile.example, for appointments.",
    };
    pii_case(others, 4, "My cousin writes from Lena.Fischer@example.org these days.",
             "My landlord uses lena.fischer@example.org too.",
             "Who has the e-mail address lena.fischer@EXAMPLE.org?", "My cousin");
}

/* A query that corrects itself: its chatter shares many words with other
 * turns, its ask (after "我真正想问的是" / "what I really want to know
 * is") with the answer, which must come first; when the chatter counts
 * as much as the ask, the chatty turns win. */
static int preamble_rank(double w_preamble, const char *const chatty[3], const char *answer,
                         const char *question, const char *needle)
{
    am_db *db = open_with(0.9, w_preamble);
    for (int i = 0; i < 3; i++) {
        char at[40], session[16];
        snprintf(at, sizeof at, "2026-03-%02dT10:00:00+08:00", 1 + i);
        snprintf(session, sizeof session, "c%d", i);
        add(db, "u1", session, NULL, at, chatty[i]);
    }
    add(db, "u1", "a", NULL, "2026-02-20T10:00:00+08:00", answer);
    size_t r = rank_of(db, "u1", "2026-03-10T09:00:00+08:00", question, needle);
    am_close(db);
    return (int)r;
}

static void preamble(const char *const chatty[3], const char *answer, const char *question,
                     const char *needle)
{
    CHECK_EQ_INT(preamble_rank(0.2, chatty, answer, question, needle), 1);
    CHECK(preamble_rank(1.0, chatty, answer, question, needle) > 1);
}

static void test_preamble_zh(void)
{
    static const char *const chatty[3] = {
        "上周公园里的那个大型活动真是热闹非凡，人山人海，现场装饰很用心。",
        "公园的活动现场人太多了，差点找不到朋友，装饰倒是挺热闹的。",
        "这个周末公园里又有大型活动，热闹非凡，朋友们都去了。",
    };
    preamble(chatty, "我舅舅的邮箱是zhangwei0715@example.com。",
             "记得上周那个大型活动真是热闹非凡，就是人有点多，差点找不到我的朋友了。活动现场的装饰"
             "真是用心，公园里人山人海。不好意思，我真正想问的是：我舅舅的邮箱是什么？",
             "舅舅的邮箱");
}

static void test_preamble_en(void)
{
    static const char *const chatty[3] = {
        "The big festival in the park last week was so crowded, great decorations everywhere.",
        "So many people at the park festival, I almost lost my friends in the crowd.",
        "Another big festival in the park this weekend, crowded and loud, my friends loved it.",
    };
    preamble(chatty, "My uncle's email address is zhangwei0715@example.com.",
             "That big festival in the park last week was so crowded, I almost lost my friends, "
             "the decorations were great. Sorry, what I really want to know is: what is my "
             "uncle's email?",
             "uncle's email");
}

/* The ask without the usual cue: other ways of saying "what I really
 * want to know" ("对了，我想问，", "我真正想弄清楚的是"), and chatter of
 * several statements ending in a question with no cue at all ("等等，
 * …？", "Hold on, …?"): the ask is the last question.  Without that, the
 * chatter counts in full and the chatty turns win. */
static void test_preamble_no_cue_zh(void)
{
    static const char *const chatty[3] = {
        "上周公园里的那个大型活动真是热闹非凡，人山人海，现场装饰很用心。",
        "公园的活动现场人太多了，差点找不到朋友，装饰倒是挺热闹的。",
        "这个周末公园里又有大型活动，热闹非凡，朋友们都去了。",
    };
    static const char *const asks[] = {"对了，我想问，", "哎，我真正想弄清楚的是，", "等等，诶，等等，"};
    for (size_t i = 0; i < sizeof asks / sizeof *asks; i++) {
        char q[512];
        snprintf(q, sizeof q,
                 "记得上周那个大型活动真是热闹非凡，就是人有点多，差点找不到我的朋友了。活动现场的"
                 "装饰真是用心，公园里人山人海。%s我舅舅的邮箱是什么？",
                 asks[i]);
        CHECK_EQ_INT(preamble_rank(0.2, chatty, "我舅舅的邮箱是zhangwei0715@example.com。", q,
                                   "舅舅的邮箱"),
                     1);
    }
}

static void test_preamble_no_cue_en(void)
{
    static const char *const chatty[3] = {
        "The big festival in the park last week was so crowded, great decorations everywhere.",
        "So many people at the park festival, I almost lost my friends in the crowd.",
        "Another big festival in the park this weekend, crowded and loud, my friends loved it.",
    };
    CHECK_EQ_INT(preamble_rank(0.2, chatty, "My uncle's email address is zhangwei0715@example.com.",
                               "That big festival in the park last week was so crowded. I almost "
                               "lost my friends in the crowd. The decorations were great. Hold on, "
                               "what is my uncle's email?",
                               "uncle's email"),
                 1);
}

/* The ask of a chatty one-line query (recall/expand.c am__query_asks):
 * the last question after two or more statements; initials ("C. S.") and
 * one-word sentences are not statements.  Normalised text (NFKC: "？" is
 * "?"). */
static void asks_is(const char *norm, const char *want)
{
    size_t from[4], to[4];
    size_t k = am__query_asks(norm, strlen(norm), from, to, 4);
    if (!want) {
        CHECK_EQ_INT((int)k, 0);
        return;
    }
    CHECK_EQ_INT((int)k, 1);
    if (k == 1) {
        char got[256];
        snprintf(got, sizeof got, "%.*s", (int)(to[0] - from[0]), norm + from[0]);
        CHECK_EQ_STR(got, want);
    }
}

static void test_asks_last_question(void)
{
    asks_is("今天天气真好，阳光明媚。最近工作太忙了，天天加班。等等，那个地点是江苏苏州的活动，规模是什么?",
            "等等，那个地点是江苏苏州的活动，规模是什么?");
    asks_is("嗯。好。那个活动在哪里举行?", NULL);
    asks_is("The weather is lovely today. I have been so busy with work lately. Hold on, where is "
            "the conference?",
            "Hold on, where is the conference?");
    asks_is("Would Tim enjoy reading books by C. S. Lewis or John Greene?", NULL);
}

int main(void)
{
    RUN(test_asks_last_question);
    RUN(test_store_search_parts);
    RUN(test_rows_written_whole);
    RUN(test_query_condition);
    RUN(test_expand_attributes_zh);
    RUN(test_expand_attributes_en);
    RUN(test_verb_forms_en);
    RUN(test_verb_forms_zh);
    RUN(test_number_units_zh);
    RUN(test_number_units_en);
    RUN(test_speaker_alias_en);
    RUN(test_speaker_alias_zh);
    RUN(test_pii_match_zh);
    RUN(test_pii_match_en);
    RUN(test_condition_zh);
    RUN(test_condition_en);
    RUN(test_item_tokens_stored_zh);
    RUN(test_item_tokens_stored_en);
    RUN(test_context_length_zh);
    RUN(test_context_length_en);
    RUN(test_long_question_zh);
    RUN(test_long_question_en);
    RUN(test_dated_question_en);
    RUN(test_dated_question_zh);
    RUN(test_optimize_keeps_results);
    RUN(test_memory_sources_zh);
    RUN(test_memory_sources_en);
    RUN(test_correction_stays_en);
    RUN(test_correction_stays_zh);
    RUN(test_lengths_stay_true_en);
    RUN(test_lengths_stay_true_zh);
    RUN(test_term_lists_whole_en);
    RUN(test_term_lists_whole_zh);
    RUN(test_term_lists_other_users_en);
    RUN(test_term_lists_other_users_zh);
    RUN(test_term_lists_stay_true_en);
    RUN(test_term_lists_stay_true_zh);
    RUN(test_term_lists_stay_true_in_txn);
    RUN(test_term_lists_stay_true_long);
    RUN(test_vector_rows_after_other_forget);
    RUN(test_term_lists_bounded);
    RUN(test_rows_stay_true_en);
    RUN(test_rows_stay_true_zh);
    RUN(test_speaker_named_en);
    RUN(test_speaker_named_zh);
    RUN(test_broad_word_en);
    RUN(test_broad_word_zh);
    RUN(test_broad_word_more_en);
    RUN(test_broad_word_more_zh);
    RUN(test_asks_when_en);
    RUN(test_asks_when_zh);
    RUN(test_compound_question_en);
    RUN(test_compound_question_zh);
    RUN(test_two_hop_zh);
    RUN(test_two_hop_en);
    RUN(test_event_tokens_stored_zh);
    RUN(test_event_tokens_stored_en);
    RUN(test_two_hop_quoted_zh);
    RUN(test_two_hop_quoted_en);
    RUN(test_two_hop_described_zh);
    RUN(test_two_hop_asked_zh);
    RUN(test_two_hop_asked_en);
    RUN(test_two_hop_told_zh);
    RUN(test_two_hop_told_en);
    RUN(test_two_hop_described_en);
    RUN(test_preamble_zh);
    RUN(test_preamble_en);
    RUN(test_preamble_no_cue_zh);
    RUN(test_preamble_no_cue_en);
    TEST_MAIN_END();
}
