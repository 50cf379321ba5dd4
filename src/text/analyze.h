/* SPDX-License-Identifier: Apache-2.0 */
/*
 * analyze.h -- text analysis shared by indexing, the distillation rules and
 * recall: NFKC + case folding, script-aware tokenisation (ICU word
 * segmentation plus CJK character bigrams for Chinese, stemmed words for
 * English), language detection and stopwords.
 *
 * Why bigrams beside ICU words: ICU's dictionary segmentation is good on
 * common words but splits personal names (张/伟) and new terms; indexing
 * every pair of adjacent Han characters makes any 2-character query word
 * findable, and the ICU words of 3+ characters add precision.  The same
 * function tokenizes documents and queries, so both sides agree.
 *
 * An am__text holds an ICU break iterator and a Snowball stemmer: it is not
 * thread-safe; one per am_db (and one per FTS5 tokenizer instance).
 */
#ifndef AM_TEXT_ANALYZE_H
#define AM_TEXT_ANALYZE_H

#include "base/base.h"

typedef struct am__text am__text;

int am__text_open(const am__allocator *a, am__text **out);
void am__text_close(am__text *t);

/* NFKC + case fold s[0..n) into out (appended).  Invalid UTF-8 bytes are
 * replaced by U+FFFD.  Returns AM_OK or AM_NOMEM. */
int am__text_normalize(am__text *t, const char *s, size_t n, am__buf *out);

/* The analyzer keeps the normal forms of recent non-ASCII texts and the
 * stems of recent words; after a forget nothing of the forgotten texts
 * may stay: this drops them and wipes the scratch buffers.  holds: 1 if
 * s[0..len) is anywhere in those caches or scratch (tests). */
void am__text_forget(am__text *t);
/* Keep ICU's words of recent Han runs (a recall analyses its question
 * several times, and the turns it ranks were analysed when written): for
 * an analyzer whose owner calls am__text_forget at every forget.  Out of
 * memory, nothing is kept (the analysis is the same). */
void am__text_keep_words(am__text *t);
int am__text_holds(const am__text *t, const char *s, size_t len);

/* 1 if OpenCC's Traditional -> Simplified pass could change s[0..n): it
 * holds a character of the installed t2s dictionaries (the table in
 * t2s_keys.c covers U+3400..U+9FFF, where all of them are) or an
 * ideograph past that range.  0: the conversion would return s as is. */
#define AM__T2S_FIRST 0x3400u
#define AM__T2S_LAST 0x9FFFu
int am__t2s_may_change(const char *s, size_t n);

/* Token kinds passed to the callback. */
#define AM_TOK_WORD 1    /* Latin/other-script word, stemmed */
#define AM_TOK_NUM 2     /* digits */
#define AM_TOK_CJKWORD 3 /* ICU word of 3+ Han characters */
#define AM_TOK_BIGRAM 4  /* two adjacent Han characters */
#define AM_TOK_UNIGRAM 5 /* a lone Han character */

/* Called for each token; tok is NUL-terminated scratch valid for the call.
 * start/end are byte offsets into the *normalised* text, clamped to n.
 * A non-zero return stops tokenizing and is returned. */
typedef int (*am__token_fn)(void *ctx, int kind, const char *tok, size_t len,
                            size_t start, size_t end);

/* Normalise and tokenize s[0..n).  Returns AM_OK, AM_NOMEM or the
 * callback's non-zero value. */
int am__text_tokenize(am__text *t, const char *s, size_t n, am__token_fn fn,
                      void *ctx);

/* Language of a text by script counts. */
#define AM_LANG_NONE 0
#define AM_LANG_EN 1
#define AM_LANG_ZH 2
#define AM_LANG_MIXED 3 /* both scripts carry weight ("把这个PR的review comments看下") */
int am__text_lang(const char *s, size_t n);

/* 1 if the (normalised, stemmed) token is a stopword for queries. */
int am__text_stopword(const char *tok, size_t len);
/* The 3 bytes at p are a Han function character ("的", "是": lexicon). */
int am__text_function_char(const char *p);

/* Rough token count for budgets: 1 per Han character, 1 per ~4 bytes of
 * other text (CJK-aware). */
int am__text_tokens_estimate(const char *s, size_t n);

/* 1 if the normalised text s[0..n) contains any phrase of the
 * NULL-terminated list (byte substring match). */
int am__cue_any(const char *s, size_t n, const char *const *cues);

/* Collect the query terms of a text (tokens minus stopwords, unique, at
 * most 64) into an arena array.  Returns AM_OK or AM_NOMEM. */
int am__query_terms(am__text *t, const char *text, am__arena *ar,
                    const char ***terms, size_t *n);
/* am__query_terms and, from the same analysis, the text's token set
 * (am__text_token_set: at most max into set, *count). */
int am__query_terms_set(am__text *t, const char *text, am__arena *ar,
                        const char ***terms, size_t *n, uint64_t *set, size_t max,
                        size_t *count);
/* The same, with each term's token kind (AM_TOK_*) in *kinds. */
int am__query_terms_kinds(am__text *t, const char *text, am__arena *ar, const char ***terms,
                          const unsigned char **kinds, size_t *n);

#endif

/* Token set of a text: hashes of its non-stopword tokens, sorted and
 * unique, at most max.  Used for overlap between short texts (queries,
 * memory items).  Returns AM_OK or AM_NOMEM. */
int am__text_token_set(am__text *t, const char *s, size_t n, uint64_t *out,
                       size_t max, size_t *count);
/* The token set a memory item is ranked by (its text and key, at most
 * AM__ITEM_SET tokens).  It is computed when the version is written and
 * stored with it (memory_items.tokens, schema v7) as a token blob: 4
 * bytes of the analyzer's version (am__text_version: a set stored by
 * another analyzer is not used), then the hashes, 8 bytes each,
 * little-endian. */
#define AM__ITEM_SET 48
#define AM__TOKBLOB_MAX (4 + 8 * AM__ITEM_SET)
int am__text_item_set(am__text *t, const char *text, const char *key, uint64_t *out,
                      size_t *count);
uint32_t am__text_version(void);
size_t am__token_blob_put(const uint64_t *set, size_t n, unsigned char *out);
/* An event's stored token set (events.tokens, schema v12): the set of its
 * content, at most AM__EVENT_SET tokens, in the same blob format, written
 * with the event so that a recall ranking its turns (hop hits, the block's
 * candidates) never analyses a stored text again. */
#define AM__EVENT_SET 128
#define AM__EVENT_TOKBLOB_MAX (4 + 8 * AM__EVENT_SET)
size_t am__token_blob_put_n(const uint64_t *set, size_t n, size_t max, unsigned char *out);
/* 1 and the set (at most max) when blob is a token blob of this analyzer,
 * else 0. */
int am__token_blob_get(const unsigned char *blob, size_t len, uint64_t *out, size_t max,
                       size_t *count);
/* |a ∩ b| of two sorted sets. */
size_t am__set_overlap(const uint64_t *a, size_t na, const uint64_t *b,
                       size_t nb);

/* Split s[0..n) into sentences where a reader would (text/sentences.c:
 * stops and line breaks, not inside quotations and brackets, not after
 * abbreviations, in decimals or ellipses mid-sentence); calls fn with each
 * trimmed, non-empty sentence (not NUL-terminated), in order; a non-zero
 * return of fn stops the split and is returned. */
typedef int (*am__sentence_fn)(void *ctx, const char *s, size_t n);
int am__text_sentences(const char *s, size_t n, am__sentence_fn fn, void *ctx);
