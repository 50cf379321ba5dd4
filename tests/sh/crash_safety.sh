#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Killing the CLI in the middle of a batch of writes never leaves a
# half-written event: every event row has its index row, its audit record,
# and the file passes integrity_check.  Repeated with kills at several
# moments.  Then the same for kills at random moments of a user-level
# forget.  $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: crash_safety.sh AGENTMEM}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0; failed=0
ok() { passed=$((passed+1)); }
bad() { echo "FAIL: $*"; failed=$((failed+1)); }

for i in $(seq 1 3000); do
  if [ $((i % 2)) = 0 ]; then
    printf '{"user":"u%d","session":"s%d","task":"t%d","at":"2026-03-01T10:%02d:%02d+08:00","text":"以后周报都按三段写，第%d条记录，预算改成%d万"}\n' $((i%5)) $((i%7)) $((i%3)) $((i/60%60)) $((i%60)) $i $i
  else
    printf '{"user":"u%d","session":"s%d","at":"2026-03-01T10:%02d:%02dZ","text":"From now on always send report number %d as a PDF"}\n' $((i%5)) $((i%7)) $((i/60%60)) $((i%60)) $i
  fi
done > "$dir/batch.jsonl"

for delay in 0.2 0.5 0.9 1.4; do
  db="$dir/crash_$delay.db"
  "$CLI" --db "$db" add --batch "$dir/batch.jsonl" >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  if [ ! -f "$db" ]; then ok; continue; fi
  check=$(sqlite3 "$db" "PRAGMA integrity_check;" 2>&1)
  [ "$check" = "ok" ] && ok || bad "integrity after kill at ${delay}s: $check"
  if [ -z "$(sqlite3 "$db" "SELECT 1 FROM sqlite_master WHERE name = 'events'")" ]; then
    # killed before the schema's transaction committed (a slow start, e.g.
    # under sanitizers): an empty file, which must still open and answer
    echo "kill at ${delay}s: before the schema was created"
    "$CLI" --db "$db" recall --user u2 --text "周报预算" >/dev/null 2>&1 && ok || bad "recall after crash"
    continue
  fi
  ev=$(sqlite3 "$db" "SELECT count(*) FROM events;")
  fts=$(sqlite3 "$db" "SELECT count(*) FROM events_fts_docsize;")
  # every event has its audit record: added events one 'event.add', the
  # task_switch events the write path records one 'task.switch'
  aud=$(sqlite3 "$db" "SELECT count(*) FROM audit_log WHERE op IN ('event.add', 'task.switch');")
  orphan_src=$(sqlite3 "$db" "SELECT count(*) FROM item_sources s WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id=s.event_id);")
  orphan_fts=$(sqlite3 "$db" "SELECT count(*) FROM events_fts_docsize f WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.rid=f.id);")
  echo "kill at ${delay}s: $ev events, $fts index rows, $aud audit rows"
  [ "$ev" = "$fts" ] && ok || bad "events $ev vs index rows $fts"
  [ "$ev" = "$aud" ] && ok || bad "events $ev vs audit rows $aud"
  [ "$orphan_src" = 0 ] && ok || bad "$orphan_src item sources without an event"
  [ "$orphan_fts" = 0 ] && ok || bad "$orphan_fts index rows without an event"
  # the store still opens and answers after the crash
  "$CLI" --db "$db" recall --user u2 --text "周报预算" >/dev/null 2>&1 && ok || bad "recall after crash"
done
# kill -9 at random moments of a user-level forget: the file passes
# integrity_check, the forget happened entirely or not at all (a forget
# that works in chunks may stop between chunks: then what is left is
# whole), no row points at a missing event, and forgetting again finishes
# the job with nothing of the user left in any table but the tombstone
# and the audit log.
for i in $(seq 1 800); do
  printf '{"user":"f%d","session":"s%d","at":"2026-03-01T11:%02d:%02dZ","text":"以后报告%d都发到1391234%04d，my e-mail is f%d@example.com"}\n' $((i%2)) $((i%7)) $((i/60%60)) $((i%60)) $i $i $i
