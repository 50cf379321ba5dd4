/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_synth.c -- `agentmem bench synth`: the scale test.
 *
 * Generates users x events mixed Chinese/English events deterministically
 * (seeded), adds them to one file store (a temp directory, or --db), in
 * time order with users interleaved (event t belongs to user t % users),
 * and reports ingest throughput and per-event latency.  Then it runs
 * --queries recalls, each asking about one "needle" event planted at a
 * random place (a project with a made-up code name), and reports recall
 * latency and whether the needle came back (recall/hit/ndcg per k; one
 * gold event per query, so recall = hit).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "plural.h"
#include "progress.h"

#define EVENT_GAP_MS ((int64_t)30000)

static const char *const zh_city[] = {"北京", "上海", "深圳", "杭州", "成都",
                                      "广州", "南京", "武汉", "西安", "苏州"};
static const char *const en_city[] = {"Berlin", "Paris", "Tokyo", "Austin",
                                      "Lisbon", "Seoul", "Oslo", "Denver",
                                      "Madrid", "Dublin"};
static const char *const zh_person[] = {"王经理", "李老师", "张总", "刘工",
                                        "陈医生", "赵会计", "周律师", "吴主管"};
static const char *const en_person[] = {"Alice", "Bob", "Carol", "Dave",
                                        "Erin", "Frank", "Grace", "Heidi"};
static const char *const zh_thing[] = {"季度报表", "采购合同", "出差申请",
                                       "预算方案", "会议纪要", "项目周报",
                                       "报销单", "招聘计划"};
static const char *const en_thing[] = {"quarterly report", "purchase order",
                                       "travel request", "budget plan",
                                       "meeting notes", "weekly update",
                                       "expense claim", "hiring plan"};
static const char *const zh_food[] = {"火锅", "寿司", "拉面", "咖啡", "奶茶",
                                      "沙拉", "烤鸭", "饺子"};
static const char *const en_food[] = {"ramen", "tacos", "espresso", "salad",
                                      "pizza", "dumplings", "pho", "bagels"};
static const char *const zh_day[] = {"周一", "周二", "周三", "周四", "周五",
                                     "下周", "月底", "明天"};
static const char *const en_day[] = {"Monday", "Tuesday", "Wednesday",
                                     "Thursday", "Friday", "next week",
                                     "month end", "tomorrow"};
static const char *const code_word[] = {"Kestrel", "Osprey", "Falcon",
                                        "Heron", "Condor", "Puffin",
                                        "Magpie", "Plover"};
static const char *const zh_code_word[] = {"青鸟", "白鹭", "雨燕", "苍鹰",
                                           "云雀", "翠鸟", "海鸥", "夜莺"};

#define PICK(rng, arr) (arr[bench_rng_below(rng, sizeof arr / sizeof arr[0])])

/* One filler event of user u, number j. */
static void filler_text(bench_rng *rng, char *buf, size_t cap)
{
    switch (bench_rng_below(rng, 10)) {
    case 0:
        snprintf(buf, cap, "我%s要去%s出差，帮我订酒店。", PICK(rng, zh_day),
                 PICK(rng, zh_city));
        break;
    case 1:
        snprintf(buf, cap, "%s之前把%s发给%s。", PICK(rng, zh_day),
                 PICK(rng, zh_thing), PICK(rng, zh_person));
        break;
    case 2:
        snprintf(buf, cap, "我最近很喜欢吃%s，不太喜欢%s。",
                 PICK(rng, zh_food), PICK(rng, zh_food));
        break;
    case 3:
        snprintf(buf, cap, "提醒我%s和%s讨论%s。", PICK(rng, zh_day),
                 PICK(rng, zh_person), PICK(rng, zh_thing));
        break;
    case 4:
        snprintf(buf, cap, "以后%s都用表格格式，别用长段落。",
                 PICK(rng, zh_thing));
        break;
    case 5:
        snprintf(buf, cap, "Book me a flight to %s for %s.",
                 PICK(rng, en_city), PICK(rng, en_day));
        break;
    case 6:
        snprintf(buf, cap, "Send the %s to %s by %s.", PICK(rng, en_thing),
                 PICK(rng, en_person), PICK(rng, en_day));
        break;
    case 7:
        snprintf(buf, cap, "I had %s for lunch again, I really like it.",
                 PICK(rng, en_food));
        break;
    case 8:
        snprintf(buf, cap, "%s在%s的会上提到了%s，帮我记一下。",
                 PICK(rng, zh_person), PICK(rng, zh_city),
                 PICK(rng, zh_thing));
        break;
    default:
        snprintf(buf, cap, "Remind me to review the %s with %s in %s.",
                 PICK(rng, en_thing), PICK(rng, en_person), PICK(rng, en_city));
        break;
    }
}

