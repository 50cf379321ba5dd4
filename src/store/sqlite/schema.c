/* SPDX-License-Identifier: Apache-2.0 */
/*
 * schema.c -- the tables of a store and their migrations.
 *
 * migrations[i] takes a store from version i to i + 1 (version 0: an
 * empty file); AM__SCHEMA_VERSION (store.h) is their number, checked at
 * compile time.  A store is migrated in one transaction when it is opened
 * (am__sqlite_migrate), with the data moves some versions need (v5 packs
 * the vectors, v6 computes their sign bits: vectors.c).  Then the index is
 * checked against the analyzer that wrote it (am__sqlite_fts_analyzer_sync)
 * and rebuilt when another one did.
 */
#include <stdio.h>
#include <string.h>

#include "store/sqlite/sqlite_int.h"

/* the version that added pii_vault.canon_hash (a store upgraded across
 * it has its rows hashed) */
#define AM__SCHEMA_PII_HASH 19

/* a value of the opaque ids' form (store/ids.c), letters: its first; the
 * v24 conversion leaves those as they are (a store taken back past v24
 * by a test and opened again converts nothing twice) */
#define AM__HEX4 "[0-9a-f][0-9a-f][0-9a-f][0-9a-f]"
#define AM__REF_GLOB(letters) "'" letters AM__HEX4 AM__HEX4 AM__HEX4 AM__HEX4 "'"

