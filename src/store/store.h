/* SPDX-License-Identifier: Apache-2.0 */
/*
 * store.h -- the storage interface.  Everything the engine keeps goes
 * through one am__store, a struct of function pointers (like sqlite3_vfs),
 * so backends other than the embedded SQLite one (store/sqlite) can follow.
 *
 * Isolation lives here: every operation takes the master user id and a
 * backend must scope every statement by it -- no operation can return or
 * touch another user's rows.  Callers group writes into one transaction
 * with begin and end (am__store_begin / _commit / _rollback); a failed
 * request is rolled back whole.
 *
 * Rows returned by list/get operations are allocated in the caller's arena
 * and live as long as it.  Times are am_time (UTC ms); AM_TIME_NONE = NULL.
 */
#ifndef AM_STORE_H
#define AM_STORE_H

#include <string.h>

#include "base/base.h"

/* One memory event of the outbox (store/sqlite/outbox.c): ids and
 * times only, never content.  NULL / AM_TIME_NONE where it does not
 * apply. */
typedef struct am__outbox_row {
    int64_t seq;              /* set by outbox_put (0 where the commit numbers it) */
    am_time at;               /* when it was written (the clock) */
    am_time occurred_at;      /* the causing event's time, or NONE */
    const char *user_id, *type, *memory_id, *task_id, *event_id, *key;
    const char *detail;       /* change / level / fields / what */
    const char *other_user;   /* security.denied: the user asked for */
} am__outbox_row;

typedef struct am__store am__store;

typedef struct am__event_row {
    int64_t rid;              /* backend row id (index key) */
    const char *id;           /* ULID */
    const char *user_id, *agent_id, *session_id, *task_id, *channel, *source,
        *type, *content, *domain, *intent, *lang;
    am_time occurred_at, ingested_at;
    int tz_minutes;
    const char *index_doc;    /* text to index (content + entities); put only */
    const char *index_ctx;    /* context to index (the turn it answers); put only */
    const unsigned char *tokens; /* its content's token blob (text/analyze.h, at most
                                    AM__EVENT_SET tokens: write.c), or NULL */
    size_t tokens_len;
    double score;             /* search score (higher is better) */
    const char *client_id;    /* the caller's id of the event (am_event.event_id) or
                                 NULL; unique per user; put only */
    int64_t client_hash;      /* fingerprint of what the caller gave; put only */
    const char *metadata;     /* the caller's metadata (store/metadata.h: a flat JSON
                                 object, checked and canonical), or NULL */
} am__event_row;

typedef struct am__entity_row {
    const char *type, *surface, *norm;
    am_time from, to;
} am__entity_row;

typedef struct am__pii_row {
    const char *placeholder, *type, *original;
} am__pii_row;

/* A read of the user's entities (store.h entities): what, and that mode's
 * arguments; out: what it gives back. */
#define AM__ENT_OF_EVENT 0 /* the entities of one event */
#define AM__ENT_COUNTS 1   /* the user's norms of one type, counted */
#define AM__ENT_DATED 2    /* which of some events name a date */
#define AM__ENT_PII 3      /* the events whose PII vault may hold a value */
typedef struct am__entity_read {
    int what;             /* AM__ENT_* */
    int64_t event_rid;    /* OF_EVENT */
    const char *type;     /* COUNTS, PII */
    int limit;            /* COUNTS, PII */
    const int64_t *rids;  /* DATED */
    size_t n_rids;        /* DATED */
    unsigned char *dated; /* DATED: the caller's array of n_rids, filled */
    const char *canon;    /* PII */
    am_time to;           /* PII */
} am__entity_read;
typedef struct am__entity_out {
    am__entity_row *rows;   /* OF_EVENT */
    const char **norms;     /* COUNTS */
    long *counts;           /* COUNTS */
    size_t n;               /* OF_EVENT, COUNTS, PII */
    int64_t *rids;          /* PII */
    const char **originals; /* PII */
} am__entity_out;

typedef struct am__task_row {
    const char *task_id, *name, *stage, *status;
    const char *artifacts, *pending, *notes; /* JSON arrays */
    am_time created_at, updated_at;
    /* rounds (domain/round.c): the current round's number, when it
     * began (round_from), the anchor of its period (round_at: its start,
     * or the continuation that carried it into a later period) and that
     * anchor's zone offset (the period's calendar), the task's period
     * ("week", ...; NULL: not periodic) and the ended rounds (a JSON array,
     * oldest first) */
    int round;
    am_time round_from;
    am_time round_at;
    int round_tz;
    const char *period;
    const char *rounds;
} am__task_row;

typedef struct am__task_change_row {
    am_time at;
    const char *task_id, *field, *old_value, *new_value, *event_id;
} am__task_change_row;

typedef struct am__item_row {
    int64_t rid;
    const char *id, *lineage_id, *scope, *kind, *key, *text, *value_json,
        *status;
    double confidence, base_score, half_life_days;
    am_time valid_from, valid_to, recorded_at, superseded_at;
    long hits;
    am_time last_access;
    const char **sources;     /* event ids: at most AM__ITEM_SOURCES_FIRST +
                                 AM__ITEM_SOURCES_LAST of them, oldest first */
    size_t n_sources;
    long source_count;        /* source events counted, listed or not (0 at
                                 insert: n_sources) */
    am_time reinforced_at;    /* last reinforcement (recorded_at, or later
                                 when reinforced in place; AM_TIME_NONE at
                                 insert: recorded_at) */
    const unsigned char *tokens; /* its token blob (text/analyze.h), or NULL */
    size_t tokens_len;
    const char *metadata;     /* the caller's metadata (store/metadata.h), or NULL */
    const char *origin;       /* what decided the version's statement: "rules",
                                 "model", "api", "import", "feedback",
                                 "pattern", "llm", "pack:<name>@<version>";
                                 NULL: written before origins were kept */
} am__item_row;

/* A plain string field of it->value_json ("topic", "source": no escapes
 * in it) into out[cap]: 1, or 0 when it has none (or a longer one). */
int am__item_value_str(const am__item_row *it, const char *field, char *out, size_t cap);
/* What decided an item version, into out[cap]: its origin column; for a
 * version written before origins were kept (origin NULL), the "source"
 * its value recorded (rules, model, api); else "unknown" and 0. */
int am__item_origin(const am__item_row *it, char *out, size_t cap);
/* items_list AM__ITEMS_SOURCES for a backend: the one row of version
 * rid, its sources read by the backend's fn (oldest first). */
int am__item_sources_row(am__store *s, const char *uid, int64_t rid, am__arena *ar,
                         am__item_row **rows, size_t *n,
                         int (*fn)(am__store *s, const char *uid, int64_t rid, am__arena *ar,
                                   const char ***ids, size_t *n));
/* An item's topic (a label of the learned reading's topic head, static):
 * the one stored with it when it was distilled, else the reading's of
 * its text. */
const char *am__item_topic_label(const am__item_row *it);
/* The end r was given when written (an expiry: docs/EXPIRY.md), or
 * AM_TIME_NONE.  A version closed by a later one ends at the moment of the
 * close, never after it was recorded; an end still ahead of the version
 * when it was written, not withdrawn, is an expiry. */
static inline am_time am__item_expiry(const am__item_row *r)
{
    if (r->valid_to == AM_TIME_NONE || r->valid_to <= r->recorded_at ||
        (r->status && strcmp(r->status, "invalidated") == 0))
        return AM_TIME_NONE;
    return r->valid_to;
}

/* One agent's entry of a task's shared workspace. */
typedef struct am__workspace_row {
    const char *agent_id, *doing, *done, *next;
    long version;             /* 1 at the first put, + 1 at each */
    am_time updated_at;
} am__workspace_row;

/* A rule pack applied to a user (lifecycle/packs.c): the pack's JSON as
 * applied (canonical, its own words: no user's), its rules' count and when
 * it was applied.  Listed per user or for every user. */
typedef struct am__pack_row {
    const char *user_id, *name, *version, *json;
    long n_rules;
    am_time applied_at;
} am__pack_row;

/* A session's working-memory entry (api/working.c without a cache;
 * domain/records.h). */
typedef struct am__working_row {
    const char *key, *value;
    am_time expires_at;
} am__working_row;

typedef struct am__link_row {
    const char *channel, *external_id;
    am_time created_at;
} am__link_row;

