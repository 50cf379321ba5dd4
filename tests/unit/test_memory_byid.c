/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_memory_byid.c -- one memory by id through the public API, in
 * Chinese and English (agentmem.h "one memory", docs/VERSIONS.md):
 *  - get by the lineage id and by any version's id, the current version
 *    and every version;
 *  - add: a new value of the same key supersedes (same item, a new
 *    version), the same text again reinforces (no new item), a bad kind,
 *    key, scope or text is refused naming the field and writes nothing;
 *  - update: a correction, through an id read before it;
 *  - feedback answers with the new current version and accepts an id of
 *    an earlier version (an id read before an earlier feedback); a
 *    distilled item too;
 *  - delete: every version goes, then get is NOT FOUND; audited by the
 *    lineage id without the text; a memory event announces it;
 *  - another user's id and an item a role may not read are NOT FOUND;
 *  - completeness: after a delete, with another process holding the store
 *    open, no byte of the deleted text is left in the .db or -wal file.
 */
#include <sqlite3.h>

#include "test.h"
#include "api_util.h"
#include "store_file.h"
#include "store_holder.h"

static am_memory_item *get_ok(am_db *db, const char *user, const char *id)
{
    am_memory_item *m = NULL;
    int rc = am_memory_get(db, user, id, &m);
    if (rc) fprintf(stderr, "get %s: %s\n", id, am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
    return m;
}

static am_memory_item *add_ok(am_db *db, const char *user, const char *text, const char *kind,
                              const char *key)
{
    am_memory_input in = {0};
    in.user_id = user;
    in.text = text;
    in.kind = kind;
    in.key = key;
    am_memory_item *m = NULL;
    int rc = am_memory_add(db, &in, &m);
    if (rc) fprintf(stderr, "add %s: %s\n", text, am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
    CHECK(m && m->current);
    return m;
}

/* add, a second value of the same key, the same text again; get by each id */
static void supersede_case(const char *first, const char *second, const char *key)
{
    am_db *db = open_mem();
    set_now("2026-04-01T10:00:00Z");
    am_memory_item *a = add_ok(db, "u1", first, "preference", key);
    if (!a || !a->current) { am_close(db); return; }
    char lineage[32], first_id[32];
    snprintf(lineage, sizeof lineage, "%s", a->current->lineage_id);
    snprintf(first_id, sizeof first_id, "%s", a->current->id);
    CHECK_EQ_STR(a->current->text, first);
    CHECK_EQ_STR(a->current->kind, "preference");
    CHECK_EQ_INT(a->n_versions, 1);
    CHECK_EQ_INT(a->current->n_sources, 1);
    if (a->current->n_sources) CHECK_EQ_STR(a->current->source_event_ids[0], "api");
    CHECK_CONTAINS(a->json, "\"memory\":{");
    CHECK_CONTAINS(a->json, "\"versions\":[");
    am_memory_item_free(a);

    /* the same text again: the same item, reinforced, no new version */
    set_now("2026-04-01T11:00:00Z");
    am_memory_item *r = add_ok(db, "u1", first, NULL, key);
    if (r && r->current) {
        CHECK_EQ_STR(r->current->lineage_id, lineage);
        CHECK_EQ_INT(r->n_versions, 1);
    }
    am_memory_item_free(r);

    /* a new value of the same key supersedes: one item, a new version */
    set_now("2026-04-02T10:00:00Z");
    am_memory_item *b = add_ok(db, "u1", second, "preference", key);
    if (b && b->current) {
        CHECK_EQ_STR(b->current->lineage_id, lineage);
        CHECK_EQ_STR(b->current->text, second);
        CHECK(strcmp(b->current->id, first_id) != 0);
        CHECK(b->n_versions >= 2);
    }
    am_memory_item_free(b);
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories(db, "u1", AM_LIST_ACTIVE, NULL, &l), AM_OK);
    if (l) CHECK_EQ_INT(l->n, 1);
    am_memory_list_free(l);

    /* by the lineage id and by the first (closed) version's id: the same */
    am_memory_item *g1 = get_ok(db, "u1", lineage), *g2 = get_ok(db, "u1", first_id);
    if (g1 && g2 && g1->current && g2->current) {
        CHECK_EQ_STR(g1->current->id, g2->current->id);
        CHECK_EQ_STR(g1->current->text, second);
        CHECK_EQ_INT(g1->n_versions, g2->n_versions);
        CHECK_EQ_STR(g1->versions[0].id, first_id);
        CHECK_EQ_STR(g1->versions[0].text, first);
        CHECK_EQ_STR(g1->json, g2->json);
    }
    am_memory_item_free(g1);
    am_memory_item_free(g2);

    /* another user: not found, whatever the id */
    am_memory_item *none = NULL;
    CHECK_EQ_INT(am_memory_get(db, "u2", lineage, &none), AM_NOTFOUND);
    CHECK(none == NULL);
    CHECK_CONTAINS(am_errmsg(db), "has no memory");
    CHECK_EQ_INT(am_memory_update(db, "u2", lineage, "hijacked", NULL), AM_NOTFOUND);
    CHECK_EQ_INT(am_memory_delete(db, "u2", first_id, NULL), AM_NOTFOUND);
    CHECK_EQ_INT(am_memory_feedback(db, "u2", lineage, AM_FEEDBACK_REJECT, NULL, NULL, NULL, NULL),
                 AM_NOTFOUND);
    am_memory_item *still = get_ok(db, "u1", lineage);
    if (still && still->current) CHECK_EQ_STR(still->current->text, second);
    am_memory_item_free(still);
    am_close(db);
}

static void test_add_supersede_en(void)
{
    supersede_case("I drink oolong tea every morning", "I drink espresso every morning",
                   "drink.morning");
}

static void test_add_supersede_zh(void)
{
    supersede_case("我每天早上喝乌龙茶", "我每天早上改喝美式咖啡了", "饮品.早上");
}

/* update and feedback through ids read before them; the new version back */
static void update_feedback_case(const char *text, const char *corrected)
{
    am_db *db = open_mem();
    set_now("2026-04-01T10:00:00Z");
    am_memory_item *a = add_ok(db, "u1", text, "fact", NULL);
    if (!a || !a->current) { am_close(db); return; }
    char v1[32], lineage[32];
    snprintf(v1, sizeof v1, "%s", a->current->id);
    snprintf(lineage, sizeof lineage, "%s", a->current->lineage_id);
    am_memory_item_free(a);

    /* confirm answers with the new current version */
    set_now("2026-04-01T11:00:00Z");
    am_memory_item *c = NULL;
    CHECK_EQ_INT(am_memory_feedback(db, "u1", v1, AM_FEEDBACK_CONFIRM, NULL, NULL, NULL, &c), AM_OK);
    char v2[32] = "";
    if (c && c->current) {
        snprintf(v2, sizeof v2, "%s", c->current->id);
        CHECK(strcmp(v2, v1) != 0);
        CHECK_EQ_STR(c->current->lineage_id, lineage);
    } else CHECK(0);
    am_memory_item_free(c);
    /* the first id is stale now -- still the item (it was "no current
     * memory" before) */
    set_now("2026-04-01T12:00:00Z");
    CHECK_EQ_INT(am_feedback(db, "u1", v1, AM_FEEDBACK_CONFIRM, NULL), AM_OK);

    /* update through the first id: a correction, a new current version */
    set_now("2026-04-02T10:00:00Z");
    am_memory_item *u = NULL;
    int rc = am_memory_update(db, "u1", v1, corrected, &u);
    if (rc) fprintf(stderr, "update: %s\n", am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
    if (u && u->current) {
        CHECK_EQ_STR(u->current->text, corrected);
        CHECK_EQ_STR(u->current->lineage_id, lineage);
        CHECK(strcmp(u->current->id, v2) != 0);
        /* the old text is a past version of the item */
        int past = 0;
        for (size_t i = 0; i < u->n_versions; i++)
            past |= strcmp(u->versions[i].text, text) == 0 &&
                    (u->versions[i].valid_to != AM_TIME_NONE ||
                     u->versions[i].superseded_at != AM_TIME_NONE);
        CHECK(past);
    } else CHECK(0);
    am_memory_item_free(u);
    /* a blank text is refused, naming the field */
    CHECK_EQ_INT(am_memory_update(db, "u1", lineage, "  ", NULL), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "text");

    /* reject: no current version, the versions stay */
    set_now("2026-04-03T10:00:00Z");
    am_memory_item *r = NULL;
    CHECK_EQ_INT(am_memory_feedback(db, "u1", v2, AM_FEEDBACK_REJECT, NULL, NULL, NULL, &r), AM_OK);
    CHECK(r && r->current == NULL && r->n_versions >= 3);
    if (r) CHECK_CONTAINS(r->json, "{\"memory\":null,");
    am_memory_item_free(r);
    /* a rejected item is not updated */
    CHECK_EQ_INT(am_memory_update(db, "u1", lineage, corrected, NULL), AM_NOTFOUND);

    /* delete: every version, then not found */
    long n = 0;
    CHECK_EQ_INT(am_memory_delete(db, "u1", v1, &n), AM_OK);
    CHECK(n >= 3);
    am_memory_item *g = NULL;
    CHECK_EQ_INT(am_memory_get(db, "u1", lineage, &g), AM_NOTFOUND);
    CHECK_EQ_INT(am_memory_get(db, "u1", v2, &g), AM_NOTFOUND);
    CHECK_EQ_INT(am_memory_delete(db, "u1", lineage, &n), AM_NOTFOUND);
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories(db, "u1", AM_LIST_ALL, NULL, &l), AM_OK);
    if (l) CHECK_EQ_INT(l->n, 0);
    am_memory_list_free(l);
    /* the export shows nothing of it */
    char *json = NULL;
    CHECK_EQ_INT(am_export(db, "u1", &json), AM_OK);
    CHECK(json && !strstr(json, text) && !strstr(json, corrected));
    CHECK_CONTAINS(json, "memory.deleted");
    am_free(json);
    am_close(db);
}

static void test_update_feedback_delete_en(void)
{
    update_feedback_case("My locker number is 4471", "My locker number is 4472");
}

static void test_update_feedback_delete_zh(void)
{
    update_feedback_case("我的储物柜号码是4471", "我的储物柜号码是4472");
}

/* A distilled item: feedback by its first version's id, twice */
static void test_feedback_distilled(void)
{
    static const char *const turns[] = {"以后周报都用PDF格式发给我", "From now on, send me reports as PDF"};
    for (int i = 0; i < 2; i++) {
        am_db *db = open_mem();
        add(db, "u1", "s1", NULL, "2026-04-01T10:00:00Z", turns[i]);
        am_memory_list *l = NULL;
        CHECK_EQ_INT(am_memories(db, "u1", AM_LIST_ACTIVE, NULL, &l), AM_OK);
        CHECK(l && l->n >= 1);
        if (!l || !l->n) { am_memory_list_free(l); am_close(db); continue; }
        char v1[32];
        snprintf(v1, sizeof v1, "%s", l->items[0].id);
        am_memory_list_free(l);
        for (int k = 0; k < 2; k++) {
            am_memory_item *c = NULL;
            int rc = am_memory_feedback(db, "u1", v1, AM_FEEDBACK_CONFIRM, NULL, NULL, NULL, &c);
            if (rc) fprintf(stderr, "feedback: %s\n", am_errmsg(db));
            CHECK_EQ_INT(rc, AM_OK);
            CHECK(c && c->current && strcmp(c->current->id, v1) != 0);
            am_memory_item_free(c);
        }
        am_close(db);
    }
}

/* Bad input names the field; nothing is written */
static void test_add_refused(void)
{
    am_db *db = open_mem();
    static const struct {
        const char *text, *kind, *key, *scope, *field;
        int rc;
    } cases[] = {
        {"I like green tea", "feeling", NULL, NULL, "kind", AM_INVALID},
        {"我喜欢绿茶", NULL, "a\tb", NULL, "key", AM_INVALID},
        {"I like green tea", NULL, NULL, "planet:mars", "scope", AM_INVALID},
        {"我喜欢绿茶", NULL, NULL, "domain:", "scope", AM_INVALID},
        {"   ", NULL, NULL, NULL, "text", AM_INVALID},
        {NULL, NULL, NULL, NULL, "text", AM_INVALID},
        {"bad \xff byte", NULL, NULL, NULL, "text", AM_INVALID},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        am_memory_input in = {0};
        in.user_id = "u1";
        in.text = cases[i].text;
        in.kind = cases[i].kind;
        in.key = cases[i].key;
        in.scope = cases[i].scope;
        am_memory_item *m = NULL;
        CHECK_EQ_INT(am_memory_add(db, &in, &m), cases[i].rc);
        CHECK(m == NULL);
        CHECK_CONTAINS(am_errmsg(db), cases[i].field);
    }
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories(db, "u1", AM_LIST_ALL, NULL, &l), AM_OK);
    if (l) CHECK_EQ_INT(l->n, 0);
    am_memory_list_free(l);
    am_close(db);
}

