#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds build/agentmem_<version>_<arch>.deb (make deb): configures a tree of
# its own (build/deb, prefix /usr: the data folder compiled in is
# /usr/share/agentmem), builds what the package holds, installs it into a
# staging folder, computes Depends with dpkg-shlibdeps from what the
# program and the library link, and packs it with dpkg-deb.
# Usage: build-deb.sh [BUILD_DIR] (default build); $CC, $JOBS honoured.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=${1:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
tree=$build/deb
stage=$build/deb-root
version=$(sed -n 's/^#define AM_VERSION_STRING "\([0-9.]*\)".*/\1/p' include/agentmem.h)
[ -n "$version" ] || { echo "build-deb: no AM_VERSION_STRING in include/agentmem.h" >&2; exit 1; }
arch=$(dpkg --print-architecture)
out=$build/agentmem_${version}_${arch}.deb
umask 022

cmake -S . -B "$tree" -DCMAKE_C_COMPILER="${CC:-cc}" -DCMAKE_INSTALL_PREFIX=/usr \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAM_CLI_DIR="$tree" >/dev/null
cmake --build "$tree" -j "${JOBS:-$(nproc 2>/dev/null || echo 2)}" \
      --target agentmem agentmem_shared agentmem_static
rm -rf "$stage"
DESTDIR=$stage cmake --install "$tree" --strip >/dev/null
# Debian keeps manual pages compressed
gzip -9n "$stage"/usr/share/man/man1/agentmem.1

libdir=$(cd "$stage" && find usr/lib -name 'libagentmem.so.0' -printf '%h\n')
mkdir -p "$stage/DEBIAN"
# dpkg-shlibdeps reads a debian/control; it gets a throwaway one
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debian"
printf 'Source: agentmem\n\nPackage: agentmem\nArchitecture: any\n' >"$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O -l"$stage/$libdir" \
            -e"$stage/usr/bin/agentmem" -e"$stage/$libdir/libagentmem.so.$version" |
          sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@INSTALLED_SIZE@/$size/" \
    -e "s/@DEPENDS@/$depends/" packaging/deb/control.in >"$stage/DEBIAN/control"
# the library's soname for packages built against it; the loader's cache
# refreshed on install and removal
echo "libagentmem 0 agentmem (>= $version)" >"$stage/DEBIAN/shlibs"
echo "activate-noawait ldconfig" >"$stage/DEBIAN/triggers"
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
   xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >/dev/null
echo "build-deb: $out"
echo "  Depends: $depends"
