/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario.c -- `agentmem scenario run FILE... [--store URL] [--json]`:
 * replays scenario files (SCENARIOS.md) against the engine and prints one
 * PASS/FAIL line per expectation, then "N passed, N failed".
 *
 * Each file gets a fresh, empty store whose clock is the `at` of the step
 * being run.  Parsing lines and judging expectations is engine-independent
 * and lives in scenario_parse.c (fuzzed); this file only talks to the engine
 * through include/agentmem.h, turns its answers into an sc_obs and reports.
 *
 * What prints: every expectation (PASS or FAIL), every problem with a line
 * (FAIL), and every step that fails or could not run (FAIL).  Steps without
 * expectations that succeed print nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <jansson.h>

#include "agentmem_ops.h"
#include "cli.h"
#include "scenario_dump.h"
#include "scenario_parse.h"

static const char usage[] =
    "usage: agentmem scenario run FILE... [--store URL] [--cache URL] [--json]"
    " [--dump FILE]\n"
    "\n"
    "Replay scenario files (JSON Lines, one step per line; see SCENARIOS.md)\n"
    "against a fresh, empty store each, and check every expectation.\n"
    "\n"
    "  --store URL  the store to use for each file: \":memory:\",\n"
    "               \"sqlite::memory:\", \"sqlite:PATH\", PATH, or\n"
    "               \"postgres://...\" (an empty database, one file).  A file store\n"
    "               is deleted first and kept afterwards; with several\n"
    "               files each gets its own (x.db -> x-1.db, x-2.db, ...).\n"
    "               Default: a temporary SQLite file, removed afterwards.\n"
    "  --cache URL  the shared cache for every store (redis://HOST:PORT[/DB];\n"
    "               also $AGENTMEM_CACHE): the same results, recalls cached.\n"
    "  --json       print one JSON object {files, results, passed, failed}\n"
    "               instead of PASS/FAIL lines.\n"
    "  --dump FILE  also write one JSON line per recall step to FILE: file,\n"
    "               line, query, then the recall result without its ids\n"
    "               (ULIDs differ run to run): need_memory, route, lang,\n"
    "               the rendered block, the memories (texts, kinds, scores,\n"
    "               times), the events (contents, scores), the task; or\n"
    "               \"error\" when the step was refused.  The same scenario\n"
    "               and engine give the same file (scripts/same-rankings.sh\n"
    "               compares two builds with it).\n"
    "\n"
    "Prints \"PASS file:line check\" or \"FAIL file:line check: expected ... /\n"
    "got ...\" per expectation, then \"N passed, N failed\".  Exit status: 0\n"
    "when nothing failed, 1 when something failed, 2 on a usage error.\n";

/* ------------------------------------------------------------ the run */

typedef struct run {
    int json;          /* --json */
    const char *store; /* --store URL, or NULL for a temporary file */
    const char *dump_path; /* --dump FILE, or NULL */
    FILE *dump;        /* open on dump_path */
    int dump_failed;   /* a line could not be written */
    int n_files;
    long passed, failed;
    json_t *results;   /* --json: the result objects */
    json_t *files;     /* --json: one object per file */
} run;

typedef struct scfile {
    run *r;
    const char *name;  /* as given on the command line */
    int index;         /* 1-based */
    am_db *db;
    am_time now;       /* the injected clock */
    char *path;        /* what am_config.path gets */
    char *tmpdir;      /* our temporary directory, removed at the end */
    json_t *labels;    /* event label -> event id */
    char *role_allow;  /* the config step's whitelists (am_config.role_allow) */
    int tz;            /* the zone the store was opened with */
    long passed, failed;
} scfile;

/* What a step's engine calls left behind, released after the checks. */
typedef struct held {
    am_recall_result *recall;
    am_task *task;
    am_memory_list *list;
    char *export_json, *pack_json;
    const char **mem_texts, **event_texts, **item_texts, **item_statuses;
    am_profile_card *profile;
    sc_buf task_text, history_text, export_flat, workspace_flat, pack_flat;
} held;

/* Result of running one step: the engine's code, or RUNNER_FAIL when the
 * runner itself could not do the step (then `err` says why). */
#define RUNNER_FAIL (-1)

static void report(scfile *f, long line, const char *step, const char *check,
                   int ok, const char *detail)
{
    run *r = f->r;
    if (ok) {
        r->passed++;
        f->passed++;
    } else {
        r->failed++;
        f->failed++;
    }
    sc_buf name = {0}, file = {0}, det = {0};
    sc_buf_clean(&file, f->name, 0);
    sc_buf_adds(&name, step ? step : "line");
    if (check) sc_buf_printf(&name, ".%s", check);
    sc_buf_clean(&det, ok ? "" : detail ? detail : "failed", 0);
    if (!r->json) {
        printf("%s %s:%ld %s%s%s\n", ok ? "PASS" : "FAIL", sc_buf_str(&file),
               line, sc_buf_str(&name), ok ? "" : ": ", sc_buf_str(&det));
        fflush(stdout);
    } else {
        json_t *o = json_object();
        json_object_set_new(o, "file", json_string(sc_buf_str(&file)));
        json_object_set_new(o, "line", json_integer(line));
        json_object_set_new(o, "step", json_string(step ? step : "line"));
        json_object_set_new(o, "check", check ? json_string(check) : json_null());
        json_object_set_new(o, "ok", json_boolean(ok));
        json_object_set_new(o, "detail", json_string(sc_buf_str(&det)));
        if (o) json_array_append_new(r->results, o);
    }
    sc_buf_free(&name);
    sc_buf_free(&file);
    sc_buf_free(&det);
}

