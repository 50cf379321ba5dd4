#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/load.sh while a hostile tenant holds its most of long-lived work
# (2 stalled exports, 4 event streams: docs/SERVER.md "Limits"): the other
# tenants' p99 should be what scripts/load.sh shows without it.
#   scripts/hostile.sh [SECONDS (30)] [USERS (20)] [THREADS (4)] [WRITES (0.5)] [RATE (0)]
HOSTILE=1 exec "$(dirname "$0")/load.sh" "$@"