static const char *const migrations[] = {
    /* version 1 */
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE users(user_id TEXT PRIMARY KEY, created_at INTEGER NOT NULL);"
    "CREATE TABLE identity_links(channel TEXT NOT NULL, external_id TEXT NOT NULL,"
    "  user_id TEXT NOT NULL, created_at INTEGER NOT NULL,"
    "  PRIMARY KEY(channel, external_id));"
    "CREATE INDEX identity_links_user ON identity_links(user_id);"
    "CREATE TABLE events(rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,"
    "  user_id TEXT NOT NULL, agent_id TEXT, session_id TEXT, task_id TEXT,"
    "  channel TEXT, source TEXT NOT NULL, type TEXT NOT NULL,"
    "  content TEXT NOT NULL, domain TEXT, intent TEXT, lang TEXT,"
    "  occurred_at INTEGER NOT NULL, tz_minutes INTEGER NOT NULL,"
    "  ingested_at INTEGER NOT NULL, status TEXT NOT NULL DEFAULT 'live');"
    "CREATE INDEX events_user_time ON events(user_id, occurred_at);"
    "CREATE INDEX events_user_session ON events(user_id, session_id, occurred_at);"
    "CREATE INDEX events_user_task ON events(user_id, task_id, occurred_at);"
    /* doc: the event's text + entities; ctx: the turns around it in its
     * session (weighted lower).  One row per event makes the row a
     * passage (better than a separate context table with its own document
     * frequencies: docs/bench/README.md). */
    "CREATE VIRTUAL TABLE events_fts USING fts5(uid, doc, ctx, tokenize='am_cjk');"
    "CREATE TABLE event_vectors(event_rid INTEGER PRIMARY KEY, user_id TEXT NOT NULL,"
    "  embedder TEXT NOT NULL, dim INTEGER NOT NULL, scale REAL NOT NULL, vec BLOB NOT NULL);"
    "CREATE INDEX event_vectors_user ON event_vectors(user_id, embedder);"
    "CREATE TABLE entities(event_rid INTEGER NOT NULL, user_id TEXT NOT NULL,"
    "  type TEXT NOT NULL, surface TEXT NOT NULL, norm TEXT NOT NULL,"
    "  t_from INTEGER, t_to INTEGER);"
    "CREATE INDEX entities_event ON entities(event_rid);"
    "CREATE INDEX entities_user ON entities(user_id, type, norm);"
    "CREATE TABLE pii_vault(user_id TEXT NOT NULL, event_rid INTEGER NOT NULL,"
    "  placeholder TEXT NOT NULL, type TEXT NOT NULL, original TEXT NOT NULL);"
    "CREATE INDEX pii_vault_event ON pii_vault(event_rid);"
    "CREATE TABLE tasks(user_id TEXT NOT NULL, task_id TEXT NOT NULL,"
    "  name TEXT NOT NULL, stage TEXT, status TEXT NOT NULL,"
    "  artifacts TEXT NOT NULL DEFAULT '[]', pending TEXT NOT NULL DEFAULT '[]',"
    "  notes TEXT NOT NULL DEFAULT '[]', created_at INTEGER NOT NULL,"
    "  updated_at INTEGER NOT NULL, PRIMARY KEY(user_id, task_id));"
    "CREATE TABLE task_history(seq INTEGER PRIMARY KEY, user_id TEXT NOT NULL,"
    "  task_id TEXT NOT NULL, at INTEGER NOT NULL, field TEXT NOT NULL,"
    "  old_value TEXT, new_value TEXT, event_id TEXT);"
    "CREATE INDEX task_history_task ON task_history(user_id, task_id);"
    "CREATE TABLE memory_items(rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,"
    "  lineage_id TEXT NOT NULL, user_id TEXT NOT NULL, scope TEXT NOT NULL,"
    "  kind TEXT NOT NULL, key TEXT NOT NULL, text TEXT NOT NULL,"
    "  value_json TEXT NOT NULL, confidence REAL NOT NULL,"
    "  base_score REAL NOT NULL, half_life_days REAL NOT NULL,"
    "  valid_from INTEGER NOT NULL, valid_to INTEGER,"
    "  recorded_at INTEGER NOT NULL, superseded_at INTEGER,"
    "  status TEXT NOT NULL);"
    "CREATE INDEX memory_items_user ON memory_items(user_id, superseded_at);"
    "CREATE INDEX memory_items_lineage ON memory_items(user_id, lineage_id);"
    "CREATE TABLE item_sources(item_rid INTEGER NOT NULL, user_id TEXT NOT NULL,"
    "  event_id TEXT NOT NULL, PRIMARY KEY(item_rid, event_id));"
    "CREATE INDEX item_sources_event ON item_sources(user_id, event_id);"
    "CREATE TABLE item_heat(user_id TEXT NOT NULL, lineage_id TEXT NOT NULL,"
    "  hits INTEGER NOT NULL, last_access INTEGER,"
    "  PRIMARY KEY(user_id, lineage_id));"
    "CREATE TABLE tombstones(seq INTEGER PRIMARY KEY, user_id TEXT NOT NULL,"
    "  level TEXT NOT NULL, object_id TEXT NOT NULL, at INTEGER NOT NULL);"
    "CREATE TABLE audit_log(seq INTEGER PRIMARY KEY, at INTEGER NOT NULL,"
    "  user_id TEXT NOT NULL, op TEXT NOT NULL, object_type TEXT NOT NULL,"
    "  object_id TEXT, detail TEXT);"
    "CREATE INDEX audit_log_user ON audit_log(user_id);"
    /* The audit log is append-only: the engine never updates or deletes
     * rows, except to pseudonymise a forgotten user (see forget). */
    "CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log"
    "  BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;",
    /* version 2: per-user index terms (fts_tokenizer.c): every doc and ctx
     * value starts with U+E001 <user token> U+E001; re-indexes them. */
    "UPDATE events_fts SET doc = '" AM__FTS_TAG "' || uid || '" AM__FTS_TAG "' || doc,"
    "  ctx = '" AM__FTS_TAG "' || uid || '" AM__FTS_TAG "' || ctx;",
    /* version 3: vectors clustered by user (a scan reads one user's rows,
     * contiguous, instead of one scattered table row per event); still
     * one vector per event (unique event_rid: a new one replaces it). */
    "CREATE TABLE event_vectors_v3(user_id TEXT NOT NULL, embedder TEXT NOT NULL,"
    "  event_rid INTEGER NOT NULL, dim INTEGER NOT NULL, scale REAL NOT NULL, vec BLOB NOT NULL,"
    "  PRIMARY KEY(user_id, embedder, event_rid)) WITHOUT ROWID;"
    "INSERT INTO event_vectors_v3(user_id, embedder, event_rid, dim, scale, vec)"
    "  SELECT user_id, embedder, event_rid, dim, scale, vec FROM event_vectors;"
    "DROP TABLE event_vectors;"
    "ALTER TABLE event_vectors_v3 RENAME TO event_vectors;"
    "CREATE UNIQUE INDEX event_vectors_event ON event_vectors(event_rid);",
    /* version 4: each user's number of events, kept by the write and
     * forget paths, so a search knows N without walking a doclist of the
     * user's whole history */
    ("ALTER TABLE users ADD COLUMN n_events INTEGER NOT NULL DEFAULT 0;"
     "UPDATE users SET n_events = (SELECT count(*) FROM events e WHERE e.user_id = users.user_id);"),
    /* version 5: vectors packed VEC_BLOCK to a row (vector_blocks), so a
     * user's first scan reads a row per block, not per event.  An
     * event_vectors row stays per event (one vector per event, the
     * re-embedding joins); a packed one has an empty vec and the block
     * that holds it; the tail (block NULL, vec set) is what is not packed
     * yet.  Existing vectors are packed after this (vectors.c). */
    "ALTER TABLE event_vectors ADD COLUMN block INTEGER;"
    "CREATE TABLE vector_blocks(block INTEGER PRIMARY KEY, user_id TEXT NOT NULL,"
    "  embedder TEXT NOT NULL, dim INTEGER NOT NULL, n INTEGER NOT NULL,"
    "  rids BLOB NOT NULL, scales BLOB NOT NULL, vecs BLOB NOT NULL);"
    "CREATE INDEX vector_blocks_user ON vector_blocks(user_id, embedder, dim);"
    "CREATE INDEX event_vectors_tail ON event_vectors(user_id, embedder, dim) WHERE block IS NULL;",
    /* version 6: each block's sign bits (1 bit a component, n x
     * ceil(dim / 8) bytes), so the first scan of a user with many vectors
     * reads an eighth of their bytes (vectors.c); gone with their
     * block.  Filled for existing blocks after this (vectors.c). */
    "CREATE TABLE vector_bits(block INTEGER PRIMARY KEY, bits BLOB NOT NULL);"
    "CREATE TRIGGER vector_blocks_bits AFTER DELETE ON vector_blocks"
    "  BEGIN DELETE FROM vector_bits WHERE block = old.block; END;",
    /* version 7: each item version's token set, computed when it is
     * written (a recall ranks a user's items without tokenizing them);
     * NULL for versions written before: computed at read */
    "ALTER TABLE memory_items ADD COLUMN tokens BLOB;",
    /* version 8: a user's vault by type (a recall naming a phone number
     * or an e-mail address finds the events that held it) */
    "CREATE INDEX IF NOT EXISTS pii_vault_user ON pii_vault(user_id, type);",
    /* version 9: the index records the analyzer that wrote it
     * (am__sqlite_fts_analyzer_sync, right after the migrations, rebuilds an index of
     * an unknown one); a build before it, which would write its own
     * tokens into the index without saying so, refuses the store */
    "INSERT OR IGNORE INTO meta(key, value) VALUES('fts_analyzer', '0');",
    /* version 10: identities and idempotent writes.  An event may carry
     * the caller's own id (client_id, unique per user) and the
     * fingerprint of what the caller gave (client_hash), so adding it
     * again finds it instead of writing a copy.  A user the engine made
     * for an unlinked channel identity records that (channel,
     * external_id) pair; before this such users were named
     * "channel:external_id", and those still linked to the pair their
     * name spells are marked so (their links and data unchanged). */
    ("ALTER TABLE events ADD COLUMN client_id TEXT;"
     "ALTER TABLE events ADD COLUMN client_hash INTEGER;"
     "CREATE UNIQUE INDEX events_client ON events(user_id, client_id)"
     "  WHERE client_id IS NOT NULL;"
     "ALTER TABLE users ADD COLUMN channel TEXT;"
     "ALTER TABLE users ADD COLUMN external_id TEXT;"
     "UPDATE users SET"
     "  channel = (SELECT l.channel FROM identity_links l WHERE l.user_id = users.user_id"
     "    AND l.channel || ':' || l.external_id = users.user_id ORDER BY l.created_at LIMIT 1),"
     "  external_id = (SELECT l.external_id FROM identity_links l WHERE l.user_id = users.user_id"
     "    AND l.channel || ':' || l.external_id = users.user_id ORDER BY l.created_at LIMIT 1);"),
    /* version 11: bounded provenance (linear storage, store.h): each
     * version counts its sources (source_count) and lists only its first
     * AM__ITEM_SOURCES_FIRST and latest AM__ITEM_SOURCES_LAST; a repetition
     * that changes nothing updates the current version in place
     * (reinforced_at; NULL: recorded_at).  Versions written before, which
     * copied every earlier source (N(N+1)/2 rows for N repetitions), are
     * counted and cut to the same bound, the oldest and latest kept. */
    ("ALTER TABLE memory_items ADD COLUMN source_count INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE memory_items ADD COLUMN reinforced_at INTEGER;"
    "UPDATE memory_items SET source_count ="
    "  (SELECT count(*) FROM item_sources s WHERE s.item_rid = memory_items.rid);"
    "DELETE FROM item_sources WHERE rowid IN (SELECT r FROM"
    "  (SELECT rowid AS r, row_number() OVER w AS k, count(*) OVER w AS c FROM item_sources"
    "   WINDOW w AS (PARTITION BY item_rid ORDER BY rowid"
    "                ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))"
    "  WHERE k > " SQ_XSTR(AM__ITEM_SOURCES_FIRST) " AND k <= c - " SQ_XSTR(AM__ITEM_SOURCES_LAST) ");"),
    /* version 12: each event's content token set, written with it (the
     * write path's analysis; NULL for older rows and system events: a
     * recall computes those, as before) */
    "ALTER TABLE events ADD COLUMN tokens BLOB;",
    /* version 13: forgetting in steps (forget.c).  forget_jobs: the work a
     * forget still owes -- a user held for a grace period ('held'), a
     * user's rows being deleted in short transactions ('purge'), the index
     * merge and log checkpoint that leave no forgotten byte in the files
     * ('scrub').  A purged user's tombstone and audit trail are keyed by
     * HMAC(forget_key, user id); the key is random, one per store. */
    ("CREATE TABLE forget_jobs(seq INTEGER PRIMARY KEY, user_id TEXT NOT NULL,"
    "  level TEXT NOT NULL, object_id TEXT, forgotten_at INTEGER NOT NULL,"
    "  purge_at INTEGER NOT NULL, state TEXT NOT NULL);"
    "CREATE INDEX forget_jobs_user ON forget_jobs(user_id, level);"
    "ALTER TABLE tombstones ADD COLUMN purged_at INTEGER;"
    "CREATE INDEX tombstones_user ON tombstones(user_id, level);"
    "INSERT OR IGNORE INTO meta(key, value) VALUES('forget_key', lower(hex(randomblob(32))));"),
    /* version 14: the grace period of every level (held.c).  A forget of
     * an event, a session or a task with a grace period moves the rows it
     * deletes into held_<table> (the table's columns plus held_job, the
     * forget job's seq) until the purge; restore moves them back.  The
     * index rows are held as their columns (the row id is the event's). */
    ("CREATE TABLE held_events AS SELECT 0 AS held_job, * FROM events WHERE 0;"
    "CREATE TABLE held_events_fts(held_job INTEGER NOT NULL, user_id TEXT NOT NULL,"
    "  rid INTEGER NOT NULL, uid TEXT, doc TEXT, ctx TEXT);"
    "CREATE TABLE held_entities AS SELECT 0 AS held_job, * FROM entities WHERE 0;"
    "CREATE TABLE held_event_vectors AS SELECT 0 AS held_job, * FROM event_vectors WHERE 0;"
    "CREATE TABLE held_pii_vault AS SELECT 0 AS held_job, * FROM pii_vault WHERE 0;"
    "CREATE TABLE held_item_sources AS SELECT 0 AS held_job, * FROM item_sources WHERE 0;"
    "CREATE TABLE held_memory_items AS SELECT 0 AS held_job, * FROM memory_items WHERE 0;"
    "CREATE TABLE held_item_heat AS SELECT 0 AS held_job, * FROM item_heat WHERE 0;"
    "CREATE TABLE held_tasks AS SELECT 0 AS held_job, * FROM tasks WHERE 0;"
    "CREATE TABLE held_task_history AS SELECT 0 AS held_job, * FROM task_history WHERE 0;"
    "CREATE INDEX held_events_job ON held_events(held_job);"
    "CREATE INDEX held_events_user ON held_events(user_id);"
    "CREATE INDEX held_events_fts_job ON held_events_fts(held_job);"
    "CREATE INDEX held_entities_job ON held_entities(held_job);"
    "CREATE INDEX held_event_vectors_job ON held_event_vectors(held_job);"
    "CREATE INDEX held_pii_vault_job ON held_pii_vault(held_job);"
    "CREATE INDEX held_item_sources_job ON held_item_sources(held_job);"
    "CREATE INDEX held_memory_items_job ON held_memory_items(held_job);"
    "CREATE INDEX held_item_heat_job ON held_item_heat(held_job);"
    "CREATE INDEX held_tasks_job ON held_tasks(held_job);"
    "CREATE INDEX held_task_history_job ON held_task_history(held_job);"),
    /* version 15: memory events (outbox.c).  The outbox is written in
     * the transaction of the change that causes each event, so a rolled
     * back write leaves none and a committed one's is never lost; seq
     * (AUTOINCREMENT: never reused, also after a trim) orders them for
     * every process and is the resume point of a reader.  Ids and times
     * only, never content. */
    ("CREATE TABLE memory_events(seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  at INTEGER NOT NULL, user_id TEXT NOT NULL, type TEXT NOT NULL,"
    "  memory_id TEXT, task_id TEXT, event_id TEXT, key TEXT, detail TEXT,"
    "  other_user TEXT, occurred_at INTEGER);"
    "CREATE INDEX memory_events_user ON memory_events(user_id, seq);"),
    /* version 16: a task's shared workspace (workspace.c): per agent
     * what it is doing, has done and does next, a version counted per
     * entry; the rows live and die with the task (forget.c). */
    ("CREATE TABLE task_workspace(user_id TEXT NOT NULL, task_id TEXT NOT NULL,"
    "  agent_id TEXT NOT NULL, doing TEXT NOT NULL DEFAULT '', done TEXT NOT NULL DEFAULT '',"
    "  next TEXT NOT NULL DEFAULT '', version INTEGER NOT NULL, updated_at INTEGER NOT NULL,"
    "  PRIMARY KEY(user_id, task_id, agent_id));"),
    /* version 17: rounds of a task (domain/round.c): the current round's
     * number, start, period anchor and its zone offset, the period a recurring task names,
     * and the ended rounds (their stage, status, notes and artifacts) as a
     * JSON array.  A task written before is in its first round, started
     * when it was created. */
    ("ALTER TABLE tasks ADD COLUMN round INTEGER NOT NULL DEFAULT 1;"
    "ALTER TABLE tasks ADD COLUMN round_from INTEGER;"
    "ALTER TABLE tasks ADD COLUMN round_at INTEGER;"
    "ALTER TABLE tasks ADD COLUMN round_tz INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE tasks ADD COLUMN period TEXT;"
    "ALTER TABLE tasks ADD COLUMN rounds TEXT NOT NULL DEFAULT '[]';"
    "UPDATE tasks SET round_from = created_at, round_at = created_at;"),
    /* version 18: API tokens bound to a user (tokens.c; the server's
     * auth).  Only the SHA-256 of a token is kept (hash); lookup is
     * the hex of its first 8 bytes, indexed, so a verify reads one row and
     * compares the whole hash in constant time.  A user's purge deletes
     * its tokens (forget.c). */
    ("CREATE TABLE api_tokens(id TEXT PRIMARY KEY, lookup TEXT NOT NULL, hash BLOB NOT NULL,"
    "  user_id TEXT NOT NULL, agent_id TEXT, role TEXT, admin INTEGER NOT NULL DEFAULT 0,"
    "  created_at INTEGER NOT NULL, revoked_at INTEGER);"
    "CREATE INDEX api_tokens_lookup ON api_tokens(lookup);"
    "CREATE INDEX api_tokens_user ON api_tokens(user_id);"),
    /* version 19: the vault found by a keyed hash of each canonical value
     * (pii_index.c): written with the row, filled for older rows after the
     * migration (AM__SCHEMA_PII_HASH); pii_key hashes plain values. */
    ("ALTER TABLE pii_vault ADD COLUMN canon_hash INTEGER;"
     "CREATE INDEX pii_vault_hash ON pii_vault(user_id, type, canon_hash);"
     "DROP INDEX IF EXISTS pii_vault_user;" /* the new one's prefix */
     "INSERT OR IGNORE INTO meta(key, value) VALUES('pii_key', lower(hex(randomblob(32))));"),
    /* version 20: what changed, per user, so that a connection keeps its
     * caches of the users other connections did not write (caches.c):
     * a user's seq moves with any change of its events, vectors or vector
     * blocks; the empty user id's (the epoch) with a deleted or re-owned
     * events row, whose row id can come back.  Context appends move the
     * seq in code (events_fts is virtual). */
    ("CREATE TABLE store_changes(user_id TEXT PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;"
     "INSERT INTO store_changes(user_id, seq) VALUES('', 1);"
     "CREATE TRIGGER events_changes_ins AFTER INSERT ON events BEGIN"
     "  INSERT INTO store_changes(user_id, seq) VALUES(new.user_id, 1) ON CONFLICT(user_id) DO UPDATE SET seq = seq + 1; END;"
     "CREATE TRIGGER events_changes_del AFTER DELETE ON events BEGIN UPDATE store_changes SET seq = seq + 1 WHERE user_id = ''; END;"
     "CREATE TRIGGER events_changes_own AFTER UPDATE OF user_id ON events BEGIN UPDATE store_changes SET seq = seq + 1 WHERE user_id = ''; END;"
     "CREATE TRIGGER vectors_changes_ins AFTER INSERT ON event_vectors BEGIN"
     "  INSERT INTO store_changes(user_id, seq) VALUES(new.user_id, 1) ON CONFLICT(user_id) DO UPDATE SET seq = seq + 1; END;"
     "CREATE TRIGGER vectors_changes_upd AFTER UPDATE ON event_vectors BEGIN"
     "  INSERT INTO store_changes(user_id, seq) VALUES(new.user_id, 1) ON CONFLICT(user_id) DO UPDATE SET seq = seq + 1; END;"
     "CREATE TRIGGER vectors_changes_del AFTER DELETE ON event_vectors BEGIN"
     "  INSERT INTO store_changes(user_id, seq) VALUES(old.user_id, 1) ON CONFLICT(user_id) DO UPDATE SET seq = seq + 1; END;"
     "CREATE TRIGGER blocks_changes_ins AFTER INSERT ON vector_blocks BEGIN"
     "  INSERT INTO store_changes(user_id, seq) VALUES(new.user_id, 1) ON CONFLICT(user_id) DO UPDATE SET seq = seq + 1; END;"
     "CREATE TRIGGER blocks_changes_upd AFTER UPDATE ON vector_blocks BEGIN"
     "  INSERT INTO store_changes(user_id, seq) VALUES(new.user_id, 1) ON CONFLICT(user_id) DO UPDATE SET seq = seq + 1; END;"
     "CREATE TRIGGER blocks_changes_del AFTER DELETE ON vector_blocks BEGIN"
     "  INSERT INTO store_changes(user_id, seq) VALUES(old.user_id, 1) ON CONFLICT(user_id) DO UPDATE SET seq = seq + 1; END;"),
    /* version 21: a task forgotten with a grace period holds its shared
     * workspace too (held.c), so a restore brings it back */
    ("CREATE TABLE held_task_workspace AS SELECT 0 AS held_job, * FROM task_workspace WHERE 0;"
     "CREATE INDEX held_task_workspace_job ON held_task_workspace(held_job);"),
    /* version 22: a session's working memory without a cache (working.c):
     * one row per key, expired rows ignored and purged */
    ("CREATE TABLE working_memory(user_id TEXT NOT NULL, session_id TEXT NOT NULL,"
     " key TEXT NOT NULL, value TEXT NOT NULL, expires_at INTEGER NOT NULL,"
     " PRIMARY KEY(user_id, session_id, key)) WITHOUT ROWID;"),
    /* version 23: a seq per user that moves with every change of one of
     * its memory_items rows, drawn from one counter (the empty user id's
     * row), so that a connection may hold a user's latest items between
     * statements (item_memo.c) */
    ("CREATE TABLE item_changes(user_id TEXT PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;"
     "INSERT INTO item_changes(user_id, seq) VALUES('', 0);"
     "CREATE TRIGGER items_changes_ins AFTER INSERT ON memory_items BEGIN"
     "  UPDATE item_changes SET seq = seq + 1 WHERE user_id = '';"
     "  INSERT INTO item_changes(user_id, seq) SELECT new.user_id, seq FROM item_changes WHERE user_id = ''"
     "   ON CONFLICT(user_id) DO UPDATE SET seq = excluded.seq; END;"
     "CREATE TRIGGER items_changes_upd AFTER UPDATE ON memory_items BEGIN"
     "  UPDATE item_changes SET seq = seq + 1 WHERE user_id = '';"
     "  INSERT INTO item_changes(user_id, seq) SELECT new.user_id, seq FROM item_changes WHERE user_id = ''"
     "   ON CONFLICT(user_id) DO UPDATE SET seq = excluded.seq;"
     "  INSERT INTO item_changes(user_id, seq) SELECT old.user_id, seq FROM item_changes WHERE user_id = ''"
     "   ON CONFLICT(user_id) DO UPDATE SET seq = excluded.seq; END;"
     "CREATE TRIGGER items_changes_del AFTER DELETE ON memory_items BEGIN"
     "  UPDATE item_changes SET seq = seq + 1 WHERE user_id = '';"
     "  INSERT INTO item_changes(user_id, seq) SELECT old.user_id, seq FROM item_changes WHERE user_id = ''"
     "   ON CONFLICT(user_id) DO UPDATE SET seq = excluded.seq; END;"),
    /* version 24: the user's words and the caller's ids leave the rows
     * that outlive them (store/ids.c): the outbox names a key and a task
     * by their opaque ids (the key in its item's scope), a forget's
     * tombstone and audit row name an event, session or task by its keyed
     * hash, and a finished forget's job forgets the id (am_key_id and
     * am_object_ref: forget.c) */
    ("UPDATE memory_events SET key = am_key_id(user_id, coalesce((SELECT m.scope FROM memory_items m"
     "  WHERE m.user_id = memory_events.user_id AND m.lineage_id = memory_events.memory_id"
     "  ORDER BY m.recorded_at DESC LIMIT 1), 'global'), key)"
     " WHERE key IS NOT NULL AND key NOT GLOB " AM__REF_GLOB("k") ";"
     "UPDATE memory_events SET type = 'memory.updated.' || key"
     " WHERE type LIKE 'memory.updated.%' AND key IS NOT NULL;"
     "UPDATE memory_events SET task_id = am_object_ref('task', user_id, task_id)"
     " WHERE task_id IS NOT NULL AND task_id NOT GLOB " AM__REF_GLOB("t") ";"
     "UPDATE tombstones SET object_id = am_object_ref(level, user_id, object_id)"
     " WHERE level IN ('event', 'session', 'task') AND object_id IS NOT NULL"
     " AND object_id NOT GLOB " AM__REF_GLOB("[est]") ";"
     "UPDATE audit_log SET object_id = am_object_ref(object_type, user_id, object_id)"
     " WHERE op IN ('forget', 'restore') AND object_type IN ('event', 'session', 'task')"
     " AND object_id IS NOT NULL AND object_id NOT GLOB " AM__REF_GLOB("[est]") ";"
     "UPDATE audit_log SET object_id = am_object_ref('task', user_id, object_id),"
     " detail = CASE WHEN op = 'task.switch' THEN NULL ELSE detail END"
     " WHERE object_type = 'task' AND op != 'forget' AND op != 'restore' AND EXISTS (SELECT 1"
     " FROM tombstones t WHERE t.user_id = audit_log.user_id AND t.level = 'task'"
     " AND t.object_id = am_object_ref('task', audit_log.user_id, audit_log.object_id));"
     "UPDATE forget_jobs SET object_id = NULL WHERE state = 'scrub' AND level != 'user';"),
    /* version 25: the caller's metadata of an event and of a memory item
     * version (store/metadata.h: canonical JSON, NULL for none); the held
     * copies of a forget in its grace period keep it */
    ("ALTER TABLE events ADD COLUMN metadata TEXT;"
     "ALTER TABLE memory_items ADD COLUMN metadata TEXT;"
     "ALTER TABLE held_events ADD COLUMN metadata TEXT;"
     "ALTER TABLE held_memory_items ADD COLUMN metadata TEXT;"),
    /* version 26: what decided a memory item version's statement (rules,
     * the learned reading, the API, an import, a pack ...; store.h), in
     * the held copies too; NULL for the versions written before */
    ("ALTER TABLE memory_items ADD COLUMN origin TEXT;"
     "ALTER TABLE held_memory_items ADD COLUMN origin TEXT;"),
    /* version 27: archived events (store/cold.h): an old event's whole
     * text packed in `cold`, the row's last column (a read of the other
     * columns never touches its overflow pages), its content a summary;
     * a held copy keeps it */
    ("ALTER TABLE events ADD COLUMN cold BLOB;"
     "ALTER TABLE held_events ADD COLUMN cold BLOB;"),
    /* version 28: the rule packs applied to a user (lifecycle/packs.c):
     * the pack as applied, one row per user and pack name; its rules are
     * memory items of scope pack:NAME.  Forgotten with the user. */
    ("CREATE TABLE user_packs(user_id TEXT NOT NULL, name TEXT NOT NULL,"
     " version TEXT NOT NULL, json TEXT NOT NULL, n_rules INTEGER NOT NULL,"
     " applied_at INTEGER NOT NULL, PRIMARY KEY(user_id, name)) WITHOUT ROWID;"
     "CREATE INDEX user_packs_name ON user_packs(name);"),
    /* version 29: a user's archived items and events found without a
     * scan of the user's rows: a recall asks for both every time, and
     * most users have none */
    ("CREATE INDEX memory_items_archived ON memory_items(user_id)"
     " WHERE status = 'archived' AND superseded_at IS NULL;"
     "CREATE INDEX events_cold ON events(user_id) WHERE length(cold) > 0;"),
    /* version 30: generic records (records.c; domain/records.h has their
     * namespaces and values): API tokens, the rule packs applied, working
     * memory and the maintenance pass's cursor move there from
     * api_tokens, user_packs, working_memory and meta; token lookup across
     * users goes by (ns, key) */
    ("CREATE TABLE records(user_id TEXT NOT NULL, ns TEXT NOT NULL, key TEXT NOT NULL,"
     " value TEXT NOT NULL, expires_at INTEGER, PRIMARY KEY(user_id, ns, key)) WITHOUT ROWID;"
     "CREATE INDEX records_key ON records(ns, key);"
     "INSERT INTO records(user_id, ns, key, value)"
     " SELECT user_id, '" AM__REC_TOKEN "', lookup || '/' || id, json_object('admin', admin,"
     " 'agent_id', agent_id, 'created_at', created_at, 'hash', lower(hex(hash)), 'id', id,"
     " 'lookup', lookup, 'revoked_at', revoked_at, 'role', role) FROM api_tokens;"
     "INSERT INTO records(user_id, ns, key, value)"
     " SELECT user_id, '" AM__REC_PACK "', name, json_object('applied_at', applied_at, 'json', json,"
     " 'n_rules', n_rules, 'version', version) FROM user_packs;"
     "INSERT INTO records(user_id, ns, key, value, expires_at)"
     " SELECT user_id, '" AM__REC_WORKING "', session_id || char(31) || key, value, expires_at"
     " FROM working_memory;"
     "INSERT INTO records(user_id, ns, key, value)"
     " SELECT '', '" AM__REC_META "', key, value FROM meta WHERE key = 'maintain_cursor';"
     "DELETE FROM meta WHERE key = 'maintain_cursor';"
     "DROP TABLE api_tokens; DROP TABLE user_packs; DROP TABLE working_memory;"),
};
#define N_MIGRATIONS (int)(sizeof migrations / sizeof *migrations)
_Static_assert(sizeof migrations / sizeof *migrations == AM__SCHEMA_VERSION,
               "AM__SCHEMA_VERSION (store.h) is the number of migrations");

