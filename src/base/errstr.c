/* SPDX-License-Identifier: Apache-2.0 */
/*
 * errstr.c -- am_errstr, the name of a result code.  In base/ so that every
 * layer (a store's message, a log line) names a code without calling up
 * into api/.
 */
#include "agentmem.h"

const char *am_errstr(int rc)
{
    static const char *const names[] = {
        "ok", "error", "out of memory", "misuse", "invalid input",
        "not found", "denied", "busy", "too big", "I/O error",
        "backend error", "corrupt store", "store is newer than this library",
    };
    if (rc < 0 || rc >= (int)(sizeof names / sizeof *names)) return "unknown error";
    return names[rc];
}
