/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes_profile.c -- GET /v1/profile (the profile card, docs/PROFILE.md)
 * and GET /v1/reports/corrections (the blind-spot report, docs/REPORTS.md).
 * The card is the user's: a user token reads only its own user's (as GET
 * /v1/memories), an agent's or a role's token the items it may see.  The
 * report across users is an operator's: an admin token only (403 for any
 * other).
 */
#include <stdlib.h>
#include <string.h>

#include "srv_int.h"

static const char *param(srv_ctx *c, const char *name)
{
    return c->rq->query ? c->rq->query(c->rq->query_ctx, name) : NULL;
}

void am__srv_h_profile(srv_ctx *c)
{
    am_profile_query q = {0};
    const char *budget = param(c, "budget");
    if (budget) {
        char *end;
        long v = strtol(budget, &end, 10);
        if (!*budget || *end || v < 1 || v > AM_PROFILE_BUDGET_MAX) {
            am__srv_error(c->out, "invalid_request", "budget",
                          "budget: expected tokens from 1 to %d", AM_PROFILE_BUDGET_MAX);
            return;
        }
        q.budget_tokens = (int)v;
    }
    if (am__srv_user(c, param(c, "user"))) return;
    q.user_id = c->user;
    q.agent_id = c->tok.agent_id[0] ? c->tok.agent_id : NULL;
    q.role = c->tok.role[0] ? c->tok.role : NULL;
    am_profile_card *p;
    int rc = am_profile(c->db, &q, &p);
    if (rc) {
        am__srv_engine_error(c, rc);
        return;
    }
    am__srv_text(c->out, 200, "application/json", p->json, strlen(p->json));
    am_profile_free(p);
}

void am__srv_h_report(srv_ctx *c)
{
    if (!c->tok.admin) {
        am__srv_error(c->out, "forbidden", NULL,
                      "reports: the report across users is an admin operation (an admin token)");
        return;
    }
    am_report_query q = {0};
    q.since = param(c, "since");
    q.until = param(c, "until");
    q.user_id = param(c, "user");
    const char *period = param(c, "period");
    if (!period || strcmp(period, "month") == 0) q.period = AM_REPORT_MONTH;
    else if (strcmp(period, "week") == 0) q.period = AM_REPORT_WEEK;
    else if (strcmp(period, "day") == 0) q.period = AM_REPORT_DAY;
    else {
        am__srv_error(c->out, "invalid_request", "period", "period: expected day, week or month");
        return;
    }
    char *json = NULL;
    int rc = am_report_corrections(c->db, &q, &json);
    if (rc) {
        am__srv_engine_error(c, rc);
        return;
    }
    am__srv_text(c->out, 200, "application/json", json, strlen(json));
    am_free(json);
}
