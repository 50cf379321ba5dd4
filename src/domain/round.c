/* SPDX-License-Identifier: Apache-2.0 */
/*
 * round.c -- rounds of a task: a task is
 * worked on in rounds, and what was said for one round (a one-off, "这次用
 * 要点式就行"; its notes, artifacts and pending decisions) belongs to that
 * round only.
 *
 * A round ends
 *  - when the task is finished (done, delivered) or cancelled: the round is
 *    archived then, and the next event that reopens the task starts the
 *    next round;
 *  - for a periodic task, when its period ends: the calendar day, week
 *    (weeks start on Monday), month, quarter or year that holds the round's
 *    start, in the zone offset of the event that started it.
 * A new round starts at the first stage ("collecting"), active, with no
 * notes, artifacts or pending decisions; the ended round's stage, status,
 * notes, artifacts and pending decisions stay in the task's `rounds` list
 * (oldest first), and every round change is a task_history row ("round").
 *
 * Periodicity is read from the task itself, never from a list of task
 * ids: the first time its id, its name or the text of one of its events
 * names a recurrence (the period table of text/lexicon/task_cues.c: "周报",
 * "每个月", "weekly", "daily standup"), the task has that period.  A word
 * that only dates one piece of work ("这周", "this month") does not count.
 *
 * An unfinished round whose period has ended is carried into the next
 * period by an explicit continuation ("接着把周报弄完", "let's finish the
 * report": the continuation cues of task.h) said during that next period:
 * last week's report finished on Monday is still last week's round, and
 * its start moves to the continuation, so the carried round runs to the
 * end of the new period.  Anything else said in a later period starts a
 * new round.
 *
 * Writes decide rounds at each event's own time (perceive/state.c), so a
 * replay of a task's events (a rebuild after a forget, api/forget.c)
 * rebuilds the same rounds; reads (a recall, `task`) see a periodic task
 * as it stands at the reading time: a period that ended since the last
 * event shows the new round (am__round_view), without writing anything.
 */
#include "domain/task.h"

#include <stdio.h>
#include <string.h>

#include "text/lexicon/lexicon.h"

#define DAY_MS 86400000LL

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

const char *am__round_period(const char *norm, size_t n)
{
    const char *best = NULL;
    size_t best_at = 0;
    size_t nrules = sizeof am__lex_task_period_rules / sizeof *am__lex_task_period_rules;
    for (size_t i = 0; i < nrules; i++) {
        am__cue_hit h;
        if (am__cue_scan(norm, n, am__lex_task_period_rules[i].cues, NULL, AM__CUE_FIRST, &h) &&
            (!best || h.at < best_at)) {
            best = am__lex_task_period_rules[i].name;
            best_at = h.at;
        }
    }
    return best;
}

/* First day (days since 1970-01-01, local) of the period holding day d,
 * and of the next one. */
static int period_days(const char *period, int64_t d, int64_t *first, int64_t *next)
{
    if (strcmp(period, "day") == 0) {
        *first = d;
        *next = d + 1;
        return 1;
    }
    if (strcmp(period, "week") == 0) {
        int64_t wd = floor_div(d + 3, 7) * 7 - 3; /* 1970-01-01 was a Thursday */
        *first = wd;
        *next = wd + 7;
        return 1;
    }
    int y;
    unsigned m, dd;
    am__civil_from_days(d, &y, &m, &dd);
    unsigned span = strcmp(period, "month") == 0     ? 1
                    : strcmp(period, "quarter") == 0 ? 3
                    : strcmp(period, "year") == 0    ? 12
                                                     : 0;
    if (!span) return 0;
    unsigned m0 = (m - 1) / span * span + 1;
    unsigned m1 = m0 + span;
    int64_t y1 = y;
    if (m1 > 12) {
        m1 -= 12;
        y1++;
    }
    *first = am__days_from_civil(y, m0, 1);
    *next = am__days_from_civil(y1, m1, 1);
    return 1;
}

