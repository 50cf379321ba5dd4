/* SPDX-License-Identifier: Apache-2.0 */
/*
 * read.c -- am_recall and am_task_get: arguments checked, the user
 * resolved, the read snapshot; the pipeline (recall/pipeline.c) and the
 * result's shapes (recall/result.c, domain/shapes.c) do the rest.
 * Results live in one arena each and are released whole by their _free
 * function.  Listings and feedback: memories.c; export: export.c.
 */
#include <stdio.h>
#include <string.h>

#include "api/db_int.h"
#include "domain/task.h"
#include "domain/shapes.h"
#include "lifecycle/maintain.h"
#include "recall/pipeline.h"
#include "recall/result.h"
#include "store/metadata.h"
#include "text/domain.h"

/* ------------------------------------------------------------ recall */

typedef struct recall_box {
    am_recall_result pub;
    am__arena ar;
    am__allocator alloc;
    /* for the log record: the pipeline's state (NULL: served from the
     * shared cache, or no pipeline ran) and the user it ran for */
    const am__recall_state *st;
    char uid[AM_ID_MAX + 1];
} recall_box;

void am_recall_free(am_recall_result *r)
{
    if (!r) return;
    recall_box *b = (recall_box *)r;
    am__allocator a = b->alloc;
    am__arena_free(&b->ar);
    am__free(&a, b);
}

/* Archived items the turn's words hold come back before it is answered
 * (lifecycle/archive.c): looked for alone, revived in a write transaction
 * only when there is one. */
static int revive_referenced(am_db *db, const char *uid, const char *text, am_time now)
{
    am__store *s = db->store;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__wctx w = {s, db->text, &db->ulid, &db->cfg.rank, &ar, uid, now, NULL, now, NULL};
    int any = 0;
    int rc = am__life_referenced(&w, text, &any);
    if (!rc && any) {
        long n = 0;
        am__dbcache_note(db->cache, uid);
        rc = am__store_begin(s);
        if (!rc) rc = am__store_lock_users(s, &uid, 1);
        if (!rc) rc = am__life_revive(&w, text, &n);
        if (!rc) rc = am__store_commit(s);
        if (rc) am__store_rollback(s);
        am__dbcache_flush(db->cache);
        if (!rc) am__events_deliver(db);
    }
    am__arena_free(&ar);
    return rc ? am__db_store_error(db, rc, "recall") : AM_OK;
}

/* The recall: arguments checked, the user resolved, then the pipeline
 * (recall/pipeline.c) over the handle's store, analyzer and caches; its
 * state boxed into the public result, and the shown items' heat touched. */
