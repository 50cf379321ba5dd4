/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_base.c -- the text every recall's JSON and block is built from
 * (base/base.c) must be what printf would have written: numbers
 * (am__buf_add_int, am__buf_add_fixed with printf's rounding, ties to
 * even), JSON strings with their escapes, ISO 8601 times with their zones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>

#include "test.h"
#include "base/base.h"

static void check_fixed(double v, int decimals)
{
    char want[64];
    snprintf(want, sizeof want, "%.*f", decimals, v);
    am__buf b;
    am__buf_init(&b, NULL);
    am__buf_add_fixed(&b, v, decimals);
    if (!b.p || strcmp(b.p, want) != 0) {
        fprintf(stderr, "%.17g with %d decimals: \"%s\", printf \"%s\"\n", v, decimals,
                b.p ? b.p : "(null)", want);
        CHECK(0);
    }
    am__buf_free(&b);
}

static void test_fixed_as_printf(void)
{
    static const double scale[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6};
    for (int d = 0; d <= 6; d++) {
        /* halves of the last digit (ties: to even when exact, else by the
         * binary value) and their neighbours */
        for (long k = -20000; k <= 20000; k++) {
            double v = (double)k / (2 * scale[d]);
            check_fixed(v, d);
            check_fixed(nextafter(v, -1e300), d);
            check_fixed(nextafter(v, 1e300), d);
        }
        /* exact binary fractions, scores of all sizes */
        for (long k = 0; k < 4096; k++) {
            check_fixed((double)k / 1024, d);
            check_fixed(-(double)k / 64, d);
            check_fixed((double)k * 1234.56789 / 3, d);
        }
        uint64_t x = 88172645463325252ull;
        for (int i = 0; i < 20000; i++) { /* xorshift: values 1e-6 .. 1e9 */
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            double v = (double)(x >> 11) / 9007199254740992.0 * pow(10, (int)(x % 16) - 6);
            check_fixed(i & 1 ? -v : v, d);
        }
    }
    static const double odd[] = {0.0, -0.0, 1e-300, -1e-300, 5e-324, 0.5, 1.5, 2.5, -2.5,
                                 0.03125, 0.00005, 0.99995, 999999999.99995, 1e9, -1e9,
                                 1e15, 123456789012.5, NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++)
        for (int d = 0; d <= 7; d++) check_fixed(odd[i], d);
}

static void test_int_as_printf(void)
{
    static const long long v[] = {0, 1, -1, 9, 10, 99, 100, 12345, -12345, 1LL << 40,
                                  9223372036854775807LL, -9223372036854775807LL - 1};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        char want[32];
        snprintf(want, sizeof want, "%lld", v[i]);
        am__buf b;
        am__buf_init(&b, NULL);
        am__buf_add_int(&b, v[i]);
        CHECK_EQ_STR(b.p, want);
        am__buf_free(&b);
    }
}

/* The escapes one byte at a time, as JSON wants them. */
static void json_slow(am__buf *b, const char *s)
{
    am__buf_addc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"') am__buf_adds(b, "\\\"");
        else if (*p == '\\') am__buf_adds(b, "\\\\");
        else if (*p == '\n') am__buf_adds(b, "\\n");
        else if (*p == '\r') am__buf_adds(b, "\\r");
        else if (*p == '\t') am__buf_adds(b, "\\t");
        else if (*p < 0x20) am__buf_printf(b, "\\u%04x", *p);
        else am__buf_addc(b, (char)*p);
    }
    am__buf_addc(b, '"');
}

static void test_json_strings(void)
{
    /* every special byte at every place of a string longer than a few
     * 8-byte words, in English and Chinese text */
    static const char *const base[] = {"The lake cabin has two bedrooms and a small boat",
                                       "湖边小木屋有两个卧室和一条小船，记得带上钓鱼竿"};
    static const char special[] = {'"', '\\', '\n', '\r', '\t', 0x01, 0x1f, 0x7f, ' ', '!',
                                   '#', ']', (char)0xe4};
    for (size_t t = 0; t < 2; t++) {
        size_t n = strlen(base[t]);
        for (size_t at = 0; at < n; at++)
            for (size_t k = 0; k < sizeof special; k++) {
                char s[128];
                memcpy(s, base[t], n + 1);
                s[at] = special[k];
                am__buf fast, slow;
                am__buf_init(&fast, NULL);
                am__buf_init(&slow, NULL);
                am__buf_json_str(&fast, s);
                json_slow(&slow, s);
                CHECK_EQ_STR(fast.p, slow.p);
                am__buf_free(&fast);
                am__buf_free(&slow);
            }
    }
    am__buf b;
    am__buf_init(&b, NULL);
    am__buf_json_str(&b, NULL);
    am__buf_json_str(&b, "");
    CHECK_EQ_STR(b.p, "\"\"\"\"");
    am__buf_free(&b);
}

