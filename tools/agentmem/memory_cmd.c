/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memory_cmd.c -- `agentmem memory get|add|update|delete`: one memory by
 * id (am_memory_*).  ID is the memory's lineage id or any of its
 * versions' ids.  Text output is flattened (am_text_plain: a stored text
 * is data, never a terminal control); --json prints the library's JSON.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "plural.h"

static int fail(am_db *db, int rc)
{
    fprintf(stderr, "agentmem: %s (%s)\n", am_errmsg(db), am_errstr(rc));
    return 1;
}

static void print_version(const am_memory *m, const char *mark)
{
    char from[32], to[32];
    char *key = am_text_plain(m->key), *text = am_text_plain(m->text);
    printf("%s%s %-10s %-14s %-28s %s .. %s  %s\n", mark, m->id, m->kind, m->status,
           key ? key : "", am_time_format(m->valid_from, 0, from),
           m->valid_to == AM_TIME_NONE ? "" : am_time_format(m->valid_to, 0, to), text ? text : "");
    am_free(key);
    am_free(text);
}

/* The item: --json its JSON, else its lineage, then each version (the
 * current one marked "*") */
static int print_item(const am_memory_item *m, int json, int versions)
{
    if (json) {
        printf("%s\n", m->json);
        return 0;
    }
    const char *lineage = m->n_versions ? m->versions[0].lineage_id : "?";
    printf("memory %s: %s\n", lineage, m->current ? "current version" : "no current version");
    if (!versions) {
        if (m->current) print_version(m->current, "* ");
        return 0;
    }
    for (size_t i = 0; i < m->n_versions; i++)
        print_version(&m->versions[i], &m->versions[i] == m->current ? "* " : "  ");
    return 0;
}

int am_cli_memory(am_db *db, const am_cli_memory_args *a)
{
    am_memory_item *m = NULL;
    int rc;
    if (strcmp(a->sub, "get") == 0) {
        rc = am_memory_get_as(db, a->user, a->id, a->agent, a->role, &m);
    } else if (strcmp(a->sub, "add") == 0) {
        am_memory_input in = {0};
        in.user_id = a->user;
        in.text = a->text;
        in.kind = a->kind;
        in.key = a->key;
        in.scope = a->scope;
        in.agent_id = a->agent;
        in.role = a->role;
        in.metadata_json = a->metadata;
        in.expires_at = a->expires;
        rc = am_memory_add(db, &in, &m);
    } else if (strcmp(a->sub, "update") == 0) {
        rc = am_memory_set(db, a->user, a->id, a->text, a->metadata, a->agent, a->role, &m);
    } else {
        long n = 0;
        if ((rc = am_memory_delete_as(db, a->user, a->id, a->agent, a->role, &n))) return fail(db, rc);
        if (a->json) return am_cli_json_print(json_pack("{s:I}", "deleted", (json_int_t)n));
        printf("memory %s deleted: %ld %s\n", a->id, n, am_plural(n, "version", "versions"));
        return 0;
    }
    if (rc) return fail(db, rc);
    if (a->json && strcmp(a->sub, "get") != 0) { /* {"memory": <current>}, as the server's */
        json_t *all = json_loads(m->json, 0, NULL);
        json_t *cur = all ? json_object_get(all, "memory") : NULL;
        rc = am_cli_json_print(cur ? json_pack("{s:O}", "memory", cur) : NULL);
        json_decref(all);
    } else rc = print_item(m, a->json, strcmp(a->sub, "get") == 0);
    am_memory_item_free(m);
    return rc;
}
