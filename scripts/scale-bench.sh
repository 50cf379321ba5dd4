#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The scale measurement of docs/SCALING.md: `agentmem bench
# synth --servers N` for each N, on SQLite (a fresh file per N, the N
# processes sharing it) and on a throwaway PostgreSQL (tests/sh/lib/pg.bash:
# a temp directory, a free loopback port, fsync=off, pg_stat_statements
# loaded; a fresh database per N), each run's --json kept in OUT.  While a
# run ingests, `perf record -a` samples the whole machine for PERF seconds
# (0: no perf) and its report by process and by symbol is kept beside; after
# a PostgreSQL run, the statements that took the most time in the server.
#   scripts/scale-bench.sh [USERS (1000)] [EVENTS (100)] [QUERIES (300)]
#                          [COUNTS (1,2,4)] [STORES (sqlite,postgres)]
# Environment: OUT (a directory to keep the results, default a temp one,
# printed), CLIENTS (8), SERVER_THREADS (4), PERF (10).
set -u
cd "$(dirname "$0")/.."
users=${1:-1000} events=${2:-100} queries=${3:-300} counts=${4:-1,2,4} stores=${5:-sqlite,postgres}
cli=${AGENTMEM_CLI:-build/agentmem}
cli=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
clients=${CLIENTS:-8} sthreads=${SERVER_THREADS:-4} perf_s=${PERF:-10}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/am-scale-bench-XXXXXX")}
mkdir -p "$OUT"
. tests/sh/lib/pg.bash
echo "scale-bench: $users users x $events events, $queries queries, servers $counts, $clients clients," \
  "$sthreads threads per server; results in $OUT"
echo "scale-bench: machine $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# profile PID: perf over the machine while the bench PID ingests
profile() {
  local pid=$1 tag=$2
  [ "$perf_s" -gt 0 ] && command -v perf >/dev/null || return 0
  local kids="" waited
  # the servers are up once the bench has its children (they sample from then)
  for waited in $(seq 600); do
    kill -0 "$pid" 2>/dev/null || return 0
    kids=$(cat /proc/"$pid"/task/*/children 2>/dev/null | tr -s ' \n' ',' | sed 's/^,//; s/,$//')
    [ -n "$kids" ] && break
    sleep 0.5
  done
  sleep 5
  kill -0 "$pid" 2>/dev/null || return 0
  perf record -F 199 -a -g -o "$OUT/$tag.perf" -- sleep "$perf_s" >/dev/null 2>&1 || return 0
  # the machine by command (other work on it included), then the servers' symbols
  perf report -i "$OUT/$tag.perf" --no-children --sort comm --stdio 2>/dev/null \
    | grep -E '^ +[0-9]' | head -10 >"$OUT/$tag.by-comm"
  echo "servers $kids, bench $pid" >"$OUT/$tag.by-sym"
  perf report -i "$OUT/$tag.perf" --no-children --pid "$kids" --sort dso,sym --stdio -g none 2>/dev/null \
    | grep -E '^ +[0-9]' | head -30 >>"$OUT/$tag.by-sym"
  perf report -i "$OUT/$tag.perf" --no-children --pid "$kids" --sort dso --stdio -g none 2>/dev/null \
    | grep -E '^ +[0-9]' | head -12 >"$OUT/$tag.by-dso"
  rm -f "$OUT/$tag.perf"
}

run() { # tag store-args...
  local tag=$1; shift
  "$cli" bench synth --users "$users" --events "$events" --queries "$queries" \
    --clients "$clients" --server-threads "$sthreads" --json "$@" >"$OUT/$tag.json" 2>"$OUT/$tag.err" &
  local pid=$!
  profile "$pid" "$tag"
  wait "$pid" || { echo "scale-bench: $tag failed: $(tail -3 "$OUT/$tag.err")"; return 1; }
  python3 - "$OUT/$tag.json" "$tag" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
for x in r["runs"]:
    print("%-12s servers %d: %7.1f events/s, write p50 %6.2f p95 %7.2f ms, recall p50 %6.2f p95 %7.2f ms,"
          " found@%s %.3f, errors %d, acked %d, stored %d, missing %d; CPU servers %.0f s clients %.0f s,"
          " machine %.0f%% busy, load %.1f-%.1f" % (
          sys.argv[2], x["servers"], x["ingest_events_per_s"], x["write_p50_ms"], x["write_p95_ms"],
          x["recall_p50_ms"], x["recall_p95_ms"], max(x["needle_found"], key=int),
          x["needle_found"][max(x["needle_found"], key=int)], x["errors"], x["acknowledged"],
          x["stored"], x["missing"], x["server_cpu_seconds"], x["client_cpu_seconds"],
          100 * x["machine_busy"], x["load_before"], x["load_after"]))
EOF
  [ -s "$OUT/$tag.by-comm" ] && { echo "  perf, by process:"; sed 's/^/   /' "$OUT/$tag.by-comm"; }
  return 0
}

rc=0
IFS=, read -r -a ns <<<"$counts"
case ",$stores," in *,sqlite,*)
  for n in "${ns[@]}"; do run "sqlite-$n" --servers "$n" || rc=1; done ;;
esac
case ",$stores," in *,postgres,*)
  if ! pg_find; then echo "scale-bench: no PostgreSQL"; exit 1; fi
  pg_init am-scale-pg || exit 1 # TMP: the server's directory, removed on exit
  PG_EXTRA="-c max_connections=200 -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all"
  pg_start || exit 1
  echo "scale-bench: PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT, fsync=off"
  "$PGBIN/createdb" -h "$TMP/sock" -p "$PORT" -U am stats
  psql_in stats "CREATE EXTENSION pg_stat_statements"
  for n in "${ns[@]}"; do
    pg_new_db tcp || { rc=1; continue; }
    psql_in stats "SELECT pg_stat_statements_reset()" >/dev/null
    run "postgres-$n" --servers "$n" --store "$URL" || rc=1
    psql_in stats "SELECT round(sum(total_exec_time)::numeric / 1000, 1) || ' s in ' || sum(calls) || ' statements'
      FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = '$DB'" \
      >"$OUT/postgres-$n.statements"
    psql_in stats "SELECT round(total_exec_time::numeric / 1000, 2) || ' s, ' || calls || ' calls, '
      || round(mean_exec_time::numeric, 3) || ' ms: ' || left(regexp_replace(query, '\s+', ' ', 'g'), 110)
      FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = '$DB'
      ORDER BY total_exec_time DESC LIMIT 12" >>"$OUT/postgres-$n.statements"
    echo "  PostgreSQL: $(head -1 "$OUT/postgres-$n.statements") (top ones in $OUT/postgres-$n.statements)"
  done ;;
esac
echo "scale-bench: load after $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
