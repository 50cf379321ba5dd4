/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c -- the agentmem command-line tool: one subcommand per public API
 * call, plus the demo, the scenario runner, the knob list and the
 * benchmarks (`bench`: the harness in tools/bench, linked in).  Uses only
 * include/agentmem.h (and jansson to read JSON input).
 *
 * This file parses the options (before and after the command), opens the
 * store and dispatches; the commands live by family in write_cmd.c,
 * read_cmd.c, forget_cmd.c, admin_cmd.c and serve_cmd.c (and the other
 * *_cmd.c files), the help texts in help.c.
 *
 * Exit codes: 0 ok, 1 the engine refused or failed, 2 usage error.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentmem.h"
#include "agentmem_ops.h"
#include "bench_cli.h"
#include "cli.h"
#include "server.h"

/* Parse --flag VALUE options after the command.  Returns 0, or 2 on a
 * usage error (message printed). */
static int parse_opts(const char *cmd, int argc, char **argv, am_cli_opts *o)
{
    static const struct {
        const char *flag;
        size_t off;
    } strs[] = {
        {"--user", offsetof(am_cli_opts, user)}, {"--channel", offsetof(am_cli_opts, channel)},
        {"--external-id", offsetof(am_cli_opts, external_id)}, {"--agent", offsetof(am_cli_opts, agent)},
        {"--session", offsetof(am_cli_opts, session)}, {"--task", offsetof(am_cli_opts, task)},
        {"--source", offsetof(am_cli_opts, source)}, {"--type", offsetof(am_cli_opts, type)},
        {"--domain", offsetof(am_cli_opts, domain)}, {"--intent", offsetof(am_cli_opts, intent)},
        {"--at", offsetof(am_cli_opts, at)}, {"--as-of", offsetof(am_cli_opts, as_of)},
        {"--text", offsetof(am_cli_opts, text)}, {"--batch", offsetof(am_cli_opts, batch)},
        {"--messages", offsetof(am_cli_opts, messages)},
        {"--id", offsetof(am_cli_opts, id)}, {"--level", offsetof(am_cli_opts, level)},
        {"--action", offsetof(am_cli_opts, action)}, {"--db", offsetof(am_cli_opts, db)},
        {"--grace", offsetof(am_cli_opts, grace)}, {"--role", offsetof(am_cli_opts, role)},
        {"--doing", offsetof(am_cli_opts, doing)}, {"--done", offsetof(am_cli_opts, done)},
        {"--next", offsetof(am_cli_opts, next)}, {"--part", offsetof(am_cli_opts, part)},
        {"--listen", offsetof(am_cli_opts, listen)}, {"--threads", offsetof(am_cli_opts, threads)},
        {"--max-body", offsetof(am_cli_opts, max_body)},
        {"--max-conns-per-ip", offsetof(am_cli_opts, max_conns_per_ip)},
        {"--header-timeout", offsetof(am_cli_opts, header_timeout)},
        {"--timeout", offsetof(am_cli_opts, timeout)},
        {"--llm-batch", offsetof(am_cli_opts, llm_batch)}, {"--llm-wait", offsetof(am_cli_opts, llm_wait)},
        {"--llm-queue", offsetof(am_cli_opts, llm_queue)},
        {"--webhook-secret-file", offsetof(am_cli_opts, webhook_secret_file)},
        {"--cache", offsetof(am_cli_opts, cache)}, {"--key", offsetof(am_cli_opts, key)},
        {"--value", offsetof(am_cli_opts, value)}, {"--ttl", offsetof(am_cli_opts, ttl)},
        {"--log", offsetof(am_cli_opts, log_file)}, {"--log-format", offsetof(am_cli_opts, log_format)},
        {"--log-level", offsetof(am_cli_opts, log_level)},
        {"--kind", offsetof(am_cli_opts, kind)}, {"--scope", offsetof(am_cli_opts, scope)},
        {"--metadata", offsetof(am_cli_opts, metadata)}, {"--limit", offsetof(am_cli_opts, limit)},
        {"--cursor", offsetof(am_cli_opts, cursor)}, {"--filter", offsetof(am_cli_opts, filter)},
        {"--from", offsetof(am_cli_opts, from)}, {"--to", offsetof(am_cli_opts, to)},
        {"--expires", offsetof(am_cli_opts, expires)},
        {"--since", offsetof(am_cli_opts, since)}, {"--until", offsetof(am_cli_opts, until)},
        {"--period", offsetof(am_cli_opts, period)},
        {"--older-than", offsetof(am_cli_opts, older_than)}, {"--event", offsetof(am_cli_opts, event)},
        {"--maintain-every", offsetof(am_cli_opts, maintain_every)},
    };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) { o->json = 1; continue; }
        if (strcmp(cmd, "import") == 0 && !o->import_file && (a[0] != '-' || strcmp(a, "-") == 0)) {
            o->import_file = a; /* the one positional argument */
            continue;
        }
        if (strcmp(a, "--all") == 0) { o->all = 1; continue; }
        if (strcmp(a, "--llm") == 0) { o->llm = 1; continue; }
        if (strcmp(a, "--all-matching") == 0 && strcmp(cmd, "pack") == 0) {
            o->all_matching = 1;
            continue;
        }
        if (strcmp(a, "--atomic") == 0) { o->atomic = 1; continue; }
        if (strcmp(a, "--merge") == 0) { o->merge = 1; continue; }
        if (strcmp(a, "--admin") == 0) { o->admin = 1; continue; }
        if (strcmp(a, "--reuse-port") == 0 && strcmp(cmd, "serve") == 0) { o->reuse_port = 1; continue; }
        if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) { o->quiet = 1; continue; }
        if (strcmp(a, "--log-content") == 0) { o->log_content = 1; continue; }
        if (strcmp(a, "--mcp-origin") == 0) {
            if (i + 1 >= argc) return am_cli_usage_error(cmd, "--mcp-origin needs an origin (https://host[:port])");
            if (o->n_mcp_origin == (int)(sizeof o->mcp_origin / sizeof *o->mcp_origin))
                return am_cli_usage_error(cmd, "--mcp-origin: at most 16 origins");
            const char *v = argv[++i];
            const char *host = strncmp(v, "http://", 7) == 0 ? v + 7 : strncmp(v, "https://", 8) == 0 ? v + 8 : NULL;
            if (!host || !*host || strlen(v) > 512 || strpbrk(host, " \t\r\n,/?#"))
                return am_cli_usage_error(cmd, "--mcp-origin: an origin is scheme://host[:port] (http or https, no path)");
            o->mcp_origin[o->n_mcp_origin++] = v;
            continue;
        }
        if (strcmp(a, "--webhook") == 0) {
            if (i + 1 >= argc) return am_cli_usage_error(cmd, "--webhook needs a URL");
            if (o->n_webhook == (int)(sizeof o->webhook / sizeof *o->webhook))
                return am_cli_usage_error(cmd, "--webhook: at most 16 URLs");
            o->webhook[o->n_webhook++] = argv[++i];
            continue;
        }
        if (strcmp(a, "--budget") == 0 || strcmp(a, "--k") == 0) {
            if (i + 1 >= argc) return am_cli_usage_error(cmd, "missing value");
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v <= 0 || v > 100000) return am_cli_usage_error(cmd, "expected a positive number");
            if (a[2] == 'b') o->budget = (int)v;
            else o->k = (int)v;
            continue;
        }
        size_t k;
        for (k = 0; k < sizeof strs / sizeof *strs; k++)
            if (strcmp(a, strs[k].flag) == 0) break;
        if (k == sizeof strs / sizeof *strs) {
            char msg[256];
            snprintf(msg, sizeof msg, "unknown option %.200s", a);
            return am_cli_usage_error(cmd, msg);
        }
        if (i + 1 >= argc) {
            char msg[128];
            snprintf(msg, sizeof msg, "%s needs a value", a);
            return am_cli_usage_error(cmd, msg);
        }
        *(const char **)((char *)o + strs[k].off) = argv[++i];
    }
    /* one identity: a master user, or a channel's pair (link names both) */
    if (o->user && (o->channel || o->external_id) && strcmp(cmd, "link") != 0)
        return am_cli_usage_error(cmd, "give --user or --channel with --external-id, not both");
    if (!o->channel != !o->external_id)
        return am_cli_usage_error(cmd, "--channel and --external-id go together");
    return 0;
}

