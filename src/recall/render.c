/* SPDX-License-Identifier: Apache-2.0 */
/*
 * render.c -- the memory block: memories (long-term budget), then
 * task state and relevant events (short-term budget), labelled in the
 * query's language; on the state_first route (a continuation) the
 * task state comes first, then the memories, then the events -- the same
 * lines, only the order differs.  Items that do not fit their budget are
 * dropped whole; the caller returns only what was rendered.
 *
 * The block also comes in two parts: what belongs in the
 * system prompt -- the profile, preferences, constraints and rules shown
 * -- and what goes right before the history -- the other items (facts,
 * task conclusions, patterns, temporary ones), the task state and the
 * events.  Each part is made of the block's own lines (the same budget
 * decides), each with the memory header when it holds items.  Every stored text (item,
 * event, task name, note, artifact, decision) goes in through
 * am__plain_append: one flat line that cannot open a section or an entry
 * of its own (text/plain.c).  An event's line names who said it (its
 * source: user, agent, tool, system, in the block's language); a bare
 * acknowledgement ("好的", "got it": am__route_bare_ack) gets no line.
 */
#include <jansson.h>
#include <string.h>

#include "recall/pipeline.h"
#include "text/lexicon/lexicon.h"
#include "text/plain.h"

const char *am__kind_label(const char *kind, int lang)
{
    for (size_t i = 0; i < sizeof am__lex_kind_labels / sizeof *am__lex_kind_labels; i++)
        if (strcmp(kind, am__lex_kind_labels[i][0]) == 0)
            return am__lex_kind_labels[i][lang == AM_LANG_ZH ? 1 : 2];
    return kind;
}

/* Append `line` if it fits the remaining budget; returns 1 if added. */
/* Who said an event, in the block's language ("user", "用户"); NULL when
 * the source is none of the four (a stored value is input like any other
 * and is never shown as it is). */
static const char *source_label(const char *source, int lang)
{
    if (!source) source = "user";
    for (size_t i = 0; i < sizeof am__lex_source_labels / sizeof *am__lex_source_labels; i++)
        if (strcmp(source, am__lex_source_labels[i][0]) == 0)
            return am__lex_source_labels[i][lang == AM_LANG_ZH ? 1 : 2];
    return NULL;
}

static int add_line(am__buf *out, const char *line, size_t n, int *budget)
{
    int cost = am__text_tokens_estimate(line, n) + 1;
    if (cost > *budget) return 0;
    *budget -= cost;
    am__buf_add(out, line, n);
    am__buf_addc(out, '\n');
    return 1;
}

/* A stored "at" is shown only when it opens with a date, YYYY-MM-DD:
 * the value is input like any other and must not bring its own bytes. */
static int date_prefix(const char *at)
{
    for (int i = 0; i < 10; i++) {
        int want_dash = i == 4 || i == 7;
        if (want_dash ? at[i] != '-' : !(at[i] >= '0' && at[i] <= '9')) return 0;
    }
    return 1;
}

static void json_list_lines(am__buf *out, am__buf *line, const char *arr,
                            const char *label, int *budget, int colon_zh)
{
    if (!arr || strcmp(arr, "[]") == 0) return;
    json_error_t e;
    json_t *a = json_loads(arr, 0, &e);
    if (!json_is_array(a)) {
        json_decref(a);
        return;
    }
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) {
        const char *text = json_string_value(json_object_get(v, "text"));
        const char *at = json_string_value(json_object_get(v, "at"));
        if (!text) text = json_string_value(v);
        if (!text) continue;
        am__buf_reset(line);
        am__buf_printf(line, "- %s%s", label, colon_zh ? "：" : ": ");
        am__plain_appends(line, text);
        if (at && date_prefix(at)) am__buf_printf(line, " (%.10s)", at);
        add_line(out, line->p, line->len, budget);
    }
    json_decref(a);
}

/* One agent's entry: "- agent: doing X; done Y; next Z" (parts left
 * empty are left out). */
