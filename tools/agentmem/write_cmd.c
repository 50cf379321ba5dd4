/* SPDX-License-Identifier: Apache-2.0 */
/*
 * write_cmd.c -- the commands that write: add (one event, --batch FILE or
 * --messages FILE, handed to batch.c and messages_cmd.c), feedback, memory
 * get|add|update|delete (memory_cmd.c), import and distill.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plural.h"
#include "progress.h"

int am_cli_print_add(const am_add_info *info, int json)
{
    if (json)
        return am_cli_json_print(am_shape_add(info));
    if (info->existing)
        printf("event %s (user %s): already present, nothing added\n", info->event_id,
               info->user_id);
    else
        printf("event %s (user %s%s%s): %d new %s, %d updated, %d invalidated%s%s\n",
               info->event_id, info->user_id, info->task_id[0] ? ", task " : "", info->task_id,
               info->memories_created, am_plural(info->memories_created, "memory", "memories"),
               info->memories_updated, info->memories_invalidated,
               info->task_changed ? ", task changed" : "", info->one_off ? ", one-off" : "");
    return 0;
}

int am_cli_cmd_add(am_db *db, const am_cli_opts *o)
{
    if (o->batch) {
        if (!*o->batch) return am_cli_usage_error("add", "--batch needs a file name (or - for stdin)");
        return am_cli_add_batch(db, o->batch, o->atomic, o->json, o->quiet);
    }
    if (o->messages) {
        if (!*o->messages) return am_cli_usage_error("add", "--messages needs a file name (or - for stdin)");
        if (o->text || o->source || o->type || o->id || o->atomic)
            return am_cli_usage_error("add", "--messages takes --user, --session, --task, --at and"
                                      " --agent only (each message is its own event)");
        am_event base = {0};
        base.user_id = o->user;
        base.channel = o->channel;
        base.external_id = o->external_id;
        base.agent_id = o->agent;
        base.session_id = o->session;
        base.task_id = o->task;
        base.domain = o->domain;
        base.intent = o->intent;
        base.occurred_at = o->at;
        base.metadata_json = o->metadata;
        return am_cli_add_messages(db, o->messages, &base, o->json);
    }
    if (o->atomic) return am_cli_usage_error("add", "--atomic goes with --batch");
    if (!o->text) return am_cli_usage_error("add", "--text is required");
    am_event ev = {sizeof(am_event),
                   o->user,   o->channel, o->external_id, o->agent, o->session,
                   o->task,   o->source,  o->type,        o->domain, o->intent,
                   o->text,   o->at,      o->id,          o->metadata};
    am_add_info info;
    int rc = am_add_event(db, &ev, &info);
    if (rc) return am_cli_fail(db, rc);
    return am_cli_print_add(&info, o->json);
}

int am_cli_cmd_feedback(am_db *db, const am_cli_opts *o)
{
    if (!o->user || !o->id || !o->action)
        return am_cli_usage_error("feedback", "--user, --id and --action are required");
    int action = strcmp(o->action, "confirm") == 0   ? AM_FEEDBACK_CONFIRM
                 : strcmp(o->action, "reject") == 0  ? AM_FEEDBACK_REJECT
                 : strcmp(o->action, "correct") == 0 ? AM_FEEDBACK_CORRECT
                                                     : 0;
    if (!action) return am_cli_usage_error("feedback", "--action must be confirm, reject or correct");
    int rc = am_feedback(db, o->user, o->id, action, o->text);
    if (rc) return am_cli_fail(db, rc);
    printf("ok\n");
    return 0;
}

/* memory get|add|update|delete: the arguments each needs, named */
int am_cli_cmd_memory(am_db *db, const am_cli_opts *o)
{
    const char *sub = o->mem_sub;
    int add = strcmp(sub, "add") == 0, upd = strcmp(sub, "update") == 0;
    char cmd[32];
    snprintf(cmd, sizeof cmd, "memory %s", sub);
    if (!o->user) return am_cli_usage_error(cmd, "--user is required");
    if (!add && !o->id) return am_cli_usage_error(cmd, "the memory ID is required (memory SUB ID --user U)");
    if (add && o->id) return am_cli_usage_error(cmd, "add takes no ID (the engine makes it)");
    if (add && !o->text) return am_cli_usage_error(cmd, "--text is required");
    if (!add && !upd && o->text) return am_cli_usage_error(cmd, "--text is an option of add and update");
    if (!add && (o->kind || o->key || o->scope || o->expires))
        return am_cli_usage_error(cmd, "--kind, --key, --scope and --expires are options of add");
    if (upd && !o->text && !o->metadata) return am_cli_usage_error(cmd, "--text or --metadata is required");
    am_cli_memory_args a = {sub,     o->id,    o->user,  o->text, o->kind,   o->key,
                            o->scope, o->agent, o->role, o->json, o->metadata, o->expires};
    return am_cli_memory(db, &a);
}

