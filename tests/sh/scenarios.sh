#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Replays every scenario file under tests/scenarios (Chinese and English):
# the engine's specified behaviour.  $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: scenarios.sh AGENTMEM}
cd "$(dirname "$0")/../.."
"$CLI" scenario run tests/scenarios/*.jsonl
