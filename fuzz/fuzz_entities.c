/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_entities.c -- am__entities_extract, am__query_time_range and
 * am__text_expiry (a statement's own end: after the reference) on
 * arbitrary bytes (invalid UTF-8 included).  The input is copied into an
 * exact-size heap buffer so that ASan catches any read past len; the
 * first bytes also vary the reference time, the zone and the output size.
 * Every returned entity is checked: in bounds, ordered, non-overlapping,
 * NUL-terminated norm, known type.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "text/entities.h"
#include "text/expiry.h"

static void check(int ok)
{
    if (!ok) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* 2026-03-04T02:00:00Z, moved by up to +-~3 years and any zone. */
    am_time ref = 1772589600000LL;
    int tz = 480;
    size_t max = 32;
    if (size >= 4) {
        ref += ((am_time)(int8_t)data[0] * 86400000LL * 8) +
               (am_time)data[1] * 3600000LL;
        tz = ((int)data[2] - 128) * 15; /* beyond +-18 h too: clamped */
        max = 1 + data[3] % 64;
        if (data[0] == 0xFF) ref = AM_TIME_NONE;
        if (data[0] == 0xFE) ref = INT64_MAX;
        data += 4;
        size -= 4;
    }
    char *text = malloc(size ? size : 1);
    if (!text) return 0;
    if (size) memcpy(text, data, size);

    am__entity out[64];
    size_t n = 12345;
    check(am__entities_extract(text, size, ref, tz, out, max, &n) == AM_OK);
    check(n <= max);
    for (size_t i = 0; i < n; i++) {
        const am__entity *e = &out[i];
        check(e->type >= AM_ENT_DATE && e->type <= AM_ENT_WEEKDAY_RECURRING);
        check(e->start < e->end && e->end <= size);
        check(i == 0 || out[i - 1].end <= e->start);
        check(memchr(e->norm, '\0', sizeof e->norm) != NULL);
        check(strcmp(am__ent_type_name(e->type), "unknown") != 0);
        if (e->from != AM_TIME_NONE) check(e->from < e->to);
    }

    am_time from = 0, to = 0;
    if (am__query_time_range(text, size, ref, tz, &from, &to)) check(from < to);
    am_time end = 0;
    if (am__text_expiry(text, size, ref, tz, &end)) check(ref != AM_TIME_NONE && end > ref);
    free(text);
    return 0;
}
