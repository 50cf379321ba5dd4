/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_faults.c -- disk full and I/O errors, as SQLite tests them (issue
 * 14.10): a test-only VFS wraps the default one and fails the Nth write,
 * sync or truncate (SQLITE_FULL for a write: the disk is full; SQLITE_IOERR
 * for any), once or from then on.  For each operation -- add (zh + en,
 * PII, a lasting statement), forget a user, maintenance (am_optimize) --
 * a counting run finds how many such calls it makes, and the operation
 * is then run once per call with that call failing.  Every run must end
 * in AM_OK or a clear error (AM_IO / AM_BACKEND and a message), the handle
 * must still work (the same operation retried succeeds), and the file,
 * reopened, must pass PRAGMA integrity_check with nothing half-written:
 * every event has its index row and its audit row, no vault or source row
 * points at a missing event, and the operation happened entirely or not
 * at all.  The totals are printed (operations x injection points,
 * failures, corruptions).
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "api_util.h"

/* ---------------------------------------------------------------- the shim */

enum { F_WRITE = 1, F_SYNC = 2, F_TRUNC = 4 };

static struct fault {
    int armed;      /* count calls, and fail the one numbered fail_at */
    long calls;     /* write/sync/truncate calls since armed */
    long fail_at;   /* 1-based; 0 = never */
    int persistent; /* keep failing after fail_at (the disk stays full) */
    int full;       /* SQLITE_FULL for writes, else SQLITE_IOERR_* */
    long injected;  /* calls failed */
} F;

static sqlite3_vfs *real_vfs;

typedef struct ffile {
    sqlite3_file base;
    sqlite3_file *real; /* follows this struct in the same block */
} ffile;

#define REAL(f) (((ffile *)(f))->real)

/* 0: go on; else the error this call returns. */
static int fault_hit(int kind)
{
    if (!F.armed) return 0;
    F.calls++;
    if (!F.fail_at || (F.calls != F.fail_at && !(F.persistent && F.calls > F.fail_at))) return 0;
    F.injected++;
    if (kind == F_WRITE) return F.full ? SQLITE_FULL : SQLITE_IOERR_WRITE;
    return kind == F_SYNC ? SQLITE_IOERR_FSYNC : SQLITE_IOERR_TRUNCATE;
}

