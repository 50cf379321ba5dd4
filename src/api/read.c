/*
 * read.c -- am_recall and the other read-side entry points: task state,
 * memory listings, feedback, forgetting and export.  Results live in one
 * arena each and are released whole by their _free function.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/db_int.h"
#include "recall/recall.h"
#include "semantic/merge.h"
#include "text/entities.h"
#include "text/redact.h"

#define MAX_QSET 256
#define DEDUP_SET AM__TEXT_SET /* tokens compared when deduplicating the block */

/* ------------------------------------------------------------ conversion */

static void memory_from_row(am_memory *m, const am__item_row *r)
{
    m->id = r->id;
    m->lineage_id = r->lineage_id;
    m->scope = r->scope;
    m->kind = r->kind;
    m->key = r->key;
    m->text = r->text;
    m->value_json = r->value_json;
    m->status = r->status;
    m->confidence = r->confidence;
    m->base_score = r->base_score;
    m->half_life_days = r->half_life_days;
    m->hits = r->hits;
    m->last_access = r->last_access;
    m->valid_from = r->valid_from;
    m->valid_to = r->valid_to;
    m->recorded_at = r->recorded_at;
    m->superseded_at = r->superseded_at;
    m->source_event_ids = r->sources;
    m->n_sources = r->n_sources;
}

static void event_from_row(am_event_rec *e, const am__event_row *r)
{
    e->id = r->id;
    e->agent_id = r->agent_id;
    e->session_id = r->session_id;
    e->task_id = r->task_id;
    e->channel = r->channel;
    e->source = r->source;
    e->type = r->type;
    e->domain = r->domain;
    e->intent = r->intent;
    e->content = r->content;
    e->occurred_at = r->occurred_at;
    e->tz_minutes = r->tz_minutes;
    e->score = r->score;
}

/* ,"name": (every recall builds its JSON: no printf for the names, and
 * one append for the lot) */
static void json_name(am__buf *b, const char *name, int comma)
{
    char s[64];
    size_t n = strlen(name), k = 0;
    if (n > sizeof s - 4) n = sizeof s - 4; /* (names are short literals) */
    if (comma) s[k++] = ',';
    s[k++] = '"';
    memcpy(s + k, name, n);
    k += n;
    s[k++] = '"';
    s[k++] = ':';
    am__buf_add(b, s, k);
}

static void json_time(am__buf *b, const char *name, am_time t, int comma)
{
    char ts[32];
    json_name(b, name, comma);
    if (t == AM_TIME_NONE) am__buf_adds(b, "null");
    else am__buf_json_str(b, am__time_format(t, 0, ts));
}

static void json_kv(am__buf *b, const char *name, const char *v, int comma)
{
    json_name(b, name, comma);
    if (v) am__buf_json_str(b, v);
    else am__buf_adds(b, "null");
}

/* Raw JSON value (already JSON) or null. */
static void json_raw(am__buf *b, const char *name, const char *v, int comma)
{
    json_name(b, name, comma);
    am__buf_adds(b, v && *v ? v : "null");
}

/* ,"name":v with `decimals` digits ("%.3f"), no printf */
static void json_fixed(am__buf *b, const char *name, double v, int decimals)
{
    json_name(b, name, 1);
    am__buf_add_fixed(b, v, decimals);
}

static void json_memory(am__buf *b, const am_memory *m)
{
    am__buf_addc(b, '{');
    json_kv(b, "id", m->id, 0);
    json_kv(b, "lineage_id", m->lineage_id, 1);
    json_kv(b, "scope", m->scope, 1);
    json_kv(b, "kind", m->kind, 1);
    json_kv(b, "key", m->key, 1);
    json_kv(b, "text", m->text, 1);
    json_raw(b, "value", m->value_json, 1);
    json_kv(b, "status", m->status, 1);
    json_fixed(b, "confidence", m->confidence, 3);
    json_fixed(b, "base_score", m->base_score, 3);
    json_fixed(b, "half_life_days", m->half_life_days, 3);
    json_name(b, "hits", 1);
    am__buf_add_int(b, m->hits);
    json_time(b, "last_access", m->last_access, 1);
    json_time(b, "valid_from", m->valid_from, 1);
    json_time(b, "valid_to", m->valid_to, 1);
    json_time(b, "recorded_at", m->recorded_at, 1);
    json_time(b, "superseded_at", m->superseded_at, 1);
    am__buf_adds(b, ",\"source_event_ids\":[");
    for (size_t i = 0; i < m->n_sources; i++) {
        if (i) am__buf_addc(b, ',');
        am__buf_json_str(b, m->source_event_ids[i]);
    }
    am__buf_addc(b, ']');
    json_fixed(b, "score", m->score, 4);
    am__buf_addc(b, '}');
}

static void json_event(am__buf *b, const am_event_rec *e)
{
    char ts[32];
    am__buf_addc(b, '{');
    json_kv(b, "id", e->id, 0);
    json_kv(b, "agent", e->agent_id, 1);
    json_kv(b, "session", e->session_id, 1);
    json_kv(b, "task", e->task_id, 1);
    json_kv(b, "channel", e->channel, 1);
    json_kv(b, "source", e->source, 1);
    json_kv(b, "type", e->type, 1);
    json_kv(b, "domain", e->domain, 1);
    json_kv(b, "intent", e->intent, 1);
    json_kv(b, "content", e->content, 1);
    json_kv(b, "occurred_at", am__time_format(e->occurred_at, e->tz_minutes, ts), 1);
    json_fixed(b, "score", e->score, 4);
    am__buf_addc(b, '}');
}

static void json_task(am__buf *b, const am_task *t)
{
    am__buf_addc(b, '{');
    json_kv(b, "task_id", t->task_id, 0);
    json_kv(b, "name", t->name, 1);
    json_kv(b, "stage", t->stage, 1);
    json_kv(b, "status", t->status, 1);
    json_raw(b, "artifacts", t->artifacts_json, 1);
    json_raw(b, "pending", t->pending_json, 1);
    json_raw(b, "notes", t->notes_json, 1);
    json_time(b, "created_at", t->created_at, 1);
    json_time(b, "updated_at", t->updated_at, 1);
    am__buf_adds(b, ",\"history\":[");
    for (size_t i = 0; i < t->n_history; i++) {
        const am_task_change *c = &t->history[i];
        if (i) am__buf_addc(b, ',');
        am__buf_addc(b, '{');
        json_time(b, "at", c->at, 0);
        json_kv(b, "field", c->field, 1);
        json_kv(b, "old", c->old_value, 1);
        json_kv(b, "new", c->new_value, 1);
        json_kv(b, "event_id", c->event_id, 1);
        am__buf_addc(b, '}');
    }
    am__buf_adds(b, "]}");
}

/* Build a public task (in the arena) from a row and its history. */
static int task_build(am_db *db, const char *uid, am__arena *ar, const am__task_row *r,
                      am_task **out)
{
    am_task *t = am__arena_alloc(ar, sizeof *t);
    if (!t) return AM_NOMEM;
    t->task_id = r->task_id;
    t->name = r->name;
    t->stage = r->stage;
    t->status = r->status;
    t->artifacts_json = r->artifacts;
    t->pending_json = r->pending;
    t->notes_json = r->notes;
    t->created_at = r->created_at;
    t->updated_at = r->updated_at;
    am__task_change_row *h;
    size_t n;
    int rc = db->store->vt->task_history(db->store, uid, r->task_id, ar, &h, &n);
    if (rc) return rc;
    t->history = n ? am__arena_alloc(ar, n * sizeof *t->history) : NULL;
    if (n && !t->history) return AM_NOMEM;
    for (size_t i = 0; i < n; i++)
        t->history[i] = (am_task_change){h[i].at, h[i].field, h[i].old_value,
                                         h[i].new_value, h[i].event_id};
    t->n_history = n;
    *out = t;
    return AM_OK;
}

/* ------------------------------------------------------------ recall */

typedef struct recall_box {
    am_recall_result pub;
    am__arena ar;
    am__allocator alloc;
} recall_box;

void am_recall_free(am_recall_result *r)
{
    if (!r) return;
    recall_box *b = (recall_box *)r;
    am__allocator a = b->alloc;
    am__arena_free(&b->ar);
    am__free(&a, b);
}

/* Which task the turn is about: explicit > (continuation or not) the task
 * the lexical hits vote for > the session's current task. */
static int referenced_task(am_db *db, const char *uid, const am_query *q,
                           const am__event_row *cands, size_t n_cands,
                           am__arena *ar, am__task_row **out)
{
    am__store *s = db->store;
    const char *task_id = q->task_id;
    int rc;
    *out = NULL;
    if (!task_id && n_cands) {
        /* votes of the top candidates, weighted by score */
        double total = 0, best = 0;
        size_t top = n_cands < 10 ? n_cands : 10;
        for (size_t i = 0; i < top; i++) total += cands[i].score > 0 ? cands[i].score : 0;
        for (size_t i = 0; i < top; i++) {
            if (!cands[i].task_id) continue;
            double v = 0;
            for (size_t j = 0; j < top; j++)
                if (cands[j].task_id && cands[j].score > 0 &&
                    strcmp(cands[j].task_id, cands[i].task_id) == 0)
                    v += cands[j].score;
            if (v > best) { best = v; task_id = cands[i].task_id; }
        }
        if (total <= 0 || best < 0.5 * total) task_id = NULL;
    }
    if (!task_id && q->session_id) {
        am__event_row *rows;
        size_t n;
        if ((rc = s->vt->events_recent(s, uid, q->session_id, NULL, AM_TIME_NONE, 10, ar,
                                       &rows, &n)))
            return rc;
        for (size_t i = 0; i < n && !task_id; i++) task_id = rows[i].task_id;
    }
    if (!task_id) return AM_OK;
    am__task_row *t = am__arena_alloc(ar, sizeof *t);
    if (!t) return AM_NOMEM;
    rc = s->vt->task_get(s, uid, task_id, ar, t);
    if (rc == AM_NOTFOUND) return AM_OK;
    if (rc) return rc;
    *out = t;
    return AM_OK;
}

static int cmp_score(const void *a, const void *b)
{
    const am__event_row *x = a, *y = b;
    return x->score < y->score ? 1 : x->score > y->score ? -1 : 0;
}

/* Task relevance (F17, F20): the events of the referenced task's current
 * round (since it was last done or cancelled) join the candidates. */
