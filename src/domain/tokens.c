/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tokens.c -- API tokens made, hashed, found and revoked (tokens.h has
 * the design: only the token's SHA-256 is stored).
 */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <string.h>

#include "domain/records.h"
#include "domain/tokens.h"

#define TOKEN_RAW 32
#define LOOKUP_BYTES (AM__TOKEN_LOOKUP_LEN / 2)
#define B64URL "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

static void b64url(const unsigned char *p, size_t n, char *out)
{
    static const char abc[] = B64URL;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        size_t chars = n - i >= 3 ? 4 : n - i + 1;
        for (size_t k = 0; k < chars; k++) out[o++] = abc[(v >> (18 - 6 * k)) & 63];
    }
    out[o] = '\0';
}

int am__token_make(char token[AM_TOKEN_LEN + 1])
{
    unsigned char raw[TOKEN_RAW];
    if (RAND_bytes(raw, sizeof raw) != 1) return AM_ERROR;
    memcpy(token, AM_TOKEN_PREFIX, sizeof AM_TOKEN_PREFIX - 1);
    b64url(raw, sizeof raw, token + sizeof AM_TOKEN_PREFIX - 1);
    OPENSSL_cleanse(raw, sizeof raw);
    return AM_OK;
}

int am__token_shape_ok(const char *token)
{
    size_t n = strlen(token), pre = sizeof AM_TOKEN_PREFIX - 1;
    return n == AM_TOKEN_LEN && strncmp(token, AM_TOKEN_PREFIX, pre) == 0 &&
           strspn(token + pre, B64URL) == n - pre;
}

int am__token_hash(const char *token, unsigned char hash[AM__TOKEN_HASH],
                   char lookup[AM__TOKEN_LOOKUP_LEN + 1])
{
    unsigned len = 0;
    if (EVP_Digest(token, strlen(token), hash, &len, EVP_sha256(), NULL) != 1 ||
        len != AM__TOKEN_HASH)
        return AM_ERROR;
    for (int i = 0; i < LOOKUP_BYTES; i++) snprintf(lookup + 2 * i, 3, "%02x", hash[i]);
    return AM_OK;
}

int am__token_save(am__store *s, const am__token_row *t)
{
    char detail[64];
    snprintf(detail, sizeof detail, "%s%s", t->admin ? "admin" : "user",
             t->agent_id || t->role ? " (agent/role bound)" : "");
    int rc = am__token_row_put(s, t);
    if (!rc)
        rc = am__store_audit(s, t->user_id, t->created_at, "token.create", "token", t->id, detail);
    return rc;
}

int am__token_find(am__store *s, const unsigned char hash[AM__TOKEN_HASH], const char *lookup,
                   am__arena *ar, const am__token_row **found)
{
    *found = NULL;
    am__token_row *rows;
    size_t nr;
    int rc = am__token_rows_find(s, lookup, ar, &rows, &nr);
    /* every row compared: the time says nothing of which one matched */
    for (size_t i = 0; !rc && i < nr; i++)
        if (CRYPTO_memcmp(rows[i].hash, hash, AM__TOKEN_HASH) == 0) *found = &rows[i];
    return rc;
}

int am__token_revoke(am__store *s, const char *id, am_time now, char *uid, am__arena *ar)
{
    int rc = am__token_row_revoke(s, id, now, uid, ar);
    if (!rc) rc = am__store_audit(s, uid, now, "token.revoke", "token", id, NULL);
    return rc;
}
