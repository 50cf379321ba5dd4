/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_store_conformance.c -- one store-level suite run against every
 * store: the embedded SQLite file always, and the
 * PostgreSQL databases named by $AM_PG_URL and $AM_PG_URL2 (two fresh
 * databases; tests/sh/store_conformance.sh starts a throwaway server and
 * sets them; without them only SQLite runs).
 *
 * The same seeded random sequence of operations -- events in English and
 * Chinese with their contexts, vectors, memory item versions, tasks,
 * audit rows, forgets of events and sessions, all through the store
 * interface, one transaction each -- is applied to each store, then each
 * store is read back into a transcript: per user, the postings of every
 * term (rows by event id, column lengths, counts, frequencies, the
 * averages), recent events, item versions (current, all, as of several
 * times), vector hits and scores, tasks and their history, audit rows,
 * memory events.  The transcripts must be equal (rankings are computed
 * above the store from exactly these), and each read is checked for
 * isolation: no row of another user ever comes back.  Then a user is
 * forgotten and purged and every table of the store is scanned for its
 * id (forgetting reaches every table), and a bitemporal history is read
 * as of several times on each store.
 */
#include <libpq-fe.h>
#include <pthread.h>
#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

#include "domain/forget.h"
#include "store/store.h"
#include "test.h"
#include "text/analyze.h"

#include "plain_alloc.h"

static const am__allocator alloc = {plain_realloc, NULL};

#define N_USERS 5
#define N_STEPS 160
#define T0 1767225600000LL /* 2026-01-01 */
#define HOUR 3600000LL
#define DIM 8

static const char *const users[N_USERS] = {"alice", "bob", "张三", "u-3", "user 4"};
static const char *const words_en[] = {"coffee", "dentist", "appointment", "swimming",
                                       "lessons", "Berlin", "flight", "budget", "report",
                                       "meeting", "daughter", "piano"};
static const char *const words_zh[] = {"咖啡", "牙医", "预约", "游泳", "课程", "北京",
                                       "航班", "预算", "报告", "会议", "女儿", "钢琴"};
#define N_WORDS (sizeof words_en / sizeof *words_en)

typedef struct rng {
    uint64_t x;
} rng;
static uint32_t rnd(rng *r, uint32_t n)
{
    r->x ^= r->x << 13;
    r->x ^= r->x >> 7;
    r->x ^= r->x << 17;
    return (uint32_t)(r->x % n);
}

/* What a run wrote, per store (rids are the store's own). */
typedef struct ev {
    char id[16], user[32], session[8], text[256];
    int64_t rid;
    int live;
} ev;
typedef struct it {
    char id[16], lineage[16], user[32];
    int live;
} it;
typedef struct run {
    am__store *s;
    ev evs[N_STEPS + 8]; /* the random operations' and the grace cycle's */
    size_t n_ev;
    it items[N_STEPS];
    size_t n_it;
    am__buf log; /* what the operations answered */
} run;

static am__store *open_url(const char *url)
{
    am__store_opts o = {&alloc, 5000, 0, 0, 0, NULL, 0, 0};
    am__store *s = NULL;
    char err[512];
    int rc = am__store_open(url, &o, &s, err, sizeof err);
    if (rc) fprintf(stderr, "open %s: %s\n", url, err);
    CHECK_EQ_INT(rc, AM_OK);
    return s;
}

static void text_of(rng *r, int zh, char *out, size_t cap)
{
    size_t n = 3 + rnd(r, 4), at = 0;
    out[0] = 0;
    for (size_t i = 0; i < n; i++) {
        const char *w = zh ? words_zh[rnd(r, N_WORDS)] : words_en[rnd(r, N_WORDS)];
        at += (size_t)snprintf(out + at, cap - at, "%s%s", i && !zh ? " " : "", w);
        if (at >= cap) break;
    }
}

#define OK(x) CHECK_EQ_INT((x), AM_OK)

static ev *random_live(rng *r, run *u, const char *user)
{
    size_t k = 0;
    for (size_t i = 0; i < u->n_ev; i++) k += u->evs[i].live && strcmp(u->evs[i].user, user) == 0;
    if (!k) return NULL;
    size_t pick = rnd(r, (uint32_t)k);
    for (size_t i = 0; i < u->n_ev; i++)
        if (u->evs[i].live && strcmp(u->evs[i].user, user) == 0 && pick-- == 0) return &u->evs[i];
    return NULL;
}

/* The same sequence of operations on store u (seed fixed). */
static void apply_ops(run *u)
{
    am__store *s = u->s;
    rng r = {0x9e3779b97f4a7c15ULL};
    for (int step = 0; step < N_STEPS; step++) {
        am_time now = T0 + step * HOUR;
        const char *user = users[rnd(&r, N_USERS)];
        uint32_t op = rnd(&r, 100);
        OK(am__store_begin(s));
        OK(am__store_user_ensure(s, user, now));
        if (op < 55 || u->n_ev == 0) {
            ev *e = &u->evs[u->n_ev++];
            int zh = (int)rnd(&r, 2);
            snprintf(e->id, sizeof e->id, "E%05d", step);
            snprintf(e->user, sizeof e->user, "%s", user);
            snprintf(e->session, sizeof e->session, "s%u", rnd(&r, 3));
            text_of(&r, zh, e->text, sizeof e->text);
            /* the turn before in its session is its context, and it joins that turn's */
            ev *prev = NULL;
            for (size_t i = u->n_ev - 1; i-- > 0;)
                if (u->evs[i].live && strcmp(u->evs[i].user, user) == 0 &&
                    strcmp(u->evs[i].session, e->session) == 0) {
                    prev = &u->evs[i];
                    break;
                }
            am__event_row row;
            memset(&row, 0, sizeof row);
            row.id = e->id;
            row.user_id = user;
            row.session_id = e->session;
            row.source = "user";
            row.type = "message";
            row.content = e->text;
            row.lang = zh ? "zh" : "en";
            row.occurred_at = now;
            row.ingested_at = now;
            row.index_ctx = prev ? prev->text : NULL;
            OK(s->vt->events.event_put(s, &row));
            e->rid = row.rid;
            e->live = 1;
            if (prev) OK(am__store_event_ctx_append(s, user, prev->rid, e->text));
            am__entity_row en = {"date", "today", "2026-01-01", now, now + 86400000};
            if (rnd(&r, 3) == 0) OK(am__store_entity_put(s, user, row.rid, &en));
        } else if (op < 65) {
            ev *e = random_live(&r, u, user);
            float v[DIM];
            for (int i = 0; i < DIM; i++) v[i] = (float)rnd(&r, 2001) / 1000.0f - 1.0f;
            if (e) OK(s->vt->vectors.vec_put(s, user, e->rid, "test-emb", v, DIM));
        } else if (op < 80) {
            ev *src = random_live(&r, u, user);
            it *prev = NULL;
            uint32_t pick = rnd(&r, 3);
            for (size_t i = 0; i < u->n_it && pick != 0; i++)
                if (u->items[i].live && strcmp(u->items[i].user, user) == 0) prev = &u->items[i];
            it *x = &u->items[u->n_it++];
            snprintf(x->id, sizeof x->id, "V%05d", step);
            snprintf(x->lineage, sizeof x->lineage, "%s", prev ? prev->lineage : x->id);
            snprintf(x->user, sizeof x->user, "%s", user);
            x->live = 1;
            if (prev) { /* gone already when a forget took its last source */
                int rc = am__store_item_close(s, user, prev->id, now);
                CHECK(rc == AM_OK || rc == AM_NOTFOUND);
                am__buf_printf(&u->log, "close %s %d\n", prev->id, rc);
                prev->live = 0;
            }
            char text[256];
            text_of(&r, (int)rnd(&r, 2), text, sizeof text);
            const char *sources[1] = {src ? src->id : "none"};
            am__item_row row;
            memset(&row, 0, sizeof row);
            row.id = x->id;
            row.lineage_id = x->lineage;
            row.scope = "user";
            row.kind = "fact";
            row.key = "k";
            row.text = text;
            row.status = "active";
            row.confidence = 0.75;
            row.base_score = 1.0 / 3.0;
            row.half_life_days = 30;
            row.valid_from = now;
            row.valid_to = AM_TIME_NONE;
            row.recorded_at = now;
            row.superseded_at = AM_TIME_NONE;
            row.reinforced_at = AM_TIME_NONE;
            row.sources = sources;
            row.n_sources = src ? 1 : 0;
            OK(s->vt->items.item_insert(s, user, &row));
            if (src && rnd(&r, 2)) OK(am__store_item_reinforce(s, user, row.rid, src->id, now));
            OK(s->vt->items.item_heat(s, user, x->lineage, 1, 1, now));
        } else if (op < 85) {
            char tid[16];
            snprintf(tid, sizeof tid, "T%u", rnd(&r, 3));
            am__task_row t;
            memset(&t, 0, sizeof t);
            t.task_id = tid;
            t.name = "报告 report";
            static const char *const statuses[] = {"active", "paused", "postponed", "done",
                                                   "cancelled"};
            t.status = statuses[rnd(&r, 5)];
            t.stage = rnd(&r, 2) ? "draft" : NULL;
            t.created_at = t.updated_at = now;
            t.round = 1;
            t.round_at = t.round_from = AM_TIME_NONE;
            OK(s->vt->tasks.task_put(s, user, &t));
            am__task_change_row c = {now, tid, "status", NULL, "open", NULL};
            OK(am__store_task_change_add(s, user, &c));
        } else if (op < 90) {
            OK(am__store_audit(s, user, now, "test.op", "event", "x", "détail 细节"));
        } else {
            ev *e = random_live(&r, u, user);
            int session = op >= 95;
            long n_e = 0, n_i = 0, n_t = 0;
            if (e) {
                int rc = am__forget(s, user, session ? AM_FORGET_SESSION : AM_FORGET_EVENT,
                                    session ? e->session : e->id, now, &n_e, &n_i, &n_t);
                CHECK(rc == AM_OK || rc == AM_NOTFOUND);
                am__buf_printf(&u->log, "forget %s %d: %ld %ld %ld\n", e->id, rc, n_e, n_i, n_t);
                for (size_t i = 0; i < u->n_ev; i++)
                    if (strcmp(u->evs[i].user, user) == 0 &&
                        (session ? strcmp(u->evs[i].session, e->session) == 0 : &u->evs[i] == e))
                        u->evs[i].live = 0;
                am__arena ar;
                am__arena_init(&ar, &alloc);
                const char **ids;
                size_t n;
                OK(am__forget_touched(s, &ar, &ids, &n));
                for (size_t i = 0; i < n; i++) am__buf_printf(&u->log, " touched %s\n", ids[i]);
                am__arena_free(&ar);
            }
        }
        OK(am__store_commit(s));
    }
    /* a late link's merge: everything of the last user becomes the one before's */
    OK(am__store_begin(s));
    int mrc = s->vt->users.user_merge(s, users[N_USERS - 1], users[N_USERS - 2]);
    if (mrc) fprintf(stderr, "%s: merge: %s\n", s->vt->name, s->vt->errmsg(s));
    OK(mrc);
    OK(am__store_commit(s));
    for (size_t i = 0; i < u->n_ev; i++)
        if (strcmp(u->evs[i].user, users[N_USERS - 1]) == 0)
            snprintf(u->evs[i].user, sizeof u->evs[i].user, "%s", users[N_USERS - 2]);
    CHECK_EQ_INT(am__store_user_exists(s, users[N_USERS - 1]), 0);
}

