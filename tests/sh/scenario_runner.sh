#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The scenario runner's own behaviour (SCENARIOS.md): PASS/FAIL lines with
# file:line, the "N passed, N failed" summary, exit codes, failing
# expectations, malformed lines, unknown steps, keys and fields, labels,
# the profile step's keys, --json, --store and --dump.  $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: scenario_runner.sh AGENTMEM}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0; failed=0
AT='"at":"2026-03-02T09:00:00+08:00"'

ok() { passed=$((passed+1)); }
bad() { echo "FAIL: $1"; sed 's/^/  | /' "$dir/out" "$dir/err"; failed=$((failed+1)); }
# run expected-rc description args... (output in $dir/out, $dir/err)
run() {
  local want=$1 what=$2; shift 2
  "$CLI" "$@" >"$dir/out" 2>"$dir/err"; local rc=$?
  if [ "$rc" = "$want" ]; then ok; else bad "$what: exit $rc, wanted $want"; fi
}
# has/hasnt fixed-string description: in stdout
has() { if grep -qF -- "$1" "$dir/out"; then ok; else bad "$2: '$1' not in output"; fi; }
hasnt() { if grep -qF -- "$1" "$dir/out"; then bad "$2: '$1' in output"; else ok; fi; }
last_is() {
  if [ "$(tail -n 1 "$dir/out")" = "$1" ]; then ok; else bad "$2: last line is not '$1'"; fi
}
# Every line but the last is "PASS file:line name" or "FAIL file:line name: ...".
well_formed() {
  if head -n -1 "$dir/out" | grep -qvE '^(PASS [^ ]+:[0-9]+ [a-z_.]+|FAIL [^ ]+:[0-9]+ [a-z_.]+: .+)$'
  then bad "$1: malformed result line"; else ok; fi
}

# ---------------------------------------------------------------- usage
run 0 "scenario --help" scenario --help;  has "usage: agentmem scenario run" "help text"
run 0 "scenario run --help" scenario run --help; has "--store" "help names --store"
run 2 "no file" scenario run
run 2 "unknown option" scenario run --bogus "$dir/x.jsonl"
run 2 "unknown subcommand" scenario frobnicate

# ---------------------------------------------------------------- comments only
printf '// only a comment\n\n   \n  // indented comment\r\n' > "$dir/empty.jsonl"
run 0 "comments and blank lines" scenario run "$dir/empty.jsonl"
last_is "0 passed, 0 failed" "comments are skipped"

# ---------------------------------------------------------------- a wrong expectation
cat > "$dir/fail.jsonl" <<JSONL
// a fresh store has no memories: this expectation is wrong
{"step":"memories","user":"u1",$AT,"expect":{"count_min":1000}}
JSONL
run 1 "wrong expectation fails" scenario run "$dir/fail.jsonl"
has "FAIL $dir/fail.jsonl:2 memories.count_min: expected at least 1000 active memories / got" "FAIL line with file:line, name, expected/got"
last_is "0 passed, 1 failed" "summary of a failing file"
well_formed "fail.jsonl"

# ---------------------------------------------------------------- passing steps
cat > "$dir/pass.jsonl" <<JSONL
{"step":"memories","user":"nobody",$AT,"expect":{"count_max":1000}}
{"step":"add","user":"bad\\u0007user","session":"s1",$AT,"text":"x","expect_error":true}
{"step":"add","user":"u1","session":"s1",$AT,"text":"a note about the zebra budget","label":"zebra"}
{"step":"forget","user":"u1","scope":"event","id":"zebra","at":"2026-03-02T10:00:00+08:00"}
{"step":"export","user":"u1","at":"2026-03-02T10:01:00+08:00","expect":{"export_not_contains":["ZEBRA"],"error":false}}
JSONL
run 0 "passing file" scenario run "$dir/pass.jsonl"
has "PASS $dir/pass.jsonl:1 memories.count_max" "PASS line"
has "PASS $dir/pass.jsonl:2 add.error" "expect_error passes when the engine refuses"
has "PASS $dir/pass.jsonl:5 export.export_not_contains" "forget by label, case-folded match"
has "PASS $dir/pass.jsonl:5 export.error" "error:false passes on success"
last_is "4 passed, 0 failed" "summary of a passing file"
well_formed "pass.jsonl"

# ---------------------------------------------------------------- malformed lines
cat > "$dir/malformed.jsonl" <<JSONL
// line 1

