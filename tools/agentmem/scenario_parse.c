/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario_parse.c -- parsing and checking scenario steps (see
 * scenario_parse.h).  Everything here is pure: input text and plain data in,
 * verdicts and "expected ... / got ..." details out.
 *
 * The table of steps and their fields, and the table of expectation keys and
 * the steps they apply to, are SCENARIOS.md transcribed; anything not in them
 * is reported, never ignored.
 */
#include "scenario_parse.h"

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>

/* Longest quoted piece of engine output in one detail. */
#define SC_QUOTE_ITEM 160
#define SC_QUOTE_TEXT 400
#define SC_SHOW_ITEMS 8

/* ================================================================ sc_buf */

static int buf_grow(sc_buf *b, size_t extra)
{
    if (b->oom) return 0;
    if (extra > SIZE_MAX / 2 - b->len) { b->oom = 1; return 0; }
    size_t need = b->len + extra + 1;
    if (need <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) { b->oom = 1; return 0; }
    b->p = p;
    b->cap = cap;
    return 1;
}

void sc_buf_add(sc_buf *b, const char *s, size_t n)
{
    if (!n || !buf_grow(b, n)) return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void sc_buf_adds(sc_buf *b, const char *s)
{
    if (s) sc_buf_add(b, s, strlen(s));
}

void sc_buf_printf(sc_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0 || !buf_grow(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static void buf_clean(sc_buf *b, const char *s, size_t max_bytes, int quote)
{
    if (!s) { sc_buf_adds(b, "null"); return; }
    if (quote) sc_buf_add(b, "\"", 1);
    size_t n = strlen(s), i = 0;
    while (i < n) {
        utf8proc_int32_t cp = 0;
        utf8proc_ssize_t len = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
                                                (utf8proc_ssize_t)(n - i), &cp);
        size_t step = len > 0 ? (size_t)len : 1;
        if (max_bytes && i + step > max_bytes) {
            sc_buf_adds(b, "…");
            break;
        }
        unsigned char c = (unsigned char)s[i];
        if (len <= 0) sc_buf_printf(b, "\\x%02X", c);
        else if (cp == '\n') sc_buf_adds(b, "\\n");
        else if (cp == '\t') sc_buf_adds(b, "\\t");
        else if (cp == '\r') sc_buf_adds(b, "\\r");
        else if (cp < 0x20 || cp == 0x7f) sc_buf_printf(b, "\\u%04X", (unsigned)cp);
        else if (quote && (cp == '"' || cp == '\\')) {
            sc_buf_add(b, "\\", 1);
            sc_buf_add(b, s + i, 1);
        } else sc_buf_add(b, s + i, step);
        i += step;
    }
    if (quote) sc_buf_add(b, "\"", 1);
}

void sc_buf_clean(sc_buf *b, const char *s, size_t max_bytes)
{
    buf_clean(b, s, max_bytes, 0);
}

void sc_buf_quote(sc_buf *b, const char *s, size_t max_bytes)
{
    buf_clean(b, s, max_bytes, 1);
}

const char *sc_buf_str(const sc_buf *b)
{
    return b->p && !b->oom ? b->p : (b->oom ? "(out of memory)" : "");
}

void sc_buf_reset(sc_buf *b)
{
    b->len = 0;
    b->oom = 0;
    if (b->p) b->p[0] = '\0';
}

void sc_buf_free(sc_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}

/* ================================================================ text */

char *sc_norm(const char *s)
{
    if (!s) s = "";
    char *n = (char *)utf8proc_NFKC_Casefold((const utf8proc_uint8_t *)s);
    if (n) return n;
    /* Not valid UTF-8: compare bytes, ASCII case-insensitively. */
    size_t len = strlen(s);
    n = malloc(len + 1);
    if (!n) return NULL;
    for (size_t i = 0; i <= len; i++) {
        char c = s[i];
        n[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    return n;
}

int sc_text_contains(const char *hay, const char *needle)
{
    char *h = sc_norm(hay), *nd = sc_norm(needle);
    int found = h && nd && strstr(h, nd) != NULL;
    free(h);
    free(nd);
    return found;
}

static void flatten_scalar(const json_t *v, sc_buf *out)
{
    switch (json_typeof(v)) {
    case JSON_STRING:
        sc_buf_add(out, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        sc_buf_printf(out, "%lld", (long long)json_integer_value(v));
        break;
    case JSON_REAL: sc_buf_printf(out, "%g", json_real_value(v)); break;
    case JSON_TRUE: sc_buf_adds(out, "true"); break;
    case JSON_FALSE: sc_buf_adds(out, "false"); break;
    default: sc_buf_adds(out, "null"); break;
    }
}

void sc_json_flatten(const json_t *v, sc_buf *out)
{
    if (!v) return;
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++)
            sc_json_flatten(json_array_get(v, i), out);
    } else if (json_is_object(v)) {
        const char *key;
        json_t *val;
        /* json_object_foreach wants a non-const object; it only reads. */
        json_object_foreach((json_t *)v, key, val) {
            sc_buf_adds(out, key);
            if (json_is_array(val) || json_is_object(val)) {
                sc_buf_adds(out, ":\n");
                sc_json_flatten(val, out);
            } else {
                sc_buf_adds(out, ": ");
                flatten_scalar(val, out);
                sc_buf_adds(out, "\n");
            }
        }
    } else {
        flatten_scalar(v, out);
        sc_buf_adds(out, "\n");
    }
}

void sc_json_text_flatten(const char *json_text, sc_buf *out)
{
    if (!json_text) return;
    json_error_t err;
    json_t *v = json_loads(json_text, JSON_DECODE_ANY, &err);
    if (!v) { sc_buf_adds(out, json_text); return; }
    sc_json_flatten(v, out);
    json_decref(v);
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

int sc_has_zone(const char *iso)
{
    if (!iso) return 0;
    const char *t = strchr(iso, 'T');
    if (!t) t = strchr(iso, 't');
    if (!t || !is_digit(t[1])) return 0;
    size_t n = strlen(t);
    if (t[n - 1] == 'Z' || t[n - 1] == 'z') return n > 2;
    const char *sign = NULL;
    for (const char *p = t + 1; *p; p++)
        if (*p == '+' || *p == '-') sign = p;
    if (!sign || sign == t + 1) return 0;
    const char *z = sign + 1;
    if (!is_digit(z[0]) || !is_digit(z[1])) return 0;
    z += 2;
    if (*z == ':') z++;
    if (*z == '\0') return z[-1] != ':';
    if (!is_digit(z[0]) || !is_digit(z[1])) return 0;
    return z[2] == '\0';
}

/* ================================================================ tables */

static const char *const kind_names[SC_NKINDS] = {
    "link", "add", "recall", "task", "memories", "forget", "feedback", "export",
    "config", "workspace", "profile", "pack", "archive", "maintain", "memory_add",
};

const char *const sc_maint_keys[SC_MAINT_COUNTS] = {
    "candidate_forget", "invalidated", "archived", "revived", "consolidated",
};

const char *sc_kind_name(sc_kind k)
{
    return (unsigned)k < SC_NKINDS ? kind_names[k] : "?";
}

#define KB(k) (1u << (k))
#define K_ALL ((1u << SC_NKINDS) - 1)
#define K_IDENT (KB(SC_ADD) | KB(SC_RECALL)) /* user or channel+external_id */

enum field_type { F_STR, F_BOOL, F_INT, F_OBJ };

/* The fields of each step (SCENARIOS.md "Steps").  `required` lists the
 * kinds that must give the field; identity for add/recall is checked apart. */
static const struct field_spec {
    const char *name;
    enum field_type type;
    size_t off;
    unsigned kinds, required;
} fields[] = {
#define STR(f, kinds, req) {#f, F_STR, offsetof(sc_step, f), kinds, req}
    STR(at, K_ALL, K_ALL),
    STR(user, K_ALL, KB(SC_LINK) | KB(SC_TASK) | KB(SC_MEMORIES) | KB(SC_FORGET) |
                         KB(SC_FEEDBACK) | KB(SC_EXPORT) | KB(SC_WORKSPACE) | KB(SC_PROFILE) |
                         KB(SC_ARCHIVE) | KB(SC_MEMORY_ADD)),
    STR(channel, KB(SC_LINK) | K_IDENT, KB(SC_LINK)),
    STR(external_id, KB(SC_LINK) | K_IDENT, KB(SC_LINK)),
    STR(session, KB(SC_ADD) | KB(SC_RECALL), KB(SC_ADD)),
    STR(agent, KB(SC_ADD) | KB(SC_RECALL) | KB(SC_TASK) | KB(SC_MEMORIES) | KB(SC_WORKSPACE), 0),
    STR(task, KB(SC_ADD) | KB(SC_RECALL) | KB(SC_TASK) | KB(SC_WORKSPACE),
        KB(SC_TASK) | KB(SC_WORKSPACE)),
    /* multi-agent steps: docs/internals/SCENARIOS_EXT.md */
    STR(role, KB(SC_RECALL) | KB(SC_TASK) | KB(SC_MEMORIES), 0),
    STR(role_allow, KB(SC_CONFIG), KB(SC_CONFIG)),
    STR(doing, KB(SC_WORKSPACE), 0),
    STR(done, KB(SC_WORKSPACE), 0),
    STR(next, KB(SC_WORKSPACE), 0),
    STR(source, KB(SC_ADD), 0),
    STR(type, KB(SC_ADD), 0),
    STR(domain, KB(SC_ADD) | KB(SC_RECALL), 0),
    STR(label, KB(SC_ADD), 0),
    STR(text, KB(SC_ADD) | KB(SC_FEEDBACK) | KB(SC_MEMORY_ADD), KB(SC_ADD) | KB(SC_MEMORY_ADD)),
    STR(key, KB(SC_MEMORY_ADD), 0),
    STR(expires_at, KB(SC_MEMORY_ADD), 0),
    {"kind", F_STR, offsetof(sc_step, mem_kind), KB(SC_MEMORY_ADD), 0},
    STR(query, KB(SC_RECALL), KB(SC_RECALL)),
    STR(as_of, KB(SC_RECALL) | KB(SC_MEMORIES), 0),
    STR(occurred_at, KB(SC_ADD), 0), /* an event's own time: docs/internals/SCENARIOS_EXT.md */
    STR(scope, KB(SC_FORGET), KB(SC_FORGET)),
    STR(id, KB(SC_FORGET) | KB(SC_ARCHIVE), 0),
    STR(target, KB(SC_FEEDBACK), KB(SC_FEEDBACK)),
    STR(action, KB(SC_FEEDBACK) | KB(SC_PACK), KB(SC_FEEDBACK) | KB(SC_PACK)),
    STR(file, KB(SC_PACK), 0), /* docs/internals/SCENARIOS_EXT.md: rule packs */
    {"name", F_STR, offsetof(sc_step, pack_name), KB(SC_PACK), 0},
#undef STR
    {"pack", F_OBJ, offsetof(sc_step, pack), KB(SC_PACK), 0},
    {"all", F_BOOL, offsetof(sc_step, all), KB(SC_MEMORIES), 0},
    {"budget", F_INT, offsetof(sc_step, budget), KB(SC_RECALL) | KB(SC_PROFILE), 0},
    {"budget", F_INT, offsetof(sc_step, budget), KB(SC_RECALL), 0},
    {"older_than_days", F_INT, offsetof(sc_step, older_than_days), KB(SC_ARCHIVE), 0},
};

enum value_type { V_STRS, V_GROUPS, V_BOOL, V_COUNT, V_MAP };

/* The expectation keys (SCENARIOS.md "Expectations"). */
static const struct key_spec {
    const char *key;
    unsigned kinds;
    enum value_type type;
} keys[] = {
    {"memories_contain", KB(SC_RECALL) | KB(SC_MEMORIES), V_STRS},
    {"memories_not_contain", KB(SC_RECALL) | KB(SC_MEMORIES), V_STRS},
    {"memories_any", KB(SC_RECALL) | KB(SC_MEMORIES), V_GROUPS},
    {"events_contain", KB(SC_RECALL), V_STRS},
    {"events_not_contain", KB(SC_RECALL), V_STRS},
    {"block_contains", KB(SC_RECALL), V_STRS},
    {"block_not_contains", KB(SC_RECALL), V_STRS},
    {"block_any", KB(SC_RECALL), V_GROUPS},
    {"need_memory", KB(SC_RECALL), V_BOOL},
    {"status", KB(SC_TASK), V_STRS},
    {"stage", KB(SC_TASK), V_STRS},
    {"task_contains", KB(SC_TASK) | KB(SC_RECALL), V_STRS},
    {"task_not_contains", KB(SC_TASK) | KB(SC_RECALL), V_STRS},
    {"count_max", KB(SC_MEMORIES), V_COUNT},
    {"count_min", KB(SC_MEMORIES), V_COUNT},
    {"export_contains", KB(SC_EXPORT), V_STRS},
    {"export_not_contains", KB(SC_EXPORT), V_STRS},
    {"route", KB(SC_RECALL), V_STRS},
    {"system_contains", KB(SC_RECALL), V_STRS},
    {"system_not_contains", KB(SC_RECALL), V_STRS},
    {"context_contains", KB(SC_RECALL), V_STRS},
    {"context_not_contains", KB(SC_RECALL), V_STRS},
    {"block_order", KB(SC_RECALL), V_STRS},
    {"events_first", KB(SC_RECALL), V_STRS},
    {"workspace_contains", KB(SC_WORKSPACE), V_STRS},
    {"workspace_not_contains", KB(SC_WORKSPACE), V_STRS},
    {"history_contains", KB(SC_TASK), V_STRS},
    {"history_not_contains", KB(SC_TASK), V_STRS},
    {"profile_contains", KB(SC_PROFILE), V_STRS},
    {"profile_not_contains", KB(SC_PROFILE), V_STRS},
    {"profile_order", KB(SC_PROFILE), V_STRS},
    {"pack_contains", KB(SC_PACK), V_STRS},
    {"pack_not_contains", KB(SC_PACK), V_STRS},
    /* docs/internals/SCENARIOS_EXT.md: the lifecycle */
    {"statuses", KB(SC_MEMORIES), V_MAP},
    {"candidate_forget", KB(SC_MAINTAIN), V_COUNT},
    {"invalidated", KB(SC_MAINTAIN), V_COUNT},
    {"archived", KB(SC_ARCHIVE) | KB(SC_MAINTAIN), V_COUNT},
    {"revived", KB(SC_MAINTAIN), V_COUNT},
    {"consolidated", KB(SC_MAINTAIN), V_COUNT},
    {"error", K_ALL, V_BOOL},
};

#define COUNT_OF(a) (sizeof(a) / sizeof *(a))

static const struct key_spec *key_find(const char *key)
{
    for (size_t i = 0; key && i < COUNT_OF(keys); i++)
        if (strcmp(keys[i].key, key) == 0) return &keys[i];
    return NULL;
}

int sc_key_applies(const char *key, sc_kind k)
{
    const struct key_spec *ks = key_find(key);
    return ks && (unsigned)k < SC_NKINDS && (ks->kinds & KB(k));
}

/* Compact JSON of v, shortened, for "got ..." texts. */
static void buf_json(sc_buf *b, const json_t *v)
{
    char *s = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    sc_buf_clean(b, s ? s : "(nothing)", SC_QUOTE_ITEM);
    free(s);
}

static const char *json_type_name(const json_t *v)
{
    switch (v ? json_typeof(v) : JSON_NULL) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* A list of needles: a non-empty string or a non-empty array of them. */
static int valid_strs(const json_t *v)
{
    if (json_is_string(v)) return json_string_length(v) > 0;
    if (!json_is_array(v) || json_array_size(v) == 0) return 0;
    for (size_t i = 0; i < json_array_size(v); i++) {
        const json_t *e = json_array_get(v, i);
        if (!json_is_string(e) || json_string_length(e) == 0) return 0;
    }
    return 1;
}

/* Alternative-groups: a string (one group of one), an array of strings
 * (one group: any of them), or an array of such arrays (every group). */
static int valid_groups(const json_t *v)
{
    if (valid_strs(v)) return 1;
    if (!json_is_array(v) || json_array_size(v) == 0) return 0;
    for (size_t i = 0; i < json_array_size(v); i++) {
        const json_t *g = json_array_get(v, i);
        if (!json_is_array(g) || !valid_strs(g)) return 0;
    }
    return 1;
}

static int valid_value(const struct key_spec *ks, const json_t *v,
                       sc_buf *why)
{
    int ok = 0;
    const char *want = "";
    switch (ks->type) {
    case V_STRS:
        ok = valid_strs(v);
        want = "a non-empty string or an array of them";
        break;
    case V_GROUPS:
        ok = valid_groups(v);
        want = "a string, an array of strings (any of them) or an array of "
               "such arrays (each holds)";
        break;
    case V_BOOL:
        ok = json_is_boolean(v);
        want = "true or false";
        break;
    case V_COUNT:
        ok = json_is_integer(v) && json_integer_value(v) >= 0;
        want = "a non-negative integer";
        break;
    case V_MAP: {
        const char *k;
        const json_t *x;
        ok = json_is_object(v) && json_object_size(v) > 0;
        json_object_foreach((json_t *)v, k, x) if (!*k || !json_is_string(x)) ok = 0;
        want = "an object of non-empty texts to statuses";
        break;
    }
    }
    if (!ok && why) {
        sc_buf_printf(why, "expected %s / got ", want);
        buf_json(why, v);
    }
    return ok;
}

/* ================================================================ steps */

void sc_step_issue(sc_step *st, const char *check, const char *detail)
{
    sc_issue *n = realloc(st->issues, (st->n_issues + 1) * sizeof *n);
    if (!n) { st->fatal = 1; return; }
    st->issues = n;
    sc_issue *is = &st->issues[st->n_issues];
    is->check = check ? strdup(check) : NULL;
    is->detail = strdup(detail ? detail : "");
    if ((check && !is->check) || !is->detail) {
        free(is->check);
        free(is->detail);
        st->fatal = 1;
        return;
    }
    st->n_issues++;
}

/* Record an issue built in a buffer, then clear the buffer. */
static void issue_buf(sc_step *st, const char *check, sc_buf *b, int fatal)
{
    sc_step_issue(st, check, sc_buf_str(b));
    sc_buf_reset(b);
    if (fatal) st->fatal = 1;
}

int sc_step_key_bad(const sc_step *st, const char *key)
{
    for (size_t i = 0; key && i < st->n_issues; i++)
        if (st->issues[i].check && strcmp(st->issues[i].check, key) == 0)
            return 1;
    return 0;
}

void sc_step_free(sc_step *st)
{
    if (!st) return;
    for (size_t i = 0; i < st->n_issues; i++) {
        free(st->issues[i].check);
        free(st->issues[i].detail);
    }
    free(st->issues);
    json_decref(st->root);
    memset(st, 0, sizeof *st);
    st->want_error = -1;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
           c == '\f';
}

static const struct field_spec *field_find(const char *name)
{
    for (size_t i = 0; i < COUNT_OF(fields); i++)
        if (strcmp(fields[i].name, name) == 0) return &fields[i];
    return NULL;
}

static void list_kinds(sc_buf *b)
{
    for (int k = 0; k < SC_NKINDS; k++)
        sc_buf_printf(b, "%s%s", k ? ", " : "", kind_names[k]);
}

/* Set one top-level field of the step, reporting unknown or mistyped ones. */
static void take_field(sc_step *st, const char *name, json_t *v, sc_buf *b)
{
    const struct field_spec *fs = field_find(name);
    if (!fs || !(fs->kinds & KB(st->kind))) {
        sc_buf_printf(b, "expected only fields of %s steps / got unknown "
                         "field ", kind_names[st->kind]);
        sc_buf_quote(b, name, SC_QUOTE_ITEM);
        issue_buf(st, NULL, b, 1);
        return;
    }
    char *base = (char *)st;
    if (fs->type == F_STR && json_is_string(v)) {
        *(const char **)(void *)(base + fs->off) = json_string_value(v);
        return;
    }
    if (fs->type == F_BOOL && json_is_boolean(v)) {
        *(int *)(void *)(base + fs->off) = json_is_true(v);
        return;
    }
    if (fs->type == F_OBJ && json_is_object(v)) {
        *(json_t **)(void *)(base + fs->off) = v;
        return;
    }
    if (fs->type == F_INT && json_is_integer(v) &&
        json_integer_value(v) >= 0 && json_integer_value(v) <= INT_MAX) {
        *(int *)(void *)(base + fs->off) = (int)json_integer_value(v);
        return;
    }
    sc_buf_printf(b, "expected \"%s\" to be %s / got ", name,
                  fs->type == F_STR    ? "a string"
                  : fs->type == F_OBJ  ? "an object"
                  : fs->type == F_BOOL ? "true or false"
                                       : "a non-negative integer");
    buf_json(b, v);
    issue_buf(st, NULL, b, 1);
}

static int in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        if (strcmp(s, list[i]) == 0) return 1;
    return 0;
}

/* Required fields, identity, enumerations and the time of the step. */
static void check_fields(sc_step *st, sc_buf *b)
{
    const char *base = (const char *)st;
    for (size_t i = 0; i < COUNT_OF(fields); i++) {
        const struct field_spec *fs = &fields[i];
        if (fs->type != F_STR || !(fs->required & KB(st->kind))) continue;
        if (*(const char *const *)(const void *)(base + fs->off)) continue;
        if (json_object_get(st->root, fs->name)) continue; /* mistyped */
        sc_buf_printf(b, "expected field \"%s\" / got none", fs->name);
        issue_buf(st, NULL, b, 1);
    }
    if ((KB(st->kind) & K_IDENT) && json_object_get(st->root, "user") &&
        (json_object_get(st->root, "channel") || json_object_get(st->root, "external_id"))) {
        sc_buf_adds(b, "expected \"user\" or \"channel\" + \"external_id\" / got both");
        issue_buf(st, NULL, b, 1);
    }
    if ((KB(st->kind) & K_IDENT) && !json_object_get(st->root, "user")) {
        int has_ch = json_object_get(st->root, "channel") != NULL;
        int has_ext = json_object_get(st->root, "external_id") != NULL;
        if (!has_ch && !has_ext) {
            sc_buf_adds(b, "expected \"user\" or \"channel\" + "
                           "\"external_id\" / got neither");
            issue_buf(st, NULL, b, 1);
        } else if (!has_ch || !has_ext) {
            sc_buf_adds(b, "expected \"channel\" and \"external_id\" "
                           "together / got only one");
            issue_buf(st, NULL, b, 1);
        }
    }
    static const char *const scopes[] = {"event", "session", "task", "user"};
    if (st->kind == SC_FORGET && st->scope && !in_list(st->scope, scopes, 4)) {
        sc_buf_adds(b, "expected \"scope\": event, session, task or user / got ");
        sc_buf_quote(b, st->scope, SC_QUOTE_ITEM);
        issue_buf(st, NULL, b, 1);
    }
    if (st->kind == SC_FORGET && in_list(st->scope, scopes, 4) &&
        strcmp(st->scope, "user") != 0 &&
        !st->id && !json_object_get(st->root, "id")) {
        sc_buf_printf(b, "expected field \"id\" (the %s to forget) / got none",
                      st->scope);
        issue_buf(st, NULL, b, 1);
    }
    static const char *const actions[] = {"confirm", "reject", "correct"};
    if (st->kind == SC_FEEDBACK && st->action &&
        !in_list(st->action, actions, 3)) {
        sc_buf_adds(b, "expected \"action\": confirm, reject or correct / got ");
        sc_buf_quote(b, st->action, SC_QUOTE_ITEM);
        issue_buf(st, NULL, b, 1);
    }
    static const char *const pack_actions[] = {"apply", "remove", "list"};
    if (st->kind == SC_PACK && st->action && !in_list(st->action, pack_actions, 3)) {
        sc_buf_adds(b, "expected \"action\": apply, remove or list / got ");
        sc_buf_quote(b, st->action, SC_QUOTE_ITEM);
        issue_buf(st, NULL, b, 1);
    }
    if (st->kind == SC_PACK && st->action && strcmp(st->action, "apply") == 0 &&
        !st->file == !st->pack) {
        sc_buf_adds(b, "expected \"file\" or \"pack\" (one of them) for apply");
        issue_buf(st, NULL, b, 1);
    }
    if (st->kind == SC_PACK && st->action && strcmp(st->action, "remove") == 0 && !st->pack_name) {
        sc_buf_adds(b, "expected field \"name\" (the pack to remove) / got none");
        issue_buf(st, NULL, b, 1);
    }
    if (st->at && !sc_has_zone(st->at)) {
        sc_buf_adds(b, "expected \"at\": an ISO 8601 time with a zone / got ");
        sc_buf_quote(b, st->at, SC_QUOTE_ITEM);
        issue_buf(st, NULL, b, 1);
    }
}

/* The expectations: known keys that apply to this step, valid values. */
static void check_expect(sc_step *st, int expect_error, sc_buf *b)
{
    const char *key;
    json_t *v;
    int error_key = -1;
    if (st->expect) {
        json_object_foreach(st->expect, key, v) {
            const struct key_spec *ks = key_find(key);
            if (!ks) {
                sc_buf_adds(b, "expected a known expectation key / got ");
                sc_buf_quote(b, key, SC_QUOTE_ITEM);
                issue_buf(st, key, b, 0);
            } else if (!(ks->kinds & KB(st->kind))) {
                sc_buf_printf(b, "expected a key that applies to %s steps / "
                                 "got ", kind_names[st->kind]);
                sc_buf_quote(b, key, SC_QUOTE_ITEM);
                issue_buf(st, key, b, 0);
            } else if (!valid_value(ks, v, b)) {
                issue_buf(st, key, b, 0);
            } else if (ks->type == V_BOOL && strcmp(key, "error") == 0) {
                error_key = json_is_true(v);
            }
        }
    }
    if (expect_error >= 0 && error_key >= 0 && expect_error != error_key) {
        sc_buf_adds(b, "expected \"expect_error\" and expect \"error\" to "
                       "agree / got both, different");
        issue_buf(st, NULL, b, 1);
    }
    st->want_error = expect_error == 1 || error_key == 1 ? 1
                     : error_key == 0 || expect_error == 0 ? 0
                                                           : -1;
    if (st->want_error != 1 || !st->expect) return;
    json_object_foreach(st->expect, key, v) {
        if (strcmp(key, "error") == 0 || !key_find(key) ||
            !sc_key_applies(key, st->kind))
            continue;
        sc_buf_adds(b, "expected a check of a step that succeeds / got a step "
                       "that is expected to be refused");
        issue_buf(st, key, b, 0);
    }
}

int sc_parse_line(const char *line, size_t len, sc_step *st)
{
    memset(st, 0, sizeof *st);
    st->want_error = -1;
    if (!line) len = 0;
    while (len && is_space(line[0])) line++, len--;
    while (len && is_space(line[len - 1])) len--;
    if (len == 0 || (len >= 2 && line[0] == '/' && line[1] == '/'))
        return SC_LINE_SKIP;

    sc_buf b = {0};
    json_error_t err;
    json_t *root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &err);
    if (!root || !json_is_object(root)) {
        if (root) {
            sc_buf_printf(&b, "expected a JSON object / got %s",
                          json_type_name(root));
        } else {
            sc_buf_adds(&b, "expected a JSON object / got invalid JSON: ");
            sc_buf_clean(&b, err.text, SC_QUOTE_ITEM);
            sc_buf_printf(&b, " (column %d)", err.column);
        }
        json_decref(root);
        issue_buf(st, NULL, &b, 1);
        sc_buf_free(&b);
        return SC_LINE_BAD;
    }
    st->root = root;

    json_t *step = json_object_get(root, "step");
    st->name = json_string_value(step);
    for (int k = 0; st->name && k < SC_NKINDS; k++)
        if (strcmp(st->name, kind_names[k]) == 0) {
            st->kind = (sc_kind)k;
            st->valid_kind = 1;
        }
    if (!st->valid_kind) {
        sc_buf_adds(&b, "expected \"step\": one of ");
        list_kinds(&b);
        sc_buf_adds(&b, " / got ");
        buf_json(&b, step);
        issue_buf(st, NULL, &b, 1);
        sc_buf_free(&b);
        return SC_LINE_STEP;
    }

    const char *key;
    json_t *v;
    int expect_error = -1;
    json_object_foreach(root, key, v) {
        if (strcmp(key, "step") == 0) continue;
        if (strcmp(key, "expect") == 0) {
            if (json_is_object(v)) {
                st->expect = v;
            } else {
                sc_buf_adds(&b, "expected \"expect\" to be an object / got ");
                buf_json(&b, v);
                issue_buf(st, NULL, &b, 1);
            }
        } else if (strcmp(key, "expect_error") == 0) {
            if (json_is_boolean(v)) {
                expect_error = json_is_true(v);
            } else {
                sc_buf_adds(&b, "expected \"expect_error\" to be true or "
                                "false / got ");
                buf_json(&b, v);
                issue_buf(st, NULL, &b, 1);
            }
        } else {
            take_field(st, key, v, &b);
        }
    }
    check_fields(st, &b);
    check_expect(st, expect_error, &b);
    sc_buf_free(&b);
    return SC_LINE_STEP;
}

/* ================================================================ checks */

void sc_obs_init(sc_obs *o)
{
    memset(o, 0, sizeof *o);
    o->need_memory = -1;
    o->count_active = -1;
    o->archived = -1;
    for (int i = 0; i < SC_MAINT_COUNTS; i++) o->maint[i] = -1;
}

/* Needles of a V_STRS value as a borrowed array view. */
static size_t strs_count(const json_t *v)
{
    return json_is_string(v) ? 1 : json_array_size(v);
}

static const char *strs_at(const json_t *v, size_t i)
{
    const char *s = json_is_string(v) ? json_string_value(v)
                                      : json_string_value(json_array_get(v, i));
    return s ? s : "";
}

/* The haystacks of one check, normalised once. */
typedef struct hay {
    const char *what;  /* "memories", "events", "block", "task", "export" */
    const char *const *raw;
    size_t n;
    char **norm;
    int oom;
} hay;

static void hay_init(hay *h, const char *what, const char *const *raw,
                     size_t n)
{
    h->what = what;
    h->raw = raw;
    h->n = n;
    h->oom = 0;
    h->norm = n ? calloc(n, sizeof *h->norm) : NULL;
    if (n && !h->norm) { h->oom = 1; return; }
    for (size_t i = 0; i < n; i++) {
        h->norm[i] = sc_norm(raw[i]);
        if (!h->norm[i]) h->oom = 1;
    }
}

static void hay_free(hay *h)
{
    for (size_t i = 0; h->norm && i < h->n; i++) free(h->norm[i]);
    free(h->norm);
}

/* Index of the first haystack containing needle, -1 if none; *pos gets the
 * byte offset in that normalised haystack. */
static long hay_find(const hay *h, const char *needle, size_t *pos)
{
    char *nd = sc_norm(needle);
    long found = -1;
    for (size_t i = 0; nd && i < h->n && found < 0; i++) {
        const char *p = h->norm[i] ? strstr(h->norm[i], nd) : NULL;
        if (p) {
            found = (long)i;
            if (pos) *pos = (size_t)(p - h->norm[i]);
        }
    }
    free(nd);
    return found;
}

/* "got ..." for a haystack: a list of quoted items, or one quoted text. */
static void hay_describe(const hay *h, sc_buf *b)
{
    int list = strcmp(h->what, "memories") == 0 ||
               strcmp(h->what, "events") == 0;
    if (!list) {
        if (h->n == 0 || !h->raw[0]) {
            sc_buf_printf(b, "no %s", h->what);
        } else if (strcmp(h->what, "export") == 0) {
            sc_buf_printf(b, "an export of %zu bytes without it",
                          strlen(h->raw[0]));
        } else {
            sc_buf_quote(b, h->raw[0], SC_QUOTE_TEXT);
        }
        return;
    }
    sc_buf_printf(b, "%zu %s", h->n, h->what);
    for (size_t i = 0; i < h->n && i < SC_SHOW_ITEMS; i++) {
        sc_buf_adds(b, i ? ", " : ": ");
        sc_buf_quote(b, h->raw[i], SC_QUOTE_ITEM);
    }
    if (h->n > SC_SHOW_ITEMS) sc_buf_adds(b, ", …");
}

/* A stretch of normalised text around a match, for "got ..." texts. */
static void snippet(sc_buf *b, const char *norm, size_t pos, size_t nlen)
{
    size_t len = strlen(norm), from = pos > 60 ? pos - 60 : 0;
    size_t to = pos + nlen + 60 < len ? pos + nlen + 60 : len;
    while (from > 0 && ((unsigned char)norm[from] & 0xC0) == 0x80) from--;
    while (to < len && ((unsigned char)norm[to] & 0xC0) == 0x80) to++;
    char *piece = malloc(to - from + 1);
    if (!piece) { b->oom = 1; return; }
    memcpy(piece, norm + from, to - from);
    piece[to - from] = '\0';
    sc_buf_printf(b, "%s", from ? "…" : "");
    sc_buf_quote(b, piece, 0);
    sc_buf_printf(b, "%s", to < len ? "…" : "");
    free(piece);
}

static const char *noun_one(const char *what)
{
    return strcmp(what, "memories") == 0 ? "memory"
           : strcmp(what, "events") == 0 ? "event"
                                         : what;
}

/* *_contain(s): every needle occurs in some haystack. */
static int check_contains(const hay *h, const json_t *want, sc_buf *d)
{
    sc_buf missing = {0};
    size_t n_missing = 0;
    for (size_t i = 0; i < strs_count(want); i++) {
        if (hay_find(h, strs_at(want, i), NULL) >= 0) continue;
        sc_buf_adds(&missing, n_missing++ ? ", " : "");
        sc_buf_quote(&missing, strs_at(want, i), SC_QUOTE_ITEM);
    }
    if (n_missing)
        sc_buf_printf(d, "expected %s to contain %s / got ", h->what,
                      sc_buf_str(&missing));
    if (n_missing) hay_describe(h, d);
    sc_buf_free(&missing);
    return n_missing == 0;
}

/* *_not_contain(s): no needle occurs in any haystack. */
static int check_not_contains(const hay *h, const json_t *want, sc_buf *d)
{
    for (size_t i = 0; i < strs_count(want); i++) {
        size_t pos = 0;
        long at = hay_find(h, strs_at(want, i), &pos);
        if (at < 0) continue;
        sc_buf_printf(d, "expected no %s to contain ", noun_one(h->what));
        sc_buf_quote(d, strs_at(want, i), SC_QUOTE_ITEM);
        sc_buf_adds(d, " / got ");
        if (strcmp(h->what, "memories") == 0 || strcmp(h->what, "events") == 0) {
            sc_buf_quote(d, h->raw[at], SC_QUOTE_TEXT);
        } else {
            char *nd = sc_norm(strs_at(want, i));
            snippet(d, h->norm[at], pos, nd ? strlen(nd) : 0);
            free(nd);
        }
        return 0;
    }
    return 1;
}

/* *_any: every group has at least one needle that occurs. */
static int check_any(const hay *h, const json_t *want, sc_buf *d)
{
    int nested = json_is_array(want) && json_array_size(want) > 0 &&
                 json_is_array(json_array_get(want, 0));
    size_t groups = nested ? json_array_size(want) : 1;
    for (size_t g = 0; g < groups; g++) {
        const json_t *grp = nested ? json_array_get(want, g) : want;
        int hit = 0;
        for (size_t i = 0; i < strs_count(grp) && !hit; i++)
            hit = hay_find(h, strs_at(grp, i), NULL) >= 0;
        if (hit) continue;
        sc_buf_printf(d, "expected %s to contain one of ", h->what);
        for (size_t i = 0; i < strs_count(grp); i++) {
            sc_buf_adds(d, i ? ", " : "");
            sc_buf_quote(d, strs_at(grp, i), SC_QUOTE_ITEM);
        }
        sc_buf_adds(d, " / got ");
        hay_describe(h, d);
        return 0;
    }
    return 1;
}

/* block_order: every needle occurs in the haystack, each after the one
 * before it. */
static int check_order(const hay *h, const json_t *want, sc_buf *d)
{
    size_t from = 0;
    const char *text = h->n && h->norm[0] ? h->norm[0] : "";
    for (size_t i = 0; i < strs_count(want); i++) {
        char *nd = sc_norm(strs_at(want, i));
        const char *p = nd && strlen(text) >= from ? strstr(text + from, nd) : NULL;
        if (p) from = (size_t)(p - text) + strlen(nd);
        free(nd);
        if (p) continue;
        sc_buf_printf(d, "expected %s to hold ", h->what);
        sc_buf_quote(d, strs_at(want, i), SC_QUOTE_ITEM);
        sc_buf_adds(d, i ? " after the ones before it / got " : " / got ");
        hay_describe(h, d);
        return 0;
    }
    return 1;
}

/* status / stage: equal (normalised) to one of the wanted values. */
static int check_state(const char *what, const char *got, const json_t *want,
                       sc_buf *d)
{
    char *g = got ? sc_norm(got) : NULL;
    int ok = 0;
    for (size_t i = 0; g && i < strs_count(want) && !ok; i++) {
        char *w = sc_norm(strs_at(want, i));
        ok = w && strcmp(w, g) == 0;
        free(w);
    }
    free(g);
    if (ok) return 1;
    sc_buf_printf(d, "expected %s ", what);
    if (strs_count(want) > 1) sc_buf_adds(d, "one of ");
    for (size_t i = 0; i < strs_count(want); i++) {
        sc_buf_adds(d, i ? ", " : "");
        sc_buf_quote(d, strs_at(want, i), SC_QUOTE_ITEM);
    }
    sc_buf_adds(d, " / got ");
    sc_buf_quote(d, got, SC_QUOTE_ITEM);
    return 0;
}

/* statuses: {"text": "status"}: the listed items whose text holds the
 * text are at least one and all have that status ("absent": none). */
static int check_statuses(const json_t *want, const sc_obs *o, sc_buf *d)
{
    const char *needle;
    const json_t *v;
    json_object_foreach((json_t *)want, needle, v) {
        const char *st = json_string_value(v);
        size_t hits = 0, wrong = 0;
        const char *got = NULL;
        for (size_t i = 0; i < o->n_item_status; i++) {
            if (!sc_text_contains(o->item_texts[i], needle)) continue;
            hits++;
            if (strcmp(o->item_statuses[i], st) != 0) {
                wrong++;
                got = o->item_statuses[i];
            }
        }
        int absent = strcmp(st, "absent") == 0;
        if (absent ? hits == 0 : hits > 0 && wrong == 0) continue;
        sc_buf_adds(d, "expected the memories holding ");
        sc_buf_quote(d, needle, SC_QUOTE_ITEM);
        sc_buf_printf(d, " to be %s / got ", st);
        if (absent || hits == 0) sc_buf_printf(d, "%zu of them", hits);
        else sc_buf_printf(d, "%s (%zu of %zu)", got, wrong, hits);
        return 0;
    }
    return 1;
}

static int check_count(const char *key, const json_t *want, const sc_obs *o,
                       sc_buf *d)
{
    long long w = json_integer_value(want);
    if (strcmp(key, "archived") == 0 && o->archived >= 0) { /* an archive step */
        if (o->archived == w) return 1;
        sc_buf_printf(d, "expected %lld events archived (restored) / got %ld", w, o->archived);
        return 0;
    }
    for (int i = 0; i < SC_MAINT_COUNTS; i++)
        if (strcmp(key, sc_maint_keys[i]) == 0) {
            if (o->maint[i] == w) return 1;
            sc_buf_printf(d, "expected %lld %s / got %ld", w, key, o->maint[i]);
            return 0;
        }

    int is_max = strcmp(key, "count_max") == 0;
    if (o->count_active >= 0 &&
        (is_max ? o->count_active <= w : o->count_active >= w))
        return 1;
    sc_buf_printf(d, "expected %s %lld active memories / got ",
                  is_max ? "at most" : "at least", w);
    if (o->count_active < 0) {
        sc_buf_adds(d, "no count");
        return 0;
    }
    hay h = {"memories", o->memories, o->n_memories, NULL, 0};
    sc_buf_printf(d, "%ld; listed ", o->count_active);
    hay_describe(&h, d);
    return 0;
}

int sc_check(sc_kind k, const char *key, const json_t *want,
             const sc_obs *o, sc_buf *d)
{
    const struct key_spec *ks = key_find(key);
    if (!ks || !sc_key_applies(key, k)) {
        sc_buf_printf(d, "expected a key that applies to %s steps / got ",
                      sc_kind_name(k));
        sc_buf_quote(d, key, SC_QUOTE_ITEM);
        return 0;
    }
    if (!valid_value(ks, want, d)) return 0;
    if (strcmp(key, "need_memory") == 0) {
        if (o->need_memory >= 0 && o->need_memory == json_is_true(want))
            return 1;
        sc_buf_printf(d, "expected need_memory %s / got %s",
                      json_is_true(want) ? "true" : "false",
                      o->need_memory < 0   ? "no decision"
                      : o->need_memory ? "true"
                                       : "false");
        return 0;
    }
    if (strcmp(key, "status") == 0) return check_state("status", o->status, want, d);
    if (strcmp(key, "stage") == 0) return check_state("stage", o->stage, want, d);
    if (strcmp(key, "route") == 0) return check_state("route", o->route, want, d);
    if (ks->type == V_COUNT) return check_count(key, want, o, d);
    if (ks->type == V_MAP) return check_statuses(want, o, d);
    if (ks->type == V_BOOL) { /* "error": decided by the runner */
        sc_buf_adds(d, "expected the runner to decide \"error\" / got a check");
        return 0;
    }

    /* Text checks: pick the haystacks. */
    const char *one[2] = {NULL, NULL};
    hay h;
    if (strncmp(key, "memories_", 9) == 0) {
        hay_init(&h, "memories", o->memories, o->n_memories);
    } else if (strncmp(key, "events_", 7) == 0) {
        hay_init(&h, "events", o->events, o->n_events);
    } else if (strcmp(key, "events_first") == 0) {
        hay_init(&h, "first event", o->events, o->n_events ? 1 : 0);
    } else if (strncmp(key, "system_", 7) == 0) {
        one[0] = o->block_system ? o->block_system : "";
        hay_init(&h, "system part", one, 1);
    } else if (strncmp(key, "context_", 8) == 0) {
        one[0] = o->block_context ? o->block_context : "";
        hay_init(&h, "context part", one, 1);
    } else if (strncmp(key, "block_", 6) == 0) {
        one[0] = o->block ? o->block : "";
        hay_init(&h, "block", one, 1);
    } else if (strncmp(key, "task_", 5) == 0) {
        one[0] = o->task_text;
        hay_init(&h, "task", one, o->task_text ? 1 : 0);
    } else if (strncmp(key, "workspace_", 10) == 0) {
        one[0] = o->workspace_text;
        hay_init(&h, "workspace", one, o->workspace_text ? 1 : 0);
    } else if (strncmp(key, "pack_", 5) == 0) {
        one[0] = o->pack_text;
        hay_init(&h, "pack", one, o->pack_text ? 1 : 0);
    } else if (strncmp(key, "history_", 8) == 0) {
        one[0] = o->history_text;
        hay_init(&h, "history", one, o->history_text ? 1 : 0);
    } else if (strncmp(key, "profile_", 8) == 0) {
        one[0] = o->profile_text;
        hay_init(&h, "profile", one, o->profile_text ? 1 : 0);
    } else {
        one[0] = o->export_raw;
        one[1] = o->export_flat;
        hay_init(&h, "export", one, o->export_raw ? (o->export_flat ? 2 : 1) : 0);
    }
    int ok = 0;
    if (h.oom) {
        sc_buf_adds(d, "expected to compare texts / got out of memory");
    } else if (strstr(key, "_not_contain")) {
        ok = check_not_contains(&h, want, d);
    } else if (strstr(key, "_any")) {
        ok = check_any(&h, want, d);
    } else if (strcmp(key, "block_order") == 0 || strcmp(key, "profile_order") == 0) {
        ok = check_order(&h, want, d);
    } else {
        ok = check_contains(&h, want, d);
    }
    hay_free(&h);
    return ok;
}
