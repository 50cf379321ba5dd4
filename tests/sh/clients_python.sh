#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Python client (clients/python) against a live server and the
# embedded library: clients/python/tests (every method in Chinese and
# English over both transports, named field errors, 401, the 403 fuse and
# isolation, the same conversation giving the same shapes over HTTP and
# embedded, the example agent loop on both).  $1 = the agentmem CLI;
# the shared library from $AGENTMEM_LIB (CMake sets it) or next to the build.
# No python3 is a failure (install-deps installs it).  In sanitizer builds
# the library needs the ASan runtime first in the process: it is preloaded;
# if the library still cannot be loaded into python the test is skipped (77).
set -u
CLI=${1:?usage: clients_python.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/clients_server.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v python3 >/dev/null; then echo "FAIL: python3 is missing (scripts/install-deps.sh)"; exit 1; fi
lib=${AGENTMEM_LIB:-}
[ -n "$lib" ] || for c in "$(dirname "$CLI")/cmake/libagentmem.so" "$(dirname "$CLI")/libagentmem.so" \
                        "$root/build/cmake/libagentmem.so"; do [ -f "$c" ] && { lib=$c; break; }; done
if [ ! -f "$lib" ]; then echo "FAIL: libagentmem.so not found (set AGENTMEM_LIB)"; exit 1; fi
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
export AGENTMEM_LIB=$lib
py_env=()
if [ "${AM_SANITIZED_BUILD:-0}" = 1 ]; then
  rt=$(clang -print-file-name=libclang_rt.asan-x86_64.so 2>/dev/null)
  [ -f "$rt" ] && py_env=(env "LD_PRELOAD=$rt" "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0")
  if ! "${py_env[@]}" python3 -c 'import ctypes,sys; ctypes.CDLL(sys.argv[1])' "$lib" 2>"$dir/load.err"; then
    echo "SKIP: the sanitizer build's library cannot be loaded into python3"; cat "$dir/load.err"; exit 77
  fi
fi
start_client_server
cd "$root/clients/python" || exit 1
if "${py_env[@]}" python3 -m unittest discover -s tests -v >"$dir/py.out" 2>&1; then
  passed=$((passed+1))
else
  echo "FAIL: python client tests"; cat "$dir/py.out"; failed=$((failed+1))
fi
grep -E "^Ran [0-9]+ tests" "$dir/py.out"
if grep -q "skipped" "$dir/py.out"; then echo "FAIL: a python test was skipped"; failed=$((failed+1)); fi
stop_server
[ "$srv_rc" = 0 ] && passed=$((passed+1)) || { echo "FAIL: server exit $srv_rc"; cat "$dir/srv.err"; failed=$((failed+1)); }
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
