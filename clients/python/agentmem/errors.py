# SPDX-License-Identifier: Apache-2.0
"""The one error type of both transports.

An HTTP error body {"error": {"code", "message", "field"}} becomes an
AgentmemError with those fields and the HTTP status; the embedded transport
raises the same codes with the status the server would have answered, so
a caller handles both alike (docs/openapi.json lists the codes).
"""

# the server's codes and their HTTP statuses (HTTP15.md, "Errors")
STATUS = {
    "invalid_request": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "not_found": 404,
    "method_not_allowed": 405,
    "payload_too_large": 413,
    "denied": 409,
    "too_many_requests": 429,
    "busy": 503,
    "internal": 500,
    "unavailable": None,  # the client could not reach the server
}


class AgentmemError(Exception):
    """code: one of STATUS; message: what and why; field: the request
    field at fault (None when none is); status: the HTTP status (None when
    the server was not reached).

    AgentmemError(code, ...) makes the subclass of its code (NotFound for
    "not_found", InvalidArgument for "invalid_request", ...), so
    `except agentmem.NotFound` and `except AgentmemError` both work."""

    def __new__(cls, code="internal", *args, **kwargs):
        if cls is AgentmemError:
            cls = _BY_CODE.get(code, AgentmemError)
        return super().__new__(cls)

    def __init__(self, code, message, field=None, status=None):
        super().__init__(f"{code}: {message}" + (f" (field {field})" if field else ""))
        self.code = code
        self.message = message
        self.field = field
        self.status = STATUS.get(code, 500) if status is None and code != "unavailable" else status

    def __reduce__(self):
        return (AgentmemError, (self.code, self.message, self.field, self.status))


class InvalidArgument(AgentmemError, ValueError):
    """400 invalid_request: .field names the request field at fault
    ("text", "messages[1].role", "metadata", "filters", "limit")."""


class Unauthorized(AgentmemError):
    """401: no token, or not a valid one."""


class Forbidden(AgentmemError):
    """403: the token may not do this (a user token naming another user)."""


class NotFound(AgentmemError, LookupError):
    """404: no such memory (or task, route, user) -- another user's memory
    is not found either."""


class MethodNotAllowed(AgentmemError):
    """405."""


class Conflict(AgentmemError):
    """409 denied: the engine refused (a user being forgotten, a restore
    after its grace period, an import into a user with data)."""


class PayloadTooLarge(AgentmemError):
    """413."""


class TooManyRequests(AgentmemError):
    """429: the user or the token holds its share already."""


class Unavailable(AgentmemError):
    """The server could not be reached (status None)."""


class Busy(Unavailable):
    """503 busy: the store stayed locked; nothing was written (retried
    after Retry-After by the HTTP transport before it is raised)."""


class InternalError(AgentmemError):
    """500 internal."""


_BY_CODE = {"invalid_request": InvalidArgument, "unauthorized": Unauthorized,
            "forbidden": Forbidden, "not_found": NotFound, "method_not_allowed": MethodNotAllowed,
            "denied": Conflict, "payload_too_large": PayloadTooLarge,
            "too_many_requests": TooManyRequests, "unavailable": Unavailable, "busy": Busy,
            "internal": InternalError}
