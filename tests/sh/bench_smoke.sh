#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `agentmem bench`: tiny --limit runs of every dataset on the real data in
# ../shared/bench (or $AM_BENCH_DIR) when it is there, checking the JSON
# report's fields and that every per-k figure lies in [0, 1]; the paper BM25
# baseline still reproduces the LoCoMo reference; malformed data and bad
# options give clear errors and the right exit codes.
# $1 = path of the agentmem CLI.  Needs only bash, grep and awk.
set -u
CLI=${1:?usage: bench_smoke.sh AGENTMEM}
DATA=${AM_BENCH_DIR:-../shared/bench}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0; failed=0
ok() { passed=$((passed+1)); }
bad() { echo "FAIL: $*"; failed=$((failed+1)); }

run() { # expected-rc description command...
  local want=$1 what=$2; shift 2
  "$@" >"$dir/out" 2>"$dir/err"; local rc=$?
  if [ "$rc" = "$want" ]; then ok; return 0; fi
  bad "$what: exit $rc, wanted $want"; head -c 2000 "$dir/out" "$dir/err"
  return 1
}
has() { # needle description: in the last stdout+stderr
  if grep -q -- "$1" "$dir/out" "$dir/err"; then ok; else
    bad "$2: '$1' not in output"; head -c 2000 "$dir/out" "$dir/err"; fi
}
# Every "<k>": value line of the pretty-printed report (recall, recall_all,
# hit, ndcg, overall, per category and per baseline) must be within [0, 1].
in_unit() {
  if awk '/^ *"[0-9]+": -?[0-9.eE+-]+,?$/ { v = $2; sub(/,$/, "", v); n++;
            if (v + 0 < 0 || v + 0 > 1) { print "out of range: " $0; bad = 1 } }
          END { if (!n) { print "no per-k figure"; exit 1 } exit bad }' "$dir/out"
  then ok; else bad "$1: figures outside [0,1]"; fi
}
fields() { # description field...
  local what=$1; shift
  local f
  for f in "$@"; do has "\"$f\":" "$what: field $f"; done
}
COMMON=(dataset questions recall recall_all hit ndcg by_category
        block_tokens_mean full_context_tokens_mean latency_ms
        ingest_event_p50 ingest_event_p95 recall_p50 recall_p95 baselines
        bm25-paper bm25-bigram)

# ---- options and errors (no data needed)
run 0 "help" "$CLI" bench --help && has "locomo" "help lists datasets"
run 2 "no dataset" "$CLI" bench
run 2 "unknown dataset" "$CLI" bench frobnicate
run 2 "bad --k" "$CLI" bench locomo --k 5,x
run 2 "bad --baseline" "$CLI" bench locomo --baseline nope
run 2 "unknown rank weight" "$CLI" bench locomo --rank nope=1
run 1 "missing data" "$CLI" bench locomo --data "$dir/none.json"
has "none.json" "missing data names the path"

cat >"$dir/bad_text.json" <<'EOF'
[{"sample_id": "c1", "conversation": {"speaker_a": "A", "speaker_b": "B",
  "session_1_date_time": "1:56 pm on 8 May, 2023",
  "session_1": [{"speaker": "A", "dia_id": "D1:1"}]}, "qa": []}]
