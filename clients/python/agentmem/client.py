# SPDX-License-Identifier: Apache-2.0
"""The API both transports share.

Each method builds the request of one server route -- method, path
template, path parameters, JSON body, query -- with the wire names of
docs/openapi.json (None values left out), and hands it to the transport:
HttpTransport sends it to `agentmem serve`, EmbeddedTransport runs the
same route in-process on the library.  So a method means the same thing,
is checked the same way and returns the same dict on both.
"""

from .errors import AgentmemError


def _body(**fields):
    return {k: v for k, v in fields.items() if v is not None}


def _check_text(value, field):
    """Every string of a request must be UTF-8 (a lone surrogate such as
    "\\ud800" is not) without NUL: refused here, by field, for both
    transports alike."""
    if isinstance(value, str):
        if "\0" in value:
            # the server's JSON parser refuses \u0000 as "not JSON", naming no field
            raise AgentmemError("invalid_request", f"{field}: contains a NUL character", field, 400)
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise AgentmemError("invalid_request", f"{field}: not valid UTF-8 (a lone surrogate at "
                                                   f"character {e.start})", field, 400) from None
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_text(k, field or "body")
            _check_text(v, f"{field}.{k}" if field else str(k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_text(v, f"{field}[{i}]")


class Client:
    def __init__(self, transport):
        self._t = transport

    @property
    def transport(self):
        """"http" or "embedded"."""
        return self._t.name

    def close(self):
        self._t.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _call(self, method, path, params=(), body=None, query=None, meta=None):
        params = tuple(params)
        for p in params:
            _check_text(p, "id")
        _check_text(body or {}, "")
        _check_text(query or {}, "")
        if meta is not None:
            return self._t.request(method, path, params, body, query or {}, meta)
        return self._t.request(method, path, params, body, query or {})

    # ------------------------------------------------------------ write
    def add(self, text, session=None, task=None, agent=None, source=None, type=None,
            domain=None, at=None, id=None, intent=None, user=None):
        """Add one event (POST /v1/events) -> the `add --json` dict
        (event_id, user, task, memories_created, ..., existing).

        text may also be a chat transcript, a list of messages
        [{"role": "user|assistant|tool|system", "content": ..., "name": ...}]:
        each an event of its role's source, in order, in one transaction
        (session, task, at and user apply to all; at: message i i ms
        after it) -> {"results": [add dict, ...]}."""
        if isinstance(text, (list, tuple)):
            return self._call("POST", "/v1/events", body=_body(
                messages=list(text), session=session, task=task, agent=agent, source=source,
                type=type, domain=domain, at=at, id=id, intent=intent, user=user))
        return self._call("POST", "/v1/events", body=_body(
            text=text, session=session, task=task, agent=agent, source=source, type=type,
            domain=domain, at=at, id=id, intent=intent, user=user))

    def add_many(self, events):
        """Add a list of event dicts (the keys of add) in one transaction,
        all or nothing -> {"results": [add dict, ...]}."""
        return self._call("POST", "/v1/events", body={"events": list(events)})

    def feedback(self, memory_id, action, text=None, user=None):
        """confirm | reject | correct (with text) a memory -> {"ok": True,
        "memory": its new current version, or None after reject}."""
        return self._call("POST", "/v1/memories/{id}/feedback", [memory_id],
                          _body(action=action, text=text, user=user))

    def add_memory(self, text, kind=None, key=None, scope=None, user=None, expires_at=None):
        """State one memory directly (POST /v1/memories): a new value of the
        same key supersedes, the same text reinforces -> {"memory": {...}}.
        expires_at (ISO 8601 with a zone, or an aware datetime): when it
        stops being current (docs/EXPIRY.md)."""
        if hasattr(expires_at, "isoformat"):
            if getattr(expires_at, "tzinfo", None) is None:
                raise ValueError("expires_at: a datetime needs a time zone")
            expires_at = expires_at.isoformat()
        return self._call("POST", "/v1/memories", body=_body(
            text=text, kind=kind, key=key, scope=scope, user=user, expires_at=expires_at))

    def get_memory(self, memory_id, user=None):
        """One memory by its lineage id or any version's id ->
        {"memory": current or None, "versions": [...]}."""
        return self._call("GET", "/v1/memories/{id}", [memory_id], query=_body(user=user))

    def update_memory(self, memory_id, text, user=None):
        """Correct a memory: text becomes its new current version ->
        {"memory": {...}}."""
        return self._call("PATCH", "/v1/memories/{id}", [memory_id], _body(text=text, user=user))

    def delete_memory(self, memory_id, user=None):
        """Delete every version of a memory -> {"deleted": n}."""
        return self._call("DELETE", "/v1/memories/{id}", [memory_id], query=_body(user=user))

    def forget(self, level, id=None, grace=None, user=None):
        """Forget an event | session | task (by id) or the user (grace: seconds
        it can still be restored) -> {"events", "memories", "tasks"} removed."""
        return self._call("POST", "/v1/forget", body=_body(level=level, id=id, grace=grace, user=user))

    def restore(self, user=None):
        """Bring back the user forgotten with a grace period -> {"restored": True}."""
        return self._call("POST", "/v1/restore", body=_body(user=user))

    # ------------------------------------------------------------ read
    def recall(self, query, session=None, task=None, agent=None, domain=None, as_of=None,
               budget=None, k=None, user=None):
        """What the agent should be given for a turn (POST /v1/recall) -> the
        `recall --json` dict; its "block" is the text to put in the prompt, or,
        apart, "block_system" (profile, preferences, constraints: for the system
        prompt) and "block_context" (facts, task state, events: right before the
        conversation's history)."""
        return self._call("POST", "/v1/recall", body=_body(
            query=query, session=session, task=task, agent=agent, domain=domain, as_of=as_of,
            budget=budget, k=k, user=user))

    def profile(self, budget=None, user=None):
        """The user's profile card (GET /v1/profile, docs/PROFILE.md): current
        lasting items by topic, each once, within budget tokens (default
        400, at most 100000), in the user's language -> {"lang", "text":
        the card for a system prompt, "sections", "tokens", "items",
        "duplicates", "left_out", "budget_tokens"}."""
        if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int)):
            raise AgentmemError("invalid_request", "budget: expected an integer (tokens)", "budget", 400)
        return self._call("GET", "/v1/profile", query=_body(
            budget=str(budget) if budget is not None else None, user=user))

    def task(self, task_id, user=None):
        """A task's state -> the `task --json` dict."""
        return self._call("GET", "/v1/tasks/{task_id}", [task_id], query=_body(user=user))

    def memories(self, all=False, as_of=None, user=None):
        """The user's memory items (every version with all=True; as the
        world stood at as_of) -> the `memories --json` list."""
        return self._call("GET", "/v1/memories", query=_body(
            all="1" if all else None, as_of=as_of, user=user))

    def versions(self, memory_id, user=None):
        """Every version of a memory item's key, oldest first ->
        {"memory_id", "key", "versions": [...]}."""
        return self._call("GET", "/v1/memories/{id}/versions", [memory_id], query=_body(user=user))

    def export(self, user=None):
        """Everything stored about the user -> the export document."""
        return self._call("GET", "/v1/export", query=_body(user=user))

    def events(self, limit=None, cursor=None, q=None, session=None, from_=None, to=None,
               ids=None, user=None):
        """A page of the user's events, newest first (GET /v1/events) ->
        {"user", "events": [...], "next_cursor": str or None}; q searches their
        text, ids (a list, at most 100) names events."""
        return self._call("GET", "/v1/events", query=_body(
            limit=str(limit) if limit is not None else None, cursor=cursor, q=q, session=session,
            **{"from": from_}, to=to, ids=",".join(ids) if ids else None, user=user))

    def import_export(self, document, user=None, merge=False, from_=None):
        """Load an export (or, with from_="mem0", mem0's get_all answer) into
        the store (POST /v1/import, an admin token; embedded: the handle's
        store) -> {user, events, memories, tasks, events_skipped, ...}."""
        return self._call("POST", "/v1/import", body=_body(
            document=document, user=user, merge=True if merge else None, **{"from": from_}))

    def health(self):
        """{"status": "ok", "store": "sqlite", "version": ..., "store_reachable": true,
        "store_error": null}; a store that does not answer raises (503)."""
        return self._call("GET", "/healthz")
