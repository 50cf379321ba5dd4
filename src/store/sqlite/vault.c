/*
 * vault.c -- PII-vault originals encrypted at rest (F3, issue 14.9).
 *
 * With a vault key configured (am_config.vault_key: 32 bytes as 64 hex
 * digits), every original written to pii_vault is sealed with AES-256-GCM
 * (OpenSSL libcrypto): a fresh random 96-bit nonce per value, the 128-bit
 * tag, and the row's user id and PII type as associated data, so a sealed
 * value copied to another user's or another type's row does not open.
 * The column then holds
 *
 *     "enc:v1:" hex(nonce[12] || tag[16] || ciphertext)
 *
 * -- a prefix no original can have (phones, IDs and cards are digits, an
 * e-mail's local part holds no ':').  Reading (am__sqlite_pii_events, the
 * only read of originals: a recall compares a value it was asked about)
 * opens sealed values with the key; a row that does not open (no key, the
 * wrong key, a damaged value) is skipped, never returned as bytes.  Rows
 * written before a key was configured are read as they are, and sealed by
 * the next am_optimize run with the key (am__sqlite_vault_upkeep);
 * docs/SECURITY.md says what holds with and without a key.
 *
 * Thread rule: no state beyond the caller's key; OpenSSL 1.1+/3 contexts
 * are per call.
 */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <string.h>

#include "store/sqlite/sqlite_int.h"

#define PREFIX "enc:v1:"
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

static int hex_val(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int am__vault_key_parse(const char *hex, unsigned char key[AM__VAULT_KEY_BYTES])
{
    if (!hex || strlen(hex) != 2 * AM__VAULT_KEY_BYTES) return AM_INVALID;
    for (size_t i = 0; i < AM__VAULT_KEY_BYTES; i++) {
        int hi = hex_val((unsigned char)hex[2 * i]), lo = hex_val((unsigned char)hex[2 * i + 1]);
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
        int hi = hex_val((unsigned char)h[2 * i]), lo = hex_val((unsigned char)h[2 * i + 1]);
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

/* The vault's upkeep, inside the caller's transaction: with seal (and a
 * key), seal the originals written before the key was configured
 * (am_optimize); and hash the rows without a value hash that this
 * connection can (a store upgraded across the column, a user merge:
 * pii_index.c) -- plain ones, and sealed ones that open with its key.
 * *sealed and *hashed count the rows. */
int am__sqlite_vault_upkeep(sq_store *s, int seal, long *sealed, long *hashed)
{
    *sealed = *hashed = 0;
    seal = seal && s->has_vault_key;
    sqlite3_stmt *sel = NULL, *upd = NULL;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT rowid, user_id, type, original, canon_hash IS NULL"
                                " FROM pii_vault WHERE canon_hash IS NULL"
                                " OR (?1 AND substr(original, 1, 7) <> '" PREFIX "')",
                                -1, &sel, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(s->db, "UPDATE pii_vault SET original=?1, canon_hash=?3"
                                " WHERE rowid=?2", -1, &upd, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(sel);
        return fail(s, rc, "vault upkeep");
    }
    sqlite3_bind_int(sel, 1, seal);
    am__buf b;
    am__buf_init(&b, s->a);
    am__arena ar;
    am__arena_init(&ar, s->a);
    int out = AM_OK;
    while (out == AM_OK && (rc = sqlite3_step(sel)) == SQLITE_ROW) {
        const char *uid = (const char *)sqlite3_column_text(sel, 1);
        const char *type = (const char *)sqlite3_column_text(sel, 2);
        const char *stored = (const char *)sqlite3_column_text(sel, 3), *plain = stored;
        if (!uid || !type || !stored) continue;
        int was_sealed = am__vault_is_sealed(stored), to_seal = seal && !was_sealed;
        if (was_sealed) {
            if (!s->has_vault_key) continue;
            int vrc = am__vault_open(s->vault_key, uid, type, stored, &ar, &plain);
            if (vrc == AM_NOMEM) { out = vrc; break; }
            if (vrc != AM_OK) continue; /* another key's, or damaged: stays unhashed */
        }
        /* the hash under the key of the row's form after this step */
        int64_t hash;
        if ((out = am__sqlite_pii_value_hash(s, uid, type, plain, was_sealed || to_seal, &hash)))
            break;
        if (to_seal && (out = am__vault_seal(s->vault_key, uid, type, plain, &b))) break;
        if (to_seal) sqlite3_bind_text(upd, 1, b.p, (int)b.len, SQLITE_STATIC);
        else sqlite3_bind_text(upd, 1, stored, -1, SQLITE_STATIC);
        sqlite3_bind_int64(upd, 2, sqlite3_column_int64(sel, 0));
        sqlite3_bind_int64(upd, 3, hash);
        if ((rc = sqlite3_step(upd)) != SQLITE_DONE) out = fail(s, rc, "vault upkeep");
        sqlite3_reset(upd);
        if (to_seal) (*sealed)++;
        else (*hashed)++;
        am__arena_free(&ar);
        am__arena_init(&ar, s->a);
    }
    if (out == AM_OK && rc != SQLITE_DONE) out = fail(s, rc, "vault upkeep");
    am__arena_free(&ar);
    am__buf_free(&b);
    sqlite3_finalize(sel);
    sqlite3_finalize(upd);
    return out;
}
