#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Hostile input to the CLI: JSON output built
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
add_keys=event_id,user,task,memories_created,memories_updated,memories_invalidated,task_changed,one_off,existing
evil='x","task":"pwned'
expect_rc 0 "add --json, quoting user" "$CLI" --db "$db" add --user "$evil" --text "hello there" --json
expect_json "$add_keys" user "$evil" "add --json keeps a quoting user id one string"
expect_rc 0 "add --json, quoting task (zh)" "$CLI" --db "$db" add --user "$evil" --task '周报","status":"done' --text "周报草稿见 https://x.example/a" --json
expect_json "$add_keys" task '周报","status":"done' "add --json keeps a quoting task id one string"
expect_rc 0 "task --json, quoting ids" "$CLI" --db "$db" task --user "$evil" --task '周报","status":"done' --json
expect_json task_id,stage,status,artifacts,pending,notes,history,round,period,rounds,task_ref,round_started_at task_id '周报","status":"done' "task --json keeps a quoting task id one string"
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

# ---- item 7: batch input
db7="$dir/b.db"
b="$dir/b.jsonl"
batch_bad() { # json-line expected-message description
  printf '%s\n' "$1" > "$b"
  expect_rc 1 "$3" "$CLI" --db "$db7" add --batch "$b"
  expect_out "$2" "$3: message"
}
batch_bad '{"user":"b1","text":"以后周报用表格","task":42}' 'task: expected a string, got an integer' "task 42 (zh)"
batch_bad '{"user":"b1","text":"reports as tables","at":1741161600}' 'at: expected a string' "at as a number (en)"
batch_bad '{"user":1,"text":"hello"}' 'user: expected a string' "user 1"
batch_bad '{"user":"b1","text":["a"]}' 'text: expected a string, got an array' "text as an array"
batch_bad '{"user":"b1","text":"hi","session":true}' 'session: expected a string, got a boolean' "session true"
batch_bad '{"user":"b1","text":"你好","sesion":"s1"}' 'unknown field "sesion"' "misspelt key (zh)"
batch_bad '{"user":"b1","text":"hi","text":"again"}' 'duplicate' "duplicate key"
batch_bad '["user","b1"]' 'not a JSON object' "an array line"
printf '{"user":"b1","text":"hi"}\0{"user":"b1","text":"x"}\n' > "$b"
expect_rc 1 "a NUL byte" "$CLI" --db "$db7" add --batch "$b"
expect_out "NUL" "a NUL byte: message"
expect_rc 1 "a directory" "$CLI" --db "$db7" add --batch "$dir"
expect_out "directory" "a directory: message"
expect_rc 2 "an empty path" "$CLI" --db "$db7" add --batch ""
expect_rc 1 "no such file" "$CLI" --db "$db7" add --batch "$dir/none.jsonl"
expect_rc 1 "nothing was added by the bad lines" "$CLI" --db "$db7" export --user b1
# --atomic: the whole file or nothing
printf '%s\n' '{"user":"b2","text":"以后周报用表格","at":"2026-03-05T16:00:00+08:00"}' \
  '{"user":"b2","text":"reports as tables","at":"2026-03-05T16:01:00+08:00"}' \
  '{"user":"b2","text":"bad time","at":"2206-03-05T16:00:00+08:00"}' > "$b"
