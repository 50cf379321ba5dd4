/* SPDX-License-Identifier: Apache-2.0 */
/*
 * write.c -- am_add_event: the write path (docs/internals/ARCHITECTURE.md, "A write").
 *
 *   validate (F1) -> resolve identity (F2) -> redact (F3)
 *   -> perceive: task attribution and state (F5, F6, F20; perceive/)
 *   -> entities (F4) -> context window, task switch -> append + index,
 *      entities, aliases (F21) -> vector (F16), PII vault
 *   -> distil each user sentence (F8, F12) -> merge into items (F9, F11)
 *   -> promotion and patterns (F9, F10) -> task row, audit
 *
 * This file checks the input, opens the transaction and calls the stages in
 * that order; what each stage decides lives in its layer.  Everything after
 * validation runs in one store transaction; any failure rolls it back, so
 * an event is either fully written (row, index, entities, task change,
 * items, audit) or not at all.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "api/db_int.h"
#include "distill/reading.h"
#include "distill/rules.h"
#include "perceive/perceive.h"
#include "recall/recall.h"
#include "semantic/merge.h"
#include "semantic/observe.h"
#include "store/metadata.h"
#include "text/entities.h"
#include "text/expiry.h"
#include "text/plain.h"
#include "text/redact.h"

#define MAX_ENTITIES 64

static const char *const sources[] = {"user", "agent", "tool", "system", NULL};
static const char *const types[] = {
    "query", "response", "tool_call", "tool_result", "status_change",
    "task_switch", "form_submit", "action", "preference_declare", "feedback",
    NULL};

static int in_list(const char *v, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(v, list[i]) == 0) return 1;
    return 0;
}

/* F1: check every field before anything is written. */
static int validate(am_db *db, const am_event *ev, am_time *at, int *tz)
{
    const char *why;
    if (!ev->text) return am__db_error(db, AM_INVALID, "add: text is missing");
    size_t n = strlen(ev->text);
    size_t bad;
    if (n > db->cfg.max_text_bytes)
        return am__db_error(db, AM_TOOBIG, "add: text is %zu bytes, over the limit of %zu",
                            n, db->cfg.max_text_bytes);
    if (!am__utf8_valid(ev->text, n, &bad))
        return am__db_error(db, AM_INVALID, "add: text: invalid UTF-8 at byte %zu", bad);
    uint32_t cp;
    if (am__plain_refused(ev->text, n, &bad, &cp))
        return am__db_error(db, AM_INVALID,
                            "add: text: control character U+%04X at byte %zu (only tab and line "
                            "breaks are allowed)", (unsigned)cp, bad);
    size_t k = 0;
    while (k < n && (ev->text[k] == ' ' || ev->text[k] == '\t' || ev->text[k] == '\n' ||
                     ev->text[k] == '\r'))
        k++;
    if (k == n) return am__db_error(db, AM_INVALID, "add: text is empty");
    static const struct { const char *name; size_t off; } ids[] = {
        {"agent", offsetof(am_event, agent_id)},
        {"session", offsetof(am_event, session_id)},
        {"task", offsetof(am_event, task_id)},
        {"domain", offsetof(am_event, domain)},
        {"intent", offsetof(am_event, intent)},
        {"id", offsetof(am_event, event_id)},
    };
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        const char *v = *(const char *const *)((const char *)ev + ids[i].off);
        int rc;
        if (v && (rc = am__db_check_id(db, "add", ids[i].name, v))) return rc;
    }
    if (ev->source && !in_list(ev->source, sources))
        return am__db_error(db, AM_INVALID, "add: source \"%s\" is not one of user, agent, tool, system",
                            ev->source);
    if (ev->type && !in_list(ev->type, types))
        return am__db_error(db, AM_INVALID, "add: type \"%s\" is not a known event type", ev->type);
    if (ev->occurred_at) {
        if (am__time_parse(ev->occurred_at, at, tz, &why))
            return am__db_error(db, AM_INVALID, "add: occurred_at \"%.64s\" %s", ev->occurred_at, why);
        /* the engine keeps what happened, not what will: an instant before
         * the epoch or beyond the clock (plus the allowed skew) is a wrong
         * clock or a typo, and would outrank every real memory */
        am_time latest = am__db_now(db) + (am_time)db->cfg.rank.future_skew_minutes * 60000;
        if (*at < 0)
            return am__db_error(db, AM_INVALID, "add: occurred_at \"%.64s\" is before 1970-01-01",
                                ev->occurred_at);
        if (*at > latest) {
            char lim[32];
            return am__db_error(db, AM_INVALID,
                                "add: occurred_at \"%.64s\" is in the future (later than %s, the"
                                " clock plus future_skew_minutes %d)",
                                ev->occurred_at, am__time_format(latest, 0, lim),
                                db->cfg.rank.future_skew_minutes);
        }
    } else {
        *at = am__db_now(db);
        *tz = db->cfg.default_tz_minutes;
    }
    return AM_OK;
}

/* What the caller gave for an event (every field but the identity, which
 * picks the user the id belongs to), as one 64-bit fingerprint: adding an
 * event with a known id compares it to tell a re-run from a clash.  The
 * time counts only when given (a re-run without one comes later). */
static int input_fingerprint(am_db *db, const am_event *in, am_time at, int64_t *out)
{
    const char *const f[] = {in->agent_id, in->session_id, in->task_id, in->source, in->type,
                             in->domain,   in->intent,     in->channel, in->text};
    am__buf b;
    am__buf_init(&b, &db->alloc);
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        if (f[i]) am__buf_add(&b, f[i], strlen(f[i]) + 1); /* with its NUL */
        else am__buf_addc(&b, '\x1f');                     /* never inside an id or text */
    }
    if (in->occurred_at) am__buf_printf(&b, "@%lld", (long long)at);
    if (in->metadata_json) { /* (absent: the fingerprint of before) */
        am__buf_addc(&b, '#');
        am__buf_adds(&b, in->metadata_json);
    }
    int rc = b.oom ? AM_NOMEM : AM_OK;
    if (!rc) *out = (int64_t)am__hash64(b.p, b.len);
    am__buf_free(&b);
    return rc;
}

