/* SPDX-License-Identifier: Apache-2.0 */
/*
 * import.c -- an import document read and checked whole (import.h).
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "domain/import.h"
#include "store/metadata.h"

typedef am__imp_reader reader;

/* Record the message (the first one: later checks do not run) and return rc. */
static int imp_error(reader *r, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int imp_error(reader *r, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    r->failed = 1;
    return rc;
}

/* A string field of obj: *out the value in ar, NULL when absent or null;
 * AM_INVALID naming where.field when not a string or (required) absent. */
static int get_str(reader *r, const json_t *obj, const char *where, const char *field,
                   int required, const char **out)
{
    json_t *v = json_object_get(obj, field);
    *out = NULL;
    if (!v || json_is_null(v)) {
        if (!required) return AM_OK;
        return imp_error(r, AM_INVALID, "%s: %s.%s: missing", r->what, where, field);
    }
    if (!json_is_string(v))
        return imp_error(r, AM_INVALID, "%s: %s.%s: expected a string", r->what, where,
                            field);
    size_t n = json_string_length(v);
    const char *s = json_string_value(v);
    if (memchr(s, 0, n))
        return imp_error(r, AM_INVALID, "%s: %s.%s: contains a NUL character", r->what,
                            where, field);
    if (!(*out = am__arena_strndup(r->ar, s, n))) return imp_error(r, AM_NOMEM, "%s: out of memory", r->what);
    return AM_OK;
}

/* get_str, then an id's checks (am__id_check) */
static int get_id(reader *r, const json_t *obj, const char *where, const char *field,
                  int required, const char **out)
{
    int rc = get_str(r, obj, where, field, required, out);
    const char *why;
    if (!rc && *out && (why = am__id_check(*out)))
        return imp_error(r, AM_INVALID, "%s: %s.%s %s", r->what, where, field, why);
    return rc;
}

/* A time field (ISO 8601 with a zone) into *t (AM_TIME_NONE when absent
 * and not required) and *tz (may be NULL). */
static int get_time(reader *r, const json_t *obj, const char *where, const char *field,
                    int required, am_time *t, int *tz)
{
    const char *s;
    int rc = get_str(r, obj, where, field, required, &s);
    *t = AM_TIME_NONE;
    if (tz) *tz = 0;
    if (rc || !s) return rc;
    if (am__time_parse(s, t, tz, NULL))
        return imp_error(r, AM_INVALID, "%s: %s.%s: expected ISO 8601 with a time zone, got \"%.40s\"",
                            r->what, where, field, s);
    return AM_OK;
}

static int get_num(reader *r, const json_t *obj, const char *where, const char *field,
                   double *out)
{
    json_t *v = json_object_get(obj, field);
    if (!json_is_number(v))
        return imp_error(r, AM_INVALID, "%s: %s.%s: %s", r->what, where, field,
                            v ? "expected a number" : "missing");
    *out = json_number_value(v);
    return AM_OK;
}

static int get_int(reader *r, const json_t *obj, const char *where, const char *field,
                   long *out)
{
    json_t *v = json_object_get(obj, field);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return imp_error(r, AM_INVALID, "%s: %s.%s: %s", r->what, where, field,
                            v ? "expected an integer >= 0" : "missing");
    *out = (long)json_integer_value(v);
    return AM_OK;
}

/* A JSON value written back compactly as the engine writes JSON (its
 * string escapes, numbers at their shortest exact form), in ar. */
static void raw_put(am__buf *b, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        const char *k;
        json_t *x;
        int first = 1;
        am__buf_addc(b, '{');
        json_object_foreach((json_t *)v, k, x) {
            if (!first) am__buf_addc(b, ',');
            first = 0;
            am__buf_json_str(b, k);
            am__buf_addc(b, ':');
            raw_put(b, x);
        }
        am__buf_addc(b, '}');
        break;
    }
    case JSON_ARRAY: {
        am__buf_addc(b, '[');
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i) am__buf_addc(b, ',');
            raw_put(b, json_array_get(v, i));
        }
        am__buf_addc(b, ']');
        break;
    }
    case JSON_STRING: am__buf_json_str(b, json_string_value(v)); break;
    case JSON_INTEGER: am__buf_printf(b, "%lld", (long long)json_integer_value(v)); break;
    case JSON_REAL: {
        double d = json_real_value(v);
        char s[40];
        for (int p = 1; p <= 17; p++) { /* the shortest form that reads back exactly */
            snprintf(s, sizeof s, "%.*g", p, d);
            if (strtod(s, NULL) == d) break;
        }
        if (!strpbrk(s, ".eE")) strcat(s, ".0");
        am__buf_adds(b, s);
        break;
    }
    case JSON_TRUE: am__buf_adds(b, "true"); break;
    case JSON_FALSE: am__buf_adds(b, "false"); break;
    default: am__buf_adds(b, "null"); break;
    }
}

