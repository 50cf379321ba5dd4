/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log.c -- the engine's structured log records (am_config.log_record,
 * log_content; docs/SERVER.md "Logs") through the public API: a write's
 * statements (rule or model, kind, score, outcome) and the write, a
 * recall (route, reason, candidates and time per stage, what was kept),
 * feedback and forgets; in Chinese and English.  The user's words appear
 * only with log_content; without a record hook the same records reach the
 * text hook as lines.
 */
#include <stdarg.h>

#include "test.h"
#include "api_util.h"

typedef struct sink {
    char text[65536]; /* every record, one line each: "event k=v k=v" */
    size_t len;
    int records;
} sink;

static void put(sink *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sink *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(k->text + k->len, sizeof k->text - k->len, fmt, ap);
    va_end(ap);
    if (w > 0 && (size_t)w < sizeof k->text - k->len) k->len += (size_t)w;
}

static void on_record(void *ctx, const am_log_record *r)
{
    sink *k = ctx;
    k->records++;
    put(k, "%s", r->event);
    CHECK(r->level >= AM_LOG_ERROR && r->level <= AM_LOG_DEBUG);
    for (size_t i = 0; i < r->n_fields; i++) {
        const am_log_field *f = &r->fields[i];
        switch (f->type) {
        case AM_LOG_INT: put(k, " %s=%lld", f->key, (long long)f->i); break;
        case AM_LOG_REAL: put(k, " %s=%g", f->key, f->d); break;
        case AM_LOG_TEXT: put(k, " %s=<%s>", f->key, f->s); break;
        default: put(k, " %s=%s", f->key, f->s ? f->s : "-"); break;
        }
    }
    put(k, "\n");
}

static void on_text(void *ctx, int level, const char *msg)
{
    (void)level;
    sink *k = ctx;
    put(k, "%s\n", msg);
}

static am_db *open_sink(sink *k, int records, int content)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = ":memory:";
    cfg.clock = test_clock;
    if (records) cfg.log_record = on_record;
    else cfg.log = on_text;
    cfg.log_ctx = k;
    cfg.log_content = content;
    memset(k, 0, sizeof *k);
    (void)open_mem;
    return open_checked(&cfg);
}

/* The line of the first record of event that holds needle ("" if none). */
static const char *line_of(const sink *k, const char *event, const char *needle)
{
    static char line[4096];
    size_t el = strlen(event);
    for (const char *p = k->text; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n < sizeof line && strncmp(p, event, el) == 0 && p[el] == ' ') {
            memcpy(line, p, n);
            line[n] = '\0';
            if (strstr(line, needle)) return line;
        }
        p += n + (e ? 1 : 0);
    }
    return "";
}

static const char *const zh_rule = "以后周报都用三段式，先写结论";
static const char *const en_rule = "From now on, put the conclusion first in my weekly reports.";

static void write_and_recall(am_db *db, const char *lead, const char *query)
{
    am_add_info info = add(db, "u", "s", NULL, "2026-03-02T09:00:00+08:00", lead);
    CHECK_EQ_INT(info.memories_created, 1);
    add_as(db, "u", "agent", "s", NULL, "2026-03-02T09:05:00+08:00", "ok");
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = "u";
    q.text = query;
    am_recall_result *res = NULL;
    CHECK_EQ_INT(am_recall(db, &q, &res), AM_OK);
    CHECK(res && res->n_memories >= 1);
    am_recall_free(res);
}

static void check_decisions(const sink *k)
{
    /* the statement: who decided, its kind, score and outcome; by id */
    char x[4096];
    snprintf(x, sizeof x, "%s", line_of(k, "extract", "outcome=created"));
    CHECK_CONTAINS(x, "user=u ");
    CHECK_CONTAINS(x, " source=");
    CHECK_CONTAINS(x, " rule=");
    CHECK_CONTAINS(x, " kind=");
    CHECK_CONTAINS(x, " score=");
    CHECK_CONTAINS(x, " key=k"); /* the key's opaque id, never its words */
    CHECK_CONTAINS(x, " memory_id=");
    const char *w = line_of(k, "write", "memories_created=1");
    CHECK_CONTAINS(w, " event_id=");
    CHECK_CONTAINS(w, " source=user");
    CHECK_CONTAINS(w, " statements=1");
    CHECK_CONTAINS(w, " ms=");
    /* an agent's acknowledgement is a write without statements */
    CHECK(line_of(k, "write", "statements=0")[0]);
    const char *r = line_of(k, "recall", "route=");
    CHECK_CONTAINS(r, " reason=");
    CHECK_CONTAINS(r, " need_memory=1");
    CHECK_CONTAINS(r, " filter_items=");
    CHECK_CONTAINS(r, " search_events=");
    CHECK_CONTAINS(r, " rank_items=1");
    CHECK_CONTAINS(r, " render_ms=");
    CHECK_CONTAINS(r, " memories=1");
    CHECK_CONTAINS(r, " top_memory_scores=0.");
    CHECK_CONTAINS(r, " total_ms=");
    /* the kept memory is named by the id the extraction gave it */
    const char *mid = strstr(x, " memory_id=");
    char id[32] = "";
    if (mid) sscanf(mid, " memory_id=%26s", id);
    CHECK(id[0]);
    CHECK_CONTAINS(line_of(k, "recall", "memory_ids="), id);
}

