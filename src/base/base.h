/* SPDX-License-Identifier: Apache-2.0 */
/*
 * base.h -- the bottom layer: allocation through an injected allocator,
 * growable byte buffers, a scratch arena, UTF-8 validation, ISO 8601 time,
 * ULIDs and hashing.  Everything above (text/, perceive/, ..., api/) may use
 * it; it uses nothing of ours.
 *
 * Allocation: every function that allocates takes a `const am__allocator *`
 * (NULL means libc).  Buffers and arenas remember theirs.  A failed
 * allocation is reported (NULL / AM_NOMEM), never fatal.
 */
#ifndef AM_BASE_H
#define AM_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "agentmem.h"
#include "agentmem_ops.h" /* the library implements both public headers */

typedef struct am__allocator {
    void *(*realloc)(void *ctx, void *p, size_t n); /* n == 0 frees */
    void *ctx;
} am__allocator;

void *am__realloc(const am__allocator *a, void *p, size_t n);
/* libc as an allocator (the default of am_config.realloc; ctx unused). */
void *am__libc_realloc(void *ctx, void *p, size_t n);
void *am__malloc(const am__allocator *a, size_t n);
void *am__calloc(const am__allocator *a, size_t n);
void am__free(const am__allocator *a, void *p);
char *am__strdup(const am__allocator *a, const char *s);
char *am__strndup(const am__allocator *a, const char *s, size_t n);
/* Owned results: a copy of s[0..n) that the caller releases with am_free,
 * which takes no handle -- a header before the bytes remembers the
 * allocator (a NULL a: libc).  am__owned_free(NULL) is a no-op. */
char *am__owned_strndup(const am__allocator *a, const char *s, size_t n);
/* n bytes (max_align_t aligned, uninitialised) released by am_free */
void *am__owned_alloc(const am__allocator *a, size_t n);
void am__owned_free(void *p);

/* Growable NUL-terminated byte buffer.  On allocation failure the buffer
 * sets `oom` and ignores further appends; check it once at the end. */
typedef struct am__buf {
    char *p;
    size_t len, cap;
    int oom;
    const am__allocator *a;
} am__buf;

