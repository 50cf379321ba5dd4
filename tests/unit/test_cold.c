/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_cold.c -- archived events (lifecycle/cold.c, store cold_*,
 * am_archive_events / am_archive_restore; docs/internals/STORAGE.md "Archived
 * events"), in Chinese and English, on the SQLite file and, when
 * $AM_PG_URL names a fresh database (tests/sh/archive_pg.sh starts one),
 * on PostgreSQL:
 *  - the summary: the first sentence, at most 80 characters;
 *  - an old event archived: its row keeps the summary, its entities and
 *    the provenance of its item; the whole text is packed in the cold
 *    column (deflated); still found by a word of the text's end; recall as
 *    of that period, the events list and export give the whole text;
 *    restore (one event, a period) puts it back for good;
 *  - forget of an archived event at every level (event, session, task,
 *    user), immediate and with a grace period (its held copy restored,
 *    then purged), leaves none of its bytes: on SQLite the file and its
 *    log hold neither its words nor a piece of its packed text; on
 *    PostgreSQL no row of events or held_events holds its packed text.
 */
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "api_util.h"
#include "store_file.h"
#include "api/db_int.h"
#include "lifecycle/cold.h"

static const char *pg_url; /* $AM_PG_URL, or NULL */

static am_db *open_url(const char *url, am_time grace_ms)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = url;
    cfg.clock = test_clock;
    cfg.forget_grace_ms = grace_ms;
    return open_checked(&cfg);
}

/* ------------------------------------------------------------ the summary */

static void test_summary(void)
{
    char out[AM__COLD_SUMMARY_BYTES];
    int whole = -1;
    am__cold_summary("Book the room. Then call Ann.", out, sizeof out, &whole);
    CHECK_EQ_STR(out, "Book the room.\xE2\x80\xA6");
    CHECK_EQ_INT(whole, 0);
    am__cold_summary("预算是五千元。记得带电脑。", out, sizeof out, &whole);
    CHECK_EQ_STR(out, "预算是五千元。\xE2\x80\xA6");
    CHECK_EQ_INT(whole, 0);
    am__cold_summary("short one", out, sizeof out, &whole);
    CHECK_EQ_STR(out, "short one");
    CHECK_EQ_INT(whole, 1);
    am__cold_summary("v1.2 is out", out, sizeof out, &whole); /* a dot inside a word */
    CHECK_EQ_INT(whole, 1);
    /* no sentence end: 80 characters (Chinese: 80 of them, 240 bytes) */
    char zh[400] = "";
    for (int i = 0; i < 100; i++) strcat(zh, "长");
    am__cold_summary(zh, out, sizeof out, &whole);
    CHECK_EQ_INT((int)strlen(out), 80 * 3 + 3);
    CHECK_EQ_INT(whole, 0);
}

/* ------------------------------------------------------------ the texts */

#define EN_HEAD "Yesterday we walked along the old canal with the herons."
#define EN_TEXT                                                                               \
    EN_HEAD " The water was low and the light was golden over the canal, the light was "      \
            "golden over the mill, and a boatman named Quillfeather told us the lock gates "  \
            "of the canal date from 1821, the lock gates of the mill from 1844, and that "    \
            "the herons nest there every spring, every single spring."
#define ZH_HEAD "上周末我们在西湖边散步。"
#define ZH_TEXT                                                                               \
    ZH_HEAD "湖面很安静，远处的雷峰塔在夕阳下发光，一位姓鹮的船夫说那座石桥是清朝修的，"      \
            "那座石桥是清朝修的，那座木桥是民国修的，桥头的茶馆老板说他家的龙井是自己山上采的，"   \
            "每年清明前后采摘，我们买了两罐带回去送给同事，每年春天白鹭都在桥边筑巢，每年春天都是。"

/* the knob at 0: never; at its default: 90 days (one event of 91 days
 * ago moves, one of 89 stays) */
