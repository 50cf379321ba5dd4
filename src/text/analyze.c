/* SPDX-License-Identifier: Apache-2.0 */
/*
 * analyze.c -- normalisation, tokenisation, language, stopwords.  See
 * analyze.h for the design.
 */
#include "text/analyze.h"

#include <libstemmer.h>
#include <opencc/opencc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/ubrk.h>
#include <unicode/ustring.h>
#include <unicode/uvernum.h>
#include <utf8proc.h>

#include "text/lexicon/lexicon.h"

#define MAX_TOKEN 64

/* English stems of recent words: the stemmer costs more than the rest of
 * a word's analysis, and the same words come back in every text.  Direct
 * mapped by the word's hash, the whole word compared; words (and stems)
 * longer than STEM_WORD bytes are not kept.  A stem is a function of its
 * word: nothing ever makes an entry wrong. */
#define STEM_SLOTS 4096
#define STEM_WORD 22
typedef struct stem_slot {
    unsigned char word_len, stem_len; /* word_len 0: empty */
    char word[STEM_WORD], stem[STEM_WORD];
} stem_slot;

/* Normal forms of recent non-ASCII texts: a recall normalises its
 * question several times (to route it, for its terms, for each clause)
 * and the bridges the same hits' heads, and OpenCC's Traditional ->
 * Simplified pass costs most of it.  Direct mapped by the text's hash,
 * the whole text compared; texts over NORM_TEXT bytes are not kept.  A
 * normal form is a function of its text: nothing makes an entry wrong,
 * but a forgotten text must not stay in memory (am__text_forget). */
#define NORM_SLOTS 64
#define NORM_TEXT 8192
typedef struct norm_slot {
    char *text, *norm; /* text NULL: empty */
    size_t text_len, norm_len;
} norm_slot;

/* ICU's words of recent Han runs: its dictionary segmentation costs more
 * than the rest of a Chinese text's analysis, and the same runs come
 * back -- a recall analyses its question several times, and the turns it
 * ranks (its bridges, their hits' heads) were analysed by this analyzer
 * when they were written.  The iterator is given the run alone, so its
 * words are a function of the run: direct mapped by the run's hash, the
 * run compared whole; runs over WORDS_RUN bytes or with more than
 * WORDS_MAX words are not kept.  Like the normal forms, a forgotten text
 * must not stay (am__text_forget): only an analyzer that is told of
 * forgets keeps runs (am__text_keep_words: the handle's own, api/db.c;
 * not the index tokenizer's). */
#define WORDS_SLOTS 2048
#define WORDS_RUN 768 /* bytes: 256 Han characters */
#define WORDS_MAX 128
typedef struct words_slot {
    uint16_t *off;       /* n words: [off[2i], off[2i+1]) of the run; the run after them */
    char *run;           /* NULL: empty */
    uint16_t run_len, n;
} words_slot;

struct am__text {
    const am__allocator *a;
    norm_slot norms[NORM_SLOTS];
    UBreakIterator *brk;      /* word iterator for Han runs */
    struct sb_stemmer *stem;  /* English Snowball */
    am__buf norm;             /* scratch: normalised text */
    UChar *u16;               /* scratch: a Han run in UTF-16 */
    int32_t u16_cap;
    size_t *u16_off;          /* UTF-16 index -> byte offset in norm */
    opencc_t t2s;             /* Traditional -> Simplified, or (opencc_t)-1 */
    stem_slot stems[STEM_SLOTS];
    words_slot *words;        /* WORDS_SLOTS, or NULL */
};

int am__text_open(const am__allocator *a, am__text **out)
{
    *out = NULL;
    am__text *t = am__calloc(a, sizeof *t);
    if (!t) return AM_NOMEM;
    t->a = a;
    am__buf_init(&t->norm, a);
    UErrorCode err = U_ZERO_ERROR;
    t->brk = ubrk_open(UBRK_WORD, "zh", NULL, 0, &err);
    if (U_FAILURE(err)) t->brk = NULL; /* fall back to bigrams only */
    t->t2s = opencc_open("t2s.json"); /* (opencc_t)-1 if the data is missing:
                                         then Traditional text stays as is */
    t->stem = sb_stemmer_new("english", "UTF_8");
    if (!t->stem) {
        am__text_close(t);
        return AM_NOMEM;
    }
    *out = t;
    return AM_OK;
}

