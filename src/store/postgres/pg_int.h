/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pg_int.h -- the PostgreSQL store's internals (store/postgres): the
 * connection, the parameter lists of its statements and the readers of
 * their results, shared by the backend's files.
 *
 * Every statement is sent prepared (pg_pipe.c): values travel as parameters
 * (text, or binary for bytea), never spliced into SQL, and results come
 * back as text (bytea as hex, decoded here).  An error sets s->err (the
 * operation and PostgreSQL's message) and maps to an AM_* code: a lock
 * that could not be had in time, a serialization failure or a deadlock
 * is AM_BUSY, a lost connection AM_IO, anything else AM_BACKEND.
 */
#ifndef AM_PG_INT_H
#define AM_PG_INT_H

#include <libpq-fe.h>
#include <stdint.h>
#include <string.h>

#include "store/store.h"
#include "text/analyze.h"

#define PG_TXN_NONE 0
#define PG_TXN_WRITE 1
#define PG_TXN_READ 2

/* Tables partitioned by hash of user_id are split in this many
 * partitions (docs/SCALING.md); index_totals has as many slots. */
#define PG_PARTS 16

/* Statements queued in a write transaction's pipeline before their
 * results are read (pg_pipe.c). */
#define PG_PIPE_MAX 64
/* Users' locks a write transaction remembers having (more are asked for
 * again, which is harmless): a server's group of writes is up to 32. */
#define PG_LOCKED_MAX 64
/* What a lock that could not be had is called in its message. */
#define PG_LOCK_WHAT "write lock"

typedef struct pg_store {
    am__store base;
    const am__allocator *a;
    PGconn *conn;
    int txn;                     /* PG_TXN_*: what this connection holds */
    int search_depth, search_own; /* searches begun (nesting); own snapshot */
    int busy_ms;
    int rc;                      /* the last failed statement's AM_* code */
    char err[600];
    am__text *ptext;             /* the index tokenizer (the SQLite store's) */
    int64_t ob_lo, ob_hi;        /* outbox seqs of the open transaction */
    int64_t ob_done_lo, ob_done_hi;
    int64_t ob_max_rows;
    am_time ob_max_age_ms;
    unsigned ob_puts;            /* outbox rows this connection wrote (trim pacing) */
    char forget_key[65];         /* meta('forget_key'), hex */
    /* The connection's life (pg_store.c): generation counts the
     * connections made (1: the first; +1 at every reconnect), so anything
     * kept per server session (prepared statements, temp tables) knows to
     * make itself again when it differs from the generation it was made
     * in.  lost: the last failure's connection state (PG_LOST_*); xid: the
     * open write transaction's id, asked after a COMMIT whose answer was
     * lost; the counters are am_store_check's. */
    unsigned generation;
    int lost;
    char xid[24];
    long reconnects, retries;
    int has_vault_key;           /* PII originals sealed (pg_vault.c) */
    unsigned char vault_key[32], index_key[32], pii_key[32];
    /* prepared statements of this connection's backend (pg_pipe.c) */
    struct pg_prep *prep;
    size_t n_prep;
    int prep_pid;
    unsigned prep_gen; /* the generation it was filled in */
    /* a write transaction's pipeline (pg_pipe.c): queued statements whose
     * results are unread, the first failure among them */
    int pipe_on, pipe_rc;
    size_t n_pend;
    struct { const char *what; long prep; int note; } pend[PG_PIPE_MAX];
    /* the write transaction's advisory locks (pg_store.c) */
    int64_t locked[PG_LOCKED_MAX];
    size_t n_locked;
    int lock_all, lock_outbox, lock_wait;
    /* What a write transaction leaves to its commit (pg_store.c,
     * commit_deferred): the index totals' changes per slot and the
     * memory events, so the rows and the lock every writer shares are
     * held for the commit's round trip only, taken in one order. */
    int64_t tot[PG_PARTS][3];
    unsigned tot_dirty;          /* a bit per slot with a change */
    am__outbox_row *obq;         /* the memory events queued, in ob_ar */
    size_t obq_n, obq_cap;
    am__arena ob_ar;
} pg_store;

/* pg_store.lost: the connection is fine or the failure was another;
 * it was lost and the transaction (or statement) was not committed, so
 * running it again writes nothing twice; it was lost during COMMIT and
 * whether the commit was done could not be learnt. */
#define PG_LOST_NONE 0
#define PG_LOST_CLEAN 1
#define PG_LOST_UNKNOWN 2

#define PG(b) ((pg_store *)(b))

#define AM__PG_STR(x) #x
#define AM__PG_XSTR(x) AM__PG_STR(x)

#define PG_ARGS_MAX 24
typedef struct pg_args {
    int n;
    const char *v[PG_ARGS_MAX];
    int len[PG_ARGS_MAX], fmt[PG_ARGS_MAX];
    char num[PG_ARGS_MAX][32];
} pg_args;

void am__pg_arg_text(pg_args *a, const char *v);   /* NULL: SQL NULL */
void am__pg_arg_int(pg_args *a, int64_t v);
void am__pg_arg_time(pg_args *a, am_time t);       /* AM_TIME_NONE: NULL */
void am__pg_arg_real(pg_args *a, double v);
void am__pg_arg_bytes(pg_args *a, const void *p, size_t n); /* NULL: NULL */

/* Run sql; the result (PGRES_TUPLES_OK or COMMAND_OK) or NULL with
 * s->err and s->rc set. */
PGresult *am__pg_run(pg_store *s, const char *what, const char *sql, const pg_args *a);
/* Run and discard the result: AM_OK or the error's code; *changed (may be
 * NULL) the rows it touched. */
int am__pg_exec(pg_store *s, const char *what, const char *sql, const pg_args *a, long *changed);
/* The statement path (pg_pipe.c).  call: sql sent prepared (named, once
 * per connection) and its result, or NULL (in a pipeline: s->pipe_rc and
 * s->err say why); defer: queued when the connection is in a write
 * transaction's pipeline, else run (am__pg_exec); enter / leave: the
 * write transaction's pipeline (leave: the first failure of what was
 * queued, AM_OK); prep_free: the statement cache. */
PGresult *am__pg_call(pg_store *s, const char *what, const char *sql, const pg_args *a);
int am__pg_defer(pg_store *s, const char *what, const char *sql, const pg_args *a);
/* defer, the result's rows (seq) noted as the transaction's outbox seqs
 * (am__pg_outbox_note) when it is read */
int am__pg_defer_outbox(pg_store *s, const char *what, const char *sql, const pg_args *a);
int am__pg_pipe_enter(pg_store *s);
int am__pg_pipe_leave(pg_store *s);
void am__pg_prep_free(pg_store *s);
/* s->err from a failed result r (NULL: the connection's message) of the
 * operation what; the AM_* code, also in s->rc (a lost connection: AM_IO,
 * s->lost = PG_LOST_CLEAN) */
int am__pg_result_error(pg_store *s, const char *what, const PGresult *r);
/* The write transaction's locks (pg_store.c; nothing outside a write
 * transaction): user uid's (NULL or "": none), a channel identity's,
 * every user's (an operation over all of them), the outbox order's (held
 * from a memory event's seq to the commit). */
int am__pg_lock_user(pg_store *s, const char *uid);
int am__pg_lock_link(pg_store *s, const char *ch, const char *ext);
int am__pg_lock_all(pg_store *s);
int am__pg_lock_outbox(pg_store *s);
/* The locks of users uids (any order, repeats), taken now in the one order
 * every writer takes them in (their keys ascending). */
int am__pg_lock_users(am__store *b, const char *const *uids, size_t n);
/* Several statements without parameters (schema, transactions). */
int am__pg_simple(pg_store *s, const char *what, const char *sql);
int am__pg_fail(pg_store *s, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The operation this backend does not implement yet: AM_BACKEND naming it. */
int am__pg_unsupported(pg_store *s, const char *op);

/* Result readers (row i, column c). */
static inline const char *pg_val(const PGresult *r, int i, int c)
{
    return PQgetisnull(r, i, c) ? NULL : PQgetvalue(r, i, c);
}
char *am__pg_str(am__arena *ar, const PGresult *r, int i, int c); /* NULL for NULL */
int64_t am__pg_i64(const PGresult *r, int i, int c);             /* 0 for NULL */
am_time am__pg_time(const PGresult *r, int i, int c);            /* NONE for NULL */
double am__pg_real(const PGresult *r, int i, int c);
/* A bytea (hex text) into ar: *p NULL, *n 0 for NULL; AM_NOMEM. */
int am__pg_bytes(am__arena *ar, const PGresult *r, int i, int c, const unsigned char **p,
                 size_t *n);
/* The rows of r: an array of PQntuples + 1 zeroed elements of ar, or NULL
 * (r cleared: out of memory); done: *n = the rows, r cleared, AM_OK or
 * AM_NOMEM when ar ran out. */
void *am__pg_rows(am__arena *ar, PGresult *r, size_t elem);
int am__pg_rows_done(am__arena *ar, PGresult *r, size_t *n);
/* A grown array of ar (the SQLite store's push, for this backend). */
void *am__pg_push(am__arena *ar, void **arr, size_t *n, size_t *cap, size_t elem);
/* A PostgreSQL array literal of texts / of int64s into b. */
void am__pg_text_array(am__buf *b, const char *const *v, size_t n);
void am__pg_int_array(am__buf *b, const int64_t *v, size_t n);

/* schema (pg_schema.c): migrate under an advisory lock; the version */
int am__pg_migrate(pg_store *s, int must_exist);
#define AM__PG_SCHEMA_VERSION 8

/* pg_forget.c: a forgotten task's audit rows name it by ref (its keyed
 * hash), a switch's task name dropped (also the v3 conversion's) */
int am__pg_forget_task_audit(pg_store *s, const char *uid, const char *id, const char *ref);

/* generic records (pg_records.c) */
int am__pg_rec_put(am__store *b, const char *uid, const char *ns, const char *key,
                   const char *value, am_time expires_at);
int am__pg_rec_list(am__store *b, const char *uid, const char *ns, const char *key, int prefix,
                    am_time now, am__arena *ar, am__rec_row **rows, size_t *n);
int am__pg_rec_del(am__store *b, const char *uid, const char *ns, const char *key, int prefix,
                   am_time expired_at, long *n);
/* users, tasks, items, audit, outbox, workspace (pg_rows.c) */
int am__pg_user_put(am__store *b, const char *uid, const char *ch, const char *ext, am_time now);
int am__pg_user_stat(am__store *b, const char *uid, long counts[3]);
int am__pg_user_exists(am__store *b, const char *uid);
int am__pg_users_list(am__store *b, const am__user_query *q, am__arena *ar, const char ***uids,
                      size_t *n);
int am__pg_users_after(am__store *b, const char *after, int limit, am__arena *ar,
                       const char ***uids, size_t *n);
int am__pg_link_put(am__store *b, const char *ch, const char *ext, const char *uid, am_time now);
int am__pg_link_get(am__store *b, const char *ch, const char *ext, int by, char *out);
int am__pg_links_list(am__store *b, const char *uid, am__arena *ar, am__link_row **rows,
                      size_t *n);
int am__pg_user_history(am__store *b, const char *uid, long *events, long *items, long *tasks);
int am__pg_task_put(am__store *b, const char *uid, const am__task_row *t);
int am__pg_task_log(am__store *b, const char *uid, const am__task_change_row *add,
                    const char *task_id, am__arena *ar, am__task_change_row **rows, size_t *n);
int am__pg_tasks_list(am__store *b, const char *uid, const char *task_id, int open_only, int limit,
                      am__arena *ar, am__task_row **rows, size_t *n);
int am__pg_item_insert(am__store *b, const char *uid, am__item_row *it);
int am__pg_items_list(am__store *b, const char *uid, int which, am_time at, am__arena *ar,
                      am__item_row **rows, size_t *n);
int am__pg_item_sources(am__store *b, const char *uid, int64_t item_rid, am__arena *ar,
                        const char ***ids, size_t *n);
int am__pg_item_heat(am__store *b, const char *uid, const char *lineage, int add, long hits,
                     am_time at);
int am__pg_item_update(am__store *b, const char *uid, const char *vid, int64_t item_rid,
                       const char *event_id, am_time at);
int am__pg_log_put(am__store *b, const char *uid, const am__audit_row *a, am__outbox_row *o);
int am__pg_log_page(am__store *b, const char *uid, int64_t after, size_t limit, am__arena *ar,
                    am__audit_row **audit, am__outbox_row **outbox, size_t *n, int64_t *seqs);
int am__pg_audit(am__store *b, const char *uid, am_time at, const char *op,
                 const char *object_type, const char *object_id, const char *detail);
int am__pg_audit_page(am__store *b, const char *uid, int64_t after_seq, int limit, am__arena *ar,
                      am__audit_row **rows, size_t *n);
int am__pg_outbox_put(am__store *b, am__outbox_row *r);
/* the write transaction's queued memory events, at its commit */
int am__pg_outbox_flush(pg_store *s);
int am__pg_outbox_since(am__store *b, const char *uid, int64_t after, size_t limit,
                        am__arena *ar, am__outbox_row **rows, size_t *n, int64_t *oldest);
void am__pg_outbox_committed(am__store *b, int64_t *lo, int64_t *hi);
int am__pg_outbox_trim(am__store *b, am_time before, int64_t max_rows, int limit);
void am__pg_outbox_note(pg_store *s, const PGresult *r); /* rows RETURNING seq */
int am__pg_workspace_list(am__store *b, const char *uid, const char *task_id, am__arena *ar,
                          am__workspace_row **rows, size_t *n);
int am__pg_pack_users(am__store *b, const char *role, const char *region, const char *channel,
                      am__arena *ar, const char ***uids, size_t *n);
/* pg_cold.c: archived events (store.h cold_*) */
int am__pg_cold_candidates(am__store *b, const char *uid, am_time before, am_time from_at,
                           int64_t from_rid, int limit, am__arena *ar, am__event_row **rows,
                           size_t *n);
int am__pg_cold_put(am__store *b, const char *uid, const am__cold_op *op, long *restored);
int am__pg_cold_fill(am__store *b, const char *uid, am__event_row *rows, size_t n, am__arena *ar,
                     size_t *filled);
int am__pg_workspace_put(am__store *b, const char *uid, const char *task_id,
                         const am__workspace_row *w, int how, am_time at, long *version);

/* events, the index, vectors (pg_events.c) */
#define PG_EVENT_COLS                                                                      \
    "e.rid, e.id, e.user_id, e.agent_id, e.session_id, e.task_id, e.channel, e.source,"    \
    " e.type, e.content, e.domain, e.intent, e.lang, e.occurred_at, e.ingested_at,"        \
    " e.tz_minutes, e.tokens, e.metadata"
int am__pg_read_event(am__arena *ar, const PGresult *r, int i, am__event_row *e);
int am__pg_event_put(am__store *b, am__event_row *e);
int am__pg_event_ctx_append(am__store *b, const char *uid, int64_t rid, const char *text);
/* The indexed context of event rid set to text (its postings and length
 * follow): a forget rebuilds its neighbours' with it. */
int am__pg_index_ctx_set(pg_store *s, const char *uid, int64_t rid, const char *text);
int am__pg_event_part_put(am__store *b, const char *uid, int64_t rid, const am__entity_row *en,
                          const am__pii_row *p, const char *ctx);
int am__pg_entity_put(am__store *b, const char *uid, int64_t rid, const am__entity_row *en);
int am__pg_entity_counts(am__store *b, const char *uid, const char *type, int limit,
                         am__arena *ar, const char ***norms, long **counts, size_t *n);
int am__pg_pii_put(am__store *b, const char *uid, int64_t rid, const am__pii_row *p);
int am__pg_event_get(am__store *b, const char *uid, int by, const char *key, am__arena *ar,
                     am__event_row *out);
int am__pg_user_rows(am__store *b, const char *uid, int64_t *n);
int am__pg_term_docs(am__store *b, const char *uid, const char *const *terms, size_t n_terms,
                     double *df, int64_t *n_rows);
int am__pg_postings(am__store *b, const char *uid, const char *const *terms, size_t n_terms,
                    am_time from, am_time to, int64_t n_rows, am__arena *ar, am__hits *out,
                    double *df);
int am__pg_rows_get(am__store *b, const char *uid, const int64_t *rids, size_t n, am__arena *ar,
                    am__event_row *rows, unsigned char *found);
int am__pg_events_scan(am__store *b, const char *uid, const am__event_scan *q, am__arena *ar,
                       am__event_row **rows, size_t *n);
int am__pg_events_recent(am__store *b, const char *uid, const char *session, const char *task,
                         am_time before, int limit, am__arena *ar, am__event_row **rows,
                         size_t *n);
int am__pg_events_page(am__store *b, const char *uid, am_time after_at, int64_t after_rid,
                       int limit, am__arena *ar, am__event_row **rows, size_t *n);
int am__pg_events_before(am__store *b, const char *uid, const char *session, am_time before_at,
                         int64_t before_rid, am_time from, int limit, am__arena *ar,
                         am__event_row **rows, size_t *n);
int am__pg_entities(am__store *b, const char *uid, const am__entity_read *q, am__arena *ar,
                    am__entity_out *out);
int am__pg_entities_list(am__store *b, const char *uid, int64_t rid, am__arena *ar,
                         am__entity_row **rows, size_t *n);
int am__pg_pii_events(am__store *b, const char *uid, const char *type, const char *canon,
                      am_time to, int limit, am__arena *ar, int64_t **rids,
                      const char ***originals, size_t *n);
int am__pg_events_dated(am__store *b, const char *uid, const int64_t *rids, size_t n,
                        unsigned char *dated);
int am__pg_events_access(am__store *b, const char *uid, am__arena *ar, am__event_row **rows,
                         size_t *n);
int am__pg_vec_put(am__store *b, const char *uid, int64_t rid, const char *embedder,
                   const float *v, int dim);
int am__pg_vec_scan(am__store *b, const char *uid, const char *embedder, const float *q, int dim,
                    am_time to, int limit, int exact_max, am__arena *ar, am__event_row **rows,
                    size_t *n);
int am__pg_vec_missing(am__store *b, const char *uid, const am__vec_want *want, int64_t after_rid,
                       int64_t upto_rid, int limit, am__arena *ar, am__event_row **rows, size_t *n,
                       int64_t *max_rid);
/* the PII vault (pg_vault.c): the keys at open (vault_key NULL: none;
 * meta('pii_key') read), wiped at close; the upkeep at optimize */
int am__pg_vault_keys(pg_store *s, const unsigned char *vault_key);
void am__pg_vault_wipe(pg_store *s);
int am__pg_vault_upkeep(pg_store *s, long *sealed, long *hashed);

/* The index_totals slot of a user. */
int am__pg_slot(const char *uid);

/* forgetting (pg_forget.c) */
int am__pg_forget_delete(am__store *b, const char *uid, const am__forget_del *d,
                         am__forget_gone *out);
int am__pg_forget_mark(am__store *b, const char *uid, const am__forget_sel *sel, am__arena *ar,
                       am__forget_marked *out);
int am__pg_forget_grace(am__store *b, const char *uid, int level, const char *id, am_time now,
                        am_time purge_at, am__forget_gone *out);
int am__pg_forget_step(am__store *b, const am__fjob_due *job, am_time now);
int am__pg_restore_forget(am__store *b, const char *uid, int64_t job, am_time at, long *events);
int am__pg_forget_jobs(am__store *b, const am__fjob_op *op, am__arena *ar, am__fjob_row **rows,
                       size_t *n);
/* The temporary tables of a forget (am_forget, am_forget_tasks, ...),
 * made on this connection and emptied; the contexts of the remaining
 * turns of the sessions in am_forget rebuilt (after a forget, a restore). */
int am__pg_forget_temp(pg_store *s);
int am__pg_forget_ctx_rebuild(pg_store *s, const char *uid);

/* held rows of a forget in its grace period (pg_held.c): table's rows
 * where where ($1 uid, $3 x when named) copied under job; held rows back
 * (a column's value replaced by an expression over h, the held row; or_ignore:
 * a row that is there already stays); a job's held rows (job 0: all of
 * the user's) dropped, at most limit of them (0: all). */
typedef struct pg_held_expr {
    const char *column, *expr;
} pg_held_expr;
int am__pg_held_copy(pg_store *s, const char *table, const char *where, const char *uid,
                     int64_t job, const char *x);
int am__pg_held_back(pg_store *s, const char *table, const char *uid, int64_t job,
                     const pg_held_expr *ov, size_t n_ov, int or_ignore, long *changes);
int am__pg_held_drop(pg_store *s, const char *uid, int64_t job, long limit, long *dropped);

#endif
