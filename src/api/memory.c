/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memory.c -- one memory item by id (agentmem.h "one memory"): read it,
 * add one the application states, correct it, delete it, and feedback
 * that answers with the item (the delete: memory_delete.c).  This file
 * checks arguments, holds the
 * transaction and boxes the result; the merge and the versions are the
 * semantic layer's (semantic/merge.c), the delete the store's
 * (item_delete), the access rules recall/access.c's.
 *
 * An item is named by its lineage id or by the id of any of its versions:
 * every call resolves the name to the lineage first, so an id read before
 * a feedback or an update still names the item.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/db_int.h"
#include "api/import_int.h"
#include "api/memory_int.h"
#include "base/log.h"
#include "domain/shapes.h"
#include "recall/recall.h"
#include "write/semantic/merge.h"
#include "store/metadata.h"
#include "write/write.h"

#define KEY_MAX 95 /* the bytes of a key (the distiller's keys: 96 with the NUL) */

typedef struct item_box {
    am_memory_item pub;
    am__arena ar;
    am__allocator alloc;
} item_box;

void am_memory_item_free(am_memory_item *m)
{
    if (!m) return;
    item_box *b = (item_box *)m;
    am__allocator a = b->alloc;
    am__arena_free(&b->ar);
    am__free(&a, b);
}

/* The item id names (lineage or any version), boxed.  AM_NOTFOUND
 * without a message (the caller words it). */
int am__memory_item_load(am_db *db, const char *uid, const char *id, am_memory_item **out)
{
    *out = NULL;
    item_box *box = am__calloc(&db->alloc, sizeof *box);
    if (!box) return AM_NOMEM;
    box->alloc = db->alloc;
    am__arena_init(&box->ar, &box->alloc);
    am_memory *v;
    size_t k;
    int rc = am__item_versions(db->store, uid, id, am__db_now(db), &box->ar, &v, &k);
    if (rc) goto out_fail;
    box->pub.versions = v;
    box->pub.n_versions = k;
    am_time now = am__db_now(db);
    box->pub.current = am__item_current(v, k, now);
    am__buf b;
    am__buf_init(&b, &db->alloc);
    am__item_json(&b, box->pub.current, v, k, now);
    box->pub.json = b.oom ? NULL : am__arena_strndup(&box->ar, b.p, b.len);
    am__buf_free(&b);
    if (!box->pub.json) { rc = AM_NOMEM; goto out_fail; }
    *out = &box->pub;
    return AM_OK;
out_fail:
    am_memory_item_free(&box->pub);
    return rc;
}

/* The user and the item's id checked: AM_OK or AM_INVALID naming them. */
int am__memory_check_ids(am_db *db, const char *what, const char *user_id, const char *memory_id)
{
    const char *why;
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "%s: user %s", what, why);
    if ((why = am__id_check(memory_id)))
        return am__db_error(db, AM_INVALID, "%s: memory id %s", what, why);
    return AM_OK;
}

/* For an agent or a role: AM_OK when it may read the item memory_id
 * names, else AM_NOTFOUND with the words for an unknown item. */
int am__memory_access_gate(am_db *db, const char *what, const char *user_id,
                           const char *memory_id, const char *agent_id, const char *role)
{
    if (!agent_id && !role) return AM_OK;
    am_access *a;
    int rc = am_access_open(db, user_id, agent_id, role, &a);
    if (!rc) rc = am_access_check(a, AM_ACCESS_MEMORY, memory_id);
    am_access_free(a);
    if (rc == AM_NOTFOUND)
        return am__db_error(db, rc, "%s: user %s has no memory %s", what, user_id, memory_id);
    return rc;
}

/* A memory's text: present, not blank, valid UTF-8, within the limit. */
static int check_text(am_db *db, const char *what, const char *text)
{
    if (!text) return am__db_error(db, AM_INVALID, "%s: text is missing", what);
    size_t n = strlen(text), i = 0;
    while (i < n && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) i++;
    if (i == n) return am__db_error(db, AM_INVALID, "%s: text is empty", what);
    size_t bad;
    if (!am__utf8_valid(text, n, &bad))
        return am__db_error(db, AM_INVALID, "%s: text: invalid UTF-8 at byte %zu", what, bad);
    if (n > db->cfg.max_text_bytes)
        return am__db_error(db, AM_TOOBIG, "%s: text is %zu bytes, over the limit of %zu", what,
                            n, (size_t)db->cfg.max_text_bytes);
    return AM_OK;
}

