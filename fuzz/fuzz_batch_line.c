/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_batch_line.c -- the line checker of `agentmem add --batch`
 * (tools/agentmem/batch.c, included here: its checks are static): any bytes
 * give an event whose every set field is a NUL-free string of the line, or
 * a reason, never a crash or a leak.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/agentmem/batch.c"

/* batch.c prints results through main.c, which is not linked here */
int am_cli_print_add(const am_add_info *info, int json)
{
    (void)info;
    (void)json;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *root = NULL;
    am_event ev;
    char why[400];
    int bad = parse_line((const char *)data, size, &root, &ev, why, sizeof why);
    if (bad && !why[0]) abort();
    if (!bad) {
        const char *const *f = (const char *const *)(const void *)&ev;
        for (size_t i = 0; i < sizeof ev / sizeof *f; i++)
            if (f[i] && strlen(f[i]) > size) abort();
    }
    json_decref(root);
    return 0;
}