expect_rc 1 "atomic, an event refused" "$CLI" --db "$db7" add --batch "$b" --atomic
expect_out "b.jsonl:3: occurred_at" "atomic: the refused line is named"
expect_rc 1 "atomic: nothing written" "$CLI" --db "$db7" export --user b2
printf '%s\n' '{"user":"b2","text":"以后周报用表格"}' '{"user":"b2","text":"x","colour":"red"}' > "$b"
expect_rc 1 "atomic, a bad line" "$CLI" --db "$db7" add --batch "$b" --atomic
expect_out "nothing added" "atomic, a bad line: message"
expect_rc 1 "atomic, a bad line: nothing written" "$CLI" --db "$db7" export --user b2
printf '%s\n' '{"user":"b2","text":"以后周报用表格","id":"imp-1"}' '{"user":"b2","text":"From now on reports as tables","id":"imp-2"}' > "$b"
expect_rc 0 "atomic, good" "$CLI" --db "$db7" add --batch "$b" --atomic
expect_rc 0 "atomic, good: two events" test "$(count_events "$db7" b2)" = 2
# ids: a re-run finds its events; the same id with other content is refused
expect_rc 0 "re-run with ids" "$CLI" --db "$db7" add --batch "$b" --json
expect_json "$add_keys" existing True "re-run: every event already present"
expect_rc 0 "re-run, atomic" "$CLI" --db "$db7" add --batch "$b" --atomic
expect_out "0 added, 2 already present" "re-run, atomic: counted"
expect_rc 0 "still two events" test "$(count_events "$db7" b2)" = 2
expect_rc 1 "same id, other text (zh)" "$CLI" --db "$db7" add --user b2 --id imp-1 --text "以后周报用要点"
expect_out 'id "imp-1" already names another event' "same id, other text: message"
expect_rc 1 "same id, other session (en)" "$CLI" --db "$db7" add --user b2 --id imp-2 --session s9 --text "From now on reports as tables"
expect_rc 0 "same id, another user" "$CLI" --db "$db7" add --user b3 --id imp-1 --text "以后周报用表格" --json
expect_json "$add_keys" existing False "the id is the user's own"
expect_rc 0 "still two events after the clashes" test "$(count_events "$db7" b2)" = 2
expect_rc 1 "an id with a bidi control" "$CLI" --db "$db7" add --user b2 --id "$(printf 'imp\u202e1')" --text "hi"
expect_out "id contains" "an id with a bidi control: message"
# the scenario runner refuses the same shapes
printf '%s\n' '{"step":"add","user":"u","session":"s","task":42,"at":"2026-03-05T16:00:00+08:00","text":"周报"}' > "$dir/s1.jsonl"
expect_rc 1 "scenario: task 42" "$CLI" scenario run "$dir/s1.jsonl"
expect_out 'task' "scenario: task 42: message"
printf '%s\n' '{"step":"add","user":"u","session":"s","colour":"red","at":"2026-03-05T16:00:00+08:00","text":"hi"}' > "$dir/s2.jsonl"
expect_rc 1 "scenario: unknown key" "$CLI" scenario run "$dir/s2.jsonl"
expect_out 'colour' "scenario: unknown key: message"
printf '%s\n' '{"step":"add","user":"u","channel":"tg","external_id":"1","session":"s","at":"2026-03-05T16:00:00+08:00","text":"hi"}' > "$dir/s3.jsonl"
expect_rc 1 "scenario: user and channel" "$CLI" scenario run "$dir/s3.jsonl"
expect_out 'got both' "scenario: user and channel: message"
expect_rc 1 "scenario: a directory" "$CLI" scenario run "$dir"
expect_rc 1 "scenario: an empty path" "$CLI" scenario run ""

