/* SPDX-License-Identifier: Apache-2.0 */
/*
 * llm.c -- am_llm_pass and the LLM queue's watcher (agentmem.h "the
 * optional LLM pass", docs/LLM.md).
 *
 * This file checks the arguments, reads the batch, asks the model
 * (lifecycle/llm.c) outside any transaction, then writes the proposals in
 * one write transaction through the semantic layer's entry point for a
 * stated memory (am__semantic_state: the same merge and version rules, the
 * same audit and memory events).  A proposal first meets the distiller's
 * rules: one the rules read as a one-off stays one (no item), one they
 * read as a lasting statement takes their key, so the user's own statement
 * of that attribute meets it on one key.  Its citations are checked inside
 * the write transaction: an id outside the batch, of another user or of an
 * event forgotten meanwhile is dropped, and a proposal left citing nothing
 * is dropped whole.  Every cited event is a source of the version, so a
 * forget of any of them takes the item with it.
 */
#include <stdio.h>
#include <string.h>

#include "api/db_int.h"
#include "write/distill/reading.h"
#include "write/distill/rules.h"
#include "lifecycle/llm.h"
#include "write/semantic/merge.h"

#define DEFAULT_EVENTS 50
#define MAX_EVENTS 200

int am_llm_watch(am_db *db, am_llm_watch_fn fn, void *ctx)
{
    if (!db) return AM_MISUSE;
    db->llm_watch = fn;
    db->llm_watch_ctx = fn ? ctx : NULL;
    return AM_OK;
}

void am__llm_added(am_db *db, const am_event *in, const am_add_info *info)
{
    if (!db->llm_watch || !info || info->existing || !info->event_id[0]) return;
    if (in->source && strcmp(in->source, "user") != 0) return;
    db->llm_watch(db->llm_watch_ctx, AM_LLM_ADDED, info->user_id, info->event_id);
}

void am__llm_forgot(am_db *db, const char *uid, int level, const char *id)
{
    if (level == AM_FORGET_USER && db->llm) am__llm_budget_forget(db->llm, uid);
    if (db->llm_watch)
        db->llm_watch(db->llm_watch_ctx, AM_LLM_FORGOT, uid, level == AM_FORGET_EVENT ? id : NULL);
}

/* The batch: the events named (of the user, said by the user, still
 * there), or the user's latest, oldest first. */
static int read_batch(am_db *db, const am_llm_pass_opts *o, am_time since, am__arena *ar,
                      am__event_row **out, size_t *n)
{
    am__store *s = db->store;
    int max = o->max_events > 0 ? (o->max_events < MAX_EVENTS ? o->max_events : MAX_EVENTS)
                                : DEFAULT_EVENTS;
    am__event_row *rows = NULL;
    size_t k = 0, got = 0;
    int rc = AM_OK;
    *n = 0;
    if (o->event_ids) {
        rows = am__arena_alloc(ar, (o->n_event_ids + 1) * sizeof *rows);
        if (!rows) return AM_NOMEM;
        for (size_t i = 0; i < o->n_event_ids && k < (size_t)max; i++) {
            if (!o->event_ids[i] || am__id_check(o->event_ids[i])) continue;
            rc = s->vt->events.event_get(s, o->user_id, AM__EVENT_BY_ID, o->event_ids[i], ar,
                                         &rows[k]);
            if (rc == AM_NOTFOUND) { rc = AM_OK; continue; }
            if (rc) return rc;
            if (since != AM_TIME_NONE && rows[k].occurred_at < since) continue;
            k++;
        }
    } else {
        if ((rc = am__store_events_before(s, o->user_id, NULL, AM_TIME_NONE, 0, since, max, ar,
                                          &rows, &got)))
            return rc;
        for (size_t i = 0; i < got / 2; i++) { /* newest first: turn it */
            am__event_row t = rows[i];
            rows[i] = rows[got - 1 - i];
            rows[got - 1 - i] = t;
        }
        k = got;
    }
    for (size_t i = 0; i < k; i++)
        if (rows[i].source && strcmp(rows[i].source, "user") == 0) rows[(*n)++] = rows[i];
    *out = rows;
    return AM_OK;
}

/* p's cited ids that name events of the batch, into ids, all still in the
 * store (read in the write transaction) -- none (*k 0) when one of them was
 * forgotten meanwhile, since the text may come from it; the newest cited
 * event's time. */
