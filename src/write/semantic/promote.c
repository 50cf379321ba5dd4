/* SPDX-License-Identifier: Apache-2.0 */
/*
 * promote.c -- promotion: a weak preference said twice becomes long-term.
 *
 * A *weak signal* is a sentence that asks for something the engine knows
 * how to file -- a value word of the table below (PDF, 表格, bullet points,
 * short, 中文 ...) -- in the shape of a request or a liking ("用PDF吧",
 * "还是用表格吧", "给我发PDF", "I like short answers", "please use bullet
 * points"), but that carries no long-term marker, so distill/rules.c leaves
 * it alone.  Its logical key is the key rules.c gives the same sentence
 * stated long-term ("以后" + sentence), so a promoted item and a later
 * explicit statement about the same thing meet on one key; that pass also
 * applies the rules' guards (hypotheticals, reported speech).
 *
 * Short-term is the event stream itself.  A first mention writes no row;
 * when a signal arrives, the user's recent events (one bounded query: the
 * last RECENT_EVENTS before it, within WINDOW_DAYS) are read back for an
 * earlier signal carrying the same information: the same value words with
 * the same polarity ("别用表格" is not "用表格吧"), and a compatible key or
 * token-set Jaccard >= 0.6.  Found: a preference (or constraint) item with
 * confidence 0.6 citing both events.  Why not a `temp` row per mention:
 * merge.c matches keys and near-duplicates over every current item, so a
 * temp row sharing a key with a long-term item would be the one an explicit
 * statement supersedes or an invalidation closes; every passing request
 * would also be a row in recall and in the inspection listing.  The events
 * already hold the mentions, forgetting included: a forgotten mention no
 * longer counts.
 *
 * Merge rules still hold: a signal with the same information as a
 * current long-term item -- near-duplicates (Jaccard > 0.9) included --
 * reinforces that item (+0.05; a weak signal lifts an inferred item to at
 * most 0.7, a stated one to at most 0.95) instead of adding a row; a
 * promotion whose key holds a different value supersedes it when at least
 * as confident, else becomes pending_confirm.  Write-storm guard: at most SESSION_WRITES writes per item per session, counted in the
 * item's value (last member "observe": {"session", "writes"}).  Earlier
 * mentions stop counting at an explicit statement or invalidation on the
 * same subject, and a mention that is the source of a rejected
 * (invalidated) item never counts again.
 *
 * Cost: an event naming no value word returns after one substring pass.
 * A weak signal costs the current items (one listing), and, unless it
 * reinforces one, the short-term read-back; events there are read in full
 * only when their raw text names a value word.  Every version is listed
 * only when a promotion is about to be written (to honour rejections).
 */
#include "write/semantic/observe_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/lexicon/lexicon.h"
#include "text/question.h"

#define MAX_SIGS 4             /* signals read per event */
#define RECENT_EVENTS 64       /* short-term: events read back */
#define WINDOW_DAYS 14         /* short-term: how far back */
#define PROMOTE_CONFIDENCE 0.6 /* an inferred item is 0.5-0.6 */
#define REINFORCE_STEP 0.05
#define INFERRED_CAP 0.7       /* below any stated item (>= 0.8) */
#define STATED_CAP 0.95
#define SESSION_WRITES 2       /* storm guard per item per session */
#define SAME_INFO 0.6
#define NEG_REACH 12           /* bytes between a negation and its value */

/* ---------------------------------------------------------- cue tables */

#define N_VALUES (sizeof am__lex_promote_values / sizeof *am__lex_promote_values)

/* ---------------------------------------------------------- matching */

