/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cold.c -- archival of old events (cold.h).
 */
#include "lifecycle/cold.h"

#include <string.h>

#define DAY_MS ((am_time)86400000)

/* 1 when cp ends a sentence wherever it stands (full-width and CJK
 * marks, line breaks); ASCII . ! ? end one only before a space or the end */
static int ends_sentence(uint32_t cp, const char *next, size_t left)
{
    if (cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F || cp == 0xFF1B || cp == '\n' || cp == '\r')
        return 1;
    if (cp == '.' || cp == '!' || cp == '?')
        return left == 0 || *next == ' ' || *next == '\t' || *next == '\n' || *next == '\r';
    return 0;
}

size_t am__cold_summary(const char *text, char *out, size_t cap, int *whole)
{
    size_t n = strlen(text), at = 0, chars = 0, cut = n;
    int cut_short = 0;
    while (at < n) {
        uint32_t cp;
        int len = am__utf8_decode(text + at, n - at, &cp);
        at += (size_t)len;
        chars++;
        if (ends_sentence(cp, text + at, n - at)) {
            cut = at;
            break;
        }
        if (chars == AM__COLD_SUMMARY_CHARS && at < n) {
            cut = at;
            cut_short = 1;
            break;
        }
    }
    /* a line break is not kept; trailing blanks neither */
    while (cut > 0 && (text[cut - 1] == '\n' || text[cut - 1] == '\r' || text[cut - 1] == ' '))
        cut--;
    size_t room = cap > 4 ? cap - 4 : 0; /* "…" and the NUL */
    if (cut > room) cut = room;
    memcpy(out, text, cut);
    size_t len = cut;
    if (cut_short || cut < n) {
        /* (a cut at a sentence end is marked too: the rest is archived) */
        memcpy(out + len, "\xE2\x80\xA6", 3);
        len += 3;
    }
    out[len] = '\0';
    *whole = cut == n;
    return len;
}

void am__cold_init(am__cold_run *run, am__store *store, const am__allocator *alloc, int days)
{
    memset(run, 0, sizeof *run);
    run->store = store;
    run->alloc = alloc;
    run->days = days;
    run->from_at = AM_TIME_NONE;
}

/* the distinct user ids of rows[0..n) into uids (n room) */
static size_t batch_users(const am__event_row *rows, size_t n, const char **uids)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < k && strcmp(uids[j], rows[i].user_id) != 0) j++;
        if (j == k) uids[k++] = rows[i].user_id;
    }
    return k;
}

int am__cold_step(am__cold_run *run, const char *uid, am_time now, int budget, long *moved,
                  int *done)
{
    am__store *s = run->store;
    *moved = 0;
    *done = 1;
    if (run->days <= 0 || budget <= 0) return AM_OK;
    am_time before = now - (am_time)run->days * DAY_MS;
    am__arena ar;
    am__arena_init(&ar, run->alloc);
    am__event_row *rows = NULL;
    size_t n = 0;
    int rc = am__store_begin(s);
    if (rc) goto out;
    am__event_scan q = {.kind = AM__SCAN_COLD,
                        .at = before,
                        .from = run->from_at,
                        .rid = run->from_rid,
                        .limit = budget};
    rc = s->vt->events.events_scan(s, uid, &q, &ar, &rows, &n);
    if (!rc && !uid && n) {
        const char **uids = am__arena_alloc(&ar, n * sizeof *uids);
        rc = uids ? am__store_lock_users(s, uids, batch_users(rows, n, uids)) : AM_NOMEM;
    }
    long kept = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        char summary[AM__COLD_SUMMARY_BYTES];
        int whole = 0;
        const char *text = rows[i].content ? rows[i].content : "";
        am__cold_summary(text, summary, sizeof summary, &whole);
        if (strlen(text) < AM__COLD_MIN_BYTES) whole = 1; /* nothing gained by moving it */
        rc = am__store_cold_archive(s, rows[i].user_id, rows[i].rid, whole ? NULL : summary);
        if (rc == AM_NOTFOUND) { /* archived meanwhile (the list was read before the lock) */
            rc = AM_OK;
            continue;
        }
        if (!rc && whole) kept++;
        else if (!rc) (*moved)++;
    }
    if (rc) {
        am__store_rollback(s);
        *moved = 0;
        goto out;
    }
    if ((rc = am__store_commit(s))) {
        *moved = 0;
        goto out;
    }
    if (n) {
        run->from_at = rows[n - 1].occurred_at;
        run->from_rid = rows[n - 1].rid;
    }
    run->moved += *moved;
    run->kept += kept;
    *done = n < (size_t)budget;
out:
    am__arena_free(&ar);
    return rc;
}