static int recall_run(am_db *db, const am_query *q, recall_box *box, char **ckey)
{
    am__arena *ar = &box->ar;
    am_recall_result *res = &box->pub;
    am__store *s = db->store;
    int rc;
    const char *why;
    box->st = NULL;
    if (!q->text) return am__db_error(db, AM_INVALID, "recall: query text is missing");
    size_t qn = strlen(q->text), bad;
    if (qn > db->cfg.max_text_bytes)
        return am__db_error(db, AM_TOOBIG, "recall: query is %zu bytes, over the limit", qn);
    if (!am__utf8_valid(q->text, qn, &bad))
        return am__db_error(db, AM_INVALID, "recall: query: invalid UTF-8 at byte %zu", bad);
    am_time now = am__db_now(db), as_of = AM_TIME_NONE;
    if (q->as_of && am__time_parse(q->as_of, &as_of, NULL, &why))
        return am__db_error(db, AM_INVALID, "recall: as_of \"%.64s\" %s", q->as_of, why);
    char uid[AM_ID_MAX + 1];
    if ((rc = am__db_resolve_user(db, "recall", q->user_id, q->channel, q->external_id, 0, uid)))
        return rc;
    if (q->agent_id && (rc = am__db_check_id(db, "recall", "agent", q->agent_id))) return rc;
    if (q->role && (rc = am__db_check_id(db, "recall", "role", q->role))) return rc;
    am__filter *filt = NULL;
    if (q->filter) {
        char fwhy[256];
        if (!(filt = am__arena_alloc(ar, sizeof *filt)))
            return am__db_error(db, AM_NOMEM, "recall: out of memory");
        if ((rc = am__filter_compile(q->filter, ar, filt, fwhy, sizeof fwhy)))
            return am__db_error(db, rc, "recall: %s", rc == AM_NOMEM ? "out of memory" : fwhy);
    }
    if (as_of == AM_TIME_NONE && (rc = revive_referenced(db, uid, q->text, now))) return rc;
    /* the shared cache (cache/dbcache.c): an identical recall under the
     * user's current generation; down or a miss: the pipeline (a filtered
     * recall always: its key would not say the filter) */
    if (db->cache && !filt && am__dbcache_recall_key(db->cache, uid, q, now, ar, ckey) == AM_OK &&
        am__dbcache_recall_get(db->cache, *ckey, ar, res) == AM_OK) {
        *ckey = NULL;
        snprintf(box->uid, sizeof box->uid, "%s", uid);
        am__db_log(db, AM_LOG_DEBUG, "recall: user %s: served from the cache", uid);
        return AM_OK;
    }
    /* an agent's recall reads through a store that hides what the
     * agent may not see (recall/access.h); the user's own reads the store */
    am__access acc;
    am__access_init(&acc, q->agent_id, q->role, &db->roles);
    am__access_store filtered;
    am__access_store_init(&filtered, s, &acc);
    am__recall_env env = {acc.scoped ? &filtered.base : s,
                          db->text, db->tokcache, db->embedder, db->embed_zh, &db->cfg.rank,
                          &db->alloc, db->cfg.default_tz_minutes, {0}};
    am__db_redact_policy(db, &env.redact);
    am__recall_state *st = am__arena_alloc(ar, sizeof *st);
    if (!st) return am__db_error(db, AM_NOMEM, "recall: out of memory");
    memset(st, 0, sizeof *st);
    st->env = &env;
    st->q = q;
    st->uid = uid;
    st->ar = ar;
    st->now = now;
    st->as_of = as_of;
    st->qn = qn;
    st->filt = filt;
    box->st = st;
    snprintf(box->uid, sizeof box->uid, "%s", uid);
    /* one snapshot for every stage and the result's task */
    if ((rc = am__store_begin_read(s))) return am__db_store_error(db, rc, "recall");
    rc = am__access_load(&acc, s, uid, ar);
    if (!rc) rc = am__recall_run(st);
    am__recall_result_route(st, res);
    if (st->qnorm) {
        /* on disagreement, global recall (every domain's items) */
        if (st->domain_conflict)
            am__db_log(db, AM_LOG_WARN,
                       "recall: user %s: domain \"%s\" disagrees with the text (%s); global recall",
                       uid, q->domain, am__domain_infer(st->qnorm, st->qnorm_len));
    }
    if (rc) goto out_read;
    if (!st->rd.need_memory || !st->exists) goto out_read;

    /* the result: the items shown, the ranked events, the task */
    if ((rc = am__recall_result_items(st, s, &acc, res))) goto out_read;
    if ((rc = am__store_end_read(s))) goto out_fail;

    /* access feedback, only for recalls of the present; never waited
     * for: deferred while another writer holds the lock (touch.c). */
    if (as_of == AM_TIME_NONE && st->used_items && !q->no_touch) {
        const char **ids = am__arena_alloc(ar, st->used_items * sizeof *ids);
        for (size_t i = 0; ids && i < st->used_items; i++) ids[i] = st->scored[i].row->lineage_id;
        if (ids) am__touch_items(db, uid, ids, st->used_items, now); /* else: no heat, the result */
    }
    return AM_OK;
out_read:
    {
    int end = am__store_end_read(s);
    if (!rc) rc = end;
    }
    if (!rc) return AM_OK;
out_fail:
    if (st->err[0]) return am__db_error(db, rc, "%s", st->err);
    if (rc == AM_NOMEM) return am__db_error(db, rc, "recall: out of memory");
    return am__db_store_error(db, rc, "recall");
}

