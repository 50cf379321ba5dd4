/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexicon/versions.c -- the words of versions by attribute and by time
 * (distill/restate.c, recall/filter.c): what marks a statement as
 * a change of a value the user had ("改用", "switched to", "now"), the
 * negation that names the old value ("不用微信", "instead of Slack"), the
 * frames and boundaries of an attribute noun ("我的<车>是", "my <blood
 * type> is"), the nouns that are profile keys, and the words of a question
 * that asks for the present ("现在", "currently").
 *
 * Word classes, not sentences: a cue is a verb, an aspect marker or a
 * function word, so a held-out conversation meets the same grammar.
 */
#include "text/lexicon/lexicon.h"

#define CUE(p) AM__CUE(p)
#define CUE_END AM__CUE(NULL)
#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---------------------------------------------------------- change cues */

/* An explicit change of state: a verb of replacing, switching or moving,
 * or a present-tense verb marked "now".  换 inside a word (交换, 转换,
 * 兑换, 替换, 切换 is its own cue) and 改 as "edit" (改一下) are not. */
const am__cue am__lex_restate_change[] = {
    CUE("改用|换成|换用|改成|改为|改到|变成|变为|换到|转到|搬到|调到|切换到|跳槽"),
    /* 改 + a verb of daily habit: "改喝燕麦奶", "改坐地铁" */
    CUE("改喝|改吃|改坐|改骑|改开|改走|改穿|改去|改住|改听|改看|改玩|改打|改找|改约"),
    {"换", NULL, L("交", "转", "兑", "替", "更", "互"), L("句", "个说法", "位思考", "言之")},
    CUE("现在用|现在改|现在换|现在在|现在住|现在开|现在是|现在做"),
    CUE("如今用|如今在|目前用|目前在"),
    CUE("switched|switching over|moved to|moved from|moved house|changed|transferred to"),
    CUE("moved|shifted…to"), CUE("swapped…for"), CUE("replaced…with"),
    CUE("got a new|have a new|bought a new|found a new|started a new|started using"),
    CUE("started working|upgraded to|went with|went over to|gave up"),
    CUE("now prefer*|now use*|now work*|now live*|now drive*|now go*|now take*|now have|"
        "now own*|now run*|now report*|now like*|now want*|now stick*|now rely"),
    CUE("no longer…but|instead|now"),
    CUE_END,
};

/* "Now" without a change verb: a change only when the sentence states an
 * attribute by a possessive frame ("my manager is now Tom") or names the
 * old value ("I use Teams now, not Slack"). */
const am__cue am__lex_restate_now[] = {
    CUE("现在"), CUE("如今"), CUE("目前"), CUE("现任"), CUE("now"), CUE("these days"),
    CUE("nowadays"), CUE("currently"), CUE("at present"),
    CUE_END,
};

/* "Now" words between a Chinese attribute noun and its copula ("我的经理
 * 现在是…"). */
const char *const am__lex_restate_now_zh[] = {"现在", "目前", "如今", "已经", NULL};

/* The speaker as the subject or owner: a restatement is about the user. */
const am__cue am__lex_restate_first_person[] = {
    CUE("我"), CUE("i|i'm|i've|i'd|my|we|we're|we've|our|me"),
    CUE_END,
};

/* A request or an action on a thing ("帮我把标题改成红色", "can you switch
 * it to Word") is an instruction, not a fact about the user. */
const am__cue am__lex_restate_request[] = {
    CUE("帮我"), CUE("请"), CUE("给我"), CUE("麻烦"), CUE("把"), CUE("替我"),
    CUE("please|can you|could you|would you|you|let's|let me"),
    CUE_END,
};

/* An intention is not yet a change ("我想换工作", "I'm thinking of
 * switching"). */
const am__cue am__lex_restate_intent[] = {
    CUE("想|打算|准备|考虑|计划|要不要|也许|可能|希望|争取|正在找"),
    CUE("want to|wanna|going to|gonna|planning to|thinking of|thinking about|might|may|"
        "considering|will|would|hope to|hoping to|about to|should"),
    /* narration: "since I moved from …", "when I switched", "自从我换了…" */
    CUE("since i|when i|after i|before i|until i|while i|once i|自从我|当我|等我"),
    {"plan to", L("i ", "we ", "i'll ", "we'll ", "i still ", "we still "), NULL, NULL},
    CUE_END,
};

/* A negation that names the old value right after it ("不用微信", "而不是
 * PDF", "instead of Slack", "not at Alibaba anymore", "switched from X"). */
const am__cue am__lex_restate_old[] = {
    CUE("不再用|不再是|不再在|不用|而不是|不是|取代|代替|替代|不在|离开|告别|放弃|从"),
    CUE("不再喝|不再吃|不再坐|不再开|不喝|不吃|不坐|不开|不去"),
    CUE("instead of|rather than|in place of|no longer|not|don't use|stopped using|away from|"
        "from|ditched|dropped|left|no more"),
    CUE("prefer*|rather|choose|chose|pick*|went with…over"),
    CUE_END,
};

/* Where an old value ends: particles, the next verb or a clause word. */
const char *const am__lex_restate_old_ends_zh[] = {
    "了", "啦", "的", "啊", "吧", "呢", "换", "改", "搬", "转", "而", "但", "现在", "就",
    "用", "去", "来", "到", "那", "这", "也", "还", "跳", "调", "离", NULL,
};

/* English words that end an old value, and those dropped before it ("not
 * at Alibaba" -> "alibaba"). */
const char *const am__lex_restate_old_ends_en[] = {
    "to", "anymore", "any", "now", "for", "and", "but", "because", "since", "these", "as",
    "so", "i", "we", "then", "today", "any more", "with", "in favor", "in favour", NULL,
};

const char *const am__lex_restate_old_skip_en[] = {
    "at", "in", "on", "the", "a", "an", "my", "our", "use", "using", "work", "working",
    "living", "live", "with", "going", "to", "for", "being", NULL,
};

/* ---------------------------------------------------------- attribute nouns */

/* The frame that introduces an attribute noun: "我的X" (also 我们的, 我现在的,
 * 我目前的, 我新的) and "my X"; modifiers dropped before it; modifiers that
 * put it in the past ("我以前的车", "my former manager"). */
const char *const am__lex_attr_owner_mid_zh[] = {"们", "现在", "目前", "如今", "新", NULL};

const char *const am__lex_attr_modifiers_zh[] = {"新", "现任", "现在的", "目前的", NULL};

const char *const am__lex_attr_past_zh[] = {
    "以前的", "原来的", "之前的", "过去的", "上一个", "上个", "前任", "前", "老", NULL};

const char *const am__lex_attr_modifiers_en[] = {
    "new", "current", "present", "latest", "own", "usual", "actual", "brand", "brand-new", NULL};

const char *const am__lex_attr_past_en[] = {
    "previous", "former", "old", "last", "ex", "first", "earlier", "original", NULL};

/* Where a Chinese attribute noun ends: a copula, a verb of change or of
 * being somewhere, an adverb. */
const char *const am__lex_attr_ends_zh[] = {
    "是", "叫", "换", "改", "变", "现在", "目前", "如今", "已经", "也", "就", "在", "用", "为",
    "姓", "有", "从", "还", "都", "了", "不", "要", "会", "住", "去", "和", "跟", "每", "一直",
    "总", "又", "才", "很", "太", "真", "挺", "比较", NULL,
};

/* Where an English attribute noun ends: a verb (copula, change, being
 * somewhere), an adverb or a preposition. */
const char *const am__lex_attr_ends_en[] = {
    "is", "are", "was", "were", "has", "have", "had", "changed", "switched", "moved",
    "became", "becomes", "got", "gets", "now", "just", "will", "would", "should", "still",
    "also", "always", "never", "at", "in", "on", "from", "to", "and", "but", "with", "lives",
    "works", "goes", "uses", "used", "drives", "runs", "starts", "sits", "stays", "isn't",
    "aren't", "wasn't", "for", "since", "currently", "recently", "these", "here", "there",
    "which", "that", "who", "does", "doesn't", "can", "can't", "may", "might", NULL,
};

/* The copulas of a possessive frame ("我的车是…", "我的名字叫…"). */
const char *const am__lex_attr_copula_zh[] = {"是", "叫", "姓", "为", NULL};

/* After 换, these make the object a value ("换成钉钉"), not an attribute. */
const char *const am__lex_attr_value_next_zh[] = {"成", "到", "用", "为", NULL};

/* Verbs of change followed by the attribute itself ("我换工作了", "换了辆
 * 车", "I changed jobs", "got a new car"), and what may stand between. */
const char *const am__lex_attr_change_zh[] = {"换", NULL};

const char *const am__lex_attr_change_skip_zh[] = {
    "了", "一个", "一辆", "一台", "一部", "一家", "一份", "一只", "一位", "一套", "个", "辆",
    "台", "部", "家", "份", "只", "位", "套", "新", "掉", NULL,
};

const char *const am__lex_attr_change_en[] = {
    "changed", "switched", "got a new", "have a new", "bought a new", "found a new",
    "started a new", "changing", "switching", "got a", "have got a new", NULL,
};

/* Verbs of change whose attribute is implied: moving is a new home,
 * changing employers a new job ("我已经从上海搬到成都了", "I joined
 * Stripe"). */
static const char *const i_home[] = {"搬到", "搬家", "搬去", "搬回", "moved to", "relocated",
                                     "moved house", "moved back to", NULL};
static const char *const i_job[] = {"跳槽", "入职", "started working at", "got hired", "was hired",
                                    NULL};

const am__lex_words am__lex_attr_implied[] = {
    {"home", i_home}, {"job", i_job}, {NULL, NULL},
};

/* Nouns of discourse, not attributes of the user: "my question is …",
 * "我的意思是…". */
const char *const am__lex_attr_discourse[] = {
    "question", "point", "concern", "plan", "guess", "idea", "problem", "issue", "answer",
    "suggestion", "worry", "hope", "understanding", "impression", "feeling", "thought",
    "take", "bad", "fault", "pleasure", "turn", "mistake", "apologies", "bet", "advice",
    "request", "reply", "response", "reason", "opinion", "view", "experience", "gut", "mind",
    "goal", "dream", "art", "escape", "vision", "life", "day", "hand", "eye", "photo", "action",
    "addition", "favorite", "favourite", "pleasure", "heart", "way", "job_is", "biggest",
    "thing", "part", "best", "worst", "secret", "motto", "wish", "passion",
    "问题", "意思", "想法", "建议", "意见", "看法", "理解", "感觉", "打算", "计划", "目的",
    "重点", "观点", "疑问", "担心", "错", "回答", "原因", "经验", "天", "妈呀", "梦想", "目标",
    "心愿", "动力", "最爱", "愿望", NULL,
};

/* What a possessive fact's value may not start with: an infinitive, a
 * preposition, a degree word or a state ("my goal is to …", "my art is
 * about …", "my store is open"): the sentence says something about the
 * attribute, not its value. */
const char *const am__lex_attr_not_value_en[] = {
    "to", "about", "so", "really", "very", "just", "not", "all", "full", "like", "more", "that",
    "this", "what", "how", "in", "on", "at", "for", "with", "from", "because", "still", "also",
    "always", "never", "being", "getting", "going", "open", "closed", "done", "back", "here",
    "there", "over", "out", "up", "pretty", "super", "too", "such", "quite", "great", "awesome",
    "amazing", "good", "bad", "fine", "busy", "the", "a", "an", "my", "our", "your", "it", "one",
    "something", "everything", "nothing", "important", "getting", "coming", "finally", NULL,
};

/* People: "我老板换车了", "my sister moved to Boston" are their changes,
 * not the user's; "my manager is now Tom" (a copula) states who they are. */
const char *const am__lex_attr_persons[] = {
    "老板", "领导", "同事", "客户", "经理", "主管", "朋友", "妈", "爸", "妈妈", "爸爸", "母亲",
    "父亲", "老公", "老婆", "丈夫", "妻子", "爱人", "儿子", "女儿", "孩子", "哥哥", "姐姐", "弟弟",
    "妹妹", "男朋友", "女朋友", "室友", "邻居", "同学", "老师", "家人", "爷爷", "奶奶", "外婆",
    "boss", "manager", "colleague", "coworker", "friend", "mom", "dad", "mother", "father",
    "wife", "husband", "son", "daughter", "kid", "brother", "sister", "partner", "boyfriend",
    "girlfriend", "roommate", "neighbor", "neighbour", "teacher", "family", "parent", "cousin",
    "uncle", "aunt", "grandma", "grandpa", "team", "client", "landlord", NULL,
};

/* Events, not attributes: "my flight is now at 6pm", "我的快递现在到了". */
const char *const am__lex_attr_events[] = {
    "flight", "train", "bus", "meeting", "appointment", "call", "package", "parcel", "delivery",
    "order", "shipment", "reservation", "booking", "interview", "class", "lesson", "shift",
    "航班", "火车", "车次", "会议", "会", "预约", "快递", "包裹", "订单", "面试", "课", "班",
    "预订", NULL,
};

/* Attribute nouns that are the profile keys of distill/rules.c
 * (profile.job, .home, .name, .birthday), so "我换工作了" meets "我在阿里
 * 工作" and "my new address is …" meets "I live in …". */
static const char *const n_job[] = {"工作", "公司", "单位", "工作单位", "东家", "job", "employer",
                                    "company", "workplace", "firm", NULL};
static const char *const n_home[] = {"家", "住址", "住处", "地址", "家庭住址", "住的地方",
                                     "home", "address", "apartment", "flat", "house", NULL};
static const char *const n_name[] = {"名字", "姓名", "name", "full name", NULL};
static const char *const n_bday[] = {"生日", "birthday", "date of birth", NULL};

const am__lex_words am__lex_attr_profile_nouns[] = {
    {"job", n_job}, {"home", n_home}, {"name", n_name}, {"birthday", n_bday},
    {NULL, NULL},
};

/* ---------------------------------------------------------- the present asked */

/* A question that asks for the present value ("现在用什么", "what do I use
 * now", "currently") reads the current versions even when it also names a
 * past period (recall/filter.c). */
const am__cue am__lex_time_now[] = {
    {"现在", NULL, NULL, NULL}, CUE("目前"), CUE("如今"), CUE("当前"), CUE("眼下"), CUE("最新"),
    {"now", NULL, L("from ", "until ", "till ", "up to ", "by ", "before ", "as of "), NULL},
    CUE("currently|at present|these days|nowadays|at the moment|today|latest|current"),
    CUE_END,
};
