/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ent_time.c -- Chinese dates ("2026年3月11日", "下周三", "三天后", "月底",
 * "第三季度", "最近三天") and the composition of every time expression:
 * ent_time_at tries the date matchers (these, and the numeric and English
 * ones in ent_date_en.c), then glues a following clock (ent_clock.c:
 * "明天" + "下午三点半") or range end ("3月1日" + "到" + "5日") onto a date.
 * Also recurring weekdays ("每周四", "every Thursday").  The semantics
 * (which Friday is "next Friday", what "月底" means, query mode) are in
 * text/entities.h.
 */
#include <string.h>

#include "text/ent_internal.h"

/* ------------------------------------------------------------ offsets */

int ent_infer_year(const ent_ctx *c, int m, int d, int *year)
{
    int found = 0;
    int64_t best = 0;
    if (!c->have_ref) return 0;
    for (int dy = -1; dy <= 1; dy++) {
        int y = c->y + dy;
        if (d > ent_dim(y, m)) continue;
        int64_t a = ent_day(y, m, d ? d : 1);
        int64_t b = d ? a : ent_day(y, m, ent_dim(y, m));
        int64_t score;
        if (c->query) {
            if (a > c->today) continue;
            score = c->today - a;
        } else {
            /* distance from the start: a window of +-6 months */
            score = c->today < a ? a - c->today : c->today > b ? c->today - a : 0;
        }
        if (!found || score < best) {
            best = score;
            *year = y;
            found = 1;
        }
    }
    return found;
}

/* Whole week / month / year around day d (query-mode widening). */
static size_t widen(ent_when *w, int unit, int64_t d, size_t end)
{
    int y, m, dd;
    ent_civil(d, &y, &m, &dd);
    if (unit == ENT_U_WEEK || unit == ENT_U_FORTNIGHT) {
        int64_t ws = d - ent_wday(d);
        return ent_set_range(w, ws, ws + 6, end);
    }
    if (unit == ENT_U_MONTH) return ent_set_month(w, y, m, end);
    if (unit == ENT_U_YEAR) return ent_set_year(w, y, end);
    return ent_set_date(w, d, end);
}

/* ref + n units; *exact set for hour/minute units (a date-time).  Returns
 * 0 when n is out of bounds. */
static int offset_day(const ent_ctx *c, int unit, int64_t n, int64_t *day,
                      int *min)
{
    int y = c->y, m = c->m;
    int64_t lim[] = {0, 36600, 5300, 1200, 200, 900000, 50000000, 2600};
    if (unit < ENT_U_DAY || unit > ENT_U_FORTNIGHT) return 0;
    if (n > lim[unit] || n < -lim[unit]) return 0;
    *min = -1;
    switch (unit) {
    case ENT_U_DAY: *day = c->today + n; return 1;
    case ENT_U_WEEK: *day = c->today + 7 * n; return 1;
    case ENT_U_FORTNIGHT: *day = c->today + 14 * n; return 1;
    case ENT_U_MONTH:
    case ENT_U_YEAR: {
        ent_add_months(&y, &m, unit == ENT_U_MONTH ? (int)n : (int)n * 12);
        int d = c->d > ent_dim(y, m) ? ent_dim(y, m) : c->d;
        *day = ent_day(y, m, d);
        return 1;
    }
    default: {
        am_time t = c->ref + (am_time)c->tz * 60000 +
                    n * (unit == ENT_U_HOUR ? 3600000 : 60000);
        int64_t dd = t / 86400000;
        if (t % 86400000 < 0) dd--;
        *day = dd;
        *min = (int)((t - dd * 86400000) / 60000);
        return 1;
    }
    }
}

/* Resolve "N units before/after/within" (dir -1, +1, or 0 for within). */
size_t ent_apply_offset(const ent_ctx *c, ent_when *w, int unit, int64_t n,
                           int dir, size_t end)
{
    int64_t day;
    int min;
    if (!c->have_ref) return 0;
    if (!offset_day(c, unit, dir < 0 ? -n : n, &day, &min)) return 0;
    if (dir == 0) return day >= c->today ? ent_set_range(w, c->today, day, end) : 0;
    if (min >= 0) {
        w->type = AM_ENT_DATETIME;
        w->d0 = w->d1 = day;
        w->min = min;
        if (c->query && unit == ENT_U_HOUR) w->min = min / 60 * 60;
        return end;
    }
    if (c->query) return widen(w, unit, day, end);
    return ent_set_date(w, day, end);
}

