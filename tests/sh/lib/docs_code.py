#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The docs say what the code does.

usage: docs_code.py ROOT KNOBS_MARKDOWN_FILE

1. docs/internals/stores.md states "schema version N" for SQLite and
   PostgreSQL: N equal AM__SCHEMA_VERSION (src/store/store.h) and
   AM__PG_SCHEMA_VERSION (src/store/postgres/pg_int.h).
2. docs/KNOBS.md equals the given output of `agentmem knobs --markdown`.
3. Every route of the server's table (ROUTE("METHOD", "/path", ...) in
   tools/server/route_table.c) is a path and method of docs/openapi.json and has
   a row in docs/SERVER.md's route tables (first cell, `METHOD /path`).
4. docs/internals/testing.md states "N fuzz targets" and N is the number
   of fuzz/fuzz_*.c files.
Prints one line per mismatch; exit 1 if any.
"""
import glob, json, os, re, sys

root, knobs_md = sys.argv[1], sys.argv[2]
def read(rel):
    return open(os.path.join(root, rel), encoding="utf-8").read()
bad = []

# 1. schema versions
def define(rel, name):
    m = re.search(r"#define\s+%s\s+(\d+)" % name, read(rel))
    return int(m.group(1)) if m else None
stores = read("docs/internals/stores.md")
for label, rel, name in [("SQLite", "src/store/store.h", "AM__SCHEMA_VERSION"),
                         ("PostgreSQL", "src/store/postgres/pg_int.h", "AM__PG_SCHEMA_VERSION")]:
    code = define(rel, name)
    m = re.search(r"The %s store is at \*\*schema version (\d+)\*\*" % label, stores)
    if code is None:
        bad.append("%s: no #define %s" % (rel, name))
    elif not m:
        bad.append("docs/internals/stores.md: no \"The %s store is at **schema version N**\"" % label)
    elif int(m.group(1)) != code:
        bad.append("docs/internals/stores.md says %s schema version %s, %s says %d"
                   % (label, m.group(1), rel, code))

# 2. the knob list
if read("docs/KNOBS.md") != open(knobs_md, encoding="utf-8").read():
    bad.append("docs/KNOBS.md differs from `agentmem knobs --markdown` (regenerate it)")

# 3. routes
routes = set(re.findall(r'ROUTE\("([A-Z]+)", "([^"]+)"', read("tools/server/route_table.c")))
if not routes:
    bad.append("tools/server/route_table.c: no ROUTE(...) lines found")
spec = json.loads(read("docs/openapi.json"))
documented = {(m.upper(), p) for p, ops in spec["paths"].items() for m in ops}
for r in sorted(routes - documented):
    bad.append("route %s %s is not in docs/openapi.json" % r)
rows = set()
for line in read("docs/SERVER.md").splitlines():
    if not line.startswith("| `"):
        continue
    cell = line.split(" | ")[0]
    for m in re.finditer(r"`([A-Z]+) (/[^`\s?]*)[^`]*`", cell):
        path = m.group(2)
        opt = re.match(r"(.*)\[(/[^\]]*)\]$", path)
        for p in ([opt.group(1), opt.group(1) + opt.group(2)] if opt else [path]):
            rows.add((m.group(1), p))
for r in sorted(routes - rows):
    bad.append("route %s %s has no row in docs/SERVER.md" % r)

# 4. fuzz targets
n = len(glob.glob(os.path.join(root, "fuzz", "fuzz_*.c")))
m = re.search(r"There are (\d+) fuzz targets", read("docs/internals/testing.md"))
if not m:
    bad.append("docs/internals/testing.md: no \"There are N fuzz targets\"")
elif int(m.group(1)) != n:
    bad.append("docs/internals/testing.md says %s fuzz targets, fuzz/ has %d" % (m.group(1), n))

for b in bad:
    print("docs_code: " + b)
print("docs_code: %d routes, %d mismatches" % (len(routes), len(bad)))
sys.exit(1 if bad else 0)
