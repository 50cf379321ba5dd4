#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `agentmem watch` (docs/EVENTS.md): the memory events of a store as JSON
# lines; --follow sees events other processes write while it runs and
# ends cleanly on SIGTERM / SIGINT or after --max-events; --user shows one
# user's only; --from resumes; no content in any line.  Chinese and
# English.  $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: watch.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
db="$dir/w.db"
fail() { echo "FAIL: $*"; failed=$((failed+1)); }
# lines_at_least FILE N: wait (at most 10 s) until a follower has printed N
# lines, so a signal never lands before what it was to see (a loaded machine)
lines_at_least() { for _ in $(seq 1 100); do [ "$(wc -l <"$1")" -ge "$2" ] && return; sleep 0.1; done; }
ok() { passed=$((passed+1)); }

expect_rc 0 "watch --help" "$CLI" watch --help
expect_out "--follow" "watch usage"
expect_rc 1 "watch a missing store" "$CLI" watch --db "$dir/none.db"
expect_rc 2 "watch bad --from" "$CLI" watch --db "$dir/none.db" --from -3
expect_rc 2 "watch unknown option" "$CLI" watch --db "$dir/none.db" --bogus
expect_rc 0 "init" "$CLI" --db "$db" init
expect_rc 0 "watch an empty store" "$CLI" watch --db "$db"
[ ! -s "$dir/out" ] && ok || fail "an empty store printed something"

# a follower started first, bounded by --max-events
"$CLI" watch --db "$db" --follow --max-events 4 --interval-ms 20 >"$dir/follow" 2>"$dir/follow.err" &
fpid=$!
# another follower for one user only, ended by SIGTERM
"$CLI" watch --db "$db" --user sam --follow --interval-ms 20 >"$dir/sam" 2>"$dir/sam.err" &
spid=$!
sleep 0.3
expect_rc 0 "add zh create" "$CLI" --db "$db" add --user li --session s1 --at 2026-03-01T10:00:00+08:00 --text "以后报告都用PDF格式发给我"
expect_rc 0 "add zh supersede" "$CLI" --db "$db" add --user li --session s2 --at 2026-03-02T10:00:00+08:00 --text "以后报告都改用Excel格式"
expect_rc 0 "add en create" "$CLI" --db "$db" add --user sam --session s1 --at 2026-03-02T10:00:00Z --text "From now on, send my reports as PDF files"
expect_rc 0 "add en invalidate" "$CLI" --db "$db" add --user sam --session s2 --at 2026-03-03T10:00:00Z --text "I no longer need reports in PDF format"
# the bounded follower exits by itself
for i in $(seq 1 100); do kill -0 $fpid 2>/dev/null || break; sleep 0.1; done
if kill -0 $fpid 2>/dev/null; then fail "--max-events follower still running"; kill $fpid; fi
wait $fpid; rc=$?
[ "$rc" = 0 ] && ok || fail "--max-events follower exit $rc: $(cat "$dir/follow.err")"
[ "$(wc -l <"$dir/follow")" = 4 ] && ok || fail "follower printed $(wc -l <"$dir/follow") lines, wanted 4"
head -1 "$dir/follow" | grep -q '"type":"memory.created"' && ok || fail "first line: $(head -1 "$dir/follow")"
grep -q '"type":"memory.updated.' "$dir/follow" && ok || fail "no memory.updated.<key> line"
grep -q '"type":"memory.invalidated"' "$dir/follow" && ok || fail "no memory.invalidated line"
if grep -q -e PDF -e Excel -e 报告 "$dir/follow"; then fail "content in a line"; else ok; fi
# every line is one JSON object with seq, type, user
n=$(python3 -c 'import json,sys
seqs=[json.loads(l)["seq"] for l in open(sys.argv[1])]
print(len(seqs) if seqs==sorted(seqs) and len(set(seqs))==len(seqs) else -1)' "$dir/follow")
[ "$n" = 4 ] && ok || fail "lines are not 4 JSON objects in seq order ($n)"
# SIGTERM ends the user's follower cleanly; it saw sam's events only
lines_at_least "$dir/sam" 2
kill -TERM $spid; wait $spid; rc=$?
[ "$rc" = 0 ] && ok || fail "SIGTERM exit $rc"
[ "$(wc -l <"$dir/sam")" = 2 ] && ok || fail "sam's follower printed $(wc -l <"$dir/sam") lines"
if grep -q '"user":"li"' "$dir/sam"; then fail "another user's event in --user sam"; else ok; fi
# SIGINT too
"$CLI" watch --db "$db" --follow --interval-ms 20 >"$dir/int" 2>&1 &
ipid=$!
lines_at_least "$dir/int" 4; kill -INT $ipid; wait $ipid; rc=$?
[ "$rc" = 0 ] && ok || fail "SIGINT exit $rc"
[ "$(wc -l <"$dir/int")" = 4 ] && ok || fail "SIGINT follower printed $(wc -l <"$dir/int")"
# --from resumes after a seq; --user filters without --follow
second=$(sed -n 2p "$dir/follow" | python3 -c 'import json,sys; print(json.load(sys.stdin)["seq"])')
expect_rc 0 "watch --from" "$CLI" --db "$db" watch --from "$second" --json
[ "$(wc -l <"$dir/out")" = 2 ] && ok || fail "--from $second printed $(wc -l <"$dir/out") lines"
# forget: a notice, and the forgotten item's lines are gone
expect_rc 0 "forget li" "$CLI" --db "$db" forget --user li --level user
expect_rc 0 "watch after forget" "$CLI" watch --db "$db"
if grep -q '"user":"li"' "$dir/out"; then fail "li's events after its forget"; else ok; fi
expect_out '"level":"user"' "the forget notice"
echo "watch.sh: $passed passed, $failed failed"
[ "$failed" = 0 ]
