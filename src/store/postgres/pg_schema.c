/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pg_schema.c -- the PostgreSQL store's tables and their migrations.
 *
 * migrations[i] takes a database from version i to i + 1 (0: empty);
 * meta('schema_version') records it.  They run in one transaction under
 * an advisory lock, so servers starting together migrate once.  Versions
 * are this backend's own (AM__PG_SCHEMA_VERSION), apart from the SQLite
 * file's: the two schemas hold the same data in each engine's terms.
 *
 * Every table of user data is PARTITION BY HASH (user_id) in PG_PARTS
 * partitions, its keys led by user_id: a user's rows are in one
 * partition and every statement names user_id, so the same schema is a
 * Citus distributed table (distribution column user_id) or a set of
 * servers each holding some partitions (docs/SCALING.md).  Tables keyed
 * otherwise -- identity links (by channel identity), API tokens (by
 * lookup), meta, index_totals -- are small and are reference tables
 * there.  Texts compare bytewise (COLLATE "C"), as SQLite's BINARY does,
 * so every ORDER BY agrees with the SQLite store.
 *
 * The lexical index is ours, not PostgreSQL's text search (Debian has no
 * Chinese parser, and rankings must agree with SQLite): postings(user_id,
 * term, rid, tf0, tf1) holds, per event and term of text/analyze's
 * tokenizer, its counts in the text (0) and context (1) columns; events
 * keep their column lengths; index_totals the rows and tokens of all
 * users (the BM25 averages), spread over slots so writers of different
 * users do not queue on one row.
 *
 * Version 2: the PII vault's value hashes (pii_vault.canon_hash and
 * meta('pii_key'), pg_vault.c), and the grace period of an event, a
 * session or a task (as the SQLite store's schema v14 and v21): held_<table> for every table a
 * forget deletes from -- LIKE the table (its columns, no defaults), plus
 * held_job, the forget job's seq -- partitioned by user as the table
 * is.  A forget with a grace period moves its rows there (pg_held.c);
 * a column a later migration adds to a table is added to its held table
 * the first time rows are held, so a held row always goes back whole.
 *
 * Version 3: opaque ids instead of keys and caller's ids in the rows that
 * outlive them (schema_v3 below).  Version 4: metadata (schema_v4).
 * Version 5: the origin of item versions (schema_v5).
 * Version 6: archived events (schema_v6).
 * Version 7: rule packs (schema_v7).
 * Version 8: generic records (schema_v8).
 */
#include <stdio.h>
#include <stdlib.h>

#include "store/postgres/pg_int.h"

#define T " text COLLATE \"C\""

/* version 1 */
static const char *const schema_v1[] = {
    "CREATE TABLE meta(key" T " PRIMARY KEY, value" T " NOT NULL);",
    "CREATE TABLE users(user_id" T " NOT NULL, created_at bigint NOT NULL,"
    "  channel" T ", external_id" T ", n_events bigint NOT NULL DEFAULT 0,"
    "  PRIMARY KEY(user_id)) PARTITION BY HASH (user_id);"
    "CREATE INDEX users_channel ON users(channel, external_id);",
    "CREATE TABLE identity_links(channel" T " NOT NULL, external_id" T " NOT NULL,"
    "  user_id" T " NOT NULL, created_at bigint NOT NULL, PRIMARY KEY(channel, external_id));"
    "CREATE INDEX identity_links_user ON identity_links(user_id);",
    "CREATE TABLE events(user_id" T " NOT NULL, rid bigserial NOT NULL, id" T " NOT NULL,"
    "  agent_id" T ", session_id" T ", task_id" T ", channel" T ", source" T " NOT NULL,"
    "  type" T " NOT NULL, content" T " NOT NULL, domain" T ", intent" T ", lang" T ","
    "  occurred_at bigint NOT NULL, tz_minutes integer NOT NULL, ingested_at bigint NOT NULL,"
    "  client_id" T ", client_hash bigint, tokens bytea,"
    "  len0 integer NOT NULL DEFAULT 1, len1 integer NOT NULL DEFAULT 1,"
    "  PRIMARY KEY(user_id, rid), UNIQUE(user_id, id)) PARTITION BY HASH (user_id);"
    "CREATE INDEX events_user_time ON events(user_id, occurred_at, rid);"
    "CREATE INDEX events_user_session ON events(user_id, session_id, occurred_at);"
    "CREATE INDEX events_user_task ON events(user_id, task_id, occurred_at);"
    "CREATE UNIQUE INDEX events_client ON events(user_id, client_id) WHERE client_id IS NOT NULL;",
    "CREATE TABLE postings(user_id" T " NOT NULL, term" T " NOT NULL, rid bigint NOT NULL,"
    "  tf0 integer NOT NULL, tf1 integer NOT NULL, PRIMARY KEY(user_id, term, rid))"
    "  PARTITION BY HASH (user_id);"
    "CREATE INDEX postings_row ON postings(user_id, rid);",
    "CREATE TABLE index_totals(slot integer PRIMARY KEY, n_rows bigint NOT NULL,"
    "  len0 bigint NOT NULL, len1 bigint NOT NULL);"
    "INSERT INTO index_totals SELECT g, 0, 0, 0 FROM generate_series(0, 15) g;",
    "CREATE TABLE event_vectors(user_id" T " NOT NULL, event_rid bigint NOT NULL,"
    "  embedder" T " NOT NULL, dim integer NOT NULL, scale real NOT NULL, vec bytea NOT NULL,"
    "  PRIMARY KEY(user_id, event_rid)) PARTITION BY HASH (user_id);"
    "CREATE INDEX event_vectors_user ON event_vectors(user_id, embedder, dim);",
    "CREATE TABLE entities(user_id" T " NOT NULL, seq bigserial NOT NULL, event_rid bigint NOT NULL,"
    "  type" T " NOT NULL, surface" T " NOT NULL, norm" T " NOT NULL, t_from bigint, t_to bigint,"
    "  PRIMARY KEY(user_id, seq)) PARTITION BY HASH (user_id);"
    "CREATE INDEX entities_event ON entities(user_id, event_rid);"
    "CREATE INDEX entities_norm ON entities(user_id, type, norm);",
    "CREATE TABLE pii_vault(user_id" T " NOT NULL, seq bigserial NOT NULL, event_rid bigint NOT NULL,"
    "  placeholder" T " NOT NULL, type" T " NOT NULL, original" T " NOT NULL,"
    "  PRIMARY KEY(user_id, seq)) PARTITION BY HASH (user_id);"
    "CREATE INDEX pii_vault_event ON pii_vault(user_id, event_rid);"
    "CREATE INDEX pii_vault_type ON pii_vault(user_id, type);",
    "CREATE TABLE tasks(user_id" T " NOT NULL, task_id" T " NOT NULL, name" T " NOT NULL,"
    "  stage" T ", status" T " NOT NULL, artifacts" T " NOT NULL DEFAULT '[]',"
    "  pending" T " NOT NULL DEFAULT '[]', notes" T " NOT NULL DEFAULT '[]',"
    "  created_at bigint NOT NULL, updated_at bigint NOT NULL, round integer NOT NULL DEFAULT 1,"
    "  round_from bigint, round_at bigint, round_tz integer NOT NULL DEFAULT 0, period" T ","
    "  rounds" T " NOT NULL DEFAULT '[]', PRIMARY KEY(user_id, task_id))"
    "  PARTITION BY HASH (user_id);",
    "CREATE TABLE task_history(user_id" T " NOT NULL, seq bigserial NOT NULL, task_id" T " NOT NULL,"
    "  at bigint NOT NULL, field" T " NOT NULL, old_value" T ", new_value" T ", event_id" T ","
    "  PRIMARY KEY(user_id, seq)) PARTITION BY HASH (user_id);"
    "CREATE INDEX task_history_task ON task_history(user_id, task_id);",
    "CREATE TABLE task_workspace(user_id" T " NOT NULL, task_id" T " NOT NULL, agent_id" T " NOT NULL,"
    "  doing" T " NOT NULL DEFAULT '', done" T " NOT NULL DEFAULT '', next" T " NOT NULL DEFAULT '',"
    "  version bigint NOT NULL, updated_at bigint NOT NULL,"
    "  PRIMARY KEY(user_id, task_id, agent_id)) PARTITION BY HASH (user_id);",
    "CREATE TABLE memory_items(user_id" T " NOT NULL, rid bigserial NOT NULL, id" T " NOT NULL,"
    "  lineage_id" T " NOT NULL, scope" T " NOT NULL, kind" T " NOT NULL, key" T " NOT NULL,"
    "  text" T " NOT NULL, value_json" T " NOT NULL, confidence double precision NOT NULL,"
    "  base_score double precision NOT NULL, half_life_days double precision NOT NULL,"
    "  valid_from bigint NOT NULL, valid_to bigint, recorded_at bigint NOT NULL,"
    "  superseded_at bigint, status" T " NOT NULL, tokens bytea,"
    "  source_count bigint NOT NULL DEFAULT 0, reinforced_at bigint,"
    "  PRIMARY KEY(user_id, rid), UNIQUE(user_id, id)) PARTITION BY HASH (user_id);"
    "CREATE INDEX memory_items_current ON memory_items(user_id, superseded_at);"
    "CREATE INDEX memory_items_lineage ON memory_items(user_id, lineage_id);",
    "CREATE TABLE item_sources(user_id" T " NOT NULL, item_rid bigint NOT NULL,"
    "  event_id" T " NOT NULL, seq bigserial NOT NULL, PRIMARY KEY(user_id, item_rid, event_id))"
    "  PARTITION BY HASH (user_id);"
    "CREATE INDEX item_sources_event ON item_sources(user_id, event_id);",
    "CREATE TABLE item_heat(user_id" T " NOT NULL, lineage_id" T " NOT NULL, hits bigint NOT NULL,"
    "  last_access bigint, PRIMARY KEY(user_id, lineage_id)) PARTITION BY HASH (user_id);",
    "CREATE TABLE tombstones(user_id" T " NOT NULL, seq bigserial NOT NULL, level" T " NOT NULL,"
    "  object_id" T ", at bigint NOT NULL, purged_at bigint, PRIMARY KEY(user_id, seq))"
    "  PARTITION BY HASH (user_id);",
    "CREATE TABLE audit_log(user_id" T " NOT NULL, seq bigserial NOT NULL, at bigint NOT NULL,"
    "  op" T " NOT NULL, object_type" T " NOT NULL, object_id" T ", detail" T ","
    "  PRIMARY KEY(user_id, seq)) PARTITION BY HASH (user_id);"
    /* append-only: no DELETE or TRUNCATE statement (a forgotten user's rows
     * are re-keyed to its pseudonym, an UPDATE) */,
    "CREATE FUNCTION am_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS"
    "  $$BEGIN RAISE EXCEPTION 'audit_log is append-only'; END$$;"
    "CREATE TRIGGER audit_log_no_delete BEFORE DELETE OR TRUNCATE ON audit_log"
    "  FOR EACH STATEMENT EXECUTE FUNCTION am_audit_append_only();",
    "CREATE TABLE memory_events(user_id" T " NOT NULL, seq bigserial NOT NULL, at bigint NOT NULL,"
    "  type" T " NOT NULL, memory_id" T ", task_id" T ", event_id" T ", key" T ", detail" T ","
    "  other_user" T ", occurred_at bigint, PRIMARY KEY(user_id, seq)) PARTITION BY HASH (user_id);"
    "CREATE INDEX memory_events_seq ON memory_events(seq);",
    "CREATE TABLE forget_jobs(user_id" T " NOT NULL, seq bigserial NOT NULL, level" T " NOT NULL,"
    "  object_id" T ", forgotten_at bigint NOT NULL, purge_at bigint NOT NULL, state" T " NOT NULL,"
    "  PRIMARY KEY(user_id, seq)) PARTITION BY HASH (user_id);"
    "CREATE INDEX forget_jobs_due ON forget_jobs(purge_at);",
    "CREATE TABLE api_tokens(id" T " PRIMARY KEY, lookup" T " NOT NULL, hash bytea NOT NULL,"
    "  user_id" T " NOT NULL, agent_id" T ", role" T ", admin integer NOT NULL DEFAULT 0,"
    "  created_at bigint NOT NULL, revoked_at bigint);"
    "CREATE INDEX api_tokens_lookup ON api_tokens(lookup);"
    "CREATE INDEX api_tokens_user ON api_tokens(user_id);",
    "INSERT INTO meta(key, value) VALUES('forget_key',"
    "  encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text"
    "  || clock_timestamp()::text, 'UTF8')), 'hex'));",
};

/* the tables partitioned by user (version 1) */
static const char *const partitioned_v1[] = {
    "users", "events", "postings", "event_vectors", "entities", "pii_vault", "tasks",
    "task_history", "task_workspace", "memory_items", "item_sources", "item_heat",
    "tombstones", "audit_log", "memory_events", "forget_jobs",
};

/* version 2: the held copies of these tables (pg_held.c) */
static const char *const held_v2[] = {
    "events", "postings", "entities", "event_vectors", "pii_vault", "item_sources",
    "memory_items", "item_heat", "tasks", "task_history", "task_workspace",
};

static int partitions(pg_store *s, const char *const *tables, size_t n)
{
    am__buf b;
    am__buf_init(&b, s->a);
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < PG_PARTS; k++)
            am__buf_printf(&b, "CREATE TABLE IF NOT EXISTS %s_p%d PARTITION OF %s"
                               " FOR VALUES WITH (MODULUS %d, REMAINDER %d);",
                           tables[i], k, tables[i], PG_PARTS, k);
    int rc = b.oom ? AM_NOMEM : am__pg_simple(s, "migrate: partitions", b.p);
    am__buf_free(&b);
    return rc;
}

