/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_versions.c -- versions by attribute and by time
 * (docs/VERSIONS.md), in Chinese and English.
 *  - the sentence analysis of distill/restate.c: the attribute a sentence
 *    states, a change, the old value named negatively, and what is not a
 *    restatement (requests, intentions, past attributes, someone else,
 *    questions);
 *  - keys: restatements meet the old value on its key (the pairs of
 *    test_corpus.c test_keys);
 *  - end to end through the public API: a restatement supersedes a
 *    reinforced value (no pending question), a negated old value finds an
 *    item of another key, a late statement becomes a closed historical
 *    version (system time = the clock), a period named in the question
 *    lists the items as they were then with the status they had then, "now"
 *    the current ones, and a bad as_of is refused naming the field.
 * Scenario files: tests/scenarios/versions_attr_*.jsonl, versions_time_*.jsonl.
 */
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "api_util.h"
#include "write/distill/restate.h"
#include "write/distill/rules.h"
#include "text/analyze.h"
#include "text/entities.h"

static am__text *text;

static void distill(const char *s, am__distill *d, am__restate *r)
{
    am__buf b;
    am__buf_init(&b, NULL);
    CHECK_EQ_INT(am__text_normalize(text, s, strlen(s), &b), AM_OK);
    am__distill_sentence(b.p ? b.p : "", b.len, d);
    if (r) am__distill_restate(b.p ? b.p : "", b.len, r);
    am__buf_free(&b);
}

/* ------------------------------------------------------------ the analysis */