static int f_close(sqlite3_file *f) { return REAL(f)->pMethods ? REAL(f)->pMethods->xClose(REAL(f)) : 0; }
static int f_read(sqlite3_file *f, void *p, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xRead(REAL(f), p, n, o); }
static int f_write(sqlite3_file *f, const void *p, int n, sqlite3_int64 o)
{
    int rc = fault_hit(F_WRITE);
    return rc ? rc : REAL(f)->pMethods->xWrite(REAL(f), p, n, o);
}
static int f_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    int rc = fault_hit(F_TRUNC);
    return rc ? rc : REAL(f)->pMethods->xTruncate(REAL(f), size);
}
static int f_sync(sqlite3_file *f, int flags)
{
    int rc = fault_hit(F_SYNC);
    return rc ? rc : REAL(f)->pMethods->xSync(REAL(f), flags);
}
static int f_size(sqlite3_file *f, sqlite3_int64 *s) { return REAL(f)->pMethods->xFileSize(REAL(f), s); }
static int f_lock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xLock(REAL(f), l); }
static int f_unlock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int f_reserved(sqlite3_file *f, int *r) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r); }
static int f_fcntl(sqlite3_file *f, int op, void *a) { return REAL(f)->pMethods->xFileControl(REAL(f), op, a); }
static int f_sector(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int f_caps(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
static int f_shm_map(sqlite3_file *f, int pg, int sz, int ext, void volatile **pp)
{
    return REAL(f)->pMethods->xShmMap(REAL(f), pg, sz, ext, pp);
}
static int f_shm_lock(sqlite3_file *f, int o, int n, int fl) { return REAL(f)->pMethods->xShmLock(REAL(f), o, n, fl); }
static void f_shm_barrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int f_shm_unmap(sqlite3_file *f, int del) { return REAL(f)->pMethods->xShmUnmap(REAL(f), del); }
static int f_fetch(sqlite3_file *f, sqlite3_int64 o, int n, void **pp)
{
    /* no memory-mapped reads: every page goes through xRead/xWrite */
    (void)f; (void)o; (void)n;
    *pp = NULL;
    return SQLITE_OK;
}
static int f_unfetch(sqlite3_file *f, sqlite3_int64 o, void *p) { (void)f; (void)o; (void)p; return SQLITE_OK; }

static const sqlite3_io_methods f_methods = {
    3, f_close, f_read, f_write, f_truncate, f_sync, f_size, f_lock, f_unlock, f_reserved,
    f_fcntl, f_sector, f_caps, f_shm_map, f_shm_lock, f_shm_barrier, f_shm_unmap, f_fetch,
    f_unfetch,
};

static int f_open(sqlite3_vfs *v, const char *name, sqlite3_file *file, int flags, int *out)
{
    (void)v;
    ffile *f = (ffile *)file;
    f->real = (sqlite3_file *)(f + 1);
    int rc = real_vfs->xOpen(real_vfs, name, f->real, flags, out);
    f->base.pMethods = f->real->pMethods ? &f_methods : NULL;
    return rc;
}

static int f_delete(sqlite3_vfs *v, const char *n, int sync) { (void)v; return real_vfs->xDelete(real_vfs, n, sync); }
static int f_access(sqlite3_vfs *v, const char *n, int fl, int *r) { (void)v; return real_vfs->xAccess(real_vfs, n, fl, r); }
static int f_full(sqlite3_vfs *v, const char *n, int len, char *out) { (void)v; return real_vfs->xFullPathname(real_vfs, n, len, out); }
static void *f_dlopen(sqlite3_vfs *v, const char *n) { (void)v; return real_vfs->xDlOpen(real_vfs, n); }
static void f_dlerr(sqlite3_vfs *v, int n, char *m) { (void)v; real_vfs->xDlError(real_vfs, n, m); }
static void (*f_dlsym(sqlite3_vfs *v, void *h, const char *s))(void) { (void)v; return real_vfs->xDlSym(real_vfs, h, s); }
static void f_dlclose(sqlite3_vfs *v, void *h) { (void)v; real_vfs->xDlClose(real_vfs, h); }
static int f_rand(sqlite3_vfs *v, int n, char *o) { (void)v; return real_vfs->xRandomness(real_vfs, n, o); }
static int f_sleep(sqlite3_vfs *v, int us) { (void)v; return real_vfs->xSleep(real_vfs, us); }
static int f_now(sqlite3_vfs *v, double *t) { (void)v; return real_vfs->xCurrentTime(real_vfs, t); }
static int f_lasterr(sqlite3_vfs *v, int n, char *m) { (void)v; return real_vfs->xGetLastError ? real_vfs->xGetLastError(real_vfs, n, m) : 0; }
static int f_now64(sqlite3_vfs *v, sqlite3_int64 *t) { (void)v; return real_vfs->xCurrentTimeInt64(real_vfs, t); }

static sqlite3_vfs f_vfs = {
    2, 0, 0, NULL, "faulty", NULL, f_open, f_delete, f_access, f_full, f_dlopen, f_dlerr,
    f_dlsym, f_dlclose, f_rand, f_sleep, f_now, f_lasterr, f_now64, NULL, NULL, NULL,
};

/* The shim becomes the process's default VFS: every store opened from now
 * on goes through it (am_open takes plain paths). */
static void shim_install(void)
{
    real_vfs = sqlite3_vfs_find(NULL);
    f_vfs.szOsFile = (int)sizeof(ffile) + real_vfs->szOsFile;
    f_vfs.mxPathname = real_vfs->mxPathname;
    CHECK_EQ_INT(sqlite3_vfs_register(&f_vfs, 1), SQLITE_OK);
}

/* ---------------------------------------------------------------- stores */

static char base_path[256], work_path[256];

static void rm_store(const char *p)
{
    char x[300];
    unlink(p);
    snprintf(x, sizeof x, "%s-wal", p);
    unlink(x);
    snprintf(x, sizeof x, "%s-shm", p);
    unlink(x);
}

static int copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    char buf[65536];
    size_t n;
    int ok = a && b;
    while (ok && (n = fread(buf, 1, sizeof buf, a)) > 0) ok = fwrite(buf, 1, n, b) == n;
    if (a) fclose(a);
    if (b && fclose(b)) ok = 0;
    return ok;
}

static am_db *open_path(const char *p)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = p;
    cfg.clock = test_clock;
    am_db *db = NULL;
    char *err = NULL;
    int rc = am_open(&cfg, &db, &err);
    if (rc) fprintf(stderr, "open %s: %s\n", p, err ? err : "?");
    am_free(err);
    return db;
}

