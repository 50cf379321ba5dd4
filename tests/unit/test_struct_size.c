/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_struct_size.c -- am_event.size and am_query.size: 0 (a caller that
 * does not set it) and sizeof are this library's layout; any other size is
 * AM_MISUSE naming the field, nothing written and nothing of the struct
 * read beyond its size (the bad structs below are allocated only as large
 * as the size field, so ASan catches a read past it).
 */
#include <stdlib.h>

#include "test.h"
#include "api_util.h"

static char *export_of(am_db *db, const char *user)
{
    char *json = NULL;
    CHECK_EQ_INT(am_export(db, user, &json), AM_OK);
    return json;
}

/* an am_event / am_query whose storage ends after its size field */
static void *size_only(size_t size)
{
    size_t *p = malloc(sizeof *p);
    CHECK(p != NULL);
    *p = size;
    return p;
}

static void test_event_size(void)
{
    am_db *db = open_mem();
    set_now("2026-03-05T16:00:00+08:00");
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = "u1";
    ev.text = "以后周报都按三段写";
    CHECK_EQ_INT(ev.size, 0);
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_OK); /* 0: this layout */
    ev.size = sizeof ev;
    ev.text = "From now on, send reports as PDF";
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_OK);
    char *before = export_of(db, "u1");
    CHECK_CONTAINS(before, "PDF");

    const size_t wrong[] = {sizeof ev + sizeof(void *), sizeof ev - sizeof(void *), 1};
    for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++) {
        am_event *bad = size_only(wrong[i]);
        CHECK_EQ_INT(am_add_event(db, bad, NULL), AM_MISUSE);
        CHECK_CONTAINS(am_errmsg(db), "add: am_event.size is ");
        CHECK_CONTAINS(am_errmsg(db), "expected 0 or ");
        free(bad);
    }
    /* a full event of a wrong size is not written either */
    ev.size = sizeof ev + 8;
    ev.text = "以后周报用要点";
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_MISUSE);
    CHECK_CONTAINS(am_errmsg(db), "am_event.size");

    /* a batch: sizes checked in order; the event after the first of a
     * wrong size is never read (it lies outside the buffer) */
    am_event *two = malloc(sizeof *two + sizeof(size_t));
    CHECK(two != NULL);
    memset(two, 0, sizeof *two);
    two[0].user_id = "u1";
    two[0].text = "Remember: my manager is Ana";
    size_t four = 4; /* two[1].size, all there is of two[1] */
    memcpy((char *)two + sizeof *two, &four, sizeof four);
    am_add_info infos[2];
    memset(infos, 0xff, sizeof infos);
    CHECK_EQ_INT(am_add_events(db, two, 2, infos), AM_MISUSE);
    CHECK_CONTAINS(am_errmsg(db), "add: events[1]: am_event.size is 4");
    CHECK_EQ_INT(infos[0].memories_created, 0);
    CHECK_EQ_INT(infos[0].event_id[0], 0);
    free(two);
    am_event *first = size_only(3); /* the first of a wrong size: nothing past it */
    CHECK_EQ_INT(am_add_events(db, first, 5, NULL), AM_MISUSE);
    CHECK_CONTAINS(am_errmsg(db), "add: events[0]: am_event.size is 3");
    free(first);

    char *after = export_of(db, "u1");
    CHECK_EQ_STR(after, before);
    am_free(after);

    /* 0 and sizeof in one batch both work */
    am_event ok[2];
    memset(ok, 0, sizeof ok);
    ok[0].user_id = ok[1].user_id = "u1";
    ok[0].text = "我的经理是安娜";
    ok[1].size = sizeof ok[1];
    ok[1].text = "Remember: my manager is Ana";
    CHECK_EQ_INT(am_add_events(db, ok, 2, infos), AM_OK);
    CHECK(infos[0].event_id[0] && infos[1].event_id[0]);
    after = export_of(db, "u1");
    CHECK_CONTAINS(after, "我的经理是安娜");
    CHECK_CONTAINS(after, "my manager is Ana");
    am_free(after);
    am_free(before);
    am_close(db);
}

static void test_query_size(void)
{
    am_db *db = open_mem();
    add(db, "u1", "s1", NULL, "2026-03-05T16:00:00+08:00", "以后周报都按三段写");
    add(db, "u1", "s1", NULL, "2026-03-05T16:01:00+08:00", "From now on, send reports as PDF");
    char *before = export_of(db, "u1");
    am_recall_result *r = NULL;

    const size_t wrong[] = {sizeof(am_query) + 8, sizeof(am_query) - 8, 2};
    for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++) {
        am_query *bad = size_only(wrong[i]);
        r = (am_recall_result *)1;
        CHECK_EQ_INT(am_recall(db, bad, &r), AM_MISUSE);
        CHECK(r == NULL);
        CHECK_CONTAINS(am_errmsg(db), "recall: am_query.size is ");
        CHECK_CONTAINS(am_errmsg(db), "expected 0 or ");
        free(bad);
    }
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = "u1";
    q.text = "帮我写这周的周报";
    q.size = sizeof q + 8;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_MISUSE);
    CHECK_CONTAINS(am_errmsg(db), "am_query.size");
    char *after = export_of(db, "u1"); /* no hit counted */
    CHECK_EQ_STR(after, before);
    am_free(after);

    q.size = 0;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
    CHECK_CONTAINS(r->block, "三段");
    am_recall_free(r);
    q.size = sizeof q;
    q.text = "write this week's report";
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
    CHECK_CONTAINS(r->block, "PDF");
    am_recall_free(r);
    am_free(before);
    am_close(db);
}

int main(void)
{
    RUN(test_event_size);
    RUN(test_query_size);
    TEST_MAIN_END();
}
