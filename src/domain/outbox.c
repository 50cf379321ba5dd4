/* SPDX-License-Identifier: Apache-2.0 */
/*
 * outbox.c -- memory events: subscribers, delivery after a commit, a page
 * of the outbox, retention, denials (outbox.h has the design).
 */
#include <stdio.h>
#include <string.h>

#include "domain/outbox.h"

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

int am__outbox_subscribe(am__outbox_subs *subs, const am__allocator *a, am_memory_event_fn fn,
                         void *ctx, int *id)
{
    if (subs->n == subs->cap) {
        size_t cap = subs->cap ? subs->cap * 2 : 4;
        am__outbox_sub *p = am__realloc(a, subs->v, cap * sizeof *p);
        if (!p) return AM_NOMEM;
        subs->v = p;
        subs->cap = cap;
    }
    am__outbox_sub *s = &subs->v[subs->n++];
    s->id = ++subs->next;
    s->fn = fn;
    s->ctx = ctx;
    if (id) *id = s->id;
    return AM_OK;
}

int am__outbox_unsubscribe(am__outbox_subs *subs, int id)
{
    for (size_t i = 0; i < subs->n; i++)
        if (subs->v[i].id == id) {
            memmove(&subs->v[i], &subs->v[i + 1], (subs->n - i - 1) * sizeof *subs->v);
            subs->n--;
            return AM_OK;
        }
    return AM_NOTFOUND;
}

void am__outbox_subs_free(am__outbox_subs *subs, const am__allocator *a)
{
    am__free(a, subs->v);
    subs->v = NULL;
    subs->n = subs->cap = 0;
}

/* ------------------------------------------------------------ delivery */

int am__outbox_deliver(const am__outbox_env *env, am__outbox_subs *subs)
{
    am__store *s = env->store;
    int64_t lo, hi;
    am__store_outbox_committed(s, &lo, &hi);
    if (!lo || !subs->n) return AM_OK;
    am__arena ar;
    am__arena_init(&ar, env->alloc);
    am__buf b;
    am__buf_init(&b, env->alloc);
    subs->delivering = 1;
    int rc = AM_OK;
    for (int64_t after = lo - 1; after < hi;) {
        am__outbox_row *rows;
        size_t n;
        /* failed: committed and kept, a reader of the outbox still sees them */
        if ((rc = am__store_outbox_since(s, NULL, after, AM__OUTBOX_PAGE, &ar, &rows, &n, NULL)))
            break;
        for (size_t i = 0; i < n && rows[i].seq <= hi; i++) {
            am__buf_reset(&b);
            event_json(&b, &rows[i]);
            am__buf_addc(&b, 0);
            if (b.oom) break;
            am_memory_event e;
            to_public(&rows[i], b.p, &e);
            for (size_t k = 0; k < subs->n; k++) subs->v[k].fn(subs->v[k].ctx, &e);
        }
        if (n == 0 || rows[n - 1].seq >= hi || b.oom) break;
        after = rows[n - 1].seq;
    }
    subs->delivering = 0;
    am__buf_free(&b);
    am__arena_free(&ar);
    return rc;
}

/* ------------------------------------------------------------ reader */

int am__outbox_page(am__store *s, const char *uid, int64_t after_seq, size_t max, am__arena *ar,
                    const am__allocator *a, am_memory_events *out)
{
    am__outbox_row *rows = NULL;
    size_t n = 0;
    int64_t oldest = 0;
    am__buf all, one;
    am__buf_init(&all, a);
    am__buf_init(&one, a);
    int rc = am__store_outbox_since(s, uid, after_seq, max, ar, &rows, &n, &oldest);
    if (rc) goto out;
    out->items = n ? am__arena_alloc(ar, n * sizeof *out->items) : NULL;
    if (n && !out->items) { rc = AM_NOMEM; goto out; }
    for (size_t i = 0; i < n; i++) {
        am__buf_reset(&one);
        event_json(&one, &rows[i]);
        const char *json = one.oom ? NULL : am__arena_strndup(ar, one.p, one.len);
        if (!json) { rc = AM_NOMEM; goto out; }
        to_public(&rows[i], json, &out->items[i]);
        am__buf_add(&all, one.p, one.len);
        am__buf_addc(&all, '\n');
    }
    out->n = n;
    out->last_seq = n ? rows[n - 1].seq : after_seq;
    out->oldest_seq = oldest;
    out->json = all.oom ? NULL : am__arena_strndup(ar, all.p ? all.p : "", all.len);
    if (!out->json) rc = AM_NOMEM;
out:
    am__buf_free(&all);
    am__buf_free(&one);
    return rc;
}

/* ------------------------------------------------------------ retention, denials */

int am__outbox_trim(const am__outbox_env *env, am_time max_age_ms, int64_t max_rows)
{
    am__store *s = env->store;
    return s->vt->log.outbox_trim(s,
                                  max_age_ms > 0 ? env->now(env->ctx) - max_age_ms : AM_TIME_NONE,
                                  max_rows > 0 ? max_rows : 0, 0);
}

int am__outbox_denied(am__store *s, am_time now, const char *token_user, const char *asked_user,
                      const char *what)
{
    if (am__id_problem(asked_user, &(int32_t){0})) asked_user = "(not an id)";
    am__outbox_row r = {0, now, AM_TIME_NONE, token_user, "security.denied", NULL, NULL, NULL,
                        NULL, what, asked_user};
    int rc = am__store_audit(s, token_user, now, "security.denied", "user", asked_user, what);
    if (!rc) rc = am__store_outbox_put(s, &r);
    return rc;
}
