/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_router.c -- the router and the block's layers through am_recall
 * (real SQLite, zh + en): closings and acknowledgements need no memory
 * while a closing that carries a request or a question still recalls;
 * a continuation puts the task state first in the block; a turn
 * that asks for a link or a file gets the turns that carry one first;
 * the block comes in two parts, the system prompt's (profile,
 * preferences, constraints) and the one before the history (facts, task
 * state, events), in the C result and its JSON.
 */
#include <jansson.h>

#include "test.h"
#include "api_util.h"

static am_recall_result *recall_at(am_db *db, const char *user, const char *session,
                                   const char *at, const char *text)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = user;
    q.session_id = session;
    q.text = text;
    q.no_touch = 1;
    set_now(at);
    am_recall_result *r = NULL;
    int rc = am_recall(db, &q, &r);
    if (rc) fprintf(stderr, "recall failed: %s\n", am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
    return r;
}

/* Every turn of `none` needs no memory (reason "closing" or "chit_chat"),
 * every turn of `some` does. */
static void closings(const char *const *none, const char *const *some)
{
    am_db *db = open_mem();
    add(db, "u1", "s1", "weekly-report", "2026-03-02T09:00:00+08:00",
        "以后周报都按已完成、进行中、下周计划三段写");
    add(db, "u1", "s1", NULL, "2026-03-02T09:05:00+08:00",
        "From now on, send every contract to me as a PDF");
    for (size_t i = 0; none[i]; i++) {
        am_recall_result *r = recall_at(db, "u1", "s1", "2026-03-02T09:10:00+08:00", none[i]);
        if (!r) continue;
        if (r->need_memory) fprintf(stderr, "router said memory for: %s\n", none[i]);
        CHECK(!r->need_memory);
        CHECK_EQ_STR(r->route, "none");
        CHECK_EQ_STR(r->block, "");
        CHECK(strcmp(r->route_reason, "closing") == 0 || strcmp(r->route_reason, "chit_chat") == 0);
        CHECK_CONTAINS(r->json, "\"need_memory\":false");
        am_recall_free(r);
    }
    for (size_t i = 0; some[i]; i++) {
        am_recall_result *r = recall_at(db, "u1", "s1", "2026-03-02T09:10:00+08:00", some[i]);
        if (!r) continue;
        if (!r->need_memory) fprintf(stderr, "router said no memory for: %s\n", some[i]);
        CHECK(r->need_memory);
        am_recall_free(r);
    }
    am_close(db);
}

static void test_closings_zh(void)
{
    static const char *const none[] = {
        "好的，就这样吧", "行，那先这样", "嗯嗯，没别的了，谢谢", "好嘞，回头见",
        "可以了，辛苦啦", "明白了，谢谢你！", "好的好的，今天就到这", "OK，那就这样",
        "收到，没问题，先这样哈", "不用了，谢谢", "祝你周末愉快～", "没事了，你忙吧",
        "好的，暂时没有其他问题了", NULL};
    static const char *const some[] = {
        "好的，把上周的报价单发我", "行，那明天提醒我交报销单", "好的，就这样吗？",
        "谢谢，周报还差哪部分", "好的，继续", "没别的了，帮我把会议改到周五", NULL};
    closings(none, some);
}

static void test_closings_en(void)
{
    static const char *const none[] = {
        "ok thanks, that's all", "bye for now", "alright, that's it for today",
        "great, all set, thanks!", "cool, talk soon", "perfect, thank you so much",
        "no thanks, that will be all", "got it, cheers!", "Sounds good. Bye!",
        "that's all for now, take care", "no thanks, I’m all set", "Have a great weekend!",
        "thanks for your help, see you next week", "That's all I needed, thank you", NULL};
    static const char *const some[] = {
        "ok thanks, and send the slides to Maria", "that's all?",
        "thanks, what format did I want for contracts?", "alright, book the hotel for Friday",
        "ok, carry on", "bye for now, remind me about the dentist tomorrow", NULL};
    closings(none, some);
}

