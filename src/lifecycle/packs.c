/* SPDX-License-Identifier: Apache-2.0 */
/*
 * packs.c -- cold-start rule packs: the parser and the apply / remove
 * rules of one user.  See packs.h.
 */
#include "domain/forget.h"
#include "domain/records.h"
#include "lifecycle/packs.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/semantic/merge.h"

/* ------------------------------------------------------------ parse */

/* The bad fields found so far: "a: why; b: why", at most
 * AM__PACK_ERRORS_MAX, then "; ..." */
typedef struct errs {
    char *why;
    size_t cap, len;
    int n, invalid, toobig;
} errs;

static void bad(errs *e, int toobig, const char *fmt, ...)
{
    if (toobig) e->toobig = 1;
    else e->invalid = 1;
    if (!e->cap) return;
    if (e->n++ >= AM__PACK_ERRORS_MAX) {
        if (e->n == AM__PACK_ERRORS_MAX + 1 && e->len + 6 < e->cap)
            e->len += (size_t)snprintf(e->why + e->len, e->cap - e->len, "; ...");
        return;
    }
    if (e->len && e->len + 2 < e->cap) {
        memcpy(e->why + e->len, "; ", 3);
        e->len += 2;
    }
    if (e->len + 1 >= e->cap) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(e->why + e->len, e->cap - e->len, fmt, ap);
    va_end(ap);
    if (k > 0) e->len += (size_t)k < e->cap - e->len ? (size_t)k : e->cap - e->len - 1;
}

/* A field name given in the pack, as the message shows it: printable
 * ASCII without quotes, at most 40 bytes; anything else unnamed. */
static const char *shown_name(const char *key, char out[48])
{
    size_t n = strlen(key);
    int plain = n > 0 && n <= 40;
    for (size_t i = 0; i < n && plain; i++)
        plain = key[i] > 0x20 && key[i] < 0x7f && key[i] != '"' && key[i] != '\\';
    snprintf(out, 48, plain ? "%s" : "(a field)", key);
    return out;
}

/* 1 when s is 1..max bytes of letters, digits, '_', '-' and '.', the
 * first a letter or digit. */
static int plain_id(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n > max) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || (c != '_' && c != '-' && c != '.'))) return 0;
    }
    return 1;
}

/* A required or optional string member: its value (in ar), or NULL with
 * the field named as missing or of another type. */
static const char *member_str(json_t *o, const char *field, const char *path, int required,
                              am__arena *ar, errs *e)
{
    json_t *v = json_object_get(o, field);
    if (!v) {
        if (required) bad(e, 0, "%s%s: is missing", path, field);
        return NULL;
    }
    if (!json_is_string(v)) {
        bad(e, 0, "%s%s: expected a string, got %s", path, field,
            json_is_null(v) ? "null" : json_is_number(v) ? "a number"
            : json_is_boolean(v) ? "a boolean" : json_is_array(v) ? "an array" : "an object");
        return NULL;
    }
    const char *s = am__arena_strndup(ar, json_string_value(v), json_string_length(v));
    if (!s) e->invalid = -1; /* (out of memory) */
    return s;
}

/* Every member of o is one of allowed[] (NULL-terminated). */
static void known_fields(json_t *o, const char *const *allowed, const char *path, errs *e)
{
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        size_t i = 0;
        while (allowed[i] && strcmp(allowed[i], key) != 0) i++;
        char shown[48];
        if (!allowed[i]) bad(e, 0, "%s%s: unknown field", path, shown_name(key, shown));
    }
}

/* A value of applies_to: an id of at most AM__PACK_ATTR_MAX bytes. */
static const char *applies_value(json_t *o, const char *field, am__arena *ar, errs *e)
{
    const char *v = member_str(o, field, "applies_to.", 0, ar, e);
    if (!v) return NULL;
    const char *why = am__id_check(v);
    if (why) bad(e, 0, "applies_to.%s: %s", field, why);
    else if (strlen(v) > AM__PACK_ATTR_MAX)
        bad(e, 1, "applies_to.%s: is longer than %d bytes", field, AM__PACK_ATTR_MAX);
    return v;
}

/* A rule's text: not blank, one line of at most AM__PACK_TEXT_MAX bytes
 * without control characters. */
