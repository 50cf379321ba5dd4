/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log.c -- structured log records: built on the stack, handed to the
 * handle's hooks (log.h).
 */
#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int64_t am__mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int am__log_on(const am__log *l) { return l && (l->record || l->text); }

void am__logrec_begin(am__logrec *r, const am__log *l, int level, const char *event, am_time at)
{
    r->log = l;
    r->rec.level = level;
    r->rec.event = event;
    r->rec.at = at;
    r->rec.fields = r->f;
    r->rec.n_fields = 0;
    r->used = 0;
}

static am_log_field *field(am__logrec *r, const char *key, int type)
{
    if (r->rec.n_fields >= AM__LOG_FIELDS) return NULL;
    am_log_field *f = &r->f[r->rec.n_fields++];
    memset(f, 0, sizeof *f);
    f->key = key;
    f->type = type;
    return f;
}

void am__logrec_str(am__logrec *r, const char *key, const char *s)
{
    am_log_field *f = field(r, key, AM_LOG_STR);
    if (f) f->s = s;
}

void am__logrec_int(am__logrec *r, const char *key, int64_t i)
{
    am_log_field *f = field(r, key, AM_LOG_INT);
    if (f) f->i = i;
}

void am__logrec_real(am__logrec *r, const char *key, double d)
{
    am_log_field *f = field(r, key, AM_LOG_REAL);
    if (f) f->d = d;
}

void am__logrec_text(am__logrec *r, const char *key, const char *s)
{
    if (!r->log || !r->log->content || !s) return;
    am_log_field *f = field(r, key, AM_LOG_TEXT);
    if (f) f->s = s;
}

void am__logrec_strf(am__logrec *r, const char *key, const char *fmt, ...)
{
    size_t room = sizeof r->scratch - r->used;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(r->scratch + r->used, room, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= room) {
        r->scratch[r->used] = '\0';
        return; /* dropped whole */
    }
    const char *s = r->scratch + r->used;
    r->used += (size_t)n + 1;
    am__logrec_str(r, key, s);
}

typedef struct line {
    char *p;
    size_t len, cap;
} line;

static void put(line *l, const char *s, size_t n)
{
    if (l->len + 1 >= l->cap) return;
    size_t room = l->cap - 1 - l->len;
    if (n > room) n = room;
    memcpy(l->p + l->len, s, n);
    l->len += n;
    l->p[l->len] = '\0';
}

static void putf(line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(line *l, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) put(l, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* A value bare when it has no space, quote, '=' or control byte, else
 * quoted with \" \\ \n \t escaped. */
static void put_value(line *l, const char *s)
{
    if (!s) {
        put(l, "-", 1);
        return;
    }
    int bare = *s != '\0';
    for (const char *c = s; *c && bare; c++)
        if (*c == ' ' || *c == '"' || *c == '=' || *c == '\\' || (unsigned char)*c < 0x20)
            bare = 0;
    if (bare) {
        put(l, s, strlen(s));
        return;
    }
    put(l, "\"", 1);
    for (const char *c = s; *c; c++) {
        if (*c == '"' || *c == '\\') {
            char e[2] = {'\\', *c};
            put(l, e, 2);
        } else if (*c == '\n') put(l, "\\n", 2);
        else if (*c == '\t') put(l, "\\t", 2);
        else if ((unsigned char)*c < 0x20) putf(l, "\\x%02x", (unsigned)(unsigned char)*c);
        else put(l, c, 1);
    }
    put(l, "\"", 1);
}

void am__log_format(const am_log_record *rec, char *out, size_t cap)
{
    if (!cap) return;
    line l = {out, 0, cap};
    out[0] = '\0';
    put(&l, rec->event, strlen(rec->event));
    for (size_t i = 0; i < rec->n_fields; i++) {
        const am_log_field *f = &rec->fields[i];
        put(&l, " ", 1);
        put(&l, f->key, strlen(f->key));
        put(&l, "=", 1);
        switch (f->type) {
        case AM_LOG_INT: putf(&l, "%lld", (long long)f->i); break;
        case AM_LOG_REAL: putf(&l, "%.4g", f->d); break;
        default: put_value(&l, f->s); break;
        }
    }
}

char *am_log_format(const am_log_record *rec, char *out, size_t cap)
{
    if (rec && out) am__log_format(rec, out, cap);
    else if (out && cap) out[0] = '\0';
    return out;
}

void am__logrec_emit(am__logrec *r)
{
    const am__log *l = r->log;
    if (!am__log_on(l)) return;
    if (l->record) {
        l->record(l->ctx, &r->rec);
        return;
    }
    char msg[2048];
    am__log_format(&r->rec, msg, sizeof msg);
    l->text(l->ctx, r->rec.level, msg);
}

void am__say(void (*say)(void *ctx, int level, const char *msg), void *ctx, int level,
             const char *fmt, ...)
{
    if (!say) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    say(ctx, level, msg);
}
