/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tokens.h -- what an API token is and how it is found: the server's
 * auth stands on it (docs/SERVER.md).
 *
 * A token is AM_TOKEN_PREFIX + base64url(32 bytes from RAND_bytes), 43
 * characters without padding.  The store keeps SHA-256(token) and, as
 * the index to find it by, the hex of that hash's first 8 bytes (lookup):
 * a verify hashes what it is given, reads the rows of that lookup and
 * compares each whole hash with CRYPTO_memcmp, so the time a comparison
 * takes says nothing about how much of a guess was right.  The token is
 * never stored, logged or audited (its id is).
 *
 * Who calls it: api/tokens.c only (am_token_create / _verify / _revoke),
 * which checks the arguments, opens and ends the transaction and boxes
 * the results; the store calls here run inside that transaction.
 * Includes base/ and store/ (the token row), never api/.
 */
#ifndef AM_DOMAIN_TOKENS_H
#define AM_DOMAIN_TOKENS_H

#include "agentmem_ops.h"
#include "store/store.h"

#define AM__TOKEN_LOOKUP_LEN 16 /* hex of the hash's first 8 bytes */

/* A new token from the system's random bytes, into token (NUL-terminated);
 * AM_ERROR when the system has no random bytes.  The caller wipes it
 * (OPENSSL_cleanse) once handed over. */
int am__token_make(char token[AM_TOKEN_LEN + 1]);

/* 1 when token has the shape of one of ours (prefix, length, alphabet);
 * anything else is not hashed (a long header costs nothing). */
int am__token_shape_ok(const char *token);

/* hash = SHA-256(token), lookup = hex of its first 8 bytes; AM_ERROR
 * when SHA-256 failed. */
int am__token_hash(const char *token, unsigned char hash[AM__TOKEN_HASH],
                   char lookup[AM__TOKEN_LOOKUP_LEN + 1]);

/* In the caller's write transaction: the token row t stored and its
 * creation audited ("token.create", detail admin or user, bound to an
 * agent or role or not). */
int am__token_save(am__store *s, const am__token_row *t);

/* The row whose whole hash is hash among those of lookup (compared in
 * constant time), from ar: AM_OK with *found (NULL: none), or the store's
 * error. */
int am__token_find(am__store *s, const unsigned char hash[AM__TOKEN_HASH], const char *lookup,
                   am__arena *ar, const am__token_row **found);

/* In the caller's write transaction: the live token id revoked at now
 * and the revocation audited; uid (AM_ID_MAX + 1) its user.  AM_NOTFOUND
 * when no live token has that id (uid[0] set: it is revoked already); ar:
 * scratch. */
int am__token_revoke(am__store *s, const char *id, am_time now, char *uid, am__arena *ar);

#endif
