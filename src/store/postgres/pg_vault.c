/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pg_vault.c -- the PII vault on PostgreSQL: originals sealed at rest
 * with the vault key and found by a keyed hash of their value, as the
 * SQLite store does it (store/sqlite/events.c, vault.c, pii_index.c), on
 * the stores' common code (store/vault.c: AES-256-GCM with a nonce per
 * value and the user and type as associated data; HMAC-SHA256 hashes).
 *
 * With a vault key (am__store_opts.vault_key) every original written is
 * sealed ("enc:v1:..."); without one it is kept as given.  Every row
 * carries canon_hash (schema v2), the hash of its canonical value under
 * the key of its form: for a sealed value a key derived from the vault
 * key (without it the database does not let anyone test a guessed phone
 * number), for a plain one meta('pii_key'), 32 random bytes made with the
 * store.  The entities read AM__ENT_PII probes the user's rows of the
 * type by both hashes and takes the rows without one (written before v2, or moved by a user
 * merge: the user id is hashed and sealed with) as candidates too; a
 * sealed value is opened with the key, and one that does not open (no
 * key, another key, damaged) is skipped, never handed over as bytes.
 * optimize gives the rows without a hash theirs and, with a key, seals
 * the rows written plain before it (am__pg_vault_upkeep).
 */
#include <stdio.h>
#include <stdlib.h>

#include "store/postgres/pg_int.h"
#include "store/vault.h"

int am__pg_vault_keys(pg_store *s, const unsigned char *vault_key)
{
    PGresult *r = am__pg_run(s, "vault keys", "SELECT value FROM meta WHERE key = 'pii_key'", NULL);
    if (!r) return s->rc;
    int ok = PQntuples(r) == 1 && PQgetlength(r, 0, 0) == 2 * AM__VAULT_KEY_BYTES &&
             am__vault_key_parse(PQgetvalue(r, 0, 0), s->pii_key) == AM_OK;
    PQclear(r);
    if (!ok) return am__pg_fail(s, AM_CORRUPT, "postgres: the store's pii_key is missing or malformed");
    if (!vault_key) return AM_OK;
    memcpy(s->vault_key, vault_key, sizeof s->vault_key);
    s->has_vault_key = 1;
    if (am__pii_index_key(s->vault_key, s->index_key))
        return am__pg_fail(s, AM_BACKEND, "postgres: HMAC-SHA256 failed");
    return AM_OK;
}

void am__pg_vault_wipe(pg_store *s)
{
    am__vault_key_wipe(s->vault_key, sizeof s->vault_key);
    am__vault_key_wipe(s->index_key, sizeof s->index_key);
    am__vault_key_wipe(s->pii_key, sizeof s->pii_key);
    s->has_vault_key = 0;
}

/* The hash of a value (canonical: canon, else value as written) under the
 * key of a sealed or a plain row. */
static int value_hash(pg_store *s, const char *uid, const char *type, const char *canon,
                      const char *value, int sealed, int64_t *out)
{
    const unsigned char *key = sealed ? s->index_key : s->pii_key;
    int rc = canon ? am__pii_hash(s->a, key, uid, type, canon, out)
                   : am__pii_value_hash(s->a, key, uid, type, value, out);
    return rc == AM_ERROR ? am__pg_fail(s, AM_BACKEND, "postgres: HMAC-SHA256 failed") : rc;
}

int am__pg_pii_put(am__store *b, const char *uid, int64_t rid, const am__pii_row *p)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    int64_t hash;
    int rc = value_hash(s, uid, p->type, NULL, p->original, s->has_vault_key, &hash);
    if (rc) return rc;
    am__buf sealed;
    am__buf_init(&sealed, s->a);
    if (s->has_vault_key && (rc = am__vault_seal(s->vault_key, uid, p->type, p->original, &sealed))) {
        am__buf_free(&sealed);
        return am__pg_fail(s, rc, "pii: cannot seal the original (%s)", am_errstr(rc));
    }
    am__buf_addc(&sealed, 0);
    if (sealed.oom) {
        am__buf_free(&sealed);
        return AM_NOMEM;
    }
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_int(&a, rid);
    am__pg_arg_text(&a, p->placeholder);
    am__pg_arg_text(&a, p->type);
    am__pg_arg_text(&a, s->has_vault_key ? sealed.p : p->original);
    am__pg_arg_int(&a, hash);
    rc = am__pg_exec(s, "pii",
                     "INSERT INTO pii_vault(user_id, event_rid, placeholder, type, original,"
                     " canon_hash) VALUES($1, $2, $3, $4, $5, $6)", &a, NULL);
    am__buf_free(&sealed);
    return rc;
}

