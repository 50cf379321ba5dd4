/* SPDX-License-Identifier: Apache-2.0 */
/*
 * shapes.c -- stored rows as the public shapes and their JSON (shapes.h).
 */
#include <stdlib.h>
#include <string.h>

#include "domain/shapes.h"

void am__memory_from_row(am_memory *m, const am__item_row *r)
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
void am__memory_status_then(am_memory *m)
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

void am__event_from_row(am_event_rec *e, const am__event_row *r)
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
void am__json_name(am__buf *b, const char *name, int comma)
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

void am__json_time(am__buf *b, const char *name, am_time t, int comma)
{
    char ts[32];
    am__json_name(b, name, comma);
    if (t == AM_TIME_NONE) am__buf_adds(b, "null");
    else am__buf_json_str(b, am__time_format(t, 0, ts));
}

void am__json_kv(am__buf *b, const char *name, const char *v, int comma)
{
    am__json_name(b, name, comma);
    if (v) am__buf_json_str(b, v);
    else am__buf_adds(b, "null");
}

/* Raw JSON value (already JSON) or null. */
void am__json_raw(am__buf *b, const char *name, const char *v, int comma)
{
    am__json_name(b, name, comma);
    am__buf_adds(b, v && *v ? v : "null");
}

/* ,"name":v with `decimals` digits ("%.3f"), no printf */
void am__json_fixed(am__buf *b, const char *name, double v, int decimals)
{
    am__json_name(b, name, 1);
    am__buf_add_fixed(b, v, decimals);
}

void am__memory_json(am__buf *b, const am_memory *m, am_time now)
{
    am__buf_addc(b, '{');
    am__json_kv(b, "id", m->id, 0);
    am__json_kv(b, "lineage_id", m->lineage_id, 1);
    am__json_kv(b, "scope", m->scope, 1);
    am__json_kv(b, "kind", m->kind, 1);
    am__json_kv(b, "key", m->key, 1);
    am__json_kv(b, "text", m->text, 1);
    am__json_raw(b, "value", m->value_json, 1);
    am__json_kv(b, "status", m->status, 1);
    am__json_fixed(b, "confidence", m->confidence, 3);
    am__json_fixed(b, "base_score", m->base_score, 3);
    am__json_fixed(b, "half_life_days", m->half_life_days, 3);
    am__json_name(b, "hits", 1);
    am__buf_add_int(b, m->hits);
    am__json_time(b, "last_access", m->last_access, 1);
    am__json_time(b, "valid_from", m->valid_from, 1);
    am__json_time(b, "valid_to", m->valid_to, 1);
    am__json_time(b, "expires_at", m->expires_at, 1);
    am__json_time(b, "recorded_at", m->recorded_at, 1);
    am__json_time(b, "superseded_at", m->superseded_at, 1);
    am__buf_adds(b, ",\"source_event_ids\":[");
    for (size_t i = 0; i < m->n_sources; i++) {
        if (i) am__buf_addc(b, ',');
        am__buf_json_str(b, m->source_event_ids[i]);
    }
    am__buf_addc(b, ']');
    am__json_name(b, "source_count", 1);
    am__buf_add_int(b, m->source_count);
    am__json_time(b, "reinforced_at", m->reinforced_at, 1);
    am__json_fixed(b, "score", m->score, 4);
    am__json_kv(b, "version_state", version_state(m, now), 1);
    if (m->key_id) am__json_kv(b, "key_id", m->key_id, 1);
    am__json_name(b, "metadata", 1);
    am__buf_adds(b, m->metadata_json && *m->metadata_json ? m->metadata_json : "{}");
    am__json_kv(b, "origin", m->origin, 1);
    am__buf_addc(b, '}');
}

