/*
 * write.c -- am_add_event: the write path (DESIGN §4 "Write path").
 *
 *   validate (F1) -> resolve identity (F2) -> redact (F3) -> entities (F4)
 *   -> append + index -> task attribution and state (F5, F6)
 *   -> distil each user sentence (F8, F12) -> merge into items (F9, F11)
 *
 * Everything after validation runs in one store transaction; any failure
 * rolls it back, so an event is either fully written (row, index,
 * entities, task change, items, audit) or not at all.
 */
#include <stdio.h>
#include <string.h>

#include "api/db_int.h"
#include "distill/rules.h"
#include "perceive/attribute.h"
#include "perceive/task.h"
#include "semantic/merge.h"
#include "semantic/observe.h"
#include "text/entities.h"
#include "text/speaker.h"
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
    };
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        const char *v = *(const char *const *)((const char *)ev + ids[i].off);
        if (v && (why = am__id_check(v)))
            return am__db_error(db, AM_INVALID, "add: %s %s", ids[i].name, why);
    }
    if (ev->source && !in_list(ev->source, sources))
        return am__db_error(db, AM_INVALID, "add: source \"%s\" is not one of user, agent, tool, system",
                            ev->source);
    if (ev->type && !in_list(ev->type, types))
        return am__db_error(db, AM_INVALID, "add: type \"%s\" is not a known event type", ev->type);
    if (ev->occurred_at) {
        if (am__time_parse(ev->occurred_at, at, tz, &why))
            return am__db_error(db, AM_INVALID, "add: occurred_at \"%.64s\" %s", ev->occurred_at, why);
    } else {
        *at = am__db_now(db);
        *tz = db->cfg.default_tz_minutes;
    }
    return AM_OK;
}

static const char *default_type(const char *source)
{
    if (strcmp(source, "agent") == 0) return "response";
    if (strcmp(source, "tool") == 0) return "tool_result";
    return "query";
}

/* Append one JSON object {"at":..,"text":..,"kind":..} to a JSON array. */
static const char *json_array_append(am__arena *ar, const char *arr,
                                     am_time at, int tz, const char *kind,
                                     const char *text)
{
    am__buf b;
    am__buf_init(&b, NULL);
    size_t n = arr ? strlen(arr) : 0;
    while (n > 0 && arr[n - 1] != ']') n--;
    int empty = 1;
    if (n >= 2) {
        for (size_t i = 1; i + 1 < n; i++)
            if (arr[i] != ' ') empty = 0;
        am__buf_add(&b, arr, n - 1);
    } else {
        am__buf_addc(&b, '[');
    }
    if (!empty) am__buf_addc(&b, ',');
    char ts[32];
    am__buf_printf(&b, "{\"at\":\"%s\",\"kind\":", am__time_format(at, tz, ts));
    am__buf_json_str(&b, kind);
    am__buf_adds(&b, ",\"text\":");
    am__buf_json_str(&b, text);
    am__buf_adds(&b, "}]");
    const char *out = b.oom ? NULL : am__arena_strndup(ar, b.p, b.len);
    am__buf_free(&b);
    return out;
}

typedef struct wctx_ex {
    am_db *db;
    am__wctx w;
    am__event_row *ev;
    am_add_info *info;
    am__task_row *task;     /* attributed task (arena), or NULL */
    am__distill prev;       /* the previous sentence's outcome */
    int strongest;          /* strongest AM__D_* action of the event */
    int task_dirty;
    const char *scope;
    int rc;
} wctx_ex;

static int record_change(wctx_ex *x, const char *field, const char *old_v,
                         const char *new_v)
{
    am__task_change_row c = {x->ev->occurred_at, x->task->task_id, field, old_v,
                             new_v, x->ev->id};
    x->task_dirty = 1;
    return x->w.store->vt->task_change_add(x->w.store, x->w.uid, &c);
}

