/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_import.c -- am_import and am_import_mem0 through the public API
 * (docs/IMPORT.md), Chinese and English:
 *  - round trip: a user with events (zh, en, PII placeholders, sessions,
 *    agents, a task with its history, a workspace, an identity), memories
 *    with several versions, a confirmation and heat, exported, imported
 *    into an empty store and exported again gives the same bytes but for
 *    exported_at, the tasks' task_ref (each store's own keyed id) and the
 *    import's own last audit row;
 *  - a second import into that user is refused (AM_DENIED) and changes
 *    nothing; with AM_IMPORT_MERGE only what it lacks is added;
 *  - a malformed document names the entry and field and writes nothing
 *    (the user stays unknown);
 *  - plain PII in a hand-made export is redacted as a write redacts it;
 *  - mem0's get_all list and {"results": [...]}: memories of provenance
 *    "import" recorded at their created_at, mem0's id and metadata in the
 *    value; a bad entry names memories[i].memory and writes nothing;
 *  - am_import_ex / am_import_mem0_ex's progress: (0, total) first, never
 *    backwards, (total, total) last, every AM_IMPORT_PROGRESS_EVERY
 *    entries (skipped ones of a merge too); none for a refused document;
 *    NULL options or progress work as am_import.
 */
#include <jansson.h>

#include "agentmem_ops.h"
#include "test.h"
#include "api_util.h"