static void workspace_entry(const am__workspace_row *w, const am__lex_labels *L, int is_zh,
                            am__buf *line)
{
    const char *part[3] = {w->doing, w->done, w->next};
    const char *label[3] = {L->doing, L->done, L->next};
    am__buf_reset(line);
    am__buf_adds(line, "- ");
    am__plain_appends(line, w->agent_id);
    am__buf_adds(line, is_zh ? "：" : ":");
    for (int k = 0, first = 1; k < 3; k++) {
        if (!part[k] || !*part[k]) continue;
        if (!first) am__buf_adds(line, is_zh ? "；" : ";");
        am__buf_adds(line, is_zh ? "" : " ");
        am__buf_adds(line, label[k]);
        am__buf_adds(line, is_zh ? "：" : ": ");
        am__plain_appends(line, part[k]);
        first = 0;
    }
}

/* The task's workspace in at most half of what is left of the short
 * budget (the events keep the rest): the asker's entry first, then the
 * others by agent id, each whole or not at all. */
static void workspace_lines(const am__render_in *in, const am__lex_labels *L, am__buf *out,
                            am__buf *line, int *budget)
{
    if (!in->n_workspace) return;
    int cost = am__text_tokens_estimate(L->workspace, strlen(L->workspace)) + 1;
    int share = *budget / 2, left = share - cost;
    if (left <= 0) return;
    am__buf_adds(out, L->workspace);
    am__buf_addc(out, '\n');
    int *b = &left;
    int is_zh = in->lang == AM_LANG_ZH;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < in->n_workspace; i++) {
            const am__workspace_row *w = &in->workspace[i];
            int own = in->agent && strcmp(w->agent_id, in->agent) == 0;
            if (own != (pass == 0)) continue;
            workspace_entry(w, L, is_zh, line);
            add_line(out, line->p, line->len, b);
        }
    *budget -= share - left;
}

/* 1 when an item of this kind belongs in the system prompt: who the user
 * is and how the user wants things done; facts, task
 * conclusions, patterns and temporary items go before the history. */
static int system_kind(const char *kind)
{
    static const char *const kinds[] = {"profile", "preference", "constraint", "rule", NULL};
    for (size_t i = 0; kinds[i]; i++)
        if (kind && strcmp(kind, kinds[i]) == 0) return 1;
    return 0;
}

/* One item's line into line (reset first). */
static void item_line(const am__scored_item *si, const am__lex_labels *L, int lang, am__buf *line)
{
    const am__item_row *it = si->row;
    int is_zh = lang == AM_LANG_ZH;
    am__buf_reset(line);
    int pending = strcmp(it->status, "pending_confirm") == 0;
    if (pending && si->conflicts_with) {
        /* a conflict is surfaced as a question to ask */
        am__buf_printf(line, is_zh ? "- %s：用户新说「" : "- %s: the user recently said \"",
                       L->unconfirmed);
        am__plain_appends(line, it->text);
        am__buf_adds(line, is_zh ? "」，与之前的「" : "\", which conflicts with \"");
        am__plain_appends(line, si->conflicts_with);
        am__buf_adds(line, is_zh ? "」不一致，请先向用户确认以哪个为准" : "\"; ask which one holds");
        return;
    }
    if (strcmp(it->status, "candidate_forget") == 0) {
        /* an item not stated, confirmed or used for long (lifecycle/):
         * asked about before it is relied on */
        am__buf_printf(line, is_zh ? "- %s：用户很久以前说过「" : "- %s: the user said long ago \"",
                       L->unconfirmed);
        am__plain_appends(line, it->text);
        am__buf_adds(line, is_zh ? "」，此后再未提起，请先向用户确认现在是否仍然如此"
                                 : "\" and has not mentioned it since; ask whether it still holds "
                                   "before relying on it");
        return;
    }
    if (pending) {
        /* an item the user's own evaluations put in doubt is asked
         * about, not applied */
        am__buf_printf(line, is_zh ? "- %s：用户最近对「" : "- %s: the user recently spoke against \"",
                       L->unconfirmed);
        am__plain_appends(line, it->text);
        am__buf_adds(line, is_zh ? "」表示不满，请先向用户确认是否仍按此执行"
                                 : "\"; ask whether it still holds before applying it");
        return;
    }
    am__buf_adds(line, "- ");
    am__buf_adds(line, am__kind_label(it->kind, lang));
    am__buf_adds(line, is_zh ? "：" : ": ");
    am__plain_appends(line, it->text);
}

/* Append line (and its newline) to part, after the memory header when
 * part holds none yet (its first `from` bytes are another section's);
 * part may be NULL. */
