/*
 * caches.c -- what the connection holds in memory, and when it is dropped.
 *
 * A connection keeps four caches of what it read (sq_store):
 *   - lens: each scored index row's column lengths (fts_rank.c);
 *   - rows: the events rows that searches returned (row_cache.c);
 *   - post: the posting lists of searched terms (post_cache.c);
 *   - vc: the vectors of recently scanned users, with a spare buffer and a
 *     memo of the users too big to hold (vec_cache.c).
 * This connection's writes keep them true row by row (event_put,
 * event_ctx_append, vec_put).  Three events make them untrue as a whole,
 * and each drops them through am__sqlite_caches_drop, the one place that
 * does:
 *   - a rollback (sq_rollback): the rows inserted in the transaction never
 *     existed, and their row ids come back;
 *   - a forget (forget.c): rows are deleted;
 *   - another connection's commit, seen as a new PRAGMA data_version by
 *     am__sqlite_caches_current, which every read that uses the caches
 *     asks first, in its snapshot.
 * The vector cache keeps what stays true: after a rollback it drops only
 * the entries appended to in the transaction, after a forget only the
 * forgotten user's; and it reads PRAGMA data_version itself on each load
 * (am__vc_get), so another connection's commit is left to it.
 */
#include "store/sqlite/sqlite_int.h"

void am__sqlite_caches_drop(sq_store *s, am__sqlite_drop why, const char *uid)
{
    if (why == AM__DROP_ROLLBACK) am__vc_txn_end(s->vc, 0);
    else if (why == AM__DROP_FORGET) am__vc_clear(s->vc, uid);
    am__fts_lens_clear(s->lens);
    am__rowcache_clear(s->rows); /* an insert undone: its rowid can come back */
    am__post_clear(s->post);
}

/* The row lengths, rows and lists held are true unless another connection
 * has committed since they were read (PRAGMA data_version): else dropped.
 * Every read that uses one of them asks first, in its snapshot (a read of
 * several, search_begin .. search_end, once). */
int am__sqlite_caches_current(sq_store *s)
{
    if (s->search_checked) return AM_OK; /* in a search that checked at its start */
    sqlite3_stmt *dv = stmt(s, "PRAGMA data_version");
    if (!dv) return AM_BACKEND;
    int64_t version = sqlite3_step(dv) == SQLITE_ROW ? sqlite3_column_int64(dv, 0) : -2;
    done(s, dv);
    if (version != s->data_version) {
        am__sqlite_caches_drop(s, AM__DROP_OTHER_COMMIT, NULL);
        s->data_version = version;
    }
    return AM_OK;
}
