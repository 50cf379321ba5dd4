/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_vec_pack.c -- packed vectors (schema v5, store/sqlite/vectors.c):
 * a user's vectors are stored 128 to a vector_blocks row plus a tail of
 * per-event rows.  Through the store interface: a scan over blocks and
 * tail (cached, cold, time-bounded) equals a brute-force scan of the
 * vectors written; forgetting cuts a vector out of its block (its bytes
 * leave the file); replacing packed vectors (re-embedding) unpacks their
 * block and the missing-vector counts stay exact; a malformed block is a
 * clear error.
 */
#include "domain/forget.h"
#include "store/sqlite/sqlite_int.h"
#include "schema_undo.h"
#include "test.h"

#include <unistd.h>

#define DIM 16
#define N_EV 300 /* two blocks of 128 and a tail of 44 */
#define N_MAX 400  /* events written by test_bits_scan */
#define N_BIG 3000 /* by test_bits_scan_large */
#define LIMIT 10

static char path[128];
static am__allocator alloc;
static const char *ids[N_BIG];
static int64_t rids[N_BIG];
static size_t full_max; /* am__store_opts.vc_full_max of open_store (0: default) */
static int scan_exact = -1; /* exact_max of scan_is (-1: exact scans) */

#include "plain_alloc.h"

/* deterministic pseudo-random vectors: event k of embedder variant e */
static void vec_of(int k, int e, float *v)
{
    uint64_t x = (uint64_t)(k + 1) * 0x9E3779B97F4A7C15ull + (uint64_t)e * 0xBF58476D1CE4E5B9ull;
    for (int i = 0; i < DIM; i++) {
        x ^= x >> 31;
        x *= 0x94D049BB133111EBull;
        x ^= x >> 29;
        v[i] = (float)((int)(x % 2001) - 1000) / 1000.0f;
    }
}

static am__store *open_store(void)
{
    am__store_opts o = {&alloc, 5000, 0, full_max, 0, NULL, 0, 0};
    am__store *s = NULL;
    char err[256];
    int rc = am__store_open(path, &o, &s, err, sizeof err);
    if (rc) fprintf(stderr, "open: %s\n", err);
    CHECK_EQ_INT(rc, AM_OK);
    return s;
}

/* Events [from, to) of user u (one a minute), each with a vector of
 * embedder "A", in one transaction. */
static void add_events(am__store *s, int from, int to)
{
    CHECK_EQ_INT(am__store_begin(s), AM_OK);
    CHECK_EQ_INT(am__store_user_ensure(s, "u", 1000), AM_OK);
    static char idbuf[N_BIG][16];
    for (int k = from; k < to; k++) {
        snprintf(idbuf[k], sizeof idbuf[k], "ev%04d", k);
        ids[k] = idbuf[k];
        am__event_row e;
        memset(&e, 0, sizeof e);
        e.id = ids[k];
        e.user_id = "u";
        e.source = "user";
        e.type = "message";
        e.content = "text";
        e.lang = "en";
        e.occurred_at = 60000 * (am_time)k;
        e.ingested_at = e.occurred_at;
        CHECK_EQ_INT(s->vt->events.event_put(s, &e), AM_OK);
        rids[k] = e.rid;
        float v[DIM];
        vec_of(k, 0, v);
        CHECK_EQ_INT(s->vt->vectors.vec_put(s, "u", e.rid, "A", v, DIM), AM_OK);
    }
    CHECK_EQ_INT(am__store_commit(s), AM_OK);
}

/* A fresh store: N_EV events of user u. */
static am__store *fill(void)
{
    unlink(path);
    char wal[160];
    snprintf(wal, sizeof wal, "%s-wal", path);
    unlink(wal);
    am__store *s = open_store();
    add_events(s, 0, N_EV);
    return s;
}

/* The store's arithmetic on the vectors as written: int8 with a scale. */
static void quant(const float *v, signed char *q, double *scale)
{
    float mx = 0;
    for (int i = 0; i < DIM; i++) mx = fabsf(v[i]) > mx ? fabsf(v[i]) : mx;
    float sc = mx > 0 ? mx / 127.0f : 1.0f;
    for (int i = 0; i < DIM; i++) q[i] = (signed char)lrintf(v[i] / sc);
    *scale = sc;
}

/* Brute force: the best LIMIT of events k in [0, upto) with keep[k], by
 * the score the store computes.  Returns how many; out_rid best first. */
