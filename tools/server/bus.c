/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bus.c -- the event bus between `agentmem serve` instances sharing one
 * store (`--cache redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]`, docs/EVENTS.md
 * "Between server instances").  Several stateless servers on one store
 * (a PostgreSQL database, or one SQLite file on one machine) behave as
 * one: a memory event committed through instance A reaches B's SSE
 * streams at once and B's webhooks once across the cluster (dispatch.c).
 *
 * The store is the record, Redis only says "look".  A commit on one of
 * this server's handles (am_subscribe on each handle, server.c) raises
 * the local generation and has the bus thread PUBLISH a note of about 50
 * bytes on the channel "agentmem:bus:<DB>:events" (pub/sub ignores the
 * DB number, so it is in the name):
 *     am1 <instance id, 32 hex digits> <the newest seq committed>
 * -- no user, no memory text, no key: pub/sub keeps nothing and a
 * forgotten user leaves nothing in Redis.  A note of another instance
 * raises the generation here (one's own notes are ignored: the local
 * commit already did); every stream and the webhook dispatcher then read
 * the store with am_events_since from the last seq each delivered, and
 * deliver what they find as they deliver local events.  A note lost
 * (Redis down, a slow subscriber dropped by Redis) loses nothing: the
 * readers also poll the store (every 1 s while the bus is up, every
 * 200 ms as before while it is down or not configured), and a
 * (re)connect raises the generation, so everyone catches up from the
 * store.  A note delivered twice (none is, but a reconnect looks alike)
 * duplicates nothing: the readers deliver only seqs above their cursor.
 *
 * Why a reader resuming after a seq misses nothing: it needs every event
 * with a seq below one it has read to be visible when it reads that one.
 *   - SQLite: one writer at a time (BEGIN IMMEDIATE), seq an AUTOINCREMENT
 *     rowid given inside the write transaction, so the seqs of a commit
 *     are above every earlier commit's; a WAL reader sees whole commits.
 *   - PostgreSQL: writers of different users commit in parallel (a
 *     lock per user), so seq, a bigserial, is taken under the outbox-order
 *     lock, a transaction-scoped advisory lock taken just before the
 *     outbox row and held to the commit (store/postgres/pg_store.c,
 *     docs/SCALING.md "Why a reader resuming from a seq misses nothing");
 *     the commit is visible before the lock is released, so the next
 *     writer's seqs are above and commit later -- seqs are handed out in
 *     commit order for readers of every user's events (the webhook
 *     dispatcher, an admin stream) too.  A rolled back transaction leaves
 *     a gap, never a late seq.
 *
 * Threads: one bus thread owns two connections (the subscription, and
 * one for PUBLISH and a PING each second that tells /healthz whether
 * Redis is up) and polls the subscription's socket and a pipe that a
 * commit writes a byte to; it reconnects with backoff (0.25 s to 2 s).
 * Request threads only take the mutex and write the pipe: a commit never
 * waits for Redis.  dispatch.c opens its own connection (the webhook
 * lease) through am__srv_bus_connect and the lease helpers below; hiredis
 * contexts are never shared between threads.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <hiredis.h>
#include <openssl/rand.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "srv_int.h"

#define POLL_UP_MS 1000     /* readers' safety poll while the bus is up */
#define POLL_DOWN_MS 200    /* and while it is down or not configured */
#define IO_TIMEOUT_MS 1000  /* connect and each command */
#define PING_MS 1000

struct srv_bus {
    srv_bus_url u;
    char channel[64];
    char instance[33];
    int wake[2];             /* the pipe: [0] polled by the thread */
    pthread_t thread;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv;       /* gen changed */
    uint64_t gen;
    int64_t pending;         /* the newest local seq committed */
    int up, ever_up, said_down, stopping;
    int poked;               /* a byte is in the pipe, not yet drained */
    char error[256];
    long notes_out, notes_in;
};

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* ------------------------------------------------------------ parsing */

/* %-decoded src[0..n) into out (cap bytes, NUL-terminated); 0 or 1 */
static int decode(const char *src, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)src[i];
        if (c == '%') {
            if (i + 2 >= n) return 1;
            int hi = am__srv_hex(src[i + 1]), lo = am__srv_hex(src[i + 2]);
            if (hi < 0 || lo < 0 || (hi | lo) == 0) return 1; /* a bad escape, or %00 */
            c = hi * 16 + lo;
            i += 2;
        } else if (c < 0x21 || c == 0x7f) return 1;
        if (k + 1 >= cap) return 1;
        out[k++] = (char)c;
    }
    out[k] = '\0';
    return 0;
}