static void test_knob(void)
{
    am_rank_config rank;
    am_config cfg;
    am_config_init(&cfg);
    rank = cfg.rank;
    CHECK_EQ_INT(rank.archive_events_days, 90);
    static const char *const text = EN_TEXT;
    rank.archive_events_days = 0;
    am_db *db = open_mem_rank(&rank);
    add(db, "k1", "s1", NULL, "2026-01-01T00:00:00Z", text);
    set_now("2026-12-01T00:00:00Z");
    long moved = -1;
    CHECK_EQ_INT(am_archive_events(db, "k1", -1, &moved), AM_OK);
    CHECK_EQ_INT(moved, 0);
    CHECK_EQ_INT(am_archive_events(db, "k1", 30, &moved), AM_OK); /* asked for: done */
    CHECK_EQ_INT(moved, 1);
    am_close(db);
    db = open_mem();
    add(db, "k1", "s1", NULL, "2026-09-01T00:00:00Z", text);
    add(db, "k1", "s1", NULL, "2026-09-03T00:00:00Z", text);
    set_now("2026-12-01T00:00:00Z");
    CHECK_EQ_INT(am_archive_events(db, "k1", -1, &moved), AM_OK);
    CHECK_EQ_INT(moved, 1);
    am_close(db);
}

/* the hot row of event id: its content and cold column's length */
static void hot_row(am_db *db, const char *uid, const char *id, char *content, size_t cap)
{
    am__arena ar;
    am__arena_init(&ar, NULL);
    am__event_row e;
    content[0] = 0;
    if (db->store->vt->events.event_get(db->store, uid, AM__EVENT_BY_ID, id, &ar, &e) == AM_OK)
        snprintf(content, cap, "%s", e.content);
    am__arena_free(&ar);
}

static size_t entities_of(am_db *db, const char *uid, const char *id)
{
    am__arena ar;
    am__arena_init(&ar, NULL);
    am__event_row e;
    am__entity_row *en = NULL;
    size_t n = 0;
    if (db->store->vt->events.event_get(db->store, uid, AM__EVENT_BY_ID, id, &ar, &e) == AM_OK)
        CHECK_EQ_INT(am__store_entities_list(db->store, uid, e.rid, &ar, &en, &n), AM_OK);
    am__arena_free(&ar);
    return n;
}

/* 1 when one current item of uid lists event id among its sources */
static int item_sourced(am_db *db, const char *uid, const char *id)
{
    am_memory_list *l = NULL;
    int found = 0;
    CHECK_EQ_INT(am_memories(db, uid, AM_LIST_ALL, NULL, &l), AM_OK);
    for (size_t i = 0; l && i < l->n; i++)
        for (size_t k = 0; k < l->items[i].n_sources; k++)
            if (strcmp(l->items[i].source_event_ids[k], id) == 0) found = 1;
    am_memory_list_free(l);
    return found;
}

/* the content of the events of a recall (as_of may be NULL), joined */
static void recall_events(am_db *db, const char *uid, const char *text, const char *as_of,
                          char *out, size_t cap)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = uid;
    q.text = text;
    q.as_of = as_of;
    am_recall_result *r = NULL;
    out[0] = 0;
    CHECK_EQ_INT(am_recall(db, &q, &r), AM_OK);
    for (size_t i = 0; r && i < r->n_events; i++) {
        strncat(out, r->events[i].content, cap - strlen(out) - 2);
        strncat(out, "\n", cap - strlen(out) - 1);
    }
    am_recall_free(r);
}

static char *export_of(am_db *db, const char *uid)
{
    char *json = NULL;
    CHECK_EQ_INT(am_export(db, uid, &json), AM_OK);
    char *copy = strdup(json ? json : ""); /* (released with free) */
    am_free(json);
    return copy;
}

static void events_page(am_db *db, const char *uid, const char *query, char *out, size_t cap)
{
    am_event_list_opts o;
    memset(&o, 0, sizeof o);
    o.query = query;
    am_event_page *p = NULL;
    out[0] = 0;
    CHECK_EQ_INT(am_events_list(db, uid, &o, &p), AM_OK);
    if (p) snprintf(out, cap, "%s", p->json);
    am_event_page_free(p);
}

/* ------------------------------------------------------------ archive, read, restore */

