/*
 * lexicon/labels.c -- the labels of the rendered memory block in both languages
 * (recall/render.c, F18): section titles, memory kinds and who said an event.
 */
#include "text/lexicon/lexicon.h"

const am__lex_labels am__lex_labels_zh = {"[记忆]", "[任务状态]", "[相关记录]", "阶段", "状态",
                                          "备注", "产出", "待决定", "待确认",
                                          "[协作区]", "正在做", "已完成", "下一步",
                                          "[规则]（运营方设定，非用户所说）"};

const am__lex_labels am__lex_labels_en = {"[Memory]", "[Task state]", "[Relevant events]", "stage",
                                          "status", "Note", "Artifact", "Pending", "Unconfirmed",
                                          "[Workspace]", "doing", "done", "next",
                                          "[Rules] (set by the operator, not said by the user)"};

/* A memory kind, its Chinese and its English label. */
const char *const am__lex_kind_labels[][3] = {
    {"preference", "用户偏好", "Preference"},
    {"constraint", "约束", "Constraint"},
    {"profile", "用户资料", "Profile"},
    {"fact", "事实", "Fact"},
    {"pattern", "习惯", "Pattern"},
    {"task_conclusion", "任务结论", "Task conclusion"},
    {"rule", "规则", "Rule"},
    {"temp", "临时", "Temporary"},
};

/* Who said an event (its source), in Chinese and in English: the relevant
 * events' lines name the speaker. */
const char *const am__lex_source_labels[4][3] = {
    {"user", "用户", "user"},
    {"agent", "助手", "agent"},
    {"tool", "工具", "tool"},
    {"system", "系统", "system"},
};
