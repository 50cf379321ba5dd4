#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Upgrade of the provenance layout (schema v11, linear storage): a store
# written by schema version 9 (tests/fixtures/store_v9_sources.db, made by
# the CLI at commit 1b9f5f7: alice said "以后周报都用表格格式，别用长段落。"
# and "From now on, I prefer aisle seats on flights." 60 times each, bob
# one sentence) holds 60 versions per statement, each copying every
# earlier source: 2 x 60 x 61 / 2 = 3660 item_sources rows (+ bob's 1).
# Opened by this build, every version keeps its count (source_count) and
# lists only its first and latest sources (store.h: 4 + 28); recall
# answers as before, zh and en; a further repetition adds no version and
# no row; forgetting counts the forgotten sources out.  $1 = the CLI.
set -u
CLI=${1:?usage: upgrade_sources.sh AGENTMEM}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
db="$dir/v9.db"
cp "$here/../fixtures/store_v9_sources.db" "$db"
passed=0; failed=0
ok() { passed=$((passed+1)); }
bad() { echo "FAIL: $*"; failed=$((failed+1)); }
q() { sqlite3 "$db" "$1"; }
[ "$(q "SELECT value FROM meta WHERE key='schema_version'")" = 9 ] || { echo "fixture is not v9"; exit 1; }
[ "$(q "SELECT count(*) FROM item_sources")" = 3661 ] || { echo "fixture is not the quadratic layout"; exit 1; }
first_zh=$(q "SELECT id FROM events WHERE content LIKE '以后周报%' ORDER BY occurred_at LIMIT 1")
last_en=$(q "SELECT id FROM events WHERE content LIKE 'From now on, I prefer aisle%' ORDER BY occurred_at DESC LIMIT 1")
out=$("$CLI" --db "$db" recall --user alice --text "周报用什么格式？" --json 2>&1) &&
  grep -q "表格格式" <<<"$out" && ! grep -q "window seats" <<<"$out" && ok || bad "zh recall after the upgrade: $out"
out=$("$CLI" --db "$db" recall --user alice --text "which seats do I like on flights" --json 2>&1) &&
  grep -q "aisle" <<<"$out" && ok || bad "en recall after the upgrade: $out"
[ "$(q "SELECT value FROM meta WHERE key='schema_version'")" -ge 10 ] && ok || bad "schema_version after open"
# every version counted, none lists more than 32, the current ones all 60
[ "$(q "SELECT count(*) FROM memory_items")" = 121 ] && ok || bad "versions changed: $(q "SELECT count(*) FROM memory_items")"
[ "$(q "SELECT max(c) FROM (SELECT count(*) AS c FROM item_sources GROUP BY item_rid)")" = 32 ] && ok || bad "a version lists more than 32"
rows=$(q "SELECT count(*) FROM item_sources")
[ "$rows" -lt 3661 ] && [ "$rows" = "$(q "SELECT sum(min(source_count, 32)) FROM memory_items")" ] && ok || bad "item_sources rows $rows"
[ "$(q "SELECT group_concat(source_count) FROM memory_items WHERE superseded_at IS NULL AND user_id='alice' ORDER BY rid")" = "60,60" ] && ok ||
  bad "current counts: $(q "SELECT group_concat(source_count) FROM memory_items WHERE superseded_at IS NULL")"
# the oldest kept: the first event is still the first source listed
out=$("$CLI" --db "$db" memories --user alice --json 2>&1)
grep -q "\"source_event_ids\":\[\"$first_zh\"" <<<"$out" && grep -q '"source_count":60' <<<"$out" && ok || bad "memories after the upgrade: $out"
[ "$(q "PRAGMA integrity_check")" = ok ] && ok || bad "integrity_check"
# one more repetition: no version, one row in, one out (the list is full)
"$CLI" --db "$db" add --user alice --session s9 --at 2026-03-03T09:00:00+08:00 --text "以后周报都用表格格式，别用长段落。" >/dev/null
[ "$(q "SELECT count(*) FROM memory_items")" = 121 ] && [ "$(q "SELECT count(*) FROM item_sources")" = "$rows" ] && ok ||
  bad "a repetition after the upgrade: $(q "SELECT count(*) FROM memory_items") versions, $(q "SELECT count(*) FROM item_sources") rows"
[ "$(q "SELECT source_count FROM memory_items WHERE superseded_at IS NULL AND text LIKE '以后周报%'")" = 61 ] && ok || bad "count after a repetition"
# forgetting the latest English mention: counted out, the item stays
"$CLI" --db "$db" forget --user alice --level event --id "$last_en" >/dev/null || bad "forget"
[ "$(q "SELECT source_count FROM memory_items WHERE superseded_at IS NULL AND text LIKE 'From now on, I prefer aisle%'")" = 59 ] && ok ||
  bad "count after a forget: $(q "SELECT source_count FROM memory_items WHERE superseded_at IS NULL AND text LIKE 'From now on, I prefer aisle%'")"
out=$("$CLI" --db "$db" export --user alice 2>&1) && python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["events"]) == 120 and len(d["memories"]) == 120' <<<"$out" && ok || bad "export after the upgrade"
echo "upgrade_sources: $passed passed, $failed failed"
[ "$failed" = 0 ]
