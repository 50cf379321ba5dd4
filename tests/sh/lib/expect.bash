# SPDX-License-Identifier: Apache-2.0
# Shared by the tests/sh scripts (sourced, not a test itself): a temp dir
# $dir removed on exit, pass/fail counters, and checks on the last
# command's exit code and output.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0; failed=0
expect_rc() { # expected-rc description command...
  local want=$1 what=$2; shift 2
  "$@" >"$dir/out" 2>"$dir/err"; local rc=$?
  if [ "$rc" = "$want" ]; then passed=$((passed+1)); else
    echo "FAIL: $what: exit $rc, wanted $want"; cat "$dir/out" "$dir/err"; failed=$((failed+1)); fi
}
expect_out() { # needle description (in last out+err)
  if grep -q -- "$1" "$dir/out" "$dir/err"; then passed=$((passed+1)); else
    echo "FAIL: $2: '$1' not in output"; cat "$dir/out" "$dir/err"; failed=$((failed+1)); fi
}
