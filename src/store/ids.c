/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ids.c -- opaque ids of what a caller or the user's words named, common
 * to the stores (docs/EVENTS.md, docs/FORGETTING.md).
 *
 * A memory item's logical key is made from the user's words ("采购合同.
 * format", "attr.心理医生"), and a task or session id is whatever the
 * caller chose ("divorce-lawyer").  What leaves the engine in a memory
 * event, and what a forget keeps in its tombstone and audit row, names
 * them by a keyed hash instead:
 *
 *     <letter> hex(HMAC-SHA256(forget_key, label NUL part NUL ...))[0..16)
 *
 * forget_key being the store's random key (the one that makes a purged
 * user's pseudonym), so the same key, task or session of one user always
 * gives the same id in one store, and nothing of the words can be read
 * from it or found by guessing without the key.  The label (and the
 * letter) keeps the kinds apart: "key" (k: user, scope, key), "task" (t:
 * user, task id), "session" (s), "event" (e).  A pseudonym hashes a bare
 * user id, which has no NUL: it never equals one of these.
 *
 * Thread rule: no state; the store's key_hash holds the key.
 */
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string.h>

#include "store/store.h"

/* the parts are ids and keys (each at most AM_ID_MAX or AM__KEY_MAX
 * bytes) and a scope: far below this */
#define AM__REF_MSG_MAX 2048

int am__store_hmac_parts(const unsigned char *key, size_t kn, const char *const *parts, size_t n,
                         unsigned char out[32])
{
    unsigned char msg[AM__REF_MSG_MAX];
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        const char *p = parts[i] ? parts[i] : "";
        size_t pn = strlen(p) + 1; /* with its NUL */
        if (pn > sizeof msg - len) return AM_BACKEND;
        memcpy(msg + len, p, pn);
        len += pn;
    }
    unsigned int mn = 0;
    int ok = HMAC(EVP_sha256(), key, (int)kn, msg, len, out, &mn) != NULL && mn == 32;
    return ok ? AM_OK : AM_BACKEND;
}

static int ref(am__store *s, char letter, const char *const *parts, size_t n,
               char out[AM__REF_LEN + 1])
{
    unsigned char mac[32];
    int rc = am__store_key_hash(s, parts, n, mac);
    if (rc) return rc;
    static const char digits[] = "0123456789abcdef";
    out[0] = letter;
    for (int i = 0; i < (AM__REF_LEN - 1) / 2; i++) {
        out[1 + 2 * i] = digits[mac[i] >> 4];
        out[2 + 2 * i] = digits[mac[i] & 15];
    }
    out[AM__REF_LEN] = 0;
    return AM_OK;
}

int am__store_key_id(am__store *s, const char *uid, const char *scope, const char *key,
                     char out[AM__REF_LEN + 1])
{
    const char *parts[] = {"key", uid, scope && *scope ? scope : "global", key};
    return ref(s, 'k', parts, 4, out);
}

int am__store_object_ref(am__store *s, const char *uid, const char *level, const char *id,
                         char out[AM__REF_LEN + 1])
{
    const char *parts[] = {level, uid, id};
    char letter = strcmp(level, "task") == 0      ? 't'
                  : strcmp(level, "session") == 0 ? 's'
                  : strcmp(level, "event") == 0   ? 'e'
                                                  : 0;
    if (!letter) return AM_MISUSE;
    return ref(s, letter, parts, 3, out);
}

int am__store_is_ref(const char *v)
{
    if (!v || strlen(v) != AM__REF_LEN || !strchr("ktse", v[0])) return 0;
    for (int i = 1; i < AM__REF_LEN; i++)
        if (!strchr("0123456789abcdef", v[i])) return 0;
    return 1;
}
