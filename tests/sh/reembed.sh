#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `agentmem reembed`: a store written without an embedder is given
# vectors of the one in $AGENTMEM_EMBEDDER -- one user, then all; a second
# run does nothing; vector recall then finds an old event no word of the
# question is in; without an embedder, a clear error and exit 1; a progress
# bar on a terminal.  Offline: a word2vec table written here (w2v:PATH).
# $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: reembed.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
db="$dir/t.db"
expect_no() { # needle description (not in last out+err)
  if ! grep -q -- "$1" "$dir/out" "$dir/err"; then passed=$((passed+1)); else
    echo "FAIL: $2: '$1' in output"; cat "$dir/out" "$dir/err"; failed=$((failed+1)); fi
}

# one axis per topic (8 dims): a word, its synonyms and its Chinese share one
{
  echo "12 8"
  for w in the i in; do echo "$w 0 0 0 0 0 0 0 1"; done
  for w in hiking trekking 爬山; do echo "$w 1 0 0 0 0 0 0 0"; done
  for w in mountains peaks; do echo "$w 0 1 0 0 0 0 0 0"; done
  for w in coffee latte 咖啡; do echo "$w 0 0 1 0 0 0 0 0"; done
  echo "weekend 0 0 0 1 0 0 0 0"
} > "$dir/vec.txt"
emb="w2v:$dir/vec.txt"

expect_rc 0 "reembed --help" "$CLI" reembed --help
expect_out "AGENTMEM_EMBEDDER" "reembed --help names the variable"
expect_rc 0 "listed in the usage" "$CLI" --help
expect_out "reembed" "usage lists reembed"

unset AGENTMEM_EMBEDDER
expect_rc 0 "add en" "$CLI" --db "$db" add --user alice --at 2026-03-01T10:00:00Z --text "I went hiking in the mountains last weekend"
expect_rc 0 "add zh" "$CLI" --db "$db" add --user alice --at 2026-03-01T10:05:00+08:00 --text "周末我们去爬山了"
expect_rc 0 "add bob" "$CLI" --db "$db" add --user bob --at 2026-03-01T11:00:00Z --text "I prefer coffee without sugar"
expect_rc 1 "reembed without an embedder" "$CLI" --db "$db" reembed
expect_out "no embedder is configured" "no-embedder message"
expect_out "AGENTMEM_EMBEDDER" "no-embedder message names the variable"

export AGENTMEM_EMBEDDER="$emb"
expect_rc 0 "recall before" "$CLI" --db "$db" recall --user alice --text "Any trekking among peaks?" --json
expect_no "hiking" "old event invisible before reembed"
expect_rc 1 "reembed unknown user" "$CLI" --db "$db" reembed --user ghost
expect_out "unknown user ghost" "unknown user message"
expect_rc 0 "reembed alice" "$CLI" --db "$db" reembed --user alice --json
expect_out '{"reembedded":2}' "alice's two events"
expect_no "\[#" "no progress bar when stderr is not a terminal"
expect_rc 0 "recall after" "$CLI" --db "$db" recall --user alice --text "Any trekking among peaks?" --json
expect_out "hiking" "old event found by its vector"
n=$(sqlite3 "$db" "SELECT count(*) FROM event_vectors")
[ "$n" = 2 ] && passed=$((passed+1)) || { echo "FAIL: $n vectors after alice, wanted 2"; failed=$((failed+1)); }
expect_rc 0 "reembed all" "$CLI" --db "$db" reembed
expect_out "^1 event re-embedded" "bob's event (one: singular)"
expect_rc 0 "reembed again" "$CLI" --db "$db" reembed
expect_out "^0 events re-embedded" "nothing left"

# another table (another embedder id): every event again, with a bar on a tty
cp "$dir/vec.txt" "$dir/vec2.txt"
if script -qec true /dev/null >/dev/null 2>&1; then
  AGENTMEM_EMBEDDER="w2v:$dir/vec2.txt" script -qec "'$CLI' --db '$db' reembed" /dev/null >"$dir/out" 2>&1
  expect_out "reembed \[#\{24\}\] 3/3 events 100%" "progress bar on a terminal"
  expect_out "3 events re-embedded" "re-embedded for the new embedder"
  n=$(sqlite3 "$db" "SELECT count(*) FROM event_vectors")
  [ "$n" = 3 ] && passed=$((passed+1)) || { echo "FAIL: $n vectors, wanted 3 (one per event)"; failed=$((failed+1)); }
fi
echo "reembed: $passed passed, $failed failed"
[ "$failed" = 0 ]
