/* SPDX-License-Identifier: Apache-2.0 */
/*
 * switch.c -- topic switches.
 *
 * When attribution puts an event on another task than the session's
 * current one, the session jumped topics.  The jump is itself an event of
 * the perception layer: a system event "task_switch: FROM -> TO" of the
 * same session and time, on the new task, stored just before the event
 * that caused it (after that event's context window was read), with a
 * "switch" history row on both tasks naming it and a task.switch audit
 * record.  A turn that leaves the task for no task (attribute.c) is a
 * switch "A -> (none)" of no task, with a history row on A; the turn that
 * comes back, "(none) -> A".
 */
#include "write/perceive/perceive.h"

#include <stdio.h>
#include <string.h>

#include "domain/task.h"

const char am__perceive_no_task[] = "(none)";

static const char head[] = AM__TASK_SWITCH_HEAD;

int am__perceive_switch(am__perceive *x, const char *from, const char *to)
{
    am__store *s = x->w.store;
    const char *fname = from ? from : am__perceive_no_task;
    const char *tname = to ? to : am__perceive_no_task;
    char text[2 * AM_ID_MAX + 32];
    snprintf(text, sizeof text, "%s%s -> %s", head, fname, tname);
    char id[27];
    am__ulid_new(x->w.ulid, x->ev->occurred_at, id);
    am__event_row sw = *x->ev;
    sw.id = am__arena_strdup(x->w.ar, id);
    sw.task_id = to;
    sw.source = "system";
    sw.type = "task_switch";
    sw.content = am__arena_strdup(x->w.ar, text);
    sw.index_doc = sw.content;
    sw.index_ctx = NULL;
    sw.tokens = NULL; /* the turn's set is not this text's (a recall computes it) */
    sw.tokens_len = 0;
    if (!sw.id || !sw.content) return AM_NOMEM;
    int rc = s->vt->events.event_put(s, &sw);
    if (rc) return rc;
    const char *tasks[2] = {from, to};
    for (int i = 0; i < 2; i++) {
        if (!tasks[i] || tasks[i] == am__perceive_no_task) continue;
        am__task_change_row c = {x->ev->occurred_at, tasks[i], "switch", fname, tname, sw.id};
        if ((rc = am__store_task_change_add(s, x->w.uid, &c))) return rc;
    }
    return am__store_audit(s, x->w.uid, x->w.now, "task.switch", "task", to ? to : fname, fname);
}
