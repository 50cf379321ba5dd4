#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What the server mounts beside the /v1 core (docs/SERVER.md): MCP over
# Streamable HTTP (POST /mcp: initialize, tools/list, remember and recall
# as the token's user; a foreign Origin refused; another user's memories
# never reached), signed webhooks to a local receiver, the task workspace and the token's agent and role on
# every read (an agent's conclusions stay its own, role whitelists hold),
# POST /v1/embeddings (Chinese and English, a w2v table), forget with a
# grace period at every level and POST /v1/restore of an event, a session
# or a task, a task id holding "/" (%2F) and a JSON string holding \u0000
# (refused naming its field).  $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: server_more.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/server.bash"

tok() { "$CLI" --db "$db" token create "$@" 2>/dev/null; }
"$CLI" --db "$db" token create --user alice >/dev/null 2>&1 # makes the store
ta=$(tok --user alice)
tpl=$(tok --user alice --agent planner)
tbk=$(tok --user alice --agent booker)
tfin=$(tok --user alice --agent accountant --role finance)
tsup=$(tok --user alice --agent helper --role support)
tb=$(tok --user bob)
srv_global=(--role-allow "domain:finance=finance")
AGENTMEM_EMBEDDER="w2v:$here/../data/w2v_small.txt" start_server

# --- 7a: a task id with "/" in it (%2F in the path)
req POST /v1/events "$ta" '{"text":"Task a/b: draft the budget for 第二季度","task":"a/b"}'
expect_code 200 "event of task a/b"
req GET /v1/tasks/a%2Fb "$ta"; expect_code 200 "GET /v1/tasks/a%2Fb"; expect_body '"task_id":"a/b"' "the task id decoded"
req GET /v1/tasks/a/b "$ta"; expect_code 404 "an unescaped / is another path"
req GET /v1/tasks/a%2 "$ta"; expect_code 400 "a malformed escape"; err_is invalid_request task_id "task_id named"
req GET /v1/tasks/a%00b "$ta"; expect_code 400 "a %00 in the path"; err_is invalid_request task_id "task_id named (NUL)"
req GET "/v1/memories?as_of=2030-01-01T00%3A00%3A00Z" "$ta"; expect_code 200 "a %-escaped query value is decoded"

# --- 7b: \u0000 inside a string: refused naming the field, nothing written
req POST /v1/events "$ta" '{"text":"我喜欢\u0000茶"}'; expect_code 400 "text with \\u0000"; err_is invalid_request text "text named"
req POST /v1/events "$ta" '{"text":"ok","session":"s\u0000x"}'; expect_code 400 "session with \\u0000"; err_is invalid_request session "session named"
req POST /v1/recall "$ta" '{"query":"tea\u0000"}'; expect_code 400 "query with \\u0000"; err_is invalid_request query "query named"
n=$(sqlite3 "$db" "SELECT count(*) FROM events WHERE session_id LIKE 's%x'")
[ "$n" = 0 ] && passed=$((passed+1)) || { echo "FAIL: a refused event was written"; failed=$((failed+1)); }