static void test_records_zh(void)
{
    sink k;
    am_db *db = open_sink(&k, 1, 0);
    write_and_recall(db, zh_rule, "周报怎么写？");
    check_decisions(&k);
    /* no word of the user's in any record */
    CHECK(!strstr(k.text, "周报"));
    CHECK(!strstr(k.text, "三段式"));
    CHECK(!strstr(k.text, "<"));
    am_close(db);
}

static void test_records_en(void)
{
    sink k;
    am_db *db = open_sink(&k, 1, 0);
    write_and_recall(db, en_rule, "how should I write my weekly report?");
    check_decisions(&k);
    CHECK(!strstr(k.text, "conclusion"));
    CHECK(!strstr(k.text, "weekly"));
    am_close(db);
}

/* log_content: the sentence, the event's text and the query as fields */
static void test_content(void)
{
    sink k;
    am_db *db = open_sink(&k, 1, 1);
    write_and_recall(db, zh_rule, "周报怎么写？");
    CHECK_CONTAINS(line_of(&k, "extract", "outcome=created"), " text=<以后周报都用三段式");
    CHECK_CONTAINS(line_of(&k, "write", "memories_created=1"), zh_rule);
    CHECK_CONTAINS(line_of(&k, "recall", "route="), " query=<周报怎么写？>");
    am_close(db);
    db = open_sink(&k, 1, 1);
    write_and_recall(db, en_rule, "how should I write my weekly report?");
    CHECK_CONTAINS(line_of(&k, "extract", "outcome=created"), "text=<From now on");
    CHECK_CONTAINS(line_of(&k, "recall", "route="), "query=<how should I write");
    am_close(db);
}

/* supersede, one-off, invalidate, feedback and forget: each outcome named */
static void test_outcomes(void)
{
    sink k;
    am_db *db = open_sink(&k, 1, 0);
    add(db, "u", "s", NULL, "2026-03-02T09:00:00+08:00", "I usually keep my notes in Notion");
    add(db, "u", "s", NULL, "2026-03-02T09:01:00+08:00", "I switched to Obsidian, not Notion anymore");
    CHECK(line_of(&k, "extract", "outcome=superseded")[0]);
    add(db, "u", "s", "t1", "2026-03-02T09:02:00+08:00", "这次报告先用表格");
    CHECK(line_of(&k, "extract", "outcome=one_off")[0]);
    CHECK(line_of(&k, "write", "one_off=1")[0]);
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories(db, "u", AM_LIST_ACTIVE, NULL, &l), AM_OK);
    CHECK(l && l->n >= 1);
    if (l && l->n) {
        char id[32];
        snprintf(id, sizeof id, "%s", l->items[0].lineage_id);
        CHECK_EQ_INT(am_feedback(db, "u", id, AM_FEEDBACK_REJECT, NULL), AM_OK);
        const char *f = line_of(&k, "feedback", id);
        CHECK_CONTAINS(f, " action=reject");
        CHECK_CONTAINS(f, " kind=");
        CHECK(!strstr(f, "kind=-"));
    }
    am_memory_list_free(l);
    add(db, "u", "s", NULL, "2026-03-02T09:03:00+08:00", "以后每周五提醒我交周报");
    add(db, "u", "s", NULL, "2026-03-02T09:04:00+08:00", "以后不用提醒我交周报了");
    const char *inv = line_of(&k, "extract", "outcome=invalidated");
    CHECK(inv[0]);
    CHECK(!strstr(inv, "kind=-")); /* the withdrawn item's kind */
    am_forget_info fi;
    CHECK_EQ_INT(am_forget(db, "u", AM_FORGET_USER, NULL, &fi), AM_OK);
    CHECK_CONTAINS(line_of(&k, "forget", "level=user"), " memories=");
    CHECK(!strstr(k.text, "Obsidian") && !strstr(k.text, "表格") && !strstr(k.text, "提醒"));
    am_close(db);
}

/* no record hook: the same records as lines through the text hook */
static void test_text_hook(void)
{
    sink k;
    am_db *db = open_sink(&k, 0, 0);
    write_and_recall(db, en_rule, "how should I write my weekly report?");
    CHECK(line_of(&k, "extract", "outcome=created")[0]);
    CHECK(line_of(&k, "recall", "route=")[0]);
    CHECK(!strstr(k.text, "weekly"));
    am_close(db);
}

int main(void)
{
    RUN(test_records_zh);
    RUN(test_records_en);
    RUN(test_content);
    RUN(test_outcomes);
    RUN(test_text_hook);
    TEST_MAIN_END();
}
