/* SPDX-License-Identifier: Apache-2.0 */
/*
 * packs.c -- cold-start rule packs (agentmem.h "rule packs"): apply a pack
 * to a user or to every user it applies to, list and remove packs.  This
 * file checks arguments, holds one write transaction per user and words
 * the answers; the pack's parser and its rules for one user are
 * lifecycle/packs.c's.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/records.h"
#include "api/db_int.h"
#include "api/import_int.h"
#include "lifecycle/packs.h"
#include "recall/recall.h"
#include "write/semantic/merge.h"

/* The keys of p's rules: the rule's, else the one the engine reads from
 * its text (as am_memory_add reads an application's statement); a key
 * read twice gets the rule's index after it. */
static int rule_keys(am_db *db, const am__pack *p, am__arena *ar, const char ***out)
{
    const char **keys = am__arena_alloc(ar, p->n_rules * sizeof *keys);
    if (!keys) return AM_NOMEM;
    for (size_t i = 0; i < p->n_rules; i++) {
        const am__pack_rule *r = &p->rules[i];
        if (r->key) {
            keys[i] = r->key;
            continue;
        }
        am_memory_input in;
        memset(&in, 0, sizeof in);
        in.text = r->text;
        am__statement st;
        int rc = am__memory_statement(db, &in, ar, "pack", NULL, &st);
        if (rc) return rc;
        keys[i] = st.key;
    }
    for (size_t i = 0; i < p->n_rules; i++) {
        if (p->rules[i].key) continue;
        for (size_t k = 0; k < p->n_rules; k++) {
            if (k == i || strcmp(keys[k], keys[i]) != 0 || (k > i && !p->rules[k].key)) continue;
            char buf[AM__PACK_KEY_MAX + 16];
            snprintf(buf, sizeof buf, "%.*s.%zu", AM__PACK_KEY_MAX - 8, keys[i], i + 1);
            if (!(keys[i] = am__arena_strdup(ar, buf))) return AM_NOMEM;
            break;
        }
    }
    *out = keys;
    return AM_OK;
}

static const char *outcome_word(int outcome)
{
    switch (outcome) {
    case AM__PACK_APPLIED: return "applied";
    case AM__PACK_REPLACED: return "replaced";
    default: return "unchanged";
    }
}

/* A user that already has this version with other rules: refused
 * before anything is written. */
static int check_conflicts(am_db *db, const char *what, const am__pack *p, const char *uid,
                           am__arena *ar)
{
    am__store *s = db->store;
    am__pack_row *rows;
    size_t n;
    int rc = am__pack_list(s, uid, ar, &rows, &n);
    if (rc) return am__db_store_error(db, rc, what);
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].name, p->name) == 0 && strcmp(rows[i].version, p->version) == 0 &&
            strcmp(rows[i].json, p->json) != 0)
            return am__db_error(db, AM_INVALID,
                                "%s: user %s has pack %s@%s with other rules: give the changed "
                                "pack a new version",
                                what, rows[i].user_id, p->name, p->version);
    return AM_OK;
}

/* The pack applied to one user in a transaction of its own. */
static int apply_one(am_db *db, const char *what, const am__pack *p, const char *const *keys,
                     const char *user_id, int create, am__buf *out, int *first)
{
    am__store *s = db->store;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    char uid[AM_ID_MAX + 1];
    int outcome = 0;
    long items = 0;
    int rc = am__store_begin(s);
    if (rc) goto out_store;
    if ((rc = am__touch_lock_writers(db, &user_id, 1))) goto out_rollback;
    if ((rc = am__db_resolve_user(db, what, user_id, NULL, NULL, create, uid))) {
        am__store_rollback(s);
        goto out; /* (its message made) */
    }
    am__dbcache_note(db->cache, uid);
    am__wctx w = {s, db->text, &db->ulid, &db->cfg.rank, &ar, uid, am__db_now(db), NULL, 0, NULL};
    if ((rc = am__pack_apply_user(&w, p, keys, &outcome, &items))) goto out_rollback;
    if (outcome == AM__PACK_CONFLICT) { /* (written between the check and now) */
        am__store_rollback(s);
        rc = am__db_error(db, AM_INVALID,
                          "%s: user %s has pack %s@%s with other rules: give the changed pack "
                          "a new version", what, uid, p->name, p->version);
        goto out;
    }
    if ((rc = am__store_commit(s))) goto out_rollback;
    if (!*first) am__buf_addc(out, ',');
    *first = 0;
    am__buf_adds(out, "{\"user\":");
    am__buf_json_str(out, uid);
    am__buf_printf(out, ",\"outcome\":\"%s\",\"items\":%ld}", outcome_word(outcome), items);
    goto out;
out_rollback:
    am__store_rollback(s);
out_store:
    if (rc == AM_NOMEM) am__db_error(db, rc, "%s: out of memory", what);
    else am__db_store_error(db, rc, what);
out:
    am__arena_free(&ar);
    am__events_deliver(db);
    return rc;
}

