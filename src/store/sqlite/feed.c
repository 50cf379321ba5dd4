/* SPDX-License-Identifier: Apache-2.0 */
/*
 * feed.c -- what a commit of one connection tells the other connections
 * of the same file in this process, so that they keep the posting lists
 * they hold instead of scanning them again (caches.c, post_cache.c).
 *
 * A server runs a connection per worker and a writer: every write of a
 * user is committed by the writer, and the user's next recall, on a
 * worker, found the user's seq moved and dropped the user's lists -- a
 * third of the workers' time went to scanning them again.  The writer
 * knows what moved the seq: the rows it inserted and the context it
 * appended (their index text; each moves it by exactly one) and its
 * vector writes (measured around each).  So after COMMIT it publishes,
 * per user of the transaction, a record {user, epoch, seq before, seq
 * after, rows, appends, vectors changed} to a feed shared by the
 * connections of this process that opened the same file (device and
 * inode) with the same allocator.  A connection that finds a user's seq
 * moved from s0 to s1 looks for records of its epoch chaining s0 to s1
 * and applies them to its lists and row lengths with the code its own
 * writes use (events.c: am__sqlite_lists_row, am__sqlite_lists_append);
 * vectors changed drop the user's vectors; no chain: the user's data is
 * dropped as before.
 *
 * A record is published only when it explains its user's whole move:
 * seq after - seq before = its rows + its appends + its vector moves.
 * Any other change of the user's rows in the transaction (a restore, a
 * re-owning; deletes also move the epoch) leaves the count short and
 * publishes nothing.  Commits of other processes publish nothing here
 * and are dropped as before.  The seq before is read when the user is
 * first written in the transaction (the write lock held), the seq after
 * and the epoch just before COMMIT.
 *
 * The feed holds event text in memory: a forget of a user removes the
 * user's records, wiped (caches_drop for a forget: forget.c, users.c);
 * a record also goes after FEED_RECS newer ones, past FEED_BYTES in all,
 * and with the last connection of the file.  A connection alone on its
 * file keeps nothing (nobody to tell).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "store/sqlite/sqlite_int.h"

#include <string.h>

#define FEED_RECS 512
#define FEED_BYTES ((size_t)8 << 20)
#define FEED_CHAIN 64 /* records applied at one catch-up, at most */

typedef struct feed_op {
    int64_t rid;
    int append;            /* 0: a new row (doc, ctx); 1: ctx appended */
    const char *doc, *ctx; /* into the record's allocation */
} feed_op;

typedef struct feed_rec {
    uint64_t hash;
    int64_t epoch, from, to;
    int vectors;
    size_t n_ops, bytes;
    char uid[AM_ID_MAX + 1];
    char tok[32];
    feed_op op[]; /* then the texts */
} feed_rec;

struct am__feed {
    am__feed *next; /* the registry's */
    dev_t dev;
    ino_t ino;
    am__allocator a;
    atomic_int refs;
    pthread_mutex_t mu;
    feed_rec *ring[FEED_RECS];
    size_t first, n, bytes;
};

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static am__feed *registry;

/* The open transaction's capture (one per connection, made at its first
 * use): its users by name (the tx_uid list of caches.c may start over). */
typedef struct fx_op {
    int u;
    int append;
    int64_t rid;
    char *doc, *ctx; /* s->a's */
} fx_op;

struct sq_feed_tx {
    int on, n_users;
    int64_t epoch;
    struct {
        char uid[AM_ID_MAX + 1];
        char tok[32];
        int64_t from, moves;
        int vectors, broken;
    } u[AM__TX_USERS];
    fx_op *op;
    size_t n, cap;
};

static uint64_t uid_hash(const char *uid)
{
    uint64_t h = am__hash64(uid, strlen(uid));
    return h ? h : 1;
}

static void rec_free(am__feed *f, feed_rec *r)
{
    memset(r, 0, r->bytes); /* event text: wiped */
    am__free(&f->a, r);
}

/* ---------------------------------------------------------------- open, close */