/* $AGENTMEM_BUSY_TIMEOUT_MS (am_config.busy_timeout_ms): how long a write
 * waits for the store's lock; 0 in *ms when unset.  Returns 0, or 2 (usage
 * error, message printed). */
static int busy_timeout_env(int *ms)
{
    const char *v = getenv("AGENTMEM_BUSY_TIMEOUT_MS");
    *ms = 0;
    if (!v) return 0;
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || *end || n <= 0 || n > 86400000) {
        fprintf(stderr, "agentmem: AGENTMEM_BUSY_TIMEOUT_MS: expected milliseconds from 1 to"
                        " 86400000, got \"%.40s\"\n", v);
        return 2;
    }
    *ms = (int)n;
    return 0;
}

/* The vault key from --vault-key-file (its first line, blanks trimmed)
 * into buf, else $AGENTMEM_VAULT_KEY, else NULL; *bad on an unreadable
 * file. */
static const char *vault_key(const char *file, char *buf, size_t cap, int *bad)
{
    *bad = 0;
    if (!file) return getenv("AGENTMEM_VAULT_KEY");
    FILE *f = fopen(file, "r");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    if (!f || ferror(f)) {
        if (f) fclose(f);
        fprintf(stderr, "agentmem: --vault-key-file %s: cannot read it\n", file);
        *bad = 1;
        return NULL;
    }
    fclose(f);
    buf[n] = '\0';
    buf[strcspn(buf, "\r\n")] = '\0';
    return buf;
}

