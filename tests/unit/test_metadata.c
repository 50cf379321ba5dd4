/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_metadata.c -- metadata, filters and pages through the public API
 * (agentmem.h "Metadata", am_filter, am_memories_list), in Chinese and
 * English:
 *  - each limit of metadata (keys, key length and characters, value
 *    length, whole size) and each bad type (object, array, null, not an
 *    object, not JSON) is refused naming the field, and nothing is written
 *    (no event, no memory);
 *  - a memory distilled from an event carries the event's metadata; a new
 *    version keeps its predecessor's unless am_memory_set sets it ("{}"
 *    clears it); am_memory_add takes metadata;
 *  - filters on lists (kind, scope, metadata equality and any-of, numbers
 *    and booleans as text, a time range) and on recall (memories and
 *    events), and bad filters refused by name;
 *  - pages over 250 memories of a store file, with another handle adding
 *    memories between the pages: every memory there at the start comes
 *    exactly once, no page repeats a row; a limit over the maximum and a
 *    cursor that is not one are refused.
 */
#include <unistd.h>

#include "test.h"
#include "api_util.h"

static int add_meta(am_db *db, const char *user, const char *text, const char *meta)
{
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = user;
    ev.text = text;
    ev.metadata_json = meta;
    return am_add_event(db, &ev, NULL);
}

static size_t count_memories(am_db *db, const char *user)
{
    am_memory_list *l = NULL;
    int rc = am_memories(db, user, AM_LIST_ALL, NULL, &l);
    size_t n = rc ? 0 : l->n;
    am_memory_list_free(l);
    return n;
}

static size_t count_events(am_db *db, const char *user)
{
    char *doc = NULL;
    if (am_export(db, user, &doc)) return 0;
    size_t n = 0;
    for (const char *p = doc; (p = strstr(p, "\"occurred_at\"")); p++) n++;
    am_free(doc);
    return n;
}

static void test_limits_refused_by_name(void)
{
    am_db *db = open_mem();
    set_now("2026-05-01T09:00:00Z");
    /* a first event, so that the user exists and its counts are known */
    CHECK_EQ_INT(add_meta(db, "u", "I prefer window seats", "{\"trip\":\"lisbon\"}"), AM_OK);
    size_t ev0 = count_events(db, "u"), mem0 = count_memories(db, "u");
    char big_value[700], many[2048], long_key[200], whole[6000];
    snprintf(big_value, sizeof big_value, "{\"project\":\"%0600d\"}", 0);
    int k = snprintf(many, sizeof many, "{");
    for (int i = 0; i < 33; i++) k += snprintf(many + k, sizeof many - (size_t)k, "%s\"k%d\":1", i ? "," : "", i);
    snprintf(many + k, sizeof many - (size_t)k, "}");
    snprintf(long_key, sizeof long_key, "{\"%065d\":1}", 0);
    k = snprintf(whole, sizeof whole, "{");
    for (int i = 0; i < 10; i++)
        k += snprintf(whole + k, sizeof whole - (size_t)k, "%s\"v%d\":\"%0450d\"", i ? "," : "", i, i);
    snprintf(whole + k, sizeof whole - (size_t)k, "}");
    static const struct {
        const char *what, *needle;
        int rc;
    } cases[] = {
        {"{\"project\":{\"a\":1}}", "metadata.project: expected a string, a number or a boolean", AM_INVALID},
        {"{\"tags\":[\"a\"]}", "metadata.tags: expected", AM_INVALID},
        {"{\"gone\":null}", "metadata.gone: expected", AM_INVALID},
        {"[1,2]", "metadata: expected a JSON object", AM_INVALID},
        {"{\"a\":", "metadata: not JSON", AM_INVALID},
        {"{\"bad key\":1}", "metadata.bad key: a key is", AM_INVALID},
        {"{\"项目\":\"阿波罗\"}", "a key is 1..64 bytes", AM_INVALID},
    };
    const char *texts[] = {"我喜欢靠窗的座位", "I never fly on Mondays"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int rc = add_meta(db, "u", texts[i % 2], cases[i].what);
        CHECK_EQ_INT(rc, cases[i].rc);
        CHECK_CONTAINS(am_errmsg(db), cases[i].needle);
    }
    const struct {
        const char *json, *needle;
    } limits[] = {
        {big_value, "metadata.project: value too long (600 bytes, at most 512)"},
        {many, "metadata: 33 keys, over the limit of 32"},
        {long_key, "a key is 1..64 bytes"},
        {whole, "over the limit of 4096"},
    };
    for (size_t i = 0; i < sizeof limits / sizeof *limits; i++) {
        int rc = add_meta(db, "u", texts[i % 2], limits[i].json);
        CHECK(rc == AM_TOOBIG || rc == AM_INVALID);
        CHECK_CONTAINS(am_errmsg(db), limits[i].needle);
    }
    /* nothing of them was written */
    CHECK_EQ_INT(count_events(db, "u"), ev0);
    CHECK_EQ_INT(count_memories(db, "u"), mem0);
    /* a batch with one bad line writes none of it */
    am_event evs[2];
    memset(evs, 0, sizeof evs);
    evs[0].user_id = evs[1].user_id = "u";
    evs[0].text = "I like aisle seats";
    evs[1].text = "我喜欢过道的座位";
    evs[1].metadata_json = "{\"x\":[1]}";
    CHECK_EQ_INT(am_add_events(db, evs, 2, NULL), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "events[1]");
    CHECK_CONTAINS(am_errmsg(db), "metadata.x");
    CHECK_EQ_INT(count_events(db, "u"), ev0);
    /* the limits themselves are accepted */
    char ok[700];
    snprintf(ok, sizeof ok, "{\"project\":\"%0512d\",\"n\":2.5,\"b\":true}", 0);
    CHECK_EQ_INT(add_meta(db, "u", "I like quiet hotels", ok), AM_OK);
    /* am_memory_add refuses the same way, naming the field */
    am_memory_input in = {0};
    in.user_id = "u";
    in.text = "我的项目代号是阿波罗";
    in.metadata_json = "{\"p\":{}}";
    CHECK_EQ_INT(am_memory_add(db, &in, NULL), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "memory add: metadata.p");
    am_close(db);
}

