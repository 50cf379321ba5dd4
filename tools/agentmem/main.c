/*
 * main.c -- the agentmem command-line tool: one subcommand per public API
 * call, plus the demo, the scenario runner, the knob list and the
 * benchmarks (`bench`: the harness in tools/bench, linked in).  Uses only
 * include/agentmem.h (and jansson to read JSON input).
 *
 * Exit codes: 0 ok, 1 the engine refused or failed, 2 usage error.
 */
#include <jansson.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agentmem.h"
#include "agentmem_ops.h"
#include "bench_cli.h"
#include "cli.h"
#include "server.h"
#include "plural.h"
#include "progress.h"


typedef struct opts {
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
    am_server_obs *obs;
    FILE *log_out; /* --log FILE opened, or NULL */
} opts;

static void usage_main(FILE *f)
{
    fputs("usage: agentmem [--db PATH | --store URL] [--cache URL] [--embedder SPEC] COMMAND [ARGS]\n"
          "                [--json] [--quiet]\n"
          "\n"
          "commands:\n"
          "  init                      create (or migrate) the store\n"
          "  add                       add an event (runs the write path)\n"
          "  recall                    what the agent should be given for a turn\n"
          "  task                      a task's state and history\n"
          "  memories                  a user's semantic memory items\n"
          "  feedback                  confirm / reject / correct a memory\n"
          "  memory get|add|update|delete  one memory by id (its versions; add one directly)\n"
          "  profile                   a user's profile card for a system prompt\n"
          "  report corrections        what users correct or reject most (blind spots)\n"
          "  forget                    forget an event, session, task or user\n"
          "  restore                   bring back what was forgotten with a grace period\n"
          "  link                      link a channel identity to a user (--merge)\n"
          "  unlink                    remove a channel identity's link\n"
          "  export                    everything stored about a user (JSON)\n"
          "  import FILE               load an export (or --from mem0 FILE) into the store\n"
          "  pack apply|list|remove    cold-start rule packs (docs/PACKS.md)\n"
          "  workspace get|put         a task's shared workspace: per agent doing / done / next\n"
          "  working set|get|list|clear  a session's working memory (values with a TTL)\n"
          "  cache                     the shared cache's state (--cache URL): none, up, down\n"
          "  reembed                   vectors of the current embedder for older events\n"
          "  archive events|restore    old events' text to cold storage, and back\n"
          "  optimize                  merge the index after a bulk import (maintenance)\n"
          "  maintain                  decay, forget, archive and consolidate memory (lifecycle)\n",
          f);
    /* two literals: one would pass the 4095 bytes C99 promises */
    fputs(
          "  watch                     memory events as JSON lines (--follow: as they come)\n"
          "  mcp                       serve a user's memory to an agent over MCP (stdio)\n"
          "  token create|list|revoke  API tokens bound to a user (the server's auth)\n"
          "  serve                     the HTTP/JSON server (docs/SERVER.md)\n"
          "  doctor [--json]           which store, embedder, model files, cache and version\n"
          "                            are in use, and what is missing\n"
          "  demo                      replay the weekly-report example (zh + en)\n"
          "  scenario run FILE...      replay scenario files (docs/internals/testing.md)\n"
          "  bench DATASET ...         retrieval benchmarks (docs/bench/README.md)\n"
          "  bench serve ...           load of a running server (docs/SERVER.md)\n"
          "  knobs [--markdown]        the ranking knobs: default, range, meaning\n"
          "  eval understand           the learned reading of a turn against the corpus's\n"
          "                            labels (--split dev|test, --json; data/understand)\n"
          "\n",
          f);
    fputs("  agentmem COMMAND --help   options of one command\n"
          "  --quiet, -q               no progress bar (import, add --batch, maintain,\n"
          "                            reembed, optimize, forget and bench draw one on a\n"
          "                            terminal's stderr; never in a pipe or a file)\n"
          "  --db PATH                 store file (default: $AGENTMEM_DB, else\n"
          "                            ${XDG_DATA_HOME:-~/.local/share}/agentmem/agentmem.db,\n"
          "                            its folder made 0700 on first use; ':memory:' for none)\n"
          "  --store URL               the store by URL: sqlite:PATH (the same as --db PATH)\n"
          "                            or postgres://USER@HOST:PORT/DB (libpq's URI, e.g.\n"
          "                            ?host=/run/postgresql for a socket; docs/SCALING.md)\n"
          "  --cache URL               the shared cache: redis://[:PASSWORD@]HOST:PORT[/DB]\n"
          "                            [?ttl_ms=N&timeout_ms=N] (recall cache, working memory;\n"
          "                            docs/SCALING.md); also $AGENTMEM_CACHE; every command\n"
          "                            takes it, after the command too\n"
          "  --vault-key-file PATH     a file holding the PII-vault key (64 hex digits);\n"
          "                            else $AGENTMEM_VAULT_KEY; none: originals unencrypted\n"
          "                            (docs/SECURITY.md)\n"
          "  --role-allow RULE         a role whitelist (docs/AGENTS.md), repeatable:\n"
          "                            kind:K=role,... or domain:D=role,...; also\n"
          "                            --role-allow-file PATH (a rule a line, # comments)\n"
          "                            and $AGENTMEM_ROLE_ALLOW\n"
          "  --embedder SPEC           auto (the default: the built-in encoder when its\n"
          "                            weights are installed, else keyword recall), none,\n"
          "                            use-lite[:DIR], w2v:PATH, openai:MODEL@URL; also\n"
          "                            $AGENTMEM_EMBEDDER (docs/guide/configuration.md)\n"
          "  --log FILE                the engine's decisions (extraction, writes, recall)\n"
          "                            as JSON lines to FILE ('-': stderr); --log-format\n"
          "                            text, --log-level debug|info|warn|error (default\n"
          "                            info); ids only, --log-content adds the user's text\n"
          "                            (docs/SERVER.md \"Logs\")\n"
          "\n"
          "environment: AGENTMEM_DB (the store), AGENTMEM_CACHE, AGENTMEM_EMBEDDER, AGENTMEM_EMBEDDER_KEY,\n"
          "  AGENTMEM_MODEL_DIR (the encoder's weights), XDG_DATA_HOME,\n"
          "  AGENTMEM_BUSY_TIMEOUT_MS (how long a write waits for another writer's lock;\n"
          "  default 5000; a recall never waits)\n",
          f);
}

