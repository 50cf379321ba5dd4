/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_observe.c -- promotion of repeated weak preferences and
 * weekly patterns, through the public API (include/agentmem.h) with an
 * injected clock and an in-memory store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentmem.h"
#include "test.h"
#include "api_util.h"


static am_memory_list *list(am_db *db, const char *user, int which)
{
    am_memory_list *l = NULL;
    int rc = am_memories(db, user, which, NULL, &l);
    CHECK_EQ_INT(rc, AM_OK);
    return l;
}

/* Current active items of a kind (NULL = any). */
static size_t count_kind(am_db *db, const char *user, const char *kind)
{
    am_memory_list *l = list(db, user, AM_LIST_ACTIVE);
    size_t n = 0;
    for (size_t i = 0; l && i < l->n; i++)
        n += !kind || strcmp(l->items[i].kind, kind) == 0;
    am_memory_list_free(l);
    return n;
}

/* Versions (current or closed) whose text contains needle. */
static size_t count_versions(am_db *db, const char *user, const char *needle)
{
    am_memory_list *l = list(db, user, AM_LIST_ALL);
    size_t n = 0;
    for (size_t i = 0; l && i < l->n; i++)
        n += strstr(l->items[i].text, needle) != NULL;
    am_memory_list_free(l);
    return n;
}

static int has_source(const am_memory *m, const char *event_id)
{
    for (size_t i = 0; i < m->n_sources; i++)
        if (strcmp(m->source_event_ids[i], event_id) == 0) return 1;
    return 0;
}

/* The one current item of a kind; checks there is exactly one.  The
 * fields are copied out so the list can be freed. */
typedef struct item {
    char kind[32], key[128], scope[160], status[32], text[256], id[32];
    double confidence;
    size_t n_sources;
    int found;
} item;

static item one_of_kind(am_db *db, const char *user, const char *kind,
                        const char *const *sources, size_t n_sources)
{
    item out;
    memset(&out, 0, sizeof out);
    am_memory_list *l = list(db, user, AM_LIST_ACTIVE);
    size_t seen = 0;
    for (size_t i = 0; l && i < l->n; i++) {
        const am_memory *m = &l->items[i];
        if (strcmp(m->kind, kind) != 0) continue;
        seen++;
        snprintf(out.kind, sizeof out.kind, "%s", m->kind);
        snprintf(out.key, sizeof out.key, "%s", m->key);
        snprintf(out.scope, sizeof out.scope, "%s", m->scope);
        snprintf(out.status, sizeof out.status, "%s", m->status);
        snprintf(out.text, sizeof out.text, "%s", m->text);
        snprintf(out.id, sizeof out.id, "%s", m->lineage_id);
        out.confidence = m->confidence;
        out.n_sources = m->n_sources;
        out.found = 1;
        for (size_t k = 0; k < n_sources; k++) CHECK(has_source(m, sources[k]));
    }
    CHECK_EQ_INT(seen, 1);
    am_memory_list_free(l);
    return out;
}

/* ---------------------------------------------- promotion */

static void test_promotion_zh(void)
{
    am_db *db = open_mem();
    am_add_info a = add(db, "chen", "s1", NULL, "2026-04-06T10:00:00+08:00",
                        "帮我把这份合同整理一下，用PDF吧");
    CHECK_EQ_INT(a.memories_created, 0);
    CHECK_EQ_INT(count_kind(db, "chen", NULL), 0);
    add(db, "chen", "s1", NULL, "2026-04-06T10:05:00+08:00", "合同里的日期也核对一下");
    CHECK_EQ_INT(count_kind(db, "chen", NULL), 0);
    am_add_info b = add(db, "chen", "s2", NULL, "2026-04-07T15:00:00+08:00", "报价单给我发PDF");
    CHECK_EQ_INT(b.memories_created, 1);
    const char *src[] = {a.event_id, b.event_id};
    item it = one_of_kind(db, "chen", "preference", src, 2);
    CHECK_EQ_STR(it.key, "general.format");
    CHECK_EQ_STR(it.scope, "global");
    CHECK_EQ_STR(it.status, "active");
    CHECK_NEAR(it.confidence, 0.6, 1e-9);
    CHECK_EQ_INT(it.n_sources, 2);
    CHECK_CONTAINS(it.text, "PDF");
    CHECK_EQ_INT(count_kind(db, "chen", NULL), 1);
    am_close(db);
}

