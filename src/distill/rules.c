/*
 * rules.c -- the distillation rule tables and their matcher.  See rules.h.
 * To extend: add cue phrases to a table (normalised: lower case, half-width)
 * and a labelled sentence to tests/corpus; keep hard negatives in mind.
 */
#include "distill/rules.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------- cue tables */

/* Long-term markers: the user states how things should be from now on. */
static const char *const persist_cues[] = {
    "以后", "今后", "往后", "从现在起", "从现在开始", "从今以后", "从今天起",
    "每次都", "每次", "一律", "默认", "记住", "请记住",
    "我更喜欢", "我比较喜欢", "我偏好", "我习惯", "我一般", "一直都", "总是",
    "from now on", "going forward", "in the future", "in future",
    "always ", "remember that", "remember:", "please remember", "i prefer",
    "i'd prefer", "i would prefer", "i'd rather", "by default", "every time",
    "each time", "never ", "make sure to always", "keep in mind",
    NULL,
};

/* Constraint markers: the statement restricts what the agent may do. */
static const char *const constraint_cues[] = {
    "不要", "别再", "别问", "别用", "别发", "别给", "别写", "不能", "不可以", "禁止", "必须", "务必", "一定要", "不许",
    "不超过", "至少", "don't", "do not", "never", "must", "no more than",
    "at most", "at least", "avoid",
    NULL,
};

/* Profile facts stated by the user about themself. */
static const char *const profile_cues[] = {
    "我叫", "我的名字是", "我住在", "我的生日", "我是做", "我负责",
    "my name is", "call me ", "i live in", "my birthday", "i work at",
    "i work as", "i'm responsible for", "i am responsible for",
    NULL,
};

/* One-off: applies to this time only. */
static const char *const one_off_cues[] = {
    "这次", "这一次", "本次", "这回", "这一回", "今天先", "临时", "暂时",
    "just this once", "this time", "only this once", "for this one",
    "just for today", "for now", "this once",
    NULL,
};

/* A one-off turned into a rule: "以后都这样" / "from now on do it like this". */
static const char *const one_off_overrides[] = {
    "以后都", "以后也", "以后就", "今后都", "每次都", "从现在起", "from now on",
    "going forward", "always", "every time", "in the future",
    NULL,
};

/* Invalidation of an earlier statement. */
static const char *const invalidate_cues[] = {
    "不用再", "不再需要", "不需要再", "以后不用", "以后不需要", "不用这样了",
    "作废", "取消之前", "之前说的不算", "忘掉我说", "忘了我说", "别再按",
    "no longer", "not anymore", "any more", "anymore", "stop doing",
    "forget what i said", "ignore what i said", "ignore my earlier",
    "scrap that rule", "don't need to",
    NULL,
};

/* Guards: hard negatives that stop PERSIST / INVALIDATE. */
static const char *const hypothetical_cues[] = {
    "如果", "假如", "要是", "假设", "万一", "if ", "suppose", "what if",
    "imagine", "hypothetically",
    NULL,
};
static const char *const reported_cues[] = {
    "他说", "她说", "他们说", "同事说", "老板说", "说过", "he said", "she said",
    "they said", "told me", "says that", "said that",
    NULL,
};
static const char *const question_starts[] = {
    "do i ", "did i ", "what ", "which ", "how ", "why ", "when ", "where ",
    "who ", "can you tell", "是不是", "有没有", "我是不是",
    NULL,
};

/* ---------------------------------------------------------- key tables */

typedef struct key_entry {
    const char *name;
    const char *const *cues;
} key_entry;

static const char *const t_report[] = {"周报", "日报", "月报", "报告", "汇报", "weekly report", "report", NULL};
static const char *const t_meeting[] = {"会议", "开会", "例会", "meeting", NULL};
static const char *const t_email[] = {"邮件", "email", "e-mail", "mail", NULL};
static const char *const t_travel[] = {"出差", "行程", "机票", "酒店", "travel", "trip", "flight", "hotel", NULL};
static const char *const t_reply[] = {"回复", "回答", "回我", "answer", "reply", "respond", NULL};
static const char *const t_data[] = {"数据", "资料", "信息", "data", NULL};
static const char *const t_code[] = {"代码", "code", NULL};
static const char *const t_food[] = {"吃", "饮食", "咖啡", "茶", "food", "coffee", "tea", "meal", NULL};
static const key_entry topics[] = {
    {"report", t_report}, {"meeting", t_meeting}, {"email", t_email},
    {"travel", t_travel}, {"code", t_code}, {"food", t_food},
    {"data", t_data}, {"reply", t_reply},
};