/* "最近三天", "the past two weeks": [today - n units, today]. */
size_t ent_apply_recent(const ent_ctx *c, ent_when *w, int unit, int64_t n,
                           size_t end)
{
    int64_t day;
    int min;
    if (!c->have_ref || unit >= ENT_U_HOUR) return 0;
    if (!offset_day(c, unit, -n, &day, &min)) return 0;
    return ent_set_range(w, day, c->today, end);
}

/* ------------------------------------------------------- Chinese words */

static const char *const zh_wd_chars[] = {"一", "二", "三", "四", "五",
                                          "六", "日", "天", "七", NULL};

/* A Chinese weekday character or digit 1-7 at i. */
static size_t zh_weekday(const ent_ctx *c, size_t i, int *wd)
{
    int k;
    size_t e = ent_lits(c, i, zh_wd_chars, &k);
    if (e) {
        *wd = k <= 5 ? k : 6;
        return e;
    }
    unsigned ch = ent_at(c, i);
    if (ch >= '1' && ch <= '7' && !ent_isdigit(ent_at(c, i + 1))) {
        *wd = (int)(ch - '1');
        return i + 1;
    }
    return 0;
}

static const char *const zh_week_units[] = {"周", "星期", "礼拜", "禮拜", NULL};

/* "下周三", "这周五", "上周", "本周末", "周一", "星期天", "下个礼拜". */
static size_t zh_week(const ent_ctx *c, size_t i, ent_when *w)
{
    static const char *const pre[] = {"下下个", "下下", "上上个", "上上",
                                      "下个", "下", "上个", "上",
                                      "这个", "这", "本", NULL};
    static const int pre_off[] = {2, 2, -2, -2, 1, 1, -1, -1, 0, 0, 0};
    static const char *const not_week[] = {"年", "岁", "期", "边", "围", "刊",
                                           "转", "到", "全", "密", "长", "游",
                                           "旋", "知", NULL};
    int k, off = 0, has_pre = 0, wd;
    size_t j = i, e;
    if (!c->have_ref) return 0;
    if ((e = ent_lits(c, j, pre, &k)) != 0) {
        off = pre_off[k];
        has_pre = 1;
        j = e;
    }
    if (!(e = ent_lits(c, j, zh_week_units, NULL))) return 0;
    j = e;
    if (ent_lits(c, j, not_week, NULL)) return 0;
    int64_t ws = ent_week_start(c) + 7 * off;
    if ((e = zh_weekday(c, j, &wd)) != 0) {
        if (!has_pre) {
            w->bare_wd = wd + 1;
            return ent_set_date(w, ent_bare_weekday(c, wd), e);
        }
        return ent_set_date(w, ws + wd, e);
    }
    if ((e = ent_lit(c, j, "末")) != 0) {
        if (!has_pre) return ent_bare_weekend(c, w, e);
        return ent_set_range(w, ws + 5, ws + 6, e);
    }
    if (has_pre) return ent_set_range(w, ws, ws + 6, j);
    return 0;
}

/* "今天", "明晚", "大前天". */
static size_t zh_day_word(const ent_ctx *c, size_t i, ent_when *w)
{
    static const char *const words[] = {
        "今天", "今日", "今儿", "今晚", "今早", "今夜", "明天", "明日",
        "明儿", "明晚", "明早", "明晨", "后天", "大后天", "昨天", "昨日",
        "昨儿", "昨晚", "昨夜", "前天", "大前天", "当天", NULL};
    static const signed char off[] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1,
                                      1, 2, 3, -1, -1, -1, -1, -1, -2, -3, 0};
    static const signed char hint[] = {
        0, 0, 0, ENT_P_EVENING, ENT_P_AM, ENT_P_NIGHT, 0, 0, 0, ENT_P_EVENING,
        ENT_P_AM, ENT_P_AM, 0, 0, 0, 0, 0, ENT_P_EVENING, ENT_P_NIGHT, 0, 0, 0};
    int k;
    size_t e;
    if (!c->have_ref || !(e = ent_lits(c, i, words, &k))) return 0;
    w->hint = hint[k];
    return ent_set_date(w, c->today + off[k], e);
}

