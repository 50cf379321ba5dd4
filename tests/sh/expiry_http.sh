#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Expiry over HTTP (docs/EXPIRY.md, docs/SERVER.md), Chinese and English:
#   - POST /v1/memories with expires_at: 201, the memory's JSON shows
#     expires_at (the instant given, in UTC) beside valid_to, version_state
#     "current"; GET /v1/memories lists it;
#   - a statement whose words bound it ("this week", "这个月") gets its
#     expires_at from the text, resolved in the server's clock;
#   - errors name the field: a time without a zone, not a time, a number,
#     an expiry in the past -- 400 invalid_request, field expires_at, and
#     nothing written;
#   - the CLI's memory add --expires, and its refusal of a past one;
#   - MCP add_memory with expires_at.
# $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: expiry_http.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/server.bash"

"$CLI" --db "$db" token create --user alice >/dev/null 2>&1 # makes the store
ta=$("$CLI" --db "$db" token create --user alice 2>/dev/null)
start_server

check() { # description python-condition over j (the body's JSON)
  if python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$dir/body"
  then passed=$((passed+1)); else echo "FAIL: $1"; cat "$dir/body"; echo; failed=$((failed+1)); fi
}
future=$(python3 -c "import datetime as d; print((d.datetime.now(d.timezone.utc)+d.timedelta(days=3)).replace(microsecond=0).astimezone(d.timezone(d.timedelta(hours=8))).isoformat())")
future_utc=$(python3 -c "import datetime as d,sys; print(d.datetime.fromisoformat(sys.argv[1]).astimezone(d.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'))" "$future")
past=$(python3 -c "import datetime as d; print((d.datetime.now(d.timezone.utc)-d.timedelta(hours=1)).replace(microsecond=0).isoformat())")

# --- expires_at given (en, zh)
req POST /v1/memories "$ta" "{\"text\":\"The office is closed for renovation\",\"kind\":\"fact\",\"expires_at\":\"$future\"}"
expect_code 201 "POST /v1/memories with expires_at"
check "expires_at is the instant given" "j['memory']['expires_at'] == '$future_utc' and j['memory']['valid_to'] == '$future_utc'"
check "still current" 'j["memory"]["version_state"] == "current" and j["memory"]["status"] == "active"'
req POST /v1/memories "$ta" "{\"text\":\"车停在B2层\",\"kind\":\"fact\",\"key\":\"parking.level\",\"expires_at\":\"$future\"}"
expect_code 201 "zh with expires_at"; check "zh expires_at" "j['memory']['expires_at'] == '$future_utc'"
req POST /v1/memories "$ta" '{"text":"I prefer aisle seats","kind":"preference"}'
expect_code 201 "no expiry"; check "expires_at null" 'j["memory"]["expires_at"] is None and j["memory"]["valid_to"] is None'
req GET /v1/memories "$ta"; expect_code 200 "list"
check "listed, each with expires_at" 'len(j) == 3 and all("expires_at" in m for m in j) and sum(m["expires_at"] is not None for m in j) == 2'

# --- bounded by its own words
req POST /v1/memories "$ta" '{"text":"This week I prefer meetings after 2pm"}'
expect_code 201 "this week"; check "this week: an expiry within 7 days" 'j["memory"]["expires_at"] is not None'
req POST /v1/memories "$ta" '{"text":"这个月我喜欢喝茶"}'
expect_code 201 "这个月"; check "这个月: an expiry" 'j["memory"]["expires_at"] is not None'
req POST /v1/memories "$ta" '{"text":"From today on I prefer window seats"}'
expect_code 201 "from today on"; check "from today on: none" 'j["memory"]["expires_at"] is None'

# --- errors name the field, nothing is written
for body in "{\"text\":\"Parking on level 3\",\"expires_at\":\"2030-01-01T00:00:00\"}" \
            "{\"text\":\"Parking on level 3\",\"expires_at\":\"next tuesday\"}" \
            "{\"text\":\"停车在三层\",\"expires_at\":\"$past\"}"; do
  req POST /v1/memories "$ta" "$body"
  expect_code 400 "bad expires_at: $body"; err_is invalid_request expires_at "bad expires_at names it: $body"
  expect_body "expires_at" "the message names expires_at"
done
req POST /v1/memories "$ta" '{"text":"Parking on level 3","expires_at":12}'
expect_code 400 "a number"; err_is invalid_request expires_at "a number names expires_at"
req POST /v1/memories "$ta" "{\"text\":\"停车在三层\",\"expires_at\":\"$past\"}"
expect_body "is not after now" "past: says why"
req GET "/v1/memories?all=1" "$ta"
check "nothing written by a refusal" 'not any("level 3" in m["text"] or "三层" in m["text"] for m in j)'
stop_server

# --- the CLI
expect_rc 0 "memory add --expires" "$CLI" --db "$db" memory add --user alice --text "Desk 14 is mine" --kind fact --expires "$future" --json
expect_out "\"expires_at\":\"$future_utc\"" "the CLI's JSON shows expires_at"
expect_rc 1 "memory add --expires in the past" "$CLI" --db "$db" memory add --user alice --text "Desk 15 is mine" --expires "$past"
expect_out "expires_at: .* is not after now" "the CLI says why"
expect_rc 2 "--expires is an option of add" "$CLI" --db "$db" memory update X --user alice --text t --expires "$future"

# --- MCP add_memory
mcp_in=$(printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
  "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"add_memory\",\"arguments\":{\"text\":\"会议室A在装修\",\"kind\":\"fact\",\"expires_at\":\"$future\"}}}" \
  "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"add_memory\",\"arguments\":{\"text\":\"Room B is booked\",\"expires_at\":\"$past\"}}}")
printf '%s\n' "$mcp_in" | timeout 20 "$CLI" --db "$db" mcp --user alice >"$dir/mcp.out" 2>"$dir/mcp.err"
python3 - "$dir/mcp.out" "$future_utc" <<'PY' && passed=$((passed+1)) || { echo "FAIL: MCP add_memory"; cat "$dir/mcp.out" "$dir/mcp.err"; failed=$((failed+1)); }
import json, sys
r = {m["id"]: m for m in map(json.loads, open(sys.argv[1]))}
ok = r[2]["result"]["structuredContent"]["memory"]["expires_at"] == sys.argv[2]
ok = ok and r[3]["result"]["isError"] and "expires_at" in json.dumps(r[3]["result"])
sys.exit(0 if ok else 1)
PY

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