static int schema_v2(pg_store *s)
{
    /* the vault's value hashes first (held_pii_vault is like pii_vault) */
    int rc = am__pg_simple(s, "migrate: vault hashes",
                           "ALTER TABLE pii_vault ADD COLUMN canon_hash bigint;"
                           "CREATE INDEX pii_vault_hash ON pii_vault(user_id, type, canon_hash);"
                           "INSERT INTO meta(key, value) VALUES('pii_key',"
                           "  encode(sha256(convert_to(gen_random_uuid()::text"
                           "  || gen_random_uuid()::text || clock_timestamp()::text, 'UTF8')), 'hex'))"
                           " ON CONFLICT(key) DO NOTHING");
    if (rc) return rc;
    am__buf b;
    am__buf_init(&b, s->a);
    size_t n = sizeof held_v2 / sizeof *held_v2;
    const char *names[sizeof held_v2 / sizeof *held_v2];
    char held[sizeof held_v2 / sizeof *held_v2][32];
    for (size_t i = 0; i < n; i++) {
        snprintf(held[i], sizeof held[i], "held_%s", held_v2[i]);
        names[i] = held[i];
        am__buf_printf(&b, "CREATE TABLE %s (LIKE %s, held_job bigint NOT NULL)"
                           " PARTITION BY HASH (user_id);"
                           "CREATE INDEX %s_job ON %s(user_id, held_job);",
                       held[i], held_v2[i], held[i], held[i]);
    }
    rc = b.oom ? AM_NOMEM : am__pg_simple(s, "migrate: held tables", b.p);
    am__buf_free(&b);
    return rc ? rc : partitions(s, names, n);
}

