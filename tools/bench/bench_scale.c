/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_scale.c -- `agentmem bench synth --servers N[,N...]`: the scale
 * test over real server processes (docs/SCALING.md).
 *
 * For each instance count N (a run): the store (--store URL: postgres://
 * or sqlite:PATH, several processes on one SQLite file being the
 * single-machine comparison; default a fresh SQLite file per run in a
 * temp directory) gets a token per synthetic user through the public API
 * (am_token_create, as `agentmem token create` does), then N `agentmem
 * serve` processes (this executable, on free loopback ports, the store
 * URL in $AGENTMEM_DB so a password is not in the process list) serve it.
 * --clients C threads drive it over HTTP/1.1 keep-alive connections
 * (tools/common/http1.c): thread c owns the users u with u % C == c and
 * sends each user's events in order (the events and needles of the
 * in-process synth: bench_synth_text, bench_synth_needles), user u to
 * server u % N (round robin per user).  Ingest first (POST /v1/events,
 * one event per request, a client id each), then the needle queries
 * (POST /v1/recall), so recall is measured on the whole store.  After
 * the servers are stopped (SIGTERM, waited for), every user's export is
 * read and each write answered 200 must be in it (by its event id).
 *
 * Users of a run are "synth-sN-uXXXXX", so the runs of --servers 1,2,4 on
 * one --store do not mix (the later runs then see a larger store).
 *
 * Servers never outlive the bench: each child asks the kernel for SIGTERM
 * when the bench dies (PR_SET_PDEATHSIG), and SIGINT / SIGTERM / SIGHUP to
 * the bench are blocked in its threads and taken by the main thread with
 * sigtimedwait, which stops the clients, the servers and removes the temp
 * directory before returning an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agentmem_ops.h"
#include "bench.h"
#include "http1.h"
#include "plural.h"

#define EVENT_GAP_MS ((int64_t)30000)
#define ID_CAP 32

extern char **environ;

typedef struct fleet {
    pid_t pid[BENCH_MAX_SERVERS];
    char url[BENCH_MAX_SERVERS][64];
    int n;
} fleet;

/* What one run shares with its client threads. */
typedef struct run_ctx {
    const bench_synth_opts *o;
    const bench_needle *nd;
    long servers;
    const char *prefix;  /* "synth-sN" */
    char (*tokens)[AM_TOKEN_LEN + 1];
    char (*acked)[ID_CAP]; /* per global event t: its event id once answered 200 */
    const fleet *fl;
    int64_t t0_ms;
    atomic_int stop;     /* set on a signal or a failure: the clients end */
    pthread_mutex_t mu;
    int done;            /* threads finished with the phase */
} run_ctx;

typedef struct client {
    run_ctx *r;
    long id;
    am_http1 conn[BENCH_MAX_SERVERS];
    bench_samples write_ms, recall_ms;
    long errors, acked;
    int *rank;           /* per query: the needle's rank (1-based), 0 not found */
    char first_error[256];
    pthread_t th;
} client;

typedef struct run_row {
    long servers, clients;
    double ingest_s, events_per_s, load_before, load_after;
    /* CPU seconds over the ingest and recall phases: the servers (their
     * rusage once reaped), this process (the clients), and the machine's
     * busy share of all its cores (/proc/stat: everyone, the store's own
     * processes and other work included) */
    double server_cpu_s, client_cpu_s, machine_busy, wall_s;
    int cores;
    double w50, w95, r50, r95;
    long acked, errors, stored, missing, queries;
    double found[BENCH_MAX_K];
} run_row;

static double load_avg(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

/* CPU seconds: RUSAGE_SELF or RUSAGE_CHILDREN (reaped children). */
static double cpu_s(int who)
{
    struct rusage ru;
    if (getrusage(who, &ru) != 0)
        return 0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* The machine's busy and total jiffies so far (/proc/stat's "cpu" line). */
static void machine_jiffies(double *busy, double *total)
{
    unsigned long long v[8] = {0};
    FILE *f = fopen("/proc/stat", "r");
    int i;
    *busy = *total = 0;
    if (!f)
        return;
    if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
               &v[4], &v[5], &v[6], &v[7]) == 8) {
        for (i = 0; i < 8; i++)
            *total += (double)v[i];
        *busy = *total - (double)v[3] - (double)v[4]; /* less idle and iowait */
    }
    fclose(f);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---------------------------------------------------------------- servers */

