/* SPDX-License-Identifier: Apache-2.0 */
/*
 * forget.c -- am_forget and am_restore (docs/FORGETTING.md): what the
 * API adds to the store's forgetting (store/sqlite/forget.c).
 *
 *  - Task state after a forget of events, a session or a task: a task's
 *    notes, artifacts and pending decisions were built event by event by
 *    the write path (perceive/state.c, the one-off rule of distill/), so
 *    the store deletes the tasks' derived history and the task is rebuilt
 *    by replaying its remaining events, in the order they were written,
 *    through the same steps (am__perceive_task_apply, am__perceive_artifact
 *    on the stored entities, am__perceive_one_off on the sentences
 *    am__db_distill calls one-off), in the forget's transaction.
 *  - A user forget hides the user at once and leaves the purge to a job
 *    due at the end of the grace period (am_config.forget_grace_ms,
 *    default 0: at once); am__db_forget_work does due jobs' work in short
 *    transactions -- to the end right after a forget, on open and on
 *    am_optimize, a step after each write -- so other users' writes wait
 *    for one step at most.  Until the purge, am_restore brings the user
 *    back; every other call treats a hidden user as unknown
 *    (am__db_user_gate), and writes for it are refused rather than mixed
 *    into the rows being purged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/db_int.h"
#include "domain/forget.h"
#include "write/distill/rules.h"
#include "write/perceive/perceive.h"
#include "recall/recall.h"
#include "text/entities.h"

/* ------------------------------------------------------------ jobs, gate */

void am__db_forget_work(am_db *db, int max_steps)
{
    am__db_forget_work_steps(db, max_steps, NULL, NULL);
}

void am__db_forget_work_steps(am_db *db, int max_steps, void (*on_step)(void *ctx), void *ctx)
{
    am__store *s = db->store;
    int more = 0;
    s->on_step = on_step;
    s->step_ctx = ctx;
    int rc = am__forget_work(s, am__db_now(db), max_steps, &more);
    /* run to the end: a lock held past the busy timeout is waited out a
     * few times more (a step is short; another writer's transaction too) */
    for (int tries = 0; rc == AM_BUSY && max_steps == 0 && tries < 10; tries++)
        rc = am__forget_work(s, am__db_now(db), max_steps, &more);
    if (rc)
        am__db_log(db, AM_LOG_WARN, "forget: pending work not done now (%s): %s", am_errstr(rc),
                   s->vt->errmsg(s));
    else if (more && max_steps == 0)
        am__db_log(db, AM_LOG_INFO, "forget: the log is in use by a reader; checkpoint later");
    s->on_step = NULL;
    s->step_ctx = NULL;
}

int am__db_user_gate(am_db *db, const char *what, const char *user_id, int rc_hidden)
{
    am__store *s = db->store;
    int state;
    am_time at, until;
    int rc = am__forget_state(s, user_id, &state, &at, &until);
    if (rc) return am__db_store_error(db, rc, what);
    if (state != AM__FORGOTTEN_HELD && state != AM__FORGOTTEN_PURGING) return AM_OK;
    char ts[32];
    return am__db_error(db, rc_hidden, "%s: user %s is forgotten (purge %s %s)%s", what, user_id,
                        state == AM__FORGOTTEN_HELD ? "at" : "running since",
                        am__time_format(until, 0, ts),
                        state == AM__FORGOTTEN_HELD ? "; am_restore brings it back" : "");
}

/* ------------------------------------------------------------ task replay */

typedef struct replay {
    am_db *db;
    am__perceive *x;
    am__distill prev;
} replay;

static int replay_sentence(void *ctx, const char *s, size_t n)
{
    replay *r = ctx;
    am__distill d;
    int rc = am__db_distill(r->db, s, n, NULL, &r->prev, &d);
    if (rc || d.action != AM__D_ONE_OFF) return rc;
    const char *sentence = am__arena_strndup(r->x->w.ar, s, n);
    return sentence ? am__perceive_one_off(r->x, sentence) : AM_NOMEM;
}

static int by_rid(const void *a, const void *b)
{
    int64_t x = ((const am__event_row *)a)->rid, y = ((const am__event_row *)b)->rid;
    return (x > y) - (x < y);
}

/* One task rebuilt from its remaining events (the store kept its row and
 * the history not derived from them). */
