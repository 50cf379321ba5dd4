/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_event_privacy.c -- nothing the user said leaves through memory
 * events, and a forget keeps no caller's id (docs/EVENTS.md,
 * docs/FORGETTING.md):
 *   - a long bilingual session (preferences, a profession, health, a
 *     restatement, task updates, feedback, forgets) publishes payloads
 *     and types in which no word of its input is found (every Chinese
 *     bigram, every English word of 4+ letters), over am_subscribe and
 *     am_events_since; the key ids events carry are the memories' key_id,
 *     the task ids the tasks' task_ref;
 *   - after a forget of a session and a task, no row and no byte of the
 *     store's files holds their ids (after the purge of a grace period
 *     too), and restore within the grace period still works;
 *   - a store of schema v23 (clear keys and ids in the outbox, the
 *     tombstones and the audit rows) is converted on open.
 * On the SQLite file, and on PostgreSQL when $AM_PG_URL names a fresh
 * database (tests/sh/event_privacy.sh).
 */
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "agentmem_ops.h"
#include "test.h"
#include "schema_undo.h"
#include "api_util.h"
#include "store_file.h"
#include "store/store.h"

static const char *pg_url; /* $AM_PG_URL, or NULL */

static am_db *open_store(const char *url, am_time grace_ms)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = url;
    cfg.clock = test_clock;
    cfg.forget_grace_ms = grace_ms;
    cfg.events_max_age_ms = 0; /* every event of the session kept */
    return open_checked(&cfg);
}

/* ------------------------------------------------------------ what was published */

typedef struct payloads {
    char **v;
    size_t n, cap;
} payloads;

static void keep(payloads *p, const char *s)
{
    if (!s) return;
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->v = realloc(p->v, p->cap * sizeof *p->v);
        CHECK(p->v != NULL);
        if (!p->v) exit(1);
    }
    p->v[p->n++] = strdup(s);
}

static void payloads_free(payloads *p)
{
    for (size_t i = 0; i < p->n; i++) free(p->v[i]);
    free(p->v);
    memset(p, 0, sizeof *p);
}

/* every string of an event a subscriber or reader gets */
static void keep_event(payloads *p, const am_memory_event *e)
{
    const char *s[] = {e->type, e->json, e->key, e->task_id, e->memory_id,
                       e->event_id, e->detail, e->other_user, e->user_id};
    for (size_t i = 0; i < sizeof s / sizeof *s; i++) keep(p, s[i]);
}

static void on_event(void *ctx, const am_memory_event *e)
{
    keep_event(ctx, e);
}

/* ------------------------------------------------------------ the words of the input */

/* The words of the payload's own vocabulary (docs/EVENTS.md): its field
 * names, types and the values of its detail fields.  An input word inside
 * one of these is not evidence of a leak. */
static const char schema_words[] =
    "seq type user memory_id key task_id event_id change level fields what asked_user at "
    "occurred_at memory.created memory.updated memory.invalidated memory.forgotten "
    "task.updated security.denied promoted superseded pending_confirm historical confirmed "
    "corrected rejected event session task user created status stage pending note artifact "
    "one_off round";

static int is_han(unsigned cp)
{
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF);
}

/* the code point at *p (UTF-8), *len its bytes */
static unsigned utf8_at(const char *p, int *len)
{
    const unsigned char *u = (const unsigned char *)p;
    if (u[0] < 0x80) { *len = 1; return u[0]; }
    if ((u[0] & 0xE0) == 0xC0) { *len = 2; return (u[0] & 31u) << 6 | (u[1] & 63u); }
    if ((u[0] & 0xF0) == 0xE0) {
        *len = 3;
        return (u[0] & 15u) << 12 | (u[1] & 63u) << 6 | (u[2] & 63u);
    }
    *len = 4;
    return (u[0] & 7u) << 18 | (u[1] & 63u) << 12 | (u[2] & 63u) << 6 | (u[3] & 63u);
}

typedef struct words {
    char w[2048][64];
    size_t n;
} words;

static void word_add(words *ws, const char *p, size_t n)
{
    if (n >= sizeof ws->w[0] || ws->n == sizeof ws->w / sizeof ws->w[0]) return;
    char w[64];
    memcpy(w, p, n);
    w[n] = 0;
    for (size_t i = 0; i < ws->n; i++)
        if (strcmp(ws->w[i], w) == 0) return;
    memcpy(ws->w[ws->n++], w, n + 1);
}

