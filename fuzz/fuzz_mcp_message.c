/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_mcp_message.c -- arbitrary bytes as MCP messages (tools/mcp): each
 * line of the input goes to am_mcp_handle on one handle (so a seed can
 * initialize and then call tools), and the whole input once to
 * am_mcp_handle_http with 2026-07-28 headers.  Whatever arrives, the core
 * answers with nothing or with one line of JSON-RPC 2.0 -- an object with
 * "jsonrpc": "2.0" and exactly one of result / error -- and an HTTP status
 * it documents; it never crashes, and the tools run on a store of their
 * own (":memory:").
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agentmem.h"
#include "mcp.h"

static am_time fixed_clock(void *ctx)
{
    (void)ctx;
    return 1772000000000LL;
}

/* abort() unless reply is absent or one well-formed JSON-RPC line */
static void check_reply(const char *reply)
{
    if (!reply) return;
    if (strchr(reply, '\n') || strchr(reply, '\r')) abort();
    json_error_t je;
    json_t *v = json_loads(reply, 0, &je);
    if (!json_is_object(v)) abort();
    json_t *rpc = json_object_get(v, "jsonrpc");
    if (!json_is_string(rpc) || strcmp(json_string_value(rpc), "2.0") != 0) abort();
    if (!json_object_get(v, "result") == !json_object_get(v, "error")) abort();
    if (!json_object_get(v, "id")) abort();
    json_decref(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static am_db *db;
    static am_mcp *m;
    if (!db) {
        am_config cfg;
        am_config_init(&cfg);
        cfg.path = ":memory:";
        cfg.clock = fixed_clock;
        if (am_open(&cfg, &db, NULL) != AM_OK) return 0;
        m = am_mcp_new(db, "fuzz", "agent");
        if (!m) return 0;
    }
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        char *reply;
        if (am_mcp_handle(m, p, n, &reply) != AM_OK) return 0; /* out of memory */
        check_reply(reply);
        am_mcp_reply_free(reply);
        p += n + (nl ? 1 : 0);
    }
    am_mcp_http_headers h = {"2026-07-28", "tools/call", "recall"};
    char *reply;
    int status;
    if (am_mcp_handle_http(m, (const char *)data, size, &h, &reply, &status) == AM_OK) {
        check_reply(reply);
        if (status != 200 && status != 202 && status != 400 && status != 404 && status != 500)
            abort();
        if ((status == 202) != (reply == NULL)) abort();
        am_mcp_reply_free(reply);
    }
    return 0;
}
