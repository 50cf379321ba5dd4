/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log.h -- structured log records (am_config.log_record, docs/SERVER.md
 * "Logs").  A record is an event name and typed fields built on the
 * stack (no allocation) and handed to the handle's hooks: the record hook
 * when set, else the text hook as one "event key=value ..." line.  No
 * state of its own: the hooks come from each handle's config.
 *
 * Who logs what: the entry layer (api/) emits every record -- a write's
 * statements and the write itself (api/write.c), a recall with what its
 * stages counted and timed (api/read.c over recall/pipeline.h's trace),
 * feedback and forgets -- so the layers below never call up.  Ids are
 * opaque (event and item ids, key ids from am__store_key_id); the user's
 * words go in only through am__logrec_text, which drops them unless the
 * config asked for content.
 */
#ifndef AM_BASE_LOG_H
#define AM_BASE_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "agentmem.h"

typedef struct am__log {
    void (*text)(void *ctx, int level, const char *msg);
    void (*record)(void *ctx, const am_log_record *rec);
    void *ctx;
    int content; /* AM_LOG_TEXT fields are kept */
} am__log;

#define AM__LOG_FIELDS 64
#define AM__LOG_SCRATCH 1024

typedef struct am__logrec {
    const am__log *log;
    am_log_record rec;
    am_log_field f[AM__LOG_FIELDS];
    char scratch[AM__LOG_SCRATCH]; /* am__logrec_strf's strings */
    size_t used;
} am__logrec;

/* 1 when a hook listens (build a record only then). */
int am__log_on(const am__log *l);
void am__logrec_begin(am__logrec *r, const am__log *l, int level, const char *event, am_time at);
/* Fields past AM__LOG_FIELDS, or strf strings past the scratch space, are
 * dropped (a record is never cut in the middle of a value). */
void am__logrec_str(am__logrec *r, const char *key, const char *s);
void am__logrec_int(am__logrec *r, const char *key, int64_t i);
void am__logrec_real(am__logrec *r, const char *key, double d);
/* The user's words: kept only when the log asks for content. */
void am__logrec_text(am__logrec *r, const char *key, const char *s);
void am__logrec_strf(am__logrec *r, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Hand the record to the hooks. */
void am__logrec_emit(am__logrec *r);

/* A plain text line for a layer's say hook (void (*say)(ctx, level,
 * msg), the handle's text log seen from below api/): formatted into a
 * line of at most 1023 bytes; nothing when say is NULL. */
void am__say(void (*say)(void *ctx, int level, const char *msg), void *ctx, int level,
             const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* A monotonic clock in microseconds, for latencies (never the injected
 * clock, which tests move). */
int64_t am__mono_us(void);

/* The text line of a record ("recall route=semantic_first reason=default
 * query=\"...\""), cut at cap - 1 bytes; the text hook's form. */
void am__log_format(const am_log_record *rec, char *out, size_t cap);

#endif
