/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_expiry.c -- the end a statement names for itself (text/expiry.h),
 * resolved against the event's time in the event's zone: the current
 * period, until / before an entity, durations, across zones and month and
 * year ends; and what is no bound (a start, a look back, a duration
 * already run, a date named alone, a named moment).
 */
#include "test.h"

#include "base/base.h"
#include "text/expiry.h"

static int n_cases;

static am_time T(const char *iso)
{
    am_time t = 0;
    int tz = 0;
    if (am__time_parse(iso, &t, &tz, NULL) != AM_OK) {
        fprintf(stderr, "bad test time %s\n", iso);
        t_cur_failed = 1;
    }
    return t;
}

static int zone_of(const char *iso)
{
    am_time t;
    int tz = 0;
    am__time_parse(iso, &t, &tz, NULL);
    return tz;
}

/* text said at `at` (its zone the event's) ends at `end` (NULL: no bound) */
static void expect_end(int line, const char *at, const char *text, const char *end)
{
    am_time got = AM_TIME_NONE;
    int found = am__text_expiry(text, strlen(text), T(at), zone_of(at), &got);
    n_cases++;
    char a[32] = "none", b[32] = "none";
    if (found) am__time_format(got, 0, a);
    if (end) am__time_format(T(end), 0, b);
    if (found != (end != NULL) || (found && got != T(end))) {
        fprintf(stderr, "%s:%d: \"%s\" at %s: expected %s, got %s\n", __FILE__, line, text, at,
                b, a);
        t_failed_checks++;
        t_cur_failed = 1;
    }
}
#define END(at, text, end) expect_end(__LINE__, at, text, end)

/* 2026-03-10 is a Tuesday */
#define TUE "2026-03-10T10:00:00+08:00"

static void test_current_period_en(void)
{
    END(TUE, "This month I prefer tea over coffee", "2026-04-01T00:00:00+08:00");
    END(TUE, "I'm vegetarian this month", "2026-04-01T00:00:00+08:00");
    END(TUE, "This week I prefer meetings after 2pm", "2026-03-16T00:00:00+08:00");
    END(TUE, "Today I prefer short answers", "2026-03-11T00:00:00+08:00");
    END(TUE, "Tonight I prefer a light dinner", "2026-03-11T00:00:00+08:00");
    END(TUE, "This year I want to read more novels", "2027-01-01T00:00:00+08:00");
    END(TUE, "Within 3 days, send everything by email", "2026-03-14T00:00:00+08:00");
}

static void test_current_period_zh(void)
{
    END(TUE, "这个月我喜欢喝茶", "2026-04-01T00:00:00+08:00");
    END(TUE, "这周我比较喜欢下午开会", "2026-03-16T00:00:00+08:00");
    END(TUE, "本周我不吃甜食", "2026-03-16T00:00:00+08:00");
    END(TUE, "今天我不吃辣", "2026-03-11T00:00:00+08:00");
    END(TUE, "今年我想多读小说", "2027-01-01T00:00:00+08:00");
    /* "两周内": today and the next fourteen days */
    END(TUE, "两周内我都在减肥", "2026-03-25T00:00:00+08:00");
}

static void test_until_before(void)
{
    /* until a day: the day counts whole */
    END(TUE, "Until Friday, I prefer calls to emails", "2026-03-14T00:00:00+08:00");
    END(TUE, "until next Monday I work from the Lisbon office", "2026-03-17T00:00:00+08:00");
    END(TUE, "Until the end of March, I don't eat sugar", "2026-04-01T00:00:00+08:00");
    END(TUE, "till April 15 I prefer remote meetings", "2026-04-16T00:00:00+08:00");
    END(TUE, "到周五我都喜欢用电话沟通", "2026-03-14T00:00:00+08:00");
    END(TUE, "到周五之前回复都简短一点", "2026-03-14T00:00:00+08:00");
    END(TUE, "直到4月15日我都在家办公", "2026-04-16T00:00:00+08:00");
    END(TUE, "周五为止我都用英文", "2026-03-14T00:00:00+08:00");
    /* before a period: where it starts; before one day: Chinese "by its
     * end", English where it starts */
    END(TUE, "下个月之前我都不出差", "2026-04-01T00:00:00+08:00");
    END(TUE, "月底前我都不出差", "2026-04-01T00:00:00+08:00");
    END(TUE, "周五前我都不喝咖啡", "2026-03-14T00:00:00+08:00");
    END(TUE, "before Friday I prefer short replies", "2026-03-13T00:00:00+08:00");
    END(TUE, "before May I don't travel", "2026-05-01T00:00:00+08:00");
}

static void test_durations(void)
{
    END(TUE, "For two weeks, keep my reports short", "2026-03-24T10:00:00+08:00");
    END(TUE, "for the next 3 days keep it short", "2026-03-13T10:00:00+08:00");
    END(TUE, "For a month I'm off sugar", "2026-04-10T10:00:00+08:00");
    END(TUE, "for another two weeks I work nights", "2026-03-24T10:00:00+08:00");
    END(TUE, "For the rest of the month I work from home", "2026-04-01T00:00:00+08:00");
    END(TUE, "I'm on call for the rest of this week", "2026-03-16T00:00:00+08:00");
    END(TUE, "接下来两周我在出差", "2026-03-24T10:00:00+08:00");
    END(TUE, "未来三天我都不喝酒", "2026-03-13T10:00:00+08:00");
    /* months by the calendar, the day cut to the month's length */
    END("2027-01-31T09:00:00+09:00", "for a month I'm on leave", "2027-02-28T09:00:00+09:00");
    END("2028-01-31T09:00:00+09:00", "for a month I'm on leave", "2028-02-29T09:00:00+09:00");
    /* several bounds: the earliest */
    END(TUE, "This month, and for two weeks at least, no meetings on Mondays",
        "2026-03-24T10:00:00+08:00");
}

