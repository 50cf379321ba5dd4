/* SPDX-License-Identifier: Apache-2.0 */
/*
 * events_list.c -- a page of a user's events, newest first
 * (am_events_list): what an inspector shows of a long history without
 * reading all of it.
 *
 * The store walks back along its index from a place (occurred_at, rid)
 * a chunk at a time (am__store_events_before); a search or an asker's access rule
 * may leave rows out, so chunks are read until the page holds limit
 * events and one more is known to follow (then next_cursor names the
 * page's last event), or the history ends.  Each chunk is read into an
 * arena of its own and written to the page's JSON at once: memory is
 * bounded by a chunk and the page, whatever the history's length.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/db_int.h"
#include "domain/shapes.h"
#include "store/metadata.h"

#define CHUNK 256

typedef struct page_box {
    am_event_page pub;
    am__arena ar;
    am__allocator alloc;
} page_box;

void am_event_page_free(am_event_page *p)
{
    if (!p) return;
    page_box *b = (page_box *)p;
    am__allocator a = b->alloc;
    am__arena_free(&b->ar);
    am__free(&a, b);
}

/* "e<occurred_at>.<rid>": the place of an event in the walk */
static void cursor_make(char out[64], am_time at, int64_t rid)
{
    snprintf(out, 64, "e%" PRId64 ".%" PRId64, (int64_t)at, rid);
}

static int cursor_read(const char *s, am_time *at, int64_t *rid)
{
    if (s[0] != 'e') return 1;
    char *end;
    long long a = strtoll(s + 1, &end, 10);
    if (end == s + 1 || *end != '.') return 1;
    const char *r = end + 1;
    long long b = strtoll(r, &end, 10);
    if (end == r || *end || a == (long long)AM_TIME_NONE) return 1;
    *at = (am_time)a;
    *rid = (int64_t)b;
    return 0;
}

/* the checks of the options: AM_OK, or the error made */
static int opts_check(am_db *db, const char *user_id, const am_event_list_opts *o, am_time *from,
                      am_time *to, am_time *c_at, int64_t *c_rid)
{
    const char *why;
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "events: user %s", why);
    if (o->agent_id && am__db_check_id(db, "events", "agent", o->agent_id)) return AM_INVALID;
    if (o->role && am__db_check_id(db, "events", "role", o->role)) return AM_INVALID;
    if (o->session_id && am__db_check_id(db, "events", "session", o->session_id)) return AM_INVALID;
    if (o->limit > AM_LIST_LIMIT_MAX)
        return am__db_error(db, AM_INVALID, "events: limit %zu is over the maximum of %d", o->limit,
                            AM_LIST_LIMIT_MAX);
    if (o->query) {
        size_t n = strlen(o->query);
        if (!am__utf8_valid(o->query, n, NULL))
            return am__db_error(db, AM_INVALID, "events: query: not valid UTF-8");
        if (n > db->cfg.max_text_bytes)
            return am__db_error(db, AM_INVALID, "events: query: %zu bytes, over the limit of %zu", n,
                                (size_t)db->cfg.max_text_bytes);
    }
    *from = *to = *c_at = AM_TIME_NONE;
    *c_rid = 0;
    if (o->from && am__time_parse(o->from, from, NULL, &why))
        return am__db_error(db, AM_INVALID, "events: from \"%.64s\" %s", o->from, why);
    if (o->to && am__time_parse(o->to, to, NULL, &why))
        return am__db_error(db, AM_INVALID, "events: to \"%.64s\" %s", o->to, why);
    if (o->n_ids > AM_LIST_LIMIT_MAX || (o->n_ids && !o->ids))
        return am__db_error(db, AM_INVALID, "events: ids: at most %d", AM_LIST_LIMIT_MAX);
    for (size_t i = 0; i < o->n_ids; i++)
        if ((why = am__id_check(o->ids[i])))
            return am__db_error(db, AM_INVALID, "events: ids: %zu %s", i, why);
    if (o->cursor && cursor_read(o->cursor, c_at, c_rid))
        return am__db_error(db, AM_INVALID, "events: cursor: not a cursor of an event listing");
    return AM_OK;
}

static int newest_first(const void *a, const void *b)
{
    const am__event_row *x = a, *y = b;
    if (x->occurred_at != y->occurred_at) return x->occurred_at < y->occurred_at ? 1 : -1;
    return x->rid < y->rid ? 1 : x->rid > y->rid ? -1 : 0;
}

/* The events o->ids names that are there, newest first, without
 * repeats, into rows (n of them) */
static int named_events(am_db *db, const char *user_id, const am_event_list_opts *o,
                        am__arena *ar, am__event_row **rows, size_t *n)
{
    *n = 0;
    *rows = am__arena_alloc(ar, (o->n_ids + 1) * sizeof **rows);
    if (!*rows) return AM_NOMEM;
    for (size_t i = 0; i < o->n_ids; i++) {
        am__event_row *r = &(*rows)[*n];
        int rc =
            db->store->vt->events.event_get(db->store, user_id, AM__EVENT_BY_ID, o->ids[i], ar, r);
        if (rc == AM_NOTFOUND) continue;
        if (rc) return rc;
        int seen = 0;
        for (size_t k = 0; k < *n && !seen; k++) seen = (*rows)[k].rid == r->rid;
        if (!seen) (*n)++;
    }
    qsort(*rows, *n, sizeof **rows, newest_first);
    return AM_OK;
}

