# SPDX-License-Identifier: Apache-2.0
# Shared by the client tests (sourced): a store with tokens of three users,
# `agentmem serve` on a free loopback port (port 0: the server prints the
# one it got), waited for on /healthz, stopped with SIGTERM on exit.
# Sets AGENTMEM_URL, AGENTMEM_TOKEN_A/B/C, AGENTMEM_USER_A/B/C, AGENTMEM_TOKEN_ADMIN,
# AGENTMEM_TMP; needs $CLI and $dir (lib/expect.bash).
srv_pid=
stop_server() {
  [ -n "$srv_pid" ] || return 0
  kill -TERM "$srv_pid" 2>/dev/null; wait "$srv_pid"; srv_rc=$?; srv_pid=
}
trap 'stop_server; rm -rf "$dir"' EXIT
start_client_server() {
  local db="$dir/clients.db" u
  export AGENTMEM_USER_A=alice AGENTMEM_USER_B=用户乙 AGENTMEM_USER_C=carol-新
  for u in A B C; do
    local name="AGENTMEM_USER_$u"
    local tok
    tok=$("$CLI" --db "$db" token create --user "${!name}" 2>"$dir/token.err") ||
      { echo "FAIL: token create ${!name}"; cat "$dir/token.err"; exit 1; }
    export "AGENTMEM_TOKEN_$u=$tok"
  done
  # an admin token: one client object for many users (the SDKs' Memory)
  AGENTMEM_TOKEN_ADMIN=$("$CLI" --db "$db" token create --user sdk-admin --admin 2>"$dir/token.err") ||
    { echo "FAIL: token create --admin"; cat "$dir/token.err"; exit 1; }
  export AGENTMEM_TOKEN_ADMIN
  "$CLI" --db "$db" serve --listen 127.0.0.1:0 --threads 3 >"$dir/srv.out" 2>"$dir/srv.err" &
  srv_pid=$!
  local port=
  for _ in $(seq 200); do
    port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$dir/srv.out")
    [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
    port=
    sleep 0.05
  done
  if [ -z "$port" ]; then echo "FAIL: the server did not start"; cat "$dir/srv.err"; exit 1; fi
  export AGENTMEM_URL="http://127.0.0.1:$port" AGENTMEM_TMP="$dir"
}
