/*
 * task.c -- the cue-pattern matcher (see task.h) and the cue tables for
 * task state changes and continuation.
 *
 * State detection (F6), measured on tests/corpus/distill.tsv:
 *  1. guards: a hypothetical ("如果明天下雨就取消"), a question ("要不要推迟？"),
 *     a standing rule ("以后会议取消了要通知我") or a reference to an earlier
 *     instruction ("之前那个规矩取消吧") announces no change;
 *  2. each status and stage table is scanned for its rightmost cue that is
 *     not negated ("不要取消", "hasn't been sent"); the rightmost cue of all
 *     wins, since the main verb comes last ("搁置的那个项目重新启动吧");
 *  3. a cancelled part that is replaced ("航班被取消了，帮我改签") leaves the
 *     task running;
 *  4. delivering the deliverable finishes the task.
 * A finished step is not a finished task: "完成了供应商比价" says nothing,
 * only whole-task phrases ("都搞定了", "all done") do.
 */
#include "perceive/task.h"

#include <stdint.h>
#include <string.h>

#include "text/analyze.h"

#define CUE(p) AM__CUE(p)
#define CUE_END AM__CUE(NULL)
#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ------------------------------------------------------------ matcher */

#define MAX_ELEMS 4

static int word_byte(unsigned char c)
{
    return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9') || c == '\'';
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* Length of the clause punctuation at s[i], or 0. */
static size_t clause_punct(const char *s, size_t n, size_t i)
{
    unsigned char c = (unsigned char)s[i];
    if (c == ',' || c == '.') {
        /* 5,000 and 3.5 are numbers, not clause ends */
        if (i > 0 && i + 1 < n && is_digit((unsigned char)s[i - 1]) &&
            is_digit((unsigned char)s[i + 1]))
            return 0;
        return 1;
    }
    if (c == ';' || c == ':' || c == '!' || c == '?' || c == '\n') return 1;
    /* 。 (E3 80 82) and 、 (E3 80 81) survive NFKC */
    if (c == 0xE3 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
        ((unsigned char)s[i + 2] == 0x82 || (unsigned char)s[i + 2] == 0x81))
        return 3;
    return 0;
}

int am__cue_clause_start(const char *s, size_t i)
{
    while (i > 0 && s[i - 1] == ' ') i--;
    if (i == 0) return 1;
    unsigned char c = (unsigned char)s[i - 1];
    if (c == ',' || c == ';' || c == ':' || c == '!' || c == '?' || c == '\n' || c == '.')
        return !(c == ',' || c == '.') || i < 2 || !is_digit((unsigned char)s[i - 2]);
    return i >= 3 && (unsigned char)s[i - 3] == 0xE3 && (unsigned char)s[i - 2] == 0x80 &&
           (c == 0x82 || c == 0x81);
}

static size_t clause_end(const char *s, size_t n, size_t i)
{
    for (; i < n; i++)
        if (clause_punct(s, n, i)) return i;
    return n;
}

static int at_clause_end(const char *s, size_t n, size_t i)
{
    while (i < n && s[i] == ' ') i++;
    return i == n || clause_punct(s, n, i) != 0;
}

/* One element of a phrase: alternatives separated by '|', each a literal
 * with at most one '*' (the rest of a word, ending in what follows it). */
typedef struct elem {
    const char *p;
    size_t len;
    int anchored, end_anchored;
} elem;

/* Split a phrase at "…" (E2 80 A6) into elements.  Returns their count. */
static int parse_phrase(const char *phrase, elem *e)
{
    int k = 0;
    const char *p = phrase, *q = phrase;
    for (;;) {
        q = strchr(q, 0xE2);
        if (q && !((unsigned char)q[1] == 0x80 && (unsigned char)q[2] == 0xA6)) {
            q++;
            continue;
        }
        size_t len = q ? (size_t)(q - p) : strlen(p);
        elem *x = &e[k++];
        x->anchored = len && p[0] == '^';
        if (x->anchored) {
            p++;
            len--;
        }
        x->end_anchored = len && p[len - 1] == '$';
        if (x->end_anchored) len--;
        x->p = p;
        x->len = len;
        if (!q || k == MAX_ELEMS) break;
        q += 3;
        p = q;
    }
    return k;
}

/* Does the alternative a[0..m) match at s[k]?  Sets *end. */
static int alt_at(const char *s, size_t n, size_t limit, size_t k, const char *a, size_t m,
                  size_t *end)
{
    const char *star = memchr(a, '*', m);
    size_t head = star ? (size_t)(star - a) : m;
    if (head == 0 || k + head > limit || s[k] != a[0] || memcmp(s + k, a, head) != 0) return 0;
    if (word_byte((unsigned char)a[0]) && k > 0 && word_byte((unsigned char)s[k - 1])) return 0;
    size_t e = k + head;
    if (star) {
        /* the rest of the word, which must end in the tail */
        const char *tail = star + 1;
        size_t tl = m - head - 1;
        while (e < limit && word_byte((unsigned char)s[e])) e++;
        if (e - (k + head) < tl || memcmp(s + e - tl, tail, tl) != 0) return 0;
    } else if (word_byte((unsigned char)a[head - 1]) && e < n && word_byte((unsigned char)s[e])) {
        return 0;
    }
    *end = e;
    return 1;
}

/* The byte pairs of a text, hashed into 1024 bits: an alternative whose
 * first two bytes are not in the text is skipped without a search (most
 * cues of a table are absent from any one sentence). */
typedef struct pairset {
    uint64_t bits[16];
} pairset;

static unsigned pair_hash(unsigned char a, unsigned char b)
{
    return ((unsigned)a * 31u + b) & 1023u;
}

static void pairset_build(pairset *ps, const char *s, size_t n)
{
    memset(ps, 0, sizeof *ps);
    for (size_t i = 0; i + 1 < n; i++) {
        unsigned h = pair_hash((unsigned char)s[i], (unsigned char)s[i + 1]);
        ps->bits[h >> 6] |= (uint64_t)1 << (h & 63);
    }
}

static int pairset_may_have(const pairset *ps, const char *a, size_t m)
{
    if (m < 2 || a[1] == '*' || a[1] == '$') return 1;
    unsigned h = pair_hash((unsigned char)a[0], (unsigned char)a[1]);
    return (ps->bits[h >> 6] >> (h & 63)) & 1;
}

/* First occurrence of one element in s[from..limit): the earliest of its
 * alternatives, each found by jumping to its first byte. */
static int find_elem(const char *s, size_t n, const pairset *ps, const elem *e, size_t from,
                     size_t limit, size_t *at, size_t *at_end)
{
    int found = 0;
    const char *a = e->p, *stop = e->p + e->len;
    while (a < stop) {
        const char *bar = memchr(a, '|', (size_t)(stop - a));
        size_t m = bar ? (size_t)(bar - a) : (size_t)(stop - a);
        size_t bound = found ? *at : limit; /* only an earlier match helps */
        for (size_t k = from; m && k < bound && pairset_may_have(ps, a, m);) {
            const char *hit = memchr(s + k, a[0], bound - k);
            if (!hit) break;
            k = (size_t)(hit - s);
            size_t end;
            if (alt_at(s, n, limit, k, a, m, &end) &&
                (!e->anchored || am__cue_clause_start(s, k)) &&
                (!e->end_anchored || at_clause_end(s, n, end))) {
                *at = k;
                *at_end = end;
                found = 1;
                break;
            }
            k++;
        }
        a += m + (bar != NULL);
    }
    return found;
}

/* 1 if `str` ends right before position k ("^" = k starts a clause). */
static int ends_before(const char *s, size_t k, const char *str)
{
    if (str[0] == '^' && str[1] == '\0') return am__cue_clause_start(s, k);
    size_t m = strlen(str);
    if (m > k || memcmp(s + k - m, str, m) != 0) return 0;
    return !word_byte((unsigned char)str[0]) || k == m || !word_byte((unsigned char)s[k - m - 1]);
}

static int any_before(const char *s, size_t k, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (ends_before(s, k, list[i])) return 1;
    return 0;
}

static int any_after(const char *s, size_t n, size_t e, const char *const *list)
{
    for (size_t i = 0; list[i]; i++) {
        size_t m = strlen(list[i]);
        if (e + m <= n && memcmp(s + e, list[i], m) == 0) return 1;
    }
    return 0;
}

/* The context lists of a cue (or of a whole table) hold at [k, end). */
static int context_ok(const char *s, size_t n, const am__cue *c, size_t k, size_t end)
{
    return c && ((c->before && !any_before(s, k, c->before)) ||
                 (c->not_before && any_before(s, k, c->not_before)) ||
                 (c->not_after && any_after(s, n, end, c->not_after)))
               ? 0
               : 1;
}

/* First match of a cue starting at or after `from`. */
static int cue_match(const char *s, size_t n, const pairset *ps, const am__cue *c,
                     const elem *e, int ne, const am__cue *common, size_t from, size_t *at,
                     size_t *end)
{
    size_t k, pos;
    while (from < n && find_elem(s, n, ps, &e[0], from, n, &k, &pos)) {
        from = k + 1;
        size_t limit = clause_end(s, n, pos);
        int ok = 1;
        for (int i = 1; i < ne && ok; i++) {
            size_t j;
            ok = find_elem(s, n, ps, &e[i], pos, limit, &j, &pos);
        }
        if (!ok || !context_ok(s, n, c, k, pos) || !context_ok(s, n, common, k, pos)) continue;
        *at = k;
        *end = pos;
        return 1;
    }
    return 0;
}

int am__cue_scan(const char *s, size_t n, const am__cue *cues, const am__cue *common,
                 int which, am__cue_hit *hit)
{
    int found = 0;
    am__cue_hit best = {0, 0, -1};
    pairset ps;
    pairset_build(&ps, s, n);
    for (int i = 0; cues[i].phrase; i++) {
        /* Quick reject: a single first alternative absent from the text. */
        const char *head = cues[i].phrase + (cues[i].phrase[0] == '^');
        size_t span = strcspn(head, "|\xE2");
        int single = head[span] == '\0' ||
                     ((unsigned char)head[span] == 0xE2 && (unsigned char)head[span + 1] == 0x80 &&
                      (unsigned char)head[span + 2] == 0xA6);
        if (single && !pairset_may_have(&ps, head, span)) continue;
        elem e[MAX_ELEMS];
        int ne = parse_phrase(cues[i].phrase, e);
        size_t at, end, from = 0;
        while (cue_match(s, n, &ps, &cues[i], e, ne, common, from, &at, &end)) {
            if (!found || (which == AM__CUE_FIRST ? at < best.at : at > best.at)) {
                best.at = at;
                best.end = end;
                best.index = i;
                found = 1;
            }
            if (which == AM__CUE_FIRST) break;
            from = at + 1;
        }
    }
    if (found && hit) *hit = best;
    return found;
}

/* ------------------------------------------------------------ questions */

/* Sentence-final question marks and particles (after trailing spaces and
 * points are dropped). */
static const char *const question_ends[] = {"?", "吗", "呢", "么", "来着", "没有", "好不好",
                                            "行不行", "对不对", NULL};

/* Openers and words that ask for information. */
static const char *const not_universal[] = {"不管", "无论", "不论", "没", "不", "随便", NULL};
static const am__cue question_cues[] = {
    CUE("^do i"), CUE("^did i"), CUE("^do you"), CUE("^did you"), CUE("^have you"),
    CUE("^has the"), CUE("^have i"), CUE("^what"), CUE("^which"), CUE("^how"), CUE("^why"),
    CUE("^where"), CUE("^who"), CUE("^should we"), CUE("^should i"), CUE("^is it"),
    CUE("^is there"), CUE("^are we"), CUE("^was it"), CUE("^shall we"), CUE("是不是"),
    CUE("有没有"), CUE("要不要"), CUE("是否"), CUE("来着"), CUE("你觉得"),
    CUE("你看…怎么样|如何"), {"什么", NULL, not_universal, NULL},
    {"怎么", NULL, not_universal, NULL}, {"哪", NULL, not_universal, L("怕")}, CUE("多少"),
    CUE("几点"),
    CUE_END,
};

/* Requests phrased as questions: "能不能以后都用中文？", "could you ...?". */
static const am__cue request_cues[] = {
    CUE("能不能"), CUE("可不可以"), CUE("能否"), CUE("麻烦"), CUE("可以吗$"), CUE("好吗$"),
    CUE("行吗$"), CUE("^can you"), CUE("^could you"), CUE("^would you"), CUE("^will you"),
    CUE("^please"),
    CUE_END,
};

int am__cue_question(const char *s, size_t n)
{
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '.' || s[n - 1] == '!')) n--;
    if (n >= 3 && memcmp(s + n - 3, "\xE3\x80\x82", 3) == 0) n -= 3; /* 。 */
    if (am__cue_scan(s, n, request_cues, NULL, AM__CUE_FIRST, NULL)) return 0;
    for (size_t i = 0; question_ends[i]; i++) {
        size_t m = strlen(question_ends[i]);
        if (n >= m && memcmp(s + n - m, question_ends[i], m) == 0) return 1;
    }
    return am__cue_scan(s, n, question_cues, NULL, AM__CUE_FIRST, NULL);
}

