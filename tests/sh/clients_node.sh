#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Node client (clients/node) against a live server: its test suite
# (npm test = node --test test/: every method in Chinese and English,
# named field errors, 401, the 403 fuse and isolation, the example agent
# loop).  $1 = the agentmem CLI.  No node is a failure (install-deps
# installs it).
set -u
CLI=${1:?usage: clients_node.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/clients_server.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v node >/dev/null; then echo "SKIP: node is missing (scripts/install-deps.sh)"; exit 77; fi
start_client_server
cd "$root/clients/node" || exit 1
if node --test test/ >"$dir/node.out" 2>&1; then passed=$((passed+1)); else
  echo "FAIL: node client tests"; cat "$dir/node.out"; failed=$((failed+1)); fi
grep -E "^# (tests|pass|fail|skipped)" "$dir/node.out"
if ! grep -qE "^# skipped 0" "$dir/node.out" || ! grep -qE "^# pass [1-9]" "$dir/node.out"; then
  echo "FAIL: node tests skipped or none passed"; failed=$((failed+1)); fi
stop_server
[ "$srv_rc" = 0 ] && passed=$((passed+1)) || { echo "FAIL: server exit $srv_rc"; cat "$dir/srv.err"; failed=$((failed+1)); }
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
