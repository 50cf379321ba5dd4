/*
 * fts_tokenizer.c -- the "am_cjk" FTS5 tokenizer: SQLite's full-text index
 * tokenizes through text/analyze (ICU words + Han bigrams + stemmed English),
 * because the built-in tokenizers cannot find 2-character Chinese words.
 *
 * Query side: the recall layer tokenizes the query itself (stopwords,
 * expansion) and sends every final token quoted and prefixed with U+E000;
 * such a string is passed through verbatim, so stemming is never applied
 * twice.
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
    return c->xToken(c->fts_ctx, 0, tok, (int)len, (int)start, (int)end);
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
    tok_ctx c = {fts_ctx, xToken};
    int rc = am__text_tokenize(t->text, text, (size_t)(n < 0 ? 0 : n), tok_cb,
                               &c);
    if (rc == AM_NOMEM) return SQLITE_NOMEM;
    return rc;
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
