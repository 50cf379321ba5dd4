/* SPDX-License-Identifier: Apache-2.0 */
/*
 * packs.h -- cold-start rule packs: a JSON file of rules an operator
 * gives every user of a role, region or channel before they have said
 * anything (docs/PACKS.md).
 *
 * A pack applied to a user becomes memory items of kind `rule` in the
 * scope `pack:<name>` -- a scope no statement of the user is ever merged
 * into, so a pack never supersedes, reinforces or invalidates what the
 * user said, nor the other way round -- whose provenance is
 * "pack:<name>@<version>" (their source, in place of an event id), and a
 * row of `user_packs` holding the pack as applied.  Recall shows them in
 * a section of their own (recall/filter.c, render.c) and hides a rule
 * while the user has an item of the same key: the user's word wins, and
 * the rule is back when that item goes.
 *
 * The parser refuses a pack whole (every bad field named, nothing
 * applied); apply and remove run in the caller's write transaction.
 */
#ifndef AM_LIFECYCLE_PACKS_H
#define AM_LIFECYCLE_PACKS_H

#include "write/perceive/perceive.h" /* am__wctx */
#include "store/store.h"

#define AM__PACK_BYTES_MAX (256 * 1024) /* a pack file */
#define AM__PACK_RULES_MAX 200
#define AM__PACK_NAME_MAX 64      /* name: letters, digits, '_', '-', '.' */
#define AM__PACK_VERSION_MAX 32   /* version: the same characters */
#define AM__PACK_ATTR_MAX 64      /* applies_to's values */
#define AM__PACK_KEY_MAX 95       /* a rule's key (a memory key) */
#define AM__PACK_TEXT_MAX 1000    /* a rule's text, bytes */
#define AM__PACK_ERRORS_MAX 8     /* bad fields named in one message */

typedef struct am__pack_rule {
    const char *kind; /* rule, preference or constraint: what the rule says */
    const char *key;  /* the attribute it sets (NULL: read from the text) */
    const char *text, *lang;
} am__pack_rule;

typedef struct am__pack {
    const char *name, *version;
    const char *role, *region, *channel; /* applies_to (NULL: any) */
    am__pack_rule *rules;
    size_t n_rules;
    const char *json; /* canonical: keys sorted, compact */
} am__pack;

/* Parse and check a pack (text: len bytes, not NUL-terminated needed).
 * AM_OK; AM_INVALID or AM_TOOBIG with why ("rules[3].kind: expected rule,
 * preference or constraint; name: is missing", at most
 * AM__PACK_ERRORS_MAX of them, never the pack's own text beyond a field
 * name); AM_NOMEM.  Strings in ar. */
int am__pack_parse(const char *text, size_t len, am__arena *ar, am__pack *p, char *why,
                   size_t cap);

/* The scope of a pack's items ("pack:" + name) and their source
 * ("pack:name@version"), in ar; NULL on no memory. */
const char *am__pack_scope(am__arena *ar, const char *name);
const char *am__pack_source(am__arena *ar, const char *name, const char *version);

/* What applying a pack did to one user. */
#define AM__PACK_APPLIED 1   /* it was not applied before */
#define AM__PACK_REPLACED 2  /* another version's rules replaced */
#define AM__PACK_UNCHANGED 3 /* this version was applied already: nothing written */
#define AM__PACK_CONFLICT 4  /* this version was applied with other rules: nothing written */

/* Apply p to w->uid: keys[i] is rules[i]'s key (the rule's, or the one
 * the caller read from its text; distinct).  *items: the items written. */
int am__pack_apply_user(am__wctx *w, const am__pack *p, const char *const *keys, int *outcome,
                        long *items);

/* Remove pack `name` from w->uid: every version of its items (as a
 * memory delete: audited, a memory.forgotten event each) and its row.
 * AM_NOTFOUND when the user has no such pack.  *items: the items gone. */
int am__pack_remove_user(am__wctx *w, const char *name, long *items);

#endif
