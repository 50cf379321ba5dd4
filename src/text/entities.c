/* SPDX-License-Identifier: Apache-2.0 */
/*
 * entities.c -- the entity scanner: the first pass (URLs, file names,
 * organisations), the left-to-right matcher loop, the query time range,
 * and the helpers the matchers share (see ent_internal.h).
 */
#include "text/entities.h"

#include <string.h>

#include "base/base.h"
#include "text/ent_internal.h"

/* At most this many first-pass spans per call; later ones are dropped. */
#define ENT_PRE_MAX 64
/* Query texts are short; their entities are collected here. */
#define ENT_QUERY_MAX 32
/* Years 1000..9999 in ms: refs outside resolve nothing relative. */
#define ENT_REF_MIN (-30610224000000LL)
#define ENT_REF_MAX (253402300799999LL)

const char *am__ent_type_name(int type)
{
    static const char *const names[] = {
        "unknown", "date",  "time",   "datetime", "range",
        "amount",  "number", "percent", "person",  "org",
        "product", "url",   "file",   "format",   "weekday_recurring"};
    if (type < 1 || type > AM_ENT_WEEKDAY_RECURRING) return names[0];
    return names[type];
}

/* ---------------------------------------------------------------- bytes */

int ent_cp(const ent_ctx *c, size_t i, uint32_t *cp)
{
    unsigned b = ent_at(c, i);
    int len;
    uint32_t v, min;
    if (b < 0x80) { *cp = b; return 1; }
    if (b >= 0xC2 && b <= 0xDF) { len = 2; v = b & 0x1F; min = 0x80; }
    else if (b >= 0xE0 && b <= 0xEF) { len = 3; v = b & 0x0F; min = 0x800; }
    else if (b >= 0xF0 && b <= 0xF4) { len = 4; v = b & 0x07; min = 0x10000; }
    else { *cp = 0xFFFD; return 1; }
    for (int k = 1; k < len; k++) {
        unsigned cb = ent_at(c, i + (size_t)k);
        if ((cb & 0xC0) != 0x80) { *cp = 0xFFFD; return 1; }
        v = (v << 6) | (cb & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
        *cp = 0xFFFD;
        return 1;
    }
    *cp = v;
    return len;
}

uint32_t ent_prev_cp(const ent_ctx *c, size_t i)
{
    if (i == 0) return 0;
    size_t k = i - 1;
    while (k > 0 && i - k < 4 && ((unsigned char)c->s[k] & 0xC0) == 0x80) k--;
    uint32_t cp;
    ent_ctx whole = *c;
    whole.n = i;
    int l = ent_cp(&whole, k, &cp);
    if (k + (size_t)l != i) return 0xFFFD;
    return cp;
}

size_t ent_lits(const ent_ctx *c, size_t i, const char *const *list, int *idx)
{
    size_t best = 0;
    unsigned first = ent_at(c, i), second = ent_at(c, i + 1);
    for (int k = 0; list[k]; k++) {
        if ((unsigned char)list[k][0] != first) continue;
        if (list[k][1] && (unsigned char)list[k][1] != second) continue;
        size_t e = ent_lit(c, i, list[k]);
        if (e > best) {
            best = e;
            if (idx) *idx = k;
        }
    }
    return best;
}

size_t ent_words(const ent_ctx *c, size_t i, const char *const *list,
                 int *idx)
{
    size_t best = 0;
    unsigned first = ent_lower(ent_at(c, i));
    for (int k = 0; list[k]; k++) {
        if (ent_lower((unsigned char)list[k][0]) != first) continue;
        size_t e = ent_word(c, i, list[k]);
        if (e > best) {
            best = e;
            if (idx) *idx = k;
        }
    }
    return best;
}

size_t ent_word_sorted(const ent_ctx *c, size_t i, const char *const *sorted,
                       size_t n)
{
    char w[24];
    size_t k = 0;
    while (k < sizeof w - 1 && ent_isalnum(ent_at(c, i + k))) {
        w[k] = (char)ent_lower(ent_at(c, i + k));
        k++;
    }
    if (k == 0 || ent_isalnum(ent_at(c, i + k))) return 0;
    w[k] = '\0';
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int r = strcmp(w, sorted[mid]);
        if (r == 0) return i + k;
        if (r < 0) hi = mid;
        else lo = mid + 1;
    }
    return 0;
}

