#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A chat transcript in (docs/SERVER.md "Chat messages"), Chinese and English:
#   - POST /v1/events {"messages": [...], "session", "at"}: one event per
#     message, in order, each with its role's source (assistant -> agent,
#     an assistant's name its agent), one millisecond apart, the answer
#     {"results": [...]} as a list of events gets;
#   - bad input (an empty list, an unknown role, a missing content, a
#     content over the size limit, "text" beside "messages", a wrong type)
#     is 400 naming messages[i].field, and nothing of the call is written;
#   - another user's token may not write into the user (403), an agent's
#     token may not name another agent (403, messages[i].agent);
#   - the CLI's add --messages FILE and - (stdin), its errors by field, the
#     transcript's metadata (in the file or --metadata).
# $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: chat_messages.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/server.bash"

tok() { "$CLI" --db "$db" token create "$@" 2>/dev/null; }
"$CLI" --db "$db" token create --user alice >/dev/null 2>&1
ta=$(tok --user alice)
tb=$(tok --user bob)
tagent=$(tok --user alice --agent planner)
start_server

check() { # description python-condition over j (the body)
  if python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$dir/body"
  then passed=$((passed+1)); else echo "FAIL: $1"; cat "$dir/body"; echo; failed=$((failed+1)); fi
}
events_of() { # user -> $dir/body: the export's events
  "$CLI" --db "$db" export --user "$1" >"$dir/body" 2>/dev/null || echo '{"events":[]}' >"$dir/body"
}
count_events() { events_of "$1"; python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['events']))" "$dir/body"; }

# --- a transcript, English and Chinese, with a time
req POST /v1/events "$ta" '{"messages":[
  {"role":"user","content":"I prefer my reports as PDF"},
  {"role":"assistant","content":"Noted: PDF from now on.","name":"writer"},
  {"role":"tool","content":"calendar: 3 meetings today"},
  {"role":"system","content":"你是一个中文助手","name":"sys"},
  {"role":"user","content":"我不喝咖啡，只喝茶"}],
  "session":"chat-1","at":"2026-03-01T09:00:00+08:00"}'
expect_code 200 "messages in"
check "five results in order" 'len(j["results"]) == 5 and all(r["user"] == "alice" and not r["existing"] for r in j["results"])'
ids=$(python3 -c "import json,sys; print(' '.join(r['event_id'] for r in json.load(open(sys.argv[1]))['results']))" "$dir/body")
events_of alice
check "sources, agents, contents and order" '[(e["source"], e["agent"], e["session"], e["content"]) for e in j["events"]] == [
  ("user", None, "chat-1", "I prefer my reports as PDF"), ("agent", "writer", "chat-1", "Noted: PDF from now on."),
  ("tool", None, "chat-1", "calendar: 3 meetings today"), ("system", None, "chat-1", "你是一个中文助手"),
  ("user", None, "chat-1", "我不喝咖啡，只喝茶")]'
check "the answer's ids are the events' ids, in order" "[e['id'] for e in j['events']] == '$ids'.split()"
check "at kept (the zone), one ms apart keeps the order" 'all(e["occurred_at"] == "2026-03-01T09:00:00+08:00" for e in j["events"])'
ms=$(sqlite3 "$db" "SELECT group_concat(occurred_at, ' ') FROM (SELECT occurred_at FROM events WHERE user_id='alice' ORDER BY rid)")
if python3 -c "import sys; v=[int(x) for x in sys.argv[1].split()]; sys.exit(0 if v == list(range(v[0], v[0]+5)) else 1)" "$ms"
then passed=$((passed+1)); else echo "FAIL: times not i ms apart: $ms"; failed=$((failed+1)); fi
req GET /v1/memories "$ta"
expect_body "PDF" "the user's statement became a memory (en)"
expect_body "咖啡" "the user's statement became a memory (zh)"

