/*
 * ent_time.c -- dates, date ranges, times and date-times in Chinese and
 * English, absolute ("2026年3月11日", "8 May, 2023", "2026-03-11T15:00")
 * and relative to the event time ("下周三", "三天后", "next Friday",
 * "two weeks ago", "end of the month"), plus recurring weekdays.
 *
 * Every matcher fills an ent_when with local day numbers; ent_time_at
 * then glues a following clock ("明天" + "下午三点半") or range end
 * ("3月1日" + "到" + "5日") onto a date.  The semantics (which Friday is
 * "next Friday", what "月底" means, query mode) are in text/entities.h.
 */
#include <string.h>

#include "text/ent_internal.h"

enum { U_DAY = 1, U_WEEK, U_MONTH, U_YEAR, U_HOUR, U_MIN, U_FORTNIGHT };

/* ------------------------------------------------------------ builders */

static size_t set_date(ent_when *w, int64_t d, size_t end)
{
    w->type = AM_ENT_DATE;
    w->d0 = w->d1 = d;
    return end;
}

static size_t set_range(ent_when *w, int64_t a, int64_t b, size_t end)
{
    w->type = AM_ENT_RANGE;
    w->d0 = a;
    w->d1 = b;
    return end;
}

static size_t set_month(ent_when *w, int y, int m, size_t end)
{
    return set_range(w, ent_day(y, m, 1), ent_day(y, m, ent_dim(y, m)), end);
}

static size_t set_year(ent_when *w, int y, size_t end)
{
    return set_range(w, ent_day(y, 1, 1), ent_day(y, 12, 31), end);
}

/* Days [a..b] of month m: "月初" 1..10, "月中" 11..20, "下旬" 21..end. */
static size_t set_part(ent_when *w, int y, int m, int a, int b, size_t end)
{
    int dim = ent_dim(y, m);
    if (b > dim) b = dim;
    return set_range(w, ent_day(y, m, a), ent_day(y, m, b), end);
}

/* "月底": the last day; in query mode days 21..end. */
static size_t set_month_end(const ent_ctx *c, ent_when *w, int y, int m,
                            size_t end)
{
    if (c->query) return set_part(w, y, m, 21, 31, end);
    return set_date(w, ent_day(y, m, ent_dim(y, m)), end);
}

static size_t set_year_end(const ent_ctx *c, ent_when *w, int y, size_t end)
{
    if (c->query) return set_month(w, y, 12, end);
    return set_date(w, ent_day(y, 12, 31), end);
}

static size_t set_quarter(ent_when *w, int y, int q, size_t end)
{
    int m0 = (q - 1) * 3 + 1;
    return set_range(w, ent_day(y, m0, 1),
                     ent_day(y, m0 + 2, ent_dim(y, m0 + 2)), end);
}

static int64_t week_start(const ent_ctx *c) { return c->today - c->wd; }

/* A bare weekday: the next one (today included), or in query mode the
 * last one (today included). */
static int64_t bare_weekday(const ent_ctx *c, int wd)
{
    if (c->query) return c->today - (c->wd - wd + 7) % 7;
    return c->today + (wd - c->wd + 7) % 7;
}

/* A bare weekend: this one, or in query mode the last one begun. */
static size_t bare_weekend(const ent_ctx *c, ent_when *w, size_t end)
{
    int64_t sat = week_start(c) + 5;
    if (c->query && c->wd < 5) sat -= 7;
    return set_range(w, sat, sat + 1, end);
}

/* The year for month m (day d, or 0 for the whole month) written without
 * one: nearest to today; in query mode the latest not after today. */
static int infer_year(const ent_ctx *c, int m, int d, int *year)
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
    if (unit == U_WEEK || unit == U_FORTNIGHT) {
        int64_t ws = d - ent_wday(d);
        return set_range(w, ws, ws + 6, end);
    }
    if (unit == U_MONTH) return set_month(w, y, m, end);
    if (unit == U_YEAR) return set_year(w, y, end);
    return set_date(w, d, end);
}

/* ref + n units; *exact set for hour/minute units (a date-time).  Returns
 * 0 when n is out of bounds. */
static int offset_day(const ent_ctx *c, int unit, int64_t n, int64_t *day,
                      int *min)
{
    int y = c->y, m = c->m;
    int64_t lim[] = {0, 36600, 5300, 1200, 200, 900000, 50000000, 2600};
    if (unit < U_DAY || unit > U_FORTNIGHT) return 0;
    if (n > lim[unit] || n < -lim[unit]) return 0;
    *min = -1;
    switch (unit) {
    case U_DAY: *day = c->today + n; return 1;
    case U_WEEK: *day = c->today + 7 * n; return 1;
    case U_FORTNIGHT: *day = c->today + 14 * n; return 1;
    case U_MONTH:
    case U_YEAR: {
        ent_add_months(&y, &m, unit == U_MONTH ? (int)n : (int)n * 12);
        int d = c->d > ent_dim(y, m) ? ent_dim(y, m) : c->d;
        *day = ent_day(y, m, d);
        return 1;
    }
    default: {
        am_time t = c->ref + (am_time)c->tz * 60000 +
                    n * (unit == U_HOUR ? 3600000 : 60000);
        int64_t dd = t / 86400000;
        if (t % 86400000 < 0) dd--;
        *day = dd;
        *min = (int)((t - dd * 86400000) / 60000);
        return 1;
    }
    }
}

/* Resolve "N units before/after/within" (dir -1, +1, or 0 for within). */
static size_t apply_offset(const ent_ctx *c, ent_when *w, int unit, int64_t n,
                           int dir, size_t end)
{
    int64_t day;
    int min;
    if (!c->have_ref) return 0;
    if (!offset_day(c, unit, dir < 0 ? -n : n, &day, &min)) return 0;
    if (dir == 0) return day >= c->today ? set_range(w, c->today, day, end) : 0;
    if (min >= 0) {
        w->type = AM_ENT_DATETIME;
        w->d0 = w->d1 = day;
        w->min = min;
        if (c->query && unit == U_HOUR) w->min = min / 60 * 60;
        return end;
    }
    if (c->query) return widen(w, unit, day, end);
    return set_date(w, day, end);
}

