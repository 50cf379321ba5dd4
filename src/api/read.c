/* SPDX-License-Identifier: Apache-2.0 */
/*
 * read.c -- am_recall and the other read-side entry points: task state,
 * memory listings, feedback, forgetting and export.  Results live in one
 * arena each and are released whole by their _free function.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/db_int.h"
#include "domain/task.h"
#include "lifecycle/maintain.h"
#include "recall/pipeline.h"
#include "semantic/merge.h"
#include "store/metadata.h"
#include "text/domain.h"
#include "text/entities.h"
#include "text/redact.h"

/* ------------------------------------------------------------ conversion */

static void memory_from_row(am_memory *m, const am__item_row *r)
{
    m->id = r->id;
    m->lineage_id = r->lineage_id;
    m->scope = r->scope;
    m->kind = r->kind;
    m->key = r->key;
    m->text = r->text;
    m->value_json = r->value_json;
    m->status = r->status;
    m->confidence = r->confidence;
    m->base_score = r->base_score;
    m->half_life_days = r->half_life_days;
    m->hits = r->hits;
    m->last_access = r->last_access;
    m->valid_from = r->valid_from;
    m->valid_to = r->valid_to;
    m->recorded_at = r->recorded_at;
    m->superseded_at = r->superseded_at;
    m->source_event_ids = r->sources;
    m->n_sources = r->n_sources;
    m->source_count = r->source_count > (long)r->n_sources ? r->source_count : (long)r->n_sources;
    m->reinforced_at = r->reinforced_at != AM_TIME_NONE ? r->reinforced_at : r->recorded_at;
    m->key_id = NULL; /* am_memories sets it */
    m->metadata_json = r->metadata;
    m->origin = r->origin;
    m->expires_at = am__item_expiry(r);
}

/* an item listed as it stood at a past time (an as-of recall or
 * listing, a period the turn names) is reported with the status it had
 * then: a version withdrawn later (status invalidated, valid until the
 * withdrawal) was active while it was valid. */
static void memory_status_then(am_memory *m)
{
    if (strcmp(m->status, "invalidated") == 0) m->status = "active";
}

/* Which version this is (the `version_state` JSON field): "current" (valid
 * now, the latest record), "past" (the latest record of a value that held
 * from valid_from to valid_to), "replaced" (a record a later write closed in
 * system time: superseded_at), "pending" (an open question). */
static const char *version_state(const am_memory *m, am_time now)
{
    if (m->superseded_at != AM_TIME_NONE) return "replaced";
    /* an item that expires is current until it does */
    int ended = m->valid_to != AM_TIME_NONE &&
                (m->expires_at == AM_TIME_NONE || m->expires_at <= now);
    if (ended || strcmp(m->status, "invalidated") == 0) return "past";
    if (strcmp(m->status, "pending_confirm") == 0) return "pending";
    return "current";
}

static void event_from_row(am_event_rec *e, const am__event_row *r)
{
    e->id = r->id;
    e->agent_id = r->agent_id;
    e->session_id = r->session_id;
    e->task_id = r->task_id;
    e->channel = r->channel;
    e->source = r->source;
    e->type = r->type;
    e->domain = r->domain;
    e->intent = r->intent;
    e->content = r->content;
    e->occurred_at = r->occurred_at;
    e->tz_minutes = r->tz_minutes;
    e->score = r->score;
    e->metadata_json = r->metadata;
}

/* ,"name": (every recall builds its JSON: no printf for the names, and
 * one append for the lot) */
static void json_name(am__buf *b, const char *name, int comma)
{
    char s[64];
    size_t n = strlen(name), k = 0;
    if (n > sizeof s - 4) n = sizeof s - 4; /* (names are short literals) */
    if (comma) s[k++] = ',';
    s[k++] = '"';
    memcpy(s + k, name, n);
    k += n;
    s[k++] = '"';
    s[k++] = ':';
    am__buf_add(b, s, k);
}

static void json_time(am__buf *b, const char *name, am_time t, int comma)
{
    char ts[32];
    json_name(b, name, comma);
    if (t == AM_TIME_NONE) am__buf_adds(b, "null");
    else am__buf_json_str(b, am__time_format(t, 0, ts));
}

static void json_kv(am__buf *b, const char *name, const char *v, int comma)
{
    json_name(b, name, comma);
    if (v) am__buf_json_str(b, v);
    else am__buf_adds(b, "null");
}

/* Raw JSON value (already JSON) or null. */
static void json_raw(am__buf *b, const char *name, const char *v, int comma)
{
    json_name(b, name, comma);
    am__buf_adds(b, v && *v ? v : "null");
}

/* ,"name":v with `decimals` digits ("%.3f"), no printf */
static void json_fixed(am__buf *b, const char *name, double v, int decimals)
{
    json_name(b, name, 1);
    am__buf_add_fixed(b, v, decimals);
}

