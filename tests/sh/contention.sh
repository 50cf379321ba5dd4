#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Contention: several processes write and read one store
# at once -- two batch importers (2,000 lines each, Chinese and English),
# two loops that add an event and recall, and a reader that recalls and
# lists memories -- and nobody is told "database is locked": 0 errors, and
# every acknowledged write is in the store afterwards (the ids the CLI
# printed are exactly the events' ids, their texts exactly the texts sent).
# Prints per role: processes, operations, errors, the longest operation.
# $1 = path of the agentmem CLI.  AM_CONTENTION_LINES: lines per importer
# (2000; 1000 in sanitizer builds, AM_SANITIZED_BUILD=1); the loops run until the importers are done, at least
# AM_CONTENTION_LOOPS turns each (10).
set -u
CLI=${1:?usage: contention.sh AGENTMEM}
if [ "${AM_SANITIZED_BUILD:-0}" = 1 ]; then LINES=${AM_CONTENTION_LINES:-1000}
else LINES=${AM_CONTENTION_LINES:-2000}; fi
LOOPS=${AM_CONTENTION_LOOPS:-10}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
db="$dir/c.db"
passed=0; failed=0
ok() { passed=$((passed+1)); }
bad() { echo "FAIL: $*"; failed=$((failed+1)); }
"$CLI" --db "$db" init >/dev/null || { echo "FAIL: init"; exit 1; }

# A batch: mostly notes, every eighth line a standing preference, half of
# them Chinese; every text carries its batch and line (the texts file has
# them one a line, in the same order).
gen_batch() {
  local name=$1 i u
  for i in $(seq 1 "$LINES"); do
    u=$((i % 4))
    if [ $((i % 8)) = 0 ]; then
      if [ $((i % 16)) = 0 ]; then t="以后${name}组的周报都按三段写，第${i}条"
      else t="From now on the ${name} team wants report ${i} as a PDF"; fi
    elif [ $((i % 2)) = 0 ]; then t="会议记录${name}-${i}：团建地点改到${u}号楼，预算${i}元"
    else t="Meeting note ${name}-${i}: the offsite moved to building ${u}, budget ${i} dollars"; fi
    printf '{"user":"u%d","session":"%s-s%d","text":"%s"}\n' "$u" "$name" $((i % 7)) "$t" >> "$dir/$name.jsonl"
    printf '%s\n' "$t" >> "$dir/$name.texts"
  done
}
gen_batch A
gen_batch B

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

# role NAME: one line per operation in $dir/NAME.ops: "op rc milliseconds"
importer() {
  local name=$1 t0 rc
  t0=$(now_ms)
  "$CLI" --db "$db" add --batch "$dir/$name.jsonl" --json > "$dir/$name.out" 2> "$dir/$name.err"
  rc=$?
  echo "batch $rc $(( $(now_ms) - t0 ))" >> "$dir/$name.ops"
}
looper() {
  local name=$1 i=0 t0 rc u text out
  while [ $i -lt "$LOOPS" ] || { [ ! -f "$dir/imported" ] && [ $i -lt 1000 ]; }; do
    i=$((i + 1))
    u=u$((i % 4))
    if [ $((i % 2)) = 0 ]; then text="${name}第${i}轮：明天下午三点和客户开会"
    else text="${name} turn ${i}: the client meeting is tomorrow at three"; fi
    t0=$(now_ms)
    out=$("$CLI" --db "$db" add --user "$u" --text "$text" --json 2>> "$dir/$name.err")
    rc=$?
    echo "add $rc $(( $(now_ms) - t0 ))" >> "$dir/$name.ops"
    if [ $rc = 0 ]; then
      printf '%s\n' "$out" >> "$dir/$name.out"
      printf '%s\n' "$text" >> "$dir/$name.texts"
    fi
    t0=$(now_ms)
    if [ $((i % 2)) = 0 ]; then
      "$CLI" --db "$db" recall --user "$u" --text "周报怎么写？团建在哪里" > /dev/null 2>> "$dir/$name.err"
    else
      "$CLI" --db "$db" recall --user "$u" --text "how should the report be sent?" > /dev/null 2>> "$dir/$name.err"
    fi
    echo "recall $? $(( $(now_ms) - t0 ))" >> "$dir/$name.ops"
  done
}
reader() {
  local i=0 t0
  while [ ! -f "$dir/stop" ]; do
    i=$((i + 1))
    t0=$(now_ms)
    "$CLI" --db "$db" recall --user u$((i % 4)) --text "预算是多少 what is the budget" > /dev/null 2>> "$dir/R.err"
    echo "recall $? $(( $(now_ms) - t0 ))" >> "$dir/R.ops"
    t0=$(now_ms)
    "$CLI" --db "$db" memories --user u$((i % 4)) > /dev/null 2>> "$dir/R.err"
    echo "memories $? $(( $(now_ms) - t0 ))" >> "$dir/R.ops"
  done
}

