#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CI: the package and the README's starts, on this machine.  Runs the
# README's install block verbatim (install-deps, fetch-model, make deb,
# apt-get install ./build/agentmem_*.deb), then scripts/readme-check.sh
# --static: every marked block of the README against the installed package
# (the quick start, the MCP host configuration driven as a host would, the
# Python venv + pip install, Node, HTTP, and the C example built with
# pkg-config, dynamically and statically).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 scripts/readme_check.py extract install README.md >"$tmp/install.sh"
# CI runs as root, where sudo may not be installed: the block's sudo runs
# the command itself
if [ "$(id -u)" = 0 ] && ! command -v sudo >/dev/null; then
  sudo() { "$@"; }
  export -f sudo
fi
# a package of the same version left by an earlier run would not be replaced
if dpkg-query -W -f='${Status}' agentmem 2>/dev/null | grep -q "install ok installed"; then
  echo "ci-install: removing the agentmem package already installed"
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get remove -y -qq agentmem
fi
echo "== the README's install block =="
bash -e "$tmp/install.sh"
echo "== the README's blocks against the installed package =="
bash scripts/readme-check.sh --static