static const am_memory *find_text(const am_memory_list *l, const char *needle)
{
    for (size_t i = 0; l && i < l->n; i++)
        if (strstr(l->items[i].text, needle)) return &l->items[i];
    return NULL;
}

static void test_inherit_and_versions(void)
{
    am_db *db = open_mem();
    set_now("2026-05-01T09:00:00Z");
    CHECK_EQ_INT(add_meta(db, "u", "I prefer green tea in the morning", "{\"project\":\"apollo\",\"n\":3}"), AM_OK);
    CHECK_EQ_INT(add_meta(db, "u", "我不吃香菜", "{\"project\":\"宙斯\"}"), AM_OK);
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories(db, "u", AM_LIST_ACTIVE, NULL, &l), AM_OK);
    const am_memory *tea = find_text(l, "green tea"), *cilantro = find_text(l, "香菜");
    CHECK(tea && cilantro);
    if (!tea || !cilantro) { am_memory_list_free(l); am_close(db); return; }
    CHECK_EQ_STR(tea->metadata_json, "{\"n\":3,\"project\":\"apollo\"}");
    CHECK_EQ_STR(cilantro->metadata_json, "{\"project\":\"宙斯\"}");
    CHECK_CONTAINS(l->json, "\"metadata\":{\"project\":\"宙斯\"}");
    char id[32];
    snprintf(id, sizeof id, "%s", tea->id);
    am_memory_list_free(l);
    /* a correction keeps the metadata; metadata alone is a new version */
    am_memory_item *m = NULL;
    set_now("2026-05-02T09:00:00Z");
    CHECK_EQ_INT(am_memory_update(db, "u", id, "I prefer jasmine tea in the morning", &m), AM_OK);
    CHECK(m && m->current && m->current->metadata_json &&
          strcmp(m->current->metadata_json, "{\"n\":3,\"project\":\"apollo\"}") == 0);
    am_memory_item_free(m);
    CHECK_EQ_INT(am_memory_set(db, "u", id, NULL, "{\"project\":\"zeus\"}", NULL, NULL, &m), AM_OK);
    CHECK(m && m->current);
    if (m && m->current) {
        CHECK_EQ_STR(m->current->text, "I prefer jasmine tea in the morning");
        CHECK_EQ_STR(m->current->metadata_json, "{\"project\":\"zeus\"}");
        CHECK_EQ_INT(m->n_versions >= 3, 1);
    }
    am_memory_item_free(m);
    CHECK_EQ_INT(am_memory_set(db, "u", id, "我早上喝茉莉花茶", "{}", NULL, NULL, &m), AM_OK);
    CHECK(m && m->current && m->current->metadata_json == NULL);
    CHECK_CONTAINS(m ? m->json : NULL, "\"metadata\":{}");
    am_memory_item_free(m);
    CHECK_EQ_INT(am_memory_set(db, "u", id, NULL, "{\"a\":[]}", NULL, NULL, NULL), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "memory update: metadata.a");
    /* am_memory_add with metadata; the recall's JSON shows it */
    am_memory_input in = {0};
    in.user_id = "u";
    in.text = "My badge number is 4417";
    in.key = "badge.number";
    in.metadata_json = "{\"source\":\"hr\"}";
    CHECK_EQ_INT(am_memory_add(db, &in, &m), AM_OK);
    CHECK(m && m->current && strcmp(m->current->metadata_json, "{\"source\":\"hr\"}") == 0);
    am_memory_item_free(m);
    /* a new value of the same key without metadata keeps the old one's */
    in.text = "My badge number is 5521";
    in.metadata_json = NULL;
    CHECK_EQ_INT(am_memory_add(db, &in, &m), AM_OK);
    CHECK(m && m->current && strstr(m->current->text, "5521") &&
          m->current->metadata_json && strcmp(m->current->metadata_json, "{\"source\":\"hr\"}") == 0);
    am_memory_item_free(m);
    am_close(db);
}

