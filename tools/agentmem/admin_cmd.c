/* SPDX-License-Identifier: Apache-2.0 */
/*
 * admin_cmd.c -- the operator's commands: link and unlink, maintain,
 * optimize, pack apply|list|remove, archive (archive_cmd.c), reembed,
 * workspace get|put, working set|get|list|clear, cache and token
 * create|list|revoke.  (watch is watch.c.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plural.h"
#include "progress.h"

int am_cli_cmd_link(am_db *db, const am_cli_opts *o)
{
    if (!o->channel || !o->external_id || !o->user)
        return am_cli_usage_error("link", "--channel, --external-id and --user are required");
    int rc = am_link_merge(db, o->channel, o->external_id, o->user, o->merge);
    if (rc) return am_cli_fail(db, rc);
    printf("ok\n");
    return 0;
}

int am_cli_cmd_unlink(am_db *db, const am_cli_opts *o)
{
    if (!o->channel || !o->external_id)
        return am_cli_usage_error("unlink", "--channel and --external-id are required");
    int rc = am_unlink(db, o->channel, o->external_id);
    if (rc) return am_cli_fail(db, rc);
    printf("ok\n");
    return 0;
}

int am_cli_cmd_maintain(am_db *db, const am_cli_opts *o)
{
    am_maintain_options mo = {0};
    am_maintain_report r;
    am_progress bar;
    mo.user_id = o->user;
    mo.progress = am_progress_fn_adapter;
    mo.progress_ctx = &bar;
    am_progress_start(&bar, "maintain", o->user ? "steps" : "users", 0, o->quiet);
    int rc = am_maintain(db, &mo, &r);
    am_progress_end(&bar);
    if (rc) return am_cli_fail(db, rc);
    if (o->json)
        return am_cli_json_print(json_pack(
            "{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:b,s:I}", "users", (json_int_t)r.users, "decayed",
            (json_int_t)r.decayed, "candidate_forget", (json_int_t)r.candidate, "invalidated",
            (json_int_t)r.invalidated, "archived", (json_int_t)r.archived, "revived",
            (json_int_t)r.revived, "consolidated", (json_int_t)r.consolidated, "steps",
            (json_int_t)r.steps, "elapsed_ms", (json_int_t)r.elapsed_ms, "finished", r.finished,
            "events_archived", (json_int_t)r.events_archived));
    printf("%ld %s: %ld decayed, %ld candidate_forget, %ld invalidated, %ld archived, "
           "%ld revived, %ld consolidated, %ld %s archived (%ld %s, %ld ms)\n",
           r.users, am_plural(r.users, "user", "users"), r.decayed, r.candidate, r.invalidated,
           r.archived, r.revived, r.consolidated, r.events_archived,
           am_plural(r.events_archived, "event", "events"), r.steps,
           am_plural(r.steps, "step", "steps"), r.elapsed_ms);
    return 0;
}

int am_cli_cmd_optimize(am_db *db, const am_cli_opts *o)
{
    am_progress bar;
    am_progress_start(&bar, "optimize", "steps", AM_OPTIMIZE_STEPS, o->quiet);
    int rc = am_optimize_ex(db, am_progress_fn_adapter, &bar);
    am_progress_end(&bar);
    if (rc) return am_cli_fail(db, rc);
    printf("ok\n");
    return 0;
}

/* pack apply FILE | list | remove NAME (docs/PACKS.md) */
static void pack_users_line(json_t *users, const char *verb)
{
    size_t i;
    json_t *u;
    json_array_foreach(users, i, u) {
        const char *outcome = json_string_value(json_object_get(u, "outcome"));
        json_int_t items = json_integer_value(json_object_get(u, "items"));
        printf("  %s: %s%s%" JSON_INTEGER_FORMAT " %s\n",
               json_string_value(json_object_get(u, "user")), outcome ? outcome : verb,
               outcome ? ", " : " ", items, am_plural(items, "item", "items"));
    }
}