int am__round_bounds(const char *period, am_time at, int tz_minutes, am_time *start,
                     am_time *end)
{
    if (!period || at == AM_TIME_NONE) return 0;
    int64_t off = (int64_t)tz_minutes * 60000;
    int64_t first, next;
    if (!period_days(period, floor_div(at + off, DAY_MS), &first, &next)) return 0;
    *start = first * DAY_MS - off;
    *end = next * DAY_MS - off;
    return 1;
}

int am__round_ended(const am__task_row *t, am_time at)
{
    am_time s, e;
    return am__round_bounds(t->period, t->round_at, t->round_tz, &s, &e) && at >= e;
}

int am__round_carries(const am__task_row *t, am_time at)
{
    am_time s, e, s2, e2;
    if (!am__task_open_status(t->status) ||
        !am__round_bounds(t->period, t->round_at, t->round_tz, &s, &e))
        return 0;
    return am__round_bounds(t->period, e, t->round_tz, &s2, &e2) && at >= e && at < e2;
}

int am__round_archive(am__arena *ar, am__task_row *t, am_time ended_at, const char *end)
{
    am__buf b;
    am__buf_init(&b, ar->a);
    const char *arr = t->rounds ? t->rounds : "[]";
    size_t n = strlen(arr);
    while (n > 0 && arr[n - 1] != ']') n--;
    int empty = 1;
    for (size_t i = 1; i + 1 < n; i++)
        if (arr[i] != ' ') empty = 0;
    if (n >= 2) am__buf_add(&b, arr, n - 1);
    else am__buf_addc(&b, '[');
    if (!empty && n >= 2) am__buf_addc(&b, ',');
    char ts[32];
    am__buf_printf(&b, "{\"round\":%d,\"started_at\":\"%s\"", t->round > 0 ? t->round : 1,
                   am__time_format(t->round_from, t->round_tz, ts));
    am__buf_printf(&b, ",\"ended_at\":\"%s\",\"end\":", am__time_format(ended_at, t->round_tz, ts));
    am__buf_json_str(&b, end);
    am__buf_adds(&b, ",\"stage\":");
    if (t->stage) am__buf_json_str(&b, t->stage);
    else am__buf_adds(&b, "null");
    am__buf_adds(&b, ",\"status\":");
    am__buf_json_str(&b, t->status);
    am__buf_printf(&b, ",\"notes\":%s,\"artifacts\":%s,\"pending\":%s}]",
                   t->notes ? t->notes : "[]", t->artifacts ? t->artifacts : "[]",
                   t->pending ? t->pending : "[]");
    const char *out = b.oom ? NULL : am__arena_strndup(ar, b.p, b.len);
    am__buf_free(&b);
    if (!out) return AM_NOMEM;
    t->rounds = out;
    return AM_OK;
}

void am__round_start(am__task_row *t, am_time at, int tz_minutes)
{
    t->round = (t->round > 0 ? t->round : 1) + 1;
    t->round_from = t->round_at = at;
    t->round_tz = tz_minutes;
    t->stage = "collecting";
    t->status = "active";
    t->notes = t->artifacts = t->pending = "[]";
}

int am__round_view(am__arena *ar, am__task_row *t, am_time now, int carry)
{
    am_time s, e;
    if (!t->period || strcmp(t->status, "cancelled") == 0 || !am__round_ended(t, now) ||
        (carry && am__round_carries(t, now)))
        return AM_OK;
    int open = am__task_open_status(t->status);
    if (open) {
        am_time ps, pe;
        am__round_bounds(t->period, t->round_at, t->round_tz, &ps, &pe);
        int rc = am__round_archive(ar, t, pe, "period");
        if (rc) return rc;
    }
    if (!am__round_bounds(t->period, now, t->round_tz, &s, &e)) return AM_OK;
    am__round_start(t, s, t->round_tz);
    return AM_OK;
}