static const struct help {
    const char *cmd, *text;
} helps[] = {
    {"init", "usage: agentmem [--db PATH] init\n  Creates the store file, or migrates an older one.\n"},
    {"add", "usage: agentmem [--db PATH] add (--user U | --channel C --external-id X) --text T\n"
            "         [--session S] [--task T] [--agent A] [--source user|agent|tool|system]\n"
            "         [--type TYPE] [--domain D] [--intent I] [--at ISO8601] [--id ID]\n"
            "         [--metadata JSON] [--json]\n"
            "       agentmem [--db PATH] add --batch FILE.jsonl [--atomic] [--json]\n"
            "       agentmem [--db PATH] add --messages FILE.json [--user U] [--session S]\n"
            "         [--task T] [--at ISO8601] [--agent A] [--metadata JSON] [--json]\n"
            "  Adds one event; with --batch, one JSON object per line with the same\n"
            "  fields (user, channel, external_id, session, task, agent, source, type,\n"
            "  domain, intent, at, text, id, metadata), committed up to 32 lines at a time\n"
            "  (fewer when a chunk takes over 100 ms, so other writers are not kept\n"
            "  waiting), each line added or refused on its own; --atomic: the whole\n"
            "  file in one transaction, or nothing.  Every value is a string (or null);\n"
            "  other keys and types are refused by name.  --id / \"id\": the caller's id\n"
            "  of the event -- adding it again with the same fields finds it (\"already\n"
            "  present\") instead of adding a copy, with other fields is refused.\n"
            "  --messages ('-': stdin): a chat transcript, [{\"role\": \"user|assistant|\n"
            "  tool|system\", \"content\": ..., \"name\": ...}] or {\"messages\": [...],\n"
            "  \"user\", \"session\", \"task\", \"at\", \"metadata\"}: each message an event of its role's\n"
            "  source (an assistant's or tool's name its agent), in order (with --at, one\n"
            "  millisecond apart), all in one transaction or nothing.\n"},
    {"recall", "usage: agentmem [--db PATH] recall (--user U | --channel C --external-id X) --text QUERY\n"
               "         [--session S] [--task T] [--agent A] [--role R] [--domain D] [--as-of ISO8601]\n"
               "         [--budget TOKENS] [--k EVENTS] [--part system|context] [--filter JSON]\n"
               "         [--json]\n"
               "  Prints the memory block for the turn (or the whole result with --json).\n"
               "  --part system: only its part for the system prompt (profile, preferences,\n"
               "  constraints, rules); --part context: only its part to put before the\n"
               "  history (the other items, the task state, the events).  The JSON has\n"
               "  both (block_system, block_context).  --filter {\"kind\": K | [K, ...],\n"
               "  \"scope\": ..., \"metadata\": {\"k\": v | [v, ...]}, \"from\": ISO, \"to\": ISO}:\n"
               "  only the memories (and, by metadata and time, events) that match.\n"},
    {"task", "usage: agentmem [--db PATH] task --user U --task T [--agent A] [--role R] [--json]\n"
             "  With --agent / --role: the task as that agent sees it (docs/AGENTS.md).\n"},
    {"workspace", "usage: agentmem [--db PATH] workspace get --user U --task T [--json]\n"
                  "       agentmem [--db PATH] workspace put --user U --task T --agent A\n"
                  "         [--doing TEXT] [--done TEXT] [--next TEXT] [--json]\n"
                  "  The task's shared workspace (docs/AGENTS.md): each agent's entry, what it\n"
                  "  is doing, has done and does next.  put replaces the parts given (\"\" clears\n"
                  "  one) and prints the entry's new version.\n"},
    {"working", "usage: agentmem [--cache URL] working set --user U --session S --key K --value V\n"
                "         --ttl MS [--json]\n"
                "       agentmem [--cache URL] working get|clear --user U --session S [--key K] [--json]\n"
                "       agentmem [--cache URL] working list --user U --session S [--json]\n"
                "  A session's working memory: small values with a time to live (ms), in\n"
                "  Redis with --cache, else in the store (docs/SCALING.md).  get prints the\n"
                "  live value (exit 1 when expired or never set); clear without --key clears\n"
                "  the session.\n"},
    {"cache", "usage: agentmem --cache URL cache [--json]\n"
              "  The shared cache's state: none, up or down (with the last error); exit 1\n"
              "  when down.\n"},
    {"profile", "usage: agentmem [--db PATH] profile --user U [--budget N] [--json]\n"
                "  The user's profile card: current lasting items (profile, constraints,\n"
                "  preferences, rules, facts, patterns) grouped by topic, near texts once,\n"
                "  within N tokens (default 400), in the language most of them are in;\n"
                "  ready for a system prompt, the same bytes for the same store\n"
                "  (docs/PROFILE.md).  --json: the sections with the items' ids.\n"},
    {"report", "usage: agentmem [--db PATH] report corrections [--since ISO] [--until ISO]\n"
               "         [--user U] [--period day|week|month] [--json]\n"
               "  The blind-spot report: items created, confirmed, corrected and rejected,\n"
               "  by key, kind, topic and origin (who decided the item), per period (default\n"
               "  month), with the correction rate (corrected + rejected) / created.  Without\n"
               "  --user: every user's, keys and counts only (docs/REPORTS.md).\n"},
    {"memories", "usage: agentmem [--db PATH] memories --user U [--all] [--as-of ISO8601]\n"
                 "         [--agent A] [--role R] [--kind K] [--scope S] [--metadata k=v]\n"
                 "         [--limit N] [--cursor C] [--json]\n"
                 "  Active items (or every version with --all: valid time valid_from ..\n"
                 "  valid_to and system time recorded .. superseded; --json adds\n"
                 "  version_state current|past|replaced|pending).  --as-of: the items valid\n"
                 "  then, each with the status it had then.  --kind, --scope, --metadata\n"
                 "  (k=v, or a JSON object {\"k\": v | [v, ...]}): only the items that match.\n"
                 "  --limit N (1..1000): a page of N; the next one with --cursor C (printed\n"
                 "  at the end, on stderr with --json).\n"},
    {"feedback", "usage: agentmem [--db PATH] feedback --user U --id MEMORY_ID --action confirm|reject|correct [--text T]\n"},
    {"memory", "usage: agentmem [--db PATH] memory get ID --user U [--json]\n"
               "       agentmem [--db PATH] memory add --user U --text T [--kind K] [--key K]\n"
               "         [--scope S] [--metadata JSON] [--expires ISO] [--json]\n"
               "       agentmem [--db PATH] memory update ID --user U [--text T] [--metadata JSON]\n"
               "         [--json]\n"
               "       agentmem [--db PATH] memory delete ID --user U [--json]\n"
               "  ID: a memory's lineage id or any of its versions' ids.  get prints every\n"
               "  version (the current one marked *).  add states a memory directly: a new\n"
               "  value of the same key supersedes, the same text reinforces (kind and key:\n"
               "  the engine's reading when not given; --expires: when it stops being\n"
               "  current, ISO 8601 with a zone, docs/EXPIRY.md).  update writes a new current\n"
               "  version (a correction).  delete removes every version from every table,\n"
               "  index and cache (docs/FORGETTING.md).  --agent A / --role R: as that\n"
               "  agent sees the memory (docs/AGENTS.md).\n"},
    {"pack", "usage: agentmem [--db PATH] pack apply FILE (--user U | --all-matching) [--json]\n"
             "       agentmem [--db PATH] pack list [--user U] [--json]\n"
             "       agentmem [--db PATH] pack remove NAME [--user U] [--json]\n"
             "  A rule pack (docs/PACKS.md) is a JSON file {\"name\", \"version\", \"applies_to\":\n"
             "  {\"role\"?, \"region\"?, \"channel\"?}, \"rules\": [{\"kind\", \"key\"?, \"text\", \"lang\"}]},\n"
             "  checked whole: every bad field is named and nothing is applied.  apply\n"
             "  gives its rules to one user or to every user applies_to matches (the role\n"
             "  and region of a user's latest event metadata, a channel link); the same\n"
             "  version again changes nothing, a new version replaces the old rules.\n"
             "  The user's own statement of the same key wins over a rule.  list shows\n"
             "  name, version, applies_to, rules and users; remove takes the pack's\n"
             "  rules from the user (or every user), the user's own memories stay.\n"},
    {"forget", "usage: agentmem [--db PATH] forget --user U --level event|session|task|user [--id ID]\n"
               "         [--grace SECONDS] [--json]\n"
               "  Removes the data from every table and index; items derived only from\n"
               "  forgotten events go too, tasks are rebuilt from the events that remain.\n"
               "  With --grace SECONDS (default 0: at once) the data is hidden at once\n"
               "  and purged when the grace period ends; until then `restore` brings it\n"
               "  back (docs/FORGETTING.md).\n"},
    {"restore", "usage: agentmem [--db PATH] restore --user U [--level event|session|task|user --id ID]\n"
                "         [--json]\n"
                "  Brings back what was forgotten with --grace, before its purge: the user\n"
                "  (no --level, or --level user), or its event, session or task ID.\n"},
    {"link", "usage: agentmem [--db PATH] link --channel C --external-id X --user U [--merge]\n"
             "  The pair (C, X) is user U.  A pair that has been used unlinked has a\n"
             "  user of its own (id \"~\" + 26 characters); linking it moves that user\n"
             "  into U -- when it has a history (events, memories, tasks), only with\n"
             "  --merge (audited), else the link is refused saying so.\n"},
    {"unlink", "usage: agentmem [--db PATH] unlink --channel C --external-id X\n"
               "  Removes the link: the pair's later events go to a user of its own.\n"},
    {"import", "usage: agentmem [--db PATH | --store URL] import FILE [--user U] [--merge] [--json]\n"
               "       agentmem [--db PATH | --store URL] import --from mem0 FILE --user U [--json]\n"
               "  Loads an export (agentmem export's JSON; '-': stdin) into the store, in one\n"
               "  transaction: every event, memory version, task, workspace, identity and the\n"
               "  audit trail as they were (ids, times, statuses).  The user is the export's,\n"
               "  or --user U.  A user with data already is refused unless --merge: then the\n"
               "  events (by id), memories (by lineage id) and tasks it lacks are added.\n"
               "  --from mem0: mem0's get_all / export JSON (a list, or {\"results\": [...]})\n"
               "  as memories of provenance import, recorded at their created_at, mem0's id\n"
               "  and metadata kept in the memory's value.  A bad file writes nothing; the\n"
               "  error names the entry and field.  Then `agentmem reembed` when an embedder\n"
               "  is set (docs/IMPORT.md).\n"},
    {"export", "usage: agentmem [--db PATH] export --user U\n"
               "  Writes everything stored about the user as one JSON document to stdout,\n"
               "  streamed as it is read (memory bounded, whatever the history's size).\n"},
    {"archive", "usage: agentmem [--db PATH] archive events [--user U] [--older-than DAYS] [--json]\n"
                "       agentmem [--db PATH] archive restore --user U (--event ID | --from ISO --to ISO)\n"
                "                [--json]\n"
                "  events: the events of the user (or of all users) said more than DAYS days\n"
                "  ago (default: the knob archive_events_days, 90) keep a short summary in the\n"
                "  hot rows; their whole text moves to the cold column, compressed.  They are\n"
                "  still found by their words; recall of that period, export and the events\n"
                "  list read the whole text.  Steps of 256 events, each committed.\n"
                "  restore: the whole text of one event, or of the events said in [from, to),\n"
                "  back in the hot rows for good (docs/internals/STORAGE.md \"Archived events\").\n"},
    {"optimize", "usage: agentmem [--db PATH] optimize\n"
                 "  Merges the full-text index into one segment, refreshes planner statistics\n"
                 "  and checkpoints the log: after a bulk import or as a nightly job.\n"},
    {"distill", "usage: agentmem [--db PATH] distill --llm --user U [--since ISO] [--json]\n"
                "  The optional LLM pass (docs/LLM.md), now: sends the user's latest events\n"
                "  (since ISO) to the model named by $AGENTMEM_LLM=openai:MODEL@BASE_URL (key in\n"
                "  $AGENTMEM_LLM_KEY or $AGENTMEM_LLM_KEY_FILE; budget $AGENTMEM_LLM_BUDGET=\n"
                "  CALLS[/TOKENS] a user a day) and merges its proposals; reports how many\n"
                "  were created, merged, kept one-off and dropped.\n"},
    {"maintain", "usage: agentmem [--db PATH] maintain [--user U] [--json]\n"
                 "  The maintenance pass (docs/LIFECYCLE.md): items not reinforced, confirmed\n"
                 "  or recalled for long become candidate_forget (asked about), then\n"
                 "  invalidated after a grace period; cold items are archived; near-duplicates\n"
                 "  are consolidated.  Every user (or one), in short transactions; an\n"
                 "  interrupted pass goes on where it stopped when run again.\n"},
    {"reembed", "usage: agentmem [--db PATH] reembed [--user U] [--json]\n"
                "  Embeds, with the embedder named by $AGENTMEM_EMBEDDER (key in\n"
                "  $AGENTMEM_EMBEDDER_KEY), every event of the user (or of all users)\n"
                "  that has no vector of it -- after the embedder changed, old events are\n"
                "  invisible to vector recall until then.  Batches of 32, each committed:\n"
                "  an interrupted run keeps its work, running again does the rest.\n"
                "  Shows a progress bar when stderr is a terminal.\n"},
    {"watch", "usage: agentmem [--db PATH] watch [--db PATH] [--user U] [--from SEQ] [--follow]\n"
              "                      [--max-events N] [--interval-ms MS] [--json]\n"
              "  Prints the store's memory events (memory.created, memory.updated.<key>,\n"
              "  memory.invalidated, memory.forgotten, task.updated, security.denied) as JSON\n"
              "  lines in seq order: ids and times, never content (docs/EVENTS.md).  --user: one\n"
              "  user's; --from SEQ: after that seq (resume with the last one printed);\n"
              "  --follow: keep polling for events of every process (every --interval-ms,\n"
              "  default 200) until SIGINT/SIGTERM or --max-events lines; --json: the default.\n"},
    {"mcp", "usage: agentmem [--db PATH] [--role-allow RULE] mcp --user U [--agent A] [--role R]\n"
            "  A Model Context Protocol server on stdin/stdout (one JSON-RPC message a\n"
            "  line; logs on stderr; exits at end of input) for user U, whom no tool\n"
            "  argument can change: tools remember, recall, task_state, list_memories,\n"
            "  feedback, forget.  With --agent A and --role R every tool sees and acts\n"
            "  as agent A with role R may (docs/AGENTS.md), as a server token of that\n"
            "  agent and role does.  Protocol 2026-07-28 (stateless: server/discover,\n"
            "  _meta on each request) and, after initialize, 2025-11-25, 2025-06-18,\n"
            "  2025-03-26 or 2024-11-05 (the client's).  Creates the store if needed;\n"
            "  without --db: $AGENTMEM_DB, else ~/.local/share/agentmem/agentmem.db (under\n"
            "  $XDG_DATA_HOME when set).  Recall is semantic when the built-in encoder is\n"
            "  installed (--embedder auto, the default; `agentmem doctor` says).\n"
            "  Host configuration: docs/MCP.md.\n"},
    {"doctor", "usage: agentmem [--db PATH | --store URL] [--cache URL] doctor [--json]\n"
               "  One screen on what this agentmem would use, read only (the store is not\n"
               "  created): the version; the store (path or URL, where it was chosen:\n"
               "  --db, $AGENTMEM_DB or the default path; whether it exists, its schema\n"
               "  version, size, writable); the cache (--cache / $AGENTMEM_CACHE:\n"
               "  reachable or not); the embedder (configured, resolved to, the folders\n"
               "  searched for the encoder's weights and which held them, or how to add\n"
               "  them); the example packs; the LLM pass (configured or not; keys are never\n"
               "  shown).  Exit 0 when usable, 1 when something needed is missing.\n"},
    {"token", "usage: agentmem [--db PATH] token create --user U [--agent A] [--role R] [--admin]\n"
              "       agentmem [--db PATH] token list [--user U] [--json]\n"
              "       agentmem [--db PATH] token revoke ID\n"
              "  create prints a new token (amk_ and 43 characters) alone on its line: it\n"
              "  is shown once, only its hash is stored.  It acts as user U (agent A,\n"
              "  role R); --admin: it may name any user.  list shows ids, users, agents,\n"
              "  roles, admin, created and revoked times -- never a token.  revoke ID:\n"
              "  the token is refused from then on.  Forgetting a user deletes its tokens.\n"},
    {"serve", "usage: agentmem [--db PATH] [--role-allow RULE] serve [--listen 127.0.0.1:8420]\n"
              "         [--reuse-port] [--threads N] [--max-body BYTES] [--max-conns-per-ip N]\n"
              "         [--timeout SECONDS] [--header-timeout SECONDS]\n"
              "         [--webhook URL --webhook-secret-file PATH]\n"
              "         [--mcp-origin ORIGIN] [--cache redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]]\n"
              "         [--log-format json|text] [--log-level debug|info|warn|error] [--log-content]\n"
              "         [--llm-batch N] [--llm-wait SECONDS] [--llm-queue N]\n"
              "         [--maintain-every DURATION]\n"
              "  Serves the HTTP/JSON API (docs/SERVER.md, docs/openapi.json) on the store\n"
              "  of --db, else $AGENTMEM_DB, else ~/.local/share/agentmem/agentmem.db (under\n"
              "  $XDG_DATA_HOME when set), with --embedder auto by default.  Every route\n"
              "  but /healthz, /openapi.json and the inspector's page needs\n"
              "  Authorization: Bearer TOKEN (agentmem token create).\n"
              "  --listen HOST:PORT (port 0: any free one; the address is printed on\n"
              "  stdout); a port in use is refused (exit 1) unless every server sharing\n"
              "  it is started with --reuse-port (the kernel spreads connections over\n"
              "  them: only for servers of one store).  --threads worker threads (default 4), --max-body request bodies\n"
              "  over it are refused with 413 (default 1048576).  --max-conns-per-ip N:\n"
              "  connections at once from one address, more refused (default 128;\n"
              "  behind a proxy raise it).  --timeout SECONDS: a connection idle that\n"
              "  long is closed, an export whose client reads nothing that long is\n"
              "  stopped (default 30).  --header-timeout SECONDS: a connection that\n"
              "  has not sent its request head within it is closed (default 10).\n"
              "  SIGTERM or SIGINT: stops accepting, gives the accepted requests 2 s,\n"
              "  cuts what still runs (stalled clients), exits 0 within 5 s.\n"
              "  --maintain-every DURATION (10m, 1h, 1d; 0: off, the default): the\n"
              "  maintenance pass (agentmem maintain) in a background thread, one short\n"
              "  transaction at a time; stopped cleanly at shutdown.\n"
              "  --webhook URL (repeatable) with --webhook-secret-file PATH: every memory\n"
              "  event committed from then on is POSTed to each URL, signed with\n"
              "  HMAC-SHA256 of the file's first line (docs/EVENTS.md), retried with\n"
              "  backoff; drained at shutdown.  Global --role-allow rules hold on every\n"
              "  route.  --mcp-origin ORIGIN (repeatable, scheme://host[:port]): the\n"
              "  browser origins POST /mcp accepts (default: loopback ones only).\n"
              "  --cache URL (or the global one, $AGENTMEM_CACHE): every handle of the\n"
              "  server uses the shared cache (docs/SCALING.md), and it is the event bus\n"
              "  between servers sharing one store (docs/EVENTS.md): a write through one\n"
              "  reaches the others' streams at once, each event goes to the webhooks once\n"
              "  across them; Redis down: served from the store, /healthz says\n"
              "  \"degraded\": true.\n"
              "  --log-format json|text: the engine's decisions (extraction, writes,\n"
              "  recall: route, candidates, scores, what was kept) on stderr, a line each,\n"
              "  at --log-level and above (default info); ids only unless --log-content.\n"
              "  /metrics counts them either way (docs/SERVER.md \"Logs\", \"Metrics\").\n"
              "  With AGENTMEM_LLM set (docs/LLM.md) a worker sends each user's new events\n"
              "  to the model in the background: a batch at --llm-batch events (default\n"
              "  20) or when its oldest has waited --llm-wait SECONDS (default 60); at most\n"
              "  --llm-queue N ids wait (default 10000, the oldest dropped beyond).\n"},
    {"knobs", "usage: agentmem knobs [--markdown]\n"
              "  Lists the ranking knobs (am_config_set names, bench --rank names) with\n"
              "  their type, default, range and meaning; --markdown prints docs/KNOBS.md.\n"},
    {"demo", "usage: agentmem demo [--json]\n"
             "  Replays a weekly-report example in Chinese and English on an\n"
             "  in-memory store and prints what the agent is given at each turn.\n"},
};

