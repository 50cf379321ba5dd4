#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Progress bars (tools/common/progress.c) of maintain, reembed, import
# (and --from mem0), add --batch, optimize, forget and bench: on a
# terminal (a pseudo-terminal from script(1)) the bar and its final line
# are on stderr; with stderr to a file nothing of it appears; with --quiet
# nothing appears even on a terminal; stdout (--json) is byte-identical
# with and without a terminal.  $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: progress.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
script -qec true /dev/null >/dev/null 2>&1 || { echo "script(1) with a pty is not available"; exit 77; }
db="$dir/p.db"
for u in 张伟 bob carol; do
  "$CLI" --db "$db" add --user "$u" --text "I prefer tea" >/dev/null 2>&1
  "$CLI" --db "$db" add --user "$u" --text "我喜欢喝茶" >/dev/null 2>&1
done
has() { # file regex description
  if grep -qE -- "$2" "$1"; then passed=$((passed+1)); else
    echo "FAIL: $3: /$2/ not in: $(cat -A "$1")"; failed=$((failed+1)); fi
}
hasnt() { # file regex description
  if grep -qE -- "$2" "$1"; then echo "FAIL: $3: /$2/ in: $(cat -A "$1")"; failed=$((failed+1));
  else passed=$((passed+1)); fi
}
# tty CMD...: the command on a pseudo-terminal (stdout and stderr on it),
# bounded by timeout; what the terminal showed in $dir/tty
tty() {
  local q=; for a in "$@"; do q+=" '$a'"; done
  timeout 60 script -qec "$q" /dev/null >"$dir/tty" 2>&1
}

# maintain: users of the pass
tty "$CLI" --db "$db" maintain
has "$dir/tty" 'maintain \[#{24}\] 3/3 users 100%  done in [0-9]+s' "maintain: the bar's final line on a terminal"
has "$dir/tty" '^3 users: ' "maintain: its summary"
tty "$CLI" --db "$db" maintain --user bob
has "$dir/tty" 'maintain \[#{24}\] [0-9]+/[0-9]+ steps 100%' "maintain --user: steps"
tty "$CLI" --db "$db" maintain --quiet
hasnt "$dir/tty" 'maintain \[|users 100%' "maintain --quiet: no bar on a terminal"
has "$dir/tty" '^3 users: ' "maintain --quiet: the summary stays"
tty "$CLI" --quiet --db "$db" maintain
hasnt "$dir/tty" 'maintain \[|users 100%' "global --quiet before the command: no bar"
"$CLI" --db "$db" maintain >"$dir/out" 2>"$dir/err"
hasnt "$dir/err" '.' "maintain: stderr to a file is empty"
hasnt "$dir/out" '\[#|done in' "maintain: stdout has no bar"
"$CLI" --db "$db" maintain --json 2>/dev/null | sed 's/"elapsed_ms":[0-9]*/"elapsed_ms":0/' >"$dir/j1"
tty "$CLI" --db "$db" maintain --json
tr -d '\r' <"$dir/tty" | grep '^{' | sed 's/"elapsed_ms":[0-9]*/"elapsed_ms":0/' >"$dir/j2"
cmp -s "$dir/j1" "$dir/j2" && [ -s "$dir/j1" ] && passed=$((passed+1)) ||
  { echo "FAIL: maintain --json differs on a terminal: $(cat "$dir/j1") / $(cat "$dir/j2")"; failed=$((failed+1)); }

# reembed: events (a tiny w2v table: the English events get a vector)
printf '3 2\ntea 1 0\nprefer 0 1\ni 1 1\n' >"$dir/vec.txt"
export AGENTMEM_EMBEDDER="w2v:$dir/vec.txt"
"$CLI" --db "$db" reembed --json >"$dir/out" 2>"$dir/err"
hasnt "$dir/err" '.' "reembed: stderr to a file is empty"
has "$dir/out" '^\{"reembedded":[0-9]+\}$' "reembed --json on stdout alone"
printf '3 2\ntea 0 1\nprefer 1 0\ni 1 1\n' >"$dir/vec2.txt"
export AGENTMEM_EMBEDDER="w2v:$dir/vec2.txt"
tty "$CLI" --db "$db" reembed --quiet
hasnt "$dir/tty" 'reembed \[|done in' "reembed --quiet: no bar"
printf '3 2\ntea 1 1\nprefer 1 0\ni 0 1\n' >"$dir/vec3.txt"
export AGENTMEM_EMBEDDER="w2v:$dir/vec3.txt"
tty "$CLI" --db "$db" reembed
has "$dir/tty" 'reembed \[#{24}\] [0-9]+/[0-9]+ events 100%  done in' "reembed: the bar on a terminal"