typedef struct am__audit_row {
    int64_t seq;
    am_time at;
    const char *op, *object_type, *object_id, *detail;
} am__audit_row;

/* A generic record (rec_list): its user ("" for the store's own), key,
 * value and expiry (AM_TIME_NONE: none). */
#define AM__REC_TOKEN "token" /* API tokens, every user's found by lookup */
#define AM__REC_PACK "pack"   /* the rule packs applied to a user, by name */
#define AM__REC_META "meta"   /* the store's own values (uid "") */
#define AM__REC_WORKING "working" /* a session's working memory */
typedef struct am__rec_row {
    const char *user_id, *key, *value;
    am_time expires_at;
} am__rec_row;

/* An API token as stored: never the token, its SHA-256 (32 bytes). */
#define AM__TOKEN_HASH 32
typedef struct am__token_row {
    const char *id, *lookup, *user_id, *agent_id, *role; /* agent, role: NULL none */
    unsigned char hash[AM__TOKEN_HASH];
    int admin;
    am_time created_at, revoked_at; /* revoked_at AM_TIME_NONE: live */
} am__token_row;

/* Which of the user's events a scan (events_scan) returns, in which
 * order; fields a kind does not name are unused.
 *   AM__SCAN_RECENT: the most recent, newest first (occurred_at, rid
 *     descending), said at or before `at` (AM_TIME_NONE: any), of
 *     session and task (NULL: any).
 *   AM__SCAN_PAGE: the next ones, oldest first (occurred_at, rid), after
 *     the one at (at, rid) (at AM_TIME_NONE: from the first), for a
 *     reader that streams a whole history in bounded memory (export).
 *   AM__SCAN_BEFORE: the next ones, newest first, before the one at (at,
 *     rid) (at AM_TIME_NONE: from the newest), of session (NULL: any),
 *     said at or after `from` (AM_TIME_NONE: any): a reader that pages a
 *     history back from now (am_events_list).
 *   AM__SCAN_ACCESS: those an access rule may hide (recall/access.c):
 *     of source agent or tool, or with a domain; by rid, all of them
 *     (limit unused); rows hold rid, id, agent_id, source and domain only.
 *   AM__SCAN_COLD: the candidates for archiving (lifecycle/cold.c,
 *     store/cold.h): events said before `at` and never archived, of
 *     AM__COLD_MIN_BYTES or more, oldest first, said at or after `from`
 *     (AM_TIME_NONE: any); uid NULL: every user's, by rid from `rid`
 *     (rid >= it), each row naming its user.  Rows hold rid, id,
 *     user_id, content and occurred_at.
 * PAGE and BEFORE read no token sets. */
#define AM__SCAN_RECENT 0
#define AM__SCAN_PAGE 1
#define AM__SCAN_BEFORE 2
#define AM__SCAN_ACCESS 3
#define AM__SCAN_COLD 4
typedef struct am__event_scan {
    int kind; /* AM__SCAN_* */
    const char *session, *task;
    am_time at;   /* the bound's time */
    int64_t rid;  /* the bound's row (PAGE, BEFORE), or COLD's first */
    am_time from; /* said at or after it */
    int limit;
} am__event_scan;

/* The vectors an embedder should have (vec_missing): one per event of
 * id embedder_id and dimension dim, for every event when all_langs, else
 * for events of lang "en" only (the write path's rule: USE-lite does not
 * represent Chinese, so Chinese events never get its vector). */
typedef struct am__vec_want {
    const char *embedder_id;
    int dim;
    int all_langs;
} am__vec_want;

/* Provenance is bounded (linear storage): a version lists its first
 * AM__ITEM_SOURCES_FIRST and its latest AM__ITEM_SOURCES_LAST source events
 * and counts all of them (source_count); a statement said N times costs a
 * bounded number of rows, not N.  The first ones say where it came from;
 * the latest ones are the turns a recall most often meets (dedup.c). */
#define AM__ITEM_SOURCES_FIRST 4
#define AM__ITEM_SOURCES_LAST 28

/* Which memory item versions to list. */
#define AM__ITEMS_CURRENT 0  /* superseded_at NULL, status active,
                                pending_confirm or candidate_forget, valid
                                at `at` */
#define AM__ITEMS_ALL 1      /* every version */
#define AM__ITEMS_ASOF 2     /* as the world stood at `at`: current system
                                version whose validity covers `at` */
#define AM__ITEMS_ARCHIVED 3 /* superseded_at and valid_to NULL, status archived (at
                                unused): the items a reference brings back */
#define AM__ITEMS_SOURCES 4  /* the provenance of one version, whose rid
                                is given as `at`: one row holding rid,
                                sources (every source event id, oldest
                                first) and n_sources, the rest zero */
#define AM__ITEMS_NO_SOURCES 8 /* or'ed in: leave sources empty (recall
                                  ranks every item, shows a few: it asks
                                  AM__ITEMS_SOURCES for those) */
#define AM__ITEMS_NO_HEAT 16   /* or'ed in: hits 0, last_access none (the
                                  write path: heat is the recall's; SQLite
                                  holds its latest items between
                                  statements, store/sqlite/item_memo.c) */

/* The store's part of a lexical search (index/lexical.c ranks): the
 * user's postings of the query's terms.  The index holds, per event row,
 * its text (column 0: content and entities) and its context (column 1:
 * the turns around it), as the final index tokens of text/analyze.  A
 * row that holds one of the terms is an am__hit: its column lengths in
 * tokens and, per term it holds, an am__hit_tf (the term's count in each
 * column), its n_tf entries in tf[first..], terms in ascending order. */
#define AM__SEARCH_COLS 2 /* scored columns: doc, ctx */
typedef struct am__hit_tf {
    uint16_t term; /* index into the terms searched */
    uint16_t tf[AM__SEARCH_COLS];
} am__hit_tf;
typedef struct am__hit {
    int64_t rid;
    double score; /* the ranker's */
    float len[AM__SEARCH_COLS];
    uint32_t first, n_tf; /* its entries in tf[] */
} am__hit;
typedef struct am__hits {
    const am__allocator *a; /* hit and tf are allocated with it (am__hits_free) */
    int n_terms;
    double avg[AM__SEARCH_COLS]; /* the index's tokens per row, per column */
    am__hit *hit;                /* rows in no set order */
    size_t n, cap;
    am__hit_tf *tf;
    size_t n_tf, cap_tf;
} am__hits;

static inline void am__hits_free(am__hits *h)
{
    am__free(h->a, h->hit);
    am__free(h->a, h->tf);
    h->hit = NULL;
    h->tf = NULL;
    h->n = h->cap = h->n_tf = h->cap_tf = 0;
}

/* An archived events' move or read (cold_put): kind AM__COLD_ARCHIVE
 * (rid, summary), AM__COLD_RESTORE (event_id, or from and to) or
 * AM__COLD_FILL (rows, n, ar). */
typedef struct am__cold_op {
    int kind;
    int64_t rid;
    const char *summary;
    const char *event_id;
    am_time from, to;
    am__event_row *rows;
    size_t n;
    am__arena *ar;
} am__cold_op;

/* Which users users_list names (AM__USERS_*); fields a kind does not
 * name are unused. */
typedef struct am__user_query {
    int kind;
    const char *after; /* AFTER */
    int limit;
    const char *role, *region, *channel; /* MATCHING */
} am__user_query;

