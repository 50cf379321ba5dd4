#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
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
# 300 vectors of another user (16 wide, in the v1 layout: a row each); the
# upgrade packs them (v5: 2 blocks of 128 and a tail of 44) -- byte for byte
sqlite3 "$db" "WITH RECURSIVE c(k) AS (SELECT 1000 UNION ALL SELECT k + 1 FROM c WHERE k < 1299)
  INSERT INTO event_vectors SELECT k, 'carol', 'w2v:t', 16, k / 1024.0, randomblob(16) FROM c;"
cp "$db" "$dir/orig.db"
check "zh recall after upgrade" "爸爸的生日" "车牌" "$CLI" --db "$db" recall --user alice --text "我爸爸的生日是哪天？" --json
check "en recall after upgrade" "Lisbon" "window" "$CLI" --db "$db" recall --user alice --text "Where does my sister live?" --json
check "other user, zh" "粤B12345" "爸爸" "$CLI" --db "$db" recall --user bob --text "舅舅的车牌号是多少" --json
check "other user, en" "window seats" "Lisbon" "$CLI" --db "$db" recall --user bob --text "which seats do I like on flights" --json
v=$(sqlite3 "$db" "SELECT value FROM meta WHERE key='schema_version'")
[ "$v" -ge 3 ] && passed=$((passed+1)) || { echo "FAIL: schema_version $v after open"; failed=$((failed+1)); }
vecs=$(sqlite3 "$db" "ATTACH '$dir/orig.db' AS o;
  SELECT (SELECT count(*) FROM vector_blocks WHERE user_id='carol' AND n=128),
         (SELECT count(*) FROM event_vectors WHERE user_id='carol' AND block IS NULL),
         (SELECT count(*) FROM o.event_vectors x JOIN main.event_vectors v ON v.event_rid = x.event_rid
            LEFT JOIN vector_blocks b ON b.block = v.block
          WHERE v.user_id='carol' AND v.scale = x.scale AND CASE WHEN v.block IS NULL THEN v.vec = x.vec
            ELSE length(v.vec) = 0 AND instr(b.vecs, x.vec) % 16 = 1
                 AND hex(substr(b.rids, (instr(b.vecs, x.vec) - 1) / 2 + 1, 8))
                     = printf('%02X%02X000000000000', x.event_rid % 256, x.event_rid / 256) END);")
[ "$vecs" = "2|44|300" ] && passed=$((passed+1)) || { echo "FAIL: vectors after the upgrade: $vecs (want 2|44|300)"; failed=$((failed+1)); }
# v6: each block has its sign bits (16 wide: 2 bytes a vector)
bits=$(sqlite3 "$db" "SELECT count(*) FROM vector_blocks b JOIN vector_bits x ON x.block = b.block
  WHERE b.user_id='carol' AND length(x.bits) = 2 * b.n")
[ "$bits" = 2 ] && passed=$((passed+1)) || { echo "FAIL: sign bits after the upgrade: $bits blocks (want 2)"; failed=$((failed+1)); }
ok=$(sqlite3 "$db" "PRAGMA integrity_check")
[ "$ok" = ok ] && passed=$((passed+1)) || { echo "FAIL: integrity_check: $ok"; failed=$((failed+1)); }
# new events after the upgrade are found with the old ones
"$CLI" --db "$db" add --user alice --session s3 --at 2026-03-03T09:00:00+08:00 --text "我妈妈的生日是十月一号" >/dev/null
check "old and new rows together" "妈妈的生日" "车牌" "$CLI" --db "$db" recall --user alice --text "妈妈的生日" --json
# v7: versions written before keep no token set (computed at recall);
# the new one is stored with its own
toks=$(sqlite3 "$db" "SELECT count(*) FILTER (WHERE tokens IS NULL), count(*) FILTER (WHERE tokens IS NOT NULL AND text LIKE '%妈妈%') FROM memory_items")
case "$toks" in [1-9]*\|1) passed=$((passed+1)) ;; *) echo "FAIL: item token sets after the upgrade: $toks (want N|1)"; failed=$((failed+1)) ;; esac
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
# the index records the analyzer that wrote it (meta fts_analyzer); a store
# whose index another analyzer wrote is re-indexed from its stored texts on
# open.  Simulated: a row's stored text changes under the index (the index
# keeps the old tokens, as after a tokenizer change) and the recorded
# analyzer is an older one.
an=$(sqlite3 "$db" "SELECT value FROM meta WHERE key='fts_analyzer'")
[ -n "$an" ] && passed=$((passed+1)) || { echo "FAIL: no fts_analyzer recorded after the upgrade"; failed=$((failed+1)); }
# Item versions' token sets tagged with the older analyzer are computed again.
sqlite3 "$db" "UPDATE events_fts_content SET c1 = replace(c1, '粤B12345', '京A54321') WHERE c1 LIKE '%粤B12345%';
  UPDATE memory_items SET tokens = CAST(X'01000100' || substr(tokens, 5) AS BLOB) WHERE tokens IS NOT NULL;
  UPDATE meta SET value = '1' WHERE key = 'fts_analyzer'"
ntok=$(sqlite3 "$db" "SELECT count(*) FROM memory_items WHERE tokens IS NOT NULL")
check "re-indexed: the stored text is found" "粤B12345" "" "$CLI" --db "$db" recall --user bob --text "京A54321" --json
check "re-indexed: the stale term is gone" "route" "粤B12345" "$CLI" --db "$db" recall --user bob --text "粤B12345" --json
[ "$(sqlite3 "$db" "SELECT value FROM meta WHERE key='fts_analyzer'")" = "$an" ] && passed=$((passed+1)) || { echo "FAIL: fts_analyzer not recorded after the rebuild"; failed=$((failed+1)); }
renewed=$(sqlite3 "$db" "SELECT count(*) FROM memory_items WHERE tokens IS NOT NULL AND typeof(tokens) = 'blob' AND hex(substr(tokens, 1, 4)) <> '01000100'")
[ "$ntok" -gt 0 ] && [ "$renewed" = "$ntok" ] && passed=$((passed+1)) || { echo "FAIL: item token sets after the rebuild: $renewed of $ntok renewed"; failed=$((failed+1)); }
echo "upgrade: $passed passed, $failed failed"
[ "$failed" = 0 ]