/* ------------------------------------------------------------ the transcript */

typedef struct tx {
    am__buf b;
} tx;

static const char *id_of(run *u, int64_t rid)
{
    for (size_t i = 0; i < u->n_ev; i++)
        if (u->evs[i].rid == rid) return u->evs[i].id;
    return "?";
}

static int tok_term(void *ctx, int kind, const char *tok, size_t len, size_t start, size_t end)
{
    (void)kind;
    (void)start;
    (void)end;
    am__arena *ar = ((void **)ctx)[0];
    const char **terms = ((void **)ctx)[1];
    size_t *n = ((void **)ctx)[2];
    for (size_t i = 0; i < *n; i++)
        if (strlen(terms[i]) == len && memcmp(terms[i], tok, len) == 0) return 0;
    if (*n < 64) terms[(*n)++] = am__arena_strndup(ar, tok, len);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void read_back(run *u, const char *const *terms, size_t n_terms, am__buf *b)
{
    am__store *s = u->s;
    for (int k = 0; k < N_USERS; k++) {
        const char *user = users[k];
        am__arena ar;
        am__arena_init(&ar, &alloc);
        am__buf_printf(b, "user %s\n", user);
        double df[64], df2[64];
        int64_t n_rows = 0;
        OK(s->vt->postings.term_docs(s, user, terms, n_terms, df, &n_rows));
        am__buf_printf(b, " rows %lld\n", (long long)n_rows);
        for (int timed = 0; timed < 2; timed++) {
            am__hits h;
            am_time from = timed ? T0 + 40 * HOUR : AM_TIME_NONE;
            am_time to = timed ? T0 + 120 * HOUR : AM_TIME_NONE;
            OK(am__store_search_begin(s));
            int rc =
                s->vt->postings.postings(s, user, terms, n_terms, from, to, n_rows, &ar, &h, df2);
            OK(am__store_search_end(s, rc));
            if (rc) continue;
            for (size_t i = 0; i < n_terms; i++) {
                if (!timed) CHECK(df[i] == df2[i]); /* untimed: the whole history's */
                am__buf_printf(b, " df %s %g %g\n", terms[i], df[i], df2[i]);
            }
            if (h.n) am__buf_printf(b, " avg %.9f %.9f\n", h.avg[0], h.avg[1]);
            /* rows by event id; every one the user's */
            int64_t *rids = am__arena_alloc(&ar, (h.n + 1) * sizeof *rids);
            am__event_row *rows = am__arena_alloc(&ar, (h.n + 1) * sizeof *rows);
            unsigned char *found = am__arena_alloc(&ar, h.n + 1);
            for (size_t i = 0; i < h.n; i++) rids[i] = h.hit[i].rid;
            OK(s->vt->events.rows_get(s, user, rids, h.n, &ar, rows, found));
            const char **lines = am__arena_alloc(&ar, (h.n + 1) * sizeof *lines);
            for (size_t i = 0; i < h.n; i++) {
                CHECK(found[i]);
                if (found[i]) CHECK_EQ_STR(rows[i].user_id, user);
                am__buf l;
                am__buf_init(&l, &alloc);
                am__buf_printf(&l, "  hit%d %s len %g %g:", timed, id_of(u, h.hit[i].rid),
                               h.hit[i].len[0], h.hit[i].len[1]);
                for (uint32_t t = 0; t < h.hit[i].n_tf; t++) {
                    const am__hit_tf *x = &h.tf[h.hit[i].first + t];
                    if (t) CHECK(h.tf[h.hit[i].first + t - 1].term < x->term);
                    am__buf_printf(&l, " %s=%u/%u", terms[x->term], x->tf[0], x->tf[1]);
                }
                am__buf_addc(&l, '\n');
                lines[i] = am__arena_strndup(&ar, l.p, l.len);
                am__buf_free(&l);
            }
            qsort(lines, h.n, sizeof *lines, cmp_str);
            for (size_t i = 0; i < h.n; i++) am__buf_adds(b, lines[i]);
            am__hits_free(&h);
        }
        /* other users' rows are never found for this one */
        int64_t other[N_STEPS];
        size_t n_other = 0;
        for (size_t i = 0; i < u->n_ev; i++)
            if (strcmp(u->evs[i].user, user) != 0) other[n_other++] = u->evs[i].rid;
        am__event_row *orows = am__arena_alloc(&ar, (n_other + 1) * sizeof *orows);
        unsigned char *ofound = am__arena_alloc(&ar, n_other + 1);
        OK(s->vt->events.rows_get(s, user, other, n_other, &ar, orows, ofound));
        for (size_t i = 0; i < n_other; i++) CHECK(!ofound[i]);
        am__event_row *ev;
        size_t n;
        OK(am__store_events_recent(s, user, NULL, NULL, AM_TIME_NONE, 1000, &ar, &ev, &n));
        am__buf_adds(b, " recent");
        for (size_t i = 0; i < n; i++) {
            CHECK_EQ_STR(ev[i].user_id, user);
            am__buf_printf(b, " %s", ev[i].id);
        }
        am__buf_addc(b, '\n');
        /* the same events back from now three at a time (events_before) */
        {
            am_time at = AM_TIME_NONE;
            int64_t rid = 0;
            size_t seen = 0, got;
            am__buf_adds(b, " before");
            do {
                am__event_row *pg;
                OK(am__store_events_before(s, user, NULL, at, rid, AM_TIME_NONE, 3, &ar, &pg, &got));
                for (size_t i = 0; i < got; i++, seen++) {
                    CHECK(seen < n && strcmp(pg[i].id, ev[seen].id) == 0);
                    am__buf_printf(b, " %s", pg[i].id);
                    at = pg[i].occurred_at;
                    rid = pg[i].rid;
                }
            } while (got == 3);
            CHECK_EQ_INT((int)seen, (int)n);
            am__buf_addc(b, '\n');
        }
        static const struct { int which; am_time at; } lists[] = {
            {AM__ITEMS_CURRENT, T0 + 200 * HOUR}, {AM__ITEMS_ALL, 0},
            {AM__ITEMS_ASOF, T0 + 30 * HOUR},     {AM__ITEMS_ASOF, T0 + 90 * HOUR},
            {AM__ITEMS_CURRENT | AM__ITEMS_NO_SOURCES, T0 + 200 * HOUR},
        };
        for (size_t l = 0; l < sizeof lists / sizeof *lists; l++) {
            am__item_row *itm;
            OK(s->vt->items.items_list(s, user, lists[l].which, lists[l].at, &ar, &itm, &n));
            for (size_t i = 0; i < n; i++) {
                am__buf_printf(b, " item%zu %s %s %s %.17g %.17g %lld %lld %lld hits %ld src %ld:",
                               l, itm[i].id, itm[i].lineage_id, itm[i].text, itm[i].confidence,
                               itm[i].base_score, (long long)itm[i].valid_from,
                               (long long)itm[i].valid_to, (long long)itm[i].superseded_at,
                               itm[i].hits, itm[i].source_count);
                for (size_t j = 0; j < itm[i].n_sources; j++)
                    am__buf_printf(b, " %s", itm[i].sources[j]);
                am__buf_addc(b, '\n');
            }
        }
        float q[DIM] = {0.5f, -0.25f, 0.125f, 1.0f, -1.0f, 0.0f, 0.75f, -0.5f};
        for (int timed = 0; timed < 2; timed++) {
            OK(s->vt->vectors.vec_scan(s, user, "test-emb", q, DIM,
                                       timed ? T0 + 100 * HOUR : AM_TIME_NONE, 5, -1, &ar, &ev,
                                       &n));
            const char **lines = am__arena_alloc(&ar, (n + 1) * sizeof *lines);
            for (size_t i = 0; i < n; i++) {
                CHECK_EQ_STR(ev[i].user_id, user);
                char line[96];
                snprintf(line, sizeof line, " vec%d %s %.9f\n", timed, ev[i].id, ev[i].score);
                lines[i] = am__arena_strdup(&ar, line);
            }
            qsort(lines, n, sizeof *lines, cmp_str);
            for (size_t i = 0; i < n; i++) am__buf_adds(b, lines[i]);
        }
        am__task_row *tasks;
        OK(s->vt->tasks.tasks_list(s, user, NULL, 0, 0, &ar, &tasks, &n));
        for (size_t i = 0; i < n; i++)
            am__buf_printf(b, " task %s %s %s %lld\n", tasks[i].task_id, tasks[i].name,
                           tasks[i].stage ? tasks[i].stage : "-", (long long)tasks[i].updated_at);
        OK(s->vt->tasks.tasks_list(s, user, NULL, 1, 2, &ar, &tasks, &n));
        for (size_t i = 0; i < n; i++)
            am__buf_printf(b, " open %s %s\n", tasks[i].task_id, tasks[i].status);
        am__task_change_row *ch;
        OK(am__store_task_history(s, user, NULL, &ar, &ch, &n));
        for (size_t i = 0; i < n; i++)
            am__buf_printf(b, " change %s %s %lld\n", ch[i].task_id, ch[i].field, (long long)ch[i].at);
        am__audit_row *au;
        OK(am__store_audit_page(s, user, 0, 1000, &ar, &au, &n));
        for (size_t i = 0; i < n; i++)
            am__buf_printf(b, " audit %s %s %s\n", au[i].op, au[i].object_type,
                           au[i].detail ? au[i].detail : "-");
        am__outbox_row *ob;
        int64_t oldest;
        OK(am__store_outbox_since(s, user, 0, 1000, &ar, &ob, &n, &oldest));
        for (size_t i = 0; i < n; i++) {
            CHECK_EQ_STR(ob[i].user_id, user);
            am__buf_printf(b, " outbox %s %s %s %s\n", ob[i].type, ob[i].event_id ? ob[i].event_id : "-",
                           ob[i].memory_id ? ob[i].memory_id : "-", ob[i].detail ? ob[i].detail : "-");
        }
        const char **norms;
        long *counts;
        OK(am__store_entity_counts(s, user, "date", 10, &ar, &norms, &counts, &n));
        for (size_t i = 0; i < n; i++) am__buf_printf(b, " entity %s %ld\n", norms[i], counts[i]);
        am__arena_free(&ar);
    }
}

/* ------------------------------------------------------------ forgetting reaches every table */

static long sqlite_rows_of(const char *path, const char *user, int loud)
{
    sqlite3 *db = NULL;
    long total = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return -1;
    sqlite3_stmt *t = NULL;
    sqlite3_prepare_v2(db, "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) c"
                           " WHERE m.type = 'table' AND c.name = 'user_id'", -1, &t, NULL);
    while (t && sqlite3_step(t) == SQLITE_ROW) {
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\" WHERE user_id = ?1",
                 (const char *)sqlite3_column_text(t, 0));
        sqlite3_stmt *c = NULL;
        if (sqlite3_prepare_v2(db, sql, -1, &c, NULL) == SQLITE_OK) {
            sqlite3_bind_text(c, 1, user, -1, SQLITE_STATIC);
            if (sqlite3_step(c) == SQLITE_ROW) {
                long k = sqlite3_column_int64(c, 0);
                if (k && loud) fprintf(stderr, "sqlite: %ld rows of %s in %s\n", k, user, sql);
                total += k;
            }
        }
        sqlite3_finalize(c);
    }
    sqlite3_finalize(t);
    sqlite3_close(db);
    return total;
}

