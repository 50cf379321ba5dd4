/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_entities.c -- entity extraction and normalisation and
 * query time ranges, Chinese and English.
 *
 * The reference time is 2026-03-04T10:00:00+08:00, a Wednesday, unless a
 * test says otherwise.  Each EXPECT line is one case; the count is printed.
 */
#include "test.h"

#include "base/base.h"
#include "text/entities.h"

#define TZ8 480
#define MAXE 64

static am_time REF;
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

static size_t extract(const char *text, am_time ref, int tz, am__entity *e)
{
    size_t n = 0;
    int rc = am__entities_extract(text, strlen(text), ref, tz, e, MAXE, &n);
    CHECK_EQ_INT(rc, AM_OK);
    return n;
}

/* The first entity of type in text (or NULL). */
static const am__entity *find(const char *text, am_time ref, int tz, int type,
                              am__entity *buf)
{
    size_t n = extract(text, ref, tz, buf);
    for (size_t i = 0; i < n; i++)
        if (buf[i].type == type) return &buf[i];
    return NULL;
}

static void fail(int line, const char *fmt, const char *a, const char *b,
                 const char *c)
{
    fprintf(stderr, "%s:%d: ", __FILE__, line);
    fprintf(stderr, fmt, a, b, c);
    fputc('\n', stderr);
    t_failed_checks++;
    t_cur_failed = 1;
}

static void expect_at(int line, am_time ref, int tz, const char *text, int type,
                      const char *norm, const char *surface)
{
    am__entity buf[MAXE];
    const am__entity *e = find(text, ref, tz, type, buf);
    n_cases++;
    if (!e) {
        fail(line, "no %s in \"%s\" (want %s)", am__ent_type_name(type), text,
             norm);
        return;
    }
    if (strcmp(e->norm, norm) != 0)
        fail(line, "\"%s\": norm \"%s\", want \"%s\"", text, e->norm, norm);
    if (surface) {
        size_t l = strlen(surface);
        if (e->end - e->start != l || memcmp(text + e->start, surface, l) != 0)
            fail(line, "\"%s\": surface differs from \"%s\"%s", text, surface, "");
    }
}

static void expect_none_at(int line, am_time ref, const char *text, int type)
{
    am__entity buf[MAXE];
    const am__entity *e = find(text, ref, TZ8, type, buf);
    n_cases++;
    if (e)
        fail(line, "\"%s\": unexpected %s \"%s\"", text, am__ent_type_name(type),
             e->norm);
}

#define EXPECT(text, type, norm) \
    expect_at(__LINE__, REF, TZ8, text, type, norm, NULL)
#define EXPECT_S(text, type, norm, surface) \
    expect_at(__LINE__, REF, TZ8, text, type, norm, surface)
#define EXPECT_AT(ref, text, type, norm) \
    expect_at(__LINE__, ref, TZ8, text, type, norm, NULL)
#define EXPECT_NONE(text, type) expect_none_at(__LINE__, REF, text, type)

/* Query ranges: [from, to) as ISO strings in +08:00, or no range. */
static void expect_query_at(int line, am_time now, const char *q,
                            const char *from, const char *to)
{
    am_time f = 123, t = 456;
    int r = am__query_time_range(q, strlen(q), now, TZ8, &f, &t);
    n_cases++;
    if (!from) {
        if (r != 0) fail(line, "query \"%s\": unexpected range%s%s", q, "", "");
        if (f != 123 || t != 456)
            fail(line, "query \"%s\": outputs touched%s%s", q, "", "");
        return;
    }
    if (r != 1) {
        fail(line, "query \"%s\": no range (want %s .. %s)", q, from, to);
        return;
    }
    char b1[40], b2[40];
    if (f != T(from) || t != T(to))
        fail(line, "query \"%s\": got %s", q, am__time_format(f, TZ8, b1),
             am__time_format(t, TZ8, b2));
}
#define EXPECT_Q(q, from, to) expect_query_at(__LINE__, REF, q, from, to)

/* ---------------------------------------------------------------- dates */

static void test_absolute_dates(void)
{
    EXPECT_S("截止日期 2026-03-11。", AM_ENT_DATE, "2026-03-11", "2026-03-11");
    EXPECT_S("2026年3月11日开会", AM_ENT_DATE, "2026-03-11", "2026年3月11日");
    EXPECT_S("3月11日交付", AM_ENT_DATE, "2026-03-11", "3月11日");
    EXPECT("3月11号见", AM_ENT_DATE, "2026-03-11");
    EXPECT_S("3月5日前交", AM_ENT_DATE, "2026-03-05", "3月5日");
    EXPECT_S("我们3/11见", AM_ENT_DATE, "2026-03-11", "3/11");
    EXPECT("2026/3/11", AM_ENT_DATE, "2026-03-11");
    EXPECT("2026.03.11", AM_ENT_DATE, "2026-03-11");
    EXPECT("二〇二六年三月十一日", AM_ENT_DATE, "2026-03-11");
    EXPECT_S("See you March 11.", AM_ENT_DATE, "2026-03-11", "March 11");
    EXPECT_S("due 11 March 2026", AM_ENT_DATE, "2026-03-11", "11 March 2026");
    EXPECT_S("on 8 May, 2023 we met", AM_ENT_DATE, "2023-05-08", "8 May, 2023");
    EXPECT("May 8, 2023", AM_ENT_DATE, "2023-05-08");
    EXPECT("on the 11th of March", AM_ENT_DATE, "2026-03-11");
    EXPECT("Sept. 3rd, 2025", AM_ENT_DATE, "2025-09-03");
    EXPECT("deadline 12/31/2026", AM_ENT_DATE, "2026-12-31");
    EXPECT("deadline 31/12/2026", AM_ENT_DATE, "2026-12-31");
    EXPECT("15号之前", AM_ENT_DATE, "2026-03-15");
}