static void archive_cycle(const char *url)
{
    am_db *db = open_url(url, 0);
    am_add_info en = add(db, "c1", "s1", NULL, "2026-01-05T10:00:00Z", EN_TEXT);
    am_add_info zh = add(db, "c1", "s1", NULL, "2026-01-05T10:05:00+08:00", ZH_TEXT);
    am_add_info pref = add(db, "c1", "s2", NULL, "2026-01-06T09:00:00Z",
                           "I prefer aisle seats on long flights. Please remember that for every "
                           "trip we book from now on, for the flights of the whole team too, and "
                           "for the trains: a seat by the aisle, close to the door, so that I can "
                           "get up without waking anyone. That is all for now.");
    am_add_info shorty = add(db, "c1", "s2", NULL, "2026-01-06T09:01:00Z", "ok, thanks");
    am_add_info fresh = add(db, "c1", "s3", NULL, "2026-05-20T09:00:00Z",
                            "The quarterly review moved to Thursday. Bring the Quillfeather deck.");
    add(db, "c2", "s1", NULL, "2026-01-05T10:00:00Z", EN_TEXT); /* another user's */
    set_now("2026-06-01T00:00:00Z");
    size_t ents_before = entities_of(db, "c1", zh.event_id);
    CHECK(item_sourced(db, "c1", pref.event_id));
    /* bad arguments: named */
    long moved = -1;
    CHECK_EQ_INT(am_archive_events(db, "c1", 0, &moved), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "older_than_days");
    CHECK_EQ_INT(am_archive_events(db, "nobody", -1, &moved), AM_NOTFOUND);
    CHECK_EQ_INT(am_archive_events(db, "bad\x01id", -1, &moved), AM_INVALID);
    CHECK_EQ_INT(am_archive_events(NULL, "c1", -1, &moved), AM_MISUSE);
    /* the knob's 90 days: the four of January, the short one left as it is */
    CHECK_EQ_INT(am_archive_events(db, "c1", -1, &moved), AM_OK);
    CHECK_EQ_INT(moved, 3);
    CHECK_EQ_INT(am_archive_events(db, "c1", -1, &moved), AM_OK); /* nothing left */
    CHECK_EQ_INT(moved, 0);
    char row[2048];
    hot_row(db, "c1", en.event_id, row, sizeof row);
    CHECK_EQ_STR(row, EN_HEAD "\xE2\x80\xA6");
    hot_row(db, "c1", zh.event_id, row, sizeof row);
    CHECK_EQ_STR(row, ZH_HEAD "\xE2\x80\xA6");
    hot_row(db, "c1", shorty.event_id, row, sizeof row);
    CHECK_EQ_STR(row, "ok, thanks");
    hot_row(db, "c1", fresh.event_id, row, sizeof row);
    CHECK_CONTAINS(row, "Bring the Quillfeather deck.");
    /* what stays: entities, provenance */
    CHECK_EQ_INT(entities_of(db, "c1", zh.event_id), ents_before);
    CHECK(item_sourced(db, "c1", pref.event_id));
    /* the other user's event is untouched */
    char *json = export_of(db, "c2");
    CHECK_CONTAINS(json, "every single spring.");
    free(json);
    /* reads of the old period: the whole text */
    char got[8192];
    recall_events(db, "c1", "who told us about the lock gates of the mill?",
                  "2026-01-07T00:00:00Z", got, sizeof got);
    CHECK_CONTAINS(got, "every single spring.");
    recall_events(db, "c1", "那座木桥是什么时候修的？", NULL, got, sizeof got);
    CHECK_CONTAINS(got, "每年春天都是。");
    events_page(db, "c1", NULL, got, sizeof got);
    CHECK_CONTAINS(got, "every single spring.");
    CHECK_CONTAINS(got, "每年春天都是。");
    events_page(db, "c1", "白鹭", got, sizeof got); /* searched in the whole text */
    CHECK_CONTAINS(got, "每年春天都是。");
    json = export_of(db, "c1");
    CHECK_CONTAINS(json, "every single spring.");
    CHECK_CONTAINS(json, "每年春天都是。");
    CHECK_CONTAINS(json, "without waking anyone. That is all for now.");
    free(json);
    /* restore: bad arguments, one event, a period */
    long n = -1;
    CHECK_EQ_INT(am_archive_restore(db, "c1", "no-such-event", AM_TIME_NONE, AM_TIME_NONE, &n),
                 AM_NOTFOUND);
    CHECK_EQ_INT(am_archive_restore(db, "c1", NULL, 20, 10, &n), AM_INVALID);
    CHECK_EQ_INT(am_archive_restore(db, NULL, en.event_id, 0, 0, &n), AM_MISUSE);
    CHECK_EQ_INT(am_archive_restore(db, "c2", en.event_id, AM_TIME_NONE, AM_TIME_NONE, &n),
                 AM_NOTFOUND); /* c1's event through c2 */
    CHECK_EQ_INT(am_archive_restore(db, "c1", en.event_id, AM_TIME_NONE, AM_TIME_NONE, &n), AM_OK);
    CHECK_EQ_INT(n, 1);
    hot_row(db, "c1", en.event_id, row, sizeof row);
    CHECK_EQ_STR(row, EN_TEXT);
    am_time from, to;
    am_time_parse("2026-01-05T00:00:00Z", &from, NULL);
    am_time_parse("2026-01-07T00:00:00Z", &to, NULL);
    CHECK_EQ_INT(am_archive_restore(db, "c1", NULL, from, to, &n), AM_OK);
    CHECK_EQ_INT(n, 2); /* zh and the preference; en was restored already */
    hot_row(db, "c1", zh.event_id, row, sizeof row);
    CHECK_EQ_STR(row, ZH_TEXT);
    /* restored for good: a later run leaves them */
    CHECK_EQ_INT(am_archive_events(db, NULL, -1, &moved), AM_OK);
    CHECK_EQ_INT(moved, 1); /* c2's only */
    hot_row(db, "c1", zh.event_id, row, sizeof row);
    CHECK_EQ_STR(row, ZH_TEXT);
    CHECK(item_sourced(db, "c1", pref.event_id));
    am_close(db);
}