static void test_restatements(void)
{
    static const struct {
        const char *s;
        int persist, restated;
        const char *noun, *old;
    } cases[] = {
        /* a change in the user's own voice */
        {"我现在改用钉钉了，不用微信", 1, 1, "", "微信"},
        {"我换工作了，现在在腾讯", 1, 1, "工作", ""},
        {"我的车换成比亚迪了", 1, 1, "车", ""},
        {"我的主管现在是刘洋", 1, 1, "主管", ""},
        {"我已经从上海搬到成都了", 1, 1, "home", "上海"},
        {"I now prefer Word over PDF", 1, 1, "", "pdf"},
        {"My manager is now Tom Baker", 1, 1, "manager", ""},
        {"I changed jobs, I'm at Google now", 1, 1, "job", ""},
        {"I switched from Slack to Teams", 1, 1, "", "slack"},
        {"I'm not at Alibaba anymore, I work at Tencent now", 1, 1, "", "alibaba"},
        /* a possessive fact: the attribute, no change */
        {"我的血型是AB型", 1, 0, "血型", ""},
        {"My blood type is O negative", 1, 0, "blood_type", ""},
        /* not the user's change */
        {"帮我把标题改成红色", 0, 0, NULL, NULL},
        {"我想换工作", 0, 0, NULL, NULL},
        {"他换工作了，现在在字节", 0, 0, NULL, NULL},
        {"我以前的车是特斯拉", 0, 0, NULL, NULL},
        {"我们改用新的报销系统了吗？", 0, 0, NULL, NULL},
        {"Can you switch the chart to a bar chart?", 0, 0, NULL, NULL},
        {"I'm thinking about switching to a standing desk", 0, 0, NULL, NULL},
        {"My previous landlord was a nightmare", 0, 0, NULL, NULL},
        {"My question is how long the warranty lasts", 0, 0, NULL, NULL},
        {"She switched teams last month", 0, 0, NULL, NULL},
        {"If I switched to Word, would it be easier?", 0, 0, NULL, NULL},
        /* another person's change, an event's */
        {"我老板换车了，现在开宝马", 0, 0, NULL, NULL},
        {"My sister moved to Boston", 0, 0, NULL, NULL},
        {"My flight is now at 6pm", 0, 0, NULL, NULL},
        {"我的航班现在改到晚上八点了", 0, 0, NULL, NULL},
        /* narration, a reason, a wish (chat turns of LoCoMo's kind) */
        {"I've known these friends for 4 years, since I moved from my home country", 0, 0, NULL,
         NULL},
        {"I'm over the moon because now I can expand my clothing store", 0, 0, NULL, NULL},
        {"It would be great to have a new pup in the house", 0, 0, NULL, NULL},
        {"My goal is to give kids a loving home", 0, 0, NULL, NULL},
        {"我的梦想是开一家咖啡店", 0, 0, NULL, NULL},
        /* a withdrawal of the earlier rule stays an invalidation */
        {"我现在不喝咖啡了，之前的偏好删掉吧", 0, 0, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        am__distill d;
        am__restate r;
        distill(cases[i].s, &d, &r);
        int ok = (d.action == AM__D_PERSIST) == cases[i].persist;
        if (ok && cases[i].persist) {
            ok = d.restated == cases[i].restated &&
                 strcmp(r.noun, cases[i].noun) == 0 && strcmp(d.old_value, cases[i].old) == 0;
        }
        if (!ok) {
            fprintf(stderr, "\"%s\": action %d restated %d noun [%s] old [%s] key %s rule %s\n",
                    cases[i].s, d.action, d.restated, r.noun, d.old_value, d.key,
                    d.rule ? d.rule : "-");
            CHECK(0);
        }
    }
}

/* The periods a question names (query mode): seasons and "this time
 * last year" (before: the whole year, or nothing). */
static void test_question_periods(void)
{
    static const struct {
        const char *q, *from, *to; /* [from, to); NULL: no period */
    } cases[] = {
        {"where did I work last summer?", "2025-06-01", "2025-09-01"},
        {"去年夏天我住在哪？", "2025-06-01", "2025-09-01"},
        {"what did I drive last winter", "2025-12-01", "2026-03-01"},
        {"今年春天我用什么沟通工具", "2026-03-01", "2026-06-01"},
        {"this time last year, who was my manager?", "2025-05-31", "2025-07-01"},
        {"去年这个时候我在哪家公司？", "2025-05-31", "2025-07-01"},
        {"去年同期的报告格式", "2025-05-31", "2025-07-01"},
        {"back in January which format did I want?", "2026-01-01", "2026-02-01"},
        {"三个月前我用什么", "2026-03-01", "2026-04-01"},
        {"what is my favourite season, summer or winter?", NULL, NULL},
    };
    am_time now;
    CHECK_EQ_INT(am_time_parse("2026-06-15T10:00:00Z", &now, NULL), AM_OK);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        am_time f = 0, t = 0;
        int got = am__query_time_range(cases[i].q, strlen(cases[i].q), now, 0, &f, &t);
        char a[32], b[32];
        if (got) {
            am_time_format(f, 0, a);
            am_time_format(t, 0, b);
        }
        int ok = cases[i].from ? got && strncmp(a, cases[i].from, 10) == 0 &&
                                     strncmp(b, cases[i].to, 10) == 0
                               : !got;
        if (!ok) {
            fprintf(stderr, "\"%s\": %s .. %s\n", cases[i].q, got ? a : "-", got ? b : "-");
            CHECK(0);
        }
    }
}

/* ------------------------------------------------------------ end to end */

/* The active items' texts joined by " | ". */
static void actives(am_db *db, const char *user, const char *as_of, char *out, size_t cap)
{
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories(db, user, AM_LIST_ACTIVE, as_of, &l), AM_OK);
    out[0] = 0;
    for (size_t i = 0; l && i < l->n; i++) {
        size_t k = strlen(out);
        snprintf(out + k, cap - k, "%s%s[%s]", k ? " | " : "", l->items[i].text,
                 l->items[i].status);
    }
    am_memory_list_free(l);
}

static void recall_memories(am_db *db, const char *user, const char *query, const char *as_of,
                            char *out, size_t cap)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = user;
    q.text = query;
    q.as_of = as_of;
    q.no_touch = 1;
    am_recall_result *r = NULL;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
    out[0] = 0;
    for (size_t i = 0; r && i < r->n_memories; i++) {
        size_t k = strlen(out);
        snprintf(out + k, cap - k, "%s%s[%s]", k ? " | " : "", r->memories[i].text,
                 r->memories[i].status);
    }
    am_recall_free(r);
}