static size_t reference(const float *qv, int variant, int upto, const int *keep,
                        int64_t *out_rid, double *out_score)
{
    signed char q8[DIM]; /* the query: its scale in double */
    float qmax = 0;
    for (int i = 0; i < DIM; i++) qmax = fabsf(qv[i]) > qmax ? fabsf(qv[i]) : qmax;
    double qscale = qmax > 0 ? qmax / 127.0 : 1.0;
    for (int i = 0; i < DIM; i++) q8[i] = (signed char)lrintf(qv[i] / (float)qscale);
    size_t n = 0;
    for (int k = 0; k < upto; k++) {
        if (keep && !keep[k]) continue;
        float v[DIM];
        signed char q[DIM];
        double sc;
        vec_of(k, variant, v);
        quant(v, q, &sc);
        double dot = (double)am__dot_i8(q8, q, DIM) * qscale * (float)sc;
        /* insertion into the sorted top LIMIT */
        size_t at = n < LIMIT ? n : LIMIT;
        while (at > 0 && out_score[at - 1] < dot) at--;
        if (at >= LIMIT) continue;
        size_t last = n < LIMIT ? n : LIMIT - 1;
        for (size_t j = last; j > at; j--) {
            out_rid[j] = out_rid[j - 1];
            out_score[j] = out_score[j - 1];
        }
        out_rid[at] = rids[k];
        out_score[at] = dot;
        if (n < LIMIT) n++;
    }
    return n;
}

static int cmp_row(const void *a, const void *b)
{
    const am__event_row *x = a, *y = b;
    return x->score < y->score ? 1 : x->score > y->score ? -1 : 0;
}

/* The store's scan equals the reference. */
static int scan_is(am__store *s, const char *emb, const float *qv, am_time to, int variant,
                   int upto, const int *keep)
{
    am__arena ar;
    am__arena_init(&ar, &alloc);
    am__event_row *rows;
    size_t n;
    int ok = s->vt->vectors.vec_scan(s, "u", emb, qv, DIM, to, LIMIT, scan_exact, &ar, &rows, &n) ==
             AM_OK;
    int64_t want_rid[LIMIT];
    double want_score[LIMIT];
    size_t m = reference(qv, variant, upto, keep, want_rid, want_score);
    if (ok) qsort(rows, n, sizeof *rows, cmp_row);
    ok = ok && n == m;
    for (size_t i = 0; ok && i < n; i++)
        ok = rows[i].rid == want_rid[i] && rows[i].score == want_score[i];
    if (!ok && getenv("DBG"))
        for (size_t i = 0; i < n || i < m; i++)
            fprintf(stderr, "%zu: %lld %.17g | %lld %.17g\n", i, i < n ? (long long)rows[i].rid : -1LL,
                    i < n ? rows[i].score : 0.0, i < m ? (long long)want_rid[i] : -1LL, i < m ? want_score[i] : 0.0);
    am__arena_free(&ar);
    return ok;
}

static sqlite3 *raw(void)
{
    sqlite3 *db = NULL;
    CHECK_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
    return db;
}

static int64_t sql_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    else
        fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return v;
}

/* ------------------------------------------------------------- tests */

static void test_packed_scan_equals_rows(void)
{
    am__store *s = fill();
    sqlite3 *db = raw();
    CHECK_EQ_INT(sql_int(db, "SELECT count(*) FROM vector_blocks"), 2);
    CHECK_EQ_INT(sql_int(db, "SELECT sum(n) FROM vector_blocks"), 256);
    CHECK_EQ_INT(sql_int(db, "SELECT count(*) FROM event_vectors WHERE block IS NULL"), 44);
    CHECK_EQ_INT(sql_int(db, "SELECT count(*) FROM event_vectors WHERE block IS NOT NULL AND length(vec) > 0"), 0);
    sqlite3_close(db);
    for (int t = 0; t < 5; t++) {
        float qv[DIM];
        vec_of(1000 + t, 0, qv);
        CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_EV, NULL)); /* loads the cache */
        CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_EV, NULL)); /* from it */
        /* time-bounded: no cache; events before the 200th */
        CHECK(scan_is(s, "A", qv, 60000 * (am_time)200, 0, 200, NULL));
        CHECK(scan_is(s, "A", qv, 60000 * (am_time)100, 0, 100, NULL));
    }
    s->vt->close(s);
    /* a cold load in a new connection */
    s = open_store();
    float qv[DIM];
    vec_of(2000, 0, qv);
    CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_EV, NULL));
    /* another width or embedder: nothing */
    am__arena ar;
    am__arena_init(&ar, &alloc);
    am__event_row *rows;
    size_t n = 9;
    CHECK_EQ_INT(
        s->vt->vectors.vec_scan(s, "u", "B", qv, DIM, AM_TIME_NONE, LIMIT, -1, &ar, &rows, &n),
        AM_OK);
    CHECK_EQ_INT(n, 0);
    CHECK_EQ_INT(
        s->vt->vectors.vec_scan(s, "u", "A", qv, DIM - 1, AM_TIME_NONE, LIMIT, -1, &ar, &rows, &n),
        AM_OK);
    CHECK_EQ_INT(n, 0);
    am__arena_free(&ar);
    s->vt->close(s);
}