/* One sentence of a user event through the distillation rules. */
static int on_sentence(void *ctx, const char *s, size_t n)
{
    wctx_ex *x = ctx;
    am_db *db = x->db;
    am__buf norm;
    am__buf_init(&norm, &db->alloc);
    int rc = am__text_normalize(db->text, s, n, &norm);
    if (rc) goto out;
    am__distill d;
    am__distill_sentence(norm.p ? norm.p : "", norm.len, &d);
    am__distill_follow(norm.p ? norm.p : "", norm.len, &x->prev, &d);
    x->prev = d;
    if (d.action > x->strongest) x->strongest = d.action;
    const char *sentence = am__arena_strndup(x->w.ar, s, n);
    if (!sentence) { rc = AM_NOMEM; goto out; }
    int outcome = 0;
    char lineage[27] = "";
    switch (d.action) {
    case AM__D_PERSIST: {
        am__buf v;
        am__buf_init(&v, &db->alloc);
        am__buf_adds(&v, "{\"statement\":");
        am__buf_json_str(&v, sentence);
        am__buf_printf(&v, ",\"rule\":\"%s\",\"lang\":\"%s\"}", d.rule,
                       am__text_lang(s, n) >= AM_LANG_ZH ? "zh" : "en");
        const char *value = v.oom ? NULL : am__arena_strndup(x->w.ar, v.p, v.len);
        am__buf_free(&v);
        if (!value) { rc = AM_NOMEM; goto out; }
        am__statement st = {d.kind, d.key, x->scope, sentence, value, d.confidence,
                            x->ev->id};
        if ((rc = am__semantic_put(&x->w, &st, &outcome, lineage))) goto out;
        if (outcome == AM__M_CREATED) x->info->memories_created++;
        else x->info->memories_updated++;
        break;
    }
    case AM__D_INVALIDATE:
        if ((rc = am__semantic_invalidate(&x->w, sentence, x->scope, &outcome, lineage)))
            goto out;
        if (outcome == AM__M_INVALIDATED) x->info->memories_invalidated++;
        break;
    case AM__D_ONE_OFF:
        x->info->one_off = 1;
        if (x->task) {
            const char *notes = json_array_append(x->w.ar, x->task->notes,
                                                  x->ev->occurred_at, x->ev->tz_minutes,
                                                  "one_off", sentence);
            if (!notes) { rc = AM_NOMEM; goto out; }
            x->task->notes = notes;
            if ((rc = record_change(x, "note", NULL, sentence))) goto out;
        }
        break;
    default:
        break;
    }
    if (d.action != AM__D_NONE || d.guard)
        am__db_log(db, AM_LOG_INFO, "distill: event %s: rule=%s guard=%s key=%s outcome=%d item=%s",
                   x->ev->id, d.rule ? d.rule : "-", d.guard ? d.guard : "-",
                   d.key[0] ? d.key : "-", outcome, lineage[0] ? lineage : "-");
    if (outcome && outcome != AM__M_NOTHING) {
        static const char *const ops[] = {"", "memory.created", "memory.updated",
                                          "memory.reinforced", "memory.pending",
                                          "memory.invalidated"};
        rc = x->w.store->vt->audit(x->w.store, x->w.uid, x->w.now, ops[outcome], "memory",
                                   lineage, d.key[0] ? d.key : NULL);
    }
out:
    am__buf_free(&norm);
    x->rc = rc;
    return rc;
}

/* F5: explicit task > the session's current task > a continuation cue
 * whose words match the events of an open task. */
/* F5: explicit task > a continuation cue whose words match an open task's
 * events > the session's current task.  *switched_from is set when the
 * session was on another task (a topic jump: the caller records a
 * task_switch event). */
static int attribute_task(wctx_ex *x, const am_event *in, const char *norm,
                          size_t norm_len, const char **task_id, const char **switched_from)
{
    am__store *s = x->w.store;
    const char *current = NULL;
    int rc;
    *switched_from = NULL;
    if (in->session_id) {
        am__event_row *rows;
        size_t n;
        rc = s->vt->events_recent(s, x->w.uid, in->session_id, NULL, AM_TIME_NONE, 20,
                                  x->w.ar, &rows, &n);
        if (rc) return rc;
        for (size_t i = 0; i < n && !current; i++) current = rows[i].task_id;
    }
    *task_id = in->task_id;
    if (!*task_id && am__task_continuation(norm, norm_len) &&
        (rc = am__task_guess(s, x->w.text, x->w.uid, in->text, x->w.ar, task_id)))
        return rc;
    if (!*task_id) *task_id = current;
    if (*task_id && current && strcmp(*task_id, current) != 0) *switched_from = current;
    return AM_OK;
}

