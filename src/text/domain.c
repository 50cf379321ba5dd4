/* SPDX-License-Identifier: Apache-2.0 */
/*
 * domain.c -- the business domain a text is about (procurement, hr,
 * finance, travel, it), from the cue words of text/lexicon: the write path
 * checks the caller's domain against it, the recall router falls back to
 * global recall when they disagree.
 */
#include <string.h>

#include "text/analyze.h"
#include "text/domain.h"
#include "text/lexicon/lexicon.h"

const char *am__domain_infer(const char *norm, size_t n)
{
    const char *found = NULL;
    for (size_t i = 0; i < sizeof am__lex_route_domains / sizeof *am__lex_route_domains; i++)
        if (am__cue_any(norm, n, am__lex_route_domains[i].cues)) {
            if (found) return NULL; /* two domains: no clear signal */
            found = am__lex_route_domains[i].domain;
        }
    return found;
}

int am__domain_conflict(const char *given, const char *norm, size_t n)
{
    if (!given) return 0;
    const char *inferred = am__domain_infer(norm, n);
    if (!inferred) return 0;
    /* only domains we know can disagree */
    for (size_t i = 0; i < sizeof am__lex_route_domains / sizeof *am__lex_route_domains; i++)
        if (strcmp(given, am__lex_route_domains[i].domain) == 0)
            return strcmp(given, inferred) != 0;
    return 0;
}
