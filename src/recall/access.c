/* SPDX-License-Identifier: Apache-2.0 */
/*
 * access.c -- who sees what (access.h): the whitelist spec, the
 * visibility rules, the hidden events of a user and the filtering store
 * a scoped recall reads through.
 */
#include "recall/access.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the spec */

/* [p, e) without spaces at either end */
static void trim(const char **p, const char **e)
{
    while (*p < *e && (**p == ' ' || **p == '\t')) (*p)++;
    while (*e > *p && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r')) (*e)--;
}

/* A name of the spec: an id (am__id_check) without the spec's own
 * separators. */
static const char *spec_name(am__arena *ar, const char *p, const char *e, const char **why)
{
    trim(&p, &e);
    char *s = am__arena_strndup(ar, p, (size_t)(e - p));
    if (!s) { *why = "out of memory"; return NULL; }
    if (strpbrk(s, ",;=")) { *why = "contains one of , ; ="; return NULL; }
    if ((*why = am__id_check(s))) return NULL;
    return s;
}

static int rule_parse(const char *p, const char *e, am__arena *ar, am__role_rule *r, char *err,
                      size_t cap)
{
    const char *why = NULL, *eq = memchr(p, '=', (size_t)(e - p));
    int len = (int)(e - p > 64 ? 64 : e - p);
    if (!eq) {
        snprintf(err, cap, "role_allow: rule \"%.*s\" has no '=' (kind:K=role,... or domain:D=role,...)",
                 len, p);
        return AM_INVALID;
    }
    const char *t = p, *te = eq;
    trim(&t, &te);
    if (te - t > 5 && strncmp(t, "kind:", 5) == 0) r->on_domain = 0, t += 5;
    else if (te - t > 7 && strncmp(t, "domain:", 7) == 0) r->on_domain = 1, t += 7;
    else {
        snprintf(err, cap, "role_allow: rule \"%.*s\" names neither kind:K nor domain:D", len, p);
        return AM_INVALID;
    }
    if (!(r->name = spec_name(ar, t, te, &why))) {
        snprintf(err, cap, "role_allow: rule \"%.*s\": name %s", len, p, why);
        return strcmp(why, "out of memory") == 0 ? AM_NOMEM : AM_INVALID;
    }
    size_t n = 1;
    for (const char *c = eq + 1; c < e; c++) n += *c == ',';
    r->roles = am__arena_alloc(ar, n * sizeof *r->roles);
    if (!r->roles) return AM_NOMEM;
    r->n_roles = 0;
    const char *q = eq + 1, *qe = q;
    trim(&q, &e);
    if (q == e) return AM_OK; /* no role at all: shown to no agent */
    for (;; q = qe + 1) {
        qe = memchr(q, ',', (size_t)(e - q));
        if (!qe) qe = e;
        const char *role = spec_name(ar, q, qe, &why);
        if (!role) {
            snprintf(err, cap, "role_allow: rule \"%.*s\": role %s", len, p, why);
            return strcmp(why, "out of memory") == 0 ? AM_NOMEM : AM_INVALID;
        }
        r->roles[r->n_roles++] = role;
        if (qe == e) return AM_OK;
    }
}

int am__role_rules_parse(const char *spec, am__arena *ar, am__role_rules *out, char *err,
                         size_t cap)
{
    memset(out, 0, sizeof *out);
    if (!spec || !*spec) return AM_OK;
    if (strlen(spec) > 65536) {
        snprintf(err, cap, "role_allow: over 65536 bytes");
        return AM_INVALID;
    }
    size_t n = 1;
    for (const char *c = spec; *c; c++) n += *c == ';' || *c == '\n';
    out->rule = am__arena_alloc(ar, n * sizeof *out->rule);
    if (!out->rule) return AM_NOMEM;
    for (const char *p = spec; *p;) {
        const char *e = p + strcspn(p, ";\n"), *t = p, *te = e;
        trim(&t, &te);
        if (t < te) {
            am__role_rule *r = &out->rule[out->n];
            int rc = rule_parse(t, te, ar, r, err, cap);
            if (rc) return rc;
            for (size_t i = 0; i < out->n; i++)
                if (out->rule[i].on_domain == r->on_domain && strcmp(out->rule[i].name, r->name) == 0) {
                    snprintf(err, cap, "role_allow: %s:%s is given twice", r->on_domain ? "domain" : "kind",
                             r->name);
                    return AM_INVALID;
                }
            out->n++;
        }
        p = *e ? e + 1 : e;
    }
    return AM_OK;
}

/* ------------------------------------------------------------ the rules */

void am__access_init(am__access *a, const char *agent, const char *role,
                     const am__role_rules *rules)
{
    memset(a, 0, sizeof *a);
    a->agent = agent;
    a->role = role;
    a->rules = rules;
    a->scoped = agent || role;
}

/* 1 when no rule restricts (kind or domain) name, or the asker's role is
 * among the roles of the one that does. */
static int role_allows(const am__access *a, int on_domain, const char *name)
{
    if (!a->rules) return 1;
    for (size_t i = 0; i < a->rules->n; i++) {
        const am__role_rule *r = &a->rules->rule[i];
        if (r->on_domain != on_domain || strcmp(r->name, name) != 0) continue;
        for (size_t k = 0; a->role && k < r->n_roles; k++)
            if (strcmp(r->roles[k], a->role) == 0) return 1;
        return 0;
    }
    return 1;
}

static int is_agents_own(const char *source)
{
    return source && (strcmp(source, "agent") == 0 || strcmp(source, "tool") == 0);
}

int am__access_event_visible(const am__access *a, const char *source, const char *agent,
                             const char *domain)
{
    if (!a->scoped) return 1;
    if (is_agents_own(source) && (!a->agent || !agent || strcmp(agent, a->agent) != 0)) return 0;
    return !domain || role_allows(a, 1, domain);
}

int am__access_item_visible(const am__access *a, const char *kind, const char *scope)
{
    if (!a->scoped) return 1;
    if (kind && !role_allows(a, 0, kind)) return 0;
    return !scope || strncmp(scope, "domain:", 7) != 0 || role_allows(a, 1, scope + 7);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static int cmp_rid(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

/* 1 when a kind rule keeps some kind from the asker */
static int kind_rule_applies(const am__access *a)
{
    for (size_t i = 0; a->rules && i < a->rules->n; i++)
        if (!a->rules->rule[i].on_domain && !role_allows(a, 0, a->rules->rule[i].name)) return 1;
    return 0;
}

/* The events a kind rule hides: those whose every memory item (any
 * version, by the item's provenance) is one the asker may not see -- the
 * sentence an item of a hidden kind came from says what the item says.
 * An event that also gave a visible item, or gave none, stays.  Their
 * ids into *ids (n), in ar. */
static int kind_hidden(const am__access *a, am__store *s, const char *uid, am__arena *ar,
                       const char ***ids, size_t *n)
{
    am__item_row *items;
    size_t n_items, n_src = 0;
    *ids = NULL;
    *n = 0;
    int rc = s->vt->items.items_list(s, uid, AM__ITEMS_ALL, 0, ar, &items, &n_items);
    if (rc == AM_NOTFOUND) return AM_OK;
    if (rc) return rc;
    for (size_t i = 0; i < n_items; i++) n_src += items[i].n_sources;
    if (!n_src) return AM_OK;
    const char **hid = am__arena_alloc(ar, n_src * sizeof *hid);
    const char **shown = am__arena_alloc(ar, n_src * sizeof *shown);
    if (!hid || !shown) return AM_NOMEM;
    size_t nh = 0, ns = 0;
    for (size_t i = 0; i < n_items; i++) {
        int vis = am__access_item_visible(a, items[i].kind, items[i].scope);
        for (size_t k = 0; k < items[i].n_sources; k++) {
            if (vis) shown[ns++] = items[i].sources[k];
            else hid[nh++] = items[i].sources[k];
        }
    }
    qsort(shown, ns, sizeof *shown, cmp_str);
    qsort(hid, nh, sizeof *hid, cmp_str);
    size_t m = 0;
    for (size_t i = 0; i < nh; i++) {
        if (m && strcmp(hid[m - 1], hid[i]) == 0) continue; /* once */
        if (ns && bsearch(&hid[i], shown, ns, sizeof *shown, cmp_str)) continue;
        hid[m++] = hid[i];
    }
    *ids = hid;
    *n = m;
    return AM_OK;
}

int am__access_load(am__access *a, am__store *s, const char *uid, am__arena *ar)
{
    a->hidden = NULL;
    a->hidden_ids = NULL;
    a->n_hidden = 0;
    if (!a->scoped) return AM_OK;
    am__event_row *rows;
    size_t n, n_kind = 0;
    const char **kind_ids = NULL;
    am__event_scan q = {.kind = AM__SCAN_ACCESS};
    int rc = s->vt->events.events_scan(s, uid, &q, ar, &rows, &n);
    if (rc) return rc;
    if (kind_rule_applies(a) && (rc = kind_hidden(a, s, uid, ar, &kind_ids, &n_kind))) return rc;
    a->hidden = am__arena_alloc(ar, (n + n_kind + 1) * sizeof *a->hidden);
    a->hidden_ids = am__arena_alloc(ar, (n + n_kind + 1) * sizeof *a->hidden_ids);
    if (!a->hidden || !a->hidden_ids) return AM_NOMEM;
    for (size_t i = 0; i < n; i++)
        if (!am__access_event_visible(a, rows[i].source, rows[i].agent_id, rows[i].domain)) {
            a->hidden_ids[a->n_hidden] = rows[i].id;
            a->hidden[a->n_hidden++] = rows[i].rid;
        }
    if (a->n_hidden > 1) qsort(a->hidden_ids, a->n_hidden, sizeof *a->hidden_ids, cmp_str);
    size_t by_privacy = a->n_hidden;
    for (size_t i = 0; i < n_kind; i++) {
        if (am__access_hides_id(a, kind_ids[i])) continue; /* hidden already */
        am__event_row ev;
        rc = s->vt->events.event_get(s, uid, AM__EVENT_BY_ID, kind_ids[i], ar, &ev);
        if (rc == AM_NOTFOUND) continue; /* forgotten since */
        if (rc) return rc;
        a->hidden_ids[a->n_hidden] = ev.id;
        a->hidden[a->n_hidden++] = ev.rid;
    }
    if (a->n_hidden > by_privacy) { /* both stay sorted: rids for rows, ids for bsearch */
        qsort(a->hidden, a->n_hidden, sizeof *a->hidden, cmp_rid);
        qsort(a->hidden_ids, a->n_hidden, sizeof *a->hidden_ids, cmp_str);
    }
    return AM_OK;
}

int am__access_hides_rid(const am__access *a, int64_t rid)
{
    size_t lo = 0, hi = a->n_hidden;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->hidden[mid] < rid) lo = mid + 1;
        else hi = mid;
    }
    return lo < a->n_hidden && a->hidden[lo] == rid;
}

int am__access_hides_id(const am__access *a, const char *event_id)
{
    if (!event_id || !a->n_hidden) return 0;
    return bsearch(&event_id, a->hidden_ids, a->n_hidden, sizeof *a->hidden_ids, cmp_str) != NULL;
}

int am__access_task_events(const am__access *a, am__store *s, const char *uid,
                           const char *task_id, am__arena *ar)
{
    if (!a->scoped || !a->n_hidden) return AM_OK;
    am__event_row *rows;
    size_t n;
    /* among its n_hidden + 1 latest events one is not hidden, or it has no
     * more than those */
    size_t limit = a->n_hidden + 1 > 1000000 ? 1000000 : a->n_hidden + 1;
    int rc =
        am__store_events_recent(s, uid, NULL, task_id, AM_TIME_NONE, (int)limit, ar, &rows, &n);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++)
        if (!am__access_hides_rid(a, rows[i].rid)) return AM_OK;
    return AM_NOTFOUND;
}

