/* SPDX-License-Identifier: Apache-2.0 */
/*
 * identity.c -- who a call is for: a user id or a channel identity
 * (channel + external_id) resolved to the master user (am__db_resolve_user,
 * every entry point's), and the links between them (am_link, am_link_merge,
 * am_unlink, am_resolve), each in one write transaction.
 */
#include <stdio.h>
#include <string.h>

#include "api/db_int.h"

/* The id the engine gives the user of a channel identity nobody linked:
 * "~" and a ULID.  No caller can make a user of that form (user_allowed),
 * so it never names someone's chosen user, and the pair stays a pair:
 * ("tg:x", "7") and ("tg", "x:7") get two users. */
#define ENGINE_ID_LEN 27
static int is_engine_id(const char *id)
{
    if (strlen(id) != ENGINE_ID_LEN || id[0] != '~') return 0;
    for (size_t i = 1; i < ENGINE_ID_LEN; i++)
        if (!strchr("0123456789ABCDEFGHJKMNPQRSTVWXYZ", id[i])) return 0;
    return 1;
}

/* A user id the caller gives: valid, and not an engine id unless that
 * user exists (a caller may name it, never create one). */
static int user_allowed(am_db *db, const char *what, const char *user_id)
{
    int rc = am__db_check_id(db, what, "user", user_id);
    if (rc || !is_engine_id(user_id)) return rc;
    int exists = am__store_user_exists(db->store, user_id);
    if (exists < 0) return am__db_store_error(db, -exists, what);
    if (!exists)
        return am__db_error(db, AM_INVALID,
                            "%s: user \"%s\" has the form of an id the engine gives channel"
                            " identities (\"~\" and 26 characters) and names no user; choose"
                            " another id", what, user_id);
    return AM_OK;
}

#define PAIR_FMT "channel \"%s\" external_id \"%s\""

int am__db_resolve_user(am_db *db, const char *what, const char *user_id,
                        const char *channel, const char *external_id,
                        int create, char *out)
{
    int rc;
    am__store *s = db->store;
    if (user_id && (channel || external_id))
        return am__db_error(db, AM_INVALID, "%s: give user or channel + external_id, not both",
                            what);
    if (user_id) {
        if ((rc = create ? user_allowed(db, what, user_id)
                         : am__db_check_id(db, what, "user", user_id)))
            return rc;
        snprintf(out, AM_ID_MAX + 1, "%s", user_id);
        /* a read of a user being forgotten finds nothing (am__store_user_exists) */
        if (create && (rc = am__db_user_gate(db, what, out, AM_DENIED))) return rc;
        if (create) {
            rc = am__store_user_ensure(s, out, am__db_now(db));
            if (rc) return am__db_store_error(db, rc, what);
        }
        return AM_OK;
    }
    if (!channel && !external_id)
        return am__db_error(db, AM_INVALID, "%s: user is missing (give user or channel + external_id)", what);
    if ((rc = am__db_check_id(db, what, "channel", channel))) return rc;
    if ((rc = am__db_check_id(db, what, "external_id", external_id))) return rc;
    rc = s->vt->users.link_get(s, channel, external_id, AM__LINK_USER, out);
    if (rc == AM_OK) return am__db_user_gate(db, what, out, create ? AM_DENIED : AM_NOTFOUND);
    if (rc != AM_NOTFOUND) return am__db_store_error(db, rc, what);
    /* the pair's own user (made before, then unlinked), or a new one */
    rc = s->vt->users.link_get(s, channel, external_id, AM__LINK_MADE, out);
    if (rc && rc != AM_NOTFOUND) return am__db_store_error(db, rc, what);
    if (!create)
        return rc ? am__db_error(db, AM_NOTFOUND, "%s: no user is linked to " PAIR_FMT, what,
                                 channel, external_id)
                  : AM_OK;
    am_time now = am__db_now(db);
    if (rc == AM_NOTFOUND) {
        out[0] = '~';
        am__db_new_id(db, now, out + 1);
        rc = s->vt->users.user_put(s, out, channel, external_id, now);
    }
    if (rc || (rc = s->vt->users.link_put(s, channel, external_id, out, now)))
        return am__db_store_error(db, rc, what);
    return AM_OK;
}

/* A late link: the pair's own user (made by the engine) goes into user_id
 * -- at once when it holds nothing, with merge when it has a history. */