static void test_months_years(void)
{
    EXPECT("2023年5月去了北京", AM_ENT_RANGE, "2023-05-01/2023-05-31");
    EXPECT_S("back in May 2023", AM_ENT_RANGE, "2023-05-01/2023-05-31", "May 2023");
    EXPECT_S("in 2023", AM_ENT_RANGE, "2023-01-01/2023-12-31", "2023");
    EXPECT("2026-03 的账单", AM_ENT_RANGE, "2026-03-01/2026-03-31");
    EXPECT("2023年", AM_ENT_RANGE, "2023-01-01/2023-12-31");
    /* a month without a year: the nearest one */
    EXPECT("十二月", AM_ENT_RANGE, "2025-12-01/2025-12-31");
    EXPECT("9月份", AM_ENT_RANGE, "2026-09-01/2026-09-30");
    EXPECT("we go in June", AM_ENT_RANGE, "2026-06-01/2026-06-30");
    EXPECT("第三季度", AM_ENT_RANGE, "2026-07-01/2026-09-30");
    EXPECT("2026-Q4", AM_ENT_RANGE, "2026-10-01/2026-12-31");
    EXPECT("Q1 2027 plan", AM_ENT_RANGE, "2027-01-01/2027-03-31");
    EXPECT("上季度", AM_ENT_RANGE, "2025-10-01/2025-12-31");
    EXPECT("今年上半年", AM_ENT_RANGE, "2026-01-01/2026-06-30");
    EXPECT("去年", AM_ENT_RANGE, "2025-01-01/2025-12-31");
    EXPECT("next year", AM_ENT_RANGE, "2027-01-01/2027-12-31");
}

static void test_relative_days_zh(void)
{
    EXPECT("今天", AM_ENT_DATE, "2026-03-04");
    EXPECT("明天交", AM_ENT_DATE, "2026-03-05");
    EXPECT("后天", AM_ENT_DATE, "2026-03-06");
    EXPECT("昨天", AM_ENT_DATE, "2026-03-03");
    EXPECT("前天", AM_ENT_DATE, "2026-03-02");
    EXPECT("大后天", AM_ENT_DATE, "2026-03-07");
    EXPECT("三天后", AM_ENT_DATE, "2026-03-07");
    EXPECT("两周前", AM_ENT_DATE, "2026-02-18");
    EXPECT("三个月前", AM_ENT_DATE, "2025-12-04");
    EXPECT("3个月以后", AM_ENT_DATE, "2026-06-04");
    EXPECT("半年后", AM_ENT_DATE, "2026-09-04");
    EXPECT("一年前", AM_ENT_DATE, "2025-03-04");
    EXPECT("三天内", AM_ENT_RANGE, "2026-03-04/2026-03-07");
    EXPECT("最近三天", AM_ENT_RANGE, "2026-03-01/2026-03-04");
    EXPECT("两小时后", AM_ENT_DATETIME, "2026-03-04T12:00");
    EXPECT("半小时后", AM_ENT_DATETIME, "2026-03-04T10:30");
}

static void test_weeks_zh(void)
{
    EXPECT_S("下周三开会", AM_ENT_DATE, "2026-03-11", "下周三");
    EXPECT("这周五", AM_ENT_DATE, "2026-03-06");
    EXPECT("本周五", AM_ENT_DATE, "2026-03-06");
    EXPECT("上周五", AM_ENT_DATE, "2026-02-27");
    EXPECT("下个星期一", AM_ENT_DATE, "2026-03-09");
    EXPECT("下下周一", AM_ENT_DATE, "2026-03-16");
    /* a bare weekday: the next one, today included */
    EXPECT("周五之前提交", AM_ENT_DATE, "2026-03-06");
    EXPECT("周一开会", AM_ENT_DATE, "2026-03-09");
    EXPECT("周三", AM_ENT_DATE, "2026-03-04");
    EXPECT("星期天", AM_ENT_DATE, "2026-03-08");
    EXPECT("礼拜六", AM_ENT_DATE, "2026-03-07");
    EXPECT("上周", AM_ENT_RANGE, "2026-02-23/2026-03-01");
    EXPECT("这周", AM_ENT_RANGE, "2026-03-02/2026-03-08");
    EXPECT("下周", AM_ENT_RANGE, "2026-03-09/2026-03-15");
    EXPECT("周末去爬山", AM_ENT_RANGE, "2026-03-07/2026-03-08");
    EXPECT("下周末", AM_ENT_RANGE, "2026-03-14/2026-03-15");
    EXPECT("上周末", AM_ENT_RANGE, "2026-02-28/2026-03-01");
}