/* obj.field as raw JSON text in *out: an array when array (absent: "[]"),
 * else any value (absent: NULL). */
static int get_raw(reader *r, const json_t *obj, const char *where, const char *field, int array,
                   const char **out)
{
    json_t *v = json_object_get(obj, field);
    *out = NULL;
    if (array && v && !json_is_array(v))
        return imp_error(r, AM_INVALID, "%s: %s.%s: expected an array", r->what, where,
                            field);
    if (!v) {
        *out = array ? "[]" : NULL;
        return AM_OK;
    }
    am__buf b;
    am__buf_init(&b, r->alloc);
    raw_put(&b, v);
    *out = b.oom ? NULL : am__arena_strndup(r->ar, b.p, b.len);
    am__buf_free(&b);
    return *out ? AM_OK : imp_error(r, AM_NOMEM, "%s: out of memory", r->what);
}

/* The array obj.field (absent: empty) into *arr; AM_INVALID when another type. */
static int get_list(reader *r, const json_t *obj, const char *where, const char *field,
                    json_t **arr)
{
    *arr = json_object_get(obj, field);
    if (*arr && !json_is_array(*arr))
        return imp_error(r, AM_INVALID, "%s: %s%s%s: expected an array", r->what, where,
                            *where ? "." : "", field);
    return AM_OK;
}

static int check_text(reader *r, const char *where, const char *field, const char *s)
{
    size_t n = strlen(s);
    if (!am__utf8_valid(s, n, NULL))
        return imp_error(r, AM_INVALID, "%s: %s.%s: invalid UTF-8", r->what, where, field);
    if (n > r->max_text_bytes)
        return imp_error(r, AM_TOOBIG, "%s: %s.%s: over the size limit (%zu bytes)",
                            r->what, where, field, r->max_text_bytes);
    return AM_OK;
}

static int one_of(reader *r, const char *where, const char *field, const char *v,
                  const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(v, list[i]) == 0) return AM_OK;
    return imp_error(r, AM_INVALID, "%s: %s.%s: unknown value \"%.40s\"", r->what, where,
                        field, v);
}

static const char *const event_sources[] = {"user", "agent", "tool", "system", NULL};
static const char *const event_types[] = {"query",         "response",    "tool_call",
                                          "tool_result",   "status_change", "task_switch",
                                          "form_submit",   "action",      "preference_declare",
                                          "feedback",      NULL};
static const char *const item_kinds[] = {"preference", "constraint", "profile", "fact",
                                         "pattern",    "task_conclusion", "rule", "temp", NULL};
static const char *const item_statuses[] = {"active",    "pending_confirm", "candidate_forget",
                                            "invalidated", "forgotten",     "archived", NULL};

/* obj.metadata (absent or {}: none), checked as a write checks it */
static int get_metadata(reader *r, const json_t *obj, const char *where, const char **out)
{
    const char *raw;
    int rc = get_raw(r, obj, where, "metadata", 0, &raw);
    *out = NULL;
    if (rc || !raw) return rc;
    char why[160];
    rc = am__meta_check(raw, r->ar, out, why, sizeof why);
    if (rc == AM_NOMEM) return imp_error(r, AM_NOMEM, "%s: out of memory", r->what);
    if (rc) return imp_error(r, AM_INVALID, "%s: %s.%s", r->what, where, why);
    return AM_OK;
}