static size_t list_n(am_db *db, const am_filter *f, int *rc)
{
    am_list_opts o;
    memset(&o, 0, sizeof o);
    o.filter = f;
    am_memory_list *l = NULL;
    *rc = am_memories_list(db, "u", &o, &l);
    size_t n = *rc ? 0 : l->n;
    am_memory_list_free(l);
    return n;
}

static void test_filters(void)
{
    am_db *db = open_mem();
    set_now("2026-05-01T09:00:00Z");
    CHECK_EQ_INT(add_meta(db, "u", "I prefer aisle seats on planes", "{\"project\":\"apollo\",\"n\":3,\"vip\":true}"), AM_OK);
    set_now("2026-05-03T09:00:00Z");
    CHECK_EQ_INT(add_meta(db, "u", "我喜欢靠窗的座位", "{\"project\":\"zeus\"}"), AM_OK);
    set_now("2026-05-05T09:00:00Z");
    CHECK_EQ_INT(add_meta(db, "u", "I never eat peanuts", NULL), AM_OK);
    int rc;
    am_filter f;
    memset(&f, 0, sizeof f);
    CHECK_EQ_INT(list_n(db, &f, &rc), 3);
    f.metadata_json = "{\"project\":\"apollo\"}";
    CHECK_EQ_INT(list_n(db, &f, &rc), 1);
    f.metadata_json = "{\"project\":[\"apollo\",\"zeus\"]}";
    CHECK_EQ_INT(list_n(db, &f, &rc), 2);
    f.metadata_json = "{\"n\":\"3\",\"vip\":true}"; /* numbers and booleans as text */
    CHECK_EQ_INT(list_n(db, &f, &rc), 1);
    f.metadata_json = "{\"project\":\"hermes\"}";
    CHECK_EQ_INT(list_n(db, &f, &rc), 0);
    f.metadata_json = NULL;
    f.from = "2026-05-02T00:00:00Z";
    CHECK_EQ_INT(list_n(db, &f, &rc), 2);
    f.to = "2026-05-04T00:00:00+00:00";
    CHECK_EQ_INT(list_n(db, &f, &rc), 1);
    f.from = f.to = NULL;
    const char *kinds[] = {"constraint"};
    f.kinds = kinds;
    f.n_kinds = 1;
    size_t nk = list_n(db, &f, &rc);
    CHECK(nk >= 1 && nk < 3);
    const char *scopes[] = {"domain:nowhere"};
    f.kinds = NULL;
    f.n_kinds = 0;
    f.scopes = scopes;
    f.n_scopes = 1;
    CHECK_EQ_INT(list_n(db, &f, &rc), 0);
    /* bad filters, by name */
    memset(&f, 0, sizeof f);
    f.metadata_json = "{\"p\":{\"x\":1}}";
    list_n(db, &f, &rc);
    CHECK_EQ_INT(rc, AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "filters.metadata.p");
    f.metadata_json = NULL;
    f.from = "yesterday";
    list_n(db, &f, &rc);
    CHECK_EQ_INT(rc, AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "filters.from");
    /* recall: memories and events by metadata */
    memset(&f, 0, sizeof f);
    f.metadata_json = "{\"project\":\"zeus\"}";
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = "u";
    q.text = "我喜欢什么座位? which seats do I like?";
    q.no_touch = 1;
    am_recall_result *r = NULL;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
    size_t all_mem = r ? r->n_memories : 0;
    am_recall_free(r);
    q.filter = &f;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
    if (r) {
        CHECK(r->n_memories >= 1 && r->n_memories < all_mem);
        for (size_t i = 0; i < r->n_memories; i++)
            CHECK_EQ_STR(r->memories[i].metadata_json, "{\"project\":\"zeus\"}");
        for (size_t i = 0; i < r->n_events; i++)
            CHECK_EQ_STR(r->events[i].metadata_json, "{\"project\":\"zeus\"}");
        CHECK_CONTAINS(r->json, "\"metadata\":{\"project\":\"zeus\"}");
    }
    am_recall_free(r);
    f.metadata_json = "{\"project\":7}";
    f.from = "2026-13-01T00:00:00Z";
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "recall: filters.");
    am_close(db);
}

