#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Hostile tenants against a live `agentmem serve` (tests/sh/exhaust.sh,
scripts/hostile.sh): loopback only, every wait bounded.

  exhaust.py attack PORT VICTIM_TOKEN MALLORY_TOKEN MALLORY_TOKEN2 HEADER_TIMEOUT PER_IP
      the classes one after another while a victim probes; prints "ok: ..."
      and "FAIL: ..." lines, exits 1 on any FAIL
  exhaust.py hold PORT MALLORY_TOKEN READY SECONDS [exports=N] [streams=N]
                  [trickle=N] [flood=N]
      holds that much hostile load for SECONDS, READY written once it does

The hostile sockets that must not count against the victim's address come
from 127.0.0.2 (header tricklers) and 127.0.0.3 (the writer flood): Linux
accepts any 127/8 source on loopback, so the per-IP limit hits only them.
"""
import json
import select
import socket
import sys
import threading
import time

HOST = "127.0.0.1"
PROBE_BOUND_S = 2.0  # the victim's every request answers within this


def connect(port, src=None, rcvbuf=None, timeout=5.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    if src:
        s.bind((src, 0))
    s.settimeout(timeout)
    s.connect((HOST, port))
    return s


def request_bytes(method, path, token=None, body=None, close=True):
    head = "%s %s HTTP/1.1\r\nHost: %s\r\n" % (method, path, HOST)
    if token:
        head += "Authorization: Bearer %s\r\n" % token
    data = b""
    if body is not None:
        data = json.dumps(body, ensure_ascii=False).encode()
        head += "Content-Type: application/json\r\nContent-Length: %d\r\n" % len(data)
    if close:
        head += "Connection: close\r\n"
    return (head + "\r\n").encode() + data


def read_head(s, deadline):
    """The status and headers (lower-case names), and what came after them"""
    buf = b""
    while b"\r\n\r\n" not in buf:
        s.settimeout(max(0.05, deadline - time.time()))
        chunk = s.recv(4096)
        if not chunk:
            break
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    if not lines or len(lines[0].split()) < 2:
        return 0, {}, rest
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return int(lines[0].split()[1]), headers, rest


def dechunk(data):
    out, i = b"", 0
    while True:
        j = data.index(b"\r\n", i)
        n = int(data[i:j], 16)
        if n == 0:
            return out, True
        out += data[j + 2:j + 2 + n]
        i = j + 4 + n


def fetch(port, method, path, token=None, body=None, src=None, timeout=10.0):
    """One request on its own connection: (status, headers, body, seconds)"""
    t0 = time.time()
    s = connect(port, src, timeout=timeout)
    try:
        s.sendall(request_bytes(method, path, token, body))
        status, headers, rest = read_head(s, t0 + timeout)
        while True:
            s.settimeout(max(0.05, t0 + timeout - time.time()))
            chunk = s.recv(65536)
            if not chunk:
                break
            rest += chunk
    finally:
        s.close()
    if headers.get("transfer-encoding") == "chunked":
        try:
            rest, _ = dechunk(rest)
        except (ValueError, IndexError):
            rest = b"<cut short>"
    return status, headers, rest, time.time() - t0


class Probe(threading.Thread):
    """The victim: /healthz, a recall and its memories, in turn, every 0.2 s"""

    def __init__(self, port, token):
        super().__init__(daemon=True)
        self.port, self.token = port, token
        self.stop = threading.Event()
        self.results = []  # (what, status, seconds)

    def run(self):
        reqs = [("GET", "/healthz", None, None),
                ("POST", "/v1/recall", self.token, {"query": "预算 budget"}),
                ("GET", "/v1/memories", self.token, None)]
        i = 0
        while not self.stop.is_set():
            m, p, t, b = reqs[i % len(reqs)]
            i += 1
            t0 = time.time()
            try:
                status, _, _, secs = fetch(self.port, m, p, t, b, timeout=10.0)
            except OSError as e:
                status, secs = "error %s" % e, time.time() - t0
            self.results.append(("%s %s" % (m, p), status, secs))
            self.stop.wait(0.2)


def stalled_export(port, token):
    """GET /v1/export whose client reads the head and then nothing"""
    s = connect(port, rcvbuf=4096)
    s.sendall(request_bytes("GET", "/v1/export", token))
    status, headers, rest = read_head(s, time.time() + 10)
    return s, status, headers, rest


def open_stream(port, token):
    """GET /v1/stream: its head and first frame read, then held"""
    s = connect(port)
    s.sendall(request_bytes("GET", "/v1/stream", token, close=False))
    deadline = time.time() + 10
    status, headers, rest = read_head(s, deadline)
    while status == 200 and b"keep-alive" not in rest and time.time() < deadline:
        s.settimeout(max(0.05, deadline - time.time()))
        chunk = s.recv(4096)
        if not chunk:
            break
        rest += chunk
    return s, status, headers, rest


class Tricklers(threading.Thread):
    """n connections from src, each sending a request head one byte every
    `every` seconds and never ending it: when did the server close each?"""

    def __init__(self, port, src, n, seconds, every=0.5):
        super().__init__(daemon=True)
        self.port, self.src, self.n, self.seconds, self.every = port, src, n, seconds, every
        self.lives = []  # (connected at, closed at or None)
        self.ready = threading.Event()

    def run(self):
        socks = {}
        for _ in range(self.n):
            try:
                s = connect(self.port, self.src, timeout=2)
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ")
                s.setblocking(False)
                socks[s] = [time.time(), None]
            except OSError:
                self.lives.append((time.time(), time.time()))
        self.ready.set()
        end = time.time() + self.seconds
        last = 0.0
        while time.time() < end and any(v[1] is None for v in socks.values()):
            live = [s for s, v in socks.items() if v[1] is None]
            r, _, _ = select.select(live, [], [], 0.05)
            now = time.time()
            for s in r:
                try:
                    if not s.recv(4096):
                        socks[s][1] = now
                except OSError:
                    socks[s][1] = now
            if now - last >= self.every:
                last = now
                for s in live:
                    if socks[s][1] is None:
                        try:
                            s.send(b"a")
                        except OSError:
                            socks[s][1] = now
        for s, v in socks.items():
            self.lives.append((v[0], v[1]))
            s.close()


class Flood(threading.Thread):
    """One writer's connection from src posting events for `seconds`"""

    def __init__(self, port, token, src, seconds, tag):
        super().__init__(daemon=True)
        self.port, self.token, self.src, self.seconds, self.tag = port, token, src, seconds, tag
        self.statuses = []

    def run(self):
        end = time.time() + self.seconds
        i = 0
        while time.time() < end:
            i += 1
            try:
                status, _, _, _ = fetch(self.port, "POST", "/v1/events", self.token,
                                        {"text": "flood %s %d: 我们开会讨论预算 meeting" % (self.tag, i)},
                                        src=self.src, timeout=15)
            except OSError:
                status = 0
            self.statuses.append(status)


failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures.append(what)


def refusal_ok(status, headers, body, want_status, want_code, what):
    try:
        code = json.loads(body)["error"]["code"]
        msg = json.loads(body)["error"]["message"]
    except (ValueError, KeyError, TypeError):
        code, msg = None, ""
    check(status == want_status and code == want_code and headers.get("retry-after", "").isdigit()
          and msg, "%s: %s %s with Retry-After (got %s %s, Retry-After %s: %s)"
          % (what, want_status, want_code, status, code, headers.get("retry-after"), msg))


def attack(port, victim, mallory, mallory2, header_timeout, per_ip):
    probe = Probe(port, victim)
    probe.start()
    held = []

    # stalled exports: the tenant's cap, and the rest refused, not queued
    got = []
    for _ in range(12):
        s, status, headers, body = stalled_export(port, mallory)
        got.append(status)
        if status == 200:
            held.append(s)
            continue
        try:
            while len(body) < int(headers.get("content-length", "0")):
                s.settimeout(5)
                chunk = s.recv(65536)
                if not chunk:
                    break
                body += chunk
        except (OSError, ValueError):
            pass
        s.close()
        if got.count(429) == 1:
            refusal_ok(status, headers, body, 429, "too_many_requests", "an export past the user's cap")
    check(got.count(200) == 2 and got.count(429) == 10,
          "12 stalled exports of one user: 2 run, 10 refused 429 (got %s)" % got)
    st, hd, body, _ = fetch(port, "GET", "/v1/export", mallory2)
    refusal_ok(st, hd, body, 429, "too_many_requests", "an export by the same user's other token")
    st, hd, body, secs = fetch(port, "GET", "/v1/export", victim, timeout=20)
    check(st == 200 and body.rstrip().endswith(b"}"),
          "the victim's export while the hostile ones stall: %s in %.2f s" % (st, secs))

    # streams: the tenant's cap; the victim still gets one
    got = []
    for _ in range(6):
        s, status, headers, rest = open_stream(port, mallory)
        got.append(status)
        if status == 200:
            held.append(s)
        else:
            s.close()
    check(got.count(200) == 4 and got.count(429) == 2,
          "6 streams of one token: 4 open, 2 refused 429 (got %s)" % got)
    st, hd, body, _ = fetch(port, "GET", "/v1/stream", mallory2, timeout=5)
    refusal_ok(st, hd, body, 429, "too_many_requests", "a stream by the same user's other token")
    s, status, _, rest = open_stream(port, victim)
    check(status == 200 and b"keep-alive" in rest, "the victim's stream opens (%s)" % status)
    held.append(s)

    # idle connections trickling their heads from another address, and a
    # writer flood from a third, at once
    trick = Tricklers(port, "127.0.0.2", 200, header_timeout + 4)
    floods = [Flood(port, mallory, "127.0.0.3", 4, str(i)) for i in range(24)]
    trick.start()
    trick.ready.wait(20)
    for f in floods:
        f.start()
    for f in floods:
        f.join(30)
    trick.join(header_timeout + 20)
    lives = trick.lives
    refused = [l for l in lives if l[1] is not None and l[1] - l[0] < 1.0]
    accepted = [l for l in lives if l not in refused]
    late = [l for l in accepted if l[1] is None or l[1] - l[0] > header_timeout + 2.5]
    check(len(lives) == 200 and len(accepted) <= per_ip and len(refused) >= 200 - per_ip,
          "200 trickling connections from one address: at most %d kept (%d kept, %d refused)"
          % (per_ip, len(accepted), len(refused)))
    check(accepted and not late,
          "every trickling connection kept was closed within its header deadline (%d s + 2.5):"
          " %d late, longest %.1f s" % (header_timeout, len(late),
                                        max((l[1] or time.time()) - l[0] for l in accepted)
                                        if accepted else 0))
    statuses = [st for f in floods for st in f.statuses]
    # 0: the connection closed at accept (the flood's own address at its
    # per-IP limit, its closed connections not yet reaped by the server)
    check(statuses and all(st in (0, 200, 429, 503) for st in statuses) and statuses.count(200) > 0,
          "the writer flood: %d writes, %d answered 200, the rest 429/503 or refused at accept (%s)"
          % (len(statuses), statuses.count(200), sorted(set(statuses))))

    # the stalled exports time out and give their slots back; closed
    # streams give theirs back
    for s in held:
        s.close()
    ok = False
    deadline = time.time() + 15
    while time.time() < deadline and not ok:
        st, _, body, _ = fetch(port, "GET", "/v1/export", mallory, timeout=30)
        ok = st == 200 and json.loads(body).get("format") == "agentmem-export"
        if not ok:
            time.sleep(0.5)
    check(ok, "after the stalled exports are dropped, the same user exports again, whole")
    ok = False
    deadline = time.time() + 10
    streams = []
    while time.time() < deadline and len(streams) < 4:
        s, status, _, _ = open_stream(port, mallory)
        if status == 200:
            streams.append(s)
        else:
            s.close()
            time.sleep(0.3)
    check(len(streams) == 4, "closed streams give their slots back (%d of 4 again)" % len(streams))
    for s in streams:
        s.close()

    probe.stop.set()
    probe.join(15)
    res = probe.results
    bad = [r for r in res if r[1] != 200 or r[2] > PROBE_BOUND_S]
    check(len(res) >= 20 and not bad,
          "the victim's %d probes all answered 200 within %.0f s (slowest %.2f s)%s"
          % (len(res), PROBE_BOUND_S, max(r[2] for r in res) if res else 0,
             "; bad: %s" % bad[:5] if bad else ""))
    return 1 if failures else 0