void am__sqlite_feed_open(sq_store *s, const char *path)
{
    struct stat st;
    if (!path || !*path || strcmp(path, ":memory:") == 0 || stat(path, &st) != 0) return;
    pthread_mutex_lock(&registry_mu);
    am__feed *f = registry;
    while (f && !(f->dev == st.st_dev && f->ino == st.st_ino && f->a.realloc == s->a->realloc &&
                  f->a.ctx == s->a->ctx))
        f = f->next;
    if (!f && (f = am__calloc(s->a, sizeof *f))) {
        f->dev = st.st_dev;
        f->ino = st.st_ino;
        f->a = *s->a;
        pthread_mutex_init(&f->mu, NULL);
        f->next = registry;
        registry = f;
    }
    if (f) atomic_fetch_add(&f->refs, 1);
    pthread_mutex_unlock(&registry_mu);
    s->feed = f;
}

static void tx_reset(sq_store *s)
{
    struct sq_feed_tx *t = s->ftx;
    if (!t) return;
    for (size_t i = 0; i < t->n; i++) {
        am__free(s->a, t->op[i].doc);
        am__free(s->a, t->op[i].ctx);
    }
    t->n = 0;
    t->n_users = 0;
    t->on = 0;
}

void am__sqlite_feed_close(sq_store *s)
{
    tx_reset(s);
    if (s->ftx) am__free(s->a, s->ftx->op);
    am__free(s->a, s->ftx);
    s->ftx = NULL;
    am__feed *f = s->feed;
    s->feed = NULL;
    if (!f) return;
    pthread_mutex_lock(&registry_mu);
    if (atomic_fetch_sub(&f->refs, 1) == 1) {
        am__feed **p = &registry;
        while (*p != f) p = &(*p)->next;
        *p = f->next;
        for (size_t j = 0; j < f->n; j++) rec_free(f, f->ring[(f->first + j) % FEED_RECS]);
        pthread_mutex_destroy(&f->mu);
        am__allocator a = f->a;
        am__free(&a, f);
    }
    pthread_mutex_unlock(&registry_mu);
}

/* ---------------------------------------------------------------- capture */

void am__sqlite_feed_txn_begin(sq_store *s)
{
    tx_reset(s);
    if (!s->feed || atomic_load(&s->feed->refs) < 2) return; /* nobody to tell */
    if (!s->ftx && !(s->ftx = am__calloc(s->a, sizeof *s->ftx))) return;
    s->ftx->on = 1;
}

void am__sqlite_feed_txn_end(sq_store *s) { tx_reset(s); }

static int find_user(const struct sq_feed_tx *t, const char *uid)
{
    for (int i = 0; i < t->n_users; i++)
        if (strcmp(t->u[i].uid, uid) == 0) return i;
    return -1;
}

void am__sqlite_feed_user(sq_store *s, const char *uid)
{
    struct sq_feed_tx *t = s->ftx;
    if (!t || !t->on || find_user(t, uid) >= 0 || t->n_users == AM__TX_USERS) return;
    int64_t seq;
    if (am__sqlite_user_seq(s, uid, &seq) != AM_OK || seq < 0) return; /* not known: no record */
    int i = t->n_users++;
    snprintf(t->u[i].uid, sizeof t->u[i].uid, "%s", uid);
    t->u[i].tok[0] = 0;
    t->u[i].from = seq;
    t->u[i].moves = 0;
    t->u[i].vectors = t->u[i].broken = 0;
}

static void note(sq_store *s, const char *uid, const char *tok, int append, int64_t rid,
                 const char *doc, const char *ctx)
{
    struct sq_feed_tx *t = s->ftx;
    int u;
    if (!t || !t->on || (u = find_user(t, uid)) < 0) return;
    t->u[u].moves++;
    if (t->u[u].broken) return;
    snprintf(t->u[u].tok, sizeof t->u[u].tok, "%s", tok);
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        fx_op *p = am__realloc(s->a, t->op, cap * sizeof *p);
        if (!p) {
            t->u[u].broken = 1;
            return;
        }
        t->op = p;
        t->cap = cap;
    }
    fx_op *o = &t->op[t->n];
    o->u = u;
    o->append = append;
    o->rid = rid;
    o->doc = doc ? am__malloc(s->a, strlen(doc) + 1) : NULL;
    o->ctx = am__malloc(s->a, strlen(ctx) + 1);
    if ((doc && !o->doc) || !o->ctx) {
        am__free(s->a, o->doc);
        am__free(s->a, o->ctx);
        t->u[u].broken = 1;
        return;
    }
    if (doc) memcpy(o->doc, doc, strlen(doc) + 1);
    memcpy(o->ctx, ctx, strlen(ctx) + 1);
    t->n++;
}

