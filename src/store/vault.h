/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vault.h -- the PII vault's sealing (AES-256-GCM) and keyed value
 * hashes, common to the stores (store/vault.c says the format).
 */
#ifndef AM_STORE_VAULT_H
#define AM_STORE_VAULT_H

#include <stdint.h>

#include "store/store.h"

/* A sealed original starts with this (no original can). */
#define AM__VAULT_PREFIX "enc:v1:"

/* 1 when a stored original is sealed ("enc:v1:..."). */
int am__vault_is_sealed(const char *stored);
/* Seal plain for (uid, type) into out (reset first): AM_OK, AM_NOMEM,
 * AM_TOOBIG, AM_ERROR (libcrypto failed). */
int am__vault_seal(const unsigned char key[AM__VAULT_KEY_BYTES], const char *uid,
                   const char *type, const char *plain, am__buf *out);
/* Open a sealed value into *plain (arena): AM_OK; AM_INVALID (not sealed),
 * AM_CORRUPT (not hex), AM_DENIED (wrong key, user, type or damaged),
 * AM_NOMEM. */
int am__vault_open(const unsigned char key[AM__VAULT_KEY_BYTES], const char *uid,
                   const char *type, const char *stored, am__arena *ar, const char **plain);

/* The key of sealed values' hashes, derived from the vault key: AM_OK or
 * AM_ERROR (libcrypto failed). */
int am__pii_index_key(const unsigned char vault_key[AM__VAULT_KEY_BYTES],
                      unsigned char out[AM__VAULT_KEY_BYTES]);
/* *out = the keyed hash of canonical value canon of (uid, type); AM_OK,
 * AM_NOMEM, AM_ERROR.  value_hash: of a value as written (canonicalised
 * first: am__pii_canonical). */
int am__pii_hash(const am__allocator *a, const unsigned char key[AM__VAULT_KEY_BYTES],
                 const char *uid, const char *type, const char *canon, int64_t *out);
int am__pii_value_hash(const am__allocator *a, const unsigned char key[AM__VAULT_KEY_BYTES],
                       const char *uid, const char *type, const char *value, int64_t *out);

#endif
