/* SPDX-License-Identifier: Apache-2.0 */
/*
 * patterns.c -- periodic patterns: the same kind of request at a similar weekday and time
 * of day over several weeks becomes a `pattern` item ("usually works on
 * weekly-report on Friday afternoons").
 *
 * "The same kind of request" is the same task, or -- for an event without
 * a task -- token-set Jaccard >= 0.6 with it (ASCII words and Han bigrams:
 * request_set, cheap enough for every event sharing the slot).  "Similar
 * weekday and time" is the same local weekday (each event's own zone)
 * within +-2 hours of the event's local time.  At least 3 distinct weeks
 * (the event's and two of the LOOKBACK_WEEKS before it, one of them last
 * week or the week before: "usually", not "now and then") make a pattern,
 * confidence 0.5; each later week adds 0.05 up to 0.6 as a
 * new version, once per week.  Sources are the matching events (the
 * closest one of each week).  A routine of most days (the same slot on two
 * of the three days before) is no weekday's habit and makes no pattern.  A
 * pattern the user rejected (invalidated) is not made again.
 *
 * Cost: the user's last CONVERSATION_EVENTS events tell whether this slot
 * was looked at already today (a conversation about one task looks back
 * once, not once per turn).  If not, the same slot one and two weeks back
 * is probed -- each probe the SLOT_EVENTS events before that slot's end,
 * a range read on the store's (user, time) index, never a walk of the
 * user's history -- and older weeks only when one of those matched.  The
 * items are listed only when three weeks match.  A user with more than
 * SLOT_EVENTS events in a four-hour slot may have the task's event of an
 * earlier week pushed out of its probe.
 */
#include "write/semantic/observe_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/lexicon/lexicon.h"

#define CONVERSATION_EVENTS 8 /* the conversation so far, for slot_started */
#define SLOT_EVENTS 16        /* events read per earlier week's slot */
#define LOOKBACK_WEEKS 4
#define ZONE_SLACK 60         /* minutes: a zone change (DST) between weeks */
#define SLOT_MINUTES 120
#define MIN_WEEKS 3
#define BASE_CONFIDENCE 0.5
#define WEEK_STEP 0.05
#define MAX_CONFIDENCE 0.6
#define SIMILAR 0.6
#define DAY_MS 86400000LL
#define WEEK_MS (7 * DAY_MS)
#define REQUEST_BYTES 60 /* of an untasked request quoted in the text */

/* Where an event falls in its own local week. */
typedef struct slot {
    int64_t day;   /* local days since 1970-01-01 */
    int64_t week;  /* weeks since 1969-12-29 (a Monday) */
    int weekday;   /* 0 = Monday */
    int minute;    /* of the day */
} slot;

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static void slot_of(am_time t, int tz_minutes, slot *s)
{
    int64_t local = t + (int64_t)tz_minutes * 60000;
    int64_t day = floor_div(local, DAY_MS);
    s->day = day;
    s->week = floor_div(day + 3, 7);          /* 1970-01-01 was a Thursday */
    s->weekday = (int)(day + 3 - s->week * 7);
    s->minute = (int)((local - day * DAY_MS) / 60000);
}

static int part_of_day(int minute)
{
    return minute < 6 * 60 ? 0 : minute < 12 * 60 ? 1 : minute < 18 * 60 ? 2 : 3;
}

/* The closest matching event of one earlier week. */
typedef struct week_hit {
    int64_t week;
    const am__event_row *ev;
    int minute, distance;
} week_hit;

typedef struct miner {
    am__wctx *w;
    const am__event_row *ev;
    const char *norm;
    size_t norm_len;
    am__observe_out *out;
    slot at;
    week_hit hits[LOOKBACK_WEEKS];
    size_t n_hits;
    uint64_t set[AM__OBS_MAX_SET]; /* token set of the event (untasked) */
    size_t n_set;
    int have_set;
} miner;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void add_token(const char *tok, size_t len, uint64_t *out, size_t max, size_t *n)
{
    if (len && *n < max && !am__text_stopword(tok, len)) out[(*n)++] = am__hash64(tok, len);
}

/* Token set for comparing requests, cheap enough to run on every event
 * that shares a slot: lower-cased ASCII words and Han character bigrams
 * (a lone Han character as itself) -- the units the index uses, without
 * ICU segmentation and stemming.  Sorted and unique. */