static const char *const zh_units[] = {"天", "日", "周", "星期", "礼拜",
                                       "个星期", "个礼拜", "个月", "年",
                                       "小时", "个小时", "钟头", "个钟头",
                                       "分钟", "个周", NULL};
static const int zh_unit_code[] = {ENT_U_DAY,  ENT_U_DAY,  ENT_U_WEEK, ENT_U_WEEK, ENT_U_WEEK,
                                   ENT_U_WEEK, ENT_U_WEEK, ENT_U_MONTH, ENT_U_YEAR, ENT_U_HOUR,
                                   ENT_U_HOUR, ENT_U_HOUR, ENT_U_HOUR, ENT_U_MIN, ENT_U_WEEK};

/* A count and a unit: "三天", "两个月", "半年", "半个小时".  *n is in the
 * unit, except that halves are converted ("半年" = 6 months). */
size_t ent_zh_count_unit(const ent_ctx *c, size_t i, int *unit, int64_t *n)
{
    int k, v;
    size_t e, j;
    if ((j = ent_lit(c, i, "半")) != 0) {
        size_t g = ent_lit(c, j, "个");
        if ((e = ent_lits(c, g ? g : j, zh_units, &k)) == 0) return 0;
        switch (zh_unit_code[k]) {
        case ENT_U_YEAR: *unit = ENT_U_MONTH; *n = 6; return e;
        case ENT_U_MONTH: *unit = ENT_U_DAY; *n = 15; return e;
        case ENT_U_HOUR: *unit = ENT_U_MIN; *n = 30; return e;
        default: return 0;
        }
    }
    if (!(j = ent_int_at(c, i, 1, 9999, &v))) return 0;
    if ((e = ent_lits(c, j, zh_units, &k)) == 0) return 0;
    *unit = zh_unit_code[k];
    *n = v;
    /* "一个半月" */
    if (*unit == ENT_U_MONTH && ent_lit(c, j, "个半月")) return 0;
    return e;
}

/* "三天后", "两周前", "3个月以后", "一年前", "两小时后", "三天内". */
static size_t zh_offset(const ent_ctx *c, size_t i, ent_when *w)
{
    static const char *const dirs[] = {"后", "以后", "之后", "过后", "前",
                                       "以前", "之前", "内", "以内", "之内",
                                       NULL};
    int unit, k;
    int64_t n;
    size_t j, e;
    if (!(j = ent_zh_count_unit(c, i, &unit, &n))) return 0;
    if (!(e = ent_lits(c, j, dirs, &k))) return 0;
    return ent_apply_offset(c, w, unit, n, k < 4 ? 1 : k < 7 ? -1 : 0, e);
}

/* "最近三天", "近一个月", "过去两周". */
static size_t zh_recent(const ent_ctx *c, size_t i, ent_when *w)
{
    static const char *const pre[] = {"最近", "近", "过去", "过去的", "这",
                                      NULL};
    int unit;
    int64_t n;
    size_t j, e;
    if (!(j = ent_lits(c, i, pre, NULL))) return 0;
    if (!(e = ent_zh_count_unit(c, j, &unit, &n))) return 0;
    return ent_apply_recent(c, w, unit, n, e);
}