/* Every bigram of 2+ Han characters and every English word of 4+ letters
 * (lower case) of text, except the payload's own words and words of the
 * letters a-f alone (hex digits of the ids could spell them). */
static void words_of(words *ws, const char *text)
{
    const char *p = text;
    while (*p) {
        int len;
        unsigned cp = utf8_at(p, &len);
        if (is_han(cp)) {
            int len2;
            unsigned next = utf8_at(p + len, &len2);
            if (is_han(next)) word_add(ws, p, (size_t)(len + len2));
            p += len;
            continue;
        }
        if ((cp | 32) >= 'a' && (cp | 32) <= 'z') {
            const char *s = p;
            while (((*p | 32) >= 'a' && (*p | 32) <= 'z')) p++;
            size_t n = (size_t)(p - s);
            if (n < 4 || n >= 64) continue;
            char w[64];
            int hex_only = 1;
            for (size_t i = 0; i < n; i++) {
                w[i] = (char)(s[i] | 32);
                if (w[i] > 'f') hex_only = 0;
            }
            w[n] = 0;
            if (!hex_only && !strstr(schema_words, w)) word_add(ws, w, n);
            continue;
        }
        p += len;
    }
}

/* the number of payload strings holding a word (each reported once) */
static int leaks(const payloads *p, const words *ws, const char *via)
{
    int found = 0;
    for (size_t k = 0; k < ws->n; k++)
        for (size_t i = 0; i < p->n; i++) {
            /* as written and in lower case: ids are upper-case (ULIDs) or
             * lower-case hex, so neither hides an English word */
            if (strstr(p->v[i], ws->w[k])) {
                if (found++ < 8)
                    fprintf(stderr, "  %s: \"%s\" is in \"%.200s\"\n", via, ws->w[k], p->v[i]);
                break;
            }
        }
    return found;
}

/* ------------------------------------------------------------ the session */

typedef struct turn {
    const char *session, *task, *text;
} turn;

#define SESSION_PRIVATE "私人会诊-张医生"
#define TASK_PRIVATE "divorce-lawyer"

static const turn session[] = {
    {"s-zh-1", NULL, "以后采购合同都用PDF格式发给我"},
    {"s-en-1", NULL, "From now on send the quarterly budget as a spreadsheet please"},
    {"s-zh-1", NULL, "我是心理医生，在市中心开诊所"},
    {"s-en-1", NULL, "I work as a pediatric cardiologist at Riverside hospital"},
    {"s-zh-1", NULL, "以后开会都安排在下午三点以后"},
    {"s-en-1", NULL, "Always book aisle seats for my flights, never the window"},
    {SESSION_PRIVATE, NULL, "我有抑郁症，每天早上吃舍曲林"},
    {SESSION_PRIVATE, NULL, "I was diagnosed with type two diabetes last spring"},
    {SESSION_PRIVATE, NULL, "我对青霉素过敏，千万不要忘记"},
    {SESSION_PRIVATE, NULL, "My therapist says the panic attacks are getting better"},
    {"s-zh-2", "年度体检", "帮我预约下周二的年度体检"},
    {"s-zh-2", "年度体检", "体检预约好了，已经完成"},
    {"s-en-2", "kitchen-renovation", "Let's plan the kitchen renovation, first get three quotes"},
    {"s-en-2", "kitchen-renovation", "The contractor quotes arrived, next step is choosing tiles"},
    {"s-en-2", "kitchen-renovation", "Kitchen renovation is finished, mark it done"},
    {"s-zh-3", NULL, "我现在改用钉钉了，不用微信"},
    {"s-en-3", NULL, "Actually I now prefer the quarterly budget as a slide deck"},
    {"s-zh-3", NULL, "我的血型是O型"},
    {"s-en-3", NULL, "My favourite cuisine is Ethiopian food"},
    {"s-zh-3", NULL, "以后报销单都抄送给财务部的王经理"},
    {"s-en-3", NULL, "From now on write every summary in British spelling"},
    {"s-zh-4", TASK_PRIVATE, "我想咨询离婚诉讼，孩子的抚养权怎么争取"},
    {"s-en-4", TASK_PRIVATE, "Next step for the custody case: collect the school records"},
    {"s-zh-4", TASK_PRIVATE, "律师说下周提交财产清单"},
    {"s-en-4", TASK_PRIVATE, "The mediation hearing moved to Thursday morning"},
    {"s-zh-5", NULL, "我换工作了，现在是急诊科护士"},
    {"s-en-5", NULL, "I no longer need the spreadsheet reminders"},
    {"s-zh-5", NULL, "以后不用再抄送王经理了"},
    {"s-en-5", NULL, "Please remember that my daughter Maisie is allergic to peanuts"},
    {"s-zh-5", NULL, "我最喜欢的运动是羽毛球"},
    {"s-en-6", NULL, "From now on I prefer vegetarian restaurants for team dinners"},
    {"s-zh-6", NULL, "以后出差都订靠近地铁站的酒店"},
    {"s-en-6", NULL, "My blood pressure medication is lisinopril, twice daily"},
    {"s-zh-6", NULL, "我的孩子在实验小学读三年级"},
    {"s-en-6", NULL, "I prefer morning workouts at the climbing gym"},
    {"s-zh-7", "搬家计划", "开始准备搬家，先联系搬家公司"},
    {"s-zh-7", "搬家计划", "搬家公司订好了，下一步打包书房"},
    {"s-en-7", NULL, "From now on reply to me in Portuguese on weekends"},
    {"s-zh-7", NULL, "以后周报都用表格形式"},
    {"s-en-7", NULL, "Remember my anniversary is on the ninth of November"},
    {"s-zh-8", NULL, "我失眠很严重，医生开了佐匹克隆"},
    {"s-en-8", NULL, "Going forward schedule dentist appointments on Fridays only"},
    {"s-zh-8", NULL, "我现在改用飞书开会了，不用腾讯会议"},
    {"s-en-8", NULL, "Actually I now prefer aisle seats near the front of the plane"},
};
#define N_TURNS (sizeof session / sizeof *session)

