/*
 * task.c -- task state changes and continuation (see task.h), decided on
 * the cue tables of text/lexicon/task_cues.c with the matcher of
 * text/cue.h; a question (text/question.h) changes nothing.
 *
 * State detection (F6), measured on tests/corpus/distill.tsv:
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
 */
#include "perceive/task.h"

#include <string.h>

#include "text/analyze.h"
#include "text/lexicon/lexicon.h"
#include "text/question.h"

/* ------------------------------------------------------------ status tables */

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
    if (am__cue_scan(norm, n, am__lex_task_guards, NULL, AM__CUE_FIRST, NULL) ||
        am__text_is_question(norm, n, AM__TEXT_Q_ASKS)) {
        out->rule = "guard";
        return;
    }
    am__cue_hit h;
    out->status = rightmost(norm, n, am__lex_task_status_rules,
                            sizeof am__lex_task_status_rules / sizeof *am__lex_task_status_rules,
                            &am__lex_task_status_context, &h);
    if (out->status && strcmp(out->status, "cancelled") == 0 &&
        am__cue_scan(norm + h.end, n - h.end, am__lex_task_carry_on, NULL, AM__CUE_FIRST, NULL))
        out->status = NULL;
    out->rule = out->status;
    out->stage = rightmost(norm, n, am__lex_task_stage_rules,
                           sizeof am__lex_task_stage_rules / sizeof *am__lex_task_stage_rules,
                           &am__lex_task_stage_context, &h);
    /* Delivering is finishing. */
    if (out->stage && strcmp(out->stage, "delivered") == 0 && !out->status)
        out->status = "done";
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