/* Does the file hold these bytes anywhere (main file and WAL)? */
static int file_has(const signed char *needle, size_t len)
{
    char wal[160];
    snprintf(wal, sizeof wal, "%s-wal", path);
    const char *files[2] = {path, wal};
    int found = 0;
    for (int f = 0; f < 2 && !found; f++) {
        FILE *fp = fopen(files[f], "rb");
        if (!fp) continue;
        fseek(fp, 0, SEEK_END);
        long size = ftell(fp);
        fseek(fp, 0, SEEK_SET);
        unsigned char *buf = malloc((size_t)size + 1);
        if (buf && fread(buf, 1, (size_t)size, fp) == (size_t)size)
            for (long i = 0; i + (long)len <= size && !found; i++)
                found = memcmp(buf + i, needle, len) == 0;
        free(buf);
        fclose(fp);
    }
    return found;
}

static void test_forget_cuts_packed_vector(void)
{
    am__store *s = fill();
    float v[DIM];
    signed char q[DIM];
    double sc;
    vec_of(5, 0, v); /* in the first block */
    quant(v, q, &sc);
    float qv[DIM];
    memcpy(qv, v, sizeof qv);
    CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_EV, NULL)); /* cached */
    CHECK(file_has(q, DIM));
    long events, items, tasks;
    CHECK_EQ_INT(am__store_begin(s), AM_OK);
    CHECK_EQ_INT(am__forget(s, "u", AM_FORGET_EVENT, ids[5], 99, &events, &items, &tasks), AM_OK);
    CHECK_EQ_INT(am__store_commit(s), AM_OK);
    CHECK_EQ_INT(events, 1);
    int keep[N_EV];
    for (int k = 0; k < N_EV; k++) keep[k] = k != 5;
    CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_EV, keep));
    CHECK(scan_is(s, "A", qv, 60000 * (am_time)250, 0, 250, keep));
    sqlite3 *db = raw();
    CHECK_EQ_INT(sql_int(db, "SELECT count(*) FROM vector_blocks"), 2);
    CHECK_EQ_INT(sql_int(db, "SELECT sum(n) FROM vector_blocks"), 255);
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM event_vectors WHERE event_rid=%" PRId64,
             rids[5]);
    CHECK_EQ_INT(sql_int(db, sql), 0);
    sqlite3_close(db);
    s->vt->close(s); /* checkpoints */
    CHECK(!file_has(q, DIM)); /* the block was rewritten, its old pages zeroed */
    /* a whole user: every block goes */
    s = open_store();
    CHECK_EQ_INT(am__store_begin(s), AM_OK);
    CHECK_EQ_INT(am__forget(s, "u", AM_FORGET_USER, NULL, 99, &events, &items, &tasks), AM_OK);
    CHECK_EQ_INT(am__store_commit(s), AM_OK);
    int more = 1;
    CHECK_EQ_INT(am__forget_work(s, 99, 0, &more), AM_OK); /* the purge, in steps */
    CHECK_EQ_INT(more, 0);
    s->vt->close(s);
    db = raw();
    CHECK_EQ_INT(sql_int(db, "SELECT count(*) FROM vector_blocks"), 0);
    CHECK_EQ_INT(sql_int(db, "SELECT count(*) FROM event_vectors"), 0);
    sqlite3_close(db);
    vec_of(200, 0, v);
    quant(v, q, &sc);
    CHECK(!file_has(q, DIM));
}

/* Re-embedding replaces packed vectors: their blocks come back to the
 * tail; the new embedder's vectors pack as they come. */