static void check_text(const char *text, const char *path, errs *e)
{
    size_t n = strlen(text), i = 0;
    while (i < n && text[i] == ' ') i++;
    if (i == n) {
        bad(e, 0, "%stext: is empty", path);
        return;
    }
    if (n > AM__PACK_TEXT_MAX) {
        bad(e, 1, "%stext: is %zu bytes, over the limit of %d", path, n, AM__PACK_TEXT_MAX);
        return;
    }
    for (i = 0; i < n; i++)
        if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f) {
            bad(e, 0, "%stext: has a control character at byte %zu", path, i);
            return;
        }
}

static void parse_rule(json_t *r, size_t i, am__arena *ar, am__pack_rule *out, errs *e)
{
    char path[32];
    snprintf(path, sizeof path, "rules[%zu].", i);
    if (!json_is_object(r)) {
        bad(e, 0, "rules[%zu]: expected an object", i);
        return;
    }
    static const char *const fields[] = {"kind", "key", "text", "lang", NULL};
    known_fields(r, fields, path, e);
    out->kind = member_str(r, "kind", path, 1, ar, e);
    if (out->kind && strcmp(out->kind, "rule") != 0 && strcmp(out->kind, "preference") != 0 &&
        strcmp(out->kind, "constraint") != 0)
        bad(e, 0, "%skind: expected rule, preference or constraint", path);
    out->key = member_str(r, "key", path, 0, ar, e);
    if (out->key) {
        const char *why = am__id_check(out->key);
        if (why) bad(e, 0, "%skey: %s", path, why);
        else if (strlen(out->key) > AM__PACK_KEY_MAX)
            bad(e, 1, "%skey: is longer than %d bytes", path, AM__PACK_KEY_MAX);
    }
    out->text = member_str(r, "text", path, 1, ar, e);
    if (out->text) check_text(out->text, path, e);
    out->lang = member_str(r, "lang", path, 1, ar, e);
    if (out->lang && strcmp(out->lang, "zh") != 0 && strcmp(out->lang, "en") != 0)
        bad(e, 0, "%slang: expected zh or en", path);
}

static void parse_pack(json_t *root, am__arena *ar, am__pack *p, errs *e)
{
    static const char *const fields[] = {"name", "version", "applies_to", "rules", NULL};
    known_fields(root, fields, "", e);
    p->name = member_str(root, "name", "", 1, ar, e);
    if (p->name && !plain_id(p->name, AM__PACK_NAME_MAX))
        bad(e, 0, "name: expected 1 to %d letters, digits, '_', '-' or '.', starting with a "
                  "letter or digit", AM__PACK_NAME_MAX);
    p->version = member_str(root, "version", "", 1, ar, e);
    if (p->version && !plain_id(p->version, AM__PACK_VERSION_MAX))
        bad(e, 0, "version: expected 1 to %d letters, digits, '_', '-' or '.', starting with a "
                  "letter or digit", AM__PACK_VERSION_MAX);
    json_t *at = json_object_get(root, "applies_to");
    if (at && !json_is_object(at)) {
        bad(e, 0, "applies_to: expected an object with role, region or channel");
    } else if (at) {
        static const char *const keys[] = {"role", "region", "channel", NULL};
        known_fields(at, keys, "applies_to.", e);
        p->role = applies_value(at, "role", ar, e);
        p->region = applies_value(at, "region", ar, e);
        p->channel = applies_value(at, "channel", ar, e);
    }
    json_t *rules = json_object_get(root, "rules");
    if (!rules) {
        bad(e, 0, "rules: is missing");
        return;
    }
    size_t n = json_array_size(rules);
    if (!json_is_array(rules) || n == 0) {
        bad(e, 0, "rules: expected an array of 1 to %d rules", AM__PACK_RULES_MAX);
        return;
    }
    if (n > AM__PACK_RULES_MAX) {
        bad(e, 1, "rules: %zu rules, over the limit of %d", n, AM__PACK_RULES_MAX);
        return;
    }
    p->rules = am__arena_alloc(ar, n * sizeof *p->rules);
    if (!p->rules) {
        e->invalid = -1;
        return;
    }
    memset(p->rules, 0, n * sizeof *p->rules);
    p->n_rules = n;
    for (size_t i = 0; i < n; i++) parse_rule(json_array_get(rules, i), i, ar, &p->rules[i], e);
    /* one attribute, one rule: a key given twice is refused */
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < i && p->rules[i].key; k++)
            if (p->rules[k].key && strcmp(p->rules[k].key, p->rules[i].key) == 0) {
                bad(e, 0, "rules[%zu].key: the key of rules[%zu] too", i, k);
                break;
            }
}