int am_pack_apply(am_db *db, const char *pack, size_t len, const char *user_id, char **json_out)
{
    static const char what[] = "pack apply";
    if (!db || !pack) return AM_MISUSE;
    if (json_out) *json_out = NULL;
    am__db_clear_error(db);
    int rc;
    if (user_id && (rc = am__db_check_id(db, what, "user", user_id))) return rc;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__pack p;
    char why[1024];
    const char **keys = NULL;
    am__buf out;
    am__buf_init(&out, &db->alloc);
    if ((rc = am__pack_parse(pack, len, &ar, &p, why, sizeof why))) {
        if (rc == AM_NOMEM) am__db_error(db, rc, "%s: out of memory", what);
        else am__db_error(db, rc, "pack: %s", why);
        goto out;
    }
    if ((rc = rule_keys(db, &p, &ar, &keys))) {
        am__db_store_error(db, rc, what);
        goto out;
    }
    if ((rc = check_conflicts(db, what, &p, user_id, &ar))) goto out;
    const char **uids = &user_id;
    size_t n = 1;
    if (!user_id) {
        rc = am__store_pack_users(db->store, p.role, p.region, p.channel, &ar, &uids, &n);
        if (rc) {
            am__db_store_error(db, rc, what);
            goto out;
        }
    }
    am__buf_adds(&out, "{\"pack\":");
    am__buf_json_str(&out, p.name);
    am__buf_adds(&out, ",\"version\":");
    am__buf_json_str(&out, p.version);
    am__buf_adds(&out, ",\"users\":[");
    int first = 1;
    for (size_t i = 0; i < n && !rc; i++) {
        /* a user being forgotten is skipped: it is going */
        if (!user_id && am__db_user_gate(db, what, uids[i], AM_DENIED) == AM_DENIED) continue;
        rc = apply_one(db, what, &p, keys, uids[i], user_id != NULL, &out, &first);
    }
    am__buf_adds(&out, "]}");
    if (!rc && out.oom) rc = am__db_error(db, AM_NOMEM, "%s: out of memory", what);
    if (!rc) am__db_clear_error(db);
    if (!rc && json_out && !(*json_out = am__owned_strndup(&db->alloc, out.p ? out.p : "", out.len)))
        rc = am__db_error(db, AM_NOMEM, "%s: out of memory", what);
out:
    am__buf_free(&out);
    am__arena_free(&ar);
    am__db_forget_work(db, 1);
    return rc;
}

/* ------------------------------------------------------------ list */