/* A role a kind rule keeps from an item: not found, as unknown */
static void test_role_hidden(void)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = ":memory:";
    cfg.clock = test_clock;
    cfg.role_allow = "kind:profile=hr";
    am_db *db = open_checked(&cfg);
    set_now("2026-04-01T10:00:00Z");
    am_memory_item *a = add_ok(db, "u1", "我的血型是AB型", "profile", "blood_type");
    char id[32] = "";
    if (a && a->current) snprintf(id, sizeof id, "%s", a->current->lineage_id);
    am_memory_item_free(a);
    am_memory_item *m = NULL;
    CHECK_EQ_INT(am_memory_get_as(db, "u1", id, "bot", "sales", &m), AM_NOTFOUND);
    CHECK_CONTAINS(am_errmsg(db), "has no memory");
    CHECK_EQ_INT(am_memory_delete_as(db, "u1", id, "bot", "sales", NULL), AM_NOTFOUND);
    CHECK_EQ_INT(am_memory_update_as(db, "u1", id, "我的血型是O型", "bot", "sales", NULL),
                 AM_NOTFOUND);
    am_memory_input in = {0};
    in.user_id = "u1";
    in.text = "My blood type is O negative";
    in.kind = "profile";
    in.agent_id = "bot";
    in.role = "sales";
    CHECK_EQ_INT(am_memory_add(db, &in, &m), AM_DENIED);
    CHECK_EQ_INT(am_memory_get_as(db, "u1", id, "bot", "hr", &m), AM_OK);
    am_memory_item_free(m);
    CHECK_EQ_INT(am_memory_delete_as(db, "u1", id, "bot", "hr", NULL), AM_OK);
    am_close(db);
}

