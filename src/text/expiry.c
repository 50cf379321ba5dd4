/* SPDX-License-Identifier: Apache-2.0 */
/*
 * expiry.c -- the end a statement names for itself (text/expiry.h): each
 * time entity the text holds (text/entities.h) is read with the cue words
 * right around it (until / before / since / a look back), and durations
 * ("for two weeks", "接下来两周") are read with the entity scanner's own
 * count-and-unit matchers.  All calendar math in the event's zone.
 */
#include <string.h>

#include "text/ent_internal.h"
#include "text/expiry.h"

#define MAX_ENT 32
#define DAY_MS 86400000LL

/* UTC ms of the local midnight that starts day */
static am_time day_start(const ent_ctx *c, int64_t day)
{
    return (am_time)day * DAY_MS - (am_time)c->tz * 60000;
}

/* text[0..i) ends with one of list (exact bytes) */
static int ends_with_any(const ent_ctx *c, size_t i, const char *const *list)
{
    for (int k = 0; list[k]; k++) {
        size_t l = strlen(list[k]);
        if (i >= l && memcmp(c->s + i - l, list[k], l) == 0) return 1;
    }
    return 0;
}

/* the entity's surface starts with one of list (ASCII words, any case, or
 * exact bytes for Chinese) */
static int starts_with_any(const ent_ctx *c, const am__entity *e, const char *const *list)
{
    for (int k = 0; list[k]; k++) {
        size_t l = strlen(list[k]);
        if (e->end - e->start < l) continue;
        if ((unsigned char)list[k][0] < 0x80 ? ent_word(c, e->start, list[k]) != 0
                                             : memcmp(c->s + e->start, list[k], l) == 0)
            return 1;
    }
    return 0;
}

/* the word `w` occurs in text[0..i) */
static int word_before(const ent_ctx *c, size_t i, const char *w)
{
    for (size_t k = 0; k < i; k++)
        if (ent_wstart(c, k) && ent_word(c, k, w) && k + strlen(w) <= i) return 1;
    return 0;
}

/* ------------------------------------------------------------ entities */

enum { CUE_NONE, CUE_UNTIL, CUE_BEFORE, CUE_SINCE };

/* The cue around entity e: what it says of the statement's time. */
static int cue_of(const ent_ctx *c, const am__entity *e)
{
    static const char *const en_since[] = {"from", "since", "starting", "beginning", "after",
                                           "of", "effective", NULL};
    static const char *const en_until[] = {"until", "till", "til", "through", "thru", NULL};
    static const char *const en_before[] = {"before", NULL};
    static const char *const zh_since_pre[] = {"从", "自", "自从", "打从", "由", NULL};
    static const char *const zh_since_post[] = {"起", "开始", "以来", "以后", "之后", "后", NULL};
    static const char *const zh_until_pre[] = {"到", "直到", "截至", "截止到", "截止", "至", NULL};
    static const char *const zh_until_post[] = {"为止", "截止", NULL};
    static const char *const zh_before_post[] = {"之前", "以前", "前", NULL};
    static const char *const en_on[] = {"on", "onward", "onwards", NULL};
    if (ent_prev_word(c, e->start, en_since) || ends_with_any(c, e->start, zh_since_pre) ||
        ent_lits(c, e->end, zh_since_post, NULL) || ent_words(c, ent_sp(c, e->end), en_on, NULL))
        return CUE_SINCE;
    if (ent_prev_word(c, e->start, en_until) || ends_with_any(c, e->start, zh_until_pre) ||
        ent_lits(c, e->end, zh_until_post, NULL))
        return CUE_UNTIL;
    if (ent_prev_word(c, e->start, en_before)) return CUE_BEFORE;
    if (ent_lits(c, e->end, zh_before_post, NULL)) return CUE_BEFORE + 10; /* Chinese */
    return CUE_NONE;
}