/* --vectors D: a word2vec text table of random unit vectors (D wide) over
 * every word the generator uses, so that each event gets a D-dimensional
 * vector at almost no embedding cost and recall pays the vector scan of a
 * long history.  The vectors carry no meaning: this measures cost, not
 * quality. */
static const char *const template_words[] = {
    "我", "要去", "出差", "帮我", "订", "酒店", "之前", "把", "发给", "最近",
    "很", "喜欢", "吃", "不太", "提醒", "和", "讨论", "以后", "都", "用",
    "表格", "格式", "别", "长", "段落", "在", "的", "会上", "提到", "了",
    "记", "一下", "项目", "代号", "由", "负责", "截止", "日期", "是", "谁",
    "book", "me", "a", "flight", "to", "for", "send", "the", "by", "i",
    "had", "lunch", "again", "really", "like", "it", "remind", "review",
    "with", "in", "project", "is", "owned", "and", "due", "who", "owns"};

static int write_w2v(const char *path, int dim, uint64_t seed)
{
    const char *const *lists[] = {zh_city, en_city, zh_person, en_person,
                                  zh_thing, en_thing, zh_food, en_food,
                                  zh_day, en_day, code_word, zh_code_word,
                                  template_words};
    const size_t sizes[] = {
        sizeof zh_city / sizeof *zh_city, sizeof en_city / sizeof *en_city,
        sizeof zh_person / sizeof *zh_person,
        sizeof en_person / sizeof *en_person,
        sizeof zh_thing / sizeof *zh_thing, sizeof en_thing / sizeof *en_thing,
        sizeof zh_food / sizeof *zh_food, sizeof en_food / sizeof *en_food,
        sizeof zh_day / sizeof *zh_day, sizeof en_day / sizeof *en_day,
        sizeof code_word / sizeof *code_word,
        sizeof zh_code_word / sizeof *zh_code_word,
        sizeof template_words / sizeof *template_words};
    size_t l, i, words = 0;
    bench_rng rng;
    FILE *f = fopen(path, "w");
    int d;
    if (!f)
        return -1;
    for (l = 0; l < sizeof sizes / sizeof *sizes; l++)
        words += sizes[l];
    bench_rng_seed(&rng, seed, 0x77327632u);
    fprintf(f, "%zu %d\n", words, dim);
    for (l = 0; l < sizeof sizes / sizeof *sizes; l++)
        for (i = 0; i < sizes[l]; i++) {
            /* multi-word entries ("next week") become one token with '_',
             * which the loader keeps as a word nobody types: harmless */
            const char *w = lists[l][i];
            for (; *w; w++)
                fputc(*w == ' ' ? '_' : *w, f);
            for (d = 0; d < dim; d++)
                fprintf(f, " %.4f",
                        (double)bench_rng_below(&rng, 20001) / 10000.0 - 1.0);
            fputc('\n', f);
        }
    return fclose(f) == 0 ? 0 : -1;
}

typedef bench_needle needle;

static void needle_make(bench_rng *rng, long qi, needle *n)
{
    unsigned code = (unsigned)(1000 + (qi * 7919 + 17) % 9000);
    if (bench_rng_below(rng, 2)) {
        const char *w = PICK(rng, zh_code_word), *p = PICK(rng, zh_person);
        snprintf(n->text, sizeof n->text,
                 "项目代号%s%u由%s负责，截止日期是%s。", w, code, p,
                 PICK(rng, zh_day));
        snprintf(n->query, sizeof n->query, "项目代号%s%u是谁负责的？", w,
                 code);
    } else {
        const char *w = PICK(rng, code_word), *p = PICK(rng, en_person);
        snprintf(n->text, sizeof n->text,
                 "Project %s-%u is owned by %s and due %s.", w, code, p,
                 PICK(rng, en_day));
        snprintf(n->query, sizeof n->query, "Who owns project %s-%u?", w,
                 code);
    }
}