/* An event the caller names with an id the user already has: *found = 1
 * and info filled when it is the same event, AM_INVALID when the id names
 * another; *found = 0 when the id is new. */
static int known_event(am_db *db, const am_event *in, const char *uid, int64_t fp,
                       am_add_info *info, int *found)
{
    char id[32], task[AM_ID_MAX + 1];
    int64_t stored = 0;
    *found = 0;
    int rc = db->store->vt->event_by_client(db->store, uid, in->event_id, id, task, &stored);
    if (rc == AM_NOTFOUND) return AM_OK;
    if (rc) return am__db_store_error(db, rc, "add");
    if (stored != fp)
        return am__db_error(db, AM_INVALID,
                            "add: id \"%s\" already names another event of user %s (%s):"
                            " the same id with other content",
                            in->event_id, uid, id);
    *found = 1;
    snprintf(info->event_id, sizeof info->event_id, "%s", id);
    snprintf(info->user_id, sizeof info->user_id, "%s", uid);
    snprintf(info->task_id, sizeof info->task_id, "%s", task);
    info->existing = 1;
    return AM_OK;
}

static const char *default_type(const char *source)
{
    if (strcmp(source, "agent") == 0) return "response";
    if (strcmp(source, "tool") == 0) return "tool_result";
    return "query";
}

typedef struct wctx_ex {
    am_db *db;
    am__perceive p;         /* the event, its task, the write context */
    am_add_info *info;
    am__distill prev;       /* the previous sentence's outcome */
    int strongest;          /* strongest AM__D_* action of the event */
    am__distill_turn turn;  /* the model's reading of the whole turn */
    const char *scope;
    int rc;
    /* the statements' decisions, logged once the event is written */
    const char *said;       /* the sentence or clause being decided */
    struct said {
        const char *text, *rule, *guard, *source, *kind;
        char key_id[AM__REF_LEN + 1], item[27];
        double score;
        int action, outcome;
    } said_log[32];
    size_t n_said;
} wctx_ex;

/* One sentence of a user event through the distillation rules. */
int am__db_distill(am_db *db, const char *s, size_t n, am__distill_turn *turn,
                   am__distill *prev, am__distill *d)
{
    am__buf norm;
    am__buf_init(&norm, &db->alloc);
    int rc = am__text_normalize(db->text, s, n, &norm);
    if (!rc) {
        am__distill_sentence(norm.p ? norm.p : "", norm.len, d);
        am__distill_follow(norm.p ? norm.p : "", norm.len, prev, d);
        d->ref = am__distill_reference(norm.p ? norm.p : "", norm.len);
        am__distill_read(s, n, norm.p ? norm.p : "", norm.len, turn, d);
        *prev = *d;
    }
    am__buf_free(&norm);
    return rc;
}

/* The conversation's latest events before this one (its session's, else
 * its task's), newest first, at most 20. */
static int recent_turns(wctx_ex *x, am__event_row **rows, size_t *n)
{
    am__wctx *w = &x->p.w;
    const am__event_row *ev = x->p.ev;
    *n = 0;
    *rows = NULL;
    if (!ev->session_id && !ev->task_id) return AM_OK;
    int rc = w->store->vt->events_recent(w->store, w->uid, ev->session_id,
                                         ev->session_id ? NULL : ev->task_id, AM_TIME_NONE, 21,
                                         w->ar, rows, n);
    if (rc) return rc;
    size_t m = 0;
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*rows)[i].id, ev->id) != 0 && strcmp((*rows)[i].type, "task_switch") != 0 &&
            (*rows)[i].occurred_at <= ev->occurred_at)
            (*rows)[m++] = (*rows)[i];
    *n = m;
    return AM_OK;
}

/* The content of the one-off said last in this conversation: the task's
 * current round's latest one-off note, else the latest one-off sentence of
 * the recent turns; NULL when there is none. */
#define ONE_OFF_MIN 0.6f /* the model's one-off reading that a reference can promote */

static int last_one_off(wctx_ex *x, const am__event_row *rows, size_t n, const char **out)
{
    *out = NULL;
    if (x->p.task && x->p.task->notes) {
        json_error_t e;
        json_t *a = json_loads(x->p.task->notes, 0, &e);
        size_t i;
        json_t *v;
        json_array_foreach(a, i, v) {
            const char *kind = json_string_value(json_object_get(v, "kind"));
            const char *text = json_string_value(json_object_get(v, "text"));
            if (kind && text && strcmp(kind, "one_off") == 0) *out = text;
        }
        if (*out && !(*out = am__arena_strdup(x->p.w.ar, *out))) {
            json_decref(a);
            return AM_NOMEM;
        }
        json_decref(a);
        if (*out) return AM_OK;
    }
    for (size_t i = 0; i < n && !*out; i++) {
        if (strcmp(rows[i].source, "user") != 0) continue;
        am__distill prev, d;
        memset(&prev, 0, sizeof prev);
        int rc = am__db_distill(x->db, rows[i].content, strlen(rows[i].content), NULL, &prev, &d);
        if (rc) return rc;
        /* the tables' one-off, or a request the model reads as one where
         * they are silent ("Stick a TL;DR at the top of this one") */
        if (d.action == AM__D_ONE_OFF ||
            (d.action == AM__D_NONE && !d.ref && !d.guard && d.oneoff_p >= ONE_OFF_MIN))
            *out = rows[i].content;
    }
    return AM_OK;
}

/* The end the statement's words name ("this month", "until Friday", "两
 * 周内"), resolved against the event's time in its zone, or 0: none. */
static am_time text_end(const wctx_ex *x, const char *text, size_t n)
{
    am_time end;
    return am__text_expiry(text, n, x->p.ev->occurred_at, x->p.ev->tz_minutes, &end) ? end : 0;
}

/* Content stated as a lasting item (the one-off made lasting, the turn to
 * remember), with the cue sentence as its provenance. */