static int add_task_events(am_db *db, const char *uid, const am__task_row *task, am_time at,
                           am__arena *ar, am__event_row **events, size_t *n_events)
{
    am__store *s = db->store;
    am__task_change_row *h;
    size_t nh;
    int rc = s->vt->task_history(s, uid, task->task_id, ar, &h, &nh);
    if (rc) return rc;
    am_time round_start = AM_TIME_NONE;
    for (size_t i = 0; i < nh; i++)
        if (strcmp(h[i].field, "status") == 0 && h[i].new_value &&
            (strcmp(h[i].new_value, "done") == 0 || strcmp(h[i].new_value, "cancelled") == 0) &&
            h[i].at <= at)
            round_start = h[i].at;
    am__event_row *rows;
    size_t n;
    if ((rc = s->vt->events_recent(s, uid, NULL, task->task_id, at, 40, ar, &rows, &n)))
        return rc;
    am__event_row *all = am__arena_alloc(ar, (*n_events + n + 1) * sizeof *all);
    if (!all) return AM_NOMEM;
    /* A one-off instruction of an earlier round ("这次用要点式") is stale:
     * it is not shown again, not even as a relevant event. */
    size_t m = 0;
    for (size_t i = 0; i < *n_events; i++) {
        int stale = 0;
        for (size_t k = 0; k < nh && !stale && round_start != AM_TIME_NONE; k++)
            stale = strcmp(h[k].field, "note") == 0 && h[k].at <= round_start && h[k].event_id &&
                    strcmp(h[k].event_id, (*events)[i].id) == 0;
        if (!stale) all[m++] = (*events)[i];
    }
    for (size_t i = 0; i < n; i++) {
        if (round_start != AM_TIME_NONE && rows[i].occurred_at <= round_start) continue;
        double bonus = 0.5 - 0.005 * (double)i; /* newest first */
        size_t k;
        for (k = 0; k < m; k++)
            if (strcmp(all[k].id, rows[i].id) == 0) break;
        if (k < m) all[k].score = all[k].score < 0 ? bonus : all[k].score + bonus;
        else {
            all[m] = rows[i];
            all[m++].score = bonus;
        }
    }
    if (m > 1) qsort(all, m, sizeof *all, cmp_score);
    *events = all;
    *n_events = m;
    return AM_OK;
}

/* F16 fusion: the vector neighbours of the query join the lexical
 * candidates; score = (1 - w) x lexical + w x cosine / best cosine. */
static int fuse_vectors(am_db *db, const char *uid, const char *text, am_time as_of, int limit,
                        am__arena *ar, am__event_row **events, size_t *n_events)
{
    const am_rank_config *r = &db->cfg.rank;
    am__embedder *e = db->embedder;
    float *qv = am__arena_alloc(ar, (size_t)e->dim * sizeof *qv);
    if (!qv) return AM_NOMEM;
    char eerr[256];
    const char *texts[1] = {text};
    int rc = e->embed(e, texts, 1, qv, eerr, sizeof eerr);
    if (rc) return am__db_error(db, rc, "recall: embedder: %s", eerr);
    am__event_row *vrows;
    size_t nv;
    rc = db->store->vt->vec_scan(db->store, uid, e->id, qv, e->dim,
                                 as_of != AM_TIME_NONE ? as_of + 1 : AM_TIME_NONE, limit,
                                 r->vector_exact_max, ar, &vrows, &nv);
    if (rc) return rc;
    double best = 0;
    for (size_t i = 0; i < nv; i++)
        if (vrows[i].score > best) best = vrows[i].score;
    if (best <= 0) return AM_OK;
    am__event_row *all = am__arena_alloc(ar, (*n_events + nv + 1) * sizeof *all);
    if (!all) return AM_NOMEM;
    size_t m = *n_events;
    if (m) memcpy(all, *events, m * sizeof *all);
    double w = r->w_vector;
    /* Linear: scores scaled to the best of each list.  Reciprocal rank
     * (rrf_k > 0): ranks only, (1 - w) / (k + rank) and w / (k + rank),
     * scaled so that first in both lists scores 1; events below the
     * relevance floor (negative) stay there unless the vectors find them. */
    double k = r->rrf_k, top = k > 0 ? 1.0 / (k + 1) : 1.0;
    if (k > 0 && nv > 1) qsort(vrows, nv, sizeof *vrows, cmp_score); /* ranks */
    for (size_t i = 0, rank = 0; i < m; i++)
        if (all[i].score > 0) all[i].score = k > 0 ? (1 - w) / (k + ++rank) / top : all[i].score * (1 - w);
    for (size_t i = 0, rank = 0; i < nv; i++) {
        double v = vrows[i].score / best;
        if (v <= 0) continue;
        if (k > 0) v = 1.0 / (k + ++rank) / top;
        size_t k;
        for (k = 0; k < *n_events && all[k].rid != vrows[i].rid; k++) {}
        if (k < *n_events) all[k].score = all[k].score < 0 ? w * v : all[k].score + w * v;
        else {
            all[m] = vrows[i];
            all[m++].score = w * v;
        }
    }
    if (m > 1) qsort(all, m, sizeof *all, cmp_score);
    *events = all;
    *n_events = m;
    return AM_OK;
}

static int scope_visible(const char *scope, const am_query *q, const am__task_row *task,
                         int domain_conflict)
{
    if (!scope || strcmp(scope, "global") == 0) return 1;
    if (strncmp(scope, "domain:", 7) == 0)
        return domain_conflict || (q->domain && strcmp(scope + 7, q->domain) == 0);
    if (strncmp(scope, "task:", 5) == 0) return task && strcmp(scope + 5, task->task_id) == 0;
    return 0;
}

/* Add the query terms of text not already among *terms, with weight w
 * (the existing terms keep theirs; NULL weights = all 1). */
static int add_terms(am_db *db, am__arena *ar, const char *text, double w,
                     const char ***terms, const double **weights, size_t *nt)
{
    const char **more;
    size_t nm, n = *nt;
    int rc = am__query_terms(db->text, text, ar, &more, &nm);
    if (rc) return rc;
    const char **all = am__arena_alloc(ar, (n + nm + 1) * sizeof *all);
    double *wt = am__arena_alloc(ar, (n + nm + 1) * sizeof *wt);
    if (!all || !wt) return AM_NOMEM;
    memcpy(all, *terms, n * sizeof *all);
    for (size_t i = 0; i < n; i++) wt[i] = *weights ? (*weights)[i] : 1.0;
    for (size_t i = 0; i < nm; i++) {
        size_t k;
        for (k = 0; k < n && strcmp(all[k], more[i]) != 0; k++) {}
        if (k == n) {
            wt[n] = w;
            all[n++] = more[i];
        }
    }
    *terms = all;
    *weights = wt;
    *nt = n;
    return AM_OK;
}

/* The search terms of a text: its own (weight 1), its synonyms and
 * near-words, then the narrower words of its broad ones (F21).  qnorm:
 * the text normalised, when the caller has it (NULL: normalised here).
 * qset: the text's token set (at most MAX_QSET, *nq) from the same
 * analysis, when asked for (NULL: not). */
static int text_terms(am_db *db, am__arena *ar, const char *text, size_t n, const char *qnorm,
                      size_t qnorm_len, const char ***terms, const double **weights, size_t *nt,
                      uint64_t *qset, size_t *nq)
{
    am__buf norm, expansion, narrow;
    am__buf_init(&norm, &db->alloc);
    am__buf_init(&expansion, &db->alloc);
    am__buf_init(&narrow, &db->alloc);
    const char *own = am__arena_strndup(ar, text, n);
    int rc = !own ? AM_NOMEM : qnorm ? AM_OK : am__text_normalize(db->text, text, n, &norm);
    if (!qnorm) {
        qnorm = norm.p ? norm.p : "";
        qnorm_len = norm.len;
    }
    if (!rc) rc = am__expand_query(qnorm, qnorm_len, &expansion, &narrow);
    const char *expanded = rc || !expansion.len ? NULL : am__arena_strndup(ar, expansion.p, expansion.len);
    const char *narrower = rc || !narrow.len ? NULL : am__arena_strndup(ar, narrow.p, narrow.len);
    if (!rc && ((expansion.len && !expanded) || (narrow.len && !narrower))) rc = AM_NOMEM;
    am__buf_free(&norm);
    am__buf_free(&expansion);
    am__buf_free(&narrow);
    *weights = NULL;
    if (!rc) rc = am__query_terms_set(db->text, own, ar, terms, nt, qset, MAX_QSET, nq);
    if (!rc && expanded) rc = add_terms(db, ar, expanded, AM__EXPANSION_WEIGHT, terms, weights, nt);
    if (!rc && narrower)
        rc = add_terms(db, ar, narrower, AM__HYPONYM_WEIGHT, terms, weights, nt);
    return rc;
}

/* The clauses of a compound question ("上司是做什么的？另外，论坛在哪？",
 * "Where does she work? And how old is she?"): its sentences, when there
 * are 2..AM__MAX_CLAUSES of them and the whole is one short line (a
 * dialogue or a pasted paragraph is not a compound question). */
#define AM__MAX_CLAUSES 3
#define AM__CLAUSE_MAX_TOKENS 160
typedef struct clauses {
    const char *p[AM__MAX_CLAUSES + 1];
    size_t n[AM__MAX_CLAUSES + 1];
    size_t count;
    int quoted; /* quotation marks left open by the last one */
} clauses;

/* Quotation marks a text leaves open: '"' toggles; “ 「 『 open and ” 」 』
 * close. */
static int quotes_open(const char *s, size_t n, int open)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"') open = open > 0 ? open - 1 : open + 1;
        else if (i + 2 < n && c == 0xE2 && (unsigned char)s[i + 1] == 0x80) {
            if ((unsigned char)s[i + 2] == 0x9C) open++;
            else if ((unsigned char)s[i + 2] == 0x9D && open > 0) open--;
        } else if (i + 2 < n && c == 0xE3 && (unsigned char)s[i + 1] == 0x80) {
            unsigned char d = (unsigned char)s[i + 2];
            if (d == 0x8C || d == 0x8E) open++;
            else if ((d == 0x8D || d == 0x8F) && open > 0) open--;
        }
    }
    return open;
}

static int clause_cb(void *ctx, const char *s, size_t n)
{
    clauses *c = ctx;
    /* a sentence that ends inside a quotation ("主要内容是"…。"的活动") goes
     * on with the next one */
    if (c->quoted && c->count && c->count <= AM__MAX_CLAUSES + 1) {
        size_t k = c->count - 1;
        if (k <= AM__MAX_CLAUSES) c->n[k] = (size_t)(s + n - c->p[k]);
        c->quoted = quotes_open(s, n, c->quoted);
        return 0;
    }
    c->quoted = quotes_open(s, n, 0);
    if (c->count <= AM__MAX_CLAUSES) {
        c->p[c->count] = s;
        c->n[c->count] = n;
    }
    c->count++;
    return 0;
}

/* A clause's condition (recall/expand.c am__query_condition: "那个联系
 * 电话是13228788707的人", "the person whose phone number is 555 0134") is
 * a part of the question searched on its own, like a clause: the turn that
 * states the fact ranks near the top (one of a kind, where the question's
 * other words match many turns) and bridges to the answer.  Its value's
 * words count 1, its attribute's (said of everything that has one)
 * AM__COND_ATTR. */
#define AM__MAX_PARTS (2 * AM__MAX_CLAUSES) /* clauses and their conditions */
#define AM__COND_ATTR 0.3

/* Which part (clause or condition) each candidate answers best (by row
 * id). */
typedef struct clause_homes {
    int64_t *rid;
    unsigned char *home;
    size_t n, clauses;
    /* each part's question terms for the two-hop search (a condition's:
     * its clause's; weights NULL: all 1) */
    const char **terms[AM__MAX_PARTS];
    const double *weights[AM__MAX_PARTS];
    size_t nt[AM__MAX_PARTS];
} clause_homes;