static void json_memory(am__buf *b, const am_memory *m, am_time now)
{
    am__buf_addc(b, '{');
    json_kv(b, "id", m->id, 0);
    json_kv(b, "lineage_id", m->lineage_id, 1);
    json_kv(b, "scope", m->scope, 1);
    json_kv(b, "kind", m->kind, 1);
    json_kv(b, "key", m->key, 1);
    json_kv(b, "text", m->text, 1);
    json_raw(b, "value", m->value_json, 1);
    json_kv(b, "status", m->status, 1);
    json_fixed(b, "confidence", m->confidence, 3);
    json_fixed(b, "base_score", m->base_score, 3);
    json_fixed(b, "half_life_days", m->half_life_days, 3);
    json_name(b, "hits", 1);
    am__buf_add_int(b, m->hits);
    json_time(b, "last_access", m->last_access, 1);
    json_time(b, "valid_from", m->valid_from, 1);
    json_time(b, "valid_to", m->valid_to, 1);
    json_time(b, "expires_at", m->expires_at, 1);
    json_time(b, "recorded_at", m->recorded_at, 1);
    json_time(b, "superseded_at", m->superseded_at, 1);
    am__buf_adds(b, ",\"source_event_ids\":[");
    for (size_t i = 0; i < m->n_sources; i++) {
        if (i) am__buf_addc(b, ',');
        am__buf_json_str(b, m->source_event_ids[i]);
    }
    am__buf_addc(b, ']');
    json_name(b, "source_count", 1);
    am__buf_add_int(b, m->source_count);
    json_time(b, "reinforced_at", m->reinforced_at, 1);
    json_fixed(b, "score", m->score, 4);
    json_kv(b, "version_state", version_state(m, now), 1);
    if (m->key_id) json_kv(b, "key_id", m->key_id, 1);
    json_name(b, "metadata", 1);
    am__buf_adds(b, m->metadata_json && *m->metadata_json ? m->metadata_json : "{}");
    json_kv(b, "origin", m->origin, 1);
    am__buf_addc(b, '}');
}

static void json_event(am__buf *b, const am_event_rec *e)
{
    char ts[32];
    am__buf_addc(b, '{');
    json_kv(b, "id", e->id, 0);
    json_kv(b, "agent", e->agent_id, 1);
    json_kv(b, "session", e->session_id, 1);
    json_kv(b, "task", e->task_id, 1);
    json_kv(b, "channel", e->channel, 1);
    json_kv(b, "source", e->source, 1);
    json_kv(b, "type", e->type, 1);
    json_kv(b, "domain", e->domain, 1);
    json_kv(b, "intent", e->intent, 1);
    json_kv(b, "content", e->content, 1);
    json_kv(b, "occurred_at", am__time_format(e->occurred_at, e->tz_minutes, ts), 1);
    json_fixed(b, "score", e->score, 4);
    json_name(b, "metadata", 1);
    am__buf_adds(b, e->metadata_json && *e->metadata_json ? e->metadata_json : "{}");
    am__buf_addc(b, '}');
}

static void json_task(am__buf *b, const am_task *t)
{
    am__buf_addc(b, '{');
    json_kv(b, "task_id", t->task_id, 0);
    if (t->task_ref) json_kv(b, "task_ref", t->task_ref, 1);
    json_kv(b, "name", t->name, 1);
    json_kv(b, "stage", t->stage, 1);
    json_kv(b, "status", t->status, 1);
    json_raw(b, "artifacts", t->artifacts_json, 1);
    json_raw(b, "pending", t->pending_json, 1);
    json_raw(b, "notes", t->notes_json, 1);
    json_time(b, "created_at", t->created_at, 1);
    json_time(b, "updated_at", t->updated_at, 1);
    am__buf_printf(b, ",\"round\":%d", t->round);
    json_time(b, "round_started_at", t->round_started_at, 1);
    json_kv(b, "period", t->period, 1);
    json_raw(b, "rounds", t->rounds_json ? t->rounds_json : "[]", 1);
    am__buf_adds(b, ",\"history\":[");
    for (size_t i = 0; i < t->n_history; i++) {
        const am_task_change *c = &t->history[i];
        if (i) am__buf_addc(b, ',');
        am__buf_addc(b, '{');
        json_time(b, "at", c->at, 0);
        json_kv(b, "field", c->field, 1);
        json_kv(b, "old", c->old_value, 1);
        json_kv(b, "new", c->new_value, 1);
        json_kv(b, "event_id", c->event_id, 1);
        am__buf_addc(b, '}');
    }
    am__buf_adds(b, "]}");
}