static void test_time_as_printf(void)
{
    static const int zones[] = {0, 480, -300, 330, -720, 840, 45, -1439};
    for (int64_t t = -86400000LL * 800; t < 86400000LL * 40000; t += 86400000LL * 13 + 3723456) {
        for (size_t z = 0; z < sizeof zones / sizeof *zones; z++) {
            int tz = zones[z];
            char got[32], want[48], zone[8] = "Z";
            am__time_format(t, tz, got);
            int64_t local = t + (int64_t)tz * 60000;
            int64_t secs = local >= 0 ? local / 1000 : -((-local + 999) / 1000);
            int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
            int64_t rem = secs - days * 86400;
            int y;
            unsigned m, d, tzabs = (unsigned)(tz < 0 ? -tz : tz) % 1440;
            am__civil_from_days(days, &y, &m, &d);
            if (y < 0) y = 0;
            if (y > 9999) y = 9999;
            if (tz) snprintf(zone, sizeof zone, "%c%02u:%02u", tz < 0 ? '-' : '+', (tzabs / 60) % 24, tzabs % 60);
            snprintf(want, sizeof want, "%04d-%02u-%02uT%02u:%02u:%02u%s", y % 10000, m % 13, d % 32,
                     (unsigned)(rem / 3600) % 24, (unsigned)(rem / 60 % 60), (unsigned)(rem % 60), zone);
            CHECK_EQ_STR(got, want);
        }
    }
    char none[32] = "x";
    CHECK_EQ_STR(am__time_format(AM_TIME_NONE, 0, none), "");
}

/* "a" cp "b" as UTF-8 */
static const char *id_with(int32_t cp, char *buf)
{
    buf[0] = 'a';
    utf8proc_ssize_t n = utf8proc_encode_char(cp, (utf8proc_uint8_t *)buf + 1);
    buf[1 + n] = 'b';
    buf[2 + n] = 0;
    return buf;
}

static void test_id_characters(void)
{
    char buf[16];
    /* bidi override, zero-width space, NEL, BOM, soft hyphen, LRM, RLI,
     * Arabic letter mark, Mongolian vowel separator, Hangul filler,
     * private use, line separator, no-break and ideographic spaces,
     * variation selector 16, tag character */
    static const int32_t bad[] = {0x202E, 0x200B, 0x0085, 0xFEFF, 0x00AD, 0x200E, 0x2067,
                                  0x061C, 0x180E, 0x3164, 0xE000, 0x2028, 0x00A0, 0x3000,
                                  0xFE0F, 0xE0041, 0x7F, 0x1B, 0x09};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (!am__id_check(id_with(bad[i], buf))) fprintf(stderr, "U+%04X accepted\n", bad[i]);
        CHECK(am__id_check(buf) != NULL);
        int32_t cp = 0;
        CHECK(am__id_problem(buf, &cp) != NULL);
        CHECK(cp == bad[i]);
    }
    /* every control and format character, whatever its number */
    for (int32_t cp = 1; cp <= 0x10FFFF; cp++) {
        if (cp >= 0xD800 && cp <= 0xDFFF) continue;
        int cat = utf8proc_category(cp);
        if (cat != UTF8PROC_CATEGORY_CC && cat != UTF8PROC_CATEGORY_CF) continue;
        if (!am__id_check(id_with(cp, buf))) {
            fprintf(stderr, "U+%04X (Cc/Cf) accepted\n", cp);
            CHECK(0);
            break;
        }
    }
    static const char *const good[] = {"张三", "wx_zhang_01", "alice@example.com", "Zoë",
                                       "😀", "a b", "مريم", "שרה", "u-1:tg/7", "ｆｕｌｌ"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) CHECK(am__id_check(good[i]) == NULL);
    CHECK(am__id_check(" a") != NULL);
}

static void test_second_60_refused(void)
{
    am_time t;
    const char *why = NULL;
    CHECK_EQ_INT(am__time_parse("2026-03-05T16:00:60+08:00", &t, NULL, &why), AM_INVALID);
    CHECK(why && strstr(why, "second 60"));
    CHECK_EQ_INT(am__time_parse("2026-03-05T16:00:59+08:00", &t, NULL, &why), AM_OK);
    CHECK_EQ_INT(am__time_parse("2026-03-05T16:00:61Z", &t, NULL, &why), AM_INVALID);
}

static void *sp_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    if (n == 0) {
        free(p);
        return NULL;
    }
    return realloc(p, n);
}

/* am__strpos: every string found at its first position, through growth
 * (1,000 strings: several doublings), Chinese and English alike; absent
 * ones not found. */
static void test_strpos(void)
{
    static const am__allocator a = {sp_realloc, NULL};
    am__arena ar;
    am__arena_init(&ar, &a);
    static char buf[1000][24];
    const char *arr[1000];
    am__strpos p = {0};
    CHECK(am__strpos_find(&p, arr, "x") == SIZE_MAX);
    for (int i = 0; i < 1000; i++) {
        snprintf(buf[i], sizeof buf[i], i % 2 ? "term%d" : "词%d", i);
        arr[i] = buf[i];
        CHECK(am__strpos_find(&p, arr, arr[i]) == SIZE_MAX);
        CHECK_EQ_INT(am__strpos_add(&p, &ar, arr, (size_t)i), AM_OK);
    }
    for (int i = 0; i < 1000; i++) CHECK_EQ_INT((int)am__strpos_find(&p, arr, buf[i]), i);
    CHECK(am__strpos_find(&p, arr, "term1000") == SIZE_MAX);
    CHECK(am__strpos_find(&p, arr, "词") == SIZE_MAX);
    CHECK(am__strpos_find(&p, arr, "") == SIZE_MAX);
    am__arena_free(&ar);
}

int main(void)
{
    RUN(test_fixed_as_printf);
    RUN(test_int_as_printf);
    RUN(test_json_strings);
    RUN(test_time_as_printf);
    RUN(test_id_characters);
    RUN(test_second_60_refused);
    RUN(test_strpos);
    TEST_MAIN_END();
}
