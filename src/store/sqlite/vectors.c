/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vectors.c -- event vectors: stored int8 with a scale, packed a block of
 * VEC_BLOCK to a row with their sign bits (schema v5, v6), scanned in C
 * against a query (exactly, or by sign bits first for a user with many),
 * and the re-embedding queries (vec_missing).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "store/sqlite/sqlite_int.h"

/* Packed vectors (schema v5).  A block holds up to VEC_BLOCK vectors of
 * one (user, embedder, dim): rids (n x int64) and scales (n x float32),
 * little-endian, and vecs (n x dim int8, row-major).  Each vector also
 * keeps its event_vectors row (vec empty, block set).  New vectors are
 * rows of the tail (block NULL); vec_put packs the tail of its
 * (user, embedder, dim) when it holds VEC_BLOCK, in the same transaction,
 * so a write stays a row and a block is written once per VEC_BLOCK
 * writes.  A replaced packed vector (re-embedding) unpacks its block back
 * into the tail; a forgotten one is cut out of its block, which is
 * rewritten in place (secure_delete zeroes the old pages). */
#define VEC_BLOCK 128
#define VEC_BLOCK_SQL "128"

static void put_le64(unsigned char *p, int64_t v)
{
    uint64_t u = (uint64_t)v;
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(u >> (8 * i));
}

static int64_t get_le64(const unsigned char *p)
{
    uint64_t u = 0;
    for (int i = 0; i < 8; i++) u |= (uint64_t)p[i] << (8 * i);
    return (int64_t)u;
}

static void put_lef32(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(u >> (8 * i));
}

static float get_lef32(const unsigned char *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                 (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* The columns n, rids, scales, vecs at i.. of a vector_blocks row: 1 when
 * their sizes agree with each other and with dim (*n set), else 0. */
static int block_cols(sqlite3_stmt *st, int i, int dim, int *n, const unsigned char **rids,
                      const unsigned char **scales, const signed char **vecs)
{
    int64_t k = sqlite3_column_int64(st, i);
    *rids = sqlite3_column_blob(st, i + 1);
    *scales = sqlite3_column_blob(st, i + 2);
    *vecs = sqlite3_column_blob(st, i + 3);
    if (k <= 0 || k > VEC_BLOCK || dim <= 0 || !*rids || !*scales || !*vecs ||
        sqlite3_column_bytes(st, i + 1) != 8 * k || sqlite3_column_bytes(st, i + 2) != 4 * k ||
        (int64_t)sqlite3_column_bytes(st, i + 3) != k * dim)
        return 0;
    *n = (int)k;
    return 1;
}

int am__sqlite_vec_each(sqlite3 *db, const char *uid, const char *embedder, int dim,
                        int bits_only, am__vec_fn fn, void *ctx, char *err, size_t errlen)
{
    static const char *const sql[3] = {
        "SELECT block, n, rids, scales, vecs FROM vector_blocks"
        " WHERE user_id=?1 AND embedder=?2 AND dim=?3",
        "SELECT event_rid, scale, vec FROM event_vectors INDEXED BY event_vectors_tail"
        " WHERE user_id=?1 AND embedder=?2 AND dim=?3 AND block IS NULL",
        /* bits only: the int8 vectors are not read (a block without its
         * bits row, which v6 fills, gives them to compute the bits) */
        "SELECT b.block, b.n, b.rids, b.scales, x.bits,"
        "       CASE WHEN x.bits IS NULL THEN b.vecs END"
        " FROM vector_blocks b LEFT JOIN vector_bits x ON x.block = b.block"
        " WHERE b.user_id=?1 AND b.embedder=?2 AND b.dim=?3",
    };
    int out = AM_OK;
    size_t nb = (size_t)AM__VBITS(dim > 0 ? dim : 0);
    unsigned char bits[AM__VBITS(4096)];
    if (dim <= 0 || dim > 4096) return AM_MISUSE;
    for (int part = 0; part < 2 && out == AM_OK; part++) {
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(db, sql[part == 0 && bits_only ? 2 : part], -1, &st, NULL);
        if (rc != SQLITE_OK) {
            if (err) snprintf(err, errlen, "sqlite: vectors: %s", sqlite3_errmsg(db));
            return (rc & 0xff) == SQLITE_NOMEM ? AM_NOMEM : AM_BACKEND;
        }
        sqlite3_bind_text(st, 1, uid, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, embedder, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, dim);
        while (out == AM_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
            if (part == 1) {
                const signed char *v = sqlite3_column_blob(st, 2);
                if (!v || sqlite3_column_bytes(st, 2) != dim) continue;
                am__vec_item it = {sqlite3_column_int64(st, 0),
                                   (float)sqlite3_column_double(st, 1), v, NULL, 0};
                out = fn(ctx, &it);
                continue;
            }
            int n;
            const unsigned char *rids, *scales, *bitv = NULL;
            const signed char *vecs;
            int64_t block = sqlite3_column_int64(st, 0);
            int ok;
            if (bits_only) {
                /* block_cols' checks, with the bits (or, when its bits row
                 * is missing, the vectors to compute them from) */
                int64_t k = sqlite3_column_int64(st, 1);
                rids = sqlite3_column_blob(st, 2);
                scales = sqlite3_column_blob(st, 3);
                bitv = sqlite3_column_blob(st, 4);
                vecs = bitv ? NULL : sqlite3_column_blob(st, 5);
                ok = k > 0 && k <= VEC_BLOCK && rids && scales && (bitv || vecs) &&
                     sqlite3_column_bytes(st, 2) == 8 * k && sqlite3_column_bytes(st, 3) == 4 * k &&
                     (bitv ? (int64_t)sqlite3_column_bytes(st, 4) == k * (int64_t)nb
                           : (int64_t)sqlite3_column_bytes(st, 5) == k * dim);
                n = (int)k;
                if (ok && !bitv) {
                    for (int j = 0; j < n && out == AM_OK; j++) {
                        am__vec_bits(vecs + (size_t)j * (size_t)dim, dim, bits);
                        am__vec_item it = {get_le64(rids + 8 * j), get_lef32(scales + 4 * j),
                                           NULL, bits, block << 8 | j};
                        out = fn(ctx, &it);
                    }
                    continue;
                }
            } else {
                ok = block_cols(st, 1, dim, &n, &rids, &scales, &vecs);
            }
            if (!ok) {
                if (err)
                    snprintf(err, errlen, "sqlite: vectors: packed block %" PRId64
                             " is malformed (sizes do not match its count and width)",
                             (int64_t)sqlite3_column_int64(st, 0));
                out = AM_CORRUPT;
                break;
            }
            for (int k = 0; k < n && out == AM_OK; k++) {
                am__vec_item it = {get_le64(rids + 8 * k), get_lef32(scales + 4 * k),
                                   vecs ? vecs + (size_t)k * (size_t)dim : NULL,
                                   bitv ? bitv + (size_t)k * nb : NULL, block << 8 | k};
                out = fn(ctx, &it);
            }
        }
        if (out == AM_OK && rc != SQLITE_DONE) {
            if (err) snprintf(err, errlen, "sqlite: vectors: %s", sqlite3_errmsg(db));
            out = (rc & 0xff) == SQLITE_NOMEM ? AM_NOMEM
                  : (rc & 0xff) == SQLITE_CORRUPT ? AM_CORRUPT : AM_BACKEND;
        }
        sqlite3_finalize(st);
    }
    return out;
}

/* A block's sign bits (schema v6), written with the block. */
static int bits_put(sq_store *s, int64_t block, const unsigned char *bits, size_t len,
                    const char *what)
{
    sqlite3_stmt *st = stmt(s, "INSERT OR REPLACE INTO vector_bits(block, bits) VALUES(?,?)");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, block);
    sqlite3_bind_blob(st, 2, bits, (int)len, SQLITE_STATIC);
    return run(s, st, what);
}

/* The bits of every block that has none (blocks packed before v6). */
int am__sqlite_vec_bits_fill(sq_store *s)
{
    sqlite3_stmt *st = stmt(s, "SELECT b.block FROM vector_blocks b"
                               " WHERE NOT EXISTS (SELECT 1 FROM vector_bits x WHERE x.block = b.block)");
    if (!st) return AM_BACKEND;
    am__arena ar;
    am__arena_init(&ar, s->a);
    int64_t *blocks = NULL;
    size_t nbk = 0, cap = 0;
    int rc = AM_OK, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t *x = push(&ar, (void **)&blocks, &nbk, &cap, sizeof *x);
        if (!x) { rc = AM_NOMEM; break; }
        *x = sqlite3_column_int64(st, 0);
    }
    if (!rc && step != SQLITE_DONE) rc = fail(s, step, "vector bits");
    done(s, st);
    unsigned char bits[VEC_BLOCK * AM__VBITS(4096)];
    for (size_t i = 0; i < nbk && !rc; i++) {
        st = stmt(s, "SELECT dim, n, rids, scales, vecs FROM vector_blocks WHERE block=?");
        if (!st) { rc = AM_BACKEND; break; }
        sqlite3_bind_int64(st, 1, blocks[i]);
        if ((step = sqlite3_step(st)) != SQLITE_ROW) {
            rc = step == SQLITE_DONE ? AM_OK : fail(s, step, "vector bits");
            done(s, st);
            continue;
        }
        int dim = sqlite3_column_int(st, 0), n;
        const unsigned char *rids, *scales;
        const signed char *vecs;
        if (dim <= 0 || dim > 4096 || !block_cols(st, 1, dim, &n, &rids, &scales, &vecs)) {
            snprintf(s->err, sizeof s->err, "sqlite: vector bits: block %" PRId64 " is malformed",
                     blocks[i]);
            rc = AM_CORRUPT;
            done(s, st);
            break;
        }
        size_t nb = (size_t)AM__VBITS(dim);
        for (int k = 0; k < n; k++) am__vec_bits(vecs + (size_t)k * (size_t)dim, dim, bits + (size_t)k * nb);
        done(s, st);
        rc = bits_put(s, blocks[i], bits, (size_t)n * nb, "vector bits");
    }
    am__arena_free(&ar);
    return rc;
}

