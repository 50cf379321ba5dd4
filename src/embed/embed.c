/*
 * embed.c -- what every embedder shares: the NULL-safe close and the error
 * helper (see embed.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "embed/embed.h"

void am__embedder_close(am__embedder *e)
{
    if (e && e->close) e->close(e);
}

int am__embed_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}