static const char correction[] = "我更喜欢把采购合同做成扫描件存档";

static void words_of_input(words *ws)
{
    ws->n = 0;
    for (size_t i = 0; i < N_TURNS; i++) words_of(ws, session[i].text);
    words_of(ws, correction);
}

/* Runs the session for user on db; *sub collects what am_subscribe
 * delivers. */
static void run_session(am_db *db, const char *user, payloads *sub)
{
    int sid = 0;
    CHECK_EQ_INT(am_subscribe(db, on_event, sub, &sid), AM_OK);
    for (size_t i = 0; i < N_TURNS; i++) {
        char at[40];
        snprintf(at, sizeof at, "2026-04-%02zuT%02zu:%02zu:00+08:00", 1 + i / 12, 9 + i % 12,
                 i % 60);
        add(db, user, session[i].session, session[i].task, at, session[i].text);
    }
    /* feedback on three items: confirm, correct, reject */
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories(db, user, AM_LIST_ACTIVE, NULL, &l), AM_OK);
    CHECK(l && l->n >= 6);
    if (l && l->n >= 3) {
        char ids[3][32];
        for (int i = 0; i < 3; i++) snprintf(ids[i], sizeof ids[i], "%s", l->items[i].lineage_id);
        set_now("2026-04-10T10:00:00Z");
        CHECK_EQ_INT(am_feedback(db, user, ids[0], AM_FEEDBACK_CONFIRM, NULL), AM_OK);
        CHECK_EQ_INT(am_feedback(db, user, ids[1], AM_FEEDBACK_CORRECT, correction), AM_OK);
        CHECK_EQ_INT(am_feedback(db, user, ids[2], AM_FEEDBACK_REJECT, NULL), AM_OK);
    }
    am_memory_list_free(l);
    /* forgets: the private session, the private task, one event */
    set_now("2026-04-11T10:00:00Z");
    CHECK_EQ_INT(am_forget(db, user, AM_FORGET_SESSION, SESSION_PRIVATE, NULL), AM_OK);
    CHECK_EQ_INT(am_forget(db, user, AM_FORGET_TASK, TASK_PRIVATE, NULL), AM_OK);
    char id[32];
    CHECK_EQ_INT(am_event_find(db, user, "羽毛球", id), AM_OK);
    CHECK_EQ_INT(am_forget(db, user, AM_FORGET_EVENT, id, NULL), AM_OK);
    CHECK_EQ_INT(am_unsubscribe(db, sid), AM_OK);
}