/* Build a public task (in the arena) from a row and its history. */
static int task_build(am_db *db, const am__access *acc, const char *uid, am__arena *ar,
                      const am__task_row *r, am_task **out)
{
    am_task *t = am__arena_alloc(ar, sizeof *t);
    if (!t) return AM_NOMEM;
    t->task_id = r->task_id;
    t->name = r->name;
    t->stage = r->stage;
    t->status = r->status;
    t->artifacts_json = r->artifacts;
    t->pending_json = r->pending;
    t->notes_json = r->notes;
    t->created_at = r->created_at;
    t->updated_at = r->updated_at;
    t->round = r->round > 0 ? r->round : 1;
    t->round_started_at = r->round_from;
    t->period = r->period;
    t->rounds_json = r->rounds ? r->rounds : "[]";
    char ref[AM__REF_LEN + 1];
    int rc = am__store_object_ref(db->store, uid, "task", r->task_id, ref);
    if (rc) return rc;
    if (!(t->task_ref = am__arena_strdup(ar, ref))) return AM_NOMEM;
    am__task_change_row *h;
    size_t n;
    if ((rc = db->store->vt->task_history(db->store, uid, r->task_id, ar, &h, &n))) return rc;
    if (acc) am__access_history(acc, h, &n);
    t->history = n ? am__arena_alloc(ar, n * sizeof *t->history) : NULL;
    if (n && !t->history) return AM_NOMEM;
    for (size_t i = 0; i < n; i++)
        t->history[i] = (am_task_change){h[i].at, h[i].field, h[i].old_value,
                                         h[i].new_value, h[i].event_id};
    t->n_history = n;
    *out = t;
    return AM_OK;
}

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
        rc = s->vt->begin(s);
        if (!rc && s->vt->lock_users) rc = s->vt->lock_users(s, &uid, 1);
        if (!rc) rc = am__life_revive(&w, text, &n);
        if (!rc) rc = s->vt->commit(s);
        if (rc) s->vt->rollback(s);
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
    if ((rc = s->vt->begin_read(s))) return am__db_store_error(db, rc, "recall");
    rc = am__access_load(&acc, s, uid, ar);
    if (!rc) rc = am__recall_run(st);
    res->lang = st->lang == AM_LANG_ZH ? "zh" : "en";
    res->domain_conflict = st->domain_conflict;
    res->need_memory = st->rd.need_memory;
    res->route = am__route_name(st->rd.route);
    res->route_reason = st->rd.reason ? st->rd.reason : "default";
    res->refs = (unsigned)st->rd.refs;
    res->block = st->block;
    res->block_system = st->block_system;
    res->block_context = st->block_context;
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
    res->block_tokens = st->block_tokens;
    res->block_system_tokens =
        st->block_system ? am__text_tokens_estimate(st->block_system, strlen(st->block_system)) : 0;
    res->block_context_tokens =
        st->block_context ? am__text_tokens_estimate(st->block_context, strlen(st->block_context)) : 0;
    res->memories = am__arena_alloc(ar, (st->used_items + 1) * sizeof *res->memories);
    res->events = am__arena_alloc(ar, (st->n_events + 1) * sizeof *res->events);
    if (!res->memories || !res->events) { rc = AM_NOMEM; goto out_read; }
    for (size_t i = 0; i < st->used_items; i++) {
        memory_from_row(&res->memories[i], st->scored[i].row);
        res->memories[i].score = st->scored[i].score;
        if (as_of != AM_TIME_NONE || st->period) memory_status_then(&res->memories[i]);
    }
    res->n_memories = st->used_items;
    for (size_t i = 0; i < st->n_events; i++) event_from_row(&res->events[i], &st->events[i]);
    res->n_events = st->n_events;
    if (st->task && (rc = task_build(db, &acc, uid, ar, st->task, &res->task))) goto out_read;
    if ((rc = s->vt->end_read(s))) goto out_fail;

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
        int end = s->vt->end_read(s);
        if (!rc) rc = end;
    }
    if (!rc) return AM_OK;
out_fail:
    if (st->err[0]) return am__db_error(db, rc, "%s", st->err);
    if (rc == AM_NOMEM) return am__db_error(db, rc, "recall: out of memory");
    return am__db_store_error(db, rc, "recall");
}

static const char *recall_json(am__arena *ar, const am_recall_result *r, am_time now)
{
    am__buf b;
    am__buf_init(&b, ar->a);
    am__buf_printf(&b, "{\"need_memory\":%s", r->need_memory ? "true" : "false");
    json_kv(&b, "route", r->route, 1);
    json_kv(&b, "lang", r->lang, 1);
    am__buf_printf(&b, ",\"domain_conflict\":%s", r->domain_conflict ? "true" : "false");
    am__buf_adds(&b, ",\"memories\":[");
    for (size_t i = 0; i < r->n_memories; i++) {
        if (i) am__buf_addc(&b, ',');
        json_memory(&b, &r->memories[i], now);
    }
    am__buf_adds(&b, "],\"events\":[");
    for (size_t i = 0; i < r->n_events; i++) {
        if (i) am__buf_addc(&b, ',');
        json_event(&b, &r->events[i]);
    }
    am__buf_adds(&b, "],\"task\":");
    if (r->task) json_task(&b, r->task);
    else am__buf_adds(&b, "null");
    json_kv(&b, "block", r->block, 1);
    am__buf_printf(&b, ",\"block_tokens\":%d", r->block_tokens);
    /* appended: the block's two parts, why the route, the kinds of
     * reference asked for */
    json_kv(&b, "block_system", r->block_system, 1);
    json_kv(&b, "block_context", r->block_context, 1);
    am__buf_printf(&b, ",\"block_system_tokens\":%d,\"block_context_tokens\":%d",
                   r->block_system_tokens, r->block_context_tokens);
    json_kv(&b, "route_reason", r->route_reason, 1);
    am__buf_printf(&b, ",\"refs\":[%s%s%s]}", r->refs & AM_REF_URL ? "\"url\"" : "",
                   (r->refs & AM_REF_URL) && (r->refs & AM_REF_FILE) ? "," : "",
                   r->refs & AM_REF_FILE ? "\"file\"" : "");
    const char *out = b.oom ? NULL : am__arena_strndup(ar, b.p, b.len);
    am__buf_free(&b);
    return out;
}

/* The recall's log record (docs/SERVER.md "Logs"): the route and why,
 * each stage's candidates and time, the best scores, what the block
 * kept -- by id; the query and the block only with content. */