_Static_assert(PG_PARTS == 16, "index_totals' slots (schema_v1) are PG_PARTS");

/* version 3 (as the SQLite store's v24): the user's words and the
 * caller's ids leave the rows that outlive them (store/ids.c) -- the
 * outbox names a key (in its item's scope) and a task by their opaque
 * ids, a forget's tombstone and audit row name an event, session or task
 * by its keyed hash.  Row by row: the hash is this program's, not SQL's. */
static const struct {
    const char *select, *update;
} schema_v3[] = {
    {"SELECT e.user_id, e.seq, e.key, coalesce((SELECT m.scope FROM memory_items m"
     "  WHERE m.user_id = e.user_id AND m.lineage_id = e.memory_id"
     "  ORDER BY m.recorded_at DESC LIMIT 1), 'global'), e.task_id"
     " FROM memory_events e WHERE e.key IS NOT NULL OR e.task_id IS NOT NULL",
     "UPDATE memory_events SET key = $3, task_id = $4, type = CASE WHEN type LIKE"
     " 'memory.updated.%' AND $3::text IS NOT NULL THEN 'memory.updated.' || $3 ELSE type END"
     " WHERE user_id = $1 AND seq = $2::bigint"},
    {"SELECT user_id, seq, level, object_id FROM tombstones"
     " WHERE level IN ('event', 'session', 'task') AND object_id IS NOT NULL",
     "UPDATE tombstones SET object_id = $3 WHERE user_id = $1 AND seq = $2::bigint"},
    {"SELECT user_id, seq, object_type, object_id FROM audit_log WHERE op IN ('forget', 'restore')"
     " AND object_type IN ('event', 'session', 'task') AND object_id IS NOT NULL",
     "UPDATE audit_log SET object_id = $3 WHERE user_id = $1 AND seq = $2::bigint"},
};