/* Every table of the database with a user_id column (partitions read
 * through their parent), and the postings of rows no event has. */
static long pg_rows_of(const char *url, const char *user, int loud)
{
    PGconn *c = PQconnectdb(url);
    long total = 0;
    if (PQstatus(c) != CONNECTION_OK) {
        PQfinish(c);
        return -1;
    }
    PGresult *t = PQexec(c, "SELECT c.table_name FROM information_schema.columns c"
                            " JOIN pg_class k ON k.relname = c.table_name"
                            " WHERE c.column_name = 'user_id' AND c.table_schema = current_schema()"
                            " AND NOT k.relispartition");
    for (int i = 0; PQresultStatus(t) == PGRES_TUPLES_OK && i < PQntuples(t); i++) {
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\" WHERE user_id = $1",
                 PQgetvalue(t, i, 0));
        const char *v[1] = {user};
        PGresult *r = PQexecParams(c, sql, 1, NULL, v, NULL, NULL, 0);
        long k = PQresultStatus(r) == PGRES_TUPLES_OK ? atol(PQgetvalue(r, 0, 0)) : -1000000;
        if (k && loud) fprintf(stderr, "postgres: %ld rows of %s in %s\n", k, user, sql);
        total += k;
        PQclear(r);
    }
    if (PQresultStatus(t) != PGRES_TUPLES_OK || PQntuples(t) < 10) total = -1;
    PQclear(t);
    PGresult *r = PQexec(c, "SELECT count(*) FROM postings p WHERE NOT EXISTS (SELECT 1 FROM events e"
                            " WHERE e.user_id = p.user_id AND e.rid = p.rid)");
    long orphans = PQresultStatus(r) == PGRES_TUPLES_OK ? atol(PQgetvalue(r, 0, 0)) : -1;
    if (orphans) fprintf(stderr, "postgres: %ld postings without their event\n", orphans);
    total += orphans;
    PQclear(r);
    PQfinish(c);
    return total;
}

static void forget_everywhere(run *u, const char *url, int pg)
{
    am__store *s = u->s;
    const char *user = users[1];
    long e = 0, i = 0, t = 0;
    OK(am__store_begin(s));
    OK(am__forget_user(s, user, T0 + 500 * HOUR, T0 + 500 * HOUR, &e, &i, &t));
    OK(am__store_commit(s));
    CHECK(e > 0);
    CHECK_EQ_INT(am__store_user_exists(s, user), 0);
    /* purged in short transactions: one step leaves the rest, and the
     * user stays hidden (purging) until the last */
    long rows0 = pg ? pg_rows_of(url, user, 0) : sqlite_rows_of(url + 7, user, 0);
    int more = 0, steps = 0;
    /* the purge runs in transactions of its own: never inside the caller's */
    OK(am__store_begin(s));
    CHECK_EQ_INT(am__forget_work(s, T0 + 500 * HOUR, 1, &more), AM_MISUSE);
    OK(am__store_rollback(s));
    CHECK_EQ_INT(more, 0);
    CHECK_EQ_INT(pg ? pg_rows_of(url, user, 0) : sqlite_rows_of(url + 7, user, 0), rows0);
    OK(am__forget_work(s, T0 + 500 * HOUR, 1, &more));
    CHECK_EQ_INT(more, 1);
    long rows1 = pg ? pg_rows_of(url, user, 0) : sqlite_rows_of(url + 7, user, 0);
    CHECK(rows1 > 0 && rows1 < rows0);
    int state;
    am_time at, until;
    OK(am__forget_state(s, user, &state, &at, &until));
    CHECK_EQ_INT(state, AM__FORGOTTEN_PURGING);
    CHECK_EQ_INT(am__store_user_exists(s, user), 0);
    while (more && steps++ < 1000) OK(am__forget_work(s, T0 + 500 * HOUR, 1, &more));
    CHECK(steps >= 3);
    OK(am__forget_state(s, user, &state, &at, &until));
    CHECK_EQ_INT(state, AM__FORGOTTEN_PURGED);
    long left = pg ? pg_rows_of(url, user, 1) : sqlite_rows_of(url + 7, user, 1);
    CHECK_EQ_INT(left, 0);
    /* the others are untouched: a search still finds their rows */
    int64_t n = 0;
    OK(s->vt->postings.user_rows(s, users[0], &n));
    CHECK(n > 0);
}

/* ------------------------------------------------------------ a forget with a grace period */

#define MARK_EN "quokkazzyx"
#define MARK_ZH "紫罗兰秘密行动"
#define MARK_PII "13812345678"
#define TG T0 + 300 * HOUR

/* Rows of the tables (which 1: only held_*, 0: all but held_*, 2: all)
 * holding needle in any column (as text; bytea columns as bytes). */
static long pg_needle(const char *url, const char *needle, int which)
{
    PGconn *c = PQconnectdb(url);
    long total = 0;
    if (PQstatus(c) != CONNECTION_OK) {
        PQfinish(c);
        return -1;
    }
    PGresult *t = PQexec(c, "SELECT k.relname, string_agg(CASE WHEN a.atttypid = 'bytea'::regtype"
                            " THEN 'position(convert_to($1, ''UTF8'') IN ' || quote_ident(a.attname)"
                            " || ') > 0' ELSE 'strpos(' || quote_ident(a.attname) || '::text, $1) > 0'"
                            " END, ' OR ') FROM pg_class k JOIN pg_attribute a ON a.attrelid = k.oid"
                            " WHERE k.relnamespace = current_schema()::regnamespace"
                            " AND k.relkind IN ('r', 'p') AND NOT k.relispartition AND a.attnum > 0"
                            " AND NOT a.attisdropped GROUP BY k.relname");
    int tables = 0;
    for (int i = 0; PQresultStatus(t) == PGRES_TUPLES_OK && i < PQntuples(t); i++) {
        const char *name = PQgetvalue(t, i, 0);
        int held = strncmp(name, "held_", 5) == 0;
        if ((which == 1 && !held) || (which == 0 && held)) continue;
        tables++;
        char sql[4096];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\" WHERE %s", name, PQgetvalue(t, i, 1));
        const char *v[1] = {needle};
        PGresult *r = PQexecParams(c, sql, 1, NULL, v, NULL, NULL, 0);
        long k = PQresultStatus(r) == PGRES_TUPLES_OK ? atol(PQgetvalue(r, 0, 0)) : -1000000;
        if (k && which != 1) fprintf(stderr, "postgres: %ld rows holding %s in %s\n", k, needle, name);
        total += k;
        PQclear(r);
    }
    if (PQresultStatus(t) != PGRES_TUPLES_OK || tables < (which == 1 ? 11 : 10)) total = -1;
    PQclear(t);
    PQfinish(c);
    return total;
}

