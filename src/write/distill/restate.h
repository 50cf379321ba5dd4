/* SPDX-License-Identifier: Apache-2.0 */
/*
 * restate.h -- versions by attribute: what a sentence says about
 * which attribute of the user it states and whether it states a change.
 *
 * Read from the sentence's structure, not from the topic tables of
 * distill/rules.c:
 *  - the attribute noun: a possessive frame and the verb after it ("我的<血
 *    型>是", "我现在的<经理>是", "my <blood type> is", "my new <manager> is
 *    now") or a verb of change with the attribute as its object ("我换<工作>
 *    了", "换了辆<车>", "I changed <jobs>", "got a new <car>"); modifiers
 *    ("新", "new", "current") are dropped, past ones ("以前的", "former")
 *    mark a statement about the past;
 *  - a change: an explicit verb of replacing or moving ("改用", "换成",
 *    "switched to", "now prefer") or, weaker, "now" / "现在";
 *  - the old value named negatively ("不用微信", "而不是PDF", "instead of
 *    Slack", "not at Alibaba anymore", "switched from X"): a strong cue;
 *  - who speaks: the user as subject or owner, not a request ("帮我把…改成",
 *    "can you switch …") and not an intention ("我想换工作").
 * The write path keys a statement by its attribute (rules.c make_key) and
 * semantic/merge.c supersedes the old value (docs/VERSIONS.md).
 * Deterministic and allocation-free.
 */
#ifndef AM_DISTILL_RESTATE_H
#define AM_DISTILL_RESTATE_H

#include <stddef.h>

#define AM__RESTATE_NONE 0
#define AM__RESTATE_NOW 1    /* "now" / "现在" only */
#define AM__RESTATE_CHANGE 2 /* an explicit verb of change */

#define AM__ATTR_MAX 48
#define AM__OLD_MAX 64

typedef struct am__restate {
    int change;           /* AM__RESTATE_* */
    int first_person;     /* the user is the subject or owner */
    int request;          /* a request or an action on a thing */
    int intent;           /* an intention, not yet a change */
    int past;             /* the attribute is qualified as past ("以前的") */
    int event;            /* the noun is an event ("my flight", "我的航班"):
                             a one-time change, no attribute */
    int other;            /* the subject is another person ("我老板换车了",
                             "my sister moved"): their change, not the user's */
    int possessive;       /* the noun comes from "my X <verb>" / "我的X<verb>" */
    int copula;           /* ... and that verb is a copula (is, 是, 叫) */
    int ours;             /* ... and the owner is "our" / "我们": the team's */
    int now_copula;       /* ... a copula after "now" ("我的主管现在是…") */
    char noun[AM__ATTR_MAX];      /* the attribute ("blood_type", "车"), "" none */
    char old_value[AM__OLD_MAX];  /* the old value named negatively, "" none */
} am__restate;

/* Analyse one normalised (NFKC + case-folded) sentence. */
void am__distill_restate(const char *norm, size_t n, am__restate *out);

/* The profile key ("job", "home", "name", "birthday") a noun stands for,
 * or NULL. */
const char *am__distill_noun_profile_key(const char *noun);

/* 1 when the noun is a word of discourse ("my question is …"). */
int am__distill_noun_discourse(const char *noun);

#endif
