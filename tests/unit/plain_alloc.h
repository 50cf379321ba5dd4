/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plain_alloc.h -- the allocator of the tests that open a store below the
 * public API (am__store_open): realloc and free, nothing counted.
 */
#ifndef AM_TEST_PLAIN_ALLOC_H
#define AM_TEST_PLAIN_ALLOC_H
#include <stdlib.h>

static void *plain_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    if (n == 0) {
        free(p);
        return NULL;
    }
    return realloc(p, n);
}
#endif