static void recall_log(am_db *db, const am_query *q, const recall_box *box, int64_t t0)
{
    static const char *const ms_keys[AM__ST_COUNT] = {
        "route_ms", "filter_ms", "terms_ms", "search_ms", "hops_ms", "fuse_ms",
        "rank_ms",  "kinds_ms",  "dedup_ms", "budget_ms", "render_ms"};
    /* the count each stage makes: items (filter, rank, render) or events */
    static const char *const n_keys[AM__ST_COUNT] = {
        NULL,           "filter_items", NULL,           "search_events",
        "hops_events",  "fuse_events",  "rank_items",   "kinds_events",
        "dedup_events", "budget_events", "render_items"};
    if (!am__log_on(&db->log)) return;
    const am_recall_result *res = &box->pub;
    const am__recall_state *st = box->st;
    am__logrec r;
    am__logrec_begin(&r, &db->log, AM_LOG_INFO, "recall", am__db_now(db));
    am__logrec_str(&r, "user", box->uid);
    if (q->agent_id) am__logrec_str(&r, "agent", q->agent_id);
    am__logrec_str(&r, "route", res->route);
    am__logrec_str(&r, "reason", res->route_reason);
    am__logrec_int(&r, "need_memory", res->need_memory);
    am__logrec_str(&r, "lang", res->lang);
    am__logrec_str(&r, "cache", st ? (db->cache ? "miss" : "off") : "hit");
    if (st) {
        const am__recall_trace *t = &st->trace;
        for (int i = 0; i < AM__ST_COUNT; i++) {
            if (!(t->ran & (1u << i))) continue;
            am__logrec_real(&r, ms_keys[i], (double)t->us[i] / 1000.0);
            if (n_keys[i])
                am__logrec_int(&r, n_keys[i],
                               (int64_t)(i == AM__ST_FILTER || i == AM__ST_RANK ||
                                                 i == AM__ST_RENDER
                                             ? t->items[i]
                                             : t->events[i]));
        }
    }
    am__logrec_int(&r, "memories", (int64_t)res->n_memories);
    am__logrec_int(&r, "events", (int64_t)res->n_events);
    am__logrec_int(&r, "block_tokens", res->block_tokens);
    char list[3][600];
    for (int k = 0; k < 3; k++) {
        size_t len = 0;
        list[k][0] = '\0';
        size_t n = k == 0 ? res->n_memories : res->n_events;
        for (size_t i = 0; i < n && i < (k == 2 ? 3u : 8u) && len < sizeof list[k] - 40; i++) {
            if (k == 0)
                len += (size_t)snprintf(list[k] + len, sizeof list[k] - len, "%s%s",
                                        i ? "," : "", res->memories[i].lineage_id);
            else if (k == 1)
                len += (size_t)snprintf(list[k] + len, sizeof list[k] - len, "%s%s",
                                        i ? "," : "", res->events[i].id);
            else
                len += (size_t)snprintf(list[k] + len, sizeof list[k] - len, "%s%.3f",
                                        i ? "," : "", res->events[i].score);
        }
    }
    char top[200];
    size_t len = 0;
    top[0] = '\0';
    for (size_t i = 0; i < res->n_memories && i < 3; i++)
        len += (size_t)snprintf(top + len, sizeof top - len, "%s%.3f", i ? "," : "",
                                res->memories[i].score);
    am__logrec_str(&r, "top_memory_scores", top);
    am__logrec_str(&r, "top_event_scores", list[2]);
    am__logrec_str(&r, "memory_ids", list[0]);
    am__logrec_str(&r, "event_ids", list[1]);
    am__logrec_real(&r, "total_ms", (double)(am__mono_us() - t0) / 1000.0);
    am__logrec_text(&r, "query", q->text);
    am__logrec_text(&r, "block", res->block);
    am__logrec_emit(&r);
}

