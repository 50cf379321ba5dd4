/* SPDX-License-Identifier: Apache-2.0 */
/*
 * filters.c -- a filter from its JSON object (filters.h).
 */
#include "filters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(am_json_filter *f, const char *prefix, const char *key, const char *why)
{
    snprintf(f->field, sizeof f->field, "%s.%.64s", prefix, key);
    snprintf(f->why, sizeof f->why, "%s: %s", f->field, why);
    return 1;
}

/* v (a string or an array of strings) into list */
static int strings(am_json_filter *f, const char *prefix, const char *key, const json_t *v,
                   const char **list, size_t *n)
{
    size_t k = json_is_array(v) ? json_array_size(v) : 1;
    for (size_t i = 0; i < k; i++) {
        const json_t *e = json_is_array(v) ? json_array_get(v, i) : v;
        if (!json_is_string(e) || *n == AM_JSON_FILTER_LIST_MAX)
            return bad(f, prefix, key, "expected a string or an array of at most 64 strings");
        list[(*n)++] = json_string_value(e);
    }
    return 0;
}

int am_json_filter_read(const json_t *obj, const char *prefix, am_json_filter *f)
{
    memset(f, 0, sizeof *f);
    f->f.kinds = f->kinds;
    f->f.scopes = f->scopes;
    if (!json_is_object(obj)) {
        snprintf(f->field, sizeof f->field, "%s", prefix);
        snprintf(f->why, sizeof f->why, "%s: expected an object", prefix);
        return 1;
    }
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        if (strcmp(k, "kind") == 0) {
            if (strings(f, prefix, k, v, f->kinds, &f->f.n_kinds)) return 1;
        } else if (strcmp(k, "scope") == 0) {
            if (strings(f, prefix, k, v, f->scopes, &f->f.n_scopes)) return 1;
        } else if (strcmp(k, "metadata") == 0) {
            if (!json_is_object(v)) return bad(f, prefix, k, "expected an object");
            if (!(f->metadata = json_dumps(v, JSON_COMPACT))) return bad(f, prefix, k, "out of memory");
            f->f.metadata_json = f->metadata;
        } else if (strcmp(k, "from") == 0 || strcmp(k, "to") == 0 || strcmp(k, "query") == 0) {
            if (!json_is_string(v)) return bad(f, prefix, k, "expected a string");
            *(k[0] == 'f' ? &f->f.from : k[0] == 't' ? &f->f.to : &f->f.query) = json_string_value(v);
        } else {
            return bad(f, prefix, k, "unknown (kind, scope, metadata, from, to, query)");
        }
    }
    return 0;
}

void am_json_filter_free(am_json_filter *f)
{
    if (!f) return;
    free(f->metadata);
    f->metadata = NULL;
}