/* A forget with a grace period holds a packed vector and a tail vector
 * out of every scan; restore brings both back (the scan equals the one
 * before); the purge leaves no byte of the held vector. */
static void test_forget_grace_vectors(void)
{
    am__store *s = fill();
    float v[DIM], qv[DIM];
    signed char q[DIM];
    double sc;
    vec_of(7, 0, v); /* in the first block */
    quant(v, q, &sc);
    memcpy(qv, v, sizeof qv);
    CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_EV, NULL));
    long events, items, tasks;
    int keep[N_EV];
    for (int k = 0; k < N_EV; k++) keep[k] = k != 7 && k != N_EV - 3;
    for (int k = 0; k < 2; k++) { /* a packed one, a tail one */
        CHECK_EQ_INT(am__store_begin(s), AM_OK);
        CHECK_EQ_INT(am__forget_grace(s, "u", AM_FORGET_EVENT, ids[k ? N_EV - 3 : 7], 99, 5000,
                                      &events, &items, &tasks),
                     AM_OK);
        CHECK_EQ_INT(am__store_commit(s), AM_OK);
        CHECK_EQ_INT(events, 1);
    }
    CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_EV, keep));
    sqlite3 *db = raw();
    CHECK_EQ_INT(sql_int(db, "SELECT count(*) FROM held_event_vectors WHERE block IS NULL AND length(vec) = 16"), 2);
    CHECK_EQ_INT(sql_int(db, "SELECT sum(n) FROM vector_blocks"), 255);
    sqlite3_close(db);
    int more = 1;
    CHECK_EQ_INT(am__forget_work(s, 100, 0, &more), AM_OK); /* not due */
    for (int k = 0; k < 2; k++) {
        CHECK_EQ_INT(am__store_begin(s), AM_OK);
        CHECK_EQ_INT(
            am__forget_restore_forget(s, "u", AM_FORGET_EVENT, ids[k ? N_EV - 3 : 7], 200, &events),
            AM_OK);
        CHECK_EQ_INT(am__store_commit(s), AM_OK);
        CHECK_EQ_INT(events, 1);
    }
    CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_EV, NULL));
    CHECK(scan_is(s, "A", qv, 60000 * (am_time)250, 0, 250, NULL));
    /* forgotten again and purged at the end of the period */
    CHECK_EQ_INT(am__store_begin(s), AM_OK);
    CHECK_EQ_INT(
        am__forget_grace(s, "u", AM_FORGET_EVENT, ids[7], 300, 5000, &events, &items, &tasks),
        AM_OK);
    CHECK_EQ_INT(am__store_commit(s), AM_OK);
    CHECK_EQ_INT(am__forget_work(s, 6000, 0, &more), AM_OK);
    CHECK_EQ_INT(more, 0);
    CHECK_EQ_INT(am__store_begin(s), AM_OK);
    CHECK_EQ_INT(am__forget_restore_forget(s, "u", AM_FORGET_EVENT, ids[7], 6000, &events),
                 AM_DENIED);
    am__store_rollback(s);
    keep[N_EV - 3] = 1;
    CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_EV, keep));
    s->vt->close(s);
    CHECK(!file_has(q, DIM));
}