static int link_take_own(am_db *db, const char *channel, const char *external_id,
                         const char *user_id, const char *own, int merge, am_time now)
{
    am__store *s = db->store;
    long held[3] = {0, 0, 0};
    int rc = s->vt->users.user_stat(s, own, held);
    if (rc) return am__db_store_error(db, rc, "link");
    long events = held[0], items = held[1], tasks = held[2];
    if ((events || items || tasks) && !merge)
        return am__db_error(db, AM_DENIED,
                            "link: " PAIR_FMT " already has its own history as user %s (%ld"
                            " %s, %ld %s, %ld %s): link with merge (agentmem link"
                            " --merge) to move it into %s, or leave it apart",
                            channel, external_id, own, events, events == 1 ? "event" : "events",
                            items, items == 1 ? "memory" : "memories", tasks,
                            tasks == 1 ? "task" : "tasks", user_id);
    char detail[256];
    snprintf(detail, sizeof detail, "into %.128s: %ld events, %ld memories, %ld tasks", user_id,
             events, items, tasks);
    if ((rc = am__store_user_ensure(s, user_id, now)) ||
        (rc = s->vt->users.user_merge(s, own, user_id)) ||
        (rc = am__store_audit(s, user_id, now, "link.merge", "user", own, detail)))
        return am__db_store_error(db, rc, "link");
    return AM_OK;
}

int am_link_merge(am_db *db, const char *channel, const char *external_id,
                  const char *user_id, int merge)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    int rc;
    if ((rc = am__db_check_id(db, "link", "channel", channel)) ||
        (rc = am__db_check_id(db, "link", "external_id", external_id)) ||
        (rc = user_allowed(db, "link", user_id)))
        return rc;
    am__store *s = db->store;
    char cur[AM_ID_MAX + 1], own[AM_ID_MAX + 1];
    am_time now = am__db_now(db);
    if ((rc = am__db_user_gate(db, "link", user_id, AM_DENIED))) return rc;
    if ((rc = am__store_begin(s))) return am__db_store_error(db, rc, "link");
    int linked = s->vt->users.link_get(s, channel, external_id, AM__LINK_USER, cur);
    int owned = linked == AM_OK || linked == AM_NOTFOUND
                    ? s->vt->users.link_get(s, channel, external_id, AM__LINK_MADE, own)
                    : linked;
    if ((linked && linked != AM_NOTFOUND) || (owned && owned != AM_NOTFOUND)) {
        rc = am__db_store_error(db, linked ? linked : owned, "link");
        goto out_rollback;
    }
    if (linked == AM_OK && strcmp(cur, user_id) == 0) {
        am__store_rollback(s);
        return AM_OK;
    }
    if (linked == AM_OK && (owned || strcmp(cur, own) != 0)) {
        rc = am__db_error(db, AM_DENIED,
                          "link: " PAIR_FMT " already belongs to user %s (unlink it first)",
                          channel, external_id, cur);
        goto out_rollback;
    }
    /* not linked, or linked to the pair's own user: that one joins user_id */
    if (owned == AM_OK && strcmp(own, user_id) != 0) {
        am__dbcache_note(db->cache, user_id); /* the pair's history may join it */
        am__dbcache_note(db->cache, own);
        if ((rc = link_take_own(db, channel, external_id, user_id, own, merge, now)))
            goto out_rollback;
    } else if ((rc = am__store_user_ensure(s, user_id, now))) {
        goto out_store;
    }
    if ((rc = s->vt->users.link_get(s, channel, external_id, AM__LINK_USER, cur)) == AM_NOTFOUND)
        rc = s->vt->users.link_put(s, channel, external_id, user_id, now);
    if (rc || (rc = am__store_audit(s, user_id, now, "link", "identity", channel, external_id)) ||
        (rc = am__store_commit(s)))
        goto out_store;
    am__dbcache_flush(db->cache);
    return AM_OK;
out_store:
    am__db_store_error(db, rc, "link");
out_rollback:
    am__store_rollback(s);
    return rc;
}

int am_link(am_db *db, const char *channel, const char *external_id,
            const char *user_id)
{
    return am_link_merge(db, channel, external_id, user_id, 0);
}

int am_unlink(am_db *db, const char *channel, const char *external_id)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    int rc;
    if ((rc = am__db_check_id(db, "unlink", "channel", channel)) ||
        (rc = am__db_check_id(db, "unlink", "external_id", external_id)))
        return rc;
    am__store *s = db->store;
    char cur[AM_ID_MAX + 1];
    if ((rc = am__store_begin(s))) return am__db_store_error(db, rc, "unlink");
    rc = s->vt->users.link_get(s, channel, external_id, AM__LINK_USER, cur);
    if (rc == AM_NOTFOUND) {
        am__store_rollback(s);
        return am__db_error(db, rc, "unlink: " PAIR_FMT " is not linked", channel, external_id);
    }
    if (rc || (rc = s->vt->users.link_put(s, channel, external_id, NULL, 0)) ||
        (rc =
             am__store_audit(s, cur, am__db_now(db), "unlink", "identity", channel, external_id)) ||
        (rc = am__store_commit(s))) {
        am__db_store_error(db, rc, "unlink");
        am__store_rollback(s);
        return rc;
    }
    return AM_OK;
}

int am_resolve(am_db *db, const char *channel, const char *external_id,
               char *out)
{
    if (!db || !out) return AM_MISUSE;
    am__db_clear_error(db);
    return am__db_resolve_user(db, "resolve", NULL, channel, external_id, 0, out);
}
