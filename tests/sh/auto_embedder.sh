#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The embedder auto (the CLI's default) finds the built-in encoder's
# weights from any working directory (docs/guide/configuration.md):
#   - through $AGENTMEM_MODEL_DIR (a folder holding use-lite/, or the
#     weights' folder itself) and through the data home
#     ($XDG_DATA_HOME/agentmem/models/use-lite), never the current
#     directory: doctor names the folder found;
#   - what auto writes carries use-lite's id: a reembed with use-lite
#     finds nothing to do, while a store written without an embedder gets
#     its English events embedded; the Python embedded client defaults to
#     auto too;
#   - recall (Chinese and English) answers the same from two working
#     directories.
# Skipped (77) when models/use-lite is not fetched (scripts/fetch-model.sh).
# $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: auto_embedder.sh AGENTMEM}
CLI=$(cd "$(dirname "$CLI")" && pwd)/$(basename "$CLI")
root=$(cd "$(dirname "$0")/../.." && pwd)
model=$root/models/use-lite
[ -f "$model/model.json" ] || { echo "SKIP: models/use-lite not fetched (scripts/fetch-model.sh)"; exit 77; }
. "$(dirname "$0")/lib/expect.bash"
unset AGENTMEM_DB AGENTMEM_EMBEDDER AGENTMEM_MODEL_DIR AM_MODEL_DIR AGENTMEM_CACHE AGENTMEM_LLM
check() { # description python-expression over the JSON in $dir/out ("j")
  if python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
      "$dir/out" "$2" 2>>"$dir/err"; then passed=$((passed+1)); else
    echo "FAIL: $1: $2"; cat "$dir/out" "$dir/err"; failed=$((failed+1)); fi
}
home=$dir/home
mkdir -p "$home" "$dir/m" "$dir/xdg/agentmem/models" "$dir/empty"
ln -s "$model" "$dir/m/use-lite"
ln -s "$model" "$dir/xdg/agentmem/models/use-lite"

# nothing found from the source tree's root (never the current directory)
(cd "$root" && env XDG_DATA_HOME="$dir/empty" HOME="$home" "$CLI" doctor --json >"$dir/out" 2>"$dir/err")
check "auto ignores ./models/use-lite" "j['embedder']['resolved']=='none' and j['embedder']['hint']"

# $AGENTMEM_MODEL_DIR: a folder holding use-lite/, or the weights' folder
expect_rc 0 "AGENTMEM_MODEL_DIR (parent)" env XDG_DATA_HOME="$dir/empty" HOME="$home" AGENTMEM_MODEL_DIR="$dir/m" "$CLI" doctor --json
check "found through AGENTMEM_MODEL_DIR/use-lite" \
  "j['embedder']['resolved']=='use-lite-en@0.2.0' and j['embedder']['model_dir']=='$dir/m/use-lite' and j['embedder']['hint'] is None and j['model_files']['files']>=9"
expect_rc 0 "AGENTMEM_MODEL_DIR (itself)" env XDG_DATA_HOME="$dir/empty" HOME="$home" AGENTMEM_MODEL_DIR="$dir/m/use-lite" "$CLI" doctor --json
check "found through AGENTMEM_MODEL_DIR" \
  "j['embedder']['resolved']=='use-lite-en@0.2.0' and [s['from'] for s in j['embedder']['searched'] if s['has_model']]==['\$AGENTMEM_MODEL_DIR']"
# the data home, from two working directories
for wd in "$dir" /; do
  (cd "$wd" && env XDG_DATA_HOME="$dir/xdg" HOME="$home" "$CLI" doctor --json >"$dir/out" 2>"$dir/err")
  check "found through the data home from $wd" \
    "j['embedder']['resolved']=='use-lite-en@0.2.0' and j['embedder']['model_dir']=='$dir/xdg/agentmem/models/use-lite'"
