#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Import (docs/IMPORT.md), Chinese and English:
#   - the CLI: export -> import into an empty store -> export gives the same
#     bytes but for exported_at, the tasks' task_ref and the import's own last
#     audit row; a second import is refused (exit 1, the store unchanged),
#     --merge adds only what is missing; a malformed file names the field and
#     writes nothing; --from mem0 FILE --user U;
#   - POST /v1/import: an admin token only (a user's token: 403, nothing
#     written), the same round trip through HTTP, mem0 through HTTP, a bad
#     document named by field (400), a user with data (409);
#   - PostgreSQL: the round trip SQLite -> PostgreSQL -> export is exact
#     (skipped without PostgreSQL).
# $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: import.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/server.bash"

src="$dir/src.db"
A() { "$CLI" --db "$src" "$@" >/dev/null 2>&1 || { echo "FAIL: setup: $*"; failed=$((failed+1)); }; }
A add --user li --text "以后周报都按三段写" --session s-zh --at 2026-03-02T09:00:00+08:00 --metadata '{"team":"财务部"}'
A add --user li --text "我的邮箱是 li@example.com" --session s-zh --at 2026-03-02T09:01:00+08:00
A add --user li --text "好的，记住了" --source agent --agent helper --session s-zh --at 2026-03-02T09:01:30+08:00
A add --user li --text "Task weekly report: stage draft, review next Monday" --task weekly --at 2026-03-02T09:02:00+08:00
A add --user li --text "I prefer reports in PDF" --session s-en --at 2026-03-02T10:00:00Z --metadata '{"project":"apollo","n":3}'
A add --user li --text "Actually I now prefer reports in Word" --session s-en --at 2026-03-03T10:00:00Z
A workspace put --user li --task weekly --agent planner --doing drafting --next review
A link --user li --channel tg --external-id 42
"$CLI" --db "$src" export --user li >"$dir/e1.json"
# the events' own metadata is in the export (and so in the round trip below)
python3 - "$dir/e1.json" <<'PY' && passed=$((passed+1)) || { echo "FAIL: an event's own metadata is exported"; failed=$((failed+1)); }
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
ev = {e["content"]: e.get("metadata") for e in d["events"]}
assert ev["以后周报都按三段写"] == {"team": "财务部"}, ev
assert ev["I prefer reports in PDF"] == {"project": "apollo", "n": 3}, ev
PY

# same_export A B: the same bytes but exported_at, task_ref, and B's last audit row (the import's)
same_export() {
  if python3 - "$1" "$2" <<'PY'
import re, sys
a, b = open(sys.argv[1], encoding="utf-8").read(), open(sys.argv[2], encoding="utf-8").read()
norm = lambda s: re.sub(r'"task_ref":"t[0-9a-f]{16}"', '"task_ref":""', re.sub(r'"exported_at":"[^"]*"', '"exported_at":""', s))
a, b = norm(a), norm(b)
cut = b.rfind(',{"at":')
assert '"op":"user.import"' in b[cut:], "no import row last"
b = b[:cut] + b[b.rindex("]}"):]
if a != b:
    i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
    print("differs at", i, "of", len(a), len(b), a[i-80:i+80], "|", b[i-80:i+80]); sys.exit(1)
PY
  then passed=$((passed+1)); else echo "FAIL: $3"; failed=$((failed+1)); fi
}

# --- the CLI round trip
expect_rc 0 "import into an empty store" "$CLI" --db "$dir/dst.db" import "$dir/e1.json" --json
expect_out '"events":6' "six events imported"
"$CLI" --db "$dir/dst.db" export --user li >"$dir/e2.json"
same_export "$dir/e1.json" "$dir/e2.json" "CLI round trip exact"
expect_rc 1 "a second import is refused" "$CLI" --db "$dir/dst.db" import "$dir/e1.json"
expect_out "holds 6 events" "the refusal says why"
A add --user li --text "My favourite colour is teal" --at 2026-03-04T10:00:00Z
"$CLI" --db "$src" export --user li >"$dir/e3.json"
expect_rc 0 "--merge" "$CLI" --db "$dir/dst.db" import "$dir/e3.json" --merge --json
expect_out '"events":1' "one event added"; expect_out '"events_skipped":6' "six skipped"
python3 - "$dir/e1.json" "$dir/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["events"][3]["occurred_at"] = "2026-03-02T09:02:00"; d["user"] = "fresh"
json.dump(d, open(sys.argv[2], "w"), ensure_ascii=False)
PY
expect_rc 1 "a malformed export" "$CLI" --db "$dir/dst.db" import "$dir/bad.json"
expect_out 'events\[3\].occurred_at' "the field named"
expect_rc 1 "nothing written" "$CLI" --db "$dir/dst.db" export --user fresh
cat >"$dir/mem0.json" <<'JSON'
{"results": [{"id": "0f1e-1", "memory": "Is allergic to peanuts", "metadata": {"src": "chat"},
  "created_at": "2024-07-20T01:02:03.456789-07:00", "updated_at": "2024-07-21T01:02:03-07:00", "user_id": "alex"},
 {"id": "0f1e-2", "memory": "喜欢爬山", "metadata": null, "created_at": "2024-08-01T10:00:00+08:00", "user_id": "alex"}]}