/* A JSON array of task entries without those of another agent: arr
 * itself when none goes. */
static const char *entries_filter(const am__access *a, am__arena *ar, const char *arr)
{
    if (!arr || !strstr(arr, "\"agent\"")) return arr; /* nobody's own entry */
    json_error_t e;
    json_t *v = json_loads(arr, 0, &e);
    if (!json_is_array(v)) {
        json_decref(v);
        return arr;
    }
    size_t i = 0, dropped = 0;
    while (i < json_array_size(v)) {
        const char *agent = json_string_value(json_object_get(json_array_get(v, i), "agent"));
        if (agent && (!a->agent || strcmp(agent, a->agent) != 0)) {
            json_array_remove(v, i);
            dropped++;
        } else {
            i++;
        }
    }
    const char *out = arr;
    if (dropped) {
        char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
        out = s ? am__arena_strdup(ar, s) : NULL;
        free(s);
    }
    json_decref(v);
    return out;
}

int am__access_task(const am__access *a, am__arena *ar, am__task_row *t)
{
    if (!a->scoped) return AM_OK;
    if (!(t->notes = entries_filter(a, ar, t->notes))) return AM_NOMEM;
    if (!(t->pending = entries_filter(a, ar, t->pending))) return AM_NOMEM;
    if (!(t->artifacts = entries_filter(a, ar, t->artifacts))) return AM_NOMEM;
    return AM_OK;
}

