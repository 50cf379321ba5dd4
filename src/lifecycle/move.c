/* SPDX-License-Identifier: Apache-2.0 */
/*
 * move.c -- the one way the lifecycle changes an item's status.  See
 * maintain.h.
 */
#include "lifecycle/maintain.h"

#include <string.h>

#include "write/semantic/merge.h"

int am__life_move(am__wctx *w, am__item_row *it, const char *status, const char *then,
                  const char *op)
{
    int rc = am__semantic_sources(w, it);
    if (rc || (rc = am__semantic_close_version(w, it))) return rc;
    am__item_row nv = *it;
    nv.status = status;
    if (strcmp(status, "invalidated") == 0) {
        /* withdrawn: its value valid until now, as merge.c invalidates */
        nv.valid_to = w->now;
    } else {
        if (it->valid_from < w->now) {
            /* as it was until now: an as-of read of then sees it so */
            am__item_row before = *it;
            before.valid_to = w->now;
            if (then) before.status = then;
            if ((rc = am__semantic_insert_kept(w, it, &before))) return rc;
        }
        nv.valid_from = w->now;
        nv.valid_to = AM_TIME_NONE;
    }
    if ((rc = am__semantic_insert_kept(w, it, &nv))) return rc;
    return am__semantic_record(w, op, it->lineage_id, it->scope, it->key, NULL);
}

int am__life_items(am__wctx *w, am__item_row **rows, size_t *n, am__item_row **arch,
                   size_t *na)
{
    am__store *s = w->store;
    int rc = s->vt->items.items_list(s, w->uid, AM__ITEMS_CURRENT | AM__ITEMS_NO_SOURCES, w->now,
                                     w->ar, rows, n);
    if (!rc)
        rc = s->vt->items.items_list(s, w->uid, AM__ITEMS_ARCHIVED | AM__ITEMS_NO_SOURCES, w->now,
                                     w->ar, arch, na);
    return rc;
}