# same_json NAME CMD...: CMD's --json stdout with stderr to a file and on a
# terminal are the same bytes (after the filter $JSON_FILTER); $SETUP (a
# command, may be empty) runs before each, for commands that write
SETUP=
same_json() {
  local name=$1; shift
  $SETUP
  "$@" 2>/dev/null | sed "$JSON_FILTER" >"$dir/j1"
  $SETUP
  tty "$@"
  # what the terminal shows: a line's text after its last carriage return
  sed -e 's/\r$//' -e 's/.*\r//' -e 's/\x1b\[K//g' "$dir/tty" | grep -E '^[{[ }"]' | sed "$JSON_FILTER" >"$dir/j2"
  cmp -s "$dir/j1" "$dir/j2" && [ -s "$dir/j1" ] && passed=$((passed+1)) ||
    { echo "FAIL: $name --json differs on a terminal: $(cat "$dir/j1") / $(cat "$dir/j2")"; failed=$((failed+1)); }
}
JSON_FILTER='s/"elapsed_ms":[0-9]*/"elapsed_ms":0/'
# bar CMD-NAME REGEX DESCRIPTION -- CMD...: on a terminal the bar, with
# --quiet none, with stderr to a file none
bar() {
  local what=$1 re=$2 desc=$3; shift 4
  tty "$@"
  has "$dir/tty" "$re" "$desc: the bar on a terminal"
  tty "$@" --quiet
  hasnt "$dir/tty" "$what (\[|[0-9])|done in" "$desc --quiet: no bar"
  "$@" >"$dir/out" 2>"$dir/err"
  hasnt "$dir/err" "$what (\[|[0-9])|done in|\[K" "$desc: stderr to a file has no bar"
  hasnt "$dir/out" "$what (\[|[0-9])|done in|\[K" "$desc: stdout has no bar"
}
unset AGENTMEM_EMBEDDER

# add --batch: lines of a file (counted first); stdin: a counter
for i in $(seq 1 120); do
  printf '{"user":"u%d","text":"第%d条：我喜欢喝绿茶"}\n{"user":"u%d","text":"Note %d: I prefer green tea"}\n' $((i%4)) "$i" $((i%4)) "$i"
done >"$dir/b.jsonl"
n=0
for d in b1 b2 b3 b4; do n=$((n+1)); rm -f "$dir/$d.db"*; done
bar add 'add \[#{24}\] 240/240 lines 100%  done in' "add --batch" -- "$CLI" --db "$dir/b1.db" add --batch "$dir/b.jsonl"
tty "$CLI" --db "$dir/b2.db" add --batch - <"$dir/b.jsonl"
# script(1) gives the command the terminal as stdin: a pipe through sh -c
timeout 60 script -qec "cat '$dir/b.jsonl' | '$CLI' --db '$dir/b3.db' add --batch -" /dev/null >"$dir/tty" 2>&1
has "$dir/tty" 'add 240 lines  done in' "add --batch - (stdin): a counter, no total"
has "$dir/tty" '240 added, 0 already present, 0 rejected' "add --batch -: the summary after the bar"
# a bad line's message is on a line of its own, not after the bar
printf '{"user":"u1","text":"ok 好"}\nnot json\n{"user":"u1","text":"fine 好的"}\n' >"$dir/bad.jsonl"
tty "$CLI" --db "$dir/b4.db" add --batch "$dir/bad.jsonl"
has "$dir/tty" '(^|\[K)agentmem add: .*bad.jsonl:2: ' "add --batch: the bar erased before a bad line's message"
SETUP="rm -f $dir/b5.db $dir/b5.db-wal $dir/b5.db-shm"
JSON_FILTER='s/"event_id":"[0-9A-Z]*"/"event_id":""/'
same_json "add --batch" "$CLI" --db "$dir/b5.db" add --batch "$dir/b.jsonl" --json
SETUP=

# import: entries of an export; --from mem0: memories
"$CLI" --db "$dir/b1.db" export --user u1 >"$dir/e.json"
printf '[{"id":"m1","memory":"不吃香菜"},{"id":"m2","memory":"Likes cricket on weekends"}]' >"$dir/mem0.json"
rm -f "$dir/i"*.db*
bar import 'import \[#{24}\] [0-9]+/[0-9]+ entries 100%  done in' "import" -- "$CLI" --db "$dir/i1.db" import "$dir/e.json" --merge
bar import 'import \[#{24}\] 2/2 memories 100%  done in' "import --from mem0" -- "$CLI" --db "$dir/i2.db" import --from mem0 "$dir/mem0.json" --user alex
JSON_FILTER='s/"elapsed_ms":[0-9]*/"elapsed_ms":0/;s/"events":[0-9]*/"events":N/;s/"events_skipped":[0-9]*/"events_skipped":N/;s/"memories":[0-9]*/"memories":N/;s/"memories_skipped":[0-9]*/"memories_skipped":N/'
SETUP="rm -f $dir/i3.db $dir/i3.db-wal $dir/i3.db-shm"
same_json "import" "$CLI" --db "$dir/i3.db" import "$dir/e.json" --json
SETUP=
JSON_FILTER='s/"elapsed_ms":[0-9]*/"elapsed_ms":0/'

