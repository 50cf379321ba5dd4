/* SPDX-License-Identifier: Apache-2.0 */
/*
 * task.c -- task state changes and continuation (see task.h), decided on
 * the cue tables of text/lexicon/task_cues.c with the matcher of
 * text/cue.h; a question (text/question.h) changes nothing.
 *
 * State detection, measured on tests/corpus/distill.tsv:
 *  1. guards: a hypothetical ("如果明天下雨就取消"), a question ("要不要推迟？"),
 *     a standing rule ("以后会议取消了要通知我") or a reference to an earlier
 *     instruction ("之前那个规矩取消吧") announces no change;
 *  2. each status and stage table is scanned for its rightmost cue that is
 *     not negated ("不要取消", "hasn't been sent"); the rightmost cue of all
 *     wins, since the main verb comes last ("搁置的那个项目重新启动吧");
 *  3. a cancelled part that is replaced ("航班被取消了，帮我改签") leaves the
 *     task running;
 *  4. delivering the deliverable finishes the task.
 * A finished step is not a finished task: "完成了供应商比价" says nothing,
 * only whole-task phrases ("都搞定了", "all done") do.
 *
 * Where the tables are silent -- no cue, no denied cue, no guard -- the
 * learned reading of the turn (text/understand.h) decides
 * (am__task_read); perceive/state.c lets a done or cancel of the model close a task
 * only when the turn names it.
 */
#include "domain/task.h"

#include <string.h>

#include "text/analyze.h"
#include "text/lexicon/lexicon.h"
#include "text/question.h"
#include "text/understand.h"

/* ------------------------------------------------------------ status tables */

/* The task acts that change the status, and the status each sets. */
static const char *const act_status[][2] = {
    {"done", "done"},         {"cancel", "cancelled"}, {"pause", "paused"},
    {"postpone", "postponed"}, {"resume", "active"},
};
#define N_ACT_STATUS (sizeof act_status / sizeof *act_status)

static const char *act_of_status(const char *status)
{
    for (size_t i = 0; status && i < N_ACT_STATUS; i++)
        if (strcmp(act_status[i][1], status) == 0) return act_status[i][0];
    return NULL;
}

static const char *status_of_act(const char *act)
{
    for (size_t i = 0; act && i < N_ACT_STATUS; i++)
        if (strcmp(act_status[i][0], act) == 0) return act_status[i][1];
    return NULL;
}

/* The rightmost cue over the tables; ties go to table order. */
static const char *rightmost(const char *s, size_t n, const am__lex_cues *rules, size_t nrules,
                             const am__cue *context, am__cue_hit *where)
{
    const char *name = NULL;
    for (size_t i = 0; i < nrules; i++) {
        am__cue_hit h;
        if (am__cue_scan(s, n, rules[i].cues, context, AM__CUE_LAST, &h) &&
            (!name || h.at > where->at)) {
            name = rules[i].name;
            *where = h;
        }
    }
    return name;
}

void am__task_detect(const char *norm, size_t n, am__task_signal *out)
{
    memset(out, 0, sizeof *out);
    if (am__cue_scan(norm, n, am__lex_task_guards, NULL, AM__CUE_FIRST, NULL)) {
        out->rule = "guard";
        return;
    }
    if (am__text_is_question(norm, n, AM__TEXT_Q_ASKS)) {
        out->rule = "question";
        return;
    }
    am__cue_hit h;
    out->status = rightmost(norm, n, am__lex_task_status_rules,
                            sizeof am__lex_task_status_rules / sizeof *am__lex_task_status_rules,
                            &am__lex_task_status_context, &h);
    if (out->status && strcmp(out->status, "cancelled") == 0 &&
        am__cue_scan(norm + h.end, n - h.end, am__lex_task_carry_on, NULL, AM__CUE_FIRST, NULL))
        out->status = NULL, out->rule = "carry_on";
    else
        out->rule = out->status;
    if (!out->rule) {
        /* a status cue denied ("不要取消", "don't cancel") says no change */
        am__cue bare = am__lex_task_status_context;
        bare.not_before = NULL;
        if (rightmost(norm, n, am__lex_task_status_rules,
                      sizeof am__lex_task_status_rules / sizeof *am__lex_task_status_rules, &bare,
                      &h))
            out->rule = "negated";
    }
    out->stage = rightmost(norm, n, am__lex_task_stage_rules,
                           sizeof am__lex_task_stage_rules / sizeof *am__lex_task_stage_rules,
                           &am__lex_task_stage_context, &h);
    /* Delivering is finishing. */
    if (out->stage && strcmp(out->stage, "delivered") == 0 && !out->status)
        out->status = "done";
    out->act = act_of_status(out->status);
    if (!out->act && out->stage) out->act = "advance";
}

/* ------------------------------------------------------------ the model */

void am__task_model(const char *text, am__task_reading *out)
{
    float p[AM_UND_OUTPUTS];
    am__und_probs(text, strlen(text), p);
    const am__und_head *task = &am__und_heads[AM_UND_TASK], *topic = &am__und_heads[AM_UND_TOPIC];
    /* the likeliest act other than none (label 0) */
    const float *s = p + task->offset;
    int k = 1;
    for (int i = 2; i < task->n; i++)
        if (s[i] > s[k]) k = i;
    out->act = task->labels[k];
    out->p = s[k];
    s = p + topic->offset;
    k = 0;
    for (int i = 1; i < topic->n; i++)
        if (s[i] > s[k]) k = i;
    out->topic = topic->labels[k];
    out->topic_p = s[k];
}

