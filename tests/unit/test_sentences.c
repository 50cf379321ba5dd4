/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sentences.c -- the sentence splitter (text/sentences.c): where a
 * reader ends a sentence in English, Chinese and both mixed -- after
 * abbreviations, in decimals, at ellipses, around quotations and
 * brackets -- and that nothing it is given makes it slow.
 */
#include <time.h>

#include "test.h"
#include "text/analyze.h"

typedef struct joined {
    char out[2048];
    size_t len;
} joined;

static int on_sentence(void *ctx, const char *s, size_t n)
{
    joined *j = ctx;
    int w = snprintf(j->out + j->len, sizeof j->out - j->len, "%s%.*s", j->len ? " | " : "",
                     (int)n, s);
    if (w > 0 && (size_t)w < sizeof j->out - j->len) j->len += (size_t)w;
    return 0;
}

/* The sentences of text joined by " | ". */
static const char *split(const char *text)
{
    static joined j;
    j.len = 0;
    j.out[0] = '\0';
    CHECK_EQ_INT(am__text_sentences(text, strlen(text), on_sentence, &j), 0);
    return j.out;
}

#define SPLITS(text, want) CHECK_EQ_STR(split(text), want)

static void test_abbreviations_en(void)
{
    SPLITS("My dentist is Dr. Lee. He is great.", "My dentist is Dr. Lee. | He is great.");
    SPLITS("Mr. and Mrs. Smith live near Mt. Hood.", "Mr. and Mrs. Smith live near Mt. Hood.");
    SPLITS("Prof. Chen and Sgt. Ortiz agreed", "Prof. Chen and Sgt. Ortiz agreed");
    SPLITS("I live on Main St. It is quiet.", "I live on Main St. | It is quiet.");
    SPLITS("I work at Acme Inc. The office is in Boston.",
           "I work at Acme Inc. | The office is in Boston.");
    SPLITS("Acme Inc. is hiring again.", "Acme Inc. is hiring again.");
    SPLITS("Keep it short, e.g. bullet points, i.e. no prose.",
           "Keep it short, e.g. bullet points, i.e. no prose.");
    SPLITS("We moved to the U.S. in 2019. It was cold.",
           "We moved to the U.S. in 2019. | It was cold.");
    SPLITS("J. K. Rowling wrote it. I loved it.", "J. K. Rowling wrote it. | I loved it.");
    SPLITS("Ask Dr. A. Patel, Ph.D. about it.", "Ask Dr. A. Patel, Ph.D. about it.");
    SPLITS("Her office is on 5th Ave. Call her first.", "Her office is on 5th Ave. | Call her first.");
    SPLITS("Bring apples, pears etc. and water.", "Bring apples, pears etc. and water.");
    SPLITS("Bring apples, pears etc. Then leave.", "Bring apples, pears etc. | Then leave.");
    SPLITS("Meet at 5 p.m. Then we eat.", "Meet at 5 p.m. | Then we eat.");
    SPLITS("The 9 a.m. train is fine.", "The 9 a.m. train is fine.");
    SPLITS("It is 5 km. Walk it.", "It is 5 km. | Walk it.");
    /* not abbreviations: an interjection, an acronym, a plain word */
    SPLITS("Hmm. Maybe later.", "Hmm. | Maybe later.");
    SPLITS("I use SQL. Postgres mostly.", "I use SQL. | Postgres mostly.");
    SPLITS("I met Bob. Kate was there.", "I met Bob. | Kate was there.");
    SPLITS("ok. from now on use pdf.", "ok. | from now on use pdf.");
}

static void test_numbers_ellipses_en(void)
{
    SPLITS("The trip takes 3.5 hours. Book v2.3 of the plan.",
           "The trip takes 3.5 hours. | Book v2.3 of the plan.");
    SPLITS("Send report.v2.docx. Thanks.", "Send report.v2.docx. | Thanks.");
    SPLITS("We grew 12.5% in 2024. Good.", "We grew 12.5% in 2024. | Good.");
    SPLITS("I was thinking... maybe not. Let's go.", "I was thinking... maybe not. | Let's go.");
    SPLITS("I waited\xe2\x80\xa6 Then he came.", "I waited\xe2\x80\xa6 | Then he came.");
    SPLITS("Well... I don't know...", "Well... | I don't know...");
    SPLITS("Really?! No way.", "Really?! | No way.");
    SPLITS("See https://x.io/a.php?id=3&b=4 for details. Thanks!",
           "See https://x.io/a.php?id=3&b=4 for details. | Thanks!");
    SPLITS("Set x=1;y=2 in the file; then restart.", "Set x=1;y=2 in the file; | then restart.");
}

