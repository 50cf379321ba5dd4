/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_events.c -- memory events (docs/EVENTS.md): each type
 * published exactly once for its cause, in Chinese and English
 * conversations; nothing for a refused or rolled back write; in-process
 * subscribers see exactly what the outbox holds; a second process reads
 * them; a forgotten user's rows leave the outbox and no content byte is
 * ever in it; one user's reader never sees another's events; retention.
 * Real files, real processes (fork), the public API plus raw SQLite reads.
 */
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agentmem_ops.h"
#include "test.h"
#include "api_util.h"
#include "store_file.h"


static am_db *open_file_cfg(int64_t max_rows, am_time max_age)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = path;
    cfg.clock = test_clock;
    if (max_rows >= 0) cfg.events_max_rows = max_rows;
    if (max_age >= 0) cfg.events_max_age_ms = max_age;
    return open_checked(&cfg);
}

static am_db *open_file(void) { return open_file_cfg(-1, -1); }

/* ------------------------------------------------------------ a subscriber */

#define SEEN_MAX 256
typedef struct seen {
    int n;
    int64_t seq[SEEN_MAX];
    char type[SEEN_MAX][160];
    char json[SEEN_MAX][512];
} seen;

static void on_event(void *ctx, const am_memory_event *ev)
{
    seen *s = ctx;
    if (s->n >= SEEN_MAX) return;
    s->seq[s->n] = ev->seq;
    snprintf(s->type[s->n], sizeof s->type[0], "%s", ev->type);
    snprintf(s->json[s->n], sizeof s->json[0], "%s", ev->json);
    s->n++;
}