int am__pg_pii_events(am__store *b, const char *uid, const char *type, const char *canon,
                      am_time to, int limit, am__arena *ar, int64_t **rids,
                      const char ***originals, size_t *n)
{
    pg_store *s = PG(b);
    if (am__pg_lock_user(s, uid)) return s->rc;
    *rids = NULL;
    *originals = NULL;
    *n = 0;
    int64_t plain = 0, sealed = 0;
    int rc = value_hash(s, uid, type, canon, NULL, 0, &plain);
    if (!rc && s->has_vault_key) rc = value_hash(s, uid, type, canon, NULL, 1, &sealed);
    if (rc) return rc;
    pg_args a = {0};
    am__pg_arg_text(&a, uid);
    am__pg_arg_text(&a, type);
    am__pg_arg_time(&a, to);
    am__pg_arg_int(&a, limit);
    am__pg_arg_int(&a, plain);
    if (s->has_vault_key) am__pg_arg_int(&a, sealed);
    else am__pg_arg_text(&a, NULL);
    PGresult *r = am__pg_run(s, "pii",
                             "SELECT e.rid, v.original FROM pii_vault v JOIN events e"
                             " ON e.user_id = v.user_id AND e.rid = v.event_rid"
                             " WHERE v.user_id = $1 AND v.type = $2"
                             " AND (v.canon_hash IN ($5::bigint, $6::bigint) OR v.canon_hash IS NULL)"
                             " AND ($3::bigint IS NULL OR e.occurred_at < $3)"
                             " ORDER BY e.occurred_at DESC, e.rid DESC LIMIT $4", &a);
    if (!r) return s->rc;
    int k = PQntuples(r);
    *rids = am__arena_alloc(ar, ((size_t)k + 1) * sizeof **rids);
    *originals = am__arena_alloc(ar, ((size_t)k + 1) * sizeof **originals);
    if (!*rids || !*originals) { PQclear(r); return AM_NOMEM; }
    size_t m = 0;
    for (int i = 0; i < k && !rc; i++) {
        const char *o = am__pg_str(ar, r, i, 1);
        if (!o) { rc = AM_NOMEM; break; }
        if (am__vault_is_sealed(o)) {
            /* opened with the key, or skipped -- never compared as ciphertext */
            int vrc = s->has_vault_key ? am__vault_open(s->vault_key, uid, type, o, ar, &o) : AM_DENIED;
            if (vrc == AM_NOMEM) rc = vrc;
            if (vrc != AM_OK) continue;
        }
        (*rids)[m] = am__pg_i64(r, i, 0);
        (*originals)[m++] = o;
    }
    PQclear(r);
    if (rc || ar->oom) return rc ? rc : AM_NOMEM;
    *n = m;
    return AM_OK;
}

/* The rows without a hash get theirs (plain ones, and sealed ones that
 * open with this connection's key); with a key, the plain ones are sealed.
 * Inside the caller's transaction; *sealed, *hashed count them. */
int am__pg_vault_upkeep(pg_store *s, long *sealed, long *hashed)
{
    *sealed = *hashed = 0;
    if (am__pg_lock_all(s)) return s->rc; /* every user's rows */
    pg_args a = {0};
    am__pg_arg_text(&a, s->has_vault_key ? "t" : "f");
    PGresult *r = am__pg_run(s, "vault upkeep",
                             "SELECT user_id, seq, type, original FROM pii_vault"
                             " WHERE canon_hash IS NULL OR ($1::boolean AND left(original, 7) <> '"
                             AM__VAULT_PREFIX "')", &a);
    if (!r) return s->rc;
    am__buf b;
    am__buf_init(&b, s->a);
    am__arena ar;
    am__arena_init(&ar, s->a);
    int rc = AM_OK;
    for (int i = 0; i < PQntuples(r) && !rc; i++) {
        const char *uid = PQgetvalue(r, i, 0), *type = PQgetvalue(r, i, 2);
        const char *stored = PQgetvalue(r, i, 3), *plain = stored;
        int was_sealed = am__vault_is_sealed(stored), to_seal = s->has_vault_key && !was_sealed;
        if (was_sealed) {
            int vrc = s->has_vault_key ? am__vault_open(s->vault_key, uid, type, stored, &ar, &plain)
                                       : AM_DENIED;
            if (vrc == AM_NOMEM) rc = vrc;
            if (vrc != AM_OK) continue; /* another key's, or damaged: stays unhashed */
        }
        int64_t hash;
        if ((rc = value_hash(s, uid, type, NULL, plain, was_sealed || to_seal, &hash))) break;
        am__buf_reset(&b);
        if (to_seal && (rc = am__vault_seal(s->vault_key, uid, type, plain, &b))) break;
        am__buf_addc(&b, 0);
        if (b.oom) { rc = AM_NOMEM; break; }
        pg_args u = {0};
        am__pg_arg_text(&u, uid);
        am__pg_arg_text(&u, PQgetvalue(r, i, 1));
        am__pg_arg_text(&u, to_seal ? b.p : stored);
        am__pg_arg_int(&u, hash);
        rc = am__pg_exec(s, "vault upkeep",
                         "UPDATE pii_vault SET original = $3, canon_hash = $4"
                         " WHERE user_id = $1 AND seq = $2::bigint", &u, NULL);
        if (to_seal) (*sealed)++;
        else (*hashed)++;
        am__arena_free(&ar);
        am__arena_init(&ar, s->a);
    }
    am__arena_free(&ar);
    am__buf_free(&b);
    PQclear(r);
    return rc;
}
