/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_item_memo.c -- the write path's latest items held between
 * statements (store/sqlite/item_memo.c), on a real SQLite file with two
 * connections A and B and a third, C, that holds nothing (no_lists): after
 * B's writes, A's own writes (in and after the transaction), a rollback,
 * a user's rows deleted with its seq and written again, a user without a
 * seq row (a store from before v23) forgotten elsewhere, A lists exactly
 * what C reads from the file, field by field.  That A's list really comes
 * from memory is shown by changing a row behind the triggers' back (the
 * seq put back by hand): A still gives the old text until the seq moves.
 * Chinese and English texts.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "store/store.h"
#include "test.h"
#include "plain_alloc.h"
#include "store_file.h"

static const am__allocator alloc = {plain_realloc, NULL};

#define LATEST (AM__ITEMS_CURRENT | AM__ITEMS_NO_SOURCES | AM__ITEMS_NO_HEAT)
#define T0 1767225600000LL

static am__store *open_store(int no_lists)
{
    am__store_opts o = {&alloc, 5000, 0, 0, no_lists, NULL, 0, 0};
    am__store *s = NULL;
    char err[512];
    char url[300];
    snprintf(url, sizeof url, "sqlite:%s", path);
    int rc = am__store_open(url, &o, &s, err, sizeof err);
    if (rc) fprintf(stderr, "open: %s\n", err);
    CHECK_EQ_INT(rc, AM_OK);
    return s;
}

/* every field of uid's items as items_list gives them (which, at), one
 * line each */
static char *dump(am__store *s, const char *uid, int which, am_time at)
{
    am__arena ar;
    am__arena_init(&ar, &alloc);
    am__item_row *rows = NULL;
    size_t n = 0;
    int rc = s->vt->items.items_list(s, uid, which, at, &ar, &rows, &n);
    CHECK_EQ_INT(rc, AM_OK);
    am__buf b;
    am__buf_init(&b, &alloc);
    for (size_t i = 0; i < n && rc == AM_OK; i++) {
        const am__item_row *r = &rows[i];
        char line[2048];
        snprintf(line, sizeof line,
                 "%lld|%s|%s|%s|%s|%s|%s|%s|%.17g|%.17g|%.17g|%lld|%lld|%lld|%lld|%s|%ld|%lld|%ld|%lld|%zu|",
                 (long long)r->rid, r->id, r->lineage_id, r->scope, r->kind, r->key, r->text,
                 r->value_json ? r->value_json : "(none)", r->confidence, r->base_score,
                 r->half_life_days, (long long)r->valid_from, (long long)r->valid_to,
                 (long long)r->recorded_at, (long long)r->superseded_at, r->status, r->hits,
                 (long long)r->last_access, r->source_count, (long long)r->reinforced_at,
                 r->n_sources);
        am__buf_adds(&b, line);
        for (size_t k = 0; r->tokens && k < r->tokens_len; k++) {
            snprintf(line, sizeof line, "%02x", r->tokens[k]);
            am__buf_adds(&b, line);
        }
        am__buf_adds(&b, "\n");
    }
    am__arena_free(&ar);
    char *out = strdup(b.p ? b.p : "");
    am__buf_free(&b);
    return out;
}

/* A's lists are C's: the write path's latest items, and a recall's --
 * the current items valid at a time (before, between and after the rows'
 * times, so a version closed in the future counts), with their heat */
static void same(am__store *a, am__store *c, const char *uid, const char *what)
{
    static const struct {
        int which;
        am_time at;
    } views[] = {
        {LATEST, INT64_MAX},
        {AM__ITEMS_CURRENT | AM__ITEMS_NO_SOURCES, T0 + 15},
        {AM__ITEMS_CURRENT | AM__ITEMS_NO_SOURCES, T0 + 1000000},
        {AM__ITEMS_CURRENT | AM__ITEMS_NO_SOURCES | AM__ITEMS_NO_HEAT, T0 + 5},
    };
    for (size_t i = 0; i < sizeof views / sizeof *views; i++) {
        char *x = dump(a, uid, views[i].which, views[i].at);
        char *y = dump(c, uid, views[i].which, views[i].at);
        if (strcmp(x, y) != 0)
            fprintf(stderr, "%s (view %zu): held\n%s-- the file\n%s", what, i, x, y);
        CHECK_EQ_STR(x, y);
        free(x);
        free(y);
    }
}

