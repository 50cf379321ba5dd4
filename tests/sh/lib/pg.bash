# SPDX-License-Identifier: Apache-2.0
# Sourced by tests/sh scripts that need a throwaway PostgreSQL server (not
# a test itself): store_conformance.sh, pg_faults.sh, bus.sh, scale.sh and
# scripts/scale-bench.sh.  Never the system's
# service: initdb in a temporary directory, a free loopback port and a
# Unix socket there, as an unprivileged user when run as root, stopped and
# removed on exit.
#   pg_find || exit 0     PGBIN set, or "SKIP: no PostgreSQL" printed (return 1)
#   pg_init PREFIX        TMP (a new temporary directory, with sock/), RUNAS,
#                         initdb'd cluster in $TMP/data, cleanup on EXIT
#   pg_start              the server on a free port the first time (PORT set),
#                         on the same PORT after a pg_stop; 1 when it would not.
#                         Fast and not crash-safe (fsync, synchronous_commit
#                         off); $PG_EXTRA: more "-c name=value" settings
#   pg_stop MODE          pg_ctl stop -m MODE (fast, immediate, smart)
#   pg_new_db [tcp]       a fresh database DB at URL (its socket, or TCP)
#   psql_in DB SQL        one statement's rows, unaligned
pg_find() {
  PGBIN=${AM_PG_BIN:-}
  if [ -z "$PGBIN" ]; then
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do PGBIN=$d; break; done
  fi
  if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/initdb" ] || [ ! -x "$PGBIN/pg_ctl" ] || [ ! -x "$PGBIN/createdb" ]; then
    echo "SKIP: no PostgreSQL (initdb, pg_ctl and createdb not found under /usr/lib/postgresql/*/bin;"
    echo "      scripts/install-deps.sh installs postgresql)"
    return 1
  fi
}

pg_cleanup() {
  if [ -f "$TMP/data/postmaster.pid" ]; then
    "${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$TMP/data" -m immediate -w stop >/dev/null 2>&1
  fi
  rm -rf "$TMP"
}

pg_init() { # PREFIX of the temporary directory's name
  TMP=$(mktemp -d "${TMPDIR:-/tmp}/$1-XXXXXX")
  chmod 755 "$TMP"
  mkdir -p "$TMP/sock"
  # PostgreSQL refuses to run as root: the server runs as an unprivileged user
  RUNAS=()
  if [ "$(id -u)" = 0 ]; then
    local owner=postgres
    id "$owner" >/dev/null 2>&1 || owner=nobody
    chown -R "$owner" "$TMP/sock"
    mkdir -p "$TMP/data" && chown "$owner" "$TMP/data"
    RUNAS=(runuser -u "$owner" --)
  fi
  PORT=""
  trap pg_cleanup EXIT
  if ! "${RUNAS[@]}" "$PGBIN/initdb" -D "$TMP/data" -U am --auth=trust -E UTF8 --locale=C -N \
       >"$TMP/initdb.log" 2>&1; then
    cat "$TMP/initdb.log"; echo "FAIL: initdb"; return 1
  fi
}

pg_start_on() { # PORT
  "${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$TMP/data" -l "$TMP/sock/server.log" -w -t 60 \
    -o "-k $TMP/sock -p $1 -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=40 ${PG_EXTRA:-}" \
    start >/dev/null 2>&1
}

pg_start() {
  if [ -n "$PORT" ]; then pg_start_on "$PORT"; return; fi
  local try p
  # a free loopback port: tried until the server starts on one
  for try in 1 2 3 4 5 6 7 8; do
    p=$(( 20000 + (RANDOM * 7 + $$ + try * 131) % 40000 ))
    if pg_start_on "$p"; then PORT=$p; return 0; fi
  done
  cat "$TMP/sock/server.log" 2>/dev/null
  return 1
}

pg_stop() { # MODE
  "${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$TMP/data" -m "$1" -w -t 60 stop >/dev/null 2>&1
}

pg_n=0
DB=""; URL=""
pg_new_db() { # a fresh database DB at URL (its socket, or TCP with "tcp")
  pg_n=$((pg_n + 1)); DB="am_$pg_n"
  "$PGBIN/createdb" -h "$TMP/sock" -p "$PORT" -U am "$DB" || return 1
  if [ "${1:-}" = tcp ]; then URL="postgresql://am@127.0.0.1:$PORT/$DB"
  else URL="postgresql://am@localhost:$PORT/$DB?host=$TMP/sock"; fi
}
psql_in() { "$PGBIN/psql" -h "$TMP/sock" -p "$PORT" -U am -d "$1" -v ON_ERROR_STOP=1 -qAt -c "$2"; }