/* Pack the tail of (uid, embedder, dim), VEC_BLOCK vectors a block in
 * row id order, while it holds that many. */
static int vec_pack(sq_store *s, const char *uid, const char *embedder, int dim)
{
    size_t nb = (size_t)AM__VBITS(dim);
    size_t bytes = (size_t)VEC_BLOCK * (8 + 4 + (size_t)dim + nb);
    unsigned char *buf = NULL;
    int rc = AM_OK;
    for (;;) {
        sqlite3_stmt *st = stmt(s, "SELECT event_rid, scale, vec FROM event_vectors INDEXED BY event_vectors_tail"
                                   " WHERE user_id=?1 AND embedder=?2 AND dim=?3 AND block IS NULL"
                                   " ORDER BY event_rid LIMIT " VEC_BLOCK_SQL);
        if (!st) { rc = AM_BACKEND; break; }
        if (!buf && !(buf = am__malloc(s->a, bytes))) { rc = AM_NOMEM; break; }
        unsigned char *rids = buf, *scales = buf + 8 * VEC_BLOCK, *vecs = scales + 4 * VEC_BLOCK;
        unsigned char *bits = vecs + (size_t)VEC_BLOCK * (size_t)dim;
        bind_text(st, 1, uid);
        bind_text(st, 2, embedder);
        sqlite3_bind_int(st, 3, dim);
        int n = 0, step;
        int64_t lo = 0, hi = 0;
        while ((step = sqlite3_step(st)) == SQLITE_ROW) {
            const void *v = sqlite3_column_blob(st, 2);
            if (!v || sqlite3_column_bytes(st, 2) != dim) {
                snprintf(s->err, sizeof s->err,
                         "sqlite: pack vectors: event %" PRId64 " has a vector of %d bytes, not %d",
                         (int64_t)sqlite3_column_int64(st, 0), sqlite3_column_bytes(st, 2), dim);
                rc = AM_CORRUPT;
                break;
            }
            hi = sqlite3_column_int64(st, 0);
            if (n == 0) lo = hi;
            put_le64(rids + 8 * n, hi);
            put_lef32(scales + 4 * n, (float)sqlite3_column_double(st, 1));
            memcpy(vecs + (size_t)n * (size_t)dim, v, (size_t)dim);
            n++;
        }
        if (!rc && step != SQLITE_DONE) rc = fail(s, step, "pack vectors");
        done(s, st);
        if (rc || n < VEC_BLOCK) break;
        st = stmt(s, "INSERT INTO vector_blocks(user_id, embedder, dim, n, rids, scales, vecs)"
                     " VALUES(?,?,?,?,?,?,?)");
        if (!st) { rc = AM_BACKEND; break; }
        bind_text(st, 1, uid);
        bind_text(st, 2, embedder);
        sqlite3_bind_int(st, 3, dim);
        sqlite3_bind_int(st, 4, n);
        sqlite3_bind_blob(st, 5, rids, 8 * n, SQLITE_STATIC);
        sqlite3_bind_blob(st, 6, scales, 4 * n, SQLITE_STATIC);
        sqlite3_bind_blob(st, 7, vecs, n * dim, SQLITE_STATIC);
        if ((rc = run(s, st, "pack vectors"))) break;
        int64_t block = sqlite3_last_insert_rowid(s->db);
        for (int k = 0; k < n; k++)
            am__vec_bits((const signed char *)vecs + (size_t)k * (size_t)dim, dim, bits + (size_t)k * nb);
        if ((rc = bits_put(s, block, bits, (size_t)n * nb, "pack vectors"))) break;
        /* the n smallest row ids of the tail: exactly its rows in [lo, hi] */
        st = stmt(s, "UPDATE event_vectors SET block=?4, vec=x''"
                     " WHERE user_id=?1 AND embedder=?2 AND event_rid BETWEEN ?5 AND ?6"
                     " AND dim=?3 AND block IS NULL");
        if (!st) { rc = AM_BACKEND; break; }
        bind_text(st, 1, uid);
        bind_text(st, 2, embedder);
        sqlite3_bind_int(st, 3, dim);
        sqlite3_bind_int64(st, 4, block);
        sqlite3_bind_int64(st, 5, lo);
        sqlite3_bind_int64(st, 6, hi);
        if ((rc = run(s, st, "pack vectors"))) break;
        if (sqlite3_changes(s->db) != n) {
            snprintf(s->err, sizeof s->err, "sqlite: pack vectors: %d of %d rows marked",
                     sqlite3_changes(s->db), n);
            rc = AM_CORRUPT;
            break;
        }
    }
    am__free(s->a, buf);
    return rc;
}