/* The search terms of a condition: its value's at 1 (the first *nv),
 * its attribute's at AM__COND_ATTR (x their own weights). */
static int condition_terms(am_db *db, am__arena *ar, const char *p, size_t n, size_t value,
                           const char ***terms, const double **weights, size_t *nt, size_t *nv)
{
    int rc = text_terms(db, ar, p + value, n - value, NULL, 0, terms, weights, nt, NULL, NULL);
    *nv = rc ? 0 : *nt;
    if (rc || value == 0) return rc;
    const char **at;
    const double *aw;
    size_t na;
    if ((rc = text_terms(db, ar, p, value, NULL, 0, &at, &aw, &na, NULL, NULL))) return rc;
    const char **all = am__arena_alloc(ar, (*nt + na + 1) * sizeof *all);
    double *wt = am__arena_alloc(ar, (*nt + na + 1) * sizeof *wt);
    if (!all || !wt) return AM_NOMEM;
    size_t m = *nt;
    memcpy(all, *terms, m * sizeof *all);
    for (size_t i = 0; i < m; i++) wt[i] = *weights ? (*weights)[i] : 1.0;
    for (size_t i = 0; i < na; i++) {
        size_t k;
        for (k = 0; k < m && strcmp(all[k], at[i]) != 0; k++) {}
        if (k < m) continue;
        wt[m] = AM__COND_ATTR * (aw ? aw[i] : 1.0);
        all[m++] = at[i];
    }
    *terms = all;
    *weights = wt;
    *nt = m;
    return AM_OK;
}

/* Compound questions: each clause is searched on its own too, and a
 * candidate keeps its best score relative to the best of each search
 * (scaled back to the whole question's), so one clause's many strong
 * matches ("金融科技精英论坛" x 6) cannot push the other clause's answer
 * out of the list; *homes records the clause each candidate answers best
 * (for interleave_clauses). */
static int search_clauses(am_db *db, const char *uid, const char *text, size_t n,
                          const clauses *asks, am_time to, int limit, am__arena *ar,
                          am__event_row **events, size_t *n_events, clause_homes *homes)
{
    const am_rank_config *r = &db->cfg.rank;
    am__store *s = db->store;
    clauses c;
    memset(&c, 0, sizeof c);
    if (asks && asks->count >= 2) {
        c = *asks;
    } else {
        if (am__text_tokens_estimate(text, n) > AM__CLAUSE_MAX_TOKENS || memchr(text, '\n', n))
            return AM_OK; /* several lines: a transcript, not one compound question */
        am__text_sentences(text, n, clause_cb, &c);
    }
    if (c.count < 1 || c.count > AM__MAX_CLAUSES || *n_events == 0) return AM_OK;
    /* the clauses, then their conditions */
    const char *pp[AM__MAX_PARTS];
    size_t pn[AM__MAX_PARTS], pv[AM__MAX_PARTS], parent[AM__MAX_PARTS], parts = c.count;
    for (size_t k = 0; k < c.count; k++) {
        pp[k] = c.p[k];
        pn[k] = c.n[k];
        pv[k] = 0;
        parent[k] = k;
    }
    for (size_t k = 0; k < c.count && r->conditions > 0; k++) {
        size_t f, t, v;
        if (!am__query_condition(c.p[k], c.n[k], &f, &t, &v)) continue;
        pp[parts] = c.p[k] + f;
        pn[parts] = t - f;
        pv[parts] = v - f;
        parent[parts++] = k;
    }
    if (parts < 2) return AM_OK;
    size_t cap = *n_events + parts * (size_t)limit + 1;
    homes->rid = am__arena_alloc(ar, cap * sizeof *homes->rid);
    homes->home = am__arena_alloc(ar, cap);
    double *homeval = am__arena_alloc(ar, cap * sizeof *homeval);
    if (!homes->rid || !homes->home || !homeval) return AM_NOMEM;
    for (size_t i = 0; i < *n_events; i++) {
        homes->rid[i] = (*events)[i].rid;
        homes->home[i] = 0;
        homeval[i] = 0;
    }
    homes->n = *n_events;
    homes->clauses = c.count; /* and each condition searched, below */
    double best = 0;
    for (size_t i = 0; i < *n_events; i++)
        if ((*events)[i].score > best) best = (*events)[i].score;
    if (best <= 0) return AM_OK;
    /* a question of one clause is that clause: the whole question's
     * search is its own */
    if (c.count == 1)
        for (size_t i = 0; i < *n_events; i++) homeval[i] = (*events)[i].score;
    for (size_t q = 0; q < parts; q++) {
        const char **terms;
        const double *weights;
        size_t nt, nv = 0, k = q < c.count ? q : homes->clauses; /* k: its place in homes */
        int rc = q < c.count ? text_terms(db, ar, pp[q], pn[q], NULL, 0, &terms, &weights, &nt, NULL, NULL)
                             : condition_terms(db, ar, pp[q], pn[q], pv[q], &terms, &weights, &nt, &nv);
        if (rc) return rc;
        homes->terms[k] = q < c.count ? terms : homes->terms[parent[q]];
        homes->weights[k] = q < c.count ? weights : homes->weights[parent[q]];
        homes->nt[k] = q < c.count ? nt : homes->nt[parent[q]];
        am__event_row *part;
        size_t np;
        if (nt == 0 || (c.count == 1 && q == 0)) continue;
        am__search_stats st = {0, 0, am__arena_alloc(ar, (nt + 1) * sizeof *st.df), 0};
        if (!st.df) return AM_NOMEM;
        rc = s->vt->events_search(s, uid, terms, weights, nt, r->w_context, AM_TIME_NONE, to,
                                  limit, ar, &part, &np, q < c.count ? NULL : &st);
        if (rc) return rc;
        if (q >= c.count) {
            /* a condition whose value no turn holds (a redacted phone
             * number, a name never mentioned) finds nothing of its own */
            double held = 0;
            for (size_t t = 0; t < nv && st.valid; t++) held += st.df[t];
            if (st.valid && held == 0) continue;
            homes->clauses++;
        }
        double pbest = 0;
        for (size_t i = 0; i < np; i++)
            if (part[i].score > pbest) pbest = part[i].score;
        if (pbest <= 0) continue;
        am__event_row *all = am__arena_alloc(ar, (*n_events + np + 1) * sizeof *all);
        if (!all) return AM_NOMEM;
        memcpy(all, *events, *n_events * sizeof *all);
        size_t m = *n_events;
        for (size_t i = 0; i < np && m < cap; i++) {
            double v = best * part[i].score / pbest;
            size_t j;
            for (j = 0; j < *n_events && all[j].rid != part[i].rid; j++) {}
            if (j < *n_events) {
                if (v > all[j].score) all[j].score = v;
            } else {
                j = m;
                all[m] = part[i];
                all[m++].score = v;
                homes->rid[j] = part[i].rid;
                homes->home[j] = (unsigned char)k;
                homeval[j] = v;
                homes->n = m;
            }
            if (v > homeval[j]) {
                homeval[j] = v;
                homes->home[j] = (unsigned char)k;
            }
        }
        *events = all;
        *n_events = m;
    }
    return AM_OK;
}

/* Compound questions, after ranking: the candidates take turns by the
 * clause they answer best (the best of clause 1, of clause 2, then the
 * second best of each, ...), so every clause has its answer at the top
 * even when another clause has many near-equal matches.  The ones above
 * the relevance floor and those below it are interleaved apart; scores
 * are lowered where needed to stay in order. */
static int interleave_clauses(const clause_homes *h, am__arena *ar, am__event_row *rows,
                              size_t n)
{
    if (h->clauses < 2 || n < 2) return AM_OK;
    am__event_row *out = am__arena_alloc(ar, n * sizeof *out);
    unsigned char *cls = am__arena_alloc(ar, n);
    unsigned char *used = am__arena_alloc(ar, n);
    if (!out || !cls || !used) return AM_NOMEM;
    for (size_t i = 0; i < n; i++) {
        cls[i] = 0;
        used[i] = 0;
        for (size_t j = 0; j < h->n; j++)
            if (h->rid[j] == rows[i].rid) { cls[i] = h->home[j]; break; }
    }
    size_t w = 0, floor = 0;
    while (floor < n && rows[floor].score >= 0) floor++;
    size_t ranges[2][2] = {{0, floor}, {floor, n}};
    for (int g = 0; g < 2; g++) {
        size_t a = ranges[g][0], b = ranges[g][1], left = b - a, next[AM__MAX_PARTS];
        for (size_t k = 0; k < h->clauses; k++) next[k] = a;
        while (left) {
            for (size_t k = 0; k < h->clauses && left; k++) {
                while (next[k] < b && (used[next[k]] || cls[next[k]] != k)) next[k]++;
                if (next[k] == b) continue;
                used[next[k]] = 1;
                out[w] = rows[next[k]];
                /* just below the one before (not a tie: a later sort,
                 * such as the vector fusion's, must keep this order) */
                if (w && out[w].score >= out[w - 1].score && (out[w].score >= 0) == (out[w - 1].score >= 0))
                    out[w].score = out[w - 1].score - fabs(out[w - 1].score) * 1e-9;
                w++;
                left--;
            }
        }
    }
    memcpy(rows, out, n * sizeof *rows);
    return AM_OK;
}

/* Two-hop search (bridging).  A question that names a thing by one of
 * its facts and asks another ("那个规模是六百人的活动，持续时间是什么？",
 * "the woman who plays the cello, where does she live?") is answered by
 * two turns, and only the first (the bridge: "医疗创新研讨会的规模是六百人")
 * shares the question's words.  The top candidates are taken as bridges;
 * for each, its own words that the question lacks (the thing's name) at
 * weight 1 and the question's words that it lacks (what is asked) at
 * AM__BRIDGE_REST are searched again -- one search for all the bridges,
 * each term once (measured: MemDaily's sample 0.660 @10 against 0.661
 * with a search per bridge, 6 % fewer instructions a LoCoMo recall).  A
 * hit of that search scores the bridge's score x w_bridge x its coverage
 * of the bridge's words (their idf-weighted share it contains), x
 * AM__BRIDGE_NO_ASK when it contains none of the words the question asks
 * (its remaining words, not a single Han character); it joins the
 * candidates (or rises to that score).  A bridge takes AM__BRIDGE_HITS
 * hits: those that lead with its name (below) first, then those holding an
 * asked word, then the rest, each in the search's order ("我将要参加电影
 * 动作健身汇。" is shorter than "电影动作健身汇的主要内容是…" and ranks
 * above it, but asks nothing: MemDaily 0.682 -> 0.687 @10).  A bridge is
 * a short statement: one whose own words are more than
 * AM__BRIDGE_MAX_UNITS (bigrams, words, numbers) is an answer in itself,
 * and a hit that covers under AM__BRIDGE_MIN_COVER of
 * its words is about something else.
 *
 * A hit that leads with the bridge's name -- its first word the question
 * lacks is one of the bridge's own, not the bridge's first, with at least
 * AM__BRIDGE_LEAD_IDF of the rarest one's idf -- and is a description
 * (AM__BRIDGE_LEAD_BYTES or longer) is about the thing the bridge names
 * ("我刚才路过的那个公园叫荔枝公园。" -> "荔枝公园真是太不错了，就在闹市区
 * 里…" for "我路过的公园怎么样？"): it is taken first and scored as if it
 * covered the bridge and held an asked word, unless another hit holds a
 * word the question asks (then that is what is asked: "持续时间"). */
