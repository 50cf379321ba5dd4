/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ent_clock.c -- times of day: "15:00", "3:30 p.m.", "3pm", "noon",
 * "5 o'clock", "下午三点半", "十点一刻", "3点05分", "凌晨两点".
 *
 * A period word ("下午", or a hint from the date before it: "今晚")
 * turns a 12-hour reading into 24 hours.  Without one, hours 1-6 written
 * with 点 are taken as afternoon (office hours: "3点开会" is 15:00), while
 * "03:00" is literal.  A Chinese numeral hour with nothing else ("三点")
 * counts only after a date, since "三点建议" is "three points".
 */
#include "text/ent_internal.h"

static const char *const zh_periods[] = {"凌晨", "早上", "早晨", "清晨", "上午",
                                         "早", "中午", "午间", "下午", "午后",
                                         "傍晚", "晚上", "晚间", "晚", "夜里",
                                         "夜间", "半夜", "深夜", "夜晚", NULL};
static const int zh_period_code[] = {
    ENT_P_DAWN,    ENT_P_AM,      ENT_P_AM,      ENT_P_AM,    ENT_P_AM,
    ENT_P_AM,      ENT_P_NOON,    ENT_P_NOON,    ENT_P_PM,    ENT_P_PM,
    ENT_P_EVENING, ENT_P_EVENING, ENT_P_EVENING, ENT_P_EVENING, ENT_P_NIGHT,
    ENT_P_NIGHT,   ENT_P_NIGHT,   ENT_P_NIGHT,   ENT_P_EVENING};

/* Hour h of a 12-hour reading under period p, as minutes of the day. */
static int apply_period(int h, int p)
{
    switch (p) {
    case ENT_P_DAWN: if (h == 12) h = 0; break;
    case ENT_P_NOON: if (h >= 1 && h <= 5) h += 12; break;
    case ENT_P_PM: if (h < 12) h += 12; break;
    case ENT_P_EVENING:
        if (h >= 5 && h < 12) h += 12;
        else if (h == 12) h = 24;
        break;
    case ENT_P_NIGHT:
        if (h >= 6 && h < 12) h += 12;
        else if (h == 12) h = 24;
        break;
    default: break;
    }
    return h;
}

/* Nouns after "三点" that make it "three points", not three o'clock. */
static const char *const zh_points[] = {
    "建议", "意见", "要求", "原因", "内容", "看法", "想法", "注意", "问题",
    "理由", "好处", "需求", "共识", "结论", "经验", "不足", "改进", "考虑",
    "说明", "规定", "原则", "体会", "收获", "区别", "优势", "担忧", "变化",
    "事", "事项", "方面", "东西", NULL};

/* "am"/"pm"/"a.m."/"p.m." after the hour h (blanks allowed): the end,
 * with *h24 the hour on a 24-hour clock; 0 when absent or h is not 1..12. */
static size_t ampm_at(const ent_ctx *c, size_t j, int h, int *h24)
{
    static const char *const ampm[] = {"am", "pm", "a.m.", "p.m.", "a.m",
                                       "p.m", NULL};
    int k;
    size_t s = ent_sp(c, j), a;
    if (!(a = ent_words(c, s, ampm, &k)) &&
        !((a = ent_lits(c, s, ampm, &k)) != 0 && !ent_isalpha(ent_at(c, a))))
        return 0;
    if (h < 1 || h > 12) return 0;
    *h24 = k % 2 == 0 ? (h == 12 ? 0 : h) : (h == 12 ? 12 : h + 12);
    return a;
}

/* ":MM[:SS]" after the hour at j (also the full-width colon): the end
 * and *mm, or 0. */
static size_t colon_minutes(const ent_ctx *c, size_t j, int *mm)
{
    size_t k = ent_at(c, j) == ':' ? j + 1 : ent_lit(c, j, "：");
    if (!k || !ent_isdigit(ent_at(c, k)) || !ent_isdigit(ent_at(c, k + 1)) ||
        ent_isdigit(ent_at(c, k + 2)))
        return 0;
    *mm = (int)((ent_at(c, k) - '0') * 10 + (ent_at(c, k + 1) - '0'));
    if (*mm > 59) return 0;
    k += 2;
    if (ent_at(c, k) == ':' && ent_isdigit(ent_at(c, k + 1)) &&
        ent_isdigit(ent_at(c, k + 2)) && !ent_isdigit(ent_at(c, k + 3)))
        k += 3;
    /* "1:23:45:67", "10:30.5" */
    if (ent_at(c, k) == ':' || (ent_at(c, k) == '.' && ent_isdigit(ent_at(c, k + 1))))
        return 0;
    return k;
}

/* Minutes after 点: 半, 一刻, 三刻, 整, 钟, "05分", "二十", "零五".
 * Returns the end (j when there is none) and *mm. */
