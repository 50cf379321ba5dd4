#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One access decision on every surface (docs/AGENTS.md, docs/SERVER.md):
# a token of an agent and a role sees the same on REST, MCP over HTTP and
# MCP stdio (`agentmem mcp --agent --role`); feedback, forget and the
# workspace on what it may not read answer 404 (version and lineage ids)
# and change nothing; it writes as its own agent only (403 naming
# "agent", nothing stored); a kind rule hides the sentences its items came
# from (English and Chinese) from recall's events; its event stream
# carries nothing of what is hidden from it; and a stream ends within 3 s
# when its token is revoked (an admin's all-users stream too) or its user
# forgotten, no event written after that reaching it.  Run on SQLite, then
# on PostgreSQL when its server binaries are installed.  $1 = the CLI.
set -u
CLI=${1:?usage: access_scope.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/server.bash"
. "$(dirname "$0")/lib/pg.bash"

rules="kind:preference=stylist;domain:finance=finance"
srv_global=(--role-allow "$rules")
tails=()

ok() { passed=$((passed+1)); }
bad() { echo "FAIL[$store]: $1"; failed=$((failed+1)); }
tok() { "$CLI" --db "$db" token create "$@" 2>/dev/null; }
newest_token_id() { # USER: the id of its newest token
  "$CLI" --db "$db" token list --user "$1" --json 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["tokens"][-1]["id"])'
}
mcp() { # TOKEN BODY
  code=$(curl -s -o "$dir/body" -w '%{http_code}' --max-time 20 -X POST -H "Authorization: Bearer $1" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version:2025-11-25' --data-binary "$2" "$url/mcp")
}
call() { # NAME ARGS-JSON: a tools/call message
  printf '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"%s","arguments":%s}}' "$1" "$2"
}
# the memory items of alice as her own token sees them: "kind id lineage status" lines
items() {
  req GET "/v1/memories?all=1" "$ta"
  python3 -c 'import json,sys
for m in json.load(open(sys.argv[1])): print(m["kind"], m["id"], m["lineage_id"], m["status"], m["text"])' "$dir/body"
}
tail_start() { # TOKEN PATH OUT: an SSE reader in the background ($! in tail_pid)
  python3 "$here/lib/sse_tail.py" "$url$2" "$1" "$3" 2>/dev/null &
  tail_pid=$!
  tails+=("$tail_pid")
}
tail_ends_within() { # PID SECONDS: 0 when the reader ended (the stream closed) in time
  local i
  for i in $(seq $(($2 * 20))); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.05
  done
  return 1
}
wait_grep() { # FILE NEEDLE: until FILE holds NEEDLE (10 s at most)
  local i
  for i in $(seq 200); do
    grep -qF -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}
lineage_of() { # NEEDLE: the lineage id of alice's item whose text holds it
  items | awk -v n="$1" 'index($0, n) {print $3; exit}'
}

run_store() {
  "$CLI" --db "$db" token create --user alice >/dev/null 2>&1 # makes the store
  ta=$(tok --user alice)
  tbk=$(tok --user alice --agent booker --role travel)
  trole=$(tok --user alice --role travel)
  tadm=$(tok --user ops --admin)
  start_server

  # --- the data, written by the user's own token
  req POST /v1/events "$ta" '{"text":"I always prefer aisle seats on flights","session":"s1"}'
  req POST /v1/events "$ta" '{"text":"我以后都喜欢靠窗的座位","session":"s1"}'
  req POST /v1/events "$ta" '{"text":"这次差旅预算是三万元","domain":"finance","session":"s2"}'
  req POST /v1/events "$ta" '{"text":"Conclusion: the Porto venue wins on price","agent":"planner","source":"agent","task":"secret-plan","session":"s9"}'
  req POST /v1/events "$ta" '{"text":"Book the flight to Lisbon for the trip","task":"trip","session":"s2"}'
  expect_code 200 "the data written"
  items >"$dir/items0"
  grep -q "^preference .*aisle" "$dir/items0" && grep -q "^preference .*靠窗" "$dir/items0" || bad "preference items made: $(cat "$dir/items0")"
  local vid lid pev
  vid=$(awk '/aisle/ {print $2; exit}' "$dir/items0")
  lid=$(awk '/靠窗/ {print $3; exit}' "$dir/items0")
  req POST /v1/recall "$ta" '{"query":"Porto venue price","agent":"planner"}'
  pev=$(python3 -c 'import json,sys
print(next(e["id"] for e in json.load(open(sys.argv[1]))["events"] if "Porto" in e["content"]))' "$dir/body")
  [ -n "$pev" ] && ok || bad "the planner's event id"

  # --- reads: REST, MCP over HTTP, MCP stdio show the scoped token the same
  req GET "/v1/memories?all=1" "$tbk"; expect_code 200 "REST memories"
  expect_no_body "aisle" "REST hides the preference (en)"; expect_no_body "靠窗" "REST hides the preference (zh)"
  mcp "$tbk" "$(call list_memories '{"all":true}')"; expect_code 200 "MCP list_memories"
  expect_no_body "aisle" "MCP over HTTP hides the preference (en)"; expect_no_body "靠窗" "MCP over HTTP hides the preference (zh)"
  req GET /v1/tasks/secret-plan "$tbk"; expect_code 404 "REST: another agent's task is not there"
  req GET /v1/tasks/secret-plan "$ta"; expect_code 200 "the user's own token sees it"
  mcp "$tbk" "$(call task_state '{"task":"secret-plan"}')"
  expect_body '"isError":true' "MCP over HTTP: task_state refused"; expect_no_body "Porto" "MCP task_state shows nothing"
  mcp "$trole" "$(call list_memories '{"all":true}')"
  expect_no_body "aisle" "MCP over HTTP, a role-only token"
  {
    echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
    echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    call list_memories '{"all":true}'; echo
    call task_state '{"task":"secret-plan"}'; echo
    call recall '{"query":"which seats do I prefer on flights? 座位"}'; echo
    call feedback "{\"id\":\"$vid\",\"action\":\"reject\"}"; echo
    call forget "{\"level\":\"event\",\"id\":\"$pev\"}"; echo
  } | timeout 60 "$CLI" --db "$db" --role-allow "$rules" mcp --user alice --agent booker --role travel \
      >"$dir/stdio" 2>"$dir/stdio.err"
  [ "$(wc -l <"$dir/stdio")" = 6 ] && ok || bad "MCP stdio: 6 replies: $(cat "$dir/stdio" "$dir/stdio.err")"
  grep -q "aisle\|靠窗\|Porto" "$dir/stdio" && bad "MCP stdio --role shows hidden items: $(cat "$dir/stdio")" || ok
  [ "$(grep -c '"isError":true' "$dir/stdio")" = 3 ] && ok || bad "MCP stdio: task_state, feedback, forget refused: $(cat "$dir/stdio")"
  grep -q 'not_found' "$dir/stdio" && ok || bad "MCP stdio: refused as not found"

  # --- feedback, forget, workspace on what the token cannot read: 404, nothing changes
  local id
  for id in "$vid" "$lid"; do
    req POST "/v1/memories/$id/feedback" "$tbk" '{"action":"reject"}'
    expect_code 404 "REST feedback on a hidden item ($id)"
    req POST "/v1/memories/$id/feedback" "$tbk" '{"action":"correct","text":"I prefer middle seats"}'
    expect_code 404 "REST correct on a hidden item ($id)"
    mcp "$tbk" "$(call feedback "{\"id\":\"$id\",\"action\":\"confirm\"}")"
    expect_body '"isError":true' "MCP feedback on a hidden item ($id)"; expect_body "not_found" "MCP feedback: not found"
  done
  req POST "/v1/memories/NOPE123/feedback" "$tbk" '{"action":"reject"}'; local unknown; unknown=$(cat "$dir/body")
  req POST "/v1/memories/$vid/feedback" "$tbk" '{"action":"reject"}'
  [ "$(sed "s/$vid/X/" "$dir/body")" = "$(echo "$unknown" | sed 's/NOPE123/X/')" ] && ok || bad "hidden and unknown answer alike: $(cat "$dir/body") / $unknown"
  req POST /v1/forget "$tbk" "{\"level\":\"event\",\"id\":\"$pev\"}"; expect_code 404 "forget another agent's event"
  req POST /v1/forget "$tbk" '{"level":"session","id":"s9"}'; expect_code 404 "forget a session of another agent's events"
  req POST /v1/forget "$tbk" '{"level":"task","id":"secret-plan","grace":60}'; expect_code 404 "forget a hidden task (grace)"
  req GET /v1/tasks/secret-plan/workspace "$tbk"; expect_code 404 "workspace get of a hidden task"
  req PUT /v1/tasks/secret-plan/workspace "$tbk" '{"doing":"peeking"}'; expect_code 404 "workspace put on a hidden task"
  req PUT /v1/tasks/trip/workspace "$tbk" '{"doing":"booking flights"}'; expect_code 200 "workspace put on a visible task"
  req GET /v1/export "$tbk"; expect_code 403 "a scoped token does not export the whole history"
  items >"$dir/items1"
  cmp -s "$dir/items0" "$dir/items1" && ok || bad "the items changed: $(diff "$dir/items0" "$dir/items1")"
  req GET /v1/tasks/secret-plan/workspace "$ta"; expect_code 200 "the task is still there"; expect_no_body "peeking" "nothing written"
  req POST /v1/recall "$ta" '{"query":"Porto venue price","agent":"planner"}'; expect_body "Porto venue" "the planner's event is still there"
  req POST "/v1/memories/$lid/feedback" "$ta" '{"action":"confirm"}'; expect_code 200 "the user's own token may"

  # --- writes as another agent: 403 naming agent, nothing stored
  req POST /v1/events "$tbk" '{"text":"Conclusion: zebra-marker wins","source":"agent","agent":"planner","task":"secret-plan"}'
  expect_code 403 "write as another agent"; err_is forbidden agent "agent named"
  req POST /v1/events "$tbk" '{"events":[{"text":"zebra-marker two"},{"text":"zebra-marker three","agent":"planner"}]}'
  expect_code 403 "a list writing as another agent"; err_is forbidden "events[1].agent" "events[1].agent named"
  req POST /v1/events "$trole" '{"text":"zebra-marker four","source":"agent","agent":"planner"}'
  expect_code 403 "a role-only token naming an agent"; err_is forbidden agent "agent named (role)"
  req POST /v1/recall "$ta" '{"query":"zebra-marker wins","agent":"planner","k":50}'
  expect_no_body "zebra-marker" "nothing of the refused writes stored"
  req POST /v1/events "$tbk" '{"text":"Conclusion: the 09:40 flight is best","source":"agent"}'
  expect_code 200 "a write naming no agent"
  req POST /v1/recall "$tbk" '{"query":"which flight is best 09:40"}'; expect_body "09:40 flight" "it is the token's agent's"
  req POST /v1/recall "$ta" '{"query":"which flight is best 09:40","agent":"planner"}'; expect_no_body "09:40 flight" "not another's"

  # --- a kind rule hides the sentences of its items from recall's events
  local q
  for q in "which seats do I prefer on flights? aisle" "我喜欢什么座位？靠窗"; do
    req POST /v1/recall "$ta" "{\"query\":\"$q\"}"
    expect_body '"content"' "the user's own recall lists events ($q)"
    req POST /v1/recall "$tbk" "{\"query\":\"$q\"}"; expect_code 200 "scoped recall ($q)"
    expect_no_body "aisle seats" "kind rule: no English sentence in events"; expect_no_body "靠窗的座位" "kind rule: no Chinese sentence in events"
  done
  req POST /v1/recall "$ta" '{"query":"which seats do I prefer on flights? aisle"}'; expect_body "aisle seats" "the user's own recall shows it"

  # --- streams (from the first event: every one so far, then the new
  # ones): a scoped token's carries nothing of what is hidden from it
  : >"$dir/scoped.sse"; : >"$dir/admin.sse"; : >"$dir/own.sse"
  tail_start "$tbk" "/v1/stream?after=0" "$dir/scoped.sse"; local t_scoped=$tail_pid
  tail_start "$tadm" "/v1/stream?after=0" "$dir/admin.sse"; local t_admin=$tail_pid
  tail_start "$ta" "/v1/stream?after=0" "$dir/own.sse"; local t_own=$tail_pid
  req POST /v1/events "$ta" '{"text":"I always prefer green tea in the morning","session":"s3"}'
  req POST /v1/events "$ta" '{"text":"我以后都喜欢喝乌龙茶","session":"s3"}'
  req POST /v1/events "$ta" '{"text":"Conclusion: the Lisbon hotel is cheaper","agent":"planner","source":"agent","task":"secret-plan"}'
  req POST /v1/events "$ta" '{"text":"Never book red-eye flights","task":"trip"}'
  req POST "/v1/memories/$lid/feedback" "$ta" '{"action":"confirm"}'
  items >"$dir/items2"
  wait_grep "$dir/own.sse" "$(lineage_of "green tea")" || bad "the user's own stream: $(cat "$dir/own.sse")"
  wait_grep "$dir/scoped.sse" "$(lineage_of "red-eye")" || bad "the scoped stream carries what it may read"
  wait_grep "$dir/admin.sse" "$(lineage_of "red-eye")" || bad "the admin stream carries it"
  sleep 0.5
  python3 - "$dir/scoped.sse" "$dir/items2" <<'PY' && ok || bad "the scoped stream carried hidden events: $(cat "$dir/scoped.sse")"
import json, sys
hidden = set()
for line in open(sys.argv[2]):
    kind, vid, lid = line.split()[:3]
    if kind == "preference": hidden |= {vid, lid}
frames = [json.loads(l) for l in open(sys.argv[1])]
bad = [f for f in frames if f["data"].get("memory_id") in hidden or f["data"].get("task_id") == "secret-plan"]
sys.exit(1 if bad or not frames else 0)
PY
  grep -q "$(awk '/green tea/ {print $3}' "$dir/items2")" "$dir/own.sse" && ok || bad "the user's own stream carries every event"
  grep -q '"user": "alice"' "$dir/admin.sse" && ok || bad "the admin's all-users stream carries alice's"

  # --- revocation: the stream ends within 3 s, nothing after reaches it
  local tr trid n_before
  tr=$(tok --user alice); trid=$(newest_token_id alice)
  : >"$dir/rev.sse"; tail_start "$tr" "/v1/stream?after=0" "$dir/rev.sse"; local t_rev=$tail_pid
  req POST /v1/events "$ta" '{"text":"Never book hotels without breakfast"}'
  local hb; hb=$(lineage_of "breakfast")
  wait_grep "$dir/rev.sse" "$hb" || bad "the stream delivered before the revocation"
  wait_grep "$dir/admin.sse" "$hb" || bad "the admin stream delivered before the revocation"
  "$CLI" --db "$db" token revoke "$trid" >/dev/null 2>&1 || bad "token revoke"
  "$CLI" --db "$db" token revoke "$(newest_token_id ops)" >/dev/null 2>&1 || bad "admin token revoke"
  n_before=$(wc -l <"$dir/rev.sse"); local na_before; na_before=$(wc -l <"$dir/admin.sse")
  req POST /v1/events "$ta" '{"text":"Never schedule meetings on Fridays"}'
  tail_ends_within "$t_rev" 3 && ok || bad "a revoked token's stream goes on"
  tail_ends_within "$t_admin" 3 && ok || bad "a revoked admin token's all-users stream goes on"
  [ "$(wc -l <"$dir/rev.sse")" = "$n_before" ] && ok || bad "an event written after the revocation reached the stream"
  [ "$(wc -l <"$dir/admin.sse")" = "$na_before" ] && ok || bad "an event written after the revocation reached the admin stream"
  kill -0 "$t_own" 2>/dev/null && ok || bad "a live token's stream ended too"

  # --- a user forgotten while its stream is open
  local tc; tc=$(tok --user carol)
  req POST /v1/events "$tc" '{"text":"I always prefer trains over planes"}'
  : >"$dir/carol.sse"; tail_start "$tc" "/v1/stream?after=0" "$dir/carol.sse"; local t_carol=$tail_pid
  wait_grep "$dir/carol.sse" '"user": "carol"' || bad "carol's stream delivered"
  req POST /v1/forget "$tc" '{"level":"user","grace":3600}'; expect_code 200 "carol forgotten (held)"
  tail_ends_within "$t_carol" 3 && ok || bad "a forgotten user's stream goes on"
  kill "$t_scoped" "$t_own" 2>/dev/null
  stop_server
  [ "$srv_rc" = 0 ] && ok || bad "the server exited $srv_rc after SIGTERM"
  grep -q "Sanitizer\|runtime error" "$dir/srv.err" && bad "sanitizer report: $(cat "$dir/srv.err")" || ok
}

store=sqlite
run_store
if pg_find >/dev/null; then
  pg_init am-access || exit 1
  trap 'kill ${tails[*]:-} "$srv_pid" 2>/dev/null; pg_cleanup; rm -rf "$dir"' EXIT
  pg_start || { echo "FAIL: PostgreSQL did not start"; exit 1; }
  pg_new_db || { echo "FAIL: createdb"; exit 1; }
  store=postgres
  db=$URL
  run_store
else
  echo "SKIP: the PostgreSQL run (no PostgreSQL server binaries)"
fi
kill ${tails[*]:-} 2>/dev/null
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
