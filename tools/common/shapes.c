/* SPDX-License-Identifier: Apache-2.0 */
/*
 * shapes.c -- the JSON shapes of results (see shapes.h).  Every string from
 * the user or the store goes through jansson, so it is escaped: an id
 * `x","task":"pwned` stays one string wherever it is printed or sent.
 */
#include "shapes.h"

json_t *am_shape_parsed(const char *text)
{
    if (!text) return json_null();
    json_error_t je;
    return json_loads(text, JSON_DECODE_ANY, &je);
}

json_t *am_shape_str(const char *s)
{
    return s ? json_string(s) : json_null();
}

json_t *am_shape_memory_event(const am_memory_event *ev)
{
    json_t *v = ev->json ? am_shape_parsed(ev->json) : NULL;
    if (v && !json_is_object(v)) {
        json_decref(v);
        return NULL;
    }
    return v;
}

json_t *am_shape_add(const am_add_info *info)
{
    return json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:b, s:b, s:b}", "event_id", info->event_id,
                     "user", info->user_id, "task", info->task_id, "memories_created",
                     info->memories_created, "memories_updated", info->memories_updated,
                     "memories_invalidated", info->memories_invalidated, "task_changed",
                     info->task_changed, "one_off", info->one_off, "existing", info->existing);
}

json_t *am_shape_task(const am_task *t)
{
    json_t *artifacts = am_shape_parsed(t->artifacts_json), *pending = am_shape_parsed(t->pending_json),
           *notes = am_shape_parsed(t->notes_json),
           *rounds = am_shape_parsed(t->rounds_json ? t->rounds_json : "[]");
    json_t *v = artifacts && pending && notes && rounds
                    ? json_pack("{s:s, s:s, s:s, s:O, s:O, s:O, s:I, s:i, s:o, s:O}", "task_id",
                                t->task_id, "stage", t->stage ? t->stage : "", "status", t->status,
                                "artifacts", artifacts, "pending", pending, "notes", notes,
                                "history", (json_int_t)t->n_history, "round", t->round, "period",
                                am_shape_str(t->period), "rounds", rounds)
                    : NULL;
    if (v) {
        char ts[40];
        if (t->task_ref) json_object_set_new(v, "task_ref", json_string(t->task_ref));
        if (t->round_started_at != AM_TIME_NONE)
            json_object_set_new(v, "round_started_at",
                                json_string(am_time_format(t->round_started_at, 0, ts)));
    }
    json_decref(artifacts);
    json_decref(pending);
    json_decref(notes);
    json_decref(rounds);
    return v;
}

json_t *am_shape_forget(const am_forget_info *info)
{
    return json_pack("{s:I, s:I, s:I}", "events", (json_int_t)info->events, "memories",
                     (json_int_t)info->memories, "tasks", (json_int_t)info->tasks);
}
