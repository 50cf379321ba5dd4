/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_topic_jump.c -- topic jumps without a task id (perceive/
 * attribute.c, task.c am__task_topic_shift): a turn that opens with a
 * marker of a new topic and makes a request sharing none of the session
 * task's words belongs to no task, moves none of its state, and leaves a
 * switch in its history; a marker that stays on the task's words, a
 * question, a statement or a marker in mid-turn is no jump.  Written as a
 * user would, in both languages, through the public API on a real store.
 */
#include "test.h"
#include "api_util.h"
#include "domain/task.h"
#include "text/analyze.h"

static am__text *T;

/* The text's topic-shift offset, as the write path sees it (normalised). */
static size_t shift_of(const char *text)
{
    am__allocator al = {NULL, NULL};
    am__buf b;
    am__buf_init(&b, &al);
    CHECK_EQ_INT(am__text_normalize(T, text, strlen(text), &b), AM_OK);
    size_t r = am__task_topic_shift(b.p ? b.p : "", b.len);
    am__buf_free(&b);
    return r;
}

static void test_shift_markers(void)
{
    /* a marker, then a request */
    CHECK(shift_of("顺便帮我查一下明天去杭州的高铁") > 0);
    CHECK(shift_of("哦对了，麻烦把我的体检报告打印两份") > 0);
    CHECK(shift_of("还有个事，给我妈买一束花送到家里") > 0);
    CHECK(shift_of("By the way, renew my gym membership before Monday.") > 0);
    CHECK(shift_of("Oh, separately: can you find a plumber for the kitchen sink?") > 0);
    CHECK(shift_of("btw schedule a haircut for Thursday") > 0);
    /* no marker at the start, a question, a statement */
    CHECK_EQ_INT(shift_of("帮我订一下周五的会议室"), 0);
    CHECK_EQ_INT(shift_of("周报写完了。另外帮我订一下会议室"), 0);
    CHECK_EQ_INT(shift_of("另外，会议室订好了吗？"), 0);
    CHECK_EQ_INT(shift_of("还有三天就要交了"), 0);
    CHECK_EQ_INT(shift_of("Also, the report looks good."), 0);
    CHECK_EQ_INT(shift_of("Also, did Sam like the cake?"), 0);
    CHECK_EQ_INT(shift_of("Alsoing is not a word"), 0);
}

static int history_has(am_db *db, const char *task, const char *field, const char *old_value,
                       const char *new_value)
{
    am_task *t = NULL;
    int found = 0;
    CHECK_EQ_INT(am_task_get(db, "u", task, &t), AM_OK);
    for (size_t i = 0; t && i < t->n_history; i++) {
        const am_task_change *c = &t->history[i];
        if (strcmp(c->field, field) == 0 && (!old_value || strcmp(c->old_value, old_value) == 0) &&
            (!new_value || strcmp(c->new_value, new_value) == 0))
            found = 1;
    }
    am_task_free(t);
    return found;
}

static void expect_stage(am_db *db, const char *task, const char *stage, const char *status)
{
    am_task *t = NULL;
    CHECK_EQ_INT(am_task_get(db, "u", task, &t), AM_OK);
    if (!t) return;
    CHECK_EQ_STR(t->stage, stage);
    CHECK_EQ_STR(t->status, status);
    am_task_free(t);
}

/* A jump: the errand is not the task's, its "已发出" / "sent" does not
 * deliver the task; a switch to no task is in the task's history; the
 * next turn that speaks of the task again goes back to it. */
static void jump(const char *task, const char *start, const char *draft, const char *errand,
                 const char *errand_more, const char *back)
{
    am_db *db = open_mem();
    add(db, "u", "s", task, "2026-04-06T09:00:00+08:00", start);
    add(db, "u", "s", NULL, "2026-04-06T09:05:00+08:00", draft);
    expect_stage(db, task, "drafting", "active");
    am_add_info i1 = add(db, "u", "s", NULL, "2026-04-06T09:10:00+08:00", errand);
    CHECK_EQ_STR(i1.task_id, "");
    am_add_info i2 = add(db, "u", "s", NULL, "2026-04-06T09:11:00+08:00", errand_more);
    CHECK_EQ_STR(i2.task_id, "");
    expect_stage(db, task, "drafting", "active");
    CHECK(history_has(db, task, "switch", task, "(none)"));
    am_add_info i3 = add(db, "u", "s", NULL, "2026-04-20T09:00:00+08:00", back);
    CHECK_EQ_STR(i3.task_id, task);
    CHECK(history_has(db, task, "switch", "(none)", task));
    am_close(db);
}

static void test_jump_zh(void)
{
    jump("季度预算", "开始做季度预算表，先列人力成本。", "预算表初稿在写，人力成本那栏写了一半。",
         "顺便帮我约一下周四的牙医，约好了短信发我。", "约好了，已经发过去了。",
         "季度预算表的人力成本再核一遍。");
}

static void test_jump_en(void)
{
    jump("budget-q3", "Start the Q3 budget sheet with headcount costs.",
         "Drafting the budget sheet now, headcount costs half done.",
         "By the way, book a dentist appointment for Thursday and text me when it's confirmed.",
         "It's confirmed and sent.", "Double-check the headcount costs in the budget sheet.");
}

/* A marker that stays on the task's words is no jump. */
static void test_marker_on_task(void)
{
    am_db *db = open_mem();
    add(db, "u", "s", "launch-plan", "2026-04-06T09:00:00Z", "Draft the launch plan for the mobile app.");
    am_add_info a = add(db, "u", "s", NULL, "2026-04-06T09:05:00Z",
                        "Also, add the app store screenshots to the launch plan.");
    CHECK_EQ_STR(a.task_id, "launch-plan");
    CHECK(!history_has(db, "launch-plan", "switch", NULL, NULL));
    add(db, "u", "z", "上线计划", "2026-04-06T10:00:00+08:00", "起草移动应用的上线计划。");
    am_add_info b = add(db, "u", "z", NULL, "2026-04-06T10:06:00+08:00",
                        "另外，帮我把应用商店的截图也放进计划里。");
    CHECK_EQ_STR(b.task_id, "上线计划");
    CHECK(!history_has(db, "上线计划", "switch", NULL, NULL));
    am_close(db);
}

int main(void)
{
    if (am__text_open(NULL, &T) != AM_OK) return 1;
    RUN(test_shift_markers);
    RUN(test_jump_zh);
    RUN(test_jump_en);
    RUN(test_marker_on_task);
    am__text_close(T);
    TEST_MAIN_END();
}
