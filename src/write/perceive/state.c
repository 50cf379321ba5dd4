/* SPDX-License-Identifier: Apache-2.0 */
/*
 * state.c -- the attributed task's row and its history.
 *
 * The row is read (or created, stage "collecting", status "active") once
 * per event, changed in the event's arena by each step that has something
 * to say -- pending decisions, status and stage cues (task.c; a
 * question, text/question.h), progress
 * and one-off notes, artifacts -- and written once at the end
 * (am__perceive_save), after distillation has added its notes.  Every
 * change of a field is also a task_history row (task_change_add) naming
 * the old and new value and the event, so a task's history is complete
 * without diffing rows.  Notes, artifacts and pending decisions are JSON
 * arrays of {"at","kind","text"}, appended to in place.
 */
#include "write/perceive/perceive.h"

#include <stdio.h>
#include <string.h>

#include "domain/task.h"
#include "text/question.h"

/* Append one JSON object {"at":..,"kind":..,"text":..} to a JSON array;
 * from an event of an agent (source agent or tool) that names it, also
 * "agent" (that agent's own, recall/access.h). */
static const char *json_array_append(am__arena *ar, const char *arr, const am__event_row *ev,
                                     const char *kind, const char *text)
{
    am_time at = ev->occurred_at;
    int tz = ev->tz_minutes;
    am__buf b;
    am__buf_init(&b, ar->a);
    size_t n = arr ? strlen(arr) : 0;
    while (n > 0 && arr[n - 1] != ']') n--;
    int empty = 1;
    if (n >= 2) {
        for (size_t i = 1; i + 1 < n; i++)
            if (arr[i] != ' ') empty = 0;
        am__buf_add(&b, arr, n - 1);
    } else {
        am__buf_addc(&b, '[');
    }
    if (!empty) am__buf_addc(&b, ',');
    char ts[32];
    am__buf_printf(&b, "{\"at\":\"%s\",\"kind\":", am__time_format(at, tz, ts));
    am__buf_json_str(&b, kind);
    am__buf_adds(&b, ",\"text\":");
    am__buf_json_str(&b, text);
    if (ev->agent_id && (strcmp(ev->source, "agent") == 0 || strcmp(ev->source, "tool") == 0)) {
        am__buf_adds(&b, ",\"agent\":");
        am__buf_json_str(&b, ev->agent_id);
    }
    am__buf_adds(&b, "}]");
    const char *out = b.oom ? NULL : am__arena_strndup(ar, b.p, b.len);
    am__buf_free(&b);
    return out;
}

/* The fields a task's history names, in the order task.updated lists
 * them. */
static const char *const history_fields[] = {"created", "status", "stage", "pending", "note"};
#define N_HISTORY_FIELDS (sizeof history_fields / sizeof *history_fields)

static int record_change(am__perceive *x, const char *field, const char *old_v,
                         const char *new_v)
{
    am__task_change_row c = {x->ev->occurred_at, x->task->task_id, field, old_v,
                             new_v, x->ev->id};
    for (size_t i = 0; i < N_HISTORY_FIELDS; i++)
        if (strcmp(field, history_fields[i]) == 0) x->task_fields |= 1u << i;
    x->task_dirty = 1;
    return am__store_task_change_add(x->w.store, x->w.uid, &c);
}

/* The period a task id names ("weekly-report", "月报", "daily_standup"):
 * the id with its separators as spaces, ASCII folded. */
static const char *id_period(const char *id)
{
    char b[AM_ID_MAX + 1];
    size_t n = 0;
    for (; id[n] && n < AM_ID_MAX; n++) {
        char c = id[n];
        b[n] = c == '-' || c == '_' || c == '.' || c == '/' || c == ':' ? ' '
               : c >= 'A' && c <= 'Z'                                  ? (char)(c - 'A' + 'a')
                                                                       : c;
    }
    b[n] = 0;
    return am__round_period(b, n);
}

void am__perceive_task_init(am__task_row *t, const char *task_id, am_time created_at)
{
    memset(t, 0, sizeof *t);
    t->task_id = task_id;
    t->name = task_id;
    t->stage = "collecting";
    t->status = "active";
    t->artifacts = t->pending = t->notes = t->rounds = "[]";
    t->created_at = created_at;
    t->round = 1;
    t->round_from = t->round_at = created_at;
    t->period = id_period(task_id);
}

