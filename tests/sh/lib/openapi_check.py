#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""docs/openapi.json against the live server (tests/sh/server.sh).

usage: openapi_check.py OPENAPI ROUTE_TABLE_C URL USER_TOKEN ADMIN_TOKEN

1. The router's table (ROUTE(...) lines of tools/server/route_table.c) and the
   document's paths name the same (method, path) pairs: no route without
   its document, no document without its route.
2. Every operation is called with a sample request (SAMPLES below: an
   operation without one fails the check) and must answer its documented
   2xx (200, 201 for a creation) with a body
   that its response schema accepts -- every field declared (where the
   schema closes its properties), every required one present, each of its
   type.
3. Every property of every request body: sent with a wrong type, and an
   undeclared key sent beside the sample, must each be refused with 400
   and an Error whose field names it.
"""
import json, re, sys, urllib.error, urllib.request

spec_path, router_c, base, tok, adm = sys.argv[1:6]
spec = json.load(open(spec_path))
failures = []

def fail(msg):
    failures.append(msg)

# ---- 1. routes vs paths
routes = set(re.findall(r'ROUTE\("([A-Z]+)", "([^"]+)"', open(router_c).read()))
documented = {(m.upper(), p) for p, ops in spec["paths"].items() for m in ops}
for r in sorted(routes - documented): fail("route %s %s is not in openapi.json" % r)
for r in sorted(documented - routes): fail("openapi.json has %s %s, the router does not" % r)

# ---- a small JSON Schema subset: $ref, oneOf, type, enum, properties,
# required, additionalProperties (false), items, minimum/maximum
def resolve(s):
    while "$ref" in s:
        s = spec["components"]["schemas"][s["$ref"].split("/")[-1]]
    return s

def type_ok(v, t):
    return {"object": isinstance(v, dict), "array": isinstance(v, list),
            "string": isinstance(v, str), "boolean": isinstance(v, bool),
            "integer": isinstance(v, int) and not isinstance(v, bool),
            "number": isinstance(v, (int, float)) and not isinstance(v, bool),
            "null": v is None}[t]

def check(v, s, where):
    s = resolve(s)
    if "oneOf" in s:
        errs = [check(v, alt, where) for alt in s["oneOf"]]
        ok = [e for e in errs if not e]
        return None if len(ok) == 1 else "%s: matches %d of oneOf" % (where, len(ok))
    if "type" in s:
        types = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(type_ok(v, t) for t in types):
            return "%s: %r is not %s" % (where, v, s["type"])
    if "enum" in s and v not in s["enum"]:
        return "%s: %r not in %s" % (where, v, s["enum"])
    if isinstance(v, dict) and "properties" in s:
        props = s["properties"]
        for k in s.get("required", []):
            if k not in v: return "%s: required %s missing" % (where, k)
        for k, x in v.items():
            if k not in props:
                if s.get("additionalProperties", True) is False:
                    return "%s: field %s is not in the schema" % (where, k)
                continue
            e = check(x, props[k], where + "." + k)
            if e: return e
    if isinstance(v, list) and "items" in s:
        for i, x in enumerate(v):
            e = check(x, s["items"], "%s[%d]" % (where, i))
            if e: return e
    return None

def call(method, path, token, body=None):
    data = None if body is None else json.dumps(body, ensure_ascii=False).encode()
    rq = urllib.request.Request(base + path, data=data, method=method)
    if token: rq.add_header("Authorization", "Bearer " + token)
    if data is not None: rq.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(rq, timeout=20) as r:
            ctype = r.headers.get("Content-Type", "")
            if ctype.startswith("text/event-stream"):  # endless: its first frame
                return r.status, r.readline().decode(), ctype
            return r.status, r.read().decode(), ctype
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), e.headers.get("Content-Type", "")

# ---- fixtures: an event, a memory, a task; a user held for restore
st, body, _ = call("POST", "/v1/events", tok, {"text": "From now on, always write the minutes in English",
                                              "task": "oa-task", "session": "oa-s"})
event_id = json.loads(body)["event_id"] if st == 200 else "none"
st, body, _ = call("GET", "/v1/memories", tok)
mems = json.loads(body) if st == 200 else []
memory_id = mems[0]["id"] if mems else "none"
# a memory the application states, one to delete
st, body, _ = call("POST", "/v1/memories", tok, {"text": "My spare bike is in the cellar", "kind": "fact"})
delete_id = json.loads(body)["memory"]["lineage_id"] if st == 201 else "none"
call("POST", "/v1/events", adm, {"text": "我住在杭州", "user": "oa-held"})
call("POST", "/v1/forget", adm, {"level": "user", "user": "oa-held", "grace": 3600})

# operationId -> (token, path with its parameters, body or None)
SAMPLES = {
    "healthz": (None, "/healthz", None),
    "metrics": (tok, "/metrics", None),
    "openapi": (None, "/openapi.json", None),
    "inspectorPage": (None, "/", None),
    "inspectorAsset": (None, "/inspector/app.js", None),
    "addEvents": (tok, "/v1/events", {"text": "我喜欢喝茶", "session": "oa-s", "agent": "planner",
                                      "source": "user", "type": "query", "domain": "life",
                                      "intent": "chat", "at": "2026-03-05T16:00:00+08:00",
                                      "id": "oa-1", "task": "oa-task", "user": None}),
    "listEvents": (tok, "/v1/events?limit=5&q=%E8%8C%B6&from=2026-03-01T00:00:00Z", None),
    "recall": (tok, "/v1/recall", {"query": "what language for the minutes?", "session": "oa-s",
                                   "task": "oa-task", "agent": "planner", "domain": "life",
                                   "as_of": "2030-01-01T00:00:00Z", "budget": 400, "k": 4}),
    "getTask": (tok, "/v1/tasks/oa-task", None),
    "listMemories": (tok, "/v1/memories?all=1", None),
    "addMemory": (tok, "/v1/memories", {"text": "我的工位在三楼靠窗", "kind": "fact", "key": "工位.位置",
                                        "scope": "global", "user": None}),
    "getMemory": (tok, "/v1/memories/%s" % memory_id, None),
    "updateMemory": (tok, "/v1/memories/%s" % memory_id, {"text": "From now on, always write the minutes in French",
                                                          "user": None}),
    "deleteMemory": (tok, "/v1/memories/%s" % delete_id, None),
    "memoryVersions": (tok, "/v1/memories/%s/versions" % memory_id, None),
    "feedback": (tok, "/v1/memories/%s/feedback" % memory_id, {"action": "confirm", "text": None}),
    "forget": (tok, "/v1/forget", {"level": "event", "id": event_id, "grace": None}),
    "restore": (adm, "/v1/restore", {"user": "oa-held"}),
    "link": (adm, "/v1/links", {"channel": "oa-chan", "external_id": "oa-x", "merge": False,
                                "user": "alice"}),
    "export": (adm, "/v1/export?user=alice", None),
    "profile": (tok, "/v1/profile?budget=200", None),
    "reportCorrections": (adm, "/v1/reports/corrections?period=week&since=2026-01-01T00:00:00Z"
                               "&until=2030-01-01T00:00:00Z", None),
    "importDocument": (adm, "/v1/import", {"document": [{"id": "m0-1", "memory": "我的自行车放在地下室"}],
                                           "from": "mem0", "user": "oa-import", "merge": None}),
    "applyPack": (adm, "/v1/packs", {"pack": {"name": "oa-pack", "version": "1", "applies_to": {"role": "sales"},
                                              "rules": [{"kind": "rule", "key": "pricing.currency",
                                                         "text": "金额用人民币 in CNY", "lang": "zh"}]},
                                     "user": "alice"}),
    "listPacks": (adm, "/v1/packs?user=alice", None),
    "removePack": (adm, "/v1/packs/oa-pack?user=alice", None),
    "stream": (tok, "/v1/stream?after=0", None),
    "getWorkspace": (tok, "/v1/tasks/oa-task/workspace", None),
    "putWorkspace": (tok, "/v1/tasks/oa-task/workspace", {"doing": "写周报", "done": "read the notes",
                                                          "next": "", "user": None}),
    "putWorking": (tok, "/v1/sessions/oa-s/working/%E8%AE%A1%E5%88%92", {"value": "先写周报 then the slides",
                                                                           "ttl_ms": 60000, "user": None}),
    "getWorking": (tok, "/v1/sessions/oa-s/working/%E8%AE%A1%E5%88%92", None),
    "deleteWorking": (tok, "/v1/sessions/oa-s/working/%E8%AE%A1%E5%88%92", None),
    "listWorking": (tok, "/v1/sessions/oa-s/working", None),
    "clearWorking": (tok, "/v1/sessions/oa-s/working", None),
    "embeddings": (tok, "/v1/embeddings", {"input": ["他是 a", "the 是"], "model": "any",
                                           "encoding_format": "float"}),
    "mcp": (tok, "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                          "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                     "clientInfo": {"name": "openapi_check", "version": "1"}}}),
}
WRONG = {"string": 12345, "integer": "12", "boolean": "yes", "number": "1.5"}

for path, ops in spec["paths"].items():
    for method, op in ops.items():
        oid = op.get("operationId")
        if oid not in SAMPLES:
            fail("%s %s: no sample request in openapi_check.py" % (method, path)); continue
        token, url, body = SAMPLES[oid]
        st, text, ctype = call(method.upper(), url, token, body)
        ok = [c for c in op["responses"] if c.startswith("2")][0]  # 200, or 201 for a creation
        if st != int(ok):
            fail("%s %s: HTTP %d: %s" % (method, url, st, text[:300])); continue
        content = op["responses"][ok]["content"]
        want_type = list(content)[0]
        if not ctype.startswith(want_type):
            fail("%s %s: Content-Type %s, documented %s" % (method, path, ctype, want_type))
        if want_type == "application/json":
            e = check(json.loads(text), content[want_type]["schema"], "%s %s" % (method, path))
            if e: fail(e)
            # the recall's schema is open ("fields may be appended") but lists every field
            # the recall answers with
            got, schema = json.loads(text), resolve(content[want_type]["schema"])
            if oid == "recall" and isinstance(got, dict):
                for k in sorted(set(got) - set(schema.get("properties", {}))):
                    fail("%s %s: field %s is not in openapi.json" % (method, path, k))
        # request fields: each one of a wrong type, and an unknown one
        rb = op.get("requestBody")
        if not rb: continue
        schema = resolve(rb["content"]["application/json"]["schema"])
        if "oneOf" in schema: schema = resolve(schema["oneOf"][0])
        sample = {k: v for k, v in (body or {}).items() if v is not None}
        tests = [(dict(sample, zz_unknown=1), "zz_unknown")]
        for name, prop in schema["properties"].items():
            t = prop.get("type")
            t = t[0] if isinstance(t, list) else t
            if t in WRONG: tests.append((dict(sample, **{name: WRONG[t]}), name))
        for b, field in tests:
            st, text, _ = call(method.upper(), url, token, b)
            try:
                err = json.loads(text)
            except ValueError:
                err = None
            e = check(err, {"$ref": "#/components/schemas/Error"}, "error") if err else "not JSON"
            if st != 400 or e or err["error"]["field"] != field:
                fail("%s %s with a bad %s: HTTP %d %s" % (method, path, field, st, text[:200]))

for f in failures: print("openapi_check: " + f)
print("openapi_check: %d operations, %d failures" % (sum(len(o) for o in spec["paths"].values()), len(failures)))
sys.exit(1 if failures else 0)