# maintenance while they run (a nightly job): merge the index, checkpoint
maintainer() {
  local t0
  sleep 2
  t0=$(now_ms)
  "$CLI" --db "$db" optimize > /dev/null 2>> "$dir/M.err"
  echo "optimize $? $(( $(now_ms) - t0 ))" >> "$dir/M.ops"
}

start=$(now_ms)
reader & rpid=$!
importer A & a=$!
importer B & b=$!
looper L1 & l1=$!
looper L2 & l2=$!
maintainer & m=$!
wait $a $b $m
touch "$dir/imported"
wait $l1 $l2
touch "$dir/stop"
wait $rpid
elapsed=$(( $(now_ms) - start ))

# the run, per role
for r in A B L1 L2 R M; do
  touch "$dir/$r.ops" "$dir/$r.err" "$dir/$r.out"
  awk -v role="$r" '{n[$1]++; t[$1] += $3; if ($2 != 0) e[$1]++; if ($3 > m[$1]) m[$1] = $3}
      END {for (k in n) printf "%s %s: %d ops, %d errors, mean %d ms, longest %d ms\n",
                               role, k, n[k], e[k], t[k] / n[k], m[k]}' "$dir/$r.ops"
done
for r in A B; do
  grep '^[0-9]* added, .*rejected$' "$dir/$r.err" | sed "s/^/$r batch: /"
