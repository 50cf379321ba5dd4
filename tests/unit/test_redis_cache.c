/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_redis_cache.c -- the shared cache (am_config.cache, Redis): the
 * recall cache (hits identical to a fresh recall, invalidated by the
 * user's own writes and by another handle's, TTL), working memory (across
 * handles, TTL, and in the SQLite store without a cache), Redis killed
 * and restarted, Redis stopped while a write happens (the epoch), and
 * forgetting leaving no key, in Chinese and English.
 *
 * Starts its own throwaway redis-server (a temporary directory, a free
 * loopback port, a password; killed at the end) and prints
 * "SKIP: no redis-server" and exits 77 (skipped) when there is none.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agentmem.h"
#include "agentmem_ops.h"
#include "api/db_int.h"
#include "test.h"

#define PASSWORD "s3cret-pw-42"

static char g_dir[256], g_db[300], g_url[128], g_port[16];
static pid_t g_redis = -1;

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t n = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || getsockname(fd, (struct sockaddr *)&a, &n)) {
        if (fd >= 0) close(fd);
        return -1;
    }
    close(fd);
    return ntohs(a.sin_port);
}

static redisContext *raw_conn(void)
{
    struct timeval tv = {1, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", atoi(g_port), tv);
    if (!c || c->err) {
        if (c) redisFree(c);
        return NULL;
    }
    redisReply *r = redisCommand(c, "AUTH %s", PASSWORD);
    int ok = r && r->type != REDIS_REPLY_ERROR;
    if (r) freeReplyObject(r);
    if (!ok) {
        redisFree(c);
        return NULL;
    }
    return c;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) && errno == EINTR) {}
}

static int redis_start(void)
{
    pid_t p = fork();
    if (p < 0) return -1;
    if (p == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) { dup2(fd, 1); dup2(fd, 2); }
        execlp("redis-server", "redis-server", "--port", g_port, "--bind", "127.0.0.1", "--save", "",
               "--appendonly", "no", "--daemonize", "no", "--dir", g_dir, "--requirepass", PASSWORD,
               (char *)NULL);
        _exit(127);
    }
    g_redis = p;
    for (int i = 0; i < 100; i++) {
        redisContext *c = raw_conn();
        if (c) {
            redisFree(c);
            return 0;
        }
        sleep_ms(50);
    }
    return -1;
}

static void redis_kill(void)
{
    if (g_redis <= 0) return;
    kill(g_redis, SIGKILL);
    waitpid(g_redis, NULL, 0);
    g_redis = -1;
}

/* ------------------------------------------------------------ helpers */

static am_time g_now = 1764633600000LL; /* 2025-12-02T00:00:00Z */
static am_time fixed_clock(void *ctx) { (void)ctx; return g_now; }

static int g_hits;
static char g_log[4096];
static void log_fn(void *ctx, int level, const char *msg)
{
    (void)ctx;
    if (strstr(msg, "served from the cache")) g_hits++;
    if (level <= AM_LOG_INFO) snprintf(g_log + strlen(g_log), sizeof g_log - strlen(g_log), "%s\n", msg);
}

static am_db *open_with(const char *cache)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = g_db;
    cfg.clock = fixed_clock;
    cfg.cache = cache;
    cfg.log = log_fn;
    am_db *db = NULL;
    char *err = NULL;
    int rc = am_open(&cfg, &db, &err);
    if (rc) fprintf(stderr, "open: %s\n", err ? err : "?");
    am_free(err);
    return db;
}

static void add(am_db *db, const char *user, const char *session, const char *text)
{
    am_event e;
    memset(&e, 0, sizeof e);
    e.user_id = user;
    e.session_id = session;
    e.source = "user";
    e.type = "query";
    e.text = text;
    char at[40];
    g_now += 60000;
    am_time_format(g_now, 0, at);
    e.occurred_at = at;
    int rc = am_add_event(db, &e, NULL);
    if (rc) fprintf(stderr, "add: %s\n", am_errmsg(db));
    CHECK_EQ_INT(rc, AM_OK);
}

/* Every field of a result, doubles as their bits: two dumps are equal
 * when the results are the same to the bit. */