/* A restatement supersedes a value said three times (confidence grown
 * past its own): no pending question.  Before restatements were read, the
 * change cue sentence was dropped or became pending_confirm. */
static void test_restated_supersedes(void)
{
    am_db *db = open_mem();
    char got[2048];
    add(db, "zh", "s1", NULL, "2026-01-05T09:00:00+08:00", "我平时用微信沟通工作");
    add(db, "zh", "s2", NULL, "2026-01-14T15:00:00+08:00", "我平时用微信沟通工作");
    add(db, "zh", "s3", NULL, "2026-01-23T19:30:00+08:00", "我平时用微信沟通工作");
    add(db, "zh", "s4", NULL, "2026-03-02T09:00:00+08:00", "我现在改用钉钉了");
    set_now("2026-03-02T10:00:00+08:00");
    actives(db, "zh", NULL, got, sizeof got);
    CHECK_CONTAINS(got, "钉钉");
    CHECK(strstr(got, "微信") == NULL);
    CHECK(strstr(got, "pending") == NULL);

    add(db, "en", "s1", NULL, "2026-01-05T09:00:00Z", "I usually keep my notes in Notion");
    add(db, "en", "s2", NULL, "2026-02-16T09:00:00Z", "I switched to Obsidian, not Notion anymore");
    set_now("2026-02-16T10:00:00Z");
    actives(db, "en", NULL, got, sizeof got);
    CHECK_CONTAINS(got, "Obsidian");
    CHECK(strstr(got, "keep my notes in Notion") == NULL);
    am_close(db);
}

/* A statement older than the value known (an import: the clock later than
 * its time) is a closed historical version: the current one stays. */
static void test_late_statement(void)
{
    am_db *db = open_mem();
    char got[2048];
    add(db, "li", "s1", NULL, "2026-01-10T10:00:00+08:00", "以后报告都用PDF格式发给我");
    add(db, "li", "s2", NULL, "2026-03-10T10:00:00+08:00", "以后报告都改用Excel格式");
    /* imported on 12 March, said on 1 February */
    set_now("2026-03-12T10:00:00+08:00");
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = "li";
    ev.session_id = "import";
    ev.occurred_at = "2026-02-01T09:00:00+08:00";
    ev.text = "以后报告都用Word格式";
    am_add_info info;
    memset(&info, 0, sizeof info);
    CHECK_EQ_INT(am_add_event(db, &ev, &info), AM_OK);
    CHECK_EQ_INT(info.memories_updated, 1);
    actives(db, "li", NULL, got, sizeof got);
    CHECK_CONTAINS(got, "Excel");
    CHECK(strstr(got, "Word") == NULL && strstr(got, "PDF") == NULL);
    actives(db, "li", "2026-02-15T00:00:00+08:00", got, sizeof got);
    CHECK_CONTAINS(got, "Word");
    CHECK(strstr(got, "Excel") == NULL && strstr(got, "PDF") == NULL);
    actives(db, "li", "2026-01-20T00:00:00+08:00", got, sizeof got);
    CHECK_CONTAINS(got, "PDF");
    CHECK(strstr(got, "Word") == NULL);
    /* the Word version: valid 1 Feb .. 10 Mar, recorded on 12 March */
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories(db, "li", AM_LIST_ALL, NULL, &l), AM_OK);
    int seen = 0;
    am_time feb1, mar10, mar12;
    CHECK_EQ_INT(am_time_parse("2026-02-01T09:00:00+08:00", &feb1, NULL), AM_OK);
    CHECK_EQ_INT(am_time_parse("2026-03-10T10:00:00+08:00", &mar10, NULL), AM_OK);
    CHECK_EQ_INT(am_time_parse("2026-03-12T10:00:00+08:00", &mar12, NULL), AM_OK);
    for (size_t i = 0; i < l->n; i++) {
        const am_memory *m = &l->items[i];
        if (!strstr(m->text, "Word")) continue;
        seen++;
        CHECK(m->valid_from == feb1 && m->valid_to == mar10);
        CHECK(m->recorded_at == mar12 && m->superseded_at == AM_TIME_NONE);
    }
    CHECK_EQ_INT(seen, 1);
    CHECK_CONTAINS(l->json, "\"version_state\":\"past\"");
    CHECK_CONTAINS(l->json, "\"version_state\":\"current\"");
    CHECK_CONTAINS(l->json, "\"version_state\":\"replaced\"");
    am_memory_list_free(l);
    /* the same words late again: one more source of that version */
    memset(&info, 0, sizeof info);
    ev.occurred_at = "2026-02-03T09:00:00+08:00";
    CHECK_EQ_INT(am_add_event(db, &ev, &info), AM_OK);
    CHECK_EQ_INT(am_memories(db, "li", AM_LIST_ALL, NULL, &l), AM_OK);
    seen = 0;
    for (size_t i = 0; i < l->n; i++) seen += strstr(l->items[i].text, "Word") != NULL;
    CHECK_EQ_INT(seen, 1);
    am_memory_list_free(l);
    am_close(db);
}