static char *export_of(am_db *db, const char *user)
{
    char *out = NULL;
    int rc = am_export(db, user, &out);
    if (rc) fprintf(stderr, "export: %s\n", am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
    return out;
}

/* Blank the len characters after each needle (values that differ by
 * design), in place. */
static void blank_after(char *s, const char *needle, size_t len)
{
    for (char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        memset(p + strlen(needle), '_', len);
}

/* The export without the import's own last audit row. */
static void drop_last_audit(char *s)
{
    char *audit = strstr(s, "\"audit\":[");
    char *last = NULL;
    for (char *p = audit ? strstr(audit, ",{\"at\":") : NULL; p; p = strstr(p + 1, ",{\"at\":"))
        last = p;
    CHECK(last != NULL);
    if (last) strcpy(last, "]}");
}

static void fill_source(am_db *db)
{
    set_now("2026-03-02T09:00:00+08:00");
    add(db, "li", "s-zh", NULL, "2026-03-02T09:00:00+08:00", "以后周报都按三段写");
    add_as(db, "li", NULL, "s-zh", NULL, "2026-03-02T09:01:00+08:00",
           "我的邮箱是 li@example.com，电话 13800138000");
    add_as(db, "li", "agent", "s-zh", NULL, "2026-03-02T09:01:30+08:00", "好的，记住了。");
    add_as(db, "li", NULL, NULL, "weekly", "2026-03-02T09:02:00+08:00",
           "Task weekly report: stage draft, review next Monday");
    add_as(db, "li", NULL, "s-en", NULL, "2026-03-02T09:03:00Z", "I prefer reports in PDF");
    add_as(db, "li", NULL, "s-en", NULL, "2026-03-03T09:03:00Z",
           "Actually I now prefer reports in Word");
    add_as(db, "li", NULL, NULL, "weekly", "2026-03-04T10:00:00+08:00", "周报写完了，完成");
    set_now("2026-03-05T10:00:00Z");
    long version = 0;
    CHECK_EQ_INT(am_workspace_put(db, "li", "weekly", "planner", "drafting", NULL, "review", &version), AM_OK);
    CHECK_EQ_INT(am_workspace_put(db, "li", "weekly", "planner", NULL, "draft", NULL, &version), AM_OK);
    CHECK_EQ_INT(am_link(db, "tg", "42", "li"), AM_OK);
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories(db, "li", 0, NULL, &l), AM_OK);
    CHECK(l && l->n > 0);
    if (l && l->n) CHECK_EQ_INT(am_feedback(db, "li", l->items[0].id, AM_FEEDBACK_CONFIRM, NULL), AM_OK);
    am_memory_list_free(l);
    am_query q = {0};
    q.user_id = "li";
    q.text = "周报的格式是什么";
    am_recall_result *r = NULL;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
    am_recall_free(r);
}

static void test_round_trip(void)
{
    am_db *src = open_mem(), *dst = open_mem();
    fill_source(src);
    char *e1 = export_of(src, "li");
    am_import_info info;
    set_now("2026-04-01T00:00:00Z");
    int rc = am_import(dst, e1, strlen(e1), NULL, 0, &info);
    if (rc) fprintf(stderr, "import: %s\n", am_errmsg(dst));
    CHECK_EQ_INT(rc, AM_OK);
    CHECK_EQ_STR(info.user_id, "li");
    CHECK_EQ_INT(info.events, 7);
    CHECK_EQ_INT(info.tasks, 1);
    CHECK(info.memories >= 4);
    char *e2 = export_of(dst, "li");
    CHECK(strstr(e2, "\"op\":\"user.import\"") != NULL);
    drop_last_audit(e2);
    blank_after(e1, "\"exported_at\":\"", 20);
    blank_after(e2, "\"exported_at\":\"", 20);
    blank_after(e1, "\"task_ref\":\"", 17);
    blank_after(e2, "\"task_ref\":\"", 17);
    CHECK_EQ_STR(e2, e1);
    /* the structure is whole: versions, statuses, PII placeholders, the
     * workspace's version, the identity */
    CHECK_CONTAINS(e1, "\"version_state\":\"replaced\"");
    CHECK_CONTAINS(e1, "[EMAIL_1]");
    CHECK_CONTAINS(e1, "\"version\":2");
    CHECK_CONTAINS(e1, "\"external_id\":\"42\"");
    CHECK(strstr(e1, "li@example.com") == NULL);

    /* the imported user works: recall, the identity resolves, a write */
    am_query q = {0};
    q.user_id = "li";
    q.text = "What format should my reports be in?";
    am_recall_result *r = NULL;
    CHECK_EQ_INT(am_recall(dst, &q, &r), AM_OK);
    if (r) CHECK_CONTAINS(r->block, "Word");
    am_recall_free(r);
    char who[AM_ID_MAX + 1];
    CHECK_EQ_INT(am_resolve(dst, "tg", "42", who), AM_OK);
    CHECK_EQ_STR(who, "li");

    /* into a user with data: refused, nothing changes */
    char *before = export_of(dst, "li");
    rc = am_import(dst, e1, strlen(e1), NULL, 0, &info);
    CHECK_EQ_INT(rc, AM_DENIED);
    CHECK_CONTAINS(am_errmsg(dst), "import: user li holds");
    char *after = export_of(dst, "li");
    blank_after(before, "\"exported_at\":\"", 20);
    blank_after(after, "\"exported_at\":\"", 20);
    CHECK_EQ_STR(after, before);

    /* merge: the source moved on; only what dst lacks is added */
    set_now("2026-03-06T10:00:00Z");
    add_as(src, "li", NULL, "s-en", NULL, "2026-03-06T10:00:00Z", "My favourite colour is teal");
    char *e3 = export_of(src, "li");
    rc = am_import(dst, e3, strlen(e3), NULL, AM_IMPORT_MERGE, &info);
    if (rc) fprintf(stderr, "merge: %s\n", am_errmsg(dst));
    CHECK_EQ_INT(rc, AM_OK);
    CHECK_EQ_INT(info.events, 1);
    CHECK_EQ_INT(info.events_skipped, 7);
    CHECK_EQ_INT(info.tasks_skipped, 1);
    CHECK(info.memories >= 1 && info.memories_skipped >= 4);
    char *e4 = export_of(dst, "li");
    CHECK_CONTAINS(e4, "My favourite colour is teal");
    /* another user may not take an id of this store */
    rc = am_import(dst, e3, strlen(e3), "wang", 0, &info);
    CHECK_EQ_INT(rc, AM_INVALID);
    CHECK_CONTAINS(am_errmsg(dst), "identities[0]: (tg, 42) is linked to another user");
    char *none = NULL;
    CHECK_EQ_INT(am_export(dst, "wang", &none), AM_NOTFOUND);
    am_free(e1);
    am_free(e2);
    am_free(e3);
    am_free(e4);
    am_free(before);
    am_free(after);
    am_close(src);
    am_close(dst);
}

static const char doc_head[] =
    "{\"format\":\"agentmem-export\",\"version\":1,\"user\":\"zhao\",\"exported_at\":\"2026-01-01T00:00:00Z\","
    "\"identities\":[],\"events\":[";
static const char doc_tail[] = "],\"tasks\":[],\"workspaces\":[],\"memories\":[%s],\"audit\":[]}";

static const char ev_fmt[] =
    "{\"id\":\"%s\",\"agent\":null,\"session\":\"s\",\"task\":null,\"channel\":null,\"source\":\"user\","
    "\"type\":\"query\",\"domain\":null,\"intent\":null,\"content\":\"%s\",\"occurred_at\":\"%s\","
    "\"score\":0.0,\"entities\":[]}";

static char *make_doc(const char *ev2_at, const char *ev2_content, const char *memories)
{
    static char buf[8192];
    char tail[2048];
    size_t n = (size_t)snprintf(buf, sizeof buf, "%s", doc_head);
    n += (size_t)snprintf(buf + n, sizeof buf - n, ev_fmt, "01JAAAAAAAAAAAAAAAAAAAAAA1",
                          "我喜欢喝乌龙茶", "2026-01-01T08:00:00+08:00");
    buf[n++] = ',';
    n += (size_t)snprintf(buf + n, sizeof buf - n, ev_fmt, "01JAAAAAAAAAAAAAAAAAAAAAA2", ev2_content,
                          ev2_at);
    snprintf(tail, sizeof tail, doc_tail, memories);
    snprintf(buf + n, sizeof buf - n, "%s", tail);
    return buf;
}

static void test_malformed_writes_nothing(void)
{
    am_db *db = open_mem();
    set_now("2026-02-01T00:00:00Z");
    am_import_info info;
    static const struct {
        const char *at, *content, *memories, *field;
        int rc;
    } bad[] = {
        {"2026-01-01T08:01:00", "I like green tea", "", "events[1].occurred_at", AM_INVALID},
        {"2026-01-01T08:01:00Z", "I like green tea",
         "{\"id\":\"01JBBBBBBBBBBBBBBBBBBBBBB1\",\"lineage_id\":\"01JBBBBBBBBBBBBBBBBBBBBBB0\","
         "\"scope\":\"global\",\"kind\":\"feeling\",\"key\":\"k\",\"text\":\"t\",\"value\":null,"
         "\"status\":\"active\",\"confidence\":1,\"base_score\":1,\"half_life_days\":1,\"hits\":0,"
         "\"valid_from\":\"2026-01-01T00:00:00Z\",\"recorded_at\":\"2026-01-01T00:00:00Z\"}",
         "memories[0].kind", AM_INVALID},
        {"2026-01-01T08:01:00Z", "I like green tea",
         "{\"id\":\"01JBBBBBBBBBBBBBBBBBBBBBB1\",\"lineage_id\":\"01JBBBBBBBBBBBBBBBBBBBBBB0\","
         "\"scope\":\"global\",\"kind\":\"fact\",\"key\":\"k\",\"status\":\"active\"}",
         "memories[0].text", AM_INVALID},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *doc = make_doc(bad[i].at, bad[i].content, bad[i].memories);
        int rc = am_import(db, doc, strlen(doc), NULL, 0, &info);
        CHECK_EQ_INT(rc, bad[i].rc);
        CHECK_CONTAINS(am_errmsg(db), bad[i].field);
        char *ex = NULL;
        CHECK_EQ_INT(am_export(db, "zhao", &ex), AM_NOTFOUND); /* nothing written */
        am_free(ex);
    }
    static const char *const broken[] = {
        "{\"format\":\"agentmem-export\",\"version\":1,\"user\":\"zhao\",\"events\":[{]}",
        "[1,2,3]",
        "{\"format\":\"something-else\",\"version\":1,\"user\":\"zhao\"}",
        "{\"format\":\"agentmem-export\",\"version\":1,\"user\":\"zhao\",\"forgotten\":{\"state\":\"held\"}}",
        "{\"format\":\"agentmem-export\",\"version\":1,\"user\":\"zhao\",\"events\":\"many\"}",
    };
    static const char *const says[] = {"line 1", "expected a JSON object", "format", "forgotten",
                                       "events: expected an array"};
    for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
        CHECK_EQ_INT(am_import(db, broken[i], strlen(broken[i]), NULL, 0, &info), AM_INVALID);
        CHECK_CONTAINS(am_errmsg(db), says[i]);
    }
    char *ex = NULL;
    CHECK_EQ_INT(am_export(db, "zhao", &ex), AM_NOTFOUND);
    CHECK_EQ_INT(am_import(db, NULL, 3, NULL, 0, &info), AM_MISUSE);
    CHECK_EQ_INT(am_import(NULL, "{}", 2, NULL, 0, &info), AM_MISUSE);
    CHECK_EQ_INT(am_import(db, "{}", 2, "bad\x01user", 0, &info), AM_INVALID);

    /* a good one, with plain PII in a hand-made document: redacted */
    char *doc = make_doc("2026-01-01T08:01:00Z", "Mail me at zhao.wei@example.org please", "");
    int rc = am_import(db, doc, strlen(doc), NULL, 0, &info);
    if (rc) fprintf(stderr, "import: %s\n", am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
    CHECK_EQ_INT(info.events, 2);
    ex = export_of(db, "zhao");
    CHECK(strstr(ex, "zhao.wei@example.org") == NULL);
    CHECK_CONTAINS(ex, "Mail me at [EMAIL_1] please");
    CHECK_CONTAINS(ex, "我喜欢喝乌龙茶");
    am_free(ex);
    /* an event id of another user of the store: refused, nothing written */
    CHECK_EQ_INT(am_import(db, doc, strlen(doc), "qian", 0, &info), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "events[0].id");
    CHECK_EQ_INT(am_export(db, "qian", &ex), AM_NOTFOUND);
    am_close(db);
}

static void test_mem0(void)
{
    am_db *db = open_mem();
    set_now("2026-02-01T00:00:00Z");
    static const char list[] =
        "[{\"id\":\"a1b2c3d4-0000-4000-8000-000000000001\",\"memory\":\"Likes to play cricket on weekends\","
        "\"hash\":\"x\",\"metadata\":{\"category\":\"hobbies\"},\"created_at\":\"2024-07-20T01:02:03.456789-07:00\","
        "\"updated_at\":\"2024-07-21T01:02:03-07:00\",\"user_id\":\"alex\"},"
        "{\"id\":\"a1b2c3d4-0000-4000-8000-000000000002\",\"memory\":\"不吃香菜\",\"metadata\":null,"
        "\"created_at\":\"2024-08-01T10:00:00+08:00\",\"updated_at\":null,\"user_id\":\"alex\"}]";
    am_import_info info;
    int rc = am_import_mem0(db, list, strlen(list), "alex", &info);
    if (rc) fprintf(stderr, "mem0: %s\n", am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
    CHECK_EQ_INT(info.memories, 2);
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories(db, "alex", 0, NULL, &l), AM_OK);
    CHECK_EQ_INT(l ? (long)l->n : 0, 2);
    int seen = 0;
    am_time t_en, t_zh;
    CHECK_EQ_INT(am_time_parse("2024-07-20T08:02:03Z", &t_en, NULL), AM_OK);
    CHECK_EQ_INT(am_time_parse("2024-08-01T02:00:00Z", &t_zh, NULL), AM_OK);
    for (size_t i = 0; l && i < l->n; i++) {
        const am_memory *m = &l->items[i];
        CHECK_EQ_INT((long)m->n_sources, 1);
        if (m->n_sources) CHECK_EQ_STR(m->source_event_ids[0], "import");
        if (strcmp(m->text, "Likes to play cricket on weekends") == 0) {
            CHECK_EQ_INT(m->valid_from / 1000, t_en / 1000);
            CHECK_EQ_INT(m->recorded_at / 1000, t_en / 1000);
            CHECK_CONTAINS(m->value_json, "\"id\":\"a1b2c3d4-0000-4000-8000-000000000001\"");
            CHECK_CONTAINS(m->value_json, "\"metadata\":{\"category\":\"hobbies\"}");
            CHECK_CONTAINS(m->value_json, "\"source\":\"import\"");
            seen++;
        } else if (strcmp(m->text, "不吃香菜") == 0) {
            CHECK_EQ_INT(m->recorded_at, t_zh);
            CHECK_CONTAINS(m->value_json, "\"lang\":\"zh\"");
            seen++;
        }
    }
    CHECK_EQ_INT(seen, 2);
    am_memory_list_free(l);

    /* {"results": [...]}, the platform's shape; then a bad entry */
    static const char results[] =
        "{\"results\":[{\"id\":\"m-3\",\"memory\":\"Works as a nurse in Leeds\",\"user_id\":\"sam\"}]}";
    CHECK_EQ_INT(am_import_mem0(db, results, strlen(results), "sam", &info), AM_OK);
    CHECK_EQ_INT(info.memories, 1);
    static const char bad[] =
        "{\"results\":[{\"id\":\"m-4\",\"memory\":\"我住在成都\"},{\"id\":\"m-5\",\"memory\":\"ok\"},"
        "{\"id\":\"m-6\",\"metadata\":{}}]}";
    CHECK_EQ_INT(am_import_mem0(db, bad, strlen(bad), "kai", &info), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "results[2].memory: missing");
    static const char other[] = "[{\"memory\":\"I like jazz\",\"user_id\":\"someone-else\"}]";
    CHECK_EQ_INT(am_import_mem0(db, other, strlen(other), "kai", &info), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "[0].user_id");
    static const char when[] = "[{\"memory\":\"I like jazz\",\"created_at\":\"last tuesday\"}]";
    CHECK_EQ_INT(am_import_mem0(db, when, strlen(when), "kai", &info), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "memories[0].created_at");
    char *ex = NULL;
    CHECK_EQ_INT(am_export(db, "kai", &ex), AM_NOTFOUND); /* nothing written */
    am_close(db);
}

/* What the progress callback saw. */
typedef struct seen {
    size_t calls, first_done, first_total, last_done, last_total;
    int backwards, total_changed;
} seen;
static void on_progress(void *ctx, size_t done, size_t total)
{
    seen *s = ctx;
    if (s->calls && done < s->last_done) s->backwards = 1;
    if (s->calls && total != s->last_total) s->total_changed = 1;
    if (!s->calls) {
        s->first_done = done;
        s->first_total = total;
    }
    s->last_done = done;
    s->last_total = total;
    s->calls++;
}

static void test_progress(void)
{
    am_db *src = open_mem(), *dst = open_mem();
    enum { N = 150 };
    static am_event evs[N];
    static char texts[N][96];
    set_now("2026-03-01T10:00:00Z");
    for (int i = 0; i < N; i++) {
        memset(&evs[i], 0, sizeof evs[i]);
        evs[i].user_id = "mei";
        evs[i].session_id = i % 2 ? "s-zh" : "s-en";
        snprintf(texts[i], sizeof texts[i], i % 2 ? "第%d条：以后周报都按三段写" : "Note %d: I prefer reports in PDF", i);
        evs[i].text = texts[i];
    }
    CHECK_EQ_INT(am_add_events(src, evs, N, NULL), AM_OK);
    add(src, "mei", NULL, "weekly", "2026-03-02T09:00:00+08:00", "Task weekly report: stage draft");
    char *doc = export_of(src, "mei");
    seen a = {0};
    am_import_options opt = {0, on_progress, &a};
    am_import_info info;
    int rc = am_import_ex(dst, doc, strlen(doc), NULL, &opt, &info);
    if (rc) fprintf(stderr, "import: %s\n", am_errmsg(dst));
    CHECK_EQ_INT(rc, AM_OK);
    size_t total = (size_t)(info.events + info.memories + info.tasks);
    CHECK(info.events == N + 1 && info.tasks == 1 && info.memories > 0);
    CHECK_EQ_INT((int)a.first_done, 0);
    CHECK_EQ_INT((int)a.first_total, (int)total);
    CHECK_EQ_INT((int)a.last_done, (int)total);
    CHECK_EQ_INT((int)a.last_total, (int)total);
    CHECK_EQ_INT(a.backwards, 0);
    CHECK_EQ_INT(a.total_changed, 0);
    /* every 64 entries and at the end of each kind: a few calls, not one a row */
    CHECK(a.calls >= 2 + total / AM_IMPORT_PROGRESS_EVERY);
    CHECK(a.calls <= 2 + total / AM_IMPORT_PROGRESS_EVERY + 3 + 1);

    /* a merge of the same document: every entry skipped, still counted */
    seen m = {0};
    am_import_options mopt = {AM_IMPORT_MERGE, on_progress, &m};
    CHECK_EQ_INT(am_import_ex(dst, doc, strlen(doc), NULL, &mopt, &info), AM_OK);
    CHECK_EQ_INT(info.events, 0);
    CHECK_EQ_INT((int)info.events_skipped, N + 1);
    CHECK_EQ_INT((int)m.last_done, (int)total);
    CHECK_EQ_INT((int)m.last_total, (int)total);
    CHECK_EQ_INT(m.backwards, 0);
    /* without the flag: refused (AM_DENIED): never at total */
    seen d = {0};
    am_import_options dopt = {0, on_progress, &d};
    CHECK_EQ_INT(am_import_ex(dst, doc, strlen(doc), NULL, &dopt, &info), AM_DENIED);
    CHECK(d.calls == 0 || d.last_done < total);

    /* a malformed document: no call at all */
    seen bad = {0};
    am_import_options bopt = {0, on_progress, &bad};
    static const char broken[] = "{\"format\":\"agentmem-export\",\"version\":1,\"user\":\"x\","
                                 "\"events\":[{\"id\":\"01\",\"content\":\"你好\"}]}";
    CHECK_EQ_INT(am_import_ex(dst, broken, strlen(broken), NULL, &bopt, &info), AM_INVALID);
    CHECK_EQ_INT((int)bad.calls, 0);

    /* NULL options, NULL progress: as am_import */
    am_db *other = open_mem();
    CHECK_EQ_INT(am_import_ex(other, doc, strlen(doc), "mei2", NULL, &info), AM_OK);
    CHECK_EQ_INT(info.events, N + 1);
    am_close(other);
    other = open_mem(); /* (an event id is one user's in a store) */
    am_import_options none = {0, NULL, NULL};
    CHECK_EQ_INT(am_import_ex(other, doc, strlen(doc), "mei3", &none, &info), AM_OK);
    CHECK_EQ_INT(info.events, N + 1);
    am_close(other);

    /* mem0: its memories */
    static const char list[] = "[{\"id\":\"m1\",\"memory\":\"不吃香菜\"},"
                               "{\"id\":\"m2\",\"memory\":\"Likes to play cricket on weekends\"}]";
    seen z = {0};
    am_import_options zopt = {0, on_progress, &z};
    CHECK_EQ_INT(am_import_mem0_ex(dst, list, strlen(list), "alex", &zopt, &info), AM_OK);
    CHECK_EQ_INT(info.memories, 2);
    CHECK_EQ_INT((int)z.first_done, 0);
    CHECK_EQ_INT((int)z.first_total, 2);
    CHECK_EQ_INT((int)z.last_done, 2);
    CHECK_EQ_INT((int)z.last_total, 2);
    CHECK_EQ_INT(z.backwards, 0);
    CHECK_EQ_INT(am_import_mem0_ex(dst, list, strlen(list), "sam", NULL, &info), AM_OK);
    CHECK_EQ_INT(info.memories, 2);
    am_free(doc);
    am_close(src);
    am_close(dst);
}

int main(void)
{
    RUN(test_round_trip);
    RUN(test_malformed_writes_nothing);
    RUN(test_mem0);
    RUN(test_progress);
    TEST_MAIN_END();
}
