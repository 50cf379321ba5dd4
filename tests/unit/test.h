/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test.h -- the tiny test harness shared by tests/unit/test_*.c.
 *
 * Each test file defines functions `static void test_xxx(void)` and lists them
 * in main() with RUN(test_xxx).  CHECK/CHECK_EQ_* record a failure with file,
 * line and both values, and let the test continue; TEST_MAIN_END prints
 * "N passed, N failed" and returns non-zero on any failure.  TEST_SKIP
 * marks a test that cannot run here (an optional dependency is missing):
 * it prints "SKIP: <reason>", the test counts as neither passed nor
 * failed, and the file exits 77 (ctest's skip code) when nothing failed.
 */
#ifndef AM_TEST_H
#define AM_TEST_H
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_failed_checks, t_passed, t_failed, t_cur_failed, t_skipped, t_cur_skipped;

#define TEST_SKIP(...)                                                        \
    do {                                                                      \
        printf("SKIP: ");                                                     \
        printf(__VA_ARGS__);                                                  \
        printf("\n");                                                         \
        t_skipped++;                                                          \
        t_cur_skipped = 1;                                                    \
    } while (0)

#define CHECK(cond)                                                           \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,  \
                    #cond);                                                   \
            t_failed_checks++;                                                \
            t_cur_failed = 1;                                                 \
        }                                                                     \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                    \
    do {                                                                      \
        long long a_ = (long long)(a), b_ = (long long)(b);                   \
        if (a_ != b_) {                                                       \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld vs %lld\n",        \
                    __FILE__, __LINE__, #a, #b, a_, b_);                      \
            t_failed_checks++;                                                \
            t_cur_failed = 1;                                                 \
        }                                                                     \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                    \
    do {                                                                      \
        const char *a_ = (a), *b_ = (b);                                      \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                              \
            fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" vs \"%s\"\n",    \
                    __FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)",           \
                    b_ ? b_ : "(null)");                                      \
            t_failed_checks++;                                                \
            t_cur_failed = 1;                                                 \
        }                                                                     \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                           \
    do {                                                                      \
        const char *h_ = (hay), *n_ = (needle);                               \
        if (!h_ || !strstr(h_, n_)) {                                         \
            fprintf(stderr, "%s:%d: \"%s\" not found in \"%.300s\"\n",       \
                    __FILE__, __LINE__, n_, h_ ? h_ : "(null)");              \
            t_failed_checks++;                                                \
            t_cur_failed = 1;                                                 \
        }                                                                     \
    } while (0)

#define CHECK_NEAR(a, b, eps)                                                 \
    do {                                                                      \
        double a_ = (a), b_ = (b);                                            \
        if (!(fabs(a_ - b_) <= (eps))) {                                      \
            fprintf(stderr, "%s:%d: %s ~ %s failed: %g vs %g\n", __FILE__,   \
                    __LINE__, #a, #b, a_, b_);                                \
            t_failed_checks++;                                                \
            t_cur_failed = 1;                                                 \
        }                                                                     \
    } while (0)

#define RUN(fn)                                                               \
    do {                                                                      \
        t_cur_failed = 0;                                                     \
        t_cur_skipped = 0;                                                    \
        fn();                                                                 \
        if (t_cur_failed) {                                                   \
            t_failed++;                                                       \
            fprintf(stderr, "FAIL %s\n", #fn);                                \
        } else if (!t_cur_skipped) {                                          \
            t_passed++;                                                       \
        }                                                                     \
    } while (0)

#define TEST_MAIN_END()                                                       \
    do {                                                                      \
        printf("%d passed, %d failed\n", t_passed, t_failed);                 \
        if (t_skipped && !t_failed) printf("%d skipped\n", t_skipped);        \
        return t_failed ? 1 : t_skipped ? 77 : 0;                             \
    } while (0)

#endif