/* F5: a topic jump inside a session leaves a task_switch event in the
 * perception layer (source system) and a history row on both tasks. */
static int record_switch(wctx_ex *x, const char *from, const char *to)
{
    am__store *s = x->w.store;
    char text[2 * AM_ID_MAX + 32];
    snprintf(text, sizeof text, "task_switch: %s -> %s", from, to);
    char id[27];
    am__ulid_new(x->w.ulid, x->ev->occurred_at, id);
    am__event_row sw = *x->ev;
    sw.id = am__arena_strdup(x->w.ar, id);
    sw.task_id = to;
    sw.source = "system";
    sw.type = "task_switch";
    sw.content = am__arena_strdup(x->w.ar, text);
    sw.index_doc = sw.content;
    sw.index_ctx = NULL;
    if (!sw.id || !sw.content) return AM_NOMEM;
    int rc = s->vt->event_put(s, &sw);
    if (rc) return rc;
    const char *tasks[2] = {from, to};
    for (int i = 0; i < 2; i++) {
        am__task_change_row c = {x->ev->occurred_at, tasks[i], "switch", from, to, sw.id};
        if ((rc = s->vt->task_change_add(s, x->w.uid, &c))) return rc;
    }
    return s->vt->audit(s, x->w.uid, x->w.now, "task.switch", "task", to, from);
}

static int update_task(wctx_ex *x, const char *task_id, const char *norm,
                       size_t norm_len)
{
    am__store *s = x->w.store;
    am__task_row *t = am__arena_alloc(x->w.ar, sizeof *t);
    if (!t) return AM_NOMEM;
    int rc = s->vt->task_get(s, x->w.uid, task_id, x->w.ar, t);
    int created = 0;
    if (rc == AM_NOTFOUND) {
        memset(t, 0, sizeof *t);
        t->task_id = task_id;
        t->name = task_id;
        t->stage = "collecting";
        t->status = "active";
        t->artifacts = t->pending = t->notes = "[]";
        t->created_at = x->ev->occurred_at;
        created = 1;
    } else if (rc) {
        return rc;
    }
    x->task = t;
    if (created && (rc = record_change(x, "created", NULL, task_id))) return rc;
    /* Pending decisions (F20): a question the agent asks inside the task
     * waits for the user; the user's next turn in the task answers it. */
    if (strcmp(x->ev->source, "agent") == 0 && am__cue_question(norm, norm_len)) {
        const char *p = json_array_append(x->w.ar, t->pending, x->ev->occurred_at,
                                          x->ev->tz_minutes, "question", x->ev->content);
        if (!p) return AM_NOMEM;
        t->pending = p;
        if ((rc = record_change(x, "pending", NULL, x->ev->content))) return rc;
    } else if (strcmp(x->ev->source, "user") == 0 && t->pending && strcmp(t->pending, "[]") != 0) {
        if ((rc = record_change(x, "pending", t->pending, "answered"))) return rc;
        t->pending = "[]";
    }
    am__task_signal sig;
    am__task_detect(norm, norm_len, &sig);
    /* A new event on a closed task reopens it unless it closes it again. */
    int reopen = !sig.status && !am__task_open_status(t->status);
    if (reopen) sig.status = "active";
    if (sig.status && strcmp(sig.status, t->status) != 0) {
        if ((rc = record_change(x, "status", t->status, sig.status))) return rc;
        /* One-off notes belong to one round of the task. */
        if (strcmp(sig.status, "done") == 0 || strcmp(sig.status, "cancelled") == 0)
            t->notes = "[]";
        t->status = sig.status;
        x->info->task_changed = 1;
    }
    if (sig.stage && (!t->stage || strcmp(sig.stage, t->stage) != 0)) {
        if ((rc = record_change(x, "stage", t->stage, sig.stage))) return rc;
        t->stage = sig.stage;
        x->info->task_changed = 1;
    }
    if (sig.stage || (sig.status && !reopen)) {
        /* Progress statements are the task's notes: "草稿写了一半". */
        const char *notes = json_array_append(x->w.ar, t->notes, x->ev->occurred_at,
                                              x->ev->tz_minutes, "progress", x->ev->content);
        if (!notes) return AM_NOMEM;
        t->notes = notes;
    }
    x->task_dirty = 1;
    return AM_OK;
}

