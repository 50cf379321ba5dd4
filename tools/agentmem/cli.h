/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli.h -- shared pieces of the agentmem command-line tool.  The CLI uses only
 * the public header include/agentmem.h (and jansson for JSON in and out).
 * Each subcommand lives in its own file as `int am_cli_<name>(int argc,
 * char **argv)` where argv[0] is the subcommand name; it returns the process
 * exit code (0 ok, 1 failure, 2 usage error).
 */
#ifndef AM_CLI_H
#define AM_CLI_H
#include <jansson.h>
#include <stdio.h>

#include "agentmem_ops.h"
#include "shapes.h"

/* The options of one command as main.c parsed them (flags after the
 * command, the store and log options before it). */
typedef struct am_cli_opts {
    const char *db, *vault_key_file;
    const char *cache; /* --cache URL or $AGENTMEM_CACHE (am_config.cache), or NULL */
    const char *maintain_every; /* serve --maintain-every DURATION, or NULL */
    const char *key, *value, *ttl; /* working set|get|list|clear */
    char *role_allow; /* --role-allow rules joined by ';' (malloc'ed), or NULL */
    int json;
    const char *user, *channel, *external_id, *agent, *session, *task, *source,
        *type, *domain, *intent, *at, *as_of, *text, *batch, *messages, *id, *level, *action, *grace;
    const char *role, *doing, *done, *next, *ws_action;
    const char *part; /* recall --part system|context */
    const char *kind, *scope, *mem_sub; /* memory get|add|update|delete */
    const char *metadata, *limit, *cursor, *filter; /* metadata, lists, recall --filter */
    const char *expires; /* memory add --expires ISO */
    const char *import_file, *from; /* import FILE [--from mem0] */
    const char *since, *until, *period, *report_sub; /* report corrections, distill --since */
    const char *pack_sub, *pack_arg; /* pack apply FILE | list | remove NAME */
    int all_matching;                /* pack apply --all-matching */
    const char *archive_sub, *older_than, *event, *to; /* archive events|restore */
    int all, budget, k, atomic, merge, llm;
    const char *token_sub, *listen, *threads, *max_body; /* token, serve */
    const char *max_conns_per_ip, *header_timeout, *timeout; /* serve */
    const char *llm_batch, *llm_wait, *llm_queue; /* serve: the LLM worker */
    const char *webhook[16];  /* serve --webhook URL (repeatable) */
    int n_webhook;
    const char *webhook_secret_file;
    const char *mcp_origin[16]; /* serve --mcp-origin ORIGIN (repeatable) */
    int n_mcp_origin;
    int admin;
    int reuse_port; /* serve --reuse-port */
    int quiet;      /* --quiet: no progress bar on the terminal */
    const am_config *cfg; /* what the store was opened with (serve opens more handles) */
    /* the engine's log records (docs/SERVER.md "Logs"): --log FILE|- (any
     * command), serve's --log-format json|text and --log-level, and
     * --log-content (the user's text in them) */
    const char *log_file, *log_format, *log_level;
    int log_content;
    struct am_server_obs *obs; /* server.h */
    FILE *log_out; /* --log FILE opened, or NULL */
} am_cli_opts;

/* Reporting (main.c, help.c).  am_cli_fail: the handle's last error on
 * stderr, returns 1.  am_cli_usage_error: "agentmem CMD: msg" and CMD's
 * help on stderr, returns 2.  am_cli_usage_main: the overview on f;
 * am_cli_print_help: CMD's help (the overview for an unknown one) on
 * stdout, returns 0. */
int am_cli_fail(am_db *db, int rc);
int am_cli_usage_error(const char *cmd, const char *msg);
void am_cli_usage_main(FILE *f);
int am_cli_print_help(const char *cmd);

/* The commands main.c dispatches to, by family; each returns the exit
 * code.  write_cmd.c: */
int am_cli_cmd_add(am_db *db, const am_cli_opts *o);
int am_cli_cmd_feedback(am_db *db, const am_cli_opts *o);
int am_cli_cmd_memory(am_db *db, const am_cli_opts *o);
int am_cli_cmd_import(am_db *db, const am_cli_opts *o);
int am_cli_cmd_distill(am_db *db, const am_cli_opts *o);
/* read_cmd.c: */
int am_cli_cmd_recall(am_db *db, const am_cli_opts *o);
int am_cli_cmd_task(am_db *db, const am_cli_opts *o);
int am_cli_cmd_memories(am_db *db, const am_cli_opts *o);
int am_cli_cmd_export(am_db *db, const am_cli_opts *o);
int am_cli_cmd_profile(am_db *db, const am_cli_opts *o);
int am_cli_cmd_report(am_db *db, const am_cli_opts *o);
/* forget_cmd.c: */
int am_cli_cmd_forget(am_db *db, const am_cli_opts *o);
int am_cli_cmd_restore(am_db *db, const am_cli_opts *o);
/* admin_cmd.c: */
int am_cli_cmd_link(am_db *db, const am_cli_opts *o);
int am_cli_cmd_unlink(am_db *db, const am_cli_opts *o);
int am_cli_cmd_maintain(am_db *db, const am_cli_opts *o);
int am_cli_cmd_optimize(am_db *db, const am_cli_opts *o);
int am_cli_cmd_pack(am_db *db, const am_cli_opts *o);
int am_cli_cmd_archive(am_db *db, const am_cli_opts *o);
int am_cli_cmd_reembed(am_db *db, const am_cli_opts *o);
int am_cli_cmd_workspace(am_db *db, const am_cli_opts *o);
int am_cli_cmd_working(am_db *db, const am_cli_opts *o);
int am_cli_cmd_cache(am_db *db, const am_cli_opts *o);
int am_cli_cmd_token(am_db *db, const am_cli_opts *o);
/* serve_cmd.c: */
int am_cli_cmd_serve(am_db *db, const am_cli_opts *o);
int am_cli_cmd_mcp(am_db *db, const am_cli_opts *o);