/* Small talk in any wording (the learned reading): no memory, no items,
 * reason "small_talk" (or "chit_chat" for the word lists); a question about what is stored still recalls it,
 * with or without "my"; a small-talk turn that shares its words with a
 * stored item, or that asks about the user, recalls too. */
static void small_talk(const char *const items[3], const char *const *none,
                       const char *const (*some)[2])
{
    am_db *db = open_mem();
    for (int i = 0; i < 3; i++) add(db, "u1", "s1", NULL, "2026-03-02T09:00:00+08:00", items[i]);
    for (size_t i = 0; none[i]; i++) {
        am_recall_result *r = recall_at(db, "u1", "s2", "2026-03-02T10:00:00+08:00", none[i]);
        if (!r) continue;
        if (r->need_memory) fprintf(stderr, "router said memory for: %s\n", none[i]);
        CHECK(!r->need_memory);
        CHECK_EQ_STR(r->route, "none");
        CHECK(strcmp(r->route_reason, "small_talk") == 0 ||
              strcmp(r->route_reason, "chit_chat") == 0);
        CHECK_EQ_INT((int)r->n_memories, 0);
        CHECK_EQ_STR(r->block, "");
        am_recall_free(r);
    }
    for (size_t i = 0; some[i][0]; i++) {
        am_recall_result *r = recall_at(db, "u1", "s2", "2026-03-02T10:00:00+08:00", some[i][0]);
        if (!r) continue;
        if (!r->need_memory) fprintf(stderr, "router said no memory for: %s\n", some[i][0]);
        CHECK(r->need_memory);
        CHECK_CONTAINS(r->block, some[i][1]);
        am_recall_free(r);
    }
    am_close(db);
}

static void test_small_talk_zh(void)
{
    static const char *const items[3] = {"以后周报都用PDF格式发我", "我住在成都高新区",
                                         "我周末一般不看消息"};
    static const char *const none[] = {"讲个笑话听听", "今天天气怎么样", "1+1等于几",
                                       "3乘以4是多少", "早上好呀", "哈哈哈太逗了",
                                       "你今天过得怎么样", "明天会下雨吗", NULL};
    static const char *const some[][2] = {{"谢谢，我住在哪来着", "成都"},
                                          {"周报用什么格式", "PDF"},
                                          {NULL, NULL}};
    small_talk(items, none, some);
}

static void test_small_talk_en(void)
{
    static const char *const items[3] = {"From now on send me the weekly report as a PDF",
                                         "I live in Porto", "I never check email on weekends"};
    static const char *const none[] = {"tell me a joke", "haha nice one", "good morning!",
                                       "how's your day going?", "you're funny",
                                       "tell me a joke about cats", NULL};
    static const char *const some[][2] = {{"thanks, where do I live?", "Porto"},
                                          {"which format for the weekly report?", "PDF"},
                                          {"haha, remember what I said about Porto?", "Porto"},
                                          {NULL, NULL}};
    small_talk(items, none, some);
}

/* A continuation: the task state leads the block (state_first), then the
 * memories; the same lines as on the default route, another order. */
static void state_first(const char *items[2], const char *task_turn, const char *cont,
                        const char *plain, const char *task_label, const char *mem_label)
{
    am_db *db = open_mem();
    add(db, "u1", "s1", NULL, "2026-03-02T09:00:00+08:00", items[0]);
    add(db, "u1", "s1", NULL, "2026-03-02T09:01:00+08:00", items[1]);
    add(db, "u1", "s2", "weekly-report", "2026-03-05T17:00:00+08:00", task_turn);
    am_recall_result *r = recall_at(db, "u1", "s9", "2026-03-06T09:00:00+08:00", cont);
    if (r) {
        CHECK_EQ_STR(r->route, "state_first");
        CHECK(r->task != NULL);
        const char *t = strstr(r->block, task_label), *m = strstr(r->block, mem_label);
        CHECK(t != NULL && m != NULL);
        if (t && m) CHECK(t < m);
        CHECK(strncmp(r->block, task_label, strlen(task_label)) == 0);
        am_recall_free(r);
    }
    /* the default route keeps the memories first */
    r = recall_at(db, "u1", "s9", "2026-03-06T09:00:00+08:00", plain);
    if (r) {
        CHECK_EQ_STR(r->route, "semantic_first");
        CHECK(strncmp(r->block, mem_label, strlen(mem_label)) == 0);
        am_recall_free(r);
    }
    am_close(db);
}