void am__buf_init(am__buf *b, const am__allocator *a);
void am__buf_free(am__buf *b);
void am__buf_reset(am__buf *b); /* empty, and usable again after an oom */
int am__buf_reserve(am__buf *b, size_t extra);
void am__buf_add(am__buf *b, const void *p, size_t n);
void am__buf_adds(am__buf *b, const char *s);
void am__buf_addc(am__buf *b, char c);
void am__buf_printf(am__buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append v in decimal: "%lld". */
void am__buf_add_int(am__buf *b, long long v);
/* Append v with `decimals` digits after the point, the same text as
 * printf's "%.*f" (its rounding included), without printf for 0..6
 * decimals and |v| < 1e9. */
void am__buf_add_fixed(am__buf *b, double v, int decimals);
/* Append s JSON-escaped, with the quotes. */
void am__buf_json_str(am__buf *b, const char *s);
/* Take ownership of the contents (never NULL unless oom). */
char *am__buf_take(am__buf *b);

/* Bump arena for per-request scratch and results.  Blocks are freed
 * together with am__arena_free. */
typedef struct am__arena_block am__arena_block;
typedef struct am__arena {
    am__arena_block *head;
    const am__allocator *a;
    int oom;
} am__arena;
void am__arena_init(am__arena *ar, const am__allocator *a);
void *am__arena_alloc(am__arena *ar, size_t n); /* 16-byte aligned, zeroed */
/* The same, not zeroed: for an array each element of which is written
 * before it is read (the zeroing was 7 % of a recall's instructions). */
void *am__arena_take(am__arena *ar, size_t n);
char *am__arena_strdup(am__arena *ar, const char *s);
char *am__arena_strndup(am__arena *ar, const char *s, size_t n);
void am__arena_free(am__arena *ar);

/* UTF-8: returns 1 when s[0..n) is valid UTF-8 (no overlongs, no
 * surrogates, <= U+10FFFF); otherwise 0 and *bad_at = the first bad byte. */
int am__utf8_valid(const char *s, size_t n, size_t *bad_at);
/* Decode one code point at s (n bytes left); returns its length (1 for
 * an invalid byte, with *cp = 0xFFFD).  ASCII and the three-byte forms
 * that cannot be overlong or a surrogate (lead E1-EC, EE-EF: Han and
 * most CJK text) are decoded inline -- the tokenizer decodes every
 * character of every text it analyses -- the rest by am__utf8_decode_any. */
int am__utf8_decode_any(const char *s, size_t n, uint32_t *cp);
static inline int am__utf8_decode(const char *s, size_t n, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    if (n && u[0] < 0x80) {
        *cp = u[0];
        return 1;
    }
    if (n >= 3 && u[0] >= 0xE1 && u[0] <= 0xEF && u[0] != 0xED && (u[1] & 0xC0) == 0x80 &&
        (u[2] & 0xC0) == 0x80) {
        *cp = (uint32_t)(u[0] & 0x0F) << 12 | (uint32_t)(u[1] & 0x3F) << 6 | (u[2] & 0x3F);
        return 3;
    }
    return am__utf8_decode_any(s, n, cp);
}
int am__utf8_encode(uint32_t cp, char out[4]);
/* 1 for Han ideographs (CJK unified, ext A, compatibility). */
int am__is_han(uint32_t cp);
/* Number of code points. */
size_t am__utf8_len(const char *s, size_t n);

/* ISO 8601 with a required zone: YYYY-MM-DD[T ]HH:MM[:SS[.fff]](Z|±HH[:MM]).
 * Returns AM_OK or AM_INVALID with a reason in why (may be NULL). */
int am__time_parse(const char *s, am_time *out, int *tz_minutes,
                   const char **why);
char *am__time_format(am_time t, int tz_minutes, char *buf /* >= 32 */);
/* Days since 1970-01-01 of a civil date, and back. */
int64_t am__days_from_civil(int64_t y, unsigned m, unsigned d);
void am__civil_from_days(int64_t z, int *y, unsigned *m, unsigned *d);

/* ULID (26 chars + NUL) from a time and a caller-held 80-bit counter
 * state; monotonic within the same millisecond. */
typedef struct am__ulid_state {
    am_time last_ms;
    uint8_t rand[10];
    uint64_t seed;
} am__ulid_state;
void am__ulid_init(am__ulid_state *st, uint64_t seed);
void am__ulid_new(am__ulid_state *st, am_time ms, char out[27]);

uint64_t am__hash64(const void *p, size_t n); /* FNV-1a 64 */

/* Where each string of a growing array is (its first occurrence), by
 * hash: the term lists of a recall are merged from many sources, and a
 * linear search per term made the merges quadratic.  The table holds
 * positions only (the caller's array holds the strings and may move);
 * arena memory, grown by doubling.  Zero-initialised: empty. */
typedef struct am__strpos {
    struct am__strpos_slot {
        uint64_t h;
        size_t i1; /* position + 1; 0: empty */
    } *slot;
    size_t cap, n;
} am__strpos;
/* The position of s among arr's indexed strings, or SIZE_MAX. */
size_t am__strpos_find(const am__strpos *p, const char *const *arr, const char *s);
/* Index arr[i] (not there yet); AM_OK or AM_NOMEM. */
int am__strpos_add(am__strpos *p, am__arena *ar, const char *const *arr, size_t i);

/* A hexadecimal digit's value (either case), or -1. */
int am__hexval(int c);

/* Identifier check: 1..AM_ID_MAX bytes of valid UTF-8 without control,
 * format (bidi, zero-width), separator, private-use or default-ignorable
 * characters, spaces only U+0020 and not at either end.  Returns NULL when
 * ok, or a static reason.  am__id_problem also gives the offending code
 * point in *cp (-1 when the reason is not one character; cp may be NULL). */
const char *am__id_check(const char *id);
const char *am__id_problem(const char *id, int32_t *cp);

/* Format a message into err (errlen bytes, may be 0: err untouched) and
 * return rc: the error-buffer convention of the embedders and the HTTP
 * clients. */
int am__errf(char *err, size_t errlen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
