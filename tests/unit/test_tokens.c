/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_tokens.c -- API tokens bound to a tenant (api/tokens.c): a
 * token verifies as its user, agent, role and admin flag; only its hash is
 * in the store file; a near miss (one character changed, cut, padded, the
 * prefix alone) is refused; a revoked token is refused and says so; list
 * never shows a token; create, revoke and refused requests leave audit
 * rows; forgetting a user deletes its tokens (after the grace period).
 * Chinese and English user ids.  The public API and raw reads of the file.
 */
#include <sqlite3.h>
#include <unistd.h>

#include "agentmem.h"
#include "agentmem_ops.h"
#include "test.h"

static am_time now_ms;
static am_time test_clock(void *ctx)
{
    (void)ctx;
    return now_ms;
}

static void set_now(const char *iso)
{
    CHECK_EQ_INT(am_time_parse(iso, &now_ms, NULL), AM_OK);
}

static char path[256];

static am_db *open_file(am_time grace_ms)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = path;
    cfg.clock = test_clock;
    cfg.forget_grace_ms = grace_ms;
    am_db *db = NULL;
    char *err = NULL;
    int rc = am_open(&cfg, &db, &err);
    if (rc) fprintf(stderr, "open: %s\n", err ? err : "?");
    CHECK_EQ_INT(rc, AM_OK);
    am_free(err);
    return db;
}