static long sqlite_needle(const char *path, const char *needle, int which)
{
    sqlite3 *db = NULL;
    long total = 0;
    int tables = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return -1;
    sqlite3_stmt *t = NULL;
    sqlite3_prepare_v2(db, "SELECT m.name, group_concat('instr(CAST(\"' || c.name || '\" AS BLOB),"
                           " CAST(?1 AS BLOB)) > 0', ' OR ') FROM sqlite_master m,"
                           " pragma_table_info(m.name) c WHERE m.type = 'table'"
                           " AND m.sql NOT LIKE 'CREATE VIRTUAL%' GROUP BY m.name",
                       -1, &t, NULL);
    while (t && sqlite3_step(t) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(t, 0);
        int held = strncmp(name, "held_", 5) == 0;
        if ((which == 1 && !held) || (which == 0 && held)) continue;
        tables++;
        /* FTS5 keeps a deleted row's terms in its segments until the
         * purge merges them (docs/FORGETTING.md): no read finds them */
        if (which == 0 && strncmp(name, "events_fts_", 11) == 0) continue;
        char sql[4096];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\" WHERE %s", name,
                 (const char *)sqlite3_column_text(t, 1));
        sqlite3_stmt *c = NULL;
        long k = -1000000;
        if (sqlite3_prepare_v2(db, sql, -1, &c, NULL) == SQLITE_OK) {
            sqlite3_bind_text(c, 1, needle, -1, SQLITE_STATIC);
            if (sqlite3_step(c) == SQLITE_ROW) k = sqlite3_column_int64(c, 0);
        }
        if (k && which != 1) fprintf(stderr, "sqlite: %ld rows holding %s in %s\n", k, needle, name);
        total += k;
        sqlite3_finalize(c);
    }
    sqlite3_finalize(t);
    sqlite3_close(db);
    return tables < 10 ? -1 : total;
}

static long needle_rows(const char *url, int pg, const char *needle, int which)
{
    return pg ? pg_needle(url, needle, which) : sqlite_needle(url + 7, needle, which);
}

/* An event of alice's (session, task) with its index context, vector,
 * entity, vault value; appended to u->evs. */
static ev *grace_event(run *u, const char *id, const char *session, const char *task,
                       const char *text, am_time at, const ev *prev)
{
    am__store *s = u->s;
    ev *e = &u->evs[u->n_ev++];
    snprintf(e->id, sizeof e->id, "%s", id);
    snprintf(e->user, sizeof e->user, "%s", users[0]);
    snprintf(e->session, sizeof e->session, "%s", session);
    snprintf(e->text, sizeof e->text, "%s", text);
    am__event_row row;
    memset(&row, 0, sizeof row);
    row.id = e->id;
    row.user_id = users[0];
    row.session_id = session;
    row.task_id = task;
    row.source = "user";
    row.type = "message";
    row.content = text;
    row.occurred_at = row.ingested_at = at;
    row.index_ctx = prev ? prev->text : NULL;
    OK(s->vt->events.event_put(s, &row));
    e->rid = row.rid;
    e->live = 1;
    if (prev) OK(am__store_event_ctx_append(s, users[0], prev->rid, text));
    float v[DIM] = {0.25f, 0.5f, -0.75f, 1.0f, 0.0f, -0.5f, 0.125f, 0.875f};
    OK(s->vt->vectors.vec_put(s, users[0], row.rid, "test-emb", v, DIM));
    am__entity_row en = {"date", "Friday", "2026-01-13", at, at + 86400000};
    OK(am__store_entity_put(s, users[0], row.rid, &en));
    return e;
}

/* Whether a line of transcript tr holds needle, but the outbox's (memory
 * events name the ids of what was forgotten) and the query terms'. */
static int has(const char *tr, const char *needle)
{
    for (const char *l = tr; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        const char *end = strchr(l, '\n');
        size_t len = end ? (size_t)(end - l) : strlen(l);
        if (strncmp(l, " outbox ", 8) == 0 || strncmp(l, " df ", 4) == 0) continue;
        const char *f = strstr(l, needle);
        if (f && f < l + len) return 1;
    }
    return 0;
}

/* The user's reads a forget must change and a restore bring back. */
static void grace_reads(run *u, am__buf *b)
{
    am__store *s = u->s;
    am__arena ar;
    am__arena_init(&ar, &alloc);
    int64_t *rids;
    const char **orig;
    size_t n;
    OK(am__store_pii_events(s, users[0], "phone", MARK_PII, AM_TIME_NONE, 50, &ar, &rids, &orig, &n));
    size_t found = 0;
    for (size_t i = 0; i < n; i++) found += orig[i] && strcmp(orig[i], MARK_PII) == 0;
    am__buf_printf(b, " pii %zu\n", found);
    am__held_row *h;
    OK(am__forget_held(s, users[0], &ar, &h, &n));
    for (size_t i = 0; i < n; i++)
        am__buf_printf(b, " held %s %s %lld %lld\n", h[i].level, h[i].object_id,
                       (long long)h[i].forgotten_at, (long long)h[i].purge_at);
    am__workspace_row *w;
    OK(s->vt->workspace.workspace_list(s, users[0], "TG", &ar, &w, &n));
    for (size_t i = 0; i < n; i++)
        am__buf_printf(b, " workspace %s %s %s %ld\n", w[i].agent_id, w[i].doing, w[i].next,
                       w[i].version);
    /* the events' row ids as the store has them now (a restore may give
     * one a new row id when its old one was taken since) */
    for (size_t i = 0; i < u->n_ev; i++) {
        am__event_row got;
        int rc =
            s->vt->events.event_get(s, u->evs[i].user, AM__EVENT_BY_ID, u->evs[i].id, &ar, &got);
        CHECK(rc == AM_OK || rc == AM_NOTFOUND);
        if (rc == AM_OK) u->evs[i].rid = got.rid;
    }
    am__arena_free(&ar);
}

static void grace_forget(run *u, int level, const char *id, am_time now, am_time purge_at,
                         am__buf *b)
{
    am__store *s = u->s;
    long e = 0, i = 0, t = 0;
    OK(am__store_begin(s));
    int rc = am__forget_grace(s, users[0], level, id, now, purge_at, &e, &i, &t);
    if (rc) fprintf(stderr, "%s: forget_grace: %s\n", s->vt->name, s->vt->errmsg(s));
    OK(rc);
    am__buf_printf(b, "grace forget %d %s: %ld %ld %ld\n", level, id, e, i, t);
    am__arena ar;
    am__arena_init(&ar, &alloc);
    const char **ids;
    size_t n;
    OK(am__forget_touched(s, &ar, &ids, &n));
    for (size_t k = 0; k < n; k++) am__buf_printf(b, " touched %s\n", ids[k]);
    am__arena_free(&ar);
    OK(am__store_commit(s));
}

/* Forgets of an event, a session and a task with a grace period on store
 * u: everything of them leaves the tables a read uses and is held
 * (held_* only); a restore brings it back beside what was written
 * meanwhile; at purge_at forget_work purges it and no byte of its text
 * is left in any table.  What each step answers goes to b (the stores
 * must agree). */
/* alice's event id: its row's content and, read through cold_fill, its
 * whole text (an archived event's), into the transcript */
static void cold_read(run *u, const char *id, am__buf *b)
{
    am__store *s = u->s;
    am__arena ar;
    am__arena_init(&ar, &alloc);
    am__event_row e;
    size_t filled = 0;
    OK(s->vt->events.event_get(s, users[0], AM__EVENT_BY_ID, id, &ar, &e));
    am__buf_printf(b, "cold %s row %s", id, e.content);
    OK(am__store_cold_fill(s, users[0], &e, 1, &ar, &filled));
    am__buf_printf(b, " filled %zu whole %s\n", filled, e.content);
    CHECK_EQ_INT(filled, 1);
    CHECK_EQ_STR(e.content, MARK_EN " 我的" MARK_ZH " call me at " MARK_PII);
    am__arena_free(&ar);
}

/* The jobs and tombstones operation (domain/forget.c's rules stand on
 * it), as the session sg is held: an op that names no row is refused, a
 * latest row comes into the caller's row without strings, the tombstone
 * is there under the id's ref. */
static void grace_jobs(run *u, am__buf *b)
{
    am__store *s = u->s;
    size_t n = 9;
    am__fjob_op del_all = {.kind = AM__FJOB_DEL, .uid = users[0]};
    am__fjob_op tomb_all = {.kind = AM__FJOB_TOMB_DEL, .uid = users[0], .level = "session"};
    am__fjob_op odd = {.kind = 99, .uid = users[0]};
    int m1 = s->vt->forget.forget_jobs(s, &del_all, NULL, NULL, &n);
    int m2 = s->vt->forget.forget_jobs(s, &tomb_all, NULL, NULL, &n);
    int m3 = s->vt->forget.forget_jobs(s, &odd, NULL, NULL, &n);
    am__fjob_row row = {0}, *one = &row;
    am__fjob_op latest = {
        .kind = AM__FJOB_LIST, .uid = users[0], .level = "session", .object_id = "sg", .latest = 1};
    OK(s->vt->forget.forget_jobs(s, &latest, NULL, &one, &n));
    CHECK(row.level == NULL && row.object_id == NULL && row.state == NULL && row.seq > 0);
    am__buf_printf(b, " jobs misuse %d %d %d latest %zu held %d %lld %lld\n", m1, m2, m3, n,
                   row.held, (long long)row.forgotten_at, (long long)row.purge_at);
    char ref[AM__REF_LEN + 1];
    OK(am__store_object_ref(s, users[0], "session", "sg", ref));
    am__fjob_op tomb = {
        .kind = AM__FJOB_TOMB_GET, .uid = users[0], .level = "session", .object_id = ref};
    OK(s->vt->forget.forget_jobs(s, &tomb, NULL, &one, &n));
    am__buf_printf(b, " tombstone %zu %lld\n", n, (long long)row.forgotten_at);
}

