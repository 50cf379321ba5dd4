/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario_dump.c -- the recall lines of `scenario run --dump FILE` (see
 * scenario_dump.h).  One compact JSON object per recall step, keys in a
 * fixed order, so that two runs (or two builds) can be compared with cmp:
 *
 *   {"file", "line", "query", "error"}                   a refused step
 *   {"file", "line", "query", "need_memory", "route", "lang",
 *    "domain_conflict", "block", "block_tokens",
 *    "memories": [...], "events": [...], "task": {...} | null}
 *
 * Times are ISO 8601 (the event's own zone, UTC for the rest; null when
 * unset).  Text that is not valid UTF-8 is written escaped the way the
 * PASS/FAIL lines show it, never dropped.
 */
#include "scenario_dump.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "scenario_parse.h"

/* An engine-made id (a ULID: 26 characters of Crockford's base 32) names a
 * row, its random half differs from run to run: a value that is one is
 * written as "<id>", so that two runs compare equal. */
static int is_ulid(const char *s)
{
    if (!s || strlen(s) != 26) return 0;
    for (const char *p = s; *p; p++)
        if (!strchr("0123456789ABCDEFGHJKMNPQRSTVWXYZ", *p)) return 0;
    return 1;
}

/* Every put clears *ok when a value could not be made or stored. */
static void put(json_t *o, const char *key, json_t *v, int *ok)
{
    if (!v || json_object_set_new(o, key, v) != 0) *ok = 0;
}

/* A string (null for NULL); invalid UTF-8 escaped as in the reports. */
static json_t *jstr(const char *s)
{
    if (!s) return json_null();
    json_t *v = json_string(s);
    if (v) return v;
    sc_buf b = {0};
    sc_buf_clean(&b, s, 0);
    v = b.oom ? NULL : json_string(sc_buf_str(&b));
    sc_buf_free(&b);
    return v;
}

static json_t *jtime(am_time t, int tz_minutes)
{
    char buf[40];
    if (t == AM_TIME_NONE) return json_null();
    return json_string(am_time_format(t, tz_minutes, buf));
}

static json_t *memory_obj(const am_memory *m, int *ok)
{
    json_t *o = json_object();
    if (!o) { *ok = 0; return NULL; }
    put(o, "kind", jstr(m->kind), ok);
    put(o, "scope", jstr(m->scope), ok);
    put(o, "key", jstr(m->key), ok);
    put(o, "text", jstr(m->text), ok);
    put(o, "value", jstr(m->value_json), ok);
    put(o, "status", jstr(m->status), ok);
    put(o, "score", json_real(m->score), ok);
    put(o, "confidence", json_real(m->confidence), ok);
    put(o, "base_score", json_real(m->base_score), ok);
    put(o, "half_life_days", json_real(m->half_life_days), ok);
    put(o, "hits", json_integer(m->hits), ok);
    put(o, "last_access", jtime(m->last_access, 0), ok);
    put(o, "valid_from", jtime(m->valid_from, 0), ok);
    put(o, "valid_to", jtime(m->valid_to, 0), ok);
    put(o, "recorded_at", jtime(m->recorded_at, 0), ok);
    put(o, "superseded_at", jtime(m->superseded_at, 0), ok);
    put(o, "n_sources", json_integer((json_int_t)m->n_sources), ok);
    return o;
}

static json_t *event_obj(const am_event_rec *e, int *ok)
{
    json_t *o = json_object();
    if (!o) { *ok = 0; return NULL; }
    put(o, "content", jstr(e->content), ok);
    put(o, "score", json_real(e->score), ok);
    put(o, "occurred_at", jtime(e->occurred_at, e->tz_minutes), ok);
    put(o, "agent", jstr(e->agent_id), ok);
    put(o, "session", jstr(e->session_id), ok);
    put(o, "task", jstr(e->task_id), ok);
    put(o, "channel", jstr(e->channel), ok);
    put(o, "source", jstr(e->source), ok);
    put(o, "type", jstr(e->type), ok);
    put(o, "domain", jstr(e->domain), ok);
    put(o, "intent", jstr(e->intent), ok);
    return o;
}

static json_t *task_obj(const am_task *t, int *ok)
{
    if (!t) return json_null();
    json_t *o = json_object(), *hist = json_array();
    if (!o || !hist) {
        json_decref(o);
        json_decref(hist);
        *ok = 0;
        return NULL;
    }
    put(o, "task_id", jstr(t->task_id), ok);
    put(o, "name", jstr(t->name), ok);
    put(o, "stage", jstr(t->stage), ok);
    put(o, "status", jstr(t->status), ok);
    put(o, "artifacts", jstr(t->artifacts_json), ok);
    put(o, "pending", jstr(t->pending_json), ok);
    put(o, "notes", jstr(t->notes_json), ok);
    put(o, "created_at", jtime(t->created_at, 0), ok);
    put(o, "updated_at", jtime(t->updated_at, 0), ok);
    for (size_t i = 0; i < t->n_history; i++) {
        const am_task_change *c = &t->history[i];
        json_t *h = json_object();
        if (!h || json_array_append_new(hist, h) != 0) { *ok = 0; break; }
        put(h, "at", jtime(c->at, 0), ok);
        put(h, "field", jstr(c->field), ok);
        put(h, "old", jstr(is_ulid(c->old_value) ? "<id>" : c->old_value), ok);
        put(h, "new", jstr(is_ulid(c->new_value) ? "<id>" : c->new_value), ok);
    }
    put(o, "history", hist, ok);
    return o;
}

/* The result's fields after file, line and query. */
static void result_fields(json_t *o, const am_recall_result *res, int *ok)
{
    json_t *mems = json_array(), *evs = json_array();
    put(o, "need_memory", json_boolean(res->need_memory), ok);
    put(o, "route", jstr(res->route), ok);
    put(o, "lang", jstr(res->lang), ok);
    put(o, "domain_conflict", json_boolean(res->domain_conflict), ok);
    put(o, "block", jstr(res->block), ok);
    put(o, "block_tokens", json_integer(res->block_tokens), ok);
    for (size_t i = 0; mems && i < res->n_memories; i++)
        if (json_array_append_new(mems, memory_obj(&res->memories[i], ok)))
            *ok = 0;
    for (size_t i = 0; evs && i < res->n_events; i++)
        if (json_array_append_new(evs, event_obj(&res->events[i], ok)))
            *ok = 0;
    put(o, "memories", mems, ok);
    put(o, "events", evs, ok);
    put(o, "task", task_obj(res->task, ok), ok);
}

int sc_dump_recall(FILE *out, const char *file, long line, const char *query,
                   const am_recall_result *res, const char *error)
{
    int ok = 1;
    json_t *o = json_object();
    if (!o) return 0;
    put(o, "file", jstr(file), &ok);
    put(o, "line", json_integer(line), &ok);
    put(o, "query", jstr(query), &ok);
    if (error || !res)
        put(o, "error", jstr(error ? error : "no result"), &ok);
    else
        result_fields(o, res, &ok);
    char *text = ok ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER |
                                        JSON_REAL_PRECISION(
                                            SC_DUMP_SCORE_DIGITS))
                    : NULL;
    json_decref(o);
    if (!text) return 0;
    int written = fputs(text, out) >= 0 && fputc('\n', out) != EOF;
    free(text);
    return written;
}
