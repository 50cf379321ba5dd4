/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vault.c -- the PII vault's sealing and keyed value hashes, common to
 * the stores: the SQLite store (store/sqlite/
 * events.c, vault.c, pii_index.c) and the PostgreSQL store
 * (store/postgres/pg_vault.c) seal and hash the same way, so a value
 * sealed by one opens with the other's code and a look-up agrees.
 *
 * With a vault key configured (am_config.vault_key: 32 bytes as 64 hex
 * digits), every original written to a vault is sealed with AES-256-GCM
 * (OpenSSL libcrypto): a fresh random 96-bit nonce per value, the 128-bit
 * tag, and the row's user id and PII type as associated data, so a sealed
 * value copied to another user's or another type's row does not open.
 * The column then holds
 *
 *     "enc:v1:" hex(nonce[12] || tag[16] || ciphertext)
 *
 * -- a prefix no original can have (phones, IDs and cards are digits, an
 * e-mail's local part holds no ':').
 *
 * Each vault row also carries the keyed hash of its value (a look-up is
 * one index probe, not a read of every value of the type):
 *
 *     first 8 bytes of HMAC-SHA256(key, user id NUL type NUL canonical
 *     value), as a signed 64-bit integer,
 *
 * the key being, for a sealed value, HMAC-SHA256(vault key, "agentmem pii
 * index v1") (am__pii_index_key: the store alone does not let anyone test
 * a guessed phone number), and for a plain one the store's own random
 * pii_key (meta).
 *
 * Thread rule: no state beyond the caller's keys; OpenSSL 1.1+/3 contexts
 * are per call.
 */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <string.h>

#include "store/vault.h"
#include "text/redact.h"

#define PREFIX AM__VAULT_PREFIX
#define PREFIX_LEN 7
#define NONCE 12
#define TAG 16

static void hex_put(am__buf *b, const unsigned char *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        am__buf_addc(b, digits[p[i] >> 4]);
        am__buf_addc(b, digits[p[i] & 15]);
    }
}

int am__vault_key_parse(const char *hex, unsigned char key[AM__VAULT_KEY_BYTES])
{
    if (!hex || strlen(hex) != 2 * AM__VAULT_KEY_BYTES) return AM_INVALID;
    for (size_t i = 0; i < AM__VAULT_KEY_BYTES; i++) {
        int hi = am__hexval((unsigned char)hex[2 * i]), lo = am__hexval((unsigned char)hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return AM_INVALID;
        key[i] = (unsigned char)(hi << 4 | lo);
    }
    return AM_OK;
}

void am__vault_key_wipe(void *key, size_t n)
{
    OPENSSL_cleanse(key, n);
}

int am__vault_is_sealed(const char *stored)
{
    return stored && strncmp(stored, PREFIX, PREFIX_LEN) == 0;
}

/* The associated data: user id, NUL, type. */
static int add_aad(EVP_CIPHER_CTX *c, const char *uid, const char *type)
{
    int len;
    return EVP_EncryptUpdate(c, NULL, &len, (const unsigned char *)uid, (int)strlen(uid) + 1) == 1 &&
           EVP_EncryptUpdate(c, NULL, &len, (const unsigned char *)type, (int)strlen(type)) == 1;
}

int am__vault_seal(const unsigned char key[AM__VAULT_KEY_BYTES], const char *uid,
                   const char *type, const char *plain, am__buf *out)
{
    size_t n = strlen(plain);
    if (n > 1 << 20) return AM_TOOBIG;
    unsigned char nonce[NONCE], tag[TAG];
    unsigned char *ct = am__malloc(out->a, n + 16);
    if (!ct) return AM_NOMEM;
    int rc = AM_ERROR, len = 0, fin = 0;
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    if (c && RAND_bytes(nonce, NONCE) == 1 &&
        EVP_EncryptInit_ex(c, EVP_aes_256_gcm(), NULL, NULL, NULL) == 1 &&
        EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, NONCE, NULL) == 1 &&
        EVP_EncryptInit_ex(c, NULL, NULL, key, nonce) == 1 && add_aad(c, uid, type) &&
        EVP_EncryptUpdate(c, ct, &len, (const unsigned char *)plain, (int)n) == 1 &&
        EVP_EncryptFinal_ex(c, ct + len, &fin) == 1 &&
        EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, TAG, tag) == 1) {
        am__buf_reset(out);
        am__buf_adds(out, PREFIX);
        hex_put(out, nonce, NONCE);
        hex_put(out, tag, TAG);
        hex_put(out, ct, (size_t)(len + fin));
        rc = out->oom ? AM_NOMEM : AM_OK;
    }
    EVP_CIPHER_CTX_free(c);
    OPENSSL_cleanse(ct, n + 16);
    am__free(out->a, ct);
    return rc;
}

