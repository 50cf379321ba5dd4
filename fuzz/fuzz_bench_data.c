/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_bench_data.c -- the benchmark dataset loaders (bench_load,
 * tools/bench/bench_data.c) on arbitrary bytes: LoCoMo, REALTALK,
 * MemDaily and MADial files as a user might point `agentmem bench` at.
 *
 * The first byte picks the dataset (mod 4: locomo, realtalk, memdaily,
 * madial) and, for memdaily, the number of distractors (bits 2-4); the rest
 * is written to a temporary file (memdaily: named like a MemDaily file,
 * "01_simple_events_dev.json").  For madial the rest is split at 0x1E
 * bytes into up to four files of a temporary directory: the en dialogue,
 * the en memory archive, the zh dialogue, the zh memory archive.
 * Checks: a refusal carries a non-empty message; a loaded dataset is
 * consistent -- every unit's documents and every question's gold are
 * pool indices, gold indices distinct, questions inside their unit's
 * range, every text and id present, counts agree.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static int put(const char *path, const uint8_t *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = fwrite(d, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static void check(const bench_dataset *ds)
{
    for (size_t i = 0; i < ds->n_docs; i++)
        if (!ds->docs[i].text || !ds->docs[i].key) abort();
    for (size_t u = 0; u < ds->n_units; u++) {
        const bench_unit *un = &ds->units[u];
        if (!un->user_id || un->q_begin > un->q_end || un->q_end > ds->n_qs) abort();
        for (size_t k = 0; k < un->n_docs; k++)
            if (un->docs[k] >= ds->n_docs) abort();
        for (size_t q = un->q_begin; q < un->q_end; q++)
            if (ds->qs[q].unit != u) abort();
    }
    for (size_t q = 0; q < ds->n_qs; q++) {
        const bench_question *bq = &ds->qs[q];
        if (!bq->id || !bq->text || !bq->category || bq->unit >= ds->n_units || !bq->n_gold)
            abort();
        for (size_t g = 0; g < bq->n_gold; g++) {
            if (bq->gold[g] >= ds->n_docs) abort();
            for (size_t h = 0; h < g; h++)
                if (bq->gold[h] == bq->gold[g]) abort();
        }
    }
    if (ds->refs_resolved > ds->refs) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"locomo", "realtalk", "memdaily", "madial"};
    if (size < 1 || size > (1u << 20)) return 0;
    int which = data[0] & 3;
    char dir[] = "/tmp/am_fuzz_bench_XXXXXX", path[256], files[4][256];
    size_t n_files = 0;
    if (!mkdtemp(dir)) return 0;
    const uint8_t *d = data + 1;
    size_t n = size - 1;
    if (which == 3) {
        static const char *const mad[] = {"MADial-Bench-en-dialogue_dev.json",
                                          "MADial-Bench-en-memory.json",
                                          "MADial-Bench-zh-dialogue_dev.json",
                                          "MADial-Bench-zh-memory.json"};
        for (size_t k = 0; k < 4 && n_files < 4; k++) {
            const uint8_t *sep = k < 3 ? memchr(d, 0x1E, n) : NULL;
            size_t len = sep ? (size_t)(sep - d) : n;
            snprintf(files[n_files], sizeof files[0], "%s/%s", dir, mad[k]);
            if (put(files[n_files++], d, len) != 0) goto out;
            if (!sep) break;
            d = sep + 1;
            n -= len + 1;
        }
        snprintf(path, sizeof path, "%s", dir);
    } else {
        snprintf(files[0], sizeof files[0], "%s/%s", dir,
                 which == 2 ? "01_simple_events_dev.json" : "Chat_1_fuzz.json");
        n_files = 1;
        if (put(files[0], d, n) != 0) goto out;
        snprintf(path, sizeof path, "%s", files[0]);
    }
    bench_dataset ds;
    bench_load_opts lo;
    bench_err e;
    memset(&ds, 0, sizeof ds);
    memset(&lo, 0, sizeof lo);
    lo.distractors = (data[0] >> 2) & 7;
    lo.seed = 1;
    lo.lang = "both";
    e.msg[0] = '\0';
    if (bench_load(&ds, names[which], path, &lo, &e) != 0) {
        if (e.msg[0] == '\0' || !memchr(e.msg, '\0', sizeof e.msg)) abort();
    } else {
        check(&ds);
    }
    bench_dataset_free(&ds);
out:
    for (size_t k = 0; k < n_files; k++) unlink(files[k]);
    rmdir(dir);
    return 0;
}