int am_cli_cmd_pack(am_db *db, const am_cli_opts *o)
{
    const char *sub = o->pack_sub;
    int rc;
    char *out = NULL;
    if (strcmp(sub, "apply") == 0) {
        if (!o->pack_arg) return am_cli_usage_error("pack", "apply needs FILE (or - for stdin)");
        if (!o->user == !o->all_matching)
            return am_cli_usage_error("pack", "apply needs --user U or --all-matching (one of them)");
        char *doc;
        size_t len;
        if (am_cli_read_whole(o->pack_arg, &doc, &len)) return 1;
        rc = am_pack_apply(db, doc, len, o->user, &out);
        free(doc);
    } else if (o->all_matching) {
        return am_cli_usage_error("pack", "--all-matching is an option of apply");
    } else if (strcmp(sub, "list") == 0) {
        if (o->pack_arg) return am_cli_usage_error("pack", "list takes no argument");
        rc = am_pack_list(db, o->user, &out);
    } else {
        if (!o->pack_arg) return am_cli_usage_error("pack", "remove needs the pack's NAME");
        rc = am_pack_remove(db, o->pack_arg, o->user, &out);
    }
    if (rc) return am_cli_fail(db, rc);
    if (o->json) {
        printf("%s\n", out);
        am_free(out);
        return 0;
    }
    json_t *j = json_loads(out, 0, NULL);
    am_free(out);
    if (!j) return am_cli_fail(db, AM_NOMEM);
    json_t *users = json_object_get(j, "users");
    if (strcmp(sub, "apply") == 0) {
        printf("pack %s@%s: %zu %s\n", json_string_value(json_object_get(j, "pack")),
               json_string_value(json_object_get(j, "version")), json_array_size(users),
               am_plural((long long)json_array_size(users), "user", "users"));
        pack_users_line(users, "applied");
    } else if (strcmp(sub, "remove") == 0) {
        printf("pack %s removed: %zu %s\n", json_string_value(json_object_get(j, "pack")),
               json_array_size(users), am_plural((long long)json_array_size(users), "user", "users"));
        pack_users_line(users, "removed");
    } else {
        size_t i;
        json_t *p, *packs = json_object_get(j, "packs");
        json_array_foreach(packs, i, p) {
            char *at = json_dumps(json_object_get(p, "applies_to"), JSON_COMPACT | JSON_SORT_KEYS);
            json_int_t rules = json_integer_value(json_object_get(p, "rules"));
            json_int_t n_users = json_integer_value(json_object_get(p, "users"));
            printf("%s@%s  applies_to %s  %" JSON_INTEGER_FORMAT " %s",
                   json_string_value(json_object_get(p, "name")),
                   json_string_value(json_object_get(p, "version")), at ? at : "{}", rules,
                   am_plural(rules, "rule", "rules"));
            if (o->user) printf("  applied %s\n", json_string_value(json_object_get(p, "applied_at")));
            else printf("  %" JSON_INTEGER_FORMAT " %s\n", n_users, am_plural(n_users, "user", "users"));
            free(at);
        }
        if (!json_array_size(packs)) printf("(no packs)\n");
    }
    json_decref(j);
    return 0;
}

int am_cli_cmd_archive(am_db *db, const am_cli_opts *o)
{
    am_cli_archive_args a = {o->archive_sub, o->user, o->older_than, o->event, o->from, o->to,
                             o->json};
    return am_cli_archive(db, &a);
}

int am_cli_cmd_reembed(am_db *db, const am_cli_opts *o)
{
    if (strcmp(am_embedder_id(db), "none") == 0) {
        fprintf(stderr, "agentmem reembed: no embedder is configured, or `auto` found no encoder\n"
                        "  (agentmem doctor says which): set AGENTMEM_EMBEDDER to use-lite[:DIR],\n"
                        "  w2v:PATH or openai:MODEL@URL\n"
                        "  (the key, if any, in AGENTMEM_EMBEDDER_KEY)\n");
        return 1;
    }
    am_progress bar;
    size_t n = 0;
    am_progress_start(&bar, "reembed", "events", 0, o->quiet);
    int rc = am_reembed(db, o->user, am_progress_fn_adapter, &bar, &n);
    am_progress_end(&bar);
    if (rc) {
        am_cli_fail(db, rc);
        if (n)
            fprintf(stderr, "agentmem: %zu %s re-embedded before the error; run again to"
                            " continue\n", n, am_plural((long long)n, "event", "events"));
        return 1;
    }
    if (o->json) return am_cli_json_print(json_pack("{s:I}", "reembedded", (json_int_t)n));
    else printf("%zu %s re-embedded\n", n, am_plural((long long)n, "event", "events"));
    return 0;
}