static void test_promotion_en(void)
{
    am_db *db = open_mem();
    am_add_info a = add(db, "emma", "s1", NULL, "2026-04-06T10:00:00-05:00",
                        "Keep your answer to this short, please.");
    CHECK_EQ_INT(count_kind(db, "emma", NULL), 0);
    am_add_info b = add(db, "emma", "s2", NULL, "2026-04-08T09:00:00-05:00",
                        "Just a short answer please");
    CHECK_EQ_INT(b.memories_created, 1);
    const char *src[] = {a.event_id, b.event_id};
    item it = one_of_kind(db, "emma", "preference", src, 2);
    CHECK_EQ_STR(it.key, "reply.length");
    CHECK_NEAR(it.confidence, 0.6, 1e-9);

    am_add_info c = add(db, "emma", "s3", NULL, "2026-04-09T09:00:00-05:00",
                        "Please use bullet points");
    CHECK_EQ_INT(c.memories_created, 0);
    am_add_info d = add(db, "emma", "s4", NULL, "2026-04-10T09:00:00-05:00",
                        "Could you use bullet points?");
    CHECK_EQ_INT(d.memories_created, 1);
    CHECK_EQ_INT(count_kind(db, "emma", "preference"), 2);
    am_close(db);
}

/* A single mention, or two mentions of different values, stay short-term;
 * so do two mentions inside one event, and mentions weeks apart. */
static void test_no_promotion_on_first(void)
{
    am_db *db = open_mem();
    add(db, "u", "s1", NULL, "2026-04-06T10:00:00+08:00", "用PDF吧");
    add(db, "u", "s2", NULL, "2026-04-07T10:00:00+08:00", "今天开了三个会，有点累");
    CHECK_EQ_INT(count_kind(db, "u", NULL), 0);
    add(db, "u", "s3", NULL, "2026-04-07T11:00:00+08:00", "用Word吧");
    CHECK_EQ_INT(count_kind(db, "u", NULL), 0);
    /* wanted vs unwanted is not the same information */
    add(db, "u", "s4", NULL, "2026-04-07T12:00:00+08:00", "不要用表格");
    add(db, "u", "s5", NULL, "2026-04-07T13:00:00+08:00", "还是用表格吧");
    CHECK_EQ_INT(count_kind(db, "u", NULL), 0);
    /* twice in one event is one mention */
    add(db, "v", "s1", NULL, "2026-04-06T10:00:00+08:00", "用PDF吧。给我发PDF");
    CHECK_EQ_INT(count_kind(db, "v", NULL), 0);
    /* a month apart is not short-term */
    add(db, "w", "s1", NULL, "2026-03-01T10:00:00+08:00", "用PDF吧");
    add(db, "w", "s2", NULL, "2026-04-06T10:00:00+08:00", "用PDF吧");
    CHECK_EQ_INT(count_kind(db, "w", NULL), 0);
    /* questions are not requests */
    add(db, "x", "s1", NULL, "2026-04-06T10:00:00+08:00", "是用PDF吗？");
    add(db, "x", "s2", NULL, "2026-04-06T11:00:00+08:00", "要用PDF吗？");
    CHECK_EQ_INT(count_kind(db, "x", NULL), 0);
    am_close(db);
}

static void test_one_off_never_promotes(void)
{
    am_db *db = open_mem();
    am_add_info a = add(db, "u", "s1", NULL, "2026-04-06T10:00:00+08:00", "这次用PDF吧");
    CHECK_EQ_INT(a.one_off, 1);
    add(db, "u", "s2", NULL, "2026-04-07T10:00:00+08:00", "这次还是用PDF吧");
    add(db, "u", "s3", NULL, "2026-04-08T10:00:00+08:00", "这次也用PDF吧");
    CHECK_EQ_INT(count_kind(db, "u", NULL), 0);
    /* a one-off is no first mention either */
    add(db, "u", "s4", NULL, "2026-04-08T11:00:00+08:00", "用PDF吧");
    CHECK_EQ_INT(count_kind(db, "u", NULL), 0);
    add(db, "e", "s1", NULL, "2026-04-06T10:00:00Z", "Just this once, use bullet points");
    add(db, "e", "s2", NULL, "2026-04-07T10:00:00Z", "This time use bullet points too");
    CHECK_EQ_INT(count_kind(db, "e", NULL), 0);
    am_close(db);
}