/* Pack every tail that holds a block (the v5 migration, am_optimize). */
int am__sqlite_vec_pack_all(sq_store *s)
{
    am__arena ar;
    am__arena_init(&ar, s->a);
    typedef struct group { const char *uid, *embedder; int dim; } group;
    group *g = NULL;
    size_t n = 0, cap = 0;
    sqlite3_stmt *st = stmt(s, "SELECT user_id, embedder, dim FROM event_vectors WHERE block IS NULL"
                               " GROUP BY user_id, embedder, dim HAVING count(*) >= " VEC_BLOCK_SQL);
    int rc = st ? AM_OK : AM_BACKEND, step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        group *x = push(&ar, (void **)&g, &n, &cap, sizeof *g);
        if (!x) { rc = AM_NOMEM; break; }
        x->uid = col_text(&ar, st, 0);
        x->embedder = col_text(&ar, st, 1);
        x->dim = sqlite3_column_int(st, 2);
        if (ar.oom) rc = AM_NOMEM;
    }
    if (!rc && step != SQLITE_DONE) rc = fail(s, step, "pack vectors");
    if (st) done(s, st);
    for (size_t i = 0; i < n && !rc; i++) rc = vec_pack(s, g[i].uid, g[i].embedder, g[i].dim);
    am__arena_free(&ar);
    return rc;
}

/* Move a block's vectors back into the tail and delete it. */
static int vec_unpack(sq_store *s, int64_t block)
{
    sqlite3_stmt *st = stmt(s, "SELECT user_id, embedder, dim, n, rids, scales, vecs"
                               " FROM vector_blocks WHERE block=?");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, block);
    int step = sqlite3_step(st), rc = AM_OK;
    if (step == SQLITE_ROW) {
        const char *uid = (const char *)sqlite3_column_text(st, 0);
        const char *embedder = (const char *)sqlite3_column_text(st, 1);
        int dim = sqlite3_column_int(st, 2), n;
        const unsigned char *rids, *scales;
        const signed char *vecs;
        if (!uid || !embedder || !block_cols(st, 3, dim, &n, &rids, &scales, &vecs)) {
            snprintf(s->err, sizeof s->err, "sqlite: unpack vectors: block %" PRId64 " is malformed",
                     block);
            rc = AM_CORRUPT;
        }
        for (int k = 0; !rc && k < n; k++) {
            sqlite3_stmt *up = stmt(s, "UPDATE event_vectors SET vec=?4, block=NULL"
                                       " WHERE user_id=?1 AND embedder=?2 AND event_rid=?3 AND block=?5");
            if (!up) { rc = AM_BACKEND; break; }
            bind_text(up, 1, uid);
            bind_text(up, 2, embedder);
            sqlite3_bind_int64(up, 3, get_le64(rids + 8 * k));
            sqlite3_bind_blob(up, 4, vecs + (size_t)k * (size_t)dim, dim, SQLITE_STATIC);
            sqlite3_bind_int64(up, 5, block);
            rc = run(s, up, "unpack vectors");
        }
    } else if (step != SQLITE_DONE) {
        rc = fail(s, step, "unpack vectors");
    }
    done(s, st);
    if (rc) return rc;
    st = stmt(s, "DELETE FROM vector_blocks WHERE block=?");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, block);
    return run(s, st, "unpack vectors");
}

/* Cut the vectors of the events in temp.am_forget out of the user's
 * blocks: each block holding one is rewritten without them (deleted when
 * none is left).  Their event_vectors rows go with the events. */