/* "最近三天", "the past two weeks": [today - n units, today]. */
static size_t apply_recent(const ent_ctx *c, ent_when *w, int unit, int64_t n,
                           size_t end)
{
    int64_t day;
    int min;
    if (!c->have_ref || unit >= U_HOUR) return 0;
    if (!offset_day(c, unit, -n, &day, &min)) return 0;
    return set_range(w, day, c->today, end);
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
    int64_t ws = week_start(c) + 7 * off;
    if ((e = zh_weekday(c, j, &wd)) != 0) {
        if (!has_pre) {
            w->bare_wd = wd + 1;
            return set_date(w, bare_weekday(c, wd), e);
        }
        return set_date(w, ws + wd, e);
    }
    if ((e = ent_lit(c, j, "末")) != 0) {
        if (!has_pre) return bare_weekend(c, w, e);
        return set_range(w, ws + 5, ws + 6, e);
    }
    if (has_pre) return set_range(w, ws, ws + 6, j);
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
    return set_date(w, c->today + off[k], e);
}

static const char *const zh_units[] = {"天", "日", "周", "星期", "礼拜",
                                       "个星期", "个礼拜", "个月", "年",
                                       "小时", "个小时", "钟头", "个钟头",
                                       "分钟", "个周", NULL};
static const int zh_unit_code[] = {U_DAY,  U_DAY,  U_WEEK, U_WEEK, U_WEEK,
                                   U_WEEK, U_WEEK, U_MONTH, U_YEAR, U_HOUR,
                                   U_HOUR, U_HOUR, U_HOUR, U_MIN, U_WEEK};

/* A count and a unit: "三天", "两个月", "半年", "半个小时".  *n is in the
 * unit, except that halves are converted ("半年" = 6 months). */
