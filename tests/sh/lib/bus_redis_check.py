#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What Redis holds of the bus, for tests/sh/bus.sh.

usage: bus_redis_check.py NOTES KV

NOTES: the output of `redis-cli SUBSCRIBE agentmem:bus:<DB>:events` (every
note published meanwhile); KV: "key=value" lines of every key.  Passes when
there were notes, each exactly "am1 <32 hex> <seq>", the keys are only the
webhook leases and cursors, and no note, key or value holds a user id or a
word of what the users said.
"""
import re, sys

notes = [l.strip() for l in open(sys.argv[1]) if l.startswith("am1")]
kv = [l.strip() for l in open(sys.argv[2]) if l.strip()]
bad = [l for l in notes if not re.fullmatch(r"am1 [0-9a-f]{32} [1-9][0-9]*", l)]
words = ["alice", "bob", "carol", "Carolina", "PDF", "周报", "合同", "保密", "Ally", "绿茶", "invoice"]
leak = [l for l in notes + kv if any(w in l for w in words)]
unexpected = [l for l in kv
              if not re.fullmatch(r"agentmem:hooks:[0-9a-f]{32}:(leader=[0-9a-f]{32}|seq=[0-9]+)", l)]
print("notes", len(notes), "malformed", bad, "leaks", leak, "keys", kv, "unexpected", unexpected)
sys.exit(0 if notes and not bad and not leak and not unexpected else 1)
