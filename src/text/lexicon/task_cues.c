/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexicon/task_cues.c -- the cues of task state (domain/task.c): guards that announce
 * no change, the status and stage tables, negation windows, "replaced, not
 * cancelled" and the continuation cues.
 */
#include "text/lexicon/lexicon.h"

#define CUE(p) AM__CUE(p)
#define CUE_END AM__CUE(NULL)
#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Negation windows: the cue right after one of these is denied ("不要取消",
 * "hasn't been sent").  "暂停的采购" names a thing, it changes nothing. */
static const char *const negators[] = {
    "不要", "别", "不用", "不必", "没有", "没", "未", "不", "不会", "don't ", "do not ",
    "not ", "no need to ", "never ", "didn't ", "hasn't ", "haven't ", "hasn't been ",
    "haven't been ", "wasn't ", "isn't ", "won't ", "not yet ", "don't want to ",
    NULL,
};

const am__cue am__lex_task_status_context = {NULL, NULL, negators, L("的")};

const am__cue am__lex_task_stage_context = {NULL, NULL, negators, NULL};

/* A statement that changes nothing now. */
static const char *const after_point[] = {
    "点", "天", "号", "日", "月", "年", "周", "班", "完", "会", "前", "之", "饭", "来",
    "了", "时", "钟", "分", "岁", "业", "学", "0", "1", "2", "3", "4", "5", "6", "7",
    "8", "9", NULL};

const am__cue am__lex_task_guards[] = {
    /* hypotheticals */
    CUE("如果"), CUE("假如"), CUE("要是"), CUE("万一"), CUE("假设"),
    {"if", NULL, L("even ", "as "), NULL}, CUE("suppose"), CUE("what if"), CUE("in case"),
    /* standing rules: "以后会议取消了要提前通知我", "we can never share drafts" */
    {"以后", NULL, after_point, L("再")}, CUE("今后"), CUE("每次"), CUE("from now on"),
    CUE("going forward"), CUE("in future"), CUE("in the future"), CUE("whenever"),
    CUE("every time"), CUE("by default"), CUE("always"),
    {"never", L("^", "can ", "could ", "i ", "we ", "you ", "please ", "so "), NULL, L(" mind")},
    /* norms: a threshold with a modal, a prohibition ("差旅费用超过五千要总监审批",
     * "contracts above $20k need legal review") state how things are, not a step */
    CUE("超过|以上的|以下的|高于|低于…要|需要|须|必须"), CUE("不允许|不得|严禁|禁止|方可|须经"),
    CUE("above|over|more than|exceeding…need*|must|require*"),
    CUE("not allowed|prohibited|forbidden|must not|mustn't"),
    /* an earlier instruction is withdrawn, not the task: "之前那个规矩取消吧" */
    CUE("之前说"), CUE("之前让"), CUE("规矩"), CUE("偏好"), CUE("那条"), CUE("my earlier"),
    CUE("my previous"), CUE("instruction"), CUE("preference"), CUE("rule"),
    CUE_END,
};

/* "把周报弄完" resumes; "比价表做完了" finished a step. */
static const char *const not_step[] = {"已经", "都", "全", "没", NULL};

static const am__cue c_cancel[] = {
    CUE("取消"), CUE("不做了"), CUE("不要了"), CUE("不弄了"), CUE("不搞了"), CUE("不去了"),
    CUE("不买了"), CUE("不办了"), CUE("不订了"), CUE("不约了"),
    CUE("不用做了|不用订了|不用去了|不用买了|不用弄了|不用办了|不用约了|不用发了|不用准备了"),
    CUE("退掉"), CUE("作罢"), CUE("黄了"), CUE("cancel*"), CUE("call off"), CUE("called off"),
    CUE("drop it"), CUE("dropping the"), CUE("drop the"), CUE("scrap it"), CUE("scrap the"),
    CUE("kill the"), CUE("forget about the"), CUE("forget about it"), CUE("is off$"),
    CUE("'s off$"), CUE("abandon*"), CUE("not happening"), CUE("not to go ahead"),
    CUE("not going ahead"), CUE("won't go ahead"), CUE("decided against"),
    CUE_END,
};

static const am__cue c_pause[] = {
    CUE("暂停"), CUE("先停"), CUE("停一下"), CUE("停一停"), CUE("放一放"), CUE("搁置"), CUE("冻结"),
    CUE("缓一缓"), CUE("先缓"),
    CUE("先不…了$"),
    CUE("hold住"), CUE("hold一下"), CUE("等…再"), CUE("pause*"), CUE("on hold"),
    CUE("hold off"), CUE("put it aside"), CUE("on ice"), CUE("^park"), CUE("freeze"),
    CUE("until further notice"),
    CUE("don't send|don't submit|don't book|don't sign|don't pay|don't order|"
        "don't publish|don't post|don't reply|don't start…yet"),
    CUE("let's wait"), CUE("wait for…before"),
    CUE_END,
};