int am_cli_demo(int argc, char **argv); /* demo.c */
/* The whole of path ('-': stdin) in *out (malloc'ed), *len bytes: 0, or 1
 * with a message on stderr (write_cmd.c; import and pack apply). */
int am_cli_read_whole(const char *path, char **out, size_t *len);

int am_cli_scenario(int argc, char **argv); /* scenario.c */
int am_cli_knobs(int argc, char **argv);    /* knobs.c */
/* llm_cmd.c: the LLM pass's environment (AGENTMEM_LLM, AGENTMEM_LLM_KEY,
 * AGENTMEM_LLM_KEY_FILE read into key, AGENTMEM_LLM_BUDGET) into cfg: 0, or
 * 1 with the variable named on stderr; and `distill --llm`. */
int am_cli_llm_config(am_config *cfg, char *key, size_t cap);
int am_cli_distill(am_db *db, const char *user, const char *since, int llm, int json);
int am_cli_eval(int argc, char **argv);     /* eval.c: eval understand */
/* watch (watch.c): db_path the store named before the command (its own
 * --db wins) */
int am_cli_watch(int argc, char **argv, const char *db_path);
/* `mcp` (mcp_stdio.c): serve user (as agent, or NULL) over MCP on
 * stdin/stdout until end of input; the exit code */
int am_cli_mcp(am_db *db, const char *user, const char *agent, const char *role);

/* memory get|add|update|delete (memory_cmd.c): the parsed arguments
 * (checked: the ones the subcommand needs are there); the exit code */
typedef struct am_cli_memory_args {
    const char *sub, *id, *user, *text, *kind, *key, *scope, *agent, *role;
    int json;
    const char *metadata; /* add, update: a JSON object, or NULL */
    const char *expires;  /* add: ISO 8601 with a zone, or NULL */
} am_cli_memory_args;

/* A filter from the command line (filter.c): recall --filter JSON
 * ({"kind": K | [K...], "scope": S | [S...], "metadata": {...}, "from",
 * "to"}) or memories' flags (--kind K, --scope S, --metadata k=v or a JSON
 * object).  0, or 1 with the reason in why; free with am_cli_filter_free
 * either way. */
typedef struct am_cli_filter {
    am_filter filter;
    const char *kinds[64], *scopes[64];
    char *metadata, *from, *to; /* malloc'ed */
    char why[256];
} am_cli_filter;
int am_cli_filter_parse(const char *json, am_cli_filter *f);
int am_cli_filter_flags(const char *kind, const char *scope, const char *metadata,
                        am_cli_filter *f);
void am_cli_filter_free(am_cli_filter *f);
int am_cli_memory(am_db *db, const am_cli_memory_args *a);

/* archive events|restore (archive_cmd.c): the flags as given; the exit
 * code (2: a flag missing or malformed, named) */
typedef struct am_cli_archive_args {
    const char *sub, *user, *older_than, *event, *from, *to;
    int json;
} am_cli_archive_args;
int am_cli_archive(am_db *db, const am_cli_archive_args *a);

/* add --batch FILE (batch.c): exit code 0, 1 (a line or an event refused;
 * with atomic nothing written) */
int am_cli_add_batch(am_db *db, const char *path, int atomic, int json, int quiet);
/* add --messages FILE (messages_cmd.c): a chat transcript in one
 * transaction; base holds the flags (user, session, task, at, agent);
 * exit code 0, or 1 (nothing written) */
int am_cli_add_messages(am_db *db, const char *path, const am_event *base, int json);
/* One add result as a line of text or JSON (main.c); 0, or 1 when the JSON
 * could not be written. */
int am_cli_print_add(const am_add_info *info, int json);

/* JSON output (json_out.c).  am_cli_json_print dumps v compactly on one
 * stdout line and releases it (steals the reference; NULL counts as out of
 * memory); returns 0, or 1 with a message on stderr.  The shapes
 * of results are tools/common/shapes.h's. */
int am_cli_json_print(json_t *v);

/* profile (profile_cmd.c): the card of user within budget tokens (0: the
 * default), text or --json; report corrections: q's report; exit codes.
 * am_cli_report_period: "day" | "week" | "month" (NULL: month) as
 * AM_REPORT_*, else -1. */
int am_cli_profile(am_db *db, const char *user, int budget, int json);
int am_cli_report(am_db *db, const am_report_query *q, int json);
int am_cli_report_period(const char *s);

/* The store when none is named (store_path.c): $AGENTMEM_DB, else
 * ${XDG_DATA_HOME:-$HOME/.local/share}/agentmem/agentmem.db, into buf (cap
 * bytes); *from: "$AGENTMEM_DB" or "default".  0, or -1 (neither
 * XDG_DATA_HOME nor HOME set, or too long).  am_cli_make_store_dir creates
 * db_path's missing folders (mode 0700; existing ones untouched): 0, or 1
 * with a message naming the folder. */
int am_cli_default_db(char *buf, size_t cap, const char **from);
int am_cli_make_store_dir(const char *db_path);

/* agentmem doctor [--json] (doctor_cmd.c): what is in use and what is
 * missing; reads only, never creates the store.  db: the store (NULL:
 * none could be named), db_from: "--db", "$AGENTMEM_DB" or "default";
 * cache: --cache / $AGENTMEM_CACHE or NULL.  Exit code 0 usable, 1 not, 2
 * usage. */
int am_cli_doctor(int argc, char **argv, const char *db, const char *db_from, const char *cache);

#endif