#define AM__BRIDGE_REST 0.5      /* weight of the question's remaining words */
#define AM__BRIDGE_HITS 2        /* hits taken per bridge */
#define AM__BRIDGE_SEARCH 20     /* rows of the second search */
#define AM__BRIDGE_MAX_UNITS 12  /* a longer bridge is an answer, not a pointer */
#define AM__BRIDGE_MIN_COVER 0.5 /* share of the bridge's words a hit must hold */
#define AM__BRIDGE_NO_ASK 0.6    /* a hit with none of the question's other words */
#define AM__BRIDGE_LEAD_IDF 0.8  /* a leading name's idf, of the bridge's rarest (0.5: chat turns lead with any word) */
#define AM__BRIDGE_LEAD_BYTES 90 /* a description (30 Han characters) */
#define AM__TOLD_MAX 16          /* told forms of the asked attributes searched */
/* In a long history (over 2,000 rows, where a search reads its terms'
 * frequencies first) the second search leaves out terms in more than 1 %
 * of the rows: a hit must hold half of the bridge's idf-weighted words,
 * which its rare ones (the name) carry, while "主管", "下周" in 4 % of
 * 10,000 rows cost a walk of 400 rows each.  Measured at 100 x 10,000
 * (synth): recall p95 26-30 -> 14-18 ms CPU in alternated runs, every
 * needle still first; shorter histories are searched whole. */
#define AM__BRIDGE_MAX_SHARE 0.01

/* A Han unigram or bigram of (or with) a function character: "的", "会的",
 * "是四" -- it names nothing. */
static int function_token(const char *tok)
{
    static const char *const fn[] = {"的", "是", "了", "在", "和", "与", "也", "就", "都", "我",
                                     "你", "他", "她", "它", "们", "这", "那", "之", "其", "呢",
                                     "吗", "吧", "啊", "着", NULL};
    size_t n = strlen(tok);
    if (n != 3 && n != 6) return 0;
    for (size_t k = 0; k < n; k += 3)
        for (size_t i = 0; fn[i]; i++)
            if (memcmp(tok + k, fn[i], 3) == 0) return 1;
    return 0;
}

/* A word of the question that says what is asked: not a function token
 * and not a single Han character (the "要" of "主要内容" is also the "要"
 * of "我将要参加…", which asks nothing). */
static int asked_word(const char *tok)
{
    if (function_token(tok)) return 0;
    return !(strlen(tok) == 3 && (unsigned char)tok[0] >= 0xE0);
}

/* The second search's terms for a bridge: its own words the question
 * lacks (*n_own of them, first) and the question's words it lacks.
 * *nt = 0 when it has no words of its own or is too long to be a bridge. */
static int bridge_terms(am_db *db, am__arena *ar, const char *content, const char *const *qt,
                        const double *qw, size_t nq, const char ***terms, double **weights,
                        size_t *nt, size_t *n_own, size_t *first_unit, size_t *n_told_out)
{
    const char **bt;
    const unsigned char *kind;
    size_t nb;
    *nt = *n_own = *n_told_out = 0;
    *first_unit = SIZE_MAX;
    int rc = am__query_terms_kinds(db->text, content, ar, &bt, &kind, &nb);
    if (rc) return rc;
    const char **all = am__arena_alloc(ar, (nb + nq + AM__TOLD_MAX + 1) * sizeof *all);
    double *wt = am__arena_alloc(ar, (nb + nq + AM__TOLD_MAX + 1) * sizeof *wt);
    if (!all || !wt) return AM_NOMEM;
    size_t n = 0, units = 0;
    for (size_t i = 0; i < nb; i++) {
        size_t k;
        for (k = 0; k < nq && strcmp(qt[k], bt[i]) != 0; k++) {}
        if (k < nq || function_token(bt[i])) continue;
        wt[n] = 1.0;
        int unit = kind[i] == AM_TOK_BIGRAM || kind[i] == AM_TOK_WORD || kind[i] == AM_TOK_NUM;
        if (unit && *first_unit == SIZE_MAX) *first_unit = n;
        all[n++] = bt[i];
        units += unit;
    }
    if (n == 0 || units > AM__BRIDGE_MAX_UNITS) return AM_OK;
    *n_own = n;
    /* the asked attribute as it is told (recall/expand.c am__told_forms;
     * last, each at AM__BRIDGE_REST:
     * one the question also holds, as an expansion at a lower weight,
     * moves there) */
    size_t n_told = 0;
    const char *told[AM__TOLD_MAX];
    for (size_t k = 0; k < nq; k++) {
        const char *const *forms = qw && qw[k] < 1.0 ? NULL : am__told_forms(qt[k]);
        for (size_t f = 0; forms && forms[f] && n_told < AM__TOLD_MAX; f++) {
            size_t j;
            for (j = 0; j < n_told && strcmp(told[j], forms[f]) != 0; j++) {}
            if (j == n_told) told[n_told++] = forms[f];
        }
    }
    for (size_t k = 0; k < nq; k++) {
        size_t i;
        for (i = 0; i < nb && strcmp(qt[k], bt[i]) != 0; i++) {}
        if (i < nb) continue;
        for (i = 0; i < n_told && strcmp(qt[k], told[i]) != 0; i++) {}
        if (i < n_told) continue;
        wt[n] = AM__BRIDGE_REST * (qw ? qw[k] : 1.0);
        all[n++] = qt[k];
    }
    for (size_t j = 0; j < n_told; j++) {
        size_t k;
        for (k = 0; k < n && strcmp(all[k], told[j]) != 0; k++) {}
        if (k < n) continue; /* one of the bridge's own words */
        wt[n] = AM__BRIDGE_REST;
        all[n++] = told[j];
        (*n_told_out)++;
    }
    *terms = all;
    *weights = wt;
    *nt = n;
    return AM_OK;
}

static int set_has(const uint64_t *set, size_t n, uint64_t h)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (set[mid] < h) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && set[lo] == h;
}

/* The hit's leading word: the first unit (bigram, word, number) of its
 * first 48 bytes that the question lacks; *t = its place among the bridge's
 * own words (terms[0..n_own)), n_own when it is none of them. */
static int hit_lead(am_db *db, am__arena *ar, const char *content, const char *const *qt,
                    size_t nq, const char *const *terms, size_t n_own, size_t *t)
{
    size_t n = strlen(content), cut = n < 48 ? n : 48;
    while (cut < n && ((unsigned char)content[cut] & 0xC0) == 0x80) cut--;
    char *head = am__arena_alloc(ar, cut + 1);
    if (!head) return AM_NOMEM;
    memcpy(head, content, cut);
    head[cut] = 0;
    const char **ht;
    const unsigned char *kind;
    size_t nh;
    *t = n_own;
    int rc = am__query_terms_kinds(db->text, head, ar, &ht, &kind, &nh);
    if (rc) return rc;
    for (size_t i = 0; i < nh; i++) {
        if (kind[i] != AM_TOK_BIGRAM && kind[i] != AM_TOK_WORD && kind[i] != AM_TOK_NUM &&
            kind[i] != AM_TOK_CJKWORD)
            continue;
        if (function_token(ht[i])) continue;
        size_t k;
        for (k = 0; k < nq && strcmp(qt[k], ht[i]) != 0; k++) {}
        if (k < nq) continue;
        for (k = 0; k < n_own && strcmp(terms[k], ht[i]) != 0; k++) {}
        *t = k;
        return AM_OK;
    }
    return AM_OK;
}

/* qt / qw / nq: the question's terms (a compound question's bridge uses
 * its own clause's, from h). */