/* The events of user (NULL: all) after seq *after, *after moved past them. */
static am_memory_events *since(am_db *db, const char *user, int64_t *after)
{
    am_memory_events *e = NULL;
    int rc = am_events_since(db, user, *after, 0, &e);
    if (rc) fprintf(stderr, "events_since: %s\n", am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
    if (e) *after = e->last_seq;
    return e;
}

static size_t count_type(const am_memory_events *e, const char *type)
{
    size_t k = 0;
    for (size_t i = 0; e && i < e->n; i++)
        if (strcmp(e->items[i].type, type) == 0) k++;
    return k;
}

static size_t count_prefix(const am_memory_events *e, const char *prefix)
{
    size_t k = 0;
    for (size_t i = 0; e && i < e->n; i++)
        if (strncmp(e->items[i].type, prefix, strlen(prefix)) == 0) k++;
    return k;
}

static const am_memory_event *first_type(const am_memory_events *e, const char *prefix)
{
    for (size_t i = 0; e && i < e->n; i++)
        if (strncmp(e->items[i].type, prefix, strlen(prefix)) == 0) return &e->items[i];
    return NULL;
}

/* the subscriber saw exactly e's events (seqs, types, JSON) since mark */
static void check_seen(const seen *s, int mark, const am_memory_events *e)
{
    CHECK_EQ_INT(s->n - mark, e ? (long long)e->n : 0);
    for (size_t i = 0; e && i < e->n && mark + (int)i < s->n; i++) {
        CHECK_EQ_INT(s->seq[mark + i], e->items[i].seq);
        CHECK_EQ_STR(s->type[mark + i], e->items[i].type);
        CHECK_EQ_STR(s->json[mark + i], e->items[i].json);
    }
}


/* outbox rows any text column of which holds needle */
static long long outbox_holding(const char *needle)
{
    return sql_count("SELECT count(*) FROM memory_events WHERE instr(user_id || ' ' || type || ' '"
                     " || coalesce(memory_id, '') || ' ' || coalesce(task_id, '') || ' ' ||"
                     " coalesce(event_id, '') || ' ' || coalesce(key, '') || ' ' ||"
                     " coalesce(detail, '') || ' ' || coalesce(other_user, ''), ?1) > 0",
                     needle);
}

/* ------------------------------------------------------------ each type once */

typedef struct conv {
    const char *lang, *user, *tz;
    const char *create, *supersede, *invalidate, *other, *task_note, *task_done;
    const char *marks[6]; /* content words that must never reach the outbox */
} conv;

static const conv convs[] = {
    {"zh", "li", "+08:00",
     "以后报告都用PDF格式发给我",
     "以后报告都改用Excel格式",
     "以后报告不用再用Excel格式了",
     "以后开会前提醒我带上翡翠山猫的文件夹",
     "这周周报的素材先记一下：今天和产品对齐了Q2路线图",
     "可以，周报已经发出去了",
     {"PDF", "Excel", "翡翠山猫", "路线图", "发出去", "文件夹"}},
    {"en", "sam", "Z",
     "From now on, send my reports as PDF files",
     "Going forward, send reports in Excel format instead",
     "I no longer need reports in Excel format",
     "Remember that my dentist is Dr. Okafor",
     "Notes for this week's weekly report: aligned the Q2 roadmap with the product team today",
     "Looks good, I've sent the weekly report",
     {"PDF", "Excel", "Okafor", "roadmap", "dentist", "sent the"}},
};

static void at_of(const conv *c, int day, char out[40])
{
    snprintf(out, 40, "2026-03-%02dT10:00:00%s", day, c->tz);
}

static void test_each_type_once(void)
{
    for (size_t k = 0; k < sizeof convs / sizeof *convs; k++) {
        const conv *c = &convs[k];
        fprintf(stderr, "  [%s]\n", c->lang);
        snprintf(path, sizeof path, "/tmp/am_test_events_%d_%zu.db", (int)getpid(), k);
        store_remove();
        am_db *db = open_file();
        seen s;
        memset(&s, 0, sizeof s);
        int sub = 0;
        CHECK_EQ_INT(am_subscribe(db, on_event, &s, &sub), AM_OK);
        int64_t after = 0;
        char at[40];

        /* create */
        at_of(c, 1, at);
        int mark = s.n;
        am_add_info a = add(db, c->user, "s1", NULL, at, c->create);
        CHECK_EQ_INT(a.memories_created, 1);
        am_memory_events *e = since(db, c->user, &after);
        CHECK_EQ_INT(count_type(e, "memory.created"), 1);
        CHECK_EQ_INT(count_prefix(e, "memory."), 1);
        const am_memory_event *cr = first_type(e, "memory.created");
        char lineage[64] = "", key[160] = "";
        if (cr) {
            CHECK_EQ_STR(cr->user_id, c->user);
            CHECK_EQ_STR(cr->event_id, a.event_id);
            CHECK(cr->memory_id && cr->key);
            CHECK(cr->occurred_at != AM_TIME_NONE);
            snprintf(lineage, sizeof lineage, "%s", cr->memory_id ? cr->memory_id : "");
            snprintf(key, sizeof key, "%s", cr->key ? cr->key : "");
            CHECK_CONTAINS(cr->json, "\"type\":\"memory.created\"");
            CHECK(strstr(cr->json, c->create) == NULL);
            /* the key by its opaque id: the memory's key_id, never the key */
            am_memory_list *ml = NULL;
            CHECK_EQ_INT(am_memories(db, c->user, AM_LIST_ACTIVE, NULL, &ml), AM_OK);
            const am_memory *m = NULL;
            for (size_t i = 0; ml && i < ml->n; i++)
                if (strcmp(ml->items[i].lineage_id, lineage) == 0) m = &ml->items[i];
            CHECK(m != NULL);
            if (m) {
                CHECK_EQ_STR(m->key_id, cr->key);
                CHECK(cr->key[0] == 'k' && strlen(cr->key) == 17);
                CHECK(strstr(cr->json, m->key) == NULL);
                CHECK_CONTAINS(ml->json, "\"key_id\":\"");
            }
            am_memory_list_free(ml);
        }
        check_seen(&s, mark, e);
        am_memory_events_free(e);

        /* supersede by a restatement: memory.updated.<key>, the same item */
        at_of(c, 2, at);
        mark = s.n;
        am_add_info b = add(db, c->user, "s2", NULL, at, c->supersede);
        CHECK_EQ_INT(b.memories_updated, 1);
        e = since(db, c->user, &after);
        char want[200];
        snprintf(want, sizeof want, "memory.updated.%s", key);
        CHECK_EQ_INT(count_type(e, want), 1);
        CHECK_EQ_INT(count_prefix(e, "memory."), 1);
        const am_memory_event *up = first_type(e, "memory.updated.");
        if (up) {
            CHECK_EQ_STR(up->memory_id, lineage);
            CHECK_EQ_STR(up->key, key);
            CHECK_EQ_STR(up->detail, "superseded");
            CHECK_EQ_STR(up->event_id, b.event_id);
        }
        check_seen(&s, mark, e);
        am_memory_events_free(e);

        /* invalidation */
        at_of(c, 3, at);
        mark = s.n;
        am_add_info v = add(db, c->user, "s3", NULL, at, c->invalidate);
        CHECK_EQ_INT(v.memories_invalidated, 1);
        e = since(db, c->user, &after);
        CHECK_EQ_INT(count_type(e, "memory.invalidated"), 1);
        CHECK_EQ_INT(count_prefix(e, "memory."), 1);
        const am_memory_event *inv = first_type(e, "memory.invalidated");
        if (inv) {
            CHECK_EQ_STR(inv->memory_id, lineage);
            CHECK_EQ_STR(inv->key, key);
            CHECK_EQ_STR(inv->event_id, v.event_id);
        }
        check_seen(&s, mark, e);
        am_memory_events_free(e);

        /* feedback reject */
        at_of(c, 4, at);
        am_add_info o = add(db, c->user, "s4", NULL, at, c->other);
        CHECK_EQ_INT(o.memories_created, 1);
        e = since(db, c->user, &after);
        CHECK_EQ_INT(count_type(e, "memory.created"), 1);
        const am_memory_event *oc = first_type(e, "memory.created");
        char other[64] = "";
        if (oc && oc->memory_id) snprintf(other, sizeof other, "%s", oc->memory_id);
        am_memory_events_free(e);
        mark = s.n;
        CHECK_EQ_INT(am_feedback(db, c->user, other, AM_FEEDBACK_REJECT, NULL), AM_OK);
        e = since(db, c->user, &after);
        CHECK_EQ_INT(e ? (long long)e->n : -1, 1);
        inv = first_type(e, "memory.invalidated");
        if (inv) {
            CHECK_EQ_STR(inv->memory_id, other);
            CHECK_EQ_STR(inv->detail, "rejected");
            CHECK(inv->event_id == NULL);
            CHECK(inv->occurred_at == AM_TIME_NONE);
        }
        check_seen(&s, mark, e);
        am_memory_events_free(e);

        /* task: created, then its status/stage changed -- one each */
        at_of(c, 5, at);
        am_add_info t1 = add(db, c->user, "s5", "weekly", at, c->task_note);
        e = since(db, c->user, &after);
        CHECK_EQ_INT(count_type(e, "task.updated"), 1);
        const am_memory_event *tu = first_type(e, "task.updated");
        if (tu) {
            /* the task by its opaque id, the one am_task_get reports */
            am_task *wk = NULL;
            CHECK_EQ_INT(am_task_get(db, c->user, "weekly", &wk), AM_OK);
            CHECK_EQ_STR(tu->task_id, wk ? wk->task_ref : "");
            CHECK(tu->task_id && tu->task_id[0] == 't' && strlen(tu->task_id) == 17);
            CHECK(strstr(tu->json, "weekly") == NULL);
            am_task_free(wk);
            CHECK_EQ_STR(tu->event_id, t1.event_id);
            CHECK_CONTAINS(tu->json, "\"fields\":[\"created\"");
        }
        am_memory_events_free(e);
        at_of(c, 6, at);
        mark = s.n;
        am_add_info t2 = add(db, c->user, "s5", "weekly", at, c->task_done);
        CHECK_EQ_INT(t2.task_changed, 1);
        e = since(db, c->user, &after);
        CHECK_EQ_INT(count_type(e, "task.updated"), 1);
        tu = first_type(e, "task.updated");
        if (tu) {
            CHECK(strstr(tu->detail, "status") || strstr(tu->detail, "stage"));
            CHECK(strstr(tu->detail, "created") == NULL);
            CHECK_EQ_STR(tu->event_id, t2.event_id);
        }
        check_seen(&s, mark, e);
        am_memory_events_free(e);

        /* forget the rejected statement's event: a notice for the event and
         * for the item, and the item's earlier events leave the outbox */
        mark = s.n;
        CHECK_EQ_INT(am_forget(db, c->user, AM_FORGET_EVENT, o.event_id, NULL), AM_OK);
        e = since(db, c->user, &after);
        CHECK_EQ_INT(count_type(e, "memory.forgotten"), 2);
        CHECK_EQ_INT(e ? (long long)e->n : -1, 2);
        int saw_event = 0, saw_item = 0;
        for (size_t i = 0; e && i < e->n; i++) {
            CHECK_EQ_STR(e->items[i].detail, "event");
            CHECK(e->items[i].key == NULL);
            if (e->items[i].event_id && strcmp(e->items[i].event_id, o.event_id) == 0) saw_event++;
            if (e->items[i].memory_id && strcmp(e->items[i].memory_id, other) == 0) saw_item++;
        }
        CHECK_EQ_INT(saw_event, 1);
        CHECK_EQ_INT(saw_item, 1);
        check_seen(&s, mark, e);
        am_memory_events_free(e);
        int64_t zero = 0;
        e = since(db, c->user, &zero);
        for (size_t i = 0; e && i < e->n; i++) {
            if (e->items[i].memory_id && strcmp(e->items[i].memory_id, other) == 0)
                CHECK_EQ_STR(e->items[i].type, "memory.forgotten");
            if (e->items[i].event_id && strcmp(e->items[i].event_id, o.event_id) == 0)
                CHECK_EQ_STR(e->items[i].type, "memory.forgotten");
        }
        /* every line of the JSON is one of the items */
        size_t lines = 0;
        for (const char *p = e ? e->json : ""; *p; p++) lines += *p == '\n';
        CHECK_EQ_INT(lines, e ? (long long)e->n : -1);
        am_memory_events_free(e);

        CHECK_EQ_INT(am_unsubscribe(db, sub), AM_OK);
        CHECK_EQ_INT(am_unsubscribe(db, sub), AM_NOTFOUND);
        mark = s.n;
        at_of(c, 7, at);
        add(db, c->user, "s6", NULL, at, c->create);
        CHECK_EQ_INT(s.n, mark); /* unsubscribed */
        am_close(db);
        /* no content word of the conversation is in the outbox */
        for (size_t i = 0; i < 6; i++) CHECK_EQ_INT(outbox_holding(c->marks[i]), 0);
        CHECK(sql_count("SELECT count(*) FROM memory_events", NULL) >= 8);
        store_remove();
    }
}

/* ------------------------------------------------------------ refused, rolled back */

static void test_nothing_on_failure(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_events_fail_%d.db", (int)getpid());
    store_remove();
    am_db *db = open_file();
    seen s;
    memset(&s, 0, sizeof s);
    CHECK_EQ_INT(am_subscribe(db, on_event, &s, NULL), AM_OK);
    add(db, "u1", "s0", NULL, "2026-03-01T09:00:00Z", "hello there");
    int64_t after = 0;
    am_memory_events *e = since(db, NULL, &after);
    am_memory_events_free(e);
    int mark = s.n;
    /* a refused event */
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = "u1";
    ev.source = "robot";
    ev.text = "From now on, send my reports as PDF files";
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_INVALID);
    /* a batch whose second event is refused after the first was written
     * whole (its memory and task events included): all rolled back */
    am_event evs[2];
    memset(evs, 0, sizeof evs);
    evs[0].user_id = "u1";
    evs[0].task_id = "t1";
    evs[0].text = "以后报告都用PDF格式发给我";
    evs[1].user_id = "u1";
    evs[1].text = "From now on, call me Sam";
    evs[1].occurred_at = "not a time";
    am_add_info infos[2];
    CHECK_EQ_INT(am_add_events(db, evs, 2, infos), AM_INVALID);
    /* feedback on nothing, forget of nothing, a denial with a bad field */
    CHECK_EQ_INT(am_feedback(db, "u1", "01NOSUCHMEMORY", AM_FEEDBACK_REJECT, NULL), AM_NOTFOUND);
    CHECK_EQ_INT(am_forget(db, "u1", AM_FORGET_EVENT, "01NOSUCHEVENT", NULL), AM_NOTFOUND);
    CHECK_EQ_INT(am_security_denied(db, "u1", "u2", "GET\x01 /v1/memories"), AM_INVALID);
    CHECK_EQ_INT(am_security_denied(db, "u1", NULL, "GET /v1/memories"), AM_INVALID);
    CHECK_EQ_INT(am_events_since(db, "u1", -1, 0, &e), AM_INVALID);
    CHECK_EQ_INT(s.n, mark);
    e = since(db, NULL, &after);
    CHECK_EQ_INT(e ? (long long)e->n : -1, 0);
    am_memory_events_free(e);
    /* the batch again, valid: its events come, once */
    evs[1].occurred_at = NULL;
    CHECK_EQ_INT(am_add_events(db, evs, 2, infos), AM_OK);
    e = since(db, NULL, &after);
    CHECK_EQ_INT(count_type(e, "memory.created"), 2);
    CHECK_EQ_INT(count_type(e, "task.updated"), 1);
    check_seen(&s, mark, e);
    am_memory_events_free(e);
    /* a write held up by another writer's lock (AM_BUSY) publishes nothing */
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = path;
    cfg.busy_timeout_ms = 50;
    am_db *other = NULL;
    CHECK_EQ_INT(am_open(&cfg, &other, NULL), AM_OK);
    sqlite3 *lock = NULL;
    CHECK(sqlite3_open(path, &lock) == SQLITE_OK);
    CHECK(sqlite3_exec(lock, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK);
    mark = s.n;
    ev.source = NULL;
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_BUSY);
    sqlite3_exec(lock, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(lock);
    CHECK_EQ_INT(s.n, mark);
    e = since(other, NULL, &after);
    CHECK_EQ_INT(e ? (long long)e->n : -1, 0);
    am_memory_events_free(e);
    am_close(other);
    am_close(db);
    store_remove();
}

/* ------------------------------------------------------------ another process */

static void test_second_process(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_events_proc_%d.db", (int)getpid());
    store_remove();
    am_db *db = open_file();
    set_now("2026-03-01T09:00:00Z");
    seen s;
    memset(&s, 0, sizeof s);
    CHECK_EQ_INT(am_subscribe(db, on_event, &s, NULL), AM_OK);
    add(db, "p1", "s1", NULL, "2026-03-01T09:00:00Z", "以后报告都用PDF格式发给我");
    int mine = s.n;
    CHECK_EQ_INT(mine, 1);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        am_config cfg;
        am_config_init(&cfg);
        cfg.path = path;
        am_db *c = NULL;
        if (am_open(&cfg, &c, NULL)) _exit(3);
        const char *texts[] = {"From now on, send my reports as PDF files",
                               "Going forward, send reports in Excel format instead",
                               "以后开会前提醒我带上翡翠山猫的文件夹"};
        for (int i = 0; i < 3; i++) {
            am_event ev;
            memset(&ev, 0, sizeof ev);
            ev.user_id = "p2";
            ev.text = texts[i];
            if (am_add_event(c, &ev, NULL)) _exit(4);
        }
        am_close(c);
        _exit(0);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* the parent's subscriber hears only its own handle's writes */
    CHECK_EQ_INT(s.n, mine);
    int64_t after = s.seq[0];
    am_memory_events *e = since(db, NULL, &after);
    CHECK_EQ_INT(count_type(e, "memory.created"), 2);
    CHECK_EQ_INT(count_prefix(e, "memory.updated."), 1);
    for (size_t i = 0; e && i < e->n; i++) {
        CHECK_EQ_STR(e->items[i].user_id, "p2");
        CHECK(e->items[i].seq > (i ? e->items[i - 1].seq : s.seq[0]));
    }
    am_memory_events_free(e);
    /* resuming past the end: nothing, the same seq */
    int64_t end = after;
    e = since(db, NULL, &after);
    CHECK_EQ_INT(e ? (long long)e->n : -1, 0);
    CHECK_EQ_INT(after, end);
    am_memory_events_free(e);
    am_close(db);
    store_remove();
}

/* ------------------------------------------------------------ isolation, denials */

static void test_isolation_and_denials(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_events_iso_%d.db", (int)getpid());
    store_remove();
    am_db *db = open_file();
    add(db, "alice", "s1", "trip", "2026-03-01T09:00:00Z", "From now on book aisle seats for me");
    add(db, "bob", "s1", "trip", "2026-03-01T09:01:00Z", "以后订酒店都要无烟房");
    set_now("2026-03-01T09:02:00Z");
    CHECK_EQ_INT(am_security_denied(db, "bob", "alice", "GET /v1/memories"), AM_OK);
    int64_t after = 0;
    am_memory_events *a = since(db, "alice", &after);
    CHECK(a && a->n >= 2);
    for (size_t i = 0; a && i < a->n; i++) CHECK_EQ_STR(a->items[i].user_id, "alice");
    CHECK_EQ_INT(count_type(a, "security.denied"), 0);
    am_memory_events_free(a);
    after = 0;
    am_memory_events *b = since(db, "bob", &after);
    for (size_t i = 0; b && i < b->n; i++) CHECK_EQ_STR(b->items[i].user_id, "bob");
    CHECK_EQ_INT(count_type(b, "security.denied"), 1);
    const am_memory_event *d = first_type(b, "security.denied");
    if (d) {
        CHECK_EQ_STR(d->other_user, "alice");
        CHECK_EQ_STR(d->detail, "GET /v1/memories");
        CHECK_CONTAINS(d->json, "\"asked_user\":\"alice\"");
    }
    am_memory_events_free(b);
    after = 0;
    am_memory_events *all = since(db, NULL, &after);
    CHECK(all && all->n >= 5);
    am_memory_events_free(all);
    /* paging: max 1 at a time walks the same events */
    int64_t p = 0;
    size_t walked = 0;
    for (int guard = 0; guard < 100; guard++) {
        am_memory_events *one = NULL;
        CHECK_EQ_INT(am_events_since(db, NULL, p, 1, &one), AM_OK);
        size_t n = one ? one->n : 0;
        if (one) p = one->last_seq;
        am_memory_events_free(one);
        if (!n) break;
        walked++;
    }
    CHECK_EQ_INT(p, after);
    CHECK(walked >= 5);
    /* a channel identity's own user merged into alice: its events are hers */
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.channel = "tg";
    ev.external_id = "al-77";
    ev.text = "以后报告都用PDF格式发给我";
    am_add_info own;
    CHECK_EQ_INT(am_add_event(db, &ev, &own), AM_OK);
    CHECK_EQ_INT(am_link_merge(db, "tg", "al-77", "alice", 1), AM_OK);
    int64_t zero = 0;
    a = since(db, "alice", &zero);
    int found = 0;
    for (size_t i = 0; a && i < a->n; i++)
        found += a->items[i].event_id && strcmp(a->items[i].event_id, own.event_id) == 0;
    CHECK_EQ_INT(found, 1);
    am_memory_events_free(a);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM memory_events WHERE user_id=?1", own.user_id), 0);
    am_close(db);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM audit_log WHERE op='security.denied'"
                           " AND user_id='bob' AND object_id=?1", "alice"),
                 1);
    store_remove();
}

