/* SPDX-License-Identifier: Apache-2.0 */
/*
 * records.h -- what the store's generic records hold (store.h rec_put,
 * rec_list, rec_del), written once above both backends.
 *
 * A record is a string value under (user id, namespace, key), with an
 * expiry or none.  A structured value is a JSON object written compact
 * with its keys sorted (canonical); a reader takes any JSON object.
 *   token  key "<lookup>/<id>" (lookup: AM__TOKEN_LOOKUP_LEN hex digits,
 *          so one lookup's rows are a key prefix across users); value
 *          {"admin":0|1,"agent_id":s|null,"created_at":ms,"hash":hex,
 *          "id":s,"lookup":s,"revoked_at":ms|null,"role":s|null}.
 *   pack   key the pack's name; value {"applied_at":ms,"json":s,
 *          "n_rules":n,"version":s}.
 *   working  key "<session>\x1f<key>" (ids hold no control character, so
 *          a session's rows are a key prefix); value the text, expires_at
 *          its expiry.
 *   meta   uid "", key a name of the store's own (the maintenance pass's
 *          cursor); value the text as given.
 * The functions keep the contracts the store's former operations had
 * (their results, order and errors).
 */
#ifndef AM_DOMAIN_RECORDS_H
#define AM_DOMAIN_RECORDS_H

#include "store/store.h"

/* Rule packs (lifecycle/packs.c), in the caller's write transaction but
 * the list.  put: the row of (uid, p->name) written or replaced.  list:
 * uid's rows by name, or every user's (uid NULL) by name then user.  del:
 * the row of (uid, name), AM_NOTFOUND when none. */
int am__pack_put(am__store *s, const char *uid, const am__pack_row *p);
int am__pack_list(am__store *s, const char *uid, am__arena *ar, am__pack_row **rows,
                  size_t *n);
int am__pack_del(am__store *s, const char *uid, const char *name);

/* A small value of the store's own under key (the maintenance pass's
 * cursor): get AM_NOTFOUND when none; put value NULL deletes it, in the
 * caller's transaction or alone. */
int am__meta_get(am__store *s, const char *key, am__arena *ar, const char **value);
int am__meta_put(am__store *s, const char *key, const char *value);

/* API token rows (domain/tokens.c): put inserts one; find: the rows whose
 * lookup is that one, revoked ones included, by id; list: a user's (uid
 * NULL: every user's), oldest first (created_at, then id); revoke sets
 * revoked_at of a live token: AM_NOTFOUND when no token has that id or
 * it is revoked already (*uid: its user, AM_ID_MAX+1 bytes, also then,
 * "" when none; ar: scratch). */
int am__token_row_put(am__store *s, const am__token_row *t);
int am__token_rows_find(am__store *s, const char *lookup, am__arena *ar, am__token_row **rows,
                        size_t *n);
int am__tokens_list(am__store *s, const char *uid, am__arena *ar, am__token_row **rows,
                    size_t *n);
int am__token_row_revoke(am__store *s, const char *id, am_time at, char *uid, am__arena *ar);

/* Working memory without a cache (api/working.c).  put (caller's
 * transaction): the session's expired rows purged, then key's row
 * written; AM_TOOBIG when key is new and the session holds max_keys live
 * ones (ar: scratch).  list: the live rows (expires_at > now) by key, only
 * key's when key is not NULL.  del: key's row (NULL: the session's;
 * session NULL: every row of the user), its own statement. */
int am__working_put(am__store *s, const char *uid, const char *session, const char *key,
                    const char *value, am_time expires_at, am_time now, int max_keys,
                    am__arena *ar);
int am__working_list(am__store *s, const char *uid, const char *session, const char *key,
                     am_time now, am__arena *ar, am__working_row **rows, size_t *n);
int am__working_del(am__store *s, const char *uid, const char *session, const char *key);

#endif
