/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mcp_int.h -- what the MCP core's files share (tools/mcp/): the handle,
 * the JSON-RPC error codes, and the tools (mcp_tools.c) that the protocol
 * layer (mcp.c) lists and calls.  Not installed; the transports use mcp.h.
 */
#ifndef AM_MCP_INT_H
#define AM_MCP_INT_H
#include <jansson.h>

#include "mcp.h"

/* JSON-RPC 2.0 and MCP (2026-07-28 basic/index "Error Codes") codes */
#define MCP_PARSE_ERROR -32700
#define MCP_INVALID_REQUEST -32600
#define MCP_METHOD_NOT_FOUND -32601
#define MCP_INVALID_PARAMS -32602
#define MCP_INTERNAL_ERROR -32603
#define MCP_HEADER_MISMATCH -32020
#define MCP_UNSUPPORTED_VERSION -32022

/* The protocol revisions served, oldest first (docs/MCP.md "Protocol
 * revisions"): what a reply holds depends on the request's. */
enum {
    MCP_REV_2024_11_05, /* tools: name, description, inputSchema */
    MCP_REV_2025_03_26, /* + tool annotations, JSON-RPC batches */
    MCP_REV_2025_06_18, /* + title, outputSchema, structuredContent; no batches */
    MCP_REV_2025_11_25,
    MCP_REV_2026_07_28 /* stateless: the version in every request's _meta */
};

struct am_mcp {
    am_db *db;
    char user[AM_ID_MAX + 1];
    char agent[AM_ID_MAX + 1]; /* "" = none */
    char role[AM_ID_MAX + 1];  /* "" = none */
    /* the version `initialize` negotiated on this handle (stdio), "" =
     * none yet */
    char legacy_version[16];
};

/* A protocol error a tool call ends in (unknown tool, malformed params, a
 * server failure): code and message, the message cut to fit. */
typedef struct mcp_fault {
    int code;
    char message[512];
} mcp_fault;

/* The tools' definitions for tools/list as revision rev (MCP_REV_*)
 * describes a tool (a new array; NULL: out of memory). */
json_t *am__mcp_tools_list(int rev);

/* Call the tool params.name with params.arguments: a CallToolResult
 * (content, structuredContent, isError -- a failure of the tool itself,
 * bad arguments included, is a result with isError), or NULL with *fault
 * set (unknown tool, params that are not a CallToolRequest, an internal
 * failure). */
json_t *am__mcp_tool_call(am_mcp *m, json_t *params, mcp_fault *fault);

/* A CallToolResult r as revision rev knows it: before 2025-06-18 there is
 * no structuredContent (the text content carries what the model needs).
 * Returns r. */
json_t *am__mcp_result_for(json_t *r, int rev);

/* snprintf into a bounded buffer without cutting a UTF-8 character in two
 * (jansson refuses invalid UTF-8, and these messages quote names from the
 * request). */
void am__mcp_fmt(char *buf, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The string value of v, or NULL when v is not a string or holds a NUL. */
const char *am__mcp_str(const json_t *v);

#endif
