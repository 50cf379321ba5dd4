#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The structure checks (docs/internals/structure.md): api/ file size, the
# folder order of includes, call cycles, function length, the exported
# symbols, writable globals, the store's operations, raw allocation, notes in
# comments, SQLite/PostgreSQL copies. Reads the sources and the build tree
# (build/cmake: run `make` first).
#   scripts/check-structure.sh                    fail on what the baseline does not list
#   scripts/check-structure.sh --strict           every violation, a count per rule
#   scripts/check-structure.sh --update-baseline  rewrite scripts/structure-baseline.txt
# Options: --root DIR, --build DIR, --baseline FILE, --only RULE.
set -euo pipefail
exec python3 "$(dirname "$0")/lib/structure.py" "$@"