static size_t zh_minutes(const ent_ctx *c, size_t j, int *mm)
{
    static const char *const words[] = {"半", "一刻", "三刻", "整", "钟", NULL};
    static const int word_min[] = {30, 15, 45, 0, 0};
    int k, v;
    size_t e, z, q, f;
    if ((e = ent_lits(c, j, words, &k)) != 0) {
        *mm = word_min[k];
        return e;
    }
    z = ent_lit(c, j, "零");
    q = z ? z : j;
    if (!(e = ent_int_at(c, q, 0, 59, &v)) ||
        (ent_isdigit(ent_at(c, q)) && ent_lit(c, e, "%")))
        return j;
    f = ent_lit(c, e, "分");
    if (f && ent_lit(c, f, "钟")) f = 0; /* "三点十分钟" */
    /* A minute reading needs 分, two digits, 零, or a numeral >= 10
     * ("三点二十"); "三点五" stays 3 o'clock. */
    if (!(f || z || (ent_isdigit(ent_at(c, q)) && e - q == 2) ||
          (!ent_isdigit(ent_at(c, q)) && v >= 10)))
        return j;
    *mm = v;
    return f ? f : e;
}

/* A clock time at i: "15:00", "3pm", "3:30 p.m.", "下午三点半", "十点一刻",
 * "3点05分", "noon", "5 o'clock".  hint: period from a date word; strict:
 * no date before it, so "三点" alone must show it is a time. */
size_t ent_clock_at(const ent_ctx *c, size_t i, int hint, int strict,
                    int *min)
{
    static const char *const dian[] = {"点", "點", "时", "時", NULL};
    int k, period = ENT_P_NONE, h, mm = 0, h24;
    size_t j = i, e, a;
    unsigned b = ent_at(c, i);
    if (ent_isalpha(b)) {
        if ((e = ent_word(c, i, "noon")) != 0) { *min = 720; return e; }
        if ((e = ent_word(c, i, "midnight")) != 0) { *min = 1440; return e; }
        return 0;
    }
    if ((e = ent_lits(c, i, zh_periods, &k)) != 0) {
        period = zh_period_code[k];
        j = e;
    }
    int has_period = period != ENT_P_NONE;
    if (!has_period) period = hint;
    int arabic = ent_isdigit(ent_at(c, j));
    if (arabic && j > 0) {
        unsigned p = (unsigned char)c->s[j - 1];
        if (ent_isalnum(p) || p == ':' || p == '.' || p == '/' || p == '-' ||
            p == ',' || p == '$')
            return 0;
    }
    if (!(e = ent_int_at(c, j, 0, 24, &h))) {
        /* "明天中午": noon itself, after a date */
        if (has_period && !strict && period == ENT_P_NOON) {
            *min = 720;
            return j;
        }
        return 0;
    }
    j = e;
    if (arabic && (e = colon_minutes(c, j, &mm)) != 0) { /* "15:00", "3:30pm" */
        if ((a = ampm_at(c, e, h, &h24)) != 0) {
            *min = h24 * 60 + mm;
            return a;
        }
        if (ent_isalpha(ent_at(c, e))) return 0;
        if (period) h = apply_period(h, period);
        if (h * 60 + mm > 1440) return 0;
        *min = h * 60 + mm;
        return e;
    }
    if (arabic) { /* "3pm", "3 p.m.", "5 o'clock" */
        if ((a = ampm_at(c, j, h, &h24)) != 0) {
            *min = h24 * 60;
            return a;
        }
        size_t s = ent_sp(c, j);
        if (s > j && ((a = ent_lit(c, s, "o'clock")) != 0 ||
                      (a = ent_lit(c, s, "o\xE2\x80\x99" "clock")) != 0)) {
            if (h < 1 || h > 12) return 0;
            *min = (period ? apply_period(h, period) : h <= 6 ? h + 12 : h) * 60;
            return a;
        }
        /* "tonight at 8": a bare hour after a date word naming the part
         * of the day */
        if (!strict && hint && !has_period && ent_wend(c, j) &&
            ent_at(c, j) < 0x80 && h >= 1 && h <= 12) {
            *min = apply_period(h, hint) * 60;
            return j;
        }
    }
    /* "三点", "3点半", "十点一刻", "3点05分", "15时" */
    if (!(e = ent_lits(c, j, dian, &k))) return 0;
    if (!period && ent_lits(c, e, zh_points, NULL)) return 0;
    j = zh_minutes(c, e, &mm);
    if (!period && j == e && strict && !arabic) return 0;
    if (period) h = apply_period(h, period);
    else if (h >= 1 && h <= 6) h += 12; /* "3点开会": office hours */
    if (h * 60 + mm > 1440) return 0;
    *min = h * 60 + mm;
    return j;
}