static int search_bridges(am_db *db, const char *uid, const char *const *qt, const double *qw,
                          size_t nq, const clause_homes *h, am_time to, am__arena *ar,
                          am__event_row **events, size_t *n_events)
{
    const am_rank_config *r = &db->cfg.rank;
    am__store *s = db->store;
    if (r->bridges <= 0 || r->w_bridge <= 0 || *n_events == 0) return AM_OK;
    size_t nb = (size_t)r->bridges * (h->clauses > 1 ? h->clauses : 1);
    if (nb > *n_events) nb = *n_events;
    am__event_row *base = *events;
    size_t m = *n_events;
    am__event_row *all = am__arena_alloc(ar, (m + nb * AM__BRIDGE_HITS + 1) * sizeof *all);
    /* each bridge's terms; then one search for all of them (each term
     * once: a bridge's own words at 1, the question's at AM__BRIDGE_REST),
     * as deep as the searches of each would be together */
    typedef struct bridge {
        const char **terms;
        double *weights;
        const char *const *qt;
        size_t nq;
        size_t nt, n_own, first_unit, n_told, *at; /* at[t]: the term's place in the search */
    } bridge;
    bridge *br = am__arena_alloc(ar, (nb + 1) * sizeof *br);
    const char **st_terms = NULL;
    double *st_w = NULL;
    size_t st_n = 0, st_cap = 0, used = 0;
    if (!all || !br) return AM_NOMEM;
    memcpy(all, base, m * sizeof *all);
    for (size_t b = 0; b < nb; b++) {
        bridge *x = &br[b];
        memset(x, 0, sizeof *x);
        if (base[b].score <= 0 || !base[b].content) continue;
        const char *const *ct = qt;
        const double *cw = qw;
        size_t nc = nq;
        for (size_t j = 0; j < h->n && h->clauses > 1; j++)
            if (h->rid[j] == base[b].rid) {
                ct = h->terms[h->home[j]];
                cw = h->weights[h->home[j]];
                nc = h->nt[h->home[j]];
                break;
            }
        int rc = bridge_terms(db, ar, base[b].content, ct, cw, nc, &x->terms, &x->weights, &x->nt,
                              &x->n_own, &x->first_unit, &x->n_told);
        if (rc) return rc;
        if (x->nt == 0) continue;
        x->qt = ct;
        x->nq = nc;
        if (!(x->at = am__arena_alloc(ar, (x->nt + 1) * sizeof *x->at))) return AM_NOMEM;
        for (size_t t = 0; t < x->nt; t++) {
            size_t k;
            for (k = 0; k < st_n && strcmp(st_terms[k], x->terms[t]) != 0; k++) {}
            if (k == st_n) {
                if (st_n == st_cap) {
                    size_t cap = st_cap ? 2 * st_cap : 64;
                    const char **nt2 = am__arena_alloc(ar, cap * sizeof *nt2);
                    double *nw2 = am__arena_alloc(ar, cap * sizeof *nw2);
                    if (!nt2 || !nw2) return AM_NOMEM;
                    if (st_n) {
                        memcpy(nt2, st_terms, st_n * sizeof *nt2);
                        memcpy(nw2, st_w, st_n * sizeof *nw2);
                    }
                    st_terms = nt2;
                    st_w = nw2;
                    st_cap = cap;
                }
                st_terms[st_n] = x->terms[t];
                st_w[st_n++] = x->weights[t];
            } else if (x->weights[t] > st_w[k]) {
                st_w[k] = x->weights[t];
            }
            x->at[t] = k;
        }
        used++;
    }
    if (!used) return AM_OK;
    am__event_row *hop;
    size_t nh;
    am__search_stats st = {0, 0, am__arena_alloc(ar, (st_n + 1) * sizeof *st.df),
                           AM__BRIDGE_MAX_SHARE};
    if (!st.df) return AM_NOMEM;
    int rc = s->vt->events_search(s, uid, st_terms, st_w, st_n, 0.0, AM_TIME_NONE, to,
                                  AM__BRIDGE_SEARCH * (int)used, ar, &hop, &nh, &st);
    if (rc) return rc;
    /* the hits' token sets, when first looked at (through the cache of
     * texts' sets: the block's dedup asks for the same turns) */
    uint64_t (*hset)[AM__TEXT_SET] = am__arena_alloc(ar, (nh + 1) * sizeof *hset);
    size_t *hn = am__arena_alloc(ar, (nh + 1) * sizeof *hn);
    if (!hset || !hn) return AM_NOMEM;
    for (size_t i = 0; i < nh; i++) hn[i] = SIZE_MAX;
    for (size_t b = 0; b < nb; b++) {
        bridge *x = &br[b];
        if (x->nt == 0) continue;
        const char **terms = (const char **)x->terms;
        const double *weights = x->weights;
        size_t nt = x->nt, n_own = x->n_own;
        uint64_t *th = am__arena_alloc(ar, (nt + 1) * sizeof *th);
        double *idf = am__arena_alloc(ar, (n_own + 1) * sizeof *idf);
        if (!th || !idf) return AM_NOMEM;
        double total = 0;
        for (size_t t = 0; t < nt; t++) {
            th[t] = am__hash64(terms[t], strlen(terms[t]));
            if (t >= n_own) continue;
            double df = st.valid ? st.df[x->at[t]] : 1, n_docs = st.valid ? st.n_docs : 2;
            idf[t] = log(1.0 + (n_docs - df + 0.5) / (df + 0.5));
            total += idf[t];
        }
        if (total <= 0) continue;
        /* hits that lead with the bridge's name (a rare word of its
         * own, not its first) and describe it at length; none when
         * another hit holds a word the question asks */
        int taken = 0, leads = 0;
        double top = 0;
        for (size_t t = 0; t < n_own; t++)
            if (idf[t] > top) top = idf[t];
        unsigned char *lead = am__arena_alloc(ar, nh + 1);
        if (!lead) return AM_NOMEM;
        for (size_t i = 0; i < nh; i++) {
            lead[i] = 0;
            if (hop[i].rid == base[b].rid || !hop[i].content ||
                strlen(hop[i].content) < AM__BRIDGE_LEAD_BYTES)
                continue;
            size_t t;
            if ((rc = hit_lead(db, ar, hop[i].content, x->qt, x->nq, terms, n_own, &t))) return rc;
            lead[i] = t < n_own && t != x->first_unit && idf[t] >= AM__BRIDGE_LEAD_IDF * top;
            leads += lead[i];
        }
        int found = 0;
        for (size_t i = 0; i < nh && leads && !found; i++) {
            if (hop[i].rid == base[b].rid || !hop[i].content) continue;
            if (hn[i] == SIZE_MAX &&
                (rc = am__tokcache_text_set(db->text, db->tokcache, hop[i].content,
                                            strlen(hop[i].content), hset[i], &hn[i])))
                return rc;
            double got = 0;
            for (size_t t = 0; t < n_own; t++)
                if (set_has(hset[i], hn[i], th[t])) got += idf[t];
            if (got / total < AM__BRIDGE_MIN_COVER) continue;
            for (size_t t = n_own; t < nt && !found; t++)
                found = weights[t] >= AM__BRIDGE_REST && (t >= nt - x->n_told || asked_word(terms[t])) &&
                        set_has(hset[i], hn[i], th[t]);
        }
        if (found) memset(lead, 0, nh);
        /* the leading hits first, then those holding an asked word, then
         * the rest, each pass in the search's order */
        unsigned char *done = am__arena_alloc(ar, nh + 1);
        if (!done) return AM_NOMEM;
        memset(done, 0, nh);
        for (int pass = 0; pass < 3; pass++)
        for (size_t i = 0; i < nh && taken < AM__BRIDGE_HITS; i++) {
            if (hop[i].rid == base[b].rid || !hop[i].content || done[i]) continue;
            if (pass == 0 && !lead[i]) continue;
            if (hn[i] == SIZE_MAX &&
                (rc = am__tokcache_text_set(db->text, db->tokcache, hop[i].content,
                                            strlen(hop[i].content), hset[i], &hn[i])))
                return rc;
            const uint64_t *set = hset[i];
            size_t ns = hn[i];
            double got = 0;
            for (size_t t = 0; t < n_own; t++)
                if (set_has(set, ns, th[t])) got += idf[t];
            double cover = got / total;
            if (lead[i]) cover = 1.0;
            if (cover < AM__BRIDGE_MIN_COVER) continue;
            int asks = lead[i]; /* one of the question's own remaining words */
            for (size_t t = n_own; t < nt && !asks; t++)
                asks = weights[t] >= AM__BRIDGE_REST && (t >= nt - x->n_told || asked_word(terms[t])) &&
                       set_has(set, ns, th[t]);
            if (pass == 1 && !asks) continue;
            done[i] = 1;
            double v = base[b].score * r->w_bridge * cover * (asks ? 1.0 : AM__BRIDGE_NO_ASK);
            size_t k;
            for (k = 0; k < m && all[k].rid != hop[i].rid; k++) {}
            if (k < m) {
                if (v <= all[k].score) continue; /* ranks higher already */
                all[k].score = v;
            } else {
                all[m] = hop[i];
                all[m++].score = v;
            }
            taken++;
        }
    }
    am__sort_events(all, m);
    *events = all;
    *n_events = m;
    return AM_OK;
}

/* F3, the read side: a question that names a phone number, an e-mail
 * address, an ID or a card number ("那个联系电话是155…的人，其生日是？",
 * "who has the e-mail …?") cannot find the turn that said it by its words:
 * the write path put a placeholder ("[PHONE_1]") in the value's place
 * before indexing.  The question is redacted the same way and each value
 * it names is looked up in the user's vault, compared in canonical form
 * (digits only, e-mail lower-cased); the events that held it come first
 * (at most AM__PII_MATCHES, newest first), as the question's most
 * specific word -- and as a bridge to what it asks about that person.
 * The value stays in the vault: a recall returns the redacted turn. */
#define AM__PII_MATCHES 4
#define AM__PII_SCAN 4096 /* vault rows of one type read for a value */
static int pii_matches(am_db *db, const char *uid, const char *text, size_t len, am_time to,
                       am__arena *ar, am__event_row **events, size_t *n_events)
{
    am__redact_policy policy;
    am__db_redact_policy(db, &policy); /* what the write path put in the vault */
    am__redact_result red;
    int rc = am__redact(&db->alloc, text, len, &policy, &red);
    if (rc) return rc;
    am__event_row hit[AM__PII_MATCHES];
    size_t nh = 0;
    for (size_t i = 0; i < red.n && nh < AM__PII_MATCHES && !rc; i++) {
        if (!red.items[i].original) continue;
        char want[AM__PII_CANON_MAX], got[AM__PII_CANON_MAX];
        const char *orig = red.items[i].original;
        if (am__pii_canonical(orig, strlen(orig), red.items[i].type, want) == 0) continue;
        am__event_row *rows;
        const char **vals;
        size_t nr;
        rc = db->store->vt->pii_events(db->store, uid, am__pii_type_name(red.items[i].type), to,
                                       AM__PII_SCAN, ar, &rows, &vals, &nr);
        for (size_t k = 0; !rc && k < nr && nh < AM__PII_MATCHES; k++) {
            am__pii_canonical(vals[k], strlen(vals[k]), red.items[i].type, got);
            if (strcmp(want, got) != 0) continue;
            size_t j;
            for (j = 0; j < nh && hit[j].rid != rows[k].rid; j++) {}
            if (j == nh) hit[nh++] = rows[k];
        }
    }
    am__redact_result_free(&db->alloc, &red);
    if (rc || nh == 0) return rc;
    size_t m = *n_events;
    am__event_row *all = am__arena_alloc(ar, (m + nh + 1) * sizeof *all);
    if (!all) return AM_NOMEM;
    double top = m && (*events)[0].score > 1.0 ? (*events)[0].score : 1.0;
    size_t w = 0;
    for (size_t j = 0; j < nh; j++) {
        all[w] = hit[j];
        all[w++].score = top + 1e-3 * (double)(nh - j);
    }
    for (size_t i = 0; i < m; i++) {
        size_t j;
        for (j = 0; j < nh && hit[j].rid != (*events)[i].rid; j++) {}
        if (j == nh) all[w++] = (*events)[i];
    }
    *events = all;
    *n_events = w;
    return AM_OK;
}

/* F21, entity linking: the speakers a question names by another name.
 * The write path stores an "alias" entity each time a transcript line
 * greets the other speaker by a name ("elise: Hello Kate!" after "Emi:
 * …": norm "kate=emi"); a name the question holds that was used for one
 * speaker at least AM__ALIAS_MIN times, and for that speaker in at least
 * two thirds of its uses, names that speaker ("What are Kate's hobbies?"
 * -> Emi's own turns, am__speaker_boost).  Only the user's own aliases. */
#define AM__ALIAS_MIN 2
#define AM__ALIAS_MAX 256 /* distinct name=speaker pairs read */
static int question_aliases(am_db *db, const char *uid, const char *qnorm, size_t qlen,
                            am__arena *ar, const char ***out, size_t *n_out)
{
    const char **norms;
    long *counts;
    size_t n;
    *n_out = 0;
    int rc = db->store->vt->entity_counts(db->store, uid, "alias", AM__ALIAS_MAX, ar, &norms,
                                          &counts, &n);
    if (rc || !n) return rc;
    const char **got = am__arena_alloc(ar, n * sizeof *got);
    if (!got) return AM_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(norms[i], '=');
        if (!eq || eq == norms[i] || !eq[1] || counts[i] < AM__ALIAS_MIN) continue;
        size_t nl = (size_t)(eq - norms[i]);
        /* the most used speaker of this name comes first (most first) */
        int first = 1;
        long total = 0;
        for (size_t j = 0; j < n; j++) {
            if (strncmp(norms[j], norms[i], nl + 1) != 0) continue;
            total += counts[j];
            if (j < i) first = 0;
        }
        if (!first || 3 * counts[i] < 2 * total) continue;
        char name[64];
        if (nl >= sizeof name) continue;
        memcpy(name, norms[i], nl);
        name[nl] = '\0';
        if (am__query_names(qnorm, qlen, name)) got[(*n_out)++] = eq + 1;
    }
    *out = got;
    return AM_OK;
}

