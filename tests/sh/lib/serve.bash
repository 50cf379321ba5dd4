# SPDX-License-Identifier: Apache-2.0
# Sourced by tests/sh scripts that need a live server (not a test itself).
# serve_start DB LOG [serve flags...]: `$CLI --db DB serve` on a free
# loopback port (port 0), its stdout in LOG.out and stderr in LOG.err;
# waits until it prints its address.  Sets srv_pid and url
# (http://127.0.0.1:PORT); returns 1 when it exits or stays silent for 10 s.
# serve_stop: SIGTERM, waits; its exit status in srv_rc.
serve_start() {
  local db=$1 log=$2 tries
  shift 2
  "$CLI" --db "$db" serve --listen 127.0.0.1:0 "$@" >"$log.out" 2>"$log.err" &
  srv_pid=$!
  url=
  for tries in $(seq 200); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9][0-9]*' "$log.out" | head -n 1)
    [ -n "$url" ] && return 0
    kill -0 "$srv_pid" 2>/dev/null || break
    sleep 0.05
  done
  return 1
}
serve_stop() {
  kill -TERM "$srv_pid" 2>/dev/null
  wait "$srv_pid"
  srv_rc=$?
  srv_pid=
}
