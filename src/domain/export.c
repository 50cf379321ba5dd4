/* SPDX-License-Identifier: Apache-2.0 */
/*
 * export.c -- a user's export document, streamed (export.h).
 */
#include <string.h>

#include "domain/records.h"
#include "domain/export.h"
#include "domain/forget.h"
#include "domain/shapes.h"

/* Export streams: the document is written as it is made, a piece of
 * at most about EXPORT_FLUSH bytes at a time, from one read snapshot;
 * events and the audit trail are read EXPORT_PAGE rows at a time, each
 * page in an arena of its own.  Memory is then bounded by a page, the
 * user's tasks and their item versions (a bounded number of sources
 * each), not by the length of the user's history. */
#define EXPORT_FLUSH ((size_t)64 << 10)
#define EXPORT_PAGE 256

/* Write what is pending when there is enough of it (or all: force). */
static int export_flush(am__export *o, int force)
{
    if (o->b.oom) return AM_NOMEM;
    if (o->b.len == 0 || (!force && o->b.len < EXPORT_FLUSH)) return AM_OK;
    int w = o->write(o->ctx, o->b.p, o->b.len);
    o->b.len = 0;
    return w ? AM_IO : AM_OK;
}

static int export_events(am__export *o, const char *user_id)
{
    am__store *s = o->store;
    am_time after_at = AM_TIME_NONE;
    int64_t after_rid = 0;
    int rc = AM_OK, first = 1;
    for (;;) {
        am__arena ar;
        am__arena_init(&ar, o->alloc);
        am__event_row *events;
        size_t ne = 0;
        rc = am__store_events_page(s, user_id, after_at, after_rid, EXPORT_PAGE, &ar, &events, &ne);
        /* archived events: their whole text, not the summary their row keeps */
        if (!rc) rc = am__store_cold_fill(s, user_id, events, ne, &ar, NULL);
        for (size_t i = 0; !rc && i < ne; i++) {
            am_event_rec e;
            am__event_from_row(&e, &events[i]);
            e.score = 0;
            if (!first) am__buf_addc(&o->b, ',');
            first = 0;
            am__event_rec_json(&o->b, &e);
            /* entities of the event, inserted before the closing brace */
            am__entity_row *en;
            size_t nen;
            if ((rc = am__store_entities_list(s, user_id, events[i].rid, &ar, &en, &nen))) break;
            if (o->b.oom) { rc = AM_NOMEM; break; }
            o->b.len--;
            am__buf_adds(&o->b, ",\"entities\":[");
            for (size_t k = 0; k < nen; k++) {
                am__buf_adds(&o->b, k ? ",{" : "{");
                am__json_kv(&o->b, "type", en[k].type, 0);
                am__json_kv(&o->b, "text", en[k].surface, 1);
                am__json_kv(&o->b, "norm", en[k].norm, 1);
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

static int export_audit(am__export *o, const char *user_id)
{
    am__store *s = o->store;
    int64_t after = 0;
    int rc = AM_OK, first = 1;
    for (;;) {
        am__arena ar;
        am__arena_init(&ar, o->alloc);
        am__audit_row *audit;
        size_t na = 0;
        rc = am__store_audit_page(s, user_id, after, EXPORT_PAGE, &ar, &audit, &na);
        for (size_t i = 0; !rc && i < na; i++) {
            am__buf_adds(&o->b, first ? "{" : ",{");
            first = 0;
            am__json_time(&o->b, "at", audit[i].at, 0);
            am__json_kv(&o->b, "op", audit[i].op, 1);
            am__json_kv(&o->b, "object_type", audit[i].object_type, 1);
            am__json_kv(&o->b, "object_id", audit[i].object_id, 1);
            am__json_kv(&o->b, "detail", audit[i].detail, 1);
            am__buf_addc(&o->b, '}');
            rc = export_flush(o, 0);
        }
        if (!rc && na) after = audit[na - 1].seq;
        am__arena_free(&ar);
        if (rc || na < EXPORT_PAGE) return rc;
    }
}

/* A forgotten user's export: the tombstone (its times), no content. */
int am__export_tombstone(am__export *o, const char *user_id, int state, am_time at,
                         am_time until)
{
    static const char *const states[] = {"", "held", "purging", "purged"};
    char ts[32];
    am__buf *b = &o->b;
    am__buf_adds(b, "{\"format\":\"agentmem-export\",\"version\":1");
    am__json_kv(b, "user", user_id, 1);
    am__json_kv(b, "exported_at", am__time_format(o->now(o->now_ctx), 0, ts), 1);
    am__buf_adds(b, ",\"forgotten\":{");
    am__json_kv(b, "state", states[state], 0);
    am__json_time(b, "forgotten_at", at, 1);
    am__json_time(b, "purge_at", until, 1);
    am__buf_adds(b, "},\"identities\":[],\"events\":[],\"tasks\":[],\"workspaces\":[],\"memories\":[],"
                    "\"packs\":[],\"audit\":[]}");
    return export_flush(o, 1);
}

/* The document, in one snapshot; identities, tasks and memories whole. */
int am__export_user(am__export *o, const char *user_id)
{
    am__store *s = o->store;
    am__arena ar;
    am__arena_init(&ar, o->alloc);
    int rc;
    char ts[32];
    am__link_row *links;
    am__task_row *tasks;
    am__item_row *items;
    size_t nl, nt, ni;
    am__buf *b = &o->b;
    if ((rc = s->vt->users.links_list(s, user_id, &ar, &links, &nl))) goto out;
    am__buf_adds(b, "{\"format\":\"agentmem-export\",\"version\":1");
    am__json_kv(b, "user", user_id, 1);
    am__json_kv(b, "exported_at", am__time_format(o->now(o->now_ctx), 0, ts), 1);
    /* forgets in their grace period: their tombstones, no content (the
     * key only when there is one) */
    am__held_row *held;
    size_t nh;
    if ((rc = am__forget_held(s, user_id, &ar, &held, &nh))) goto out;
    for (size_t i = 0; i < nh; i++) {
        am__buf_adds(b, i ? ",{" : ",\"held\":[{");
        am__json_kv(b, "level", held[i].level, 0);
        am__json_kv(b, "id", held[i].object_id, 1);
        am__json_time(b, "forgotten_at", held[i].forgotten_at, 1);
        am__json_time(b, "purge_at", held[i].purge_at, 1);
        am__buf_adds(b, i + 1 == nh ? "}]" : "}");
    }
    am__buf_adds(b, ",\"identities\":[");
    for (size_t i = 0; i < nl; i++) {
        am__buf_adds(b, i ? ",{" : "{");
        am__json_kv(b, "channel", links[i].channel, 0);
        am__json_kv(b, "external_id", links[i].external_id, 1);
        am__buf_addc(b, '}');
    }
    am__buf_adds(b, "],\"events\":[");
    if ((rc = export_events(o, user_id))) goto out;
    am__buf_adds(b, "],\"tasks\":[");
    if ((rc = s->vt->tasks.tasks_list(s, user_id, NULL, 0, 0, &ar, &tasks, &nt))) goto out;
    for (size_t i = 0; i < nt; i++) {
        am_task *t;
        if ((rc = am__task_build(s, user_id, &ar, &tasks[i], NULL, NULL, &t))) goto out;
        if (i) am__buf_addc(b, ',');
        am__task_json(b, t);
        if ((rc = export_flush(o, 0))) goto out;
    }
    /* each task's shared workspace */
    am__buf_adds(b, "],\"workspaces\":[");
    for (size_t i = 0, shown = 0; i < nt; i++) {
        am__workspace_row *ws;
        size_t nw;
        if ((rc = s->vt->workspace.workspace_list(s, user_id, tasks[i].task_id, &ar, &ws, &nw)))
            goto out;
        if (!nw) continue;
        if (shown++) am__buf_addc(b, ',');
        am__workspace_json(b, tasks[i].task_id, ws, nw);
    }
    am__buf_adds(b, "],\"memories\":[");
    if ((rc = s->vt->items.items_list(s, user_id, AM__ITEMS_ALL, 0, &ar, &items, &ni))) goto out;
    for (size_t i = 0; i < ni; i++) {
        am_memory m;
        memset(&m, 0, sizeof m);
        am__memory_from_row(&m, &items[i]);
        if (i) am__buf_addc(b, ',');
        am__memory_json(b, &m, o->now(o->now_ctx));
        if ((rc = export_flush(o, 0))) goto out;
    }
    /* the rule packs applied (their rules are among the memories) */
    am__buf_adds(b, "],\"packs\":[");
    am__pack_row *packs;
    size_t np;
    if ((rc = am__pack_list(s, user_id, &ar, &packs, &np))) goto out;
    for (size_t i = 0; i < np; i++) {
        am__buf_adds(b, i ? ",{\"pack\":" : "{\"pack\":");
        am__buf_adds(b, packs[i].json);
        am__json_time(b, "applied_at", packs[i].applied_at, 1);
        am__buf_addc(b, '}');
    }
    am__buf_adds(b, "],\"audit\":[");
    if ((rc = export_audit(o, user_id))) goto out;
    am__buf_adds(b, "]}");
    rc = export_flush(o, 1);
out:
    am__arena_free(&ar);
    return rc;
}