static size_t zh_count_unit(const ent_ctx *c, size_t i, int *unit, int64_t *n)
{
    int k, v;
    size_t e, j;
    if ((j = ent_lit(c, i, "半")) != 0) {
        size_t g = ent_lit(c, j, "个");
        if ((e = ent_lits(c, g ? g : j, zh_units, &k)) == 0) return 0;
        switch (zh_unit_code[k]) {
        case U_YEAR: *unit = U_MONTH; *n = 6; return e;
        case U_MONTH: *unit = U_DAY; *n = 15; return e;
        case U_HOUR: *unit = U_MIN; *n = 30; return e;
        default: return 0;
        }
    }
    if (!(j = ent_int_at(c, i, 1, 9999, &v))) return 0;
    if ((e = ent_lits(c, j, zh_units, &k)) == 0) return 0;
    *unit = zh_unit_code[k];
    *n = v;
    /* "一个半月" */
    if (*unit == U_MONTH && ent_lit(c, j, "个半月")) return 0;
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
    if (!(j = zh_count_unit(c, i, &unit, &n))) return 0;
    if (!(e = ent_lits(c, j, dirs, &k))) return 0;
    return apply_offset(c, w, unit, n, k < 4 ? 1 : k < 7 ? -1 : 0, e);
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
    if (!(e = zh_count_unit(c, j, &unit, &n))) return 0;
    return apply_recent(c, w, unit, n, e);
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

/* Part of a month after "3月"/"下个月": day, 初/中/底/旬. */
static size_t zh_month_part(const ent_ctx *c, size_t j, int y, int m,
                            ent_when *w)
{
    static const char *const parts[] = {"底", "末", "初", "中旬", "上旬",
                                        "下旬", "中", NULL};
    static const char *const not_day[] = {"楼", "线", "房", "门", "院", "馆",
                                          "厅", "机", "位", "床", "口", "车",
                                          "窗", "桌", "柜", "台", "码", "屋",
                                          "室", "店", "仓", "库", "球", "选",
                                          "元", "游", NULL};
    int k, d;
    size_t e;
    if ((e = ent_int_at(c, j, 1, 31, &d)) != 0) {
        size_t f = ent_lit(c, e, "日");
        if (!f) f = ent_lit(c, e, "号");
        if (!f) f = ent_lit(c, e, "號");
        if (f && !ent_lits(c, f, not_day, NULL)) {
            if (d > ent_dim(y, m)) return (size_t)-1;
            return set_date(w, ent_day(y, m, d), f);
        }
    }
    if ((e = ent_lits(c, j, parts, &k)) != 0) {
        switch (k) {
        case 0:
        case 1: return set_month_end(c, w, y, m, e);
        case 2:
        case 4: return set_part(w, y, m, 1, 10, e);
        case 3:
        case 6: return set_part(w, y, m, 11, 20, e);
        default: return set_part(w, y, m, 21, 31, e);
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
    case 0: case 1: case 3: case 4: return set_year_end(c, w, y, e);
    case 2: case 5: return set_month(w, y, 1, e);
    case 6: return set_range(w, ent_day(y, 1, 1), ent_day(y, 6, 30), e);
    case 7: return set_range(w, ent_day(y, 7, 1), ent_day(y, 12, 31), e);
    default: return set_range(w, ent_day(y, 6, 1), ent_day(y, 7, 31), e);
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
            if (!infer_year(c, m, d, &y)) return 0;
        }
        e = zh_month_part(c, j, y, m, w);
        if (e == (size_t)-1) return 0;
        if (e) return e;
        return set_month(w, y, m, j);
    }
    if (have_y) {
        if ((e = zh_year_part(c, j, y, w)) != 0) return e;
        return set_year(w, y, j);
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
        static const char *const not_day[] = {
            "楼", "线", "房", "门", "院", "馆", "厅", "机", "位", "床", "口",
            "车", "窗", "桌", "柜", "台", "码", "屋", "室", "店", "仓", "库",
            "球", "选", "元", "游", "内", "后", "前", "常", "记", "志", "程",
            "益", "均", "薪", "夜", "间", "语", "本", "式", "系", "报", "币",
            NULL};
        size_t f = ent_lit(c, e, "号");
        if (!f && ent_isdigit(ent_at(c, i))) f = ent_lit(c, e, "日");
        if (!f || ent_lits(c, f, not_day, NULL)) return 0;
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
        return found ? set_date(w, best, f) : 0;
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
        return set_quarter(w, t / 4, t % 4 + 1, e);
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
    return set_quarter(w, y, q, e);
}

/* ------------------------------------------------------------ numeric */

/* Two-or-fewer digit number at i in [lo, hi]; *end. */
static int digits2(const ent_ctx *c, size_t i, int lo, int hi, size_t *end)
{
    if (!ent_isdigit(ent_at(c, i))) return -1;
    int v = (int)(ent_at(c, i) - '0');
    size_t j = i + 1;
    if (ent_isdigit(ent_at(c, j))) {
        v = v * 10 + (int)(ent_at(c, j) - '0');
        j++;
    }
    if (ent_isdigit(ent_at(c, j)) || v < lo || v > hi) return -1;
    *end = j;
    return v;
}

/* A time zone after an ISO time: "Z", "+08:00", "-0500".  Minutes east. */
static size_t iso_zone(const ent_ctx *c, size_t i, int *tz)
{
    unsigned ch = ent_at(c, i);
    if (ch == 'Z' && !ent_isalnum(ent_at(c, i + 1))) {
        *tz = 0;
        return i + 1;
    }
    if (ch != '+' && ch != '-') return 0;
    size_t e;
    int h = digits2(c, i + 1, 0, 18, &e);
    if (h < 0 || e != i + 3) return 0;
    size_t j = e;
    if (ent_at(c, j) == ':') j++;
    int m = digits2(c, j, 0, 59, &e);
    if (m < 0 || e != j + 2) return 0;
    *tz = (ch == '-' ? -1 : 1) * (h * 60 + m);
    return e;
}

/* "2026-03-11", "2026/3/11", "2026.03.11", "2026-03", "2026-Q3", and an
 * ISO timestamp with a zone "2026-03-11T15:00:00+08:00". */
static size_t iso_date(const ent_ctx *c, size_t i, ent_when *w)
{
    int y, m, d;
    size_t e;
    if (i > 0) {
        unsigned p = (unsigned char)c->s[i - 1];
        if (ent_isalnum(p) || p == '.' || p == '/' || p == '_') return 0;
        if (p == '-' && i > 1 && ent_isdigit((unsigned char)c->s[i - 2]))
            return 0;
    }
    for (int k = 0; k < 4; k++)
        if (!ent_isdigit(ent_at(c, i + (size_t)k))) return 0;
    y = (int)((ent_at(c, i) - '0') * 1000 + (ent_at(c, i + 1) - '0') * 100 +
              (ent_at(c, i + 2) - '0') * 10 + (ent_at(c, i + 3) - '0'));
    size_t j = i + 4;
    unsigned sep = ent_at(c, j);
    if (y < 1000) return 0;
    if (sep == '-' && (ent_at(c, j + 1) == 'Q' || ent_at(c, j + 1) == 'q') &&
        ent_at(c, j + 2) >= '1' && ent_at(c, j + 2) <= '4' &&
        ent_wend(c, j + 3))
        return set_quarter(w, y, (int)(ent_at(c, j + 2) - '0'), j + 3);
    if (sep != '-' && sep != '/' && sep != '.') return 0;
    if ((m = digits2(c, j + 1, 1, 12, &e)) < 0) return 0;
    j = e;
    if (ent_at(c, j) != sep || !ent_isdigit(ent_at(c, j + 1))) {
        /* "2026-03": a month, written with two digits. */
        if (sep == '.' || e != i + 7) return 0;
        if (ent_at(c, j) == sep || ent_isalnum(ent_at(c, j))) return 0;
        return set_month(w, y, m, j);
    }
    if ((d = digits2(c, j + 1, 1, 31, &e)) < 0 || d > ent_dim(y, m)) return 0;
    j = e;
    if (ent_isalpha(ent_at(c, j)) && ent_at(c, j) != 'T') return 0;
    if (ent_at(c, j) == sep && ent_isdigit(ent_at(c, j + 1))) return 0;
    if (sep == '.' && ent_at(c, j) == '.' && ent_isdigit(ent_at(c, j + 1)))
        return 0;
    set_date(w, ent_day(y, m, d), j);

    /* A zoned timestamp: convert to the user's zone. */
    unsigned t = ent_at(c, j);
    if (t == 'T' || t == ' ') {
        int hh, mi, ss = 0, tz;
        size_t k = j + 1;
        if ((hh = digits2(c, k, 0, 23, &e)) < 0 || ent_at(c, e) != ':')
            return j;
        if ((mi = digits2(c, e + 1, 0, 59, &e)) < 0) return j;
        k = e;
        if (ent_at(c, k) == ':' && (ss = digits2(c, k + 1, 0, 60, &e)) >= 0) {
            k = e;
            if (ent_at(c, k) == '.' && ent_isdigit(ent_at(c, k + 1))) {
                k++;
                while (ent_isdigit(ent_at(c, k))) k++;
            }
        }
        size_t z = iso_zone(c, k, &tz);
        if (!z) return j; /* no zone: the clock glue reads it as local */
        int64_t local = (ent_day(y, m, d) * 1440 + hh * 60 + mi) - tz + c->tz;
        int64_t day = local / 1440;
        if (local % 1440 < 0) day--;
        w->type = AM_ENT_DATETIME;
        w->d0 = w->d1 = day;
        w->min = (int)(local - day * 1440);
        (void)ss;
        return z;
    }
    return j;
}

/* "3/11", "3/11/2026", "11/03/2026" (day first when the first > 12). */
static size_t slash_date(const ent_ctx *c, size_t i, ent_when *w)
{
    size_t e, j;
    if (i > 0) {
        unsigned p = (unsigned char)c->s[i - 1];
        if (ent_isalnum(p) || p == '/' || p == '.' || p == '-' || p == ':')
            return 0;
    }
    int a = digits2(c, i, 1, 31, &e);
    if (a < 0 || ent_at(c, e) != '/') return 0;
    int b = digits2(c, e + 1, 1, 31, &j);
    if (b < 0) return 0;
    int y = 0, m, d;
    if (ent_at(c, j) == '/' && ent_isdigit(ent_at(c, j + 1))) {
        size_t k = j + 1, n = 0;
        while (ent_isdigit(ent_at(c, k)) && n < 5) {
            y = y * 10 + (int)(ent_at(c, k) - '0');
            k++;
            n++;
        }
        if (n == 2) y += 2000;
        else if (n != 4) return 0;
        if (ent_isalnum(ent_at(c, k)) || ent_at(c, k) == '/') return 0;
        j = k;
        if (a > 12) { d = a; m = b; } else { m = a; d = b; }
    } else {
        if (ent_isalnum(ent_at(c, j)) || ent_at(c, j) == '/' ||
            (ent_at(c, j) == '.' && ent_isdigit(ent_at(c, j + 1))))
            return 0;
        if (a > 12) return 0; /* "24/7" */
        if (a < b && b <= 4) return 0; /* "1/2", "3/4": fractions */
        m = a;
        d = b;
        if (!infer_year(c, m, d, &y)) return 0;
    }
    if (m > 12 || d > ent_dim(y, m) || y < 1000) return 0;
    return set_date(w, ent_day(y, m, d), j);
}

/* ------------------------------------------------------------- English */

static const char *const en_months[] = {
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december", "jan", "feb", "mar",
    "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", NULL};
static const int en_month_num[] = {1, 2, 3,  4,  5, 6, 7, 8, 9, 10, 11, 12,
                                   1, 2, 3, 4, 6, 7, 8, 9, 9, 10, 11, 12};

/* A month name at i.  "May" and the abbreviations need a capital; an
 * abbreviation may take a dot. */
static size_t en_month(const ent_ctx *c, size_t i, int *m)
{
    int k;
    if (!ent_isalpha(ent_at(c, i)) || !ent_wstart(c, i)) return 0;
    size_t e = ent_words(c, i, en_months, &k);
    if (!e) return 0;
    unsigned first = ent_at(c, i);
    if ((k == 4 || k >= 12) && !(first >= 'A' && first <= 'Z')) return 0;
    if (k == 4 && ent_at(c, i + 1) == 'A') return 0; /* "MAY" */
    *m = en_month_num[k];
    if (k >= 12 && ent_at(c, e) == '.') e++;
    return e;
}

static const char *const en_wdays[] = {"monday",  "tuesday", "wednesday",
                                       "thursday", "friday", "saturday",
                                       "sunday",  "mon",     "tue",
                                       "tues",    "wed",     "thu",
                                       "thur",    "thurs",   "fri",
                                       "sat",     "sun",     NULL};
static const int en_wd_num[] = {0, 1, 2, 3, 4, 5, 6, 0, 1,
                                1, 2, 3, 3, 3, 4, 5, 6};

/* A weekday name at i.  Abbreviations need a capital, and "Sat"/"Sun"
 * count only when loose (after "next", "every"...). */
static size_t en_weekday(const ent_ctx *c, size_t i, int loose, int *wd)
{
    int k;
    if (!ent_isalpha(ent_at(c, i)) || !ent_wstart(c, i)) return 0;
    size_t e = ent_words(c, i, en_wdays, &k);
    if (!e) return 0;
    if (k >= 7) {
        unsigned first = ent_at(c, i);
        if (!(first >= 'A' && first <= 'Z')) return 0;
        if (k >= 15 && !loose) return 0;
        if (ent_at(c, e) == '.') e++;
    }
    *wd = en_wd_num[k];
    return e;
}

/* A four-digit year 1000..2999 at i, as a whole word. */
static size_t en_year(const ent_ctx *c, size_t i, int *y)
{
    if (!ent_wstart(c, i)) return 0;
    for (int k = 0; k < 4; k++)
        if (!ent_isdigit(ent_at(c, i + (size_t)k))) return 0;
    if (ent_isalnum(ent_at(c, i + 4))) return 0;
    *y = (int)((ent_at(c, i) - '0') * 1000 + (ent_at(c, i + 1) - '0') * 100 +
               (ent_at(c, i + 2) - '0') * 10 + (ent_at(c, i + 3) - '0'));
    return *y >= 1000 && *y <= 2999 ? i + 4 : 0;
}

/* A day of the month with an optional ordinal: "11", "11th", "1st". */
static size_t en_mday(const ent_ctx *c, size_t i, int *d)
{
    static const char *const ord[] = {"st", "nd", "rd", "th", NULL};
    size_t e;
    if (i > 0 && ent_isalnum((unsigned char)c->s[i - 1])) return 0;
    int v = digits2(c, i, 1, 31, &e);
    if (v < 0) return 0;
    size_t o = ent_words(c, e, ord, NULL);
    if (o) e = o;
    else if (ent_isalpha(ent_at(c, e))) return 0;
    *d = v;
    return e;
}

/* ", 2023" / " 2023" after a month or day. */
static size_t en_year_tail(const ent_ctx *c, size_t j, int *y)
{
    size_t k = j;
    if (ent_at(c, k) == ',') k++;
    k = ent_sp(c, k);
    if (k == j) return 0;
    return en_year(c, k, y);
}

/* Month [day] [year], given the month at i..e. */
static size_t en_month_date(const ent_ctx *c, size_t i, ent_when *w,
                            int need_cue)
{
    int m, d, y;
    size_t e = en_month(c, i, &m), j, k;
    if (!e) return 0;
    k = ent_sp(c, e);
    if (k > e && (j = en_mday(c, k, &d)) != 0 &&
        !(ent_at(c, j) == ':' && ent_isdigit(ent_at(c, j + 1)))) {
        size_t t = en_year_tail(c, j, &y);
        if (t) {
            if (d > ent_dim(y, m)) return 0;
            return set_date(w, ent_day(y, m, d), t);
        }
        if (en_year(c, k, &y)) goto month_year; /* "May 2023" */
        if (!infer_year(c, m, d, &y)) return 0;
        return set_date(w, ent_day(y, m, d), j);
    }
month_year:
    if ((j = en_year_tail(c, e, &y)) != 0) return set_month(w, y, m, j);
    if (need_cue) {
        static const char *const cues[] = {
            "in", "during", "since", "until", "till", "by", "of", "from",
            "before", "after", "early", "late", "mid", "throughout",
            "around", "this", "for", "through", "to", NULL};
        unsigned first = ent_at(c, i);
        if (!(first >= 'A' && first <= 'Z') || e - i < 3) return 0;
        if (!ent_prev_word(c, i, cues)) return 0;
    }
    if (!infer_year(c, m, 0, &y)) return 0;
    return set_month(w, y, m, e);
}

/* "11 March 2026", "8 May, 2023", "11th of March". */
static size_t en_day_month(const ent_ctx *c, size_t i, ent_when *w)
{
    int d, m, y;
    size_t e = en_mday(c, i, &d), k;
    if (!e) return 0;
    k = ent_sp(c, e);
    size_t of = ent_word(c, k, "of");
    if (of) k = ent_sp(c, of);
    if (k == e) return 0;
    static const char *const lower_may[] = {"may", NULL};
    size_t me = en_month(c, k, &m);
    if (!me && ent_words(c, k, lower_may, NULL)) { /* "8 may 2023" */
        me = k + 3;
        m = 5;
    }
    if (!me) return 0;
    size_t t = en_year_tail(c, me, &y);
    if (t) {
        if (d > ent_dim(y, m)) return 0;
        return set_date(w, ent_day(y, m, d), t);
    }
    if (!infer_year(c, m, d, &y)) return 0;
    return set_date(w, ent_day(y, m, d), me);
}

static const char *const en_units[] = {
    "day",  "days", "week",  "weeks", "month", "months",  "year",
    "years", "hour", "hours", "hr",   "hrs",  "minute",  "minutes",
    "min",  "mins", "fortnight", "fortnights", NULL};
static const int en_unit_code[] = {
    U_DAY,  U_DAY,  U_WEEK, U_WEEK, U_MONTH, U_MONTH, U_YEAR, U_YEAR, U_HOUR,
    U_HOUR, U_HOUR, U_HOUR, U_MIN,  U_MIN,   U_MIN,   U_MIN,  U_FORTNIGHT,
    U_FORTNIGHT};

/* "3 days", "two weeks", "a month", "a couple of days". */
static size_t en_count_unit(const ent_ctx *c, size_t i, int *unit, int64_t *n)
{
    int v, k;
    size_t e;
    ent_dec dv;
    int64_t x;
    if (ent_isdigit(ent_at(c, i))) {
        if (!(e = ent_int_at(c, i, 1, 9999, &v))) return 0;
        x = v;
    } else {
        if (!(e = ent_en_num_at(c, i, &dv, 1)) || !ent_dec_int(dv, &x) ||
            x < 1 || x > 9999)
            return 0;
    }
    size_t s = ent_sp(c, e);
    if (s == e) return 0;
    if (!(e = ent_words(c, s, en_units, &k))) return 0;
    *unit = en_unit_code[k];
    *n = x;
    return e;
}

/* "3 days ago", "two weeks from now", "a month later". */
static size_t en_ago(const ent_ctx *c, size_t i, ent_when *w)
{
    int unit;
    int64_t n;
    size_t e = en_count_unit(c, i, &unit, &n), k, f;
    if (!e) return 0;
    k = ent_sp(c, e);
    if ((f = ent_word(c, k, "ago")) != 0 || (f = ent_word(c, k, "earlier")) != 0)
        return apply_offset(c, w, unit, n, -1, f);
    if ((f = ent_word(c, k, "later")) != 0)
        return apply_offset(c, w, unit, n, 1, f);
    if ((f = ent_word(c, k, "from")) != 0) {
        size_t g = ent_sp(c, f);
        size_t h = ent_word(c, g, "now");
        if (!h) h = ent_word(c, g, "today");
        if (h) return apply_offset(c, w, unit, n, 1, h);
    }
    return 0;
}

/* "in two weeks", "within 3 days". ("after a day" is relative to
 * something else, not to the event.) */
static size_t en_in(const ent_ctx *c, size_t i, ent_when *w)
{
    static const char *const pre[] = {"in", "within", NULL};
    int k, unit;
    int64_t n;
    size_t e = ent_words(c, i, pre, &k), s;
    if (!e || (s = ent_sp(c, e)) == e) return 0;
    size_t t = ent_word(c, s, "the");
    if (t) return 0; /* "in the next 3 days": not handled */
    if (!(e = en_count_unit(c, s, &unit, &n))) return 0;
    if (k == 0) {
        size_t a = ent_sp(c, e);
        if (ent_word(c, a, "ago")) return 0;
    }
    return apply_offset(c, w, unit, n, k == 1 ? 0 : 1, e);
}

/* "the past 3 days", "last two weeks", "the previous 6 months". */
static size_t en_recent(const ent_ctx *c, size_t i, ent_when *w)
{
    static const char *const pre[] = {"past", "last", "previous", NULL};
    int unit;
    int64_t n;
    size_t j = i, e, t = ent_word(c, i, "the");
    if (t) j = ent_sp(c, t);
    if (!(e = ent_words(c, j, pre, NULL))) return 0;
    size_t s = ent_sp(c, e);
    if (s == e) return 0;
    if ((e = en_count_unit(c, s, &unit, &n)) != 0)
        return apply_recent(c, w, unit, n, e);
    /* "the past week" = the last seven days */
    if (t && ent_word(c, j, "past")) {
        int k;
        if ((e = ent_words(c, s, en_units, &k)) != 0)
            return apply_recent(c, w, en_unit_code[k], 1, e);
    }
    return 0;
}

/* "today", "tonight", "tomorrow morning", "the day after tomorrow". */
static size_t en_day_word(const ent_ctx *c, size_t i, ent_when *w)
{
    static const char *const words[] = {"today", "tonight", "tomorrow",
                                        "tmrw", "yesterday", "tmr", NULL};
    static const int off[] = {0, 0, 1, 1, -1, 1};
    static const char *const parts[] = {"morning", "afternoon", "evening",
                                        "night", NULL};
    static const int part_hint[] = {ENT_P_AM, ENT_P_PM, ENT_P_EVENING,
                                    ENT_P_NIGHT};
    int k, p;
    size_t e, j = i;
    if (!c->have_ref) return 0;
    size_t t = ent_word(c, j, "the");
    if (t) j = ent_sp(c, t);
    if ((e = ent_word(c, j, "day")) != 0) {
        size_t s = ent_sp(c, e), f;
        if ((f = ent_word(c, s, "after")) != 0 &&
            (f = ent_word(c, ent_sp(c, f), "tomorrow")) != 0)
            return set_date(w, c->today + 2, f);
        if ((f = ent_word(c, s, "before")) != 0 &&
            (f = ent_word(c, ent_sp(c, f), "yesterday")) != 0)
            return set_date(w, c->today - 2, f);
        return 0;
    }
    if (t) return 0;
    if ((e = ent_words(c, i, words, &k)) != 0) {
        w->hint = k == 1 ? ENT_P_EVENING : ENT_P_NONE;
        set_date(w, c->today + off[k], e);
        size_t s = ent_sp(c, e), f;
        if (k != 1 && s > e && (f = ent_words(c, s, parts, &p)) != 0) {
            w->hint = part_hint[p];
            return f;
        }
        return e;
    }
    return 0;
}

/* "next week", "last Friday", "this weekend", "last night", "this
 * morning", "next quarter", "last May", "the weekend". */
static size_t en_modified(const ent_ctx *c, size_t i, ent_when *w)
{
    static const char *const mods[] = {"next", "last", "this", "coming",
                                       "previous", "the", NULL};
    static const int mod_off[] = {1, -1, 0, 0, -1, 0};
    static const char *const what[] = {"week", "month", "year", "weekend",
                                       "quarter", "night", "morning",
                                       "afternoon", "evening", NULL};
    int k, q, wd, m;
    size_t e, s, f;
    if (!c->have_ref || !(e = ent_words(c, i, mods, &k))) return 0;
    s = ent_sp(c, e);
    if (s == e) return 0;
    int off = mod_off[k];
    if (k == 5) { /* "the weekend" */
        if ((f = ent_word(c, s, "weekend")) != 0) return bare_weekend(c, w, f);
        return 0;
    }
    if ((f = ent_words(c, s, what, &q)) != 0) {
        int64_t ws = week_start(c) + 7 * off;
        int y = c->y, mm = c->m;
        switch (q) {
        case 0: return set_range(w, ws, ws + 6, f);
        case 1:
            ent_add_months(&y, &mm, off);
            return set_month(w, y, mm, f);
        case 2: return set_year(w, c->y + off, f);
        case 3: return set_range(w, ws + 5, ws + 6, f);
        case 4: {
            int t = c->y * 4 + (c->m - 1) / 3 + off;
            return set_quarter(w, t / 4, t % 4 + 1, f);
        }
        case 5: /* "last night", "tonight" is a day word */
            if (k != 1 && k != 2) return 0;
            w->hint = ENT_P_NIGHT;
            return set_date(w, c->today + (k == 1 ? -1 : 0), f);
        default:
            if (k != 2) return 0;
            w->hint = q == 6 ? ENT_P_AM : q == 7 ? ENT_P_PM : ENT_P_EVENING;
            return set_date(w, c->today, f);
        }
    }
    if ((f = en_weekday(c, s, 1, &wd)) != 0) {
        if (k == 3) return set_date(w, bare_weekday(c, wd), f); /* coming */
        return set_date(w, week_start(c) + 7 * off + wd, f);
    }
    if ((f = en_month(c, s, &m)) != 0 && ent_at(c, s) >= 'A' &&
        ent_at(c, s) <= 'Z') {
        int y = c->y;
        if (k == 1 || k == 4) y = m >= c->m ? c->y - 1 : c->y;
        else if (k == 0) y = m > c->m ? c->y : c->y + 1;
        return set_month(w, y, m, f);
    }
    return 0;
}

/* "end of the month", "the beginning of next year", "end of March",
 * "mid-March", "early May 2023", "late next month" is not handled. */
static size_t en_edge(const ent_ctx *c, size_t i, ent_when *w)
{
    static const char *const edges[] = {"end", "beginning", "start", "middle",
                                        "early", "mid", "late", NULL};
    static const char *const dets[] = {"the", "this", "next", "last", NULL};
    static const int det_off[] = {0, 0, 1, -1};
    static const char *const what[] = {"month", "year", "week", "quarter", NULL};
    int k, d = -1, q, y, m;
    size_t j = i, e, s;
    size_t t = ent_word(c, j, "the");
    if (t) j = ent_sp(c, t);
    if (!(e = ent_words(c, j, edges, &k))) {
        /* "month-end", "year-end" */
        static const char *const ends[] = {"month", "year", NULL};
        if (t || !(e = ent_words(c, i, ends, &q)) || ent_at(c, e) != '-' ||
            !(s = ent_word(c, e + 1, "end")) || !c->have_ref)
            return 0;
        if (q == 0) return set_month_end(c, w, c->y, c->m, s);
        return set_year_end(c, w, c->y, s);
    }
    s = e;
    if (k >= 4) { /* early/mid/late + month */
        if (t) return 0;
        if (ent_at(c, s) == '-') s++;
        else s = ent_sp(c, s);
        ent_when mw;
        size_t me = en_month_date(c, s, &mw, 0);
        if (!me || mw.type != AM_ENT_RANGE) return 0;
        ent_civil(mw.d0, &y, &m, &q);
        if (k == 4) return set_part(w, y, m, 1, 10, me);
        if (k == 5) return set_part(w, y, m, 11, 20, me);
        return set_part(w, y, m, 21, 31, me);
    }
    s = ent_sp(c, s);
    if (!(s = ent_word(c, s, "of"))) return 0;
    s = ent_sp(c, s);
    int di;
    size_t de = ent_words(c, s, dets, &di);
    if (de) {
        d = det_off[di];
        s = ent_sp(c, de);
    }
    if ((e = ent_words(c, s, what, &q)) != 0) {
        if (!c->have_ref) return 0;
        if (d < -1) d = 0;
        if (!de && q != 0 && q != 1) return 0;
        if (!de) d = 0;
        y = c->y;
        m = c->m;
        if (q == 0) {
            ent_add_months(&y, &m, d);
            if (k == 0) return set_month_end(c, w, y, m, e);
            if (k == 3) return set_part(w, y, m, 11, 20, e);
            return set_part(w, y, m, 1, 10, e);
        }
        if (q == 1) {
            y += d;
            if (k == 0) return set_year_end(c, w, y, e);
            if (k == 3) return set_range(w, ent_day(y, 6, 1), ent_day(y, 7, 31), e);
            return set_month(w, y, 1, e);
        }
        if (q == 2) { /* the working week: Monday .. Friday */
            int64_t ws = week_start(c) + 7 * d;
            if (k == 0) return set_date(w, ws + 4, e);
            if (k == 3) return set_date(w, ws + 2, e);
            return set_date(w, ws, e);
        }
        int tq = c->y * 4 + (c->m - 1) / 3 + d;
        y = tq / 4;
        m = tq % 4 * 3 + 1;
        if (k == 0) return set_month_end(c, w, y, m + 2, e);
        return set_month(w, y, k == 3 ? m + 1 : m, e);
    }
    if (de && di != 0) return 0;
    ent_when mw;
    size_t me = en_month_date(c, s, &mw, 0);
    if (!me || mw.type != AM_ENT_RANGE) return 0;
    ent_civil(mw.d0, &y, &m, &q);
    if (k == 0) return set_month_end(c, w, y, m, me);
    if (k == 3) return set_part(w, y, m, 11, 20, me);
    return set_part(w, y, m, 1, 10, me);
}

/* "in 2023", "during 2022": a bare year after a cue word. */
static size_t en_cued_year(const ent_ctx *c, size_t i, ent_when *w)
{
    static const char *const cues[] = {"in", "during", "since", "until",
                                       "till", "by", "of", "from", "before",
                                       "after", "throughout", "year", "early",
                                       "late", "mid", "around", NULL};
    int y;
    size_t e = en_year(c, i, &y);
    if (!e || !ent_prev_word(c, i, cues)) return 0;
    return set_year(w, y, e);
}

/* ------------------------------------------------------------- clocks */

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

/* A clock time at i: "15:00", "3pm", "3:30 p.m.", "下午三点半", "十点一刻",
 * "3点05分", "noon", "5 o'clock".  hint: period from a date word; strict:
 * no date before it, so "三点" alone must show it is a time. */
static size_t clock_at(const ent_ctx *c, size_t i, int hint, int strict,
                       int *min)
{
    static const char *const ampm[] = {"am", "pm", "a.m.", "p.m.", "a.m",
                                       "p.m", NULL};
    int k, period = ENT_P_NONE, h, mm = 0, v;
    size_t j = i, e;
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
        /* "明天中午", "中午" after a date: noon itself. */
        if (has_period && !strict && (period == ENT_P_NOON)) {
            *min = 720;
            return j;
        }
        return 0;
    }
    j = e;
    /* "15:00", "3:30pm", "15：00" */
    size_t colon = ent_at(c, j) == ':' ? j + 1 : ent_lit(c, j, "：");
    if (arabic && colon && ent_isdigit(ent_at(c, colon)) &&
        ent_isdigit(ent_at(c, colon + 1)) && !ent_isdigit(ent_at(c, colon + 2))) {
        mm = (int)((ent_at(c, colon) - '0') * 10 + (ent_at(c, colon + 1) - '0'));
        if (mm > 59) return 0;
        j = colon + 2;
        if (ent_at(c, j) == ':' && ent_isdigit(ent_at(c, j + 1)) &&
            ent_isdigit(ent_at(c, j + 2)) && !ent_isdigit(ent_at(c, j + 3)))
            j += 3;
        if (ent_at(c, j) == ':' || (ent_at(c, j) == '.' && ent_isdigit(ent_at(c, j + 1))))
            return 0; /* "1:23:45:67", "10:30.5" */
        size_t s = ent_sp(c, j), a;
        if ((a = ent_words(c, s, ampm, &k)) != 0 ||
            ((a = ent_lits(c, s, ampm, &k)) != 0 && !ent_isalpha(ent_at(c, a)))) {
            if (h < 1 || h > 12) return 0;
            h = (k % 2 == 0) ? (h == 12 ? 0 : h) : (h == 12 ? 12 : h + 12);
            *min = h * 60 + mm;
            return a;
        }
        if (ent_isalpha(ent_at(c, j))) return 0;
        if (has_period || hint) h = apply_period(h, period);
        if (h * 60 + mm > 1440) return 0;
        *min = h * 60 + mm;
        return j;
    }
    /* "3pm", "3 p.m.", "5 o'clock" */
    if (arabic) {
        size_t s = ent_sp(c, j), a;
        if ((a = ent_words(c, s, ampm, &k)) != 0 ||
            ((a = ent_lits(c, s, ampm, &k)) != 0 && !ent_isalpha(ent_at(c, a)))) {
            if (h < 1 || h > 12) return 0;
            h = (k % 2 == 0) ? (h == 12 ? 0 : h) : (h == 12 ? 12 : h + 12);
            *min = h * 60;
            return a;
        }
        if (s > j && ((a = ent_lit(c, s, "o'clock")) != 0 ||
                      (a = ent_lit(c, s, "o\xE2\x80\x99" "clock")) != 0)) {
            if (h < 1 || h > 12) return 0;
            if (!has_period && !hint && h <= 6) h += 12;
            *min = h * 60;
            return a;
        }
    }
    /* "tonight at 8": a bare hour after a date word that names the part
     * of the day. */
    if (arabic && !strict && hint && !has_period && ent_wend(c, j) &&
        ent_at(c, j) < 0x80 && h >= 1 && h <= 12) {
        *min = apply_period(h, hint) * 60;
        return j;
    }
    /* "三点", "3点半", "十点一刻", "3点05分", "15时" */
    static const char *const dian[] = {"点", "點", "时", "時", NULL};
    if (!(e = ent_lits(c, j, dian, &k))) return 0;
    if (!has_period && !hint && ent_lits(c, e, zh_points, NULL)) return 0;
    j = e;
    int minute_part = 0;
    if ((e = ent_lit(c, j, "半")) != 0) { mm = 30; j = e; minute_part = 1; }
    else if ((e = ent_lit(c, j, "一刻")) != 0) { mm = 15; j = e; minute_part = 1; }
    else if ((e = ent_lit(c, j, "三刻")) != 0) { mm = 45; j = e; minute_part = 1; }
    else if ((e = ent_lit(c, j, "整")) != 0) { j = e; minute_part = 1; }
    else if ((e = ent_lit(c, j, "钟")) != 0) { j = e; minute_part = 1; }
    else {
        size_t z = ent_lit(c, j, "零");
        size_t q = z ? z : j;
        if ((e = ent_int_at(c, q, 0, 59, &v)) != 0 &&
            !(ent_isdigit(ent_at(c, q)) && ent_lit(c, e, "%"))) {
            size_t f = ent_lit(c, e, "分");
            if (f && ent_lit(c, f, "钟")) f = 0; /* "三点十分钟" */
            /* "三点二十" needs a minute reading: 分, two digits, or 零. */
            if (f || z || (ent_isdigit(ent_at(c, q)) && e - q == 2) ||
                (!ent_isdigit(ent_at(c, q)) && v >= 10)) {
                mm = v;
                j = f ? f : e;
                minute_part = 1;
            }
        }
    }
    if (!has_period && !hint && !minute_part && strict && !arabic) return 0;
    if (has_period || hint) h = apply_period(h, period);
    else if (h >= 1 && h <= 6) h += 12; /* "3点开会": business hours */
    if (h * 60 + mm > 1440) return 0;
    *min = h * 60 + mm;
    return j;
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
        if ((e = iso_date(c, i, w)) != 0) return e;
        if ((e = slash_date(c, i, w)) != 0) return e;
        if ((e = zh_offset(c, i, w)) != 0) return e;
        if ((e = zh_quarter(c, i, w)) != 0) return e;
        if ((e = zh_date(c, i, w)) != 0) return e;
        if ((e = en_day_month(c, i, w)) != 0) return e;
        if ((e = en_ago(c, i, w)) != 0) return e;
        return en_cued_year(c, i, w);
    }
    if (ent_isalpha(b)) {
        if (!ent_wstart(c, i)) return 0;
        if ((e = en_day_word(c, i, w)) != 0) return e;
        if ((e = en_recent(c, i, w)) != 0) return e;
        if ((e = en_modified(c, i, w)) != 0) return e;
        if ((e = en_in(c, i, w)) != 0) return e;
        if ((e = en_ago(c, i, w)) != 0) return e;
        if ((e = en_edge(c, i, w)) != 0) return e;
        if ((e = zh_quarter(c, i, w)) != 0) return e;
        if ((e = en_month_date(c, i, w, 1)) != 0) return e;
        int wd;
        if (c->have_ref && (e = en_weekday(c, i, 0, &wd)) != 0) {
            w->bare_wd = wd + 1;
            return set_date(w, bare_weekday(c, wd), e);
        }
        return 0;
    }
    if (b >= 0xE3) {
        if ((e = zh_day_word(c, i, w)) != 0) return e;
        if ((e = zh_offset(c, i, w)) != 0) return e;
        if ((e = zh_recent(c, i, w)) != 0) return e;
        if ((e = zh_quarter(c, i, w)) != 0) return e;
        if ((e = zh_week(c, i, w)) != 0) return e;
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
    size_t t = clock_at(c, k, w->hint, 0, &min);
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
    if ((e = clock_at(c, i, ENT_P_NONE, 1, &min)) != 0) {
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

static size_t en_weekday_plural(const ent_ctx *c, size_t i, int *wd)
{
    int k;
    for (k = 0; k < 7; k++) {
        size_t l = strlen(en_wdays[k]), j;
        for (j = 0; j < l; j++)
            if (ent_lower(ent_at(c, i + j)) != (unsigned char)en_wdays[k][j])
                break;
        if (j == l && ent_at(c, i + l) == 's' && ent_wend(c, i + l + 1)) {
            *wd = k;
            return i + l + 1;
        }
    }
    return 0;
}

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
        if ((e = en_weekday_plural(c, i, &wd)) != 0) {
            mask = 1 << wd;
            end = e;
        } else {
            if (!(j = ent_words(c, i, pre, NULL))) return 0;
            j = ent_sp(c, j);
            if ((e = ent_word(c, j, "weekend")) != 0) {
                mask = 0x60;
                end = e;
            } else if ((e = en_weekday(c, j, 1, &wd)) != 0) {
                mask = 1 << wd;
                end = e;
                for (;;) {
                    size_t s = end;
                    if (ent_at(c, s) == ',' || ent_at(c, s) == '&') s++;
                    s = ent_sp(c, s);
                    size_t a = ent_words(c, s, sep, NULL);
                    if (a) s = ent_sp(c, a);
                    if (s == end || !(e = en_weekday(c, s, 1, &wd))) break;
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