static int cited(am_db *db, const char *uid, const am__llm_proposal *p, const am__event_row *ev,
                 size_t n, am__arena *ar, const char **ids, size_t *k, am_time *at)
{
    *k = 0;
    *at = AM_TIME_NONE;
    for (size_t i = 0; i < p->n_ids; i++) {
        const am__event_row *hit = NULL;
        for (size_t j = 0; j < n && !hit; j++)
            if (strcmp(ev[j].id, p->ids[i]) == 0) hit = &ev[j];
        int dup = 0;
        for (size_t j = 0; j < *k; j++) dup |= strcmp(ids[j], p->ids[i]) == 0;
        if (!hit || dup) continue;
        am__event_row now;
        int rc =
            db->store->vt->events.event_get(db->store, uid, AM__EVENT_BY_ID, hit->id, ar, &now);
        if (rc == AM_NOTFOUND) { /* forgotten while the model thought: */
            *k = 0;              /* nothing of it may be written */
            return AM_OK;
        }
        if (rc) return rc;
        ids[(*k)++] = hit->id;
        if (*at == AM_TIME_NONE || hit->occurred_at > *at) *at = hit->occurred_at;
    }
    return AM_OK;
}

/* The other cited events as sources of lineage's current version that
 * holds text (so a forget of any of them reaches it). */
static int more_sources(am__wctx *w, const char *lineage, const char *text, const char *const *ids,
                        size_t k)
{
    am__item_row *rows;
    size_t n;
    int rc = w->store->vt->items.items_list(
        w->store, w->uid, AM__ITEMS_CURRENT | AM__ITEMS_NO_SOURCES | AM__ITEMS_NO_HEAT, w->now,
        w->ar, &rows, &n);
    for (size_t i = 0; !rc && i < n; i++) {
        if (strcmp(rows[i].lineage_id, lineage) != 0 || strcmp(rows[i].text, text) != 0) continue;
        for (size_t j = 1; !rc && j < k; j++)
            rc = am__store_item_reinforce(w->store, w->uid, rows[i].rid, ids[j], w->clock);
    }
    return rc;
}

/* One proposal through the rules; the report counts its fate. */
static int propose(am_db *db, am__wctx *w, const am__llm_proposal *p, const am__event_row *ev,
                   size_t n, am_llm_report *r)
{
    const char *ids[AM__LLM_MAX_IDS];
    size_t k;
    am_time at;
    int rc = cited(db, w->uid, p, ev, n, w->ar, ids, &k, &at);
    if (rc) return rc;
    if (!k) {
        r->dropped++;
        return AM_OK;
    }
    if (strcmp(p->kind, "one_off") == 0) {
        r->one_off++;
        return AM_OK;
    }
    am__distill prev, d;
    memset(&prev, 0, sizeof prev);
    size_t len = strlen(p->text);
    if ((rc = am__db_distill(db, p->text, len, NULL, &prev, &d))) return rc;
    if (d.action == AM__D_ONE_OFF) {
        r->one_off++;
        return AM_OK;
    }
    char key[96];
    if (d.action == AM__D_PERSIST && d.key[0]) {
        memcpy(key, d.key, sizeof key);
    } else if (p->key && !am__id_check(p->key)) {
        snprintf(key, sizeof key, "%s", p->key);
    } else {
        am__buf nb;
        am__buf_init(&nb, &db->alloc);
        rc = am__text_normalize(db->text, p->text, len, &nb);
        if (!rc) am__distill_readable_key(nb.p ? nb.p : "", nb.len, d.topic, d.whose, key);
        am__buf_free(&nb);
        if (rc) return rc;
    }
    double conf = db->cfg.rank.llm_confidence;
    if (p->confidence >= 0 && p->confidence < conf) conf = p->confidence;
    am__buf v;
    am__buf_init(&v, &db->alloc);
    am__buf_adds(&v, "{\"statement\":");
    am__buf_json_str(&v, p->text);
    am__buf_printf(&v, ",\"rule\":\"llm\",\"source\":\"llm\",\"lang\":\"%s\"}",
                   am__text_lang(p->text, len) >= AM_LANG_ZH ? "zh" : "en");
    const char *value = v.oom ? NULL : am__arena_strndup(w->ar, v.p, v.len);
    const char *k_key = am__arena_strdup(w->ar, key);
    am__buf_free(&v);
    if (!value || !k_key) return AM_NOMEM;
    am__statement st = {p->kind, k_key, "global", p->text, value, conf, ids[0], 0, NULL,
                        d.topic, d.whose, 0, "llm", 0};
    int outcome = 0;
    char lineage[27] = "";
    w->now = at;
    w->event_id = ids[0];
    if ((rc = am__semantic_state(w, &st, &outcome, lineage))) return rc;
    if (outcome == AM__M_CREATED) r->created++;
    else if (outcome == AM__M_NOTHING || !outcome) r->dropped++;
    else r->merged++;
    if (lineage[0] && k > 1) rc = more_sources(w, lineage, p->text, ids, k);
    return rc;
}