void am__sqlite_feed_row(sq_store *s, const char *uid, const char *tok, int64_t rid,
                         const char *doc, const char *ctx)
{
    note(s, uid, tok, 0, rid, doc, ctx);
}

void am__sqlite_feed_append(sq_store *s, const char *uid, const char *tok, int64_t rid,
                            const char *text)
{
    note(s, uid, tok, 1, rid, NULL, text);
}

int am__sqlite_feed_watching(const sq_store *s, const char *uid)
{
    return s->ftx && s->ftx->on && find_user(s->ftx, uid) >= 0;
}

void am__sqlite_feed_vectors(sq_store *s, const char *uid, int64_t moves)
{
    struct sq_feed_tx *t = s->ftx;
    int u;
    if (!t || !t->on || (u = find_user(t, uid)) < 0) return;
    t->u[u].moves += moves;
    t->u[u].vectors = 1;
}

int am__sqlite_feed_capturing(const sq_store *s) { return s->ftx && s->ftx->on; }

int am__sqlite_feed_shared(const sq_store *s)
{
    return s->feed && atomic_load(&s->feed->refs) > 1;
}

void am__sqlite_feed_epoch(sq_store *s, int64_t epoch)
{
    if (s->ftx) s->ftx->epoch = epoch;
}

/* After COMMIT: a record per user whose move the capture explains. */
void am__sqlite_feed_publish(sq_store *s)
{
    const int n = s->tx_n; /* (past AM__TX_USERS: those have no record) */
    struct sq_feed_tx *t = s->ftx;
    am__feed *f = s->feed;
    if (!t || !t->on || !f) {
        tx_reset(s);
        return;
    }
    for (int k = 0; k < n; k++) {
        int u = find_user(t, s->tx_uid[k]);
            if (u < 0 || t->u[u].broken || t->u[u].moves == 0 ||
            s->tx_seq[k] - t->u[u].from != t->u[u].moves)
            continue;
        size_t n_ops = 0, text = 0;
        for (size_t i = 0; i < t->n; i++)
            if (t->op[i].u == u) {
                n_ops++;
                text += (t->op[i].doc ? strlen(t->op[i].doc) + 1 : 0) + strlen(t->op[i].ctx) + 1;
            }
        size_t bytes = sizeof(feed_rec) + n_ops * sizeof(feed_op) + text;
        feed_rec *r = am__malloc(&f->a, bytes);
        if (!r) continue;
        r->hash = uid_hash(s->tx_uid[k]);
        r->epoch = t->epoch;
        r->from = t->u[u].from;
        r->to = s->tx_seq[k];
        r->vectors = t->u[u].vectors;
        r->n_ops = n_ops;
        r->bytes = bytes;
        snprintf(r->uid, sizeof r->uid, "%s", s->tx_uid[k]);
        memcpy(r->tok, t->u[u].tok, sizeof r->tok);
        char *p = (char *)&r->op[n_ops];
        size_t j = 0;
        for (size_t i = 0; i < t->n; i++) {
            if (t->op[i].u != u) continue;
            feed_op *o = &r->op[j++];
            o->rid = t->op[i].rid;
            o->append = t->op[i].append;
            o->doc = NULL;
            if (t->op[i].doc) {
                size_t l = strlen(t->op[i].doc) + 1;
                memcpy(p, t->op[i].doc, l);
                o->doc = p;
                p += l;
            }
            size_t l = strlen(t->op[i].ctx) + 1;
            memcpy(p, t->op[i].ctx, l);
            o->ctx = p;
            p += l;
        }
        pthread_mutex_lock(&f->mu);
        while (f->n && (f->n == FEED_RECS || f->bytes + bytes > FEED_BYTES)) {
            feed_rec *old = f->ring[f->first];
            f->bytes -= old->bytes;
            rec_free(f, old);
            f->first = (f->first + 1) % FEED_RECS;
            f->n--;
        }
        f->ring[(f->first + f->n) % FEED_RECS] = r;
        f->n++;
        f->bytes += bytes;
        pthread_mutex_unlock(&f->mu);
    }
    tx_reset(s);
}

