#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# docs/KNOBS.md is generated from include/agentmem_knobs.h by
# `agentmem knobs --markdown`: the committed file must be exactly what the
# built CLI prints (regenerate it with that command after editing the list).
# $1 = path of the agentmem CLI; run from the repository root.
set -u
CLI=${1:?usage: knobs_doc.sh AGENTMEM}
here=$(cd "$(dirname "$0")" && pwd)
doc="$here/../../docs/KNOBS.md"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$CLI" knobs --markdown >"$out" || { echo "FAIL: agentmem knobs --markdown exited $?"; exit 1; }
if ! cmp -s "$out" "$doc"; then
  echo "FAIL: docs/KNOBS.md differs from \`agentmem knobs --markdown\` (regenerate it):"
  diff -u "$doc" "$out" | head -40
  exit 1
fi
echo "knobs_doc: 1 passed, 0 failed"
