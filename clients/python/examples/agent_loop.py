#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A runnable agent loop over agentmem: before each turn the agent recalls
what it should know and puts the memory block in its prompt; after it,
the user's turn and the agent's answer are added as events.  The "LLM"
here echoes (no API key needed): replace fake_llm with a real call.

    python3 agent_loop.py --db memory.db --user alice            # embedded
    python3 agent_loop.py --url http://127.0.0.1:8420 --token amk_...  # server
    python3 agent_loop.py --db memory.db --user alice "your turn" ...

Without turns on the command line it plays a short Chinese and English
conversation; each turn prints the memory block it was given.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import agentmem  # noqa: E402

DEFAULT_TURNS = [
    "以后周报都按已完成、进行中、下周计划三段写",
    "帮我写这周的周报",
    "From now on, always send reports as PDF",
    "How should I send this week's report?",
]


def fake_llm(prompt):
    """Stands in for a model: answers with the turn and what it was told."""
    turn = prompt.rsplit("User: ", 1)[-1]
    memory = prompt.split("User: ", 1)[0].strip()
    lines = [ln for ln in memory.splitlines() if ln.startswith("- ")]
    return f"(echo) {turn}" + (f" [using {len(lines)} memories]" if lines else "")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", help="a running agentmem serve (HTTP)")
    ap.add_argument("--token", default=os.environ.get("AGENTMEM_TOKEN"), help="its bearer token")
    ap.add_argument("--db", help="a store file, used in-process (embedded)")
    ap.add_argument("--user", help="the user (embedded; over HTTP the token's)")
    ap.add_argument("--session", default="loop-1")
    ap.add_argument("--task", default=None, help="the task every turn belongs to")
    ap.add_argument("turns", nargs="*")
    a = ap.parse_args(argv)
    if bool(a.url) == bool(a.db):
        ap.error("give --url (HTTP) or --db with --user (embedded)")
    if a.db and not a.user:
        ap.error("--db needs --user")
    mem = agentmem.connect(a.url, token=a.token) if a.url else agentmem.open_embedded(a.db, user=a.user)
    with mem:
        for i, turn in enumerate(a.turns or DEFAULT_TURNS, 1):
            block = mem.recall(turn, session=a.session, task=a.task)["block"]
            print(f"--- turn {i} ({mem.transport})\nmemory block:\n{block.rstrip() or '(none)'}")
            answer = fake_llm(f"{block}\nUser: {turn}")
            print(f"user: {turn}\nagent: {answer}")
            mem.add(turn, session=a.session, task=a.task, source="user")
            mem.add(answer, session=a.session, task=a.task, source="agent", type="response")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except agentmem.AgentmemError as e:
        print(f"agent_loop: {e}", file=sys.stderr)
        sys.exit(1)
