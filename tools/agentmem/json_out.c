/*
 * json_out.c -- the one way the CLI writes JSON: every JSON line the tool
 * prints (add, task, forget, reembed, link, unlink, demo) is a jansson
 * value dumped here, so a string from the user or the store is always
 * escaped (an id `x","task":"pwned` stays one string).  JSON the library
 * returns whole (recall, memories, export) is printed as the library wrote
 * it; a piece of library JSON that goes inside a CLI object (a task's
 * artifacts, a recall result in the demo) is parsed first and embedded as a
 * value, never pasted as text.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

json_t *am_cli_json_parsed(const char *text)
{
    if (!text) return json_null();
    json_error_t je;
    return json_loads(text, JSON_DECODE_ANY, &je);
}

json_t *am_cli_json_str(const char *s)
{
    return s ? json_string(s) : json_null();
}

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
