/* SPDX-License-Identifier: Apache-2.0 */
/*
 * entities.h -- deterministic entity extraction and normalisation for the
 * write path and for the time range of a query.
 *
 * No model, no allocation, one left-to-right pass over the bytes: URLs,
 * file names and organisations (which are found from their end: ".pdf",
 * "公司", "Inc") are located first; then each position is tried against
 * the time, amount, percent, person, format and number matchers in that
 * order, and the first match wins.  Entities never overlap and come out
 * sorted by start offset.  Chinese and English are handled side by side;
 * Arabic, Chinese ("三千五", "二〇二六", "两") and English ("twenty-one",
 * "two hundred") numerals are understood everywhere a number may appear.
 *
 * Time semantics (all calendar math in the user's zone, weeks start on
 * Monday):
 *  - a day is [local 00:00, next local 00:00) in UTC ms; a RANGE is whole
 *    days [first, last] (norm "first/last", inclusive); a DATETIME is one
 *    minute; a TIME alone has no date (from/to = AM_TIME_NONE).
 *  - relative expressions ("明天", "下周三", "three months ago") resolve
 *    against ref, the event's own time.
 *  - a month/day without a year ("3月11日", "March 11", "3/11") takes the
 *    year that puts its start nearest to ref (a +-6 month window); a bare
 *    weekday ("周五", "on Friday") is the next one (today included).  In
 *    query mode (am__query_time_range) both look back instead: the latest
 *    one not after today.
 *  - "下周三"/"next Wednesday" is Wednesday of next week, "上周五"/"last
 *    Friday" Friday of the previous week, "这周五"/"this Friday" Friday of
 *    the current week.
 *  - "月底"/"end of the month" and "年底" are the last day (a deadline); in
 *    query mode they widen to days 21..end / all of December.  "月初" is
 *    days 1..10, "月中" 11..20, "上旬/中旬/下旬" likewise; "end of the
 *    week" is Friday.  "周末"/"the weekend" is Saturday..Sunday of this
 *    week (query mode: the last one begun).
 *  - "三天内"/"within 3 days" is the range today..today+3; "最近三天"/"the
 *    past 3 days" is today-3..today.
 *  - "N天后/前", "in N days", "N weeks ago" are one day ("两小时后" a
 *    date-time); in query mode "N weeks/months/years ago" widen to that
 *    calendar week/month/year.
 *  - a duration alone is not a date: "我三天没睡好" gives NUMBER 3, no DATE.
 *  - hours without am/pm written with 点 ("3点", "明天3点") between 1 and 6
 *    are read as afternoon (13:00-18:00); "03:00" is taken literally.
 *
 * Normalised values (norm, NUL-terminated, at most 79 bytes, longer URLs
 * and file names are cut -- start/end always give the whole surface):
 *   date "2026-03-11"; time "15:00"; datetime "2026-03-11T15:00";
 *   range "2026-03-01/2026-03-31"; amount "CNY 500000" ("500000" when no
 *   currency is named: "50万", "3.5亿"); number "12", "3.5"; percent "0.05";
 *   url as written; file the file name; format "pdf", "xlsx", "docx",
 *   "pptx", "md", "csv", "json", "html", "txt", "table", "bullets",
 *   "mindmap", "chart"; weekday_recurring "weekly:thu" or
 *   "weekly:mon,wed"; person/org/product the surface text.
 *
 * Thread-safe: no state outside the arguments.
 */
#ifndef AM_TEXT_ENTITIES_H
#define AM_TEXT_ENTITIES_H

#include <stddef.h>

#include "agentmem.h"

typedef enum {
    AM_ENT_DATE = 1,
    AM_ENT_TIME,
    AM_ENT_DATETIME,
    AM_ENT_RANGE, /* date interval */
    AM_ENT_AMOUNT, /* money */
    AM_ENT_NUMBER,
    AM_ENT_PERCENT,
    AM_ENT_PERSON,
    AM_ENT_ORG,
    AM_ENT_PRODUCT,
    AM_ENT_URL,
    AM_ENT_FILE,
    AM_ENT_FORMAT,
    AM_ENT_WEEKDAY_RECURRING /* "每周四", "every Thursday" */
} am__ent_type;

#define AM_ENT_NORM_MAX 80

typedef struct am__entity {
    int type;
    size_t start, end; /* byte offsets of the matched surface text */
    char norm[AM_ENT_NORM_MAX]; /* normalised value, see above */
    am_time from, to; /* dates/ranges/datetimes: UTC ms [from,to), else
                         AM_TIME_NONE */
} am__entity;

/* "date", "time", "datetime", "range", "amount", "number", "percent",
 * "person", "org", "product", "url", "file", "format", "weekday_recurring";
 * "unknown" for anything else.  Static string. */
const char *am__ent_type_name(int type);

/* Extract the entities of text[0..len) (UTF-8, need not be NUL-terminated;
 * invalid bytes are skipped).  Relative expressions resolve against ref
 * (UTC ms, the event's own time) in the zone tz_minutes (minutes east of
 * UTC, clamped to +-18 h); when ref is AM_TIME_NONE or outside years
 * 1000..9999, expressions that need it are not extracted.  Writes at most
 * max entities to out, sorted by start, and their number to *n.  Never
 * allocates.  Returns AM_OK, or AM_MISUSE when n is NULL, or text is NULL
 * with len > 0, or out is NULL with max > 0. */
int am__entities_extract(const char *text, size_t len, am_time ref,
                         int tz_minutes, am__entity *out, size_t max,
                         size_t *n);

/* Resolve the time expression(s) of a query into one range [*from,*to)
 * (UTC ms; the hull when the query names several).  Returns 1 when the
 * query names a date, date range or date-time ("last month", "上周",
 * "三个月前", "yesterday", "2023年5月", "in May 2023", "8 May, 2023"), else
 * 0 and leaves *from and *to untouched.  Bare times ("3pm") and recurring
 * weekdays do not count.  Expressions look back (see "query mode" above). */
int am__query_time_range(const char *text, size_t len, am_time now,
                         int tz_minutes, am_time *from, am_time *to);

#endif
