/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_maintain.c -- the maintenance pass (am_maintain, docs/LIFECYCLE.md)
 * through the public API: its bounds (changes per transaction, steps, the
 * report), its arguments, and its resumability -- a pass stopped after k
 * steps, the handle closed as a crash would leave it, then run again on a
 * new handle, ends in the same state as one uninterrupted pass.
 */
#include "test.h"
#include "api_util.h"
#include <unistd.h>

#include <sqlite3.h>
#include <stdlib.h>

/* Users u0..u5: three items each said in January (archived in May,
 * candidates in July); u1 and u3 say one again in May (a duplicate of
 * the archived one: consolidated). */
static void fill(am_db *db)
{
    static const char *const texts[] = {
        "I prefer green tea in the afternoon.",
        "Please always book me a window seat on flights.",
        "I am allergic to peanuts.",
    };
    char user[8];
    for (int u = 0; u < 6; u++) {
        snprintf(user, sizeof user, "u%d", u);
        for (int i = 0; i < 3; i++) {
            char at[32];
            snprintf(at, sizeof at, "2025-01-06T10:0%d:00Z", i);
            add(db, user, "s1", NULL, at, texts[i]);
        }
    }
}

/* Every version of every user as sorted lines: text, status, valid and
 * system times (ids differ from store to store) -- the state to compare. */
static char *state(am_db *db)
{
    size_t cap = 1 << 16, len = 0, nl = 0;
    char *out = calloc(1, cap), **lines = calloc(4096, sizeof *lines);
    CHECK(out && lines);
    for (int u = 0; u < 6; u++) {
        char user[8];
        snprintf(user, sizeof user, "u%d", u);
        am_memory_list *l = NULL;
        CHECK_EQ_INT(am_memories(db, user, AM_LIST_ALL, NULL, &l), AM_OK);
        for (size_t i = 0; l && i < l->n && nl < 4096; i++) {
            const am_memory *m = &l->items[i];
            char *line = malloc(512);
            CHECK(line != NULL);
            snprintf(line, 512, "%s|%s|%s|%lld|%lld|%lld|%lld|%.2f\n", user, m->text, m->status,
                     (long long)m->valid_from, (long long)m->valid_to, (long long)m->recorded_at,
                     (long long)m->superseded_at, m->confidence);
            lines[nl++] = line;
        }
        am_memory_list_free(l);
    }
    for (size_t i = 0; i < nl; i++)
        for (size_t j = i + 1; j < nl; j++)
            if (strcmp(lines[j], lines[i]) < 0) {
                char *t = lines[i];
                lines[i] = lines[j];
                lines[j] = t;
            }
    for (size_t i = 0; i < nl; i++) {
        size_t k = strlen(lines[i]);
        if (len + k + 1 < cap) {
            memcpy(out + len, lines[i], k + 1);
            len += k;
        }
        free(lines[i]);
    }
    free(lines);
    return out;
}

static char path[256];

static void store_remove(void)
{
    static const char *const ext[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char p[300];
        snprintf(p, sizeof p, "%s%s", path, ext[i]);
        unlink(p);
    }
}

static am_db *open_file(int fresh)
{
    if (fresh) store_remove();
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = path;
    cfg.clock = test_clock;
    return open_checked(&cfg);
}

/* May: archived; then u1 and u3 say one again; July: candidates.  With
 * opt's bounds, each pass run to its end (a new handle every `reopen`
 * steps: what a crash leaves is what a closed handle leaves, the
 * committed steps). */
