/* SPDX-License-Identifier: Apache-2.0 */
/*
 * events.c -- memory events (docs/EVENTS.md): the subscribers of a
 * handle, the reader of the outbox, denials.
 *
 * The events themselves are written where their causes are decided
 * (semantic/merge.c for items, perceive/state.c for tasks, store/sqlite/
 * forget.c for forgetting, here for denials), to the store's outbox in
 * the cause's transaction (store/sqlite/outbox.c).  Nothing is kept in
 * memory between a write and its commit: after each public write this
 * file asks the store which seqs this connection committed
 * (outbox_committed; a rolled back transaction's are never among them),
 * reads those rows back and hands them to the subscribers -- so what a
 * subscriber sees is exactly what any other process reads with
 * am_events_since, in the same order, with the same JSON.
 *
 * The JSON of an event: {"seq","type","user","memory_id","key",
 * "task_id","event_id",<detail>,"at","occurred_at"}, absent fields
 * omitted; detail is "change" (updated, invalidated, created by
 * promotion), "level" (forgotten), "fields" (task.updated, an array),
 * "what" with "asked_user" (security.denied).
 */
#include <stdio.h>
#include <string.h>

#include "api/db_int.h"

#define EVENTS_DEFAULT_MAX 1000
#define EVENTS_MAX 100000

/* ------------------------------------------------------------ JSON */

static void json_field(am__buf *b, const char *name, const char *v)
{
    if (!v) return;
    am__buf_printf(b, ",\"%s\":", name);
    am__buf_json_str(b, v);
}

static void json_time(am__buf *b, const char *name, am_time t)
{
    if (t == AM_TIME_NONE) return;
    char ts[32];
    am__buf_printf(b, ",\"%s\":\"%s\"", name, am__time_format(t, 0, ts));
}

/* "a,b" -> ["a","b"] */
static void json_list(am__buf *b, const char *name, const char *csv)
{
    am__buf_printf(b, ",\"%s\":[", name);
    for (const char *p = csv; *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (p != csv) am__buf_addc(b, ',');
        am__buf_addc(b, '"');
        am__buf_add(b, p, n); /* the engine's field names: nothing to escape */
        am__buf_addc(b, '"');
        p += n + (e ? 1 : 0);
    }
    am__buf_addc(b, ']');
}

static void event_json(am__buf *b, const am__outbox_row *r)
{
    am__buf_printf(b, "{\"seq\":%lld", (long long)r->seq);
    json_field(b, "type", r->type);
    json_field(b, "user", r->user_id);
    json_field(b, "memory_id", r->memory_id);
    json_field(b, "key", r->key);
    json_field(b, "task_id", r->task_id);
    json_field(b, "event_id", r->event_id);
    if (r->detail) {
        if (strcmp(r->type, "task.updated") == 0) json_list(b, "fields", r->detail);
        else if (strcmp(r->type, "memory.forgotten") == 0) json_field(b, "level", r->detail);
        else if (strcmp(r->type, "security.denied") == 0) json_field(b, "what", r->detail);
        else json_field(b, "change", r->detail);
    }
    json_field(b, "asked_user", r->other_user);
    json_time(b, "at", r->at);
    json_time(b, "occurred_at", r->occurred_at);
    am__buf_addc(b, '}');
}

static void to_public(const am__outbox_row *r, const char *json, am_memory_event *e)
{
    e->seq = r->seq;
    e->type = r->type;
    e->user_id = r->user_id;
    e->memory_id = r->memory_id;
    e->task_id = r->task_id;
    e->event_id = r->event_id;
    e->key = r->key;
    e->detail = r->detail;
    e->other_user = r->other_user;
    e->at = r->at;
    e->occurred_at = r->occurred_at;
    e->json = json;
}

/* ------------------------------------------------------------ subscribers */