/* A transcript line that greets its listener by a name ("elise: Hello
 * Kate!") and is answered by another speaker in the same exchange ("Emi:
 * …", this event) says what that speaker is called (F21 entity linking):
 * an "alias" entity of the greeting's event, norm "kate=emi" (the name and
 * the answering speaker's label, lower case), surface the name as
 * written.  The lines of the other speaker just before this one, within
 * half an hour (a chat's answer can take minutes), are looked at (a
 * greeting is often followed by more of the same speaker), each at most
 * once.  The alias goes when its event is forgotten; recall
 * counts a user's aliases (api/read.c). */
#define AM__ALIAS_TURNS 4                  /* lines before looked at */
#define AM__ALIAS_GAP_MS (30 * 60 * 1000)  /* an answer within half an hour */
/* prev[0..np): the session's lines before this one, newest first (the
 * caller's read for the context, AM__ALIAS_TURNS deep for a transcript
 * line). */
static int store_alias(wctx_ex *x, const char *text, const am__event_row *prev, size_t np,
                       am_time at)
{
    char self[48], other[48], label[48], name[64], norm[128];
    if (!np || !am__speaker_label(text, self, sizeof self)) return AM_OK;
    other[0] = '\0';
    for (size_t i = 0; i < np; i++) {
        if (at - prev[i].occurred_at > AM__ALIAS_GAP_MS) break;
        if (!prev[i].content || !am__speaker_label(prev[i].content, label, sizeof label)) break;
        if (strcmp(label, self) == 0) break; /* this speaker's own earlier line */
        if (other[0] && strcmp(label, other) != 0) break;
        memcpy(other, label, sizeof other);
        if (!am__greeted_name(prev[i].content, name, sizeof name)) continue;
        size_t k = 0;
        for (; name[k] && k + 1 < sizeof norm; k++)
            norm[k] = name[k] >= 'A' && name[k] <= 'Z' ? (char)(name[k] | 0x20) : name[k];
        norm[k] = '\0';
        if (strcmp(norm, self) == 0 || strcmp(norm, other) == 0) continue; /* a real name */
        am__entity_row *have;
        size_t nh;
        int rc = x->w.store->vt->entities_list(x->w.store, x->w.uid, prev[i].rid, x->w.ar, &have,
                                               &nh);
        if (rc) return rc;
        size_t j;
        for (j = 0; j < nh && strcmp(have[j].type, "alias") != 0; j++) {}
        if (j < nh) continue; /* answered before */
        snprintf(norm + k, sizeof norm - k, "=%s", self);
        am__entity_row row = {"alias", name, norm, AM_TIME_NONE, AM_TIME_NONE};
        if ((rc = x->w.store->vt->entity_put(x->w.store, x->w.uid, prev[i].rid, &row))) return rc;
    }
    return AM_OK;
}

/* Entities (F4): stored per event (after the row exists) and, as task
 * artifacts, files and links. */
static int store_entities(wctx_ex *x, const am__entity *ents, size_t n)
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
        if (x->task && (e->type == AM_ENT_URL || e->type == AM_ENT_FILE)) {
            const char *arts = json_array_append(x->w.ar, x->task->artifacts,
                                                 x->ev->occurred_at, x->ev->tz_minutes,
                                                 am__ent_type_name(e->type), e->norm);
            if (!arts) return AM_NOMEM;
            x->task->artifacts = arts;
            x->task_dirty = 1;
        }
    }
    return AM_OK;
}

/* One event through the write path; own_txn: in its own transaction,
 * else inside the caller's (which rolls back on error). */
