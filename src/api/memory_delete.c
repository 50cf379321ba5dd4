/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memory_delete.c -- am_memory_delete: one memory item, every version,
 * deleted in one write transaction (the store's item_delete), with its
 * audit row and its memory.forgotten event; then what held its text in
 * memory is dropped (token sets, normal forms, deferred heat, the shared
 * cache's recall entries).
 */
#include <stdio.h>

#include "api/db_int.h"
#include "api/memory_int.h"
#include "base/log.h"
#include "domain/forget.h"
#include "recall/recall.h"
#include "write/semantic/merge.h"

int am_memory_delete(am_db *db, const char *user_id, const char *memory_id, long *versions)
{
    return am_memory_delete_as(db, user_id, memory_id, NULL, NULL, versions);
}

int am_memory_delete_as(am_db *db, const char *user_id, const char *memory_id,
                        const char *agent_id, const char *role, long *versions)
{
    static const char what[] = "memory delete";
    if (!db) return AM_MISUSE;
    if (versions) *versions = 0;
    am__db_clear_error(db);
    int rc = am__memory_check_ids(db, what, user_id, memory_id);
    if (!rc && agent_id) rc = am__db_check_id(db, what, "agent", agent_id);
    if (!rc && role) rc = am__db_check_id(db, what, "role", role);
    if (!rc) rc = am__db_user_gate(db, what, user_id, AM_NOTFOUND);
    if (!rc) rc = am__memory_access_gate(db, what, user_id, memory_id, agent_id, role);
    if (rc) return rc;
    am__store *s = db->store;
    /* its kind, for the log (metrics count deletes by kind) */
    char kind[24] = "";
    if (am__log_on(&db->log)) {
        am_memory_item *cur = NULL;
        if (am__memory_item_load(db, user_id, memory_id, &cur) == AM_OK && cur) {
            const am_memory *v = cur->current ? cur->current
                                 : cur->n_versions ? &cur->versions[cur->n_versions - 1]
                                                   : NULL;
            if (v && v->kind) snprintf(kind, sizeof kind, "%s", v->kind);
        }
        am_memory_item_free(cur);
    }
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am_time now = am__db_now(db);
    am__wctx w = {s, db->text, &db->ulid, &db->cfg.rank, &ar, user_id, now, NULL, 0, NULL};
    char lineage[27] = "", detail[48];
    long n = 0;
    am__dbcache_note(db->cache, user_id);
    rc = am__store_begin(s);
    if (!rc) rc = am__touch_lock_writers(db, &user_id, 1);
    if (!rc) rc = am__semantic_lineage(&w, memory_id, lineage);
    if (!rc) rc = am__forget_item_delete(s, user_id, lineage, now, &n);
    /* the audit and the notice name the item by its lineage id (the
     * engine's, none of the user's words) */
    snprintf(detail, sizeof detail, "{\"versions\":%ld}", n);
    if (!rc) rc = am__store_audit(s, user_id, now, "memory.deleted", "memory", lineage, detail);
    am__outbox_row r = {0, now, AM_TIME_NONE, user_id, "memory.forgotten", lineage, NULL,
                        NULL, NULL, "memory", NULL};
    if (!rc) rc = am__store_outbox_put(s, &r);
    if (!rc) rc = am__store_commit(s);
    if (rc) am__store_rollback(s);
    am__arena_free(&ar);
    if (rc == AM_NOTFOUND)
        return am__db_error(db, rc, "%s: user %s has no memory %s", what, user_id, memory_id);
    if (rc == AM_NOMEM) return am__db_error(db, rc, "%s: out of memory", what);
    if (rc) return am__db_store_error(db, rc, what);
    /* what held its text in memory: token sets, normal forms, the heat
     * kept for the next write, the shared cache's recall entries */
    am__tokcache_clear(db->tokcache);
    am__text_forget(db->text);
    am__touch_drop(db, user_id);
    am__dbcache_forget(db->cache, user_id, 0);
    am__events_deliver(db);
    am__db_forget_work(db, 0); /* the scrub: freed pages, the log */
    if (am__log_on(&db->log)) {
        am__logrec lr;
        am__logrec_begin(&lr, &db->log, AM_LOG_INFO, "memory_delete", now);
        am__logrec_str(&lr, "user", user_id);
        am__logrec_str(&lr, "memory_id", lineage);
        am__logrec_str(&lr, "kind", kind);
        am__logrec_int(&lr, "versions", n);
        am__logrec_emit(&lr);
    }
    if (versions) *versions = n;
    return AM_OK;
}