int am__srv_bus_parse_url(const char *url, srv_bus_url *u, const char **why)
{
    memset(u, 0, sizeof *u);
    u->port = 6379;
    *why = NULL;
    if (!url || strncmp(url, "redis://", 8) != 0) {
        *why = "expected redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]";
        return 1;
    }
    const char *p = url + 8, *end = p + strlen(p);
    const char *slash = memchr(p, '/', (size_t)(end - p));
    const char *auth_end = NULL;
    for (const char *q = p; q < (slash ? slash : end); q++)
        if (*q == '@') auth_end = q; /* the last '@' before the path */
    if (auth_end) {
        const char *colon = memchr(p, ':', (size_t)(auth_end - p));
        if (!colon) {
            *why = "the credentials must be [USER]:PASSWORD (a colon before the password)";
            return 1;
        }
        if (decode(p, (size_t)(colon - p), u->user, sizeof u->user) ||
            decode(colon + 1, (size_t)(auth_end - colon - 1), u->pass, sizeof u->pass) || !u->pass[0]) {
            *why = "the user or password is empty, too long, or holds a bad %-escape or a control character";
            memset(u->pass, 0, sizeof u->pass);
            return 1;
        }
        p = auth_end + 1;
    }
    const char *host_end = slash ? slash : end, *port_at = NULL;
    if (*p == '[') { /* [IPv6] */
        const char *close = memchr(p, ']', (size_t)(host_end - p));
        if (!close || close == p + 1 || (close + 1 != host_end && close[1] != ':')) {
            *why = "a bracketed IPv6 host must be [ADDRESS] or [ADDRESS]:PORT";
            return 1;
        }
        if ((size_t)(close - p - 1) >= sizeof u->host) {
            *why = "the host is too long";
            return 1;
        }
        memcpy(u->host, p + 1, (size_t)(close - p - 1));
        port_at = close + 1 < host_end ? close + 2 : NULL;
    } else {
        const char *colon = memchr(p, ':', (size_t)(host_end - p));
        const char *hend = colon ? colon : host_end;
        if (hend == p || (size_t)(hend - p) >= sizeof u->host) {
            *why = "the host is missing or too long";
            return 1;
        }
        memcpy(u->host, p, (size_t)(hend - p));
        port_at = colon ? colon + 1 : NULL;
    }
    for (const char *h = u->host; *h; h++)
        if (!(*h == '.' || *h == '-' || *h == ':' || *h == '_' || (*h >= '0' && *h <= '9') ||
              (*h >= 'a' && *h <= 'z') || (*h >= 'A' && *h <= 'Z'))) {
            *why = "the host holds a character a host name or address cannot";
            return 1;
        }
    if (port_at) {
        long v = 0;
        const char *q = port_at;
        for (; q < host_end && *q >= '0' && *q <= '9' && v <= 65535; q++) v = v * 10 + (*q - '0');
        if (q == port_at || q != host_end || v < 1 || v > 65535) {
            *why = "the port must be a number from 1 to 65535";
            return 1;
        }
        u->port = (int)v;
    }
    if (slash && slash + 1 < end) {
        long v = 0;
        const char *q = slash + 1;
        for (; *q >= '0' && *q <= '9' && v <= 1000000; q++) v = v * 10 + (*q - '0');
        if (*q || v > 1000000) {
            *why = "the database (after /) must be a number from 0 to 1000000, with nothing after it";
            return 1;
        }
        u->db = (int)v;
    }
    return 0;
}

/* A seq: 1 to 19 decimal digits, no sign, no leading zero; 0 or 1 */
static int parse_seq(const char *d, size_t nd, int64_t *seq)
{
    if (nd == 0 || nd > 19 || (d[0] == '0' && nd > 1)) return 1;
    uint64_t v = 0;
    for (size_t i = 0; i < nd; i++) {
        if (d[i] < '0' || d[i] > '9') return 1;
        v = v * 10 + (uint64_t)(d[i] - '0');
    }
    if (v > (uint64_t)INT64_MAX) return 1;
    *seq = (int64_t)v;
    return 0;
}

