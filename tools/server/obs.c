/* SPDX-License-Identifier: Apache-2.0 */
/*
 * obs.c -- the engine's log records (am_config.log_record) seen from a
 * process: written as lines (one JSON object, or a text line, each) on a
 * stream at a level and above, and counted for /metrics.  Every handle of
 * a server (and the CLI's one) shares one am_server_obs, so one mutex
 * guards the stream and the counters.
 *
 * Counters take only fixed vocabularies as labels -- kinds, outcomes,
 * routes and reasons, feedback actions, forget levels, stages -- a value
 * outside them counts as "other": no user text, no id can become a label.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srv_int.h"

static const char *const x_sources[] = {"rules", "model", "other"};
/* the first six change a memory item */
static const char *const outcomes[] = {"created",     "superseded", "reinforced", "pending",
                                       "invalidated", "historical", "one_off",    "not_kept"};
#define MEM_OUTCOMES 6
static const char *const kinds[] = {"preference", "constraint", "profile", "fact",
                                    "pattern",    "task_conclusion", "rule", "temp",
                                    "habit",      "norm",       "other"};
static const char *const routes[] = {"none", "semantic_first", "state_first", "other"};
static const char *const reasons[] = {"chit_chat",  "closing", "continuation",
                                      "default",    "small_talk", "other"};
static const char *const actions[] = {"confirm", "reject", "correct"};
/* who decided the item judged (its origin, docs/REPORTS.md); a rule
 * pack's "pack:NAME@VERSION" counts as "pack" */
static const char *const origins[] = {"rules",   "model", "api",     "import", "feedback",
                                      "pattern", "llm",   "pack",    "unknown", "other"};
static const char *const levels[] = {"event", "session", "task", "user"};
static const char *const ev_sources[] = {"user", "agent", "tool", "system"};
static const char *const stages[] = {"route", "filter", "terms", "search", "hops",  "fuse",
                                     "rank",  "kinds",  "dedup", "budget", "render", "total"};
static const char *const level_names[] = {"error", "warn", "info", "debug"};
#define N(a) (sizeof a / sizeof *a)
#define N_STAGE_BUCKETS 13
static const double stage_bounds[N_STAGE_BUCKETS - 1] = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0};

struct am_server_obs {
    pthread_mutex_t mu;
    FILE *out; /* NULL: count only */
    int json, level;
    unsigned long long extract[N(x_sources)][N(outcomes)];
    unsigned long long memories[N(kinds)][MEM_OUTCOMES];
    unsigned long long one_offs;
    unsigned long long writes[N(ev_sources)];
    unsigned long long recalls[N(routes)][N(reasons)];
    unsigned long long feedback[N(actions)][N(kinds)];
    unsigned long long feedback_origin[N(actions)][N(kinds)][N(origins)];
    unsigned long long deleted[N(levels)];
    unsigned long long deleted_kind[N(kinds)]; /* one memory deleted (DELETE /v1/memories/{id}) */
    unsigned long long stage_buckets[N(stages)][N_STAGE_BUCKETS];
    unsigned long long stage_count[N(stages)];
    double stage_sum[N(stages)];
};

am_server_obs *am_server_obs_new(FILE *out, int format, int level)
{
    am_server_obs *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    pthread_mutex_init(&o->mu, NULL);
    o->out = out;
    o->json = format == AM_SERVER_LOG_JSON;
    o->level = level;
    return o;
}

void am_server_obs_free(am_server_obs *o)
{
    if (!o) return;
    pthread_mutex_destroy(&o->mu);
    free(o);
}

/* index of s in vocab[0..n), else the last ("other") when the vocabulary
 * has one, else -1 */
static int find(const char *const *vocab, size_t n, const char *s)
{
    for (size_t i = 0; s && i < n; i++)
        if (strcmp(vocab[i], s) == 0) return (int)i;
    return strcmp(vocab[n - 1], "other") == 0 ? (int)n - 1 : -1;
}