void am__access_history(const am__access *a, am__task_change_row *rows, size_t *n)
{
    if (!a->scoped || !a->n_hidden) return;
    size_t m = 0;
    for (size_t i = 0; i < *n; i++)
        if (!am__access_hides_id(a, rows[i].event_id)) rows[m++] = rows[i];
    *n = m;
}

/* ------------------------------------------------------------ the store */

#define AS(b) ((am__access_store *)(b))
#define INNER(b) (AS(b)->inner)

/* rows[0..*n) without the hidden ones */
static void rows_keep(const am__access *a, am__event_row *rows, size_t *n)
{
    size_t m = 0;
    for (size_t i = 0; i < *n; i++)
        if (!am__access_hides_rid(a, rows[i].rid)) rows[m++] = rows[i];
    *n = m;
}

static const char *as_errmsg(am__store *b) { return INNER(b)->vt->errmsg(INNER(b)); }
/* (a read path: its snapshots and searches only) */
static int as_begin(am__store *b, int mode, const char *const *uids, size_t n)
{
    if (mode == AM__TX_LOCK) return AM_OK; /* (no write: no lock to take) */
    if (mode != AM__TX_READ && mode != AM__TX_SEARCH) return AM_MISUSE;
    return INNER(b)->vt->tx.begin(INNER(b), mode, uids, n);
}
static int as_end(am__store *b, int how, int rc)
{
    if (how != AM__TX_END_READ && how != AM__TX_END_SEARCH) return AM_MISUSE;
    return INNER(b)->vt->tx.end(INNER(b), how, rc);
}
/* (whether the user is there; not what it holds) */
static int as_user_stat(am__store *b, const char *uid, long counts[3])
{
    if (counts) return AM_MISUSE;
    return INNER(b)->vt->users.user_stat(INNER(b), uid, NULL);
}
static int as_user_rows(am__store *b, const char *uid, int64_t *n)
{
    return INNER(b)->vt->postings.user_rows(INNER(b), uid, n);
}
static int as_term_docs(am__store *b, const char *uid, const char *const *terms, size_t n_terms,
                        double *df, int64_t *n_rows)
{
    return INNER(b)->vt->postings.term_docs(INNER(b), uid, terms, n_terms, df, n_rows);
}