static int print_help(const char *cmd)
{
    for (size_t i = 0; i < sizeof helps / sizeof *helps; i++)
        if (strcmp(helps[i].cmd, cmd) == 0) {
            fputs(helps[i].text, stdout);
            return 0;
        }
    usage_main(stdout);
    return 0;
}

static int usage_error(const char *cmd, const char *msg)
{
    fprintf(stderr, "agentmem %s: %s\n", cmd, msg);
    for (size_t i = 0; i < sizeof helps / sizeof *helps; i++)
        if (strcmp(helps[i].cmd, cmd) == 0) fputs(helps[i].text, stderr);
    return 2;
}

/* Parse --flag VALUE options after the command.  Returns 0, or 2 on a
 * usage error (message printed). */
static int parse_opts(const char *cmd, int argc, char **argv, opts *o)
{
    static const struct {
        const char *flag;
        size_t off;
    } strs[] = {
        {"--user", offsetof(opts, user)}, {"--channel", offsetof(opts, channel)},
        {"--external-id", offsetof(opts, external_id)}, {"--agent", offsetof(opts, agent)},
        {"--session", offsetof(opts, session)}, {"--task", offsetof(opts, task)},
        {"--source", offsetof(opts, source)}, {"--type", offsetof(opts, type)},
        {"--domain", offsetof(opts, domain)}, {"--intent", offsetof(opts, intent)},
        {"--at", offsetof(opts, at)}, {"--as-of", offsetof(opts, as_of)},
        {"--text", offsetof(opts, text)}, {"--batch", offsetof(opts, batch)},
        {"--messages", offsetof(opts, messages)},
        {"--id", offsetof(opts, id)}, {"--level", offsetof(opts, level)},
        {"--action", offsetof(opts, action)}, {"--db", offsetof(opts, db)},
        {"--grace", offsetof(opts, grace)}, {"--role", offsetof(opts, role)},
        {"--doing", offsetof(opts, doing)}, {"--done", offsetof(opts, done)},
        {"--next", offsetof(opts, next)}, {"--part", offsetof(opts, part)},
        {"--listen", offsetof(opts, listen)}, {"--threads", offsetof(opts, threads)},
        {"--max-body", offsetof(opts, max_body)},
        {"--max-conns-per-ip", offsetof(opts, max_conns_per_ip)},
        {"--header-timeout", offsetof(opts, header_timeout)},
        {"--timeout", offsetof(opts, timeout)},
        {"--llm-batch", offsetof(opts, llm_batch)}, {"--llm-wait", offsetof(opts, llm_wait)},
        {"--llm-queue", offsetof(opts, llm_queue)},
        {"--webhook-secret-file", offsetof(opts, webhook_secret_file)},
        {"--cache", offsetof(opts, cache)}, {"--key", offsetof(opts, key)},
        {"--value", offsetof(opts, value)}, {"--ttl", offsetof(opts, ttl)},
        {"--log", offsetof(opts, log_file)}, {"--log-format", offsetof(opts, log_format)},
        {"--log-level", offsetof(opts, log_level)},
        {"--kind", offsetof(opts, kind)}, {"--scope", offsetof(opts, scope)},
        {"--metadata", offsetof(opts, metadata)}, {"--limit", offsetof(opts, limit)},
        {"--cursor", offsetof(opts, cursor)}, {"--filter", offsetof(opts, filter)},
        {"--from", offsetof(opts, from)}, {"--to", offsetof(opts, to)},
        {"--expires", offsetof(opts, expires)},
        {"--since", offsetof(opts, since)}, {"--until", offsetof(opts, until)},
        {"--period", offsetof(opts, period)},
        {"--older-than", offsetof(opts, older_than)}, {"--event", offsetof(opts, event)},
        {"--maintain-every", offsetof(opts, maintain_every)},
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
            if (i + 1 >= argc) return usage_error(cmd, "--mcp-origin needs an origin (https://host[:port])");
            if (o->n_mcp_origin == (int)(sizeof o->mcp_origin / sizeof *o->mcp_origin))
                return usage_error(cmd, "--mcp-origin: at most 16 origins");
            const char *v = argv[++i];
            const char *host = strncmp(v, "http://", 7) == 0 ? v + 7 : strncmp(v, "https://", 8) == 0 ? v + 8 : NULL;
            if (!host || !*host || strlen(v) > 512 || strpbrk(host, " \t\r\n,/?#"))
                return usage_error(cmd, "--mcp-origin: an origin is scheme://host[:port] (http or https, no path)");
            o->mcp_origin[o->n_mcp_origin++] = v;
            continue;
        }
        if (strcmp(a, "--webhook") == 0) {
            if (i + 1 >= argc) return usage_error(cmd, "--webhook needs a URL");
            if (o->n_webhook == (int)(sizeof o->webhook / sizeof *o->webhook))
                return usage_error(cmd, "--webhook: at most 16 URLs");
            o->webhook[o->n_webhook++] = argv[++i];
            continue;
        }
        if (strcmp(a, "--budget") == 0 || strcmp(a, "--k") == 0) {
            if (i + 1 >= argc) return usage_error(cmd, "missing value");
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v <= 0 || v > 100000) return usage_error(cmd, "expected a positive number");
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
            return usage_error(cmd, msg);
        }
        if (i + 1 >= argc) {
            char msg[128];
            snprintf(msg, sizeof msg, "%s needs a value", a);
            return usage_error(cmd, msg);
        }
        *(const char **)((char *)o + strs[k].off) = argv[++i];
    }
    /* one identity: a master user, or a channel's pair (link names both) */
    if (o->user && (o->channel || o->external_id) && strcmp(cmd, "link") != 0)
        return usage_error(cmd, "give --user or --channel with --external-id, not both");
    if (!o->channel != !o->external_id)
        return usage_error(cmd, "--channel and --external-id go together");
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
static int log_open(const char *cmd, opts *o)
{
    int serve = strcmp(cmd, "serve") == 0;
    int format = AM_SERVER_LOG_JSON, level = AM_LOG_INFO;
    if (o->log_format) {
        if (strcmp(o->log_format, "json") == 0) format = AM_SERVER_LOG_JSON;
        else if (strcmp(o->log_format, "text") == 0) format = AM_SERVER_LOG_TEXT;
        else return usage_error(cmd, "--log-format: expected json or text");
    }
    if (o->log_level) {
        static const char *const names[] = {"error", "warn", "info", "debug"};
        level = -1;
        for (int i = 0; i < 4; i++)
            if (strcmp(o->log_level, names[i]) == 0) level = i;
        if (level < 0) return usage_error(cmd, "--log-level: expected debug, info, warn or error");
    }
    if (o->log_content && !o->log_file && !(serve && o->log_format))
        return usage_error(cmd, "--log-content goes with --log FILE (serve: or --log-format)");
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

static void log_close(opts *o)
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
                      const char *cache, const opts *o, int *usage)
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