static int put_lasting(wctx_ex *x, const char *content, const char *cue, const char *rule,
                       am__distill *d, int *outcome, char *lineage)
{
    am_db *db = x->db;
    am__buf norm, v;
    am__buf_init(&norm, &db->alloc);
    am__buf_init(&v, &db->alloc);
    int rc = am__text_normalize(db->text, content, strlen(content), &norm);
    if (!rc) {
        am__distill_lasting(norm.p ? norm.p : "", norm.len, rule, d);
        am__buf_adds(&v, "{\"statement\":");
        am__buf_json_str(&v, content);
        am__buf_adds(&v, ",\"cue\":");
        am__buf_json_str(&v, cue);
        am__buf_printf(&v, ",\"rule\":\"%s\",\"lang\":\"%s\"}", rule,
                       am__text_lang(content, strlen(content)) >= AM_LANG_ZH ? "zh" : "en");
        const char *value = v.oom ? NULL : am__arena_strndup(x->p.w.ar, v.p, v.len);
        if (!value) rc = AM_NOMEM;
        else {
            am__statement st = {d->kind, d->key, x->scope, content, value, d->confidence,
                                x->p.ev->id, 0, NULL, NULL, NULL, 0, "rules",
                                text_end(x, content, strlen(content))};
            rc = am__semantic_put(&x->p.w, &st, outcome, lineage);
        }
    }
    am__buf_free(&norm);
    am__buf_free(&v);
    return rc;
}

/* A reference-only sentence: what it points at, in the conversation. */
static int on_reference(wctx_ex *x, int ref, const char *sentence, am__distill *d, int *outcome,
                        char *lineage)
{
    am__event_row *rows;
    size_t n;
    int rc = recent_turns(x, &rows, &n);
    if (rc) return rc;
    *outcome = AM__M_NOTHING;
    if (ref == AM__REF_RETRACT) {
        const char **ids = am__arena_alloc(x->p.w.ar, (n + 1) * sizeof *ids);
        if (!ids) return AM_NOMEM;
        for (size_t i = 0; i < n; i++) ids[i] = rows[i].id;
        d->rule = "ref_retract";
        rc = am__semantic_invalidate_recent(&x->p.w, ids, n, x->scope, outcome, lineage);
        if (!rc && *outcome == AM__M_INVALIDATED) x->info->memories_invalidated++;
        return rc;
    }
    const char *content = NULL;
    if (ref == AM__REF_PROMOTE) {
        if ((rc = last_one_off(x, rows, n, &content))) return rc;
    } else {
        /* the preceding turn, the agent's or the user's own (not another
         * bare reference) */
        for (size_t i = 0; i < n && !content; i++) {
            am__buf nb;
            am__buf_init(&nb, &x->db->alloc);
            rc = am__text_normalize(x->db->text, rows[i].content, strlen(rows[i].content), &nb);
            int bare = !rc && am__distill_reference(nb.p ? nb.p : "", nb.len);
            am__buf_free(&nb);
            if (rc) return rc;
            if (!bare) content = rows[i].content;
            else break;
        }
    }
    if (!content) return AM_OK;
    rc = put_lasting(x, content, sentence, ref == AM__REF_PROMOTE ? "ref_promote" : "ref_remember",
                     d, outcome, lineage);
    if (rc) return rc;
    if (*outcome == AM__M_CREATED) x->info->memories_created++;
    else if (*outcome != AM__M_NOTHING) x->info->memories_updated++;
    return AM_OK;
}

/* The kind of the item lineage names (its latest version), for the log
 * of an invalidation, whose sentence has no kind of its own; NULL when
 * none is found. */
static int item_kind(wctx_ex *x, const char *lineage, const char **kind)
{
    am__wctx *w = &x->p.w;
    am__item_row *rows;
    size_t n;
    *kind = NULL;
    int rc = w->store->vt->items_list(w->store, w->uid,
                                      AM__ITEMS_ALL | AM__ITEMS_NO_SOURCES | AM__ITEMS_NO_HEAT,
                                      INT64_MAX, w->ar, &rows, &n);
    const am__item_row *last = NULL;
    for (size_t i = 0; !rc && i < n; i++)
        if (strcmp(rows[i].lineage_id, lineage) == 0 &&
            (!last || rows[i].recorded_at > last->recorded_at))
            last = &rows[i];
    if (last) *kind = last->kind;
    return rc;
}

/* A statement's decision, kept for the log (said_out). */
static int said_keep(wctx_ex *x, const am__distill *d, int outcome, const char *lineage,
                     const char *kid)
{
    if (!am__log_on(&x->db->log) || x->n_said >= sizeof x->said_log / sizeof *x->said_log)
        return AM_OK;
    struct said *e = &x->said_log[x->n_said++];
    e->text = x->said;
    e->rule = d->rule;
    e->guard = d->guard;
    e->source = d->source ? d->source : "rules";
    e->kind = d->kind;
    e->score = d->source && strcmp(d->source, "model") == 0 ? d->keep_p : d->confidence;
    e->action = d->action;
    e->outcome = outcome;
    snprintf(e->key_id, sizeof e->key_id, "%s", kid);
    snprintf(e->item, sizeof e->item, "%s", lineage);
    if (outcome == AM__M_INVALIDATED && lineage[0]) return item_kind(x, lineage, &e->kind);
    return AM_OK;
}

/* The name of a statement's outcome in the log (docs/SERVER.md "Logs"). */
static const char *said_outcome(const struct said *e)
{
    static const char *const names[] = {"not_kept",    "created",  "superseded",
                                        "reinforced",  "pending",  "invalidated",
                                        "not_kept",    "historical"};
    if (e->action == AM__D_ONE_OFF) return "one_off";
    if (e->outcome < 0 || e->outcome >= (int)(sizeof names / sizeof *names)) return "not_kept";
    return names[e->outcome];
}

/* The write's records: each statement's decision, then the write (after
 * the event is in the store). */