static void part_line(am__buf *part, size_t from, const am__lex_labels *L, const am__buf *line)
{
    if (!part) return;
    if (part->len == from) {
        am__buf_adds(part, L->memory);
        am__buf_addc(part, '\n');
    }
    am__buf_add(part, line->p, line->len);
    am__buf_addc(part, '\n');
}

/* The rules of the user's packs, under their own title (an operator's
 * rules, never shown as something the user said), within the long budget
 * before the memories; into the system part too.  Each whole or not at
 * all. */
static void rule_lines(const am__render_in *in, const am__lex_labels *L, am__buf *out,
                       am__buf *system, am__buf *line, int *budget)
{
    if (!in->n_rules) return;
    int cost = am__text_tokens_estimate(L->rules, strlen(L->rules)) + 1;
    if (cost >= *budget) return;
    *budget -= cost;
    am__buf_adds(out, L->rules);
    am__buf_addc(out, '\n');
    if (system) {
        am__buf_adds(system, L->rules);
        am__buf_addc(system, '\n');
    }
    for (size_t i = 0; i < in->n_rules; i++) {
        am__buf_reset(line);
        am__buf_adds(line, "- ");
        am__plain_appends(line, in->rules[i].text);
        if (!add_line(out, line->p, line->len, budget)) break;
        if (system) {
            am__buf_add(system, line->p, line->len);
            am__buf_addc(system, '\n');
        }
    }
}

/* The task's state: its line, notes, artifacts, pending decisions and
 * workspace, within the short budget. */
static void state_lines(const am__render_in *in, const am__lex_labels *L, am__buf *out,
                        am__buf *line, int *budget)
{
    const am__task_row *t = in->task;
    int is_zh = in->lang == AM_LANG_ZH;
    am__buf_reset(line);
    am__buf_printf(line, "%s ", L->task);
    am__plain_appends(line, t->name);
    am__buf_printf(line, "%s%s ", is_zh ? "：" : ": ", L->stage);
    am__plain_appends(line, t->stage ? t->stage : "-");
    am__buf_printf(line, "%s%s ", is_zh ? "，" : ", ", L->status);
    am__plain_appends(line, t->status);
    add_line(out, line->p, line->len, budget);
    json_list_lines(out, line, t->notes, L->notes, budget, is_zh);
    json_list_lines(out, line, t->artifacts, L->artifacts, budget, is_zh);
    json_list_lines(out, line, t->pending, L->pending, budget, is_zh);
    workspace_lines(in, L, out, line, budget);
}

static void event_lines(const am__render_in *in, const am__lex_labels *L, am__buf *out,
                        am__buf *line, int *budget, size_t *events_used)
{
    int header = 0;
    for (size_t i = 0; i < in->n_events; i++) {
        const am__event_row *e = &in->events[i];
        char ts[32];
        am__time_format(e->occurred_at, e->tz_minutes, ts);
        /* "- %.10s %.5s %s: %s": date, time, who said it, content */
        am__buf_reset(line);
        am__buf_adds(line, "- ");
        am__buf_add(line, ts, strnlen(ts, 10));
        am__buf_addc(line, ' ');
        am__buf_add(line, ts + 11, strnlen(ts + 11, 5));
        am__buf_addc(line, ' ');
        const char *who = source_label(e->source, in->lang);
        if (who) {
            am__buf_adds(line, who);
            am__buf_adds(line, in->lang == AM_LANG_ZH ? "：" : ": ");
        }
        am__plain_appends(line, e->content);
        if (!header) {
            int cost = am__text_tokens_estimate(L->events, strlen(L->events)) + 1;
            if (cost >= *budget) break;
            am__buf_adds(out, L->events);
            am__buf_addc(out, '\n');
            *budget -= cost;
            header = 1;
        }
        if (!add_line(out, line->p, line->len, budget)) break;
        (*events_used)++;
    }
}

