/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reembed.c -- am_vectors_missing, am_reembed: vectors for the events
 * written before the embedder changed.
 *
 * Vectors are tagged with their embedder's id and never compared across
 * ids, so after a switch the old events are invisible to vector recall
 * until they get a vector of the new embedder.  am_reembed walks the
 * events lacking one in rid order, AM_REEMBED_BATCH at a time: embed the
 * batch's stored (redacted) texts, then write its vectors in one
 * transaction.  The embedder runs outside the transaction (a remote one
 * may take seconds; other writers should not wait on it), so each event
 * is looked up again inside it: one forgotten meanwhile gets no vector.
 * A finished batch stays; a rerun finds only what is still missing.
 */
#include <stdio.h>
#include <string.h>

#include "api/db_int.h"

/* user_id NULL (every user), or a known user. */
static int check_user(am_db *db, const char *what, const char *user_id)
{
    if (!user_id) return AM_OK;
    const char *why = am__id_check(user_id);
    if (why) return am__db_error(db, AM_INVALID, "%s: user %s", what, why);
    int exists = am__store_user_exists(db->store, user_id);
    if (exists < 0) return am__db_store_error(db, -exists, what);
    if (!exists) return am__db_error(db, AM_NOTFOUND, "%s: unknown user %s", what, user_id);
    return AM_OK;
}

/* What the configured embedder should have: the write path's rule. */
static am__vec_want want_of(const am_db *db)
{
    am__vec_want w = {db->embedder->id, db->embedder->dim, db->embed_zh};
    return w;
}

int am_vectors_missing(am_db *db, const char *user_id, size_t *n)
{
    if (!db || !n) return AM_MISUSE;
    *n = 0;
    am__db_clear_error(db);
    int rc = check_user(db, "vectors", user_id);
    if (rc || !db->embedder) return rc;
    am__vec_want w = want_of(db);
    int64_t max_rid;
    rc = db->store->vt->vectors.vec_missing(db->store, user_id, &w, 0, 0, 0, NULL, NULL, n,
                                            &max_rid);
    if (rc) return am__db_store_error(db, rc, "vectors");
    return AM_OK;
}

/* One batch: embed rows[0..n) into vecs, then write the vectors of the
 * events still there in one transaction.  *written counts them. */
static int reembed_batch(am_db *db, am__event_row *rows, size_t n, float *vecs,
                         am__arena *ar, size_t *written)
{
    am__store *s = db->store;
    am__embedder *e = db->embedder;
    const char *texts[AM_REEMBED_BATCH] = {0};
    char eerr[256];
    int rc;
    *written = 0;
    unsigned char skip[AM_REEMBED_BATCH];
    memset(skip, 0, sizeof skip);
    for (size_t i = 0; i < n; i++) texts[i] = rows[i].content;
    if ((rc = e->embed(e, texts, n, vecs, eerr, sizeof eerr))) {
        /* One text the embedder refuses (too long for a remote model...)
         * must not stop every later run at this batch: embed one by one
         * and leave the refused ones without a vector (they stay counted
         * by am_vectors_missing).  All refused: the embedder is down. */
        size_t ok = 0;
        char first[256];
        snprintf(first, sizeof first, "%s", eerr);
        for (size_t i = 0; i < n; i++) {
            if (e->embed(e, texts + i, 1, vecs + i * (size_t)e->dim, eerr, sizeof eerr)) {
                skip[i] = 1;
                am__db_log(db, AM_LOG_WARN, "reembed: event %s left without a vector: %s",
                           rows[i].id, eerr);
            } else {
                ok++;
            }
        }
        if (ok == 0) return am__db_error(db, rc, "reembed: embedder: %s", first);
    }
    if ((rc = am__store_begin(s))) return am__db_store_error(db, rc, "reembed");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (skip[i]) continue;
        am__event_row cur;
        rc = s->vt->events.event_get(s, rows[i].user_id, AM__EVENT_BY_ID, rows[i].id, ar, &cur);
        if (rc == AM_NOTFOUND) continue; /* forgotten since the listing */
        if (rc) goto out_store;
        rc = s->vt->vectors.vec_put(s, rows[i].user_id, rows[i].rid, e->id,
                                    vecs + i * (size_t)e->dim, e->dim);
        if (rc) goto out_store;
        am__dbcache_note(db->cache, rows[i].user_id);
        k++;
    }
    if ((rc = am__store_commit(s))) goto out_store;
    am__dbcache_flush(db->cache);
    *written = k;
    return AM_OK;
out_store:
    am__db_store_error(db, rc, "reembed");
    am__store_rollback(s);
    return rc;
}

int am_reembed(am_db *db, const char *user_id, am_progress_fn progress, void *ctx,
               size_t *n_embedded)
{
    if (!db) return AM_MISUSE;
    if (n_embedded) *n_embedded = 0;
    am__db_clear_error(db);
    if (!db->embedder)
        return am__db_error(db, AM_MISUSE,
                            "reembed: no embedder is configured (set am_config.embedder: "
                            "use-lite, w2v:PATH or openai:MODEL@URL)");
    int rc = check_user(db, "reembed", user_id);
    if (rc) return rc;
    am__store *s = db->store;
    am__vec_want w = want_of(db);
    size_t total, done = 0, embedded = 0;
    int64_t upto, after = INT64_MIN;
    if ((rc = s->vt->vectors.vec_missing(s, user_id, &w, 0, 0, 0, NULL, NULL, &total, &upto)))
        return am__db_store_error(db, rc, "reembed");
    if (total == 0) return AM_OK;
    float *vecs = am__malloc(&db->alloc, (size_t)AM_REEMBED_BATCH * (size_t)w.dim * sizeof *vecs);
    if (!vecs) return am__db_error(db, AM_NOMEM, "reembed: out of memory");
    if (progress) progress(ctx, 0, total);
    for (;;) {
        am__arena ar;
        am__arena_init(&ar, &db->alloc);
        am__event_row *rows;
        size_t n, written = 0;
        rc = s->vt->vectors.vec_missing(s, user_id, &w, after, upto, AM_REEMBED_BATCH, &ar, &rows,
                                        &n, NULL);
        if (rc) am__db_store_error(db, rc, "reembed");
        else if (n) rc = reembed_batch(db, rows, n, vecs, &ar, &written);
        if (!rc && n) after = rows[n - 1].rid;
        am__arena_free(&ar);
        if (rc || n == 0) break;
        embedded += written;
        done += n;
        if (n_embedded) *n_embedded = embedded;
        /* the set only shrinks after the count (forgotten events, or
         * another process re-embedding) unless a deleted largest rid is
         * reused: done never passes total */
        if (done > total) total = done;
        if (progress) progress(ctx, done, total);
    }
    am__free(&db->alloc, vecs);
    return rc;
}
