#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The shared cache (Redis, am_config.cache) through the CLI, on a
# throwaway redis-server (a temporary directory, a free loopback port, a
# password; killed and removed on exit):
#   - every scenario file (tests/scenarios/*.jsonl) replayed with
#     `scenario run --cache URL` must give the results and the --dump
#     (every recall's block, memories, events, scores) of the run without
#     it, byte for byte -- twice, the second run over a warm cache;
#   - --cache / $AGENTMEM_CACHE on the CLI: `cache` says up, `working`
#     set / get / list / clear across processes, a refused URL names the
#     field and never shows the password;
#   - Redis killed: recall answers the same, `cache` says down (exit 1),
#     working memory says the cache is down; restarted: up again;
#   - forget --level user leaves no key of the user.
# Prints "SKIP: no redis-server" and exits 77 (skipped) only when redis-server is not
# installed (scripts/install-deps.sh installs it).
set -u
CLI=${1:?usage: redis_cache.sh AGENTMEM}
CLI=$(cd "$(dirname "$CLI")" && pwd)/$(basename "$CLI")
cd "$(dirname "$0")/../.."
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  echo "SKIP: no redis-server (scripts/install-deps.sh installs redis-server)"
  exit 77
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/am-redis-XXXXXX")
PW="pw-$$-secret"
RPID=""
stop_redis() { if [ -n "$RPID" ]; then kill -9 "$RPID" 2>/dev/null; wait "$RPID" 2>/dev/null; RPID=""; fi; }
cleanup() { stop_redis; rm -rf "$TMP"; }
trap cleanup EXIT
rcli() { redis-cli -p "$PORT" -a "$PW" --no-auth-warning "$@"; }
start_redis() {
  redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
    --dir "$TMP" --requirepass "$PW" >"$TMP/redis.log" 2>&1 &
  RPID=$!
  for _ in $(seq 1 100); do rcli ping 2>/dev/null | grep -q PONG && return 0; sleep 0.05; done
  return 1
}
PORT=""
for try in 1 2 3 4 5 6 7 8; do
  PORT=$(( 20000 + (RANDOM * 7 + $$ + try * 131) % 40000 ))
  start_redis && break
  stop_redis; PORT=""