int am__pack_parse(const char *text, size_t len, am__arena *ar, am__pack *p, char *why,
                   size_t cap)
{
    memset(p, 0, sizeof *p);
    if (cap) why[0] = 0;
    errs e = {why, cap, 0, 0, 0, 0};
    if (len > AM__PACK_BYTES_MAX) {
        bad(&e, 1, "%zu bytes, over the limit of %d", len, AM__PACK_BYTES_MAX);
        return AM_TOOBIG;
    }
    size_t at;
    if (!am__utf8_valid(text, len, &at)) {
        bad(&e, 0, "invalid UTF-8 at byte %zu", at);
        return AM_INVALID;
    }
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        /* (jansson's words name a token of the file: shown as ASCII) */
        for (char *c = je.text; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f) *c = '?';
        bad(&e, 0, "invalid JSON at line %d, column %d: %s", je.line, je.column, je.text);
        return AM_INVALID;
    }
    if (!json_is_object(root)) {
        json_decref(root);
        bad(&e, 0, "expected a JSON object with name, version, applies_to and rules");
        return AM_INVALID;
    }
    parse_pack(root, ar, p, &e);
    int rc = e.invalid < 0 ? AM_NOMEM : e.invalid ? AM_INVALID : e.toobig ? AM_TOOBIG : AM_OK;
    if (!rc) {
        char *canon = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS);
        p->json = canon ? am__arena_strdup(ar, canon) : NULL;
        free(canon);
        if (!p->json) rc = AM_NOMEM;
    }
    json_decref(root);
    return rc;
}

/* ------------------------------------------------------------ names */

const char *am__pack_scope(am__arena *ar, const char *name)
{
    size_t n = strlen(name);
    char *s = am__arena_alloc(ar, n + 6);
    if (s) {
        memcpy(s, "pack:", 5);
        memcpy(s + 5, name, n + 1);
    }
    return s;
}

const char *am__pack_source(am__arena *ar, const char *name, const char *version)
{
    size_t a = strlen(name), b = strlen(version);
    char *s = am__arena_alloc(ar, a + b + 7);
    if (s) snprintf(s, a + b + 7, "pack:%s@%s", name, version);
    return s;
}

/* ------------------------------------------------------------ apply, remove */

/* Every item of scope, every version: gone as a memory delete goes. */
static int remove_items(am__wctx *w, const char *scope, long *items)
{
    am__store *s = w->store;
    am__item_row *rows;
    size_t n;
    int rc =
        s->vt->items.items_list(s, w->uid, AM__ITEMS_ALL | AM__ITEMS_NO_SOURCES | AM__ITEMS_NO_HEAT,
                                INT64_MAX, w->ar, &rows, &n);
    for (size_t i = 0; !rc && i < n; i++) {
        if (strcmp(rows[i].scope, scope) != 0) continue;
        size_t k = 0;
        while (k < i && (strcmp(rows[k].scope, scope) != 0 ||
                         strcmp(rows[k].lineage_id, rows[i].lineage_id) != 0))
            k++;
        if (k < i) continue; /* (a lineage once) */
        long versions = 0;
        char detail[48];
        if ((rc = am__forget_item_delete(s, w->uid, rows[i].lineage_id, w->now, &versions))) break;
        snprintf(detail, sizeof detail, "{\"versions\":%ld}", versions);
        rc = am__store_audit(s, w->uid, w->now, "memory.deleted", "memory", rows[i].lineage_id,
                             detail);
        am__outbox_row r = {0, w->now, AM_TIME_NONE, w->uid, "memory.forgotten",
                            rows[i].lineage_id, NULL, NULL, NULL, "memory", NULL};
        if (!rc) rc = am__store_outbox_put(s, &r);
        if (!rc) (*items)++;
    }
    return rc;
}

