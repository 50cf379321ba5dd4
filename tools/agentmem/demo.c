/* SPDX-License-Identifier: Apache-2.0 */
/*
 * demo.c -- `agentmem demo`: the weekly-report example (a report written
 * every week, a one-off format for one week), replayed
 * in Chinese and in English on an in-memory store, printing what the agent
 * would be given at each turn.  A new week is a new round of the task
 * (domain/round.c): the week's one-off and stage do not carry over, and
 * a delivered report starts over when the next week's notes come in.
 */
#include <stdio.h>
#include <string.h>

#include "agentmem.h"
#include "cli.h"
#include "plural.h"

typedef struct step {
    const char *at;      /* ISO time of the turn */
    const char *session;
    const char *text;
    int recall;          /* 1: a recall (the user's turn), 0: an event */
} step;

static const step zh[] = {
    {"2026-03-02T09:00:00+08:00", "s1", "以后周报都按已完成、进行中、下周计划三段写，结论放最前面", 0},
    {"2026-03-03T10:00:00+08:00", "s1", "以后有数据一次性给全，别一条条问我", 0},
    {"2026-03-04T18:00:00+08:00", "s2", "本周完成了供应商比价，报价单在 https://example.com/quotes.xlsx", 0},
    {"2026-03-06T16:00:00+08:00", "s3", "帮我写这周的周报", 1},
    {"2026-03-12T16:05:00+08:00", "s4", "这次用要点式就行", 0},
    {"2026-03-12T17:30:00+08:00", "s4", "草稿写了一半，已完成部分写好了", 0},
    {"2026-03-15T09:30:00+08:00", "s5", "接着把周报弄完", 1},
    {"2026-03-15T09:31:00+08:00", "s5", "谢谢！", 1},
    {"2026-03-20T16:00:00+08:00", "s6", "帮我写这周的周报", 1},
    {"2026-03-20T17:30:00+08:00", "s6", "周报发出去了", 0},
    {"2026-03-24T10:00:00+08:00", "s7", "和客户A的合同签了", 0},
    {"2026-03-27T16:00:00+08:00", "s8", "帮我写这周的周报", 1},
};

static const step en[] = {
    {"2026-03-02T09:00:00+00:00", "s1", "From now on, always write the weekly report in three sections: done, in progress, next week. Put conclusions first.", 0},
    {"2026-03-03T10:00:00+00:00", "s1", "From now on give me all the data in one go, don't ask me piecemeal.", 0},
    {"2026-03-04T18:00:00+00:00", "s2", "Finished the vendor price comparison this week, quotes are in quotes.xlsx", 0},
    {"2026-03-06T16:00:00+00:00", "s3", "Help me write this week's weekly report", 1},
    {"2026-03-12T16:05:00+00:00", "s4", "Just this once, use bullet points", 0},
    {"2026-03-12T17:30:00+00:00", "s4", "The draft is half done, the done section is written", 0},
    {"2026-03-15T09:30:00+00:00", "s5", "Let's finish the weekly report", 1},
    {"2026-03-15T09:31:00+00:00", "s5", "thanks!", 1},
    {"2026-03-20T16:00:00+00:00", "s6", "Help me write this week's weekly report", 1},
    {"2026-03-20T17:30:00+00:00", "s6", "I've sent the weekly report", 0},
    {"2026-03-24T10:00:00+00:00", "s7", "Signed the contract with client A", 0},
    {"2026-03-27T16:00:00+00:00", "s8", "Help me write this week's weekly report", 1},
};

static am_time demo_now;
static am_time demo_clock(void *ctx)
{
    (void)ctx;
    return demo_now;
}

static int replay(const char *title, const step *steps, size_t n, int json)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.process_tuning = AM_PROCESS_ALL; /* a program of its own: the process is ours */
    cfg.path = ":memory:";
    cfg.clock = demo_clock;
    am_db *db;
    char *err;
    int rc = am_open(&cfg, &db, &err);
    if (rc) {
        fprintf(stderr, "demo: %s\n", err ? err : am_errstr(rc));
        am_free(err);
        return 1;
    }
    if (!json) printf("=== %s ===\n", title);
    for (size_t i = 0; i < n && rc == AM_OK; i++) {
        const step *s = &steps[i];
        am_time_parse(s->at, &demo_now, NULL);
        if (!s->recall) {
            am_event ev;
            memset(&ev, 0, sizeof ev);
            ev.user_id = "demo-user";
            ev.session_id = s->session;
            ev.task_id = "weekly-report";
            ev.text = s->text;
            ev.occurred_at = s->at;
            am_add_info info;
            rc = am_add_event(db, &ev, &info);
            if (rc) break;
            if (!json)
                printf("\n%s  user: %s\n    -> %d new %s, %d updated%s%s\n", s->at, s->text,
                       info.memories_created, am_plural(info.memories_created, "memory", "memories"),
                       info.memories_updated,
                       info.one_off ? ", one-off (task state only)" : "",
                       info.task_changed ? ", task state changed" : "");
            am_task *t;
            if (!json && info.task_changed && am_task_get(db, "demo-user", "weekly-report", &t) == AM_OK) {
                printf("    task: round %d, stage %s, status %s\n", t->round, t->stage ? t->stage : "-",
                       t->status);
                am_task_free(t);
            }
            continue;
        }
        am_query q;
        memset(&q, 0, sizeof q);
        q.user_id = "demo-user";
        q.session_id = s->session;
        q.text = s->text;
        am_recall_result *r;
        rc = am_recall(db, &q, &r);
        if (rc) break;
        if (json) {
            json_t *result = am_shape_parsed(r->json);
            if (am_cli_json_print(result ? json_pack("{s:s, s:s, s:s, s:o}", "lang", title, "at",
                                                     s->at, "turn", s->text, "result", result)
                                         : NULL)) {
                am_recall_free(r);
                am_close(db);
                return 1;
            }
        } else {
            printf("\n%s  user: %s\n", s->at, s->text);
            if (!r->need_memory) printf("    (router: no memory needed)\n");
            else printf("  agent is given (%d tokens):\n%s", r->block_tokens, r->block);
        }
        am_recall_free(r);
    }
    if (rc) fprintf(stderr, "demo: %s (%s)\n", am_errmsg(db), am_errstr(rc));
    am_close(db);
    if (!json) printf("\n");
    return rc ? 1 : 0;
}

int am_cli_demo(int argc, char **argv)
{
    int json = argc > 1 && strcmp(argv[1], "--json") == 0;
    int rc = replay("zh", zh, sizeof zh / sizeof *zh, json);
    if (!rc) rc = replay("en", en, sizeof en / sizeof *en, json);
    return rc;
}