static int counter;
static am__item_row item(const char *key, const char *text, am_time at)
{
    static char ids[64][27], lins[64][27];
    am__item_row r;
    memset(&r, 0, sizeof r);
    int k = counter++ % 64;
    snprintf(ids[k], sizeof ids[k], "01TESTITEM%016d", counter);
    snprintf(lins[k], sizeof lins[k], "01TESTLINE%016d", counter);
    r.id = ids[k];
    r.lineage_id = lins[k];
    r.scope = "user";
    r.kind = "preference";
    r.key = key;
    r.text = text;
    r.status = "active";
    r.confidence = 0.7 + 0.01 * (counter % 7);
    r.base_score = 1.0 / 3.0;
    r.half_life_days = 30;
    r.valid_from = r.recorded_at = at;
    r.valid_to = r.superseded_at = r.reinforced_at = AM_TIME_NONE;
    static const unsigned char blob[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    r.tokens = blob;
    r.tokens_len = (size_t)(counter % 3) * 3; /* none, or a few bytes */
    return r;
}

static void insert(am__store *s, const char *uid, am__item_row *r, int txn)
{
    if (txn) CHECK_EQ_INT(am__store_begin(s), AM_OK);
    CHECK_EQ_INT(s->vt->items.item_insert(s, uid, r), AM_OK);
    if (txn) CHECK_EQ_INT(am__store_commit(s), AM_OK);
}

static void raw(sqlite3 *db, const char *sql)
{
    char *err = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
    if (rc) fprintf(stderr, "%s: %s\n", sql, err);
    sqlite3_free(err);
    CHECK_EQ_INT(rc, SQLITE_OK);
}

static void test_memo(void)
{
    snprintf(path, sizeof path, "/tmp/am-item-memo-%d.db", (int)getpid());
    store_remove();
    am__store *a = open_store(0), *b = open_store(0), *c = open_store(1);
    sqlite3 *r = NULL;
    CHECK_EQ_INT(sqlite3_open(path, &r), SQLITE_OK);
    sqlite3_busy_timeout(r, 5000);
    const char *u = "李雷", *v = "ana";

    /* B writes, A lists (and holds), B writes more, A lists again */
    am__item_row x1 = item("周报格式", "以后周报都按已完成、进行中、下周计划三段写", T0);
    am__item_row x2 = item("report_format", "From now on send every report as a PDF", T0 + 1);
    am__item_row y1 = item("drink", "I prefer green tea", T0 + 2);
    insert(b, u, &x1, 1);
    insert(b, u, &x2, 1);
    insert(b, v, &y1, 1);
    same(a, c, u, "first list");
    same(a, c, v, "first list, the other user");
    am__item_row x3 = item("city", "我住在上海", T0 + 3);
    insert(b, u, &x3, 1);
    same(a, c, u, "after another connection's insert");
    /* a value closed at a later time (a statement that arrived late), and
     * heat: a recall's list holds them at the times they are valid */
    am__item_row h1 = item("gym", "I went to the gym on Tuesdays", T0 + 4);
    h1.valid_to = T0 + 500;
    insert(b, u, &h1, 1);
    CHECK_EQ_INT(b->vt->items.item_heat(b, u, x2.lineage_id, 1, 1, T0 + 6), AM_OK);
    CHECK_EQ_INT(b->vt->items.item_heat(b, u, x2.lineage_id, 1, 1, T0 + 7), AM_OK);
    same(a, c, u, "after a value closed later and a recall's heat");
    CHECK_EQ_INT(a->vt->items.item_heat(a, u, x1.lineage_id, 1, 1, T0 + 8), AM_OK);
    same(a, c, u, "after our own heat");

    /* held: a row changed behind the triggers (the seq put back) is not seen... */
    long long seq = sql_count("SELECT seq FROM item_changes WHERE user_id = ?1", "李雷");
    CHECK(seq > 0);
    raw(r, "UPDATE memory_items SET text = 'changed 改了' WHERE key = 'city'");
    char sql[200];
    snprintf(sql, sizeof sql, "UPDATE item_changes SET seq = %lld WHERE user_id = '李雷'", seq);
    raw(r, sql);
    char *held = dump(a, u, LATEST, INT64_MAX);
    CHECK(strstr(held, "我住在上海") != NULL);
    CHECK(strstr(held, "changed 改了") == NULL);
    free(held);
    /* ... until the seq moves */
    raw(r, "UPDATE item_changes SET seq = seq + 1000 WHERE user_id = '李雷'");
    same(a, c, u, "after the seq moved");

    /* B closes, reinforces */
    CHECK_EQ_INT(am__store_begin(b), AM_OK);
    CHECK_EQ_INT(am__store_item_close(b, u, x1.id, T0 + 10), AM_OK);
    CHECK_EQ_INT(am__store_item_reinforce(b, u, x2.rid, "01TESTEVENT0000000000000001", T0 + 11), AM_OK);
    CHECK_EQ_INT(am__store_commit(b), AM_OK);
    same(a, c, u, "after another connection's close and reinforce");

    /* A's own writes, listed in the transaction and after it */
    CHECK_EQ_INT(am__store_begin(a), AM_OK);
    am__item_row x4 = item("周报格式", "周报改成两段：已完成和下周计划", T0 + 20);
    CHECK_EQ_INT(am__store_item_close(a, u, x2.id, T0 + 20), AM_OK);
    CHECK_EQ_INT(a->vt->items.item_insert(a, u, &x4), AM_OK);
    CHECK_EQ_INT(am__store_item_reinforce(a, u, x3.rid, "01TESTEVENT0000000000000002", T0 + 21), AM_OK);
    CHECK_EQ_INT(am__store_item_reinforce(a, u, x3.rid, "01TESTEVENT0000000000000002", T0 + 22), AM_OK);
    am__item_row x5 = item("pending", "maybe I like jazz", T0 + 23);
    x5.status = "pending_confirm";
    am__item_row x6 = item("old", "an invalidated one", T0 + 24);
    x6.status = "invalidated";
    am__item_row x7 = item("bounded", "valid until tomorrow", T0 + 25);
    x7.valid_to = T0 + 86400000LL;
    am__item_row x8 = item("reinforced", "reinforced at insert", T0 + 26);
    x8.reinforced_at = T0 + 30;
    x8.source_count = 3;
    CHECK_EQ_INT(a->vt->items.item_insert(a, u, &x5), AM_OK);
    CHECK_EQ_INT(a->vt->items.item_insert(a, u, &x6), AM_OK);
    CHECK_EQ_INT(a->vt->items.item_insert(a, u, &x7), AM_OK);
    CHECK_EQ_INT(a->vt->items.item_insert(a, u, &x8), AM_OK);
    char *in_txn = dump(a, u, LATEST, INT64_MAX);
    CHECK(strstr(in_txn, "两段") != NULL && strstr(in_txn, "jazz") != NULL);
    CHECK(strstr(in_txn, "invalidated one") == NULL && strstr(in_txn, "until tomorrow") == NULL);
    CHECK_EQ_INT(am__store_commit(a), AM_OK);
    char *file = dump(c, u, LATEST, INT64_MAX);
    CHECK_EQ_STR(in_txn, file);
    free(in_txn);
    free(file);
    same(a, c, u, "after our own writes");
    /* ... and still held after them */
    seq = sql_count("SELECT seq FROM item_changes WHERE user_id = ?1", "李雷");
    raw(r, "UPDATE memory_items SET text = 'behind its back' WHERE key = 'pending'");
    snprintf(sql, sizeof sql, "UPDATE item_changes SET seq = %lld WHERE user_id = '李雷'", seq);
    raw(r, sql);
    held = dump(a, u, LATEST, INT64_MAX);
    CHECK(strstr(held, "maybe I like jazz") != NULL);
    free(held);
    raw(r, "UPDATE memory_items SET text = 'maybe I like jazz' WHERE key = 'pending'");

    /* a rollback: what A held of it is gone, although the seqs come back */
    CHECK_EQ_INT(am__store_begin(a), AM_OK);
    am__item_row x9 = item("rolled", "rolled back 回滚", T0 + 40);
    CHECK_EQ_INT(a->vt->items.item_insert(a, v, &x9), AM_OK);
    held = dump(a, v, LATEST, INT64_MAX);
    CHECK(strstr(held, "回滚") != NULL);
    free(held);
    CHECK_EQ_INT(am__store_rollback(a), AM_OK);
    am__item_row y2 = item("rolled", "written by B instead", T0 + 41);
    insert(b, v, &y2, 1);
    same(a, c, v, "after a rollback and another connection's insert");

    /* a user's rows and seq deleted (a forget), then written again */
    free(dump(a, u, LATEST, INT64_MAX)); /* (held now) */
    raw(r, "DELETE FROM memory_items WHERE user_id = '李雷'; DELETE FROM item_changes WHERE user_id = '李雷'");
    same(a, c, u, "after the user's rows were deleted");
    am__item_row x10 = item("city", "我搬到北京了", T0 + 50);
    insert(b, u, &x10, 1);
    same(a, c, u, "written again after the delete");
    CHECK_EQ_INT(am__store_begin(a), AM_OK); /* its id taken: refused, nothing held changes */
    CHECK(a->vt->items.item_insert(a, u, &x10) != AM_OK);
    CHECK_EQ_INT(am__store_rollback(a), AM_OK);
    same(a, c, u, "after a refused insert");

    /* a user without a seq row (its items from before v23) is not held at
     * seq 0: a forget elsewhere deletes its rows and, at the end, its row,
     * which brings the seq back to 0 */
    const char *w = "王芳";
    am__item_row z1 = item("pet", "我养了一只猫 I have a cat", T0 + 55);
    insert(b, w, &z1, 1);
    raw(r, "DELETE FROM item_changes WHERE user_id = '王芳'");
    same(a, c, w, "a user without a seq");
    raw(r, "DELETE FROM memory_items WHERE user_id = '王芳'; DELETE FROM item_changes WHERE user_id = '王芳'");
    same(a, c, w, "that user forgotten elsewhere");

    /* autocommit writes (no transaction of ours) */
    am__item_row x11 = item("food", "I am vegetarian", T0 + 60);
    insert(a, u, &x11, 0);
    same(a, c, u, "after an autocommit insert");

    sqlite3_close(r);
    a->vt->close(a);
    b->vt->close(b);
    c->vt->close(c);
    store_remove();
}

int main(void)
{
    RUN(test_memo);
    TEST_MAIN_END();
}