static void test_month_parts_zh(void)
{
    EXPECT("下个月", AM_ENT_RANGE, "2026-04-01/2026-04-30");
    EXPECT("上个月", AM_ENT_RANGE, "2026-02-01/2026-02-28");
    EXPECT("本月", AM_ENT_RANGE, "2026-03-01/2026-03-31");
    EXPECT("月底前交", AM_ENT_DATE, "2026-03-31");
    EXPECT("月初", AM_ENT_RANGE, "2026-03-01/2026-03-10");
    EXPECT("年底", AM_ENT_DATE, "2026-12-31");
    EXPECT("下个月底", AM_ENT_DATE, "2026-04-30");
    EXPECT("下月初", AM_ENT_RANGE, "2026-04-01/2026-04-10");
    EXPECT("下个月5号", AM_ENT_DATE, "2026-04-05");
    EXPECT("3月底", AM_ENT_DATE, "2026-03-31");
    EXPECT("明年年底", AM_ENT_DATE, "2027-12-31");
    EXPECT("5月中旬", AM_ENT_RANGE, "2026-05-11/2026-05-20");
}

static void test_relative_en(void)
{
    EXPECT("tomorrow", AM_ENT_DATE, "2026-03-05");
    EXPECT("Yesterday I went", AM_ENT_DATE, "2026-03-03");
    EXPECT("tonight", AM_ENT_DATE, "2026-03-04");
    EXPECT("the day after tomorrow", AM_ENT_DATE, "2026-03-06");
    EXPECT("last night", AM_ENT_DATE, "2026-03-03");
    EXPECT_S("see you next Friday", AM_ENT_DATE, "2026-03-13", "next Friday");
    EXPECT("last Friday", AM_ENT_DATE, "2026-02-27");
    EXPECT("this Friday", AM_ENT_DATE, "2026-03-06");
    EXPECT("on Friday", AM_ENT_DATE, "2026-03-06");
    EXPECT("last Tues.", AM_ENT_DATE, "2026-02-24");
    EXPECT("last week", AM_ENT_RANGE, "2026-02-23/2026-03-01");
    EXPECT("this week", AM_ENT_RANGE, "2026-03-02/2026-03-08");
    EXPECT("last month", AM_ENT_RANGE, "2026-02-01/2026-02-28");
    EXPECT_S("three months ago", AM_ENT_DATE, "2025-12-04", "three months ago");
    EXPECT("two weeks ago", AM_ENT_DATE, "2026-02-18");
    EXPECT("3 days ago", AM_ENT_DATE, "2026-03-01");
    EXPECT("a week ago", AM_ENT_DATE, "2026-02-25");
    EXPECT("a couple of days ago", AM_ENT_DATE, "2026-03-02");
    EXPECT_S("in two weeks", AM_ENT_DATE, "2026-03-18", "in two weeks");
    EXPECT("two weeks from now", AM_ENT_DATE, "2026-03-18");
    EXPECT("within 3 days", AM_ENT_RANGE, "2026-03-04/2026-03-07");
    EXPECT("the past 3 days", AM_ENT_RANGE, "2026-03-01/2026-03-04");
    EXPECT("by the end of the month", AM_ENT_DATE, "2026-03-31");
    EXPECT("end of next month", AM_ENT_DATE, "2026-04-30");
    EXPECT("the end of March", AM_ENT_DATE, "2026-03-31");
    EXPECT("beginning of next month", AM_ENT_RANGE, "2026-04-01/2026-04-10");
    EXPECT("end of the week", AM_ENT_DATE, "2026-03-06");
    EXPECT("this weekend", AM_ENT_RANGE, "2026-03-07/2026-03-08");
    EXPECT("last weekend", AM_ENT_RANGE, "2026-02-28/2026-03-01");
    EXPECT("mid-March", AM_ENT_RANGE, "2026-03-11/2026-03-20");
    EXPECT("early May 2023", AM_ENT_RANGE, "2023-05-01/2023-05-10");
}

static void test_times(void)
{
    EXPECT_S("下午三点开会", AM_ENT_TIME, "15:00", "下午三点");
    EXPECT("15:00 开会", AM_ENT_TIME, "15:00");
    EXPECT("at 3pm", AM_ENT_TIME, "15:00");
    EXPECT("at 3:30 p.m.", AM_ENT_TIME, "15:30");
    EXPECT("9am sharp", AM_ENT_TIME, "09:00");
    EXPECT("12am", AM_ENT_TIME, "00:00");
    EXPECT("at noon", AM_ENT_TIME, "12:00");
    EXPECT("十点一刻", AM_ENT_TIME, "10:15");
    EXPECT("八点整", AM_ENT_TIME, "08:00");
    EXPECT("3点05分", AM_ENT_TIME, "15:05");
    EXPECT("凌晨两点", AM_ENT_TIME, "02:00");
    EXPECT("中午1点", AM_ENT_TIME, "13:00");
    EXPECT("晚上8点半", AM_ENT_TIME, "20:30");
    EXPECT("会议在3点", AM_ENT_TIME, "15:00"); /* 1-6 without 上午: afternoon */
    EXPECT("5 o'clock", AM_ENT_TIME, "17:00");
}

