#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The server's LLM worker (docs/LLM.md "In the server") against a local chat
# completions server (lib/fake_llm.py), on SQLite and on PostgreSQL, en and zh:
#   - with the model slow (3 s), POST /v1/events answers in under 1 s, twice
#     while a call is in flight, and the proposals appear later as items of
#     origin "llm" (a bounded poll); /metrics counts the calls and the kept
#     proposals and holds no text;
#   - a forget of a session whose batch is still queued: the model's request
#     log never holds its texts (another user's batch, queued with it, is
#     sent), /metrics counts the ids removed, no llm item for that user;
#   - SIGTERM with a call in flight (the model answering in 60 s): the server
#     exits 0 within 4 s;
#   - --llm-batch without AGENTMEM_LLM is a usage error.
# $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: llm_server.sh AGENTMEM}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/expect.bash"
. "$here/lib/pg.bash"
FAKE="$here/lib/fake_llm.py"
fakes=(); srv_pid=
cleanup() {
  [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
  for p in "${fakes[@]}"; do kill "$p" 2>/dev/null; done
  [ -n "${TMP:-}" ] && pg_cleanup
  rm -rf "$dir"
}
trap cleanup EXIT

cat > "$dir/script.json" <<'J'
[{"match": "PDF", "memories": [{"kind": "preference", "text": "User wants reports as PDF files",
   "key": "preference.report_format"}]},
 {"match": "咖啡", "memories": [{"kind": "preference", "text": "用户喜欢不加糖的咖啡"}]}]
J

ok() { passed=$((passed+1)); }
bad() { echo "FAIL: $*"; failed=$((failed+1)); }

fake() { # MODE [DELAY]: starts one, sets LLM and LOG
  LOG="$dir/req.$1.$RANDOM"; : > "$LOG"
  FAKE_LLM_DELAY=${2:-5} python3 "$FAKE" "$1" "$LOG" "$dir/script.json" > "$LOG.port" 2>/dev/null &
  fakes+=($!)
  for _ in $(seq 400); do [ -s "$LOG.port" ] && break; sleep 0.05; done # 20 s at most
  [ -s "$LOG.port" ] || { echo "FAIL: the fake model did not start"; exit 1; }
  LLM="openai:test-model@http://127.0.0.1:$(awk '{print $2}' "$LOG.port")/v1"
}
start_srv() { # DB serve-flags...
  local db=$1; shift
  rm -f "$dir/srv.out" # not the last server's port (the redirection runs in the child)
  AGENTMEM_LLM="$LLM" AGENTMEM_LLM_TIMEOUT_MS=20000 "$CLI" --db "$db" serve --listen 127.0.0.1:0 \
    --threads 2 "$@" > "$dir/srv.out" 2> "$dir/srv.err" &
  srv_pid=$!
  port=
  for _ in $(seq 200); do
    port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$dir/srv.out" 2>/dev/null)
    [ -n "$port" ] && break
    sleep 0.05
  done
  if [ -z "$port" ]; then echo "FAIL: the server did not start"; cat "$dir/srv.err"; exit 1; fi
  url="http://127.0.0.1:$port"
}
stop_srv() { kill -TERM "$srv_pid" 2>/dev/null; wait "$srv_pid"; srv_rc=$?; srv_pid=; }
post() { # TOKEN PATH BODY: status in $code, seconds in $secs
  local out
  out=$(curl -s -o "$dir/body" -w '%{http_code} %{time_total}' --max-time 20 -X POST \
        -H "Authorization: Bearer $1" -H 'Content-Type: application/json' --data-binary "$3" "$url$2")
  code=${out% *}; secs=${out#* }
}
metric() { # NAME-with-labels: its value in /metrics (or ""; $ta's token)
  curl -s --max-time 10 -H "Authorization: Bearer $ta" "$url/metrics" > "$dir/metrics"
  awk -v k="$1" '$1 == k {print $2; exit}' "$dir/metrics"
}
llm_items() { # DB USER: the texts of the user's items of origin llm, sorted, one a line
  "$CLI" --db "$1" memories --user "$2" --json 2>/dev/null | python3 -c '
import json, sys
print("\n".join(sorted(m["text"] for m in json.load(sys.stdin) if m.get("origin") == "llm")))'
}
fast() { # description (after post)
  if [ "$code" = 200 ] && python3 -c "import sys; sys.exit(0 if float('$secs') < 1.0 else 1)"; then ok
  else bad "$1: HTTP $code in $secs s (wanted 200 in under 1 s)"; cat "$dir/body"; echo; fi
}

suite() { # DB label
  local db=$1 l=$2
  "$CLI" --db "$db" token create --user alice >/dev/null 2>&1 # makes the store
  local tb tc
  ta=$("$CLI" --db "$db" token create --user alice 2>/dev/null)
  tb=$("$CLI" --db "$db" token create --user bob 2>/dev/null)
  tc=$("$CLI" --db "$db" token create --user carol 2>/dev/null)

  # --- a slow model never slows a write; its proposals arrive later
  fake slow 3
  start_srv "$db" --llm-batch 1 --llm-wait 1
  post "$ta" /v1/events '{"text":"Reports? I would like them as PDF files."}'
  fast "$l: en POST with a 3 s model"
  for _ in $(seq 100); do [ -s "$LOG" ] && break; sleep 0.05; done # the first call in flight
  post "$ta" /v1/events '{"text":"早上来杯咖啡，不要糖哈"}'
  fast "$l: zh POST while a call is in flight"
  local want got=
  want=$(printf '%s\n' "User wants reports as PDF files" "用户喜欢不加糖的咖啡" | sort)
  for _ in $(seq 300); do # 30 s at most
    got=$(llm_items "$db" alice)
    [ "$got" = "$want" ] && break
    sleep 0.1
  done
  if [ "$got" = "$want" ]; then ok; else
    bad "$l: the llm items (origin llm) did not appear: '$got'"
    "$CLI" --db "$db" memories --user alice --json; cat "$dir/srv.err" "$LOG"; fi
  local calls kept
  calls=$(metric agentmem_llm_calls_total); kept=$(metric 'agentmem_llm_proposals_total{outcome="kept"}')
  [ "${calls:-0}" -ge 2 ] && [ "${kept:-0}" -ge 2 ] && ok || bad "$l: /metrics calls=$calls kept=$kept"
  grep -q "PDF\|咖啡" "$dir/metrics" && bad "$l: user text in /metrics" || ok
  stop_srv
  [ "$srv_rc" = 0 ] && ok || bad "$l: exit $srv_rc"

  # --- a forget of a session whose batch is queued: nothing of it is sent
  fake good
  start_srv "$db" --llm-batch 50 --llm-wait 2
  post "$tb" /v1/events '{"text":"我的暗号是 ZEBRA-7731，PDF","session":"s-secret"}'
  [ "$code" = 200 ] && ok || bad "$l: zh secret POST $code"
  post "$tb" /v1/events '{"text":"My vault phrase is OCTOPUS-4410, PDF","session":"s-secret"}'
  [ "$code" = 200 ] && ok || bad "$l: en secret POST $code"
  post "$tc" /v1/events '{"text":"I like PDF exports"}'
  [ "$code" = 200 ] && ok || bad "$l: other user's POST $code"
  post "$tb" /v1/forget '{"level":"session","id":"s-secret"}'
  [ "$code" = 200 ] && ok || { bad "$l: forget $code"; cat "$dir/body"; }
  [ "$(metric agentmem_llm_queue_forgotten_total)" = 2 ] && ok || bad "$l: forgotten ids not counted"
  for _ in $(seq 150); do grep -q "PDF exports" "$LOG" && break; sleep 0.1; done
  sleep 1
  if grep -q "PDF exports" "$LOG" && ! grep -q "ZEBRA\|OCTOPUS\|暗号" "$LOG"; then ok
  else bad "$l: request log after the forget"; cat "$LOG"; fi
  [ -z "$(llm_items "$db" bob)" ] && ok || bad "$l: bob has llm items after the forget"
  stop_srv

  # --- shutdown with a call in flight exits promptly
  fake slow 60
  start_srv "$db" --llm-batch 1 --llm-wait 1
  post "$ta" /v1/events '{"text":"Please send the PDF summary every Friday"}'
  [ "$code" = 200 ] && ok || bad "$l: POST before the shutdown: $code"
  for _ in $(seq 200); do [ -s "$LOG" ] && break; sleep 0.1; done # 20 s at most
  [ -s "$LOG" ] && ok || { bad "$l: the call did not start"; cat "$dir/srv.err"; }
  local t0 t1
  t0=$(date +%s.%N); stop_srv; t1=$(date +%s.%N)
  if [ "$srv_rc" = 0 ] && python3 -c "import sys; sys.exit(0 if $t1 - $t0 < 4 else 1)"; then ok
  else bad "$l: shutdown with a call in flight: exit $srv_rc after $(python3 -c "print(round($t1 - $t0, 1))") s"; cat "$dir/srv.err"; fi
}

fake good
expect_rc 2 "--llm-batch without AGENTMEM_LLM" env -u AGENTMEM_LLM "$CLI" --db "$dir/x.db" serve --listen 127.0.0.1:0 --llm-batch 5
expect_out "AGENTMEM_LLM" "the variable is named"

suite "$dir/t.db" sqlite

if pg_find; then
  pg_init am-llmsrv || exit 1
  trap cleanup EXIT # pg_init's trap, and the servers'
  if pg_start; then pg_new_db; suite "$URL" postgres
  else bad "PostgreSQL did not start"; fi
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
