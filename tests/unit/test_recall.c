/*
 * test_recall.c -- lexical ranking properties of the read path, zh + en:
 * a turn's neighbours (the context column) must not make it look long
 * (BM25F, store/sqlite/fts_rank.c), and a long, chatty question keeps the
 * terms of its real ask at the end, and a question about a date finds
 * that day's turn even when sixty others share more of its words.
 */
#include "test.h"
#include "api_util.h"

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
/* Recall for u1 at 2026-03-04 10:00 (+08:00), read-only. */
static am_recall_result *ask_any(am_db *db, const char *question)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = "u1";
    q.text = question;
    q.no_touch = 1;
    set_now("2026-03-04T10:00:00+08:00");
    am_recall_result *r = NULL;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
    return r;
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

int main(void)
{
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
    TEST_MAIN_END();
}
