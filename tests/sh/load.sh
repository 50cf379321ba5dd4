#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/load.sh end to end on a tiny shape (docs/SERVER.md):
# 4 users (Chinese and English user ids) against a real `agentmem serve`,
# single-event writes going through the server's writer thread while their
# connections wait suspended.  Closed loop (each user's next request when
# the last is answered) and open loop (--rate: requests sent when due,
# timed from then): both exit 0 with 0 errors and every acknowledged write
# in the store; the open loop sends no more than its schedule holds;
# `bench serve` refuses a bad --rate by name.
# $1 = the agentmem CLI.
set -u
CLI=${1:?usage: load.sh AGENTMEM}
CLI=$(cd "$(dirname "$CLI")" && pwd)/$(basename "$CLI")
cd "$(dirname "$0")/../.."
TMP=$(mktemp -d "${TMPDIR:-/tmp}/am-load-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# closed loop: 3 s, 4 users, 2 workers, half writes
if ! AGENTMEM_CLI=$CLI bash scripts/load.sh 3 4 2 0.5 >"$TMP/closed" 2>&1; then
  fail "closed loop exited non-zero"; cat "$TMP/closed"
fi
grep -q "missing 0;" "$TMP/closed" || fail "closed loop: an acknowledged write is missing"
grep -Eq "^  all +[0-9]+ requests .* errors 0$" "$TMP/closed" || fail "closed loop: errors"
acked=$(sed -n 's/.*acknowledged \([0-9]*\) writes.*/\1/p' "$TMP/closed")
[ "${acked:-0}" -gt 0 ] || fail "closed loop: no write acknowledged"

# open loop at 40 requests/s for 3 s: at most 120 requests (+1 per user)
if ! AGENTMEM_CLI=$CLI bash scripts/load.sh 3 4 2 0.5 40 >"$TMP/open" 2>&1; then
  fail "open loop exited non-zero"; cat "$TMP/open"
fi
grep -q "open loop at 40 requests/s" "$TMP/open" || fail "open loop: not announced"
grep -q "missing 0;" "$TMP/open" || fail "open loop: an acknowledged write is missing"
total=$(sed -n 's/^  all \+\([0-9]*\) requests.*/\1/p' "$TMP/open")
if [ -z "$total" ] || [ "$total" -gt 124 ] || [ "$total" -lt 8 ]; then
  fail "open loop: $total requests, not the schedule's 120 (at most 124)"
fi
grep -Eq "^  all +[0-9]+ requests .* errors 0$" "$TMP/open" || fail "open loop: errors"

# a bad --rate is refused (usage, exit 2) before any request
echo "u x" >"$TMP/tokens"
"$CLI" bench serve --url http://127.0.0.1:9 --tokens "$TMP/tokens" --rate -5 >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" = 2 ] && grep -q -- "--rate" "$TMP/err" || fail "--rate -5: exit $rc, $(head -c 200 "$TMP/err")"

sed -n 's/^  \(all .*\)/closed: \1/p' "$TMP/closed"
sed -n 's/^  \(all .*\)/open:   \1/p' "$TMP/open"
[ "$fails" = 0 ] && echo "load: ok" || { echo "load: $fails failures"; exit 1; }
