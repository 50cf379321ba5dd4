/* SPDX-License-Identifier: Apache-2.0 */
/*
 * api_util.h -- helpers shared by the tests that drive the public API
 * (include/agentmem.h only): an injected clock, an in-memory store, and an
 * add that sets the clock to the event's time.  Include after test.h.
 */
#ifndef AM_TEST_API_UTIL_H
#define AM_TEST_API_UTIL_H
#include <stdio.h>
#include <string.h>

#include "agentmem.h"

static am_time now_ms;
static am_time test_clock(void *ctx)
{
    (void)ctx;
    return now_ms;
}

static void set_now(const char *iso)
{
    int rc = am_time_parse(iso, &now_ms, NULL);
    CHECK_EQ_INT(rc, AM_OK);
}

/* An in-memory store on the test clock; rank: its ranking (NULL: the
 * defaults). */
/* am_open(cfg) that must succeed: the test fails, saying why, if not. */
static am_db *open_checked(const am_config *cfg)
{
    am_db *db = NULL;
    char *err = NULL;
    int rc = am_open(cfg, &db, &err);
    if (rc) fprintf(stderr, "open: %s\n", err ? err : "?");
    CHECK_EQ_INT(rc, AM_OK);
    am_free(err);
    return db;
}

static am_db *open_mem_rank(const am_rank_config *rank)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = ":memory:";
    cfg.clock = test_clock;
    if (rank) cfg.rank = *rank;
    return open_checked(&cfg);
}

static am_db *open_mem(void)
{
    return open_mem_rank(NULL);
}

/* source: "user", "agent", ... (NULL: the default, user) */
static am_add_info add_as(am_db *db, const char *user, const char *source, const char *session,
                          const char *task, const char *at, const char *text)
{
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = user;
    ev.source = source;
    ev.session_id = session;
    ev.task_id = task;
    ev.occurred_at = at;
    ev.text = text;
    set_now(at);
    am_add_info info;
    memset(&info, 0, sizeof info);
    int rc = am_add_event(db, &ev, &info);
    if (rc) fprintf(stderr, "add failed: %s\n", am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
    return info;
}

static am_add_info add(am_db *db, const char *user, const char *session, const char *task,
                       const char *at, const char *text)
{
    return add_as(db, user, NULL, session, task, at, text);
}
#endif