size_t ent_sp(const ent_ctx *c, size_t i)
{
    while (ent_at(c, i) == ' ' || ent_at(c, i) == '\t') i++;
    return i;
}

int ent_prev_word(const ent_ctx *c, size_t i, const char *const *list)
{
    size_t e = i;
    while (e > 0 && (c->s[e - 1] == ' ' || c->s[e - 1] == '\t')) e--;
    if (e == i && i > 0) return 0; /* no blank: not a separate word */
    size_t b = e;
    while (b > 0 && ent_isalpha((unsigned char)c->s[b - 1])) b--;
    if (b == e || (b > 0 && ent_isdigit((unsigned char)c->s[b - 1])))
        return 0;
    for (int k = 0; list[k]; k++) {
        size_t l = strlen(list[k]);
        if (l != e - b) continue;
        size_t j = 0;
        while (j < l && ent_lower((unsigned char)c->s[b + j]) ==
                            (unsigned char)list[k][j])
            j++;
        if (j == l) return 1;
    }
    return 0;
}

int ent_in_set3(const char *p, const char *set)
{
    size_t lo = 0, hi = strlen(set) / 3;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int r = memcmp(p, set + mid * 3, 3);
        if (r == 0) return 1;
        if (r < 0) hi = mid;
        else lo = mid + 1;
    }
    return 0;
}

void ent_norm_copy(am__entity *e, const char *s, size_t a, size_t b)
{
    size_t l = b > a ? b - a : 0;
    if (l > AM_ENT_NORM_MAX - 1) {
        l = AM_ENT_NORM_MAX - 1;
        while (l > 0 && ((unsigned char)s[a + l] & 0xC0) == 0x80) l--;
    }
    memcpy(e->norm, s + a, l);
    e->norm[l] = '\0';
}

/* ------------------------------------------------------------- calendar */

int ent_dim(int y, int m)
{
    static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12) return 0;
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return 29;
    return dm[m - 1];
}

int ent_wday(int64_t day)
{
    /* 1970-01-01 was a Thursday (3 with Monday = 0). */
    int64_t w = (day + 3) % 7;
    return (int)(w < 0 ? w + 7 : w);
}

int64_t ent_day(int y, int m, int d)
{
    return am__days_from_civil(y, (unsigned)m, (unsigned)d);
}

void ent_civil(int64_t day, int *y, int *m, int *d)
{
    unsigned um, ud;
    am__civil_from_days(day, y, &um, &ud);
    *m = (int)um;
    *d = (int)ud;
}

void ent_add_months(int *y, int *m, int k)
{
    int t = *y * 12 + (*m - 1) + k;
    int ny = t >= 0 ? t / 12 : -((-t + 11) / 12);
    *y = ny;
    *m = t - ny * 12 + 1;
}

/* ------------------------------------------------------------- emitting */

static am_time day_ms(const ent_ctx *c, int64_t day)
{
    return (am_time)day * 86400000 - (am_time)c->tz * 60000;
}

static int fmt_day(int64_t day, char *buf)
{
    int y, m, d;
    ent_civil(day, &y, &m, &d);
    if (y < 1 || y > 9999) return 0;
    buf[0] = (char)('0' + y / 1000);
    buf[1] = (char)('0' + y / 100 % 10);
    buf[2] = (char)('0' + y / 10 % 10);
    buf[3] = (char)('0' + y % 10);
    buf[4] = '-';
    buf[5] = (char)('0' + m / 10);
    buf[6] = (char)('0' + m % 10);
    buf[7] = '-';
    buf[8] = (char)('0' + d / 10);
    buf[9] = (char)('0' + d % 10);
    buf[10] = '\0';
    return 1;
}