/* ------------------------------------------------------------ get */

int am_memory_get(am_db *db, const char *user_id, const char *memory_id, am_memory_item **out)
{
    return am_memory_get_as(db, user_id, memory_id, NULL, NULL, out);
}

int am_memory_get_as(am_db *db, const char *user_id, const char *memory_id, const char *agent_id,
                     const char *role, am_memory_item **out)
{
    if (!db || !out) return AM_MISUSE;
    *out = NULL;
    am__db_clear_error(db);
    int rc = am__memory_check_ids(db, "memory", user_id, memory_id);
    if (!rc && agent_id) rc = am__db_check_id(db, "memory", "agent", agent_id);
    if (!rc && role) rc = am__db_check_id(db, "memory", "role", role);
    if (!rc) rc = am__db_user_gate(db, "memory", user_id, AM_NOTFOUND);
    if (!rc) rc = am__memory_access_gate(db, "memory", user_id, memory_id, agent_id, role);
    if (rc) return rc;
    rc = am__memory_item_load(db, user_id, memory_id, out);
    if (rc == AM_NOTFOUND)
        return am__db_error(db, rc, "memory: user %s has no memory %s", user_id, memory_id);
    if (rc == AM_NOMEM) return am__db_error(db, rc, "memory: out of memory");
    return rc ? am__db_store_error(db, rc, "memory") : AM_OK;
}

/* ------------------------------------------------------------ add */

static const char *const kinds[] = {"preference", "constraint", "profile", "fact", "pattern",
                                    "task_conclusion", "rule", "temp", NULL};

static int check_input(am_db *db, const am_memory_input *in)
{
    static const char what[] = "memory add";
    const char *why;
    if ((why = am__id_check(in->user_id))) return am__db_error(db, AM_INVALID, "%s: user %s", what, why);
    int rc = check_text(db, what, in->text);
    if (rc) return rc;
    if (in->kind) {
        size_t i = 0;
        while (kinds[i] && strcmp(kinds[i], in->kind) != 0) i++;
        if (!kinds[i])
            return am__db_error(db, AM_INVALID,
                                "%s: kind: expected preference, constraint, profile, fact, "
                                "pattern, task_conclusion, rule or temp",
                                what);
    }
    if (in->key) {
        if ((why = am__id_check(in->key))) return am__db_error(db, AM_INVALID, "%s: key %s", what, why);
        if (strlen(in->key) > KEY_MAX)
            return am__db_error(db, AM_INVALID, "%s: key is longer than %d bytes", what, KEY_MAX);
    }
    if (in->scope && strcmp(in->scope, "global") != 0) {
        static const char *const prefixes[] = {"domain:", "task:", "role:"};
        const char *rest = NULL;
        for (size_t i = 0; i < 3 && !rest; i++)
            if (strncmp(in->scope, prefixes[i], strlen(prefixes[i])) == 0)
                rest = in->scope + strlen(prefixes[i]);
        if (!rest)
            return am__db_error(db, AM_INVALID,
                                "%s: scope: expected global, domain:NAME, task:ID or role:NAME", what);
        if ((why = am__id_check(rest))) return am__db_error(db, AM_INVALID, "%s: scope %s", what, why);
    }
    if (in->agent_id && (rc = am__db_check_id(db, what, "agent", in->agent_id))) return rc;
    if (in->role && (rc = am__db_check_id(db, what, "role", in->role))) return rc;
    if (in->expires_at) {
        am_time t, now = am__db_now(db);
        char ts[32];
        if (am__time_parse(in->expires_at, &t, NULL, &why) != AM_OK)
            return am__db_error(db, AM_INVALID, "%s: expires_at: %s", what,
                                why ? why : "expected ISO 8601 with a zone");
        if (t <= now)
            return am__db_error(db, AM_INVALID, "%s: expires_at: %s is not after now (%s)", what,
                                in->expires_at, am__time_format(now, 0, ts));
    }
    return AM_OK;
}

/* The statement of in: the kind and key given, else the engine's reading
 * of the text (the distiller's, as for a user's turn), else a fact keyed
 * by the text's words.  Strings in ar. */