int am__sqlite_vec_forget_packed(sq_store *s, const char *uid)
{
    am__arena ar;
    am__arena_init(&ar, s->a);
    int64_t *blocks = NULL;
    size_t nb = 0, cap = 0;
    sqlite3_stmt *st = stmt(s, "SELECT DISTINCT v.block FROM temp.am_forget f"
                               " JOIN event_vectors v ON v.event_rid = f.rid"
                               " WHERE v.user_id=?1 AND v.block IS NOT NULL");
    int rc = st ? AM_OK : AM_BACKEND, step = SQLITE_DONE;
    if (st) bind_text(st, 1, uid);
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t *b = push(&ar, (void **)&blocks, &nb, &cap, sizeof *b);
        if (!b) rc = AM_NOMEM;
        else *b = sqlite3_column_int64(st, 0);
    }
    if (!rc && step != SQLITE_DONE) rc = fail(s, step, "forget vectors");
    if (st) done(s, st);
    unsigned char *buf = NULL;
    for (size_t i = 0; i < nb && !rc; i++) {
        st = stmt(s, "SELECT dim, n, rids, scales, vecs FROM vector_blocks WHERE block=?1 AND user_id=?2");
        if (!st) { rc = AM_BACKEND; break; }
        sqlite3_bind_int64(st, 1, blocks[i]);
        bind_text(st, 2, uid);
        if ((step = sqlite3_step(st)) != SQLITE_ROW) {
            rc = step == SQLITE_DONE ? AM_OK : fail(s, step, "forget vectors");
            done(s, st);
            continue;
        }
        int dim = sqlite3_column_int(st, 0), n, m = 0;
        const unsigned char *rids, *scales;
        const signed char *vecs;
        if (!block_cols(st, 1, dim, &n, &rids, &scales, &vecs)) {
            snprintf(s->err, sizeof s->err, "sqlite: forget vectors: block %" PRId64 " is malformed",
                     blocks[i]);
            rc = AM_CORRUPT;
            done(s, st);
            break;
        }
        am__free(s->a, buf);
        buf = am__malloc(s->a, (size_t)n * (12 + (size_t)dim + (size_t)AM__VBITS(dim)));
        if (!buf) { rc = AM_NOMEM; done(s, st); break; }
        unsigned char *nr = buf, *ns = buf + 8 * (size_t)n;
        signed char *nv = (signed char *)(ns + 4 * (size_t)n);
        for (int k = 0; k < n && !rc; k++) {
            sqlite3_stmt *q = stmt(s, "SELECT 1 FROM temp.am_forget WHERE rid=?");
            if (!q) { rc = AM_BACKEND; break; }
            sqlite3_bind_int64(q, 1, get_le64(rids + 8 * k));
            int gone = sqlite3_step(q);
            done(s, q);
            if (gone == SQLITE_ROW) continue;
            if (gone != SQLITE_DONE) { rc = fail(s, gone, "forget vectors"); break; }
            memcpy(nr + 8 * m, rids + 8 * k, 8);
            memcpy(ns + 4 * m, scales + 4 * k, 4);
            memcpy(nv + (size_t)m * (size_t)dim, vecs + (size_t)k * (size_t)dim, (size_t)dim);
            m++;
        }
        done(s, st);
        if (rc) break;
        st = m ? stmt(s, "UPDATE vector_blocks SET n=?2, rids=?3, scales=?4, vecs=?5 WHERE block=?1")
               : stmt(s, "DELETE FROM vector_blocks WHERE block=?1");
        if (!st) { rc = AM_BACKEND; break; }
        sqlite3_bind_int64(st, 1, blocks[i]);
        if (m) {
            sqlite3_bind_int(st, 2, m);
            sqlite3_bind_blob(st, 3, nr, 8 * m, SQLITE_STATIC);
            sqlite3_bind_blob(st, 4, ns, 4 * m, SQLITE_STATIC);
            sqlite3_bind_blob(st, 5, nv, m * dim, SQLITE_STATIC);
        }
        if ((rc = run(s, st, "forget vectors")) || !m) continue;
        unsigned char *nbits = (unsigned char *)nv + (size_t)m * (size_t)dim;
        size_t bb = (size_t)AM__VBITS(dim);
        for (int k = 0; k < m; k++)
            am__vec_bits(nv + (size_t)k * (size_t)dim, dim, nbits + (size_t)k * bb);
        rc = bits_put(s, blocks[i], nbits, (size_t)m * bb, "forget vectors");
    }
    am__free(s->a, buf);
    am__arena_free(&ar);
    return rc;
}

/* A held copy of a packed vector (forget with a grace period: held.c)
 * takes its values from its block, so it goes back as a tail row. */
int am__sqlite_vec_hold_packed(sq_store *s, int64_t job)
{
    am__arena ar;
    am__arena_init(&ar, s->a);
    typedef struct packed { int64_t rid, block; } packed;
    packed *p = NULL;
    size_t np = 0, cap = 0;
    sqlite3_stmt *st = stmt(s, "SELECT event_rid, block FROM held_event_vectors"
                               " WHERE held_job=?1 AND block IS NOT NULL");
    int rc = st ? AM_OK : AM_BACKEND, step = SQLITE_DONE;
    if (st) sqlite3_bind_int64(st, 1, job);
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        packed *x = push(&ar, (void **)&p, &np, &cap, sizeof *p);
        if (!x) rc = AM_NOMEM;
        else *x = (packed){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)};
    }
    if (!rc && step != SQLITE_DONE) rc = fail(s, step, "hold vectors");
    if (st) done(s, st);
    for (size_t i = 0; i < np && !rc; i++) {
        st = stmt(s, "SELECT dim, n, rids, scales, vecs FROM vector_blocks WHERE block=?1");
        if (!st) { rc = AM_BACKEND; break; }
        sqlite3_bind_int64(st, 1, p[i].block);
        int dim = 0, n = 0, k = -1;
        const unsigned char *rids = NULL, *scales = NULL;
        const signed char *vecs = NULL;
        if ((step = sqlite3_step(st)) == SQLITE_ROW) {
            dim = sqlite3_column_int(st, 0);
            if (!block_cols(st, 1, dim, &n, &rids, &scales, &vecs)) n = -1;
            for (int j = 0; j < n && k < 0; j++)
                if (get_le64(rids + 8 * j) == p[i].rid) k = j;
        } else if (step != SQLITE_DONE) {
            rc = fail(s, step, "hold vectors");
        }
        if (!rc && k < 0) {
            snprintf(s->err, sizeof s->err, "sqlite: hold vectors: block %" PRId64
                     " does not hold event %" PRId64, p[i].block, p[i].rid);
            rc = AM_CORRUPT;
        }
        sqlite3_stmt *up = rc ? NULL : stmt(s, "UPDATE held_event_vectors SET vec=?3, scale=?4, block=NULL"
                                              " WHERE held_job=?1 AND event_rid=?2");
        if (!rc && !up) rc = AM_BACKEND;
        if (!rc) {
            sqlite3_bind_int64(up, 1, job);
            sqlite3_bind_int64(up, 2, p[i].rid);
            sqlite3_bind_blob(up, 3, vecs + (size_t)k * (size_t)dim, dim, SQLITE_TRANSIENT);
            sqlite3_bind_double(up, 4, get_lef32(scales + 4 * k));
        }
        done(s, st); /* (the blob copied by the bind) */
        if (!rc) rc = run(s, up, "hold vectors");
    }
    am__arena_free(&ar);
    return rc;
}

