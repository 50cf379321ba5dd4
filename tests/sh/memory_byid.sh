#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One memory by id against a live server, the CLI and PostgreSQL
# (docs/SERVER.md "One memory", docs/FORGETTING.md), Chinese and English:
#   - POST /v1/memories (201), a new value of the same key supersedes (same
#     lineage), GET /v1/memories/{id} by the lineage id and by an earlier
#     version's id, PATCH (a correction), feedback answering with the new
#     current version through a stale id ("ok" kept), reject -> null;
#   - bad JSON, an unknown field, a wrong type, a missing text, a bad kind:
#     400 naming the field; another user's token: 404 (never 403), and the
#     memory is untouched;
#   - DELETE -> {"deleted": n}, then GET 404 naming the id; the SQLite file
#     and its log, with the server still holding them open, keep no byte of
#     the deleted texts;
#   - MCP update_memory and delete_memory;
#   - the CLI's memory get|add|update|delete and its argument errors;
#   - PostgreSQL: add, update, delete through --store URL leave no row of
#     any table holding the deleted texts (skipped without PostgreSQL).
# $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: memory_byid.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/server.bash"

tok() { "$CLI" --db "$db" token create "$@" 2>/dev/null; }
"$CLI" --db "$db" token create --user alice >/dev/null 2>&1 # makes the store
ta=$(tok --user alice)
tb=$(tok --user bob)
start_server

jget() { # python expression over the body's JSON "j"
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($1)" "$dir/body"
}
check() { # description python-condition over j
  if python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$dir/body"
  then passed=$((passed+1)); else echo "FAIL: $1"; cat "$dir/body"; echo; failed=$((failed+1)); fi
}
# 1 when the store's files (.db, -wal) hold the UTF-8 bytes of $1
in_files() {
  python3 - "$db" "$1" <<'PY'
import os, sys
p, w = sys.argv[1], sys.argv[2].encode()
found = any(os.path.exists(f) and w in open(f, "rb").read() for f in (p, p + "-wal"))
print(1 if found else 0)
PY
}

# --- add, supersede by key, get by lineage and by version (en)
req POST /v1/memories "$ta" '{"text":"My courier alias is Quillfeather","kind":"fact","key":"courier.alias"}'
expect_code 201 "POST /v1/memories"; check "201 holds the memory" 'j["memory"]["text"] == "My courier alias is Quillfeather"'
lin=$(jget 'j["memory"]["lineage_id"]'); v1=$(jget 'j["memory"]["id"]')
check "source api" 'j["memory"]["source_event_ids"] == ["api"]'
req POST /v1/memories "$ta" '{"text":"My courier alias is Mandolinwick now","kind":"fact","key":"courier.alias"}'
expect_code 201 "a second value of the key"; check "same lineage" "j['memory']['lineage_id'] == '$lin'"
req GET "/v1/memories/$lin" "$ta"; expect_code 200 "GET by lineage"
check "current is the new value" 'j["memory"]["text"] == "My courier alias is Mandolinwick now"'
check "every version" 'len(j["versions"]) >= 3 and j["versions"][0]["text"] == "My courier alias is Quillfeather"'
req GET "/v1/memories/$v1" "$ta"; expect_code 200 "GET by the first version's id"
check "the same item" "j['memory']['lineage_id'] == '$lin'"

# --- zh: add, update through the first version's id, feedback through a stale id
req POST /v1/memories "$ta" '{"text":"我的储物柜密码是琥珀鹦鹉螺","kind":"fact"}'
expect_code 201 "POST /v1/memories (zh)"
zl=$(jget 'j["memory"]["lineage_id"]'); z1=$(jget 'j["memory"]["id"]')
req PATCH "/v1/memories/$z1" "$ta" '{"text":"我的储物柜密码改成青铜海马了"}'
expect_code 200 "PATCH (zh)"; check "new current" 'j["memory"]["text"] == "我的储物柜密码改成青铜海马了"'
z2=$(jget 'j["memory"]["id"]')
req POST "/v1/memories/$z1/feedback" "$ta" '{"action":"confirm"}'
expect_code 200 "feedback through a stale id"; check "ok and the new version" "j['ok'] is True and j['memory']['id'] not in ('$z1', '$z2') and j['memory']['lineage_id'] == '$zl'"
req POST "/v1/memories/$zl/feedback" "$ta" '{"action":"reject"}'
expect_code 200 "reject"; check "no current version after reject" 'j["ok"] is True and j["memory"] is None'

