/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexicon/preferences.c -- the words of weak preference signals (semantic/promote.c): the
 * values a signal can carry, request and liking cues, polite question
 * frames and negations.
 */
#include "text/lexicon/lexicon.h"

/* Values a weak signal can carry, one bit each.  Matching is on normalised
 * text; ASCII words match whole words only. */
static const char *const v_pdf[] = {"pdf", NULL};

static const char *const v_excel[] = {"excel", "表格", "spreadsheet", "xlsx", "table", "tables", NULL};

static const char *const v_word[] = {"word", "docx", NULL};

static const char *const v_ppt[] = {"ppt", "幻灯片", "powerpoint", "slides", "slide deck", NULL};

static const char *const v_markdown[] = {"markdown", NULL};

static const char *const v_bullets[] = {"要点", "分点", "列表", "bullet", "bullets", "bulleted", NULL};

static const char *const v_chart[] = {"图表", "chart", "charts", "graph", "graphs", NULL};

static const char *const v_short[] = {"简短", "简洁", "精简", "短一点", "短点", "short", "shorter",
                                      "brief", "briefer", "concise", NULL};

static const char *const v_detail[] = {"详细", "具体一点", "detailed", "in detail", "more detail",
                                       "longer", NULL};

static const char *const v_zh[] = {"中文", "chinese", NULL};

static const char *const v_en[] = {"英文", "英语", "english", NULL};

static const char *const v_wechat[] = {"微信", "wechat", NULL};

static const char *const v_email[] = {"邮件", "邮箱", "email", "e-mail", NULL};

static const char *const v_formal[] = {"正式", "formal", NULL};

static const char *const v_casual[] = {"口语", "casual", "informal", NULL};

const am__lex_value am__lex_promote_values[] = {
    {"pdf", v_pdf}, {"excel", v_excel}, {"word", v_word}, {"ppt", v_ppt},
    {"markdown", v_markdown}, {"bullets", v_bullets}, {"chart", v_chart},
    {"short", v_short}, {"detailed", v_detail}, {"chinese", v_zh},
    {"english", v_en}, {"wechat", v_wechat}, {"email", v_email},
    {"formal", v_formal}, {"casual", v_casual},
};

/* A request or a liking, anywhere in the sentence. */
const char *const am__lex_promote_request_cues[] = {
    "请用", "还是用", "就用", "改用", "都用", "最好用", "麻烦用", "帮我用", "给我用",
    "换成", "改成", "给我发", "发给我", "发我", "我喜欢", "我想要", "我要", "我希望",
    "希望", "就行", "就好", "即可", "一点", "一些", "点儿", "为好", "比较好", "更好",
    "可以用", "能用",
    "please", "i like", "i love", "i'd like", "i would like", "i want", "i need",
    "let's use", "lets use", "go with", "stick with", "stick to", "works better",
    "is better", "are better", "would be better", "send me", "give me",
    NULL,
};

/* Imperatives: the sentence starts with one. */
const char *const am__lex_promote_request_starts[] = {
    "use ", "send ", "give ", "keep ", "make ", "write ", "reply ", "answer ",
    "format ", "switch to ", "can you ", "could you ", "would you ", "will you ",
    NULL,
};

/* Questions that are polite requests ("能不能用PDF?", "Could you use ..."). */
const char *const am__lex_promote_polite_starts[] = {
    "can you ", "could you ", "would you ", "will you ", "能不能", "能否", "可以用",
    "可不可以", "麻烦",
    NULL,
};

/* Negations: a value named right after one is unwanted. */
const char *const am__lex_promote_negations[] = {
    "不要", "别用", "别发", "别给", "别再", "别写", "不喜欢", "不想要", "讨厌",
    "don't", "don’t", "do not", "dont", "never", "no more", "stop using", "avoid", "not",
    NULL,
};