/* A period named in the question reads the items as they were then, with
 * the status they had then; "now" reads the current ones. */
static void test_period_question(void)
{
    am_db *db = open_mem();
    char got[2048];
    add(db, "wu", "s1", NULL, "2026-01-05T09:00:00+08:00", "我平时用微信沟通工作");
    add(db, "wu", "s2", NULL, "2026-04-06T09:00:00+08:00", "我现在改用钉钉了，不用微信");
    set_now("2026-07-10T10:00:00+08:00");
    recall_memories(db, "wu", "三个月前我用什么沟通工作？", NULL, got, sizeof got);
    CHECK_CONTAINS(got, "钉钉");
    recall_memories(db, "wu", "二月份我用什么沟通工作？", NULL, got, sizeof got);
    CHECK_CONTAINS(got, "微信沟通工作[active]");
    CHECK(strstr(got, "钉钉") == NULL);
    recall_memories(db, "wu", "二月份和现在我分别用什么沟通工作？", NULL, got, sizeof got);
    CHECK_CONTAINS(got, "微信");
    CHECK_CONTAINS(got, "钉钉");

    add(db, "ed", "s1", NULL, "2026-01-05T09:00:00Z", "From now on, send my reports as PDF files");
    add(db, "ed", "s2", NULL, "2026-03-02T09:00:00Z", "I no longer need my reports as PDF files");
    set_now("2026-05-04T10:00:00Z");
    recall_memories(db, "ed", "back in February, which format did I want for my reports?", NULL,
                    got, sizeof got);
    CHECK_CONTAINS(got, "PDF files[active]");
    recall_memories(db, "ed", "which format do I want for my reports now?", NULL, got,
                    sizeof got);
    CHECK(strstr(got, "PDF") == NULL);
    recall_memories(db, "ed", "which format for my reports?", "2026-02-10T00:00:00Z", got,
                    sizeof got);
    CHECK_CONTAINS(got, "PDF files[active]");
    actives(db, "ed", "2026-02-10T00:00:00Z", got, sizeof got);
    CHECK_CONTAINS(got, "PDF files[active]");
    am_close(db);
}

static void test_bad_as_of(void)
{
    am_db *db = open_mem();
    add(db, "x", "s1", NULL, "2026-01-05T09:00:00Z", "My blood type is O negative");
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories(db, "x", AM_LIST_ACTIVE, "last tuesday", &l), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "as_of");
    CHECK(l == NULL);
    CHECK_EQ_INT(am_memories(db, "x", AM_LIST_ACTIVE, "2026-01-05T09:00:00", &l), AM_INVALID);
    am_close(db);
}

int main(void)
{
    CHECK_EQ_INT(am__text_open(NULL, &text), AM_OK);
    RUN(test_restatements);
    RUN(test_question_periods);
    RUN(test_restated_supersedes);
    RUN(test_late_statement);
    RUN(test_period_question);
    RUN(test_bad_as_of);
    am__text_close(text);
    TEST_MAIN_END();
}