/* The jobs and tombstones of forgetting (forget_jobs; the policy over
 * them is domain/forget.c).  A job (forget_jobs table): seq, level name
 * ("event", "session", "task", "user", "memory"), object id (NULL for a
 * user's and a scrub job), state ("held" in its grace period, "purge"
 * due, "scrub" the files owe a merge and a checkpoint), forget and purge
 * times.  A tombstone: (level, ref) at a time, purged_at when purged.
 * Kinds (am__fjob_op.kind; members a kind does not name are unused):
 *   LIST      uid's jobs with level (NULL: any) but not not_level,
 *             object_id and state (NULL: any), oldest first; latest: the
 *             newest one only.
 *   DEL       uid's job seq, or (seq 0) its jobs of level and state
 *             (level required); *n the rows deleted.  SQLite drops the
 *             uid's caches when level is user (a user restored).
 *   TOMB_GET  uid's newest tombstone of level and object_id (NULL: any);
 *             pseudonym: under uid's pseudonym (a purged user's) instead
 *             of uid; at most one row, forgotten_at = its time, purge_at =
 *             purged_at (0 when not purged).
 *   TOMB_DEL  uid's tombstones of (level, object_id) at `at`; *n deleted.
 *   NEXT      the next due job of any user (uid unused; purge_at <= at,
 *             scrub jobs last, then by seq) into *due; *n 1, or 0 when
 *             none is due.  Outside a transaction only: AM_MISUSE inside.
 *   ADD       a job of uid: level and state required, object_id, at (its
 *             forget time), purge_at; *n 1.  A scrub job on a store that
 *             owes no scrub (PostgreSQL) is not written (*n 0).
 *   SET       uid's jobs of level (required): purge_at moves to purge_at
 *             when that is earlier, never later; a held one then due by
 *             `at` becomes "purge"; *n the jobs changed.
 *   TOMB_PUT  uid's tombstone of (level, object_id: the ref) at `at`;
 *             level task: the task's audit rows (object_id = id, the
 *             caller's task id) name it by the ref from now on, a
 *             switch's detail dropped.
 * ADD and SET of a user's job: SQLite drops the uid's caches (the user
 * is hidden from now on).
 * Rows in ar; ar NULL: the first row only, into the caller's **rows,
 * its strings NULL (held tells the state).  PostgreSQL takes uid's lock
 * first (lock_users). */
#define AM__FJOB_LIST 1
#define AM__FJOB_DEL 2
#define AM__FJOB_TOMB_GET 3
#define AM__FJOB_TOMB_DEL 4
#define AM__FJOB_NEXT 5
#define AM__FJOB_ADD 6
#define AM__FJOB_SET 7
#define AM__FJOB_TOMB_PUT 8
/* A due job as forget_step takes it (NEXT). */
typedef struct am__fjob_due {
    int64_t seq;
    char uid[AM_ID_MAX + 1], level[16], object_id[AM_ID_MAX + 1], state[8];
    am_time forgotten_at;
} am__fjob_due;
typedef struct am__fjob_op {
    int kind;
    const char *uid;
    int64_t seq;
    const char *level, *not_level, *object_id, *state;
    int latest, pseudonym;
    am_time at;
    am__fjob_due *due; /* NEXT */
    am_time purge_at;  /* ADD, SET */
    const char *id;    /* TOMB_PUT of a task: the caller's task id */
} am__fjob_op;
typedef struct am__fjob_row {
    int64_t seq;
    const char *level, *object_id, *state;
    am_time forgotten_at, purge_at;
    int held; /* state is "held" */
} am__fjob_row;
/* An op's members checked for its kind: AM_OK or AM_MISUSE. */
static inline int am__fjob_check(const am__fjob_op *op)
{
    int k = op->kind;
    if (k == AM__FJOB_NEXT) return op->due ? AM_OK : AM_MISUSE;
    if (k < AM__FJOB_LIST || k > AM__FJOB_TOMB_PUT || !op->uid) return AM_MISUSE;
    if (k == AM__FJOB_DEL && !op->seq && !op->level) return AM_MISUSE;
    if (k >= AM__FJOB_TOMB_GET && !op->level) return AM_MISUSE;
    if (k == AM__FJOB_ADD && !op->state) return AM_MISUSE;
    return (k == AM__FJOB_TOMB_DEL || k == AM__FJOB_TOMB_PUT) && !op->object_id ? AM_MISUSE : AM_OK;
}

/* What forget_mark marks (sel) and reports (marked), and what
 * forget_delete deletes (del) and reports (gone): store.h's vtable. */
typedef struct am__forget_sel {
    int level; /* AM_FORGET_USER, or 0: the tasks the last forget touched */
} am__forget_sel;
typedef struct am__forget_marked {
    long events, versions, tasks; /* AM_FORGET_USER */
    const char **tasks_touched;   /* level 0: in ar, by id */
    size_t n_touched;
} am__forget_marked;
typedef struct am__forget_del {
    const char *lineage; /* a memory item: every version, live and held */
} am__forget_del;
typedef struct am__forget_gone {
    long versions;       /* live versions deleted */
    long events, tasks;  /* forget_grace: events and tasks deleted */
    long picked, pulled; /* forget_grace: events marked; held jobs pulled */
    int64_t job;         /* forget_grace: the held job added (0: none) */
} am__forget_gone;

/* A backend's operations, in sub-tables by concern (as sqlite3_vfs hands
 * out sqlite3_io_methods): tx, users, vectors, events, postings, tasks,
 * items, forget, log, workspace, cold, records; control covers the store
 * as a whole.  A call names its table: s->vt->events.event_get(...).
 * scripts/check-structure.sh counts every operation of every table. */
