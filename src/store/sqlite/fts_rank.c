/*
 * fts_rank.c -- am_bm25(), the ranking function of events_fts: BM25F.
 *
 * FTS5's built-in bm25() normalises a hit by the length of the whole row.
 * An event row has a `doc` column (its text and entities) and a `ctx`
 * column (the text of its neighbouring turns), so with bm25() a turn that
 * happens to have three chatty neighbours looks four times as long as one
 * said alone, and loses to it whatever it says.  am_bm25() normalises each
 * column by its own length against that column's average (BM25F):
 *
 *   tf(p)  = sum over columns c of  w_c * tf(p, c) / (1 - b + b * len_c / avg_c)
 *   score  = sum over phrases p of  idf(p) * tf(p) * (k1 + 1) / (k1 + tf(p))
 *   idf(p) = ln(1 + (N - n_p + 0.5) / (n_p + 0.5))
 *
 * with k1 = 1.2, b = 0.75, and returns -score (smaller is better, as
 * bm25(), so ORDER BY works the same way).
 *
 * SQL: am_bm25(events_fts, skip, df, w_0, w_1, ...): the first `skip`
 * phrases of the query are filters and not scored; `df` is NULL or a blob
 * of doubles: the document frequency of each scored phrase in query order,
 * then N, the number of rows the frequencies count, then optionally a
 * weight per scored phrase (its score is multiplied by it: expansions
 * count less than the words of the question) (the caller has them
 * from the vocabulary table -- with per-user terms they are the user's --
 * which is cheaper than counting each phrase's rows here; that is what
 * happens when df is NULL, with N the table's row count).  Missing column
 * weights are 1.  Column length averages are the table's.
 */
#include "store/sqlite/sqlite_int.h"

#include <math.h>
#include <string.h>

#define RANK_K1 1.2
#define RANK_B 0.75
#define MAX_COLS 8

/* Per-query data, computed on the first row and kept as FTS5 auxdata. */
typedef struct rank_data {
    int n_phrase;
    double avg[MAX_COLS]; /* average tokens per row, per column */
    double *idf;          /* n_phrase entries, times the phrase's weight
                             (skipped ones: 0) */
    double *tf;           /* n_phrase x n_col scratch */
} rank_data;

static int count_cb(const Fts5ExtensionApi *api, Fts5Context *fts, void *ud)
{
    (void)api;
    (void)fts;
    (*(sqlite3_int64 *)ud)++;
    return SQLITE_OK;
}

static int rank_data_make(const Fts5ExtensionApi *api, Fts5Context *fts,
                          int skip, sqlite3_value *df_val, rank_data **out)
{
    int n_col = api->xColumnCount(fts);
    int n_phrase = api->xPhraseCount(fts);
    sqlite3_int64 n_row = 0;
    int rc = api->xRowCount(fts, &n_row);
    if (rc != SQLITE_OK) return rc;
    if (n_col > MAX_COLS) n_col = MAX_COLS;
    size_t bytes = sizeof(rank_data) + sizeof(double) * (size_t)n_phrase * (size_t)(1 + n_col);
    rank_data *d = sqlite3_malloc64(bytes);
    if (!d) return SQLITE_NOMEM;
    memset(d, 0, bytes);
    d->n_phrase = n_phrase;
    d->idf = (double *)(d + 1);
    d->tf = d->idf + n_phrase;
    for (int c = 0; c < n_col && rc == SQLITE_OK; c++) {
        sqlite3_int64 total = 0;
        rc = api->xColumnTotalSize(fts, c, &total);
        d->avg[c] = n_row > 0 && total > 0 ? (double)total / (double)n_row : 1.0;
    }
    const double *df = NULL;
    int n_df = 0;
    const double *wt = NULL;
    double n_docs = (double)n_row;
    int n_bytes = df_val && sqlite3_value_type(df_val) == SQLITE_BLOB ? sqlite3_value_bytes(df_val) : 0;
    int n_scored = n_phrase - skip;
    if (n_bytes == (int)sizeof(double) * (n_scored + 1) ||
        n_bytes == (int)sizeof(double) * (2 * n_scored + 1)) {
        df = sqlite3_value_blob(df_val);
        n_df = n_scored;
        memcpy(&n_docs, df + n_df, sizeof n_docs); /* blob: unaligned */
        if (n_bytes == (int)sizeof(double) * (2 * n_scored + 1)) wt = df + n_df + 1;
    }
    for (int p = skip; p < n_phrase && rc == SQLITE_OK; p++) {
        double hits;
        if (df && p - skip < n_df) {
            memcpy(&hits, df + (p - skip), sizeof hits); /* blob: unaligned */
        } else {
            sqlite3_int64 h = 0;
            rc = api->xQueryPhrase(fts, p, &h, count_cb);
            hits = (double)h;
        }
        if (hits > n_docs) hits = n_docs;
        d->idf[p] = log(1.0 + (n_docs - hits + 0.5) / (hits + 0.5));
        if (wt) {
            double w;
            memcpy(&w, wt + (p - skip), sizeof w);
            d->idf[p] *= w;
        }
    }
    if (rc != SQLITE_OK) {
        sqlite3_free(d);
        return rc;
    }
    /* on failure FTS5 has already freed d with the destructor given */
    if ((rc = api->xSetAuxdata(fts, d, sqlite3_free)) != SQLITE_OK) return rc;
    *out = d;
    return SQLITE_OK;
}