static size_t request_set(const char *s, uint64_t *out, size_t max)
{
    size_t n = 0, len = strlen(s), wl = 0, run = 0;
    char word[64], han[8];
    size_t han_len = 0;
    for (size_t i = 0; i <= len;) {
        uint32_t cp = 0;
        int l = i < len ? am__utf8_decode(s + i, len - i, &cp) : 1;
        int ascii = cp < 128 && ((cp | 32) - 'a' < 26 || cp - '0' < 10);
        if (ascii && wl < sizeof word) word[wl++] = (char)(cp < 'a' && cp > '9' ? cp | 32 : cp);
        if (!ascii && wl) {
            add_token(word, wl, out, max, &n);
            wl = 0;
        }
        if (i < len && am__is_han(cp)) {
            char cur[4];
            int cl = am__utf8_encode(cp, cur);
            if (run > 0) {
                memcpy(han + han_len, cur, (size_t)cl);
                add_token(han, han_len + (size_t)cl, out, max, &n);
            }
            memcpy(han, cur, (size_t)cl);
            han_len = (size_t)cl;
            run++;
        } else {
            if (run == 1) add_token(han, han_len, out, max, &n);
            run = 0;
        }
        i += (size_t)l;
    }
    qsort(out, n, sizeof *out, cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || out[u - 1] != out[i]) out[u++] = out[i];
    return u;
}

/* Same kind of request: the task, or most words. */
static int same_request(miner *m, const am__event_row *e, int *same)
{
    *same = 0;
    if (m->ev->task_id) {
        *same = 1; /* the query selected the task's events */
        return AM_OK;
    }
    if (!m->have_set) {
        m->have_set = 1;
        m->n_set = request_set(m->ev->content, m->set, AM__OBS_MAX_SET);
    }
    uint64_t other[AM__OBS_MAX_SET];
    size_t n = request_set(e->content, other, AM__OBS_MAX_SET);
    if (m->n_set + n == 0) return AM_OK;
    size_t k = am__set_overlap(m->set, m->n_set, other, n);
    *same = (double)k / (double)(m->n_set + n - k) >= SIMILAR;
    return AM_OK;
}

/* The matching event `back` days ago at the same time of day, if any:
 * the user's events that end that slot (one small query on the time
 * index; no filter that would make the store walk the history), the
 * closest in time of day kept in *hit (hit->ev NULL when none). */
static int probe_slot(miner *m, int back, week_hit *hit)
{
    am__wctx *w = m->w;
    am__event_row *rows;
    size_t n;
    am_time slot_end = m->ev->occurred_at - back * DAY_MS + (SLOT_MINUTES + ZONE_SLACK) * 60000LL;
    am_time slot_start = slot_end - (2 * SLOT_MINUTES + 2 * ZONE_SLACK) * 60000LL;
    int rc = am__store_events_recent(w->store, w->uid, NULL, NULL, slot_end, SLOT_EVENTS, w->ar,
                                     &rows, &n);
    if (rc) return rc;
    *hit = (week_hit){0, NULL, 0, SLOT_MINUTES + 1};
    for (size_t i = 0; i < n && rows[i].occurred_at >= slot_start; i++) {
        const am__event_row *e = &rows[i];
        if (!e->source || strcmp(e->source, "user") != 0) continue;
        if ((e->task_id == NULL) != (m->ev->task_id == NULL) ||
            (e->task_id && strcmp(e->task_id, m->ev->task_id) != 0))
            continue;
        slot s;
        slot_of(e->occurred_at, e->tz_minutes, &s);
        int distance = abs(s.minute - m->at.minute);
        if (s.day != m->at.day - back || distance >= hit->distance) continue;
        int same;
        if ((rc = same_request(m, e, &same))) return rc;
        if (same) *hit = (week_hit){s.week, e, s.minute, distance};
    }
    return AM_OK;
}

/* Earlier weeks with a matching event at the same weekday and time, until
 * there are enough for a pattern (later weeks add to it one at a time).
 * The habit must be current -- seen in one of the last two weeks -- before
 * older weeks are probed; probing stops once three weeks are out of reach. */