static const char *rc_name(int rc)
{
    static const char *const names[] = {
        "AM_OK",       "AM_ERROR", "AM_NOMEM", "AM_MISUSE", "AM_INVALID",
        "AM_NOTFOUND", "AM_DENIED", "AM_BUSY", "AM_TOOBIG", "AM_IO",
        "AM_BACKEND",  "AM_CORRUPT", "AM_NEWER",
    };
    return rc >= 0 && (size_t)rc < sizeof names / sizeof *names ? names[rc]
                                                                : "AM_?";
}

/* "AM_INVALID (invalid input): <am_errmsg>" of the call that just failed. */
static void engine_error(scfile *f, int rc, sc_buf *err)
{
    sc_buf_printf(err, "%s (%s)", rc_name(rc), am_errstr(rc));
    const char *msg = f->db ? am_errmsg(f->db) : "";
    if (msg && *msg) {
        sc_buf_adds(err, ": ");
        sc_buf_clean(err, msg, 400);
    }
}

/* ------------------------------------------------------------ the store */

static am_time clock_now(void *ctx)
{
    return ((const scfile *)ctx)->now;
}

static char *str_dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static int is_memory_url(const char *url)
{
    return strcmp(url, ":memory:") == 0 || strcmp(url, "sqlite::memory:") == 0;
}

/* A URL naming another backend ("postgres://...") is passed as is. */
static int is_other_url(const char *url)
{
    return strstr(url, "://") != NULL && strncmp(url, "sqlite:", 7) != 0;
}

static void remove_store_files(const char *path)
{
    static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
        sc_buf p = {0};
        sc_buf_printf(&p, "%s%s", path, suffix[i]);
        if (!p.oom) unlink(sc_buf_str(&p));
        sc_buf_free(&p);
    }
}

/* The store of file f: a fresh temporary directory by default; the --store
 * URL otherwise, a file store made per-file and emptied first. */
static int store_prepare(scfile *f, sc_buf *err)
{
    const char *url = f->r->store;
    if (!url) {
        const char *tmp = getenv("TMPDIR");
        sc_buf dir = {0};
        sc_buf_printf(&dir, "%s/agentmem-scenario-XXXXXX",
                      tmp && *tmp ? tmp : "/tmp");
        f->tmpdir = dir.oom ? NULL : dir.p;
        if (!f->tmpdir || !mkdtemp(f->tmpdir)) {
            sc_buf_printf(err, "expected a temporary directory / got %s",
                          strerror(errno));
            free(f->tmpdir);
            f->tmpdir = NULL;
            return 0;
        }
        sc_buf p = {0};
        sc_buf_printf(&p, "%s/store.db", f->tmpdir);
        f->path = p.oom ? NULL : p.p;
        return f->path != NULL;
    }
    if (is_other_url(url) && f->r->n_files > 1) {
        /* a server's database is not emptied here: one file, one fresh store */
        sc_buf_printf(err, "expected one scenario file per --store %.*s://... store (each file"
                           " replays into a fresh, empty store) / got %d files",
                      (int)(strstr(url, "://") - url) < 16 ? (int)(strstr(url, "://") - url) : 16,
                      url, f->r->n_files);
        return 0;
    }
    if (is_memory_url(url) || is_other_url(url)) {
        f->path = str_dup(url);
        return f->path != NULL;
    }
    int prefixed = strncmp(url, "sqlite:", 7) == 0;
    const char *file = prefixed ? url + 7 : url;
    sc_buf p = {0};
    if (f->r->n_files == 1) {
        sc_buf_adds(&p, file);
    } else {
        /* x.db -> x-2.db; x -> x-2 */
        const char *slash = strrchr(file, '/');
        const char *dot = strrchr(file, '.');
        if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : file))
            dot = file + strlen(file);
        sc_buf_add(&p, file, (size_t)(dot - file));
        sc_buf_printf(&p, "-%d%s", f->index, dot);
    }
    if (p.oom) { sc_buf_free(&p); return 0; }
    remove_store_files(sc_buf_str(&p));
    if (prefixed) {
        sc_buf u = {0};
        sc_buf_printf(&u, "sqlite:%s", sc_buf_str(&p));
        sc_buf_free(&p);
        p = u;
    }
    f->path = p.oom ? NULL : p.p;
    return f->path != NULL;
}