static const am_log_field *get(const am_log_record *r, const char *key)
{
    for (size_t i = 0; i < r->n_fields; i++)
        if (strcmp(r->fields[i].key, key) == 0) return &r->fields[i];
    return NULL;
}

static const char *get_s(const am_log_record *r, const char *key)
{
    const am_log_field *f = get(r, key);
    return f && f->type == AM_LOG_STR ? f->s : NULL;
}

static void stage_add(am_server_obs *o, size_t stage, double seconds)
{
    int b = 0;
    while (b < N_STAGE_BUCKETS - 1 && seconds > stage_bounds[b]) b++;
    o->stage_buckets[stage][b]++;
    o->stage_sum[stage] += seconds;
    o->stage_count[stage]++;
}

/* the record into the counters (o->mu held) */
static void count(am_server_obs *o, const am_log_record *r)
{
    if (strcmp(r->event, "extract") == 0) {
        int src = find(x_sources, N(x_sources), get_s(r, "source"));
        int out = find(outcomes, N(outcomes), get_s(r, "outcome"));
        if (out < 0) return;
        o->extract[src][out]++;
        if (out < MEM_OUTCOMES) o->memories[find(kinds, N(kinds), get_s(r, "kind"))][out]++;
        if (strcmp(outcomes[out], "one_off") == 0) o->one_offs++;
    } else if (strcmp(r->event, "write") == 0) {
        int src = find(ev_sources, N(ev_sources), get_s(r, "source"));
        if (src >= 0) o->writes[src]++;
    } else if (strcmp(r->event, "recall") == 0) {
        o->recalls[find(routes, N(routes), get_s(r, "route"))]
                  [find(reasons, N(reasons), get_s(r, "reason"))]++;
        for (size_t i = 0; i < r->n_fields; i++) {
            const am_log_field *f = &r->fields[i];
            size_t kl = strlen(f->key);
            if (f->type != AM_LOG_REAL || kl < 4 || strcmp(f->key + kl - 3, "_ms") != 0) continue;
            for (size_t s = 0; s < N(stages); s++)
                if (strlen(stages[s]) == kl - 3 && strncmp(stages[s], f->key, kl - 3) == 0)
                    stage_add(o, s, f->d / 1000.0);
        }
    } else if (strcmp(r->event, "feedback") == 0) {
        int a = find(actions, N(actions), get_s(r, "action"));
        const char *origin = get_s(r, "origin");
        if (origin && strncmp(origin, "pack:", 5) == 0) origin = "pack";
        if (a >= 0) {
            int k = find(kinds, N(kinds), get_s(r, "kind"));
            o->feedback[a][k]++;
            o->feedback_origin[a][k][find(origins, N(origins), origin ? origin : "unknown")]++;
        }
    } else if (strcmp(r->event, "memory_delete") == 0) {
        o->deleted_kind[find(kinds, N(kinds), get_s(r, "kind"))]++;
    } else if (strcmp(r->event, "forget") == 0) {
        int l = find(levels, N(levels), get_s(r, "level"));
        const am_log_field *m = get(r, "memories");
        if (l >= 0 && m && m->type == AM_LOG_INT && m->i > 0)
            o->deleted[l] += (unsigned long long)m->i;
    }
}

/* "2026-03-02T01:00:00.123Z" */
static void iso_ms(am_time t, char out[32])
{
    time_t s = (time_t)(t / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 32 - n, ".%03dZ", (int)(t % 1000));
}