/* Read the schema version: 0 for an empty database, -1 for a database
 * that has tables but is not ours. */
int am__sqlite_schema_version(sq_store *s, int *version)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
    if (rc != SQLITE_OK) return fail(s, rc, "read schema");
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        int r = fail(s, rc, "read schema");
        sqlite3_finalize(st);
        return r;
    }
    int tables = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (tables == 0) {
        *version = 0;
        return AM_OK;
    }
    rc = sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key='schema_version'", -1, &st, NULL);
    if (rc != SQLITE_OK) {
        *version = -1;
        return AM_OK;
    }
    *version = -1;
    if (sqlite3_step(st) == SQLITE_ROW) *version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return AM_OK;
}

int am__sqlite_meta_key(sq_store *s, const char *name, unsigned char *key, size_t cap, size_t *n)
{
    *n = 0;
    sqlite3_stmt *st = stmt(s, "SELECT value FROM meta WHERE key=?1");
    if (!st) return AM_BACKEND;
    bind_text(st, 1, name);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *hex = (const char *)sqlite3_column_text(st, 0);
        for (size_t i = 0; hex && hex[2 * i] && hex[2 * i + 1] && *n < cap; i++) {
            int hi = am__hexval(hex[2 * i]), lo = am__hexval(hex[2 * i + 1]);
            if (hi < 0 || lo < 0) { *n = 0; break; }
            key[(*n)++] = (unsigned char)(hi << 4 | lo);
        }
    }
    int out = rc == SQLITE_ROW || rc == SQLITE_DONE ? AM_OK : fail(s, rc, name);
    done(s, st);
    return out;
}

