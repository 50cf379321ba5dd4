/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fts_tokenizer.c -- the "am_cjk" FTS5 tokenizer: SQLite's full-text index
 * tokenizes through text/analyze (ICU words + Han bigrams + stemmed English),
 * because the built-in tokenizers cannot find 2-character Chinese words.
 *
 * Query side: the recall layer tokenizes the query itself (stopwords,
 * expansion) and sends every final token quoted and prefixed with U+E000;
 * such a string is passed through verbatim, so stemming is never applied
 * twice.
 *
 * Per-user terms: a column text that starts with U+E001 TAG U+E001 (the
 * store writes every doc and ctx that way, TAG being the user's token) is
 * indexed as TAG 0x1F token for every token, plus TAG alone once.  Each
 * user's terms then have their own doclists: a recall walks the postings
 * of one user, not of everyone who ever used the word, document
 * frequencies are per user, and the bare TAG's frequency is the user's
 * number of rows.
 */
#include "store/sqlite/sqlite_int.h"

#include <string.h>

#include "text/analyze.h"

typedef struct am_tok {
    am__text *text;
} am_tok;

typedef struct tok_ctx {
    void *fts_ctx;
    int (*xToken)(void *, int, const char *, int, int, int);
    const char *tag; /* NULL: plain tokens */
    size_t tag_len;
    size_t shift;    /* bytes of the tag header before the text */
} tok_ctx;

static int tok_create(void *ctx, const char **argv, int argc,
                      Fts5Tokenizer **out)
{
    (void)argv;
    (void)argc;
    const am__allocator *a = ctx; /* NULL: FTS5 owns instances, libc */
    am_tok *t = am__calloc(a, sizeof *t);
    if (!t) return SQLITE_NOMEM;
    if (am__text_open(a, &t->text) != AM_OK) {
        am__free(a, t);
        return SQLITE_NOMEM;
    }
    *out = (Fts5Tokenizer *)t;
    return SQLITE_OK;
}

static void tok_delete(Fts5Tokenizer *p)
{
    am_tok *t = (am_tok *)p;
    if (!t) return;
    am__text_close(t->text);
    am__free(NULL, t);
}

static int tok_cb(void *ctx, int kind, const char *tok, size_t len,
                  size_t start, size_t end)
{
    (void)kind;
    tok_ctx *c = ctx;
    int s = (int)(start + c->shift), e = (int)(end + c->shift);
    if (!c->tag) return c->xToken(c->fts_ctx, 0, tok, (int)len, s, e);
    char buf[AM__FTS_TAG_MAX + 1 + 256];
    if (len > 256) len = 256;
    memcpy(buf, c->tag, c->tag_len);
    buf[c->tag_len] = AM__FTS_TAG_SEP;
    memcpy(buf + c->tag_len + 1, tok, len);
    return c->xToken(c->fts_ctx, 0, buf, (int)(c->tag_len + 1 + len), s, e);
}

static int tok_tokenize(Fts5Tokenizer *p, void *fts_ctx, int flags,
                        const char *text, int n,
                        int (*xToken)(void *, int, const char *, int, int, int))
{
    am_tok *t = (am_tok *)p;
    if ((flags & FTS5_TOKENIZE_QUERY) && n >= 3 &&
        memcmp(text, AM__FTS_VERBATIM, 3) == 0) {
        if (n == 3) return SQLITE_OK;
        return xToken(fts_ctx, 0, text + 3, n - 3, 0, n);
    }
    tok_ctx c = {fts_ctx, xToken, NULL, 0, 0};
    size_t len = (size_t)(n < 0 ? 0 : n);
    size_t m = sizeof AM__FTS_TAG - 1;
    if (len >= 2 * m && memcmp(text, AM__FTS_TAG, m) == 0) {
        const char *end = NULL;
        for (size_t i = m; i + m <= len && i <= m + AM__FTS_TAG_MAX; i++)
            if (memcmp(text + i, AM__FTS_TAG, m) == 0) { end = text + i; break; }
        if (end && end > text + m) {
            c.tag = text + m;
            c.tag_len = (size_t)(end - c.tag);
            c.shift = c.tag_len + 2 * m;
            int rc = xToken(fts_ctx, 0, c.tag, (int)c.tag_len, 0, (int)c.shift);
            if (rc != SQLITE_OK) return rc;
            text += c.shift;
            len -= c.shift;
        }
    }
    int rc = am__text_tokenize(t->text, text, len, tok_cb, &c);
    if (rc == AM_NOMEM) return SQLITE_NOMEM;
    return rc;
}

typedef struct fn_ctx {
    int (*fn)(void *ctx, const char *tok, size_t len);
    void *ctx;
} fn_ctx;

static int fn_token(void *ctx, int flags, const char *tok, int len, int start, int end)
{
    (void)flags;
    (void)start;
    (void)end;
    fn_ctx *f = ctx;
    return f->fn(f->ctx, tok, len > 0 ? (size_t)len : 0);
}

/* What FTS5 is handed when it indexes the value: the same function. */
int am__fts_tokens(am__text *t, const char *text, size_t n,
                   int (*fn)(void *ctx, const char *tok, size_t len), void *ctx)
{
    am_tok tk = {t};
    fn_ctx f = {fn, ctx};
    int rc = tok_tokenize((Fts5Tokenizer *)&tk, &f, FTS5_TOKENIZE_DOCUMENT, text, (int)n, fn_token);
    return rc == SQLITE_NOMEM ? AM_NOMEM : rc;
}

fts5_api *am__sqlite_fts5(sqlite3 *db)
{
    fts5_api *api = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, NULL) != SQLITE_OK) return NULL;
    sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", NULL);
    sqlite3_step(st);
    sqlite3_finalize(st);
    return api && api->iVersion >= 2 ? api : NULL;
}

int am__sqlite_register_tokenizer(sqlite3 *db)
{
    fts5_api *api = am__sqlite_fts5(db);
    if (!api) return SQLITE_ERROR;
    static fts5_tokenizer tk = {tok_create, tok_delete, tok_tokenize};
    /* Tokenizer instances use libc: FTS5 owns their lifetime. */
    return api->xCreateTokenizer(api, "am_cjk", NULL, &tk, NULL);
}