static int vec_put(sq_store *s, const char *uid, int64_t rid, const char *embedder,
                   const float *v, int dim);

/* (the seq moves its rows' triggers made, measured for feed.c) */
int am__sqlite_vec_put(am__store *b, const char *uid, int64_t rid, const char *embedder,
                       const float *v, int dim)
{
    sq_store *s = SQ(b);
    int64_t before = 0, after = 0;
    int rc = am__sqlite_caches_writing(s, uid);
    int watch = !rc && am__sqlite_feed_watching(s, uid);
    if (watch) rc = am__sqlite_user_seq(s, uid, &before);
    if (!rc) rc = vec_put(s, uid, rid, embedder, v, dim);
    if (!rc && watch && !am__sqlite_user_seq(s, uid, &after))
        am__sqlite_feed_vectors(s, uid, after - before);
    return rc;
}

static int vec_put(sq_store *s, const char *uid, int64_t rid, const char *embedder,
                   const float *v, int dim)
{
    signed char q[4096];
    if (dim <= 0 || dim > (int)sizeof q) return AM_MISUSE;
    int rc;
    float mx = 0;
    for (int i = 0; i < dim; i++) mx = fabsf(v[i]) > mx ? fabsf(v[i]) : mx;
    float scale = mx > 0 ? mx / 127.0f : 1.0f;
    for (int i = 0; i < dim; i++) q[i] = (signed char)lrintf(v[i] / scale);
    /* the event's vector so far, if packed: its block goes back to the
     * tail first, so the replaced vector leaves no copy in a block */
    sqlite3_stmt *st = stmt(s, "SELECT block FROM event_vectors WHERE event_rid=? AND block IS NOT NULL");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, rid);
    int step = sqlite3_step(st);
    int64_t block = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    rc = step == SQLITE_ROW || step == SQLITE_DONE ? AM_OK : fail(s, step, "vector");
    done(s, st);
    int unpacked = !rc && step == SQLITE_ROW;
    if (unpacked) rc = vec_unpack(s, block);
    if (rc) return rc;
    st = stmt(s, "INSERT OR REPLACE INTO event_vectors(event_rid, user_id, embedder, dim, scale, vec) VALUES(?,?,?,?,?,?)");
    if (!st) return AM_BACKEND;
    sqlite3_bind_int64(st, 1, rid);
    bind_text(st, 2, uid);
    bind_text(st, 3, embedder);
    sqlite3_bind_int(st, 4, dim);
    sqlite3_bind_double(st, 5, scale);
    sqlite3_bind_blob(st, 6, q, dim, SQLITE_STATIC);
    if ((rc = run(s, st, "vector"))) return rc;
    st = stmt(s, "SELECT count(*) FROM event_vectors INDEXED BY event_vectors_tail"
                 " WHERE user_id=?1 AND embedder=?2 AND dim=?3 AND block IS NULL");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, uid);
    bind_text(st, 2, embedder);
    sqlite3_bind_int(st, 3, dim);
    step = sqlite3_step(st);
    int64_t tail = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    if (step != SQLITE_ROW) rc = fail(s, step, "vector");
    done(s, st);
    /* a block just moved back to the tail is not packed again at once
     * (each replacement in it would rewrite it): at twice the size */
    if (!rc && tail >= (unpacked ? 2 * VEC_BLOCK : VEC_BLOCK)) rc = vec_pack(s, uid, embedder, dim);
    if (rc == AM_OK)
        am__vc_put(s->vc, uid, embedder, dim, rid, (float)scale, q, !sqlite3_get_autocommit(s->db));
    return rc;
}

typedef struct vec_hit {
    int64_t rid;
    double score;
} vec_hit;

/* Keep the best `limit` hits seen so far (unordered); *worst is the index
 * of the lowest kept score once the list is full (a rejected candidate
 * costs one comparison; a replacement, one rescan). */
static void topk_offer(vec_hit *top, size_t *nt, size_t limit, size_t *worst, int64_t rid,
                       double score)
{
    if (*nt < limit) {
        top[*nt].rid = rid;
        top[(*nt)++].score = score;
        if (*nt < limit) return;
    } else if (score > top[*worst].score) {
        top[*worst].rid = rid;
        top[*worst].score = score;
    } else {
        return;
    }
    size_t w = 0;
    for (size_t j = 1; j < *nt; j++)
        if (top[j].score < top[w].score) w = j;
    *worst = w;
}

