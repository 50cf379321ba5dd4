/* SPDX-License-Identifier: Apache-2.0 */
/*
 * write.c -- am_add_event: the write path (docs/internals/ARCHITECTURE.md, "A write").
 *
 *   validate -> redact -> vector (before the lock)
 *   -> transaction -> resolve identity -> the event's row
 *   -> the write pipeline (write/write.h: perceive, entities, store,
 *      distill, semantic, task, audit) -> commit -> log records
 *
 * This file checks the input, opens the transaction and hands the event
 * to the pipeline; what each stage decides lives in its layer.  Everything
 * after validation runs in one store transaction; any failure rolls it
 * back, so an event is either fully written (row, index, entities, task
 * change, items, audit) or not at all.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "api/db_int.h"
#include "store/metadata.h"
#include "text/plain.h"
#include "text/redact.h"
#include "write/write.h"

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

/* check every field before anything is written. */
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

/* An event the caller names with an id the user already has: *found = 1
 * and info filled when it is the same event, AM_INVALID when the id names
 * another; *found = 0 when the id is new. */
static int known_event(am_db *db, const am_event *in, const char *uid, int64_t fp,
                       am_add_info *info, int *found)
{
    am__arena ar;
    am__event_row ev;
    *found = 0;
    am__arena_init(&ar, &db->alloc);
    int rc = db->store->vt->events.event_get(db->store, uid, AM__EVENT_BY_CLIENT, in->event_id, &ar,
                                             &ev);
    if (rc == AM_NOTFOUND) rc = AM_OK;
    else if (rc) rc = am__db_store_error(db, rc, "add");
    else if (ev.client_hash != fp)
        rc = am__db_error(db, AM_INVALID,
                          "add: id \"%s\" already names another event of user %s (%s):"
                          " the same id with other content",
                          in->event_id, uid, ev.id);
    else {
        *found = 1;
        snprintf(info->event_id, sizeof info->event_id, "%s", ev.id);
        snprintf(info->user_id, sizeof info->user_id, "%s", uid);
        snprintf(info->task_id, sizeof info->task_id, "%s", ev.task_id);
        info->existing = 1;
    }
    am__arena_free(&ar);
    return rc;
}

/* The write path's clock and plain log lines: the handle's. */
static am_time env_now(void *ctx) { return am__db_now(ctx); }
static void env_say(void *ctx, int level, const char *msg) { am__db_log(ctx, level, "%s", msg); }

void am__db_write_env(am_db *db, am__write_env *env)
{
    *env = (am__write_env){db->store, db->text,    &db->ulid, &db->cfg.rank, &db->alloc,
                           &db->log,  db->embedder, env_now,  env_say,       db};
}

/* One sentence of a user event through the distillation rules (a task
 * replay's after a forget: forget.c). */
int am__db_distill(am_db *db, const char *s, size_t n, struct am__distill_turn *turn,
                   struct am__distill *prev, struct am__distill *d)
{
    return am__write_distill(db->text, &db->alloc, s, n, turn, prev, d);
}

/* a vector of the (redacted) text, tagged with the embedder; only
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

/* secrets never reach the store; PII becomes placeholders.  The
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
    am__write_env env;
    am__db_write_env(db, &env);
    am__write x;
    am__write_init(&x, &env, &ar);
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

    if (own_txn && (rc = am__store_begin(s))) {
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
        if ((rc = am__write_fingerprint(&db->alloc, in, at, &fp))) goto out_store;
        if ((rc = known_event(db, in, uid, fp, info, &found))) goto out_rollback;
        if (found) { /* a re-run: nothing to write */
            if (own_txn) am__store_rollback(s);
            goto out_free;
        }
    }

    am__event_row ev;
    char id[27];
    am__db_new_id(db, at, id);
    am__write_event_row(&ev, in, id, uid, red.text, at, tz, am__db_now(db), fp, meta, lang);
    if ((rc = am__write_run(&x, in, &ev, &red, vec, info))) goto out_store;
    if (own_txn && (rc = am__store_commit(s))) goto out_store;
    if (own_txn) am__touch_committed(db);
    if (own_txn) am__db_forget_work(db, 1); /* a step of a due purge, if any */
    snprintf(info->event_id, sizeof info->event_id, "%s", id);
    snprintf(info->user_id, sizeof info->user_id, "%s", uid);
    snprintf(info->task_id, sizeof info->task_id, "%s", x.task_id ? x.task_id : "");
    am__write_log(&x, info, t0);
    rc = AM_OK;
    goto out_free;

out_store:
    if (rc == AM_NOMEM) am__db_error(db, rc, "add: out of memory");
    else am__db_store_error(db, rc, "add");
out_rollback:
    if (own_txn) am__store_rollback(s);
out_free:
    am__redact_result_free(&db->alloc, &red);
    am__write_free(&x);
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
    int rc = am__db_check_size(db, "add", "am_event.size", in->size, sizeof *in);
    if (rc) return rc;
    int64_t t0 = 0;
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
    if ((rc = am__store_begin(s))) {
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
        am__store_rollback(s);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        float *const *given = vecs && i < AM__PREP_MAX ? &vecs[i] : NULL;
        if ((rc = add_one(db, &evs[i], infos ? &infos[i] : NULL, 0, given))) {
            am__store_rollback(s);
            rc = batch_fail(db, rc, i, n, infos);
            goto out;
        }
    }
    if ((rc = am__store_commit(s))) {
        am__store_rollback(s);
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
    int ids = 1, rc;
    /* evs[i] is read only when every size before it was this layout's */
    for (size_t i = 0; i < n; i++) {
        if ((rc = am__db_check_size(db, "add", "am_event.size", evs[i].size, sizeof *evs)))
            return batch_fail(db, rc, i, n, infos);
        ids &= evs[i].event_id != NULL;
    }
    int64_t t0 = 0;
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
