/* SPDX-License-Identifier: Apache-2.0 */
/*
 * read_cmd.c -- the commands that read: recall, task, memories, export,
 * profile and report corrections (profile_cmd.c draws the card and the
 * report).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int am_cli_cmd_recall(am_db *db, const am_cli_opts *o)
{
    if (!o->text) return am_cli_usage_error("recall", "--text is required");
    if (o->part && strcmp(o->part, "system") != 0 && strcmp(o->part, "context") != 0)
        return am_cli_usage_error("recall", "--part must be system or context");
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = o->user;
    q.channel = o->channel;
    q.external_id = o->external_id;
    q.agent_id = o->agent;
    q.role = o->role;
    q.session_id = o->session;
    q.task_id = o->task;
    q.domain = o->domain;
    q.text = o->text;
    q.as_of = o->as_of;
    q.budget_tokens = o->budget;
    q.max_events = o->k;
    /* --filter JSON: {"kind", "scope", "metadata", "from", "to"} */
    am_cli_filter f;
    if (o->filter && am_cli_filter_parse(o->filter, &f)) {
        am_cli_filter_free(&f);
        return am_cli_usage_error("recall", f.why);
    }
    if (o->filter) q.filter = &f.filter;
    am_recall_result *r;
    int rc = am_recall(db, &q, &r);
    if (o->filter) am_cli_filter_free(&f);
    if (rc) return am_cli_fail(db, rc);
    if (o->json) printf("%s\n", r->json);
    else if (!r->need_memory) printf("(no memory needed: %s)\n", r->route);
    else {
        const char *b = !o->part                       ? r->block
                        : strcmp(o->part, "system") == 0 ? r->block_system
                                                         : r->block_context;
        printf("%s", b[0] ? b : "(nothing remembered)\n");
    }
    am_recall_free(r);
    return 0;
}

int am_cli_cmd_task(am_db *db, const am_cli_opts *o)
{
    if (!o->user || !o->task) return am_cli_usage_error("task", "--user and --task are required");
    am_task *t;
    int rc = am_task_get_as(db, o->user, o->task, o->agent, o->role, &t);
    if (rc) return am_cli_fail(db, rc);
    if (o->json) {
        rc = am_cli_json_print(am_shape_task(t));
    } else {
        printf("task %s: stage %s, status %s\n  artifacts %s\n  pending %s\n  notes %s\n",
               t->task_id, t->stage ? t->stage : "-", t->status, t->artifacts_json,
               t->pending_json, t->notes_json);
        for (size_t i = 0; i < t->n_history; i++) {
            char ts[32];
            char *was = am_text_plain(t->history[i].old_value ? t->history[i].old_value : "-");
            char *now = am_text_plain(t->history[i].new_value ? t->history[i].new_value : "-");
            printf("  %s %s: %s -> %s\n", am_time_format(t->history[i].at, 0, ts),
                   t->history[i].field, was ? was : "?", now ? now : "?");
            am_free(was);
            am_free(now);
        }
    }
    am_task_free(t);
    return rc;
}

int am_cli_cmd_memories(am_db *db, const am_cli_opts *o)
{
    if (!o->user) return am_cli_usage_error("memories", "--user is required");
    am_list_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.which = o->all ? AM_LIST_ALL : AM_LIST_ACTIVE;
    lo.as_of = o->as_of;
    lo.agent_id = o->agent;
    lo.role = o->role;
    lo.cursor = o->cursor;
    if (o->limit) {
        char *end;
        long v = strtol(o->limit, &end, 10);
        if (*end || end == o->limit || v <= 0 || v > AM_LIST_LIMIT_MAX)
            return am_cli_usage_error("memories", "--limit: expected a number from 1 to 1000");
        lo.limit = (size_t)v;
    }
    /* --kind K, --scope S, --metadata k=v (or a JSON object of values) */
    am_cli_filter f;
    if (am_cli_filter_flags(o->kind, o->scope, o->metadata, &f)) {
        am_cli_filter_free(&f);
        return am_cli_usage_error("memories", f.why);
    }
    lo.filter = &f.filter;
    am_memory_list *l;
    int rc = am_memories_list(db, o->user, &lo, &l);
    am_cli_filter_free(&f);
    if (rc) return am_cli_fail(db, rc);
    if (o->json) {
        printf("%s\n", l->json);
        if (l->next_cursor) fprintf(stderr, "next_cursor: %s\n", l->next_cursor);
    } else {
        for (size_t i = 0; i < l->n; i++) {
            const am_memory *m = &l->items[i];
            char from[32], to[32];
            char *key = am_text_plain(m->key), *text = am_text_plain(m->text);
            printf("%s %-10s %-14s %-28s conf %.2f  %s .. %s  ", m->id, m->kind, m->status,
                   key ? key : "", m->confidence, am_time_format(m->valid_from, 0, from),
                   m->valid_to == AM_TIME_NONE ? "" : am_time_format(m->valid_to, 0, to));
            if (o->all) /* each version's system time too */
                printf("recorded %s .. %s  ", am_time_format(m->recorded_at, 0, from),
                       m->superseded_at == AM_TIME_NONE ? ""
                                                        : am_time_format(m->superseded_at, 0, to));
            printf("%s\n", text ? text : "");
            am_free(key);
            am_free(text);
        }
        if (l->n == 0) printf("(no memories)\n");
        if (l->next_cursor) printf("(more: --cursor %s)\n", l->next_cursor);
    }
    am_memory_list_free(l);
    return 0;
}

/* am_export_stream's sink: stdout, as the document is made. */
static int write_stdout(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    return fwrite(data, 1, len, stdout) != len;
}

int am_cli_cmd_export(am_db *db, const am_cli_opts *o)
{
    if (!o->user) return am_cli_usage_error("export", "--user is required");
    int rc = am_export_stream(db, o->user, write_stdout, NULL);
    if (rc) {
        fflush(stdout);
        return am_cli_fail(db, rc);
    }
    if (putchar('\n') == EOF || fflush(stdout) != 0) {
        fprintf(stderr, "agentmem: export: cannot write the output\n");
        return 1;
    }
    return 0;
}

/* profile --user U [--budget N] [--json] */
int am_cli_cmd_profile(am_db *db, const am_cli_opts *o)
{
    if (!o->user) return am_cli_usage_error("profile", "--user is required");
    return am_cli_profile(db, o->user, o->budget, o->json);
}

/* report corrections [--since ISO] [--until ISO] [--user U] [--period P] [--json] */
int am_cli_cmd_report(am_db *db, const am_cli_opts *o)
{
    am_report_query q = {0};
    q.user_id = o->user;
    q.since = o->since;
    q.until = o->until;
    if ((q.period = am_cli_report_period(o->period)) < 0)
        return am_cli_usage_error("report", "--period: expected day, week or month");
    return am_cli_report(db, &q, o->json);
}