void am__event_rec_json(am__buf *b, const am_event_rec *e)
{
    char ts[32];
    am__buf_addc(b, '{');
    am__json_kv(b, "id", e->id, 0);
    am__json_kv(b, "agent", e->agent_id, 1);
    am__json_kv(b, "session", e->session_id, 1);
    am__json_kv(b, "task", e->task_id, 1);
    am__json_kv(b, "channel", e->channel, 1);
    am__json_kv(b, "source", e->source, 1);
    am__json_kv(b, "type", e->type, 1);
    am__json_kv(b, "domain", e->domain, 1);
    am__json_kv(b, "intent", e->intent, 1);
    am__json_kv(b, "content", e->content, 1);
    am__json_kv(b, "occurred_at", am__time_format(e->occurred_at, e->tz_minutes, ts), 1);
    am__json_fixed(b, "score", e->score, 4);
    am__json_name(b, "metadata", 1);
    am__buf_adds(b, e->metadata_json && *e->metadata_json ? e->metadata_json : "{}");
    am__buf_addc(b, '}');
}

void am__task_json(am__buf *b, const am_task *t)
{
    am__buf_addc(b, '{');
    am__json_kv(b, "task_id", t->task_id, 0);
    if (t->task_ref) am__json_kv(b, "task_ref", t->task_ref, 1);
    am__json_kv(b, "name", t->name, 1);
    am__json_kv(b, "stage", t->stage, 1);
    am__json_kv(b, "status", t->status, 1);
    am__json_raw(b, "artifacts", t->artifacts_json, 1);
    am__json_raw(b, "pending", t->pending_json, 1);
    am__json_raw(b, "notes", t->notes_json, 1);
    am__json_time(b, "created_at", t->created_at, 1);
    am__json_time(b, "updated_at", t->updated_at, 1);
    am__buf_printf(b, ",\"round\":%d", t->round);
    am__json_time(b, "round_started_at", t->round_started_at, 1);
    am__json_kv(b, "period", t->period, 1);
    am__json_raw(b, "rounds", t->rounds_json ? t->rounds_json : "[]", 1);
    am__buf_adds(b, ",\"history\":[");
    for (size_t i = 0; i < t->n_history; i++) {
        const am_task_change *c = &t->history[i];
        if (i) am__buf_addc(b, ',');
        am__buf_addc(b, '{');
        am__json_time(b, "at", c->at, 0);
        am__json_kv(b, "field", c->field, 1);
        am__json_kv(b, "old", c->old_value, 1);
        am__json_kv(b, "new", c->new_value, 1);
        am__json_kv(b, "event_id", c->event_id, 1);
        am__buf_addc(b, '}');
    }
    am__buf_adds(b, "]}");
}

void am__event_row_json(am__buf *b, const am__event_row *r)
{
    am_event_rec e;
    am__event_from_row(&e, r);
    e.score = 0;
    am__event_rec_json(b, &e);
}

/* Build a public task (in the arena) from a row and its history. */
int am__task_build(am__store *s, const char *uid, am__arena *ar, const am__task_row *r,
                   am__history_keep_fn keep, const void *keep_ctx, am_task **out)
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
    int rc = am__store_object_ref(s, uid, "task", r->task_id, ref);
    if (rc) return rc;
    if (!(t->task_ref = am__arena_strdup(ar, ref))) return AM_NOMEM;
    am__task_change_row *h;
    size_t n;
    if ((rc = am__store_task_history(s, uid, r->task_id, ar, &h, &n))) return rc;
    if (keep) keep(keep_ctx, h, &n);
    t->history = n ? am__arena_alloc(ar, n * sizeof *t->history) : NULL;
    if (n && !t->history) return AM_NOMEM;
    for (size_t i = 0; i < n; i++)
        t->history[i] = (am_task_change){h[i].at, h[i].field, h[i].old_value,
                                         h[i].new_value, h[i].event_id};
    t->n_history = n;
    *out = t;
    return AM_OK;
}

/* the order the versions were recorded in (ULIDs: in the order made) */
static int by_recorded(const void *a, const void *b)
{
    const am__item_row *x = a, *y = b;
    if (x->recorded_at != y->recorded_at) return x->recorded_at < y->recorded_at ? -1 : 1;
    return strcmp(x->id, y->id);
}