static int fail(am_db *db, int rc)
{
    fprintf(stderr, "agentmem: %s (%s)\n", am_errmsg(db), am_errstr(rc));
    return 1;
}

int am_cli_print_add(const am_add_info *info, int json)
{
    if (json)
        return am_cli_json_print(am_shape_add(info));
    if (info->existing)
        printf("event %s (user %s): already present, nothing added\n", info->event_id,
               info->user_id);
    else
        printf("event %s (user %s%s%s): %d new %s, %d updated, %d invalidated%s%s\n",
               info->event_id, info->user_id, info->task_id[0] ? ", task " : "", info->task_id,
               info->memories_created, am_plural(info->memories_created, "memory", "memories"),
               info->memories_updated, info->memories_invalidated,
               info->task_changed ? ", task changed" : "", info->one_off ? ", one-off" : "");
    return 0;
}

static int cmd_add(am_db *db, const opts *o)
{
    if (o->batch) {
        if (!*o->batch) return usage_error("add", "--batch needs a file name (or - for stdin)");
        return am_cli_add_batch(db, o->batch, o->atomic, o->json, o->quiet);
    }
    if (o->messages) {
        if (!*o->messages) return usage_error("add", "--messages needs a file name (or - for stdin)");
        if (o->text || o->source || o->type || o->id || o->atomic)
            return usage_error("add", "--messages takes --user, --session, --task, --at and"
                                      " --agent only (each message is its own event)");
        am_event base = {0};
        base.user_id = o->user;
        base.channel = o->channel;
        base.external_id = o->external_id;
        base.agent_id = o->agent;
        base.session_id = o->session;
        base.task_id = o->task;
        base.domain = o->domain;
        base.intent = o->intent;
        base.occurred_at = o->at;
        base.metadata_json = o->metadata;
        return am_cli_add_messages(db, o->messages, &base, o->json);
    }
    if (o->atomic) return usage_error("add", "--atomic goes with --batch");
    if (!o->text) return usage_error("add", "--text is required");
    am_event ev = {o->user,   o->channel, o->external_id, o->agent, o->session,
                   o->task,   o->source,  o->type,        o->domain, o->intent,
                   o->text,   o->at,      o->id,          o->metadata};
    am_add_info info;
    int rc = am_add_event(db, &ev, &info);
    if (rc) return fail(db, rc);
    return am_cli_print_add(&info, o->json);
}

static int cmd_recall(am_db *db, const opts *o)
{
    if (!o->text) return usage_error("recall", "--text is required");
    if (o->part && strcmp(o->part, "system") != 0 && strcmp(o->part, "context") != 0)
        return usage_error("recall", "--part must be system or context");
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = o->user;
    q.channel = o->channel;
    q.external_id = o->external_id;
    q.agent_id = o->agent;
    q.role = o->role;
    q.session_id = o->session;
    q.task_id = o->task;
    q.domain = o->domain;
    q.text = o->text;
    q.as_of = o->as_of;
    q.budget_tokens = o->budget;
    q.max_events = o->k;
    /* --filter JSON: {"kind", "scope", "metadata", "from", "to"} */
    am_cli_filter f;
    if (o->filter && am_cli_filter_parse(o->filter, &f)) {
        am_cli_filter_free(&f);
        return usage_error("recall", f.why);
    }
    if (o->filter) q.filter = &f.filter;
    am_recall_result *r;
    int rc = am_recall(db, &q, &r);
    if (o->filter) am_cli_filter_free(&f);
    if (rc) return fail(db, rc);
    if (o->json) printf("%s\n", r->json);
    else if (!r->need_memory) printf("(no memory needed: %s)\n", r->route);
    else {
        const char *b = !o->part                       ? r->block
                        : strcmp(o->part, "system") == 0 ? r->block_system
                                                         : r->block_context;
        printf("%s", b[0] ? b : "(nothing remembered)\n");
    }
    am_recall_free(r);
    return 0;
}

static int cmd_task(am_db *db, const opts *o)
{
    if (!o->user || !o->task) return usage_error("task", "--user and --task are required");
    am_task *t;
    int rc = am_task_get_as(db, o->user, o->task, o->agent, o->role, &t);
    if (rc) return fail(db, rc);
    if (o->json) {
        rc = am_cli_json_print(am_shape_task(t));
    } else {
        printf("task %s: stage %s, status %s\n  artifacts %s\n  pending %s\n  notes %s\n",
               t->task_id, t->stage ? t->stage : "-", t->status, t->artifacts_json,
               t->pending_json, t->notes_json);
        for (size_t i = 0; i < t->n_history; i++) {
            char ts[32];
            char *was = am_text_plain(t->history[i].old_value ? t->history[i].old_value : "-");
            char *now = am_text_plain(t->history[i].new_value ? t->history[i].new_value : "-");
            printf("  %s %s: %s -> %s\n", am_time_format(t->history[i].at, 0, ts),
                   t->history[i].field, was ? was : "?", now ? now : "?");
            am_free(was);
            am_free(now);
        }
    }
    am_task_free(t);
    return rc;
}