static int read_event(reader *r, const json_t *o, size_t i, am__imp_event *e)
{
    char where[40];
    snprintf(where, sizeof where, "events[%zu]", i);
    am__event_row *ev = &e->row;
    memset(e, 0, sizeof *e);
    if (!json_is_object(o))
        return imp_error(r, AM_INVALID, "%s: %s: expected an object", r->what, where);
    int rc;
    if ((rc = get_id(r, o, where, "id", 1, &ev->id)) ||
        (rc = get_id(r, o, where, "agent", 0, &ev->agent_id)) ||
        (rc = get_id(r, o, where, "session", 0, &ev->session_id)) ||
        (rc = get_id(r, o, where, "task", 0, &ev->task_id)) ||
        (rc = get_id(r, o, where, "channel", 0, &ev->channel)) ||
        (rc = get_str(r, o, where, "source", 1, &ev->source)) ||
        (rc = get_str(r, o, where, "type", 1, &ev->type)) ||
        (rc = get_id(r, o, where, "domain", 0, &ev->domain)) ||
        (rc = get_id(r, o, where, "intent", 0, &ev->intent)) ||
        (rc = get_str(r, o, where, "content", 1, &ev->content)) ||
        (rc = get_time(r, o, where, "occurred_at", 1, &ev->occurred_at, &ev->tz_minutes)) ||
        (rc = get_metadata(r, o, where, &ev->metadata)) ||
        (rc = one_of(r, where, "source", ev->source, event_sources)) ||
        (rc = one_of(r, where, "type", ev->type, event_types)) ||
        (rc = check_text(r, where, "content", ev->content)))
        return rc;
    if (strlen(ev->id) > 26)
        return imp_error(r, AM_INVALID, "%s: %s.id: longer than 26 characters", r->what,
                            where);
    json_t *ents;
    if ((rc = get_list(r, o, where, "entities", &ents))) return rc;
    e->n_entities = json_array_size(ents);
    e->entities = e->n_entities ? am__arena_alloc(r->ar, e->n_entities * sizeof *e->entities) : NULL;
    if (e->n_entities && !e->entities) return imp_error(r, AM_NOMEM, "%s: out of memory", r->what);
    for (size_t k = 0; k < e->n_entities; k++) {
        char ew[96];
        snprintf(ew, sizeof ew, "%s.entities[%zu]", where, k);
        json_t *x = json_array_get(ents, k);
        am__entity_row *en = &e->entities[k];
        memset(en, 0, sizeof *en);
        en->from = en->to = AM_TIME_NONE;
        if (!json_is_object(x))
            return imp_error(r, AM_INVALID, "%s: %s: expected an object", r->what, ew);
        if ((rc = get_str(r, x, ew, "type", 1, &en->type)) ||
            (rc = get_str(r, x, ew, "text", 1, &en->surface)) ||
            (rc = get_str(r, x, ew, "norm", 1, &en->norm)))
            return rc;
    }
    return AM_OK;
}

static int read_task(reader *r, const json_t *o, size_t i, am__imp_task *t)
{
    char where[40];
    snprintf(where, sizeof where, "tasks[%zu]", i);
    am__task_row *row = &t->row;
    memset(t, 0, sizeof *t);
    if (!json_is_object(o))
        return imp_error(r, AM_INVALID, "%s: %s: expected an object", r->what, where);
    int rc;
    long round = 1;
    json_t *hist;
    if ((rc = get_id(r, o, where, "task_id", 1, &row->task_id)) ||
        (rc = get_str(r, o, where, "name", 0, &row->name)) ||
        (rc = get_str(r, o, where, "stage", 0, &row->stage)) ||
        (rc = get_str(r, o, where, "status", 1, &row->status)) ||
        (rc = get_raw(r, o, where, "artifacts", 1, &row->artifacts)) ||
        (rc = get_raw(r, o, where, "pending", 1, &row->pending)) ||
        (rc = get_raw(r, o, where, "notes", 1, &row->notes)) ||
        (rc = get_time(r, o, where, "created_at", 1, &row->created_at, NULL)) ||
        (rc = get_time(r, o, where, "updated_at", 1, &row->updated_at, NULL)) ||
        (json_object_get(o, "round") && (rc = get_int(r, o, where, "round", &round))) ||
        (rc = get_time(r, o, where, "round_started_at", 0, &row->round_from, NULL)) ||
        (rc = get_str(r, o, where, "period", 0, &row->period)) ||
        (rc = get_raw(r, o, where, "rounds", 1, &row->rounds)) ||
        (rc = get_list(r, o, where, "history", &hist)))
        return rc;
    row->round = (int)(round > 1000000 ? 1000000 : round);
    row->round_at = row->round_from;
    t->n_history = json_array_size(hist);
    t->history = t->n_history ? am__arena_alloc(r->ar, t->n_history * sizeof *t->history) : NULL;
    if (t->n_history && !t->history) return imp_error(r, AM_NOMEM, "%s: out of memory", r->what);
    for (size_t k = 0; k < t->n_history; k++) {
        char hw[96];
        snprintf(hw, sizeof hw, "%s.history[%zu]", where, k);
        json_t *x = json_array_get(hist, k);
        am__task_change_row *c = &t->history[k];
        memset(c, 0, sizeof *c);
        c->task_id = row->task_id;
        if (!json_is_object(x))
            return imp_error(r, AM_INVALID, "%s: %s: expected an object", r->what, hw);
        if ((rc = get_time(r, x, hw, "at", 1, &c->at, NULL)) ||
            (rc = get_str(r, x, hw, "field", 1, &c->field)) ||
            (rc = get_str(r, x, hw, "old", 0, &c->old_value)) ||
            (rc = get_str(r, x, hw, "new", 0, &c->new_value)) ||
            (rc = get_str(r, x, hw, "event_id", 0, &c->event_id)))
            return rc;
    }
    return AM_OK;
}

