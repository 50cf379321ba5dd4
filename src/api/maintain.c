/* SPDX-License-Identifier: Apache-2.0 */
/*
 * maintain.c -- am_maintain: the maintenance pass's steps, each one short
 * write transaction (lifecycle/ decides what changes; docs/LIFECYCLE.md).
 *
 * The pass goes through the users in id order; for each user it runs the
 * steps below in turn, each as many times as it says it is not done.  A
 * step has the shape
 *
 *     int step(am_db *db, const char *uid, am_time now, int budget,
 *              long *moved, int *done)
 *
 * (at most budget rows changed in one transaction of its own, *moved of
 * them, *done = 1 when the user has nothing more of its kind), so a step
 * of another part of the engine joins the pass with one line in `steps`.
 * After each step of a user the cursor (the store's own record 'maintain_cursor': "STEP
 * USER", the user has done steps [0, STEP)) says so; a pass stopped
 * anywhere goes on with the next step.  A user's pass (opt->user_id)
 * keeps no cursor: stopped, it starts that user over (its steps are
 * idempotent).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/records.h"
#include "api/db_int.h"
#include "base/log.h"
#include "lifecycle/cold.h"
#include "lifecycle/maintain.h"

#define CURSOR_KEY "maintain_cursor"
#define STEP_ROWS 100
#define USERS_PAGE 64

typedef int (*step_fn)(am_db *db, const char *uid, am_time now, int budget, long *moved,
                       int *done);
typedef int (*life_fn)(am__wctx *w, int budget, am__life_tally *t, int *done);

static int life_step(am_db *db, const char *uid, am_time now, int budget, long *moved, int *done,
                     life_fn fn)
{
    am__store *s = db->store;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__wctx w = {s, db->text, &db->ulid, &db->cfg.rank, &ar, uid, now, NULL, now, NULL};
    am__life_tally t = {0};
    am__dbcache_note(db->cache, uid);
    int rc = am__store_begin(s);
    if (!rc) rc = am__store_lock_users(s, &uid, 1);
    if (!rc) rc = fn(&w, budget, &t, done);
    if (!rc) rc = am__store_commit(s);
    if (rc) am__store_rollback(s);
    am__dbcache_flush(db->cache);
    am__arena_free(&ar);
    if (rc) return rc;
    *moved = t.candidate + t.invalidated + t.archived + t.revived + t.consolidated;
    if (db->maint_tally) {
        db->maint_tally->decayed += t.decayed;
        db->maint_tally->candidate += t.candidate;
        db->maint_tally->invalidated += t.invalidated;
        db->maint_tally->archived += t.archived;
        db->maint_tally->revived += t.revived;
        db->maint_tally->consolidated += t.consolidated;
    }
    am__events_deliver(db);
    return AM_OK;
}

static int consolidate_step(am_db *db, const char *uid, am_time now, int budget, long *moved,
                            int *done)
{
    return life_step(db, uid, now, budget, moved, done, am__life_consolidate);
}

static int decay_step(am_db *db, const char *uid, am_time now, int budget, long *moved,
                      int *done)
{
    return life_step(db, uid, now, budget, moved, done, am__life_decay);
}

static int archive_step(am_db *db, const char *uid, am_time now, int budget, long *moved,
                        int *done)
{
    return life_step(db, uid, now, budget, moved, done, am__life_archive);
}

/* Old events' text to the cold column (lifecycle/cold.h): one short
 * transaction of at most budget events. */
static int cold_events_step(am_db *db, const char *uid, am_time now, int budget, long *moved,
                            int *done)
{
    am__cold_run run;
    am__cold_init(&run, db->store, &db->alloc, db->cfg.rank.archive_events_days);
    am__dbcache_note(db->cache, uid);
    int rc = am__cold_step(&run, uid, now, budget, moved, done);
    am__dbcache_flush(db->cache);
    return rc;
}

/* The steps, in order (consolidation first: a duplicate's sources then
 * count for the item that stays).  counter: the report field *moved adds
 * to, or NONE (a lifecycle step counts by kind itself). */
#define NONE ((size_t)-1)
static const struct {
    const char *name;
    step_fn run;
    size_t counter;
} steps[] = {
    {"consolidate", consolidate_step, NONE},
    {"decay", decay_step, NONE},
    {"archive", archive_step, NONE},
    {"archive_events", cold_events_step, offsetof(am_maintain_report, events_archived)},
};