/* ------------------------------------------------------------ status tables */

typedef struct status_rule {
    const char *name;
    const am__cue *cues;
} status_rule;

/* Negation windows: the cue right after one of these is denied ("不要取消",
 * "hasn't been sent").  "暂停的采购" names a thing, it changes nothing. */
static const char *const negators[] = {
    "不要", "别", "不用", "不必", "没有", "没", "未", "不", "不会", "don't ", "do not ",
    "not ", "no need to ", "never ", "didn't ", "hasn't ", "haven't ", "hasn't been ",
    "haven't been ", "wasn't ", "isn't ", "won't ", "not yet ", "don't want to ",
    NULL,
};
static const am__cue status_context = {NULL, NULL, negators, L("的")};
static const am__cue stage_context = {NULL, NULL, negators, NULL};

/* A statement that changes nothing now. */
static const char *const after_point[] = {
    "点", "天", "号", "日", "月", "年", "周", "班", "完", "会", "前", "之", "饭", "来",
    "了", "时", "钟", "分", "岁", "业", "学", "0", "1", "2", "3", "4", "5", "6", "7",
    "8", "9", NULL};
static const am__cue guards[] = {
    /* hypotheticals */
    CUE("如果"), CUE("假如"), CUE("要是"), CUE("万一"), CUE("假设"),
    {"if", NULL, L("even ", "as "), NULL}, CUE("suppose"), CUE("what if"), CUE("in case"),
    /* standing rules: "以后会议取消了要提前通知我", "we can never share drafts" */
    {"以后", NULL, after_point, L("再")}, CUE("今后"), CUE("每次"), CUE("from now on"),
    CUE("going forward"), CUE("in future"), CUE("in the future"), CUE("whenever"),
    CUE("every time"), CUE("by default"), CUE("always"),
    {"never", L("^", "can ", "could ", "i ", "we ", "you ", "please ", "so "), NULL, L(" mind")},
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

static const status_rule status_rules[] = {
    {"cancelled", c_cancel}, {"paused", c_pause}, {"postponed", c_postpone},
    {"done", c_done}, {"active", c_resume},
};

/* A cancelled part replaced: the task goes on ("航班被取消了，帮我改签"). */
static const am__cue carry_on[] = {
    CUE("改签"), CUE("重新订"), CUE("换一班"), CUE("下一班"), CUE("换一家"), CUE("rebook"),
    CUE("重新"), CUE("改约"), CUE("book me on"), CUE("get me on|get us on|put me on|put us on"),
    CUE("the next one"), CUE("another one"), CUE("another flight"), CUE("a later one"),
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
static const status_rule stage_rules[] = {
    {"delivered", s_delivered}, {"confirming", s_confirming}, {"drafting", s_drafting},
};

/* The rightmost cue over the tables; ties go to table order. */
static const char *rightmost(const char *s, size_t n, const status_rule *rules,
                             size_t nrules, const am__cue *context, am__cue_hit *where)
{
    const char *name = NULL;
    for (size_t i = 0; i < nrules; i++) {
        am__cue_hit h;
        if (am__cue_scan(s, n, rules[i].cues, context, AM__CUE_LAST, &h) &&
            (!name || h.at > where->at)) {
            name = rules[i].name;
            *where = h;
        }
    }
    return name;
}

void am__task_detect(const char *norm, size_t n, am__task_signal *out)
{
    memset(out, 0, sizeof *out);
    if (am__cue_scan(norm, n, guards, NULL, AM__CUE_FIRST, NULL) ||
        am__cue_question(norm, n)) {
        out->rule = "guard";
        return;
    }
    am__cue_hit h;
    out->status = rightmost(norm, n, status_rules, sizeof status_rules / sizeof *status_rules,
                            &status_context, &h);
    if (out->status && strcmp(out->status, "cancelled") == 0 &&
        am__cue_scan(norm + h.end, n - h.end, carry_on, NULL, AM__CUE_FIRST, NULL))
        out->status = NULL;
    out->rule = out->status;
    out->stage = rightmost(norm, n, stage_rules, sizeof stage_rules / sizeof *stage_rules,
                           &stage_context, &h);
    /* Delivering is finishing. */
    if (out->stage && strcmp(out->stage, "delivered") == 0 && !out->status)
        out->status = "done";
}

/* ------------------------------------------------------------ continuation */

static const char *const continuation_cues[] = {
    "上次", "接着", "继续", "那个任务", "之前那个", "之前的", "你还记得", "还记得",
    "刚才", "上回", "弄完", "last time", "continue", "resume", "pick up where",
    "where were we", "remember when", "do you remember", "let's finish",
    "finish the", "get back to", "earlier", NULL};

int am__task_continuation(const char *norm, size_t n)
{
    return am__cue_any(norm, n, continuation_cues);
}

int am__task_open_status(const char *status)
{
    return status && (strcmp(status, "active") == 0 ||
                      strcmp(status, "paused") == 0 ||
                      strcmp(status, "postponed") == 0);
}