static void grace_cycle(run *u, const char *url, int pg, const char *const *terms, size_t n_terms,
                        am__buf *b)
{
    am__store *s = u->s;
    const char *mark = MARK_EN " 我的" MARK_ZH " call me at " MARK_PII;
    OK(am__store_begin(s));
    ev *e1 = grace_event(u, "EG1", "sg", "TG", mark, TG, NULL);
    grace_event(u, "EG2", "sg", "TG", "the dentist 牙医 said Friday", TG + 60000, e1);
    /* (a later event: the held ones' row ids are not the highest, which
     * SQLite would hand out again -- and their memory events' order with) */
    grace_event(u, "EG0", "sz", NULL, "coffee 咖啡 later", TG + 120000, NULL);
    am__pii_row p = {"[PHONE_1]", "phone", MARK_PII};
    OK(am__store_pii_put(s, users[0], e1->rid, &p));
    const char *src[1] = {"EG1"};
    am__item_row it;
    memset(&it, 0, sizeof it);
    it.id = "VG1";
    it.lineage_id = "VG1";
    it.scope = "user";
    it.kind = "fact";
    it.key = "code";
    it.text = "code name " MARK_EN " 代号" MARK_ZH;
    it.status = "active";
    it.confidence = 0.5;
    it.base_score = 1;
    it.half_life_days = 30;
    it.valid_from = it.recorded_at = TG;
    it.valid_to = it.superseded_at = it.reinforced_at = AM_TIME_NONE;
    it.sources = src;
    it.n_sources = 1;
    OK(s->vt->items.item_insert(s, users[0], &it));
    OK(s->vt->items.item_heat(s, users[0], "VG1", 1, 1, TG));
    am__task_row t;
    memset(&t, 0, sizeof t);
    t.task_id = "TG";
    t.name = "行动 " MARK_EN;
    t.status = "open";
    t.created_at = t.updated_at = TG;
    t.round = 1;
    t.round_at = t.round_from = AM_TIME_NONE;
    OK(s->vt->tasks.task_put(s, users[0], &t));
    am__task_change_row c = {TG, "TG", "note", NULL, MARK_ZH, "EG1"};
    OK(am__store_task_change_add(s, users[0], &c));
    am__workspace_row w = {"planner", "draft " MARK_EN, NULL, "send 报告", 0, 0};
    long version = 0;
    OK(am__store_workspace_put(s, users[0], "TG", &w, TG, &version));
    /* EG1 archived (store/cold.h): its row keeps a summary, its whole text
     * (every mark) the cold column -- which every forget below must take,
     * and every restore bring back */
    OK(am__store_cold_archive(s, users[0], e1->rid, "archived turn"));
    CHECK_EQ_INT(am__store_cold_archive(s, users[0], e1->rid, "again"), AM_NOTFOUND);
    OK(am__store_commit(s));
    cold_read(u, "EG1", b);
    am__buf before, after;
    am__buf_init(&before, &alloc);
    am__buf_init(&after, &alloc);
    grace_reads(u, &before);
    read_back(u, terms, n_terms, &before);
    CHECK(strstr(before.p, " pii 1\n") != NULL);
    CHECK(has(before.p, "VG1"));

    /* 1. the session, held for an hour: gone from every read and table */
    grace_forget(u, AM_FORGET_SESSION, "sg", TG + HOUR, TG + 2 * HOUR, b);
    am__buf held;
    am__buf_init(&held, &alloc);
    grace_reads(u, &held);
    read_back(u, terms, n_terms, &held);
    am__buf_add(b, held.p, held.len);
    am__buf_addc(&held, 0);
    CHECK(strstr(held.p, " pii 0\n") != NULL);
    CHECK(strstr(held.p, " held session sg ") != NULL);
    CHECK(!has(held.p, "VG1") && !has(held.p, "EG1") && !has(held.p, "EG2"));
    CHECK(!has(held.p, MARK_EN) && !has(held.p, MARK_ZH));
    am__buf_free(&held);
    am__buf jobs;
    am__buf_init(&jobs, &alloc);
    grace_jobs(u, &jobs);
    am__buf_add(b, jobs.p, jobs.len);
    am__buf_addc(&jobs, 0);
    CHECK(strstr(jobs.p, " jobs misuse 3 3 3 latest 1 held 1 ") != NULL);
    CHECK(strstr(jobs.p, " tombstone 1 ") != NULL);
    am__buf_free(&jobs);
    static const char *const marks[] = {MARK_EN, MARK_ZH, MARK_PII};
    for (int m = 0; m < 3; m++) {
        CHECK_EQ_INT(needle_rows(url, pg, marks[m], 0), 0);
        CHECK(needle_rows(url, pg, marks[m], 1) > 0);
    }
    /* a turn written meanwhile in the same task stays beside the restored */
    OK(am__store_begin(s));
    grace_event(u, "EG3", "sh", "TG", "later 之后 the budget 预算", TG + HOUR + 60000, NULL);
    OK(am__store_commit(s));

    /* 2. restored: what was held is back, with its row ids (or new ones) */
    OK(am__store_begin(s));
    long back = 0;
    int rc =
        am__forget_restore_forget(s, users[0], AM_FORGET_SESSION, "sg", TG + HOUR + 120000, &back);
    if (rc) fprintf(stderr, "%s: restore_forget: %s\n", s->vt->name, s->vt->errmsg(s));
    OK(rc);
    CHECK_EQ_INT(back, 2);
    am__buf_printf(b, "restored %ld\n", back);
    OK(am__store_commit(s));
    grace_reads(u, &after);
    read_back(u, terms, n_terms, &after);
    am__buf_add(b, after.p, after.len);
    am__buf_addc(&after, 0);
    CHECK(strstr(after.p, " pii 1\n") != NULL);
    CHECK(strstr(after.p, " held ") == NULL);
    CHECK(has(after.p, "VG1") && has(after.p, "EG1") && has(after.p, "EG3"));
    CHECK(strstr(after.p, " workspace planner draft " MARK_EN) != NULL);
    cold_read(u, "EG1", b); /* still archived, its whole text back */
    /* the items, vector hits, tasks and history are the ones before */
    static const char *const kept[] = {" item", " task ", " change "};
    for (size_t k = 0; k < sizeof kept / sizeof *kept; k++) {
        const char *x = strstr(before.p, "user alice\n"), *y = strstr(after.p, "user alice\n");
        const char *xe = x ? strstr(x, "user bob\n") : NULL, *ye = y ? strstr(y, "user bob\n") : NULL;
        if (!x || !y || !xe || !ye) {
            CHECK(0);
            break;
        }
        for (const char *l = x; l && l < xe; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
            if (strncmp(l, kept[k], strlen(kept[k])) == 0) {
                size_t len = (size_t)(strchr(l, '\n') - l + 1);
                char line[600];
                snprintf(line, sizeof line, "%.*s", (int)len, l);
                const char *f = strstr(y, line);
                if (!f || f > ye) fprintf(stderr, "%s: not back: %s", s->vt->name, line);
                CHECK(f && f < ye);
            }
    }
    for (int m = 0; m < 3; m++) CHECK_EQ_INT(needle_rows(url, pg, marks[m], 1), 0);
    am__buf_free(&before);
    am__buf_free(&after);

    /* 3. an event and then its task, held; purged at the end of the period */
    am_time t3 = TG + 3 * HOUR;
    grace_forget(u, AM_FORGET_EVENT, "EG2", t3, t3 + HOUR, b);
    grace_forget(u, AM_FORGET_TASK, "TG", t3 + 1000, t3 + 2 * HOUR, b);
    int more = 0;
    OK(am__forget_work(s, t3 + 2000, 0, &more)); /* not due: nothing goes */
    CHECK(needle_rows(url, pg, MARK_EN, 1) > 0);
    am__buf x;
    am__buf_init(&x, &alloc);
    grace_reads(u, &x);
    am__buf_add(b, x.p, x.len);
    am__buf_addc(&x, 0);
    CHECK(strstr(x.p, " held event EG2 ") != NULL && strstr(x.p, " held task TG ") != NULL);
    am__buf_free(&x);
    OK(am__store_begin(s));
    CHECK_EQ_INT(am__forget_restore_forget(s, users[0], AM_FORGET_TASK, "TG", t3 + 3 * HOUR, &back),
                 AM_DENIED); /* its period is over */
    am__store_rollback(s);
    OK(am__forget_work(s, t3 + 3 * HOUR, 0, &more));
    CHECK_EQ_INT(more, 0);
    for (int m = 0; m < 3; m++) CHECK_EQ_INT(needle_rows(url, pg, marks[m], 2), 0);
    am__buf_init(&x, &alloc);
    grace_reads(u, &x);
    read_back(u, terms, n_terms, &x);
    am__buf_add(b, x.p, x.len);
    am__buf_addc(&x, 0);
    CHECK(strstr(x.p, " held ") == NULL && strstr(x.p, " pii 0\n") != NULL);
    am__buf_free(&x);
    OK(am__store_begin(s));
    CHECK_EQ_INT(
        am__forget_restore_forget(s, users[0], AM_FORGET_EVENT, "EG2", t3 + 3 * HOUR, &back),
        AM_DENIED); /* purged: its tombstone stays */
    CHECK_EQ_INT(
        am__forget_restore_forget(s, users[0], AM_FORGET_SESSION, "nope", t3 + 3 * HOUR, &back),
        AM_NOTFOUND);
    am__store_rollback(s);
    for (size_t i = 0; i < u->n_ev; i++)
        if (strncmp(u->evs[i].id, "EG", 2) == 0) u->evs[i].live = 0;
    /* 4. bob's session held when bob is forgotten (forget_everywhere):
     * the user's purge takes its held rows */
    ev *be = random_live(&(rng){7}, u, users[1]);
    CHECK(be != NULL);
    if (be) {
        long e = 0, i = 0, tk = 0;
        OK(am__store_begin(s));
        OK(am__forget_grace(s, users[1], AM_FORGET_SESSION, be->session, t3, t3 + 400 * HOUR, &e,
                            &i, &tk));
        OK(am__store_commit(s));
        am__buf_printf(b, "bob held %ld %ld %ld\n", e, i, tk);
    }
}

/* ------------------------------------------------------------ bitemporal as-of */

static void put_version(am__store *s, const char *id, const char *text, am_time from, am_time to,
                        am_time recorded)
{
    const char *src[1] = {"E-asof"};
    am__item_row row;
    memset(&row, 0, sizeof row);
    row.id = id;
    row.lineage_id = "L-asof";
    row.scope = "user";
    row.kind = "fact";
    row.key = "city";
    row.text = text;
    row.status = "active";
    row.confidence = 0.9;
    row.base_score = 1;
    row.half_life_days = 30;
    row.valid_from = from;
    row.valid_to = to;
    row.recorded_at = recorded;
    row.superseded_at = AM_TIME_NONE;
    row.reinforced_at = AM_TIME_NONE;
    row.sources = src;
    row.n_sources = 1;
    OK(s->vt->items.item_insert(s, "carol", &row));
}

static void as_of(am__store *s)
{
    am_time t1 = T0 + 1000 * HOUR, t2 = t1 + 24 * 30 * HOUR;
    OK(am__store_begin(s));
    OK(am__store_user_ensure(s, "carol", t1));
    put_version(s, "A1", "lives in Berlin 住在柏林", t1, AM_TIME_NONE, t1);
    OK(am__store_commit(s));
    /* a month later she moved: v1 closed, its time bounded, v2 from t2 */
    OK(am__store_begin(s));
    OK(am__store_item_close(s, "carol", "A1", t2));
    put_version(s, "A2", "lives in Berlin 住在柏林", t1, t2, t2);
    put_version(s, "A3", "lives in Shanghai 住在上海", t2, AM_TIME_NONE, t2);
    OK(am__store_commit(s));
    CHECK_EQ_INT(am__store_item_close(s, "carol", "A1", t2 + 1), AM_NOTFOUND); /* closed once */
    am__arena ar;
    am__arena_init(&ar, &alloc);
    am__item_row *r;
    size_t n;
    OK(s->vt->items.items_list(s, "carol", AM__ITEMS_ASOF, t1 + HOUR, &ar, &r, &n));
    CHECK_EQ_INT(n, 1);
    if (n == 1) CHECK_EQ_STR(r[0].id, "A2");
    OK(s->vt->items.items_list(s, "carol", AM__ITEMS_ASOF, t2 + HOUR, &ar, &r, &n));
    CHECK_EQ_INT(n, 1);
    if (n == 1) CHECK_EQ_STR(r[0].id, "A3");
    OK(s->vt->items.items_list(s, "carol", AM__ITEMS_ASOF, t1 - HOUR, &ar, &r, &n));
    CHECK_EQ_INT(n, 0);
    OK(s->vt->items.items_list(s, "carol", AM__ITEMS_CURRENT, t2 + HOUR, &ar, &r, &n));
    CHECK_EQ_INT(n, 1);
    if (n == 1) CHECK_EQ_STR(r[0].text, "lives in Shanghai 住在上海");
    OK(s->vt->items.items_list(s, "carol", AM__ITEMS_ALL, 0, &ar, &r, &n));
    CHECK_EQ_INT(n, 3);
    if (n == 3) CHECK_EQ_INT(r[0].superseded_at, t2);
    /* another user sees none of it */
    OK(s->vt->items.items_list(s, "alice", AM__ITEMS_ALL, 0, &ar, &r, &n));
    for (size_t i = 0; i < n; i++) CHECK(strcmp(r[i].lineage_id, "L-asof") != 0);
    am__arena_free(&ar);
}

/* ------------------------------------------------------------ the PII vault sealed at rest */

static am__store *open_keyed(const char *url, const unsigned char *key)
{
    am__store_opts o = {&alloc, 5000, 0, 0, 0, key, 0, 0};
    am__store *s = NULL;
    char err[512];
    int rc = am__store_open(url, &o, &s, err, sizeof err);
    if (rc) fprintf(stderr, "open %s: %s\n", url, err);
    CHECK_EQ_INT(rc, AM_OK);
    return s;
}

/* The values pii_events hands over for (type, canon), to b. */
static void vault_read(am__store *s, const char *user, const char *type, const char *canon,
                       am__buf *b)
{
    am__arena ar;
    am__arena_init(&ar, &alloc);
    int64_t *rids;
    const char **orig;
    size_t n;
    OK(am__store_pii_events(s, user, type, canon, AM_TIME_NONE, 50, &ar, &rids, &orig, &n));
    am__buf_printf(b, "pii %s %s:", type, canon);
    for (size_t i = 0; i < n; i++) {
        CHECK(orig[i] && strncmp(orig[i], "enc:", 4) != 0); /* never the sealed bytes */
        am__buf_printf(b, " [%s]", orig[i] ? orig[i] : "-");
    }
    am__buf_addc(b, '\n');
    am__arena_free(&ar);
}

/* A user's message event at `at`, as the tests below write it. */
static am__event_row message_row(const char *user, const char *id, const char *text, am_time at)
{
    am__event_row row;
    memset(&row, 0, sizeof row);
    row.id = id;
    row.user_id = user;
    row.source = "user";
    row.type = "message";
    row.content = text;
    row.occurred_at = row.ingested_at = at;
    return row;
}

static void vault_event(am__store *s, const char *user, const char *id, const char *text,
                        const am__pii_row *p, size_t np, am_time at)
{
    am__event_row row = message_row(user, id, text, at);
    OK(am__store_begin(s));
    OK(am__store_user_ensure(s, user, at));
    OK(s->vt->events.event_put(s, &row));
    for (size_t i = 0; i < np; i++) OK(am__store_pii_put(s, user, row.rid, &p[i]));
    OK(am__store_commit(s));
}

/* A store opened with a vault key seals every original (AES-256-GCM):
 * no table holds the value, pii_events opens it with the key and finds it
 * by its keyed hash; without the key, or with another, nothing of it is
 * handed over; rows written before a key are sealed by optimize with it.
 * What each step answers goes to b (the stores must agree). */
static void vault_cases(const char *url, int pg, am__buf *b)
{
    unsigned char k1[AM__VAULT_KEY_BYTES], k2[AM__VAULT_KEY_BYTES];
    for (int i = 0; i < AM__VAULT_KEY_BYTES; i++) {
        k1[i] = (unsigned char)(i * 7 + 1);
        k2[i] = (unsigned char)(i * 5 + 3);
    }
    am__store *s = open_keyed(url, k1);
    if (!s) return;
    static const am__pii_row zh[] = {{"[PHONE_1]", "phone", "138 2468 1357"},
                                     {"[EMAIL_1]", "email", "Li.Lei@Example.com"}};
    static const am__pii_row en[] = {{"[PHONE_1]", "phone", "+1 (415) 555-0199"}};
    vault_event(s, "李雷", "EV1", "我的电话是[PHONE_1]，邮箱[EMAIL_1]", zh, 2, T0);
    vault_event(s, "李雷", "EV2", "my work phone is [PHONE_1]", en, 1, T0 + HOUR);
    vault_event(s, "韩梅梅", "EV3", "她的电话是[PHONE_1]", zh, 1, T0 + HOUR);
    vault_read(s, "李雷", "phone", "13824681357", b);
    vault_read(s, "李雷", "email", "li.lei@example.com", b);
    vault_read(s, "李雷", "phone", "14155550199", b);
    vault_read(s, "李雷", "phone", "13800000000", b);
    vault_read(s, "韩梅梅", "phone", "13824681357", b);
    static const char *const plain[] = {"2468 1357", "Li.Lei@Example", "555-0199"};
    for (int m = 0; m < 3; m++) CHECK_EQ_INT(needle_rows(url, pg, plain[m], 2), 0);
    CHECK(needle_rows(url, pg, "enc:v1:", 2) >= 4);
    s->vt->close(s);
    /* without the key, and with another: sealed values are never handed over */
    if ((s = open_keyed(url, NULL))) {
        vault_read(s, "李雷", "phone", "13824681357", b);
        /* a value written without a key is kept as given */
        static const am__pii_row later[] = {{"[PHONE_1]", "phone", "139 1111 2222"}};
        vault_event(s, "李雷", "EV4", "new number [PHONE_1]", later, 1, T0 + 2 * HOUR);
        vault_read(s, "李雷", "phone", "13911112222", b);
        CHECK(needle_rows(url, pg, "139 1111 2222", 2) > 0);
        s->vt->close(s);
    }
    if ((s = open_keyed(url, k2))) {
        vault_read(s, "李雷", "phone", "13824681357", b);
        vault_read(s, "李雷", "phone", "13911112222", b);
        s->vt->close(s);
    }
    /* optimize with the key seals what was written without it */
    if ((s = open_keyed(url, k1))) {
        OK(am__store_optimize(s));
        vault_read(s, "李雷", "phone", "13911112222", b);
        vault_read(s, "李雷", "phone", "13824681357", b);
        s->vt->close(s);
    }
    CHECK_EQ_INT(needle_rows(url, pg, "139 1111 2222", 2), 0);
    /* a sealed value copied to another user's row does not open there */
    if (pg) {
        PGconn *c = PQconnectdb(url);
        PGresult *r = PQexec(c, "UPDATE pii_vault SET original = (SELECT original FROM pii_vault"
                                " WHERE user_id = '李雷' AND type = 'phone' ORDER BY seq LIMIT 1),"
                                " canon_hash = NULL WHERE user_id = '韩梅梅'");
        CHECK(PQresultStatus(r) == PGRES_COMMAND_OK);
        PQclear(r);
        PQfinish(c);
    } else {
        sqlite3 *db = NULL;
        CHECK(sqlite3_open(url + 7, &db) == SQLITE_OK);
        CHECK(sqlite3_exec(db, "UPDATE pii_vault SET original = (SELECT original FROM pii_vault"
                               " WHERE user_id = '李雷' AND type = 'phone' ORDER BY rowid LIMIT 1),"
                               " canon_hash = NULL WHERE user_id = '韩梅梅'", NULL, NULL, NULL) == SQLITE_OK);
        sqlite3_close(db);
    }
    if ((s = open_keyed(url, k1))) {
        vault_read(s, "韩梅梅", "phone", "13824681357", b);
        s->vt->close(s);
    }
    CHECK(strstr(b->p, "pii phone 13824681357: [138 2468 1357]\n") != NULL);
}

/* ------------------------------------------------------------ PostgreSQL only */

/* The store's server-side connection ended from another one (as a server
 * restart ends it). */
static void kill_backends(const char *url)
{
    PGconn *c = PQconnectdb(url);
    PGresult *r = PQexec(c, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                            " AND backend_type = 'client backend'");
    CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && atol(PQgetvalue(r, 0, 0)) >= 1);
    PQclear(r);
    PQfinish(c);
    struct timespec ts = {0, 100000000};
    nanosleep(&ts, NULL);
}

