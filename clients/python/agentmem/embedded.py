# SPDX-License-Identifier: Apache-2.0
"""EmbeddedTransport: the routes of client.py run in this process on the
shared library (ctypes), with no server -- the single-file default.

The structs below are include/agentmem.h's, field for field.  am_config
holds am_rank_config, whose fields are the knobs of agentmem_knobs.h: they
are declared from the library's own knob list (am_knob_info, in that
order), so a library with a knob more is still described exactly; and
am_config_init_sized is given ctypes' sizeof, so a layout that differs
anyway is refused by am_open (AM_MISUSE naming both sizes) instead of
being misread.

Each route does what tools/server/routes.c does with the same body: the
fields checked by name and type (unknown keys refused), the user fixed at
open as a token fixes it (naming another is refused with 403 forbidden and
audited through am_security_denied), the same result shapes (the library's
JSON for recall, memories and export; add, task and forget built like
tools/common/shapes.c) and the same error codes, fields and statuses.  One
lock: a handle is used by one thread at a time (agentmem.h).
"""

import ctypes
import datetime
import json
import os
import threading

from .errors import AgentmemError

c_char_p, c_int, c_long, c_size_t, c_double, c_void_p = (
    ctypes.c_char_p, ctypes.c_int, ctypes.c_long, ctypes.c_size_t, ctypes.c_double, ctypes.c_void_p)
am_time = ctypes.c_int64
AM_TIME_NONE = -(1 << 63)
AM_OK, AM_INVALID, AM_NOTFOUND, AM_DENIED, AM_BUSY, AM_TOOBIG = 0, 4, 5, 6, 7, 8
AM_KNOB_INT = 1
AM_VERSION_STRING = "0.1.0"  # agentmem.h's; the library has no function giving it
AM_PROFILE_BUDGET_MAX = 100000  # agentmem.h's


class AmKnob(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("type", c_int), ("def_", c_double), ("min", c_double),
                ("max", c_double), ("doc", c_char_p)]