/* At most 2 writes per item per session. */
static void test_storm_guard(void)
{
    am_db *db = open_mem();
    int created = 0, updated = 0;
    char at[40];
    for (int i = 0; i < 6; i++) {
        snprintf(at, sizeof at, "2026-04-06T10:%02d:00+08:00", i);
        am_add_info info = add(db, "u", "s1", NULL, at, "还是用表格吧");
        created += info.memories_created;
        updated += info.memories_updated;
    }
    CHECK_EQ_INT(created, 1);
    CHECK_EQ_INT(updated, 1);
    CHECK_EQ_INT(count_kind(db, "u", NULL), 1);
    CHECK_EQ_INT(count_versions(db, "u", "表格"), 2);
    item it = one_of_kind(db, "u", "preference", NULL, 0);
    CHECK_NEAR(it.confidence, 0.65, 1e-9);
    CHECK_EQ_INT(it.n_sources, 3);
    /* Three repetitions in one session: at most 2 promotions/versions. */
    for (int i = 0; i < 3; i++) {
        snprintf(at, sizeof at, "2026-04-06T11:%02d:00+08:00", i);
        add(db, "t", "s1", NULL, at, "Bullet points please");
    }
    CHECK_EQ_INT(count_versions(db, "t", "Bullet points"), 2);
    /* Another session may write twice more; an inferred item stays below
     * anything the user stated (0.7). */
    for (int i = 0; i < 4; i++) {
        snprintf(at, sizeof at, "2026-04-07T10:%02d:00+08:00", i);
        add(db, "u", "s2", NULL, at, "还是用表格吧");
    }
    CHECK_EQ_INT(count_versions(db, "u", "表格"), 4);
    it = one_of_kind(db, "u", "preference", NULL, 0);
    CHECK_NEAR(it.confidence, 0.7, 1e-9);
    CHECK_EQ_INT(count_kind(db, "u", NULL), 1);
    am_close(db);
}

/* A weak mention of what the user stated reinforces it, no new row. */
static void test_reinforces_stated(void)
{
    am_db *db = open_mem();
    am_add_info a = add(db, "u", "s1", NULL, "2026-04-06T10:00:00+08:00", "以后报告都用PDF");
    CHECK_EQ_INT(a.memories_created, 1);
    am_add_info b = add(db, "u", "s2", NULL, "2026-04-07T10:00:00+08:00", "用PDF吧");
    CHECK_EQ_INT(b.memories_created, 0);
    CHECK_EQ_INT(b.memories_updated, 1);
    const char *src[] = {a.event_id, b.event_id};
    item it = one_of_kind(db, "u", "preference", src, 2);
    CHECK_NEAR(it.confidence, 0.9, 1e-9);
    CHECK_EQ_STR(it.key, "report.format");
    CHECK_EQ_INT(count_kind(db, "u", NULL), 1);
    am_close(db);
}

/* a promotion onto a key the user stated otherwise waits for
 * confirmation; an explicit statement ends the run of earlier mentions;
 * a rejected promotion is not made again from the same mentions. */
