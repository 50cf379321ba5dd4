/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_rounds.c -- the rules under rounds and references,
 * in Chinese and English: the calendar period of a round (weeks
 * from Monday, months, days, in the event's zone offset), the periods a
 * task's text names (and the words that only date one piece of work), and
 * the sentences whose content is only a reference to what was just said
 * (and those with content of their own).  End to end: the scenario files
 * tests/scenarios/rounds_*.jsonl and references_*.jsonl.
 */
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "write/distill/rules.h"
#include "domain/task.h"
#include "text/analyze.h"

static am__text *text;

static const char *period_of(const char *s)
{
    am__buf b;
    am__buf_init(&b, NULL);
    CHECK_EQ_INT(am__text_normalize(text, s, strlen(s), &b), AM_OK);
    const char *p = am__round_period(b.p ? b.p : "", b.len);
    am__buf_free(&b);
    return p;
}

static int ref_of(const char *s)
{
    am__buf b;
    am__buf_init(&b, NULL);
    CHECK_EQ_INT(am__text_normalize(text, s, strlen(s), &b), AM_OK);
    int r = am__distill_reference(b.p ? b.p : "", b.len);
    am__buf_free(&b);
    return r;
}

static am_time at(const char *iso)
{
    am_time t;
    int tz;
    CHECK_EQ_INT(am__time_parse(iso, &t, &tz, NULL), AM_OK);
    return t;
}

static void check_bounds(const char *period, const char *when, int tz, const char *start,
                         const char *end)
{
    am_time s, e;
    CHECK(am__round_bounds(period, at(when), tz, &s, &e));
    char a[32], b[32];
    am__time_format(s, tz, a);
    am__time_format(e, tz, b);
    if (strcmp(a, start) != 0 || strcmp(b, end) != 0) {
        fprintf(stderr, "%s of %s: [%s, %s), want [%s, %s)\n", period, when, a, b, start, end);
        CHECK(0);
    }
}

static void test_calendar_periods(void)
{
    /* 2026-03-12 is a Thursday: its week is Monday 03-09 .. Monday 03-16 */
    check_bounds("week", "2026-03-12T16:05:00+08:00", 480, "2026-03-09T00:00:00+08:00",
                 "2026-03-16T00:00:00+08:00");
    /* Sunday late evening is still that week; Monday 00:00 is the next */
    check_bounds("week", "2026-03-15T23:59:00+08:00", 480, "2026-03-09T00:00:00+08:00",
                 "2026-03-16T00:00:00+08:00");
    check_bounds("week", "2026-03-16T00:00:00+08:00", 480, "2026-03-16T00:00:00+08:00",
                 "2026-03-23T00:00:00+08:00");
    /* the zone decides: Sunday 21:00 in UTC-5 is Monday in UTC */
    check_bounds("week", "2026-04-12T21:00:00-05:00", -300, "2026-04-06T00:00:00-05:00",
                 "2026-04-13T00:00:00-05:00");
    check_bounds("month", "2026-12-31T23:00:00+08:00", 480, "2026-12-01T00:00:00+08:00",
                 "2027-01-01T00:00:00+08:00");
    check_bounds("month", "2028-02-29T10:00:00Z", 0, "2028-02-01T00:00:00Z",
                 "2028-03-01T00:00:00Z");
    check_bounds("quarter", "2026-05-20T10:00:00Z", 0, "2026-04-01T00:00:00Z",
                 "2026-07-01T00:00:00Z");
    check_bounds("day", "2026-04-15T23:30:00-05:00", -300, "2026-04-15T00:00:00-05:00",
                 "2026-04-16T00:00:00-05:00");
    /* before 1970-01-05 (a Monday) the week still starts on a Monday */
    check_bounds("week", "1970-01-01T12:00:00Z", 0, "1969-12-29T00:00:00Z",
                 "1970-01-05T00:00:00Z");
    am_time s, e;
    CHECK(!am__round_bounds(NULL, 0, 0, &s, &e));
    CHECK(!am__round_bounds("fortnight", 0, 0, &s, &e));
}

static void test_named_periods(void)
{
    CHECK_EQ_STR(period_of("帮我写这周的周报"), "week");
    CHECK_EQ_STR(period_of("每个月的销售月报"), "month");
    CHECK_EQ_STR(period_of("每天早上的站会纪要"), "day");
    CHECK_EQ_STR(period_of("Help me write this week's weekly report"), "week");
    CHECK_EQ_STR(period_of("the monthly close for finance"), "month");
    CHECK_EQ_STR(period_of("notes for the daily standup"), "day");
    CHECK_EQ_STR(period_of("Q3 quarterly business review deck"), "quarter");
    /* a date of one piece of work is not a recurrence */
    CHECK(period_of("这周完成了登录模块的联调") == NULL);
    CHECK(period_of("本月底前把合同签了") == NULL);
    CHECK(period_of("I finished the migration this week") == NULL);
    CHECK(period_of("book a table for Friday") == NULL);
}

static void test_reference_only(void)
{
    /* promote the preceding one-off */
    CHECK_EQ_INT(ref_of("以后都这样"), AM__REF_PROMOTE);
    CHECK_EQ_INT(ref_of("嗯，以后都这样吧"), AM__REF_PROMOTE);
    CHECK_EQ_INT(ref_of("好的，以后就按这个来"), AM__REF_PROMOTE);
    CHECK_EQ_INT(ref_of("今后也这样。"), AM__REF_PROMOTE);
    CHECK_EQ_INT(ref_of("Let's keep it that way from now on."), AM__REF_PROMOTE);
    CHECK_EQ_INT(ref_of("Great, do it that way every time"), AM__REF_PROMOTE);
    CHECK_EQ_INT(ref_of("ok, make that the default"), AM__REF_PROMOTE);
    /* withdraw the rule stated last */
    CHECK_EQ_INT(ref_of("以后不用这样了"), AM__REF_RETRACT);
    CHECK_EQ_INT(ref_of("好的，不需要这样了"), AM__REF_RETRACT);
    CHECK_EQ_INT(ref_of("其实以后别这样了吧"), AM__REF_RETRACT);
    CHECK_EQ_INT(ref_of("No need to do that anymore."), AM__REF_RETRACT);
    CHECK_EQ_INT(ref_of("Actually, you can stop doing that"), AM__REF_RETRACT);
    CHECK_EQ_INT(ref_of("please don't do that anymore"), AM__REF_RETRACT);
    /* keep the preceding turn */
    CHECK_EQ_INT(ref_of("记住这个"), AM__REF_REMEMBER);
    CHECK_EQ_INT(ref_of("帮我记下来！"), AM__REF_REMEMBER);
    CHECK_EQ_INT(ref_of("Remember that, please."), AM__REF_REMEMBER);
    CHECK_EQ_INT(ref_of("ok note that down"), AM__REF_REMEMBER);
    /* content of their own: ordinary statements */
    CHECK_EQ_INT(ref_of("记住我对花生过敏"), AM__REF_NONE);
    CHECK_EQ_INT(ref_of("以后周报都这样写：三段式"), AM__REF_NONE);
    CHECK_EQ_INT(ref_of("以后不用这样了，改成每周五发"), AM__REF_NONE);
    CHECK_EQ_INT(ref_of("Remember that my wife is vegetarian"), AM__REF_NONE);
    CHECK_EQ_INT(ref_of("No need to do that for the Berlin trip"), AM__REF_NONE);
    CHECK_EQ_INT(ref_of("keep it that way for the slides only"), AM__REF_NONE);
    CHECK_EQ_INT(ref_of("这次用要点式就行"), AM__REF_NONE);
    CHECK_EQ_INT(ref_of(""), AM__REF_NONE);
}

int main(void)
{
    CHECK_EQ_INT(am__text_open(NULL, &text), AM_OK);
    RUN(test_calendar_periods);
    RUN(test_named_periods);
    RUN(test_reference_only);
    am__text_close(text);
    TEST_MAIN_END();
}
