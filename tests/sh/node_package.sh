#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Node client as a package: `npm pack` of clients/node (its files, the
# types and the README in the tarball, licence Apache-2.0, version the
# CLI's), installed with `npm install --offline TARBALL` into a new project
# (no dependencies: no network), then imported by name there and used
# against a live server: add and recall in Chinese and English.  $1 = the
# agentmem CLI.  Skipped (exit 77) without node/npm (install-deps installs them).
set -u
CLI=${1:?usage: node_package.sh AGENTMEM}
CLI=$(cd "$(dirname "$CLI")" && pwd)/$(basename "$CLI")
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/clients_server.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
for t in node npm; do
  command -v $t >/dev/null || { echo "SKIP: $t is missing (scripts/install-deps.sh)"; exit 77; }
done
# npm's cache and settings of this test only
export npm_config_cache=$dir/npm-cache npm_config_userconfig=$dir/npmrc \
       npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
mkdir -p "$dir/pack" "$dir/proj"
expect_rc 0 "npm pack clients/node" npm pack --pack-destination "$dir/pack" "$root/clients/node"
tgz=$(ls "$dir"/pack/agentmem-*.tgz 2>/dev/null | head -n 1)
[ -n "$tgz" ] || { echo "FAIL: npm pack wrote no agentmem-*.tgz"; cat "$dir/out" "$dir/err"; exit 1; }
expect_rc 0 "the tarball's files" tar -tzf "$tgz"
for f in package.json agentmem.mjs memory.mjs agentmem.d.ts README.md; do
  expect_out "^package/$f\$" "$f is in the tarball"
done
version=$("$CLI" --version | awk '{print $2}')
expect_rc 0 "package.json of the tarball" tar -xzOf "$tgz" package/package.json
expect_out '"license": "Apache-2.0"' "the licence is Apache-2.0"
expect_out "\"version\": \"$version\"" "the version is the CLI's ($version)"
expect_out '"types": "agentmem.d.ts"' "the types are declared"

cd "$dir/proj" || exit 1
printf '{"name": "proj", "version": "1.0.0", "private": true, "type": "module"}\n' >package.json
expect_rc 0 "npm install --offline the tarball" npm install --offline "$tgz"
[ -f node_modules/agentmem/agentmem.d.ts ] && passed=$((passed+1)) ||
  { echo "FAIL: node_modules/agentmem/agentmem.d.ts missing"; failed=$((failed+1)); }

start_client_server
cat >use.mjs <<'JS'
import { connect, Memory, AgentmemError } from 'agentmem';
import { fileURLToPath } from 'node:url';
const where = fileURLToPath(import.meta.resolve('agentmem'));
if (!where.includes('/proj/node_modules/agentmem/')) throw new Error('resolved to ' + where);
if (typeof Memory !== 'function' || typeof AgentmemError !== 'function') throw new Error('exports');
const mem = connect(process.env.AGENTMEM_URL, { token: process.env.AGENTMEM_TOKEN_A });
await mem.add('以后周报都用表格，别用长段落');
await mem.add('From now on, keep replies short.');
const zh = (await mem.recall('帮我写这周的周报')).block;
const en = (await mem.recall('Write a reply to Bob')).block;
if (!zh.includes('表格')) throw new Error('zh block: ' + zh);
if (!en.includes('short')) throw new Error('en block: ' + en);
console.log('recalled from', where);
JS
expect_rc 0 "the installed package, imported by name, adds and recalls (zh, en)" node use.mjs
expect_out "recalled from" "the script ran to its end"
stop_server
[ "$srv_rc" = 0 ] && passed=$((passed+1)) || { echo "FAIL: server exit $srv_rc"; cat "$dir/srv.err"; failed=$((failed+1)); }
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