int am__sqlite_migrate(sq_store *s, int from)
{
    int rc = exec(s, "BEGIN IMMEDIATE", "migrate");
    if (rc) return rc;
    /* another process may have migrated between our read and the lock */
    int now_at = from;
    if ((rc = am__sqlite_schema_version(s, &now_at))) goto out_rollback;
    if (now_at >= N_MIGRATIONS) return exec(s, "COMMIT", "migrate");
    if (now_at > from) from = now_at;
    for (int v = from; v < N_MIGRATIONS; v++)
        if ((rc = exec(s, migrations[v], "migrate"))) goto out_rollback;
    /* v5 (packed vectors): pack what earlier versions stored; v6: the
     * sign bits of blocks packed before (new ones are written with theirs) */
    if (from > 0 && from < 5 && (rc = am__sqlite_vec_pack_all(s))) goto out_rollback;
    if (from > 0 && from < 6 && (rc = am__sqlite_vec_bits_fill(s))) goto out_rollback;
    /* the vault rows' value hashes (those this connection can compute) */
    long sealed = 0, hashed = 0;
    if (from > 0 && from < AM__SCHEMA_PII_HASH &&
        (rc = am__sqlite_vault_upkeep(s, 0, &sealed, &hashed)))
        goto out_rollback;
    char sql[160];
    snprintf(sql, sizeof sql,
             "INSERT OR REPLACE INTO meta(key, value) VALUES('schema_version', '%d');"
             "INSERT OR IGNORE INTO meta(key, value) VALUES('created_by', 'agentmem " AM_VERSION_STRING "');",
             N_MIGRATIONS);
    if ((rc = exec(s, sql, "migrate"))) goto out_rollback;
    return exec(s, "COMMIT", "migrate");
out_rollback:
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* The index holds the tokens of the analyzer that wrote it; FTS5 deletes
 * a row by tokenizing its stored text again, so an index written by
 * another analyzer (AM__TEXT_VERSION, ICU's major version) would keep
 * stale terms of forgotten rows and miss new ones.  meta('fts_analyzer')
 * records the analyzer; on a difference (or none recorded: stores before
 * it) the index is rebuilt from the stored texts and the item versions'
 * token sets are computed again, once, in one transaction. */
static int fts_analyzer_recorded(sq_store *s, const char *want, int *same)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key = 'fts_analyzer'", -1,
                                &st, NULL);
    if (rc != SQLITE_OK) return fail(s, rc, "read fts_analyzer");
    rc = sqlite3_step(st);
    *same = rc == SQLITE_ROW && sqlite3_column_text(st, 0) &&
            strcmp((const char *)sqlite3_column_text(st, 0), want) == 0;
    int out = rc == SQLITE_ROW || rc == SQLITE_DONE ? AM_OK : fail(s, rc, "read fts_analyzer");
    sqlite3_finalize(st);
    return out;
}

