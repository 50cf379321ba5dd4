/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_events_list.c -- am_events_list, a page of a user's events newest
 * first, in Chinese and English:
 *  - pages of 7 over 40 events (five of them said at the same moment)
 *    give every event once, newest first, with events added between the
 *    pages neither repeated nor hiding one; the last page has no cursor;
 *  - only the events named (ids): those there, newest first, once each;
 *  - a search (a Chinese substring; English without case) pages too,
 *    and finds nothing of another user; a session and a time range
 *    narrow the walk;
 *  - an agent's event is hidden from another agent, as in every read;
 *  - a bad limit, cursor, time, query and session are refused by name;
 *  - am_filter.query on am_memories_list: memories whose text or key
 *    holds it, paged, in Chinese and English; a bad one refused by name.
 */
#include <jansson.h>

#include "test.h"
#include "api_util.h"

/* the events of a page: their contents, in order, into out[] */
static size_t page_texts(const am_event_page *p, char out[][64], size_t cap)
{
    json_error_t je;
    json_t *a = json_loads(p->json, 0, &je);
    CHECK(json_is_array(a));
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(a) && n < cap; i++) {
        const char *c = json_string_value(json_object_get(json_array_get(a, i), "content"));
        snprintf(out[n++], 64, "%s", c ? c : "");
    }
    json_decref(a);
    CHECK_EQ_INT((int)n, (int)p->n);
    return n;
}

/* every page of o from its start: the contents in order into out[] */
static size_t walk(am_db *db, const char *user, am_event_list_opts *o, char out[][64], size_t cap,
                   int *pages, void (*between)(am_db *))
{
    size_t n = 0;
    char cur[128] = "";
    *pages = 0;
    for (;;) {
        o->cursor = cur[0] ? cur : NULL;
        am_event_page *p = NULL;
        int rc = am_events_list(db, user, o, &p);
        if (rc) fprintf(stderr, "events_list: %s\n", am_errmsg(db));
        CHECK_EQ_INT(rc, AM_OK);
        if (rc) return n;
        (*pages)++;
        n += page_texts(p, out + n, cap - n);
        if (p->next_cursor) CHECK((size_t)p->n == (o->limit ? o->limit : AM_EVENTS_LIMIT_DEFAULT));
        snprintf(cur, sizeof cur, "%s", p->next_cursor ? p->next_cursor : "");
        am_event_page_free(p);
        if (!cur[0] || *pages > 100) return n;
        if (between) between(db);
    }
}

static int added_between;
static void add_newer(am_db *db)
{
    char text[64];
    snprintf(text, sizeof text, "later note %d", added_between++);
    add(db, "lin", "s-later", NULL, "2026-06-01T10:00:00Z", text);
}

static void seed(am_db *db)
{
    char at[64], text[64];
    for (int i = 0; i < 35; i++) {
        snprintf(at, sizeof at, "2026-03-%02dT%02d:00:00+08:00", 1 + i / 12, 8 + i % 12);
        if (i % 3 == 0) snprintf(text, sizeof text, "第%d条：我早上喝了咖啡", i);
        else snprintf(text, sizeof text, "note %d: Coffee with the team", i);
        add(db, "lin", i < 20 ? "s-a" : "s-b", NULL, at, text);
    }
    /* five said at the same moment: the walk still gives each once */
    for (int i = 0; i < 5; i++) {
        snprintf(text, sizeof text, "same moment %d", i);
        add(db, "lin", "s-b", NULL, "2026-03-10T12:00:00Z", text);
    }
    add(db, "bob", NULL, NULL, "2026-03-05T09:00:00Z", "Bob's coffee order: 咖啡 no sugar");
}

