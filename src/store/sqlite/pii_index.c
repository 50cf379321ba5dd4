/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pii_index.c -- the vault found by a keyed hash of each value (the
 * read side).
 *
 * A recall that names a phone number, an e-mail address or an ID asks for
 * the user's events whose vault holds that value, compared in canonical
 * form (am__pii_canonical).  Reading every vault row of the type and
 * canonicalising (with a vault key: opening) each one cost a recall up to
 * 4096 rows; instead each row carries
 *
 *     canon_hash = first 8 bytes of HMAC-SHA256(key, user id NUL type NUL
 *                  canonical value), as a signed 64-bit integer,
 *
 * written with the row and indexed with (user_id, type), so a look-up is
 * one index probe.  The key:
 *  - a sealed value (a vault key is configured): HMAC-SHA256(vault key,
 *    "agentmem pii index v1").  The file alone, without the vault key,
 *    does not let anyone test a guessed phone number against the index,
 *    so a sealed value stays sealed;
 *  - a plain value: meta('pii_key'), 32 random bytes made with the store
 *    (the value is in the file then anyway; the key keeps the hash from
 *    being a dictionary of numbers shared between stores).
 * The user id is hashed too: two users' equal values do not show as equal
 * hashes.  A probe asks for the hash under both keys and for the rows
 * whose hash is NULL -- written before the column and sealed with a key
 * the upgrading connection did not have, or moved by a user merge (the
 * user id changed): those are compared the old way, and am_optimize with
 * the key fills them in.  The hash only narrows the rows: the caller
 * still compares each returned value's canonical form, so two values that
 * collide on 64 bits are told apart.  It lives in the vault row, so every
 * forget that deletes the row deletes it (secure_delete zeroes the page).
 *
 * The hash and the key derivation are the stores' common code
 * (store/vault.c); this file picks the SQLite connection's keys.
 *
 * Thread rule: per connection (the keys are read once into sq_store).
 */
#include <string.h>

#include "store/sqlite/sqlite_int.h"

void am__sqlite_pii_index_key(sq_store *s)
{
    s->has_index_key = s->has_vault_key && am__pii_index_key(s->vault_key, s->index_key) == AM_OK;
}

/* meta('pii_key') into s->pii_key, once per connection */
static int plain_key(sq_store *s)
{
    if (s->has_pii_key) return AM_OK;
    size_t kn = 0;
    int rc = am__sqlite_meta_key(s, "pii_key", s->pii_key, sizeof s->pii_key, &kn);
    if (rc) return rc;
    if (kn != sizeof s->pii_key) {
        snprintf(s->err, sizeof s->err, "sqlite: the store's pii_key is missing or malformed");
        return AM_CORRUPT;
    }
    s->has_pii_key = 1;
    return AM_OK;
}

/* The key of a sealed row's hash (AM_DENIED without a vault key) or of a
 * plain one's. */
static int key_of(sq_store *s, int sealed, const unsigned char **key)
{
    if (sealed && !s->has_index_key) {
        snprintf(s->err, sizeof s->err, "sqlite: no key for the vault's sealed value hashes");
        return AM_DENIED;
    }
    int rc = sealed ? AM_OK : plain_key(s);
    *key = sealed ? s->index_key : s->pii_key;
    return rc;
}

static int hashed(sq_store *s, int rc)
{
    if (rc == AM_ERROR) {
        snprintf(s->err, sizeof s->err, "sqlite: HMAC-SHA256 failed");
        return AM_BACKEND;
    }
    return rc;
}

int am__sqlite_pii_hash(sq_store *s, const char *uid, const char *type, const char *canon,
                        int sealed, int64_t *out)
{
    const unsigned char *key;
    int rc = key_of(s, sealed, &key);
    return rc ? rc : hashed(s, am__pii_hash(s->a, key, uid, type, canon, out));
}

int am__sqlite_pii_value_hash(sq_store *s, const char *uid, const char *type, const char *value,
                              int sealed, int64_t *out)
{
    const unsigned char *key;
    int rc = key_of(s, sealed, &key);
    return rc ? rc : hashed(s, am__pii_value_hash(s->a, key, uid, type, value, out));
}
