/* SPDX-License-Identifier: Apache-2.0 */
/*
 * item_value.c -- reading one plain string field of an item version's
 * value (the JSON the write path stores beside its text: "topic",
 * "source", "lang"), common to the recall side (rank.c, profile.c) and
 * the lifecycle (lifecycle/report.c); an item's topic and its origin;
 * the row a backend gives for items_list AM__ITEMS_SOURCES.
 */
#include <stdio.h>
#include <string.h>

#include "store/store.h"
#include "text/understand.h"

int am__item_value_str(const am__item_row *it, const char *field, char *out, size_t cap)
{
    char pat[40];
    int k = snprintf(pat, sizeof pat, "\"%s\":\"", field);
    if (k <= 0 || (size_t)k >= sizeof pat || !it->value_json) return 0;
    const char *v = strstr(it->value_json, pat);
    if (!v) return 0;
    v += k;
    size_t n = strcspn(v, "\"");
    if (n == 0 || n >= cap) return 0;
    memcpy(out, v, n);
    out[n] = 0;
    return 1;
}

int am__item_origin(const am__item_row *it, char *out, size_t cap)
{
    if (it->origin && *it->origin) {
        int k = snprintf(out, cap, "%s", it->origin);
        if (k > 0 && (size_t)k < cap) return 1;
    } else if (am__item_value_str(it, "source", out, cap)) {
        return 1;
    }
    snprintf(out, cap, "unknown");
    return 0;
}

const char *am__item_topic_label(const am__item_row *it)
{
    const am__und_head *h = &am__und_heads[AM_UND_TOPIC];
    char t[32];
    int k = am__item_value_str(it, "topic", t, sizeof t) ? am__und_label(AM_UND_TOPIC, t) : -1;
    if (k >= 0) return h->labels[k];
    float p[AM_UND_OUTPUTS];
    am__und_probs(it->text ? it->text : "", it->text ? strlen(it->text) : 0, p);
    k = 0;
    for (int i = 1; i < h->n; i++)
        if (p[h->offset + i] > p[h->offset + k]) k = i;
    return h->labels[k];
}

int am__item_sources_row(am__store *s, const char *uid, int64_t rid, am__arena *ar,
                         am__item_row **rows, size_t *n,
                         int (*fn)(am__store *s, const char *uid, int64_t rid, am__arena *ar,
                                   const char ***ids, size_t *n))
{
    *rows = NULL;
    *n = 0;
    am__item_row *r = am__arena_alloc(ar, sizeof *r);
    if (!r) return AM_NOMEM;
    r->rid = rid;
    int rc = fn(s, uid, rid, ar, &r->sources, &r->n_sources);
    if (rc) return rc;
    *rows = r;
    *n = 1;
    return AM_OK;
}
