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
    "busy": 503,
    "internal": 500,
    "unavailable": None,  # the client could not reach the server
}


class AgentmemError(Exception):
    """code: one of STATUS; message: what and why; field: the request
    field at fault (None when none is); status: the HTTP status (None when
    the server was not reached)."""

    def __init__(self, code, message, field=None, status=None):
        super().__init__(f"{code}: {message}" + (f" (field {field})" if field else ""))
        self.code = code
        self.message = message
        self.field = field
        self.status = STATUS.get(code, 500) if status is None and code != "unavailable" else status
