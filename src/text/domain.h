/* SPDX-License-Identifier: Apache-2.0 */
/*
 * domain.h -- the business domain a normalised text is about, from cue
 * words (text/domain.c); used by the write path and the recall router.
 */
#ifndef AM_TEXT_DOMAIN_H
#define AM_TEXT_DOMAIN_H

#include <stddef.h>

/* the business domain a normalised text is about (procurement, hr,
 * finance, travel, it) from cue words, or NULL when none or several. */
const char *am__domain_infer(const char *norm, size_t n);
/* 1 when the caller's domain is a known one and the text clearly names
 * another: the caller should log it and fall back to global recall. */
int am__domain_conflict(const char *given, const char *norm, size_t n);

#endif
