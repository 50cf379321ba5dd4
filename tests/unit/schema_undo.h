/* SPDX-License-Identifier: Apache-2.0 */
/*
 * schema_undo.h -- SQL that takes a store back past migrations, for the
 * tests that make an older store out of a new one and open it (the
 * upgrade runs again).  One macro per migration, newest last; a test
 * runs those newer than the version it wants, newest first.
 */
#ifndef AM_TEST_SCHEMA_UNDO_H
#define AM_TEST_SCHEMA_UNDO_H

/* v20: store_changes and its triggers (store/sqlite/caches.c) */
#define AM_UNDO_V20                                                               \
    "DROP TRIGGER events_changes_ins; DROP TRIGGER events_changes_del;"           \
    "DROP TRIGGER events_changes_own; DROP TRIGGER vectors_changes_ins;"          \
    "DROP TRIGGER vectors_changes_upd; DROP TRIGGER vectors_changes_del;"         \
    "DROP TRIGGER blocks_changes_ins; DROP TRIGGER blocks_changes_upd;"           \
    "DROP TRIGGER blocks_changes_del; DROP TABLE store_changes;"

/* v21: the held workspaces (store/sqlite/held.c) */
#define AM_UNDO_V21 "DROP TABLE held_task_workspace;"

/* v22: working memory without a cache (store/sqlite/working.c) */
#define AM_UNDO_V22 "DROP TABLE working_memory;"

/* v23: the items' seqs (store/sqlite/item_memo.c) */
#define AM_UNDO_V23                                                               \
    "DROP TRIGGER items_changes_ins; DROP TRIGGER items_changes_upd;"             \
    "DROP TRIGGER items_changes_del; DROP TABLE item_changes;"

/* v24: data only (opaque ids in the outbox, tombstones, audit rows):
 * nothing to drop, and converting again changes nothing */
#define AM_UNDO_V24 ""

/* v25: the metadata columns (store/metadata.h) */
#define AM_UNDO_V25                                                               \
    "ALTER TABLE events DROP COLUMN metadata;"                                    \
    "ALTER TABLE memory_items DROP COLUMN metadata;"                              \
    "ALTER TABLE held_events DROP COLUMN metadata;"                               \
    "ALTER TABLE held_memory_items DROP COLUMN metadata;"

/* v26: the origin of item versions */
#define AM_UNDO_V26                                                               \
    "ALTER TABLE memory_items DROP COLUMN origin;"                                \
    "ALTER TABLE held_memory_items DROP COLUMN origin;"

/* v27: archived events' cold column (store/cold.h) */
#define AM_UNDO_V27                                                               \
    "ALTER TABLE events DROP COLUMN cold;"                                        \
    "ALTER TABLE held_events DROP COLUMN cold;"

/* v28: the rule packs applied to users (lifecycle/packs.c) */
#define AM_UNDO_V28 "DROP TABLE user_packs;"

/* v29: partial indexes of archived items and events */
#define AM_UNDO_V29 "DROP INDEX memory_items_archived; DROP INDEX events_cold;"

/* v30: generic records (store/sqlite/records.c): the v29 tables of API
 * tokens, rule packs and working memory again, empty, and the records
 * gone */
#define AM_UNDO_V30                                                               \
    "DROP TABLE records;"                                                         \
    "CREATE TABLE api_tokens(id TEXT PRIMARY KEY, lookup TEXT NOT NULL,"          \
    " hash BLOB NOT NULL, user_id TEXT NOT NULL, agent_id TEXT, role TEXT,"       \
    " admin INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL,"             \
    " revoked_at INTEGER);"                                                       \
    "CREATE INDEX api_tokens_lookup ON api_tokens(lookup);"                       \
    "CREATE INDEX api_tokens_user ON api_tokens(user_id);"                        \
    "CREATE TABLE user_packs(user_id TEXT NOT NULL, name TEXT NOT NULL,"          \
    " version TEXT NOT NULL, json TEXT NOT NULL, n_rules INTEGER NOT NULL,"       \
    " applied_at INTEGER NOT NULL, PRIMARY KEY(user_id, name)) WITHOUT ROWID;"    \
    "CREATE INDEX user_packs_name ON user_packs(name);"                            \
    "CREATE TABLE working_memory(user_id TEXT NOT NULL, session_id TEXT NOT NULL," \
    " key TEXT NOT NULL, value TEXT NOT NULL, expires_at INTEGER NOT NULL,"        \
    " PRIMARY KEY(user_id, session_id, key)) WITHOUT ROWID;"

/* every migration after v19, newest first */
#define AM_UNDO_TO_V19 AM_UNDO_V30 AM_UNDO_V29 AM_UNDO_V28 AM_UNDO_V27 AM_UNDO_V26 AM_UNDO_V25 AM_UNDO_V24 AM_UNDO_V23 AM_UNDO_V22 AM_UNDO_V21 AM_UNDO_V20

#endif
