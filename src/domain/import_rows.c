/* SPDX-License-Identifier: Apache-2.0 */
/*
 * import_rows.c -- the rows an import adds that the document does not
 * carry, made as a write makes them (import.h): an event's language,
 * token set, index document and its date entities' times; the order of
 * mem0's memories and what of them an item's value keeps.
 */
#include <string.h>

#include "domain/import.h"
#include "text/analyze.h"
#include "text/entities.h"

#define MAX_ENTITIES 64

/* The times of an event's date entities: its content's entities found
 * again at its time, matched by type and norm. */
static void entity_times(const am__event_row *ev, am__entity_row *en, size_t n)
{
    am__entity found[MAX_ENTITIES];
    size_t nf = 0;
    if (am__entities_extract(ev->content, strlen(ev->content), ev->occurred_at, ev->tz_minutes,
                             found, MAX_ENTITIES, &nf))
        return;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < nf; k++)
            if (strcmp(am__ent_type_name(found[k].type), en[i].type) == 0 &&
                strcmp(found[k].norm, en[i].norm) == 0) {
                en[i].from = found[k].from;
                en[i].to = found[k].to;
                break;
            }
}

int am__import_event_row(am__text *text, am__arena *ar, const am__imp_event *in,
                         const char *content, const char *uid, am_time now, am__event_row *ev,
                         am__entity_row **ents_out, am__buf *doc, int *analysed)
{
    int rc;
    size_t clen = strlen(content);
    int lang = am__text_lang(content, clen);
    uint64_t set[AM__EVENT_SET];
    size_t nset = 0;
    unsigned char *blob = am__arena_alloc(ar, AM__EVENT_TOKBLOB_MAX);
    am__entity_row *ents = in->n_entities ? am__arena_alloc(ar, in->n_entities * sizeof *ents) : NULL;
    if (!blob || (in->n_entities && !ents)) return AM_NOMEM;
    if ((rc = am__text_token_set(text, content, clen, set, AM__EVENT_SET, &nset))) {
        *analysed = 0;
        return rc;
    }
    ev->content = content;
    ev->user_id = uid;
    ev->lang = lang == AM_LANG_ZH ? "zh" : lang == AM_LANG_MIXED ? "mixed" : "en";
    ev->ingested_at = now;
    ev->tokens = blob;
    ev->tokens_len = am__token_blob_put_n(set, nset, AM__EVENT_SET, blob);
    /* the index document: content and the entities' norms, as a write's */
    am__buf_adds(doc, content);
    for (size_t k = 0; k < in->n_entities; k++) {
        ents[k] = in->entities[k];
        am__buf_addc(doc, ' ');
        am__buf_adds(doc, ents[k].norm);
    }
    if (doc->oom) return AM_NOMEM;
    ev->index_doc = doc->p;
    entity_times(ev, ents, in->n_entities);
    *ents_out = ents;
    return AM_OK;
}

void am__import_mem0_order(const am__imp_mem0 *rows, size_t n, am_time now, size_t *order)
{
    for (size_t i = 0; i < n; i++) {
        am_time t = rows[i].created_at != AM_TIME_NONE ? rows[i].created_at : now;
        size_t k = i;
        for (; k > 0; k--) {
            const am__imp_mem0 *p = &rows[order[k - 1]];
            if ((p->created_at != AM_TIME_NONE ? p->created_at : now) <= t) break;
            order[k] = order[k - 1];
        }
        order[k] = i;
    }
}

/* mem0's id, metadata and updated_at as members of the item's value */
const char *am__import_mem0_extra(const am__allocator *a, am__arena *ar, const am__imp_mem0 *m)
{
    am__buf b;
    am__buf_init(&b, a);
    am__buf_adds(&b, "\"mem0\":{\"id\":");
    if (m->id) am__buf_json_str(&b, m->id);
    else am__buf_adds(&b, "null");
    am__buf_adds(&b, ",\"metadata\":");
    am__buf_adds(&b, m->metadata_json ? m->metadata_json : "null");
    am__buf_adds(&b, ",\"updated_at\":");
    if (m->updated_at) am__buf_json_str(&b, m->updated_at);
    else am__buf_adds(&b, "null");
    am__buf_addc(&b, '}');
    const char *out = b.oom ? NULL : am__arena_strndup(ar, b.p, b.len);
    am__buf_free(&b);
    return out;
}
