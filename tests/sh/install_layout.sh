#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make install's layout: `cmake --install` of this build into a staging
# root (DESTDIR) holds the CLI, libagentmem.so.0.X.Y with its soname and
# links, libagentmem.a, the headers, agentmem.pc, the man page, the example
# packs, LICENSE/NOTICE/README and the systemd unit (with the prefix's
# agentmem); a program using the README's C example builds from the staged
# tree with pkg-config, dynamically and (--static) against libagentmem.a,
# and prints a memory block.  $1 = the agentmem CLI; $AM_BUILD_DIR = the
# CMake build tree (CMake sets it).
set -u
CLI=${1:?usage: install_layout.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${AM_BUILD_DIR:?AM_BUILD_DIR: the CMake build tree}
stage=$dir/stage
expect_rc 0 "cmake --install into DESTDIR" env DESTDIR="$stage" cmake --install "$build"
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
version=$("$CLI" --version | awk '{print $2}')
p=$stage$prefix
libdir=$(dirname "$(find "$p" -name libagentmem.so.0 | head -n 1)")
[ -n "$libdir" ] && [ "$libdir" != . ] || { echo "FAIL: no libagentmem.so.0 under $p"; find "$stage"; exit 1; }
check() { # description test-args...
  local what=$1; shift
  if test "$@"; then passed=$((passed+1)); else echo "FAIL: $what"; failed=$((failed+1)); fi
}
check "bin/agentmem" -x "$p/bin/agentmem"
check "libagentmem.so.$version" -f "$libdir/libagentmem.so.$version"
check "libagentmem.so.0 -> .so.$version" "$(readlink "$libdir/libagentmem.so.0")" = "libagentmem.so.$version"
check "libagentmem.so -> .so.0" "$(readlink "$libdir/libagentmem.so")" = "libagentmem.so.0"
check "libagentmem.a" -f "$libdir/libagentmem.a"
check "include/agentmem.h" -f "$p/include/agentmem.h"
check "include/agentmem_knobs.h" -f "$p/include/agentmem_knobs.h"
check "include/agentmem_ops.h" -f "$p/include/agentmem_ops.h"
check "agentmem.pc" -f "$libdir/pkgconfig/agentmem.pc"
check "man page" -f "$p/share/man/man1/agentmem.1"
check "example packs" -f "$p/share/agentmem/packs/examples/sales_en.json"
for f in LICENSE NOTICE README.md examples/agentmem.service; do
  check "share/doc/agentmem/$f" -f "$p/share/doc/agentmem/$f"
done
if [ -f "$root/models/use-lite/model.json" ]; then
  check "the encoder's model.json" -f "$p/share/agentmem/models/use-lite/model.json"
  check "the encoder's vocab.json" -f "$p/share/agentmem/models/use-lite/vocab.json"
fi
expect_rc 0 "readelf the shared library" readelf -d "$libdir/libagentmem.so.$version"
expect_out "Library soname: \[libagentmem.so.0\]" "the soname is libagentmem.so.0"
expect_rc 0 "the unit" cat "$p/share/doc/agentmem/examples/agentmem.service"
expect_out "^ExecStart=$prefix/bin/agentmem --db /var/lib/agentmem/agentmem.db serve" "the unit runs the prefix's agentmem"
expect_out "^StateDirectory=agentmem" "the unit's state folder"
expect_out "^User=agentmem" "the unit's own user"
if command -v man >/dev/null; then
  expect_rc 0 "the man page renders" env MANWIDTH=80 man -l "$p/share/man/man1/agentmem.1"
  expect_out "long-term memory engine" "the man page's NAME"
fi

# the README's C example, built from the staged tree
python3 "$root/scripts/readme_check.py" extract c "$root/README.md" >"$dir/demo.c" ||
  { echo "FAIL: README.md has no C block"; exit 1; }
# a sanitizer build's library needs its runtime in the program
cc=(cc)
[ "${AM_SANITIZED_BUILD:-0}" = 1 ] && cc=(clang -fsanitize=address,undefined)
export PKG_CONFIG_PATH=$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
cd "$dir" || exit 1
expect_rc 0 "pkg-config --modversion" pkg-config --modversion agentmem
expect_out "^$version\$" "agentmem.pc's version is the CLI's"
expect_rc 0 "pkg-config --static --libs" pkg-config --static --libs agentmem
expect_out "-lsqlite3" "Libs.private has the library's dependencies"
# shellcheck disable=SC2046
expect_rc 0 "cc demo.c \$(pkg-config --cflags --libs agentmem)" \
  "${cc[@]}" demo.c $(pkg-config --cflags --libs agentmem) -o demo-shared
expect_rc 0 "the dynamic demo runs" env LD_LIBRARY_PATH="$libdir" ./demo-shared
expect_out "以后周报都用表格" "it recalls what it added"
expect_rc 0 "ldd demo-shared" env LD_LIBRARY_PATH="$libdir" ldd ./demo-shared
expect_out "libagentmem.so.0 => $libdir/" "it loads the staged libagentmem.so.0"
rm -f demo.db
# the operator's header, staged: a token made and verified through the shared library
cat >ops.c <<'EOF'
#include <stdio.h>
#include <agentmem_ops.h>
int main(void)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = ":memory:";
    am_db *db = NULL;
    char *tok = NULL;
    am_token_spec spec = {.user_id = "alice"};
    am_token_info info;
    if (am_open(&cfg, &db, NULL) || am_token_create(db, &spec, &tok, NULL) ||
        am_token_verify(db, tok, &info)) return 1;
    printf("token of %s\n", info.user_id);
    am_free(tok);
    am_close(db);
    return 0;
}
EOF
# shellcheck disable=SC2046
expect_rc 0 "cc ops.c (agentmem_ops.h) \$(pkg-config --cflags --libs agentmem)" \
  "${cc[@]}" ops.c $(pkg-config --cflags --libs agentmem) -o ops-shared
expect_rc 0 "the operator's demo runs" env LD_LIBRARY_PATH="$libdir" ./ops-shared
expect_out "token of alice" "it verifies the token it made"
# shellcheck disable=SC2046
expect_rc 0 "cc demo.c against libagentmem.a (pkg-config --static)" \
  "${cc[@]}" demo.c $(pkg-config --cflags agentmem) \
  $(pkg-config --static --libs agentmem | sed 's/-lagentmem\b/-l:libagentmem.a/') -o demo-static
expect_rc 0 "readelf demo-static" readelf -d demo-static
if grep -q "libagentmem" "$dir/out"; then echo "FAIL: demo-static needs libagentmem.so"; failed=$((failed+1)); else passed=$((passed+1)); fi
expect_rc 0 "the static demo runs" ./demo-static
expect_out "以后周报都用表格" "it recalls what it added"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