static const am__cue c_postpone[] = {
    CUE("推迟"), CUE("延后"), CUE("延期"), CUE("往后推|往后挪|往后延|往后调"), CUE("改天"),
    CUE("下周再"), CUE("下次再"), CUE("顺延"),
    /* to a later time, not to another room: "改到下周一", "改到三楼会议室" */
    CUE("改到|挪到|延到|调到…周|天|号|日|点|月|年|明|后天|上午|下午|晚上|下次|以后"),
    {"以后再", NULL, NULL, L("有", "也", "遇", "碰", "出现")}, CUE("postpone*"),
    CUE("push*…back|to"), CUE("delay the|delay it|delay this"), CUE("reschedul*"),
    CUE("move*…to next"),
    CUE("next week instead"), CUE("it later"), CUE("this later"), CUE("that later"),
    CUE("up later"), CUE("let's…later"),
    CUE_END,
};

/* "完成了供应商比价" finishes a step, not the task: only whole-task phrases. */
static const am__cue c_done[] = {
    CUE("都搞定"), CUE("全搞定"), CUE("全部搞定"), CUE("终于搞定"), CUE("^搞定了"),
    CUE("全部完成"), CUE("都完成了"), CUE("都做完了"), CUE("全做完了"), CUE("都…完了$"),
    CUE("整个…完了$"), CUE("任务完成"), CUE("大功告成"), CUE("结项"), CUE("收工"),
    CUE("可以关了"), CUE("关了吧"), CUE("all done"), CUE("it's done"), CUE("is done now"),
    CUE("we're done"), CUE("we're finished"), CUE("task is complete"), CUE("task complete"),
    CUE("task is done"), CUE("whole…is finished|is done|is complete"), CUE("wrapped up"),
    CUE("wrap it up"), CUE("that's a wrap"), CUE("close this task"), CUE("close the task"),
    CUE("close it out"), CUE("mark it done"), CUE("mark it as done"),
    CUE("everything is done"), CUE("everything's done"), CUE("that's everything"),
    CUE("nothing else to|nothing left to|nothing more to"),
    CUE_END,
};

static const am__cue c_resume[] = {
    {"继续", NULL, L("再"), NULL}, CUE("恢复"), CUE("接着"), CUE("重新启动"), CUE("重新开始"),
    {"弄完|做完|写完|联系完", NULL, not_step, L("了")}, CUE("resume*"),
    {"continue", NULL, L("before we ", "before i "), NULL}, CUE("pick up where"),
    CUE("pick it up"), CUE("pick…back up"), CUE("let's finish"), CUE("finish the"),
    CUE("get back to"), CUE("back to the"), CUE("back on the"), CUE("unpause"),
    CUE("restart the"),
    CUE_END,
};

const am__lex_cues am__lex_task_status_rules[] = {
    {"cancelled", c_cancel}, {"paused", c_pause}, {"postponed", c_postpone},
    {"done", c_done}, {"active", c_resume},
};

/* A cancelled part replaced: the task goes on ("航班被取消了，帮我改签"). */
const am__cue am__lex_task_carry_on[] = {
    CUE("改签"), CUE("重新订"), CUE("换一班"), CUE("下一班"), CUE("换一家"), CUE("rebook"),
    CUE("重新"), CUE("改约"), CUE("book me on"), CUE("get me on|get us on|put me on|put us on"),
    CUE("the next one"), CUE("another one"), CUE("another flight"), CUE("a later one"),
    CUE_END,
};

/* Work that remains ("还差结论", "still need to add the charts"): the
 * turn finishes nothing, whatever the model reads (domain/task.c). */
const am__cue am__lex_task_unfinished[] = {
    CUE("还差"), CUE("还没"), CUE("还剩"), CUE("尚未"), CUE("还得"), CUE("还要"), CUE("还需要"),
    CUE("剩下的"), CUE("一半"), CUE("not yet"), CUE("still need*"), CUE("still have to"),
    CUE("still to"), CUE("left to"), CUE("remaining"), CUE("halfway"), CUE("half done"),
    CUE("yet to"),
    CUE_END,
};

static const am__cue s_drafting[] = {
    CUE("草稿"), CUE("初稿"), CUE("起草"), CUE("draft*"),
    CUE_END,
};

static const am__cue s_confirming[] = {
    CUE("请确认"), CUE("待确认"), CUE("确认一下"), CUE("发给…审|确认"), CUE("交给…审"),
    CUE("提交审"), CUE("送审"), CUE("等…确认|审|看一下|看看"), CUE("过目"), CUE("把关"),
    CUE("审批"), CUE("for review"), CUE("for your review"), CUE("for approval"),
    CUE("for sign-off"), CUE("please review"), CUE("review it"), CUE("review this"),
    CUE("review the draft"), CUE("review the numbers"), CUE("to confirm"), CUE("confirm the"),
    CUE("sign off"),
    CUE_END,
};

