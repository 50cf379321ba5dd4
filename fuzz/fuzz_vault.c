/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_vault.c -- the PII-vault seal (store/sqlite/vault.c).  A stored
 * value is input too (a damaged or crafted file): opening arbitrary bytes
 * never crashes and never yields a plaintext unless they were sealed with
 * the key; sealing the input and opening the seal gives the input back,
 * and the seal holds none of its bytes' hex-free form.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/sqlite/sqlite_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned char key[AM__VAULT_KEY_BYTES] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    char *in = malloc(size + 1);
    if (!in) return 0;
    memcpy(in, data, size);
    in[size] = 0;
    am__arena ar;
    am__arena_init(&ar, NULL);
    const char *plain = NULL;
    int rc = am__vault_open(key, "u", "phone", in, &ar, &plain);
    if (rc == AM_OK && !plain) abort();
    if (rc != AM_OK && plain) abort();
    am__buf b;
    am__buf_init(&b, NULL);
    if (am__vault_seal(key, "u", "phone", in, &b) == AM_OK) {
        if (!am__vault_is_sealed(b.p)) abort();
        if (am__vault_open(key, "u", "phone", b.p, &ar, &plain) != AM_OK || strcmp(plain, in) != 0)
            abort();
        if (am__vault_open(key, "v", "phone", b.p, &ar, &plain) != AM_DENIED) abort();
    }
    am__buf_free(&b);
    am__arena_free(&ar);
    free(in);
    return 0;
}