/* The hidden rows leave the hits, and with hidden events in the history
 * the context column counts no more (it may hold their words). */
static int as_postings(am__store *b, const char *uid, const char *const *terms, size_t n_terms,
                       am_time from, am_time to, int64_t n_rows, am__arena *ar, am__hits *out,
                       double *df)
{
    const am__access *a = AS(b)->acc;
    int rc = INNER(b)->vt->postings.postings(INNER(b), uid, terms, n_terms, from, to, n_rows, ar,
                                             out, df);
    if (rc || !a->n_hidden) return rc;
    size_t m = 0;
    for (size_t i = 0; i < out->n; i++) {
        const am__hit *h = &out->hit[i];
        int own_words = 0; /* a row found by its context alone goes */
        for (uint32_t k = 0; k < h->n_tf; k++) {
            own_words |= out->tf[h->first + k].tf[0] != 0;
            out->tf[h->first + k].tf[1] = 0;
        }
        if (own_words && !am__access_hides_rid(a, h->rid)) out->hit[m++] = *h;
    }
    out->n = m;
    return AM_OK;
}

static int as_rows_get(am__store *b, const char *uid, const int64_t *rids, size_t n,
                       am__arena *ar, am__event_row *rows, unsigned char *found)
{
    int rc = INNER(b)->vt->events.rows_get(INNER(b), uid, rids, n, ar, rows, found);
    for (size_t i = 0; !rc && i < n; i++)
        if (am__access_hides_rid(AS(b)->acc, rids[i])) found[i] = 0;
    return rc;
}

static int as_events_scan(am__store *b, const char *uid, const am__event_scan *q, am__arena *ar,
                          am__event_row **rows, size_t *n)
{
    int rc = INNER(b)->vt->events.events_scan(INNER(b), uid, q, ar, rows, n);
    if (!rc) rows_keep(AS(b)->acc, *rows, n);
    return rc;
}