/* ------------------------------------------------------------ the files */

/* the holder's read (store_holder.h): w1's memories */
static int holder_list(am_db *db)
{
    am_memory_list *l = NULL;
    int rc = am_memories(db, "w1", AM_LIST_ALL, NULL, &l);
    am_memory_list_free(l);
    return rc;
}

static am_db *open_file(void)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = path;
    cfg.clock = test_clock;
    return open_checked(&cfg);
}

/* After a delete, with another process holding the store open, no byte of
 * the deleted memory's texts (every version, Chinese and English) is in
 * the .db or -wal file; another memory's stays. */
static void test_delete_leaves_no_byte(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_memory_byid_%d.db", (int)getpid());
    store_remove();
    am_db *db = open_file();
    set_now("2026-04-01T10:00:00Z");
    am_memory_item *a = add_ok(db, "w1", "My courier alias is Quillfeather Mandolin", "fact",
                               "courier.alias");
    am_memory_item *k = add_ok(db, "w1", "The gate code lives with Persimmon Otterly", "fact", NULL);
    char lineage[32] = "";
    if (a && a->current) snprintf(lineage, sizeof lineage, "%s", a->current->lineage_id);
    am_memory_item_free(a);
    am_memory_item_free(k);
    set_now("2026-04-02T10:00:00Z");
    am_memory_item *b = NULL;
    CHECK_EQ_INT(am_memory_update(db, "w1", lineage, "我的快递代号是琥珀鹦鹉螺", &b), AM_OK);
    am_memory_item_free(b);
    set_now("2026-04-03T10:00:00Z");
    CHECK_EQ_INT(am_feedback(db, "w1", lineage, AM_FEEDBACK_CONFIRM, NULL), AM_OK);
    am_close(db);
    CHECK(store_holds("Quillfeather"));
    CHECK(store_holds("琥珀鹦鹉螺"));
    CHECK(store_holds("Persimmon Otterly"));

    int down_w = -1;
    pid_t pid = holder_start(holder_list, &down_w);
    CHECK(pid > 0);
    if (pid <= 0) return;
    db = open_file();
    long n = 0;
    CHECK_EQ_INT(am_memory_delete(db, "w1", lineage, &n), AM_OK);
    CHECK(n >= 4);
    /* the other process still has the store open */
    CHECK(!store_holds("Quillfeather"));
    CHECK(!store_holds("Mandolin"));
    CHECK(!store_holds("琥珀鹦鹉螺"));
    CHECK(store_holds("Persimmon Otterly")); /* what was not deleted stays */
    /* the audit names the item by its lineage id, with no text; the
     * memory event announces it */
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM audit_log WHERE op = 'memory.deleted'"
                           " AND object_id = ?1 AND detail NOT LIKE '%courier%'",
                           lineage),
                 1);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM memory_events WHERE type = 'memory.forgotten'"
                           " AND memory_id = ?1 AND detail = 'memory'",
                           lineage),
                 1);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM memory_items WHERE lineage_id = ?1", lineage), 0);
    holder_end(pid, down_w);
    am_close(db);
    CHECK(!store_holds("Quillfeather"));
    CHECK(!store_holds("琥珀鹦鹉螺"));
    store_remove();
}