static am_time wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (am_time)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* one line on the stream (o->mu held) */
static void write_line(am_server_obs *o, const am_log_record *r)
{
    char ts[32];
    iso_ms(r->at != AM_TIME_NONE && r->at > 0 ? r->at : wall_ms(), ts);
    const char *lv = r->level >= 0 && r->level < (int)N(level_names) ? level_names[r->level] : "info";
    if (!o->json) {
        char line[4096];
        fprintf(o->out, "%s %s %s\n", ts, lv, am_log_format(r, line, sizeof line));
        fflush(o->out);
        return;
    }
    json_t *fields = json_object();
    for (size_t i = 0; fields && i < r->n_fields; i++) {
        const am_log_field *f = &r->fields[i];
        json_t *v = f->type == AM_LOG_INT    ? json_integer((json_int_t)f->i)
                    : f->type == AM_LOG_REAL ? json_real(f->d)
                    : f->s                   ? json_string(f->s)
                                             : json_null();
        json_object_set_new(fields, f->key, v);
    }
    json_t *line = json_pack("{s:s, s:s, s:s, s:o}", "ts", ts, "level", lv, "event", r->event,
                             "fields", fields ? fields : json_object());
    char *text = line ? json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) : NULL;
    if (text) {
        fprintf(o->out, "%s\n", text);
        fflush(o->out);
    }
    free(text);
    json_decref(line);
}

static void on_record(void *ctx, const am_log_record *r)
{
    am_server_obs *o = ctx;
    pthread_mutex_lock(&o->mu);
    count(o, r);
    if (o->out && r->level <= o->level) write_line(o, r);
    pthread_mutex_unlock(&o->mu);
}

/* the engine's other messages (am_config.log): event "message" */
static void on_text(void *ctx, int level, const char *msg)
{
    am_server_obs *o = ctx;
    if (!o->out || level > o->level) return;
    am_log_field f = {"msg", AM_LOG_STR, msg, 0, 0};
    am_log_record r = {level, "message", wall_ms(), &f, 1};
    pthread_mutex_lock(&o->mu);
    write_line(o, &r);
    pthread_mutex_unlock(&o->mu);
}

void am_server_obs_attach(am_server_obs *o, am_config *cfg)
{
    if (!o) return;
    cfg->log = on_text;
    cfg->log_record = on_record;
    cfg->log_ctx = o;
}

/* ------------------------------------------------------------ /metrics */