static void test_datetimes(void)
{
    EXPECT_S("明天下午三点半提交", AM_ENT_DATETIME, "2026-03-05T15:30",
             "明天下午三点半");
    EXPECT("下周三下午3点", AM_ENT_DATETIME, "2026-03-11T15:00");
    EXPECT("今晚8点吃饭", AM_ENT_DATETIME, "2026-03-04T20:00");
    EXPECT("明早9点出发", AM_ENT_DATETIME, "2026-03-05T09:00");
    EXPECT("明天3点", AM_ENT_DATETIME, "2026-03-05T15:00");
    EXPECT("明天中午", AM_ENT_DATETIME, "2026-03-05T12:00");
    EXPECT_S("tomorrow at 3pm", AM_ENT_DATETIME, "2026-03-05T15:00",
             "tomorrow at 3pm");
    EXPECT("3pm tomorrow", AM_ENT_DATETIME, "2026-03-05T15:00");
    EXPECT("on Friday at 10:30", AM_ENT_DATETIME, "2026-03-06T10:30");
    EXPECT("tonight at 8", AM_ENT_DATETIME, "2026-03-04T20:00");
    EXPECT("2026-03-11 15:00", AM_ENT_DATETIME, "2026-03-11T15:00");
    EXPECT("2026-03-11T15:00:00+08:00", AM_ENT_DATETIME, "2026-03-11T15:00");
    EXPECT("2026-03-11T07:00:00Z", AM_ENT_DATETIME, "2026-03-11T15:00");
    EXPECT("9am on March 3rd, 2026", AM_ENT_DATETIME, "2026-03-03T09:00");
}

static void test_date_ranges(void)
{
    EXPECT_S("3月1日到5日出差", AM_ENT_RANGE, "2026-03-01/2026-03-05",
             "3月1日到5日");
    EXPECT("3月1日至3月5日", AM_ENT_RANGE, "2026-03-01/2026-03-05");
    EXPECT("March 1-5", AM_ENT_RANGE, "2026-03-01/2026-03-05");
    EXPECT("from March 1 to March 5", AM_ENT_RANGE, "2026-03-01/2026-03-05");
    EXPECT("周一到周五上班", AM_ENT_RANGE, "2026-03-09/2026-03-13");
    EXPECT("下周一到下周三", AM_ENT_RANGE, "2026-03-09/2026-03-11");
}

/* ------------------------------------------------------------- numbers */

static void test_amounts(void)
{
    EXPECT_S("预算50万", AM_ENT_AMOUNT, "500000", "50万");
    EXPECT("3.5亿的项目", AM_ENT_AMOUNT, "350000000");
    EXPECT("价值1.1万", AM_ENT_AMOUNT, "11000");
    EXPECT("三百万", AM_ENT_AMOUNT, "3000000");
    EXPECT_S("¥1,200", AM_ENT_AMOUNT, "CNY 1200", "¥1,200");
    EXPECT("￥500元", AM_ENT_AMOUNT, "CNY 500");
    EXPECT("$50k", AM_ENT_AMOUNT, "USD 50000");
    EXPECT("$1,200.50", AM_ENT_AMOUNT, "USD 1200.5");
    EXPECT("$3.5 million", AM_ENT_AMOUNT, "USD 3500000");
    EXPECT("5千元", AM_ENT_AMOUNT, "CNY 5000");
    EXPECT("两千块", AM_ENT_AMOUNT, "CNY 2000");
    EXPECT("1.5万元", AM_ENT_AMOUNT, "CNY 15000");
    EXPECT("一百块钱", AM_ENT_AMOUNT, "CNY 100");
    EXPECT("50美元", AM_ENT_AMOUNT, "USD 50");
    EXPECT_S("two hundred dollars", AM_ENT_AMOUNT, "USD 200",
             "two hundred dollars");
    EXPECT("500 USD", AM_ENT_AMOUNT, "USD 500");
    EXPECT("RMB 5000", AM_ENT_AMOUNT, "CNY 5000");
    EXPECT("100 euros", AM_ENT_AMOUNT, "EUR 100");
    EXPECT("5w的预算", AM_ENT_AMOUNT, "50000");
    /* a measure word makes it a count, not money */
    EXPECT("50万人参加", AM_ENT_NUMBER, "500000");
    EXPECT_NONE("50万人参加", AM_ENT_AMOUNT);
    EXPECT_NONE("三块蛋糕", AM_ENT_AMOUNT);
}

static void test_numbers(void)
{
    EXPECT_S("三家公司", AM_ENT_NUMBER, "3", "三");
    EXPECT("十二个人", AM_ENT_NUMBER, "12");
    EXPECT("两个方案", AM_ENT_NUMBER, "2");
    EXPECT("一百零五个", AM_ENT_NUMBER, "105");
    EXPECT("三千五百人", AM_ENT_NUMBER, "3500");
    EXPECT("三千五", AM_ENT_NUMBER, "3500");
    EXPECT("一万二", AM_ENT_NUMBER, "12000");
    EXPECT("二十一位", AM_ENT_NUMBER, "21");
    EXPECT("规模是三千人", AM_ENT_NUMBER, "3000");
    EXPECT("共1,200条", AM_ENT_NUMBER, "1200");
    EXPECT("增长了3.5倍", AM_ENT_NUMBER, "3.5");
    EXPECT("twenty-one people", AM_ENT_NUMBER, "21");
    EXPECT("5 million users", AM_ENT_NUMBER, "5000000");
    EXPECT("the 2nd one", AM_ENT_NUMBER, "2");
    /* a duration alone is a number, not a date */
    EXPECT("我三天没睡好", AM_ENT_NUMBER, "3");
    EXPECT_NONE("我三天没睡好", AM_ENT_DATE);
    EXPECT_NONE("我三天没睡好", AM_ENT_RANGE);
    EXPECT_NONE("这件事十分重要", AM_ENT_NUMBER);
    EXPECT_NONE("千万别忘了，万一出错", AM_ENT_NUMBER);
    EXPECT_NONE("一起去，三心二意", AM_ENT_NUMBER);
    EXPECT_NONE("phone 15398950313", AM_ENT_NUMBER);
    EXPECT_NONE("one of them", AM_ENT_NUMBER);
}

