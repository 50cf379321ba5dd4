#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Python client as a package: `pip install ./clients/python` into a
# fresh venv of Debian's python3 (python3-venv; --no-index: no network, the
# in-tree build backend needs nothing), then, from outside the checkout,
# the installed package (its version the CLI's) adds and recalls in Chinese
# and English in embedded mode through the library found (1) by
# $AGENTMEM_LIB and (2) by the dynamic loader (libagentmem.so.0 on
# LD_LIBRARY_PATH, no AGENTMEM_LIB).  $1 = the agentmem CLI; the library
# from $AGENTMEM_LIB (CMake sets it).  77 when python3-venv is missing or,
# in sanitizer builds, the library cannot be loaded into python.
set -u
CLI=${1:?usage: python_package.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
lib=${AGENTMEM_LIB:?AGENTMEM_LIB: the shared library of this build}
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
libdir=$(dirname "$lib")
[ -e "$libdir/libagentmem.so.0" ] || { echo "FAIL: no libagentmem.so.0 beside $lib"; exit 1; }
if ! /usr/bin/python3 -m venv "$dir/venv" >"$dir/venv.err" 2>&1; then
  echo "SKIP: /usr/bin/python3 -m venv does not work (python3-venv missing?)"; cat "$dir/venv.err"; exit 77
fi
py_env=()
if [ "${AM_SANITIZED_BUILD:-0}" = 1 ]; then
  rt=$(clang -print-file-name=libclang_rt.asan-x86_64.so 2>/dev/null)
  [ -f "$rt" ] && py_env=("LD_PRELOAD=$rt" "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0")
  if ! env "${py_env[@]}" "$dir/venv/bin/python" -c 'import ctypes,sys; ctypes.CDLL(sys.argv[1])' "$lib" \
       2>"$dir/load.err"; then
    echo "SKIP: the sanitizer build's library cannot be loaded into python3"; cat "$dir/load.err"; exit 77
  fi
fi

expect_rc 0 "pip install --no-index ./clients/python" \
  "$dir/venv/bin/pip" install --no-index --no-cache-dir "$root/clients/python"
expect_out "Successfully installed agentmem-" "pip names the package it installed"

cat >"$dir/probe.py" <<'PY'
import os, sys
import agentmem
venv = sys.argv[1]
assert agentmem.__file__.startswith(venv), "imported from %s, not the venv" % agentmem.__file__
print("version", agentmem.__version__)
mem = agentmem.open_embedded(os.path.join(sys.argv[2], "store.db"), user="alice")
mem.add("以后周报都用表格，别用长段落", session="s1")
mem.add("From now on, keep replies short.", session="s1")
zh = mem.recall("帮我写这周的周报")["block"]
en = mem.recall("Write a reply to Bob")["block"]
assert "表格" in zh, zh
assert "short" in en, en
maps = open("/proc/self/maps").read()
print("loaded", sorted({l.split()[-1] for l in maps.splitlines() if "libagentmem" in l}))
PY
version=$("$CLI" --version | awk '{print $2}')
cd "$dir" || exit 1
# (1) $AGENTMEM_LIB
mkdir -p "$dir/a"
expect_rc 0 "embedded add + recall through \$AGENTMEM_LIB" \
  env -u PYTHONPATH -u LD_LIBRARY_PATH "${py_env[@]}" AGENTMEM_LIB="$lib" \
  "$dir/venv/bin/python" "$dir/probe.py" "$dir/venv" "$dir/a"
expect_out "version $version" "the package's version is the CLI's ($version)"
expect_out "loaded \['$libdir/" "the library loaded is this build's"
# (2) the dynamic loader: libagentmem.so.0 on LD_LIBRARY_PATH, nothing else
mkdir -p "$dir/b"
expect_rc 0 "embedded add + recall through the loader (LD_LIBRARY_PATH, no AGENTMEM_LIB)" \
  env -u PYTHONPATH -u AGENTMEM_LIB "${py_env[@]}" LD_LIBRARY_PATH="$libdir" \
  "$dir/venv/bin/python" "$dir/probe.py" "$dir/venv" "$dir/b"
expect_out "loaded \['$libdir/libagentmem.so" "the loader found this build's libagentmem.so.0"
# a library that is not there: an error naming it, not a crash
expect_rc 1 "a missing \$AGENTMEM_LIB is an error" env "${py_env[@]}" AGENTMEM_LIB="$dir/nowhere.so" \
  "$dir/venv/bin/python" -c 'import agentmem, sys
try:
    agentmem.open_embedded(sys.argv[1], user="alice")
except agentmem.AgentmemError as e:
    print(e); sys.exit(1)' "$dir/c.db"
expect_out "nowhere.so" "the error names the library it could not load"
expect_rc 0 "pip uninstall" "$dir/venv/bin/pip" uninstall -y agentmem
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