int am__srv_bus_parse_note(const char *msg, size_t len, char instance[33], int64_t *seq)
{
    if (len < 4 + 32 + 2 || memcmp(msg, "am1 ", 4) != 0 || msg[36] != ' ') return 1;
    for (int i = 0; i < 32; i++) {
        char c = msg[4 + i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return 1;
        instance[i] = c;
    }
    instance[32] = '\0';
    return parse_seq(msg + 37, len - 37, seq);
}

/* ------------------------------------------------------------ connections */

/* why into err from a context or a reply (Redis's words: never the URL) */
static void say(char *err, size_t n, const char *what, redisContext *c, redisReply *r)
{
    if (r && r->type == REDIS_REPLY_ERROR) snprintf(err, n, "%s: %.200s", what, r->str);
    else if (c && c->err) snprintf(err, n, "%s: %.200s", what, c->errstr);
    else snprintf(err, n, "%s: no answer", what);
}

/* one command's reply, checked: NULL (err set) when it failed; *refused
 * (may be NULL) 1 when Redis answered with an error, 0 when it did not
 * answer (the socket, a timeout) */
static redisReply *command_r(redisContext *c, char *err, size_t n, int *refused, const char *what,
                             const char *fmt, va_list ap)
{
    redisReply *r = redisvCommand(c, fmt, ap);
    if (refused) *refused = r != NULL;
    if (!r || r->type == REDIS_REPLY_ERROR) {
        say(err, n, what, c, r);
        if (r) freeReplyObject(r);
        return NULL;
    }
    if (refused) *refused = 0;
    return r;
}

static redisReply *command(redisContext *c, char *err, size_t n, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = command_r(c, err, n, NULL, what, fmt, ap);
    va_end(ap);
    return r;
}

/* command() that also says whether Redis refused */
static redisReply *command_or_refused(redisContext *c, char *err, size_t n, int *refused, const char *what,
                                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = command_r(c, err, n, refused, what, fmt, ap);
    va_end(ap);
    return r;
}

/* A connection logged in (AUTH when the URL has a password, with its user
 * when it has one) and in the URL's database (SELECT unless it is 0); NULL
 * with the reason in err, *refused 1 when Redis answered with an error (a
 * wrong password or user, no password, a database it does not have) and 0
 * when it could not be reached. */
static redisContext *connect_as(srv_bus *b, char *err, size_t n, int *refused)
{
    struct timeval tv = {IO_TIMEOUT_MS / 1000, (IO_TIMEOUT_MS % 1000) * 1000};
    *refused = 0;
    redisContext *c = redisConnectWithTimeout(b->u.host, b->u.port, tv);
    if (!c || c->err) {
        say(err, n, "connect", c, NULL);
        if (c) redisFree(c);
        return NULL;
    }
    if (redisSetTimeout(c, tv) != REDIS_OK) {
        say(err, n, "connect", c, NULL);
        goto fail;
    }
    /* each reply is freed where it is taken: AUTH's never reaches SELECT */
    if (b->u.pass[0]) {
        redisReply *r =
            b->u.user[0]
                ? command_or_refused(c, err, n, refused, "AUTH", "AUTH %s %s", b->u.user, b->u.pass)
                : command_or_refused(c, err, n, refused, "AUTH", "AUTH %s", b->u.pass);
        if (!r) goto fail;
        freeReplyObject(r);
    }
    if (b->u.db) {
        redisReply *r = command_or_refused(c, err, n, refused, "SELECT", "SELECT %d", b->u.db);
        if (!r) goto fail;
        freeReplyObject(r);
    }
    return c;
fail:
    redisFree(c);
    return NULL;
}

redisContext *am__srv_bus_connect(srv_bus *b, char *err, size_t n)
{
    int refused;
    return connect_as(b, err, n, &refused);
}

/* ------------------------------------------------------------ the thread */

/* up, or down for err; refused: Redis answered with an error (the
 * credentials or the database of the URL), not a network failure */
static void set_state(srv_bus *b, int up, int refused, const char *err)
{
    pthread_mutex_lock(&b->mu);
    if (up && !b->up) { /* (re)connected: every reader catches up from the store */
        b->gen++;
        pthread_cond_broadcast(&b->cv);
    }
    int v6 = strchr(b->u.host, ':') != NULL;
    if (!up && (b->up || !b->said_down) && refused)
        fprintf(stderr,
                "agentmem serve: cache: redis at %s%s%s:%d/%d refused the bus (%s): check the"
                " user, password and database of --cache; serving from the store, trying again\n",
                v6 ? "[" : "", b->u.host, v6 ? "]" : "", b->u.port, b->u.db, err);
    else if (!up && (b->up || !b->said_down))
        fprintf(stderr, "agentmem serve: cache: redis is %s (%s); serving from the store\n",
                b->ever_up ? "down" : "not reachable yet", err);
    b->said_down |= !up;
    if (up && !b->up && b->ever_up) fprintf(stderr, "agentmem serve: cache: redis is up again\n");
    if (up && !b->ever_up)
        fprintf(stderr, "agentmem serve: cache: the bus is up (redis at %s:%d, db %d, instance %s)\n",
                b->u.host, b->u.port, b->u.db, b->instance);
    b->ever_up |= up;
    b->up = up;
    if (err) snprintf(b->error, sizeof b->error, "%s", err);
    pthread_mutex_unlock(&b->mu);
}

static void on_message(srv_bus *b, redisReply *r)
{
    char inst[33];
    int64_t seq;
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 3 || r->element[0]->type != REDIS_REPLY_STRING ||
        strcmp(r->element[0]->str, "message") != 0 || r->element[2]->type != REDIS_REPLY_STRING)
        return; /* subscribe confirmations */
    if (am__srv_bus_parse_note(r->element[2]->str, r->element[2]->len, inst, &seq)) {
        fprintf(stderr, "agentmem serve: cache: a note on %s that is not one (ignored)\n", b->channel);
        return;
    }
    if (strcmp(inst, b->instance) == 0) return; /* ours: the commit already woke everyone */
    pthread_mutex_lock(&b->mu);
    b->notes_in++;
    b->gen++;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

/* Wait ms on the wake pipe (a commit, or the stop); drains it */
static void wait_wake(srv_bus *b, int fd, int ms, short *sub_events)
{
    struct pollfd pf[2] = {{b->wake[0], POLLIN, 0}, {fd, POLLIN, 0}};
    int n = poll(pf, fd >= 0 ? 2 : 1, ms);
    if (sub_events) *sub_events = n > 0 && fd >= 0 ? pf[1].revents : 0;
    if (n > 0 && (pf[0].revents & POLLIN)) {
        char junk[64];
        while (read(b->wake[0], junk, sizeof junk) > 0) {
        }
        /* drained, then cleared: a commit after this writes a byte again,
         * and one before it is in the pending seq the loop reads next */
        pthread_mutex_lock(&b->mu);
        b->poked = 0;
        pthread_mutex_unlock(&b->mu);
    }
}

static void *bus_run(void *arg)
{
    srv_bus *b = arg;
    redisContext *sub = NULL, *pub = NULL;
    int64_t published = 0;
    long long backoff = 250, last_ping = 0;
    char err[256];
    for (;;) {
        pthread_mutex_lock(&b->mu);
        int stop = b->stopping;
        int64_t pending = b->pending;
        pthread_mutex_unlock(&b->mu);
        if (stop) break;
        if (!sub) {
            redisReply *r = NULL;
            int refused = 0; /* without a password Redis may refuse SUBSCRIBE (NOAUTH) */
            if (!(pub = connect_as(b, err, sizeof err, &refused)) ||
                !(sub = connect_as(b, err, sizeof err, &refused)) ||
                !(r = command_or_refused(sub, err, sizeof err, &refused, "SUBSCRIBE", "SUBSCRIBE %s",
                                         b->channel))) {
                if (sub) redisFree(sub);
                if (pub) redisFree(pub);
                sub = pub = NULL;
                set_state(b, 0, refused, err);
                wait_wake(b, -1, (int)backoff, NULL);
                backoff = backoff * 2 > 2000 ? 2000 : backoff * 2;
                continue;
            }
            freeReplyObject(r);
            backoff = 250;
            last_ping = now_ms();
            set_state(b, 1, 0, NULL);
        }
        int broken = 0;
        if (pending > published) {
            char note[64];
            snprintf(note, sizeof note, "am1 %s %lld", b->instance, (long long)pending);
            redisReply *r = command(pub, err, sizeof err, "PUBLISH", "PUBLISH %s %s", b->channel, note);
            if (r) {
                freeReplyObject(r);
                published = pending;
                pthread_mutex_lock(&b->mu);
                b->notes_out++;
                pthread_mutex_unlock(&b->mu);
            } else broken = 1;
        }
        if (!broken && now_ms() - last_ping >= PING_MS) {
            redisReply *r = command(pub, err, sizeof err, "PING", "PING");
            if (r) freeReplyObject(r);
            else broken = 1;
            last_ping = now_ms();
        }
        short ev = 0;
        if (!broken) wait_wake(b, sub->fd, PING_MS, &ev);
        if (!broken && (ev & (POLLIN | POLLHUP | POLLERR))) {
            if (redisBufferRead(sub) != REDIS_OK) {
                say(err, sizeof err, "subscription", sub, NULL);
                broken = 1;
            }
            void *reply;
            while (!broken && redisGetReplyFromReader(sub, &reply) == REDIS_OK && reply) {
                on_message(b, reply);
                freeReplyObject(reply);
            }
            if (!broken && sub->err) {
                say(err, sizeof err, "subscription", sub, NULL);
                broken = 1;
            }
        }
        if (broken) {
            redisFree(sub);
            redisFree(pub);
            sub = pub = NULL;
            set_state(b, 0, 0, err);
        }
    }
    if (sub) redisFree(sub);
    if (pub) redisFree(pub);
    return NULL;
}

/* ------------------------------------------------------------ the bus */

srv_bus *am__srv_bus_start(const char *url)
{
    srv_bus *b = calloc(1, sizeof *b);
    const char *why = NULL;
    if (!b) {
        fprintf(stderr, "agentmem serve: out of memory\n");
        return NULL;
    }
    if (am__srv_bus_parse_url(url, &b->u, &why)) {
        fprintf(stderr, "agentmem serve: --cache: %s\n", why); /* never the URL: its password */
        memset(&b->u, 0, sizeof b->u);
        free(b);
        return NULL;
    }
    unsigned char rnd[16];
    if (RAND_bytes(rnd, sizeof rnd) != 1 || pipe(b->wake) != 0) {
        fprintf(stderr, "agentmem serve: --cache: cannot set up the bus\n");
        memset(&b->u, 0, sizeof b->u);
        free(b);
        return NULL;
    }
    for (int i = 0; i < 16; i++) snprintf(b->instance + 2 * i, 3, "%02x", rnd[i]);
    snprintf(b->channel, sizeof b->channel, "agentmem:bus:%d:events", b->u.db);
    for (int i = 0; i < 2; i++) fcntl(b->wake[i], F_SETFL, fcntl(b->wake[i], F_GETFL) | O_NONBLOCK);
    snprintf(b->error, sizeof b->error, "not connected yet");
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->cv, NULL);
    if (pthread_create(&b->thread, NULL, bus_run, b) != 0) {
        fprintf(stderr, "agentmem serve: --cache: cannot start the bus thread\n");
        am__srv_bus_stop(b);
        return NULL;
    }
    b->started = 1;
    return b;
}

