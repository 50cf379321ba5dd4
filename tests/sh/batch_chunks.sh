#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# add --batch commits its lines in chunks (one transaction for up to 32
# lines): a refused line -- at the start, in the middle or at the end of a
# chunk -- is reported with its line number and field and takes no other
# line with it; the other lines are stored once each, in file order, and their ids
# are the ones printed.  Chinese and English.  $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: batch_chunks.sh AGENTMEM}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
db="$dir/b.db"
passed=0; failed=0
ok() { passed=$((passed+1)); }
bad() { echo "FAIL: $*"; failed=$((failed+1)); }

for i in $(seq 1 70); do
  case $i in
    5) echo '{"user":"u1","source":"robot","text":"refused: not a source"}' ;;
    33) echo '{"user":"u1","at":"2026-13-01T10:00:00Z","text":"拒绝：月份不对"}' ;;
    40) echo 'not json at all' ;;
    64) echo '{"user":"u1","text":"   "}' ;;
    70) echo '{"user":"u2","source":"robot","text":"最后一行也被拒绝"}' ;;
    *) if [ $((i % 2)) = 0 ]; then t="第${i}行：下周三之前交预算表"; else t="line ${i}: send the budget sheet by next Wednesday"; fi
       printf '{"user":"u%d","session":"s1","text":"%s"}\n' $((i % 2 + 1)) "$t"
       printf '%s\n' "$t" >> "$dir/valid.texts" ;;
  esac
done > "$dir/in.jsonl"

"$CLI" --db "$db" add --batch "$dir/in.jsonl" --json > "$dir/out" 2> "$dir/err"
rc=$?
[ $rc = 1 ] && ok || bad "exit code $rc with refused lines (want 1)"
grep -q "^65 added, .*5 rejected" "$dir/err" && ok || bad "summary: $(tail -1 "$dir/err")"
grep -q "in.jsonl:5: .*source" "$dir/err" && ok || bad "line 5 (source) not reported: $(cat "$dir/err")"
grep -q "in.jsonl:33: .*occurred_at" "$dir/err" && ok || bad "line 33 (occurred_at) not reported"
grep -q "in.jsonl:40: " "$dir/err" && ok || bad "line 40 (not JSON) not reported"
grep -q "in.jsonl:64: .*text is empty" "$dir/err" && ok || bad "line 64 (empty text) not reported"
grep -q "in.jsonl:70: .*source" "$dir/err" && ok || bad "line 70 (source) not reported"
[ "$(grep -c 'in.jsonl:' "$dir/err")" = 5 ] && ok || bad "other lines reported: $(grep 'in.jsonl:' "$dir/err")"
sqlite3 "$db" "SELECT content FROM events ORDER BY rid" > "$dir/stored"
cmp -s "$dir/stored" "$dir/valid.texts" && ok || bad "stored texts (in order) differ from the valid lines:
$(diff "$dir/valid.texts" "$dir/stored" | head -4)"
grep -o '"event_id":"[^"]*"' "$dir/out" | cut -d'"' -f4 > "$dir/printed"
sqlite3 "$db" "SELECT id FROM events ORDER BY rid" > "$dir/ids"
cmp -s "$dir/printed" "$dir/ids" && ok || bad "printed ids differ from the stored ones"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