static void check_session_payloads(const char *url)
{
    am_db *db = open_store(url, 0);
    payloads sub = {0}, read = {0};
    run_session(db, "p1", &sub);
    am_memory_events *e = NULL;
    CHECK_EQ_INT(am_events_since(db, NULL, 0, 100000, &e), AM_OK);
    for (size_t i = 0; e && i < e->n; i++) keep_event(&read, &e->items[i]);
    if (e) keep(&read, e->json);
    /* the session published every kind of event */
    size_t types[6] = {0};
    static const char *const prefixes[] = {"memory.created", "memory.updated.", "memory.invalidated",
                                           "memory.forgotten", "task.updated", "memory.updated"};
    for (size_t i = 0; i < sub.n; i++)
        for (int k = 0; k < 5; k++)
            if (strncmp(sub.v[i], prefixes[k], strlen(prefixes[k])) == 0 &&
                strncmp(sub.v[i], "{", 1) != 0)
                types[k]++;
    for (int k = 0; k < 5; k++) {
        if (!types[k]) fprintf(stderr, "  no %s event\n", prefixes[k]);
        CHECK(types[k] > 0);
    }
    CHECK(sub.n > 200);
    words ws;
    words_of_input(&ws);
    CHECK(ws.n > 150);
    CHECK_EQ_INT(leaks(&sub, &ws, "am_subscribe"), 0);
    CHECK_EQ_INT(leaks(&read, &ws, "am_events_since"), 0);
    /* the caller's ids neither */
    static const char *const ids[] = {SESSION_PRIVATE, TASK_PRIVATE, "年度体检", "kitchen-renovation",
                                      "搬家计划", "s-zh-1"};
    for (size_t k = 0; k < sizeof ids / sizeof *ids; k++)
        for (size_t i = 0; i < sub.n; i++)
            if (strstr(sub.v[i], ids[k])) {
                fprintf(stderr, "  id \"%s\" is in \"%.200s\"\n", ids[k], sub.v[i]);
                CHECK(0);
                break;
            }
    /* what they carry maps to the API: every key is a memory's key_id,
     * every task id a task's task_ref */
    am_memory_list *all = NULL;
    CHECK_EQ_INT(am_memories(db, "p1", AM_LIST_ALL, NULL, &all), AM_OK);
    am_task *t = NULL;
    CHECK_EQ_INT(am_task_get(db, "p1", "kitchen-renovation", &t), AM_OK);
    size_t keyed = 0, tasked = 0;
    for (size_t i = 0; e && i < e->n; i++) {
        const am_memory_event *ev = &e->items[i];
        if (ev->key) {
            int found = 0;
            for (size_t m = 0; all && m < all->n && !found; m++)
                found = strcmp(all->items[m].key_id, ev->key) == 0;
            if (!found) fprintf(stderr, "  key %s of %s is no memory's\n", ev->key, ev->type);
            CHECK(found);
            keyed++;
            if (strncmp(ev->type, "memory.updated.", 15) == 0)
                CHECK_EQ_STR(ev->type + 15, ev->key);
        }
        if (ev->task_id && t && strcmp(ev->task_id, t->task_ref) == 0) tasked++;
        if (ev->task_id) CHECK(ev->task_id[0] == 't' && strlen(ev->task_id) == 17);
    }
    if (keyed <= 20 || tasked < 2)
    {
        fprintf(stderr, "  %zu events, %zu with a key, %zu of the task; subscriber: %zu strings\n",
                e ? e->n : 0, keyed, tasked, sub.n);
    }
    CHECK(keyed > 20);
    CHECK(tasked >= 2);
    am_task_free(t);
    am_memory_list_free(all);
    am_memory_events_free(e);
    payloads_free(&sub);
    payloads_free(&read);
    am_close(db);
}

static void test_session_payloads_sqlite(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_event_privacy_%d.db", (int)getpid());
    store_remove();
    check_session_payloads(path);
    store_remove();
}

static void test_session_payloads_pg(void)
{
    if (!pg_url) {
        printf("  (no $AM_PG_URL: SQLite only)\n");
        return;
    }
    check_session_payloads(pg_url);
}

/* ------------------------------------------------------------ tombstones */

