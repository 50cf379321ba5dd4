/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_process_tuning.c -- the library changes no process-wide setting
 * unless am_config.process_tuning asks for it (AM_PROCESS_*).
 *
 * Each case runs in a child process of its own, since both settings are
 * the process's and SQLite's can be changed only before SQLite starts:
 *  - SQLite's memory statistics stay on with the default config
 *    (sqlite3_memory_used() counts the store's memory) and are off with
 *    AM_PROCESS_SQLITE_MEMSTATUS (it reads 0);
 *  - OpenBLAS keeps its thread count with the built-in encoder by default
 *    and runs on one thread with AM_PROCESS_BLAS_THREADS (when the
 *    encoder's weights are fetched in models/use-lite and OpenBLAS starts
 *    with more than one thread; otherwise that case says so and passes).
 * Runs with the repository root as the working directory.
 */
#include <cblas.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agentmem.h"
#include "test.h"

static am_db *open_with(unsigned tuning, const char *embedder)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = ":memory:";
    cfg.embedder = embedder;
    cfg.process_tuning = tuning;
    am_db *db = NULL;
    char *err = NULL;
    if (am_open(&cfg, &db, &err) != AM_OK) fprintf(stderr, "am_open: %s\n", err ? err : "?");
    free(err);
    return db;
}

/* The SQLite case in this (child) process: 0 when it holds. */
static int sqlite_case(unsigned tuning)
{
    am_db *db = open_with(tuning, NULL);
    if (!db) return 2;
    am_event ev = {.user_id = "alice", .text = tuning ? "以后周报都用表格" : "send the weekly report as a table"};
    if (am_add_event(db, &ev, NULL) != AM_OK) return 3;
    sqlite3_int64 used = sqlite3_memory_used();
    am_close(db);
    if (tuning) return used == 0 ? 0 : (fprintf(stderr, "memory_used %lld, wanted 0\n", (long long)used), 4);
    return used > 0 ? 0 : (fprintf(stderr, "memory_used 0: statistics turned off\n"), 5);
}

/* The OpenBLAS case: 0 when it holds (or cannot be told apart), else 6. */
static int blas_case(void)
{
    if (access("models/use-lite/model.json", R_OK) != 0 || getenv("OPENBLAS_NUM_THREADS") ||
        getenv("OMP_NUM_THREADS")) {
        printf("blas: no weights in models/use-lite or a thread count set: not told apart\n");
        return 0;
    }
    int before = openblas_get_num_threads();
    if (before <= 1) {
        printf("blas: OpenBLAS starts with one thread here: not told apart\n");
        return 0;
    }
    am_db *a = open_with(0, "use-lite:models/use-lite");
    if (!a) return 2;
    int untouched = openblas_get_num_threads();
    am_db *b = open_with(AM_PROCESS_BLAS_THREADS, "use-lite:models/use-lite");
    if (!b) return 2;
    int one = openblas_get_num_threads();
    am_close(a);
    am_close(b);
    if (untouched != before || one != 1) {
        fprintf(stderr, "blas: %d threads, %d after a default open, %d after an opt-in one\n", before,
                untouched, one);
        return 6;
    }
    return 0;
}

static int in_child(int which)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) _exit(which == 2 ? blas_case() : sqlite_case(which ? AM_PROCESS_SQLITE_MEMSTATUS : 0));
    int st = 0;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return -1;
    return WEXITSTATUS(st);
}

static void test_sqlite_memstatus_default_untouched(void) { CHECK_EQ_INT(in_child(0), 0); }
static void test_sqlite_memstatus_opt_in(void) { CHECK_EQ_INT(in_child(1), 0); }
static void test_blas_threads(void) { CHECK_EQ_INT(in_child(2), 0); }

int main(void)
{
    RUN(test_sqlite_memstatus_default_untouched);
    RUN(test_sqlite_memstatus_opt_in);
    RUN(test_blas_threads);
    TEST_MAIN_END();
}