/* "2026年", "二〇二六年", "今年", "去年". Sets *y; returns the end. */
static size_t zh_year(const ent_ctx *c, size_t i, int *y)
{
    static const char *const words[] = {"今年", "去年", "明年", "前年",
                                        "后年", "大前年", "大后年", "本年",
                                        NULL};
    static const int off[] = {0, -1, 1, -2, 2, -3, 3, 0};
    static const char *const not_year[] = {"代", "级", "龄", "薪", "纪", "轻",
                                           "前", "后", "内", "来", "多", NULL};
    int k;
    size_t e;
    if ((e = ent_lits(c, i, words, &k)) != 0) {
        if (!c->have_ref) return 0;
        *y = c->y + off[k];
        return e;
    }
    ent_dec v;
    int fl;
    int64_t x;
    e = ent_num_at(c, i, &v, &fl);
    if (!e || !ent_dec_int(v, &x) || x < 1000 || x > 9999) return 0;
    if (fl & (ENT_N_UNIT | ENT_N_DECIMAL)) return 0;
    if ((fl & ENT_N_ARABIC) && e - i != 4) return 0;
    if ((fl & ENT_N_HAN) && !(fl & ENT_N_CONCAT)) return 0;
    size_t j = ent_lit(c, e, "年");
    if (!j || ent_lits(c, j, not_year, NULL)) return 0;
    *y = (int)x;
    return j;
}

/* "3月", "十二月份", "下个月", "上月". *rel set for the relative words. */
static size_t zh_month(const ent_ctx *c, size_t i, int *y, int *m, int *rel)
{
    static const char *const words[] = {"这个月", "本月", "当月", "这月",
                                        "下个月", "下月", "上个月", "上月",
                                        "下下个月", "上上个月", NULL};
    static const int off[] = {0, 0, 0, 0, 1, 1, -1, -1, 2, -2};
    static const char *const not_month[] = {
        "饼", "亮", "球", "光", "票", "薪", "供", "租", "费", "刊", "经",
        "嫂", "子", "度", "色", "牙", "台", "老", "卡", "结", "活", NULL};
    int k, v;
    size_t e;
    *rel = 0;
    if ((e = ent_lits(c, i, words, &k)) != 0) {
        if (!c->have_ref) return 0;
        *y = c->y;
        *m = c->m;
        ent_add_months(y, m, off[k]);
        *rel = 1;
        return e;
    }
    if (!(e = ent_int_at(c, i, 1, 12, &v))) return 0;
    size_t j = ent_lit(c, e, "月");
    if (!j || ent_lits(c, j, not_month, NULL)) return 0;
    *m = v;
    size_t f = ent_lit(c, j, "份");
    return f ? f : j;
}

/* After "5号"/"5日": a building, a line, a seat... not a day ("3号楼",
 * "5号线", "3日游"). */
static const char *const zh_not_day[] = {
    "楼", "线", "房", "门", "院", "馆", "厅", "机", "位", "床", "口", "车", "窗",
    "桌", "柜", "台", "码", "屋", "室", "店", "仓", "库", "球", "选", "元", "游",
    NULL};
/* ... and after a day without a month: "3日内" (an offset), "日后",
 * "日常", "日记", "日志", "日程", "日本", "日元"... */
static const char *const zh_not_bare_day[] = {
    "内", "后", "前", "常", "记", "志", "程", "益", "均", "薪", "夜", "间",
    "语", "本", "式", "系", "报", "币", NULL};

/* Part of a month after "3月"/"下个月": day, 初/中/底/旬. */
static size_t zh_month_part(const ent_ctx *c, size_t j, int y, int m,
                            ent_when *w)
{
    static const char *const parts[] = {"底", "末", "初", "中旬", "上旬",
                                        "下旬", "中", NULL};
    int k, d;
    size_t e;
    if ((e = ent_int_at(c, j, 1, 31, &d)) != 0) {
        size_t f = ent_lit(c, e, "日");
        if (!f) f = ent_lit(c, e, "号");
        if (!f) f = ent_lit(c, e, "號");
        if (f && !ent_lits(c, f, zh_not_day, NULL)) {
            if (d > ent_dim(y, m)) return (size_t)-1;
            return ent_set_date(w, ent_day(y, m, d), f);
        }
    }
    if ((e = ent_lits(c, j, parts, &k)) != 0) {
        switch (k) {
        case 0:
        case 1: return ent_set_month_end(c, w, y, m, e);
        case 2:
        case 4: return ent_set_part(w, y, m, 1, 10, e);
        case 3:
        case 6: return ent_set_part(w, y, m, 11, 20, e);
        default: return ent_set_part(w, y, m, 21, 31, e);
        }
    }
    return 0;
}

