#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One conformance suite against every store: a throwaway
# PostgreSQL server (initdb + pg_ctl in a temporary directory, a free
# loopback port and a socket there, stopped and removed on exit) and the
# embedded SQLite file get
#   - every scenario file (tests/scenarios/*.jsonl) through
#     `agentmem scenario run --store URL`, a fresh database per file: each
#     must pass on PostgreSQL, and its --dump (every recall's rendered
#     block, memories, events, scores) must equal the SQLite run's;
#   - the store-level suite (tests/unit/test_store_conformance.c: random
#     operations checked for isolation, the two stores' transcripts
#     compared, forgetting reaching every table, bitemporal as-of);
#   - the CLI's --store URL (add, recall, memories, forget) and the store's
#     refusals (a database that is not an agentmem store, a newer schema);
#   - with redis-server installed, every scenario file once more on
#     PostgreSQL with `--cache redis://...` (a throwaway redis-server of its
#     own): the same results and dumps (tests/sh/redis_cache.sh does the
#     same on SQLite).
# Skips (exit 77, "SKIP: no PostgreSQL") only when the server binaries are
# not installed (scripts/install-deps.sh installs them).
# $1 = the agentmem CLI; $AM_CONFORMANCE_TEST = the store-level test binary.
set -u
CLI=${1:?usage: store_conformance.sh AGENTMEM}
CLI=$(cd "$(dirname "$CLI")" && pwd)/$(basename "$CLI")
cd "$(dirname "$0")/../.."
TEST_BIN=${AM_CONFORMANCE_TEST:-build/cmake/test_store_conformance}

. tests/sh/lib/pg.bash
pg_find || exit 77
pg_init am-pgconf || exit 1
mkdir -p "$TMP/out"
RPID=""
conf_cleanup() {
  if [ -n "$RPID" ]; then kill -9 "$RPID" 2>/dev/null; wait "$RPID" 2>/dev/null; fi
  pg_cleanup
}
trap conf_cleanup EXIT

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

if ! pg_start; then echo "FAIL: the server did not start"; exit 1; fi
echo "PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT ($TMP)"

newdb() { pg_new_db "$@"; }

# ---------------------------------------------------------------- scenarios
CACHE=""
if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then
  # a random free port: another test's server may hold the first one tried
  for try in 1 2 3 4 5 6 7 8; do
    RPORT=$(( 20000 + (RANDOM * 11 + $$ + try * 131) % 40000 ))
    redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
      --dir "$TMP" >"$TMP/redis.log" 2>&1 & RPID=$!
    for _ in $(seq 1 100); do
      redis-cli -p "$RPORT" ping 2>/dev/null | grep -q PONG && break
      kill -0 "$RPID" 2>/dev/null || break
      sleep 0.05
    done
    # PONG from our own server, not from one that already held the port
    if redis-cli -p "$RPORT" ping 2>/dev/null | grep -q PONG && sleep 0.1 && kill -0 "$RPID" 2>/dev/null; then
      CACHE="redis://127.0.0.1:$RPORT/0"
      break
    fi
    kill -9 "$RPID" 2>/dev/null; wait "$RPID" 2>/dev/null; RPID=""
  done
  [ -n "$CACHE" ] || { cat "$TMP/redis.log"; fail "redis-server did not start"; }