static void dump_str(am__buf *b, const char *s) { am__buf_printf(b, "[%s]", s ? s : "(null)"); }
static void dump_dbl(am__buf *b, double d)
{
    uint64_t x;
    memcpy(&x, &d, sizeof x);
    am__buf_printf(b, "<%016llx>", (unsigned long long)x);
}
static char *dump(const am_recall_result *r)
{
    am__buf b;
    am__buf_init(&b, NULL);
    am__buf_printf(&b, "%d %d %d %d %d %u", r->need_memory, r->domain_conflict, r->block_tokens,
                   r->block_system_tokens, r->block_context_tokens, r->refs);
    dump_str(&b, r->route); dump_str(&b, r->lang); dump_str(&b, r->block);
    dump_str(&b, r->block_system); dump_str(&b, r->block_context); dump_str(&b, r->route_reason);
    for (size_t i = 0; i < r->n_memories; i++) {
        const am_memory *m = &r->memories[i];
        dump_str(&b, m->id); dump_str(&b, m->lineage_id); dump_str(&b, m->scope);
        dump_str(&b, m->kind); dump_str(&b, m->key); dump_str(&b, m->text);
        dump_str(&b, m->value_json); dump_str(&b, m->status);
        dump_dbl(&b, m->confidence); dump_dbl(&b, m->base_score); dump_dbl(&b, m->half_life_days);
        dump_dbl(&b, m->score);
        am__buf_printf(&b, "%ld %lld %lld %lld %lld %lld %ld %lld", m->hits, (long long)m->last_access,
                       (long long)m->valid_from, (long long)m->valid_to, (long long)m->recorded_at,
                       (long long)m->superseded_at, m->source_count, (long long)m->reinforced_at);
        for (size_t k = 0; k < m->n_sources; k++) dump_str(&b, m->source_event_ids[k]);
    }
    for (size_t i = 0; i < r->n_events; i++) {
        const am_event_rec *e = &r->events[i];
        const char *s[] = {e->id, e->agent_id, e->session_id, e->task_id, e->channel,
                           e->source, e->type, e->domain, e->intent, e->content};
        for (size_t k = 0; k < 10; k++) dump_str(&b, s[k]);
        am__buf_printf(&b, "%lld %d", (long long)e->occurred_at, e->tz_minutes);
        dump_dbl(&b, e->score);
    }
    if (r->task) {
        const am_task *t = r->task;
        const char *s[] = {t->task_id, t->name, t->stage, t->status, t->artifacts_json,
                           t->pending_json, t->notes_json, t->period, t->rounds_json};
        for (size_t k = 0; k < 9; k++) dump_str(&b, s[k]);
        am__buf_printf(&b, "%lld %lld %d %lld", (long long)t->created_at, (long long)t->updated_at,
                       t->round, (long long)t->round_started_at);
        for (size_t k = 0; k < t->n_history; k++) {
            dump_str(&b, t->history[k].field); dump_str(&b, t->history[k].old_value);
            dump_str(&b, t->history[k].new_value); dump_str(&b, t->history[k].event_id);
        }
    }
    dump_str(&b, r->json);
    return am__buf_take(&b);
}

static char *recall_dump(am_db *db, const char *user, const char *text, int no_touch)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = user;
    q.text = text;
    q.no_touch = no_touch;
    am_recall_result *r = NULL;
    int rc = am_recall(db, &q, &r);
    CHECK_EQ_INT(rc, AM_OK);
    if (rc) return strdup("(error)");
    char *d = dump(r);
    am_recall_free(r);
    return d;
}

/* Keys of the Redis matching pattern. */
static long count_keys(const char *pattern)
{
    redisContext *c = raw_conn();
    if (!c) return -1;
    redisReply *r = redisCommand(c, "KEYS %s", pattern);
    long n = r && r->type == REDIS_REPLY_ARRAY ? (long)r->elements : -1;
    if (r) freeReplyObject(r);
    redisFree(c);
    return n;
}

static int has_bytes(const char *p, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; m && i + m <= n; i++)
        if (memcmp(p + i, needle, m) == 0) return 1;
    return 0;
}

/* 1 when no key name, and no value of any key, holds needle. */
static int redis_free_of(const char *needle)
{
    redisContext *c = raw_conn();
    if (!c) return 0;
    int clean = 1;
    char cursor[32] = "0";
    do {
        redisReply *r = redisCommand(c, "SCAN %s COUNT 1000", cursor);
        if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) { clean = 0; break; }
        snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        for (size_t i = 0; i < r->element[1]->elements; i++) {
            const char *k = r->element[1]->element[i]->str;
            if (strstr(k, needle)) {
                fprintf(stderr, "key %s holds %s\n", k, needle);
                clean = 0;
            }
            redisReply *d = redisCommand(c, "DUMP %s", k);
            if (d && d->type == REDIS_REPLY_STRING && has_bytes(d->str, d->len, needle)) {
                fprintf(stderr, "the value of %s holds %s\n", k, needle);
                clean = 0;
            }
            if (d) freeReplyObject(d);
        }
        freeReplyObject(r);
    } while (strcmp(cursor, "0") != 0);
    redisFree(c);
    return clean;
}

