/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ent_internal.h -- what the entity matchers (src/text/ent_*.c) share: the
 * scan context, byte/word helpers, exact decimals and calendar helpers.
 *
 * A matcher looks at position i of c->s and returns the end offset of its
 * match (> i), or 0 for no match.  It never reads at or past c->n, the scan
 * limit (the start of the next entity found in the first pass, or the end
 * of the text), so every access goes through ent_at() or a bounds check.
 */
#ifndef AM_TEXT_ENT_INTERNAL_H
#define AM_TEXT_ENT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "text/entities.h"

typedef struct ent_ctx {
    const char *s;
    size_t n;   /* scan limit: no matcher reads s[n] or beyond */
    size_t len; /* whole text */
    int tz;     /* minutes east of UTC */
    int query;  /* query mode: look back, widen coarse expressions */
    int have_ref;
    am_time ref;
    int64_t today;    /* local day number of ref (days since 1970-01-01) */
    int y, m, d, wd;  /* local civil date of ref; wd 0 = Monday */
    int ref_min;      /* local minute of the day of ref */
} ent_ctx;

/* c over text[0..len) with ref in zone tz (clamped to +-18 h); query: 1
 * for query mode. */
void ent_ctx_init(ent_ctx *c, const char *text, size_t len, am_time ref, int tz, int query);

/* A count and a unit at i ("3 days", "two weeks", "a month"; "三天",
 * "两个月", "半年" -- halves converted to the smaller unit): its end, or 0;
 * *unit an ENT_U_* code, *n the count. */
size_t ent_en_count_unit(const ent_ctx *c, size_t i, int *unit, int64_t *n);
size_t ent_zh_count_unit(const ent_ctx *c, size_t i, int *unit, int64_t *n);

/* Period hints carried from a date word to the clock that follows it
 * ("今晚" + "8点" = 20:00). */
enum { ENT_P_NONE = 0, ENT_P_AM, ENT_P_NOON, ENT_P_PM, ENT_P_EVENING,
       ENT_P_NIGHT, ENT_P_DAWN };

/* A resolved time expression before it becomes an am__entity. */
typedef struct ent_when {
    int type;        /* AM_ENT_DATE, _RANGE, _TIME or _DATETIME */
    int64_t d0, d1;  /* local day numbers, inclusive */
    int min;         /* minute of the day (0..1440) for TIME/DATETIME */
    int hint;        /* ENT_P_* implied by the date word ("今晚") */
    int bare_wd;     /* 1..7 when a bare weekday ("周一", "Friday") */
} ent_when;

/* ---- bytes and words ---- */
static inline unsigned ent_at(const ent_ctx *c, size_t i)
{
    return i < c->n ? (unsigned char)c->s[i] : 0u;
}
static inline int ent_isdigit(unsigned ch) { return ch >= '0' && ch <= '9'; }
static inline int ent_isalpha(unsigned ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}
static inline int ent_isalnum(unsigned ch)
{
    return ent_isdigit(ch) || ent_isalpha(ch);
}
static inline unsigned ent_lower(unsigned ch)
{
    return (ch >= 'A' && ch <= 'Z') ? ch + 32 : ch;
}
/* i starts an ASCII word/number (the byte before is not alphanumeric). */
static inline int ent_wstart(const ent_ctx *c, size_t i)
{
    return i == 0 || !ent_isalnum((unsigned char)c->s[i - 1]);
}
/* i ends an ASCII word (the byte at i is not alphanumeric). */
static inline int ent_wend(const ent_ctx *c, size_t i)
{
    return !ent_isalnum(ent_at(c, i));
}

/* Length of the UTF-8 sequence at i (1 for an invalid or cut byte) and its
 * code point (0xFFFD when invalid). */
int ent_cp(const ent_ctx *c, size_t i, uint32_t *cp);
/* Exact bytes: i + strlen(lit), or 0. */
static inline size_t ent_lit(const ent_ctx *c, size_t i, const char *lit)
{
    size_t k = 0;
    for (; lit[k]; k++)
        if (i + k >= c->n || c->s[i + k] != lit[k]) return 0;
    return i + k;
}
/* Longest match from a NULL-terminated list; *idx its index (may be NULL). */
size_t ent_lits(const ent_ctx *c, size_t i, const char *const *list,
                int *idx);
