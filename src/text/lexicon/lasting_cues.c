/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexicon/lasting_cues.c -- the tables of the lasting forms (distill/rules.c,
 * lasting_form): statements that hold beyond
 * today without a cue word ("以后", "from now on"), told apart by the form of
 * the sentence rather than by its words:
 *  - a norm: a deontic modal (必须, 不得, need, must not) after a generic
 *    subject ("报销单", "Purchases over $5,000"; not "这份报价单", "the
 *    report", "I", "we");
 *  - a habit: the user as subject with habitual aspect -- a frequency
 *    adverb, a bare or plural weekday, a part of the day after one
 *    ("我周三下午一般…", "I skip lunch on Wednesdays");
 *  - a fact about the user: a first-person copula with a predicate noun or
 *    adjective ("我是O型血", "I'm a night owl"), or an attribute of theirs
 *    ("我的血型是…", "my manager is …");
 *  - a default: a rule with an exception or for when nothing was said
 *    ("unless …", "除非…", "没指定…的", "when in doubt");
 * and the markers that keep a sentence out: narration (past time, past
 * tense), what holds only today or now, the words after a copula that name
 * a passing state ("I'm so tired", "我是说…"), and an evaluation.
 *
 * To extend: add a labelled sentence to tests/corpus/distill.tsv first, then
 * the most general entry that fixes it, and run test_corpus.
 */
#include "text/lexicon/lexicon.h"

#define CUE(p) AM__CUE(p)
#define CUE_END AM__CUE(NULL)
#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

/* "我以前…", "之前我…": 以前/之前 of the speaker's past, not "before
 * doing" ("offer发出去之前要…"). */
static const char *const zh_past_owner[] = {"^", "我", "我们", "他", "她", "他们", "很久", "好久",
                                            "从", "在", NULL};

/* ---------------------------------------------------------- keeping out */

/* A past state or a story: guards every profile fact ("我小时候住在成都",
 * "I used to work at Deloitte", "上周我去杭州出差，住在西湖边"). */
const am__cue am__lex_lasting_past[] = {
    {"以前", zh_past_owner, NULL, NULL}, {"之前", zh_past_owner, NULL, NULL}, CUE("那时"), CUE("当时"),
    CUE("小时候"), CUE("曾经"), CUE("那会儿"),
    CUE("大学的时候|上学的时候|读书的时候|小的时候|年轻的时候|刚工作的时候|上学时|读书时|大学时"),
    CUE("上周|上个月|上个星期|上礼拜|上次|去年|前年|昨天|前天|上半年"),
    CUE("used to"), CUE("back then"), CUE("back in"), CUE("when i was"), CUE("when we were"),
    CUE("in college"), CUE("as a kid"), CUE("growing up"), CUE("at the time"),
    CUE_END,
};

/* Past tense: guards the lasting forms, not the profile cues ("I was born
 * in Hangzhou", "I moved to Rotterdam last year" are lasting). */
const am__cue am__lex_lasting_past_tense[] = {
    CUE("was"), CUE("were"), CUE("had"), CUE("did"), CUE("ago"), CUE("last…week|month|night|year|time"),
    CUE("过了"), CUE("了两|了一|了三|了几"),
    CUE_END,
};

/* What holds only now, or a deadline: "这个bug需要尽快修", "The report
 * needs to go out today" (besides distill_cues.c's transient words). */
const am__cue am__lex_lasting_now[] = {
    CUE("现在"), CUE("马上"), CUE("尽快"), CUE("赶紧"), CUE("立刻"), CUE("立即"), CUE("正在"),
    CUE("在路上"), CUE("晚点"), CUE("待会"), CUE("一会儿"), CUE("稍后"), CUE("月底"), CUE("年底"),
    CUE("下个"), CUE("一下"), CUE("一趟"), CUE("重新"), CUE("再次"), CUE("这个月"), CUE("本月"), CUE("今年"), CUE("明年"), CUE("有点"),
    CUE("了$"),
    CUE("now"), CUE("again"), CUE("asap"), CUE("soon"), CUE("later"), CUE("at the moment"),
    CUE("this month"), CUE("this quarter"), CUE("this year"),
    CUE("next month|next quarter|next year|next time|last quarter"),
    CUE("on vacation|on leave|on holiday|out of office|out sick|on a call|on the phone|on the way"), CUE("these days"), CUE("lately"),
    CUE("on my way"), CUE("by eod|by noon|by end of day|by the end of the day"),
    CUE("by monday|by tuesday|by wednesday|by thursday|by friday|by saturday|by sunday"),
    CUE_END,
};

/* ---------------------------------------------------------- norms */

/* Deontic modals and limits.  要 only where it is the modal: not 想要,
 * 只要, 就要, 快要, 还要 ("还要再改改"), nor 要不要 / 要是. */
const am__cue am__lex_lasting_modal[] = {
    CUE("必须"), CUE("务必"), CUE("不得"), {"不准", NULL, L("说", "猜", "看", "估"), NULL}, CUE("不许"), CUE("严禁"), CUE("禁止"),
    {"须", NULL, L("无", "必"), L("知")}, CUE("需要"), {"需", NULL, NULL, L("要", "求")},
    CUE("应当"), CUE("应该"), CUE("只能"), CUE("不能"), CUE("不可"), CUE("不要"), CUE("统一"),
    CUE("不超过"), CUE("不少于"), CUE("至少"), CUE("最多"), CUE("最长"), CUE("最晚"), CUE("最迟"),
    CUE("才能"), CUE("才可以"), CUE("方可"),
    {"只", NULL, L("不"), L("是", "有", "要", "好", "剩", "不过", "怕", "能", "见", "觉得")}, CUE("不允许"), CUE("不予"), CUE("不接受"), CUE("不提供"),
    CUE("不支持"), CUE("不安排"), CUE("不对外"),
    {"要", NULL,
     L("想", "只", "就", "快", "还", "主", "重", "需", "必", "将", "不", "也", "纪", "摘", "概", "提",
       "简", "纲", "首", "次", "紧", "政", "显", "要"),
     L("不", "是", "么", "求")},
    CUE("must"), CUE("mustn't"), CUE("need"), CUE("needs"), CUE("require"), CUE("requires"),
    CUE("should"), CUE("shouldn't"), CUE("shall"), CUE("have to"), CUE("has to"), CUE("can't"),
    CUE("cannot"), CUE("can only"), CUE("may not"), CUE("may only"), CUE("not allowed"),
    CUE("aren't allowed"), CUE("isn't allowed"), CUE("not permitted"), CUE("prohibited"),
    CUE("forbidden"), CUE("is required"), CUE("are required"), CUE("are expected to"),
    CUE("is expected to"), CUE("don't"), CUE("doesn't"), CUE("do not"), CUE("does not"),
    CUE("never"), CUE("always"),
    CUE_END,
};

/* A subject that names one thing at hand or a person is no generic
 * subject: the first word of the clause before the modal. */
const char *const am__lex_lasting_not_generic[] = {
    "这", "那", "你", "我", "他", "她", "它", "咱", "您", "谁", "哪", "什么", "怎么", "为什么",
    "今天", "明天", "昨天", "刚", "有没有", "是不是", "有人",
    "i", "i'm", "i'd", "i'll", "i've", "you", "you're", "you've", "we", "we're", "we've", "he",
    "he's", "she", "she's", "they", "they're", "it", "it's", "that's", "there's", "what's", "our",
    "still", "really", "actually", "definitely", "probably", "already", "now", "not", "never",
    "always", "often", "usually", "only",
    "this", "that", "these", "those", "the", "my", "your", "his", "her", "their", "its", "there",
    "here", "what", "who", "why", "how", "when", "where", "which", "do", "does", "did", "can",
    "could", "will", "would", "should", "is", "are", "am", "was", "were", "maybe", "perhaps",
    "someone", "somebody", "ok", "okay", "so", "lol", "let's", "please", "just", "if", "and",
    "but", "then", "also", "hey", "hi", "well", "oh", "yeah", "yes", "everyone", "everybody",
    "mom", "dad", "boss", "kids", "things", "people", "stuff", "life", "weather", "traffic",
    "guys", "folks", NULL};

/* ---------------------------------------------------------- habits */

/* The user as subject, with habitual aspect. */
const am__cue am__lex_lasting_habit[] = {
    CUE("^我|本人…每天|每周|每晚|每月|每个|每逢|一般|通常|平时|平常|经常|常常|从不|从来不|"
        "很少|基本不|几乎不|一向|向来"),
    {"^我|本人…周一|周二|周三|周四|周五|周六|周日|周末|星期一|星期二|星期三|星期四|星期五|"
     "星期六|星期天|星期日|礼拜|工作日|早饭|早餐|午饭|午餐|晚饭|晚餐…不|只|从不",
     NULL, NULL, L("在", "了", "行", "错", "好", "知道", "清楚", "确定", "一定", "过")},
    {"^我|本人…点以后|点之后|点以前|点之前|点前|点后…不|只|从不", NULL, NULL,
     L("在", "了", "行", "错", "好", "知道", "清楚", "确定", "一定", "过")},
    CUE("^i|we…every|usually|rarely|seldom|often|typically|normally|generally|mostly|"
        "most days|daily|weekly|each morning|each week|at night"),
    CUE("^i|we…weekends|weekdays|weeknights|mornings|afternoons|evenings|nights|mondays|tuesdays|"
        "wednesdays|thursdays|fridays|saturdays|sundays"),
    CUE("^i|we…don't|do not|never…after|before|past|until…1*|2*|3*|4*|5*|6*|7*|8*|9*|noon|"
        "midnight|lunch|work|hours"),
    /* the time first: "中午十二点到一点半我不开会" */
    {"点到|点以后|点之后|点以前|点之前|点前|点后|周末|工作日|周一|周二|周三|周四|周五|周六|周日|"
     "星期一|星期二|星期三|星期四|星期五|星期六|星期天…我不|我从不|我一般不|我基本不|我只",
     NULL, NULL, L("在", "了", "行", "错", "好", "知道", "清楚", "确定", "一定", "过")},
    /* a negative instruction for a kind of time: "周末别给我安排任何会议" */
    CUE("^周末|工作日|节假日|休息日|下班后|下班以后|非工作时间|午休时间…别|不要"),
    CUE("^on weekends|after hours|outside work hours|outside office hours…don't|never|do not"),
    CUE("^on mondays|on tuesdays|on wednesdays|on thursdays|on fridays|on saturdays|"
        "^on sundays|on weekends|on weekdays|every morning|every evening|most days…i"),
    CUE_END,
};

/* A habit that is a must-not: the kind is constraint. */
const am__cue am__lex_lasting_habit_negation[] = {
    {"不", NULL, NULL, L("错", "过", "多", "少", "同", "然", "久", "仅", "管", "论", "断", "如", "停")}, CUE("don't"), CUE("do not"), CUE("never"), CUE("won't"),
    CUE_END,
};

/* ---------------------------------------------------------- facts about the user */

/* A condition or trait of the user ("我恐高", "本人色弱", "I speak Spanish"). */
const am__cue am__lex_lasting_trait[] = {
    CUE("^我在…当"), CUE("^我目前负责|我现在负责"),
    CUE("^我|本人…不耐受|恐高|晕车|晕机|晕船|怕冷|怕热|色弱|失眠|低血糖|贫血|痛风|过敏体质|"
        "夜猫子|早起|独生"),
    CUE("^i speak|i'm fluent in|i am fluent in|i can't eat|i cannot eat"),
    CUE_END,
};

/* After "我是" / "I'm": the words that make it a passing state, an act or
 * a manner of speaking, not a fact ("我是说", "我是来问…", "I'm so tired",
 * "I'm heading out"). */
const char *const am__lex_lasting_copula_not[] = {
    "说", "想", "觉得", "不", "在", "来", "去", "要", "第一", "真", "故意", "开玩笑", "问", "希望",
    "打算", "准备", "刚", "今天", "明天", "把", "被", "跟", "和", "从", "因为", "为了", "看", "听",
    "指", "担心", "认真", "对", "错", "这", "那", "很", "也", "还", "就", "都", "挺", "太", "有点",
    "怎么", "什么", "多", "个", "否", "不是",
    "so", "very", "really", "just", "not", "sorry", "glad", "happy", "sad", "tired", "exhausted",
    "busy", "sick", "ill", "hungry", "thirsty", "ready", "late", "early", "done", "back", "here",
    "there", "fine", "ok", "okay", "good", "great", "well", "excited", "worried", "afraid",
    "sure", "going", "gonna", "about", "still", "also", "almost", "finally", "off", "out",
    "away", "with", "at", "into", "glad", "thrilled", "curious", "confused", "stuck", "free",
    "available", "around", "home", "up", "down", "totally", "pretty", "quite", "super", "too",
    "all", "currently", "now", "like", "interested", "lost", "the", "kind", "sort", "bit",
    "little", "lot", "few", "couple", "moment", "minute", "second", "hour", "day", "week",
    "meeting", "call", "hurry", "rush", "mess", "fan", "big", "huge", "only", "always", "never",
    "thinking", "open", "confident", "positive", "certain", "new", "impressed", "surprised",
    "disappointed", "annoyed", "frustrated", "bored", "fed", "over", "starving", "running",
    "calling", "writing", "asking", "wondering", "leaving", "trying", "stressed", "scared",
    "overwhelmed", "relieved", "pleased", "delighted", "shocked", "embarrassed", "amazed",
    "swamped", "booked", "slammed", "finished", "tied", "exhausted", "bored", NULL};

/* ... and "I'm on / in …" is a fact when it names a part of an
 * organisation ("I'm on the finance team", not "I'm in a meeting"). */
const am__cue am__lex_lasting_org[] = {
    CUE("team|department|dept|group|board|committee|squad|unit|division|org|crew"), CUE_END};

/* After "我的" / "my": the things that are no attribute of the user ("我的意思是", "my
 * point is", "my day was", "my flight is delayed"). */
const char *const am__lex_lasting_possessive_not[] = {
    "意思", "想法", "看法", "问题", "建议", "理解", "感觉", "观点", "天", "妈呀", "意见", "打算",
    "计划", "心", "错", "目标", "梦想", "愿望", "希望", "任务", "航班", "快递", "电脑", "手机",
    "point", "question", "guess", "bad", "concern", "idea", "plan", "plans", "thought",
    "thoughts", "worry", "hope", "goal", "problem", "issue", "fault", "pleasure", "turn",
    "mistake", "dream", "day", "week", "weekend", "morning", "afternoon", "evening", "night",
    "head", "back", "mind", "god", "gosh", "goodness", "flight", "train", "laptop", "phone",
    "computer", "package", "order", "battery", "internet", "wifi", "connection", "meeting",
    "call", "schedule", "calendar", "inbox", "bet", "take", "answer", "advice", "suggestion",
    "feeling", "feedback", "understanding", "opinion", "view", "guess", "apologies", NULL};

/* After a bare "我" (no 的: "我办公室在…", "我老家是…"): the words that
 * are no noun of the user's -- times, adverbs, verbs of saying and
 * thinking ("我下午在公司", "我觉得是", "我还在路上"). */
const char *const am__lex_lasting_bare_owner_not[] = {
    "们", "上午", "下午", "晚上", "早上", "中午", "周", "星期", "今", "明", "昨", "刚", "已经", "正",
    "还", "也", "都", "就", "一直", "先", "再", "马上", "本来", "其实", "确实", "真", "倒", "又",
    "以为", "估计", "猜", "怕", "可", "只", "总", "算", "应", "大概", "肯定", "说", "想", "觉得",
    "看", "要", "指", "不", "没", "在", "是", "会", "能", "得", "把", "被", "给", "跟", "和", "从",
    "对", "这", "那", "一", "当时", "现在", "个人", "同事", "朋友", "老板", "领导", NULL};

/* The last character of a place ("科技园B座12楼", "浦东新区"). */
const char *const am__lex_lasting_place_ends[] = {
    "楼", "层", "区", "市", "省", "路", "号", "座", "室", "街", "镇", "县", "村", "栋", "园", "厦",
    "城", "国", NULL};

/* ... and after its copula, a passing state ("delayed", "almost done"). */
const char *const am__lex_lasting_state_not[] = {
    "delayed", "late", "broken", "down", "acting", "killing", "almost", "still", "again", "due",
    "overdue", "over", "gone", "missing", "stuck", "full", "empty", "dead", "not", "done",
    "ready", "finished", "coming", "so", "really", "very", "pretty", "super", "too", "great",
    "awesome", "terrible", "amazing", "awful", "fine", "ok", "okay", "good", "bad", "here",
    "there", "back", "out", "off", "up", "open", "closed", "busy", "free", "a mess",
    "finally", "just", "already", "currently", "now", "getting", "going", "being", "about",
    "probably", "maybe", "definitely", "kinda", "sort", "kind", "all", "no", "why", "that",
    NULL};

/* A stated limit or a blanket prohibition: "The hotel cap for domestic trips
 * is $220 a night", "差旅的住宿标准是每晚五百", "No vendor gifts above $50". */
const am__cue am__lex_lasting_limit[] = {
    CUE("cap|limit|ceiling|maximum|minimum|allowance|quota…is|are"),
    CUE("上限|标准|额度|限额|封顶…是|为"), CUE("^no…above|over|more than|without|outside|before|after"),
    CUE_END,
};

/* A comparative choice of the user's (besides the preference verbs of
 * distill_cues.c): "我更愿意坐高铁", "我偏向结论先行", "my preferred format". */
const am__cue am__lex_lasting_preference[] = {
    CUE("我更愿意|我宁愿|我宁可|我还是更|我偏向|我更倾向"), CUE("my preferred|our preferred"),
    CUE("i'd sooner|i would sooner"),
    CUE_END,
};

/* ---------------------------------------------------------- defaults */

/* A rule with an exception, or for when nothing was said. */
const am__cue am__lex_lasting_default[] = {
    CUE("除非"), CUE("没特别说明|没有特别说明|如无特别说明|若无特别说明|无特殊说明|没特别交代|没有特别交代"),
    CUE("我没说|我没有说|我没提|我没交代|我没有交代|我不说|我没指定"),
    CUE("没指定|未指定|没注明|未注明|没写明|未写明|没标明|未标明…的"),
    CUE("拿不准的时候|不确定的时候|拿不准就|不确定就"),
    CUE("要是没|如果没|假如没|要是我没|如果我没|假如我没…说|指定|交代|提|写明|注明"),
    {"unless", NULL, NULL, L(" you", " we")}, CUE("if i don't…say|specify|mention|tell|ask|choose|pick"),
    CUE("if i do not…say|specify|mention|tell|ask"), CUE("if i haven't…said|specified|mentioned"),
    CUE("if not specified|if unspecified|when in doubt|if in doubt"),
    CUE("^default to"),
    CUE_END,
};

/* ---------------------------------------------------------- evaluations */

/* An evaluation judges a thing at hand (distill/rules.c,
 * am__distill_evaluation: only these move confidence). */
const am__cue am__lex_eval_target[] = {
    CUE("这"), CUE("那"), CUE("它"), CUE("this"), CUE("that"), CUE("it"), CUE("these"),
    CUE("those"),
    CUE_END,
};

const am__cue am__lex_eval_negative[] = {
    CUE("不喜欢"), CUE("讨厌"), CUE("太难"), CUE("太麻烦"), CUE("太乱"), CUE("太丑"), CUE("太长"),
    CUE("太啰嗦"), CUE("太慢"), CUE("不好用"), CUE("不太好用"), CUE("难用"), CUE("难看"), CUE("难读"),
    CUE("难改"), CUE("别扭"), CUE("受不了"), CUE("不方便"), CUE("看不清"), CUE("看不懂"), CUE("头疼"),
    CUE("烦人"), CUE("很烦"), CUE("不满意"), CUE("不好看"), CUE("糟糕"), CUE("费劲"), CUE("费事"),
    CUE("不顺手"), CUE("不习惯"),
    CUE("don't like"), CUE("do not like"), CUE("dislike"), CUE("hate"), CUE("annoying"),
    CUE("clunky"), CUE("hard to"), CUE("too long"), CUE("too hard"), CUE("painful"), CUE("awful"),
    CUE("terrible"), CUE("not a fan"), CUE("can't stand"), CUE("confusing"), CUE("ugly"),
    CUE("a pain"), CUE("messy"), CUE("not great"), CUE("doesn't work for me"),
    CUE("isn't working"), CUE("not working for me"), CUE("frustrating"), CUE("cumbersome"),
    CUE("a hassle"), CUE("tedious"),
    CUE_END,
};

static const char *const eval_negated[] = {"不", "不太", "没", "没有", "不够", "not ", "n't ",
                                           "never ", NULL};

const am__cue am__lex_eval_positive[] = {
    {"挺好", NULL, eval_negated, NULL}, {"很好", NULL, eval_negated, NULL}, CUE("不错"),
    {"好用", NULL, eval_negated, NULL}, {"清楚", NULL, eval_negated, NULL},
    {"方便", NULL, eval_negated, NULL}, {"满意", NULL, eval_negated, NULL},
    {"舒服", NULL, eval_negated, NULL}, {"清晰", NULL, eval_negated, NULL},
    {"love", NULL, eval_negated, NULL}, {"great", NULL, eval_negated, NULL},
    {"works well", NULL, eval_negated, NULL}, CUE("much better"), {"nice", NULL, eval_negated, NULL},
    {"perfect", NULL, eval_negated, NULL}, {"helpful", NULL, eval_negated, NULL},
    {"easy to", NULL, eval_negated, NULL}, {"works for me", NULL, eval_negated, NULL},
    CUE_END,
};