static void test_merge_rules(void)
{
    am_db *db = open_mem();
    add(db, "u", "s1", NULL, "2026-04-06T10:00:00+08:00", "以后都用Word");
    add(db, "u", "s2", NULL, "2026-04-06T11:00:00+08:00", "用PDF吧");
    am_add_info b = add(db, "u", "s3", NULL, "2026-04-07T10:00:00+08:00", "给我发PDF");
    CHECK_EQ_INT(b.memories_updated, 1);
    am_memory_list *l = list(db, "u", AM_LIST_ACTIVE);
    int word_active = 0, pdf_pending = 0;
    for (size_t i = 0; l && i < l->n; i++) {
        word_active += strstr(l->items[i].text, "Word") && !strcmp(l->items[i].status, "active");
        pdf_pending += strstr(l->items[i].text, "PDF") &&
                       !strcmp(l->items[i].status, "pending_confirm");
    }
    CHECK_EQ_INT(word_active, 1);
    CHECK_EQ_INT(pdf_pending, 1);
    am_memory_list_free(l);
    /* asked again: still pending, no new version */
    size_t before = count_versions(db, "u", "PDF");
    add(db, "u", "s4", NULL, "2026-04-08T10:00:00+08:00", "用PDF吧");
    CHECK_EQ_INT(count_versions(db, "u", "PDF"), before);
    /* another value said twice: it replaces the open question */
    add(db, "u", "s5", NULL, "2026-04-08T11:00:00+08:00", "用Excel吧");
    add(db, "u", "s6", NULL, "2026-04-08T12:00:00+08:00", "还是用Excel吧");
    l = list(db, "u", AM_LIST_ACTIVE);
    int pending = 0, excel_pending = 0;
    for (size_t i = 0; l && i < l->n; i++) {
        pending += !strcmp(l->items[i].status, "pending_confirm");
        excel_pending += !strcmp(l->items[i].status, "pending_confirm") &&
                         strstr(l->items[i].text, "Excel") != NULL;
    }
    CHECK_EQ_INT(pending, 1);
    CHECK_EQ_INT(excel_pending, 1);
    am_memory_list_free(l);

    add(db, "v", "s1", NULL, "2026-04-06T10:00:00+08:00", "用Word吧");
    add(db, "v", "s2", NULL, "2026-04-06T11:00:00+08:00", "以后都用PDF");
    add(db, "v", "s3", NULL, "2026-04-07T10:00:00+08:00", "用Word吧");
    CHECK_EQ_INT(count_versions(db, "v", "Word"), 0);

    add(db, "w", "s1", NULL, "2026-04-06T10:00:00+08:00", "用PDF吧");
    add(db, "w", "s2", NULL, "2026-04-06T11:00:00+08:00", "用PDF吧");
    item it = one_of_kind(db, "w", "preference", NULL, 0);
    CHECK_EQ_INT(am_feedback(db, "w", it.id, AM_FEEDBACK_REJECT, NULL), AM_OK);
    CHECK_EQ_INT(count_kind(db, "w", NULL), 0);
    add(db, "w", "s3", NULL, "2026-04-07T10:00:00+08:00", "用PDF吧");
    CHECK_EQ_INT(count_kind(db, "w", NULL), 0);
    /* said twice more after the rejection: the user means it */
    add(db, "w", "s4", NULL, "2026-04-08T10:00:00+08:00", "给我发PDF");
    CHECK_EQ_INT(count_kind(db, "w", NULL), 1);
    am_close(db);
}

/* promotion reads only the user's own events. */
static void test_isolation(void)
{
    am_db *db = open_mem();
    add(db, "b", "s1", NULL, "2026-04-06T10:00:00+08:00", "用PDF吧");
    add(db, "b", "s2", NULL, "2026-04-06T11:00:00+08:00", "给我发PDF");
    add(db, "b", "s3", NULL, "2026-04-06T12:00:00+08:00", "还是用PDF吧");
    CHECK_EQ_INT(count_kind(db, "b", "preference"), 1);
    add(db, "a", "s1", NULL, "2026-04-06T13:00:00+08:00", "用PDF吧");
    CHECK_EQ_INT(count_kind(db, "a", NULL), 0);
    /* b's Friday habit is not a's: a works on it on one Friday only */
    static const char *const fridays[] = {"2026-04-10T16:00:00+08:00", "2026-04-17T16:00:00+08:00",
                                          "2026-04-24T16:00:00+08:00"};
    for (int i = 0; i < 3; i++) add(db, "b", "f", "weekly-report", fridays[i], "写周报");
    add(db, "a", "f", "weekly-report", "2026-05-01T16:00:00+08:00", "写周报");
    CHECK_EQ_INT(count_kind(db, "b", "pattern"), 1);
    CHECK_EQ_INT(count_kind(db, "a", NULL), 0);
    am_close(db);
}

/* ---------------------------------------- periodic patterns */