static void words_clear(am__text *t)
{
    for (size_t i = 0; t->words && i < WORDS_SLOTS; i++) {
        words_slot *w = &t->words[i];
        if (w->run) memset(w->run, 0, w->run_len);
        am__free(t->a, w->off);
        memset(w, 0, sizeof *w);
    }
}

void am__text_close(am__text *t)
{
    if (!t) return;
    if (t->brk) ubrk_close(t->brk);
    if (t->stem) sb_stemmer_delete(t->stem);
    if (t->t2s != (opencc_t)-1) opencc_close(t->t2s);
    am__buf_free(&t->norm);
    for (size_t i = 0; i < NORM_SLOTS; i++) {
        am__free(t->a, t->norms[i].text);
        am__free(t->a, t->norms[i].norm);
    }
    words_clear(t);
    am__free(t->a, t->words);
    am__free(t->a, t->u16);
    am__free(t->a, t->u16_off);
    am__free(t->a, t);
}

void am__text_keep_words(am__text *t)
{
    if (!t->words) t->words = am__calloc(t->a, WORDS_SLOTS * sizeof *t->words);
}

void am__text_forget(am__text *t)
{
    if (!t) return;
    for (size_t i = 0; i < NORM_SLOTS; i++) {
        am__free(t->a, t->norms[i].text);
        am__free(t->a, t->norms[i].norm);
        memset(&t->norms[i], 0, sizeof t->norms[i]);
    }
    memset(t->stems, 0, sizeof t->stems);
    words_clear(t);
    if (t->norm.p) memset(t->norm.p, 0, t->norm.cap);
    t->norm.len = 0;
    if (t->u16) memset(t->u16, 0, (size_t)t->u16_cap * sizeof *t->u16);
}

static int has_bytes(const char *p, size_t n, const char *s, size_t len)
{
    for (size_t i = 0; p && len && i + len <= n; i++)
        if (memcmp(p + i, s, len) == 0) return 1;
    return 0;
}

int am__text_holds(const am__text *t, const char *s, size_t len)
{
    if (!t) return 0;
    for (size_t i = 0; i < NORM_SLOTS; i++)
        if (has_bytes(t->norms[i].text, t->norms[i].text_len, s, len) ||
            has_bytes(t->norms[i].norm, t->norms[i].norm_len, s, len))
            return 1;
    for (size_t i = 0; i < STEM_SLOTS; i++)
        if (has_bytes(t->stems[i].word, STEM_WORD, s, len) ||
            has_bytes(t->stems[i].stem, STEM_WORD, s, len))
            return 1;
    for (size_t i = 0; t->words && i < WORDS_SLOTS; i++)
        if (has_bytes(t->words[i].run, t->words[i].run_len, s, len)) return 1;
    return has_bytes(t->norm.p, t->norm.cap, s, len);
}

/* 1 if s[0..n) is ASCII: its normal form is itself with A-Z folded
 * (NFKC leaves ASCII alone; case folding only maps A-Z), which most
 * English text is, without utf8proc's decomposition. */
static int ascii_only(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80) return 0;
    return 1;
}

static int normalize_text(am__text *t, const char *s, size_t n, am__buf *out);

int am__text_normalize(am__text *t, const char *s, size_t n, am__buf *out)
{
    if (!t || n > NORM_TEXT || ascii_only(s, n)) return normalize_text(t, s, n, out);
    norm_slot *e = &t->norms[am__hash64(s, n) & (NORM_SLOTS - 1)];
    if (e->text && e->text_len == n && memcmp(e->text, s, n) == 0) {
        am__buf_add(out, e->norm, e->norm_len);
        return out->oom ? AM_NOMEM : AM_OK;
    }
    size_t from = out->len;
    int rc = normalize_text(t, s, n, out);
    if (rc) return rc;
    char *text = am__malloc(t->a, n + 1), *norm = am__malloc(t->a, out->len - from + 1);
    if (!text || !norm) { /* not kept */
        am__free(t->a, text);
        am__free(t->a, norm);
        return AM_OK;
    }
    memcpy(text, s, n);
    if (out->len > from) memcpy(norm, out->p + from, out->len - from);
    am__free(t->a, e->text);
    am__free(t->a, e->norm);
    e->text = text;
    e->text_len = n;
    e->norm = norm;
    e->norm_len = out->len - from;
    return AM_OK;
}

