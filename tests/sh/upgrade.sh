#!/usr/bin/env bash
# Upgrade: a store written by schema version 1 (tests/fixtures/store_v1.db,
# made by agentmem 0.1.0 at commit 9f2ff81) opens, migrates to the current
# schema in place (per-user index terms), and answers as before -- zh and
# en, each user only their own events.  $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: upgrade.sh AGENTMEM}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
db="$dir/v1.db"
cp "$here/../fixtures/store_v1.db" "$db"
passed=0; failed=0
check() { # description needle-that-must-be-there needle-that-must-not command...
  local what=$1 want=$2 not=$3; shift 3
  local out; out=$("$@" 2>&1); local rc=$?
  if [ $rc -ne 0 ] || ! grep -q -- "$want" <<<"$out" || { [ -n "$not" ] && grep -q -- "$not" <<<"$out"; }; then
    echo "FAIL: $what (exit $rc)"; echo "$out"; failed=$((failed+1))
  else passed=$((passed+1)); fi
}
[ "$(sqlite3 "$db" "SELECT value FROM meta WHERE key='schema_version'")" = 1 ] || { echo "fixture is not v1"; exit 1; }
check "zh recall after upgrade" "爸爸的生日" "车牌" "$CLI" --db "$db" recall --user alice --text "我爸爸的生日是哪天？" --json
check "en recall after upgrade" "Lisbon" "window" "$CLI" --db "$db" recall --user alice --text "Where does my sister live?" --json
check "other user, zh" "粤B12345" "爸爸" "$CLI" --db "$db" recall --user bob --text "舅舅的车牌号是多少" --json
check "other user, en" "window seats" "Lisbon" "$CLI" --db "$db" recall --user bob --text "which seats do I like on flights" --json
v=$(sqlite3 "$db" "SELECT value FROM meta WHERE key='schema_version'")
[ "$v" -ge 3 ] && passed=$((passed+1)) || { echo "FAIL: schema_version $v after open"; failed=$((failed+1)); }
ok=$(sqlite3 "$db" "PRAGMA integrity_check")
[ "$ok" = ok ] && passed=$((passed+1)) || { echo "FAIL: integrity_check: $ok"; failed=$((failed+1)); }
# new events after the upgrade are found with the old ones
"$CLI" --db "$db" add --user alice --session s3 --at 2026-03-03T09:00:00+08:00 --text "我妈妈的生日是十月一号" >/dev/null
check "old and new rows together" "妈妈的生日" "车牌" "$CLI" --db "$db" recall --user alice --text "妈妈的生日" --json
# the per-user event counter (v4) matches the events, after adds and a forget
same_count() {
  local u=$1 c n
  c=$(sqlite3 "$db" "SELECT n_events FROM users WHERE user_id='$u'")
  n=$(sqlite3 "$db" "SELECT count(*) FROM events WHERE user_id='$u'")
  [ "$c" = "$n" ] && [ "$n" -gt 0 ] && passed=$((passed+1)) || { echo "FAIL: $u n_events $c, events $n"; failed=$((failed+1)); }
}
same_count alice; same_count bob
id=$(sqlite3 "$db" "SELECT id FROM events WHERE user_id='alice' ORDER BY rid LIMIT 1")
"$CLI" --db "$db" forget --user alice --level event --id "$id" >/dev/null
same_count alice
echo "upgrade: $passed passed, $failed failed"
[ "$failed" = 0 ]