static void test_pages_newest_first(void)
{
    am_db *db = open_mem();
    seed(db);
    am_event_list_opts o;
    memset(&o, 0, sizeof o);
    o.limit = 7;
    static char got[64][64];
    int pages;
    size_t n = walk(db, "lin", &o, got, 64, &pages, add_newer);
    CHECK_EQ_INT((int)n, 40);
    CHECK_EQ_INT(pages, 6);
    /* newest first: the five of the same moment (in the order stored,
     * newest first), then 34 back to 0 */
    for (int i = 0; i < 5; i++) {
        char want[64];
        snprintf(want, sizeof want, "same moment %d", 4 - i);
        CHECK_EQ_STR(got[i], want);
    }
    CHECK_CONTAINS(got[5], "34");
    CHECK_CONTAINS(got[39], "第0条");
    for (size_t i = 0; i < n; i++) {
        CHECK(strstr(got[i], "later note") == NULL); /* added after the first page */
        CHECK(strstr(got[i], "Bob") == NULL);
        for (size_t k = 0; k < i; k++) CHECK(strcmp(got[i], got[k]) != 0);
    }
    CHECK(added_between >= 5);
    /* a fresh walk sees the later notes first; the default limit */
    memset(&o, 0, sizeof o);
    am_event_page *p = NULL;
    CHECK_EQ_INT(am_events_list(db, "lin", &o, &p), AM_OK);
    CHECK_EQ_INT((int)p->n, AM_EVENTS_LIMIT_DEFAULT < 40 + added_between ? AM_EVENTS_LIMIT_DEFAULT : 40 + added_between);
    CHECK_CONTAINS(p->json, "later note");
    CHECK_CONTAINS(p->json, "\"occurred_at\":\"2026-06-01T10:00:00Z\"");
    am_event_page_free(p);
    /* only the events named: the two there, newest first, once each */
    {
        am_event_page *all = NULL;
        am_event_list_opts a;
        memset(&a, 0, sizeof a);
        a.limit = 3;
        CHECK_EQ_INT(am_events_list(db, "lin", &a, &all), AM_OK);
        json_t *arr = json_loads(all->json, 0, NULL);
        const char *id0 = json_string_value(json_object_get(json_array_get(arr, 0), "id"));
        const char *id2 = json_string_value(json_object_get(json_array_get(arr, 2), "id"));
        const char *ids[] = {id2, "01J00000000000000000000000", id0, id2};
        a.limit = 0;
        a.ids = ids;
        a.n_ids = 4;
        am_event_page *named = NULL;
        CHECK_EQ_INT(am_events_list(db, "lin", &a, &named), AM_OK);
        CHECK_EQ_INT((int)named->n, 2);
        CHECK(named->next_cursor == NULL);
        CHECK(named->json && strstr(named->json, id0) && strstr(named->json, id2) &&
              strstr(named->json, id0) < strstr(named->json, id2));
        am_event_page_free(named);
        /* another user's ids are not there for this one */
        CHECK_EQ_INT(am_events_list(db, "bob", &a, &named), AM_OK);
        CHECK_EQ_INT((int)named->n, 0);
        am_event_page_free(named);
        json_decref(arr);
        am_event_page_free(all);
    }
    /* an unknown user has none */
    CHECK_EQ_INT(am_events_list(db, "nobody", &o, &p), AM_OK);
    CHECK_EQ_INT((int)p->n, 0);
    CHECK_EQ_STR(p->json, "[]");
    CHECK(p->next_cursor == NULL);
    am_event_page_free(p);
    am_event_page_free(NULL);
    am_close(db);
}

static void test_search_session_range(void)
{
    am_db *db = open_mem();
    seed(db);
    am_event_list_opts o;
    memset(&o, 0, sizeof o);
    static char got[64][64];
    int pages;
    /* Chinese: a substring, paged by 4 (12 of the 35: 0, 3, ..., 33) */
    o.query = "咖啡";
    o.limit = 4;
    size_t n = walk(db, "lin", &o, got, 64, &pages, NULL);
    CHECK_EQ_INT((int)n, 12);
    CHECK_EQ_INT(pages, 3);
    CHECK_CONTAINS(got[0], "第33条");
    for (size_t i = 0; i < n; i++) CHECK_CONTAINS(got[i], "咖啡");
    /* English without case: "COFFEE" finds "Coffee" (23 of them) */
    o.query = "COFFEE";
    o.limit = 10;
    n = walk(db, "lin", &o, got, 64, &pages, NULL);
    CHECK_EQ_INT((int)n, 23);
    for (size_t i = 0; i < n; i++) CHECK_CONTAINS(got[i], "Coffee");
    /* nothing found: one empty page */
    o.query = "tea ceremony";
    n = walk(db, "lin", &o, got, 64, &pages, NULL);
    CHECK_EQ_INT((int)n, 0);
    CHECK_EQ_INT(pages, 1);
    /* a session: s-a holds 0..19 */
    o.query = NULL;
    o.session_id = "s-a";
    o.limit = 0;
    n = walk(db, "lin", &o, got, 64, &pages, NULL);
    CHECK_EQ_INT((int)n, 20);
    CHECK_CONTAINS(got[0], "19");
    /* [from, to): the 2nd of March (+08:00) holds 12..23 */
    o.session_id = NULL;
    o.from = "2026-03-02T00:00:00+08:00";
    o.to = "2026-03-03T00:00:00+08:00";
    o.limit = 5;
    n = walk(db, "lin", &o, got, 64, &pages, NULL);
    CHECK_EQ_INT((int)n, 12);
    CHECK_CONTAINS(got[0], "23");
    CHECK_CONTAINS(got[11], "12");
    o.query = "咖啡"; /* 12, 15, 18, 21 */
    n = walk(db, "lin", &o, got, 64, &pages, NULL);
    CHECK_EQ_INT((int)n, 4);
    am_close(db);
}

static void test_agents(void)
{
    am_db *db = open_mem();
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = "lin";
    ev.agent_id = "planner";
    ev.source = "agent";
    ev.text = "Draft of the board memo for Friday";
    set_now("2026-04-01T09:00:00Z");
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_OK);
    add(db, "lin", NULL, NULL, "2026-04-01T10:00:00Z", "我明天去北京出差");
    am_event_list_opts o;
    memset(&o, 0, sizeof o);
    am_event_page *p = NULL;
    CHECK_EQ_INT(am_events_list(db, "lin", &o, &p), AM_OK);
    CHECK_EQ_INT((int)p->n, 2);
    am_event_page_free(p);
    o.agent_id = "writer";
    CHECK_EQ_INT(am_events_list(db, "lin", &o, &p), AM_OK);
    CHECK_EQ_INT((int)p->n, 1);
    CHECK(strstr(p->json, "board memo") == NULL);
    CHECK_CONTAINS(p->json, "北京");
    am_event_page_free(p);
    o.agent_id = "planner";
    CHECK_EQ_INT(am_events_list(db, "lin", &o, &p), AM_OK);
    CHECK_EQ_INT((int)p->n, 2);
    am_event_page_free(p);
    am_close(db);
}