int am_events_list(am_db *db, const char *user_id, const am_event_list_opts *o,
                   am_event_page **out)
{
    if (!db || !o || !out) return AM_MISUSE;
    *out = NULL;
    am__db_clear_error(db);
    am_time from, to, at;
    int64_t rid;
    int rc = opts_check(db, user_id, o, &from, &to, &at, &rid);
    if (rc) return rc;
    size_t want = o->limit ? o->limit : AM_EVENTS_LIMIT_DEFAULT;
    const char *q = o->query ? o->query : "";
    size_t qn = strlen(q);
    /* to: the walk starts before it (no rid is below INT64_MIN) */
    if (to != AM_TIME_NONE && (at == AM_TIME_NONE || at >= to)) {
        at = to;
        rid = INT64_MIN;
    }
    page_box *box = am__calloc(&db->alloc, sizeof *box);
    if (!box) return AM_NOMEM;
    box->alloc = db->alloc;
    am__arena_init(&box->ar, &box->alloc);
    am_access *acc = NULL;
    am__buf b;
    am__buf_init(&b, &db->alloc);
    am__buf_addc(&b, '[');
    size_t kept = 0;
    int more = 0, done = 0;
    am_time last_at = AM_TIME_NONE;
    int64_t last_rid = 0;
    /* a user being forgotten has none */
    rc = am__db_user_gate(db, "events", user_id, AM_NOTFOUND);
    if (rc == AM_NOTFOUND) {
        am__db_clear_error(db);
        rc = AM_OK;
        done = 1;
    }
    if (!rc && !done && (o->agent_id || o->role)) {
        rc = am_access_open(db, user_id, o->agent_id, o->role, &acc);
        if (rc == AM_NOTFOUND) {
            am__db_clear_error(db);
            rc = AM_OK;
            done = 1;
        } else if (rc) {
            am__buf_free(&b);
            am_event_page_free(&box->pub);
            return rc; /* its message made */
        }
    }
    /* without a search or an access rule a chunk is the page and one more */
    int chunk = qn || acc ? CHUNK : (int)want + 1;
    if (o->n_ids) want = o->n_ids;
    while (!rc && !done && !more) {
        am__arena ar;
        am__arena_init(&ar, &db->alloc);
        am__event_row *rows;
        size_t n = 0;
        if (o->n_ids) {
            rc = named_events(db, user_id, o, &ar, &rows, &n);
            done = 1;
        } else
            rc = am__store_events_before(db->store, user_id, o->session_id, at, rid, from, chunk,
                                         &ar, &rows, &n);
        /* archived events: their whole text (searched and listed), not the
         * summary their row keeps */
        if (!rc) rc = am__store_cold_fill(db->store, user_id, rows, n, &ar, NULL);
        for (size_t i = 0; !rc && i < n; i++) {
            at = rows[i].occurred_at;
            rid = rows[i].rid;
            if (!am__plain_holds(rows[i].content, q, qn)) continue;
            if (o->n_ids && ((o->session_id && (!rows[i].session_id ||
                                                strcmp(rows[i].session_id, o->session_id))) ||
                             (from != AM_TIME_NONE && at < from) ||
                             (to != AM_TIME_NONE && at >= to)))
                continue;
            if (acc) {
                int arc = am_access_check(acc, AM_ACCESS_EVENT, rows[i].id);
                if (arc == AM_NOTFOUND) {
                    am__db_clear_error(db);
                    continue;
                }
                if (arc) {
                    rc = arc;
                    break;
                }
            }
            if (kept == want) {
                more = 1;
                break;
            }
            if (kept++) am__buf_addc(&b, ',');
            am__event_row_json(&b, &rows[i]);
            last_at = rows[i].occurred_at;
            last_rid = rows[i].rid;
        }
        if (n < (size_t)chunk) done = 1;
        am__arena_free(&ar);
    }
    am_access_free(acc);
    am__buf_addc(&b, ']');
    if (!rc && b.oom) rc = AM_NOMEM;
    if (!rc && !(box->pub.json = am__arena_strndup(&box->ar, b.p, b.len))) rc = AM_NOMEM;
    if (!rc && more) {
        char cur[64];
        cursor_make(cur, last_at, last_rid);
        if (!(box->pub.next_cursor = am__arena_strdup(&box->ar, cur))) rc = AM_NOMEM;
    }
    am__buf_free(&b);
    if (rc) {
        am_event_page_free(&box->pub);
        if (rc == AM_NOMEM) return am__db_error(db, rc, "events: out of memory");
        return am__db_store_error(db, rc, "events");
    }
    box->pub.n = kept;
    *out = &box->pub;
    return AM_OK;
}