static const am__cue s_delivered[] = {
    CUE("已发送"), CUE("发出去了"), CUE("发出了"), CUE("已发出"), CUE("交付了"), CUE("已交付"),
    CUE("已经交付"), CUE("提交了"), CUE("已提交"), CUE("已经提交"), CUE("发过去了"), CUE("寄出"),
    CUE("已经发给…了$"), CUE("delivered it"), CUE("delivered the"), CUE("been delivered"),
    CUE("was delivered"), CUE("is delivered"), CUE("sent it"), CUE("have sent"),
    CUE("i've sent"), CUE("is sent"), CUE("was sent"), CUE("been sent"), CUE("sent out"),
    CUE("submitted"), CUE("went out"), CUE("gone out"), CUE("just sent"),
    CUE("emailed the|emailed it"), CUE("sent the…to"), CUE("forwarded the|forwarded it"),
    CUE("handed it over|handed over|passed it on"),
    CUE_END,
};

const am__lex_cues am__lex_task_stage_rules[] = {
    {"delivered", s_delivered}, {"confirming", s_confirming}, {"drafting", s_drafting},
};

const char *const am__lex_task_continuation_cues[] = {
    "上次", "接着", "继续", "那个任务", "之前那个", "之前的", "你还记得", "还记得",
    "刚才", "上回", "弄完", "last time", "continue", "resume", "pick up where",
    "where were we", "remember when", "do you remember", "let's finish",
    "finish the", "get back to", "earlier", "carry on", NULL};

/* The period a recurring task names (domain/round.c): its id, name or
 * text says how often it comes back ("周报", "monthly close", "daily
 * standup").  Only words of recurrence: "这周" or "this month" date one
 * piece of work, they do not make it periodic. */
static const am__cue p_day[] = {
    CUE("日报"), CUE("每日"), CUE("每天"), CUE("天天"), CUE("站会"), CUE("晨会"), CUE("日会"),
    CUE("daily"), CUE("every day"), CUE("each day"), CUE("every morning"), CUE("standup"),
    CUE("stand-up"), CUE("stand up meeting"), CUE("nightly"), CUE("day's report"),
    CUE_END,
};

static const am__cue p_week[] = {
    CUE("周报"), CUE("每周"), CUE("每个星期"), CUE("每星期"), CUE("每个礼拜"), CUE("每礼拜"),
    CUE("周会"), CUE("周总结"), CUE("周复盘"), CUE("周计划"), CUE("weekly"), CUE("every week"),
    CUE("each week"), CUE("week's report"), CUE("week's summary"), CUE("per week"),
    CUE_END,
};

static const am__cue p_month[] = {
    CUE("月报"), CUE("每月"), CUE("每个月"), CUE("月度"), CUE("月结"), CUE("月总结"),
    CUE("月复盘"), CUE("monthly"), CUE("every month"), CUE("each month"), CUE("month-end"),
    CUE("month end"), CUE("month's report"), CUE("per month"),
    CUE_END,
};

static const am__cue p_quarter[] = {
    CUE("季报"), CUE("季度"), CUE("每季"), CUE("quarterly"), CUE("every quarter"),
    CUE("each quarter"), CUE("qbr"),
    CUE_END,
};

static const am__cue p_year[] = {
    CUE("年报"), CUE("年度总结"), CUE("年终总结"), CUE("每年"), CUE("annual"), CUE("yearly"),
    CUE("every year"), CUE("each year"),
    CUE_END,
};

const am__lex_cues am__lex_task_period_rules[] = {
    {"day", p_day}, {"week", p_week}, {"month", p_month}, {"quarter", p_quarter},
    {"year", p_year},
};

/* Topic jumps without a task id (perceive/attribute.c): a turn that
 * opens with a marker of a new topic, after at most one interjection,
 * and goes on with a request. */
const char *const am__lex_topic_interjections[] = {
    "哦", "噢", "喔", "啊", "嗯", "诶", "哎", "好", "ok", "okay", "oh", "hey", "um", "uh",
    "right", NULL};

const char *const am__lex_topic_shift[] = {
    "另外", "顺便", "还有", "对了", "另一件事", "另一个事", "换个话题", "题外话", "说个别的",
    "说点别的", "再说个事", "还有个事", "还有件事", "此外", "除此之外", "also",
    "by the way", "btw", "separately", "on another note", "on a different note",
    "on an unrelated note", "unrelated", "side note", "one more thing", "another thing",
    "and also", "oh and", "while i have you", "switching gears", "changing the subject",
    "different topic", "on a separate note", "apart from that", "besides that", NULL};

/* A request in the words after the marker: a frame anywhere, or an English
 * turn that opens with a verb (its first word no sentence opener of
 * lexicon/abbrev.c). */
const char *const am__lex_request_frames[] = {
    "帮我", "帮忙", "请", "麻烦", "给我", "替我", "记得", "提醒我", "一下", "安排", "顺手",
    "please", "can you", "could you", "would you", "will you", "help me", "remind me",
    "i need you to", "i'd like you to", "i want you to", "let's", "make sure", "don't forget",
    NULL};

/* Han characters of grammar, not of a topic (的, 了, 一, 下, 我 ...): a
 * bigram holding one is no evidence that two turns share a topic. */
const char am__lex_han_function_chars[] =
    "的了一下个这那是在我你他她它们帮给把请要就都也还和与或被让吧吗呢啊么着过很太再又才能会可以"
    "将对从向为以及并而且但有没不别用做弄搞去来上中里后前些点么得地";
