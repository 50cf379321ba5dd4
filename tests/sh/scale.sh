#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `agentmem bench synth --servers` (docs/SCALING.md): a
# tiny shape (4 users x 20 events, --servers 1,2) over real `agentmem
# serve` processes on SQLite (a temp file per run, and one --store file the
# runs share) and on a throwaway PostgreSQL (tests/sh/lib/pg.bash; skipped
# when PostgreSQL is not installed): the --json table has a row per
# instance count with its fields, 0 errors, every write acknowledged and in
# the store (also counted here, in the store itself), the needles found;
# the users' events are Chinese and English; bad options are refused by
# name; the servers are gone after a SIGTERM to the bench and after a store
# that cannot be opened.
# $1 = the agentmem CLI.
set -u
CLI=${1:?usage: scale.sh AGENTMEM}
CLI=$(cd "$(dirname "$CLI")" && pwd)/$(basename "$CLI")
cd "$(dirname "$0")/../.."
. tests/sh/lib/pg.bash
TMP=$(mktemp -d "${TMPDIR:-/tmp}/am-scale-XXXXXX")
chmod 755 "$TMP" # the PostgreSQL server runs as another user when we are root
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
SHAPE=(--users 4 --events 20 --queries 6 --clients 3 --server-threads 2)

# check_json FILE COUNTS...: a row per count, in order, each complete and clean
check_json() {
  local f=$1; shift
  python3 - "$f" "$@" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
want = [int(x) for x in sys.argv[2:]]
bad = []
if r.get("mode") != "servers": bad.append("mode %r" % r.get("mode"))
if r.get("events") != 80 or r.get("users") != 4: bad.append("shape %r x %r" % (r.get("users"), r.get("events")))
runs = r.get("runs", [])
if [x.get("servers") for x in runs] != want: bad.append("servers %r, wanted %r" % ([x.get("servers") for x in runs], want))
for x in runs:
    n = x.get("servers")
    for k in ("ingest_seconds", "ingest_events_per_s", "write_p50_ms", "write_p95_ms",
              "recall_p50_ms", "recall_p95_ms", "load_before", "load_after"):
        if not isinstance(x.get(k), (int, float)): bad.append("%s: %s missing" % (n, k))
    if not x.get("ingest_events_per_s", 0) > 0: bad.append("%s: no throughput" % n)
    if not 0 < x.get("write_p50_ms", 0) <= x.get("write_p95_ms", 0): bad.append("%s: write p50/p95 %r %r" % (n, x.get("write_p50_ms"), x.get("write_p95_ms")))
    if not 0 < x.get("recall_p50_ms", 0) <= x.get("recall_p95_ms", 0): bad.append("%s: recall p50/p95" % n)
    if x.get("errors") != 0: bad.append("%s: %r errors" % (n, x.get("errors")))
    if x.get("acknowledged") != 80: bad.append("%s: %r acknowledged of 80" % (n, x.get("acknowledged")))
    if x.get("stored") != 80: bad.append("%s: %r stored" % (n, x.get("stored")))
    if x.get("missing") != 0: bad.append("%s: %r missing" % (n, x.get("missing")))
    if x.get("recall_queries") != 6: bad.append("%s: %r queries" % (n, x.get("recall_queries")))
    found = x.get("needle_found", {})
    if sorted(found) != ["10", "25", "5"]: bad.append("%s: needle_found %r" % (n, found))
    if found.get("25") != 1.0: bad.append("%s: needles found @25 %r" % (n, found.get("25")))
for b in bad: print(b)
sys.exit(1 if bad else 0)
EOF
}

# ---------------------------------------------------------------- SQLite
if "$CLI" bench synth "${SHAPE[@]}" --servers 1,2 --json >"$TMP/sq.json" 2>"$TMP/sq.err"; then
  check_json "$TMP/sq.json" 1 2 || fail "SQLite (temp file per run): the table above"
else
  fail "SQLite --servers 1,2: $(tail -3 "$TMP/sq.err")"