static int cmd_memories(am_db *db, const opts *o)
{
    if (!o->user) return usage_error("memories", "--user is required");
    am_list_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.which = o->all ? AM_LIST_ALL : AM_LIST_ACTIVE;
    lo.as_of = o->as_of;
    lo.agent_id = o->agent;
    lo.role = o->role;
    lo.cursor = o->cursor;
    if (o->limit) {
        char *end;
        long v = strtol(o->limit, &end, 10);
        if (*end || end == o->limit || v <= 0 || v > AM_LIST_LIMIT_MAX)
            return usage_error("memories", "--limit: expected a number from 1 to 1000");
        lo.limit = (size_t)v;
    }
    /* --kind K, --scope S, --metadata k=v (or a JSON object of values) */
    am_cli_filter f;
    if (am_cli_filter_flags(o->kind, o->scope, o->metadata, &f)) {
        am_cli_filter_free(&f);
        return usage_error("memories", f.why);
    }
    lo.filter = &f.filter;
    am_memory_list *l;
    int rc = am_memories_list(db, o->user, &lo, &l);
    am_cli_filter_free(&f);
    if (rc) return fail(db, rc);
    if (o->json) {
        printf("%s\n", l->json);
        if (l->next_cursor) fprintf(stderr, "next_cursor: %s\n", l->next_cursor);
    } else {
        for (size_t i = 0; i < l->n; i++) {
            const am_memory *m = &l->items[i];
            char from[32], to[32];
            char *key = am_text_plain(m->key), *text = am_text_plain(m->text);
            printf("%s %-10s %-14s %-28s conf %.2f  %s .. %s  ", m->id, m->kind, m->status,
                   key ? key : "", m->confidence, am_time_format(m->valid_from, 0, from),
                   m->valid_to == AM_TIME_NONE ? "" : am_time_format(m->valid_to, 0, to));
            if (o->all) /* F19: each version's system time too */
                printf("recorded %s .. %s  ", am_time_format(m->recorded_at, 0, from),
                       m->superseded_at == AM_TIME_NONE ? ""
                                                        : am_time_format(m->superseded_at, 0, to));
            printf("%s\n", text ? text : "");
            am_free(key);
            am_free(text);
        }
        if (l->n == 0) printf("(no memories)\n");
        if (l->next_cursor) printf("(more: --cursor %s)\n", l->next_cursor);
    }
    am_memory_list_free(l);
    return 0;
}

static int cmd_feedback(am_db *db, const opts *o)
{
    if (!o->user || !o->id || !o->action)
        return usage_error("feedback", "--user, --id and --action are required");
    int action = strcmp(o->action, "confirm") == 0   ? AM_FEEDBACK_CONFIRM
                 : strcmp(o->action, "reject") == 0  ? AM_FEEDBACK_REJECT
                 : strcmp(o->action, "correct") == 0 ? AM_FEEDBACK_CORRECT
                                                     : 0;
    if (!action) return usage_error("feedback", "--action must be confirm, reject or correct");
    int rc = am_feedback(db, o->user, o->id, action, o->text);
    if (rc) return fail(db, rc);
    printf("ok\n");
    return 0;
}

/* memory get|add|update|delete: the arguments each needs, named */
static int cmd_memory(am_db *db, const opts *o)
{
    const char *sub = o->mem_sub;
    int add = strcmp(sub, "add") == 0, upd = strcmp(sub, "update") == 0;
    char cmd[32];
    snprintf(cmd, sizeof cmd, "memory %s", sub);
    if (!o->user) return usage_error(cmd, "--user is required");
    if (!add && !o->id) return usage_error(cmd, "the memory ID is required (memory SUB ID --user U)");
    if (add && o->id) return usage_error(cmd, "add takes no ID (the engine makes it)");
    if (add && !o->text) return usage_error(cmd, "--text is required");
    if (!add && !upd && o->text) return usage_error(cmd, "--text is an option of add and update");
    if (!add && (o->kind || o->key || o->scope || o->expires))
        return usage_error(cmd, "--kind, --key, --scope and --expires are options of add");
    if (upd && !o->text && !o->metadata) return usage_error(cmd, "--text or --metadata is required");
    am_cli_memory_args a = {sub,     o->id,    o->user,  o->text, o->kind,   o->key,
                            o->scope, o->agent, o->role, o->json, o->metadata, o->expires};
    return am_cli_memory(db, &a);
}

static int cmd_forget(am_db *db, const opts *o)
{
    if (!o->user || !o->level) return usage_error("forget", "--user and --level are required");
    int level = strcmp(o->level, "event") == 0     ? AM_FORGET_EVENT
                : strcmp(o->level, "session") == 0 ? AM_FORGET_SESSION
                : strcmp(o->level, "task") == 0    ? AM_FORGET_TASK
                : strcmp(o->level, "user") == 0    ? AM_FORGET_USER
                                                   : 0;
    if (!level) return usage_error("forget", "--level must be event, session, task or user");
    if (level != AM_FORGET_USER && !o->id) return usage_error("forget", "--id is required");
    am_forget_info info;
    am_progress bar;
    /* a bar for what can be large: a user, a session, a task (steps) */
    am_progress_start(&bar, "forget", "steps", 0, o->quiet || level == AM_FORGET_EVENT);
    int rc = am_forget_ex(db, o->user, level, o->id, am_progress_fn_adapter, &bar, &info);
    am_progress_end(&bar);
    if (rc) return fail(db, rc);
    if (o->json)
        return am_cli_json_print(am_shape_forget(&info));
    else
        printf("forgot %ld %s, %ld memory %s, %ld %s\n", info.events,
               am_plural(info.events, "event", "events"), info.memories,
               am_plural(info.memories, "version", "versions"), info.tasks,
               am_plural(info.tasks, "task", "tasks"));
    return 0;
}

static int cmd_restore(am_db *db, const opts *o)
{
    if (!o->user) return usage_error("restore", "--user is required");
    int level = !o->level                          ? AM_FORGET_USER
                : strcmp(o->level, "event") == 0   ? AM_FORGET_EVENT
                : strcmp(o->level, "session") == 0 ? AM_FORGET_SESSION
                : strcmp(o->level, "task") == 0    ? AM_FORGET_TASK
                : strcmp(o->level, "user") == 0    ? AM_FORGET_USER
                                                   : 0;
    if (!level) return usage_error("restore", "--level must be event, session, task or user");
    if (level != AM_FORGET_USER && !o->id) return usage_error("restore", "--id is required");
    if (level == AM_FORGET_USER && o->id) return usage_error("restore", "--id needs --level event, session or task");
    int rc = am_restore_forget(db, o->user, level, o->id);
    if (rc) return fail(db, rc);
    if (o->json) return am_cli_json_print(json_pack("{s:b}", "restored", 1));
    printf("restored\n");
    return 0;
}

static int cmd_link(am_db *db, const opts *o)
{
    if (!o->channel || !o->external_id || !o->user)
        return usage_error("link", "--channel, --external-id and --user are required");
    int rc = am_link_merge(db, o->channel, o->external_id, o->user, o->merge);
    if (rc) return fail(db, rc);
    printf("ok\n");
    return 0;
}

static int cmd_unlink(am_db *db, const opts *o)
{
    if (!o->channel || !o->external_id)
        return usage_error("unlink", "--channel and --external-id are required");
    int rc = am_unlink(db, o->channel, o->external_id);
    if (rc) return fail(db, rc);
    printf("ok\n");
    return 0;
}

static int cmd_mcp(am_db *db, const opts *o)
{
    if (!o->user) return usage_error("mcp", "--user is required");
    return am_cli_mcp(db, o->user, o->agent, o->role);
}

static int cmd_maintain(am_db *db, const opts *o)
{
    am_maintain_options mo = {0};
    am_maintain_report r;
    am_progress bar;
    mo.user_id = o->user;
    mo.progress = am_progress_fn_adapter;
    mo.progress_ctx = &bar;
    am_progress_start(&bar, "maintain", o->user ? "steps" : "users", 0, o->quiet);
    int rc = am_maintain(db, &mo, &r);
    am_progress_end(&bar);
    if (rc) return fail(db, rc);
    if (o->json)
        return am_cli_json_print(json_pack(
            "{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:b,s:I}", "users", (json_int_t)r.users, "decayed",
            (json_int_t)r.decayed, "candidate_forget", (json_int_t)r.candidate, "invalidated",
            (json_int_t)r.invalidated, "archived", (json_int_t)r.archived, "revived",
            (json_int_t)r.revived, "consolidated", (json_int_t)r.consolidated, "steps",
            (json_int_t)r.steps, "elapsed_ms", (json_int_t)r.elapsed_ms, "finished", r.finished,
            "events_archived", (json_int_t)r.events_archived));
    printf("%ld %s: %ld decayed, %ld candidate_forget, %ld invalidated, %ld archived, "
           "%ld revived, %ld consolidated, %ld %s archived (%ld %s, %ld ms)\n",
           r.users, am_plural(r.users, "user", "users"), r.decayed, r.candidate, r.invalidated,
           r.archived, r.revived, r.consolidated, r.events_archived,
           am_plural(r.events_archived, "event", "events"), r.steps,
           am_plural(r.steps, "step", "steps"), r.elapsed_ms);
    return 0;
}

static int cmd_optimize(am_db *db, const opts *o)
{
    am_progress bar;
    am_progress_start(&bar, "optimize", "steps", AM_OPTIMIZE_STEPS, o->quiet);
    int rc = am_optimize_ex(db, am_progress_fn_adapter, &bar);
    am_progress_end(&bar);
    if (rc) return fail(db, rc);
    printf("ok\n");
    return 0;
}

/* am_export_stream's sink: stdout, as the document is made. */
static int write_stdout(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    return fwrite(data, 1, len, stdout) != len;
}

static int cmd_export(am_db *db, const opts *o)
{
    if (!o->user) return usage_error("export", "--user is required");
    int rc = am_export_stream(db, o->user, write_stdout, NULL);
    if (rc) {
        fflush(stdout);
        return fail(db, rc);
    }
    if (putchar('\n') == EOF || fflush(stdout) != 0) {
        fprintf(stderr, "agentmem: export: cannot write the output\n");
        return 1;
    }
    return 0;
}