int am_recall(am_db *db, const am_query *q, am_recall_result **out)
{
    if (!db || !q || !out) return AM_MISUSE;
    *out = NULL;
    am__db_clear_error(db);
    if (am__db_check_size(db, "recall", "am_query.size", q->size, sizeof *q)) return AM_MISUSE;
    recall_box *box = am__calloc(&db->alloc, sizeof *box);
    if (!box) return am__db_error(db, AM_NOMEM, "recall: out of memory");
    box->alloc = db->alloc;
    am__arena_init(&box->ar, &box->alloc);
    /* a recall that lost the store's connection runs again on a new one */
    int64_t t0 = 0, started = am__mono_us();
    int rc;
    char *ckey = NULL;
    am_time now = am__db_now(db);
    while ((rc = recall_run(db, q, box, &ckey)) && am__db_retry(db, rc, "recall", 1, &t0)) {
        am__arena_free(&box->ar);
        memset(&box->pub, 0, sizeof box->pub);
        am__arena_init(&box->ar, &box->alloc);
        ckey = NULL;
    }
    if (rc == AM_OK) {
        if (!box->pub.block) box->pub.block = "";
        if (!box->pub.block_system) box->pub.block_system = "";
        if (!box->pub.block_context) box->pub.block_context = "";
        if (!box->pub.route_reason) box->pub.route_reason = "default";
        box->pub.json = am__recall_json(&box->ar, &box->pub, now);
        if (!box->pub.json) rc = am__db_error(db, AM_NOMEM, "recall: out of memory");
        if (!rc && am__log_on(&db->log))
            am__recall_log(&db->log, am__db_now(db), q, &box->pub, box->st, box->uid,
                           db->cache != NULL, started);
        /* cached only when its heat touch changed nothing (cache/dbcache.c) */
        if (!rc && ckey && (q->no_touch || q->as_of || box->pub.n_memories == 0))
            am__dbcache_recall_put(db->cache, ckey, &box->pub, now);
    }
    if (rc) {
        am_recall_free(&box->pub);
        return rc;
    }
    *out = &box->pub;
    return AM_OK;
}

/* ------------------------------------------------------------ tasks */

typedef struct task_box {
    am_task *pub;   /* first, so the public pointer is the box's */
    am__arena ar;
    am__allocator alloc;
} task_box;

/* am_task_get returns a pointer into an arena whose first block is known
 * only to the box; keep a back pointer in a side header. */
typedef struct task_hdr {
    am_task task;
    task_box *box;
} task_hdr;

int am_task_get(am_db *db, const char *user_id, const char *task_id, am_task **out)
{
    return am_task_get_as(db, user_id, task_id, NULL, NULL, out);
}

int am_task_get_as(am_db *db, const char *user_id, const char *task_id, const char *agent_id,
                   const char *role, am_task **out)
{
    if (!db || !out) return AM_MISUSE;
    *out = NULL;
    am__db_clear_error(db);
    const char *why;
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "task: user %s", why);
    if ((why = am__id_check(task_id))) return am__db_error(db, AM_INVALID, "task: task %s", why);
    int rc;
    if (agent_id && (rc = am__db_check_id(db, "task", "agent", agent_id))) return rc;
    if (role && (rc = am__db_check_id(db, "task", "role", role))) return rc;
    if ((rc = am__db_user_gate(db, "task", user_id, AM_NOTFOUND))) return rc;
    task_box *box = am__calloc(&db->alloc, sizeof *box);
    if (!box) return AM_NOMEM;
    box->alloc = db->alloc;
    am__arena_init(&box->ar, &box->alloc);
    am__task_row row;
    am__access acc;
    am__access_init(&acc, agent_id, role, &db->roles);
    rc = am__store_task_get(db->store, user_id, task_id, &box->ar, &row);
    if (rc == AM_OK) rc = am__access_load(&acc, db->store, user_id, &box->ar);
    /* a task made of events hidden from the asker is not there for it */
    if (rc == AM_OK) rc = am__access_task_events(&acc, db->store, user_id, task_id, &box->ar);
    if (rc == AM_OK) rc = am__access_task(&acc, &box->ar, &row);
    /* as it stands now: a periodic task's ended period shows its next
     * round (domain/round.c) */
    if (rc == AM_OK) rc = am__round_view(&box->ar, &row, am__db_now(db), 0);
    am_task *t = NULL;
    if (rc == AM_OK)
        rc = am__task_build(db->store, user_id, &box->ar, &row, am__access_history_keep, &acc, &t);
    if (rc == AM_OK) {
        task_hdr *h = am__arena_alloc(&box->ar, sizeof *h);
        if (!h) rc = AM_NOMEM;
        else {
            h->task = *t;
            h->box = box;
            *out = &h->task;
            return AM_OK;
        }
    }
    am__arena_free(&box->ar);
    am__free(&db->alloc, box);
    if (rc == AM_NOTFOUND)
        return am__db_error(db, rc, "task: user %s has no task %s", user_id, task_id);
    return am__db_store_error(db, rc, "task");
}

void am_task_free(am_task *t)
{
    if (!t) return;
    task_box *box = ((task_hdr *)t)->box;
    am__allocator a = box->alloc;
    am__arena_free(&box->ar);
    am__free(&a, box);
}