/* One rule as an item of the pack's scope. */
static int put_rule(am__wctx *w, const am__pack *p, const am__pack_rule *r, const char *key,
                    const char *scope, const char *source)
{
    am__buf v;
    am__buf_init(&v, w->ar->a);
    am__buf_adds(&v, "{\"statement\":");
    am__buf_json_str(&v, r->text);
    am__buf_adds(&v, ",\"source\":\"pack\",\"pack\":");
    am__buf_json_str(&v, p->name);
    am__buf_adds(&v, ",\"version\":");
    am__buf_json_str(&v, p->version);
    am__buf_printf(&v, ",\"rule_kind\":\"%s\",\"lang\":\"%s\"}", r->kind, r->lang);
    am__item_row nv;
    memset(&nv, 0, sizeof nv);
    nv.value_json = v.oom ? NULL : am__arena_strndup(w->ar, v.p, v.len);
    am__buf_free(&v);
    if (!nv.value_json) return AM_NOMEM;
    char lid[27];
    am__ulid_new(w->ulid, w->now, lid);
    nv.lineage_id = am__arena_strdup(w->ar, lid);
    if (!nv.lineage_id) return AM_NOMEM;
    nv.scope = scope;
    nv.kind = "rule";
    nv.key = key;
    nv.text = r->text;
    /* a default the operator set, not the user's word */
    nv.confidence = 0.8;
    /* (a rule lasts as a constraint does: packs are not ranked by heat) */
    am__semantic_kind_defaults(w->rank, "constraint", &nv.base_score, &nv.half_life_days);
    nv.valid_from = w->now;
    nv.valid_to = AM_TIME_NONE;
    nv.status = "active";
    nv.origin = source; /* "pack:<name>@<version>" */
    int rc = am__semantic_insert_version(w, NULL, &nv, &source, 1);
    return rc ? rc : am__semantic_record(w, "memory.created", nv.lineage_id, scope, key, NULL);
}

int am__pack_apply_user(am__wctx *w, const am__pack *p, const char *const *keys, int *outcome,
                        long *items)
{
    am__store *s = w->store;
    *items = 0;
    am__pack_row *rows;
    size_t n;
    int rc = am__pack_list(s, w->uid, w->ar, &rows, &n);
    if (rc) return rc;
    const am__pack_row *old = NULL;
    for (size_t i = 0; i < n && !old; i++)
        if (strcmp(rows[i].name, p->name) == 0) old = &rows[i];
    if (old && strcmp(old->version, p->version) == 0) {
        *outcome = strcmp(old->json, p->json) == 0 ? AM__PACK_UNCHANGED : AM__PACK_CONFLICT;
        return AM_OK;
    }
    const char *scope = am__pack_scope(w->ar, p->name);
    const char *source = am__pack_source(w->ar, p->name, p->version);
    if (!scope || !source) return AM_NOMEM;
    long gone = 0;
    if (old && (rc = remove_items(w, scope, &gone))) return rc;
    *outcome = old ? AM__PACK_REPLACED : AM__PACK_APPLIED;
    for (size_t i = 0; i < p->n_rules && !rc; i++) {
        rc = put_rule(w, p, &p->rules[i], keys[i], scope, source);
        if (!rc) (*items)++;
    }
    am__pack_row row = {w->uid, p->name, p->version, p->json, (long)p->n_rules, w->now};
    if (!rc) rc = am__pack_put(s, w->uid, &row);
    if (!rc) {
        char detail[64];
        snprintf(detail, sizeof detail, "{\"rules\":%zu,\"replaced\":%ld}", p->n_rules, gone);
        rc = am__store_audit(s, w->uid, w->now, "pack.applied", "pack", p->name, detail);
    }
    return rc;
}

int am__pack_remove_user(am__wctx *w, const char *name, long *items)
{
    am__store *s = w->store;
    *items = 0;
    const char *scope = am__pack_scope(w->ar, name);
    if (!scope) return AM_NOMEM;
    int rc = am__pack_del(s, w->uid, name);
    if (!rc) rc = remove_items(w, scope, items);
    if (!rc) {
        char detail[48];
        snprintf(detail, sizeof detail, "{\"items\":%ld}", *items);
        rc = am__store_audit(s, w->uid, w->now, "pack.removed", "pack", name, detail);
    }
    return rc;
}