/* ASCII word, case-insensitive, followed by a word boundary. */
static inline size_t ent_word(const ent_ctx *c, size_t i, const char *w)
{
    size_t k = 0;
    for (; w[k]; k++)
        if (ent_lower(ent_at(c, i + k)) != ent_lower((unsigned char)w[k]))
            return 0;
    return ent_wend(c, i + k) ? i + k : 0;
}
/* Longest word of a list, as ent_word; *idx its index (may be NULL). */
size_t ent_words(const ent_ctx *c, size_t i, const char *const *list,
                 int *idx);
/* The ASCII letters-and-digits word at i, lower-cased, is in sorted (n
 * lower-case words, strcmp order): its end, or 0. */
size_t ent_word_sorted(const ent_ctx *c, size_t i, const char *const *sorted,
                       size_t n);
/* Skip ASCII blanks (space, tab); returns the new position. */
size_t ent_sp(const ent_ctx *c, size_t i);
/* The ASCII word that ends right before i (blanks skipped) is one of list. */
int ent_prev_word(const ent_ctx *c, size_t i, const char *const *list);
/* The code point right before i. 0 at the start. */
uint32_t ent_prev_cp(const ent_ctx *c, size_t i);

/* ---- exact decimals: value = m * 10^e ---- */
typedef struct ent_dec {
    int64_t m;
    int e;
} ent_dec;
#define ENT_DEC_MAX 100000000000000000LL /* |m| bound: 1e17 */
/* v * 10^k; returns 0 on overflow. */
int ent_dec_scale(ent_dec *v, int k);
/* v * k for a small integer k; returns 0 on overflow. */
int ent_dec_mul(ent_dec *v, int64_t k);
/* a + b; returns 0 on overflow. */
int ent_dec_add(ent_dec *a, ent_dec b);
/* Integer value when v is a whole number that fits, else 0. */
int ent_dec_int(ent_dec v, int64_t *out);
/* "500000", "3.5", "0.05" (no exponent, no trailing zeros). */
void ent_dec_fmt(ent_dec v, char *buf, size_t cap);

/* Flags of ent_num_at. */
enum {
    ENT_N_HAN = 1,       /* has Chinese numeral characters */
    ENT_N_CONCAT = 2,    /* digit-by-digit Chinese ("二〇二六", "三五") */
    ENT_N_MAG = 4,       /* ends in 万 / 亿 (or w/W) */
    ENT_N_UNIT = 8,      /* has 十/百/千/万/亿 */
    ENT_N_LONE_ONE = 16, /* the whole numeral is "一" */
    ENT_N_ARABIC = 32,   /* starts with Arabic digits */
    ENT_N_DECIMAL = 64   /* has a decimal part */
};
/* A numeral at i: Arabic ("1,200", "3.5"), Chinese ("三千五", "两",
 * "一百零五", "二〇二六") or mixed ("3.5亿", "5千", "50w").  Returns the
 * end or 0.  Arabic numbers inside identifiers or versions are refused. */
size_t ent_num_at(const ent_ctx *c, size_t i, ent_dec *v, int *flags);
/* An English number in words at i ("two", "twenty-one", "two hundred",
 * "a" when allow_a).  Returns the end or 0. */
size_t ent_en_num_at(const ent_ctx *c, size_t i, ent_dec *v, int allow_a);
/* A small whole number in [lo, hi] at i, Arabic (1-4 digits, not part of
 * a longer number) or Chinese; returns the end or 0. */
size_t ent_int_at(const ent_ctx *c, size_t i, int lo, int hi, int *val);

/* ---- calendar ---- */
int ent_dim(int y, int m);       /* days in month */
int ent_wday(int64_t day);       /* 0 = Monday */
int64_t ent_day(int y, int m, int d);
void ent_civil(int64_t day, int *y, int *m, int *d);
void ent_add_months(int *y, int *m, int k);

/* ---- time builders (shared by the ent_time/ent_date_en matchers) ---- */
enum { ENT_U_DAY = 1, ENT_U_WEEK, ENT_U_MONTH, ENT_U_YEAR, ENT_U_HOUR,
       ENT_U_MIN, ENT_U_FORTNIGHT };