int am_recall(am_db *db, const am_query *q, am_recall_result **out)
{
    if (!db || !q || !out) return AM_MISUSE;
    *out = NULL;
    am__db_clear_error(db);
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
        box->pub.json = recall_json(&box->ar, &box->pub, now);
        if (!box->pub.json) rc = am__db_error(db, AM_NOMEM, "recall: out of memory");
        if (!rc) recall_log(db, q, box, started);
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
    rc = db->store->vt->task_get(db->store, user_id, task_id, &box->ar, &row);
    if (rc == AM_OK) rc = am__access_load(&acc, db->store, user_id, &box->ar);
    /* a task made of events hidden from the asker is not there for it */
    if (rc == AM_OK) rc = am__access_task_events(&acc, db->store, user_id, task_id, &box->ar);
    if (rc == AM_OK) rc = am__access_task(&acc, &box->ar, &row);
    /* as it stands now: a periodic task's ended period shows its next
     * round (domain/round.c) */
    if (rc == AM_OK) rc = am__round_view(&box->ar, &row, am__db_now(db), 0);
    am_task *t = NULL;
    if (rc == AM_OK) rc = task_build(db, &acc, user_id, &box->ar, &row, &t);
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

/* ------------------------------------------------------------ memories */

typedef struct list_box {
    am_memory_list pub;
    am__arena ar;
    am__allocator alloc;
} list_box;

void am_memory_list_free(am_memory_list *l)
{
    if (!l) return;
    list_box *b = (list_box *)l;
    am__allocator a = b->alloc;
    am__arena_free(&b->ar);
    am__free(&a, b);
}

int am_memories(am_db *db, const char *user_id, int which, const char *as_of,
                am_memory_list **out)
{
    return am_memories_as(db, user_id, which, as_of, NULL, NULL, out);
}

int am_memories_as(am_db *db, const char *user_id, int which, const char *as_of,
                   const char *agent_id, const char *role, am_memory_list **out)
{
    am_list_opts o;
    memset(&o, 0, sizeof o);
    o.which = which;
    o.as_of = as_of;
    o.agent_id = agent_id;
    o.role = role;
    return am_memories_list(db, user_id, &o, out);
}

int am_memories_list(am_db *db, const char *user_id, const am_list_opts *o, am_memory_list **out)
{
    if (!db || !o || !out || (o->which != AM_LIST_ACTIVE && o->which != AM_LIST_ALL))
        return AM_MISUSE;
    *out = NULL;
    am__db_clear_error(db);
    const char *why, *agent_id = o->agent_id, *role = o->role, *as_of = o->as_of;
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "memories: user %s", why);
    if (agent_id && am__db_check_id(db, "memories", "agent", agent_id)) return AM_INVALID;
    if (role && am__db_check_id(db, "memories", "role", role)) return AM_INVALID;
    if (o->limit > AM_LIST_LIMIT_MAX)
        return am__db_error(db, AM_INVALID, "memories: limit %zu is over the maximum of %d",
                            o->limit, AM_LIST_LIMIT_MAX);
    am__access acc;
    am__access_init(&acc, agent_id, role, &db->roles);
    am_time at = am__db_now(db);
    int mode = o->which == AM_LIST_ALL ? AM__ITEMS_ALL : AM__ITEMS_CURRENT;
    if (as_of) {
        if (am__time_parse(as_of, &at, NULL, &why))
            return am__db_error(db, AM_INVALID, "memories: as_of \"%.64s\" %s", as_of, why);
        if (mode == AM__ITEMS_CURRENT) mode = AM__ITEMS_ASOF;
    }
    list_box *box = am__calloc(&db->alloc, sizeof *box);
    if (!box) return AM_NOMEM;
    box->alloc = db->alloc;
    am__arena_init(&box->ar, &box->alloc);
    /* the filter and the page (store/metadata.h) */
    am__filter filt;
    am__page page = {mode == AM__ITEMS_ALL, o->limit, 0, NULL};
    char fwhy[256];
    int rc = am__filter_compile(o->filter, &box->ar, &filt, fwhy, sizeof fwhy);
    if (rc) {
        am_memory_list_free(&box->pub);
        return am__db_error(db, rc, "memories: %s", rc == AM_NOMEM ? "out of memory" : fwhy);
    }
    if (o->cursor && (rc = am__cursor_read(o->cursor, &box->ar, &page))) {
        am_memory_list_free(&box->pub);
        return am__db_error(db, rc, "memories: %s",
                            rc == AM_NOMEM ? "out of memory" : "cursor: not a cursor of a listing");
    }
    am__item_row *rows = NULL;
    size_t n = 0;
    /* a user being forgotten has none */
    rc = am__db_user_gate(db, "memories", user_id, AM_NOTFOUND);
    if (rc == AM_NOTFOUND) am__db_clear_error(db);
    else if (!rc) rc = db->store->vt->items_list(db->store, user_id, mode, at, &box->ar, &rows, &n);
    if (rc == AM_NOTFOUND) rc = AM_OK;
    else if (rc) goto out_fail;
    size_t kept = 0; /* what the asker's role may see */
    for (size_t i = 0; i < n; i++)
        if (am__access_item_visible(&acc, rows[i].kind, rows[i].scope)) rows[kept++] = rows[i];
    int more = 0;
    n = am__items_page(rows, kept, &filt, &page, &more);
    if (more && n && (rc = am__cursor_make(&rows[n - 1], &box->ar, &box->pub.next_cursor)))
        goto out_fail;
    box->pub.items = am__arena_alloc(&box->ar, (n + 1) * sizeof *box->pub.items);
    if (!box->pub.items) { rc = AM_NOMEM; goto out_fail; }
    am__buf b;
    am__buf_init(&b, &db->alloc);
    am__buf_adds(&b, "[");
    for (size_t i = 0; i < n && !rc; i++) {
        memory_from_row(&box->pub.items[i], &rows[i]);
        if (mode == AM__ITEMS_ASOF) memory_status_then(&box->pub.items[i]);
        /* what its memory events call it (docs/EVENTS.md) */
        char kid[AM__REF_LEN + 1];
        if ((rc = am__store_key_id(db->store, user_id, rows[i].scope, rows[i].key, kid)) ||
            !(box->pub.items[i].key_id = am__arena_strdup(&box->ar, kid))) {
            if (!rc) rc = AM_NOMEM;
            break;
        }
        if (i) am__buf_addc(&b, ',');
        json_memory(&b, &box->pub.items[i], am__db_now(db));
    }
    am__buf_adds(&b, "]");
    box->pub.n = n;
    box->pub.json = b.oom || rc ? NULL : am__arena_strndup(&box->ar, b.p, b.len);
    am__buf_free(&b);
    if (!box->pub.json) { if (!rc) rc = AM_NOMEM; goto out_fail; }
    *out = &box->pub;
    return AM_OK;
out_fail:
    am_memory_list_free(&box->pub);
    return am__db_store_error(db, rc, "memories");
}

/* A memory version as the listings show it (api/memory.c). */
void am__db_memory_from_row(am_memory *m, const am__item_row *r) { memory_from_row(m, r); }
void am__db_memory_json(am__buf *b, const am_memory *m, am_time now) { json_memory(b, m, now); }