# --- bad input: 400 naming the field, nothing written
n0=$(count_events alice)
bad() { # body field description
  req POST /v1/events "$ta" "$1"; expect_code 400 "$3"; err_is invalid_request "$2" "$3 (field)"
}
bad '{"messages":[]}' messages "an empty list"
bad '{"messages":"hi"}' messages "messages not an array"
bad '{"messages":[{"role":"user","content":"ok"},{"role":"user","content":"fine"},{"role":"user","content":"x"},{"role":"bot","content":"hi"}]}' 'messages[3].role' "an unknown role"
bad '{"messages":[{"role":"user","content":"我很好"},{"role":"assistant"}]}' 'messages[1].content' "a missing content"
bad '{"messages":[{"content":"好的"}]}' 'messages[0].role' "a missing role"
bad '{"messages":[{"role":"user","content":7}]}' 'messages[0].content' "a content of a wrong type"
bad '{"messages":[{"role":"user","content":"x","mood":"happy"}]}' 'messages[0].mood' "an unknown message field"
bad '{"messages":[{"role":"user","content":"x"}],"text":"y"}' text "text beside messages"
bad '{"messages":[{"role":"user","content":"x"}],"events":[]}' events "events beside messages"
bad '{"messages":[{"role":"user","content":"x"}],"at":"yesterday"}' at "a bad at"
bad '{"messages":[{"role":"user","content":"x"}],"colour":"red"}' colour "an unknown top-level field"
bad '{"messages":[{"role":"user","content":"x","name":""}]}' 'messages[0].name' "an empty name"
big=$(python3 -c "print('长' * 40000)")
bad "{\"messages\":[{\"role\":\"user\",\"content\":\"fine\"},{\"role\":\"user\",\"content\":\"$big\"}]}" 'messages[1].content' "a content over the size limit"
bad '{"messages":[{"role":"user","content":"ok"},{"role":"user","content":"bad \u0000 nul"}]}' 'messages[1].content' "a NUL in content"
n1=$(count_events alice)
if [ "$n0" = "$n1" ]; then passed=$((passed+1)); else echo "FAIL: a refused call wrote events ($n0 -> $n1)"; failed=$((failed+1)); fi

# --- the token's user rules
req POST /v1/events "$tb" '{"messages":[{"role":"user","content":"I live in Oslo"}],"user":"alice"}'
expect_code 403 "another user's token"; err_is forbidden user "user named"
req POST /v1/events "$tagent" '{"messages":[{"role":"assistant","content":"hi","name":"intruder"}]}'
expect_code 403 "an agent token naming another agent"; err_is forbidden 'messages[0].agent' "agent named"
req POST /v1/events "$tagent" '{"messages":[{"role":"assistant","content":"Plan ready."},{"role":"user","content":"thanks"}]}'
expect_code 200 "an agent token writes as its agent"
events_of alice
check "the token's agent on both" '[e["agent"] for e in j["events"][-2:]] == ["planner", "planner"]'
n2=$(count_events bob)
if [ "$n2" = 0 ]; then passed=$((passed+1)); else echo "FAIL: bob got events"; failed=$((failed+1)); fi

# --- the CLI
cat >"$dir/t.json" <<'JSON'
[{"role":"user","content":"My favourite colour is teal"},{"role":"assistant","content":"Teal noted.","name":"painter"}]
JSON
expect_rc 0 "add --messages FILE" "$CLI" --db "$db" add --messages "$dir/t.json" --user carol --session s9 --json
expect_out '"results"' "the CLI answers a list"
echo '{"messages":[{"role":"user","content":"我住在杭州"}],"user":"carol"}' >"$dir/z.json"
expect_rc 0 "add --messages - (stdin)" sh -c "\"$CLI\" --db \"$db\" add --messages - <\"$dir/z.json\""
events_of carol
check "CLI events" '[(e["source"], e["agent"], e["content"]) for e in j["events"]] == [("user", None, "My favourite colour is teal"), ("agent", "painter", "Teal noted."), ("user", None, "我住在杭州")]'
echo '[{"role":"user","content":"ok"},{"role":"robot","content":"x"}]' >"$dir/b.json"
expect_rc 1 "a bad role" "$CLI" --db "$db" add --messages "$dir/b.json" --user carol
expect_out 'messages\[1\].role' "the CLI names the field"
echo '{"messages":[{"role":"user","content":"x"}],"user":"dave"}' >"$dir/u.json"
expect_rc 1 "--user and the file's user differ" "$CLI" --db "$db" add --messages "$dir/u.json" --user carol
expect_rc 2 "--messages with --text" "$CLI" --db "$db" add --messages "$dir/t.json" --user carol --text x
events_of carol
check "nothing more written by the refused CLI calls" 'len(j["events"]) == 3'
# the transcript's metadata (in the file or --metadata): every message's event carries it
echo '{"messages":[{"role":"user","content":"我对花生过敏"},{"role":"assistant","content":"记下了"}],"user":"erin","metadata":{"app":"crm"}}' >"$dir/m.json"
expect_rc 0 "add --messages with metadata" "$CLI" --db "$db" add --messages "$dir/m.json"
echo '[{"role":"user","content":"I prefer aisle seats on long flights"}]' >"$dir/m2.json"
expect_rc 0 "add --messages --metadata" "$CLI" --db "$db" add --messages "$dir/m2.json" --user erin --metadata '{"app":"travel"}'
expect_rc 1 "--metadata and the file's differ" "$CLI" --db "$db" add --messages "$dir/m.json" --metadata '{"app":"x"}'
events_of erin
check "the events carry their transcript's metadata" '[(e["content"], e["metadata"]) for e in j["events"]] == [("我对花生过敏", {"app": "crm"}), ("记下了", {"app": "crm"}), ("I prefer aisle seats on long flights", {"app": "travel"})]'

stop_server
echo "chat_messages: $passed passed, $failed failed"
[ "$failed" = 0 ]
