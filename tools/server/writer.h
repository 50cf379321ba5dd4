/* SPDX-License-Identifier: Apache-2.0 */
/*
 * writer.h -- the group commit of single-event writes (writer.c).
 *
 * Concurrent single events queue on the server (am_srv's write_mu,
 * write_cv, queue); a leader writes what is queued in one transaction
 * (one leader on SQLite, a few on PostgreSQL).  Two paths: a handler
 * that waits (am__srv_write_grouped: the fuzz target, the server without
 * writer threads), and the server's own, where the handler queues a
 * pending write and suspends its connection, and the writer threads make
 * its reply and resume it.  Every reply is made after its event's commit.
 */
#ifndef AM_SRV_WRITER_H
#define AM_SRV_WRITER_H
#include <stddef.h>

#include "agentmem.h"
#include "http_util.h"

struct am_srv;
struct srv_pending;

/* The server's locks (the writers' and the refusal log's), before any
 * request (am_server_run, the fuzz target); freed after the last. */
void am__srv_init_locks(struct am_srv *s);
void am__srv_free_locks(struct am_srv *s);

/* Write ev in the next group, waiting for its commit (at most
 * SRV_WRITE_WAIT_MS queued: then AM_BUSY, not written); db: the caller's
 * handle, used when it leads a group.  The result in info, or the rc
 * with the engine's message in err (cap bytes). */
int am__srv_write_grouped(struct am_srv *s, am_db *db, const am_event *ev, am_add_info *info,
                          char *err, size_t cap);
/* The writes of user queued now */
int am__srv_write_queued(struct am_srv *s, const char *user);

/* The writer threads of async writes (GROUP_LEADERS_PG on PostgreSQL, 1
 * on SQLite): 0, or 1 with a message on stderr.  Stop: the queue drained,
 * every connection resumed, the threads joined (none started: no-op). */
int am__srv_writers_start(struct am_srv *s, const char *backend);
void am__srv_writers_stop(struct am_srv *s);
/* A pending write of ev (its strings copied: the request may go), for
 * srv_reply.pending; NULL when out of memory. */
struct srv_pending *am__srv_pending_new(const am_event *ev);
/* Queue a reply's pending write (rp.pending); ctx is what s->resume is
 * called with when its reply is made (once: after it, p is the caller's
 * again).  The reply, moved into out, and p freed; or p freed alone. */
void am__srv_pending_queue(struct am_srv *s, struct srv_pending *p, void *ctx);
void am__srv_pending_take(struct srv_pending *p, srv_reply *out);
void am__srv_pending_free(struct srv_pending *p);

#endif