static void am_bm25(const Fts5ExtensionApi *api, Fts5Context *fts,
                    sqlite3_context *ctx, int n_val, sqlite3_value **val)
{
    int skip = n_val > 0 ? sqlite3_value_int(val[0]) : 0;
    int n_phrases = api->xPhraseCount(fts);
    if (skip < 0) skip = 0;
    if (skip > n_phrases) skip = n_phrases;
    int n_col = api->xColumnCount(fts);
    if (n_col > MAX_COLS) n_col = MAX_COLS;
    rank_data *d = api->xGetAuxdata(fts, 0);
    int rc = SQLITE_OK;
    if (!d && (rc = rank_data_make(api, fts, skip, n_val > 1 ? val[1] : NULL, &d)) != SQLITE_OK) {
        sqlite3_result_error_code(ctx, rc);
        return;
    }
    double w[MAX_COLS], norm[MAX_COLS];
    for (int c = 0; c < n_col; c++) {
        int len = 0;
        w[c] = 2 + c < n_val ? sqlite3_value_double(val[2 + c]) : 1.0;
        if ((rc = api->xColumnSize(fts, c, &len)) != SQLITE_OK) break;
        norm[c] = 1.0 - RANK_B + RANK_B * (double)len / d->avg[c];
    }
    /* per phrase and column: walk each phrase's instances in this row
     * (no merge of all phrases by offset, as xInst would build) */
    memset(d->tf, 0, sizeof(double) * (size_t)d->n_phrase * (size_t)n_col);
    for (int p = skip; p < d->n_phrase && rc == SQLITE_OK; p++) {
        Fts5PhraseIter it;
        int c = -1, off = -1;
        rc = api->xPhraseFirst(fts, p, &it, &c, &off);
        while (rc == SQLITE_OK && c >= 0) {
            if (c < n_col) d->tf[(size_t)p * (size_t)n_col + (size_t)c] += 1;
            api->xPhraseNext(fts, &it, &c, &off);
        }
    }
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(ctx, rc);
        return;
    }
    double score = 0;
    for (int p = skip; p < d->n_phrase; p++) {
        double tf = 0;
        for (int c = 0; c < n_col; c++) {
            double t = d->tf[(size_t)p * (size_t)n_col + (size_t)c];
            if (t > 0 && w[c] > 0) tf += w[c] * t / norm[c];
        }
        if (tf > 0) score += d->idf[p] * tf * (RANK_K1 + 1) / (RANK_K1 + tf);
    }
    sqlite3_result_double(ctx, -score);
}

int am__sqlite_register_rank(sqlite3 *db)
{
    fts5_api *api = am__sqlite_fts5(db);
    if (!api) return SQLITE_ERROR;
    return api->xCreateFunction(api, "am_bm25", NULL, am_bm25, NULL);
}