static int store_open(scfile *f, int tz_minutes, sc_buf *err)
{
    if (!f->path && !store_prepare(f, err)) {
        if (!err->len) sc_buf_adds(err, "expected a store / got out of memory");
        return 0;
    }
    am_config cfg;
    am_config_init(&cfg);
    cfg.process_tuning = AM_PROCESS_ALL; /* a program of its own: the process is ours */
    cfg.path = f->path;
    cfg.clock = clock_now;
    cfg.clock_ctx = f;
    cfg.default_tz_minutes = tz_minutes;
    cfg.role_allow = f->role_allow;
    cfg.cache = getenv("AGENTMEM_CACHE"); /* --cache sets it */
    f->tz = tz_minutes;
    char *msg = NULL;
    int rc = am_open(&cfg, &f->db, &msg);
    if (rc == AM_OK && f->db) return 1;
    sc_buf_adds(err, "expected to open the store ");
    sc_buf_quote(err, f->path, 0);
    sc_buf_printf(err, " / got %s (%s)", rc_name(rc), am_errstr(rc));
    if (msg && *msg) {
        sc_buf_adds(err, ": ");
        sc_buf_clean(err, msg, 400);
    }
    am_free(msg);
    am_close(f->db);
    f->db = NULL;
    return 0;
}

static void store_close(scfile *f)
{
    am_close(f->db);
    f->db = NULL;
    if (f->tmpdir) {
        DIR *d = opendir(f->tmpdir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            sc_buf p = {0};
            sc_buf_printf(&p, "%s/%s", f->tmpdir, e->d_name);
            if (!p.oom) unlink(sc_buf_str(&p));
            sc_buf_free(&p);
        }
        if (d) closedir(d);
        rmdir(f->tmpdir);
    }
    free(f->tmpdir);
    free(f->path);
    free(f->role_allow);
    f->tmpdir = f->path = f->role_allow = NULL;
}

/* ------------------------------------------------------------ steps */

static int is_active(const char *status)
{
    return !status || strcmp(status, "active") == 0;
}

/* The task record as text: name, stage, status, artifacts, pending, notes
 * (the JSON arrays flattened so that Unicode is never \u-escaped). */
static void task_render(const am_task *t, sc_buf *b)
{
    sc_buf_printf(b, "name: %s\nstage: %s\nstatus: %s\nartifacts:\n",
                  t->name ? t->name : "", t->stage ? t->stage : "",
                  t->status ? t->status : "");
    sc_json_text_flatten(t->artifacts_json, b);
    sc_buf_adds(b, "\npending:\n");
    sc_json_text_flatten(t->pending_json, b);
    sc_buf_adds(b, "\nnotes:\n");
    sc_json_text_flatten(t->notes_json, b);
}

/* Texts of the memories a check sees: the active ones, or all with `all`. */
static int memory_texts(const am_memory *items, size_t n, int all,
                        const char ***out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (!n) return 1;
    const char **t = calloc(n, sizeof *t);
    if (!t) return 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (all || is_active(items[i].status))
            t[k++] = items[i].text ? items[i].text : "";
    *out = t;
    *n_out = k;
    return 1;
}

static int do_link(scfile *f, const sc_step *st)
{
    return am_link(f->db, st->channel, st->external_id, st->user);
}

static int do_add(scfile *f, const sc_step *st, sc_buf *err)
{
    if (st->label && json_object_get(f->labels, st->label)) {
        sc_buf_adds(err, "expected a new label / got ");
        sc_buf_quote(err, st->label, 0);
        sc_buf_adds(err, ", already used in this file");
        return RUNNER_FAIL;
    }
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = st->user;
    ev.channel = st->channel;
    ev.external_id = st->external_id;
    ev.agent_id = st->agent;
    ev.session_id = st->session;
    ev.task_id = st->task;
    ev.source = st->source;
    ev.type = st->type;
    ev.domain = st->domain;
    ev.text = st->text;
    ev.occurred_at = st->occurred_at ? st->occurred_at : st->at;
    am_add_info info;
    memset(&info, 0, sizeof info);
    int rc = am_add_event(f->db, &ev, &info);
    if (rc == AM_OK && st->label) {
        info.event_id[sizeof info.event_id - 1] = '\0';
        json_object_set_new(f->labels, st->label, json_string(info.event_id));
    }
    return rc;
}

static int do_recall(scfile *f, const sc_step *st, sc_obs *o, held *h)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = st->user;
    q.channel = st->channel;
    q.external_id = st->external_id;
    q.agent_id = st->agent;
    q.session_id = st->session;
    q.task_id = st->task;
    q.domain = st->domain;
    q.text = st->query;
    q.as_of = st->as_of;
    q.budget_tokens = st->budget;
    q.role = st->role;
    int rc = am_recall(f->db, &q, &h->recall);
    if (rc != AM_OK) return rc;
    const am_recall_result *res = h->recall;
    if (!res) return AM_ERROR;
    if (!memory_texts(res->memories, res->n_memories, 0, &h->mem_texts,
                      &o->n_memories))
        return AM_NOMEM;
    o->memories = h->mem_texts;
    if (res->n_events) {
        h->event_texts = calloc(res->n_events, sizeof *h->event_texts);
        if (!h->event_texts) return AM_NOMEM;
        for (size_t i = 0; i < res->n_events; i++)
            h->event_texts[i] = res->events[i].content ? res->events[i].content
                                                       : "";
        o->events = h->event_texts;
        o->n_events = res->n_events;
    }
    o->block = res->block ? res->block : "";
    o->need_memory = res->need_memory != 0;
    o->route = res->route;
    o->block_system = res->block_system;
    o->block_context = res->block_context;
    if (res->task) {
        task_render(res->task, &h->task_text);
        o->task_text = sc_buf_str(&h->task_text);
    }
    return AM_OK;
}