static int task_replay(am_db *db, const char *uid, const char *task_id, am__arena *ar)
{
    am__store *s = db->store;
    am__task_row old;
    int rc = am__store_task_get(s, uid, task_id, ar, &old);
    if (rc) return rc == AM_NOTFOUND ? AM_OK : rc;
    am__event_row *rows;
    size_t n;
    if ((rc = am__store_events_recent(s, uid, NULL, task_id, AM_TIME_NONE, 1 << 30, ar, &rows, &n)))
        return rc;
    qsort(rows, n, sizeof *rows, by_rid); /* the order they were written in */
    am__task_row *t = am__arena_alloc(ar, sizeof *t);
    if (!t) return AM_NOMEM;
    am__perceive_task_init(t, old.task_id, old.created_at);
    t->name = old.name;
    t->updated_at = old.updated_at;
    if (n) t->round_tz = rows[0].tz_minutes; /* the first round's calendar, as written */
    am__perceive x;
    memset(&x, 0, sizeof x);
    x.w = (am__wctx){s, db->text, &db->ulid, &db->cfg.rank, ar, uid, am__db_now(db), NULL, 0, NULL};
    x.task = t;
    const char *url = am__ent_type_name(AM_ENT_URL), *file = am__ent_type_name(AM_ENT_FILE);
    am__buf norm;
    am__buf_init(&norm, &db->alloc);
    for (size_t i = 0; i < n && !rc; i++) {
        am__event_row *ev = &rows[i];
        if (strcmp(ev->type, "task_switch") == 0) continue; /* the perception's own */
        x.ev = ev;
        norm.len = 0;
        if ((rc = am__text_normalize(db->text, ev->content, strlen(ev->content), &norm))) break;
        if ((rc = am__perceive_task_apply(&x, norm.p ? norm.p : "", norm.len))) break;
        am__entity_row *en;
        size_t ne;
        if ((rc = am__store_entities_list(s, uid, ev->rid, ar, &en, &ne))) break;
        for (size_t k = 0; k < ne && !rc; k++)
            if (strcmp(en[k].type, url) == 0 || strcmp(en[k].type, file) == 0)
                rc = am__perceive_artifact(&x, en[k].type, en[k].norm);
        if (!rc && strcmp(ev->source, "user") == 0) {
            replay r = {db, &x, {0}};
            rc = am__text_sentences(ev->content, strlen(ev->content), replay_sentence, &r);
        }
        t->updated_at = ev->occurred_at;
    }
    am__buf_free(&norm);
    return rc ? rc : s->vt->tasks.task_put(s, uid, t);
}

/* The tasks the last forget or restore touched (am__forget_touched), each
 * rebuilt from its events. */
static int tasks_replay(am_db *db, const char *uid, am__arena *ar)
{
    am__store *s = db->store;
    const char **tasks;
    size_t nt;
    int rc = am__forget_touched(s, ar, &tasks, &nt);
    for (size_t i = 0; i < nt && !rc; i++) rc = task_replay(db, uid, tasks[i], ar);
    return rc;
}

/* ------------------------------------------------------------ forget, restore */

static const char *const level_names[] = {"", "event", "session", "task", "user"};

/* am_forget_ex's steps: the forget's transaction, then each of the work's */
typedef struct forget_steps {
    am_progress_fn fn;
    void *ctx;
    size_t n;
} forget_steps;

static void forget_step(void *ctx)
{
    forget_steps *f = ctx;
    f->fn(f->ctx, ++f->n, 0);
}

int am_forget(am_db *db, const char *user_id, int level, const char *id,
              am_forget_info *info)
{
    return am_forget_ex(db, user_id, level, id, NULL, NULL, info);
}