int am_cli_cmd_workspace(am_db *db, const am_cli_opts *o)
{
    const char *act = o->ws_action;
    if (!o->user || !o->task) return am_cli_usage_error("workspace", "--user and --task are required");
    int rc;
    if (strcmp(act, "put") == 0) {
        if (!o->agent) return am_cli_usage_error("workspace", "put needs --agent");
        if (!o->doing && !o->done && !o->next)
            return am_cli_usage_error("workspace", "put needs --doing, --done or --next");
        long version;
        if ((rc = am_workspace_put(db, o->user, o->task, o->agent, o->doing, o->done, o->next,
                                   &version)))
            return am_cli_fail(db, rc);
        if (o->json)
            return am_cli_json_print(json_pack("{s:s,s:s,s:I}", "task", o->task, "agent", o->agent,
                                               "version", (json_int_t)version));
        printf("workspace of task %s: entry of %s is version %ld\n", o->task, o->agent, version);
        return 0;
    }
    if (o->agent || o->doing || o->done || o->next)
        return am_cli_usage_error("workspace", "get takes --user and --task only");
    am_workspace *w;
    if ((rc = am_workspace_get(db, o->user, o->task, &w))) return am_cli_fail(db, rc);
    if (o->json) printf("%s\n", w->json);
    for (size_t i = 0; !o->json && i < w->n; i++) {
        const am_workspace_entry *e = &w->entries[i];
        char ts[32];
        char *who = am_text_plain(e->agent_id), *doing = am_text_plain(e->doing),
             *done = am_text_plain(e->done), *next = am_text_plain(e->next);
        printf("%s (v%ld, %s)\n  doing: %s\n  done:  %s\n  next:  %s\n", who ? who : "?", e->version,
               am_time_format(e->updated_at, 0, ts), doing ? doing : "?", done ? done : "?",
               next ? next : "?");
        am_free(who);
        am_free(doing);
        am_free(done);
        am_free(next);
    }
    if (!o->json && w->n == 0) printf("(no workspace entries)\n");
    am_workspace_free(w);
    return 0;
}

/* working set|get|list|clear: a session's working memory (am_working_*) */
int am_cli_cmd_working(am_db *db, const am_cli_opts *o)
{
    const char *act = o->ws_action;
    if (!o->user || !o->session) return am_cli_usage_error("working", "--user and --session are required");
    int set = strcmp(act, "set") == 0, rc;
    if (!set && (o->value || o->ttl)) return am_cli_usage_error("working", "--value and --ttl are options of set");
    if ((set || strcmp(act, "get") == 0) && !o->key) return am_cli_usage_error("working", "--key is required");
    if (strcmp(act, "list") == 0 && o->key) return am_cli_usage_error("working", "list takes no --key");
    if (set) {
        char *end;
        long long ttl = o->ttl ? strtoll(o->ttl, &end, 10) : 0;
        if (!o->value || !o->ttl) return am_cli_usage_error("working", "set needs --value and --ttl");
        if (end == o->ttl || *end || ttl < 1 || ttl > AM_WORKING_TTL_MAX_MS)
            return am_cli_usage_error("working", "--ttl: expected milliseconds, 1 to 2592000000");
        if ((rc = am_working_set(db, o->user, o->session, o->key, o->value, (am_time)ttl)))
            return am_cli_fail(db, rc);
        if (o->json)
            return am_cli_json_print(json_pack("{s:s,s:s,s:b}", "session", o->session, "key", o->key,
                                               "set", 1));
        printf("working memory of session %s: %s set\n", o->session, o->key);
        return 0;
    }
    if (strcmp(act, "clear") == 0) {
        if ((rc = am_working_clear(db, o->user, o->session, o->key))) return am_cli_fail(db, rc);
        if (o->json)
            return am_cli_json_print(json_pack("{s:s,s:s?,s:b}", "session", o->session, "key", o->key,
                                               "cleared", 1));
        printf("working memory of session %s: %s cleared\n", o->session, o->key ? o->key : "every key");
        return 0;
    }
    if (strcmp(act, "get") == 0) {
        char *v;
        if ((rc = am_working_get(db, o->user, o->session, o->key, &v))) return am_cli_fail(db, rc);
        if (o->json) rc = am_cli_json_print(json_pack("{s:s,s:s,s:s}", "session", o->session, "key", o->key,
                                                      "value", v));
        else {
            char *p = am_text_plain(v);
            printf("%s\n", p ? p : "?");
            am_free(p);
        }
        am_free(v);
        return rc;
    }
    am_working_entries *l;
    if ((rc = am_working_list(db, o->user, o->session, &l))) return am_cli_fail(db, rc);
    if (o->json) printf("%s\n", l->json);
    for (size_t i = 0; !o->json && i < l->n; i++) {
        char ts[32];
        char *k = am_text_plain(l->entries[i].key), *v = am_text_plain(l->entries[i].value);
        printf("%s = %s (until %s)\n", k ? k : "?", v ? v : "?",
               am_time_format(l->entries[i].expires_at, 0, ts));
        am_free(k);
        am_free(v);
    }
    if (!o->json && l->n == 0) printf("(no working memory)\n");
    am_working_list_free(l);
    return 0;
}