/* Year parts after "2026年"/"今年": 底, 初, 上半年, 下半年. */
static size_t zh_year_part(const ent_ctx *c, size_t j, int y, ent_when *w)
{
    static const char *const parts[] = {"底", "末", "初", "年底", "年末", "年初",
                                        "上半年", "下半年", "中", "年中", NULL};
    int k;
    size_t e = ent_lits(c, j, parts, &k);
    if (!e) return 0;
    switch (k) {
    case 0: case 1: case 3: case 4: return ent_set_year_end(c, w, y, e);
    case 2: case 5: return ent_set_month(w, y, 1, e);
    case 6: return ent_set_range(w, ent_day(y, 1, 1), ent_day(y, 6, 30), e);
    case 7: return ent_set_range(w, ent_day(y, 7, 1), ent_day(y, 12, 31), e);
    default: return ent_set_range(w, ent_day(y, 6, 1), ent_day(y, 7, 31), e);
    }
}

/* "2026年3月11日", "3月11号", "2023年5月", "下个月5号", "月底", "年底",
 * "11号". */
static size_t zh_date(const ent_ctx *c, size_t i, ent_when *w)
{
    int y = 0, m = 0, rel = 0, have_y = 0;
    size_t j = i, e;
    if ((e = zh_year(c, j, &y)) != 0) {
        have_y = 1;
        j = e;
    }
    if ((e = zh_month(c, j, &y, &m, &rel)) != 0) {
        if (rel && have_y) return 0; /* "明年下个月" */
        j = e;
        if (!have_y && !rel) {
            /* Year from the day if there is one, else from the month. */
            int d = 0;
            size_t de = ent_int_at(c, j, 1, 31, &d);
            if (!de || !(ent_lit(c, de, "日") || ent_lit(c, de, "号") ||
                         ent_lit(c, de, "號")))
                d = 0;
            if (!ent_infer_year(c, m, d, &y)) return 0;
        }
        e = zh_month_part(c, j, y, m, w);
        if (e == (size_t)-1) return 0;
        if (e) return e;
        return ent_set_month(w, y, m, j);
    }
    if (have_y) {
        if ((e = zh_year_part(c, j, y, w)) != 0) return e;
        return ent_set_year(w, y, j);
    }
    if (!c->have_ref) return 0;
    /* Standalone: "月底", "月初", "年底", "上半年". */
    if ((e = ent_lit(c, i, "月")) != 0) {
        size_t p = zh_month_part(c, e, c->y, c->m, w);
        if (p && p != (size_t)-1 && !ent_int_at(c, e, 1, 31, &m)) return p;
        return 0;
    }
    if ((e = zh_year_part(c, i, c->y, w)) != 0) {
        if (ent_lit(c, i, "底") || ent_lit(c, i, "末") || ent_lit(c, i, "初") ||
            ent_lit(c, i, "中"))
            return 0; /* bare 底/初/中 need a year or month before */
        return e;
    }
    /* "11号", "15日": a day of the nearest month (not the rest of an
     * invalid "2月30日"). */
    int d;
    uint32_t pcp = ent_prev_cp(c, i);
    if (pcp == 0x6708 /* 月 */ || (pcp < 0x80 && ent_isalnum(pcp))) return 0;
    if ((e = ent_int_at(c, i, 1, 31, &d)) != 0) {
        size_t f = ent_lit(c, e, "号");
        if (!f && ent_isdigit(ent_at(c, i))) f = ent_lit(c, e, "日");
        if (!f || ent_lits(c, f, zh_not_day, NULL) ||
            ent_lits(c, f, zh_not_bare_day, NULL))
            return 0;
        int64_t best = 0;
        int found = 0;
        for (int dm = -1; dm <= 1; dm++) {
            int yy = c->y, mm = c->m;
            ent_add_months(&yy, &mm, dm);
            if (d > ent_dim(yy, mm)) continue;
            int64_t day = ent_day(yy, mm, d);
            if (c->query && day > c->today) continue;
            int64_t dist = day > c->today ? day - c->today : c->today - day;
            if (!found || dist < (best > c->today ? best - c->today
                                                  : c->today - best)) {
                best = day;
                found = 1;
            }
        }
        return found ? ent_set_date(w, best, f) : 0;
    }
    return 0;
}