static void test_reembed_after_packing(void)
{
    am__store *s = fill();
    am__vec_want want_b = {"B", DIM, 1}, want_a = {"A", DIM, 1};
    size_t n;
    int64_t max_rid;
    CHECK_EQ_INT(s->vt->vectors.vec_missing(s, "u", &want_b, 0, 0, 0, NULL, NULL, &n, &max_rid),
                 AM_OK);
    CHECK_EQ_INT(n, N_EV);
    CHECK_EQ_INT(s->vt->vectors.vec_missing(s, "u", &want_a, 0, 0, 0, NULL, NULL, &n, &max_rid),
                 AM_OK);
    CHECK_EQ_INT(n, 0);
    float qv[DIM];
    vec_of(3000, 1, qv);
    CHECK(scan_is(s, "B", qv, AM_TIME_NONE, 1, 0, NULL)); /* cached, empty */
    /* the first 200 get a "B" vector, in batches of 50 (as am_reembed) */
    for (int k = 0; k < 200; k++) {
        if (k % 50 == 0) CHECK_EQ_INT(am__store_begin(s), AM_OK);
        float v[DIM];
        vec_of(k, 1, v);
        CHECK_EQ_INT(s->vt->vectors.vec_put(s, "u", rids[k], "B", v, DIM), AM_OK);
        if (k % 50 == 49) CHECK_EQ_INT(am__store_commit(s), AM_OK);
    }
    CHECK_EQ_INT(s->vt->vectors.vec_missing(s, "u", &want_b, 0, 0, 0, NULL, NULL, &n, &max_rid),
                 AM_OK);
    CHECK_EQ_INT(n, N_EV - 200);
    CHECK_EQ_INT(max_rid, rids[N_EV - 1]);
    CHECK_EQ_INT(s->vt->vectors.vec_missing(s, "u", &want_a, 0, 0, 0, NULL, NULL, &n, &max_rid),
                 AM_OK);
    CHECK_EQ_INT(n, 200);
    am__arena ar;
    am__arena_init(&ar, &alloc);
    am__event_row *rows;
    CHECK_EQ_INT(
        s->vt->vectors.vec_missing(s, "u", &want_b, 0, INT64_MAX, 1000, &ar, &rows, &n, NULL),
        AM_OK);
    CHECK_EQ_INT(n, N_EV - 200);
    if (n) CHECK_EQ_INT(rows[0].rid, rids[200]);
    am__arena_free(&ar);
    /* "B": one block and a tail of 72; "A": what is left of its own */
    sqlite3 *db = raw();
    CHECK_EQ_INT(sql_int(db, "SELECT count(*) FROM vector_blocks WHERE embedder='B'"), 1);
    CHECK_EQ_INT(sql_int(db, "SELECT count(*) FROM event_vectors WHERE embedder='B' AND block IS NULL"), 72);
    CHECK_EQ_INT(sql_int(db, "SELECT coalesce(sum(n), 0) FROM vector_blocks WHERE embedder='A'")
                     + sql_int(db, "SELECT count(*) FROM event_vectors WHERE embedder='A' AND block IS NULL"),
                 100);
    /* no block holds a vector its row does not name */
    CHECK_EQ_INT(sql_int(db, "SELECT coalesce(sum(n), 0) FROM vector_blocks")
                     - sql_int(db, "SELECT count(*) FROM event_vectors WHERE block IS NOT NULL"),
                 0);
    sqlite3_close(db);
    int keep_a[N_EV];
    for (int k = 0; k < N_EV; k++) keep_a[k] = k >= 200;
    CHECK(scan_is(s, "B", qv, AM_TIME_NONE, 1, 200, NULL));
    CHECK(scan_is(s, "B", qv, 60000 * (am_time)150, 1, 150, NULL));
    vec_of(3001, 0, qv);
    CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_EV, keep_a));
    s->vt->close(s);
    s = open_store(); /* cold */
    CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_EV, keep_a));
    /* the same vector written again (packed): still one, still found */
    float v[DIM];
    vec_of(10, 1, v);
    CHECK_EQ_INT(s->vt->vectors.vec_put(s, "u", rids[10], "B", v, DIM), AM_OK);
    vec_of(3002, 1, qv);
    CHECK(scan_is(s, "B", qv, AM_TIME_NONE, 1, 200, NULL));
    /* am_optimize packs the tails that re-embedding left long */
    CHECK_EQ_INT(am__store_optimize(s), AM_OK);
    db = raw();
    CHECK_EQ_INT(sql_int(db, "SELECT count(*) FROM event_vectors WHERE block IS NULL AND embedder='A'") < 128, 1);
    CHECK_EQ_INT(sql_int(db, "SELECT count(*) FROM event_vectors WHERE block IS NULL AND embedder='B'") < 128, 1);
    sqlite3_close(db);
    CHECK(scan_is(s, "B", qv, AM_TIME_NONE, 1, 200, NULL));
    s->vt->close(s);
}

/* A rolled-back write leaves blocks and cache as they were. */
static void test_rollback(void)
{
    am__store *s = fill();
    float qv[DIM];
    vec_of(4000, 0, qv);
    CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_EV, NULL));
    CHECK_EQ_INT(am__store_begin(s), AM_OK);
    for (int k = 0; k < 100; k++) { /* packs the tail, then unpacks a block */
        float v[DIM];
        vec_of(k, 7, v);
        CHECK_EQ_INT(s->vt->vectors.vec_put(s, "u", rids[N_EV - 1 - k], "A", v, DIM), AM_OK);
    }
    CHECK_EQ_INT(am__store_rollback(s), AM_OK);
    CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_EV, NULL));
    s->vt->close(s);
}

