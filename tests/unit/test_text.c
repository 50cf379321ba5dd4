/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_text.c -- text analysis (text/analyze.c) in Chinese and English:
 * normalisation (NFKC, case folding, Traditional -> Simplified),
 * tokenisation (Han unigrams + bigrams + ICU words, stemmed English),
 * stopwords, language, sentences, token sets, token estimates; the
 * shortcuts for ASCII text and the stem cache give what the full analysis
 * gives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "test.h"
#include "text/analyze.h"
#include "text/speaker.h"

static am__text *T;

typedef struct toks {
    char all[40000];
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

/* ASCII text takes a short way (its own letters, A-Z folded): the same
 * as the full NFKC case folding, byte for byte, in English and Chinese
 * sentences and every ASCII character alone. */
static void test_normalize_ascii(void)
{
    static const char *const texts[] = {
        "When did Caroline go to the LGBTQ support group? (7 May 2023)",
        "Tab\there, CR\r and LF\n; ~`!@#$%^&*()_+-={}[]|\\:\";'<>,.?/ ZZ",
        "周报 Weekly REPORT 三段",
        "ＡＢＣ ｆｕｌｌ width",
    };
    char one[128][2];
    const char *cases[128 + sizeof texts / sizeof *texts];
    size_t n = 0;
    for (int c = 1; c < 128; c++) {
        one[c][0] = (char)c;
        one[c][1] = 0;
        cases[n++] = one[c];
    }
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (!strstr(texts[i], "周")) cases[n++] = texts[i]; /* (Han: also Traditional -> Simplified) */
    am__buf b, want;
    am__buf_init(&b, NULL);
    am__buf_init(&want, NULL);
    for (size_t i = 0; i < n; i++) {
        utf8proc_uint8_t *dst = NULL;
        utf8proc_ssize_t r = utf8proc_map((const utf8proc_uint8_t *)cases[i], (utf8proc_ssize_t)strlen(cases[i]),
                                          &dst, UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT |
                                                    UTF8PROC_CASEFOLD);
        CHECK(r >= 0);
        am__buf_reset(&want);
        am__buf_add(&want, dst, (size_t)r);
        free(dst);
        CHECK_EQ_STR(norm(cases[i], &b), want.p);
    }
    am__buf_free(&b);
    am__buf_free(&want);
}

/* am__text_tokens_estimate without its ASCII shortcut. */
static int estimate_slow(const char *s, size_t n)
{
    size_t han = 0, other = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        int l = am__utf8_decode(s + i, n - i, &cp);
        if (am__is_han(cp) || (cp >= 0x3000 && cp <= 0x30FF) || (cp >= 0xFF00 && cp <= 0xFFEF))
            han++;
        else
            other += (size_t)l;
        i += (size_t)l;
    }
    return (int)(han + (other + 3) / 4);
}

static void test_estimate_ascii(void)
{
    static const char *const texts[] = {
        "", "a", "abcd", "abcde", "- 2023-05-08 13:56 Caroline: I went to a LGBTQ support group",
        "周报", "- 2026-03-01 10:00 我们订了湖边的小木屋过暑假 (lake cabin)", "ＡＢＣ、カタカナ。", "caf\xc3\xa9 \xff",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        for (size_t n = 0; n <= strlen(texts[i]); n++)
            CHECK_EQ_INT(am__text_tokens_estimate(texts[i], n), estimate_slow(texts[i], n));
}

/* Stems come from a cache of recent words (analyze.c): the tokens of a
 * text are the same whatever the handle saw before -- fresh, warm, or
 * after thousands of other words took the slots. */
static void test_stem_cache(void)
{
    static const char *const texts[] = {
        "Caroline went running and hiking; she is planning connections, "
        "adoption agencies and counselling jobs. RUNNING runners ran generously.",
        "周末去爬山了 went hiking at the weekend, hikers hiked",
    };
    am__text *fresh = NULL;
    CHECK_EQ_INT(am__text_open(NULL, &fresh), AM_OK);
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        toks warm1 = tokens(texts[i]), warm2 = tokens(texts[i]), cold;
        memset(&cold, 0, sizeof cold);
        CHECK_EQ_INT(am__text_tokenize(fresh, texts[i], strlen(texts[i]), collect, &cold), AM_OK);
        strncat(cold.all, "|", sizeof cold.all - strlen(cold.all) - 1);
        CHECK_EQ_STR(warm1.all, cold.all);
        CHECK_EQ_STR(warm2.all, cold.all);
        for (int k = 0; k < 40000; k++) { /* other words of every length over every slot */
            char word[16];
            int len = 2 + k % 12, v = k;
            for (int c = 0; c < len; c++, v /= 26) word[c] = (char)('a' + v % 26);
            word[len] = 0;
            CHECK(tokens(word).n == 1);
        }
        toks after = tokens(texts[i]);
        CHECK_EQ_STR(after.all, cold.all);
    }
    am__text_close(fresh);
}

