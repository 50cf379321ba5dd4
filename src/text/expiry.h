/* SPDX-License-Identifier: Apache-2.0 */
/*
 * expiry.h -- the end a statement names for itself ("this month", "until
 * Friday", "for two weeks", "这周", "下个月之前", "月底前", "两周内"),
 * resolved against the event's own time in the event's zone.
 *
 * Built on the time entities (text/entities.h) and the cue words around
 * them, not on a list of phrases:
 *  - until an entity ("until Friday", "till April 15", "到周五", "直到
 *    月底", "截至4月15日", "周五为止"): the end of the entity -- a day
 *    counts whole (until Friday: Saturday 00:00);
 *  - before an entity ("before May", "下个月之前", "月底前", "周五以前"):
 *    a period of several days ends where it starts (before next month:
 *    the 1st, 00:00); one day named in Chinese counts whole ("月底前":
 *    by the end of the last day), in English not ("before Friday":
 *    Friday 00:00);
 *  - the current period named by itself ("this week", "this month",
 *    "today", "tonight", "这周", "本周", "这个月", "今天", "今年") or a
 *    span from now ("within 3 days", "两周内"): its end -- a week ends at
 *    the start of next Monday, local;
 *  - a duration of days or more from now ("for two weeks", "for the next
 *    3 days", "for a month", "接下来两周", "未来三天"): the event's time
 *    plus it ("for 45 minutes" tells how long something takes); "for the
 *    rest of the week/month/year/day": the end of that calendar unit.
 * Not a bound: a start ("from today on", "starting this week", "从今天
 *   起", "这周开始"), a look back ("the past 3 days", "最近三天"), a
 *   duration already run ("I've been vegetarian for two weeks", "已经两周
 *   了"), a date in the future named alone ("next Monday I'm off": a when,
 *   not an until), and a named moment ("until the launch": no date).
 * Words in quotation marks (「本周进展」, "This week", 《...》) are a title or
 * a name and bound nothing.  Several bounds: the earliest.  An end not after the event's time is no
 * bound.
 *
 * Thread-safe: no state outside the arguments; never allocates.
 */
#ifndef AM_TEXT_EXPIRY_H
#define AM_TEXT_EXPIRY_H

#include <stddef.h>

#include "agentmem.h"

/* 1 and *end (UTC ms) when text[0..len) names its own end, resolved
 * against ref (UTC ms, the event's time) in zone tz_minutes (minutes east
 * of UTC); else 0 and *end untouched.  0 as well when ref is AM_TIME_NONE
 * or text is NULL. */
int am__text_expiry(const char *text, size_t len, am_time ref, int tz_minutes, am_time *end);

#endif
