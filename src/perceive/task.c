/*
 * task.c -- cue tables for task state changes and continuation.
 */
#include "perceive/task.h"

#include <string.h>

#include "text/analyze.h"

typedef struct status_rule {
    const char *status;
    const char *const *cues;
} status_rule;

/* Ordered: the first table that matches wins (cancel beats pause beats
 * postpone beats done beats resume). */
static const char *const c_cancel[] = {
    "取消", "不做了", "不用做了", "不要了", "不弄了", "算了", "cancel", "call off",
    "drop it", "scrap it", "forget about the", NULL};
static const char *const c_pause[] = {
    "暂停", "先停", "先放一放", "先搁置", "搁置", "先不发", "先不做", "先不弄",
    "先不", "pause", "on hold", "hold off", "put it aside", NULL};
static const char *const c_postpone[] = {
    "推迟", "延后", "延期", "往后推", "改天", "下周再", "postpone", "push back",
    "push it", "delay", "reschedule", "later this", NULL};
/* "完成了供应商比价" finishes a step, not the task: only whole-task phrases. */
static const char *const c_done[] = {
    "搞定了", "全部完成", "都完成了", "都做完了", "全做完了", "任务完成", "已发送",
    "发出去了", "交付了", "已交付", "all done", "it's done", "is done now",
    "we're done", "task complete", "have sent it", "sent it", "wrapped up",
    "delivered it", "it is done", NULL};
static const char *const c_resume[] = {
    "继续", "恢复", "接着", "重新开始", "弄完", "做完", "写完", "resume",
    "continue", "pick up", "let's finish", "finish the", "get back to", NULL};

static const status_rule status_rules[] = {
    {"cancelled", c_cancel}, {"paused", c_pause}, {"postponed", c_postpone},
    {"done", c_done}, {"active", c_resume},
};

static const char *const s_drafting[] = {"草稿", "初稿", "起草", "draft", NULL};
static const char *const s_confirming[] = {"请确认", "待确认", "确认一下", "审核", "review", "confirm", NULL};
static const char *const s_delivered[] = {
    "已发送", "发出去了", "交付了", "已交付", "提交了", "delivered", "sent it", "have sent",
    "i've sent", "is sent", "was sent", "been sent", "sent out", "submitted", NULL};
static const status_rule stage_rules[] = {
    {"delivered", s_delivered}, {"confirming", s_confirming}, {"drafting", s_drafting},
};

static const char *const continuation_cues[] = {
    "上次", "接着", "继续", "那个任务", "之前那个", "之前的", "你还记得", "还记得",
    "刚才", "上回", "弄完", "last time", "continue", "resume", "pick up where",
    "where were we", "remember when", "do you remember", "let's finish",
    "finish the", "get back to", "earlier", NULL};

void am__task_detect(const char *norm, size_t n, am__task_signal *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sizeof status_rules / sizeof *status_rules; i++)
        if (am__cue_any(norm, n, status_rules[i].cues)) {
            out->status = status_rules[i].status;
            out->rule = status_rules[i].status;
            break;
        }
    for (size_t i = 0; i < sizeof stage_rules / sizeof *stage_rules; i++)
        if (am__cue_any(norm, n, stage_rules[i].cues)) {
            out->stage = stage_rules[i].status;
            break;
        }
    /* Delivering is finishing. */
    if (out->stage && strcmp(out->stage, "delivered") == 0 && !out->status)
        out->status = "done";
}

int am__task_continuation(const char *norm, size_t n)
{
    return am__cue_any(norm, n, continuation_cues);
}

int am__task_open_status(const char *status)
{
    return status && (strcmp(status, "active") == 0 ||
                      strcmp(status, "paused") == 0 ||
                      strcmp(status, "postponed") == 0);
}
