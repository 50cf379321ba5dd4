#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `agentmem serve` and its port: a second server on a port in use fails at
# once (exit 1, the address named on stderr, nothing on stdout) instead of
# sharing it silently; with --reuse-port on both they share it.  The
# routes without a token: /healthz and /openapi.json answer 200 without
# Authorization, every other API route still 401.  $1 = the agentmem CLI.
set -u
CLI=${1:?usage: serve_port.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$dir"' EXIT

# serve NAME DB LISTEN [flags...]: started in the background; its pid in $spid
serve() {
  local name=$1 db=$2 listen=$3; shift 3
  : >"$dir/$name.out"
  "$CLI" --db "$db" serve --listen "$listen" --threads 2 "$@" >"$dir/$name.out" 2>"$dir/$name.err" &
  spid=$!; pids+=("$spid")
}
# port_of NAME: the port the server printed, waited for (5 s at most)
port_of() {
  local p=
  for _ in $(seq 100); do
    p=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$dir/$1.out")
    [ -n "$p" ] && break
    sleep 0.05
  done
  echo "$p"
}
code() { curl -s -o "$dir/body" -w '%{http_code}' --max-time 10 "$@"; }
check() { # condition-result description
  if [ "$1" = 0 ]; then passed=$((passed+1)); else echo "FAIL: $2"; failed=$((failed+1)); fi
}

# --- a port in use is refused
serve a "$dir/a.db" 127.0.0.1:0; pa=$spid
port=$(port_of a)
[ -n "$port" ] || { echo "FAIL: the first server did not start"; cat "$dir/a.err"; exit 1; }
start=$(date +%s%N)
timeout 10 "$CLI" --db "$dir/b.db" serve --listen "127.0.0.1:$port" --threads 2 >"$dir/b.out" 2>"$dir/b.err"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "$([ "$rc" = 1 ]; echo $?)" "a second server on a port in use: exit $rc, wanted 1"
check "$([ "$ms" -lt 5000 ]; echo $?)" "a second server on a port in use fails at once (took $ms ms)"
grep -qF "agentmem serve: 127.0.0.1:$port is already in use (another agentmem serve?)" "$dir/b.err"
check $? "the message names the address: $(cat "$dir/b.err")"
grep -qF -- "--reuse-port" "$dir/b.err"; check $? "the message names --reuse-port"
check "$([ ! -s "$dir/b.out" ]; echo $?)" "nothing on stdout: $(cat "$dir/b.out")"
# only one side asking to share is not enough: the first did not
timeout 10 "$CLI" --db "$dir/b.db" serve --listen "127.0.0.1:$port" --reuse-port >"$dir/b.out" 2>"$dir/b.err"
rc=$?; check "$([ "$rc" = 1 ]; echo $?)" "--reuse-port beside a server without it: exit $rc, wanted 1"
grep -qF "127.0.0.1:$port is already in use" "$dir/b.err"; check $? "--reuse-port alone: the message"

# --- without a token: /healthz and /openapi.json, nothing else
url="http://127.0.0.1:$port"
"$CLI" --db "$dir/a.db" token create --user alice >/dev/null 2>&1 # tokens exist: auth is on
c=$(code "$url/healthz"); check "$([ "$c" = 200 ]; echo $?)" "/healthz without a token: $c"
c=$(code "$url/openapi.json"); check "$([ "$c" = 200 ]; echo $?)" "/openapi.json without a token: $c"
cmp -s "$dir/body" docs/openapi.json; check $? "/openapi.json is docs/openapi.json"
for p in /v1/memories?user=alice /metrics "/v1/events?user=alice"; do
  c=$(code "$url$p"); check "$([ "$c" = 401 ]; echo $?)" "$p without a token: $c, wanted 401"
done
c=$(code -X POST -H 'Content-Type: application/json' --data-binary '{"user":"alice","text":"hi"}' "$url/v1/events")
check "$([ "$c" = 401 ]; echo $?)" "POST /v1/events without a token: $c, wanted 401"
kill -TERM "$pa"; wait "$pa"; rc=$?
check "$([ "$rc" = 0 ]; echo $?)" "the first server stops cleanly: exit $rc"

# --- --reuse-port on both: both run, both answer
serve c "$dir/c.db" 127.0.0.1:0 --reuse-port; pc=$spid
port=$(port_of c)
[ -n "$port" ] || { echo "FAIL: the --reuse-port server did not start"; cat "$dir/c.err"; exit 1; }
serve d "$dir/c.db" "127.0.0.1:$port" --reuse-port; pd=$spid
p2=$(port_of d)
check "$([ "$p2" = "$port" ]; echo $?)" "a second --reuse-port server on $port: '$p2' $(cat "$dir/d.err")"
ok=0
for _ in $(seq 10); do c=$(code "http://127.0.0.1:$port/healthz"); [ "$c" = 200 ] && ok=$((ok+1)); done
check "$([ "$ok" = 10 ]; echo $?)" "the shared port answers: $ok of 10"
for p in "$pc" "$pd"; do
  kill -0 "$p" 2>/dev/null; check $? "both --reuse-port servers run"
  kill -TERM "$p"; wait "$p"; rc=$?
  check "$([ "$rc" = 0 ]; echo $?)" "a --reuse-port server stops cleanly: exit $rc"
done
pids=()

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
