/* SPDX-License-Identifier: Apache-2.0 */
/*
 * redact.h -- sensitive-data handling on the write path.
 *
 * Every text is redacted before it is stored or indexed:
 *  - Secrets (passwords, API keys and tokens, private-key blocks, passwords
 *    inside connection strings, one-time codes) are replaced by "[SECRET]".
 *    Nothing of the secret is kept: it is never copied into any allocation,
 *    and its item carries original == NULL.
 *  - PII (Chinese resident ID numbers, bank cards, IBANs, US social
 *    security numbers, passport numbers, phone numbers, e-mail addresses)
 *    is replaced by typed, numbered placeholders ("[PHONE_1]", "[EMAIL_2]",
 *    "[ID_CARD_1]", "[BANK_CARD_1]", "[IBAN_1]", "[SSN_1]", "[PASSPORT_1]"), and the mapping
 *    placeholder -> original is returned beside the text, so the caller can
 *    keep it apart (it is never injected back into a context).
 *
 * How it decides (one linear scan per pass; a pass never looks inside a span
 * an earlier pass took):
 *  1. secrets: "-----BEGIN ... PRIVATE KEY-----" blocks; the password part
 *     of "scheme://user:pass@host"; well-known token shapes (AKIA/ASIA...,
 *     ghp_/gho_/github_pat_, glpat-, sk-..., sk_live_, xox?-, AIza..., LTAI...,
 *     hf_, npm_, JWTs); and values after a cue word ("密码是x", "password: x",
 *     "my pwd is x", "api key x", "token: x", "DB_PASSWORD=x", "验证码 123456").
 *     A cue only counts when the value looks like one (prose such as
 *     "password is required" or "balance is key" is left alone).  A value
 *     is one token: an owner before the cue ("my/our ... secret is
 *     swordfish") lets a plain word count; a plain word followed by two
 *     more lower-case words ("secret: from now on ...") is a sentence, not
 *     a value.  After a Chinese cue and a real connector ("口令：", "密码是")
 *     a run of up to 16 Han characters is a value ("芝麻开门"), unless a
 *     question, negation or clause word leads it ("是多少", "从现在开始").
 *  2. e-mail addresses: an ASCII local part, a dotted domain ending in an
 *     ASCII-letter TLD (Han characters allowed inside the other labels,
 *     "x@jin算盘finance.com"); not "scheme://user@host", not "git@host:path".
 *  3. codes led by letters, at a word start: IBANs (the country's
 *     registered length, contiguous or in groups of four, ISO 13616 mod-97
 *     check) and passport numbers (1-2 letters + 6-9 digits) with a
 *     passport cue ("passport", "护照") at most 32 bytes before them in the
 *     same sentence.
 *  4. numbers, at the start of a digit group only (never inside a longer
 *     number, a decimal, a code such as "A123", or a URL path):
 *     ID card (17 digits + digit/X, ISO 7064 MOD 11-2, a province code and a
 *     real birth date; or the first-generation 15 digits: a province code
 *     and a real 19YYMMDD, yielding to a card cue or a Luhn-valid Amex
 *     number) > US SSN (AAA-GG-SSSS; area not 000/666/9xx, group and serial
 *     not zero; spaces or 9 bare digits only after an SSN cue) > mainland
 *     mobile (1[3-9] + 9 digits, optional
 *     +86/0086/86, contiguous or 3-4-4 with spaces/dashes) > bank card
 *     (13-19 digits, contiguous or in groups, Luhn, a card-issuer prefix
 *     unless a card cue is near) > a digits-only passport number (6-10
 *     digits after a passport cue) > other phones (+CC international,
 *     (415) 555-2671 / 415-555-2671, 010-88886666, 020 7946 0958; a bare
 *     7-15 digit run only right after a phone cue).
 *     Context words decide close calls: the nearest cue before the number in
 *     the same sentence ("订单号", "order", "tracking", "ID", "#", "¥" ...
 *     against "电话", "手机", "phone", "call" ..., "卡号", "card" ...) and a
 *     unit right after it ("元", "万", "%", "yuan") reject or accept it.
 *  Full-width digits, "＋", "－", "（）" and the ideographic space are
 *  handled like their ASCII forms; the original is returned as written.
 *  Finally every other literal occurrence of a found original anywhere in the
 *  text is replaced too (PII: everywhere; secrets of >= 4 bytes: where not
 *  glued to a letter or digit), so an original never survives in the output.
 *  Detection sees a replaced span as the placeholder it becomes, and runs
 *  until nothing changes, so redacting the output again changes nothing.
 *
 * Numbering: left to right, per type; the same value (compared in canonical
 * form: digits only, "+86" dropped, e-mail lower-cased, 'x' upper-cased) gets
 * the same placeholder, and the mapping keeps its first spelling.  If the
 * input already contains placeholders ("[PHONE_3]"), numbering continues
 * after the highest one, so redacting a redacted text changes nothing.
 *
 * Thread rule: no global state; any number of threads may call am__redact
 * at once.
 *
 * Known gaps: ID numbers written in groups; a 15-digit ID whose digits
 * also make a valid Amex number, without an ID cue; passwords holding
 * spaces without quotes, or a single plain lower-case word followed by a
 * sentence ("password: swordfish and then ..."); a random-looking secret
 * with neither a cue nor a known shape; "Authorization: Basic ...";
 * full-width letters or '＠' in e-mail addresses; international numbers
 * without '+' and without a phone cue; passport numbers without a cue;
 * SSNs written with spaces or none and no cue; addresses and names (not
 * PII here).
 */
