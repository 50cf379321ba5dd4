/* SPDX-License-Identifier: Apache-2.0 */
/*
 * export.c -- am_export_stream and am_export (the user checked, one read
 * snapshot; the document is domain/export.c's), and am_event_find.
 */
#include <stdio.h>

#include "api/db_int.h"
#include "domain/export.h"
#include "domain/forget.h"

/* The handle's clock for the export (domain/export.h). */
static am_time export_now(void *ctx) { return am__db_now(ctx); }

int am_export_stream(am_db *db, const char *user_id, am_write_fn write, void *ctx)
{
    if (!db || !write) return AM_MISUSE;
    am__db_clear_error(db);
    const char *why;
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "export: user %s", why);
    am__store *s = db->store;
    int rc = am__store_begin_read(s);
    if (rc) return am__db_store_error(db, rc, "export");
    int state;
    am_time fat, until;
    rc = am__forget_state(s, user_id, &state, &fat, &until);
    int exists = rc ? 0 : state != AM__FORGOTTEN_NONE ? 1 : am__store_user_exists(s, user_id);
    if (rc || exists <= 0) {
        am__store_end_read(s);
        if (rc) return am__db_store_error(db, rc, "export");
        if (exists < 0) return am__db_store_error(db, -exists, "export");
        return am__db_error(db, AM_NOTFOUND, "export: unknown user %s", user_id);
    }
    am__export o = {s, &db->alloc, export_now, db, {0}, write, ctx};
    am__buf_init(&o.b, &db->alloc);
    rc = state != AM__FORGOTTEN_NONE ? am__export_tombstone(&o, user_id, state, fat, until)
                                     : am__export_user(&o, user_id);
    am__buf_free(&o.b);
    int end = am__store_end_read(s);
    if (!rc) rc = end;
    if (rc == AM_NOMEM) return am__db_error(db, rc, "export: out of memory");
    if (rc == AM_IO) return am__db_error(db, rc, "export: the output refused a write");
    if (rc) return am__db_store_error(db, rc, "export");
    return AM_OK;
}

/* am_export's sink: the whole document in one buffer. */
static int export_collect(void *ctx, const char *data, size_t len)
{
    am__buf *b = ctx;
    am__buf_add(b, data, len);
    return b->oom;
}

int am_export(am_db *db, const char *user_id, char **json_out)
{
    if (!db || !json_out) return AM_MISUSE;
    *json_out = NULL;
    am__buf b;
    am__buf_init(&b, &db->alloc);
    int rc = am_export_stream(db, user_id, export_collect, &b);
    if (rc == AM_IO) rc = am__db_error(db, AM_NOMEM, "export: out of memory");
    if (!rc) {
        *json_out = am__owned_strndup(&db->alloc, b.p ? b.p : "", b.len); /* am_free */
        if (!*json_out) rc = am__db_error(db, AM_NOMEM, "export: out of memory");
    }
    am__buf_free(&b);
    return rc;
}

int am_event_find(am_db *db, const char *user_id, const char *needle, char *out)
{
    if (!db || !needle || !out) return AM_MISUSE;
    am__db_clear_error(db);
    const char *why;
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "event: user %s", why);
    int rc = am__db_user_gate(db, "event", user_id, AM_NOTFOUND);
    if (rc) return rc;
    am__arena ar;
    am__event_row ev;
    am__arena_init(&ar, &db->alloc);
    rc = db->store->vt->events.event_get(db->store, user_id, AM__EVENT_BY_TEXT, needle, &ar, &ev);
    if (rc == AM_OK) snprintf(out, 32, "%s", ev.id);
    am__arena_free(&ar);
    if (rc == AM_NOTFOUND) return am__db_error(db, rc, "event: no event of %s contains that text", user_id);
    if (rc) return am__db_store_error(db, rc, "event");
    return AM_OK;
}