static int normalize_text(am__text *t, const char *s, size_t n, am__buf *out)
{
    if (ascii_only(s, n)) {
        if (!am__buf_reserve(out, n)) return AM_NOMEM;
        char *d = out->p + out->len;
        for (size_t i = 0; i < n; i++)
            d[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + ('a' - 'A') : s[i]);
        out->len += n;
        out->p[out->len] = 0;
        return AM_OK;
    }
    utf8proc_uint8_t *dst = NULL;
    utf8proc_ssize_t r = utf8proc_map(
        (const utf8proc_uint8_t *)s, (utf8proc_ssize_t)n, &dst,
        UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT |
            UTF8PROC_CASEFOLD);
    if (r < 0) {
        /* Invalid UTF-8: repair byte by byte, then retry once. */
        am__buf fixed;
        am__buf_init(&fixed, out->a);
        for (size_t i = 0; i < n;) {
            uint32_t cp;
            int l = am__utf8_decode(s + i, n - i, &cp);
            char enc[4];
            am__buf_add(&fixed, enc, (size_t)am__utf8_encode(cp, enc));
            i += (size_t)l;
        }
        if (fixed.oom) {
            am__buf_free(&fixed);
            return AM_NOMEM;
        }
        r = utf8proc_map((const utf8proc_uint8_t *)fixed.p,
                         (utf8proc_ssize_t)fixed.len, &dst,
                         UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT |
                             UTF8PROC_CASEFOLD);
        am__buf_free(&fixed);
        if (r < 0) return r == UTF8PROC_ERROR_NOMEM ? AM_NOMEM : AM_INVALID;
    }
    /* Traditional -> Simplified where it helps matching (周報 = 周报), only
     * for text with a character the conversion could change (t2s_keys.c). */
    if (t && t->t2s != (opencc_t)-1 && am__t2s_may_change((const char *)dst, (size_t)r)) {
        char *conv = opencc_convert_utf8(t->t2s, (const char *)dst, (size_t)r);
        if (conv) {
            am__buf_adds(out, conv);
            opencc_convert_utf8_free(conv);
            free(dst);
            return out->oom ? AM_NOMEM : AM_OK;
        }
    }
    am__buf_add(out, dst, (size_t)r);
    free(dst); /* utf8proc allocates with libc */
    return out->oom ? AM_NOMEM : AM_OK;
}

/* Character classes for tokenizing. */
enum { C_SEP, C_WORD, C_DIGIT, C_HAN };

static int char_class(uint32_t cp)
{
    if (cp < 0x80) {
        if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z')) return C_WORD;
        if (cp >= '0' && cp <= '9') return C_DIGIT;
        return C_SEP;
    }
    if (am__is_han(cp)) return C_HAN;
    utf8proc_category_t c = utf8proc_category((utf8proc_int32_t)cp);
    switch (c) {
    case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT: case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO: case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
        return C_WORD;
    case UTF8PROC_CATEGORY_ND:
        return C_DIGIT;
    default:
        return C_SEP;
    }
}

static int emit(am__token_fn fn, void *ctx, int kind, const char *tok,
                size_t len, size_t start, size_t end, size_t n)
{
    char buf[MAX_TOKEN + 1];
    if (len == 0) return 0;
    if (len > MAX_TOKEN) len = MAX_TOKEN; /* (may cut a code point: harmless
                                            for matching, both sides agree) */
    memcpy(buf, tok, len);
    buf[len] = 0;
    if (start > n) start = n;
    if (end > n) end = n;
    return fn(ctx, kind, buf, len, start, end);
}

/* The stem cache's slot for word w (len <= STEM_WORD): it holds w's stem
 * when its word is w. */
