#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Python half of scripts/readme-check.sh (standard library only).

  readme_check.py extract NAME README.md
      prints the fenced code block that follows the line `<!-- NAME -->`
      (exit 1, saying so, when the marker or its block is missing)
  readme_check.py mcp CONFIG.json
      drives the MCP server the host configuration names as a host would:
      spawns mcpServers.<first>.command with its args, then over stdio
      (one JSON-RPC message a line) initialize, notifications/initialized,
      tools/list, tools/call remember and tools/call recall, checking each
      reply; exit 1 naming the step that failed
"""

import json
import os
import re
import select
import subprocess
import sys

TIMEOUT = 30  # seconds for each reply of the MCP server


def extract(name, readme):
    with open(readme, encoding="utf-8") as f:
        lines = f.read().split("\n")
    marker = "<!-- %s -->" % name
    starts = [i for i, line in enumerate(lines) if line.strip() == marker]
    if not starts:
        sys.exit("readme-check: %s has no %s marker" % (readme, marker))
    if len(starts) > 1:
        sys.exit("readme-check: %s has %s %d times" % (readme, marker, len(starts)))
    i = starts[0] + 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    fence = re.match(r"^(`{3,}|~{3,})", lines[i]) if i < len(lines) else None
    if not fence:
        sys.exit("readme-check: %s: %s is not followed by a fenced code block" % (readme, marker))
    body = []
    for line in lines[i + 1:]:
        if line.startswith(fence.group(1)) and not line[len(fence.group(1)):].strip():
            sys.stdout.write("\n".join(body) + "\n")
            return
        body.append(line)
    sys.exit("readme-check: %s: the block after %s is not closed" % (readme, marker))


class Session:
    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=sys.stderr)
        self.next_id = 0

    def send(self, msg):
        self.proc.stdin.write((json.dumps(msg, ensure_ascii=False) + "\n").encode("utf-8"))
        self.proc.stdin.flush()

    def request(self, step, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            ready, _, _ = select.select([self.proc.stdout], [], [], TIMEOUT)
            if not ready:
                fail(step, "no reply to %s within %d s" % (method, TIMEOUT))
            line = self.proc.stdout.readline()
            if not line:
                fail(step, "the server closed its output (exit %s)" % self.proc.poll())
            msg = json.loads(line)
            if msg.get("id") != self.next_id:
                continue  # a notification or a log message of the server
            if "error" in msg:
                fail(step, "%s answered an error: %s" % (method, json.dumps(msg["error"])))
            return msg["result"]

    def close(self):
        self.proc.stdin.close()
        try:
            return self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return "killed after %d s" % TIMEOUT


def fail(step, why):
    sys.exit("readme-check: mcp: %s: %s" % (step, why))


def tool_text(result):
    return "".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")


def mcp(config_path):
    with open(config_path, encoding="utf-8") as f:
        config = json.load(f)
    servers = config.get("mcpServers")
    if not isinstance(servers, dict) or not servers:
        fail("config", "no mcpServers object")
    name, server = next(iter(servers.items()))
    argv = [server["command"]] + list(server.get("args", []))
    env_extra = server.get("env") or {}
    os.environ.update(env_extra)
    print("readme-check: mcp: spawning %s (%s)" % (" ".join(argv), name))
    s = Session(argv)
    init = s.request("initialize", "initialize", {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "readme-check", "version": "1.0"}})
    if "tools" not in init.get("capabilities", {}):
        fail("initialize", "no tools capability: %s" % json.dumps(init))
    s.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    tools = {t["name"] for t in s.request("tools/list", "tools/list", {}).get("tools", [])}
    for needed in ("remember", "recall"):
        if needed not in tools:
            fail("tools/list", "no %s tool among %s" % (needed, sorted(tools)))
    said = "以后周报都用表格，别用长段落"
    r = s.request("remember", "tools/call",
                  {"name": "remember", "arguments": {"text": said}})
    if r.get("isError"):
        fail("remember", tool_text(r))
    r = s.request("recall", "tools/call",
                  {"name": "recall", "arguments": {"query": "帮我写这周的周报"}})
    if r.get("isError") or said not in tool_text(r):
        fail("recall", "the block does not hold what was remembered: %s" % tool_text(r))
    rc = s.close()
    if rc != 0:
        fail("exit", "the server exited with %s at the end of its input" % rc)
    print("readme-check: mcp: initialize, tools/list, remember, recall: ok")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "extract":
        extract(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "mcp":
        mcp(sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