static int cmp_needle(const void *a, const void *b)
{
    const needle *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

typedef struct synth_clock {
    am_time now;
} synth_clock;

static am_time synth_now(void *ctx)
{
    return ((synth_clock *)ctx)->now;
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

static long long store_bytes(const char *db)
{
    static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
    char p[4200];
    long long total = 0;
    size_t i;
    for (i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s%s", db, suffix[i]);
        total += file_size(p);
    }
    return total;
}

/* The process's peak resident set (VmHWM) or, with VmRSS, its current
 * one, in kB, or -1. */
static long long status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long long kb = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, 6) == 0) {
            kb = strtoll(line + 6, NULL, 10);
            break;
        }
    fclose(f);
    return kb;
}

/* Reset the peak resident set to the current one (Linux 4.0+): 1 when it
 * was reset. */
static int peak_rss_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return 0;
    int ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok;
}

static void remove_store(const char *dir, const char *db)
{
    static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
    char p[4200];
    size_t i;
    for (i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s%s", db, suffix[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/random.w2v", dir); /* --vectors */
    unlink(p);
    rmdir(dir);
}

void bench_synth_needles(const bench_synth_opts *o, bench_needle *nd, uint64_t total)
{
    bench_rng rng;
    long i;
    bench_rng_seed(&rng, o->seed, 0xA11CE);
    for (i = 0; i < o->queries; i++) {
        long k;
        int dup;
        do {
            nd[i].t = (uint64_t)bench_rng_below(&rng, (size_t)total);
            dup = 0;
            for (k = 0; k < i; k++)
                dup |= nd[k].t == nd[i].t;
        } while (dup && (uint64_t)o->queries <= total);
        needle_make(&rng, i, &nd[i]);
        nd[i].event_id[0] = '\0';
    }
    if (o->queries)
        qsort(nd, (size_t)o->queries, sizeof *nd, cmp_needle);
}

void bench_synth_text(uint64_t seed, uint64_t t, const bench_needle *n, char *buf, size_t cap)
{
    bench_rng rng;
    bench_rng_seed(&rng, seed, t);
    if (n)
        snprintf(buf, cap, "%s", n->text);
    else
        filler_text(&rng, buf, cap);
}

typedef struct synth_out {
    bench_samples ingest_ms, recall_ms, recall_cpu_ms;
    /* CPU per recall split by whether it is its user's first in this
     * process (cold caches: the user's lists, vectors, pages) or not */
    bench_samples first_cpu_ms, repeat_cpu_ms;
    double ingest_wall_ms;
    double optimize_ms; /* --optimize: am_optimize after ingest */
    /* --maintain: the pass after the queries, its peak resident memory
     * (the process's high-water mark, reset before it where the kernel
     * allows: /proc/self/clear_refs), the store's size before it */
    double maintain_ms;
    long long maintain_peak_kb, maintain_rss_before_kb, bytes_before;
    int peak_reset;
    am_maintain_report maint;
    bench_acc acc;
    double block_tokens_sum;
    long long bytes;
} synth_out;

/* One generated event, with the storage its strings point into. */
typedef struct synth_ev {
    char text[512], uid[32], sid[32], iso[32];
    long needle; /* index into nd, or -1 */
} synth_ev;

/* Ingest in batches of o->batch events (am_add_events, one transaction
 * each; 1 = am_add_event per event).  With batches, each event's ingest
 * sample is its batch's time divided by the batch's size. */