/* cache: the shared cache's state (am_cache_state) */
int am_cli_cmd_cache(am_db *db, const am_cli_opts *o)
{
    const char *err;
    const char *st = am_cache_state(db, &err);
    if (o->json) return am_cli_json_print(json_pack("{s:s,s:s}", "cache", st, "error", err));
    printf("cache: %s%s%s\n", st, *err ? ": " : "", err);
    return strcmp(st, "down") == 0 ? 1 : 0;
}

/* token create | list | revoke ID */
int am_cli_cmd_token(am_db *db, const am_cli_opts *o)
{
    const char *sub = o->token_sub;
    if (strcmp(sub, "create") == 0) {
        if (!o->user) return am_cli_usage_error("token", "token create: --user is required");
        am_token_spec spec = {o->user, o->agent, o->role, o->admin};
        char *token = NULL, *id = NULL;
        int rc = am_token_create(db, &spec, &token, &id);
        if (rc) return am_cli_fail(db, rc);
        printf("%s\n", token);
        fprintf(stderr, "token %s for user %s%s: keep it, it is not shown again\n", id, o->user,
                o->admin ? " (admin)" : "");
        am_free(token);
        am_free(id);
        return fflush(stdout) == 0 ? 0 : 1;
    }
    if (strcmp(sub, "list") == 0) {
        am_token_info *list;
        size_t n;
        int rc = am_token_list(db, o->user, &list, &n);
        if (rc) return am_cli_fail(db, rc);
        json_t *arr = o->json ? json_array() : NULL;
        for (size_t i = 0; i < n && (!o->json || arr); i++) {
            const am_token_info *t = &list[i];
            char c[32], r[32];
            am_time_format(t->created_at, 0, c);
            if (t->revoked_at != AM_TIME_NONE) am_time_format(t->revoked_at, 0, r);
            if (o->json) {
                json_t *row = json_pack("{s:s, s:s, s:o, s:o, s:b, s:s, s:o}", "id", t->id, "user",
                                        t->user_id, "agent", am_shape_str(t->agent_id[0] ? t->agent_id : NULL),
                                        "role", am_shape_str(t->role[0] ? t->role : NULL), "admin",
                                        t->admin, "created", c, "revoked",
                                        am_shape_str(t->revoked_at != AM_TIME_NONE ? r : NULL));
                if (!row || json_array_append_new(arr, row)) {
                    json_decref(arr);
                    arr = NULL;
                }
            } else {
                char *u = am_text_plain(t->user_id);
                printf("%s user %s%s%s%s%s%s created %s%s%s\n", t->id, u ? u : "?",
                       t->agent_id[0] ? " agent " : "", t->agent_id, t->role[0] ? " role " : "",
                       t->role, t->admin ? " admin" : "", c,
                       t->revoked_at != AM_TIME_NONE ? " revoked " : "",
                       t->revoked_at != AM_TIME_NONE ? r : "");
                am_free(u);
            }
        }
        if (!o->json && n == 0) printf("(no tokens)\n");
        am_free(list);
        if (o->json) return am_cli_json_print(arr ? json_pack("{s:o}", "tokens", arr) : NULL);
        return 0;
    }
    if (strcmp(sub, "revoke") == 0) {
        if (!o->id) return am_cli_usage_error("token", "token revoke: the token's ID is required");
        int rc = am_token_revoke(db, o->id);
        if (rc) return am_cli_fail(db, rc);
        printf("revoked %s\n", o->id);
        return 0;
    }
    return am_cli_usage_error("token", "expected create, list or revoke");
}
