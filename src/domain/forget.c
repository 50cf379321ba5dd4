/* SPDX-License-Identifier: Apache-2.0 */
/*
 * forget.c -- the policy of forgetting over the store's jobs and
 * tombstones and its mark and delete primitives (forget.h).
 */
#include "domain/forget.h"

#include <string.h>
#include <time.h>

#define WORK_PAUSE_MS 10 /* between two steps: writers waiting for the lock go first */

static const char *const level_names[] = {"", "event", "session", "task", "user"};

/* The one row of a LIST latest / TOMB_GET, no strings: *found 0 when
 * none. */
static int jobs_one(am__store *s, const am__fjob_op *op, am__fjob_row *row, int *found)
{
    memset(row, 0, sizeof *row);
    am__fjob_row *one = row;
    size_t n = 0;
    int rc = s->vt->forget.forget_jobs(s, op, NULL, &one, &n);
    *found = !rc && n > 0;
    return rc;
}

int am__forget_state(am__store *s, const char *uid, int *state, am_time *at, am_time *until)
{
    *state = AM__FORGOTTEN_NONE;
    *at = *until = 0;
    am__fjob_op op = {.kind = AM__FJOB_LIST, .uid = uid, .level = "user", .latest = 1};
    am__fjob_row job;
    int found;
    int rc = jobs_one(s, &op, &job, &found);
    if (rc) return rc;
    if (found) {
        *state = job.held ? AM__FORGOTTEN_HELD : AM__FORGOTTEN_PURGING;
        *at = job.forgotten_at;
        *until = job.purge_at;
        return AM_OK;
    }
    /* purged: a live user of that id again is not forgotten */
    int live = am__store_user_exists(s, uid);
    if (live < 0) return -live;
    if (live) return AM_OK;
    am__fjob_op tomb = {.kind = AM__FJOB_TOMB_GET, .uid = uid, .level = "user", .pseudonym = 1};
    if ((rc = jobs_one(s, &tomb, &job, &found))) return rc;
    if (found) {
        *state = AM__FORGOTTEN_PURGED;
        *at = job.forgotten_at;
        *until = job.purge_at;
    }
    return AM_OK;
}

int am__forget_restore(am__store *s, const char *uid, am_time now)
{
    int state;
    am_time at, until;
    int rc = am__forget_state(s, uid, &state, &at, &until);
    if (rc) return rc;
    if (state == AM__FORGOTTEN_NONE) return AM_NOTFOUND;
    if (state != AM__FORGOTTEN_HELD || until <= now) return AM_DENIED;
    am__fjob_op op = {.kind = AM__FJOB_DEL, .uid = uid, .level = "user", .state = "held"};
    size_t n = 0;
    return s->vt->forget.forget_jobs(s, &op, NULL, NULL, &n);
}

/* The latest forget of (level, id) when it is held and restorable: *job,
 * *at its forget time; AM_NOTFOUND (never forgotten), AM_DENIED (its
 * grace period is over: purged, purging, or due). */
static int held_job_find(am__store *s, const char *uid, int level, const char *id, am_time now,
                         int64_t *job, am_time *at)
{
    am__fjob_op op = {.kind = AM__FJOB_LIST,
                      .uid = uid,
                      .level = level_names[level],
                      .object_id = id,
                      .latest = 1};
    am__fjob_row row;
    int found;
    int rc = jobs_one(s, &op, &row, &found);
    if (rc) return rc;
    if (found) {
        *job = row.seq;
        *at = row.forgotten_at;
        return row.held && row.purge_at > now ? AM_OK : AM_DENIED;
    }
    /* purged (its tombstone stays, under the id's keyed hash), or never
     * forgotten */
    char ref[AM__REF_LEN + 1];
    if ((rc = am__store_object_ref(s, uid, level_names[level], id, ref))) return rc;
    am__fjob_op tomb = {
        .kind = AM__FJOB_TOMB_GET, .uid = uid, .level = level_names[level], .object_id = ref};
    if ((rc = jobs_one(s, &tomb, &row, &found))) return rc;
    return found ? AM_DENIED : AM_NOTFOUND;
}

