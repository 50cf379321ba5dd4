#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The learned reading of a turn (am_understand) against the corpus's test
# split, with floors: a change to the features, the trainer or the corpus
# that reads worse fails the build.  And the model is made deterministically:
# the trainer run again on the corpus gives the built model byte for byte.
#   understand_eval.sh AGENTMEM TRAINER MODEL   (CMakeLists.txt passes them)
set -u
CLI=${1:?usage: understand_eval.sh AGENTMEM TRAINER MODEL}
TRAINER=${2:?}
MODEL=${3:?}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
"$TRAINER" data/understand "$tmp/again.model" 2>"$tmp/train.err" || { cat "$tmp/train.err"; echo "FAIL: the trainer"; exit 1; }
if cmp -s "$tmp/again.model" "$MODEL"; then passed=$((passed+1)); else
  echo "FAIL: retraining on data/understand does not give the built model byte for byte"; failed=$((failed+1)); fi
"$CLI" eval understand --corpus data/understand --split test --json >"$tmp/eval.json" 2>"$tmp/eval.err" ||
  { cat "$tmp/eval.err"; echo "FAIL: agentmem eval understand"; exit 1; }
"$CLI" eval understand --corpus data/understand --split test >"$tmp/eval.txt" 2>&1 || { echo "FAIL: the text report"; failed=$((failed+1)); }
"$CLI" eval understand --split nope >/dev/null 2>&1; [ $? = 2 ] && passed=$((passed+1)) || { echo "FAIL: a bad --split is not a usage error"; failed=$((failed+1)); }
# floors (measured on the test split when they were set, minus a margin:
# docs/internals/UNDERSTAND.md has the figures)
python3 - "$tmp/eval.json" <<'PY' >"$tmp/floors.out"
import json, sys
r = json.load(open(sys.argv[1]))
floors = [
    ("all", "accuracy", "act", 0.85), ("zh", "accuracy", "act", 0.86), ("en", "accuracy", "act", 0.84),
    ("all", "accuracy", "task_act", 0.89), ("all", "accuracy", "whose", 0.88),
    ("all", "accuracy", "kind", 0.72), ("all", "kind_macro_f1", None, 0.70),
    ("zh", "kept", "recall", 0.94), ("en", "kept", "recall", 0.90),
    ("zh", "kept", "precision", 0.93), ("en", "kept", "precision", 0.91),
    ("zh", "kept", "not_kept_correctly", 0.95), ("en", "kept", "not_kept_correctly", 0.93),
]
# the engine: the whole write path (the rules and the model combined)
floors += [
    ("engine.zh", "kept", "recall", 0.92), ("engine.en", "kept", "recall", 0.89),
    ("engine.zh", "kept", "precision", 0.92), ("engine.en", "kept", "precision", 0.88),
    ("engine.zh", "kept", "not_kept_correctly", 0.96), ("engine.en", "kept", "not_kept_correctly", 0.94),
]
for lang, part, key, floor in floors:
    src = r["engine"][lang[7:]] if lang.startswith("engine.") else r[lang]
    got = src[part][key] if key else src[part]
    print(("ok" if got >= floor else "FAIL") + ": %s %s %s %.3f (floor %.2f)" % (lang, part, key or "", got, floor))
PY
cat "$tmp/floors.out"
passed=$((passed + $(grep -c '^ok' "$tmp/floors.out")))
failed=$((failed + $(grep -c '^FAIL' "$tmp/floors.out")))
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
