/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memories.c -- a user's memories listed (am_memories, am_memories_list:
 * the filter, the page, what the asker may see) and judged (am_feedback:
 * confirm, reject, correct, in one write transaction).  A listing lives
 * in one arena, released whole by am_memory_list_free.
 */
#include <string.h>

#include "api/db_int.h"
#include "domain/shapes.h"
#include "write/semantic/merge.h"
#include "store/metadata.h"

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
    else if (!rc)
        rc = db->store->vt->items.items_list(db->store, user_id, mode, at, &box->ar, &rows, &n);
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
        am__memory_from_row(&box->pub.items[i], &rows[i]);
        if (mode == AM__ITEMS_ASOF) am__memory_status_then(&box->pub.items[i]);
        /* what its memory events call it (docs/EVENTS.md) */
        char kid[AM__REF_LEN + 1];
        if ((rc = am__store_key_id(db->store, user_id, rows[i].scope, rows[i].key, kid)) ||
            !(box->pub.items[i].key_id = am__arena_strdup(&box->ar, kid))) {
            if (!rc) rc = AM_NOMEM;
            break;
        }
        if (i) am__buf_addc(&b, ',');
        am__memory_json(&b, &box->pub.items[i], am__db_now(db));
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
    rc = am__store_begin(s);
    /* for the log: the item's kind and lineage, before the change */
    const char *kind = NULL, *lineage = NULL;
    char origin[128] = "unknown"; /* who decided the item judged (docs/REPORTS.md) */
    if (!rc && am__log_on(&db->log)) {
        am__item_row *rows;
        size_t n;
        rc = s->vt->items.items_list(s, user_id,
                                     AM__ITEMS_CURRENT | AM__ITEMS_NO_SOURCES | AM__ITEMS_NO_HEAT,
                                     now, &ar, &rows, &n);
        for (size_t i = 0; !rc && i < n && !kind; i++)
            if (strcmp(rows[i].id, memory_id) == 0 || strcmp(rows[i].lineage_id, memory_id) == 0) {
                kind = rows[i].kind;
                lineage = rows[i].lineage_id;
                am__item_origin(&rows[i], origin, sizeof origin);
            }
    }
    if (!rc) rc = am__semantic_feedback(&w, memory_id, action, text);
    if (!rc) rc = am__store_audit(s, user_id, now, ops[action], "memory", memory_id, NULL);
    if (!rc) rc = am__store_commit(s);
    if (rc) am__store_rollback(s);
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
