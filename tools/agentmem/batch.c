/* SPDX-License-Identifier: Apache-2.0 */
/*
 * batch.c -- `agentmem add --batch FILE.jsonl [--atomic]`: one event per
 * JSON line, with the fields of `add` (user, channel, external_id, agent,
 * session, task, source, type, domain, intent, at, text) and an optional
 * `id` (am_event.event_id: a re-run of the file finds its events instead
 * of writing copies).
 *
 * The file's shape is fixed, so every line is checked before the engine
 * sees it: a value that is not a string (or null, meaning absent) is
 * refused naming the field and the type it has ("task: expected a string,
 * got an integer"), a key that is not a field is refused by name, and a
 * NUL byte, a duplicate key or a line that is not a JSON object make the
 * line bad.  The path must name a file (not a directory, not "").
 *
 * Without --atomic the good lines are written in chunks, one transaction
 * each (am_add_events): short enough that other writers of the store get
 * the lock between two chunks, long enough to commit less often than line
 * by line.  A chunk has at most BATCH_CHUNK lines and is halved while one
 * takes longer than BATCH_CHUNK_MS (a slow machine, long texts, an
 * embedder, a busy store), doubled back when one takes under a quarter of
 * it.  A chunk with a refused event is written again line by line, so
 * each line is added or refused on its own and bad lines are reported and
 * skipped (exit 1 if any).  With --atomic the whole file is one
 * am_add_events call after every line was checked: one bad line (or one
 * refused event) and nothing is written.
 *
 * On a terminal a progress bar on stderr counts the lines read (of the
 * file's lines, counted first; a counter for stdin); --quiet or stderr
 * not a terminal: none (tools/common/progress.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "fields.h"
#include "plural.h"
#include "progress.h"

/* One line into *ev (strings borrowed from *root, which the caller
 * releases).  0, or 1 with the reason in why.  The fields and their
 * checks are tools/common/fields.c's (the server's events are the same). */
static int parse_line(const char *line, size_t n, json_t **root, am_event *ev, char *why,
                      size_t cap)
{
    memset(ev, 0, sizeof *ev);
    *root = NULL;
    if (memchr(line, 0, n)) {
        snprintf(why, cap, "contains a NUL byte");
        return 1;
    }
    json_error_t je;
    json_t *j = json_loadb(line, n, JSON_REJECT_DUPLICATES, &je);
    if (!json_is_object(j)) {
        snprintf(why, cap, "%s", j ? "not a JSON object" : je.text);
        json_decref(j);
        return 1;
    }
    *root = j;
    const char *bad;
    return am_fields_read(j, am_event_fields, am_n_event_fields, ev, why, cap, &bad);
}

/* The batch file, refusing what is not one. */
static FILE *open_batch(const char *path)
{
    if (strcmp(path, "-") == 0) return stdin;
    FILE *f = fopen(path, "r");
    struct stat sb;
    if (!f) {
        fprintf(stderr, "agentmem add: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    if (fstat(fileno(f), &sb) != 0 || S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "agentmem add: %s is a directory, not a batch file\n", path);
        fclose(f);
        return NULL;
    }
    return f;
}

/* The lines of a regular file (the last one may lack its newline), the
 * file read again from its start; 0 when not known (a pipe, stdin). */
static size_t count_lines(FILE *f)
{
    struct stat sb;
    if (f == stdin || fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
    char buf[1 << 16];
    size_t n = 0, got;
    int last = '\n';
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        for (const char *p = buf; (p = memchr(p, '\n', got - (size_t)(p - buf))); p++) n++;
        last = buf[got - 1];
    }
    if (last != '\n') n++;
    rewind(f);
    return n;
}

typedef struct batch {
    json_t **roots;
    am_event *evs;
    long *lines;
    size_t n, cap;
} batch;

static int batch_push(batch *b, json_t *root, const am_event *ev, long line)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        json_t **r = realloc(b->roots, cap * sizeof *r);
        if (r) b->roots = r;
        am_event *e = r ? realloc(b->evs, cap * sizeof *e) : NULL;
        if (e) b->evs = e;
        long *l = e ? realloc(b->lines, cap * sizeof *l) : NULL;
        if (!l) return 1;
        b->lines = l;
        b->cap = cap;
    }
    b->roots[b->n] = root;
    b->evs[b->n] = *ev;
    b->lines[b->n] = line;
    b->n++;
    return 0;
}

static void batch_free(batch *b)
{
    for (size_t i = 0; i < b->n; i++) json_decref(b->roots[i]);
    free(b->roots);
    free(b->evs);
    free(b->lines);
}

