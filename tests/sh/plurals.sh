#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Counts in the CLI's messages take the right English noun: "1 new
# memory", "2 new memories", "forgot 1 event", "0 events", and the
# library's refusal "holds 1 event" (Chinese and English texts written;
# the messages themselves are English).  $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: plurals.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
n=0
fresh() { n=$((n+1)); db="$dir/p$n.db"; }
line_is() { # regex description (on the last stdout)
  if grep -qE -- "$1" "$dir/out"; then passed=$((passed+1)); else
    echo "FAIL: $2: /$1/ not in: $(cat "$dir/out" "$dir/err")"; failed=$((failed+1)); fi
}

fresh; expect_rc 0 "add en, one memory" "$CLI" --db "$db" add --user u --text "I prefer tea"
line_is ': 1 new memory, 0 updated, 0 invalidated$' "1 new memory (en)"
fresh; expect_rc 0 "add en, two memories" "$CLI" --db "$db" add --user u --text "I prefer tea and I live in Paris"
line_is ': 2 new memories, 0 updated, 0 invalidated$' "2 new memories (en)"
fresh; expect_rc 0 "add zh, one memory" "$CLI" --db "$db" add --user 用户 --text "我喜欢喝茶"
line_is ': 1 new memory, 0 updated' "1 new memory (zh text)"
fresh; expect_rc 0 "add zh, two memories" "$CLI" --db "$db" add --user 用户 --text "我喜欢喝茶，我住在杭州"
line_is ': 2 new memories, 0 updated' "2 new memories (zh text)"
expect_rc 0 "add hello" "$CLI" --db "$db" add --user 用户 --text "你好"
line_is ': 0 new memories, 0 updated' "0 new memories"

# forget one event: "forgot 1 event"; a session of two: "forgot 2 events"
fresh
e1=$("$CLI" --db "$db" add --user u --session s1 --text "I prefer tea" --json 2>/dev/null |
     sed -n 's/.*"event_id":"\([^"]*\)".*/\1/p')
"$CLI" --db "$db" add --user u --session s2 --text "hello there" >/dev/null 2>&1
"$CLI" --db "$db" add --user u --session s2 --text "see you" >/dev/null 2>&1
expect_rc 0 "forget one event" "$CLI" --db "$db" forget --user u --level event --id "$e1"
line_is '^forgot 1 event, 1 memory version, 0 tasks$' "forgot 1 event"
expect_rc 0 "forget a session of two" "$CLI" --db "$db" forget --user u --level session --id s2
line_is '^forgot 2 events, 0 memory versions, 0 tasks$' "forgot 2 events"

# the library's refusal: an import into a user holding one event
fresh
"$CLI" --db "$db" add --user a --text "I prefer tea" >/dev/null 2>&1
"$CLI" --db "$db" export --user a >"$dir/a.json" 2>/dev/null
expect_rc 1 "import into a user with one event" "$CLI" --db "$db" import "$dir/a.json"
expect_out "holds 1 event, 1 memory and 0 tasks already" "the refusal counts in the singular"
expect_rc 0 "import into a fresh store" "$CLI" --db "$dir/q.db" import "$dir/a.json"
line_is '^imported into user a: 1 event, 1 memory, 0 tasks$' "import: 1 event, 1 memory"
# --json keeps its numbers only
expect_rc 0 "forget --json" "$CLI" --db "$dir/q.db" forget --user a --level user --json
line_is '^\{"events":1,' "forget --json unchanged"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