/* The template: two users, zh + en, PII, items, tasks. */
static void make_base(void)
{
    rm_store(base_path);
    am_db *db = open_path(base_path);
    CHECK(db != NULL);
    if (!db) return;
    static const char *const texts[] = {
        "以后周报都按三段写，发给13912345678", "From now on send the weekly report as a PDF",
        "我不吃辣，订餐别放辣椒", "my e-mail is ann@example.com, use it for invoices",
        "这个项目预算改成50万", "the launch moved to Friday",
    };
    char at[40];
    for (int i = 0; i < 12; i++) {
        snprintf(at, sizeof at, "2026-03-01T%02d:00:00+08:00", 8 + i);
        add(db, i % 2 ? "u2" : "u1", "s1", i % 3 ? "t1" : NULL, at, texts[i % 6]);
    }
    am_close(db);
}

/* ---------------------------------------------------------------- checks */

static long q1(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    long v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

typedef struct shape {
    long events, u1_events, fts, audit_add, orphan_vault, orphan_src, items;
    int integrity_ok;
} shape;

static shape look(const char *p)
{
    shape s = {-1, -1, -1, -1, -1, -1, -1, 0};
    sqlite3 *db;
    if (sqlite3_open_v2(p, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return s;
    }
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        s.integrity_ok = strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0;
    sqlite3_finalize(st);
    s.events = q1(db, "SELECT count(*) FROM events");
    s.u1_events = q1(db, "SELECT count(*) FROM events WHERE user_id='u1'");
    s.fts = q1(db, "SELECT count(*) FROM events_fts_docsize");
    s.audit_add = q1(db, "SELECT count(*) FROM audit_log WHERE op IN ('event.add','task.switch')");
    s.orphan_vault = q1(db, "SELECT count(*) FROM pii_vault v WHERE NOT EXISTS"
                            " (SELECT 1 FROM events e WHERE e.rid=v.event_rid)");
    s.orphan_src = q1(db, "SELECT count(*) FROM item_sources s WHERE NOT EXISTS"
                          " (SELECT 1 FROM events e WHERE e.id=s.event_id)");
    s.items = q1(db, "SELECT count(*) FROM memory_items");
    sqlite3_close(db);
    return s;
}

/* The operations, each on an open handle. */
typedef int (*op_fn)(am_db *db);

static int op_add(am_db *db)
{
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = "u1";
    ev.session_id = "s2";
    ev.occurred_at = "2026-03-02T09:00:00+08:00";
    ev.text = "以后开会都提前一天提醒我，电话13800001111 / remind me a day before every meeting";
    set_now(ev.occurred_at);
    return am_add_event(db, &ev, NULL);
}

static int op_forget(am_db *db) { return am_forget(db, "u1", AM_FORGET_USER, NULL, NULL); }
static int op_optimize(am_db *db) { return am_optimize(db); }

/* Before/after agree with a whole operation: add -> +1 event or none;
 * forget -> u1 has all its events or none; optimize -> unchanged. */
static int whole(const char *op, const shape *before, const shape *now, int rc)
{
    /* an added event comes with its audit row(s), or nothing does */
    if (strcmp(op, "add") == 0)
        return (now->events == before->events + (rc == AM_OK) ||
                (rc != AM_OK && now->events == before->events + 1)) && /* committed, then failed */
               (now->events == before->events) == (now->audit_add == before->audit_add);
    if (strcmp(op, "forget") == 0)
        return (rc == AM_OK && now->u1_events == 0) ||
               (rc != AM_OK && (now->u1_events == 0 || now->u1_events == before->u1_events));
    return now->events == before->events && now->items == before->items;
}

static int consistent(const shape *s)
{
    return s->integrity_ok && s->events >= 0 && s->fts == s->events && s->orphan_vault == 0 &&
           s->orphan_src == 0;
}

typedef struct tally {
    long points, injections, failures, corrupt, stuck;
    char first_msg[200]; /* the first failure's message, for the report */
} tally;

static void run_op(const char *name, op_fn fn, int persistent, int full, tally *t)
{
    shape before = look(base_path);
    /* the counting run */
    rm_store(work_path);
    CHECK(copy_file(base_path, work_path));
    am_db *db = open_path(work_path);
    if (!db) return;
    memset(&F, 0, sizeof F);
    F.armed = 1;
    CHECK_EQ_INT(fn(db), AM_OK);
    F.armed = 0;
    long points = F.calls;
    am_close(db);
    CHECK(points > 0);
    for (long n = 1; n <= points; n++) {
        rm_store(work_path);
        CHECK(copy_file(base_path, work_path));
        db = open_path(work_path);
        if (!db) { t->corrupt++; continue; }
        memset(&F, 0, sizeof F);
        F.armed = 1;
        F.fail_at = n;
        F.persistent = persistent;
        F.full = full;
        int rc = fn(db);
        F.armed = 0;
        t->points++;
        t->injections += F.injected;
        if (rc != AM_OK) {
            t->failures++;
            const char *msg = am_errmsg(db);
            if (!t->first_msg[0] && msg) snprintf(t->first_msg, sizeof t->first_msg, "%s", msg);
            if (!(rc == AM_IO || rc == AM_BACKEND) || !msg || !msg[0]) {
                fprintf(stderr, "%s: fault %ld: rc %d (%s), message \"%s\"\n", name, n, rc,
                        am_errstr(rc), msg ? msg : "");
                CHECK(0);
            }
            /* the handle still works: the same operation, retried */
            shape mid = look(work_path);
            int again = whole(name, &before, &mid, rc) && mid.events == before.events
                            ? fn(db) : AM_OK;
            if (again != AM_OK) {
                fprintf(stderr, "%s: fault %ld: the retry failed: %s\n", name, n, am_errmsg(db));
                t->stuck++;
            }
            rc = AM_OK; /* after the retry the operation has happened */
        }
        am_close(db);
        if (strcmp(name, "forget") == 0) {
            /* a user forget that recorded its job before the fault has
             * hidden the user; the next open finishes the purge */
            am_db *again = open_path(work_path);
            if (again) am_close(again);
            else t->stuck++;
        }
        shape now = look(work_path);
        if (!consistent(&now) || !whole(name, &before, &now, rc)) {
            fprintf(stderr,
                    "%s: fault %ld (%s%s): integrity %d, events %ld (before %ld), u1 %ld, "
                    "index %ld, vault orphans %ld, source orphans %ld, items %ld\n",
                    name, n, full ? "full" : "ioerr", persistent ? ", persistent" : "",
                    now.integrity_ok, now.events, before.events, now.u1_events, now.fts,
                    now.orphan_vault, now.orphan_src, now.items);
            t->corrupt++;
        }
    }
}

static void test_faults(void)
{
    /* tmpfs when there is one: the shim counts syncs, the disk need not do them */
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(base_path, sizeof base_path, "%s/am_faults_base_%d.db", dir, (int)getpid());
    snprintf(work_path, sizeof work_path, "%s/am_faults_work_%d.db", dir, (int)getpid());
    shim_install();
    make_base();
    static const struct { const char *name; op_fn fn; } ops[] = {
        {"add", op_add}, {"forget", op_forget}, {"optimize", op_optimize}};
    static const struct { int persistent, full; const char *what; } modes[] = {
        {0, 1, "disk full once"}, {1, 1, "disk full from then on"}, {0, 0, "I/O error once"},
        {1, 0, "I/O error from then on"}};
    tally total = {0};
    for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
        for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
            tally t = {0};
            run_op(ops[o].name, ops[o].fn, modes[m].persistent, modes[m].full, &t);
            printf("faults: %-8s %-24s %3ld injection points, %3ld failed with a clear error,"
                   " %ld corrupt, %ld stuck; e.g. \"%s\"\n",
                   ops[o].name, modes[m].what, t.points, t.failures, t.corrupt, t.stuck,
                   t.first_msg);
            total.points += t.points;
            total.failures += t.failures;
            total.corrupt += t.corrupt;
            total.stuck += t.stuck;
        }
    }
    printf("faults: total %ld runs (3 operations x 4 modes x every write/sync/truncate), "
           "%ld failures, %ld corruptions, %ld stuck handles\n",
           total.points, total.failures, total.corrupt, total.stuck);
    CHECK_EQ_INT(total.corrupt, 0);
    CHECK_EQ_INT(total.stuck, 0);
    CHECK(total.failures > 0);
    rm_store(base_path);
    rm_store(work_path);
    (void)open_mem;
}

int main(void)
{
    RUN(test_faults);
    TEST_MAIN_END();
}
