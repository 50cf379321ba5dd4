/* SPDX-License-Identifier: Apache-2.0 */
/*
 * route_table.c -- the server's routes: method, pattern, handler, flags
 * and the query parameters each takes (srv_route in srv_int.h).  The
 * router dispatches through the table it is given (am_srv.routes: the
 * server and the fuzz target give it this one), so the handlers never
 * reach the router; a route's index is its metrics' label set.  A
 * route's query parameters: a misspelt ?limt= is refused naming it, not
 * silently ignored; NULL: not checked (the public assets: a browser may
 * add its own).  Every route's path is in docs/openapi.json (a test
 * checks).
 */
#include <stddef.h>

#include "srv_int.h"

static const srv_route routes[] = {
#define ROUTE(method, pattern, fn, flags, params)                                   \
    {method, pattern, method " " pattern, fn, flags, params}
    ROUTE("GET", "/healthz", am__srv_h_healthz, SRV_ROUTE_PUBLIC, NULL),
    ROUTE("GET", "/metrics", am__srv_h_metrics, 0, ""),
    ROUTE("GET", "/openapi.json", am__srv_h_openapi, SRV_ROUTE_PUBLIC, ""),
    ROUTE("GET", "/", am__srv_h_asset, SRV_ROUTE_PUBLIC, NULL),
    ROUTE("GET", "/inspector/{file}", am__srv_h_asset, SRV_ROUTE_PUBLIC, NULL),
    ROUTE("POST", "/v1/events", am__srv_h_events, 0, "user"),
    ROUTE("GET", "/v1/events", am__srv_h_events_list, 0, "user limit cursor q session from to ids"),
    ROUTE("POST", "/v1/recall", am__srv_h_recall, 0, "user"),
    ROUTE("GET", "/v1/tasks/{task_id}", am__srv_h_task, 0, "user"),
    ROUTE("GET", "/v1/memories", am__srv_h_memories, 0,
          "user all as_of kind scope from to limit cursor q metadata."),
    ROUTE("GET", "/v1/memories/{id}/versions", am__srv_h_versions, 0, "user limit cursor"),
    ROUTE("POST", "/v1/memories", am__srv_h_memory_add, 0, "user"),
    ROUTE("GET", "/v1/memories/{id}", am__srv_h_memory_get, 0, "user"),
    ROUTE("PATCH", "/v1/memories/{id}", am__srv_h_memory_update, 0, "user"),
    ROUTE("DELETE", "/v1/memories/{id}", am__srv_h_memory_delete, 0, "user"),
    ROUTE("POST", "/v1/memories/{id}/feedback", am__srv_h_feedback, 0, "user"),
    ROUTE("POST", "/v1/forget", am__srv_h_forget, 0, "user"),
    ROUTE("POST", "/v1/restore", am__srv_h_restore, 0, "user"),
    ROUTE("POST", "/v1/links", am__srv_h_links, 0, "user"),
    ROUTE("GET", "/v1/export", am__srv_h_export, 0, "user"),
    ROUTE("POST", "/v1/import", am__srv_h_import, 0, NULL),
    ROUTE("GET", "/v1/profile", am__srv_h_profile, 0, "user budget"),
    ROUTE("GET", "/v1/reports/corrections", am__srv_h_report, 0, "user since until period"),
    ROUTE("POST", "/v1/packs", am__srv_h_packs_apply, 0, ""),
    ROUTE("GET", "/v1/packs", am__srv_h_packs_list, 0, "user"),
    ROUTE("DELETE", "/v1/packs/{name}", am__srv_h_packs_remove, 0, "user"),
    ROUTE("GET", "/v1/tasks/{task_id}/workspace", am__srv_h_workspace_get, 0, "user"),
    ROUTE("PUT", "/v1/tasks/{task_id}/workspace", am__srv_h_workspace_put, 0, "user"),
    ROUTE("GET", "/v1/sessions/{session}/working", am__srv_h_working_list, 0, "user limit cursor"),
    ROUTE("DELETE", "/v1/sessions/{session}/working", am__srv_h_working_clear, 0, "user"),
    ROUTE("GET", "/v1/sessions/{session}/working/{key}", am__srv_h_working_get, 0, "user"),
    ROUTE("PUT", "/v1/sessions/{session}/working/{key}", am__srv_h_working_put, 0, "user"),
    ROUTE("DELETE", "/v1/sessions/{session}/working/{key}", am__srv_h_working_clear, 0, "user"),
    ROUTE("POST", "/v1/embeddings", am__srv_h_embeddings, 0, "user"),
    ROUTE("POST", "/mcp", am__srv_h_mcp, 0, "user"),
    ROUTE("GET", "/v1/stream", am__srv_h_stream, 0, "user after"),
#undef ROUTE
};
#define N_ROUTES (int)(sizeof routes / sizeof *routes)
_Static_assert(N_ROUTES < SRV_MAX_ROUTES, "the metrics hold every route and \"other\"");

const srv_route_table am__srv_routes = {routes, N_ROUTES};
