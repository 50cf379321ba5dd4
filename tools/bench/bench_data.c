/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_data.c -- dataset loaders of `agentmem bench`.
 *
 * Each loader reads a dataset's files in their published layout (where
 * they are looked for: docs/bench/README.md) and fills a bench_dataset (see
 * bench.h):
 *
 *  locomo    one unit per conversation; a turn is "Speaker: text" plus
 *            " [image: caption]" for image turns, at the session date (UTC)
 *            plus one second per turn; category 5 is skipped; evidence is
 *            split on ;/,/space and only resolvable ids are scored.
 *  realtalk  one unit per chat file; the message's own date_time (UTC);
 *            evidence looked up across all sessions, ranges expanded.
 *  memdaily  one unit per question: its trajectory plus N other
 *            trajectories (seeded), shuffled, then ordered by time;
 *            messages at +08:00; category = the file's type (01_simple).
 *  madial    one unit per (language, user): that user's memory archive;
 *            a question is the dialogue before its first test turn; gold =
 *            relevant-id (or only its first id with gold_first).
 *
 * Structural problems (a missing or mistyped field) are errors naming the
 * file and the field; messy evidence ids are counted, never fatal.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define DAY_MS ((int64_t)86400000)

/* ---------------------------------------------------------------- pool */

long bench_add_doc(bench_dataset *ds, const char *key, const char *text,
                   const char *session, int64_t at_ms, int tz_minutes)
{
    bench_doc *d;
    char iso[32];
    if (bench_grow((void **)&ds->docs, &ds->cap_docs, ds->n_docs + 1,
                   sizeof *ds->docs) != 0)
        return -1;
    d = &ds->docs[ds->n_docs];
    memset(d, 0, sizeof *d);
    d->key = bench_arena_strdup(&ds->arena, key);
    d->text = bench_arena_strdup(&ds->arena, text);
    d->session = bench_arena_strdup(&ds->arena, session);
    d->at = bench_arena_strdup(&ds->arena, bench_iso(at_ms, tz_minutes, iso));
    if (!d->key || !d->text || !d->session || !d->at)
        return -1;
    d->at_ms = at_ms;
    bench_tokcount_add(&d->tc, text);
    d->tokens = bench_tokcount_value(&d->tc);
    return (long)ds->n_docs++;
}

static bench_unit *add_unit(bench_dataset *ds, const char *user_id)
{
    bench_unit *u;
    if (bench_grow((void **)&ds->units, &ds->cap_units, ds->n_units + 1,
                   sizeof *ds->units) != 0)
        return NULL;
    u = &ds->units[ds->n_units];
    memset(u, 0, sizeof *u);
    u->user_id = bench_arena_strdup(&ds->arena, user_id);
    if (!u->user_id)
        return NULL;
    u->q_begin = u->q_end = ds->n_qs;
    ds->n_units++;
    return u;
}

static bench_question *add_question(bench_dataset *ds, const char *id,
                                    const char *text, const char *category,
                                    const size_t *gold, size_t n_gold)
{
    bench_question *q;
    if (bench_grow((void **)&ds->qs, &ds->cap_qs, ds->n_qs + 1,
                   sizeof *ds->qs) != 0)
        return NULL;
    q = &ds->qs[ds->n_qs];
    q->id = bench_arena_strdup(&ds->arena, id);
    q->text = bench_arena_strdup(&ds->arena, text);
    q->category = bench_arena_strdup(&ds->arena, category);
    q->gold = bench_arena_alloc(&ds->arena, (n_gold ? n_gold : 1) *
                                                sizeof *q->gold);
    if (!q->id || !q->text || !q->category || !q->gold)
        return NULL;
    memcpy(q->gold, gold, n_gold * sizeof *gold);
    q->n_gold = n_gold;
    q->unit = ds->n_units - 1;
    ds->n_qs++;
    ds->units[ds->n_units - 1].q_end = ds->n_qs;
    return q;
}

/* Unit documents = pool range [first, first + n). */
static int unit_docs_range(bench_dataset *ds, bench_unit *u, size_t first,
                           size_t n)
{
    size_t i;
    u->docs = bench_arena_alloc(&ds->arena, (n ? n : 1) * sizeof *u->docs);
    if (!u->docs)
        return -1;
    for (i = 0; i < n; i++)
        u->docs[i] = first + i;
    u->n_docs = n;
    return 0;
}

void bench_dataset_free(bench_dataset *ds)
{
    if (!ds)
        return;
    bench_arena_free(&ds->arena);
    free(ds->docs);
    free(ds->units);
    free(ds->qs);
    memset(ds, 0, sizeof *ds);
}

/* ---------------------------------------------------------------- json */

typedef struct jctx {
    const char *file;
    bench_err *e;
} jctx;

static json_t *load_json(const char *path, bench_err *e)
{
    json_error_t je;
    json_t *root = json_load_file(path, JSON_DECODE_ANY, &je);
    if (!root)
        bench_fail(e, "%s: line %d column %d: %s", path, je.line, je.column,
                   je.text);
    return root;
}

static int jfail_type(jctx *j, const char *where, const char *key,
                      const json_t *v, const char *want)
{
    return bench_fail(j->e, "%s: %s%s%s: %s", j->file, where,
                      key ? "." : "", key ? key : "",
                      v ? want : "missing");
}

static int need_str(jctx *j, json_t *obj, const char *key, const char *where,
                    const char **out)
{
    json_t *v;
    *out = NULL;
    v = json_object_get(obj, key);
    if (!json_is_string(v))
        return jfail_type(j, where, key, v, "expected a string");
    *out = json_string_value(v);
    return 0;
}

static int need_array(jctx *j, json_t *obj, const char *key,
                      const char *where, json_t **out)
{
    json_t *v;
    *out = NULL;
    v = json_object_get(obj, key);
    if (!json_is_array(v))
        return jfail_type(j, where, key, v, "expected an array");
    *out = v;
    return 0;
}

static int need_int(jctx *j, json_t *obj, const char *key, const char *where,
                    long *out)
{
    json_t *v;
    *out = 0;
    v = json_object_get(obj, key);
    if (!json_is_integer(v))
        return jfail_type(j, where, key, v, "expected an integer");
    *out = (long)json_integer_value(v);
    return 0;
}

