/*
 * test_text.c -- text analysis (text/analyze.c) in Chinese and English:
 * normalisation (NFKC, case folding, Traditional -> Simplified),
 * tokenisation (Han unigrams + bigrams + ICU words, stemmed English),
 * stopwords, language, sentences, token sets, token estimates.
 */
#include <string.h>

#include "test.h"
#include "text/analyze.h"

static am__text *T;

typedef struct toks {
    char all[2048];
    int n;
} toks;

static int collect(void *ctx, int kind, const char *tok, size_t len, size_t s, size_t e)
{
    (void)kind; (void)len; (void)s; (void)e;
    toks *t = ctx;
    strncat(t->all, "|", sizeof t->all - strlen(t->all) - 1);
    strncat(t->all, tok, sizeof t->all - strlen(t->all) - 1);
    t->n++;
    return 0;
}

static toks tokens(const char *s)
{
    toks t;
    memset(&t, 0, sizeof t);
    CHECK_EQ_INT(am__text_tokenize(T, s, strlen(s), collect, &t), AM_OK);
    strncat(t.all, "|", sizeof t.all - strlen(t.all) - 1);
    return t;
}

static char *norm(const char *s, am__buf *b)
{
    am__buf_reset(b);
    CHECK_EQ_INT(am__text_normalize(T, s, strlen(s), b), AM_OK);
    return b->p;
}

static void test_normalize(void)
{
    am__buf b;
    am__buf_init(&b, NULL);
    CHECK_EQ_STR(norm("ＩＴ资产　ＡＢＣ５０万", &b), "it资产 abc50万");
    CHECK_EQ_STR(norm("Weekly REPORT", &b), "weekly report");
    /* Traditional -> Simplified: 周報 and 周报 match */
    CHECK_EQ_STR(norm("請把周報發給我", &b), "请把周报发给我");
    CHECK_EQ_STR(norm("會議紀錄", &b), "会议纪录");
    /* invalid UTF-8 is repaired, not refused */
    CHECK(norm("a\xff" "b", &b) != NULL);
    am__buf_free(&b);
}

static void test_tokenize_chinese(void)
{
    toks t = tokens("把上次IT资产申请的预算改成50万");
    CHECK_CONTAINS(t.all, "|预算|");  /* 2-character word: found */
    CHECK_CONTAINS(t.all, "|资产|");
    CHECK_CONTAINS(t.all, "|it|");
    CHECK_CONTAINS(t.all, "|50|");
    CHECK_CONTAINS(t.all, "|万|");
    t = tokens("张伟明天来");
    CHECK_CONTAINS(t.all, "|张伟|");  /* names: bigrams are the safety net */
    CHECK_CONTAINS(t.all, "|张|");    /* unigrams */
    t = tokens("周報");
    CHECK_CONTAINS(t.all, "|周报|");  /* Traditional input, Simplified token */
    t = tokens("金融科技精英论坛");
    CHECK_CONTAINS(t.all, "|金融|");
    CHECK_CONTAINS(t.all, "|论坛|");
}

static void test_tokenize_english(void)
{
    toks t = tokens("Caroline's running the caregivers' meetings");
    CHECK_CONTAINS(t.all, "|carolin|");
    CHECK_CONTAINS(t.all, "|run|");
    CHECK_CONTAINS(t.all, "|meet|");
    CHECK(strstr(t.all, "|s|") == NULL); /* single letters dropped */
    t = tokens("mp3 Q3 2026");
    CHECK_CONTAINS(t.all, "|mp3|");
    CHECK_CONTAINS(t.all, "|2026|");
    t = tokens("");
    CHECK_EQ_INT(t.n, 0);
    t = tokens("!!! ，。 ...");
    CHECK_EQ_INT(t.n, 0);
}

