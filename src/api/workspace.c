/* SPDX-License-Identifier: Apache-2.0 */
/*
 * workspace.c -- am_workspace_get / am_workspace_put: a task's
 * shared workspace, one entry per agent of the user (what it is doing,
 * has done, does next).  The texts are hostile: each is checked like an
 * event's text (valid UTF-8, no control characters but tab and line
 * breaks) and bounded (AM_WORKSPACE_TEXT_MAX), stored as given, and
 * flattened only where it is printed (the block: recall/render.c).  A
 * workspace belongs to an existing task and goes with it (store/sqlite/
 * forget.c); a put is one transaction with its audit row.
 */
#include <string.h>

#include "api/db_int.h"
#include "domain/shapes.h"
#include "text/plain.h"

typedef struct workspace_box {
    am_workspace pub; /* first: the public pointer is the box's */
    am__arena ar;
    am__allocator alloc;
} workspace_box;

void am_workspace_free(am_workspace *w)
{
    if (!w) return;
    workspace_box *b = (workspace_box *)w;
    am__allocator a = b->alloc;
    am__arena_free(&b->ar);
    am__free(&a, b);
}

/* The field checks of a write, for one text field (NULL: not given). */
static int check_text(am_db *db, const char *field, const char *v)
{
    if (!v) return AM_OK;
    size_t n = strlen(v), bad;
    uint32_t cp;
    if (n > AM_WORKSPACE_TEXT_MAX)
        return am__db_error(db, AM_TOOBIG, "workspace: %s is %zu bytes, over the limit of %d", field,
                            n, AM_WORKSPACE_TEXT_MAX);
    if (!am__utf8_valid(v, n, &bad))
        return am__db_error(db, AM_INVALID, "workspace: %s: invalid UTF-8 at byte %zu", field, bad);
    if (am__plain_refused(v, n, &bad, &cp))
        return am__db_error(db, AM_INVALID,
                            "workspace: %s: control character U+%04X at byte %zu (only tab and line "
                            "breaks are allowed)", field, (unsigned)cp, bad);
    return AM_OK;
}

/* The ids, the user (not being forgotten: rc_hidden) and the task. */
static int check_task(am_db *db, const char *user_id, const char *task_id, int rc_hidden,
                      am__arena *ar)
{
    int rc;
    if ((rc = am__db_check_id(db, "workspace", "user", user_id))) return rc;
    if ((rc = am__db_check_id(db, "workspace", "task", task_id))) return rc;
    if ((rc = am__db_user_gate(db, "workspace", user_id, rc_hidden))) return rc;
    am__task_row t;
    rc = am__store_task_get(db->store, user_id, task_id, ar, &t);
    if (rc == AM_NOTFOUND)
        return am__db_error(db, rc, "workspace: user %s has no task %s", user_id, task_id);
    if (rc) return am__db_store_error(db, rc, "workspace");
    return AM_OK;
}

int am_workspace_get(am_db *db, const char *user_id, const char *task_id, am_workspace **out)
{
    if (!db || !out) return AM_MISUSE;
    *out = NULL;
    am__db_clear_error(db);
    workspace_box *box = am__calloc(&db->alloc, sizeof *box);
    if (!box) return am__db_error(db, AM_NOMEM, "workspace: out of memory");
    box->alloc = db->alloc;
    am__arena_init(&box->ar, &box->alloc);
    am__workspace_row *rows = NULL;
    size_t n = 0;
    am__buf b;
    am__buf_init(&b, &db->alloc);
    int rc = check_task(db, user_id, task_id, AM_NOTFOUND, &box->ar);
    if (rc) goto out_fail;
    if ((rc = db->store->vt->workspace.workspace_list(db->store, user_id, task_id, &box->ar, &rows,
                                                      &n))) {
        rc = am__db_store_error(db, rc, "workspace");
        goto out_fail;
    }
    am_workspace *w = &box->pub;
    w->task_id = am__arena_strdup(&box->ar, task_id);
    w->entries = am__arena_alloc(&box->ar, (n + 1) * sizeof *w->entries);
    if (!w->task_id || !w->entries) goto out_nomem;
    for (size_t i = 0; i < n; i++)
        w->entries[i] = (am_workspace_entry){rows[i].agent_id, rows[i].doing, rows[i].done,
                                             rows[i].next, rows[i].version, rows[i].updated_at};
    am__workspace_json(&b, task_id, rows, n);
    w->n = n;
    w->json = b.oom ? NULL : am__arena_strndup(&box->ar, b.p, b.len);
    if (!w->json) goto out_nomem;
    am__buf_free(&b);
    *out = w;
    return AM_OK;
out_nomem:
    rc = am__db_error(db, AM_NOMEM, "workspace: out of memory");
out_fail:
    am__buf_free(&b);
    am_workspace_free(&box->pub);
    return rc;
}

int am_workspace_put(am_db *db, const char *user_id, const char *task_id, const char *agent_id,
                     const char *doing, const char *done, const char *next, long *version)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    if (version) *version = 0;
    int rc;
    if (!agent_id) return am__db_error(db, AM_INVALID, "workspace: agent is missing");
    if ((rc = am__db_check_id(db, "workspace", "agent", agent_id))) return rc;
    if ((rc = check_text(db, "doing", doing)) || (rc = check_text(db, "done", done)) ||
        (rc = check_text(db, "next", next)))
        return rc;
    am__store *s = db->store;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    if ((rc = am__store_begin(s))) {
        rc = am__db_store_error(db, rc, "workspace");
        goto out;
    }
    if ((rc = check_task(db, user_id, task_id, AM_DENIED, &ar))) goto out_rollback;
    am__workspace_row *rows;
    size_t n, i;
    if ((rc = s->vt->workspace.workspace_list(s, user_id, task_id, &ar, &rows, &n))) goto out_store;
    for (i = 0; i < n && strcmp(rows[i].agent_id, agent_id) != 0; i++) {}
    if (i == n && n >= AM_WORKSPACE_AGENTS_MAX) {
        rc = am__db_error(db, AM_TOOBIG, "workspace: task %s has entries of %d agents already",
                          task_id, AM_WORKSPACE_AGENTS_MAX);
        goto out_rollback;
    }
    am_time now = am__db_now(db);
    am__workspace_row w = {agent_id, doing, done, next, 0, now};
    long v = 0;
    if ((rc = am__store_workspace_put(s, user_id, task_id, &w, now, &v))) goto out_store;
    if ((rc = am__store_audit(s, user_id, now, "workspace.put", "task", task_id, agent_id)))
        goto out_store;
    am__dbcache_note(db->cache, user_id); /* the block shows the workspace */
    if ((rc = am__store_commit(s))) goto out_store;
    am__dbcache_flush(db->cache);
    if (version) *version = v;
    goto out;
out_store:
    rc = rc == AM_NOMEM ? am__db_error(db, rc, "workspace: out of memory")
                        : am__db_store_error(db, rc, "workspace");
out_rollback:
    am__store_rollback(s);
out:
    am__arena_free(&ar);
    return rc;
}