typedef struct pass {
    am_db *db;
    const am_maintain_options *o;
    am_maintain_report *r;
    int64_t t0_us;
    int stopped;
    size_t users_total; /* for progress: users in this pass */
} pass;

/* 1 when a budget of the pass is spent */
static int spent(pass *p)
{
    if (p->o->max_steps > 0 && p->r->steps >= p->o->max_steps) return 1;
    if (p->o->max_ms > 0 && (am__mono_us() - p->t0_us) / 1000 >= p->o->max_ms) return 1;
    return 0;
}

static int cursor_put(am_db *db, int step, const char *uid)
{
    am__store *s = db->store;
    char v[AM_ID_MAX + 16];
    if (uid) snprintf(v, sizeof v, "%d %s", step, uid);
    int rc = am__store_begin(s);
    if (!rc) rc = am__meta_put(s, CURSOR_KEY, uid ? v : NULL);
    if (!rc) rc = am__store_commit(s);
    if (rc) {
        am__store_rollback(s);
        return am__db_store_error(db, rc, "maintain: cursor");
    }
    return AM_OK;
}

#define N_STEPS ((int)(sizeof steps / sizeof *steps))

/* The steps of one user from step `first` to its end (or a budget):
 * *complete = 1 then.  With the cursor (every user's pass), each step
 * done is recorded, so a pass stopped goes on with the next step. */
static int one_user(pass *p, const char *uid, int first, int cursor, am_time now, int *complete)
{
    int budget = p->o->step_rows > 0 ? p->o->step_rows : STEP_ROWS;
    *complete = 0;
    for (int i = first; i < N_STEPS; i++) {
        int done = 0;
        while (!done) {
            if (spent(p)) return AM_OK;
            long moved = 0;
            int rc = steps[i].run(p->db, uid, now, budget, &moved, &done);
            p->r->steps++;
            if (rc) return am__db_store_error(p->db, rc, "maintain");
            if (steps[i].counter != NONE) *(long *)((char *)p->r + steps[i].counter) += moved;
        }
        if (!cursor && p->o->progress) p->o->progress(p->o->progress_ctx, (size_t)i + 1, N_STEPS);
        int rc = cursor ? cursor_put(p->db, i + 1, uid) : AM_OK;
        if (rc) return rc;
    }
    *complete = 1;
    p->r->users++;
    if (cursor && p->o->progress)
        p->o->progress(p->o->progress_ctx, (size_t)p->r->users, p->users_total);
    return AM_OK;
}

/* For progress: the users after `after` (a page of ids at a time), plus
 * the one a pass stopped in.  0 on an error: the progress then counts
 * without a total. */
static size_t users_to_go(pass *p, const char *after, int resumed)
{
    am__store *s = p->db->store;
    char from[AM_ID_MAX + 1];
    snprintf(from, sizeof from, "%s", after);
    size_t total = resumed ? 1 : 0;
    for (;;) {
        am__arena ar;
        am__arena_init(&ar, &p->db->alloc);
        const char **uids;
        size_t n;
        int rc = am__store_users_after(s, from, USERS_PAGE, &ar, &uids, &n);
        if (!rc && n) snprintf(from, sizeof from, "%s", uids[n - 1]);
        am__arena_free(&ar);
        if (rc) return 0;
        if (n == 0) return total;
        total += n;
    }
}

