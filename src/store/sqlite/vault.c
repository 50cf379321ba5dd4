/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vault.c -- PII-vault originals encrypted at rest in the SQLite store:
 * the upkeep of a store's vault.  Sealing and opening
 * (AES-256-GCM, a nonce per value, bound to user and type) are the
 * stores' common code, store/vault.c, which says the format.
 *
 * Reading (am__sqlite_pii_events, the only read of originals: a recall
 * compares a value it was asked about) opens sealed values with the key;
 * a row that does not open (no key, the wrong key, a damaged value) is
 * skipped, never returned as bytes.  Rows written before a key was
 * configured are read as they are, and sealed by the next am_optimize run
 * with the key (am__sqlite_vault_upkeep); docs/SECURITY.md says what
 * holds with and without a key.
 */
#include <string.h>

#include "store/sqlite/sqlite_int.h"

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
                                " OR (?1 AND substr(original, 1, 7) <> '" AM__VAULT_PREFIX "')",
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