static int synth_ingest(am_db *db, synth_clock *clk, const bench_synth_opts *o,
                        needle *nd, int64_t t0_ms, synth_out *out,
                        bench_err *e)
{
    uint64_t total = (uint64_t)o->users * (uint64_t)o->events, t;
    long next = 0, bn = o->batch > 0 ? o->batch : 1, k, m = 0;
    double w0 = bench_mono_ms();
    synth_ev *sv = calloc((size_t)bn, sizeof *sv);
    am_event *ev = calloc((size_t)bn, sizeof *ev);
    am_add_info *info = calloc((size_t)bn, sizeof *info);
    int rc = 0;
    am_progress bar;
    am_progress_start(&bar, "bench ingest", "events", (size_t)total, o->quiet);
    if (!sv || !ev || !info) {
        rc = bench_fail(e, "out of memory");
        goto done;
    }
    for (t = 0; t < total; t++) {
        long u = (long)(t % (uint64_t)o->users);
        long j = (long)(t / (uint64_t)o->users);
        synth_ev *x = &sv[m];
        double a, b;
        int is_needle = next < o->queries && nd[next].t == t;
        bench_synth_text(o->seed, t, is_needle ? &nd[next] : NULL, x->text, sizeof x->text);
        x->needle = is_needle ? next++ : -1;
        snprintf(x->uid, sizeof x->uid, "synth-u%05ld", u);
        snprintf(x->sid, sizeof x->sid, "session_%ld", j / 50);
        clk->now = t0_ms + (int64_t)t * EVENT_GAP_MS;
        memset(&ev[m], 0, sizeof ev[m]);
        ev[m].user_id = x->uid;
        ev[m].session_id = x->sid;
        ev[m].text = x->text;
        ev[m].occurred_at = bench_iso(clk->now, 480, x->iso);
        if (++m < bn && t + 1 < total)
            continue;
        memset(info, 0, (size_t)m * sizeof *info);
        a = bench_mono_ms();
        rc = bn == 1 ? am_add_event(db, &ev[0], &info[0])
                     : am_add_events(db, ev, (size_t)m, info);
        b = bench_mono_ms();
        if (rc != AM_OK) {
            rc = bench_fail(e, "engine: am_add_event (user %s, event %llu): "
                            "%s: %s", sv[0].uid, (unsigned long long)t,
                            am_errstr(rc), am_errmsg(db));
            goto done;
        }
        for (k = 0; k < m; k++) {
            if (bench_samples_add(&out->ingest_ms, (b - a) / (double)m) != 0) {
                rc = bench_fail(e, "out of memory");
                goto done;
            }
            if (sv[k].needle >= 0)
                snprintf(nd[sv[k].needle].event_id,
                         sizeof nd[sv[k].needle].event_id, "%s",
                         info[k].event_id);
        }
        m = 0;
        am_progress_set(&bar, (size_t)t + 1, 0);
        if (o->progress && (t + 1) % 10000 < (uint64_t)bn)
            fprintf(stderr, "\r[synth] %llu/%llu events",
                    (unsigned long long)t + 1, (unsigned long long)total);
    }
    if (o->progress)
        fprintf(stderr, "\r[synth] %llu/%llu events\n",
                (unsigned long long)total, (unsigned long long)total);
    out->ingest_wall_ms = bench_mono_ms() - w0;
done:
    am_progress_end(&bar);
    free(sv);
    free(ev);
    free(info);
    return rc;
}

/* --dump: a query's ranking as one JSON line (the text, then each event
 * returned: id and score), to compare builds. */
