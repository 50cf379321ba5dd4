/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexicon/chat.c -- the router's words (recall/route.c): whole-turn small
 * talk, the formulas that close a conversation and the function words a closing may
 * carry, the words that ask for a link or a file, and the business domains' cue words.
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

/* Formulas that close an exchange or acknowledge it (normalised): a turn made only of
 * these, small talk and function words, with no question, needs no memory
 * (recall/route.c). */
const char *const am__lex_route_closings[] = {
    "就这样", "先这样", "就这么着", "先这么着", "这么着", "就这么定了", "这么定了", "就这些", "就到这", "先到这", "到这里", "到此为止", "没别的了",
    "没有别的了", "没其他的了", "没有其他的了", "没了", "没有了", "不用了", "不需要了",
    "可以了", "行了", "够了", "回头见", "下次见", "明天见", "回见", "改天聊", "回聊",
    "再聊", "先忙", "先撤", "撤了", "先走了", "告辞", "再会", "晚点聊", "搞定", "妥了",
    "知道了", "明白了", "了解", "懂了", "辛苦", "麻烦你了", "费心了", "谢啦", "多谢了",
    "没别的事了", "没其他事了", "没其它事了", "没别的问题了", "没其他问题了", "没有问题了",
    "没问题了", "你忙吧", "你先忙", "你忙", "愉快", "快乐", "有帮助", "帮大忙了",
    "帮了大忙",
    "that's all", "that is all", "that's it", "that will be all", "that'll be all",
    "for now", "for today", "for the day", "all set", "all good", "nothing else",
    "no thanks", "no thank you", "see ya", "see you later", "later", "take care",
    "have a good one", "have a nice day", "have a good day", "talk soon", "talk later",
    "goodbye", "good bye", "ciao", "done", "perfect", "awesome", "alright", "all right",
    "sounds good", "fine", "appreciate it", "much appreciated", "understood", "noted",
    "bye-bye", "byebye", "cya", "ttyl", "good", "that's great", "will do", "wonderful",
    "enjoy", "helpful", "that helps", "that helped", "for your help", "for the help",
    "for helping", "all i need", "all i needed", "all i wanted", "take it from here",
    NULL,
};

/* Function words a closing may carry beside its formula (normalised; English words
 * without their contraction: "that's" is looked up as "that"): pronouns, particles,
 * deictics and the times a farewell names ("see you next week", "周末愉快"); the
 * search's stopwords count too.  Any other word is content. */
const char *const am__lex_route_function_zh[] = {
    "吧", "啦", "哈", "嘛", "呢", "哦", "噢", "喔", "呀", "啊", "了", "的", "就", "先", "这样",
    "那样", "这么", "那么", "都", "也", "还", "那", "这", "行", "可以", "我", "你", "您", "们",
    "今天", "暂时", "目前", "那就", "嗯", "哟", "咯", "呐", "噻", "么", "真", "太", "着",
    "祝", "好", "明天", "周末", "下周", "回头", "晚点", "一会儿", "改天", "非常", "特别", NULL,
};
const char *const am__lex_route_function_en[] = {
    "it", "that", "this", "all", "for", "now", "today", "then", "well", "so", "oh", "ah",
    "and", "i", "we", "you", "me", "us", "is", "was", "be", "will", "just", "really",
    "very", "much", "too", "right", "indeed", "again", "everything", "everyone",
    "guys", "man", "mate", "buddy", "dear", "folks", "y'all", "once", "more", "a", "the",
    "tomorrow", "tonight", "soon", "next", "week", "weekend", "day", "morning", "evening",
    "night", "your", "great", "lot", NULL,
};

/* words that ask for a kind of reference (normalised).  A turn that names a link or
 * a file ("把那个链接再发我", "the doc you sent") has the events and items that carry one
 * ranked first (recall/kinds.c).  ASCII words match whole words. */
/* Words by which a turn points at the user's own things or at memory
 * itself ("my", "我的", "remember"): a turn the learned reading takes for
 * small talk still recalls when it holds one (the router, route.c).
 * English entries are whole words; Chinese ones substrings. */
const char *const am__lex_route_user_refs[] = {
    "my", "mine", "our", "ours", "myself", "remember", "remind", "recall", "forgot", "forget",
    "我的", "我们的", "我家", "咱们的", "记得", "记住", "提醒", "忘了", NULL,
};
/* The user as a person in a turn: a question with one is about them
 * ("我住在哪来着", "do I like it?"), even in small-talk wording. */
const char *const am__lex_route_first_person[] = {"i", "me", "we", "us", "我", "咱", NULL};
const char *const am__lex_route_link_words[] = {
    "链接", "网址", "网页", "网站", "链结", "超链接", "url", "urls", "link", "links",
    "website", "web page", "webpage", NULL,
};
const char *const am__lex_route_file_words[] = {
    "文件", "附件", "文档", "那份", "这份", "表格", "幻灯片", "压缩包", "截图", "图片",
    "file", "files", "attachment", "attachments", "attached", "doc", "docs", "document",
    "documents", "spreadsheet", "deck", "slides", "pdf", "screenshot", NULL,
};

/* the business domain a text is about, from cue words, or NULL. */
static const char *const d_procurement[] = {"采购", "供应商", "询价", "报价", "招标", "订货", "purchase", "procurement", "vendor", "supplier", "quotation", NULL};

static const char *const d_hr[] = {"招聘", "入职", "离职", "请假", "薪资", "绩效", "面试", "hiring", "onboarding", "payroll", "leave request", "interview", NULL};

static const char *const d_finance[] = {"报销", "发票", "预算", "财务", "付款", "invoice", "reimburse", "budget", "payment", "expense", NULL};

static const char *const d_travel[] = {"出差", "机票", "酒店", "行程", "航班", "flight", "hotel", "itinerary", "business trip", NULL};

static const char *const d_it[] = {"服务器", "部署", "上线", "代码", "bug", "数据库", "server", "deploy", "database", "release", NULL};

const am__lex_domain am__lex_route_domains[] = {
    {"procurement", d_procurement}, {"hr", d_hr}, {"finance", d_finance},
    {"travel", d_travel}, {"it", d_it},
};