/* The whole of path ('-': stdin) in *out (malloc'ed), *len bytes. */
static int read_whole(const char *path, char **out, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    *out = NULL;
    *len = 0;
    if (!f) {
        fprintf(stderr, "agentmem import: cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    size_t cap = 0;
    char *p = NULL;
    for (;;) {
        if (*len == cap) {
            char *q = realloc(p, cap = cap ? cap * 2 : 1 << 16);
            if (!q) break;
            p = q;
        }
        size_t got = fread(p + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0) break;
    }
    int bad = ferror(f) || (p == NULL);
    if (f != stdin) fclose(f);
    if (bad) {
        fprintf(stderr, "agentmem import: cannot read %s\n", path);
        free(p);
        return 1;
    }
    *out = p;
    return 0;
}

static int cmd_import(am_db *db, const opts *o)
{
    if (!o->import_file || !*o->import_file)
        return usage_error("import", "FILE is required (an export, or - for stdin)");
    int mem0 = 0;
    if (o->from) {
        if (strcmp(o->from, "mem0") != 0) return usage_error("import", "--from: expected mem0");
        if (!o->user) return usage_error("import", "--from mem0 needs --user U");
        if (o->merge) return usage_error("import", "--from mem0 always merges: --merge is not taken");
        mem0 = 1;
    }
    char *doc;
    size_t len;
    if (read_whole(o->import_file, &doc, &len)) return 1;
    am_import_info info;
    am_progress bar;
    am_import_options io = {o->merge ? AM_IMPORT_MERGE : 0, am_progress_fn_adapter, &bar};
    am_progress_start(&bar, "import", mem0 ? "memories" : "entries", 0, o->quiet);
    int rc = mem0 ? am_import_mem0_ex(db, doc, len, o->user, &io, &info)
                  : am_import_ex(db, doc, len, o->user, &io, &info);
    am_progress_end(&bar);
    free(doc);
    if (rc) return fail(db, rc);
    if (o->json)
        return am_cli_json_print(json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "user",
                                           info.user_id, "events", (json_int_t)info.events,
                                           "memories", (json_int_t)info.memories, "tasks",
                                           (json_int_t)info.tasks, "events_skipped",
                                           (json_int_t)info.events_skipped, "memories_skipped",
                                           (json_int_t)info.memories_skipped, "tasks_skipped",
                                           (json_int_t)info.tasks_skipped));
    printf("imported into user %s: %ld %s, %ld %s, %ld %s", info.user_id, info.events,
           am_plural(info.events, "event", "events"), info.memories,
           am_plural(info.memories, "memory", "memories"), info.tasks,
           am_plural(info.tasks, "task", "tasks"));
    if (o->merge)
        printf(" (present already, skipped: %ld %s, %ld %s, %ld %s)", info.events_skipped,
               am_plural(info.events_skipped, "event", "events"), info.memories_skipped,
               am_plural(info.memories_skipped, "memory", "memories"), info.tasks_skipped,
               am_plural(info.tasks_skipped, "task", "tasks"));
    printf("\n");
    return 0;
}

/* pack apply FILE | list | remove NAME (docs/PACKS.md) */
static void pack_users_line(json_t *users, const char *verb)
{
    size_t i;
    json_t *u;
    json_array_foreach(users, i, u) {
        const char *outcome = json_string_value(json_object_get(u, "outcome"));
        json_int_t items = json_integer_value(json_object_get(u, "items"));
        printf("  %s: %s%s%" JSON_INTEGER_FORMAT " %s\n",
               json_string_value(json_object_get(u, "user")), outcome ? outcome : verb,
               outcome ? ", " : " ", items, am_plural(items, "item", "items"));
    }
}

static int cmd_pack(am_db *db, const opts *o)
{
    const char *sub = o->pack_sub;
    int rc;
    char *out = NULL;
    if (strcmp(sub, "apply") == 0) {
        if (!o->pack_arg) return usage_error("pack", "apply needs FILE (or - for stdin)");
        if (!o->user == !o->all_matching)
            return usage_error("pack", "apply needs --user U or --all-matching (one of them)");
        char *doc;
        size_t len;
        if (read_whole(o->pack_arg, &doc, &len)) return 1;
        rc = am_pack_apply(db, doc, len, o->user, &out);
        free(doc);
    } else if (o->all_matching) {
        return usage_error("pack", "--all-matching is an option of apply");
    } else if (strcmp(sub, "list") == 0) {
        if (o->pack_arg) return usage_error("pack", "list takes no argument");
        rc = am_pack_list(db, o->user, &out);
    } else {
        if (!o->pack_arg) return usage_error("pack", "remove needs the pack's NAME");
        rc = am_pack_remove(db, o->pack_arg, o->user, &out);
    }
    if (rc) return fail(db, rc);
    if (o->json) {
        printf("%s\n", out);
        am_free(out);
        return 0;
    }
    json_t *j = json_loads(out, 0, NULL);
    am_free(out);
    if (!j) return fail(db, AM_NOMEM);
    json_t *users = json_object_get(j, "users");
    if (strcmp(sub, "apply") == 0) {
        printf("pack %s@%s: %zu %s\n", json_string_value(json_object_get(j, "pack")),
               json_string_value(json_object_get(j, "version")), json_array_size(users),
               am_plural((long long)json_array_size(users), "user", "users"));
        pack_users_line(users, "applied");
    } else if (strcmp(sub, "remove") == 0) {
        printf("pack %s removed: %zu %s\n", json_string_value(json_object_get(j, "pack")),
               json_array_size(users), am_plural((long long)json_array_size(users), "user", "users"));
        pack_users_line(users, "removed");
    } else {
        size_t i;
        json_t *p, *packs = json_object_get(j, "packs");
        json_array_foreach(packs, i, p) {
            char *at = json_dumps(json_object_get(p, "applies_to"), JSON_COMPACT | JSON_SORT_KEYS);
            json_int_t rules = json_integer_value(json_object_get(p, "rules"));
            json_int_t n_users = json_integer_value(json_object_get(p, "users"));
            printf("%s@%s  applies_to %s  %" JSON_INTEGER_FORMAT " %s",
                   json_string_value(json_object_get(p, "name")),
                   json_string_value(json_object_get(p, "version")), at ? at : "{}", rules,
                   am_plural(rules, "rule", "rules"));
            if (o->user) printf("  applied %s\n", json_string_value(json_object_get(p, "applied_at")));
            else printf("  %" JSON_INTEGER_FORMAT " %s\n", n_users, am_plural(n_users, "user", "users"));
            free(at);
        }
        if (!json_array_size(packs)) printf("(no packs)\n");
    }
    json_decref(j);
    return 0;
}

static int cmd_archive(am_db *db, const opts *o)
{
    am_cli_archive_args a = {o->archive_sub, o->user, o->older_than, o->event, o->from, o->to,
                             o->json};
    return am_cli_archive(db, &a);
}

static int cmd_reembed(am_db *db, const opts *o)
{
    if (strcmp(am_embedder_id(db), "none") == 0) {
        fprintf(stderr, "agentmem reembed: no embedder is configured, or `auto` found no encoder\n"
                        "  (agentmem doctor says which): set AGENTMEM_EMBEDDER to use-lite[:DIR],\n"
                        "  w2v:PATH or openai:MODEL@URL\n"
                        "  (the key, if any, in AGENTMEM_EMBEDDER_KEY)\n");
        return 1;
    }
    am_progress bar;
    size_t n = 0;
    am_progress_start(&bar, "reembed", "events", 0, o->quiet);
    int rc = am_reembed(db, o->user, am_progress_fn_adapter, &bar, &n);
    am_progress_end(&bar);
    if (rc) {
        fail(db, rc);
        if (n)
            fprintf(stderr, "agentmem: %zu %s re-embedded before the error; run again to"
                            " continue\n", n, am_plural((long long)n, "event", "events"));
        return 1;
    }
    if (o->json) return am_cli_json_print(json_pack("{s:I}", "reembedded", (json_int_t)n));
    else printf("%zu %s re-embedded\n", n, am_plural((long long)n, "event", "events"));
    return 0;
}

static int cmd_distill(am_db *db, const opts *o)
{
    return am_cli_distill(db, o->user, o->since, o->llm, o->json);
}

static int cmd_workspace(am_db *db, const opts *o)
{
    const char *act = o->ws_action;
    if (!o->user || !o->task) return usage_error("workspace", "--user and --task are required");
    int rc;
    if (strcmp(act, "put") == 0) {
        if (!o->agent) return usage_error("workspace", "put needs --agent");
        if (!o->doing && !o->done && !o->next)
            return usage_error("workspace", "put needs --doing, --done or --next");
        long version;
        if ((rc = am_workspace_put(db, o->user, o->task, o->agent, o->doing, o->done, o->next,
                                   &version)))
            return fail(db, rc);
        if (o->json)
            return am_cli_json_print(json_pack("{s:s,s:s,s:I}", "task", o->task, "agent", o->agent,
                                               "version", (json_int_t)version));
        printf("workspace of task %s: entry of %s is version %ld\n", o->task, o->agent, version);
        return 0;
    }
    if (o->agent || o->doing || o->done || o->next)
        return usage_error("workspace", "get takes --user and --task only");
    am_workspace *w;
    if ((rc = am_workspace_get(db, o->user, o->task, &w))) return fail(db, rc);
    if (o->json) printf("%s\n", w->json);
    for (size_t i = 0; !o->json && i < w->n; i++) {
        const am_workspace_entry *e = &w->entries[i];
        char ts[32];
        char *who = am_text_plain(e->agent_id), *doing = am_text_plain(e->doing),
             *done = am_text_plain(e->done), *next = am_text_plain(e->next);
        printf("%s (v%ld, %s)\n  doing: %s\n  done:  %s\n  next:  %s\n", who ? who : "?", e->version,
               am_time_format(e->updated_at, 0, ts), doing ? doing : "?", done ? done : "?",
               next ? next : "?");
        am_free(who);
        am_free(doing);
        am_free(done);
        am_free(next);
    }
    if (!o->json && w->n == 0) printf("(no workspace entries)\n");
    am_workspace_free(w);
    return 0;
}

/* working set|get|list|clear: a session's working memory (am_working_*) */
static int cmd_working(am_db *db, const opts *o)
{
    const char *act = o->ws_action;
    if (!o->user || !o->session) return usage_error("working", "--user and --session are required");
    int set = strcmp(act, "set") == 0, rc;
    if (!set && (o->value || o->ttl)) return usage_error("working", "--value and --ttl are options of set");
    if ((set || strcmp(act, "get") == 0) && !o->key) return usage_error("working", "--key is required");
    if (strcmp(act, "list") == 0 && o->key) return usage_error("working", "list takes no --key");
    if (set) {
        char *end;
        long long ttl = o->ttl ? strtoll(o->ttl, &end, 10) : 0;
        if (!o->value || !o->ttl) return usage_error("working", "set needs --value and --ttl");
        if (end == o->ttl || *end || ttl < 1 || ttl > AM_WORKING_TTL_MAX_MS)
            return usage_error("working", "--ttl: expected milliseconds, 1 to 2592000000");
        if ((rc = am_working_set(db, o->user, o->session, o->key, o->value, (am_time)ttl)))
            return fail(db, rc);
        if (o->json)
            return am_cli_json_print(json_pack("{s:s,s:s,s:b}", "session", o->session, "key", o->key,
                                               "set", 1));
        printf("working memory of session %s: %s set\n", o->session, o->key);
        return 0;
    }
    if (strcmp(act, "clear") == 0) {
        if ((rc = am_working_clear(db, o->user, o->session, o->key))) return fail(db, rc);
        if (o->json)
            return am_cli_json_print(json_pack("{s:s,s:s?,s:b}", "session", o->session, "key", o->key,
                                               "cleared", 1));
        printf("working memory of session %s: %s cleared\n", o->session, o->key ? o->key : "every key");
        return 0;
    }
    if (strcmp(act, "get") == 0) {
        char *v;
        if ((rc = am_working_get(db, o->user, o->session, o->key, &v))) return fail(db, rc);
        if (o->json) rc = am_cli_json_print(json_pack("{s:s,s:s,s:s}", "session", o->session, "key", o->key,
                                                      "value", v));
        else {
            char *p = am_text_plain(v);
            printf("%s\n", p ? p : "?");
            am_free(p);
        }
        am_free(v);
        return rc;
    }
    am_working_entries *l;
    if ((rc = am_working_list(db, o->user, o->session, &l))) return fail(db, rc);
    if (o->json) printf("%s\n", l->json);
    for (size_t i = 0; !o->json && i < l->n; i++) {
        char ts[32];
        char *k = am_text_plain(l->entries[i].key), *v = am_text_plain(l->entries[i].value);
        printf("%s = %s (until %s)\n", k ? k : "?", v ? v : "?",
               am_time_format(l->entries[i].expires_at, 0, ts));
        am_free(k);
        am_free(v);
    }
    if (!o->json && l->n == 0) printf("(no working memory)\n");
    am_working_list_free(l);
    return 0;
}

/* cache: the shared cache's state (am_cache_state) */
static int cmd_cache(am_db *db, const opts *o)
{
    const char *err;
    const char *st = am_cache_state(db, &err);
    if (o->json) return am_cli_json_print(json_pack("{s:s,s:s}", "cache", st, "error", err));
    printf("cache: %s%s%s\n", st, *err ? ": " : "", err);
    return strcmp(st, "down") == 0 ? 1 : 0;
}

/* --role-allow RULE (repeatable) and --role-allow-file PATH: the rules
 * joined by ';' into o->role_allow, lines of the file that start with '#'
 * left out.  Returns 0, or 2 (message printed). */
static int role_allow_add(opts *o, const char *rule, int from_file)
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

/* token create | list | revoke ID */
static int cmd_token(am_db *db, const opts *o)
{
    const char *sub = o->token_sub;
    if (strcmp(sub, "create") == 0) {
        if (!o->user) return usage_error("token", "token create: --user is required");
        am_token_spec spec = {o->user, o->agent, o->role, o->admin};
        char *token = NULL, *id = NULL;
        int rc = am_token_create(db, &spec, &token, &id);
        if (rc) return fail(db, rc);
        printf("%s\n", token);
        fprintf(stderr, "token %s for user %s%s: keep it, it is not shown again\n", id, o->user,
                o->admin ? " (admin)" : "");
        am_free(token);
        am_free(id);
        return fflush(stdout) == 0 ? 0 : 1;
    }
    if (strcmp(sub, "list") == 0) {
        am_token_info *list;
        size_t n;
        int rc = am_token_list(db, o->user, &list, &n);
        if (rc) return fail(db, rc);
        json_t *arr = o->json ? json_array() : NULL;
        for (size_t i = 0; i < n && (!o->json || arr); i++) {
            const am_token_info *t = &list[i];
            char c[32], r[32];
            am_time_format(t->created_at, 0, c);
            if (t->revoked_at != AM_TIME_NONE) am_time_format(t->revoked_at, 0, r);
            if (o->json) {
                json_t *row = json_pack("{s:s, s:s, s:o, s:o, s:b, s:s, s:o}", "id", t->id, "user",
                                        t->user_id, "agent", am_shape_str(t->agent_id[0] ? t->agent_id : NULL),
                                        "role", am_shape_str(t->role[0] ? t->role : NULL), "admin",
                                        t->admin, "created", c, "revoked",
                                        am_shape_str(t->revoked_at != AM_TIME_NONE ? r : NULL));
                if (!row || json_array_append_new(arr, row)) {
                    json_decref(arr);
                    arr = NULL;
                }
            } else {
                char *u = am_text_plain(t->user_id);
                printf("%s user %s%s%s%s%s%s created %s%s%s\n", t->id, u ? u : "?",
                       t->agent_id[0] ? " agent " : "", t->agent_id, t->role[0] ? " role " : "",
                       t->role, t->admin ? " admin" : "", c,
                       t->revoked_at != AM_TIME_NONE ? " revoked " : "",
                       t->revoked_at != AM_TIME_NONE ? r : "");
                am_free(u);
            }
        }
        if (!o->json && n == 0) printf("(no tokens)\n");
        am_free(list);
        if (o->json) return am_cli_json_print(arr ? json_pack("{s:o}", "tokens", arr) : NULL);
        return 0;
    }
    if (strcmp(sub, "revoke") == 0) {
        if (!o->id) return usage_error("token", "token revoke: the token's ID is required");
        int rc = am_token_revoke(db, o->id);
        if (rc) return fail(db, rc);
        printf("revoked %s\n", o->id);
        return 0;
    }
    return usage_error("token", "expected create, list or revoke");
}

/* serve: the HTTP server (tools/server) on handles opened like this one */
static int cmd_serve(am_db *db, const opts *o)
{
    am_server_opts so;
    am_server_opts_init(&so);
    if (o->listen) so.listen = o->listen;
    const struct {
        const char *flag, *v;
        long max;
        long *out;
    } nums[] = {{"--threads", o->threads, 64, &so.threads},
                {"--max-body", o->max_body, 1L << 30, &so.max_body},
                {"--max-conns-per-ip", o->max_conns_per_ip, 1024, &so.max_conns_per_ip},
                {"--header-timeout", o->header_timeout, 3600, &so.header_timeout_s},
                {"--timeout", o->timeout, 3600, &so.timeout_s},
                {"--llm-batch", o->llm_batch, 200, &so.llm_batch},
                {"--llm-wait", o->llm_wait, 86400, &so.llm_wait_s},
                {"--llm-queue", o->llm_queue, 1000000, &so.llm_queue}};
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
        if (!nums[i].v) continue;
        char *end;
        long v = strtol(nums[i].v, &end, 10);
        if (end == nums[i].v || *end || v < 1 || v > nums[i].max) {
            char msg[128];
            snprintf(msg, sizeof msg, "%s: expected a number from 1 to %ld", nums[i].flag,
                     nums[i].max);
            return usage_error("serve", msg);
        }
        *nums[i].out = v;
    }
    so.db_path = o->db;
    if ((o->llm_batch || o->llm_wait || o->llm_queue) && !o->cfg->llm)
        return usage_error("serve", "--llm-batch, --llm-wait and --llm-queue need AGENTMEM_LLM"
                                    " (docs/LLM.md)");
    const char *t = getenv("AGENTMEM_LLM_TIMEOUT_MS"); /* one request; default 30000 */
    if (o->cfg->llm && t && *t) {
        char *end;
        so.llm_timeout_ms = strtol(t, &end, 10);
        if (end == t || *end || so.llm_timeout_ms < 1 || so.llm_timeout_ms > 3600000) {
            fprintf(stderr, "agentmem: AGENTMEM_LLM_TIMEOUT_MS: \"%.20s\" is not 1 to 3600000\n", t);
            return 2;
        }
    }
    /* webhooks: the URLs joined by commas, the secret from its file (the
     * first line; never on the command line, where ps shows it) */
    char urls[16 * 2048], secret[1024];
    size_t used = 0;
    for (int i = 0; i < o->n_webhook; i++) {
        size_t n = strlen(o->webhook[i]);
        if (n == 0 || n >= 2048 || strpbrk(o->webhook[i], ", \t\r\n"))
            return usage_error("serve", "--webhook: a URL of 1 to 2047 bytes without blanks or commas");
        memcpy(urls + used, o->webhook[i], n);
        used += n;
        urls[used++] = i + 1 < o->n_webhook ? ',' : '\0';
    }
    if (!o->n_webhook != !o->webhook_secret_file)
        return usage_error("serve", "--webhook and --webhook-secret-file go together");
    if (o->n_webhook) {
        FILE *f = fopen(o->webhook_secret_file, "r");
        int ok = f && fgets(secret, sizeof secret, f);
        if (f) fclose(f);
        secret[ok ? strcspn(secret, "\r\n") : 0] = '\0';
        if (!secret[0]) {
            fprintf(stderr, "agentmem serve: --webhook-secret-file %s: cannot read a secret"
                            " (its first line)\n", o->webhook_secret_file);
            return 2;
        }
        so.webhooks = urls;
        so.webhook_secret = secret;
    }
    so.cache_url = o->cache;
    so.obs = o->obs;
    if (o->maintain_every) {
        /* DURATION: a number and a unit (s, m, h, d); 0: off */
        char *end;
        double v = strtod(o->maintain_every, &end);
        double unit = strcmp(end, "s") == 0 ? 1e3 : strcmp(end, "m") == 0 ? 6e4
                      : strcmp(end, "h") == 0 ? 3.6e6 : strcmp(end, "d") == 0 ? 8.64e7
                      : strcmp(o->maintain_every, "0") == 0 ? 1 : -1;
        if (end == o->maintain_every || unit < 0 || !(v >= 0) || v * unit > 30 * 8.64e7 ||
            (v > 0 && v * unit < 1000))
            return usage_error("serve", "--maintain-every: a duration from 1s to 30d (10m, 1h, "
                                        "30s, 1d), or 0: off");
        so.maintain_every_ms = (long)(v * unit);
    }
    so.reuse_port = o->reuse_port;
    so.mcp_origins = o->mcp_origin;
    so.n_mcp_origins = (size_t)o->n_mcp_origin;
    int rc = am_server_run(db, o->cfg, &so);
    memset(secret, 0, sizeof secret);
    return rc;
}

