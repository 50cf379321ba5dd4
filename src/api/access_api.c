/* SPDX-License-Identifier: Apache-2.0 */
/*
 * access_api.c -- the access decision as public calls (agentmem.h
 * am_access_*, am_feedback_as, am_forget_as) and a token checked again by
 * its id (am_token_recheck).  The rules are recall/access.c's; this file
 * only loads them for one user and answers by id, so a server, an MCP
 * transport and the library's own *_as reads decide alike.
 */
#include <stdio.h>
#include <string.h>

#include "domain/records.h"
#include "domain/forget.h"
#include "api/db_int.h"

struct am_access {
    am_db *db;
    am__allocator alloc;
    am__arena ar;
    am__access acc;
    char uid[AM_ID_MAX + 1];
    am__item_row *items; /* every version, loaded at the first item asked */
    size_t n_items;
    int items_loaded;
};

int am_access_open(am_db *db, const char *user_id, const char *agent_id, const char *role,
                   am_access **out)
{
    if (!db || !out) return AM_MISUSE;
    *out = NULL;
    am__db_clear_error(db);
    const char *why;
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "access: user %s", why);
    int rc;
    if (agent_id && (rc = am__db_check_id(db, "access", "agent", agent_id))) return rc;
    if (role && (rc = am__db_check_id(db, "access", "role", role))) return rc;
    if ((rc = am__db_user_gate(db, "access", user_id, AM_NOTFOUND))) return rc;
    am_access *a = am__calloc(&db->alloc, sizeof *a);
    if (!a) return am__db_error(db, AM_NOMEM, "access: out of memory");
    a->db = db;
    a->alloc = db->alloc;
    am__arena_init(&a->ar, &a->alloc);
    memcpy(a->uid, user_id, strlen(user_id) + 1);
    /* the ids live in the handle: the caller's strings may go */
    const char *ag = agent_id ? am__arena_strdup(&a->ar, agent_id) : NULL;
    const char *ro = role ? am__arena_strdup(&a->ar, role) : NULL;
    if ((agent_id && !ag) || (role && !ro)) rc = AM_NOMEM;
    else {
        am__access_init(&a->acc, ag, ro, &db->roles);
        rc = am__access_load(&a->acc, db->store, a->uid, &a->ar);
    }
    if (rc) {
        am_access_free(a);
        return rc == AM_NOMEM ? am__db_error(db, rc, "access: out of memory")
                              : am__db_store_error(db, rc, "access");
    }
    *out = a;
    return AM_OK;
}

void am_access_free(am_access *a)
{
    if (!a) return;
    am__allocator al = a->alloc;
    am__arena_free(&a->ar);
    am__free(&al, a);
}

static int items_load(am_access *a)
{
    if (a->items_loaded) return AM_OK;
    am__store *s = a->db->store;
    int rc = s->vt->items.items_list(s, a->uid, AM__ITEMS_ALL | AM__ITEMS_NO_HEAT, 0, &a->ar,
                                     &a->items, &a->n_items);
    if (rc == AM_NOTFOUND) a->n_items = 0, rc = AM_OK;
    if (!rc) a->items_loaded = 1;
    return rc;
}

/* The item version or lineage id names: its row, or NULL. */
static const am__item_row *item_find(const am_access *a, const char *id)
{
    for (size_t i = 0; i < a->n_items; i++)
        if (strcmp(a->items[i].id, id) == 0 || strcmp(a->items[i].lineage_id, id) == 0)
            return &a->items[i];
    return NULL;
}

/* A task the asker may read: it is there and holds an event it may read
 * (am__access_task_events). */
static int task_readable(am_access *a, const char *task_id)
{
    am__store *s = a->db->store;
    am__task_row row;
    int rc = am__store_task_get(s, a->uid, task_id, &a->ar, &row);
    return rc ? rc : am__access_task_events(&a->acc, s, a->uid, task_id, &a->ar);
}

int am_access_check(am_access *a, int what, const char *id)
{
    if (!a || !id) return AM_MISUSE;
    am_db *db = a->db;
    am__db_clear_error(db);
    static const char *const names[] = {"", "memory", "event", "task"};
    if (what < AM_ACCESS_MEMORY || what > AM_ACCESS_TASK)
        return am__db_error(db, AM_INVALID, "access: unknown kind %d", what);
    const char *why = am__id_check(id);
    if (why) return am__db_error(db, AM_INVALID, "access: %s id %s", names[what], why);
    int rc = AM_OK;
    if (what == AM_ACCESS_MEMORY) {
        if (!(rc = items_load(a))) {
            const am__item_row *it = item_find(a, id);
            rc = it && am__access_item_visible(&a->acc, it->kind, it->scope) ? AM_OK : AM_NOTFOUND;
        }
    } else if (what == AM_ACCESS_EVENT) {
        am__event_row ev;
        rc = db->store->vt->events.event_get(db->store, a->uid, AM__EVENT_BY_ID, id, &a->ar, &ev);
        if (!rc && am__access_hides_id(&a->acc, ev.id)) rc = AM_NOTFOUND;
    } else {
        rc = task_readable(a, id);
    }
    if (rc == AM_NOTFOUND) return am__db_error(db, rc, "%s %s not found", names[what], id);
    if (rc == AM_NOMEM) return am__db_error(db, rc, "access: out of memory");
    return rc ? am__db_store_error(db, rc, "access") : AM_OK;
}