# --- bad input names the field
req PATCH "/v1/memories/$lin" "$ta" '{"text":1}'; expect_code 400 "PATCH text of a wrong type"; err_is invalid_request text "text named"
req PATCH "/v1/memories/$lin" "$ta" '{"txt":"x"}'; expect_code 400 "PATCH unknown field"; err_is invalid_request txt "txt named"
req PATCH "/v1/memories/$lin" "$ta" '{}'; expect_code 400 "PATCH without text"; err_is invalid_request text "text required"
req PATCH "/v1/memories/$lin" "$ta" '{"text":'; expect_code 400 "PATCH bad JSON"
req POST /v1/memories "$ta" '{"text":"I like tea","kind":"feeling"}'; expect_code 400 "bad kind"; err_is invalid_request kind "kind named"
req POST /v1/memories "$ta" '{"text":"I like tea","scope":"planet:mars"}'; expect_code 400 "bad scope"; err_is invalid_request scope "scope named"
req POST /v1/memories "$ta" '{"text":"   "}'; expect_code 400 "blank text"; err_is invalid_request text "blank text named"

# --- another user's token: 404, never 403; nothing changes
req GET "/v1/memories/$lin" "$tb"; expect_code 404 "bob GET alice's memory"
req PATCH "/v1/memories/$lin" "$tb" '{"text":"hijacked"}'; expect_code 404 "bob PATCH alice's memory"
req DELETE "/v1/memories/$v1" "$tb"; expect_code 404 "bob DELETE alice's memory"
req POST "/v1/memories/$lin/feedback" "$tb" '{"action":"reject"}'; expect_code 404 "bob feedback on alice's memory"
req GET "/v1/memories/$lin" "$ta"; check "alice's memory untouched" 'j["memory"]["text"] == "My courier alias is Mandolinwick now"'
req GET "/v1/memories/$lin?user=bob" "$ta"; expect_code 403 "alice's token naming bob"

# --- delete: every version, then 404; no byte left in the files
[ "$(in_files Quillfeather)" = 1 ] && passed=$((passed+1)) || { echo "FAIL: the text is not in the file before"; failed=$((failed+1)); }
req DELETE "/v1/memories/$v1" "$ta"; expect_code 200 "DELETE"; check "versions counted" 'j["deleted"] >= 3'
req GET "/v1/memories/$lin" "$ta"; expect_code 404 "GET after DELETE"; expect_body "$lin" "the 404 names the id"
req DELETE "/v1/memories/$zl" "$ta"; expect_code 200 "DELETE (zh)"
for w in Quillfeather Mandolinwick 琥珀鹦鹉螺 青铜海马; do
  [ "$(in_files "$w")" = 0 ] && passed=$((passed+1)) || { echo "FAIL: '$w' still in the store's files"; failed=$((failed+1)); }
done
n=$(sqlite3 "$db" "SELECT count(*) FROM audit_log WHERE op='memory.deleted' AND object_id IN ('$lin','$zl')")
[ "$n" = 2 ] && passed=$((passed+1)) || { echo "FAIL: memory.deleted audited $n times"; failed=$((failed+1)); }