static void fresh_store(void)
{
    unlink(g_db);
    char p[340];
    snprintf(p, sizeof p, "%s-wal", g_db);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", g_db);
    unlink(p);
}

/* ------------------------------------------------------------ tests */

static void test_url_checks(void)
{
    static const char *const bad[] = {
        "postgres://am@127.0.0.1/x", "http://127.0.0.1:6379", "redis://", "redis://:" PASSWORD "@host:99999",
        "redis://:" PASSWORD "@h:6379/x", "redis://h:6379?ttl_ms=abc", "redis:// h:1", "127.0.0.1:6379",
        "redis://" PASSWORD "@h:1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        am_config cfg;
        am_config_init(&cfg);
        cfg.path = ":memory:";
        cfg.cache = bad[i];
        am_db *db = NULL;
        char *err = NULL;
        int rc = am_open(&cfg, &db, &err);
        CHECK_EQ_INT(rc, AM_INVALID);
        CHECK(db == NULL);
        CHECK_CONTAINS(err, "cache");
        CHECK(!err || !strstr(err, PASSWORD));
        am_free(err);
    }
    am_db *db = open_with(NULL);
    CHECK(db != NULL);
    const char *e;
    CHECK_EQ_STR(am_cache_state(db, &e), "none");
    am_close(db);
}

static void test_hit_identical(void)
{
    fresh_store();
    am_db *a = open_with(g_url), *plain = open_with(NULL);
    CHECK(a && plain);
    if (!a || !plain) return;
    CHECK_EQ_STR(am_cache_state(a, NULL), "up");
    add(a, "u-zh", "s1", "我喜欢喝绿茶，不加糖。");
    add(a, "u-zh", "s1", "以后周报都用要点式。");
    add(a, "u-en", "s1", "I prefer my weekly reports as bullet points.");
    add(a, "u-en", "s1", "My dog is called Biscuit.");
    static const char *const q[][2] = {{"u-zh", "我喜欢喝什么？"}, {"u-zh", "周报用什么格式"},
                                      {"u-en", "How should the weekly report look?"},
                                      {"u-en", "what is my dog's name"}};
    for (size_t i = 0; i < 4; i++) {
        g_hits = 0;
        char *first = recall_dump(a, q[i][0], q[i][1], 1);
        CHECK_EQ_INT(g_hits, 0);
        char *cached = recall_dump(a, q[i][0], q[i][1], 1);
        CHECK_EQ_INT(g_hits, 1);
        char *fresh = recall_dump(plain, q[i][0], q[i][1], 1);
        CHECK_EQ_STR(cached, first);
        CHECK_EQ_STR(cached, fresh);
        free(first);
        free(cached);
        free(fresh);
    }
    /* a recall that touches what it shows is not served from the cache:
     * its touch moves the hits a fresh recall shows next */
    g_hits = 0;
    char *t1 = recall_dump(a, "u-en", "How should the weekly report look?", 0);
    char *t2 = recall_dump(a, "u-en", "How should the weekly report look?", 0);
    char *t3 = recall_dump(plain, "u-en", "How should the weekly report look?", 1);
    CHECK_EQ_INT(g_hits, 0);
    char *t4 = recall_dump(a, "u-en", "How should the weekly report look?", 1);
    CHECK_EQ_STR(t3, t4);
    CHECK(strcmp(t1, t2) != 0); /* hits moved */
    free(t4);
    free(t1);
    free(t2);
    free(t3);
    /* no raw text in a key name */
    CHECK(count_keys("*u-zh*") == 0 && count_keys("*u-en*") == 0);
    CHECK(count_keys("*weekly*") == 0);
    am_close(a);
    am_close(plain);
}

/* An item that expires inside the cache's time bucket (a second): a
 * result showing it is not kept, so the recall after the end (the same
 * bucket, nothing written in between) no longer shows it (zh, en). */
static void test_expiry_in_bucket(void)
{
    fresh_store();
    am_db *a = open_with(g_url);
    CHECK(a != NULL);
    if (!a) return;
    am_time saved = g_now;
    g_now = 1764633600000LL + 100; /* 2025-12-02T00:00:00.100Z */
    static const char *const texts[][3] = {
        {"u-en", "The lift in building C is out of order", "Is the lift in building C working?"},
        {"u-zh", "C栋的电梯坏了", "C栋的电梯能用吗？"}};
    for (size_t i = 0; i < 2; i++) {
        am_memory_input in;
        memset(&in, 0, sizeof in);
        in.user_id = texts[i][0];
        in.text = texts[i][1];
        in.kind = "fact";
        in.expires_at = "2025-12-02T00:00:00.600Z";
        CHECK_EQ_INT(am_memory_add(a, &in, NULL), AM_OK);
    }
    for (size_t i = 0; i < 2; i++) {
        g_now = 1764633600000LL + 300;
        g_hits = 0;
        char *before = recall_dump(a, texts[i][0], texts[i][2], 1);
        CHECK(strstr(before, i ? "电梯坏了" : "out of order") != NULL);
        g_now = 1764633600000LL + 700; /* ended; the same second */
        char *after = recall_dump(a, texts[i][0], texts[i][2], 1);
        CHECK_EQ_INT(g_hits, 0);
        CHECK(strstr(after, i ? "电梯坏了" : "out of order") == NULL);
        free(before);
        free(after);
    }
    g_now = saved;
    am_close(a);
}