/* The environment of a server: ours, with AGENTMEM_DB=store. */
static char **server_env(const char *store, char *db_var, size_t cap)
{
    size_t n = 0, i, k = 0;
    char **env;
    while (environ[n])
        n++;
    env = calloc(n + 2, sizeof *env);
    if (!env)
        return NULL;
    if ((size_t)snprintf(db_var, cap, "AGENTMEM_DB=%s", store) >= cap) {
        free(env);
        return NULL;
    }
    for (i = 0; i < n; i++)
        if (strncmp(environ[i], "AGENTMEM_DB=", 12) != 0)
            env[k++] = environ[i];
    env[k++] = db_var;
    env[k] = NULL;
    return env;
}

static int fleet_wait(pid_t pid, long ms, int *status)
{
    long waited;
    for (waited = 0; waited <= ms; waited += 20) {
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid)
            return 0;
        if (w < 0)
            return errno == ECHILD ? 0 : -1;
        sleep_ms(20);
    }
    return -1;
}

/* SIGTERM every server, wait (30 s each, then SIGKILL).  0 when all
 * exited with status 0. */
static int fleet_stop(fleet *f, bench_err *e)
{
    int i, rc = 0;
    for (i = 0; i < f->n; i++)
        if (f->pid[i] > 0)
            kill(f->pid[i], SIGTERM);
    for (i = 0; i < f->n; i++) {
        int st = 0;
        if (f->pid[i] <= 0)
            continue;
        if (fleet_wait(f->pid[i], 30000, &st) != 0) {
            kill(f->pid[i], SIGKILL);
            waitpid(f->pid[i], &st, 0);
            if (rc == 0)
                rc = bench_fail(e, "synth --servers: server %d did not stop in 30 s", i + 1);
        } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            if (rc == 0)
                rc = bench_fail(e, "synth --servers: server %d exited with status %d", i + 1,
                                WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
        }
        f->pid[i] = 0;
    }
    f->n = 0;
    return rc;
}

/* The first line of path holding "http://127.0.0.1:PORT", into url. */
static int read_listen_url(const char *path, char *url, size_t cap)
{
    char line[512];
    int found = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    while (!found && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "http://127.0.0.1:");
        unsigned port;
        if (p && sscanf(p, "http://127.0.0.1:%u", &port) == 1 && port > 0 && port < 65536) {
            snprintf(url, cap, "http://127.0.0.1:%u", port);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

static void tail_file(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t n = 0;
    long sz;
    out[0] = '\0';
    if (!f)
        return;
    if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) > 0) {
        long from = sz > (long)cap - 1 ? sz - (long)cap + 1 : 0;
        if (fseek(f, from, SEEK_SET) == 0)
            n = fread(out, 1, cap - 1, f);
    }
    out[n] = '\0';
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r'))
        out[--n] = '\0';
    fclose(f);
}

/* Start n servers of exe on store; their output in dir/serve-RUN-I.out
 * and .err. */
