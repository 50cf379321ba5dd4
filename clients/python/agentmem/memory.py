# SPDX-License-Identifier: Apache-2.0
"""Memory: mem0's method names and keyword shapes over agentmem.

    from agentmem import Memory
    m = Memory()                                   # embedded, the default store file
    m = Memory(path="memory.db")                   # embedded, this file
    m = Memory(url="http://127.0.0.1:8420", token="amk_...")   # agentmem serve

    m.add([{"role": "user", "content": "I prefer tea"}], user_id="alice")
    hits = m.search("what should I drink?", user_id="alice")
    hits["results"][0]["memory"], hits["block"]

One object serves many users: each call names its user (user_id=).
Embedded, any user of the store file; over HTTP, any user with an admin
token, or the token's own user (naming another is Forbidden).  The
`user_id` given to the constructor is the default of calls that name
none (over HTTP with a user token, the token's user is the default).

A memory is returned as {"id": its stable id (the lineage id: every
later version keeps it), "memory": its text, "metadata", "user_id",
"created_at", "updated_at", "kind", "key", "scope", "version_id",
"score" (search)}.  Errors are the classes of agentmem.errors (NotFound,
InvalidArgument with .field, Forbidden, ...).
"""

from __future__ import annotations

import datetime
import json
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from .client import Client
from .errors import AgentmemError, InvalidArgument

Message = Mapping[str, Any]
Messages = Union[str, Sequence[Message]]
Result = Dict[str, Any]

_FILTER_KEYS = ("kind", "scope", "metadata", "from", "to")
_PAGE = 1000
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def default_path() -> str:
    """The default store file: $AGENTMEM_DB, else
    ${XDG_DATA_HOME:-~/.local/share}/agentmem/agentmem.db."""
    p = os.environ.get("AGENTMEM_DB")
    if p:
        return p
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "agentmem", "agentmem.db")