# --- MCP: update_memory, delete_memory
req POST /v1/memories "$ta" '{"text":"I park on level B2","key":"parking.level"}'; ml=$(jget 'j["memory"]["lineage_id"]')
mcp() { code=$(curl -s -o "$dir/body" -w '%{http_code}' --max-time 20 -X POST -H "Authorization: Bearer $ta" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2025-11-25' --data-binary "$1" "$url/mcp"); }
mcp '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
mcp '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'; expect_body '"update_memory"' "tools/list has update_memory"; expect_body '"delete_memory"' "tools/list has delete_memory"
mcp "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"update_memory\",\"arguments\":{\"id\":\"$ml\",\"text\":\"我把车停在B3层\"}}}"
expect_code 200 "mcp update_memory"; expect_no_body '"isError":true' "update_memory succeeded"; expect_body '我把车停在B3层' "the new version"
mcp "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"delete_memory\",\"arguments\":{\"id\":\"$ml\"}}}"
expect_code 200 "mcp delete_memory"; expect_body '"deleted"' "deleted counted"
mcp "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"delete_memory\",\"arguments\":{\"id\":\"$ml\"}}}"
expect_body '"isError":true' "a second delete is an error result"
req GET "/v1/memories/$ml" "$ta"; expect_code 404 "GET after the MCP delete"
stop_server
[ "$srv_rc" = 0 ] && passed=$((passed+1)) || { echo "FAIL: server exit $srv_rc"; failed=$((failed+1)); }

# --- the CLI
c="$dir/cli.db"
expect_rc 0 "memory add (zh)" "$CLI" --db "$c" memory add --user u --text "我每天早上喝乌龙茶" --key drink.morning --json
cid=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['memory']['id'])" "$dir/out")
expect_rc 0 "memory add (en), same key" "$CLI" --db "$c" memory add --user u --text "I drink espresso every morning now" --key drink.morning
expect_rc 0 "memory get by the first version's id" "$CLI" --db "$c" memory get "$cid" --user u
expect_out "I drink espresso every morning now" "get shows the current version"
expect_out "乌龙茶" "get shows the earlier version"
expect_rc 0 "memory update" "$CLI" --db "$c" memory update "$cid" --user u --text "I drink green tea every morning" --json
expect_out '"text":"I drink green tea every morning"' "update prints the new version"
expect_rc 0 "memory delete" "$CLI" --db "$c" memory delete "$cid" --user u --json
expect_out '"deleted":' "delete counts the versions"
expect_rc 1 "memory get after delete" "$CLI" --db "$c" memory get "$cid" --user u
expect_out "has no memory $cid" "not found names the id"
expect_rc 2 "memory get without ID" "$CLI" --db "$c" memory get --user u; expect_out "ID is required" "the ID named"
expect_rc 2 "memory update without --text" "$CLI" --db "$c" memory update "$cid" --user u; expect_out -- "--text is required" "--text named"
expect_rc 2 "memory add without --user" "$CLI" --db "$c" memory add --text x; expect_out -- "--user is required" "--user named"
expect_rc 2 "memory frob" "$CLI" --db "$c" memory frob; expect_out "expected get, add, update or delete" "the subcommand named"
expect_rc 1 "memory add with a bad kind" "$CLI" --db "$c" memory add --user u --text x --kind feeling; expect_out "kind:" "kind named"
expect_rc 1 "memory get of another user" "$CLI" --db "$c" memory get "$cid" --user v

# --- PostgreSQL: no row of any table keeps a deleted text
. "$(dirname "$0")/lib/pg.bash"
if pg_find >/dev/null && pg_init am-pgbyid && trap 'pg_cleanup; rm -rf "$dir"' EXIT && pg_start; then
  pg_new_db tcp
  out=$("$CLI" --store "$URL" memory add --user ana --text "My locker code is Zephyrquartz" --key locker.code --json 2>&1) \
    && passed=$((passed+1)) || { echo "FAIL: memory add on PostgreSQL: $out"; failed=$((failed+1)); }
  pl=$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["memory"]["lineage_id"])' 2>/dev/null)
  "$CLI" --store "$URL" memory update "$pl" --user ana --text "我的柜子密码是翠玉麒麟" >/dev/null 2>&1 \
    && passed=$((passed+1)) || { echo "FAIL: memory update on PostgreSQL"; failed=$((failed+1)); }
  "$CLI" --store "$URL" memory add --user ana --text "My bike is the Saffronwheel" --key bike.name >/dev/null 2>&1
  "$CLI" --store "$URL" memory delete "$pl" --user ana >/dev/null 2>&1 \
    && passed=$((passed+1)) || { echo "FAIL: memory delete on PostgreSQL"; failed=$((failed+1)); }
  "$CLI" --store "$URL" memory get "$pl" --user ana >/dev/null 2>&1
  [ $? = 1 ] && passed=$((passed+1)) || { echo "FAIL: get after delete on PostgreSQL"; failed=$((failed+1)); }
  tables=$(psql_in "$DB" "SELECT c.relname FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace")
  for w in Zephyrquartz 翠玉麒麟 Saffronwheel; do
    k=0
    for t in $tables; do
      k=$((k + $(psql_in "$DB" "SELECT count(*) FROM \"$t\" x WHERE x::text LIKE '%$w%'")))
    done
    want=0; [ "$w" = Saffronwheel ] && want=1 # what was not deleted stays
    [ "$k" -ge "$want" ] && { [ "$want" = 1 ] || [ "$k" = 0 ]; } && passed=$((passed+1)) \
      || { echo "FAIL: PostgreSQL: '$w' in $k rows"; failed=$((failed+1)); }
  done
  pg_cleanup
else
  echo "SKIP: PostgreSQL part (no PostgreSQL)"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