static char *scenario(const am_maintain_options *bounds, long *steps_out, am_maintain_report *sum)
{
    am_db *db = open_file(1);
    fill(db);
    memset(sum, 0, sizeof *sum);
    long steps = 0;
    static const char *const passes[] = {"2025-05-10T03:00:00Z", "2025-05-13T03:00:00Z",
                                         "2025-07-01T03:00:00Z", "2025-08-10T03:00:00Z"};
    for (int p = 0; p < 4; p++) {
        if (p == 1) {
            add(db, "u1", "s2", NULL, "2025-05-12T10:00:00Z", "I am allergic to peanuts.");
            add(db, "u3", "s2", NULL, "2025-05-12T10:00:00Z", "I am allergic to peanuts.");
        }
        set_now(passes[p]);
        am_maintain_report r;
        int guard = 0;
        do {
            CHECK_EQ_INT(am_maintain(db, bounds, &r), AM_OK);
            if (bounds && bounds->max_steps) CHECK(r.steps <= bounds->max_steps);
            steps += r.steps;
            sum->candidate += r.candidate;
            sum->invalidated += r.invalidated;
            sum->archived += r.archived;
            sum->consolidated += r.consolidated;
            if (!r.finished) { /* stopped: "crash" -- a new handle goes on */
                am_close(db);
                db = open_file(0);
            }
        } while (!r.finished && ++guard < 10000);
        CHECK(r.finished);
    }
    char *s = state(db);
    am_close(db);
    *steps_out = steps;
    return s;
}

static void test_resumable(void)
{
    long whole_steps, cut_steps;
    am_maintain_report whole, cut;
    char *a = scenario(NULL, &whole_steps, &whole);
    /* what the pass did, so the comparison below compares something */
    CHECK_EQ_INT((int)whole.archived, 18);
    CHECK_EQ_INT((int)whole.consolidated, 2);
    CHECK(whole.candidate >= 12);
    am_maintain_options cut_opt = {NULL, 1, 1, 0, NULL, NULL};
    char *b = scenario(&cut_opt, &cut_steps, &cut);
    CHECK_EQ_STR(a, b);
    CHECK_EQ_INT((int)cut.archived, (int)whole.archived);
    CHECK_EQ_INT((int)cut.candidate, (int)whole.candidate);
    CHECK_EQ_INT((int)cut.consolidated, (int)whole.consolidated);
    /* one change per transaction: more steps than changes */
    CHECK(cut_steps >= cut.archived + cut.candidate + cut.consolidated + cut.invalidated);
    CHECK(cut_steps > whole_steps);
    free(a);
    free(b);
    store_remove();
}

static void test_bounds_and_arguments(void)
{
    am_db *db = open_mem();
    fill(db);
    set_now("2025-05-10T03:00:00Z");
    am_maintain_report r;
    am_maintain_options o = {NULL, 2, 1, 0, NULL, NULL};
    /* one step, at most two changes in it */
    CHECK_EQ_INT(am_maintain(db, &o, &r), AM_OK);
    CHECK_EQ_INT((int)r.steps, 1);
    CHECK_EQ_INT(r.finished, 0);
    CHECK(r.archived <= 2);
    /* one user, to its end */
    am_maintain_options one = {"u5", 0, 0, 0, NULL, NULL};
    CHECK_EQ_INT(am_maintain(db, &one, &r), AM_OK);
    CHECK_EQ_INT(r.finished, 1);
    CHECK_EQ_INT((int)r.users, 1);
    CHECK_EQ_INT((int)r.archived, 3);
    CHECK_EQ_INT(am_maintain(db, &one, &r), AM_OK);
    CHECK_EQ_INT((int)r.archived, 0); /* nothing twice */
    am_maintain_options bad = {NULL, -1, 0, 0, NULL, NULL};
    CHECK_EQ_INT(am_maintain(db, &bad, &r), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "step_rows");
    am_maintain_options neg = {NULL, 0, -5, 0, NULL, NULL};
    CHECK_EQ_INT(am_maintain(db, &neg, &r), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(db), "max_steps");
    am_maintain_options nobody = {"nobody", 0, 0, 0, NULL, NULL};
    CHECK_EQ_INT(am_maintain(db, &nobody, &r), AM_NOTFOUND);
    am_maintain_options badid = {"a\nb", 0, 0, 0, NULL, NULL};
    CHECK_EQ_INT(am_maintain(db, &badid, &r), AM_INVALID);
    CHECK_EQ_INT(am_maintain(NULL, NULL, NULL), AM_MISUSE);
    /* the rest of the pass, from the cursor */
    CHECK_EQ_INT(am_maintain(db, NULL, &r), AM_OK);
    CHECK_EQ_INT(r.finished, 1);
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories(db, "u0", AM_LIST_ACTIVE, NULL, &l), AM_OK);
    CHECK_EQ_INT((int)l->n, 0); /* archived: out of the current listing */
    am_memory_list_free(l);
    am_close(db);
}

