/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memory_int.h -- what the calls on one memory item share (memory.c,
 * memory_delete.c): the checks of a user and an item id, an agent's or a
 * role's access to the item, the item loaded and boxed.
 */
#ifndef AM_API_MEMORY_INT_H
#define AM_API_MEMORY_INT_H

#include "api/db_int.h"

/* The user and the item's id checked: AM_OK or AM_INVALID naming them
 * (what names the call). */
int am__memory_check_ids(am_db *db, const char *what, const char *user_id, const char *memory_id);
/* For an agent or a role (both NULL: AM_OK): AM_OK when it may read the
 * item memory_id names, else AM_NOTFOUND with the words for an unknown
 * item. */
int am__memory_access_gate(am_db *db, const char *what, const char *user_id,
                           const char *memory_id, const char *agent_id, const char *role);
/* The item id names (lineage or any version), boxed (am_memory_item_free).
 * AM_NOTFOUND without a message (the caller words it), AM_NOMEM, or the
 * store's error. */
int am__memory_item_load(am_db *db, const char *uid, const char *id, am_memory_item **out);

#endif