static void test_invalidation(void)
{
    fresh_store();
    am_db *a = open_with(g_url), *b = open_with(g_url);
    CHECK(a && b);
    if (!a || !b) return;
    add(a, "u1", "s1", "我住在杭州。");
    add(a, "u2", "s1", "I live in Lisbon.");
    char *zh1 = recall_dump(a, "u1", "我住在哪里？", 1);
    char *en1 = recall_dump(a, "u2", "Where do I live?", 1);
    /* the user's own write */
    add(a, "u1", "s1", "我搬到了成都，现在住在成都。");
    g_hits = 0;
    char *zh2 = recall_dump(a, "u1", "我住在哪里？", 1);
    CHECK_EQ_INT(g_hits, 0);
    CHECK_CONTAINS(zh2, "成都");
    CHECK(strcmp(zh1, zh2) != 0);
    /* another handle's write (another server on the same store and Redis) */
    add(b, "u2", "s1", "I moved to Porto, I live in Porto now.");
    g_hits = 0;
    char *en2 = recall_dump(a, "u2", "Where do I live?", 1);
    CHECK_EQ_INT(g_hits, 0);
    CHECK_CONTAINS(en2, "Porto");
    /* and a write of another user moves nothing of this one */
    char *en3 = recall_dump(a, "u2", "Where do I live?", 1);
    am_time then = g_now;
    add(b, "u1", "s1", "今天天气不错。");
    g_now = then; /* the same recall time: a hit needs it (api/cache.c) */
    g_hits = 0;
    char *en4 = recall_dump(a, "u2", "Where do I live?", 1);
    CHECK_EQ_INT(g_hits, 1);
    CHECK_EQ_STR(en3, en4);
    /* feedback through the other handle */
    am_memory_list *l = NULL;
    CHECK_EQ_INT(am_memories(b, "u2", AM_LIST_ACTIVE, NULL, &l), AM_OK);
    if (l && l->n) {
        CHECK_EQ_INT(am_feedback(b, "u2", l->items[0].lineage_id, AM_FEEDBACK_REJECT, NULL), AM_OK);
        g_hits = 0;
        char *en5 = recall_dump(a, "u2", "Where do I live?", 1);
        CHECK_EQ_INT(g_hits, 0);
        free(en5);
    }
    am_memory_list_free(l);
    free(zh1); free(zh2); free(en1); free(en2); free(en3); free(en4);
    am_close(a);
    am_close(b);
}

static void test_ttl(void)
{
    fresh_store();
    char url[200];
    snprintf(url, sizeof url, "%s?ttl_ms=300", g_url);
    am_db *a = open_with(url);
    CHECK(a != NULL);
    if (!a) return;
    add(a, "u-ttl", "s1", "我的车是红色的。My car is red.");
    g_hits = 0;
    char *d1 = recall_dump(a, "u-ttl", "我的车是什么颜色", 1);
    char prefix[48], pat[64];
    CHECK_EQ_INT(am__dbcache_prefix(a, "u-ttl", prefix), AM_OK);
    snprintf(pat, sizeof pat, "%sr:*", prefix);
    CHECK_EQ_INT(count_keys(pat), 1);
    sleep_ms(450);
    CHECK_EQ_INT(count_keys(pat), 0);
    char *d2 = recall_dump(a, "u-ttl", "我的车是什么颜色", 1);
    CHECK_EQ_INT(g_hits, 0);
    CHECK_EQ_STR(d1, d2);
    free(d1);
    free(d2);
    am_close(a);
}

