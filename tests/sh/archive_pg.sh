#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Archived events on PostgreSQL: tests/unit/test_cold against a throwaway
# PostgreSQL server (an old event's text moved to the cold column, read
# back by recall, the events list and export, restored; forget at every
# level, with and without a grace period, leaves no row holding its
# packed text).  Skipped (exit 77, SKIP) without PostgreSQL.
# $1 = the agentmem CLI (unused); $AM_COLD_TEST = the unit test's binary.
set -u
cd "$(dirname "$0")/../.."
here=$PWD/tests/sh
TEST_BIN=${AM_COLD_TEST:-build/cmake/test_cold}
TEST_BIN=$(cd "$(dirname "$TEST_BIN")" && pwd)/$(basename "$TEST_BIN")
. "$here/lib/pg.bash"
pg_find || exit 77
passed=0; failed=0
if pg_init am-cold && pg_start && pg_new_db tcp; then
  if AM_PG_URL="$URL" timeout 300 "$TEST_BIN" >"$TMP/unit.log" 2>&1; then passed=$((passed+1))
    echo "archive_pg.sh: test_cold passed on PostgreSQL"
  else echo "FAIL: test_cold on PostgreSQL"; tail -30 "$TMP/unit.log"; failed=$((failed+1)); fi
  grep -q "SQLite only" "$TMP/unit.log" && { echo "FAIL: the PostgreSQL checks did not run"; failed=$((failed+1)); }
else echo "FAIL: PostgreSQL did not start"; failed=$((failed+1)); fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
