/* SPDX-License-Identifier: Apache-2.0 */
/*
 * statement.c -- a memory the application states (am_memory_add, an
 * import of mem0's memories) as a statement for the semantic layer
 * (write.h am__write_statement).
 */
#include <string.h>

#include "write/semantic/merge.h"
#include "text/expiry.h"
#include "write/write.h"

int am__write_statement(const am__write_env *env, int default_tz_minutes,
                        const am_memory_input *in, am__arena *ar, const char *source,
                        const char *extra, am__statement *st)
{
    am__distill d, prev;
    memset(&prev, 0, sizeof prev);
    size_t n = strlen(in->text);
    int rc = am__write_distill(env->text, env->alloc, in->text, n, NULL, &prev, &d);
    if (rc) return rc;
    int read = d.action == AM__D_PERSIST && d.kind && d.key[0];
    memset(st, 0, sizeof *st);
    st->kind = in->kind ? in->kind : read ? d.kind : "fact";
    st->scope = in->scope ? in->scope : "global";
    st->text = in->text;
    /* the application's word is final: it supersedes any confidence */
    st->confidence = 1.0;
    st->event_id = source;
    st->origin = source;
    /* its end: the one given, else one its words name from now (an
     * application's memory, not an import's: that text was said earlier) */
    if (in->expires_at) {
        if (am__time_parse(in->expires_at, &st->expires_at, NULL, NULL) != AM_OK) return AM_INVALID;
    } else if (strcmp(source, AM__SOURCE_API) == 0) {
        am_time end;
        if (am__text_expiry(in->text, n, env->now(env->ctx), default_tz_minutes, &end))
            st->expires_at = end;
    }
    if (in->key) {
        st->key = in->key;
        st->own_key = 1;
    } else if (read) {
        st->key = am__arena_strdup(ar, d.key);
        /* the reading's change of a value: the rules of a user's turn */
        st->restated = d.restated;
        st->old_value = d.old_value[0] ? am__arena_strdup(ar, d.old_value) : NULL;
        st->topic = d.topic;
        st->whose = d.whose;
    } else {
        am__buf norm;
        am__buf_init(&norm, env->alloc);
        char key[96];
        rc = am__text_normalize(env->text, in->text, n, &norm);
        if (!rc) am__distill_readable_key(norm.p ? norm.p : "", norm.len, d.topic, d.whose, key);
        am__buf_free(&norm);
        if (rc) return rc;
        st->key = am__arena_strdup(ar, key[0] ? key : "note");
    }
    am__buf v;
    am__buf_init(&v, env->alloc);
    am__buf_adds(&v, "{\"statement\":");
    am__buf_json_str(&v, in->text);
    am__buf_printf(&v, ",\"source\":\"%s\",\"lang\":\"%s\"%s%s}", source,
                   am__text_lang(in->text, n) >= AM_LANG_ZH ? "zh" : "en", extra ? "," : "",
                   extra ? extra : "");
    st->value_json = v.oom ? NULL : am__arena_strndup(ar, v.p, v.len);
    am__buf_free(&v);
    return st->key && st->value_json ? AM_OK : AM_NOMEM;
}