static stem_slot *stem_slot_of(am__text *t, const char *w, size_t len)
{
    return &t->stems[am__hash64(w, len) & (STEM_SLOTS - 1)];
}

static int word_token(am__text *t, const char *w, size_t len, int all_ascii,
                      size_t start, size_t end, size_t n, am__token_fn fn,
                      void *ctx)
{
    if (len == 1 && all_ascii) return 0; /* single letters carry nothing */
    stem_slot *memo = all_ascii && len <= STEM_WORD ? stem_slot_of(t, w, len) : NULL;
    if (memo && memo->word_len == len && memcmp(memo->word, w, len) == 0)
        return emit(fn, ctx, AM_TOK_WORD, memo->stem, memo->stem_len, start, end, n);
    if (all_ascii && len <= MAX_TOKEN) {
        const sb_symbol *st =
            sb_stemmer_stem(t->stem, (const sb_symbol *)w, (int)len);
        if (st) {
            int sl = sb_stemmer_length(t->stem);
            if (memo && sl > 0 && sl <= STEM_WORD) {
                memo->word_len = (unsigned char)len;
                memo->stem_len = (unsigned char)sl;
                memcpy(memo->word, w, len);
                memcpy(memo->stem, st, (size_t)sl);
            }
            return emit(fn, ctx, AM_TOK_WORD, (const char *)st, (size_t)sl,
                        start, end, n);
        }
    }
    return emit(fn, ctx, AM_TOK_WORD, w, len, start, end, n);
}

/* ICU's words of 3+ characters (UTF-16 units) of the Han run s[a..b):
 * from the table of recent runs, or segmented and then kept there. */
static int han_words(am__text *t, const char *s, size_t a, size_t b, size_t n, am__token_fn fn,
                     void *ctx)
{
    int rc;
    size_t len = b - a;
    words_slot *w = NULL;
    if (len <= WORDS_RUN && t->words) w = &t->words[am__hash64(s + a, len) & (WORDS_SLOTS - 1)];
    if (w && w->run && w->run_len == len && memcmp(w->run, s + a, len) == 0) {
        for (size_t i = 0; i < w->n; i++) {
            size_t ba = a + w->off[2 * i], bb = a + w->off[2 * i + 1];
            if ((rc = emit(fn, ctx, AM_TOK_CJKWORD, s + ba, bb - ba, ba, bb, n))) return rc;
        }
        return 0;
    }
    int32_t need = (int32_t)len + 1;
    if (need > t->u16_cap) {
        UChar *u = am__realloc(t->a, t->u16, (size_t)need * sizeof(UChar));
        if (!u) return AM_NOMEM;
        t->u16 = u;
        size_t *o = am__realloc(t->a, t->u16_off, (size_t)(need + 1) * sizeof(size_t));
        if (!o) return AM_NOMEM;
        t->u16_off = o;
        t->u16_cap = need;
    }
    int32_t ul = 0;
    uint32_t cp;
    for (size_t p = a; p < b;) {
        int l = am__utf8_decode(s + p, b - p, &cp);
        t->u16_off[ul] = p;
        if (cp >= 0x10000) {
            t->u16[ul++] = (UChar)(0xD800 + ((cp - 0x10000) >> 10));
            t->u16_off[ul] = p;
            t->u16[ul++] = (UChar)(0xDC00 + ((cp - 0x10000) & 0x3FF));
        } else {
            t->u16[ul++] = (UChar)cp;
        }
        p += (size_t)l;
    }
    t->u16_off[ul] = b;
    UErrorCode err = U_ZERO_ERROR;
    ubrk_setText(t->brk, t->u16, ul, &err);
    if (U_FAILURE(err)) return 0;
    uint16_t off[2 * WORDS_MAX];
    size_t k = 0;
    int keep = w != NULL;
    int32_t from = ubrk_first(t->brk);
    for (int32_t to = ubrk_next(t->brk); to != UBRK_DONE;
         from = to, to = ubrk_next(t->brk)) {
        if (to - from < 3) continue;
        size_t ba = t->u16_off[from], bb = t->u16_off[to];
        if (keep && k == WORDS_MAX) keep = 0;
        if (keep) {
            off[2 * k] = (uint16_t)(ba - a);
            off[2 * k + 1] = (uint16_t)(bb - a);
            k++;
        }
        if ((rc = emit(fn, ctx, AM_TOK_CJKWORD, s + ba, bb - ba, ba, bb, n)))
            return rc;
    }
    uint16_t *mem = keep ? am__malloc(t->a, 2 * k * sizeof *mem + len) : NULL;
    if (!mem) return 0; /* not kept */
    if (w->run) memset(w->run, 0, w->run_len);
    am__free(t->a, w->off);
    memcpy(mem, off, 2 * k * sizeof *mem);
    w->off = mem;
    w->run = (char *)(mem + 2 * k);
    memcpy(w->run, s + a, len);
    w->run_len = (uint16_t)len;
    w->n = (uint16_t)k;
    return 0;
}