done
[ -n "$PORT" ] || { cat "$TMP/redis.log"; echo "FAIL: redis-server did not start"; exit 1; }
URL="redis://:$PW@127.0.0.1:$PORT/0"
echo "redis-server $(redis-server --version | awk '{print $3}') on 127.0.0.1:$PORT ($TMP)"

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# ---------------------------------------------------------------- scenarios
files=0
for f in tests/scenarios/*.jsonl; do
  files=$((files + 1))
  b=$(basename "$f" .jsonl)
  "$CLI" scenario run --dump "$TMP/$b.off" "$f" >"$TMP/$b.off.log" 2>&1 || fail "scenario $b without the cache"
  for pass in 1 2; do
    if ! "$CLI" scenario run --cache "$URL" --dump "$TMP/$b.on$pass" "$f" >"$TMP/$b.on$pass.log" 2>&1; then
      fail "scenario $b with the cache (run $pass):"; grep -E "FAIL|rror" "$TMP/$b.on$pass.log" | head -5
    fi
    cmp -s "$TMP/$b.off" "$TMP/$b.on$pass" || {
      fail "scenario $b: the recall outputs differ with the cache (run $pass)"
      diff "$TMP/$b.off" "$TMP/$b.on$pass" | head -6
    }
    [ "$(tail -1 "$TMP/$b.off.log")" = "$(tail -1 "$TMP/$b.on$pass.log")" ] ||
      fail "scenario $b: '$(tail -1 "$TMP/$b.off.log")' without the cache, '$(tail -1 "$TMP/$b.on$pass.log")' with it"
  done
done
[ "$files" -gt 0 ] || fail "no scenario files"
echo "scenarios: $files files with and without the cache"
[ "$(rcli dbsize)" -gt 0 ] || fail "the scenario runs left nothing in Redis: the cache was not used"

# ---------------------------------------------------------------- the CLI
DB="$TMP/cli.db"
"$CLI" --db "$DB" init >/dev/null || fail "init"
"$CLI" --db "$DB" --cache "$URL" cache | grep -q "cache: up" || fail "cache: not up"
"$CLI" --db "$DB" cache | grep -q "cache: none" || fail "cache without --cache: not none"
AGENTMEM_CACHE="$URL" "$CLI" --db "$DB" add --user mei --text "我下周三要去北京出差。" --at 2026-03-02T09:00:00+08:00 >/dev/null ||
  fail "add with \$AGENTMEM_CACHE"
"$CLI" --db "$DB" add --user bob --cache "$URL" --text "My sister lives in Toronto." --at 2026-03-02T09:00:00Z >/dev/null ||
  fail "add --cache after the command"
"$CLI" --db "$DB" --cache "$URL" working set --user mei --session s1 --key 目的地 --value "北京，周三出发" --ttl 60000 >/dev/null ||
  fail "working set"
got=$("$CLI" --db "$DB" --cache "$URL" working get --user mei --session s1 --key 目的地)
[ "$got" = "北京，周三出发" ] || fail "working get across processes: '$got'"
"$CLI" --db "$DB" --cache "$URL" working set --user bob --session s9 --key todo --value "call my sister" --ttl 3000 >/dev/null
"$CLI" --db "$DB" --cache "$URL" working list --user bob --session s9 --json | grep -q '"value":"call my sister"' ||
  fail "working list"
sleep 3.2
"$CLI" --db "$DB" --cache "$URL" working get --user bob --session s9 --key todo >/dev/null 2>&1 &&
  fail "working get after the TTL"
# without a cache the same commands work on the store
"$CLI" --db "$DB" working set --user bob --session s9 --key todo --value "buy milk" --ttl 60000 >/dev/null ||
  fail "working set without a cache"
[ "$("$CLI" --db "$DB" working get --user bob --session s9 --key todo)" = "buy milk" ] || fail "working get without a cache"
# refusals name the field, never the password
out=$("$CLI" --db "$DB" --cache "postgres://u:$PW@h/db" cache 2>&1) && fail "a postgres:// cache was accepted"
echo "$out" | grep -q "cache" || fail "refusal does not name the cache: $out"
echo "$out" | grep -q "$PW" && fail "refusal shows the password: $out"
out=$("$CLI" --db "$DB" --cache "redis://:$PW@127.0.0.1:notaport" cache 2>&1) && fail "a bad port was accepted"
echo "$out" | grep -q "$PW" && fail "refusal shows the password: $out"
"$CLI" --db "$DB" working set --user bob --session s9 --key todo --value "x" --ttl 0 >/dev/null 2>&1 &&
  fail "working set --ttl 0 accepted"

# ---------------------------------------------------------------- Redis down, back
q=(recall --user mei --text "我什么时候去北京？" --json)
want=$("$CLI" --db "$DB" "${q[@]}")
[ "$("$CLI" --db "$DB" --cache "$URL" "${q[@]}")" = "$want" ] || fail "recall with the cache differs"
stop_redis
got=$("$CLI" --db "$DB" --cache "$URL" "${q[@]}") || fail "recall with Redis down failed"
[ "$got" = "$want" ] || fail "recall with Redis down differs"
out=$("$CLI" --db "$DB" --cache "$URL" cache 2>&1) && fail "cache with Redis down: exit 0"
echo "$out" | grep -q "cache: down" || fail "cache with Redis down: $out"
echo "$out" | grep -q "$PW" && fail "the down message shows the password"
"$CLI" --db "$DB" --cache "$URL" working get --user mei --session s1 --key 目的地 2>&1 | grep -q "cache is down" ||
  fail "working memory with Redis down does not say so"
"$CLI" --db "$DB" --cache "$URL" add --user mei --text "出差改到周四了。" --at 2026-03-03T09:00:00+08:00 >/dev/null ||
  fail "add with Redis down"
start_redis || fail "redis-server did not start again"
"$CLI" --db "$DB" --cache "$URL" cache | grep -q "cache: up" || fail "cache not up again"

# ---------------------------------------------------------------- forget
"$CLI" --db "$DB" --cache "$URL" "${q[@]}" >/dev/null
"$CLI" --db "$DB" --cache "$URL" working set --user mei --session s2 --key note --value "北京的酒店订好了" --ttl 60000 >/dev/null
[ "$(rcli --scan | wc -l)" -gt 0 ] || fail "no keys before the forget"
"$CLI" --db "$DB" --cache "$URL" forget --user mei --level user >/dev/null || fail "forget --level user"
if rcli --scan | while read -r k; do rcli dump "$k"; done | grep -a -q "北京"; then
  fail "a value of the forgotten user is still in Redis"
fi
rcli --scan | grep -q "mei" && fail "a key names the forgotten user"

if [ "$fails" -gt 0 ]; then echo "$fails failed"; exit 1; fi
echo "redis cache: all passed"