static void said_out(wctx_ex *x, const am__event_row *ev, const am_add_info *info, int64_t t0)
{
    am_db *db = x->db;
    am__logrec r;
    for (size_t i = 0; i < x->n_said; i++) {
        const struct said *e = &x->said_log[i];
        am__logrec_begin(&r, &db->log, e->action == AM__D_NONE ? AM_LOG_DEBUG : AM_LOG_INFO,
                         "extract", am__db_now(db));
        am__logrec_str(&r, "user", x->p.w.uid);
        am__logrec_str(&r, "event_id", ev->id);
        am__logrec_int(&r, "statement", (int64_t)i);
        am__logrec_str(&r, "source", e->source);
        am__logrec_str(&r, "rule", e->rule);
        if (e->guard) am__logrec_str(&r, "guard", e->guard);
        am__logrec_str(&r, "kind", e->kind);
        if (e->key_id[0]) am__logrec_str(&r, "key", e->key_id);
        am__logrec_real(&r, "score", e->score);
        am__logrec_str(&r, "outcome", said_outcome(e));
        if (e->item[0]) am__logrec_str(&r, "memory_id", e->item);
        am__logrec_text(&r, "text", e->text);
        am__logrec_emit(&r);
    }
    am__logrec_begin(&r, &db->log, AM_LOG_INFO, "write", am__db_now(db));
    am__logrec_str(&r, "user", x->p.w.uid);
    am__logrec_str(&r, "event_id", ev->id);
    am__logrec_str(&r, "source", ev->source);
    am__logrec_str(&r, "type", ev->type);
    am__logrec_str(&r, "lang", ev->lang);
    if (ev->task_id) am__logrec_str(&r, "task", ev->task_id);
    am__logrec_int(&r, "bytes", (int64_t)strlen(ev->content));
    am__logrec_int(&r, "statements", (int64_t)x->n_said);
    am__logrec_int(&r, "memories_created", info->memories_created);
    am__logrec_int(&r, "memories_updated", info->memories_updated);
    am__logrec_int(&r, "memories_invalidated", info->memories_invalidated);
    am__logrec_int(&r, "one_off", info->one_off);
    am__logrec_int(&r, "task_changed", info->task_changed);
    am__logrec_real(&r, "ms", (double)(am__mono_us() - t0) / 1000.0);
    am__logrec_text(&r, "text", ev->content);
    am__logrec_emit(&r);
}

/* The log record, the audit row and the memory event of one outcome. */
static int record(wctx_ex *x, const am__distill *d, int outcome, const char *lineage)
{
    am__wctx *w = &x->p.w;
    /* a key holds the user's words (a readable key): logs and the audit
     * name it by its opaque id, which a forget leaves meaningless */
    char kid[AM__REF_LEN + 1] = "";
    int rc = d->key[0] ? am__store_key_id(w->store, w->uid, x->scope, d->key, kid) : AM_OK;
    if (!rc) rc = said_keep(x, d, outcome, lineage, kid);
    if (rc) return rc;
    if (!outcome || outcome == AM__M_NOTHING) return AM_OK;
    static const char *const ops[] = {"", "memory.created", "memory.updated",
                                      "memory.reinforced", "memory.pending",
                                      "memory.invalidated", "", "memory.historical"};
    rc = w->store->vt->audit(w->store, w->uid, w->now, ops[outcome], "memory", lineage,
                             kid[0] ? kid : NULL);
    /* the event names the item's key as the item holds it now (an
     * invalidation's sentence has none of its own) */
    if (!rc) rc = am__semantic_event(w, ops[outcome], lineage, NULL, NULL, NULL);
    return rc;
}

/* A lasting statement: text (the sentence or one of its clauses) as an
 * item of d's kind and key. */
static int put_statement(wctx_ex *x, const char *text, size_t n, const am__distill *d,
                         am_time frame_end, int *outcome, char *lineage)
{
    am_db *db = x->db;
    const char *sentence = am__arena_strndup(x->p.w.ar, text, n);
    if (!sentence) return AM_NOMEM;
    am__buf v;
    am__buf_init(&v, &db->alloc);
    am__buf_adds(&v, "{\"statement\":");
    am__buf_json_str(&v, sentence);
    am__buf_printf(&v, ",\"rule\":\"%s\",\"source\":\"%s\",\"lang\":\"%s\"", d->rule,
                   d->source ? d->source : "rules",
                   am__text_lang(text, n) >= AM_LANG_ZH ? "zh" : "en");
    if (d->whose) am__buf_printf(&v, ",\"whose\":\"%s\"", d->whose);
    if (d->topic) am__buf_printf(&v, ",\"topic\":\"%s\"", d->topic);
    am__buf_addc(&v, '}');
    const char *value = v.oom ? NULL : am__arena_strndup(x->p.w.ar, v.p, v.len);
    am__buf_free(&v);
    if (!value) return AM_NOMEM;
    am__statement st = {d->kind,      d->key,
                        x->scope,     sentence,
                        value,        d->confidence,
                        x->p.ev->id,  d->restated,
                        d->old_value[0] ? d->old_value : NULL,
                        d->topic,     d->whose,
                        0,            d->source ? d->source : "rules",
                        text_end(x, sentence, n)};
    if (!st.expires_at) st.expires_at = frame_end;
    int rc = am__semantic_put(&x->p.w, &st, outcome, lineage);
    if (rc) return rc;
    if (*outcome == AM__M_CREATED) x->info->memories_created++;
    else x->info->memories_updated++;
    return AM_OK;
}

#define END_CLAUSES 0.15f /* a sentence's invalidation probability from which its clauses are read */

/* A clause s[0..n) that ends something lasting ("I stopped running in the
 * mornings"): it closes that item; c its own reading. */
static int end_clause(wctx_ex *x, const char *s, size_t n, am__distill *c)
{
    int outcome = 0;
    char lineage[27] = "", ikey[AM__KEY_MAX] = "";
    const char *clause = am__arena_strndup(x->p.w.ar, s, n);
    if (!clause) return AM_NOMEM;
    if (c->action != AM__D_INVALIDATE) {
        c->rule = "model_invalidation";
        c->source = "model";
    }
    c->action = AM__D_INVALIDATE;
    c->ref = 0;
    int rc = am__semantic_invalidate(&x->p.w, clause, x->scope, &outcome, lineage, ikey);
    if (!rc) rc = record(x, c, outcome, lineage);
    if (!rc && outcome == AM__M_INVALIDATED) x->info->memories_invalidated++;
    if (c->action > x->strongest) x->strongest = c->action;
    return rc;
}

