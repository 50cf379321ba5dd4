/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_identity.c -- who an event belongs to, through the public API:
 * caller-chosen event ids that make a re-run idempotent (am_event.event_id,
 * per user, in am_add_event and am_add_events), and channel identities that
 * are (channel, external_id) pairs (am_link, am_unlink, late links).
 */
#include <stdlib.h>

#include "test.h"
#include "api_util.h"

static am_event ev_of(const char *user, const char *id, const char *at, const char *text)
{
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = user;
    ev.event_id = id;
    ev.occurred_at = at;
    ev.text = text;
    return ev;
}

static long n_events(am_db *db, const char *user)
{
    char *json = NULL;
    if (am_export(db, user, &json) != AM_OK) return -1;
    long n = 0;
    for (const char *p = json; (p = strstr(p, "\"occurred_at\"")); p++) n++;
    am_free(json);
    return n;
}

static void test_event_ids_idempotent(void)
{
    am_db *db = open_mem();
    set_now("2026-03-06T09:00:00+08:00");
    am_event evs[3] = {
        ev_of("u1", "imp-1", "2026-03-05T16:00:00+08:00", "以后周报都按三段写"),
        ev_of("u1", "imp-2", "2026-03-05T16:01:00+08:00", "From now on, send reports as PDF"),
        ev_of("u1", NULL, "2026-03-05T16:02:00+08:00", "no id here"),
    };
    am_add_info infos[3];
    CHECK_EQ_INT(am_add_events(db, evs, 3, infos), AM_OK);
    CHECK(!infos[0].existing && !infos[1].existing);
    char first[32];
    snprintf(first, sizeof first, "%s", infos[0].event_id);
    /* the re-run: the two with ids are found, the one without is new */
    CHECK_EQ_INT(am_add_events(db, evs, 3, infos), AM_OK);
    CHECK(infos[0].existing && infos[1].existing && !infos[2].existing);
    CHECK_EQ_STR(infos[0].event_id, first);
    CHECK_EQ_INT(n_events(db, "u1"), 4);
    /* the same id with another text, time or session: refused, nothing written */
    am_event other = ev_of("u1", "imp-1", "2026-03-05T16:00:00+08:00", "以后周报用要点");
    CHECK_EQ_INT(am_add_event(db, &other, NULL), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "imp-1");
    other = ev_of("u1", "imp-2", "2026-03-05T16:09:00+08:00", "From now on, send reports as PDF");
    CHECK_EQ_INT(am_add_event(db, &other, NULL), AM_INVALID);
    other = ev_of("u1", "imp-2", "2026-03-05T16:01:00+08:00", "From now on, send reports as PDF");
    other.session_id = "s2";
    CHECK_EQ_INT(am_add_event(db, &other, NULL), AM_INVALID);
    /* in a batch, the clash rolls the whole batch back */
    am_event two[2] = {ev_of("u1", "imp-3", "2026-03-05T16:03:00+08:00", "new one"),
                       ev_of("u1", "imp-1", "2026-03-05T16:00:00+08:00", "changed")};
    CHECK_EQ_INT(am_add_events(db, two, 2, infos), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "events[1]");
    CHECK_EQ_INT(n_events(db, "u1"), 4);
    /* ids are per user */
    am_event u2 = ev_of("u2", "imp-1", "2026-03-05T16:00:00+08:00", "以后周报都按三段写");
    am_add_info info;
    CHECK_EQ_INT(am_add_event(db, &u2, &info), AM_OK);
    CHECK(!info.existing);
    /* an id is an id: no bidi controls */
    am_event bad = ev_of("u1", "imp\xe2\x80\xae" "1", NULL, "hi");
    CHECK_EQ_INT(am_add_event(db, &bad, NULL), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "U+202E");
    am_close(db);
}

static am_add_info add_ch(am_db *db, const char *ch, const char *ext, const char *text)
{
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.channel = ch;
    ev.external_id = ext;
    ev.text = text;
    am_add_info info;
    memset(&info, 0, sizeof info);
    int rc = am_add_event(db, &ev, &info);
    if (rc) fprintf(stderr, "add failed: %s\n", am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
    return info;
}

static int recalls(am_db *db, const char *user, const char *query, const char *needle)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = user;
    q.text = query;
    am_recall_result *r;
    if (am_recall(db, &q, &r) != AM_OK) return -1;
    int found = strstr(r->json, needle) != NULL;
    am_recall_free(r);
    return found;
}

/* A pair is a pair: no joined string makes two identities one, and an
 * unlinked pair never lands on a user someone named. */