static void test_archive_sqlite(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_cold_%d.db", (int)getpid());
    store_remove();
    archive_cycle(path);
    /* the packed text is deflated (codec 'z') where it shrinks */
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM events WHERE substr(cold, 1, 1) = x'7a'", NULL), 1);
    store_remove();
}

static void test_archive_pg(void)
{
    if (!pg_url) {
        printf("  (no $AM_PG_URL: SQLite only)\n");
        return;
    }
    archive_cycle(pg_url);
}

/* ------------------------------------------------------------ forget leaves no byte */

/* the packed text of event id (from the store's own rows), hex, 24 bytes
 * from its middle (deflated bytes: no word of the text shows in them) */
static void packed_piece(const char *url, int pg, const char *id, unsigned char *piece, size_t *n)
{
    *n = 0;
    if (!pg) {
        sqlite3 *db = NULL;
        sqlite3_stmt *st = NULL;
        if (sqlite3_open_v2(url, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
            sqlite3_prepare_v2(db, "SELECT cold FROM events WHERE id = ?1", -1, &st, NULL) ==
                SQLITE_OK) {
            sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
            if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) > 64) {
                memcpy(piece, (const char *)sqlite3_column_blob(st, 0) + 32, 24);
                *n = 24;
            }
        }
        sqlite3_finalize(st);
        sqlite3_close(db);
        return;
    }
    PGconn *c = PQconnectdb(url);
    const char *p[1] = {id};
    PGresult *r = PQexecParams(c, "SELECT substr(cold, 33, 24) FROM events WHERE id = $1", 1, NULL,
                               p, NULL, NULL, 1);
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && PQgetlength(r, 0, 0) == 24) {
        memcpy(piece, PQgetvalue(r, 0, 0), 24);
        *n = 24;
    }
    PQclear(r);
    PQfinish(c);
}

