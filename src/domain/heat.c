/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heat.c -- recalls' heat written now, or kept for the handle's next
 * write transaction (heat.h has the design).
 */
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "domain/heat.h"

struct am__touches {
    size_t n, written; /* written: the first ones, in the open transaction */
    struct {
        char uid[AM_ID_MAX + 1];
        char lineage[AM_ID_MAX + 1];
        am_time at;
    } t[AM__HEAT_KEEP];
};

#define say(env, level, ...) am__say((env)->say, (env)->ctx, (level), __VA_ARGS__)

static void note(const am__heat_env *env, const char *uid)
{
    if (env->note) env->note(env->ctx, uid);
}

int am__heat_flush(const am__heat_env *env, am__touches *k)
{
    if (!k || !k->n) return AM_OK;
    k->written = 0;
    int rc = AM_OK;
    for (size_t i = 0; i < k->n && !rc; i++) {
        note(env, k->t[i].uid); /* heat moves what a recall shows */
        rc = env->store->vt->items.item_heat(env->store, k->t[i].uid, k->t[i].lineage, 1, 1,
                                             k->t[i].at);
    }
    if (!rc) k->written = k->n;
    return rc;
}

int am__heat_lock_writers(am__store *s, const am__touches *t, const char *const *uids, size_t n)
{
    enum { MAX = 64 };
    const char *all[MAX];
    size_t k = 0;
    for (size_t i = 0; i < n && k < MAX; i++) all[k++] = uids[i];
    for (size_t i = 0; t && i < t->n && k < MAX; i++) all[k++] = t->t[i].uid;
    return am__store_lock_users(s, all, k);
}

void am__heat_committed(am__touches *k)
{
    if (!k || !k->written) return;
    memmove(&k->t[0], &k->t[k->written], (k->n - k->written) * sizeof k->t[0]);
    k->n -= k->written;
    k->written = 0;
}

void am__heat_keep(const am__heat_env *env, am__touches **kept, const char *uid,
                   const char *const *lineages, size_t n, am_time at)
{
    if (!*kept && !(*kept = am__calloc(env->alloc, sizeof **kept))) {
        say(env, AM_LOG_DEBUG, "recall: %zu heat touches dropped (out of memory)", n);
        return;
    }
    am__touches *k = *kept;
    size_t dropped = 0;
    for (size_t i = 0; i < n; i++) {
        size_t lu = strlen(uid), ll = strlen(lineages[i]);
        if (k->n == AM__HEAT_KEEP || lu > AM_ID_MAX || ll > AM_ID_MAX) {
            dropped++;
            continue;
        }
        memcpy(k->t[k->n].uid, uid, lu + 1);
        memcpy(k->t[k->n].lineage, lineages[i], ll + 1);
        k->t[k->n].at = at;
        k->n++;
    }
    say(env, AM_LOG_DEBUG, "recall: write lock busy: %zu heat touches deferred (%zu kept)%s",
        n - dropped, k->n, dropped ? ", some dropped" : "");
}

int am__heat_write(const am__heat_env *env, am__touches *kept, const char *uid,
                   const char *const *lineages, size_t n, am_time at)
{
    am__store *s = env->store;
    int rc = am__store_try_begin(s);
    if (rc) return rc;
    rc = am__heat_flush(env, kept);
    if (n) note(env, uid);
    for (size_t i = 0; i < n && !rc; i++)
        rc = s->vt->items.item_heat(s, uid, lineages[i], 1, 1, at);
    if (!rc) rc = am__store_commit(s);
    if (env->ended) env->ended(env->ctx);
    if (rc) {
        am__store_rollback(s);
        if (kept) kept->written = 0;
        return rc;
    }
    am__heat_committed(kept);
    return AM_OK;
}

void am__heat_close(const am__heat_env *env, am__touches **kept)
{
    am__touches *k = *kept;
    if (!k) return;
    if (k->n && env->store && am__heat_write(env, k, "", NULL, 0, 0) != AM_OK)
        say(env, AM_LOG_DEBUG, "close: write lock busy: %zu heat touches dropped", k->n);
    am__free(env->alloc, k);
    *kept = NULL;
}

void am__heat_drop(am__touches *k, const char *uid)
{
    if (!k) return;
    size_t w = 0;
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->t[i].uid, uid) != 0) k->t[w++] = k->t[i];
    k->n = w;
    k->written = 0;
}