/* A lasting sentence that states several things, or one among words that
 * do not last: each clause its own item (distill/reading.h).  *done = 1
 * when the clauses were kept, 0 when the sentence is one statement. */
static int put_clauses(wctx_ex *x, const char *s, size_t n, const am__distill *d, int *done)
{
    size_t from[8], to[8];
    *done = 0;
    /* a change of a value makes the sentence one statement; so does a
     * rule's explicit cue ("from now on", "以后"), unless each clause names
     * the speaker ("I live in Munich and I never take calls before 10am") */
    if (d->restated || d->old_value[0]) return AM_OK;
    int cue = d->source && strcmp(d->source, "rules") == 0 && d->rule &&
              strncmp(d->rule, "lasting_", 8) != 0 && strcmp(d->rule, "profile_fact") != 0;
    unsigned char ends[8];
    size_t m = am__distill_clauses(s, n, cue, from, to, ends, 8);
    if (!m) return AM_OK;
    *done = 1;
    /* a bound in the words around the clauses ("Until the end of March,
     * I don't eat sugar") holds for each clause that names none */
    char *frame = am__arena_strndup(x->p.w.ar, s, n);
    if (!frame) return AM_NOMEM;
    for (size_t k = 0; k < m; k++) memset(frame + from[k], ' ', to[k] - from[k]);
    am_time frame_end = text_end(x, frame, n);
    for (size_t k = 0; k < m; k++) {
        am__distill prev, c;
        memset(&prev, 0, sizeof prev);
        int rc = am__db_distill(x->db, s + from[k], to[k] - from[k], NULL, &prev, &c);
        if (rc) return rc;
        if (ends[k]) {
            if ((rc = end_clause(x, s + from[k], to[k] - from[k], &c))) return rc;
            continue;
        }
        if (c.action != AM__D_PERSIST || c.ref) {
            /* the clause lasts in the sentence's reading: the sentence's
             * kind, a key of its own words */
            am__buf nb;
            am__buf_init(&nb, &x->db->alloc);
            rc = am__text_normalize(x->db->text, s + from[k], to[k] - from[k], &nb);
            if (rc) {
                am__buf_free(&nb);
                return rc;
            }
            char key[96];
            am__distill_readable_key(nb.p ? nb.p : "", nb.len, c.topic ? c.topic : d->topic,
                                     c.whose ? c.whose : d->whose, key);
            am__buf_free(&nb);
            const char *topic = c.topic, *whose = c.whose;
            c = *d;
            c.topic = topic ? topic : d->topic;
            c.whose = whose ? whose : d->whose;
            c.ref = 0;
            memcpy(c.key, key, sizeof c.key);
        }
        int outcome = 0;
        char lineage[27] = "";
        x->said = am__arena_strndup(x->p.w.ar, s + from[k], to[k] - from[k]);
        if ((rc = put_statement(x, s + from[k], to[k] - from[k], &c, frame_end, &outcome,
                                lineage)) ||
            (rc = record(x, &c, outcome, lineage)))
            return rc;
    }
    return AM_OK;
}

/* A sentence that is no statement but may hold a clause that ends one:
 * its invalidating clauses, each closing an item (*done = 1 when there
 * were some). */
static int end_clauses(wctx_ex *x, const char *s, size_t n, int *done)
{
    size_t from[8], to[8];
    unsigned char ends[8];
    *done = 0;
    size_t m = am__distill_clauses(s, n, 0, from, to, ends, 8);
    for (size_t k = 0; k < m; k++) {
        if (!ends[k]) continue;
        am__distill prev, c;
        memset(&prev, 0, sizeof prev);
        int rc = am__db_distill(x->db, s + from[k], to[k] - from[k], NULL, &prev, &c);
        if (rc) return rc;
        if ((rc = end_clause(x, s + from[k], to[k] - from[k], &c))) return rc;
        *done = 1;
    }
    return AM_OK;
}

static int on_sentence(void *ctx, const char *s, size_t n)
{
    wctx_ex *x = ctx;
    am_db *db = x->db;
    am__distill d;
    int rc = am__db_distill(db, s, n, &x->turn, &x->prev, &d);
    if (rc) goto out;
    if (d.action > x->strongest) x->strongest = d.action;
    const char *sentence = am__arena_strndup(x->p.w.ar, s, n);
    if (!sentence) { rc = AM_NOMEM; goto out; }
    x->said = sentence;
    int outcome = 0;
    char lineage[27] = "", ikey[AM__KEY_MAX] = "";
    if (d.ref) {
        /* "以后都这样", "no need to do that anymore", "记住这个": the
         * sentence is about what was just said, never an item itself */
        if ((rc = on_reference(x, d.ref, sentence, &d, &outcome, lineage))) goto out;
        d.action = outcome == AM__M_INVALIDATED ? AM__D_INVALIDATE
                   : outcome && outcome != AM__M_NOTHING ? AM__D_PERSIST
                                                         : AM__D_NONE;
        if (d.action > x->strongest) x->strongest = d.action;
    } else switch (d.action) {
    case AM__D_PERSIST: {
        int done = 0;
        if ((rc = put_clauses(x, s, n, &d, &done))) goto out;
        if (done) goto out;
        if ((rc = put_statement(x, s, n, &d, 0, &outcome, lineage))) goto out;
        break;
    }
    case AM__D_INVALIDATE:
        if ((rc = am__semantic_invalidate(&x->p.w, sentence, x->scope, &outcome, lineage,
                                          ikey)))
            goto out;
        if (outcome == AM__M_INVALIDATED) x->info->memories_invalidated++;
        break;
    case AM__D_ONE_OFF:
        x->info->one_off = 1;
        if ((rc = am__perceive_one_off(&x->p, sentence))) goto out;
        break;
    default: {
        /* "跟你说 酒我已经戒了，快一个月了哈哈": a clause that ends
         * something lasting, in a sentence that as a whole does not */
        int done = 0;
        if (!d.guard && d.end_p >= END_CLAUSES && (rc = end_clauses(x, s, n, &done))) goto out;
        if (done) goto out;
        break;
    }
    }
    rc = record(x, &d, outcome, lineage);
out:
    x->rc = rc;
    return rc;
}

