#!/usr/bin/env bash
# Killing the CLI in the middle of a batch of writes never leaves a
# half-written event: every event row has its index row, its audit record,
# and the file passes integrity_check.  Repeated with kills at several
# moments.  $1 = path of the agentmem CLI.
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
[ "$passed" -gt 0 ] || bad "nothing checked"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