static void test_state_first_zh(void)
{
    const char *items[2] = {"以后回复我都用中文", "我是左撇子"};
    state_first(items, "周报草稿写了一半，已完成部分写好了", "接着把周报弄完",
                "周报一般怎么写", "[任务状态]", "[记忆]");
}

static void test_state_first_en(void)
{
    const char *items[2] = {"From now on, always reply to me in English",
                            "I'm lactose intolerant"};
    state_first(items, "The weekly report draft is half done", "Let's continue with the weekly report",
                "How do I like weekly reports written?", "[Task state]", "[Memory]");
}

/* A turn asking for a link or a file: the turn that carries one comes
 * first among the events, the kind the turn names before the other,
 * though it shares no word with the turn. */
static void references(const char *const turns[5], const char *link_q, const char *file_q,
                       const char *plain_q)
{
    am_db *db = open_mem();
    add(db, "u1", "s1", NULL, "2026-04-01T10:00:00+08:00", turns[0]); /* a link */
    add(db, "u1", "s1", NULL, "2026-04-02T10:00:00+08:00", turns[1]); /* a file */
    add(db, "u1", "s2", NULL, "2026-04-20T10:00:00+08:00", turns[2]);
    add(db, "u1", "s2", NULL, "2026-04-21T10:00:00+08:00", turns[3]);
    add(db, "u1", "s3", NULL, "2026-05-06T10:00:00+08:00", turns[4]);
    am_recall_result *r = recall_at(db, "u1", "s9", "2026-05-08T09:00:00+08:00", link_q);
    if (r) {
        CHECK(r->refs & AM_REF_URL);
        CHECK(r->n_events >= 2);
        if (r->n_events >= 2) {
            CHECK_CONTAINS(r->events[0].content, "https://");
            CHECK_CONTAINS(r->events[1].content, ".xlsx");
        }
        CHECK_CONTAINS(r->json, "\"refs\":[\"url\"]");
        am_recall_free(r);
    }
    r = recall_at(db, "u1", "s9", "2026-05-08T09:00:00+08:00", file_q);
    if (r) {
        CHECK(r->refs & AM_REF_FILE);
        CHECK(r->n_events >= 2);
        if (r->n_events >= 2) {
            CHECK_CONTAINS(r->events[0].content, ".xlsx");
            CHECK_CONTAINS(r->events[1].content, "https://");
        }
        am_recall_free(r);
    }
    /* no cue: no reference first */
    r = recall_at(db, "u1", "s9", "2026-05-08T09:00:00+08:00", plain_q);
    if (r) {
        CHECK_EQ_INT(r->refs, 0);
        CHECK_CONTAINS(r->json, "\"refs\":[]");
        am_recall_free(r);
    }
    am_close(db);
}

static void test_references_zh(void)
{
    static const char *const turns[5] = {
        "供应商的报价系统在 https://quote.example.cn/q/7781 登录就能看", "合同清单整理好了，在 采购清单2026.xlsx 里",
        "周三下午和王经理碰一下季度目标", "下个月去成都出差三天", "最近供应商那边回复很慢"};
    references(turns, "把那个链接再发我一下", "之前说的那个文件在哪", "下个月出差去哪");
}

static void test_references_en(void)
{
    static const char *const turns[5] = {
        "The vendor portal is at https://portal.example.com/login if you need it",
        "I put the contract list in vendors-2026.xlsx", "Lunch with Priya on Wednesday about the roadmap",
        "I fly to Denver next month for three days", "The vendor has been slow to reply lately"};
    references(turns, "can you send me the link again", "where is the doc you sent me",
               "where do I fly next month");
}