/* Entities (F4): stored per event (after the row exists) and, as task
 * artifacts, files and links. */
static int store_entities(am__perceive *x, const am__entity *ents, size_t n)
{
    const char *c = x->ev->content;
    size_t clen = strlen(c);
    int rc;
    for (size_t i = 0; i < n; i++) {
        const am__entity *e = &ents[i];
        if (e->end > clen || e->start > e->end) continue;
        const char *surface = am__arena_strndup(x->w.ar, c + e->start, e->end - e->start);
        if (!surface) return AM_NOMEM;
        am__entity_row row = {am__ent_type_name(e->type), surface, e->norm, e->from, e->to};
        if ((rc = x->w.store->vt->entity_put(x->w.store, x->w.uid, x->ev->rid, &row))) return rc;
        if ((e->type == AM_ENT_URL || e->type == AM_ENT_FILE) &&
            (rc = am__perceive_artifact(x, am__ent_type_name(e->type), e->norm)))
            return rc;
    }
    return AM_OK;
}

/* F16: a vector of the (redacted) text, tagged with the embedder; only
 * for text the embedder represents (use-lite: not Chinese).  *out stays
 * NULL when there is none.  Computed before the write lock is taken (a
 * remote embedder answers in milliseconds to seconds). */
static int embed(am_db *db, am__arena *ar, const char *text, int lang, float **out)
{
    *out = NULL;
    int en = lang != AM_LANG_ZH && lang != AM_LANG_MIXED; /* as ev.lang says "en" */
    if (!db->embedder || (!en && !db->embed_zh)) return AM_OK;
    float *vec = am__arena_alloc(ar, (size_t)db->embedder->dim * sizeof *vec);
    if (!vec) return am__db_error(db, AM_NOMEM, "add: out of memory");
    char eerr[256];
    const char *texts[1] = {text};
    int rc = db->embedder->embed(db->embedder, texts, 1, vec, eerr, sizeof eerr);
    if (rc) return am__db_error(db, rc, "add: embedder: %s", eerr);
    *out = vec;
    return AM_OK;
}

/* F3: secrets never reach the store; PII becomes placeholders.  The
 * caller frees *red (also on error). */
static int redact(am_db *db, const char *text, am__redact_result *red)
{
    am__redact_policy policy;
    am__db_redact_policy(db, &policy);
    memset(red, 0, sizeof *red);
    int rc = am__redact(&db->alloc, text, strlen(text), &policy, red);
    if (rc) return am__db_error(db, rc, "add: %s", rc == AM_NOMEM ? "out of memory" : "redaction failed");
    return AM_OK;
}

/* F15, F7: the scope the event's statements apply to.  A statement made
 * inside a business domain applies to that domain (domain:X), otherwise
 * everywhere -- unless the text clearly names another domain than the
 * caller's (am__domain_conflict, the read path's check): then it applies
 * to the text's domain, never hidden under the wrong one, and the
 * mismatch is logged and audited (event.domain_mismatch). */
static int statement_scope(am_db *db, am__arena *ar, const am_event *in, const char *uid,
                           const char *id, const char *norm, size_t len, const char **scope)
{
    *scope = "global";
    if (!in->domain) return AM_OK;
    const char *domain = in->domain;
    if (am__domain_conflict(in->domain, norm, len)) {
        domain = am__domain_infer(norm, len);
        am__db_log(db, AM_LOG_WARN,
                   "add: user %s: event %s: domain \"%s\" disagrees with the text (%s); "
                   "stored under domain:%s",
                   uid, id, in->domain, domain, domain);
        char *why = am__arena_alloc(ar, strlen(in->domain) + strlen(domain) + 32);
        if (!why) return AM_NOMEM;
        sprintf(why, "given %s, text %s", in->domain, domain);
        int rc = db->store->vt->audit(db->store, uid, am__db_now(db), "event.domain_mismatch",
                                      "event", id, why);
        if (rc) return rc;
    }
    char *sc = am__arena_alloc(ar, strlen(domain) + 8);
    if (!sc) return AM_NOMEM;
    memcpy(sc, "domain:", 7);
    strcpy(sc + 7, domain);
    *scope = sc;
    return AM_OK;
}

/* One event through the write path; own_txn: in its own transaction,
 * else inside the caller's (which rolls back on error).  given: its
 * vector computed already (*given, NULL for none), or NULL: computed here,
 * before the transaction when it is the event's own. */