static void pg_faults(const char *url)
{
    am__store *s = open_url(url);
    if (!s) return;
    /* outside a transaction: the next call reconnects and answers */
    kill_backends(url);
    CHECK_EQ_INT(am__store_user_exists(s, "carol"), 1);
    /* inside one: it fails cleanly, nothing of it stays, the next one works */
    OK(am__store_begin(s));
    am__event_row row;
    memset(&row, 0, sizeof row);
    row.id = "E-lost";
    row.user_id = "carol";
    row.source = "user";
    row.type = "message";
    row.content = "written before the server went away 服务器重启之前";
    row.occurred_at = row.ingested_at = T0;
    OK(s->vt->events.event_put(s, &row));
    kill_backends(url);
    row.id = "E-lost2";
    int rc = s->vt->events.event_put(s, &row);
    CHECK_EQ_INT(rc, AM_IO);
    CHECK_CONTAINS(s->vt->errmsg(s), "postgres: event");
    am__store_rollback(s);
    OK(am__store_begin(s));
    row.id = "E-kept";
    OK(s->vt->events.event_put(s, &row));
    OK(am__store_commit(s));
    am__arena ar;
    am__arena_init(&ar, &alloc);
    am__event_row got;
    CHECK_EQ_INT(s->vt->events.event_get(s, "carol", AM__EVENT_BY_ID, "E-lost", &ar, &got),
                 AM_NOTFOUND);
    CHECK_EQ_INT(s->vt->events.event_get(s, "carol", AM__EVENT_BY_ID, "E-kept", &ar, &got), AM_OK);
    am__arena_free(&ar);
    s->vt->close(s);
}

