/* SPDX-License-Identifier: Apache-2.0 */
/*
 * store_holder.h -- a child process that holds the test's store (path,
 * store_file.h) open, a handle that has read it, until told to finish:
 * what the tests of "no byte left in the files" run beside the handle
 * that forgets or deletes.  Include after test.h and store_file.h.
 */
#ifndef AM_TEST_STORE_HOLDER_H
#define AM_TEST_STORE_HOLDER_H
#include <sys/wait.h>
#include <unistd.h>

#include "agentmem.h"

/* read(db): the child's read (0: done; else it exits 4).  Returns the
 * child's pid once it has read (-1 on failure); *down_w tells it to go. */
static pid_t holder_start(int (*read_fn)(am_db *db), int *down_w)
{
    int up[2], down[2];
    if (pipe(up) || pipe(down)) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(up[0]);
        close(down[1]);
        am_config cfg;
        am_config_init(&cfg);
        cfg.path = path;
        am_db *db = NULL;
        if (am_open(&cfg, &db, NULL)) _exit(3);
        if (read_fn(db)) _exit(4);
        char c = 'r';
        if (write(up[1], &c, 1) != 1) _exit(5);
        if (read(down[0], &c, 1) != 1) _exit(6);
        am_close(db);
        _exit(0);
    }
    close(up[1]);
    close(down[0]);
    char c;
    if (pid < 0 || read(up[0], &c, 1) != 1) pid = -1;
    close(up[0]);
    *down_w = down[1];
    return pid;
}

static void holder_end(pid_t pid, int down_w)
{
    char c = 'g';
    CHECK(write(down_w, &c, 1) == 1);
    close(down_w);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
#endif
