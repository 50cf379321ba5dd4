#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The shared library exports exactly the public API: every function the
# public headers (include/*.h) declare, marked AM_API, and nothing else --
# no am__* or other internal symbol.  Every function the Python client
# loads (clients/python/agentmem/embedded.py) is among them.
# $1 = the agentmem CLI (unused); the library from $AGENTMEM_LIB (CMake
# sets it) or build/cmake/libagentmem.so.  Run from the repository root.
set -u
. "$(dirname "$0")/lib/expect.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
lib=${AGENTMEM_LIB:-$root/build/cmake/libagentmem.so}
[ -f "$lib" ] || { echo "FAIL: $lib not found (set AGENTMEM_LIB)"; exit 1; }
command -v nm >/dev/null || { echo "FAIL: nm is missing (binutils)"; exit 1; }

# What the library defines for the dynamic linker.  Sanitizer builds add
# their own instrumentation symbols (__asan_*, __odr_asan_*, __ubsan_*):
# not ours, left out.
nm -D --defined-only "$lib" | awk '{print $NF}' | grep -Ev '^(__asan|__odr_asan|__ubsan|__sancov)' |
  sort -u >"$dir/exported"
# What the public headers declare: a function declaration starts at the
# left margin; each must carry AM_API.
grep -hE '^[A-Za-z].*\bam_[a-z0-9_]+ *\(' "$root"/include/*.h | grep -v '^typedef' >"$dir/decl_lines"
grep -v '^AM_API ' "$dir/decl_lines" >"$dir/unmarked"
if [ -s "$dir/unmarked" ]; then
  echo "FAIL: $(wc -l <"$dir/unmarked") public declarations without AM_API, e.g.:"; head -n 10 "$dir/unmarked"; failed=$((failed+1))
else passed=$((passed+1)); fi
sed -E 's/^([^(]*[^a-z0-9_])?(am_[a-z0-9_]+) *\(.*/\2/' "$dir/decl_lines" | sort -u >"$dir/declared"
[ "$(wc -l <"$dir/declared")" -ge 50 ] || { echo "FAIL: only $(wc -l <"$dir/declared") declarations found"; exit 1; }

comm -23 "$dir/exported" "$dir/declared" >"$dir/extra"
if [ -s "$dir/extra" ]; then
  echo "FAIL: $(wc -l <"$dir/extra") exported symbols are not public API, e.g.:"; head -n 10 "$dir/extra"
  failed=$((failed+1))
else passed=$((passed+1)); fi
if grep -E '^am__' "$dir/exported" >"$dir/internal"; then
  echo "FAIL: $(wc -l <"$dir/internal") internal am__* symbols exported, e.g.:"; head -n 5 "$dir/internal"
  failed=$((failed+1))
else passed=$((passed+1)); fi
if grep -Ev '^am_[a-z0-9]' "$dir/exported" >"$dir/foreign"; then
  echo "FAIL: $(wc -l <"$dir/foreign") exported symbols outside am_[a-z0-9]* (am__* is internal), e.g.:"; head -n 5 "$dir/foreign"
  failed=$((failed+1))
else passed=$((passed+1)); fi
comm -13 "$dir/exported" "$dir/declared" >"$dir/missing"
if [ -s "$dir/missing" ]; then
  echo "FAIL: declared in include/ but not exported:"; cat "$dir/missing"; failed=$((failed+1))
else passed=$((passed+1)); fi

# The Python client's ctypes table: "am_name": (restype, [argtypes]).
grep -oE '^ +"am_[a-z0-9_]+": \(' "$root/clients/python/agentmem/embedded.py" |
  grep -oE 'am_[a-z0-9_]+' | sort -u >"$dir/python"
[ -s "$dir/python" ] || { echo "FAIL: no am_* function found in embedded.py"; exit 1; }
comm -23 "$dir/python" "$dir/exported" >"$dir/py_missing"
if [ -s "$dir/py_missing" ]; then
  echo "FAIL: the Python client loads functions the library does not export:"; cat "$dir/py_missing"
  failed=$((failed+1))
else passed=$((passed+1)); fi

echo "exports: $(wc -l <"$dir/exported") exported, $(wc -l <"$dir/declared") declared;" \
     "$passed passed, $failed failed"
[ "$failed" = 0 ]