/* rows of the store's own values (meta, records of user "") whose value
 * holds needle (a raw connection) */
static long long meta_holding(const char *needle)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long long n = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM meta WHERE instr(value, ?1) > 0) +"
                               " (SELECT count(*) FROM records WHERE user_id = '' AND instr(value, ?1) > 0)",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, needle, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

/* The cursor names a user; forgetting that user takes the name away. */
static void test_forget_cursor(void)
{
    am_db *db = open_file(1);
    fill(db);
    set_now("2025-05-10T03:00:00Z");
    am_maintain_options o = {NULL, 1, 1, 0, NULL, NULL};
    am_maintain_report r;
    CHECK_EQ_INT(am_maintain(db, &o, &r), AM_OK);
    CHECK_EQ_INT(r.finished, 0);
    CHECK_EQ_INT((int)meta_holding("u0"), 1); /* the pass stands in u0 */
    am_forget_info info;
    memset(&info, 0, sizeof info);
    CHECK_EQ_INT(am_forget(db, "u0", AM_FORGET_USER, NULL, &info), AM_OK);
    CHECK_EQ_INT((int)meta_holding("u0"), 0);
    CHECK_EQ_INT(am_maintain(db, NULL, &r), AM_OK);
    CHECK_EQ_INT(r.finished, 1);
    CHECK_EQ_INT((int)r.users, 5);
    am_close(db);
    store_remove();
}

/* The progress callback: a pass over every user says (0, 6) first, then
 * each user done of 6; a pass of one user counts its steps. */
typedef struct seen {
    size_t calls, first_done, first_total, last_done, last_total;
    int backwards;
} seen;
static void on_progress(void *ctx, size_t done, size_t total)
{
    seen *s = ctx;
    if (s->calls && done < s->last_done) s->backwards = 1;
    if (!s->calls) {
        s->first_done = done;
        s->first_total = total;
    }
    s->last_done = done;
    s->last_total = total;
    s->calls++;
}

static void test_progress(void)
{
    am_db *db = open_mem();
    fill(db);
    am_maintain_report r;
    seen all = {0};
    am_maintain_options o = {NULL, 0, 0, 0, on_progress, &all};
    CHECK_EQ_INT(am_maintain(db, &o, &r), AM_OK);
    CHECK_EQ_INT(r.finished, 1);
    CHECK_EQ_INT((int)all.calls, 7); /* the start and each of 6 users */
    CHECK_EQ_INT((int)all.first_done, 0);
    CHECK_EQ_INT((int)all.first_total, 6);
    CHECK_EQ_INT((int)all.last_done, 6);
    CHECK_EQ_INT((int)all.last_total, 6);
    CHECK_EQ_INT(all.backwards, 0);
    seen one = {0};
    am_maintain_options o1 = {"u2", 0, 0, 0, on_progress, &one};
    CHECK_EQ_INT(am_maintain(db, &o1, &r), AM_OK);
    CHECK(one.calls >= 2);
    CHECK_EQ_INT((int)one.last_done, (int)one.last_total);
    CHECK_EQ_INT(one.backwards, 0);
    am_close(db);
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/am_test_maintain_%d.db", (int)getpid());
    RUN(test_bounds_and_arguments);
    RUN(test_resumable);
    RUN(test_forget_cursor);
    RUN(test_progress);
    TEST_MAIN_END();
}
