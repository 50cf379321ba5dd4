#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The understanding corpus (data/understand) is well formed: every line has
# the fields and values data/understand/LABELS.md allows, memories exactly
# where the act keeps something, clauses taken from the turn, unique ids,
# every file of writers/ and sources/ in a split, no source in the test
# split and no text in two splits (data/understand/check.py).  And the
# check refuses a copy of the corpus broken in each of those last ways.
# $1 = path of the agentmem CLI (unused); run from the repository root.
set -u
out=$(python3 data/understand/check.py data/understand) || { echo "$out" | grep -v '^\(train\|dev\|test\) '; exit 1; }
echo "$out" | tail -n 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
refused() { # $1 what, $2 the failure expected; the corpus copy is $tmp/c
  local o
  if o=$(python3 data/understand/check.py "$tmp/c"); then echo "FAIL: $1 passed the check"; exit 1; fi
  echo "$o" | grep -q "$2" || { echo "FAIL: $1: expected \"$2\""; echo "$o" | grep FAIL; exit 1; }
  echo "ok: $1 refused"
}
fresh() { rm -rf "$tmp/c"; cp -r data/understand "$tmp/c"; }
fresh; head -n 3 data/understand/sources/memorybank.jsonl >"$tmp/c/sources/extra.jsonl"
refused "a source file in no split" "sources/extra.jsonl: the file is in no split"
fresh; sed -i 's|^sources/madial_dev\tdev|sources/madial_dev\ttest|' "$tmp/c/splits.tsv"
refused "a source in the test split" "sources/madial_dev: split 'test'"
fresh; head -n 1 data/understand/sources/madial_dev.jsonl | sed 's/"madial-\(..\)-0*\([0-9]*\)"/"madial-\1-9\2"/' \
  >>"$tmp/c/sources/madial_train.jsonl"
refused "a dev text again in train" "the same text is in the"
fresh; printf 'sources/nowhere\ttrain\tzh\n' >>"$tmp/c/splits.tsv"
refused "a listed file that is missing" "sources/nowhere.jsonl: listed in splits.tsv but missing"
