/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexicon/distill_cues.c -- the distillation rule tables (distill/rules.c): long-term
 * markers and their context lists, the kinds, one-off and invalidation cues,
 * the guards (hypothetical, reported speech, someone else's subject) and the
 * key tables (topic + attribute -> logical key).
 *
 * To extend: add a labelled sentence to tests/corpus/distill.tsv first, then
 * the most general cue that fixes it, and run test_corpus.
 */
#include "text/lexicon/lexicon.h"

#define CUE(p) AM__CUE(p)
#define CUE_END AM__CUE(NULL)
#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---------------------------------------------------------- imperatives */

/* English imperatives: an instruction is being given ("Whenever a trip is
 * long, book ...", "This time send ...").  X-macro over the verbs. */
#define EN_VERBS(X)                                                                          \
    X("book") X("send") X("use") X("put") X("write") X("keep") X("add") X("reply") X("cc")  \
    X("schedule") X("remind") X("make") X("give") X("attach") X("round") X("list")          \
    X("include") X("skip") X("tell") X("call") X("email") X("order") X("choose") X("pick")  \
    X("avoid") X("format") X("sort") X("turn") X("mark") X("save") X("share") X("check")    \
    X("ask") X("do") X("copy") X("forward") X("translate") X("convert") X("summarize")      \
    X("notify") X("prepare") X("draft") X("flag") X("go with") X("stick to") X("get")      \
    X("set") X("move") X("leave") X("bring") X("let's") X("let me") X("stop")
#define EN_IMPERATIVE(v) {v, en_imperative_before, NULL, NULL},

/* ---------------------------------------------------------- context lists */

/* "三点以后", "下班以后", "开完会以后": 以后 after a point in time means
 * "after", not "from now on"; "不是说以后都…" denies the rule. */
static const char *const zh_lt_not_before[] = {
    "点", "天", "号", "日", "月", "年", "周", "班", "完", "会", "前", "之", "饭", "来", "了",
    "时", "钟", "分", "岁", "业", "学", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
    "不是", "不是说", "并不是", "并非", "不代表", "不等于", NULL};

/* "以后再说": deferring, not a rule. */
static const char *const zh_deferral[] = {
    "再说", "再聊", "再看", "再议", "再讨论", "再定", "再处理", "再弄", "再做", "的事", NULL};

/* "always" / "never" speak for the user only after these: "it always
 * rains" is weather, "I always fly economy" and "Always cc me" are rules. */
static const char *const en_rule_subject[] = {
    "^", "please ", "pls ", "i ", "we ", "you ", "just ", "and ", "but ", "so ", "then ",
    "should ", "must ", "to ", "will ", "can ", "could ", NULL};

/* ... and not after a narrative or a shared hope: "this book reminds me to
 * always pursue my dreams", "a nudge to always stay true to myself", "I'm
 * glad we can always count on each other" ("Remind me to always …" and
 * "You can always …" said to the assistant stay rules). */
static const char *const en_rule_narrative[] = {
    "reminds me to ", "reminded me to ", "reminding me to ", "a nudge to ", "inspires me to ",
    "inspired me to ", "encourages me to ", "encouraged me to ", "motivates me to ",
    "motivated me to ", "taught me to ", "teaches me to ", "pushes me to ", "helps me to ",
    "we can ", "we could ", "they can ", "they could ", NULL};

/* ... and "never" not before a past tense ("I never got the email"), an
 * idiom or a memory: "never give up", "I'll never forget that trip",
 * "never been so proud" ("never forget to cc me" stays a rule). */
static const char *const en_never_not[] = {
    " had", " got", " did", " was", " were", " went", " said", " told", " saw", " heard",
    " knew", " thought", " made", " took", " came", " used", " received", " liked",
    " wanted", " asked", " called", " replied", " sent", " found", " forgot", " mind",
    " give up", " gave up", " been", " forget that", " forget the", " forget how",
    " forget when", " forget what", " felt", " seen", " tried", " met", " played",
    " know", " say never", " quit", " let us down", " let me down", " shy away", NULL};

/* ... and "always" not before a past tense, a greeting or a trait: "Always here to help",
 * "Always happy to share", "always calm and peaceful". */
static const char *const en_always_not[] = {
    " had", " got", " did", " was", " were", " went", " said", " told", " saw", " heard",
    " knew", " thought", " made", " took", " came", " used", " received", " liked",
    " wanted", " asked", " called", " replied", " sent", " found", " forgot", " mind",
    " here", " there for", " happy", " glad", " good", " great", " nice", " fun", " up for",
    " a pleasure", " calm", " staying", " puts a smile", " cheer", NULL};

/* ... at the start of a clause, or right after a scope or softener. */
static const char *const en_imperative_before[] = {
    "^", "please ", "pls ", "just ", "time ", "now ", "once ", "today ", "then ", NULL};

/* ---------------------------------------------------------- long-term markers */

/* The user states how things are from now on. */
const am__cue am__lex_distill_long_term[] = {
    {"以后", NULL, zh_lt_not_before, zh_deferral},
    {"今后", NULL, zh_lt_not_before, NULL},
    {"往后", NULL, zh_lt_not_before, L("挪", "推", "延", "放", "拖", "调", "移", "顺")},
    CUE("从现在起"), CUE("从今以后"), CUE("从现在|从今天|从明天|从下|从这|从本|从今…开始|起"),
    CUE("一律"), CUE("永远"), CUE("始终"), CUE("长期"), CUE("不管"), CUE("无论"),
    CUE("任何时候"), CUE("绝对不"), CUE("千万"), CUE("底线"), CUE("原则上"), CUE("我的原则"),
    {"默认", NULL, NULL, L("设置", "值", "配置", "选项", "的")},
    CUE("from now on"), CUE("going forward"), CUE("from here on"), CUE("in future"),
    CUE("in the future"), CUE("henceforth"), CUE("by default"), CUE("as a rule"),
    CUE("standing rule"), CUE("no matter what"), CUE("whatever happens"),
    CUE("under no circumstances"), CUE("at all times"), CUE("moving forward"),
    CUE("from next…on"), CUE("from tomorrow on"), CUE("as of now"), CUE("as of today"),
    CUE("starting now"), CUE("my default"),
    {"the default", L("make this ", "make it ", "as ", "that's ", "be "), NULL, NULL},
    {"always", en_rule_subject, en_rule_narrative, en_always_not},
    {"never", en_rule_subject, en_rule_narrative, en_never_not},
    {"ever", L("don't ", "do not ", "never "), NULL, NULL},
    CUE_END,
};

/* Frequency words that are rules only when said to the assistant: "每次都帮我
 * 选国航" is one, "这个接口每次调用都超时" is a bug report. */
const am__cue am__lex_distill_frequency[] = {
    CUE("每次"), CUE("每回"), CUE("每一次"), CUE("每天"), CUE("每周"), CUE("每个月"),
    CUE("每月"), CUE("每年"), CUE("总是"), CUE("老是"), CUE("一直"), CUE("every time"),
    CUE("each time"), CUE("whenever"), CUE("every day"), CUE("every week"),
    CUE("every month"), CUE("every morning"), CUE("each week"),
    CUE_END,
};

const am__cue am__lex_distill_addressed[] = {
    CUE("给我"), CUE("帮我"), CUE("提醒我"), CUE("发我"), CUE("通知我"), CUE("告诉我"),
    CUE("请"), CUE("你"), CUE("记得"), CUE("都用"), CUE("都按"), CUE("都选"), CUE("都发"),
    CUE("都订"), CUE("都写"), CUE("都放"), CUE("都要"), CUE("都帮"), CUE("都给"),
    CUE("you"), CUE("me"), CUE("please"), CUE("make sure"), EN_VERBS(EN_IMPERATIVE)
    CUE_END,
};

/* Comparatives, standing choices and habits in the user's own voice
 * ("我更喜欢", "I prefer").  A plain liking ("我喜欢简短的",
 * "I like short answers") is a weak signal: semantic/promote.c keeps it
 * once it is said twice.  "我最喜欢这个方案" judges the piece of work
 * at hand: feedback, not a standing preference. */
static const char *const zh_this[] = {"这", "那", "你", "他", "她", NULL};

const am__cue am__lex_distill_preference_verbs[] = {
    {"我比较喜欢", NULL, NULL, zh_this}, {"我更喜欢", NULL, NULL, zh_this},
    {"我最喜欢", NULL, NULL, zh_this}, CUE("我…偏好|倾向|习惯"), CUE("我偏爱"), CUE("我平时"),
    CUE("我一般"), CUE("我通常"), CUE("我向来"), CUE("我从来不"), CUE("i prefer"), CUE("i'd prefer"),
    CUE("i would prefer"), CUE("i'd rather"), CUE("i would rather"), CUE("my preference"),
    CUE("i'd much rather|i'd really rather|i'd still rather|i much prefer|i really prefer|"
        "i strongly prefer|i'd much prefer|i'd really prefer|i definitely prefer|i do prefer"),
    CUE("my favorite"), CUE("my favourite"), CUE("i usually"), CUE("i generally"),
    CUE("i normally"), CUE("i tend to"), CUE("i'm used to"),
    CUE_END,
};

/* "Remember this": a request to keep what follows. */
const am__cue am__lex_distill_remember[] = {
    CUE("记住"), CUE("记好了"), CUE("remember that"), CUE("remember:"),
    CUE("please remember"), CUE("remember i"), CUE("remember my"), CUE("keep in mind"),
    CUE("keep that in mind"), CUE("bear in mind"), CUE("for future reference"),
    CUE("note that i"), CUE("don't forget that"),
    CUE_END,
};

/* ---------------------------------------------------------- kinds */

/* Constraints: musts, must-nots and limits.  别 is "don't" unless it is part
 * of a word (特别, 区别, 别人 ...). */
static const char *const zh_bie_words[] = {
    "特", "区", "分", "类", "级", "告", "识", "派", "性", "个", "辨", "差", "送", "道", NULL};

const am__cue am__lex_distill_constraint_cues[] = {
    CUE("不要"), {"别", NULL, zh_bie_words, L("人", "的", "处", "扭")}, CUE("不能"),
    CUE("不可以"), CUE("禁止"), CUE("必须"), CUE("务必"), CUE("一定要"), CUE("不许"),
    CUE("不得"), CUE("不准"), CUE("不超过"), CUE("至少"), CUE("最多"), CUE("避开"),
    CUE("避免"), CUE("只能"), CUE("严禁"), CUE("以内"), CUE("控制在"), CUE("不多于"),
    CUE("不少于"), CUE("上限"), CUE("所有…都要|都必须|都得"), CUE("一律不"), CUE("从不"),
    {"don't", NULL, L("i ", "we "), NULL}, CUE("do not"),
    {"never", en_rule_subject, en_rule_narrative, en_never_not}, CUE("must"), CUE("mustn't"),
    CUE("no more than"), CUE("at most"), CUE("at least"), CUE("avoid*"),
    CUE("under no circumstances"), CUE("not allowed"), CUE("no exceptions"),
    CUE("without my approval"), CUE("keep…under|below|within"), CUE("stay under|stay below"),
    CUE("less than"), CUE("fewer than"), CUE("no later than"),
    CUE("^no…before|after|during|on weekends"),
    CUE_END,
};

/* Facts about the user: identity, home, work, family, health, diet. */
const am__cue am__lex_distill_profile_cues[] = {
    {"我叫", NULL, NULL, L("了", "你", "他", "她", "车", "外卖")}, CUE("我的名字"),
    {"叫我", NULL, NULL, L("起", "一声", "去", "来")}, CUE("我家在"), CUE("我家住"),
    CUE("我…住在"), CUE("我老家"), CUE("我的生日"), CUE("我生日"), CUE("我是做"),
    CUE("我的工号|我的邮箱|我的手机号|我的电话|我的地址"),
    CUE("我是…人$"), CUE("我在…工作"), CUE("我在…上班"), CUE("我在…任职"), CUE("我负责"),
    CUE("我女儿"), CUE("我儿子"), CUE("我孩子"), CUE("我老婆"), CUE("我老公"), CUE("我爱人"),
    CUE("我太太"), CUE("我媳妇"), CUE("我父母"), CUE("过敏"), CUE("高血压"), CUE("糖尿病"),
    CUE("哮喘"), CUE("我吃素"), CUE("素食"), CUE("我不吃"), CUE("我不能吃"), CUE("忌口"),
    CUE("左撇子|近视|色盲|怀孕|孕期|不喝酒|不抽烟|戒酒|戒烟"), CUE("我妈|我爸|我母亲|我父亲"),
    CUE("我家有|我们家有|家里有"),
    CUE("我是…经理|总监|负责人|主管|工程师|设计师|会计|老师|医生|律师|学生|老板|创始人"),
    CUE("我的领导"), CUE("我的上司"), CUE("直属领导"), CUE("我每…都有"),
    CUE("my name is"), CUE("my name's"),
    {"call me", NULL, NULL,
     L(" back", " tomorrow", " at", " when", " later", " if", " on", " after", " before")},
    CUE("i live in"), CUE("i'm based in"), CUE("i am based in"), CUE("i live near"),
    CUE("i moved to"), CUE("my office"), CUE("i head|i lead|i manage|i run the"),
    CUE("intolerant"), CUE("i don't drink|i don't eat|i don't smoke"),
    CUE("my mother|my father|my mom|my dad|my parents"),
    CUE("i'm the|i am the|i'm a|i am a|i'm an|i am an…lead|manager|head|director|engineer|"
        "designer|developer|analyst|accountant|consultant|officer|owner|founder|teacher|"
        "nurse|lawyer|student"),
    CUE("my birthday"), CUE("i was born"), CUE("i work at"), CUE("i work for"),
    CUE("i work as"), CUE("i work in"), CUE("i work on"), CUE("my job is"),
    CUE("my role is"), CUE("my title is"), CUE("i'm responsible for"),
    CUE("i am responsible for"), CUE("i'm in charge of"), CUE("allergic to"),
    CUE("i'm vegetarian"), CUE("i am vegetarian"), CUE("i'm vegan"), CUE("i'm diabetic"),
    CUE("i am diabetic"), CUE("i have diabetes"), CUE("my wife"), CUE("my husband"),
    CUE("my partner"), CUE("my daughter"), CUE("my son"), CUE("my kids"),
    CUE("my children"), CUE("my dentist"), CUE("my doctor"), CUE("remember that my"),
    CUE("we have|i have…kids|daughter*|son|sons|children"),
    CUE_END,
};

/* A fact about today is not a profile: "我今天住在公司附近". */
/* A state of the past, over now ("I used to live in Boston", "以前在北京
 *上班"): the learned reading never keeps it as lasting */
const am__cue am__lex_distill_past_state[] = {
    CUE("used to"), CUE("back then"), CUE("back when"), CUE("when i was"), CUE("as a kid"),
    CUE("growing up"), CUE("以前"), CUE("曾经"), CUE("小时候"), CUE("那时候"), CUE("那会儿"),
    CUE("以前是"), CUE("從前"), CUE("以往"),
    CUE_END,
};

const am__cue am__lex_distill_transient[] = {
    CUE("今天"), CUE("明天"), CUE("昨天"), CUE("今晚"), CUE("明早"), CUE("这周"), CUE("本周"),
    CUE("下周"), CUE("这几天"), CUE("刚才"), CUE("刚刚"), CUE("today"), CUE("tomorrow"),
    CUE("tonight"), CUE("yesterday"), CUE("this week"), CUE("next week"), CUE("right now"),
    CUE("this morning"), CUE("this afternoon"),
    CUE_END,
};

/* ---------------------------------------------------------- one-off */

/* Scoped to this piece of work whatever follows. */
const am__cue am__lex_distill_one_off_strong[] = {
    CUE("就这一次"), CUE("只这一次"), CUE("仅此一次"), CUE("just this once"),
    CUE("only this once"), CUE("this once"), CUE("only this time"), CUE("for today only"), CUE("for this one"),
    CUE("temporarily"), CUE("this time only"), CUE("^for…only"),
    CUE_END,
};

/* Scoped only when an instruction follows: "这次用要点式就行" is one,
 * "这次出差挺顺利的" is a remark. */
const am__cue am__lex_distill_one_off_weak[] = {
    CUE("这次"), CUE("这一次"), CUE("本次"), CUE("这回"), CUE("这一回"), CUE("今天先"),
    {"临时", NULL, NULL, L("工", "有", "通知", "决定", "起意")}, CUE("暂时"),
    CUE("今天就"), CUE("这周先"), CUE("这一版|这一轮"), CUE("this time"),
    CUE("just for"), CUE("this one"), CUE("on this"), CUE("today's|tonight's"),
    {"for now", NULL, L("all ", "it ", "that's "), NULL}, CUE("for this"),
    CUE("for the moment"), CUE("for the time being"),
    CUE_END,
};

const am__cue am__lex_distill_directive[] = {
    CUE("就行"), CUE("就好"), CUE("就可以"), CUE("吧"), CUE("只要"), CUE("只用"), CUE("不用"),
    CUE("不要"), CUE("别"), CUE("先"), CUE("可以"), CUE("改"), CUE("请"), CUE("帮我"),
    CUE("给我"), {"用", NULL, NULL, L("了")}, CUE("就不"), CUE("换"), CUE("按"), CUE("没关系"),
    CUE("也行"), CUE("无所谓"), CUE("选"), CUE("please"), CUE("let's"), CUE("we can"),
    CUE("you can"), CUE("can be"), CUE("i'd like"), CUE("i want"), CUE("no need"),
    CUE("don't"), CUE("is fine"), CUE("is ok"), CUE("instead"), EN_VERBS(EN_IMPERATIVE)
    CUE_END,
};

/* ---------------------------------------------------------- invalidation */

/* Withdrawals that name what they withdraw. */
const am__cue am__lex_distill_retract_self[] = {
    CUE("我不再"), CUE("我已经不"), CUE("忘掉我"), CUE("忘了我说"), CUE("之前说的…不算"),
    CUE("撤销之前"), CUE("取消之前"), CUE("i no longer"), CUE("i don't…anymore"),
    CUE("i don't…any more"), CUE("i'm not…anymore"), CUE("i am not…anymore"),
    CUE("we don't…anymore"), CUE("we no longer"), CUE("forget what i"), CUE("forget i said"),
    CUE("ignore what i"), CUE("disregard what i"), CUE("ignore my earlier"),
    CUE("ignore my previous"), CUE("cancel my earlier"), CUE("cancel my previous"),
    CUE("stop *ing"), CUE("no more *ing"), CUE("i'm no longer"), CUE("i am no longer"),
    CUE("we're no longer"),
    /* a manner withdrawn: "周报不用分三段了", "不用抄送他了" */
    CUE("不用分|不用放|不用附|不用加|不用标|不用按|不用写成|不用抄送|不用提醒|不用单独|"
        "不用特意|不用非得|不用每次|不需要分|不需要放|不需要附|不需要加|不需要抄送…了$"),
    CUE_END,
};

/* Withdrawals that need a target: "结论不用放前面了" withdraws a rule,
 * "酒店不用订了" cancels a booking, "谢谢，不用了" declines an offer. */
const am__cue am__lex_distill_retract[] = {
    CUE("不用再"), CUE("不需要再"), CUE("不再需要"), CUE("不再"), CUE("以后不用"),
    CUE("以后不需要"), CUE("不用…了$"), CUE("不需要…了$"), CUE("不必…了$"), CUE("就不用了"),
    CUE("作废"), CUE("不算了"), CUE("别再按"), CUE("别再照"), CUE("no longer"),
    CUE("anymore"), CUE("any more"), CUE("never mind the"), CUE("scrap that"),
    CUE("scrap the rule"), CUE("drop the rule"), CUE("doesn't hold"), CUE("doesn't apply"),
    CUE("forget about my"), CUE("forget my"), CUE("no need to"), CUE("is gone"),
    CUE_END,
};

/* Verbs that withdraw only when their object is the earlier instruction:
 * "之前那个规矩取消吧" withdraws, "以后会议取消了要通知我" is a rule about
 * meetings. */
const am__cue am__lex_distill_retract_verbs[] = {
    CUE("取消"), CUE("撤销"), CUE("删掉"), CUE("删了"), CUE("忘掉"), CUE("忘了"), CUE("去掉"),
    CUE("拿掉"), CUE("别再"), CUE("disregard"), CUE("withdraw"), CUE("forget"),
    CUE_END,
};

/* The earlier instruction itself. */
const am__cue am__lex_distill_retract_reference[] = {
    CUE("之前"), CUE("以前说"), CUE("那条"), CUE("要求"), CUE("规矩"), CUE("规则"),
    CUE("偏好"), CUE("习惯"), CUE("说的"), CUE("那个"), CUE("设置"), CUE("限制"), CUE("优先"),
    CUE("rule"), CUE("requirement"), CUE("preference"), CUE("instruction"), CUE("request"),
    CUE("limit"), CUE("policy"),
    CUE("what i said"), CUE("what i told"), CUE("earlier"), CUE("previous"),
    CUE("setting"), CUE("habit"),
    CUE_END,
};

/* A routine aimed at the user ("不用再给我发日报了", "no need to remind me"). */
const am__cue am__lex_distill_retract_routine[] = {
    CUE("给我"), CUE("提醒我"), CUE("发我"), CUE("me"),
    CUE_END,
};

const am__cue am__lex_distill_hypothetical[] = {
    CUE("如果"), CUE("假如"), CUE("要是"), CUE("万一"), CUE("假设"), CUE("倘若"),
    {"if", NULL, L("even ", "as "), NULL}, CUE("suppose"), CUE("supposing"), CUE("what if"),
    CUE("imagine"), CUE("hypothetically"), CUE("in case"), CUE("assuming"),
    CUE_END,
};

/* ---------------------------------------------------------- guards */

/* A wish about an unreal world: guards whatever clause it is in. */
const am__cue am__lex_distill_subjunctive[] = {
    CUE("会不会"), CUE("会更好"), CUE("会好一点"), CUE("是不是更好"), CUE("would it"),
    CUE("would the"), CUE("would that"), CUE("wouldn't it"), CUE("would be better"),
    CUE_END,
};

/* Someone else's words or wishes ("老板说以后都要用PDF", "My boss said that
 * from now on ..."). */
const am__cue am__lex_distill_reported[] = {
    CUE("他说"), CUE("她说"), CUE("他们说"), CUE("她们说"), CUE("老板说"), CUE("领导说"),
    CUE("同事说"), CUE("客户说"), CUE("经理说"), CUE("总监说"), CUE("主管说"), CUE("老师说"),
    CUE("医生说"), CUE("妈说"), CUE("爸说"), CUE("对方说"), CUE("财务说"), CUE("公司说"),
    CUE("听说"), CUE("据说"), CUE("说是"), CUE("老板要求"), CUE("领导要求"), CUE("公司要求"),
    CUE("客户要求"), CUE("经理要求"), CUE("上面要求"), CUE("老板让"), CUE("领导让"),
    CUE("经理让"), CUE("医生让"), CUE("医生建议"),
    {"老板|领导|同事|客户|经理|总监|主管|老师|医生|对方|财务|公司|法务|行政|人事|hr|他们|她们|"
     "上面…说|要求|让|建议|觉得",
     NULL, NULL, L("明", "服", "话", "清")},
    {"要求以后|要求我|要求大家|要求所有|要求每|要求必须", NULL, L("我"), NULL},
    {"said", NULL, L("i ", "you ", "as i ", "like i "), NULL}, CUE("says"), CUE("told me"),
    CUE("told us"), CUE("tells me"), CUE("asked me to"), CUE("asked us to"),
    CUE("wants me to"), CUE("wants us to"), CUE("wants the team"), CUE("according to"),
    {"mentioned", NULL, L("i ", "as i ", "like i "), NULL}, CUE("thinks that"),
    CUE("suggested that"),
    CUE_END,
};

/* Someone else as the subject of the sentence: "她以后不来上班了", "我们老板
 * 总是临时改需求", "He always sends the numbers late". */
const am__cue am__lex_distill_other_subject[] = {
    {"他|她|它|他们|她们|老板|领导|同事|客户|经理|我们老板|我们领导|he|she|they", NULL, NULL,
     /* "客户数据不得外传": the customer's data is the subject, not the customer */
     L("的", "资料", "数据", "信息", "名单", "名称", "名字", "隐私", "合同", "订单", "端", "侧", "方",
       "群")},
    CUE_END,
};

/* ---------------------------------------------------------- key tables */

/* Logical keys: topic + attribute ("周报" + "三段" -> report.structure).
 * English words match whole words; '*' takes plurals and inflections. */
static const am__cue t_report[] = {
    CUE("周报|日报|月报|报告|汇报|report*"), CUE_END};

static const am__cue t_meeting[] = {CUE("会议|开会|例会|meeting*"), CUE_END};

static const am__cue t_email[] = {CUE("邮件|email*|e-mail*|mail"), CUE_END};

static const am__cue t_travel[] = {
    CUE("出差|行程|机票|酒店|travel*|trip*|flight*|hotel*"), CUE_END};

static const am__cue t_reply[] = {CUE("回复|回答|回我|answer*|repl*|respond*"), CUE_END};

static const am__cue t_data[] = {CUE("数据|资料|信息|data"), CUE_END};

static const am__cue t_code[] = {CUE("代码|code"), CUE_END};

static const am__cue t_food[] = {
    CUE("吃|饮食|咖啡|茶|food|coffee|tea|meal*|lunch*|dinner*"), CUE_END};

const am__lex_cues am__lex_distill_topics[] = {
    {"report", t_report}, {"meeting", t_meeting}, {"email", t_email},
    {"travel", t_travel}, {"code", t_code}, {"food", t_food},
    {"data", t_data}, {"reply", t_reply},
};

static const am__cue a_format[] = {
    CUE("格式|pdf*|excel|word|ppt*|表格|要点|markdown|format*|bullet*|spreadsheet*"), CUE_END};

static const am__cue a_structure[] = {
    CUE("三段|两段|分段|结构|部分|章节|section*|structure*|part|parts"), CUE_END};

static const am__cue a_order[] = {
    CUE("最前面|放前面|开头|先写|结论|first|top|at the end|last"), CUE_END};

static const am__cue a_language[] = {
    CUE("中文|英文|英语|chinese|english|german|french|language*"), CUE_END};

static const am__cue a_length[] = {
    CUE("简短|简洁|详细|字以内|short*|brief|concise|detailed|length|one page|pages"), CUE_END};

static const am__cue a_time[] = {
    CUE("上午|下午|晚上|点前|时间|morning*|afternoon*|evening*|before noon"), CUE_END};

static const am__cue a_channel[] = {
    CUE("微信|钉钉|飞书|短信|电话|wechat|slack|sms|phone"), CUE_END};

static const am__cue a_interaction[] = {
    CUE("一次性|一条条|别问|问我|打扰|piecemeal|one go|ask me|at once|one by one"), CUE_END};

static const am__cue a_tone[] = {CUE("语气|正式|口语|tone|formal|casual|informal"), CUE_END};

static const am__cue a_summary[] = {
    CUE("摘要|汇总|总结|summar*|digest*|recap*"), CUE_END};

static const am__cue a_recipients[] = {CUE("抄送|cc*"), CUE_END};

static const am__cue a_currency[] = {
    CUE("人民币|美元|美金|欧元|rmb|usd|dollar*|euro*"), CUE_END};

static const am__cue a_reminder[] = {CUE("提醒|remind*"), CUE_END};

const am__lex_cues am__lex_distill_attributes[] = {
    {"format", a_format}, {"structure", a_structure}, {"order", a_order},
    {"language", a_language}, {"length", a_length}, {"channel", a_channel},
    {"interaction", a_interaction}, {"tone", a_tone}, {"time", a_time},
    {"summary", a_summary}, {"recipients", a_recipients}, {"currency", a_currency},
    {"reminder", a_reminder},
};

/* The frame of a Chinese long-term statement's subject: "以后<subject>都…"
 * (distill/rules.c, zh_subject). */
const char *const am__lex_distill_subject_starts[] = {"以后", "今后", "往后", NULL};

const char *const am__lex_distill_subject_ends[] = {"都", "一律", "全部", "统一", NULL};

/* The keys of a profile fact: profile.name, .home, .birthday, .job. */
static const am__cue p_name[] = {CUE("我叫|我的名字|my name|call me"), CUE_END};

static const am__cue p_home[] = {CUE("我…住在"),
                                 CUE("我家在|我家住|i live in|i'm based in|i moved to"), CUE_END};

static const am__cue p_bday[] = {CUE("生日|birthday"), CUE_END};

static const am__cue p_job[] = {CUE("i work*|我负责|responsible|我是做"), CUE("我在…工作|上班|任职"),
                                CUE_END};

const am__lex_cues am__lex_distill_profile_keys[] = {
    {"name", p_name}, {"home", p_home}, {"birthday", p_bday}, {"job", p_job}};

/* ---------------------------------------------------------- references */

/* A sentence that only points at what was just said (distill/rules.c,
 * am__distill_reference): one of these cues and nothing of its own
 * besides the fillers below.  "以后都这样" makes the preceding one-off
 * lasting, "以后不用这样了" withdraws the rule stated last, "记住这个"
 * keeps the preceding turn. */
const am__cue am__lex_distill_ref_promote[] = {
    CUE("以后都这样|以后也这样|以后就这样|以后一直这样|以后都这么|以后也这么|以后就这么"),
    CUE("以后都按这个|以后就按这个|以后都照这个|以后就照这个|以后都照这样|以后都按这样"),
    CUE("今后都这样|今后也这样|今后就这样|以后每次都这样|每次都这样|一直这样吧"),
    CUE("以后都…这样|以后都…这么|以后都…这个来"), CUE("就这么定了…以后"),
    CUE("keep it that way|keep it like that|keep it like this|keep doing that|keep doing it"),
    CUE("do it that way…from now on|always|every time|going forward"),
    CUE("do that…from now on|every time|always|going forward"),
    CUE("like that from now on|like this from now on|that way from now on"),
    CUE("make that the default|make it the default|make this the default"),
    CUE("always do it like that|always do it like this|always do that"),
    CUE("same from now on|same going forward|same every time"),
    CUE_END,
};

const am__cue am__lex_distill_ref_retract[] = {
    CUE("以后不用这样|以后不要这样|以后别这样|以后不必这样|以后不需要这样|以后不用再这样"),
    CUE("不用这样了|不要这样了|别这样了|不必这样了|不需要这样了|不用再这样了|不用这么做了"),
    CUE("以后不用这么|以后不要这么|以后别这么|这个不用了|那个不用了|不用这个了|这条取消"),
    CUE("no need to do that|no need for that|no need to do it"),
    CUE("don't do that…anymore|any more|again"), CUE("don't need that anymore"),
    CUE("stop doing that|stop doing it|you can stop that|quit doing that"),
    CUE("forget that rule|drop that rule|scrap that rule|that's no longer needed"),
    CUE("not needed anymore|no longer needed|not necessary anymore"),
    CUE_END,
};

const am__cue am__lex_distill_ref_remember[] = {
    CUE("记住这个|记住这一点|记住这点|记住这条|记住那个|记住这些|记住它|记住了吗"),
    CUE("记下来|记一下|记下这个|把这个记下|把这个记住|帮我记住|帮我记下|记着这个|记好"),
    CUE("remember that|remember this|remember it"), CUE("note that down|note this down|note it down"),
    CUE("keep that in mind|keep this in mind|make a note of that|make a note of this"),
    CUE("save that|save this|write that down|write this down|don't forget that|don't forget this"),
    CUE_END,
};

/* What a reference-only sentence may hold besides its cue: politeness,
 * particles, agreement. */
const char *const am__lex_distill_ref_fillers[] = {
    "好的", "好吧", "好", "行", "嗯", "哦", "噢", "对", "那", "就", "请", "麻烦", "帮我", "你",
    "吧", "啊", "呀", "哈", "啦", "了", "嘛", "呢", "谢谢", "也", "来", "其实", "算了", "以后",
    "今后", "都", "一直", "每次",
    "okay", "ok", "yes", "yeah", "sure", "great", "good", "fine", "cool", "and", "so", "then",
    "please", "pls", "just", "also", "let's", "lets", "let", "us", "thanks", "thank", "you",
    "alright", "right", "perfect", "nice", "hey", "oh", "well", "actually", "anyway", "hmm",
    "can", "now", "from now on", "going forward", "in future", "in the future", "every time",
    "always", "anymore", "any more", NULL,
};
