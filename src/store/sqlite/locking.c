/* SPDX-License-Identifier: Apache-2.0 */
/*
 * locking.c -- how a connection waits for the write lock and how it lets
 * others have it (contention).
 *
 * SQLite in WAL mode has one writer at a time and no queue: a connection
 * that finds the lock taken calls its busy handler and tries again.  Its
 * default handler (sqlite3_busy_timeout) sleeps longer and longer, up to
 * 100 ms between tries, so a waiter only gets the lock if one of its rare
 * tries falls into the gap between two transactions of the holder; a
 * holder that writes continuously (a batch importer) leaves gaps of
 * microseconds and a waiter gives up after the whole timeout.  Two things
 * here fix that:
 *
 *  - The waiter's back-off is short and jittered: 0.25, 0.5, 1 ms up to
 *    AM__BUSY_STEP_MAX_MS, each drawn in [d/2, d] from a per-connection
 *    generator (waiters do not retry in step), until the limit the
 *    configuration gives (am_config.busy_timeout_ms) has passed.  It ages:
 *    the longer a waiter has waited, the shorter its sleeps (1 ms after
 *    AM__AGED_MS), so when the lock comes free the oldest waiter is the
 *    likeliest to try first -- without a queue, the nearest to one.
 *  - The holder rests: a connection that has held the write lock for
 *    AM__HOLD_MAX_MS of transactions with hardly a gap between them (one
 *    long one, or many short ones back to back) waits AM__REST_MS, longer
 *    than any waiter's step, before it takes the lock again -- so every
 *    waiter tries once while the lock is free, and one of them gets it.
 *    Whether one did shows at the next BEGIN (the file's data version
 *    moved past our last commit); a rest nobody used doubles the stretch
 *    before the next one (up to AM__HOLD_LONGEST_MS), a used one brings it
 *    back to AM__HOLD_MAX_MS.  A writer alone pays about AM__REST_MS a
 *    second and a half (under 1 %), a writer that writes now and then
 *    nothing; a waiter that comes to a writer alone waits at most about
 *    AM__HOLD_LONGEST_MS, then a stretch at a time.
 *
 * A try without waiting (sq_store.busy_nowait) is for work that may be
 * skipped or deferred: a recall's heat update.  Reads need no lock in WAL
 * mode; the rare moments a reader is made to wait (the WAL index being
 * recovered, SQLITE_BUSY_RECOVERY, or the last connection's checkpoint on
 * close holding the file) go through the same handler.
 */
#include <time.h>

#include "store/sqlite/sqlite_int.h"

#define AM__BUSY_STEP_MAX_MS 2 /* longest sleep between two tries */
#define AM__AGED_MS 1000       /* a waiter this old tries every 1 ms */
#define AM__HOLD_MAX_MS 100    /* continuous holding before a rest */
#define AM__HOLD_LONGEST_MS 1600 /* ... after rests nobody used */
#define AM__REST_MS 3          /* > AM__BUSY_STEP_MAX_MS: every waiter tries */
#define AM__GAP_MS 3           /* a pause shorter than this does not count as one */

