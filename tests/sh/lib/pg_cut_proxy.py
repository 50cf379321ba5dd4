#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A TCP proxy in front of PostgreSQL that cuts one COMMIT's answer off
(tests/sh/pg_faults.sh; not a test itself).

    pg_cut_proxy.py UPSTREAM_PORT ARM_FILE   (prints its own port, then serves)

Bytes pass through unchanged, both ways.  While ARM_FILE exists, the first
connection that sends a write transaction (an "INSERT INTO events") and
then its COMMIT has that COMMIT delivered to the server, the server's
answer withheld, and both sides closed 0.5 s later -- after the commit is
done.  A COMMIT is a simple query, or (the store's pipelined write
transaction, src/store/postgres/pg_pipe.c) an extended-protocol one: a
Parse of "COMMIT" (named: its later Binds are COMMITs too) or a Bind of
such a name, cut once the Sync that ends the pipeline has gone with it.  That is the ambiguous case of a lost connection: the
transaction was committed and the client cannot know it.  ARM_FILE is
removed then, and its first line becomes "cut"."""
import os
import re
import socket
import struct
import sys
import threading
import time

COMMIT = b"Q\x00\x00\x00\x0bCOMMIT\x00"  # the simple-query message PQexec sends
WRITE = b"INSERT INTO events"
SYNC = b"S\x00\x00\x00\x04"  # the extended protocol's Sync (the pipeline's end)
# Parse (statement name, "COMMIT", no parameter types) and Bind (unnamed
# portal, statement name)
PARSE_COMMIT = re.compile(rb"P(....)([^\x00]*)\x00COMMIT\x00\x00\x00", re.S)
lock = threading.Lock()


def commit_at(seen, conn):
    """Where a COMMIT's message ends in seen (-1: none); remembers the
    names COMMIT is prepared under."""
    at = seen.find(COMMIT)
    if at >= 0:
        return at + len(COMMIT)
    for m in PARSE_COMMIT.finditer(seen):
        if struct.unpack("!i", m.group(1))[0] == 4 + len(m.group(2)) + 1 + 7 + 2:
            conn["names"].add(m.group(2))
            at = max(at, m.end())
    for name in conn["names"]:
        i = seen.find(b"B", 0)
        while i >= 0:
            if seen[i + 5:i + 7 + len(name)] == b"\x00" + name + b"\x00":
                at = max(at, i + 7 + len(name))
            i = seen.find(b"B", i + 1)
    return at


def pump(src, dst, conn, upstream):
    tail = b""
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            if upstream:  # client -> server: watch for the write, then its COMMIT
                seen = tail + data
                if WRITE in seen:
                    conn["write"] = True
                end = commit_at(seen, conn)
                after = b""  # what went after the write's COMMIT
                if conn["write"] and end >= 0:
                    conn["commit"] = True
                    after = seen[end:]
                elif conn["commit"]:
                    after = data
                if conn["commit"] and (COMMIT in seen or SYNC in after) and os.path.exists(ARM):
                    with lock:
                        armed = os.path.exists(ARM)
                        if armed:
                            os.remove(ARM)
                    if armed:
                        conn["cut"] = True  # before the COMMIT goes: its answer is never relayed
                        dst.sendall(data)
                        time.sleep(0.5)
                        with open(ARM + ".done", "w") as f:
                            f.write("cut\n")
                        break
                tail = seen[-64:]
            elif conn["cut"]:
                continue
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(client):
    try:
        up = socket.create_connection(("127.0.0.1", UPSTREAM))
    except OSError:
        client.close()
        return
    conn = {"write": False, "cut": False, "commit": False, "names": set()}
    a = threading.Thread(target=pump, args=(client, up, conn, True), daemon=True)
    b = threading.Thread(target=pump, args=(up, client, conn, False), daemon=True)
    a.start()
    b.start()


UPSTREAM, ARM = int(sys.argv[1]), sys.argv[2]
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", 0))
ls.listen(64)
print(ls.getsockname()[1], flush=True)
while True:
    c, _ = ls.accept()
    serve(c)
