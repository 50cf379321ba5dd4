/*
 * lexicon/chat.c -- the router's words (recall/route.c, F14, F7): whole-turn small talk and
 * the business domains' cue words.
 */
#include "text/lexicon/lexicon.h"

/* Whole-turn small talk, normalised.  A turn is small talk when, after
 * punctuation and spaces are dropped, it is a concatenation of these. */
const char *const am__lex_route_chit_chat[] = {
    "你好呀", "你好啊", "你好", "您好", "早上好", "中午好", "下午好", "晚上好",
    "晚安", "早安", "早", "谢谢你", "谢谢您", "谢谢", "多谢", "感谢", "辛苦了",
    "好的", "好滴", "好嘞", "收到", "嗯嗯", "嗯", "哦", "哈哈哈", "哈哈", "呵呵",
    "再见", "拜拜", "没事了", "没问题", "ok", "okay", "k", "hi", "hello", "hey",
    "thanks", "thank you", "thankyou", "thx", "ty", "cheers", "great", "cool",
    "good morning", "good night", "good evening", "goodnight", "bye",
    "see you", "lol", "haha", "sure", "got it", "nice", "yes", "no", "yeah",
    "nope", "啊", "呀", "哇", "了", "很", "非常", "so much", "a lot", "very much",
    "there", "again", "you",
    NULL,
};

/* F7: the business domain a text is about, from cue words, or NULL. */
static const char *const d_procurement[] = {"采购", "供应商", "询价", "报价", "招标", "订货", "purchase", "procurement", "vendor", "supplier", "quotation", NULL};

static const char *const d_hr[] = {"招聘", "入职", "离职", "请假", "薪资", "绩效", "面试", "hiring", "onboarding", "payroll", "leave request", "interview", NULL};

static const char *const d_finance[] = {"报销", "发票", "预算", "财务", "付款", "invoice", "reimburse", "budget", "payment", "expense", NULL};

static const char *const d_travel[] = {"出差", "机票", "酒店", "行程", "航班", "flight", "hotel", "itinerary", "business trip", NULL};

static const char *const d_it[] = {"服务器", "部署", "上线", "代码", "bug", "数据库", "server", "deploy", "database", "release", NULL};

const am__lex_domain am__lex_route_domains[] = {
    {"procurement", d_procurement}, {"hr", d_hr}, {"finance", d_finance},
    {"travel", d_travel}, {"it", d_it},
};
