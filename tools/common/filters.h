/* SPDX-License-Identifier: Apache-2.0 */
/*
 * filters.h -- a filter (am_filter) read from its JSON object, as the HTTP
 * API's "filters" and MCP's filters argument give it: {"kind": K | [K...],
 * "scope": S | [S...], "metadata": {key: value | [values]}, "from": ISO,
 * "to": ISO, "query": text}.  The library checks the values (metadata,
 * times) and names them; this file only shapes the struct.
 */
#ifndef AM_TOOLS_FILTERS_H
#define AM_TOOLS_FILTERS_H

#include <jansson.h>

#include "agentmem.h"

#define AM_JSON_FILTER_LIST_MAX 64

typedef struct am_json_filter {
    am_filter f;
    const char *kinds[AM_JSON_FILTER_LIST_MAX], *scopes[AM_JSON_FILTER_LIST_MAX];
    char *metadata; /* malloc'ed, or NULL */
    char field[96]; /* on a refusal: the member at fault ("filters.kind") */
    char why[256];  /* and why */
} am_json_filter;

/* obj (a JSON object; its strings are borrowed: keep obj alive) into *out.
 * 0, or 1 with out->field and out->why set; prefix names the object in
 * them ("filters").  am_json_filter_free after either. */
int am_json_filter_read(const json_t *obj, const char *prefix, am_json_filter *out);
void am_json_filter_free(am_json_filter *f);

#endif
