/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json_out.c -- the one way the CLI writes JSON: every JSON line the tool
 * prints (add, task, forget, reembed, link, unlink, demo) is a jansson
 * value dumped here, so a string from the user or the store is always
 * escaped (an id `x","task":"pwned` stays one string).  JSON the library
 * returns whole (recall, memories, export) is printed as the library wrote
 * it.  The objects themselves are the tools' shared shapes
 * (tools/common/shapes.c), so the server and MCP send the same fields.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

int am_cli_json_print(json_t *v)
{
    char *text = v ? json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY) : NULL;
    json_decref(v);
    if (!text) {
        fprintf(stderr, "agentmem: cannot write the JSON output (out of memory or a value"
                        " that is not valid UTF-8)\n");
        return 1;
    }
    int rc = puts(text) < 0 ? 1 : 0;
    free(text);
    return rc;
}