/* The log of the engine's records (--log, --log-format, --log-level,
 * --log-content): serve always counts them for /metrics and writes them
 * to stderr with --log-format (or to --log's file); another command
 * writes them only with --log.  0, or 2 (usage, said). */
static int log_open(const char *cmd, am_cli_opts *o)
{
    int serve = strcmp(cmd, "serve") == 0;
    int format = AM_SERVER_LOG_JSON, level = AM_LOG_INFO;
    if (o->log_format) {
        if (strcmp(o->log_format, "json") == 0) format = AM_SERVER_LOG_JSON;
        else if (strcmp(o->log_format, "text") == 0) format = AM_SERVER_LOG_TEXT;
        else return am_cli_usage_error(cmd, "--log-format: expected json or text");
    }
    if (o->log_level) {
        static const char *const names[] = {"error", "warn", "info", "debug"};
        level = -1;
        for (int i = 0; i < 4; i++)
            if (strcmp(o->log_level, names[i]) == 0) level = i;
        if (level < 0) return am_cli_usage_error(cmd, "--log-level: expected debug, info, warn or error");
    }
    if (o->log_content && !o->log_file && !(serve && o->log_format))
        return am_cli_usage_error(cmd, "--log-content goes with --log FILE (serve: or --log-format)");
    FILE *out = NULL;
    if (o->log_file && strcmp(o->log_file, "-") != 0) {
        if (!(out = fopen(o->log_file, "a"))) {
            fprintf(stderr, "agentmem: --log %s: cannot open it for writing\n", o->log_file);
            return 2;
        }
        o->log_out = out;
    } else if (o->log_file || (serve && o->log_format)) {
        out = stderr;
    }
    if (!out && !serve) return 0;
    if (!(o->obs = am_server_obs_new(out, format, level))) {
        if (o->log_out) fclose(o->log_out);
        o->log_out = NULL;
        fprintf(stderr, "agentmem: out of memory\n");
        return 1;
    }
    return 0;
}

static void log_close(am_cli_opts *o)
{
    am_server_obs_free(o->obs);
    o->obs = NULL;
    if (o->log_out) fclose(o->log_out);
    o->log_out = NULL;
}

