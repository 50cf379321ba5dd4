/* SPDX-License-Identifier: Apache-2.0 */
/*
 * watch.c -- `agentmem watch`: the store's memory events
 * (docs/EVENTS.md) as JSON lines, one per event, in seq order.
 *
 * It reads the outbox with am_events_since, so it sees what every process
 * writing the store published and committed; with --follow it polls for
 * more (every --interval-ms, default 200) until SIGINT or SIGTERM, until
 * --max-events N lines were printed, or until stdout is closed, and exits
 * 0 in each case.  --from SEQ starts after that seq (default 0: all that
 * is kept); resuming with the last seq printed misses nothing.  Each line
 * is am_shape_memory_event's object (the library's JSON of the event).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static int watch_usage(const char *msg)
{
    if (msg) fprintf(stderr, "agentmem: watch: %s\n", msg);
    fputs("usage: agentmem watch [--db PATH] [--user U] [--from SEQ] [--follow]\n"
          "                      [--max-events N] [--interval-ms MS] [--json]\n",
          stderr);
    return 2;
}

/* a whole number in [lo, hi] */
static int parse_num(const char *v, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (end == v || *end || errno || n < lo || n > hi) return -1;
    *out = n;
    return 0;
}

static void nap(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL); /* a signal ends it early: the loop checks */
}

int am_cli_watch(int argc, char **argv, const char *db_path)
{
    const char *user = NULL;
    long long from = 0, max_events = 0, interval = 200;
    int follow = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (strcmp(a, "--follow") == 0) follow = 1;
        else if (strcmp(a, "--json") == 0) continue; /* always JSON lines */
        else if (strcmp(a, "--db") == 0 && has) db_path = argv[++i];
        else if (strcmp(a, "--user") == 0 && has) user = argv[++i];
        else if (strcmp(a, "--from") == 0 && has) {
            if (parse_num(argv[++i], 0, INT64_MAX, &from))
                return watch_usage("--from: expected a seq (a whole number >= 0)");
        } else if (strcmp(a, "--max-events") == 0 && has) {
            if (parse_num(argv[++i], 1, 100000000, &max_events))
                return watch_usage("--max-events: expected a number from 1 to 100000000");
        } else if (strcmp(a, "--interval-ms") == 0 && has) {
            if (parse_num(argv[++i], 10, 60000, &interval))
                return watch_usage("--interval-ms: expected milliseconds from 10 to 60000");
        } else {
            char msg[128];
            snprintf(msg, sizeof msg, "unknown option or missing value: %.60s", a);
            return watch_usage(msg);
        }
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: a nap ends at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN); /* a closed stdout is a write error: the end */

    am_config cfg;
    am_config_init(&cfg);
    cfg.process_tuning = AM_PROCESS_ALL; /* a program of its own: the process is ours */
    cfg.path = db_path;
    cfg.must_exist = strcmp(db_path, ":memory:") != 0;
    am_db *db = NULL;
    char *err = NULL;
    int rc = am_open(&cfg, &db, &err);
    if (rc) {
        fprintf(stderr, "agentmem: %s (%s)\n", err ? err : "cannot open the store", am_errstr(rc));
        am_free(err);
        return 1;
    }
    int64_t after = (int64_t)from;
    long long printed = 0;
    int out = 0;
    while (!stop_requested) {
        am_memory_events *ev = NULL;
        size_t want = 1000;
        if (max_events && (long long)want > max_events - printed)
            want = (size_t)(max_events - printed);
        if ((rc = am_events_since(db, user, after, want, &ev))) {
            fprintf(stderr, "agentmem: %s (%s)\n", am_errmsg(db), am_errstr(rc));
            out = rc == AM_INVALID ? 2 : 1;
            break;
        }
        for (size_t i = 0; i < ev->n; i++) {
            json_t *v = am_shape_memory_event(&ev->items[i]);
            char *line = v ? json_dumps(v, JSON_COMPACT) : NULL;
            json_decref(v);
            if (!line) {
                fprintf(stderr, "agentmem: watch: out of memory\n");
                out = 1;
                break;
            }
            int bad = printf("%s\n", line) < 0;
            free(line);
            if (bad) break;
            printed++;
        }
        after = ev->last_seq;
        size_t got = ev->n;
        am_memory_events_free(ev);
        if (out || fflush(stdout) != 0 || ferror(stdout)) break; /* stdout closed: done */
        if (max_events && printed >= max_events) break;
        if (!follow && got < want) break; /* all there is, once */
        if (got < want) nap((long)interval);
    }
    am_close(db);
    return out;
}
