/* SPDX-License-Identifier: Apache-2.0 */
/*
 * profile_cmd.c -- `agentmem profile` (the profile card, am_profile) and
 * `agentmem report corrections` (the blind-spot report,
 * am_report_corrections).  The card's text is the library's own (each
 * stored text made one inert line); --json prints the library's JSON.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static int fail(am_db *db, int rc)
{
    fprintf(stderr, "agentmem: %s (%s)\n", am_errmsg(db), am_errstr(rc));
    return 1;
}

int am_cli_profile(am_db *db, const char *user, int budget, int json)
{
    am_profile_query q = {0};
    q.user_id = user;
    q.budget_tokens = budget;
    am_profile_card *p = NULL;
    int rc = am_profile(db, &q, &p);
    if (rc) return fail(db, rc);
    if (json) printf("%s\n", p->json);
    else fputs(p->text, stdout);
    am_profile_free(p);
    return 0;
}

/* "day", "week", "month" (or NULL: month) as AM_REPORT_*, else -1 */
int am_cli_report_period(const char *s)
{
    if (!s || strcmp(s, "month") == 0) return AM_REPORT_MONTH;
    if (strcmp(s, "week") == 0) return AM_REPORT_WEEK;
    if (strcmp(s, "day") == 0) return AM_REPORT_DAY;
    return -1;
}

/* One counts object's line: created, confirmed, corrected, rejected, rate */
static void counts_line(json_t *o)
{
    json_t *rate = json_object_get(o, "correction_rate");
    printf("created %lld  confirmed %lld  corrected %lld  rejected %lld  rate %s",
           (long long)json_integer_value(json_object_get(o, "created")),
           (long long)json_integer_value(json_object_get(o, "confirmed")),
           (long long)json_integer_value(json_object_get(o, "corrected")),
           (long long)json_integer_value(json_object_get(o, "rejected")), "");
    if (json_is_number(rate)) printf("%.3f\n", json_number_value(rate));
    else printf("-\n");
}

int am_cli_report(am_db *db, const am_report_query *q, int json)
{
    char *out = NULL;
    int rc = am_report_corrections(db, q, &out);
    if (rc) return fail(db, rc);
    if (json) {
        printf("%s\n", out);
        am_free(out);
        return 0;
    }
    json_t *r = json_loads(out, 0, NULL);
    am_free(out);
    if (!r) {
        fprintf(stderr, "agentmem: report: out of memory\n");
        return 1;
    }
    size_t i, j;
    json_t *p, *row;
    json_array_foreach(json_object_get(r, "periods"), i, p) {
        printf("%s  ", json_string_value(json_object_get(p, "period")));
        counts_line(json_object_get(p, "totals"));
        json_array_foreach(json_object_get(p, "rows"), j, row) {
            char *key = am_text_plain(json_string_value(json_object_get(row, "key")));
            printf("  %-28s %-11s %-20s %-8s ", key ? key : "",
                   json_string_value(json_object_get(row, "kind")),
                   json_string_value(json_object_get(row, "topic")),
                   json_string_value(json_object_get(row, "origin")));
            am_free(key);
            counts_line(row);
        }
    }
    printf("total  ");
    counts_line(json_object_get(r, "totals"));
    json_decref(r);
    return 0;
}