/* cfg filled for the store (the vault key read into key, cap bytes, which
 * the caller wipes after the last open; role_allow kept by the caller while
 * cfg is used) and a handle opened with it. */
static am_db *open_db(am_config *cfg, char *key, size_t cap, const char *path, int must_exist,
                      const char *key_file, am_time grace_ms, int busy_ms, const char *role_allow,
                      const char *cache, const am_cli_opts *o, int *usage)
{
    *usage = 0;
    am_config_init(cfg);
    cfg->process_tuning = AM_PROCESS_ALL; /* a program of its own: the process is ours */
    am_server_obs_attach(o->obs, cfg); /* NULL: no log */
    cfg->log_content = o->log_content;
    cfg->path = path;
    cfg->cache = cache;
    cfg->role_allow = role_allow;
    cfg->forget_grace_ms = grace_ms;
    cfg->must_exist = must_exist;
    if (busy_ms) cfg->busy_timeout_ms = busy_ms;
    cfg->embedder = getenv("AGENTMEM_EMBEDDER"); /* see am_config.embedder */
    if (!cfg->embedder || !*cfg->embedder) cfg->embedder = "auto";
    cfg->embedder_key = getenv("AGENTMEM_EMBEDDER_KEY");
    static char llm_key[512]; /* the process's one config: kept while it runs */
    if (am_cli_llm_config(cfg, llm_key, sizeof llm_key)) {
        *usage = 1;
        return NULL;
    }
    int bad;
    cfg->vault_key = vault_key(key_file, key, cap, &bad);
    if (bad) return NULL;
    am_db *db = NULL;
    char *err = NULL;
    int rc = am_open(cfg, &db, &err);
    if (rc) {
        /* a malformed --cache URL is a usage error (exit 2), as serve's are */
        *usage = rc == AM_INVALID && err && strncmp(err, "open: cache:", 12) == 0;
        fprintf(stderr, "agentmem: %s%s (%s)\n", *usage ? "--cache: " : "",
                err ? err : "cannot open the store", am_errstr(rc));
        am_free(err);
        return NULL;
    }
    return db;
}

int am_cli_fail(am_db *db, int rc)
{
    fprintf(stderr, "agentmem: %s (%s)\n", am_errmsg(db), am_errstr(rc));
    return 1;
}

/* --role-allow RULE (repeatable) and --role-allow-file PATH: the rules
 * joined by ';' into o->role_allow, lines of the file that start with '#'
 * left out.  Returns 0, or 2 (message printed). */
static int role_allow_add(am_cli_opts *o, const char *rule, int from_file)
{
    if (from_file) {
        FILE *f = fopen(rule, "r");
        if (!f) {
            fprintf(stderr, "agentmem: --role-allow-file %s: cannot read it\n", rule);
            return 2;
        }
        char line[4096];
        int rc = 0;
        while (!rc && fgets(line, sizeof line, f)) {
            line[strcspn(line, "\r\n")] = '\0';
            const char *p = line + strspn(line, " \t");
            if (*p && *p != '#') rc = role_allow_add(o, p, 0);
        }
        fclose(f);
        return rc;
    }
    size_t have = o->role_allow ? strlen(o->role_allow) : 0, n = strlen(rule);
    char *p = realloc(o->role_allow, have + n + 2);
    if (!p) {
        fprintf(stderr, "agentmem: out of memory\n");
        return 2;
    }
    if (have) p[have++] = ';';
    memcpy(p + have, rule, n + 1);
    o->role_allow = p;
    return 0;
}

/* The options before the command (--db, --cache, --embedder, ...): *next
 * the command's index.  -1 to go on, else the exit code (--help,
 * --version, a usage error). */