class _Sized(ctypes.Structure):
    """A struct whose first field is its size (am_event, am_query): set to
    this layout's, so a library of another layout refuses it (AM_MISUSE)."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.size = ctypes.sizeof(self)


class AmEvent(_Sized):
    _fields_ = [("size", c_size_t)] + [(n, c_char_p) for n in (
        "user_id", "channel", "external_id", "agent_id", "session_id", "task_id", "source", "type",
        "domain", "intent", "text", "occurred_at", "event_id", "metadata_json")]


class AmAddInfo(ctypes.Structure):
    _fields_ = [("event_id", ctypes.c_char * 32), ("user_id", ctypes.c_char * 129),
                ("task_id", ctypes.c_char * 129)] + [(n, c_int) for n in (
                    "memories_created", "memories_updated", "memories_invalidated", "task_changed",
                    "one_off", "existing")]


class AmMemory(ctypes.Structure):
    _fields_ = [(n, c_char_p) for n in (
        "id", "lineage_id", "scope", "kind", "key", "text", "value_json", "status")] + [
        ("confidence", c_double), ("base_score", c_double), ("half_life_days", c_double),
        ("hits", c_long), ("last_access", am_time), ("valid_from", am_time), ("valid_to", am_time),
        ("recorded_at", am_time), ("superseded_at", am_time),
        ("source_event_ids", ctypes.POINTER(c_char_p)), ("n_sources", c_size_t),
        ("score", c_double), ("source_count", c_long), ("reinforced_at", am_time),
        ("key_id", c_char_p), ("metadata_json", c_char_p), ("origin", c_char_p),
        ("expires_at", am_time)]


class AmEventRec(ctypes.Structure):
    _fields_ = [(n, c_char_p) for n in (
        "id", "agent_id", "session_id", "task_id", "channel", "source", "type", "domain", "intent",
        "content")] + [("occurred_at", am_time), ("tz_minutes", c_int), ("score", c_double),
                       ("metadata_json", c_char_p)]


class AmTaskChange(ctypes.Structure):
    _fields_ = [("at", am_time), ("field", c_char_p), ("old_value", c_char_p),
                ("new_value", c_char_p), ("event_id", c_char_p)]


class AmTask(ctypes.Structure):
    _fields_ = [(n, c_char_p) for n in (
        "task_id", "name", "stage", "status", "artifacts_json", "pending_json", "notes_json")] + [
        ("created_at", am_time), ("updated_at", am_time),
        ("history", ctypes.POINTER(AmTaskChange)), ("n_history", c_size_t),
        ("round", c_int), ("round_started_at", am_time), ("period", c_char_p),
        ("rounds_json", c_char_p), ("task_ref", c_char_p)]


class AmFilter(ctypes.Structure):
    _fields_ = [("kinds", ctypes.POINTER(c_char_p)), ("n_kinds", c_size_t),
                ("scopes", ctypes.POINTER(c_char_p)), ("n_scopes", c_size_t),
                ("metadata_json", c_char_p), ("from_", c_char_p), ("to", c_char_p),
                ("query", c_char_p)]


class AmQuery(_Sized):
    _fields_ = [("size", c_size_t)] + [(n, c_char_p) for n in (
        "user_id", "channel", "external_id", "agent_id", "session_id", "task_id", "domain", "text",
        "as_of")] + [(n, c_int) for n in ("budget_tokens", "max_memories", "max_events", "no_touch")] + [
        ("role", c_char_p), ("filter", ctypes.POINTER(AmFilter))]


class AmRecallResult(ctypes.Structure):
    _fields_ = [("need_memory", c_int), ("route", c_char_p), ("lang", c_char_p),
                ("memories", ctypes.POINTER(AmMemory)), ("n_memories", c_size_t),
                ("events", ctypes.POINTER(AmEventRec)), ("n_events", c_size_t),
                ("task", ctypes.POINTER(AmTask)), ("block", c_char_p), ("block_tokens", c_int),
                ("json", c_char_p), ("domain_conflict", c_int),
                # appended (the block's two parts; the route's reason; the kinds of reference)
                ("block_system", c_char_p), ("block_context", c_char_p),
                ("block_system_tokens", c_int), ("block_context_tokens", c_int),
                ("route_reason", c_char_p), ("refs", ctypes.c_uint)]


class AmMemoryList(ctypes.Structure):
    _fields_ = [("items", ctypes.POINTER(AmMemory)), ("n", c_size_t), ("json", c_char_p),
                ("next_cursor", c_char_p)]


class AmListOpts(ctypes.Structure):
    _fields_ = [("which", c_int), ("as_of", c_char_p), ("filter", ctypes.POINTER(AmFilter)),
                ("limit", c_size_t), ("cursor", c_char_p), ("agent_id", c_char_p),
                ("role", c_char_p)]


class AmEventListOpts(ctypes.Structure):
    _fields_ = [("limit", c_size_t), ("cursor", c_char_p), ("query", c_char_p),
                ("session_id", c_char_p), ("from_", c_char_p), ("to", c_char_p),
                ("agent_id", c_char_p), ("role", c_char_p),
                ("ids", ctypes.POINTER(c_char_p)), ("n_ids", c_size_t)]


class AmEventPage(ctypes.Structure):
    _fields_ = [("json", c_char_p), ("n", c_size_t), ("next_cursor", c_char_p)]


class AmImportInfo(ctypes.Structure):
    _fields_ = [("user_id", ctypes.c_char * 129)] + [(n, c_long) for n in (
        "events", "memories", "tasks", "events_skipped", "memories_skipped", "tasks_skipped")]


class AmMemoryItem(ctypes.Structure):
    _fields_ = [("current", c_void_p), ("versions", c_void_p), ("n_versions", c_size_t),
                ("json", c_char_p)]


class AmMemoryInput(ctypes.Structure):
    _fields_ = [(n, c_char_p) for n in ("user_id", "text", "kind", "key", "scope", "agent_id", "role",
                                        "metadata_json", "expires_at")]


class AmProfileQuery(ctypes.Structure):
    _fields_ = [("user_id", c_char_p), ("budget_tokens", c_int), ("agent_id", c_char_p),
                ("role", c_char_p)]


class AmProfileCard(ctypes.Structure):
    _fields_ = [("lang", c_char_p), ("text", c_char_p), ("tokens", c_int), ("budget_tokens", c_int),
                ("sections", c_void_p), ("n_sections", c_size_t), ("n_items", c_size_t),
                ("n_duplicates", c_size_t), ("n_left_out", c_size_t), ("json", c_char_p)]


class AmForgetInfo(ctypes.Structure):
    _fields_ = [("events", c_long), ("memories", c_long), ("tasks", c_long)]


def _config_type(lib):
    """am_config, with am_rank_config laid out from the library's knob list."""
    rank = []
    for i in range(lib.am_knob_count()):
        k = lib.am_knob_info(i).contents
        rank.append((k.name.decode(), c_int if k.type == AM_KNOB_INT else c_double))
    rank_t = type("AmRankConfig", (ctypes.Structure,), {"_fields_": rank})
    return type("AmConfig", (ctypes.Structure,), {"_fields_": [
        ("struct_size", c_size_t), ("path", c_char_p), ("clock", c_void_p), ("clock_ctx", c_void_p),
        ("log", c_void_p), ("log_ctx", c_void_p), ("realloc", c_void_p), ("alloc_ctx", c_void_p),
        ("default_tz_minutes", c_int), ("max_text_bytes", c_size_t), ("busy_timeout_ms", c_int),
        ("must_exist", c_int), ("embedder", c_char_p), ("embedder_key", c_char_p),
        ("redact", ctypes.c_uint), ("rank", rank_t), ("no_term_cache", c_int),
        ("vault_key", c_char_p), ("forget_grace_ms", am_time), ("events_max_rows", ctypes.c_int64),
        ("events_max_age_ms", am_time), ("role_allow", c_char_p), ("cache", c_char_p),
        ("log_record", c_void_p), ("log_content", c_int), ("llm", c_char_p),
        ("llm_key", c_char_p), ("process_tuning", ctypes.c_uint)]})


def _find_library(lib):
    """The libagentmem to load: lib (the caller's), else $AGENTMEM_LIB, else
    the installed one as the dynamic loader finds it (ctypes.util's search,
    then libagentmem.so.0 by name: the loader's cache, LD_LIBRARY_PATH),
    else the build tree of a source checkout (build/cmake/libagentmem.so)."""
    for cand in (lib, os.environ.get("AGENTMEM_LIB")):
        if cand:
            return os.path.abspath(cand) if os.path.exists(cand) else cand
    import ctypes.util
    found = ctypes.util.find_library("agentmem")
    if found:
        return found
    try:
        ctypes.CDLL("libagentmem.so.0")
        return "libagentmem.so.0"
    except OSError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.join(here, "..", "..", "..", "build", "cmake", "libagentmem.so")
    if os.path.exists(tree):
        return os.path.abspath(tree)
    raise AgentmemError("internal", "libagentmem.so.0 not found: install agentmem (make install, "
                                    "or the .deb), or set AGENTMEM_LIB to its path", None, None)


