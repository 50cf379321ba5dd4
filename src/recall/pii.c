/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pii.c -- PII values found through the vault (the read side; part
 * of the hops stage).
 */
#include <string.h>

#include "recall/pipeline.h"
#include "text/redact.h"

/* The read side: a question that names a phone number, an e-mail
 * address, an ID or a card number ("那个联系电话是155…的人，其生日是？",
 * "who has the e-mail …?") cannot find the turn that said it by its words:
 * the write path put a placeholder ("[PHONE_1]") in the value's place
 * before indexing.  The question is redacted the same way and each value
 * it names is looked up in the user's vault, compared in canonical form
 * (digits only, e-mail lower-cased); the events that held it come first
 * (at most AM__PII_MATCHES, newest first), as the question's most
 * specific word -- and as a bridge to what it asks about that person.
 * The store hands over the rows that may hold the value (an index probe on
 * a keyed hash of its canonical form: store/sqlite/pii_index.c); each is
 * compared here, so a hash collision is no match.
 * The value stays in the vault: a recall returns the redacted turn. */
#define AM__PII_MATCHES 4
#define AM__PII_SCAN 4096 /* candidate vault rows read for a value */
int am__recall_pii_matches(const am__recall_env *env, const char *uid, const char *text, size_t len, am_time to,
                       am__arena *ar, am__event_row **events, size_t *n_events)
{
    am__redact_result red;
    int rc = am__redact(env->alloc, text, len, &env->redact, &red);
    if (rc) return rc;
    int64_t hit_rid[AM__PII_MATCHES];
    size_t nh = 0;
    for (size_t i = 0; i < red.n && nh < AM__PII_MATCHES && !rc; i++) {
        if (!red.items[i].original) continue;
        char want[AM__PII_CANON_MAX], got[AM__PII_CANON_MAX];
        const char *orig = red.items[i].original;
        if (am__pii_canonical(orig, strlen(orig), red.items[i].type, want) == 0) continue;
        int64_t *rids;
        const char **vals;
        size_t nr;
        rc = am__store_pii_events(env->store, uid, am__pii_type_name(red.items[i].type), want, to,
                                  AM__PII_SCAN, ar, &rids, &vals, &nr);
        for (size_t k = 0; !rc && k < nr && nh < AM__PII_MATCHES; k++) {
            am__pii_canonical(vals[k], strlen(vals[k]), red.items[i].type, got);
            if (strcmp(want, got) != 0) continue;
            size_t j;
            for (j = 0; j < nh && hit_rid[j] != rids[k]; j++) {}
            if (j == nh) hit_rid[nh++] = rids[k];
        }
    }
    am__redact_result_free(env->alloc, &red);
    if (rc || nh == 0) return rc;
    /* the rows of the matches (the user's: the vault's join said so) */
    am__event_row hit[AM__PII_MATCHES];
    unsigned char found[AM__PII_MATCHES];
    memset(hit, 0, sizeof hit);
    memset(found, 0, sizeof found);
    if ((rc = env->store->vt->events.rows_get(env->store, uid, hit_rid, nh, ar, hit, found)))
        return rc;
    size_t kept = 0;
    for (size_t j = 0; j < nh; j++)
        if (found[j]) hit[kept++] = hit[j];
    nh = kept;
    if (nh == 0) return AM_OK;
    size_t m = *n_events;
    am__event_row *all = am__arena_alloc(ar, (m + nh + 1) * sizeof *all);
    if (!all) return AM_NOMEM;
    double top = m && (*events)[0].score > 1.0 ? (*events)[0].score : 1.0;
    size_t w = 0;
    for (size_t j = 0; j < nh; j++) {
        all[w] = hit[j];
        all[w++].score = top + 1e-3 * (double)(nh - j);
    }
    for (size_t i = 0; i < m; i++) {
        size_t j;
        for (j = 0; j < nh && hit[j].rid != (*events)[i].rid; j++) {}
        if (j == nh) all[w++] = (*events)[i];
    }
    *events = all;
    *n_events = w;
    return AM_OK;
}