static int ascii_alnum(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* p occurs at s[k]; an ASCII word edge must not run into another word. */
static int phrase_at(const char *s, size_t n, size_t k, const char *p, size_t m)
{
    if (k + m > n || memcmp(s + k, p, m) != 0) return 0;
    if (ascii_alnum((unsigned char)p[0]) && k > 0 && ascii_alnum((unsigned char)s[k - 1]))
        return 0;
    if (ascii_alnum((unsigned char)p[m - 1]) && k + m < n &&
        ascii_alnum((unsigned char)s[k + m]))
        return 0;
    return 1;
}

static int any_phrase(const char *s, size_t n, const char *const *list)
{
    for (size_t i = 0; list[i]; i++) {
        size_t m = strlen(list[i]);
        for (size_t k = 0; k + m <= n; k++)
            if (s[k] == list[i][0] && phrase_at(s, n, k, list[i], m)) return 1;
    }
    return 0;
}

static int starts_with_any(const char *s, size_t n, const char *const *list)
{
    for (size_t i = 0; list[i]; i++) {
        size_t m = strlen(list[i]);
        if (n >= m && memcmp(s, list[i], m) == 0) return 1;
    }
    return 0;
}

/* A negation ends within NEG_REACH bytes before position k. */
static int negated_at(const char *s, size_t n, size_t k)
{
    size_t from = k > NEG_REACH + 16 ? k - NEG_REACH - 16 : 0;
    for (size_t i = 0; am__lex_promote_negations[i]; i++) {
        size_t m = strlen(am__lex_promote_negations[i]);
        for (size_t j = from; j + m <= k; j++)
            if (j + m + NEG_REACH >= k && phrase_at(s, n, j, am__lex_promote_negations[i], m))
                return 1;
    }
    return 0;
}

/* The values named in s, wanted (*pos) and unwanted (*neg). */
static void scan_values(const char *s, size_t n, uint32_t *pos, uint32_t *neg)
{
    *pos = *neg = 0;
    for (size_t v = 0; v < N_VALUES; v++)
        for (size_t i = 0; am__lex_promote_values[v].words[i]; i++) {
            const char *p = am__lex_promote_values[v].words[i];
            size_t m = strlen(p);
            for (size_t k = 0; k + m <= n; k++) {
                if (s[k] != p[0] || !phrase_at(s, n, k, p, m)) continue;
                if (negated_at(s, n, k)) *neg |= 1u << v;
                else *pos |= 1u << v;
            }
        }
}

/* Same key, or the same attribute where one side has no topic
 * ("general.format" meets "report.format"). */
static int key_compatible(const char *a, const char *b)
{
    if (strcmp(a, b) == 0) return 1;
    const char *da = strchr(a, '.'), *db = strchr(b, '.');
    if (!da || !db || strcmp(da, db) != 0) return 0;
    return (da - a == 7 && memcmp(a, "general", 7) == 0) ||
           (db - b == 7 && memcmp(b, "general", 7) == 0);
}

/* ---------------------------------------------------------- signals */

typedef struct signal {
    const char *text;  /* the sentence as said */
    char key[96];      /* logical key ("" for an invalidation) */
    const char *kind;  /* preference | constraint */
    uint32_t pos, neg; /* values wanted / unwanted */
} signal;

/* What one event says, sentence by sentence. */
typedef struct reading {
    am__wctx *w;
    signal weak[MAX_SIGS];
    size_t n_weak;
    signal stated[MAX_SIGS]; /* explicit statements and invalidations */
    size_t n_stated;
    int one_off;
    int rc;
} reading;

static int normalize(am__wctx *w, const char *s, size_t n, char **out, size_t *len)
{
    am__buf b;
    am__buf_init(&b, w->ar->a);
    int rc = am__text_normalize(w->text, s, n, &b);
    if (!rc && b.oom) rc = AM_NOMEM;
    if (!rc) {
        *out = am__arena_strndup(w->ar, b.p ? b.p : "", b.len);
        *len = b.len;
        if (!*out) rc = AM_NOMEM;
    }
    am__buf_free(&b);
    return rc;
}

/* Drop closing punctuation and a final question particle; *question when
 * the sentence has a question's form (text/question.h). */
static size_t trim_end(const char *s, size_t n, int *question)
{
    *question = am__text_is_question(s, n, AM__TEXT_Q_FORM);
    n = am__text_trim_close(s, n, NULL);
    return n - am__text_final_particle(s, n);
}

/* A weak signal: values, a request shape, not a plain question, and a
 * preference or constraint when stated long-term. */
static int weak_signal(const char *norm, size_t n, signal *sig)
{
    int question;
    size_t len = trim_end(norm, n, &question);
    if (len == 0) return 0;
    scan_values(norm, len, &sig->pos, &sig->neg);
    if (!(sig->pos | sig->neg)) return 0;
    int request = any_phrase(norm, len, am__lex_promote_request_cues) ||
                  starts_with_any(norm, len, am__lex_promote_request_starts) ||
                  (len >= 3 && memcmp(norm + len - 3, "吧", 3) == 0); /* "用PDF吧" */
    if (!request) return 0;
    if (question && !starts_with_any(norm, len, am__lex_promote_polite_starts)) return 0;
    /* The key and guards of the same request stated long-term: "以后" +
     * the request without its polite question frame. */
    size_t skip = 0;
    for (size_t i = 0; am__lex_promote_polite_starts[i] && !skip; i++) {
        size_t m = strlen(am__lex_promote_polite_starts[i]);
        if (len > m && memcmp(norm, am__lex_promote_polite_starts[i], m) == 0) skip = m;
    }
    char stated[512];
    if (len - skip > sizeof stated - 8) return 0;
    memcpy(stated, "以后", 6);
    memcpy(stated + 6, norm + skip, len - skip);
    am__distill d;
    am__distill_sentence(stated, len - skip + 6, &d);
    if (d.action != AM__D_PERSIST || d.guard) return 0;
    if (strcmp(d.kind, "preference") != 0 && strcmp(d.kind, "constraint") != 0) return 0;
    sig->kind = d.kind;
    snprintf(sig->key, sizeof sig->key, "%s", d.key);
    return 1;
}

static int on_sentence(void *ctx, const char *s, size_t n)
{
    reading *r = ctx;
    char *norm;
    size_t len;
    if ((r->rc = normalize(r->w, s, n, &norm, &len))) return r->rc;
    am__distill d;
    am__distill_sentence(norm, len, &d);
    if (d.action == AM__D_ONE_OFF) {
        r->one_off = 1;
        return 0;
    }
    signal sig;
    memset(&sig, 0, sizeof sig);
    if (d.action == AM__D_PERSIST || d.action == AM__D_INVALIDATE) {
        if (r->n_stated == MAX_SIGS) return 0;
        scan_values(norm, len, &sig.pos, &sig.neg);
        snprintf(sig.key, sizeof sig.key, "%s", d.action == AM__D_PERSIST ? d.key : "");
        r->stated[r->n_stated++] = sig;
        return 0;
    }
    if (r->n_weak == MAX_SIGS || !weak_signal(norm, len, &sig)) return 0;
    if (!(sig.text = am__arena_strndup(r->w->ar, s, n))) return r->rc = AM_NOMEM;
    r->weak[r->n_weak++] = sig;
    return 0;
}

static int read_event(am__wctx *w, const char *content, reading *r)
{
    memset(r, 0, sizeof *r);
    r->w = w;
    int rc = am__text_sentences(content, strlen(content), on_sentence, r);
    return r->rc ? r->rc : rc;
}

/* Cheap gate for the common event: does it name any value at all? */
static int names_a_value(const char *norm, size_t n)
{
    for (size_t v = 0; v < N_VALUES; v++)
        if (am__cue_any(norm, n, am__lex_promote_values[v].words)) return 1;
    return 0;
}

/* The same gate on text not yet normalised: ASCII without case; anything
 * in the full-width block (U+FF00-U+FF7F) is read in full. */
static int may_name_value(const char *s)
{
    if (strstr(s, "\xef\xbc") || strstr(s, "\xef\xbd")) return 1;
    for (size_t v = 0; v < N_VALUES; v++)
        for (size_t i = 0; am__lex_promote_values[v].words[i]; i++) {
            const char *p = am__lex_promote_values[v].words[i];
            size_t m = strlen(p);
            for (const char *c = s; *c; c++) {
                size_t k = 0;
                while (k < m && c[k] &&
                       (c[k] == p[k] || (c[k] >= 'A' && c[k] <= 'Z' && c[k] + 32 == p[k])))
                    k++;
                if (k == m) return 1;
            }
        }
    return 0;
}

/* ---------------------------------------------------------- items */

/* One current long-term item, with its values. */
typedef struct known {
    am__item_row *row;
    uint32_t pos, neg;
} known;

static int same_info(am__wctx *w, const signal *s, const char *key, const char *text,
                     uint32_t pos, uint32_t neg, int *same)
{
    *same = 0;
    if (s->pos != pos || s->neg != neg) return AM_OK;
    if (key_compatible(s->key, key)) {
        *same = 1;
        return AM_OK;
    }
    double j;
    int rc = am__observe_jaccard(w, s->text, text, &j);
    *same = !rc && j >= SAME_INFO;
    return rc;
}

/* Writes this session has made to the item, from its value's guard. */
static int session_writes(const char *value_json, const char *session_json)
{
    static const char tag[] = "\"observe\":{\"session\":";
    const char *at = NULL;
    for (const char *p = value_json; p && (p = strstr(p, tag)); p++) at = p;
    if (!at) return 0;
    at += sizeof tag - 1;
    size_t m = strlen(session_json);
    if (strncmp(at, session_json, m) != 0 || strncmp(at + m, ",\"writes\":", 10) != 0)
        return 0;
    return atoi(at + m + 10);
}

/* value_json with the guard member {"session": S, "writes": n} last. */
static const char *with_guard(am__wctx *w, const char *value_json, const char *text,
                              const char *session_json, int writes)
{
    static const char tag[] = "\"observe\":{\"session\":";
    am__buf b;
    am__buf_init(&b, w->ar->a);
    const char *v = value_json ? value_json : "";
    const char *at = NULL;
    for (const char *p = v; (p = strstr(p, tag)); p++) at = p;
    size_t keep = at ? (size_t)(at - v) : strlen(v);
    while (keep > 0 && (v[keep - 1] == ' ' || v[keep - 1] == ','))
        keep--;
    if (!at && keep > 0 && v[keep - 1] == '}') keep--;
    if (v[0] != '{' || keep == 0) {
        am__buf_adds(&b, "{\"statement\":");
        am__buf_json_str(&b, text);
    } else {
        am__buf_add(&b, v, keep);
    }
    if (b.len > 1) am__buf_addc(&b, ',');
    am__buf_printf(&b, "\"observe\":{\"session\":%s,\"writes\":%d}}", session_json, writes);
    const char *out = b.oom ? NULL : am__arena_strndup(w->ar, b.p, b.len);
    am__buf_free(&b);
    return out;
}

/* ---------------------------------------------------------- promotion */

typedef struct promo {
    am__wctx *w;
    const am__event_row *ev;
    am__observe_out *out;
    const char *session_json;  /* the event's session as a JSON string */
    known *items;              /* current global preferences/constraints */
    size_t n_items;
    am__event_row *recent;     /* short-term, newest first (lazy) */
    size_t n_recent;
    reading *readings;         /* of recent[i], read on demand */
    int recent_loaded;
    am__item_row *all;         /* every version (lazy, for rejections) */
    size_t n_all;
    int all_loaded;
    const char *touched[MAX_SIGS]; /* lineages written by this event */
    size_t n_touched;
} promo;

static int touched(promo *p, const char *lineage)
{
    for (size_t i = 0; i < p->n_touched; i++)
        if (strcmp(p->touched[i], lineage) == 0) return 1;
    return 0;
}

static const char *lang_of(const char *s)
{
    return am__text_lang(s, strlen(s)) == AM_LANG_ZH ? "zh" : "en";
}

/* {"statement":..,"rule":"promotion","lang":..,"values":[..],"observe":..} */
static const char *promoted_value(promo *p, const signal *s, int writes)
{
    am__buf b;
    am__buf_init(&b, p->w->ar->a);
    am__buf_adds(&b, "{\"statement\":");
    am__buf_json_str(&b, s->text);
    am__buf_printf(&b, ",\"rule\":\"promotion\",\"lang\":\"%s\",\"values\":[", lang_of(s->text));
    int first = 1;
    for (size_t v = 0; v < N_VALUES; v++) {
        if (!((s->pos | s->neg) & (1u << v))) continue;
        am__buf_printf(&b, "%s\"%s%s\"", first ? "" : ",", (s->neg & (1u << v)) ? "!" : "",
                       am__lex_promote_values[v].id);
        first = 0;
    }
    am__buf_adds(&b, "]}");
    const char *base = b.oom ? NULL : am__arena_strndup(p->w->ar, b.p, b.len);
    am__buf_free(&b);
    return base ? with_guard(p->w, base, s->text, p->session_json, writes) : NULL;
}

/* Reinforce a current item: a little more confidence, one more source. */
static int reinforce(promo *p, const am__item_row *it)
{
    am__wctx *w = p->w;
    int writes = session_writes(it->value_json, p->session_json);
    if (writes >= SESSION_WRITES || touched(p, it->lineage_id)) return AM_OK;
    am__item_row nv = *it;
    double cap = it->confidence >= 0.8 ? STATED_CAP : INFERRED_CAP;
    if (cap < it->confidence) cap = it->confidence;
    nv.confidence = it->confidence + REINFORCE_STEP > cap ? cap : it->confidence + REINFORCE_STEP;
    if (!(nv.value_json = with_guard(w, it->value_json, it->text, p->session_json, writes + 1)))
        return AM_NOMEM;
    int rc;
    if ((rc = am__semantic_close_version(w, it)) ||
        (rc = am__semantic_insert_version(w, it, &nv, &p->ev->id, 1)) ||
        (rc = am__observe_audit(w, "memory.reinforced", it->lineage_id, it->scope, it->key)))
        return rc;
    if (p->n_touched < MAX_SIGS) p->touched[p->n_touched++] = it->lineage_id;
    p->out->updated++;
    return AM_OK;
}

static int load_recent(promo *p)
{
    am__wctx *w = p->w;
    p->recent_loaded = 1;
    int rc = am__store_events_recent(w->store, w->uid, NULL, NULL, p->ev->occurred_at,
                                     RECENT_EVENTS, w->ar, &p->recent, &p->n_recent);
    if (rc) return rc;
    p->readings = am__arena_alloc(w->ar, (p->n_recent + 1) * sizeof *p->readings);
    return p->readings ? AM_OK : AM_NOMEM;
}

/* 1 when a rejected (invalidated) item cites event_id: that mention has
 * been judged and does not count again. */
static int rejected_source(promo *p, const char *event_id, int *rejected)
{
    am__wctx *w = p->w;
    *rejected = 0;
    if (!p->all_loaded) {
        p->all_loaded = 1;
        int rc = w->store->vt->items.items_list(w->store, w->uid, AM__ITEMS_ALL, w->now, w->ar,
                                                &p->all, &p->n_all);
        if (rc) return rc;
    }
    for (size_t i = 0; i < p->n_all && !*rejected; i++) {
        const am__item_row *it = &p->all[i];
        if (it->superseded_at != AM_TIME_NONE || strcmp(it->status, "invalidated") != 0)
            continue;
        for (size_t k = 0; k < it->n_sources && !*rejected; k++)
            *rejected = strcmp(it->sources[k], event_id) == 0;
    }
    return AM_OK;
}

/* The latest earlier mention of s in short-term, or NULL. */
static int find_mention(promo *p, const signal *s, const am__event_row **found)
{
    am__wctx *w = p->w;
    *found = NULL;
    int rc;
    if (!p->recent_loaded && (rc = load_recent(p))) return rc;
    am_time oldest = p->ev->occurred_at - (am_time)WINDOW_DAYS * 86400000;
    for (size_t i = 0; i < p->n_recent; i++) {
        const am__event_row *e = &p->recent[i];
        if (e->occurred_at < oldest) break;
        if (strcmp(e->id, p->ev->id) == 0 || !e->source || strcmp(e->source, "user") != 0)
            continue;
        if (!may_name_value(e->content)) continue;
        reading *r = &p->readings[i];
        if (!r->w && (rc = read_event(w, e->content, r))) return rc;
        if (r->one_off) continue;
        /* An explicit statement or invalidation on the subject ends the
         * run of mentions: what came before it has been dealt with. */
        for (size_t k = 0; k < r->n_stated; k++)
            if (((r->stated[k].pos | r->stated[k].neg) & (s->pos | s->neg)) ||
                (r->stated[k].key[0] && key_compatible(r->stated[k].key, s->key)))
                return AM_OK;
        for (size_t k = 0; k < r->n_weak; k++) {
            int same, rejected;
            if ((rc = same_info(w, s, r->weak[k].key, r->weak[k].text, r->weak[k].pos,
                                r->weak[k].neg, &same)))
                return rc;
            if (!same) continue;
            if ((rc = rejected_source(p, e->id, &rejected))) return rc;
            if (rejected) return AM_OK;
            *found = e;
            return AM_OK;
        }
    }
    return AM_OK;
}

/* Two mentions: the information becomes a long-term item.  conflict: the
 * active item holding another value under the key; pending: its open
 * question, replaced by a newer one (one per item, as in merge.c). */
static int promote(promo *p, const signal *s, const am__event_row *earlier,
                   am__item_row *conflict, am__item_row *pending)
{
    am__wctx *w = p->w;
    int writes = 0, rc;
    am__item_row nv;
    memset(&nv, 0, sizeof nv);
    nv.scope = "global";
    nv.kind = s->kind;
    nv.key = am__arena_strdup(w->ar, s->key);
    nv.text = s->text;
    nv.confidence = PROMOTE_CONFIDENCE;
    nv.origin = "rules";
    am__semantic_kind_defaults(w->rank, s->kind, &nv.base_score, &nv.half_life_days);
    nv.valid_from = w->now;
    nv.valid_to = AM_TIME_NONE;
    nv.status = "active";
    const char *op = "memory.promoted";
    char lid[27];
    if (conflict) {
        /* the key holds another value. */
        writes = session_writes(conflict->value_json, p->session_json);
        if (writes >= SESSION_WRITES || touched(p, conflict->lineage_id)) return AM_OK;
        nv.lineage_id = conflict->lineage_id;
        if (PROMOTE_CONFIDENCE + 1e-9 >= conflict->confidence) {
            am__item_row old = *conflict;
            old.valid_to = w->now;
            if ((rc = am__semantic_close_version(w, conflict)) ||
                (rc = am__semantic_insert_version(w, conflict, &old, NULL, 0)))
                return rc;
            op = "memory.updated";
        } else {
            if (pending && strcmp(pending->lineage_id, conflict->lineage_id) == 0 &&
                (rc = am__semantic_close_version(w, pending)))
                return rc;
            nv.status = "pending_confirm";
            op = "memory.pending";
        }
        p->out->updated++;
    } else {
        am__ulid_new(w->ulid, w->now, lid);
        nv.lineage_id = am__arena_strdup(w->ar, lid);
        p->out->created++;
    }
    if (!nv.key || !nv.lineage_id || !(nv.value_json = promoted_value(p, s, writes + 1)))
        return AM_NOMEM;
    const char *sources[2] = {earlier->id, p->ev->id};
    if ((rc = am__semantic_insert_version(w, NULL, &nv, sources, 2)) ||
        (rc = am__observe_audit(w, op, nv.lineage_id, nv.scope, nv.key)))
        return rc;
    if (p->n_touched < MAX_SIGS) p->touched[p->n_touched++] = nv.lineage_id;
    return AM_OK;
}

static int on_signal(promo *p, const signal *s)
{
    am__wctx *w = p->w;
    am__item_row *conflict = NULL, *pending = NULL;
    int rc;
    for (size_t i = 0; i < p->n_items; i++) {
        known *k = &p->items[i];
        int same;
        /* Same values and key, or Jaccard >= 0.6 -- which covers the
         * near-duplicates (> 0.9) the storm rule names. */
        if ((rc = same_info(w, s, k->row->key, k->row->text, k->pos, k->neg, &same))) return rc;
        if (same) {
            /* Known already: reinforce it, or wait for the user's answer. */
            if (strcmp(k->row->status, "active") != 0) return AM_OK;
            return reinforce(p, k->row);
        }
        if (strcmp(k->row->key, s->key) == 0) {
            if (strcmp(k->row->status, "active") == 0) conflict = k->row;
            else if (strcmp(k->row->status, "pending_confirm") == 0) pending = k->row;
        }
    }
    const am__event_row *earlier;
    if ((rc = find_mention(p, s, &earlier)) || !earlier) return rc;
    return promote(p, s, earlier, conflict, pending);
}

static int load_items(promo *p)
{
    am__wctx *w = p->w;
    am__item_row *rows;
    size_t n;
    int rc = w->store->vt->items.items_list(w->store, w->uid, AM__ITEMS_CURRENT, w->now, w->ar,
                                            &rows, &n);
    if (rc) return rc;
    p->items = am__arena_alloc(w->ar, (n + 1) * sizeof *p->items);
    if (!p->items) return AM_NOMEM;
    for (size_t i = 0; i < n; i++) {
        am__item_row *it = &rows[i];
        if (strcmp(it->scope, "global") != 0) continue;
        if (strcmp(it->kind, "preference") != 0 && strcmp(it->kind, "constraint") != 0) continue;
        char *norm;
        size_t len;
        if ((rc = normalize(w, it->text, strlen(it->text), &norm, &len))) return rc;
        known *k = &p->items[p->n_items++];
        k->row = it;
        scan_values(norm, len, &k->pos, &k->neg);
    }
    return AM_OK;
}

int am__semantic_promote(am__wctx *w, const am__event_row *ev, const char *norm,
                         size_t n, am__observe_out *out)
{
    if (!names_a_value(norm, n)) return AM_OK;
    reading r;
    int rc = read_event(w, ev->content, &r);
    if (rc || r.n_weak == 0 || r.one_off) return rc;
    promo p;
    memset(&p, 0, sizeof p);
    p.w = w;
    p.ev = ev;
    p.out = out;
    am__buf b;
    am__buf_init(&b, w->ar->a);
    am__buf_json_str(&b, ev->session_id ? ev->session_id : "");
    p.session_json = b.oom ? NULL : am__arena_strndup(w->ar, b.p, b.len);
    am__buf_free(&b);
    if (!p.session_json) return AM_NOMEM;
    if ((rc = load_items(&p))) return rc;
    for (size_t i = 0; i < r.n_weak; i++) {
        /* One event says a thing once, however many times it repeats it. */
        int repeat = 0;
        for (size_t k = 0; k < i && !repeat; k++)
            repeat = r.weak[k].pos == r.weak[i].pos && r.weak[k].neg == r.weak[i].neg &&
                     key_compatible(r.weak[k].key, r.weak[i].key);
        if (!repeat && (rc = on_signal(&p, &r.weak[i]))) return rc;
    }
    return AM_OK;
}