static int fleet_start(fleet *f, const char *exe, const char *store, int n, long threads,
                       const char *dir, const sigset_t *blocked, bench_err *e)
{
    char db_var[4400], tbuf[32], out[4200], err[4200];
    char **env = server_env(store, db_var, sizeof db_var);
    pid_t parent = getpid();
    int i, rc = 0;
    if (!env)
        return bench_fail(e, "out of memory");
    snprintf(tbuf, sizeof tbuf, "%ld", threads);
    f->n = 0;
    for (i = 0; i < n && rc == 0; i++) {
        pid_t pid;
        snprintf(out, sizeof out, "%s/serve-%d-%d.out", dir, n, i + 1);
        snprintf(err, sizeof err, "%s/serve-%d-%d.err", dir, n, i + 1);
        pid = fork();
        if (pid < 0) {
            rc = bench_fail(e, "synth --servers: fork: %s", strerror(errno));
            break;
        }
        if (pid == 0) {
            /* the child: only async-signal-safe calls until exec */
            int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
                _exit(127);
            close(fo);
            close(fe);
            if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
                _exit(127);
            sigprocmask(SIG_UNBLOCK, blocked, NULL);
            execle(exe, exe, "serve", "--listen", "127.0.0.1:0", "--threads", tbuf,
                   (char *)NULL, env);
            _exit(127);
        }
        f->pid[f->n++] = pid;
    }
    /* each prints its address once it listens */
    for (i = 0; i < f->n && rc == 0; i++) {
        long waited = 0;
        int st;
        snprintf(out, sizeof out, "%s/serve-%d-%d.out", dir, n, i + 1);
        snprintf(err, sizeof err, "%s/serve-%d-%d.err", dir, n, i + 1);
        while (!read_listen_url(out, f->url[i], sizeof f->url[i])) {
            if (waitpid(f->pid[i], &st, WNOHANG) == f->pid[i] || waited > 60000) {
                char tail[400];
                if (waited <= 60000)
                    f->pid[i] = 0;
                tail_file(err, tail, sizeof tail);
                rc = bench_fail(e, "synth --servers: server %d of %d did not start: %s", i + 1,
                                n, tail[0] ? tail : "(no message)");
                break;
            }
            sleep_ms(20);
            waited += 20;
        }
    }
    free(env);
    return rc;
}

/* ---------------------------------------------------------------- clients */

static void client_error(client *c, const char *what, int status, const char *body)
{
    c->errors++;
    if (!c->first_error[0]) {
        if (status)
            snprintf(c->first_error, sizeof c->first_error, "%s: status %d: %.180s", what,
                     status, body);
        else
            snprintf(c->first_error, sizeof c->first_error, "%s: no answer", what);
    }
}