static int read_memory(reader *r, const json_t *o, size_t i, am__imp_item *m)
{
    char where[40];
    snprintf(where, sizeof where, "memories[%zu]", i);
    am__item_row *it = &m->row;
    memset(m, 0, sizeof *m);
    if (!json_is_object(o))
        return imp_error(r, AM_INVALID, "%s: %s: expected an object", r->what, where);
    int rc;
    json_t *src;
    if ((rc = get_id(r, o, where, "id", 1, &it->id)) ||
        (rc = get_id(r, o, where, "lineage_id", 1, &it->lineage_id)) ||
        (rc = get_str(r, o, where, "scope", 1, &it->scope)) ||
        (rc = get_str(r, o, where, "kind", 1, &it->kind)) ||
        (rc = get_str(r, o, where, "key", 1, &it->key)) ||
        (rc = get_str(r, o, where, "text", 1, &it->text)) ||
        (rc = get_raw(r, o, where, "value", 0, &it->value_json)) ||
        (rc = get_metadata(r, o, where, &it->metadata)) ||
        (rc = get_str(r, o, where, "origin", 0, &it->origin)) ||
        (rc = get_str(r, o, where, "status", 1, &it->status)) ||
        (rc = get_num(r, o, where, "confidence", &it->confidence)) ||
        (rc = get_num(r, o, where, "base_score", &it->base_score)) ||
        (rc = get_num(r, o, where, "half_life_days", &it->half_life_days)) ||
        (rc = get_int(r, o, where, "hits", &it->hits)) ||
        (rc = get_time(r, o, where, "last_access", 0, &it->last_access, NULL)) ||
        (rc = get_time(r, o, where, "valid_from", 1, &it->valid_from, NULL)) ||
        (rc = get_time(r, o, where, "valid_to", 0, &it->valid_to, NULL)) ||
        (rc = get_time(r, o, where, "recorded_at", 1, &it->recorded_at, NULL)) ||
        (rc = get_time(r, o, where, "superseded_at", 0, &it->superseded_at, NULL)) ||
        (rc = get_time(r, o, where, "reinforced_at", 0, &it->reinforced_at, NULL)) ||
        (rc = get_list(r, o, where, "source_event_ids", &src)) ||
        (rc = one_of(r, where, "kind", it->kind, item_kinds)) ||
        (rc = one_of(r, where, "status", it->status, item_statuses)) ||
        (rc = check_text(r, where, "text", it->text)))
        return rc;
    it->source_count = 0;
    if (json_object_get(o, "source_count") &&
        (rc = get_int(r, o, where, "source_count", &it->source_count)))
        return rc;
    if (it->reinforced_at == AM_TIME_NONE) it->reinforced_at = it->recorded_at;
    it->n_sources = json_array_size(src);
    if (it->n_sources > AM__ITEM_SOURCES_FIRST + AM__ITEM_SOURCES_LAST)
        return imp_error(r, AM_INVALID, "%s: %s.source_event_ids: more than %d", r->what,
                            where, AM__ITEM_SOURCES_FIRST + AM__ITEM_SOURCES_LAST);
    const char **ids = it->n_sources ? am__arena_alloc(r->ar, it->n_sources * sizeof *ids) : NULL;
    if (it->n_sources && !ids) return imp_error(r, AM_NOMEM, "%s: out of memory", r->what);
    for (size_t k = 0; k < it->n_sources; k++) {
        json_t *x = json_array_get(src, k);
        const char *why;
        if (!json_is_string(x) || (why = am__id_check(json_string_value(x))))
            return imp_error(r, AM_INVALID, "%s: %s.source_event_ids[%zu]: expected an id",
                                r->what, where, k);
        if (!(ids[k] = am__arena_strdup(r->ar, json_string_value(x))))
            return imp_error(r, AM_NOMEM, "%s: out of memory", r->what);
    }
    it->sources = ids;
    return AM_OK;
}