static void poke(srv_bus *b)
{
    ssize_t w = write(b->wake[1], "x", 1); /* full pipe: a wake is pending anyway */
    (void)w;
}

void am__srv_bus_stop(srv_bus *b)
{
    if (!b) return;
    pthread_mutex_lock(&b->mu);
    b->stopping = 1;
    b->gen++;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
    poke(b);
    if (b->started) pthread_join(b->thread, NULL);
    close(b->wake[0]);
    close(b->wake[1]);
    memset(&b->u, 0, sizeof b->u); /* the password */
    pthread_mutex_destroy(&b->mu);
    pthread_cond_destroy(&b->cv);
    free(b);
}

void am__srv_bus_committed(void *ctx, const am_memory_event *ev)
{
    srv_bus *b = ctx;
    pthread_mutex_lock(&b->mu);
    if (ev->seq > b->pending) b->pending = ev->seq;
    b->gen++;
    pthread_cond_broadcast(&b->cv);
    int need = !b->poked; /* one byte per wake of the bus thread, not per event */
    b->poked = 1;
    pthread_mutex_unlock(&b->mu);
    if (need) poke(b);
}

uint64_t am__srv_bus_gen(srv_bus *b)
{
    if (!b) return 0;
    pthread_mutex_lock(&b->mu);
    uint64_t g = b->gen;
    pthread_mutex_unlock(&b->mu);
    return g;
}