static int do_task(scfile *f, const sc_step *st, sc_obs *o, held *h)
{
    int rc = am_task_get_as(f->db, st->user, st->task, st->agent, st->role, &h->task);
    if (rc != AM_OK) return rc;
    if (!h->task) return AM_ERROR;
    task_render(h->task, &h->task_text);
    o->task_text = sc_buf_str(&h->task_text);
    for (size_t i = 0; i < h->task->n_history; i++) {
        const am_task_change *c = &h->task->history[i];
        sc_buf_printf(&h->history_text, "%s: %s -> %s\n", c->field ? c->field : "",
                      c->old_value ? c->old_value : "", c->new_value ? c->new_value : "");
    }
    o->history_text = sc_buf_str(&h->history_text);
    o->status = h->task->status;
    o->stage = h->task->stage;
    return AM_OK;
}

static int do_memories(scfile *f, const sc_step *st, sc_obs *o, held *h)
{
    int rc = am_memories_as(f->db, st->user, st->all ? AM_LIST_ALL : AM_LIST_ACTIVE, st->as_of,
                            st->agent, st->role, &h->list);
    if (rc != AM_OK) return rc;
    if (!h->list) return AM_ERROR;
    if (!memory_texts(h->list->items, h->list->n, st->all, &h->mem_texts,
                      &o->n_memories))
        return AM_NOMEM;
    o->memories = h->mem_texts;
    /* statuses: each item's latest current record (a closed version is
     * history; an item's last one says where it stands) */
    size_t n = h->list->n, k = 0;
    h->item_texts = calloc(n + 1, sizeof *h->item_texts);
    h->item_statuses = calloc(n + 1, sizeof *h->item_statuses);
    if (!h->item_texts || !h->item_statuses) return AM_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const am_memory *m = &h->list->items[i];
        if (m->superseded_at != AM_TIME_NONE) continue;
        int later = 0;
        for (size_t j = 0; j < n && !later; j++) {
            const am_memory *x = &h->list->items[j];
            later = j != i && x->superseded_at == AM_TIME_NONE && m->lineage_id && x->lineage_id &&
                    strcmp(m->lineage_id, x->lineage_id) == 0 &&
                    (x->valid_from > m->valid_from || (x->valid_from == m->valid_from && j > i));
        }
        if (later) continue;
        h->item_texts[k] = m->text ? m->text : "";
        h->item_statuses[k++] = m->status ? m->status : "";
    }
    o->item_texts = h->item_texts;
    o->item_statuses = h->item_statuses;
    o->n_item_status = k;
    o->count_active = 0;
    for (size_t i = 0; i < h->list->n; i++)
        if (h->list->items[i].status &&
            strcmp(h->list->items[i].status, "active") == 0)
            o->count_active++;
    return AM_OK;
}

/* memory_add: a memory the application states (am_memory_add) */
static int do_memory_add(scfile *f, const sc_step *st)
{
    am_memory_input in;
    memset(&in, 0, sizeof in);
    in.user_id = st->user;
    in.text = st->text;
    in.kind = st->mem_kind;
    in.key = st->key;
    in.expires_at = st->expires_at;
    return am_memory_add(f->db, &in, NULL);
}

static int do_forget(scfile *f, const sc_step *st)
{
    int level = AM_FORGET_USER;
    const char *id = st->id;
    if (strcmp(st->scope, "event") == 0) {
        level = AM_FORGET_EVENT;
        const char *labelled = json_string_value(json_object_get(f->labels, id));
        if (labelled) id = labelled;
    } else if (strcmp(st->scope, "session") == 0) {
        level = AM_FORGET_SESSION;
    } else if (strcmp(st->scope, "task") == 0) {
        level = AM_FORGET_TASK;
    }
    am_forget_info info;
    memset(&info, 0, sizeof info);
    return am_forget(f->db, st->user, level, id, &info);
}

/* archive (docs/internals/SCENARIOS_EXT.md): the user's events older than
 * older_than_days (0: the knob) archived; with `id` (an event's label or
 * id) that event's text restored instead. */
static int do_archive(scfile *f, const sc_step *st, sc_obs *o)
{
    long n = 0;
    int rc;
    if (st->id) {
        const char *id = json_string_value(json_object_get(f->labels, st->id));
        rc = am_archive_restore(f->db, st->user, id ? id : st->id, AM_TIME_NONE, AM_TIME_NONE,
                                &n);
    } else {
        rc = am_archive_events(f->db, st->user, st->older_than_days > 0 ? st->older_than_days : -1,
                               &n);
    }
    if (!rc) o->archived = n;
    return rc;
}