/* The applies_to object of a stored pack, as JSON ("{}": none). */
static void applies_json(am__buf *b, const char *pack_json)
{
    json_t *root = json_loads(pack_json, 0, NULL);
    json_t *at = json_object_get(root, "applies_to");
    char *s = at ? json_dumps(at, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    am__buf_adds(b, s ? s : "{}");
    free(s);
    json_decref(root);
}

int am_pack_list(am_db *db, const char *user_id, char **json_out)
{
    static const char what[] = "pack list";
    if (!db || !json_out) return AM_MISUSE;
    *json_out = NULL;
    am__db_clear_error(db);
    int rc;
    if (user_id && (rc = am__db_check_id(db, what, "user", user_id))) return rc;
    if (user_id && (rc = am__db_user_gate(db, what, user_id, AM_NOTFOUND))) return rc;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__pack_row *rows;
    size_t n;
    am__store *s = db->store;
    if ((rc = am__pack_list(s, user_id, &ar, &rows, &n))) {
        am__arena_free(&ar);
        return am__db_store_error(db, rc, what);
    }
    am__buf b;
    am__buf_init(&b, &db->alloc);
    if (user_id) {
        am__buf_adds(&b, "{\"user\":");
        am__buf_json_str(&b, user_id);
        am__buf_adds(&b, ",");
    } else {
        am__buf_adds(&b, "{");
    }
    am__buf_adds(&b, "\"packs\":[");
    /* every user's: one entry per name and version, with its users */
    for (size_t i = 0; i < n;) {
        size_t k = i + 1;
        while (!user_id && k < n && strcmp(rows[k].name, rows[i].name) == 0) k++;
        for (size_t v = i; v < k; v++) {
            size_t seen = i;
            while (seen < v && strcmp(rows[seen].version, rows[v].version) != 0) seen++;
            if (seen < v) continue; /* (this version listed already) */
            long users = 0;
            for (size_t u = i; u < k; u++) users += strcmp(rows[u].version, rows[v].version) == 0;
            if (b.len > 1 && b.p[b.len - 1] != '[') am__buf_addc(&b, ',');
            am__buf_adds(&b, "{\"name\":");
            am__buf_json_str(&b, rows[v].name);
            am__buf_adds(&b, ",\"version\":");
            am__buf_json_str(&b, rows[v].version);
            am__buf_adds(&b, ",\"applies_to\":");
            applies_json(&b, rows[v].json);
            am__buf_printf(&b, ",\"rules\":%ld", rows[v].n_rules);
            if (user_id) {
                char ts[32];
                am__buf_printf(&b, ",\"applied_at\":\"%s\"",
                               am__time_format(rows[v].applied_at, 0, ts));
            } else {
                am__buf_printf(&b, ",\"users\":%ld", users);
            }
            am__buf_addc(&b, '}');
        }
        i = k;
    }
    am__buf_adds(&b, "]}");
    if (b.oom) rc = am__db_error(db, AM_NOMEM, "%s: out of memory", what);
    else if (!(*json_out = am__owned_strndup(&db->alloc, b.p ? b.p : "", b.len))) rc = am__db_error(db, AM_NOMEM, "%s: out of memory", what);
    am__buf_free(&b);
    am__arena_free(&ar);
    return rc;
}

/* ------------------------------------------------------------ remove */

static int remove_one(am_db *db, const char *what, const char *name, const char *uid,
                      am__buf *out, int *first)
{
    am__store *s = db->store;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am_time now = am__db_now(db);
    am__wctx w = {s, db->text, &db->ulid, &db->cfg.rank, &ar, uid, now, NULL, 0, NULL};
    long items = 0;
    am__dbcache_note(db->cache, uid);
    int rc = am__store_begin(s);
    if (!rc) rc = am__touch_lock_writers(db, &uid, 1);
    if (!rc) rc = am__pack_remove_user(&w, name, &items);
    if (!rc) rc = am__store_commit(s);
    if (rc) am__store_rollback(s);
    am__arena_free(&ar);
    if (rc == AM_NOTFOUND)
        return am__db_error(db, rc, "%s: user %s has no pack %s", what, uid, name);
    if (rc == AM_NOMEM) return am__db_error(db, rc, "%s: out of memory", what);
    if (rc) return am__db_store_error(db, rc, what);
    /* what held the items' text in memory (as a memory delete) */
    am__tokcache_clear(db->tokcache);
    am__text_forget(db->text);
    am__touch_drop(db, uid);
    am__dbcache_forget(db->cache, uid, 0);
    am__events_deliver(db);
    if (!*first) am__buf_addc(out, ',');
    *first = 0;
    am__buf_adds(out, "{\"user\":");
    am__buf_json_str(out, uid);
    am__buf_printf(out, ",\"items\":%ld}", items);
    return AM_OK;
}

int am_pack_remove(am_db *db, const char *name, const char *user_id, char **json_out)
{
    static const char what[] = "pack remove";
    if (!db || !name) return AM_MISUSE;
    if (json_out) *json_out = NULL;
    am__db_clear_error(db);
    int rc = am__db_check_id(db, what, "name", name);
    if (!rc && user_id) rc = am__db_check_id(db, what, "user", user_id);
    if (!rc && user_id) rc = am__db_user_gate(db, what, user_id, AM_NOTFOUND);
    if (rc) return rc;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__pack_row *rows;
    size_t n;
    am__store *s = db->store;
    if ((rc = am__pack_list(s, user_id, &ar, &rows, &n))) {
        am__arena_free(&ar);
        return am__db_store_error(db, rc, what);
    }
    am__buf b;
    am__buf_init(&b, &db->alloc);
    am__buf_adds(&b, "{\"pack\":");
    am__buf_json_str(&b, name);
    am__buf_adds(&b, ",\"users\":[");
    int first = 1;
    for (size_t i = 0; i < n && !rc; i++) {
        if (strcmp(rows[i].name, name) != 0) continue;
        if (!user_id && am__db_user_gate(db, what, rows[i].user_id, AM_DENIED) == AM_DENIED)
            continue; /* (its purge takes the rows) */
        rc = remove_one(db, what, name, rows[i].user_id, &b, &first);
    }
    if (!rc && first)
        rc = user_id ? am__db_error(db, AM_NOTFOUND, "%s: user %s has no pack %s", what, user_id,
                                    name)
                     : am__db_error(db, AM_NOTFOUND, "%s: no user has pack %s", what, name);
    am__buf_adds(&b, "]}");
    if (!rc && b.oom) rc = am__db_error(db, AM_NOMEM, "%s: out of memory", what);
    if (!rc) am__db_clear_error(db);
    if (!rc && json_out && !(*json_out = am__owned_strndup(&db->alloc, b.p ? b.p : "", b.len)))
        rc = am__db_error(db, AM_NOMEM, "%s: out of memory", what);
    am__buf_free(&b);
    am__arena_free(&ar);
    am__db_forget_work(db, 0);
    return rc;
}
