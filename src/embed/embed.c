/* SPDX-License-Identifier: Apache-2.0 */
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