static void test_stopwords_lang(void)
{
    CHECK(am__text_stopword("the", 3));
    CHECK(am__text_stopword("的", 3));
    CHECK(!am__text_stopword("预算", 6));
    CHECK(!am__text_stopword("budget", 6));
    /* every entry is found by the binary search (the list stays sorted) */
    const char *const some[] = {"a", "your", "yourself", "whi", "都", "怎么", "一个", "我的", "about"};
    for (size_t i = 0; i < sizeof some / sizeof *some; i++) CHECK(am__text_stopword(some[i], strlen(some[i])));
    CHECK_EQ_INT(am__text_lang("帮我写这周的周报", strlen("帮我写这周的周报")), AM_LANG_ZH);
    CHECK_EQ_INT(am__text_lang("IT资产预算", strlen("IT资产预算")), AM_LANG_ZH);
    CHECK_EQ_INT(am__text_lang("Help me write the report", 24), AM_LANG_EN);
    CHECK_EQ_INT(am__text_lang("123 !!", 6), AM_LANG_NONE);
    const char *mixed = "帮我看下这个PR的review comments";
    CHECK_EQ_INT(am__text_lang(mixed, strlen(mixed)), AM_LANG_MIXED);
}

typedef struct sents {
    int n;
    char last[256];
} sents;

static int on_sent(void *ctx, const char *s, size_t n)
{
    sents *x = ctx;
    x->n++;
    snprintf(x->last, sizeof x->last, "%.*s", (int)n, s);
    return 0;
}

static void test_sentences_sets(void)
{
    sents x = {0, ""};
    const char *zh = "以后周报都按三段写。这次用要点式！好吗？";
    am__text_sentences(zh, strlen(zh), on_sent, &x);
    CHECK_EQ_INT(x.n, 3);
    CHECK_EQ_STR(x.last, "好吗？");
    memset(&x, 0, sizeof x);
    const char *en = "From now on use PDF. Put conclusions first! v2.3 is out";
    am__text_sentences(en, strlen(en), on_sent, &x);
    CHECK_EQ_INT(x.n, 3);
    CHECK_EQ_STR(x.last, "v2.3 is out");
    uint64_t a[64], b[64];
    size_t na, nb;
    CHECK_EQ_INT(am__text_token_set(T, "周报三段", strlen("周报三段"), a, 64, &na), AM_OK);
    CHECK_EQ_INT(am__text_token_set(T, "三段周报", strlen("三段周报"), b, 64, &nb), AM_OK);
    CHECK(am__set_overlap(a, na, b, nb) >= 4);
    CHECK_EQ_INT(am__text_tokens_estimate("周报", strlen("周报")), 2);
    CHECK_EQ_INT(am__text_tokens_estimate("abcdefgh", 8), 2);
}

/* A memory item's stored token set (schema v7): read back only when it
 * is a sorted set of this analyzer's version. */
static void token_blob(const char *text, const char *key)
{
    uint64_t set[AM__ITEM_SET], back[AM__ITEM_SET];
    size_t n, m;
    unsigned char blob[AM__TOKBLOB_MAX];
    CHECK_EQ_INT(am__text_item_set(T, text, key, set, &n), AM_OK);
    CHECK(n >= 3);
    size_t len = am__token_blob_put(set, n, blob);
    CHECK_EQ_INT((int)len, (int)(4 + 8 * n));
    CHECK(am__token_blob_get(blob, len, back, AM__ITEM_SET, &m));
    CHECK_EQ_INT((int)m, (int)n);
    CHECK(memcmp(set, back, n * sizeof *set) == 0);
    CHECK(!am__token_blob_get(blob, len - 3, back, AM__ITEM_SET, &m)); /* truncated */
    CHECK(!am__token_blob_get(blob, len, back, n - 1, &m));            /* too many */
    blob[2] ^= 1;                                                     /* another analyzer */
    CHECK(!am__token_blob_get(blob, len, back, AM__ITEM_SET, &m));
    blob[2] ^= 1;
    unsigned char tmp[8]; /* two hashes swapped: not a sorted set */
    memcpy(tmp, blob + 4, 8);
    memcpy(blob + 4, blob + 12, 8);
    memcpy(blob + 12, tmp, 8);
    CHECK(!am__token_blob_get(blob, len, back, AM__ITEM_SET, &m));
    CHECK_EQ_INT((int)m, 0);
}

static void test_token_blob(void)
{
    token_blob("以后周报都用表格格式", "report.format");
    token_blob("From now on, always send reports as PDF", "report.format");
}

int main(void)
{
    if (am__text_open(NULL, &T) != AM_OK) return 1;
    RUN(test_normalize);
    RUN(test_tokenize_chinese);
    RUN(test_tokenize_english);
    RUN(test_stopwords_lang);
    RUN(test_sentences_sets);
    RUN(test_token_blob);
    am__text_close(T);
    TEST_MAIN_END();
}