/* rows of any table of the PostgreSQL store whose text holds needle */
static long pg_rows_holding(const char *needle)
{
    PGconn *c = PQconnectdb(pg_url);
    long total = 0;
    PGresult *t = PQexec(c, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()");
    for (int i = 0; PQresultStatus(t) == PGRES_TUPLES_OK && i < PQntuples(t); i++) {
        char sql[300];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\" x WHERE strpos(x::text, $1) > 0",
                 PQgetvalue(t, i, 0));
        const char *v[] = {needle};
        PGresult *r = PQexecParams(c, sql, 1, NULL, v, NULL, NULL, 0);
        long k = PQresultStatus(r) == PGRES_TUPLES_OK ? atol(PQgetvalue(r, 0, 0)) : 1000000;
        if (k) fprintf(stderr, "  \"%s\" is in %ld rows of %s\n", needle, k, PQgetvalue(t, i, 0));
        total += k;
        PQclear(r);
    }
    if (PQresultStatus(t) != PGRES_TUPLES_OK || PQntuples(t) < 10) total = -1;
    PQclear(t);
    PQfinish(c);
    return total;
}

/* rows of any table of the SQLite store whose text holds needle (said
 * on stderr unless expected) */
static int rows_expected;
static long sqlite_rows_holding(const char *needle)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *t = NULL;
    long total = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table'"
                               " AND name NOT LIKE 'events_fts%'", -1, &t, NULL) != SQLITE_OK)
        total = -1;
    while (t && sqlite3_step(t) == SQLITE_ROW) {
        const char *table = (const char *)sqlite3_column_text(t, 0);
        char sql[600];
        /* every column, as text */
        snprintf(sql, sizeof sql,
                 "SELECT 'SELECT count(*) FROM \"%s\" WHERE ' || group_concat('instr(CAST(\"' ||"
                 " name || '\" AS TEXT), ?1) > 0', ' OR ') FROM pragma_table_info('%s')",
                 table, table);
        sqlite3_stmt *q = NULL, *c = NULL;
        if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW &&
            sqlite3_column_text(q, 0) &&
            sqlite3_prepare_v2(db, (const char *)sqlite3_column_text(q, 0), -1, &c, NULL) == SQLITE_OK) {
            sqlite3_bind_text(c, 1, needle, -1, SQLITE_STATIC);
            long k = sqlite3_step(c) == SQLITE_ROW ? (long)sqlite3_column_int64(c, 0) : 0;
            if (k && !rows_expected)
                fprintf(stderr, "  \"%s\" is in %ld rows of %s\n", needle, k, table);
            total += k;
        }
        sqlite3_finalize(c);
        sqlite3_finalize(q);
    }
    sqlite3_finalize(t);
    sqlite3_close(db);
    return total;
}

static const char *const private_ids[] = {SESSION_PRIVATE, TASK_PRIVATE};

/* the private session and task: a few turns, a memory scoped to the task */
static void private_turns(am_db *db, const char *user, const char *day)
{
    char at[40];
    snprintf(at, sizeof at, "%sT09:00:00+08:00", day);
    add(db, user, SESSION_PRIVATE, NULL, at, "我有抑郁症，每天早上吃舍曲林");
    snprintf(at, sizeof at, "%sT09:01:00+08:00", day);
    add(db, user, SESSION_PRIVATE, NULL, at, "My therapist says the panic attacks are better");
    snprintf(at, sizeof at, "%sT09:02:00+08:00", day);
    add(db, user, "s-other", TASK_PRIVATE, at, "Next step for the custody case: collect the school records");
    snprintf(at, sizeof at, "%sT09:03:00+08:00", day);
    add(db, user, "s-other", TASK_PRIVATE, at, "律师说下周提交财产清单");
    snprintf(at, sizeof at, "%sT09:04:00+08:00", day);
    add(db, user, "s-keep", NULL, at, "From now on I prefer oat milk");
    /* an audit row naming the task */
    CHECK_EQ_INT(am_workspace_put(db, user, TASK_PRIVATE, "paralegal", "sorting the records", NULL,
                                  NULL, NULL),
                 AM_OK);
}

static void check_no_id(const char *url, const char *when)
{
    for (size_t k = 0; k < 2; k++) {
        long rows = url == pg_url && pg_url ? pg_rows_holding(private_ids[k])
                                            : sqlite_rows_holding(private_ids[k]);
        if (rows) fprintf(stderr, "  %s: %s\n", when, private_ids[k]);
        CHECK_EQ_INT(rows, 0);
        if (url != pg_url || !pg_url) CHECK(!store_holds(private_ids[k]));
    }
}