static void test_quotes_en(void)
{
    SPLITS("He said \"I'm done. Really.\" and left. Then we ate.",
           "He said \"I'm done. Really.\" and left. | Then we ate.");
    SPLITS("She wrote \"Call me. Soon.\" We did.", "She wrote \"Call me. Soon.\" | We did.");
    SPLITS("\"Is it ok?\" he asked.", "\"Is it ok?\" he asked.");
    SPLITS("The talk \"Stents. Cases.\" - how long is it?", "The talk \"Stents. Cases.\" - how long is it?");
    SPLITS("(Call me tomorrow. Or not.) Okay?", "(Call me tomorrow. Or not.) | Okay?");
    SPLITS("The plan (see Fig. 2. below) works.", "The plan (see Fig. 2. below) works.");
    SPLITS("Call [PHONE_1] today. Thanks.", "Call [PHONE_1] today. | Thanks.");
    /* a mark that never closes is a plain character */
    SPLITS("He said \"hi. Then left.", "He said \"hi. | Then left.");
    SPLITS("Smile :) It works. Yes.", "Smile :) It works. | Yes.");
    /* a line break ends a sentence, quotation or not */
    SPLITS("A: \"first line\nB: second\"", "A: \"first line | B: second\"");
}

static void test_chinese(void)
{
    SPLITS("我的牙医是Dr. Lee。他很好。", "我的牙医是Dr. Lee。 | 他很好。");
    SPLITS("每天跑1.5公里。周末休息。", "每天跑1.5公里。 | 周末休息。");
    SPLITS("他说：“我明天去。你呢？”我说好。", "他说：“我明天去。你呢？” | 我说好。");
    SPLITS("“好的。”他说。", "“好的。”他说。");
    SPLITS("「这次用要点式。」她说完就走了。", "「这次用要点式。」她说完就走了。");
    SPLITS("书名是《再见。你好》，很好看。", "书名是《再见。你好》，很好看。");
    SPLITS("会议（周五。下午三点）取消了。", "会议（周五。下午三点）取消了。");
    SPLITS("用新格式（不要加日期。）谢谢！", "用新格式（不要加日期。） | 谢谢！");
    SPLITS("她说：『明天见！』然后挂了。", "她说：『明天见！』 | 然后挂了。");
    SPLITS("主要内容是“探讨技术。分享经验。”的活动，要多久？", "主要内容是“探讨技术。分享经验。”的活动，要多久？");
    SPLITS("我在想……以后都用PDF吧。", "我在想……以后都用PDF吧。");
    SPLITS("嗯…好吧。明天再说。", "嗯…好吧。 | 明天再说。");
    SPLITS("好的.明天见.", "好的. | 明天见.");
    SPLITS("版本3.2上线了。", "版本3.2上线了。");
    SPLITS("太好了！！！明天见。", "太好了！！！ | 明天见。");
    SPLITS("真的吗？！好吧", "真的吗？！ | 好吧");
    SPLITS("他说“明天去。然后走了。", "他说“明天去。 | 然后走了。");
    SPLITS("第一行。\n第二行", "第一行。 | 第二行");
    SPLITS("以后都用PDF (不要Word)。这次先发我邮箱。", "以后都用PDF (不要Word)。 | 这次先发我邮箱。");
}

/* A quotation longer than the bound is not one unit: its sentences split. */
static void test_long_quote(void)
{
    char buf[1200];
    size_t k = 0;
    k += (size_t)snprintf(buf + k, sizeof buf - k, "他说“");
    while (k < 700) k += (size_t)snprintf(buf + k, sizeof buf - k, "今天很好。");
    snprintf(buf + k, sizeof buf - k, "”");
    joined j = {{0}, 0};
    am__text_sentences(buf, strlen(buf), on_sentence, &j);
    CHECK(strstr(j.out, " | ") != NULL);
}

static int count_cb(void *ctx, const char *s, size_t n)
{
    (void)s;
    (void)n;
    (*(size_t *)ctx)++;
    return 0;
}

/* Unclosed marks, stops and dots in bulk: linear (a quadratic search for
 * closing marks took seconds on this) and every sentence reported. */
static void test_hostile_linear(void)
{
    size_t n = 1 << 20;
    char *s = malloc(n);
    CHECK(s != NULL);
    if (!s) return;
    const char *unit[] = {"(", "\xe2\x80\x9c", "\"", "[", "\xe3\x80\x8c", "a.", ". ", "...", "?"};
    size_t k = 0, u = 0;
    while (k + 4 < n) {
        const char *p = unit[u++ % (sizeof unit / sizeof *unit)];
        memcpy(s + k, p, strlen(p));
        k += strlen(p);
    }
    clock_t t0 = clock();
    size_t count = 0;
    CHECK_EQ_INT(am__text_sentences(s, k, count_cb, &count), 0);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(count > 1000);
    CHECK(secs < 2.0);
    free(s);
}

static int stop_cb(void *ctx, const char *s, size_t n)
{
    (void)s;
    (void)n;
    return ++*(int *)ctx == 2 ? 7 : 0;
}

static void test_callback_stops(void)
{
    int calls = 0;
    const char *t = "One. Two. Three.";
    CHECK_EQ_INT(am__text_sentences(t, strlen(t), stop_cb, &calls), 7);
    CHECK_EQ_INT(calls, 2);
}

int main(void)
{
    RUN(test_abbreviations_en);
    RUN(test_numbers_ellipses_en);
    RUN(test_quotes_en);
    RUN(test_chinese);
    RUN(test_long_quote);
    RUN(test_hostile_linear);
    RUN(test_callback_stops);
    TEST_MAIN_END();
}
