/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plural.h -- the English noun for a count in a message a person reads:
 * "1 new memory", "2 new memories", "0 events".  printf("%ld %s", n,
 * am_plural(n, "event", "events")).  Chinese messages need none (一条/两条
 * take no plural).  Machine output (--json) never goes through it.
 */
#ifndef AM_PLURAL_H
#define AM_PLURAL_H

static inline const char *am_plural(long long n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

#endif