/* "第三季度", "Q3", "2026年Q3", "本季度", "上季度". */
static size_t zh_quarter(const ent_ctx *c, size_t i, ent_when *w)
{
    static const char *const rel[] = {"本季度", "这个季度", "这季度", "上季度",
                                      "上个季度", "下季度", "下个季度", NULL};
    static const int off[] = {0, 0, 0, -1, -1, 1, 1};
    int k, q, y;
    size_t e, j = i;
    if ((e = ent_lits(c, i, rel, &k)) != 0) {
        if (!c->have_ref) return 0;
        int t = c->y * 4 + (c->m - 1) / 3 + off[k];
        return ent_set_quarter(w, t / 4, t % 4 + 1, e);
    }
    int have_y = 0;
    if ((e = zh_year(c, i, &y)) != 0) {
        have_y = 1;
        j = e;
    }
    size_t d = ent_lit(c, j, "第");
    if (d) j = d;
    if ((e = ent_int_at(c, j, 1, 4, &q)) != 0 && ent_lit(c, e, "季度")) {
        e = ent_lit(c, e, "季度");
    } else if (!d && (ent_at(c, j) == 'Q' || ent_at(c, j) == 'q') &&
               ent_wstart(c, j) && ent_at(c, j + 1) >= '1' &&
               ent_at(c, j + 1) <= '4' && ent_wend(c, j + 2)) {
        q = (int)(ent_at(c, j + 1) - '0');
        e = j + 2;
        size_t f = ent_lit(c, e, "季度");
        if (f) e = f;
        if (!have_y) { /* "Q3 2026" */
            size_t s = ent_sp(c, e);
            int yy;
            if (s > e && ent_int_at(c, s, 1000, 9999, &yy)) {
                y = yy;
                have_y = 1;
                e = s + 4;
            }
        }
    } else {
        return 0;
    }
    if (!have_y) {
        if (!c->have_ref) return 0;
        y = c->y;
        if (c->query && (q - 1) * 3 + 1 > c->m) y--;
    }
    return ent_set_quarter(w, y, q, e);
}

/* Query mode (a question's period): "去年夏天", "今年春季", "2025年冬天"
 * (a season of that year), "去年这个时候", "去年同期" (the weeks around
 * today's date that year). */
static size_t zh_season(const ent_ctx *c, size_t i, ent_when *w)
{
    static const char *const seasons[] = {"春天", "春季", "夏天", "夏季", "暑假", "秋天",
                                          "秋季", "冬天", "冬季", "寒假", NULL};
    static const int season_of[] = {0, 0, 1, 1, 1, 2, 2, 3, 3, 3};
    static const char *const same[] = {"这个时候", "这时候", "的这个时候", "的这时候",
                                       "同期", "此时", "的今天", "这会儿", NULL};
    int y, k;
    size_t e, f;
    if (!c->query || !(e = zh_year(c, i, &y))) return 0;
    if ((f = ent_lit(c, e, "的"))) e = f;
    if ((f = ent_lits(c, e, seasons, &k)) != 0) return ent_set_season(w, y, season_of[k], f);
    if ((f = ent_lits(c, e, same, NULL)) != 0 && c->have_ref)
        return ent_set_same_time(c, w, y - c->y, f);
    return 0;
}

/* --------------------------------------------------------- composition */

static size_t date_at(const ent_ctx *c, size_t i, ent_when *w)
{
    unsigned b = ent_at(c, i);
    size_t e;
    w->hint = ENT_P_NONE;
    w->min = -1;
    w->bare_wd = 0;
    if (ent_isdigit(b)) {
        if ((e = ent_date_num_at(c, i, w)) != 0) return e;
        if ((e = zh_offset(c, i, w)) != 0) return e;
        if ((e = zh_quarter(c, i, w)) != 0) return e;
        if ((e = zh_date(c, i, w)) != 0) return e;
        return ent_date_en_digits_at(c, i, w);
    }
    if (ent_isalpha(b)) {
        if (!ent_wstart(c, i)) return 0;
        if ((e = zh_quarter(c, i, w)) != 0) return e; /* "Q3" */
        return ent_date_en_at(c, i, w);
    }
    if (b >= 0xE3) {
        if ((e = zh_day_word(c, i, w)) != 0) return e;
        if ((e = zh_offset(c, i, w)) != 0) return e;
        if ((e = zh_recent(c, i, w)) != 0) return e;
        if ((e = zh_quarter(c, i, w)) != 0) return e;
        if ((e = zh_week(c, i, w)) != 0) return e;
        if ((e = zh_season(c, i, w)) != 0) return e;
        return zh_date(c, i, w);
    }
    return 0;
}