static void test_zones_and_ends(void)
{
    /* 31 December: "this month" ends on 1 January 00:00 local */
    END("2026-12-31T22:00:00-05:00", "this month I prefer decaf", "2027-01-01T00:00:00-05:00");
    END("2026-12-31T23:30:00+08:00", "这个月我喜欢喝茶", "2027-01-01T00:00:00+08:00");
    END("2026-12-31T22:00:00-05:00", "this year I run every day", "2027-01-01T00:00:00-05:00");
    /* Thursday 31 December: "这周" ends at the start of next Monday, local */
    END("2026-12-31T22:00:00-05:00", "这周我比较喜欢早上开会", "2027-01-04T00:00:00-05:00");
    END("2026-12-31T22:00:00-05:00", "this week I prefer mornings", "2027-01-04T00:00:00-05:00");
    /* the same instant is another day elsewhere: its own zone decides */
    END("2026-03-15T22:00:00+09:00", "本周我比较喜欢早上开会", "2026-03-16T00:00:00+09:00");
    END("2026-03-15T13:00:00Z", "本周我比较喜欢早上开会", "2026-03-16T00:00:00Z");
    END("2026-03-15T22:00:00+09:00", "today I prefer tea", "2026-03-16T00:00:00+09:00");
    END("2026-03-15T13:00:00Z", "today I prefer tea", "2026-03-16T00:00:00Z");
    /* Sunday: the week ends tonight */
    END("2026-03-15T09:00:00+01:00", "this week I prefer mornings", "2026-03-16T00:00:00+01:00");
    /* a zone of +14 h and one of -12 h */
    END("2026-02-28T23:00:00+14:00", "this month I prefer tea", "2026-03-01T00:00:00+14:00");
    END("2026-02-28T23:00:00-12:00", "this month I prefer tea", "2026-03-01T00:00:00-12:00");
}

static void test_no_bound(void)
{
    END(TUE, "I prefer tea over coffee", NULL);
    END(TUE, "我喜欢喝茶", NULL);
    /* a start */
    END(TUE, "From today on I'm vegetarian", NULL);
    END(TUE, "Starting this week I prefer tea", NULL);
    END(TUE, "As of today I prefer tea", NULL);
    END(TUE, "从今天起我吃素", NULL);
    END(TUE, "这周开始我不喝咖啡", NULL);
    /* a look back */
    END(TUE, "the past 3 days I slept badly", NULL);
    END(TUE, "最近三天我都在加班", NULL);
    /* a duration already run, or one that tells how long something takes */
    END(TUE, "I've been vegetarian for two weeks", NULL);
    END(TUE, "I have been off sugar for a month now", NULL);
    END(TUE, "我已经接下来两周都安排满了", NULL);
    END(TUE, "schedule every interview for 45 minutes", NULL);
    END(TUE, "两小时内回复我", NULL);
    END(TUE, "within an hour, reply to me", NULL);
    /* a date named alone is a when, not an until */
    END(TUE, "next Monday I'm off", NULL);
    END(TUE, "My birthday is in March", NULL);
    END(TUE, "I moved to Berlin in 2024", NULL);
    /* a named moment has no date */
    END(TUE, "Until the launch, I prefer no meetings on Mondays", NULL);
    END(TUE, "发布会之前我都不出差", NULL);
    /* quoted: a title or a name */
    END(TUE, "以后周报标题都用「本周进展。下周计划」这个格式", NULL);
    END(TUE, "Call the weekly mail \"This week at Acme\" from now on", NULL);
    END(TUE, "我最喜欢的书是《今天》", NULL);
    END(TUE, "“这个月”这个栏目我不看了，这周别推荐", "2026-03-16T00:00:00+08:00");
    /* past: an end that is not after the event */
    END(TUE, "until last Friday I worked nights", NULL);
}

static void test_api_contract(void)
{
    am_time end = 42;
    CHECK_EQ_INT(am__text_expiry(NULL, 3, T(TUE), 480, &end), 0);
    CHECK_EQ_INT(am__text_expiry("this month", 10, AM_TIME_NONE, 480, &end), 0);
    CHECK_EQ_INT(am__text_expiry("this month", 0, T(TUE), 480, &end), 0);
    CHECK_EQ_INT(am__text_expiry("this month", 10, T(TUE), 480, NULL), 0);
    CHECK_EQ_INT((int)(end == 42), 1); /* untouched */
    /* invalid UTF-8 and a cut sequence are skipped, never read past */
    const char bad[] = "\xe8\xbf\x99\xff\xfe this week \xe5\x91";
    CHECK_EQ_INT(am__text_expiry(bad, sizeof bad - 1, T(TUE), 480, &end), 1);
    CHECK_EQ_INT((int)(end == T("2026-03-16T00:00:00+08:00")), 1);
    /* the length, not a NUL, ends the text */
    CHECK_EQ_INT(am__text_expiry("this month", 4, T(TUE), 480, &end), 0);
}

int main(void)
{
    RUN(test_current_period_en);
    RUN(test_current_period_zh);
    RUN(test_until_before);
    RUN(test_durations);
    RUN(test_zones_and_ends);
    RUN(test_no_bound);
    RUN(test_api_contract);
    printf("%d expiry cases\n", n_cases);
    TEST_MAIN_END();
}