static void test_pairs_never_join(void)
{
    am_db *db = open_mem();
    set_now("2026-03-06T09:00:00+08:00");
    add(db, "wechat:wx-9", "s1", NULL, "2026-03-05T09:00:00+08:00", "以后周报都按三段写");
    am_add_info a = add_ch(db, "wechat", "wx-9", "From now on, send reports as PDF");
    CHECK(strcmp(a.user_id, "wechat:wx-9") != 0);
    CHECK(a.user_id[0] == '~' && strlen(a.user_id) == 27);
    am_add_info x = add_ch(db, "tg:x", "7", "我喜欢靠窗的座位");
    am_add_info y = add_ch(db, "tg", "x:7", "I prefer aisle seats");
    CHECK(strcmp(x.user_id, y.user_id) != 0);
    am_add_info y2 = add_ch(db, "tg", "x:7", "I prefer aisle seats again");
    CHECK_EQ_STR(y2.user_id, y.user_id);
    char uid[AM_ID_MAX + 1];
    CHECK_EQ_INT(am_resolve(db, "tg:x", "7", uid), AM_OK);
    CHECK_EQ_STR(uid, x.user_id);
    CHECK_EQ_INT(recalls(db, y.user_id, "座位", "靠窗"), 0);
    /* no caller creates a user with an engine id; naming an existing one is fine */
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = "~01M8S9N4VQFQAPVR9QSVBMZS4H";
    ev.text = "hi";
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_INVALID);
    CHECK_EQ_INT(am_link(db, "app", "1", "~01M8S9N4VQFQAPVR9QSVBMZS4H"), AM_INVALID);
    ev.user_id = y.user_id;
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_OK);
    am_close(db);
}

/* A late link: the pair's own history joins the master only with merge. */
static void test_late_link_merge(void)
{
    am_db *db = open_mem();
    set_now("2026-03-06T09:00:00+08:00");
    add(db, "alice", "s1", "weekly-report", "2026-03-05T09:00:00+08:00", "以后周报都按三段写");
    am_add_info own = add_ch(db, "tg", "7", "From now on, always send reports as PDF");
    am_event t;
    memset(&t, 0, sizeof t);
    t.channel = "tg";
    t.external_id = "7";
    t.task_id = "weekly-report";
    t.text = "周报草稿见 https://x.example/draft";
    CHECK_EQ_INT(am_add_event(db, &t, NULL), AM_OK);
    CHECK_EQ_INT(am_link(db, "tg", "7", "alice"), AM_DENIED);
    CHECK_CONTAINS(am_errmsg(db), "history");
    CHECK_EQ_INT(am_link_merge(db, "tg", "7", "bob", 0), AM_DENIED);
    char uid[AM_ID_MAX + 1];
    CHECK_EQ_INT(am_resolve(db, "tg", "7", uid), AM_OK);
    CHECK_EQ_STR(uid, own.user_id); /* unchanged by the refusals */
    CHECK_EQ_INT(recalls(db, "alice", "send the report", "PDF"), 0);
    CHECK_EQ_INT(am_link_merge(db, "tg", "7", "alice", 1), AM_OK);
    CHECK_EQ_INT(am_resolve(db, "tg", "7", uid), AM_OK);
    CHECK_EQ_STR(uid, "alice");
    CHECK_EQ_INT(recalls(db, "alice", "send the report as PDF", "PDF"), 1);
    CHECK_EQ_INT(n_events(db, "alice"), 3);
    CHECK_EQ_INT(n_events(db, own.user_id), -1); /* gone into alice */
    am_task *task;
    CHECK_EQ_INT(am_task_get(db, "alice", "weekly-report", &task), AM_OK);
    CHECK_CONTAINS(task->artifacts_json, "x.example/draft");
    am_task_free(task);
    char *json = NULL;
    CHECK_EQ_INT(am_export(db, "alice", &json), AM_OK);
    CHECK_CONTAINS(json, "link.merge");
    am_free(json);
    /* the merged events are found by the index under alice */
    am_add_info later = add_ch(db, "tg", "7", "还有，周报发给王经理");
    CHECK_EQ_STR(later.user_id, "alice");
    /* a pair with no history moves without merge; unlink, then its own user again */
    add_ch(db, "app", "a1", "hello");
    CHECK_EQ_INT(am_unlink(db, "app", "a1"), AM_OK);
    CHECK_EQ_INT(am_unlink(db, "app", "a1"), AM_NOTFOUND);
    CHECK_EQ_INT(am_resolve(db, "app", "a1", uid), AM_OK); /* its own user still */
    am_add_info again = add_ch(db, "app", "a1", "hello again");
    CHECK(again.user_id[0] == '~');
    CHECK_EQ_STR(again.user_id, uid);
    CHECK_EQ_INT(am_link(db, "app", "a1", "alice"), AM_DENIED);
    CHECK_EQ_INT(am_unlink(db, "tg", "7"), AM_OK);
    am_add_info after = add_ch(db, "tg", "7", "who am I now");
    CHECK(strcmp(after.user_id, "alice") != 0);
    am_close(db);
}

int main(void)
{
    RUN(test_event_ids_idempotent);
    RUN(test_pairs_never_join);
    RUN(test_late_link_merge);
    TEST_MAIN_END();
}
