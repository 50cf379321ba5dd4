/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plain.h -- stored text made inert: control characters refused on the way
 * in, every printed text one flat line that cannot open a section of the
 * memory block (see plain.c for the rules and their reasons).
 */
#ifndef AM_TEXT_PLAIN_H
#define AM_TEXT_PLAIN_H

#include <stddef.h>
#include <stdint.h>

#include "base/base.h"

/* 1 for a line break: LF, CR, VT, FF, U+0085, U+2028, U+2029. */
int am__plain_is_break(uint32_t cp);
/* 1 for a C0/C1 control character or DEL that is neither a tab nor a line
 * break. */
int am__plain_is_control(uint32_t cp);
/* The write path's rule: 1 when s[0..n) holds a control character other
 * than tab, LF, CR and U+0085 (VT and FF included), with its byte offset in
 * *at and its code point in *cp; 0 when the text is acceptable. */
int am__plain_refused(const char *s, size_t n, size_t *at, uint32_t *cp);
/* Append s[0..n) as one inert line: line breaks (and the blanks around
 * them) become " / " (none at either end), brackets other than redaction
 * placeholders become parentheses, control and bidi characters are
 * dropped, a tab becomes a space.  The buffer's oom rule applies. */
void am__plain_append(am__buf *out, const char *s, size_t n);
/* The same for a NUL-terminated s; NULL appends nothing. */
void am__plain_appends(am__buf *out, const char *s);

#endif