/* ------------------------------------------------------------ a forgotten user */

static void test_forgotten_user(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_events_forget_%d.db", (int)getpid());
    store_remove();
    am_db *db = open_file();
    add(db, "lin.zhao", "s1", "报税", "2026-03-01T10:01:00+08:00", "以后报税材料都发到我的邮箱");
    add(db, "lin.zhao", "s1", NULL, "2026-03-01T10:02:00Z", "From now on call me Lin");
    add(db, "keep", "s1", NULL, "2026-03-01T10:03:00Z", "From now on send me the Persimmon digest");
    set_now("2026-03-01T10:04:00Z");
    CHECK_EQ_INT(am_security_denied(db, "keep", "lin.zhao", "POST /v1/recall"), AM_OK);
    CHECK(sql_count("SELECT count(*) FROM memory_events WHERE user_id=?1", "lin.zhao") >= 3);
    seen s;
    memset(&s, 0, sizeof s);
    CHECK_EQ_INT(am_subscribe(db, on_event, &s, NULL), AM_OK);
    set_now("2026-03-02T10:00:00Z");
    CHECK_EQ_INT(am_forget(db, "lin.zhao", AM_FORGET_USER, NULL, NULL), AM_OK);
    /* the notice reached the subscriber, naming the user */
    CHECK_EQ_INT(s.n, 1);
    CHECK_EQ_STR(s.type[0], "memory.forgotten");
    CHECK_CONTAINS(s.json[0], "\"level\":\"user\"");
    am_close(db);
    /* purged: none of its rows, no trace of its id or task, the notice kept
     * under the pseudonym; the other user's rows stay */
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM memory_events WHERE user_id=?1", "lin.zhao"), 0);
    CHECK_EQ_INT(outbox_holding("lin.zhao"), 0);
    CHECK_EQ_INT(outbox_holding("报税"), 0);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM memory_events WHERE type='memory.forgotten'"
                           " AND detail='user' AND user_id LIKE 'forgotten:%'", NULL),
                 1);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM memory_events WHERE user_id LIKE 'forgotten:%'",
                           NULL),
                 1);
    CHECK(sql_count("SELECT count(*) FROM memory_events WHERE user_id=?1", "keep") >= 2);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM audit_log WHERE instr(coalesce(object_id, ''),"
                           " ?1) > 0", "lin.zhao"),
                 0);
    CHECK_EQ_INT(outbox_holding("Persimmon"), 0); /* content never */
    store_remove();
}