static int recall_run(am_db *db, const am_query *q, recall_box *box)
{
    am__arena *ar = &box->ar;
    am_recall_result *res = &box->pub;
    am__store *s = db->store;
    const am_rank_config *r = &db->cfg.rank;
    int rc;
    const char *why;
    if (!q->text) return am__db_error(db, AM_INVALID, "recall: query text is missing");
    size_t qn = strlen(q->text), bad;
    if (qn > db->cfg.max_text_bytes)
        return am__db_error(db, AM_TOOBIG, "recall: query is %zu bytes, over the limit", qn);
    if (!am__utf8_valid(q->text, qn, &bad))
        return am__db_error(db, AM_INVALID, "recall: query: invalid UTF-8 at byte %zu", bad);
    am_time now = am__db_now(db), as_of = AM_TIME_NONE;
    if (q->as_of && am__time_parse(q->as_of, &as_of, NULL, &why))
        return am__db_error(db, AM_INVALID, "recall: as_of \"%.64s\" %s", q->as_of, why);
    char uid[AM_ID_MAX + 1];
    if ((rc = am__db_resolve_user(db, "recall", q->user_id, q->channel, q->external_id, 0, uid)))
        return rc;
    int lang = am__text_lang(q->text, qn);
    int vector_ok = lang == AM_LANG_EN || lang == AM_LANG_NONE || db->embed_zh;
    /* labels: Chinese for Chinese and mixed turns */
    lang = lang == AM_LANG_ZH || lang == AM_LANG_MIXED ? AM_LANG_ZH : AM_LANG_EN;
    res->lang = lang == AM_LANG_ZH ? "zh" : "en";
    am__buf norm;
    am__buf_init(&norm, &db->alloc);
    if ((rc = am__text_normalize(db->text, q->text, qn, &norm))) {
        am__buf_free(&norm);
        return am__db_error(db, rc, "recall: out of memory");
    }
    am__route_decision rd;
    am__route(norm.p ? norm.p : "", norm.len, &rd);
    /* F7: the caller's domain against the text; on disagreement, log and
     * fall back to global recall (every domain's items are candidates). */
    int domain_conflict = am__domain_conflict(q->domain, norm.p ? norm.p : "", norm.len);
    if (domain_conflict)
        am__db_log(db, AM_LOG_WARN, "recall: user %s: domain \"%s\" disagrees with the text (%s); global recall",
                   uid, q->domain, am__domain_infer(norm.p, norm.len));
    res->domain_conflict = domain_conflict;
    size_t qnorm_len = norm.len;
    const char *qnorm = am__arena_strndup(ar, norm.p ? norm.p : "", norm.len);
    am__buf_free(&norm);
    if (!qnorm) return am__db_error(db, AM_NOMEM, "recall: out of memory");
    res->need_memory = rd.need_memory;
    res->route = am__route_name(rd.route);
    am__db_log(db, AM_LOG_INFO, "recall: user %s: route=%s reason=%s", uid, res->route, rd.reason);
    res->block = "";
    if (!rd.need_memory) return AM_OK;
    int exists = s->vt->user_exists(s, uid);
    if (exists < 0) return am__db_store_error(db, -exists, "recall");
    if (!exists) return AM_OK;

    am_time at = as_of != AM_TIME_NONE ? as_of : now;
    am__task_row *task = NULL;

    /* Perception layer: lexical search (F16), rerank. */
    const char **terms;
    const double *weights = NULL; /* per term; NULL = all 1 */
    size_t nt;
    /* F21: synonyms and near-words join the terms, then narrower words.
     * A query that corrects itself ("…天气真好。不好意思，我真正想问的是：
     * …？") is searched for its asks (each a clause, below); its other
     * words count w_preamble.  The question's token set (to rank the
     * memories) comes from the same analysis when it is searched whole. */
    uint64_t qset[MAX_QSET];
    size_t nq = 0;
    size_t ask_from[AM__MAX_CLAUSES], ask_to[AM__MAX_CLAUSES], n_asks = 0;
    if (r->w_preamble < 1)
        n_asks = am__query_asks(qnorm, qnorm_len, ask_from, ask_to, AM__MAX_CLAUSES);
    const char *qtext = q->text;
    size_t qtext_n = qn;
    clauses asks;
    memset(&asks, 0, sizeof asks);
    if (n_asks) {
        am__buf focus;
        am__buf_init(&focus, &db->alloc);
        for (size_t k = 0; k < n_asks; k++) {
            if (k) am__buf_addc(&focus, ' ');
            am__buf_add(&focus, qnorm + ask_from[k], ask_to[k] - ask_from[k]);
            asks.p[k] = qnorm + ask_from[k];
            asks.n[k] = ask_to[k] - ask_from[k];
        }
        asks.count = n_asks;
        qtext = focus.oom ? NULL : am__arena_strndup(ar, focus.p, focus.len);
        qtext_n = focus.len;
        am__buf_free(&focus);
        if (!qtext) { rc = AM_NOMEM; goto out_store; }
        rc = text_terms(db, ar, qtext, qtext_n, NULL, 0, &terms, &weights, &nt, NULL, NULL);
        if (!rc && r->w_preamble > 0)
            rc = add_terms(db, ar, q->text, r->w_preamble, &terms, &weights, &nt);
        if (!rc) rc = am__text_token_set(db->text, q->text, qn, qset, MAX_QSET, &nq);
        if (rc) goto out_store;
    } else if ((rc = text_terms(db, ar, q->text, qn, qnorm, qnorm_len, &terms, &weights, &nt,
                                qset, &nq)))
        goto out_store;
    size_t max_ev = (size_t)(q->max_events > 0 ? q->max_events : r->max_events);
    int limit = r->candidates > (int)max_ev * 2 ? r->candidates : (int)max_ev * 2;
    am__event_row *events;
    size_t n_events;
    /* the frequencies of the terms, for the period's search below */
    am__search_stats stats = {0, 0, am__arena_alloc(ar, (nt + 1) * sizeof *stats.df), 0};
    if (!stats.df) { rc = AM_NOMEM; goto out_store; }
    rc = s->vt->events_search(s, uid, terms, weights, nt, r->w_context, AM_TIME_NONE,
                              as_of != AM_TIME_NONE ? as_of + 1 : AM_TIME_NONE, limit, ar,
                              &events, &n_events, &stats);
    if (rc) goto out_store;
    clause_homes homes;
    memset(&homes, 0, sizeof homes);
    if ((rc = search_clauses(db, uid, qtext, qtext_n, &asks,
                             as_of != AM_TIME_NONE ? as_of + 1 : AM_TIME_NONE, limit, ar, &events,
                             &n_events, &homes)))
        goto out_store;
    /* F19: "上周" / "last month" / "on 9 November" in the turn: the best
     * matches inside that period join the candidates (a turn of that day
     * that shares only a name with the question would otherwise never make
     * the top of a long history), then they come first (resolved in the
     * caller's zone against the recall time).  Scores of both searches are
     * BM25 over the same statistics, so the union ranks as one list. */
    am_time t_from, t_to;
    int timed = r->w_time > 0 &&
                am__query_time_range(q->text, qn, at, db->cfg.default_tz_minutes, &t_from, &t_to);
    if (timed) {
        am_time to = as_of != AM_TIME_NONE && as_of + 1 < t_to ? as_of + 1 : t_to;
        am__event_row *in;
        size_t n_in;
        rc = s->vt->events_search(s, uid, terms, weights, nt, r->w_context, t_from, to, limit, ar, &in,
                                  &n_in, &stats);
        if (rc) goto out_store;
        if (n_in) {
            am__event_row *all = am__arena_alloc(ar, (n_events + n_in + 1) * sizeof *all);
            if (!all) { rc = AM_NOMEM; goto out_store; }
            memcpy(all, events, n_events * sizeof *all);
            size_t m = n_events;
            for (size_t i = 0; i < n_in; i++) {
                size_t k;
                for (k = 0; k < n_events && all[k].rid != in[i].rid; k++) {}
                if (k == n_events) all[m++] = in[i];
            }
            events = all;
            n_events = m;
        }
    }
    const char **aliased = NULL;
    size_t n_aliased = 0;
    if (r->w_speaker > 0 && n_events &&
        (rc = question_aliases(db, uid, qnorm, qnorm_len, ar, &aliased, &n_aliased)))
        goto out_store;
    am__speaker_boost(r, qnorm, qnorm_len, aliased, n_aliased, events, n_events);
    if (r->w_when > 0 && n_events && am__asks_when(qnorm, qnorm_len)) {
        /* the candidates that say when: dates the write path extracted */
        int64_t *rids = am__arena_alloc(ar, n_events * sizeof *rids);
        unsigned char *dated = am__arena_alloc(ar, n_events);
        if (!rids || !dated) { rc = AM_NOMEM; goto out_store; }
        for (size_t i = 0; i < n_events; i++) rids[i] = events[i].rid;
        if ((rc = s->vt->events_dated(s, uid, rids, n_events, dated))) goto out_store;
        am__when_boost(r, events, n_events, dated);
    }
    am__rank_events(r, at, events, n_events);
    if (timed && n_events) {
        /* in the period asked about: relevant even when the words match
         * weakly (below the floor: back above it, by its lexical score) */
        for (size_t i = 0; i < n_events; i++)
            if (events[i].occurred_at >= t_from && events[i].occurred_at < t_to)
                events[i].score = (events[i].score < 0 ? events[i].score + 1 : events[i].score) +
                                  r->w_time;
        am__sort_events(events, n_events);
    }
    if ((rc = interleave_clauses(&homes, ar, events, n_events))) goto out_store;
    if (r->pii_matches > 0 &&
        (rc = pii_matches(db, uid, q->text, qn, as_of != AM_TIME_NONE ? as_of + 1 : AM_TIME_NONE,
                          ar, &events, &n_events)))
        goto out_store;
    if ((rc = search_bridges(db, uid, terms, weights, nt, &homes,
                             as_of != AM_TIME_NONE ? as_of + 1 : AM_TIME_NONE, ar, &events,
                             &n_events)))
        goto out_store;
    if (db->embedder && vector_ok && r->w_vector > 0 &&
        (rc = fuse_vectors(db, uid, q->text, as_of,
                           r->vector_candidates > 0 ? r->vector_candidates : limit, ar, &events,
                           &n_events)))
        goto out_store;
    if ((rc = referenced_task(db, uid, q, events, n_events, ar, &task))) goto out_store;
    if (task && (rc = add_task_events(db, uid, task, at, ar, &events, &n_events)))
        goto out_store;

    /* Semantic layer: filter (F15), rank (F17). */
    am__item_row *items;
    size_t n_items;
    rc = s->vt->items_list(s, uid,
                           (as_of != AM_TIME_NONE ? AM__ITEMS_ASOF : AM__ITEMS_CURRENT) |
                               AM__ITEMS_NO_SOURCES,
                           at, ar, &items, &n_items);
    if (rc) goto out_store;
    am__item_row *all_items = items; /* every current version, for conflicts */
    size_t n_all_items = n_items;
    items = am__arena_alloc(ar, (n_items + 1) * sizeof *items);
    if (!items) { rc = AM_NOMEM; goto out_store; }
    size_t w = 0;
    for (size_t i = 0; i < n_all_items; i++)
        if (scope_visible(all_items[i].scope, q, task, domain_conflict))
            items[w++] = all_items[i];
    n_items = w;
    am__scored_item *scored = am__arena_alloc(ar, (n_items + 1) * sizeof *scored);
    if (!scored) { rc = AM_NOMEM; goto out_store; }
    if ((rc = am__rank_items(db->text, db->tokcache, r, at, qset, nq, items, n_items, scored))) goto out_store;
    size_t max_mem = (size_t)(q->max_memories > 0 ? q->max_memories : r->max_memories);
    if (n_items > max_mem) n_items = max_mem;
    /* provenance only for the items that can be shown (a reinforced item
     * can have hundreds of sources; every item is ranked) */
    for (size_t i = 0; i < n_items; i++) {
        am__item_row *row = (am__item_row *)scored[i].row;
        if ((rc = s->vt->item_sources(s, uid, row->rid, ar, &row->sources, &row->n_sources)))
            goto out_store;
    }
    /* A pending_confirm version is shown with the value it conflicts with,
     * and only when the turn is on its topic (F11). */
    w = 0;
    for (size_t i = 0; i < n_items; i++) {
        am__scored_item *it = &scored[i];
        if (strcmp(it->row->status, "pending_confirm") == 0) {
            if (it->similarity <= 0) continue;
            for (size_t k = 0; k < n_all_items; k++)
                if (strcmp(all_items[k].status, "active") == 0 &&
                    strcmp(all_items[k].lineage_id, it->row->lineage_id) == 0)
                    it->conflicts_with = all_items[k].text;
        }
        scored[w++] = *it;
    }
    n_items = w;

    /* The block's events (F18): above the relevance floor, and neither the
     * source of a memory shown above nor a restatement of one (an older
     * wording of a superseded version: 80 % of the tokens shared both
     * ways, said before the version was recorded) -- dedup.  The result's event list is the ranking itself, up to
     * max_events. */
    size_t n_floor = am__events_cut(r, events, n_events);
    am__event_row *block_events = am__arena_alloc(ar, (n_floor + 1) * sizeof *block_events);
    uint64_t (*iset)[DEDUP_SET] = am__arena_alloc(ar, (n_items + 1) * sizeof *iset);
    size_t *ni = am__arena_alloc(ar, (n_items + 1) * sizeof *ni);
    if (!block_events || !iset || !ni) { rc = AM_NOMEM; goto out_store; }
    /* a restatement is about as long as the memory, and older than its
     * version: other turns are not tokenised at all */
    size_t longest = 0, shortest = (size_t)-1;
    am_time newest = AM_TIME_NONE;
    for (size_t k = 0; k < n_items; k++) {
        const char *t = scored[k].row->text ? scored[k].row->text : "";
        size_t len = strlen(t);
        if (len > longest) longest = len;
        if (len < shortest) shortest = len;
        if (newest == AM_TIME_NONE || scored[k].row->recorded_at > newest)
            newest = scored[k].row->recorded_at;
        if ((rc = am__tokcache_text_set(db->text, db->tokcache, t, len, iset[k], &ni[k])))
            goto out_store;
    }
    size_t n_block = 0;
    for (size_t i = 0; i < n_floor && n_block < max_ev; i++) {
        int dup = 0;
        for (size_t k = 0; k < n_items && !dup; k++)
            for (size_t j = 0; j < scored[k].row->n_sources && !dup; j++)
                dup = strcmp(scored[k].row->sources[j], events[i].id) == 0;
        size_t clen = events[i].content ? strlen(events[i].content) : 0;
        if (!dup && n_items && clen && clen <= 2 * longest + 16 && 2 * clen + 16 >= shortest &&
            events[i].occurred_at <= newest) {
            uint64_t es[DEDUP_SET];
            size_t ne;
            if ((rc = am__tokcache_text_set(db->text, db->tokcache, events[i].content, clen, es, &ne)))
                goto out_store;
            /* an older wording: said no later than the memory's version
             * was recorded, and about the same words both ways (a later
             * "no, not window seats" is a correction, not a restatement) */
            for (size_t k = 0; k < n_items && !dup && ne; k++) {
                if (events[i].occurred_at > scored[k].row->recorded_at) continue;
                size_t both = am__set_overlap(es, ne, iset[k], ni[k]);
                dup = both * 5 >= ne * 4 && both * 5 >= ni[k] * 4;
            }
        }
        if (!dup) block_events[n_block++] = events[i];
    }
    for (size_t i = 0; i < n_events; i++)
        if (events[i].score < 0) events[i].score += 1; /* below the floor: lex in [0, floor) */
    if (n_events > max_ev) n_events = max_ev;

    /* Budget and render (F18). */
    int budget_long = r->budget_long_tokens, budget_short = r->budget_short_tokens;
    if (q->budget_tokens > 0) {
        budget_long = q->budget_tokens * 7 / 10;
        budget_short = q->budget_tokens - budget_long;
    }
    am__render_in ri = {lang, scored, n_items, block_events, n_block, task, budget_long, budget_short};
    am__buf block;
    am__buf_init(&block, &db->alloc);
    size_t used_items, used_events;
    rc = am__render_block(&ri, &block, &used_items, &used_events);
    res->block = block.oom ? NULL : am__arena_strndup(ar, block.p ? block.p : "", block.len);
    res->block_tokens = am__text_tokens_estimate(block.p ? block.p : "", block.len);
    am__buf_free(&block);
    if (rc || !res->block) { rc = AM_NOMEM; goto out_store; }

    res->memories = am__arena_alloc(ar, (used_items + 1) * sizeof *res->memories);
    res->events = am__arena_alloc(ar, (n_events + 1) * sizeof *res->events);
    if (!res->memories || !res->events) { rc = AM_NOMEM; goto out_store; }
    for (size_t i = 0; i < used_items; i++) {
        memory_from_row(&res->memories[i], scored[i].row);
        res->memories[i].score = scored[i].score;
    }
    res->n_memories = used_items;
    for (size_t i = 0; i < n_events; i++) event_from_row(&res->events[i], &events[i]);
    res->n_events = n_events;
    if (task && (rc = task_build(db, uid, ar, task, &res->task))) goto out_store;

    /* F21: access feedback, only for recalls of the present. */
    if (as_of == AM_TIME_NONE && used_items && !q->no_touch) {
        if ((rc = s->vt->begin(s))) goto out_store;
        for (size_t i = 0; i < used_items && !rc; i++)
            rc = s->vt->item_touch(s, uid, scored[i].row->lineage_id, now);
        if (rc || (rc = s->vt->commit(s))) {
            s->vt->rollback(s);
            goto out_store;
        }
    }
    return AM_OK;
out_store:
    if (rc == AM_NOMEM) return am__db_error(db, rc, "recall: out of memory");
    return am__db_store_error(db, rc, "recall");
}