static const char *const a_format[] = {"格式", "pdf", "excel", "word", "ppt", "表格", "要点", "markdown", "format", "bullet", "spreadsheet", NULL};
static const char *const a_structure[] = {"三段", "两段", "分段", "结构", "部分", "章节", "section", "structure", "part", NULL};
static const char *const a_order[] = {"最前面", "放前面", "开头", "先写", "结论", "first", "top", "order", NULL};
static const char *const a_language[] = {"中文", "英文", "英语", "chinese", "english", "language", NULL};
static const char *const a_length[] = {"简短", "简洁", "详细", "字以内", "short", "brief", "concise", "detailed", "length", NULL};
static const char *const a_time[] = {"上午", "下午", "晚上", "点前", "时间", "morning", "afternoon", "evening", "time", NULL};
static const char *const a_channel[] = {"微信", "钉钉", "飞书", "短信", "电话", "wechat", "slack", "sms", "phone", NULL};
static const char *const a_interaction[] = {"一次性", "一条条", "别问", "问我", "打扰", "piecemeal", "one go", "ask me", "at once", NULL};
static const char *const a_tone[] = {"语气", "正式", "口语", "tone", "formal", "casual", NULL};
static const key_entry attributes[] = {
    {"format", a_format}, {"structure", a_structure}, {"order", a_order},
    {"language", a_language}, {"length", a_length}, {"channel", a_channel},
    {"interaction", a_interaction}, {"tone", a_tone}, {"time", a_time},
};

static const char *pick(const key_entry *t, size_t n, const char *s,
                        size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (am__cue_any(s, len, t[i].cues)) return t[i].name;
    return NULL;
}

static void make_key(const char *norm, size_t n, const char *kind,
                     char out[96])
{
    const char *topic = pick(topics, sizeof topics / sizeof *topics, norm, n);
    const char *attr = pick(attributes, sizeof attributes / sizeof *attributes,
                            norm, n);
    if (strcmp(kind, "profile") == 0) {
        static const char *const p_name[] = {"我叫", "我的名字", "my name", "call me", NULL};
        static const char *const p_home[] = {"我住在", "i live in", NULL};
        static const char *const p_bday[] = {"生日", "birthday", NULL};
        static const char *const p_job[] = {"i work", "我负责", "responsible", "我是做", NULL};
        static const key_entry prof[] = {{"name", p_name}, {"home", p_home},
                                         {"birthday", p_bday}, {"job", p_job}};
        const char *p = pick(prof, sizeof prof / sizeof *prof, norm, n);
        if (p) {
            snprintf(out, 96, "profile.%s", p);
            return;
        }
    }
    if (attr) {
        snprintf(out, 96, "%s.%s", topic ? topic : "general", attr);
        return;
    }
    /* No known attribute: a key of its own. */
    snprintf(out, 96, "%s.%s.%08x", topic ? topic : "general", kind,
             (unsigned)(am__hash64(norm, n) & 0xffffffffu));
}

/* ---------------------------------------------------------- matcher */

static int is_question(const char *s, size_t n)
{
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '.')) n--;
    if (n >= 1 && s[n - 1] == '?') return 1;
    if (n >= 3 && (memcmp(s + n - 3, "吗", 3) == 0 || memcmp(s + n - 3, "呢", 3) == 0))
        return 1;
    for (size_t i = 0; question_starts[i]; i++) {
        size_t m = strlen(question_starts[i]);
        if (n >= m && memcmp(s, question_starts[i], m) == 0) return 1;
    }
    return 0;
}

void am__distill_sentence(const char *norm, size_t n, am__distill *out)
{
    memset(out, 0, sizeof *out);
    out->action = AM__D_NONE;
    if (n == 0) return;
    const char *guard = NULL;
    if (am__cue_any(norm, n, hypothetical_cues)) guard = "hypothetical";
    else if (am__cue_any(norm, n, reported_cues)) guard = "reported_speech";
    else if (is_question(norm, n)) guard = "question";

    int persist = am__cue_any(norm, n, persist_cues);
    int one_off = am__cue_any(norm, n, one_off_cues);
    int invalidate = am__cue_any(norm, n, invalidate_cues);

    if (invalidate && !guard) {
        out->action = AM__D_INVALIDATE;
        out->rule = "invalidate";
        return;
    }
    if (one_off && !am__cue_any(norm, n, one_off_overrides)) {
        /* Even under a guard a one-off stays harmless: it only notes. */
        if (!guard) {
            out->action = AM__D_ONE_OFF;
            out->rule = "one_off";
        } else {
            out->guard = guard;
        }
        return;
    }
    int profile = am__cue_any(norm, n, profile_cues);
    if (!persist && !profile) return;
    if (guard) {
        out->guard = guard;
        return;
    }
    out->action = AM__D_PERSIST;
    if (persist) {
        out->kind = am__cue_any(norm, n, constraint_cues) ? "constraint" : "preference";
        out->rule = out->kind[0] == 'c' ? "persist_constraint" : "persist_preference";
        out->confidence = 0.85;
    } else {
        out->kind = "profile";
        out->rule = "profile_fact";
        out->confidence = 0.8;
    }
    make_key(norm, n, out->kind, out->key);
}

void am__distill_follow(const char *norm, size_t n, const am__distill *prev,
                        am__distill *out)
{
    if (prev->action != AM__D_PERSIST || out->action != AM__D_NONE || out->guard)
        return;
    if (strcmp(prev->kind, "profile") == 0) return;
    if (!pick(attributes, sizeof attributes / sizeof *attributes, norm, n)) return;
    out->action = AM__D_PERSIST;
    out->kind = am__cue_any(norm, n, constraint_cues) ? "constraint" : prev->kind;
    out->rule = "persist_follow";
    out->confidence = prev->confidence - 0.05;
    make_key(norm, n, out->kind, out->key);
}
