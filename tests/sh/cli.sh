#!/usr/bin/env bash
# The CLI: every subcommand, --json output, --help, clear errors and exit
# codes (0 ok, 1 refused, 2 usage).  $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: cli.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
db="$dir/t.db"

expect_rc 0 "help" "$CLI" --help
for c in init add recall task memories feedback forget restore link export reembed optimize demo; do
  expect_rc 0 "$c --help" "$CLI" "$c" --help; expect_out "usage" "$c --help"
done
expect_rc 2 "unknown command" "$CLI" frobnicate
expect_rc 1 "recall on a missing store" "$CLI" --db "$dir/none.db" recall --user u --text hi
expect_out "cannot open" "missing store message"
expect_rc 0 "init" "$CLI" --db "$db" init
expect_rc 0 "add zh" "$CLI" --db "$db" add --user u1 --session s1 --task weekly-report --at 2026-03-05T16:00:00+08:00 --text "以后周报都按已完成、进行中、下周计划三段写" --json
expect_out '"memories_created":1' "add --json"
expect_rc 0 "add en" "$CLI" --db "$db" add --user u1 --session s1 --at 2026-03-05T16:00:00Z --text "From now on, always send reports as PDF"
expect_rc 1 "timestamp without zone" "$CLI" --db "$db" add --user u1 --at 2026-03-05T16:00:00 --text "x"
expect_out "occurred_at" "zone error names the field"
expect_rc 1 "invalid utf-8" "$CLI" --db "$db" add --user u1 --text "$(printf 'bad \xff')"
expect_out "invalid UTF-8" "utf-8 error"
expect_rc 2 "add without text" "$CLI" --db "$db" add --user u1
expect_rc 2 "unknown option" "$CLI" --db "$db" add --user u1 --text x --bogus 1
expect_rc 0 "optimize" "$CLI" --db "$db" optimize
expect_rc 0 "recall zh" "$CLI" --db "$db" recall --user u1 --text "帮我写这周的周报"
expect_out "三段" "recall block"
expect_rc 0 "recall json" "$CLI" --db "$db" recall --user u1 --text "send the report" --json
expect_out '"need_memory":true' "recall json"
expect_rc 0 "memories" "$CLI" --db "$db" memories --user u1 --json
expect_out "PDF" "memories json"
expect_rc 0 "task" "$CLI" --db "$db" task --user u1 --task weekly-report
expect_out "status active" "task text"
expect_rc 1 "unknown task" "$CLI" --db "$db" task --user u1 --task nope
expect_rc 0 "link" "$CLI" --db "$db" link --channel wechat --external-id wx1 --user u1
expect_rc 1 "relink to another user" "$CLI" --db "$db" link --channel wechat --external-id wx1 --user u2
expect_rc 0 "recall by channel" "$CLI" --db "$db" recall --channel wechat --external-id wx1 --text "周报格式"
expect_out "三段" "recall via link"
expect_rc 0 "export" "$CLI" --db "$db" export --user u1
expect_out '"format":"agentmem-export"' "export"
id=$("$CLI" --db "$db" memories --user u1 --json | grep -o '"lineage_id":"[0-9A-Z]*"' | head -1 | cut -d'"' -f4)
expect_rc 0 "feedback confirm" "$CLI" --db "$db" feedback --user u1 --id "$id" --action confirm
expect_rc 1 "feedback unknown memory" "$CLI" --db "$db" feedback --user u1 --id NOPE --action reject
expect_rc 1 "forget unknown user" "$CLI" --db "$db" forget --user ghost --level user
expect_out "unknown user ghost" "forget unknown user message"
expect_rc 0 "forget session" "$CLI" --db "$db" forget --user u1 --level session --id s1 --json
expect_out '"events":2' "forget session count"
expect_rc 0 "forget user" "$CLI" --db "$db" forget --user u1 --level user
expect_rc 0 "export after forget: the tombstone" "$CLI" --db "$db" export --user u1
expect_out '"state":"purged"' "export after forget shows the tombstone"
if grep -q "PDF\|三段\|wx1" "$dir/out"; then echo "FAIL: export after forget holds content"; failed=$((failed+1)); else passed=$((passed+1)); fi
# a grace period: hidden at once, back with restore, refused writes meanwhile
expect_rc 0 "add for grace" "$CLI" --db "$db" add --user g1 --at 2026-03-05T16:00:00Z --text "My locker code is behind the Rembrandt poster"
expect_rc 2 "forget --grace not a number" "$CLI" --db "$db" forget --user g1 --level user --grace soon
expect_out "grace" "forget --grace error names the flag"
expect_rc 0 "forget with grace" "$CLI" --db "$db" forget --user g1 --level user --grace 3600
expect_rc 0 "recall of a held user" "$CLI" --db "$db" recall --user g1 --text "where is my locker code" --json
if grep -q "Rembrandt" "$dir/out"; then echo "FAIL: held user recalled"; failed=$((failed+1)); else passed=$((passed+1)); fi
expect_rc 0 "export of a held user" "$CLI" --db "$db" export --user g1
expect_out '"state":"held"' "held export"
expect_rc 1 "add for a held user" "$CLI" --db "$db" add --user g1 --text "hello again"
expect_out "forgotten" "held user's write refused"
expect_rc 0 "restore" "$CLI" --db "$db" restore --user g1
expect_rc 0 "recall after restore" "$CLI" --db "$db" recall --user g1 --text "where is my locker code" --json
expect_out "Rembrandt" "restored user recalled"
expect_rc 1 "restore a live user" "$CLI" --db "$db" restore --user g1
printf 'junk junk junk junk junk junk junk junk junk junk junk junk junk junk junk junk' > "$dir/junk.db"
expect_rc 1 "corrupt store" "$CLI" --db "$dir/junk.db" recall --user u --text hi
expect_out "not an agentmem store\|corrupt\|not a database" "corrupt store message"
expect_rc 0 "demo" "$CLI" demo
expect_out "用户偏好" "demo zh"
expect_out "Preference" "demo en"
# the next week is a new round: no stale one-off, the stage starts over
# (the turn of 2026-03-20, in both languages), and a delivered report starts
# over with the next week's note
for turn in "2026-03-20T16:00:00+08:00" "2026-03-20T16:00:00+00:00"; do
  block=$(awk -v t="$turn" 'index($0, t) == 1 {on = 1; next} on && /^$/ {exit} on' "$dir/out")
  if printf '%s' "$block" | grep -q "collecting" &&
     ! printf '%s' "$block" | grep -qiE "要点|bullet|drafting"; then passed=$((passed+1)); else
    echo "FAIL: demo $turn: stale one-off or stage"; printf '%s\n' "$block"; failed=$((failed+1)); fi
done
expect_out "task: round 4, stage collecting" "demo: a new week after delivery starts over"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
