/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ent_date_en.c -- numeric dates ("2026-03-11", "2026-03-11T15:00:00+08:00",
 * "3/11", "31/12/2026") and English date expressions ("11 March 2026",
 * "8 May, 2023", "next Friday", "three months ago", "in two weeks", "end of
 * the month", "mid-March", "this weekend", "in 2023").
 *
 * "May" needs a capital and a day, a year or a cue word ("in May"), so
 * "May I ask" is no date; "M/D" with the first number > 12 ("24/7") and
 * small fractions ("1/2", "3/4") are not dates either.
 */
#include <string.h>

#include "text/ent_internal.h"

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
        return ent_set_quarter(w, y, (int)(ent_at(c, j + 2) - '0'), j + 3);
    if (sep != '-' && sep != '/' && sep != '.') return 0;
    if ((m = digits2(c, j + 1, 1, 12, &e)) < 0) return 0;
    j = e;
    if (ent_at(c, j) != sep || !ent_isdigit(ent_at(c, j + 1))) {
        /* "2026-03": a month, written with two digits. */
        if (sep == '.' || e != i + 7) return 0;
        if (ent_at(c, j) == sep || ent_isalnum(ent_at(c, j))) return 0;
        return ent_set_month(w, y, m, j);
    }
    if ((d = digits2(c, j + 1, 1, 31, &e)) < 0 || d > ent_dim(y, m)) return 0;
    j = e;
    if (ent_isalpha(ent_at(c, j)) && ent_at(c, j) != 'T') return 0;
    if (ent_at(c, j) == sep && ent_isdigit(ent_at(c, j + 1))) return 0;
    if (sep == '.' && ent_at(c, j) == '.' && ent_isdigit(ent_at(c, j + 1)))
        return 0;
    ent_set_date(w, ent_day(y, m, d), j);

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
        if (!ent_infer_year(c, m, d, &y)) return 0;
    }
    if (m > 12 || d > ent_dim(y, m) || y < 1000) return 0;
    return ent_set_date(w, ent_day(y, m, d), j);
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
size_t ent_en_weekday(const ent_ctx *c, size_t i, int loose, int *wd)
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
            return ent_set_date(w, ent_day(y, m, d), t);
        }
        if (en_year(c, k, &y)) goto month_year; /* "May 2023" */
        if (!ent_infer_year(c, m, d, &y)) return 0;
        return ent_set_date(w, ent_day(y, m, d), j);
    }
month_year:
    if ((j = en_year_tail(c, e, &y)) != 0) return ent_set_month(w, y, m, j);
    if (need_cue) {
        static const char *const cues[] = {
            "in", "during", "since", "until", "till", "by", "of", "from",
            "before", "after", "early", "late", "mid", "throughout",
            "around", "this", "for", "through", "to", NULL};
        unsigned first = ent_at(c, i);
        if (!(first >= 'A' && first <= 'Z') || e - i < 3) return 0;
        if (!ent_prev_word(c, i, cues)) return 0;
    }
    if (!ent_infer_year(c, m, 0, &y)) return 0;
    return ent_set_month(w, y, m, e);
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
        return ent_set_date(w, ent_day(y, m, d), t);
    }
    if (!ent_infer_year(c, m, d, &y)) return 0;
    return ent_set_date(w, ent_day(y, m, d), me);
}

static const char *const en_units[] = {
    "day",  "days", "week",  "weeks", "month", "months",  "year",
    "years", "hour", "hours", "hr",   "hrs",  "minute",  "minutes",
    "min",  "mins", "fortnight", "fortnights", NULL};
static const int en_unit_code[] = {
    ENT_U_DAY,  ENT_U_DAY,  ENT_U_WEEK, ENT_U_WEEK, ENT_U_MONTH, ENT_U_MONTH, ENT_U_YEAR, ENT_U_YEAR, ENT_U_HOUR,
    ENT_U_HOUR, ENT_U_HOUR, ENT_U_HOUR, ENT_U_MIN,  ENT_U_MIN,   ENT_U_MIN,   ENT_U_MIN,  ENT_U_FORTNIGHT,
    ENT_U_FORTNIGHT};