static int statement_of(am_db *db, const am_memory_input *in, am__arena *ar, am__statement *st)
{
    return am__memory_statement(db, in, ar, AM__SOURCE_API, NULL, st);
}

int am__memory_statement(am_db *db, const am_memory_input *in, am__arena *ar, const char *source,
                         const char *extra, am__statement *st)
{
    am__write_env env;
    am__db_write_env(db, &env);
    return am__write_statement(&env, db->cfg.default_tz_minutes, in, ar, source, extra, st);
}

/* For an agent or a role: 1 when it may read every version of lineage. */
static int lineage_visible(am__wctx *w, const am__access *acc, const char *lineage, int *rc)
{
    am__item_row *rows;
    size_t n;
    *rc = w->store->vt->items.items_list(w->store, w->uid,
                                         AM__ITEMS_ALL | AM__ITEMS_NO_SOURCES | AM__ITEMS_NO_HEAT,
                                         w->now, w->ar, &rows, &n);
    for (size_t i = 0; !*rc && i < n; i++)
        if (strcmp(rows[i].lineage_id, lineage) == 0 &&
            !am__access_item_visible(acc, rows[i].kind, rows[i].scope))
            return 0;
    return 1;
}

int am_memory_add(am_db *db, const am_memory_input *in, am_memory_item **out)
{
    static const char what[] = "memory add";
    if (!db || !in) return AM_MISUSE;
    if (out) *out = NULL;
    am__db_clear_error(db);
    int rc = check_input(db, in);
    if (rc) return rc;
    if ((rc = am__db_user_gate(db, what, in->user_id, AM_DENIED))) return rc;
    am__store *s = db->store;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__statement st;
    am__access acc;
    am__access_init(&acc, in->agent_id, in->role, &db->roles);
    char uid[AM_ID_MAX + 1], lineage[27] = "";
    int outcome = 0;
    const char *meta = NULL;
    char why[256];
    if ((rc = am__meta_check(in->metadata_json, &ar, &meta, why, sizeof why))) {
        am__db_error(db, rc, "%s: %s", what, rc == AM_NOMEM ? "out of memory" : why);
        goto out_free;
    }
    if ((rc = statement_of(db, in, &ar, &st))) goto out_error;
    /* an asker writes no item it could not read */
    if (acc.scoped && !am__access_item_visible(&acc, st.kind, st.scope)) {
        rc = am__db_error(db, AM_DENIED, "%s: the asker may not write a memory of kind %s in scope %s",
                          what, st.kind, st.scope);
        goto out_free;
    }
    if ((rc = am__store_begin(s))) goto out_error;
    if ((rc = am__touch_lock_writers(db, &in->user_id, 1))) goto out_rollback;
    if ((rc = am__db_resolve_user(db, what, in->user_id, NULL, NULL, 1, uid))) {
        am__store_rollback(s);
        goto out_free; /* (its message made) */
    }
    am__dbcache_note(db->cache, uid);
    am__wctx w = {s, db->text, &db->ulid, &db->cfg.rank, &ar, uid, am__db_now(db), NULL, 0, meta};
    if ((rc = am__semantic_state(&w, &st, &outcome, lineage))) goto out_rollback;
    /* the merge may have met an item of another kind (a near duplicate) */
    if (acc.scoped && !lineage_visible(&w, &acc, lineage, &rc)) {
        am__store_rollback(s);
        rc = am__db_error(db, AM_DENIED, "%s: the asker may not write a memory of kind %s in scope %s",
                          what, st.kind, st.scope);
        goto out_free;
    }
    if (rc || (rc = am__store_commit(s))) goto out_rollback;
    am__arena_free(&ar);
    am__events_deliver(db);
    am__db_forget_work(db, 1); /* a step of a due purge, if any */
    if (!out) return AM_OK;
    if ((rc = am__memory_item_load(db, uid, lineage, out)))
        return rc == AM_NOMEM ? am__db_error(db, rc, "%s: out of memory", what)
                              : am__db_store_error(db, rc, what);
    return AM_OK;
out_rollback:
    am__store_rollback(s);
out_error:
    if (rc == AM_NOMEM) am__db_error(db, rc, "%s: out of memory", what);
    else am__db_store_error(db, rc, what);
out_free:
    am__arena_free(&ar);
    am__events_deliver(db);
    return rc;
}