/* Every token with its kind and offsets, for the words cache's test. */
static int collect_full(void *ctx, int kind, const char *tok, size_t len, size_t s, size_t e)
{
    (void)len;
    toks *t = ctx;
    char one[128];
    snprintf(one, sizeof one, "|%d:%s@%zu-%zu", kind, tok, s, e);
    strncat(t->all, one, sizeof t->all - strlen(t->all) - 1);
    t->n++;
    return 0;
}

static toks tokens_full(am__text *x, const char *s)
{
    toks t;
    memset(&t, 0, sizeof t);
    CHECK_EQ_INT(am__text_tokenize(x, s, strlen(s), collect_full, &t), AM_OK);
    return t;
}

/* Stops after its first ICU word: a run whose words were not all handed
 * over must not be kept as if it had none after it. */
static int stop_at_word(void *ctx, int kind, const char *tok, size_t len, size_t s, size_t e)
{
    (void)ctx; (void)tok; (void)len; (void)s; (void)e;
    return kind == AM_TOK_CJKWORD ? 7 : 0;
}

/* The ICU words of recent Han runs (the words cache) give what a fresh
 * analyzer gives: the same tokens, kinds and offsets, warm or cold, after
 * thousands of other runs over every slot, for a run too long to keep and
 * after a tokenization stopped half-way; a forget drops the runs. */
static void test_words_cache(void)
{
    static const char *const texts[] = {
        "中华人民共和国的金融科技精英论坛，主要内容是探讨金融科技发展趋势，还有冰淇淋。",
        "医疗创新研讨会在中华人民共和国举行 and the workshop on medical innovation lasts two days",
        "我刚才路过的那个公园叫荔枝公园，卖冰淇淋。荔枝公园真是太不错了，就在闹市区里",
        "Caroline bought 冰淇淋 after the 心理健康支持小组 meeting, 她觉得很有帮助",
    };
    am__text *fresh = NULL, *warm = NULL;
    CHECK_EQ_INT(am__text_open(NULL, &warm), AM_OK);
    am__text_keep_words(warm);
    char longrun[3 * 400 + 1]; /* 400 Han characters: over the kept length */
    static const char han[] = "论坛"; /* two characters, 3 bytes each */
    for (int i = 0; i < 400; i++) memcpy(longrun + 3 * i, i % 3 ? han + 3 * (i % 2) : "金", 3);
    longrun[3 * 400] = 0;
    for (size_t i = 0; i <= sizeof texts / sizeof *texts; i++) {
        const char *text = i < sizeof texts / sizeof *texts ? texts[i] : longrun;
        CHECK_EQ_INT(am__text_open(NULL, &fresh), AM_OK);
        toks cold = tokens_full(fresh, text);
        am__text_close(fresh);
        CHECK(text == longrun || strstr(cold.all, "|3:") != NULL); /* it has ICU words */
        CHECK_EQ_INT(am__text_tokenize(warm, text, strlen(text), stop_at_word, NULL),
                     strstr(cold.all, "|3:") ? 7 : 0);
        toks w1 = tokens_full(warm, text), w2 = tokens_full(warm, text);
        CHECK_EQ_STR(w1.all, cold.all);
        CHECK_EQ_STR(w2.all, cold.all);
        for (int k = 0; k < 6000; k++) { /* other runs of 3-8 characters over every slot */
            char run[3 * 8 + 1];
            int len = 3 + k % 6, v = k;
            for (int c = 0; c < len; c++, v /= 7) {
                uint32_t cp = 0x4E00 + (uint32_t)(v % 7) * 97 + (uint32_t)c * 13;
                run[3 * c] = (char)(0xE0 | (cp >> 12));
                run[3 * c + 1] = (char)(0x80 | ((cp >> 6) & 0x3F));
                run[3 * c + 2] = (char)(0x80 | (cp & 0x3F));
            }
            run[3 * len] = 0;
            CHECK(tokens_full(warm, run).n >= 2 * len - 1);
        }
        toks after = tokens_full(warm, text);
        CHECK_EQ_STR(after.all, cold.all);
    }
    /* a forget leaves no run behind */
    const char *secret = "荔枝公园真是太不错了";
    /* (a run is kept whether or not it has words of its own) */
    tokens_full(warm, secret);
    CHECK(am__text_holds(warm, "荔枝公园真是太不错了", strlen("荔枝公园真是太不错了")));
    am__text_forget(warm);
    CHECK(!am__text_holds(warm, "荔枝公园", strlen("荔枝公园")));
    toks again = tokens_full(warm, secret);
    CHECK_EQ_INT(am__text_open(NULL, &fresh), AM_OK);
    CHECK_EQ_STR(again.all, tokens_full(fresh, secret).all);
    am__text_close(fresh);
    am__text_close(warm);
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
    t = tokens("我同事个子158cm，华为Mate60");
    CHECK_CONTAINS(t.all, "|158cm|158|cm|"); /* the number alone, as in "158厘米" */
    CHECK_CONTAINS(t.all, "|mate60|mate|60|");
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
    /* a word mixing letters and digits: itself, then its runs, so "iPhone
     * 14" and "iPhone14" share terms */
    t = tokens("iPhone14 2pm");
    CHECK_CONTAINS(t.all, "|iphone14|iphon|14|");
    CHECK_CONTAINS(t.all, "|2pm|2|pm|");
    t = tokens("mp3");
    CHECK_CONTAINS(t.all, "|mp3|mp|3|");
    t = tokens("");
    CHECK_EQ_INT(t.n, 0);
    t = tokens("!!! ，。 ...");
    CHECK_EQ_INT(t.n, 0);
}