/* ------------------------------------------------------------ retention */

static void test_retention(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_events_trim_%d.db", (int)getpid());
    store_remove();
    am_db *db = open_file_cfg(3, 0);
    char at[40], text[128];
    for (int i = 0; i < 8; i++) {
        snprintf(at, sizeof at, "2026-03-01T10:%02d:00Z", i);
        snprintf(text, sizeof text, "Remember that locker %d holds the spare key number %d", i, i * 7);
        add(db, "r1", "s1", NULL, at, text);
    }
    long long kept = sql_count("SELECT count(*) FROM memory_events", NULL);
    CHECK(kept >= 1 && kept <= 3);
    am_memory_events *e = NULL;
    CHECK_EQ_INT(am_events_since(db, NULL, 0, 0, &e), AM_OK);
    CHECK(e && e->oldest_seq > 1); /* a reader from 0 can tell it missed some */
    if (e && e->n) CHECK_EQ_INT(e->items[0].seq, e->oldest_seq);
    am_memory_events_free(e);
    am_close(db);
    /* by age: a week later, am_optimize drops what is older */
    db = open_file_cfg(0, 24 * 3600 * 1000);
    set_now("2026-03-09T10:00:00Z");
    CHECK_EQ_INT(am_optimize(db), AM_OK);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM memory_events", NULL), 0);
    add(db, "r1", "s1", NULL, "2026-03-09T10:01:00Z", "From now on send me the digest at noon");
    CHECK_EQ_INT(am_optimize(db), AM_OK);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM memory_events", NULL), 1);
    am_close(db);
    store_remove();
}

int main(void)
{
    (void)open_mem; /* api_util.h's; these tests use files */
    RUN(test_each_type_once);
    RUN(test_nothing_on_failure);
    RUN(test_second_process);
    RUN(test_isolation_and_denials);
    RUN(test_forgotten_user);
    RUN(test_retention);
    TEST_MAIN_END();
}