static int v3_row(pg_store *s, size_t table, PGresult *r, int i)
{
    const char *uid = PQgetvalue(r, i, 0);
    char a[AM__REF_LEN + 1] = "", b[AM__REF_LEN + 1] = "";
    int rc = AM_OK;
    pg_args u = {0};
    am__pg_arg_text(&u, uid);
    am__pg_arg_text(&u, PQgetvalue(r, i, 1));
    if (table == 0) { /* key in scope, task */
        if (!PQgetisnull(r, i, 2))
            rc = am__store_key_id(&s->base, uid, PQgetvalue(r, i, 3), PQgetvalue(r, i, 2), a);
        if (!rc && !PQgetisnull(r, i, 4))
            rc = am__store_object_ref(&s->base, uid, "task", PQgetvalue(r, i, 4), b);
        am__pg_arg_text(&u, a[0] ? a : NULL);
        am__pg_arg_text(&u, b[0] ? b : NULL);
    } else {
        rc = am__store_object_ref(&s->base, uid, PQgetvalue(r, i, 2), PQgetvalue(r, i, 3), a);
        am__pg_arg_text(&u, a);
    }
    return rc ? rc : am__pg_exec(s, "migrate: opaque ids", schema_v3[table].update, &u, NULL);
}

static int read_forget_key(pg_store *s);