/* "3 days", "two weeks", "a month", "a couple of days". */
size_t ent_en_count_unit(const ent_ctx *c, size_t i, int *unit, int64_t *n)
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
    size_t e = ent_en_count_unit(c, i, &unit, &n), k, f;
    if (!e) return 0;
    k = ent_sp(c, e);
    if ((f = ent_word(c, k, "ago")) != 0 || (f = ent_word(c, k, "earlier")) != 0)
        return ent_apply_offset(c, w, unit, n, -1, f);
    if ((f = ent_word(c, k, "later")) != 0)
        return ent_apply_offset(c, w, unit, n, 1, f);
    if ((f = ent_word(c, k, "from")) != 0) {
        size_t g = ent_sp(c, f);
        size_t h = ent_word(c, g, "now");
        if (!h) h = ent_word(c, g, "today");
        if (h) return ent_apply_offset(c, w, unit, n, 1, h);
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
    if (!(e = ent_en_count_unit(c, s, &unit, &n))) return 0;
    if (k == 0) {
        size_t a = ent_sp(c, e);
        if (ent_word(c, a, "ago")) return 0;
    }
    return ent_apply_offset(c, w, unit, n, k == 1 ? 0 : 1, e);
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
    if ((e = ent_en_count_unit(c, s, &unit, &n)) != 0)
        return ent_apply_recent(c, w, unit, n, e);
    /* "the past week" = the last seven days */
    if (t && ent_word(c, j, "past")) {
        int k;
        if ((e = ent_words(c, s, en_units, &k)) != 0)
            return ent_apply_recent(c, w, en_unit_code[k], 1, e);
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
            return ent_set_date(w, c->today + 2, f);
        if ((f = ent_word(c, s, "before")) != 0 &&
            (f = ent_word(c, ent_sp(c, f), "yesterday")) != 0)
            return ent_set_date(w, c->today - 2, f);
        return 0;
    }
    if (t) return 0;
    if ((e = ent_words(c, i, words, &k)) != 0) {
        w->hint = k == 1 ? ENT_P_EVENING : ENT_P_NONE;
        ent_set_date(w, c->today + off[k], e);
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
        if ((f = ent_word(c, s, "weekend")) != 0) return ent_bare_weekend(c, w, f);
        return 0;
    }
    if ((f = ent_words(c, s, what, &q)) != 0) {
        int64_t ws = ent_week_start(c) + 7 * off;
        int y = c->y, mm = c->m;
        switch (q) {
        case 0: return ent_set_range(w, ws, ws + 6, f);
        case 1:
            ent_add_months(&y, &mm, off);
            return ent_set_month(w, y, mm, f);
        case 2: return ent_set_year(w, c->y + off, f);
        case 3: return ent_set_range(w, ws + 5, ws + 6, f);
        case 4: {
            int t = c->y * 4 + (c->m - 1) / 3 + off;
            return ent_set_quarter(w, t / 4, t % 4 + 1, f);
        }
        case 5: /* "last night", "tonight" is a day word */
            if (k != 1 && k != 2) return 0;
            w->hint = ENT_P_NIGHT;
            return ent_set_date(w, c->today + (k == 1 ? -1 : 0), f);
        default:
            if (k != 2) return 0;
            w->hint = q == 6 ? ENT_P_AM : q == 7 ? ENT_P_PM : ENT_P_EVENING;
            return ent_set_date(w, c->today, f);
        }
    }
    /* query mode: "last summer", "this winter", "this time last year" */
    static const char *const seasons[] = {"spring", "summer", "autumn", "fall", "winter", NULL};
    static const int season_of[] = {0, 1, 2, 2, 3};
    if (c->query && k != 5 && (f = ent_words(c, s, seasons, &q)) != 0)
        return ent_set_season(w, ent_season_year(c, season_of[q], k == 3 ? 1 : off), season_of[q],
                              f);
    if (c->query && k == 2 && (f = ent_word(c, s, "time")) != 0) {
        size_t g = ent_sp(c, f), h;
        if ((h = ent_word(c, g, "last")) != 0 && (h = ent_word(c, ent_sp(c, h), "year")) != 0)
            return ent_set_same_time(c, w, -1, h);
    }
    if ((f = ent_en_weekday(c, s, 1, &wd)) != 0) {
        if (k == 3) return ent_set_date(w, ent_bare_weekday(c, wd), f); /* coming */
        return ent_set_date(w, ent_week_start(c) + 7 * off + wd, f);
    }
    if ((f = en_month(c, s, &m)) != 0 && ent_at(c, s) >= 'A' &&
        ent_at(c, s) <= 'Z') {
        int y = c->y;
        if (k == 1 || k == 4) y = m >= c->m ? c->y - 1 : c->y;
        else if (k == 0) y = m > c->m ? c->y : c->y + 1;
        return ent_set_month(w, y, m, f);
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
        if (q == 0) return ent_set_month_end(c, w, c->y, c->m, s);
        return ent_set_year_end(c, w, c->y, s);
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
        if (k == 4) return ent_set_part(w, y, m, 1, 10, me);
        if (k == 5) return ent_set_part(w, y, m, 11, 20, me);
        return ent_set_part(w, y, m, 21, 31, me);
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
            if (k == 0) return ent_set_month_end(c, w, y, m, e);
            if (k == 3) return ent_set_part(w, y, m, 11, 20, e);
            return ent_set_part(w, y, m, 1, 10, e);
        }
        if (q == 1) {
            y += d;
            if (k == 0) return ent_set_year_end(c, w, y, e);
            if (k == 3) return ent_set_range(w, ent_day(y, 6, 1), ent_day(y, 7, 31), e);
            return ent_set_month(w, y, 1, e);
        }
        if (q == 2) { /* the working week: Monday .. Friday */
            int64_t ws = ent_week_start(c) + 7 * d;
            if (k == 0) return ent_set_date(w, ws + 4, e);
            if (k == 3) return ent_set_date(w, ws + 2, e);
            return ent_set_date(w, ws, e);
        }
        int tq = c->y * 4 + (c->m - 1) / 3 + d;
        y = tq / 4;
        m = tq % 4 * 3 + 1;
        if (k == 0) return ent_set_month_end(c, w, y, m + 2, e);
        return ent_set_month(w, y, k == 3 ? m + 1 : m, e);
    }
    if (de && di != 0) return 0;
    ent_when mw;
    size_t me = en_month_date(c, s, &mw, 0);
    if (!me || mw.type != AM_ENT_RANGE) return 0;
    ent_civil(mw.d0, &y, &m, &q);
    if (k == 0) return ent_set_month_end(c, w, y, m, me);
    if (k == 3) return ent_set_part(w, y, m, 11, 20, me);
    return ent_set_part(w, y, m, 1, 10, me);
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
    return ent_set_year(w, y, e);
}