static int global_opts(int argc, char **argv, am_cli_opts *o, const char **db_from, int *next)
{
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        if ((strcmp(argv[i], "--db") == 0 || strcmp(argv[i], "--store") == 0) && i + 1 < argc) {
            o->db = argv[i + 1];
            *db_from = "--db";
            i += 2;
        } else if (strcmp(argv[i], "--cache") == 0 && i + 1 < argc) {
            /* also for scenario and bench, which open their own stores */
            o->cache = argv[i + 1];
            setenv("AGENTMEM_CACHE", o->cache, 1);
            i += 2;
        } else if (strcmp(argv[i], "--embedder") == 0 && i + 1 < argc) {
            setenv("AGENTMEM_EMBEDDER", argv[i + 1], 1); /* for every store opened */
            i += 2;
        } else if (strcmp(argv[i], "--vault-key-file") == 0 && i + 1 < argc) {
            o->vault_key_file = argv[i + 1];
            i += 2;
        } else if ((strcmp(argv[i], "--log") == 0 || strcmp(argv[i], "--log-format") == 0 ||
                    strcmp(argv[i], "--log-level") == 0) && i + 1 < argc) {
            const char **v = argv[i][5] == '\0' ? &o->log_file
                             : argv[i][6] == 'f' ? &o->log_format : &o->log_level;
            *v = argv[i + 1];
            i += 2;
        } else if (strcmp(argv[i], "--log-content") == 0) {
            o->log_content = 1;
            i++;
        } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
            o->quiet = 1; /* also after the command */
            i++;
        } else if ((strcmp(argv[i], "--role-allow") == 0 ||
                    strcmp(argv[i], "--role-allow-file") == 0) && i + 1 < argc) {
            if (role_allow_add(o, argv[i + 1], argv[i][12] == '-')) {
                free(o->role_allow);
                return 2;
            }
            i += 2;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            am_cli_usage_main(stdout);
            return 0;
        } else if (strcmp(argv[i], "--version") == 0) {
            printf("agentmem %s\n", AM_VERSION_STRING);
            return 0;
        } else {
            fprintf(stderr, "agentmem: unknown option %s\n", argv[i]);
            am_cli_usage_main(stderr);
            return 2;
        }
    }
    *next = i;
    return -1;
}

/* The subcommand (and the argument before the flags) of workspace,
 * working, report, pack, archive and memory taken from *argcp / *argvp into
 * o.  0, or 2 (usage, said; o->role_allow freed). */
static int take_sub(const char *cmd, int *argcp, char ***argvp, am_cli_opts *o)
{
    int cargc = *argcp;
    char **cargv = *argvp;
    if (strcmp(cmd, "workspace") == 0 || strcmp(cmd, "working") == 0) { /* SUB OPTIONS */
        int ws = cmd[4] == 's';
        const char *sub = cargc >= 2 ? cargv[1] : "";
        int ok = ws ? strcmp(sub, "get") == 0 || strcmp(sub, "put") == 0
                    : strcmp(sub, "set") == 0 || strcmp(sub, "get") == 0 ||
                          strcmp(sub, "list") == 0 || strcmp(sub, "clear") == 0;
        if (!ok) {
            free(o->role_allow);
            return am_cli_usage_error(cmd, ws ? "expected get or put" : "expected set, get, list or clear");
        }
        o->ws_action = cargv[1];
        cargc--;
        cargv++;
    }
    if (strcmp(cmd, "report") == 0) { /* report corrections [--flags] */
        if (cargc < 2 || strcmp(cargv[1], "corrections") != 0) {
            free(o->role_allow);
            return am_cli_usage_error(cmd, "expected corrections");
        }
        o->report_sub = cargv[1];
        cargc--;
        cargv++;
    }
    if (strcmp(cmd, "pack") == 0) { /* pack SUB [FILE|NAME] [--flags] */
        const char *sub = cargc >= 2 ? cargv[1] : "";
        if (strcmp(sub, "apply") != 0 && strcmp(sub, "list") != 0 && strcmp(sub, "remove") != 0) {
            free(o->role_allow);
            return am_cli_usage_error(cmd, "expected apply, list or remove");
        }
        o->pack_sub = sub;
        cargc--;
        cargv++;
        if (cargc >= 2 && (cargv[1][0] != '-' || strcmp(cargv[1], "-") == 0)) {
            o->pack_arg = cargv[1];
            cargc--;
            cargv++;
        }
    }
    if (strcmp(cmd, "archive") == 0) { /* archive SUB [--flags] */
        const char *sub = cargc >= 2 ? cargv[1] : "";
        if (strcmp(sub, "events") != 0 && strcmp(sub, "restore") != 0) {
            free(o->role_allow);
            return am_cli_usage_error(cmd, "expected events or restore");
        }
        o->archive_sub = sub;
        cargc--;
        cargv++;
    }
    if (strcmp(cmd, "memory") == 0) { /* memory SUB [ID] [--flags] */
        const char *sub = cargc >= 2 ? cargv[1] : "";
        if (strcmp(sub, "get") != 0 && strcmp(sub, "add") != 0 && strcmp(sub, "update") != 0 &&
            strcmp(sub, "delete") != 0) {
            free(o->role_allow);
            return am_cli_usage_error(cmd, "expected get, add, update or delete");
        }
        o->mem_sub = sub;
        cargc--;
        cargv++;
        if (cargc >= 2 && cargv[1][0] != '-') {
            o->id = cargv[1];
            cargc--;
            cargv++;
        }
    }
    *argcp = cargc;
    *argvp = cargv;
    return 0;
}