static int schema_v3_convert(pg_store *s)
{
    int rc = read_forget_key(s);
    for (size_t t = 0; t < sizeof schema_v3 / sizeof *schema_v3 && !rc; t++) {
        PGresult *r = am__pg_run(s, "migrate: opaque ids", schema_v3[t].select, NULL);
        if (!r) return s->rc;
        for (int i = 0; i < PQntuples(r) && !rc; i++) rc = v3_row(s, t, r, i);
        PQclear(r);
    }
    /* a forgotten task's other audit rows (a switch to it, its workspace) */
    PGresult *r = rc ? NULL : am__pg_run(s, "migrate: opaque ids",
                                         "SELECT DISTINCT user_id, object_id FROM audit_log"
                                         " WHERE object_type = 'task' AND op NOT IN ('forget',"
                                         " 'restore') AND object_id IS NOT NULL", NULL);
    if (!rc && !r) return s->rc;
    for (int i = 0; r && i < PQntuples(r) && !rc; i++) {
        char ref[AM__REF_LEN + 1];
        const char *uid = PQgetvalue(r, i, 0), *id = PQgetvalue(r, i, 1);
        if ((rc = am__store_object_ref(&s->base, uid, "task", id, ref))) break;
        pg_args u = {0};
        am__pg_arg_text(&u, uid);
        am__pg_arg_text(&u, ref);
        PGresult *t = am__pg_run(s, "migrate: opaque ids",
                                 "SELECT 1 FROM tombstones WHERE user_id = $1 AND level = 'task'"
                                 " AND object_id = $2 LIMIT 1", &u);
        if (!t) { rc = s->rc; break; }
        int forgotten = PQntuples(t) > 0;
        PQclear(t);
        if (forgotten) rc = am__pg_forget_task_audit(s, uid, id, ref);
    }
    PQclear(r);
    return rc;
}

/* version 4 (as the SQLite store's v25): the caller's metadata of an
 * event and of a memory item version (store/metadata.h), in their held
 * copies too */
static const char schema_v4[] = "ALTER TABLE events ADD COLUMN IF NOT EXISTS metadata" T ";"
                                "ALTER TABLE memory_items ADD COLUMN IF NOT EXISTS metadata" T ";"
                                "ALTER TABLE held_events ADD COLUMN IF NOT EXISTS metadata" T ";"
                                "ALTER TABLE held_memory_items ADD COLUMN IF NOT EXISTS metadata" T ";";

/* version 5 (as the SQLite store's v26): what decided a memory item
 * version's statement (store.h), in its held copies too */
static const char schema_v5[] = "ALTER TABLE memory_items ADD COLUMN IF NOT EXISTS origin" T ";"
                                "ALTER TABLE held_memory_items ADD COLUMN IF NOT EXISTS origin" T ";";