# --- 1: MCP over HTTP
mcp() { # TOKEN BODY [curl args...]
  local t=$1 b=$2; shift 2
  code=$(curl -s -o "$dir/body" -w '%{http_code}' --max-time 20 -X POST -H "Authorization: Bearer $t" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' "$@" \
    --data-binary "$b" "$url/mcp")
}
V='-H MCP-Protocol-Version:2025-11-25'
mcp "$ta" '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
expect_code 200 "mcp initialize"; expect_body '"protocolVersion":"2025-11-25"' "initialize result"
mcp "$ta" '{"jsonrpc":"2.0","method":"notifications/initialized"}' $V; expect_code 202 "mcp initialized notification"
mcp "$ta" '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' $V; expect_code 200 "mcp tools/list"
expect_body '"remember"' "tools/list has remember"; expect_body '"recall"' "tools/list has recall"
mcp "$ta" '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"remember","arguments":{"text":"以后周报都按三段写"}}}' $V
expect_code 200 "mcp remember (zh)"; expect_no_body '"isError":true' "remember succeeded"
mcp "$tb" '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"remember","arguments":{"text":"From now on, write every weekly report as bullet points about the zebra project"}}}' $V
expect_code 200 "mcp remember (en, bob)"
mcp "$ta" '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"recall","arguments":{"query":"帮我写周报"}}}' $V
expect_code 200 "mcp recall"; expect_body '三段' "alice recalls her own memory"; expect_no_body 'zebra' "bob's memory never in alice's recall"
mcp "$ta" '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"recall","arguments":{"query":"weekly report zebra project"}}}' $V
expect_no_body 'zebra' "bob's memory not reached by its own words"
mcp "$ta" '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"list_memories","arguments":{"user":"bob"}}}' $V
expect_no_body 'zebra' "a user argument reaches nothing of bob"
mcp "$ta" '{"jsonrpc":"2.0","id":7,"method":"tools/list"}' $V -H 'Origin: https://evil.example.com'
expect_code 403 "a foreign Origin"; expect_body '-32600' "a JSON-RPC error"
mcp "$ta" '{"jsonrpc":"2.0","id":8,"method":"tools/list"}' $V -H 'Origin: http://localhost:3000'
expect_code 200 "a loopback Origin"
mcp "" '{"jsonrpc":"2.0","id":9,"method":"tools/list"}' $V; expect_code 401 "mcp without a token"
# (?user= in the URL: -G would move the body into the query too, and an
# unknown query parameter is 400)
code=$(curl -s -o "$dir/body" -w '%{http_code}' --max-time 20 -X POST -H "Authorization: Bearer $ta" \
  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' $V \
  --data-binary '{"jsonrpc":"2.0","id":9,"method":"tools/list"}' "$url/mcp?user=bob")
expect_code 403 "mcp naming another user"
req GET /mcp "$ta"; expect_code 405 "GET /mcp"
req DELETE /mcp "$ta"; expect_code 405 "DELETE /mcp"

# --- 5: workspace, the token's agent and role
req PUT /v1/tasks/a%2Fb/workspace "$tpl" '{"doing":"排日程","next":"book the venue"}'
expect_code 200 "workspace put (planner)"; expect_body '"version":1' "first version"; expect_body '"agent":"planner"' "the token's agent"
req PUT /v1/tasks/a%2Fb/workspace "$tbk" '{"done":"订好了酒店"}'; expect_code 200 "workspace put (booker)"
req GET /v1/tasks/a%2Fb/workspace "$tbk"; expect_code 200 "workspace get"
expect_body '排日程' "booker reads the planner's entry"; expect_body '订好了酒店' "and its own"
req PUT /v1/tasks/a%2Fb/workspace "$ta" '{"doing":"x"}'; expect_code 400 "a token without an agent"; err_is invalid_request agent "agent named"
req PUT /v1/tasks/a%2Fb/workspace "$tpl" '{"doing":5}'; expect_code 400 "doing of a wrong type"; err_is invalid_request doing "doing named"
req PUT /v1/tasks/a%2Fb/workspace "$tpl" '{"doing":"\u0000"}'; expect_code 400 "doing with \\u0000"; err_is invalid_request doing "doing named (NUL)"
req PUT /v1/tasks/nope/workspace "$tpl" '{"doing":"x"}'; expect_code 404 "workspace of an unknown task"
req GET /v1/tasks/a%2Fb/workspace "$tb"; expect_code 404 "bob has no such task"
# privacy: the planner's own conclusion is not the booker's
req POST /v1/events "$tpl" '{"text":"I concluded the offsite should be in Hangzhou near the lake","source":"agent","session":"p1"}'
expect_code 200 "planner's conclusion"
req POST /v1/recall "$tbk" '{"query":"where should the offsite be? Hangzhou lake"}'; expect_code 200 "booker recall"
expect_no_body 'near the lake' "the booker does not see the planner's conclusion"
req POST /v1/recall "$tpl" '{"query":"where should the offsite be? Hangzhou lake"}'
expect_body 'near the lake' "the planner sees its own"
req POST /v1/recall "$tbk" '{"query":"offsite Hangzhou lake","agent":"planner"}'; expect_code 403 "recall as another agent"; err_is forbidden agent "agent named"
# role whitelist: domain finance only to role finance
req POST /v1/events "$ta" '{"text":"我的工资卡是招商银行，月薪三万","domain":"finance","session":"f1"}'; expect_code 200 "a finance event"
req POST /v1/recall "$tsup" '{"query":"工资 招商银行 月薪"}'; expect_code 200 "support recall"
expect_no_body '招商银行' "role support does not see finance"
req POST /v1/recall "$tfin" '{"query":"工资 招商银行 月薪"}'; expect_body '招商银行' "role finance sees it"
req GET /v1/memories "$tsup"; expect_no_body '招商' "memories as role support: no finance"

# --- 4: embeddings
req POST /v1/embeddings "$ta" '{"input":["他是","He is"],"model":"text-embedding-3-small"}'
expect_code 200 "embeddings zh+en"
if python3 - "$dir/body" <<'PY'
import json, sys, math
d = json.load(open(sys.argv[1]))
a, b = (x["embedding"] for x in d["data"])
assert d["object"] == "list" and [x["index"] for x in d["data"]] == [0, 1]
assert len(a) == 8 and abs(math.sqrt(sum(x * x for x in a)) - 1) < 1e-4
assert sum(x * y for x, y in zip(a, b)) > 0.99   # 他是 / He is: the same table rows
PY
then passed=$((passed+1)); else echo "FAIL: embeddings shape/values"; cat "$dir/body"; failed=$((failed+1)); fi
req POST /v1/embeddings "$ta" '{"input":"每个"}'; expect_code 200 "one string"
req POST /v1/embeddings "$ta" '{"input":[]}'; expect_code 400 "empty input"; err_is invalid_request input "input named"
req POST /v1/embeddings "$ta" '{"input":[1]}'; expect_code 400 "input of numbers"; err_is invalid_request input "input named (type)"
req POST /v1/embeddings "$ta" '{"input":"a\u0000b"}'; expect_code 400 "input with \\u0000"; err_is invalid_request input "input named (NUL)"
req POST /v1/embeddings "$ta" '{"model":"x"}'; expect_code 400 "no input"; err_is invalid_request input "input named (missing)"
req POST /v1/embeddings "$ta" '{"input":"x","dimensions":3}'; expect_code 400 "unknown key"; err_is invalid_request dimensions "dimensions named"
stop_server
[ "$srv_rc" = 0 ] && passed=$((passed+1)) || { echo "FAIL: server exit $srv_rc"; failed=$((failed+1)); }
srv_global=()
# the browser origins /mcp accepts, listed: exactly those
"$CLI" --db "$db" serve --listen 127.0.0.1:0 --mcp-origin ftp://agent.example.com >/dev/null 2>"$dir/uerr"
[ $? = 2 ] && grep -q -- '--mcp-origin' "$dir/uerr" && passed=$((passed+1)) || { echo "FAIL: --mcp-origin ftp:// not refused"; failed=$((failed+1)); }
"$CLI" --db "$db" serve --listen 127.0.0.1:0 --mcp-origin https://agent.example.com/path >/dev/null 2>"$dir/uerr"
[ $? = 2 ] && passed=$((passed+1)) || { echo "FAIL: --mcp-origin with a path not refused"; failed=$((failed+1)); }
start_server --mcp-origin https://agent.example.com --mcp-origin http://10.0.0.7:3000
mcp "$ta" '{"jsonrpc":"2.0","id":21,"method":"tools/list"}' $V -H 'Origin: https://agent.example.com'
expect_code 200 "a listed Origin"
mcp "$ta" '{"jsonrpc":"2.0","id":22,"method":"tools/list"}' $V -H 'Origin: http://10.0.0.7:3000'
expect_code 200 "another listed Origin"
mcp "$ta" '{"jsonrpc":"2.0","id":23,"method":"tools/list"}' $V -H 'Origin: https://evil.example.com'
expect_code 403 "an Origin not listed"
mcp "$ta" '{"jsonrpc":"2.0","id":24,"method":"tools/list"}' $V -H 'Origin: http://localhost:3000'
expect_code 403 "loopback not listed: refused too"
req POST /v1/embeddings "$ta" '{"input":"hello"}'; expect_code 400 "no embedder configured"
expect_body 'no embedder' "the error says so"

# --- 6: forget with a grace period at every level, restore by level + id
req POST /v1/events "$ta" '{"text":"我下周三要去上海出差","session":"g1","task":"trip"}'; ev=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["event_id"])' "$dir/body")
req POST /v1/events "$ta" '{"text":"Book the train to Shanghai for Wednesday","session":"g2","task":"trip2"}'
for lv in "event $ev 上海出差" "session g2 train to Shanghai" "task trip 上海出差"; do
  set -- $lv; l=$1 id=$2; shift 2; needle="$*"
  req POST /v1/forget "$ta" "{\"level\":\"$l\",\"id\":\"$id\",\"grace\":3600}"; expect_code 200 "forget $l with grace"
  req GET /v1/export "$ta"; expect_no_body "$needle" "forgotten $l hidden"
  req POST /v1/restore "$ta" "{\"level\":\"$l\",\"id\":\"$id\"}"; expect_code 200 "restore $l"; expect_body '"restored":true' "restore shape"
  req GET /v1/export "$ta"; expect_body "$needle" "restored $l back"
done
req POST /v1/forget "$ta" '{"level":"session","id":"g2"}'; expect_code 200 "forget without grace"
req POST /v1/restore "$ta" '{"level":"session","id":"g2"}'; expect_code 409 "restore after the purge"; err_is denied - "denied"
req POST /v1/restore "$ta" '{"level":"task"}'; expect_code 400 "restore task without id"; err_is invalid_request id "id named"
req POST /v1/restore "$ta" '{"id":"x"}'; expect_code 400 "restore id without level"; err_is invalid_request level "level named"
req POST /v1/restore "$ta" '{"level":"planet","id":"x"}'; expect_code 400 "restore bad level"; err_is invalid_request level "bad level named"
req POST /v1/restore "$tb" "{\"level\":\"event\",\"id\":\"$ev\"}"; expect_code 404 "bob cannot restore alice's event"
stop_server
[ "$srv_rc" = 0 ] && passed=$((passed+1)) || { echo "FAIL: server exit $srv_rc"; failed=$((failed+1)); }

# --- 2: GET /v1/stream (server-sent events)
start_server
sse() { # TOKEN QUERY OUT [curl args...]: a stream read for 3 s in the background
  local t=$1 q=$2 o=$3; shift 3
  curl -sN --max-time 3 -H "Authorization: Bearer $t" "$@" "$url/v1/stream$q" >"$o" 2>/dev/null &
}
sse "$ta" "" "$dir/sse1"; p1=$!
sse "$tb" "" "$dir/sse2"; p2=$!
sleep 1
req POST /v1/events "$ta" '{"text":"我以后都喝绿茶，不喝咖啡了","session":"sse1"}'; expect_code 200 "a write while streaming (zh)"
req POST /v1/events "$ta" '{"text":"From now on, call me Ally","session":"sse1"}'; expect_code 200 "a write while streaming (en)"
wait "$p1" "$p2"
first=$(sed -n 's/^id: //p' "$dir/sse1" | head -1)
if grep -q '^event: memory.created' "$dir/sse1" && grep -q '^data: {.*"user":"alice"' "$dir/sse1" && [ -n "$first" ]; then
  passed=$((passed+1)); else echo "FAIL: the stream has the write's event"; cat "$dir/sse1"; failed=$((failed+1)); fi
grep -q '^: keep-alive' "$dir/sse1" && passed=$((passed+1)) || { echo "FAIL: no keep-alive comment"; failed=$((failed+1)); }
if grep -q '"user":"alice"' "$dir/sse2"; then echo "FAIL: bob's stream has alice's events"; cat "$dir/sse2"; failed=$((failed+1)); else passed=$((passed+1)); fi
if grep -q '绿茶\|Ally' "$dir/sse1"; then echo "FAIL: content in an event"; failed=$((failed+1)); else passed=$((passed+1)); fi
# resume: after the first id, the events after it (and not it)
sse "$ta" "" "$dir/sse3" -H "Last-Event-ID: $first"; wait $!
n1=$(grep -c '^id: ' "$dir/sse1"); n3=$(grep -c '^id: ' "$dir/sse3")
if [ "$n3" = $((n1 - 1)) ] && ! grep -q "^id: $first\$" "$dir/sse3"; then passed=$((passed+1)); else
  echo "FAIL: Last-Event-ID $first: $n3 events, wanted $((n1 - 1))"; cat "$dir/sse3"; failed=$((failed+1)); fi
sse "$ta" "?after=$first" "$dir/sse4"; wait $!
[ "$(grep -c '^id: ' "$dir/sse4")" = $((n1 - 1)) ] && passed=$((passed+1)) || { echo "FAIL: ?after= resume"; cat "$dir/sse4"; failed=$((failed+1)); }
sse "$tb" "?after=0" "$dir/sse5"; wait $!
grep -q '"user":"alice"' "$dir/sse5" && { echo "FAIL: bob resumes into alice's events"; failed=$((failed+1)); } || passed=$((passed+1))
req GET "/v1/stream?user=alice" "$tb"; expect_code 403 "a stream of another user"; err_is forbidden user "user named"
req GET "/v1/stream?after=x" "$ta"; expect_code 400 "a bad after"; err_is invalid_request after "after named"
# SIGTERM with a stream open: the server still exits 0, promptly
curl -sN --max-time 30 -H "Authorization: Bearer $ta" "$url/v1/stream" >/dev/null 2>&1 & p6=$!
sleep 0.5
t0=$(date +%s%N); stop_server; t1=$(date +%s%N); wait "$p6"
ms=$(( (t1 - t0) / 1000000 ))
if [ "$srv_rc" = 0 ] && [ "$ms" -lt 10000 ]; then passed=$((passed+1)); else
  echo "FAIL: SIGTERM with a stream open: exit $srv_rc after $ms ms"; failed=$((failed+1)); fi
echo "server_more.sh: SIGTERM with an open stream: exit $srv_rc in $ms ms"

# --- 3: webhooks: a signed POST for each write's events, to a local receiver
printf 'wh-secret-密钥\n' >"$dir/secret"
python3 "$here/lib/webhook_receiver.py" 'wh-secret-密钥' "$dir/hooks" "$dir/hook.port" &
rcv_pid=$!
for _ in $(seq 100); do [ -s "$dir/hook.port" ] && break; sleep 0.05; done
hport=$(cat "$dir/hook.port")
expect_rc 2 "--webhook without a secret file" "$CLI" --db "$db" serve --listen 127.0.0.1:0 --webhook "http://127.0.0.1:$hport/h"
expect_out "go together" "the usage error says why"
start_server --webhook "http://127.0.0.1:$hport/h" --webhook-secret-file "$dir/secret"
req POST /v1/events "$ta" '{"text":"以后会议纪要都用中文写","session":"wh1"}'; expect_code 200 "a write (zh)"
req POST /v1/events "$tb" '{"text":"From now on, always write the minutes in English","session":"wh2"}'; expect_code 200 "a write (en)"
for _ in $(seq 50); do [ "$(cat "$dir/hooks" 2>/dev/null | grep -c memory.created)" -ge 2 ] && break; sleep 0.1; done
stop_server
[ "$srv_rc" = 0 ] && passed=$((passed+1)) || { echo "FAIL: server exit $srv_rc (webhooks)"; failed=$((failed+1)); }
kill -TERM "$rcv_pid"; wait "$rcv_pid" 2>/dev/null
if python3 - "$dir/hooks" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows and all(r["verified"] and r["delivery"] for r in rows), rows
users = {r["event"]["user"] for r in rows if r["event"]["type"] == "memory.created"}
assert users == {"alice", "bob"}, users
# only events committed after the start: none of the earlier sections' sessions
assert all("zebra" not in json.dumps(r) for r in rows)
PY
then passed=$((passed+1)); else echo "FAIL: webhook deliveries"; cat "$dir/hooks"; failed=$((failed+1)); fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
