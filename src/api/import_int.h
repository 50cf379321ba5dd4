/* SPDX-License-Identifier: Apache-2.0 */
/*
 * import_int.h -- an import's rows (domain/import.h: read and checked
 * whole before any is written) written in one transaction
 * (api/import_rows.c).  Strings live in the caller's arena.
 */
#ifndef AM_IMPORT_INT_H
#define AM_IMPORT_INT_H

#include "api/db_int.h"
#include "domain/import.h"
#include "store/store.h"

struct am__statement;

/* The document into doc->user, in one transaction (merge: what the user
 * lacks only); on error nothing is written and am_errmsg says why.
 * opt->progress (opt may be NULL) as am_import_ex says. */
int am__import_write(am_db *db, am__arena *ar, const am__imp_doc *doc,
                     const am_import_options *opt, am_import_info *info);
/* mem0's memories into user, in one transaction, each merged as
 * am_memory_add merges with provenance "import", recorded at its
 * created_at; opt->progress as am_import_mem0_ex says. */
int am__import_mem0_write(am_db *db, am__arena *ar, const char *user, const am__imp_mem0 *rows,
                          size_t n, const am_import_options *opt, am_import_info *info);

/* am_memory_add's statement of in (api/memory.c) with provenance source
 * and extra (may be NULL): more members of its value, raw JSON without
 * braces. */
int am__memory_statement(am_db *db, const am_memory_input *in, am__arena *ar, const char *source,
                         const char *extra, struct am__statement *st);

#endif