int main(int argc, char **argv)
{
    am_cli_opts o;
    memset(&o, 0, sizeof o);
    char db_buf[4096];
    const char *db_from;
    o.db = am_cli_default_db(db_buf, sizeof db_buf, &db_from) ? NULL : db_buf;
    o.cache = getenv("AGENTMEM_CACHE");
    int i;
    int rc = global_opts(argc, argv, &o, &db_from, &i);
    if (rc >= 0) return rc;
    if (i >= argc) {
        am_cli_usage_main(stderr);
        return 2;
    }
    const char *cmd = argv[i];
    int cargc = argc - i;
    char **cargv = argv + i;
    if (strcmp(cmd, "scenario") == 0) return am_cli_scenario(cargc, cargv);
    if (strcmp(cmd, "bench") == 0 && cargc > 1 && strcmp(cargv[1], "serve") == 0)
        return am_cli_bench_serve(cargc - 1, cargv + 1); /* the server's load (tools/bench) */
    if (strcmp(cmd, "bench") == 0) return am_cli_bench(cargc, cargv, o.quiet);
    if (strcmp(cmd, "help") == 0) return am_cli_print_help(cargc > 1 ? cargv[1] : "");
    for (int k = 1; k < cargc; k++)
        if (strcmp(cargv[k], "--help") == 0 || strcmp(cargv[k], "-h") == 0) return am_cli_print_help(cmd);
    if (strcmp(cmd, "demo") == 0) return am_cli_demo(cargc, cargv);
    if (strcmp(cmd, "doctor") == 0) return am_cli_doctor(cargc, cargv, o.db, db_from, o.cache);
    if (!o.db) {
        fprintf(stderr, "agentmem: no store: give --db PATH, or set AGENTMEM_DB or HOME\n");
        return 2;
    }
    if (strcmp(cmd, "knobs") == 0) return am_cli_knobs(cargc, cargv);
    if (strcmp(cmd, "eval") == 0) return am_cli_eval(cargc, cargv);
    if (strcmp(cmd, "watch") == 0) return am_cli_watch(cargc, cargv, o.db);
    if (strcmp(cmd, "token") == 0) {
        /* token SUB [ID] [--flags]: SUB (and revoke's ID) before the flags */
        if (cargc < 2 || cargv[1][0] == '-') return am_cli_usage_error("token", "expected create, list or revoke");
        o.token_sub = cargv[1];
        cargc--;
        cargv++;
        if (strcmp(o.token_sub, "revoke") == 0 && cargc >= 2 && cargv[1][0] != '-') {
            o.id = cargv[1];
            cargc--;
            cargv++;
        }
    }
    static const struct {
        const char *name;
        int (*fn)(am_db *, const am_cli_opts *);
    } cmds[] = {
        {"add", am_cli_cmd_add}, {"recall", am_cli_cmd_recall},
        {"task", am_cli_cmd_task}, {"memories", am_cli_cmd_memories},
        {"feedback", am_cli_cmd_feedback}, {"forget", am_cli_cmd_forget},
        {"link", am_cli_cmd_link}, {"unlink", am_cli_cmd_unlink},
        {"export", am_cli_cmd_export}, {"reembed", am_cli_cmd_reembed},
        {"optimize", am_cli_cmd_optimize}, {"maintain", am_cli_cmd_maintain},
        {"restore", am_cli_cmd_restore}, {"mcp", am_cli_cmd_mcp},
        {"workspace", am_cli_cmd_workspace}, {"token", am_cli_cmd_token},
        {"serve", am_cli_cmd_serve}, {"working", am_cli_cmd_working},
        {"cache", am_cli_cmd_cache}, {"memory", am_cli_cmd_memory},
        {"import", am_cli_cmd_import}, {"profile", am_cli_cmd_profile},
        {"report", am_cli_cmd_report}, {"distill", am_cli_cmd_distill},
        {"pack", am_cli_cmd_pack}, {"archive", am_cli_cmd_archive},
        {"init", NULL},
    };
    size_t k;
    for (k = 0; k < sizeof cmds / sizeof *cmds; k++)
        if (strcmp(cmd, cmds[k].name) == 0) break;
    if (k == sizeof cmds / sizeof *cmds) {
        fprintf(stderr, "agentmem: unknown command %s\n", cmd);
        am_cli_usage_main(stderr);
        return 2;
    }
    if (take_sub(cmd, &cargc, &cargv, &o)) return 2;
    if (!o.role_allow && getenv("AGENTMEM_ROLE_ALLOW") && role_allow_add(&o, getenv("AGENTMEM_ROLE_ALLOW"), 0))
        return 2;
    rc = parse_opts(cmd, cargc, cargv, &o);
    if (rc) {
        free(o.role_allow);
        return rc;
    }
    if ((rc = log_open(cmd, &o))) {
        free(o.role_allow);
        return rc;
    }
    am_time grace_ms = 0;
    if (o.grace) {
        char *end;
        long long v = strtoll(o.grace, &end, 10);
        if (strcmp(cmd, "forget") != 0) return am_cli_usage_error(cmd, "--grace is an option of forget");
        if (end == o.grace || *end || v < 0 || v > 3153600000LL)
            return am_cli_usage_error(cmd, "--grace: expected whole seconds, 0 to 3153600000");
        grace_ms = (am_time)v * 1000;
    }
    /* Reading commands never create a store. */
    int must_exist = strcmp(cmd, "init") != 0 && strcmp(cmd, "add") != 0 && strcmp(cmd, "import") != 0 &&
                     strcmp(cmd, "link") != 0 && strcmp(cmd, "mcp") != 0 &&
                     strcmp(cmd, "serve") != 0 &&
                     !(strcmp(cmd, "memory") == 0 && strcmp(o.mem_sub, "add") == 0) &&
                     !(strcmp(cmd, "pack") == 0 && strcmp(o.pack_sub, "apply") == 0) &&
                     !(strcmp(cmd, "token") == 0 && strcmp(o.token_sub, "create") == 0);
    /* the default store's folder, on first use by a command that writes */
    if (strcmp(db_from, "default") == 0 && !must_exist && am_cli_make_store_dir(o.db)) {
        free(o.role_allow);
        log_close(&o);
        return 1;
    }
    int busy_ms;
    if ((rc = busy_timeout_env(&busy_ms))) {
        free(o.role_allow);
        return rc;
    }
    am_config cfg;
    char key[256];
    int usage;
    am_db *db = open_db(&cfg, key, sizeof key, o.db, must_exist && strcmp(o.db, ":memory:") != 0,
                        o.vault_key_file, grace_ms, busy_ms, o.role_allow, o.cache, &o, &usage);
    o.cfg = &cfg;
    if (db && cmds[k].fn) rc = cmds[k].fn(db, &o);
    else if (db) printf("store %s ready\n", o.db);
    else rc = usage ? 2 : 1;
    am_close(db);
    log_close(&o);
    memset(key, 0, sizeof key);
    free(o.role_allow);
    return rc;
}
