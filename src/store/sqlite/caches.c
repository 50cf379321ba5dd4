/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caches.c -- what the connection holds in memory, and when it is dropped.
 *
 * A connection keeps four caches of what it read (sq_store):
 *   - lens: each scored index row's column lengths (fts_rank.c);
 *   - rows: the events rows that searches returned (row_cache.c);
 *   - post: the posting lists of searched terms (post_cache.c);
 *   - vc: the vectors of recently scanned users, with a spare buffer and a
 *     memo of the users too big to hold (vec_cache.c).
 * (A fifth, the write path's latest items of a user, has seqs of its own
 * and goes only with a rollback or a forget: item_memo.c.)
 * This connection's writes keep them true row by row (event_put,
 * event_ctx_append, vec_put).  What makes them untrue, and what then goes:
 *   - a rollback (sq_rollback): the rows inserted in the transaction never
 *     existed, and their row ids come back -- all of lens, rows and post,
 *     the vectors appended in the transaction;
 *   - a forget here (forget.c, users.c): rows are deleted -- the same, and
 *     the forgotten user's vectors;
 *   - another connection's commit.  A server runs a connection per worker
 *     and every request writes or reads: dropping everything at each
 *     foreign commit (as PRAGMA data_version alone would have it) left
 *     every recall with cold caches.  So the store records what changed,
 *     per user (schema v20, table store_changes): triggers add one to a
 *     user's seq when a row of its events, vectors or vector blocks is
 *     inserted, changed or deleted, and the context appends do it in code
 *     (events_fts is virtual: no triggers); a deleted or re-owned events
 *     row adds one to the row with the empty user id -- the epoch --
 *     since its row id can come back with another user's event.
 *     A connection keeps, per user whose data it holds, the seq it saw
 *     (the "seen" table below).  When PRAGMA data_version moved, a new
 *     epoch drops everything; else each user is checked when a read or a
 *     write of this connection first uses the user's data again: a seq
 *     that moved drops that user's lists, frequencies and vectors, and
 *     moves its lens epoch: the row lengths learned for its rows before
 *     are not known any more (a context append changes a row's; the
 *     entries are by row id, each with its user's epoch then).  Row
 *     copies stay: an events row changes only by a delete, which moves
 *     the epoch.
 * Invariants: a user with data in the caches has an entry in "seen" (its
 * reads and writes are checked first, which makes one); "seen" emptied
 * (full, a rollback, a new epoch) goes with everything held.  This
 * connection's own writes move the seq too: the transaction's users'
 * seqs are read before COMMIT (nobody else can write then) and become
 * the seen ones after it, so our own writes never drop what they kept
 * true.
 */
#include "store/sqlite/sqlite_int.h"

#include <string.h>

#define SEEN_SLOTS 1024 /* users a connection tracks; at 3/4 it starts over */

struct am__seen {
    size_t n;
    struct {
        uint64_t hash; /* 0: empty */
        int64_t seq;   /* store_changes.seq the caches hold the user at */
        int64_t dv;    /* PRAGMA data_version that seq was read at */
        uint32_t lens_epoch; /* moved by another connection's write (fts_rank.c) */
        char uid[AM_ID_MAX + 1];
    } e[SEEN_SLOTS];
};

static void seen_clear(sq_store *s)
{
    if (s->seen && s->seen->n) memset(s->seen, 0, sizeof *s->seen);
    s->tx_n = 0;
    s->tx_over = 0;
}

void am__sqlite_caches_drop(sq_store *s, am__sqlite_drop why, const char *uid)
{
    if (why == AM__DROP_ROLLBACK) am__vc_txn_end(s->vc, 0);
    else if (why == AM__DROP_FORGET) am__vc_clear(s->vc, uid);
    else am__vc_clear(s->vc, NULL); /* a new epoch: another connection deleted rows */
    if (why == AM__DROP_FORGET && uid) am__sqlite_feed_forget(s, uid); /* its text told */
    am__fts_lens_clear(s->lens);
    am__rowcache_clear(s->rows); /* an insert undone: its rowid can come back */
    am__post_clear(s->post);
    /* the latest items are checked by their own seqs (item_memo.c): only
     * a rollback (the seqs go back) or a forget here makes them untrue */
    if (why != AM__DROP_OTHER_COMMIT) am__sqlite_memo_clear(s);
    if (why != AM__DROP_FORGET) seen_clear(s); /* (a forget's own drop keeps the seqs true) */
}

void am__sqlite_caches_free(sq_store *s)
{
    am__free(s->a, s->seen);
    s->seen = NULL;
    am__sqlite_memo_free(s);
}

static uint64_t uid_hash(const char *uid)
{
    uint64_t h = am__hash64(uid, strlen(uid));
    return h ? h : 1;
}

void am__sqlite_caches_open(sq_store *s)
{
    s->seen = am__calloc(s->a, sizeof *s->seen); /* NULL: nothing kept across commits */
}

static int seen_find(struct am__seen *t, const char *uid, uint64_t h, size_t *slot)
{
    for (size_t i = am__rid_home(h, SEEN_SLOTS);; i = (i + 1) & (SEEN_SLOTS - 1)) {
        if (!t->e[i].hash || (t->e[i].hash == h && strcmp(t->e[i].uid, uid) == 0)) {
            *slot = i;
            return t->e[i].hash != 0;
        }
    }
}

/* The user's seq (0: never written; -1: no table, a store before v20). */
static int read_seq(sq_store *s, const char *uid, int64_t *seq)
{
    return am__sqlite_user_seq(s, uid, seq);
}

int am__sqlite_seq_read(sq_store *s, const char *sql, const char *uid, int64_t *seq,
                        const char *what)
{
    sqlite3_stmt *st = stmt(s, sql);
    if (!st) {
        *seq = -1;
        return AM_OK;
    }
    bind_text(st, 1, uid);
    int rc = sqlite3_step(st);
    *seq = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    done(s, st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? AM_OK : fail(s, rc, what);
}

int am__sqlite_user_seq(sq_store *s, const char *uid, int64_t *seq)
{
    return am__sqlite_seq_read(s, "SELECT seq FROM store_changes WHERE user_id = ?", uid, seq,
                               "store changes");
}

/* What the caches hold is true in this snapshot -- as a whole, and for
 * uid when given (a user's data is used only after its check).  Every
 * read that uses the caches asks first, in its snapshot, and every write
 * before it applies itself to them. */
int am__sqlite_caches_current(sq_store *s, const char *uid)
{
    int rc;
    if (!s->search_checked) { /* (a search checked at its start, same snapshot) */
        sqlite3_stmt *dv = stmt(s, "PRAGMA data_version");
        if (!dv) return AM_BACKEND;
        int64_t version = sqlite3_step(dv) == SQLITE_ROW ? sqlite3_column_int64(dv, 0) : -2;
        done(s, dv);
        if (version != s->data_version) {
            int64_t epoch;
            if ((rc = read_seq(s, "", &epoch))) return rc;
            /* -1: no table, 0: no epoch row: nothing can be kept */
            if (epoch <= 0 || epoch != s->epoch) am__sqlite_caches_drop(s, AM__DROP_OTHER_COMMIT, NULL);
            s->epoch = epoch;
            s->data_version = version;
        }
    }
    if (!uid || s->epoch <= 0) return AM_OK;
    struct am__seen *t = s->seen;
    uint64_t h = uid_hash(uid);
    size_t i;
    if (!t || strlen(uid) > AM_ID_MAX) { /* no memory, or not a user id: keep nothing */
        am__sqlite_caches_drop(s, AM__DROP_OTHER_COMMIT, NULL);
        return AM_OK;
    }
    int known = seen_find(t, uid, h, &i);
    if (known && t->e[i].dv == s->data_version) return AM_OK;
    int64_t seq;
    if ((rc = read_seq(s, uid, &seq))) return rc;
    if (known && t->e[i].seq != seq && !am__sqlite_feed_catch_up(s, uid, t->e[i].seq, seq)) {
        /* written through another connection, and not told (feed.c) */
        char tag[32];
        uid_token(uid, tag, 0);
        am__post_clear_tag(s->post, tag, strlen(tag));
        am__vc_clear(s->vc, uid);
        t->e[i].lens_epoch++; /* its rows' lengths; the others' stay */
    }
    if (!known) {
        if ((t->n + 1) * 4 > SEEN_SLOTS * 3) { /* full: start over */
            am__sqlite_caches_drop(s, AM__DROP_OTHER_COMMIT, NULL);
            seen_find(t, uid, h, &i);
        }
        t->n++;
        t->e[i].hash = h;
        memcpy(t->e[i].uid, uid, strlen(uid) + 1);
    }
    t->e[i].seq = seq;
    t->e[i].dv = s->data_version;
    return AM_OK;
}

uint32_t am__sqlite_lens_epoch(const sq_store *s, const char *uid)
{
    size_t i;
    /* unknown (no table of users): 0, and nothing was learned for it since
     * the table was emptied, which empties the lengths too */
    if (!s->seen || strlen(uid) > AM_ID_MAX || !seen_find(s->seen, uid, uid_hash(uid), &i))
        return 0;
    return s->seen->e[i].lens_epoch;
}

/* A write of uid's rows in the open transaction, about to be applied to
 * the caches: checked first; its seq is read again at commit. */
int am__sqlite_caches_writing(sq_store *s, const char *uid)
{
    int rc = am__sqlite_caches_current(s, uid);
    /* (autocommit: no COMMIT of ours to read the seq at; the next check
     * finds it moved and drops the user's data) */
    if (rc || s->epoch <= 0 || sqlite3_get_autocommit(s->db)) return rc;
    for (int i = 0; i < s->tx_n; i++)
        if (strcmp(s->tx_uid[i], uid) == 0) return AM_OK;
    if (s->tx_n == AM__TX_USERS) s->tx_over = 1;
    else snprintf(s->tx_uid[s->tx_n++], sizeof s->tx_uid[0], "%s", uid);
    am__sqlite_feed_user(s, uid); /* (its seq before this transaction) */
    return AM_OK;
}

/* Before COMMIT (the write lock held: the seqs are final): the seqs the
 * transaction's users will have. */
int am__sqlite_caches_precommit(sq_store *s)
{
    for (int i = 0; i < s->tx_n; i++) {
        int rc = read_seq(s, s->tx_uid[i], &s->tx_seq[i]);
        if (rc) return rc;
    }
    if (s->tx_n && am__sqlite_feed_capturing(s)) {
        int64_t epoch;
        int rc = read_seq(s, "", &epoch);
        if (rc) return rc;
        am__sqlite_feed_epoch(s, epoch);
    }
    return AM_OK;
}

/* After COMMIT: those are the seen ones (what the caches hold is ours). */
void am__sqlite_caches_committed(sq_store *s)
{
    struct am__seen *t = s->seen;
    am__sqlite_feed_publish(s); /* (before the drop below empties the list) */
    if (s->tx_over) am__sqlite_caches_drop(s, AM__DROP_OTHER_COMMIT, NULL);
    for (int k = 0; t && k < s->tx_n; k++) {
        size_t i;
        if (seen_find(t, s->tx_uid[k], uid_hash(s->tx_uid[k]), &i)) t->e[i].seq = s->tx_seq[k];
    }
    s->tx_n = 0;
    s->tx_over = 0;
}

/* A context append (no trigger on the index): its user's seq moves. */
int am__sqlite_user_changed(sq_store *s, const char *uid)
{
    sqlite3_stmt *st = stmt(s, "INSERT INTO store_changes(user_id, seq) VALUES(?1, 1)"
                               " ON CONFLICT(user_id) DO UPDATE SET seq = seq + 1");
    if (!st) return s->epoch < 0 ? AM_OK : AM_BACKEND; /* a store before v20 */
    bind_text(st, 1, uid);
    return run(s, st, "store changes");
}