static void check_tombstones(const char *url)
{
    /* immediate */
    am_db *db = open_store(url, 0);
    private_turns(db, "f1", "2026-05-01");
    set_now("2026-05-02T10:00:00Z");
    CHECK_EQ_INT(am_forget(db, "f1", AM_FORGET_SESSION, SESSION_PRIVATE, NULL), AM_OK);
    CHECK_EQ_INT(am_forget(db, "f1", AM_FORGET_TASK, TASK_PRIVATE, NULL), AM_OK);
    /* the tombstone still answers: forgotten and purged, not unknown */
    CHECK_EQ_INT(am_restore_forget(db, "f1", AM_FORGET_SESSION, SESSION_PRIVATE), AM_DENIED);
    CHECK_EQ_INT(am_restore_forget(db, "f1", AM_FORGET_TASK, TASK_PRIVATE), AM_DENIED);
    CHECK_EQ_INT(am_restore_forget(db, "f1", AM_FORGET_TASK, "never-was"), AM_NOTFOUND);
    CHECK_EQ_INT(am_optimize(db), AM_OK);
    am_close(db);
    check_no_id(url, "immediate forget");

    /* with a grace period: restore works, and after the purge nothing */
    db = open_store(url, 3600 * 1000);
    private_turns(db, "f2", "2026-05-03");
    set_now("2026-05-04T10:00:00Z");
    CHECK_EQ_INT(am_forget(db, "f2", AM_FORGET_SESSION, SESSION_PRIVATE, NULL), AM_OK);
    CHECK_EQ_INT(am_forget(db, "f2", AM_FORGET_TASK, TASK_PRIVATE, NULL), AM_OK);
    char id[32];
    CHECK_EQ_INT(am_event_find(db, "f2", "舍曲林", id), AM_NOTFOUND);
    set_now("2026-05-04T10:30:00Z");
    CHECK_EQ_INT(am_restore_forget(db, "f2", AM_FORGET_SESSION, SESSION_PRIVATE), AM_OK);
    CHECK_EQ_INT(am_restore_forget(db, "f2", AM_FORGET_TASK, TASK_PRIVATE), AM_OK);
    CHECK_EQ_INT(am_event_find(db, "f2", "舍曲林", id), AM_OK);
    am_task *t = NULL;
    CHECK_EQ_INT(am_task_get(db, "f2", TASK_PRIVATE, &t), AM_OK);
    am_task_free(t);
    CHECK_EQ_INT(am_forget(db, "f2", AM_FORGET_SESSION, SESSION_PRIVATE, NULL), AM_OK);
    CHECK_EQ_INT(am_forget(db, "f2", AM_FORGET_TASK, TASK_PRIVATE, NULL), AM_OK);
    set_now("2026-05-04T12:00:00Z"); /* past the grace period */
    CHECK_EQ_INT(am_optimize(db), AM_OK);
    CHECK_EQ_INT(am_restore_forget(db, "f2", AM_FORGET_SESSION, SESSION_PRIVATE), AM_DENIED);
    CHECK_EQ_INT(am_restore_forget(db, "f2", AM_FORGET_TASK, TASK_PRIVATE), AM_DENIED);
    CHECK_EQ_INT(am_event_find(db, "f2", "From now on I prefer oat milk", id), AM_OK);
    CHECK_EQ_INT(am_optimize(db), AM_OK);
    am_close(db);
    check_no_id(url, "forget after its grace period");
}

static void test_tombstones_sqlite(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_event_privacy_t_%d.db", (int)getpid());
    store_remove();
    check_tombstones(path);
    store_remove();
}

static void test_tombstones_pg(void)
{
    if (!pg_url) {
        printf("  (no $AM_PG_URL: SQLite only)\n");
        return;
    }
    check_tombstones(pg_url);
}

/* ------------------------------------------------------------ an older store */

static void sql_run(const char *sql)
{
    sqlite3 *db = NULL;
    char *err = NULL;
    int rc = sqlite3_open(path, &db);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, sql, NULL, NULL, &err);
    if (rc != SQLITE_OK) fprintf(stderr, "sql: %s\n", err ? err : sqlite3_errmsg(db));
    CHECK_EQ_INT(rc, SQLITE_OK);
    sqlite3_free(err);
    sqlite3_close(db);
}

/* A v23 store kept keys and the caller's ids in clear in the outbox, the
 * tombstones and the audit rows: the upgrade converts them to the ids the
 * engine writes now. */