/* A run of Han characters norm[a..b) with `count` code points. */
static int han_run(am__text *t, const char *s, size_t a, size_t b, int count,
                   size_t n, am__token_fn fn, void *ctx)
{
    int rc;
    if (count == 1)
        return emit(fn, ctx, AM_TOK_UNIGRAM, s + a, b - a, a, b, n);
    size_t p = a;
    uint32_t cp;
    /* Unigrams: single characters carry meaning in Chinese (车, 猫, 药). */
    while (p < b) {
        size_t l = (size_t)am__utf8_decode(s + p, b - p, &cp);
        if ((rc = emit(fn, ctx, AM_TOK_UNIGRAM, s + p, l, p, p + l, n))) return rc;
        p += l;
    }
    /* Bigrams. */
    p = a;
    size_t l1 = (size_t)am__utf8_decode(s + p, b - p, &cp);
    while (p + l1 < b) {
        size_t l2 = (size_t)am__utf8_decode(s + p + l1, b - p - l1, &cp);
        if ((rc = emit(fn, ctx, AM_TOK_BIGRAM, s + p, l1 + l2, p, p + l1 + l2,
                       n)))
            return rc;
        p += l1;
        l1 = l2;
    }
    if (count < 3 || !t->brk) return 0;
    return han_words(t, s, a, b, n, fn, ctx);
}

/* The letter and digit runs of a word that mixes them ("158cm" -> 158,
 * cm; "mate60" -> mate, 60), after the word itself: "158 cm", "158厘米"
 * and "Mate 60" then share terms with it. */
static int alnum_parts(am__text *t, const char *z, size_t a, size_t b, size_t n,
                       am__token_fn fn, void *ctx)
{
    size_t p = a;
    while (p < b) {
        uint32_t cp;
        size_t q = p;
        int k0 = -1, ascii = 1, rc;
        while (q < b) {
            int l = am__utf8_decode(z + q, b - q, &cp);
            int k = char_class(cp);
            if (k0 >= 0 && k != k0) break;
            k0 = k;
            if (cp >= 0x80) ascii = 0;
            q += (size_t)l;
        }
        rc = k0 == C_DIGIT ? emit(fn, ctx, AM_TOK_NUM, z + p, q - p, p, q, n)
                           : word_token(t, z + p, q - p, ascii, p, q, n, fn, ctx);
        if (rc) return rc;
        p = q;
    }
    return 0;
}