size_t ent_en_weekday_plural(const ent_ctx *c, size_t i, int *wd)
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


/* ---------------------------------------------------------- dispatchers */

size_t ent_date_num_at(const ent_ctx *c, size_t i, ent_when *w)
{
    size_t e = iso_date(c, i, w);
    return e ? e : slash_date(c, i, w);
}

size_t ent_date_en_digits_at(const ent_ctx *c, size_t i, ent_when *w)
{
    size_t e;
    if ((e = en_day_month(c, i, w)) != 0) return e;
    if ((e = en_ago(c, i, w)) != 0) return e;
    return en_cued_year(c, i, w);
}

size_t ent_date_en_at(const ent_ctx *c, size_t i, ent_when *w)
{
    size_t e;
    int wd;
    if ((e = en_day_word(c, i, w)) != 0) return e;
    if ((e = en_recent(c, i, w)) != 0) return e;
    if ((e = en_modified(c, i, w)) != 0) return e;
    if ((e = en_in(c, i, w)) != 0) return e;
    if ((e = en_ago(c, i, w)) != 0) return e;
    if ((e = en_edge(c, i, w)) != 0) return e;
    if ((e = en_month_date(c, i, w, 1)) != 0) return e;
    if (c->have_ref && (e = ent_en_weekday(c, i, 0, &wd)) != 0) {
        w->bare_wd = wd + 1;
        return ent_set_date(w, ent_bare_weekday(c, wd), e);
    }
    return 0;
}