fi
# one file shared by the runs (several processes on one SQLite file), text table
db="$TMP/shared.db"
if "$CLI" bench synth "${SHAPE[@]}" --servers 2,1 --store "sqlite:$db" >"$TMP/sq.txt" 2>"$TMP/sq2.err"; then
  head -2 "$TMP/sq.txt" | tail -1 | grep -q "servers.*events/s.*write_p50.*write_p95.*recall_p50.*recall_p95.*errors.*acked.*stored.*missing" \
    || fail "text table header: $(head -2 "$TMP/sq.txt")"
  rows=$(awk 'NR > 2 && NF == 13 && $1 ~ /^[0-9]+$/ { print $1, $9, $10, $11, $12 }' "$TMP/sq.txt")
  [ "$rows" = "2 0 80 80 0
1 0 80 80 0" ] || fail "text table rows (servers errors acked stored missing): $rows"
  # both runs' events are in the one file, Chinese and English
  for n in 1 2; do
    k=$(sqlite3 "$db" "SELECT count(*) FROM events WHERE user_id LIKE 'synth-s$n-u%'" 2>/dev/null)
    [ "$k" = 80 ] || fail "shared SQLite file: $k events of run $n, wanted 80"
  done
  "$CLI" --db "$db" export --user synth-s2-u00001 >"$TMP/exp.json" || fail "export"
  python3 - "$TMP/exp.json" <<'EOF' || fail "a synthetic user's events are not both Chinese and English"
import json, re, sys
ev = [e["content"] for e in json.load(open(sys.argv[1]))["events"]]
zh = sum(1 for t in ev if re.search(r"[\u4e00-\u9fff]", t))
en = sum(1 for t in ev if re.search(r"\b[A-Za-z]{4,}\b", t) and not re.search(r"[\u4e00-\u9fff]", t))
sys.exit(0 if len(ev) == 20 and zh > 0 and en > 0 else 1)
EOF
else
  fail "SQLite --store sqlite:FILE: $(tail -3 "$TMP/sq2.err")"
fi

# ---------------------------------------------------------------- bad input
for bad in "0" "9" "1,1" "x" "1,,2" ""; do
  out=$("$CLI" bench synth --users 2 --events 2 --servers "$bad" 2>&1); rc=$?
  [ "$rc" = 2 ] && echo "$out" | grep -q -- "--servers" || fail "--servers '$bad': exit $rc: $out"
done
out=$("$CLI" bench synth --users 2 --events 2 --servers 1 --reuse --db "$TMP/x.db" 2>&1); rc=$?
[ "$rc" = 2 ] && echo "$out" | grep -q -- "--reuse is not for synth --servers" || fail "--reuse with --servers: $rc $out"
out=$("$CLI" bench synth --users 2 --events 2 --servers 1 --clients 0 2>&1); rc=$?
[ "$rc" = 2 ] && echo "$out" | grep -q -- "--clients" || fail "--clients 0: $rc $out"
# a store that cannot be opened: a clean error, no server started
out=$("$CLI" bench synth --users 2 --events 2 --servers 1 \
  --store "postgresql://am:hunter2@127.0.0.1:1/none?connect_timeout=3" 2>&1); rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q "cannot open the store" || fail "unreachable store: $rc $out"
echo "$out" | grep -q hunter2 && fail "the password was shown: $out"

# ---------------------------------------------------------------- stopped on a signal
"$CLI" bench synth --users 8 --events 5000 --queries 0 --clients 2 --server-threads 1 --servers 2 \
  >"$TMP/sig.out" 2>"$TMP/sig.err" &
bench=$!
kids=""
for _ in $(seq 300); do
  kids=$(cat /proc/$bench/task/*/children 2>/dev/null | tr -s ' \n' ' ')
  [ "$(echo $kids | wc -w)" = 2 ] && break
  sleep 0.05
done
[ "$(echo $kids | wc -w)" = 2 ] || fail "the bench did not start 2 servers: '$kids'"
sleep 1
kill -TERM "$bench"
wait "$bench"; rc=$?
[ "$rc" = 1 ] && grep -q "interrupted by signal" "$TMP/sig.err" || fail "SIGTERM: exit $rc: $(cat "$TMP/sig.err")"
for k in $kids; do
  for _ in $(seq 100); do kill -0 "$k" 2>/dev/null || break; sleep 0.05; done
  kill -0 "$k" 2>/dev/null && { fail "server $k still runs after the bench was stopped"; kill -KILL "$k"; }
done

# ---------------------------------------------------------------- PostgreSQL
STMP=$TMP
if pg_find; then
  if pg_init am-scale-pg; then
    trap 'pg_cleanup; rm -rf "$STMP"' EXIT # pg_init's trap, and ours
    PG_EXTRA="-c max_connections=120"
    if pg_start; then
      pg_new_db tcp
      if "$CLI" bench synth "${SHAPE[@]}" --servers 1,2 --store "$URL" --json >"$STMP/pg.json" 2>"$STMP/pg.err"; then
        check_json "$STMP/pg.json" 1 2 || fail "PostgreSQL: the table above"
        for n in 1 2; do
          k=$(psql_in "$DB" "SELECT count(*) FROM events WHERE user_id LIKE 'synth-s$n-u%'")
          [ "$k" = 80 ] || fail "PostgreSQL: $k events of run $n in the store, wanted 80"
        done
        grep -q '"store": "postgres"' "$STMP/pg.json" || fail "PostgreSQL: store not named"
      else
        fail "PostgreSQL --servers 1,2: $(tail -3 "$STMP/pg.err")"
      fi
    else
      fail "the throwaway PostgreSQL did not start"
    fi
  else
    fail "initdb of the throwaway PostgreSQL"
  fi
else
  echo "SKIP: no PostgreSQL (the SQLite part ran)"
fi

if [ "$fails" -gt 0 ]; then echo "scale: $fails failures"; exit 1; fi
echo "scale: passed"
