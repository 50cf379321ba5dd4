/* SPDX-License-Identifier: Apache-2.0 */
/*
 * filter.c -- a filter (am_filter) from the command line: recall
 * --filter JSON, or memories' --kind, --scope and --metadata flags.
 * The library checks the filter itself (naming the field); this file only
 * turns the text into the struct.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define LIST_MAX 64

void am_cli_filter_free(am_cli_filter *f)
{
    if (!f) return;
    for (size_t i = 0; i < f->filter.n_kinds; i++) free((char *)f->kinds[i]);
    for (size_t i = 0; i < f->filter.n_scopes; i++) free((char *)f->scopes[i]);
    free(f->metadata);
    free(f->from);
    free(f->to);
    memset(f, 0, sizeof *f);
}

static void init(am_cli_filter *f)
{
    memset(f, 0, sizeof *f);
    f->filter.kinds = f->kinds;
    f->filter.scopes = f->scopes;
}

/* v (a string or an array of strings) appended to list; 0 or 1 (why) */
static int strings(am_cli_filter *f, const char *name, json_t *v, const char **list, size_t *n)
{
    size_t k = json_is_array(v) ? json_array_size(v) : 1;
    for (size_t i = 0; i < k; i++) {
        json_t *e = json_is_array(v) ? json_array_get(v, i) : v;
        if (!json_is_string(e) || *n == LIST_MAX) {
            snprintf(f->why, sizeof f->why,
                     "--filter: %s: expected a string or an array of at most %d strings", name,
                     LIST_MAX);
            return 1;
        }
        if (!(list[(*n)++] = strdup(json_string_value(e)))) {
            snprintf(f->why, sizeof f->why, "out of memory");
            return 1;
        }
    }
    return 0;
}

static char *text_of(json_t *v)
{
    return json_is_string(v) ? strdup(json_string_value(v))
                             : json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
}

int am_cli_filter_parse(const char *json, am_cli_filter *f)
{
    init(f);
    json_error_t je;
    json_t *o = json_loads(json, JSON_REJECT_DUPLICATES, &je);
    if (!json_is_object(o)) {
        snprintf(f->why, sizeof f->why, "--filter: expected a JSON object%s%s",
                 o ? "" : ": ", o ? "" : je.text);
        json_decref(o);
        return 1;
    }
    const char *k;
    json_t *v;
    int bad = 0;
    json_object_foreach(o, k, v) {
        if (bad) break;
        if (strcmp(k, "kind") == 0) bad = strings(f, k, v, f->kinds, &f->filter.n_kinds);
        else if (strcmp(k, "scope") == 0) bad = strings(f, k, v, f->scopes, &f->filter.n_scopes);
        else if (strcmp(k, "metadata") == 0 && json_is_object(v))
            bad = !(f->metadata = text_of(v));
        else if ((strcmp(k, "from") == 0 || strcmp(k, "to") == 0) && json_is_string(v))
            bad = !(*(k[0] == 'f' ? &f->from : &f->to) = text_of(v));
        else {
            snprintf(f->why, sizeof f->why,
                     "--filter: unknown or mistyped field \"%.64s\" (kind, scope: strings or"
                     " arrays; metadata: an object; from, to: ISO 8601)",
                     k);
            bad = 1;
        }
    }
    json_decref(o);
    if (bad && !f->why[0]) snprintf(f->why, sizeof f->why, "out of memory");
    f->filter.metadata_json = f->metadata;
    f->filter.from = f->from;
    f->filter.to = f->to;
    return bad;
}

int am_cli_filter_flags(const char *kind, const char *scope, const char *metadata,
                        am_cli_filter *f)
{
    init(f);
    if (kind && !(f->kinds[f->filter.n_kinds++] = strdup(kind))) goto out_oom;
    if (scope && !(f->scopes[f->filter.n_scopes++] = strdup(scope))) goto out_oom;
    if (metadata && metadata[0] == '{') {
        if (!(f->metadata = strdup(metadata))) goto out_oom;
    } else if (metadata) {
        const char *eq = strchr(metadata, '=');
        if (!eq || eq == metadata) {
            snprintf(f->why, sizeof f->why, "--metadata: expected k=v or a JSON object");
            return 1;
        }
        json_t *o = json_object();
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)(eq - metadata), metadata);
        if (!o || json_object_set_new(o, key, json_string(eq + 1))) {
            json_decref(o);
            snprintf(f->why, sizeof f->why, "--metadata: the key or the value is not UTF-8");
            return 1;
        }
        f->metadata = json_dumps(o, JSON_COMPACT);
        json_decref(o);
        if (!f->metadata) goto out_oom;
    }
    f->filter.metadata_json = f->metadata;
    return 0;
out_oom:
    snprintf(f->why, sizeof f->why, "out of memory");
    return 1;
}