{"step":"add",
[1,2,3]
{"step":"frobnicate",$AT}
{"step":"memories","user":"nobody",$AT,"expect":{"count_max":1000}}
JSONL
run 1 "malformed lines fail" scenario run "$dir/malformed.jsonl"
has "FAIL $dir/malformed.jsonl:3 line: expected a JSON object / got invalid JSON" "parse error names file:line"
has "FAIL $dir/malformed.jsonl:4 line: expected a JSON object / got an array" "non-object line"
has "FAIL $dir/malformed.jsonl:5 step: expected \"step\": one of" "unknown step"
has "\"frobnicate\"" "unknown step is named"
has "PASS $dir/malformed.jsonl:6 memories.count_max" "the runner goes on after bad lines"
last_is "1 passed, 3 failed" "summary with malformed lines"
well_formed "malformed.jsonl"

# ---------------------------------------------------------------- unknown keys and fields
cat > "$dir/unknown.jsonl" <<JSONL
{"step":"recall","user":"u1","query":"hi",$AT,"expect":{"need_memoryy":true}}
{"step":"recall","user":"u1","query":"hi",$AT,"expect":{"count_min":1}}
{"step":"add","user":"u1","sesion":"s1",$AT,"text":"x"}
{"step":"memories","user":"u1","at":"2026-03-02T09:00:00","expect_error":true}
{"step":"memories","user":"u1",$AT,"expect":{"memories_contain":[]}}
{"step":"add","user":"u1","session":"s1",$AT,"text":"first","label":"dup"}
{"step":"add","user":"u1","session":"s1",$AT,"text":"second","label":"dup"}
{"step":"feedback","user":"u1","target":"no such memory text","action":"confirm",$AT}
{"step":"forget","user":"u1","scope":"galaxy","id":"x",$AT}
JSONL
run 1 "unknown keys fail" scenario run "$dir/unknown.jsonl"
has "FAIL $dir/unknown.jsonl:1 recall.need_memoryy: expected a known expectation key" "unknown expectation key"
has "FAIL $dir/unknown.jsonl:2 recall.count_min: expected a key that applies to recall steps" "key of another step"
has "FAIL $dir/unknown.jsonl:3 add: expected only fields of add steps / got unknown field \"sesion\"" "unknown field"
has "FAIL $dir/unknown.jsonl:4 memories: expected \"at\": an ISO 8601 time with a zone" "at without a zone fails even with expect_error"
has "FAIL $dir/unknown.jsonl:5 memories.memories_contain: expected a non-empty string or an array of them" "empty needle list"
has "FAIL $dir/unknown.jsonl:7 add: expected a new label" "duplicate label"
has "FAIL $dir/unknown.jsonl:8 feedback: expected exactly one active memory containing" "feedback target must match one memory"
has "FAIL $dir/unknown.jsonl:9 forget: expected \"scope\"" "unknown forget scope"
hasnt "PASS" "nothing passes in unknown.jsonl"
well_formed "unknown.jsonl"

# ---------------------------------------------------------------- several files, a missing file
run 1 "several files" scenario run "$dir/pass.jsonl" "$dir/fail.jsonl" "$dir/missing.jsonl"
has "FAIL $dir/missing.jsonl:0 file: expected a readable scenario file" "missing file"
last_is "4 passed, 2 failed" "counts add up over files"

# ---------------------------------------------------------------- --json
run 1 "--json" scenario run "$dir/pass.jsonl" "$dir/fail.jsonl" --json
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$dir/out" "$dir/fail.jsonl" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["passed"] == 4 and d["failed"] == 1, d
assert [f["file"] for f in d["files"]][1] == sys.argv[2]
r = [x for x in d["results"] if not x["ok"]][0]
assert r["file"] == sys.argv[2] and r["line"] == 2 and r["step"] == "memories"
assert r["check"] == "count_min" and r["detail"].startswith("expected at least 1000")
assert set(d["results"][0]) == {"file", "line", "step", "check", "ok", "detail"}
PY
  then ok; else bad "--json document"; fi
else
  has '"failed": 1' "--json counts"
fi
hasnt "PASS " "--json prints no PASS lines"

# ---------------------------------------------------------------- --dump
cat > "$dir/dump.jsonl" <<JSONL
{"step":"add","user":"u1","session":"s1",$AT,"text":"I always take the window seat on trains"}
{"step":"recall","user":"u1","session":"s2","query":"which seat do I like on trains","at":"2026-03-03T09:00:00+08:00"}
{"step":"memories","user":"u1",$AT}
{"step":"recall","channel":"wx","external_id":"nobody","query":"hi",$AT,"expect":{"error":true}}
JSONL
run 0 "--dump" scenario run --dump "$dir/d1.jsonl" "$dir/dump.jsonl"
last_is "1 passed, 0 failed" "--dump leaves the PASS/FAIL lines as they are"
if [ "$(wc -l < "$dir/d1.jsonl")" = 2 ]; then ok; else bad "--dump: one line per recall step"; fi
if head -n 1 "$dir/d1.jsonl" | grep -q "^{\"file\":\"$dir/dump.jsonl\",\"line\":2,\"query\":\"which seat do I like on trains\",\"need_memory\":" &&
   head -n 1 "$dir/d1.jsonl" | grep -q '"content":"I always take the window seat on trains","score":' &&
   head -n 1 "$dir/d1.jsonl" | grep -q '"block":"' &&
   ! grep -q '"id"' "$dir/d1.jsonl"
then ok; else bad "--dump line: file, line, query, results, no ids: $(head -c 600 "$dir/d1.jsonl")"; fi
if sed -n 2p "$dir/d1.jsonl" | grep -qF '"line":4,"query":"hi","error":"AM_NOTFOUND"}'; then ok; else
  bad "--dump line of a refused recall: $(sed -n 2p "$dir/d1.jsonl")"; fi
run 0 "--dump= again" scenario run --dump="$dir/d2.jsonl" "$dir/dump.jsonl"
if cmp -s "$dir/d1.jsonl" "$dir/d2.jsonl"; then ok; else bad "--dump differs between two runs"; fi
run 2 "--dump without a file" scenario run "$dir/dump.jsonl" --dump
run 1 "--dump into a missing directory" scenario run --dump "$dir/none/d.jsonl" "$dir/dump.jsonl"
if grep -qF "cannot write $dir/none/d.jsonl" "$dir/err"; then ok; else bad "--dump error names the file"; fi

# ---------------------------------------------------------------- the profile step
cat > "$dir/profile.jsonl" <<JSONL
{"step":"add","user":"p1","session":"s1",$AT,"text":"I'm allergic to peanuts."}
{"step":"profile","user":"p1",$AT,"expect":{"profile_contains":["walnuts"]}}
{"step":"profile","user":"p1",$AT,"expect":{"profile_not_contains":["peanuts"]}}
{"step":"profile","user":"p1",$AT,"expect":{"profile_order":["peanuts","[User profile]"]}}
{"step":"profile",$AT,"expect":{"profile_contains":["x"]}}
{"step":"profile","user":"p1","query":"x",$AT}
{"step":"recall","user":"p1","query":"x",$AT,"expect":{"profile_contains":["x"]}}
{"step":"profile","user":"p1",$AT,"expect":{"profile_contains":["peanuts"],"profile_order":["[User profile]","peanuts"]}}
JSONL
run 1 "profile step" scenario run "$dir/profile.jsonl"
has "FAIL $dir/profile.jsonl:2 profile.profile_contains: expected profile to contain \"walnuts\" / got \"[User profile]" "profile_contains fails, showing the card"
has "FAIL $dir/profile.jsonl:3 profile.profile_not_contains: expected no profile to contain \"peanuts\"" "profile_not_contains fails"
has "FAIL $dir/profile.jsonl:4 profile.profile_order:" "profile_order fails out of order"
has "FAIL $dir/profile.jsonl:5 profile" "a profile step needs user"
has "FAIL $dir/profile.jsonl:6 profile" "a profile step takes no query"
has "FAIL $dir/profile.jsonl:7 recall.profile_contains" "profile_contains applies to profile steps only"
has "PASS $dir/profile.jsonl:8 profile.profile_contains" "the card holds the item"
has "PASS $dir/profile.jsonl:8 profile.profile_order" "under its header"
well_formed "profile.jsonl"

# ---------------------------------------------------------------- stores
mkdir -p "$dir/tmp"
TMPDIR="$dir/tmp" run 0 "default temporary store" scenario run "$dir/pass.jsonl"
if [ -z "$(ls -A "$dir/tmp")" ]; then ok; else bad "temporary store left behind: $(ls "$dir/tmp")"; fi
run 0 "--store sqlite::memory:" scenario run --store sqlite::memory: "$dir/pass.jsonl"
run 0 "--store file" scenario run --store "sqlite:$dir/kept.db" "$dir/pass.jsonl"
if [ -f "$dir/kept.db" ]; then ok; else bad "--store file not created"; fi
# A second run starts from an empty store again (the file is replaced).
run 0 "--store file again" scenario run --store "sqlite:$dir/kept.db" "$dir/pass.jsonl"
last_is "4 passed, 0 failed" "a reused --store path starts empty"
run 0 "--store with two files" scenario run --store "$dir/two.db" "$dir/pass.jsonl" "$dir/pass.jsonl"
if [ -f "$dir/two-1.db" ] && [ -f "$dir/two-2.db" ]; then ok; else bad "per-file stores two-1.db, two-2.db"; fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