static int collect_weeks(miner *m)
{
    int rc;
    for (int back = 1; back <= LOOKBACK_WEEKS && m->n_hits < MIN_WEEKS - 1; back++) {
        week_hit hit;
        if ((rc = probe_slot(m, 7 * back, &hit))) return rc;
        if (hit.ev) m->hits[m->n_hits++] = hit;
        if (back == 2 && m->n_hits == 0) break;
        if ((int)m->n_hits + (LOOKBACK_WEEKS - back) < MIN_WEEKS - 1) break;
    }
    return AM_OK;
}

/* A routine of most days is not a weekday's habit: the same request in
 * the same slot on two of the three days before means "every day", and a
 * weekly pattern for each weekday would only clutter the memory. */
static int daily_routine(miner *m, int *daily)
{
    int days = 0, rc;
    for (int back = 1; back <= 3 && days < 2; back++) {
        week_hit hit;
        if ((rc = probe_slot(m, back, &hit))) return rc;
        days += hit.ev != NULL;
    }
    *daily = days >= 2;
    return AM_OK;
}

static long json_long(const char *json, const char *name)
{
    char tag[32];
    snprintf(tag, sizeof tag, "\"%s\":", name);
    const char *p = json ? strstr(json, tag) : NULL;
    return p ? strtol(p + strlen(tag), NULL, 10) : -1;
}

static double confidence_of(long weeks)
{
    double c = BASE_CONFIDENCE + WEEK_STEP * (double)(weeks - MIN_WEEKS);
    return c > MAX_CONFIDENCE ? MAX_CONFIDENCE : c;
}

/* The request quoted in an untasked pattern: its first REQUEST_BYTES,
 * cut at a character boundary. */
static const char *request_of(miner *m)
{
    const char *c = m->ev->content;
    size_t n = strlen(c);
    if (n <= REQUEST_BYTES) return c;
    n = REQUEST_BYTES;
    while (n > 0 && ((unsigned char)c[n] & 0xC0) == 0x80) n--;
    char *out = am__arena_alloc(m->w->ar, n + 4);
    if (!out) return NULL;
    memcpy(out, c, n);
    memcpy(out + n, "…", 4);
    return out;
}

/* Text, key, scope and value of the pattern as it stands now. */
static int describe(miner *m, am__item_row *nv, long weeks, const char *key)
{
    am__wctx *w = m->w;
    int minute_sum = m->at.minute, zh = 0, en = 0;
    for (size_t i = 0; i < m->n_hits; i++) {
        minute_sum += m->hits[i].minute;
        const char *l = m->hits[i].ev->lang;
        zh += l && strcmp(l, "zh") == 0;
        en += l && strcmp(l, "en") == 0;
    }
    int own_zh = m->ev->lang && strcmp(m->ev->lang, "zh") == 0;
    int is_zh = zh + own_zh > en + !own_zh || (zh + own_zh == en + !own_zh && own_zh);
    int minute = (minute_sum / (int)(m->n_hits + 1) + 15) / 30 * 30 % (24 * 60);
    int wd = m->at.weekday, part = part_of_day(minute);
    const char *task = m->ev->task_id;
    const char *request = task ? NULL : request_of(m);
    if (!task && !request) return AM_NOMEM;
    am__buf b;
    am__buf_init(&b, w->ar->a);
    if (is_zh && task)
        am__buf_printf(&b, "通常在%s%s（%02d:%02d左右）处理%s", am__lex_weekday_zh[wd],
                       am__lex_part_zh[part], minute / 60, minute % 60, task);
    else if (is_zh)
        am__buf_printf(&b, "通常在%s%s（%02d:%02d左右）提出：%s", am__lex_weekday_zh[wd],
                       am__lex_part_zh[part], minute / 60, minute % 60, request);
    else if (task)
        am__buf_printf(&b, "usually works on %s on %s %s (around %02d:%02d)", task,
                       am__lex_weekday_en[wd], am__lex_part_en[part], minute / 60, minute % 60);
    else
        am__buf_printf(&b, "usually asks \"%s\" on %s %s (around %02d:%02d)", request,
                       am__lex_weekday_en[wd], am__lex_part_en[part], minute / 60, minute % 60);
    nv->text = b.oom ? NULL : am__arena_strndup(w->ar, b.p, b.len);
    am__buf_reset(&b);
    am__buf_printf(&b,
                   "{\"weeks\":%ld,\"last_week\":%lld,\"weekday\":\"%s\",\"minute\":%d,"
                   "\"lang\":\"%s\",\"%s\":",
                   weeks, (long long)m->at.week, am__lex_weekday_key[wd], minute,
                   is_zh ? "zh" : "en", task ? "task" : "request");
    am__buf_json_str(&b, task ? task : request);
    am__buf_addc(&b, '}');
    nv->value_json = b.oom ? NULL : am__arena_strndup(w->ar, b.p, b.len);
    am__buf_free(&b);
    if (task) {
        size_t n = strlen(task) + 6;
        char *scope = am__arena_alloc(w->ar, n);
        if (scope) snprintf(scope, n, "task:%s", task);
        nv->scope = scope;
    } else {
        nv->scope = "global";
    }
    nv->key = key;
    nv->kind = "pattern";
    nv->confidence = confidence_of(weeks);
    return nv->text && nv->value_json && nv->scope ? AM_OK : AM_NOMEM;
}

