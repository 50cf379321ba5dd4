/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tokens.c -- API tokens bound to a tenant and the audit of refused
 * requests: what the server's auth stands on (docs/SERVER.md).
 *
 * A token is AM_TOKEN_PREFIX + base64url(32 bytes from RAND_bytes), 43
 * characters without padding.  The store keeps SHA-256(token) and, as
 * the index to find it by, the hex of that hash's first 8 bytes (lookup):
 * a verify hashes what it is given, reads the rows of that lookup and
 * compares each whole hash with CRYPTO_memcmp, so the time a comparison
 * takes says nothing about how much of a guess was right.  The token is
 * never stored, logged or audited (its id is).
 */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <string.h>

#include "api/db_int.h"

#define TOKEN_RAW 32
#define LOOKUP_BYTES 8

static void b64url(const unsigned char *p, size_t n, char *out)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        size_t chars = n - i >= 3 ? 4 : n - i + 1;
        for (size_t k = 0; k < chars; k++) out[o++] = abc[(v >> (18 - 6 * k)) & 63];
    }
    out[o] = '\0';
}

/* hash = SHA-256(token), lookup = hex of its first LOOKUP_BYTES */
static int token_hash(const char *token, unsigned char hash[AM__TOKEN_HASH],
                      char lookup[2 * LOOKUP_BYTES + 1])
{
    unsigned len = 0;
    if (EVP_Digest(token, strlen(token), hash, &len, EVP_sha256(), NULL) != 1 ||
        len != AM__TOKEN_HASH)
        return AM_ERROR;
    for (int i = 0; i < LOOKUP_BYTES; i++) snprintf(lookup + 2 * i, 3, "%02x", hash[i]);
    return AM_OK;
}

static int check_opt_id(am_db *db, const char *field, const char *v)
{
    return v ? am__db_check_id(db, "token create", field, v) : AM_OK;
}

int am_token_create(am_db *db, const am_token_spec *spec, char **token_out, char **id_out)
{
    if (token_out) *token_out = NULL;
    if (id_out) *id_out = NULL;
    if (!db || !spec || !token_out) return AM_MISUSE;
    am__db_clear_error(db);
    int rc;
    if (!spec->user_id) return am__db_error(db, AM_INVALID, "token create: user is missing");
    if ((rc = am__db_check_id(db, "token create", "user", spec->user_id)) ||
        (rc = check_opt_id(db, "agent", spec->agent_id)) ||
        (rc = check_opt_id(db, "role", spec->role)))
        return rc;
    unsigned char raw[TOKEN_RAW];
    if (RAND_bytes(raw, sizeof raw) != 1)
        return am__db_error(db, AM_ERROR, "token create: no random bytes from the system");
    char token[AM_TOKEN_LEN + 1], lookup[2 * LOOKUP_BYTES + 1], id[27];
    memcpy(token, AM_TOKEN_PREFIX, sizeof AM_TOKEN_PREFIX - 1);
    b64url(raw, sizeof raw, token + sizeof AM_TOKEN_PREFIX - 1);
    OPENSSL_cleanse(raw, sizeof raw);
    am_time now = am__db_now(db);
    am__db_new_id(db, now, id);
    am__token_row t = {id, lookup, spec->user_id, spec->agent_id, spec->role, {0},
                       spec->admin != 0, now, AM_TIME_NONE};
    if ((rc = token_hash(token, t.hash, lookup))) {
        OPENSSL_cleanse(token, sizeof token);
        return am__db_error(db, rc, "token create: SHA-256 failed");
    }
    am__store *s = db->store;
    char detail[64];
    snprintf(detail, sizeof detail, "%s%s", spec->admin ? "admin" : "user",
             spec->agent_id || spec->role ? " (agent/role bound)" : "");
    if ((rc = s->vt->begin(s))) goto out_store;
    if ((rc = s->vt->token_put(s, &t)) ||
        (rc = s->vt->audit(s, spec->user_id, now, "token.create", "token", id, detail)) ||
        (rc = s->vt->commit(s))) {
        s->vt->rollback(s);
        goto out_store;
    }
    *token_out = am__owned_strndup(&db->alloc, token, strlen(token));
    OPENSSL_cleanse(token, sizeof token);
    if (!*token_out) return am__db_error(db, AM_NOMEM, "token create: out of memory");
    if (id_out && !(*id_out = am__owned_strndup(&db->alloc, id, strlen(id)))) {
        am__owned_free(*token_out);
        *token_out = NULL;
        return am__db_error(db, AM_NOMEM, "token create: out of memory");
    }
    return AM_OK;
out_store:
    OPENSSL_cleanse(token, sizeof token);
    return am__db_store_error(db, rc, "token create");
}