int am_forget_ex(am_db *db, const char *user_id, int level, const char *id,
                 am_progress_fn progress, void *ctx, am_forget_info *info)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    const char *why;
    if (level < AM_FORGET_EVENT || level > AM_FORGET_USER)
        return am__db_error(db, AM_INVALID, "forget: unknown level %d", level);
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "forget: user %s", why);
    if (level != AM_FORGET_USER && (why = am__id_check(id)))
        return am__db_error(db, AM_INVALID, "forget: %s id %s", level_names[level], why);
    am__store *s = db->store;
    int exists = am__store_user_exists(s, user_id), state;
    am_time at, until;
    if (exists < 0) return am__db_store_error(db, -exists, "forget");
    int rc = exists ? AM_OK : am__forget_state(s, user_id, &state, &at, &until);
    if (rc) return am__db_store_error(db, rc, "forget");
    /* a held user forgotten again (a shorter grace) is the one exception */
    if (!exists && !(level == AM_FORGET_USER && state == AM__FORGOTTEN_HELD)) {
        if ((rc = am__db_user_gate(db, "forget", user_id, AM_NOTFOUND))) return rc;
        return am__db_error(db, AM_NOTFOUND, "forget: unknown user %s", user_id);
    }
    long ev = 0, it = 0, tk = 0;
    am_time now = am__db_now(db);
    am_time grace = db->cfg.forget_grace_ms > 0 ? db->cfg.forget_grace_ms : 0;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    /* before anything else: a queued id of it is never sent from now */
    am__llm_forgot(db, user_id, level, id);
    rc = am__store_begin(s);
    if (!rc && level == AM_FORGET_USER) {
        rc = am__forget_user(s, user_id, now, now + grace, &ev, &it, &tk);
        if (!rc) rc = am__maintain_forget(db, user_id); /* the pass's cursor names no one gone */
        /* the notice: ids only; the purge removes the user's other
         * events and keeps it under the pseudonym */
        am__outbox_row r = {0, now, AM_TIME_NONE, user_id, "memory.forgotten", NULL, NULL,
                            NULL, NULL, "user", NULL};
        if (!rc) rc = am__store_outbox_put(s, &r);
    }
    else if (!rc) /* held until now + grace (held.c), or gone now */
        rc = am__forget_grace(s, user_id, level, id, now, now + grace, &ev, &it, &tk);
    if (!rc && level != AM_FORGET_USER) /* the touched tasks, without them */
        rc = tasks_replay(db, user_id, &ar);
    if (!rc) {
        char detail[128];
        if (grace > 0)
            snprintf(detail, sizeof detail,
                     "{\"events\":%ld,\"memories\":%ld,\"tasks\":%ld,\"grace_ms\":%lld}", ev, it, tk,
                     (long long)grace);
        else
            snprintf(detail, sizeof detail, "{\"events\":%ld,\"memories\":%ld,\"tasks\":%ld}", ev,
                     it, tk);
        /* the caller's id by its keyed hash, as the tombstone keeps it */
        char ref[AM__REF_LEN + 1] = "";
        if (level != AM_FORGET_USER) rc = am__store_object_ref(s, user_id, level_names[level], id, ref);
        if (!rc)
            rc = am__store_audit(s, user_id, now, "forget", level_names[level], ref[0] ? ref : NULL,
                                 detail);
    }
    if (!rc) rc = am__store_commit(s);
    am__arena_free(&ar);
    if (rc) {
        am__store_rollback(s);
        if (rc == AM_NOTFOUND)
            return am__db_error(db, rc, "forget: user %s has no %s %s", user_id,
                                level_names[level], id);
        if (rc == AM_NOMEM) return am__db_error(db, rc, "forget: out of memory");
        return am__db_store_error(db, rc, "forget");
    }
    /* no token set, normal form or stem of forgotten text stays */
    am__tokcache_clear(db->tokcache);
    am__text_forget(db->text);
    am__touch_drop(db, user_id); /* a kept heat update of the user's items */
    /* the shared cache: its recall entries, and for the user every key
     * (working memory, the generation); cache/dbcache.c */
    if (level == AM_FORGET_USER && (rc = am__working_forget(db, user_id, NULL)))
        am__db_log(db, AM_LOG_WARN, "forget: user %s: working memory: %s", user_id, am_errmsg(db));
    if (level == AM_FORGET_SESSION && (rc = am__working_forget(db, user_id, id)))
        am__db_log(db, AM_LOG_WARN, "forget: user %s: working memory: %s", user_id, am_errmsg(db));
    am__dbcache_forget(db->cache, user_id, level == AM_FORGET_USER);
    am__events_deliver(db);
    forget_steps steps = {progress, ctx, 0};
    if (progress) forget_step(&steps); /* the forget's transaction */
    /* the purge when due now, the index, the log */
    am__db_forget_work_steps(db, 0, progress ? forget_step : NULL, &steps);
    if (progress) progress(ctx, steps.n, steps.n);
    am__db_log(db, AM_LOG_INFO, "forget: user %s %s %s: %ld events, %ld memories, %ld tasks",
               user_id, level_names[level], id && level != AM_FORGET_USER ? id : "-", ev, it, tk);
    if (am__log_on(&db->log)) {
        am__logrec r;
        am__logrec_begin(&r, &db->log, AM_LOG_INFO, "forget", now);
        am__logrec_str(&r, "user", user_id);
        am__logrec_str(&r, "level", level_names[level]);
        am__logrec_int(&r, "events", ev);
        am__logrec_int(&r, "memories", it);
        am__logrec_int(&r, "tasks", tk);
        am__logrec_int(&r, "grace_ms", grace);
        am__logrec_emit(&r);
    }
    if (info) {
        info->events = ev;
        info->memories = it;
        info->tasks = tk;
    }
    return AM_OK;
}