static void test_percents(void)
{
    EXPECT_S("增长5%", AM_ENT_PERCENT, "0.05", "5%");
    EXPECT("12.5%", AM_ENT_PERCENT, "0.125");
    EXPECT("100%", AM_ENT_PERCENT, "1");
    EXPECT_NONE("５％", AM_ENT_PERCENT); /* full-width digits: not parsed */
    EXPECT("百分之五", AM_ENT_PERCENT, "0.05");
    EXPECT("百分之三十五", AM_ENT_PERCENT, "0.35");
    EXPECT("百分之三点五", AM_ENT_PERCENT, "0.035");
    EXPECT("5 percent", AM_ENT_PERCENT, "0.05");
    EXPECT("five percent", AM_ENT_PERCENT, "0.05");
}

/* ------------------------------------------------ urls, files, formats */

static void test_urls_files(void)
{
    EXPECT_S("请看 https://example.com/a?b=1。", AM_ENT_URL,
             "https://example.com/a?b=1", "https://example.com/a?b=1");
    EXPECT("(see https://en.wikipedia.org/wiki/C_(language))", AM_ENT_URL,
           "https://en.wikipedia.org/wiki/C_(language)");
    EXPECT("go to www.example.com.", AM_ENT_URL, "www.example.com");
    EXPECT_S("把季度报告.pdf发给我", AM_ENT_FILE, "季度报告.pdf", "季度报告.pdf");
    EXPECT("还有 data_v2.xlsx 和 notes.md", AM_ENT_FILE, "data_v2.xlsx");
    EXPECT("文件在 docs/report_v2.pdf 里", AM_ENT_FILE, "docs/report_v2.pdf");
    EXPECT("Q3-summary.PPTX", AM_ENT_FILE, "Q3-summary.PPTX");
    EXPECT("打开main.c看看", AM_ENT_FILE, "main.c");
    EXPECT("合同终稿.docx", AM_ENT_FILE, "合同终稿.docx");
    EXPECT("export to sales.csv, chart.png and README.txt", AM_ENT_FILE,
           "sales.csv");
    EXPECT("截图.png", AM_ENT_FILE, "截图.png");
    EXPECT_NONE("Done.Go home", AM_ENT_FILE);
    EXPECT_NONE("we use Node.js", AM_ENT_FILE);
    EXPECT_NONE("e.g. this", AM_ENT_FILE);
}

static void test_formats(void)
{
    EXPECT_S("用PDF格式", AM_ENT_FORMAT, "pdf", "PDF格式");
    EXPECT_S("Excel表格", AM_ENT_FORMAT, "xlsx", "Excel表格");
    EXPECT("做成表格", AM_ENT_FORMAT, "table");
    EXPECT("这次用要点式", AM_ENT_FORMAT, "bullets");
    EXPECT("as bullet points", AM_ENT_FORMAT, "bullets");
    EXPECT("in Markdown", AM_ENT_FORMAT, "md");
    EXPECT("send a Word document", AM_ENT_FORMAT, "docx");
    EXPECT("做个PPT", AM_ENT_FORMAT, "pptx");
    EXPECT("画个思维导图", AM_ENT_FORMAT, "mindmap");
    EXPECT_NONE("I excel at this", AM_ENT_FORMAT);
    EXPECT_NONE("in a word, no", AM_ENT_FORMAT);
}

static void test_recurring(void)
{
    EXPECT_S("每周四开例会", AM_ENT_WEEKDAY_RECURRING, "weekly:thu", "每周四");
    EXPECT("每个星期四", AM_ENT_WEEKDAY_RECURRING, "weekly:thu");
    EXPECT("every Thursday", AM_ENT_WEEKDAY_RECURRING, "weekly:thu");
    EXPECT("on Thursdays", AM_ENT_WEEKDAY_RECURRING, "weekly:thu");
    EXPECT("每周一和周三健身", AM_ENT_WEEKDAY_RECURRING, "weekly:mon,wed");
    EXPECT("every Monday and Wednesday", AM_ENT_WEEKDAY_RECURRING,
           "weekly:mon,wed");
    EXPECT("每周末爬山", AM_ENT_WEEKDAY_RECURRING, "weekly:sat,sun");
    /* the recurring day is not also a date */
    EXPECT_NONE("每周四开例会", AM_ENT_DATE);
}

