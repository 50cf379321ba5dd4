/* SPDX-License-Identifier: Apache-2.0 */
/*
 * metadata.c -- metadata checked and made canonical, filters compiled and
 * applied.  See metadata.h.
 */
#include "store/metadata.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int key_ok(const char *k)
{
    size_t n = strlen(k);
    if (n == 0 || n > AM_METADATA_KEY_MAX) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = k[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            return 0;
    }
    return 1;
}

/* A key as a message may quote it: the first 64 bytes, printable ASCII */
static void key_quote(const char *k, char *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; k[i] && n + 1 < cap && i < AM_METADATA_KEY_MAX; i++)
        out[n++] = k[i] >= 0x20 && k[i] < 0x7f ? k[i] : '?';
    out[n] = '\0';
}

/* A scalar's text form (metadata.h); NULL for another type */
static char *scalar_text(json_t *v, am__arena *ar)
{
    if (json_is_string(v)) return am__arena_strndup(ar, json_string_value(v), json_string_length(v));
    if (json_is_true(v)) return am__arena_strdup(ar, "true");
    if (json_is_false(v)) return am__arena_strdup(ar, "false");
    if (json_is_number(v)) {
        char *t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        char *out = t ? am__arena_strdup(ar, t) : NULL;
        free(t);
        return out;
    }
    return NULL;
}

static int check_object(json_t *o, char *why, size_t cap)
{
    char q[AM_METADATA_KEY_MAX + 1];
    if (!json_is_object(o)) {
        snprintf(why, cap, "metadata: expected a JSON object");
        return AM_INVALID;
    }
    if (json_object_size(o) > AM_METADATA_KEYS) {
        snprintf(why, cap, "metadata: %zu keys, over the limit of %d", json_object_size(o),
                 AM_METADATA_KEYS);
        return AM_TOOBIG;
    }
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        key_quote(k, q, sizeof q);
        if (!key_ok(k)) {
            snprintf(why, cap,
                     "metadata.%s: a key is 1..%d bytes of letters, digits, '_', '.' or '-'", q,
                     AM_METADATA_KEY_MAX);
            return AM_INVALID;
        }
        if (json_is_string(v)) {
            size_t n = json_string_length(v);
            if (memchr(json_string_value(v), 0, n)) {
                snprintf(why, cap, "metadata.%s: value contains a NUL character", q);
                return AM_INVALID;
            }
            if (n > AM_METADATA_VALUE_MAX) {
                snprintf(why, cap, "metadata.%s: value too long (%zu bytes, at most %d)", q, n,
                         AM_METADATA_VALUE_MAX);
                return AM_TOOBIG;
            }
        } else if (!json_is_number(v) && !json_is_boolean(v)) {
            snprintf(why, cap, "metadata.%s: expected a string, a number or a boolean, not %s", q,
                     json_is_object(v) ? "an object" : json_is_array(v) ? "an array" : "null");
            return AM_INVALID;
        }
    }
    return AM_OK;
}

int am__meta_check(const char *json, am__arena *ar, const char **canon, char *why, size_t cap)
{
    *canon = NULL;
    if (!json) return AM_OK;
    if (strlen(json) > AM_METADATA_BYTES) {
        snprintf(why, cap, "metadata: %zu bytes, over the limit of %d", strlen(json),
                 AM_METADATA_BYTES);
        return AM_TOOBIG;
    }
    json_error_t je;
    json_t *o = json_loads(json, JSON_REJECT_DUPLICATES, &je);
    if (!o) {
        snprintf(why, cap, "metadata: not JSON: %s", je.text);
        return AM_INVALID;
    }
    int rc = check_object(o, why, cap);
    if (!rc && json_object_size(o) > 0) {
        char *t = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
        if (!t) rc = AM_NOMEM;
        else if (strlen(t) > AM_METADATA_BYTES) {
            snprintf(why, cap, "metadata: %zu bytes, over the limit of %d", strlen(t),
                     AM_METADATA_BYTES);
            rc = AM_TOOBIG;
        } else if (!(*canon = am__arena_strdup(ar, t)))
            rc = AM_NOMEM;
        free(t);
    }
    json_decref(o);
    return rc;
}

/* ------------------------------------------------------------ filters */

static int list_ok(const char *const *v, size_t n, const char *field, char *why, size_t cap)
{
    if (n && !v) {
        snprintf(why, cap, "filters.%s: %zu values and no array", field, n);
        return AM_INVALID;
    }
    for (size_t i = 0; i < n; i++)
        if (!v[i] || !*v[i]) {
            snprintf(why, cap, "filters.%s: value %zu is empty", field, i);
            return AM_INVALID;
        }
    return AM_OK;
}

static int time_bound(const char *iso, const char *field, am_time *out, char *why, size_t cap)
{
    *out = AM_TIME_NONE;
    if (!iso) return AM_OK;
    if (am__time_parse(iso, out, NULL, NULL)) {
        snprintf(why, cap, "filters.%s: \"%.64s\" is not ISO 8601 with a zone", field, iso);
        return AM_INVALID;
    }
    return AM_OK;
}