/* feedback: `target` must pick exactly one active memory by its text. */
static int do_feedback(scfile *f, const sc_step *st, sc_buf *err)
{
    am_memory_list *l = NULL;
    int rc = am_memories(f->db, st->user, AM_LIST_ACTIVE, NULL, &l);
    if (rc != AM_OK || !l) {
        sc_buf_adds(err, "expected the user's memories (to find the target) / "
                         "got ");
        engine_error(f, rc == AM_OK ? AM_ERROR : rc, err);
        am_memory_list_free(l);
        return RUNNER_FAIL;
    }
    size_t matches = 0, pick = 0;
    sc_buf seen = {0};
    for (size_t i = 0; i < l->n; i++) {
        /* an item asked about for its age may be confirmed too */
        if ((!is_active(l->items[i].status) &&
             strcmp(l->items[i].status, "candidate_forget") != 0) ||
            !sc_text_contains(l->items[i].text, st->target))
            continue;
        sc_buf_adds(&seen, matches ? ", " : ": ");
        sc_buf_quote(&seen, l->items[i].text, 160);
        if (matches++ == 0) pick = i;
    }
    if (matches != 1) {
        sc_buf_adds(err, "expected exactly one active memory containing ");
        sc_buf_quote(err, st->target, 0);
        sc_buf_printf(err, " / got %zu%s", matches, sc_buf_str(&seen));
        if (matches == 0) sc_buf_printf(err, " among %zu", l->n);
        sc_buf_free(&seen);
        am_memory_list_free(l);
        return RUNNER_FAIL;
    }
    sc_buf_free(&seen);
    int action = strcmp(st->action, "confirm") == 0  ? AM_FEEDBACK_CONFIRM
                 : strcmp(st->action, "reject") == 0 ? AM_FEEDBACK_REJECT
                                                     : AM_FEEDBACK_CORRECT;
    sc_buf id = {0};
    sc_buf_adds(&id, l->items[pick].id ? l->items[pick].id : "");
    am_memory_list_free(l);
    rc = am_feedback(f->db, st->user, sc_buf_str(&id), action, st->text);
    sc_buf_free(&id);
    return rc;
}

static int do_export(scfile *f, const sc_step *st, sc_obs *o, held *h)
{
    int rc = am_export(f->db, st->user, &h->export_json);
    if (rc != AM_OK) return rc;
    if (!h->export_json) return AM_ERROR;
    sc_json_text_flatten(h->export_json, &h->export_flat);
    o->export_raw = h->export_json;
    o->export_flat = sc_buf_str(&h->export_flat);
    return AM_OK;
}

/* config (docs/internals/SCENARIOS_EXT.md): the store is opened again with these
 * whitelists; what it holds stays (a store in memory cannot be reopened
 * once written: a config step goes first there). */
static int do_config(scfile *f, const sc_step *st, sc_buf *err)
{
    char *rules = str_dup(st->role_allow);
    if (!rules) return AM_NOMEM;
    free(f->role_allow);
    f->role_allow = rules;
    if (!f->db) return AM_OK;
    if (is_memory_url(f->path)) {
        sc_buf_adds(err, "expected a file store to reopen with the config / got an in-memory "
                         "store (put the config step first)");
        return RUNNER_FAIL;
    }
    am_close(f->db);
    f->db = NULL;
    if (!store_open(f, f->tz, err)) return RUNNER_FAIL;
    return AM_OK;
}

/* workspace (docs/internals/SCENARIOS_EXT.md): with doing, done or next, the agent's
 * entry is written; then the workspace is read for the expectations. */
static int do_workspace(scfile *f, const sc_step *st, sc_obs *o, held *h)
{
    int rc;
    if ((st->doing || st->done || st->next) &&
        (rc = am_workspace_put(f->db, st->user, st->task, st->agent, st->doing, st->done,
                               st->next, NULL)))
        return rc;
    am_workspace *w = NULL;
    if ((rc = am_workspace_get(f->db, st->user, st->task, &w))) return rc;
    sc_json_text_flatten(w->json, &h->workspace_flat);
    am_workspace_free(w);
    o->workspace_text = sc_buf_str(&h->workspace_flat);
    return AM_OK;
}

/* profile (docs/internals/SCENARIOS_EXT.md): the user's card, its text checked. */
static int do_profile(scfile *f, const sc_step *st, sc_obs *o, held *h)
{
    am_profile_query q;
    memset(&q, 0, sizeof q);
    q.user_id = st->user;
    q.budget_tokens = st->budget;
    int rc = am_profile(f->db, &q, &h->profile);
    if (rc != AM_OK) return rc;
    if (!h->profile) return AM_ERROR;
    o->profile_text = h->profile->text;
    return AM_OK;
}

/* pack (docs/internals/SCENARIOS_EXT.md): a rule pack applied (from "file",
 * relative to the scenario file, or "pack" itself; to "user", or to every
 * user it applies to), removed ("name"; from "user" or every user) or
 * listed; its answer is what pack_contains sees. */