static int read_workspace(reader *r, const json_t *o, size_t i, am__imp_workspace *w)
{
    char where[40];
    snprintf(where, sizeof where, "workspaces[%zu]", i);
    memset(w, 0, sizeof *w);
    if (!json_is_object(o))
        return imp_error(r, AM_INVALID, "%s: %s: expected an object", r->what, where);
    json_t *ent;
    int rc;
    if ((rc = get_id(r, o, where, "task", 1, &w->task_id)) ||
        (rc = get_list(r, o, where, "entries", &ent)))
        return rc;
    w->n = json_array_size(ent);
    w->rows = w->n ? am__arena_alloc(r->ar, w->n * sizeof *w->rows) : NULL;
    if (w->n && !w->rows) return imp_error(r, AM_NOMEM, "%s: out of memory", r->what);
    for (size_t k = 0; k < w->n; k++) {
        char ew[96];
        snprintf(ew, sizeof ew, "%s.entries[%zu]", where, k);
        json_t *x = json_array_get(ent, k);
        am__workspace_row *e = &w->rows[k];
        memset(e, 0, sizeof *e);
        if (!json_is_object(x))
            return imp_error(r, AM_INVALID, "%s: %s: expected an object", r->what, ew);
        if ((rc = get_id(r, x, ew, "agent", 1, &e->agent_id)) ||
            (rc = get_str(r, x, ew, "doing", 0, &e->doing)) ||
            (rc = get_str(r, x, ew, "done", 0, &e->done)) ||
            (rc = get_str(r, x, ew, "next", 0, &e->next)) ||
            (rc = get_int(r, x, ew, "version", &e->version)) ||
            (rc = get_time(r, x, ew, "updated_at", 1, &e->updated_at, NULL)))
            return rc;
    }
    return AM_OK;
}

/* Each element of root.name read by fn into *out (n of them, size each). */
typedef int (*read_fn)(reader *r, const json_t *o, size_t i, void *out);
static int read_all(reader *r, const json_t *root, const char *name, read_fn fn, size_t size,
                    void **out, size_t *n)
{
    json_t *arr;
    int rc = get_list(r, root, "", name, &arr);
    if (rc) return rc;
    *n = json_array_size(arr);
    *out = NULL;
    if (!*n) return AM_OK;
    unsigned char *p = am__arena_alloc(r->ar, *n * size);
    if (!p) return imp_error(r, AM_NOMEM, "%s: out of memory", r->what);
    for (size_t i = 0; i < *n; i++)
        if ((rc = fn(r, json_array_get(arr, i), i, p + i * size))) return rc;
    *out = p;
    return AM_OK;
}

static int read_link(reader *r, const json_t *o, size_t i, void *out)
{
    char where[40];
    snprintf(where, sizeof where, "identities[%zu]", i);
    am__link_row *l = out;
    memset(l, 0, sizeof *l);
    if (!json_is_object(o))
        return imp_error(r, AM_INVALID, "%s: %s: expected an object", r->what, where);
    int rc = get_id(r, o, where, "channel", 1, &l->channel);
    if (!rc) rc = get_id(r, o, where, "external_id", 1, &l->external_id);
    return rc;
}