static int meta_conds(const char *json, am__arena *ar, am__filter *out, char *why, size_t cap)
{
    json_error_t je;
    json_t *o = json_loads(json, JSON_REJECT_DUPLICATES, &je);
    char q[AM_METADATA_KEY_MAX + 1];
    int rc = AM_OK;
    if (!o || !json_is_object(o)) {
        snprintf(why, cap, "filters.metadata: expected a JSON object");
        json_decref(o);
        return AM_INVALID;
    }
    if (json_object_size(o) > AM_METADATA_KEYS) {
        snprintf(why, cap, "filters.metadata: %zu keys, over the limit of %d",
                 json_object_size(o), AM_METADATA_KEYS);
        json_decref(o);
        return AM_INVALID;
    }
    out->meta = am__arena_alloc(ar, (json_object_size(o) + 1) * sizeof *out->meta);
    if (!out->meta) rc = AM_NOMEM;
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        if (rc) break;
        key_quote(k, q, sizeof q);
        if (!key_ok(k)) {
            snprintf(why, cap, "filters.metadata.%s: not a metadata key", q);
            rc = AM_INVALID;
            break;
        }
        size_t nv = json_is_array(v) ? json_array_size(v) : 1;
        am__meta_cond *c = &out->meta[out->n_meta++];
        c->key = am__arena_strdup(ar, k);
        c->values = am__arena_alloc(ar, (nv + 1) * sizeof *c->values);
        c->n_values = 0;
        if (!c->key || !c->values) { rc = AM_NOMEM; break; }
        if (json_is_array(v) && nv == 0) {
            snprintf(why, cap, "filters.metadata.%s: an empty list matches nothing", q);
            rc = AM_INVALID;
            break;
        }
        for (size_t i = 0; i < nv && !rc; i++) {
            json_t *e = json_is_array(v) ? json_array_get(v, i) : v;
            char *t = json_is_object(e) || json_is_array(e) || json_is_null(e) ? NULL
                                                                               : scalar_text(e, ar);
            if (!t) {
                snprintf(why, cap,
                         "filters.metadata.%s: expected a string, a number, a boolean or an"
                         " array of them",
                         q);
                rc = ar->oom ? AM_NOMEM : AM_INVALID;
            } else c->values[c->n_values++] = t;
        }
    }
    json_decref(o);
    return rc;
}

int am__filter_compile(const am_filter *f, am__arena *ar, am__filter *out, char *why, size_t cap)
{
    memset(out, 0, sizeof *out);
    out->from = out->to = AM_TIME_NONE;
    if (!f) return AM_OK;
    int rc;
    if ((rc = list_ok(f->kinds, f->n_kinds, "kind", why, cap)) ||
        (rc = list_ok(f->scopes, f->n_scopes, "scope", why, cap)) ||
        (rc = time_bound(f->from, "from", &out->from, why, cap)) ||
        (rc = time_bound(f->to, "to", &out->to, why, cap)))
        return rc;
    if (out->from != AM_TIME_NONE && out->to != AM_TIME_NONE && out->to < out->from) {
        snprintf(why, cap, "filters.to: before filters.from");
        return AM_INVALID;
    }
    out->kinds = f->kinds;
    out->n_kinds = f->n_kinds;
    out->scopes = f->scopes;
    out->n_scopes = f->n_scopes;
    if (f->metadata_json && (rc = meta_conds(f->metadata_json, ar, out, why, cap))) return rc;
    if (f->query && *f->query) {
        size_t n = strlen(f->query);
        if (n > AM_FILTER_QUERY_MAX || !am__utf8_valid(f->query, n, NULL)) {
            if (n > AM_FILTER_QUERY_MAX)
                snprintf(why, cap, "filters.query: %zu bytes, over %d", n, AM_FILTER_QUERY_MAX);
            else snprintf(why, cap, "filters.query: not valid UTF-8");
            return AM_INVALID;
        }
        out->query = f->query;
        out->query_len = n;
    }
    out->any = out->n_kinds || out->n_scopes || out->n_meta || out->from != AM_TIME_NONE ||
               out->to != AM_TIME_NONE || out->query;
    return AM_OK;
}

static int among(const char *v, const char *const *list, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        if (strcmp(v, list[i]) == 0) return 1;
    return 0;
}

/* every metadata condition holds on the stored (canonical) metadata */
static int meta_match(const am__filter *f, const char *stored)
{
    if (!f->n_meta) return 1;
    if (!stored) return 0;
    json_t *o = json_loads(stored, 0, NULL);
    if (!o) return 0;
    int ok = 1;
    char buf[64];
    for (size_t i = 0; i < f->n_meta && ok; i++) {
        json_t *v = json_object_get(o, f->meta[i].key);
        const char *t = NULL;
        char *dumped = NULL;
        if (json_is_string(v)) t = json_string_value(v);
        else if (json_is_true(v)) t = "true";
        else if (json_is_false(v)) t = "false";
        else if (json_is_number(v)) {
            dumped = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
            snprintf(buf, sizeof buf, "%s", dumped ? dumped : "");
            t = buf;
        }
        free(dumped);
        ok = t && among(t, f->meta[i].values, f->meta[i].n_values);
    }
    json_decref(o);
    return ok;
}

