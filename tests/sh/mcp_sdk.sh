#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# MCP as hosts meet it: the official TypeScript SDK (@modelcontextprotocol/sdk
# from npm, one release of each protocol revision's era pinned in
# tests/mcp_sdk/package-lock.json: 1.0.4 for 2024-11-05, 1.12.3 for
# 2025-03-26, 1.17.5 for 2025-06-18, 1.24.3 for 2025-11-25, and the newest)
# drives `agentmem mcp` over stdio and POST /mcp on `agentmem serve` (a
# free loopback port; the 2024-11-05 SDK has no Streamable HTTP client):
# the revision agreed, tools/list, remember / recall / list_memories /
# get_profile in Chinese and English (tests/mcp_sdk/test.mjs).  The newest SDK speaks
# 2025-11-25 at most, so 2026-07-28 is tested with raw JSON-RPC over both
# transports.  npm ci installs the lock file when node_modules is not it.
# $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: mcp_sdk.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/serve.bash"
here=$(cd "$(dirname "$0")" && pwd)
sdk="$here/../mcp_sdk"
srv_pid=
trap '[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$dir"' EXIT

if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
  echo "SKIP: the MCP SDK test needs node and npm (bash scripts/install-deps.sh)"; exit 77
fi
if ! cmp -s "$sdk/package-lock.json" "$sdk/node_modules/.package-lock.json" 2>/dev/null; then
  (cd "$sdk" && npm ci --no-audit --no-fund --loglevel=error) >"$dir/npm.log" 2>&1 ||
    { echo "FAIL: npm ci in tests/mcp_sdk"; cat "$dir/npm.log"; exit 1; }
fi
tok=$("$CLI" --db "$dir/srv.db" token create --user 林晓 2>/dev/null)
[[ "$tok" =~ ^amk_ ]] || { echo "FAIL: token create"; exit 1; }
if ! serve_start "$dir/srv.db" "$dir/srv" --threads 2; then
  echo "FAIL: the server did not start"; cat "$dir/srv.err"; exit 1
fi
if timeout 180 node "$sdk/test.mjs" "$CLI" "$dir" "$url" "$tok" >"$dir/node.out" 2>&1; then
  passed=$((passed+1)); cat "$dir/node.out"
else
  echo "FAIL: the SDK test"; cat "$dir/node.out"; echo "server stderr:"; cat "$dir/srv.err"
  failed=$((failed+1))
fi
serve_stop
[ "$srv_rc" = 0 ] && passed=$((passed+1)) || { echo "FAIL: server exit $srv_rc"; failed=$((failed+1)); }
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