static const char *recall_json(am__arena *ar, const am_recall_result *r)
{
    am__buf b;
    am__buf_init(&b, NULL);
    am__buf_printf(&b, "{\"need_memory\":%s", r->need_memory ? "true" : "false");
    json_kv(&b, "route", r->route, 1);
    json_kv(&b, "lang", r->lang, 1);
    am__buf_printf(&b, ",\"domain_conflict\":%s", r->domain_conflict ? "true" : "false");
    am__buf_adds(&b, ",\"memories\":[");
    for (size_t i = 0; i < r->n_memories; i++) {
        if (i) am__buf_addc(&b, ',');
        json_memory(&b, &r->memories[i]);
    }
    am__buf_adds(&b, "],\"events\":[");
    for (size_t i = 0; i < r->n_events; i++) {
        if (i) am__buf_addc(&b, ',');
        json_event(&b, &r->events[i]);
    }
    am__buf_adds(&b, "],\"task\":");
    if (r->task) json_task(&b, r->task);
    else am__buf_adds(&b, "null");
    json_kv(&b, "block", r->block, 1);
    am__buf_printf(&b, ",\"block_tokens\":%d}", r->block_tokens);
    const char *out = b.oom ? NULL : am__arena_strndup(ar, b.p, b.len);
    am__buf_free(&b);
    return out;
}

int am_recall(am_db *db, const am_query *q, am_recall_result **out)
{
    if (!db || !q || !out) return AM_MISUSE;
    *out = NULL;
    am__db_clear_error(db);
    recall_box *box = am__calloc(&db->alloc, sizeof *box);
    if (!box) return am__db_error(db, AM_NOMEM, "recall: out of memory");
    box->alloc = db->alloc;
    am__arena_init(&box->ar, &box->alloc);
    int rc = recall_run(db, q, box);
    if (rc == AM_OK) {
        if (!box->pub.block) box->pub.block = "";
        box->pub.json = recall_json(&box->ar, &box->pub);
        if (!box->pub.json) rc = am__db_error(db, AM_NOMEM, "recall: out of memory");
    }
    if (rc) {
        am_recall_free(&box->pub);
        return rc;
    }
    *out = &box->pub;
    return AM_OK;
}

/* ------------------------------------------------------------ tasks */

typedef struct task_box {
    am_task *pub;   /* first, so the public pointer is the box's */
    am__arena ar;
    am__allocator alloc;
} task_box;

/* am_task_get returns a pointer into an arena whose first block is known
 * only to the box; keep a back pointer in a side header. */
typedef struct task_hdr {
    am_task task;
    task_box *box;
} task_hdr;

int am_task_get(am_db *db, const char *user_id, const char *task_id, am_task **out)
{
    if (!db || !out) return AM_MISUSE;
    *out = NULL;
    am__db_clear_error(db);
    const char *why;
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "task: user %s", why);
    if ((why = am__id_check(task_id))) return am__db_error(db, AM_INVALID, "task: task %s", why);
    task_box *box = am__calloc(&db->alloc, sizeof *box);
    if (!box) return AM_NOMEM;
    box->alloc = db->alloc;
    am__arena_init(&box->ar, &box->alloc);
    am__task_row row;
    int rc = db->store->vt->task_get(db->store, user_id, task_id, &box->ar, &row);
    am_task *t = NULL;
    if (rc == AM_OK) rc = task_build(db, user_id, &box->ar, &row, &t);
    if (rc == AM_OK) {
        task_hdr *h = am__arena_alloc(&box->ar, sizeof *h);
        if (!h) rc = AM_NOMEM;
        else {
            h->task = *t;
            h->box = box;
            *out = &h->task;
            return AM_OK;
        }
    }
    am__arena_free(&box->ar);
    am__free(&db->alloc, box);
    if (rc == AM_NOTFOUND)
        return am__db_error(db, rc, "task: user %s has no task %s", user_id, task_id);
    return am__db_store_error(db, rc, "task");
}

void am_task_free(am_task *t)
{
    if (!t) return;
    task_box *box = ((task_hdr *)t)->box;
    am__allocator a = box->alloc;
    am__arena_free(&box->ar);
    am__free(&a, box);
}

/* ------------------------------------------------------------ memories */

typedef struct list_box {
    am_memory_list pub;
    am__arena ar;
    am__allocator alloc;
} list_box;

void am_memory_list_free(am_memory_list *l)
{
    if (!l) return;
    list_box *b = (list_box *)l;
    am__allocator a = b->alloc;
    am__arena_free(&b->ar);
    am__free(&a, b);
}