static int in_range(const am__filter *f, am_time t)
{
    if (f->from != AM_TIME_NONE && t < f->from) return 0;
    if (f->to != AM_TIME_NONE && t >= f->to) return 0;
    return 1;
}

int am__filter_item(const am__filter *f, const am__item_row *r)
{
    if (!f || !f->any) return 1;
    if (f->n_kinds && !among(r->kind, f->kinds, f->n_kinds)) return 0;
    if (f->n_scopes && !among(r->scope, f->scopes, f->n_scopes)) return 0;
    if (f->query && !am__plain_holds(r->text, f->query, f->query_len) &&
        !am__plain_holds(r->key, f->query, f->query_len))
        return 0;
    return in_range(f, r->valid_from) && meta_match(f, r->metadata);
}

int am__filter_event(const am__filter *f, const am__event_row *e)
{
    if (!f || !f->any) return 1;
    if (f->query && !am__plain_holds(e->content, f->query, f->query_len)) return 0;
    return in_range(f, e->occurred_at) && meta_match(f, e->metadata);
}

static unsigned char fold(unsigned char c) { return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c; }

int am__plain_holds(const char *hay, const char *needle, size_t n)
{
    if (!n) return 1;
    if (!hay) return 0;
    for (const char *p = hay; *p; p++) {
        size_t k = 0;
        while (k < n && p[k] && fold((unsigned char)p[k]) == fold((unsigned char)needle[k])) k++;
        if (k == n) return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ pages */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static int b64_val(char c)
{
    const char *p = c ? strchr(b64, c) : NULL;
    return p ? (int)(p - b64) : -1;
}

int am__cursor_make(const am__item_row *r, am__arena *ar, const char **out)
{
    char plain[160];
    int n = snprintf(plain, sizeof plain, "m1|%lld|%s", (long long)r->rid, r->lineage_id);
    if (n < 0 || (size_t)n >= sizeof plain) return AM_INVALID;
    char *o = am__arena_alloc(ar, (size_t)n * 4 / 3 + 4);
    if (!o) return AM_NOMEM;
    size_t k = 0;
    for (int i = 0; i < n; i += 3) {
        unsigned v = (unsigned char)plain[i] << 16;
        if (i + 1 < n) v |= (unsigned char)plain[i + 1] << 8;
        if (i + 2 < n) v |= (unsigned char)plain[i + 2];
        o[k++] = b64[v >> 18 & 63];
        o[k++] = b64[v >> 12 & 63];
        if (i + 1 < n) o[k++] = b64[v >> 6 & 63];
        if (i + 2 < n) o[k++] = b64[v & 63];
    }
    o[k] = '\0';
    *out = o;
    return AM_OK;
}

int am__cursor_read(const char *cursor, am__arena *ar, am__page *p)
{
    size_t n = strlen(cursor), k = 0;
    if (n == 0 || n > 200) return AM_INVALID;
    char plain[160];
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64_val(cursor[i]);
        if (v < 0) return AM_INVALID;
        acc = acc << 6 | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (k + 1 >= sizeof plain) return AM_INVALID;
            plain[k++] = (char)(acc >> bits & 0xff);
        }
    }
    plain[k] = '\0';
    if (strlen(plain) != k || strncmp(plain, "m1|", 3) != 0) return AM_INVALID;
    char *end;
    long long rid = strtoll(plain + 3, &end, 10);
    if (end == plain + 3 || *end != '|' || rid <= 0 || !end[1]) return AM_INVALID;
    p->after_rid = rid;
    p->after_lineage = am__arena_strdup(ar, end + 1);
    return p->after_lineage ? AM_OK : AM_NOMEM;
}

/* 1 when row r comes after the page's position (the listing's order) */
static int after(const am__page *p, const am__item_row *r)
{
    if (!p->after_lineage) return 1;
    if (p->by_lineage) {
        int c = strcmp(r->lineage_id, p->after_lineage);
        if (c) return c > 0;
    }
    return r->rid > p->after_rid;
}

size_t am__items_page(am__item_row *rows, size_t n, const am__filter *f, const am__page *p,
                      int *more)
{
    size_t kept = 0;
    *more = 0;
    for (size_t i = 0; i < n; i++) {
        if (!am__filter_item(f, &rows[i]) || !after(p, &rows[i])) continue;
        if (p->limit && kept == p->limit) {
            *more = 1;
            break;
        }
        rows[kept++] = rows[i];
    }
    return kept;
}
