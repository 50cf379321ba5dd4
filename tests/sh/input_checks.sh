#!/usr/bin/env bash
# Hostile input to the CLI (issue 14, items 2, 6, 7, 8): JSON output built
# by one writer (ids that contain quotes stay strings), batch lines with
# wrong types or unknown keys, --atomic and idempotent event ids, time and
# id validation, and identities that are (channel, external_id) pairs.
# $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: input_checks.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
db="$dir/t.db"
# Every line of the last output is one JSON object whose keys are exactly
# $1 (comma-separated, in order) and whose field $2 is the string $3.
expect_json() { # keys field value description
  if python3 - "$dir/out" "$1" "$2" "$3" <<'PY'
import json, sys
path, keys, field, want = sys.argv[1:5]
lines = [l for l in open(path, encoding="utf-8") if l.strip()]
assert lines, "no output"
for l in lines:
    o = json.loads(l, object_pairs_hook=lambda p: p)
    got = [k for k, _ in o]
    assert got == keys.split(","), (got, keys)
    assert str(dict(o)[field]) == want, (dict(o)[field], want)
PY
  then passed=$((passed+1)); else echo "FAIL: $4"; cat "$dir/out" "$dir/err"; failed=$((failed+1)); fi
}
count_events() { # user -> number of events in the export
  "$CLI" --db "$db" export --user "$1" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["events"]))'
}

# ---- item 6: JSON output through one writer
add_keys=event_id,user,task,memories_created,memories_updated,memories_invalidated,task_changed,one_off
evil='x","task":"pwned'
expect_rc 0 "add --json, quoting user" "$CLI" --db "$db" add --user "$evil" --text "hello there" --json
expect_json "$add_keys" user "$evil" "add --json keeps a quoting user id one string"
expect_rc 0 "add --json, quoting task (zh)" "$CLI" --db "$db" add --user "$evil" --task '周报","status":"done' --text "周报草稿见 https://x.example/a" --json
expect_json "$add_keys" task '周报","status":"done' "add --json keeps a quoting task id one string"
expect_rc 0 "task --json, quoting ids" "$CLI" --db "$db" task --user "$evil" --task '周报","status":"done' --json
expect_json task_id,stage,status,artifacts,pending,notes,history task_id '周报","status":"done' "task --json keeps a quoting task id one string"
expect_rc 0 "forget --json" "$CLI" --db "$db" forget --user "$evil" --level user --json
expect_json events,memories,tasks events 2 "forget --json"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