/* The pattern's key; for an untasked request the hash of its words makes
 * it unique, and an existing one is found by its words instead. */
static const char *pattern_key(miner *m)
{
    size_t n;
    char *key;
    if (m->ev->task_id) {
        n = strlen(m->ev->task_id) + 32;
        if ((key = am__arena_alloc(m->w->ar, n)))
            snprintf(key, n, "pattern.%s.weekly.%s", m->ev->task_id,
                     am__lex_weekday_key[m->at.weekday]);
    } else {
        n = 64;
        if ((key = am__arena_alloc(m->w->ar, n)))
            snprintf(key, n, "pattern.request.%08x.weekly.%s",
                     (unsigned)(am__hash64(m->norm, m->norm_len) & 0xffffffffu),
                     am__lex_weekday_key[m->at.weekday]);
    }
    return key;
}

/* Is `it` this event's pattern? */
static int is_ours(miner *m, const am__item_row *it, const char *key, int *ours)
{
    *ours = 0;
    if (strcmp(it->kind, "pattern") != 0) return AM_OK;
    if (m->ev->task_id) {
        *ours = strcmp(it->key, key) == 0;
        return AM_OK;
    }
    char suffix[32];
    snprintf(suffix, sizeof suffix, ".weekly.%s", am__lex_weekday_key[m->at.weekday]);
    size_t kl = strlen(it->key), sl = strlen(suffix);
    if (strncmp(it->key, "pattern.request.", 16) != 0 || kl < sl ||
        strcmp(it->key + kl - sl, suffix) != 0)
        return AM_OK;
    /* Most of the event's words are in the pattern's quoted request. */
    uint64_t s[AM__OBS_MAX_SET];
    size_t n = request_set(it->text, s, AM__OBS_MAX_SET);
    if (m->n_set == 0) return AM_OK;
    *ours = (double)am__set_overlap(m->set, m->n_set, s, n) / (double)m->n_set >= SIMILAR;
    return AM_OK;
}

/* The current system version of this event's pattern, or NULL.  `which`
 * is AM__ITEMS_CURRENT, or AM__ITEMS_ALL to see invalidated ones too. */
static int find_pattern(miner *m, const char *key, int which, am__item_row **found)
{
    am__wctx *w = m->w;
    am__item_row *rows;
    size_t n;
    *found = NULL;
    int rc = w->store->vt->items.items_list(w->store, w->uid, which, w->now, w->ar, &rows, &n);
    for (size_t i = 0; !rc && i < n && !*found; i++) {
        int ours;
        if (rows[i].superseded_at != AM_TIME_NONE) continue;
        if (!(rc = is_ours(m, &rows[i], key, &ours)) && ours) *found = &rows[i];
    }
    return rc;
}