void am__db_event_json(am__buf *b, const am__event_row *r)
{
    am_event_rec e;
    event_from_row(&e, r);
    e.score = 0;
    json_event(b, &e);
}

/* ------------------------------------------------------------ feedback */

int am_feedback(am_db *db, const char *user_id, const char *memory_id, int action,
                const char *text)
{
    return am__db_feedback(db, user_id, memory_id, action, text, NULL);
}

int am__db_feedback(am_db *db, const char *user_id, const char *memory_id, int action,
                    const char *text, const char *metadata)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    const char *why;
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "feedback: user %s", why);
    if ((why = am__id_check(memory_id))) return am__db_error(db, AM_INVALID, "feedback: memory %s", why);
    if (action < AM_FEEDBACK_CONFIRM || action > AM_FEEDBACK_CORRECT)
        return am__db_error(db, AM_INVALID, "feedback: unknown action %d", action);
    if (action == AM_FEEDBACK_CORRECT) {
        if (!text || !*text) return am__db_error(db, AM_INVALID, "feedback: correct needs text");
        if (!am__utf8_valid(text, strlen(text), NULL))
            return am__db_error(db, AM_INVALID, "feedback: text is not valid UTF-8");
        if (strlen(text) > db->cfg.max_text_bytes)
            return am__db_error(db, AM_TOOBIG, "feedback: text over the size limit");
    }
    int rc = am__db_user_gate(db, "feedback", user_id, AM_NOTFOUND);
    if (rc) return rc;
    am__store *s = db->store;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am_time now = am__db_now(db);
    am__wctx w = {s, db->text, &db->ulid, &db->cfg.rank, &ar, user_id, now, NULL, 0, metadata};
    static const char *const ops[] = {"", "memory.confirmed", "memory.rejected", "memory.corrected"};
    am__dbcache_note(db->cache, user_id);
    rc = s->vt->begin(s);
    /* for the log: the item's kind and lineage, before the change */
    const char *kind = NULL, *lineage = NULL;
    char origin[128] = "unknown"; /* who decided the item judged (docs/REPORTS.md) */
    if (!rc && am__log_on(&db->log)) {
        am__item_row *rows;
        size_t n;
        rc = s->vt->items_list(s, user_id,
                               AM__ITEMS_CURRENT | AM__ITEMS_NO_SOURCES | AM__ITEMS_NO_HEAT, now,
                               &ar, &rows, &n);
        for (size_t i = 0; !rc && i < n && !kind; i++)
            if (strcmp(rows[i].id, memory_id) == 0 || strcmp(rows[i].lineage_id, memory_id) == 0) {
                kind = rows[i].kind;
                lineage = rows[i].lineage_id;
                am__item_origin(&rows[i], origin, sizeof origin);
            }
    }
    if (!rc) rc = am__semantic_feedback(&w, memory_id, action, text);
    if (!rc) rc = s->vt->audit(s, user_id, now, ops[action], "memory", memory_id, NULL);
    if (!rc) rc = s->vt->commit(s);
    if (rc) s->vt->rollback(s);
    if (!rc && am__log_on(&db->log)) {
        static const char *const actions[] = {"", "confirm", "reject", "correct"};
        am__logrec r;
        am__logrec_begin(&r, &db->log, AM_LOG_INFO, "feedback", now);
        am__logrec_str(&r, "user", user_id);
        am__logrec_str(&r, "memory_id", lineage ? lineage : memory_id);
        am__logrec_str(&r, "action", actions[action]);
        am__logrec_str(&r, "kind", kind);
        am__logrec_text(&r, "text", text);
        am__logrec_str(&r, "origin", origin);
        am__logrec_emit(&r);
    }
    am__arena_free(&ar);
    if (rc == AM_NOTFOUND)
        return am__db_error(db, rc, "feedback: user %s has no current memory %s", user_id, memory_id);
    if (rc) return am__db_store_error(db, rc, "feedback");
    am__events_deliver(db);
    return AM_OK;
}

/* ------------------------------------------------------------ export */

/* Export streams: the document is written as it is made, a piece of
 * at most about EXPORT_FLUSH bytes at a time, from one read snapshot;
 * events and the audit trail are read EXPORT_PAGE rows at a time, each
 * page in an arena of its own.  Memory is then bounded by a page, the
 * user's tasks and their item versions (a bounded number of sources
 * each), not by the length of the user's history. */
#define EXPORT_FLUSH ((size_t)64 << 10)
#define EXPORT_PAGE 256

typedef struct export_out {
    am__buf b; /* not yet written */
    am_write_fn write;
    void *ctx;
} export_out;

/* Write what is pending when there is enough of it (or all: force). */
static int export_flush(export_out *o, int force)
{
    if (o->b.oom) return AM_NOMEM;
    if (o->b.len == 0 || (!force && o->b.len < EXPORT_FLUSH)) return AM_OK;
    int w = o->write(o->ctx, o->b.p, o->b.len);
    o->b.len = 0;
    return w ? AM_IO : AM_OK;
}