int am_memories(am_db *db, const char *user_id, int which, const char *as_of,
                am_memory_list **out)
{
    if (!db || !out || (which != AM_LIST_ACTIVE && which != AM_LIST_ALL)) return AM_MISUSE;
    *out = NULL;
    am__db_clear_error(db);
    const char *why;
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "memories: user %s", why);
    am_time at = am__db_now(db);
    int mode = which == AM_LIST_ALL ? AM__ITEMS_ALL : AM__ITEMS_CURRENT;
    if (as_of) {
        if (am__time_parse(as_of, &at, NULL, &why))
            return am__db_error(db, AM_INVALID, "memories: as_of \"%.64s\" %s", as_of, why);
        if (mode == AM__ITEMS_CURRENT) mode = AM__ITEMS_ASOF;
    }
    list_box *box = am__calloc(&db->alloc, sizeof *box);
    if (!box) return AM_NOMEM;
    box->alloc = db->alloc;
    am__arena_init(&box->ar, &box->alloc);
    am__item_row *rows;
    size_t n;
    int rc = db->store->vt->items_list(db->store, user_id, mode, at, &box->ar, &rows, &n);
    if (rc) goto out_fail;
    box->pub.items = am__arena_alloc(&box->ar, (n + 1) * sizeof *box->pub.items);
    if (!box->pub.items) { rc = AM_NOMEM; goto out_fail; }
    am__buf b;
    am__buf_init(&b, NULL);
    am__buf_adds(&b, "[");
    for (size_t i = 0; i < n; i++) {
        memory_from_row(&box->pub.items[i], &rows[i]);
        if (i) am__buf_addc(&b, ',');
        json_memory(&b, &box->pub.items[i]);
    }
    am__buf_adds(&b, "]");
    box->pub.n = n;
    box->pub.json = b.oom ? NULL : am__arena_strndup(&box->ar, b.p, b.len);
    am__buf_free(&b);
    if (!box->pub.json) { rc = AM_NOMEM; goto out_fail; }
    *out = &box->pub;
    return AM_OK;
out_fail:
    am_memory_list_free(&box->pub);
    return am__db_store_error(db, rc, "memories");
}

/* ------------------------------------------------------------ feedback */

int am_feedback(am_db *db, const char *user_id, const char *memory_id, int action,
                const char *text)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    const char *why;
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "feedback: user %s", why);
    if ((why = am__id_check(memory_id))) return am__db_error(db, AM_INVALID, "feedback: memory %s", why);
    if (action < AM_FEEDBACK_CONFIRM || action > AM_FEEDBACK_CORRECT)
        return am__db_error(db, AM_INVALID, "feedback: unknown action %d", action);
    if (action == AM_FEEDBACK_CORRECT) {
        if (!text || !*text) return am__db_error(db, AM_INVALID, "feedback: correct needs text");
        if (!am__utf8_valid(text, strlen(text), NULL))
            return am__db_error(db, AM_INVALID, "feedback: text is not valid UTF-8");
        if (strlen(text) > db->cfg.max_text_bytes)
            return am__db_error(db, AM_TOOBIG, "feedback: text over the size limit");
    }
    am__store *s = db->store;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am_time now = am__db_now(db);
    am__wctx w = {s, db->text, &db->ulid, &db->cfg.rank, &ar, user_id, now};
    static const char *const ops[] = {"", "memory.confirmed", "memory.rejected", "memory.corrected"};
    int rc = s->vt->begin(s);
    if (!rc) rc = am__semantic_feedback(&w, memory_id, action, text);
    if (!rc) rc = s->vt->audit(s, user_id, now, ops[action], "memory", memory_id, NULL);
    if (!rc) rc = s->vt->commit(s);
    if (rc) s->vt->rollback(s);
    am__arena_free(&ar);
    if (rc == AM_NOTFOUND)
        return am__db_error(db, rc, "feedback: user %s has no current memory %s", user_id, memory_id);
    if (rc) return am__db_store_error(db, rc, "feedback");
    return AM_OK;
}

/* ------------------------------------------------------------ forget */

int am_forget(am_db *db, const char *user_id, int level, const char *id,
              am_forget_info *info)
{
    if (!db) return AM_MISUSE;
    am__db_clear_error(db);
    static const char *const names[] = {"", "event", "session", "task", "user"};
    const char *why;
    if (level < AM_FORGET_EVENT || level > AM_FORGET_USER)
        return am__db_error(db, AM_INVALID, "forget: unknown level %d", level);
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "forget: user %s", why);
    if (level != AM_FORGET_USER && (why = am__id_check(id)))
        return am__db_error(db, AM_INVALID, "forget: %s id %s", names[level], why);
    am__store *s = db->store;
    int exists = s->vt->user_exists(s, user_id);
    if (exists < 0) return am__db_store_error(db, -exists, "forget");
    if (!exists) return am__db_error(db, AM_NOTFOUND, "forget: unknown user %s", user_id);
    long ev = 0, it = 0, tk = 0;
    am_time now = am__db_now(db);
    int rc = s->vt->begin(s);
    if (!rc) rc = s->vt->forget(s, user_id, level, level == AM_FORGET_USER ? NULL : id, now,
                                &ev, &it, &tk);
    if (!rc) {
        char detail[96];
        snprintf(detail, sizeof detail, "{\"events\":%ld,\"memories\":%ld,\"tasks\":%ld}", ev, it, tk);
        /* after a user forget the audit row is written under the hash */
        rc = level == AM_FORGET_USER ? AM_OK
                                     : s->vt->audit(s, user_id, now, "forget", names[level], id, detail);
    }
    if (!rc) rc = s->vt->commit(s);
    if (!rc) am__tokcache_clear(db->tokcache); /* no token set of forgotten text stays */
    if (rc) {
        s->vt->rollback(s);
        if (rc == AM_NOTFOUND)
            return am__db_error(db, rc, "forget: user %s has no %s %s", user_id, names[level], id);
        return am__db_store_error(db, rc, "forget");
    }
    am__db_log(db, AM_LOG_INFO, "forget: user %s %s %s: %ld events, %ld memories, %ld tasks",
               user_id, names[level], id ? id : "-", ev, it, tk);
    if (info) {
        info->events = ev;
        info->memories = it;
        info->tasks = tk;
    }
    return AM_OK;
}

/* ------------------------------------------------------------ export */

int am_export(am_db *db, const char *user_id, char **json_out)
{
    if (!db || !json_out) return AM_MISUSE;
    *json_out = NULL;
    am__db_clear_error(db);
    const char *why;
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "export: user %s", why);
    am__store *s = db->store;
    int exists = s->vt->user_exists(s, user_id);
    if (exists < 0) return am__db_store_error(db, -exists, "export");
    if (!exists) return am__db_error(db, AM_NOTFOUND, "export: unknown user %s", user_id);
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__buf b;
    am__buf_init(&b, NULL);
    int rc;
    char ts[32];
    am__link_row *links;
    am__event_row *events;
    am__task_row *tasks;
    am__item_row *items;
    am__audit_row *audit;
    size_t nl, ne, nt, ni, na;
    if ((rc = s->vt->links_list(s, user_id, &ar, &links, &nl)) ||
        (rc = s->vt->events_list(s, user_id, &ar, &events, &ne)) ||
        (rc = s->vt->tasks_list(s, user_id, &ar, &tasks, &nt)) ||
        (rc = s->vt->items_list(s, user_id, AM__ITEMS_ALL, 0, &ar, &items, &ni)) ||
        (rc = s->vt->audit_list(s, user_id, &ar, &audit, &na)))
        goto out;
    am__buf_adds(&b, "{\"format\":\"agentmem-export\",\"version\":1");
    json_kv(&b, "user", user_id, 1);
    json_kv(&b, "exported_at", am__time_format(am__db_now(db), 0, ts), 1);
    am__buf_adds(&b, ",\"identities\":[");
    for (size_t i = 0; i < nl; i++) {
        am__buf_adds(&b, i ? ",{" : "{");
        json_kv(&b, "channel", links[i].channel, 0);
        json_kv(&b, "external_id", links[i].external_id, 1);
        am__buf_addc(&b, '}');
    }
    am__buf_adds(&b, "],\"events\":[");
    for (size_t i = 0; i < ne; i++) {
        am_event_rec e;
        event_from_row(&e, &events[i]);
        e.score = 0;
        if (i) am__buf_addc(&b, ',');
        json_event(&b, &e);
        /* entities of the event, inserted before the closing brace */
        am__entity_row *en;
        size_t nen;
        if ((rc = s->vt->entities_list(s, user_id, events[i].rid, &ar, &en, &nen))) goto out;
        b.len--;
        am__buf_adds(&b, ",\"entities\":[");
        for (size_t k = 0; k < nen; k++) {
            am__buf_adds(&b, k ? ",{" : "{");
            json_kv(&b, "type", en[k].type, 0);
            json_kv(&b, "text", en[k].surface, 1);
            json_kv(&b, "norm", en[k].norm, 1);
            am__buf_addc(&b, '}');
        }
        am__buf_adds(&b, "]}");
    }
    am__buf_adds(&b, "],\"tasks\":[");
    for (size_t i = 0; i < nt; i++) {
        am_task *t;
        if ((rc = task_build(db, user_id, &ar, &tasks[i], &t))) goto out;
        if (i) am__buf_addc(&b, ',');
        json_task(&b, t);
    }
    am__buf_adds(&b, "],\"memories\":[");
    for (size_t i = 0; i < ni; i++) {
        am_memory m;
        memset(&m, 0, sizeof m);
        memory_from_row(&m, &items[i]);
        if (i) am__buf_addc(&b, ',');
        json_memory(&b, &m);
    }
    am__buf_adds(&b, "],\"audit\":[");
    for (size_t i = 0; i < na; i++) {
        am__buf_adds(&b, i ? ",{" : "{");
        json_time(&b, "at", audit[i].at, 0);
        json_kv(&b, "op", audit[i].op, 1);
        json_kv(&b, "object_type", audit[i].object_type, 1);
        json_kv(&b, "object_id", audit[i].object_id, 1);
        json_kv(&b, "detail", audit[i].detail, 1);
        am__buf_addc(&b, '}');
    }
    am__buf_adds(&b, "]}");
    if (b.oom) { rc = AM_NOMEM; goto out; }
    *json_out = strdup(b.p); /* released with am_free (libc) */
    if (!*json_out) rc = AM_NOMEM;
out:
    am__buf_free(&b);
    am__arena_free(&ar);
    if (rc == AM_NOMEM) return am__db_error(db, rc, "export: out of memory");
    if (rc) return am__db_store_error(db, rc, "export");
    return AM_OK;
}

int am_event_find(am_db *db, const char *user_id, const char *needle, char *out)
{
    if (!db || !needle || !out) return AM_MISUSE;
    am__db_clear_error(db);
    const char *why;
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "event: user %s", why);
    int rc = db->store->vt->event_find(db->store, user_id, needle, out);
    if (rc == AM_NOTFOUND) return am__db_error(db, rc, "event: no event of %s contains that text", user_id);
    if (rc) return am__db_store_error(db, rc, "event");
    return AM_OK;
}
