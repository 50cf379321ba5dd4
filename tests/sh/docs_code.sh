#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The docs match the code (tests/sh/lib/docs_code.py): the schema versions
# in docs/internals/stores.md, docs/KNOBS.md against `agentmem knobs
# --markdown`, every server route in docs/openapi.json and docs/SERVER.md,
# the number of fuzz targets in docs/internals/testing.md.  Then the check
# is checked: a copy of the tree with each fact planted wrong must fail and
# name it.  $1 = path of the agentmem CLI; run from the repository root.
set -u
CLI=${1:?usage: docs_code.sh AGENTMEM}
cd "$(dirname "$0")/../.."
py=tests/sh/lib/docs_code.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$CLI" knobs --markdown >"$tmp/knobs.md" || { echo "FAIL: agentmem knobs --markdown exited $?"; exit 1; }
fail=0
python3 "$py" . "$tmp/knobs.md" || fail=1

# a copy of what the check reads, each planted mismatch in turn
copy() {
  rm -rf "$tmp/t"; mkdir -p "$tmp/t/src/store/postgres" "$tmp/t/tools/server" "$tmp/t/docs/internals" "$tmp/t/fuzz"
  cp src/store/store.h "$tmp/t/src/store/"; cp src/store/postgres/pg_int.h "$tmp/t/src/store/postgres/"
  cp tools/server/route_table.c "$tmp/t/tools/server/"
  cp docs/KNOBS.md docs/openapi.json docs/SERVER.md "$tmp/t/docs/"
  cp docs/internals/stores.md docs/internals/testing.md "$tmp/t/docs/internals/"
  cp fuzz/fuzz_*.c "$tmp/t/fuzz/"
}
planted() { # $1 what, $2 expected text in the report
  out=$(python3 "$py" "$tmp/t" "$tmp/knobs.md")
  if [ $? -eq 0 ]; then echo "FAIL: planted $1 passed"; fail=1; return; fi
  case $out in *"$2"*) ;; *) echo "FAIL: planted $1 not named ($2):"; echo "$out"; fail=1 ;; esac
}
copy; sed -i 's/^#define AM__SCHEMA_VERSION \([0-9]*\)/#define AM__SCHEMA_VERSION 999/' "$tmp/t/src/store/store.h"
planted "SQLite schema version" "SQLite schema version"
copy; sed -i 's/^#define AM__PG_SCHEMA_VERSION \([0-9]*\)/#define AM__PG_SCHEMA_VERSION 999/' "$tmp/t/src/store/postgres/pg_int.h"
planted "PostgreSQL schema version" "PostgreSQL schema version"
copy; echo "| extra | line |" >>"$tmp/t/docs/KNOBS.md"
planted "knob list" "docs/KNOBS.md differs"
copy; sed -i 's|ROUTE("GET", "/metrics"|ROUTE("GET", "/planted/route"|' "$tmp/t/tools/server/route_table.c"
planted "route" "route GET /planted/route is not in docs/openapi.json"
planted "route row" "route GET /planted/route has no row in docs/SERVER.md"
copy; touch "$tmp/t/fuzz/fuzz_planted.c"
planted "fuzz target" "fuzz targets, fuzz/ has"
[ $fail -eq 0 ] && echo "docs_code: passed" || exit 1