static int export_events(am_db *db, const char *user_id, export_out *o)
{
    am__store *s = db->store;
    am_time after_at = AM_TIME_NONE;
    int64_t after_rid = 0;
    int rc = AM_OK, first = 1;
    for (;;) {
        am__arena ar;
        am__arena_init(&ar, &db->alloc);
        am__event_row *events;
        size_t ne = 0;
        rc = s->vt->events_page(s, user_id, after_at, after_rid, EXPORT_PAGE, &ar, &events, &ne);
        /* archived events: their whole text, not the summary their row keeps */
        if (!rc) rc = s->vt->cold_fill(s, user_id, events, ne, &ar, NULL);
        for (size_t i = 0; !rc && i < ne; i++) {
            am_event_rec e;
            event_from_row(&e, &events[i]);
            e.score = 0;
            if (!first) am__buf_addc(&o->b, ',');
            first = 0;
            json_event(&o->b, &e);
            /* entities of the event, inserted before the closing brace */
            am__entity_row *en;
            size_t nen;
            if ((rc = s->vt->entities_list(s, user_id, events[i].rid, &ar, &en, &nen))) break;
            if (o->b.oom) { rc = AM_NOMEM; break; }
            o->b.len--;
            am__buf_adds(&o->b, ",\"entities\":[");
            for (size_t k = 0; k < nen; k++) {
                am__buf_adds(&o->b, k ? ",{" : "{");
                json_kv(&o->b, "type", en[k].type, 0);
                json_kv(&o->b, "text", en[k].surface, 1);
                json_kv(&o->b, "norm", en[k].norm, 1);
                am__buf_addc(&o->b, '}');
            }
            am__buf_adds(&o->b, "]}");
            rc = export_flush(o, 0);
        }
        if (!rc && ne) {
            after_at = events[ne - 1].occurred_at;
            after_rid = events[ne - 1].rid;
        }
        am__arena_free(&ar);
        if (rc || ne < EXPORT_PAGE) return rc;
    }
}

static int export_audit(am_db *db, const char *user_id, export_out *o)
{
    am__store *s = db->store;
    int64_t after = 0;
    int rc = AM_OK, first = 1;
    for (;;) {
        am__arena ar;
        am__arena_init(&ar, &db->alloc);
        am__audit_row *audit;
        size_t na = 0;
        rc = s->vt->audit_page(s, user_id, after, EXPORT_PAGE, &ar, &audit, &na);
        for (size_t i = 0; !rc && i < na; i++) {
            am__buf_adds(&o->b, first ? "{" : ",{");
            first = 0;
            json_time(&o->b, "at", audit[i].at, 0);
            json_kv(&o->b, "op", audit[i].op, 1);
            json_kv(&o->b, "object_type", audit[i].object_type, 1);
            json_kv(&o->b, "object_id", audit[i].object_id, 1);
            json_kv(&o->b, "detail", audit[i].detail, 1);
            am__buf_addc(&o->b, '}');
            rc = export_flush(o, 0);
        }
        if (!rc && na) after = audit[na - 1].seq;
        am__arena_free(&ar);
        if (rc || na < EXPORT_PAGE) return rc;
    }
}

/* A forgotten user's export: the tombstone (its times), no content. */
static int export_tombstone(am_db *db, const char *user_id, int state, am_time at,
                            am_time until, export_out *o)
{
    static const char *const states[] = {"", "held", "purging", "purged"};
    char ts[32];
    am__buf *b = &o->b;
    am__buf_adds(b, "{\"format\":\"agentmem-export\",\"version\":1");
    json_kv(b, "user", user_id, 1);
    json_kv(b, "exported_at", am__time_format(am__db_now(db), 0, ts), 1);
    am__buf_adds(b, ",\"forgotten\":{");
    json_kv(b, "state", states[state], 0);
    json_time(b, "forgotten_at", at, 1);
    json_time(b, "purge_at", until, 1);
    am__buf_adds(b, "},\"identities\":[],\"events\":[],\"tasks\":[],\"workspaces\":[],\"memories\":[],"
                    "\"packs\":[],\"audit\":[]}");
    return export_flush(o, 1);
}

