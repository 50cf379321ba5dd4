/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tokens.c -- API tokens bound to a tenant: the argument checks, the
 * transaction and the results of am_token_*; what a token is and how it
 * is found is domain/tokens.h (only its SHA-256 is stored).
 */
#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>

#include "domain/records.h"
#include "api/db_int.h"
#include "domain/tokens.h"

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
    char token[AM_TOKEN_LEN + 1], lookup[AM__TOKEN_LOOKUP_LEN + 1], id[27];
    if (am__token_make(token))
        return am__db_error(db, AM_ERROR, "token create: no random bytes from the system");
    am_time now = am__db_now(db);
    am__db_new_id(db, now, id);
    am__token_row t = {id, lookup, spec->user_id, spec->agent_id, spec->role, {0},
                       spec->admin != 0, now, AM_TIME_NONE};
    if ((rc = am__token_hash(token, t.hash, lookup))) {
        OPENSSL_cleanse(token, sizeof token);
        return am__db_error(db, rc, "token create: SHA-256 failed");
    }
    am__store *s = db->store;
    if ((rc = am__store_begin(s))) goto out_store;
    if ((rc = am__token_save(s, &t)) || (rc = am__store_commit(s))) {
        am__store_rollback(s);
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
    /* the shape first: anything else is no token of ours */
    if (!am__token_shape_ok(token))
        return am__db_error(db, AM_DENIED, "token: not an agentmem token");
    unsigned char hash[AM__TOKEN_HASH];
    char lookup[AM__TOKEN_LOOKUP_LEN + 1];
    if (am__token_hash(token, hash, lookup))
        return am__db_error(db, AM_ERROR, "token: SHA-256 failed");
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    const am__token_row *row;
    int rc = am__token_find(db->store, hash, lookup, &ar, &row), found = row != NULL;
    if (row) info_fill(out, row);
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
    if ((rc = am__tokens_list(db->store, user_id, &ar, &rows, &nr))) {
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
    if ((rc = am__store_begin(s))) return am__db_store_error(db, rc, "token revoke");
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    rc = am__token_revoke(s, id, now, uid, &ar);
    am__arena_free(&ar);
    if (rc == AM_NOTFOUND) {
        am__store_rollback(s);
        return am__db_error(db, rc, "token revoke: no valid token has id %s%s", id,
                            uid[0] ? " (it is revoked already)" : "");
    }
    if (rc || (rc = am__store_commit(s))) {
        am__db_store_error(db, rc, "token revoke");
        am__store_rollback(s);
        return rc;
    }
    return AM_OK;
}