/* The version that holds now: active and open, else an open question. */
const am_memory *am__item_current(const am_memory *v, size_t n, am_time now)
{
    const am_memory *pending = NULL;
    for (size_t i = n; i-- > 0;) {
        if (v[i].superseded_at != AM_TIME_NONE) continue;
        /* ended, unless it is an item that expires later */
        if (v[i].valid_to != AM_TIME_NONE && (v[i].expires_at == AM_TIME_NONE || v[i].expires_at <= now))
            continue;
        if (strcmp(v[i].status, "active") == 0) return &v[i];
        if (!pending && strcmp(v[i].status, "pending_confirm") == 0) pending = &v[i];
    }
    return pending;
}

/* The versions of the item id names, in the order recorded. */
int am__item_versions(am__store *s, const char *uid, const char *id, am_time at, am__arena *ar,
                      am_memory **out, size_t *n_out)
{
    am__item_row *rows = NULL;
    size_t n = 0, k = 0;
    const char *lineage = NULL;
    int rc = s->vt->items.items_list(s, uid, AM__ITEMS_ALL, at, ar, &rows, &n);
    for (size_t i = 0; !rc && i < n && !lineage; i++)
        if (strcmp(rows[i].id, id) == 0 || strcmp(rows[i].lineage_id, id) == 0)
            lineage = rows[i].lineage_id;
    if (!rc && !lineage) rc = AM_NOTFOUND;
    if (rc) return rc;
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].lineage_id, lineage) == 0) rows[k++] = rows[i];
    qsort(rows, k, sizeof *rows, by_recorded);
    am_memory *v = am__arena_alloc(ar, k * sizeof *v);
    if (!v) return AM_NOMEM;
    for (size_t i = 0; i < k && !rc; i++) {
        am__memory_from_row(&v[i], &rows[i]);
        /* what its memory events call its key (docs/EVENTS.md) */
        char kid[AM__REF_LEN + 1];
        if (!(rc = am__store_key_id(s, uid, rows[i].scope, rows[i].key, kid)) &&
            !(v[i].key_id = am__arena_strdup(ar, kid)))
            rc = AM_NOMEM;
    }
    if (rc) return rc;
    *out = v;
    *n_out = k;
    return AM_OK;
}

void am__item_json(am__buf *b, const am_memory *current, const am_memory *v, size_t n, am_time now)
{
    am__buf_adds(b, "{\"memory\":");
    if (current) am__memory_json(b, current, now);
    else am__buf_adds(b, "null");
    am__buf_adds(b, ",\"versions\":[");
    for (size_t i = 0; i < n; i++) {
        if (i) am__buf_addc(b, ',');
        am__memory_json(b, &v[i], now);
    }
    am__buf_adds(b, "]}");
}

void am__workspace_json(am__buf *b, const char *task_id, const am__workspace_row *rows, size_t n)
{
    char ts[32];
    am__buf_adds(b, "{\"task\":");
    am__buf_json_str(b, task_id);
    am__buf_adds(b, ",\"entries\":[");
    for (size_t i = 0; i < n; i++) {
        const am__workspace_row *e = &rows[i];
        am__buf_adds(b, i ? ",{\"agent\":" : "{\"agent\":");
        am__buf_json_str(b, e->agent_id);
        am__buf_adds(b, ",\"doing\":");
        am__buf_json_str(b, e->doing);
        am__buf_adds(b, ",\"done\":");
        am__buf_json_str(b, e->done);
        am__buf_adds(b, ",\"next\":");
        am__buf_json_str(b, e->next);
        am__buf_adds(b, ",\"version\":");
        am__buf_add_int(b, e->version);
        am__buf_adds(b, ",\"updated_at\":");
        am__buf_json_str(b, am__time_format(e->updated_at, 0, ts));
        am__buf_addc(b, '}');
    }
    am__buf_adds(b, "]}");
}