int am__render_parts(const am__render_in *in, am__buf *out, am__buf *system, am__buf *context,
                     size_t *items_used, size_t *events_used)
{
    const am__lex_labels *L = in->lang == AM_LANG_ZH ? &am__lex_labels_zh : &am__lex_labels_en;
    am__buf line, items, ctx_items, state, events;
    am__buf_init(&line, out->a);
    am__buf_init(&items, out->a);
    am__buf_init(&ctx_items, out->a);
    am__buf_init(&state, out->a);
    am__buf_init(&events, out->a);
    int budget = in->budget_long;
    *items_used = *events_used = 0;
    rule_lines(in, L, &items, system, &line, &budget);
    size_t sys_from = system ? system->len : 0; /* (its rules, if any) */
    if (in->n_items) {
        am__buf_adds(&items, L->memory);
        am__buf_addc(&items, '\n');
        for (size_t i = 0; i < in->n_items; i++) {
            item_line(&in->items[i], L, in->lang, &line);
            if (!add_line(&items, line.p, line.len, &budget)) break;
            if (system_kind(in->items[i].row->kind)) part_line(system, sys_from, L, &line);
            else part_line(&ctx_items, 0, L, &line);
            (*items_used)++;
        }
    }
    /* the short budget: the task's state, then the events */
    budget = in->budget_short;
    if (in->task) state_lines(in, L, &state, &line, &budget);
    event_lines(in, L, &events, &line, &budget, events_used);
    /* a continuation sees where the task stands before anything else */
    const am__buf *order[3] = {&items, &state, &events};
    if (in->state_first) {
        order[0] = &state;
        order[1] = &items;
    }
    for (int k = 0; k < 3; k++)
        if (order[k]->len) am__buf_add(out, order[k]->p, order[k]->len);
    if (context) {
        const am__buf *ctx[3] = {&ctx_items, &state, &events};
        for (int k = 0; k < 3; k++)
            if (ctx[k]->len) am__buf_add(context, ctx[k]->p, ctx[k]->len);
    }
    int oom = line.oom || items.oom || ctx_items.oom || state.oom || events.oom || out->oom ||
              (system && system->oom) || (context && context->oom);
    am__buf_free(&line);
    am__buf_free(&items);
    am__buf_free(&ctx_items);
    am__buf_free(&state);
    am__buf_free(&events);
    return oom ? AM_NOMEM : AM_OK;
}

int am__render_block(const am__render_in *in, am__buf *out, size_t *items_used,
                     size_t *events_used)
{
    return am__render_parts(in, out, NULL, NULL, items_used, events_used);
}

/* ------------------------------------------------------------ the stage */

/* render: the block within the budgets (the task state first on the
 * state_first route) and its two parts; the items that fit are the
 * result's memories. */
int am__recall_render(am__recall_state *st)
{
    /* a bare acknowledgement ("好的", "got it": the router's reading of
     * it as a turn needs no memory) tells the model nothing: no line */
    am__event_row *shown = am__arena_take(st->ar, (st->n_block + 1) * sizeof *shown);
    if (!shown) return AM_NOMEM;
    size_t n_shown = 0;
    am__buf norm;
    am__buf_init(&norm, st->env->alloc);
    int rc = AM_OK;
    for (size_t i = 0; i < st->n_block && !rc; i++) {
        int ack;
        rc = am__route_bare_ack(st->env->text, st->block_events[i].content, &norm, &ack);
        if (!rc && !ack) shown[n_shown++] = st->block_events[i];
    }
    am__buf_free(&norm);
    if (rc) return rc;
    am__render_in ri = {st->lang,       st->scored,    st->n_items,      shown,
                        n_shown,        st->task,      st->budget_long,  st->budget_short,
                        st->workspace,  st->n_workspace, st->q->agent_id,
                        st->rd.route == AM__ROUTE_STATE, st->pack_rules,
                        st->n_pack_rules};
    am__buf block, system, context;
    am__buf_init(&block, st->env->alloc);
    am__buf_init(&system, st->env->alloc);
    am__buf_init(&context, st->env->alloc);
    size_t used_events;
    rc = am__render_parts(&ri, &block, &system, &context, &st->used_items, &used_events);
    if (!rc) {
        st->block = am__arena_strndup(st->ar, block.p ? block.p : "", block.len);
        st->block_system = am__arena_strndup(st->ar, system.p ? system.p : "", system.len);
        st->block_context = am__arena_strndup(st->ar, context.p ? context.p : "", context.len);
        st->block_tokens = am__text_tokens_estimate(block.p ? block.p : "", block.len);
        if (!st->block || !st->block_system || !st->block_context) rc = AM_NOMEM;
    }
    am__buf_free(&block);
    am__buf_free(&system);
    am__buf_free(&context);
    return rc;
}