static int cmp_rid(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* A scan without the cache: each vector read (am__sqlite_vec_each) is
 * scored; with a time bound only those of the events in `allowed`. */
typedef struct scan_ctx {
    const signed char *q8;
    double qscale;
    int dim;
    vec_hit *top;
    size_t nt, limit, worst;
    const int64_t *allowed; /* sorted; NULL: every vector */
    size_t n_allowed;
} scan_ctx;

static int scan_one(void *ctx, const am__vec_item *it)
{
    scan_ctx *c = ctx;
    if (c->allowed && !bsearch(&it->rid, c->allowed, c->n_allowed, sizeof it->rid, cmp_rid))
        return AM_OK;
    double dot = (double)am__dot_i8(c->q8, it->vec, c->dim) * c->qscale * it->scale;
    topk_offer(c->top, &c->nt, c->limit, &c->worst, it->rid, dot);
    return AM_OK;
}

_Atomic unsigned long am__vec_bits_fallbacks;

/* A bits scan rescores exactly this many candidates per hit wanted (at
 * least BITS_RERANK_MIN). */
#define BITS_RERANK 4
#define BITS_RERANK_MIN 256

/* One block open for reading: its rids, and a handle on its vecs
 * (incremental blob I/O: a read copies the bytes asked for, not the whole
 * 64 KB row).  The rids are read through a handle too (cheaper than a
 * statement a block: docs/bench/README.md, vectors). */
typedef struct block_reader {
    sqlite3_blob *vecs, *rid_blob;
    int64_t block;
    int n;
    unsigned char rids[8 * VEC_BLOCK];
} block_reader;

static void block_reader_close(block_reader *br)
{
    if (br->vecs) sqlite3_blob_close(br->vecs);
    if (br->rid_blob) sqlite3_blob_close(br->rid_blob);
    br->vecs = br->rid_blob = NULL;
    br->block = 0;
}

/* Point a handle on column col of vector_blocks at a block: SQLITE_OK or
 * an error (*h closed: a failed reopen leaves it unusable). */
static int blob_at(sq_store *s, sqlite3_blob **h, const char *col, int64_t block)
{
    int rc = *h ? sqlite3_blob_reopen(*h, block)
                : sqlite3_blob_open(s->db, "main", "vector_blocks", col, block, 0, h);
    if (rc != SQLITE_OK && *h) {
        sqlite3_blob_close(*h);
        *h = NULL;
    }
    return rc;
}

/* Point br at a block: 1, or 0 when it is not there or malformed. */
static int block_reader_at(sq_store *s, block_reader *br, int64_t block, int dim)
{
    if (br->block == block && br->vecs) return 1;
    br->block = block;
    int len = 0;
    if (blob_at(s, &br->vecs, "vecs", block) != SQLITE_OK ||
        blob_at(s, &br->rid_blob, "rids", block) != SQLITE_OK ||
        (len = sqlite3_blob_bytes(br->rid_blob)) > (int)sizeof br->rids || len % 8 != 0 ||
        sqlite3_blob_read(br->rid_blob, br->rids, len, 0) != SQLITE_OK) {
        block_reader_close(br);
        return 0;
    }
    br->n = len / 8;
    if (br->n == 0 || sqlite3_blob_bytes(br->vecs) != br->n * dim) {
        block_reader_close(br);
        return 0;
    }
    return 1;
}

/* The int8 vector of rid at index k of a block: 1, or 0 when the block
 * does not hold rid there (a cache out of step). k < 0: find it. */
static int block_vec(sq_store *s, block_reader *br, int64_t block, int k, int64_t rid, int dim,
                     signed char *out)
{
    if (!block_reader_at(s, br, block, dim)) return 0;
    if (k < 0) /* a tail vector since packed: look for it */
        for (int j = 0; j < br->n && k < 0; j++)
            if (get_le64(br->rids + 8 * j) == rid) k = j;
    if (k < 0 || k >= br->n || get_le64(br->rids + 8 * k) != rid) return 0;
    return sqlite3_blob_read(br->vecs, out, dim, k * dim) == SQLITE_OK;
}

/* The int8 vector of a tail vector (loc 0 in the cache: in the tail when
 * cached, perhaps packed since): 1, or 0 when it is not there. */
static int tail_vec(sq_store *s, block_reader *br, const char *uid, const char *embedder,
                    int64_t rid, int dim, signed char *out)
{
    sqlite3_stmt *st = stmt(s, "SELECT vec, block FROM event_vectors"
                               " WHERE event_rid=?1 AND user_id=?2 AND embedder=?3 AND dim=?4");
    if (!st) return 0;
    sqlite3_bind_int64(st, 1, rid);
    bind_text(st, 2, uid);
    bind_text(st, 3, embedder);
    sqlite3_bind_int(st, 4, dim);
    int ok = 0;
    int64_t block = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const void *v = sqlite3_column_blob(st, 0);
        if (v && sqlite3_column_bytes(st, 0) == dim) {
            memcpy(out, v, (size_t)dim);
            ok = 1;
        } else if (sqlite3_column_type(st, 1) == SQLITE_INTEGER) {
            block = sqlite3_column_int64(st, 1);
        }
    }
    done(s, st);
    return ok || (block && block_vec(s, br, block, -1, rid, dim, out));
}

/* A bounded min-heap of estimates: the `want` best (ties: the earlier
 * vector), the worst at the root. */
typedef struct est_hit {
    int32_t e;
    size_t i;
} est_hit;

static int est_worse(const est_hit *a, const est_hit *b)
{
    return a->e < b->e || (a->e == b->e && a->i > b->i);
}

static void est_offer(est_hit *h, size_t *n, size_t want, int32_t e, size_t i)
{
    est_hit x = {e, i};
    size_t k;
    if (*n < want) { /* sift up */
        for (k = (*n)++; k > 0 && est_worse(&x, &h[(k - 1) / 2]); k = (k - 1) / 2) h[k] = h[(k - 1) / 2];
        h[k] = x;
        return;
    }
    if (!est_worse(&h[0], &x)) return;
    for (k = 0;;) { /* sift the new root down */
        size_t c = 2 * k + 1;
        if (c >= *n) break;
        if (c + 1 < *n && est_worse(&h[c + 1], &h[c])) c++;
        if (!est_worse(&h[c], &x)) break;
        h[k] = h[c];
        k = c;
    }
    h[k] = x;
}

typedef struct bits_cand {
    int64_t loc;
    size_t i;
} bits_cand;

static int cmp_cand(const void *a, const void *b)
{
    const bits_cand *x = a, *y = b;
    return x->loc < y->loc ? -1 : x->loc > y->loc ? 1 : (x->i > y->i) - (x->i < y->i);
}

/* A scan of a user's sign bits: the candidates with the best estimates
 * (want of them, ties by position), rescored with their int8 vectors --
 * from the cache when it holds them, else read from their blocks in block
 * order.  AM_NOTFOUND: a vector is not where the cache
 * says (the caller scans with SQL). */