static int add_one(am_db *db, const am_event *in, am_add_info *info, int own_txn)
{
    am_add_info dummy;
    if (!info) info = &dummy;
    memset(info, 0, sizeof *info);
    am_time at;
    int tz, rc;
    if ((rc = validate(db, in, &at, &tz))) return rc;

    am__store *s = db->store;
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__buf norm, doc;
    am__buf_init(&norm, &db->alloc);
    am__buf_init(&doc, &db->alloc);
    am__redact_result red;
    memset(&red, 0, sizeof red);
    am__redact_policy policy;
    am__db_redact_policy(db, &policy);

    if (own_txn && (rc = s->vt->begin(s))) {
        am__db_store_error(db, rc, "add");
        goto out_free;
    }
    char uid[AM_ID_MAX + 1];
    if ((rc = am__db_resolve_user(db, "add", in->user_id, in->channel, in->external_id, 1, uid)))
        goto out_rollback;

    /* F3: secrets never reach the store; PII becomes placeholders. */
    if ((rc = am__redact(&db->alloc, in->text, strlen(in->text), &policy, &red)))
        goto out_store;

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
    size_t clen = strlen(red.text);
    int lang = am__text_lang(red.text, clen);
    ev.lang = lang == AM_LANG_ZH ? "zh" : lang == AM_LANG_MIXED ? "mixed" : "en";
    if ((rc = am__text_normalize(db->text, red.text, clen, &norm))) goto out_store;

    wctx_ex x;
    memset(&x, 0, sizeof x);
    x.db = db;
    x.w = (am__wctx){s, db->text, &db->ulid, &db->cfg.rank, &ar, uid, at};
    x.ev = &ev;
    x.info = info;
    const char *task_id = NULL, *switched_from = NULL;
    if ((rc = attribute_task(&x, in, norm.p, norm.len, &task_id, &switched_from))) goto out_store;
    ev.task_id = task_id;
    /* A statement made inside a business domain applies to that domain
     * (F15 scope domain:X); otherwise everywhere. */
    x.scope = "global";
    if (in->domain) {
        char *sc = am__arena_alloc(&ar, strlen(in->domain) + 8);
        if (!sc) { rc = AM_NOMEM; goto out_store; }
        memcpy(sc, "domain:", 7);
        strcpy(sc + 7, in->domain);
        x.scope = sc;
    }

    if (task_id && (rc = update_task(&x, task_id, norm.p, norm.len))) goto out_store;
    /* Index document = content + normalised entities, one document (the
     * LongMemEval finding: facts beside the text beat facts alone). */
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
    /* Context: the turns around this one in its session (the one it
     * answers, the one before), indexed beside it with a lower weight; and
     * this turn becomes part of theirs.  AM__CONTEXT_TURNS each side. */
    am__event_row *prev = NULL;
    size_t np = 0, n_before = 0;
    am__buf ctx;
    am__buf_init(&ctx, &db->alloc);
    if (in->session_id) {
        /* one read for the context and, for a transcript line, the lines
         * it may answer (store_alias) */
        char label[48];
        int depth = AM__CONTEXT_TURNS;
        if (AM__ALIAS_TURNS > depth && am__speaker_label(red.text, label, sizeof label))
            depth = AM__ALIAS_TURNS;
        if ((rc = s->vt->events_recent(s, uid, in->session_id, NULL, at, depth, &ar, &prev,
                                       &n_before)))
            goto out_ctx;
        /* only turns of the same exchange (store.h: AM__CONTEXT_GAP_MS) */
        while (np < n_before && np < AM__CONTEXT_TURNS &&
               at - prev[np].occurred_at <= AM__CONTEXT_GAP_MS)
            np++;
        for (size_t i = np; i-- > 0;) {
            am__buf_adds(&ctx, prev[i].content);
            am__buf_addc(&ctx, ' ');
        }
        if (ctx.oom) { rc = AM_NOMEM; goto out_ctx; }
        ev.index_ctx = ctx.p;
    }
    if (switched_from && (rc = record_switch(&x, switched_from, task_id))) goto out_ctx;
    if ((rc = s->vt->event_put(s, &ev)) || (rc = store_entities(&x, ents, ne)) ||
        (rc = store_alias(&x, red.text, prev, n_before, at)))
        goto out_ctx;
    for (size_t i = 0; i < np && i < AM__CONTEXT_AFTER; i++)
        if ((rc = s->vt->event_ctx_append(s, uid, prev[i].rid, red.text))) goto out_ctx;
out_ctx:
    am__buf_free(&ctx);
    if (rc) goto out_store;
    /* F16: a vector of the (redacted) text, tagged with the embedder; only
     * for text the embedder represents (use-lite: not Chinese). */
    if (db->embedder && (strcmp(ev.lang, "en") == 0 || db->embed_zh)) {
        float *vec = am__arena_alloc(&ar, (size_t)db->embedder->dim * sizeof *vec);
        char eerr[256];
        const char *texts[1] = {red.text};
        if (!vec) { rc = AM_NOMEM; goto out_store; }
        if ((rc = db->embedder->embed(db->embedder, texts, 1, vec, eerr, sizeof eerr))) {
            am__db_error(db, rc, "add: embedder: %s", eerr);
            goto out_rollback;
        }
        if ((rc = s->vt->vec_put(s, uid, ev.rid, db->embedder->id, vec, db->embedder->dim)))
            goto out_store;
    }
    for (size_t i = 0; i < red.n; i++) {
        if (!red.items[i].original) continue;
        am__pii_row p = {red.items[i].placeholder, am__pii_type_name(red.items[i].type),
                         red.items[i].original};
        if ((rc = s->vt->pii_put(s, uid, ev.rid, &p))) goto out_store;
    }
    /* F8: only what the user says about themself becomes long-term. */
    if (strcmp(ev.source, "user") == 0) {
        rc = am__text_sentences(red.text, clen, on_sentence, &x);
        if (rc) goto out_store;
        am__observe_out ob;
        if ((rc = am__semantic_observe(&x.w, &ev, norm.p ? norm.p : "", norm.len, x.strongest, &ob)))
            goto out_store;
        info->memories_created += ob.created;
        info->memories_updated += ob.updated;
    }
    if (x.task && x.task_dirty) {
        x.task->updated_at = at;
        if ((rc = s->vt->task_put(s, uid, x.task))) goto out_store;
    }
    if ((rc = s->vt->audit(s, uid, am__db_now(db), "event.add", "event", id,
                           red.secrets ? "secrets dropped" : NULL)))
        goto out_store;
    if (own_txn && (rc = s->vt->commit(s))) goto out_store;
    snprintf(info->event_id, sizeof info->event_id, "%s", id);
    snprintf(info->user_id, sizeof info->user_id, "%s", uid);
    snprintf(info->task_id, sizeof info->task_id, "%s", task_id ? task_id : "");
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

int am_add_event(am_db *db, const am_event *in, am_add_info *info)
{
    if (!db || !in) return AM_MISUSE;
    am__db_clear_error(db);
    return add_one(db, in, info, 1);
}

int am_add_events(am_db *db, const am_event *evs, size_t n, am_add_info *infos)
{
    if (!db || (!evs && n)) return AM_MISUSE;
    am__db_clear_error(db);
    if (n == 0) return AM_OK;
    am__store *s = db->store;
    int rc = s->vt->begin(s);
    if (rc) return am__db_store_error(db, rc, "add");
    for (size_t i = 0; i < n; i++) {
        if ((rc = add_one(db, &evs[i], infos ? &infos[i] : NULL, 0))) {
            char why[512];
            const char *m = am_errmsg(db);
            if (strncmp(m, "add: ", 5) == 0) m += 5;
            snprintf(why, sizeof why, "%s", m);
            s->vt->rollback(s);
            if (infos) memset(infos, 0, n * sizeof *infos); /* nothing was written */
            return am__db_error(db, rc, "add: events[%zu]: %s", i, why);
        }
    }
    if ((rc = s->vt->commit(s))) {
        s->vt->rollback(s);
        if (infos) memset(infos, 0, n * sizeof *infos);
        return am__db_store_error(db, rc, "add");
    }
    return AM_OK;
}
