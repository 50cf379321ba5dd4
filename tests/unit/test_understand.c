/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_understand.c -- am_understand, the learned reading of a turn: its
 * arguments checked, every answer a label of its head with a probability
 * in (0, 1], the same text read the same way, and any bytes -- invalid
 * UTF-8, control characters, full-width letters, a text of 100 KB --
 * read without harm, in Chinese and English.  (Its quality is measured by
 * `agentmem eval understand`, with floors: tests/understand_eval.sh.)
 */
#include "agentmem.h"
#include "test.h"

static int in(const char *v, const char *const *set, int n)
{
    for (int i = 0; i < n; i++)
        if (v && strcmp(v, set[i]) == 0) return 1;
    return 0;
}

static void check_labels(const am_understanding *u)
{
    static const char *const acts[] = {"lasting",     "fact",         "oneoff",      "question",
                                       "smalltalk",   "hypothetical", "reported",    "complaint",
                                       "ref_promote", "ref_withdraw", "invalidation", "correction"};
    static const char *const tasks[] = {"none", "start", "advance", "done", "cancel", "pause",
                                        "postpone", "resume"};
    static const char *const kinds[] = {"preference", "constraint", "profile", "habit", "norm"};
    CHECK(in(u->act, acts, 12));
    CHECK(in(u->task_act, tasks, 8));
    CHECK(in(u->kind, kinds, 5));
    CHECK(u->whose && u->topic);
    CHECK(u->act_p > 0 && u->act_p <= 1.0f);
    CHECK(u->kind_p > 0 && u->kind_p <= 1.0f);
    CHECK(u->whose_p > 0 && u->task_act_p > 0 && u->topic_p > 0);
}

static void test_misuse(void)
{
    am_understanding u;
    CHECK_EQ_INT(am_understand(NULL, &u), AM_MISUSE);
    CHECK_EQ_INT(am_understand("hello", NULL), AM_MISUSE);
}

static void test_labels_and_determinism(void)
{
    static const char *const texts[] = {
        "我每天早上都先看邮件再开会", "周报写完了，已经发给老板", "能不能帮我查一下明天的航班",
        "I'm allergic to shellfish", "could you make the summary shorter this time?",
        "my husband only drinks decaf", "", " ", "？", "ＩＴ预算改成５０万"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        am_understanding a, b;
        CHECK_EQ_INT(am_understand(texts[i], &a), AM_OK);
        CHECK_EQ_INT(am_understand(texts[i], &b), AM_OK);
        check_labels(&a);
        CHECK(strcmp(a.act, b.act) == 0 && a.act_p == b.act_p && strcmp(a.topic, b.topic) == 0);
    }
}

static void test_hostile_bytes(void)
{
    static const char *const texts[] = {"\xff\xfe\xfd", "abc\xe4\xbd", "\xe4\xbd\xa0\xc3",
                                        "\x01\x02\x1b[31mred", "\xf0\x9f\x98\x80\xf0\x9f",
                                        "\xed\xa0\x80 surrogate"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        am_understanding u;
        CHECK_EQ_INT(am_understand(texts[i], &u), AM_OK);
        check_labels(&u);
    }
    size_t n = 100 * 1024;
    char *big = malloc(n + 1);
    CHECK(big != NULL);
    if (!big) return;
    for (size_t i = 0; i + 3 <= n; i += 3) memcpy(big + i, "\xe5\xa5\xbd", 3); /* 好 */
    big[n - n % 3] = '\0';
    am_understanding u;
    CHECK_EQ_INT(am_understand(big, &u), AM_OK);
    check_labels(&u);
    free(big);
}

int main(void)
{
    RUN(test_misuse);
    RUN(test_labels_and_determinism);
    RUN(test_hostile_bytes);
    TEST_MAIN_END();
}