/* Speaker labels and greeted names (text/speaker.c), en + zh. */
static size_t greeted(const char *line, char *name)
{
    return am__greeted_name(line, name, 64);
}

static void test_speaker_greeting(void)
{
    char label[48], name[64];
    CHECK_EQ_INT((int)am__speaker_label("Emi: I love skiing", label, sizeof label), 3);
    CHECK_EQ_STR(label, "emi");
    CHECK_EQ_INT((int)am__speaker_label("小王：好的", label, sizeof label), 6);
    CHECK_EQ_INT((int)am__speaker_label("论坛的地点是：北京", label, sizeof label), 0);
    CHECK_EQ_INT((int)am__speaker_label("no label here", label, sizeof label), 0);
    CHECK(greeted("elise: Hello Kate! How are you?", name) == 4);
    CHECK_EQ_STR(name, "Kate");
    CHECK(greeted("elise: Thanks, Kate.", name) == 4);
    CHECK(greeted("elise: Good morning Kate", name) == 4);
    CHECK(greeted("Emi: Hey Emily", name) == 5);
    CHECK_EQ_STR(name, "Emily");
    CHECK(greeted("Emi: Hey guys!", name) == 0);        /* a form of address */
    CHECK(greeted("Emi: Hi there, long time", name) == 0);
    CHECK(greeted("Emi: Thanks so much", name) == 0);
    CHECK(greeted("Emi: hello kate", name) == 0);       /* no capital: no name */
    CHECK(greeted("Hello Kate!", name) == 0);           /* no speaker label */
    CHECK(greeted("Emi: Hey Katherine-Anne", name) == 0);
    CHECK(greeted("Emi: I said hello Kate", name) == 0); /* only at the start */
    CHECK(greeted("小李：张总早上好！", name) == 6);
    CHECK_EQ_STR(name, "张总");
    CHECK(greeted("小李：你好，李姐。", name) == 6);
    CHECK_EQ_STR(name, "李姐");
    CHECK(greeted("小李：谢谢王经理！", name) == 9);
    CHECK_EQ_STR(name, "王经理");
    CHECK(greeted("小李：你好啊", name) == 0);
    CHECK(greeted("小李：谢谢你们", name) == 0);
    CHECK(greeted("小李：大家好", name) == 0);
    CHECK(greeted("小李：你好，我想问一下报销的事", name) == 0);
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
    RUN(test_normalize_ascii);
    RUN(test_estimate_ascii);
    RUN(test_stem_cache);
    RUN(test_words_cache);
    RUN(test_tokenize_chinese);
    RUN(test_tokenize_english);
    RUN(test_speaker_greeting);
    RUN(test_stopwords_lang);
    RUN(test_sentences_sets);
    RUN(test_token_blob);
    am__text_close(T);
    TEST_MAIN_END();
}
