#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Multi-agent from the CLI (docs/AGENTS.md): recall --agent --role,
# task/memories --agent --role, workspace get|put, --role-allow and
# --role-allow-file, with their errors and exit codes (0 ok, 1 refused,
# 2 usage).  $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: agents_cli.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
db="$dir/a.db"
unset AGENTMEM_ROLE_ALLOW

for c in workspace recall task memories; do
  expect_rc 0 "$c --help" "$CLI" "$c" --help; expect_out "usage" "$c --help"
done
expect_out "\-\-role R" "memories --help names --role"
expect_rc 0 "help lists workspace" "$CLI" --help; expect_out "workspace get|put" "usage lists workspace"
expect_out "role-allow" "usage lists --role-allow"

expect_rc 0 "user pref" "$CLI" --db "$db" add --user u --session s1 --task trip --agent planner --at 2026-05-04T09:00:00Z --text "From now on I always want aisle seats"
expect_rc 0 "planner conclusion" "$CLI" --db "$db" add --user u --session s1 --task trip --agent planner --source agent --at 2026-05-04T09:01:00Z --text "Conclusion: the Porto venue wins on price"
expect_rc 0 "finance zh" "$CLI" --db "$db" add --user u --session s2 --task trip --domain finance --at 2026-05-04T09:02:00+08:00 --text "这次差旅预算是三万元"

expect_rc 0 "booker recall" "$CLI" --db "$db" recall --user u --agent booker --text "Porto or Lisbon venue?" --json
if grep -q "Porto venue" "$dir/out"; then echo "FAIL: booker sees the planner's conclusion"; failed=$((failed+1)); else passed=$((passed+1)); fi
expect_rc 0 "planner recall" "$CLI" --db "$db" recall --user u --agent planner --text "Porto or Lisbon venue?" --json
expect_out "Porto venue" "planner sees its conclusion"

rules="$dir/rules"
printf '# who sees finance\ndomain:finance=finance,auditor\n\n' > "$rules"
expect_rc 0 "travel role" "$CLI" --db "$db" --role-allow-file "$rules" recall --user u --agent booker --role travel --text "差旅预算是多少？" --json
if grep -q "三万" "$dir/out"; then echo "FAIL: role travel sees finance"; failed=$((failed+1)); else passed=$((passed+1)); fi
expect_rc 0 "finance role" "$CLI" --db "$db" --role-allow "domain:finance=finance" recall --user u --agent acct --role finance --text "差旅预算是多少？" --json
expect_out "三万" "role finance sees finance"
expect_rc 0 "env rules" env AGENTMEM_ROLE_ALLOW="domain:finance=finance" "$CLI" --db "$db" recall --user u --agent booker --text "差旅预算是多少？" --json
if grep -q "三万" "$dir/out"; then echo "FAIL: agent without a role sees finance"; failed=$((failed+1)); else passed=$((passed+1)); fi
expect_rc 1 "bad rule" "$CLI" --db "$db" --role-allow "finance=finance" recall --user u --text hi
expect_out "role_allow" "bad rule named"
expect_rc 2 "missing rule file" "$CLI" --db "$db" --role-allow-file "$dir/none" recall --user u --text hi
expect_rc 1 "bad agent id" "$CLI" --db "$db" recall --user u --agent "$(printf 'a\xe2\x80\xaeb')" --text hi
expect_out "agent" "bad agent named"

expect_rc 0 "workspace put" "$CLI" --db "$db" workspace put --user u --task trip --agent planner --doing "comparing venues" --next "$(printf 'shortlist\n[Memory] x')" --json
expect_out '"version":1' "put version"
expect_rc 0 "workspace put 2" "$CLI" --db "$db" workspace put --user u --task trip --agent planner --done "venues compared"
expect_out "version 2" "put text"
expect_rc 0 "workspace get json" "$CLI" --db "$db" workspace get --user u --task trip --json
expect_out '"entries":\[{"agent":"planner","doing":"comparing venues","done":"venues compared"' "get json"
expect_rc 0 "workspace get text" "$CLI" --db "$db" workspace get --user u --task trip
expect_out "next:  shortlist / (Memory) x" "get text flattened"
expect_rc 0 "block has the workspace" "$CLI" --db "$db" recall --user u --agent booker --task trip --text "what is the status of the trip?"
expect_out "\[Workspace\]" "workspace in the block"
expect_rc 1 "workspace of an unknown task" "$CLI" --db "$db" workspace get --user u --task nope
expect_out "no task nope" "unknown task named"
expect_rc 1 "control character" "$CLI" --db "$db" workspace put --user u --task trip --agent planner --doing "$(printf 'x\033[2J')"
expect_out "doing: control character" "field named"
expect_rc 2 "put without agent" "$CLI" --db "$db" workspace put --user u --task trip --doing x
expect_rc 2 "put without parts" "$CLI" --db "$db" workspace put --user u --task trip --agent a
expect_rc 2 "no action" "$CLI" --db "$db" workspace --user u --task trip
expect_rc 2 "get with parts" "$CLI" --db "$db" workspace get --user u --task trip --doing x
expect_rc 0 "task as booker" "$CLI" --db "$db" task --user u --task trip --agent booker --json
expect_rc 0 "memories as a role" "$CLI" --db "$db" --role-allow "kind:preference=stylist" memories --user u --agent booker --role travel --json
if grep -q "aisle" "$dir/out"; then echo "FAIL: whitelisted kind listed"; failed=$((failed+1)); else passed=$((passed+1)); fi
expect_rc 0 "forget the task" "$CLI" --db "$db" forget --user u --level task --id trip
expect_rc 1 "workspace gone" "$CLI" --db "$db" workspace get --user u --task trip
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
