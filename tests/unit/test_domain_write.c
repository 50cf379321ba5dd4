/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_domain_write.c -- the caller's domain against the text on write
 * (api/write.c statement_scope): a statement whose text clearly
 * belongs to another known domain is stored under the text's domain, the
 * mismatch logged (a warning naming both) and audited; a text that agrees,
 * or names no domain, keeps the caller's.  Both languages, through the
 * public API on a real store.
 */
#include "test.h"
#include "api_util.h"

typedef struct logs {
    char text[4096];
    size_t len;
} logs;

static void on_log(void *ctx, int level, const char *msg)
{
    logs *l = ctx;
    if (level != AM_LOG_WARN) return;
    int w = snprintf(l->text + l->len, sizeof l->text - l->len, "%s\n", msg);
    if (w > 0 && (size_t)w < sizeof l->text - l->len) l->len += (size_t)w;
}

static am_db *open_logged(logs *l)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = ":memory:";
    cfg.clock = test_clock;
    cfg.log = on_log;
    cfg.log_ctx = l;
    am_db *db = NULL;
    char *err = NULL;
    CHECK_EQ_INT(am_open(&cfg, &db, &err), AM_OK);
    am_free(err);
    return db;
}

static void add_in(am_db *db, const char *domain, const char *at, const char *text)
{
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = "u";
    ev.session_id = "s";
    ev.domain = domain;
    ev.occurred_at = at;
    ev.text = text;
    set_now(at);
    CHECK_EQ_INT(am_add_event(db, &ev, NULL), AM_OK);
}

/* The scope of the user's active item whose text holds needle ("" when
 * there is none). */
static const char *scope_of(am_db *db, const char *needle)
{
    static char scope[64];
    scope[0] = '\0';
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories(db, "u", 0, NULL, &l), AM_OK);
    for (size_t i = 0; l && i < l->n; i++)
        if (l->items[i].text && strstr(l->items[i].text, needle))
            snprintf(scope, sizeof scope, "%s", l->items[i].scope ? l->items[i].scope : "");
    am_memory_list_free(l);
    return scope;
}

static void domain_write(const char *wrong, const char *text, const char *needle,
                         const char *want, const char *agree, const char *agree_needle,
                         const char *plain, const char *plain_needle)
{
    logs l = {{0}, 0};
    am_db *db = open_logged(&l);
    add_in(db, wrong, "2026-06-01T09:00:00+08:00", text);
    CHECK_EQ_STR(scope_of(db, needle), want);
    CHECK(strstr(l.text, "disagrees with the text") != NULL);
    CHECK(strstr(l.text, wrong) != NULL);
    size_t before = l.len;
    add_in(db, wrong, "2026-06-08T09:00:00+08:00", agree);
    add_in(db, wrong, "2026-06-15T09:00:00+08:00", plain);
    char mine[64];
    snprintf(mine, sizeof mine, "domain:%s", wrong);
    CHECK_EQ_STR(scope_of(db, agree_needle), mine);
    CHECK_EQ_STR(scope_of(db, plain_needle), mine);
    CHECK_EQ_INT(l.len, before);
    char *json = NULL;
    CHECK_EQ_INT(am_export(db, "u", &json), AM_OK);
    CHECK(json && strstr(json, "event.domain_mismatch") != NULL);
    am_free(json);
    am_close(db);
}

static void test_domain_write_zh(void)
{
    domain_write("hr", "以后报销都要附上发票原件。", "发票原件", "domain:finance",
                 "以后面试都安排在下午。", "面试", "以后周一上午不要给我排事情。", "周一上午");
}

static void test_domain_write_en(void)
{
    domain_write("procurement", "From now on, always deploy to the staging server first.",
                 "staging server", "domain:it", "From now on, get three quotations from every vendor.",
                 "three quotations", "From now on, keep my replies short.", "replies short");
}

/* Without a domain a statement applies everywhere, whatever it names. */
static void test_no_domain(void)
{
    am_db *db = open_mem();
    add(db, "u", "s", NULL, "2026-06-01T09:00:00Z",
        "From now on, every expense claim must include the original receipt.");
    CHECK_EQ_STR(scope_of(db, "original receipt"), "global");
    am_close(db);
}

int main(void)
{
    RUN(test_no_domain);
    RUN(test_domain_write_zh);
    RUN(test_domain_write_en);
    TEST_MAIN_END();
}