def _ulid_second(ulid: str) -> Optional[str]:
    """The time a ULID carries (an event's: when it occurred), to the second."""
    n = 0
    try:
        for ch in ulid[:10].upper():
            n = n * 32 + _CROCKFORD.index(ch)
    except ValueError:
        return None
    t = datetime.datetime.fromtimestamp(n / 1000, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _as_text(v: Any) -> str:
    """A metadata value compared as the engine compares it: as text."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    return json.dumps(v)


def _filters(filters: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    """mem0-style filters as agentmem's {kind, scope, metadata, from, to}:
    any other key is a metadata key ({"category": "food"} is
    {"metadata": {"category": "food"}})."""
    if filters is None:
        return {}
    if not isinstance(filters, Mapping):
        raise InvalidArgument("invalid_request", "filters: expected an object", "filters", 400)
    out: Dict[str, Any] = {}
    meta: Dict[str, Any] = {}
    for k, v in filters.items():
        if k in _FILTER_KEYS:
            if k == "metadata":
                if not isinstance(v, Mapping):
                    raise InvalidArgument("invalid_request", "filters.metadata: expected an object",
                                          "filters", 400)
                meta.update(v)
            else:
                out[k] = v
        else:
            meta[k] = v
    if meta:
        out["metadata"] = meta
    return out


class Memory:
    """mem0's Memory over agentmem: add, search, get, get_all, update,
    delete, delete_all, history."""

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None,
                 path: Optional[str] = None, *, user_id: Optional[str] = None,
                 lib: Optional[str] = None, embedder: Optional[str] = None,
                 timeout: float = 30.0, retries: int = 2) -> None:
        """url (with token, default $AGENTMEM_TOKEN): a running `agentmem
        serve`.  Else embedded: path, or the default store file
        (default_path(); its folder is created).  user_id: the user of
        calls that name none.  lib, embedder: as open_embedded's."""
        if url is not None and path is not None:
            raise InvalidArgument("invalid_request", "path: not with url (one transport)", "path", 400)
        if user_id is not None and (not isinstance(user_id, str) or not user_id):
            raise InvalidArgument("invalid_request", "user_id: expected a non-empty string",
                                  "user_id", 400)
        self.user_id = user_id
        if url is not None:
            from .http import HttpTransport
            self._c = Client(HttpTransport(url, token, timeout, retries))
        else:
            from .embedded import EmbeddedTransport
            if path is None:
                path = default_path()
                folder = os.path.dirname(path)
                if folder:
                    os.makedirs(folder, exist_ok=True)
            self.path = path
            self._c = Client(EmbeddedTransport(path, None, None, lib, embedder))

    # ------------------------------------------------------------ plumbing
    @property
    def transport(self) -> str:
        """"http" or "embedded"."""
        return self._c.transport

    @property
    def client(self) -> Client:
        """The underlying Client (every route: recall, feedback, export...)."""
        return self._c

    def close(self) -> None:
        self._c.close()

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _user(self, user_id: Optional[str]) -> Optional[str]:
        u = user_id if user_id is not None else self.user_id
        if u is not None and (not isinstance(u, str) or not u):
            raise InvalidArgument("invalid_request", "user_id: expected a non-empty string",
                                  "user_id", 400)
        if u is None and self._c.transport == "embedded":
            raise InvalidArgument("invalid_request", "user_id: required (an embedded store serves "
                                  "many users: name the user, or give Memory(user_id=...))",
                                  "user_id", 400)
        return u

    def _call(self, method: str, path: str, params: Sequence[str] = (), body: Any = None,
              query: Optional[Dict[str, Any]] = None, meta: Optional[Dict[str, Any]] = None) -> Any:
        try:
            return self._c._call(method, path, params, body, query, meta)
        except AgentmemError as e:
            if e.field == "user":  # this API's name of it
                e.field = "user_id"
            raise

    @staticmethod
    def _id(memory_id: Any) -> str:
        if not isinstance(memory_id, str) or not memory_id:
            raise InvalidArgument("invalid_request", "memory_id: expected a non-empty string",
                                  "memory_id", 400)
        return memory_id

    def _fmt(self, m: Mapping[str, Any], user: Optional[str], score: bool = False) -> Result:
        out = {"id": m.get("lineage_id") or m.get("id"), "memory": m.get("text"),
               "metadata": m.get("metadata") or {}, "user_id": user,
               "created_at": m.get("recorded_at"),
               "updated_at": m.get("reinforced_at") or m.get("recorded_at"),
               "kind": m.get("kind"), "key": m.get("key"), "scope": m.get("scope"),
               "version_id": m.get("id")}
        if score:
            out["score"] = m.get("score")
        return out

    def _pages(self, user: Optional[str], query: Dict[str, Any],
               limit: Optional[int] = None) -> List[Dict[str, Any]]:
        """GET /v1/memories page after page (the X-Next-Cursor cursor)."""
        rows: List[Dict[str, Any]] = []
        cursor = None
        while True:
            want = _PAGE if limit is None else max(1, min(_PAGE, limit - len(rows)))
            meta: Dict[str, Any] = {}
            q = dict(query, user=user, limit=str(want), cursor=cursor)
            page = self._call("GET", "/v1/memories", query={k: v for k, v in q.items()
                                                            if v is not None}, meta=meta)
            rows.extend(page)
            cursor = meta.get("next_cursor")
            if not cursor or not page or (limit is not None and len(rows) >= limit):
                return rows if limit is None else rows[:limit]

    # ------------------------------------------------------------ mem0's methods
    def add(self, messages: Messages, user_id: Optional[str] = None, agent_id: Optional[str] = None,
            session_id: Optional[str] = None, metadata: Optional[Mapping[str, Any]] = None) -> Result:
        """Add a conversation: a string (what the user said) or a list of
        chat messages [{"role": "user|assistant|tool|system", "content",
        "name"?}], each an event in order, in one transaction.  agent_id:
        the agent of the assistant's and tools' messages (a message's own
        "name" wins); session_id: the session of every message (mem0's
        run_id); metadata: a flat object every event and the memories
        distilled from them carry.

        -> {"results": [{"id", "memory", "event": "ADD" | "UPDATE" |
        "DELETE" | "NONE", "previous_memory" (UPDATE), ...the memory's
        fields}], "events": [the add result of each event: event_id,
        memories_created, ...]}.  Only what the user states becomes a
        lasting memory; "NONE" is a memory the text repeated
        (reinforced)."""
        user = self._user(user_id)
        meta = dict(metadata) if metadata is not None else None
        if isinstance(messages, str):
            r = self._call("POST", "/v1/events", body={k: v for k, v in {
                "text": messages, "user": user, "agent": agent_id, "session": session_id,
                "metadata": meta}.items() if v is not None})
            events = [r]
        elif isinstance(messages, (list, tuple)):
            msgs = []
            for m in messages:
                if (agent_id is not None and isinstance(m, Mapping) and "name" not in m
                        and m.get("role") in ("assistant", "tool")):
                    m = dict(m, name=agent_id)
                msgs.append(m)
            r = self._call("POST", "/v1/events", body={k: v for k, v in {
                "messages": msgs, "user": user, "session": session_id,
                "metadata": meta}.items() if v is not None})
            events = r["results"]
        else:
            raise InvalidArgument("invalid_request", "messages: expected a string or a list of "
                                  "{role, content} messages", "messages", 400)
        return {"results": self._changes(user, events), "events": events}

    def _changes(self, user: Optional[str], events: List[Mapping[str, Any]]) -> List[Result]:
        """The memories the events created, updated, reinforced or closed:
        read from the user's versions (their provenance names the events;
        a closed item's validity ends at an event's time)."""
        if not any(e.get("memories_created") or e.get("memories_updated")
                   or e.get("memories_invalidated") for e in events):
            return []
        ids = {e["event_id"] for e in events}
        owner = user or (events[0].get("user") if events else None)
        closed_at = {_ulid_second(i) for i in ids} if any(
            e.get("memories_invalidated") for e in events) else set()
        lineages: Dict[str, List[Dict[str, Any]]] = {}
        for v in self._pages(user, {"all": "1"}):
            lineages.setdefault(v.get("lineage_id") or v["id"], []).append(v)
        out: List[Result] = []
        for vs in lineages.values():
            vs.sort(key=lambda v: (v.get("recorded_at") or "", v.get("id") or ""))
            cur = next((v for v in vs if v.get("version_state") == "current"), None)
            if cur is not None and ids & set(cur.get("source_event_ids") or ()):
                item = self._fmt(cur, owner)
                srcs = cur.get("source_event_ids") or []
                before = [v for v in vs if v is not cur and v.get("text") != cur.get("text")]
                if srcs and srcs[0] in ids and not before:
                    item["event"] = "ADD" if len(vs) == 1 or all(
                        ids & set(v.get("source_event_ids") or ()) for v in vs) else "UPDATE"
                elif srcs and srcs[0] in ids:
                    item["event"] = "UPDATE"
                    item["previous_memory"] = before[-1].get("text")
                else:
                    item["event"] = "NONE"
                out.append(item)
            elif cur is None and closed_at and vs[-1].get("valid_to") in closed_at:
                item = self._fmt(vs[-1], owner)
                item["event"] = "DELETE"
                out.append(item)
        return out

    def search(self, query: str, user_id: Optional[str] = None,
               filters: Optional[Mapping[str, Any]] = None, limit: Optional[int] = None,
               agent_id: Optional[str] = None, session_id: Optional[str] = None) -> Result:
        """What to give the model for this turn (POST /v1/recall) ->
        {"results": [memories, best first, each with "score"], "block":
        the rendered memory block to put in the prompt, "block_system",
        "block_context" (its two parts), "events": [the relevant events]}.
        filters: {"kind", "scope", "metadata": {key: value or [values]},
        "from", "to"}; any other key is a metadata key.  limit: at most
        that many results (the block is the engine's own choice)."""
        user = self._user(user_id)
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise InvalidArgument("invalid_request", "limit: expected a positive integer", "limit", 400)
        f = _filters(filters)
        r = self._call("POST", "/v1/recall", body={k: v for k, v in {
            "query": query, "user": user, "agent": agent_id, "session": session_id,
            "filters": f or None}.items() if v is not None})
        results = [self._fmt(m, user, score=True) for m in r.get("memories") or []]
        if limit is not None:
            results = results[:limit]
        return {"results": results, "block": r.get("block", ""),
                "block_system": r.get("block_system", ""), "block_context": r.get("block_context", ""),
                "events": r.get("events") or []}

    def get(self, memory_id: str, user_id: Optional[str] = None) -> Result:
        """One memory by its id (the stable id, or any version's id) -> the
        memory; NotFound when there is none (mem0 answers None)."""
        user = self._user(user_id)
        r = self._call("GET", "/v1/memories/{id}", [self._id(memory_id)],
                       query={"user": user} if user else None)
        if r.get("memory") is None:
            raise AgentmemError("not_found", f"memory_id: no current memory {memory_id}",
                                "memory_id", 404)
        item = self._fmt(r["memory"], user)
        if r.get("versions"):
            item["created_at"] = r["versions"][0].get("recorded_at")
        return item

    def profile(self, user_id: Optional[str] = None, budget: Optional[int] = None) -> Result:
        """The user's profile card, ready for a system prompt: current
        lasting items grouped by topic, each once, within budget tokens
        (default 400), in the user's language (docs/PROFILE.md) -> {"text":
        the card, "lang", "sections", "tokens", "items", "duplicates",
        "left_out", "budget_tokens"}."""
        user = self._user(user_id)
        if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int)):
            raise InvalidArgument("invalid_request", "budget: expected an integer (tokens)",
                                  "budget", 400)
        return self._call("GET", "/v1/profile", query={k: v for k, v in {
            "user": user, "budget": str(budget) if budget is not None else None}.items()
            if v is not None})

    def get_all(self, user_id: Optional[str] = None, filters: Optional[Mapping[str, Any]] = None,
                limit: Optional[int] = None) -> Result:
        """The user's current memories, every page (limit: at most that
        many) -> {"results": [memories]}.  filters as search's; a kind,
        scope or metadata value given as a list keeps any of them."""
        user = self._user(user_id)
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise InvalidArgument("invalid_request", "limit: expected a positive integer", "limit", 400)
        f = _filters(filters)
        query: Dict[str, Any] = {}
        anyof: Dict[str, List[str]] = {}
        for k in ("kind", "scope", "from", "to"):
            if k in f:
                v = f[k]
                if isinstance(v, (list, tuple)):
                    anyof[k] = [_as_text(x) for x in v]
                else:
                    query[k] = v
        for k, v in (f.get("metadata") or {}).items():
            if isinstance(v, (list, tuple)):
                anyof["metadata." + k] = [_as_text(x) for x in v]
            else:
                query["metadata." + k] = _as_text(v)
        rows = self._pages(user, query, None if anyof else limit)
        if anyof:
            def keep(m: Mapping[str, Any]) -> bool:
                for k, vals in anyof.items():
                    got = (m.get("metadata") or {}).get(k[9:]) if k.startswith("metadata.") else m.get(k)
                    if got is None or _as_text(got) not in vals:
                        return False
                return True
            rows = [m for m in rows if keep(m)]
            if limit is not None:
                rows = rows[:limit]
        return {"results": [self._fmt(m, user) for m in rows]}

    def update(self, memory_id: str, text: Optional[str] = None,
               metadata: Optional[Mapping[str, Any]] = None, user_id: Optional[str] = None) -> Result:
        """Correct a memory: text (and/or metadata; {} clears it) becomes
        its new current version; the old one stays in history() ->
        {"message": "Memory updated successfully!", "memory": the memory}."""
        user = self._user(user_id)
        body = {k: v for k, v in {"text": text, "user": user,
                                  "metadata": dict(metadata) if metadata is not None else None}.items()
                if v is not None}
        r = self._call("PATCH", "/v1/memories/{id}", [self._id(memory_id)], body)
        return {"message": "Memory updated successfully!", "memory": self._fmt(r["memory"], user)}

    def delete(self, memory_id: str, user_id: Optional[str] = None) -> Result:
        """Delete a memory: every version of it, from every table, index and
        cache, for good (then get() is NotFound) -> {"message", "deleted":
        the number of versions}.  The events it came from stay."""
        user = self._user(user_id)
        r = self._call("DELETE", "/v1/memories/{id}", [self._id(memory_id)],
                       query={"user": user} if user else None)
        return {"message": "Memory deleted successfully!", "deleted": r.get("deleted")}

    def delete_all(self, user_id: Optional[str] = None) -> Result:
        """FORGETS EVERYTHING OF THE USER: every memory, and also every event
        (the conversation itself), task and working note of user_id, at
        once and for good (POST /v1/forget level user).  mem0's delete_all
        removes memories only; there is no undo here.  -> {"message",
        "events", "memories", "tasks": how many went}."""
        user = self._user(user_id)
        r = self._call("POST", "/v1/forget", body={k: v for k, v in {
            "level": "user", "user": user}.items() if v is not None})
        return dict({"message": "Memories deleted successfully!"}, **r)

    def history(self, memory_id: str, user_id: Optional[str] = None) -> List[Result]:
        """The memory's versions, oldest first, as mem0's history rows:
        {"id": the version's id, "memory_id", "old_memory", "new_memory",
        "event": "ADD" | "UPDATE" | "DELETE", "created_at", "metadata",
        "is_deleted"}; a memory the engine closed ends with a DELETE row."""
        user = self._user(user_id)
        r = self._call("GET", "/v1/memories/{id}", [self._id(memory_id)],
                       query={"user": user} if user else None)
        rows: List[Result] = []
        prev: Optional[Mapping[str, Any]] = None
        for v in r.get("versions") or []:
            if prev is not None and v.get("text") == prev.get("text") and \
                    (v.get("metadata") or {}) == (prev.get("metadata") or {}):
                prev = v  # the same value closed or re-recorded: no change to tell
                continue
            rows.append({"id": v.get("id"), "memory_id": v.get("lineage_id"),
                         "old_memory": prev.get("text") if prev else None,
                         "new_memory": v.get("text"), "event": "UPDATE" if prev else "ADD",
                         "created_at": v.get("recorded_at"), "metadata": v.get("metadata") or {},
                         "is_deleted": False})
            prev = v
        if r.get("memory") is None and prev is not None:
            rows.append({"id": prev.get("id"), "memory_id": prev.get("lineage_id"),
                         "old_memory": prev.get("text"), "new_memory": None, "event": "DELETE",
                         "created_at": prev.get("valid_to") or prev.get("superseded_at"),
                         "metadata": prev.get("metadata") or {}, "is_deleted": True})
        return rows