static void test_malformed_block(void)
{
    am__store *s = fill();
    s->vt->close(s);
    sqlite3 *db = raw();
    CHECK_EQ_INT(sqlite3_exec(db, "UPDATE vector_blocks SET n = n + 1 WHERE block = (SELECT min(block) FROM vector_blocks)",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_close(db);
    s = open_store();
    float qv[DIM];
    vec_of(5000, 0, qv);
    am__arena ar;
    am__arena_init(&ar, &alloc);
    am__event_row *rows;
    size_t n;
    CHECK_EQ_INT(
        s->vt->vectors.vec_scan(s, "u", "A", qv, DIM, AM_TIME_NONE, LIMIT, -1, &ar, &rows, &n),
        AM_CORRUPT);
    CHECK(strstr(s->vt->errmsg(s), "malformed") != NULL);
    am__arena_free(&ar);
    s->vt->close(s);
}

/* Sign bits against their definition, for widths that do and do not fill
 * whole 16-byte steps. */
static void test_sign_bits(void)
{
    for (int dim = 1; dim <= 70; dim++) {
        signed char a[70], b[70];
        for (int i = 0; i < dim; i++) {
            a[i] = (signed char)((i * 37 + dim) % 7 - 3); /* zeros too */
            b[i] = (signed char)((i * 11 + 2 * dim) % 5 - 2);
        }
        unsigned char ba[9], bb[9];
        memset(ba, 0xAA, sizeof ba);
        am__vec_bits(a, dim, ba);
        am__vec_bits(b, dim, bb);
        int ok = 1;
        for (int i = 0; i < dim; i++) {
            ok &= ((ba[i / 8] >> (i % 8)) & 1) == (a[i] > 0);
            ok &= ((bb[i / 8] >> (i % 8)) & 1) == (b[i] > 0);
        }
        for (int i = dim; i < 8 * AM__VBITS(dim); i++) ok &= ((ba[i / 8] >> (i % 8)) & 1) == 0;
        CHECK(ok);
    }
}

/* The estimate from the signs is the sum of q_j where x_j > 0 minus q_j
 * elsewhere, at every width (the four-byte steps and what is left). */
static void test_sign_estimate(void)
{
    for (int dim = 1; dim <= 70; dim++) {
        signed char q[70], x[70];
        for (int i = 0; i < dim; i++) {
            q[i] = (signed char)((i * 53 + 7 * dim) % 255 - 127);
            x[i] = (signed char)((i * 29 + dim) % 9 - 4);
        }
        int16_t lut[AM__VBITS(70) * 256];
        unsigned char bits[AM__VBITS(70)];
        am__vec_est_lut(q, dim, lut);
        am__vec_bits(x, dim, bits);
        int32_t want = 0;
        for (int i = 0; i < dim; i++) want += x[i] > 0 ? q[i] : -q[i];
        CHECK_EQ_INT(am__vec_est(lut, bits, (size_t)AM__VBITS(dim)), want);
    }
}

/* Every block has a bits row with the sign bits of its vectors. */
static int bits_match(void)
{
    sqlite3 *db = raw();
    sqlite3_stmt *st = NULL;
    int ok = sqlite3_prepare_v2(db, "SELECT b.n, b.vecs, x.bits FROM vector_blocks b"
                                    " LEFT JOIN vector_bits x ON x.block = b.block",
                                -1, &st, NULL) == SQLITE_OK;
    int blocks = 0;
    while (ok && sqlite3_step(st) == SQLITE_ROW) {
        int n = sqlite3_column_int(st, 0), nb = AM__VBITS(DIM);
        const signed char *v = sqlite3_column_blob(st, 1);
        const unsigned char *b = sqlite3_column_blob(st, 2);
        ok = v && b && sqlite3_column_bytes(st, 2) == n * nb;
        for (int k = 0; ok && k < n; k++) {
            unsigned char want[AM__VBITS(DIM)];
            am__vec_bits(v + k * DIM, DIM, want);
            ok = memcmp(want, b + k * nb, (size_t)nb) == 0;
        }
        blocks++;
    }
    sqlite3_finalize(st);
    CHECK_EQ_INT(sql_int(db, "SELECT count(*) FROM vector_bits"), blocks);
    sqlite3_close(db);
    return ok && blocks > 0;
}

/* Scans by sign bits (schema v6): with the cache holding bits only, the
 * candidates' vectors are read from their blocks (or found by row id when
 * they were in the tail at load time and packed since); the results are
 * the exact ones.  The bits follow the blocks through packing,
 * forgetting, am_optimize and the v5 -> v6 upgrade. */
static void test_bits_scan(void)
{
    full_max = 100; /* 300 vectors: the cache holds their bits only */
    scan_exact = 1; /* every scan by bits first */
    am__vec_bits_fallbacks = 0;
    am__store *s = fill();
    CHECK(bits_match());
    for (int t = 0; t < 5; t++) {
        float qv[DIM];
        vec_of(1000 + t, 0, qv);
        CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_EV, NULL)); /* loads */
        CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_EV, NULL)); /* cached */
    }
    float qv[DIM];
    vec_of(N_EV + 50, 0, qv); /* the vector of an event written below */
    CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_EV, NULL));
    /* written after the load: appended to the cache; the 44 of the tail
     * and 84 new ones are packed into a third block */
    add_events(s, N_EV, N_MAX);
    sqlite3 *db = raw();
    CHECK_EQ_INT(sql_int(db, "SELECT count(*) FROM vector_blocks"), 3);
    sqlite3_close(db);
    CHECK(bits_match());
    CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_MAX, NULL));
    for (int t = 0; t < 5; t++) {
        vec_of(1000 + t, 0, qv);
        CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_MAX, NULL));
    }
    /* forgetting rewrites a block and its bits */
    long events, items, tasks;
    CHECK_EQ_INT(am__store_begin(s), AM_OK);
    CHECK_EQ_INT(am__forget(s, "u", AM_FORGET_EVENT, ids[5], 99, &events, &items, &tasks), AM_OK);
    CHECK_EQ_INT(am__store_commit(s), AM_OK);
    int keep[N_MAX];
    for (int k = 0; k < N_MAX; k++) keep[k] = k != 5;
    vec_of(5, 0, qv);
    CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_MAX, keep));
    CHECK(bits_match());
    s->vt->close(s);
    /* blocks without bits (as a v5 store has them): scanned from their
     * vectors, given bits by am_optimize */
    db = raw();
    CHECK_EQ_INT(sqlite3_exec(db, "DELETE FROM vector_bits", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    s = open_store();
    vec_of(2000, 0, qv);
    CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_MAX, keep));
    CHECK_EQ_INT(am__store_optimize(s), AM_OK);
    CHECK(bits_match());
    s->vt->close(s);
    /* a v5 store: the upgrade adds the table and fills it */
    db = raw();
    CHECK_EQ_INT(sqlite3_exec(db, AM_UNDO_V30 AM_UNDO_V29 AM_UNDO_V28 AM_UNDO_V27 AM_UNDO_V26 AM_UNDO_V25 /* first: they name held tables dropped below */
                                  "DROP TRIGGER vector_blocks_bits; DROP TABLE vector_bits;"
                                  "ALTER TABLE memory_items DROP COLUMN tokens;" /* v7 */
                                  "DROP INDEX pii_vault_hash;" /* v19 (dropped v8's) */
                                  "ALTER TABLE pii_vault DROP COLUMN canon_hash;"
                                  "DELETE FROM meta WHERE key = 'pii_key';"
                                  "DELETE FROM meta WHERE key = 'fts_analyzer';" /* v9 */
                                  "DROP INDEX events_client;"
                                  "ALTER TABLE events DROP COLUMN client_id;"
                                  "ALTER TABLE events DROP COLUMN client_hash;"
                                  "ALTER TABLE users DROP COLUMN channel;"
                                  "ALTER TABLE users DROP COLUMN external_id;" /* v10 */
                                  "ALTER TABLE memory_items DROP COLUMN source_count;"
                                  "ALTER TABLE memory_items DROP COLUMN reinforced_at;" /* v11 */
                                  "ALTER TABLE events DROP COLUMN tokens;" /* v12 */
                                  "DROP TABLE forget_jobs; DROP INDEX tombstones_user;" /* v13 */
                                  "ALTER TABLE tombstones DROP COLUMN purged_at;"
                                  "DROP TABLE held_events; DROP TABLE held_events_fts;"
                                  "DROP TABLE held_entities; DROP TABLE held_event_vectors;"
                                  "DROP TABLE held_pii_vault; DROP TABLE held_item_sources;"
                                  "DROP TABLE held_memory_items; DROP TABLE held_item_heat;"
                                  "DROP TABLE held_tasks; DROP TABLE held_task_history;" /* v14 */
                                  "DELETE FROM meta WHERE key = 'forget_key';"
                                  "DROP TABLE memory_events;" /* v15 */
                                  "DROP TABLE task_workspace;" /* v16 */
                                  "ALTER TABLE tasks DROP COLUMN round;"
                                  "ALTER TABLE tasks DROP COLUMN round_from;"
                                  "ALTER TABLE tasks DROP COLUMN round_at;"
                                  "ALTER TABLE tasks DROP COLUMN round_tz;"
                                  "ALTER TABLE tasks DROP COLUMN period;"
                                  "ALTER TABLE tasks DROP COLUMN rounds;" /* v17 */
                                  "DROP TABLE api_tokens;" /* v18 */
                                  AM_UNDO_V24 AM_UNDO_V23 AM_UNDO_V22 AM_UNDO_V21 AM_UNDO_V20
                                  "UPDATE meta SET value = '5' WHERE key = 'schema_version'",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_close(db);
    s = open_store();
    CHECK(scan_is(s, "A", qv, AM_TIME_NONE, 0, N_MAX, keep));
    CHECK(bits_match());
    s->vt->close(s);
    CHECK_EQ_INT(am__vec_bits_fallbacks, 0); /* every vector where the cache said */
    full_max = 0;
    scan_exact = -1;
}

/* How many of the exact best LIMIT the store's scan returns; *first: its
 * best is the exact best, with the exact score. */
static int scan_overlap(am__store *s, const float *qv, int upto, int *first)
{
    am__arena ar;
    am__arena_init(&ar, &alloc);
    am__event_row *rows;
    size_t n = 0;
    int64_t want_rid[LIMIT];
    double want_score[LIMIT];
    size_t m = reference(qv, 0, upto, NULL, want_rid, want_score);
    int k = 0;
    *first = 0;
    if (s->vt->vectors.vec_scan(s, "u", "A", qv, DIM, AM_TIME_NONE, LIMIT, scan_exact, &ar, &rows,
                                &n) == AM_OK) {
        qsort(rows, n, sizeof *rows, cmp_row);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < m; j++) k += rows[i].rid == want_rid[j];
        *first = n && m && rows[0].rid == want_rid[0] && rows[0].score == want_score[0];
    }
    am__arena_free(&ar);
    return k;
}