static int as_vec_scan(am__store *b, const char *uid, const char *embedder_id, const float *q,
                       int dim, am_time to, int limit, int exact_max, am__arena *ar,
                       am__event_row **rows, size_t *n)
{
    int rc = INNER(b)->vt->vectors.vec_scan(INNER(b), uid, embedder_id, q, dim, to, limit,
                                            exact_max, ar, rows, n);
    if (!rc) rows_keep(AS(b)->acc, *rows, n);
    return rc;
}

/* (the events a PII value finds: those the rule hides left out) */
static int as_entities(am__store *b, const char *uid, const am__entity_read *q, am__arena *ar,
                       am__entity_out *out)
{
    int rc = INNER(b)->vt->events.entities(INNER(b), uid, q, ar, out);
    if (rc || q->what != AM__ENT_PII) return rc;
    size_t m = 0;
    for (size_t i = 0; i < out->n; i++)
        if (!am__access_hides_rid(AS(b)->acc, out->rids[i])) {
            out->rids[m] = out->rids[i];
            out->originals[m++] = out->originals[i];
        }
    out->n = m;
    return AM_OK;
}

/* (one task at a time, its log read only) */
static int as_tasks_list(am__store *b, const char *uid, const char *task_id, int open_only,
                         int limit, am__arena *ar, am__task_row **rows, size_t *n)
{
    if (!task_id) return AM_MISUSE;
    int rc = INNER(b)->vt->tasks.tasks_list(INNER(b), uid, task_id, open_only, limit, ar, rows, n);
    return rc ? rc : am__access_task(AS(b)->acc, ar, &(*rows)[0]);
}

static int as_task_log(am__store *b, const char *uid, const am__task_change_row *add,
                       const char *task_id, am__arena *ar, am__task_change_row **rows, size_t *n)
{
    if (add) return AM_MISUSE;
    int rc = INNER(b)->vt->tasks.task_log(INNER(b), uid, NULL, task_id, ar, rows, n);
    if (!rc) am__access_history(AS(b)->acc, *rows, n);
    return rc;
}

static int as_items_list(am__store *b, const char *uid, int which, am_time at, am__arena *ar,
                         am__item_row **rows, size_t *n)
{
    int rc = INNER(b)->vt->items.items_list(INNER(b), uid, which, at, ar, rows, n);
    if (rc || which == AM__ITEMS_SOURCES) return rc; /* (a version's provenance, whole) */
    size_t m = 0;
    for (size_t i = 0; i < *n; i++)
        if (am__access_item_visible(AS(b)->acc, (*rows)[i].kind, (*rows)[i].scope))
            (*rows)[m++] = (*rows)[i];
    *n = m;
    return AM_OK;
}

static int as_workspace_list(am__store *b, const char *uid, const char *task_id, am__arena *ar,
                             am__workspace_row **rows, size_t *n)
{
    return INNER(b)->vt->workspace.workspace_list(INNER(b), uid, task_id, ar, rows, n);
}

/* (rows the access rule let through already) */
/* (the archived events' whole texts read back; no move) */
static int as_cold_put(am__store *b, const char *uid, const am__cold_op *op, long *filled)
{
    if (op->kind != AM__COLD_FILL) return AM_MISUSE;
    return INNER(b)->vt->cold.cold_put(INNER(b), uid, op, filled);
}

static const am__store_vt access_vt = {
    .name = "access",
    .errmsg = as_errmsg,
    .tx.begin = as_begin,
    .tx.end = as_end,
    .users.user_stat = as_user_stat,
    .postings.user_rows = as_user_rows,
    .postings.term_docs = as_term_docs,
    .postings.postings = as_postings,
    .events.rows_get = as_rows_get,
    .events.events_scan = as_events_scan,
    .vectors.vec_scan = as_vec_scan,
    .events.entities = as_entities,
    .tasks.tasks_list = as_tasks_list,
    .tasks.task_log = as_task_log,
    .items.items_list = as_items_list,
    .workspace.workspace_list = as_workspace_list,
    .cold.cold_put = as_cold_put,
};

void am__access_store_init(am__access_store *p, am__store *inner, const am__access *acc)
{
    p->base.vt = &access_vt;
    p->base.on_step = NULL;
    p->base.step_ctx = NULL;
    p->inner = inner;
    p->acc = acc;
}