done
errs=$(cat "$dir"/*.err | grep -v '^[0-9]* added, .*rejected$' | sort | uniq -c | sort -rn)
[ -z "$errs" ] && ok || bad "errors reported to the user:
$(echo "$errs" | head -5)"
fails=$(cat "$dir"/*.ops | awk '$2 != 0' | wc -l)
[ "$fails" = 0 ] && ok || bad "$fails operations failed"

# every acknowledged write is there, and nothing else
cat "$dir"/A.out "$dir"/B.out "$dir"/L1.out "$dir"/L2.out | grep -o '"event_id":"[^"]*"' | cut -d'"' -f4 | sort > "$dir/ack.ids"
sqlite3 "$db" "SELECT id FROM events WHERE type <> 'task_switch'" | sort > "$dir/db.ids"
acked=$(wc -l < "$dir/ack.ids")
stored=$(wc -l < "$dir/db.ids")
lost=$(comm -23 "$dir/ack.ids" "$dir/db.ids" | wc -l)
extra=$(comm -13 "$dir/ack.ids" "$dir/db.ids" | wc -l)
echo "$acked writes acknowledged, $stored events stored, $lost lost, $extra not acknowledged; $elapsed ms"
[ "$lost" = 0 ] && ok || bad "$lost acknowledged writes are missing"
[ "$extra" = 0 ] && ok || bad "$extra events stored that the CLI did not acknowledge"
sent=$((2 * LINES + $(cat "$dir"/L1.ops "$dir"/L2.ops | grep -c '^add ')))
[ "$acked" = "$sent" ] && ok || bad "$acked of $sent writes acknowledged"
# the texts: every line of the batches (less the rejected ones) and every
# acknowledged turn, once each
for r in A B; do
  rejected=" $(grep -o "$r\.jsonl:[0-9]*:" "$dir/$r.err" | cut -d: -f2 | tr '\n' ' ')"
  awk -v rej="$rejected" 'index(rej, " " NR " ") == 0' "$dir/$r.texts"
done > "$dir/ack.texts"
cat "$dir"/L1.texts "$dir"/L2.texts >> "$dir/ack.texts" 2>/dev/null
sort "$dir/ack.texts" > "$dir/ack.sorted"
sqlite3 "$db" "SELECT content FROM events WHERE type <> 'task_switch'" | sort > "$dir/db.texts"
cmp -s "$dir/ack.sorted" "$dir/db.texts" && ok || bad "stored texts differ from the acknowledged ones:
$(diff "$dir/ack.sorted" "$dir/db.texts" | head -4)"

# Another writer holds the lock longer than the default limit (5 s; a long
# maintenance job, another program): recalls answer at once from their
# snapshot, with their memories (their heat is deferred); an add told to
# wait longer (AGENTMEM_BUSY_TIMEOUT_MS) is written once the lock is free;
# one told to wait less is refused with a message saying so, and writes
# nothing.
HOLD=8
{ echo "BEGIN IMMEDIATE;"; echo "UPDATE meta SET value = value WHERE key = 'schema_version';"
  sleep $HOLD; echo "COMMIT;"; } | sqlite3 "$db" &
holder=$!
for i in $(seq 1 100); do
  sqlite3 "$db" "BEGIN IMMEDIATE; ROLLBACK;" > /dev/null 2>&1 || break
  sleep 0.05
done
held_at=$(now_ms)
late="锁释放后写入：下周一交季度报告 written after the lock was released"
AGENTMEM_BUSY_TIMEOUT_MS=30000 "$CLI" --db "$db" add --user u1 --text "$late" --json > "$dir/late.out" 2> "$dir/late.err" &
latepid=$!
( t0=$(now_ms)
  AGENTMEM_BUSY_TIMEOUT_MS=300 "$CLI" --db "$db" add --user u2 --text "不该写入 must not be written" > /dev/null 2> "$dir/short.err"
  echo "$? $(( $(now_ms) - t0 )) $(( $(now_ms) - held_at ))" > "$dir/short.rc" ) &
shortpid=$!
# a recall that waited for the lock would take the whole limit (5 s) and fail
longest=0
for q in "周报怎么写？" "how should the report be sent?" "团建在哪里，预算多少" "what is the budget of the offsite?"; do
  t0=$(now_ms)
  "$CLI" --db "$db" recall --user u0 --text "$q" > "$dir/held.out" 2> "$dir/held.err"
  rc=$?
  ms=$(( $(now_ms) - t0 ))
  [ $ms -gt $longest ] && longest=$ms
  [ $rc = 0 ] && ok || bad "recall \"$q\" while the lock is held: rc $rc: $(head -c 300 "$dir/held.err")"
  # memories: the standing preferences, or the notes the learned reading keeps
  grep -q -e '周报' -e 'PDF' -e '预算' -e 'budget' "$dir/held.out" && ok || bad "recall \"$q\" while the lock is held: no memories: $(head -c 200 "$dir/held.out")"
  [ $ms -lt 4000 ] && ok || bad "recall \"$q\" took $ms ms while the lock was held (waited for it)"
done
echo "lock held ${HOLD}s by another writer: 4 recalls, longest $longest ms"
wait $shortpid
read -r rc ms done_at < "$dir/short.rc"
if [ "$done_at" -lt $((HOLD * 1000 - 200)) ]; then
  [ "$rc" = 1 ] && ok || bad "an add with a 300 ms limit while the lock was held: rc $rc"
  grep -q 'write lock.*busy_timeout_ms' "$dir/short.err" && ok || bad "the refusal does not say why: $(cat "$dir/short.err")"
  echo "add with a 300 ms limit: refused after $ms ms: $(cat "$dir/short.err")"
else
  echo "(the lock was released before the 300 ms add ended: not checked)"
fi
if [ "$rc" != 0 ]; then
  [ "$(sqlite3 "$db" "SELECT count(*) FROM events WHERE content LIKE '%must not be written%'")" = 0 ] && ok || bad "the refused add was written"
fi
wait $holder
wait $latepid && ok || bad "an add waiting up to 30 s for the lock: $(cat "$dir/late.err")"
late_id=$(grep -o '"event_id":"[^"]*"' "$dir/late.out" | cut -d'"' -f4)
[ -n "$late_id" ] && [ "$(sqlite3 "$db" "SELECT content FROM events WHERE id = '$late_id'")" = "$late" ] && ok || bad "the add that waited for the lock is not stored ($late_id)"
AGENTMEM_BUSY_TIMEOUT_MS=abc "$CLI" --db "$db" recall --user u0 --text x > /dev/null 2> "$dir/knob.err"
rc=$?
[ $rc = 2 ] && grep -q AGENTMEM_BUSY_TIMEOUT_MS "$dir/knob.err" && ok || bad "a bad AGENTMEM_BUSY_TIMEOUT_MS: rc $rc: $(cat "$dir/knob.err")"

# A writer killed mid-batch leaves a log whose index the next opener
# rebuilds (SQLITE_BUSY_RECOVERY for the others meanwhile): readers that
# start together right after all answer.
"$CLI" --db "$db" add --batch "$dir/A.jsonl" > /dev/null 2>&1 &
killme=$!
sleep 0.5
kill -9 $killme 2> /dev/null
wait $killme 2> /dev/null
pids=""
for i in 1 2 3 4; do
  "$CLI" --db "$db" recall --user u$i --text "周报 report" > /dev/null 2> "$dir/rec$i.err" &
  pids="$pids $!"
done
for p in $pids; do
  wait $p && ok || bad "a recall right after a writer was killed: $(cat "$dir"/rec*.err | head -3)"
done

check=$(sqlite3 "$db" "PRAGMA integrity_check;" 2>&1)
[ "$check" = "ok" ] && ok || bad "integrity: $check"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