static const bench_needle *needle_at(const run_ctx *r, uint64_t t)
{
    long lo = 0, hi = r->o->queries - 1;
    while (lo <= hi) {
        long mid = lo + (hi - lo) / 2;
        if (r->nd[mid].t == t)
            return &r->nd[mid];
        if (r->nd[mid].t < t)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

/* POST body (a JSON object, consumed; NULL: out of memory) to user u's
 * server, its latency into lat.  The reply parsed when it is a 200 with a
 * JSON body (the caller frees it); else NULL, the error counted (out of
 * memory stops the run). */
static json_t *client_call(client *c, long u, const char *path, json_t *body, bench_samples *lat)
{
    am_http1 *h = &c->conn[u % c->r->servers];
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_t *reply;
    double a;
    int st;
    json_decref(body);
    if (!text) {
        client_error(c, "out of memory", 0, "");
        c->r->stop = 1;
        return NULL;
    }
    a = bench_mono_ms();
    st = am_http1_post(h, path, c->r->tokens[u], text, strlen(text));
    free(text);
    if (bench_samples_add(lat, bench_mono_ms() - a) != 0) {
        client_error(c, "out of memory", 0, "");
        c->r->stop = 1;
        return NULL;
    }
    if (st != 200) {
        client_error(c, path, st, h->body);
        return NULL;
    }
    reply = json_loads(h->body, 0, NULL);
    if (!reply)
        client_error(c, path, 200, h->body);
    return reply;
}

static void phase_done(run_ctx *r)
{
    pthread_mutex_lock(&r->mu);
    r->done++;
    pthread_mutex_unlock(&r->mu);
}

static void *client_ingest(void *arg)
{
    client *c = arg;
    run_ctx *r = c->r;
    const bench_synth_opts *o = r->o;
    long j, u;
    for (j = 0; j < o->events && !r->stop; j++)
        for (u = c->id; u < o->users && !r->stop; u += (long)o->clients) {
            uint64_t t = (uint64_t)j * (uint64_t)o->users + (uint64_t)u;
            char text[512], cid[64], sid[32], iso[32];
            json_t *reply;
            const char *id;
            bench_synth_text(o->seed, t, needle_at(r, t), text, sizeof text);
            snprintf(cid, sizeof cid, "%s-e%llu", r->prefix, (unsigned long long)t);
            snprintf(sid, sizeof sid, "session_%ld", j / 50);
            bench_iso(r->t0_ms + (int64_t)t * EVENT_GAP_MS, 480, iso);
            reply = client_call(c, u, "/v1/events",
                                json_pack("{s:s, s:s, s:s, s:s}", "text", text, "id", cid,
                                          "session", sid, "at", iso),
                                &c->write_ms);
            if (!reply)
                continue;
            id = json_string_value(json_object_get(reply, "event_id"));
            if (id && strlen(id) < ID_CAP) {
                snprintf(r->acked[t], ID_CAP, "%s", id);
                c->acked++;
            } else {
                client_error(c, "POST /v1/events: no event_id in", 200,
                             c->conn[u % r->servers].body);
            }
            json_decref(reply);
        }
    phase_done(r);
    return NULL;
}

static void *client_recall(void *arg)
{
    client *c = arg;
    run_ctx *r = c->r;
    const bench_synth_opts *o = r->o;
    long i;
    for (i = 0; i < o->queries && !r->stop; i++) {
        long u = (long)(r->nd[i].t % (uint64_t)o->users);
        const char *want = r->acked[r->nd[i].t];
        json_t *reply, *evs;
        size_t k;
        if (u % (long)o->clients != c->id)
            continue;
        reply = client_call(c, u, "/v1/recall",
                            json_pack("{s:s, s:i}", "query", r->nd[i].query, "k", o->maxk),
                            &c->recall_ms);
        if (!reply)
            continue;
        evs = json_object_get(reply, "events");
        if (!json_is_array(evs))
            client_error(c, "POST /v1/recall: no events in", 200, c->conn[u % r->servers].body);
        for (k = 0; want[0] && k < json_array_size(evs); k++) {
            const char *id = json_string_value(json_object_get(json_array_get(evs, k), "id"));
            if (id && strcmp(id, want) == 0) {
                c->rank[i] = (int)k + 1;
                break;
            }
        }
        json_decref(reply);
    }
    phase_done(r);
    return NULL;
}

/* Run fn on every client; the main thread meanwhile takes the signals in
 * *sigs (a signal sets r->stop: the clients end their current request).
 * Returns the signal taken, or 0. */
static int run_phase(run_ctx *r, client *cs, long n, void *(*fn)(void *), const sigset_t *sigs)
{
    long i, started = 0;
    int sig = 0;
    r->done = 0;
    for (i = 0; i < n; i++) {
        if (pthread_create(&cs[i].th, NULL, fn, &cs[i]) != 0)
            break;
        started++;
    }
    if (started < n)
        r->stop = 1;
    for (;;) {
        struct timespec ts = {0, 100000000L};
        int got, done;
        pthread_mutex_lock(&r->mu);
        done = r->done;
        pthread_mutex_unlock(&r->mu);
        if (done >= started)
            break;
        got = sigtimedwait(sigs, NULL, &ts);
        if (got > 0) {
            sig = got;
            r->stop = 1;
        }
    }
    for (i = 0; i < started; i++)
        pthread_join(cs[i].th, NULL);
    if (started < n && !sig)
        sig = -1;
    return sig;
}

/* ---------------------------------------------------------------- the store */

/* The store in this process (the engine's defaults), or NULL (e set). */
static am_db *store_open(const char *store, bench_err *e)
{
    am_config cfg;
    am_db *db = NULL;
    char *err = NULL;
    int rc;
    am_config_init(&cfg);
    cfg.process_tuning = AM_PROCESS_ALL; /* a program of its own: the process is ours */
    cfg.path = store;
    if ((rc = am_open(&cfg, &db, &err)) != AM_OK) {
        bench_fail(e, "synth --servers: cannot open the store: %s: %s", am_errstr(rc),
                   err ? err : "");
        am_free(err);
        return NULL;
    }
    return db;
}

static int make_tokens(const char *store, const run_ctx *r, const sigset_t *sigs, bench_err *e)
{
    am_db *db = store_open(store, e);
    long u;
    int rc;
    if (!db)
        return -1;
    for (u = 0; u < r->o->users; u++) {
        struct timespec zero = {0, 0};
        char uid[64], *tok = NULL;
        am_token_spec spec;
        snprintf(uid, sizeof uid, "%s-u%05ld", r->prefix, u);
        memset(&spec, 0, sizeof spec);
        spec.user_id = uid;
        if ((rc = am_token_create(db, &spec, &tok, NULL)) != AM_OK || !tok ||
            strlen(tok) > AM_TOKEN_LEN) {
            bench_fail(e, "synth --servers: token for %s: %s: %s", uid, am_errstr(rc),
                       am_errmsg(db));
            am_free(tok);
            am_close(db);
            return -1;
        }
        snprintf(r->tokens[u], AM_TOKEN_LEN + 1, "%s", tok);
        am_free(tok);
        if (u % 64 == 63 && sigtimedwait(sigs, NULL, &zero) > 0) {
            am_close(db);
            return bench_fail(e, "synth --servers: interrupted");
        }
    }
    am_close(db);
    return 0;
}

static int cmp_id(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every acknowledged write is in the store: each user's export, its event
 * ids looked up.  Sets row->stored and row->missing. */
static int check_store(const char *store, const run_ctx *r, run_row *row, bench_err *e)
{
    const bench_synth_opts *o = r->o;
    am_db *db = store_open(store, e);
    long u;
    int rc;
    if (!db)
        return -1;
    row->stored = row->missing = 0;
    for (u = 0; u < o->users; u++) {
        char uid[64], *js = NULL;
        json_t *x, *evs;
        const char **ids;
        size_t k, n;
        long j;
        snprintf(uid, sizeof uid, "%s-u%05ld", r->prefix, u);
        if ((rc = am_export(db, uid, &js)) != AM_OK) {
            bench_fail(e, "synth --servers: export of %s: %s: %s", uid, am_errstr(rc),
                       am_errmsg(db));
            am_close(db);
            return -1;
        }
        x = json_loads(js, 0, NULL);
        am_free(js);
        evs = json_object_get(x, "events");
        n = json_array_size(evs);
        ids = calloc(n + 1, sizeof *ids);
        if (!x || !ids) {
            json_decref(x);
            free(ids);
            am_close(db);
            return bench_fail(e, "synth --servers: export of %s unreadable", uid);
        }
        for (k = 0; k < n; k++) {
            const char *id = json_string_value(json_object_get(json_array_get(evs, k), "id"));
            ids[k] = id ? id : "";
        }
        qsort(ids, n, sizeof *ids, cmp_id);
        row->stored += (long)n;
        for (j = 0; j < o->events; j++) {
            const char *want = r->acked[(uint64_t)j * (uint64_t)o->users + (uint64_t)u];
            if (want[0] && !bsearch(&want, ids, n, sizeof *ids, cmp_id))
                row->missing++;
        }
        free(ids);
        json_decref(x);
    }
    am_close(db);
    return 0;
}

/* ---------------------------------------------------------------- one run */

static void merge_samples(bench_samples *to, const bench_samples *from)
{
    size_t i;
    for (i = 0; i < from->n; i++)
        if (bench_samples_add(to, from->v[i]) != 0)
            return;
}

/* The clients' counts, latencies (merged into wall and rall) and the
 * needles they found into row. */
static void run_results(const bench_synth_opts *o, const bench_needle *nd, const client *cs,
                        run_row *row, bench_samples *wall, bench_samples *rall)
{
    long i, q;
    for (i = 0; i < o->clients; i++) {
        row->acked += cs[i].acked;
        row->errors += cs[i].errors;
        merge_samples(wall, &cs[i].write_ms);
        merge_samples(rall, &cs[i].recall_ms);
        if (cs[i].first_error[0])
            fprintf(stderr, "synth --servers: client %ld: %s\n", i, cs[i].first_error);
    }
    row->events_per_s = row->ingest_s > 0 ? (double)row->acked / row->ingest_s : 0;
    row->w50 = bench_samples_pct(wall, 50);
    row->w95 = bench_samples_pct(wall, 95);
    row->r50 = bench_samples_pct(rall, 50);
    row->r95 = bench_samples_pct(rall, 95);
    row->queries = (long)rall->n;
    for (q = 0; q < o->queries; q++) {
        long u = (long)(nd[q].t % (uint64_t)o->users);
        int rank = cs[u % o->clients].rank[q];
        size_t k;
        for (k = 0; k < o->nk; k++)
            if (rank > 0 && rank <= o->ks[k])
                row->found[k] += 1;
    }
    for (q = 0; q < (long)o->nk; q++)
        row->found[q] = o->queries ? row->found[q] / (double)o->queries : 0;
}

static int one_run(const bench_synth_opts *o, const bench_needle *nd, const char *exe,
                   const char *dir, long servers, const sigset_t *sigs, fleet *fl, run_row *row,
                   bench_err *e)
{
    uint64_t total = (uint64_t)o->users * (uint64_t)o->events;
    char store[4200], prefix[32];
    run_ctx r;
    client *cs = NULL;
    bench_samples wall = {0}, rall = {0};
    long i, q;
    int rc = -1, sig;
    double w0, busy0, tot0, busy1, tot1, self0, kids0;
    if (o->db)
        snprintf(store, sizeof store, "%s", o->db);
    else
        snprintf(store, sizeof store, "sqlite:%s/synth-%ld.db", dir, servers);
    snprintf(prefix, sizeof prefix, "synth-s%ld", servers);
    memset(&r, 0, sizeof r);
    memset(row, 0, sizeof *row);
    row->servers = servers;
    row->clients = o->clients;
    r.o = o;
    r.nd = nd;
    r.servers = servers;
    r.prefix = prefix;
    r.fl = fl;
    r.t0_ms = bench_civil_ms(2025, 1, 6, 9, 0, 0, 480);
    pthread_mutex_init(&r.mu, NULL);
    r.tokens = calloc((size_t)o->users, sizeof *r.tokens);
    r.acked = calloc((size_t)total, sizeof *r.acked);
    cs = calloc((size_t)o->clients, sizeof *cs);
    if (!r.tokens || !r.acked || !cs) {
        bench_fail(e, "out of memory");
        goto out;
    }
    if (o->progress)
        fprintf(stderr, "[synth] %ld %s: tokens for %ld %s\n", servers,
                am_plural(servers, "server", "servers"), o->users, am_plural(o->users, "user", "users"));
    if (make_tokens(store, &r, sigs, e) != 0)
        goto out;
    if (fleet_start(fl, exe, store, (int)servers, o->server_threads, dir, sigs, e) != 0)
        goto out;
    for (i = 0; i < o->clients; i++) {
        long s;
        cs[i].r = &r;
        cs[i].id = i;
        cs[i].rank = calloc((size_t)o->queries + 1, sizeof *cs[i].rank);
        if (!cs[i].rank) {
            bench_fail(e, "out of memory");
            goto out;
        }
        for (s = 0; s < servers; s++)
            if (am_http1_init(&cs[i].conn[s], fl->url[s]) != 0) {
                bench_fail(e, "synth --servers: bad server address %s", fl->url[s]);
                goto out;
            } else {
                /* a recall, or a write with a client id: repeatable */
                cs[i].conn[s].retry_idle = 1;
            }
    }
    if (o->progress)
        fprintf(stderr, "[synth] %ld %s up: ingest of %llu events\n", servers,
                am_plural(servers, "server", "servers"),
                (unsigned long long)total);
    row->load_before = load_avg();
    machine_jiffies(&busy0, &tot0);
    self0 = cpu_s(RUSAGE_SELF);
    kids0 = cpu_s(RUSAGE_CHILDREN);
    w0 = bench_mono_ms();
    sig = run_phase(&r, cs, o->clients, client_ingest, sigs);
    row->ingest_s = (bench_mono_ms() - w0) / 1000;
    if (!sig) {
        if (o->progress)
            fprintf(stderr, "[synth] %ld %s: %ld %s\n", servers,
                    am_plural(servers, "server", "servers"), o->queries,
                    am_plural(o->queries, "query", "queries"));
        sig = run_phase(&r, cs, o->clients, client_recall, sigs);
    }
    row->load_after = load_avg();
    row->client_cpu_s = cpu_s(RUSAGE_SELF) - self0;
    row->wall_s = (bench_mono_ms() - w0) / 1000;
    machine_jiffies(&busy1, &tot1);
    row->machine_busy = tot1 > tot0 ? (busy1 - busy0) / (tot1 - tot0) : 0;
    row->cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (sig) {
        bench_fail(e, sig > 0 ? "synth --servers: interrupted by signal %d"
                              : "synth --servers: cannot start the client threads (%d)",
                   sig);
        goto out;
    }
    run_results(o, nd, cs, row, &wall, &rall);
    if (fleet_stop(fl, e) != 0)
        goto out;
    /* the servers' CPU includes their start (small) and their stop */
    row->server_cpu_s = cpu_s(RUSAGE_CHILDREN) - kids0;
    if (o->progress)
        fprintf(stderr, "[synth] %ld %s: checking the store\n", servers,
                am_plural(servers, "server", "servers"));
    if (check_store(store, &r, row, e) != 0)
        goto out;
    rc = 0;
out:
    if (fl->n)
        fleet_stop(fl, NULL);
    if (cs)
        for (i = 0; i < o->clients; i++) {
            for (q = 0; q < servers; q++)
                am_http1_close(&cs[i].conn[q]);
            bench_samples_free(&cs[i].write_ms);
            bench_samples_free(&cs[i].recall_ms);
            free(cs[i].rank);
        }
    bench_samples_free(&wall);
    bench_samples_free(&rall);
    free(cs);
    free(r.tokens);
    free(r.acked);
    pthread_mutex_destroy(&r.mu);
    if (!o->db) {
        char p[4300];
        static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
        size_t k;
        for (k = 0; k < 4; k++) {
            snprintf(p, sizeof p, "%s/synth-%ld.db%s", dir, servers, suffix[k]);
            unlink(p);
        }
    }
    return rc;
}

/* ---------------------------------------------------------------- report */

static const char *store_kind(const char *store)
{
    if (!store)
        return "sqlite (temp file per run)";
    if (strncmp(store, "postgres://", 11) == 0 || strncmp(store, "postgresql://", 13) == 0)
        return "postgres";
    return "sqlite";
}

static void report(const bench_synth_opts *o, const run_row *rows, size_t n)
{
    size_t i, k;
    if (o->json) {
        json_t *root = json_object(), *runs = json_array();
        char *text;
        json_object_set_new(root, "dataset", json_string("synth"));
        json_object_set_new(root, "mode", json_string("servers"));
        json_object_set_new(root, "store", json_string(store_kind(o->db)));
        json_object_set_new(root, "users", json_integer(o->users));
        json_object_set_new(root, "events_per_user", json_integer(o->events));
        json_object_set_new(root, "events", json_integer((json_int_t)(o->users * o->events)));
        json_object_set_new(root, "queries", json_integer(o->queries));
        json_object_set_new(root, "clients", json_integer(o->clients));
        json_object_set_new(root, "server_threads", json_integer(o->server_threads));
        json_object_set_new(root, "seed", json_integer((json_int_t)o->seed));
        for (i = 0; i < n; i++) {
            const run_row *r = &rows[i];
            json_t *x = json_object(), *found = json_object();
            json_object_set_new(x, "servers", json_integer(r->servers));
            json_object_set_new(x, "ingest_seconds", json_real(r->ingest_s));
            json_object_set_new(x, "ingest_events_per_s", json_real(r->events_per_s));
            json_object_set_new(x, "write_p50_ms", json_real(r->w50));
            json_object_set_new(x, "write_p95_ms", json_real(r->w95));
            json_object_set_new(x, "recall_queries", json_integer(r->queries));
            json_object_set_new(x, "recall_p50_ms", json_real(r->r50));
            json_object_set_new(x, "recall_p95_ms", json_real(r->r95));
            for (k = 0; k < o->nk; k++) {
                char key[16];
                snprintf(key, sizeof key, "%d", o->ks[k]);
                json_object_set_new(found, key, json_real(r->found[k]));
            }
            json_object_set_new(x, "needle_found", found);
            json_object_set_new(x, "errors", json_integer(r->errors));
            json_object_set_new(x, "acknowledged", json_integer(r->acked));
            json_object_set_new(x, "stored", json_integer(r->stored));
            json_object_set_new(x, "missing", json_integer(r->missing));
            json_object_set_new(x, "server_cpu_seconds", json_real(r->server_cpu_s));
            json_object_set_new(x, "client_cpu_seconds", json_real(r->client_cpu_s));
            json_object_set_new(x, "machine_busy", json_real(r->machine_busy));
            json_object_set_new(x, "cores", json_integer(r->cores));
            json_object_set_new(x, "phases_seconds", json_real(r->wall_s));
            json_object_set_new(x, "load_before", json_real(r->load_before));
            json_object_set_new(x, "load_after", json_real(r->load_after));
            json_array_append_new(runs, x);
        }
        json_object_set_new(root, "runs", runs);
        text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
        if (text)
            printf("%s\n", text);
        free(text);
        json_decref(root);
        return;
    }
    printf("synth --servers: %ld users x %ld events = %ld events, %ld queries, seed %llu, "
           "store %s, %ld client threads, %ld threads per server\n",
           o->users, o->events, o->users * o->events, o->queries, (unsigned long long)o->seed,
           store_kind(o->db), o->clients, o->server_threads);
    printf("%7s %9s %10s %10s %10s %10s %10s %7s %6s %8s %8s %7s %11s\n", "servers", "ingest_s",
           "events/s", "write_p50", "write_p95", "recall_p50", "recall_p95", "found", "errors",
           "acked", "stored", "missing", "load");
    for (i = 0; i < n; i++) {
        const run_row *r = &rows[i];
        printf("%7ld %9.1f %10.1f %10.2f %10.2f %10.2f %10.2f %7.3f %6ld %8ld %8ld %7ld %5.1f-%-5.1f\n",
               r->servers, r->ingest_s, r->events_per_s, r->w50, r->w95, r->r50, r->r95,
               o->nk ? r->found[o->nk - 1] : 0, r->errors, r->acked, r->stored, r->missing,
               r->load_before, r->load_after);
    }
    for (i = 0; i < n; i++)
        printf("cpu, %ld %s: %.1f s in the servers, %.1f s in the clients; the machine "
               "%.0f%% busy of %d cores over %.1f s\n", rows[i].servers,
               am_plural(rows[i].servers, "server", "servers"), rows[i].server_cpu_s,
               rows[i].client_cpu_s, rows[i].machine_busy * 100, rows[i].cores,
               rows[i].wall_s);
    printf("(latencies in ms; found = the needle among the first %d events of its recall; "
           "load = the 1-minute load average before-after)\n", o->nk ? o->ks[o->nk - 1] : 0);
}

int bench_synth_servers(const bench_synth_opts *o, bench_err *e)
{
    char dir[4096], exe[4096];
    const char *tmp = getenv("TMPDIR");
    uint64_t total = (uint64_t)o->users * (uint64_t)o->events;
    bench_needle *nd = NULL;
    run_row rows[BENCH_MAX_SERVERS];
    sigset_t sigs, old;
    fleet fl;
    ssize_t len;
    size_t i;
    int rc = 0;
    memset(&fl, 0, sizeof fl);
    len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return bench_fail(e, "synth --servers: cannot find this executable (/proc/self/exe)");
    exe[len] = '\0';
    snprintf(dir, sizeof dir, "%s/agentmem-scale-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return bench_fail(e, "synth --servers: cannot create a temp directory in %s",
                          tmp && *tmp ? tmp : "/tmp");
    nd = calloc((size_t)o->queries + 1, sizeof *nd);
    if (!nd) {
        rmdir(dir);
        return bench_fail(e, "out of memory");
    }
    bench_synth_needles(o, nd, total);
    /* the signals that end the bench are taken by the main thread only */
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &sigs, &old);
    for (i = 0; i < o->n_servers && rc == 0; i++)
        rc = one_run(o, nd, exe, dir, o->servers[i], &sigs, &fl, &rows[i], e);
    if (rc == 0)
        report(o, rows, o->n_servers);
    /* the servers' logs, then the directory */
    for (i = 0; i < o->n_servers; i++) {
        long k;
        for (k = 1; k <= o->servers[i]; k++) {
            char p[4200];
            snprintf(p, sizeof p, "%s/serve-%ld-%ld.out", dir, o->servers[i], k);
            unlink(p);
            snprintf(p, sizeof p, "%s/serve-%ld-%ld.err", dir, o->servers[i], k);
            unlink(p);
        }
    }
    rmdir(dir);
    free(nd);
    /* a signal taken after the clients' last phase is delivered now, the
     * servers and the temp directory gone */
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}