int am__text_tokenize(am__text *t, const char *s, size_t n, am__token_fn fn,
                      void *ctx)
{
    am__buf_reset(&t->norm);
    int rc = am__text_normalize(t, s, n, &t->norm);
    if (rc) return rc;
    const char *z = t->norm.p ? t->norm.p : "";
    size_t zn = t->norm.len;
    size_t i = 0;
    while (i < zn) {
        uint32_t cp;
        int l = am__utf8_decode(z + i, zn - i, &cp);
        int c = char_class(cp);
        if (c == C_SEP) {
            i += (size_t)l;
            continue;
        }
        size_t start = i;
        if (c == C_HAN) {
            int count = 0;
            while (i < zn) {
                l = am__utf8_decode(z + i, zn - i, &cp);
                if (char_class(cp) != C_HAN) break;
                i += (size_t)l;
                count++;
            }
            if ((rc = han_run(t, z, start, i, count, n, fn, ctx))) return rc;
            continue;
        }
        /* A word: letters and digits together ("mp3", "q3"), split at any
         * separator or Han character, then its letter and digit runs
         * (alnum_parts).  Pure digit runs are numbers. */
        int all_ascii = 1, any_alpha = 0, any_digit = 0;
        while (i < zn) {
            l = am__utf8_decode(z + i, zn - i, &cp);
            int k = char_class(cp);
            if (k != C_WORD && k != C_DIGIT) break;
            if (cp >= 0x80) all_ascii = 0;
            if (k == C_WORD) any_alpha = 1;
            if (k == C_DIGIT) any_digit = 1;
            i += (size_t)l;
        }
        if (!any_alpha)
            rc = emit(fn, ctx, AM_TOK_NUM, z + start, i - start, start, i, n);
        else
            rc = word_token(t, z + start, i - start, all_ascii, start, i, n,
                            fn, ctx);
        if (!rc && any_alpha && any_digit)
            rc = alnum_parts(t, z, start, i, n, fn, ctx);
        if (rc) return rc;
    }
    return AM_OK;
}

int am__text_lang(const char *s, size_t n)
{
    size_t han = 0, latin = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        int l = am__utf8_decode(s + i, n - i, &cp);
        if (am__is_han(cp)) han++;
        else if ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') latin++;
        i += (size_t)l;
    }
    if (han == 0 && latin == 0) return AM_LANG_NONE;
    /* A Han character carries about as much as 3 letters. */
    if (han >= 2 && latin >= 6 && han * 3 * 3 >= latin && latin * 3 >= han * 3)
        return AM_LANG_MIXED;
    return han * 3 >= latin ? AM_LANG_ZH : AM_LANG_EN;
}

/* The stopwords and the Han function characters (text/lexicon/stopwords.c)
 * in hash tables built once per process (open addressing; a slot from the
 * word's length and three of its bytes, then its bytes compared): the
 * binary search with a strcmp per probe was 5 % of a recall's
 * instructions (a call for every token of every text analysed), the
 * function characters' memcmp with each 3 %. */
#define WORD_SLOTS 512 /* a power of two, over 3 x the longer list */
typedef struct word_table {
    struct {
        const char *w; /* NULL: empty */
        size_t len;
    } slot[WORD_SLOTS];
} word_table;
static word_table stop_tab, func_tab;
static pthread_once_t words_once = PTHREAD_ONCE_INIT;

static size_t word_home(const char *w, size_t len)
{
    const unsigned char *u = (const unsigned char *)w;
    size_t h = len * 0x9E37u ^ u[0] * 0x85EBu ^ u[len - 1] * 0xC2B2u ^ u[len / 2] * 0x27D4u;
    return (h ^ h >> 9) & (WORD_SLOTS - 1);
}

static void word_put(word_table *t, const char *w)
{
    size_t len = strlen(w), j = word_home(w, len);
    while (t->slot[j].w) j = (j + 1) & (WORD_SLOTS - 1);
    t->slot[j].w = w;
    t->slot[j].len = len;
}

static int word_has(const word_table *t, const char *w, size_t len)
{
    for (size_t j = word_home(w, len); t->slot[j].w; j = (j + 1) & (WORD_SLOTS - 1))
        if (t->slot[j].len == len && memcmp(t->slot[j].w, w, len) == 0) return 1;
    return 0;
}

static void words_build(void)
{
    for (size_t i = 0; i < sizeof am__lex_stopwords / sizeof *am__lex_stopwords; i++)
        word_put(&stop_tab, am__lex_stopwords[i]);
    for (size_t i = 0; am__lex_function_chars[i]; i++) word_put(&func_tab, am__lex_function_chars[i]);
}

int am__text_stopword(const char *tok, size_t len)
{
    if (len == 0 || len > 24) return 0; /* longer than any stopword */
    pthread_once(&words_once, words_build);
    return word_has(&stop_tab, tok, len);
}

int am__text_function_char(const char *p)
{
    pthread_once(&words_once, words_build);
    return word_has(&func_tab, p, 3);
}