static void test_refused_by_name(void)
{
    am_db *db = open_mem();
    add(db, "lin", NULL, NULL, "2026-04-01T10:00:00Z", "I moved to Lisbon");
    am_event_list_opts o;
    am_event_page *p = (am_event_page *)1;
    static const struct {
        size_t limit;
        const char *cursor, *from, *query, *session, *needle;
    } cases[] = {
        {AM_LIST_LIMIT_MAX + 1, NULL, NULL, NULL, NULL, "limit"},
        {0, "01J0000000000000000000000", NULL, NULL, NULL, "cursor"},
        {0, "e12.x", NULL, NULL, NULL, "cursor"},
        {0, "e.5", NULL, NULL, NULL, "cursor"},
        {0, NULL, "yesterday", NULL, NULL, "from"},
        {0, NULL, "2026-04-01T10:00:00", NULL, NULL, "from"},
        {0, NULL, NULL, "\xff\xfe", NULL, "query"},
        {0, NULL, NULL, NULL, "bad\nsession", "session"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        memset(&o, 0, sizeof o);
        o.limit = cases[i].limit;
        o.cursor = cases[i].cursor;
        o.from = cases[i].from;
        o.query = cases[i].query;
        o.session_id = cases[i].session;
        CHECK_EQ_INT(am_events_list(db, "lin", &o, &p), AM_INVALID);
        CHECK(p == NULL);
        CHECK_CONTAINS(am_errmsg(db), cases[i].needle);
    }
    CHECK_EQ_INT(am_events_list(NULL, "lin", &o, &p), AM_MISUSE);
    CHECK_EQ_INT(am_events_list(db, "lin", NULL, &p), AM_MISUSE);
    memset(&o, 0, sizeof o);
    CHECK_EQ_INT(am_events_list(db, "bad user\n", &o, &p), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "user");
    am_close(db);
}

static void mem(am_db *db, const char *text, const char *key)
{
    am_memory_input in;
    memset(&in, 0, sizeof in);
    in.user_id = "lin";
    in.text = text;
    in.key = key;
    in.kind = "fact";
    int rc = am_memory_add(db, &in, NULL);
    if (rc) fprintf(stderr, "memory add: %s\n", am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
}

static void test_memory_query(void)
{
    am_db *db = open_mem();
    set_now("2026-04-01T10:00:00Z");
    mem(db, "我每天早上喝咖啡", "drink.morning");
    mem(db, "Takes her Coffee black", "coffee.style");
    mem(db, "Lives in Lisbon", "home.city");
    mem(db, "在杭州工作", "work.city");
    mem(db, "Plays tennis on Sundays", "sport.weekly");
    am_filter f;
    memset(&f, 0, sizeof f);
    am_list_opts o;
    memset(&o, 0, sizeof o);
    o.filter = &f;
    static const struct {
        const char *query;
        int n;
        const char *one;
    } cases[] = {
        {"咖啡", 1, "我每天早上喝咖啡"}, {"COFFEE", 1, "black"},
        {"city", 2, "Lisbon"},           {"杭州", 1, "在杭州工作"},
        {"golf", 0, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        f.query = cases[i].query;
        am_memory_list *l = NULL;
        CHECK_EQ_INT(am_memories_list(db, "lin", &o, &l), AM_OK);
        if (!l) continue;
        CHECK_EQ_INT((int)l->n, cases[i].n);
        if (cases[i].one) CHECK_CONTAINS(l->json, cases[i].one);
        am_memory_list_free(l);
    }
    /* paged, one a page: "E" is in the three English texts, in no Chinese
     * one nor its key (drink.morning, work.city) */
    f.query = "E";
    o.limit = 1;
    size_t seen = 0;
    char cur[256] = "";
    for (int guard = 0; guard < 20; guard++) {
        o.cursor = cur[0] ? cur : NULL;
        am_memory_list *l = NULL;
        CHECK_EQ_INT(am_memories_list(db, "lin", &o, &l), AM_OK);
        if (!l) break;
        seen += l->n;
        snprintf(cur, sizeof cur, "%s", l->next_cursor ? l->next_cursor : "");
        am_memory_list_free(l);
        if (!cur[0]) break;
    }
    CHECK_EQ_INT((int)seen, 3);
    f.query = "\xc3";
    o.cursor = NULL;
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories_list(db, "lin", &o, &l), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "filters.query");
    am_close(db);
}

int main(void)
{
    RUN(test_memory_query);
    RUN(test_pages_newest_first);
    RUN(test_search_session_range);
    RUN(test_agents);
    RUN(test_refused_by_name);
    TEST_MAIN_END();
}
