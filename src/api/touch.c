/* SPDX-License-Identifier: Apache-2.0 */
/*
 * touch.c -- a recall's access feedback (the items it showed get one
 * more hit and a new last access) without ever making the recall wait or
 * fail for the write lock.
 *
 * The recall reads in its own snapshot and needs no lock; its touches are a
 * write.  They are tried without waiting (try_begin): when another
 * connection holds the write lock they are kept in the handle (at most
 * AM__TOUCH_KEEP; more are dropped) and written inside the handle's next
 * write transaction -- an add, the next recall's touches, or one last try
 * without waiting at am_close.  Kept touches are removed only once a
 * transaction that wrote them committed, so a rolled-back add writes them
 * again next time.  A touch carries its own time and never moves an item's
 * last access back (items.c), so a late touch ranks as an early one would
 * have.  Heat is advisory: a touch dropped (the list full, the handle
 * closed while the lock was taken) makes an item's score a little lower,
 * never a recall wrong.  Forgetting a user drops their kept touches.
 */
#include <string.h>

#include "api/db_int.h"

#define AM__TOUCH_KEEP 256

struct am__touches {
    size_t n, written; /* written: the first ones, in the open transaction */
    struct {
        char uid[AM_ID_MAX + 1];
        char lineage[AM_ID_MAX + 1];
        am_time at;
    } t[AM__TOUCH_KEEP];
};

int am__touch_flush(am_db *db)
{
    am__touches *k = db->touches;
    if (!k || !k->n) return AM_OK;
    k->written = 0;
    int rc = AM_OK;
    for (size_t i = 0; i < k->n && !rc; i++) {
        am__dbcache_note(db->cache, k->t[i].uid); /* heat moves what a recall shows */
        rc = db->store->vt->item_touch(db->store, k->t[i].uid, k->t[i].lineage, k->t[i].at);
    }
    if (!rc) k->written = k->n;
    return rc;
}

int am__touch_lock_writers(am_db *db, const char *const *uids, size_t n)
{
    am__store *s = db->store;
    if (!s->vt->lock_users) return AM_OK;
    enum { MAX = 64 };
    const char *all[MAX];
    size_t k = 0;
    for (size_t i = 0; i < n && k < MAX; i++) all[k++] = uids[i];
    am__touches *t = db->touches;
    for (size_t i = 0; t && i < t->n && k < MAX; i++) all[k++] = t->t[i].uid;
    return s->vt->lock_users(s, all, k);
}

void am__touch_committed(am_db *db)
{
    am__touches *k = db->touches;
    if (!k || !k->written) return;
    memmove(&k->t[0], &k->t[k->written], (k->n - k->written) * sizeof k->t[0]);
    k->n -= k->written;
    k->written = 0;
}

static void keep(am_db *db, const char *uid, const char *const *lineages, size_t n, am_time at)
{
    if (!db->touches && !(db->touches = am__calloc(&db->alloc, sizeof *db->touches))) {
        am__db_log(db, AM_LOG_DEBUG, "recall: %zu heat touches dropped (out of memory)", n);
        return;
    }
    am__touches *k = db->touches;
    size_t dropped = 0;
    for (size_t i = 0; i < n; i++) {
        size_t lu = strlen(uid), ll = strlen(lineages[i]);
        if (k->n == AM__TOUCH_KEEP || lu > AM_ID_MAX || ll > AM_ID_MAX) {
            dropped++;
            continue;
        }
        memcpy(k->t[k->n].uid, uid, lu + 1);
        memcpy(k->t[k->n].lineage, lineages[i], ll + 1);
        k->t[k->n].at = at;
        k->n++;
    }
    am__db_log(db, AM_LOG_DEBUG, "recall: write lock busy: %zu heat touches deferred (%zu kept)%s",
               n - dropped, k->n, dropped ? ", some dropped" : "");
}

/* One write transaction, not waited for: the kept touches and these. */
static int write_now(am_db *db, const char *uid, const char *const *lineages, size_t n, am_time at)
{
    am__store *s = db->store;
    int rc = s->vt->try_begin(s);
    if (rc) return rc;
    rc = am__touch_flush(db);
    if (n) am__dbcache_note(db->cache, uid);
    for (size_t i = 0; i < n && !rc; i++) rc = s->vt->item_touch(s, uid, lineages[i], at);
    if (!rc) rc = s->vt->commit(s);
    am__dbcache_flush(db->cache);
    if (rc) {
        s->vt->rollback(s);
        if (db->touches) db->touches->written = 0;
        return rc;
    }
    am__touch_committed(db);
    return AM_OK;
}

void am__touch_items(am_db *db, const char *uid, const char *const *lineages, size_t n,
                     am_time at)
{
    if (n == 0) return;
    int rc = write_now(db, uid, lineages, n, at);
    if (rc == AM_OK) return;
    if (rc != AM_BUSY)
        am__db_log(db, AM_LOG_WARN, "recall: heat touches not written now (%s): %s",
                   am_errstr(rc), db->store->vt->errmsg(db->store));
    keep(db, uid, lineages, n, at);
}

void am__touch_close(am_db *db)
{
    am__touches *k = db->touches;
    if (!k) return;
    if (k->n && db->store && write_now(db, "", NULL, 0, 0) != AM_OK)
        am__db_log(db, AM_LOG_DEBUG, "close: write lock busy: %zu heat touches dropped", k->n);
    am__free(&db->alloc, k);
    db->touches = NULL;
}

void am__touch_drop(am_db *db, const char *uid)
{
    am__touches *k = db->touches;
    if (!k) return;
    size_t w = 0;
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->t[i].uid, uid) != 0) k->t[w++] = k->t[i];
    k->n = w;
    k->written = 0;
}