static int vec_scan_bits(sq_store *s, const char *uid, const char *embedder,
                         const am__vc_view *v, const signed char *q8, double qscale, int dim,
                         size_t limit, am__arena *ar, vec_hit *top, size_t *nt)
{
    size_t nb = (size_t)AM__VBITS(dim), want = limit * BITS_RERANK;
    if (want < BITS_RERANK_MIN) want = BITS_RERANK_MIN;
    if (want > v->n) want = v->n;
    /* The estimate of q . x from x's signs: sum of q_j where x_j > 0
     * minus q_j elsewhere (asymmetric: the query keeps its values; on
     * USE-lite vectors its best 200 hold 98 % of the exact best 100, the
     * Hamming distance's 93 %).  By table: lut[j][byte] is that sum over
     * the 8 components of byte j. */
    int16_t *lut = am__arena_alloc(ar, nb * 256 * sizeof *lut);
    est_hit *heap = am__arena_alloc(ar, (want + 1) * sizeof *heap);
    bits_cand *cand = am__arena_alloc(ar, (want + 1) * sizeof *cand);
    signed char *vec = am__arena_alloc(ar, (size_t)dim);
    if (!lut || !heap || !cand || !vec) return AM_NOMEM;
    am__vec_est_lut(q8, dim, lut);
    size_t nh = 0;
    for (size_t i = 0; i < v->n; i++) est_offer(heap, &nh, want, am__vec_est(lut, v->bits + i * nb, nb), i);
    size_t nc = 0;
    for (size_t h = 0; h < nh; h++) {
        cand[nc].loc = v->loc ? v->loc[heap[h].i] : 0;
        cand[nc++].i = heap[h].i;
    }
    if (!v->vec) qsort(cand, nc, sizeof *cand, cmp_cand);
    block_reader br;
    br.vecs = br.rid_blob = NULL;
    br.block = 0;
    size_t worst = 0;
    int rc = AM_OK;
    *nt = 0;
    for (size_t c = 0; c < nc; c++) {
        size_t i = cand[c].i;
        const signed char *x = vec;
        if (v->vec) x = v->vec + i * (size_t)dim;
        else if (cand[c].loc ? !block_vec(s, &br, cand[c].loc >> 8, (int)(cand[c].loc & 0xff),
                                         v->rid[i], dim, vec)
                             : !tail_vec(s, &br, uid, embedder, v->rid[i], dim, vec)) {
            rc = AM_NOTFOUND;
            break;
        }
        double dot = (double)am__dot_i8(q8, x, dim) * qscale * v->scale[i];
        topk_offer(top, nt, limit, &worst, v->rid[i], dot);
    }
    block_reader_close(&br);
    return rc;
}

/* The scan: the vectors of one user and embedder, scored in C (the store
 * filters, the engine scores; no vector extension is needed).  A bounded top-k
 * keeps the best `limit`.  Exact (every int8 vector) for a user with at
 * most exact_max vectors (0: the store's full_max, AM__VC_FULL_MAX;
 * < 0: always), else a bits scan (vec_scan_bits) over the cache. */
static int vec_scan_run(am__store *b, const char *uid, const char *embedder, const float *qv,
                        int dim, am_time to, int limit, int exact_max, am__arena *ar,
                        am__event_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    *rows = NULL;
    *n = 0;
    if (limit <= 0) return AM_OK;
    if (dim <= 0) return AM_MISUSE;
    vec_hit *top = am__arena_alloc(ar, (size_t)limit * sizeof *top);
    if (!top) return AM_NOMEM;
    size_t nt = 0, worst = 0;
    /* The query quantised like the stored vectors: an integer dot product
     * per row (the compiler vectorises it), rescaled once. */
    signed char *q8 = am__arena_alloc(ar, (size_t)dim);
    if (!q8) return AM_NOMEM;
    float qmax = 0;
    for (int i = 0; i < dim; i++) qmax = fabsf(qv[i]) > qmax ? fabsf(qv[i]) : qmax;
    double qscale = qmax > 0 ? qmax / 127.0 : 1.0;
    for (int i = 0; i < dim; i++) q8[i] = (signed char)lrintf(qv[i] / (float)qscale);
    int rc;
    sqlite3_stmt *st;
    am__vc_view view;
    if (exact_max == 0) exact_max = (int)(s->vc_full_max < INT_MAX ? s->vc_full_max : INT_MAX);
    size_t full_max = exact_max < 0 ? SIZE_MAX
                      : (size_t)exact_max > s->vc_full_max ? (size_t)exact_max : s->vc_full_max;
    if (to == AM_TIME_NONE && (rc = am__sqlite_caches_current(s, uid))) return rc;
    if (to == AM_TIME_NONE &&
        (rc = am__vc_get_some(s->vc, s->db, uid, embedder, dim, full_max, &view)) != AM_NOTFOUND) {
        if (rc) return rc;
        if (exact_max >= 0 && view.n > (size_t)exact_max) {
            rc = vec_scan_bits(s, uid, embedder, &view, q8, qscale, dim, (size_t)limit, ar, top, &nt);
            if (rc != AM_NOTFOUND) {
                if (rc) return rc;
                goto rows;
            }
            am__vc_clear(s->vc, uid); /* out of step: the SQL scan answers */
            am__vec_bits_fallbacks++;
            nt = 0;
        } else if (view.vec) {
            for (size_t k = 0; k < view.n; k++) {
                double dot = (double)am__dot_i8(q8, view.vec + k * (size_t)dim, dim) * qscale *
                             view.scale[k];
                topk_offer(top, &nt, (size_t)limit, &worst, view.rid[k], dot);
            }
            goto rows;
        }
    }
    scan_ctx sc = {q8, qscale, dim, top, 0, (size_t)limit, 0, NULL, 0};
    if (to != AM_TIME_NONE) {
        /* the events before the bound (their row ids, sorted) */
        int64_t *ids = NULL;
        size_t cap = 0;
        st = stmt(s, "SELECT rid FROM events WHERE user_id=?1 AND occurred_at < ?2");
        if (!st) return AM_BACKEND;
        bind_text(st, 1, uid);
        bind_time(st, 2, to);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t *x = push(ar, (void **)&ids, &sc.n_allowed, &cap, sizeof *x);
            if (!x) { done(s, st); return AM_NOMEM; }
            *x = sqlite3_column_int64(st, 0);
        }
        int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "vector scan");
        done(s, st);
        if (out) return out;
        if (sc.n_allowed == 0) goto rows;
        qsort(ids, sc.n_allowed, sizeof *ids, cmp_rid);
        sc.allowed = ids;
    }
    if ((rc = am__sqlite_vec_each(s->db, uid, embedder, dim, 0, scan_one, &sc, s->err, sizeof s->err)))
        return rc;
    nt = sc.nt;