int am_subscribe(am_db *db, am_memory_event_fn fn, void *ctx, int *sub_id)
{
    if (!db || !fn) return AM_MISUSE;
    if (db->delivering) return am__db_error(db, AM_MISUSE, "subscribe: called from a subscriber");
    am__db_clear_error(db);
    if (db->n_subs == db->cap_subs) {
        size_t cap = db->cap_subs ? db->cap_subs * 2 : 4;
        am__sub *p = am__realloc(&db->alloc, db->subs, cap * sizeof *p);
        if (!p) return am__db_error(db, AM_NOMEM, "subscribe: out of memory");
        db->subs = p;
        db->cap_subs = cap;
    }
    am__sub *s = &db->subs[db->n_subs++];
    s->id = ++db->next_sub;
    s->fn = fn;
    s->ctx = ctx;
    if (sub_id) *sub_id = s->id;
    return AM_OK;
}

int am_unsubscribe(am_db *db, int sub_id)
{
    if (!db) return AM_MISUSE;
    if (db->delivering) return am__db_error(db, AM_MISUSE, "unsubscribe: called from a subscriber");
    am__db_clear_error(db);
    for (size_t i = 0; i < db->n_subs; i++)
        if (db->subs[i].id == sub_id) {
            memmove(&db->subs[i], &db->subs[i + 1], (db->n_subs - i - 1) * sizeof *db->subs);
            db->n_subs--;
            return AM_OK;
        }
    return am__db_error(db, AM_NOTFOUND, "unsubscribe: no subscription %d", sub_id);
}

void am__events_free(am_db *db)
{
    am__free(&db->alloc, db->subs);
    db->subs = NULL;
    db->n_subs = db->cap_subs = 0;
}

void am__events_deliver(am_db *db)
{
    am__dbcache_flush(db->cache); /* the shared cache's generations (cache/) */
    int64_t lo, hi;
    db->store->vt->outbox_committed(db->store, &lo, &hi);
    if (!lo || !db->n_subs) return;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__buf b;
    am__buf_init(&b, &db->alloc);
    db->delivering = 1;
    for (int64_t after = lo - 1; after < hi;) {
        am__outbox_row *rows;
        size_t n;
        int rc = db->store->vt->outbox_since(db->store, NULL, after, EVENTS_DEFAULT_MAX, &ar,
                                             &rows, &n, NULL);
        if (rc) {
            /* committed and kept: a reader of the outbox still sees them */
            am__db_log(db, AM_LOG_WARN, "events: not delivered in process (%s): %s",
                       am_errstr(rc), db->store->vt->errmsg(db->store));
            break;
        }
        for (size_t i = 0; i < n && rows[i].seq <= hi; i++) {
            am__buf_reset(&b);
            event_json(&b, &rows[i]);
            am__buf_addc(&b, 0);
            if (b.oom) break;
            am_memory_event e;
            to_public(&rows[i], b.p, &e);
            for (size_t k = 0; k < db->n_subs; k++) db->subs[k].fn(db->subs[k].ctx, &e);
        }
        if (n == 0 || rows[n - 1].seq >= hi || b.oom) break;
        after = rows[n - 1].seq;
    }
    db->delivering = 0;
    am__buf_free(&b);
    am__arena_free(&ar);
}

/* ------------------------------------------------------------ reader */

typedef struct events_box {
    am_memory_events pub;
    am__arena ar;
    am__allocator alloc;
} events_box;

void am_memory_events_free(am_memory_events *e)
{
    if (!e) return;
    events_box *b = (events_box *)e;
    am__allocator a = b->alloc;
    am__arena_free(&b->ar);
    am__free(&a, b);
}