/* The end entity e sets for the statement, or AM_TIME_NONE. */
static am_time entity_end(const ent_ctx *c, const am__entity *e)
{
    /* the current period, named from now: "this week", "today", "这个
     * 月", "本周", "今天", "within 3 days", "两周内" */
    static const char *const deictic[] = {"this", "today", "tonight", "这", "本", "今", "当", NULL};
    static const char *const zh_within[] = {"内", "以内", "之内", NULL};
    /* a look back is no bound: "the past 3 days", "最近三天" */
    static const char *const back[] = {"the", "past", "last", "previous", "recent",
                                       "最近", "过去", "近", NULL};
    if (e->type != AM_ENT_DATE && e->type != AM_ENT_RANGE && e->type != AM_ENT_DATETIME)
        return AM_TIME_NONE;
    if (e->from == AM_TIME_NONE || e->to == AM_TIME_NONE) return AM_TIME_NONE;
    int cue = cue_of(c, e);
    switch (cue) {
    case CUE_SINCE: return AM_TIME_NONE;
    case CUE_UNTIL: return e->to;
    case CUE_BEFORE: return e->from;
    case CUE_BEFORE + 10: /* "下个月之前": where the month starts; "月底前": by its end */
        return e->to - e->from > DAY_MS + 3600000 ? e->from : e->to;
    default: break;
    }
    if (e->type == AM_ENT_DATETIME || e->from > c->ref || e->to <= c->ref) return AM_TIME_NONE;
    int within = ends_with_any(c, e->end, zh_within) || ent_word(c, e->start, "within");
    /* "两小时内", "within an hour": how soon, not how long (a day at most) */
    if (within && e->to - e->from <= DAY_MS + 3600000) return AM_TIME_NONE;
    if (!within && (!starts_with_any(c, e, deictic) || starts_with_any(c, e, back)))
        return AM_TIME_NONE;
    return e->to;
}

/* ------------------------------------------------------------ durations */

/* A span a lasting statement can be bounded by: days or more ("for 45
 * minutes", "两小时" tell how long something takes, not how long it holds) */
static int bounding_unit(int unit)
{
    return unit == ENT_U_DAY || unit == ENT_U_WEEK || unit == ENT_U_FORTNIGHT ||
           unit == ENT_U_MONTH || unit == ENT_U_YEAR;
}

/* ref + n units, the same local time of day (months and years by the
 * calendar, the day cut to the month's length) */
static am_time plus(const ent_ctx *c, int unit, int64_t n)
{
    am_time in_day = c->ref + (am_time)c->tz * 60000 - (am_time)c->today * DAY_MS;
    int y = c->y, m = c->m, d = c->d;
    switch (unit) {
    case ENT_U_DAY: return c->ref + (am_time)n * DAY_MS;
    case ENT_U_WEEK: return c->ref + (am_time)n * 7 * DAY_MS;
    case ENT_U_FORTNIGHT: return c->ref + (am_time)n * 14 * DAY_MS;
    case ENT_U_MONTH:
    case ENT_U_YEAR:
        ent_add_months(&y, &m, (int)(unit == ENT_U_MONTH ? n : n * 12));
        if (d > ent_dim(y, m)) d = ent_dim(y, m);
        return day_start(c, ent_day(y, m, d)) + in_day;
    default: return AM_TIME_NONE;
    }
}

/* The end of the calendar unit (day, week, month, year) now is in. */
static am_time unit_end(const ent_ctx *c, int unit)
{
    int y = c->y, m = c->m;
    switch (unit) {
    case ENT_U_DAY: return day_start(c, c->today + 1);
    case ENT_U_WEEK: return day_start(c, c->today - c->wd + 7);
    case ENT_U_MONTH: ent_add_months(&y, &m, 1); return day_start(c, ent_day(y, m, 1));
    case ENT_U_YEAR: return day_start(c, ent_day(y + 1, 1, 1));
    default: return AM_TIME_NONE;
    }
}

/* "rest of the month" / "rest of this week" at i (the word "rest") */
static am_time rest_of(const ent_ctx *c, size_t i)
{
    static const char *const det[] = {"the", "this", NULL};
    static const char *const units[] = {"day", "week", "month", "year", NULL};
    static const int code[] = {ENT_U_DAY, ENT_U_WEEK, ENT_U_MONTH, ENT_U_YEAR};
    int k;
    size_t j = ent_word(c, i, "rest");
    if (!j || !(j = ent_word(c, ent_sp(c, j), "of"))) return AM_TIME_NONE;
    if (!(j = ent_words(c, ent_sp(c, j), det, NULL))) return AM_TIME_NONE;
    if (!ent_words(c, ent_sp(c, j), units, &k)) return AM_TIME_NONE;
    return unit_end(c, code[k]);
}

/* "for two weeks", "for the next 3 days", "for another month" at i (the
 * word "for"), unless the duration has already run ("have been ... for
 * two weeks", "for two weeks now") */