static void test_persons_orgs(void)
{
    EXPECT_S("张总和王经理", AM_ENT_PERSON, "张总", "张总");
    EXPECT("请王经理确认", AM_ENT_PERSON, "王经理");
    EXPECT("李老师说", AM_ENT_PERSON, "李老师");
    EXPECT("欧阳总监", AM_ENT_PERSON, "欧阳总监");
    EXPECT("老王说明天下雨", AM_ENT_PERSON, "老王");
    EXPECT("I met with Sarah Lee today", AM_ENT_PERSON, "Sarah Lee");
    EXPECT("ask Mike about it", AM_ENT_PERSON, "Mike");
    EXPECT("talked to Dr. Smith", AM_ENT_PERSON, "Dr. Smith");
    EXPECT("我在阿里巴巴集团工作", AM_ENT_ORG, "阿里巴巴集团");
    EXPECT("也去过招商银行", AM_ENT_ORG, "招商银行");
    EXPECT("华为技术有限公司", AM_ENT_ORG, "华为技术有限公司");
    EXPECT("from Acme Corp", AM_ENT_ORG, "Acme Corp");
    EXPECT("Apple Inc. said", AM_ENT_ORG, "Apple Inc.");
    EXPECT("signed with Globex Trading Ltd yesterday", AM_ENT_ORG,
           "Globex Trading Ltd");
    EXPECT("《三体》很好看", AM_ENT_PRODUCT, "三体");
    EXPECT_NONE("三家公司", AM_ENT_ORG);
    EXPECT_NONE("去银行", AM_ENT_ORG);
    EXPECT_NONE("高总价", AM_ENT_PERSON);
    EXPECT_NONE("小程序上线了，老毛病又犯了", AM_ENT_PERSON);
    EXPECT_NONE("we went to Rome", AM_ENT_PERSON);
    EXPECT_NONE("Keep it up with German!", AM_ENT_PERSON);
}

/* ------------------------------------------------------- hard negatives */

static void test_hard_negatives(void)
{
    am__entity e[MAXE];
    EXPECT_NONE("May I ask a question?", AM_ENT_RANGE);
    EXPECT_NONE("May I ask a question?", AM_ENT_DATE);
    EXPECT_NONE("you may go", AM_ENT_RANGE);
    EXPECT_NONE("version v2.3.1", AM_ENT_DATE);
    CHECK_EQ_INT(extract("version v2.3.1 and 2.3.1", REF, TZ8, e), 0);
    CHECK_EQ_INT(extract("IP 192.168.1.1", REF, TZ8, e), 0);
    EXPECT_NONE("24/7 support", AM_ENT_DATE);
    EXPECT_NONE("1/2 cup", AM_ENT_DATE);
    EXPECT_NONE("三点建议：第一", AM_ENT_TIME);
    EXPECT_NONE("周年庆，周边，星期", AM_ENT_DATE);
    EXPECT_NONE("周年庆，周边，星期", AM_ENT_RANGE);
    EXPECT_NONE("score 3:1", AM_ENT_TIME);
    EXPECT_NONE("great for chilling out after a day", AM_ENT_DATE);
    EXPECT_NONE("月饼很好吃", AM_ENT_RANGE);
    EXPECT_NONE("3号楼", AM_ENT_DATE);
    EXPECT_NONE("I march on", AM_ENT_RANGE);
}

/* --------------------------------------------------- calendar edge cases */

static void test_rollover_and_leap(void)
{
    am_time dec30 = T("2026-12-30T10:00:00+08:00"); /* Wednesday */
    EXPECT_AT(dec30, "明天", AM_ENT_DATE, "2026-12-31");
    EXPECT_AT(dec30, "后天", AM_ENT_DATE, "2027-01-01");
    EXPECT_AT(dec30, "下个月", AM_ENT_RANGE, "2027-01-01/2027-01-31");
    EXPECT_AT(dec30, "1月5日", AM_ENT_DATE, "2027-01-05");
    EXPECT_AT(dec30, "next week", AM_ENT_RANGE, "2027-01-04/2027-01-10");
    EXPECT_AT(dec30, "下季度", AM_ENT_RANGE, "2027-01-01/2027-03-31");
    am_time jan2 = T("2027-01-02T10:00:00+08:00");
    EXPECT_AT(jan2, "12月30日", AM_ENT_DATE, "2026-12-30");
    EXPECT_AT(jan2, "上个月", AM_ENT_RANGE, "2026-12-01/2026-12-31");
    am_time feb28_leap = T("2024-02-28T09:00:00+08:00");
    EXPECT_AT(feb28_leap, "明天", AM_ENT_DATE, "2024-02-29");
    EXPECT_AT(feb28_leap, "后天", AM_ENT_DATE, "2024-03-01");
    EXPECT_AT(feb28_leap, "月底", AM_ENT_DATE, "2024-02-29");
    EXPECT_AT(feb28_leap, "2月29日", AM_ENT_DATE, "2024-02-29");
    am_time feb28 = T("2023-02-28T09:00:00+08:00");
    EXPECT_AT(feb28, "明天", AM_ENT_DATE, "2023-03-01");
    EXPECT_AT(feb28, "this month", AM_ENT_RANGE, "2023-02-01/2023-02-28");
    am_time jan31 = T("2026-01-31T09:00:00+08:00");
    EXPECT_AT(jan31, "一个月后", AM_ENT_DATE, "2026-02-28");
    am_time feb29 = T("2024-02-29T09:00:00+08:00");
    EXPECT_AT(feb29, "一年后", AM_ENT_DATE, "2025-02-28");
    EXPECT_AT(feb29, "a year ago", AM_ENT_DATE, "2023-02-28");
    am_time mar31 = T("2026-03-31T09:00:00+08:00");
    EXPECT_AT(mar31, "一个月前", AM_ENT_DATE, "2026-02-28");
    EXPECT("2024-02-29", AM_ENT_DATE, "2024-02-29");
    EXPECT("2000-02-29", AM_ENT_DATE, "2000-02-29");
    am__entity e[MAXE];
    /* not a date, and no pieces of it as numbers either */
    CHECK_EQ_INT(extract("2025-02-29", REF, TZ8, e), 0);
    CHECK_EQ_INT(extract("1900-02-29", REF, TZ8, e), 0);
    CHECK_EQ_INT(extract("2月30日", REF, TZ8, e), 0);
}

