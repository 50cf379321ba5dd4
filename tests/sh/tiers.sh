#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Test tiers (docs/internals/testing.md, "Tiers"): every registered test
# carries at least one tier label (quick, store, robust, e2e, external) and
# treats exit code 77 as a skip. Reads `ctest --show-only=json-v1` of this
# build tree ($AM_BUILD_DIR, set by CMake); the checker is also run on a
# planted copy with one test's labels removed and one's skip code removed,
# and must name both.
# $1 = path of the agentmem CLI (unused).
set -u
build=${AM_BUILD_DIR:?AM_BUILD_DIR is not set (CMake sets it)}
command -v python3 >/dev/null || { echo "SKIP: no python3 (scripts/install-deps.sh installs it)"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0 passed=0
ok() { passed=$((passed+1)); }
fail() { echo "FAIL: $*"; failed=$((failed+1)); }

(cd "$build" && ctest --show-only=json-v1) >"$dir/tests.json" 2>"$dir/err" ||
  { echo "FAIL: ctest --show-only=json-v1"; cat "$dir/err"; exit 1; }

cat >"$dir/check.py" <<'EOF'
import json, sys
TIERS = {"quick", "store", "robust", "e2e", "external"}
doc = json.load(open(sys.argv[1]))
bad = 0
for t in doc["tests"]:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    labels = set(props.get("LABELS", []))
    if not labels & TIERS:
        print("no tier label: %s (labels %s)" % (t["name"], sorted(labels)))
        bad += 1
    if str(props.get("SKIP_RETURN_CODE", "")) != "77":
        print("no SKIP_RETURN_CODE 77: %s" % t["name"])
        bad += 1
print("%d tests, %d problems" % (len(doc["tests"]), bad))
sys.exit(1 if bad else 0)
EOF

# the real build tree
if python3 "$dir/check.py" "$dir/tests.json" >"$dir/out" 2>&1; then ok
else fail "the build's tests:"; cat "$dir/out"; fi
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tests"]))' "$dir/tests.json")
[ "$n" -gt 100 ] && ok || fail "only $n tests listed"

# a planted copy: the first test loses its labels, the second its skip code
python3 - "$dir/tests.json" "$dir/planted.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
a, b = doc["tests"][0], doc["tests"][1]
a["properties"] = [p for p in a["properties"] if p["name"] != "LABELS"]
b["properties"] = [p for p in b["properties"] if p["name"] != "SKIP_RETURN_CODE"]
print(a["name"], b["name"], file=open(sys.argv[2] + ".names", "w"))
json.dump(doc, open(sys.argv[2], "w"))
EOF
read -r first second <"$dir/planted.json.names"
if python3 "$dir/check.py" "$dir/planted.json" >"$dir/out" 2>&1; then
  fail "the planted copy passed"
else
  grep -q "^no tier label: $first " "$dir/out" && ok || { fail "unlabelled $first not named"; cat "$dir/out"; }
  grep -q "^no SKIP_RETURN_CODE 77: $second\$" "$dir/out" && ok || { fail "$second without skip code not named"; cat "$dir/out"; }
fi

echo "tiers: $passed passed, $failed failed"
[ "$failed" = 0 ]