typedef struct am__store_vt {
    const char *name;
    void (*close)(am__store *s);
    const char *(*errmsg)(am__store *s);

    struct am__store_tx {
        /* Transactions.  begin(mode):
         *   AM__TX_WRITE: a write transaction; the write lock is taken at
         *     once (waiting up to the busy limit, AM_BUSY after it), so no
         *     read in it is ever upgraded.
         *   AM__TX_TRY: the same without waiting: AM_BUSY at once when
         *     another writer holds the lock (work that can be deferred: a
         *     recall's heat).
         *   AM__TX_READ: a read snapshot: every call until end(AM__TX_END_READ)
         *     sees one state of the store (a recall's searches agree with
         *     each other); ending it keeps the caches.  No write inside.
         *   AM__TX_SEARCH: the reads of one lexical search (index/lexical.c)
         *     in one snapshot, until end(AM__TX_END_SEARCH); these nest (in a
         *     read snapshot, in a write transaction or in another search) or
         *     else hold a read transaction of their own; each read is also
         *     one alone.
         *   AM__TX_LOCK: in a write transaction, before its first write: the
         *     write locks of the users it will write, uids[0..n) (any order,
         *     repeats), taken in the store's one order, so writers of several
         *     users each (a server's group) never wait for each other in a
         *     cycle.  AM_OK and nothing taken where one lock serializes every
         *     writer (SQLite) or outside a write transaction.
         * The other modes take no users (uids NULL, n 0).
         * end(how, rc): AM__TX_COMMIT or AM__TX_ROLLBACK the write
         * transaction, AM__TX_END_READ the read snapshot (rc unused: 0), or
         * AM__TX_END_SEARCH the search, returning rc, or the error ending the
         * group (AM_MISUSE when none was begun and rc is AM_OK).  Another
         * mode: AM_MISUSE.  Call them through am__store_begin, ... below. */
#define AM__TX_WRITE 0
#define AM__TX_TRY 1
#define AM__TX_READ 2
#define AM__TX_SEARCH 3
#define AM__TX_LOCK 4
#define AM__TX_COMMIT 0
#define AM__TX_ROLLBACK 1
#define AM__TX_END_READ 2
#define AM__TX_END_SEARCH 3
        int (*begin)(am__store *s, int mode, const char *const *uids, size_t n);
        int (*end)(am__store *s, int how, int rc);
    } tx;

    struct am__store_users {
        /* Users and identity.
         * user_put: user uid there, created at now.  ch NULL: made when
         * missing (nothing when it is there); else a new user the engine made
         * for the unlinked pair (ch, ext), which it records (an error when uid
         * is there).
         * user_stat: counts NULL: 1 when the user is there (not being
         * forgotten), 0 when not, < 0 an error (-AM_*); else how much the user
         * holds -- counts[0] events, [1] memory items, [2] tasks -- and AM_OK.
         * user_merge: the move of everything of user `from` into user `to`
         * (links included; `from` is gone after it).
         * link_put: the pair (ch, ext) linked to uid (nothing when it is
         * linked already); uid NULL: its link deleted, AM_NOTFOUND when none.
         * link_get: AM_OK with a user id copied into out[AM_ID_MAX+1], or
         * AM_NOTFOUND -- AM__LINK_USER: the user the pair is linked to;
         * AM__LINK_MADE: the user the engine made for the pair (user_put).
         * links_list: the user's links by channel, then external id. */
#define AM__LINK_USER 0
#define AM__LINK_MADE 1
        int (*user_put)(am__store *s, const char *uid, const char *ch, const char *ext,
                        am_time now);
        int (*user_stat)(am__store *s, const char *uid, long counts[3]);
        int (*user_merge)(am__store *s, const char *from, const char *to);
        int (*link_put)(am__store *s, const char *ch, const char *ext, const char *uid,
                        am_time now);
        int (*link_get)(am__store *s, const char *ch, const char *ext, int by, char *out);
        int (*links_list)(am__store *s, const char *uid, am__arena *ar, am__link_row **rows,
                          size_t *n);
        /* Users by id (like vec_missing, an exception to per-user scoping
         * that names users only), by q->kind:
         *   AM__USERS_AFTER: those whose id sorts after q->after ("": from
         *     the first), at most q->limit, users being forgotten left out
         *     (the maintenance pass, lifecycle/maintain.c, and the reports
         *     across users, lifecycle/report.c).
         *   AM__USERS_MATCHING: those whose role, region and channel are
         *     q->role, q->region and q->channel (NULL: any; the users a rule
         *     pack goes to, lifecycle/packs.c): role and region are the values
         *     of those fields in the metadata of the user's latest event that
         *     has them, a channel is one of the user's identity links. */
#define AM__USERS_AFTER 0
#define AM__USERS_MATCHING 1
        int (*users_list)(am__store *s, const am__user_query *q, am__arena *ar, const char ***uids,
                          size_t *n);
    } users;

    struct am__store_vectors {
        /* Vectors: one per event and embedder, stored int8 with a
         * scale.  vec_scan returns the events of the user with a vector of
         * that embedder, best cosine first (score = cosine), at most limit.
         * exact_max (am_rank_config.vector_exact_max): a user with more
         * vectors may be scanned approximately (a first pass over compact
         * codes, the best candidates rescored exactly); 0: the store's
         * default; < 0: always exact. */
        int (*vec_put)(am__store *s, const char *uid, int64_t rid, const char *embedder_id,
                       const float *v, int dim);
        int (*vec_scan)(am__store *s, const char *uid, const char *embedder_id, const float *q,
                        int dim, am_time to, int limit, int exact_max, am__arena *ar,
                        am__event_row **rows, size_t *n);
        /* Re-embedding (api/reembed.c): the events that `want` describes
         * (am__vec_want) and that have no vector vec_scan would use for it --
         * none, or one of another embedder id or dimension.
         * This is the maintenance exception to per-user scoping: uid NULL
         * means every user; each row then names its user, and the caller
         * writes its vector under that user (vec_put).
         * rows NULL: *n how many, and *max_rid the largest rid among them (0
         * when none): a caller walking the list stops there, so events added
         * while it runs are not counted twice (after_rid, upto_rid, limit, ar
         * unused).
         * Else: up to limit of them with after_rid < rid <= upto_rid, by rid;
         * rows hold rid, id, user_id, lang and content only (max_rid unused,
         * may be NULL). */
        int (*vec_missing)(am__store *s, const char *uid, const am__vec_want *want,
                           int64_t after_rid, int64_t upto_rid, int limit, am__arena *ar,
                           am__event_row **rows, size_t *n, int64_t *max_rid);
    } vectors;

    struct am__store_events {
        /* perception layer */
        int (*event_put)(am__store *s, am__event_row *ev); /* sets ev->rid */
        /* A part of event event_rid (caller's transaction): an extracted
         * entity (en), a PII-vault entry (p, its original sealed when the
         * store has a vault key), or text appended to its indexed context (ctx:
         * the turn that answered it; the event's own row is not changed); one
         * of the three, the others NULL. */
        int (*event_part_put)(am__store *s, const char *uid, int64_t event_rid,
                              const am__entity_row *en, const am__pii_row *p, const char *ctx);
        /* The user's extracted entities (event_part_put wrote them), read as
         * q->what says (am__entity_read); out's fields of that mode are set,
         * the others left as they were.
         *   AM__ENT_OF_EVENT: the entities of event q->event_rid, into
         *     out->rows (out->n of them).
         *   AM__ENT_COUNTS: the user's distinct norms of type q->type with how
         *     many rows hold each, most first (ties by norm), at most
         *     q->limit: out->norms[i], out->counts[i], out->n.
         *   AM__ENT_DATED: q->dated[i] = 1 when event q->rids[i] (of
         *     q->n_rids) names a date, a date range or a date-time, else 0
         *     (q->dated is the caller's array; ar and out unused, may be
         *     NULL).
         *   AM__ENT_PII: the user's events whose PII vault (event_part_put)
         *     may hold the value of type q->type ("phone", "email", ...) whose
         *     canonical form (am__pii_canonical) is q->canon, said before q->to
         *     (AM_TIME_NONE: any), newest first, at most q->limit:
         *     out->rids[i] and out->originals[i], the value event i held
         *     (out->n of them).  Every event that holds it is among them (a
         *     backend may return others: a hash that collides, a row it
         *     cannot index), so the caller compares each original's canonical
         *     form; it never leaves the read path.  The rows of those that
         *     match come from rows_get.
         * AM_MISUSE for another mode. */
        int (*entities)(am__store *s, const char *uid, const am__entity_read *q, am__arena *ar,
                        am__entity_out *out);
        /* One of the user's events, by key: AM_OK with *out filled, or
         * AM_NOTFOUND.
         *   AM__EVENT_BY_ID: the event of id key, the whole row.
         *   AM__EVENT_BY_TEXT: the newest event (occurred_at, rid) whose
         *     content holds the text key; out has its id only.
         *   AM__EVENT_BY_CLIENT: the event the caller named key when adding
         *     it (event_row.client_id); out has its id, its task_id ("" for
         *     none) and the fingerprint stored with it (client_hash). */
#define AM__EVENT_BY_ID 0
#define AM__EVENT_BY_TEXT 1
#define AM__EVENT_BY_CLIENT 2
        int (*event_get)(am__store *s, const char *uid, int by, const char *key, am__arena *ar,
                         am__event_row *out);
        /* The user's rows of rids[0..n): rows[i] and found[i] = 1 for each
         * that is there and the user's, found[i] = 0 for the others. */
        int (*rows_get)(am__store *s, const char *uid, const int64_t *rids, size_t n, am__arena *ar,
                        am__event_row *rows, unsigned char *found);
        /* A scan of the user's events (am__event_scan says which), at most
         * q->limit of them. */
        int (*events_scan)(am__store *s, const char *uid, const am__event_scan *q, am__arena *ar,
                           am__event_row **rows, size_t *n);
    } events;

    struct am__store_postings {
        /* Lexical search (index/lexical.c ranks what these hand over; its
         * reads grouped by begin(AM__TX_SEARCH)). */
        /* The user's number of events (0: none, or not counted). */
        int (*user_rows)(am__store *s, const char *uid, int64_t *n);
        /* df[i]: the user's rows holding terms[i]; n_rows non-NULL: also the
         * user's rows as the index counts them. */
        int (*term_docs)(am__store *s, const char *uid, const char *const *terms, size_t n_terms,
                         double *df, int64_t *n_rows);
        /* The user's rows holding any of terms[0..n_terms), said in [from,
         * to) (AM_TIME_NONE: unbounded), into *out (am__hits; terms indexed as
         * given; release with am__hits_free, also on error).  A row of
         * another user whose index terms cannot be told from the user's (a
         * token collision) may come too: rows_get leaves it out.  n_rows: the
         * user's number of events (user_rows; a store holding posting lists
         * in memory uses them when it is > 0, sized by it); ar: scratch.  df
         * non-NULL: df[i] = the rows handed over that hold terms[i] (without a
         * time bound, the term's document frequency). */
        int (*postings)(am__store *s, const char *uid, const char *const *terms, size_t n_terms,
                        am_time from, am_time to, int64_t n_rows, am__arena *ar, am__hits *out,
                        double *df);
    } postings;

    struct am__store_tasks {
        /* Tasks.  task_put: the task's row written (inserted or replaced).
         * task_log: the task's log of changes -- add non-NULL: that row
         * appended (the rest unused); else the rows of task_id (NULL: of every
         * task of the user) in the order they were added.
         * tasks_list: the user's tasks, the most recently updated first (ties
         * by id), at most limit (<= 0: all); open_only: only the open ones
         * (status active, paused or postponed).  task_id non-NULL: that task
         * alone (open_only and limit unused), AM_NOTFOUND when the user has
         * none of that id.  am__store_task_get, ... below name them. */
        int (*task_put)(am__store *s, const char *uid, const am__task_row *t);
        int (*task_log)(am__store *s, const char *uid, const am__task_change_row *add,
                        const char *task_id, am__arena *ar, am__task_change_row **rows, size_t *n);
        int (*tasks_list)(am__store *s, const char *uid, const char *task_id, int open_only,
                          int limit, am__arena *ar, am__task_row **rows, size_t *n);
    } tasks;

    struct am__store_items {
        /* semantic layer: versions are inserted and closed; their content,
         * status and validity are never edited (only provenance and heat) */
        int (*item_insert)(am__store *s, const char *uid, am__item_row *it);
        /* The user's versions that which (AM__ITEMS_*) names, at `at`;
         * AM__ITEMS_SOURCES: one version's provenance (am__store_item_sources
         * below names it). */
        int (*items_list)(am__store *s, const char *uid, int which, am_time at, am__arena *ar,
                          am__item_row **rows, size_t *n);
        /* The heat of lineage_id (a row item_insert made): add (a recall's
         * touch): hits + hits, last_access the later of it and at; else (an
         * import) set to hits and at (AM_TIME_NONE: never accessed). */
        int (*item_heat)(am__store *s, const char *uid, const char *lineage_id, int add, long hits,
                         am_time at);
        /* A version changed in place at `at`.  event_id NULL: version
         * version_id closed (superseded_at = at; AM_NOTFOUND when it is not
         * there or closed already; item_rid unused).  Else one more source of
         * version item_rid, whose content, status and validity do not change
         * (a repetition): its provenance is updated -- event_id joins its list
         * (the oldest of the latest ones leaves when it is full), source_count
         * + 1, reinforced_at = at; an event that is a source already changes
         * nothing (version_id unused).  am__store_item_close and
         * am__store_item_reinforce below name the two. */
        int (*item_update)(am__store *s, const char *uid, const char *version_id, int64_t item_rid,
                           const char *event_id, am_time at);
    } items;

    /* Store control, one entry for the operations on the store as a
     * whole (as sqlite3_io_methods' xFileControl): op is an AM__CTL_*
     * code, arg its argument (NULL or the struct named below).  AM_NOTFOUND
     * when this store has no such op (am__store_control: also a store
     * without control); the caller goes on without it.
     *   AM__CTL_OPTIMIZE (NULL): maintenance -- merge the full-text index
     *     into one segment (a term is then one b-tree probe, not one per
     *     segment), refresh planner statistics, checkpoint the log.
     *     Outside any transaction.
     *   AM__CTL_TOKENS_FILL (am__ctl_tokens_fill): the item versions
     *     stored without a token set (written before schema v7):
     *     fn(ctx, text, key, blob, &len) computes it into blob (*len bytes
     *     of room; set to the length) for each, and it is stored, in one
     *     transaction.  n: how many.
     *   AM__CTL_RETRY (am__ctl_retry; a store behind a connection): after
     *     a call failed, whether to run the whole call again -- its
     *     connection was lost and nothing of it was committed (or the
     *     outcome of its COMMIT is unknown and idempotent says a second
     *     run writes nothing twice: events with the caller's ids), and the
     *     connection is back, made again with a bounded backoff within
     *     busy_timeout_ms since *t0_ms (0 at the call's first failure:
     *     set).  again: 1 yes; 0 no, the failure and its message stand;
     *     -1 no, after waiting for the connection in vain (errmsg says
     *     so).  Returns AM_OK.
     *   AM__CTL_HEALTH (am__ctl_health; a store behind a connection):
     *     AM_OK when the store answers (ping: a round trip now,
     *     reconnecting when lost; else the connection's last known
     *     state), AM_IO (errmsg says why), AM_MISUSE (ping inside a
     *     transaction); and this handle's reconnects and retries so far.
     *   AM__CTL_KEY_HASH (am__ctl_key_hash): the store's keyed hashes,
     *     with its forget key.  parts non-NULL: HMAC-SHA256 over
     *     parts[0..n), each followed by a NUL (store/ids.c: the opaque
     *     ids).  parts NULL: this store's data, named (api/cache.c keys
     *     the shared cache by it): 32 bytes derived one way from the
     *     forget key, made once when the store was created -- a store
     *     created again at the same path or URL gets another.  AM_OK,
     *     AM_CORRUPT (no key), AM_BACKEND.
     *   AM__CTL_SCRUB (am__ctl_scrub, below): what a forget owes the
     *     files: the index merged, the log truncated. */
    int (*control)(am__store *s, int op, void *arg);

    struct am__store_forget {
        /* forgetting (store/sqlite/forget.c; the policy over these
         * primitives -- level dispatch, jobs, the NOTFOUND rule -- is
         * domain/forget.c).  forget_mark (reads only): sel->level
         * AM_FORGET_USER: what a user forget reports, into out (events, item
         * versions -- not lineages --, tasks; PostgreSQL takes uid's lock);
         * level 0: the tasks the last forget_grace or restore_forget of this
         * connection touched that remain, by id, in ar (their state to
         * rebuild; uid unused); other levels AM_MISUSE (forget_grace marks
         * their events itself). */
        int (*forget_mark)(am__store *s, const char *uid, const am__forget_sel *sel, am__arena *ar,
                           am__forget_marked *out);
        /* Delete everything keyed by d (caller's transaction); d->lineage:
         * every version of that memory item of uid with the completeness of
         * a forget -- the versions, their provenance and heat, the copies a
         * forget in its grace period holds of them, the item's memory events.
         * out->versions: the live versions that went (0: nothing of it was
         * there).  SQLite clears its item memo; PostgreSQL takes uid's lock. */
        int (*forget_delete)(am__store *s, const char *uid, const am__forget_del *d,
                             am__forget_gone *out);
        /* One bounded step of a due job (forget_jobs NEXT; not a scrub job:
         * AM__CTL_SCRUB) in the caller's write transaction; the loop over
         * them is domain/forget.c's am__forget_work.  A user's purge: a chunk
         * of its events with everything keyed by them, else a sweep of
         * another table, else of its held rows, else the end (links, records,
         * tombstones, jobs and the user row gone, the audit trail and outbox
         * re-keyed to the pseudonym, its tombstone, forget.purged).  An
         * event's, session's or task's held rows at the end of its grace
         * period: bounded (SQLite) or all (PostgreSQL), then its tombstone
         * dated.  SQLite: a held job becomes due ("purge") as a step of its
         * own, a finished one a scrub job; the uid's caches dropped. */
        int (*forget_step)(am__store *s, const am__fjob_due *job, am_time now);
        /* A forget of an event, a session or a task (level AM_FORGET_*;
         * others AM_MISUSE; am__forget_grace in domain/forget.c dispatches a
         * user's and writes the tombstone) in the caller's transaction: held
         * jobs holding its events purge no later than purge_at (out->pulled),
         * its events (out->picked) and every row keyed by them leave every
         * table and index, item versions left without a source go too
         * (out->versions), the outbox says what went; tasks the forgotten events belonged to lose the history rows
         * their state is derived from (pending, note, status, stage;
         * forget_mark level 0 lists them: the caller replays their remaining
         * events), a task left without events goes (out->tasks).  purge_at >
         * now: the rows are held (store/sqlite/held.c) under a job added
         * (out->job) until it purges them at purge_at; purge_at = now: gone
         * now. */
        int (*forget_grace)(am__store *s, const char *uid, int level, const char *id, am_time now,
                            am_time purge_at, am__forget_gone *out);
        /* Job job's held rows back, in the caller's transaction (the job
         * found restorable by domain/forget.c, forgotten at `at`): ids kept,
         * or new ones where taken since; the held rows dropped.  *events: how
         * many came back; forget_mark level 0 lists the tasks to replay (events of
         * them were written since at). */
        int (*restore_forget)(am__store *s, const char *uid, int64_t job, am_time at, long *events);
        /* The jobs and tombstones: op->kind AM__FJOB_* (above); rows in ar
         * (LIST, TOMB_GET), *n the rows read or deleted. */
        int (*forget_jobs)(am__store *s, const am__fjob_op *op, am__arena *ar, am__fjob_row **rows,
                           size_t *n);
    } forget;

    struct am__store_log {
        /* The log: the audit log (append-only) and the memory events'
         * outbox (store/sqlite/outbox.c).  log_put appends one row: a, an
         * audit row of user uid (its seq unused), or o, an outbox row, in the
         * caller's write transaction (its user in it; o->seq set: increasing,
         * never reused, in commit order; 0 where the commit numbers the rows:
         * PostgreSQL) -- one of the two, the other NULL.
         * log_page: the rows with seq > after, in seq order (oldest first), at
         * most limit, into *audit (uid's audit rows) or *outbox (uid's outbox
         * rows, NULL: every user's; seqs, may be NULL: seqs[0] the lowest seq
         * still kept, 0: none) -- one of the two, the other NULL; export
         * streams them a page at a time.  Neither (audit and outbox NULL): the
         * outbox seqs [seqs[0], seqs[1]] this connection's commits wrote since
         * the last such call (0, 0: none), then forgets them -- a rolled back
         * transaction's are never reported (uid, after, limit, ar, n unused).
         * Call them through am__store_audit, ... below.  outbox_trim:
         * outbox rows older than before (AM_TIME_NONE: no age bound) or beyond
         * the newest max_rows (0: no bound), at most limit of them (0: all),
         * in the caller's transaction or alone. */
        int (*log_put)(am__store *s, const char *uid, const am__audit_row *a, am__outbox_row *o);
        int (*log_page)(am__store *s, const char *uid, int64_t after, size_t limit, am__arena *ar,
                        am__audit_row **audit, am__outbox_row **outbox, size_t *n, int64_t *seqs);
        int (*outbox_trim)(am__store *s, am_time before, int64_t max_rows, int limit);
    } log;
    struct am__store_workspace {
        /* A task's workspace, by agent id; and one agent's entry written
         * (caller's transaction), by how:
         *   AM__WS_COUNT: fields NULL keep the stored value ("" when new),
         *     version + 1, updated_at = at; *version receives it.
         *   AM__WS_AS_GIVEN: the entry written as given, its version and
         *     updated_at included (an import, api/import.c: an export loaded
         *     back; at and version unused, version may be NULL).
         * am__store_workspace_put and _set below name the two. */
#define AM__WS_COUNT 0
#define AM__WS_AS_GIVEN 1
        int (*workspace_list)(am__store *s, const char *uid, const char *task_id, am__arena *ar,
                              am__workspace_row **rows, size_t *n);
        int (*workspace_put)(am__store *s, const char *uid, const char *task_id,
                             const am__workspace_row *w, int how, am_time at, long *version);
    } workspace;

    struct am__store_cold {
        /* Archived events (lifecycle/cold.c, store/cold.h, docs/internals/STORAGE.md
         * "Archived events"): the text of an event said long ago moves to the
         * row's cold column (compressed), its content keeps a summary; its
         * entities, provenance, vectors and index rows stay.
         * The candidates: events_scan AM__SCAN_COLD.
         * cold_put (caller's transaction), by op->kind:
         *   AM__COLD_ARCHIVE: event op->rid of uid archived -- its text packed
         *     into the cold column, op->summary its content (summary NULL: its
         *     text is short enough to stay, the event is only marked as never
         *     to archive); AM_NOTFOUND when the event is not there or was
         *     archived (or marked) already; restored unused (may be NULL).
         *   AM__COLD_RESTORE: the archived events of uid -- the one of id
         *     op->event_id, or those said in [op->from, op->to) when event_id
         *     is NULL -- hot again (the text back in content, the cold column
         *     empty: never archived again); *restored how many.
         *   AM__COLD_FILL (a read, in a transaction or alone): op->rows[i] (of
         *     op->n) of uid that are archived get their whole text back in
         *     content (in op->ar), *restored how many (may be NULL); the
         *     others are left as they are.
         * Call it through am__store_cold_archive / _restore / _fill below. */
#define AM__COLD_MIN_AGE_MS ((am_time)86400000) /* an archived event is older */
#define AM__COLD_ARCHIVE 0
#define AM__COLD_RESTORE 1
#define AM__COLD_FILL 2
        int (*cold_put)(am__store *s, const char *uid, const am__cold_op *op, long *restored);
    } cold;

    struct am__store_records {
        /* Generic records (domain/records.h names their namespaces and
         * encodings): a string value under (user id, namespace, key), with an
         * expiry or none; uid "" holds the store's own values.  rec_put
         * (caller's transaction or alone): the row written or replaced.
         * rec_list: the live rows (expires_at AM_TIME_NONE or after now; now
         * AM_TIME_NONE: every row) of uid (NULL: every user's) in ns whose key
         * is key (prefix 0) or starts with it (prefix 1), by key then user id,
         * each naming its user.  rec_del (caller's transaction or alone): uid's
         * rows of ns whose key is key or starts with it, only those expired at
         * expired_at (expires_at <= it) unless it is AM_TIME_NONE; *n how many
         * (n may be NULL). */
        int (*rec_put)(am__store *s, const char *uid, const char *ns, const char *key,
                       const char *value, am_time expires_at);
        int (*rec_list)(am__store *s, const char *uid, const char *ns, const char *key, int prefix,
                        am_time now, am__arena *ar, am__rec_row **rows, size_t *n);
        int (*rec_del)(am__store *s, const char *uid, const char *ns, const char *key, int prefix,
                       am_time expired_at, long *n);
    } records;
} am__store_vt;

