/* SPDX-License-Identifier: Apache-2.0 */
/*
 * records.c -- rule packs, API tokens, working memory and the store's own
 * values over the store's generic records (records.h has the namespaces and values).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "domain/records.h"

/* o written canonical (compact, keys sorted) into ar; o released. */
static int put_json(am__store *s, const char *uid, const char *ns, const char *key, json_t *o)
{
    char *text = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(o);
    if (!text) return AM_NOMEM;
    int rc = s->vt->records.rec_put(s, uid, ns, key, text, AM_TIME_NONE);
    free(text);
    return rc;
}

static json_t *str_or_null(const char *v)
{
    return v ? json_string(v) : json_null();
}

/* a member's text in ar, NULL when absent or null */
static const char *get_str(am__arena *ar, const json_t *o, const char *name)
{
    const char *v = json_string_value(json_object_get(o, name));
    return v ? am__arena_strdup(ar, v) : NULL;
}

static int64_t get_int(const json_t *o, const char *name, int64_t none)
{
    const json_t *v = json_object_get(o, name);
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : none;
}

/* ------------------------------------------------------------ packs */

int am__pack_put(am__store *s, const char *uid, const am__pack_row *p)
{
    json_t *o = json_pack("{s:I, s:s, s:I, s:s}", "applied_at", (json_int_t)p->applied_at,
                          "json", p->json, "n_rules", (json_int_t)p->n_rules, "version",
                          p->version);
    return put_json(s, uid, AM__REC_PACK, p->name, o);
}

int am__pack_list(am__store *s, const char *uid, am__arena *ar, am__pack_row **rows,
                  size_t *n)
{
    am__rec_row *r;
    size_t nr;
    *rows = NULL;
    *n = 0;
    int rc = s->vt->records.rec_list(s, uid, AM__REC_PACK, "", 1, AM_TIME_NONE, ar, &r, &nr);
    if (rc) return rc;
    if (!nr) return AM_OK;
    am__pack_row *out = am__arena_alloc(ar, nr * sizeof *out);
    if (!out) return AM_NOMEM;
    for (size_t i = 0; i < nr; i++) {
        json_t *o = json_loads(r[i].value, 0, NULL);
        if (!json_is_object(o)) {
            json_decref(o);
            return AM_CORRUPT;
        }
        out[i] = (am__pack_row){.user_id = r[i].user_id, .name = r[i].key,
                                .version = get_str(ar, o, "version"),
                                .json = get_str(ar, o, "json"),
                                .n_rules = (long)get_int(o, "n_rules", 0),
                                .applied_at = get_int(o, "applied_at", AM_TIME_NONE)};
        json_decref(o);
        if (!out[i].version || !out[i].json) return ar->oom ? AM_NOMEM : AM_CORRUPT;
    }
    *rows = out;
    *n = nr;
    return AM_OK;
}

int am__pack_del(am__store *s, const char *uid, const char *name)
{
    long k = 0;
    int rc = s->vt->records.rec_del(s, uid, AM__REC_PACK, name, 0, AM_TIME_NONE, &k);
    return rc ? rc : k ? AM_OK : AM_NOTFOUND;
}

/* ------------------------------------------------------------ meta */

int am__meta_get(am__store *s, const char *key, am__arena *ar, const char **value)
{
    am__rec_row *r;
    size_t n;
    int rc = s->vt->records.rec_list(s, "", AM__REC_META, key, 0, AM_TIME_NONE, ar, &r, &n);
    if (rc) return rc;
    if (!n) return AM_NOTFOUND;
    *value = r[0].value;
    return AM_OK;
}

int am__meta_put(am__store *s, const char *key, const char *value)
{
    if (!value) return s->vt->records.rec_del(s, "", AM__REC_META, key, 0, AM_TIME_NONE, NULL);
    return s->vt->records.rec_put(s, "", AM__REC_META, key, value, AM_TIME_NONE);
}

/* ------------------------------------------------------------ tokens */

