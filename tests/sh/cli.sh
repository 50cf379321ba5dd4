#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
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
expect_out '"block_system":' "recall json: the system prompt's part"
expect_out '"block_context":' "recall json: the part before the history"
expect_rc 0 "recall --part system" "$CLI" --db "$db" recall --user u1 --text "帮我写这周的周报" --part system
expect_out "三段" "the preference is the system prompt's"
expect_rc 0 "recall --part context" "$CLI" --db "$db" recall --user u1 --text "帮我写这周的周报" --part context
if grep -q "三段" "$dir/out"; then echo "FAIL: a preference before the history"; failed=$((failed+1)); else passed=$((passed+1)); fi
expect_rc 2 "recall --part other" "$CLI" --db "$db" recall --user u1 --text "周报" --part prompt
expect_out "--part" "the bad part is named"
expect_rc 0 "recall a closing" "$CLI" --db "$db" recall --user u1 --text "好的，就这样吧" --json
expect_out '"route_reason":"closing"' "a closing needs no memory"
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
# a grace period at every level (event, session, task), Chinese and
# English: hidden at once, back exactly with restore --level/--id, and
# after the period purged -- no byte in the files while another
# connection holds the store open -- and restore refused
absent() { # description needle... (none in the last output)
  local what=$1 n; shift
  for n in "$@"; do
    if grep -q -- "$n" "$dir/out"; then echo "FAIL: $what: '$n' shown"; failed=$((failed+1)); else passed=$((passed+1)); fi
  done
}
ids_of() { grep -o '"id":"[^"]*"' "$dir/out" | tr '\n' ' '; }
gdb="$dir/grace.db"
for lv in event session task; do
  u="gl-$lv"
  "$CLI" --db "$gdb" add --user "$u" --session other --task misc --at 2026-04-01T09:00:00Z --text "The budget sheet goes to finance before Friday" >/dev/null
  zh=$("$CLI" --db "$gdb" add --user "$u" --session s1 --task trip --at 2026-04-02T09:00:00Z --json \
       --text "以后我只坐靠过道的座位，暗号是翡翠鹭鸶$lv，邮箱 jade$lv@example.cn" | grep -o '"event_id":"[0-9A-Z]*"' | cut -d'"' -f4)
  en=$("$CLI" --db "$gdb" add --user "$u" --session s1 --task trip --at 2026-04-02T09:01:00Z --json \
       --text "From now on I only take aisle seats, the passphrase is Vermilion Heron $lv, mail heron$lv@example.net" | grep -o '"event_id":"[0-9A-Z]*"' | cut -d'"' -f4)
  case $lv in event) targets="$zh $en" ;; session) targets=s1 ;; task) targets=trip ;; esac
  expect_rc 0 "recall before a $lv forget" "$CLI" --db "$gdb" recall --user "$u" --text "座位 暗号 aisle seats passphrase" --json
  before=$(ids_of)
  expect_out "翡翠鹭鸶$lv" "$lv: zh recalled before"
  for t in $targets; do
    expect_rc 0 "forget $lv with grace" "$CLI" --db "$gdb" forget --user "$u" --level "$lv" --id "$t" --grace 3600
  done
  expect_rc 0 "recall during the $lv grace" "$CLI" --db "$gdb" recall --user "$u" --text "座位 暗号 aisle seats passphrase" --json
  absent "$lv held: recall" "翡翠鹭鸶$lv" "Vermilion Heron $lv"
  expect_rc 0 "memories during the $lv grace" "$CLI" --db "$gdb" memories --user "$u" --json
  absent "$lv held: memories" "翡翠鹭鸶$lv" "Vermilion Heron $lv"
  "$CLI" --db "$gdb" task --user "$u" --task trip --json >"$dir/out" 2>&1
  absent "$lv held: task" "翡翠鹭鸶$lv" "Vermilion Heron $lv"
  expect_rc 0 "export during the $lv grace" "$CLI" --db "$gdb" export --user "$u"
  absent "$lv held: export" "翡翠鹭鸶$lv" "Vermilion Heron $lv"
  expect_out "\"held\":\[{\"level\":\"$lv\"" "$lv held: export shows the tombstone"
  expect_rc 2 "restore --level without --id" "$CLI" --db "$gdb" restore --user "$u" --level "$lv"
  expect_rc 1 "restore of what was not forgotten" "$CLI" --db "$gdb" restore --user "$u" --level "$lv" --id nope
  for t in $targets; do
    expect_rc 0 "restore $lv" "$CLI" --db "$gdb" restore --user "$u" --level "$lv" --id "$t"
  done
  expect_rc 0 "recall after the $lv restore" "$CLI" --db "$gdb" recall --user "$u" --text "座位 暗号 aisle seats passphrase" --json
  after=$(ids_of)
  if [ "$after" = "$before" ]; then passed=$((passed+1)); else echo "FAIL: $lv restore: ranking $after, was $before"; failed=$((failed+1)); fi
  expect_out "Vermilion Heron $lv" "$lv: en recalled after restore"
  # forgotten again for a second; purged while a connection holds the store
  for t in $targets; do
    expect_rc 0 "forget $lv again" "$CLI" --db "$gdb" forget --user "$u" --level "$lv" --id "$t" --grace 1
  done
  mkfifo "$dir/hold"
  sqlite3 "$gdb" <"$dir/hold" >/dev/null 2>&1 & holder=$!
  exec 7>"$dir/hold"
  echo "SELECT count(*) FROM events;" >&7
  sleep 2
  expect_rc 0 "optimize runs the $lv purge" "$CLI" --db "$gdb" optimize
  for f in "$gdb" "$gdb-wal"; do
    for n in "翡翠鹭鸶$lv" "jade$lv@example.cn" "Vermilion Heron $lv" "heron$lv@example.net"; do
      if [ -f "$f" ] && grep -q -a -- "$n" "$f"; then echo "FAIL: $lv purge: '$n' in $f"; failed=$((failed+1)); else passed=$((passed+1)); fi
    done
  done
  exec 7>&-
  wait "$holder"
  rm -f "$dir/hold"
  set -- $targets
  expect_rc 1 "restore after the $lv period" "$CLI" --db "$gdb" restore --user "$u" --level "$lv" --id "$1"
  expect_out "grace period is over" "$lv: restore refused after the period"
done
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