done
(cd / && env XDG_DATA_HOME="$dir/xdg" HOME="$home" "$CLI" doctor >"$dir/out" 2>&1)
expect_out "use-lite-en@0.2.0" "doctor's text names the encoder"
expect_out "found $dir/xdg/agentmem/models/use-lite" "doctor's text marks the folder found"

# what auto writes carries use-lite's id
x() { env XDG_DATA_HOME="$dir/xdg" HOME="$home" "$@"; }
for t in "My daughter takes violin lessons every Saturday" "I drive a blue Honda Civic" "我每周四下午写周报"; do
  x "$CLI" --db "$dir/auto.db" add --user u --text "$t" >/dev/null || { echo "FAIL: add $t"; failed=$((failed+1)); }
  x env AGENTMEM_EMBEDDER=none "$CLI" --db "$dir/none.db" add --user u --text "$t" >/dev/null
done
expect_rc 0 "reembed with use-lite after auto" x env AGENTMEM_EMBEDDER=use-lite "$CLI" --db "$dir/auto.db" reembed --json
check "auto's vectors are use-lite's: nothing to do" "j['reembedded']==0"
expect_rc 0 "reembed with auto after none" x "$CLI" --db "$dir/none.db" reembed --json
check "a store written without an embedder: its English events embedded" "j['reembedded']==2"
expect_rc 0 "reembed with auto again" x "$CLI" --db "$dir/none.db" reembed --json
check "auto again: nothing to do" "j['reembedded']==0"

# recall from two working directories, Chinese and English
for q in "what instrument is my kid learning" "周报什么时候写"; do
  (cd "$dir" && x "$CLI" --db "$dir/auto.db" recall --user u --text "$q" >"$dir/r1" 2>&1)
  (cd / && x "$CLI" --db "$dir/auto.db" recall --user u --text "$q" >"$dir/r2" 2>&1)
  if cmp -s "$dir/r1" "$dir/r2" && grep -qE "Memory|记忆" "$dir/r1"; then passed=$((passed+1)); else
    echo "FAIL: recall '$q' differs by working directory"; diff "$dir/r1" "$dir/r2" | head; failed=$((failed+1)); fi
done
grep -q "周四" "$dir/r2" && passed=$((passed+1)) || { echo "FAIL: zh recall"; cat "$dir/r2"; failed=$((failed+1)); }

# the Python embedded client's default is auto too
lib=${AGENTMEM_LIB:-}
[ -n "$lib" ] || for c in "$(dirname "$CLI")/cmake/libagentmem.so" "$(dirname "$CLI")/libagentmem.so"; do
  [ -f "$c" ] && lib=$c && break; done
if [ -n "$lib" ] && [ "${AM_SANITIZED_BUILD:-0}" != 1 ]; then
  x env PYTHONPATH="$root/clients/python" AGENTMEM_LIB="$lib" python3 - "$dir/py.db" <<'EOF' >"$dir/out" 2>"$dir/err"
import sys
from agentmem import open_embedded
c = open_embedded(sys.argv[1], "pyuser")
c.add("I keep my passport in the blue drawer")
c.add("我的护照放在蓝色抽屉里")
EOF
  rc=$?
  [ "$rc" = 0 ] && passed=$((passed+1)) || { echo "FAIL: python embedded add"; cat "$dir/out" "$dir/err"; failed=$((failed+1)); }
  expect_rc 0 "reembed with use-lite after Python" x env AGENTMEM_EMBEDDER=use-lite "$CLI" --db "$dir/py.db" reembed --json
  check "the Python client wrote use-lite vectors (auto)" "j['reembedded']==0"
  expect_rc 0 "none store then reembed: the control" x env AGENTMEM_EMBEDDER=none "$CLI" --db "$dir/py.db" recall --user pyuser --text "护照"
  expect_out "护照" "the Python client's Chinese event is recalled"
fi

echo "auto_embedder: $passed passed, $failed failed"
[ "$failed" = 0 ]
