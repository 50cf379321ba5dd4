# Sourced by tests/sh scripts that need a throwaway PostgreSQL server (not a
# test itself; store_conformance.sh and scale.sh use it).
#
# pg_find_bin: sets PGBIN (the newest /usr/lib/postgresql/*/bin, or
#   $AM_PG_BIN); returns 1 when initdb, pg_ctl or createdb are missing (the
#   caller prints "SKIP: no PostgreSQL" and exits 0).
# pg_start DIR: initdb in DIR/data (DIR is made; its parents must be
#   searchable by the server's user; a socket in DIR/sock),
#   the server on a free loopback port (tried until one works), fsync and
#   synchronous commit off (a test server: nothing to keep), as an
#   unprivileged user when run as root (PostgreSQL refuses root).  Sets
#   PG_PORT, PG_SOCK, PG_DIR; returns 1 (the log printed) on failure.
#   Extra `-c name=value` settings for the server in $PG_OPTS.
# pg_stop: stops it (immediate) if it runs; for the caller's EXIT trap.
# pg_newdb [tcp]: a fresh database; sets PG_DB and PG_URL (over the socket,
#   or loopback TCP with "tcp").
# pg_psql DB SQL: runs SQL in DB, unaligned, tuples only.
PG_RUNAS=()
PG_DIR=""
PG_PORT=""
PG_SOCK=""
pg_n=0

pg_find_bin() {
  PGBIN=${AM_PG_BIN:-}
  if [ -z "$PGBIN" ]; then
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do PGBIN=$d; break; done
  fi
  [ -n "$PGBIN" ] && [ -x "$PGBIN/initdb" ] && [ -x "$PGBIN/pg_ctl" ] && [ -x "$PGBIN/createdb" ]
}

pg_start() {
  PG_DIR=$1
  PG_SOCK=$PG_DIR/sock
  mkdir -p "$PG_SOCK"
  chmod 755 "$PG_DIR"
  if [ "$(id -u)" = 0 ]; then
    local owner=postgres
    id "$owner" >/dev/null 2>&1 || owner=nobody
    chown -R "$owner" "$PG_SOCK"
    mkdir -p "$PG_DIR/data" && chown "$owner" "$PG_DIR/data"
    PG_RUNAS=(runuser -u "$owner" --)
  fi
  if ! "${PG_RUNAS[@]}" "$PGBIN/initdb" -D "$PG_DIR/data" -U am --auth=trust -E UTF8 --locale=C -N \
       >"$PG_DIR/initdb.log" 2>&1; then
    cat "$PG_DIR/initdb.log"; echo "FAIL: initdb"; return 1
  fi
  local try p
  for try in 1 2 3 4 5 6 7 8; do
    p=$(( 20000 + (RANDOM * 7 + $$ + try * 131) % 40000 ))
    if "${PG_RUNAS[@]}" "$PGBIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_SOCK/server.log" -w -t 60 \
         -o "-k $PG_SOCK -p $p -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=40 ${PG_OPTS:-}" \
         start >/dev/null 2>&1; then
      PG_PORT=$p; return 0
    fi
  done
  cat "$PG_SOCK/server.log" 2>/dev/null; echo "FAIL: the server did not start"
  return 1
}

pg_stop() {
  if [ -n "$PG_DIR" ] && [ -f "$PG_DIR/data/postmaster.pid" ]; then
    "${PG_RUNAS[@]}" "$PGBIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1
  fi
}

pg_newdb() {
  pg_n=$((pg_n + 1)); PG_DB="am_$pg_n"
  "$PGBIN/createdb" -h "$PG_SOCK" -p "$PG_PORT" -U am "$PG_DB" || return 1
  if [ "${1:-}" = tcp ]; then PG_URL="postgresql://am@127.0.0.1:$PG_PORT/$PG_DB"
  else PG_URL="postgresql://am@localhost:$PG_PORT/$PG_DB?host=$PG_SOCK"; fi
}

pg_psql() { "$PGBIN/psql" -h "$PG_SOCK" -p "$PG_PORT" -U am -d "$1" -v ON_ERROR_STOP=1 -qAt -c "$2"; }
