/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexicon/labels.c -- the labels of the rendered memory block in both languages
 * (recall/render.c): section titles, memory kinds and who said an event.
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

/* A topic of the learned reading (data/understand/LABELS.md), its Chinese
 * and its English heading: the sections of the profile card
 * (recall/profile.c), in the reading's label order. */
const char *const am__lex_topic_labels[27][3] = {
    {"food", "饮食", "Food"},
    {"drink", "饮品", "Drinks"},
    {"health", "健康", "Health"},
    {"fitness", "运动健身", "Fitness"},
    {"diet_restrictions", "饮食禁忌", "Dietary restrictions"},
    {"travel", "出行", "Travel"},
    {"transport", "交通", "Transport"},
    {"schedule", "日程", "Schedule"},
    {"communication", "沟通", "Communication"},
    {"reporting_documents", "报告与文档", "Reports and documents"},
    {"writing_style", "写作风格", "Writing style"},
    {"language", "语言", "Language"},
    {"finance", "财务", "Finance"},
    {"shopping", "购物", "Shopping"},
    {"family", "家庭", "Family"},
    {"relationships", "人际关系", "Relationships"},
    {"work_projects", "工作项目", "Work and projects"},
    {"career", "职业", "Career"},
    {"education", "教育", "Education"},
    {"tools_tech", "工具与技术", "Tools and tech"},
    {"home", "住所", "Home"},
    {"pets", "宠物", "Pets"},
    {"entertainment", "娱乐", "Entertainment"},
    {"sports", "体育", "Sports"},
    {"location", "所在地", "Location"},
    {"privacy", "隐私", "Privacy"},
    {"other", "其他", "Other"},
};
