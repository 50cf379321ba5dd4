#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs README.md's marked code blocks verbatim against the INSTALLED agentmem
# (the one on PATH, its library, header and agentmem.pc), each in a fresh
# temporary HOME and working folder (its clients/ the checkout's), so the
# default store is new:
#   quickstart, python, node, http   bash -e
#   mcp    the host configuration: its command spawned and driven as a host
#          would (scripts/readme_check.py: initialize, tools/list, tools/call)
#   c      written to demo.c, built with
#          cc demo.c $(pkg-config --cflags --libs agentmem), run
# --static: the C block also linked with libagentmem.a and
# `pkg-config --static --libs agentmem`.  --only NAME (repeatable): those
# blocks only.  A failure names its block and shows its output; exit 1.
# Each block gets BLOCK_TIMEOUT seconds (default 300).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
readme=$root/README.md
static=0
only=()
while [ $# -gt 0 ]; do
  case $1 in
    --static) static=1 ;;
    --only) only+=("${2:?--only NAME}"); shift ;;
    --readme) readme=${2:?--readme FILE}; shift ;;
    *) echo "usage: readme-check.sh [--static] [--only BLOCK]... [--readme FILE]" >&2; exit 2 ;;
  esac
  shift
done
blocks=(quickstart mcp python node http c)
[ ${#only[@]} -gt 0 ] && blocks=("${only[@]}")

agentmem=$(command -v agentmem) || { echo "readme-check: agentmem is not on PATH: install it first (make deb, apt-get install ./build/agentmem_*.deb)" >&2; exit 1; }
case $agentmem in "$root"/*) echo "readme-check: $agentmem is the build tree's, not an installed one" >&2; exit 1 ;; esac
echo "readme-check: $agentmem ($("$agentmem" --version))"
# Until the CLI has a default store (its `doctor` command came with it), the
# blocks get one through $AGENTMEM_DB inside their temporary HOME.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/probe"
probe=$(env -u XDG_DATA_HOME -u AGENTMEM_DB HOME="$tmp/probe" "$agentmem" doctor </dev/null 2>&1)
if ! grep -q "unknown command" <<<"$probe"; then
  default_store=1
  echo "readme-check: the default store (\$XDG_DATA_HOME or ~/.local/share/agentmem)"
else
  default_store=0
  echo "readme-check: no default store in this agentmem: AGENTMEM_DB=\$HOME/agentmem.db"
fi

failed=()

# run NAME SCRIPT...: the command in a fresh HOME and folder, a session of
# its own (whatever it leaves running is stopped), bounded in time.
run() {
  local name=$1; shift
  local dir=$tmp/$name
  mkdir -p "$dir/home" "$dir/work"
  ln -s "$root/clients" "$dir/work/clients"
  local envs=(env -u AGENTMEM_DB -u AGENTMEM_EMBEDDER -u AGENTMEM_MODEL_DIR -u AM_MODEL_DIR
              -u AGENTMEM_LIB -u AGENTMEM_TOKEN -u AGENTMEM_URL -u AGENTMEM_CACHE
              -u XDG_DATA_HOME -u XDG_CONFIG_HOME -u XDG_CACHE_HOME -u PYTHONPATH
              -u LD_LIBRARY_PATH -u PKG_CONFIG_PATH "HOME=$dir/home")
  [ $default_store = 1 ] || envs+=("AGENTMEM_DB=$dir/home/agentmem.db")
  (cd "$dir/work" && exec setsid "${envs[@]}" timeout -k 5 "${BLOCK_TIMEOUT:-300}" "$@") \
    >"$dir/out" 2>&1 </dev/null &
  local pid=$! rc
  wait $pid; rc=$?
  kill -TERM -- "-$pid" 2>/dev/null
  if [ $rc != 0 ]; then
    echo "readme-check: FAIL: the README's $name block (exit $rc$([ $rc = 124 ] && echo ": timed out")):"
    sed 's/^/    /' "$dir/out"
    failed+=("$name")
    return 1
  fi
  echo "readme-check: ok: $name"
  [ -n "${VERBOSE:-}" ] && sed 's/^/    /' "$dir/out"
  return 0
}

for b in "${blocks[@]}"; do
  script=$tmp/$b.block
  if ! python3 "$root/scripts/readme_check.py" extract "$b" "$readme" >"$script"; then
    failed+=("$b"); continue
  fi
  case $b in
    quickstart|python|node|http)
      run "$b" bash -e "$script" || continue
      if [ "$b" = quickstart ]; then
        # the store the quick start wrote is where the README says
        store=$tmp/$b/home/.local/share/agentmem/agentmem.db
        [ $default_store = 1 ] || store=$tmp/$b/home/agentmem.db
        [ -s "$store" ] || { echo "readme-check: FAIL: quickstart: no store at $store"; failed+=("$b"); }
      fi ;;
    mcp)
      run mcp python3 "$root/scripts/readme_check.py" mcp "$script" ;;
    c)
      cp "$script" "$tmp/demo.c"
      # shellcheck disable=SC2016
      if run c bash -ec 'cp "$1" demo.c && cc demo.c $(pkg-config --cflags --libs agentmem) &&
                         ./a.out >block.txt && cat block.txt && test -s block.txt' c "$tmp/demo.c" &&
         [ $static = 1 ]; then
        # libagentmem.a by name (a bare -lagentmem would take the .so), its
        # own dependencies from Libs.private
        run c-static bash -ec 'cp "$1" demo.c
          cc demo.c $(pkg-config --cflags agentmem) \
             $(pkg-config --static --libs agentmem | sed "s/-lagentmem\b/-l:libagentmem.a/") -o demo
          if readelf -d demo | grep -q "NEEDED.*libagentmem"; then
            echo "demo links libagentmem.so, not the static library"; exit 1; fi
          ./demo >block.txt && cat block.txt && test -s block.txt' c "$tmp/demo.c"
      fi ;;
    *)
      echo "readme-check: no such block: $b (quickstart mcp python node http c)"; failed+=("$b") ;;
  esac
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "readme-check: FAILED: ${failed[*]}"
  exit 1
fi
echo "readme-check: every block ran: ${blocks[*]}$([ $static = 1 ] && echo " (and c statically)")"
