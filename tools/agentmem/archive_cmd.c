/* SPDX-License-Identifier: Apache-2.0 */
/*
 * archive_cmd.c -- `agentmem archive events|restore`: old events' text to
 * the cold column and back (am_archive_events, am_archive_restore;
 * docs/internals/STORAGE.md "Archived events").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plural.h"

static int usage(const char *msg)
{
    fprintf(stderr, "agentmem archive: %s\n  (agentmem archive --help)\n", msg);
    return 2;
}

static int failed(am_db *db, int rc)
{
    fprintf(stderr, "agentmem: %s (%s)\n", am_errmsg(db), am_errstr(rc));
    return 1;
}

static int archive_events(am_db *db, const am_cli_archive_args *a)
{
    int days = -1;
    if (a->older_than) {
        char *end;
        long v = strtol(a->older_than, &end, 10);
        if (!*a->older_than || *end || v < 1 || v > 36500)
            return usage("--older-than: expected whole days, 1 to 36500");
        days = (int)v;
    }
    if (a->event || a->from || a->to) return usage("events takes --user and --older-than only");
    long moved = 0;
    int rc = am_archive_events(db, a->user, days, &moved);
    if (rc) {
        failed(db, rc);
        if (moved)
            fprintf(stderr, "agentmem: %ld %s archived before the error; run again to"
                            " continue\n", moved, am_plural(moved, "event", "events"));
        return 1;
    }
    if (a->json) return am_cli_json_print(json_pack("{s:I}", "archived", (json_int_t)moved));
    printf("%ld %s archived\n", moved, am_plural(moved, "event", "events"));
    return 0;
}

static int archive_restore(am_db *db, const am_cli_archive_args *a)
{
    if (!a->user) return usage("restore needs --user");
    if (a->older_than) return usage("restore takes no --older-than");
    if (!a->event == !(a->from || a->to))
        return usage("restore needs --event ID, or --from ISO and --to ISO");
    am_time from = AM_TIME_NONE, to = AM_TIME_NONE;
    if (!a->event) {
        if (!a->from || !a->to) return usage("restore needs both --from and --to");
        if (am_time_parse(a->from, &from, NULL) != AM_OK)
            return usage("--from: expected an ISO 8601 time with its zone");
        if (am_time_parse(a->to, &to, NULL) != AM_OK)
            return usage("--to: expected an ISO 8601 time with its zone");
    }
    long n = 0;
    int rc = am_archive_restore(db, a->user, a->event, from, to, &n);
    if (rc) return failed(db, rc);
    if (a->json) return am_cli_json_print(json_pack("{s:I}", "restored", (json_int_t)n));
    printf("%ld %s restored\n", n, am_plural(n, "event", "events"));
    return 0;
}

int am_cli_archive(am_db *db, const am_cli_archive_args *a)
{
    return strcmp(a->sub, "events") == 0 ? archive_events(db, a) : archive_restore(db, a);
}