/* Many more vectors than the scan rescores (3,000 against 256): the
 * candidates picked by the estimate from the signs hold most of the exact
 * best even at 16 components (2 bytes of signs; real embeddings have
 * hundreds: on 512-wide USE-lite vectors, 99.9 % of the best 100), and a
 * stored vector asked for is found first. */
static void test_bits_scan_large(void)
{
    full_max = 100;
    scan_exact = 1;
    am__vec_bits_fallbacks = 0;
    am__store *s = fill();
    add_events(s, N_EV, N_BIG);
    int found = 0, first;
    for (int t = 0; t < 8; t++) {
        float qv[DIM];
        vec_of(4000 + t, 0, qv);
        found += scan_overlap(s, qv, N_BIG, &first);
        vec_of(100 + 300 * t, 0, qv); /* a stored vector */
        scan_overlap(s, qv, N_BIG, &first);
        CHECK(first);
    }
    CHECK(found >= 8 * LIMIT * 8 / 10);
    scan_exact = -1; /* the same queries, exact: all of them */
    found = 0;
    for (int t = 0; t < 8; t++) {
        float qv[DIM];
        vec_of(4000 + t, 0, qv);
        found += scan_overlap(s, qv, N_BIG, &first);
    }
    CHECK_EQ_INT(found, 8 * LIMIT);
    s->vt->close(s);
    CHECK_EQ_INT(am__vec_bits_fallbacks, 0);
    full_max = 0;
    scan_exact = -1;
}

int main(void)
{
    alloc.realloc = plain_realloc;
    snprintf(path, sizeof path, "/tmp/am_test_vec_pack_%ld.db", (long)getpid());
    RUN(test_packed_scan_equals_rows);
    RUN(test_forget_cuts_packed_vector);
    RUN(test_forget_grace_vectors);
    RUN(test_reembed_after_packing);
    RUN(test_rollback);
    RUN(test_malformed_block);
    RUN(test_sign_bits);
    RUN(test_sign_estimate);
    RUN(test_bits_scan);
    RUN(test_bits_scan_large);
    unlink(path);
    TEST_MAIN_END();
}