/* The write locks are per user (docs/SCALING.md): a writer of another
 * user does not wait for an open transaction, one of the same user does
 * (and is refused as busy after busy_timeout_ms, nothing of it written);
 * a memory event's seq is taken in commit order -- a second writer's
 * waits for the first's commit, so a reader resuming after a seq never
 * misses an earlier one that commits later. */
static int put_user_event(am__store *s, const char *uid, const char *id, const char *text)
{
    am__event_row row = message_row(uid, id, text, T0);
    int rc = am__store_user_ensure(s, uid, T0);
    return rc ? rc : s->vt->events.event_put(s, &row);
}

static void pg_user_locks(const char *url)
{
    am__store_opts o = {&alloc, 300, 0, 0, 0, NULL, 0, 0};
    am__store *a = NULL, *b = NULL;
    char err[512];
    OK(am__store_open(url, &o, &a, err, sizeof err));
    OK(am__store_open(url, &o, &b, err, sizeof err));
    if (!a || !b) goto out;
    OK(am__store_begin(a));
    OK(put_user_event(a, "李雷", "E-lilei", "李雷 writes first, his transaction stays open"));
    /* another user meanwhile: not waited for */
    OK(am__store_begin(b));
    OK(put_user_event(b, "Han Meimei", "E-han", "Han Meimei writes while 李雷's is open 同时写入"));
    OK(am__store_commit(b));
    /* the same user: waits, then busy, and nothing of it stays */
    OK(am__store_begin(b));
    CHECK_EQ_INT(put_user_event(b, "李雷", "E-lilei-2", "李雷 again, from another connection"),
                 AM_BUSY);
    CHECK_CONTAINS(b->vt->errmsg(b), "write lock");
    am__store_rollback(b);
    /* the outbox: a memory event's seq is taken at its transaction's
     * commit -- b's (another user), committed while a's is open, waits
     * for nothing and is numbered before a's */
    am__outbox_row ev = {0, T0, T0, "李雷", "memory.created", "M-1", NULL, "E-lilei", NULL,
                         NULL, NULL};
    am__outbox_row ev2 = {0, T0, T0, "Han Meimei", "memory.created", "M-2", NULL, "E-han",
                          NULL, NULL, NULL};
    OK(am__store_outbox_put(a, &ev));
    OK(am__store_begin(b));
    OK(am__store_outbox_put(b, &ev2));
    OK(am__store_commit(b));
    OK(am__store_commit(a));
    am__arena ar;
    am__arena_init(&ar, &alloc);
    am__outbox_row *rows = NULL;
    size_t n = 0;
    OK(am__store_outbox_since(b, NULL, 0, 10, &ar, &rows, &n, NULL));
    CHECK_EQ_INT((int)n, 2);
    if (n == 2) {
        CHECK(rows[0].seq < rows[1].seq);
        CHECK_EQ_STR(rows[0].user_id, "Han Meimei");
        CHECK_EQ_STR(rows[1].user_id, "李雷");
        CHECK_EQ_STR(rows[1].event_id, "E-lilei");
    }
    int64_t lo = 0, hi = 0;
    am__store_outbox_committed(a, &lo, &hi);
    CHECK(n == 2 && lo == rows[1].seq && hi == rows[1].seq);
    am__event_row got;
    CHECK_EQ_INT(a->vt->events.event_get(a, "李雷", AM__EVENT_BY_ID, "E-lilei", &ar, &got), AM_OK);
    CHECK_EQ_INT(a->vt->events.event_get(a, "李雷", AM__EVENT_BY_ID, "E-lilei-2", &ar, &got),
                 AM_NOTFOUND);
    CHECK_EQ_INT(a->vt->events.event_get(a, "Han Meimei", AM__EVENT_BY_ID, "E-han", &ar, &got),
                 AM_OK);
    am__arena_free(&ar);
out:
    if (a) a->vt->close(a);
    if (b) b->vt->close(b);
}

/* Two writers, each of two users, whose users share the index totals'
 * slots crosswise (A and D one slot, B and C another): each writes its
 * first user, then -- both holding what that took -- its second, with a
 * memory event each.  Neither may wait for the other in a cycle (taking
 * the slots' rows or the outbox order's lock as each event is written
 * deadlocks here, one of them refused as busy): both commit, and the
 * memory events are numbered in commit order. */
typedef struct dl_writer {
    const char *url, *u1, *u2;
    pthread_barrier_t *bar;
    int rc;
} dl_writer;

static void *dl_run(void *p)
{
    dl_writer *d = p;
    am__store_opts o = {&alloc, 3000, 0, 0, 0, NULL, 0, 0};
    am__store *s = NULL;
    char err[512];
    int rc = am__store_open(d->url, &o, &s, err, sizeof err);
    const char *both[2] = {d->u1, d->u2};
    if (!rc) rc = am__store_begin(s);
    if (!rc) rc = am__store_lock_users(s, both, 2);
    for (int step = 0; step < 2; step++) {
        const char *u = step ? d->u2 : d->u1;
        char id[64];
        snprintf(id, sizeof id, "E-%s", u);
        am__outbox_row ev = {0, T0, T0, u, "memory.created", "M-dl", NULL, id, NULL, NULL, NULL};
        if (!rc) rc = put_user_event(s, u, id, step ? "then the second 第二个" : "the first 第一个");
        if (!rc) rc = am__store_outbox_put(s, &ev);
        am__arena ar;
        am__arena_init(&ar, &alloc);
        am__event_row got;
        if (!rc)
            rc = s->vt->events.event_get(s, u, AM__EVENT_BY_ID, id, &ar,
                                         &got); /* what is queued runs now */
        am__arena_free(&ar);
        if (step == 0) pthread_barrier_wait(d->bar);
    }
    if (!rc) rc = am__store_commit(s);
    if (rc && s) fprintf(stderr, "deadlock writer %s/%s: %s\n", d->u1, d->u2, s->vt->errmsg(s));
    if (rc && s) am__store_rollback(s);
    if (s) s->vt->close(s);
    d->rc = rc;
    return NULL;
}