static void fmt_hm(int min, char *buf)
{
    int h = min / 60 % 24, mm = min % 60;
    buf[0] = (char)('0' + h / 10);
    buf[1] = (char)('0' + h % 10);
    buf[2] = ':';
    buf[3] = (char)('0' + mm / 10);
    buf[4] = (char)('0' + mm % 10);
    buf[5] = '\0';
}

int ent_when_emit(const ent_ctx *c, const ent_when *w, am__entity *e)
{
    /* Day numbers of years 1..9999 keep every ms value far from overflow. */
    const int64_t lo = -719162, hi = 2932896;
    e->type = w->type;
    e->from = e->to = AM_TIME_NONE;
    if (w->type == AM_ENT_TIME) {
        if (w->min < 0 || w->min > 1440) return 0;
        fmt_hm(w->min, e->norm);
        return 1;
    }
    if (w->d0 < lo || w->d0 > hi || w->d1 < lo || w->d1 > hi) return 0;
    if (w->type == AM_ENT_DATE) {
        if (!fmt_day(w->d0, e->norm)) return 0;
        e->from = day_ms(c, w->d0);
        e->to = day_ms(c, w->d0 + 1);
        return 1;
    }
    if (w->type == AM_ENT_RANGE) {
        if (w->d1 < w->d0) return 0;
        if (!fmt_day(w->d0, e->norm)) return 0;
        e->norm[10] = '/';
        if (!fmt_day(w->d1, e->norm + 11)) return 0;
        e->from = day_ms(c, w->d0);
        e->to = day_ms(c, w->d1 + 1);
        return 1;
    }
    if (w->type == AM_ENT_DATETIME) {
        if (w->min < 0 || w->min > 1440) return 0;
        int64_t day = w->d0 + w->min / 1440;
        int min = w->min % 1440;
        if (!fmt_day(day, e->norm)) return 0;
        e->norm[10] = 'T';
        fmt_hm(min, e->norm + 11);
        e->from = day_ms(c, day) + (am_time)min * 60000;
        e->to = e->from + 60000;
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------- the scan */

void ent_ctx_init(ent_ctx *c, const char *text, size_t len, am_time ref, int tz, int query)
{
    memset(c, 0, sizeof *c);
    c->s = text;
    c->n = c->len = len;
    if (tz > 18 * 60) tz = 18 * 60;
    if (tz < -18 * 60) tz = -18 * 60;
    c->tz = tz;
    c->query = query;
    c->ref = ref;
    c->have_ref = ref != AM_TIME_NONE && ref >= ENT_REF_MIN && ref <= ENT_REF_MAX;
    if (!c->have_ref) return;
    am_time local = ref + (am_time)tz * 60000;
    int64_t day = local / 86400000;
    if (local % 86400000 < 0) day--;
    c->today = day;
    c->ref_min = (int)((local - (am_time)day * 86400000) / 60000);
    ent_civil(day, &c->y, &c->m, &c->d);
    c->wd = ent_wday(day);
    if (c->y < 1000 || c->y > 9999) c->have_ref = 0;
}

static int is_zh_numeral(uint32_t cp)
{
    int d;
    int64_t u;
    return ent_zh_numeral_cp(cp, &d, &u);
}

/* The first character of every Chinese keyword a matcher can start with:
 * numerals, 每逢 (recurring), 今明后大昨前当 (days), 半最近过这本上下第去
 * (offsets, weeks, quarters, years), 周星礼禮月底末初年中 (calendar words),
 * 凌早清中午傍晚夜深 (parts of the day), 小老 and surnames (persons),
 * 表电要分条列思脑图纯幻演 (formats).  Sorted by code point.  A Han
 * character outside this set starts no entity, so the matchers are not
 * tried there. */
static const char han_triggers[] =
    "一丁七万三上下东两严中乔九二五亿今付仟任伍何余佰侯俞倪傍八六冯凌分列刘初"
    "前十千午半卢去叁史叶司后吕吴周唐四图壹夏夜大姚姜孔孙孟宋小尹崔常年幻底庞"
    "康廖张当彭徐思慕戴拾捌文方施早明易星昨晚曹曾最月末本朱李杜条杨林柒柳梁樊"
    "欧武段殷每毛江汤汪沈洪深清温演潘熊牛王玖田电白百石礼禮秦程第纯罗老肆肖胡"
    "脑芦苏范莫葛董蒋蔡薛表袁要覃许诸谢谭贰贺贾赖赵过近这逢邓邢邱邵邹郑郝郭金"
    "钟钱闫陆陈陶零雷韦韩顾颜马骆高魏鲁黄黎龙龚";

/* Every lower-case English word an entity can start with (capitalised
 * words always pass: names, "May", "Excel").  Sorted for bsearch. */
static const char *const en_triggers[] = {
    "a", "an", "apr", "april", "aug", "august", "beginning", "billion",
    "bullet", "bulleted", "bullets", "cny", "coming", "csv", "csvs", "day",
    "dec", "december", "docx", "dr", "each", "early", "eight", "eighteen",
    "eighty", "eleven", "end", "eur", "every", "excel", "feb", "february",
    "fifteen", "fifty", "five", "forty", "four", "fourteen", "fri", "friday",
    "fridays", "gbp", "hk", "hkd", "html", "hundred", "in", "jan", "january",
    "jpy", "json", "jul", "july", "jun", "june", "last", "late", "mar",
    "march", "markdown", "may", "mid", "middle", "midnight", "million",
    "mind", "mindmap", "miss", "mon", "monday", "mondays", "month", "mr",
    "mrs", "ms", "mx", "next", "nine", "nineteen", "ninety", "noon", "nov",
    "november", "oct", "october", "one", "past", "pdf", "pdfs", "plain",
    "powerpoint", "ppt", "ppts", "pptx", "previous", "prof", "q1", "q2", "q3",
    "q4", "rmb", "sat", "saturday", "saturdays", "sep", "sept", "september",
    "seven", "seventeen", "seventy", "six", "sixteen", "sixty", "slide",
    "slides", "spreadsheet", "spreadsheets", "start", "sun", "sunday",
    "sundays", "table", "tabular", "ten", "the", "thirteen", "thirty", "this",
    "thousand", "three", "thu", "thur", "thurs", "thursday", "thursdays",
    "tmr", "tmrw", "today", "tomorrow", "tonight", "tue", "tues", "tuesday",
    "tuesdays", "twelve", "twenty", "two", "txt", "us", "usd", "wed",
    "wednesday", "wednesdays", "within", "word", "xls", "xlsx", "year",
    "yesterday", "zero"};

static int en_trigger(const ent_ctx *c, size_t i)
{
    return ent_word_sorted(c, i, en_triggers,
                           sizeof en_triggers / sizeof *en_triggers) != 0;
}

/* Can an entity start at i?  Cheap reject for lower-case English words
 * and Han characters that start nothing, and for 4-byte characters
 * (emoji, rare ideographs). */
static int may_start(const ent_ctx *c, size_t i)
{
    unsigned b = ent_at(c, i);
    if (ent_isalpha(b)) return (b >= 'A' && b <= 'Z') || en_trigger(c, i);
    if (b < 0xE3) return 1;
    if (b >= 0xF0) return 0;
    uint32_t cp;
    if (ent_cp(c, i, &cp) != 3) return 0;
    if ((cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF))
        return ent_in_set3(c->s + i, han_triggers);
    return 1;
}

/* Try every matcher at i, in priority order. */
static size_t match_at(const ent_ctx *c, size_t i, am__entity *e)
{
    size_t end;
    ent_when w;
    e->start = i;
    e->from = e->to = AM_TIME_NONE;
    e->norm[0] = '\0';
    if ((end = ent_recurring_at(c, i, e->norm, sizeof e->norm)) != 0) {
        e->type = AM_ENT_WEEKDAY_RECURRING;
        return end;
    }
    memset(&w, 0, sizeof w);
    if ((end = ent_time_at(c, i, &w)) != 0 && ent_when_emit(c, &w, e))
        return end;
    e->from = e->to = AM_TIME_NONE;
    if ((end = ent_amount_at(c, i, e)) != 0) return end;
    if ((end = ent_percent_at(c, i, e)) != 0) return end;
    if ((end = ent_person_at(c, i, e)) != 0) return end;
    if ((end = ent_format_at(c, i, e)) != 0) return end;
    if ((end = ent_product_at(c, i, e)) != 0) return end;
    if ((end = ent_number_at(c, i, e)) != 0) return end;
    return 0;
}

/* Where to look next after nothing matched at i: past the whole ASCII
 * word or number, past a run of Chinese numerals, else one code point. */
static size_t skip_at(const ent_ctx *c, size_t i)
{
    if (ent_isalnum(ent_at(c, i))) {
        while (i < c->n && ent_isalnum(ent_at(c, i))) i++;
        return i;
    }
    uint32_t cp;
    size_t j = i + (size_t)ent_cp(c, i, &cp);
    if (!is_zh_numeral(cp)) return j;
    while (j < c->n) {
        int l = ent_cp(c, j, &cp);
        if (!is_zh_numeral(cp)) break;
        j += (size_t)l;
    }
    return j;
}

static size_t scan(ent_ctx *c, am__entity *out, size_t max)
{
    am__entity pre[ENT_PRE_MAX];
    size_t npre = 0, cnt = 0, i, lo = 0;

    /* First pass: spans recognised by their end or their scheme. */
    for (i = 0; i < c->len && npre < ENT_PRE_MAX;) {
        if (ent_prepass_at(c, i, lo, &pre[npre])) {
            lo = i = pre[npre].end;
            npre++;
        } else {
            i++;
        }
    }

    size_t k = 0;
    for (i = 0; i < c->len && cnt < max;) {
        if (k < npre && pre[k].start <= i) {
            out[cnt++] = pre[k];
            i = pre[k].end;
            k++;
            continue;
        }
        c->n = k < npre ? pre[k].start : c->len;
        size_t end = may_start(c, i) ? match_at(c, i, &out[cnt]) : 0;
        if (end > i) {
            out[cnt].end = end;
            cnt++;
            i = end;
        } else {
            i = skip_at(c, i);
        }
    }
    c->n = c->len;
    return cnt;
}

int am__entities_extract(const char *text, size_t len, am_time ref,
                         int tz_minutes, am__entity *out, size_t max,
                         size_t *n)
{
    if (!n) return AM_MISUSE;
    *n = 0;
    if ((!text && len > 0) || (!out && max > 0)) return AM_MISUSE;
    if (len == 0 || max == 0) return AM_OK;
    ent_ctx c;
    ent_ctx_init(&c, text, len, ref, tz_minutes, 0);
    *n = scan(&c, out, max);
    return AM_OK;
}

int am__query_time_range(const char *text, size_t len, am_time now,
                         int tz_minutes, am_time *from, am_time *to)
{
    if (!text || len == 0 || !from || !to) return 0;
    am__entity ents[ENT_QUERY_MAX];
    ent_ctx c;
    ent_ctx_init(&c, text, len, now, tz_minutes, 1);
    size_t cnt = scan(&c, ents, ENT_QUERY_MAX);
    int found = 0;
    am_time lo = 0, hi = 0;
    for (size_t k = 0; k < cnt; k++) {
        const am__entity *e = &ents[k];
        if (e->type != AM_ENT_DATE && e->type != AM_ENT_RANGE &&
            e->type != AM_ENT_DATETIME)
            continue;
        if (e->from == AM_TIME_NONE || e->to == AM_TIME_NONE) continue;
        if (!found || e->from < lo) lo = e->from;
        if (!found || e->to > hi) hi = e->to;
        found = 1;
    }
    if (!found) return 0;
    *from = lo;
    *to = hi;
    return 1;
}