static void test_upgrade_converts(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_event_privacy_u_%d.db", (int)getpid());
    store_remove();
    am_db *db = open_store(path, 0);
    add(db, "u1", "s1", "weekly", "2026-05-01T09:00:00+08:00", "以后采购合同都用PDF格式发给我");
    add(db, "u1", "s1", "weekly", "2026-05-01T09:01:00+08:00", "I work as a pediatric cardiologist");
    add(db, "u1", "s1", "weekly", "2026-05-01T09:02:00+08:00", "以后采购合同都改用Word格式");
    private_turns(db, "u1", "2026-05-02");
    set_now("2026-05-03T10:00:00Z");
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_SESSION, SESSION_PRIVATE, NULL), AM_OK);
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_TASK, TASK_PRIVATE, NULL), AM_OK);
    am_memory_events *e = NULL;
    CHECK_EQ_INT(am_events_since(db, "u1", 0, 0, &e), AM_OK);
    char *before = e ? strdup(e->json) : NULL;
    am_memory_events_free(e);
    am_close(db);
    /* what v23 wrote: the clear key of the item, the task's and the
     * forgotten objects' ids */
    sql_run("UPDATE memory_events SET key = (SELECT m.key FROM memory_items m"
            "  WHERE m.lineage_id = memory_events.memory_id LIMIT 1) WHERE key IS NOT NULL;"
            "UPDATE memory_events SET type = 'memory.updated.' || key WHERE type LIKE 'memory.updated.%';"
            "UPDATE memory_events SET task_id = 'weekly' WHERE task_id IS NOT NULL AND type = 'task.updated';"
            "UPDATE memory_events SET task_id = '" TASK_PRIVATE "' WHERE task_id IS NOT NULL"
            " AND type = 'memory.forgotten';"
            "UPDATE tombstones SET object_id = CASE level WHEN 'session' THEN '" SESSION_PRIVATE "'"
            " ELSE '" TASK_PRIVATE "' END;"
            "UPDATE audit_log SET object_id = CASE object_type WHEN 'session' THEN '" SESSION_PRIVATE "'"
            " ELSE '" TASK_PRIVATE "' END WHERE op = 'forget';"
            "UPDATE audit_log SET object_id = '" TASK_PRIVATE "' WHERE op = 'workspace.put';"
            AM_UNDO_V30 AM_UNDO_V29 AM_UNDO_V28 AM_UNDO_V27 AM_UNDO_V26 AM_UNDO_V25 "UPDATE meta SET value = '23' WHERE key = 'schema_version';");
    rows_expected = 1;
    CHECK(sqlite_rows_holding(TASK_PRIVATE) >= 3);
    CHECK(sqlite_rows_holding("采购合同") >= 1); /* the item itself, and the outbox */
    rows_expected = 0;
    long before_rows = sql_count("SELECT count(*) FROM memory_events WHERE instr(type, '采购合同') > 0", NULL);
    CHECK(before_rows >= 1);
    db = open_store(path, 0);
    CHECK_EQ_INT(sql_count("SELECT value FROM meta WHERE key = 'schema_version'", NULL),
                 AM__SCHEMA_VERSION);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM memory_events WHERE instr(type || coalesce(key, ''),"
                           " '采购合同') > 0 OR instr(type || coalesce(key, ''), 'attr.') > 0", NULL), 0);
    CHECK_EQ_INT(sqlite_rows_holding(TASK_PRIVATE), 0);
    CHECK_EQ_INT(sqlite_rows_holding(SESSION_PRIVATE), 0);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM memory_events WHERE task_id IS NOT NULL"
                           " AND (length(task_id) != 17 OR task_id NOT GLOB 't*')", NULL), 0);
    /* converted exactly as the engine writes them now */
    e = NULL;
    CHECK_EQ_INT(am_events_since(db, "u1", 0, 0, &e), AM_OK);
    if (e && before) CHECK_EQ_STR(e->json, before);
    am_memory_events_free(e);
    CHECK_EQ_INT(am_restore_forget(db, "u1", AM_FORGET_TASK, TASK_PRIVATE), AM_DENIED);
    am_close(db);
    free(before);
    store_remove();
}

int main(void)
{
    (void)open_mem; /* api_util.h's; these tests use files and URLs */
    pg_url = getenv("AM_PG_URL");
    if (pg_url && !*pg_url) pg_url = NULL;
    RUN(test_session_payloads_sqlite);
    RUN(test_session_payloads_pg);
    RUN(test_tombstones_sqlite);
    RUN(test_tombstones_pg);
    RUN(test_upgrade_converts);
    TEST_MAIN_END();
}