/* "到5日", "-5", "to March 9", "到周五" after a date: a range. */
static size_t range_tail(const ent_ctx *c, size_t e, ent_when *w)
{
    static const char *const sym[] = {"到", "至", "~", "～", "-", "–", "—",
                                      "－", NULL};
    static const char *const words[] = {"to", "until", "till", "through",
                                        "thru", NULL};
    static const char *const ord[] = {"st", "nd", "rd", "th", NULL};
    size_t k = ent_sp(c, e), j, f, g;
    int symbolic = 1, d;
    if (!(j = ent_lits(c, k, sym, NULL))) {
        if (k == e || !(j = ent_words(c, k, words, NULL))) return 0;
        symbolic = 0;
    }
    j = ent_sp(c, j);
    /* A bare day of the same month: "3月1日到5日", "March 1-5". */
    if ((f = ent_int_at(c, j, 1, 31, &d)) != 0) {
        g = ent_lit(c, f, "日");
        if (!g) g = ent_lit(c, f, "号");
        if (!g && ent_isdigit(ent_at(c, j))) g = ent_words(c, f, ord, NULL);
        if (!g && symbolic && ent_isdigit(ent_at(c, j)) &&
            ent_at(c, f) < 0x80 && !ent_isalnum(ent_at(c, f)) &&
            ent_at(c, f) != '/' && ent_at(c, f) != ':' && ent_at(c, f) != '.')
            g = f;
        if (g) {
            int y, m, dd;
            ent_civil(w->d0, &y, &m, &dd);
            if (d <= dd || d > ent_dim(y, m)) return 0;
            w->type = AM_ENT_RANGE;
            w->d1 = ent_day(y, m, d);
            return g;
        }
    }
    ent_when w2;
    memset(&w2, 0, sizeof w2);
    size_t e2 = date_at(c, j, &w2);
    if (!e2 || (w2.type != AM_ENT_DATE && w2.type != AM_ENT_RANGE)) return 0;
    /* "周一到周五": two bare weekdays are days of one week */
    if (w->bare_wd && w2.bare_wd) {
        if (w2.bare_wd < w->bare_wd) return 0;
        w2.d1 = w->d0 + (w2.bare_wd - w->bare_wd);
    }
    if (w2.d1 < w->d0) return 0;
    w->type = AM_ENT_RANGE;
    w->d1 = w2.d1;
    return e2;
}

/* A clock right after a date: "明天下午三点半", "tomorrow at 3pm",
 * "2026-03-11T15:00", "March 11, 15:00". */
static size_t time_after(const ent_ctx *c, size_t e, ent_when *w)
{
    size_t k = e, a;
    int min;
    if (ent_at(c, k) == 'T' && ent_isdigit(ent_at(c, k + 1)) && e > 0 &&
        ent_isdigit((unsigned char)c->s[e - 1])) {
        k++;
    } else {
        k = ent_sp(c, k);
        if ((a = ent_word(c, k, "at")) != 0 || (a = ent_lit(c, k, "@")) != 0 ||
            (a = ent_lit(c, k, "的")) != 0 || (a = ent_lit(c, k, ",")) != 0)
            k = ent_sp(c, a);
    }
    size_t t = ent_clock_at(c, k, w->hint, 0, &min);
    if (!t) return 0;
    w->type = AM_ENT_DATETIME;
    w->min = min;
    return t;
}