int am__text_tokens_estimate(const char *s, size_t n)
{
    size_t han = 0, other = 0;
    for (size_t i = 0; i < n;) {
        if ((unsigned char)s[i] < 0x80) { /* ASCII: never Han nor full-width */
            other++;
            i++;
            continue;
        }
        uint32_t cp;
        int l = am__utf8_decode(s + i, n - i, &cp);
        if (am__is_han(cp) || (cp >= 0x3000 && cp <= 0x30FF) ||
            (cp >= 0xFF00 && cp <= 0xFFEF))
            han++;
        else
            other += (size_t)l;
        i += (size_t)l;
    }
    return (int)(han + (other + 3) / 4);
}

typedef struct set_ctx {
    uint64_t *out;
    size_t max, n;
} set_ctx;

static int set_cb(void *ctx, int kind, const char *tok, size_t len,
                  size_t start, size_t end)
{
    (void)kind; (void)start; (void)end;
    set_ctx *c = ctx;
    if (am__text_stopword(tok, len)) return 0;
    if (c->n < c->max) c->out[c->n++] = am__hash64(tok, len);
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The set of the hashes collected: sorted, unique. */
static size_t set_finish(const set_ctx *c)
{
    qsort(c->out, c->n, sizeof *c->out, cmp_u64);
    size_t w = 0;
    for (size_t i = 0; i < c->n; i++)
        if (w == 0 || c->out[w - 1] != c->out[i]) c->out[w++] = c->out[i];
    return w;
}

int am__text_token_set(am__text *t, const char *s, size_t n, uint64_t *out,
                       size_t max, size_t *count)
{
    set_ctx c = {out, max, 0};
    *count = 0;
    int rc = am__text_tokenize(t, s, n, set_cb, &c);
    if (rc) return rc;
    *count = set_finish(&c);
    return AM_OK;
}

size_t am__set_overlap(const uint64_t *a, size_t na, const uint64_t *b,
                       size_t nb)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na && j < nb) {
        if (a[i] == b[j]) { k++; i++; j++; }
        else if (a[i] < b[j]) i++;
        else j++;
    }
    return k;
}

int am__cue_any(const char *s, size_t n, const char *const *cues)
{
    for (size_t i = 0; cues[i]; i++) {
        size_t m = strlen(cues[i]);
        if (m == 0 || m > n) continue;
        for (size_t k = 0; k + m <= n; k++)
            if (s[k] == cues[i][0] && memcmp(s + k, cues[i], m) == 0) return 1;
    }
    return 0;
}

/* ---------------------------------------------------------- query terms */

#define MAX_TERMS 256 /* terms of one query (a long, chatty question keeps its real ask at the end) */

typedef struct terms_ctx {
    am__arena *ar;
    const char **terms;
    unsigned char *kinds; /* or NULL */
    size_t n;
    uint64_t seen[MAX_TERMS];
} terms_ctx;

static int term_cb(void *ctx, int kind, const char *tok, size_t len,
                   size_t start, size_t end)
{
    (void)start; (void)end;
    terms_ctx *c = ctx;
    if (c->n >= MAX_TERMS || am__text_stopword(tok, len)) return 0;
    uint64_t h = am__hash64(tok, len);
    for (size_t i = 0; i < c->n; i++)
        if (c->seen[i] == h) return 0;
    const char *d = am__arena_strndup(c->ar, tok, len);
    if (!d) return AM_NOMEM;
    c->seen[c->n] = h;
    if (c->kinds) c->kinds[c->n] = (unsigned char)kind;
    c->terms[c->n++] = d;
    return 0;
}

/* A query's terms (with their kinds, when asked) and, when asked
 * (set.out), its token set: one analysis. */
typedef struct terms_set_ctx {
    terms_ctx terms;
    set_ctx set;
} terms_set_ctx;

static int terms_set_cb(void *ctx, int kind, const char *tok, size_t len,
                        size_t start, size_t end)
{
    terms_set_ctx *c = ctx;
    int rc = term_cb(&c->terms, kind, tok, len, start, end);
    if (!rc && c->set.out) rc = set_cb(&c->set, kind, tok, len, start, end);
    return rc;
}

