/* SPDX-License-Identifier: Apache-2.0 */
/*
 * result.c -- a recall's public result, its JSON and its log record
 * (result.h).
 */
#include <stdio.h>
#include <string.h>

#include "domain/shapes.h"
#include "recall/result.h"

void am__recall_result_route(const am__recall_state *st, am_recall_result *res)
{
    res->lang = st->lang == AM_LANG_ZH ? "zh" : "en";
    res->domain_conflict = st->domain_conflict;
    res->need_memory = st->rd.need_memory;
    res->route = am__route_name(st->rd.route);
    res->route_reason = st->rd.reason ? st->rd.reason : "default";
    res->refs = (unsigned)st->rd.refs;
    res->block = st->block;
    res->block_system = st->block_system;
    res->block_context = st->block_context;
}

void am__access_history_keep(const void *ctx, am__task_change_row *rows, size_t *n)
{
    am__access_history(ctx, rows, n);
}

/* The items shown, the ranked events, the task. */
int am__recall_result_items(const am__recall_state *st, am__store *s, const am__access *acc,
                            am_recall_result *res)
{
    am__arena *ar = st->ar;
    res->block_tokens = st->block_tokens;
    res->block_system_tokens =
        st->block_system ? am__text_tokens_estimate(st->block_system, strlen(st->block_system)) : 0;
    res->block_context_tokens =
        st->block_context ? am__text_tokens_estimate(st->block_context, strlen(st->block_context)) : 0;
    res->memories = am__arena_alloc(ar, (st->used_items + 1) * sizeof *res->memories);
    res->events = am__arena_alloc(ar, (st->n_events + 1) * sizeof *res->events);
    if (!res->memories || !res->events) return AM_NOMEM;
    for (size_t i = 0; i < st->used_items; i++) {
        am__memory_from_row(&res->memories[i], st->scored[i].row);
        res->memories[i].score = st->scored[i].score;
        if (st->as_of != AM_TIME_NONE || st->period) am__memory_status_then(&res->memories[i]);
    }
    res->n_memories = st->used_items;
    for (size_t i = 0; i < st->n_events; i++) am__event_from_row(&res->events[i], &st->events[i]);
    res->n_events = st->n_events;
    if (!st->task) return AM_OK;
    return am__task_build(s, st->uid, ar, st->task, am__access_history_keep, acc, &res->task);
}

const char *am__recall_json(am__arena *ar, const am_recall_result *r, am_time now)
{
    am__buf b;
    am__buf_init(&b, ar->a);
    am__buf_printf(&b, "{\"need_memory\":%s", r->need_memory ? "true" : "false");
    am__json_kv(&b, "route", r->route, 1);
    am__json_kv(&b, "lang", r->lang, 1);
    am__buf_printf(&b, ",\"domain_conflict\":%s", r->domain_conflict ? "true" : "false");
    am__buf_adds(&b, ",\"memories\":[");
    for (size_t i = 0; i < r->n_memories; i++) {
        if (i) am__buf_addc(&b, ',');
        am__memory_json(&b, &r->memories[i], now);
    }
    am__buf_adds(&b, "],\"events\":[");
    for (size_t i = 0; i < r->n_events; i++) {
        if (i) am__buf_addc(&b, ',');
        am__event_rec_json(&b, &r->events[i]);
    }
    am__buf_adds(&b, "],\"task\":");
    if (r->task) am__task_json(&b, r->task);
    else am__buf_adds(&b, "null");
    am__json_kv(&b, "block", r->block, 1);
    am__buf_printf(&b, ",\"block_tokens\":%d", r->block_tokens);
    /* appended: the block's two parts, why the route, the kinds of
     * reference asked for */
    am__json_kv(&b, "block_system", r->block_system, 1);
    am__json_kv(&b, "block_context", r->block_context, 1);
    am__buf_printf(&b, ",\"block_system_tokens\":%d,\"block_context_tokens\":%d",
                   r->block_system_tokens, r->block_context_tokens);
    am__json_kv(&b, "route_reason", r->route_reason, 1);
    am__buf_printf(&b, ",\"refs\":[%s%s%s]}", r->refs & AM_REF_URL ? "\"url\"" : "",
                   (r->refs & AM_REF_URL) && (r->refs & AM_REF_FILE) ? "," : "",
                   r->refs & AM_REF_FILE ? "\"file\"" : "");
    const char *out = b.oom ? NULL : am__arena_strndup(ar, b.p, b.len);
    am__buf_free(&b);
    return out;
}