static int do_pack(scfile *f, const sc_step *st, sc_obs *o, held *h, sc_buf *err)
{
    int rc;
    if (strcmp(st->action, "list") == 0) {
        rc = am_pack_list(f->db, st->user, &h->pack_json);
    } else if (strcmp(st->action, "remove") == 0) {
        rc = am_pack_remove(f->db, st->pack_name, st->user, &h->pack_json);
    } else {
        char *text = NULL;
        size_t len = 0;
        if (st->pack) {
            text = json_dumps(st->pack, JSON_COMPACT);
            len = text ? strlen(text) : 0;
        } else {
            /* the file beside the scenario file */
            const char *slash = strrchr(f->name, '/');
            size_t dir = slash && st->file[0] != '/' ? (size_t)(slash - f->name) + 1 : 0;
            char *path = malloc(dir + strlen(st->file) + 1);
            if (path) {
                memcpy(path, f->name, dir);
                strcpy(path + dir, st->file);
            }
            FILE *in = path ? fopen(path, "rb") : NULL;
            free(path);
            if (!in) {
                sc_buf_adds(err, "expected a readable pack file / got ");
                sc_buf_quote(err, st->file, 160);
                return RUNNER_FAIL;
            }
            sc_buf b = {0};
            char chunk[4096];
            size_t n;
            while ((n = fread(chunk, 1, sizeof chunk, in)) > 0) sc_buf_add(&b, chunk, n);
            fclose(in);
            if (!b.oom && b.p) {
                text = b.p;
                len = b.len;
            } else {
                sc_buf_free(&b);
            }
        }
        if (!text) return AM_NOMEM;
        rc = am_pack_apply(f->db, text, len, st->user, &h->pack_json);
        free(text);
    }
    if (rc) return rc;
    sc_buf_adds(&h->pack_flat, h->pack_json);
    sc_buf_adds(&h->pack_flat, "\n");
    sc_json_text_flatten(h->pack_json, &h->pack_flat);
    o->pack_text = sc_buf_str(&h->pack_flat);
    return AM_OK;
}

/* maintain (docs/internals/SCENARIOS_EXT.md): the maintenance pass at the step's
 * clock, over the user's items (or every user's) */
static int do_maintain(scfile *f, const sc_step *st, sc_obs *o)
{
    am_maintain_options mo = {0};
    am_maintain_report r;
    mo.user_id = st->user;
    int rc = am_maintain(f->db, &mo, &r);
    if (rc != AM_OK) return rc;
    long counts[SC_MAINT_COUNTS] = {r.candidate, r.invalidated, r.archived, r.revived,
                                    r.consolidated};
    for (int i = 0; i < SC_MAINT_COUNTS; i++) o->maint[i] = counts[i];
    return AM_OK;
}

static void held_free(held *h)
{
    am_recall_free(h->recall);
    am_task_free(h->task);
    am_memory_list_free(h->list);
    am_profile_free(h->profile);
    am_free(h->export_json);
    am_free(h->pack_json);
    sc_buf_free(&h->pack_flat);
    free(h->mem_texts);
    free(h->event_texts);
    free(h->item_texts);
    free(h->item_statuses);
    sc_buf_free(&h->task_text);
    sc_buf_free(&h->history_text);
    sc_buf_free(&h->export_flat);
    sc_buf_free(&h->workspace_flat);
    memset(h, 0, sizeof *h);
}

/* Run one step against the engine; RUNNER_FAIL or an AM_* code. */
static int step_exec(scfile *f, const sc_step *st, sc_obs *o, held *h,
                     sc_buf *err)
{
    int rc = AM_OK;
    switch (st->kind) {
    case SC_LINK: rc = do_link(f, st); break;
    case SC_ADD: rc = do_add(f, st, err); break;
    case SC_RECALL: rc = do_recall(f, st, o, h); break;
    case SC_TASK: rc = do_task(f, st, o, h); break;
    case SC_MEMORIES: rc = do_memories(f, st, o, h); break;
    case SC_FORGET: rc = do_forget(f, st); break;
    case SC_FEEDBACK: rc = do_feedback(f, st, err); break;
    case SC_EXPORT: rc = do_export(f, st, o, h); break;
    case SC_CONFIG: rc = do_config(f, st, err); break;
    case SC_WORKSPACE: rc = do_workspace(f, st, o, h); break;
    case SC_PROFILE: rc = do_profile(f, st, o, h); break;
    case SC_PACK: rc = do_pack(f, st, o, h, err); break;
    case SC_ARCHIVE: rc = do_archive(f, st, o); break;
    case SC_MAINTAIN: rc = do_maintain(f, st, o); break;
    case SC_MEMORY_ADD: rc = do_memory_add(f, st); break;
    default: rc = AM_MISUSE; break;
    }
    if (rc != AM_OK && rc != RUNNER_FAIL) engine_error(f, rc, err);
    return rc;
}

/* The step could not do its job: every checkable expectation fails with
 * `detail`, or the step itself when it has none. */
