#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A small OpenAI-compatible chat completions server for the LLM pass's tests.

    fake_llm.py MODE LOGFILE [SCRIPT]

Listens on 127.0.0.1, port 0, and prints "port N" on its first line.  Every
request body it gets is appended to LOGFILE (one JSON line), so a test can
assert what was (never) sent.  MODE:
  good       answers the memories of SCRIPT (a JSON file: a list of
             {"match": TEXT, "memories": [...]}: the memories of every entry
             whose TEXT occurs in the request, citing the ids of the events
             whose text holds it), with usage.total_tokens 100
  malformed  content that is not JSON
  slow       sleeps FAKE_LLM_DELAY seconds (default 5) before a good answer
  429        429 with Retry-After: 1 on the first request, then good
  500        500 on the first request, then good
  refusal    a refusal field, content null
"""
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE, LOG = sys.argv[1], sys.argv[2]
SCRIPT = json.load(open(sys.argv[3], encoding="utf-8")) if len(sys.argv) > 3 else []
COUNT = [0]


def answer(req):
    events = json.loads(req["messages"][1]["content"])["events"]
    memories = []
    for entry in SCRIPT:
        ids = [e["id"] for e in events if entry["match"] in e["text"]]
        if ids:
            for m in entry["memories"]:
                m = dict(m)
                m.setdefault("source_event_ids", ids)
                memories.append(m)
    return json.dumps({"memories": memories}, ensure_ascii=False)


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def reply(self, status, obj, headers=()):
        body = json.dumps(obj, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(LOG, "ab") as f:
            f.write(raw + b"\n")
        COUNT[0] += 1
        n = COUNT[0]
        if not self.path.endswith("/chat/completions"):
            return self.reply(404, {"error": {"message": "no such route"}})
        req = json.loads(raw)
        msg = {"role": "assistant", "content": None}
        if MODE == "429" and n == 1:
            return self.reply(429, {"error": {"message": "slow down"}}, [("Retry-After", "1")])
        if MODE == "500" and n == 1:
            return self.reply(500, {"error": {"message": "boom"}})
        if MODE == "slow":
            time.sleep(float(os.environ.get("FAKE_LLM_DELAY", "5")))
        if MODE == "malformed":
            msg["content"] = "Sure! Here are the memories: memories = [kind: preference"
        elif MODE == "refusal":
            msg["refusal"] = "I can't help with that."
        else:
            msg["content"] = answer(req)
        self.reply(200, {"id": "x", "object": "chat.completion", "model": req.get("model"),
                         "choices": [{"index": 0, "message": msg, "finish_reason": "stop"}],
                         "usage": {"prompt_tokens": 80, "completion_tokens": 20,
                                   "total_tokens": 100}})


srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("port", srv.server_address[1], flush=True)
srv.serve_forever()