def hold(port, mallory, ready, seconds, opts):
    held = []
    for _ in range(opts.get("exports", 0)):
        s, status, _, _ = stalled_export(port, mallory)
        held.append(s)
    for _ in range(opts.get("streams", 0)):
        s, status, _, _ = open_stream(port, mallory)
        held.append(s)
    threads = []
    if opts.get("trickle"):
        t = Tricklers(port, "127.0.0.2", opts["trickle"], seconds, every=0.3)
        t.start()
        t.ready.wait(20)
        threads.append(t)
    for i in range(opts.get("flood", 0)):
        f = Flood(port, mallory, "127.0.0.3", seconds, "h%d" % i)
        f.start()
        threads.append(f)
    with open(ready, "w") as f:
        f.write("ready\n")
    time.sleep(seconds)
    for s in held:
        s.close()
    return 0


def forget_cut(port, token):
    """An export whose client stalls, then its user forgotten: the export
    ends at once (cut short: no final chunk), not at the idle timeout"""
    s, status, headers, rest = stalled_export(port, token)
    check(status == 200, "forget_cut: the export began (HTTP %s)" % status)
    time.sleep(0.5)
    st, _, body, _ = fetch(port, "POST", "/v1/forget", token, {"level": "user"})
    check(st == 200, "forget_cut: the user forgotten (HTTP %s %s)" % (st, body[:200]))
    t0, data = time.time(), rest
    s.settimeout(1.0)
    try:
        while time.time() - t0 < 10:
            try:
                chunk = s.recv(1 << 20)
            except socket.timeout:
                continue
            if not chunk:
                break
            data += chunk
    except OSError:
        pass  # a reset: ended too
    secs = time.time() - t0
    s.close()
    check(secs < 5, "forget_cut: the export ended %.1f s after the forget (bound 5 s)" % secs)
    check(not data.endswith(b"0\r\n\r\n"), "forget_cut: the export was cut short, not finished")
    st, _, _, _ = fetch(port, "GET", "/v1/export", token)
    check(st in (401, 404, 409), "forget_cut: no export of the forgotten user (HTTP %s)" % st)
    return 0


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "forget_cut":
        return forget_cut(int(sys.argv[2]), sys.argv[3])
    if len(sys.argv) >= 8 and sys.argv[1] == "attack":
        try:
            return attack(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5],
                          int(sys.argv[6]), int(sys.argv[7]))
        except OSError as e:  # a request of the attack not answered in time
            check(False, "the attack stopped: the server did not answer in time (%s)" % e)
            return 1
    if len(sys.argv) >= 6 and sys.argv[1] == "hold":
        opts = dict((k, int(v)) for k, v in (a.split("=") for a in sys.argv[6:]))
        return hold(int(sys.argv[2]), sys.argv[3], sys.argv[4], float(sys.argv[5]), opts)
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