static void test_working_redis(void)
{
    fresh_store();
    am_db *a = open_with(g_url), *b = open_with(g_url);
    CHECK(a && b);
    if (!a || !b) return;
    CHECK_EQ_INT(am_working_set(a, "w1", "sess-1", "计划", "第一步：整理数据；第二步：写周报", 60000), AM_OK);
    CHECK_EQ_INT(am_working_set(a, "w1", "sess-1", "draft", "Dear team,\nthe report is attached.", 200), AM_OK);
    char *v = NULL;
    CHECK_EQ_INT(am_working_get(b, "w1", "sess-1", "计划", &v), AM_OK);
    CHECK_EQ_STR(v, "第一步：整理数据；第二步：写周报");
    am_free(v);
    am_working_entries *l = NULL;
    CHECK_EQ_INT(am_working_list(b, "w1", "sess-1", &l), AM_OK);
    CHECK_EQ_INT(l ? l->n : 0, 2);
    if (l && l->n == 2) {
        CHECK_EQ_STR(l->entries[0].key, "draft");
        CHECK_EQ_STR(l->entries[1].key, "计划");
        CHECK_CONTAINS(l->json, "\"session\":\"sess-1\"");
    }
    am_working_list_free(l);
    /* another session, another user: nothing */
    CHECK_EQ_INT(am_working_get(b, "w1", "sess-2", "计划", &v), AM_NOTFOUND);
    CHECK_EQ_INT(am_working_get(b, "w2", "sess-1", "计划", &v), AM_NOTFOUND);
    /* expiry (Redis's clock) */
    sleep_ms(350);
    CHECK_EQ_INT(am_working_get(b, "w1", "sess-1", "draft", &v), AM_NOTFOUND);
    CHECK_EQ_INT(am_working_list(a, "w1", "sess-1", &l), AM_OK);
    CHECK_EQ_INT(l ? l->n : 0, 1);
    am_working_list_free(l);
    /* checks: the field named, nothing written */
    char big[AM_WORKING_VALUE_MAX + 2];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    CHECK_EQ_INT(am_working_set(a, "w1", "sess-1", "k", big, 1000), AM_TOOBIG);
    CHECK_EQ_INT(am_working_set(a, "w1", "sess-1", "k", "bad \xff", 1000), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(a), "value");
    CHECK_EQ_INT(am_working_set(a, "w1", "sess-1", "k", "ctl \x01", 1000), AM_INVALID);
    CHECK_EQ_INT(am_working_set(a, "w1", "sess-1", "k\x01", "v", 1000), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(a), "key");
    CHECK_EQ_INT(am_working_set(a, "w1", "sess-1", "k", "v", 0), AM_INVALID);
    CHECK_CONTAINS(am_errmsg(a), "ttl");
    CHECK_EQ_INT(am_working_set(a, "w1", "sess\xe2\x80\xae", "k", "v", 10), AM_INVALID);
    CHECK_EQ_INT(am_working_get(a, "w1", "sess-1", "k", &v), AM_NOTFOUND);
    /* the key limit */
    int rc = AM_OK, i;
    for (i = 0; i < AM_WORKING_KEYS_MAX + 1 && rc == AM_OK; i++) {
        char k[16];
        snprintf(k, sizeof k, "k%d", i);
        rc = am_working_set(a, "w3", "s", k, "v", 60000);
    }
    CHECK_EQ_INT(rc, AM_TOOBIG);
    CHECK_EQ_INT(i, AM_WORKING_KEYS_MAX + 1);
    CHECK_EQ_INT(am_working_set(a, "w3", "s", "k0", "replaced", 60000), AM_OK);
    /* clear one, then the session */
    CHECK_EQ_INT(am_working_clear(a, "w1", "sess-1", "计划"), AM_OK);
    CHECK_EQ_INT(am_working_get(b, "w1", "sess-1", "计划", &v), AM_NOTFOUND);
    CHECK_EQ_INT(am_working_clear(a, "w3", "s", NULL), AM_OK);
    CHECK_EQ_INT(am_working_list(b, "w3", "s", &l), AM_OK);
    CHECK_EQ_INT(l ? l->n : 1, 0);
    am_working_list_free(l);
    char prefix[48], pat[64];
    am__dbcache_prefix(a, "w3", prefix);
    snprintf(pat, sizeof pat, "%s*", prefix);
    CHECK_EQ_INT(count_keys(pat), 0);
    am_close(a);
    am_close(b);
}

static long sql_count(const char *sql)
{
    sqlite3 *s;
    long n = -1;
    if (sqlite3_open(g_db, &s) == SQLITE_OK) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(s);
    return n;
}

