#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every libFuzzer target (fuzz/fuzz_*.c, built by `make fuzz` with
# clang, ASan+UBSan) for a bounded time each: FUZZ_SECONDS (default 20) x
# the number of targets (docs/internals/testing.md), one at a time (CI has two
# cores; the build uses both).  Each run starts from a copy of the target's
# seed corpus (fuzz/corpus/NAME; the repository's copy is never changed)
# and its dictionary fuzz/NAME.dict if there is one.  A crash, a leak, a
# sanitizer report or a broken invariant fails the script after all targets
# ran, printing the input that did it.  Used by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-20}
make fuzz JOBS="${JOBS:-2}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=()
for src in fuzz/fuzz_*.c; do
  name=$(basename "$src" .c)
  bin=build/fuzz/$name
  [ -x "$bin" ] || { echo "fuzz: $name was not built"; failed+=("$name"); continue; }
  mkdir -p "$work/$name/corpus" "$work/$name/crash"
  if [ -d "fuzz/corpus/$name" ]; then cp -r "fuzz/corpus/$name/." "$work/$name/corpus/"; fi
  dict=()
  [ -f "fuzz/$name.dict" ] && dict=(-dict="fuzz/$name.dict")
  if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$work/$name/crash/" "${dict[@]}" "$work/$name/corpus" \
       >"$work/$name/log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$name/log" | grep -o '[0-9]*$' || echo '?')
    echo "fuzz: $name ok, $runs inputs in ${secs}s"
  else
    echo "fuzz: $name FAILED"
    tail -40 "$work/$name/log"
    for f in "$work/$name"/crash/*; do
      [ -f "$f" ] && { echo "input ($f):"; od -c "$f" | head -20; }
    done
    failed+=("$name")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: every target ran ${secs}s without a finding"
