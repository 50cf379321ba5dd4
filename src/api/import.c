/* SPDX-License-Identifier: Apache-2.0 */
/*
 * import.c -- am_import and am_import_mem0 (docs/IMPORT.md): a document
 * loaded into the store in one transaction.
 *
 * This file checks the arguments; the document is read and checked whole
 * by domain/import.c before the transaction begins (a bad document
 * writes nothing, its error names the row and the field), then its rows
 * are written in one transaction through api/import_rows.c, which puts
 * them into the store (store.h: event_put, item_insert, task_put, ... and
 * the import rows item_heat and workspace_put as given).
 */
#include <string.h>

#include "api/db_int.h"
#include "api/import_int.h"
#include "lifecycle/packs.h"
#include "store/metadata.h"

/* A rule pack of the document checked as am_pack_apply checks it. */
static int pack_check(const char *text, size_t len, am__arena *ar, am__pack_row *p, char *why,
                      size_t cap)
{
    am__pack pk;
    int rc = am__pack_parse(text, len, ar, &pk, why, cap);
    if (rc) return rc;
    p->name = pk.name;
    p->version = pk.version;
    p->json = pk.json;
    p->n_rules = (long)pk.n_rules;
    return AM_OK;
}

/* A reader of the document (domain/import.h) in ar. */
static void reader_init(am_db *db, am__arena *ar, am__imp_reader *r)
{
    memset(r, 0, sizeof *r);
    r->ar = ar;
    r->alloc = &db->alloc;
    r->max_text_bytes = db->cfg.max_text_bytes;
    r->what = "import";
    r->pack_check = pack_check;
}

int am_import(am_db *db, const char *json, size_t len, const char *user_id, int flags,
              am_import_info *info)
{
    am_import_options opt = {flags, NULL, NULL};
    return am_import_ex(db, json, len, user_id, &opt, info);
}

int am_import_ex(am_db *db, const char *json, size_t len, const char *user_id,
                 const am_import_options *opt, am_import_info *info)
{
    int flags = opt ? opt->flags : 0;
    if (!db || (!json && len)) return AM_MISUSE;
    am__db_clear_error(db);
    am_import_info dummy;
    if (!info) info = &dummy;
    memset(info, 0, sizeof *info);
    const char *why;
    if (user_id && (why = am__id_check(user_id)))
        return am__db_error(db, AM_INVALID, "import: user %s", why);
    if (flags & ~AM_IMPORT_MERGE) return am__db_error(db, AM_INVALID, "import: unknown flags %d", flags);
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__imp_reader r;
    reader_init(db, &ar, &r);
    am__imp_doc doc;
    memset(&doc, 0, sizeof doc);
    int rc = am__import_read_doc(&r, json ? json : "", len, &doc);
    if (rc && r.failed) am__db_error(db, rc, "%s", r.err);
    if (!rc) {
        if (user_id) doc.user = user_id;
        rc = am__import_write(db, &ar, &doc, opt, info);
    }
    am__arena_free(&ar);
    if (!rc) am__events_deliver(db);
    return rc;
}

int am_import_mem0(am_db *db, const char *json, size_t len, const char *user_id,
                   am_import_info *info)
{
    return am_import_mem0_ex(db, json, len, user_id, NULL, info);
}

int am_import_mem0_ex(am_db *db, const char *json, size_t len, const char *user_id,
                      const am_import_options *opt, am_import_info *info)
{
    if (!db || (!json && len)) return AM_MISUSE;
    am__db_clear_error(db);
    am_import_info dummy;
    if (!info) info = &dummy;
    memset(info, 0, sizeof *info);
    const char *why;
    if ((why = am__id_check(user_id))) return am__db_error(db, AM_INVALID, "import: user %s", why);
    am__arena ar;
    am__arena_init(&ar, &db->alloc);
    am__imp_reader r;
    reader_init(db, &ar, &r);
    am__imp_mem0 *rows = NULL;
    size_t n = 0;
    int rc = am__import_read_mem0(&r, json ? json : "", len, user_id, &rows, &n);
    if (rc && r.failed) am__db_error(db, rc, "%s", r.err);
    if (!rc) rc = am__import_mem0_write(db, &ar, user_id, rows, n, opt, info);
    am__arena_free(&ar);
    if (!rc) am__events_deliver(db);
    return rc;
}