/* ------------------------------------------------------------ feedback, update */

int am_memory_feedback(am_db *db, const char *user_id, const char *memory_id, int action,
                       const char *text, const char *agent_id, const char *role,
                       am_memory_item **out)
{
    if (!db) return AM_MISUSE;
    if (out) *out = NULL;
    int rc = am_feedback_as(db, user_id, memory_id, action, text, agent_id, role);
    if (rc || !out) return rc;
    /* every version stays: the id given still names the item */
    if ((rc = am__memory_item_load(db, user_id, memory_id, out)))
        return rc == AM_NOMEM ? am__db_error(db, rc, "feedback: out of memory")
                              : am__db_store_error(db, rc, "feedback");
    return AM_OK;
}

int am_memory_update(am_db *db, const char *user_id, const char *memory_id, const char *text,
                     am_memory_item **out)
{
    return am_memory_update_as(db, user_id, memory_id, text, NULL, NULL, out);
}

int am_memory_update_as(am_db *db, const char *user_id, const char *memory_id, const char *text,
                        const char *agent_id, const char *role, am_memory_item **out)
{
    static const char what[] = "memory update";
    if (!db) return AM_MISUSE;
    if (out) *out = NULL;
    am__db_clear_error(db);
    int rc = am__memory_check_ids(db, what, user_id, memory_id);
    if (!rc) rc = check_text(db, what, text);
    if (rc) return rc;
    rc = am_memory_feedback(db, user_id, memory_id, AM_FEEDBACK_CORRECT, text, agent_id, role, out);
    if (rc == AM_NOTFOUND)
        return am__db_error(db, rc, "%s: user %s has no current memory %s", what, user_id,
                            memory_id);
    return rc;
}

int am_memory_set(am_db *db, const char *user_id, const char *memory_id, const char *text,
                  const char *metadata_json, const char *agent_id, const char *role,
                  am_memory_item **out)
{
    static const char what[] = "memory update";
    if (!db) return AM_MISUSE;
    if (out) *out = NULL;
    if (!metadata_json) return am_memory_update_as(db, user_id, memory_id, text, agent_id, role, out);
    am__db_clear_error(db);
    int rc = am__memory_check_ids(db, what, user_id, memory_id);
    if (!rc && text) rc = check_text(db, what, text);
    if (!rc && agent_id) rc = am__db_check_id(db, what, "agent", agent_id);
    if (!rc && role) rc = am__db_check_id(db, what, "role", role);
    if (rc) return rc;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    const char *meta = NULL;
    char why[256];
    am_memory_item *cur = NULL;
    if ((rc = am__meta_check(metadata_json, &ar, &meta, why, sizeof why))) {
        am__db_error(db, rc, "%s: %s", what, rc == AM_NOMEM ? "out of memory" : why);
        goto out;
    }
    if ((rc = am__db_user_gate(db, what, user_id, AM_NOTFOUND)) ||
        (rc = am__memory_access_gate(db, what, user_id, memory_id, agent_id, role)))
        goto out;
    /* the text kept: the current version's */
    if (!text) {
        rc = am__memory_item_load(db, user_id, memory_id, &cur);
        if (!rc && !cur->current) rc = AM_NOTFOUND;
        if (rc == AM_NOTFOUND) {
            am__db_error(db, rc, "%s: user %s has no current memory %s", what, user_id, memory_id);
            goto out;
        }
        if (rc) {
            am__db_store_error(db, rc, what);
            goto out;
        }
        text = cur->current->text;
    }
    rc = am__db_feedback(db, user_id, memory_id, AM_FEEDBACK_CORRECT, text, meta ? meta : "");
    if (rc == AM_NOTFOUND)
        am__db_error(db, rc, "%s: user %s has no current memory %s", what, user_id, memory_id);
    if (!rc && out && (rc = am__memory_item_load(db, user_id, memory_id, out)))
        rc = rc == AM_NOMEM ? am__db_error(db, rc, "%s: out of memory", what)
                            : am__db_store_error(db, rc, what);
out:
    am_memory_item_free(cur);
    am__arena_free(&ar);
    return rc;
}