static am_time for_duration(const ent_ctx *c, size_t i)
{
    static const char *const next[] = {"next", "coming", "following", NULL};
    static const char *const after[] = {"now", "already", "ago", NULL};
    int unit;
    int64_t n;
    size_t j = ent_word(c, i, "for"), e;
    if (!j) return AM_TIME_NONE;
    j = ent_sp(c, j);
    if ((e = ent_word(c, j, "the"))) {
        if (!(e = ent_words(c, ent_sp(c, e), next, NULL))) return AM_TIME_NONE;
        j = ent_sp(c, e);
    } else if ((e = ent_word(c, j, "another"))) {
        j = ent_sp(c, e);
    }
    if (!(e = ent_en_count_unit(c, j, &unit, &n)) || !bounding_unit(unit)) return AM_TIME_NONE;
    if (ent_words(c, ent_sp(c, e), after, NULL) || word_before(c, i, "been"))
        return AM_TIME_NONE;
    return plus(c, unit, n);
}

/* "接下来两周", "未来三天", "今后一个月" at i, unless "已经" came before */
static am_time zh_duration(const ent_ctx *c, size_t i)
{
    static const char *const pre[] = {"接下来的", "接下来", "未来的", "未来", "今后", NULL};
    static const char *const done[] = {"已经", NULL};
    int unit;
    int64_t n;
    size_t j = ent_lits(c, i, pre, NULL), e;
    if (!j) return AM_TIME_NONE;
    if (!(e = ent_zh_count_unit(c, j, &unit, &n)) || !bounding_unit(unit)) return AM_TIME_NONE;
    for (size_t k = 0; k < i; k++)
        if (ent_lits(c, k, done, NULL)) return AM_TIME_NONE;
    return plus(c, unit, n);
}

/* ------------------------------------------------------------ quotes */

/* How a quotation mark at i moves the depth of quoted text ("「本周进展」"
 * is a title, not a bound): +1 an opening one, -1 a closing one, 2 the
 * ASCII double quote (it toggles), 0 none; *len its bytes. */
static int quote_at(const ent_ctx *c, size_t i, size_t *len)
{
    static const char *const open[] = {"\xE3\x80\x8C", "\xE3\x80\x8E", "\xE2\x80\x9C",
                                       "\xE3\x80\x8A", NULL}; /* 「 『 “ 《 */
    static const char *const close[] = {"\xE3\x80\x8D", "\xE3\x80\x8F", "\xE2\x80\x9D",
                                        "\xE3\x80\x8B", NULL}; /* 」 』 ” 》 */
    size_t e;
    *len = 1;
    if (ent_at(c, i) == '"') return 2;
    if ((e = ent_lits(c, i, open, NULL))) { *len = e - i; return 1; }
    if ((e = ent_lits(c, i, close, NULL))) { *len = e - i; return -1; }
    return 0;
}

/* ------------------------------------------------------------ the end */

static void keep_earliest(const ent_ctx *c, am_time t, am_time *best)
{
    if (t != AM_TIME_NONE && t > c->ref && (*best == AM_TIME_NONE || t < *best)) *best = t;
}

int am__text_expiry(const char *text, size_t len, am_time ref, int tz_minutes, am_time *end)
{
    if (!text || !end || len == 0 || ref == AM_TIME_NONE) return 0;
    am__entity ents[MAX_ENT];
    size_t n = 0;
    if (am__entities_extract(text, len, ref, tz_minutes, ents, MAX_ENT, &n)) return 0;
    ent_ctx c;
    ent_ctx_init(&c, text, len, ref, tz_minutes, 0);
    if (!c.have_ref) return 0;
    am_time best = AM_TIME_NONE;
    /* one pass: quoted text (a title, a name) bounds nothing */
    int depth = 0, ascii_open = 0;
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        size_t ql;
        int q = quote_at(&c, i, &ql);
        if (q == 2) ascii_open = !ascii_open;
        else if (q == 1) depth++;
        else if (q == -1 && depth > 0) depth--;
        for (; k < n && ents[k].start <= i; k++)
            if (!depth && !ascii_open) keep_earliest(&c, entity_end(&c, &ents[k]), &best);
        if (q) {
            i += ql - 1;
            continue;
        }
        if (depth || ascii_open) continue;
        unsigned ch = ent_at(&c, i);
        if (ch < 0x80) {
            if (!ent_wstart(&c, i) || !ent_isalpha(ch)) continue;
            keep_earliest(&c, for_duration(&c, i), &best);
            keep_earliest(&c, rest_of(&c, i), &best);
        } else if ((ch & 0xC0) != 0x80) {
            keep_earliest(&c, zh_duration(&c, i), &best);
        }
    }
    if (best == AM_TIME_NONE) return 0;
    *end = best;
    return 1;
}