int am__forget_restore_forget(am__store *s, const char *uid, int level, const char *id, am_time now,
                              long *events)
{
    *events = 0;
    if (level == AM_FORGET_USER) return am__forget_restore(s, uid, now);
    if (level < AM_FORGET_EVENT || level > AM_FORGET_TASK) return AM_MISUSE;
    int64_t job = 0;
    am_time at = 0;
    int rc = held_job_find(s, uid, level, id, now, &job, &at);
    if (!rc) rc = s->vt->forget.restore_forget(s, uid, job, at, events);
    /* its tombstone and its job go: nothing of it is forgotten now */
    char ref[AM__REF_LEN + 1];
    if (!rc) rc = am__store_object_ref(s, uid, level_names[level], id, ref);
    size_t n = 0;
    if (!rc) {
        am__fjob_op tomb = {.kind = AM__FJOB_TOMB_DEL,
                            .uid = uid,
                            .level = level_names[level],
                            .object_id = ref,
                            .at = at};
        rc = s->vt->forget.forget_jobs(s, &tomb, NULL, NULL, &n);
    }
    if (!rc) {
        am__fjob_op del = {.kind = AM__FJOB_DEL, .uid = uid, .seq = job};
        rc = s->vt->forget.forget_jobs(s, &del, NULL, NULL, &n);
    }
    return rc;
}

int am__forget_held(am__store *s, const char *uid, am__arena *ar, am__held_row **rows, size_t *n)
{
    *rows = NULL;
    *n = 0;
    am__fjob_op op = {.kind = AM__FJOB_LIST, .uid = uid, .not_level = "user", .state = "held"};
    am__fjob_row *jobs = NULL;
    size_t k = 0;
    int rc = s->vt->forget.forget_jobs(s, &op, ar, &jobs, &k);
    if (rc || k == 0) return rc;
    am__held_row *out = am__arena_alloc(ar, k * sizeof *out);
    if (!out) return AM_NOMEM;
    for (size_t i = 0; i < k; i++) {
        out[i].level = jobs[i].level;
        out[i].object_id = jobs[i].object_id;
        out[i].forgotten_at = jobs[i].forgotten_at;
        out[i].purge_at = jobs[i].purge_at;
    }
    *rows = out;
    *n = k;
    return AM_OK;
}

int am__forget_user(am__store *s, const char *uid, am_time now, am_time purge_at, long *events,
                    long *items, long *tasks)
{
    am__forget_sel user = {AM_FORGET_USER};
    am__forget_marked m;
    int rc = s->vt->forget.forget_mark(s, uid, &user, NULL, &m);
    *events = rc ? 0 : m.events;
    *items = rc ? 0 : m.versions;
    *tasks = rc ? 0 : m.tasks;
    if (rc) return rc;
    /* forgotten again while held: the purge comes no later */
    am__fjob_op set = {
        .kind = AM__FJOB_SET, .uid = uid, .level = "user", .at = now, .purge_at = purge_at};
    size_t n = 0;
    if ((rc = s->vt->forget.forget_jobs(s, &set, NULL, NULL, &n)) || n > 0) return rc;
    am__fjob_op add = {.kind = AM__FJOB_ADD,
                       .uid = uid,
                       .level = "user",
                       .state = purge_at <= now ? "purge" : "held",
                       .at = now,
                       .purge_at = purge_at};
    return s->vt->forget.forget_jobs(s, &add, NULL, NULL, &n);
}

int am__forget_grace(am__store *s, const char *uid, int level, const char *id, am_time now,
                     am_time purge_at, long *events, long *items, long *tasks)
{
    *events = *items = *tasks = 0;
    if (level == AM_FORGET_USER)
        return am__forget_user(s, uid, now, purge_at, events, items, tasks);
    if (level < AM_FORGET_EVENT || level > AM_FORGET_TASK) return AM_MISUSE;
    am__forget_gone g;
    int rc = s->vt->forget.forget_grace(s, uid, level, id, now, purge_at, &g);
    if (rc) return rc;
    *events = g.events;
    *items = g.versions;
    *tasks = g.tasks;
    size_t n = 0;
    if (g.picked == 0 && g.tasks == 0 && g.versions == 0) {
        if (!g.pulled) return AM_NOTFOUND;
        /* only held rows forgotten again: their purge comes earlier, no
         * job of its own */
        am__fjob_op del = {.kind = AM__FJOB_DEL, .uid = uid, .seq = g.job};
        return g.job > 0 ? s->vt->forget.forget_jobs(s, &del, NULL, NULL, &n) : AM_OK;
    }
    /* the tombstone names what went by its keyed hash: a caller's session
     * or task id is often made of the user's words */
    char ref[AM__REF_LEN + 1];
    if ((rc = am__store_object_ref(s, uid, level_names[level], id, ref))) return rc;
    am__fjob_op tomb = {.kind = AM__FJOB_TOMB_PUT,
                        .uid = uid,
                        .level = level_names[level],
                        .object_id = ref,
                        .id = id,
                        .at = now};
    if ((rc = s->vt->forget.forget_jobs(s, &tomb, NULL, NULL, &n)) || g.job > 0) return rc;
    /* gone now: the files owe a scrub (a store that owes none: no job) */
    am__fjob_op scrub = {.kind = AM__FJOB_ADD,
                         .uid = uid,
                         .level = level_names[level],
                         .state = "scrub",
                         .at = now,
                         .purge_at = now};
    return s->vt->forget.forget_jobs(s, &scrub, NULL, NULL, &n);
}