static void test_working_sqlite(void)
{
    fresh_store();
    am_db *a = open_with(NULL), *b = open_with(NULL);
    CHECK(a && b);
    if (!a || !b) return;
    CHECK_EQ_INT(am_working_set(a, "w1", "s1", "目标", "订三张去上海的票", 1000), AM_OK);
    CHECK_EQ_INT(am_working_set(a, "w1", "s1", "goal", "book three tickets", 5000), AM_OK);
    char *v = NULL;
    CHECK_EQ_INT(am_working_get(b, "w1", "s1", "目标", &v), AM_OK);
    CHECK_EQ_STR(v, "订三张去上海的票");
    am_free(v);
    g_now += 1000; /* the engine's clock: 目标 has expired */
    CHECK_EQ_INT(am_working_get(b, "w1", "s1", "目标", &v), AM_NOTFOUND);
    am_working_entries *l = NULL;
    CHECK_EQ_INT(am_working_list(b, "w1", "s1", &l), AM_OK);
    CHECK_EQ_INT(l ? l->n : 0, 1);
    if (l && l->n) CHECK_EQ_STR(l->entries[0].value, "book three tickets");
    am_working_list_free(l);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM records WHERE ns = 'working'"), 2);
    CHECK_EQ_INT(am_working_set(a, "w1", "s1", "next", "pay", 5000), AM_OK); /* purges the expired */
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM records WHERE ns = 'working' AND key LIKE '%' || char(31) || '目标'"), 0);
    /* a forgotten user's rows go */
    add(a, "w1", "s1", "I live in Oslo.");
    CHECK_EQ_INT(am_forget(a, "w1", AM_FORGET_USER, NULL, NULL), AM_OK);
    CHECK_EQ_INT(sql_count("SELECT count(*) FROM records WHERE ns = 'working'"), 0);
    am_close(a);
    am_close(b);
}

static void test_redis_down(void)
{
    fresh_store();
    g_log[0] = 0;
    am_db *a = open_with(g_url), *plain = open_with(NULL);
    CHECK(a && plain);
    if (!a || !plain) return;
    add(a, "d1", "s1", "我对花生过敏。");
    add(a, "d2", "s1", "I am allergic to peanuts.");
    char *zh = recall_dump(plain, "d1", "我对什么过敏", 1), *en = recall_dump(plain, "d2", "what am I allergic to", 1);
    char *zhc = recall_dump(a, "d1", "我对什么过敏", 1);
    CHECK_EQ_STR(zhc, zh);
    redis_kill();
    /* down: the same results, no error, the state says so */
    char *zh2 = recall_dump(a, "d1", "我对什么过敏", 1), *en2 = recall_dump(a, "d2", "what am I allergic to", 1);
    CHECK_EQ_STR(zh2, zh);
    CHECK_EQ_STR(en2, en);
    const char *err = NULL;
    CHECK_EQ_STR(am_cache_state(a, &err), "down");
    CHECK(err && *err);
    CHECK(!strstr(err, PASSWORD));
    CHECK_CONTAINS(g_log, "down");
    CHECK(!strstr(g_log, PASSWORD));
    /* a write while down commits */
    add(a, "d2", "s1", "I am also allergic to shellfish.");
    char *en3 = recall_dump(a, "d2", "what am I allergic to", 1);
    CHECK_CONTAINS(en3, "shellfish");
    /* working memory says the cache is down */
    CHECK_EQ_INT(am_working_set(a, "d1", "s1", "k", "v", 1000), AM_BACKEND);
    CHECK_CONTAINS(am_errmsg(a), "cache is down");
    /* never long: a recall while down takes no connect timeout once
     * the retry interval runs */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    free(recall_dump(a, "d1", "我对什么过敏", 1));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 < 250);
    /* back: up again on a later call (after the retry interval) */
    CHECK_EQ_INT(redis_start(), 0);
    sleep_ms(1100);
    char *zh3 = recall_dump(a, "d1", "我对什么过敏", 1);
    free(zh);
    zh = recall_dump(plain, "d1", "我对什么过敏", 1); /* at the same clock: add moved it */
    CHECK_EQ_STR(zh3, zh);
    CHECK_EQ_STR(am_cache_state(a, &err), "up");
    CHECK_CONTAINS(g_log, "up");
    g_hits = 0;
    free(recall_dump(a, "d1", "我对什么过敏", 1));
    CHECK_EQ_INT(g_hits, 1);
    free(zh); free(en); free(zhc); free(zh2); free(en2); free(en3); free(zh3);
    am_close(a);
    am_close(plain);
}

static long ms_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (long)((t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000);
}

/* Redis hanging (stopped, a partition): a write and a recall wait at most
 * the command timeout (300 ms), once; then the handle does not try again
 * before the retry interval. */