static void report_log(am_db *db, const char *uid, const am_llm_report *r, int rc)
{
    am__logrec lr;
    am__logrec_begin(&lr, &db->log, rc ? AM_LOG_WARN : AM_LOG_INFO, "llm", am__db_now(db));
    am__logrec_str(&lr, "user", uid);
    am__logrec_int(&lr, "events", r->events);
    am__logrec_int(&lr, "calls", r->calls);
    am__logrec_int(&lr, "retries", r->retries);
    am__logrec_int(&lr, "tokens", r->tokens);
    am__logrec_int(&lr, "proposed", r->proposed);
    am__logrec_int(&lr, "created", r->created);
    am__logrec_int(&lr, "merged", r->merged);
    am__logrec_int(&lr, "one_off", r->one_off);
    am__logrec_int(&lr, "dropped", r->dropped);
    am__logrec_int(&lr, "budget_exhausted", r->budget_exhausted);
    am__logrec_int(&lr, "refused", r->refused);
    am__logrec_str(&lr, "outcome", am_errstr(rc));
    am__logrec_emit(&lr);
}

/* b brought up to date with uid's audit rows written since it was read
 * (every process's passes: the budget is the store's). */
static int budget_read(am_db *db, const char *uid, am__llm_budget *b)
{
    am__store *s = db->store;
    am__arena ar;
    int rc = am__store_begin_read(s);
    if (rc) return rc;
    for (int more = 1; !rc && more;) {
        am__audit_row *rows;
        size_t n;
        am__arena_init(&ar, &db->alloc);
        if (!(rc = am__store_audit_page(s, uid, b->seq, 500, &ar, &rows, &n))) {
            for (size_t i = 0; i < n; i++)
                am__llm_budget_add(b, rows[i].seq, rows[i].at, rows[i].op, rows[i].detail);
            more = n == 500;
        }
        am__arena_free(&ar);
    }
    am__store_end_read(s);
    return rc;
}

/* What a pass spent, as its audit row's detail (counts only). */
static const char *spent(const am_llm_report *r, char *buf, size_t n)
{
    snprintf(buf, n, "{\"calls\":%ld,\"tokens\":%ld}", r->calls, r->tokens);
    return buf;
}

/* A pass that wrote nothing still spent its calls: its audit row alone (a
 * user forgotten meanwhile gets none). */
static void audit_alone(am_db *db, const char *uid, const am_llm_report *r)
{
    am__store *s = db->store;
    char d[96];
    if (!r->calls || am__store_begin(s)) return;
    int rc = am__touch_lock_writers(db, &uid, 1);
    if (!rc && am__store_user_exists(s, uid) > 0)
        rc = am__store_audit(s, uid, am__db_now(db), "llm.pass", "user", NULL,
                             spent(r, d, sizeof d));
    if (!rc && !(rc = am__store_commit(s))) {
        am__touch_committed(db);
        return;
    }
    am__store_rollback(s);
}