const am__task_signal *am__perceive_signal(am__perceive *x, const char *norm, size_t norm_len)
{
    if (x->sig_of != x->ev) {
        /* the model reads people's turns (it was trained on them), not an
         * agent's or a tool's */
        const char *text = strcmp(x->ev->source, "user") == 0 ? x->ev->content : NULL;
        am__task_read(norm, norm_len, text, &x->sig);
        x->sig_of = x->ev;
    }
    return &x->sig;
}

int am__perceive_task(am__perceive *x, const char *task_id, const char *norm,
                      size_t norm_len)
{
    am__store *s = x->w.store;
    am__task_row *t = am__arena_alloc(x->w.ar, sizeof *t);
    if (!t) return AM_NOMEM;
    int rc = am__store_task_get(s, x->w.uid, task_id, x->w.ar, t);
    int created = 0;
    if (rc == AM_NOTFOUND) {
        am__perceive_task_init(t, task_id, x->ev->occurred_at);
        t->round_tz = x->ev->tz_minutes;
        created = 1;
    } else if (rc) {
        return rc;
    }
    x->task = t;
    if (created && (rc = record_change(x, "created", NULL, task_id))) return rc;
    return am__perceive_task_apply(x, norm, norm_len);
}

/* Rounds (round.c), decided at the event's own time before the event's
 * own cues: a period named for the first time makes the task periodic; a
 * periodic round whose period ended is archived and a new one starts --
 * unless the event continues the unfinished round in the next period,
 * which carries it on; an event that reopens a finished or cancelled task
 * starts a new round (that round was archived when it ended). */
static int next_round(am__perceive *x, const am__task_signal *sig, const char *norm,
                      size_t norm_len)
{
    am__task_row *t = x->task;
    am_time at = x->ev->occurred_at;
    int rc;
    int open = am__task_open_status(t->status);
    int ended = am__round_ended(t, at);
    int reopens = !open && !(sig->status && !am__task_open_status(sig->status));
    if (ended && open && am__task_continuation(norm, norm_len) && am__round_carries(t, at)) {
        char was[32];
        if ((rc = record_change(x, "round_carried", am__time_format(t->round_at, t->round_tz, was),
                                x->ev->id)))
            return rc;
        t->round_at = at;
        t->round_tz = x->ev->tz_minutes;
    } else if (ended || reopens) {
        if (open) {
            am_time s, e;
            am__round_bounds(t->period, t->round_at, t->round_tz, &s, &e);
            if ((rc = am__round_archive(x->w.ar, t, e, "period"))) return rc;
        }
        char from[16], to[16];
        snprintf(from, sizeof from, "%d", t->round > 0 ? t->round : 1);
        snprintf(to, sizeof to, "%d", (t->round > 0 ? t->round : 1) + 1);
        if ((rc = record_change(x, "round", from, to))) return rc;
        if (strcmp(t->status, "active") != 0 &&
            (rc = record_change(x, "status", t->status, "active")))
            return rc;
        if (t->stage && strcmp(t->stage, "collecting") != 0 &&
            (rc = record_change(x, "stage", t->stage, "collecting")))
            return rc;
        am__round_start(t, at, x->ev->tz_minutes);
        x->task_changed = 1;
    }
    if (!t->period && (t->period = am__round_period(norm, norm_len)) &&
        (rc = record_change(x, "period", NULL, t->period)))
        return rc;
    return AM_OK;
}