int am_restore(am_db *db, const char *user_id)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    const char *why;
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "restore: user %s", why);
    am__store *s = db->store;
    am_time now = am__db_now(db);
    int rc = am__store_begin(s);
    if (!rc) rc = am__forget_restore(s, user_id, now);
    if (!rc) rc = am__store_audit(s, user_id, now, "restore", "user", NULL, NULL);
    if (!rc) rc = am__store_commit(s);
    if (rc) am__store_rollback(s);
    if (rc == AM_NOTFOUND)
        return am__db_error(db, rc, "restore: user %s is not forgotten and held", user_id);
    if (rc == AM_DENIED) {
        am__db_forget_work(db, 0); /* due: it goes now */
        return am__db_error(db, rc, "restore: user %s: the grace period is over; the data is purged",
                            user_id);
    }
    if (rc) return am__db_store_error(db, rc, "restore");
    am__tokcache_clear(db->tokcache);
    am__dbcache_note(db->cache, user_id);
    am__dbcache_flush(db->cache);
    am__db_log(db, AM_LOG_INFO, "restore: user %s", user_id);
    return AM_OK;
}

int am_restore_forget(am_db *db, const char *user_id, int level, const char *id)
{
    if (!db) return AM_MISUSE;
    if (level == AM_FORGET_USER) return am_restore(db, user_id);
    am__db_clear_error(db);
    const char *why;
    if (level < AM_FORGET_EVENT || level > AM_FORGET_TASK)
        return am__db_error(db, AM_INVALID, "restore: unknown level %d", level);
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "restore: user %s", why);
    if ((why = am__id_check(id)))
        return am__db_error(db, AM_INVALID, "restore: %s id %s", level_names[level], why);
    int rc = am__db_user_gate(db, "restore", user_id, AM_DENIED);
    if (rc) return rc;
    am__store *s = db->store;
    am_time now = am__db_now(db);
    long ev = 0;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    rc = am__store_begin(s);
    if (!rc) rc = am__forget_restore_forget(s, user_id, level, id, now, &ev);
    if (!rc) rc = tasks_replay(db, user_id, &ar); /* events of them written since */
    if (!rc) {
        char detail[64];
        snprintf(detail, sizeof detail, "{\"events\":%ld}", ev);
        char ref[AM__REF_LEN + 1];
        rc = am__store_object_ref(s, user_id, level_names[level], id, ref);
        if (!rc) rc = am__store_audit(s, user_id, now, "restore", level_names[level], ref, detail);
    }
    if (!rc) rc = am__store_commit(s);
    am__arena_free(&ar);
    if (rc) am__store_rollback(s);
    if (rc == AM_NOTFOUND)
        return am__db_error(db, rc, "restore: user %s has no %s %s forgotten and held", user_id,
                            level_names[level], id);
    if (rc == AM_DENIED) {
        am__db_forget_work(db, 0); /* due: it goes now */
        return am__db_error(db, rc, "restore: user %s, %s %s: the grace period is over; the data is purged",
                            user_id, level_names[level], id);
    }
    if (rc == AM_NOMEM) return am__db_error(db, rc, "restore: out of memory");
    if (rc) return am__db_store_error(db, rc, "restore");
    am__tokcache_clear(db->tokcache);
    am__dbcache_note(db->cache, user_id);
    am__dbcache_flush(db->cache);
    am__db_log(db, AM_LOG_INFO, "restore: user %s %s %s: %ld events", user_id, level_names[level],
               id, ev);
    return AM_OK;
}