int am_llm_pass(am_db *db, const am_llm_pass_opts *o, am_llm_report *r)
{
    static const char what[] = "llm";
    if (!db || !o || !r) return AM_MISUSE;
    memset(r, 0, sizeof *r);
    am__db_clear_error(db);
    if (!db->llm)
        return am__db_error(db, AM_MISUSE,
                            "llm: no LLM is configured (am_config.llm; AGENTMEM_LLM="
                            "openai:MODEL@BASE_URL)");
    const char *why;
    if ((why = am__id_check(o->user_id))) return am__db_error(db, AM_INVALID, "llm: user %s", why);
    am_time since = AM_TIME_NONE;
    int tz, rc;
    if (o->since && am__time_parse(o->since, &since, &tz, &why))
        return am__db_error(db, AM_INVALID, "llm: since \"%.64s\" %s", o->since, why);
    if ((rc = am__db_user_gate(db, what, o->user_id, AM_NOTFOUND))) return rc;
    am__store *s = db->store;
    int exists = am__store_user_exists(s, o->user_id);
    if (exists < 0) return am__db_store_error(db, -exists, what);
    if (!exists) return am__db_error(db, AM_NOTFOUND, "llm: unknown user %s", o->user_id);
    const am_rank_config *k = &db->cfg.rank;
    am__llm_budget *bud = am__llm_budget_get(db->llm, o->user_id, am__db_now(db));
    if (!bud) return am__db_error(db, AM_NOMEM, "llm: out of memory");
    if ((rc = budget_read(db, o->user_id, bud))) return am__db_store_error(db, rc, what);
    if (!am__llm_budget_ok(bud, k->llm_calls_per_day, k->llm_tokens_per_day)) {
        r->budget_exhausted = 1;
        report_log(db, o->user_id, r, AM_OK);
        return AM_OK;
    }
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__event_row *ev = NULL;
    size_t n = 0;
    if (!(rc = am__store_begin_read(s))) {
        rc = read_batch(db, o, since, &ar, &ev, &n);
        am__store_end_read(s);
    }
    if (rc) {
        rc = rc == AM_NOMEM ? am__db_error(db, rc, "llm: out of memory")
                            : am__db_store_error(db, rc, what);
        goto out;
    }
    if (!n) goto out;
    am__llm_event *le = am__arena_alloc(&ar, n * sizeof *le);
    if (!le) { rc = am__db_error(db, AM_NOMEM, "llm: out of memory"); goto out; }
    for (size_t i = 0; i < n; i++) {
        char *t = am__arena_alloc(&ar, 32);
        if (!t) { rc = am__db_error(db, AM_NOMEM, "llm: out of memory"); goto out; }
        le[i] = (am__llm_event){ev[i].id, am__time_format(ev[i].occurred_at, ev[i].tz_minutes, t),
                                ev[i].content};
    }
    am__http_opts ho;
    memset(&ho, 0, sizeof ho);
    ho.timeout_ms = o->timeout_ms;
    ho.max_tries = o->max_tries;
    ho.max_backoff_ms = o->max_backoff_ms;
    ho.cancelled = o->cancelled;
    ho.cancel_ctx = o->cancel_ctx;
    am__llm_reply rep;
    char err[512];
    r->events = (long)n;
    rc = am__llm_ask(db->llm, le, n, &ho, &ar, &rep, err, sizeof err);
    r->calls = rep.tries;
    r->retries = rep.tries > 1 ? rep.tries - 1 : 0;
    r->tokens = rep.tokens;
    r->refused = rep.refused;
    if (rc) {
        am__db_error(db, rc, "llm: %s", err);
        audit_alone(db, o->user_id, r);
        goto out;
    }
    r->proposed = (long)(rep.n + (size_t)rep.dropped);
    r->dropped = rep.dropped;
    /* the proposals, in one write transaction */
    if ((rc = am__store_begin(s))) {
        am__db_store_error(db, rc, what);
        goto out;
    }
    am_llm_report before = *r;
    if ((rc = am__touch_lock_writers(db, &o->user_id, 1))) goto out_rollback;
    am__dbcache_note(db->cache, o->user_id);
    am__wctx w = {s, db->text, &db->ulid, &db->cfg.rank, &ar, o->user_id, am__db_now(db), NULL,
                  am__db_now(db), NULL};
    for (size_t i = 0; i < rep.n && !rc; i++) rc = propose(db, &w, &rep.p[i], ev, n, r);
    char d[96];
    if (!rc)
        rc = am__store_audit(s, o->user_id, am__db_now(db), "llm.pass", "user", NULL,
                             spent(r, d, sizeof d));
    if (!rc && !(rc = am__store_commit(s))) {
        am__touch_committed(db);
        goto out;
    }
out_rollback:
    am__store_rollback(s);
    /* nothing of the reply is written: the counts say so */
    before.dropped = before.proposed;
    *r = before;
    if (rc == AM_NOMEM) am__db_error(db, rc, "llm: out of memory");
    else am__db_store_error(db, rc, what);
    audit_alone(db, o->user_id, r);
out:
    am__arena_free(&ar);
    am__events_deliver(db);
    report_log(db, o->user_id, r, rc);
    return rc;
}
