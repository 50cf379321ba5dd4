#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The working tree ranks like the base commit in scripts/rankings-base:
# scripts/same-rankings.sh --sample builds both CLIs itself (temporary
# worktree and build directories) and compares a few conversations of each
# dev dataset and the scenario suite's recall results.  About a minute.
# SKIP (exit 77, ctest's skip code) in a sanitizer or fuzz build -- ASan
# would rebuild nothing useful and take many minutes -- and when the script
# skips (the base commit is not in a shallow clone).
# $1 = path of the agentmem CLI (only to recognise a sanitizer build).
set -u
CLI=${1:?usage: same_rankings.sh AGENTMEM}
cd "$(dirname "$0")/../.." || exit 1
case ${AM_SANITIZED_BUILD:-}:$CLI in
  1:* | ON:* | *:*/build/asan/* | *:*/build/fuzz/*)
    echo "SKIP: same-rankings does not run in a sanitizer or fuzz build (AM_SANITIZED_BUILD=${AM_SANITIZED_BUILD:-}, CLI $CLI)"
    exit 77 ;;
esac
out=$(mktemp)
trap 'rm -f "$out"' EXIT
bash scripts/same-rankings.sh --sample 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
if [ "$rc" = 0 ] && grep -q '^SKIP' "$out"; then exit 77; fi
exit "$rc"
