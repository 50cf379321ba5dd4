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
count_events() { # store user -> number of events in the export
  "$CLI" --db "$1" export --user "$2" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["events"]))'
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

# ---- item 8: validation gaps (the store is unchanged by each refusal)
db8="$dir/v.db"
expect_rc 0 "add a first event" "$CLI" --db "$db8" add --user v1 --text "first" --at 2026-03-05T16:00:00+08:00
for at in 0000-01-01T00:00:00Z 1900-01-01T00:00:00Z 1969-12-31T23:59:59Z 2206-03-05T16:00:00+08:00 9999-12-31T23:59:59Z; do
  expect_rc 1 "occurred_at $at (en)" "$CLI" --db "$db8" add --user v1 --text "I prefer aisle seats" --at "$at"
  expect_out "occurred_at" "occurred_at $at: the field is named"
  expect_rc 1 "occurred_at $at (zh)" "$CLI" --db "$db8" add --user v1 --text "以后都订靠过道的座位" --at "$at"
done
expect_rc 1 "two days ahead of the clock" "$CLI" --db "$db8" add --user v1 --text "hello" --at "$(date -u -d '+2 days' +%Y-%m-%dT%H:%M:%SZ)"
expect_out "future" "a future time says so"
expect_rc 0 "an hour ahead is within the skew" "$CLI" --db "$db8" add --user v1 --text "hello" --at "$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)"
expect_rc 0 "1970 itself" "$CLI" --db "$db8" add --user v1 --text "epoch" --at 1970-01-01T00:00:00Z
expect_rc 1 "second 60 (zh)" "$CLI" --db "$db8" add --user v1 --text "下午四点开会" --at 2026-03-05T16:00:60+08:00
expect_out "second 60" "second 60 is refused, not changed"
expect_rc 1 "second 60 (en)" "$CLI" --db "$db8" add --user v1 --text "meeting at four" --at 2026-03-05T16:00:60Z
for cp in '\u202e' '\u200b' '\u0085' '\u2066' '\ufeff' '\u3164' '\u00a0'; do
  bad=$(printf "v1$cp")
  expect_rc 1 "user with $cp" "$CLI" --db "$db8" add --user "$bad" --text "以后周报用表格"
  expect_out "user contains" "user with $cp: the field and the character are named"
  expect_rc 1 "session with $cp" "$CLI" --db "$db8" add --user v1 --session "s$bad" --text "reports as tables"
  expect_out "session contains" "session with $cp"
  expect_rc 1 "external_id with $cp" "$CLI" --db "$db8" add --channel tg --external-id "$bad" --text "hello"
  expect_rc 1 "link user with $cp" "$CLI" --db "$db8" link --channel tg --external-id 1 --user "$bad"
done
expect_rc 0 "export after the refusals" "$CLI" --db "$db8" export --user v1
expect_rc 0 "three events only" test "$(count_events "$db8" v1)" = 3
expect_rc 2 "--user with --channel" "$CLI" --db "$db8" add --user v1 --channel tg --external-id 1 --text "hello"
expect_out "not both" "--user with --channel: the usage error says why"
expect_rc 2 "--user with --channel on recall" "$CLI" --db "$db8" recall --user v1 --channel tg --external-id 1 --text "周报"
expect_rc 2 "--channel without --external-id" "$CLI" --db "$db8" recall --channel tg --text "周报"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