char *am__srv_obs_metrics(am_server_obs *o)
{
    am_server_obs *c = malloc(sizeof *c);
    char *p = NULL;
    size_t size = 0;
    FILE *f = c ? open_memstream(&p, &size) : NULL;
    if (!f) {
        free(c);
        return NULL;
    }
    pthread_mutex_lock(&o->mu);
    memcpy(c, o, sizeof *c);
    pthread_mutex_unlock(&o->mu);
    fputs("# HELP agentmem_extractions_total Statements of users' events read by the engine,"
          " by who decided (rules or model) and outcome.\n"
          "# TYPE agentmem_extractions_total counter\n", f);
    for (size_t s = 0; s < N(x_sources); s++)
        for (size_t k = 0; k < N(outcomes); k++)
            if (c->extract[s][k])
                fprintf(f, "agentmem_extractions_total{source=\"%s\",outcome=\"%s\"} %llu\n",
                        x_sources[s], outcomes[k], c->extract[s][k]);
    fputs("# HELP agentmem_memories_total Memory items changed by what users said, by kind and"
          " outcome (created, superseded, reinforced, pending, invalidated, historical), and"
          " memories deleted one by one (deleted).\n"
          "# TYPE agentmem_memories_total counter\n", f);
    for (size_t k = 0; k < N(kinds); k++) {
        for (size_t m = 0; m < MEM_OUTCOMES; m++)
            if (c->memories[k][m])
                fprintf(f, "agentmem_memories_total{kind=\"%s\",outcome=\"%s\"} %llu\n", kinds[k],
                        outcomes[m], c->memories[k][m]);
        if (c->deleted_kind[k])
            fprintf(f, "agentmem_memories_total{kind=\"%s\",outcome=\"deleted\"} %llu\n", kinds[k],
                    c->deleted_kind[k]);
    }
    fprintf(f, "# HELP agentmem_one_offs_total Instructions kept for the current task only.\n"
               "# TYPE agentmem_one_offs_total counter\nagentmem_one_offs_total %llu\n",
            c->one_offs);
    fputs("# HELP agentmem_memories_deleted_total Memory items forgotten, by the forget's level.\n"
          "# TYPE agentmem_memories_deleted_total counter\n", f);
    for (size_t l = 0; l < N(levels); l++)
        fprintf(f, "agentmem_memories_deleted_total{level=\"%s\"} %llu\n", levels[l],
                c->deleted[l]);
    fputs("# HELP agentmem_events_written_total Events written, by source.\n"
          "# TYPE agentmem_events_written_total counter\n", f);
    for (size_t s = 0; s < N(ev_sources); s++)
        fprintf(f, "agentmem_events_written_total{source=\"%s\"} %llu\n", ev_sources[s],
                c->writes[s]);
    fputs("# HELP agentmem_recalls_total Recalls by the router's route and reason.\n"
          "# TYPE agentmem_recalls_total counter\n", f);
    for (size_t r = 0; r < N(routes); r++)
        for (size_t w = 0; w < N(reasons); w++)
            if (c->recalls[r][w])
                fprintf(f, "agentmem_recalls_total{route=\"%s\",reason=\"%s\"} %llu\n",
                        routes[r], reasons[w], c->recalls[r][w]);
    fputs("# HELP agentmem_feedback_total Feedback on memory items, by action and the item's"
          " kind (correct + reject over all: the user correction rate).\n"
          "# TYPE agentmem_feedback_total counter\n", f);
    for (size_t a = 0; a < N(actions); a++)
        for (size_t k = 0; k < N(kinds); k++)
            if (c->feedback[a][k])
                fprintf(f, "agentmem_feedback_total{action=\"%s\",kind=\"%s\"} %llu\n",
                        actions[a], kinds[k], c->feedback[a][k]);
    fputs("# HELP agentmem_feedback_origin_total Feedback on memory items, by action, the"
          " item's kind and its origin (who decided it: rules, model, api, llm, pack, ...;"
          " docs/REPORTS.md).\n# TYPE agentmem_feedback_origin_total counter\n", f);
    for (size_t a = 0; a < N(actions); a++)
        for (size_t k = 0; k < N(kinds); k++)
            for (size_t g = 0; g < N(origins); g++)
                if (c->feedback_origin[a][k][g])
                    fprintf(f, "agentmem_feedback_origin_total{action=\"%s\",kind=\"%s\","
                               "origin=\"%s\"} %llu\n",
                            actions[a], kinds[k], origins[g], c->feedback_origin[a][k][g]);
    fputs("# HELP agentmem_recall_stage_seconds Time of each recall stage (total: the whole"
          " recall).\n# TYPE agentmem_recall_stage_seconds histogram\n", f);
    for (size_t s = 0; s < N(stages); s++) {
        if (!c->stage_count[s]) continue;
        unsigned long long cum = 0;
        for (int b = 0; b < N_STAGE_BUCKETS; b++) {
            cum += c->stage_buckets[s][b];
            if (b < N_STAGE_BUCKETS - 1)
                fprintf(f, "agentmem_recall_stage_seconds_bucket{stage=\"%s\",le=\"%g\"} %llu\n",
                        stages[s], stage_bounds[b], cum);
            else
                fprintf(f, "agentmem_recall_stage_seconds_bucket{stage=\"%s\",le=\"+Inf\"} %llu\n",
                        stages[s], cum);
        }
        fprintf(f, "agentmem_recall_stage_seconds_sum{stage=\"%s\"} %.6f\n", stages[s],
                c->stage_sum[s]);
        fprintf(f, "agentmem_recall_stage_seconds_count{stage=\"%s\"} %llu\n", stages[s],
                c->stage_count[s]);
    }
    free(c);
    if (fclose(f) != 0) {
        free(p);
        return NULL;
    }
    return p;
}