int am_events_since(am_db *db, const char *user_id, int64_t after_seq, size_t max,
                    am_memory_events **out)
{
    if (!db || !out) return AM_MISUSE;
    *out = NULL;
    am__db_clear_error(db);
    int rc;
    if (user_id && (rc = am__db_check_id(db, "events", "user", user_id))) return rc;
    if (after_seq < 0)
        return am__db_error(db, AM_INVALID, "events: after_seq %lld is negative",
                            (long long)after_seq);
    if (max == 0) max = EVENTS_DEFAULT_MAX;
    if (max > EVENTS_MAX) max = EVENTS_MAX;
    events_box *box = am__calloc(&db->alloc, sizeof *box);
    if (!box) return am__db_error(db, AM_NOMEM, "events: out of memory");
    box->alloc = db->alloc;
    am__arena_init(&box->ar, &box->alloc);
    am__outbox_row *rows = NULL;
    size_t n = 0;
    int64_t oldest = 0;
    am__buf all, one;
    am__buf_init(&all, &db->alloc);
    am__buf_init(&one, &db->alloc);
    rc = db->store->vt->outbox_since(db->store, user_id, after_seq, max, &box->ar, &rows, &n,
                                     &oldest);
    if (rc) goto fail;
    box->pub.items = n ? am__arena_alloc(&box->ar, n * sizeof *box->pub.items) : NULL;
    if (n && !box->pub.items) { rc = AM_NOMEM; goto fail; }
    for (size_t i = 0; i < n; i++) {
        am__buf_reset(&one);
        event_json(&one, &rows[i]);
        const char *json = one.oom ? NULL : am__arena_strndup(&box->ar, one.p, one.len);
        if (!json) { rc = AM_NOMEM; goto fail; }
        to_public(&rows[i], json, &box->pub.items[i]);
        am__buf_add(&all, one.p, one.len);
        am__buf_addc(&all, '\n');
    }
    box->pub.n = n;
    box->pub.last_seq = n ? rows[n - 1].seq : after_seq;
    box->pub.oldest_seq = oldest;
    box->pub.json = all.oom ? NULL : am__arena_strndup(&box->ar, all.p ? all.p : "", all.len);
    if (!box->pub.json) { rc = AM_NOMEM; goto fail; }
    am__buf_free(&all);
    am__buf_free(&one);
    *out = &box->pub;
    return AM_OK;
fail:
    am__buf_free(&all);
    am__buf_free(&one);
    am_memory_events_free(&box->pub);
    if (rc == AM_NOMEM) return am__db_error(db, rc, "events: out of memory");
    return am__db_store_error(db, rc, "events");
}

/* ------------------------------------------------------------ retention, denials */

int am__events_trim(am_db *db)
{
    am_time age = db->cfg.events_max_age_ms;
    am__store *s = db->store;
    int rc = s->vt->begin(s);
    if (!rc)
        rc = s->vt->outbox_trim(s, age > 0 ? am__db_now(db) - age : AM_TIME_NONE,
                                db->cfg.events_max_rows > 0 ? db->cfg.events_max_rows : 0, 0);
    if (!rc) rc = s->vt->commit(s);
    if (rc) s->vt->rollback(s);
    return rc;
}

int am_security_denied(am_db *db, const char *token_user, const char *asked_user,
                       const char *what)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    int rc;
    if (!token_user || !asked_user || !what)
        return am__db_error(db, AM_INVALID, "security_denied: %s is missing",
                            !token_user ? "token_user" : !asked_user ? "asked_user" : "what");
    if ((rc = am__db_check_id(db, "security_denied", "token_user", token_user)) ||
        (rc = am__db_check_id(db, "security_denied", "what", what)))
        return rc;
    /* the asked user is hostile input (a request's field): recorded as
     * given only when it is an id, else as "(not an id)" */
    if (am__id_problem(asked_user, &(int32_t){0})) asked_user = "(not an id)";
    am__store *s = db->store;
    am_time now = am__db_now(db);
    am__outbox_row r = {0, now, AM_TIME_NONE, token_user, "security.denied", NULL, NULL, NULL,
                        NULL, what, asked_user};
    rc = s->vt->begin(s);
    if (!rc) rc = s->vt->audit(s, token_user, now, "security.denied", "user", asked_user, what);
    if (!rc) rc = s->vt->outbox_put(s, &r);
    if (!rc) rc = s->vt->commit(s);
    if (rc) {
        s->vt->rollback(s);
        return am__db_store_error(db, rc, "security_denied");
    }
    am__events_deliver(db);
    return AM_OK;
}