static void test_zones_and_intervals(void)
{
    am__entity buf[MAXE];
    const am__entity *e = find("明天", REF, TZ8, AM_ENT_DATE, buf);
    CHECK(e != NULL);
    if (e) {
        CHECK_EQ_INT(e->from, T("2026-03-05T00:00:00+08:00"));
        CHECK_EQ_INT(e->to, T("2026-03-06T00:00:00+08:00"));
    }
    e = find("下个月", REF, TZ8, AM_ENT_RANGE, buf);
    CHECK(e != NULL);
    if (e) {
        CHECK_EQ_INT(e->from, T("2026-04-01T00:00:00+08:00"));
        CHECK_EQ_INT(e->to, T("2026-05-01T00:00:00+08:00"));
    }
    e = find("明天下午三点半", REF, TZ8, AM_ENT_DATETIME, buf);
    CHECK(e != NULL);
    if (e) {
        CHECK_EQ_INT(e->from, T("2026-03-05T15:30:00+08:00"));
        CHECK_EQ_INT(e->to - e->from, 60000);
    }
    e = find("下午三点", REF, TZ8, AM_ENT_TIME, buf);
    CHECK(e != NULL);
    if (e) CHECK(e->from == AM_TIME_NONE && e->to == AM_TIME_NONE);
    e = find("50万", REF, TZ8, AM_ENT_AMOUNT, buf);
    CHECK(e != NULL);
    if (e) CHECK(e->from == AM_TIME_NONE && e->to == AM_TIME_NONE);

    /* 20:00Z is already the 5th in Beijing */
    am_time late = T("2026-03-04T20:00:00Z");
    expect_at(__LINE__, late, TZ8, "今天", AM_ENT_DATE, "2026-03-05", NULL);
    e = find("今天", late, TZ8, AM_ENT_DATE, buf);
    if (e) CHECK_EQ_INT(e->from, T("2026-03-04T16:00:00Z"));
    /* 03:00Z is still the 3rd in New York (-05:00) */
    am_time early = T("2026-03-04T03:00:00Z");
    expect_at(__LINE__, early, -300, "today", AM_ENT_DATE, "2026-03-03", NULL);
    e = find("today", early, -300, AM_ENT_DATE, buf);
    if (e) CHECK_EQ_INT(e->from, T("2026-03-03T00:00:00-05:00"));
    expect_at(__LINE__, early, -300, "2026-03-11T07:00:00Z", AM_ENT_DATETIME,
              "2026-03-11T02:00", NULL);
}

/* ------------------------------------------------------------- queries */

static void test_query_ranges(void)
{
    EXPECT_Q("上周做了什么", "2026-02-23T00:00:00+08:00", "2026-03-02T00:00:00+08:00");
    EXPECT_Q("what did I do last month?", "2026-02-01T00:00:00+08:00",
             "2026-03-01T00:00:00+08:00");
    /* coarse "N units ago" widen to the unit in a query */
    EXPECT_Q("三个月前我的风险等级是什么", "2025-12-01T00:00:00+08:00",
             "2026-01-01T00:00:00+08:00");
    EXPECT_Q("what happened two weeks ago", "2026-02-16T00:00:00+08:00",
             "2026-02-23T00:00:00+08:00");
    EXPECT_Q("yesterday", "2026-03-03T00:00:00+08:00", "2026-03-04T00:00:00+08:00");
    EXPECT_Q("2023年5月", "2023-05-01T00:00:00+08:00", "2023-06-01T00:00:00+08:00");
    EXPECT_Q("in May 2023", "2023-05-01T00:00:00+08:00", "2023-06-01T00:00:00+08:00");
    EXPECT_Q("8 May, 2023", "2023-05-08T00:00:00+08:00", "2023-05-09T00:00:00+08:00");
    /* queries look back: last Friday, last May */
    EXPECT_Q("周五开会说了什么", "2026-02-27T00:00:00+08:00",
             "2026-02-28T00:00:00+08:00");
    EXPECT_Q("5月的时候", "2025-05-01T00:00:00+08:00", "2025-06-01T00:00:00+08:00");
    EXPECT_Q("去年年底", "2025-12-01T00:00:00+08:00", "2026-01-01T00:00:00+08:00");
    EXPECT_Q("上周三和这周一", "2026-02-25T00:00:00+08:00",
             "2026-03-03T00:00:00+08:00");
    EXPECT_Q("last weekend", "2026-02-28T00:00:00+08:00", "2026-03-02T00:00:00+08:00");
    EXPECT_Q("最近一周", "2026-02-25T00:00:00+08:00", "2026-03-05T00:00:00+08:00");
    EXPECT_Q("When did Caroline go to the support group?", NULL, NULL);
    EXPECT_Q("May I ask what we discussed?", NULL, NULL);
    EXPECT_Q("我更喜欢PDF", NULL, NULL);
    EXPECT_Q("at 3pm", NULL, NULL);
    EXPECT_Q("每周四", NULL, NULL);
}

/* ---------------------------------------------------------- robustness */

