/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pipeline.c -- the write path's driver (write.h): the stages of one
 * event in their order, and each user sentence through distillation into
 * item versions.  What each stage decides lives in its own folder
 * (perceive/, distill/, semantic/); this file sequences them and keeps
 * the statements' decisions for the log.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "write/semantic/merge.h"
#include "write/semantic/observe.h"
#include "text/domain.h"
#include "text/entities.h"
#include "text/expiry.h"
#include "write/write.h"

#define MAX_ENTITIES 64

/* A plain log line, formatted as the handle's log formats it. */
#define say(env, level, ...) am__say((env)->say, (env)->ctx, (level), __VA_ARGS__)


int am__write_distill(am__text *text, const am__allocator *a, const char *s, size_t n,
                      am__distill_turn *turn, am__distill *prev, am__distill *d)
{
    am__buf norm;
    am__buf_init(&norm, a);
    int rc = am__text_normalize(text, s, n, &norm);
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

static int distill(am__write *x, const char *s, size_t n, am__distill_turn *turn,
                   am__distill *prev, am__distill *d)
{
    return am__write_distill(x->env->text, x->env->alloc, s, n, turn, prev, d);
}

/* The conversation's latest events before this one (its session's, else
 * its task's), newest first, at most 20. */
static int recent_turns(am__write *x, am__event_row **rows, size_t *n)
{
    am__wctx *w = &x->p.w;
    const am__event_row *ev = x->p.ev;
    *n = 0;
    *rows = NULL;
    if (!ev->session_id && !ev->task_id) return AM_OK;
    int rc = am__store_events_recent(w->store, w->uid, ev->session_id,
                                     ev->session_id ? NULL : ev->task_id, AM_TIME_NONE, 21, w->ar,
                                     rows, n);
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

static int last_one_off(am__write *x, const am__event_row *rows, size_t n, const char **out)
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
        int rc = distill(x, rows[i].content, strlen(rows[i].content), NULL, &prev, &d);
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
static am_time text_end(const am__write *x, const char *text, size_t n)
{
    am_time end;
    return am__text_expiry(text, n, x->p.ev->occurred_at, x->p.ev->tz_minutes, &end) ? end : 0;
}

/* Content stated as a lasting item (the one-off made lasting, the turn to
 * remember), with the cue sentence as its provenance. */
static int put_lasting(am__write *x, const char *content, const char *cue, const char *rule,
                       am__distill *d, int *outcome, char *lineage)
{
    const am__write_env *env = x->env;
    am__buf norm, v;
    am__buf_init(&norm, env->alloc);
    am__buf_init(&v, env->alloc);
    int rc = am__text_normalize(env->text, content, strlen(content), &norm);
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
static int on_reference(am__write *x, int ref, const char *sentence, am__distill *d, int *outcome,
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
            am__buf_init(&nb, x->env->alloc);
            rc = am__text_normalize(x->env->text, rows[i].content, strlen(rows[i].content), &nb);
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
static int item_kind(am__write *x, const char *lineage, const char **kind)
{
    am__wctx *w = &x->p.w;
    am__item_row *rows;
    size_t n;
    *kind = NULL;
    int rc = w->store->vt->items.items_list(
        w->store, w->uid, AM__ITEMS_ALL | AM__ITEMS_NO_SOURCES | AM__ITEMS_NO_HEAT, INT64_MAX,
        w->ar, &rows, &n);
    const am__item_row *last = NULL;
    for (size_t i = 0; !rc && i < n; i++)
        if (strcmp(rows[i].lineage_id, lineage) == 0 &&
            (!last || rows[i].recorded_at > last->recorded_at))
            last = &rows[i];
    if (last) *kind = last->kind;
    return rc;
}

/* A statement's decision, kept for the log (said_out). */
static int said_keep(am__write *x, const am__distill *d, int outcome, const char *lineage,
                     const char *kid)
{
    if (!am__log_on(x->env->log) || x->n_said >= sizeof x->said_log / sizeof *x->said_log)
        return AM_OK;
    am__said *e = &x->said_log[x->n_said++];
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
static const char *said_outcome(const am__said *e)
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
static void said_out(am__write *x, const am__event_row *ev, const am_add_info *info, int64_t t0)
{
    const am__write_env *env = x->env;
    am__logrec r;
    for (size_t i = 0; i < x->n_said; i++) {
        const am__said *e = &x->said_log[i];
        am__logrec_begin(&r, env->log, e->action == AM__D_NONE ? AM_LOG_DEBUG : AM_LOG_INFO,
                         "extract", env->now(env->ctx));
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
    am__logrec_begin(&r, env->log, AM_LOG_INFO, "write", env->now(env->ctx));
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
static int record(am__write *x, const am__distill *d, int outcome, const char *lineage)
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
    rc = am__store_audit(w->store, w->uid, w->now, ops[outcome], "memory", lineage,
                         kid[0] ? kid : NULL);
    /* the event names the item's key as the item holds it now (an
     * invalidation's sentence has none of its own) */
    if (!rc) rc = am__semantic_event(w, ops[outcome], lineage, NULL, NULL, NULL);
    return rc;
}

/* A lasting statement: text (the sentence or one of its clauses) as an
 * item of d's kind and key. */
static int put_statement(am__write *x, const char *text, size_t n, const am__distill *d,
                         am_time frame_end, int *outcome, char *lineage)
{
    const char *sentence = am__arena_strndup(x->p.w.ar, text, n);
    if (!sentence) return AM_NOMEM;
    am__buf v;
    am__buf_init(&v, x->env->alloc);
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
static int end_clause(am__write *x, const char *s, size_t n, am__distill *c)
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
static int put_clauses(am__write *x, const char *s, size_t n, const am__distill *d, int *done)
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
        int rc = distill(x, s + from[k], to[k] - from[k], NULL, &prev, &c);
        if (rc) return rc;
        if (ends[k]) {
            if ((rc = end_clause(x, s + from[k], to[k] - from[k], &c))) return rc;
            continue;
        }
        if (c.action != AM__D_PERSIST || c.ref) {
            /* the clause lasts in the sentence's reading: the sentence's
             * kind, a key of its own words */
            am__buf nb;
            am__buf_init(&nb, x->env->alloc);
            rc = am__text_normalize(x->env->text, s + from[k], to[k] - from[k], &nb);
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
static int end_clauses(am__write *x, const char *s, size_t n, int *done)
{
    size_t from[8], to[8];
    unsigned char ends[8];
    *done = 0;
    size_t m = am__distill_clauses(s, n, 0, from, to, ends, 8);
    for (size_t k = 0; k < m; k++) {
        if (!ends[k]) continue;
        am__distill prev, c;
        memset(&prev, 0, sizeof prev);
        int rc = distill(x, s + from[k], to[k] - from[k], NULL, &prev, &c);
        if (rc) return rc;
        if ((rc = end_clause(x, s + from[k], to[k] - from[k], &c))) return rc;
        *done = 1;
    }
    return AM_OK;
}

static int on_sentence(void *ctx, const char *s, size_t n)
{
    am__write *x = ctx;
    am__distill d;
    int rc = distill(x, s, n, &x->turn, &x->prev, &d);
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

/* Entities: stored per event (after the row exists) and, as task
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
        if ((rc = am__store_entity_put(x->w.store, x->w.uid, x->ev->rid, &row))) return rc;
        if ((e->type == AM_ENT_URL || e->type == AM_ENT_FILE) &&
            (rc = am__perceive_artifact(x, am__ent_type_name(e->type), e->norm)))
            return rc;
    }
    return AM_OK;
}

/* The scope the event's statements apply to.  A statement made
 * inside a business domain applies to that domain (domain:X), otherwise
 * everywhere -- unless the text clearly names another domain than the
 * caller's (am__domain_conflict, the read path's check): then it applies
 * to the text's domain, never hidden under the wrong one, and the
 * mismatch is logged and audited (event.domain_mismatch). */
static int statement_scope(const am__write_env *env, am__arena *ar, const am_event *in,
                           const char *uid, const char *id, const char *norm, size_t len,
                           const char **scope)
{
    *scope = "global";
    if (!in->domain) return AM_OK;
    const char *domain = in->domain;
    if (am__domain_conflict(in->domain, norm, len)) {
        domain = am__domain_infer(norm, len);
        say(env, AM_LOG_WARN,
            "add: user %s: event %s: domain \"%s\" disagrees with the text (%s); "
            "stored under domain:%s",
            uid, id, in->domain, domain, domain);
        char *why = am__arena_alloc(ar, strlen(in->domain) + strlen(domain) + 32);
        if (!why) return AM_NOMEM;
        sprintf(why, "given %s, text %s", in->domain, domain);
        int rc = am__store_audit(env->store, uid, env->now(env->ctx), "event.domain_mismatch",
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

void am__write_init(am__write *w, const am__write_env *env, am__arena *ar)
{
    memset(w, 0, sizeof *w);
    w->env = env;
    w->ar = ar;
    am__buf_init(&w->norm, env->alloc);
    am__buf_init(&w->doc, env->alloc);
}

void am__write_free(am__write *w)
{
    am__buf_free(&w->norm);
    am__buf_free(&w->doc);
}

void am__write_log(am__write *w, const am_add_info *info, int64_t t0)
{
    said_out(w, w->p.ev, info, t0);
}

/* The index document = content + normalised entities, one document
 * (the facts are indexed beside the text they come from, not alone). */
static int index_doc(am__write *x, am__event_row *ev, const am__redact_result *red,
                     am__entity *ents, size_t *ne)
{
    size_t clen = strlen(red->text);
    int rc = am__entities_extract(red->text, clen, ev->occurred_at, ev->tz_minutes, ents,
                                  MAX_ENTITIES, ne);
    if (rc) return rc;
    am__buf_adds(&x->doc, red->text);
    for (size_t i = 0; i < *ne; i++) {
        am__buf_addc(&x->doc, ' ');
        am__buf_adds(&x->doc, ents[i].norm);
    }
    if (x->doc.oom) return AM_NOMEM;
    ev->index_doc = x->doc.p;
    return AM_OK;
}

/* The session's context window (indexed beside the event), a topic
 * jump, then the row, its entities, the aliases its line teaches and
 * the event's place in the context of the turns before it; its vector
 * and the PII vault's rows. */
static int put_event(am__write *x, am__event_row *ev, const am__redact_result *red,
                     const float *vec, const am__entity *ents, size_t ne,
                     const char *switched_from)
{
    const am__write_env *env = x->env;
    am__store *s = env->store;
    am__context_window cw;
    am__perceive_context_init(&cw, env->alloc);
    int rc = am__perceive_context(&x->p, &cw);
    if (!rc && switched_from) rc = am__perceive_switch(&x->p, switched_from, ev->task_id);
    if (!rc) rc = s->vt->events.event_put(s, ev);
    if (!rc) rc = store_entities(&x->p, ents, ne);
    if (!rc) rc = am__perceive_alias(&x->p, red->text, cw.prev, cw.n_before, ev->occurred_at);
    if (!rc) rc = am__perceive_context_share(&x->p, &cw);
    am__perceive_context_free(&cw);
    if (rc) return rc;
    if (vec && (rc = s->vt->vectors.vec_put(s, ev->user_id, ev->rid, env->embedder->id, vec,
                                            env->embedder->dim)))
        return rc;
    for (size_t i = 0; i < red->n; i++) {
        if (!red->items[i].original) continue;
        am__pii_row p = {red->items[i].placeholder, am__pii_type_name(red->items[i].type),
                         red->items[i].original};
        if ((rc = am__store_pii_put(s, ev->user_id, ev->rid, &p))) return rc;
    }
    return AM_OK;
}

int am__write_run(am__write *x, const am_event *in, am__event_row *ev,
                  const am__redact_result *red, const float *vec, am_add_info *info)
{
    const am__write_env *env = x->env;
    am__store *s = env->store;
    size_t clen = strlen(red->text);
    int rc = am__text_normalize(env->text, red->text, clen, &x->norm);
    if (rc) return rc;
    /* the content's token set, stored with it for recalls to rank the turn
     * by (hop hits, the block's candidates): computed now, while the
     * analyzer holds the text's normal form */
    uint64_t set[AM__EVENT_SET];
    size_t nset;
    unsigned char *blob = am__arena_alloc(x->ar, AM__EVENT_TOKBLOB_MAX);
    if (!blob) return AM_NOMEM;
    if ((rc = am__text_token_set(env->text, red->text, clen, set, AM__EVENT_SET, &nset)))
        return rc;
    ev->tokens = blob;
    ev->tokens_len = am__token_blob_put_n(set, nset, AM__EVENT_SET, blob);

    /* The event's task and what the event does to it */
    x->p.w = (am__wctx){s, env->text, env->ulid, env->rank, x->ar, ev->user_id, ev->occurred_at,
                        ev->id, env->now(env->ctx), ev->metadata};
    x->p.ev = ev;
    x->info = info;
    const char *task_id = NULL, *switched_from = NULL;
    const char *norm = x->norm.p;
    size_t nlen = x->norm.len;
    if ((rc = am__perceive_attribute(&x->p, in, norm, nlen, &task_id, &switched_from)))
        return rc;
    ev->task_id = x->task_id = task_id;
    if ((rc = statement_scope(env, x->ar, in, ev->user_id, ev->id, norm ? norm : "", nlen,
                              &x->scope)))
        return rc;
    if (task_id && (rc = am__perceive_task(&x->p, task_id, norm, nlen))) return rc;
    info->task_changed = x->p.task_changed;
    am__entity ents[MAX_ENTITIES];
    size_t ne = 0;
    if ((rc = index_doc(x, ev, red, ents, &ne)) ||
        (rc = put_event(x, ev, red, vec, ents, ne, switched_from)))
        return rc;
    /* Only what the user says about themself becomes long-term. */
    if (strcmp(ev->source, "user") == 0) {
        am__distill_turn_read(red->text, clen, &x->turn);
        if ((rc = am__text_sentences(red->text, clen, on_sentence, x))) return rc;
        am__observe_out ob;
        if ((rc = am__semantic_observe(&x->p.w, ev, norm ? norm : "", nlen, x->strongest, &ob)))
            return rc;
        info->memories_created += ob.created;
        info->memories_updated += ob.updated;
    }
    if ((rc = am__perceive_save(&x->p))) return rc;
    return am__store_audit(s, ev->user_id, env->now(env->ctx), "event.add", "event", ev->id,
                           red->secrets ? "secrets dropped" : NULL);
}