/* version 6 (as the SQLite store's v27): archived events (store/cold.h):
 * the whole text packed in `cold`, stored out of line (TOAST: a table of
 * its own that reads of the other columns never touch) and not compressed
 * again, the content a summary; a held copy keeps it */
static const char schema_v6[] = "ALTER TABLE events ADD COLUMN IF NOT EXISTS cold bytea;"
                                "ALTER TABLE events ALTER COLUMN cold SET STORAGE EXTERNAL;"
                                "ALTER TABLE held_events ADD COLUMN IF NOT EXISTS cold bytea;";

/* version 7 (as the SQLite store's v28): the rule packs applied to a
 * user (pg_packs.c), partitioned by user */
static const char schema_v7[] =
    "CREATE TABLE IF NOT EXISTS user_packs(user_id" T " NOT NULL, name" T " NOT NULL,"
    " version" T " NOT NULL, json" T " NOT NULL, n_rules bigint NOT NULL,"
    " applied_at bigint NOT NULL, PRIMARY KEY(user_id, name)) PARTITION BY HASH (user_id);"
    "CREATE INDEX IF NOT EXISTS user_packs_name ON user_packs(name);";
static const char *const partitioned_v7[] = {"user_packs"};

/* version 8 (as the SQLite store's v30): generic records (pg_records.c;
 * domain/records.h): API tokens, the rule packs applied and the
 * maintenance pass's cursor move there from api_tokens, user_packs and
 * meta; token lookup across users goes by (ns, key) */
static const char schema_v8[] =
    "CREATE TABLE IF NOT EXISTS records(user_id" T " NOT NULL, ns" T " NOT NULL, key" T " NOT NULL,"
    " value" T " NOT NULL, expires_at bigint, PRIMARY KEY(user_id, ns, key))"
    " PARTITION BY HASH (user_id);"
    "CREATE INDEX IF NOT EXISTS records_key ON records(ns, key);";
static const char *const partitioned_v8[] = {"records"};
/* (each table's rows when it is there: a store set back to an older
 * version by hand may have lost it) */
static const char schema_v8_tokens[] =
    "INSERT INTO records(user_id, ns, key, value)"
    " SELECT user_id, '" AM__REC_TOKEN "', lookup || '/' || id, json_build_object('admin', admin,"
    " 'agent_id', agent_id, 'created_at', created_at, 'hash', encode(hash, 'hex'), 'id', id,"
    " 'lookup', lookup, 'revoked_at', revoked_at, 'role', role)::text FROM api_tokens;"
    "DROP TABLE api_tokens;";
static const char schema_v8_packs[] =
    "INSERT INTO records(user_id, ns, key, value)"
    " SELECT user_id, '" AM__REC_PACK "', name, json_build_object('applied_at', applied_at,"
    " 'json', json, 'n_rules', n_rules, 'version', version)::text FROM user_packs;"
    "DROP TABLE user_packs;";
static const char schema_v8_meta[] =
    "INSERT INTO records(user_id, ns, key, value)"
    " SELECT '', '" AM__REC_META "', key, value FROM meta WHERE key = 'maintain_cursor'"
    " ON CONFLICT DO NOTHING;"
    "DELETE FROM meta WHERE key = 'maintain_cursor';";

/* sql when table exists */
static int if_table(pg_store *s, const char *table, const char *sql)
{
    pg_args a = {0};
    am__pg_arg_text(&a, table);
    PGresult *r = am__pg_run(s, "migrate: records", "SELECT to_regclass($1) IS NOT NULL", &a);
    if (!r) return s->rc;
    int there = PQgetvalue(r, 0, 0)[0] == 't';
    PQclear(r);
    return there ? am__pg_simple(s, "migrate: records", sql) : AM_OK;
}

/* version: 0 for a database without our tables, -1 for one with tables
 * that are not ours */
static int schema_version(pg_store *s, int *version)
{
    PGresult *r = am__pg_run(s, "read schema",
                             "SELECT to_regclass('meta') IS NOT NULL,"
                             " (SELECT count(*) FROM pg_tables WHERE schemaname = current_schema())",
                             NULL);
    if (!r) return s->rc;
    int has_meta = PQgetvalue(r, 0, 0)[0] == 't';
    long tables = atol(PQgetvalue(r, 0, 1));
    PQclear(r);
    *version = has_meta ? -1 : tables == 0 ? 0 : -1;
    if (!has_meta) return AM_OK;
    r = am__pg_run(s, "read schema", "SELECT value FROM meta WHERE key = 'schema_version'", NULL);
    if (!r) return s->rc;
    if (PQntuples(r) == 1) *version = atoi(PQgetvalue(r, 0, 0));
    PQclear(r);
    return AM_OK;
}

