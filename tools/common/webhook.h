/* SPDX-License-Identifier: Apache-2.0 */
/*
 * webhook.h -- memory events posted to webhooks (docs/EVENTS.md), for
 * the server: each event JSON is POSTed to every configured URL, signed,
 * retried with backoff, from a thread per URL, so the caller (the thread
 * that committed the write) never waits for a receiver.
 *
 * Signing: with the shared secret, the request carries
 *   X-Agentmem-Timestamp: <unix seconds>
 *   X-Agentmem-Signature: sha256=<hex HMAC-SHA256(secret, timestamp "." body)>
 *   X-Agentmem-Delivery: <id, the same on every retry of one delivery>
 * A receiver recomputes the HMAC over the timestamp, a dot and the raw
 * body, compares in constant time and refuses a timestamp more than a few
 * minutes off its clock (a replayed request); the delivery id and the
 * event's seq let it drop duplicates (a retry after a lost answer).
 *
 * Retries: a 5xx, 408 or 429 answer, a timeout or a connection error is
 * retried up to max_attempts in all, waiting base_delay_ms * 2^(n-1)
 * (capped at max_delay_ms) with full jitter (a random part of it, at
 * least half) before attempt n+1; any other answer ends the delivery
 * (2xx delivered, 4xx refused).  A URL's queue holds at most queue_max
 * events; posting to a full queue drops the oldest (counted).
 */
#ifndef AM_WEBHOOK_H
#define AM_WEBHOOK_H
#include <stddef.h>

typedef struct am_webhook am_webhook;

typedef struct am_webhook_opts {
    int max_attempts;    /* default 6 */
    int base_delay_ms;   /* default 500 */
    int max_delay_ms;    /* default 30000 */
    int timeout_ms;      /* one request, default 5000 */
    size_t queue_max;    /* events waiting per URL, default 10000 */
    int drain_ms;        /* am_webhook_free waits this long at most, default 10000 */
} am_webhook_opts;

typedef struct am_webhook_stats {
    long delivered;      /* answered 2xx */
    long failed;         /* given up (attempts spent, or refused) */
    long retries;        /* attempts after a first one */
    long dropped;        /* pushed out of a full queue, or left at free */
} am_webhook_stats;

/* urls: one or more http(s) URLs separated by commas or spaces; secret:
 * the shared signing secret (non-empty).  opts NULL: the defaults.  NULL
 * on a bad URL list, an empty secret or out of memory (err, when not
 * NULL, receives a static reason). */
am_webhook *am_webhook_new(const char *urls, const char *secret);
am_webhook *am_webhook_new_opts(const char *urls, const char *secret,
                                const am_webhook_opts *opts, const char **err);

/* Queue one event (its JSON, copied) for every URL; never blocks on the
 * network.  0, or -1 (NULL argument, out of memory). */
int am_webhook_post(am_webhook *hook, const char *json);

/* Counters summed over the URLs. */
void am_webhook_get_stats(am_webhook *hook, am_webhook_stats *out);

/* Deliver what is queued (for drain_ms at most: retries still waiting
 * then are abandoned and counted dropped), stop the threads, free.  NULL
 * is a no-op. */
void am_webhook_free(am_webhook *hook);

#endif