static void test_api_contract(void)
{
    am__entity e[8];
    size_t n = 99;
    const char *t = "明天 后天 50万 5% https://a.b 张总";
    CHECK_EQ_INT(am__entities_extract(t, strlen(t), REF, TZ8, e, 2, &n), AM_OK);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(am__entities_extract(t, strlen(t), REF, TZ8, e, 8, NULL),
                 AM_MISUSE);
    CHECK_EQ_INT(am__entities_extract(NULL, 3, REF, TZ8, e, 8, &n), AM_MISUSE);
    CHECK_EQ_INT(am__entities_extract(t, strlen(t), REF, TZ8, NULL, 8, &n),
                 AM_MISUSE);
    CHECK_EQ_INT(am__entities_extract(NULL, 0, REF, TZ8, e, 8, &n), AM_OK);
    CHECK_EQ_INT(n, 0);
    CHECK_EQ_INT(am__entities_extract(t, strlen(t), REF, TZ8, e, 0, &n), AM_OK);
    CHECK_EQ_INT(n, 0);
    am_time f = 1, to = 2;
    CHECK_EQ_INT(am__query_time_range(NULL, 4, REF, TZ8, &f, &to), 0);
    CHECK_EQ_INT(am__query_time_range("明天", 6, REF, TZ8, NULL, &to), 0);

    /* not NUL-terminated: only len bytes are read */
    char buf[6];
    memcpy(buf, "明天", 6);
    CHECK_EQ_INT(am__entities_extract(buf, 6, REF, TZ8, e, 8, &n), AM_OK);
    CHECK_EQ_INT(n, 1);
    /* a cut at len: "明天下午" with len covering only "明天" */
    t = "明天下午三点";
    CHECK_EQ_INT(am__entities_extract(t, 6, REF, TZ8, e, 8, &n), AM_OK);
    CHECK_EQ_INT(n, 1);
    if (n == 1) CHECK_EQ_STR(e[0].norm, "2026-03-05");

    /* without a reference time: absolute dates only */
    t = "明天 2026-03-11 3月11日";
    CHECK_EQ_INT(am__entities_extract(t, strlen(t), AM_TIME_NONE, TZ8, e, 8, &n),
                 AM_OK);
    int dates = 0;
    for (size_t i = 0; i < n; i++) dates += e[i].type == AM_ENT_DATE;
    CHECK_EQ_INT(dates, 1);

    CHECK_EQ_STR(am__ent_type_name(AM_ENT_DATE), "date");
    CHECK_EQ_STR(am__ent_type_name(AM_ENT_WEEKDAY_RECURRING), "weekday_recurring");
    CHECK_EQ_STR(am__ent_type_name(0), "unknown");
    CHECK_EQ_STR(am__ent_type_name(99), "unknown");
}

static void test_invalid_utf8_and_order(void)
{
    am__entity e[MAXE];
    const char *t = "\xff\xfe明天\xc3 \xe5\x91 50万\xf0\x9f\x98\x80 5% \xe6";
    size_t n = extract(t, REF, TZ8, e);
    CHECK_EQ_INT(n, 3);
    if (n == 3) {
        CHECK_EQ_STR(e[0].norm, "2026-03-05");
        CHECK_EQ_STR(e[1].norm, "500000");
        CHECK_EQ_STR(e[2].norm, "0.05");
    }
    /* a long mixed text: sorted, non-overlapping, in bounds */
    char big[8192];
    size_t len = 0;
    const char *parts[] = {"下周三下午三点在招商银行开会，预算50万。",
                           "Meet Dr. Smith next Friday at 3pm re report.pdf. ",
                           "每周四 https://x.y/z 百分之五 "};
    while (len + 200 < sizeof big)
        for (size_t k = 0; k < 3 && len + 200 < sizeof big; k++) {
            size_t l = strlen(parts[k]);
            memcpy(big + len, parts[k], l);
            len += l;
        }
    size_t cnt = 0;
    CHECK_EQ_INT(am__entities_extract(big, len, REF, TZ8, e, MAXE, &cnt), AM_OK);
    CHECK_EQ_INT(cnt, MAXE);
    for (size_t i = 0; i < cnt; i++) {
        CHECK(e[i].start < e[i].end && e[i].end <= len);
        if (i) CHECK(e[i - 1].end <= e[i].start);
        CHECK(strlen(e[i].norm) < AM_ENT_NORM_MAX);
    }
    /* a URL longer than norm: the surface is whole, norm is cut */
    char url[200] = "https://example.com/";
    memset(url + 20, 'a', 150);
    url[170] = '\0';
    n = extract(url, REF, TZ8, e);
    CHECK_EQ_INT(n, 1);
    if (n == 1) {
        CHECK_EQ_INT(e[0].end, 170);
        CHECK_EQ_INT(strlen(e[0].norm), AM_ENT_NORM_MAX - 1);
    }
    n_cases += 4;
}

int main(void)
{
    REF = T("2026-03-04T10:00:00+08:00");
    RUN(test_absolute_dates);
    RUN(test_months_years);
    RUN(test_relative_days_zh);
    RUN(test_weeks_zh);
    RUN(test_month_parts_zh);
    RUN(test_relative_en);
    RUN(test_times);
    RUN(test_datetimes);
    RUN(test_date_ranges);
    RUN(test_amounts);
    RUN(test_numbers);
    RUN(test_percents);
    RUN(test_urls_files);
    RUN(test_formats);
    RUN(test_recurring);
    RUN(test_persons_orgs);
    RUN(test_hard_negatives);
    RUN(test_rollover_and_leap);
    RUN(test_zones_and_intervals);
    RUN(test_query_ranges);
    RUN(test_api_contract);
    RUN(test_invalid_utf8_and_order);
    printf("%d entity cases\n", n_cases);
    TEST_MAIN_END();
}