/* ---------------------------------------------------------------- catching up */

int am__sqlite_feed_catch_up(sq_store *s, const char *uid, int64_t from, int64_t to)
{
    am__feed *f = s->feed;
    if (!f || from < 0 || to <= from) return 0;
    uint64_t h = uid_hash(uid);
    feed_rec *chain[FEED_CHAIN];
    size_t nc = 0;
    int64_t at = from;
    int ok = 0;
    pthread_mutex_lock(&f->mu);
    for (size_t j = 0; j < f->n && at != to; j++) {
        feed_rec *r = f->ring[(f->first + j) % FEED_RECS];
        if (r->hash != h || r->epoch != s->epoch || strcmp(r->uid, uid) != 0) continue;
        if (r->from < at) continue; /* before what this connection holds */
        if (r->from > at || nc == FEED_CHAIN) break; /* a move nobody explained */
        chain[nc++] = r;
        at = r->to;
    }
    if (at == to) {
        ok = 1;
        for (size_t c = 0; c < nc; c++) {
            feed_rec *r = chain[c];
            for (size_t i = 0; i < r->n_ops; i++) {
                const feed_op *o = &r->op[i];
                if (o->append) {
                    am__sqlite_lists_append(s, uid, r->tok, o->rid, o->ctx);
                } else {
                    am__fts_lens_drop(s->lens, o->rid); /* a rowid can come back */
                    am__rowcache_inserted(s->rows, o->rid);
                    am__sqlite_lists_row(s, uid, r->tok, o->rid, o->doc, o->ctx);
                }
            }
            if (r->vectors) am__vc_clear(s->vc, uid);
        }
    }
    pthread_mutex_unlock(&f->mu);
    if (ok) am__post_df_clear(s->post); /* the user's frequencies grew */
    return ok;
}

/* ---------------------------------------------------------------- forgetting */

void am__sqlite_feed_forget(sq_store *s, const char *uid)
{
    struct sq_feed_tx *t = s->ftx;
    int u;
    if (t && (u = find_user(t, uid)) >= 0) { /* this transaction's copies */
        size_t w = 0;
        for (size_t i = 0; i < t->n; i++) {
            if (t->op[i].u == u) {
                if (t->op[i].doc) am__vault_key_wipe(t->op[i].doc, strlen(t->op[i].doc));
                am__vault_key_wipe(t->op[i].ctx, strlen(t->op[i].ctx));
                am__free(s->a, t->op[i].doc);
                am__free(s->a, t->op[i].ctx);
            } else {
                t->op[w++] = t->op[i];
            }
        }
        t->n = w;
        t->u[u].broken = 1;
    }
    am__feed *f = s->feed;
    if (!f) return;
    uint64_t h = uid_hash(uid);
    pthread_mutex_lock(&f->mu);
    size_t w = 0;
    for (size_t j = 0; j < f->n; j++) {
        feed_rec *r = f->ring[(f->first + j) % FEED_RECS];
        if (r->hash == h && strcmp(r->uid, uid) == 0) {
            f->bytes -= r->bytes;
            rec_free(f, r);
        } else {
            f->ring[(f->first + w++) % FEED_RECS] = r;
        }
    }
    f->n = w;
    pthread_mutex_unlock(&f->mu);
}

size_t am__sqlite_feed_held(const sq_store *s, const char *uid)
{
    am__feed *f = s->feed;
    if (!f) return 0;
    size_t n = 0;
    pthread_mutex_lock(&f->mu);
    for (size_t j = 0; j < f->n; j++)
        if (strcmp(f->ring[(f->first + j) % FEED_RECS]->uid, uid) == 0) n++;
    pthread_mutex_unlock(&f->mu);
    return n;
}