# optimize: its four steps
bar optimize 'optimize \[#{24}\] 4/4 steps 100%  done in' "optimize" -- "$CLI" --db "$dir/b1.db" optimize

# forget: a user (its purge's steps), a session; never an event
bar forget 'forget \[#{24}\] [0-9]+/[0-9]+ steps 100%  done in' "forget --level user" -- "$CLI" --db "$dir/b1.db" forget --user u1 --level user
tty "$CLI" --db "$dir/b1.db" forget --user u2 --level session --id s-none
has "$dir/tty" 'no session' "forget of an unknown session: the error"
ev=$("$CLI" --db "$dir/b2.db" add --user u3 --text "我明天去上海出差" --json 2>/dev/null | grep -o '"event_id":"[0-9A-Z]*"' | cut -d'"' -f4)
tty "$CLI" --db "$dir/b2.db" forget --user u3 --level event --id "$ev"
hasnt "$dir/tty" 'forget (\[|[0-9])' "forget --level event: no bar (one short transaction)"
has "$dir/tty" 'forgot 1 event,' "forget --level event: singular"
"$CLI" --db "$dir/b2.db" optimize >/dev/null 2>&1 # (the log into the file, for cp)
SETUP="cp $dir/b2.db $dir/f1.db"
same_json "forget" "$CLI" --db "$dir/f1.db" forget --user u2 --level user --json
SETUP=
JSON_FILTER='s/"elapsed_ms":[0-9]*/"elapsed_ms":0/'

# bench synth: ingest events and recall queries
bar bench 'bench ingest \[#{24}\] 40/40 events 100%  done in' "bench synth (ingest)" -- "$CLI" bench synth --users 2 --events 20 --queries 5
tty "$CLI" bench synth --users 2 --events 20 --queries 5
has "$dir/tty" 'bench recall \[#{24}\] 5/5 queries 100%  done in' "bench synth: the recall bar"
tty "$CLI" bench synth --users 2 --events 20 --queries 5 --progress
hasnt "$dir/tty" 'bench (ingest|recall) \[' "bench --progress: its lines, no bar"
has "$dir/tty" '\[synth\] 40/40 events' "bench --progress: its line as before"
tty "$CLI" --quiet bench synth --users 2 --events 20 --queries 5
hasnt "$dir/tty" 'bench (ingest|recall) \[' "global --quiet before bench: no bar"
has "$dir/tty" '^synth: 2 users x 20 events' "bench: the report stays"
JSON_FILTER='s/[0-9][0-9.e+-]*/N/g'
same_json "bench synth" "$CLI" bench synth --users 2 --events 20 --queries 5 --json
# bench DATASET: a locomo file of two conversations (zh and en)
cat >"$dir/lo.json" <<'EOF2'
[{"sample_id": "c1", "conversation": {"session_1_date_time": "1:56 pm on 8 May, 2023",
  "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "I adopted a dog named Rex"},
                {"speaker": "B", "dia_id": "D1:2", "text": "我养了一只叫旺财的狗"}]},
  "qa": [{"question": "What is the dog called", "answer": "Rex", "evidence": ["D1:1"], "category": 1},
         {"question": "狗叫什么名字", "answer": "旺财", "evidence": ["D1:2"], "category": 1}]},
 {"sample_id": "c2", "conversation": {"session_1_date_time": "2:00 pm on 9 May, 2023",
  "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "I prefer green tea"}]},
  "qa": [{"question": "What tea do I prefer", "answer": "green tea", "evidence": ["D1:1"], "category": 1}]}]
EOF2
bar bench 'bench \[#{24}\] 3/3 questions 100%  done in' "bench locomo" -- "$CLI" bench locomo --data "$dir/lo.json" --no-baselines
has "$dir/out" '^locomo \(.*\): 3 questions, 2 units, 3 events ingested' "bench: its plural nouns"
same_json "bench locomo" "$CLI" bench locomo --data "$dir/lo.json" --no-baselines --json

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
