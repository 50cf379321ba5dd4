/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_redact.c -- am__redact on arbitrary bytes (invalid UTF-8, NULs,
 * half sequences included).  Beyond "no crash, no leak, no UB" it checks
 * the contract of text/redact.h on every input:
 *  - the result text is NUL-terminated at len;
 *  - no original of a reported PII item appears anywhere in the output;
 *  - a secret item keeps no original, and `secrets` counts them;
 *  - every reported placeholder is in the output text;
 *  - redacting the output again changes nothing and finds nothing.
 * Each input runs under the default policy and under a policy picked from
 * the input's length (kinds turned off), so both paths are covered.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/redact.h"

static void fail(const char *why)
{
    fprintf(stderr, "fuzz_redact: invariant broken: %s\n", why);
    abort();
}

static int contains(const char *hay, size_t n, const char *needle, size_t m)
{
    if (m == 0 || m > n) return 0;
    for (size_t i = 0; i + m <= n; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, m) == 0) return 1;
    return 0;
}

static void check(const char *in, size_t size, const am__redact_policy *p)
{
    am__redact_result r;
    int rc = am__redact(NULL, in, size, p, &r);
    if (rc == AM_NOMEM) return;
    if (rc != AM_OK) fail("rc");
    if (!r.text || r.text[r.len] != 0) fail("text not terminated at len");
    if (r.n > size) fail("more items than bytes");
    int secrets = 0;
    for (size_t i = 0; i < r.n; i++) {
        const am__redaction *it = &r.items[i];
        size_t pl = strnlen(it->placeholder, sizeof it->placeholder);
        if (pl == sizeof it->placeholder || pl < 3 || it->placeholder[0] != '[' ||
            it->placeholder[pl - 1] != ']')
            fail("placeholder shape");
        if (!contains(r.text, r.len, it->placeholder, pl)) fail("placeholder not in text");
        if (it->type == AM_SECRET) {
            secrets++;
            if (it->original) fail("secret original kept");
            continue;
        }
        if (it->type < AM_PII_PHONE || it->type >= AM__PII_TYPE_END) fail("type");
        if (!it->original || !it->original[0]) fail("PII without original");
        if (contains(r.text, r.len, it->original, strlen(it->original)))
            fail("original survives in the output");
    }
    if (secrets != r.secrets) fail("secret count");
    am__redact_result again;
    rc = am__redact(NULL, r.text, r.len, p, &again);
    if (rc == AM_OK) {
        if (again.len != r.len || memcmp(again.text, r.text, r.len) != 0 || again.n != 0)
            fail("not idempotent");
        am__redact_result_free(NULL, &again);
    } else if (rc != AM_NOMEM) {
        fail("rc (again)");
    }
    am__redact_result_free(NULL, &r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am__redact_policy p;
    am__redact_policy_default(&p);
    check((const char *)data, size, &p);
    p.redact_phone = (size & 1) != 0;
    p.redact_email = (size & 2) != 0;
    p.redact_id_card = (size & 4) != 0;
    p.redact_bank_card = (size & 8) != 0;
    p.drop_secrets = (size & 16) != 0;
    check((const char *)data, size, &p);
    return 0;
}