int am__forget(am__store *s, const char *uid, int level, const char *id, am_time now, long *events,
               long *items, long *tasks)
{
    return am__forget_grace(s, uid, level, id, now, now, events, items, tasks);
}

int am__forget_touched(am__store *s, am__arena *ar, const char ***task_ids, size_t *n)
{
    am__forget_sel last = {0};
    am__forget_marked m;
    int rc = s->vt->forget.forget_mark(s, NULL, &last, ar, &m);
    *task_ids = rc ? NULL : m.tasks_touched;
    *n = rc ? 0 : m.n_touched;
    return rc;
}

int am__forget_item_delete(am__store *s, const char *uid, const char *lineage_id, am_time now,
                           long *versions)
{
    am__forget_del d = {.lineage = lineage_id};
    am__forget_gone gone;
    int rc = s->vt->forget.forget_delete(s, uid, &d, &gone);
    *versions = rc ? 0 : gone.versions;
    if (rc) return rc;
    if (gone.versions == 0) return AM_NOTFOUND;
    /* its text leaves the files too (a store that owes no scrub: none) */
    am__fjob_op scrub = {.kind = AM__FJOB_ADD,
                         .uid = uid,
                         .level = "memory",
                         .state = "scrub",
                         .at = now,
                         .purge_at = now};
    size_t n = 0;
    return s->vt->forget.forget_jobs(s, &scrub, NULL, NULL, &n);
}

/* A scrub job's turn: the store's merge step or checkpoint; *stop 1 when
 * the call ends here (*more said). */
static int scrub_turn(am__store *s, const am__fjob_due *job, am__ctl_scrub *sc, int max_steps,
                      int *more, int *stop)
{
    sc->seq = job->seq;
    sc->tries = max_steps > 0 ? 1 : 0;
    int rc = am__store_control(s, AM__CTL_SCRUB, sc);
    if (rc == AM_NOTFOUND) { /* a store that owes no scrub: the job is done */
        am__fjob_op del = {.kind = AM__FJOB_DEL, .uid = job->uid, .seq = job->seq};
        size_t n = 0;
        return s->vt->forget.forget_jobs(s, &del, NULL, NULL, &n);
    }
    if (rc) return rc;
    if (sc->stepped && s->on_step) s->on_step(s->step_ctx);
    if (sc->later) *more = *stop = 1;
    return AM_OK;
}

int am__forget_work(am__store *s, am_time now, int max_steps, int *more)
{
    *more = 0;
    am__ctl_scrub sc = {.budget = -1};
    for (int steps = 0;; steps++) {
        am__fjob_due job;
        am__fjob_op next = {.kind = AM__FJOB_NEXT, .at = now, .due = &job};
        size_t n = 0;
        int rc = s->vt->forget.forget_jobs(s, &next, NULL, NULL, &n);
        if (rc || n == 0) return rc;
        if (max_steps > 0 && steps >= max_steps) {
            *more = 1;
            return AM_OK;
        }
        if (steps) {
            struct timespec pause = {0, WORK_PAUSE_MS * 1000000L};
            nanosleep(&pause, NULL);
        }
        if (strcmp(job.state, "scrub") == 0) {
            int stop = 0;
            if ((rc = scrub_turn(s, &job, &sc, max_steps, more, &stop)) || stop) return rc;
            continue;
        }
        if ((rc = am__store_begin(s))) return rc;
        if ((rc = s->vt->forget.forget_step(s, &job, now))) {
            am__store_rollback(s);
            return rc;
        }
        if ((rc = am__store_commit(s))) return rc;
        if (s->on_step) s->on_step(s->step_ctx);
    }
}
