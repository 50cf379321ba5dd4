#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The maintenance pass from the CLI and the server (docs/LIFECYCLE.md):
#   - `agentmem maintain` (text and --json) on items stated in January 2025:
#     by now far past their confidence half-lives, they become
#     candidate_forget (still listed, marked); a second pass changes nothing;
#     --user of nobody and a bad user id are refused naming them;
#   - `serve --maintain-every 1s` does the same in the background on a fresh
#     store (seen through a second connection while it serves), stops with
#     the server (exit 0); a bad DURATION is a usage error;
#   - the lifecycle scenario files (zh, en) on PostgreSQL, their recall
#     outputs the same as on SQLite (skipped without PostgreSQL).
# $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: lifecycle.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/server.bash"
cd "$(dirname "$0")/../.."

old_items() { # DB: one user's items said in January 2025
  "$CLI" --db "$1" add --user ann --session s1 --at 2025-01-06T10:00:00Z \
    --text "Please always book me a window seat on flights." >/dev/null &&
  "$CLI" --db "$1" add --user ann --session s1 --at 2025-01-06T10:01:00Z --text "我对花生过敏。" >/dev/null
}

# ---------------------------------------------------------------- the CLI
cdb="$dir/cli.db"
old_items "$cdb" || { echo "FAIL: add"; exit 1; }
expect_rc 0 "maintain --json" "$CLI" --db "$cdb" maintain --json
expect_out '"candidate_forget":2' "maintain --json: both items are candidates"
expect_out '"finished":true' "maintain --json: the pass went through"
expect_rc 0 "memories" "$CLI" --db "$cdb" memories --user ann
expect_out "candidate_forget" "memories: the candidates are listed, marked"
expect_out "window seat" "memories: the English item is still listed"
expect_out "花生" "memories: the Chinese item is still listed"
expect_rc 0 "maintain again" "$CLI" --db "$cdb" maintain
expect_out "0 candidate_forget" "maintain again: nothing twice"
expect_out "^1 user: " "maintain: text summary counts the users (one: singular)"
expect_rc 1 "maintain --user nobody" "$CLI" --db "$cdb" maintain --user nobody
expect_out "user nobody not found" "maintain --user nobody: named"
expect_rc 1 "maintain --user with a control character" "$CLI" --db "$cdb" maintain --user "$(printf 'a\tb')"
expect_out "maintain: user" "maintain: the bad user id is named"

# ---------------------------------------------------------------- the server
old_items "$db" || { echo "FAIL: add"; exit 1; }
expect_rc 2 "serve --maintain-every 5x" "$CLI" --db "$db" serve --maintain-every 5x
expect_out "maintain-every" "a bad DURATION names the flag"
start_server --maintain-every 1s
seen=0
for _ in $(seq 100); do # at most 10 s
  if "$CLI" --db "$db" memories --user ann 2>/dev/null | grep -q candidate_forget; then seen=1; break; fi
  sleep 0.1
done
if [ $seen = 1 ]; then passed=$((passed+1)); else
  echo "FAIL: serve --maintain-every: no candidate_forget within 10 s"; cat "$dir/srv.err"; failed=$((failed+1)); fi
stop_server
if [ "$srv_rc" = 0 ]; then passed=$((passed+1)); else
  echo "FAIL: serve --maintain-every: exit $srv_rc at SIGTERM"; cat "$dir/srv.err"; failed=$((failed+1)); fi
grep -q "maintain: 2 items changed" "$dir/srv.err" && passed=$((passed+1)) ||
  { echo "FAIL: serve: the pass's summary not on stderr"; cat "$dir/srv.err"; failed=$((failed+1)); }

# ---------------------------------------------------------------- PostgreSQL
. tests/sh/lib/pg.bash
if pg_find >/dev/null; then
  pg_init am-life || exit 1
  if ! pg_start; then echo "FAIL: PostgreSQL did not start"; exit 1; fi
  for f in tests/scenarios/lifecycle_en.jsonl tests/scenarios/lifecycle_zh.jsonl; do
    b=$(basename "$f" .jsonl)
    pg_new_db || { echo "FAIL: createdb"; exit 1; }
    expect_rc 0 "$b on PostgreSQL" "$CLI" scenario run --store "$URL" --dump "$dir/$b.pg" "$f"
    expect_out " 0 failed" "$b on PostgreSQL: every expectation"
    expect_rc 0 "$b on SQLite" "$CLI" scenario run --store "sqlite:$dir/$b.db" --dump "$dir/$b.sq" "$f"
    if cmp -s "$dir/$b.pg" "$dir/$b.sq"; then passed=$((passed+1)); else
      echo "FAIL: $b: the recall outputs differ between PostgreSQL and SQLite"; failed=$((failed+1)); fi
  done
  # the CLI's pass on PostgreSQL
  pg_new_db || { echo "FAIL: createdb"; exit 1; }
  old_items "$URL" || { echo "FAIL: add on PostgreSQL"; exit 1; }
  expect_rc 0 "maintain on PostgreSQL" "$CLI" --db "$URL" maintain --json
  expect_out '"candidate_forget":2' "maintain on PostgreSQL: both items are candidates"
else
  echo "SKIP: no PostgreSQL: the PostgreSQL part"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