static void store_remove(void)
{
    char p[300];
    unlink(path);
    snprintf(p, sizeof p, "%s-wal", path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", path);
    unlink(p);
}

/* rows of the audit log with that op (raw read) */
static int audit_rows(const char *op, const char *user)
{
    sqlite3 *s;
    sqlite3_stmt *st;
    int n = -1;
    if (sqlite3_open(path, &s) != SQLITE_OK) return -1;
    if (sqlite3_prepare_v2(s, "SELECT count(*) FROM audit_log WHERE op=? AND user_id=?", -1, &st,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, op, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, user, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(s);
    return n;
}

/* whether the file's bytes hold s */
static int file_holds(const char *s)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    static char buf[1 << 22];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    size_t k = strlen(s);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(buf + i, s, k) == 0) return 1;
    return 0;
}

static void test_token_verify(void)
{
    store_remove();
    set_now("2026-03-02T09:00:00+08:00");
    am_db *db = open_file(0);
    const char *users[] = {"alice", "用户甲"};
    char *tok[2] = {0}, *id[2] = {0};
    for (int i = 0; i < 2; i++) {
        am_token_spec spec = {users[i], i ? "助手" : "planner", i ? NULL : "finance", i};
        CHECK_EQ_INT(am_token_create(db, &spec, &tok[i], &id[i]), AM_OK);
        CHECK_EQ_INT(strlen(tok[i]), AM_TOKEN_LEN);
        CHECK(strncmp(tok[i], "amk_", 4) == 0);
    }
    CHECK(strcmp(tok[0], tok[1]) != 0);
    am_token_info info;
    CHECK_EQ_INT(am_token_verify(db, tok[0], &info), AM_OK);
    CHECK_EQ_STR(info.user_id, "alice");
    CHECK_EQ_STR(info.agent_id, "planner");
    CHECK_EQ_STR(info.role, "finance");
    CHECK_EQ_INT(info.admin, 0);
    CHECK_EQ_STR(info.id, id[0]);
    CHECK_EQ_INT(am_token_verify(db, tok[1], &info), AM_OK);
    CHECK_EQ_STR(info.user_id, "用户甲");
    CHECK_EQ_STR(info.agent_id, "助手");
    CHECK_EQ_STR(info.role, "");
    CHECK_EQ_INT(info.admin, 1);
    /* near misses */
    char bad[AM_TOKEN_LEN + 8];
    snprintf(bad, sizeof bad, "%s", tok[0]);
    bad[20] = bad[20] == 'A' ? 'B' : 'A';
    CHECK_EQ_INT(am_token_verify(db, bad, &info), AM_DENIED);
    CHECK_EQ_STR(info.user_id, "");
    snprintf(bad, sizeof bad, "%.*s", AM_TOKEN_LEN - 1, tok[0]);
    CHECK_EQ_INT(am_token_verify(db, bad, &info), AM_DENIED);
    snprintf(bad, sizeof bad, "%s=", tok[0]);
    CHECK_EQ_INT(am_token_verify(db, bad, &info), AM_DENIED);
    CHECK_EQ_INT(am_token_verify(db, "amk_", &info), AM_DENIED);
    CHECK_EQ_INT(am_token_verify(db, "", &info), AM_DENIED);
    CHECK_EQ_INT(am_token_verify(db, NULL, &info), AM_MISUSE);
    /* a bad spec: named field, nothing written */
    am_token_spec nouser = {NULL, NULL, NULL, 0}, badagent = {"alice", "a\nb", NULL, 0};
    char *t = NULL;
    CHECK_EQ_INT(am_token_create(db, &nouser, &t, NULL), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "user");
    CHECK_EQ_INT(am_token_create(db, &badagent, &t, NULL), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "agent");
    CHECK(t == NULL);
    /* list: both, never the token */
    am_token_info *list;
    size_t n;
    CHECK_EQ_INT(am_token_list(db, NULL, &list, &n), AM_OK);
    CHECK_EQ_INT(n, 2);
    am_free(list);
    CHECK_EQ_INT(am_token_list(db, "用户甲", &list, &n), AM_OK);
    CHECK_EQ_INT(n, 1);
    if (n == 1) CHECK_EQ_STR(list[0].id, id[1]);
    am_free(list);
    /* revoke: refused from then on, and says so */
    CHECK_EQ_INT(am_token_revoke(db, id[0]), AM_OK);
    CHECK_EQ_INT(am_token_verify(db, tok[0], &info), AM_DENIED);
    CHECK_CONTAINS(am_errmsg(db), "revoked");
    CHECK(info.revoked_at != AM_TIME_NONE);
    CHECK_EQ_INT(am_token_revoke(db, id[0]), AM_NOTFOUND);
    CHECK_EQ_INT(am_token_revoke(db, "01NOSUCHTOKEN0000000000000"), AM_NOTFOUND);
    CHECK_EQ_INT(am_token_verify(db, tok[1], &info), AM_OK);
    /* the denial audit */
    CHECK_EQ_INT(am_security_denied(db, "alice", "用户甲", "POST /v1/recall"), AM_OK);
    CHECK_EQ_INT(am_security_denied(db, "alice", "bad\nid", "POST /v1/recall"), AM_OK);
    am_close(db);
    CHECK_EQ_INT(audit_rows("token.create", "alice"), 1);
    CHECK_EQ_INT(audit_rows("token.create", "用户甲"), 1);
    CHECK_EQ_INT(audit_rows("token.revoke", "alice"), 1);
    CHECK_EQ_INT(audit_rows("security.denied", "alice"), 2);
    CHECK_EQ_INT(audit_rows("security.denied", "用户甲"), 0);
    /* only hashes in the file */
    CHECK(!file_holds(tok[0] + 4));
    CHECK(!file_holds(tok[1] + 4));
    for (int i = 0; i < 2; i++) {
        am_free(tok[i]);
        am_free(id[i]);
    }
    store_remove();
}

/* a user forget deletes the user's tokens: at the purge (a grace period
 * keeps them until then, restore needs them), other users' stay */
static void test_token_forget(void)
{
    store_remove();
    set_now("2026-03-02T09:00:00+08:00");
    am_db *db = open_file(3600 * 1000);
    const char *users[] = {"bob", "用户乙"};
    char *tok[2] = {0};
    for (int i = 0; i < 2; i++) {
        am_token_spec spec = {users[i], NULL, NULL, 0};
        CHECK_EQ_INT(am_token_create(db, &spec, &tok[i], NULL), AM_OK);
        am_event ev = {0};
        ev.user_id = users[i];
        ev.text = i ? "以后周报都按三段写" : "From now on, always send reports as PDF";
        CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_OK);
    }
    am_token_info info;
    CHECK_EQ_INT(am_forget(db, "用户乙", AM_FORGET_USER, NULL, NULL), AM_OK);
    CHECK_EQ_INT(am_token_verify(db, tok[1], &info), AM_OK); /* held: restorable */
    am_close(db);
    now_ms += 2 * 3600 * 1000; /* past the grace period: the next open purges */
    db = open_file(0);
    CHECK_EQ_INT(am_token_verify(db, tok[1], &info), AM_DENIED);
    CHECK_EQ_INT(am_token_verify(db, tok[0], &info), AM_OK);
    am_token_info *list;
    size_t n;
    CHECK_EQ_INT(am_token_list(db, "用户乙", &list, &n), AM_OK);
    CHECK_EQ_INT(n, 0);
    am_free(list);
    CHECK_EQ_INT(am_forget(db, "bob", AM_FORGET_USER, NULL, NULL), AM_OK); /* at once */
    CHECK_EQ_INT(am_token_verify(db, tok[0], &info), AM_DENIED);
    am_close(db);
    for (int i = 0; i < 2; i++) am_free(tok[i]);
    store_remove();
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_tokens_%d.db", (int)getpid());
    RUN(test_token_verify);
    RUN(test_token_forget);
    TEST_MAIN_END();
}