static am_db *open_file(const char *path)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = path;
    cfg.clock = test_clock;
    return open_checked(&cfg);
}

static void add_api(am_db *db, int i)
{
    char text[96], key[32], meta[64];
    snprintf(text, sizeof text, i % 2 ? "备忘 %d 号：周%d开会" : "Note %d: the meeting is on day %d", i, i % 7 + 1);
    snprintf(key, sizeof key, "note.n%d", i);
    snprintf(meta, sizeof meta, "{\"batch\":%d}", i / 100);
    am_memory_input in = {0};
    in.user_id = "p";
    in.text = text;
    in.key = key;
    in.kind = "fact";
    in.metadata_json = meta;
    int rc = am_memory_add(db, &in, NULL);
    if (rc) fprintf(stderr, "add %d: %s\n", i, am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
}

static void test_pages_with_inserts(void)
{
    char path[] = "/tmp/am_test_meta_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    close(fd);
    unlink(path);
    set_now("2026-05-01T09:00:00Z");
    am_db *db = open_file(path), *other = open_file(path);
    if (!db || !other) { am_close(db); am_close(other); return; }
    for (int i = 0; i < 250; i++) add_api(db, i);
    /* the ids there at the start */
    am_memory_list *all = NULL;
    CHECK_EQ_INT(am_memories(db, "p", AM_LIST_ACTIVE, NULL, &all), AM_OK);
    size_t n0 = all ? all->n : 0;
    CHECK_EQ_INT(n0, 250);
    char (*seen)[32] = calloc(1000, sizeof *seen);
    size_t n_seen = 0, pages = 0;
    const char *cursor = NULL;
    char cur[256] = "";
    int extra = 250;
    for (;;) {
        am_list_opts o;
        memset(&o, 0, sizeof o);
        o.limit = 40;
        o.cursor = cursor;
        am_memory_list *l = NULL;
        int rc = am_memories_list(db, "p", &o, &l);
        CHECK_EQ_INT(rc, AM_OK);
        if (rc) break;
        pages++;
        CHECK(l->n <= 40);
        for (size_t i = 0; i < l->n && n_seen < 1000; i++) {
            for (size_t k = 0; k < n_seen; k++)
                if (strcmp(seen[k], l->items[i].id) == 0) {
                    fprintf(stderr, "page %zu repeats %s\n", pages, l->items[i].id);
                    CHECK(0);
                }
            snprintf(seen[n_seen++], 32, "%s", l->items[i].id);
        }
        /* another handle writes between the pages (new memories) */
        for (int j = 0; j < 7; j++) add_api(other, extra++);
        int last = l->next_cursor == NULL;
        if (!last) snprintf(cur, sizeof cur, "%s", l->next_cursor);
        am_memory_list_free(l);
        if (last || pages > 100) break;
        cursor = cur;
    }
    for (size_t i = 0; i < n0; i++) {
        size_t k = 0;
        while (k < n_seen && strcmp(seen[k], all->items[i].id) != 0) k++;
        if (k == n_seen) fprintf(stderr, "missed %s\n", all->items[i].id);
        CHECK(k < n_seen);
    }
    CHECK(pages >= 7);
    am_memory_list_free(all);
    free(seen);
    /* a filter with pages; bad limits and cursors */
    am_filter f;
    memset(&f, 0, sizeof f);
    f.metadata_json = "{\"batch\":[1,2]}";
    am_list_opts o;
    memset(&o, 0, sizeof o);
    o.filter = &f;
    o.limit = 1000;
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories_list(db, "p", &o, &l), AM_OK);
    CHECK(l && l->n >= 150 && !l->next_cursor);
    am_memory_list_free(l);
    o.limit = 1001;
    CHECK_EQ_INT(am_memories_list(db, "p", &o, &l), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "limit 1001");
    o.limit = 5;
    o.cursor = "not a cursor!";
    CHECK_EQ_INT(am_memories_list(db, "p", &o, &l), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "cursor");
    am_close(db);
    am_close(other);
    char wal[300];
    unlink(path);
    snprintf(wal, sizeof wal, "%s-wal", path);
    unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", path);
    unlink(wal);
}

int main(void)
{
    (void)add; /* (api_util.h's; events here carry metadata: add_meta) */
    RUN(test_limits_refused_by_name);
    RUN(test_inherit_and_versions);
    RUN(test_filters);
    RUN(test_pages_with_inserts);
    TEST_MAIN_END();
}
