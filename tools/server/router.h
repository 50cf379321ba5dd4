/* SPDX-License-Identifier: Apache-2.0 */
/*
 * router.h -- the router's entry (router.c): one request in, one reply
 * out, through the route table the server gives it (am_srv.routes; the
 * table itself: route_table.c).  The handlers include srv_int.h and
 * http_util.h, never this header: nothing below the server calls the
 * router.
 */
#ifndef AM_SRV_ROUTER_H
#define AM_SRV_ROUTER_H
#include "srv_int.h"

/* Answer one request (router.c) through s->routes.  db: a handle of this
 * thread's. */
void am__srv_handle(am_srv *s, am_db *db, const srv_request *rq, srv_reply *out);
/* The route index of (method, path) in s->routes for metrics before a
 * request is handled (e.g. a body refused early); the last index
 * ("other", s->routes->n) when none. */
int am__srv_route_find(const am_srv *s, const char *method, const char *path);

#endif