/* The recall's log record (docs/SERVER.md "Logs"): the route and why,
 * each stage's candidates and time, the best scores, what the block
 * kept -- by id; the query and the block only with content. */
void am__recall_log(const am__log *log, am_time now, const am_query *q,
                    const am_recall_result *res, const am__recall_state *st, const char *uid,
                    int cache_on, int64_t t0)
{
    static const char *const ms_keys[AM__ST_COUNT] = {
        "route_ms", "filter_ms", "terms_ms", "search_ms", "hops_ms", "fuse_ms",
        "rank_ms",  "kinds_ms",  "dedup_ms", "budget_ms", "render_ms"};
    /* the count each stage makes: items (filter, rank, render) or events */
    static const char *const n_keys[AM__ST_COUNT] = {
        NULL,           "filter_items", NULL,           "search_events",
        "hops_events",  "fuse_events",  "rank_items",   "kinds_events",
        "dedup_events", "budget_events", "render_items"};
    if (!am__log_on(log)) return;
    am__logrec r;
    am__logrec_begin(&r, log, AM_LOG_INFO, "recall", now);
    am__logrec_str(&r, "user", uid);
    if (q->agent_id) am__logrec_str(&r, "agent", q->agent_id);
    am__logrec_str(&r, "route", res->route);
    am__logrec_str(&r, "reason", res->route_reason);
    am__logrec_int(&r, "need_memory", res->need_memory);
    am__logrec_str(&r, "lang", res->lang);
    am__logrec_str(&r, "cache", st ? (cache_on ? "miss" : "off") : "hit");
    if (st) {
        const am__recall_trace *t = &st->trace;
        for (int i = 0; i < AM__ST_COUNT; i++) {
            if (!(t->ran & (1u << i))) continue;
            am__logrec_real(&r, ms_keys[i], (double)t->us[i] / 1000.0);
            if (n_keys[i])
                am__logrec_int(&r, n_keys[i],
                               (int64_t)(i == AM__ST_FILTER || i == AM__ST_RANK ||
                                                 i == AM__ST_RENDER
                                             ? t->items[i]
                                             : t->events[i]));
        }
    }
    am__logrec_int(&r, "memories", (int64_t)res->n_memories);
    am__logrec_int(&r, "events", (int64_t)res->n_events);
    am__logrec_int(&r, "block_tokens", res->block_tokens);
    char list[3][600];
    for (int k = 0; k < 3; k++) {
        size_t len = 0;
        list[k][0] = '\0';
        size_t n = k == 0 ? res->n_memories : res->n_events;
        for (size_t i = 0; i < n && i < (k == 2 ? 3u : 8u) && len < sizeof list[k] - 40; i++) {
            if (k == 0)
                len += (size_t)snprintf(list[k] + len, sizeof list[k] - len, "%s%s",
                                        i ? "," : "", res->memories[i].lineage_id);
            else if (k == 1)
                len += (size_t)snprintf(list[k] + len, sizeof list[k] - len, "%s%s",
                                        i ? "," : "", res->events[i].id);
            else
                len += (size_t)snprintf(list[k] + len, sizeof list[k] - len, "%s%.3f",
                                        i ? "," : "", res->events[i].score);
        }
    }
    char top[200];
    size_t len = 0;
    top[0] = '\0';
    for (size_t i = 0; i < res->n_memories && i < 3; i++)
        len += (size_t)snprintf(top + len, sizeof top - len, "%s%.3f", i ? "," : "",
                                res->memories[i].score);
    am__logrec_str(&r, "top_memory_scores", top);
    am__logrec_str(&r, "top_event_scores", list[2]);
    am__logrec_str(&r, "memory_ids", list[0]);
    am__logrec_str(&r, "event_ids", list[1]);
    am__logrec_real(&r, "total_ms", (double)(am__mono_us() - t0) / 1000.0);
    am__logrec_text(&r, "query", q->text);
    am__logrec_text(&r, "block", res->block);
    am__logrec_emit(&r);
}