rows:;
    /* The hits' rows, in their order, a hit that is not the user's (or
     * gone) left out: from the row cache when it holds them (the search
     * that ran before has read those the two lists share), the others by
     * one statement (as a search reads its rows), not kept in the cache
     * (most are read once). */
    am__event_row *r = am__arena_alloc(ar, (nt + 1) * sizeof *r);
    int64_t *rid = am__arena_alloc(ar, (nt + 1) * sizeof *rid);
    unsigned char *found = am__arena_alloc(ar, nt + 1);
    if (!r || !rid || !found) return AM_NOMEM;
    for (size_t k = 0; k < nt; k++) rid[k] = top[k].rid;
    if ((rc = am__sqlite_rows_read(s, uid, rid, nt, ar, r, found, 0))) return rc;
    size_t m = 0;
    for (size_t k = 0; k < nt; k++)
        if (found[k] == 1) {
            r[m] = r[k];
            r[m++].score = top[k].score;
        }
    *rows = r;
    *n = m;
    return ar->oom ? AM_NOMEM : AM_OK;
}

/* The cache's version check, its load and the reads of one scan share a
 * snapshot (a read transaction of its own outside a write transaction),
 * as a search's do. */
int am__sqlite_vec_scan(am__store *b, const char *uid, const char *embedder, const float *qv,
                        int dim, am_time to, int limit, int exact_max, am__arena *ar,
                        am__event_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    int own_txn, rc = snapshot_begin(s, &own_txn, "vector scan");
    if (rc) return rc;
    rc = vec_scan_run(b, uid, embedder, qv, dim, to, limit, exact_max, ar, rows, n);
    return snapshot_end(s, own_txn, rc, "vector scan");
}

/* Re-embedding (store.h vec_missing).  An event lacks a vector when its
 * event_vectors row (unique event_rid: one per event) is absent or
 * of another embedder or dimension.  ?1 user (NULL: all), ?2 embedder,
 * ?3 dim, ?4 all languages. */
#define VEC_MISSING_WHERE                                                     \
    " (v.event_rid IS NULL OR v.embedder <> ?2 OR v.dim <> ?3)"               \
    " AND (?4 OR e.lang = 'en') AND e.type <> 'task_switch'"

static void bind_want(sqlite3_stmt *st, const char *uid, const am__vec_want *w)
{
    bind_text(st, 1, uid);
    bind_text(st, 2, w->embedder_id);
    sqlite3_bind_int(st, 3, w->dim);
    sqlite3_bind_int(st, 4, w->all_langs != 0);
}

static int missing_count(am__store *b, const char *uid, const am__vec_want *want, size_t *n,
                         int64_t *max_rid)
{
    sq_store *s = SQ(b);
    *n = 0;
    *max_rid = 0;
    /* one user: through the events_user_* index; all: one pass */
    sqlite3_stmt *st = uid ? stmt(s, "SELECT count(*), coalesce(max(e.rid), 0) FROM events e"
                                     " LEFT JOIN event_vectors v ON v.event_rid = e.rid"
                                     " WHERE e.user_id = ?1 AND" VEC_MISSING_WHERE)
                           : stmt(s, "SELECT count(*), coalesce(max(e.rid), 0) FROM events e"
                                     " LEFT JOIN event_vectors v ON v.event_rid = e.rid"
                                     " WHERE ?1 IS NULL AND" VEC_MISSING_WHERE);
    if (!st) return AM_BACKEND;
    bind_want(st, uid, want);
    int rc = sqlite3_step(st), out = AM_OK;
    if (rc == SQLITE_ROW) {
        *n = (size_t)sqlite3_column_int64(st, 0);
        *max_rid = sqlite3_column_int64(st, 1);
    } else {
        out = fail(s, rc, "vectors missing");
    }
    done(s, st);
    return out;
}

static int missing_list(am__store *b, const char *uid, const am__vec_want *want, int64_t after_rid,
                        int64_t upto_rid, int limit, am__arena *ar, am__event_row **rows, size_t *n)
{
    sq_store *s = SQ(b);
    *rows = NULL;
    *n = 0;
    /* A walk in rid order from after_rid (the rowid range, not the user
     * index: the user test stays a filter), so that the batches of one run
     * read each row once between them. */
    sqlite3_stmt *st = stmt(s, "SELECT e.rid, e.id, e.user_id, e.lang, e.content FROM events e"
                               " LEFT JOIN event_vectors v ON v.event_rid = e.rid"
                               " WHERE e.rid > ?5 AND e.rid <= ?6 AND (?1 IS NULL OR e.user_id = ?1)"
                               " AND" VEC_MISSING_WHERE " ORDER BY e.rid LIMIT ?7");
    if (!st) return AM_BACKEND;
    bind_want(st, uid, want);
    sqlite3_bind_int64(st, 5, after_rid);
    sqlite3_bind_int64(st, 6, upto_rid);
    sqlite3_bind_int(st, 7, limit);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        am__event_row *r = push(ar, (void **)rows, n, &cap, sizeof *r);
        if (!r) { done(s, st); return AM_NOMEM; }
        r->rid = sqlite3_column_int64(st, 0);
        r->id = col_text(ar, st, 1);
        r->user_id = col_text(ar, st, 2);
        r->lang = col_text(ar, st, 3);
        r->content = col_text(ar, st, 4);
        if (ar->oom) { done(s, st); return AM_NOMEM; }
    }
    int out = rc == SQLITE_DONE ? AM_OK : fail(s, rc, "vectors missing");
    done(s, st);
    return out;
}

int am__sqlite_vec_missing(am__store *b, const char *uid, const am__vec_want *want,
                           int64_t after_rid, int64_t upto_rid, int limit, am__arena *ar,
                           am__event_row **rows, size_t *n, int64_t *max_rid)
{
    if (!rows) return missing_count(b, uid, want, n, max_rid);
    return missing_list(b, uid, want, after_rid, upto_rid, limit, ar, rows, n);
}