/* Optional string: NULL when absent or not a string. */
static const char *opt_str(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* ---------------------------------------------------------------- dates */

static int valid_civil(int y, int mo, int d, int h, int mi, int s)
{
    return y >= 1900 && y <= 2200 && mo >= 1 && mo <= 12 && d >= 1 &&
           d <= 31 && h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && s >= 0 &&
           s <= 60;
}

static int month_of(const char *name)
{
    static const char *const months[] = {"jan", "feb", "mar", "apr",
                                         "may", "jun", "jul", "aug",
                                         "sep", "oct", "nov", "dec"};
    int i;
    char low[4];
    if (strlen(name) < 3)
        return 0;
    for (i = 0; i < 3; i++)
        low[i] = (char)(name[i] | 0x20);
    low[3] = '\0';
    for (i = 0; i < 12; i++)
        if (strcmp(low, months[i]) == 0)
            return i + 1;
    return 0;
}

/* LoCoMo "1:56 pm on 8 May, 2023" -> UTC ms. */
static int parse_locomo_date(const char *s, int64_t *out)
{
    int h, mi, d, y, mo;
    char ampm[3], mon[16], tail;
    if (sscanf(s, "%d:%d %2s on %d %15[A-Za-z], %d%c", &h, &mi, ampm, &d, mon,
               &y, &tail) != 6)
        return -1;
    mo = month_of(mon);
    ampm[0] = (char)(ampm[0] | 0x20);
    if (h < 1 || h > 12 || mo == 0 || (ampm[0] != 'a' && ampm[0] != 'p'))
        return -1;
    h = h % 12 + (ampm[0] == 'p' ? 12 : 0);
    if (!valid_civil(y, mo, d, h, mi, 0))
        return -1;
    *out = bench_civil_ms(y, mo, d, h, mi, 0, 0);
    return 0;
}

/* REALTALK "29.12.2023, 22:42:04" -> UTC ms. */
static int parse_realtalk_date(const char *s, int64_t *out)
{
    int d, mo, y, h, mi, sec;
    char tail;
    if (sscanf(s, "%d.%d.%d, %d:%d:%d%c", &d, &mo, &y, &h, &mi, &sec,
               &tail) != 6 ||
        !valid_civil(y, mo, d, h, mi, sec))
        return -1;
    *out = bench_civil_ms(y, mo, d, h, mi, sec, 0);
    return 0;
}

#define TZ_CN 480

/* MemDaily "2024年04月01日 周一 08:30" -> ms (+08:00). */
static int parse_memdaily_date(const char *s, int64_t *out)
{
    int y, mo, d, h, mi;
    if (sscanf(s, "%d\xE5\xB9\xB4%d\xE6\x9C\x88%d\xE6\x97\xA5 %*s %d:%d", &y,
               &mo, &d, &h, &mi) != 5 ||
        !valid_civil(y, mo, d, h, mi, 0))
        return -1;
    *out = bench_civil_ms(y, mo, d, h, mi, 0, TZ_CN);
    return 0;
}

/* MADial "2023-12-25" -> noon of that day in zone tz. */
static int parse_day(const char *s, int tz, int64_t *out)
{
    int y, mo, d;
    char tail;
    if (sscanf(s, "%d-%d-%d%c", &y, &mo, &d, &tail) != 3 ||
        !valid_civil(y, mo, d, 12, 0, 0))
        return -1;
    *out = bench_civil_ms(y, mo, d, 12, 0, 0, tz);
    return 0;
}

/* ---------------------------------------------------------------- refs */

static int is_digits(const char *s, size_t n)
{
    size_t i;
    if (!n)
        return 0;
    for (i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* "D12:3" -> day 12, turn 3. */
static int parse_dia(const char *s, size_t n, long *day, long *turn)
{
    const char *colon = memchr(s, ':', n);
    size_t left, right;
    if (n < 4 || s[0] != 'D' || !colon)
        return -1;
    left = (size_t)(colon - s) - 1;  /* digits after 'D' */
    right = n - (size_t)(colon - s) - 1;
    if (!is_digits(s + 1, left) || !is_digits(colon + 1, right) ||
        left > 7 || right > 7)
        return -1;
    *day = strtol(s + 1, NULL, 10);
    *turn = strtol(colon + 1, NULL, 10);
    return 0;
}

static void emit_ref(const char *p, size_t n, bench_ref_fn fn, void *ctx)
{
    const char *dash = memchr(p, '-', n);
    long d1, t1, d2, t2;
    if (dash && parse_dia(p, (size_t)(dash - p), &d1, &t1) == 0) {
        const char *r = dash + 1;
        size_t rn = n - (size_t)(r - p);
        int ok = 0;
        if (parse_dia(r, rn, &d2, &t2) == 0)
            ok = d2 == d1;
        else if (is_digits(r, rn) && rn < 8) {
            d2 = d1;
            t2 = strtol(r, NULL, 10);
            ok = 1;
        }
        if (ok && t2 >= t1 && t2 - t1 <= 500) {
            long t;
            for (t = t1; t <= t2; t++) {
                char buf[48];
                int len = snprintf(buf, sizeof buf, "D%ld:%ld", d1, t);
                fn(ctx, buf, (size_t)len);
            }
            return;
        }
    }
    fn(ctx, p, n);
}

void bench_split_refs(const char *raw, bench_ref_fn fn, void *ctx)
{
    const char *p = raw;
    while (*p) {
        const char *start, *end;
        while (*p && strchr(";, \t\r\n", *p))
            p++;
        start = p;
        while (*p && !strchr(";, \t\r\n", *p))
            p++;
        end = p;
        while (start < end && *start == '.')
            start++;
        while (end > start && end[-1] == '.')
            end--;
        if (end > start)
            emit_ref(start, (size_t)(end - start), fn, ctx);
    }
}

/* Resolves references against a key -> pool index map into a gold set. */
typedef struct resolver {
    const bench_map *ids;
    size_t *gold;
    size_t n_gold, cap_gold;
    long refs, resolved;
    int oom;
} resolver;

static void add_gold(resolver *r, size_t idx)
{
    size_t i;
    for (i = 0; i < r->n_gold; i++)
        if (r->gold[i] == idx)
            return;
    if (bench_grow((void **)&r->gold, &r->cap_gold, r->n_gold + 1,
                   sizeof *r->gold) != 0) {
        r->oom = 1;
        return;
    }
    r->gold[r->n_gold++] = idx;
}

static void resolve_ref(void *ctx, const char *ref, size_t len)
{
    resolver *r = ctx;
    size_t idx;
    r->refs++;
    if (bench_map_get(r->ids, ref, len, &idx)) {
        r->resolved++;
        add_gold(r, idx);
    }
}

/* Gold set of a LoCoMo/REALTALK evidence array.  Non-string entries count
 * as unresolvable references. */
static int resolve_evidence(resolver *r, json_t *evidence)
{
    size_t i;
    json_t *v;
    r->n_gold = 0;
    if (!evidence)
        return 0;
    json_array_foreach(evidence, i, v) {
        if (json_is_string(v))
            bench_split_refs(json_string_value(v), resolve_ref, r);
        else
            r->refs++;
    }
    return r->oom ? -1 : 0;
}

/* ---------------------------------------------------------------- sessions */

/* Sorted session numbers n of the keys "session_<n>" holding an array. */
static int session_numbers(json_t *obj, long **out, size_t *n)
{
    const char *key;
    json_t *v;
    long *nums = NULL;
    size_t cnt = 0, cap = 0, i, j;
    *out = NULL;
    *n = 0;
    json_object_foreach(obj, key, v) {
        const char *d = key + 8;
        if (strncmp(key, "session_", 8) != 0 || !is_digits(d, strlen(d)) ||
            strlen(d) > 6 || !json_is_array(v))
            continue;
        if (bench_grow((void **)&nums, &cap, cnt + 1, sizeof *nums) != 0) {
            free(nums);
            return -1;
        }
        nums[cnt++] = strtol(d, NULL, 10);
    }
    for (i = 1; i < cnt; i++) /* insertion sort: a few dozen sessions */
        for (j = i; j > 0 && nums[j - 1] > nums[j]; j--) {
            long t = nums[j];
            nums[j] = nums[j - 1];
            nums[j - 1] = t;
        }
    *out = nums;
    *n = cnt;
    return 0;
}

/* Text of a turn: "Speaker: text" + " [image: caption]". */
static char *turn_text(bench_arena *a, const char *speaker, const char *text,
                       const char *caption)
{
    if (caption && *caption)
        return bench_arena_printf(a, "%s: %s [image: %s]", speaker, text,
                                  caption);
    return bench_arena_printf(a, "%s: %s", speaker, text);
}

static int oom(bench_err *e, const char *file)
{
    return bench_fail(e, "%s: out of memory", file);
}

/* ---------------------------------------------------------------- locomo */

typedef struct turn_fields {
    const char *text_key;  /* "text" (LoCoMo) or "clean_text" (REALTALK) */
    int own_date;          /* REALTALK: per-message date_time */
} turn_fields;

/* Add the turns of every session of conv (an object holding session_<n>
 * arrays) to the pool and to map ids.  Returns the last event time. */
static int add_sessions(bench_dataset *ds, jctx *j, json_t *conv,
                        const char *where, const turn_fields *tf,
                        bench_map *ids, int64_t *last)
{
    long *nums = NULL;
    size_t n_nums, s;
    int rc = -1;
    *last = INT64_MIN;
    if (session_numbers(conv, &nums, &n_nums) != 0)
        return oom(j->e, j->file);
    for (s = 0; s < n_nums; s++) {
        char skey[32], dkey[48], sw[160], session[32];
        json_t *turns, *t;
        size_t i;
        int64_t session_ms = 0;
        const char *date;
        snprintf(skey, sizeof skey, "session_%ld", nums[s]);
        snprintf(dkey, sizeof dkey, "session_%ld_date_time", nums[s]);
        snprintf(session, sizeof session, "session_%ld", nums[s]);
        turns = json_object_get(conv, skey);
        if (!tf->own_date) {
            if (need_str(j, conv, dkey, where, &date) != 0)
                goto out;
            if (parse_locomo_date(date, &session_ms) != 0) {
                bench_fail(j->e, "%s: %s.%s: unreadable date \"%s\"", j->file,
                           where, dkey, date);
                goto out;
            }
        }
        json_array_foreach(turns, i, t) {
            const char *speaker, *text, *dia, *caption;
            char *doc;
            int64_t at = session_ms + (int64_t)i * 1000;
            long idx;
            snprintf(sw, sizeof sw, "%s.%s[%zu]", where, skey, i);
            if (!json_is_object(t)) {
                jfail_type(j, sw, NULL, t, "expected an object");
                goto out;
            }
            if (need_str(j, t, "speaker", sw, &speaker) != 0 ||
                need_str(j, t, tf->text_key, sw, &text) != 0 ||
                need_str(j, t, "dia_id", sw, &dia) != 0)
                goto out;
            if (tf->own_date) {
                if (need_str(j, t, "date_time", sw, &date) != 0)
                    goto out;
                if (parse_realtalk_date(date, &at) != 0) {
                    bench_fail(j->e, "%s: %s.date_time: unreadable date \"%s\"",
                               j->file, sw, date);
                    goto out;
                }
            }
            caption = opt_str(t, "blip_caption");
            doc = turn_text(&ds->arena, speaker, text, caption);
            idx = doc ? bench_add_doc(ds, dia, doc, session, at, 0) : -1;
            if (idx < 0 ||
                bench_map_put(ids, dia, strlen(dia), (size_t)idx, NULL) < 0) {
                oom(j->e, j->file);
                goto out;
            }
            if (at > *last)
                *last = at;
        }
    }
    rc = 0;
out:
    free(nums);
    return rc;
}

/* The questions of one conversation's qa array. */
static int add_qa(bench_dataset *ds, jctx *j, json_t *qa, const char *where,
                  const char *conv_id, int skip_cat5, bench_map *ids)
{
    resolver r;
    json_t *q;
    size_t i;
    int rc = -1;
    memset(&r, 0, sizeof r);
    r.ids = ids;
    json_array_foreach(qa, i, q) {
        char qw[128], qid[160], cat[32];
        const char *text;
        long category = 0;
        if (!json_is_object(q)) {
            snprintf(qw, sizeof qw, "%s.qa[%zu]", where, i);
            jfail_type(j, qw, NULL, q, "expected an object");
            goto out;
        }
        snprintf(qw, sizeof qw, "%s.qa[%zu]", where, i);
        if (need_str(j, q, "question", qw, &text) != 0 ||
            need_int(j, q, "category", qw, &category) != 0)
            goto out;
        if (skip_cat5 && category == 5) {
            ds->skipped_adversarial++;
            continue;
        }
        {
            json_t *ev = json_object_get(q, "evidence");
            if (ev && !json_is_array(ev)) {
                jfail_type(j, qw, "evidence", ev, "expected an array");
                goto out;
            }
            if (resolve_evidence(&r, ev) != 0) {
                oom(j->e, j->file);
                goto out;
            }
        }
        if (!r.n_gold) {
            ds->skipped_no_evidence++;
            continue;
        }
        snprintf(qid, sizeof qid, "%s#%zu", conv_id, i);
        snprintf(cat, sizeof cat, "%ld", category);
        if (!add_question(ds, qid, text, cat, r.gold, r.n_gold)) {
            oom(j->e, j->file);
            goto out;
        }
    }
    rc = 0;
out:
    ds->refs += r.refs;
    ds->refs_resolved += r.resolved;
    free(r.gold);
    return rc;
}

static int load_locomo_file(bench_dataset *ds, const char *path, bench_err *e)
{
    jctx j = {path, e};
    json_t *root = load_json(path, e), *c;
    size_t i;
    int rc = -1;
    static const turn_fields tf = {"text", 0};
    if (!root)
        return -1;
    if (!json_is_array(root)) {
        bench_fail(e, "%s: expected a JSON list of conversations", path);
        goto out;
    }
    json_array_foreach(root, i, c) {
        char where[32];
        const char *sample;
        json_t *conv, *qa;
        bench_map ids = {0};
        bench_unit *u;
        size_t first = ds->n_docs;
        int64_t last;
        int r;
        snprintf(where, sizeof where, "[%zu]", i);
        if (!json_is_object(c)) {
            jfail_type(&j, where, NULL, c, "expected an object");
            goto out;
        }
        if (need_str(&j, c, "sample_id", where, &sample) != 0)
            goto out;
        conv = json_object_get(c, "conversation");
        if (!json_is_object(conv)) {
            jfail_type(&j, where, "conversation", conv, "expected an object");
            goto out;
        }
        if (need_array(&j, c, "qa", where, &qa) != 0)
            goto out;
        if (!(u = add_unit(ds, sample))) {
            oom(e, path);
            goto out;
        }
        {
            char cw[64];
            snprintf(cw, sizeof cw, "%s.conversation", where);
            r = add_sessions(ds, &j, conv, cw, &tf, &ids, &last);
        }
        if (r == 0 && unit_docs_range(ds, u, first, ds->n_docs - first) != 0)
            r = oom(e, path);
        u->now_ms = (last == INT64_MIN ? 0 : last) + DAY_MS;
        if (r == 0)
            r = add_qa(ds, &j, qa, where, sample, 1, &ids);
        bench_map_clear(&ids);
        if (r != 0)
            goto out;
    }
    rc = 0;
out:
    json_decref(root);
    return rc;
}

/* ---------------------------------------------------------------- realtalk */

static void file_stem(const char *path, char *out, size_t cap)
{
    const char *b = bench_basename(path);
    size_t n = strlen(b);
    if (n > 5 && strcmp(b + n - 5, ".json") == 0)
        n -= 5;
    if (n >= cap)
        n = cap - 1;
    memcpy(out, b, n);
    out[n] = '\0';
}

static int load_realtalk_file(bench_dataset *ds, const char *path,
                              bench_err *e)
{
    jctx j = {path, e};
    json_t *root = load_json(path, e), *qa;
    bench_map ids = {0};
    bench_unit *u;
    char stem[128];
    size_t first = ds->n_docs;
    int64_t last;
    int rc = -1;
    static const turn_fields tf = {"clean_text", 1};
    if (!root)
        return -1;
    if (!json_is_object(root)) {
        bench_fail(e, "%s: expected a JSON object (one chat)", path);
        goto out;
    }
    file_stem(path, stem, sizeof stem);
    if (need_array(&j, root, "qa", "(top)", &qa) != 0)
        goto out;
    if (!(u = add_unit(ds, stem))) {
        oom(e, path);
        goto out;
    }
    if (add_sessions(ds, &j, root, "(top)", &tf, &ids, &last) != 0)
        goto out;
    if (unit_docs_range(ds, u, first, ds->n_docs - first) != 0) {
        oom(e, path);
        goto out;
    }
    u->now_ms = (last == INT64_MIN ? 0 : last) + DAY_MS;
    if (add_qa(ds, &j, qa, "(top)", stem, 0, &ids) != 0)
        goto out;
    rc = 0;
out:
    bench_map_clear(&ids);
    json_decref(root);
    return rc;
}

/* ---------------------------------------------------------------- memdaily */

typedef struct md_traj {
    size_t first, n;        /* its messages in the pool */
    const char *category;
    long tid;
} md_traj;

typedef struct md_question {
    size_t traj;
    const char *id, *text;
    size_t *gold;
    size_t n_gold;
    int64_t at_ms;          /* question time or INT64_MIN */
} md_question;

typedef struct md_state {
    md_traj *trajs;
    size_t n_trajs, cap_trajs;
    md_question *qs;
    size_t n_qs, cap_qs;
} md_state;

/* "05_post_processing_events_dev.json" -> "05_post_processing". */
static void memdaily_category(const char *file, char *out, size_t cap)
{
    char stem[128];
    char *us;
    size_t n;
    file_stem(file, stem, sizeof stem);
    n = strlen(stem);
    if (n > 4 && strcmp(stem + n - 4, "_dev") == 0)
        stem[n - 4] = '\0';
    else if (n > 8 && strcmp(stem + n - 8, "_holdout") == 0)
        stem[n - 8] = '\0';
    us = strrchr(stem, '_');
    if (us && us != stem)
        *us = '\0';
    snprintf(out, cap, "%s", stem);
}

static int md_question_add(bench_dataset *ds, md_state *st, jctx *j,
                           json_t *q, const char *qw, size_t traj_idx)
{
    const md_traj *t = &st->trajs[traj_idx];
    md_question *mq;
    const char *text, *time;
    json_t *targets, *v;
    size_t i;
    if (need_str(j, q, "question", qw, &text) != 0 ||
        need_array(j, q, "target_step_id", qw, &targets) != 0)
        return -1;
    if (bench_grow((void **)&st->qs, &st->cap_qs, st->n_qs + 1,
                   sizeof *st->qs) != 0)
        return oom(j->e, j->file);
    mq = &st->qs[st->n_qs];
    memset(mq, 0, sizeof *mq);
    mq->traj = traj_idx;
    mq->at_ms = INT64_MIN;
    mq->text = bench_arena_strdup(&ds->arena, text);
    mq->id = bench_arena_printf(&ds->arena, "%s%s", bench_basename(j->file),
                                qw);
    mq->gold = bench_arena_alloc(&ds->arena, (json_array_size(targets) + 1) *
                                                 sizeof *mq->gold);
    if (!mq->text || !mq->id || !mq->gold)
        return oom(j->e, j->file);
    if ((time = opt_str(q, "time")) && parse_memdaily_date(time, &mq->at_ms)) {
        return bench_fail(j->e, "%s: %s.time: unreadable date \"%s\"", j->file,
                          qw, time);
    }
    json_array_foreach(targets, i, v) {
        char key[32];
        size_t m, g;
        int dup = 0;
        ds->refs++;
        if (!json_is_integer(v))
            continue;
        snprintf(key, sizeof key, "%lld", (long long)json_integer_value(v));
        for (m = t->first; m < t->first + t->n; m++)
            if (strcmp(ds->docs[m].key, key) == 0)
                break;
        if (m == t->first + t->n)
            continue;
        ds->refs_resolved++;
        for (g = 0; g < mq->n_gold; g++)
            dup |= mq->gold[g] == m;
        if (!dup)
            mq->gold[mq->n_gold++] = m;
    }
    if (!mq->n_gold) {
        ds->skipped_no_evidence++;
        return 0;
    }
    st->n_qs++;
    return 0;
}

static int load_memdaily_file(bench_dataset *ds, md_state *st,
                              const char *path, bench_err *e)
{
    jctx j = {path, e};
    json_t *root = load_json(path, e), *t;
    char cat[128];
    const char *category;
    size_t i;
    int rc = -1;
    if (!root)
        return -1;
    memdaily_category(path, cat, sizeof cat);
    if (!(category = bench_arena_strdup(&ds->arena, cat))) {
        oom(e, path);
        goto out;
    }
    if (!json_is_array(root)) {
        bench_fail(e, "%s: expected a JSON list of trajectories", path);
        goto out;
    }
    json_array_foreach(root, i, t) {
        char tw[32];
        json_t *msgs, *qs, *m, *q;
        md_traj *tr;
        long tid;
        size_t k;
        snprintf(tw, sizeof tw, "[%zu]", i);
        if (!json_is_object(t)) {
            jfail_type(&j, tw, NULL, t, "expected an object");
            goto out;
        }
        if (need_int(&j, t, "tid", tw, &tid) != 0 ||
            need_array(&j, t, "message_list", tw, &msgs) != 0 ||
            need_array(&j, t, "question_list", tw, &qs) != 0)
            goto out;
        if (bench_grow((void **)&st->trajs, &st->cap_trajs, st->n_trajs + 1,
                       sizeof *st->trajs) != 0) {
            oom(e, path);
            goto out;
        }
        tr = &st->trajs[st->n_trajs];
        tr->first = ds->n_docs;
        tr->n = 0;
        tr->category = category;
        tr->tid = tid;
        json_array_foreach(msgs, k, m) {
            char mw[128], key[32], session[32], iso[32];
            const char *text, *time;
            long mid = 0;
            int64_t at;
            snprintf(mw, sizeof mw, "%s.message_list[%zu]", tw, k);
            if (!json_is_object(m)) {
                jfail_type(&j, mw, NULL, m, "expected an object");
                goto out;
            }
            if (need_int(&j, m, "mid", mw, &mid) != 0 ||
                need_str(&j, m, "message", mw, &text) != 0 ||
                need_str(&j, m, "time", mw, &time) != 0)
                goto out;
            if (parse_memdaily_date(time, &at) != 0) {
                bench_fail(e, "%s: %s.time: unreadable date \"%s\"", path, mw,
                           time);
                goto out;
            }
            bench_iso(at, TZ_CN, iso);
            snprintf(key, sizeof key, "%ld", mid);
            snprintf(session, sizeof session, "day_%.4s%.2s%.2s", iso, iso + 5,
                     iso + 8);
            if (bench_add_doc(ds, key, text, session, at, TZ_CN) < 0) {
                oom(e, path);
                goto out;
            }
            tr->n++;
        }
        st->n_trajs++;
        json_array_foreach(qs, k, q) {
            char qw[128];
            snprintf(qw, sizeof qw, "%s.question_list[%zu]", tw, k);
            if (!json_is_object(q)) {
                jfail_type(&j, qw, NULL, q, "expected an object");
                goto out;
            }
            if (md_question_add(ds, st, &j, q, qw, st->n_trajs - 1) != 0)
                goto out;
        }
    }
    rc = 0;
out:
    json_decref(root);
    return rc;
}

/* One unit per question: own trajectory + distractors, shuffled with a
 * per-question stream of the seed (so --limit keeps the same haystacks).
 * The shuffled order is what the baselines index (a score tie must not
 * favour the question's own trajectory); the engine ingests by time. */
static int memdaily_units(bench_dataset *ds, md_state *st,
                          const bench_load_opts *o, bench_err *e)
{
    size_t *others = malloc((st->n_trajs + 1) * sizeof *others);
    size_t *slots = NULL;
    size_t cap_slots = 0, qi;
    long nd = o->distractors;
    if (!others)
        return oom(e, ds->path);
    if (nd > (long)st->n_trajs - 1)
        nd = (long)st->n_trajs - 1;
    if (nd < 0)
        nd = 0;
    ds->distractors = nd;
    for (qi = 0; qi < st->n_qs; qi++) {
        const md_question *mq = &st->qs[qi];
        bench_rng rng;
        size_t n_other = 0, i, n = 0;
        long d;
        int64_t last = INT64_MIN;
        bench_unit *u;
        char uid[48];
        bench_rng_seed(&rng, o->seed, qi);
        for (i = 0; i < st->n_trajs; i++)
            if (i != mq->traj)
                others[n_other++] = i;
        /* partial Fisher-Yates: the first nd entries are the distractors */
        for (d = 0; d < nd; d++) {
            size_t r = (size_t)d + bench_rng_below(&rng, n_other - (size_t)d);
            size_t tmp = others[d];
            others[d] = others[r];
            others[r] = tmp;
        }
        others[nd] = mq->traj;
        for (d = 0; d <= nd; d++) {
            const md_traj *t = &st->trajs[others[d]];
            if (bench_grow((void **)&slots, &cap_slots, n + t->n,
                           sizeof *slots) != 0)
                goto fail;
            for (i = 0; i < t->n; i++)
                slots[n++] = t->first + i;
        }
        for (i = n; i > 1; i--) {
            size_t r = bench_rng_below(&rng, i);
            size_t tmp = slots[i - 1];
            slots[i - 1] = slots[r];
            slots[r] = tmp;
        }
        for (i = 0; i < n; i++)
            if (ds->docs[slots[i]].at_ms > last)
                last = ds->docs[slots[i]].at_ms;
        snprintf(uid, sizeof uid, "memdaily-q%zu", qi);
        if (!(u = add_unit(ds, uid)))
            goto fail;
        u->docs = bench_arena_alloc(&ds->arena, (n ? n : 1) * sizeof *u->docs);
        if (!u->docs)
            goto fail;
        memcpy(u->docs, slots, n * sizeof *slots);
        u->n_docs = n;
        u->now_ms = (last == INT64_MIN ? 0 : last) + DAY_MS;
        if (mq->at_ms != INT64_MIN && mq->at_ms > u->now_ms)
            u->now_ms = mq->at_ms;
        if (!add_question(ds, mq->id, mq->text, st->trajs[mq->traj].category,
                          mq->gold, mq->n_gold))
            goto fail;
    }
    free(others);
    free(slots);
    return 0;
fail:
    free(others);
    free(slots);
    return oom(e, ds->path);
}

static int load_memdaily(bench_dataset *ds, const char *path,
                         const bench_load_opts *o, bench_err *e)
{
    md_state st;
    char **names = NULL;
    size_t n = 0, i;
    int rc = -1;
    memset(&st, 0, sizeof st);
    if (bench_is_dir(path)) {
        if (bench_list_dir(path, "", ".json", &names, &n, e) != 0)
            return -1;
        if (!n) {
            bench_free_names(names, n);
            return bench_fail(e, "%s: no MemDaily *.json files", path);
        }
        for (i = 0; i < n; i++) {
            char full[4096];
            snprintf(full, sizeof full, "%s/%s", path, names[i]);
            if (load_memdaily_file(ds, &st, full, e) != 0)
                goto out;
        }
    } else if (load_memdaily_file(ds, &st, path, e) != 0) {
        goto out;
    }
    rc = memdaily_units(ds, &st, o, e);
out:
    bench_free_names(names, n);
    free(st.trajs);
    free(st.qs);
    return rc;
}

/* ---------------------------------------------------------------- madial */

typedef struct mad_mem {
    const char *id, *text;
    int64_t at_ms;
    long user;     /* -1 unknown */
} mad_mem;

typedef struct mad_dialog {
    const char *id, *query;
    long user;
    long *relevant;
    size_t n_relevant;
} mad_dialog;

/* id -> user of the zh archive (en memories carry no user-id). */
static int madial_user_map(const char *dir, bench_map *users, bench_err *e)
{
    char path[4096];
    size_t len;
    char *buf, *line, *save = NULL;
    snprintf(path, sizeof path, "%s/MADial-Bench-zh-memory.json", dir);
    buf = bench_read_file(path, &len, NULL);
    (void)e;
    if (!buf)
        return 0; /* no zh archive: en stays one archive */
    for (line = strtok_r(buf, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        json_t *o = json_loads(line, 0, NULL), *v;
        const char *key;
        json_object_foreach(o, key, v) {
            json_t *u = json_object_get(v, "user-id");
            if (json_is_integer(u))
                bench_map_put(users, key, strlen(key),
                              (size_t)json_integer_value(u), NULL);
        }
        json_decref(o);
    }
    free(buf);
    return 0;
}

static int madial_memories(bench_dataset *ds, const char *path,
                           const char *lang, const bench_map *users,
                           mad_mem **out, size_t *n_out, bench_err *e)
{
    jctx j = {path, e};
    size_t len, n = 0, cap = 0, lineno = 0;
    char *buf = bench_read_file(path, &len, e), *line, *save = NULL;
    mad_mem *v = NULL;
    int tz = strcmp(lang, "zh") == 0 ? TZ_CN : 0;
    if (!buf)
        return -1;
    for (line = strtok_r(buf, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        json_error_t je;
        json_t *o = json_loads(line, 0, &je), *m;
        const char *key;
        char lw[32];
        lineno++;
        snprintf(lw, sizeof lw, "line %zu", lineno);
        if (!json_is_object(o)) {
            bench_fail(e, "%s: %s: %s", path, lw,
                       o ? "expected an object" : je.text);
            json_decref(o);
            goto fail;
        }
        json_object_foreach(o, key, m) {
            const char *text, *time;
            json_t *u;
            size_t user;
            char mw[96];
            snprintf(mw, sizeof mw, "%s.\"%s\"", lw, key);
            if (!json_is_object(m)) {
                jfail_type(&j, mw, NULL, m, "expected an object");
                json_decref(o);
                goto fail;
            }
            if (need_str(&j, m, "event", mw, &text) != 0 ||
                need_str(&j, m, "time", mw, &time) != 0) {
                json_decref(o);
                goto fail;
            }
            if (bench_grow((void **)&v, &cap, n + 1, sizeof *v) != 0) {
                json_decref(o);
                oom(e, path);
                goto fail;
            }
            v[n].id = bench_arena_strdup(&ds->arena, key);
            v[n].text = bench_arena_strdup(&ds->arena, text);
            if (!v[n].id || !v[n].text) {
                json_decref(o);
                oom(e, path);
                goto fail;
            }
            if (parse_day(time, tz, &v[n].at_ms) != 0) {
                bench_fail(e, "%s: %s.time: unreadable date \"%s\"", path, mw,
                           time);
                json_decref(o);
                goto fail;
            }
            u = json_object_get(m, "user-id");
            if (json_is_integer(u))
                v[n].user = (long)json_integer_value(u);
            else if (bench_map_get(users, key, strlen(key), &user))
                v[n].user = (long)user;
            else
                v[n].user = -1;
            n++;
        }
        json_decref(o);
    }
    free(buf);
    *out = v;
    *n_out = n;
    return 0;
fail:
    free(buf);
    free(v);
    return -1;
}

/* "<Bart>: \"Hey...\"\n" -> "Bart: Hey..." appended to the query. */
static int append_turn(bench_arena *a, char **query, const char *line)
{
    size_t n = strlen(line);
    const char *s = line, *name = NULL, *end;
    size_t name_len = 0;
    char *q;
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        n--;
    if ((n == 5 && (strncmp(s, "<BOD>", 5) == 0 ||
                    strncmp(s, "<EOD>", 5) == 0)) ||
        n == 0)
        return 0;
    end = s + n;
    if (s[0] == '<') {
        const char *close = memchr(s, '>', n);
        if (close && close + 1 < end && close[1] == ':') {
            name = s + 1;
            name_len = (size_t)(close - s - 1);
            s = close + 2;
        }
    }
    while (s < end && *s == ' ')
        s++;
    if (end - s >= 2 && *s == '"' && end[-1] == '"') {
        s++;
        end--;
    }
    if (name)
        q = bench_arena_printf(a, "%s%s%.*s: %.*s", *query ? *query : "",
                               *query ? "\n" : "", (int)name_len, name,
                               (int)(end - s), s);
    else
        q = bench_arena_printf(a, "%s%s%.*s", *query ? *query : "",
                               *query ? "\n" : "", (int)(end - s), s);
    if (!q)
        return -1;
    *query = q;
    return 0;
}

static int madial_dialog_line(bench_dataset *ds, jctx *j, json_t *o,
                              const char *lw, const char *lang,
                              mad_dialog *d)
{
    json_t *dlg, *tt, *rel, *v;
    long user = -1, first = -1;
    size_t i;
    char *query = NULL;
    if (need_array(j, o, "dialogue", lw, &dlg) != 0 ||
        need_array(j, o, "test-turn", lw, &tt) != 0 ||
        need_array(j, o, "relevant-id", lw, &rel) != 0)
        return -1;
    if (json_object_get(o, "user-id") && need_int(j, o, "user-id", lw, &user))
        return -1;
    json_array_foreach(tt, i, v) {
        long t = json_is_integer(v) ? (long)json_integer_value(v) : -1;
        if (t < 1 || (size_t)t >= json_array_size(dlg))
            return bench_fail(j->e, "%s: %s.test-turn[%zu]: not an index of "
                              "dialogue", j->file, lw, i);
        if (first < 0 || t < first)
            first = t;
    }
    if (first < 0)
        return bench_fail(j->e, "%s: %s.test-turn: empty", j->file, lw);
    for (i = 0; i < (size_t)first; i++) {
        json_t *line = json_array_get(dlg, i);
        if (!json_is_string(line))
            return bench_fail(j->e, "%s: %s.dialogue[%zu]: expected a string",
                              j->file, lw, i);
        if (append_turn(&ds->arena, &query, json_string_value(line)) != 0)
            return oom(j->e, j->file);
    }
    d->query = query ? query : "";
    d->user = user;
    d->id = bench_arena_printf(&ds->arena, "madial-%s/%s#%s", lang,
                               bench_basename(j->file), lw);
    d->relevant = bench_arena_alloc(&ds->arena, (json_array_size(rel) + 1) *
                                                    sizeof *d->relevant);
    if (!d->id || !d->relevant)
        return oom(j->e, j->file);
    d->n_relevant = 0;
    json_array_foreach(rel, i, v) {
        if (json_is_integer(v))
            d->relevant[d->n_relevant++] = (long)json_integer_value(v);
        else
            d->relevant[d->n_relevant++] = -1;
    }
    return 0;
}

static int madial_dialogs(bench_dataset *ds, const char *path,
                          const char *lang, mad_dialog **out, size_t *n_out,
                          bench_err *e)
{
    jctx j = {path, e};
    size_t len, n = *n_out, cap = n, lineno = 0;
    char *buf = bench_read_file(path, &len, e), *line, *save = NULL;
    mad_dialog *v = *out;
    if (!buf)
        return -1;
    for (line = strtok_r(buf, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        json_error_t je;
        json_t *o = json_loads(line, 0, &je);
        char lw[32];
        int rc;
        lineno++;
        snprintf(lw, sizeof lw, "line %zu", lineno);
        if (!json_is_object(o)) {
            bench_fail(e, "%s: %s: %s", path, lw,
                       o ? "expected an object" : je.text);
            json_decref(o);
            goto fail;
        }
        if (bench_grow((void **)&v, &cap, n + 1, sizeof *v) != 0) {
            json_decref(o);
            oom(e, path);
            goto fail;
        }
        rc = madial_dialog_line(ds, &j, o, lw, lang, &v[n]);
        json_decref(o);
        if (rc != 0)
            goto fail;
        n++;
    }
    free(buf);
    *out = v;
    *n_out = n;
    return 0;
fail:
    free(buf);
    *out = v;
    *n_out = n;
    return -1;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* Units (one per user of the archive; one "all" unit when users are
 * unknown) and their questions. */
static int madial_units(bench_dataset *ds, const char *lang,
                        const mad_mem *mems, size_t n_mems,
                        const mad_dialog *dl, size_t n_dl, int gold_first,
                        bench_err *e)
{
    long *users = malloc((n_mems + 1) * sizeof *users);
    size_t n_users = 0, i, k, *gold = malloc((n_mems + 1) * sizeof *gold);
    int per_user = 1, rc = -1;
    if (!users || !gold)
        goto nomem;
    for (i = 0; i < n_mems; i++)
        if (mems[i].user < 0)
            per_user = 0;
    if (per_user) {
        for (i = 0; i < n_mems; i++)
            users[n_users++] = mems[i].user;
        qsort(users, n_users, sizeof *users, cmp_long);
        for (i = 0, k = 0; i < n_users; i++)
            if (k == 0 || users[k - 1] != users[i])
                users[k++] = users[i];
        n_users = k;
    } else {
        users[n_users++] = -1;
    }
    for (k = 0; k < n_users; k++) {
        char uid[64];
        bench_unit *u;
        size_t first = ds->n_docs, q;
        int64_t last = INT64_MIN;
        if (per_user)
            snprintf(uid, sizeof uid, "madial-%s-user-%ld", lang, users[k]);
        else
            snprintf(uid, sizeof uid, "madial-%s-all", lang);
        if (!(u = add_unit(ds, uid)))
            goto nomem;
        for (i = 0; i < n_mems; i++) {
            if (per_user && mems[i].user != users[k])
                continue;
            if (bench_add_doc(ds, mems[i].id, mems[i].text, "memories",
                              mems[i].at_ms,
                              strcmp(lang, "zh") == 0 ? TZ_CN : 0) < 0)
                goto nomem;
            if (mems[i].at_ms > last)
                last = mems[i].at_ms;
        }
        if (unit_docs_range(ds, u, first, ds->n_docs - first) != 0)
            goto nomem;
        u->now_ms = (last == INT64_MIN ? 0 : last) + DAY_MS;
        for (q = 0; q < n_dl; q++) {
            const mad_dialog *d = &dl[q];
            size_t n_gold = 0, r, n_rel = d->n_relevant;
            if (per_user && d->user != users[k])
                continue;
            if (gold_first && n_rel > 1)
                n_rel = 1;
            for (r = 0; r < n_rel; r++) {
                size_t m;
                char key[32];
                ds->refs++;
                snprintf(key, sizeof key, "%ld", d->relevant[r]);
                for (m = first; m < ds->n_docs; m++)
                    if (strcmp(ds->docs[m].key, key) == 0)
                        break;
                if (m < ds->n_docs) {
                    size_t g;
                    int dup = 0;
                    ds->refs_resolved++;
                    for (g = 0; g < n_gold; g++)
                        dup |= gold[g] == m;
                    if (!dup && n_gold < n_mems)
                        gold[n_gold++] = m;
                }
            }
            if (!n_gold) {
                ds->skipped_no_evidence++;
                continue;
            }
            if (!add_question(ds, d->id, d->query, lang, gold, n_gold))
                goto nomem;
        }
    }
    /* dialogues of a user the archive does not know */
    if (per_user)
        for (i = 0; i < n_dl; i++) {
            long *hit = bsearch(&dl[i].user, users, n_users, sizeof *users,
                                cmp_long);
            if (!hit)
                ds->skipped_no_evidence++;
        }
    rc = 0;
    goto out;
nomem:
    rc = oom(e, ds->path);
out:
    free(users);
    free(gold);
    return rc;
}

static int load_madial_lang(bench_dataset *ds, const char *dir,
                            const char *lang, int gold_first, bench_err *e)
{
    char prefix[64], mem_path[4096];
    char **names = NULL;
    size_t n_names = 0, i, n_mems = 0, n_dl = 0;
    mad_mem *mems = NULL;
    mad_dialog *dl = NULL;
    bench_map users = {0};
    int rc = -1;
    snprintf(prefix, sizeof prefix, "MADial-Bench-%s-dialogue", lang);
    snprintf(mem_path, sizeof mem_path, "%s/MADial-Bench-%s-memory.json", dir,
             lang);
    if (bench_list_dir(dir, prefix, ".json", &names, &n_names, e) != 0)
        return -1;
    if (strcmp(lang, "zh") != 0 && madial_user_map(dir, &users, e) != 0)
        goto out;
    if (madial_memories(ds, mem_path, lang, &users, &mems, &n_mems, e) != 0)
        goto out;
    for (i = 0; i < n_names; i++) {
        char full[4096];
        if (strstr(names[i], "setting"))
            continue; /* memory-recognition variants of the same lines */
        snprintf(full, sizeof full, "%s/%s", dir, names[i]);
        if (madial_dialogs(ds, full, lang, &dl, &n_dl, e) != 0)
            goto out;
    }
    if (!n_dl) {
        bench_fail(e, "%s: no %s*.json dialogue file", dir, prefix);
        goto out;
    }
    rc = madial_units(ds, lang, mems, n_mems, dl, n_dl, gold_first, e);
out:
    bench_free_names(names, n_names);
    bench_map_clear(&users);
    free(mems);
    free(dl);
    return rc;
}

static int load_madial(bench_dataset *ds, const char *path,
                       const bench_load_opts *o, bench_err *e)
{
    const char *lang = o->lang ? o->lang : "both";
    if (!bench_is_dir(path))
        return bench_fail(e, "%s: madial needs the madial_bench directory",
                          path);
    if (strcmp(lang, "en") == 0 || strcmp(lang, "both") == 0)
        if (load_madial_lang(ds, path, "en", o->gold_first, e) != 0)
            return -1;
    if (strcmp(lang, "zh") == 0 || strcmp(lang, "both") == 0)
        if (load_madial_lang(ds, path, "zh", o->gold_first, e) != 0)
            return -1;
    return 0;
}

/* ---------------------------------------------------------------- entry */

typedef int (*file_loader)(bench_dataset *ds, const char *path, bench_err *e);

/* A file, or every *.json of a directory in name order. */
static int load_files(bench_dataset *ds, const char *path, file_loader fn,
                      const char *what, bench_err *e)
{
    char **names;
    size_t n, i;
    int rc = 0;
    if (!bench_is_dir(path))
        return fn(ds, path, e);
    if (bench_list_dir(path, "", ".json", &names, &n, e) != 0)
        return -1;
    if (!n)
        rc = bench_fail(e, "%s: no %s *.json file", path, what);
    for (i = 0; i < n && rc == 0; i++) {
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", path, names[i]);
        rc = fn(ds, full, e);
    }
    bench_free_names(names, n);
    return rc;
}

int bench_load(bench_dataset *ds, const char *name, const char *path,
               const bench_load_opts *o, bench_err *e)
{
    memset(ds, 0, sizeof *ds);
    ds->name = name;
    ds->path = path;
    if (access(path, R_OK) != 0)
        return bench_fail(e, "%s: cannot read: %s (point --data at the %s "
                          "data)", path, strerror(errno), name);
    if (strcmp(name, "locomo") == 0)
        return load_files(ds, path, load_locomo_file, "LoCoMo", e);
    if (strcmp(name, "realtalk") == 0)
        return load_files(ds, path, load_realtalk_file, "REALTALK", e);
    if (strcmp(name, "memdaily") == 0)
        return load_memdaily(ds, path, o, e);
    if (strcmp(name, "madial") == 0)
        return load_madial(ds, path, o, e);
    return bench_fail(e, "unknown dataset \"%s\"", name);
}