static void fail_step(scfile *f, long line, const sc_step *st,
                      const char *detail)
{
    const char *step = sc_kind_name(st->kind), *key;
    json_t *v;
    int n = 0;
    if (st->expect) {
        json_object_foreach(st->expect, key, v) {
            if (sc_step_key_bad(st, key)) continue;
            report(f, line, step, key, 0, detail);
            n++;
        }
    }
    if (!n) report(f, line, step, NULL, 0, detail);
}

/* Judge a step that ran with code rc. */
static void step_judge(scfile *f, long line, const sc_step *st, int rc,
                       const sc_obs *o, const sc_buf *err)
{
    const char *step = sc_kind_name(st->kind), *key;
    json_t *v;
    if (rc == RUNNER_FAIL) {
        fail_step(f, line, st, sc_buf_str(err));
        return;
    }
    if (st->want_error == 1) {
        report(f, line, step, "error", rc != AM_OK,
               "expected the step to be refused with an error / got success");
        return;
    }
    if (rc != AM_OK) {
        sc_buf d = {0};
        sc_buf_printf(&d, "expected success / got %s", sc_buf_str(err));
        fail_step(f, line, st, sc_buf_str(&d));
        sc_buf_free(&d);
        return;
    }
    if (!st->expect) return;
    json_object_foreach(st->expect, key, v) {
        if (sc_step_key_bad(st, key)) continue;
        if (strcmp(key, "error") == 0) { /* error: false, and it succeeded */
            report(f, line, step, key, 1, NULL);
            continue;
        }
        sc_buf d = {0};
        int ok = sc_check(st->kind, key, v, o, &d);
        report(f, line, step, key, ok, sc_buf_str(&d));
        sc_buf_free(&d);
    }
}

/* --dump: the line of a recall step that ran with code rc. */
static void dump_step(scfile *f, long line, const sc_step *st, int rc,
                      const held *h)
{
    const char *error = rc == AM_OK        ? NULL
                        : rc == RUNNER_FAIL ? "runner"
                                            : rc_name(rc);
    if (!sc_dump_recall(f->r->dump, f->name, line, st->query,
                        error ? NULL : h->recall, error))
        f->r->dump_failed = 1;
}

/* Parse, run and judge one line.  Returns 0 when the file cannot go on
 * (the store could not be opened). */
static int run_line(scfile *f, long line, const char *text, size_t len)
{
    sc_step st;
    int kind = sc_parse_line(text, len, &st);
    if (kind == SC_LINE_SKIP) { sc_step_free(&st); return 1; }
    const char *step = kind == SC_LINE_BAD ? "line"
                       : st.valid_kind     ? sc_kind_name(st.kind)
                                           : "step";
    for (size_t i = 0; i < st.n_issues; i++)
        report(f, line, step, st.issues[i].check, 0, st.issues[i].detail);
    if (kind == SC_LINE_BAD || st.fatal) {
        if (st.fatal && !st.n_issues)
            report(f, line, step, NULL, 0, "expected a usable step / got "
                                           "out of memory");
        sc_step_free(&st);
        return 1;
    }

    sc_buf err = {0};
    am_time at = 0;
    int tz = 0, go_on = 1;
    int rc = am_time_parse(st.at, &at, &tz);
    if (rc != AM_OK) {
        sc_buf_adds(&err, "expected \"at\": an ISO 8601 time with a zone / got ");
        sc_buf_quote(&err, st.at, 0);
        sc_buf_printf(&err, " (am_time_parse: %s)", rc_name(rc));
        report(f, line, step, NULL, 0, sc_buf_str(&err));
    } else if (st.kind != SC_CONFIG && !f->db && !store_open(f, tz, &err)) {
        report(f, line, "store", NULL, 0, sc_buf_str(&err));
        go_on = 0;
    } else {
        f->now = at;
        sc_obs o;
        sc_obs_init(&o);
        held h;
        memset(&h, 0, sizeof h);
        rc = step_exec(f, &st, &o, &h, &err);
        if (f->r->dump && st.kind == SC_RECALL)
            dump_step(f, line, &st, rc, &h);
        step_judge(f, line, &st, rc, &o, &err);
        held_free(&h);
    }
    sc_buf_free(&err);
    sc_step_free(&st);
    return go_on;
}

