#!/usr/bin/env bash
# Progress bars (tools/common/progress.c) of maintain and reembed: on a
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

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
