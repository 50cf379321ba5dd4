/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mcp.h -- agentmem as a Model Context Protocol server, independent of the
 * transport.  A transport (stdio: `agentmem mcp`; Streamable HTTP: the
 * server's POST /mcp) hands each message it receives to am_mcp_handle (or
 * am_mcp_handle_http) and sends back the reply it gets, if any.
 *
 * One handle serves one user, fixed when it is made (stdio: --user; HTTP:
 * the token's user) -- no message can name another: a tool argument `user`
 * is refused.  The protocol revisions are served side by side
 * (docs/MCP.md): the handshake ones (2024-11-05, 2025-03-26, 2025-06-18,
 * 2025-11-25), where `initialize` negotiates a version for the rest of the
 * stdio process, and the stateless 2026-07-28, where every
 * request carries its protocol version and client capabilities in
 * params._meta and every result a `resultType`.
 *
 * Uses only include/agentmem.h and jansson; results carry the CLI's --json
 * shapes (tools/common/shapes.h).  A handle, like the am_db under it, is
 * used by one thread at a time; the transport owns the am_db, which must
 * outlive the handle.
 */
#ifndef AM_MCP_H
#define AM_MCP_H
#include <stddef.h>

#include "agentmem.h"

/* The revisions served: the stateless one, and the latest of the
 * handshake ones an `initialize` may select (2025-11-25, 2025-06-18,
 * 2025-03-26, 2024-11-05: the client's, else this one). */
#define AM_MCP_MODERN_VERSION "2026-07-28"
#define AM_MCP_LEGACY_VERSION "2025-11-25"

/* Largest message accepted (bytes); a longer one is refused with an
 * Invalid Request error. */
#define AM_MCP_MAX_MESSAGE (1024 * 1024)

typedef struct am_mcp am_mcp;

/* A handle serving user_id (1..AM_ID_MAX bytes, checked by the library on
 * every call) as agent agent_id (NULL: none) on db (borrowed).  The strings
 * are copied.  NULL when db or user_id is NULL or too long, or out of
 * memory. */
am_mcp *am_mcp_new(am_db *db, const char *user_id, const char *agent_id);
/* The same with the role role (NULL: none).  With an agent or a role,
 * every tool reads and acts as they may (the library's access decision,
 * am_access_open): recall, task_state and list_memories show what REST
 * shows the same token, feedback and forget answer not_found for what
 * it may not read, and remember writes as the handle's agent. */
am_mcp *am_mcp_new_as(am_db *db, const char *user_id, const char *agent_id, const char *role);

/* Free the handle (NULL: no-op).  The am_db stays open. */
void am_mcp_free(am_mcp *m);

/* Handle one JSON-RPC message of len bytes (not NUL-terminated; any bytes
 * at all).  *reply receives the reply -- one line of compact JSON without
 * a line break, owned: free with am_mcp_reply_free -- or NULL when the
 * message gets none (a notification, a response).  Errors of the message
 * are replies (JSON-RPC errors, or tool results with isError), not return
 * codes.  Returns AM_OK, AM_MISUSE (NULL m, msg with len > 0, or reply),
 * AM_NOMEM (*reply NULL). */
int am_mcp_handle(am_mcp *m, const char *msg, size_t len, char **reply);
void am_mcp_reply_free(char *reply);

/* ------------------------------------------------ Streamable HTTP helpers */

/* The request headers the transport passes on (NULL: absent).  Header
 * names are case-insensitive in HTTP; the transport looks them up. */
typedef struct am_mcp_http_headers {
    const char *protocol_version; /* MCP-Protocol-Version */
    const char *method;           /* Mcp-Method (2026-07-28) */
    const char *name;             /* Mcp-Name (2026-07-28, tools/call) */
} am_mcp_http_headers;

/* Handle the body of one POST /mcp.  Stateless: nothing of an earlier
 * request is used (a handshake-era client's version comes from its
 * MCP-Protocol-Version header, 2025-03-26 without one; no session is
 * made, Mcp-Session-Id is ignored).  *reply as for am_mcp_handle (NULL: send no body); *status the
 * HTTP status to send: 200 (a result, an error of the 2025-11-25 era, a
 * tool result with isError), 202 (a notification or response accepted, no
 * body), 400 (malformed message, missing or mismatched headers, an
 * unsupported protocol version, invalid params), 404 (method not found in
 * the 2026-07-28 era), 500 (internal error).  Content-Type of a body:
 * application/json.  Returns as am_mcp_handle. */
int am_mcp_handle_http(am_mcp *m, const char *body, size_t len, const am_mcp_http_headers *h,
                       char **reply, int *status);

/* Whether an Origin header may reach POST /mcp (DNS rebinding, MCP
 * transports "Security"): 1 when origin is NULL (no Origin: not a browser),
 * or equals one of allow[0..n) (ASCII case-insensitive, e.g.
 * "https://app.example.com"); with n == 0, an http or https origin on a
 * loopback host (localhost, 127.0.0.1, [::1]) with any port.  0 else: the
 * transport answers 403 with body am_mcp_http_error(-32600, ...). */
int am_mcp_origin_allowed(const char *origin, const char *const *allow, size_t n);

/* A JSON-RPC error response without an id, for a body the transport sends
 * on its own (403 for an Origin, 405 for GET/DELETE, 413).  Owned: free
 * with am_mcp_reply_free; NULL when out of memory. */
char *am_mcp_http_error(int code, const char *message);

#endif