/* The two parts: the system prompt's holds the preference and the
 * profile fact, not the task nor the events; the one before the history
 * holds the task state and the events, not the preference; both are in
 * the JSON, and their lines are the block's. */
static void parts(const char *pref, const char *profile, const char *task_turn, const char *q,
                  const char *pref_word, const char *profile_word, const char *task_word,
                  const char *task_label)
{
    am_db *db = open_mem();
    add(db, "u1", "s1", NULL, "2026-03-02T09:00:00+08:00", pref);
    add(db, "u1", "s1", NULL, "2026-03-02T09:01:00+08:00", profile);
    add(db, "u1", "s2", "weekly-report", "2026-03-05T17:00:00+08:00", task_turn);
    am_recall_result *r = recall_at(db, "u1", "s2", "2026-03-05T17:30:00+08:00", q);
    if (!r) {
        am_close(db);
        return;
    }
    CHECK(r->n_memories >= 2);
    CHECK_CONTAINS(r->block_system, pref_word);
    CHECK_CONTAINS(r->block_system, profile_word);
    CHECK(strstr(r->block_system, task_label) == NULL);
    CHECK(strstr(r->block_system, task_word) == NULL);
    CHECK_CONTAINS(r->block_context, task_label);
    CHECK_CONTAINS(r->block_context, task_word);
    CHECK(strstr(r->block_context, pref_word) == NULL);
    CHECK(r->block_system_tokens > 0 && r->block_context_tokens > 0);
    /* every line of a part is a line of the block */
    const char *parts2[2] = {r->block_system, r->block_context};
    for (int k = 0; k < 2; k++) {
        const char *p = parts2[k];
        while (*p) {
            const char *e = strchr(p, '\n');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            char line[1024];
            if (n < sizeof line) {
                memcpy(line, p, n);
                line[n] = 0;
                CHECK(strstr(r->block, line) != NULL);
            }
            p += n + (e ? 1 : 0);
        }
    }
    json_error_t je;
    json_t *j = json_loads(r->json, 0, &je);
    CHECK(j != NULL);
    CHECK_EQ_STR(json_string_value(json_object_get(j, "block_system")), r->block_system);
    CHECK_EQ_STR(json_string_value(json_object_get(j, "block_context")), r->block_context);
    CHECK_EQ_STR(json_string_value(json_object_get(j, "route_reason")), r->route_reason);
    CHECK(json_is_integer(json_object_get(j, "block_system_tokens")));
    CHECK(json_is_array(json_object_get(j, "refs")));
    json_decref(j);
    am_recall_free(r);
    /* no memory: both parts empty, in the JSON too */
    r = recall_at(db, "u1", "s2", "2026-03-05T17:31:00+08:00", "ok 👍");
    if (r) {
        CHECK_EQ_STR(r->block_system, "");
        CHECK_EQ_STR(r->block_context, "");
        CHECK_CONTAINS(r->json, "\"block_system\":\"\"");
        am_recall_free(r);
    }
    am_close(db);
}

static void test_parts_zh(void)
{
    parts("以后周报都按已完成、进行中、下周计划三段写", "我是左撇子", "周报草稿写了一半",
          "周报写到哪了", "三段", "左撇子", "草稿", "[任务状态]");
}

static void test_parts_en(void)
{
    parts("From now on, write my weekly reports in three sections", "I'm lactose intolerant",
          "The weekly report draft is half done", "where is the weekly report at", "three sections",
          "lactose", "half done", "[Task state]");
}

int main(void)
{
    RUN(test_closings_zh);
    RUN(test_closings_en);
    RUN(test_small_talk_zh);
    RUN(test_small_talk_en);
    RUN(test_state_first_zh);
    RUN(test_state_first_en);
    RUN(test_references_zh);
    RUN(test_references_en);
    RUN(test_parts_zh);
    RUN(test_parts_en);
    TEST_MAIN_END();
}