/* A token set computed by the store's own analyzer (s->ptext). */
static int ptext_item_tokens(void *ctx, const char *text, const char *key, unsigned char *blob,
                             size_t *len)
{
    sq_store *s = ctx;
    uint64_t set[AM__ITEM_SET];
    size_t n;
    if (*len < AM__TOKBLOB_MAX) return AM_TOOBIG;
    int rc = am__text_item_set(s->ptext, text, key, set, &n);
    if (!rc) *len = am__token_blob_put(set, n, blob);
    return rc;
}

/* The item versions' stored token sets (v7), computed again by this
 * analyzer: a set tagged with another one is ignored at recall and
 * recomputed on every recall instead. */
static int item_tokens_renew(sq_store *s)
{
    size_t n = 0;
    int rc = s->ptext ? AM_OK : am__text_open(s->a, &s->ptext);
    if (!rc)
        rc = am__sqlite_item_tokens_set(s, "SELECT rid, text, key FROM memory_items"
                                " WHERE tokens IS NOT NULL AND rid > ? ORDER BY rid LIMIT 1",
                             ptext_item_tokens, s, &n);
    return rc;
}

int am__sqlite_fts_analyzer_sync(sq_store *s)
{
    char want[16], sql[160];
    int same = 0, rc;
    snprintf(want, sizeof want, "%u", (unsigned)am__text_version());
    if ((rc = fts_analyzer_recorded(s, want, &same)) || same) return rc;
    if ((rc = exec(s, "BEGIN IMMEDIATE", "fts_analyzer"))) return rc;
    /* another process may have rebuilt it between our read and the lock */
    if ((rc = fts_analyzer_recorded(s, want, &same))) goto out_rollback;
    if (same) return exec(s, "COMMIT", "fts_analyzer");
    snprintf(sql, sizeof sql,
             "INSERT INTO events_fts(events_fts) VALUES('rebuild');"
             "INSERT OR REPLACE INTO meta(key, value) VALUES('fts_analyzer', '%s');",
             want);
    if ((rc = exec(s, sql, "rebuild the index for this analyzer"))) goto out_rollback;
    if ((rc = item_tokens_renew(s))) goto out_rollback;
    if ((rc = exec(s, "COMMIT", "fts_analyzer"))) goto out_rollback;
    return AM_OK;
out_rollback:
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}