/* The document, in one snapshot; identities, tasks and memories whole. */
static int export_write(am_db *db, const char *user_id, export_out *o)
{
    am__store *s = db->store;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    int rc;
    char ts[32];
    am__link_row *links;
    am__task_row *tasks;
    am__item_row *items;
    size_t nl, nt, ni;
    am__buf *b = &o->b;
    if ((rc = s->vt->links_list(s, user_id, &ar, &links, &nl))) goto out;
    am__buf_adds(b, "{\"format\":\"agentmem-export\",\"version\":1");
    json_kv(b, "user", user_id, 1);
    json_kv(b, "exported_at", am__time_format(am__db_now(db), 0, ts), 1);
    /* forgets in their grace period: their tombstones, no content (the
     * key only when there is one) */
    am__held_row *held;
    size_t nh;
    if ((rc = s->vt->forget_held(s, user_id, &ar, &held, &nh))) goto out;
    for (size_t i = 0; i < nh; i++) {
        am__buf_adds(b, i ? ",{" : ",\"held\":[{");
        json_kv(b, "level", held[i].level, 0);
        json_kv(b, "id", held[i].object_id, 1);
        json_time(b, "forgotten_at", held[i].forgotten_at, 1);
        json_time(b, "purge_at", held[i].purge_at, 1);
        am__buf_adds(b, i + 1 == nh ? "}]" : "}");
    }
    am__buf_adds(b, ",\"identities\":[");
    for (size_t i = 0; i < nl; i++) {
        am__buf_adds(b, i ? ",{" : "{");
        json_kv(b, "channel", links[i].channel, 0);
        json_kv(b, "external_id", links[i].external_id, 1);
        am__buf_addc(b, '}');
    }
    am__buf_adds(b, "],\"events\":[");
    if ((rc = export_events(db, user_id, o))) goto out;
    am__buf_adds(b, "],\"tasks\":[");
    if ((rc = s->vt->tasks_list(s, user_id, &ar, &tasks, &nt))) goto out;
    for (size_t i = 0; i < nt; i++) {
        am_task *t;
        if ((rc = task_build(db, NULL, user_id, &ar, &tasks[i], &t))) goto out;
        if (i) am__buf_addc(b, ',');
        json_task(b, t);
        if ((rc = export_flush(o, 0))) goto out;
    }
    /* each task's shared workspace */
    am__buf_adds(b, "],\"workspaces\":[");
    for (size_t i = 0, shown = 0; i < nt; i++) {
        am__workspace_row *ws;
        size_t nw;
        if ((rc = s->vt->workspace_list(s, user_id, tasks[i].task_id, &ar, &ws, &nw))) goto out;
        if (!nw) continue;
        if (shown++) am__buf_addc(b, ',');
        am__workspace_json(b, tasks[i].task_id, ws, nw);
    }
    am__buf_adds(b, "],\"memories\":[");
    if ((rc = s->vt->items_list(s, user_id, AM__ITEMS_ALL, 0, &ar, &items, &ni))) goto out;
    for (size_t i = 0; i < ni; i++) {
        am_memory m;
        memset(&m, 0, sizeof m);
        memory_from_row(&m, &items[i]);
        if (i) am__buf_addc(b, ',');
        json_memory(b, &m, am__db_now(db));
        if ((rc = export_flush(o, 0))) goto out;
    }
    /* the rule packs applied (their rules are among the memories) */
    am__buf_adds(b, "],\"packs\":[");
    am__pack_row *packs;
    size_t np;
    if ((rc = s->vt->pack_list(s, user_id, &ar, &packs, &np))) goto out;
    for (size_t i = 0; i < np; i++) {
        am__buf_adds(b, i ? ",{\"pack\":" : "{\"pack\":");
        am__buf_adds(b, packs[i].json);
        json_time(b, "applied_at", packs[i].applied_at, 1);
        am__buf_addc(b, '}');
    }
    am__buf_adds(b, "],\"audit\":[");
    if ((rc = export_audit(db, user_id, o))) goto out;
    am__buf_adds(b, "]}");
    rc = export_flush(o, 1);
out:
    am__arena_free(&ar);
    return rc;
}

int am_export_stream(am_db *db, const char *user_id, am_write_fn write, void *ctx)
{
    if (!db || !write) return AM_MISUSE;
    am__db_clear_error(db);
    const char *why;
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "export: user %s", why);
    am__store *s = db->store;
    int rc = s->vt->begin_read(s);
    if (rc) return am__db_store_error(db, rc, "export");
    int state;
    am_time fat, until;
    rc = s->vt->forget_state(s, user_id, &state, &fat, &until);
    int exists = rc ? 0 : state != AM__FORGOTTEN_NONE ? 1 : s->vt->user_exists(s, user_id);
    if (rc || exists <= 0) {
        s->vt->end_read(s);
        if (rc) return am__db_store_error(db, rc, "export");
        if (exists < 0) return am__db_store_error(db, -exists, "export");
        return am__db_error(db, AM_NOTFOUND, "export: unknown user %s", user_id);
    }
    export_out o;
    am__buf_init(&o.b, &db->alloc);
    o.write = write;
    o.ctx = ctx;
    rc = state != AM__FORGOTTEN_NONE ? export_tombstone(db, user_id, state, fat, until, &o)
                                     : export_write(db, user_id, &o);
    am__buf_free(&o.b);
    int end = s->vt->end_read(s);
    if (!rc) rc = end;
    if (rc == AM_NOMEM) return am__db_error(db, rc, "export: out of memory");
    if (rc == AM_IO) return am__db_error(db, rc, "export: the output refused a write");
    if (rc) return am__db_store_error(db, rc, "export");
    return AM_OK;
}

/* am_export's sink: the whole document in one buffer. */
static int export_collect(void *ctx, const char *data, size_t len)
{
    am__buf *b = ctx;
    am__buf_add(b, data, len);
    return b->oom;
}

int am_export(am_db *db, const char *user_id, char **json_out)
{
    if (!db || !json_out) return AM_MISUSE;
    *json_out = NULL;
    am__buf b;
    am__buf_init(&b, &db->alloc);
    int rc = am_export_stream(db, user_id, export_collect, &b);
    if (rc == AM_IO) rc = am__db_error(db, AM_NOMEM, "export: out of memory");
    if (!rc) {
        *json_out = am__owned_strndup(&db->alloc, b.p ? b.p : "", b.len); /* am_free */
        if (!*json_out) rc = am__db_error(db, AM_NOMEM, "export: out of memory");
    }
    am__buf_free(&b);
    return rc;
}

int am_event_find(am_db *db, const char *user_id, const char *needle, char *out)
{
    if (!db || !needle || !out) return AM_MISUSE;
    am__db_clear_error(db);
    const char *why;
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "event: user %s", why);
    int rc = am__db_user_gate(db, "event", user_id, AM_NOTFOUND);
    if (rc) return rc;
    rc = db->store->vt->event_find(db->store, user_id, needle, out);
    if (rc == AM_NOTFOUND) return am__db_error(db, rc, "event: no event of %s contains that text", user_id);
    if (rc) return am__db_store_error(db, rc, "event");
    return AM_OK;
}