void am__srv_bus_wait(srv_bus *b, uint64_t seen)
{
    if (!b) {
        nanosleep(&(struct timespec){0, POLL_DOWN_MS * 1000000L}, NULL);
        return;
    }
    pthread_mutex_lock(&b->mu);
    long ms = b->up ? POLL_UP_MS : POLL_DOWN_MS;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    long long ns = until.tv_nsec + ms * 1000000LL;
    until.tv_sec += (time_t)(ns / 1000000000LL);
    until.tv_nsec = (long)(ns % 1000000000LL);
    while (b->gen == seen && !b->stopping)
        if (pthread_cond_timedwait(&b->cv, &b->mu, &until) == ETIMEDOUT) break;
    pthread_mutex_unlock(&b->mu);
}

void am__srv_bus_wake(srv_bus *b)
{
    if (!b) return;
    pthread_mutex_lock(&b->mu);
    b->gen++;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

int am__srv_bus_health(srv_bus *b, char *err, size_t n, long *notes_in, long *notes_out)
{
    pthread_mutex_lock(&b->mu);
    int up = b->up;
    snprintf(err, n, "%s", up ? "" : b->error);
    *notes_in = b->notes_in;
    *notes_out = b->notes_out;
    pthread_mutex_unlock(&b->mu);
    return up;
}

const char *am__srv_bus_instance(const srv_bus *b) { return b->instance; }

/* ------------------------------------------------------------ the webhook lease */

/* KEYS: the leader key, the cursor key; ARGV: instance, ttl ms, may
 * acquire without a cursor ("1"/"0").  Returns {state, cursor or ""}:
 * 1 renewed, 2 acquired, 0 another instance holds it (or may not take). */
static const char LEASE_LUA[] =
    "local v = redis.call('GET', KEYS[1]) "
    "local c = redis.call('GET', KEYS[2]) "
    "if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return {1, c or ''} end "
    "if (not v) and (c or ARGV[3] == '1') then "
    "  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return {2, c or ''} end "
    "return {0, c or ''}";
/* KEYS: leader, cursor; ARGV: instance, seq ("" : release the lease) */
static const char RECORD_LUA[] =
    "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end "
    "if ARGV[2] == '' then redis.call('DEL', KEYS[1]) "
    "else redis.call('SET', KEYS[2], ARGV[2]) end return 1";

int am__srv_bus_lease(srv_bus *b, redisContext **c, const char *group, int may_acquire, int ttl_ms,
                      int *state, int64_t *cursor, int *has_cursor, char *err, size_t n)
{
    char lk[96], ck[96];
    snprintf(lk, sizeof lk, "agentmem:hooks:%s:leader", group);
    snprintf(ck, sizeof ck, "agentmem:hooks:%s:seq", group);
    if (!*c && !(*c = am__srv_bus_connect(b, err, n))) return 1;
    redisReply *r = command(*c, err, n, "EVAL", "EVAL %s 2 %s %s %s %d %s", LEASE_LUA, lk, ck,
                            b->instance, ttl_ms, may_acquire ? "1" : "0");
    int bad = !r || r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
              r->element[0]->type != REDIS_REPLY_INTEGER || r->element[1]->type != REDIS_REPLY_STRING;
    if (!bad) {
        *state = (int)r->element[0]->integer;
        *has_cursor = r->element[1]->len > 0;
        if (*has_cursor && parse_seq(r->element[1]->str, r->element[1]->len, cursor)) bad = 1;
    }
    if (r && bad) snprintf(err, n, "EVAL: an answer that is not a lease");
    if (r) freeReplyObject(r);
    if (bad) {
        redisFree(*c);
        *c = NULL;
    }
    return bad;
}

int am__srv_bus_lease_record(srv_bus *b, redisContext **c, const char *group, int64_t seq, int *held,
                             char *err, size_t n)
{
    char lk[96], ck[96], v[24] = "";
    snprintf(lk, sizeof lk, "agentmem:hooks:%s:leader", group);
    snprintf(ck, sizeof ck, "agentmem:hooks:%s:seq", group);
    if (seq >= 0) snprintf(v, sizeof v, "%lld", (long long)seq);
    if (!*c && !(*c = am__srv_bus_connect(b, err, n))) return 1;
    redisReply *r = command(*c, err, n, "EVAL", "EVAL %s 2 %s %s %s %s", RECORD_LUA, lk, ck,
                            b->instance, v);
    int bad = !r || r->type != REDIS_REPLY_INTEGER;
    if (!bad) *held = r->integer == 1;
    if (r) freeReplyObject(r);
    if (bad) {
        redisFree(*c);
        *c = NULL;
    }
    return bad;
}