static int dump_ranking(FILE *f, const char *text, const am_recall_result *rr,
                        int maxk)
{
    json_t *l = json_object(), *ev = json_array();
    char *line;
    size_t k;
    int rc;
    if (!l || !ev) {
        json_decref(l);
        json_decref(ev);
        return -1;
    }
    json_object_set_new(l, "question", json_string(text));
    for (k = 0; k < rr->n_events && k < (size_t)maxk; k++) {
        json_t *x = json_object();
        json_object_set_new(x, "id", json_string(rr->events[k].id ? rr->events[k].id : ""));
        json_object_set_new(x, "score", json_real(rr->events[k].score));
        json_array_append_new(ev, x);
    }
    json_object_set_new(l, "engine", ev);
    line = json_dumps(l, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(l);
    if (!line)
        return -1;
    rc = fprintf(f, "%s\n", line) < 0 ? -1 : 0;
    free(line);
    return rc;
}

static int synth_queries(am_db *db, const bench_synth_opts *o,
                         const needle *nd, FILE *dump,
                         synth_out *out, bench_err *e)
{
    size_t *ranked = malloc((size_t)o->maxk * sizeof *ranked);
    unsigned char *seen = calloc((size_t)o->users + 1, 1);
    const size_t gold = 0;
    long i;
    int rc = 0;
    am_progress bar;
    if (!ranked || !seen) {
        free(ranked);
        free(seen);
        return bench_fail(e, "out of memory");
    }
    am_progress_start(&bar, "bench recall", "queries", (size_t)o->queries, o->quiet);
    for (i = 0; i < o->queries && rc == 0; i++) {
        am_query q;
        am_recall_result *rr = NULL;
        char uid[32];
        size_t k, n = 0;
        double a, b;
        long user = (long)(nd[i].t % (uint64_t)o->users);
        int first = !seen[user];
        seen[user] = 1;
        snprintf(uid, sizeof uid, "synth-u%05ld", user);
        memset(&q, 0, sizeof q);
        q.user_id = uid;
        q.text = nd[i].query;
        q.max_events = o->maxk;
        double ca = bench_cpu_ms();
        a = bench_mono_ms();
        int qrc = am_recall(db, &q, &rr);
        b = bench_mono_ms();
        double cb = bench_cpu_ms();
        if (qrc != AM_OK || !rr) {
            am_recall_free(rr);
            rc = bench_fail(e, "engine: am_recall (user %s): %s: %s", uid,
                            am_errstr(qrc), am_errmsg(db));
            break;
        }
        for (k = 0; k < rr->n_events && n < (size_t)o->maxk; k++)
            ranked[n++] = rr->events[k].id &&
                                  strcmp(rr->events[k].id, nd[i].event_id) == 0
                              ? gold
                              : (size_t)1;
        bench_acc_add(&out->acc, o->ks, o->nk, ranked, n, &gold, 1);
        out->block_tokens_sum += rr->block_tokens;
        if (dump && dump_ranking(dump, nd[i].query, rr, o->maxk) != 0)
            rc = bench_fail(e, "cannot write the dump");
        am_recall_free(rr);
        if (rc == 0 &&
            (bench_samples_add(&out->recall_ms, b - a) != 0 ||
             bench_samples_add(&out->recall_cpu_ms, cb - ca) != 0 ||
             bench_samples_add(first ? &out->first_cpu_ms : &out->repeat_cpu_ms,
                               cb - ca) != 0))
            rc = bench_fail(e, "out of memory");
        am_progress_set(&bar, (size_t)i + 1, 0);
    }
    am_progress_end(&bar);
    free(ranked);
    free(seen);
    return rc;
}

/* The maintenance pass over every user, measured (--maintain). */
static int synth_maintain(am_db *db, synth_out *out, bench_err *e)
{
    out->peak_reset = peak_rss_reset();
    out->maintain_rss_before_kb = status_kb("VmRSS:");
    double a = bench_mono_ms();
    if (am_maintain(db, NULL, &out->maint) != AM_OK)
        return bench_fail(e, "engine: am_maintain: %s", am_errmsg(db));
    out->maintain_ms = bench_mono_ms() - a;
    out->maintain_peak_kb = status_kb("VmHWM:");
    return 0;
}

static void synth_report(const bench_synth_opts *o, const char *db,
                         synth_out *out)
{
    double total = (double)o->users * (double)o->events;
    double eps = out->ingest_wall_ms > 0 ? total * 1000 / out->ingest_wall_ms
                                         : 0;
    double q = out->acc.n;
    double p[4], cpu50 = bench_samples_pct(&out->recall_cpu_ms, 50),
                 cpu95 = bench_samples_pct(&out->recall_cpu_ms, 95);
    size_t i;
    p[0] = bench_samples_pct(&out->ingest_ms, 50);
    p[1] = bench_samples_pct(&out->ingest_ms, 95);
    p[2] = bench_samples_pct(&out->recall_ms, 50);
    p[3] = bench_samples_pct(&out->recall_ms, 95);
    if (o->json) {
        json_t *r = json_object(), *l = json_object();
        char *text;
        json_object_set_new(r, "dataset", json_string("synth"));
        json_object_set_new(r, "mode", json_string("engine"));
        json_object_set_new(r, "db", db ? json_string(db) : json_null());
        json_object_set_new(r, "users", json_integer(o->users));
        json_object_set_new(r, "events_per_user", json_integer(o->events));
        json_object_set_new(r, "events", json_integer((json_int_t)total));
        json_object_set_new(r, "batch", json_integer(o->batch > 0 ? o->batch : 1));
        json_object_set_new(r, "embedder", o->vectors > 0 ? json_string("w2v:random")
                                           : o->embedder ? json_string(o->embedder)
                                                         : json_null());
        json_object_set_new(r, "vector_dim", json_integer(o->vectors));
        json_object_set_new(r, "seed", json_integer((json_int_t)o->seed));
        json_object_set_new(r, "questions", json_integer((json_int_t)q));
        json_object_set_new(r, "ingest_seconds",
                            json_real(out->ingest_wall_ms / 1000));
        json_object_set_new(r, "ingest_events_per_s", json_real(eps));
        json_object_set_new(r, "store_bytes", json_integer(out->bytes));
        json_object_set_new(r, "optimize_seconds",
                            o->optimize ? json_real(out->optimize_ms / 1000) : json_null());
        if (o->maintain) {
            const am_maintain_report *m = &out->maint;
            json_t *mj = json_object();
            json_object_set_new(mj, "seconds", json_real(out->maintain_ms / 1000));
            json_object_set_new(mj, "peak_rss_mb", json_real((double)out->maintain_peak_kb / 1024));
            json_object_set_new(mj, "peak_since", json_string(out->peak_reset ? "pass" : "process"));
            json_object_set_new(mj, "rss_before_mb",
                                json_real((double)out->maintain_rss_before_kb / 1024));
            json_object_set_new(mj, "users", json_integer(m->users));
            json_object_set_new(mj, "steps", json_integer(m->steps));
            json_object_set_new(mj, "decayed", json_integer(m->decayed));
            json_object_set_new(mj, "candidate_forget", json_integer(m->candidate));
            json_object_set_new(mj, "invalidated", json_integer(m->invalidated));
            json_object_set_new(mj, "archived", json_integer(m->archived));
            json_object_set_new(mj, "revived", json_integer(m->revived));
            json_object_set_new(mj, "consolidated", json_integer(m->consolidated));
            json_object_set_new(mj, "events_archived", json_integer(m->events_archived));
            json_object_set_new(mj, "store_bytes_before", json_integer(out->bytes_before));
            json_object_set_new(mj, "store_bytes_after", json_integer(out->bytes));
            json_object_set_new(r, "maintain", mj);
        }
        json_object_set_new(r, "recall",
                            bench_json_per_k(o->ks, o->nk, out->acc.recall, q));
        json_object_set_new(
            r, "recall_all",
            bench_json_per_k(o->ks, o->nk, out->acc.recall_all, q));
        json_object_set_new(r, "hit",
                            bench_json_per_k(o->ks, o->nk, out->acc.hit, q));
        json_object_set_new(r, "ndcg",
                            bench_json_per_k(o->ks, o->nk, out->acc.ndcg, q));
        json_object_set_new(r, "block_tokens_mean",
                            json_real(q > 0 ? out->block_tokens_sum / q : 0));
        json_object_set_new(l, "ingest_event_p50", json_real(p[0]));
        json_object_set_new(l, "ingest_event_p95", json_real(p[1]));
        json_object_set_new(l, "recall_p50", json_real(p[2]));
        json_object_set_new(l, "recall_p95", json_real(p[3]));
        json_object_set_new(l, "recall_cpu_p50", json_real(cpu50));
        json_object_set_new(l, "recall_cpu_p95", json_real(cpu95));
        json_object_set_new(l, "recall_first_queries",
                            json_integer((json_int_t)out->first_cpu_ms.n));
        json_object_set_new(l, "recall_first_cpu_p50",
                            json_real(bench_samples_pct(&out->first_cpu_ms, 50)));
        json_object_set_new(l, "recall_first_cpu_p95",
                            json_real(bench_samples_pct(&out->first_cpu_ms, 95)));
        json_object_set_new(l, "recall_repeat_cpu_p50",
                            json_real(bench_samples_pct(&out->repeat_cpu_ms, 50)));
        json_object_set_new(l, "recall_repeat_cpu_p95",
                            json_real(bench_samples_pct(&out->repeat_cpu_ms, 95)));
        json_object_set_new(r, "latency_ms", l);
        text = json_dumps(r, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                 JSON_REAL_PRECISION(6));
        if (text)
            printf("%s\n", text);
        free(text);
        json_decref(r);
        return;
    }
    printf("synth: %ld users x %ld events = %.0f events, seed %llu, batch %ld, "
           "embedder %s\n", o->users, o->events, total,
           (unsigned long long)o->seed, o->batch > 0 ? o->batch : 1,
           o->vectors > 0 ? "w2v:random" : o->embedder ? o->embedder : "none");
    if (o->reuse)
        printf("ingest: skipped (--reuse); store %.1f MB\n", (double)out->bytes / 1e6);
    else
        printf("ingest: %.1f s, %.0f events/s, per event p50 %.3f ms, p95 %.3f "
               "ms; store %.1f MB\n", out->ingest_wall_ms / 1000, eps, p[0], p[1],
               (double)out->bytes / 1e6);
    if (o->optimize)
        printf("optimize: %.1f s (am_optimize before the queries)\n", out->optimize_ms / 1000);
    if (o->maintain) {
        const am_maintain_report *m = &out->maint;
        printf("maintain: %.1f s, %ld %s, %ld %s, peak RSS %.1f MB (%s; %.1f MB "
               "before it); "
               "%ld candidate_forget, %ld invalidated, %ld archived, %ld revived, "
               "%ld consolidated, %ld %s archived; store %.1f -> %.1f MB\n",
               out->maintain_ms / 1000, m->users, am_plural(m->users, "user", "users"),
               m->steps, am_plural(m->steps, "step", "steps"),
               (double)out->maintain_peak_kb / 1024,
               out->peak_reset ? "during the pass" : "of the process",
               (double)out->maintain_rss_before_kb / 1024, m->candidate,
               m->invalidated, m->archived, m->revived, m->consolidated, m->events_archived,
               am_plural(m->events_archived, "event", "events"), (double)out->bytes_before / 1e6, (double)out->bytes / 1e6);
    }
    printf("recall: %.0f queries, p50 %.3f ms, p95 %.3f ms (CPU p50 %.3f, p95 %.3f), "
           "block %.1f tokens\n", q, p[2], p[3], cpu50, cpu95,
           q > 0 ? out->block_tokens_sum / q : 0);
    printf("recall CPU, a user's first in the process (%zu): p50 %.3f, p95 %.3f ms; "
           "the others: p50 %.3f, p95 %.3f ms\n", out->first_cpu_ms.n,
           bench_samples_pct(&out->first_cpu_ms, 50), bench_samples_pct(&out->first_cpu_ms, 95),
           bench_samples_pct(&out->repeat_cpu_ms, 50), bench_samples_pct(&out->repeat_cpu_ms, 95));
    printf("needle found:");
    for (i = 0; i < o->nk; i++)
        printf(" @%d %.3f", o->ks[i], q > 0 ? out->acc.hit[i] / q : 0);
    printf("\n");
}

int bench_synth(const bench_synth_opts *o, bench_err *e)
{
    char dir[4096] = "", path[4200];
    const char *tmp = getenv("TMPDIR");
    am_config cfg;
    am_db *db = NULL;
    char *err = NULL;
    synth_clock clk;
    synth_out out;
    needle *nd = NULL;
    uint64_t total = (uint64_t)o->users * (uint64_t)o->events;
    int64_t t0_ms = bench_civil_ms(2025, 1, 6, 9, 0, 0, 480);
    int rc = -1;
    memset(&out, 0, sizeof out);
    if (o->db) {
        snprintf(path, sizeof path, "%s", o->db);
    } else {
        snprintf(dir, sizeof dir, "%s/agentmem-bench-XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir))
            return bench_fail(e, "synth: cannot create a temp directory in %s",
                              tmp && *tmp ? tmp : "/tmp");
        snprintf(path, sizeof path, "%s/bench.db", dir);
    }
    nd = calloc((size_t)o->queries + 1, sizeof *nd);
    if (!nd) {
        bench_fail(e, "out of memory");
        goto out;
    }
    bench_synth_needles(o, nd, total);
    am_config_init(&cfg);
    cfg.process_tuning = AM_PROCESS_ALL; /* a program of its own: the process is ours */
    if (o->rank)
        cfg.rank = *o->rank;
    cfg.no_term_cache = o->no_term_cache;
    cfg.path = path;
    cfg.cache = getenv("AGENTMEM_CACHE"); /* bench --cache */
    cfg.embedder = o->embedder;
    if (o->vectors > 0) {
        static char spec[4320];
        char table[4300];
        if (dir[0]) {
            snprintf(table, sizeof table, "%s/random.w2v", dir);
        } else {
            /* --db: the table beside the store, named like the temp one
             * (the embedder id is its basename), so --reuse finds the
             * vectors of the same embedder */
            snprintf(table, sizeof table, "%s-w2v", path);
            if (mkdir(table, 0777) != 0 && errno != EEXIST) {
                bench_fail(e, "synth: cannot create %s: %s", table, strerror(errno));
                goto out;
            }
            snprintf(table, sizeof table, "%s-w2v/random.w2v", path);
        }
        if (write_w2v(table, (int)o->vectors, o->seed) != 0) {
            bench_fail(e, "synth: cannot write %s", table);
            goto out;
        }
        snprintf(spec, sizeof spec, "w2v:%s", table);
        cfg.embedder = spec;
    }
    cfg.clock = synth_now;
    cfg.clock_ctx = &clk;
    clk.now = t0_ms;
    if ((rc = am_open(&cfg, &db, &err)) != AM_OK) {
        bench_fail(e, "engine: am_open(\"%s\"): %s: %s", path, am_errstr(rc),
                   err ? err : "");
        am_free(err);
        rc = -1;
        goto out;
    }
    if (o->reuse) {
        /* --reuse: the store at --db was filled by an earlier run with the
         * same --users/--events/--seed; find the needles by their text */
        long i;
        rc = 0;
        for (i = 0; i < o->queries && rc == 0; i++) {
            char uid[32];
            snprintf(uid, sizeof uid, "synth-u%05ld",
                     (long)(nd[i].t % (uint64_t)o->users));
            if (am_event_find(db, uid, nd[i].text, nd[i].event_id) != AM_OK)
                rc = bench_fail(e, "synth --reuse: needle %ld (\"%s\") not in "
                                "%s: fill it first with the same options",
                                i, nd[i].text, path);
        }
    } else {
        rc = synth_ingest(db, &clk, o, nd, t0_ms, &out, e);
    }
    if (rc == 0 && o->optimize) {
        double a = bench_mono_ms();
        if (am_optimize(db) != AM_OK)
            rc = bench_fail(e, "engine: am_optimize: %s", am_errmsg(db));
        out.optimize_ms = bench_mono_ms() - a;
    }
    if (rc == 0) {
        clk.now = t0_ms + (int64_t)total * EVENT_GAP_MS + 3600000;
        FILE *dump = o->dump ? fopen(o->dump, "w") : NULL;
        if (o->dump && !dump)
            rc = bench_fail(e, "cannot write %s: %s", o->dump, strerror(errno));
        if (rc == 0)
            rc = synth_queries(db, o, nd, dump, &out, e);
        if (dump && fclose(dump) != 0 && rc == 0)
            rc = bench_fail(e, "cannot write %s", o->dump);
    }
    if (rc == 0 && o->maintain) {
        /* the size before: the store closed (its log checkpointed), as
         * after the pass */
        am_close(db);
        db = NULL;
        out.bytes_before = store_bytes(path);
        if (am_open(&cfg, &db, &err) != AM_OK) {
            rc = bench_fail(e, "engine: am_open(\"%s\"): %s", path, err ? err : "");
            am_free(err);
        } else {
            rc = synth_maintain(db, &out, e);
        }
    }
    am_close(db);
    out.bytes = store_bytes(path);
    if (rc == 0)
        synth_report(o, o->db, &out);
out:
    if (!o->db && dir[0])
        remove_store(dir, path);
    free(nd);
    bench_samples_free(&out.ingest_ms);
    bench_samples_free(&out.recall_ms);
    bench_samples_free(&out.recall_cpu_ms);
    bench_samples_free(&out.first_cpu_ms);
    bench_samples_free(&out.repeat_cpu_ms);
    return rc;
}
