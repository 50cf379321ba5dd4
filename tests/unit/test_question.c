/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_question.c -- the question detector (text/question.c) in its two
 * readings, and the invariants of the word tables (text/lexicon/) that
 * their readers rely on: the lists searched by binary search are sorted,
 * the character sets are sorted by code point, and the first characters
 * of the Chinese organisation suffixes are the set that says one may start.
 * A linguist who edits a table runs this test first.
 *
 * Texts are given normalised (NFKC + case-folded), as the callers pass them.
 */
#include <string.h>

#include "test.h"
#include "text/lexicon/lexicon.h"
#include "text/question.h"

static int asks(const char *s)
{
    return am__text_is_question(s, strlen(s), AM__TEXT_Q_ASKS);
}

static int form(const char *s)
{
    return am__text_is_question(s, strlen(s), AM__TEXT_Q_FORM);
}

/* AM__TEXT_Q_ASKS: information asked for; a request frame is no question. */
static void test_asks(void)
{
    CHECK_EQ_INT(asks("报告用什么格式来着?"), 1);
    CHECK_EQ_INT(asks("did i say pdf?"), 1);
    CHECK_EQ_INT(asks("要不要推迟"), 1);      /* an opener, no mark */
    CHECK_EQ_INT(asks("what format do we use"), 1);
    CHECK_EQ_INT(asks("周报发了吗。"), 1);    /* a particle before 。 */
    CHECK_EQ_INT(asks("能不能以后都用中文?"), 0);
    CHECK_EQ_INT(asks("could you always cc me?"), 0);
    CHECK_EQ_INT(asks("不管什么格式都行"), 0); /* 什么 after 不管 asks nothing */
    CHECK_EQ_INT(asks("以后周报用pdf。"), 0);
    CHECK_EQ_INT(asks(""), 0);
}

/* AM__TEXT_Q_FORM: a '?' among the closing marks or a final 吗/呢/么. */
static void test_form(void)
{
    CHECK_EQ_INT(form("能不能用pdf?"), 1);   /* a request frame is still a question's form */
    CHECK_EQ_INT(form("could you use pdf?"), 1);
    CHECK_EQ_INT(form("用pdf吗"), 1);
    CHECK_EQ_INT(form("用pdf吗~。"), 1);
    CHECK_EQ_INT(form("what format do we use"), 0); /* no openers */
    CHECK_EQ_INT(form("报告用什么格式来着"), 0);   /* 来着 is no particle here */
    CHECK_EQ_INT(form("以后周报用pdf吧"), 0);
    CHECK_EQ_INT(form(""), 0);
}

/* Where the readings part: the closing marks each one drops. */
static void test_readings_differ(void)
{
    CHECK_EQ_INT(form("用pdf?,"), 1); /* FORM drops ',' after the mark */
    CHECK_EQ_INT(asks("用pdf?,"), 0);
    CHECK_EQ_INT(asks("好不好"), 1);  /* ASKS' longer particle list */
    CHECK_EQ_INT(form("好不好"), 0);
}

static void test_trim_close(void)
{
    int mark = -1;
    const char *s = "用pdf吗?。";
    size_t n = am__text_trim_close(s, strlen(s), &mark);
    CHECK_EQ_INT(mark, 1);
    CHECK_EQ_INT(n, strlen("用pdf吗"));
    CHECK_EQ_INT(am__text_final_particle(s, n), 3);
    CHECK_EQ_INT(am__text_trim_close("好的。", strlen("好的。"), NULL), strlen("好的"));
    CHECK_EQ_INT(am__text_final_particle("pdf", 3), 0);
}

/* A string of 3-byte UTF-8 characters in ascending order, no repeats. */
static int set3_sorted(const char *set)
{
    size_t n = strlen(set);
    if (n % 3) return 0;
    for (size_t i = 3; i < n; i += 3)
        if (memcmp(set + i - 3, set + i, 3) >= 0) return 0;
    return 1;
}

static void test_lexicon_order(void)
{
    size_t n = sizeof am__lex_stopwords / sizeof *am__lex_stopwords;
    for (size_t i = 1; i < n; i++)
        CHECK(strcmp(am__lex_stopwords[i - 1], am__lex_stopwords[i]) < 0);
    n = sizeof am__lex_en_not_names / sizeof *am__lex_en_not_names;
    for (size_t i = 1; i < n; i++)
        CHECK(strcmp(am__lex_en_not_names[i - 1], am__lex_en_not_names[i]) < 0);
    CHECK(set3_sorted(am__lex_zh_surnames));
    CHECK(set3_sorted(am__lex_zh_not_boss));
    CHECK(set3_sorted(am__lex_zh_name_follow));
    CHECK(set3_sorted(am__lex_name_stops));
    CHECK(set3_sorted(am__lex_org_suffix_firsts));
}

/* am__lex_org_suffix_firsts holds exactly the suffixes' first characters. */
static void test_org_suffix_firsts(void)
{
    const char *set = am__lex_org_suffix_firsts;
    size_t n = strlen(set);
    for (size_t i = 0; am__lex_zh_org_suffixes[i]; i++) {
        int found = 0;
        for (size_t k = 0; k < n && !found; k += 3)
            found = memcmp(set + k, am__lex_zh_org_suffixes[i], 3) == 0;
        CHECK(found);
    }
    for (size_t k = 0; k < n; k += 3) {
        int used = 0;
        for (size_t i = 0; am__lex_zh_org_suffixes[i] && !used; i++)
            used = memcmp(set + k, am__lex_zh_org_suffixes[i], 3) == 0;
        CHECK(used);
    }
}

int main(void)
{
    RUN(test_asks);
    RUN(test_form);
    RUN(test_readings_differ);
    RUN(test_trim_close);
    RUN(test_lexicon_order);
    RUN(test_org_suffix_firsts);
    TEST_MAIN_END();
}