EOF
run 1 "turn without text" "$CLI" bench locomo --data "$dir/bad_text.json" --baseline all
has "bad_text.json" "error names the file"
has "session_1\[0\].text" "error names the field"
cat >"$dir/bad_date.json" <<'EOF'
[{"sample_id": "c1", "conversation": {"session_1_date_time": "sometime",
  "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}, "qa": []}]
EOF
run 1 "unreadable date" "$CLI" bench locomo --data "$dir/bad_date.json" --baseline all
has "session_1_date_time" "date error names the field"
printf '[{"sample_id": "c1", "conversation": {' >"$dir/trunc.json"
run 1 "truncated JSON" "$CLI" bench locomo --data "$dir/trunc.json" --baseline all
has "trunc.json" "parse error names the file"
# malformed evidence ids are counted, never fatal; only resolvable refs score
cat >"$dir/messy.json" <<'EOF'
[{"sample_id": "c1", "conversation": {"session_1_date_time": "1:56 pm on 8 May, 2023",
  "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "I adopted a dog named Rex"},
                {"speaker": "B", "dia_id": "D1:2", "text": "That is great news",
                 "img_url": ["x"], "blip_caption": "a photo of a dog"}]},
  "qa": [{"question": "What is the dog called", "answer": "Rex", "evidence": ["D1:1; D9:9", "D", 7], "category": 1},
         {"question": "Trap", "adversarial_answer": "x", "evidence": ["D1:1"], "category": 5},
         {"question": "No evidence", "answer": "x", "evidence": [], "category": 3}]}]
EOF
if run 0 "messy evidence" "$CLI" bench locomo --data "$dir/messy.json" --baseline all --json; then
  has '"questions": 1' "one scorable question"
  has '"skipped_category_5": 1' "category 5 skipped"
  has '"skipped_no_evidence": 1' "empty evidence skipped"
  has '"resolved": 1' "one ref resolved"
  in_unit "messy evidence"
fi

# --keep-stores: each unit's store is a file the other commands open
mkdir -p "$dir/stores"
echo stale >"$dir/stores/c1.db-wal"  # an old run's leftovers are replaced
if run 0 "keep stores" "$CLI" bench locomo --data "$dir/messy.json" --no-baselines --keep-stores "$dir/stores"; then
  if [ -f "$dir/stores/c1.db" ]; then ok; else bad "keep stores: no c1.db"; fi
  run 0 "kept store recall" "$CLI" --db "$dir/stores/c1.db" recall --user c1 --text "what is the dog called" --json &&
    has "adopted a dog named Rex" "kept store holds the unit's turns"
fi
# a unit id is no path: "../x" stays inside the directory
sed 's/"sample_id": "c1"/"sample_id": "..\/up"/' "$dir/messy.json" >"$dir/up.json"
if run 0 "keep stores, unit id with a path" "$CLI" bench locomo --data "$dir/up.json" --no-baselines --keep-stores "$dir/stores"; then
  if [ -f "$dir/stores/_._up.db" ] && [ ! -e "$dir/up.db" ]; then ok; else bad "keep stores: unit id escaped: $(ls "$dir" "$dir/stores")"; fi
fi
run 2 "keep stores: not a directory" "$CLI" bench locomo --data "$dir/messy.json" --keep-stores "$dir/none"
has "not a directory" "keep stores error says why"
run 2 "keep stores: not for synth" "$CLI" bench synth --keep-stores "$dir/stores" --users 1 --events 1

# ---- real data
if [ ! -d "$DATA/locomo" ]; then
  echo "skip: no benchmark data in $DATA"
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ]; exit
fi

if run 0 "locomo engine --limit" "$CLI" bench locomo --data "$DATA/locomo" --limit 8 --json; then
  fields locomo "${COMMON[@]}"
  has '"mode": "engine"' "locomo engine mode"
  has '"questions": 8' "locomo limit"
  in_unit locomo
fi
if run 0 "locomo table" "$CLI" bench locomo --data "$DATA/locomo" --limit 3; then
  has "recall@5" "table header"; has "bm25-bigram" "table lists baselines"
fi
# The paper BM25 must keep reproducing the reference (0.391 / 0.496 on the
# 883 scored dev questions; ours 0.395 / 0.495): guards loader and scorer.
if run 0 "locomo bm25-paper" "$CLI" bench locomo --data "$DATA/locomo" --baseline bm25-paper --json; then
  has '"questions": 883' "locomo scored questions"
  r10=$(awk '/^  "recall": \{/ { f = 1 } f && /"10":/ { v = $2; sub(/,$/, "", v); print v; exit }' "$dir/out")
  if awk -v v="$r10" 'BEGIN { exit !(v >= 0.38 && v <= 0.41) }'; then ok; else
    bad "bm25-paper locomo recall@10 = $r10, reference 0.391"; fi
fi
if run 0 "realtalk" "$CLI" bench realtalk --data "$DATA/realtalk" --limit 6 --json; then
  fields realtalk "${COMMON[@]}"; in_unit realtalk
fi
if run 0 "memdaily" "$CLI" bench memdaily --data "$DATA/memdaily" --limit 3 --distractors 4 --json; then
  fields memdaily "${COMMON[@]}" distractors; in_unit memdaily
  cp "$dir/out" "$dir/md1"
  # the same seed gives the same haystacks
  if run 0 "memdaily again" "$CLI" bench memdaily --data "$DATA/memdaily" --limit 3 --distractors 4 --json; then
    if diff <(grep -v '_p[59][05]"' "$dir/md1" | grep -v '_per_s"') \
            <(grep -v '_p[59][05]"' "$dir/out" | grep -v '_per_s"') >/dev/null
    then ok; else bad "memdaily is not deterministic"; fi
  fi
fi
if run 0 "madial" "$CLI" bench madial --data "$DATA/madial_bench" --lang zh --limit 4 --json; then
  fields madial "${COMMON[@]}"; in_unit madial
fi
if run 0 "madial baselines both" "$CLI" bench madial --data "$DATA/madial_bench" --baseline all --json; then
  has '"en":' "madial en category"; has '"zh":' "madial zh category"; in_unit "madial both"
fi
if run 0 "synth" "$CLI" bench synth --users 3 --events 40 --queries 5 --json; then
  fields synth dataset questions recall hit ndcg latency_ms ingest_events_per_s
  in_unit synth
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