static void run_file(run *r, const char *name, int index)
{
    scfile f;
    memset(&f, 0, sizeof f);
    f.r = r;
    f.name = name;
    f.index = index;
    f.labels = json_object();
    FILE *in = fopen(name, "rb");
    if (!in || !f.labels) {
        sc_buf d = {0};
        sc_buf_printf(&d, "expected a readable scenario file / got %s",
                      in ? "out of memory" : strerror(errno));
        report(&f, 0, "file", NULL, 0, sc_buf_str(&d));
        sc_buf_free(&d);
    } else {
        char *buf = NULL;
        size_t cap = 0;
        ssize_t n;
        long line = 0;
        while ((n = getline(&buf, &cap, in)) >= 0) {
            const char *text = buf;
            size_t len = (size_t)n;
            if (++line == 1 && len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
                text += 3, len -= 3; /* a UTF-8 byte order mark */
            if (!run_line(&f, line, text, len)) break;
        }
        if (ferror(in)) {
            sc_buf d = {0};
            sc_buf_printf(&d, "expected to read the file / got %s",
                          strerror(errno));
            report(&f, line, "file", NULL, 0, sc_buf_str(&d));
            sc_buf_free(&d);
        }
        free(buf);
    }
    if (in) fclose(in);
    store_close(&f);
    json_decref(f.labels);
    if (r->json) {
        sc_buf fn = {0};
        sc_buf_clean(&fn, name, 0);
        json_t *o = json_object();
        json_object_set_new(o, "file", json_string(sc_buf_str(&fn)));
        json_object_set_new(o, "passed", json_integer(f.passed));
        json_object_set_new(o, "failed", json_integer(f.failed));
        if (o) json_array_append_new(r->files, o);
        sc_buf_free(&fn);
    }
}

/* Options and files of `scenario run` (argv[1] == "run").  Returns -1 to
 * go on, else the exit code (0 after --help, 2 on a usage error). */
static int parse_args(run *r, int argc, char **argv, char **files)
{
    int opts = 1;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!opts || a[0] != '-' || a[1] == '\0') {
            files[r->n_files++] = argv[i];
        } else if (strcmp(a, "--") == 0) {
            opts = 0;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--json") == 0) {
            r->json = 1;
        } else if (strcmp(a, "--dump") == 0 || strncmp(a, "--dump=", 7) == 0) {
            r->dump_path = a[6] == '=' ? a + 7 : i + 1 < argc ? argv[++i] : "";
            if (!*r->dump_path) {
                fprintf(stderr, "agentmem scenario: --dump needs a file\n%s",
                        usage);
                return 2;
            }
        } else if (strcmp(a, "--store") == 0 || strncmp(a, "--store=", 8) == 0) {
            r->store = a[7] == '=' ? a + 8 : i + 1 < argc ? argv[++i] : "";
            if (!*r->store) {
                fprintf(stderr, "agentmem scenario: --store needs a URL\n%s",
                        usage);
                return 2;
            }
        } else if (strcmp(a, "--cache") == 0 || strncmp(a, "--cache=", 8) == 0) {
            const char *c = a[7] == '=' ? a + 8 : i + 1 < argc ? argv[++i] : "";
            if (!*c) {
                fprintf(stderr, "agentmem scenario: --cache needs a URL\n%s", usage);
                return 2;
            }
            setenv("AGENTMEM_CACHE", c, 1); /* read where each store is opened */
        } else {
            fprintf(stderr, "agentmem scenario: unknown option %s\n%s", a,
                    usage);
            return 2;
        }
    }
    if (r->n_files == 0) {
        fprintf(stderr, "agentmem scenario: no scenario file given\n%s", usage);
        return 2;
    }
    return -1;
}

/* --json: the one document, {files, results, passed, failed}. */
static void print_json(run *r)
{
    json_t *out = json_object();
    if (out) {
        json_object_set_new(out, "files", r->files);
        json_object_set_new(out, "results", r->results);
        json_object_set_new(out, "passed", json_integer(r->passed));
        json_object_set_new(out, "failed", json_integer(r->failed));
        r->files = r->results = NULL;
    }
    if (!out || json_dumpf(out, stdout, JSON_INDENT(2)) != 0) {
        fputs("agentmem scenario: cannot write the JSON result\n", stderr);
        r->failed++;
    }
    fputc('\n', stdout);
    json_decref(out);
}

int am_cli_scenario(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "run") != 0) {
        int help = argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
                                 strcmp(argv[1], "-h") == 0 ||
                                 strcmp(argv[1], "help") == 0);
        fputs(usage, help ? stdout : stderr);
        return help ? 0 : 2;
    }
    run r;
    memset(&r, 0, sizeof r);
    char **files = calloc((size_t)argc, sizeof *files);
    int rc = files ? parse_args(&r, argc, argv, files) : 1;
    if (rc < 0 && r.json) {
        r.results = json_array();
        r.files = json_array();
        if (!r.results || !r.files) rc = 1;
    }
    if (rc == 1) fputs("agentmem scenario: out of memory\n", stderr);
    if (rc < 0 && r.dump_path && !(r.dump = fopen(r.dump_path, "w"))) {
        fprintf(stderr, "agentmem scenario: cannot write %s: %s\n",
                r.dump_path, strerror(errno));
        rc = 1;
    }
    if (rc >= 0) {
        json_decref(r.results);
        json_decref(r.files);
        free(files);
        return rc;
    }
    for (int i = 0; i < r.n_files; i++) run_file(&r, files[i], i + 1);
    free(files);
    if (r.dump && (fclose(r.dump) != 0 || r.dump_failed)) {
        fprintf(stderr, "agentmem scenario: cannot write %s%s\n", r.dump_path,
                r.dump_failed ? ": a recall line failed (out of memory?)"
                              : ": write error");
        r.failed++;
    }
    if (r.json) print_json(&r);
    else printf("%ld passed, %ld failed\n", r.passed, r.failed);
    fflush(stdout);
    return r.failed ? 1 : 0;
}