# ---- item 2: identities are (channel, external_id) pairs
db2="$dir/i.db"
uid_of() { python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["user"])'; }
expect_rc 0 "a user named wechat:wx-9" "$CLI" --db "$db2" add --user "wechat:wx-9" --text "以后周报都按三段写"
u_wx=$("$CLI" --db "$db2" add --channel wechat --external-id wx-9 --text "From now on, send reports as PDF" --json | uid_of)
expect_rc 0 "unlinked wechat/wx-9 is not the user wechat:wx-9" test "$u_wx" != "wechat:wx-9"
expect_rc 0 "recall of wechat:wx-9 (zh) does not see the channel's text" "$CLI" --db "$db2" recall --user "wechat:wx-9" --text "报告发什么格式 PDF" --json
if grep -q "PDF" "$dir/out"; then echo "FAIL: wechat:wx-9 sees the unlinked pair's event"; failed=$((failed+1)); else passed=$((passed+1)); fi
u_a=$("$CLI" --db "$db2" add --channel tg:x --external-id 7 --text "我喜欢靠窗的座位" --json | uid_of)
u_b=$("$CLI" --db "$db2" add --channel tg --external-id x:7 --text "I prefer aisle seats" --json | uid_of)
expect_rc 0 "tg:x/7 and tg/x:7 are two people" test "$u_a" != "$u_b"
expect_rc 0 "tg/x:7 again is the same person" test "$("$CLI" --db "$db2" add --channel tg --external-id x:7 --text "and extra legroom" --json | uid_of)" = "$u_b"
expect_rc 1 "a caller cannot create an engine id" "$CLI" --db "$db2" add --user "~01M8S9N4VQFQAPVR9QSVBMZS4H" --text "hi"
expect_out "engine" "engine id: message"
# a late link: refused while the pair has a history, merged with --merge
expect_rc 0 "alice (en)" "$CLI" --db "$db2" add --user alice --task weekly-report --text "From now on, weekly reports in three parts"
expect_rc 1 "late link without --merge" "$CLI" --db "$db2" link --channel tg --external-id x:7 --user alice
expect_out "history" "late link without --merge: says it has history"
expect_rc 0 "the refused link changed nothing" "$CLI" --db "$db2" recall --channel tg --external-id x:7 --text "which seats do I prefer" --json
expect_out "aisle" "the pair still has its own history"
expect_rc 0 "late link with --merge" "$CLI" --db "$db2" link --channel tg --external-id x:7 --user alice --merge
expect_rc 0 "alice recalls the merged history (en)" "$CLI" --db "$db2" recall --user alice --text "which seats do I prefer" --json
expect_out "aisle" "merged events are alice's"
expect_rc 0 "export shows the merge" "$CLI" --db "$db2" export --user alice
expect_out "link.merge" "the merge is audited"
expect_rc 0 "tg/x:7 is alice now" test "$("$CLI" --db "$db2" add --channel tg --external-id x:7 --text "还有，周报发给王经理" --json | uid_of)" = alice
expect_rc 0 "tg:x/7 is still apart" "$CLI" --db "$db2" recall --channel tg:x --external-id 7 --text "座位" --json
if grep -q "aisle" "$dir/out"; then echo "FAIL: tg:x/7 sees alice"; failed=$((failed+1)); else passed=$((passed+1)); fi
expect_rc 0 "late link (zh) with --merge" "$CLI" --db "$db2" link --channel tg:x --external-id 7 --user 张三 --merge
expect_rc 0 "张三 recalls the window seat" "$CLI" --db "$db2" recall --user 张三 --text "我喜欢什么座位" --json
expect_out "靠窗" "张三 has the merged event"
expect_rc 1 "relink to another master" "$CLI" --db "$db2" link --channel tg --external-id x:7 --user bob --merge
expect_out "belongs to user alice" "relink: names the owner"
expect_rc 0 "unlink" "$CLI" --db "$db2" unlink --channel tg --external-id x:7
expect_rc 1 "unlink twice" "$CLI" --db "$db2" unlink --channel tg --external-id x:7
expect_out "not linked" "unlink twice: message"
expect_rc 2 "unlink without external id" "$CLI" --db "$db2" unlink --channel tg
expect_rc 0 "unlink --help" "$CLI" unlink --help
expect_rc 0 "after unlink the pair is not alice" test "$("$CLI" --db "$db2" add --channel tg --external-id x:7 --text "hello" --json | uid_of)" != alice
# a store from before (schema v1): the joined-name user keeps its link and
# counts as the pair's own, a user-chosen link stays as it was
old="$dir/old.db"
cp "$(dirname "$0")/../fixtures/store_v1.db" "$old"
sqlite3 "$old" "INSERT INTO users VALUES('tg:x:7', 1); INSERT INTO identity_links VALUES('tg', 'x:7', 'tg:x:7', 1);
  INSERT INTO identity_links VALUES('wechat', 'b1', 'bob', 1);"
expect_rc 0 "old store: the pair still resolves" test "$("$CLI" --db "$old" add --channel tg --external-id x:7 --text "I prefer aisle seats" --json | uid_of)" = "tg:x:7"
expect_rc 0 "old store: tg:x/7 is someone else" test "$("$CLI" --db "$old" add --channel tg:x --external-id 7 --text "hi" --json | uid_of)" != "tg:x:7"
expect_rc 1 "old store: late link needs --merge" "$CLI" --db "$old" link --channel tg --external-id x:7 --user alice
expect_out "history" "old store: has history"
expect_rc 0 "old store: --merge" "$CLI" --db "$old" link --channel tg --external-id x:7 --user alice --merge
expect_rc 0 "old store: alice recalls it" "$CLI" --db "$old" recall --user alice --text "which seats do I prefer" --json
expect_out "aisle" "old store: merged"
expect_rc 0 "old store: alice's own events are there (zh)" "$CLI" --db "$old" recall --user alice --text "我爸爸的生日是哪天？" --json
expect_out "爸爸的生日" "old store: alice unchanged"
expect_rc 1 "old store: a chosen link is not taken over" "$CLI" --db "$old" link --channel wechat --external-id b1 --user alice --merge
expect_out "belongs to user bob" "old store: bob keeps wechat/b1"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