/* rows of events and held_events (PostgreSQL) whose cold column holds piece */
static long pg_rows_holding(const char *url, const unsigned char *piece, size_t n)
{
    PGconn *c = PQconnectdb(url);
    const char *p[1] = {(const char *)piece};
    int len[1] = {(int)n}, fmt[1] = {1};
    PGresult *r = PQexecParams(c,
                               "SELECT (SELECT count(*) FROM events WHERE position($1::bytea in cold) > 0)"
                               " + (SELECT count(*) FROM held_events WHERE position($1::bytea in cold) > 0)",
                               1, NULL, p, len, fmt, 0);
    long k = PQresultStatus(r) == PGRES_TUPLES_OK ? atol(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    PQfinish(c);
    return k;
}

/* 1 when the store holds piece[0..n) somewhere a forget must reach */
static int holds_piece(const char *url, int pg, const unsigned char *piece, size_t n)
{
    return pg ? pg_rows_holding(url, piece, n) != 0
              : store_holds_n((const char *)piece, n, "a piece of the packed text");
}

static void forget_level(const char *url, int pg, int level, int grace)
{
    static const char *const names[] = {"", "event", "session", "task", "user"};
    fprintf(stderr, "  %s %s%s\n", pg ? "postgres" : "sqlite", names[level],
            grace ? " (grace period, restored, purged)" : "");
    if (!pg) store_remove();
    am_time grace_ms = grace ? 3600 * 1000 : 0;
    am_db *db = open_url(url, grace_ms);
    char uid[32];
    snprintf(uid, sizeof uid, "f%d%d", level, grace);
    char text[1024]; /* its own text: another level's packed text is not this one's */
    snprintf(text, sizeof text, "%s says: %s", uid, EN_TEXT);
    am_add_info gone = add(db, uid, "s1", "t1", "2026-01-05T10:00:00Z", text);
    add(db, uid, "s2", "t2", "2026-01-05T11:00:00Z",
        "The spare key sits under the Persimmon planter. Nobody else knows it."); /* (short: stays) */
    set_now("2026-06-01T00:00:00Z");
    long moved = 0;
    CHECK_EQ_INT(am_archive_events(db, uid, -1, &moved), AM_OK);
    CHECK_EQ_INT(moved, 1);
    am_close(db);
    unsigned char piece[24];
    size_t np = 0;
    packed_piece(url, pg, gone.event_id, piece, &np);
    CHECK_EQ_INT((int)np, 24);
    CHECK(holds_piece(url, pg, piece, np));
    db = open_url(url, grace_ms);
    const char *id = level == AM_FORGET_EVENT     ? gone.event_id
                     : level == AM_FORGET_SESSION ? "s1"
                     : level == AM_FORGET_TASK    ? "t1"
                                                  : NULL;
    CHECK_EQ_INT(am_forget(db, uid, level, id, NULL), AM_OK);
    if (grace) {
        /* held whole: the restore of the forget brings the whole text back */
        CHECK(holds_piece(url, pg, piece, np));
        set_now("2026-06-01T00:10:00Z");
        if (level == AM_FORGET_USER) CHECK_EQ_INT(am_restore(db, uid), AM_OK);
        else CHECK_EQ_INT(am_restore_forget(db, uid, level, id), AM_OK);
        char *json = export_of(db, uid);
        CHECK_CONTAINS(json, "every single spring.");
        free(json);
        char got[4096];
        events_page(db, uid, "Quillfeather", got, sizeof got);
        CHECK_CONTAINS(got, "every single spring.");
        /* forgotten again; purged when its period ends */
        CHECK_EQ_INT(am_forget(db, uid, level, id, NULL), AM_OK);
        am_close(db);
        set_now("2026-06-01T02:00:00Z");
        db = open_url(url, grace_ms); /* due: purged on open */
        if (pg) CHECK_EQ_INT(am_optimize(db), AM_OK);
    }
    am_close(db);
    CHECK(!holds_piece(url, pg, piece, np));
    if (!pg) {
        CHECK(!store_holds("Quillfeather"));
        CHECK(!store_holds("Yesterday we walked along the old canal"));
        if (level != AM_FORGET_USER) CHECK(store_holds("Persimmon planter")); /* the other stays */
        store_remove();
    }
}

static void test_forget_sqlite(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_cold_forget_%d.db", (int)getpid());
    for (int grace = 0; grace <= 1; grace++)
        for (int level = AM_FORGET_EVENT; level <= AM_FORGET_USER; level++)
            forget_level(path, 0, level, grace);
}

static void test_forget_pg(void)
{
    if (!pg_url) {
        printf("  (no $AM_PG_URL: SQLite only)\n");
        return;
    }
    for (int grace = 0; grace <= 1; grace++)
        for (int level = AM_FORGET_EVENT; level <= AM_FORGET_USER; level++)
            forget_level(pg_url, 1, level, grace);
}

int main(void)
{
    pg_url = getenv("AM_PG_URL");
    if (pg_url && !*pg_url) pg_url = NULL;
    RUN(test_summary);
    RUN(test_knob);
    RUN(test_archive_sqlite);
    RUN(test_archive_pg);
    RUN(test_forget_sqlite);
    RUN(test_forget_pg);
    TEST_MAIN_END();
}