struct am__store {
    const am__store_vt *vt;
    /* When set, am__forget_work calls it after each step it commits (the
     * caller sets it around its call: api/forget.c, for am_forget_ex's
     * progress); NULL otherwise. */
    void (*on_step)(void *ctx);
    void *step_ctx;
};

/* The transactions of store.h's begin and end, by name. */
static inline int am__store_begin(am__store *s)
{
    return s->vt->tx.begin(s, AM__TX_WRITE, NULL, 0);
}
static inline int am__store_try_begin(am__store *s)
{
    return s->vt->tx.begin(s, AM__TX_TRY, NULL, 0);
}
static inline int am__store_begin_read(am__store *s)
{
    return s->vt->tx.begin(s, AM__TX_READ, NULL, 0);
}
static inline int am__store_search_begin(am__store *s)
{
    return s->vt->tx.begin(s, AM__TX_SEARCH, NULL, 0);
}
/* The users' write locks (begin AM__TX_LOCK). */
static inline int am__store_lock_users(am__store *s, const char *const *uids, size_t n)
{
    return s->vt->tx.begin(s, AM__TX_LOCK, uids, n);
}
static inline int am__store_commit(am__store *s) { return s->vt->tx.end(s, AM__TX_COMMIT, AM_OK); }
static inline int am__store_rollback(am__store *s)
{
    return s->vt->tx.end(s, AM__TX_ROLLBACK, AM_OK);
}
static inline int am__store_end_read(am__store *s)
{
    return s->vt->tx.end(s, AM__TX_END_READ, AM_OK);
}
static inline int am__store_search_end(am__store *s, int rc)
{
    return s->vt->tx.end(s, AM__TX_END_SEARCH, rc);
}