done > "$dir/forget_batch.jsonl"
base="$dir/forget_base.db"
"$CLI" --db "$base" add --batch "$dir/forget_batch.jsonl" >/dev/null 2>&1 || bad "building the forget store"
sqlite3 "$base" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
total=$(sqlite3 "$base" "SELECT count(*) FROM events WHERE user_id='f1'")
user_tables="events entities pii_vault tasks task_history memory_items event_vectors vector_blocks"
# how long a whole forget takes here: the kills land anywhere in it
cp "$base" "$dir/forget_timing.db"
t0=$(date +%s%N)
"$CLI" --db "$dir/forget_timing.db" forget --user f1 --level user >/dev/null 2>&1 || bad "forget"
span_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$span_ms" -gt 20 ] || span_ms=20
whole=0; none=0; partial=0
for k in 1 2 3 4 5 6 7 8; do
  db="$dir/forget_$k.db"
  cp "$base" "$db"
  ms=$(( RANDOM % (span_ms + span_ms / 5) ))
  delay=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
  "$CLI" --db "$db" forget --user f1 --level user >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  check=$(sqlite3 "$db" "PRAGMA integrity_check;" 2>&1)
  [ "$check" = "ok" ] && ok || bad "integrity after a kill at ${delay}s in forget: $check"
  left=$(sqlite3 "$db" "SELECT count(*) FROM events WHERE user_id='f1'")
  other=$(sqlite3 "$db" "SELECT count(*) FROM events WHERE user_id='f0'")
  ev=$(sqlite3 "$db" "SELECT count(*) FROM events;")
  fts=$(sqlite3 "$db" "SELECT count(*) FROM events_fts_docsize;")
  if [ "$left" = "$total" ]; then none=$((none+1)); elif [ "$left" = 0 ]; then whole=$((whole+1)); else partial=$((partial+1)); fi
  echo "kill at ${delay}s in forget: $left of $total events of the user left"
  [ "$ev" = "$fts" ] && ok || bad "forget kill at ${delay}s: events $ev vs index rows $fts"
  [ "$other" = "$(sqlite3 "$base" "SELECT count(*) FROM events WHERE user_id='f0'")" ] && ok ||
    bad "forget kill at ${delay}s: the other user lost events"
  # A forget killed after it recorded its job has hidden the user; the next
  # open finishes the purge.  One killed before that is simply run again.
  jobs=$(sqlite3 "$db" "SELECT count(*) FROM forget_jobs WHERE user_id='f1' AND level='user'")
  if [ "$jobs" != 0 ]; then
    "$CLI" --db "$db" recall --user f0 --text "报告" >/dev/null 2>&1 || bad "open after a kill in forget"
    "$CLI" --db "$db" recall --user f1 --text "报告" 2>/dev/null | grep -q "1391234" &&
      bad "forget kill at ${delay}s: the forgotten user is visible"
  else
    "$CLI" --db "$db" forget --user f1 --level user >/dev/null 2>&1 || [ "$left" = 0 ] || bad "forget again after a kill"
  fi
  orphans=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM pii_vault v WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.rid=v.event_rid))
    + (SELECT count(*) FROM item_sources s WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id=s.event_id))
    + (SELECT count(*) FROM entities n WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.rid=n.event_rid))
    + (SELECT count(*) FROM events_fts_docsize f WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.rid=f.id));" 2>&1)
  [ "$orphans" = 0 ] && ok || bad "forget kill at ${delay}s: $orphans rows point at missing events after the purge finished"
  for t in $user_tables; do
    n=$(sqlite3 "$db" "SELECT count(*) FROM $t WHERE user_id='f1'" 2>&1)
    [ "$n" = 0 ] && ok || bad "after the purge finished: $n rows of the user in $t"
  done
done
echo "forget kills (a forget takes ${span_ms} ms): $none before it committed, $whole after, $partial between chunks"
[ "$passed" -gt 0 ] || bad "nothing checked"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