int am__vault_open(const unsigned char key[AM__VAULT_KEY_BYTES], const char *uid,
                   const char *type, const char *stored, am__arena *ar, const char **plain)
{
    *plain = NULL;
    if (!am__vault_is_sealed(stored)) return AM_INVALID;
    const char *h = stored + PREFIX_LEN;
    size_t hn = strlen(h);
    if (hn % 2 || hn < 2 * (NONCE + TAG)) return AM_CORRUPT;
    size_t bn = hn / 2, ctn = bn - NONCE - TAG;
    unsigned char *bin = am__arena_alloc(ar, bn + 1);
    char *pt = am__arena_alloc(ar, ctn + 16 + 1);
    if (!bin || !pt) return AM_NOMEM;
    for (size_t i = 0; i < bn; i++) {
        int hi = am__hexval((unsigned char)h[2 * i]), lo = am__hexval((unsigned char)h[2 * i + 1]);
        if (hi < 0 || lo < 0) return AM_CORRUPT;
        bin[i] = (unsigned char)(hi << 4 | lo);
    }
    int rc = AM_DENIED, len = 0, fin = 0;
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    if (c && EVP_DecryptInit_ex(c, EVP_aes_256_gcm(), NULL, NULL, NULL) == 1 &&
        EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, NONCE, NULL) == 1 &&
        EVP_DecryptInit_ex(c, NULL, NULL, key, bin) == 1 &&
        EVP_DecryptUpdate(c, NULL, &len, (const unsigned char *)uid, (int)strlen(uid) + 1) == 1 &&
        EVP_DecryptUpdate(c, NULL, &len, (const unsigned char *)type, (int)strlen(type)) == 1 &&
        EVP_DecryptUpdate(c, (unsigned char *)pt, &len, bin + NONCE + TAG, (int)ctn) == 1 &&
        EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, TAG, bin + NONCE) == 1 &&
        EVP_DecryptFinal_ex(c, (unsigned char *)pt + len, &fin) == 1) {
        pt[len + fin] = '\0';
        *plain = pt;
        rc = AM_OK;
    }
    EVP_CIPHER_CTX_free(c);
    return rc;
}

#define INDEX_LABEL "agentmem pii index v1"

int am__pii_index_key(const unsigned char vault_key[AM__VAULT_KEY_BYTES],
                      unsigned char out[AM__VAULT_KEY_BYTES])
{
    unsigned int n = 0;
    return HMAC(EVP_sha256(), vault_key, AM__VAULT_KEY_BYTES, (const unsigned char *)INDEX_LABEL,
                strlen(INDEX_LABEL), out, &n) && n == AM__VAULT_KEY_BYTES
               ? AM_OK
               : AM_ERROR;
}

int am__pii_hash(const am__allocator *a, const unsigned char key[AM__VAULT_KEY_BYTES],
                 const char *uid, const char *type, const char *canon, int64_t *out)
{
    am__buf msg;
    am__buf_init(&msg, a);
    am__buf_add(&msg, uid, strlen(uid) + 1);
    am__buf_add(&msg, type, strlen(type) + 1);
    am__buf_adds(&msg, canon);
    if (msg.oom) {
        am__buf_free(&msg);
        return AM_NOMEM;
    }
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int mn = 0;
    int ok = HMAC(EVP_sha256(), key, AM__VAULT_KEY_BYTES, (const unsigned char *)msg.p, msg.len,
                  mac, &mn) && mn >= 8;
    am__buf_free(&msg);
    if (!ok) return AM_ERROR;
    uint64_t h = 0;
    for (int i = 0; i < 8; i++) h = h << 8 | mac[i];
    memcpy(out, &h, sizeof *out);
    return AM_OK;
}

int am__pii_value_hash(const am__allocator *a, const unsigned char key[AM__VAULT_KEY_BYTES],
                       const char *uid, const char *type, const char *value, int64_t *out)
{
    char canon[AM__PII_CANON_MAX];
    am__pii_canonical(value, strlen(value), am__pii_type_of(type), canon);
    return am__pii_hash(a, key, uid, type, canon, out);
}