int am__token_row_put(am__store *s, const am__token_row *t)
{
    char hex[2 * AM__TOKEN_HASH + 1], key[AM_ID_MAX * 2 + 2];
    for (int i = 0; i < AM__TOKEN_HASH; i++) snprintf(hex + 2 * i, 3, "%02x", t->hash[i]);
    snprintf(key, sizeof key, "%s/%s", t->lookup, t->id);
    json_t *o = json_pack("{s:i, s:o, s:I, s:s, s:s, s:s, s:o, s:o}", "admin", t->admin != 0,
                          "agent_id", str_or_null(t->agent_id), "created_at",
                          (json_int_t)t->created_at, "hash", hex, "id", t->id, "lookup",
                          t->lookup, "revoked_at",
                          t->revoked_at == AM_TIME_NONE ? json_null()
                                                        : json_integer(t->revoked_at),
                          "role", str_or_null(t->role));
    return put_json(s, t->user_id, AM__REC_TOKEN, key, o);
}

/* the token rows of records r[0..n) into *rows (in ar) */
static int token_rows(am__arena *ar, const am__rec_row *r, size_t n, am__token_row **rows,
                      size_t *count)
{
    *rows = NULL;
    *count = 0;
    if (!n) return AM_OK;
    am__token_row *out = am__arena_alloc(ar, n * sizeof *out);
    if (!out) return AM_NOMEM;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_loads(r[i].value, 0, NULL);
        if (!json_is_object(o)) {
            json_decref(o);
            return AM_CORRUPT;
        }
        am__token_row *t = &out[i];
        memset(t, 0, sizeof *t);
        t->id = get_str(ar, o, "id");
        t->lookup = get_str(ar, o, "lookup");
        t->user_id = r[i].user_id;
        t->agent_id = get_str(ar, o, "agent_id");
        t->role = get_str(ar, o, "role");
        t->admin = get_int(o, "admin", 0) != 0;
        t->created_at = get_int(o, "created_at", AM_TIME_NONE);
        t->revoked_at = get_int(o, "revoked_at", AM_TIME_NONE);
        const char *hex = json_string_value(json_object_get(o, "hash"));
        if (hex && strlen(hex) == 2 * AM__TOKEN_HASH) /* else it matches no token's hash */
            for (int k = 0; k < AM__TOKEN_HASH; k++) {
                int hi = am__hexval(hex[2 * k]), lo = am__hexval(hex[2 * k + 1]);
                if (hi < 0 || lo < 0) { memset(t->hash, 0, AM__TOKEN_HASH); break; }
                t->hash[k] = (unsigned char)(hi << 4 | lo);
            }
        json_decref(o);
        if (!t->id || !t->lookup) return ar->oom ? AM_NOMEM : AM_CORRUPT;
    }
    *rows = out;
    *count = n;
    return AM_OK;
}

int am__token_rows_find(am__store *s, const char *lookup, am__arena *ar, am__token_row **rows,
                        size_t *n)
{
    char prefix[AM_ID_MAX + 2];
    snprintf(prefix, sizeof prefix, "%s/", lookup);
    am__rec_row *r;
    size_t nr;
    int rc = s->vt->records.rec_list(s, NULL, AM__REC_TOKEN, prefix, 1, AM_TIME_NONE, ar, &r, &nr);
    return rc ? rc : token_rows(ar, r, nr, rows, n);
}

static int by_created(const void *a, const void *b)
{
    const am__token_row *x = a, *y = b;
    if (x->created_at != y->created_at) return x->created_at < y->created_at ? -1 : 1;
    return strcmp(x->id, y->id);
}

int am__tokens_list(am__store *s, const char *uid, am__arena *ar, am__token_row **rows,
                    size_t *n)
{
    am__rec_row *r;
    size_t nr;
    int rc = s->vt->records.rec_list(s, uid, AM__REC_TOKEN, "", 1, AM_TIME_NONE, ar, &r, &nr);
    if (!rc) rc = token_rows(ar, r, nr, rows, n);
    if (!rc && *n > 1) qsort(*rows, *n, sizeof **rows, by_created);
    return rc;
}