static int read_audit(reader *r, const json_t *o, size_t i, void *out)
{
    char where[40];
    snprintf(where, sizeof where, "audit[%zu]", i);
    am__audit_row *a = out;
    memset(a, 0, sizeof *a);
    if (!json_is_object(o))
        return imp_error(r, AM_INVALID, "%s: %s: expected an object", r->what, where);
    int rc;
    if ((rc = get_time(r, o, where, "at", 1, &a->at, NULL)) ||
        (rc = get_str(r, o, where, "op", 1, &a->op)) ||
        (rc = get_str(r, o, where, "object_type", 0, &a->object_type)) ||
        (rc = get_str(r, o, where, "object_id", 0, &a->object_id)) ||
        (rc = get_str(r, o, where, "detail", 0, &a->detail)))
        return rc;
    return AM_OK;
}

/* A rule pack applied: {"pack": {...}, "applied_at"}, the pack checked as
 * am_pack_apply checks it (r->pack_check: lifecycle/packs.c). */
static int read_pack(reader *r, const json_t *o, size_t i, void *out)
{
    char where[40];
    snprintf(where, sizeof where, "packs[%zu]", i);
    am__pack_row *p = out;
    memset(p, 0, sizeof *p);
    json_t *pack = json_object_get(o, "pack");
    if (!json_is_object(o) || !json_is_object(pack))
        return imp_error(r, AM_INVALID, "%s: %s: expected an object with pack and applied_at",
                            r->what, where);
    int rc = get_time(r, o, where, "applied_at", 1, &p->applied_at, NULL);
    if (rc) return rc;
    /* the pack as compact JSON, in the arena */
    size_t len = json_dumpb(pack, NULL, 0, JSON_COMPACT);
    char *text = len ? am__arena_alloc(r->ar, len + 1) : NULL;
    if (!text || json_dumpb(pack, text, len, JSON_COMPACT) != len)
        return imp_error(r, AM_NOMEM, "%s: out of memory", r->what);
    text[len] = '\0';
    char why[512];
    rc = r->pack_check(text, len, r->ar, p, why, sizeof why);
    if (rc == AM_NOMEM) return imp_error(r, rc, "%s: out of memory", r->what);
    if (rc) return imp_error(r, rc, "%s: %s.pack: %s", r->what, where, why);
    return AM_OK;
}

static int read_event_v(reader *r, const json_t *o, size_t i, void *out) { return read_event(r, o, i, out); }
static int read_task_v(reader *r, const json_t *o, size_t i, void *out) { return read_task(r, o, i, out); }
static int read_memory_v(reader *r, const json_t *o, size_t i, void *out) { return read_memory(r, o, i, out); }
static int read_workspace_v(reader *r, const json_t *o, size_t i, void *out) { return read_workspace(r, o, i, out); }

/* The document, whole, into doc (strings in r->ar). */
static int read_doc(reader *r, const json_t *root, am__imp_doc *doc)
{
    const char *format;
    int rc;
    if (!json_is_object(root))
        return imp_error(r, AM_INVALID, "%s: expected a JSON object (an agentmem export)", r->what);
    if ((rc = get_str(r, root, "export", "format", 1, &format))) return rc;
    json_t *version = json_object_get(root, "version");
    if (strcmp(format, "agentmem-export") != 0 || !json_is_integer(version) ||
        json_integer_value(version) != 1)
        return imp_error(r, AM_INVALID,
                            "%s: format: expected an agentmem export (\"format\": \"agentmem-export\", "
                            "\"version\": 1)", r->what);
    if (json_object_get(root, "forgotten"))
        return imp_error(r, AM_INVALID,
                            "%s: forgotten: the export is a forgotten user's tombstone; it holds "
                            "nothing to import", r->what);
    if ((rc = get_id(r, root, "export", "user", 1, &doc->user))) return rc;
    void *p;
    if ((rc = read_all(r, root, "identities", read_link, sizeof(am__link_row), &p, &doc->n_links)))
        return rc;
    doc->links = p;
    if ((rc = read_all(r, root, "events", read_event_v, sizeof(am__imp_event), &p, &doc->n_events)))
        return rc;
    doc->events = p;
    if ((rc = read_all(r, root, "tasks", read_task_v, sizeof(am__imp_task), &p, &doc->n_tasks)))
        return rc;
    doc->tasks = p;
    if ((rc = read_all(r, root, "workspaces", read_workspace_v, sizeof(am__imp_workspace), &p,
                       &doc->n_workspaces)))
        return rc;
    doc->workspaces = p;
    if ((rc = read_all(r, root, "memories", read_memory_v, sizeof(am__imp_item), &p, &doc->n_items)))
        return rc;
    doc->items = p;
    if ((rc = read_all(r, root, "audit", read_audit, sizeof(am__audit_row), &p, &doc->n_audit)))
        return rc;
    doc->audit = p;
    if ((rc = read_all(r, root, "packs", read_pack, sizeof(am__pack_row), &p, &doc->n_packs)))
        return rc;
    doc->packs = p;
    return AM_OK;
}

