/* SPDX-License-Identifier: Apache-2.0 */
/*
 * help.c -- the CLI's help texts: `agentmem --help`, `agentmem help CMD`,
 * `agentmem CMD --help`, and the usage error that names the command and
 * prints its help on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void am_cli_usage_main(FILE *f)
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

int am_cli_print_help(const char *cmd)
{
    for (size_t i = 0; i < sizeof helps / sizeof *helps; i++)
        if (strcmp(helps[i].cmd, cmd) == 0) {
            fputs(helps[i].text, stdout);
            return 0;
        }
    am_cli_usage_main(stdout);
    return 0;
}

int am_cli_usage_error(const char *cmd, const char *msg)
{
    fprintf(stderr, "agentmem %s: %s\n", cmd, msg);
    for (size_t i = 0; i < sizeof helps / sizeof *helps; i++)
        if (strcmp(helps[i].cmd, cmd) == 0) fputs(helps[i].text, stderr);
    return 2;
}