/* The users of store.h's user_put and user_stat, by name. */
static inline int am__store_user_ensure(am__store *s, const char *uid, am_time now)
{
    return s->vt->users.user_put(s, uid, NULL, NULL, now);
}
static inline int am__store_user_exists(am__store *s, const char *uid)
{
    return s->vt->users.user_stat(s, uid, NULL);
}

/* The users of users_list, by name. */
static inline int am__store_users_after(am__store *s, const char *after, int limit, am__arena *ar,
                                        const char ***uids, size_t *n)
{
    am__user_query q = {AM__USERS_AFTER, after, limit, NULL, NULL, NULL};
    return s->vt->users.users_list(s, &q, ar, uids, n);
}
static inline int am__store_pack_users(am__store *s, const char *role, const char *region,
                                       const char *channel, am__arena *ar, const char ***uids,
                                       size_t *n)
{
    am__user_query q = {AM__USERS_MATCHING, NULL, 0, role, region, channel};
    return s->vt->users.users_list(s, &q, ar, uids, n);
}

/* A version's provenance (items_list AM__ITEMS_SOURCES): its source
 * event ids, oldest first. */
static inline int am__store_item_sources(am__store *s, const char *uid, int64_t item_rid,
                                         am__arena *ar, const char ***ids, size_t *n)
{
    am__item_row *rows = NULL;
    size_t k = 0;
    int rc = s->vt->items.items_list(s, uid, AM__ITEMS_SOURCES, (am_time)item_rid, ar, &rows, &k);
    *ids = rc == AM_OK && k ? rows[0].sources : NULL;
    *n = rc == AM_OK && k ? rows[0].n_sources : 0;
    return rc;
}

