#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An SSE reader for tests/sh/bus.sh.

usage: sse_tail.py URL TOKEN OUT

GETs URL (a /v1/stream) with the bearer TOKEN and appends one JSON line to
OUT per event frame, as it arrives: {"t": <unix ms when read>, "id": <seq>,
"event": <type>, "data": <the data JSON>}.  Keep-alive comments are not
written.  Ends on SIGTERM or when the stream ends.
"""
import json, signal, sys, time, urllib.request

url, token, out_path = sys.argv[1], sys.argv[2], sys.argv[3]
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
rq = urllib.request.Request(url, headers={"Authorization": "Bearer " + token})
frame = {}
with urllib.request.urlopen(rq, timeout=600) as r, open(out_path, "a") as out:
    for raw in r:
        line = raw.decode("utf-8").rstrip("\n")
        if line == "":
            if "id" in frame:
                frame["t"] = int(time.time() * 1000)
                out.write(json.dumps(frame, ensure_ascii=False) + "\n")
                out.flush()
            frame = {}
        elif line.startswith("id: "):
            frame["id"] = int(line[4:])
        elif line.startswith("event: "):
            frame["event"] = line[7:]
        elif line.startswith("data: "):
            frame["data"] = json.loads(line[6:])