void am__task_read(const char *norm, size_t n, const char *text, am__task_signal *out)
{
    am__task_detect(norm, n, out);
    int question = out->rule && strcmp(out->rule, "question") == 0;
    if (out->act || (out->rule && !question) || !text) return; /* the tables spoke */
    am__task_reading r;
    am__task_model(text, &r);
    /* a question changes no status, except one that takes work up again
     * ("where were we with the grant report?") */
    int done = strcmp(r.act, "done") == 0;
    if (r.p < (done ? AM__TASK_MODEL_P_DONE : AM__TASK_MODEL_P) ||
        (question && strcmp(r.act, "resume") != 0) ||
        (done && am__cue_scan(norm, n, am__lex_task_unfinished, NULL, AM__CUE_FIRST, NULL)))
        return;
    out->act = r.act;
    out->status = status_of_act(r.act);
    out->rule = "model";
}

/* ------------------------------------------------------------ continuation */

int am__task_continuation(const char *norm, size_t n)
{
    return am__cue_any(norm, n, am__lex_task_continuation_cues);
}

int am__task_open_status(const char *status)
{
    return status && (strcmp(status, "active") == 0 ||
                      strcmp(status, "paused") == 0 ||
                      strcmp(status, "postponed") == 0);
}

/* ------------------------------------------------------------ topic shifts */

/* Bytes of a word of `list` at s[0..n) that ends on a boundary (not in
 * the middle of an English word), or 0. */
static size_t word_at(const char *s, size_t n, const char *const *list)
{
    for (size_t i = 0; list[i]; i++) {
        size_t m = strlen(list[i]);
        if (m > n || memcmp(s, list[i], m) != 0) continue;
        unsigned char last = (unsigned char)list[i][m - 1], next = m < n ? (unsigned char)s[m] : 0;
        int latin = (last >= 'a' && last <= 'z');
        if (latin && ((next >= 'a' && next <= 'z') || (next >= '0' && next <= '9'))) continue;
        return m;
    }
    return 0;
}

/* Past blanks and punctuation (ASCII, 、 and 。, which normalisation keeps). */
static size_t skip_marks(const char *s, size_t n, size_t i)
{
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\t' || c == ',' || c == '.' || c == ':' || c == ';' || c == '-' ||
            c == '!' || c == '~') {
            i++;
        } else if (i + 3 <= n && (memcmp(s + i, "、", 3) == 0 || memcmp(s + i, "。", 3) == 0)) {
            i += 3;
        } else {
            break;
        }
    }
    return i;
}

/* 1 when the words from s[0..n) make a request: a request frame anywhere,
 * or an English first word that opens no statement ("order a cake", not
 * "the report is done"). */
static int is_request(const char *s, size_t n)
{
    if (am__cue_any(s, n, am__lex_request_frames)) return 1;
    size_t e = 0;
    while (e < n && ((s[e] >= 'a' && s[e] <= 'z') || s[e] == '\'')) e++;
    if (e < 2 || (e < n && (unsigned char)s[e] >= 0x80)) return 0;
    for (size_t i = 0; am__lex_sentence_openers[i]; i++)
        if (strlen(am__lex_sentence_openers[i]) == e && memcmp(s, am__lex_sentence_openers[i], e) == 0)
            return 0;
    return 1;
}

size_t am__task_topic_shift(const char *norm, size_t n)
{
    size_t i = skip_marks(norm, n, 0);
    size_t m = word_at(norm + i, n - i, am__lex_topic_interjections);
    if (m && !word_at(norm + i, n - i, am__lex_topic_shift)) i = skip_marks(norm, n, i + m);
    if (!(m = word_at(norm + i, n - i, am__lex_topic_shift))) return 0;
    size_t rest = skip_marks(norm, n, i + m);
    if (rest >= n || am__text_is_question(norm + rest, n - rest, AM__TEXT_Q_ASKS) ||
        !is_request(norm + rest, n - rest))
        return 0;
    return rest;
}

/* "task_switch: A -> (none)" (the row perceive/switch.c writes) */
static const char switch_head[] = AM__TASK_SWITCH_HEAD;
static const char switch_to_none[] = AM__TASK_SWITCH_TO_NONE;

int am__task_switch_left(const am__event_row *r, am__arena *ar, const char **left)
{
    *left = NULL;
    if (r->task_id || !r->type || strcmp(r->type, "task_switch") != 0 || !r->source ||
        strcmp(r->source, "system") != 0 || !r->content)
        return AM_OK;
    size_t n = strlen(r->content), h = sizeof switch_head - 1, t = sizeof switch_to_none - 1;
    if (n <= h + t || memcmp(r->content, switch_head, h) != 0 ||
        strcmp(r->content + n - t, switch_to_none) != 0)
        return AM_OK;
    *left = am__arena_strndup(ar, r->content + h, n - h - t);
    return *left ? AM_OK : AM_NOMEM;
}