fi
files=0
for f in tests/scenarios/*.jsonl; do
  files=$((files + 1))
  b=$(basename "$f" .jsonl)
  newdb || { fail "createdb for $b"; continue; }
  if ! "$CLI" scenario run --store "$URL" --dump "$TMP/out/$b.pg" "$f" >"$TMP/out/$b.pg.log" 2>&1; then
    fail "scenario $b on PostgreSQL:"; grep -E "FAIL|rror" "$TMP/out/$b.pg.log" | head -5
  fi
  "$CLI" scenario run --store "sqlite:$TMP/out/$b.db" --dump "$TMP/out/$b.sq" "$f" >"$TMP/out/$b.sq.log" 2>&1 \
    || fail "scenario $b on SQLite"
  if ! cmp -s "$TMP/out/$b.pg" "$TMP/out/$b.sq"; then
    fail "scenario $b: the recall outputs differ between PostgreSQL and SQLite"
    diff "$TMP/out/$b.sq" "$TMP/out/$b.pg" | head -6
  fi
  pg_res=$(tail -1 "$TMP/out/$b.pg.log"); sq_res=$(tail -1 "$TMP/out/$b.sq.log")
  [ "$pg_res" = "$sq_res" ] || fail "scenario $b: PostgreSQL '$pg_res', SQLite '$sq_res'"
  [ -n "$CACHE" ] || continue
  newdb || { fail "createdb for $b (cache)"; continue; }
  "$CLI" scenario run --store "$URL" --cache "$CACHE" --dump "$TMP/out/$b.pgc" "$f" >"$TMP/out/$b.pgc.log" 2>&1 ||
    fail "scenario $b on PostgreSQL with the cache"
  cmp -s "$TMP/out/$b.pgc" "$TMP/out/$b.sq" && [ "$(tail -1 "$TMP/out/$b.pgc.log")" = "$sq_res" ] ||
    fail "scenario $b: PostgreSQL with the cache differs from SQLite"
done
[ -z "$CACHE" ] || echo "scenarios: also on PostgreSQL with the cache ($CACHE)"
[ "$files" -gt 0 ] || fail "no scenario files"
echo "scenarios: $files files on PostgreSQL and SQLite"

# ---------------------------------------------------------------- the store-level suite
if [ -x "$TEST_BIN" ]; then
  newdb tcp; u1=$URL; newdb tcp; u2=$URL
  if ! AM_PG_URL="$u1" AM_PG_URL2="$u2" "$TEST_BIN" >"$TMP/out/unit.log" 2>&1; then
    fail "store-level suite:"; tail -20 "$TMP/out/unit.log"
  fi
  grep -q "transcripts equal" "$TMP/out/unit.log" || fail "store-level suite: no comparison ran"
  grep "store conformance" "$TMP/out/unit.log"
else
  fail "store-level test binary $TEST_BIN not found"
fi

# ---------------------------------------------------------------- the CLI by URL
newdb tcp; url=$URL; store_db=$DB
"$CLI" --store "$url" init >/dev/null || fail "init --store URL"
"$CLI" --store "$url" add --user ana --text "My dentist appointment is on Friday" --at 2026-03-02T09:00:00Z >/dev/null \
  || fail "add --store URL"
"$CLI" --store "$url" add --user 李雷 --text "我女儿下周三开始上游泳课" --at 2026-03-02T10:00:00+08:00 >/dev/null \
  || fail "add (zh) --store URL"
out=$("$CLI" --store "$url" recall --user ana --text "when is the dentist?" --at 2026-03-03T09:00:00Z 2>&1)
echo "$out" | grep -q "dentist" || fail "recall --store URL: $out"
out=$("$CLI" --store "$url" recall --user 李雷 --text "女儿什么时候上游泳课" --at 2026-03-03T09:00:00+08:00 2>&1)
echo "$out" | grep -q "游泳" || fail "recall (zh) --store URL: $out"
# isolation: ana's memory never reaches 李雷
out=$("$CLI" --store "$url" recall --user 李雷 --text "dentist appointment" --at 2026-03-03T09:00:00Z 2>&1)
echo "$out" | grep -q "dentist" && fail "recall crossed users: $out"
# forget of a user: nothing of it is recalled, and no table holds its id
"$CLI" --store "$url" forget --user ana --level user >/dev/null || fail "forget --level user"
out=$("$CLI" --store "$url" recall --user ana --text "dentist" --at 2026-03-03T09:00:00Z 2>&1)
echo "$out" | grep -q "dentist" && fail "a forgotten user still recalled: $out"
if [ -x "$PGBIN/psql" ]; then
  tables=$(psql_in "$store_db" "SELECT c.relname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
     WHERE a.attname = 'user_id' AND c.relkind = 'p' AND c.relnamespace = 'public'::regnamespace")
  [ -n "$tables" ] || fail "no partitioned table found"
  for t in $tables; do
    k=$(psql_in "$store_db" "SELECT count(*) FROM $t WHERE user_id = 'ana'")
    [ "$k" = 0 ] || fail "forgotten user: $k rows left in $t"
  done
  for t in identity_links records; do
    k=$(psql_in "$store_db" "SELECT count(*) FROM $t WHERE user_id = 'ana'")
    [ "$k" = 0 ] || fail "forgotten user: $k rows left in $t"
  done
  # the user's tables are partitioned by hash of the user
  parts=$(psql_in "$store_db" "SELECT count(*) FROM pg_partitioned_table p WHERE p.partstrat = 'h'")
  [ "${parts:-0}" -ge 16 ] || fail "expected 16 tables partitioned by hash of the user, got $parts"
  # a database with tables of its own is not taken for a store
  newdb tcp
  psql_in "$DB" "CREATE TABLE notes(x int)"
  out=$("$CLI" --store "$URL" add --user x --text hi 2>&1) && fail "a database that is not a store was written"
  echo "$out" | grep -q "not an agentmem store" || fail "expected 'not an agentmem store': $out"
  [ "$(psql_in "$DB" "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")" = 1 ] \
    || fail "the foreign database was changed"
  # a store of a newer schema is refused, not written
  psql_in "$store_db" "UPDATE meta SET value = '99' WHERE key = 'schema_version'"
  out=$("$CLI" --store "$url" add --user x --text hi 2>&1) && fail "a newer store was written"
  echo "$out" | grep -q "newer than this agentmem" || fail "expected a newer-schema refusal: $out"
fi
# two processes writing the same user at once: every line lands, once (one
# event = one transaction; the writers queue on the store's write lock)
newdb tcp; url2=$URL
url2_db=$DB
"$CLI" --store "$url2" init >/dev/null
for p in a b; do
  for i in $(seq 1 40); do
    # notes of the day, not lasting statements: no memory item holds them
    printf '{"user":"shared","session":"%s","text":"process %s line %d: 今天的会议 meeting note %d","at":"2026-03-0%dT1%d:00:00Z"}\n' \
      "$p" "$p" "$i" "$i" $((i % 9 + 1)) $((i % 10))
  done >"$TMP/out/batch_$p.jsonl"
done
"$CLI" --store "$url2" add --batch "$TMP/out/batch_a.jsonl" >"$TMP/out/batch_a.log" 2>&1 & pa=$!
"$CLI" --store "$url2" add --batch "$TMP/out/batch_b.jsonl" >"$TMP/out/batch_b.log" 2>&1 & pb=$!
wait $pa || fail "concurrent batch a: $(tail -2 "$TMP/out/batch_a.log")"
wait $pb || fail "concurrent batch b: $(tail -2 "$TMP/out/batch_b.log")"
events=$("$CLI" --store "$url2" export --user shared | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["events"]))')
[ "$events" = 80 ] || fail "concurrent writers: $events events of 80"
# a channel identity with its own history, linked late with --merge: its
# history becomes the master user's
"$CLI" --store "$url2" add --channel tg --external-id 4711 --text "我的车牌号是京A12345, my car is a red Volvo" \
  --at 2026-03-10T08:00:00Z >/dev/null || fail "add by channel identity"
"$CLI" --store "$url2" link --channel tg --external-id 4711 --user shared --merge >/dev/null 2>&1 \
  || fail "link --merge on PostgreSQL"
out=$("$CLI" --store "$url2" recall --user shared --text "what car do I drive?" --at 2026-03-11T08:00:00Z 2>&1)
echo "$out" | grep -q "Volvo" || fail "merged history not recalled: $out"
events=$("$CLI" --store "$url2" export --user shared | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["events"]))')
[ "$events" = 81 ] || fail "after the merge: $events events of 81"
# a forget with a grace period (session a: 40 events, Chinese and English):
# gone from export and recall, held apart (held_* tables only), restored whole
out=$("$CLI" --store "$url2" forget --user shared --level session --id a --grace 600 2>&1) \
  || fail "forget --grace on PostgreSQL: $out"
exp=$("$CLI" --store "$url2" export --user shared)
echo "$exp" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["events"]) == 41, len(d["events"]); h=d["held"]; assert len(h) == 1 and h[0]["level"] == "session" and h[0]["id"] == "a", h' \
  || fail "export during the grace period: $(echo "$exp" | head -c 300)"
out=$("$CLI" --store "$url2" recall --user shared --text "process a line 7 会议" --at 2026-03-11T08:00:00Z 2>&1)
echo "$out" | grep -q "process a line" && fail "a held session still recalled: $out"
if [ -x "$PGBIN/psql" ]; then
  live=$(psql_in "$url2_db" "SELECT count(*) FROM events WHERE content LIKE 'process a line%'")
  held=$(psql_in "$url2_db" "SELECT count(*) FROM held_events WHERE content LIKE 'process a line%'")
  [ "$live:$held" = "0:40" ] || fail "held session: $live events left, $held held (want 0:40)"
fi
"$CLI" --store "$url2" restore --user shared --level session --id a >/dev/null || fail "restore --level session"
events=$("$CLI" --store "$url2" export --user shared | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["events"]), "held" in d)')
[ "$events" = "81 False" ] || fail "after restore: $events (want 81 events, nothing held)"
out=$("$CLI" --store "$url2" recall --user shared --text "process a line 7 会议" --at 2026-03-11T08:00:00Z 2>&1)
echo "$out" | grep -q "process a line" || fail "a restored session not recalled: $out"
if [ -x "$PGBIN/psql" ]; then
  held=$(psql_in "$url2_db" "SELECT count(*) FROM held_events")
  [ "$held" = 0 ] || fail "after restore: $held held events left"
fi
out=$("$CLI" --store "$url2" restore --user shared --level session --id a 2>&1) && fail "restored twice: $out"
"$CLI" --store "$url2" forget --user shared --level session --id a >/dev/null || fail "forget --level session"
events=$("$CLI" --store "$url2" export --user shared | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["events"]))')
[ "$events" = 41 ] || fail "forget of a session: $events events left of 41"

# a store of schema version 1 (before the held tables and the vault's
# value hashes: made here, then
# taken back to version 1 as the first release left it) upgrades on open
if [ -x "$PGBIN/psql" ]; then
  newdb tcp; up=$URL; up_db=$DB
  "$CLI" --store "$up" add --user 王芳 --session s1 --text "我的车牌号是京A12345 and my car is a red Volvo" \
    --at 2026-03-10T08:00:00Z >/dev/null || fail "add (upgrade)"
  "$CLI" --store "$up" add --user 王芳 --session s2 --text "I like green tea 我喜欢绿茶" \
    --at 2026-03-10T09:00:00Z >/dev/null || fail "add (upgrade)"
  psql_in "$up_db" "DO \$\$ DECLARE t text; BEGIN FOR t IN SELECT relname FROM pg_class
      WHERE relname LIKE 'held\\_%' AND relkind = 'p' LOOP EXECUTE 'DROP TABLE ' || t; END LOOP; END \$\$;
      ALTER TABLE pii_vault DROP COLUMN canon_hash; DELETE FROM meta WHERE key = 'pii_key';
      UPDATE memory_events e SET key = (SELECT m.key FROM memory_items m WHERE m.user_id = e.user_id
        AND m.lineage_id = e.memory_id LIMIT 1) WHERE key IS NOT NULL;
      UPDATE memory_events SET type = 'memory.updated.' || key WHERE type LIKE 'memory.updated.%';
      UPDATE meta SET value = '1' WHERE key = 'schema_version'" || fail "the store taken back to version 1"
  keyed=$(psql_in "$up_db" "SELECT count(*) FROM memory_events e JOIN memory_items m
      ON m.user_id = e.user_id AND m.key = e.key")
  [ "$keyed" -ge 1 ] || fail "version 1 store: no outbox row with a clear key ($keyed)"
  [ "$(psql_in "$up_db" "SELECT count(*) FROM pg_class WHERE relname LIKE 'held%'")" = 0 ] \
    || fail "version 1 store still has held tables"
  out=$("$CLI" --store "$up" forget --user 王芳 --level session --id s1 --grace 600 2>&1) \
    || fail "forget --grace on an upgraded store: $out"
  [ "$(psql_in "$up_db" "SELECT value FROM meta WHERE key = 'schema_version'")" = 8 ] \
    || fail "the store was not upgraded to version 8"
  # v3: the outbox names keys by their opaque ids (docs/EVENTS.md)
  [ "$(psql_in "$up_db" "SELECT count(*) FROM memory_events WHERE key IS NOT NULL
      AND (key !~ '^k[0-9a-f]{16}$' OR type LIKE 'memory.updated.%' AND type <> 'memory.updated.' || key)")" = 0 ] \
    || fail "the outbox's keys were not converted by the upgrade"
  parts=$(psql_in "$up_db" "SELECT count(*) FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
      WHERE p.relname LIKE 'held\\_%' AND p.relkind = 'p'")
  [ "$parts" = 176 ] || fail "held tables: $parts partitions (want 11 x 16)"
  [ "$(psql_in "$up_db" "SELECT count(*) FROM meta WHERE key = 'pii_key'")" = 1 ] || fail "no pii_key after the upgrade"
  out=$("$CLI" --store "$up" recall --user 王芳 --text "what car do I drive?" --at 2026-03-11T08:00:00Z 2>&1)
  echo "$out" | grep -q "Volvo" && fail "a held session recalled on the upgraded store: $out"
  "$CLI" --store "$up" restore --user 王芳 --level session --id s1 >/dev/null || fail "restore (upgraded)"
  out=$("$CLI" --store "$up" recall --user 王芳 --text "what car do I drive?" --at 2026-03-11T08:00:00Z 2>&1)
  echo "$out" | grep -q "Volvo" || fail "restored session not recalled on the upgraded store: $out"
fi

# the server on the PostgreSQL store: /healthz names it, a write and a recall
# (Chinese and English) through HTTP land in the database
if command -v curl >/dev/null 2>&1; then
  . tests/sh/lib/serve.bash
  tok=$("$CLI" --store "$url2" token create --user 王芳 2>/dev/null)
  if serve_start "$url2" "$TMP/out/serve"; then
    h=$(curl -s "$url/healthz"); echo "$h" | grep -q '"store": *"postgres"' || fail "/healthz: $h"
    code=$(curl -s -o "$TMP/out/w1" -w '%{http_code}' -H "Authorization: Bearer $tok" \
      --data-binary '{"text":"我下周二去上海出差 and I fly on Tuesday","at":"2026-04-06T09:00:00+08:00"}' "$url/v1/events")
    [ "$code" = 200 ] || fail "POST /v1/events on PostgreSQL: $code $(cat "$TMP/out/w1")"
    code=$(curl -s -o "$TMP/out/r1" -w '%{http_code}' -H "Authorization: Bearer $tok" \
      --data-binary '{"query":"我什么时候去上海？"}' "$url/v1/recall")
    [ "$code" = 200 ] && grep -q "上海" "$TMP/out/r1" || fail "POST /v1/recall on PostgreSQL: $code $(head -c 300 "$TMP/out/r1")"
    serve_stop
  else
    fail "serve --store postgres://: $(tail -3 "$TMP/out/serve.err")"
  fi
fi
# a store of version 7 (API tokens, rule packs and the maintenance cursor
# in their own tables, made here from a new store's records) upgrades on
# open: every token and pack listed as before, the cursor moved, the old
# tables gone
if [ -x "$PGBIN/psql" ]; then
  newdb tcp; v7=$URL; v7_db=$DB
  "$CLI" --store "$v7" add --user 李雷 --text "我喜欢绿茶 and green tea" >/dev/null || fail "add (v7)"
  "$CLI" --store "$v7" token create --user 李雷 --agent planner --role reader >/dev/null 2>&1 || fail "token create (v7)"
  "$CLI" --store "$v7" token create --user ana --admin >/dev/null 2>&1 || fail "token create (v7)"
  rid=$("$CLI" --store "$v7" token list --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["tokens"][1]["id"])')
  "$CLI" --store "$v7" token revoke "$rid" >/dev/null || fail "token revoke (v7)"
  "$CLI" --store "$v7" pack apply packs/examples/customer_service_zh.json --user 李雷 >/dev/null || fail "pack apply (v7)"
  tokens_before=$("$CLI" --store "$v7" token list --json)
  packs_before=$("$CLI" --store "$v7" pack list --user 李雷 --json)
  psql_in "$v7_db" "CREATE TABLE api_tokens(id text COLLATE \"C\" PRIMARY KEY, lookup text NOT NULL,
      hash bytea NOT NULL, user_id text NOT NULL, agent_id text, role text, admin integer NOT NULL DEFAULT 0,
      created_at bigint NOT NULL, revoked_at bigint);
    INSERT INTO api_tokens SELECT v->>'id', v->>'lookup', decode(v->>'hash', 'hex'), user_id, v->>'agent_id',
      v->>'role', (v->>'admin')::int, (v->>'created_at')::bigint, (v->>'revoked_at')::bigint
      FROM (SELECT user_id, value::json AS v FROM records WHERE ns = 'token') x;
    CREATE TABLE user_packs(user_id text NOT NULL, name text NOT NULL, version text NOT NULL, json text NOT NULL,
      n_rules bigint NOT NULL, applied_at bigint NOT NULL, PRIMARY KEY(user_id, name));
    INSERT INTO user_packs SELECT user_id, key, v->>'version', v->>'json', (v->>'n_rules')::bigint,
      (v->>'applied_at')::bigint FROM (SELECT user_id, key, value::json AS v FROM records WHERE ns = 'pack') x;
    INSERT INTO meta(key, value) VALUES('maintain_cursor', '2 李雷');
    DROP TABLE records; UPDATE meta SET value = '7' WHERE key = 'schema_version'" >/dev/null \
    || fail "the store taken back to version 7"
  [ "$(psql_in "$v7_db" "SELECT count(*) FROM api_tokens")" = 2 ] || fail "version 7 store: not 2 tokens"
  [ "$("$CLI" --store "$v7" token list --json)" = "$tokens_before" ] || fail "tokens after the upgrade differ"
  [ "$("$CLI" --store "$v7" pack list --user 李雷 --json)" = "$packs_before" ] || fail "packs after the upgrade differ"
  [ "$(psql_in "$v7_db" "SELECT value FROM meta WHERE key = 'schema_version'")" = 8 ] || fail "not upgraded to 8"
  [ "$(psql_in "$v7_db" "SELECT value FROM records WHERE user_id = '' AND ns = 'meta' AND key = 'maintain_cursor'")" = "2 李雷" ] \
    || fail "the maintenance cursor did not move to records"
  [ "$(psql_in "$v7_db" "SELECT count(*) FROM pg_class WHERE relname IN ('api_tokens', 'user_packs')")" = 0 ] \
    || fail "the old tables are still there"
  out=$("$CLI" --store "$v7" token revoke "$rid" 2>&1) && fail "a revoked token revoked again after the upgrade: $out"
fi

# several scenario files on one server database: refused (each needs a fresh store)
out=$("$CLI" scenario run --store "$url2" tests/scenarios/synonyms.jsonl tests/scenarios/time_aware.jsonl 2>&1) \
  && fail "several files on one PostgreSQL store accepted"
echo "$out" | grep -q "one scenario file per" || fail "expected 'one scenario file per': $out"

# an unknown scheme and an unreachable server fail cleanly, the password unshown
out=$("$CLI" --store "redis://127.0.0.1:1/0" add --user x --text hi 2>&1) && fail "redis:// accepted as a store"
echo "$out" | grep -q "unsupported backend" || fail "expected 'unsupported backend': $out"
out=$("$CLI" --store "postgresql://am:hunter2@127.0.0.1:1/none?connect_timeout=3" add --user x --text hi 2>&1) \
  && fail "an unreachable server accepted"
echo "$out" | grep -q "cannot connect" || fail "expected 'cannot connect': $out"
echo "$out" | grep -q "hunter2" && fail "the password was shown: $out"

if [ "$fails" -gt 0 ]; then echo "store conformance: $fails failures"; exit 1; fi
echo "store conformance: passed"