int am__token_row_revoke(am__store *s, const char *id, am_time at, char *uid, am__arena *ar)
{
    uid[0] = '\0';
    am__token_row *rows;
    size_t n;
    int rc = am__tokens_list(s, NULL, ar, &rows, &n);
    const am__token_row *t = NULL;
    for (size_t i = 0; !rc && i < n && !t; i++)
        if (strcmp(rows[i].id, id) == 0) t = &rows[i];
    if (!rc && !t) rc = AM_NOTFOUND;
    if (rc) return rc;
    snprintf(uid, AM_ID_MAX + 1, "%s", t->user_id);
    /* read again under the user's lock (a store behind a server takes it
     * with the read): of two revokes at once, the second finds it revoked */
    char key[AM_ID_MAX * 2 + 2];
    snprintf(key, sizeof key, "%s/%s", t->lookup, t->id);
    am__rec_row *r;
    size_t nr;
    if ((rc = s->vt->records.rec_list(s, uid, AM__REC_TOKEN, key, 0, AM_TIME_NONE, ar, &r, &nr)) ||
        (rc = token_rows(ar, r, nr, &rows, &n)))
        return rc;
    if (n != 1 || rows[0].revoked_at != AM_TIME_NONE) return AM_NOTFOUND;
    rows[0].revoked_at = at;
    return am__token_row_put(s, &rows[0]);
}

/* ------------------------------------------------------------ working memory */

#define WORKING AM__REC_WORKING
#define WORKING_KEY (2 * AM_ID_MAX + 2)

/* "<session>\x1f<key>" (key NULL: the session's prefix) */
static void working_key(char out[WORKING_KEY], const char *session, const char *key)
{
    snprintf(out, WORKING_KEY, "%s\x1f%s", session, key ? key : "");
}

int am__working_put(am__store *s, const char *uid, const char *session, const char *key,
                    const char *value, am_time expires_at, am_time now, int max_keys,
                    am__arena *ar)
{
    char prefix[WORKING_KEY], full[WORKING_KEY];
    working_key(prefix, session, NULL);
    working_key(full, session, key);
    int rc = s->vt->records.rec_del(s, uid, WORKING, prefix, 1, now, NULL);
    am__rec_row *rows;
    size_t n = 0;
    if (!rc) rc = s->vt->records.rec_list(s, uid, WORKING, prefix, 1, AM_TIME_NONE, ar, &rows, &n);
    if (rc) return rc;
    int has = 0;
    for (size_t i = 0; i < n && !has; i++) has = strcmp(rows[i].key, full) == 0;
    if (!has && n >= (size_t)max_keys) return AM_TOOBIG;
    return s->vt->records.rec_put(s, uid, WORKING, full, value, expires_at);
}

int am__working_list(am__store *s, const char *uid, const char *session, const char *key,
                     am_time now, am__arena *ar, am__working_row **rows, size_t *n)
{
    char k[WORKING_KEY];
    working_key(k, session, key);
    am__rec_row *r;
    size_t nr;
    *rows = NULL;
    *n = 0;
    int rc = s->vt->records.rec_list(s, uid, WORKING, k, key == NULL, now, ar, &r, &nr);
    if (rc || !nr) return rc;
    am__working_row *out = am__arena_alloc(ar, nr * sizeof *out);
    if (!out) return AM_NOMEM;
    size_t skip = strlen(session) + 1;
    for (size_t i = 0; i < nr; i++)
        out[i] = (am__working_row){.key = r[i].key + skip, .value = r[i].value,
                                   .expires_at = r[i].expires_at};
    *rows = out;
    *n = nr;
    return AM_OK;
}

int am__working_del(am__store *s, const char *uid, const char *session, const char *key)
{
    char k[WORKING_KEY];
    if (session) working_key(k, session, key);
    return s->vt->records.rec_del(s, uid, WORKING, session ? k : "", session == NULL || key == NULL,
                                  AM_TIME_NONE, NULL);
}