static int read_forget_key(pg_store *s)
{
    PGresult *r = am__pg_run(s, "forget key", "SELECT value FROM meta WHERE key = 'forget_key'",
                             NULL);
    if (!r) return s->rc;
    int ok = PQntuples(r) == 1 && PQgetlength(r, 0, 0) == 64;
    if (ok) memcpy(s->forget_key, PQgetvalue(r, 0, 0), 65);
    PQclear(r);
    return ok ? AM_OK : am__pg_fail(s, AM_CORRUPT, "postgres: the store's forget_key is missing");
}

int am__pg_migrate(pg_store *s, int must_exist)
{
    int version = 0, rc;
    if ((rc = schema_version(s, &version))) return rc;
    if (version < 0)
        return am__pg_fail(s, AM_CORRUPT,
                           "postgres: the database holds tables and is not an agentmem store"
                           " (no meta.schema_version)");
    if (version > AM__PG_SCHEMA_VERSION)
        return am__pg_fail(s, AM_NEWER,
                           "postgres: schema version %d is newer than this agentmem (%d);"
                           " upgrade agentmem", version, AM__PG_SCHEMA_VERSION);
    if (version == 0 && must_exist)
        return am__pg_fail(s, AM_NOTFOUND, "postgres: no agentmem store in this database");
    if (version == AM__PG_SCHEMA_VERSION) return read_forget_key(s);
    if ((rc = am__pg_simple(s, "migrate",
                            "BEGIN; SELECT pg_advisory_xact_lock(1634560365, 0)")))
        return rc;
    /* another server may have migrated between our read and the lock */
    if ((rc = schema_version(s, &version))) goto out_rollback;
    if (version < 1) {
        for (size_t i = 0; i < sizeof schema_v1 / sizeof *schema_v1 && !rc; i++)
            rc = am__pg_simple(s, "migrate", schema_v1[i]);
        if (rc ||
            (rc = partitions(s, partitioned_v1, sizeof partitioned_v1 / sizeof *partitioned_v1)))
            goto out_rollback;
    }
    if (version < 2 && (rc = schema_v2(s))) goto out_rollback;
    if (version < 3 && (rc = schema_v3_convert(s))) goto out_rollback;
    if (version < 4 && (rc = am__pg_simple(s, "migrate: metadata", schema_v4))) goto out_rollback;
    if (version < 5 && (rc = am__pg_simple(s, "migrate: origin", schema_v5))) goto out_rollback;
    if (version < 6 && (rc = am__pg_simple(s, "migrate: archived events", schema_v6)))
        goto out_rollback;
    if (version < 7 && ((rc = am__pg_simple(s, "migrate: packs", schema_v7)) ||
                        (rc = partitions(s, partitioned_v7, 1))))
        goto out_rollback;
    if (version < 8 && ((rc = am__pg_simple(s, "migrate: records", schema_v8)) ||
                        (rc = partitions(s, partitioned_v8, 1)) ||
                        (rc = if_table(s, "api_tokens", schema_v8_tokens)) ||
                        (rc = if_table(s, "user_packs", schema_v8_packs)) ||
                        (rc = am__pg_simple(s, "migrate: records", schema_v8_meta))))
        goto out_rollback;
    char sql[400];
    snprintf(sql, sizeof sql,
             "INSERT INTO meta(key, value) VALUES('schema_version', '%d')"
             " ON CONFLICT(key) DO UPDATE SET value = excluded.value;"
             "INSERT INTO meta(key, value) VALUES('created_by', 'agentmem " AM_VERSION_STRING "')"
             " ON CONFLICT(key) DO NOTHING",
             AM__PG_SCHEMA_VERSION);
    if ((rc = am__pg_simple(s, "migrate", sql)) || (rc = am__pg_simple(s, "migrate", "COMMIT")))
        goto out_rollback;
    return read_forget_key(s);
out_rollback:
    PQclear(PQexec(s->conn, "ROLLBACK"));
    return rc;
}
