/* SPDX-License-Identifier: Apache-2.0 */
/*
 * event.c -- an event's row as the caller gave it (write.h
 * am__write_event_row) and the fingerprint of what was given
 * (am__write_fingerprint).
 */
#include <string.h>

#include "write/write.h"

/* What the caller gave for an event (every field but the identity, which
 * picks the user the id belongs to), as one 64-bit fingerprint: adding an
 * event with a known id compares it to tell a re-run from a clash.  The
 * time counts only when given (a re-run without one comes later). */
int am__write_fingerprint(const am__allocator *a, const am_event *in, am_time at, int64_t *out)
{
    const char *const f[] = {in->agent_id, in->session_id, in->task_id, in->source, in->type,
                             in->domain,   in->intent,     in->channel, in->text};
    am__buf b;
    am__buf_init(&b, a);
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        if (f[i]) am__buf_add(&b, f[i], strlen(f[i]) + 1); /* with its NUL */
        else am__buf_addc(&b, '\x1f');                     /* never inside an id or text */
    }
    if (in->occurred_at) am__buf_printf(&b, "@%lld", (long long)at);
    if (in->metadata_json) { /* (absent: the fingerprint of before) */
        am__buf_addc(&b, '#');
        am__buf_adds(&b, in->metadata_json);
    }
    int rc = b.oom ? AM_NOMEM : AM_OK;
    if (!rc) *out = (int64_t)am__hash64(b.p, b.len);
    am__buf_free(&b);
    return rc;
}

static const char *default_type(const char *source)
{
    if (strcmp(source, "agent") == 0) return "response";
    if (strcmp(source, "tool") == 0) return "tool_result";
    return "query";
}

void am__write_event_row(am__event_row *ev, const am_event *in, const char *id, const char *uid,
                         const char *content, am_time at, int tz, am_time ingested_at,
                         int64_t fp, const char *meta, int lang)
{
    memset(ev, 0, sizeof *ev);
    ev->id = id;
    ev->user_id = uid;
    ev->agent_id = in->agent_id;
    ev->session_id = in->session_id;
    ev->channel = in->channel;
    ev->source = in->source ? in->source : "user";
    ev->type = in->type ? in->type : default_type(ev->source);
    ev->content = content;
    ev->domain = in->domain;
    ev->intent = in->intent;
    ev->occurred_at = at;
    ev->tz_minutes = tz;
    ev->ingested_at = ingested_at;
    ev->client_id = in->event_id;
    ev->client_hash = fp;
    ev->metadata = meta;
    ev->lang = lang == AM_LANG_ZH ? "zh" : lang == AM_LANG_MIXED ? "mixed" : "en";
}
