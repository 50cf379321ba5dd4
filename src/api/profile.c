/* SPDX-License-Identifier: Apache-2.0 */
/*
 * profile.c -- am_profile: the arguments checked, the user's current item
 * versions the asker may see listed, the card made by recall/profile.c,
 * the result boxed in one arena.  A read: nothing is written (no heat).
 */
#include <string.h>

#include "api/db_int.h"
#include "recall/access.h"
#include "recall/recall.h"

typedef struct profile_box {
    am_profile_card pub;
    am__arena ar;
    am__allocator alloc;
} profile_box;

void am_profile_free(am_profile_card *p)
{
    if (!p) return;
    profile_box *b = (profile_box *)p;
    am__allocator a = b->alloc;
    am__arena_free(&b->ar);
    am__free(&a, b);
}

int am_profile(am_db *db, const am_profile_query *q, am_profile_card **out)
{
    if (!db || !q || !out) return AM_MISUSE;
    *out = NULL;
    am__db_clear_error(db);
    const char *why;
    if ((why = am__id_check(q->user_id))) return am__db_error(db, AM_INVALID, "profile: user %s", why);
    if (q->agent_id && am__db_check_id(db, "profile", "agent", q->agent_id)) return AM_INVALID;
    if (q->role && am__db_check_id(db, "profile", "role", q->role)) return AM_INVALID;
    if (q->budget_tokens < 0 || q->budget_tokens > AM_PROFILE_BUDGET_MAX)
        return am__db_error(db, AM_INVALID, "profile: budget_tokens %d: expected 0 to %d",
                            q->budget_tokens, AM_PROFILE_BUDGET_MAX);
    am__access acc;
    am__access_init(&acc, q->agent_id, q->role, &db->roles);
    profile_box *box = am__calloc(&db->alloc, sizeof *box);
    if (!box) return AM_NOMEM;
    box->alloc = db->alloc;
    am__arena_init(&box->ar, &box->alloc);
    am__store *s = db->store;
    am__item_row *rows = NULL;
    size_t n = 0;
    /* a user being forgotten (or unknown) has an empty card */
    int rc = am__db_user_gate(db, "profile", q->user_id, AM_NOTFOUND);
    if (rc == AM_NOTFOUND) am__db_clear_error(db);
    else if (!rc && !(rc = am__store_begin_read(s))) {
        rc = s->vt->items.items_list(s, q->user_id, AM__ITEMS_CURRENT | AM__ITEMS_NO_SOURCES,
                                     am__db_now(db), &box->ar, &rows, &n);
        int end = am__store_end_read(s);
        if (!rc) rc = end;
    }
    if (rc == AM_NOTFOUND) rc = AM_OK;
    size_t kept = 0;
    for (size_t i = 0; !rc && i < n; i++)
        if (am__access_item_visible(&acc, rows[i].kind, rows[i].scope)) rows[kept++] = rows[i];
    am__profile_in in = {db->text, db->tokcache, &db->alloc, rows, kept,
                         q->budget_tokens ? q->budget_tokens : AM_PROFILE_BUDGET_DEFAULT};
    if (!rc) rc = am__profile_build(&in, &box->ar, &box->pub);
    if (rc) {
        am_profile_free(&box->pub);
        return am__db_store_error(db, rc, "profile");
    }
    *out = &box->pub;
    return AM_OK;
}
