# SPDX-License-Identifier: Apache-2.0
"""HttpTransport: the routes of client.py sent to `agentmem serve`.

urllib.request only.  Path parameters are percent-encoded whole (a task id
"周报/2" stays one segment), the body is UTF-8 JSON, the answer is parsed
JSON.  An error answer becomes an AgentmemError from its {"error": {...}}
body (or from the status alone when a proxy answered without one); a 503
busy is retried after its Retry-After (at most `retries` times: the
engine wrote nothing when it answered busy); a server that cannot be
reached is AgentmemError("unavailable").
"""

import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request

from .errors import AgentmemError

_BY_STATUS = {400: "invalid_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
              405: "method_not_allowed", 409: "denied", 413: "payload_too_large", 429: "too_many_requests",
              503: "busy"}


def _error_of(status, raw):
    try:
        e = json.loads(raw.decode("utf-8"))["error"]
        return AgentmemError(str(e["code"]), str(e.get("message") or ""), e.get("field"), status)
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        text = raw[:200].decode("utf-8", "replace")
        return AgentmemError(_BY_STATUS.get(status, "internal"), f"HTTP {status}: {text}", None, status)


class HttpTransport:
    name = "http"

    def __init__(self, url, token, timeout, retries):
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise AgentmemError("invalid_request", "url: expected http://HOST:PORT", "url")
        self.url = url.rstrip("/")
        self.token = token if token is not None else os.environ.get("AGENTMEM_TOKEN")
        self.timeout = timeout
        self.retries = retries

    def close(self):
        pass

    def request(self, method, path, params, body, query, meta=None):
        """The route's parsed JSON; meta (a dict, or None) gets
        "next_cursor": the X-Next-Cursor header of a list page."""
        for p in params:
            if not isinstance(p, str) or not p:
                raise AgentmemError("invalid_request", "expected a non-empty string id", "id")
        # each "{name}" of the template takes the next parameter, encoded whole
        parts = path.split("{")
        url = self.url + parts[0]
        for value, rest in zip(params, parts[1:]):
            url += urllib.parse.quote(value, safe="") + rest.split("}", 1)[1]
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None
        headers = {"Accept": "application/json"}
        if body is not None:
            data = json.dumps(body, ensure_ascii=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        for attempt in range(self.retries + 1):
            rq = urllib.request.Request(url, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(rq, timeout=self.timeout) as r:
                    raw = r.read()
                    if meta is not None:
                        meta["next_cursor"] = r.headers.get("X-Next-Cursor") or None
                return json.loads(raw.decode("utf-8"))
            except urllib.error.HTTPError as e:
                raw = e.read()
                err = _error_of(e.code, raw)
                if e.code == 503 and attempt < self.retries:
                    try:
                        wait = float(e.headers.get("Retry-After") or 1)
                    except ValueError:
                        wait = 1.0
                    time.sleep(min(max(wait, 0.05), 10.0))
                    continue
                raise err from None
            except (urllib.error.URLError, OSError) as e:
                raise AgentmemError("unavailable", f"{method} {url}: {e}", None, None) from None
            except ValueError as e:
                raise AgentmemError("internal", f"{method} {path}: the answer is not JSON: {e}",
                                    None, 200) from None