/* The whole file in one transaction. */
static int add_atomic(am_db *db, const char *path, batch *b, int json, long *ok, long *existing)
{
    am_add_info *infos = calloc(b->n ? b->n : 1, sizeof *infos);
    if (!infos) {
        fprintf(stderr, "agentmem add: out of memory\n");
        return 1;
    }
    int rc = am_add_events(db, b->evs, b->n, infos);
    if (rc) {
        /* "add: events[i]: why" -> the line of event i */
        const char *m = am_errmsg(db);
        size_t i = 0;
        const char *rest = m;
        if (sscanf(m, "add: events[%zu]: ", &i) == 1 && i < b->n && (rest = strstr(m, "]: ")))
            fprintf(stderr, "agentmem add: %s:%ld: %s\n", path, b->lines[i], rest + 3);
        else fprintf(stderr, "agentmem add: %s: %s\n", path, m);
        free(infos);
        return 1;
    }
    for (size_t i = 0; i < b->n; i++) {
        if (infos[i].existing) ++*existing;
        else ++*ok;
        if (json && am_cli_print_add(&infos[i], 1)) rc = 1;
    }
    free(infos);
    return rc;
}

#define BATCH_CHUNK 32
#define BATCH_CHUNK_MS 100

/* The chunk's lines in one transaction, or line by line when one is
 * refused; *max adapts to how long it took.  Releases the lines. */
static void add_chunk(am_db *db, const char *path, batch *b, int json, size_t *max, long *ok,
                      long *existing, long *bad, am_progress *bar)
{
    if (b->n == 0) return;
    am_add_info infos[BATCH_CHUNK];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int chunk_rc = am_add_events(db, b->evs, b->n, infos);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long ms = (long)(t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    if (ms > BATCH_CHUNK_MS && *max > 1) *max /= 2;
    else if (ms < BATCH_CHUNK_MS / 4 && b->n == *max && *max < BATCH_CHUNK) *max *= 2;
    for (size_t i = 0; i < b->n; i++) {
        if (chunk_rc && am_add_event(db, &b->evs[i], &infos[i])) {
            am_progress_clear(bar);
            fprintf(stderr, "agentmem add: %s:%ld: %s\n", path, b->lines[i], am_errmsg(db));
            ++*bad;
            continue;
        }
        if (infos[i].existing) ++*existing;
        else ++*ok;
        if (json) am_progress_clear(bar); /* stdout may be the same terminal */
        if (json && am_cli_print_add(&infos[i], 1)) ++*bad;
    }
    for (size_t i = 0; i < b->n; i++) json_decref(b->roots[i]);
    b->n = 0;
}

int am_cli_add_batch(am_db *db, const char *path, int atomic, int json, int quiet)
{
    FILE *f = open_batch(path);
    if (!f) return 1;
    am_progress bar;
    am_progress_start(&bar, "add", "lines", 0, quiet);
    if (bar.out) am_progress_set(&bar, 0, count_lines(f)); /* only for the bar */
    char *line = NULL, why[400];
    size_t cap = 0;
    ssize_t len;
    long lineno = 0, ok = 0, bad = 0, existing = 0;
    batch b = {0};
    size_t max = BATCH_CHUNK;
    while ((len = getline(&line, &cap, f)) > 0) {
        lineno++;
        am_progress_set(&bar, (size_t)lineno, 0);
        size_t n = (size_t)len, k = 0;
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) n--;
        while (k < n && (line[k] == ' ' || line[k] == '\t')) k++;
        if (k == n) continue;
        json_t *root;
        am_event ev;
        if (parse_line(line, n, &root, &ev, why, sizeof why)) {
            am_progress_clear(&bar);
            fprintf(stderr, "agentmem add: %s:%ld: %s\n", path, lineno, why);
            json_decref(root);
            bad++;
            continue;
        }
        if (batch_push(&b, root, &ev, lineno)) {
            fprintf(stderr, "agentmem add: out of memory\n");
            json_decref(root);
            bad++;
            break;
        }
        if (!atomic && b.n == max) add_chunk(db, path, &b, json, &max, &ok, &existing, &bad, &bar);
    }
    if (!atomic) add_chunk(db, path, &b, json, &max, &ok, &existing, &bad, &bar);
    if (ferror(f)) {
        fprintf(stderr, "agentmem add: %s: read error: %s\n", path, strerror(errno));
        bad++;
    }
    free(line);
    if (f != stdin) fclose(f);
    am_progress_end(&bar);
    if (atomic) {
        if (bad) fprintf(stderr, "agentmem add: %s: %ld bad %s, nothing added (--atomic)\n",
                         path, bad, am_plural(bad, "line", "lines"));
        else if (add_atomic(db, path, &b, json, &ok, &existing)) bad = 1;
    }
    batch_free(&b); /* the arrays (a chunk's lines were released with it) */
    fprintf(stderr, "%ld added, %ld already present, %ld rejected\n", ok, existing, bad);
    return bad ? 1 : 0;
}