/* A workspace entry written (workspace_put), by name. */
static inline int am__store_workspace_put(am__store *s, const char *uid, const char *task_id,
                                          const am__workspace_row *w, am_time at, long *version)
{
    return s->vt->workspace.workspace_put(s, uid, task_id, w, AM__WS_COUNT, at, version);
}
static inline int am__store_workspace_set(am__store *s, const char *uid, const char *task_id,
                                          const am__workspace_row *w)
{
    return s->vt->workspace.workspace_put(s, uid, task_id, w, AM__WS_AS_GIVEN, AM_TIME_NONE, NULL);
}

/* A version's changes in place (item_update), by name. */
static inline int am__store_item_close(am__store *s, const char *uid, const char *version_id,
                                       am_time superseded_at)
{
    return s->vt->items.item_update(s, uid, version_id, 0, NULL, superseded_at);
}
static inline int am__store_item_reinforce(am__store *s, const char *uid, int64_t item_rid,
                                           const char *event_id, am_time at)
{
    return s->vt->items.item_update(s, uid, NULL, item_rid, event_id, at);
}

/* The log (log_put, log_page), by name. */
static inline int am__store_audit(am__store *s, const char *uid, am_time at, const char *op,
                                  const char *object_type, const char *object_id,
                                  const char *detail)
{
    am__audit_row a = {0, at, op, object_type, object_id, detail};
    return s->vt->log.log_put(s, uid, &a, NULL);
}
static inline int am__store_outbox_put(am__store *s, am__outbox_row *r)
{
    return s->vt->log.log_put(s, NULL, NULL, r);
}
static inline int am__store_audit_page(am__store *s, const char *uid, int64_t after_seq, int limit,
                                       am__arena *ar, am__audit_row **rows, size_t *n)
{
    return s->vt->log.log_page(s, uid, after_seq, (size_t)limit, ar, rows, NULL, n, NULL);
}
static inline int am__store_outbox_since(am__store *s, const char *uid, int64_t after, size_t limit,
                                         am__arena *ar, am__outbox_row **rows, size_t *n,
                                         int64_t *oldest)
{
    return s->vt->log.log_page(s, uid, after, limit, ar, NULL, rows, n, oldest);
}
/* The outbox seqs [*lo, *hi] this connection's commits wrote since the
 * last call (0, 0: none); log_page with neither row. */
static inline void am__store_outbox_committed(am__store *s, int64_t *lo, int64_t *hi)
{
    int64_t seqs[2] = {0, 0};
    if (s->vt->log.log_page(s, NULL, 0, 0, NULL, NULL, NULL, NULL, seqs) != AM_OK)
        seqs[0] = seqs[1] = 0;
    *lo = seqs[0];
    *hi = seqs[1];
}

/* The archived events' moves (cold_put), by name. */
static inline int am__store_cold_archive(am__store *s, const char *uid, int64_t rid,
                                         const char *summary)
{
    am__cold_op op = {.kind = AM__COLD_ARCHIVE,
                      .rid = rid,
                      .summary = summary,
                      .from = AM_TIME_NONE,
                      .to = AM_TIME_NONE};
    return s->vt->cold.cold_put(s, uid, &op, NULL);
}
static inline int am__store_cold_restore(am__store *s, const char *uid, const char *event_id,
                                         am_time from, am_time to, long *restored)
{
    am__cold_op op = {.kind = AM__COLD_RESTORE, .event_id = event_id, .from = from, .to = to};
    return s->vt->cold.cold_put(s, uid, &op, restored);
}
/* rows[i] that are archived get their whole text back (in ar); *filled
 * how many (may be NULL). */
static inline int am__store_cold_fill(am__store *s, const char *uid, am__event_row *rows, size_t n,
                                      am__arena *ar, size_t *filled)
{
    am__cold_op op = {.kind = AM__COLD_FILL,
                      .from = AM_TIME_NONE,
                      .to = AM_TIME_NONE,
                      .rows = rows,
                      .n = n,
                      .ar = ar};
    long k = 0;
    int rc = s->vt->cold.cold_put(s, uid, &op, &k);
    if (filled) *filled = (size_t)k;
    return rc;
}

/* A task and its log (tasks_list, task_log), by name.  task_get:
 * AM_NOTFOUND when the user has no task of that id. */
static inline int am__store_task_get(am__store *s, const char *uid, const char *task_id,
                                     am__arena *ar, am__task_row *out)
{
    am__task_row *rows;
    size_t n;
    int rc = s->vt->tasks.tasks_list(s, uid, task_id, 0, 1, ar, &rows, &n);
    if (rc == AM_OK) *out = rows[0];
    return rc;
}
static inline int am__store_task_change_add(am__store *s, const char *uid,
                                            const am__task_change_row *c)
{
    return s->vt->tasks.task_log(s, uid, c, NULL, NULL, NULL, NULL);
}
static inline int am__store_task_history(am__store *s, const char *uid, const char *task_id,
                                         am__arena *ar, am__task_change_row **rows, size_t *n)
{
    return s->vt->tasks.task_log(s, uid, NULL, task_id, ar, rows, n);
}

/* An event's parts (event_part_put), by name. */
static inline int am__store_entity_put(am__store *s, const char *uid, int64_t event_rid,
                                       const am__entity_row *en)
{
    return s->vt->events.event_part_put(s, uid, event_rid, en, NULL, NULL);
}
static inline int am__store_pii_put(am__store *s, const char *uid, int64_t event_rid,
                                    const am__pii_row *p)
{
    return s->vt->events.event_part_put(s, uid, event_rid, NULL, p, NULL);
}
static inline int am__store_event_ctx_append(am__store *s, const char *uid, int64_t event_rid,
                                             const char *text)
{
    return s->vt->events.event_part_put(s, uid, event_rid, NULL, NULL, text);
}

/* The ops of store.h control and their arguments. */
#define AM__CTL_OPTIMIZE 1
#define AM__CTL_TOKENS_FILL 2
#define AM__CTL_RETRY 3
#define AM__CTL_HEALTH 4
#define AM__CTL_KEY_HASH 5
#define AM__CTL_SCRUB 6
typedef struct am__ctl_tokens_fill {
    int (*fn)(void *ctx, const char *text, const char *key, unsigned char *blob, size_t *len);
    void *ctx;
    size_t n; /* out */
} am__ctl_tokens_fill;
typedef struct am__ctl_retry {
    int idempotent;
    int64_t *t0_ms;
    int again; /* out */
} am__ctl_retry;
typedef struct am__ctl_health {
    int ping;
    long reconnects, retries; /* out */
} am__ctl_health;
typedef struct am__ctl_key_hash {
    const char *const *parts;
    size_t n;
    unsigned char *out; /* 32 bytes */
} am__ctl_key_hash;

/* AM__CTL_SCRUB: outside a transaction (AM_MISUSE inside), the scrub
 * job seq owes: one merge step of the index in a transaction of its own
 * (*stepped 1), or, when none is left, the log checkpointed and
 * truncated in `tries` tries (0: the store's number; not possible now:
 * *later 1) and the scrub jobs up to seq deleted.  merges and budget
 * (-1 at first) carry across one am__forget_work: past the budget *later
 * is 1.  AM_NOTFOUND on a store that owes no scrub (PostgreSQL). */
typedef struct am__ctl_scrub {
    int64_t seq;
    int tries;
    long merges, budget;
    int stepped, later; /* out */
} am__ctl_scrub;

