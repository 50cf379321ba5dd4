/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_fts_avg.c -- the reader of FTS5's averages record
 * (store/sqlite/fts_rank.c am__fts_averages_parse), which a search with
 * every term held reads from the store file: any bytes are read or
 * refused, never read past; what is read is a positive average.  And a
 * record written from the input's numbers (SQLite varints) reads back as
 * their ratios.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/sqlite/sqlite_int.h"

static size_t put_varint(unsigned char *out, uint64_t v)
{
    unsigned char tmp[9];
    size_t n = 0;
    if (v >> 56) { /* nine bytes: the last carries eight bits */
        out[8] = (unsigned char)v;
        v >>= 8;
        for (int i = 7; i >= 0; i--) {
            out[i] = (unsigned char)((v & 0x7f) | 0x80);
            v >>= 7;
        }
        return 9;
    }
    do {
        tmp[n++] = (unsigned char)(v & 0x7f);
        v >>= 7;
    } while (v);
    for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i] | (i + 1 < n ? 0x80 : 0);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *copy = malloc(size ? size : 1); /* exact size: ASan sees an overread */
    if (!copy) return 0;
    memcpy(copy, data, size);
    double avg[AM__FTS_SCORED] = {-1, -1};
    if (am__fts_averages_parse(copy, size, avg))
        for (int c = 0; c < AM__FTS_SCORED; c++)
            if (!(avg[c] > 0) || !isfinite(avg[c])) abort();
    free(copy);
    if (size < 32) return 0;
    uint64_t v[4];
    memcpy(v, data, sizeof v);
    unsigned char rec[40];
    size_t n = 0;
    for (int i = 0; i < 4; i++) n += put_varint(rec + n, v[i]);
    if (!am__fts_averages_parse(rec, n, avg)) abort();
    for (int c = 0; c < AM__FTS_SCORED; c++) {
        double want = v[0] > 0 && v[c + 2] > 0 ? (double)v[c + 2] / (double)v[0] : 1.0;
        if (avg[c] != want) abort();
    }
    if (am__fts_averages_parse(rec, n - 1, avg)) abort(); /* a cut record is refused */
    return 0;
}