/* mem0's entries: a list, or {"results": [...]} / {"memories": [...]}. */
static int read_mem0(reader *r, const json_t *root, const char *user, am__imp_mem0 **out,
                     size_t *n)
{
    const json_t *list = root;
    const char *name = "memories";
    if (json_is_object(root)) {
        list = json_object_get(root, "results");
        if (list) name = "results";
        else list = json_object_get(root, "memories");
    }
    if (!json_is_array(list))
        return imp_error(r, AM_INVALID,
                            "%s: expected mem0's memories: a JSON array, or an object with "
                            "\"results\" holding one", r->what);
    *n = json_array_size(list);
    *out = *n ? am__arena_alloc(r->ar, *n * sizeof **out) : NULL;
    if (*n && !*out) return imp_error(r, AM_NOMEM, "%s: out of memory", r->what);
    for (size_t i = 0; i < *n; i++) {
        char where[40];
        snprintf(where, sizeof where, "%s[%zu]", name, i);
        json_t *o = json_array_get(list, i);
        am__imp_mem0 *m = &(*out)[i];
        memset(m, 0, sizeof *m);
        if (!json_is_object(o))
            return imp_error(r, AM_INVALID, "%s: %s: expected an object", r->what, where);
        const char *owner;
        json_t *meta = json_object_get(o, "metadata");
        int rc;
        if ((rc = get_str(r, o, where, "memory", 1, &m->text)) ||
            (rc = get_str(r, o, where, "id", 0, &m->id)) ||
            (rc = get_str(r, o, where, "user_id", 0, &owner)) ||
            (rc = get_time(r, o, where, "created_at", 0, &m->created_at, NULL)) ||
            (rc = get_str(r, o, where, "updated_at", 0, &m->updated_at)) ||
            (rc = check_text(r, where, "memory", m->text)))
            return rc;
        if (!*m->text || strspn(m->text, " \t\r\n") == strlen(m->text))
            return imp_error(r, AM_INVALID, "%s: %s.memory: blank", r->what, where);
        if (owner && strcmp(owner, user) != 0)
            return imp_error(r, AM_INVALID,
                                "%s: %s.user_id: names another user than the one imported into",
                                r->what, where);
        if (meta && !json_is_null(meta) && !json_is_object(meta))
            return imp_error(r, AM_INVALID, "%s: %s.metadata: expected an object", r->what,
                                where);
        if (meta && json_is_object(meta) && (rc = get_raw(r, o, where, "metadata", 0, &m->metadata_json)))
            return rc;
    }
    return AM_OK;
}

static int load(reader *r, const char *json, size_t len, json_t **root)
{
    json_error_t je;
    *root = json_loadb(json, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
    if (!*root)
        return imp_error(r, AM_INVALID, "import: line %d, column %d: %s", je.line, je.column,
                         je.text);
    return AM_OK;
}

int am__import_read_doc(am__imp_reader *r, const char *json, size_t len, am__imp_doc *doc)
{
    json_t *root;
    int rc = load(r, json, len, &root);
    if (rc) return rc;
    rc = read_doc(r, root, doc);
    json_decref(root);
    return rc;
}

int am__import_read_mem0(am__imp_reader *r, const char *json, size_t len, const char *user,
                         am__imp_mem0 **rows, size_t *n)
{
    json_t *root;
    int rc = load(r, json, len, &root);
    if (rc) return rc;
    rc = read_mem0(r, root, user, rows, n);
    json_decref(root);
    return rc;
}