int am_cli_demo(int argc, char **argv); /* demo.c */

/* profile --user U [--budget N] [--json] */
static int cmd_profile(am_db *db, const opts *o)
{
    if (!o->user) return usage_error("profile", "--user is required");
    return am_cli_profile(db, o->user, o->budget, o->json);
}

/* report corrections [--since ISO] [--until ISO] [--user U] [--period P] [--json] */
static int cmd_report(am_db *db, const opts *o)
{
    am_report_query q = {0};
    q.user_id = o->user;
    q.since = o->since;
    q.until = o->until;
    if ((q.period = am_cli_report_period(o->period)) < 0)
        return usage_error("report", "--period: expected day, week or month");
    return am_cli_report(db, &q, o->json);
}

int main(int argc, char **argv)
{
    opts o;
    memset(&o, 0, sizeof o);
    char db_buf[4096];
    const char *db_from;
    o.db = am_cli_default_db(db_buf, sizeof db_buf, &db_from) ? NULL : db_buf;
    o.cache = getenv("AGENTMEM_CACHE");
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        if ((strcmp(argv[i], "--db") == 0 || strcmp(argv[i], "--store") == 0) && i + 1 < argc) {
            o.db = argv[i + 1];
            db_from = "--db";
            i += 2;
        } else if (strcmp(argv[i], "--cache") == 0 && i + 1 < argc) {
            /* also for scenario and bench, which open their own stores */
            o.cache = argv[i + 1];
            setenv("AGENTMEM_CACHE", o.cache, 1);
            i += 2;
        } else if (strcmp(argv[i], "--embedder") == 0 && i + 1 < argc) {
            setenv("AGENTMEM_EMBEDDER", argv[i + 1], 1); /* for every store opened */
            i += 2;
        } else if (strcmp(argv[i], "--vault-key-file") == 0 && i + 1 < argc) {
            o.vault_key_file = argv[i + 1];
            i += 2;
        } else if ((strcmp(argv[i], "--log") == 0 || strcmp(argv[i], "--log-format") == 0 ||
                    strcmp(argv[i], "--log-level") == 0) && i + 1 < argc) {
            const char **v = argv[i][5] == '\0' ? &o.log_file
                             : argv[i][6] == 'f' ? &o.log_format : &o.log_level;
            *v = argv[i + 1];
            i += 2;
        } else if (strcmp(argv[i], "--log-content") == 0) {
            o.log_content = 1;
            i++;
        } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
            o.quiet = 1; /* also after the command */
            i++;
        } else if ((strcmp(argv[i], "--role-allow") == 0 ||
                    strcmp(argv[i], "--role-allow-file") == 0) && i + 1 < argc) {
            if (role_allow_add(&o, argv[i + 1], argv[i][12] == '-')) {
                free(o.role_allow);
                return 2;
            }
            i += 2;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage_main(stdout);
            return 0;
        } else if (strcmp(argv[i], "--version") == 0) {
            printf("agentmem %s\n", AM_VERSION_STRING);
            return 0;
        } else {
            fprintf(stderr, "agentmem: unknown option %s\n", argv[i]);
            usage_main(stderr);
            return 2;
        }
    }
    if (i >= argc) {
        usage_main(stderr);
        return 2;
    }
    const char *cmd = argv[i];
    int cargc = argc - i;
    char **cargv = argv + i;
    if (strcmp(cmd, "scenario") == 0) return am_cli_scenario(cargc, cargv);
    if (strcmp(cmd, "bench") == 0 && cargc > 1 && strcmp(cargv[1], "serve") == 0)
        return am_server_load(cargc - 1, cargv + 1); /* the server's load (tools/server) */
    if (strcmp(cmd, "bench") == 0) return am_cli_bench(cargc, cargv, o.quiet);
    if (strcmp(cmd, "help") == 0) return print_help(cargc > 1 ? cargv[1] : "");
    for (int k = 1; k < cargc; k++)
        if (strcmp(cargv[k], "--help") == 0 || strcmp(cargv[k], "-h") == 0) return print_help(cmd);
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
        if (cargc < 2 || cargv[1][0] == '-') return usage_error("token", "expected create, list or revoke");
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
        int (*fn)(am_db *, const opts *);
    } cmds[] = {
        {"add", cmd_add}, {"recall", cmd_recall}, {"task", cmd_task},
        {"memories", cmd_memories}, {"feedback", cmd_feedback}, {"forget", cmd_forget},
        {"link", cmd_link}, {"unlink", cmd_unlink}, {"export", cmd_export}, {"reembed", cmd_reembed},
        {"optimize", cmd_optimize}, {"maintain", cmd_maintain}, {"restore", cmd_restore}, {"mcp", cmd_mcp},
        {"workspace", cmd_workspace}, {"token", cmd_token}, {"serve", cmd_serve},
        {"working", cmd_working}, {"cache", cmd_cache}, {"memory", cmd_memory},
        {"import", cmd_import}, {"profile", cmd_profile}, {"report", cmd_report},
        {"distill", cmd_distill}, {"pack", cmd_pack}, {"archive", cmd_archive},
        {"init", NULL},
    };
    size_t k;
    for (k = 0; k < sizeof cmds / sizeof *cmds; k++)
        if (strcmp(cmd, cmds[k].name) == 0) break;
    if (k == sizeof cmds / sizeof *cmds) {
        fprintf(stderr, "agentmem: unknown command %s\n", cmd);
        usage_main(stderr);
        return 2;
    }
    if (strcmp(cmd, "workspace") == 0 || strcmp(cmd, "working") == 0) { /* SUB OPTIONS */
        int ws = cmd[4] == 's';
        const char *sub = cargc >= 2 ? cargv[1] : "";
        int ok = ws ? strcmp(sub, "get") == 0 || strcmp(sub, "put") == 0
                    : strcmp(sub, "set") == 0 || strcmp(sub, "get") == 0 ||
                          strcmp(sub, "list") == 0 || strcmp(sub, "clear") == 0;
        if (!ok) {
            free(o.role_allow);
            return usage_error(cmd, ws ? "expected get or put" : "expected set, get, list or clear");
        }
        o.ws_action = cargv[1];
        cargc--;
        cargv++;
    }
    if (strcmp(cmd, "report") == 0) { /* report corrections [--flags] */
        if (cargc < 2 || strcmp(cargv[1], "corrections") != 0) {
            free(o.role_allow);
            return usage_error(cmd, "expected corrections");
        }
        o.report_sub = cargv[1];
        cargc--;
        cargv++;
    }
    if (strcmp(cmd, "pack") == 0) { /* pack SUB [FILE|NAME] [--flags] */
        const char *sub = cargc >= 2 ? cargv[1] : "";
        if (strcmp(sub, "apply") != 0 && strcmp(sub, "list") != 0 && strcmp(sub, "remove") != 0) {
            free(o.role_allow);
            return usage_error(cmd, "expected apply, list or remove");
        }
        o.pack_sub = sub;
        cargc--;
        cargv++;
        if (cargc >= 2 && (cargv[1][0] != '-' || strcmp(cargv[1], "-") == 0)) {
            o.pack_arg = cargv[1];
            cargc--;
            cargv++;
        }
    }
    if (strcmp(cmd, "archive") == 0) { /* archive SUB [--flags] */
        const char *sub = cargc >= 2 ? cargv[1] : "";
        if (strcmp(sub, "events") != 0 && strcmp(sub, "restore") != 0) {
            free(o.role_allow);
            return usage_error(cmd, "expected events or restore");
        }
        o.archive_sub = sub;
        cargc--;
        cargv++;
    }
    if (strcmp(cmd, "memory") == 0) { /* memory SUB [ID] [--flags] */
        const char *sub = cargc >= 2 ? cargv[1] : "";
        if (strcmp(sub, "get") != 0 && strcmp(sub, "add") != 0 && strcmp(sub, "update") != 0 &&
            strcmp(sub, "delete") != 0) {
            free(o.role_allow);
            return usage_error(cmd, "expected get, add, update or delete");
        }
        o.mem_sub = sub;
        cargc--;
        cargv++;
        if (cargc >= 2 && cargv[1][0] != '-') {
            o.id = cargv[1];
            cargc--;
            cargv++;
        }
    }
    if (!o.role_allow && getenv("AGENTMEM_ROLE_ALLOW") && role_allow_add(&o, getenv("AGENTMEM_ROLE_ALLOW"), 0))
        return 2;
    int rc = parse_opts(cmd, cargc, cargv, &o);
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
        if (strcmp(cmd, "forget") != 0) return usage_error(cmd, "--grace is an option of forget");
        if (end == o.grace || *end || v < 0 || v > 3153600000LL)
            return usage_error(cmd, "--grace: expected whole seconds, 0 to 3153600000");
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