static int write_pattern(miner *m)
{
    am__wctx *w = m->w;
    const char *key = pattern_key(m);
    if (!key) return AM_NOMEM;
    am__item_row *found;
    /* Every version is read only before a pattern is made: was it rejected? */
    int rc = find_pattern(m, key, AM__ITEMS_CURRENT, &found);
    if (!rc && !found) rc = find_pattern(m, key, AM__ITEMS_ALL, &found);
    if (rc) return rc;
    const char *sources[LOOKBACK_WEEKS + 1];
    size_t ns = 0;
    sources[ns++] = m->ev->id;
    am__item_row nv;
    memset(&nv, 0, sizeof nv);
    if (found) {
        /* Rejected by the user, or already counted this week. */
        if (strcmp(found->status, "active") != 0 && strcmp(found->status, "pending_confirm") != 0)
            return AM_OK;
        long weeks = json_long(found->value_json, "weeks");
        long last = json_long(found->value_json, "last_week");
        if (weeks < 0 || last >= m->at.week) return AM_OK;
        weeks = weeks + 1 > (long)m->n_hits + 1 ? weeks + 1 : (long)m->n_hits + 1;
        if (confidence_of(weeks) <= found->confidence + 1e-9) return AM_OK;
        nv = *found;
        if ((rc = describe(m, &nv, weeks, found->key))) return rc;
        nv.scope = found->scope;
        if ((rc = am__semantic_close_version(w, found)) ||
            (rc = am__semantic_insert_version(w, found, &nv, sources, ns)) ||
            (rc = am__observe_audit(w, "memory.updated", nv.lineage_id, nv.scope, nv.key)))
            return rc;
        m->out->updated++;
        return AM_OK;
    }
    for (size_t i = 0; i < m->n_hits; i++) sources[ns++] = m->hits[i].ev->id;
    if ((rc = describe(m, &nv, (long)m->n_hits + 1, key))) return rc;
    char lid[27];
    am__ulid_new(w->ulid, w->now, lid);
    if (!(nv.lineage_id = am__arena_strdup(w->ar, lid))) return AM_NOMEM;
    am__semantic_kind_defaults(w->rank, "pattern", &nv.base_score, &nv.half_life_days);
    nv.origin = "pattern";
    nv.valid_from = w->now;
    nv.valid_to = AM_TIME_NONE;
    nv.status = "active";
    if ((rc = am__semantic_insert_version(w, NULL, &nv, sources, ns)) ||
        (rc = am__observe_audit(w, "memory.created", nv.lineage_id, nv.scope, nv.key)))
        return rc;
    m->out->created++;
    return AM_OK;
}

/* Did one of the user's last few events start this slot already (the same
 * request, today, within the slot)?  Then it has looked back for this
 * slot and this event can skip the costlier look-back: a conversation
 * about one task looks back once, not once per turn. */
static int slot_started(miner *m, int *started)
{
    am__wctx *w = m->w;
    am__event_row *rows;
    size_t n;
    *started = 0;
    int rc = am__store_events_recent(w->store, w->uid, NULL, NULL, m->ev->occurred_at,
                                     CONVERSATION_EVENTS, w->ar, &rows, &n);
    if (rc) return rc;
    for (size_t i = 0; i < n && !*started; i++) {
        const am__event_row *e = &rows[i];
        if (strcmp(e->id, m->ev->id) == 0 || !e->source || strcmp(e->source, "user") != 0)
            continue;
        if ((e->task_id == NULL) != (m->ev->task_id == NULL) ||
            (e->task_id && strcmp(e->task_id, m->ev->task_id) != 0))
            continue;
        slot s;
        slot_of(e->occurred_at, e->tz_minutes, &s);
        if (s.week != m->at.week || s.weekday != m->at.weekday ||
            abs(s.minute - m->at.minute) > SLOT_MINUTES)
            continue;
        if ((rc = same_request(m, e, started))) return rc;
    }
    return AM_OK;
}

int am__semantic_patterns(am__wctx *w, const am__event_row *ev, const char *norm,
                          size_t n, am__observe_out *out)
{
    miner m;
    memset(&m, 0, sizeof m);
    m.w = w;
    m.ev = ev;
    m.norm = norm;
    m.norm_len = n;
    m.out = out;
    slot_of(ev->occurred_at, ev->tz_minutes, &m.at);
    int started;
    int rc = slot_started(&m, &started);
    if (rc || started) return rc;
    rc = collect_weeks(&m);
    if (rc || m.n_hits + 1 < MIN_WEEKS) return rc;
    if (!ev->task_id && !m.have_set) return AM_OK;
    int daily;
    if ((rc = daily_routine(&m, &daily)) || daily) return rc;
    return write_pattern(&m);
}
