/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_time.c -- the ISO 8601 parser (base/base.c) and the formatter: any
 * input is parsed or refused with a reason; a parsed time formats and
 * parses back to the same instant.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char buf[128];
    if (size >= sizeof buf) size = sizeof buf - 1;
    memcpy(buf, data, size);
    buf[size] = 0;
    am_time t;
    int tz;
    const char *why = NULL;
    if (am__time_parse(buf, &t, &tz, &why) == AM_OK) {
        char out[32];
        am__time_format(t, tz, out);
        am_time t2;
        int tz2;
        /* years outside 0000-9999 are clamped by the formatter */
        am_time whole = t - (((t % 1000) + 1000) % 1000); /* the format has seconds */
        if (am__time_parse(out, &t2, &tz2, NULL) == AM_OK && t2 != whole && t > -62167219200000LL &&
            t < 253402300799000LL)
            abort();
    } else if (!why) {
        abort();
    }
    return 0;
}
