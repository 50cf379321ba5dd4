#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# clang-format (.clang-format at the root) on what a branch changed.
#
#   scripts/format.sh            format the lines of *.c/*.h changed against main
#   scripts/format.sh --check    only check them: exit 1 and show what would change
#   scripts/format.sh FILE...    the whole of these files (with --check: check them)
#
# The base is `git merge-base HEAD main` (else origin/main; BASE=<commit>
# overrides).  Only the changed lines are touched: the tree predates the
# .clang-format, and a one-line fix must not reformat the file around it.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
CF=${CLANG_FORMAT:-clang-format}
command -v "$CF" >/dev/null || { echo "format: $CF not found (apt-get install clang-format)" >&2; exit 2; }
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
if [ $check = 1 ]; then mode=(--dry-run --Werror); else mode=(-i); fi

if [ $# -gt 0 ]; then
    "$CF" --style=file "${mode[@]}" "$@"
    exit
fi

base=${BASE:-}
if [ -z "$base" ]; then
    for ref in main origin/main; do
        if base=$(git merge-base HEAD "$ref" 2>/dev/null); then break; fi
        base=
    done
fi
[ -n "$base" ] || { echo "format: no main or origin/main to compare with (set BASE=<commit>)" >&2; exit 2; }

rc=0
n=0
while IFS= read -r f; do
    [ -f "$f" ] || continue
    # the changed lines of f, from the hunk headers "@@ -a,b +c,d @@"
    lines=()
    while IFS= read -r range; do lines+=("--lines=$range"); done < <(
        git diff -U0 "$base" -- "$f" | sed -n 's/^@@ -[0-9,]* +\([0-9]*\)\(,\([0-9]*\)\)\{0,1\} @@.*/\1 \3/p' |
            awk '{ c = ($2 == "") ? 1 : $2; if (c > 0) print $1 ":" $1 + c - 1 }')
    [ ${#lines[@]} -gt 0 ] || continue
    n=$((n + 1))
    "$CF" --style=file "${mode[@]}" "${lines[@]}" "$f" || rc=1
done < <(git diff --name-only --diff-filter=d "$base" -- '*.c' '*.h')
[ $check = 1 ] && [ $rc = 0 ] && echo "format: $n changed file(s) formatted as .clang-format says"
exit $rc
