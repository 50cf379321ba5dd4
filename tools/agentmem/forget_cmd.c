/* SPDX-License-Identifier: Apache-2.0 */
/*
 * forget_cmd.c -- forget (an event, session, task or user; a grace period
 * with --grace) and restore (what is still within its grace period).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plural.h"
#include "progress.h"

int am_cli_cmd_forget(am_db *db, const am_cli_opts *o)
{
    if (!o->user || !o->level) return am_cli_usage_error("forget", "--user and --level are required");
    int level = strcmp(o->level, "event") == 0     ? AM_FORGET_EVENT
                : strcmp(o->level, "session") == 0 ? AM_FORGET_SESSION
                : strcmp(o->level, "task") == 0    ? AM_FORGET_TASK
                : strcmp(o->level, "user") == 0    ? AM_FORGET_USER
                                                   : 0;
    if (!level) return am_cli_usage_error("forget", "--level must be event, session, task or user");
    if (level != AM_FORGET_USER && !o->id) return am_cli_usage_error("forget", "--id is required");
    am_forget_info info;
    am_progress bar;
    /* a bar for what can be large: a user, a session, a task (steps) */
    am_progress_start(&bar, "forget", "steps", 0, o->quiet || level == AM_FORGET_EVENT);
    int rc = am_forget_ex(db, o->user, level, o->id, am_progress_fn_adapter, &bar, &info);
    am_progress_end(&bar);
    if (rc) return am_cli_fail(db, rc);
    if (o->json)
        return am_cli_json_print(am_shape_forget(&info));
    else
        printf("forgot %ld %s, %ld memory %s, %ld %s\n", info.events,
               am_plural(info.events, "event", "events"), info.memories,
               am_plural(info.memories, "version", "versions"), info.tasks,
               am_plural(info.tasks, "task", "tasks"));
    return 0;
}

int am_cli_cmd_restore(am_db *db, const am_cli_opts *o)
{
    if (!o->user) return am_cli_usage_error("restore", "--user is required");
    int level = !o->level                          ? AM_FORGET_USER
                : strcmp(o->level, "event") == 0   ? AM_FORGET_EVENT
                : strcmp(o->level, "session") == 0 ? AM_FORGET_SESSION
                : strcmp(o->level, "task") == 0    ? AM_FORGET_TASK
                : strcmp(o->level, "user") == 0    ? AM_FORGET_USER
                                                   : 0;
    if (!level) return am_cli_usage_error("restore", "--level must be event, session, task or user");
    if (level != AM_FORGET_USER && !o->id) return am_cli_usage_error("restore", "--id is required");
    if (level == AM_FORGET_USER && o->id) return am_cli_usage_error("restore", "--id needs --level event, session or task");
    int rc = am_restore_forget(db, o->user, level, o->id);
    if (rc) return am_cli_fail(db, rc);
    if (o->json) return am_cli_json_print(json_pack("{s:b}", "restored", 1));
    printf("restored\n");
    return 0;
}