/* The whole of path ('-': stdin) in *out (malloc'ed), *len bytes. */
int am_cli_read_whole(const char *path, char **out, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    *out = NULL;
    *len = 0;
    if (!f) {
        fprintf(stderr, "agentmem import: cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    size_t cap = 0;
    char *p = NULL;
    for (;;) {
        if (*len == cap) {
            char *q = realloc(p, cap = cap ? cap * 2 : 1 << 16);
            if (!q) break;
            p = q;
        }
        size_t got = fread(p + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0) break;
    }
    int bad = ferror(f) || (p == NULL);
    if (f != stdin) fclose(f);
    if (bad) {
        fprintf(stderr, "agentmem import: cannot read %s\n", path);
        free(p);
        return 1;
    }
    *out = p;
    return 0;
}

int am_cli_cmd_import(am_db *db, const am_cli_opts *o)
{
    if (!o->import_file || !*o->import_file)
        return am_cli_usage_error("import", "FILE is required (an export, or - for stdin)");
    int mem0 = 0;
    if (o->from) {
        if (strcmp(o->from, "mem0") != 0) return am_cli_usage_error("import", "--from: expected mem0");
        if (!o->user) return am_cli_usage_error("import", "--from mem0 needs --user U");
        if (o->merge) return am_cli_usage_error("import", "--from mem0 always merges: --merge is not taken");
        mem0 = 1;
    }
    char *doc;
    size_t len;
    if (am_cli_read_whole(o->import_file, &doc, &len)) return 1;
    am_import_info info;
    am_progress bar;
    am_import_options io = {o->merge ? AM_IMPORT_MERGE : 0, am_progress_fn_adapter, &bar};
    am_progress_start(&bar, "import", mem0 ? "memories" : "entries", 0, o->quiet);
    int rc = mem0 ? am_import_mem0_ex(db, doc, len, o->user, &io, &info)
                  : am_import_ex(db, doc, len, o->user, &io, &info);
    am_progress_end(&bar);
    free(doc);
    if (rc) return am_cli_fail(db, rc);
    if (o->json)
        return am_cli_json_print(json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "user",
                                           info.user_id, "events", (json_int_t)info.events,
                                           "memories", (json_int_t)info.memories, "tasks",
                                           (json_int_t)info.tasks, "events_skipped",
                                           (json_int_t)info.events_skipped, "memories_skipped",
                                           (json_int_t)info.memories_skipped, "tasks_skipped",
                                           (json_int_t)info.tasks_skipped));
    printf("imported into user %s: %ld %s, %ld %s, %ld %s", info.user_id, info.events,
           am_plural(info.events, "event", "events"), info.memories,
           am_plural(info.memories, "memory", "memories"), info.tasks,
           am_plural(info.tasks, "task", "tasks"));
    if (o->merge)
        printf(" (present already, skipped: %ld %s, %ld %s, %ld %s)", info.events_skipped,
               am_plural(info.events_skipped, "event", "events"), info.memories_skipped,
               am_plural(info.memories_skipped, "memory", "memories"), info.tasks_skipped,
               am_plural(info.tasks_skipped, "task", "tasks"));
    printf("\n");
    return 0;
}

int am_cli_cmd_distill(am_db *db, const am_cli_opts *o)
{
    return am_cli_distill(db, o->user, o->since, o->llm, o->json);
}