static void test_redis_hanging(void)
{
    fresh_store();
    am_db *a = open_with(g_url);
    CHECK(a != NULL);
    if (!a) return;
    add(a, "h1", "s1", "我的航班是周五早上八点。");
    free(recall_dump(a, "h1", "我的航班是什么时候", 1));
    kill(g_redis, SIGSTOP);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    add(a, "h1", "s1", "航班改到了周六。");
    long add_ms = ms_since(&t0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char *d = recall_dump(a, "h1", "我的航班是什么时候", 1);
    long recall_ms = ms_since(&t0);
    kill(g_redis, SIGCONT);
    CHECK(add_ms < 1000);
    CHECK(recall_ms < 250);
    CHECK_CONTAINS(d, "周六");
    CHECK_EQ_STR(am_cache_state(a, NULL), "down");
    free(d);
    am_close(a);
}

/* A write while Redis is unreachable cannot move the generation; when
 * the same Redis (its data kept: here saved and loaded again) answers
 * again, the entries cached before must not come back: the epoch. */
static void test_epoch_after_restart(void)
{
    fresh_store();
    am_db *a = open_with(g_url);
    CHECK(a != NULL);
    if (!a) return;
    add(a, "p1", "s1", "My favourite colour is green.");
    free(recall_dump(a, "p1", "what is my favourite colour", 1));
    g_hits = 0;
    free(recall_dump(a, "p1", "what is my favourite colour", 1));
    CHECK_EQ_INT(g_hits, 1);
    redisContext *c = raw_conn();
    redisReply *r = c ? redisCommand(c, "SAVE") : NULL;
    CHECK(r && r->type == REDIS_REPLY_STATUS);
    if (r) freeReplyObject(r);
    if (c) redisFree(c);
    redis_kill();
    am_time then = g_now;
    add(a, "p1", "s1", "Correction: my favourite colour is blue now.");
    g_now = then; /* the recall time of the entry cached before */
    CHECK_EQ_INT(redis_start(), 0); /* loads the saved keys: the old entry, the old generation */
    char rdb[320];
    snprintf(rdb, sizeof rdb, "%s/dump.rdb", g_dir);
    unlink(rdb);
    sleep_ms(1100);
    g_hits = 0;
    char *d2 = recall_dump(a, "p1", "what is my favourite colour", 1);
    CHECK_EQ_INT(g_hits, 0);
    CHECK_CONTAINS(d2, "blue");
    CHECK_EQ_STR(am_cache_state(a, NULL), "up");
    free(d2);
    am_close(a);
}

/* A store made again at the same path is another store: nothing of the
 * old one's cache is served for it. */
static void test_recreated_store(void)
{
    fresh_store();
    am_db *a = open_with(g_url);
    CHECK(a != NULL);
    if (!a) return;
    add(a, "re", "s1", "我最喜欢的音乐是爵士乐。");
    am_time then = g_now;
    char *d1 = recall_dump(a, "re", "我喜欢什么音乐", 1);
    CHECK_CONTAINS(d1, "爵士");
    am_close(a);
    fresh_store();
    a = open_with(g_url);
    CHECK(a != NULL);
    if (!a) { free(d1); return; }
    g_now = then;
    g_hits = 0;
    char *d2 = recall_dump(a, "re", "我喜欢什么音乐", 1);
    CHECK_EQ_INT(g_hits, 0);
    CHECK(!strstr(d2, "爵士"));
    free(d1);
    free(d2);
    am_close(a);
}

static void test_forget_purges(void)
{
    fresh_store();
    am_db *a = open_with(g_url), *b = open_with(g_url);
    CHECK(a && b);
    if (!a || !b) return;
    static const char *const zh_secret = "我的保险箱密码藏在蓝色花瓶下面";
    static const char *const en_secret = "the spare key hides under the blue flowerpot";
    add(a, "forget-zh-user", "s1", zh_secret);
    add(a, "forget-zh-user", "s2", "我喜欢爬山。");
    add(a, "forget-en-user", "s1", en_secret);
    add(a, "keep", "s1", "I like tea.");
    free(recall_dump(a, "forget-zh-user", "保险箱密码在哪里", 1));
    free(recall_dump(a, "forget-zh-user", "我喜欢什么运动", 1));
    free(recall_dump(a, "forget-en-user", "where is the spare key", 1));
    free(recall_dump(a, "keep", "what do I like", 1));
    CHECK_EQ_INT(am_working_set(a, "forget-zh-user", "s1", "备注", zh_secret, 60000), AM_OK);
    CHECK_EQ_INT(am_working_set(a, "forget-zh-user", "s2", "note", "climb on Sunday", 60000), AM_OK);
    CHECK_EQ_INT(am_working_set(a, "forget-en-user", "s1", "note", en_secret, 60000), AM_OK);
    CHECK(!redis_free_of("flowerpot")); /* the scan sees values: it is there now */

    /* a session: its recall entries and its working memory go, the other
     * session's working memory stays */
    char pz[48], pe[48], pk[48], pat[64];
    am__dbcache_prefix(a, "forget-zh-user", pz);
    am__dbcache_prefix(a, "forget-en-user", pe);
    am__dbcache_prefix(a, "keep", pk);
    CHECK_EQ_INT(am_forget(b, "forget-zh-user", AM_FORGET_SESSION, "s1", NULL), AM_OK);
    snprintf(pat, sizeof pat, "%sr:*", pz);
    CHECK_EQ_INT(count_keys(pat), 0);
    CHECK(redis_free_of(zh_secret));
    char *v = NULL;
    CHECK_EQ_INT(am_working_get(a, "forget-zh-user", "s2", "note", &v), AM_OK);
    am_free(v);

    /* the user: nothing of it is left */
    CHECK_EQ_INT(am_forget(b, "forget-zh-user", AM_FORGET_USER, NULL, NULL), AM_OK);
    CHECK_EQ_INT(am_forget(b, "forget-en-user", AM_FORGET_USER, NULL, NULL), AM_OK);
    snprintf(pat, sizeof pat, "%s*", pz);
    CHECK_EQ_INT(count_keys(pat), 0);
    snprintf(pat, sizeof pat, "%s*", pe);
    CHECK_EQ_INT(count_keys(pat), 0);
    CHECK(redis_free_of("forget-zh-user") && redis_free_of("forget-en-user") && redis_free_of("forget-"));
    CHECK(redis_free_of(pz + 4) && redis_free_of(pe + 4)); /* the hashed prefix, bare */
    CHECK(redis_free_of(zh_secret) && redis_free_of("保险箱") && redis_free_of("爬山"));
    CHECK(redis_free_of(en_secret) && redis_free_of("flowerpot") && redis_free_of("Sunday"));
    /* another user's keys stay */
    snprintf(pat, sizeof pat, "%s*", pk);
    CHECK(count_keys(pat) > 0);
    /* a forget's recall afterwards answers empty, not from the cache */
    g_hits = 0;
    char *d = recall_dump(a, "forget-en-user", "where is the spare key", 1);
    CHECK_EQ_INT(g_hits, 0);
    CHECK(!strstr(d, "flowerpot"));
    free(d);
    am_close(a);
    am_close(b);
}

/* forgotten while Redis is down: the purge waits in the handle and runs
 * as soon as Redis answers */
static void test_forget_while_down(void)
{
    fresh_store();
    am_db *a = open_with(g_url);
    CHECK(a != NULL);
    if (!a) return;
    add(a, "forget-down-user", "s1", "My locker code is 4471 at the gym on Elm street.");
    free(recall_dump(a, "forget-down-user", "what is my locker code", 1));
    CHECK_EQ_INT(am_working_set(a, "forget-down-user", "s1", "note", "Elm street gym", 60000), AM_OK);
    kill(g_redis, SIGSTOP);
    CHECK_EQ_INT(am_forget(a, "forget-down-user", AM_FORGET_USER, NULL, NULL), AM_OK);
    kill(g_redis, SIGCONT);
    CHECK(!redis_free_of("Elm street"));
    sleep_ms(1100);
    free(recall_dump(a, "keep", "anything", 1)); /* any use of the cache */
    CHECK(redis_free_of("Elm street"));
    char p[48], pat[64];
    am__dbcache_prefix(a, "forget-down-user", p);
    snprintf(pat, sizeof pat, "%s*", p);
    CHECK_EQ_INT(count_keys(pat), 0);
    am_close(a);
}

int main(void)
{
    if (system("command -v redis-server >/dev/null 2>&1") != 0) {
        printf("SKIP: no redis-server\n");
        return 77;
    }
    snprintf(g_dir, sizeof g_dir, "/tmp/am_redis_XXXXXX");
    if (!mkdtemp(g_dir)) return 1;
    snprintf(g_db, sizeof g_db, "%s/t.db", g_dir);
    int port = free_port();
    snprintf(g_port, sizeof g_port, "%d", port);
    snprintf(g_url, sizeof g_url, "redis://:%s@127.0.0.1:%d/0", PASSWORD, port);
    if (port <= 0 || redis_start()) {
        fprintf(stderr, "cannot start redis-server\n");
        redis_kill();
        return 1;
    }
    RUN(test_url_checks);
    RUN(test_hit_identical);
    RUN(test_invalidation);
    RUN(test_expiry_in_bucket);
    RUN(test_ttl);
    RUN(test_working_redis);
    RUN(test_working_sqlite);
    RUN(test_redis_hanging);
    RUN(test_epoch_after_restart);
    RUN(test_recreated_store);
    RUN(test_forget_purges);
    RUN(test_forget_while_down);
    RUN(test_redis_down); /* last: kills and restarts the server */
    redis_kill();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", g_dir);
    TEST_MAIN_END();
}