static int add_one(am_db *db, const am_event *in, am_add_info *info, int own_txn,
                   float *const *given)
{
    am_add_info dummy;
    if (!info) info = &dummy;
    memset(info, 0, sizeof *info);
    am_time at;
    int tz, rc;
    int64_t t0 = am__mono_us();
    if ((rc = validate(db, in, &at, &tz))) return rc;

    am__store *s = db->store;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__buf norm, doc;
    am__buf_init(&norm, &db->alloc);
    am__buf_init(&doc, &db->alloc);
    am__redact_result red;
    /* redaction and the vector need no store: before the write lock */
    if ((rc = redact(db, in->text, &red))) goto out_free;
    /* the caller's metadata, checked and made canonical (store/metadata.h) */
    const char *meta = NULL;
    char why[256];
    if ((rc = am__meta_check(in->metadata_json, &ar, &meta, why, sizeof why))) {
        am__db_error(db, rc, "add: %s", rc == AM_NOMEM ? "out of memory" : why);
        goto out_free;
    }
    size_t clen = strlen(red.text);
    int lang = am__text_lang(red.text, clen);
    float *vec = given ? *given : NULL;
    if (!given && (rc = embed(db, &ar, red.text, lang, &vec))) goto out_free;

    if (own_txn && (rc = s->vt->begin(s))) {
        am__db_store_error(db, rc, "add");
        goto out_free;
    }
    /* recalls' heat kept while the lock was busy (touch.c), its users'
     * locks and the event's taken first in the store's order */
    if (own_txn && ((rc = am__touch_lock_writers(db, &in->user_id, 1)) ||
                    (rc = am__touch_flush(db))))
        goto out_store;
    char uid[AM_ID_MAX + 1];
    if ((rc = am__db_resolve_user(db, "add", in->user_id, in->channel, in->external_id, 1, uid)))
        goto out_rollback;
    am__dbcache_note(db->cache, uid); /* the shared cache's generation, after the commit */
    int64_t fp = 0;
    if (in->event_id) {
        int found;
        if ((rc = input_fingerprint(db, in, at, &fp))) goto out_store;
        if ((rc = known_event(db, in, uid, fp, info, &found))) goto out_rollback;
        if (found) { /* a re-run: nothing to write */
            if (own_txn) s->vt->rollback(s);
            goto out_free;
        }
    }

    am__event_row ev;
    memset(&ev, 0, sizeof ev);
    char id[27];
    am__db_new_id(db, at, id);
    ev.id = id;
    ev.user_id = uid;
    ev.agent_id = in->agent_id;
    ev.session_id = in->session_id;
    ev.channel = in->channel;
    ev.source = in->source ? in->source : "user";
    ev.type = in->type ? in->type : default_type(ev.source);
    ev.content = red.text;
    ev.domain = in->domain;
    ev.intent = in->intent;
    ev.occurred_at = at;
    ev.tz_minutes = tz;
    ev.ingested_at = am__db_now(db);
    ev.client_id = in->event_id;
    ev.client_hash = fp;
    ev.metadata = meta;
    ev.lang = lang == AM_LANG_ZH ? "zh" : lang == AM_LANG_MIXED ? "mixed" : "en";
    if ((rc = am__text_normalize(db->text, red.text, clen, &norm))) goto out_store;
    /* the content's token set, stored with it for recalls to rank the turn
     * by (hop hits, the block's candidates): computed now, while the
     * analyzer holds the text's normal form */
    uint64_t set[AM__EVENT_SET];
    size_t nset;
    unsigned char *blob = am__arena_alloc(&ar, AM__EVENT_TOKBLOB_MAX);
    if (!blob) { rc = AM_NOMEM; goto out_store; }
    if ((rc = am__text_token_set(db->text, red.text, clen, set, AM__EVENT_SET, &nset)))
        goto out_store;
    ev.tokens = blob;
    ev.tokens_len = am__token_blob_put_n(set, nset, AM__EVENT_SET, blob);

    /* F5, F6, F20: the event's task and what the event does to it */
    wctx_ex x;
    memset(&x, 0, sizeof x);
    x.db = db;
    x.p.w = (am__wctx){s, db->text, &db->ulid, &db->cfg.rank, &ar, uid, at, id, am__db_now(db),
                       meta};
    x.p.ev = &ev;
    x.info = info;
    const char *task_id = NULL, *switched_from = NULL;
    if ((rc = am__perceive_attribute(&x.p, in, norm.p, norm.len, &task_id, &switched_from)))
        goto out_store;
    ev.task_id = task_id;
    if ((rc = statement_scope(db, &ar, in, uid, id, norm.p ? norm.p : "", norm.len, &x.scope)))
        goto out_store;

    if (task_id && (rc = am__perceive_task(&x.p, task_id, norm.p, norm.len))) goto out_store;
    info->task_changed = x.p.task_changed;
    /* F4: index document = content + normalised entities, one document
     * (the facts are indexed beside the text they come from, not alone). */
    am__entity ents[MAX_ENTITIES];
    size_t ne = 0;
    if ((rc = am__entities_extract(red.text, clen, at, tz, ents, MAX_ENTITIES, &ne)))
        goto out_store;
    am__buf_adds(&doc, red.text);
    for (size_t i = 0; i < ne; i++) {
        am__buf_addc(&doc, ' ');
        am__buf_adds(&doc, ents[i].norm);
    }
    if (doc.oom) { rc = AM_NOMEM; goto out_store; }
    ev.index_doc = doc.p;
    /* The session's context window (indexed beside the event), a topic
     * jump, then the row, its entities, the aliases its line teaches and
     * the event's place in the context of the turns before it. */
    am__context_window cw;
    am__perceive_context_init(&cw, &db->alloc);
    rc = am__perceive_context(&x.p, &cw);
    if (!rc && switched_from) rc = am__perceive_switch(&x.p, switched_from, task_id);
    if (!rc) rc = s->vt->event_put(s, &ev);
    if (!rc) rc = store_entities(&x.p, ents, ne);
    if (!rc) rc = am__perceive_alias(&x.p, red.text, cw.prev, cw.n_before, at);
    if (!rc) rc = am__perceive_context_share(&x.p, &cw);
    am__perceive_context_free(&cw);
    if (rc) goto out_store;
    if (vec && (rc = s->vt->vec_put(s, uid, ev.rid, db->embedder->id, vec, db->embedder->dim)))
        goto out_store;
    for (size_t i = 0; i < red.n; i++) {
        if (!red.items[i].original) continue;
        am__pii_row p = {red.items[i].placeholder, am__pii_type_name(red.items[i].type),
                         red.items[i].original};
        if ((rc = s->vt->pii_put(s, uid, ev.rid, &p))) goto out_store;
    }
    /* F8: only what the user says about themself becomes long-term. */
    if (strcmp(ev.source, "user") == 0) {
        am__distill_turn_read(red.text, clen, &x.turn);
        rc = am__text_sentences(red.text, clen, on_sentence, &x);
        if (rc) goto out_store;
        am__observe_out ob;
        if ((rc = am__semantic_observe(&x.p.w, &ev, norm.p ? norm.p : "", norm.len, x.strongest,
                                       &ob)))
            goto out_store;
        info->memories_created += ob.created;
        info->memories_updated += ob.updated;
    }
    if ((rc = am__perceive_save(&x.p))) goto out_store;
    if ((rc = s->vt->audit(s, uid, am__db_now(db), "event.add", "event", id,
                           red.secrets ? "secrets dropped" : NULL)))
        goto out_store;
    if (own_txn && (rc = s->vt->commit(s))) goto out_store;
    if (own_txn) am__touch_committed(db);
    if (own_txn) am__db_forget_work(db, 1); /* a step of a due purge, if any */
    snprintf(info->event_id, sizeof info->event_id, "%s", id);
    snprintf(info->user_id, sizeof info->user_id, "%s", uid);
    snprintf(info->task_id, sizeof info->task_id, "%s", task_id ? task_id : "");
    said_out(&x, &ev, info, t0);
    rc = AM_OK;
    goto out_free;

out_store:
    if (rc == AM_NOMEM) am__db_error(db, rc, "add: out of memory");
    else am__db_store_error(db, rc, "add");
out_rollback:
    if (own_txn) s->vt->rollback(s);
out_free:
    am__redact_result_free(&db->alloc, &red);
    am__buf_free(&norm);
    am__buf_free(&doc);
    am__arena_free(&ar);
    return rc;
}