size_t ent_time_at(const ent_ctx *c, size_t i, ent_when *w)
{
    unsigned b = ent_at(c, i);
    size_t e;
    int min;
    if (!ent_isalnum(b) && b < 0xE3) return 0;
    if ((e = date_at(c, i, w)) != 0) {
        if (w->type == AM_ENT_DATE) {
            size_t r = range_tail(c, e, w);
            if (r) return r;
            r = time_after(c, e, w);
            if (r) return r;
        }
        return e;
    }
    if ((e = ent_clock_at(c, i, ENT_P_NONE, 1, &min)) != 0) {
        w->type = AM_ENT_TIME;
        w->min = min;
        /* "3pm tomorrow", "at 10:00 on Friday" */
        size_t k = ent_sp(c, e), on = ent_word(c, k, "on");
        if (on) k = ent_sp(c, on);
        if (k > e) {
            ent_when w2;
            memset(&w2, 0, sizeof w2);
            size_t e2 = date_at(c, k, &w2);
            if (e2 && w2.type == AM_ENT_DATE) {
                w->type = AM_ENT_DATETIME;
                w->d0 = w->d1 = w2.d0;
                return e2;
            }
        }
        return e;
    }
    return 0;
}

/* ----------------------------------------------------------- recurring */

size_t ent_recurring_at(const ent_ctx *c, size_t i, char *norm, size_t cap)
{
    static const char *const abbr[] = {"mon", "tue", "wed", "thu",
                                       "fri", "sat", "sun"};
    unsigned b = ent_at(c, i);
    int mask = 0, wd;
    size_t j, e, end;
    if (b >= 0xE3) {
        static const char *const pre[] = {"每个", "每", "每逢", "逢", NULL};
        static const char *const sep[] = {"和", "、", "及", "与", "跟", "或",
                                          ",", "，", "/", NULL};
        if (!(j = ent_lits(c, i, pre, NULL))) return 0;
        if (!(j = ent_lits(c, j, zh_week_units, NULL))) return 0;
        if ((e = ent_lit(c, j, "末")) != 0) {
            mask = 0x60;
            end = e;
        } else if ((e = zh_weekday(c, j, &wd)) != 0) {
            mask = 1 << wd;
            end = e;
            for (;;) {
                size_t s = ent_lits(c, end, sep, NULL);
                if (!s) break;
                size_t u = ent_lits(c, s, zh_week_units, NULL);
                if (!(e = zh_weekday(c, u ? u : s, &wd))) break;
                mask |= 1 << wd;
                end = e;
            }
        } else {
            return 0;
        }
    } else if (ent_isalpha(b) && ent_wstart(c, i)) {
        static const char *const pre[] = {"every", "each", NULL};
        static const char *const sep[] = {"and", "or", NULL};
        if ((e = ent_en_weekday_plural(c, i, &wd)) != 0) {
            mask = 1 << wd;
            end = e;
        } else {
            if (!(j = ent_words(c, i, pre, NULL))) return 0;
            j = ent_sp(c, j);
            if ((e = ent_word(c, j, "weekend")) != 0) {
                mask = 0x60;
                end = e;
            } else if ((e = ent_en_weekday(c, j, 1, &wd)) != 0) {
                mask = 1 << wd;
                end = e;
                for (;;) {
                    size_t s = end;
                    if (ent_at(c, s) == ',' || ent_at(c, s) == '&') s++;
                    s = ent_sp(c, s);
                    size_t a = ent_words(c, s, sep, NULL);
                    if (a) s = ent_sp(c, a);
                    if (s == end || !(e = ent_en_weekday(c, s, 1, &wd))) break;
                    mask |= 1 << wd;
                    end = e;
                }
            } else {
                return 0;
            }
        }
    } else {
        return 0;
    }
    size_t o = 0;
    const char *p = "weekly:";
    while (*p && o + 1 < cap) norm[o++] = *p++;
    for (int k = 0, first = 1; k < 7; k++) {
        if (!(mask & (1 << k))) continue;
        if (!first && o + 1 < cap) norm[o++] = ',';
        for (p = abbr[k]; *p && o + 1 < cap;) norm[o++] = *p++;
        first = 0;
    }
    norm[o] = '\0';
    return end;
}