#ifndef AM_TEXT_REDACT_H
#define AM_TEXT_REDACT_H

#include <stddef.h>

#include "agentmem.h"
#include "base/base.h"

typedef enum {
    AM_PII_PHONE = 1,
    AM_PII_EMAIL,
    AM_PII_ID_CARD,
    AM_PII_BANK_CARD,
    AM_SECRET,
    AM_PII_SSN,      /* US social security number (policy: redact_id_card) */
    AM_PII_IBAN,     /* international bank account (policy: redact_bank_card) */
    AM_PII_PASSPORT, /* passport number (policy: redact_id_card) */
    AM__PII_TYPE_END /* one past the last type */
} am__pii_type;

/* Which kinds are replaced.  Secrets and e-mails turned off are not looked
 * for (PII inside a kept secret is still replaced).  The number kinds are
 * always detected, so an ID number is not then taken for a bank card; one
 * turned off is left in the text and not reported. */
typedef struct am__redact_policy {
    int redact_phone, redact_email, redact_id_card, redact_bank_card,
        drop_secrets;
} am__redact_policy;

/* All 1. */
void am__redact_policy_default(am__redact_policy *p);

typedef struct am__redaction {
    int type;             /* am__pii_type */
    char placeholder[24]; /* "[PHONE_1]", ..., "[SECRET]" */
    char *original;       /* owned; NULL for secrets: never kept */
} am__redaction;

typedef struct am__redact_result {
    char *text;           /* owned; redacted, NUL-terminated */
    size_t len;           /* strlen-free length of text (input may hold NULs) */
    am__redaction *items; /* owned; in text order: one per distinct PII value
                             (at its first occurrence), one per dropped
                             secret occurrence */
    size_t n;
    int secrets;          /* count of secrets dropped */
} am__redact_result;

/* Redact text[0..len).  `text` need not be valid UTF-8 or NUL-terminated;
 * invalid bytes are copied through.  p == NULL means the default policy.
 * On success *out owns everything (release with am__redact_result_free);
 * on failure *out is zeroed.  Allocates through a (NULL = libc).
 * Returns AM_OK, AM_NOMEM, or AM_MISUSE (out NULL, or text NULL with
 * len > 0).  Fast path: a text with no digit and no '@' and no secret cue
 * costs one scan and one copy. */
int am__redact(const am__allocator *a, const char *text, size_t len,
               const am__redact_policy *p, am__redact_result *out);

/* Frees what am__redact gave; r may be NULL or zeroed; r is zeroed. */
void am__redact_result_free(const am__allocator *a, am__redact_result *r);

/* The canonical form of one PII value of that type (digits only, "+86"
 * dropped, e-mail lower-cased, 'x' upper-cased: how am__redact tells two
 * spellings of one value apart) into buf (AM__PII_CANON_MAX bytes, NUL-
 * terminated); returns its length. */
#define AM__PII_CANON_MAX 512
size_t am__pii_canonical(const char *value, size_t len, int type, char *buf);

/* "phone", "email", "id_card", "bank_card", "secret"; "unknown" otherwise. */
const char *am__pii_type_name(int type);
/* The type so named (am__pii_type_name's inverse); 0 for any other name. */
int am__pii_type_of(const char *name);

/* Validators (exposed for tests).  Luhn over n ASCII digits (n >= 2; any
 * non-digit fails).  Chinese resident ID: exactly 18 ASCII chars, 17 digits
 * then a digit or X/x, a known province code, a real birth date between
 * 1900-01-01 and 2099-12-31, and the ISO 7064 MOD 11-2 check character. */
int am__luhn_ok(const char *digits, size_t n);
int am__cn_id_ok(const char *s, size_t n);

#endif