static inline size_t ent_set_date(ent_when *w, int64_t d, size_t end)
{
    w->type = AM_ENT_DATE;
    w->d0 = w->d1 = d;
    return end;
}

static inline size_t ent_set_range(ent_when *w, int64_t a, int64_t b, size_t end)
{
    w->type = AM_ENT_RANGE;
    w->d0 = a;
    w->d1 = b;
    return end;
}

static inline size_t ent_set_month(ent_when *w, int y, int m, size_t end)
{
    return ent_set_range(w, ent_day(y, m, 1), ent_day(y, m, ent_dim(y, m)), end);
}

static inline size_t ent_set_year(ent_when *w, int y, size_t end)
{
    return ent_set_range(w, ent_day(y, 1, 1), ent_day(y, 12, 31), end);
}

/* Days [a..b] of month m: "月初" 1..10, "月中" 11..20, "下旬" 21..end. */
static inline size_t ent_set_part(ent_when *w, int y, int m, int a, int b, size_t end)
{
    int dim = ent_dim(y, m);
    if (b > dim) b = dim;
    return ent_set_range(w, ent_day(y, m, a), ent_day(y, m, b), end);
}

/* "月底": the last day; in query mode days 21..end. */
static inline size_t ent_set_month_end(const ent_ctx *c, ent_when *w, int y, int m,
                            size_t end)
{
    if (c->query) return ent_set_part(w, y, m, 21, 31, end);
    return ent_set_date(w, ent_day(y, m, ent_dim(y, m)), end);
}

static inline size_t ent_set_year_end(const ent_ctx *c, ent_when *w, int y, size_t end)
{
    if (c->query) return ent_set_month(w, y, 12, end);
    return ent_set_date(w, ent_day(y, 12, 31), end);
}

static inline size_t ent_set_quarter(ent_when *w, int y, int q, size_t end)
{
    int m0 = (q - 1) * 3 + 1;
    return ent_set_range(w, ent_day(y, m0, 1),
                     ent_day(y, m0 + 2, ent_dim(y, m0 + 2)), end);
}

static inline int64_t ent_week_start(const ent_ctx *c) { return c->today - c->wd; }

/* A season of year y (0 spring Mar-May, 1 summer Jun-Aug, 2 autumn
 * Sep-Nov, 3 winter Dec..Feb of the next year), northern calendar. */
static inline size_t ent_set_season(ent_when *w, int y, int season, size_t end)
{
    int m0 = 3 + 3 * season;
    if (season == 3)
        return ent_set_range(w, ent_day(y, 12, 1), ent_day(y + 1, 2, ent_dim(y + 1, 2)), end);
    return ent_set_range(w, ent_day(y, m0, 1), ent_day(y, m0 + 2, ent_dim(y, m0 + 2)), end);
}

/* The year of the season meant by "last" (off -1: the latest one ended),
 * "this" (0) or "next" (1) from the reference date. */
static inline int ent_season_year(const ent_ctx *c, int season, int off)
{
    int mm = c->m < 3 ? c->m + 12 : c->m; /* Jan, Feb: the winter begun last Dec */
    int y = c->m < 3 ? c->y - 1 : c->y;
    int first = 3 + 3 * season, last = first + 2;
    if (off < 0) return mm > last ? y : y - 1;
    if (off > 0) return mm < first ? y : y + 1;
    return y;
}

/* The weeks around the reference date, `years` years back: "去年这个时候",
 * "this time last year". */
static inline size_t ent_set_same_time(const ent_ctx *c, ent_when *w, int years, size_t end)
{
    int64_t d = ent_day(c->y + years, c->m, c->d > ent_dim(c->y + years, c->m)
                                                ? ent_dim(c->y + years, c->m)
                                                : c->d);
    return ent_set_range(w, d - 15, d + 15, end);
}

/* A bare weekday: the next one (today included), or in query mode the
 * last one (today included). */
static inline int64_t ent_bare_weekday(const ent_ctx *c, int wd)
{
    if (c->query) return c->today - (c->wd - wd + 7) % 7;
    return c->today + (wd - c->wd + 7) % 7;
}

