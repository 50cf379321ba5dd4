#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A webhook receiver for tests/sh/server_more.sh.

usage: webhook_receiver.py SECRET OUT PORT_FILE

Listens on a free loopback port (written to PORT_FILE), answers every POST
200 and appends one JSON line to OUT per request: the body's event, whether
its X-Agentmem-Signature verifies (HMAC-SHA256 of SECRET over the
X-Agentmem-Timestamp, a dot and the raw body, docs/EVENTS.md) and the
delivery id.  Ends on SIGTERM.
"""
import hashlib, hmac, json, signal, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

secret, out_path, port_file = sys.argv[1].encode(), sys.argv[2], sys.argv[3]

class H(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        ts = self.headers.get("X-Agentmem-Timestamp", "")
        sig = self.headers.get("X-Agentmem-Signature", "")
        want = "sha256=" + hmac.new(secret, ts.encode() + b"." + body, hashlib.sha256).hexdigest()
        try:
            event = json.loads(body)
        except ValueError:
            event = None
        with open(out_path, "a") as f:
            f.write(json.dumps({"event": event, "verified": hmac.compare_digest(sig, want),
                                "delivery": self.headers.get("X-Agentmem-Delivery")}) + "\n")
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *a):
        pass

srv = HTTPServer(("127.0.0.1", 0), H)
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
with open(port_file, "w") as f:
    f.write(str(srv.server_address[1]))
srv.serve_forever()