static int pg_slot_of(const char *u) { return (int)(am__hash64(u, strlen(u)) % 16); }

static void pg_no_deadlock(const char *url)
{
    /* A, B in different slots; D in A's, C in B's */
    char name[4][24];
    int found = 0;
    snprintf(name[0], sizeof name[0], "dl-a");
    snprintf(name[1], sizeof name[1], "dl-b");
    if (pg_slot_of(name[0]) == pg_slot_of(name[1])) snprintf(name[1], sizeof name[1], "dl-b2");
    for (int i = 0; i < 1000 && found != 3; i++) {
        char c[24];
        snprintf(c, sizeof c, "用户-%d", i);
        if (!(found & 1) && pg_slot_of(c) == pg_slot_of(name[1])) {
            snprintf(name[2], sizeof name[2], "%s", c);
            found |= 1;
        } else if (!(found & 2) && pg_slot_of(c) == pg_slot_of(name[0])) {
            snprintf(name[3], sizeof name[3], "%s", c);
            found |= 2;
        }
    }
    CHECK(found == 3 && pg_slot_of(name[0]) != pg_slot_of(name[1]));
    if (found != 3) return;
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, 2);
    dl_writer w[2] = {{url, name[0], name[1], &bar, -1}, {url, name[2], name[3], &bar, -1}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, dl_run, &w[i]);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&bar);
    CHECK_EQ_INT(w[0].rc, AM_OK);
    CHECK_EQ_INT(w[1].rc, AM_OK);
    am__store *s = open_url(url);
    if (!s) return;
    am__arena ar;
    am__arena_init(&ar, &alloc);
    am__outbox_row *rows = NULL;
    size_t n = 0;
    OK(am__store_outbox_since(s, NULL, 0, 100, &ar, &rows, &n, NULL));
    int mine = 0;
    for (size_t i = 0; i < n; i++) mine += rows[i].memory_id && strcmp(rows[i].memory_id, "M-dl") == 0;
    CHECK_EQ_INT(mine, 4);
    /* each writer's two are next to each other: numbered at its commit */
    for (size_t i = 0; i + 1 < n; i++)
        if (rows[i].memory_id && strcmp(rows[i].memory_id, "M-dl") == 0) {
            CHECK(rows[i + 1].memory_id && strcmp(rows[i + 1].memory_id, "M-dl") == 0);
            int first_of_a = strcmp(rows[i].user_id, name[0]) == 0 || strcmp(rows[i].user_id, name[1]) == 0;
            int next_of_a = strcmp(rows[i + 1].user_id, name[0]) == 0 || strcmp(rows[i + 1].user_id, name[1]) == 0;
            CHECK_EQ_INT(first_of_a, next_of_a);
            break;
        }
    am__arena_free(&ar);
    s->vt->close(s);
}

/* ------------------------------------------------------------ the suite */

static void test_conformance(void)
{
    const char *pg_url = getenv("AM_PG_URL");
    char sq_path[128], sq_url[160];
    snprintf(sq_path, sizeof sq_path, "/tmp/am_conformance_%d.db", (int)getpid());
    snprintf(sq_url, sizeof sq_url, "sqlite:%s", sq_path);
    unlink(sq_path);
    const char *urls[2] = {sq_url, pg_url};
    int n_stores = pg_url && *pg_url ? 2 : 1;
    if (n_stores == 1) printf("store conformance: SQLite only ($AM_PG_URL not set)\n");
    /* the query terms: the tokenizer's terms of every word */
    am__arena tar;
    am__arena_init(&tar, &alloc);
    am__text *text = NULL;
    OK(am__text_open(&alloc, &text));
    const char *terms[64];
    size_t n_terms = 0;
    void *ctx[3] = {&tar, terms, &n_terms};
    for (size_t i = 0; i < N_WORDS && text; i++) {
        am__text_tokenize(text, words_en[i], strlen(words_en[i]), tok_term, ctx);
        am__text_tokenize(text, words_zh[i], strlen(words_zh[i]), tok_term, ctx);
    }
    static const char *const marks[] = {MARK_EN, MARK_ZH};
    for (size_t i = 0; i < 2 && text; i++) am__text_tokenize(text, marks[i], strlen(marks[i]), tok_term, ctx);
    am__text_close(text);
    CHECK(n_terms > 20);
    am__buf tr[2];
    static run runs[2];
    for (int k = 0; k < n_stores; k++) {
        memset(&runs[k], 0, sizeof runs[k]);
        am__buf_init(&tr[k], &alloc);
        am__buf_init(&runs[k].log, &alloc);
        runs[k].s = open_url(urls[k]);
        if (!runs[k].s) return;
        apply_ops(&runs[k]);
        am__buf_add(&tr[k], runs[k].log.p, runs[k].log.len);
        am__buf_free(&runs[k].log);
        read_back(&runs[k], terms, n_terms, &tr[k]);
        am__buf_addc(&tr[k], 0);
        CHECK(tr[k].len > 2000);
        const char *dump = getenv("AM_CONFORMANCE_DUMP"); /* to read a transcript */
        if (dump && *dump) {
            char path[600];
            snprintf(path, sizeof path, "%s.%d", dump, k);
            FILE *f = fopen(path, "w");
            if (f) fputs(tr[k].p, f);
            if (f) fclose(f);
        }
    }
    if (n_stores == 2) {
        int same = strcmp(tr[0].p, tr[1].p) == 0;
        if (!same) { /* the first line that differs */
            const char *a = tr[0].p, *b = tr[1].p;
            while (*a && *a == *b) a++, b++;
            while (a > tr[0].p && a[-1] != '\n') a--, b--;
            fprintf(stderr, "transcripts differ:\n sqlite:   %.200s\n postgres: %.200s\n", a, b);
        }
        CHECK(same);
        if (same)
            printf("store conformance: SQLite and PostgreSQL transcripts equal (%zu bytes)\n",
                   tr[0].len);
    }
    am__buf g[2];
    for (int k = 0; k < n_stores; k++) {
        am__buf_init(&g[k], &alloc);
        grace_cycle(&runs[k], urls[k], k == 1, terms, n_terms, &g[k]);
        am__buf_addc(&g[k], 0);
    }
    if (n_stores == 2) {
        int same = strcmp(g[0].p, g[1].p) == 0;
        if (!same) {
            const char *a = g[0].p, *b = g[1].p;
            while (*a && *a == *b) a++, b++;
            while (a > g[0].p && a[-1] != '\n') a--, b--;
            fprintf(stderr, "grace transcripts differ:\n sqlite:   %.300s\n postgres: %.300s\n", a, b);
        }
        CHECK(same);
        if (same)
            printf("store conformance: forgets with a grace period, restore and purge agree (%zu bytes)\n",
                   g[0].len);
    }
    for (int k = 0; k < n_stores; k++) am__buf_free(&g[k]);
    for (int k = 0; k < n_stores; k++) {
        forget_everywhere(&runs[k], urls[k], k == 1);
        runs[k].s->vt->close(runs[k].s);
        am__buf_free(&tr[k]);
    }
    /* as-of on a second fresh store of each kind */
    const char *pg2 = getenv("AM_PG_URL2");
    unlink(sq_path);
    const char *urls2[2] = {sq_url, pg2};
    int n2 = pg2 && *pg2 ? 2 : 1;
    am__buf v[2];
    for (int k = 0; k < n2; k++) {
        am__buf_init(&v[k], &alloc);
        am__store *s = open_url(urls2[k]);
        if (!s) continue;
        as_of(s);
        s->vt->close(s);
        vault_cases(urls2[k], k == 1, &v[k]);
        am__buf_addc(&v[k], 0);
        if (k == 1) pg_faults(urls2[k]);
        if (k == 1) pg_user_locks(urls2[k]);
        if (k == 1) pg_no_deadlock(urls2[k]);
    }
    if (n2 == 2) {
        if (strcmp(v[0].p, v[1].p) != 0)
            fprintf(stderr, "vault transcripts differ:\n sqlite:\n%s postgres:\n%s", v[0].p, v[1].p);
        CHECK(strcmp(v[0].p, v[1].p) == 0);
        if (getenv("AM_CONFORMANCE_DUMP")) fputs(v[1].p, stdout);
        if (strcmp(v[0].p, v[1].p) == 0)
            printf("store conformance: the PII vault sealed with a key agrees (%zu bytes)\n", v[0].len);
    }
    for (int k = 0; k < n2; k++) am__buf_free(&v[k]);
    char side[160];
    unlink(sq_path);
    snprintf(side, sizeof side, "%s-wal", sq_path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", sq_path);
    unlink(side);
    am__arena_free(&tar);
}

/* A URL of an unknown scheme is refused by name; a PostgreSQL URL that
 * reaches no server fails cleanly (AM_IO), its password never shown. */
static void test_urls(void)
{
    am__store_opts o = {&alloc, 5000, 0, 0, 0, NULL, 0, 0};
    am__store *s = (am__store *)1;
    char err[512];
    CHECK_EQ_INT(am__store_open("redis://localhost/0", &o, &s, err, sizeof err), AM_INVALID);
    CHECK(s == NULL);
    CHECK_CONTAINS(err, "unsupported backend");
    CHECK_CONTAINS(err, "postgres://");
    int rc = am__store_open("postgresql://am:s3cret@127.0.0.1:1/none?connect_timeout=2", &o, &s,
                            err, sizeof err);
    CHECK_EQ_INT(rc, AM_IO);
    CHECK(s == NULL);
    CHECK_CONTAINS(err, "cannot connect");
    CHECK(strstr(err, "s3cret") == NULL);
}

int main(void)
{
    RUN(test_urls);
    RUN(test_conformance);
    TEST_MAIN_END();
}
