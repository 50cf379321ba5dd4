#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The framework integrations (clients/node/integrations) with the real npm
# packages pinned in its package-lock.json (npm ci when node_modules is not
# that lock file): agentmem as a LangGraph.js store inside a compiled
# StateGraph driven by a fake chat model, and the Vercel AI SDK memory tools
# under generateText with the SDK's mock model -- against `agentmem serve`
# on a free loopback port, no other network (test/*.test.mjs).  Also runs
# the two examples.  $1 = the agentmem CLI.
set -u
CLI=${1:?usage: integrations_node.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/clients_server.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
integ="$root/clients/node/integrations"
if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
  echo "SKIP: the integrations test needs node and npm (bash scripts/install-deps.sh)"; exit 77
fi
if ! cmp -s "$integ/package-lock.json" "$integ/node_modules/.package-lock.json" 2>/dev/null; then
  (cd "$integ" && timeout 600 npm ci --no-audit --no-fund --loglevel=error) >"$dir/npm.log" 2>&1 ||
    { echo "FAIL: npm ci in clients/node/integrations"; cat "$dir/npm.log"; exit 1; }
fi
start_client_server
cd "$integ" || exit 1
if timeout 240 node --test test/ >"$dir/node.out" 2>&1; then passed=$((passed+1)); else
  echo "FAIL: integration tests"; cat "$dir/node.out"; failed=$((failed+1)); fi
grep -E "^# (tests|pass|fail|skipped)" "$dir/node.out"
if ! grep -qE "^# skipped 0" "$dir/node.out" || ! grep -qE "^# pass [1-9]" "$dir/node.out"; then
  echo "FAIL: integration tests skipped or none passed"; failed=$((failed+1)); fi
for ex in langgraph ai-sdk; do
  expect_rc 0 "example $ex" timeout 60 node "examples/$ex.mjs" --url "$AGENTMEM_URL" --token "$AGENTMEM_TOKEN_C"
done
stop_server
[ "$srv_rc" = 0 ] && passed=$((passed+1)) || { echo "FAIL: server exit $srv_rc"; cat "$dir/srv.err"; failed=$((failed+1)); }
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