static void test_pattern_fridays(void)
{
    am_db *db = open_mem();
    /* Fridays 2026-04-10, 17, 24, May 1, 8, 15; plus other days around. */
    am_add_info w1 = add(db, "u", "w1", "weekly-report", "2026-04-10T16:00:00+08:00", "周报素材：接口联调完成");
    add(db, "u", "w1", "weekly-report", "2026-04-13T10:00:00+08:00", "周一补充：需求评审");
    am_add_info w2 = add(db, "u", "w2", "weekly-report", "2026-04-17T16:40:00+08:00", "周报素材：压测结果出来了");
    CHECK_EQ_INT(count_kind(db, "u", "pattern"), 0);
    am_add_info w3 = add(db, "u", "w3", "weekly-report", "2026-04-24T15:10:00+08:00", "开始写这周的周报");
    CHECK_EQ_INT(w3.memories_created, 1);
    const char *src[] = {w1.event_id, w2.event_id, w3.event_id};
    item it = one_of_kind(db, "u", "pattern", src, 3);
    CHECK_EQ_STR(it.key, "pattern.weekly-report.weekly.fri");
    CHECK_EQ_STR(it.scope, "task:weekly-report");
    CHECK_NEAR(it.confidence, 0.5, 1e-9);
    CHECK_EQ_INT(it.n_sources, 3);
    CHECK_CONTAINS(it.text, "周五下午");
    CHECK_CONTAINS(it.text, "weekly-report");
    /* Another event the same Friday afternoon: nothing new. */
    am_add_info again = add(db, "u", "w3", "weekly-report", "2026-04-24T16:00:00+08:00", "周报写了一半");
    CHECK_EQ_INT(again.memories_created + again.memories_updated, 0);
    /* Confidence rises with each further week, up to 0.6. */
    am_add_info w4 = add(db, "u", "w4", "weekly-report", "2026-05-01T16:20:00+08:00", "周报素材");
    CHECK_EQ_INT(w4.memories_updated, 1);
    CHECK_NEAR(one_of_kind(db, "u", "pattern", NULL, 0).confidence, 0.55, 1e-9);
    add(db, "u", "w5", "weekly-report", "2026-05-08T16:00:00+08:00", "周报素材");
    CHECK_NEAR(one_of_kind(db, "u", "pattern", NULL, 0).confidence, 0.6, 1e-9);
    am_add_info w6 = add(db, "u", "w6", "weekly-report", "2026-05-15T16:00:00+08:00", "周报素材");
    CHECK_EQ_INT(w6.memories_updated, 0);
    CHECK_NEAR(one_of_kind(db, "u", "pattern", NULL, 0).confidence, 0.6, 1e-9);
    CHECK_EQ_INT(count_versions(db, "u", "周五下午"), 3);
    CHECK_EQ_INT(count_kind(db, "u", "pattern"), 1);
    am_close(db);
}

static void test_pattern_not_random(void)
{
    am_db *db = open_mem();
    /* Random weekdays over four weeks. */
    add(db, "u", "a", "claims", "2026-04-06T10:00:00+08:00", "报销：出租车");
    add(db, "u", "b", "claims", "2026-04-15T10:00:00+08:00", "报销：午餐");
    add(db, "u", "c", "claims", "2026-04-23T10:00:00+08:00", "报销：高铁");
    add(db, "u", "d", "claims", "2026-04-28T10:00:00+08:00", "报销：酒店");
    /* Fridays, but morning, afternoon and night. */
    add(db, "u", "e", "report", "2026-04-10T09:00:00+08:00", "周报");
    add(db, "u", "f", "report", "2026-04-17T15:00:00+08:00", "周报");
    add(db, "u", "g", "report", "2026-04-24T21:00:00+08:00", "周报");
    /* Same slot, three weeks, but different tasks. */
    add(db, "u", "h", "t1", "2026-05-04T09:00:00+08:00", "整理会议纪要");
    add(db, "u", "i", "t2", "2026-05-11T09:00:00+08:00", "整理会议纪要");
    add(db, "u", "j", "t3", "2026-05-18T09:00:00+08:00", "整理会议纪要");
    /* Two weeks in the slot, the third too long ago. */
    add(db, "u", "k", "old", "2026-01-05T09:00:00+08:00", "季度规划");
    add(db, "u", "l", "old", "2026-05-04T09:00:00+08:00", "季度规划");
    add(db, "u", "m", "old", "2026-05-11T09:00:00+08:00", "季度规划");
    CHECK_EQ_INT(count_kind(db, "u", "pattern"), 0);
    /* Every day at nine is a daily routine, no weekday's habit. */
    char at[40];
    for (int d = 0; d < 21; d++) {
        snprintf(at, sizeof at, "2026-06-%02dT09:00:00+08:00", d + 1);
        add(db, "d", "s", "standup", at, "站会记录");
    }
    CHECK_EQ_INT(count_kind(db, "d", "pattern"), 0);
    am_close(db);
}

/* A week off does not break a habit; a habit not seen for two weeks is
 * not current. */