static int query_terms(am__text *t, const char *text, am__arena *ar, const char ***terms,
                       const unsigned char **kinds, size_t *n, uint64_t *set, size_t max,
                       size_t *count)
{
    terms_set_ctx c;
    memset(&c, 0, sizeof c);
    c.terms.ar = ar;
    c.terms.terms = am__arena_alloc(ar, MAX_TERMS * sizeof *c.terms.terms);
    c.set.out = set;
    c.set.max = max;
    if (count) *count = 0;
    if (!c.terms.terms) return AM_NOMEM;
    if (kinds && !(c.terms.kinds = am__arena_alloc(ar, MAX_TERMS))) return AM_NOMEM;
    int rc = am__text_tokenize(t, text, strlen(text), terms_set_cb, &c);
    *terms = c.terms.terms;
    if (kinds) *kinds = c.terms.kinds;
    *n = c.terms.n;
    if (!rc && set) *count = set_finish(&c.set);
    return rc;
}

int am__query_terms_kinds(am__text *t, const char *text, am__arena *ar, const char ***terms,
                          const unsigned char **kinds, size_t *n)
{
    return query_terms(t, text, ar, terms, kinds, n, NULL, 0, NULL);
}

int am__query_terms_set(am__text *t, const char *text, am__arena *ar,
                        const char ***terms, size_t *n, uint64_t *set, size_t max,
                        size_t *count)
{
    return query_terms(t, text, ar, terms, NULL, n, set, max, count);
}

int am__query_terms(am__text *t, const char *text, am__arena *ar,
                    const char ***terms, size_t *n)
{
    return query_terms(t, text, ar, terms, NULL, n, NULL, 0, NULL);
}

/* The analyzer's version: bump AM__TEXT_VERSION whenever tokens, their
 * normalisation, stopwords, stemming or hashing change (stored token sets
 * are then recomputed instead of used).  ICU's dictionaries (Chinese
 * words) change with its major version, so that is part of it too. */
#define AM__TEXT_VERSION 2 /* 2: the letter and digit runs of a mixed word */

uint32_t am__text_version(void)
{
    return (uint32_t)AM__TEXT_VERSION << 16 | (uint32_t)U_ICU_VERSION_MAJOR_NUM;
}

int am__text_item_set(am__text *t, const char *text, const char *key, uint64_t *out,
                      size_t *count)
{
    am__buf doc;
    am__buf_init(&doc, t->a);
    am__buf_adds(&doc, text ? text : "");
    am__buf_addc(&doc, ' ');
    am__buf_adds(&doc, key ? key : "");
    int rc = doc.oom ? AM_NOMEM : am__text_token_set(t, doc.p, doc.len, out, AM__ITEM_SET, count);
    am__buf_free(&doc);
    return rc;
}

size_t am__token_blob_put(const uint64_t *set, size_t n, unsigned char *out)
{
    return am__token_blob_put_n(set, n, AM__ITEM_SET, out);
}

size_t am__token_blob_put_n(const uint64_t *set, size_t n, size_t max, unsigned char *out)
{
    if (n > max) n = max;
    uint32_t v = am__text_version();
    for (int i = 0; i < 4; i++) out[i] = (unsigned char)(v >> (8 * i));
    for (size_t k = 0; k < n; k++)
        for (int i = 0; i < 8; i++) out[4 + 8 * k + (size_t)i] = (unsigned char)(set[k] >> (8 * i));
    return 4 + 8 * n;
}

int am__token_blob_get(const unsigned char *blob, size_t len, uint64_t *out, size_t max,
                       size_t *count)
{
    *count = 0;
    if (!blob || len < 4 || (len - 4) % 8 != 0 || (len - 4) / 8 > max) return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)blob[i] << (8 * i);
    if (v != am__text_version()) return 0;
    size_t n = (len - 4) / 8;
    for (size_t k = 0; k < n; k++) {
        uint64_t h = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(&h, blob + 4 + 8 * k, 8); /* (the blob is little-endian) */
#else
        for (int i = 0; i < 8; i++) h |= (uint64_t)blob[4 + 8 * k + (size_t)i] << (8 * i);
#endif
        if (k && h <= out[k - 1]) return 0; /* not a sorted set: not ours */
        out[k] = h;
    }
    *count = n;
    return 1;
}