int am__perceive_task_apply(am__perceive *x, const char *norm, size_t norm_len)
{
    am__task_row *t = x->task;
    int rc;
    /* Pending decisions: a question the agent asks inside the task
     * waits for the user; the user's next turn in the task answers it. */
    if (strcmp(x->ev->source, "agent") == 0 &&
        am__text_is_question(norm, norm_len, AM__TEXT_Q_ASKS)) {
        const char *p = json_array_append(x->w.ar, t->pending, x->ev, "question",
                                          x->ev->content);
        if (!p) return AM_NOMEM;
        t->pending = p;
        if ((rc = record_change(x, "pending", NULL, x->ev->content))) return rc;
    } else if (strcmp(x->ev->source, "user") == 0 && t->pending && strcmp(t->pending, "[]") != 0) {
        if ((rc = record_change(x, "pending", t->pending, "answered"))) return rc;
        t->pending = "[]";
    }
    am__task_signal sig = *am__perceive_signal(x, norm, norm_len);
    if (sig.status && sig.rule && strcmp(sig.rule, "model") == 0) {
        /* the model reads a turn alone: "the login bug is fixed", "load
         * testing is half done, results next week" may speak of the task
         * or of a step of it; the task's status changes when it names it
         * -- for done, which closes it, by what the task is (its name, the
         * turn that began it): "load test results are in" ends a step of
         * the weekly report, not the report */
        int names;
        if ((rc = am__perceive_names_task(x, t, norm, norm_len, strcmp(sig.status, "done") == 0,
                                          &names)))
            return rc;
        if (!names) sig.status = NULL;
    }
    if ((rc = next_round(x, &sig, norm, norm_len))) return rc;
    /* A new event on a closed task reopens it unless it closes it again. */
    int reopen = !sig.status && !am__task_open_status(t->status);
    if (reopen) sig.status = "active";
    int closes = 0;
    if (sig.status && strcmp(sig.status, t->status) != 0) {
        if ((rc = record_change(x, "status", t->status, sig.status))) return rc;
        closes = !am__task_open_status(sig.status);
        t->status = sig.status;
        x->task_changed = 1;
    }
    if (sig.stage && (!t->stage || strcmp(sig.stage, t->stage) != 0)) {
        if ((rc = record_change(x, "stage", t->stage, sig.stage))) return rc;
        t->stage = sig.stage;
        x->task_changed = 1;
    }
    if (sig.stage || (sig.status && !reopen)) {
        /* Progress statements are the task's notes: "草稿写了一半". */
        const char *notes = json_array_append(x->w.ar, t->notes, x->ev, "progress",
                                              x->ev->content);
        if (!notes) return AM_NOMEM;
        t->notes = notes;
    }
    if (closes) {
        /* Finishing or cancelling ends the round: it is archived, and its
         * one-off notes apply no more. */
        if ((rc = am__round_archive(x->w.ar, t, x->ev->occurred_at, t->status))) return rc;
        t->notes = "[]";
    }
    x->task_dirty = 1;
    return AM_OK;
}

int am__perceive_artifact(am__perceive *x, const char *type, const char *norm)
{
    if (!x->task) return AM_OK;
    const char *arts = json_array_append(x->w.ar, x->task->artifacts, x->ev, type, norm);
    if (!arts) return AM_NOMEM;
    x->task->artifacts = arts;
    x->task_dirty = 1;
    return AM_OK;
}

int am__perceive_one_off(am__perceive *x, const char *sentence)
{
    if (!x->task) return AM_OK;
    const char *notes = json_array_append(x->w.ar, x->task->notes, x->ev, "one_off", sentence);
    if (!notes) return AM_NOMEM;
    x->task->notes = notes;
    return record_change(x, "note", NULL, sentence);
}

/* task.updated: one per event whose task's history changed, naming
 * the task by its opaque id and the fields (never their values: a
 * pending question is the agent's text). */
static int task_event(am__perceive *x)
{
    char fields[64] = "";
    size_t n = 0;
    for (size_t i = 0; i < N_HISTORY_FIELDS; i++)
        if (x->task_fields & 1u << i)
            n += (size_t)snprintf(fields + n, sizeof fields - n, "%s%s", n ? "," : "",
                                  history_fields[i]);
    /* the caller's task id may be made of the user's words: the event
     * names the task by its opaque id (store/ids.c) */
    char ref[AM__REF_LEN + 1];
    int rc = am__store_object_ref(x->w.store, x->w.uid, "task", x->task->task_id, ref);
    if (rc) return rc;
    am__outbox_row r = {0, x->w.clock ? x->w.clock : x->w.now, x->ev->occurred_at,
                        x->w.uid, "task.updated", NULL, ref, x->ev->id, NULL, fields, NULL};
    return am__store_outbox_put(x->w.store, &r);
}

int am__perceive_save(am__perceive *x)
{
    if (!x->task || !x->task_dirty) return AM_OK;
    x->task->updated_at = x->ev->occurred_at;
    int rc = x->w.store->vt->tasks.task_put(x->w.store, x->w.uid, x->task);
    if (!rc && x->task_fields) rc = task_event(x);
    return rc;
}
