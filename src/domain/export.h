/* SPDX-License-Identifier: Apache-2.0 */
/*
 * export.h -- a user's export document (am_export), written
 * as it is made (the format: docs/IMPORT.md).
 *
 * The caller (api/, am_export_stream) checks the user, opens one read
 * snapshot, fills an am__export and calls am__export_user for a user
 * with memory or am__export_tombstone for one being forgotten (its times,
 * no content); then it ends the snapshot.  The document goes to the
 * sink a piece of at most about 64 KiB at a time; events and the audit
 * trail are read a page of rows at a time, each page in an arena of its
 * own.  Memory is then bounded by a page, the user's tasks and their
 * item versions, not by the length of the user's history.
 *
 * Returns AM_OK, AM_NOMEM, AM_IO (the sink refused a write) or the
 * store's error; what was written before a failure stays written.
 */
#ifndef AM_DOMAIN_EXPORT_H
#define AM_DOMAIN_EXPORT_H

#include "agentmem.h"
#include "base/base.h"
#include "store/store.h"

typedef struct am__export {
    am__store *store;
    const am__allocator *alloc;   /* the pages' arenas */
    am_time (*now)(void *ctx);    /* the engine's clock */
    void *now_ctx;
    am__buf b;                    /* not yet written (the caller inits and frees it) */
    am_write_fn write;            /* the sink */
    void *ctx;
} am__export;

int am__export_user(am__export *o, const char *user_id);
/* state: AM__FORGOTTEN_HELD, _PURGING or _PURGED; at, until: the forget's
 * time and the end of its grace period. */
int am__export_tombstone(am__export *o, const char *user_id, int state, am_time at,
                         am_time until);

#endif
