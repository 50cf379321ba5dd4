/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report.c -- am_report_corrections: the arguments checked, the report
 * made by lifecycle/report.c, its JSON handed over.
 */
#include <string.h>

#include "api/db_int.h"
#include "lifecycle/lifecycle.h"

/* An ISO 8601 bound of the report (or NULL: open) into *t */
static int bound(am_db *db, const char *name, const char *iso, am_time *t)
{
    const char *why;
    *t = AM_TIME_NONE;
    if (!iso) return AM_OK;
    if (am__time_parse(iso, t, NULL, &why))
        return am__db_error(db, AM_INVALID, "report: %s \"%.64s\" %s", name, iso, why);
    return AM_OK;
}

int am_report_corrections(am_db *db, const am_report_query *q, char **json_out)
{
    if (!db || !q || !json_out) return AM_MISUSE;
    *json_out = NULL;
    am__db_clear_error(db);
    const char *why;
    if (q->user_id && (why = am__id_check(q->user_id)))
        return am__db_error(db, AM_INVALID, "report: user %s", why);
    if (q->period < 0 || q->period > AM_REPORT_MONTH)
        return am__db_error(db, AM_INVALID, "report: period %d: expected day, week or month",
                            q->period);
    am__report_in in = {q->user_id, AM_TIME_NONE, AM_TIME_NONE,
                        q->period ? q->period : AM_REPORT_MONTH, am__db_now(db), &db->alloc};
    int rc = bound(db, "since", q->since, &in.since);
    if (!rc) rc = bound(db, "until", q->until, &in.until);
    if (rc) return rc;
    if (in.since != AM_TIME_NONE && in.until != AM_TIME_NONE && in.since > in.until)
        return am__db_error(db, AM_INVALID, "report: since is after until");
    /* a user being forgotten has nothing to report */
    if (q->user_id && (rc = am__db_user_gate(db, "report", q->user_id, AM_NOTFOUND))) {
        if (rc != AM_NOTFOUND) return rc;
        am__db_clear_error(db);
        in.since = 1; /* an empty range */
        in.until = 0;
    }
    am__buf b;
    am__buf_init(&b, &db->alloc);
    rc = am__report_corrections(db->store, &in, &b);
    if (!rc && (b.oom || !(*json_out = am__owned_strndup(&db->alloc, b.p, b.len)))) rc = AM_NOMEM;
    am__buf_free(&b);
    if (rc) return am__db_store_error(db, rc, "report");
    return AM_OK;
}
