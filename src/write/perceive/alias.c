/* SPDX-License-Identifier: Apache-2.0 */
/*
 * alias.c -- speakers called by another name (entity linking).
 *
 * A transcript line that greets its listener by a name ("elise: Hello
 * Kate!") and is answered by another speaker in the same exchange ("Emi:
 * …", the event being written) says what that speaker is called: an
 * "alias" entity of the greeting's event, norm "kate=emi" (the name and
 * the answering speaker's label, lower case), surface the name as
 * written.  The lines of the other speaker just before this one, within
 * half an hour (a chat's answer can take minutes), are looked at (a
 * greeting is often followed by more of the same speaker), each at most
 * once: a greeting that already has an alias was answered before.  A name
 * that is one of the two speakers' own labels is no alias.  The alias goes
 * when its event is forgotten; recall counts a user's aliases.
 */
#include "write/perceive/perceive.h"

#include <stdio.h>
#include <string.h>

#include "text/speaker.h"

#define AM__ALIAS_GAP_MS (30 * 60 * 1000) /* an answer within half an hour */

/* prev[0..np): the session's lines before this one, newest first (the
 * context window's read, AM__ALIAS_TURNS deep for a transcript line). */
int am__perceive_alias(am__perceive *x, const char *text, const am__event_row *prev, size_t np,
                       am_time at)
{
    char self[48], other[48], label[48], name[64], norm[128];
    if (!np || !am__speaker_label(text, self, sizeof self)) return AM_OK;
    other[0] = '\0';
    for (size_t i = 0; i < np; i++) {
        if (at - prev[i].occurred_at > AM__ALIAS_GAP_MS) break;
        if (!prev[i].content || !am__speaker_label(prev[i].content, label, sizeof label)) break;
        if (strcmp(label, self) == 0) break; /* this speaker's own earlier line */
        if (other[0] && strcmp(label, other) != 0) break;
        memcpy(other, label, sizeof other);
        if (!am__greeted_name(prev[i].content, name, sizeof name)) continue;
        size_t k = 0;
        for (; name[k] && k + 1 < sizeof norm; k++)
            norm[k] = name[k] >= 'A' && name[k] <= 'Z' ? (char)(name[k] | 0x20) : name[k];
        norm[k] = '\0';
        if (strcmp(norm, self) == 0 || strcmp(norm, other) == 0) continue; /* a real name */
        am__entity_row *have;
        size_t nh;
        int rc = am__store_entities_list(x->w.store, x->w.uid, prev[i].rid, x->w.ar, &have, &nh);
        if (rc) return rc;
        size_t j;
        for (j = 0; j < nh && strcmp(have[j].type, "alias") != 0; j++) {}
        if (j < nh) continue; /* answered before */
        snprintf(norm + k, sizeof norm - k, "=%s", self);
        am__entity_row row = {"alias", name, norm, AM_TIME_NONE, AM_TIME_NONE};
        if ((rc = am__store_entity_put(x->w.store, x->w.uid, prev[i].rid, &row))) return rc;
    }
    return AM_OK;
}