JSON
expect_rc 0 "--from mem0" "$CLI" --db "$dir/dst.db" import --from mem0 "$dir/mem0.json" --user alex
expect_rc 0 "mem0's memories listed" "$CLI" --db "$dir/dst.db" memories --user alex --json
expect_out "Is allergic to peanuts" "en memory"; expect_out "喜欢爬山" "zh memory"
expect_out '"0f1e-1"' "mem0's id kept"; expect_out '"source_event_ids":\["import"\]' "provenance import"
expect_rc 2 "--from mem0 without --user" "$CLI" --db "$dir/dst.db" import --from mem0 "$dir/mem0.json"
expect_rc 2 "--from other" "$CLI" --db "$dir/dst.db" import --from zep "$dir/mem0.json" --user alex

# --- POST /v1/import: admin only
"$CLI" --db "$db" token create --user ops >/dev/null 2>&1
tadm=$("$CLI" --db "$db" token create --user ops --admin 2>/dev/null)
tusr=$("$CLI" --db "$db" token create --user bob 2>/dev/null) # a tenant's token
start_server
body() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); x=dict(json.loads(sys.argv[2])); x['document']=d; print(json.dumps(x, ensure_ascii=False))" "$1" "$2" >"$dir/req.json"; }
body "$dir/e1.json" '{}'
req POST /v1/import "$tusr" "@$dir/req.json"; expect_code 403 "a user's token"; err_is forbidden - "forbidden"
"$CLI" --db "$db" export --user li >/dev/null 2>&1 && { echo "FAIL: a refused import wrote"; failed=$((failed+1)); } || passed=$((passed+1))
req POST /v1/import "$tadm" "@$dir/req.json"; expect_code 200 "admin import"
expect_body '"events":6' "the counts"
"$CLI" --db "$db" export --user li >"$dir/e4.json" 2>/dev/null
same_export "$dir/e1.json" "$dir/e4.json" "HTTP round trip exact"
req POST /v1/import "$tadm" "@$dir/req.json"; expect_code 409 "into a user with data"
body "$dir/bad.json" '{}'
req POST /v1/import "$tadm" "@$dir/req.json"; expect_code 400 "a malformed export"; err_is invalid_request 'events[3].occurred_at' "field named"
expect_body 'events[3].occurred_at' "the entry named"
body "$dir/mem0.json" '{"from":"mem0","user":"alex"}'
req POST /v1/import "$tadm" "@$dir/req.json"; expect_code 200 "mem0 over HTTP"; expect_body '"memories":2' "two memories"
body "$dir/mem0.json" '{"from":"mem0"}'
req POST /v1/import "$tadm" "@$dir/req.json"; expect_code 400 "mem0 without user"; err_is invalid_request user "user named"
req POST /v1/import "$tadm" '{"document":"x"}'; expect_code 400 "a document of a wrong type"; err_is invalid_request document "document named"
req POST /v1/import "$tadm" '{"document":{},"colour":1}'; expect_code 400 "an unknown field"; err_is invalid_request colour "colour named"
# the log line's nouns follow the count: "1 memory", "2 memories"
req POST /v1/import "$tadm" '{"from":"mem0","user":"mei","document":[{"id":"m1","memory":"我喜欢绿茶"}]}'
expect_code 200 "one mem0 memory over HTTP"
stop_server
cat "$dir/srv.out" "$dir/srv.err" >"$dir/srv.log"
grep -q 'import: user mei: 0 events, 1 memory, 0 tasks' "$dir/srv.log" && passed=$((passed+1)) ||
  { echo "FAIL: the import log line, singular: $(grep 'import:' "$dir/srv.log")"; failed=$((failed+1)); }
grep -q 'import: user alex: 0 events, 2 memories, 0 tasks' "$dir/srv.log" && passed=$((passed+1)) ||
  { echo "FAIL: the import log line, plural: $(grep 'import:' "$dir/srv.log")"; failed=$((failed+1)); }

# --- PostgreSQL: SQLite's export -> PostgreSQL -> export is exact
. "$(dirname "$0")/lib/pg.bash"
if pg_find >/dev/null && pg_init am-pgimport && trap 'pg_cleanup; rm -rf "$dir"' EXIT && pg_start; then
  pg_new_db tcp
  expect_rc 0 "import into PostgreSQL" "$CLI" --store "$URL" import "$dir/e1.json"
  "$CLI" --store "$URL" export --user li >"$dir/e5.json" 2>/dev/null
  same_export "$dir/e1.json" "$dir/e5.json" "PostgreSQL round trip exact"
  expect_rc 1 "refused into a user with data (PostgreSQL)" "$CLI" --store "$URL" import "$dir/e1.json"
  expect_rc 0 "--merge (PostgreSQL)" "$CLI" --store "$URL" import "$dir/e3.json" --merge --json
  expect_out '"events":1' "one event added (PostgreSQL)"
  expect_rc 1 "a malformed export (PostgreSQL)" "$CLI" --store "$URL" import "$dir/bad.json"
  [ "$(psql_in "$DB" "SELECT count(*) FROM events WHERE user_id = 'fresh'")" = 0 ] && passed=$((passed+1)) \
    || { echo "FAIL: PostgreSQL: a malformed import wrote"; failed=$((failed+1)); }
  pg_cleanup
else
  echo "SKIP: PostgreSQL part (no PostgreSQL)"
fi

echo "import: $passed passed, $failed failed"
[ "$failed" = 0 ]