/* The application's keys are its items: the same text under two keys is
 * two memories (a near duplicate of another key does not reinforce it),
 * the same key again is that memory. */
static void own_keys_case(const char *text, const char *key1, const char *key2)
{
    am_db *db = open_mem();
    set_now("2026-04-03T10:00:00Z");
    am_memory_item *a = add_ok(db, "u1", text, "fact", key1);
    set_now("2026-04-03T10:00:01Z");
    am_memory_item *b = add_ok(db, "u1", text, "fact", key2);
    if (a && b && a->current && b->current) {
        CHECK(strcmp(a->current->lineage_id, b->current->lineage_id) != 0);
        CHECK_EQ_STR(b->current->key, key2);
    }
    set_now("2026-04-03T10:00:02Z");
    am_memory_item *c = add_ok(db, "u1", text, "fact", key1);
    if (a && c && a->current && c->current)
        CHECK_EQ_STR(c->current->lineage_id, a->current->lineage_id);
    am_memory_item_free(a);
    am_memory_item_free(b);
    am_memory_item_free(c);
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories(db, "u1", AM_LIST_ACTIVE, NULL, &l), AM_OK);
    if (l) CHECK_EQ_INT(l->n, 2);
    am_memory_list_free(l);
    am_close(db);
}

static void test_own_keys(void)
{
    own_keys_case("Project Kestrel ships on the first Monday of every month", "store.a1",
                  "store.b2");
    own_keys_case("青鸟项目每个月第一个周一发版", "store.c3", "store.d4");
}

int main(void)
{
    RUN(test_add_supersede_en);
    RUN(test_add_supersede_zh);
    RUN(test_own_keys);
    RUN(test_update_feedback_delete_en);
    RUN(test_update_feedback_delete_zh);
    RUN(test_feedback_distilled);
    RUN(test_add_refused);
    RUN(test_role_hidden);
    RUN(test_delete_leaves_no_byte);
    TEST_MAIN_END();
}