static int all_users(pass *p, am_time now)
{
    am__store *s = p->db->store;
    am__arena ar;
    am__arena_init(&ar, &p->db->alloc);
    const char *cur = NULL;
    char after[AM_ID_MAX + 1] = "";
    int first = N_STEPS; /* the cursor's user: the steps it has done */
    int rc = am__meta_get(s, CURSOR_KEY, &ar, &cur);
    if (rc == AM_NOTFOUND) {
        rc = AM_OK;
    } else if (rc) {
        rc = am__db_store_error(p->db, rc, "maintain: cursor");
    } else if (cur) {
        /* "STEP USER": the user has done steps [0, STEP) */
        char *sp;
        long k = strtol(cur, &sp, 10);
        if (*sp == ' ' && k >= 0) {
            snprintf(after, sizeof after, "%s", sp + 1);
            first = k < N_STEPS ? (int)k : N_STEPS;
        }
    }
    if (!rc && p->o->progress) {
        p->users_total = users_to_go(p, after, after[0] && first < N_STEPS);
        p->o->progress(p->o->progress_ctx, 0, p->users_total);
    }
    if (!rc && after[0] && first < N_STEPS) {
        /* the user a pass stopped in: its remaining steps first */
        int complete;
        if ((rc = one_user(p, after, first, 1, now, &complete)) || !complete) {
            am__arena_free(&ar);
            return rc;
        }
    }
    while (!rc) {
        const char **uids;
        size_t n;
        am__arena_free(&ar);
        am__arena_init(&ar, &p->db->alloc);
        if ((rc = am__store_users_after(s, after, USERS_PAGE, &ar, &uids, &n))) {
            rc = am__db_store_error(p->db, rc, "maintain: users");
            break;
        }
        if (n == 0) {
            /* through every user: the next pass starts from the first */
            if (!(rc = cursor_put(p->db, 0, NULL))) p->r->finished = 1;
            break;
        }
        for (size_t i = 0; i < n && !rc; i++) {
            int complete;
            if ((rc = one_user(p, uids[i], 0, 1, now, &complete))) break;
            if (!complete) {
                am__arena_free(&ar);
                return AM_OK;
            }
            snprintf(after, sizeof after, "%s", uids[i]);
        }
    }
    am__arena_free(&ar);
    return rc;
}

int am__maintain_forget(am_db *db, const char *user_id)
{
    am__store *s = db->store;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    const char *cur = NULL;
    int rc = am__meta_get(s, CURSOR_KEY, &ar, &cur);
    if (rc == AM_NOTFOUND) rc = AM_OK;
    const char *sp = !rc && cur ? strchr(cur, ' ') : NULL;
    if (sp && strcmp(sp + 1, user_id) == 0) rc = am__meta_put(s, CURSOR_KEY, NULL);
    am__arena_free(&ar);
    return rc;
}

int am_maintain(am_db *db, const am_maintain_options *opt, am_maintain_report *out)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    am_maintain_options none = {0};
    const am_maintain_options *o = opt ? opt : &none;
    am_maintain_report r = {0};
    if (out) *out = r;
    if (o->step_rows < 0)
        return am__db_error(db, AM_INVALID, "maintain: step_rows %d is negative", o->step_rows);
    if (o->max_steps < 0 || o->max_ms < 0)
        return am__db_error(db, AM_INVALID, "maintain: %s is negative",
                            o->max_steps < 0 ? "max_steps" : "max_ms");
    if (o->user_id && am__db_check_id(db, "maintain", "user", o->user_id)) return AM_INVALID;
    pass p = {db, o, &r, am__mono_us(), 0, 0};
    am__life_tally t = {0};
    am__life_tally *saved = db->maint_tally; /* the steps of lifecycle/ count by kind */
    db->maint_tally = &t;
    am_time now = am__db_now(db);
    int rc;
    if (o->user_id) {
        int exists = am__store_user_exists(db->store, o->user_id);
        if (exists < 0) rc = am__db_store_error(db, -exists, "maintain");
        else if (!exists)
            rc = am__db_error(db, AM_NOTFOUND, "maintain: user %s not found", o->user_id);
        else {
            int complete = 0;
            rc = one_user(&p, o->user_id, 0, 0, now, &complete);
            r.finished = !rc && complete;
        }
    } else {
        rc = all_users(&p, now);
    }
    db->maint_tally = saved;
    r.decayed = t.decayed;
    r.candidate = t.candidate;
    r.invalidated = t.invalidated;
    r.archived = t.archived;
    r.revived = t.revived;
    r.consolidated = t.consolidated;
    r.elapsed_ms = (long)((am__mono_us() - p.t0_us) / 1000);
    if (out) *out = r;
    if (!rc && am__log_on(&db->log)) {
        am__logrec lr;
        am__logrec_begin(&lr, &db->log, AM_LOG_INFO, "maintain", now);
        am__logrec_int(&lr, "users", r.users);
        am__logrec_int(&lr, "steps", r.steps);
        am__logrec_int(&lr, "changed", r.candidate + r.invalidated + r.archived + r.revived +
                                           r.consolidated);
        am__logrec_emit(&lr);
    }
    return rc;
}
