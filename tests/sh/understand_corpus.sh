#!/usr/bin/env bash
# The understanding corpus (data/understand) is well formed: every line has
# the fields and values data/understand/LABELS.md allows, memories exactly
# where the act keeps something, clauses taken from the turn, unique ids,
# every writer in a split and no text in two splits (data/understand/check.py).
# $1 = path of the agentmem CLI (unused); run from the repository root.
set -u
out=$(python3 data/understand/check.py data/understand) || { echo "$out" | grep -v '^\(train\|dev\|test\) '; exit 1; }
echo "$out" | tail -n 1