def _load(path):
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise AgentmemError("internal", f"cannot load {path}: {e}", None, None) from None
    P = ctypes.POINTER
    protos = {
        "am_knob_count": (c_size_t, []),
        "am_knob_info": (P(AmKnob), [c_size_t]),
        "am_config_init_sized": (None, [c_void_p, c_size_t]),
        "am_open": (c_int, [c_void_p, P(c_void_p), P(c_void_p)]),
        "am_close": (None, [c_void_p]),
        "am_errstr": (c_char_p, [c_int]),
        "am_errmsg": (c_char_p, [c_void_p]),
        "am_cache_state": (c_char_p, [c_void_p, c_void_p]),
        "am_free": (None, [c_void_p]),
        "am_add_event": (c_int, [c_void_p, P(AmEvent), P(AmAddInfo)]),
        "am_add_events": (c_int, [c_void_p, P(AmEvent), c_size_t, P(AmAddInfo)]),
        "am_recall": (c_int, [c_void_p, P(AmQuery), P(P(AmRecallResult))]),
        "am_recall_free": (None, [P(AmRecallResult)]),
        "am_task_get": (c_int, [c_void_p, c_char_p, c_char_p, P(P(AmTask))]),
        "am_task_free": (None, [P(AmTask)]),
        "am_memories": (c_int, [c_void_p, c_char_p, c_int, c_char_p, P(P(AmMemoryList))]),
        "am_memory_list_free": (None, [P(AmMemoryList)]),
        "am_memories_list": (c_int, [c_void_p, c_char_p, P(AmListOpts), P(P(AmMemoryList))]),
        "am_memory_set": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p, c_char_p, c_char_p,
                                  c_char_p, P(P(AmMemoryItem))]),
        "am_feedback": (c_int, [c_void_p, c_char_p, c_char_p, c_int, c_char_p]),
        "am_memory_get": (c_int, [c_void_p, c_char_p, c_char_p, P(P(AmMemoryItem))]),
        "am_memory_add": (c_int, [c_void_p, P(AmMemoryInput), P(P(AmMemoryItem))]),
        "am_memory_update": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p, P(P(AmMemoryItem))]),
        "am_memory_delete": (c_int, [c_void_p, c_char_p, c_char_p, P(c_long)]),
        "am_memory_feedback": (c_int, [c_void_p, c_char_p, c_char_p, c_int, c_char_p, c_char_p,
                                       c_char_p, P(P(AmMemoryItem))]),
        "am_memory_item_free": (None, [P(AmMemoryItem)]),
        "am_forget": (c_int, [c_void_p, c_char_p, c_int, c_char_p, P(AmForgetInfo)]),
        "am_restore": (c_int, [c_void_p, c_char_p]),
        "am_export": (c_int, [c_void_p, c_char_p, P(c_void_p)]),
        "am_events_list": (c_int, [c_void_p, c_char_p, P(AmEventListOpts), P(P(AmEventPage))]),
        "am_event_page_free": (None, [P(AmEventPage)]),
        "am_import": (c_int, [c_void_p, c_char_p, c_size_t, c_char_p, c_int, P(AmImportInfo)]),
        "am_import_mem0": (c_int, [c_void_p, c_char_p, c_size_t, c_char_p, P(AmImportInfo)]),
        "am_security_denied": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p]),
        "am_time_format": (c_char_p, [am_time, c_int, c_char_p]),
        "am_profile": (c_int, [c_void_p, P(AmProfileQuery), P(P(AmProfileCard))]),
        "am_profile_free": (None, [P(AmProfileCard)]),
    }
    for name, (res, args) in protos.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib


def _s(b):
    return None if b is None else b.decode("utf-8")


# ------------------------------------------------------------ body checks

_TYPE = {str: "a string", int: "an integer", bool: "a boolean", dict: "an object"}
_EVENT_FIELDS = dict({k: str for k in ("user", "channel", "external_id", "agent", "session", "task",
                                       "source", "type", "domain", "intent", "at", "text", "id")},
                     metadata=dict)
_MESSAGES_FIELDS = {"user": str, "session": str, "task": str, "at": str, "metadata": dict}
_MESSAGE_FIELDS = {"role": str, "content": str, "name": str}
_ROLES = {"user": "user", "assistant": "agent", "tool": "tool", "system": "system"}
_RECALL_FIELDS = dict({k: str for k in ("query", "session", "task", "agent", "domain", "as_of",
                                        "user")}, budget=int, k=int, filters=dict)
_FEEDBACK_FIELDS = {"action": str, "text": str, "user": str}
_FORGET_FIELDS = {"level": str, "id": str, "grace": int, "user": str}
_LEVELS = {"event": 1, "session": 2, "task": 3, "user": 4}
_ACTIONS = {"confirm": 1, "reject": 2, "correct": 3}
_MEMORY_FIELDS = {"text": str, "kind": str, "key": str, "scope": str, "user": str, "metadata": dict,
                  "expires_at": str}
_PATCH_FIELDS = {"text": str, "user": str, "metadata": dict}
_LIST_PARAMS = ("all", "as_of", "user", "kind", "scope", "from", "to", "limit", "cursor")


def _json_type(v):
    if isinstance(v, bool):
        return "a boolean"
    return {dict: "an object", list: "an array", int: "an integer", float: "a number",
            type(None): "null"}.get(type(v), "a string" if isinstance(v, str) else "an object")


def _invalid(field, message):
    return AgentmemError("invalid_request", message, field, 400)


def _fields(obj, spec, prefix=""):
    """obj checked against spec (name -> type) like tools/common/fields.c:
    a dict of known keys of the right types (None = not given)."""
    where = prefix[:-1] + ": " if prefix else ""
    if not isinstance(obj, dict):
        raise _invalid(prefix[:-1] or None, f"{where}expected a JSON object, got {_json_type(obj)}")
    out = {}
    for key, v in obj.items():
        if key not in spec:
            raise _invalid(prefix + str(key), f'{where}unknown field "{str(key)[:64]}" (the fields '
                                              f'are {", ".join(spec)})')
        if v is None:
            continue
        want = spec[key]
        if type(v) is not want:
            raise _invalid(prefix + key, f"{where}{key}: expected {_TYPE[want]}, got {_json_type(v)}")
        if want is str and "\0" in v:
            raise _invalid(prefix + key, f"{where}{key}: contains a NUL character")
        out[key] = v
    return out


def _b(s):
    return None if s is None else s.encode("utf-8")