static void info_fill(am_token_info *out, const am__token_row *r)
{
    memset(out, 0, sizeof *out);
    snprintf(out->id, sizeof out->id, "%s", r->id);
    snprintf(out->user_id, sizeof out->user_id, "%s", r->user_id);
    snprintf(out->agent_id, sizeof out->agent_id, "%s", r->agent_id ? r->agent_id : "");
    snprintf(out->role, sizeof out->role, "%s", r->role ? r->role : "");
    out->admin = r->admin;
    out->created_at = r->created_at;
    out->revoked_at = r->revoked_at;
}

int am_token_verify(am_db *db, const char *token, am_token_info *out)
{
    if (!db || !token || !out) return AM_MISUSE;
    am__db_clear_error(db);
    memset(out, 0, sizeof *out);
    out->created_at = out->revoked_at = AM_TIME_NONE;
    /* the shape first: anything else is no token of ours (and is not
     * hashed: a long header costs nothing) */
    size_t n = strlen(token), pre = sizeof AM_TOKEN_PREFIX - 1;
    if (n != AM_TOKEN_LEN || strncmp(token, AM_TOKEN_PREFIX, pre) != 0 ||
        strspn(token + pre, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") !=
            n - pre)
        return am__db_error(db, AM_DENIED, "token: not an agentmem token");
    unsigned char hash[AM__TOKEN_HASH];
    char lookup[2 * LOOKUP_BYTES + 1];
    if (token_hash(token, hash, lookup)) return am__db_error(db, AM_ERROR, "token: SHA-256 failed");
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__token_row *rows;
    size_t nr;
    int rc = db->store->vt->token_find(db->store, lookup, &ar, &rows, &nr), found = 0;
    for (size_t i = 0; !rc && i < nr; i++)
        if (CRYPTO_memcmp(rows[i].hash, hash, AM__TOKEN_HASH) == 0) {
            info_fill(out, &rows[i]);
            found = 1;
        }
    am__arena_free(&ar);
    if (rc) return am__db_store_error(db, rc, "token");
    if (!found) return am__db_error(db, AM_DENIED, "token: unknown token");
    if (out->revoked_at != AM_TIME_NONE)
        return am__db_error(db, AM_DENIED, "token: token %s was revoked", out->id);
    return AM_OK;
}

int am_token_list(am_db *db, const char *user_id, am_token_info **out, size_t *n)
{
    if (out) *out = NULL;
    if (n) *n = 0;
    if (!db || !out || !n) return AM_MISUSE;
    am__db_clear_error(db);
    int rc;
    if (user_id && (rc = am__db_check_id(db, "token list", "user", user_id))) return rc;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__token_row *rows;
    size_t nr;
    if ((rc = db->store->vt->tokens_list(db->store, user_id, &ar, &rows, &nr))) {
        am__arena_free(&ar);
        return am__db_store_error(db, rc, "token list");
    }
    if (nr) {
        /* filled in the arena, then one owned copy (am_free releases it) */
        am_token_info *tmp = am__arena_alloc(&ar, nr * sizeof *tmp);
        for (size_t i = 0; tmp && i < nr; i++) info_fill(&tmp[i], &rows[i]);
        am_token_info *list =
            tmp ? (am_token_info *)(void *)am__owned_strndup(&db->alloc, (const char *)tmp,
                                                              nr * sizeof *tmp)
                : NULL;
        if (!list) {
            am__arena_free(&ar);
            return am__db_error(db, AM_NOMEM, "token list: out of memory");
        }
        *out = list;
        *n = nr;
    }
    am__arena_free(&ar);
    return AM_OK;
}

int am_token_revoke(am_db *db, const char *id)
{
    if (!db || !id) return AM_MISUSE;
    am__db_clear_error(db);
    int rc;
    if ((rc = am__db_check_id(db, "token revoke", "id", id))) return rc;
    am__store *s = db->store;
    char uid[AM_ID_MAX + 1];
    am_time now = am__db_now(db);
    if ((rc = s->vt->begin(s))) return am__db_store_error(db, rc, "token revoke");
    rc = s->vt->token_revoke(s, id, now, uid);
    if (rc == AM_NOTFOUND) {
        s->vt->rollback(s);
        return am__db_error(db, rc, "token revoke: no valid token has id %s%s", id,
                            uid[0] ? " (it is revoked already)" : "");
    }
    if (rc || (rc = s->vt->audit(s, uid, now, "token.revoke", "token", id, NULL)) ||
        (rc = s->vt->commit(s))) {
        am__db_store_error(db, rc, "token revoke");
        s->vt->rollback(s);
        return rc;
    }
    return AM_OK;
}