/* A bare weekend: this one, or in query mode the last one begun. */
static inline size_t ent_bare_weekend(const ent_ctx *c, ent_when *w, size_t end)
{
    int64_t sat = ent_week_start(c) + 5;
    if (c->query && c->wd < 5) sat -= 7;
    return ent_set_range(w, sat, sat + 1, end);
}

/* The year for month m (day d, or 0 for the whole month) written without
 * one: the nearest (a +-6 month window); in query mode the latest not
 * after today.  0 without a reference time. */
int ent_infer_year(const ent_ctx *c, int m, int d, int *year);
/* "N units before/after/within" (dir -1, +1, 0) from ref; query mode
 * widens weeks/months/years.  Returns end, or 0 when out of range. */
size_t ent_apply_offset(const ent_ctx *c, ent_when *w, int unit, int64_t n,
                        int dir, size_t end);
/* "the last N units": [today - N units, today]. */
size_t ent_apply_recent(const ent_ctx *c, ent_when *w, int unit, int64_t n,
                        size_t end);

/* ---- matchers ---- */
/* Time expressions: dates, ranges, times, date-times (ent_time.c). */
size_t ent_time_at(const ent_ctx *c, size_t i, ent_when *w);
/* Recurring weekdays: "每周四", "every Thursday" (ent_time.c). */
size_t ent_recurring_at(const ent_ctx *c, size_t i, char *norm, size_t cap);
/* Clocks: "15:00", "3pm", "下午三点半"; hint from a date word, strict when
 * no date precedes (ent_clock.c). */
size_t ent_clock_at(const ent_ctx *c, size_t i, int hint, int strict,
                    int *min);
/* Numeric dates: "2026-03-11", "2026-03-11T15:00+08:00", "3/11"
 * (ent_date_en.c). */
size_t ent_date_num_at(const ent_ctx *c, size_t i, ent_when *w);
/* English dates starting with digits: "11 March 2026", "3 days ago",
 * "in 2023" (ent_date_en.c). */
size_t ent_date_en_digits_at(const ent_ctx *c, size_t i, ent_when *w);
/* English dates starting with a word: "tomorrow", "next Friday", "end of
 * the month", "May 2023", "Friday" (ent_date_en.c). */
size_t ent_date_en_at(const ent_ctx *c, size_t i, ent_when *w);
/* An English weekday name (loose: abbreviations "Sat"/"Sun" too), and its
 * plural "Thursdays". */
size_t ent_en_weekday(const ent_ctx *c, size_t i, int loose, int *wd);
size_t ent_en_weekday_plural(const ent_ctx *c, size_t i, int *wd);
/* Turn a resolved expression into an entity; 0 when out of range. */
int ent_when_emit(const ent_ctx *c, const ent_when *w, am__entity *e);

/* Money, percents, numbers (ent_num.c). */
size_t ent_amount_at(const ent_ctx *c, size_t i, am__entity *e);
size_t ent_percent_at(const ent_ctx *c, size_t i, am__entity *e);
size_t ent_number_at(const ent_ctx *c, size_t i, am__entity *e);

/* Names, formats, URLs, files (ent_misc.c).  The *_end finders are the
 * first pass: they find spans that are recognised by their end. */
size_t ent_person_at(const ent_ctx *c, size_t i, am__entity *e);
size_t ent_format_at(const ent_ctx *c, size_t i, am__entity *e);
size_t ent_product_at(const ent_ctx *c, size_t i, am__entity *e);
/* First pass at i: a URL starting at i, or a file name / organisation
 * whose recognised suffix starts at i (the span then begins before i, at
 * or after lo).  Fills e (start, end, type, norm); returns 1 on a match. */
int ent_prepass_at(const ent_ctx *c, size_t i, size_t lo, am__entity *e);

/* Is the 3-byte UTF-8 character at p in set, a string of 3-byte
 * characters sorted by code point?  (Binary search.) */
int ent_in_set3(const char *p, const char *set);
/* A Chinese numeral character: digit 0..9 (*unit 0) or unit 10, 100, 1000,
 * 1e4, 1e8 (*digit 0).  Returns 1 if cp is one. */
int ent_zh_numeral_cp(uint32_t cp, int *digit, int64_t *unit);

/* Copy text[a..b) into norm, cut at a UTF-8 boundary to fit. */
void ent_norm_copy(am__entity *e, const char *s, size_t a, size_t b);

#endif