static void test_pattern_gaps(void)
{
    am_db *db = open_mem();
    add(db, "u", "a", "report", "2026-04-10T16:00:00+08:00", "周报");
    add(db, "u", "b", "report", "2026-04-17T16:00:00+08:00", "周报");
    /* no report on 04-24 */
    add(db, "u", "c", "report", "2026-05-01T16:00:00+08:00", "周报");
    CHECK_EQ_INT(count_kind(db, "u", "pattern"), 1);
    add(db, "v", "a", "report", "2026-04-10T16:00:00+08:00", "周报");
    add(db, "v", "b", "report", "2026-04-17T16:00:00+08:00", "周报");
    /* nothing on 04-24 and 05-01 */
    add(db, "v", "c", "report", "2026-05-08T16:00:00+08:00", "周报");
    CHECK_EQ_INT(count_kind(db, "v", "pattern"), 0);
    am_close(db);
}

/* Weekday and time of day are the event's local ones. */
static void test_pattern_local_time(void)
{
    am_db *db = open_mem();
    /* Friday evenings in UTC-5 are Saturdays in UTC. */
    add(db, "e", "a", "weekly-report", "2026-04-10T18:30:00-05:00", "Report notes");
    add(db, "e", "b", "weekly-report", "2026-04-17T19:30:00-05:00", "Report notes");
    add(db, "e", "c", "weekly-report", "2026-04-24T19:00:00-05:00", "Start the report");
    item it = one_of_kind(db, "e", "pattern", NULL, 0);
    CHECK_EQ_STR(it.key, "pattern.weekly-report.weekly.fri");
    CHECK_CONTAINS(it.text, "usually works on weekly-report on Friday evenings");
    am_close(db);
}

/* Without a task, the same request in other words counts. */
static void test_pattern_untasked(void)
{
    am_db *db = open_mem();
    add(db, "u", "a", NULL, "2026-04-13T09:00:00+08:00", "帮我查一下上周的销售数据");
    add(db, "u", "b", NULL, "2026-04-20T09:10:00+08:00", "帮我查一下上周的销售数据，按区域分");
    add(db, "u", "c", NULL, "2026-04-21T09:00:00+08:00", "帮我查一下上周的销售数据");
    CHECK_EQ_INT(count_kind(db, "u", "pattern"), 0);
    add(db, "u", "d", NULL, "2026-04-27T08:50:00+08:00", "帮我查一下上周的销售数据");
    item it = one_of_kind(db, "u", "pattern", NULL, 0);
    CHECK_CONTAINS(it.key, "pattern.request.");
    CHECK_CONTAINS(it.key, ".weekly.mon");
    CHECK_EQ_STR(it.scope, "global");
    CHECK_CONTAINS(it.text, "周一上午");
    CHECK_CONTAINS(it.text, "销售数据");
    /* the next Monday, in other words: the same pattern, more confident */
    am_add_info w4 = add(db, "u", "e", NULL, "2026-05-04T09:05:00+08:00", "帮我查一下上周的销售数据吧");
    CHECK_EQ_INT(w4.memories_created, 0);
    CHECK_EQ_INT(w4.memories_updated, 1);
    CHECK_EQ_INT(count_kind(db, "u", "pattern"), 1);
    am_close(db);
}

/* A pattern the user rejected is not made again. */
static void test_pattern_rejected(void)
{
    am_db *db = open_mem();
    add(db, "u", "a", "gym", "2026-04-06T19:00:00+08:00", "去健身");
    add(db, "u", "b", "gym", "2026-04-13T19:00:00+08:00", "去健身");
    add(db, "u", "c", "gym", "2026-04-20T19:00:00+08:00", "去健身");
    item it = one_of_kind(db, "u", "pattern", NULL, 0);
    CHECK_EQ_INT(am_feedback(db, "u", it.id, AM_FEEDBACK_REJECT, NULL), AM_OK);
    add(db, "u", "d", "gym", "2026-04-27T19:00:00+08:00", "去健身");
    CHECK_EQ_INT(count_kind(db, "u", "pattern"), 0);
    am_close(db);
}

int main(void)
{
    RUN(test_promotion_zh);
    RUN(test_promotion_en);
    RUN(test_no_promotion_on_first);
    RUN(test_one_off_never_promotes);
    RUN(test_storm_guard);
    RUN(test_reinforces_stated);
    RUN(test_merge_rules);
    RUN(test_isolation);
    RUN(test_pattern_fridays);
    RUN(test_pattern_not_random);
    RUN(test_pattern_gaps);
    RUN(test_pattern_local_time);
    RUN(test_pattern_untasked);
    RUN(test_pattern_rejected);
    TEST_MAIN_END();
}