int am_access_notice(am_access *a, const am_memory_event *ev, int *rc)
{
    if (rc) *rc = AM_OK;
    if (!a || !ev) return 0;
    if (!ev->user_id || strcmp(ev->user_id, a->uid) != 0) return 0;
    if (!a->acc.scoped) return 1;
    if (ev->event_id && am__access_hides_id(&a->acc, ev->event_id)) return 0;
    if (!ev->memory_id) return 1;
    int r = items_load(a);
    if (r) {
        if (rc) *rc = am__db_store_error(a->db, r, "access");
        return 0;
    }
    const am__item_row *it = item_find(a, ev->memory_id);
    return it && am__access_item_visible(&a->acc, it->kind, it->scope);
}

/* ------------------------------------------------------------ verbs */

int am_feedback_as(am_db *db, const char *user_id, const char *memory_id, int action,
                   const char *text, const char *agent_id, const char *role)
{
    if (!db) return AM_MISUSE;
    if (agent_id || role) {
        am_access *a;
        int rc = am_access_open(db, user_id, agent_id, role, &a);
        if (!rc && memory_id) rc = am_access_check(a, AM_ACCESS_MEMORY, memory_id);
        am_access_free(a);
        if (rc == AM_NOTFOUND) /* am_feedback's words for an unknown item */
            return am__db_error(db, rc, "feedback: user %s has no current memory %s", user_id,
                                memory_id);
        if (rc) return rc;
    }
    return am_feedback(db, user_id, memory_id, action, text);
}

/* 1 when a hidden event of a belongs to the session (level session) or
 * the task named id; *rc a store error */
static int holds_hidden(am_access *a, int level, const char *id, int *rc)
{
    am__store *s = a->db->store;
    *rc = AM_OK;
    for (size_t at = 0; at < a->acc.n_hidden; at += 256) {
        size_t n = a->acc.n_hidden - at < 256 ? a->acc.n_hidden - at : 256;
        am__event_row rows[256];
        unsigned char found[256];
        if ((*rc = s->vt->events.rows_get(s, a->uid, a->acc.hidden + at, n, &a->ar, rows, found)))
            return 0;
        for (size_t i = 0; i < n; i++) {
            const char *of = level == AM_FORGET_SESSION ? rows[i].session_id : rows[i].task_id;
            if (found[i] && of && strcmp(of, id) == 0) return 1;
        }
    }
    return 0;
}

int am_forget_as(am_db *db, const char *user_id, int level, const char *id, const char *agent_id,
                 const char *role, am_forget_info *info)
{
    if (!db) return AM_MISUSE;
    if ((agent_id || role) && level >= AM_FORGET_EVENT && level < AM_FORGET_USER && id) {
        static const char *const levels[] = {"", "event", "session", "task"};
        am_access *a;
        int rc = am_access_open(db, user_id, agent_id, role, &a);
        if (!rc && level == AM_FORGET_EVENT) rc = am_access_check(a, AM_ACCESS_EVENT, id);
        else if (!rc) {
            int hidden = holds_hidden(a, level, id, &rc);
            if (rc) am__db_store_error(db, rc, "forget");
            else if (hidden) rc = AM_NOTFOUND;
        }
        am_access_free(a);
        if (rc == AM_NOTFOUND) /* am_forget's words for an unknown id */
            return am__db_error(db, rc, "forget: user %s has no %s %s", user_id, levels[level],
                                id);
        if (rc) return rc;
    }
    return am_forget(db, user_id, level, id, info);
}

/* ------------------------------------------------------------ tokens */

/* AM_OK when uid is not forgotten: not held nor being purged, and when
 * purged, made again since; else AM_DENIED naming it, or a store error */
static int not_forgotten(am_db *db, const char *uid)
{
    am__store *s = db->store;
    int state;
    am_time at, until;
    int rc = am__forget_state(s, uid, &state, &at, &until);
    if (rc) return am__db_store_error(db, rc, "token");
    if (state == AM__FORGOTTEN_NONE) return AM_OK;
    int exists = state == AM__FORGOTTEN_PURGED ? am__store_user_exists(s, uid) : 0;
    if (exists < 0) return am__db_store_error(db, -exists, "token");
    return exists ? AM_OK : am__db_error(db, AM_DENIED, "token: user %s is forgotten", uid);
}

int am_token_recheck(am_db *db, const am_token_info *tok, const char *user_id)
{
    if (!db || !tok) return AM_MISUSE;
    am__db_clear_error(db);
    const char *why;
    if ((why = am__id_check(tok->user_id)))
        return am__db_error(db, AM_INVALID, "token: user %s", why);
    if (user_id && (why = am__id_check(user_id)))
        return am__db_error(db, AM_INVALID, "token: user %s", why);
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__token_row *rows;
    size_t n;
    int rc = am__tokens_list(db->store, tok->user_id, &ar, &rows, &n), live = 0,
        admin = 0, known = 0;
    for (size_t i = 0; !rc && i < n; i++)
        if (strcmp(rows[i].id, tok->id) == 0) {
            known = 1;
            live = rows[i].revoked_at == AM_TIME_NONE;
            admin = rows[i].admin;
        }
    am__arena_free(&ar);
    if (rc) return am__db_store_error(db, rc, "token");
    if (!live)
        return am__db_error(db, AM_DENIED, "token: token %s %s", tok->id,
                            known ? "was revoked" : "is gone (its user was forgotten)");
    if (user_id && strcmp(user_id, tok->user_id) != 0 && !admin)
        return am__db_error(db, AM_DENIED, "token: token %s acts for its own user only", tok->id);
    if ((rc = not_forgotten(db, tok->user_id))) return rc;
    if (user_id && strcmp(user_id, tok->user_id) != 0 && (rc = not_forgotten(db, user_id)))
        return rc;
    return AM_OK;
}
