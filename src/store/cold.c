/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cold.c -- packing and unpacking an archived event's text (cold.h).
 * With zlib (found at build time: AM_HAVE_ZLIB) the text is deflated when
 * that makes it smaller; a text it does not shrink, and every text in a
 * build without zlib, is kept as it is.  Both forms read back in either
 * build except deflated ones in a build without zlib (AM_CORRUPT says so).
 */
#include "store/cold.h"

#include <string.h>

#ifdef AM_HAVE_ZLIB
#include <zlib.h>
#endif

static void put_len(unsigned char *p, uint32_t n)
{
    p[0] = (unsigned char)(n >> 24);
    p[1] = (unsigned char)(n >> 16);
    p[2] = (unsigned char)(n >> 8);
    p[3] = (unsigned char)n;
}

static uint32_t get_len(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int am__cold_pack(am__arena *ar, const char *text, size_t n, unsigned char **blob, size_t *len)
{
    *blob = NULL;
    *len = 0;
    if (n > UINT32_MAX) return AM_TOOBIG;
#ifdef AM_HAVE_ZLIB
    uLongf room = compressBound((uLong)n);
    unsigned char *z = am__arena_take(ar, AM__COLD_HEAD + room);
    if (!z) return AM_NOMEM;
    if (compress2(z + AM__COLD_HEAD, &room, (const Bytef *)text, (uLong)n, 6) == Z_OK &&
        room < n) {
        z[0] = 'z';
        put_len(z + 1, (uint32_t)n);
        *blob = z;
        *len = AM__COLD_HEAD + room;
        return AM_OK;
    }
#endif
    unsigned char *r = am__arena_take(ar, AM__COLD_HEAD + n + 1);
    if (!r) return AM_NOMEM;
    r[0] = 'r';
    put_len(r + 1, (uint32_t)n);
    if (n) memcpy(r + AM__COLD_HEAD, text, n);
    *blob = r;
    *len = AM__COLD_HEAD + n;
    return AM_OK;
}

int am__cold_unpack(am__arena *ar, const unsigned char *blob, size_t len, char **text)
{
    *text = NULL;
    if (!blob || len < AM__COLD_HEAD) return AM_CORRUPT;
    uint32_t n = get_len(blob + 1);
    char *out = am__arena_take(ar, (size_t)n + 1);
    if (!out) return AM_NOMEM;
    if (blob[0] == 'r') {
        if (len - AM__COLD_HEAD != n) return AM_CORRUPT;
        memcpy(out, blob + AM__COLD_HEAD, n);
    } else if (blob[0] == 'z') {
#ifdef AM_HAVE_ZLIB
        uLongf got = n;
        if (uncompress((Bytef *)out, &got, blob + AM__COLD_HEAD, (uLong)(len - AM__COLD_HEAD)) !=
                Z_OK ||
            got != n)
            return AM_CORRUPT;
#else
        return AM_CORRUPT; /* deflated by a build with zlib */
#endif
    } else {
        return AM_CORRUPT;
    }
    out[n] = '\0';
    *text = out;
    return AM_OK;
}