/* A call that lost the store's connection is run again whole (retry):
 * safe when nothing of it was committed, and when the outcome of its
 * COMMIT is unknown for events with the caller's ids only (a second run
 * finds the first's event: am_add_info.existing). */
int am_add_event(am_db *db, const am_event *in, am_add_info *info)
{
    if (!db || !in) return AM_MISUSE;
    am__db_clear_error(db);
    int64_t t0 = 0;
    int rc;
    am_add_info mine;
    if (!info) info = &mine;
    do {
        rc = add_one(db, in, info, 1, NULL);
    } while (rc && am__db_retry(db, rc, "add", in->event_id != NULL, &t0));
    if (!rc) am__llm_added(db, in, info); /* its id queued, never its text */
    am__events_deliver(db);
    return rc;
}

/* The vectors of a batch's first AM__PREP_MAX events (each checked and
 * redacted as its add will), computed before the batch's transaction
 * takes the lock; later events get theirs inside it.  *vecs NULL: no
 * embedder.  On an error, *bad is the event's index. */
#define AM__PREP_MAX 256
static int batch_vectors(am_db *db, const am_event *evs, size_t n, am__arena *ar,
                         float ***vecs, size_t *bad)
{
    *vecs = NULL;
    if (!db->embedder) return AM_OK;
    size_t m = n < AM__PREP_MAX ? n : AM__PREP_MAX;
    float **v = am__arena_alloc(ar, m * sizeof *v);
    if (!v) return am__db_error(db, AM_NOMEM, "add: out of memory");
    for (size_t i = 0; i < m; i++) {
        am_time at;
        int tz, rc;
        am__redact_result red;
        *bad = i;
        if ((rc = validate(db, &evs[i], &at, &tz))) return rc;
        rc = redact(db, evs[i].text, &red);
        if (!rc) rc = embed(db, ar, red.text, am__text_lang(red.text, strlen(red.text)), &v[i]);
        am__redact_result_free(&db->alloc, &red);
        if (rc) return rc;
    }
    *vecs = v;
    return AM_OK;
}

/* events[i] failed with rc: nothing of the batch is written */
static int batch_fail(am_db *db, int rc, size_t i, size_t n, am_add_info *infos)
{
    char why[512];
    const char *m = am_errmsg(db);
    if (strncmp(m, "add: ", 5) == 0) m += 5;
    snprintf(why, sizeof why, "%s", m);
    if (infos) memset(infos, 0, n * sizeof *infos);
    return am__db_error(db, rc, "add: events[%zu]: %s", i, why);
}

static int add_batch(am_db *db, const am_event *evs, size_t n, am_add_info *infos)
{
    am__store *s = db->store;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    float **vecs;
    size_t bad = 0;
    int rc = batch_vectors(db, evs, n, &ar, &vecs, &bad);
    if (rc) {
        rc = batch_fail(db, rc, bad, n, infos);
        goto out;
    }
    if ((rc = s->vt->begin(s))) {
        rc = am__db_store_error(db, rc, "add");
        goto out;
    }
    /* the users' write locks first, in the store's order (a group of
     * several users' events: servers' groups never wait in a cycle) */
    const char *uids[64];
    size_t nu = 0;
    for (size_t i = 0; i < n && nu < 64; i++) uids[nu++] = evs[i].user_id;
    if ((rc = am__touch_lock_writers(db, uids, nu)) || (rc = am__touch_flush(db))) {
        am__db_store_error(db, rc, "add");
        s->vt->rollback(s);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        float *const *given = vecs && i < AM__PREP_MAX ? &vecs[i] : NULL;
        if ((rc = add_one(db, &evs[i], infos ? &infos[i] : NULL, 0, given))) {
            s->vt->rollback(s);
            rc = batch_fail(db, rc, i, n, infos);
            goto out;
        }
    }
    if ((rc = s->vt->commit(s))) {
        s->vt->rollback(s);
        if (infos) memset(infos, 0, n * sizeof *infos);
        rc = am__db_store_error(db, rc, "add");
        goto out;
    }
    am__touch_committed(db);
    am__db_forget_work(db, 1); /* a step of a due purge, if any */
out:
    am__arena_free(&ar);
    return rc;
}

int am_add_events(am_db *db, const am_event *evs, size_t n, am_add_info *infos)
{
    if (!db || (!evs && n)) return AM_MISUSE;
    am__db_clear_error(db);
    if (n == 0) return AM_OK;
    int ids = 1;
    for (size_t i = 0; i < n; i++) ids &= evs[i].event_id != NULL;
    int64_t t0 = 0;
    int rc;
    am_add_info *mine = NULL;
    if (!infos && db->llm_watch && (mine = am__calloc(&db->alloc, n * sizeof *mine))) infos = mine;
    do {
        rc = add_batch(db, evs, n, infos);
    } while (rc && am__db_retry(db, rc, "add", ids, &t0));
    for (size_t i = 0; !rc && infos && i < n; i++) am__llm_added(db, &evs[i], &infos[i]);
    am__free(&db->alloc, mine);
    am__events_deliver(db);
    return rc;
}