/* The ops of control, by name. */
static inline int am__store_control(am__store *s, int op, void *arg)
{
    return s->vt->control ? s->vt->control(s, op, arg) : AM_NOTFOUND;
}
static inline int am__store_optimize(am__store *s)
{
    return am__store_control(s, AM__CTL_OPTIMIZE, NULL);
}
/* AM_NOTFOUND: a store that keeps every version's token set. */
static inline int am__store_item_tokens_fill(am__store *s,
                                             int (*fn)(void *ctx, const char *text, const char *key,
                                                       unsigned char *blob, size_t *len),
                                             void *ctx, size_t *n)
{
    am__ctl_tokens_fill f = {fn, ctx, 0};
    int rc = am__store_control(s, AM__CTL_TOKENS_FILL, &f);
    *n = f.n;
    return rc;
}
/* again (1, 0, -1; 0 for a store without a connection). */
static inline int am__store_retry(am__store *s, int idempotent, int64_t *t0_ms)
{
    am__ctl_retry r = {idempotent, t0_ms, 0};
    return am__store_control(s, AM__CTL_RETRY, &r) == AM_OK ? r.again : 0;
}
/* AM_NOTFOUND: a store without a connection (reconnects, retries 0). */
static inline int am__store_health(am__store *s, int ping, long *reconnects, long *retries)
{
    am__ctl_health h = {ping, 0, 0};
    int rc = am__store_control(s, AM__CTL_HEALTH, &h);
    *reconnects = h.reconnects;
    *retries = h.retries;
    return rc;
}
static inline int am__store_key_hash(am__store *s, const char *const *parts, size_t n,
                                     unsigned char out[32])
{
    am__ctl_key_hash k = {parts, n, out};
    return am__store_control(s, AM__CTL_KEY_HASH, &k);
}

/* The reads of entities, by name. */
static inline int am__store_entities_list(am__store *s, const char *uid, int64_t event_rid,
                                          am__arena *ar, am__entity_row **rows, size_t *n)
{
    am__entity_read q = {.what = AM__ENT_OF_EVENT, .event_rid = event_rid};
    am__entity_out o = {0};
    int rc = s->vt->events.entities(s, uid, &q, ar, &o);
    *rows = o.rows;
    *n = o.n;
    return rc;
}
static inline int am__store_entity_counts(am__store *s, const char *uid, const char *type,
                                          int limit, am__arena *ar, const char ***norms,
                                          long **counts, size_t *n)
{
    am__entity_read q = {.what = AM__ENT_COUNTS, .type = type, .limit = limit};
    am__entity_out o = {0};
    int rc = s->vt->events.entities(s, uid, &q, ar, &o);
    *norms = o.norms;
    *counts = o.counts;
    *n = o.n;
    return rc;
}
static inline int am__store_events_dated(am__store *s, const char *uid, const int64_t *rids,
                                         size_t n, unsigned char *dated)
{
    am__entity_read q = {.what = AM__ENT_DATED, .rids = rids, .n_rids = n, .dated = dated};
    return s->vt->events.entities(s, uid, &q, NULL, NULL);
}
static inline int am__store_pii_events(am__store *s, const char *uid, const char *type,
                                       const char *canon, am_time to, int limit, am__arena *ar,
                                       int64_t **rids, const char ***originals, size_t *n)
{
    am__entity_read q = {
        .what = AM__ENT_PII, .type = type, .limit = limit, .canon = canon, .to = to};
    am__entity_out o = {0};
    int rc = s->vt->events.entities(s, uid, &q, ar, &o);
    *rids = o.rids;
    *originals = o.originals;
    *n = o.n;
    return rc;
}

/* The scans of events_scan that most callers make, by name. */
static inline int am__store_events_recent(am__store *s, const char *uid, const char *session,
                                          const char *task, am_time before, int limit,
                                          am__arena *ar, am__event_row **rows, size_t *n)
{
    am__event_scan q = {AM__SCAN_RECENT, session, task, before, 0, AM_TIME_NONE, limit};
    return s->vt->events.events_scan(s, uid, &q, ar, rows, n);
}
static inline int am__store_events_page(am__store *s, const char *uid, am_time after_at,
                                        int64_t after_rid, int limit, am__arena *ar,
                                        am__event_row **rows, size_t *n)
{
    am__event_scan q = {AM__SCAN_PAGE, NULL, NULL, after_at, after_rid, AM_TIME_NONE, limit};
    return s->vt->events.events_scan(s, uid, &q, ar, rows, n);
}
static inline int am__store_events_before(am__store *s, const char *uid, const char *session,
                                          am_time before_at, int64_t before_rid, am_time from,
                                          int limit, am__arena *ar, am__event_row **rows, size_t *n)
{
    am__event_scan q = {AM__SCAN_BEFORE, session, NULL, before_at, before_rid, from, limit};
    return s->vt->events.events_scan(s, uid, &q, ar, rows, n);
}

/* Opaque ids (store/ids.c): a letter and 16 hex digits of the store's
 * keyed hash.  key_id: a memory item's logical key in its scope ('k'),
 * what memory events carry for the key; object_ref: a task ('t'), session
 * ('s') or event ('e') id of user uid, what events carry for a task and
 * what a forget keeps in its tombstone and audit row.  is_ref: 1 when v
 * has that form. */
#define AM__REF_LEN 17
int am__store_key_id(am__store *s, const char *uid, const char *scope, const char *key,
                     char out[AM__REF_LEN + 1]);
int am__store_object_ref(am__store *s, const char *uid, const char *level, const char *id,
                         char out[AM__REF_LEN + 1]);
int am__store_is_ref(const char *v);
/* HMAC-SHA256(key, parts each with its NUL): AM_OK or AM_BACKEND. */
int am__store_hmac_parts(const unsigned char *key, size_t kn, const char *const *parts, size_t n,
                         unsigned char out[32]);

/* Open a store from a path or URL ("sqlite:PATH", ":memory:", PATH,
 * "postgres://..." / "postgresql://...": store/open.c).
 * On failure *out is NULL and errbuf (errlen bytes) says why. */
typedef struct am__store_opts {
    const am__allocator *alloc;
    int busy_timeout_ms;
    int must_exist;
    size_t vc_full_max; /* sqlite: users with more vectors are cached as
                           sign bits (0: AM__VC_FULL_MAX; tests lower it) */
    int no_lists;       /* sqlite: hold no posting lists, scan every term,
                           and no latest items between statements
                           (item_memo.c; tests compare the two) */
    const unsigned char *vault_key; /* 32 bytes: PII-vault originals sealed
                                       with AES-256-GCM (sqlite/vault.c); NULL:
                                       stored as given */
    int64_t events_max_rows;   /* outbox retention (am_config; 0: none) */
    am_time events_max_age_ms;
} am__store_opts;
/* SQLite's memory statistics off for the whole process, once, if SQLite
 * was not started yet (sqlite/sqlite_store.c): am_open with
 * AM_PROCESS_SQLITE_MEMSTATUS, before the store is opened. */
void am__store_sqlite_memstatus_off(void);
int am__store_open(const char *url, const am__store_opts *o, am__store **out,
                   char *errbuf, size_t errlen);

/* The vault key (am_config.vault_key, am__store_opts.vault_key): 64 hex
 * digits -> 32 bytes; AM_OK or AM_INVALID.  Wipe: zero a copy of it in a
 * way the compiler keeps. */
#define AM__VAULT_KEY_BYTES 32
int am__vault_key_parse(const char *hex, unsigned char key[AM__VAULT_KEY_BYTES]);
void am__vault_key_wipe(void *key, size_t n);

int am__store_sqlite_open(const char *path, const am__store_opts *o,
                          am__store **out, char *errbuf, size_t errlen);
/* The schema version of the SQLite file at path, read through a read-only
 * connection (nothing created or written): am_store_schema_peek's codes. */
int am__store_sqlite_peek(const char *path, int *version);
/* postgres://... or postgresql://... (libpq's connection URI; store/postgres). */
int am__store_postgres_open(const char *url, const am__store_opts *o, am__store **out,
                            char *errbuf, size_t errlen);

/* Context of an event (the turns around it that the index stores beside
 * it): AM__CONTEXT_TURNS before and AM__CONTEXT_AFTER after, in the same session, at most
 * AM__CONTEXT_GAP_MS apart -- turns of one exchange, not a day's notes. */
#define AM__CONTEXT_TURNS 2 /* turns before */
#define AM__CONTEXT_AFTER 1 /* turns after (each costs an index update) */
#define AM__CONTEXT_GAP_MS 60000
#define AM__CONTEXT_GAP_SQL "60000"

/* Weight of a synonym or near-word added to a query, relative to
 * the words of the question. */
#define AM__EXPANSION_WEIGHT 0.5
/* Weight of a narrower word added for a broad one ("hobbies" ->
 * "swimming"): many are added, any one of them is only a guess. */
#define AM__HYPONYM_WEIGHT 0.4

/* The schema version this library writes and reads: the number of
 * migrations (store/sqlite/schema.c asserts it). */
#define AM__SCHEMA_VERSION 30

#endif
