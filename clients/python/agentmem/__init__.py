# SPDX-License-Identifier: Apache-2.0
"""agentmem -- Python client of the agentmem memory engine.

One API over two transports:

    import agentmem
    mem = agentmem.open_embedded("memory.db", user="alice")   # in-process, no server
    mem = agentmem.connect("http://127.0.0.1:8420", token="amk_...")  # agentmem serve

    mem.add("From now on, always send reports as PDF", session="s1")
    block = mem.recall("How should I send the report?")["block"]

Or mem0's shape, one object for many users (agentmem.Memory):

    m = agentmem.Memory()          # embedded; Memory(url=..., token=...) over HTTP
    m.add([{"role": "user", "content": "I prefer tea"}], user_id="alice")
    m.search("what should I drink?", user_id="alice")["results"]

Every method returns what the server's route returns (the CLI's --json
shapes, docs/openapi.json); every error is an AgentmemError.  Standard
library only.
"""

from .client import Client
from .errors import (AgentmemError, Busy, Conflict, Forbidden, InternalError, InvalidArgument,
                     MethodNotAllowed, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
                     Unavailable)
from .memory import Memory, default_path

__all__ = ["AgentmemError", "Busy", "Client", "Conflict", "Forbidden", "InternalError",
           "InvalidArgument", "Memory", "MethodNotAllowed", "NotFound", "PayloadTooLarge",
           "TooManyRequests", "Unauthorized", "Unavailable", "connect", "default_path",
           "open_embedded"]
__version__ = "0.1.0"


def connect(url="http://127.0.0.1:8420", token=None, timeout=30.0, retries=2):
    """A client of a running `agentmem serve` at url.  token: the bearer
    token (`agentmem token create`); default $AGENTMEM_TOKEN.  retries: how
    many times a 503 busy answer is retried after its Retry-After."""
    from .http import HttpTransport

    return Client(HttpTransport(url, token, timeout, retries))


def open_embedded(path, user, agent=None, lib=None, embedder=None):
    """A client of the store file path, in this process, over the shared
    library (lib, else $AGENTMEM_LIB, else the installed libagentmem.so.0
    as the loader finds it, else build/cmake/libagentmem.so of the source
    tree).  The user is fixed
    here, as a token fixes it; agent is the default agent of events and
    recalls.  embedder: am_config.embedder (default $AGENTMEM_EMBEDDER, else
    "auto": the built-in encoder when its weights are installed, else keyword
    recall)."""
    from .embedded import EmbeddedTransport

    return Client(EmbeddedTransport(path, user, agent, lib, embedder))