def _json(v):
    """A metadata or filter object as the compact JSON text the library reads."""
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def _message_time(at, i):
    """at plus i milliseconds, in at's zone ("2026-03-01T09:00:00.002+08:00")."""
    try:
        t = datetime.datetime.fromisoformat(at)
    except ValueError:
        return None
    if t.tzinfo is None:
        return None
    t += datetime.timedelta(milliseconds=i)
    off = t.utcoffset()
    mins = int(off.total_seconds() // 60)
    zone = "Z" if mins == 0 else f"{'+' if mins > 0 else '-'}{abs(mins) // 60:02d}:{abs(mins) % 60:02d}"
    return t.strftime("%Y-%m-%dT%H:%M:%S") + f".{t.microsecond // 1000:03d}" + zone


def _message_engine_field(msg):
    """An engine message about events[i] as a message's field, as
    tools/common/messages.c names it (text -> content, agent -> name,
    source -> role; occurred_at and metadata: the call's)."""
    import re
    m = re.match(r"add: events\[(\d+)\]: ", msg)
    if not m:
        return None
    rest = msg[m.end():]
    if rest.startswith("occurred_at"):
        return "at"
    if rest.startswith("metadata") and rest[8:9] in (".", ":", " "):
        return "metadata"
    for lib_name, name in (("text", "content"), ("agent", "name"), ("source", "role")):
        if rest.startswith(lib_name) and rest[len(lib_name):len(lib_name) + 1] in (":", " "):
            return f"messages[{m.group(1)}].{name}"
    return f"messages[{m.group(1)}]"


_ENGINE_NAMES = {"occurred_at": "at", "memory": "id"}
_ENGINE_FIELDS = {"text", "user", "agent", "session", "task", "source", "type", "domain",
                  "intent", "id", "as_of", "query", "channel", "external_id", "expires_at"}


def _engine_field(msg):
    """The field an engine message names ("add: events[2]: at: ..." -> at),
    as tools/server/handler.c reads it: the word after each of the first
    three ": "."""
    p = msg
    for _ in range(3):
        i = p.find(": ")
        if i < 0:
            break
        p = p[i + 2:]
        word = p
        for stop in (":", " ", '"'):
            word = word.split(stop, 1)[0]
        if word in _ENGINE_NAMES:
            return _ENGINE_NAMES[word]
        for whole in ("metadata", "filters"):  # metadata.KEY, filters.from: the object's name
            if word == whole or word.startswith(whole + "."):
                return whole
        if word in _ENGINE_FIELDS:
            return word
    return None


class EmbeddedTransport:
    name = "embedded"

    def __init__(self, path, user, agent, lib, embedder):
        if not isinstance(path, str) or not path:
            raise _invalid("path", "path: expected the store file's path")
        if user is not None and (not isinstance(user, str) or not user):
            raise _invalid("user", "user: expected the user the client acts for")
        if agent is not None and not isinstance(agent, str):
            raise _invalid("agent", "agent: expected a string")
        self._lib = _load(_find_library(lib))
        self._cfg_t = _config_type(self._lib)
        self._lock = threading.Lock()
        self.user, self.agent = user, agent
        self._keep = [_b(path), _b(embedder or os.environ.get("AGENTMEM_EMBEDDER") or "auto"),
                      _b(os.environ.get("AGENTMEM_EMBEDDER_KEY")),
                      _b(os.environ.get("AGENTMEM_VAULT_KEY")), _b(os.environ.get("AGENTMEM_CACHE"))]
        cfg = self._cfg_t()
        self._lib.am_config_init_sized(ctypes.byref(cfg), ctypes.sizeof(cfg))
        cfg.path, cfg.embedder, cfg.embedder_key, cfg.vault_key, cfg.cache = self._keep
        busy = os.environ.get("AGENTMEM_BUSY_TIMEOUT_MS")
        if busy and busy.isdigit():
            cfg.busy_timeout_ms = int(busy)
        self._cfg = cfg
        self._db = self._open(cfg)
        self._routes = {
            ("POST", "/v1/events"): self._events, ("POST", "/v1/recall"): self._recall,
            ("GET", "/v1/tasks/{task_id}"): self._task, ("GET", "/v1/memories"): self._memories,
            ("GET", "/v1/memories/{id}/versions"): self._versions,
            ("POST", "/v1/memories/{id}/feedback"): self._feedback,
            ("GET", "/v1/memories/{id}"): self._memory_get, ("POST", "/v1/memories"): self._memory_add,
            ("PATCH", "/v1/memories/{id}"): self._memory_update,
            ("DELETE", "/v1/memories/{id}"): self._memory_delete,
            ("POST", "/v1/forget"): self._forget, ("POST", "/v1/restore"): self._restore,
            ("GET", "/v1/export"): self._export, ("GET", "/v1/events"): self._events_list,
            ("POST", "/v1/import"): self._import, ("GET", "/healthz"): self._health,
            ("GET", "/v1/profile"): self._profile,
        }

    def _open(self, cfg):
        db, err = c_void_p(), c_void_p()
        rc = self._lib.am_open(ctypes.byref(cfg), ctypes.byref(db), ctypes.byref(err))
        if rc:
            msg = ctypes.string_at(err).decode("utf-8", "replace") if err.value else ""
            self._lib.am_free(err)
            raise AgentmemError("internal", f"cannot open {cfg.path.decode()}: {msg} "
                                            f"({self._lib.am_errstr(rc).decode()})", None, 500)
        return db

    def close(self):
        with self._lock:
            if self._db:
                self._lib.am_close(self._db)
                self._db = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def request(self, method, path, params, body, query, meta=None):
        fn = self._routes.get((method, path))
        if fn is None:
            raise AgentmemError("not_found", "no such route", None, 404)
        for p in params:
            if not isinstance(p, str) or not p or "\0" in p:
                raise _invalid("id", "expected a non-empty string id")
        with self._lock:
            if not self._db:
                raise AgentmemError("internal", "the client is closed", None, 500)
            self._route = f"{method} {path}"
            self._meta = meta if meta is not None else {}
            return fn(params, body if body is not None else {}, query)

    # ------------------------------------------------------------ helpers
    def _fail(self, rc, db=None):
        msg = self._lib.am_errmsg(db or self._db).decode("utf-8", "replace")
        if rc in (AM_INVALID, AM_TOOBIG):
            return _invalid(_engine_field(msg), msg)
        code = {AM_NOTFOUND: "not_found", AM_DENIED: "denied", AM_BUSY: "busy"}.get(rc)
        if code:
            return AgentmemError(code, msg, None, None)
        return AgentmemError("internal", f"{msg} ({self._lib.am_errstr(rc).decode()})", None, 500)

    def _user(self, asked):
        """The user a request acts for: the one fixed at open; naming
        another is the 403 fuse (audited, nothing read).  A transport
        opened without a user (user=None: the Memory class, one object for
        many users) acts for the user each request names, as an admin
        token does."""
        if asked is not None and (not isinstance(asked, str) or "\0" in asked):
            raise _invalid("user", "user: expected a user id without NUL characters")
        if self.user is None:
            if not asked:
                raise _invalid("user", "user: required (this store handle serves many users: "
                                       "name the user of each call)")
            return asked
        if asked is not None and asked != self.user:
            rc = self._lib.am_security_denied(self._db, _b(self.user), _b(asked), _b(self._route))
            if rc not in (AM_OK, AM_INVALID):
                raise self._fail(rc)
            raise AgentmemError("forbidden", "this client acts for its own user only; it may "
                                             "not name another", "user", 403)
        return self.user

    def _parsed(self, raw):
        return json.loads(raw.decode("utf-8"))

    # ------------------------------------------------------------ routes
    def _event(self, obj, prefix, keep):
        e = _fields(obj, _EVENT_FIELDS, prefix)
        for k in ("channel", "external_id"):
            if k in e:
                raise _invalid(prefix + k, f"{prefix}{k}: not accepted: an event's user is the "
                                           f"client's (link a channel identity with am_link)")
        if "text" not in e:
            raise _invalid(prefix + "text", f"{prefix}text is required")
        user = self._user(e.get("user"))
        names = {"agent": "agent_id", "session": "session_id", "task": "task_id", "at": "occurred_at",
                 "id": "event_id"}
        ev = AmEvent()
        if "metadata" in e:
            e["metadata_json"] = _json(e.pop("metadata"))
        vals = {names.get(k, k): _b(v) for k, v in e.items() if k != "user"}
        vals["user_id"] = _b(user)
        if "agent_id" not in vals and self.agent:
            vals["agent_id"] = _b(self.agent)
        for k, v in vals.items():
            setattr(ev, k, v)
        keep.append(vals)
        return ev

    @staticmethod
    def _add_shape(info):
        return {"event_id": _s(info.event_id), "user": _s(info.user_id), "task": _s(info.task_id),
                "memories_created": info.memories_created, "memories_updated": info.memories_updated,
                "memories_invalidated": info.memories_invalidated,
                "task_changed": bool(info.task_changed), "one_off": bool(info.one_off),
                "existing": bool(info.existing)}

    def _messages(self, body):
        """{"messages": [...], user?, session?, task?, at?, metadata?} as
        tools/server/routes.c reads it: each message an event of its role's
        source, in order, in one transaction."""
        for both in ("text", "events"):
            if both in body:
                raise _invalid(both, f"{both}: not accepted with messages (a transcript is "
                                     f'{{"messages": [...]}}, an event {{"text": ...}})')
        f = _fields({k: v for k, v in body.items() if k != "messages"}, _MESSAGES_FIELDS)
        user = self._user(f.get("user"))
        lst = body["messages"]
        if not isinstance(lst, list) or not 1 <= len(lst) <= 1000:
            got = ("more" if lst else "none") if isinstance(lst, list) else _json_type(lst)
            raise _invalid("messages", f"messages: expected an array of 1 to 1000 messages, got {got}")
        at = f.get("at")
        if at is not None and _message_time(at, 0) is None:
            raise _invalid("at", "at: expected ISO 8601 with a zone")
        meta = _b(_json(f["metadata"])) if "metadata" in f else None
        keep, evs = [meta], (AmEvent * len(lst))()
        for i, m in enumerate(lst):
            where = f"messages[{i}]."
            if not isinstance(m, dict):
                raise _invalid(f"messages[{i}]", f"messages[{i}]: expected a JSON object, got "
                                                 f"{_json_type(m)}")
            msg = _fields(m, _MESSAGE_FIELDS, where)
            if "role" not in msg or "content" not in msg:
                field = where + ("content" if "role" in msg else "role")
                raise _invalid(field, f"{field}: missing")
            source = _ROLES.get(msg["role"])
            if source is None:
                raise _invalid(where + "role", f"{where}role: expected user, assistant, tool or "
                                               f"system, got \"{msg['role'][:64]}\"")
            name = msg.get("name")
            if name is not None and not 1 <= len(name.encode("utf-8")) <= 128:
                raise _invalid(where + "name", f"{where}name: expected 1 to 128 bytes")
            vals = [_b(user), _b(source), _b(msg["content"]), _b(f.get("session")), _b(f.get("task")),
                    _b(name if name and source in ("agent", "tool") else self.agent),
                    _b(_message_time(at, i)) if at is not None else None]
            keep.append(vals)
            ev = evs[i]
            ev.size = ctypes.sizeof(AmEvent)
            (ev.user_id, ev.source, ev.text, ev.session_id, ev.task_id, ev.agent_id,
             ev.occurred_at) = vals
            ev.metadata_json = meta
        infos = (AmAddInfo * len(lst))()
        rc = self._lib.am_add_events(self._db, evs, len(lst), infos)
        if rc:
            err = self._fail(rc)
            field = _message_engine_field(err.message) if rc in (AM_INVALID, AM_TOOBIG) else None
            if field:
                err.field = field
            raise err
        return {"results": [self._add_shape(i) for i in infos]}

    def _events(self, params, body, query):
        keep = []
        if isinstance(body, dict) and "messages" in body:
            return self._messages(body)
        if isinstance(body, dict) and "events" in body:
            extra = [k for k in body if k != "events"]
            if extra:
                raise _invalid(extra[0], f'unknown field "{extra[0][:64]}" (a list of events is '
                                         f'{{"events": [...]}} alone)')
            lst = body["events"]
            if not isinstance(lst, list) or not 1 <= len(lst) <= 1000:
                got = ("more" if lst else "none") if isinstance(lst, list) else _json_type(lst)
                raise _invalid("events", f"events: expected an array of 1 to 1000 events, got {got}")
            evs = (AmEvent * len(lst))(*[self._event(o, f"events[{i}].", keep)
                                         for i, o in enumerate(lst)])
            infos = (AmAddInfo * len(lst))()
            rc = self._lib.am_add_events(self._db, evs, len(lst), infos)
            if rc:
                raise self._fail(rc)
            return {"results": [self._add_shape(i) for i in infos]}
        ev = self._event(body, "", keep)
        info = AmAddInfo()
        rc = self._lib.am_add_event(self._db, ctypes.byref(ev), ctypes.byref(info))
        if rc:
            raise self._fail(rc)
        return self._add_shape(info)

    def _recall(self, params, body, query):
        r = _fields(body, _RECALL_FIELDS)
        if not r.get("query"):
            raise _invalid("query", "query is required")
        for k in ("budget", "k"):
            if k in r and not 1 <= r[k] <= 100000:
                raise _invalid(k, f"{k}: expected 1 to 100000, got {r[k]}")
        q = AmQuery()
        vals = [_b(self._user(r.get("user"))), _b(r.get("agent", self.agent)), _b(r.get("session")),
                _b(r.get("task")), _b(r.get("domain")), _b(r["query"]), _b(r.get("as_of"))]
        q.user_id, q.agent_id, q.session_id, q.task_id, q.domain, q.text, q.as_of = vals
        q.budget_tokens, q.max_events = r.get("budget", 0), r.get("k", 0)
        keep = []
        if "filters" in r:
            q.filter = ctypes.pointer(self._filter(r["filters"], keep))
        out = ctypes.POINTER(AmRecallResult)()
        rc = self._lib.am_recall(self._db, ctypes.byref(q), ctypes.byref(out))
        if rc:
            raise self._fail(rc)
        try:
            return self._parsed(out.contents.json)
        finally:
            self._lib.am_recall_free(out)

    @staticmethod
    def _filter(spec, keep):
        """The body's "filters" ({kind, scope, metadata, from, to}) as an
        am_filter; keep holds what its pointers point at."""
        f = AmFilter()
        for key, v in spec.items():
            if key in ("kind", "scope"):
                lst = v if isinstance(v, list) else [v]
                if not all(isinstance(x, str) for x in lst) or len(lst) > 16:
                    raise _invalid("filters", f"filters.{key}: expected a string or an array of "
                                              f"at most 16 strings")
                arr = (c_char_p * max(len(lst), 1))(*[_b(x) for x in lst])
                keep.append(arr)
                if key == "kind":
                    f.kinds, f.n_kinds = arr, len(lst)
                else:
                    f.scopes, f.n_scopes = arr, len(lst)
            elif key == "metadata" and isinstance(v, dict):
                keep.append(_b(_json(v)))
                f.metadata_json = keep[-1]
            elif key in ("from", "to") and isinstance(v, str):
                keep.append(_b(v))
                setattr(f, "from_" if key == "from" else "to", keep[-1])
            else:
                raise _invalid("filters", f"filters.{str(key)[:64]}: unknown or of the wrong type "
                                          f"(kind, scope: a string or an array of strings; "
                                          f"metadata: an object; from, to: ISO 8601)")
        return f

    def _task(self, params, body, query):
        user = self._user(query.get("user"))
        t = ctypes.POINTER(AmTask)()
        rc = self._lib.am_task_get(self._db, _b(user), _b(params[0]), ctypes.byref(t))
        if rc:
            raise self._fail(rc)
        try:
            c = t.contents
            v = {"task_id": _s(c.task_id), "stage": _s(c.stage) or "", "status": _s(c.status),
                 "artifacts": self._parsed(c.artifacts_json), "pending": self._parsed(c.pending_json),
                 "notes": self._parsed(c.notes_json), "history": c.n_history, "round": c.round,
                 "period": _s(c.period), "rounds": self._parsed(c.rounds_json or b"[]")}
            if c.task_ref:
                v["task_ref"] = _s(c.task_ref)
            if c.round_started_at != AM_TIME_NONE:
                ts = ctypes.create_string_buffer(40)
                v["round_started_at"] = _s(self._lib.am_time_format(c.round_started_at, 0, ts))
            return v
        finally:
            self._lib.am_task_free(t)

    def _list(self, user, which, as_of):
        lst = ctypes.POINTER(AmMemoryList)()
        rc = self._lib.am_memories(self._db, _b(user), which, _b(as_of), ctypes.byref(lst))
        if rc:
            raise self._fail(rc)
        try:
            return self._parsed(lst.contents.json)
        finally:
            self._lib.am_memory_list_free(lst)

    def _memories(self, params, body, query):
        for k in query:
            if k not in _LIST_PARAMS and not k.startswith("metadata."):
                raise _invalid(k, f'unknown query parameter "{k[:64]}"')
        flag = query.get("all")
        if flag not in (None, "1", "0", "true", "false"):
            raise _invalid("all", "all: expected 1, 0, true or false")
        as_of = query.get("as_of")
        if as_of is not None and (not isinstance(as_of, str) or "\0" in as_of):
            raise _invalid("as_of", "as_of: expected ISO 8601 with a zone")
        user = self._user(query.get("user"))
        which = 1 if flag in ("1", "true") else 0
        spec = {k: query[k] for k in ("kind", "scope", "from", "to") if query.get(k) is not None}
        meta = {k[9:]: str(v) for k, v in query.items() if k.startswith("metadata.")}
        if meta:
            spec["metadata"] = meta
        limit = query.get("limit")
        if not spec and limit is None and query.get("cursor") is None:
            return self._list(user, which, as_of)
        if limit is not None:
            limit = str(limit)
            if not limit.isdigit() or not 1 <= int(limit) <= 1000:
                raise _invalid("limit", "limit: expected 1 to 1000")
        keep = []
        o = AmListOpts(which=which, as_of=_b(as_of), limit=int(limit or 0),
                       cursor=_b(query.get("cursor")))
        if spec:
            o.filter = ctypes.pointer(self._filter(spec, keep))
        lst = ctypes.POINTER(AmMemoryList)()
        rc = self._lib.am_memories_list(self._db, _b(user), ctypes.byref(o), ctypes.byref(lst))
        if rc:
            raise self._fail(rc)
        try:
            self._meta["next_cursor"] = _s(lst.contents.next_cursor)
            return self._parsed(lst.contents.json)
        finally:
            self._lib.am_memory_list_free(lst)

    def _versions(self, params, body, query):
        """Every version of the key of the item {id} names (a version or
        lineage id), oldest first: what the server's versions route lists."""
        items = self._list(self._user(query.get("user")), 1, None)
        mid = params[0]
        found = next((m for m in items if mid in (m.get("id"), m.get("lineage_id"))), None)
        if found is None:
            raise AgentmemError("not_found", f"id: no memory {mid}", "id", 404)
        same = [m for m in items if m.get("key") == found["key"] and m.get("scope") == found["scope"]]
        same.sort(key=lambda m: (m.get("recorded_at") or "", m.get("id") or ""))
        cursor, limit, nxt = query.get("cursor"), query.get("limit"), None
        if cursor is not None:
            at = next((i for i, m in enumerate(same) if m.get("id") == cursor), None)
            if at is None:
                raise _invalid("cursor", "cursor: not a version of this memory")
            same = same[at + 1:]
        if limit is not None:
            if not str(limit).isdigit() or not 1 <= int(limit) <= 1000:
                raise _invalid("limit", "limit: expected 1 to 1000")
            if len(same) > int(limit):
                same = same[:int(limit)]
                nxt = same[-1]["id"]
        return {"memory_id": mid, "key": found["key"], "versions": same, "next_cursor": nxt}

    def _feedback(self, params, body, query):
        f = _fields(body, _FEEDBACK_FIELDS)
        if not f.get("action"):
            raise _invalid("action", "action is required")
        action = _ACTIONS.get(f["action"])
        if not action:
            raise _invalid("action", "action: expected confirm, reject or correct")
        if action == 3 and not f.get("text"):
            raise _invalid("text", "text is required")
        user = self._user(f.get("user"))
        item = ctypes.POINTER(AmMemoryItem)()
        rc = self._lib.am_memory_feedback(self._db, _b(user), _b(params[0]), action,
                                          _b(f.get("text")), None, None, ctypes.byref(item))
        return {"ok": True, "memory": self._item(rc, item)["memory"]}

    def _item(self, rc, item):
        """The item's JSON ({"memory", "versions"}), the item released."""
        if rc:
            raise self._fail(rc)
        try:
            return self._parsed(item.contents.json)
        finally:
            self._lib.am_memory_item_free(item)

    def _memory_get(self, params, body, query):
        item = ctypes.POINTER(AmMemoryItem)()
        user = self._user(query.get("user"))
        return self._item(self._lib.am_memory_get(self._db, _b(user), _b(params[0]),
                                                  ctypes.byref(item)), item)

    def _memory_add(self, params, body, query):
        f = _fields(body, _MEMORY_FIELDS)
        if f.get("text") is None:
            raise _invalid("text", "text is required")
        user = self._user(f.get("user"))
        meta = _b(_json(f["metadata"])) if "metadata" in f else None
        mi = AmMemoryInput(user_id=_b(user), text=_b(f["text"]), kind=_b(f.get("kind")),
                           key=_b(f.get("key")), scope=_b(f.get("scope")), metadata_json=meta,
                           expires_at=_b(f.get("expires_at")))
        item = ctypes.POINTER(AmMemoryItem)()
        rc = self._lib.am_memory_add(self._db, ctypes.byref(mi), ctypes.byref(item))
        return {"memory": self._item(rc, item)["memory"]}

    def _memory_update(self, params, body, query):
        f = _fields(body, _PATCH_FIELDS)
        user = self._user(f.get("user"))
        item = ctypes.POINTER(AmMemoryItem)()
        meta = _b(_json(f["metadata"])) if "metadata" in f else None
        rc = self._lib.am_memory_set(self._db, _b(user), _b(params[0]), _b(f.get("text")), meta,
                                     None, None, ctypes.byref(item))
        return {"memory": self._item(rc, item)["memory"]}

    def _memory_delete(self, params, body, query):
        n = c_long(0)
        user = self._user(query.get("user"))
        rc = self._lib.am_memory_delete(self._db, _b(user), _b(params[0]), ctypes.byref(n))
        if rc:
            raise self._fail(rc)
        return {"deleted": n.value}

    def _forget(self, params, body, query):
        f = _fields(body, _FORGET_FIELDS)
        if not f.get("level"):
            raise _invalid("level", "level is required")
        level = _LEVELS.get(f["level"])
        if not level:
            raise _invalid("level", "level: expected event, session, task or user")
        if level != 4 and not f.get("id"):
            raise _invalid("id", "id is required")
        grace = f.get("grace")
        if grace is not None and (level != 4 or not 0 <= grace <= 3153600000):
            raise _invalid("grace", "grace: only a user forget has a grace period" if level != 4
                           else "grace: expected whole seconds, 0 to 3153600000")
        user = self._user(f.get("user"))
        info = AmForgetInfo()
        db = self._db
        if grace:
            # the grace period is a handle's (am_config.forget_grace_ms)
            cfg = self._cfg_t.from_buffer_copy(self._cfg)
            cfg.forget_grace_ms, cfg.must_exist = grace * 1000, 1
            db = self._open(cfg)
        try:
            rc = self._lib.am_forget(db, _b(user), level, _b(f.get("id")), ctypes.byref(info))
            if rc:
                raise self._fail(rc, db)
        finally:
            if db is not self._db:
                self._lib.am_close(db)
        return {"events": info.events, "memories": info.memories, "tasks": info.tasks}

    def _restore(self, params, body, query):
        f = _fields(body, {"user": str})
        rc = self._lib.am_restore(self._db, _b(self._user(f.get("user"))))
        if rc:
            raise self._fail(rc)
        return {"restored": True}

    def _export(self, params, body, query):
        out = c_void_p()
        rc = self._lib.am_export(self._db, _b(self._user(query.get("user"))), ctypes.byref(out))
        if rc:
            raise self._fail(rc)
        try:
            return self._parsed(ctypes.string_at(out))
        finally:
            self._lib.am_free(out)

    def _events_list(self, params, body, query):
        for k in query:
            if k not in ("limit", "cursor", "q", "session", "from", "to", "ids", "user"):
                raise _invalid(k, f'unknown query parameter "{k[:64]}"')
        limit = query.get("limit")
        if limit is not None:
            limit = str(limit)
            if not limit.isdigit() or not 1 <= int(limit) <= 1000:
                raise _invalid("limit", "limit: expected 1 to 1000")
        ids = [i for i in str(query.get("ids") or "").split(",") if i]
        if len(ids) > 100:
            raise _invalid("ids", "ids: at most 100")
        arr = (c_char_p * max(len(ids), 1))(*[_b(i) for i in ids])
        o = AmEventListOpts(limit=int(limit or 0), cursor=_b(query.get("cursor")),
                            query=_b(query.get("q")), session_id=_b(query.get("session")),
                            from_=_b(query.get("from")), to=_b(query.get("to")),
                            agent_id=_b(self.agent), ids=arr if ids else None, n_ids=len(ids))
        user = self._user(query.get("user"))
        page = ctypes.POINTER(AmEventPage)()
        rc = self._lib.am_events_list(self._db, _b(user), ctypes.byref(o), ctypes.byref(page))
        if rc:
            raise self._fail(rc)
        try:
            c = page.contents
            return {"user": user, "events": self._parsed(c.json),
                    "next_cursor": _s(c.next_cursor) if c.next_cursor else None}
        finally:
            self._lib.am_event_page_free(page)

    def _import(self, params, body, query):
        if not isinstance(body, dict) or "document" not in body:
            raise _invalid("document", "document is required")
        for k in body:
            if k not in ("document", "user", "merge", "from"):
                raise _invalid(k, f'unknown field "{k[:64]}"')
        src = body.get("from")
        if src not in (None, "mem0"):
            raise _invalid("from", 'from: expected "mem0"')
        doc = json.dumps(body["document"], ensure_ascii=False).encode()
        user = body.get("user")
        if user is not None and not isinstance(user, str):
            raise _invalid("user", "user: expected a string")
        if src == "mem0":
            user = self._user(user)
        info = AmImportInfo()
        if src == "mem0":
            rc = self._lib.am_import_mem0(self._db, doc, len(doc), _b(user), ctypes.byref(info))
        else:
            rc = self._lib.am_import(self._db, doc, len(doc), _b(user),
                                     1 if body.get("merge") else 0, ctypes.byref(info))
        if rc:
            raise self._fail(rc)
        return {"user": _s(info.user_id), "events": info.events, "memories": info.memories,
                "tasks": info.tasks, "events_skipped": info.events_skipped,
                "memories_skipped": info.memories_skipped, "tasks_skipped": info.tasks_skipped}

    def _profile(self, params, body, query):
        """The card, checked as GET /v1/profile checks its query."""
        for k in query:
            if k not in ("user", "budget"):
                raise _invalid(k, f'unknown query parameter "{k[:64]}"')
        budget = query.get("budget")
        if budget is not None and (not isinstance(budget, str) or not (budget.isascii() and budget.isdigit()) or
                                   not 1 <= int(budget) <= AM_PROFILE_BUDGET_MAX):
            raise _invalid("budget", f"budget: expected tokens from 1 to {AM_PROFILE_BUDGET_MAX}")
        user = self._user(query.get("user"))
        q = AmProfileQuery(user_id=_b(user), budget_tokens=int(budget or 0), agent_id=_b(self.agent))
        card = ctypes.POINTER(AmProfileCard)()
        rc = self._lib.am_profile(self._db, ctypes.byref(q), ctypes.byref(card))
        if rc:
            raise self._fail(rc)
        try:
            return self._parsed(card.contents.json)
        finally:
            self._lib.am_profile_free(card)

    def _health(self, params, body, query):
        # an embedded file store always answers (the server asks PostgreSQL);
        # as `agentmem serve` without --cache: no bus between instances (docs/EVENTS.md)
        return {"status": "ok", "store": "sqlite", "version": AM_VERSION_STRING,
                "store_reachable": True, "store_error": None,
                "cache": {"url_set": False, "state": "off",
                          "recall_cache": self._lib.am_cache_state(self._db, None).decode()},
                "degraded": self._lib.am_cache_state(self._db, None) == b"down"}
