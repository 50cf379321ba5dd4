/* SPDX-License-Identifier: Apache-2.0 */
/*
 * router.h -- the router's entry (router.c): one request in, one reply
 * out, and the route table's names for /metrics.  The handlers include
 * srv_int.h and http_util.h, never this header.
 */
#ifndef AM_SRV_ROUTER_H
#define AM_SRV_ROUTER_H
#include "srv_int.h"

/* Answer one request (router.c).  db: a handle of this thread's. */
void am__srv_handle(am_srv *s, am_db *db, const srv_request *rq, srv_reply *out);
int am__srv_route_count(void);
const char *am__srv_route_name(int i); /* "POST /v1/events" */
/* The route index of (method, path) for metrics before a request is
 * handled (e.g. a body refused early); the last index ("other") when none. */
int am__srv_route_find(const char *method, const char *path);

#endif