int64_t am__sqlite_clock_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void sleep_us(int64_t us)
{
    if (us <= 0) return;
    struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* xorshift64*: the jitter of one connection's waits */
static uint64_t jitter_next(sq_store *s)
{
    uint64_t x = s->jitter;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    s->jitter = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* SQLite's busy handler: non-zero to try again. */
static int on_busy(void *ctx, int tries)
{
    sq_store *s = ctx;
    if (s->busy_nowait) return 0;
    int64_t now = am__sqlite_clock_us();
    if (tries == 0) s->busy_since = now;
    int64_t left = (int64_t)s->busy_limit_ms * 1000 - (now - s->busy_since);
    if (left <= 0) return 0;
    /* 0.25, 0.5, 1, 2 ms: a recall's heat update or a group commit holds
     * the lock for well under a millisecond, and every rest of a holder
     * (below) must be longer than the longest step, so a short step keeps
     * both the waits and the rests short (docs/bench/README.md, server load);
     * then, the longer it has waited, the more often it
     * tries (down to every 1 ms after AM__AGED_MS): of the waiters, the one
     * that waited longest is the likeliest to try first in a free moment */
    int64_t step = (int64_t)250 << (tries < 3 ? tries : 3);
    if (step > AM__BUSY_STEP_MAX_MS * 1000) step = AM__BUSY_STEP_MAX_MS * 1000;
    int64_t waited = now - s->busy_since;
    if (tries > 3) {
        int64_t aged = AM__BUSY_STEP_MAX_MS * 1000 -
                       waited * (AM__BUSY_STEP_MAX_MS - 1) / AM__AGED_MS;
        if (aged < 1000) aged = 1000;
        if (aged < step) step = aged;
    }
    step = step / 2 + (int64_t)(jitter_next(s) % (uint64_t)(step / 2 + 1));
    sleep_us(step < left ? step : left);
    return 1;
}

void am__sqlite_busy_init(sq_store *s, int limit_ms)
{
    s->busy_limit_ms = limit_ms > 0 ? limit_ms : 0;
    s->jitter = (uint64_t)am__sqlite_clock_us() ^ ((uint64_t)(uintptr_t)s << 16) ^
                0x9E3779B97F4A7C15ull;
    if (!s->jitter) s->jitter = 1;
    sqlite3_busy_handler(s->db, on_busy, s);
}

/* A statement SQLite does not wait for: PRAGMA journal_mode=WAL on a file
 * another connection is creating (or has locked while it switches the
 * file to WAL) returns SQLITE_BUSY at once, without calling the busy
 * handler.  Two processes opening a new store together would see one of
 * them refused; run it again, with the busy handler's waits, until the
 * configured limit.  The statements must be safe to run twice. */
int am__sqlite_exec_waiting(sq_store *s, const char *sql, const char *what)
{
    int rc;
    for (int tries = 0; (rc = exec(s, sql, what)) == AM_BUSY && on_busy(s, tries); tries++) {
    }
    return rc;
}

/* The file's data version: moves with every commit, ours or another's. */
static unsigned data_version(sq_store *s)
{
    unsigned v = 0;
    if (sqlite3_file_control(s->db, "main", SQLITE_FCNTL_DATA_VERSION, &v) != SQLITE_OK) v = 0;
    return v;
}

void am__sqlite_write_rest(sq_store *s)
{
    if (!s->held_us || !s->released_at) return;
    int64_t since = am__sqlite_clock_us() - s->released_at;
    if (since >= AM__GAP_MS * 1000) {
        s->held_us = 0; /* others had their chance: a new stretch */
        return;
    }
    int64_t stretch = s->stretch_us ? s->stretch_us : AM__HOLD_MAX_MS * 1000;
    if (s->held_us < stretch) return;
    sleep_us(AM__REST_MS * 1000 - since);
    s->held_us = 0;
    s->rested = 1;
}

void am__sqlite_write_taken(sq_store *s)
{
    s->taken_at = am__sqlite_clock_us();
    if (!s->rested) return;
    s->rested = 0;
    int used = data_version(s) != s->version_after;
    int64_t stretch = s->stretch_us ? s->stretch_us : AM__HOLD_MAX_MS * 1000;
    if (used) stretch = AM__HOLD_MAX_MS * 1000;
    else if (stretch < AM__HOLD_LONGEST_MS * 1000) stretch *= 2;
    s->stretch_us = stretch;
}

void am__sqlite_write_released(sq_store *s)
{
    if (!s->taken_at) return;
    s->released_at = am__sqlite_clock_us();
    s->held_us += s->released_at - s->taken_at;
    s->taken_at = 0;
    s->version_after = data_version(s);
}
