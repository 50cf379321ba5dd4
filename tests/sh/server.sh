#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The HTTP server (agentmem serve, docs/SERVER.md) on a free loopback port:
# every route, every error code it can be made to give, 401 without or
# with a revoked token, the 403 fuse (a token of user A naming user B:
# 403, an audit row, nothing of B in the body), an admin token naming a
# user, Chinese and English texts round-tripping, an idempotent re-send
# with a client id, the body limit, docs/openapi.json against what the
# server answers (tests/sh/lib/openapi_check.py), and SIGTERM during a
# stream of writes: the server exits 0 and every write it acknowledged
# (200) is in the store.  $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: server.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/server.bash"
conc=()

# --- tokens (CLI)
expect_rc 0 "token --help" "$CLI" token --help; expect_out "token create" "token usage"
expect_rc 2 "token without a subcommand" "$CLI" --db "$db" token
expect_rc 2 "token create without --user" "$CLI" --db "$db" token create
expect_rc 0 "token create alice" "$CLI" --db "$db" token create --user alice --agent planner
ta=$(cat "$dir/out")
if [[ "$ta" =~ ^amk_[A-Za-z0-9_-]{43}$ ]] && [ "$(wc -l <"$dir/out")" = 1 ]; then passed=$((passed+1));
else echo "FAIL: token create prints the token alone: '$ta'"; failed=$((failed+1)); fi
tb=$("$CLI" --db "$db" token create --user 用户乙 2>/dev/null)
tadm=$("$CLI" --db "$db" token create --user ops --admin 2>/dev/null)
tgone=$("$CLI" --db "$db" token create --user alice 2>/dev/null)
town=$("$CLI" --db "$db" token create --user alice 2>/dev/null) # the user's own: no agent, no role
expect_rc 0 "token list --json" "$CLI" --db "$db" token list --json
expect_out '"user":"用户乙"' "list names users"; expect_out '"admin":true' "list says admin"
if grep -qF -- "${ta#amk_}" "$dir/out"; then echo "FAIL: token list shows a token"; failed=$((failed+1)); else passed=$((passed+1)); fi
gone_id=$("$CLI" --db "$db" token list --json | python3 -c '
import json,sys; print([t["id"] for t in json.load(sys.stdin)["tokens"] if t["user"]=="alice" and not t["agent"]][0])')
expect_rc 0 "token revoke" "$CLI" --db "$db" token revoke "$gone_id"
expect_rc 1 "token revoke again" "$CLI" --db "$db" token revoke "$gone_id"
expect_out "revoked already" "revoke again says why"
if grep -qF -- "${ta#amk_}" "$db"; then echo "FAIL: the token is in the store file"; failed=$((failed+1)); else passed=$((passed+1)); fi

AGENTMEM_EMBEDDER="w2v:$here/../data/w2v_small.txt" start_server --max-body 65536

# --- health, auth
req GET /healthz ""; expect_code 200 "healthz without a token"; expect_body '"status":"ok"' "healthz body"
req GET /v1/memories ""; expect_code 401 "no token"; err_is unauthorized - "no token: unauthorized"
req GET /v1/memories "amk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"; expect_code 401 "unknown token"
req GET /v1/memories "$tgone"; expect_code 401 "revoked token"; expect_body "revoked" "revoked says so"
req GET /v1/memories "not a token at all"; expect_code 401 "garbage token"
req GET /metrics ""; expect_code 401 "metrics need a token"
req GET /nope "$ta"; expect_code 404 "unknown route"; err_is not_found - "unknown route"
req DELETE /v1/events "$ta"; expect_code 405 "wrong method"; err_is method_not_allowed - "405 code"

# --- events: Chinese and English, one and a list, idempotent
req POST /v1/events "$ta" '{"text":"以后周报都按已完成、进行中、下周计划三段写","session":"s1","task":"weekly-report","at":"2026-03-05T16:00:00+08:00","id":"c-zh-1"}'
expect_code 200 "add zh"; expect_body '"memories_created":1' "add zh created"; expect_body '"existing":false' "add zh new"
req POST /v1/events "$ta" '{"text":"以后周报都按已完成、进行中、下周计划三段写","session":"s1","task":"weekly-report","at":"2026-03-05T16:00:00+08:00","id":"c-zh-1"}'
expect_code 200 "re-send with the same id"; expect_body '"existing":true' "re-send finds it"
req POST /v1/events "$ta" '{"text":"something else","id":"c-zh-1"}'
expect_code 400 "same id, other fields"; err_is invalid_request id "same id other fields names id"
req POST /v1/events "$ta" '{"events":[{"text":"From now on, always send reports as PDF","at":"2026-03-05T16:01:00Z"},{"text":"I live in Lyon","source":"user"}]}'
expect_code 200 "add a list"; expect_body '"results":[' "list results"
req POST /v1/events "$tb" '{"text":"我的银行卡尾号是四五六七，这是乙的秘密","session":"b1"}'
expect_code 200 "add for user B"
req POST /v1/events "$ta" '{"events":[{"text":"fine"},{"text":7}]}'
expect_code 400 "a bad event in a list"; err_is invalid_request "events[1].text" "list error names the event and field"
# concurrent writes, some refused: grouped into one transaction by the
# server, yet each answered as if alone (the good ones 200, the bad 400)
for i in 1 2 3 4 5 6 7 8; do
  if [ $((i % 2)) = 0 ]; then b="{\"text\":\"并发写入 $i\",\"id\":\"conc-$i\"}"; else b="{\"text\":\"bad $i\",\"at\":\"yesterday\"}"; fi
  curl -s -o "$dir/conc.$i" -w '%{http_code}' -H "Authorization: Bearer $ta" --data-binary "$b" "$url/v1/events" >"$dir/conc.code.$i" &
  conc+=($!)
done
wait "${conc[@]}"
for i in 1 2 3 4 5 6 7 8; do
  want=$([ $((i % 2)) = 0 ] && echo 200 || echo 400); code=$(cat "$dir/conc.code.$i"); cp "$dir/conc.$i" "$dir/body"
  expect_code "$want" "concurrent write $i"
done
# --- bad bodies
req POST /v1/events "$ta" '{"text":'; expect_code 400 "bad JSON"; err_is invalid_request - "bad JSON"
req POST /v1/events "$ta" '[1,2]'; expect_code 400 "not an object"
req POST /v1/events "$ta" '{"text":"x","bogus":1}'; expect_code 400 "unknown key"; err_is invalid_request bogus "unknown key named"
req POST /v1/events "$ta" '{"text":"x","task":5}'; expect_code 400 "wrong type"; err_is invalid_request task "wrong type named"
req POST /v1/events "$ta" '{"session":"s"}'; expect_code 400 "missing text"; err_is invalid_request text "missing text"
req POST /v1/events "$ta" '{"text":"x","text":"y"}'; expect_code 400 "duplicate key"
req POST /v1/events "$ta" '{"text":"x","at":"2026-03-05T16:00:00"}'; expect_code 400 "no zone"; err_is invalid_request at "zone error names at"
req POST /v1/events "$ta" '{"text":"x","channel":"wx","external_id":"1"}'; expect_code 400 "channel refused"; err_is invalid_request channel "channel refused by name"
req POST /v1/events "$ta" '{"events":[]}'; expect_code 400 "empty list"; err_is invalid_request events "empty list"
big=$(head -c 70000 /dev/zero | tr '\0' a)
req POST /v1/events "$ta" "{\"text\":\"$big\"}"; expect_code 413 "body over --max-body"; err_is payload_too_large - "413 code"
curl -s -o "$dir/body" -w '%{http_code}' -H "Authorization: Bearer $ta" -H 'Transfer-Encoding: chunked' \
  --data-binary "{\"text\":\"$big\"}" "$url/v1/events" >"$dir/code"; code=$(cat "$dir/code")
expect_code 413 "chunked body over the limit"

# --- recall, memories, versions, task
req POST /v1/recall "$ta" '{"query":"帮我写这周的周报","task":"weekly-report"}'
expect_code 200 "recall zh"; expect_body "三段" "recall zh block"; expect_no_body "四五六七" "nothing of B"
req POST /v1/recall "$ta" '{"query":"how should I send the report?","budget":300,"k":5}'
expect_code 200 "recall en"; expect_body "PDF" "recall en block"
req POST /v1/recall "$ta" '{"query":"x","k":0}'; expect_code 400 "k 0"; err_is invalid_request k "k range"
req POST /v1/recall "$ta" '{"query":"x","budget":"big"}'; expect_code 400 "budget type"; err_is invalid_request budget "budget type"
req POST /v1/recall "$ta" '{}'; expect_code 400 "recall without query"; err_is invalid_request query "query required"
req GET /v1/memories "$ta"; expect_code 200 "memories"; expect_body "以后周报都按已完成、进行中、下周计划三段写" "zh round trip"; expect_body "From now on, always send reports as PDF" "en round trip"
mid=$(python3 -c 'import json,sys; print([m["id"] for m in json.load(open(sys.argv[1])) if "PDF" in m["text"]][0])' "$dir/body")
req GET "/v1/memories?all=1&as_of=2026-03-06T00:00:00Z" "$ta"; expect_code 200 "memories all as_of"
req GET "/v1/memories?all=maybe" "$ta"; expect_code 400 "all=maybe"; err_is invalid_request all "all named"
req GET "/v1/memories/$mid/versions" "$ta"; expect_code 200 "versions"; expect_body "\"memory_id\":\"$mid\"" "versions names it"
req GET "/v1/memories/NOPE/versions" "$ta"; expect_code 404 "versions of nothing"
req POST "/v1/memories/$mid/feedback" "$ta" '{"action":"correct","text":"From now on, always send reports as Word files"}'
expect_code 200 "feedback correct"; expect_body '"ok":true' "feedback ok"
req GET "/v1/memories/$mid/versions" "$ta"; expect_body "Word files" "new version listed"
req POST "/v1/memories/$mid/feedback" "$ta" '{"action":"frobnicate"}'; expect_code 400 "bad action"; err_is invalid_request action "action named"
req POST "/v1/memories/NOPE/feedback" "$ta" '{"action":"confirm"}'; expect_code 404 "feedback on nothing"
req GET /v1/tasks/weekly-report "$ta"; expect_code 200 "task"; expect_body '"task_id":"weekly-report"' "task shape"
req GET /v1/tasks/nope "$ta"; expect_code 404 "unknown task"; err_is not_found - "task 404"

# --- the 403 fuse
for route in "POST /v1/recall {\"query\":\"银行卡\",\"user\":\"用户乙\"}" "GET /v1/memories?user=%E7%94%A8%E6%88%B7%E4%B9%99" \
             "GET /v1/export?user=%E7%94%A8%E6%88%B7%E4%B9%99" "POST /v1/events {\"text\":\"hi\",\"user\":\"用户乙\"}" \
             "POST /v1/forget {\"level\":\"user\",\"user\":\"用户乙\"}" "GET /v1/tasks/b1?user=%E7%94%A8%E6%88%B7%E4%B9%99"; do
  read -r m p b <<<"$route"
  if [ -n "$b" ]; then req "$m" "$p" "$ta" "$b"; else req "$m" "$p" "$ta"; fi
  expect_code 403 "fuse: $m $p"; err_is forbidden user "fuse code: $m $p"; expect_no_body "四五六七" "fuse: nothing of B ($m $p)"
done
n=$(audit_count alice security.denied)
if [ "$n" = 6 ]; then passed=$((passed+1)); else echo "FAIL: 6 denied requests audited, got $n"; failed=$((failed+1)); fi
req POST /v1/events "$ta" '{"text":"x","user":"alice"}'; expect_code 200 "naming oneself is fine"
# --- admin
req GET /v1/memories "$tadm"; expect_code 400 "admin must name the user"; err_is invalid_request user "admin without user"
req GET "/v1/memories?user=%E7%94%A8%E6%88%B7%E4%B9%99" "$tadm"; expect_code 200 "admin names B"
req POST /v1/recall "$tadm" '{"query":"银行卡尾号","user":"用户乙"}'; expect_code 200 "admin recall for B"; expect_body "四五六七" "admin sees B"
# --- links, export, forget, restore
# a link is an admin operation: a tenant claiming an identity is refused and links nothing
req POST /v1/links "$ta" '{"channel":"wechat","external_id":"wx-a"}'; expect_code 403 "a tenant may not link"; err_is forbidden - "link by a tenant: forbidden"
req POST /v1/links "$tb" '{"channel":"wechat","external_id":"wx-c"}'; expect_code 403 "a tenant may not claim an identity"
req POST /v1/links "$tadm" '{"channel":"wechat","external_id":"wx-c","user":"alice"}'; expect_code 200 "the refused claim linked nothing"
req POST /v1/links "$tadm" '{"channel":"wechat","external_id":"wx-a","user":"alice"}'; expect_code 200 "admin links"
req POST /v1/links "$tadm" '{"channel":"wechat","external_id":"wx-a"}'; expect_code 400 "admin link names the user"; err_is invalid_request user "link without user"
req POST /v1/links "$ta" '{"channel":"wechat","external_id":"wx-a","merge":"yes"}'; expect_code 400 "merge type"; err_is invalid_request merge "merge type named"
req POST /v1/links "$ta" '{"channel":"wechat","external_id":"wx-b","merge":true}'; expect_code 403 "merge needs admin"
req POST /v1/links "$tadm" '{"channel":"wechat","external_id":"wx-a","user":"用户乙"}'; expect_code 409 "link taken"; err_is denied - "409 code"; expect_no_body alice "409 names no user"
req GET /v1/export "$ta"; expect_code 403 "an agent's token does not export the whole history"; err_is forbidden - "export refused"
req GET /v1/export "$town"; expect_code 200 "export"; expect_body '"format":"agentmem-export"' "export doc"; expect_body "三段写" "export zh"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$dir/body" && passed=$((passed+1)) || { echo "FAIL: export is not JSON"; failed=$((failed+1)); }
# nosniff on every response: a plain one, an error, the streamed export and the event stream
for what in "healthz:$url/healthz" "401:$url/v1/memories" "export:$url/v1/export" "stream:$url/v1/stream"; do
  t=$town; [ "${what%%:*}" = 401 ] && t=not-a-token
  curl -sN -D "$dir/head" -o /dev/null --max-time 2 -H "Authorization: Bearer $t" "${what#*:}" 2>/dev/null
  if tr -d '\r' <"$dir/head" | grep -qi '^X-Content-Type-Options: nosniff$'; then passed=$((passed+1))
  else echo "FAIL: ${what%%:*}: no X-Content-Type-Options: nosniff"; cat "$dir/head"; failed=$((failed+1)); fi
done
req POST /v1/forget "$ta" '{"level":"session","id":"s1"}'; expect_code 200 "forget session"; expect_body '"events":' "forget shape"
req POST /v1/forget "$ta" '{"level":"galaxy"}'; expect_code 400 "bad level"; err_is invalid_request level "level named"
req POST /v1/forget "$ta" '{"level":"task"}'; expect_code 400 "forget without id"; err_is invalid_request id "id required"
req POST /v1/forget "$ta" '{"level":"task","id":"x","grace":-5}'; expect_code 400 "negative grace"; err_is invalid_request grace "grace named"
req POST /v1/forget "$tb" '{"level":"user","grace":3600}'; expect_code 200 "forget B with grace"
req POST /v1/events "$tb" '{"text":"还在吗"}'; expect_code 409 "write for a forgotten user"; err_is denied - "denied code"
req POST /v1/restore "$tb" '{"bogus":1}'; expect_code 400 "restore unknown key"
req POST /v1/restore "$tb" ''; expect_code 200 "restore"; expect_body '"restored":true' "restore shape"
req POST /v1/restore "$tb" '{}'; expect_code 404 "restore what is not forgotten"
# --- metrics, openapi
req GET /metrics "$ta"; expect_code 200 "metrics"
expect_body 'agentmem_http_requests_total{route="POST /v1/events",status="200"}' "metrics count requests"
expect_body 'agentmem_http_errors_total{route="POST /v1/recall",status="403"}' "metrics count errors"
expect_body 'agentmem_http_request_duration_seconds_bucket{route="POST /v1/recall",le="+Inf"}' "metrics latency"
expect_body 'agentmem_store_bytes{file="db"}' "metrics store size"
req GET /openapi.json "$ta"; expect_code 200 "openapi"
cmp -s "$dir/body" docs/openapi.json && passed=$((passed+1)) || { echo "FAIL: /openapi.json is not docs/openapi.json"; failed=$((failed+1)); }
if python3 "$here/lib/openapi_check.py" docs/openapi.json tools/server/route_table.c "$url" "$ta" "$tadm" >"$dir/oa" 2>&1; then
  passed=$((passed+1)); else echo "FAIL: openapi check"; cat "$dir/oa"; failed=$((failed+1)); fi
stop_server
[ "$srv_rc" = 0 ] && passed=$((passed+1)) || { echo "FAIL: server exit $srv_rc after SIGTERM"; failed=$((failed+1)); }

# --- SIGTERM during a stream of writes: every acknowledged write is there
start_server
: >"$dir/acked"
writer() { # w: 4 writers, each its own ids
  for i in $(seq 1 400); do
    c=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $ta" \
        --data-binary "{\"text\":\"写入 $1-$i: note number $i\",\"id\":\"w$1-$i\"}" "$url/v1/events")
    [ "$c" = 200 ] && echo "w$1-$i" >>"$dir/acked.$1"
    [ "$c" = 000 ] && break
  done
}
writers=()
for w in 1 2 3 4; do writer "$w" & writers+=($!); done
sleep 1.5
stop_server
wait "${writers[@]}"
cat "$dir"/acked.* >"$dir/acked" 2>/dev/null
[ "$srv_rc" = 0 ] && passed=$((passed+1)) || { echo "FAIL: server exit $srv_rc after SIGTERM under load"; cat "$dir/srv.err"; failed=$((failed+1)); }
n_acked=$(wc -l <"$dir/acked")
"$CLI" --db "$db" export --user alice >"$dir/export.json"
missing=$(python3 - "$dir/export.json" "$dir/acked" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
texts = "\n".join(e["content"] for e in d["events"])
acked = [l.strip() for l in open(sys.argv[2]) if l.strip()]
print(sum(1 for a in acked if ("写入 " + a[1:] + ":") not in texts))
PY
)
if [ "$n_acked" -gt 0 ] && [ "$missing" = 0 ]; then passed=$((passed+1)); else
  echo "FAIL: SIGTERM: $n_acked writes acknowledged, $missing of them missing"; failed=$((failed+1)); fi
echo "server.sh: $n_acked writes acknowledged before SIGTERM, all present"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
